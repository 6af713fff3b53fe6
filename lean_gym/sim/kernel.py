"""The simulator's trusted core: the one module that may mark a goal closed, from a justification it re-checks.

In the style of an LCF kernel (HOL Light's ``fusion.ml``, Lean's kernel): a tactic handler that closes its
goal calls :func:`close` with a *justification*, a frozen dataclass naming why the goal holds; the kernel
re-checks that justification against the goal itself and only then records the goal closed (with the
engine's key, see :func:`lean_gym.sim.tactics.seal`). The engine (:func:`lean_gym.sim.tactics._exec_atomic`)
refuses a handler that leaves no goal for a goal the kernel did not close in that call: that is a
:class:`~lean_gym.sim.tactics.KernelRefusal` (``internal simulator error``), never a proof. A justification
the kernel's check refutes raises the same error.

What each kind re-checks, and what it trusts (the trusted base is this module and what it calls:
:func:`~lean_gym.sim.unify.defeq`/:func:`~lean_gym.sim.unify.canon`, the evaluator
:mod:`lean_gym.sim.evaluate`, the term → polynomial conversion :mod:`lean_gym.sim.polyconv` with the
polynomial arithmetic of :mod:`lean_gym.sim.arith`, and the proof checker :mod:`lean_gym.sim.proofs`):

=====================  =====================================================================================
kind                   re-checked by the kernel / trusted
=====================  =====================================================================================
``Hyp(id)``            the local ``id`` is a proposition whose type is the target up to ``defeq``
``Contradiction``      a local is ``False``; or ``¬P`` with a local of type ``P``; or ``a ≠ a``; or a
                       closed proposition the evaluator decides false
``Refl``               the target is ``=``/``↔``/``≤``/``≥`` with ``defeq`` sides, or an ℕ/ℤ equation whose
                       closed sides evaluate equal (:func:`~lean_gym.sim.evaluate.rfl_closes`)
``TrueIntro``          the target is ``True``
``Decide``             the evaluator decides the closed target true (trusts the evaluator)
``Linear(certs)``      every certificate re-verifies (:meth:`~lean_gym.sim.arith.Certificate.check`: the
                       non-negative combination is a constant contradiction) and there is one; trusts the
                       translation of the goal's facts into the certificate's constraints (``tac_arith``'s
                       preprocessing)
``PolyIdentity``       the target is ``a = b`` in ℕ/ℤ/ℚ/ℝ/ℂ and both sides normalise to one polynomial
``ProofTerm(syn)``     the proof checker checked ``syn`` against the target in this call and left no goal
                       (trusts the proof checker, which is the check)
``Applied``            ``apply e``'s instantiated conclusion has no metavariable and unifies with the
                       target; trusts that its premises were discharged
``DataValue``          the target is a type (a data goal); trusts the elaboration of the value
``Admit(reason)``      nothing: the goal is admitted, and the kernel records ``sorryAx`` itself
``Subproof(leaves)``   there is a leaf, and each leaf was closed through the kernel in this call (or carries
                       a justification the kernel re-checks now); trusts the tactic's reduction of the goal
                       to its leaves
``Rewrote``            the rewritten form closes: a target rewritten to ``True`` or to a reflexive relation,
                       or a hypothesis rewritten to ``False`` or to the target; trusts the rewriting
``Decided``            only that the procedure is one the kernel lists (:data:`DECISION_PROCEDURES`) and the
                       target has the shape it decides; trusts the procedure (``omega``, ``positivity``, …)
``Renamed``            the goal is the original up to an order-preserving renaming of its locals, and the
                       original's justification re-checks standing alone (a memoised closure replayed)
=====================  =====================================================================================

Every closure also checks that the goal's terms are well formed against the table of term heads
(:func:`lean_gym.sim.terms.check_heads`). Re-checks run without spending the proof's heartbeats (the tactic
paid for that work): the kernel changes no verdict, message or budget.

Example:
    >>> from lean_gym.sim.tactics import TacticContext, goal_from_statement
    >>> ctx = TacticContext()
    >>> g = goal_from_statement("(p : Prop) (h : p) : p", ctx)
    >>> close(g, Hyp(g.find("h")), ctx)
    []
    >>> close(g, Refl(), ctx)
    Traceback (most recent call last):
    ...
    lean_gym.sim.tactics.KernelRefusal: the kernel refused Refl: the target is not a reflexive relation with equal sides
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lean_gym.sim.arith import ArithBudgetExceeded, Certificate, EvalTooExpensive
from lean_gym.sim.evaluate import decide_closed, eval_term, rfl_closes
from lean_gym.sim.goals import Goal, canonical_goal
from lean_gym.sim.polyconv import RING_TYPES, Conv
from lean_gym.sim.proofs import Checked, issued
from lean_gym.sim.syntax import Syn
from lean_gym.sim.tactics import KernelRefusal, SealFrame, TacticContext, _kernel_key, seal
from lean_gym.sim.terms import FALSE, TRUE, Term, check_heads, is_prop_type
from lean_gym.sim.unify import canon, defeq, match

__all__ = [
    "CLOSED_KINDS",
    "DECISION_PROCEDURES",
    "Admit",
    "Applied",
    "Contradiction",
    "DataValue",
    "Decide",
    "Decided",
    "Hyp",
    "Justification",
    "Linear",
    "PolyIdentity",
    "ProofTerm",
    "Refl",
    "Renamed",
    "Rewrote",
    "Subproof",
    "TrueIntro",
    "close",
    "close_cases",
    "close_from",
    "mark",
    "replayable",
]

_KEY = _kernel_key()

CLOSED_KINDS: dict[str, int] = {}
"""Goals the kernel closed in this process, by justification kind (tests read it)."""


@dataclass(frozen=True, slots=True)
class Hyp:
    """The local ``fid`` (an id) proves the target."""

    fid: str


@dataclass(frozen=True, slots=True)
class Contradiction:
    """The context is contradictory: local ``fid`` is ``False``, ``a ≠ a``, a closed false fact, or ``¬P``
    beside the local ``other`` of type ``P``."""

    fid: str
    other: str | None = None


@dataclass(frozen=True, slots=True)
class Refl:
    """The target is a reflexive relation whose sides agree."""


@dataclass(frozen=True, slots=True)
class TrueIntro:
    """The target is ``True``."""


@dataclass(frozen=True, slots=True)
class Decide:
    """The closed target evaluates to true (``decide``; ``fields``: ℚ/ℝ comparisons too, as ``norm_num``)."""

    fields: bool = False


@dataclass(frozen=True, slots=True)
class Linear:
    """``linarith``-style refutations: one certificate per refuted branch."""

    certificates: tuple[Certificate, ...]


@dataclass(frozen=True, slots=True)
class PolyIdentity:
    """The target ``a = b`` is a commutative-ring identity (``ring``)."""


@dataclass(frozen=True, slots=True)
class ProofTerm:
    """The term ``syn`` proves the target: the proof checker checked it in this call. The kernel finds the
    checker's record (:class:`~lean_gym.sim.proofs.Checked`) in the call's frame; the closure keeps it
    (``record``), so that the justification can be re-checked later (a memoised answer replayed)."""

    syn: Syn
    record: Checked | None = None


@dataclass(frozen=True, slots=True)
class Applied:
    """``apply e`` left no goal: ``conclusion`` is the conclusion of ``e``'s type with its premises
    instantiated and discharged; it unifies with the target."""

    conclusion: Term


@dataclass(frozen=True, slots=True)
class DataValue:
    """A data goal (its target a type, ``def f : ℕ := by exact 5``) got a value the tactic elaborated."""


@dataclass(frozen=True, slots=True)
class Renamed:
    """``original`` (closed by ``justification``) is the goal up to an order-preserving renaming of its
    locals (:func:`~lean_gym.sim.goals.canonical_goal`): a memoised answer replayed on a goal of that form."""

    original: Goal
    justification: Any


@dataclass(frozen=True, slots=True)
class Admit:
    """The goal is admitted (``sorry``, ``admit``): the kernel records the ``sorryAx`` axiom."""

    reason: str


@dataclass(frozen=True, slots=True)
class Subproof:
    """The goal was reduced to ``leaves`` by the tactic (a search, a combinator, a case split), and each leaf
    was closed through the kernel in this call; a leaf may carry its own justification (``(goal, j)``), which
    the kernel re-checks now (a memoised answer replayed)."""

    leaves: tuple[Goal | tuple[Goal, Any], ...]


@dataclass(frozen=True, slots=True)
class Rewrote:
    """A rewriting procedure turned the target (``hyp is None``) or the local ``hyp`` into ``result``."""

    procedure: str
    result: Term
    hyp: str | None = None


@dataclass(frozen=True, slots=True)
class Decided:
    """A decision procedure without a certificate (see :data:`DECISION_PROCEDURES`) proved the goal."""

    procedure: str


Justification = (
    Hyp
    | Contradiction
    | Refl
    | TrueIntro
    | Decide
    | Linear
    | PolyIdentity
    | ProofTerm
    | Admit
    | Subproof
    | Rewrote
    | Decided
    | DataValue
    | Renamed
    | Applied
)

_REL = frozenset({"=", "≠", "<", "≤", ">", "≥", "∣"})
_CONNECTIVES = frozenset({"¬", "∧", "∨", "→", "↔"})


def _any(t: Term) -> bool:
    return True


def _positivity_shape(t: Term) -> bool:
    h = t[0]
    if h in ("<", "≤"):
        return eval_term(t[2]) == 0
    if h in (">", "≥", "≠"):
        return eval_term(t[3]) == 0 or (h == "≠" and eval_term(t[2]) == 0)  # `0 ≠ e` too
    return False


DECISION_PROCEDURES: dict[str, Callable[[Term], bool]] = {
    "omega": _any,  # integer linear arithmetic (omega test); refutes the context when the target is not one
    "positivity": _positivity_shape,  # `0 < e`, `0 ≤ e`, `e ≠ 0`, `0 ≠ e`
    "interval_cases": _any,  # an empty range of cases: the bounds contradict (checked by its own search)
    "tauto": _any,  # propositional tautology search over the context
    "gcongr": _any,  # monotonicity side goals discharged by its own search
    "norm_num": _any,  # norm_num's extensions (evaluation of divisibility, primes, …)
    "abel": _any,  # commutative-group normal forms decided equal
    "grind": _any,  # the simulator's grind (tac_grind): E-matching instances and case splits, each branch refuted
    # by cutsat, linarith, or a Gröbner basis whose ideal-membership certificate it re-expands (groebner)
    "decide_revert": _any,  # `decide +revert`: the reverted goal evaluated true
    "linear_combination": _any,  # goal − Σ cᵢ·hᵢ is a ring identity (coefficients may be polynomials)
}
"""The decision procedures the kernel trusts without a certificate, each with the shape of target it
decides (checked). Adding one is a change to the trusted base: say so in ``docs/dev/architecture.md``."""


def _refuse(goal: Goal, j: object, why: str) -> KernelRefusal:
    return KernelRefusal(f"the kernel refused {type(j).__name__}: {why}")


def _hyp_type(goal: Goal, fid: str) -> Term | None:
    for n, t in goal.hyps:
        if n == fid:
            return t
    return None


def _reflexive(t: Term, ctx: TacticContext) -> bool:
    h = t[0]
    if h == "↔":
        return defeq(t[1], t[2])
    if h in ("=", "≤", "≥"):
        return defeq(t[2], t[3]) or (h == "=" and _quiet(lambda: rfl_closes(t, ctx, kernel=True), ctx))
    return False


def _quiet(fn: Callable[[], bool], ctx: TacticContext) -> bool:
    """Run a re-check without spending the proof's heartbeats (the tactic already paid for that work)."""
    with ctx.uncharged():
        try:
            return bool(fn())
        except (ArithBudgetExceeded, EvalTooExpensive, ValueError, ArithmeticError):
            return False


