"""Mathlib's ``cancel_denoms``: numeric denominators multiplied out of a comparison, as Mathlib implements it.

The algorithm of ``Mathlib/Tactic/CancelDenoms/Core.lean`` (leanprover-community/mathlib4, read at
52ff0f1e79f33d6d8d69faaba783cd196905d2c3; the corpus's records, ``MathlibTest/cancel_denoms.lean``, are at
1efdf0f9eba89d6bba0dfd94c9a028f73956968f), step by step:

1. ``findCompLemma``: the hypothesis or target is ``a R b`` with ``R`` in ``< ≤ = ≠`` (``≥ >`` swapped,
   ``¬ a = b`` read as ``≠``), else ``cannot kill factors``;
2. ``derive`` on each side: ``simp only [div_div_eq_mul_div, div_neg]``, then norm_num's evaluation of
   closed numerals (no simp lemmas), then ``findCancelFactor`` (the lcm of the denominators through sums,
   their product through products, ``n ^ k`` through powers) and ``mkProdPrf`` (that factor distributed
   over the tree: ``n * e = e'`` with every numeric denominator cancelled);
3. the comparison becomes ``1 / g * (bd * a') R 1 / g * (ad * b')`` (``ad``, ``bd`` the sides' factors,
   ``g`` their gcd), the lemma ``cancel_factors_lt`` … ``cancel_factors_ne``;
4. ``try norm_num [← mul_assoc]`` at the same location, which gives the shape the records show
   (``4 * a + 5 * b < 20 * c``) and closes what norm_num closes.

Only numerals are cancelled: a denominator that is not a natural numeral (``a / b``) is an atom, left as it
stands, so the tactic never needs a side condition it cannot prove. Over a type without ``Field`` (ℕ, ℤ)
Lean fails to synthesize the instance, and so does this.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from lean_gym.sim.evaluate import eval_term
from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import Subproof, close
from lean_gym.sim.tactics import TacSyntax, TacticContext, TacticError, _parse_location, builtin, run_tactic
from lean_gym.sim.terms import Term, is_prop_type, mk_num, pretty

__all__: list[str] = []

_FIELDS = ("ℚ", "ℝ")

# findCancelFactor's tree: (n, left, right), or None for Lean's `Tree.nil`; the children are trees too,
# typed Any because mypyc (docs/simulator.md) cannot compile a recursive type alias
_Tree = tuple[int, Any, Any] | None


def _nat_lit(e: Term) -> int | None:
    """``Expr.nat?``: the value of a natural-number literal, else ``None``."""
    if e[0] == "num" and isinstance(e[2], int) and e[2] >= 0:
        return e[2]
    return None


def _leaf(n: int) -> _Tree:
    return (n, None, None)


def _find_cancel_factor(e: Term, ctx: TacticContext) -> tuple[int, _Tree]:
    ctx.tick(1)
    h = e[0]
    if h in ("+", "-"):
        v1, t1 = _find_cancel_factor(e[2], ctx)
        v2, t2 = _find_cancel_factor(e[3], ctx)
        n = math.lcm(v1, v2)
        return n, (n, t1, t2)
    if h == "*":
        v1, t1 = _find_cancel_factor(e[2], ctx)
        v2, t2 = _find_cancel_factor(e[3], ctx)
        n = v1 * v2
        return n, (n, t1, t2)
    if h == "/":
        q = _nat_lit(e[3])
        if q is None:
            return 1, _leaf(1)
        v1, t1 = _find_cancel_factor(e[2], ctx)
        n = v1 * q
        return n, (n, t1, _leaf(q))
    if h == "neg":
        return _find_cancel_factor(e[2], ctx)
    if h == "^":
        k = _nat_lit(e[3])
        if k is None:
            return 1, _leaf(1)
        v1, t1 = _find_cancel_factor(e[2], ctx)
        if k > 64 and v1 > 1:
            raise _Fail()  # the factor would be a numeral too large to write
        n = v1**k
        return n, (n, t1, _leaf(k))
    if h == "inv":
        q = _nat_lit(e[2])
        if q is None:
            return 1, _leaf(1)
        return q, (q, None, _leaf(q))
    return 1, _leaf(1)


class _Fail(Exception):
    """A norm_num side goal of ``mkProdPrf`` that does not hold (Lean: ``Could not prove … using norm_num``)."""


def _mk_prod(ty: str, v: int, t: _Tree, e: Term, ctx: TacticContext) -> Term:
    """``mkProdPrf``: ``e'`` with ``v * e = e'`` and the numeric denominators of ``e`` cancelled."""
    ctx.tick(1)
    h = e[0]
    if t is not None and h in ("+", "-"):
        return (h, ty, _mk_prod(ty, v, t[1], e[2], ctx), _mk_prod(ty, v, t[2], e[3], ctx))
    if t is not None and h == "*" and t[1] is not None:
        ln = t[1][0]
        if ln == 0 or ln * (v // ln) != v:
            raise _Fail()
        return ("*", ty, _mk_prod(ty, ln, t[1], e[2], ctx), _mk_prod(ty, v // ln, t[2], e[3], ctx))
    if t is not None and h == "/" and t[2] is not None:
        rn = t[2][0]
        d = _nat_lit(e[3])
        vr = v // rn if rn else 0
        if rn == 0 or d != rn or vr * rn != v:
            raise _Fail()  # `rn / e2 = 1` and `v / rn * rn = v`
        return _mk_prod(ty, vr, t[1], e[2], ctx)
    if h == "neg":
        return ("neg", ty, _mk_prod(ty, v, t, e[2], ctx))
    if (
        t is not None
        and h == "^"
        and t[1] is not None
        and t[2] is not None
        and t[2][1] is None
        and t[2][2] is None
    ):
        k1, k2 = t[1][0], t[2][0]
        div = k1**k2
        lv = v // div if div else 0
        if div == 0 or lv * div != v:
            raise _Fail()
        return ("*", ty, mk_num(ty, lv), ("^", ty, _mk_prod(ty, k1, t[1], e[2], ctx), e[3]))
    if t is not None and h == "inv" and t[1] is None and t[2] is not None:
        rn = t[2][0]
        if _nat_lit(e[2]) != rn or rn == 0 or (v // rn) * rn != v:
            raise _Fail()
        return mk_num(ty, v // rn)
    return ("*", ty, mk_num(ty, v), e)


def _derive_simp(e: Term, ctx: TacticContext) -> Term:
    """``simp only [div_div_eq_mul_div, div_neg]``: ``a / (b / c) = a * c / b``, ``a / -b = -(a / b)``."""
    ctx.tick(1)
    h = e[0]
    if h in ("+", "-", "*", "/", "^"):
        a = _derive_simp(e[2], ctx)
        b = _derive_simp(e[3], ctx) if h != "^" else e[3]
        e = (h, e[1], a, b)
    elif h in ("neg", "inv"):
        e = (h, e[1], _derive_simp(e[2], ctx))
    while e[0] == "/":
        ty, a, b = e[1], e[2], e[3]
        if b[0] == "/":
            e = ("/", ty, _derive_simp(("*", ty, a, b[3]), ctx), b[2])
        elif b[0] == "neg":
            return ("neg", ty, _derive_simp(("/", ty, a, b[2]), ctx))
        else:
            break
    return e


def _numeral_term(ty: str, v: int | Fraction) -> Term:
    """norm_num's output for a rational ``v``: ``n``, ``-n``, ``n / d`` or ``-(n / d)``."""
    q = Fraction(v)
    body = mk_num(ty, abs(q.numerator))
    if q.denominator != 1:
        body = ("/", ty, body, mk_num(ty, q.denominator))
    return ("neg", ty, body) if q < 0 else body


