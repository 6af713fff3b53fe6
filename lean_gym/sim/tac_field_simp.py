"""Mathlib's ``field_simp`` (the August 2025 rewrite), as ``Mathlib/Tactic/FieldSimp.lean`` implements it.

Read at leanprover-community/mathlib4 52ff0f1e79f33d6d8d69faaba783cd196905d2c3 (the discharger,
``Mathlib/Tactic/FieldSimp/Discharger.lean``, at 1efdf0f9eba89d6bba0dfd94c9a028f73956968f); the records are
``MathlibTest/FieldSimp.lean`` at c5da5641a9ca9981ed472e6a63628dd69c09e7f7, whose ``#guard_msgs`` blocks print
the normal form this module builds.

The algorithm, over ℚ and ℝ (the simulator's fields):

* ``normalize`` reads a product of powers ``x₁ ^ c₁ * … * xₖ ^ cₖ`` with integer exponents (a sign kept
  apart): ``*``, ``/``, ``⁻¹``, ``^`` with a numeral exponent and ``-`` are read through; ``1`` is the empty
  product; every other subterm is an *atom*, numbered in the order met (top-down, left to right, an atom's
  own subterms first: Mathlib's ``AtomM.recurse``), atoms equal up to syntax sharing a number. A numeral
  other than ``1`` is an atom too (the record: ``P (2 * x - 1 * x)`` becomes ``P (x * (2 - 1))``).
* A sum ``a + b`` (or ``a - b``): both sides normalised, their common factor ``L`` taken out (``gcd`` with
  ``nonzero := false``: a negative power only where the discharger proves its atom non-zero), and
  ``L * (a' + b')`` with the sum a new atom.
* ``evalPretty`` writes a product back: positive powers over negative ones, ``n / d``, atoms in their
  order, ``x ^ 0`` (an atom not proved non-zero) as ``x / x``.
* An equation ``a = b``: both sides normalised and their common factor cancelled (``gcd`` with
  ``nonzero := true``: only atoms the discharger proves non-zero), so ``x / y = z / w`` becomes
  ``x * w = y * z``; then ``a = a`` and ``p ↔ p`` become ``True`` (``simp only []``), which closes the goal.
* The discharger (``FieldSimp.discharge``) proves ``e ≠ 0`` by an assumption, a numeral, positivity (the
  simulator's model of it), or simp with the call's ``[…]`` arguments and ``mul_ne_zero``, ``pow_ne_zero``,
  ``Nat.cast_add_one_ne_zero``; ``(discharger := tac)`` runs ``tac`` instead.

Inequalities and ``≠`` are not cleared (the record's TODO); their sides are normalised as expressions. A
result whose every location is unchanged is ``field_simp made no progress on goal``; a product, quotient or
power that the normaliser writes anew counts as a change even where it prints as before (Lean builds it
with other instances: the record's ``P (x * y)`` passes where ``P (x + y)`` and ``P x`` fail).
"""

from __future__ import annotations

from lean_gym.sim.evaluate import eval_term
from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import Rewrote, close, close_from
from lean_gym.sim.simp import SimpSet, add_simp_arg, parse_simp_args, simp_term
from lean_gym.sim.syntax import Syn
from lean_gym.sim.tac_arith import sign_of
from lean_gym.sim.tactics import (
    LogMessage,
    TacSyntax,
    TacticContext,
    TacticError,
    _location_has_target,
    _location_hyps,
    builtin,
    run_tactic,
)
from lean_gym.sim.terms import FALSE, TRUE, Term, is_prop_type

__all__: list[str] = []

_FIELDS = ("ℚ", "ℝ")
_ARITH = frozenset({"+", "-", "*", "/", "^", "neg", "inv"})

_NF = dict[int, int]  # atom index → integer exponent (zero kept: `x * x⁻¹` is `x ^ 0`, not `1`)


