"""Terms of the simulator's Lean subset: hashable tuples with structural sharing, and Lean's pretty printer.

A term is a plain tuple whose first element names its head. Tuples are immutable, hashable, cheap to build
and share sub-terms for free, which keeps goal manipulation fast (no deep copies). Every arithmetic node and
every relation carries the *type* it lives in (``"ℕ"``, ``"ℤ"``, ``"ℚ"``, ``"ℝ"``), fixed by the elaborator,
so the arithmetic layer always knows where truncated subtraction and floor division apply.

Heads (``T`` is a type name string, ``a``/``b``/``p``/``q`` are terms):

==============================  ============================================================
``("num", T, n)``               numeral ``n`` (an ``int >= 0`` or a ``Fraction`` for decimals)
``("fvar", id)``                a local (hypothesis or variable): ``id`` is its unique :func:`new_fvar` id
``("var", name)``               a variable bound by an enclosing ``∀``/``∃``/``fun`` of the same term
``("const", name)``             a constant: a ``def``, a library function (``Nat.succ``, ``Nat.sqrt``)
``("app", f, args)``            ``f a₁ … aₙ``; ``f`` is a term, ``args`` a tuple of terms
``(op, T, a, b)``               ``op`` in ``+ - * / % ^`` (for ``^``, ``T`` is the base's type)
``("neg", T, a)``               ``-a``
``("abs", T, a)``               ``|a|``
``("inv", T, a)``               ``a⁻¹`` (ℚ and ℝ; ``0⁻¹ = 0``)
``("cast", T, S, a)``           ``↑a`` from type ``S`` to type ``T``
``(rel, T, a, b)``              ``rel`` in ``= ≠ < ≤ > ≥ ∣``
``("∧", p, q)`` …               also ``∨ → ↔``; ``("¬", p)``; ``("True",)``; ``("False",)``
``("∀", x, ty, body)``          also ``"∃"``; ``ty`` is a type term
``("fun", x, ty, body)``        ``fun x => body``
``("type", name)``              a type: ``ℕ ℤ ℚ ℝ Prop Unit Bool``
``("arrow", a, b)``             a function type ``a → b`` between types
``("bool", v)``                 ``true`` / ``false``
``("sorry",)``                  an elaborated ``sorry`` (only in data positions)
==============================  ============================================================

Locally nameless, as Lean does it: a local is an ``fvar`` whose id (like Lean's ``FVarId``) is unique for the
life of the process, so no binder, no other local and no constant can ever be mistaken for it; its user name
is the part of the id before ``\\x00`` and its *display* (``x``, ``x✝``, ``x✝¹``) is computed from the local
context when a goal is printed (:meth:`lean_gym.sim.goals.Goal.pretty`). Bound variables are named and only
ever substituted capture-free; since locals and constants are different heads, instantiating a binder with
a term made of locals cannot capture, whatever the names.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from itertools import count
from typing import Any

from lean_gym.errors import LeanGymError
from lean_gym.lean.lexer import MAX_NUMERAL_DIGITS as _LEXER_MAX_DIGITS
from lean_gym.sim.memo import MISS, IdentityMemo

__all__ = [
    "ARITH_OPS",
    "ATOM_HEADS",
    "FALSE",
    "FVAR_SEP",
    "LIST_NIL",
    "MAX_NUMERAL_DIGITS",
    "MAX_TERM_NODES",
    "NUM_TYPES",
    "ORDERED_TYPES",
    "PROP",
    "REL_OPS",
    "TRUE",
    "NumeralTooLarge",
    "Term",
    "TermTooLarge",
    "beta",
    "canonical_id",
    "check_numeral",
    "check_term_size",
    "const_names",
    "free_vars",
    "fvar_mark",
    "fvar_serial",
    "is_prop_type",
    "list_cons",
    "list_items",
    "map_subterms",
    "mk_num",
    "new_fvar",
    "num_value",
    "numeral_fits",
    "numeral_too_large_message",
    "pretty",
    "remember_renaming",
    "rename_fvars",
    "rename_remembered",
    "replace_const",
    "replace_term",
    "subst",
    "type_name",
    "type_term",
    "under_binder",
    "user_name",
]

Term = tuple[Any, ...]

NUM_TYPES = ("ℕ", "ℤ", "ℚ", "ℝ", "ℂ")
NUM_RANK = {"ℕ": 0, "ℤ": 1, "ℚ": 2, "ℝ": 3, "ℂ": 4}
ORDERED_TYPES = ("ℕ", "ℤ", "ℚ", "ℝ")
"""The number types with an order: ``ℂ`` has none in Mathlib unless ``open ComplexOrder`` (its partial
order is a scoped instance), so ``<``, ``≤`` and ``|·|`` on it are not elaborated."""
ARITH_OPS = frozenset({"+", "-", "*", "/", "%", "^"})
REL_OPS = frozenset({"=", "≠", "<", "≤", ">", "≥", "∣"})
LOGIC_BIN = frozenset({"∧", "∨", "→", "↔"})
TRUE: Term = ("True",)
FALSE: Term = ("False",)
PROP: Term = ("type", "Prop")

_TYPE_CACHE: dict[str, Term] = {}

_FVAR_SERIAL = count(1)
FVAR_SEP = "\x00"
"""Separates a local's user name from its serial in an fvar id (no Lean identifier contains it)."""
SERIAL_DIGITS = 12
"""Serials are written with this many digits, so that ids of one user name compare (as text, and inside
``repr``, which orders polynomial atoms and permutation rewrites) in the order the locals were made, whatever
the process made before: a check's answer must not depend on how many locals earlier checks created (the
simulator's memo tables rely on it, see :mod:`lean_gym.sim.memo`)."""


