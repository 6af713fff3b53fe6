"""``norm_cast``, ``exact_mod_cast``, ``assumption_mod_cast`` and the ``mod_cast`` term, as Lean implements them.

Lean core's ``Lean.Elab.Tactic.NormCast.derive`` normalises a proposition in three simp passes, each
modelled here over the simulator's casts (``("cast", to, from, e)`` along ℕ → ℤ → ℚ → ℝ):

1. numerals to casts: every numeral ``(n : α)`` with ``α ≠ ℕ`` becomes ``((n : ℕ) : α)`` (``numeralToCoe``);
2. casts moved up and eliminated, bottom-up, each result simplified again (``upwardAndElim``):

   * *elim* lemmas: ``↑a = ↑b ↔ a = b`` and the same for ``≠ < ≤ > ≥`` (``Nat.cast_inj``, ``Int.cast_lt``,
     ``Rat.cast_le``, …), ``(↑m ∣ ↑n : ℤ) ↔ m ∣ n`` (ℕ into ℤ), ``|(↑n : α)| = ↑n`` (``Nat.abs_cast``);
   * *move* lemmas read right to left: ``↑a + ↑b`` → ``↑(a + b)``, likewise ``*``, ``↑a ^ n``, ``-↑a`` and
     ``↑a - ↑b`` from ℤ/ℚ, ``|↑a|`` from ℤ/ℚ, ``↑a / ↑b`` and ``(↑a)⁻¹`` from ℚ (``Rat.cast_div``), ``/`` and
     ``%`` from ℕ into ℤ (``Int.natCast_div``, ``Int.natCast_mod``), and ``↑a - ↑b`` from ℕ when a local
     hypothesis ``b ≤ a`` is in context (``Nat.cast_sub``, whose premise norm_cast's discharger ``prove``
     looks up among the locals and nowhere else);
   * the *splitting* heuristic: ``op ↑x ↑y`` with ``x : α``, ``y : β`` and a coercion ``α → β`` becomes
     ``op ↑(↑x : β) ↑y`` (or the other way round), so that a move or elim lemma applies next;
3. casts squashed: ``↑(↑a : β)`` → ``↑a`` (``Int.cast_natCast``, ``Rat.cast_intCast``, …) and a cast
   numeral back to a numeral (``Nat.cast_ofNat``).

``norm_cast`` is ``norm_cast0 <;> try trivial`` and ``assumption_mod_cast`` is ``norm_cast0 at * <;>
assumption`` (Lean core's macros); ``exact_mod_cast e`` checks that ``e``'s type and the goal have the same
normal form. What is not modelled (weaker than Lean): ``Nat.cast_div``/``Int.cast_div`` (premises from
the context), ``max``/``min``, ``Nat.succ``, casts into types beyond ℝ, and user ``@[norm_cast]`` lemmas.
"""

from __future__ import annotations

from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import Hyp, Refl, Rewrote, close_from
from lean_gym.sim.proofs import TERM_MACROS, ProofChecker
from lean_gym.sim.syntax import Syn
from lean_gym.sim.tac_basic import _term_arg, _trivial_closes
from lean_gym.sim.tactics import (
    TacSyntax,
    TacticContext,
    TacticError,
    _location_has_target,
    _location_hyps,
    _parse_location,
    builtin,
)
from lean_gym.sim.terms import FALSE, NUM_RANK, Term, is_prop_type, map_subterms, pretty
from lean_gym.sim.unify import canon, defeq

__all__ = ["derive", "le_facts"]

#: The numeric types along their coercions: a cast goes from a lower rank to a higher one.
_RANK = NUM_RANK
_RELS = frozenset({"=", "≠", "<", "≤", ">", "≥"})
# binary nodes whose two arguments have the node's type: where the splitting heuristic looks
_SPLIT = frozenset({"+", "-", "*", "/", "%", "∣"}) | _RELS

LeFacts = frozenset[Term]


def le_facts(goal: Goal) -> LeFacts:
    """The ℕ facts ``b ≤ a`` among ``goal``'s locals (``a ≥ b`` too: it unfolds to ``b ≤ a``), canonical:
    what norm_cast's discharger finds for ``Nat.cast_sub``'s premise."""
    out: set[Term] = set()
    for _, t in goal.props():
        if t[0] in ("≤", "≥") and t[1] == "ℕ":
            out.add(canon(t))
    return frozenset(out)


def derive(t: Term, le: LeFacts = frozenset()) -> Term:
    """``t`` normalised as Lean's ``norm_cast`` does (the module docstring's three steps)."""
    return _squash(_up(_numerals(t), le))


def _numerals(t: Term) -> Term:
    if t[0] == "num":
        if t[1] in _RANK and t[1] != "ℕ" and type(t[2]) is int and t[2] >= 0:
            return ("cast", t[1], "ℕ", ("num", "ℕ", t[2]))
        return t
    return map_subterms(t, _numerals)


def _up(t: Term, le: LeFacts) -> Term:
    t = map_subterms(t, lambda c: _up(c, le))
    r = _up_step(t, le)
    # Lean's `Simp.Step.visit`: a rewritten node is simplified again
    return t if r is None else _up(r, le)


def _is_cast(t: Term) -> bool:
    return t[0] == "cast" and t[2] in _RANK and t[1] in _RANK


