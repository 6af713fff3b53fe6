"""The corpus of recorded Lean behaviour (``lean_gym/conformance/cases/``): loading and validating its cases.

The format is ``lean_gym/conformance/FORMAT.md``. Every case states one fact a public record establishes
(Mathlib's ``MathlibTest/``, Aesop's ``AesopTest/``, Lean core's ``tests/``, the REPL's ``test/``, SATP's
published proofs) and cites it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lean_gym.errors import ConfigError
from lean_gym.jsonl import read_jsonl_objects
from lean_gym.lean.versions import parse_version

__all__ = ["CASES_DIR", "SOURCES", "Case", "load_cases", "satp_theorems"]

#: Where the cases ship, inside the package.
CASES_DIR = Path(__file__).parent / "cases"

#: The sources of the corpus, in the order reports list them.
SOURCES: tuple[str, ...] = ("aesop", "lean4", "mathlib", "repl", "satp")

_KINDS = ("command", "repl")


@dataclass(frozen=True)
class Case:
    """One recorded fact about Lean.

    Attributes:
        id: ``<source>.<family>.<4 digits>`` (REPL tag cases: ``repl.tag_<tag>.<4 digits>``).
        kind: ``"command"`` (code checked under a header) or ``"repl"`` (a transcript of requests).
        family: The tactic or feature the case is about.
        header: Imports and options the code is checked under.
        code: The checked code (command cases).
        expect: ``"ok"`` (Lean reports no error) or ``"error"`` (command cases).
        messages: Lean's messages as recorded (``{"severity", "text"}``), empty when not recorded.
        messages_complete: The record shows every message the code produces.
        lean_version: The Lean version of the record: a release (``v4.32.0-rc1``), a bound its own text
            sets (``before v4.23.0-rc2 (…)``, ``after v4.22.0 (…)``), or ``unknown (…)`` (``FORMAT.md``).
        source: The record: ``repo``, ``path``, ``commit``, ``line``, ``how``.
        note: What the case shows; a note starting ``derived:`` marks a case derived from the record
            rather than recorded by it.
        requests: The REPL requests, in order (REPL cases).
        responses: The REPL's recorded answers, one per request (REPL cases).
        needs_files: Files of the source repository a REPL transcript reads.
        in_text: The ``.in`` text verbatim, for transcripts about how the REPL frames its input.
        path: The file the case was read from, relative to the cases folder.
    """

    id: str
    kind: Literal["command", "repl"]
    family: str
    header: str
    source: Mapping[str, Any]
    lean_version: str = "unknown"
    code: str = ""
    expect: Literal["ok", "error"] | None = None
    messages: tuple[Mapping[str, str], ...] = ()
    messages_complete: bool = False
    note: str = ""
    requests: tuple[Mapping[str, Any], ...] = ()
    responses: tuple[Mapping[str, Any], ...] = ()
    needs_files: tuple[str, ...] = ()
    in_text: str | None = None
    path: str = field(default="", compare=False)

    @property
    def corpus_source(self) -> str:
        """The corpus source the case belongs to (``aesop``, ``lean4``, ``mathlib``, ``repl``, ``satp``)."""
        return self.id.split(".", 1)[0]

    @property
    def derived(self) -> bool:
        """True for a case derived from the record (its note starts ``derived:``), not recorded by it."""
        return self.note.startswith("derived:")

    @property
    def lean_errors(self) -> tuple[str, ...]:
        """The texts of Lean's recorded error messages, in order."""
        return tuple(m["text"] for m in self.messages if m.get("severity") == "error")

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], *, path: str = "") -> Case:
        """Read one case, raising :class:`ConfigError` (one line, naming the case) for a malformed one."""
        where = f"{path}: case {obj.get('id', '?')!r}" if path else f"case {obj.get('id', '?')!r}"
        for key in ("id", "kind", "family", "header", "source"):
            if key not in obj:
                raise ConfigError(f"{where}: missing field {key!r} (see lean_gym/conformance/FORMAT.md)")
        kind = obj["kind"]
        if kind not in _KINDS:
            raise ConfigError(f"{where}: kind must be one of {_KINDS}, got {kind!r}")
        if kind == "command":
            if obj.get("expect") not in ("ok", "error"):
                raise ConfigError(f"{where}: expect must be 'ok' or 'error', got {obj.get('expect')!r}")
            if not isinstance(obj.get("code"), str):
                raise ConfigError(f"{where}: a command case needs its code")
        else:
            reqs, resps = obj.get("requests"), obj.get("responses")
            if not isinstance(reqs, list) or not isinstance(resps, list) or len(reqs) != len(resps):
                raise ConfigError(
                    f"{where}: a repl case needs requests and responses, one answer per request"
                )
        version = obj.get("lean_version", "unknown")
        if not isinstance(version, str):
            raise ConfigError(f"{where}: lean_version must be a string, got {version!r}")
        if not version.startswith("unknown"):
            words = version.split()
            bounded = bool(words) and words[0] in ("before", "after")
            try:
                parse_version(words[1] if bounded and len(words) > 1 else words[0] if words else "")
            except ConfigError:
                raise ConfigError(
                    f"{where}: lean_version {version!r} is not a Lean version: a release (v4.27.0), a bound "
                    "'before vX.Y.Z[-rcN] (…)' or 'after vX.Y.Z[-rcN] (…)', or 'unknown (…)' (see "
                    "lean_gym/conformance/FORMAT.md)"
                ) from None
        return cls(
            id=obj["id"],
            kind=kind,
            family=obj["family"],
            header=obj["header"],
            source=dict(obj["source"]),
            lean_version=version,
            code=obj.get("code", ""),
            expect=obj.get("expect"),
            messages=tuple(obj.get("messages", ())),
            messages_complete=bool(obj.get("messages_complete", False)),
            note=obj.get("note", ""),
            requests=tuple(obj.get("requests", ())),
            responses=tuple(obj.get("responses", ())),
            needs_files=tuple(obj.get("needs_files", ())),
            in_text=obj.get("in_text"),
            path=path,
        )