def fvar_mark() -> int:
    """A serial no local made before the call has and every local made after it exceeds (see
    :func:`fvar_serial`)."""
    return next(_FVAR_SERIAL)


def fvar_serial(fid: str) -> int:
    """The serial of local id ``fid`` (``-1`` for a plain name)."""
    i = fid.find(FVAR_SEP)
    if i < 0:
        return -1
    tail = fid[i + 1 :]
    return int(tail) if tail.isdigit() else -1


def new_fvar(name: str) -> str:
    """A fresh local id for a local whose user name is ``name`` (never equal to any other id)."""
    return f"{user_name(name)}{FVAR_SEP}{next(_FVAR_SERIAL):012d}"


def user_name(fid: str) -> str:
    """The user name of local id ``fid`` (``fid`` itself for a plain name)."""
    i = fid.find(FVAR_SEP)
    return fid if i < 0 else fid[:i]


def type_term(name: str) -> Term:
    """The interned type term for ``name`` (``"ℕ"``, ``"Prop"``, …)."""
    t = _TYPE_CACHE.get(name)
    if t is None:
        t = _TYPE_CACHE[name] = ("type", name)
    return t


def type_name(ty: Term) -> str | None:
    """The name of a base type term, or ``None`` for arrows and non-types."""
    return ty[1] if ty[0] == "type" else None


MAX_NUMERAL_DIGITS = _LEXER_MAX_DIGITS
"""A numeral of a term has at most this many decimal digits (numerator and denominator each): the
lexer's limit on literals, which is also Python's limit on printing an ``int`` (4,300 digits)."""

_NUMERAL_BOUND = 10**MAX_NUMERAL_DIGITS


class NumeralTooLarge(LeanGymError):
    """A computed number has more than :data:`MAX_NUMERAL_DIGITS` digits: no term may hold it.

    Lean computes and prints such numbers; the simulator refuses them with this error (the tactic that
    computed one fails with its text), so that every term can be printed and serialised.
    """


MAX_TERM_NODES = 20_000
"""A term a rewrite produces (``simp``'s and ``rw``'s results) has at most this many nodes counted as a tree.

Lean's terms are DAGs with cached hashes, so ``a 100`` rewritten by ``∀ n, a (n + 2) = a (n + 1) + a n``
costs Lean work linear in the DAG; the simulator's terms are tuples, whose hashing, comparison and printing
walk the tree, which here has Fibonacci(100) nodes. Past this bound the rewriting tactic fails with
:class:`TermTooLarge` instead of running for hours. Honest goals have tens of nodes: the largest such result in
the conformance corpus has 39, in the aesop and proof workloads of ``benchmarks/bench_sim_workloads.py``
1,121 (measured at the bound's introduction), so the bound changes no recorded answer."""


class TermTooLarge(LeanGymError):
    """A rewrite produced a term of more than :data:`MAX_TERM_NODES` nodes (counted as a tree)."""


