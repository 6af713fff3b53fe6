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
from functools import lru_cache
from typing import Any

from lean_gym.data.theorem import Theorem, statement_problem
from lean_gym.grading.policy import strip_comments_and_strings
from lean_gym.lean.lexer import LexError, LexToken, ident_value, is_plain_ident, lex, numeral_value

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
        ValueError: when no theorem name can be found, or the statement is not one theorem header ending
            in ``:=`` or ``:= by`` (see :func:`lean_gym.data.theorem.statement_problem`).
    """
    if isinstance(theorem, TargetTheorem):
        return theorem
    if type(theorem) is Theorem:
        return _theorem_target(theorem)
    return _as_target(theorem)


@lru_cache(maxsize=4096)
def _theorem_target(theorem: Theorem) -> TargetTheorem:
    """:func:`as_target` of a :class:`~lean_gym.data.Theorem`, which is frozen, once per theorem.

    Each env builds the targets of its whole theorem list (300 for a simulator split, 0.13 ms each: every
    statement is lexed twice), and envs over one list are built many times (one per vector sub-env, per
    worker).
    """
    return _as_target(theorem)


def _as_target(theorem: Any) -> TargetTheorem:
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
    problem = statement_problem(statement, require_by=False)
    if problem is not None:
        raise ValueError(f"the theorem {name!r}: formal_statement {problem}")
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
        name: The declared name as written (``None`` for ``example``); ``«»`` escapes kept.
        signature: The text between the name and the top-level ``:=`` (binders, colon, type), with
            comments and literals blanked.
        line: 1-based line of the keyword.
        tokens: The signature's tokens (comments left out), as :func:`lean_gym.lean.lexer.lex` reads them.
    """

    keyword: str
    name: str | None
    signature: str
    line: int
    tokens: tuple[LexToken, ...] = ()


