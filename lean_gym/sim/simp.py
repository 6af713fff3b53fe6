"""The simplifier: ``simp``, ``simp only``, ``simp_all``, ``norm_num``, ``push_neg``, cast normalisation.

``simp`` rewrites bottom-up to a fixpoint with (a) a built-in simp set of true Mathlib simp lemmas about
logic and arithmetic identities, written as Python rules for speed, (b) ground arithmetic on ℕ/ℤ
literals (Lean's simprocs), (c) the lemmas and hypotheses given in ``[…]`` (used left to right, or right
to left with ``←``; a hypothesis ``h : p`` that is not an equation rewrites ``p`` to ``True``). Every
rewrite costs heartbeats, so a rewrite loop ends in Lean's ``(deterministic) timeout`` (or ``maximum
recursion depth``) instead of hanging. ``norm_num`` is ``simp`` plus exact evaluation of closed
numerals in every type (ℚ and ℝ included) and decision of closed comparisons and divisibility.

Strength: the built-in set is a small subset of Mathlib's simp set, so ``simp`` proves less than in Lean;
it never rewrites with anything false.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from lean_gym.sim.arith.normnum import (
    nat_fib,
    nat_log,
    nat_min_fac,
    nat_prime,
    prime_factors_list,
    real_rpow,
    real_sqrt,
)
from lean_gym.sim.elab import ElabError
from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import Rewrote, close, close_from
from lean_gym.sim.proofs import Instance, ProofChecker, decl_telescope, prop_telescope
from lean_gym.sim.simp_arith import IntArithUnmodelled, is_arith_target, simp_arith_step
from lean_gym.sim.simp_nat import nat_offset_simproc
from lean_gym.sim.syntax import Syn, TokenStream, parse_term
from lean_gym.sim.tactics import TacSyntax, TacticContext, TacticError, builtin
from lean_gym.sim.terms import (
    ATOM_HEADS,
    FALSE,
    LIST_NIL,
    TRUE,
    NumeralTooLarge,
    Term,
    check_term_size,
    free_vars,
    is_prop_type,
    list_cons,
    map_subterms,
    mk_num,
    pretty,
    subst,
    under_binder,
)
from lean_gym.sim.unify import canon, instantiate, match

__all__ = [
    "SimpSet",
    "add_simp_arg",
    "parse_simp_args",
    "push_neg_term",
    "run_simp_variant",
    "simp_term",
]

RewriteRule = tuple[Term, Term, "Instance | None"]  # lhs pattern, rhs, instance (mvars)

_NUM_TYPES = ("ℕ", "ℤ", "ℚ", "ℝ")
_FIELD_TYPES = ("ℚ", "ℝ", "ℂ")
_COMPLEX_I: Term = ("const", "Complex.I")


def _is_num(t: Term, v: int | None = None) -> bool:
    if t[0] != "num":
        return False
    return v is None or t[2] == v


class SimpSet:
    """What one simp call may use.

    Args:
        default: Use the built-in simp set (``False`` for ``simp only``).
        eval_fields: Evaluate closed ℚ/ℝ arithmetic and comparisons (``norm_num``).
        rules: Extra rewrite rules ``(lhs, rhs, instance)``.
        ctx: The tactic context (heartbeats).
    """

    __slots__ = (
        "_fvs",
        "arith",
        "arith_under",
        "conds",
        "ctx",
        "default",
        "discharging",
        "eval_fields",
        "literal_facts",
        "perm",
        "rules",
        "simprocs",
        "sizes",
        "steps",
        "unfold",
    )

    def __init__(self, ctx: TacticContext, default: bool = True, eval_fields: bool = False) -> None:
        self.ctx = ctx
        self.default = default
        self.eval_fields = eval_fields
        self.rules: list[RewriteRule] = []
        self.steps = 0
        self.unfold: set[str] = set()
        self.perm: set[int] = set()
        self._fvs: set[str] | None = None
        self.literal_facts: set[str] = set()  # names of LITERAL_FACTS given to this call
        self.conds: dict[int, tuple[Term, ...]] = {}  # a conditional rule's premises, by rule index
        self.discharging = 0  # how deep the discharger is nested now
        self.arith = False  # Lean's `Simp.Config.arith` (`simp +arith`): the `Nat.Linear` simprocs
        self.arith_under = False  # the term being simplified is an operand of a linear term/constraint
        self.simprocs = True  # Lean's default simprocs (`norm_num1` runs no simp: none)
        self.sizes: dict[int, tuple[Term, int]] = {}  # tree sizes of the terms this call made, by object

    def rule_fvs(self) -> set[str]:
        """Free variable names of every rule (hypotheses mention locals; lemma rules have none)."""
        if self._fvs is None:
            out: set[str] = set(self.unfold)
            for lhs, rhs, _ in self.rules:
                free_vars(lhs, out)
                free_vars(rhs, out)
            self._fvs = out
        return self._fvs

    def add_prop(
        self, p: Term, rev: bool = False, inst: Instance | None = None, conds: tuple[Term, ...] = ()
    ) -> None:
        """Add ``p`` as a rewrite rule: ``a = b`` rewrites a to b, ``p ↔ q`` p to q, else ``p`` to True;
        with ``conds``, a conditional rule: it rewrites only where the discharger proves each premise."""
        h = p[0]
        if h == "=":
            lhs, rhs = (p[2], p[3]) if not rev else (p[3], p[2])
        elif h == "↔":
            lhs, rhs = (p[1], p[2]) if not rev else (p[2], p[1])
        elif h == "¬":
            lhs, rhs = p[1], FALSE
        elif h == "≠":
            lhs, rhs = ("=", p[1], p[2], p[3]), FALSE
        else:
            lhs, rhs = p, TRUE
        if lhs[0] == "mvar":
            return  # a rule whose left side is a bare metavariable would rewrite everything
        self.rules.append((lhs, rhs, inst))
        if conds:
            self.conds[len(self.rules) - 1] = conds
        self._fvs = None
        if inst is not None and _is_permutation(lhs, rhs):
            self.perm.add(len(self.rules) - 1)


def _tick(ss: SimpSet, n: int = 1) -> None:
    ss.steps += n
    ss.ctx.tick(n * 5)


def simp_term(t: Term, ss: SimpSet, memo: dict[Term, Term] | None = None, depth: int = 0) -> Term:
    """The simp normal form of ``t`` under ``ss``.

    Raises:
        TacticError: ``maximum recursion depth has been reached`` when rewriting nests too deep.
        HeartbeatsExceeded: when a rewrite loop runs past the heartbeat budget.
    """
    if memo is None:
        memo = {}
    # with `arith`, an operand of a linear term or constraint is not normalised on its own (Lean's
    # `parentIsTarget`, which marks that result uncached): it is remembered apart
    key = ("§arith-operand", t) if ss.arith_under else t
    got = memo.get(key)
    if got is not None:
        return got
    if depth > 200:
        raise TacticError(
            "maximum recursion depth has been reached\nuse `set_option maxRecDepth <num>` to increase limit\nuse `set_option diagnostics true` to get diagnostic information"
        )
    cur = t
    for _ in range(64):
        _tick(ss)
        nxt = _simp_children(cur, ss, memo, depth)
        nxt = _rewrite_root(nxt, ss)
        if nxt == cur:
            break
        # a rewrite may duplicate a part (`a (n + 2) = a (n + 1) + a n`): the tuples share it, but hashing and
        # comparing them walks the tree, so a term past MAX_TERM_NODES ends the call (counted by object)
        check_term_size(nxt, ss.sizes, "simp")
        cur = nxt
    memo[key] = cur
    return cur


def _simp_children(t: Term, ss: SimpSet, memo: dict[Term, Term], depth: int) -> Term:
    if not ss.arith:
        return _simp_children_of(t, ss, memo, depth)
    saved = ss.arith_under
    ss.arith_under = is_arith_target(t)
    try:
        return _simp_children_of(t, ss, memo, depth)
    finally:
        ss.arith_under = saved


def _simp_children_of(t: Term, ss: SimpSet, memo: dict[Term, Term], depth: int) -> Term:
    h = t[0]
    if h in ATOM_HEADS:
        if h == "const" and t[1] in ss.unfold:
            d = ss.ctx.lookup(t[1])
            if d is not None and d.value is not None:
                return d.value
        return t
    if h in ("∀", "∃", "fun"):
        # a hypothesis rule speaks about free variables: never let a binder of the same name capture them
        # (simp rewrites a `fun`'s body too, by congruence and funext, as under `∀`)
        return under_binder(t, ss.rule_fvs(), lambda b: simp_term(b, ss, memo, depth + 1))
    if h == "app":
        args = tuple(simp_term(a, ss, memo, depth + 1) for a in t[2])
        return ("app", t[1], args)
    if h in ("∧", "∨", "→", "↔"):
        a = simp_term(t[1], ss, memo, depth + 1)
        b = simp_term(t[2], ss, memo, depth + 1)
        if a is t[1] and b is t[2]:
            return t
        return (h, a, b)
    if h == "¬":
        a = simp_term(t[1], ss, memo, depth + 1)
        return t if a is t[1] else ("¬", a)
    out = [h]
    changed = False
    for c in t[1:]:
        if type(c) is tuple:
            c2 = simp_term(c, ss, memo, depth + 1)
            changed = changed or c2 is not c
            out.append(c2)
        else:
            out.append(c)
    return tuple(out) if changed else t


def _is_permutation(lhs: Term, rhs: Term) -> bool:
    """``a * b = b * a``-style rules, which simp uses for ordered rewriting only: Lean's ``isPerm``, the two
    sides are the same term up to unifying metavariables with metavariables (``?a + 1 ≤ ?b`` and
    ``?a ≤ ?b + 1`` are not: the first argument is an application on one side, a metavariable on the other)."""
    asg: dict[str, str] = {}

    def walk(m: str) -> str:
        while m in asg:
            m = asg[m]
        return m

    def same(a: object, b: object) -> bool:
        if type(a) is tuple and type(b) is tuple:
            if a and b and a[0] == "mvar" and b[0] == "mvar":
                x, y = walk(a[1]), walk(b[1])
                if x != y:
                    asg[x] = y
                return True
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        return a == b

    return same(lhs, rhs)


def _rewrite_root(t: Term, ss: SimpSet) -> Term:
    if len(ss.rules) > 8:
        ss.ctx.tick(len(ss.rules) >> 3)  # every rule is tried here: `simp [*]` over a large context pays
    for idx, (lhs, rhs, inst) in enumerate(ss.rules):
        if inst is None:
            if canon(lhs) == canon(t):
                _tick(ss)
                return rhs
            continue
        asg = dict(inst.asg)
        if match(lhs, t, asg, offsets=True, reducible=True) and inst.check_types(asg) is None:
            _tick(ss)
            out = instantiate(rhs, asg)
            from lean_gym.sim.proofs import _has_mvars

            if idx in ss.perm and not repr(out) < repr(t):
                continue  # ordered rewriting with permutation lemmas, as Lean's simp (no loop)
            if idx in ss.conds and not _discharge(ss.conds[idx], asg, ss):
                continue
            if not _has_mvars(out):
                return out
    r = _builtin_rules(t, ss)
    if r is None and ss.arith:
        # Lean's `postDefault`: `simpArith` after the simp lemmas and simprocs
        try:
            r = simp_arith_step(t, ss.arith_under)
        except IntArithUnmodelled:
            raise TacticError(
                "simp's `arith` on ℤ (Lean's `Int.Linear` normalisation) is outside the simulator's Lean subset"
            ) from None
        if r is not None:
            _tick(ss)
    return t if r is None else r


#: Lean's ``Simp.Config.maxDischargeDepth`` default: how deeply discharging may nest.
MAX_DISCHARGE_DEPTH = 2


def _discharge(premises: tuple[Term, ...], asg: dict[str, Term | str], ss: SimpSet) -> bool:
    """Whether simp's default discharger proves every premise of a conditional rule instance: each one,
    instantiated, simplifies to ``True`` with the same simp set (the rules and the hypotheses given to the
    call), nested at most :data:`MAX_DISCHARGE_DEPTH` deep (Lean's ``Simp.dischargeDefault?``); a premise
    with a metavariable left is not discharged."""
    from lean_gym.sim.proofs import _has_mvars

    if ss.discharging >= MAX_DISCHARGE_DEPTH:
        return False
    ss.discharging += 1
    under, ss.arith_under = ss.arith_under, False  # a premise is simplified as a term of its own
    try:
        for prem in premises:
            q = instantiate(prem, asg)
            if _has_mvars(q) or simp_term(q, ss, {}) != TRUE:
                return False
    finally:
        ss.discharging -= 1
        ss.arith_under = under
    return True


def _builtin_rules(t: Term, ss: SimpSet) -> Term | None:
    h = t[0]
    default = ss.default
    if ss.literal_facts:
        fact = literal_fact(t, ss.literal_facts)
        if fact is not None:
            return fact
    fact = list_fact(t, LIST_SIMP_LEMMAS if default else ss.literal_facts)
    if fact is not None:
        return fact
    # --- ground arithmetic: simprocs on ℕ/ℤ literals always; norm_num evaluates every type
    if ss.eval_fields and h == "app" and t[1] == ("const", "Nat.sqrt") and len(t[2]) == 1:
        # Mathlib's norm_num extension `Mathlib.Tactic.NormNum.NatSqrt`; only norm_num has it (`Nat.sqrt` is
        # defined by well-founded recursion, which `decide` and `rfl` do not unfold)
        from lean_gym.sim.arith import EvalTooExpensive
        from lean_gym.sim.evaluate import eval_term

        try:
            arg_v = eval_term(t[2][0], ss.ctx, unfold=True)
        except (EvalTooExpensive, ValueError, ArithmeticError):
            arg_v = None
        if isinstance(arg_v, int) and arg_v >= 0:
            _tick(ss)
            try:
                return mk_num("ℕ", math.isqrt(arg_v))
            except NumeralTooLarge:
                ss.ctx.numeral_too_large = True  # as for the other closed terms below
                return None
    if ss.eval_fields and h == "app" and t[1][0] == "const" and t[1][1] in _NORM_NUM_EXTENSIONS:
        got = _NORM_NUM_EXTENSIONS[t[1][1]](t, ss)
        if got is not None:
            return got
    if h in ("+", "-", "*", "/", "%", "^", "neg", "cast", "abs", "inv") or (
        h == "app" and t[1][0] == "const"
    ):
        ty = t[1] if h != "app" else None
        if (ty in ("ℕ", "ℤ") and h != "app") or ss.eval_fields:
            from lean_gym.sim.evaluate import eval_term

            try:
                v = eval_term(t, ss.ctx, unfold=bool(ss.unfold) or ss.eval_fields)
            except (ValueError, ArithmeticError):
                v = None
            except Exception as e:
                from lean_gym.sim.arith import EvalTooExpensive

                if isinstance(e, EvalTooExpensive):
                    v = None
                else:
                    raise
            if v is not None:
                # ℂ's rational constants too, under norm_num (a characteristic-zero division ring)
                rt = ty if ty in _NUM_TYPES or ty == "ℂ" else _app_type(t)
                if rt is not None:
                    try:
                        n = mk_num(rt, v)
                    except NumeralTooLarge:
                        # no term holds it: the subterm stays as written (a relation around it may still
                        # be decided), and a failure of the tactic says why (see `_exec_atomic`)
                        ss.ctx.numeral_too_large = True
                        return None
                    if n != t:
                        return n
    if h in ("=", "≠", "<", "≤", ">", "≥", "∣") and (
        t[1] in _NUM_TYPES or (t[1] == "ℂ" and h in ("=", "≠") and ss.eval_fields)
    ):
        if t[1] in ("ℕ", "ℤ") or ss.eval_fields:
            from lean_gym.sim.evaluate import decide_closed

            r = decide_closed(t, ss.ctx, allow_fields=ss.eval_fields)
            if r is not None:
                return TRUE if r else FALSE
    if ss.simprocs and h in ("=", "≠", "≤", "≥", "-") and len(t) == 4 and t[1] == "ℕ":
        # Lean core's ℕ offset simprocs (`Nat.reduceEqDiff`, `reduceLeDiff`, `reduceSubDiff`)
        offset = nat_offset_simproc(t)
        if offset is not None:
            return offset
    if (
        ss.simprocs
        and h == "app"
        and t[1] == ("const", "Nat.primeFactorsList")
        and len(t[2]) == 1
        and ss.ctx.env.mathlib
    ):
        factors = _primes_of(t[2][0], ss)
        if factors is not None:
            return factors
    if not default:
        # `simp only` still closes reflexive goals
        if h == "=" and canon(t[2]) == canon(t[3]):
            return TRUE
        if h == "↔" and canon(t[1]) == canon(t[2]):
            return TRUE
        # Lean's `simp only` has no lemma for `True ∧ p`, `True → p`, … (they are `true_and`, `true_implies`
        # of the default set): Aesop's NormSimp.lean test (b5b9e2b, line 31) fails where they would close it
        return _logic_core(t) if ss.eval_fields else None
    # --- logic
    core = _logic_core(t)
    if core is not None:
        return core
    if h == "¬":
        a = t[1]
        if a[0] == "¬":
            ss.ctx.use_standard_axioms()
            return a[1]
        if a[0] == "<" and a[1] in _NUM_TYPES:
            return ("≤", a[1], a[3], a[2])
        if a[0] == "≤" and a[1] in _NUM_TYPES:
            return ("<", a[1], a[3], a[2])
    if h == "≠":
        return ("¬", ("=", t[1], t[2], t[3]))  # `ne_eq`, a simp lemma: Lean's simp normal form is `¬a = b`
    # --- arithmetic identities
    if h in ("=", "≤", "≥") and canon(t[2]) == canon(t[3]):
        return TRUE
    if h in ("<", ">", "≠") and canon(t[2]) == canon(t[3]):
        return FALSE
    if h == "+":
        if _is_num(t[3], 0):
            return t[2]
        if _is_num(t[2], 0):
            return t[3]
    if h == "-":
        if _is_num(t[3], 0):
            return t[2]
        if canon(t[2]) == canon(t[3]):
            return ("num", t[1], 0)
        if t[1] == "ℕ" and _is_num(t[2], 0):
            return t[2]  # Nat.zero_sub
    if h == "*":
        if _is_num(t[3], 1):
            return t[2]
        if _is_num(t[2], 1):
            return t[3]
        if _is_num(t[3], 0) or _is_num(t[2], 0):
            return ("num", t[1], 0)
    if h == "/":
        if _is_num(t[3], 1):
            return t[2]
        if _is_num(t[2], 0) or _is_num(t[3], 0):
            return ("num", t[1], 0)
    if h == "^":
        if _is_num(t[3], 1):
            return t[2]
        if _is_num(t[3], 0):
            return ("num", t[1], 1)
        if _is_num(t[2], 1):
            return ("num", t[1], 1)
        if _is_num(t[2], 0) and t[3][0] == "num" and t[3][2] != 0:
            return ("num", t[1], 0)  # zero_pow (`n ≠ 0` by norm_num)
    if h in ("^", "*") and t[2] == _COMPLEX_I and (_is_num(t[3], 2) if h == "^" else t[3] == _COMPLEX_I):
        return ("neg", "ℂ", ("num", "ℂ", 1))  # Complex.I_sq, Complex.I_mul_I (@[simp])
    if h == "*" and t[1] != "ℕ" and (t[2][0] == "neg" or t[3][0] == "neg"):
        # neg_mul, mul_neg (@[simp], Mathlib/Algebra/Ring/Defs.lean): `-a * b = -(a * b)`, `a * -b = -(a * b)`
        if t[2][0] == "neg":
            return ("neg", t[1], ("*", t[1], t[2][2], t[3]))
        return ("neg", t[1], ("*", t[1], t[2], t[3][2]))
    if h == "/" and t[1] in _FIELD_TYPES and _is_num(t[2], 1):
        return ("inv", t[1], t[3])  # one_div (@[simp], Mathlib/Algebra/Group/Basic.lean): `1 / a = a⁻¹`
    if h == "inv" and t[1] in _FIELD_TYPES and t[2][0] == "inv":
        return t[2][2]  # inv_inv (@[simp])
    if h == "=" and t[1] in _FIELD_TYPES:
        if _is_num(t[2], 1) and t[3][0] == "inv":
            return ("=", t[1], t[3][2], t[2])  # one_eq_inv (@[simp]): `1 = a⁻¹ ↔ a = 1`
        if _is_num(t[3], 1) and t[2][0] == "inv":
            return ("=", t[1], t[2][2], t[3])  # inv_eq_one (@[simp]): `a⁻¹ = 1 ↔ a = 1`
    if h == "app" and t[1] == ("const", "Real.rpow") and len(t[2]) == 2:
        # Real.one_rpow, Real.rpow_zero, Real.rpow_one (@[simp], Mathlib/Analysis/SpecialFunctions/Pow/Real.lean)
        base, ex = t[2]
        if _is_num(base, 1) or _is_num(ex, 0):
            return ("num", "ℝ", 1)
        if _is_num(ex, 1):
            return base
    if h == "neg" and t[2][0] == "neg":
        return t[2][2]
    if h == "neg" and _is_num(t[2], 0):
        return t[2]
    if h == "abs" and t[2][0] == "abs":
        return t[2]
    if h == "cast":
        a = t[3]
        if a[0] == "num":
            return ("num", t[1], a[2])
        if a[0] in ("+", "*"):
            return (a[0], t[1], ("cast", t[1], t[2], a[2]), ("cast", t[1], t[2], a[3]))
        if a[0] == "^":
            return ("^", t[1], ("cast", t[1], t[2], a[2]), a[3])
    if h in ("=", "<", "≤", "≠") and t[2][0] == "cast" and t[3][0] == "cast" and t[2][2] == t[3][2]:
        # Nat.cast_inj / Nat.cast_lt / Nat.cast_le (casts into larger ordered rings are injective, monotone)
        return (h, t[2][2], t[2][3], t[3][3])
    if h == "=" and t[1] in _NUM_TYPES:
        # add_right_inj / add_left_inj / add_right_eq_self (cancellation is sound in every type here)
        a, b = t[2], t[3]
        if a[0] == "+" and b[0] == "+":
            if canon(a[2]) == canon(b[2]):
                return ("=", t[1], a[3], b[3])
            if canon(a[3]) == canon(b[3]):
                return ("=", t[1], a[2], b[2])
        if a[0] == "+" and canon(a[2]) == canon(b):
            return ("=", t[1], a[3], ("num", t[1], 0))
        if b[0] == "+" and canon(b[2]) == canon(a):
            return ("=", t[1], b[3], ("num", t[1], 0))
    if h == "=" and t[1] in _NUM_TYPES:
        a, b = t[2], t[3]
        if b[0] == "num" and b[2] == 0 and a[0] == "*":
            return ("∨", ("=", t[1], a[2], b), ("=", t[1], a[3], b))  # mul_eq_zero (no zero divisors)
        if a[0] == "num" and a[2] == 0 and b[0] == "*":
            return ("∨", ("=", t[1], b[2], a), ("=", t[1], b[3], a))  # zero_eq_mul
        if b[0] == "num" and b[2] == 0 and a[0] == "-" and t[1] != "ℕ":
            return ("=", t[1], a[2], a[3])  # sub_eq_zero (not on ℕ: truncated subtraction)
        if b[0] == "num" and b[2] == 0 and a[0] == "neg":
            return ("=", t[1], a[2], b)  # neg_eq_zero
        if b[0] == "num" and b[2] == 0 and a[0] == "^" and a[3][0] == "num" and a[3][2] > 0:
            return ("=", t[1], a[2], b)  # pow_eq_zero_iff (exponent ≠ 0)
    if h in ("<", "≤") and t[1] in _NUM_TYPES:
        a, b = t[2], t[3]
        if a[0] == "+" and b[0] == "+" and canon(a[2]) == canon(b[2]):
            return (h, t[1], a[3], b[3])
        if a[0] == "+" and b[0] == "+" and canon(a[3]) == canon(b[3]):
            return (h, t[1], a[2], b[2])
        if h == "≤" and t[1] == "ℕ" and _is_num(a, 0):
            return TRUE  # zero_le
        if h == "≤" and t[1] == "ℕ" and _is_num(b, 0):
            return ("=", "ℕ", a, b)  # Nat.le_zero_eq
    if h == "<" and t[1] == "ℕ" and _is_num(t[3], 0):
        return FALSE  # not_lt_zero'
    if h in ("<", "≤") and t[1] in ("ℤ", "ℚ", "ℝ"):
        a, b = t[2], t[3]
        if _is_num(a, 0) and b[0] == "neg":
            return (h, t[1], b[2], a)  # neg_pos / neg_nonneg: `0 < -a ↔ a < 0`
        if _is_num(b, 0) and a[0] == "neg":
            return (h, t[1], b, a[2])  # neg_lt_zero / neg_nonpos: `-a < 0 ↔ 0 < a`
    if h == "<" and t[1] in _NUM_TYPES and _is_num(t[2], 0) and t[3][0] == "*":
        a, b = t[3][2], t[3][3]
        if b[0] == "num" and b[2] > 0:
            return ("<", t[1], t[2], a)  # mul_pos_iff_of_pos_right (`0 < c` by norm_num)
        if a[0] == "num" and a[2] > 0:
            return ("<", t[1], t[2], b)  # mul_pos_iff_of_pos_left
    if h in ("∃",):
        body = t[3]
        bv = ("var", t[1])
        if body[0] == "∧":
            from lean_gym.sim.terms import free_vars

            if t[1] not in free_vars(body[2]):  # exists_and_right (Lean core, @[simp])
                return ("∧", ("∃", t[1], t[2], body[1]), body[2])
            if t[1] not in free_vars(body[1]):  # exists_and_left
                return ("∧", body[1], ("∃", t[1], t[2], body[2]))
        if body[0] == "∧" and body[1][0] == "=" and (body[1][2] == bv or body[1][3] == bv):
            witness = body[1][3] if body[1][2] == bv else body[1][2]
            from lean_gym.sim.terms import free_vars, subst

            if t[1] not in free_vars(witness):
                return subst(body[2], t[1], witness)  # exists_eq_left
        if body[0] == "=" and (body[2] == bv or body[3] == bv):
            other = body[3] if body[2] == bv else body[2]
            from lean_gym.sim.terms import free_vars

            if t[1] not in free_vars(other):
                return TRUE  # exists_eq / exists_eq'
    return None


# ------------------------------------------------------------------------ norm_num's Mathlib extensions


def _numeral(t: Term) -> tuple[str, int | Fraction] | None:
    """The type and value of a numeral in norm_num's normal form (``n``, ``-n``, ``n / d``), else ``None``."""
    h = t[0]
    if h == "num" and type(t[2]) in (int, Fraction):
        return t[1], t[2]
    if h == "neg" and t[2][0] in ("num", "/"):
        got = _numeral(t[2])
        return None if got is None else (t[1], -got[1])
    if h == "/" and t[2][0] == "num" and t[3][0] == "num" and t[3][2] != 0:
        a, b = _numeral(t[2]), _numeral(t[3])
        return None if a is None or b is None else (t[1], Fraction(a[1]) / Fraction(b[1]))
    return None


def _to_numeral(ty: str, v: int | Fraction, ss: SimpSet) -> Term | None:
    try:
        return mk_num(ty, v)
    except NumeralTooLarge:
        ss.ctx.numeral_too_large = True
        return None


def _nn_nat_prime(t: Term, ss: SimpSet) -> Term | None:
    """``Nat.Prime n`` of a numeral: Mathlib's ``evalNatPrime`` (``Mathlib/Tactic/NormNum/Prime.lean``)."""
    got = _numeral(t[2][0]) if len(t[2]) == 1 else None
    if got is None or got[0] != "ℕ" or not isinstance(got[1], int):
        return None
    r = nat_prime(got[1], ss.ctx.tick)
    if r is None:
        return None
    _tick(ss)
    return TRUE if r else FALSE


def _nn_nat_fn(t: Term, ss: SimpSet) -> Term | None:
    """``Nat.minFac n``, ``Nat.log b n``, ``Nat.fib n`` of numerals: Mathlib's ``evalMinFac``
    (``NormNum/Prime.lean``), ``evalNatLog`` (``NormNum/NatLog.lean``), ``evalNatFib`` (``NormNum/NatFib.lean``)."""
    args = [_numeral(a) for a in t[2]]
    if any(a is None or a[0] != "ℕ" or not isinstance(a[1], int) for a in args):
        return None
    vals = [int(a[1]) for a in args if a is not None]
    f = t[1][1]
    r: int | None
    if f == "Nat.minFac" and len(vals) == 1:
        r = nat_min_fac(vals[0], ss.ctx.tick)
    elif f == "Nat.log" and len(vals) == 2:
        ss.ctx.tick(max(vals[1].bit_length(), 1))
        r = nat_log(vals[0], vals[1])
    elif f == "Nat.fib" and len(vals) == 1 and vals[0] <= 20_000:
        ss.ctx.tick(vals[0] + 1)
        r = nat_fib(vals[0])
    else:
        r = None
    if r is None:
        return None
    _tick(ss)
    return _to_numeral("ℕ", r, ss)


def _primes_of(n: Term, ss: SimpSet) -> Term | None:
    """Mathlib's simproc ``Nat.primeFactorsList_ofNat`` (``Mathlib/Tactic/NormNum/Factors.lean``, in the
    default simp set): ``Nat.primeFactorsList`` of a numeral is the list literal of its prime factors."""
    v = _lit_nat(n)
    if v is None:
        return None
    got = prime_factors_list(v, ss.ctx.tick)
    if got is None:
        return None
    _tick(ss)
    out: Term = LIST_NIL
    for p in reversed(got):
        out = list_cons(("num", "ℕ", p), out)
    return out


def _lit_nat(t: Term) -> int | None:
    return t[2] if t[0] == "num" and t[1] == "ℕ" and type(t[2]) is int else None


def _nn_real_sqrt(t: Term, ss: SimpSet) -> Term | None:
    """``√x`` of a numeral: Mathlib's ``evalRealSqrt`` (``Mathlib/Tactic/NormNum/RealSqrt.lean``)."""
    got = _numeral(t[2][0]) if len(t[2]) == 1 else None
    if got is None or got[0] != "ℝ":
        return None
    r = real_sqrt(got[1])
    if r is None:
        return None
    _tick(ss)
    return _to_numeral("ℝ", r, ss)


def _nn_real_rpow(t: Term, ss: SimpSet) -> Term | None:
    """``a ^ b`` on ℝ of numerals: Mathlib's ``evalRPow`` (``Mathlib/Analysis/SpecialFunctions/Pow/Real.lean``,
    see :func:`lean_gym.sim.arith.normnum.real_rpow`)."""
    if len(t[2]) != 2:
        return None
    a, b = _numeral(t[2][0]), _numeral(t[2][1])
    if a is None or b is None or a[0] != "ℝ" or b[0] != "ℝ":
        return None
    r = real_rpow(a[1], b[1])
    if r is None:
        return None
    _tick(ss)
    return _to_numeral("ℝ", r, ss)


def _nn_int_floor(t: Term, ss: SimpSet) -> Term | None:
    """``⌊x⌋`` of a numeral: Mathlib's ``evalIntFloor`` (``Mathlib/Data/Rat/Floor.lean``, ``@[norm_num ⌊_⌋]``);
    only norm_num has it (ℝ is not computable: ``decide`` and ``rfl`` do not evaluate it)."""
    got = _numeral(t[2][0]) if len(t[2]) == 1 else None
    if got is None or got[0] not in ("ℚ", "ℝ"):
        return None
    _tick(ss)
    return _to_numeral("ℤ", math.floor(got[1]), ss)


MAX_BIGOP_TERMS = 10_000
"""norm_num evaluates a big operator over at most this many elements (each costs heartbeats as well)."""


def _nn_bigop(t: Term, ss: SimpSet) -> Term | None:
    """``∑ i ∈ Finset.range n, f i`` / ``∏``: Mathlib's ``evalFinsetSum``/``evalFinsetProd``
    (``Mathlib/Tactic/NormNum/BigOperators.lean``, read at 0906b2a): ``Finset.range n`` of a numeral is peeled one element at
    a time (``Finset.range_succ'``), each ``f i`` must evaluate to a numeral (norm_num's core: no simp
    lemma), and the results are added (multiplied); any other set, or a term that is no numeral, fails."""
    if len(t[2]) != 2:
        return None
    s, f = t[2]
    if s[0] != "app" or s[1] != ("const", "Finset.range") or len(s[2]) != 1 or f[0] != "fun":
        return None
    n = _numeral(s[2][0])
    if n is None or n[0] != "ℕ" or not isinstance(n[1], int) or n[1] > MAX_BIGOP_TERMS:
        return None
    x, body = f[1], f[3]
    core = SimpSet(ss.ctx, default=False, eval_fields=True)
    is_sum = t[1][1] == "Finset.sum"
    total: int | Fraction = 0 if is_sum else 1
    ty = _body_type(f)
    for i in range(n[1]):
        _tick(ss)
        got = _numeral(simp_term(subst(body, x, ("num", "ℕ", i)), core))
        if got is None or (ty is not None and got[0] != ty):
            return None
        ty = got[0]
        total = total + got[1] if is_sum else total * got[1]
    if ty is None:
        return None
    return _to_numeral(ty, total, ss)


def _body_type(f: Term) -> str | None:
    body = f[3]
    if body == ("var", f[1]) and f[2][0] == "type":
        return str(f[2][1])
    if (
        body[0] in ("num", "+", "-", "*", "/", "%", "^", "neg", "abs", "cast", "inv")
        and body[1] in _NUM_TYPES
    ):
        return str(body[1])
    return _app_type(body) if body[0] == "app" else None


_NORM_NUM_EXTENSIONS: dict[str, Callable[[Term, SimpSet], Term | None]] = {
    "Nat.Prime": _nn_nat_prime,
    "Nat.minFac": _nn_nat_fn,
    "Nat.log": _nn_nat_fn,
    "Nat.fib": _nn_nat_fn,
    "Real.sqrt": _nn_real_sqrt,
    "Real.rpow": _nn_real_rpow,
    "Int.floor": _nn_int_floor,
    "Finset.sum": _nn_bigop,
    "Finset.prod": _nn_bigop,
}
"""Mathlib's norm_num extensions on applications the simulator models, by head (``norm_num``/``norm_num1``
only: ``simp`` has none of them, and ``decide``/``rfl`` do not unfold these definitions)."""


def _app_type(t: Term) -> str | None:
    f = t[1][1] if t[0] == "app" else None
    from lean_gym.sim.elab import BUILTIN_FNS

    if f in BUILTIN_FNS:
        return BUILTIN_FNS[f][1]
    return None


def _logic_core(t: Term) -> Term | None:
    h = t[0]
    if h == "∧":
        a, b = t[1], t[2]
        if b == TRUE:
            return a
        if a == TRUE:
            return b
        if a == FALSE or b == FALSE:
            return FALSE
        if canon(a) == canon(b):
            return a
    elif h == "∨":
        a, b = t[1], t[2]
        if a == TRUE or b == TRUE:
            return TRUE
        if b == FALSE:
            return a
        if a == FALSE:
            return b
        if canon(a) == canon(b):
            return a
    elif h == "→":
        a, b = t[1], t[2]
        if b == TRUE or a == FALSE:
            return TRUE
        if a == TRUE:
            return b
        if b == FALSE:
            return ("¬", a)
        if canon(a) == canon(b):
            return TRUE
    elif h == "¬":
        if t[1] == TRUE:
            return FALSE
        if t[1] == FALSE:
            return TRUE
    elif h == "↔":
        a, b = t[1], t[2]
        if canon(a) == canon(b):
            return TRUE
        if b == TRUE:
            return a
        if a == TRUE:
            return b
        if b == FALSE:
            return ("¬", a)
        if a == FALSE:
            return ("¬", b)
    elif h == "∀":
        if t[3] == TRUE:
            return TRUE
    elif h == "∃":
        if t[3] == FALSE:
            return FALSE
    elif h == "=" and t[1] == "Prop":
        return ("↔", t[2], t[3])
    return None


# ------------------------------------------------------------------------------------------- tactics


def parse_simp_args(syn: TacSyntax) -> tuple[bool, list[tuple[bool, Syn]], list[str] | None, bool, set[str]]:
    """``simp only [rules] at loc`` → (only, rules, locations, star, flags): the flags are the options the
    simulator honours, ``-failIfUnchanged`` and ``+arith`` (``+arith`` also from ``(config := { arith := true
    })``)."""
    from lean_gym.sim.tactics import _parse_location

    ts = syn.stream(1)
    only = False
    star = False
    flags: set[str] = set()
    if ts.is_sym("("):
        # (config := { … }): `arith := true|false` is honoured, every other field accepted and ignored
        # (documented)
        depth = 0
        window: list[str] = []  # the last three tokens: `arith`, `:=`, `true`
        while ts.tok.kind != "eof":
            t = ts.advance()
            if t.text == "(":
                depth += 1
            elif t.text == ")":
                depth -= 1
                if depth == 0:
                    break
            window = [*window[-2:], t.text]
            if window[:2] == ["arith", ":="] and window[2] in ("true", "false"):
                flags.discard("+arith")
                if window[2] == "true":
                    flags.add("+arith")
    while (ts.is_sym("+") or ts.is_sym("-")) and ts.peek(1).kind == "ident":
        # `simp -failIfUnchanged`, `simp +arith` (Lean's optConfig): only the options the simulator honours
        # are accepted
        sign = ts.advance().text
        opt = ts.advance()
        if opt.text not in ("failIfUnchanged", "arith"):
            raise TacticError(
                f"simp's `{sign}{opt.text}` is outside the simulator's Lean subset", opt.start, opt.end
            )
        if opt.text == "arith":
            flags.discard("+arith")
            if sign == "-":
                continue
        flags.add(sign + opt.text)
    if ts.is_word("only"):
        ts.advance()
        only = True
    rules: list[tuple[bool, Syn]] = []
    if ts.is_sym("["):
        ts.advance()
        if not ts.is_sym("]"):
            while True:
                rev = False
                if ts.is_sym("←") or ts.is_sym("<-"):
                    ts.advance()
                    rev = True
                if ts.is_sym("*"):
                    ts.advance()
                    star = True
                elif ts.is_sym("-"):
                    ts.advance()
                    ts.advance()  # erased lemma: ignored
                else:
                    rules.append((rev, parse_term(ts, 0)))
                if ts.is_sym(","):
                    ts.advance()
                    continue
                break
        ts.expect_sym("]")
    locs = _parse_location(ts)
    if ts.is_word("using") or ts.tok.kind != "eof":
        if ts.tok.kind != "eof":
            raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    return only, rules, locs, star, flags


#: Lean core's ground-arithmetic simprocs on ℕ and ℤ literals (``Lean/Meta/Tactic/Simp/BuiltinSimprocs/
#: Nat.lean``, ``Int.lean``), which SATP's minimal proofs name (``simp_all only [Nat.reduceMul]``). They are in
#: the default ``simprocs`` set, which ``simp only`` keeps, so naming one adds nothing: the simulator's simp
#: evaluates closed ℕ/ℤ arithmetic and comparisons in every variant.
CORE_SIMPROCS = frozenset(
    f"{ty}.reduce{op}"
    for ty in ("Nat", "Int")
    for op in ("Add", "Mul", "Sub", "Div", "Mod", "Pow", "Gcd", "LT", "LTLE", "GT", "LE", "GE", "Eq", "Ne",
               "BEq", "BNe", "EqDiff", "LeDiff", "SubDiff", "Dvd", "Neg", "Succ", "Abs")
)  # fmt: skip


#: Mathlib simp lemmas about numeric literals (``OfNat.ofNat n`` with ``n.AtLeastTwo``), which SATP's minimal
#: proofs name; the simulator has no literal metavariable to state them with, so a call that names one
#: decides the literal facts it states (``literal_fact``), at the ordered semirings ℕ ℤ ℚ ℝ (all of
#: characteristic zero, as the lemmas need):
#: ``Nat.ofNat_pos : 0 < OfNat.ofNat n``, ``OfNat.ofNat_ne_zero : OfNat.ofNat n ≠ 0``,
#: ``OfNat.ofNat_ne_one : OfNat.ofNat n ≠ 1``, ``zero_lt_one : 0 < 1``, ``Nat.abs_ofNat : |OfNat.ofNat n| =
#: OfNat.ofNat n``, ``Nat.cast_ofNat : ((OfNat.ofNat n : ℕ) : R) = OfNat.ofNat n``.
LITERAL_FACTS = frozenset(
    {
        "Nat.ofNat_pos",
        "OfNat.ofNat_ne_zero",
        "OfNat.ofNat_ne_one",
        "zero_lt_one",
        "Nat.abs_ofNat",
        "Nat.cast_ofNat",
    }
)


#: Core definitions the simulator represents by a built-in head, and the library lemma that states the
#: definition's equation (what `simp [Ne]` rewrites with: Lean's `Ne.eq_1 : Ne a b = ¬a = b`).
BUILTIN_DEF_EQUATIONS: dict[str, str] = {"Ne": "ne_eq"}

#: Core simp lemmas about constants that no term the simulator elaborates contains (``id``: the simulator
#: does not elaborate ``id x``). Naming one in a simp call is accepted, as Lean accepts it, and it never
#: rewrites anything (in Lean it could only rewrite a term the simulator refuses to read).
UNREPRESENTED_SIMP_LEMMAS = frozenset({"id_eq", "id_def"})


#: Simp lemmas about lists and the digits of numerals (``@[simp]`` in Mathlib/Data/Nat/Digits/Defs.lean, and
#: Lean core's generated ``List.cons.injEq``): in the default set, and in ``simp only`` where named. The
#: conditional ``Nat.digits_of_two_le_of_pos`` (``2 ≤ b → 0 < n → digits b n = n % b :: digits b (n / b)``)
#: rewrites a numeral ``n`` in a numeral base, where simp's discharger decides both premises on literals.
LIST_SIMP_LEMMAS = frozenset(
    {
        "Nat.digits_of_two_le_of_pos",
        "Nat.digits_add_two_add_one",
        "Nat.digits_zero",
        "Nat.ofDigits_nil",
        "Nat.ofDigits_singleton",
        "List.cons.injEq",
    }
)


def list_fact(t: Term, names: set[str] | frozenset[str]) -> Term | None:
    """What the list and digit lemmas among ``names`` (:data:`LIST_SIMP_LEMMAS`) rewrite ``t`` to; the
    distinctness of ``[]`` and ``a :: l`` always (Lean core's ``reduceCtorEq``, a default simproc that
    ``simp only`` keeps)."""
    h = t[0]
    if h == "=" and isinstance(t[1], str) and t[1].startswith("List "):
        a, b = t[2], t[3]
        ca, cb = _is_cons(a), _is_cons(b)
        if (ca and b == LIST_NIL) or (cb and a == LIST_NIL):
            return FALSE  # reduceCtorEq
        if ca and cb and "List.cons.injEq" in names:
            elem = t[1].split(" ", 1)[1]
            return ("∧", ("=", elem, a[2][0], b[2][0]), ("=", t[1], a[2][1], b[2][1]))
        return None
    if h != "app" or t[1][0] != "const":
        return None
    f, args = t[1][1], t[2]
    if f == "Nat.digits" and len(args) == 2 and args[0][0] == "num" and args[1][0] == "num":
        b, n = args[0][2], args[1][2]
        if n == 0 and "Nat.digits_zero" in names:
            return LIST_NIL
        if b >= 2 and n > 0 and ({"Nat.digits_of_two_le_of_pos", "Nat.digits_add_two_add_one"} & names):
            return list_cons(("num", "ℕ", n % b), ("app", t[1], (args[0], ("num", "ℕ", n // b))))
        return None
    if f == "Nat.ofDigits" and len(args) == 2:
        if args[1] == LIST_NIL and "Nat.ofDigits_nil" in names:
            return ("num", "ℕ", 0)
        if _is_cons(args[1]) and args[1][2][1] == LIST_NIL and "Nat.ofDigits_singleton" in names:
            return args[1][2][0]
    return None


def _is_cons(t: Term) -> bool:
    return t[0] == "app" and t[1] == ("const", "List.cons") and len(t[2]) == 2


def literal_fact(t: Term, names: set[str]) -> Term | None:
    """What the named :data:`LITERAL_FACTS` rewrite ``t`` to, or ``None``."""
    h = t[0]
    lit = lambda u: u[0] == "num" and isinstance(u[2], int) and u[2] >= 2  # noqa: E731
    if h == "<" and _is_num(t[2], 0) and t[3][0] == "num":
        if ("Nat.ofNat_pos" in names and lit(t[3])) or ("zero_lt_one" in names and _is_num(t[3], 1)):
            return TRUE
    if h in ("=", "≠") and t[1] in _NUM_TYPES:
        a, b = t[2], t[3]
        zero = "OfNat.ofNat_ne_zero" in names and ((lit(a) and _is_num(b, 0)) or (lit(b) and _is_num(a, 0)))
        one = "OfNat.ofNat_ne_one" in names and lit(a) and _is_num(b, 1)
        if zero or one:
            return FALSE if h == "=" else TRUE
    if h == "abs" and "Nat.abs_ofNat" in names and lit(t[2]):
        return t[2]
    if h == "cast" and "Nat.cast_ofNat" in names and t[2] == "ℕ" and lit(t[3]):
        return ("num", t[1], t[3][2])
    return None


def add_hyp_rule(ss: SimpSet, p: Term, rev: bool = False) -> None:
    """Add hypothesis ``p`` as simp uses a local fact: ``∀ x, f x = e`` rewrites every instance ``f t``
    (Lean's ``simp [h]``, and ``simp_all`` with each other hypothesis); with premises
    (``∀ x, x ≠ 0 → f x = e``) the rule is conditional, each premise discharged by simp (an equation or
    ``↔`` conclusion only: a peeled ``¬q`` concludes ``False``, no rewrite rule); the fact itself rewrites
    to ``True``."""
    tel = prop_telescope(p)
    if tel.binders:
        hinst = Instance(tel)
        premises = _open_premises(hinst)
        if not premises:
            ss.add_prop(hinst.conclusion, rev, hinst)
        elif hinst.conclusion[0] in ("=", "↔"):
            ss.add_prop(hinst.conclusion, rev, hinst, tuple(premises))
    ss.add_prop(p, rev)


def _open_premises(inst: Instance) -> list[Term]:
    """Open every binder of ``inst`` as a metavariable; the types of its propositional binders (its premises)."""
    premises: list[Term] = []
    while inst.pending:
        b = inst.next_binder()
        if b.is_prop:
            premises.append(b.type)
        inst.mvar_next()
    return premises


def add_simp_arg(ss: SimpSet, goal: Goal, rev: bool, term: Syn, ctx: TacticContext) -> None:
    while term.kind == "paren" and len(term.args) == 1 and isinstance(term.args[0], Syn):
        term = term.args[0]  # `simp [(h)]` is `simp [h]`
    if term.kind == "ident":
        name = term.args[0]
        p = goal.hyp(name)
        if p is not None and is_prop_type(p):
            add_hyp_rule(ss, p, rev)
            return
        d = ctx.lookup(name)
        if d is not None and d.kind == "def":
            ss.unfold.add(name)
            return
        base, _, suffix = name.rpartition(".")
        if suffix in ("eq_def", "eq_1") and base:
            d = ctx.lookup(base)
            if d is not None and d.kind == "def" and not d.binders:
                ss.unfold.add(base)  # `f.eq_def : f = body`, the equation lemma Lean generates for a def
                return
        from lean_gym.sim.elab import BUILTIN_FNS

        if d is None and name in BUILTIN_FNS:
            return  # `norm_num [Nat.factorial]`: closed applications are evaluated anyway
        if d is None and name in LITERAL_FACTS:
            ss.literal_facts.add(name)
            return
        if name in LIST_SIMP_LEMMAS:
            ss.literal_facts.add(name)
            if d is not None:
                ctx.axioms.update(d.axioms)
            return
        if d is None and name in CORE_SIMPROCS:
            return  # a default simproc: `simp only` runs it anyway, as the simulator evaluates ℕ/ℤ literals
        if d is None and name in BUILTIN_DEF_EQUATIONS:
            # a core definition the simulator writes as a built-in head (`Ne a b` is `a ≠ b`): simp unfolds it
            # by its equation lemma (`Ne.eq_1 : Ne a b = ¬a = b`), which the library states as a theorem
            d = ctx.lookup(BUILTIN_DEF_EQUATIONS[name])
        if d is None and name in UNREPRESENTED_SIMP_LEMMAS:
            return  # a core simp lemma about a constant no elaborated term contains: it never rewrites
        if d is not None and d.kind in ("theorem", "axiom"):
            ctx.axioms.update(d.axioms)
            inst = Instance(decl_telescope(d))
            premises = _open_premises(inst)
            if premises:
                # conditional rewrite rules are outside the simulator's simp (it would need to discharge them)
                return
            ss.add_prop(inst.conclusion, rev, inst)
            return
        if p is None and d is None:
            raise ElabError(f"Unknown identifier `{name}`", term.start, term.end)
    p = ProofChecker(goal, ctx).infer(term)
    tel = prop_telescope(p)
    inst = Instance(tel)
    if _open_premises(inst):
        # `¬q` peels to `q → False` and `h : p → a = b` has a premise: the conclusion alone is no rewrite
        # rule (it would turn `False` into `True`); the proposition itself still is (`q` to `False`)
        ss.add_prop(p, rev)
        return
    ss.add_prop(inst.conclusion, rev, inst if tel.binders else None)


def _simp_goal(goal: Goal, syn: TacSyntax, ctx: TacticContext, variant: str) -> list[Goal]:
    only, rules, locs, star, flags = parse_simp_args(syn)
    start = goal
    eval_fields = variant in ("norm_num", "norm_num1")
    ss = SimpSet(ctx, default=not only and variant != "norm_num1", eval_fields=eval_fields)
    ss.arith = "+arith" in flags
    if variant == "norm_num1":
        ss.default = False
        ss.simprocs = False
    for rev, term in rules:
        add_simp_arg(ss, goal, rev, term, ctx)
    if star:
        ctx.tick(len(goal.hyps))
        for _, p in goal.props():
            ss.add_prop(p)
    ctx.use_axiom("propext")
    if ctx.env.mathlib and (eval_fields or not only):
        ctx.use_standard_axioms()
    targets: list[str | None]
    if locs is None:
        targets = [None]
    elif locs == ["*"]:
        targets = [n for n, _ in goal.props()] + [None]
    else:
        targets = [None if n == "⊢" else n for n in locs]
    progress = False
    for where in targets:
        if where is None:
            t = goal.target
            if not is_prop_type(t):
                continue
            before = ss.steps
            new = simp_term(t, ss)
            if new == TRUE:
                return close_from(start, goal, Rewrote(variant, new), ctx)
            if _changed(t, new, ss.steps > before):
                progress = True
                goal = goal.with_target(new)
        else:
            ctx.tick(len(goal.hyps))  # finding and replacing the hypothesis walks the context
            hp = goal.hyp(where)
            if hp is None:
                raise TacticError(f"unknown hypothesis '{where}'")
            p = hp
            # a hypothesis is not rewritten with itself
            saved = ss.rules
            ss.rules = [r for r in saved if canon(r[0]) != canon(p)]
            before = ss.steps
            new = simp_term(p, ss, {})
            ss.rules = saved
            if new == FALSE:
                return close_from(start, goal, Rewrote(variant, new, goal.find(where)), ctx)
            if _changed(p, new, ss.steps > before):
                progress = True
                if new == TRUE:
                    goal = goal.remove_hyp(where)
                else:
                    goal = goal.replace_hyp(where, new)
    if not progress:
        if variant in ("norm_num", "norm_num1"):
            raise TacticError(
                f"{variant} failed to simplify" if locs is None else "norm_num made no progress"
            )
        if "-failIfUnchanged" in flags:
            return [goal]
        raise TacticError("simp made no progress")
    if variant in ("norm_num", "norm_num1"):
        # norm_num's closing step: a goal that is now a hypothesis is not closed (Lean's norm_num does not
        # use hypotheses), but `x ≤ x`-style goals reduced above are.
        pass
    return [goal]


@builtin("simp_arith", "simp_arith!", "simp_all_arith", "simp_all_arith!")
def _simp_arith_deprecated(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """Lean core's ``evalSimpArith`` and its siblings (``src/Lean/Elab/Tactic/SimpArith.lean``): the tactic
    is deprecated and fails, suggesting ``simp +arith`` (the suggestion, an info message, is not printed)."""
    base = syn.name.replace("_arith", "")
    raise TacticError(
        f"`{syn.name}` has been deprecated. It was a shorthand for `{base} +arith +decide`, but most of the "
        "time, `+decide` was redundant since simprocs have been implemented."
    )


@builtin("simp", "simp!", "dsimp", "simp_rw", "norm_num", "norm_num1", "simp_all", "simp_all!")
def _simp_tac(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    name = syn.name
    if name == "simp_all" or name == "simp_all!":
        return _simp_all(goal, syn, ctx)
    if name == "simp_rw":
        return _simp_rw(goal, syn, ctx)
    variant = "norm_num" if name == "norm_num" else "norm_num1" if name == "norm_num1" else "simp"
    return _simp_goal(goal, syn, ctx, variant)


@builtin("simpa", "simpa!")
def _simpa(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``simpa [rules] using e``: simp the goal and ``e``'s type alike, then close with ``e`` (or ``this``)."""
    toks = list(syn.toks)
    using_at = next((i for i, t in enumerate(toks) if t.kind == "ident" and t.text == "using"), None)
    head = TacSyntax(
        syn.name,
        tuple(toks[:using_at]) if using_at is not None else syn.toks,
        syn.src,
        syn.start,
        toks[using_at - 1].end if using_at is not None else syn.end,
    )
    only, rules, locs, _star, flags = parse_simp_args(head)
    if locs is not None:
        raise TacticError("simpa does not take a location")
    ss = SimpSet(ctx, default=not only)
    ss.arith = "+arith" in flags
    for rev, term in rules:
        add_simp_arg(ss, goal, rev, term, ctx)
    ctx.use_axiom("propext")
    target = simp_term(goal.target, ss) if is_prop_type(goal.target) else goal.target
    if target == TRUE:
        return close(goal, Rewrote("simpa", target), ctx)
    if using_at is not None:
        ts = TokenStream([*toks[using_at + 1 :], toks[-1].__class__("eof", "", syn.end, syn.end, 0, 0, True)])
        term = parse_term(ts, 0)
        p = ProofChecker(goal, ctx).infer(term)
    else:
        this = goal.hyp("this")
        if this is None:
            raise TacticError(f"simpa failed: no `using` term and no hypothesis `this`\n\n{goal.pretty()}")
        p = this
    ss2 = SimpSet(ctx, default=not only)
    ss2.arith = ss.arith
    for rev, term2 in rules:
        add_simp_arg(ss2, goal, rev, term2, ctx)
    q = simp_term(p, ss2, {})
    if q == FALSE or canon(q) == canon(target):
        # the derived goal: the simplified target, with the simplified type of the `using` term as a local
        derived, this = goal.with_target(target).add_local("this", q)
        return close_from(goal, derived, Rewrote("simpa", q, this[1]), ctx)
    # Lean's text (``Simpa.lean``: the header names the `using` term ``e`` itself, then
    # ``throwTypeMismatchError``), as ``tests/elab/4101.lean`` records it (leanprover/lean4 at f9e0c70583ad)
    shown = (
        "this"
        if using_at is None
        else " ".join(syn.src.text[toks[using_at + 1].start : toks[-1].end].split())
    )
    raise TacticError(
        f"Type mismatch: After simplification, term\n  {shown}\n has type\n  {pretty(q, goal.ascii)}\n"
        f"but is expected to have type\n  {pretty(target, goal.ascii)}"
    )


def _simp_rw(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    _, rules, locs, _, flags = parse_simp_args(syn)
    if locs is not None:
        # the rules rewrite only the goal here: with `at h` that would close goals Lean leaves open
        raise TacticError("`simp_rw … at …` is outside the simulator's Lean subset")
    if "+arith" in flags:
        raise TacticError("`simp_rw` with `arith` is outside the simulator's Lean subset")
    start = goal
    for i, (rev, term) in enumerate(rules):
        ss = SimpSet(ctx, default=False)
        add_simp_arg(ss, goal, rev, term, ctx)
        t = goal.target
        new = simp_term(t, ss)
        if canon(new) == canon(t):
            raise TacticError("simp made no progress")
        if new == TRUE:
            if i + 1 < len(rules):
                # Mathlib's `simp_rw` runs `simp only [rule]` once per rule on the main goal: a rule after
                # the goal is closed has none (MathlibTest/SimpRw.lean at 2bfb86689145, line 51)
                raise TacticError("No goals to be solved")
            return close_from(start, goal, Rewrote("simp_rw", new), ctx)
        goal = goal.with_target(new)
    return [goal]


def _changed(old: Term, new: Term, rewrote: bool) -> bool:
    """Whether simp changed ``old`` into ``new``: a new canonical form, or a rewrite that gave another
    expression with the same canonical form (``ne_eq`` turns ``a ≠ b`` into ``¬a = b``: Lean's simp
    compares expressions, so that is progress)."""
    return canon(new) != canon(old) or (rewrote and new != old)


def _simp_all(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    only, rules, _, _, flags = parse_simp_args(syn)
    arith = "+arith" in flags
    ctx.use_axiom("propext")
    progress = False
    goal0 = goal  # Lean elaborates the `[…]` arguments once, in the initial context
    for _round in range(8):
        changed = False
        names = [n for n, _ in goal.props()]
        for name in names:
            ctx.tick(len(goal.hyps))  # each hypothesis is simplified with all the others as rules
            p = goal.hyp(name)
            if p is None:
                continue
            ss = SimpSet(ctx, default=not only)
            ss.arith = arith
            for rev, term in rules:
                add_simp_arg(ss, goal0, rev, term, ctx)
            for n2, q in goal.props():
                if n2 != name:
                    add_hyp_rule(ss, q)
            new = simp_term(p, ss)
            if new == FALSE:
                return close_from(goal0, goal, Rewrote("simp_all", new, goal.find(name)), ctx)
            if _changed(p, new, ss.steps > 0):
                changed = True
                goal = goal.remove_hyp(name) if new == TRUE else goal.replace_hyp(name, new)
        ctx.tick(len(goal.hyps))
        ss = SimpSet(ctx, default=not only)
        ss.arith = arith
        for rev, term in rules:
            add_simp_arg(ss, goal0, rev, term, ctx)
        for _, q in goal.props():
            add_hyp_rule(ss, q)
        new = simp_term(goal.target, ss)
        if new == TRUE:
            return close_from(goal0, goal, Rewrote("simp_all", new), ctx)
        if _changed(goal.target, new, ss.steps > 0):
            changed = True
            goal = goal.with_target(new)
        if not changed:
            break
        progress = True
    if not progress:
        raise TacticError("simp_all made no progress")
    return [goal]


# ------------------------------------------------------------------------------------------- push_neg


def push_neg_term(t: Term, distrib: bool = False) -> Term:
    """Mathlib's ``push_neg`` normal form (negations pushed to atoms); ``distrib``: the option
    ``push_neg.use_distrib``, under which ``¬(p ∧ q)`` is ``¬p ∨ ¬q`` (``not_and_or``) instead of ``p → ¬q``."""
    h = t[0]
    if h == "¬":
        a = t[1]
        ha = a[0]
        if ha == "¬":
            return push_neg_term(a[1], distrib)
        if ha == "∧":
            if distrib:
                return ("∨", push_neg_term(("¬", a[1]), distrib), push_neg_term(("¬", a[2]), distrib))
            return ("→", push_neg_term(a[1], distrib), push_neg_term(("¬", a[2]), distrib))
        if ha == "∨":
            return ("∧", push_neg_term(("¬", a[1]), distrib), push_neg_term(("¬", a[2]), distrib))
        if ha == "→":
            return ("∧", push_neg_term(a[1], distrib), push_neg_term(("¬", a[2]), distrib))
        if ha == "↔":
            return ("↔", push_neg_term(a[1], distrib), push_neg_term(("¬", a[2]), distrib))
        if ha == "∀":
            return ("∃", a[1], a[2], push_neg_term(("¬", a[3]), distrib))
        if ha == "∃":
            return ("∀", a[1], a[2], push_neg_term(("¬", a[3]), distrib))
        if ha == "<" and a[1] in _NUM_TYPES:
            return ("≤", a[1], a[3], a[2])
        if ha == "≤" and a[1] in _NUM_TYPES:
            return ("<", a[1], a[3], a[2])
        if ha == ">" and a[1] in _NUM_TYPES:
            return ("≤", a[1], a[2], a[3])
        if ha == "≥" and a[1] in _NUM_TYPES:
            return ("<", a[1], a[2], a[3])
        if ha == "=":
            return ("≠", a[1], a[2], a[3])
        if ha == "≠":
            return ("=", a[1], a[2], a[3])
        if a == TRUE:
            return FALSE
        if a == FALSE:
            return TRUE
        return t
    if h in ("∧", "∨", "→", "↔"):
        return (h, push_neg_term(t[1], distrib), push_neg_term(t[2], distrib))
    if h in ("∀", "∃"):
        return (h, t[1], t[2], push_neg_term(t[3], distrib))
    return t


@builtin("push_neg")
def _push_neg(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    from lean_gym.sim.tactics import _map_at, _parse_location

    ts = syn.stream(1)
    locs = _parse_location(ts)
    ctx.use_standard_axioms()
    distrib = ctx.env.options.get("push_neg.use_distrib") is True
    goal, changed = _map_at(goal, locs, lambda t: push_neg_term(t, distrib))
    if not changed:
        raise TacticError(
            "push_neg made no progress"
            if locs is None
            else "push_neg made no progress at the given locations"
        )
    return [goal]


# ---------------------------------------------------------------------------------------------- casts


def _push_cast(t: Term, le: frozenset[Term] = frozenset()) -> Term:
    """``push_cast``: casts moved to the leaves. ``le`` holds the ℕ facts ``b ≤ a`` given as simp arguments
    (``zify [hab]``), under which ``Nat.cast_sub`` moves ``↑(a - b)`` to ``↑a - ↑b``, and the ℕ/ℤ facts
    ``n ∣ m`` (as ``("∣", n, m)``), under which ``Nat.cast_div_charZero``/``Int.cast_div_charZero`` move
    ``↑(m / n)`` into ℚ or ℝ as ``↑m / ↑n`` (``qify [hab]``: simp's discharger proves the premise with the
    simp argument)."""
    h = t[0]
    if h == "cast":
        to, frm, a = t[1], t[2], _push_cast(t[3], le)
        ha = a[0]
        if ha == "num":
            return ("num", to, a[2])
        if ha == "/" and frm in ("ℕ", "ℤ") and to in ("ℚ", "ℝ") and ("∣", a[3], a[2]) in le:
            return ("/", to, _push_cast(("cast", to, frm, a[2]), le), _push_cast(("cast", to, frm, a[3]), le))
        if ha in ("+", "*") or (ha == "-" and (frm != "ℕ" or (a[3], a[2]) in le)):
            return (ha, to, _push_cast(("cast", to, frm, a[2]), le), _push_cast(("cast", to, frm, a[3]), le))
        if ha == "neg":
            return ("neg", to, _push_cast(("cast", to, frm, a[2]), le))
        if ha == "^":
            return ("^", to, _push_cast(("cast", to, frm, a[2]), le), a[3])
        if ha == "cast":
            return _push_cast(("cast", to, a[2], a[3]), le)
        return ("cast", to, frm, a)
    return map_subterms(t, lambda c: _push_cast(c, le))


def _zify_rel(t: Term, to: str, le: frozenset[tuple[Term, Term]] = frozenset()) -> Term:
    h = t[0]
    if h in ("=", "≠", "<", "≤", ">", "≥") and (
        t[1] == "ℕ" or (to in ("ℚ", "ℝ") and t[1] == "ℤ") or (to == "ℝ" and t[1] == "ℚ")
    ):
        frm = t[1]
        return (h, to, _push_cast(("cast", to, frm, t[2]), le), _push_cast(("cast", to, frm, t[3]), le))
    if h == "∣" and t[1] == "ℕ" and to == "ℤ":
        # zify's `natCast_dvd` (`a ∣ b ↔ (a : ℤ) ∣ (b : ℤ)`, @[zify_simps] in Mathlib/Tactic/Zify.lean);
        # qify and rify have no such lemma
        return (h, to, _push_cast(("cast", to, "ℕ", t[2]), le), _push_cast(("cast", to, "ℕ", t[3]), le))
    if h in ("=", "≠", "<", "≤", ">", "≥") and t[1] == to and le:
        return (h, to, _push_cast(t[2], le), _push_cast(t[3], le))
    if h in ("∧", "∨", "→", "↔"):
        return (h, _zify_rel(t[1], to, le), _zify_rel(t[2], to, le))
    if h == "¬":
        return ("¬", _zify_rel(t[1], to, le))
    return t


def _nat_le_facts(facts: list[Term]) -> frozenset[Term]:
    """The pairs ``(b, a)`` of the ℕ facts ``b ≤ a`` (or ``a ≥ b``, ``b < a``) among ``facts``, and the
    triples ``("∣", n, m)`` of the ℕ/ℤ facts ``n ∣ m`` (the premises of push_cast's conditional lemmas)."""
    out: set[Term] = set()
    for f in facts:
        if f[0] in ("≤", "<") and f[1] == "ℕ":
            out.add((f[2], f[3]))
        elif f[0] in ("≥", ">") and f[1] == "ℕ":
            out.add((f[3], f[2]))
        elif f[0] == "∣" and f[1] in ("ℕ", "ℤ"):
            out.add(("∣", f[2], f[3]))
    return frozenset(out)


def _closed_by_rfl(t: Term) -> bool:
    return (t[0] == "↔" and t[1] == t[2]) or (t[0] == "=" and t[2] == t[3])


def _with_rules(fn: Callable[[Term], Term], ss: SimpSet) -> Callable[[Term], Term]:
    """``fn`` and the rewrite rules of ``ss`` alternated to a fixpoint: one simp call's two lemma sets."""

    def both(t: Term) -> Term:
        for _ in range(8):
            new = simp_term(fn(t), ss)
            if new == t:
                break
            t = new
        return t

    return both


def run_simp_variant(goal: Goal, syn: TacSyntax, ctx: TacticContext, name: str) -> list[Goal]:
    """``push_cast``, ``zify``, ``qify`` and ``rify`` (``norm_cast`` is Lean core's ``derive``: :mod:`lean_gym.sim.tac_cast`)."""
    from lean_gym.sim.tactics import _location_has_target, _location_hyps, _parse_location

    ts = syn.stream(1)
    facts: list[Term] = []
    # the simp arguments are simp lemmas of the same simp call (Mathlib's `push_cast [h]`, `zify [h]`):
    # rewrite rules beside the cast lemmas; an ℕ fact `b ≤ a` among them also discharges `Nat.cast_sub`
    extra = SimpSet(ctx, default=False)
    if name in ("zify", "qify", "rify", "push_cast") and ts.is_sym("["):
        from lean_gym.sim.proofs import ProofChecker

        ts.advance()
        while not ts.is_sym("]") and ts.tok.kind != "eof":
            rev = ts.is_sym("←")
            if rev:
                ts.advance()
            try:
                arg = parse_term(ts, 0)
                add_simp_arg(extra, goal, rev, arg, ctx)
                facts.append(ProofChecker(goal, ctx).infer(arg))
            except (ElabError, TacticError):
                # a simp lemma the simulator does not know: it is not used (weaker than Lean)
                while ts.tok.kind != "eof" and not ts.is_sym(",") and not ts.is_sym("]"):
                    ts.advance()
            if ts.is_sym(","):
                ts.advance()
    while ts.tok.kind != "eof" and not ts.is_word("at"):
        ts.advance()
    locs = _parse_location(ts)
    le = _nat_le_facts(facts)
    fn: Callable[[Term], Term]
    if name == "push_cast":
        fn = lambda t: _push_cast(t, le)  # noqa: E731
    elif name in ("zify", "qify", "rify"):
        to = {"zify": "ℤ", "qify": "ℚ", "rify": "ℝ"}[name]
        fn = lambda t: _zify_rel(t, to, le)  # noqa: E731
    else:
        raise TacticError(f"`{name}` is outside the simulator's subset")
    if extra.rules or extra.unfold:
        fn = _with_rules(fn, extra)
    changed = False
    if _location_has_target(locs):
        new = fn(goal.target)
        if new == TRUE or (new != goal.target and _closed_by_rfl(new)):
            ctx.use_standard_axioms()
            # simp closes a goal its rewriting turned into `a ↔ a` or `a = a`
            return close(goal, Rewrote(name, new), ctx)
        if new != goal.target:
            goal = goal.with_target(new)
            changed = True
    names = _location_hyps(goal, locs)
    for n in names:
        ctx.tick(len(goal.hyps))
        p = goal.hyp(n)
        if p is None:
            raise TacticError(f"unknown hypothesis '{n}'")
        new = fn(p)
        if new != p:
            goal = goal.replace_hyp(n, new)
            changed = True
    ctx.use_standard_axioms()
    if not changed and name in ("zify", "qify", "rify"):
        # Mathlib's `zify` is the macro `simp -decide only [zify_simps, push_cast, …] at loc`
        # (Mathlib/Tactic/Zify.lean; `qify`, `rify` alike), and simp fails when it changes nothing;
        # `push_cast` (`failIfUnchanged := false`) returns its goal unchanged
        raise TacticError("simp made no progress")
    return [goal]
