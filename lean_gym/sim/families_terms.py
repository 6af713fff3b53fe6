"""The term vocabulary of the goal families: builders for the fragment's terms, linear forms, and their
Lean source (casts written as type ascriptions).

The generators of :mod:`lean_gym.sim.families` write their statements with these; :func:`lean_source` is
the text that goes into a theorem's statement.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from lean_gym.sim.terms import Term, mk_num, pretty

__all__ = ["Rel", "add", "cast", "lean_source", "lin_rel", "lin_term", "mul", "num", "pw", "rel", "sub", "v"]

Rel = str
"""A relation symbol of the fragment (``=``, ``<``, ``≤``, ``≠``, …)."""
# ------------------------------------------------------------------------------------ term builders


def v(name: str) -> Term:
    """The local ``name``."""
    return ("fvar", name)


def num(ty: str, n: int) -> Term:
    """The numeral ``n : ty``."""
    return mk_num(ty, n)


def add(ty: str, a: Term, b: Term) -> Term:
    """``a + b`` in ``ty``."""
    return ("+", ty, a, b)


def sub(ty: str, a: Term, b: Term) -> Term:
    """``a - b`` in ``ty``."""
    return ("-", ty, a, b)


def mul(ty: str, a: Term, b: Term) -> Term:
    """``a * b`` in ``ty``."""
    return ("*", ty, a, b)


def pw(ty: str, a: Term, k: int) -> Term:
    """``a ^ k`` in ``ty`` (a natural-number exponent)."""
    return ("^", ty, a, ("num", "ℕ", k))


def rel(op: Rel, ty: str, a: Term, b: Term) -> Term:
    """``a op b`` over ``ty``."""
    return (op, ty, a, b)


def cast(to: str, frm: str, a: Term) -> Term:
    """``(a : to)`` for ``a : frm``."""
    return ("cast", to, frm, a)


def lean_source(t: Term) -> str:
    """Lean source for ``t``: like the goal display, but casts written as type ascriptions."""
    return pretty(_ascribe(t))


def _ascribe(t: Term) -> Term:
    h = t[0]
    if h == "cast":
        inner = t[3]
        if inner[0] == "fvar":
            return ("var", f"({inner[1]} : {t[1]})")
        return ("var", f"(({pretty(_ascribe(inner))} : {t[2]}) : {t[1]})")
    if h in ("var", "fvar", "const", "num", "type", "True", "False", "bool"):
        return t
    if h in ("∀", "∃", "fun"):
        return (h, t[1], t[2], _ascribe(t[3]))
    return tuple(_ascribe(c) if type(c) is tuple else c for c in t)


# --------------------------------------------------------------------------------- linear forms


def lin_term(ty: str, coeffs: Sequence[int], names: Sequence[str]) -> Term | None:
    """``c₁ * x₁ + c₂ * x₂ + …`` for positive coefficients (``None`` when all are zero)."""
    out: Term | None = None
    for c, x in zip(coeffs, names):
        if c == 0:
            continue
        t = v(x) if c == 1 else mul(ty, num(ty, c), v(x))
        out = t if out is None else add(ty, out, t)
    return out


def lin_rel(
    ty: str, coeffs: Sequence[int], names: Sequence[str], op: Rel, const: int, rng: random.Random
) -> Term:
    """``Σ cᵢ xᵢ op const`` printed naturally: positive terms left, negative terms and constant right."""
    pos = [c if c > 0 else 0 for c in coeffs]
    neg = [-c if c < 0 else 0 for c in coeffs]
    left = lin_term(ty, pos, names)
    right = lin_term(ty, neg, names)
    if left is None:
        # everything negative: Σ nᵢ xᵢ ≥ -const  (flip the relation)
        flip = {"≤": "≥", "<": ">", "=": "=", "≥": "≤", ">": "<"}[op]
        lhs = right if right is not None else num(ty, 0)
        return rel(flip, ty, lhs, num(ty, -const))
    if right is None:
        rhs: Term = num(ty, const)
    elif const == 0:
        rhs = right
    elif const > 0:
        rhs = add(ty, right, num(ty, const))
    else:
        rhs = sub(ty, right, num(ty, -const))
    if op in ("≤", "<") and rng.random() < 0.25:
        return rel("≥" if op == "≤" else ">", ty, rhs, left)
    return rel(op, ty, left, rhs)