def _has_mvar(t: Term) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        if u[0] == "mvar" or (u[0] == "num" and isinstance(u[1], str) and u[1].startswith("?")):
            return True
        for c in u[1:]:
            if type(c) is tuple:
                if c and type(c[0]) is tuple:
                    stack.extend(c)  # an application's arguments
                elif c:
                    stack.append(c)
    return False


def _false_fact(t: Term, goal: Goal, ctx: TacticContext) -> bool:
    c = canon(t)
    if c == FALSE:
        return True
    if c[0] == "→" and c[2] == FALSE and (c[1] == TRUE or (c[1][0] == "=" and c[1][2] == c[1][3])):
        return True  # ¬True, a ≠ a, ¬(a = a)
    # a closed relation, or a connective of closed relations (`2 ≤ 1 ∧ 1 = 1`), that the evaluator decides
    return (t[0] in _REL or t[0] in _CONNECTIVES) and _quiet(
        lambda: decide_closed(t, ctx, allow_fields=True) is False, ctx
    )


def _poly_identity(t: Term, ctx: TacticContext) -> bool:
    if t[0] != "=" or t[1] not in RING_TYPES:
        return False

    def same() -> bool:
        conv = Conv(t[1], "ring", ctx)
        return conv.poly(t[2]) == conv.poly(t[3])

    return _quiet(same, ctx)


