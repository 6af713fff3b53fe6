"""Arithmetic tactics: ring, ring_nf, linarith, nlinarith, positivity, omega, decide, native_decide, rfl,
interval_cases, field_simp, abel, gcongr, bound, norm_cast and friends.

The term → polynomial conversion lives here and is where soundness is decided:

* ``+ - *`` are exact over ℤ, ℚ, ℝ; over ℕ, ``+`` and ``*`` are exact and ``a - b`` (truncated) is an
  opaque atom that is ``≥ 0`` (``omega`` also gets its two cases, ``b ≤ a ∧ s = a - b`` or ``a < b ∧ s = 0``);
* ``/`` over ℚ/ℝ is ``a * b⁻¹`` where ``b⁻¹`` is exact for a numeral (``x / 0 = 0``) and an atom otherwise
  (``(a*b)⁻¹ = a⁻¹ * b⁻¹`` holds in fields with ``0⁻¹ = 0``); over ℕ/ℤ ``/`` and ``%`` are floor/Euclidean
  and become atoms (``omega`` gets their defining facts when the divisor is a numeral);
* ``^`` with a numeral exponent is exact, otherwise an atom; ``|a|`` and function applications are atoms;
* ``↑a`` is pushed through ``+ *`` and numerals (``push_cast``), and ``↑(a - b)`` from ℤ; other casts are
  atoms, non-negative when they come from ℕ.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any
from typing import cast as cast_domain

from lean_gym.sim.arith import (
    ArithBudgetExceeded,
    Constraint,
    Domain,
    Poly,
    binop,
    div_mod_constraints,
    dvd_constraints,
    nat_sub_cases,
    not_dvd_constraints,
)
from lean_gym.sim.arith import linarith as _linarith
from lean_gym.sim.arith import nlinarith as _nlinarith
from lean_gym.sim.arith import omega as _omega
from lean_gym.sim.arith.errors import WorkBudget
from lean_gym.sim.evaluate import _bound_of, decide_closed, eval_term, rfl_closes
from lean_gym.sim.goals import Goal
from lean_gym.sim.proofs import ProofChecker
from lean_gym.sim.syntax import parse_term
from lean_gym.sim.tactics import TacSyntax, TacticContext, TacticError, builtin
from lean_gym.sim.terms import FALSE, TRUE, Term, mk_num, new_fvar, pretty, subst, user_name
from lean_gym.sim.unify import canon

__all__ = ["Conv", "decide_closed", "eval_term", "poly_to_term", "rfl_closes", "to_constraint"]

DOMAIN = {"ℕ": "Nat", "ℤ": "Int", "ℚ": "Rat", "ℝ": "Real"}


def _dom(ty: str) -> Domain:
    return cast_domain(Domain, DOMAIN[ty])


MAX_POW = 64


class Conv:
    """Converts terms of one type to :class:`Poly`, remembering facts about the atoms it creates.

    Args:
        ty: The type (``ℕ ℤ ℚ ℝ``) of the terms.
        mode: ``ring`` (atoms only), ``linarith`` (plus non-negativity of ℕ-valued atoms) or ``omega``
            (plus the defining facts of truncated subtraction, ``/`` and ``%`` by numerals).
    """

    def __init__(self, ty: str, mode: str = "ring", ctx: TacticContext | None = None) -> None:
        self.ty = ty
        self.mode = mode
        self.ctx = ctx
        self.nat_atoms: set[Any] = set()
        self.facts: list[Constraint] = []
        self.disjunctions: list[tuple[tuple[Constraint, ...], ...]] = []
        self._seen: set[Term] = set()
        # Lean's omega reads ground numerals only (``groundInt?``): it never unfolds a definition
        self._unfold = mode != "omega"

    def atom(self, t: Term, nat: bool) -> Poly:
        if nat:
            self.nat_atoms.add(t)
        return Poly.var(t)

    def poly(self, t: Term) -> Poly:
        if self.ctx is not None:
            self.ctx.tick(1)
        h = t[0]
        ty = self.ty
        nat = ty == "ℕ"
        if h == "num":
            return Poly.const(Fraction(t[2]))
        if h in ("+", "*"):
            a, b = self.poly(t[2]), self.poly(t[3])
            if h == "+":
                return a + b
            if self.mode == "omega" and not (a.is_const() or b.is_const()):
                return self.atom(t, nat)  # omega's `x * y` with neither side constant is an atom
            return a * b
        if h == "-":
            if not nat:
                return self.poly(t[2]) - self.poly(t[3])
            a, b = self.poly(t[2]), self.poly(t[3])
            if b.is_const() and b.const_value() == 0:
                return a
            if a.is_const() and b.is_const():
                return Poly.const(max(a.const_value() - b.const_value(), Fraction(0)))
            s = self.atom(t, True)
            if self.mode == "omega" and t not in self._seen:
                self._seen.add(t)
                self.disjunctions.append(nat_sub_cases(a, b, t))
            return s
        if h == "neg":
            return -self.poly(t[2])
        if h == "^":
            if self.mode == "omega":
                return self._omega_pow(t, nat)
            n = eval_term(t[3], self.ctx)
            if n is not None and 0 <= n <= MAX_POW:
                return self.poly(t[2]) ** int(n)
            if n is None and self.mode == "ring":
                # x ^ (e + c) = x ^ e * x ^ c (Mathlib's `ring` normalises exponents; linarith/omega do not)
                e = Conv("ℕ", "ring", self.ctx).poly(t[3])
                c = e.coeff(())
                rest = e - c
                if c > 0 and c.denominator == 1 and c <= MAX_POW and not rest.is_zero():
                    head = ("^", t[1], t[2], poly_to_term(rest, "ℕ"))
                    return self.atom(head, nat) * self.poly(t[2]) ** int(c)
                if not rest.is_zero():
                    return self.atom(("^", t[1], t[2], poly_to_term(rest, "ℕ")), nat)
            return self.atom(t, nat)
        if h == "/":
            if ty in ("ℚ", "ℝ"):
                return self.poly(t[2]) * self.inv(t[3])
            return self._divmod(t, nat)
        if h == "%":
            return self._divmod(t, nat)
        if h == "cast":
            return self.cast(t)
        if h == "inv":
            return self.inv(t[2])
        if h == "abs":
            return self.atom(t, False)  # Lean's linarith knows nothing about |a| (it needs abs_nonneg)
        if h == "app" and t[1] == ("const", "Nat.factorial"):
            v = eval_term(t, self.ctx)
            if v is not None:
                return Poly.const(Fraction(v))
        if h == "const" and self.ctx is not None:
            d = self.ctx.lookup(t[1])
            if (
                d is not None
                and d.kind == "def"
                and d.value is not None
                and not d.binders
                and self.mode == "unfold"
            ):
                return self.poly(d.value)
        return self.atom(t, nat)

    def _omega_pow(self, t: Term, nat: bool) -> Poly:
        """Lean's omega on ``b ^ k``: ground values evaluate, ``b ^ (k + 1)`` with a ground base ``b`` is
        ``b * b ^ k`` (``Int.pow_succ``), and anything else is an atom (``x ^ 2`` included)."""
        v = eval_term(t, self.ctx, False)
        if v is not None:
            return Poly.const(Fraction(v))
        base, e = t[2], t[3]
        bv = eval_term(base, self.ctx, False)
        if bv is not None and e[0] == "+" and e[3] == ("num", "ℕ", 1):
            return self._omega_pow(("^", t[1], base, e[2]), nat) * Fraction(bv)
        if bv is not None and e[0] == "app" and e[1] == ("const", "Nat.succ") and len(e[2]) == 1:
            return self._omega_pow(("^", t[1], base, e[2][0]), nat) * Fraction(bv)
        return self.atom(t, nat)

    def _divmod(self, t: Term, nat: bool) -> Poly:
        a, b = t[2], t[3]
        bv = eval_term(b, self.ctx, self._unfold)
        av = eval_term(a, self.ctx, self._unfold)
        if av is not None and bv is not None:
            v = binop(t[0], av, bv, _dom(self.ty))
            return Poly.const(Fraction(v))
        if bv == 1 and t[0] == "/":
            return self.poly(a)
        p = self.atom(t, nat)
        if self.mode == "omega" and bv is not None and t not in self._seen:
            self._seen.add(t)
            q_atom = ("/", t[1], a, b)
            r_atom = ("%", t[1], a, b)
            self.facts.extend(div_mod_constraints(self.poly(a), int(bv), q_atom, r_atom))
            self._seen.add(q_atom)
            self._seen.add(r_atom)
            if nat:
                self.nat_atoms.update((q_atom, r_atom))
        return p

    def inv(self, d: Term) -> Poly:
        v = eval_term(d, self.ctx)
        if v is not None:
            return Poly.const(Fraction(0) if v == 0 else 1 / Fraction(v))
        h = d[0]
        if h == "*":
            return self.inv(d[2]) * self.inv(d[3])
        if h == "^":
            n = eval_term(d[3], self.ctx)
            if n is not None and 0 <= n <= MAX_POW:
                return self.inv(d[2]) ** int(n)
        if h == "/":
            return self.poly(d[3]) * self.inv(d[2])
        if h == "neg":
            return -self.inv(d[2])
        if h == "inv":
            return self.poly(d[2])  # (a⁻¹)⁻¹ = a in a field (with 0⁻¹ = 0)
        return Poly.var(("inv", d))

    def cast(self, t: Term) -> Poly:
        _, to, frm, a = t
        h = a[0]
        if h == "num":
            return Poly.const(Fraction(a[2]))
        if h in ("+", "*") or (h == "-" and frm != "ℕ") or h == "neg":
            if h == "neg":
                return -self.cast(("cast", to, frm, a[2]))
            lhs = self.cast(("cast", to, frm, a[2]))
            rhs = self.cast(("cast", to, frm, a[3]))
            if h == "*" and self.mode == "omega" and not (lhs.is_const() or rhs.is_const()):
                # ↑(a * b) = ↑a * ↑b (Int.ofNat_mul), an atom with `0 ≤ ↑a * ↑b` (Int.ofNat_mul_nonneg)
                prod = ("*", to, ("cast", to, frm, a[2]), ("cast", to, frm, a[3]))
                return self.atom(prod, frm == "ℕ")
            return lhs + rhs if h == "+" else lhs * rhs if h == "*" else lhs - rhs
        if self.mode == "omega" and frm == "ℕ" and to == "ℤ":
            if h == "^":
                if eval_term(a[2], self.ctx, False) is not None:  # Int.ofNat_pow for a ground base
                    return self._omega_pow(("^", to, ("cast", to, frm, a[2]), a[3]), False)
                return self.atom(t, True)
            if h == "-" and t not in self._seen:
                # ↑(a - b): b ≤ a ∧ ↑(a - b) = ↑a - ↑b, or a < b ∧ ↑(a - b) = 0 (omega's ℕ-subtraction facts)
                self._seen.add(t)
                ca, cb = self.cast(("cast", to, frm, a[2])), self.cast(("cast", to, frm, a[3]))
                self.disjunctions.append(nat_sub_cases(ca, cb, t))
                return self.atom(t, True)
        if h == "^":
            n = eval_term(a[3], self.ctx)
            if n is not None and 0 <= n <= MAX_POW:
                return self.cast(("cast", to, frm, a[2])) ** int(n)
        if h == "cast":
            return self.cast(("cast", to, a[2], a[3]))
        v = eval_term(a, self.ctx, self._unfold)
        if v is not None:
            return Poly.const(Fraction(v))
        return self.atom(t, frm == "ℕ")


def to_constraint(rel: Term, conv: Conv) -> Constraint | None:
    """``a R b`` (R in ``< ≤ > ≥ = ≠``) at ``conv``'s type as a constraint, else ``None``."""
    h = rel[0]
    if h not in ("<", "≤", ">", "≥", "=", "≠") or rel[1] != conv.ty:
        return None
    a, b = conv.poly(rel[2]), conv.poly(rel[3])
    return Constraint.compare(a, h, b)


