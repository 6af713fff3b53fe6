"""An exact simplex oracle that finds ``linarith`` certificates (the oracle Mathlib's ``linarith`` uses).

Given constraints ``pᵢ opᵢ 0``, look for multipliers ``yᵢ`` (``≥ 0`` for inequalities, any sign for
equalities) and ``y₀ ≥ 0`` for the extra fact ``-1 < 0`` such that ``Σ yᵢ·pᵢ - y₀`` is the zero
polynomial while the strict multipliers (``y₀`` included) have a positive sum. That is a linear
program:

    maximise  Σ_{strict} yᵢ   subject to   Σ yᵢ·coeffs(pᵢ) - y₀·e_const = 0,   Σ_{strict} yᵢ ≤ 1,   y ≥ 0

whose right-hand side is zero except for the normalisation row, so any basis of the equality rows is a
feasible (degenerate) start. Pivoting is exact (``Fraction``) with Bland's rule, so it terminates. A
positive optimum is a refutation; the caller re-checks it exactly before trusting it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction

from lean_gym.sim.arith.poly import Monomial

__all__ = ["simplex_certificate"]


def simplex_certificate(
    rows: Sequence[tuple[dict[Monomial, Fraction], str]],
    spend: Callable[[int], None],
) -> list[Fraction] | None:
    """Multipliers refuting ``rows`` (one per row), or ``None`` when there is no refutation.

    Args:
        rows: ``(terms, op)`` for each constraint ``Σ terms[m]·m op 0``; the constant is the ``()``
            monomial; ``op`` is ``"<"``, ``"<="`` or ``"="`` (others must be filtered out by the caller).
        spend: Called with the work done per pivot; raises to stop the search.

    Returns:
        For each row its multiplier (``≥ 0`` except for equalities), or ``None``.
    """
    # Columns: one per row (two for equalities: y⁺ and y⁻), then y₀ for "-1 < 0", then the slack s.
    monos: dict[Monomial, int] = {}
    for terms, _ in rows:
        for m in terms:
            if m not in monos:
                monos[m] = len(monos)
    const_row = monos.setdefault((), len(monos))
    n_eq_rows = len(monos)
    cols: list[tuple[int, int]] = []  # (row index, sign)
    strict_cols: list[int] = []
    for i, (_, op) in enumerate(rows):
        if op == "=":
            cols.append((i, 1))
            cols.append((i, -1))
        else:
            if op == "<":
                strict_cols.append(len(cols))
            cols.append((i, 1))
    y0 = len(cols)
    strict_cols.append(y0)
    slack = y0 + 1
    n_cols = slack + 1
    width = n_cols + 1  # last entry: right-hand side

    # The tableau is kept in integers: every row is scaled by a positive factor and divided by its gcd,
    # which is much faster than Fraction arithmetic and changes no solution.
    frac: list[list[Fraction]] = [[Fraction(0)] * width for _ in range(n_eq_rows)]
    for j, (i, sign) in enumerate(cols):
        for m, q in rows[i][0].items():
            frac[monos[m]][j] = q if sign > 0 else -q
    frac[const_row][y0] = Fraction(-1)
    tab = [_integral(r) for r in frac]
    norm = [0] * width
    for j in strict_cols:
        norm[j] = 1
    norm[slack] = 1
    norm[-1] = 1

    basis: list[int] = []
    kept: list[list[int]] = []
    # Gauss-Jordan on the equality rows to choose a starting basis (their right-hand sides stay 0).
    for row in tab:
        for b_row, b_col in zip(kept, basis):
            if row[b_col]:
                row = _eliminate(row, b_row, b_col)
        piv = next((j for j in range(n_cols - 1) if row[j]), None)
        if piv is None:
            continue  # a redundant (zero) row
        spend(1)
        if row[piv] < 0:
            row = [-v for v in row]  # an equality row (right-hand side 0) may change sign
        for k, other in enumerate(kept):
            if other[piv]:
                kept[k] = _eliminate(other, row, piv)
        kept.append(row)
        basis.append(piv)
    for b_row, b_col in zip(kept, basis):
        if norm[b_col]:
            norm = _eliminate(norm, b_row, b_col)
    kept.append(norm)
    basis.append(slack)

    # Objective row for "maximise Σ strict y": z - Σ y_strict = 0, kept reduced w.r.t. the basis.
    obj = [0] * width
    for j in strict_cols:
        obj[j] = -1
    for b_row, b_col in zip(kept, basis):
        if obj[b_col]:
            obj = _eliminate(obj, b_row, b_col)

    while True:
        in_basis = set(basis)
        entering = next((j for j in range(n_cols) if obj[j] < 0 and j not in in_basis), None)
        if entering is None:
            break
        leave = None
        for r, row in enumerate(kept):
            a = row[entering]
            if a > 0:
                if leave is None:
                    leave = r
                    continue
                best = kept[leave]
                lhs, rhs = row[-1] * best[entering], best[-1] * a
                if lhs < rhs or (lhs == rhs and basis[r] < basis[leave]):
                    leave = r
        if leave is None:
            return None  # unbounded cannot happen (the objective is at most 1); be safe
        spend(len(kept))
        prow = kept[leave]
        for r, row in enumerate(kept):
            if r != leave and row[entering]:
                kept[r] = _eliminate(row, prow, entering)
        obj = _eliminate(obj, prow, entering)
        basis[leave] = entering

    if obj[-1] <= 0:
        return None  # optimum 0: no strict multiplier can be positive
    values: dict[int, Fraction] = {}
    for row, b in zip(kept, basis):
        if row[-1]:
            values[b] = Fraction(row[-1], row[b])
    mult = [Fraction(0)] * len(rows)
    for j, (i, sign) in enumerate(cols):
        v = values.get(j)
        if v:
            mult[i] += sign * v
    return mult


def _integral(row: list[Fraction]) -> list[int]:
    """``row`` scaled by the positive lcm of its denominators, then divided by the gcd."""
    den = 1
    for q in row:
        if q.denominator != 1:
            den = den * q.denominator // math.gcd(den, q.denominator)
    out = [int(q * den) for q in row]
    return _primitive(out)


def _primitive(row: list[int]) -> list[int]:
    g = 0
    for v in row:
        if v:
            g = math.gcd(g, v)
            if g == 1:
                return row
    if g > 1:
        return [v // g for v in row]
    return row


def _eliminate(row: list[int], prow: list[int], col: int) -> list[int]:
    """``p·row - f·prow`` with ``p = |prow[col]|`` (a positive factor on ``row``), so that ``col`` vanishes."""
    p = prow[col]
    f = row[col]
    if p < 0:
        p, f = -p, -f
    return _primitive([p * a - f * b for a, b in zip(row, prow)])