class _FieldSimp:
    """One ``field_simp`` call: its atoms (shared by every location), discharger and change flag."""

    def __init__(
        self, goal: Goal, ctx: TacticContext, args: list[tuple[bool, Syn]], discharger: str | None
    ) -> None:
        self.goal = goal
        self.ctx = ctx
        self.atoms: list[Term] = []
        self.types: list[str] = []
        self.index: dict[Term, int] = {}
        self.rebuilt = False
        self.args = args
        self.discharger = discharger
        self._simp: SimpSet | None = None
        self._nonzero: dict[Term, bool] = {}

    # ---------------------------------------------------------------------------------- the discharger

    def nonzero(self, i: int) -> bool:
        """``FieldSimp.discharge`` on ``atomᵢ ≠ 0`` (memoised for the call)."""
        e = self.atoms[i]
        hit = self._nonzero.get(e)
        if hit is None:
            hit = self._discharge(e, self.types[i], 0)
            self._nonzero[e] = hit
        return hit

    def _discharge(self, e: Term, ty: str, depth: int) -> bool:
        ctx, goal = self.ctx, self.goal
        ctx.tick(2)
        if self.discharger is not None:
            return self._custom(e, ty)
        zero = ("num", ty, 0)
        target = ("≠", ty, e, zero)
        for _, p in goal.props():  # 1. an assumption
            if p == target or p == ("¬", ("=", zero[1], e, zero)):
                return True
        try:  # 2. norm_num on a closed numeral
            v = eval_term(e, ctx, unfold=False)
        except (ValueError, ArithmeticError):
            v = None
        except Exception:  # EvalTooExpensive
            v = None
        if v is not None:
            return v != 0
        if sign_of(e, goal, ctx) in ("pos", "nonzero"):  # 3. positivity
            return True
        if depth > 24:
            return False
        # 4. simp with `mul_ne_zero`, `pow_ne_zero`, `Nat.cast_add_one_ne_zero` and the call's arguments,
        # whose side goals go to this discharger again
        h = e[0]
        if h == "*":
            return self._discharge(e[2], ty, depth + 1) and self._discharge(e[3], ty, depth + 1)
        if h == "^":
            return self._discharge(e[2], ty, depth + 1)
        if h == "+" and e[3] == ("num", e[1], 1) and e[2][0] == "cast" and e[2][2] == "ℕ":
            return True  # Nat.cast_add_one_ne_zero (characteristic zero)
        if self.args:
            if self._simp is None:
                self._simp = SimpSet(ctx, default=True)
                for rev, term in self.args:
                    try:
                        add_simp_arg(self._simp, goal, rev, term, ctx)
                    except TacticError:
                        pass
            # `ne_eq` (a default simp lemma) first: `e ≠ 0` is `¬e = 0`
            return simp_term(("¬", ("=", ty, e, zero)), self._simp, {}) == TRUE
        return False

    def _custom(self, e: Term, ty: str) -> bool:
        side = self.goal.with_target(("≠", ty, e, ("num", ty, 0)))
        snap = self.ctx.snapshot()
        try:
            return not run_tactic(side, self.discharger or "fail", self.ctx)
        except TacticError:
            self.ctx.restore(snap)
            return False

    # ---------------------------------------------------------------------------------- normalisation

    def atom(self, t: Term, ty: str) -> int:
        """The number of atom ``t`` of type ``ty``, a new one if unseen."""
        i = self.index.get(t)
        if i is None:
            i = len(self.atoms)
            self.atoms.append(t)
            self.types.append(ty)
            self.index[t] = i
            self.ctx.tick(1)
        return i

    def normalize(self, x: Term, ty: str) -> tuple[bool, _NF]:
        """``normalize``: ``x`` (of the field ``ty``) as ``±∏ atomᵢ ^ cᵢ`` (the sign, the exponents)."""
        self.ctx.tick(1)
        h = x[0]
        if h in ("*", "/"):
            s1, a = self.normalize(x[2], ty)
            s2, b = self.normalize(x[3], ty)
            return s1 != s2, _combine(a, b, 1 if h == "*" else -1)
        if h == "inv":
            s, a = self.normalize(x[2], ty)
            return s, {i: -c for i, c in a.items()}
        if h == "^" and x[3][0] == "num" and isinstance(x[3][2], int):
            k = x[3][2]
            if k == 0:
                return False, {}
            s, a = self.normalize(x[2], ty)
            return s and k % 2 == 1, {i: c * k for i, c in a.items()}
        if h == "num" and x[2] == 1 and isinstance(x[2], int):
            return False, {}
        if h in ("+", "-"):
            s1, a = self.normalize(x[2], ty)
            s2, b = self.normalize(x[3], ty)
            common, a2, b2 = self.gcd(a, b, nonzero=False)
            e1, e2 = self.pretty(x[1], a2), self.pretty(x[1], b2)
            summed = (h, x[1], self.signed(x[1], s1, e1), self.signed(x[1], s2, e2))
            return False, _combine(common, {self.atom(summed, x[1]): 1}, 1)
        if h == "neg":
            s, a = self.normalize(x[2], ty)
            return not s, a
        # an atom: its own subterms normalised first (`evalAtom`)
        return False, {self.atom(self.recurse_children(x), x[1] if h in _ARITH else ty): 1}

    def gcd(self, a: _NF, b: _NF, nonzero: bool) -> tuple[_NF, _NF, _NF]:
        """``qNF.gcd``: ``(L, a', b')`` with ``a = L * a'`` and ``b = L * b'``."""
        common: _NF = {}
        ra: _NF = {}
        rb: _NF = {}
        for i in sorted(set(a) | set(b), reverse=True):
            self.ctx.tick(1)
            if i in a and i in b:
                n1, n2 = a[i], b[i]
                if nonzero and not self.nonzero(i):
                    ra[i], rb[i] = n1, n2
                    continue
                m = min(n1, n2)
                common[i] = m
                if n1 > m:
                    ra[i] = n1 - m
                if n2 > m:
                    rb[i] = n2 - m
                continue
            mine, other, n = (ra, rb, a[i]) if i in a else (rb, ra, b[i])
            if n > 0:
                mine[i] = n
            elif n == 0:
                if not self.nonzero(i):
                    mine[i] = 0
            elif self.nonzero(i):
                common[i] = n
                other[i] = -n
            else:
                mine[i] = n
        return common, ra, rb

    def pretty(self, ty: str, nf: _NF) -> Term:
        """``evalPretty``: numerator over denominator, atoms in their order, left-nested products."""
        num: list[tuple[int, int]] = []
        den: list[tuple[int, int]] = []
        for i in sorted(nf):
            c = nf[i]
            if c > 0:
                num.append((i, c))
            elif c == 0:
                num.append((i, 1))
                den.append((i, 1))
            else:
                den.append((i, -c))
        top = self._product(ty, num)
        if not den:
            return top
        self.rebuilt = True
        return ("/", ty, top, self._product(ty, den))

    def _product(self, ty: str, powers: list[tuple[int, int]]) -> Term:
        out: Term | None = None
        for i, c in powers:
            m = self.atoms[i]
            if c != 1:
                self.rebuilt = True
                m = ("^", ty, m, ("num", "ℕ", c))
            if out is None:
                out = m
            else:
                self.rebuilt = True
                out = ("*", ty, out, m)
        return ("num", ty, 1) if out is None else out

    def signed(self, ty: str, negative: bool, e: Term) -> Term:
        """``Sign.expr``: ``-e`` is written anew (the record's ``P (0 - (0 + -x))`` counts as a change)."""
        if not negative:
            return e
        self.rebuilt = True
        return ("neg", ty, e)

    def reduce_expr(self, x: Term) -> Term:
        """``reduceExprQ``: the normal form of ``x``, exponent-zero atoms proved non-zero dropped."""
        s, nf = self.normalize(x, x[1])
        nf = {i: c for i, c in nf.items() if c != 0 or not self.nonzero(i)}
        return self.signed(x[1], s, self.pretty(x[1], nf))

    def reduce_eq(self, t: Term) -> Term:
        """``reduceEqQ``: ``a = b`` with the common non-zero factor of its sides cancelled."""
        ty = t[1]
        s1, a = self.normalize(t[2], ty)
        s2, b = self.normalize(t[3], ty)
        _, a2, b2 = self.gcd(a, b, nonzero=True)
        return ("=", ty, self.signed(ty, s1, self.pretty(ty, a2)), self.signed(ty, s2, self.pretty(ty, b2)))

    def recurse(self, t: Term) -> Term:
        """``AtomM.recurse``: equations and field expressions normalised where met, top-down."""
        self.ctx.tick(1)
        h = t[0]
        if h == "=" and t[1] in _FIELDS:
            return self.reduce_eq(t)
        if h in _ARITH and t[1] in _FIELDS:
            return self.reduce_expr(t)
        return self.recurse_children(t)

    def recurse_children(self, t: Term) -> Term:
        h = t[0]
        if h == "app":
            return ("app", t[1], tuple(self.recurse(a) for a in t[2]))
        if h in ("=", "≠", "<", "≤", ">", "≥", "+", "-", "*", "/", "^", "%", "∣"):
            return (h, t[1], self.recurse(t[2]), self.recurse(t[3]))
        if h in ("neg", "inv", "abs"):
            return (h, t[1], self.recurse(t[2]))
        if h == "cast":
            return ("cast", t[1], t[2], self.recurse(t[3]))
        if h in ("∧", "∨", "→", "↔"):
            return (h, self.recurse(t[1]), self.recurse(t[2]))
        if h == "¬":
            return ("¬", self.recurse(t[1]))
        return t  # binders and leaves: not entered (weaker than Lean's, which works under binders)