def _files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.jsonl"))


def load_cases(
    sources: Iterable[str] | None = None,
    families: Iterable[str] | None = None,
    *,
    kinds: Sequence[str] = _KINDS,
    root: str | Path | None = None,
) -> list[Case]:
    """The corpus's cases, in a stable order (by file, then line).

    Args:
        sources: Keep only these corpus sources (``aesop``, ``lean4``, ``mathlib``, ``repl``, ``satp``).
        families: Keep only these families.
        kinds: Keep only these kinds (``"command"``, ``"repl"``).
        root: Another cases folder laid out the same way (default: the corpus shipped with the package).

    Raises:
        ConfigError: an unknown source, a malformed case, or a repeated id (one line each).
    """
    base = Path(root) if root is not None else CASES_DIR
    wanted_sources = set(sources) if sources is not None else None
    if wanted_sources is not None:
        unknown = sorted(wanted_sources - set(SOURCES))
        if unknown:
            raise ConfigError(f"unknown corpus source {unknown[0]!r} (sources: {', '.join(SOURCES)})")
    wanted_families = set(families) if families is not None else None
    cases: list[Case] = []
    seen: set[str] = set()
    for f in _files(base):
        rel = f.relative_to(base).as_posix()
        if wanted_sources is not None and rel.split("/", 1)[0] not in wanted_sources:
            continue
        try:
            rows = list(read_jsonl_objects(f))
        except ValueError as e:
            raise ConfigError(str(e).replace(str(f), rel, 1)) from None
        for where, obj in rows:
            case = Case.from_json(obj, path=rel)
            if case.id in seen:
                raise ConfigError(
                    f"{rel}:{where.rsplit(':', 1)[1]}: case id {case.id!r} appears twice in the corpus"
                )
            seen.add(case.id)
            if case.kind not in kinds:
                continue
            if wanted_families is not None and case.family not in wanted_families:
                continue
            cases.append(case)
    return cases


def satp_theorems(file: str) -> dict[str, str]:
    """The code of each case of one of SATP's case files, by the name of the theorem it states.

    ``file`` is ``satp_calls.jsonl`` or ``satp_minimal.jsonl``; the cases come in file order.

    Raises:
        ConfigError: a case whose code does not start with ``theorem NAME``.
    """
    out: dict[str, str] = {}
    for where, obj in read_jsonl_objects(CASES_DIR / "satp" / file):
        code = str(obj["code"])
        m = re.match(r"theorem (\S+)", code)
        if m is None:
            raise ConfigError(f"{where}: the case's code does not start with `theorem NAME`")
        out[m.group(1)] = code
    return out
