"""Structural tactics: sorry, exact, apply, refine, constructor, use, have, show, by_contra, subst, ….

Each handler takes the main goal and the tactic's :class:`~lean_gym.sim.tactics.TacSyntax` and returns
the goals that replace it. Failures raise :class:`~lean_gym.sim.tactics.TacticError` with Lean's words.
Introduction and destructuring (intro, rcases, cases, induction) are in :mod:`~lean_gym.sim.tac_rcases`,
the rewrite engine and ``rw`` in :mod:`~lean_gym.sim.rewrite`.
"""

from __future__ import annotations

from typing import Any

from lean_gym.sim.elab import ElabError
from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import (
    Admit,
    Applied,
    Contradiction,
    DataValue,
    Decide,
    Hyp,
    Justification,
    ProofTerm,
    Refl,
    Subproof,
    TrueIntro,
    close,
    close_from,
)
from lean_gym.sim.proofs import (
    Binder,
    Instance,
    ProofChecker,
    _has_mvars,
    _pi,
    prop_telescope,
)
from lean_gym.sim.syntax import Syn, TokenStream, parse_term
from lean_gym.sim.tac_rcases import clear_local, subst_eq
from lean_gym.sim.tactics import (
    SorryRecord,
    TacSyntax,
    TacticContext,
    TacticError,
    _hyp_closes,
    _map_at,
    _parse_location,
    _rename_inaccessible,
    builtin,
)
from lean_gym.sim.terms import (
    FALSE,
    TRUE,
    Term,
    free_vars,
    is_prop_type,
    pretty,
    replace_const,
    subst,
    type_term,
    user_name,
)
from lean_gym.sim.unify import canon, defeq, instantiate, match

__all__ = ["apply_telescope"]


def _term_arg(syn: TacSyntax, skip: int = 1) -> Syn:
    ts = syn.stream(skip)
    if ts.tok.kind == "eof":
        raise TacticError("unexpected end of input; expected term", syn.end, syn.end)
    term = parse_term(ts, 0)
    if ts.tok.kind != "eof":
        raise TacticError(
            f"unexpected token '{ts.tok.text}'; expected end of tactic", ts.tok.start, ts.tok.end
        )
    return term


# --------------------------------------------------------------------------------------------- sorry