def check_term_size(t: Term, sizes: dict[int, tuple[Term, int]], where: str) -> None:
    """Refuse ``t`` when its tree has more than :data:`MAX_TERM_NODES` nodes.

    The count is memoised by object in ``sizes`` (one dict per tactic call, which keeps every counted term
    alive, so an id is never reused while it is a key): a term built from already counted parts costs one
    step per new node, so a DAG whose tree is exponential is counted in linear time.

    Raises:
        TermTooLarge: with the simulator's message naming ``where`` (the tactic).
    """
    if id(t) in sizes:
        return
    stack: list[tuple[Any, bool]] = [(t, False)]
    while stack:
        u, ready = stack.pop()
        if ready:
            n = 1
            for c in u:
                if type(c) is tuple:
                    n += sizes[id(c)][1]
            if n > MAX_TERM_NODES:
                raise TermTooLarge(
                    f"the simulator does not support terms this large: {where} produced a term of more than "
                    f"{MAX_TERM_NODES} nodes (Lean shares its subterms; the simulator refuses it)"
                )
            sizes[id(u)] = (u, n)
        elif id(u) not in sizes:
            stack.append((u, True))
            for c in u:
                if type(c) is tuple and id(c) not in sizes:
                    stack.append((c, False))


def numeral_too_large_message(where: str = "") -> str:
    """The error text for a number past :data:`MAX_NUMERAL_DIGITS` digits (``where``: what computed it)."""
    return (
        f"the simulator does not support numbers this large: {where or 'a computed number'} has more "
        f"than {MAX_NUMERAL_DIGITS} digits (Lean computes it; the simulator refuses it)"
    )


def numeral_fits(n: int | Fraction) -> bool:
    """Whether ``n`` (its numerator and denominator) has at most :data:`MAX_NUMERAL_DIGITS` digits."""
    if isinstance(n, Fraction):
        return -_NUMERAL_BOUND < n.numerator < _NUMERAL_BOUND and n.denominator < _NUMERAL_BOUND
    return -_NUMERAL_BOUND < n < _NUMERAL_BOUND


def check_numeral(n: int | Fraction) -> None:
    """Refuse ``n`` as the value of a numeral when it has more than :data:`MAX_NUMERAL_DIGITS` digits.

    Raises:
        NumeralTooLarge: when it does.
    """
    if not numeral_fits(n):
        raise NumeralTooLarge(numeral_too_large_message())


def mk_num(ty: str, n: int | Fraction) -> Term:
    """A numeral of type ``ty``; negative values become ``-n``.

    Raises:
        NumeralTooLarge: for a value with more than :data:`MAX_NUMERAL_DIGITS` digits.
    """
    check_numeral(n)
    if n < 0:
        return ("neg", ty, mk_num(ty, -n))
    if isinstance(n, Fraction) and n.denominator == 1:
        n = n.numerator
    if isinstance(n, Fraction):
        return ("/", ty, ("num", ty, n.numerator), ("num", ty, n.denominator))
    return ("num", ty, n)


def num_value(t: Term) -> Fraction | None:
    """The value of a numeral, a negated numeral or a quotient of numerals (``None`` otherwise)."""
    h = t[0]
    if h == "num":
        return Fraction(t[2])
    if h == "neg":
        v = num_value(t[2])
        return None if v is None else -v
    return None


def is_prop_type(ty: Term) -> bool:
    """True when ``ty`` is a proposition (the type of a hypothesis) rather than a data type."""
    return ty[0] not in ("type", "arrow")


# --------------------------------------------------------------------------------------------- binding


def free_vars(t: Term, acc: set[str] | None = None) -> set[str]:
    """Ids of the locals (``fvar``) in ``t``, and names of ``var`` nodes not bound inside ``t``."""
    out: set[str] = set() if acc is None else acc
    _fv(t, frozenset(), out)
    return out


def _fv(t: Term, bound: frozenset[str], out: set[str]) -> None:
    h = t[0]
    if h == "fvar":
        out.add(t[1])
    elif h == "var":
        if t[1] not in bound:
            out.add(t[1])
    elif h in ("num", "type", "True", "False", "bool", "sorry", "const"):
        return
    elif h in ("∀", "∃", "fun"):
        _fv(t[2], bound, out)
        _fv(t[3], bound | {t[1]}, out)
    elif h == "app":
        _fv(t[1], bound, out)
        for a in t[2]:
            _fv(a, bound, out)
    else:
        for c in t[1:]:
            if type(c) is tuple:
                _fv(c, bound, out)


ATOM_HEADS = frozenset({"var", "fvar", "const", "num", "type", "True", "False", "bool", "sorry", "mvar"})
"""The heads of the terms with no term below them."""


