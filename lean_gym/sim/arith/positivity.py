"""Sign heuristics on polynomials, for ``positivity``-style goals ``0 < p``, ``0 ≤ p``.

Lean's ``positivity`` works on the syntax of a term (sums, products, even powers, ``abs``, numerals,
hypotheses are *not* used). The tactic interpreter does that syntactic walk itself; these helpers decide
the sign of a polynomial normal form from facts about its atoms, with the same kind of rules:

* a monomial ``c·Π aᵢ^eᵢ`` with ``c > 0`` is ``> 0`` when each factor is (a positive atom, or an even
  power of a non-zero atom) and ``≥ 0`` when each factor is ``≥ 0`` (a positive or non-negative atom, or
  any even power);
* a sum is ``> 0`` when every term is ``≥ 0`` and one is ``> 0``, and ``≥ 0`` when every term is.

Each rule is a true implication over ordered fields, so the answers are sound. They fail (return
``None``/``False``) whenever a term has a negative coefficient, even if the polynomial is a square such
as ``a^2 - 2ab + b^2``: use the syntax for those.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from lean_gym.sim.arith.poly import Monomial, Poly

__all__ = ["Sign", "is_nonneg_sos", "is_pos", "monomial_sign", "poly_sign"]

Sign = Literal["pos", "nonneg"]


def monomial_sign(
    m: Monomial,
    pos_atoms: frozenset[Any] | set[Any] = frozenset(),
    nonneg_atoms: frozenset[Any] | set[Any] = frozenset(),
    nonzero_atoms: frozenset[Any] | set[Any] = frozenset(),
) -> Sign | None:
    """The sign of ``Π aᵢ^eᵢ`` (coefficient 1): ``"pos"``, ``"nonneg"`` or ``None`` (unknown)."""
    result: Sign = "pos"
    for a, e in m:
        if a in pos_atoms:
            continue
        if e % 2 == 0:
            if a not in nonzero_atoms:
                result = "nonneg"
            continue
        if a in nonneg_atoms:
            result = "nonneg"
            continue
        return None
    return result


def poly_sign(
    p: Poly,
    pos_atoms: Iterable[Any] = (),
    nonneg_atoms: Iterable[Any] = (),
    nonzero_atoms: Iterable[Any] = (),
) -> Sign | None:
    """``"pos"`` when ``p > 0`` follows from the rules above, ``"nonneg"`` when ``p ≥ 0`` does, else ``None``.

    Args:
        p: The polynomial.
        pos_atoms: Atoms known to be ``> 0``.
        nonneg_atoms: Atoms known to be ``≥ 0`` (for example every ℕ-valued atom).
        nonzero_atoms: Atoms known to be ``≠ 0`` (their even powers are ``> 0``).
    """
    pos, nonneg, nonzero = frozenset(pos_atoms), frozenset(nonneg_atoms), frozenset(nonzero_atoms)
    any_pos = False
    for m, c in p.terms().items():
        if c < 0:
            return None
        s = monomial_sign(m, pos, nonneg, nonzero)
        if s is None:
            return None
        if s == "pos":
            any_pos = True
    return "pos" if any_pos else "nonneg"


def is_pos(p: Poly, pos_atoms: Iterable[Any] = (), nonneg_atoms: Iterable[Any] = ()) -> bool:
    """Whether ``0 < p`` follows from the sign rules, given atoms known positive / non-negative."""
    return poly_sign(p, pos_atoms, nonneg_atoms) == "pos"


def is_nonneg_sos(p: Poly, nonneg_atoms: Iterable[Any] = ()) -> bool:
    """Whether ``0 ≤ p`` because ``p`` is a non-negative combination of even powers (and ``nonneg_atoms``)."""
    return poly_sign(p, (), nonneg_atoms) is not None
