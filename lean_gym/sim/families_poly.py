"""Polynomials over exponent vectors for the ring family: their arithmetic and their rendering as terms.

An :data:`ExpPoly` maps an exponent vector to its coefficient (not :class:`lean_gym.sim.arith.poly.Poly`,
the decision procedures' polynomials): the generator expands a product exactly and writes both sides with
:func:`poly_term`, so an identity it states is true by construction.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from lean_gym.sim.families_terms import add, mul, num, pw, sub, v
from lean_gym.sim.terms import Term

__all__ = ["ExpPoly", "p_add", "p_const", "p_mul", "p_pow", "p_var", "poly_term"]

ExpPoly = dict[tuple[int, ...], int]  # exponent vector -> coefficient (not sim.arith.poly.Poly)
"""A polynomial: exponent vector (one exponent per variable) → nonzero coefficient."""


def p_var(i: int, n: int) -> ExpPoly:
    """The ``i``-th of ``n`` variables."""
    m = [0] * n
    m[i] = 1
    return {tuple(m): 1}


def p_const(c: int, n: int) -> ExpPoly:
    """The constant ``c`` in ``n`` variables."""
    return {tuple([0] * n): c} if c else {}


def p_add(a: ExpPoly, b: ExpPoly, s: int = 1) -> ExpPoly:
    """``a + s·b``."""
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + s * c
        if out[m] == 0:
            del out[m]
    return out


def p_mul(a: ExpPoly, b: ExpPoly) -> ExpPoly:
    """``a · b``."""
    out: ExpPoly = {}
    for m1, c1 in a.items():
        for m2, c2 in b.items():
            m = tuple(x + y for x, y in zip(m1, m2))
            out[m] = out.get(m, 0) + c1 * c2
            if out[m] == 0:
                del out[m]
    return out


def p_pow(a: ExpPoly, k: int, n: int) -> ExpPoly:
    """``a ^ k`` (``n`` variables)."""
    out = p_const(1, n)
    for _ in range(k):
        out = p_mul(out, a)
    return out


def _mono_term(ty: str, c: int, m: tuple[int, ...], names: Sequence[str]) -> Term:
    factors: list[Term] = []
    for e, x in zip(m, names):
        if e == 1:
            factors.append(v(x))
        elif e > 1:
            factors.append(pw(ty, v(x), e))
    t: Term | None = None
    for f in factors:
        t = f if t is None else mul(ty, t, f)
    if t is None:
        return num(ty, abs(c))
    if abs(c) != 1:
        t = mul(ty, num(ty, abs(c)), t) if len(factors) == 1 else _prepend_coeff(ty, abs(c), factors)
    return t


def _prepend_coeff(ty: str, c: int, factors: list[Term]) -> Term:
    t: Term = num(ty, c)
    for f in factors:
        t = mul(ty, t, f)
    return t


def poly_term(ty: str, p: ExpPoly, names: Sequence[str], rng: random.Random) -> Term:
    """``p`` as a term of ``ty`` in the locals ``names``, monomials by degree (shuffled 30% of the time by ``rng``)."""
    monos = sorted(p.items(), key=lambda mc: (-sum(mc[0]), [-e for e in mc[0]]))
    if rng.random() < 0.3:
        rng.shuffle(monos)
    # make the first coefficient positive for a natural display
    for i, (_m, c) in enumerate(monos):
        if c > 0:
            monos.insert(0, monos.pop(i))
            break
    out: Term | None = None
    for m, c in monos:
        t = _mono_term(ty, c, m, names)
        if out is None:
            out = ("neg", ty, t) if c < 0 else t
        else:
            out = sub(ty, out, t) if c < 0 else add(ty, out, t)
    return out if out is not None else num(ty, 0)