def _norm_numerals(e: Term, ctx: TacticContext) -> Term:
    """norm_num's core without simp lemmas (``NormNum.deriveSimp``): closed numeral subterms evaluated."""
    ctx.tick(1)
    h = e[0]
    if h in ("+", "-", "*", "/", "^", "neg", "inv"):
        try:
            v = eval_term(e, ctx, unfold=False)
        except (ValueError, ArithmeticError):
            v = None
        except Exception:  # EvalTooExpensive: left as written
            v = None
        if v is not None:
            return _numeral_term(e[1], v)
        if h == "^":
            return ("^", e[1], _norm_numerals(e[2], ctx), e[3])
        if h in ("neg", "inv"):
            return (h, e[1], _norm_numerals(e[2], ctx))
        return (h, e[1], _norm_numerals(e[2], ctx), _norm_numerals(e[3], ctx))
    return e


def _derive(side: Term, ty: str, goal: Goal, ctx: TacticContext) -> tuple[int, Term]:
    e = _norm_numerals(_derive_simp(side, ctx), ctx)
    n, tree = _find_cancel_factor(e, ctx)
    try:
        return n, _mk_prod(ty, n, tree, e, ctx)
    except _Fail:
        raise TacticError(f"CancelDenoms.derive failed to normalize {pretty(side, goal.ascii)}.") from None