def _combine(a: _NF, b: _NF, sign: int) -> _NF:
    out = dict(a)
    for i, c in b.items():
        out[i] = out.get(i, 0) + sign * c
    return out


def _cleanup(t: Term) -> Term:
    """``simp only []`` after the rewriting: ``a = a`` and ``p ↔ p`` are ``True`` (``eq_self``, ``iff_self``)."""
    h = t[0]
    if h in ("∧", "∨", "→", "↔"):
        a, b = _cleanup(t[1]), _cleanup(t[2])
        if h == "↔" and a == b:
            return TRUE
        return (h, a, b)
    if h == "¬":
        return ("¬", _cleanup(t[1]))
    if h == "=" and t[2] == t[3]:
        return TRUE
    return t


def _split_discharger(syn: TacSyntax) -> tuple[TacSyntax, str | None]:
    """``field_simp (discharger := tac) …`` → the call without that part, and ``tac``'s text."""
    toks = syn.toks
    if len(toks) > 3 and toks[1].text == "(" and toks[2].text == "discharger" and toks[3].text == ":=":
        depth = 0
        for j in range(1, len(toks)):
            if toks[j].text == "(":
                depth += 1
            elif toks[j].text == ")":
                depth -= 1
                if depth == 0:
                    text = syn.src.text[toks[3].end : toks[j].start].strip()
                    rest = (toks[0], *toks[j + 1 :])
                    return TacSyntax(syn.name, rest, syn.src, syn.start, syn.end), text
        raise TacticError("unexpected end of input; expected ')'", syn.end, syn.end)
    return syn, None


