"""The rewrite engine and the tactics on it: ``rw``, ``rewrite``, ``rwa`` (``nth_rewrite`` is refused).

A rule (a hypothesis or lemma proving ``a = b``, ``p ↔ q``, ``¬p`` or ``p``) becomes an equation
(:func:`rule_equation`), :func:`kabstract` replaces its instances in a term as Lean's first-order
``kabstract`` does, :func:`rewrite_once` rewrites one location and leaves the rule's premises as side goals,
and :func:`rfl_after_rw` is the ``rfl`` that ``rw`` tries afterwards.
"""

from __future__ import annotations

from lean_gym.sim.elab import ElabError
from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import Hyp, Rewrote, close_from
from lean_gym.sim.proofs import (
    Instance,
    ProofChecker,
    _has_mvars,
    decl_telescope,
    prop_telescope,
)
from lean_gym.sim.syntax import ParseError, Syn, TokenStream, parse_term
from lean_gym.sim.tac_basic import apply_telescope
from lean_gym.sim.tactics import (
    TacSyntax,
    TacticContext,
    TacticError,
    _hyp_closes,
    _parse_location,
    builtin,
)
from lean_gym.sim.terms import (
    ATOM_HEADS,
    FALSE,
    TRUE,
    Term,
    _fresh,
    check_term_size,
    free_vars,
    is_prop_type,
    pretty,
    subst,
    user_name,
)
from lean_gym.sim.unify import canon, instantiate, match

__all__ = ["kabstract", "rewrite_once", "rfl_after_rw", "rule_equation"]

# ----------------------------------------------------------------------------------------- rewrite


def _parse_rules(ts: TokenStream) -> list[tuple[bool, Syn]]:
    """``[h, ← h', foo a]`` → ``[(reverse, term), ...]``."""
    rules: list[tuple[bool, Syn]] = []
    ts.expect_sym("[")
    if ts.is_sym("]"):
        ts.advance()
        return rules
    while True:
        rev = False
        if ts.is_sym("←") or ts.is_sym("<-"):
            ts.advance()
            rev = True
        rules.append((rev, parse_term(ts, 0)))
        if ts.is_sym(","):
            ts.advance()
            continue
        ts.expect_sym("]")
        return rules


def rule_equation(goal: Goal, rev: bool, term: Syn, ctx: TacticContext) -> tuple[Instance, Term, Term, str]:
    """The rewrite rule ``term`` as ``(instance, lhs, rhs, kind)`` with kind ``=`` or ``↔``."""
    pc = ProofChecker(goal, ctx)
    head, args = (term, ()) if term.kind != "app" else (term.args[0], term.args[1])
    if (
        head.kind == "ident"
        and goal.hyp(head.args[0]) is None
        and ctx.lookup(head.args[0]) is not None
        and not args
    ):
        d = ctx.lookup(head.args[0])
        if d is not None and d.kind == "def":
            raise TacticError(
                "the simulator does not unfold definitions with `rw`; use `simp only [f]` or `unfold f`"
            )
    if (
        head.kind == "ident"
        and not args
        and goal.hyp(head.args[0]) is None
        and goal.hyp(head.args[0].split(".", 1)[0]) is None  # `h.1`, `h.symm`: a term, not a constant
    ):
        d = ctx.lookup(head.args[0])
        if d is not None and d.kind in ("theorem", "axiom"):
            ctx.axioms.update(d.axioms)
            tel = decl_telescope(d, peel_not=False)
            inst = Instance(tel)
            while inst.pending:
                inst.mvar_next()
            return _eq_sides(inst, inst.conclusion, rev, term)
    if head.kind == "ident" and args and goal.hyp(head.args[0]) is None:
        _, _, inst, _ = apply_telescope(goal, term, ctx)
        while inst.pending:
            inst.mvar_next()
        return _eq_sides(inst, inst.conclusion, rev, term)
    p = pc.infer(term)
    tel = prop_telescope(p, peel_not=False)
    inst = Instance(tel)
    while inst.pending:
        inst.mvar_next()
    return _eq_sides(inst, inst.conclusion, rev, term)


