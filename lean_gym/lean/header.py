"""Splitting Lean source into a header (imports, options, opens) and a body, and keying headers.

A REPL process can import only once (in its first, env-less command), so the pool keys processes by
header: every check that shares a header reuses the environment that header built. Leading ``import``,
``set_option`` and ``open`` lines of the caller's code are moved into the header, and the line numbers of
Lean's messages are shifted back by the number of lines moved, so positions always refer to the code the
caller passed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from lean_gym.lean.lexer import LexToken, lex, lex_lines

__all__ = ["SplitSource", "normalize_header", "split_header"]

_IMPORT = re.compile(r"^\s*import\s+\S")


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

    ``code`` is read by :func:`lean_gym.lean.lexer.lex`, so comments end exactly where Lean ends them (nested
    ``/- /- -/ -/`` included): a line inside a comment never reaches the header. A line moves only when it
    is one whole command on its own line: ``import M…``, ``set_option NAME VALUE`` or ``open N…`` (not
    ``… in``), with no comment or literal running on past the line and no lexical error before it. The first
    line that is not such a command, and everything after it, is the body.

    Args:
        code: The caller's Lean source.
        header: A header given separately (e.g. the dataset's ``import Mathlib ...``).

    Returns:
        The combined, normalized header; the body; and how many lines of ``code`` were moved (add it to
        message lines reported for the body).
    """
    if _first_line_keeps_all(code):
        return SplitSource(normalize_header(header), code, 0)
    toks = lex(code)
    first = next((t for t in toks if t.kind != "comment"), None)
    if first is None or first.kind != "ident" or first.text not in _HEADER_COMMANDS:
        return SplitSource(normalize_header(header), code, 0)
    line_starts = [0, *(m.end() for m in _NEWLINE.finditer(code))]

    def line_of(offset: int) -> int:
        return bisect_right(line_starts, offset) - 1

    taken: list[str] = []
    body_line = 0  # the first line of the body
    k, n = 0, len(toks)
    after = 0  # the token after the last command taken
    while k < n:
        t = toks[k]
        if t.kind == "comment":
            if t.message:  # an unterminated comment: Lean reads nothing after it
                break
            k += 1
            continue
        if t.kind != "ident" or t.text not in _HEADER_COMMANDS:
            break
        line = line_of(t.start)
        if line_of(t.start) < body_line:  # shares a line with text already dropped (after a comment)
            break
        j = k
        while j < n and line_of(toks[j].start) == line:
            j += 1
        cmd = [x for x in toks[k:j] if x.kind != "comment"]
        if any(line_of(x.end) != line or x.kind == "error" for x in toks[k:j]):
            break  # a comment or literal runs past the line, or Lean's lexer rejects something
        nxt = next((x for x in toks[j:] if x.kind != "comment"), None)
        if not _whole_command(cmd, nxt):
            break
        taken.append(code[cmd[0].start : cmd[-1].end])
        body_line = line + 1
        k = after = j
    if not taken:
        return SplitSource(normalize_header(header), code, 0)
    # Blank and comment-only lines after the header go too, up to the line where the body's code (or a
    # comment running into that line) starts.
    rest = toks[after:]
    first = next((x for x in rest if x.kind != "comment"), None)
    start_line = line_of(first.start) if first is not None else len(line_starts)
    for x in reversed(rest[: rest.index(first)] if first is not None else rest):
        if x.message or line_of(x.end) >= start_line:
            start_line = line_of(x.start)
    body_line = max(body_line, start_line)
    # Lines before the body's first line were header commands, comments or blanks: they are dropped.
    body = code[line_starts[body_line] :] if body_line < len(line_starts) else ""
    return SplitSource(normalize_header(header + "\n" + "\n".join(taken)), body, body_line)


def _first_line_keeps_all(code: str) -> bool:
    """Whether :func:`split_header` moves nothing, seen from the text's first token and line alone.

    That is: the text starts with a token that is no header command (``theorem …``), or with ``import`` or
    ``set_option`` on a line that is not one whole such command (``set_option maxHeartbeats N in``, what
    every aesop check starts with). Then the loop of :func:`split_header` stops at its first token, and the
    text need not be lexed whole: read line by line (:func:`~lean_gym.lean.lexer.lex_lines`, as the
    simulator reads it too), its tokens are the whole text's; a text that does not read line by line, or
    starts with a comment or a blank, is left to the general reading. Only the first line is read: where it
    reads alone (no token runs past it, no string literal in it), its tokens are the whole text's first
    ones, whatever the lines after it hold (the lexer never looks ahead past a line end).
    """
    nl = code.find("\n")
    lines = lex_lines(code if nl < 0 else code[:nl])
    if lines is None or not lines[0][1]:
        return False
    first = lines[0][1][0]
    if first[0] in ("comment", "doc") or first[1] != 0:
        return False  # a comment first, or leading blanks: the general reading below
    if first[0] != "ident" or first[3] not in _HEADER_COMMANDS:
        return True
    if first[3] == "open":
        return False  # whether `open A` is whole depends on the next line
    cmd = [LexToken(*t) for t in lines[0][1]]
    if any(t.kind == "comment" for t in cmd):
        return False
    return not _whole_command(cmd, None)  # for `import` and `set_option` the next token does not matter


_HEADER_COMMANDS = frozenset({"import", "set_option", "open"})
_NEWLINE = re.compile("\n")
_VALUE_KINDS = frozenset({"num", "sci", "str", "ident"})


def _whole_command(cmd: list[LexToken], nxt: LexToken | None) -> bool:
    """True when ``cmd`` (the tokens of one line) is one complete header command that ``nxt`` can't extend."""
    head = cmd[0].text
    rest = cmd[1:]
    if not rest or any(x.kind not in ("ident", "num", "sci", "str", "sym") for x in rest):
        return False
    if head == "import":
        return all(x.kind == "ident" for x in rest)
    if head == "set_option":
        return len(rest) == 2 and rest[0].kind == "ident" and rest[1].kind in _VALUE_KINDS
    # `open A B`: more names on the next line would belong to it; `open A in` scopes over one command
    if not all(x.kind == "ident" for x in rest) or rest[-1].text == "in":
        return False
    return nxt is None or nxt.kind != "ident" or nxt.text in _COMMAND_KEYWORDS


_COMMAND_KEYWORDS = frozenset(
    {
        "theorem",
        "lemma",
        "example",
        "def",
        "abbrev",
        "axiom",
        "instance",
        "structure",
        "inductive",
        "class",
        "open",
        "set_option",
        "import",
        "namespace",
        "section",
        "end",
        "variable",
        "universe",
        "noncomputable",
        "private",
        "protected",
        "attribute",
        "#print",
        "#check",
        "#eval",
        "#exit",
    }
)


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