@builtin("field_simp")
def _field_simp(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    bare, discharger = _split_discharger(syn)
    only, args, locs, _, _ = parse_simp_args(bare)
    if only:
        raise TacticError("unexpected token 'only'")
    if discharger is not None and args:
        ctx.messages.append(
            LogMessage(
                "warning",
                "Custom `field_simp` dischargers do not make use of the `field_simp` arguments list",
                syn.start,
                syn.end,
            )
        )
    fs = _FieldSimp(goal, ctx, args, discharger)
    ctx.use_standard_axioms()
    start = goal
    changed = False
    if _location_has_target(locs):
        t = goal.target
        if is_prop_type(t):
            fs.rebuilt = False
            new = _cleanup(fs.recurse(t))
            if new != t or fs.rebuilt:
                changed = True
                if new == TRUE:
                    return close(goal, Rewrote("field_simp", new), ctx)
                goal = goal.with_target(new)
    names = _location_hyps(goal, locs)
    for n in names:
        p = goal.hyp(n)
        if p is None:
            raise TacticError(f"unknown hypothesis '{n}'")
        fs.rebuilt = False
        new = _cleanup(fs.recurse(p))
        if new != p or fs.rebuilt:
            changed = True
            if new == FALSE:
                return close_from(start, goal, Rewrote("field_simp", new, goal.find(n)), ctx)
            goal = goal.replace_hyp(n, new)
    if not changed:
        raise TacticError("field_simp made no progress on goal")
    return [goal]
