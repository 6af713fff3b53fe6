"""Lean core's ℕ offset simprocs: ``Nat.reduceEqDiff``, ``Nat.reduceLeDiff``, ``Nat.reduceSubDiff``.

In Lean's default simproc set (``src/Lean/Meta/Tactic/Simp/BuiltinSimprocs/Nat.lean``), so ``simp`` and
``simp only`` both run them (``norm_num1``, which runs no simp, does not). Each reads its operands as
*offsets* (``NatOffset.fromExpr?``): a numeral ``n``, or ``b + k₁ + … + kₘ`` / ``Nat.succ b`` peeled while the
right operand is a numeral literal (``b`` then carries the offset ``k₁ + … + kₘ``), and moves the constants
to one side:

* ``x + 1000 = 400`` is ``False``, ``x + 400 = 1000`` is ``x = 600``, ``a + 1000 = b + 400`` is
  ``a + 600 = b`` (``Nat.Simproc.add_eq_le``, ``add_eq_gt``, ``add_eq_add_le``, ``add_eq_add_ge``);
* ``a + 1000 ≤ 400`` is ``False``, ``1000 ≤ a + 1000`` is ``True``, ``1000 ≤ a + 400`` is ``600 ≤ a``;
* ``a + 400 - 1000`` is ``a - 600``, ``a + 1000 - 400`` is ``a + 600``, ``1000 - (a + 400)`` is
  ``600 - a`` (``Nat.Simproc.sub_add_eq_comm``, unconditional: ``400 - (a + 1000)`` is ``0 - a``).

Only a numeral literal is an offset: ``x + (2 + 3)`` is read after simp has folded ``2 + 3`` (the operands
are simplified first, as in Lean). The simulator's terms keep ``a ≠ b`` and ``a ≥ b`` where Lean's simp
lemmas ``ne_eq``/``ge_iff_le`` first turn them into ``¬a = b`` and ``b ≤ a``; they are read as those.
"""

from __future__ import annotations

from lean_gym.sim.terms import FALSE, TRUE, Term

__all__ = ["nat_offset_simproc"]

_Offset = tuple[Term | None, int]  # (base, offset); base None: the numeral `offset`


def _num(n: int) -> Term:
    return ("num", "ℕ", n)


def _lit(t: Term) -> int | None:
    """``getNatValue?``: the value of a numeral literal (no arithmetic)."""
    return t[2] if t[0] == "num" and t[1] == "ℕ" and type(t[2]) is int else None


def _offset(t: Term, inc: int = 0) -> _Offset | None:
    """``NatOffset.fromExpr?``: a numeral, or a base and the numerals added to it (``None`` if neither)."""
    v = _lit(t)
    if v is not None:
        return None, v + inc
    base, k = t, inc
    while True:
        if base[0] == "+" and base[1] == "ℕ" and _lit(base[3]) is not None:
            k += base[3][2]
            base = base[2]
        elif base[0] == "app" and base[1] == ("const", "Nat.succ") and len(base[2]) == 1:
            k += 1
            base = base[2][0]
        else:
            break
    return (base, k) if k != 0 else None


def _add(b: Term, k: int) -> Term:
    return ("+", "ℕ", b, _num(k))


def _cancel(op: str, xb: Term, xn: int, yb: Term, yn: int) -> Term:
    """``(xb + xn) op (yb + yn)`` with the smaller offset taken off both sides (``op`` is ``=``, ``≤`` or ``-``,
    both bases not numerals): the step ``reduceEqDiff``, ``reduceLTLE`` and ``reduceSubDiff`` share."""
    if xn <= yn:
        return (op, "ℕ", xb, yb if xn == yn else _add(yb, yn - xn))
    return (op, "ℕ", _add(xb, xn - yn), yb)


def _eq_diff(x: Term, y: Term) -> Term | None:
    """``reduceNatEqExpr``: what ``x = y`` becomes (``True``, ``False``, an equation), or ``None``."""
    xo, yo = _offset(x), _offset(y)
    if xo is None or yo is None:
        return None
    (xb, xn), (yb, yn) = xo, yo
    if xb is None and yb is None:
        return TRUE if xn == yn else FALSE
    if yb is None:
        return ("=", "ℕ", xb, _num(yn - xn)) if xn <= yn else FALSE
    if xb is None:
        return ("=", "ℕ", yb, _num(xn - yn)) if yn <= xn else FALSE
    return _cancel("=", xb, xn, yb, yn)


def _le_diff(x: Term, y: Term) -> Term | None:
    """``reduceLTLE`` for ``x ≤ y``."""
    xo, yo = _offset(x), _offset(y)
    if xo is None or yo is None:
        return None
    (xb, xn), (yb, yn) = xo, yo
    if xb is None and yb is None:
        return TRUE if xn <= yn else FALSE
    if yb is None:
        return ("≤", "ℕ", xb, _num(yn - xn)) if xn <= yn else FALSE
    if xb is None:
        return TRUE if xn <= yn else ("≤", "ℕ", _num(xn - yn), yb)
    return _cancel("≤", xb, xn, yb, yn)


def _sub_diff(p: Term, q: Term) -> Term | None:
    """``reduceSubDiff`` for ``p - q``."""
    po, qo = _offset(p), _offset(q)
    if po is None or qo is None:
        return None
    (pb, pn), (qb, qn) = po, qo
    if pb is None and qb is None:
        return _num(max(pn - qn, 0))
    if qb is None and pb is not None:
        if pn <= qn:
            return pb if pn == qn else ("-", "ℕ", pb, _num(qn - pn))
        return _add(pb, pn - qn)
    if pb is None:
        return ("-", "ℕ", _num(max(pn - qn, 0)), qb)
    assert qb is not None  # for the type checker: both are offsets here
    return _cancel("-", pb, pn, qb, qn)


def nat_offset_simproc(t: Term) -> Term | None:
    """What Lean's ℕ offset simprocs rewrite ``t`` to, or ``None`` (``t`` is none of their patterns, or
    already in their normal form)."""
    h = t[0]
    if len(t) != 4 or t[1] != "ℕ" or h not in ("=", "≠", "≤", "≥", "-"):
        return None
    if h == "=":
        out = _eq_diff(t[2], t[3])
    elif h == "≠":  # ne_eq, then reduceEqDiff under the negation
        eq = _eq_diff(t[2], t[3])
        out = (
            None if eq is None else FALSE if eq == TRUE else TRUE if eq == FALSE else ("≠", "ℕ", eq[2], eq[3])
        )
    elif h == "≤":
        out = _le_diff(t[2], t[3])
    elif h == "≥":  # ge_iff_le, then reduceLeDiff
        out = _le_diff(t[3], t[2])
        if out is not None and out[0] == "≤" and out[2] == t[3] and out[3] == t[2]:
            out = None
    else:
        out = _sub_diff(t[2], t[3])
    return None if out == t else out
