"""Evaluation of closed terms with Lean's semantics, and the ``rfl``/``decide`` checks built on it.

Tactic-core layer: the proof-term checker, simp and the tactic families all use it, so it sits below them
(it imports only terms, unification, the arithmetic package and, for types, the elaborator's ``Decl``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Protocol
from typing import cast as cast_domain

from lean_gym.sim.arith import Domain, EvalTooExpensive, binop, dvd, factorial, nat_gcd, nat_lcm
from lean_gym.sim.terms import FALSE, TRUE, Term, map_subterms, mk_num, subst
from lean_gym.sim.unify import canon

if TYPE_CHECKING:
    from lean_gym.sim.elab import Decl

__all__ = ["MAX_GROUND_FINSET", "decide_closed", "eval_term", "fold_literals", "ground_finset", "rfl_closes"]

DOMAIN = {"ℕ": "Nat", "ℤ": "Int", "ℚ": "Rat", "ℝ": "Real", "ℂ": "Real"}
"""The arithmetic of each number type's closed terms. ``ℂ``'s rational constants compute as ``ℝ``'s (``ℚ`` embeds
in both, field operations, ``x / 0 = 0`` and ``0⁻¹ = 0`` alike); nothing orders them (``<`` on ``ℂ`` is not
elaborated), and ``%``, ``∣`` on ``ℂ`` are not elaborated either."""


class EvalContext(Protocol):
    """What evaluation uses of a tactic context (:class:`lean_gym.sim.tactics.TacticContext`): its heartbeat
    meter and its declarations. A protocol, not the class: ``tac_grind`` evaluates with a stand-in that
    charges nothing, which a mypyc build (docs/simulator.md) would refuse as the wrong class."""

    def tick(self, n: int = 1) -> None: ...

    def lookup(self, name: str) -> Decl | None: ...


def _dom(ty: str) -> Domain:
    return cast_domain(Domain, DOMAIN[ty])


# ------------------------------------------------------------------------------------------ evaluation


def eval_term(
    t: Term, ctx: EvalContext | None = None, unfold: bool = True, kernel: bool = False
) -> int | Fraction | None:
    """The exact value of a closed arithmetic term with Lean's semantics, or ``None`` if it is not closed.

    ``kernel``: evaluate as reduction does (``decide``'s kernel evaluation, ``rfl``'s ``isDefEq`` at default
    transparency), which also computes ``Finset.card`` of a ground finite set (:func:`ground_finset`);
    simp and norm_num have no lemma or simproc that does (Mathlib's interval simprocs
    ``Finset.Icc_ofNat_ofNat`` are ``simproc_decl``, not in the default set), so they do not.

    Raises:
        EvalTooExpensive: for a numeral too large to build (``5 ^ 999999``).
    """
    if kernel and t[0] == "app" and t[1] == ("const", "Finset.card") and len(t[2]) == 1 and ctx is not None:
        elems = ground_finset(t[2][0], ctx)
        return None if elems is None else len(elems)
    return _eval(t, ctx, unfold, kernel)


def _eval(t: Term, ctx: EvalContext | None, unfold: bool, kernel: bool) -> int | Fraction | None:
    h = t[0]
    if h == "num":
        v = t[2]
        return v if isinstance(v, int) else Fraction(v)
    if h in ("+", "-", "*", "/", "%"):
        a = eval_term(t[2], ctx, unfold, kernel)
        if a is None:
            return None
        b = eval_term(t[3], ctx, unfold, kernel)
        if b is None:
            return None
        try:
            return binop(h, a, b, _dom(t[1]))
        except ValueError:
            return None
    if h == "^":
        a = eval_term(t[2], ctx, unfold, kernel)
        b = eval_term(t[3], ctx, unfold, kernel)
        if a is None or b is None or b < 0:
            return None
        if ctx is not None:
            ctx.tick(1 + int(b).bit_length())
        return binop("^", a, b, _dom(t[1]))
    if h == "neg":
        a = eval_term(t[2], ctx, unfold, kernel)
        return None if a is None else -a
    if h == "abs":
        a = eval_term(t[2], ctx, unfold, kernel)
        return None if a is None else (a if a >= 0 else -a)
    if h == "inv":
        a = eval_term(t[2], ctx, unfold, kernel)
        return None if a is None else (Fraction(0) if a == 0 else 1 / Fraction(a))
    if h == "cast":
        a = eval_term(t[3], ctx, unfold, kernel)
        if a is None:
            return None
        return a if t[1] in ("ℕ", "ℤ") else Fraction(a)
    if h == "app" and t[1][0] == "const":
        f = t[1][1]
        args = [eval_term(a, ctx, unfold, kernel) for a in t[2]]
        if any(a is None for a in args):
            return None
        if f == "Nat.succ":
            return args[0] + 1  # type: ignore[operator]
        if f == "Nat.pred":
            return max(int(args[0]) - 1, 0)  # type: ignore[arg-type]
        if f == "Nat.factorial":
            if ctx is not None:
                ctx.tick(int(args[0]))  # type: ignore[arg-type]
            return factorial(int(args[0]))  # type: ignore[arg-type]
        if f in ("Nat.gcd", "Int.gcd"):
            return nat_gcd(abs(int(args[0])), abs(int(args[1])))  # type: ignore[arg-type]
        if f == "Nat.lcm":
            return nat_lcm(int(args[0]), int(args[1]))  # type: ignore[arg-type]
        if f == "Int.natAbs":
            return abs(int(args[0]))  # type: ignore[arg-type]
        if f == "Int.toNat":
            return max(int(args[0]), 0)  # type: ignore[arg-type]
        if unfold and ctx is not None:
            d = ctx.lookup(f)
            if d is not None and d.kind == "def" and d.value is not None and len(d.binders) == len(args):
                body = d.value
                for (n, _, _), a in zip(d.binders, t[2]):
                    body = subst(body, n, a)
                return eval_term(body, ctx, unfold, kernel)
        return None
    if h == "const" and unfold and ctx is not None:
        d = ctx.lookup(t[1])
        if d is not None and d.kind == "def" and d.value is not None and not d.binders:
            return eval_term(d.value, ctx, unfold, kernel)
    return None


def decide_closed(
    p: Term, ctx: EvalContext, allow_fields: bool = False, depth: int = 0, kernel: bool = False
) -> bool | None:
    """Decide a closed proposition by evaluation (bounded quantifiers over ℕ/ℤ), or ``None``.

    ``allow_fields`` admits ℚ/ℝ comparisons (``norm_num`` evaluates them; ``decide`` cannot, as in Lean);
    ``kernel`` evaluates as kernel reduction does (``decide``: see :func:`eval_term`).
    """
    ctx.tick(1)
    h = p[0]
    if p == TRUE:
        return True
    if p == FALSE:
        return False
    if h in ("=", "≠", "<", "≤", ">", "≥", "∣"):
        ty = p[1]
        if ty in ("ℚ", "ℝ", "ℂ") and not allow_fields:
            return None
        if ty == "Prop":
            a, b = (
                decide_closed(p[2], ctx, allow_fields, depth, kernel),
                decide_closed(p[3], ctx, allow_fields, depth, kernel),
            )
            if a is None or b is None:
                return None
            return (a == b) if h == "=" else (a != b)
        if ty not in DOMAIN:
            if ty == "Bool" and p[2][0] == "bool" and p[3][0] == "bool" and h in ("=", "≠"):
                return (p[2][1] == p[3][1]) == (h == "=")
            return None
        try:
            va = eval_term(p[2], ctx, kernel=kernel)
            vb = eval_term(p[3], ctx, kernel=kernel)
        except (EvalTooExpensive, ValueError):
            return None
        if va is None or vb is None:
            return None
        if h == "∣":
            return dvd(va, vb, _dom(ty))
        from lean_gym.sim.arith import compare

        return compare(h, va, vb)
    if h == "¬":
        r = decide_closed(p[1], ctx, allow_fields, depth, kernel)
        return None if r is None else not r
    if h in ("∧", "∨", "→", "↔"):
        a = decide_closed(p[1], ctx, allow_fields, depth, kernel)
        if a is None:
            return None
        if h == "∧" and not a:
            return False
        if h == "∨" and a:
            return True
        if h == "→" and not a:
            return True
        b = decide_closed(p[2], ctx, allow_fields, depth, kernel)
        if b is None:
            return None
        if h in ("∧", "∨", "→"):
            return b
        return a == b
    if h in ("∀", "∃") and depth < 3:
        rng = _bounded_range(p)
        if rng is None:
            return None
        x, lo, hi, body = rng
        if hi - lo > MAX_GROUND_FINSET:
            return None
        want = h == "∀"
        for v in range(lo, hi):
            ctx.tick(2)
            r = decide_closed(subst(body, x, mk_num(p[2][1], v)), ctx, allow_fields, depth + 1, kernel)
            if r is None:
                return None
            if r != want:
                return not want
        return want
    return None


MAX_GROUND_FINSET = 100_000
"""The most elements a ground finite set or bounded quantifier is evaluated over (the simulator's cap on its
own work: past it the proposition is not decided, weaker than Lean, whose kernel may still reduce it)."""


def ground_finset(s: Term, ctx: EvalContext) -> tuple[int, ...] | None:
    """The elements, in order, of a ground finite set of ℕ or ℤ as reduction computes them: ``Finset.range n``,
    ``Finset.Icc a b`` (``LocallyFiniteOrder ℕ``/``ℤ``: ``List.range' a (b + 1 - a)``) and ``Finset.filter
    (fun x => p) s`` with ``p`` decided for each element (its ``DecidablePred`` instance reduced, as
    ``decide`` does); ``None`` for anything else (a local ``S : Finset T``) or past
    :data:`MAX_GROUND_FINSET` elements."""
    if s[0] != "app" or s[1][0] != "const":
        return None
    f, args = s[1][1], s[2]
    if f == "Finset.filter" and len(args) == 2 and args[0][0] == "fun":
        inner = ground_finset(args[1], ctx)
        if inner is None:
            return None
        _, x, xty, body = args[0]
        out = []
        for v in inner:
            ctx.tick(2)
            r = decide_closed(subst(body, x, mk_num(xty[1], v)), ctx, kernel=True)
            if r is None:
                return None
            if r:
                out.append(v)
        return tuple(out)
    try:
        bounds = [eval_term(a, ctx, kernel=True) for a in args]
    except EvalTooExpensive:
        return None
    if any(not isinstance(b, int) for b in bounds):
        return None
    if f == "Finset.range" and len(bounds) == 1:
        lo, hi = 0, int(bounds[0])  # type: ignore[arg-type]
    elif f == "Finset.Icc" and len(bounds) == 2:
        lo, hi = int(bounds[0]), int(bounds[1]) + 1  # type: ignore[arg-type]
    else:
        return None
    if hi - lo > MAX_GROUND_FINSET:
        return None
    ctx.tick(1 + max(hi - lo, 0))
    return tuple(range(lo, hi))


def _bounded_range(p: Term) -> tuple[str, int, int, Term] | None:
    """``∀ x, x < n → P`` / ``∃ x, x < n ∧ P`` over ℕ (or with a lower bound over ℤ)."""
    x, ty, body = p[1], p[2], p[3]
    if ty[0] != "type" or ty[1] not in ("ℕ", "ℤ"):
        return None
    conn = "→" if p[0] == "∀" else "∧"
    lo = 0 if ty[1] == "ℕ" else None
    hi: int | None = None
    cur = body
    v = ("var", x)
    # every leading bound is used (and only those are dropped): the rest of the body is evaluated as is
    while cur[0] == conn:
        b = _bound_of(cur[1], v)
        if b is None:
            break
        kind, val = b
        if kind == "hi":
            hi = val if hi is None else min(hi, val)
        else:
            lo = val if lo is None else max(lo, val)
        cur = cur[2]
    if lo is None or hi is None or cur is body:
        return None
    return x, lo, max(lo, hi), cur


def _bound_of(rel: Term, v: Term) -> tuple[str, int] | None:
    h = rel[0]
    if h not in ("<", "≤", ">", "≥"):
        return None
    a, b = rel[2], rel[3]
    if h in (">", "≥"):
        a, b = b, a
        h = "<" if h == ">" else "≤"
    if a == v:
        n = eval_term(b)
        if n is None or not isinstance(n, int):
            return None
        return ("hi", n if h == "<" else n + 1)
    if b == v:
        n = eval_term(a)
        if n is None or not isinstance(n, int):
            return None
        return ("lo", n + 1 if h == "<" else n)
    return None


_ARITH = frozenset({"+", "-", "*", "/", "%", "^"})


def fold_literals(t: Term, ctx: EvalContext) -> Term:
    """``t`` with every closed ℕ/ℤ arithmetic subterm of numerals replaced by its value: what ``isDefEq`` at
    default transparency sees (``Nat.add 0 0`` whnf-reduces to ``0``; Lean reduces literal ℕ arithmetic
    natively and ℤ's by its constructors). Definitions are not unfolded here."""
    h = t[0]
    if h in _ARITH and t[1] in ("ℕ", "ℤ"):
        try:
            v = eval_term(t, ctx, False)
        except (EvalTooExpensive, ValueError):
            v = None
        if isinstance(v, int):
            return ("num", t[1], v) if v >= 0 else ("neg", t[1], ("num", t[1], -v))
    return map_subterms(t, lambda c: fold_literals(c, ctx))


def rfl_closes(eq: Term, ctx: EvalContext, kernel: bool = False) -> bool:
    """Whether ``rfl`` proves ``eq``: syntactic equality, or closed ℕ/ℤ evaluation (kernel reduction);
    ``kernel``: as the ``rfl`` tactic's ``isDefEq`` at default transparency, which also reduces
    ``Finset.card`` of a ground finite set (:func:`eval_term`)."""
    h = eq[0]
    if h == "↔":
        return canon(eq[1]) == canon(eq[2])
    if h not in ("=", "≤", "≥"):
        return False
    if canon(eq[2]) == canon(eq[3]):
        return True
    if h != "=" or eq[1] not in ("ℕ", "ℤ"):
        return False
    try:
        a, b = eval_term(eq[2], ctx, kernel=kernel), eval_term(eq[3], ctx, kernel=kernel)
    except EvalTooExpensive:
        return False
    return a is not None and a == b