def map_subterms(t: Term, fn: Callable[[Term], Term]) -> Term:
    """``t`` with ``fn`` applied to each term directly below it: an application's arguments (not its head), a
    binder's body (not its type), every other node's term children; a leaf as it is."""
    h = t[0]
    if h in ATOM_HEADS:
        return t
    if h == "app":
        return ("app", t[1], tuple(fn(a) for a in t[2]))
    if h in ("∀", "∃", "fun"):
        return (h, t[1], t[2], fn(t[3]))
    return tuple(fn(c) if type(c) is tuple else c for c in t)


def under_binder(t: Term, avoid: set[str], fn: Any) -> Term:
    """Apply ``fn`` to the body of binder ``t`` without capturing any name in ``avoid``.

    When the bound name is in ``avoid`` (the free variables of whatever ``fn`` may insert or match), the
    binder is renamed to a fresh name first, and renamed back afterwards when that captures nothing.
    """
    h, x, ty, body = t
    if x not in avoid:
        new = fn(body)
        return t if new is body else (h, x, ty, new)
    taken = avoid | free_vars(body)
    x2 = _fresh(x, taken)
    new = fn(subst(body, x, ("var", x2)))
    if x not in free_vars(new):
        return (h, x, ty, subst(new, x2, ("var", x)))
    return (h, x2, ty, new)


def subst(t: Term, name: str, val: Term) -> Term:
    """``t`` with the local ``name`` (an fvar id) or the loose bound ``var name`` replaced by ``val``.

    Capture-avoiding: a binder of ``t`` whose name occurs free in ``val`` is renamed first.
    """
    fv = free_vars(val)
    return _subst(t, name, val, fv)


def beta(t: Term) -> Term:
    """``t`` with every application of a ``fun`` to arguments reduced (``(fun x => x + 1) n`` is ``n + 1``):
    Lean's beta reduction, a definitional equality."""
    if type(t) is not tuple or not t:
        return t
    h = t[0]
    if h in ("var", "fvar", "const", "num", "type", "True", "False", "bool", "sorry"):
        return t
    if h == "app":
        f = beta(t[1])
        args = tuple(beta(a) for a in t[2])
        while f[0] == "fun" and args:
            f, args = beta(subst(f[3], f[1], args[0])), args[1:]
        return f if not args else ("app", f, args)
    out = tuple(beta(c) if type(c) is tuple else c for c in t)
    return out if out != t else t


def const_names(t: Term) -> set[str]:
    """Names of the constants ``t`` mentions."""
    out: set[str] = set()
    stack = [t]
    while stack:
        u = stack.pop()
        if u[0] == "const":
            out.add(u[1])
            continue
        if u[0] == "app":
            stack.append(u[1])
            stack.extend(u[2])
            continue
        stack.extend(c for c in u[1:] if type(c) is tuple)
    return out


def replace_const(t: Term, name: str, val: Term) -> Term:
    """``t`` with the constant ``name`` replaced by the closed term ``val`` (unfolding a definition)."""
    h = t[0]
    if h == "const":
        return val if t[1] == name else t
    if h in ("var", "fvar", "num", "type", "True", "False", "bool", "sorry"):
        return t
    if h == "app":
        return ("app", replace_const(t[1], name, val), tuple(replace_const(a, name, val) for a in t[2]))
    out = tuple(replace_const(c, name, val) if type(c) is tuple else c for c in t)
    return t if out == t else out


def replace_term(t: Term, old: Term, new: Term) -> Term:
    """``t`` with every occurrence of ``old`` (a term of locals and constants, which no binder captures)
    replaced by ``new``, up to syntax (what ``set`` and ``generalize`` abstract; Lean's ``kabstract`` matches
    up to instances, so it finds at least these)."""
    if t == old:
        return new
    return tuple(replace_term(c, old, new) if type(c) is tuple else c for c in t)


# ------------------------------------------------------------------------------------------ term heads
# Every head the simulator builds, with what it is and the shape of its fields: ``s`` a plain value (a type
# name, a name, a number), ``t`` a term, ``T`` a tuple of terms, ``*`` any number of trailing fields of the
# letter before it. The kernel checks the terms of every goal it closes against this table
# (:func:`check_heads`).

HEAD_KINDS = ("prop", "binder", "value", "type", "meta")
"""What a head forms: a proposition former, a binder, a value (data), a type, or a placeholder."""