def _neg_rel(p: Term) -> Term | None:
    """``¬(a < b)`` → ``b ≤ a`` and friends (Lean's linarith preprocessing), else ``None``."""
    if p[0] != "¬":
        return None
    q = p[1]
    h = q[0]
    flip = {"<": "≥", "≤": ">", ">": "≤", "≥": "<", "=": "≠", "≠": "="}
    if h in flip:
        return (flip[h], q[1], q[2], q[3])
    return None


def hyp_constraints(props: Iterable[Term], conv: Conv, split_and: bool = False) -> list[Constraint]:
    out: list[Constraint] = []
    for p in props:
        q = _neg_rel(p) or p
        if split_and and q[0] == "∧":
            out.extend(hyp_constraints([q[1], q[2]], conv, True))
            continue
        c = to_constraint(q, conv)
        if c is not None:
            out.append(c)
    return out


# ---------------------------------------------------------------------------------------- utilities


def poly_to_term(p: Poly, ty: str) -> Term:
    """A term for polynomial ``p`` at type ``ty`` (atoms are the terms they came from)."""
    items = sorted(p.terms().items(), key=lambda mc: _mono_key(mc[0]))
    out: Term | None = None
    for m, c in items:
        c = Fraction(c)
        neg = c < 0
        a = -c if neg else c
        factors: list[Term] = []
        for atom, e in m:
            base = _atom_term(atom, ty)
            factors.append(base if e == 1 else ("^", ty, base, mk_num("ℕ", e)))
        mono: Term | None = None
        for f in factors:
            mono = f if mono is None else ("*", ty, mono, f)
        if mono is None:
            mono = mk_num(ty, a)
        elif a != 1:
            mono = ("*", ty, mono, mk_num(ty, a))
        if out is None:
            out = ("neg", ty, mono) if neg else mono
        else:
            out = ("-" if neg else "+", ty, out, mono)
    return out if out is not None else ("num", ty, 0)