_SWAP = {">": "<", "≥": "≤"}


def _comparison(p: Term) -> tuple[str, str, Term, Term] | None:
    """``findCompLemma``: ``(R, T, lhs, rhs)`` with ``R`` in ``< ≤ = ≠``, or ``None``."""
    h = p[0]
    if h in ("<", "≤", "=", "≠"):
        return h, p[1], p[2], p[3]
    if h in _SWAP:
        return _SWAP[h], p[1], p[3], p[2]
    if h == "¬" and p[1][0] == "=":
        return "≠", p[1][1], p[1][2], p[1][3]
    return None


def cancel_denominators(p: Term, goal: Goal, ctx: TacticContext) -> Term:
    """``cancelDenominatorsInType``: the comparison ``p`` with its numeric denominators cancelled."""
    cmp = _comparison(p)
    if cmp is None:
        raise TacticError("cannot kill factors")
    rel, ty, lhs, rhs = cmp
    if ty not in _FIELDS:
        raise TacticError(f"failed to synthesize\n  Field {ty}")
    al, lhs2 = _derive(lhs, ty, goal, ctx)
    ar, rhs2 = _derive(rhs, ty, goal, ctx)
    g = math.gcd(al, ar)
    if al == 0 or ar == 0 or g == 0:
        what = "0 <" if rel in ("<", "≤") else "≠ 0"
        raise TacticError(f"Could not prove {what} using norm_num.")
    one_over = ("/", ty, mk_num(ty, 1), mk_num(ty, g))
    new_l = ("*", ty, one_over, ("*", ty, mk_num(ty, ar), lhs2))
    new_r = ("*", ty, one_over, ("*", ty, mk_num(ty, al), rhs2))
    return (rel, ty, new_l, new_r)


@builtin("cancel_denoms")
def _cancel_denoms(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    locs = _parse_location(ts)
    if ts.tok.kind != "eof":
        raise TacticError(
            f"unexpected token '{ts.tok.text}'; expected end of tactic", ts.tok.start, ts.tok.end
        )
    new = goal
    if locs == ["*"]:
        worked = False
        try:
            new = new.with_target(cancel_denominators(new.target, new, ctx))
            worked = True
        except TacticError:
            pass
        for fid, ty in reversed(goal.hyps):
            if not is_prop_type(ty):
                continue
            try:
                new = new.replace_hyp(fid, cancel_denominators(ty, new, ctx))
                worked = True
            except TacticError:
                pass
        if not worked:
            raise TacticError("Failed to cancel any denominators")
    else:
        for loc in locs or ["⊢"]:
            if loc == "⊢":
                new = new.with_target(cancel_denominators(new.target, new, ctx))
                continue
            hyp_id, hyp_ty = new.find(loc), new.hyp(loc)
            if hyp_id is None or hyp_ty is None:
                raise TacticError(f"unknown hypothesis '{loc}'")
            new = new.replace_hyp(hyp_id, cancel_denominators(hyp_ty, new, ctx))
    where = syn.text[len("cancel_denoms") :]
    out = run_tactic(new, f"try norm_num [← mul_assoc]{where}", ctx)
    if not out:
        return close(goal, Subproof((new,)), ctx)
    return out