TERM_HEADS: dict[str, tuple[str, str]] = {
    # values
    "num": ("value", "ss"),
    "fvar": ("value", "s"),
    "var": ("value", "s"),
    "const": ("value", "s"),
    "app": ("value", "tT"),
    "bool": ("value", "s"),
    "sorry": ("value", ""),
    "neg": ("value", "st"),
    "abs": ("value", "st"),
    "inv": ("value", "st"),
    "cast": ("value", "sst"),
    **{op: ("value", "stt") for op in ("+", "-", "*", "/", "%", "^")},
    # propositions
    **{rel: ("prop", "stt") for rel in ("=", "≠", "<", "≤", ">", "≥", "∣")},
    "∈": ("prop", "stt"),  # membership in a Finset local: (element type, element, the set)
    **{op: ("prop", "tt") for op in ("∧", "∨", "→", "↔")},
    "¬": ("prop", "t"),
    "True": ("prop", ""),
    "False": ("prop", ""),
    # binders
    "∀": ("binder", "stt"),
    "∃": ("binder", "stt"),
    "fun": ("binder", "stt"),
    # types
    "type": ("type", "s"),
    "arrow": ("type", "tt"),
    # placeholders of elaboration and unification
    "mvar": ("meta", "s"),
}
"""Head → (kind, field shape); see the comment above."""

_HEADS_OK = IdentityMemo("terms.heads_checked", 1 << 16)


def check_heads(t: Term) -> str:
    """``""`` when every node of ``t`` has a declared head with fields of its shape, else what is wrong.

    Memoised by the identity of ``t`` (goals share their hypotheses' terms from step to step).
    """
    why = _HEADS_OK.get(t)
    if why is MISS:
        why = _check_heads(t)
        _HEADS_OK.put(t, why)
    return why


def _check_heads(root: Term) -> str:
    heads = TERM_HEADS
    stack: list[object] = [root]  # objects: what is checked is whether they are terms
    while stack:
        t = stack.pop()
        if type(t) is not tuple or not t or type(t[0]) is not str:
            return f"not a term: {str(t)[:80]}"
        spec = heads.get(t[0])
        if spec is None:
            return f"undeclared term head {t[0]!r}"
        shape = spec[1]
        if len(t) - 1 != len(shape):
            return f"head {t[0]!r} with {len(t) - 1} fields, declared {len(shape)}"
        for c, k in zip(t[1:], shape):
            if k == "t":
                stack.append(c)
            elif k == "T":
                if type(c) is not tuple:
                    return f"head {t[0]!r}: arguments are not a tuple"
                stack.extend(c)
            elif type(c) is tuple:
                return f"head {t[0]!r}: a term where a value belongs"
    return ""


_LEAVES = frozenset({"var", "num", "type", "True", "False", "bool", "sorry", "const"})


def rename_fvars(t: Term, ids: dict[str, str], seen: set[str] | None = None) -> Term:
    """``t`` with every local id ``i`` in ``ids`` replaced by ``ids[i]`` (a renaming of locals, no capture
    possible: ids are never bound names). Ids met that are not in ``ids`` are added to ``seen``.

    Sub-terms that mention no renamed local are returned as they are (the same objects).
    """
    h = t[0]
    if h == "fvar":
        new = ids.get(t[1])
        if new is None:
            if seen is not None:
                seen.add(t[1])
            return t
        return ("fvar", new)
    if h in _LEAVES:
        return t
    if h == "app":
        f = rename_fvars(t[1], ids, seen)
        args = t[2]
        args2 = tuple(rename_fvars(a, ids, seen) for a in args)
        if f is t[1] and all(a is b for a, b in zip(args, args2)):
            return t
        return ("app", f, args2)
    changed = False
    out: list[Any] = [h]
    for c in t[1:]:
        if type(c) is tuple:
            c2 = rename_fvars(c, ids, seen)
            changed = changed or c2 is not c
            out.append(c2)
        else:
            out.append(c)
    return tuple(out) if changed else t


def canonical_id(fid: str, k: int) -> str:
    """The canonical id of a goal's ``k``-th oldest local ``fid`` (see ``goals.canonical_goal``)."""
    return f"{user_name(fid)}{FVAR_SEP}c{k}"


_RENAMED = IdentityMemo("terms.canonical_terms", 1 << 16, per_request=True)


def remember_renaming(t: Term, renamed: Term, pairs: tuple[tuple[str, str | None], ...]) -> None:
    """Record that renaming the term object ``t`` by any map that sends each id of ``pairs`` to its partner
    (``None``: not renamed) gives ``renamed``."""
    _RENAMED.put(t, (renamed, pairs))