def _mono_key(m: Any) -> tuple:
    from lean_gym.sim.arith.poly import monomial_degree

    return (monomial_degree(m), [repr(a) for a, _ in m])


def _atom_term(atom: Any, ty: str) -> Term:
    if isinstance(atom, tuple) and atom and atom[0] == "inv":
        return ("/", ty, ("num", ty, 1), atom[1])
    return atom


def _goal_type(goal: Goal) -> str | None:
    t = goal.target
    q = _neg_rel(t) or t
    if q[0] in ("<", "≤", ">", "≥", "=", "≠") and q[1] in DOMAIN:
        return q[1]
    return None


def _extra_facts(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Term]:
    """The ``[t₁, t₂]`` terms after linarith/nlinarith/positivity, as propositions."""
    ts = syn.stream(1)
    while ts.tok.kind == "sym" and ts.tok.text == "!":
        ts.advance()
    facts: list[Term] = []
    if ts.is_sym("["):
        ts.advance()
        if not ts.is_sym("]"):
            while True:
                term = parse_term(ts, 0)
                facts.append(ProofChecker(goal, ctx).infer(term))
                if ts.is_sym(","):
                    ts.advance()
                    continue
                break
        ts.expect_sym("]")
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    return facts


def _linarith_failed(goal: Goal, neg: Term | None) -> str:
    g = goal
    if neg is not None:
        g = goal.add_hyp("a✝", neg)
    g = g.with_target(FALSE)
    body = g.pretty()
    return (
        "linarith failed to find a contradiction\n"
        + ("case a\n" if neg is not None else "")
        + body
        + " failed"
    )


def _squares(terms: Iterable[Term], conv: Conv) -> list[Poly]:
    """Syntactic squares ``t ^ 2`` and ``t * t`` (Mathlib's nlinarith preprocessing)."""
    out: list[Poly] = []
    seen: set[Term] = set()
    stack = list(terms)
    while stack:
        u = stack.pop()
        h = u[0]
        if (h == "^" and u[3][0] == "num" and u[3][2] == 2 and u[1] == conv.ty) or (
            h == "*" and u[2] == u[3] and u[1] == conv.ty
        ):
            if u[2] not in seen:
                seen.add(u[2])
                out.append(conv.poly(u[2]))
        if h == "app":
            stack.extend(u[2])
        else:
            stack.extend(c for c in u[1:] if type(c) is tuple)
    return out


def _arith_run(goal: Goal, syn: TacSyntax, ctx: TacticContext, nonlinear: bool) -> list[Goal]:
    extra = _extra_facts(goal, syn, ctx)
    target = goal.target
    tgt = _neg_rel(target) or target
    ty = _goal_type(goal)
    types: list[str]
    goal_rel: Term | None
    if ty is not None and tgt[0] != "≠":
        types = [ty]
        goal_rel = tgt
    else:
        goal_rel = None
        types = []
        for _, t in goal.props():
            q = _neg_rel(t) or t
            if q[0] in ("<", "≤", ">", "≥", "=") and q[1] in DOMAIN and q[1] not in types:
                types.append(q[1])
        for q in extra:
            if q[0] in ("<", "≤", ">", "≥", "=") and q[1] in DOMAIN and q[1] not in types:
                types.append(q[1])
    neg_shown = None
    if goal_rel is not None:
        neg_shown = _negate_for_display(goal_rel)
    ctx.use_standard_axioms()
    for tname in types:
        conv = Conv(tname, "linarith", ctx)
        hyps = hyp_constraints([p for _, p in goal.props()], conv)
        ex = hyp_constraints(extra, conv)
        gc = to_constraint(goal_rel, conv) if goal_rel is not None else None
        integer = tname in ("ℕ", "ℤ")
        nonneg = conv.nat_atoms
        ctx.tick(50 + 10 * (len(hyps) + len(ex)) ** 2)
        sized = ctx.search_budget(100, 20_000, 5)
        budget = sized.value
        meter = WorkBudget(budget * 3 if nonlinear else budget)
        try:
            if nonlinear:
                all_terms = (
                    [p for _, p in goal.props()] + extra + ([goal_rel] if goal_rel is not None else [])
                )
                sq = _squares(all_terms, conv)
                ok = _nlinarith(
                    hyps,
                    gc,
                    extra_terms=ex,
                    squares=sq,
                    integer=integer,
                    nonneg_atoms=nonneg,
                    budget=meter,
                )
            else:
                ok = _linarith([*ex, *hyps], gc, integer=integer, nonneg_atoms=nonneg, budget=meter)
        except ArithBudgetExceeded:
            ok = False
            ctx.tick(budget * 5)
        finally:
            sized.settle(meter, 3 if nonlinear else 1)
        if ok:
            return []
    raise TacticError(lambda: _linarith_failed(goal, neg_shown))


def _negate_for_display(rel: Term) -> Term:
    h = rel[0]
    flip = {"<": "≥", "≤": ">", "=": "≠", ">": "≤", "≥": "<"}
    if h in flip:
        return (flip[h], rel[1], rel[2], rel[3])
    return ("¬", rel)


