"""The :class:`Theorem` record and the text surgery that puts a proof under a statement."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from lean_gym.lean.lexer import lex

__all__ = ["Theorem", "split_statement", "statement_problem", "theorem_with_proof"]


@dataclass(frozen=True)
class Theorem:
    """One theorem to prove, in the miniF2F shape plus SATP's retrieval context.

    Attributes:
        name: The declaration name (``mathd_algebra_10``, ``sim_lin_test_0007``).
        formal_statement: Lean source of the statement, ending in ``:= by`` and a newline, as in miniF2F.
        goal: The pretty-printed initial goal state (``h : T`` lines, then ``⊢ target``); empty when the
            source did not give one.
        header: Imports, options and opens to check the statement under.
        split: ``train``, ``valid`` or ``test`` (or the source's own split name).
        context_lemmas: Candidate premises from a retriever (8 for the simulator's families and SATP rows;
            empty when the source has none).
        context_lemma_scores: Retrieval scores, one per context lemma.
        informal_prefix: The natural-language statement (a ``/-- … -/`` docstring), when given.
        family: The simulator family that generated it (empty for external sources).
        difficulty: The family's difficulty level (0 for external sources).
        source: Where it came from: ``"sim"``, a file path or a dataset name.
    """

    name: str
    formal_statement: str
    goal: str = ""
    header: str = ""
    split: str = ""
    context_lemmas: tuple[str, ...] = ()
    context_lemma_scores: tuple[float, ...] = ()
    informal_prefix: str = ""
    family: str = ""
    difficulty: int = 0
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (tuples become lists)."""
        d = asdict(self)
        d["context_lemmas"] = list(self.context_lemmas)
        d["context_lemma_scores"] = list(self.context_lemma_scores)
        return d

    @classmethod
    def from_dict(cls, row: Mapping[str, Any]) -> Theorem:
        """Build a theorem from a dict with this class's field names (unknown keys are ignored)."""
        return cls(
            name=str(row["name"]),
            formal_statement=str(row["formal_statement"]),
            goal=str(row.get("goal") or ""),
            header=str(row.get("header") or ""),
            split=str(row.get("split") or ""),
            context_lemmas=tuple(str(x) for x in row.get("context_lemmas") or ()),
            context_lemma_scores=tuple(float(x) for x in row.get("context_lemma_scores") or ()),
            informal_prefix=str(row.get("informal_prefix") or ""),
            family=str(row.get("family") or ""),
            difficulty=int(row.get("difficulty") or 0),
            source=str(row.get("source") or ""),
        )


_DECLARATION = frozenset({"theorem", "lemma", "example", "def", "abbrev"})
#: Commands a statement may not hold (they belong to the ``header``, or are declarations of their own).
_COMMANDS = frozenset(
    {
        "instance", "axiom", "opaque", "structure", "inductive", "class", "import", "open",
        "namespace", "section", "end", "set_option", "variable", "universe", "attribute", "export", "macro",
        "macro_rules", "syntax", "notation", "infix", "infixl", "infixr", "prefix", "postfix", "elab",
        "initialize", "mutual", "deriving", "#eval", "#print", "#check", "#reduce", "#exit", "run_cmd",
        "include", "omit",
    }
)  # fmt: skip
_MODIFIERS = frozenset({"private", "protected", "noncomputable", "nonrec"})
_OPEN = frozenset({"(", "[", "{", "⦃", "⟨", "@[", "%["})
_CLOSE = frozenset({")", "]", "}", "⦄", "⟩"})


# C901: one check per way a row's statement can be malformed, each with its own message.
def statement_problem(statement: str, *, require_by: bool = True) -> str | None:  # noqa: C901
    """What is wrong with ``statement`` as a row's ``formal_statement``, or ``None`` when nothing is.

    A row holds exactly one declaration header — ``theorem``/``lemma``/``example`` (or a ``def``/``abbrev``,
    which only tactic mode plays), optionally after doc comments, attributes and modifiers — that ends in
    ``:= by`` (``require_by=False``: in ``:=``, with or
    without ``by``), and nothing after it. Anything else would be checked along with every proof: a second
    declaration, a ``def``, or a proof after ``:= by`` (which proves the theorem for every submission). The
    text is read by the one lexer, so a comment may say anything.
    """
    toks = [t for t in lex(statement) if t.kind != "comment"]
    bad = next((t for t in toks if t.kind == "error"), None)
    if bad is not None:
        return f"does not read as Lean ({bad.message or 'lexical error'} at offset {bad.start})"
    code = [t for t in toks if t.kind != "doc"]
    decls = [t for t in code if t.kind == "ident" and t.text in _DECLARATION]
    commands = [t.text for t in code if t.kind == "ident" and t.text in _COMMANDS]
    if commands:
        return (
            f"holds a `{commands[0]}` command; a row holds one theorem header ending in `:= by` "
            "(imports, options and opens go in `header`)"
        )
    if len(decls) != 1:
        return (
            f"holds {len(decls)} declarations; a row holds exactly one theorem header ending in `:= by`"
            if decls
            else "declares no `theorem`/`lemma`/`example`"
        )
    k = next(i for i, t in enumerate(code) if t is decls[0])
    depth = 0
    for t in code[:k]:
        if t.kind == "sym" and t.text in _OPEN:
            depth += 1
        elif t.kind == "sym" and t.text in _CLOSE:
            depth -= 1
        elif depth == 0 and not (t.kind == "ident" and t.text in _MODIFIERS):
            return f"has `{t.text}` before its `{decls[0].text}`"
    depth, j = 0, k + 1
    while j < len(code):
        t = code[j]
        if t.kind == "sym" and t.text in _OPEN:
            depth += 1
        elif t.kind == "sym" and t.text in _CLOSE:
            depth -= 1
        elif depth == 0 and t.kind == "sym" and t.text == ":=":
            break
        j += 1
    if j >= len(code):
        return "has no `:= by`; lean-gym needs tactic-mode statements (miniF2F style)"
    rest = code[j + 1 :]
    if not rest and not require_by:
        return None
    if not rest or rest[0].kind != "ident" or rest[0].text != "by":
        return "does not end in `:= by`; lean-gym needs tactic-mode statements (miniF2F style)"
    if len(rest) > 1:
        text = statement[rest[1].start : rest[-1].end]
        shown = text if len(text) <= 40 else text[:37] + "..."
        return f"has text after its `:= by` (a proof: {shown!r}); a row holds the statement only"
    return None


# ``:= by`` at the end of the statement, possibly followed by an existing proof.
_BY_RE = re.compile(r":=\s*by\b")


def split_statement(statement: str) -> tuple[str, str]:
    """Split Lean source at its final ``:= by`` into (statement through ``:= by``, the proof after it).

    Args:
        statement: A theorem's source, with or without a proof after ``:= by``.

    Returns:
        The text up to and including the last ``:= by``, and everything after it (may be empty).

    Raises:
        ValueError: If the text has no ``:= by``.
    """
    last = None
    for m in _BY_RE.finditer(statement):
        last = m
    if last is None:
        raise ValueError(
            "the statement has no `:= by`; lean-gym needs tactic-mode statements (miniF2F style)"
        )
    return statement[: last.start()] + ":= by", statement[last.end() :]


def theorem_with_proof(theorem: Theorem | str, proof_block: str) -> str:
    """The theorem's statement with its proof replaced by ``proof_block``.

    Everything after the statement's final ``:= by`` is dropped and the tactic block is put on the lines
    after it. A block whose lines are not indented is indented by two spaces (Lean needs the tactic block
    to the right of the declaration's column).

    Args:
        theorem: A :class:`Theorem` or the statement text itself.
        proof_block: Tactic text, e.g. ``"  aesop"`` or ``"nlinarith [sq_nonneg (a - b)]"``.

    Returns:
        Lean source ``<statement> := by\\n<block>\\n`` (the header is not included).

    Raises:
        ValueError: If the statement has no ``:= by``.
    """
    text = theorem.formal_statement if isinstance(theorem, Theorem) else theorem
    head, _ = split_statement(text)
    lines = proof_block.strip("\n").split("\n")
    nonblank = [ln for ln in lines if ln.strip()]
    if nonblank and min(len(ln) - len(ln.lstrip(" ")) for ln in nonblank) == 0:
        lines = [("  " + ln) if ln.strip() else ln for ln in lines]
    return head + "\n" + "\n".join(lines) + "\n"
