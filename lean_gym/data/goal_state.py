"""Goal states as data: hypotheses and a target, read from and written to Lean's two textual forms.

Lean prints a goal as a *goal state* (``ppGoal``: one ``names : type`` line per run of hypotheses of the
same type, then ``⊢ target``), and SATP's policy reads it as a *theorem-form prompt*: a statement whose
binders are the hypotheses. :func:`satp_formal_statement` builds that prompt exactly as SATP's inference
service does (``build_formal_statement`` in ``python/src/leansatp_runtime/service.py`` of
``ChristianZ97/LeanSATP``, commit ``687f9b809d0ea07965ead71adbd3e5e483a7882f``)::

    theorem satp_goal
      (x : ℝ)
      (h_ : 0 ≤ x)
      : 0 ≤ x + 1 := by

SATP's builder replaces every character of a name outside ``[A-Za-z0-9_']`` by ``_`` (``h₀`` becomes
``h_``), names an unnamed hypothesis ``h{i}`` and drops hypotheses whose type is blank. Its prompt is
therefore not always a statement Lean elaborates (a goal that names ``x₁`` refers to a binder now called
``x_``); it is the policy's input, and lean-gym reproduces it byte for byte.

Example:
    >>> hyps, target = parse_goal_state("x y : ℝ\\nh₀ : x < y\\n⊢ x ≤ y")
    >>> [(h.name, h.type) for h in hyps], target
    ([('x', 'ℝ'), ('y', 'ℝ'), ('h₀', 'x < y')], 'x ≤ y')
    >>> print(satp_formal_statement(target, hyps))
    theorem satp_goal
      (x : ℝ)
      (y : ℝ)
      (h_ : x < y)
      : x ≤ y := by
    >>> goal_state_text(hyps, target)
    'x y : ℝ\\nh₀ : x < y\\n⊢ x ≤ y'
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lean_gym.lean.lexer import LexToken, lex

__all__ = [
    "Hypothesis",
    "goal_state_text",
    "parse_goal_state",
    "parse_theorem_form",
    "satp_formal_statement",
    "satp_prompt",
]

_NOT_NAME = re.compile(r"[^A-Za-z0-9_']")
_OPEN = {"(": ")", "{": "}", "[": "]", "⦃": "⦄", "⟨": "⟩"}
_CLOSE = {v: k for k, v in _OPEN.items()}


@dataclass(frozen=True)
class Hypothesis:
    """One local hypothesis: its user name and its pretty-printed type (SATP's ``{name, type}``)."""

    name: str
    type: str


def _hyp_fields(h: Hypothesis | Mapping[str, object]) -> tuple[str, str]:
    if isinstance(h, Hypothesis):
        return h.name, h.type
    name, typ = h.get("name", ""), h.get("type", "")
    return (str(name) if name else ""), (str(typ) if typ else "")


def _satp_name(name: str, index: int) -> str:
    # SATP's _sanitize_name, rule for rule.
    cleaned = _NOT_NAME.sub("_", name.strip()) or f"h{index}"
    return f"h_{cleaned}" if cleaned[0].isdigit() else cleaned


def satp_formal_statement(goal: str, hypotheses: Sequence[Hypothesis | Mapping[str, object]] = ()) -> str:
    """SATP's theorem-form prompt for a goal.

    ``theorem satp_goal``, one ``(name : type)`` line per hypothesis, then ``  : goal := by`` (no
    trailing newline).

    Args:
        goal: The target, as Lean prints it.
        hypotheses: :class:`Hypothesis` objects or ``{"name", "type"}`` mappings (SATP's request shape).

    Returns:
        The prompt, byte for byte as SATP's service builds it (see the module docstring for its quirks).
    """
    lines = ["theorem satp_goal"]
    for i, h in enumerate(hypotheses):
        name, typ = _hyp_fields(h)
        if typ.strip():
            lines.append(f"  ({_satp_name(name, i)} : {typ.strip()})")
    lines.append(f"  : {goal.strip()} := by")
    return "\n".join(lines)


def parse_goal_state(text: str) -> tuple[list[Hypothesis], str]:
    """The hypotheses (one per name) and the target of the first goal of a goal state.

    Reads what Lean's ``ppGoal`` prints: an optional ``case tag`` line, ``names : type`` lines (a run of
    names shares the type; ``name : type := value`` is a ``let``, whose value is dropped), then
    ``⊢ target``. A line that starts with whitespace continues the previous entry (Lean indents wrapped
    types). A second goal (after a blank line or a new ``case``) is ignored. Text without ``⊢`` is taken as
    the target alone.

    Args:
        text: The goal state.

    Returns:
        ``(hypotheses, target)``.
    """
    entries: list[list[str]] = []
    target: list[str] | None = None
    for line in text.split("\n"):
        if not line.strip():
            if target is not None:
                break
            continue
        if line[0].isspace() and (target is not None or entries):
            (target if target is not None else entries[-1]).append(line)
            continue
        if target is not None:
            break  # the next goal starts
        if line.startswith("case ") and not entries:
            continue
        if line.startswith("⊢"):
            target = [line[1:].lstrip()]
        else:
            entries.append([line])
    if target is None:
        return [], text.strip()
    hyps: list[Hypothesis] = []
    for entry in entries:
        names, sep, typ = "\n".join(entry).partition(" : ")
        if not sep:
            continue
        typ = typ.split(" := ", 1)[0].strip()
        hyps.extend(Hypothesis(n, typ) for n in names.split())
    return hyps, "\n".join(target).strip()


def goal_state_text(hypotheses: Sequence[Hypothesis | Mapping[str, object]], goal: str) -> str:
    """The goal state Lean's ``ppGoal`` prints for these hypotheses and target.

    Consecutive hypotheses of the same type share a line (``x y : ℝ``), as ``ppGoal`` merges them. A
    hypothesis with a blank type is left out, and an unnamed one is called ``h{i}`` (both as SATP's prompt
    does); a continuation line of a multi-line type that does not start with whitespace gets two spaces, so
    that :func:`parse_goal_state` reads the state back.

    Args:
        hypotheses: :class:`Hypothesis` objects or ``{"name", "type"}`` mappings.
        goal: The target.
    """
    lines: list[str] = []
    names: list[str] = []
    last = ""

    def flush() -> None:
        if names:
            lines.append(f"{' '.join(names)} : {last}")

    for i, h in enumerate(hypotheses):
        name, typ = _hyp_fields(h)
        typ = _indent_continuations(typ.strip())
        if not typ:
            continue
        name = name.strip() or f"h{i}"
        if names and typ == last:
            names.append(name)
            continue
        flush()
        names, last = [name], typ
    flush()
    lines.append(f"⊢ {_indent_continuations(goal.strip())}")
    return "\n".join(lines)


def _indent_continuations(text: str) -> str:
    first, *rest = text.split("\n")
    return "\n".join([first, *((ln if ln[:1].isspace() or not ln else "  " + ln) for ln in rest)])


def satp_prompt(goal_state: str, max_bytes: int = 0) -> str:
    """SATP's theorem-form prompt of a goal state, cut to ``max_bytes`` UTF-8 bytes when ``max_bytes > 0``.

    :func:`parse_goal_state`, then :func:`satp_formal_statement` (SATP's encoder reads the first
    ``MAX_SEQUENCE_LENGTH`` bytes: 4,096 in v1, 1,024 in v2).

    A cut inside a multi-byte character drops that character (ByT5 reads bytes; this returns text).
    """
    hyps, target = parse_goal_state(goal_state)
    text = satp_formal_statement(target, hyps)
    if max_bytes > 0:
        text = text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
    return text


def parse_theorem_form(statement: str) -> tuple[list[Hypothesis], str]:
    """The binders and the goal of ``theorem NAME binders : goal := by`` (what SATP's Lean tactic sends).

    SATP's ``satp`` tactic (``LeanSATP/Bridge.lean``, commit ``058181d8b6140411df45e159b63ebd5f48a22518``)
    renders the live goal as ``theorem satp_goal``, one ``(name : type)`` line per hypothesis and
    ``  : goal := by``; any miniF2F-style statement has the same shape. Binders may be ``( )``, ``{ }``,
    ``⦃ ⦄`` or ``[ ]`` (an instance binder without a name is skipped), with several names. The text is read
    with lean-gym's one Lean lexer, so comments and strings end where Lean ends them.

    Args:
        statement: The statement text (``theorem``, ``lemma`` or ``example``; a proof after ``:= by`` is ignored).

    Returns:
        ``(hypotheses, goal)``: one :class:`Hypothesis` per bound name, in order.

    Raises:
        ValueError: When the text is not of that shape.
    """
    toks = [t for t in lex(statement) if t.kind != "comment"]
    bad = next((t for t in toks if t.kind == "error"), None)
    if bad is not None:
        raise ValueError(f"formal_statement does not lex: {bad.message} at offset {bad.start}")
    shape = "formal_statement must have the shape `theorem NAME (h : T) … : GOAL := by`"
    if not toks or toks[0].text not in ("theorem", "lemma", "example"):
        raise ValueError(shape)
    i = 1
    if toks[0].text != "example":
        if len(toks) < 2 or toks[1].kind != "ident":
            raise ValueError(shape)
        i = 2
    depth = _depths(toks)
    hyps: list[Hypothesis] = []
    while i < len(toks) and toks[i].text in _OPEN:
        close = _matching(toks, depth, i)
        colon = next((k for k in range(i + 1, close) if toks[k].text == ":" and depth[k] == depth[i] + 1), -1)
        if colon > i + 1 and all(t.kind == "ident" for t in toks[i + 1 : colon]):
            typ = statement[toks[colon].end : toks[close].start].strip()
            hyps.extend(Hypothesis(t.text, typ) for t in toks[i + 1 : colon])
        elif toks[i].text != "[":
            raise ValueError(f"{shape}: cannot read the binder at offset {toks[i].start}")
        i = close + 1
    if i >= len(toks) or toks[i].text != ":" or depth[i] != 0:
        raise ValueError(shape)
    end = next(
        (
            k
            for k in range(len(toks) - 2, i, -1)
            if toks[k].text == ":=" and depth[k] == 0 and toks[k + 1].text == "by"
        ),
        -1,
    )
    if end < 0:
        raise ValueError(shape)
    goal = statement[toks[i].end : toks[end].start].strip()
    if not goal:
        raise ValueError(shape)
    return hyps, goal


def _depths(toks: Sequence[LexToken]) -> list[int]:
    """Bracket depth before each token."""
    out, depth = [], 0
    for t in toks:
        if t.text in _CLOSE:
            depth -= 1
        out.append(depth)
        if t.text in _OPEN:
            depth += 1
    return out


def _matching(toks: Sequence[LexToken], depth: Sequence[int], i: int) -> int:
    for k in range(i + 1, len(toks)):
        if toks[k].text in _CLOSE and depth[k] == depth[i]:
            return k
    raise ValueError(f"formal_statement has an unclosed bracket at offset {toks[i].start}")