@builtin("linarith", "linarith!")
def _linarith_tac(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    return _arith_run(goal, syn, ctx, nonlinear=False)


@builtin("nlinarith", "nlinarith!")
def _nlinarith_tac(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    return _arith_run(goal, syn, ctx, nonlinear=True)


# ----------------------------------------------------------------------------------------------- ring


def ring_equal(a: Term, b: Term, ty: str, ctx: TacticContext) -> bool:
    conv = Conv(ty, "ring", ctx)
    try:
        return conv.poly(a) == conv.poly(b)
    except ArithBudgetExceeded:
        return False


@builtin("ring", "ring1", "ring!")
def _ring(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    if t[0] == "=" and t[1] in DOMAIN:
        ctx.tick(30)
        if ring_equal(t[2], t[3], t[1], ctx):
            if t[1] in ("ℚ", "ℝ"):
                ctx.use_standard_axioms()
            return []
    if syn.name == "ring1":
        raise TacticError(
            "ring failed: not an equality of commutative (semi)ring expressions"
            if t[0] != "="
            else "ring failed"
        )
    # Mathlib's `ring` falls back to `ring_nf` and leaves its goal (with a "Try this: ring_nf" note)
    try:
        new = _ring_nf_goal(goal, None, ctx)
    except TacticError as e:
        raise TacticError("ring failed, ring_nf subsidiary goal: " + e.message) from e
    from lean_gym.sim.tactics import LogMessage

    ctx.messages.append(LogMessage("info", "Try this: ring_nf", syn.start, syn.end))
    return new


def _normalize_rel(t: Term, ctx: TacticContext) -> Term:
    h = t[0]
    if h in ("=", "≠", "<", "≤", ">", "≥") and t[1] in DOMAIN:
        conv = Conv(t[1], "ring", ctx)
        a, b = conv.poly(t[2]), conv.poly(t[3])
        if h in ("=", "≠") and a == b:
            return TRUE if h == "=" else FALSE
        return (h, t[1], poly_to_term(a, t[1]), poly_to_term(b, t[1]))
    if h in ("∧", "∨", "→", "↔"):
        return (h, _normalize_rel(t[1], ctx), _normalize_rel(t[2], ctx))
    if h == "¬":
        return ("¬", _normalize_rel(t[1], ctx))
    return t


def _ring_nf_goal(goal: Goal, where: list[str] | None, ctx: TacticContext) -> list[Goal]:
    changed = False
    if where is None or "⊢" in where:
        new_t = _normalize_rel(goal.target, ctx)
        if new_t == TRUE:
            return []
        if canon(new_t) != canon(goal.target):
            changed = True
            goal = goal.with_target(new_t)
    for name in where or []:
        if name == "⊢":
            continue
        ty = goal.hyp(name)
        if ty is None:
            raise TacticError(f"unknown hypothesis '{name}'")
        nt = _normalize_rel(ty, ctx)
        if nt == FALSE:
            return []
        if canon(nt) != canon(ty):
            changed = True
            goal = goal.replace_hyp(name, nt)
    if not changed:
        raise TacticError("ring_nf failed")
    return [goal]


@builtin("ring_nf", "ring_nf!")
def _ring_nf(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    from lean_gym.sim.tactics import _parse_location

    ts = syn.stream(1)
    locs = _parse_location(ts)
    if locs == ["*"]:
        locs = [n for n, t in goal.props()] + ["⊢"]
    return _ring_nf_goal(goal, locs, ctx)


@builtin("abel", "abel1", "abel!", "abel_nf")
def _abel(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    if t[0] == "=" and t[1] in ("ℤ", "ℚ", "ℝ", "ℕ"):
        conv = Conv(t[1], "ring", ctx)
        a, b = _abel_poly(t[2], conv), _abel_poly(t[3], conv)
        if a == b:
            return []
    raise TacticError("abel failed to prove the goal" if syn.name != "abel_nf" else "abel_nf failed")


def _abel_poly(t: Term, conv: Conv) -> Poly:
    """Additive normal form: products are atoms unless one side is a numeral."""
    h = t[0]
    if h in ("+", "-") and (h == "+" or conv.ty != "ℕ"):
        a, b = _abel_poly(t[2], conv), _abel_poly(t[3], conv)
        return a + b if h == "+" else a - b
    if h == "neg":
        return -_abel_poly(t[2], conv)
    if h == "*":
        for x, y in ((t[2], t[3]), (t[3], t[2])):
            v = eval_term(x)
            if v is not None and isinstance(v, int):
                return _abel_poly(y, conv) * v
        return Poly.var(t)
    if h == "num":
        return Poly.const(Fraction(t[2]))
    return Poly.var(t)


# ----------------------------------------------------------------------------------------- positivity


def _sign(e: Term, goal: Goal, ctx: TacticContext, depth: int = 0) -> str | None:
    """``pos``, ``nonneg``, ``nonzero`` or ``None`` for ``e`` by Mathlib's positivity rules."""
    ctx.tick(1)
    if depth > 40:
        return None
    h = e[0]
    ty = e[1] if h not in ("var", "fvar", "const", "app") else None
    v = eval_term(e, ctx, unfold=False)
    if v is not None:
        return "pos" if v > 0 else "nonneg" if v == 0 else "nonzero"
    if h in ("+",):
        a, b = _sign(e[2], goal, ctx, depth + 1), _sign(e[3], goal, ctx, depth + 1)
        if a in ("pos", "nonneg") and b in ("pos", "nonneg"):
            return "pos" if "pos" in (a, b) else "nonneg"
        return _from_hyps(e, goal)
    if h == "*" or (h == "/" and ty in ("ℚ", "ℝ")):
        a, b = _sign(e[2], goal, ctx, depth + 1), _sign(e[3], goal, ctx, depth + 1)
        if a == "pos" and b == "pos":
            return "pos"
        if a in ("pos", "nonneg") and b in ("pos", "nonneg"):
            return "nonneg"
        if a in ("pos", "nonzero") and b in ("pos", "nonzero"):
            return "nonzero"
        return _from_hyps(e, goal)
    if h in ("/", "%", "-") and ty == "ℕ":
        if h == "/":
            return "nonneg"
        return "nonneg"
    if h == "^":
        a = _sign(e[2], goal, ctx, depth + 1)
        n = eval_term(e[3], ctx)
        if a == "pos":
            return "pos"
        if n is not None and n == 0:
            return "pos"
        if n is not None and n % 2 == 0:
            return "pos" if a == "nonzero" else "nonneg"
        if a == "nonneg":
            return "nonneg"
        if a == "nonzero":
            return "nonzero"
        return _from_hyps(e, goal)
    if h == "abs":
        a = _sign(e[2], goal, ctx, depth + 1)
        return "pos" if a in ("pos", "nonzero") else "nonneg"
    if h == "inv":
        a = _sign(e[2], goal, ctx, depth + 1)
        return a if a is not None else _from_hyps(e, goal)
    if h == "cast":
        a = _sign(e[3], goal, ctx, depth + 1)
        if e[2] == "ℕ":
            return a if a in ("pos",) else "nonneg" if a is None or a == "nonneg" else a
        return a
    if h == "app" and e[1] == ("const", "Nat.factorial"):
        return "pos"
    if h == "app" and e[1] == ("const", "Nat.succ"):
        return "pos"
    r = _from_hyps(e, goal)
    if r is None and _type_of(e, goal) == "ℕ":
        return "nonneg"
    return r


def _type_of(e: Term, goal: Goal) -> str | None:
    if e[0] == "fvar":
        t = goal.hyp(e[1])
        return t[1] if t is not None and t[0] == "type" else None
    if e[0] in ("num", "+", "-", "*", "/", "%", "^", "neg", "abs", "cast", "inv"):
        return e[1]
    return None


def _from_hyps(e: Term, goal: Goal) -> str | None:
    """``compareHyp``: hypotheses ``0 < e``, ``0 ≤ e``, ``e ≠ 0`` (or with a non-negative numeral bound)."""
    best: str | None = None
    for _, p in goal.props():
        h = p[0]
        if h in (">", "≥"):
            p = ("<" if h == ">" else "≤", p[1], p[3], p[2])
            h = p[0]
        if h in ("<", "≤") and p[3] == e:
            lo = eval_term(p[2])
            if lo is None:
                continue
            if lo > 0 or (lo == 0 and h == "<"):
                return "pos"
            if lo == 0:
                best = "nonneg"
        elif h == "≠" and ((p[2] == e and eval_term(p[3]) == 0) or (p[3] == e and eval_term(p[2]) == 0)):
            best = best or "nonzero"
    return best


@builtin("positivity")
def _positivity(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    h = t[0]
    want = None
    e = None
    if h in ("<", "≤") and eval_term(t[2]) == 0:
        want, e = ("pos" if h == "<" else "nonneg"), t[3]
    elif h in (">", "≥") and eval_term(t[3]) == 0:
        want, e = ("pos" if h == ">" else "nonneg"), t[2]
    elif h == "≠" and eval_term(t[3]) == 0:
        want, e = "nonzero", t[2]
    if e is None:
        raise TacticError("not a positivity goal")
    s = _sign(e, goal, ctx)
    ok = (
        (want == "pos" and s == "pos")
        or (want == "nonneg" and s in ("pos", "nonneg"))
        or (want == "nonzero" and s in ("pos", "nonzero"))
    )
    if ok:
        ctx.use_standard_axioms()
        return []
    what = {"pos": "positive", "nonneg": "nonnegative", "nonzero": "nonzero"}.get(want or "", "positive")
    raise TacticError(
        lambda: f"failed to prove positivity: could not show that `{pretty(e, goal.ascii)}` is {what}"
    )


# ---------------------------------------------------------------------------------------------- omega


_DNF_CAP = 64
"""At most this many alternatives per fact; a larger one is dropped (weaker, never stronger)."""

_Dnf = list[list[Constraint]]


def _omega_fact(p: Term, conv: Conv) -> tuple[_Dnf, int] | None:
    """Lean's ``omega`` reading a hypothesis ``p`` (``MetaProblem.addFact``): its constraints as a DNF, and
    the number of facts Lean counts for it (``0``: omega found nothing usable in it).

    As Lean's frontend does: relations over ℕ/ℤ, ``∧``, ``∃`` (its witness becomes an atom), ``↔`` (as
    ``p ∧ q ∨ ¬p ∧ ¬q``), ``→`` between propositions (as ``¬p ∨ q``), ``∨`` and ``¬`` pushed inward
    (:func:`_omega_not`). ``True``, ``False``, ``∀`` and anything else contribute nothing (Lean's omega
    does not even use a ``False`` hypothesis). A disjunction counts as one fact; when splitting it, Lean
    skips it if its left side yields no fact, so such a disjunction contributes nothing here either.
    ``None`` when the DNF grows past :data:`_DNF_CAP`.
    """
    h = p[0]
    if h in ("<", "≤", ">", "≥", "=", "≠", "∣"):
        q = _cast_nat_rels(p) if conv.ty == "ℤ" else p
        if q[1] != conv.ty:
            return [[]], 0
        if h == "≠":  # `Ne` unfolds (reducibly) to ¬(a = b)
            return _omega_not(("=", *q[1:]), conv)
        if h == "∣":
            k = eval_term(q[2], conv.ctx, False)
            if k is None:
                return [[]], 0
            return [list(dvd_constraints(int(k), conv.poly(q[3]), ("dvdq", q)))], 1
        c = to_constraint(q, conv)
        return ([[]], 0) if c is None else ([[c]], 1)
    if h == "∧":
        a = _omega_fact(p[1], conv)
        b = _omega_fact(p[2], conv)
        if a is None or b is None:
            return None
        out = [x + y for x in a[0] for y in b[0]]
        return (out, a[1] + b[1]) if len(out) <= _DNF_CAP else None
    if h == "∨":
        return _omega_or(p[1], p[2], conv)
    if h == "→":
        return _omega_or(("¬", p[1]), p[2], conv)
    if h == "↔":
        return _omega_or(("∧", p[1], p[2]), ("∧", ("¬", p[1]), ("¬", p[2])), conv)
    if h == "¬":
        return _omega_not(p[1], conv)
    if h == "∃" and p[2] in (("type", "ℕ"), ("type", "ℤ")):
        w = ("fvar", new_fvar(p[1]))  # Exists.choose_spec: the witness is a fresh atom
        return _omega_fact(subst(p[3], p[1], w), conv)
    return [[]], 0


def _omega_or(left: Term, right: Term, conv: Conv) -> tuple[_Dnf, int] | None:
    a = _omega_fact(left, conv)
    if a is None:
        return None
    if a[1] == 0:
        return [[]], 1  # splitDisjunction: "No new facts found" on the left, the disjunction is dropped
    b = _omega_fact(right, conv)
    if b is None:
        return None
    out = a[0] + b[0]
    return (out, 1) if len(out) <= _DNF_CAP else None


def _omega_not(p: Term, conv: Conv) -> tuple[_Dnf, int] | None:
    """Lean's omega ``pushNot``: the fact ``¬p`` it derives, read by :func:`_omega_fact`."""
    h = p[0]
    if h in ("<", "≤", ">", "≥"):
        flip = {"<": "≥", "≤": ">", ">": "≤", "≥": "<"}
        return _omega_fact((flip[h], *p[1:]), conv)
    if h == "=":  # lt_or_gt_of_ne
        return _omega_or(("<", *p[1:]), (">", *p[1:]), conv)
    if h == "≠":
        return _omega_fact(("=", *p[1:]), conv)
    if h == "∣":
        q = _cast_nat_rels(p) if conv.ty == "ℤ" else p
        k = eval_term(q[2], conv.ctx, False) if q[1] == conv.ty else None
        if k is None:
            return [[]], 0
        x = conv.poly(q[3])
        return [list(not_dvd_constraints(int(k), x, ("dvdq", q), ("dvdr", q)))], 1
    if h == "¬":
        return _omega_fact(p[1], conv)
    if h == "∧":
        return _omega_or(("¬", p[1]), ("¬", p[2]), conv)
    if h == "∨":
        return _omega_fact(("∧", ("¬", p[1]), ("¬", p[2])), conv)
    if h == "↔":
        return _omega_or(("∧", p[1], ("¬", p[2])), ("∧", ("¬", p[1]), p[2]), conv)
    if h == "→":
        return _omega_fact(("∧", p[1], ("¬", p[2])), conv)
    return [[]], 0


def _omega_goal_facts(t: Term) -> list[Term] | None:
    """The hypotheses Lean's ``falseOrByContra`` adds for target ``t`` (the goal becomes ``False``).

    ``¬p`` and ``p → q`` are introduced, ``False`` stays, any other proposition ``p`` becomes ``¬p``
    (by contradiction). ``None`` for a ``∀`` over data, which the simulator does not introduce here.
    """
    out: list[Term] = []
    while True:
        h = t[0]
        if t == FALSE:
            return out
        if h == "→":
            out.append(t[1])
            t = t[2]
        elif h == "¬":
            out.append(t[1])
            return out
        elif h == "≠":
            out.append(("=", *t[1:]))
            return out
        elif h == "∀":
            return None
        else:
            out.append(("¬", t))
            return out


@builtin("omega")
def _omega_tac(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    if len(syn.toks) > 1:
        raise TacticError(f"unexpected token '{syn.toks[1].text}'", syn.toks[1].start, syn.toks[1].end)
    goal_facts = _omega_goal_facts(goal.target)
    if goal_facts is None:
        raise TacticError(_omega_fail(goal, False))
    facts = [q for _, q in goal.props()] + goal_facts
    types: set[str] = set()
    for p in facts:
        _collect_types(p, types)
    types &= {"ℕ", "ℤ"}
    if not types:
        raise TacticError(_omega_fail(goal, True))
    ty = "ℤ" if "ℤ" in types else "ℕ"
    # ℕ facts are read as ℤ facts about ℕ-valued atoms (omega's own preprocessing)
    conv = Conv(ty, "omega", ctx)
    hyps: list[Constraint] = []
    disj: list[tuple[tuple[Constraint, ...], ...]] = []
    for p in facts:
        read = _omega_fact(p, conv)
        if read is None or read[1] == 0:
            continue
        lits = read[0]
        if len(lits) == 1:
            hyps.extend(lits[0])
        elif lits:
            disj.append(tuple(tuple(c) for c in lits))
        else:  # cannot happen: every DNF built above has an alternative
            raise TacticError(_omega_fail(goal, False))
    hyps.extend(conv.facts)
    disj.extend(conv.disjunctions)
    if not disj and not any(c.atoms() for c in hyps) and all(_const_holds(c) for c in hyps):
        raise TacticError(_omega_fail(goal, True))
    nat_atoms = set(conv.nat_atoms)
    if ty == "ℕ":
        nat_atoms |= _all_atoms(hyps, disj)
    ctx.tick(100 + 20 * len(hyps))
    sized = ctx.search_budget(100, 20_000, 5)
    meter = WorkBudget(sized.value)
    try:
        ok = _omega(hyps, None, nat_atoms=nat_atoms, disjunctions=disj, budget=meter)
    except ArithBudgetExceeded:
        ok = False
    finally:
        sized.settle(meter)
    if ok:
        ctx.use_axiom("propext")
        return []
    raise TacticError(_omega_fail(goal, False))


def _const_holds(c: Constraint) -> bool:
    """A constraint without atoms that holds (Lean's omega drops it: the problem stays empty)."""
    v = c.poly.const_value()
    return v == 0 if c.op == "=" else v < 0 if c.op == "<" else v <= 0 if c.op == "<=" else v != 0


def _all_atoms(hyps: list[Constraint], disj: list) -> set[Any]:
    out: set[Any] = set()
    for c in hyps:
        out |= set(c.atoms())
    for d in disj:
        for conj in d:
            for c in conj:
                out |= set(c.atoms())
    return out


def _as_type(p: Term, ty: str) -> list[Term]:
    """``p`` with ℕ relations read over ``ty`` (casts to ℤ) when ``ty`` is ℤ."""
    if ty == "ℕ":
        return [p]
    return [_cast_nat_rels(p)]


def _cast_nat_rels(p: Term) -> Term:
    h = p[0]
    if h in ("<", "≤", ">", "≥", "=", "≠", "∣") and p[1] == "ℕ":
        return (h, "ℤ", _cast_term(p[2]), _cast_term(p[3]))
    if h in ("∧", "∨", "→", "↔"):
        return (h, _cast_nat_rels(p[1]), _cast_nat_rels(p[2]))
    if h == "¬":
        return ("¬", _cast_nat_rels(p[1]))
    return p


def _cast_term(t: Term) -> Term:
    if t[0] == "num":
        return ("num", "ℤ", t[2])
    if t[0] == "+":
        return (t[0], "ℤ", _cast_term(t[2]), _cast_term(t[3]))
    return ("cast", "ℤ", "ℕ", t)


def _collect_types(p: Term, out: set[str]) -> None:
    h = p[0]
    if h in ("<", "≤", ">", "≥", "=", "≠", "∣"):
        out.add(p[1])
    elif h in ("∧", "∨", "→", "↔"):
        _collect_types(p[1], out)
        _collect_types(p[2], out)
    elif h == "¬":
        _collect_types(p[1], out)
    elif h == "∃":
        _collect_types(p[3], out)


def _omega_fail(goal: Goal, empty: bool) -> str:
    if empty:  # Lean's formatErrorMessage for a problem with no constraints
        return (
            "omega could not prove the goal:\nNo usable constraints found. You may need to unfold definitions "
            "so `omega` can see\nlinear arithmetic facts about `Nat` and `Int`, which may also involve "
            "multiplication,\ndivision, and modular remainder by constants."
        )
    return (
        "omega could not prove the goal:\na possible counterexample may satisfy the constraints\n"
        "  (the simulator does not print omega's counterexample)"
    )


# --------------------------------------------------------------------------------------------- decide


def _free_locals(p: Term, goal: Goal) -> bool:
    from lean_gym.sim.terms import free_vars

    names = free_vars(p)
    return any(goal.hyp(n) is not None for n in names)


def _free_variables_error(t: Term, goal: Goal) -> TacticError:
    """Lean's ``decide``/``native_decide`` refusal of a goal with free variables (v4.2x wording)."""
    return TacticError(
        f"Expected type must not contain free variables\n  {pretty(t, goal.ascii)}\n\n"
        "Hint: Use the `+revert` option to automatically cleanup and revert free variables."
    )


def _revert_all(goal: Goal) -> Term:
    """``decide +revert``'s target: ``cleanup`` (keep the locals the target needs and the hypotheses that
    mention them, transitively), then revert everything left, as Lean's ``evalDecideCore`` does."""
    from lean_gym.sim.terms import free_vars

    keep = {n for n, _ in goal.hyps if n in free_vars(goal.target)}
    changed = True
    while changed:
        changed = False
        for n, ty in goal.hyps:
            fv = free_vars(ty)
            if n not in keep and fv & keep:
                keep.add(n)
                keep |= {m for m, _ in goal.hyps if m in fv}
                changed = True
    t = goal.target
    for n, ty in reversed(goal.hyps):
        if n not in keep:
            continue
        if ty[0] == "type":
            x = user_name(n)
            t = ("∀", x, ty, subst(t, n, ("var", x)))  # capture-avoiding: inner binders are renamed
        else:
            t = ("→", ty, t)
    return t


def _has_revert(syn: TacSyntax) -> bool:
    from itertools import pairwise

    return any(a.text == "+" and b.text == "revert" for a, b in pairwise(syn.toks))


@builtin("decide")
def _decide(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    if _has_revert(syn):
        t = _revert_all(goal)
    elif _free_locals(t, goal):
        raise _free_variables_error(t, goal)
    r = decide_closed(t, ctx)
    if r is True:
        return []
    if r is False:
        raise TacticError(f"Tactic `decide` proved that the proposition\n  {pretty(t, goal.ascii)}\nis false")
    raise TacticError(
        f"Tactic `decide` failed for proposition\n  {pretty(t, goal.ascii)}\nsince its `Decidable` instance did not reduce to `isTrue` or `isFalse`."
    )


@builtin("native_decide")
def _native_decide(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    if _has_revert(syn):
        t = _revert_all(goal)
    elif _free_locals(t, goal):
        raise _free_variables_error(t, goal)
    r = decide_closed(t, ctx)
    if r is True:
        ctx.use_axiom("Lean.ofReduceBool")
        return []
    if r is False:
        raise TacticError(
            f"Tactic `native_decide` evaluated that the proposition\n  {pretty(t, goal.ascii)}\nis false"
        )
    raise TacticError(f"failed to synthesize\n  Decidable\n    ({pretty(t, goal.ascii)})")


@builtin("rfl", "eq_self_iff_true", "exact rfl", "ac_rfl")
def _rfl(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    if t[0] in ("=", "≤", "≥", "↔") and rfl_closes(t, ctx):
        return []
    if t[0] == "=":
        at = goal.ascii
        raise TacticError(
            f"Tactic `rfl` failed: The lhs\n  {pretty(t[2], at)}\nis not definitionally equal to the rhs\n  {pretty(t[3], at)}\n\n{goal.pretty()}"
        )
    raise TacticError(
        f"The rfl tactic failed. Possible reasons:\n- The goal is not a reflexive relation (neither `=` nor a relation with a @[refl] lemma).\n- The arguments of the relation are not equal.\nTry using the reflexivity lemma for your relation explicitly, e.g. `exact Eq.refl _` or\n`exact HEq.rfl` etc.\n\n{goal.pretty()}"
    )


# ------------------------------------------------------------------------------------ interval_cases


def _bounds_for(x: Term, goal: Goal, ty: str) -> tuple[int | None, int | None]:
    lo: int | None = 0 if ty == "ℕ" else None
    hi: int | None = None
    for _, p in goal.props():
        b = _bound_of(p, x) if p[0] in ("<", "≤", ">", "≥") and p[1] == ty else None
        if b is None:
            continue
        kind, val = b
        if kind == "hi":
            hi = val if hi is None else min(hi, val)
        else:
            lo = val if lo is None else max(lo, val)
    return lo, hi


@builtin("interval_cases")
def _interval_cases(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    if len(syn.toks) < 2 or syn.toks[1].kind != "ident":
        raise TacticError("interval_cases: the simulator needs a variable, `interval_cases x`")
    name = syn.toks[1].text
    ty_t = goal.hyp(name)
    if ty_t is None or ty_t[0] != "type" or ty_t[1] not in ("ℕ", "ℤ"):
        raise TacticError(f"interval_cases failed: `{name}` is not a natural number or integer variable")
    ty = ty_t[1]
    x = goal.var(name) or TRUE
    lo, hi = _bounds_for(x, goal, ty)
    if lo is None or hi is None:
        which = "lower" if lo is None else "upper"
        raise TacticError(f"interval_cases failed: could not find {which} bound on {name}")
    if hi - lo > 1000:
        raise TacticError("interval_cases failed: too many cases")
    out: list[Goal] = []
    for v in range(lo, hi):
        ctx.tick(10)
        val = mk_num(ty, v)
        fid = x[1]
        hyps = tuple((n, subst(t, fid, val)) for n, t in goal.hyps if n != fid)
        out.append(Goal(hyps, subst(goal.target, fid, val), None, goal.ascii))
    ctx.use_standard_axioms()
    return out


# ------------------------------------------------------------------------------------------- gcongr


def _gcongr_split(
    lhs: Term, rhs: Term, rel: str, goal: Goal, ctx: TacticContext, main: list[Term], side: list[Term]
) -> bool:
    """Decompose ``lhs rel rhs`` into main goals (differing parts) and side goals (non-negativity)."""
    ctx.tick(2)
    if lhs == rhs:
        return rel == "≤"  # `a < a` is false: equal sides only discharge a non-strict relation
    h = lhs[0]
    if h == rhs[0] and h in ("+", "*", "^", "/") and lhs[1] == rhs[1]:
        ty = lhs[1]
        if h == "+":
            if rel == "<":
                # a + c < b + d from a < b and c ≤ d (or the other way round)
                if lhs[3] == rhs[3]:
                    return _gcongr_split(lhs[2], rhs[2], "<", goal, ctx, main, side)
                if lhs[2] == rhs[2]:
                    return _gcongr_split(lhs[3], rhs[3], "<", goal, ctx, main, side)
                return _gcongr_split(lhs[2], rhs[2], "<", goal, ctx, main, side) and _gcongr_split(
                    lhs[3], rhs[3], "≤", goal, ctx, main, side
                )
            return _gcongr_split(lhs[2], rhs[2], rel, goal, ctx, main, side) and _gcongr_split(
                lhs[3], rhs[3], rel, goal, ctx, main, side
            )
        if h == "*":
            if lhs[3] == rhs[3]:
                side.append(("≤", ty, ("num", ty, 0), lhs[3]))
                return (
                    _gcongr_split(lhs[2], rhs[2], "≤" if rel == "<" else rel, goal, ctx, main, side)
                    if rel == "≤"
                    else _gcongr_lt_mul(lhs, rhs, ty, goal, ctx, main, side, 2)
                )
            if lhs[2] == rhs[2]:
                side.append(("≤", ty, ("num", ty, 0), lhs[2]))
                return (
                    _gcongr_split(lhs[3], rhs[3], rel, goal, ctx, main, side)
                    if rel == "≤"
                    else _gcongr_lt_mul(lhs, rhs, ty, goal, ctx, main, side, 3)
                )
            return False
        if h == "^" and lhs[3] == rhs[3] and rel == "≤":
            side.append(("≤", ty, ("num", ty, 0), lhs[2]))
            return _gcongr_split(lhs[2], rhs[2], rel, goal, ctx, main, side)
        if h == "/" and lhs[3] == rhs[3] and ty in ("ℚ", "ℝ") and rel == "≤":
            side.append(("≤", ty, ("num", ty, 0), lhs[3]))
            return _gcongr_split(lhs[2], rhs[2], rel, goal, ctx, main, side)
        return False
    main.append(
        (rel, lhs[1] if lhs[0] not in ("var", "fvar", "const", "app") else _rel_ty(lhs, rhs, goal), lhs, rhs)
    )
    return True


def _gcongr_lt_mul(
    lhs: Term, rhs: Term, ty: str, goal: Goal, ctx: TacticContext, main: list, side: list, pos: int
) -> bool:
    side[-1] = ("<", ty, ("num", ty, 0), lhs[3] if pos == 2 else lhs[2])
    return _gcongr_split(lhs[pos], rhs[pos], "<", goal, ctx, main, side)


def _rel_ty(a: Term, b: Term, goal: Goal) -> str:
    return _type_of(a, goal) or _type_of(b, goal) or "ℝ"


@builtin("gcongr")
def _gcongr(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    h = t[0]
    if h in (">", "≥"):
        t = ("<" if h == ">" else "≤", t[1], t[3], t[2])
        h = t[0]
    if h not in ("<", "≤"):
        raise TacticError("gcongr did not make progress")
    main: list[Term] = []
    side: list[Term] = []
    if not _gcongr_split(t[2], t[3], h, goal, ctx, main, side) or (len(main) == 1 and main[0] == t):
        raise TacticError("gcongr did not make progress")
    from lean_gym.sim.tactics import _hyp_closes

    out: list[Goal] = []
    for s in side:
        g = goal.with_target(s)
        try:
            _positivity(g, syn, ctx)
        except TacticError:
            out.append(g.with_tag(None))
    for m in main:
        g = goal.with_target(m).with_tag(None)
        if _hyp_closes(g, m) is not None:
            continue
        out.append(g)
    ctx.use_standard_axioms()
    return out


@builtin("bound")
def _bound(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    try:
        return _positivity(goal, syn, ctx)
    except TacticError:
        pass
    rest = _gcongr(goal, syn, ctx)
    from lean_gym.sim.tactics import _hyp_closes

    for g in rest:
        if _hyp_closes(g, g.target) is None:
            try:
                _positivity(g, syn, ctx)
            except TacticError:
                raise TacticError("bound failed to prove the goal") from None
    return []


# ------------------------------------------------------------------------------------------ field_simp


def _nonzero(d: Term, goal: Goal, ctx: TacticContext) -> bool:
    v = eval_term(d, ctx)
    if v is not None:
        return v != 0
    for _, p in goal.props():
        if p[0] == "≠" and ((p[2] == d and eval_term(p[3]) == 0) or (p[3] == d and eval_term(p[2]) == 0)):
            return True
    s = _sign(d, goal, ctx)
    return s in ("pos", "nonzero")


@builtin("field_simp")
def _field_simp(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    if t[0] != "=" or t[1] not in ("ℚ", "ℝ"):
        from lean_gym.sim.simp import run_simp_variant

        return run_simp_variant(goal, syn, ctx, "field_simp")
    ty = t[1]
    conv = Conv(ty, "ring", ctx)
    a, b = conv.poly(t[2]), conv.poly(t[3])
    denoms: list[Term] = []
    for p in (a, b):
        for m in p.terms():
            for atom, _ in m:
                if isinstance(atom, tuple) and atom[0] == "inv" and atom[1] not in denoms:
                    denoms.append(atom[1])
    usable = [d for d in denoms if _nonzero(d, goal, ctx)]
    if a == b:
        ctx.use_standard_axioms()
        return []
    if not usable:
        raise TacticError("field_simp made no progress")
    for d in usable:
        inv_atom = ("inv", d)
        dp = conv.poly(d)
        a = _clear(a * dp, inv_atom, dp)
        b = _clear(b * dp, inv_atom, dp)
    ctx.use_standard_axioms()
    if a == b:
        return []
    return [goal.with_target(("=", ty, poly_to_term(a, ty), poly_to_term(b, ty)))]


def _clear(p: Poly, inv_atom: Any, dp: Poly) -> Poly:
    """Cancel ``d⁻¹ · atom`` where ``d = c · atom`` (``d ≠ 0``): the pair is worth ``1 / c``.

    Anything else is kept as it is (multiplying both sides by ``d ≠ 0`` is an equivalence either way).
    """
    if len(dp.terms()) == 1:
        ((m, c),) = dp.terms().items()
        if len(m) == 1 and m[0][1] == 1 and c != 0:
            atom = m[0][0]
            out = Poly.zero()
            for mono, coef in p.terms().items():
                d = dict(mono)
                coef = Fraction(coef)
                while d.get(inv_atom, 0) > 0 and d.get(atom, 0) > 0:
                    d[inv_atom] -= 1
                    d[atom] -= 1
                    coef = coef / Fraction(c)  # d⁻¹ · atom = 1 / c because atom ≠ 0
                out = out + Poly.from_terms([({k: v for k, v in d.items() if v}, coef)])
            return out
    return p


# ------------------------------------------------------------------------------------- casts (norm_cast)


@builtin("norm_cast", "push_cast", "zify", "qify", "rify", "lift")
def _casts(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    from lean_gym.sim.simp import run_simp_variant

    return run_simp_variant(goal, syn, ctx, syn.name)


__all__ += ["DOMAIN", "hyp_constraints", "ring_equal"]
