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

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from lean_gym.sim.arith import (
    ArithBudgetExceeded,
    Certificate,
    Constraint,
    EvalTooExpensive,
    Poly,
    dvd_constraints,
    linarith_certificate,
    nlinarith_certificate,
    not_dvd_constraints,
)
from lean_gym.sim.arith import omega as _omega
from lean_gym.sim.arith.errors import WorkBudget
from lean_gym.sim.arith.normnum import log_numeral_sign
from lean_gym.sim.evaluate import _bound_of, decide_closed, eval_term, rfl_closes
from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import (
    Decide,
    Decided,
    Linear,
    PolyIdentity,
    Refl,
    Rewrote,
    Subproof,
    close,
    close_from,
)
from lean_gym.sim.polyconv import DOMAIN, RING_TYPES, Conv, poly_to_term, to_constraint
from lean_gym.sim.proofs import ProofChecker
from lean_gym.sim.syntax import parse_term
from lean_gym.sim.tactics import TacSyntax, TacticContext, TacticError, builtin, run_tactic
from lean_gym.sim.terms import (
    ATOM_HEADS,
    FALSE,
    TRUE,
    Term,
    is_prop_type,
    mk_num,
    new_fvar,
    pretty,
    subst,
    user_name,
)
from lean_gym.sim.unify import canon

__all__ = ["Conv", "decide_closed", "eval_term", "poly_to_term", "rfl_closes", "to_constraint"]


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


def _goal_type(goal: Goal) -> str | None:
    t = goal.target
    q = _neg_rel(t) or t
    if q[0] in ("<", "≤", ">", "≥", "=", "≠") and q[1] in DOMAIN:
        return q[1]
    return None


@dataclass(frozen=True)
class _LinarithArgs:
    """``linarith (config := {…}) only [t₁, t₂]``: the options the simulator reads (``LinarithConfig``)."""

    facts: tuple[Term, ...] = ()
    only: bool = False
    split_ne: bool = False
    exfalso: bool = True
    split_hypotheses: bool = True


_BOOL_FIELDS = {"splitNe": "split_ne", "exfalso": "exfalso", "splitHypotheses": "split_hypotheses"}
#: ``oracle``: both of Mathlib's oracles (simplex, Fourier–Motzkin) are complete for linear arithmetic over
#: ordered fields, so either decides as the simulator's does; ``transparency`` only widens Lean's atoms.
_IGNORED_FIELDS = {"oracle", "transparency"}
_DEFAULT_DISCHARGER = "do Lean.Elab.Tactic.evalTactic (← `(tactic| ring1))"


def _linarith_config(ts: Any) -> dict[str, bool]:
    """The ``{ f := v, … }`` of ``(config := …)``: booleans of :data:`_BOOL_FIELDS`, the rest checked."""
    out: dict[str, bool] = {}
    ts.expect_sym("{")
    while not ts.is_sym("}"):
        name = ts.advance()
        if name.kind != "ident":
            raise TacticError(f"unexpected token '{name.text}'; expected identifier", name.start, name.end)
        ts.expect_sym(":=")
        vals: list[Any] = []
        depth = 0
        while ts.tok.kind != "eof" and not (depth == 0 and (ts.is_sym(",") or ts.is_sym("}"))):
            if ts.tok.text in ("(", "{", "["):
                depth += 1
            elif ts.tok.text in (")", "}", "]"):
                depth -= 1
            vals.append(ts.advance())
        text = " ".join(v.text for v in vals)
        if name.text in _BOOL_FIELDS and text in ("true", "false"):
            out[_BOOL_FIELDS[name.text]] = text == "true"
        elif name.text == "discharger" and text.replace(" ", "") == _DEFAULT_DISCHARGER.replace(" ", ""):
            pass  # ring1, the default
        elif name.text not in _IGNORED_FIELDS:
            raise TacticError(
                f"linarith's `{name.text} := {text}` is outside the simulator's subset", name.start
            )
        if ts.is_sym(","):
            ts.advance()
    ts.expect_sym("}")
    return out