def _proof_record(goal: Goal, j: ProofTerm, frame: SealFrame | None) -> Checked | None:
    """The proof checker's record that ``j.syn`` proves ``goal``'s target in its context, or ``None``."""
    recs = (j.record,) if j.record is not None else reversed(frame.checked) if frame is not None else ()
    for rec in recs:
        if (
            issued(rec)
            and rec.syn is j.syn
            and not rec.open_goals
            and (rec.hyps is goal.hyps or rec.hyps == goal.hyps)
            and defeq(rec.expected, goal.target)
        ):
            return rec
    return None


def _check(goal: Goal, j: object, ctx: TacticContext, frame: SealFrame | None) -> str | None:
    """``None`` when ``j`` justifies ``goal``, else why not; ``frame`` is the call whose records ``j`` may
    cite (``None``: ``j`` must stand alone)."""
    target = goal.target
    if isinstance(j, Hyp):
        ty = _hyp_type(goal, j.fid)
        if ty is None or not is_prop_type(ty):
            return f"no hypothesis {j.fid!r}"
        return None if defeq(ty, target) else "the hypothesis is not the target"
    if isinstance(j, Contradiction):
        ty = _hyp_type(goal, j.fid)
        if ty is None:
            return f"no hypothesis {j.fid!r}"
        if j.other is not None:
            other = _hyp_type(goal, j.other)
            for neg, pos in ((ty, other), (other, ty)):
                c = canon(neg) if neg is not None else None
                if pos is not None and c is not None and c[0] == "→" and c[2] == FALSE and c[1] == canon(pos):
                    return None
            return "the two hypotheses do not contradict"
        return None if _false_fact(ty, goal, ctx) else "the hypothesis is not false"
    if isinstance(j, Refl):
        return None if _reflexive(target, ctx) else "the target is not a reflexive relation with equal sides"
    if isinstance(j, TrueIntro):
        return None if canon(target) == TRUE else "the target is not True"
    if isinstance(j, Decide):
        ok = _quiet(lambda: decide_closed(target, ctx, allow_fields=j.fields, kernel=True) is True, ctx)
        return None if ok else "the target does not evaluate to true"
    if isinstance(j, Linear):
        if not j.certificates:
            return "no certificate"
        bad = [i for i, c in enumerate(j.certificates) if not c.check()]
        return f"certificate {bad[0]} does not sum to a contradiction" if bad else None
    if isinstance(j, PolyIdentity):
        return None if _poly_identity(target, ctx) else "the sides are not one polynomial"
    if isinstance(j, ProofTerm):
        return None if _proof_record(goal, j, frame) is not None else "the proof checker did not check it"
    if isinstance(j, Admit):
        ctx.use_axiom("sorryAx")
        return None
    if isinstance(j, Subproof):
        if not j.leaves:
            return "no leaves"
        for leaf in j.leaves:
            if isinstance(leaf, tuple):
                why = _check(leaf[0], leaf[1], ctx, None)
                if why is not None:
                    return f"a leaf's justification fails: {why}"
            elif frame is None or not frame.entries_of(leaf):
                return "a leaf was not closed through the kernel"
        return None
    if isinstance(j, Applied):
        if _has_mvar(j.conclusion):
            return "the conclusion has a metavariable left"
        ok = defeq(j.conclusion, target) or match(j.conclusion, target, {}, offsets=True)
        return None if ok else "the conclusion does not unify with the target"
    if isinstance(j, DataValue):
        return None if not is_prop_type(target) else "the target is a proposition"
    if isinstance(j, Renamed):
        a, b = canonical_goal(goal.with_tag(None))[0], canonical_goal(j.original.with_tag(None))[0]
        if a.hyps != b.hyps or a.target != b.target:
            return "the goal is not the original up to a renaming of its locals"
        why = _check(j.original, j.justification, ctx, None)
        return None if why is None else f"the original's justification fails: {why}"
    if isinstance(j, Rewrote):
        r = j.result
        if j.hyp is None:
            ok = canon(r) == TRUE or _reflexive(r, ctx)
        else:
            ok = _hyp_type(goal, j.hyp) is not None and (r == FALSE or defeq(r, target))
        return None if ok else "the rewritten form does not close the goal"
    if isinstance(j, Decided):
        shape = DECISION_PROCEDURES.get(j.procedure)
        if shape is None:
            return f"{j.procedure!r} is not a trusted decision procedure"
        return None if shape(target) else f"the target is not of the shape {j.procedure} decides"
    return "not a justification"


