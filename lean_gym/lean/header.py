"""Splitting Lean source into a header (imports, options, opens) and a body, and keying headers.

A REPL process can import only once (in its first, env-less command), so the pool keys processes by
header: every check that shares a header reuses the environment that header built. Leading ``import``,
``set_option`` and ``open`` lines of the caller's code are moved into the header, and the line numbers of
Lean's messages are shifted back by the number of lines moved, so positions always refer to the code the
caller passed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SplitSource", "normalize_header", "split_header"]

_IMPORT = re.compile(r"^\s*import\s+\S")
# `open Foo in`, `set_option x y in` scope over the next command only: they are part of the body.
_SCOPED = re.compile(r"\bin\s*$")
_HEADERISH = re.compile(r"^\s*(set_option|open)\s+\S")


@dataclass(frozen=True)
class SplitSource:
    """Code split for the pool: ``header`` runs once per process, ``body`` per check."""

    header: str
    body: str
    line_offset: int


def split_header(code: str, header: str = "") -> SplitSource:
    """Move the leading ``import``/``set_option``/``open`` lines of ``code`` into the header.

    Imports are put first (Lean accepts them only at the top), then the given ``header``'s other lines, then
    the options and opens taken from ``code``.

    Args:
        code: The caller's Lean source.
        header: A header given separately (e.g. the dataset's ``import Mathlib ...``).

    Returns:
        The combined, normalized header; the body; and how many lines of ``code`` were moved (add it to
        message lines reported for the body).
    """
    lines = code.split("\n")
    taken: list[str] = []
    i = 0
    in_comment = False
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if in_comment:
            if "-/" in stripped:
                in_comment = False
            i += 1
            continue
        if not stripped or stripped.startswith("--"):
            i += 1
            continue
        if stripped.startswith("/-") and not stripped.startswith("/--"):
            in_comment = "-/" not in stripped[2:]
            i += 1
            continue
        if _IMPORT.match(line) or (_HEADERISH.match(line) and not _SCOPED.search(stripped)):
            taken.append(stripped)
            i += 1
            continue
        break
    if not taken:
        return SplitSource(normalize_header(header), code, 0)
    # Lines before i that were comments or blanks are dropped with the header lines: the body starts at i.
    body = "\n".join(lines[i:])
    return SplitSource(normalize_header(header + "\n" + "\n".join(taken)), body, i)


def normalize_header(header: str) -> str:
    """Canonical text of a header: imports first (deduplicated, in order), then the other lines.

    Blank lines and trailing whitespace are dropped so that equivalent headers share one process.
    """
    imports: list[str] = []
    rest: list[str] = []
    for raw in header.split("\n"):
        line = raw.rstrip()
        if not line.strip():
            continue
        if _IMPORT.match(line):
            if line.strip() not in imports:
                imports.append(line.strip())
        else:
            rest.append(line)
    return "\n".join(imports + rest)