def rename_remembered(t: Term, ids: dict[str, str]) -> Term:
    """:func:`rename_fvars` ``(t, ids)``, remembered by the object ``t`` (goals share their terms)."""
    hit = _RENAMED.get(t)
    if hit is not MISS:
        renamed: Term = hit[0]
        pairs: tuple[tuple[str, str | None], ...] = hit[1]
        for i, c in pairs:
            if ids.get(i) != c:
                break
        else:
            return renamed
    renamed = rename_fvars(t, ids)
    _RENAMED.put(t, (renamed, tuple((i, ids.get(i)) for i in free_vars(t))))
    return renamed


def _fresh(base: str, avoid: set[str]) -> str:
    i = 1
    while f"{base}_{i}" in avoid:
        i += 1
    return f"{base}_{i}"


def _subst(t: Term, name: str, val: Term, fv: set[str]) -> Term:
    h = t[0]
    if h == "var" or h == "fvar":
        return val if t[1] == name else t
    if h in ("num", "type", "True", "False", "bool", "sorry", "const"):
        return t
    if h in ("∀", "∃", "fun"):
        x, ty, body = t[1], t[2], t[3]
        ty2 = _subst(ty, name, val, fv)
        if x == name:
            return t if ty2 is ty else (h, x, ty2, body)
        if x in fv:
            avoid = fv | free_vars(body)
            x2 = _fresh(x, avoid)
            body = _subst(body, x, ("var", x2), {x2})
            x = x2
        body2 = _subst(body, name, val, fv)
        if body2 is body and ty2 is ty and x == t[1]:
            return t
        return (h, x, ty2, body2)
    if h == "app":
        f2 = _subst(t[1], name, val, fv)
        args2 = tuple(_subst(a, name, val, fv) for a in t[2])
        return ("app", f2, args2)
    changed = False
    out: list[Any] = [h]
    for c in t[1:]:
        if type(c) is tuple:
            c2 = _subst(c, name, val, fv)
            changed = changed or c2 is not c
            out.append(c2)
        else:
            out.append(c)
    return tuple(out) if changed else t


# -------------------------------------------------------------------------------------------- printing

MAX = 1024
_BIN_PREC: dict[str, tuple[int, int, int]] = {
    # op: (result precedence, left operand precedence, right operand precedence)
    "↔": (20, 21, 21),
    "→": (25, 26, 25),
    "∨": (30, 31, 30),
    "∧": (35, 36, 35),
    "=": (50, 51, 51),
    "≠": (50, 51, 51),
    "<": (50, 51, 51),
    "≤": (50, 51, 51),
    ">": (50, 51, 51),
    "≥": (50, 51, 51),
    "∣": (50, 51, 51),
    "∈": (50, 51, 51),
    "+": (65, 65, 66),
    "-": (65, 65, 66),
    "*": (70, 70, 71),
    "/": (70, 70, 71),
    "%": (70, 70, 71),
    "^": (75, 76, 75),
}


def pretty(t: Term, ascii_types: bool = False, names: dict[str, str] | None = None) -> str:
    """Lean's text for ``t`` (``ascii_types=True`` writes ``Nat``/``Int`` instead of ``ℕ``/``ℤ``).

    ``names`` maps local ids to their display names in a goal (``x✝``); without it a local prints as its
    user name.

    Parentheses follow Lean 4's precedences, so the text matches the goal display of the real Lean for the
    subset (no line wrapping: Lean wraps lines past 120 columns, the simulator never does).
    """
    return _pp(t, 0, True, ascii_types, names)


_ASCII = {"ℕ": "Nat", "ℤ": "Int", "ℚ": "Rat", "ℝ": "Real", "ℂ": "Complex"}


_FIELD_NOTATION = frozenset(
    {"Real.log", "Real.exp", "Real.sin", "Real.cos", "Real.tan", "Real.logb", "Nat.Prime"}
)
_PROJECTIONS = {"Finset.card": "card", "Rat.num": "num", "Rat.den": "den", "List.sum": "sum"}


def _paren(s: str, need: bool) -> str:
    return f"({s})" if need else s


def _binder_pred(t: Term) -> tuple[str, Term, Term] | None:
    """``∀ x, x > b → p`` / ``∃ x, x > b ∧ p`` as ``(op, b, p)`` (Mathlib prints ``∀ x > b, p``)."""
    conn = "→" if t[0] == "∀" else "∧"
    body = t[3]
    if body[0] != conn:
        return None
    rel = body[1]
    if rel[0] in (">", "≥", "<", "≤") and rel[2] == ("var", t[1]) and t[1] not in free_vars(rel[3]):
        return rel[0], rel[3], body[2]
    return None


