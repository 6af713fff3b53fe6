"""Theorem names and statements: extraction from untrusted source, comparison with the dataset's.

The oracle accepts a proof only of the dataset's theorem: a declaration with the same name whose binders
and type are the dataset's text up to whitespace. :func:`compare_statement` says which way a submission
differs (``renamed_theorem``, ``weakened_hypothesis``, ``statement_tampering``) before Lean runs.

:func:`build_submission` turns an action (a tactic block, or a whole theorem) into the Lean source that is
checked; :class:`TargetTheorem` is the one view of a dataset row the grading code reads.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lean_gym.grading.policy import strip_comments_and_strings

__all__ = [
    "Declaration",
    "StatementFinding",
    "TargetTheorem",
    "as_target",
    "build_submission",
    "compare_statement",
    "declarations",
    "extract_code_block",
    "is_whole_theorem",
    "normalize",
    "split_signature",
]

_DECL_KEYWORDS = ("theorem", "lemma", "example")
_DECL_RE = re.compile(r"(?<![\w'!?.])(theorem|lemma|example)(?![\w'!?])")
_NAME_RE = re.compile(r"\s*((?:«[^»]*»|[^\W\d][\w'!?]*)(?:\.(?:«[^»]*»|[^\W\d][\w'!?]*))*)")
_OPEN = "([{⦃⟨"
_CLOSE = ")]}⦄⟩"
_PUNCT = "()[]{}⦃⦄⟨⟩,:"


@dataclass(frozen=True)
class TargetTheorem:
    """The trusted theorem a submission must prove.

    Attributes:
        name: The declaration name (``mathd_algebra_478``).
        formal_statement: ``theorem NAME binders : type :=`` (with or without a trailing ``by``).
        header: Imports, options and opens the statement is checked under.
        informal: The natural-language statement, when the data has one.
        difficulty: A number for curricula (larger is harder), when known.
        source: Where the row came from (``minif2f``, a simulator family…), when known.
    """

    name: str
    formal_statement: str
    header: str = ""
    informal: str = ""
    difficulty: float | None = None
    source: str = ""


def as_target(theorem: Any) -> TargetTheorem:
    """A :class:`TargetTheorem` from a dataset row, a ``lean_gym.data`` theorem, a mapping or a statement.

    Accepted inputs: a :class:`TargetTheorem`; any object or mapping with ``formal_statement`` (and
    optionally ``name``, ``header``, ``informal_statement``/``informal_prefix``/``informal``,
    ``difficulty``); or a string holding ``theorem NAME … :=``.

    Raises:
        ValueError: when no theorem name can be found.
    """
    if isinstance(theorem, TargetTheorem):
        return theorem
    if isinstance(theorem, str):
        data: Mapping[str, Any] = {"formal_statement": theorem}
    elif isinstance(theorem, Mapping):
        data = theorem
    else:
        data = {k: getattr(theorem, k) for k in dir(theorem) if not k.startswith("_")}
    statement = str(data.get("formal_statement") or data.get("statement") or "")
    name = str(data.get("name") or "")
    decls = declarations(statement)
    if not name and decls:
        name = decls[0].name or ""
    if not name:
        raise ValueError(f"cannot find the theorem name in {statement[:80]!r}; pass a `name`")
    if not any(d.name is not None and _same_name(d.name, name) for d in decls):
        declared = [d.name for d in decls if d.name is not None]
        raise ValueError(
            f"the theorem is named {name!r} but its statement declares "
            + (", ".join(repr(n) for n in declared) if declared else "no named theorem")
            + f": {statement[:80]!r}"
        )
    informal = ""
    for key in ("informal_statement", "informal", "informal_prefix"):
        value = data.get(key)
        if value:
            informal = str(value)
            break
    difficulty = data.get("difficulty")
    return TargetTheorem(
        name=name,
        formal_statement=statement,
        header=str(data.get("header") or ""),
        informal=informal,
        difficulty=float(difficulty) if isinstance(difficulty, (int, float)) else None,
        source=str(data.get("source") or data.get("split") or ""),
    )


# ------------------------------------------------------------------------------------------ parsing


@dataclass(frozen=True)
class Declaration:
    """A ``theorem``/``lemma``/``example`` found in source.

    Attributes:
        keyword: ``theorem``, ``lemma`` or ``example``.
        name: The declared name (``None`` for ``example``).
        signature: The text between the name and the top-level ``:=`` (binders, colon, type).
        line: 1-based line of the keyword.
    """

    keyword: str
    name: str | None
    signature: str
    line: int


def _find_assign(code: str, start: int) -> int:
    """Offset of the first ``:=`` (or ``|`` pattern / ``where``) at bracket depth 0 from ``start``."""
    depth = 0
    i, n = start, len(code)
    while i < n:
        c = code[i]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth = max(depth - 1, 0)
        elif (depth == 0 and code.startswith(":=", i)) or (
            depth == 0 and c == "\n" and re.match(r"\n(theorem|lemma|example|def)\b", code[i:])
        ):
            return i
        i += 1
    return n


def declarations(source: str) -> list[Declaration]:
    """The ``theorem``/``lemma``/``example`` declarations of ``source``, comments and strings ignored."""
    code = strip_comments_and_strings(source)
    out: list[Declaration] = []
    for m in _DECL_RE.finditer(code):
        keyword = m.group(1)
        pos = m.end()
        name: str | None = None
        if keyword != "example":
            nm = _NAME_RE.match(code, pos)
            if not nm:
                continue
            name = nm.group(1)
            pos = nm.end()
        end = _find_assign(code, pos)
        out.append(Declaration(keyword, name, code[pos:end], code.count("\n", 0, m.start()) + 1))
    return out


def normalize(text: str) -> str:
    """``text`` with whitespace runs collapsed, and dropped next to brackets, commas and colons."""
    text = re.sub(r"\s+", " ", text.strip())
    return re.sub(r" ?([" + re.escape(_PUNCT) + r"]) ?", r"\1", text)


def split_signature(signature: str) -> tuple[str, str]:
    """``(binders, type)``: the signature split at its first colon at bracket depth 0."""
    depth = 0
    for i, c in enumerate(signature):
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth = max(depth - 1, 0)
        elif c == ":" and depth == 0 and not signature.startswith(":=", i):
            return signature[:i], signature[i + 1 :]
    return signature, ""


@dataclass(frozen=True)
class StatementFinding:
    """Why a submission's statement is not the dataset's.

    Attributes:
        hack_class: ``renamed_theorem``, ``weakened_hypothesis`` or ``statement_tampering`` (also
            used when no theorem is declared at all).
        reason: What differs, for feedback.
        line: Where the offending declaration starts (1-based), or 0.
    """

    hack_class: str
    reason: str
    line: int = 0


def compare_statement(target: TargetTheorem, submission: str) -> StatementFinding | None:
    """``None`` when ``submission`` declares ``target.name`` with exactly the dataset's statement.

    Whitespace is not significant (see :func:`normalize`); everything else is. The conclusion and the
    binders are compared separately, so an added or changed hypothesis is reported as
    ``weakened_hypothesis`` and a changed conclusion as ``statement_tampering``.
    """
    wanted = [
        d
        for d in declarations(target.formal_statement)
        if d.name is not None and _same_name(d.name, target.name)
    ]
    if not wanted:
        raise ValueError(
            f"the dataset statement does not declare {target.name!r}: {target.formal_statement[:80]!r}"
        )
    want_binders, want_type = (normalize(x) for x in split_signature(wanted[0].signature))
    decls = declarations(submission)
    mine = [d for d in decls if d.name is not None and _same_name(d.name, target.name)]
    if not mine:
        if decls:
            other = decls[-1]
            label = other.name if other.name else "an `example`"
            return StatementFinding(
                "renamed_theorem", f"the submission proves {label}, not `{target.name}`", other.line
            )
        return StatementFinding("statement_tampering", f"the submission declares no theorem `{target.name}`")
    for d in mine:
        binders, typ = (normalize(x) for x in split_signature(d.signature))
        if typ != want_type:
            return StatementFinding(
                "statement_tampering",
                f"the type of `{target.name}` is not the dataset's (expected `{want_type}`, got `{typ}`)",
                d.line,
            )
        if binders != want_binders:
            return StatementFinding(
                "weakened_hypothesis",
                f"the hypotheses of `{target.name}` are not the dataset's "
                f"(expected `{want_binders}`, got `{binders}`)",
                d.line,
            )
    return None


_NAME_PART_RE = re.compile(r"«([^»]*)»|([^.«»]+)")


def _name_parts(name: str) -> list[str]:
    """The components of a Lean name as Lean reads them: ``«t»`` is ``t``, ``«a.b»`` one part, ``a.b`` two."""
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _NAME_PART_RE.finditer(name)]


def _same_name(a: str, b: str) -> bool:
    return _name_parts(a.strip()) == _name_parts(b.strip())


# ------------------------------------------------------------------------------------------ actions


def extract_code_block(text: str) -> str:
    """The last fenced code block of ``text`` (```` ```lean4 ````, ```` ```lean ```` or bare), else ``text``.

    Language models often wrap their proof in Markdown; an unclosed final fence counts to the end.
    """
    blocks = re.findall(r"```[ \t]*(?:lean4|lean)?[ \t]*\n(.*?)(?:```|\Z)", text, flags=re.DOTALL)
    blocks = [b for b in blocks if b.strip()]
    return blocks[-1] if blocks else text


_WHOLE_RE = re.compile(
    r"(?:^|(?<![\w'!?.])in\s+)[ \t]*(?:@\[[^\]]*\]\s*)?"
    r"(?:(?:private|protected|noncomputable|nonrec)\s+)*(theorem|lemma|example)(?![\w'!?])",
    re.MULTILINE,
)


def is_whole_theorem(action: str) -> bool:
    """True when ``action`` declares a ``theorem``/``lemma``/``example`` (else it is a tactic block).

    The keyword must start a command: at the start of a line (after attributes and modifiers) or after
    ``… in``; a word "theorem" inside prose or a tactic does not count.
    """
    return bool(_WHOLE_RE.search(strip_comments_and_strings(action)))


def _realign_first_line(block: str) -> str:
    """Undo a ``.strip()`` that removed only the first line's indentation (``"simp\\n  ring"``).

    When the first line is at column 0, every later non-blank line is indented by at least ``k > 0``,
    and the first line closes all its brackets (so the next line starts a new tactic, not a continued
    term), the first line is moved to column ``k``.
    """
    lines = block.split("\n")
    rest = [ln for ln in lines[1:] if ln.strip()]
    if not rest or lines[0][:1].isspace():
        return block
    k = min(len(ln) - len(ln.lstrip(" ")) for ln in rest)
    first = strip_comments_and_strings(lines[0])
    depth = sum(first.count(c) for c in _OPEN) - sum(first.count(c) for c in _CLOSE)
    if k == 0 or depth != 0 or re.search(r"(,|:=|=>|<;>|←|\bfun\b.*|[-+*/^=<>≤≥∧∨→↔])\s*$", first):
        return block
    return textwrap.dedent(" " * k + block)


def build_submission(target: TargetTheorem, action: str) -> str:
    """The Lean source checked for ``action``: the action itself, or the statement followed by it.

    * A whole theorem (the action declares ``theorem``/``lemma``/``example``) is used as is; leading
      ``import`` lines are left for the policy (repeats of the header's imports are allowed).
    * Anything else is a tactic block: a leading ``by`` or ``:= by`` is dropped, the block is dedented
      (a first line stripped of its indentation is realigned with the next ones), indented by two spaces
      and placed after the dataset's statement (which ends in ``:= by``).

    Markdown fences are removed first (see :func:`extract_code_block`).
    """
    text = extract_code_block(action)
    if is_whole_theorem(text):
        return text.strip("\n") + "\n"
    block = textwrap.dedent(text.strip("\n"))
    block = re.sub(r"^\s*(?::=\s*)?by(?![\w'!?])[ \t]*\n?", "", block, count=1)
    block = _realign_first_line(textwrap.dedent(block.strip("\n")))
    statement = target.formal_statement.rstrip()
    if not re.search(r":=\s*by$", statement):
        statement = re.sub(r"\s*:=\s*$", "", statement) + " := by"
    body = textwrap.indent(block, "  ") if block.strip() else "  skip"
    return f"{statement}\n{body}\n"