@builtin("sorry", "admit")
def _sorry(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    if len(syn.toks) > 1:
        raise TacticError(
            f"unexpected token '{syn.toks[1].text}'; expected end of tactic",
            syn.toks[1].start,
            syn.toks[1].end,
        )
    ctx.sorries.append(SorryRecord(goal.with_tag(None), syn.start, syn.end))
    ctx.axioms.add("sorryAx")
    return close(goal, Admit("sorry"), ctx)


@builtin("skip")
def _skip(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    return [goal]


@builtin("done")
def _done(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    raise TacticError(lambda: "unsolved goals\n" + goal.pretty())


@builtin("fail")
def _fail(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    msg = syn.toks[1] if len(syn.toks) > 1 and syn.toks[1].kind == "str" else None
    if msg is not None:  # `fail "msg"`: Lean's evalFail prints the message, then the goals
        text = msg.text[1:-1].replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
        raise TacticError(lambda: f"{text}\n{goal.pretty()}")
    raise TacticError(lambda: "tactic 'fail' failed\n" + goal.pretty())


# -------------------------------------------------------------------------------------- closing


@builtin("assumption")
def _assumption(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    fid = _hyp_closes(goal, goal.target)
    if fid is not None:
        return close(goal, Hyp(fid), ctx)
    raise TacticError(lambda: "Tactic `assumption` failed\n\n" + goal.pretty())


def _contradiction_found(goal: Goal, ctx: TacticContext) -> Contradiction | None:
    """Lean core's ``contradiction`` (``Meta/Tactic/Contradiction.lean``): a ``False`` local, ``¬p`` beside
    ``p``, ``¬True``, ``a ≠ a``, or (``useDecide``, on by default) a local with no free variable whose
    decidable proposition evaluates to false (``h : 2 ≤ 1``)."""
    from lean_gym.sim.evaluate import decide_closed
    from lean_gym.sim.terms import free_vars

    props = [(n, t) for n, t in goal.hyps if is_prop_type(t)]
    canons = {canon(t): n for n, t in props}
    for n, t in props:
        if t == FALSE:
            return Contradiction(n)
        c = canon(t)
        if c[0] == "→" and c[2] == FALSE and c[1] in canons:
            return Contradiction(n, canons[c[1]])
        if c[0] == "→" and c[2] == FALSE and c[1] == TRUE:
            return Contradiction(n)
        if c[0] == "→" and c[2] == FALSE and c[1][0] == "=" and c[1][2] == c[1][3]:
            return Contradiction(n)
    for n, t in props:
        if not free_vars(t) and decide_closed(t, ctx) is False:
            return Contradiction(n)
    return None


@builtin("contradiction")
def _contradiction(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    found = _contradiction_found(goal, ctx)
    if found is not None:
        return close(goal, found, ctx)
    raise TacticError(lambda: "Tactic `contradiction` failed\n\n" + goal.pretty())


@builtin("exfalso")
def _exfalso(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    if not is_prop_type(goal.target):
        raise TacticError("exfalso: the goal is not a proposition")
    return [goal.with_target(FALSE)]


@builtin("trivial")
def _trivial(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    j = _trivial_closes(goal, ctx, 3)
    if j is not None:
        return close(goal, j, ctx)
    raise TacticError("Failed to prove the goal using `trivial`")


def _trivial_closes(goal: Goal, ctx: TacticContext, depth: int) -> Justification | None:
    """How ``trivial`` closes ``goal`` (a justification for the kernel), or ``None``."""
    from lean_gym.sim.evaluate import decide_closed, rfl_closes

    t = goal.target
    ctx.tick(2)
    if t == TRUE:
        return TrueIntro()
    fid = _hyp_closes(goal, t)
    if fid is not None:
        return Hyp(fid)
    if t[0] == "=" and rfl_closes(t, ctx):
        return Refl()
    if t[0] == "∧" and depth > 0:
        left, right = goal.with_target(t[1]), goal.with_target(t[2])
        jl = _trivial_closes(left, ctx, depth - 1)
        jr = _trivial_closes(right, ctx, depth - 1) if jl is not None else None
        return None if jl is None or jr is None else Subproof(((left, jl), (right, jr)))
    return Decide() if decide_closed(t, ctx) is True else None


# ----------------------------------------------------------------------------------- constructors


@builtin("constructor")
def _constructor(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    if t[0] == "∧":
        return [goal.with_target(t[1]).with_tag("left"), goal.with_target(t[2]).with_tag("right")]
    if t[0] == "↔":
        return [
            goal.with_target(("→", t[1], t[2])).with_tag("mp"),
            goal.with_target(("→", t[2], t[1])).with_tag("mpr"),
        ]
    if t == TRUE:
        return close(goal, TrueIntro(), ctx)
    raise TacticError(
        lambda: (
            f"Tactic `constructor` failed: target is not an inductive datatype\n\n{goal.pretty()}"
            if t[0] != "∃"
            else "the simulator's `constructor` does not create witness metavariables; use `use`/`exists`/`refine ⟨w, ?_⟩`"
        )
    )


@builtin("left", "right")
def _left_right(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    if t[0] != "∨":
        raise TacticError(
            lambda: (
                f"Tactic `{syn.name}` failed: target is not an inductive datatype with two constructors\n\n{goal.pretty()}"
            )
        )
    return [goal.with_target(t[1] if syn.name == "left" else t[2]).with_tag("h")]


@builtin("exists", "use", "use!", "existsi")
def _use(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    terms = [parse_term(ts, 0)]
    while ts.is_sym(","):
        ts.advance()
        terms.append(parse_term(ts, 0))
    el = ctx.elaborator(goal)
    g = goal
    for i, w in enumerate(terms):
        t = g.target
        if t[0] != "∃" and syn.name in ("use", "use!"):
            shape = _use_target_shape(t)
            if shape == "constructor closes":
                # `Eq.refl`/`True.intro` take no explicit argument: the constructor closes the goal and the
                # argument is one too many (MathlibTest/Use.lean:21, `use 42, rfl` on `∃ x, x = x`)
                raise TacticError("too many arguments supplied to `use`")
            if shape == "refine":
                # Mathlib's `useLoop`: `applyTheConstructor` fails on a goal that is no one-constructor
                # inductive type, and the argument is `refine (w : goal)`; one left over is too many
                refined = _use_refine(g, w, ctx)
                if i < len(terms) - 1:
                    raise TacticError("too many arguments supplied to `use`")  # Mathlib/Tactic/Use.lean
                return close_from(goal, g, refined, ctx)
        if t[0] != "∃":
            if i > 0 and syn.name in ("use", "use!"):
                raise TacticError("too many arguments supplied to `use`")  # Mathlib/Tactic/Use.lean
            raise TacticError(f"{syn.name} failed: the goal is not an existential\n\n{g.pretty()}")
        ty = t[2]
        if ty[0] == "type" and ty[1] in ("ℕ", "ℤ", "ℚ", "ℝ"):
            val = el.elab_arith(w, ty[1])
        else:
            val = el.elab_term(w, ty[1] if ty[0] == "type" else None)[0]
        g = g.with_target(subst(t[3], t[1], val))
    if syn.name == "existsi":
        return [g]  # Mathlib's `existsi` is `refine ⟨e, …, ?_⟩`: it never closes what is left
    if syn.name in ("use", "use!"):
        # `use!` also applies constructors eagerly (pairs, structures): on the simulator's `∃` chains it
        # fills the same witnesses, and runs the same discharger
        j = _use_discharger_closes(g, ctx, 8)
    else:  # core's `exists` runs `try trivial` on what is left
        j = _trivial_closes(g, ctx, 2)
    # the witnesses turned the goal into `g` (trusted), which `j` closes
    return [g] if j is None else close(goal, Subproof(((g, j),)), ctx)


def _use_target_shape(t: Term) -> str:
    """What Mathlib's ``use`` does with a goal ``t`` that is not an ``∃``, as far as the simulator can be sure
    of the goal's type after ``whnf`` (``applyTheConstructor`` needs an inductive type with one constructor
    whose conclusion unifies): ``"constructor closes"`` (``True``; ``a = a`` up to the simulator's defeq:
    ``Eq.refl``), ``"refine"`` where it certainly fails (``ℕ``, ``ℤ``, ``Prop``, a proposition variable,
    ``False``, ``∨``, a function type ``¬``/``→``/``∀``/``≠``, an order on ℕ (``Nat.le`` has two
    constructors) or ℝ (an ``∨``, or the irreducible ``Real.lt``), an order on ℤ with a free variable
    (``Int.NonNeg (b - a)`` is stuck), an ``=`` on ℝ whose sides are not defeq (``Real.add`` is
    irreducible), an ``=`` on ℕ/ℤ between two different locals or numerals), else ``"unknown"``: left to the simulator's error, weaker than Lean (``∧``, ``↔``, an ``=``
    on ℕ/ℤ where ``x + 0 = x`` holds by ``whnf``, a closed ℤ order, ``Even n`` = ``∃ r, …``, ``a ∣ b``)."""
    h = t[0]
    if t == TRUE or (h == "=" and defeq(t[2], t[3])):
        return "constructor closes"
    if h in ("∨", "¬", "→", "∀", "≠") or t == FALSE:
        return "refine"
    if h in ("<", "≤", ">", "≥") and (t[1] in ("ℕ", "ℝ") or (t[1] == "ℤ" and free_vars(t))):
        return "refine"
    if h == "=" and t[1] == "ℝ" and not any(n for n in _consts(t) if not n.startswith("Real.")):
        return "refine"
    if h == "=" and t[1] in ("ℕ", "ℤ") and all(s[0] in ("fvar", "num") for s in t[2:4]):
        return "refine"  # two different locals or numerals: `whnf` makes neither side the other
    if (h == "type" and t[1] in ("ℕ", "ℤ", "Prop")) or h == "fvar":
        return "refine"
    return "unknown"


def _consts(t: Term) -> set[str]:
    from lean_gym.sim.terms import const_names

    return const_names(t)


def _use_refine(goal: Goal, w: Syn, ctx: TacticContext) -> Justification:
    """``refine (w : goal)`` with no hole left: ``w`` checked against the goal (a value of a type, or a
    proof of a proposition), as ``exact`` does."""
    if not is_prop_type(goal.target):
        _check_data(goal, w, ctx)
        return DataValue()
    ProofChecker(goal, ctx).check(w, goal.target)
    return ProofTerm(w)


def _reducible_form(t: Term) -> Term:
    """``t`` with ``a > b`` read as ``b < a`` and ``a ≥ b`` as ``b ≤ a`` (``GT.gt``/``GE.ge`` are reducible)."""
    h = t[0]
    if h in (">", "≥"):
        return ("<" if h == ">" else "≤", t[1], _reducible_form(t[3]), _reducible_form(t[2]))
    if h in ("∧", "∨", "→", "↔"):
        return (h, _reducible_form(t[1]), _reducible_form(t[2]))
    if h == "¬":
        return ("¬", _reducible_form(t[1]))
    return t


def _use_discharger_closes(goal: Goal, ctx: TacticContext, depth: int) -> Justification | None:
    """Whether Mathlib's ``try with_reducible use_discharger`` closes ``goal`` (``Mathlib/Tactic/Use.lean``).

    Its rules: ``apply exists_prop.mpr <;> use_discharger``, ``apply And.intro <;> use_discharger``,
    ``rfl``, ``assumption``, ``apply True.intro``, all at reducible transparency. The simulator reads
    ``rfl`` and ``assumption`` up to syntax (and the reducible ``>``/``≥``), which is weaker: it does no
    literal arithmetic (``use 1, 2, 3`` leaves ``1 + 2 + 3 = 6`` open, as ``MathlibTest/Use.lean`` records).
    """
    ctx.tick(2)
    t = goal.target
    if t == TRUE:
        return TrueIntro()
    if t[0] == "∧":
        if depth <= 0:
            return None
        leaves: list[tuple[Goal, Justification]] = []
        for p in t[1:3]:
            part = goal.with_target(p)
            j = _use_discharger_closes(part, ctx, depth - 1)
            if j is None:
                return None
            leaves.append((part, j))
        return Subproof(tuple(leaves))
    if t[0] in ("=", "↔"):
        lhs, rhs = (t[2], t[3]) if t[0] == "=" else (t[1], t[2])
        if _reducible_form(lhs) == _reducible_form(rhs):
            return Refl()
    r = _reducible_form(t)
    return next((Hyp(n) for n, p in goal.hyps if is_prop_type(p) and _reducible_form(p) == r), None)


# ------------------------------------------------------------------------------------ exact/apply


def _check_data(goal: Goal, term: Syn, ctx: TacticContext) -> None:
    el = ctx.elaborator(goal)
    tname = goal.target[1] if goal.target[0] == "type" else None
    if term.kind == "ident" and term.args[0] == "sorry":
        raise TacticError("sorry", recover=False)
    if tname in ("ℕ", "ℤ", "ℚ", "ℝ"):
        el.elab_arith(term, tname)
        return
    t, ty = el.elab_term(term, tname)
    if ty is not None and ty != tname:
        raise ElabError(
            f"type mismatch\n  {pretty(t)}\nhas type\n  {ty}\nbut is expected to have type\n  {tname}",
            term.start,
            term.end,
        )


@builtin("exact")
def _exact(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    term = _term_arg(syn)
    if not is_prop_type(goal.target):
        if term.kind == "ident" and term.args[0] == "sorry":
            ctx.sorries.append(SorryRecord(goal.with_tag(None), term.start, term.end))
            ctx.axioms.add("sorryAx")
            return close(goal, Admit("sorry"), ctx)
        _check_data(goal, term, ctx)
        return close(goal, DataValue(), ctx)
    pc = ProofChecker(goal, ctx)
    pc.check(term, goal.target)
    return close(goal, ProofTerm(term), ctx)


@builtin("exact?", "apply?", "rw?", "simp?", "hint", "library_search", "polyrith", "aesop_cat")
def _search_tactics(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    raise TacticError(
        f"`{syn.name}` is not supported by the simulator (it only checks proofs; it does not search the library)"
    )


@builtin("refine", "refine'")
def _refine(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    term = _term_arg(syn)
    if syn.name == "refine'":
        term = _underscores_as_holes(term)  # `refine' ⟨_, _⟩`: every `_` not filled in becomes a goal
    pc = ProofChecker(goal, ctx, allow_new_goals=True)
    pc.check(term, goal.target)
    return pc.new_goals or close(goal, ProofTerm(term), ctx)


def _underscores_as_holes(s: Any) -> Any:
    if isinstance(s, Syn):
        if s.kind == "ident" and s.args and s.args[0] == "_":
            return Syn("mvar", ("_",), s.start, s.end)
        return Syn(s.kind, _underscores_as_holes(s.args), s.start, s.end)
    if isinstance(s, tuple):
        return tuple(_underscores_as_holes(a) for a in s)
    if isinstance(s, list):
        return [_underscores_as_holes(a) for a in s]
    return s


def apply_telescope(
    goal: Goal, term: Syn, ctx: TacticContext
) -> tuple[list[Binder], Term, Instance, list[str]]:
    """Instantiate the head of ``term`` with its explicit arguments; return the remaining binders."""
    pc = ProofChecker(goal, ctx)
    head, args = (term, ()) if term.kind != "app" else (term.args[0], term.args[1])
    if head.kind == "paren" and not args:
        p = pc.infer(head.args[0])
        tel = prop_telescope(p)
    elif head.kind != "ident":
        p = pc.infer(term)
        tel = prop_telescope(p)
        args = ()
    else:
        tel, _ = pc._head_telescope(head)
    inst = Instance(tel)
    holes: list[str] = []
    for arg in args:
        while inst.pending and not inst.next_binder().explicit:
            inst.mvar_next()
        if not inst.pending:
            raise ElabError(
                f"function expected at\n  {head.args[0] if head.kind == 'ident' else 'term'}",
                term.start,
                term.end,
            )
        b = inst.next_binder()
        btype = instantiate(b.type, inst.asg)
        if (arg.kind == "ident" and arg.args[0] == "_") or arg.kind == "mvar":
            m = inst.mvar_next()
            holes.append(m[1])
            continue
        if b.is_prop:
            if _has_mvars(btype):
                got = pc.infer(arg)
                if not match(btype, got, inst.asg):
                    raise ElabError(pc._app_mismatch(arg, got, btype, inst), arg.start, arg.end)
            else:
                pc.check(arg, btype)
            inst.assign_next(("proof",))
        else:
            inst.assign_next(pc._elab_data_arg(arg, btype, inst))
    return list(inst.pending), inst.conclusion, inst, holes


@builtin("apply")
def _apply(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    term = _term_arg(syn)
    if not is_prop_type(goal.target):
        return _apply_data(goal, term, ctx)
    pending, concl, inst, holes = apply_telescope(goal, term, ctx)
    target = goal.target
    target_head = canon(target)[0]
    binder_ids = {b.name for b in pending}
    # Lean tries the conclusion after consuming every possible number of remaining binders, fewest first
    for k in range(len(pending) + 1):
        ctx.tick(5)
        used, left = pending[: len(pending) - k] if k else pending, pending[len(pending) - k :] if k else []
        c = concl
        for b in reversed(left):
            c = _pi(b, c)
        # `match` compares the normal forms head first, and instantiating the binders with metavariables
        # changes no head but a binder's own: a conclusion whose head differs cannot match (nothing to try)
        cc = canon(c)
        head = cc[0]
        if (
            head != target_head
            and head not in ("mvar", "var")
            and not (head == "fvar" and cc[1] in binder_ids)
        ):
            continue
        trial = Instance.__new__(Instance)
        trial.__dict__ = {}
        asg = dict(inst.asg)
        # instantiate the used binders with metavariables (in order)
        sub_pending = list(used)
        mv_binders: list[tuple[str, Binder]] = []
        c_inst = c
        types: list[Term] = []
        for i, b in enumerate(sub_pending):
            from lean_gym.sim.unify import fresh_mvar

            m = fresh_mvar(user_name(b.name).lstrip("_") or "m")
            mv_binders.append((m[1], b))
            sub_pending = sub_pending[: i + 1] + [
                Binder(x.name, subst(x.type, b.name, m), x.explicit) for x in sub_pending[i + 1 :]
            ]
            c_inst = subst(c_inst, b.name, m)
        types = [x.type for x in sub_pending]
        if not match(c_inst, target, asg, offsets=True):
            continue
        # type variables
        for mv, allowed in inst.allowed.items():
            v = asg.get(mv)
            if isinstance(v, str) and allowed and v not in allowed:
                raise TacticError(f"failed to synthesize an instance: the lemma does not apply to type {v}")
        new_goals: list[Goal] = []
        for (mv, b), bty in zip(mv_binders, types):
            if b.is_prop:
                if mv in asg:
                    continue
                gt = instantiate(bty, asg)
                if _unresolved(gt):
                    raise TacticError(
                        f"Tactic `apply` failed: could not synthesize the argument `{user_name(b.name)}`; the simulator does not leave metavariables in goals\n\n{goal.pretty()}"
                    )
                tag = None if b.name.startswith("_premise") else user_name(b.name)
                new_goals.append(goal.with_target(gt).with_tag(tag))
            elif mv not in asg:
                raise TacticError(
                    f"Tactic `apply` failed: could not determine the argument `{user_name(b.name)}`; the simulator does not leave metavariables in goals\n\n{goal.pretty()}"
                )
        for mv in holes:
            if mv not in asg:
                raise TacticError(
                    lambda: (
                        f"Tactic `apply` failed: don't know how to synthesize placeholder\n\n{goal.pretty()}"
                    )
                )
        for mv, b in inst.mvars:
            if mv not in asg:
                raise TacticError(
                    f"Tactic `apply` failed: could not determine the implicit argument `{user_name(b.name)}`\n\n{goal.pretty()}"
                )
        return new_goals or close(goal, Applied(instantiate(c_inst, asg)), ctx)
    at = goal.ascii
    shown = instantiate(concl, inst.asg)
    raise TacticError(
        lambda: (
            f"Tactic `apply` failed: could not unify the conclusion of `{_syn_src(syn, term)}`\n  {pretty(shown, at)}\nwith the goal\n  {pretty(target, at)}\n\n{goal.pretty()}"
        )
    )


def _unresolved(t: Term) -> bool:
    return _has_mvars(t)


def _syn_src(syn: TacSyntax, term: Syn) -> str:
    return syn.src.text[term.start : term.end]


def _apply_data(goal: Goal, term: Syn, ctx: TacticContext) -> list[Goal]:
    from lean_gym.sim.elab import BUILTIN_FNS

    target = goal.target
    if term.kind == "ident" and term.args[0] in BUILTIN_FNS:
        atys, rty = BUILTIN_FNS[term.args[0]]
        if target == type_term(rty):
            return [goal.with_target(type_term(a)) for a in atys] or close(goal, DataValue(), ctx)
        raise TacticError(
            f"Tactic `apply` failed: could not unify the type of `{term.args[0]}` with the goal\n\n{goal.pretty()}"
        )
    if term.kind == "ident" and goal.hyp(term.args[0]) is not None:
        ty = goal.hyp(term.args[0])
        args = []
        while ty is not None and ty[0] == "arrow":
            args.append(ty[1])
            ty = ty[2]
            if ty == target:
                return [goal.with_target(a) for a in args]
    _check_data(goal, term, ctx)
    return close(goal, DataValue(), ctx)


# ------------------------------------------------------------------------------------ have / show


def _parse_have(syn: TacSyntax) -> tuple[str, Syn | None, Syn | None, TokenStream]:
    ts = syn.stream(1)
    name = "this"
    if ts.tok.kind == "ident" and ts.tok.text not in ("by",):
        name = ts.advance().text
    elif ts.is_sym("_"):
        ts.advance()
        name = "this"
    ty = None
    if ts.is_sym(":"):
        ts.advance()
        ty = parse_term(ts, 0)
    val = None
    if ts.is_sym(":="):
        ts.advance()
        val = parse_term(ts, 0)
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    return name, ty, val, ts


@builtin("revert")
def _revert(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``revert h₁ h₂ …`` (Lean core): the named locals and every local whose type mentions one of them
    (transitively) move back into the target, newest innermost: ``p → t`` for a hypothesis, ``∀ x : T, t``
    for a variable."""
    names = [t.text for t in syn.toks[1:]]
    if not names:
        raise TacticError("unexpected end of input; expected identifier", syn.end, syn.end)
    out: set[str] = set()
    for tok in syn.toks[1:]:
        fid = goal.find(tok.text)
        if fid is None:
            raise TacticError(f"unknown hypothesis '{tok.text}'", tok.start, tok.end)
        out.add(fid)
    for n, ty in goal.hyps:  # context order: a dependent comes after what it mentions
        if n not in out and free_vars(ty) & out:
            out.add(n)
    t = goal.target
    for n, ty in reversed(goal.hyps):
        if n not in out:
            continue
        if is_prop_type(ty):
            t = ("→", ty, t)
        else:
            x = user_name(n)
            t = ("∀", x, ty, subst(t, n, ("var", x)))  # capture-avoiding: inner binders are renamed
    kept = tuple((n, ty) for n, ty in goal.hyps if n not in out)
    return [Goal(kept, t, goal.tag, goal.ascii)]


@builtin("change")
def _change(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``change e`` / ``change e at h``: the target (or ``h``) replaced by ``e``, which must be definitionally
    equal to it (the simulator's defeq, weaker than Lean's ``isDefEq``); ``_`` alone changes nothing."""
    ts = syn.stream(1)
    e = parse_term(ts, 0)
    locs = _parse_location(ts)
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    hole = e.kind == "ident" and e.args[0] == "_"
    for where in locs or ["⊢"]:
        old = goal.target if where == "⊢" else goal.hyp(where)
        if old is None:
            raise TacticError(f"unknown hypothesis '{where}'")
        if hole:
            continue
        new = ctx.elaborator(goal).elab_prop(e)
        if not defeq(new, old):
            raise TacticError(
                f"'change' tactic failed, pattern\n  {pretty(new, goal.ascii)}\nis not definitionally "
                f"equal to target\n  {pretty(old, goal.ascii)}"
            )
        goal = goal.with_target(new) if where == "⊢" else goal.replace_hyp(where, new)
    return [goal]


@builtin("suffices")
def _suffices(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``suffices h : t by tac`` / ``suffices h : t from e`` (Lean core): ``tac`` or ``e`` proves the goal
    with ``h : t`` in context, and ``t`` is the goal left (``this`` when no name is given)."""
    ts = syn.stream(1)
    name = "this"
    nxt = ts.toks[ts.i + 1] if ts.i + 1 < len(ts.toks) else None
    if ts.tok.kind == "ident" and nxt is not None and nxt.kind == "sym" and nxt.text == ":":
        name = ts.advance().text
        ts.advance()
    ty_syn = parse_term(ts, 0)
    if ts.is_word("from"):
        ts.advance()
        body = parse_term(ts, 0)
    elif ts.is_word("by"):
        body = parse_term(ts, 0)
    else:
        raise TacticError(
            f"unexpected token '{ts.tok.text}'; expected 'by' or 'from'", ts.tok.start, ts.tok.end
        )
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    p = ctx.elaborator(goal).elab_prop(ty_syn)
    # the continuation proves the goal from `h : t`: checked now, as Lean elaborates it (the kernel sees
    # the goal replaced by `t`, which the checked continuation justifies)
    ProofChecker(goal.add_hyp(name, p), ctx).check(body, goal.target)
    return [goal.with_target(p)]


@builtin("have", "haveI", "have'", "let", "set")
def _have(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    name, ty_syn, val, _ = _parse_have(syn)
    el = ctx.elaborator(goal)
    if ty_syn is not None and (el.is_type_syntax(ty_syn)):
        ty = el.elab_type(ty_syn)
        if val is not None:
            tmp = goal.with_target(ty)
            if val.kind == "ident" and val.args[0] == "sorry":
                ctx.sorries.append(SorryRecord(tmp, val.start, val.end))
                ctx.axioms.add("sorryAx")
            else:
                _check_data(tmp, val, ctx)
            return [goal.add_hyp(name, ty)]
        return [goal.with_target(ty).with_tag(None), goal.add_hyp(name, ty)]
    if ty_syn is not None:
        p = el.elab_prop(ty_syn)
        if val is None:
            return [goal.with_target(p).with_tag(None), goal.add_hyp(name, p)]
        pc = ProofChecker(goal, ctx)
        pc.check(val, p)
        return [goal.add_hyp(name, p)]
    if val is None:
        raise TacticError("unexpected end of input; expected ':=' or ':'", syn.end, syn.end)
    pc = ProofChecker(goal, ctx)
    p = pc.infer(val)
    return [goal.add_hyp(name, p)]


@builtin("show")
def _show(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    term = _term_arg(syn)
    p = ctx.elaborator(goal).elab_prop(term)
    if not defeq(p, goal.target):
        raise TacticError(
            f"Type mismatch\n  {pretty(p, goal.ascii)}\nis not definitionally equal to the goal\n  {pretty(goal.target, goal.ascii)}"
        )
    return [goal.with_target(p)]


@builtin("specialize")
def _specialize(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    term = _term_arg(syn)
    head = term.args[0] if term.kind == "app" else term
    if head.kind != "ident" or goal.hyp(head.args[0]) is None:
        raise TacticError(
            "'specialize' requires a term of the form `h x_1 .. x_n` where `h` appears in the local context"
        )
    p = ProofChecker(goal, ctx).infer(term)
    return [goal.replace_hyp(head.args[0], p)]


@builtin("by_contra", "by_contra!")
def _by_contra(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``by_contra h`` (Batteries) and Mathlib's ``by_contra! [h] [: t]`` (``t`` checked up to push_neg)."""
    ts = syn.stream(1)
    bang = syn.name == "by_contra!"
    name = "this" if bang else "h✝"
    if ts.tok.kind == "ident":
        name = ts.advance().text
    t = goal.target
    neg = t[1] if t[0] == "¬" else ("¬", t)
    ascribed = None
    if bang and ts.is_sym(":"):
        ts.advance()
        ascribed = ctx.elaborator(goal).elab_prop(parse_term(ts, 0))
    if ts.tok.kind != "eof":
        raise TacticError(f"`{syn.text}` (an rcases pattern) is outside the simulator's subset", ts.tok.start)
    if bang:
        from lean_gym.sim.simp import push_neg_term

        neg = push_neg_term(neg)
        if ascribed is not None:
            if canon(push_neg_term(ascribed)) != canon(neg):
                raise TacticError(
                    lambda: (
                        f"Type mismatch\n  h✝\nhas type\n  {pretty(neg, goal.ascii)}\nbut is expected to have "
                        f"type\n  {pretty(ascribed, goal.ascii)}"
                    )
                )
            neg = ascribed
    ctx.use_standard_axioms() if t[0] != "¬" else None
    return [goal.add_hyp(name, neg).with_target(FALSE)]


def _negation(p: Term) -> Term:
    """``¬p``, or ``q`` for ``p = ¬q`` (and ``a = b`` for ``a ≠ b``): contrapose's double-negation step."""
    if p[0] == "¬":
        return p[1]
    if p[0] == "≠":
        return ("=", p[1], p[2], p[3])
    return ("¬", p)


def _contrapose_target(goal: Goal, t: Term, push: bool, ctx: TacticContext) -> Term:
    """Mathlib's ``contrapose`` on a target ``P → Q`` (``¬Q → ¬P``) or ``P ↔ Q`` (``¬P ↔ ¬Q``)."""
    if t[0] == "→" and is_prop_type(t[1]) and is_prop_type(t[2]):
        a, b = _negation(t[2]), _negation(t[1])
        new = ("→", a, b)
    elif t[0] == "↔":
        if str(ctx.env.options.get("contrapose.negate_iff", "true")).lower() == "false":
            raise TacticError(
                lambda: (
                    "Tactic `contrapose` failed: contraposing `↔` relations has been disabled.\n"
                    "To enable it, use `set_option contrapose.negate_iff true`.\n\n" + goal.pretty()
                )
            )
        new = ("↔", _negation(t[1]), _negation(t[2]))
    else:
        raise TacticError(
            lambda: (
                f"Tactic `contrapose` failed: the goal `{pretty(t)}` is not of the form `_ → _` or `_ ↔ _`"
                f"\n\n{goal.pretty()}"
            )
        )
    if push:
        from lean_gym.sim.simp import push_neg_term

        new = (new[0], push_neg_term(new[1]), push_neg_term(new[2]))
    return new


@builtin("contrapose", "contrapose!")
def _contrapose(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``contrapose [h [with h']]`` (``Mathlib/Tactic/Contrapose.lean``); ``contrapose!`` also runs push_neg."""
    ts = syn.stream(1)
    push = syn.name == "contrapose!"
    ctx.use_standard_axioms()
    if ts.tok.kind == "eof":
        return [goal.with_target(_contrapose_target(goal, goal.target, push, ctx))]
    name = ts.advance()
    new_name = name.text
    if ts.is_word("with"):
        ts.advance()
        new_name = ts.advance().text
    if ts.tok.kind != "eof" or name.kind != "ident":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    h = goal.hyp(name.text)
    if h is None or not is_prop_type(h):
        raise TacticError(f"unknown hypothesis '{name.text}'", name.start, name.end)
    if goal.dependents(goal.find(name.text) or ""):
        raise TacticError(f"contrapose: `{name.text}` has dependents (outside the simulator's subset)")
    new = _contrapose_target(goal, ("→", h, goal.target), push, ctx)
    return [goal.remove_hyp(name.text).add_hyp(new_name, new[1]).with_target(new[2])]


@builtin("subst", "subst_vars")
def _subst_tac(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    names = [t.text for t in syn.toks[1:]]
    if syn.name == "subst_vars":
        names = [n for n, t in goal.props() if t[0] == "="]
    if not names:
        raise TacticError("subst: expected a hypothesis `h : a = b` or a variable")
    for n in names:
        ty = goal.hyp(n)
        if ty is None:
            raise TacticError(f"unknown hypothesis '{n}'")
        if ty[0] == "=":
            goal = subst_eq(goal, n, ctx)[0]
            continue
        v = goal.var(n)
        for hn, ht in reversed(goal.props()):
            if ht[0] == "=" and (ht[2] == v or ht[3] == v):
                goal = subst_eq(goal, hn, ctx)[0]
                break
        else:
            raise TacticError(f"tactic 'subst' failed, did not find equation for eliminating '{n}'")
    return [goal]


@builtin("unfold", "delta", "unfold_let")
def _unfold(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    names: list[str] = []
    while ts.tok.kind == "ident" and ts.tok.text != "at":
        names.append(ts.advance().text)
    locs = _parse_location(ts)
    if not names:
        raise TacticError("unexpected end of input; expected identifier", syn.end, syn.end)
    values: dict[str, Term] = {}
    for n in names:
        d = ctx.lookup(n)
        if d is None or d.kind != "def" or d.value is None or d.binders:
            raise TacticError(f"unfold failed: `{n}` is not a definition the simulator can unfold")
        values[n] = d.value

    def unfold_all(t: Term) -> Term:
        for n, v in values.items():
            t = replace_const(t, n, v)
        return t

    goal, changed = _map_at(goal, locs, unfold_all)
    if not changed:
        raise TacticError(f"unfold failed to unfold {', '.join(repr(n) for n in names)}")
    return [goal]


@builtin("clear")
def _clear(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    # as Lean's evalClear: the named locals in context order, cleared newest first, each only when
    # nothing left depends on it
    fids: list[str] = []
    for t in syn.toks[1:]:
        fid = goal.find(t.text)
        if fid is None:
            raise TacticError(f"unknown hypothesis '{t.text}'", t.start, t.end)
        fids.append(fid)
    order = {n: i for i, (n, _) in enumerate(goal.hyps)}
    for fid in sorted(fids, key=order.__getitem__, reverse=True):
        goal = clear_local(goal, fid)
    return [goal]


@builtin("rename_i")
def _rename_i(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    return [_rename_inaccessible(goal, [t.text for t in syn.toks[1:]])]


@builtin("symm")
def _symm(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    t = goal.target
    if t[0] in ("=", "≠"):
        return [goal.with_target((t[0], t[1], t[3], t[2]))]
    if t[0] == "↔":
        return [goal.with_target(("↔", t[2], t[1]))]
    raise TacticError("symm failed: the goal is not a symmetric relation")


@builtin("split")
def _split(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    raise TacticError(
        f"Tactic `split` failed: consider using `set_option trace.split.failure true`\n\n{goal.pretty()}"
    )


@builtin("ext", "funext")
def _ext(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    raise TacticError(
        f"Tactic `{syn.name}` failed: no applicable extensionality theorem found for\n  {pretty(goal.target, goal.ascii)}"
    )