def _collect_binders_nopred(t: Term, head: str) -> tuple[list[tuple[str, Term]], Term]:
    binders: list[tuple[str, Term]] = []
    while t[0] == head and (not binders or _binder_pred(t) is None):
        if _binder_pred(t) is not None:
            break
        binders.append((t[1], t[2]))
        t = t[3]
    return binders, t


LIST_NIL: Term = ("const", "List.nil")
"""``[]`` (``List.nil``); a list is a chain of :func:`list_cons` ending in it or in a list-valued term."""


def list_cons(head: Term, tail: Term) -> Term:
    """``head :: tail`` (``List.cons``)."""
    return ("app", ("const", "List.cons"), (head, tail))


def list_items(t: Term) -> list[Term] | None:
    """The elements of a literal list (a ``List.cons`` chain ending in ``[]``), else ``None``."""
    out: list[Term] = []
    while t != LIST_NIL:
        if not (t[0] == "app" and t[1] == ("const", "List.cons") and len(t[2]) == 2):
            return None
        out.append(t[2][0])
        t = t[2][1]
    return out


def _pp(t: Term, prec: int, trailing: bool, at: bool, nm: dict[str, str] | None) -> str:
    h = t[0]
    if h == "fvar":
        fid = t[1]
        if nm is not None:
            shown = nm.get(fid)
            if shown is not None:
                return shown
        return user_name(fid)
    if t == LIST_NIL:
        return "[]"
    if h == "var" or h == "const":
        return t[1]
    if h == "num":
        n = t[2]
        try:
            if isinstance(n, Fraction):
                return f"{n.numerator}/{n.denominator}"
            return str(n)
        except ValueError as e:  # past Python's int-to-str limit: a term no check may print or send
            raise NumeralTooLarge(numeral_too_large_message("a numeral of this term")) from e
    if h == "type":
        name = str(t[1])
        return _ASCII.get(name, name) if at else name
    if h == "True" or h == "False":
        return h
    if h == "bool":
        return "true" if t[1] else "false"
    if h == "sorry":
        return "sorry"
    if h in _BIN_PREC:
        p, lp, rp = _BIN_PREC[h]
        if h in LOGIC_BIN:
            a, b = t[1], t[2]
        else:
            a, b = t[2], t[3]
        s = f"{_pp(a, lp, False, at, nm)} {h} {_pp(b, rp, trailing or p < prec, at, nm)}"
        return _paren(s, p < prec)
    if h == "neg":
        s = "-" + _pp(t[2], 75, trailing, at, nm)
        return _paren(s, prec > 75)
    if h == "¬":
        s = "¬" + _pp(t[1], 40, trailing, at, nm)
        return _paren(s, prec > MAX)
    if h == "abs":
        return "|" + _pp(t[2], 0, True, at, nm) + "|"
    if h == "inv":
        return _pp(t[2], MAX + 1, False, at, nm) + "⁻¹"
    if h == "cast":
        # `↑` takes a `term:max` (`coeNotation`): an application is parenthesised, `↑(f x)`
        return "↑" + _pp(t[3], MAX + 1, False, at, nm)
    if h == "app" and t[1] == ("const", "Real.rpow") and len(t[2]) == 2:
        # `x ^ y` with `y : ℝ` (Mathlib's `HPow ℝ ℝ ℝ`, `Real.rpow`), printed as Lean prints it
        s = f"{_pp(t[2][0], 76, False, at, nm)} ^ {_pp(t[2][1], 75, trailing or prec > 75, at, nm)}"
        return _paren(s, prec > 75)
    if h == "app" and t[1] == ("const", "Real.sqrt") and len(t[2]) == 1:
        return "√" + _pp(t[2][0], MAX + 1, False, at, nm)  # Mathlib's `prefix:max "√" => Real.sqrt`
    if h == "app" and t[1][0] == "const" and t[1][1] in ("Int.floor", "Int.ceil") and len(t[2]) == 1:
        left, right = ("⌊", "⌋") if t[1][1] == "Int.floor" else ("⌈", "⌉")
        return left + _pp(t[2][0], 0, True, at, nm) + right
    if (
        h == "app"
        and t[1][0] == "const"
        and t[1][1] in ("Finset.sum", "Finset.prod")
        and len(t[2]) == 2
        and t[2][1][0] == "fun"
    ):
        f = t[2][1]
        op = "∑" if t[1][1] == "Finset.sum" else "∏"
        s = f"{op} {f[1]} ∈ {_pp(t[2][0], 0, False, at, nm)}, {_pp(f[3], 67, trailing or prec > 67, at, nm)}"
        return _paren(s, prec > 67 and not trailing)  # a trailing binder notation needs no parentheses
    if h == "app" and t[1][0] == "const" and t[1][1] in _PROJECTIONS and len(t[2]) == 1:
        return _pp(t[2][0], MAX + 1, False, at, nm) + "." + _PROJECTIONS[t[1][1]]
    if h == "app" and t[1] == ("const", "List.cons") and len(t[2]) == 2:
        items = list_items(t)
        if items is not None:
            return "[" + ", ".join(_pp(a, 0, True, at, nm) for a in items) + "]"
        # `infixr:67 " :: "`: the head at 68, the tail at 67
        s = f"{_pp(t[2][0], 68, False, at, nm)} :: {_pp(t[2][1], 67, trailing or prec > 67, at, nm)}"
        return _paren(s, prec > 67)
    if h == "app" and t[1][0] == "const" and t[1][1] in _FIELD_NOTATION and t[2] and t[2][0][0] != "num":
        # generalized field notation, as Lean prints these (`x.log`, `(x * y).cos`, `(↑w).log`, `p.Prime`,
        # `b.logb 8`); a literal receiver keeps the full name (`Real.log 2`)
        recv = t[2][0]
        shown = _pp(recv, MAX + 1, False, at, nm)
        if recv[0] == "cast":
            shown = f"({shown})"
        parts = [shown + "." + t[1][1].rsplit(".", 1)[1]] + [_pp(a, MAX + 1, False, at, nm) for a in t[2][1:]]
        return _paren(" ".join(parts), prec > MAX and len(parts) > 1)
    if h == "app" and t[1] == ("const", "Nat.factorial") and len(t[2]) == 1:
        inner = _pp(t[2][0], MAX + 1, False, at, nm)
        return inner + (" !" if inner[-1].isalpha() or inner[-1] in "_'✝₀₁₂₃₄₅₆₇₈₉" else "!")
    if (
        h == "app"
        and t[1][0] == "const"
        and t[2]
        and t[1][1].startswith(("Nat.", "Int."))
        and t[2][0][0] != "num"
    ):
        # generalized field notation: `Nat.sqrt x` prints as `x.sqrt`
        field = t[1][1].split(".", 1)[1]
        parts = [_pp(t[2][0], MAX + 1, False, at, nm) + "." + field] + [
            _pp(a, MAX + 1, False, at, nm) for a in t[2][1:]
        ]
        return _paren(" ".join(parts), prec > MAX and len(parts) > 1)
    if h == "app":
        parts = [_pp(t[1], MAX, False, at, nm)] + [_pp(a, MAX + 1, False, at, nm) for a in t[2]]
        return _paren(" ".join(parts), prec > MAX)
    if h == "arrow":
        s = f"{_pp(t[1], 26, False, at, nm)} → {_pp(t[2], 25, trailing, at, nm)}"
        return _paren(s, prec > 25)
    if h in ("∀", "∃"):
        pred = _binder_pred(t)
        if pred is not None:
            op, bound, rest = pred
            s = f"{h} {t[1]} {op} {_pp(bound, 51, False, at, nm)}, {_pp(rest, 0, True, at, nm)}"
            return _paren(s, prec > 0 and not trailing)
    if h == "∀":
        binders, body = _collect_binders_nopred(t, "∀")
        groups: list[tuple[list[str], Term]] = []
        for x, ty in binders:
            if groups and groups[-1][1] == ty:
                groups[-1][0].append(x)
            else:
                groups.append(([x], ty))
        bs = " ".join(f"({' '.join(xs)} : {_pp(ty, 0, True, at, nm)})" for xs, ty in groups)
        s = f"∀ {bs}, {_pp(body, 0, True, at, nm)}"
        return _paren(s, prec > 0 and not trailing)
    if h == "∃":
        binders, body = _collect_binders_nopred(t, "∃")
        s = f"∃ {' '.join(x for x, _ in binders)}, {_pp(body, 0, True, at, nm)}"
        return _paren(s, prec > 0 and not trailing)
    if h == "fun":
        s = f"fun {t[1]} => {_pp(t[3], 0, True, at, nm)}"
        return _paren(s, prec > 0 and not trailing)
    if h == "mvar":
        return "?_"  # an unassigned metavariable, as Lean prints it under `pp.mvars false`
    return f"<{h}>"