def close(goal: Goal, justification: Justification | None, ctx: TacticContext) -> list[Goal]:
    """Close ``goal`` with ``justification`` after re-checking it; returns ``[]`` (no goal left).

    ``None`` (a caller that found no justification) is refused, as everything that is not one is.

    Raises:
        KernelRefusal: the justification does not hold for ``goal`` (a simulator bug: the REPL layer answers
            ``internal simulator error``), or the goal's terms are not well formed.
    """
    frame = ctx.seal_frames[-1] if ctx.seal_frames else None
    why = _check(goal, justification, ctx, frame)
    if why is not None:
        raise _refuse(goal, justification, why)
    if isinstance(justification, ProofTerm) and justification.record is None:
        justification = ProofTerm(justification.syn, _proof_record(goal, justification, frame))
    bad = check_heads(goal.target)
    for _, t in goal.hyps:
        bad = bad or check_heads(t)
    if bad:
        raise _refuse(goal, justification, bad)
    kind = type(justification).__name__
    CLOSED_KINDS[kind] = CLOSED_KINDS.get(kind, 0) + 1
    seal(ctx, goal, kind, justification, _KEY)
    return []


def close_from(goal: Goal, derived: Goal, justification: Justification, ctx: TacticContext) -> list[Goal]:
    """Close ``derived`` (what the tactic turned ``goal`` into) with ``justification``, then ``goal`` as its
    :class:`Subproof`; returns ``[]``. When ``derived`` is ``goal`` itself, the same as :func:`close`.

    Raises:
        KernelRefusal: as :func:`close`.
    """
    close(derived, justification, ctx)
    if derived is goal or (derived.target == goal.target and derived.hyps == goal.hyps):
        return []
    return close(goal, Subproof((derived,)), ctx)