def _extra_facts(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> _LinarithArgs:
    """``(config := …)``, ``only`` and the ``[t₁, t₂]`` terms after linarith/nlinarith, as propositions."""
    ts = syn.stream(1)
    while ts.tok.kind == "sym" and ts.tok.text == "!":
        ts.advance()
    config: dict[str, bool] = {}
    if ts.is_sym("(") and ts.peek().text == "config":
        ts.advance()
        ts.advance()
        ts.expect_sym(":=")
        config = _linarith_config(ts)
        ts.expect_sym(")")
    only = ts.is_word("only")
    if only:
        ts.advance()
    facts: list[Term] = []
    if ts.is_sym("["):
        ts.advance()
        if not ts.is_sym("]"):
            while True:
                _no_metavariables(ts, syn)
                term = parse_term(ts, 0)
                facts.append(ProofChecker(goal, ctx).infer(term))
                if ts.is_sym(","):
                    ts.advance()
                    continue
                break
        ts.expect_sym("]")
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    return _LinarithArgs(tuple(facts), only, **config)


def _no_metavariables(ts: Any, syn: TacSyntax) -> None:
    """Mathlib's linarith refuses a term with ``?x`` holes before elaborating it (``Frontend.lean``)."""
    end, depth = ts.i, 0
    while ts.toks[end].kind != "eof" and not (depth == 0 and ts.toks[end].text in (",", "]")):
        depth += {"(": 1, "[": 1, "⟨": 1, ")": -1, "]": -1, "⟩": -1}.get(ts.toks[end].text, 0)
        end += 1
    arg = ts.toks[ts.i : end]
    if arg and any(t.text.startswith("?") for t in arg):
        text = syn.src.text[arg[0].start : arg[-1].end]
        raise TacticError(f"Argument passed to {syn.name.rstrip('!')} has metavariables:\n  {text}")


def _split_conjunctions(props: Iterable[Term]) -> list[Term]:
    """Mathlib's ``splitConjunctions`` preprocessing: ``P ∧ Q`` becomes ``P`` and ``Q``, recursively."""
    out: list[Term] = []
    stack = list(reversed(list(props)))
    while stack:
        p = stack.pop()
        if p[0] == "∧":
            stack.extend((p[2], p[1]))
        else:
            out.append(p)
    return out


def _ne_branches(hyps: list[Constraint], limit: int) -> list[list[Constraint]]:
    """``removeNe``: each ``a ≠ b`` hypothesis becomes ``a < b`` in one branch and ``a > b`` in the other."""
    ne = [h for h in hyps if h.op == "!="][:limit]
    rest = [h for h in hyps if h.op != "!=" or h not in ne]
    branches: list[list[Constraint]] = [rest]
    for h in ne:
        branches = [[*b, c] for b in branches for c in (Constraint(h.poly, "<"), Constraint(-h.poly, "<"))]
    return branches


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
    """Syntactic squares ``t ^ 2`` and ``t * t`` (Mathlib's nlinarith preprocessing; the two factors of
    ``t * t`` are compared as atoms are, up to reducible definitions)."""
    out: list[Poly] = []
    seen: set[Term] = set()
    stack = list(terms)
    while stack:
        u = stack.pop()
        h = u[0]
        if (h == "^" and u[3][0] == "num" and u[3][2] == 2 and u[1] == conv.ty) or (
            h == "*"
            and u[1] == conv.ty
            and (u[2] == u[3] or conv.reducible_key(u[2]) == conv.reducible_key(u[3]))
        ):
            if u[2] not in seen:
                seen.add(u[2])
                out.append(conv.poly(u[2]))
        if h == "app":
            stack.extend(u[2])
        else:
            stack.extend(c for c in u[1:] if type(c) is tuple)
    return out


#: ``splitNe`` case-splits at most this many ``≠`` hypotheses (``2 ** n`` refutations).
MAX_SPLIT_NE = 4


def _arith_run(
    goal: Goal, syn: TacSyntax, ctx: TacticContext, nonlinear: bool, mathlib: bool = True
) -> list[Goal]:
    args = _extra_facts(goal, syn, ctx)
    extra = list(args.facts)
    target = goal.target
    tgt = _neg_rel(target) or target
    ty = _goal_type(goal)
    types: list[str]
    goal_rel: Term | None
    context = [] if args.only else [p for _, p in goal.props()]
    neg_shown = None
    if ty is not None and tgt[0] != "≠":
        types = [ty]
        goal_rel = tgt
        neg_shown = _negate_for_display(goal_rel)
    else:
        goal_rel = None
        if tgt[0] == "≠":
            # Mathlib's frontend introduces the `a = b` of a goal `¬ a = b` (MathlibTest/linarith.lean)
            eq = ("=", tgt[1], tgt[2], tgt[3])
            context = [*context, eq]
            neg_shown = eq
        elif target != FALSE and not args.exfalso:
            raise TacticError(lambda: _linarith_failed(goal, None))
    if args.split_hypotheses:
        context, extra = _split_conjunctions(context), _split_conjunctions(extra)
    if mathlib:  # Mathlib's preprocessing (grind's linarith module, in Lean core, has no norm_num)
        context = [_cancel_denoms_norm_num(q, ctx) for q in context]
        extra = [_cancel_denoms_norm_num(q, ctx) for q in extra]
        if goal_rel is not None:
            goal_rel = _cancel_denoms_norm_num(goal_rel, ctx)
    if goal_rel is None:
        types = []
        for q in [*context, *extra]:
            q = _neg_rel(q) or q
            if q[0] in ("<", "≤", ">", "≥", "=") and q[1] in DOMAIN and q[1] not in types:
                types.append(q[1])
    lift = "ℕ" in types and _has_comparison([*context, *extra], "ℤ")
    if lift and "ℤ" not in types:
        types.append("ℤ")
    ctx.use_standard_axioms()
    for tname in types:
        conv = Conv(tname, "linarith", ctx)
        ctx_t, extra_t, goal_t = context, extra, goal_rel
        if lift and tname == "ℤ":
            # Mathlib's `natToInt` preprocessing moves every ℕ comparison to ℤ (`push_cast`), so an ℕ fact
            # and an ℤ fact about its cast meet in one problem
            ctx_t, extra_t = [_nat_to_int(q) for q in context], [_nat_to_int(q) for q in extra]
            goal_t = _nat_to_int(goal_rel) if goal_rel is not None else None
        hyps = hyp_constraints(ctx_t, conv)
        ex = hyp_constraints(extra_t, conv)
        gc = to_constraint(goal_t, conv) if goal_t is not None else None
        integer = tname in ("ℕ", "ℤ")
        nonneg_facts = _natcast_nonneg_facts(ctx_t + extra_t + ([goal_t] if goal_t is not None else []), conv)
        hyps = [*nonneg_facts, *hyps]
        branches = _ne_branches([*ex, *hyps], MAX_SPLIT_NE) if args.split_ne else [[*ex, *hyps]]
        certs: list[Certificate] = []
        for branch in branches:
            got = _refute_branch(branch, ex, gc, goal, extra_t, goal_t, conv, integer, nonlinear, ctx)
            if got is None:
                break
            certs.extend(got)
        else:
            return close(goal, Linear(tuple(certs)), ctx)
    raise TacticError(lambda: _linarith_failed(goal, neg_shown))


def _cancel_denoms_norm_num(q: Term, ctx: TacticContext) -> Term:
    """Mathlib's linarith preprocessing ``cancelDenoms`` on one comparison: when it mentions a division, an
    inverse or a decimal over ℚ/ℝ, ``CancelDenoms.derive`` first runs norm_num's core on it
    (``Mathlib.Meta.NormNum.deriveSimp`` with no simp lemma: closed subterms are evaluated, norm_num's
    extensions included, so ``√1000000 - 1000000 ^ 3⁻¹`` is ``900``;
    ``Mathlib/Tactic/CancelDenoms/Core.lean``, ``derive``; ``Mathlib/Tactic/Linarith/Preprocessing.lean``,
    ``cancelDenoms``). Other comparisons are left as they are, their applications atoms."""
    if q[0] == "¬":
        inner = _cancel_denoms_norm_num(q[1], ctx)
        return q if inner is q[1] else ("¬", inner)
    if q[0] not in ("<", "≤", ">", "≥", "=") or q[1] not in ("ℚ", "ℝ"):
        return q
    if not (_has_division(q[2]) or _has_division(q[3])):
        return q
    from lean_gym.sim.simp import SimpSet, simp_term

    core = SimpSet(ctx, default=False, eval_fields=True)  # norm_num's extensions, no simp lemma
    a, b = simp_term(q[2], core), simp_term(q[3], core)
    return q if a is q[2] and b is q[3] else (q[0], q[1], a, b)


def _has_division(t: Term) -> bool:
    """Whether ``t`` contains ``/``, ``⁻¹`` or a decimal literal (``HDiv``, ``Inv``, ``OfScientific``)."""
    h = t[0]
    if h in ("/", "inv"):
        return True
    if h == "num":
        return isinstance(t[2], Fraction) and t[2].denominator != 1
    if h == "app":
        return _has_division(t[1]) or any(_has_division(a) for a in t[2])
    if h in ("∀", "∃", "fun"):
        return False
    return any(type(c) is tuple and _has_division(c) for c in t[1:])


def _has_comparison(props: Iterable[Term], ty: str) -> bool:
    for q in props:
        q = _neg_rel(q) or q
        if q[0] in ("<", "≤", ">", "≥", "=") and q[1] == ty:
            return True
    return False


def _nat_to_int(q: Term) -> Term:
    """An ℕ comparison (through ``¬``) as the ℤ comparison of its sides' casts; anything else unchanged."""
    if q[0] == "¬":
        return ("¬", _nat_to_int(q[1]))
    if q[0] in ("<", "≤", ">", "≥", "=") and q[1] == "ℕ":
        return (q[0], "ℤ", ("cast", "ℤ", "ℕ", q[2]), ("cast", "ℤ", "ℕ", q[3]))
    return q


def _refute_branch(
    hyps: list[Constraint],
    ex: list[Constraint],
    gc: Constraint | None,
    goal: Goal,
    extra: list[Term],
    goal_rel: Term | None,
    conv: Conv,
    integer: bool,
    nonlinear: bool,
    ctx: TacticContext,
) -> tuple[Certificate, ...] | None:
    ctx.tick(50 + 10 * len(hyps) ** 2)
    sized = ctx.search_budget(100, 20_000, 5)
    budget = sized.value
    meter = WorkBudget(budget * 3 if nonlinear else budget)
    try:
        if nonlinear:
            all_terms = [p for _, p in goal.props()] + extra + ([goal_rel] if goal_rel is not None else [])
            sq = _squares(all_terms, conv)
            rest = [h for h in hyps if h not in ex]
            return nlinarith_certificate(rest, gc, extra_terms=ex, squares=sq, integer=integer, budget=meter)
        return linarith_certificate(hyps, gc, integer=integer, budget=meter)
    except ArithBudgetExceeded:
        ctx.tick(budget * 5)
        return None
    finally:
        sized.settle(meter, 3 if nonlinear else 1)


def _natcast_nonneg_facts(props: Iterable[Term], conv: Conv) -> list[Constraint]:
    """The facts ``0 ≤ ↑t`` that Mathlib's linarith preprocessing (``natToInt``) adds.

    Mathlib (``Mathlib/Tactic/Linarith/Preprocessing.lean``, ``natToInt`` and ``getNatComparisons``)
    casts each ℕ comparison to ℤ with ``push_cast`` and then adds ``0 ≤ ↑t`` for each cast ``↑t`` that it
    reaches from the top of either side through ``+``, ``*``, ``-`` and ``neg`` only: a cast under ``^``
    (``↑x ^ 9890``), ``/`` or ``%`` (``push_cast`` turns ``↑(a / b)`` into ``↑a / ↑b``) gets nothing, and
    neither does a product as a whole. The simulator's ℕ comparisons stay in ℕ, where that cast is the
    atom itself; other comparisons keep their casts, whose pushed polynomial is the fact.
    """
    facts: list[Constraint] = []
    seen: set[Term] = set()

    def add(t: Term) -> None:
        if t in seen:
            return
        seen.add(t)
        p = conv.poly(t)
        if not p.is_const():
            facts.append(Constraint(-p, "<="))

    def walk_nat(t: Term) -> None:
        h = t[0]
        if h in ("+", "*"):
            walk_nat(t[2])
            walk_nat(t[3])
        elif h == "-":
            a, b = conv.poly(t[2]), conv.poly(t[3])
            if not b.is_const() or (b.const_value() != 0 and not a.is_const()):
                add(t)  # ``↑(a - b)`` stays a cast: ``Nat.cast_sub`` needs ``b ≤ a``
        elif h not in ("num", "^", "/", "%", "cast"):
            add(t)

    def walk(t: Term) -> None:
        h = t[0]
        if h in ("+", "*", "-"):
            walk(t[2])
            walk(t[3])
        elif h == "neg":
            walk(t[2])
        elif h == "cast" and t[2] == "ℕ":
            add(t)

    for p in props:
        q = _neg_rel(p) or p
        if q[0] not in ("<", "≤", ">", "≥", "=") or q[1] != conv.ty:
            continue  # ``filterComparisons`` drops ``≠`` before ``natToInt`` runs
        for side in (q[2], q[3]):
            (walk_nat if conv.ty == "ℕ" else walk)(side)
    return facts


def _negate_for_display(rel: Term) -> Term:
    h = rel[0]
    flip = {"<": "≥", "≤": ">", "=": "≠", ">": "≤", "≥": "<"}
    if h in flip:
        return (flip[h], rel[1], rel[2], rel[3])
    return ("¬", rel)


@builtin("linarith", "linarith!")
def _linarith_tac(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    return _arith_run(goal, syn, ctx, nonlinear=False)


def linarith_core(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """Linear arithmetic over ordered fields without Mathlib's norm_num preprocessing: what Lean core's
    ``grind`` has in its ``linarith`` module (the same Positivstellensatz certificates over atoms)."""
    return _arith_run(goal, syn, ctx, nonlinear=False, mathlib=False)


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


def _ring_closes(t: Term, ctx: TacticContext) -> bool:
    """Whether ``t`` is an equation of commutative-ring normal forms that are equal (``ring1``)."""
    if t[0] == "=" and t[1] in RING_TYPES:
        ctx.tick(30)
        if ring_equal(t[2], t[3], t[1], ctx):
            if t[1] in ("ℚ", "ℝ", "ℂ"):
                ctx.use_standard_axioms()
            return True
    return False


@builtin("ring", "ring1", "ring!")
def _ring(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    if _ring_closes(t, ctx):
        return close(goal, PolyIdentity(), ctx)
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


_ARITH_HEADS = frozenset({"+", "-", "*", "/", "^", "neg", "inv"})


def _nf_inside(t: Term, ctx: TacticContext, depth: int = 0) -> Term:
    """``ring_nf`` normalises every ring subterm, the arguments of applications (``f (a * c * b)``) too."""
    h = t[0]
    if depth > 40 or h in ATOM_HEADS:
        return t
    if h == "app":
        return ("app", t[1], tuple(_nf_child(a, ctx, depth + 1) for a in t[2]))
    if h == "fun":
        # ring_nf rewrites under binders (it is a simp call): a function's body is normalised, its bound
        # variable an atom (`fun x => x * x ^ 2` is `fun x => x ^ 3`)
        body = _nf_inside(t[3], ctx, depth + 1)
        if body[0] in _ARITH_HEADS and body[1] in DOMAIN:
            body = poly_to_term(Conv(body[1], "ring", ctx).poly(body), body[1])
        return ("fun", t[1], t[2], body)
    if h in ("∀", "∃"):
        return t  # under a binder: left as written (weaker than ring_nf, which works there too)
    if h not in _ARITH_HEADS:
        # an atom of `ring` (`a % b`, `|a|`, `↑a`, a relation): its ring subterms are normalised in place
        # (Mathlib's `ring_nf` rewrites every maximal ring subterm: `24 * x % 1199` is `x * 24 % 1199`)
        return tuple(_nf_child(c, ctx, depth + 1) if type(c) is tuple else c for c in t)
    return tuple(_nf_inside(c, ctx, depth + 1) if type(c) is tuple else c for c in t)


def _nf_child(t: Term, ctx: TacticContext, depth: int) -> Term:
    """``t`` normalised inside, then as one ring expression when it is one (a maximal ring subterm)."""
    t = _nf_inside(t, ctx, depth)
    if t[0] in _ARITH_HEADS and t[1] in RING_TYPES:
        return poly_to_term(Conv(t[1], "ring", ctx).poly(t), t[1])
    return t


def ring_nf_term(t: Term, ctx: TacticContext) -> Term:
    """``ring_nf`` on one expression (conversion mode): a ring expression to its normal form, a
    proposition as the tactic rewrites it (an equation of propositions with equal sides is ``True``)."""
    h = t[0]
    if h in _ARITH_HEADS and t[1] in RING_TYPES:
        return poly_to_term(Conv(t[1], "ring", ctx).poly(_nf_inside(t, ctx)), t[1])
    if h == "=" and t[1] == "Prop":
        a, b = ring_nf_term(t[2], ctx), ring_nf_term(t[3], ctx)
        return TRUE if a == b else ("=", "Prop", a, b)  # `eq_self`
    if h in ("=", "≠", "<", "≤", ">", "≥", "↔", "∧", "∨", "→", "¬"):
        return _normalize_rel(t, ctx)
    return _nf_inside(t, ctx)


def _normalize_rel(t: Term, ctx: TacticContext) -> Term:
    h = t[0]
    if h in ("=", "≠") and t[1] == "?fn":
        # an equation of functions: both sides normalised inside, then `eq_self` up to bound names
        fa, fb = _nf_inside(t[2], ctx), _nf_inside(t[3], ctx)
        if canon(fa) == canon(fb):
            return TRUE if h == "=" else FALSE
        return (h, t[1], fa, fb)
    if h in ("=", "≠", "<", "≤", ">", "≥") and t[1] in RING_TYPES:
        conv = Conv(t[1], "ring", ctx)
        a, b = conv.poly(_nf_inside(t[2], ctx)), conv.poly(_nf_inside(t[3], ctx))
        if h in ("=", "≠") and a == b:
            return TRUE if h == "=" else FALSE
        return (h, t[1], poly_to_term(a, t[1]), poly_to_term(b, t[1]))
    if h == "↔":
        lhs, rhs = _normalize_rel(t[1], ctx), _normalize_rel(t[2], ctx)
        return TRUE if lhs == rhs else ("↔", lhs, rhs)  # simp's `iff_self`
    if h in ("∧", "∨", "→"):
        return (h, _normalize_rel(t[1], ctx), _normalize_rel(t[2], ctx))
    if h == "¬":
        return ("¬", _normalize_rel(t[1], ctx))
    return t


def _ring_nf_goal(goal: Goal, where: list[str] | None, ctx: TacticContext) -> list[Goal]:
    changed = False
    if where is None or "⊢" in where:
        new_t = _normalize_rel(goal.target, ctx)
        if new_t == TRUE:
            return close(goal, Rewrote("ring_nf", new_t), ctx)
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
            return close(goal, Rewrote("ring_nf", nt, goal.find(name)), ctx)
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
            return close(goal, Decided("abel"), ctx)
    elif syn.name == "abel_nf" and syn.stream(1).tok.kind == "eof":
        raise TacticError("abel_nf made no progress")  # nothing of an additive group to normalise
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


def _sign_of_both(a: str | None, b: str | None) -> str | None:
    """The strongest sign that holds when both operands have theirs: what Mathlib's ``evalMul`` gives a
    product and ``evalMin`` a minimum (positive if both are, non-negative if both are at least that, non-zero
    if both are non-zero), ``None`` where they share none."""
    if a == "pos" and b == "pos":
        return "pos"
    if a in ("pos", "nonneg") and b in ("pos", "nonneg"):
        return "nonneg"
    if a in ("pos", "nonzero") and b in ("pos", "nonzero"):
        return "nonzero"
    return None


def _sign(e: Term, goal: Goal, ctx: TacticContext, depth: int = 0) -> str | None:
    """``pos``, ``nonneg``, ``nonzero`` or ``None`` for ``e`` by Mathlib's positivity rules."""
    ctx.tick(1)
    if depth > 40:
        return None
    h = e[0]
    ty = e[1] if h not in ("var", "fvar", "const", "app") else None
    if ty == "ℂ":
        return None  # positivity's rules are an ordered field's: ℂ has no order (`z * z + 1` is 0 at `I`)
    v = eval_term(e, ctx, unfold=False)
    if v is not None:
        return "pos" if v > 0 else "nonneg" if v == 0 else "nonzero"
    if h in ("+",):
        a, b = _sign(e[2], goal, ctx, depth + 1), _sign(e[3], goal, ctx, depth + 1)
        if a in ("pos", "nonneg") and b in ("pos", "nonneg"):
            return "pos" if "pos" in (a, b) else "nonneg"
        return _from_hyps(e, goal)
    if h == "*" or (h == "/" and ty in ("ℚ", "ℝ")):
        s = _sign_of_both(_sign(e[2], goal, ctx, depth + 1), _sign(e[3], goal, ctx, depth + 1))
        return s if s is not None else _from_hyps(e, goal)
    if h == "/" and ty == "ℤ":
        # Mathlib's `evalIntDiv`: `0 ≤ a → 0 ≤ b → 0 ≤ a / b` (integer division is never more than that)
        a, b = _sign(e[2], goal, ctx, depth + 1), _sign(e[3], goal, ctx, depth + 1)
        if a in ("pos", "nonneg") and b in ("pos", "nonneg"):
            return "nonneg"
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
    if h == "app" and e[1][0] == "const" and e[1][1] in _POSITIVITY_EXTENSIONS:
        got = _POSITIVITY_EXTENSIONS[e[1][1]](e, goal, ctx, depth)
        return got if got == "pos" else _or_else(got, _from_hyps(e, goal))
    if h == "app" and e[1] == ("const", "Nat.factorial"):
        return "pos"
    if h == "app" and e[1] == ("const", "Nat.succ"):
        return "pos"
    r = _from_hyps(e, goal)
    if r is None and _type_of(e, goal) == "ℕ":
        return "nonneg"
    return r


def _or_else(a: str | None, b: str | None) -> str | None:
    """Mathlib's ``Positivity.orElse``: the better of two results; non-negative and non-zero make positive."""
    if a is None or b is None:
        return a if b is None else b
    if "pos" in (a, b):
        return "pos"
    return a if a == b else "pos"


def _pos_real_sqrt(e: Term, goal: Goal, ctx: TacticContext, depth: int) -> str | None:
    """Mathlib's ``evalSqrt``: ``√a`` is positive when ``a`` is, else non-negative."""
    return "pos" if _sign(e[2][0], goal, ctx, depth + 1) == "pos" else "nonneg"


def _pos_real_exp(e: Term, goal: Goal, ctx: TacticContext, depth: int) -> str | None:
    """Mathlib's ``evalExp``: ``Real.exp a`` is positive."""
    return "pos"


def _pos_real_log(e: Term, goal: Goal, ctx: TacticContext, depth: int) -> str | None:
    """Mathlib's ``evalLogNatCast``/``evalLogIntCast`` (the log of a cast from ℕ or ℤ is non-negative) and
    ``evalLogNatLit`` (the log of a numeral, by its value: :func:`~lean_gym.sim.arith.normnum.log_numeral_sign`),
    the better of the two (``orElse``)."""
    a = e[2][0]
    cast = "nonneg" if a[0] == "cast" and a[2] in ("ℕ", "ℤ") else None
    try:
        v = eval_term(a, ctx, unfold=False)
    except (EvalTooExpensive, ValueError, ArithmeticError):
        v = None
    return _or_else(cast, None if v is None else log_numeral_sign(v))


def _pos_rpow(e: Term, goal: Goal, ctx: TacticContext, depth: int) -> str | None:
    """Mathlib's ``evalRpowZero``/``evalRpow``: ``a ^ (0 : ℝ)`` is
    positive; otherwise ``a ^ b`` is positive (non-negative) when ``a`` is, and nothing is known else."""
    a, b = e[2]
    if b == ("num", "ℝ", 0):
        return "pos"
    s = _sign(a, goal, ctx, depth + 1)
    return s if s in ("pos", "nonneg") else None


def _pos_rat_num(e: Term, goal: Goal, ctx: TacticContext, depth: int) -> str | None:
    """Mathlib's ``evalRatNum``: ``q.num`` has the sign ``q`` has."""
    return _sign(e[2][0], goal, ctx, depth + 1)


def _pos_rat_den(e: Term, goal: Goal, ctx: TacticContext, depth: int) -> str | None:
    """Mathlib's ``evalRatDen``: ``q.den`` is positive."""
    return "pos"


def _bound_body(f: Term, goal: Goal) -> tuple[Term, Goal] | None:
    """A big operator's body with its bound variable a fresh local of no hypothesis (Mathlib's extensions
    instantiate it with a fresh metavariable: ``compareHyp`` finds nothing about it)."""
    if f[0] != "fun" or f[2][0] != "type":
        return None
    g, local = goal.add_local(f[1], f[2])
    return subst(f[3], f[1], local), g


def _pos_finset_sum(e: Term, goal: Goal, ctx: TacticContext, depth: int) -> str | None:
    """Mathlib's ``evalFinsetSum``: the sum is non-negative
    when its body is (positive needs the set proved non-empty: not modelled, so never positive here)."""
    got = _bound_body(e[2][1], goal) if len(e[2]) == 2 else None
    if got is None:
        return None
    return "nonneg" if _sign(got[0], got[1], ctx, depth + 1) in ("pos", "nonneg") else None


def _pos_finset_prod(e: Term, goal: Goal, ctx: TacticContext, depth: int) -> str | None:
    """Mathlib's ``evalFinsetProd``: the product has the sign
    of its body (positive, non-negative, non-zero), over any set (the empty product is ``1``)."""
    got = _bound_body(e[2][1], goal) if len(e[2]) == 2 else None
    return None if got is None else _sign(got[0], got[1], ctx, depth + 1)


def _pos_min(e: Term, goal: Goal, ctx: TacticContext, depth: int) -> str | None:
    """Mathlib's ``evalMin``: positive if both are, non-negative if both are at least that, non-zero if
    both are non-zero (or one positive, one non-zero)."""
    a, b = (_sign(x, goal, ctx, depth + 1) for x in e[2])
    return _sign_of_both(a, b)


def _pos_max(e: Term, goal: Goal, ctx: TacticContext, depth: int) -> str | None:
    """Mathlib's ``evalMax``: what the first argument gives if it is positive or non-negative, else what the
    second gives; non-zero only if both are non-zero."""
    a = _sign(e[2][0], goal, ctx, depth + 1)
    if a in ("pos", "nonneg"):
        return a
    b = _sign(e[2][1], goal, ctx, depth + 1)
    if b in ("pos", "nonneg"):
        return b
    if b == "nonzero" and a == "nonzero":
        return "nonzero"
    return None


_POSITIVITY_EXTENSIONS: dict[str, Callable[[Term, Goal, TacticContext, int], str | None]] = {
    "min": _pos_min,
    "max": _pos_max,
    "Real.sqrt": _pos_real_sqrt,
    "Real.exp": _pos_real_exp,
    "Real.log": _pos_real_log,
    "Real.rpow": _pos_rpow,
    "Rat.num": _pos_rat_num,
    "Rat.den": _pos_rat_den,
    "Finset.sum": _pos_finset_sum,
    "Finset.prod": _pos_finset_prod,
}
"""Mathlib's positivity extensions on applications the simulator models, by head; each result is combined
with what the hypotheses say (``compareHyp``), as ``Positivity.core`` does."""


def _type_of(e: Term, goal: Goal) -> str | None:
    if e[0] == "fvar":
        t = goal.hyp(e[1])
        return t[1] if t is not None and t[0] == "type" else None
    if e[0] in ("num", "+", "-", "*", "/", "%", "^", "neg", "abs", "cast", "inv"):
        return e[1]
    if e[0] == "app" and e[1] in (("const", "min"), ("const", "max")) and len(e[2]) == 2:
        return _type_of(e[2][0], goal) or _type_of(e[2][1], goal)
    return None


sign_of = _sign
"""Positivity's verdict on a term (``pos``/``nonneg``/``nonzero``/``None``), for the field tactics."""


def _from_hyps(e: Term, goal: Goal) -> str | None:
    """``compareHyp`` over the hypotheses, combined as ``Positivity.orElse`` combines its results.

    ``lo < e``, ``lo ≤ e`` for a numeral ``lo``, ``e = c``/``c = e`` for a numeral ``c`` (positive, zero:
    non-negative, negative: non-zero), ``e ≠ 0``; a non-negative and a non-zero result make ``e`` positive
    (``lt_of_le_of_ne'``), as MathlibTest/positivity.lean records.
    """
    nonneg = nonzero = False
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
                nonneg = True
        elif h == "=" and (p[2] == e or p[3] == e):
            c = eval_term(p[3] if p[2] == e else p[2])
            if c is None:
                continue
            if c > 0:
                return "pos"
            if c == 0:
                nonneg = True
            else:
                nonzero = True
        elif h == "≠" and ((p[2] == e and eval_term(p[3]) == 0) or (p[3] == e and eval_term(p[2]) == 0)):
            nonzero = True
    if nonneg and nonzero:
        return "pos"
    return "nonneg" if nonneg else "nonzero" if nonzero else None


@builtin("positivity")
def _positivity(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    h = t[0]
    want = None
    e = None
    if h in ("<", "≤", ">", "≥", "≠") and t[1] == "ℂ":
        raise TacticError("not a positivity goal")  # Mathlib's positivity needs an ordered semiring
    if h in ("<", "≤") and eval_term(t[2]) == 0:
        want, e = ("pos" if h == "<" else "nonneg"), t[3]
    elif h in (">", "≥") and eval_term(t[3]) == 0:
        want, e = ("pos" if h == ">" else "nonneg"), t[2]
    elif h == "≠" and eval_term(t[3]) == 0:
        want, e = "nonzero", t[2]
    elif h == "≠" and eval_term(t[2]) == 0:
        want, e = "nonzero", t[3]  # `0 ≠ e` (Mathlib's `Positivity.solve`, the `.ne'` case)
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
        return close(goal, Decided("positivity"), ctx)
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
    return _omega_run(goal, syn, ctx, complete=False)


def _cutsat_tac(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``grind``'s ``cutsat`` module: ``omega``'s reading of the goal, decided completely (a linear integer
    problem without an integer solution is refuted, through the omega test's dark and grey shadows, where
    Lean's ``omega`` stops at the real shadow; Lean core's ``grind`` docstring: cutsat is "a complete
    decision procedure for linear integer arithmetic")."""
    return _omega_run(goal, syn, ctx, complete=True)


def _omega_options(syn: TacSyntax) -> bool:
    """``omega (config := { splitMinMax := b })`` or ``omega ±splitMinMax``: whether ``min``/``max`` split
    (Lean's ``OmegaConfig``, on by default); its other options are outside the simulator's subset."""
    toks = syn.toks[1:]
    texts = [t.text for t in toks]
    if not texts:
        return True
    if len(texts) == 2 and texts[0] in ("+", "-") and texts[1] == "splitMinMax":
        return texts[0] == "+"
    if texts[:4] == ["(", "config", ":=", "{"] and texts[-2:] == ["}", ")"]:
        body, split = texts[4:-2], True
        for i in range(0, len(body), 4):
            field = body[i : i + 3]
            sep = body[i + 3 : i + 4]
            if field[:2] != ["splitMinMax", ":="] or len(field) != 3 or field[2] not in ("true", "false"):
                break
            if sep not in ([], [","]):
                break
            split = field[2] == "true"
        else:
            return split
    raise TacticError(
        "these omega options are outside the simulator's Lean subset", toks[0].start, toks[-1].end
    )


def _omega_run(goal: Goal, syn: TacSyntax, ctx: TacticContext, complete: bool) -> list[Goal]:
    split_min_max = _omega_options(syn) if not complete else True
    if complete and len(syn.toks) > 1:
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
    # Lean's omega evaluates ground powers (`groundNat?`); grind's cutsat normalises with simp's
    # `Nat.reducePow`, which stops at exponent 256 (`exponentiation.threshold`)
    conv.ground_pow_mod = not complete
    conv.split_min_max = split_min_max
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
        # every ℕ atom is a cast `↑t` to Lean's omega, with `0 ≤ ↑t`, except those it rewrites further
        nat_atoms = (nat_atoms | _all_atoms(hyps, disj)) - conv.signless
    ctx.tick(100 + 20 * len(hyps))
    sized = ctx.search_budget(100, 20_000, 5)
    meter = WorkBudget(sized.value)
    try:
        ok = _omega(hyps, None, nat_atoms=nat_atoms, disjunctions=disj, budget=meter, complete=complete)
    except ArithBudgetExceeded:
        ok = False
    finally:
        sized.settle(meter)
    if ok:
        ctx.use_axiom("propext")
        return close(goal, Decided("grind" if complete else "omega"), ctx)
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
    """Lean's ``decide``/``native_decide`` refusal of a goal with free variables.

    The wording of ``tests/elab/decideTactic.lean`` (leanprover/lean4 at ``41e06955a7e9``, line 109).
    """
    return TacticError(
        f"Expected type must not contain free variables\n  {pretty(t, goal.ascii)}\n\n"
        "Hint: Use the `+revert` option to automatically clean up and revert free variables"
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


def _decided(goal: Goal, t: Term) -> Decide | Decided:
    """What ``decide`` closes ``goal`` with: the evaluation of its target, or of the reverted goal ``t``."""
    return Decide() if t is goal.target else Decided("decide_revert")


@builtin("decide")
def _decide(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    if _has_revert(syn):
        t = _revert_all(goal)
    elif _free_locals(t, goal):
        raise _free_variables_error(t, goal)
    r = decide_closed(t, ctx, kernel=True)
    if r is True:
        return close(goal, _decided(goal, t), ctx)
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
    r = decide_closed(t, ctx, kernel=True)
    if r is True:
        ctx.use_axiom("Lean.ofReduceBool")
        return close(goal, _decided(goal, t), ctx)
    if r is False:
        raise TacticError(
            f"Tactic `native_decide` evaluated that the proposition\n  {pretty(t, goal.ascii)}\nis false"
        )
    raise TacticError(f"failed to synthesize\n  Decidable\n    ({pretty(t, goal.ascii)})")


@builtin("rfl", "eq_self_iff_true", "exact rfl", "ac_rfl")
def _rfl(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    if t[0] in ("=", "≤", "≥", "↔") and rfl_closes(t, ctx, kernel=True):
        return close(goal, Refl(), ctx)
    if t[0] == "=":
        at = goal.ascii
        raise TacticError(
            f"Tactic `rfl` failed: The left-hand side\n  {pretty(t[2], at)}\nis not definitionally equal to "
            f"the right-hand side\n  {pretty(t[3], at)}\n\n{goal.pretty()}"
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


def _case_values(x: Term, goal: Goal, ty: str, shown: str) -> range:
    """The values ``interval_cases`` splits ``x`` into: its bounds from the hypotheses of ``goal``."""
    lo, hi = _bounds_for(x, goal, ty)
    if lo is None or hi is None:
        which = "lower" if lo is None else "upper"
        raise TacticError(f"interval_cases failed: could not find {which} bound on {shown}")
    if hi - lo > 1000:
        raise TacticError("interval_cases failed: too many cases")
    return range(lo, hi)


def _replace_subterm(t: Term, old: Term, new: Term) -> Term:
    if t == old:
        return new
    if t[0] in ("∀", "∃", "fun"):
        return (t[0], t[1], t[2], _replace_subterm(t[3], old, new))
    if t[0] == "app":
        return ("app", _replace_subterm(t[1], old, new), tuple(_replace_subterm(a, old, new) for a in t[2]))
    return tuple(_replace_subterm(c, old, new) if type(c) is tuple else c for c in t)


def _interval_cases_term(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal] | None:
    """``interval_cases e`` / ``interval_cases h : e`` for a term ``e`` that is not a variable (Mathlib's
    ``IntervalCases``: bounds on ``e`` from the hypotheses, ``e`` replaced by each value, ``h : e = v``);
    ``None`` when ``e`` is a variable (the variable path substitutes it)."""
    ts = syn.stream(1)
    hname = None
    if ts.tok.kind == "ident" and ts.peek(1).kind == "sym" and ts.peek(1).text == ":":
        hname = ts.advance().text
        ts.advance()
    if ts.tok.kind == "ident" and ts.peek(1).kind == "eof" and hname is None:
        return None
    e, ty = ctx.elaborator(goal).elab_term(parse_term(ts, 0), None)
    if (e[0] == "fvar" and hname is None) or ty not in ("ℕ", "ℤ"):
        # a variable without `h :` is substituted (below); with it, Mathlib generalizes it (`generalizeHyp`)
        # as any term: the variable stays, each case has its value for it and `h : x = v`
        return None
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    out: list[Goal] = []
    for v in _case_values(e, goal, ty, pretty(e, goal.ascii)):
        ctx.tick(10)
        val = mk_num(ty, v)
        hyps = tuple((n, _replace_subterm(t, e, val) if is_prop_type(t) else t) for n, t in goal.hyps)
        g = Goal(hyps, _replace_subterm(goal.target, e, val), None, goal.ascii)
        out.append(g.add_hyp(hname, ("=", ty, e, val)) if hname is not None else g)
    ctx.use_standard_axioms()
    return out or close(goal, Decided("interval_cases"), ctx)  # no case: the bounds contradict


@builtin("interval_cases")
def _interval_cases(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    by_term = (
        _interval_cases_term(goal, syn, ctx) if len(syn.toks) > 1 and syn.toks[1].text != "using" else None
    )
    if by_term is not None:
        return by_term
    if len(syn.toks) < 2 or syn.toks[1].kind != "ident":
        raise TacticError("interval_cases: the simulator needs a variable, `interval_cases x`")
    bounds_goal = goal
    if syn.toks[1].text == "using":
        # `interval_cases using h₁, h₂`: the variable and its bounds come from these two hypotheses only
        names = [t.text for t in syn.toks[2:] if t.kind == "ident"]
        props = [goal.hyp(n) for n in names]
        if len(names) != 2 or any(p is None or p[0] not in ("<", "≤", ">", "≥") for p in props):
            raise TacticError("interval_cases failed: `using` takes two bounds `h₁, h₂`")
        sides = [{p[2], p[3]} for p in props if p is not None]
        common = [t for t in sides[0] & sides[1] if t[0] == "fvar"]
        if len(common) != 1:
            raise TacticError("interval_cases failed: the bounds are not on one variable")
        name = goal.display_names().get(common[0][1], "")
        bounds_goal = Goal(
            tuple(h for h in goal.hyps if not is_prop_type(h[1]) or h[1] in props),
            goal.target,
            None,
            goal.ascii,
        )
    else:
        name = syn.toks[1].text
    ty_t = goal.hyp(name)
    if ty_t is None or ty_t[0] != "type" or ty_t[1] not in ("ℕ", "ℤ"):
        raise TacticError(f"interval_cases failed: `{name}` is not a natural number or integer variable")
    ty = ty_t[1]
    x = goal.var(name) or TRUE
    out: list[Goal] = []
    for v in _case_values(x, bounds_goal, ty, name):
        ctx.tick(10)
        val = mk_num(ty, v)
        fid = x[1]
        hyps = tuple((n, subst(t, fid, val)) for n, t in goal.hyps if n != fid)
        out.append(Goal(hyps, subst(goal.target, fid, val), None, goal.ascii))
    ctx.use_standard_axioms()
    return out or close(goal, Decided("interval_cases"), ctx)  # no case: the bounds contradict


# ------------------------------------------------------------------------------------------- gcongr


def _le_lt(t: Term) -> Term | None:
    """``a ≥ b`` as ``b ≤ a`` and ``a > b`` as ``b < a``; ``≤``/``<`` as they are; anything else ``None``."""
    h = t[0]
    if h in (">", "≥"):
        return ("<" if h == ">" else "≤", t[1], t[3], t[2])
    if h in ("<", "≤"):
        return t
    return None


class _GCongr:
    """Mathlib's ``gcongr`` (``Mathlib/Tactic/GCongr/Core.lean``) on the simulator's arithmetic.

    At each step it first tries the main-goal discharger (``gcongrForward``: a hypothesis as it is, or
    ``le_of_lt`` of one; ``rel [h₁, …]`` uses only the terms listed), then a ``@[gcongr]`` lemma for the
    head both sides share, with the arguments that differ as new main goals and the lemma's side goals
    (``0 ≤ c``, ``0 < c``, ``1 ≤ a``) for ``gcongr_discharger`` (positivity), which are left to the user
    when it fails. The lemmas: ``add_le_add(_left/_right)``, ``add_lt_add_left/right``,
    ``sub_le_sub(_left/_right)``, ``sub_lt_sub_left/right`` (not on ℕ), ``mul_le_mul``,
    ``mul_le_mul_of_nonneg_left/right``, ``mul_lt_mul_of_pos_left/right``, ``div_le_div_of_nonneg_right``,
    ``div_lt_div_of_pos_right``, ``pow_le_pow_left``, ``pow_le_pow_right``, ``Real.rpow_le_rpow``,
    ``Real.rpow_le_rpow_of_exponent_le``, ``neg_le_neg``,
    ``neg_lt_neg``, the casts' ``cast_le``/``cast_lt``, and ``→`` between two relations
    (``a ≤ b → c ≤ d`` from ``c ≤ a`` and ``b ≤ d``). A subset of Mathlib's lemmas, so never stronger.
    """

    def __init__(self, goal: Goal, ctx: TacticContext, facts: list[Term] | None) -> None:
        self.goal = goal
        self.ctx = ctx
        self.facts = [f for f in ((_le_lt(p) for p in facts) if facts is not None else
                                  (_le_lt(p) for _, p in goal.props())) if f is not None]  # fmt: skip
        self.main: list[Term] = []
        self.side: list[Term] = []

    def discharged(self, t: Term) -> bool:
        rel, _ty, a, b = t
        if a == b:
            return rel == "≤"
        return any(f[1:] == t[1:] and (f[0] == rel or (rel == "≤" and f[0] == "<")) for f in self.facts)

    def step(self, rel: str, ty: str, a: Term, b: Term, depth: int = 0) -> bool:
        """Reduce ``a rel b``; ``False`` when no lemma applies (then it is left as a main goal)."""
        self.ctx.tick(2)
        t = (rel, ty, a, b)
        if self.discharged(t):
            return True
        if depth > 40 or not self.lemma(rel, ty, a, b, depth):
            self.main.append(t)
            return False
        return True

    def lemma(self, rel: str, ty: str, a: Term, b: Term, depth: int) -> bool:
        h = a[0]
        if h != b[0] or (h != "cast" and (len(a) < 3 or a[1] != b[1])):
            return False
        d = depth + 1
        zero = ("num", ty, 0)
        if h in ("+", "-"):
            if h == "-" and ty == "ℕ" and rel == "<":
                return False
            second = (b[3], a[3]) if h == "-" else (a[3], b[3])  # `-` is antitone in its second argument
            if a[3] == b[3]:
                return self.step(rel, ty, a[2], b[2], d) or True
            if a[2] == b[2]:
                return self.step(rel, ty, *second, d) or True
            if rel == "≤":
                self.step(rel, ty, a[2], b[2], d)
                self.step(rel, ty, *second, d)
                return True
            return False
        if h == "*":
            for fixed, vary in ((3, 2), (2, 3)):
                if a[fixed] == b[fixed]:
                    self.side.append(("≤" if rel == "≤" else "<", ty, zero, a[fixed]))
                    return self.step(rel, ty, a[vary], b[vary], d) or True
            if rel == "≤":
                self.side.extend((("≤", ty, zero, a[3]), ("≤", ty, zero, b[2])))
                self.step(rel, ty, a[2], b[2], d)
                self.step(rel, ty, a[3], b[3], d)
                return True
            return False
        if h == "/" and ty in ("ℚ", "ℝ") and a[3] == b[3]:
            self.side.append(("≤" if rel == "≤" else "<", ty, zero, a[3]))
            return self.step(rel, ty, a[2], b[2], d) or True
        if h == "^" and rel == "≤":
            if a[3] == b[3]:
                self.side.append(("≤", ty, zero, a[2]))
                return self.step(rel, ty, a[2], b[2], d) or True
            if a[2] == b[2]:
                self.side.append(("≤", ty, ("num", ty, 1), a[2]))
                return self.step(rel, "ℕ", a[3], b[3], d) or True
            return False
        if h == "app" and a[1] == ("const", "Real.rpow") and rel == "≤" and len(a[2]) == len(b[2]) == 2:
            (x, y), (x2, z) = a[2], b[2]
            if x == x2:  # Real.rpow_le_rpow_of_exponent_le (hx : 1 ≤ x) (hyz : y ≤ z), @[gcongr]
                self.side.append(("≤", "ℝ", ("num", "ℝ", 1), x))
                return self.step("≤", "ℝ", y, z, d) or True
            if y == z:  # Real.rpow_le_rpow (h : 0 ≤ x) (h₁ : x ≤ y) (h₂ : 0 ≤ z), @[gcongr]
                self.side.extend((("≤", "ℝ", ("num", "ℝ", 0), x), ("≤", "ℝ", ("num", "ℝ", 0), y)))
                return self.step("≤", "ℝ", x, x2, d) or True
            return False
        if h == "neg":
            return self.step(rel, ty, b[2], a[2], d) or True
        if h == "cast" and a[1] == b[1] and a[2] == b[2] and a[2] in DOMAIN:
            return self.step(rel, a[2], a[3], b[3], d) or True
        return False


def _gcongr_goals(
    goal: Goal, syn: TacSyntax, ctx: TacticContext, facts: list[Term] | None, name: str
) -> tuple[list[Goal], list[Goal]]:
    """Side goals positivity left, and main goals the discharger left, of ``gcongr`` (or ``rel``)."""
    t = goal.target
    gc = _GCongr(goal, ctx, facts)
    progress = False
    if t[0] == "→" and _le_lt(t[1]) is not None and _le_lt(t[2]) is not None:
        p, q = _le_lt(t[1]), _le_lt(t[2])
        if p is not None and q is not None and p[0] == q[0] and p[1] == q[1]:
            gc.step("≤", p[1], q[2], p[2])
            gc.step("≤", p[1], p[3], q[3])
            progress = True
    else:
        r = _le_lt(t)
        if r is not None:
            if gc.discharged(r):
                return [], []
            progress = gc.lemma(r[0], r[1], r[2], r[3], 0)
    if not progress:
        if name == "gcongr":
            raise TacticError("gcongr did not make progress")
        # Lean's `gcongr` hands back a goal no lemma applies to as it is: `rel` lists it as not justified
        raise _rel_unjustified([t])
    side: list[Goal] = []
    for s_t in gc.side:
        g = goal.with_target(s_t).with_tag(None)
        try:
            _positivity(g, syn, ctx)
        except TacticError:
            side.append(g)
    return side, [goal.with_target(m).with_tag(None) for m in gc.main]


@builtin("gcongr")
def _gcongr(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    if ts.tok.kind != "eof":
        raise TacticError(
            f"`gcongr {ts.tok.text} …` (a template) is outside the simulator's subset", ts.tok.start
        )
    side, main = _gcongr_goals(goal, syn, ctx, None, "gcongr")
    ctx.use_standard_axioms()
    return side + main or close(goal, Decided("gcongr"), ctx)


def _rel_unjustified(left: list[Term]) -> TacticError:
    """``rel``'s failure with the goals it could not justify (``Mathlib/Tactic/GCongr/Core.lean``)."""
    return TacticError(
        "rel failed, cannot prove goal by 'substituting' the listed relationships. "
        "The steps which could not be automatically justified were:\n" + "\n".join(pretty(t) for t in left)
    )


def _is_relation(t: Term) -> bool:
    """Whether ``rel`` takes ``t`` for a relation: Mathlib's ``rel`` (``Mathlib/Tactic/GCongr/Core.lean``)
    wants ``R lhs rhs`` (two explicit arguments, after ``whnfR``) with ``lhs`` and ``rhs`` of one type.

    ``a ≠ b`` unfolds (reducibly) to ``¬(a = b)``, one argument; ``Even x`` is ``@Even ℤ inst x``, whose
    last two arguments have different types; ``→``/``∀``/``∃`` are no applications. Other applications the
    simulator cannot judge count as relations (``rel`` then fails otherwise).
    """
    h = t[0]
    if h in ("≠", "¬", "True", "False", "→", "∀", "∃"):
        return False
    return not (h == "app" and len(t[2]) == 1)


@builtin("rel")
def _rel(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``rel [h₁, …]``: ``gcongr`` whose main goals only the listed terms may close; nothing may be left."""
    ts = syn.stream(1)
    facts: list[Term] = []
    ts.expect_sym("[")
    while not ts.is_sym("]"):
        facts.append(ProofChecker(goal, ctx).infer(parse_term(ts, 0)))
        if ts.is_sym(","):
            ts.advance()
    ts.expect_sym("]")
    if not _is_relation(goal.target):
        raise TacticError("rel failed, goal not a relation")
    side, main = _gcongr_goals(goal, syn, ctx, facts, "rel")
    if side or main:
        raise _rel_unjustified([g.target for g in side + main])
    ctx.use_standard_axioms()
    return close(goal, Decided("gcongr"), ctx)


@builtin("bound")
def _bound(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    start = goal
    if ts.is_sym("["):
        ts.advance()
        while not ts.is_sym("]"):
            fact = ProofChecker(goal, ctx).infer(parse_term(ts, 0))
            goal = goal.add_hyp("this", fact)  # `bound [h]` uses `h` as a hypothesis
            if ts.is_sym(","):
                ts.advance()
        ts.expect_sym("]")
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    snap = ctx.snapshot()
    try:
        _positivity(goal, syn, ctx)
        return [] if goal is start else close(start, Subproof((goal,)), ctx)
    except TacticError:
        ctx.restore(snap)
    try:
        return _bound_structural(start, goal, syn, ctx)
    except TacticError:
        ctx.restore(snap)
    return _bound_search(start, goal, ctx)


def _bound_structural(start: Goal, goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``bound``'s apply rules, modelled by ``gcongr``'s recursion with side goals closed by a hypothesis
    or ``positivity``."""
    side, main = _gcongr_goals(goal, syn, ctx, None, "gcongr")
    from lean_gym.sim.tactics import _hyp_closes

    for g in side + main:
        if _hyp_closes(g, g.target) is None:
            try:
                _positivity(g, syn, ctx)
            except TacticError:
                raise TacticError("bound failed to prove the goal") from None
    ctx.use_standard_axioms()
    return close_from(start, goal, Decided("gcongr"), ctx)


#: ``bound``'s aesop call (Mathlib ``Mathlib/Tactic/Bound.lean``: ``aesop (rule_sets := [Bound, -default])
#: (config := Bound.boundConfig)``), with its two closing rules ``boundNormNum`` (unsafe 10%, ``norm_num``)
#: and ``boundLinarith`` (unsafe 5%, ``linarith``); Aesop's builtin rules stay (splitting ``∧`` targets,
#: ``intro``, ``subst``, hypotheses). ``boundConfig`` is ``{ enableSimp := false }`` in the Mathlib SATP
#: ran (v4.26): ``terminal`` is Aesop's default ``false``, so ``bound`` leaves the goals of its safe rules
#: when it cannot finish (SATP's minimal proofs of ``aime_1990_p4`` and ``mathd_numbertheory_765`` run
#: tactics after a ``bound`` that did not close the goal; later Mathlib sets ``terminal := true``).
_BOUND_AESOP = (
    "aesop (config := { enableSimp := false, warnOnNonterminal := false }) (rule_sets := [-default])"
    " (add unsafe 10% (by norm_num)) (add unsafe 5% (by linarith))"
    # its `min`/`max` rules: norm apply, safe apply 4, and the unsafe 50% guessing rules
    " (add norm apply min_le_right) (add norm apply min_le_left) (add norm apply le_max_left)"
    " (add norm apply le_max_right)"
    " (add safe 4 apply le_min) (add safe 4 apply max_le) (add safe 4 apply lt_min) (add safe 4 apply max_lt)"
    " (add unsafe 50% apply le_max_of_le_left) (add unsafe 50% apply le_max_of_le_right)"
    " (add unsafe 50% apply lt_max_of_lt_left) (add unsafe 50% apply lt_max_of_lt_right)"
    " (add unsafe 50% apply min_le_of_left_le) (add unsafe 50% apply min_le_of_right_le)"
    " (add unsafe 50% apply min_lt_of_left_lt) (add unsafe 50% apply min_lt_of_right_lt)"
)


def _bound_search(start: Goal, goal: Goal, ctx: TacticContext) -> list[Goal]:
    """``bound`` as Mathlib runs it: its forward rule ``le_of_lt`` (``@[bound_forward]``, safe) on every
    strict hypothesis whose weak form is not a hypothesis yet, then its aesop search (:data:`_BOUND_AESOP`). The forward facts are progress even
    when the search makes none."""
    fwd = goal
    have = {canon(p) for _, p in goal.props()}
    for _, p in goal.props():
        if p[0] in ("<", ">") and p[1] in DOMAIN:
            q = ("≤" if p[0] == "<" else "≥", *p[1:])
            if canon(q) not in have:  # Aesop adds no forward fact whose type is already a hypothesis
                have.add(canon(q))
                fwd = fwd.add_hyp("fwd", q)
    try:
        left = run_tactic(fwd, _BOUND_AESOP, ctx)  # aesop is a layer above: through the tactic table
    except TacticError as e:
        if fwd is start or "made no progress" not in str(e):
            raise
        return [fwd]
    if left:
        return left
    return [] if fwd is start else close(start, Subproof((fwd,)), ctx)


# ------------------------------------------------------------------------------------- casts (norm_cast)


@builtin("push_cast", "zify", "qify", "rify", "lift")
def _casts(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    from lean_gym.sim.simp import run_simp_variant

    return run_simp_variant(goal, syn, ctx, syn.name)


__all__ += ["DOMAIN", "hyp_constraints", "linarith_core", "ring_equal", "ring_nf_term", "sign_of"]