def _up_step(t: Term, le: LeFacts) -> Term | None:
    """One rewrite at the root of ``t`` with an elim lemma, a move lemma read upwards, or the splitting
    heuristic; ``None`` when none applies."""
    h = t[0]
    if h in _SPLIT and _is_cast(t[2]) and _is_cast(t[3]):
        to, a, b = t[1], t[2], t[3]
        s = a[2]
        if s == b[2]:
            x, y = a[3], b[3]
            if h in _RELS:
                return (h, s, x, y)
            if h == "∣":
                return ("∣", s, x, y) if (s, to) == ("ℕ", "ℤ") else None
            if h in ("+", "*"):
                return ("cast", to, s, (h, s, x, y))
            if h == "-" and (s != "ℕ" or canon(("≤", "ℕ", y, x)) in le):
                return ("cast", to, s, ("-", s, x, y))
            if h in ("/", "%") and (s, to) == ("ℕ", "ℤ"):
                return ("cast", to, s, (h, s, x, y))
            if h == "/" and s == "ℚ":
                return ("cast", to, s, ("/", s, x, y))
            return None
        # splitting: lift the argument cast from the lower type through the other one's type
        if _RANK[s] < _RANK[b[2]]:
            return (h, to, ("cast", to, b[2], ("cast", b[2], s, a[3])), b)
        return (h, to, a, ("cast", to, s, ("cast", s, b[2], b[3])))
    if h == "^" and _is_cast(t[2]):
        c = t[2]
        return ("cast", t[1], c[2], ("^", c[2], c[3], t[3]))
    if h in ("neg", "abs", "inv") and _is_cast(t[2]):
        c = t[2]
        s = c[2]
        if h == "abs" and s == "ℕ":
            return c  # Nat.abs_cast, an elim lemma
        if (h == "neg" and s in ("ℤ", "ℚ")) or (h == "abs" and s in ("ℤ", "ℚ")) or (h == "inv" and s == "ℚ"):
            return ("cast", t[1], s, (h, s, c[3]))
    return None


def _squash(t: Term) -> Term:
    t = map_subterms(t, _squash)
    if t[0] == "cast":
        inner = t[3]
        if inner[0] == "cast":
            return _squash(("cast", t[1], inner[2], inner[3]))
        if inner[0] == "num" and type(inner[2]) is int and inner[2] >= 0:
            return ("num", t[1], inner[2])
        if t[1] == t[2]:
            return inner
    return t


# ----------------------------------------------------------------------------------------------- tactics


@builtin("norm_cast")
def _norm_cast(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    start = goal
    ts = syn.stream(1)
    locs = _parse_location(ts)
    if ts.tok.kind != "eof":
        raise TacticError("the simulator's `norm_cast` takes no arguments but a location")
    ctx.use_standard_axioms()
    le = le_facts(goal)
    if _location_has_target(locs):
        goal = goal.with_target(derive(goal.target, le))
    names = _location_hyps(goal, locs)
    for n in names:
        ctx.tick(len(goal.hyps))
        p = goal.hyp(n)
        if p is None:
            raise TacticError(f"unknown hypothesis '{n}'")
        new = derive(p, le)
        if new == FALSE:
            return close_from(start, goal, Rewrote("norm_cast", FALSE, goal.find(n)), ctx)
        if new != p:
            goal = goal.replace_hyp(n, new)
    t = goal.target
    if t[0] == "↔" and defeq(t[1], t[2]):
        return close_from(start, goal, Refl(), ctx)
    j = _trivial_closes(goal, ctx, 3)
    if j is not None:
        return close_from(start, goal, j, ctx)
    return [goal]


@builtin("assumption_mod_cast")
def _assumption_mod_cast(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``norm_cast0 at * <;> assumption``: the goal and every hypothesis normalised, then ``assumption``."""
    ctx.use_standard_axioms()
    le = le_facts(goal)
    start = goal
    normal = goal.with_target(derive(goal.target, le))
    for n, t in goal.props():
        new = derive(t, le)
        if new == FALSE:
            return close_from(start, normal, Rewrote("norm_cast", FALSE, goal.find(n)), ctx)
        if new != t:
            normal = normal.replace_hyp(n, new)
    target = normal.target
    for n, t in reversed(normal.hyps):
        if is_prop_type(t) and defeq(t, target):
            return close_from(start, normal, Hyp(n), ctx)
    raise TacticError("assumption_mod_cast failed")


@builtin("exact_mod_cast")
def _exact_mod_cast(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    got = _check_mod_cast(ProofChecker(goal, ctx), _term_arg(syn), goal.target)
    # the normalised goal with the term's normalised type as a local (the term's type is the checker's)
    normal = goal.with_target(derive(goal.target, le_facts(goal)))
    derived, this = normal.add_local("this", got)
    return close_from(goal, derived, Rewrote("norm_cast", got, this[1]), ctx)


def _check_mod_cast(pc: ProofChecker, term: Syn, expected: Term) -> Term:
    """``exact_mod_cast e`` and the term ``mod_cast e``: ``e``'s type and ``expected`` agree after norm_cast."""
    le = le_facts(pc.goal)
    target = derive(expected, le)
    p = derive(pc.infer(term), le)
    if defeq(p, target):
        return p
    raise TacticError(
        f"Type mismatch: the normalized type\n  {pretty(p, pc.goal.ascii)}\ndoes not match the normalized goal\n  {pretty(target, pc.goal.ascii)}"
    )


def _mod_cast_macro(pc: ProofChecker, term: Syn, expected: Term) -> None:
    _check_mod_cast(pc, term, expected)


TERM_MACROS["mod_cast"] = _mod_cast_macro