def replayable(ctx: TacticContext, goal: Goal) -> Justification | None:
    """A justification of ``goal`` that stands alone (cites no record of a call: the kernel can re-check it
    at any later time), from how ``goal`` was closed in the call running now; ``None`` when there is none
    (a run of several tactics, a sorry, a closure too deep). A memo keeps it to replay a closure through the
    kernel.
    """
    frame = ctx.seal_frames[-1] if ctx.seal_frames else None
    return None if frame is None else _standalone_of(goal, frame, 0)


_MAX_DEPTH = 64


def _standalone_of(goal: Goal, frame: SealFrame, depth: int) -> Justification | None:
    # [::-1], not reversed(), which mypyc cannot compile over a sequence of Any (docs/simulator.md)
    for _, _, j, src in frame.entries_of(goal)[::-1]:
        got = _standalone(j, src, depth)
        if got is not None:
            return got
    return None


def _standalone(j: Any, frame: SealFrame, depth: int) -> Justification | None:
    if j is None or depth > _MAX_DEPTH:
        return None
    if isinstance(j, ProofTerm):
        return j if j.record is not None else None
    if isinstance(j, Subproof):
        leaves: list[tuple[Goal, Any]] = []
        for leaf in j.leaves:
            if isinstance(leaf, tuple):
                g, sub = leaf[0], _standalone(leaf[1], frame, depth + 1)
            else:
                g, sub = leaf, _standalone_of(leaf, frame, depth + 1)
            if sub is None:
                return None
            leaves.append((g, sub))
        return Subproof(tuple(leaves))
    if isinstance(j, Renamed):
        sub = _standalone(j.justification, frame, depth + 1)
        return None if sub is None else Renamed(j.original, sub)
    if isinstance(j, Admit):
        return None  # a memoised answer never replays a sorry
    return j  # the other kinds cite nothing but the goal


def mark(ctx: TacticContext) -> int:
    """A point in the call running now, for :func:`close_cases`."""
    return len(ctx.seal_frames[-1].order) if ctx.seal_frames else 0


def close_cases(goal: Goal, since: int, ctx: TacticContext) -> list[Goal]:
    """Close ``goal``, which the tactic split into cases that were each closed through the kernel after
    ``since`` (see :func:`mark`), as their :class:`Subproof`; returns ``[]``.

    Raises:
        KernelRefusal: no case was closed (a tactic that left no goal and closed nothing).
    """
    leaves = tuple(ctx.seal_frames[-1].order[since:]) if ctx.seal_frames else ()
    return close(goal, Subproof(leaves), ctx)