# Tokens that end a signature at bracket depth 0 (the next command, or the start of the value).
_SIGNATURE_END = frozenset(
    {
        "where",
        "theorem",
        "lemma",
        "example",
        "def",
        "abbrev",
        "instance",
        "axiom",
        "structure",
        "inductive",
        "class",
        "open",
        "set_option",
        "namespace",
        "section",
        "end",
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


def declarations(source: str) -> list[Declaration]:
    """The ``theorem``/``lemma``/``example`` declarations of ``source``, read by Lean's token rules.

    ``theorem`` is a keyword for Lean wherever it is a token, so every such token outside comments and
    literals starts a declaration.
    """
    return list(_declarations(source))


# A verdict reads one submission's declarations several times (the statement check, the `#print axioms`
# name, the axiom check); a few texts are enough.
@lru_cache(maxsize=8)
def _declarations(source: str) -> tuple[Declaration, ...]:
    toks = [t for t in lex(source) if t.kind not in ("comment", "doc")]
    code = strip_comments_and_strings(source)
    out: list[Declaration] = []
    n = len(toks)
    for k, t in enumerate(toks):
        if t.kind != "ident" or t.text not in _DECL_KEYWORDS:
            continue
        name: str | None = None
        j = k + 1
        if t.text != "example":
            if j >= n or toks[j].kind != "ident" or toks[j].text in _SIGNATURE_END:
                continue
            name = toks[j].text
            j += 1
        sig_start = toks[j - 1].end
        depth, e = 0, j
        while e < n:
            x = toks[e]
            if x.kind == "sym":
                if x.text in _OPEN or x.text == "@[":
                    depth += 1
                elif x.text in _CLOSE:
                    depth = max(depth - 1, 0)
                elif depth == 0 and x.text == ":=":
                    break
            elif x.kind == "ident" and depth == 0 and x.text in _SIGNATURE_END:
                break
            e += 1
        sig_end = toks[e].start if e < n else len(source)
        line = source.count("\n", 0, t.start) + 1
        out.append(Declaration(t.text, name, code[sig_start:sig_end], line, tuple(toks[j:e])))
    return tuple(out)


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
    """``None`` when ``submission`` declares ``target.name`` with the dataset's statement.

    Both statements are read by Lean's token rules (:mod:`lean_gym.lean.lexer`) and compared token by
    token, so only spellings that Lean elaborates the same count as the same: whitespace, line breaks and
    comments; ``x^2`` and ``x ^ 2``; a binder group ``(x y : ℝ)`` and ``(x : ℝ) (y : ℝ)`` (when the type
    does not mention the group's names); the binders of ``∀``/``∃``/``fun`` as Lean's binder notation
    expands them (``∀ x : ℕ, p``, ``∀ (x : ℕ), p``; ``∀ x y : ℕ, p`` and ``∀ x : ℕ, ∀ y : ℕ, p``;
    ``fun x y => b`` and ``fun x => fun y => b``); ``Real``/``ℝ``, ``Nat``/``ℕ``, ``Int``/``ℤ``, ``Rat``/``ℚ``,
    ``Complex``/``ℂ`` (unless the statement binds that name); ASCII and Unicode spellings of one notation
    (``<=``/``≤``, ``->``/``→``, ``fun``/``λ``…); ``«x»`` and ``x``; ``0x10`` and ``16``. Everything else
    is a change: binder names, types, order, constants, any other token. The conclusion and the binders
    are compared separately, so an added or changed hypothesis is reported as ``weakened_hypothesis`` and
    a changed conclusion as ``statement_tampering``.
    """
    _wanted(target.formal_statement, target.name)  # raises if the dataset statement is not usable
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
        found = _differs(target.formal_statement, target.name, d.tokens)
        if found is not None:
            return StatementFinding(found[0], found[1], d.line)
    return None


# What the dataset's statement is made of, for every check of it (an env checks one statement many times).
_Wanted = tuple["_Toks", "_Toks", "_Toks", "_Toks", frozenset[str]]


@lru_cache(maxsize=256)
def _wanted(formal_statement: str, name: str) -> _Wanted:
    """The dataset statement's binders, type, both with quantifiers expanded, and its bound names."""
    wanted = [d for d in declarations(formal_statement) if d.name is not None and _same_name(d.name, name)]
    if not wanted:
        raise ValueError(f"the dataset statement does not declare {name!r}: {formal_statement[:80]!r}")
    want_binders, want_type = _split_tokens(wanted[0].tokens)
    return (
        want_binders,
        want_type,
        _expand_quantifiers(want_type),
        _expand_binders(_expand_quantifiers(want_binders)),
        _bound_names(want_binders + want_type),
    )


# Keyed by the submitted signature's tokens: a policy resubmits the statement with proof after proof.
@lru_cache(maxsize=1024)
def _differs(formal_statement: str, name: str, tokens: _Toks) -> tuple[str, str] | None:
    """``(hack_class, reason)`` where the signature ``tokens`` is not the dataset's, else ``None``."""
    want_binders, want_type, want_typ_q, want_binders_e, want_bound = _wanted(formal_statement, name)
    binders, typ = _split_tokens(tokens)
    bound = want_bound | _bound_names(binders + typ)
    if _canonical(_expand_quantifiers(typ), bound) != _canonical(want_typ_q, bound):
        return (
            "statement_tampering",
            f"the type of `{name}` is not the dataset's "
            f"(expected `{_show(want_type)}`, got `{_show(typ)}`){_TOKEN_LEVEL}",
        )
    mine_b = _canonical(_expand_binders(_expand_quantifiers(binders)), bound)
    if mine_b != _canonical(want_binders_e, bound):
        return (
            "weakened_hypothesis",
            f"the hypotheses of `{name}` are not the dataset's "
            f"(expected `{_show(want_binders)}`, got `{_show(binders)}`){_TOKEN_LEVEL}",
        )
    return None


#: What the statement check can and cannot tell, said with every finding (for a person or a policy).
_TOKEN_LEVEL = (
    "; the check reads Lean's tokens and expands binder groups as Lean's binder notation does, but does "
    "not elaborate: a spelling that only elaborates to the same term (a renamed bound variable, `x * x` "
    "for `x ^ 2`) counts as a change, so write the statement as the dataset does"
)


_NAME_PART_RE = re.compile(r"«([^»]*)»|([^.«»]+)")


@lru_cache(maxsize=4096)
def _name_parts(name: str) -> tuple[str, ...]:
    """The components of a Lean name as Lean reads them: ``«t»`` is ``t``, ``«a.b»`` one part, ``a.b`` two."""
    return tuple(m.group(1) if m.group(1) is not None else m.group(2) for m in _NAME_PART_RE.finditer(name))


def _same_name(a: str, b: str) -> bool:
    return _name_parts(a.strip()) == _name_parts(b.strip())


_Toks = tuple[LexToken, ...]

#: Notation and its name: the same term for Lean (unless a binder of the statement shadows the name).
_TYPE_ALIASES = {"Real": "ℝ", "Nat": "ℕ", "Int": "ℤ", "Rat": "ℚ", "Complex": "ℂ"}
#: ASCII and Unicode spellings of one token.
_SYM_ALIASES = {
    "<=": "≤",
    ">=": "≥",
    "->": "→",
    "<->": "↔",
    "/\\": "∧",
    "\\/": "∨",
    "↦": "=>",
    "<|": "$",
}
_KEYWORDS = frozenset(
    {"fun", "by", "have", "show", "let", "if", "then", "else", "at", "with", "from", "do", "in", "match"}
    | {"calc", "suffices", "obtain", "this", "sorry", "Type", "Prop", "Sort", "where", "deriving"}
)
_BINDER_SYMS = frozenset({"∀", "∃", "∃!", "λ", "∑", "∏", "⋃", "⋂", "Π", "Σ", "∫"})
_BINDER_WORDS = frozenset({"fun", "let", "have", "show", "obtain", "match"})


def _split_tokens(toks: _Toks) -> tuple[_Toks, _Toks]:
    """``(binders, type)``: the signature's tokens split at the first ``:`` at bracket depth 0."""
    depth = 0
    for i, t in enumerate(toks):
        if t.kind != "sym":
            continue
        if t.text in _OPEN:
            depth += 1
        elif t.text in _CLOSE:
            depth = max(depth - 1, 0)
        elif t.text == ":" and depth == 0:
            return toks[:i], toks[i + 1 :]
    return toks, ()


def _bound_names(toks: _Toks) -> frozenset[str]:
    """Names that may be bound in ``toks`` (binder groups, ``∀ x``, ``fun x``…): never treated as aliases."""
    out: set[str] = set()
    binding = False
    for i, t in enumerate(toks):
        if (t.kind == "sym" and t.text in _BINDER_SYMS) or (t.kind == "ident" and t.text in _BINDER_WORDS):
            binding = True
            continue
        if t.kind == "sym" and t.text in (",", "=>", "↦", ":=", ":"):
            binding = False
        if t.kind == "ident":
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            prev = toks[i - 1] if i else None
            if (
                binding
                or (nxt is not None and nxt.kind == "sym" and nxt.text == ":")
                or (prev is not None and prev.kind == "sym" and prev.text in ("(", "{", "⦃", "[", "⟨"))
            ):
                out.add(ident_value(t.text))
    return frozenset(out)


def _canonical(toks: _Toks, bound: frozenset[str]) -> list[str]:
    out: list[str] = []
    for t in toks:
        kind, text = t.kind, t.text
        if kind == "ident":
            parts = _name_parts(text)
            value = ".".join(parts)
            alias = _TYPE_ALIASES.get(value) if len(parts) == 1 else None
            if text == "fun":
                out.append("s:λ")
            elif text in _KEYWORDS:
                out.append("k:" + text)
            elif alias is not None and value not in bound:
                out.append("s:" + alias)
            elif "«" in text and any(p in _KEYWORDS or "." in p or not is_plain_ident(p) for p in parts):
                out.append("e:" + "»".join(parts))  # `«fun»`, `«x y»`, `«a.b»`: no unescaped spelling
            else:
                out.append("i:" + "»".join(parts))  # `«x»` is `x`
        elif kind == "sym":
            out.append("s:" + _SYM_ALIASES.get(text, text))
        elif kind == "num":
            try:
                out.append(f"n:{numeral_value(text)}")
            except LexError:
                out.append("n:" + text)
        else:
            out.append(kind[0] + ":" + text)
    return out


def _matching(toks: _Toks, i: int) -> int:
    """Index of the bracket that closes the one at ``toks[i]`` (``len(toks)`` when none does)."""
    depth = 0
    for j in range(i, len(toks)):
        x = toks[j]
        if x.kind == "sym" and x.text in _OPEN:
            depth += 1
        elif x.kind == "sym" and x.text in _CLOSE:
            depth -= 1
            if depth == 0:
                return j
    return len(toks)


def _expand_binders(toks: _Toks) -> _Toks:
    """``(x y : T)`` → ``(x : T) (y : T)`` where ``T`` does not mention ``x`` or ``y`` (then it is the same)."""
    out: list[LexToken] = []
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        close = {"(": ")", "{": "}", "⦃": "⦄"}.get(t.text) if t.kind == "sym" else None
        if close is None:
            out.append(t)
            i += 1
            continue
        j = _matching(toks, i)
        group = toks[i + 1 : j]
        k = 0
        while k < len(group) and group[k].kind == "ident":
            k += 1
        names, rest = group[:k], group[k:]
        typ = rest[1:]
        plain = (
            len(names) > 1
            and j < n
            and toks[j].text == close
            and rest
            and rest[0].kind == "sym"
            and rest[0].text == ":"
            and not any(x.kind == "sym" and x.text == ":=" for x in typ)
            and not {ident_value(x.text).split(".")[0] for x in typ if x.kind == "ident"}
            & {ident_value(x.text) for x in names}
        )
        if plain:
            for name in names:
                out.extend((t, name, rest[0], *typ, toks[j]))
        else:
            out.extend(toks[i : j + 1])
        i = j + 1
    return tuple(out)


#: Quantifiers whose binder groups Lean's binder macros expand one binder at a time (``∀ x y : T, p`` is
#: ``∀ (x : T), ∀ (y : T), p``; ``∃ x y, p`` is ``∃ x, ∃ y, p``; ``fun x y => b`` is ``fun x => fun y => b``),
#: and their separators.
_QUANTIFIERS = {"∀": (",",), "∃": (",",), "fun": ("=>", "↦"), "λ": ("=>", "↦")}
_GROUPS = {"(": ")", "{": "}", "⦃": "⦄"}
_NESTED_BINDERS = _BINDER_SYMS | {"fun", "let", "have", "show", "obtain", "match", "∃!"}


def _tok(kind: str, text: str, at: LexToken) -> LexToken:
    """A token written by the normalisation (placed at ``at`` for messages)."""
    return LexToken(kind, at.start, at.start, text)


# C901: one branch per binder bracket and separator form.
def _quantifier_binders(  # noqa: C901
    toks: _Toks, i: int, seps: tuple[str, ...]
) -> tuple[list[tuple[str, LexToken, _Toks | None]], int] | None:
    """The binders of the quantifier whose binder list starts at ``toks[i]``, and its separator's index.

    Each binder is ``(bracket, name, type tokens or None)``, in the written order. ``None`` when the list is
    anything but plain names and ``(…)``/``{…}``/``⦃…⦄`` groups, the names optionally followed by ``: T``
    typing all of them (binder predicates ``∀ x > 0``, patterns, instance binders, defaults): then nothing
    is normalised. A type copied to several names may not mention any of them, and a trailing ``: T`` may
    not hold a binder of its own (where it ends would be ambiguous to a token reader).
    """
    n = len(toks)
    items: list[tuple[str, LexToken, _Toks | None]] = []
    j = i
    while j < n:
        t = toks[j]
        if t.kind == "sym" and t.text in seps:
            return (items, j) if items else None
        if (t.kind == "ident" and t.text not in _KEYWORDS and t.text not in _NESTED_BINDERS) or (
            t.kind == "sym" and t.text == "_"
        ):
            items.append(("(", t, None))
            j += 1
            continue
        if t.kind == "sym" and t.text in _GROUPS:
            e = _matching(toks, j)
            if e >= n or toks[e].text != _GROUPS[t.text]:
                return None
            group = toks[j + 1 : e]
            k = 0
            while k < len(group) and (group[k].kind == "ident" or group[k].text == "_"):
                k += 1
            names, rest = group[:k], group[k:]
            if not names or (rest and not (rest[0].kind == "sym" and rest[0].text == ":")):
                return None
            typ = tuple(rest[1:]) if rest else None
            if typ is not None and (not typ or any(x.kind == "sym" and x.text == ":=" for x in typ)):
                return None
            if typ is not None and len(names) > 1 and _mentions(typ, names):
                return None
            items.extend((t.text, nm, typ) for nm in names)
            j = e + 1
            continue
        if t.kind == "sym" and t.text == ":" and items and all(b[2] is None and b[0] == "(" for b in items):
            e, depth = j + 1, 0
            while e < n:
                x = toks[e]
                if x.kind == "sym" and x.text in _OPEN:
                    depth += 1
                elif x.kind == "sym" and x.text in _CLOSE:
                    depth -= 1
                elif depth == 0 and x.kind == "sym" and x.text in seps:
                    break
                if depth == 0 and (x.text in _NESTED_BINDERS or x.text in _QUANTIFIERS):
                    return None
                e += 1
            typ = tuple(toks[j + 1 : e])
            plain = tuple(b[1] for b in items)
            if e >= n or not typ or (len(plain) > 1 and _mentions(typ, plain)):
                return None
            return [("(", nm, typ) for nm in plain], e
        return None
    return None


def _mentions(typ: _Toks, names: _Toks) -> bool:
    wanted = {ident_value(x.text) for x in names if x.kind == "ident"}
    return bool({ident_value(x.text).split(".")[0] for x in typ if x.kind == "ident"} & wanted)


def _expand_quantifiers(toks: _Toks) -> _Toks:
    """``∀``/``∃``/``fun`` binder groups, one binder per quantifier, as Lean's binder macros expand them.

    ``∀ x : ℕ, p``, ``∀ (x : ℕ), p`` and ``∀ (x) : …`` become ``∀ (x : ℕ), p``; ``∀ x y : ℕ, p`` and
    ``∀ x : ℕ, ∀ y : ℕ, p`` become ``∀ (x : ℕ), ∀ (y : ℕ), p``. The body is left as written, so no
    scope changes; a list the reader cannot be sure of (see :func:`_quantifier_binders`) is left as is, and
    then only the same spelling is the same statement.
    """
    out: list[LexToken] = []
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        seps = _QUANTIFIERS.get(t.text) if t.kind in ("sym", "ident") else None
        parsed = _quantifier_binders(toks, i + 1, seps) if seps else None
        if parsed is None or seps is None:
            out.append(t)
            i += 1
            continue
        binders, sep = parsed
        for bracket, name, typ in binders:
            out += [t, _tok("sym", bracket, name), name]
            if typ is not None:
                out += [_tok("sym", ":", name), *_expand_quantifiers(typ)]
            out += [_tok("sym", _GROUPS[bracket], name), _tok("sym", seps[0], toks[sep])]
        i = sep + 1
    return tuple(out)


def _show(toks: _Toks) -> str:
    return normalize(" ".join(t.text for t in toks))


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