def _eq_sides(inst: Instance, concl: Term, rev: bool, term: Syn) -> tuple[Instance, Term, Term, str]:
    h = concl[0]
    if h == "=":
        lhs, rhs, kind = concl[2], concl[3], "="
    elif h == "↔":
        lhs, rhs, kind = concl[1], concl[2], "↔"
    elif h == "¬":
        lhs, rhs, kind = concl[1], FALSE, "↔"  # eq_false: a proof of ¬p rewrites p to False
    elif h == "≠":
        lhs, rhs, kind = ("=", concl[1], concl[2], concl[3]), FALSE, "↔"
    elif h in ("<", "≤", ">", "≥", "∣", "∧", "∨", "→", "True", "var", "fvar", "const", "app", "∀", "∃"):
        lhs, rhs, kind = concl, TRUE, "↔"  # eq_true: a proof of p rewrites p to True
    else:
        raise ElabError(f"equality or iff proof expected\n  {pretty(concl)}", term.start, term.end)
    if rev:
        lhs, rhs = rhs, lhs
    return inst, lhs, rhs, kind


def kabstract(t: Term, lhs: Term, rhs: Term, asg: dict) -> tuple[Term, bool]:
    """Replace every instance of ``lhs`` in ``t`` by ``rhs``; the first match fixes the metavariables."""
    # free names of the rule and of the term: a binder with one of these names is renamed while we work
    # under it, and a match may not use a bound variable (Lean's `rw` cannot rewrite under binders with it)
    avoid = free_vars(lhs) | free_vars(rhs) | free_vars(t)
    for v in list(asg.values()):
        if isinstance(v, tuple):
            free_vars(v, avoid)
    st = _Kabstract(lhs, rhs, asg, avoid)
    out = st.go(t, frozenset())
    return out, st.found


class _Kabstract:
    """The state of one :func:`kabstract` walk (a class, not a closure: a recursive closure is a cycle that
    only the garbage collector frees)."""

    __slots__ = ("asg", "avoid", "found", "lhs", "rhs")

    def __init__(self, lhs: Term, rhs: Term, asg: dict, avoid: set[str]) -> None:
        self.lhs, self.rhs, self.asg, self.avoid = lhs, rhs, asg, avoid
        self.found = False

    def go(self, u: Term, bound: frozenset[str]) -> Term:
        lhs, rhs, asg, avoid, go = self.lhs, self.rhs, self.asg, self.avoid, self.go
        if not self.found:
            trial = dict(asg)
            if match(lhs, u, trial) and not (bound and free_vars(u) & bound):
                asg.clear()
                asg.update(trial)
                self.found = True
                return instantiate(rhs, asg)
        elif canon(instantiate(lhs, asg)) == canon(u) and not (bound and free_vars(u) & bound):
            return instantiate(rhs, asg)
        h = u[0]
        if h in ATOM_HEADS:
            return u
        if h == "app":
            return ("app", go(u[1], bound), tuple(go(a, bound) for a in u[2]))
        if h in ("∀", "∃", "fun"):
            x = u[1]
            if x not in avoid:
                return (h, x, u[2], go(u[3], bound | {x}))
            x2 = _fresh(x, avoid | free_vars(u[3]))
            new_body = go(subst(u[3], x, ("var", x2)), bound | {x2})
            if x not in free_vars(new_body):
                return (h, x, u[2], subst(new_body, x2, ("var", x)))
            return (h, x2, u[2], new_body)
        return tuple(go(c, bound) if type(c) is tuple else c for c in u)


def rewrite_once(
    goal: Goal, where: str | None, rev: bool, term: Syn, ctx: TacticContext
) -> tuple[Goal, list[Goal]]:
    """Rewrite with one rule at ``where`` (a hypothesis name, or ``None`` for the target).

    Returns:
        The rewritten goal and the side goals: one per premise of the rule (``h : 0 < c`` of
        ``le_div_iff₀``), as Lean's ``rw`` leaves them.

    Raises:
        TacticError: when the pattern does not occur (Lean's "did not find instance" message).
    """
    inst, lhs, rhs, kind = rule_equation(goal, rev, term, ctx)
    ctx.tick(20)
    if lhs[0] == "mvar":
        raise TacticError(
            f"Tactic `rewrite` failed: Motive is not type correct (pattern is a metavariable)\n\n{goal.pretty()}"
        )
    asg = dict(inst.asg)
    t = goal.target if where is None else goal.hyp(where)
    if t is None:
        raise TacticError(f"unknown hypothesis '{where}'")
    new, found = kabstract(t, lhs, rhs, asg)
    if found:
        # the rule's right side may mention a matched part twice: the tuples share it, but every later walk
        # (the next `rw`'s kabstract, printing the goal) is tree-sized, so the result is bounded
        check_term_size(new, {}, "rw")
    if not found:
        at = goal.ascii
        what = "target expression" if where is None else "expression"
        raise TacticError(
            lambda: (
                f"Tactic `rewrite` failed: Did not find an instance of the pattern in the {what}\n  {pretty(instantiate(lhs, asg), at)}\n\n{goal.pretty()}"
            )
        )

    if _has_mvars(new):
        raise TacticError(
            f"Tactic `rewrite` failed: could not determine every argument of the rule\n\n{goal.pretty()}"
        )
    bad = inst.check_types(asg)
    if bad is not None:
        raise TacticError(f"failed to synthesize an instance: the rule does not apply to type {bad}")
    side: list[Goal] = []
    for mv, b in inst.mvars:
        if b.is_prop and mv not in asg:
            st = instantiate(b.type, asg)
            if _has_mvars(st):
                raise TacticError(
                    f"Tactic `rewrite` failed: could not determine every argument of the rule\n\n{goal.pretty()}"
                )
            side.append(goal.with_target(st).with_tag(None if b.name.startswith("_") else user_name(b.name)))
    if kind == "↔":
        ctx.use_axiom("propext")
    if where is None:
        return goal.with_target(new), side
    return goal.replace_hyp(where, new), side


def rfl_after_rw(goal: Goal) -> bool:
    """``rw`` closes goals ``a = a``, ``a ↔ a``, ``a ≤ a`` and ``True`` with reducible ``rfl``."""
    t = goal.target
    if t == TRUE:
        return True
    if t[0] in ("=", "≤", "≥"):
        return canon(t[2]) == canon(t[3])
    if t[0] == "↔":
        return canon(t[1]) == canon(t[2])
    return False


@builtin("rw", "rewrite", "rwa", "nth_rewrite", "nth_rw")
def _rw(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    if syn.name in ("nth_rewrite", "nth_rw"):
        raise TacticError(f"`{syn.name}` is outside the simulator's subset")
    try:
        rules = _parse_rules(ts)
        locs = _parse_location(ts)
    except ParseError as e:
        raise TacticError(e.message, e.start, e.end) from e
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    targets: list[str | None]
    if locs is None:
        targets = [None]
    elif locs == ["*"]:
        targets = [n for n, t in goal.hyps if is_prop_type(t)] + [None]
    else:
        targets = [None if n == "⊢" else n for n in locs]
    side: list[Goal] = []
    start = goal
    for rev, term in rules:
        for where in targets:
            if locs == ["*"]:
                try:
                    goal, more = rewrite_once(goal, where, rev, term, ctx)
                except TacticError:
                    continue
            else:
                goal, more = rewrite_once(goal, where, rev, term, ctx)
            side.extend(more)
        if None in targets and rfl_after_rw(goal):
            return side + close_from(start, goal, Rewrote("rw", goal.target), ctx)
    if syn.name == "rwa":
        fid = _hyp_closes(goal, goal.target)
        if fid is not None:
            return side + close_from(start, goal, Hyp(fid), ctx)
        raise TacticError(lambda: "Tactic `assumption` failed\n\n" + goal.pretty())
    if rfl_after_rw(goal):
        return side + close_from(start, goal, Rewrote("rw", goal.target), ctx)
    return [goal, *side]
