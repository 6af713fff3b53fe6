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
    close_cases,
    mark,
)
from lean_gym.sim.proofs import (
    Binder,
    Instance,
    ProofChecker,
    _has_mvars,
    _pi,
    prop_telescope,
)
from lean_gym.sim.syntax import Syn, TokenStream, bracket_end, parse_term, syn_any
from lean_gym.sim.tac_rcases import Pat, clear_local, destruct_hyp, parse_rcases_pat, subst_eq
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
    run_block,
)
from lean_gym.sim.terms import (
    FALSE,
    NUM_TYPES,
    TRUE,
    Term,
    beta,
    const_names,
    free_vars,
    is_prop_type,
    pretty,
    replace_const,
    replace_term,
    subst,
    type_term,
    user_name,
)
from lean_gym.sim.unify import canon, defeq, instantiate, match, resolve_type_name

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


def _contradiction_found(goal: Goal, ctx: TacticContext | None = None) -> Contradiction | None:
    """How Lean core's ``contradiction`` closes ``goal`` (``Meta/Tactic/Contradiction.lean``): a ``False``
    hypothesis, ``¬p`` beside ``p``, ``¬True``, ``a ≠ a``, and (``Contradiction.Config.useDecide``, on by
    default) a hypothesis without locals whose ``decide`` reduces to ``false`` by ``whnf`` at default
    transparency (:func:`_decidable_by_whnf`: closed ℕ/ℤ relations and the connectives between them; ℚ and
    ℝ comparisons and quantifiers are left, never more than Lean)."""
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
    if ctx is not None:
        from lean_gym.sim.evaluate import decide_closed

        for n, t in props:
            if not free_vars(t) and _decidable_by_whnf(t) and decide_closed(t, ctx) is False:
                return Contradiction(n)
    return None


def _decidable_by_whnf(t: Term) -> bool:
    """Whether ``t`` has a ``Decidable`` instance that ``whnf`` evaluates: an ``=``, ``≠``, order or ``∣``
    between closed ℕ/ℤ terms (``Nat.decEq``, ``Nat.decLe``, ``Int.decLt``, … reduce on literals), ``True``,
    ``False``, and ``¬``, ``∧``, ``∨``, ``→``, ``↔`` of such (core's ``instDecidableNot``/``And``/``Or``/
    ``forall_prop_decidable``/``Iff``). An ``=`` between propositions has no such instance, and ℚ/ℝ
    comparisons are classical or irreducible, so ``decide`` does not reduce there."""
    h = t[0]
    if t in (TRUE, FALSE):
        return True
    if h in ("=", "≠", "<", "≤", ">", "≥", "∣"):
        return t[1] in ("ℕ", "ℤ")
    if h == "¬":
        return _decidable_by_whnf(t[1])
    if h in ("∧", "∨", "→", "↔"):
        return _decidable_by_whnf(t[1]) and _decidable_by_whnf(t[2])
    return False


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
    if t[0] == "=" and rfl_closes(t, ctx, kernel=True):
        return Refl()
    if t[0] == "∧" and depth > 0:
        left, right = goal.with_target(t[1]), goal.with_target(t[2])
        jl = _trivial_closes(left, ctx, depth - 1)
        jr = _trivial_closes(right, ctx, depth - 1) if jl is not None else None
        return None if jl is None or jr is None else Subproof(((left, jl), (right, jr)))
    return Decide() if decide_closed(t, ctx, kernel=True) is True else None


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


def _discharger_arg(syn: TacSyntax, ts: TokenStream) -> tuple[int, int] | None:
    """``(discharger := tacs)`` or ``(disch := tacs)`` at ``ts`` (Lean's ``Parser.Tactic.discharger``): the
    source range of ``tacs``, with ``ts`` moved past the ``)``; ``None`` (``ts`` unmoved) when there is none."""
    toks = ts.toks
    i = ts.i
    if not (
        ts.is_sym("(")
        and toks[i + 1].kind == "ident"
        and toks[i + 1].text in ("discharger", "disch")
        and toks[i + 2].text == ":="
    ):
        return None
    j = bracket_end(toks, i)
    if toks[j].kind == "eof" or j == i + 3:
        raise TacticError("unexpected token; expected tactic", toks[i + 2].end, toks[i + 2].end)
    ts.i = j + 1
    return toks[i + 3].start, toks[j - 1].end


@builtin("exists", "use", "use!", "existsi")
def _use(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    disch = _discharger_arg(syn, ts) if syn.name in ("use", "use!") else None
    terms = [parse_term(ts, 0)]
    while ts.is_sym(","):
        ts.advance()
        terms.append(parse_term(ts, 0))
    el = ctx.elaborator(goal)
    g = goal
    for i, w in enumerate(terms):
        t = g.target
        if t[0] != "∃" and syn.name in ("use", "use!"):
            # Mathlib's `useLoop` on a goal that is no `∃` (`use n` on `ℕ`, `use 42, h` past the witness):
            # the constructor where its type has one and it is the last goal, else `refine` with the argument
            return _use_args(goal, g, terms[i:], syn, disch, ctx)
        if t[0] != "∃":
            raise TacticError(f"{syn.name} failed: the goal is not an existential\n\n{g.pretty()}")
        ty = t[2]
        if ty[0] == "type" and ty[1] in ("ℕ", "ℤ", "ℚ", "ℝ"):
            val = el.elab_arith(w, ty[1])
        elif ty[0] == "arrow":
            val = el.elab_value(w, ty)  # a function witness: `fun x => …`, `(· + 1)`
        else:
            val = el.elab_term(w, ty[1] if ty[0] == "type" else None)[0]
        # a function witness applied in the body is reduced (`(fun x => x) 1` is `1`: beta, definitional)
        g = g.with_target(beta(subst(t[3], t[1], val)))
    if syn.name == "existsi":
        return [g]  # Mathlib's `existsi` is `refine ⟨e, …, ?_⟩`: it never closes what is left
    if disch is not None:
        if not is_prop_type(g.target) or not _run_use_discharger(g, syn, disch, ctx):
            return [g]
        return close(goal, Subproof((g,)), ctx)
    if syn.name in ("use", "use!"):
        # `use!` also applies constructors eagerly (pairs, structures): on the simulator's `∃` chains it
        # fills the same witnesses, and runs the same discharger
        j = _use_discharger_closes(g, ctx, 8)
    else:  # core's `exists` runs `try trivial` on what is left
        j = _trivial_closes(g, ctx, 2)
    # the witnesses turned the goal into `g` (trusted), which `j` closes
    return [g] if j is None else close(goal, Subproof(((g, j),)), ctx)


def _use_args(
    goal: Goal, g: Goal, args: list[Syn], syn: TacSyntax, disch: tuple[int, int] | None, ctx: TacticContext
) -> list[Goal]:
    """The arguments of ``use`` from the first goal that is no ``∃`` on (``g``: the goal the witnesses left,
    or ``goal`` itself): Mathlib's ``useLoop`` (``Mathlib/Tactic/Use.lean``). Each argument goes to the goal
    in front; when that goal is the last one (``use!``: any goal, after trying ``refine`` first), ``use``
    applies its type's constructor where the type has exactly one (``And.intro``, ``Iff.intro``,
    ``True.intro``, ``Eq.refl``: the goal is replaced by the constructor's fields and the argument goes on to
    them), else it refines the goal with the argument. So ``use n`` on ``ℕ`` is ``n``, ``use 42, h`` proves
    ``42 = y`` with ``h``, while ``use 42, rfl`` on ``42 = 42`` is ``too many arguments supplied to `use```:
    ``Eq.refl`` already closed it. The proposition goals left get the discharger."""
    eager = syn.name == "use!"
    work = [g]
    closed: list[Goal] = []
    k = 0
    while k < len(args):
        if not work:
            raise TacticError("too many arguments supplied to `use`", args[k].start, args[k].end)
        cur = work[0]
        if eager:
            # `use!` first tries `refine` with the argument, and applies the constructor only when it fails
            try:
                _use_refine(cur, args[k], ctx)
            except (TacticError, ElabError):
                pass
            else:
                work.pop(0)
                closed.append(cur)
                k += 1
                continue
        if eager or len(work) == 1:
            fields = _use_constructor(cur, ctx, syn)
            if fields is not None:
                work = fields + work[1:]
                if not fields:
                    close(cur, Refl() if cur.target[0] == "=" else TrueIntro(), ctx)
                    closed.append(cur)
                continue
        work.pop(0)
        _use_refine(cur, args[k], ctx)
        closed.append(cur)
        k += 1
    left: list[Goal] = []
    for w in work:
        if not is_prop_type(w.target):  # `runUse` runs the discharger on propositions only
            left.append(w)
            continue
        if disch is not None:
            (closed if _run_use_discharger(w, syn, disch, ctx) else left).append(w)
            continue
        j = _use_discharger_closes(w, ctx, 8)
        if j is None:
            left.append(w)
        else:
            close(w, j, ctx)
            closed.append(w)
    if left:
        return left
    if closed == [goal]:
        return []  # the argument refined `goal` itself
    return close(goal, Subproof(tuple(closed)), ctx)


def _use_refine(g: Goal, w: Syn, ctx: TacticContext) -> None:
    """``refine (w : g)`` with no hole left, closing ``g``: ``w`` checked against the goal (a value of a type,
    or a proof of a proposition), as ``exact`` does."""
    if not is_prop_type(g.target):
        _check_data(g, w, ctx)
        close(g, DataValue(), ctx)
        return
    ProofChecker(g, ctx).check(w, g.target)
    close(g, ProofTerm(w), ctx)


def _use_constructor(g: Goal, ctx: TacticContext, syn: TacSyntax) -> list[Goal] | None:
    """Mathlib's ``applyTheConstructor`` on ``g``: the goals for its explicit fields when its type (after
    ``whnf`` at default transparency) is an inductive type with one constructor whose conclusion unifies with
    it (``[]``: it closed ``g``), ``None`` when it certainly fails (the argument then refines ``g``).

    The simulator answers only where it knows Lean's answer:

    - ``∧``/``↔`` (one constructor, two fields), ``True`` (``True.intro``), ``a = b`` with ``a``, ``b``
      definitionally equal (``Eq.refl``);
    - no such type: ``ℕ``, ``ℤ`` (two constructors each), ``Prop``, a local (a proposition variable),
      function types, implications, negations, ``∀``, ``≠``, ``∨``, ``False``; the order of ℕ (``Nat.le`` has two
      constructors) and of ℝ (``Real.lt``/``Real.le`` are irreducible, so ``whnf`` stops there); an order on
      ℤ with a free variable (``Int.NonNeg (b - a)`` does not unify with ``Int.NonNeg (Int.ofNat ?n)``);
    - ``Eq.refl`` fails: an ``=`` on ℝ of ``Real`` operations whose sides are not the same (``Real.add`` is
      irreducible), an ``=`` on ℕ/ℤ between two different locals or numerals, or sides that some values of
      the locals tell apart (definitionally equal terms are equal for every value).

    Anything else (``x + 0 = x`` on ℕ holds by ``whnf``, a closed ℤ order is ``Int.NonNeg.mk``, ``Even n`` is
    an ``∃``, ℚ and ℝ are structures) is outside its subset: an error, weaker than Lean.
    """
    t = g.target
    h = t[0]
    if h == "∧":
        return [g.with_target(t[1]), g.with_target(t[2])]
    if h == "↔":
        return [g.with_target(("→", t[1], t[2])), g.with_target(("→", t[2], t[1]))]
    if t == TRUE or (h == "=" and defeq(t[2], t[3])):
        return []
    if h in ("→", "¬", "∨", "∀", "≠") or t == FALSE:
        return None
    if (h == "type" and t[1] in ("ℕ", "ℤ", "Prop")) or h in ("fvar", "arrow"):
        return None  # a function type is no inductive type (`matchConstInduct` fails on a `∀`)
    if h in ("<", "≤", ">", "≥") and (t[1] in ("ℕ", "ℝ") or (t[1] == "ℤ" and free_vars(t))):
        return None
    if h == "=":
        if t[1] == "ℝ" and all(n.startswith("Real.") for n in const_names(t)):
            return None
        if t[1] in ("ℕ", "ℤ") and all(s[0] in ("fvar", "num") for s in t[2:4]):
            return None  # two different locals or numerals: `whnf` makes neither side the other
        if _values_differ(t[2], t[3], g, ctx):
            return None
    raise TacticError(
        f"`{syn.name}` with an argument for `{pretty(t, g.ascii)}` is outside the simulator's Lean subset",
        syn.start,
        syn.end,
    )


def _values_differ(a: Term, b: Term, g: Goal, ctx: TacticContext) -> bool:
    """Whether some small values of the number locals of ``a`` and ``b`` give them different values."""
    from lean_gym.sim.arith import EvalTooExpensive
    from lean_gym.sim.evaluate import eval_term

    types: dict[str, str] = {}
    for x in sorted(free_vars(a) | free_vars(b)):
        ty = g.hyp(x)
        if ty is None or ty[0] != "type" or ty[1] not in NUM_TYPES:
            return False
        types[x] = str(ty[1])
    for trial in range(4):
        va, vb = a, b
        for k, (x, tname) in enumerate(types.items()):
            v = ("num", tname, (k * 7 + trial * 3 + 1) % 11)
            va, vb = subst(va, x, v), subst(vb, x, v)
        try:
            ea, eb = eval_term(va, ctx), eval_term(vb, ctx)
        except (EvalTooExpensive, ValueError):  # a value too large to build is no evidence either way
            return False
        if ea is None or eb is None:
            return False
        if ea != eb:
            return True
    return False


def _run_use_discharger(g: Goal, syn: TacSyntax, disch: tuple[int, int], ctx: TacticContext) -> bool:
    """``use (discharger := tacs) …``: Mathlib's ``runUse`` runs ``tacs`` on a proposition goal ``g`` left
    by the arguments, in place of ``try with_reducible use_discharger``; whether ``tacs`` closed ``g``
    (``skip`` leaves it as it is).

    A failure of ``tacs`` is the tactic's failure (``run g discharger`` passes it on). Goals that ``tacs``
    leaves other than ``g`` itself are dropped by ``runUse`` (``discard``), which the simulator does not
    model: that is outside its subset.
    """
    rest = run_block(syn.src, disch[0], disch[1], [g], ctx)
    if not rest:
        return True
    if rest == [g]:
        return False
    raise TacticError(
        "`use (discharger := …)` whose discharger leaves new goals is outside the simulator's Lean subset",
        syn.start,
        syn.end,
    )


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
    goal: Goal, term: Syn, ctx: TacticContext, open_args: bool = False
) -> tuple[list[Binder], Term, Instance, list[str]]:
    """Instantiate the head of ``term`` with its explicit arguments; return the remaining binders.

    With ``open_args`` (``apply``), a proof argument whose expected type still has metavariables may
    leave its own ``_`` data arguments open (:meth:`ProofChecker.infer_open`): they are unified with the
    expected type now and fixed by the goal later; the caller re-checks each such argument
    (``inst.opened``) once the goal is matched."""
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
            pc.elab_proof_arg(arg, btype, inst, open_args)
        else:
            inst.assign_next(pc._elab_data_arg(arg, btype, inst))
    return list(inst.pending), inst.conclusion, inst, holes


@builtin("apply")
def _apply(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    term = _term_arg(syn)
    if not is_prop_type(goal.target):
        return _apply_data(goal, term, ctx)
    pending, concl, inst, holes = apply_telescope(goal, term, ctx, open_args=True)
    target = goal.target
    target_head = canon(target)[0]
    binder_ids = {b.name for b in pending}
    # Lean tries the conclusion after consuming every possible number of remaining binders, fewest first
    for k in range(len(pending) + 1):
        ctx.tick(5)
        used, left = pending[: len(pending) - k] if k else pending, pending[len(pending) - k :] if k else []
        # `match` compares the normal forms head first, and instantiating the binders with metavariables
        # changes no head but a binder's own: a conclusion whose head differs cannot match (nothing to try).
        # With binders left, the conclusion is `_pi(left[0], …)`, an `→` or a `∀`, and `canon` keeps both
        # heads: the head is known before the term is built and normalised (most `k` are skipped so).
        if left and ("→" if left[0].is_prop else "∀") != target_head:
            continue
        c = concl
        for b in reversed(left):
            c = _pi(b, c)
        cc = canon(c)
        head = cc[0]
        if (
            head != target_head
            and head not in ("mvar", "var")
            and not (head == "fvar" and cc[1] in binder_ids)
        ):
            continue
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
        # type variables (an open argument's too, through the unifier's chains)
        for mv, allowed in inst.allowed.items():
            v = resolve_type_name(mv, asg)
            if not v.startswith("?") and allowed and v not in allowed:
                raise TacticError(f"failed to synthesize an instance: the lemma does not apply to type {v}")
        # an argument elaborated with open `_` (Lean's postponed elaboration): every open metavariable is
        # now fixed, and what the argument proves is, instantiated, exactly the type it was expected to have
        for mv, name in inst.open_mvars.items():
            if _has_mvars(instantiate(("mvar", mv), asg)):
                raise TacticError(
                    f"don't know how to synthesize placeholder for argument '{name}'\ncontext:\n{goal.pretty()}"
                )
        for got, want in inst.opened:
            g, w = instantiate(got, asg), instantiate(want, asg)
            if _has_mvars(g) or _has_mvars(w) or canon(g) != canon(w):
                raise TacticError(
                    lambda: (
                        f"Tactic `apply` failed: don't know how to synthesize placeholder\n\n{goal.pretty()}"
                    )
                )
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
                # a `_` for a proof that nothing fixed becomes a new goal after the others (Lean's
                # `MVarId.apply`: the unassigned metavariables of the term follow the new ones)
                hb = next((b for m, b in inst.mvars if m == mv), None)
                if hb is not None and hb.is_prop:
                    hole_t = instantiate(hb.type, asg)
                    if not _unresolved(hole_t):
                        new_goals.append(goal.with_target(hole_t).with_tag(None))
                        continue
                raise TacticError(
                    lambda: (
                        f"Tactic `apply` failed: don't know how to synthesize placeholder\n\n{goal.pretty()}"
                    )
                )
        for mv, b in inst.mvars:
            if mv not in asg and mv not in holes:
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


@builtin("set")
def _set(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """Mathlib's ``set x : T := e with h`` (``Mathlib/Tactic/Set.lean``): a local ``x`` for ``e``, ``e``
    rewritten to ``x`` in the target and every hypothesis (``rewrite … at *``), and ``h : x = e`` (``h : e = x``
    with ``←``). Lean's ``x`` is a ``let`` whose value tactics may unfold; the simulator's is an opaque local,
    so only ``h`` links it to ``e`` (weaker, never stronger)."""
    ts = syn.stream(1)
    if ts.tok.kind != "ident":
        raise TacticError(f"unexpected token '{ts.tok.text}'; expected identifier", ts.tok.start, ts.tok.end)
    name = ts.advance().text
    el = ctx.elaborator(goal)
    tname: str | None = None
    if ts.is_sym(":"):
        ts.advance()
        ty_syn = parse_term(ts, 0)
        ty_t = el.elab_type(ty_syn)
        if ty_t[0] != "type":
            raise TacticError("`set` of a proof is outside the simulator's Lean subset", syn.start, syn.end)
        tname = str(ty_t[1])
    if not ts.is_sym(":="):
        raise TacticError("unexpected end of input; expected ':='", syn.end, syn.end)
    ts.advance()
    val_syn = parse_term(ts, 0)
    hname: str | None = None
    reverse = False
    if ts.is_word("with"):
        ts.advance()
        if ts.is_sym("←") or ts.is_sym("<-"):
            ts.advance()
            reverse = True
        if ts.tok.kind != "ident":
            raise TacticError("unexpected end of input; expected identifier", syn.end, syn.end)
        hname = ts.advance().text
    if ts.tok.kind != "eof":
        raise TacticError(
            f"unexpected token '{ts.tok.text}'; expected end of tactic", ts.tok.start, ts.tok.end
        )
    ety: str | Term | None
    if tname in NUM_TYPES:
        e, ety = el.elab_arith(val_syn, str(tname)), tname
    else:
        e, got = el.elab_term(val_syn, tname)
        ety = tname or got
    if not isinstance(ety, str) or ety not in NUM_TYPES:
        raise TacticError("`set` of a value outside ℕ, ℤ, ℚ, ℝ is outside the simulator's Lean subset")
    g, xv = goal.add_local(name, type_term(ety))
    hyps = tuple((n, t if n == xv[1] else replace_term(t, e, xv)) for n, t in g.hyps)
    g = Goal(hyps, replace_term(g.target, e, xv), g.tag, g.ascii)
    if hname is not None:
        g = g.add_hyp(hname, ("=", ety, e, xv) if reverse else ("=", ety, xv, e))
    return [g]


@builtin("have", "haveI", "have'", "let")
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


def _has_hole(syn: Syn) -> bool:
    """Whether ``syn`` has a ``_`` or ``?x`` placeholder anywhere."""
    return syn_any(syn, lambda u: u.kind == "mvar" or (u.kind == "ident" and u.args[0] == "_"))


@builtin("change")
def _change(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``change p`` / ``change p at h …`` (Lean core's ``change``): the target (each hypothesis named) is
    replaced by ``p``, which must be definitionally equal to it. ``p`` is elaborated against what it replaces,
    so ``_`` alone is what is there; a pattern with holes inside (``_ + 1 = _``) is unified with it, which the
    simulator does not model (outside its subset)."""
    ts = syn.stream(1)
    if ts.tok.kind == "eof":
        raise TacticError("unexpected end of input; expected term", syn.end, syn.end)
    term = parse_term(ts, 0)
    locs = _parse_location(ts)
    if ts.tok.kind != "eof":
        raise TacticError(
            f"unexpected token '{ts.tok.text}'; expected end of tactic", ts.tok.start, ts.tok.end
        )
    whole_hole = term.kind == "ident" and term.args[0] == "_"
    if not whole_hole and _has_hole(term):
        raise TacticError(
            "`change` with a pattern is outside the simulator's Lean subset", syn.start, syn.end
        )
    if locs == ["*"]:
        raise TacticError("`change … at *` is outside the simulator's Lean subset", syn.start, syn.end)

    def changed(old: Term) -> Term:
        if whole_hole:
            return old
        new = (
            ctx.elaborator(goal).elab_prop(term)
            if is_prop_type(old)
            else ctx.elaborator(goal).elab_type(term)
        )
        if not defeq(new, old):
            raise TacticError(
                f"'change' tactic failed, pattern\n  {pretty(new, goal.ascii)}\nis not definitionally equal "
                f"to target\n  {pretty(old, goal.ascii)}"
            )
        return new

    g = goal
    for loc in locs if locs is not None else ["⊢"]:
        if loc == "⊢":
            g = g.with_target(changed(g.target))
            continue
        ty = g.hyp(loc)
        if ty is None:
            raise TacticError(f"unknown identifier '{loc}'")
        g = g.replace_hyp(loc, changed(ty))
    return [g]


#: ``guard_hyp``/``guard_target`` specifiers (Lean core's ``Init/Guard.lean``): reducible defeq, default
#: defeq, syntactic equality, alpha equality.
_GUARD_KINDS = {":": "r", ":~": "d", ":ₛ": "s", ":ₐ": "a", "=": "r", "=~": "d", "=ₛ": "s", "=ₐ": "a"}


def _alpha(t: Term, k: int = 0) -> Term:
    """``t`` with its bound variables renamed by depth (``Expr.eqv`` compares terms up to their names)."""
    if type(t) is not tuple:
        return t
    if t and t[0] in ("∀", "∃", "fun"):
        return (t[0], "", _alpha(t[2], k), _alpha(subst(t[3], t[1], ("var", f"#{k}")), k + 1))
    return tuple(_alpha(c, k) if type(c) is tuple else c for c in t)


def _reducible(t: Term) -> Term:
    """``t`` with the reducible definitions unfolded that Lean's reducible ``isDefEq`` sees through:
    ``a > b`` is ``b < a``, ``a ≥ b`` is ``b ≤ a`` (``GT.gt``, ``GE.ge``), ``a ≠ b`` is ``¬a = b`` (``Ne``)."""
    if type(t) is not tuple or not t:
        return t
    h = t[0]
    if h in (">", "≥") and len(t) == 4:
        return ("<" if h == ">" else "≤", t[1], _reducible(t[3]), _reducible(t[2]))
    if h == "≠" and len(t) == 4:
        return ("¬", ("=", t[1], _reducible(t[2]), _reducible(t[3])))
    return tuple(_reducible(c) if type(c) is tuple else c for c in t)


def _guard_eq(kind: str, a: Term, b: Term) -> bool:
    """Lean's ``MatchKind.isEq``, never more permissive: syntactic and alpha equality up to bound names,
    reducible defeq up to the reducible unfoldings above, default defeq as the simulator's ``defeq`` (which
    unfolds less than Lean's)."""
    if kind in ("s", "a"):
        return _alpha(a) == _alpha(b)
    if kind == "r":
        return _alpha(_reducible(a)) == _alpha(_reducible(b))
    return defeq(a, b)


@builtin("guard_hyp")
def _guard_hyp(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``guard_hyp h : t`` (``:~``, ``:ₛ``, ``:ₐ``): checks the type of ``h`` (Lean core's ``evalGuardHyp``);
    the value forms (``:= v``) are for ``let`` locals, which the simulator has none of."""
    ts = syn.stream(1)
    h = ts.tok
    if h.kind != "ident":
        raise TacticError(f"unexpected token '{h.text}'; expected term", h.start, h.end)
    ts.advance()
    ty = goal.hyp(h.text)
    if ty is None:
        raise TacticError(f"Unknown identifier `{h.text}`", h.start, h.end)
    if ts.tok.kind == "sym" and ts.tok.text in _GUARD_KINDS and ts.tok.text.startswith(":"):
        kind = _GUARD_KINDS[ts.advance().text]
        want_syn = parse_term(ts, 0)
        el = ctx.elaborator(goal)
        want = el.elab_prop(want_syn) if is_prop_type(ty) else el.elab_type(want_syn)
        if not _guard_eq(kind, want, ty):
            raise TacticError(
                f"hypothesis {h.text} has type\n  {pretty(ty, goal.ascii)}\nnot\n  {pretty(want, goal.ascii)}"
            )
    if ts.tok.kind == "sym" and ts.tok.text.startswith(":="):
        raise TacticError(f"{h.text} is not a let binding", ts.tok.start, ts.tok.end)
    if ts.tok.kind != "eof":
        raise TacticError(
            f"unexpected token '{ts.tok.text}'; expected end of tactic", ts.tok.start, ts.tok.end
        )
    return [goal]


@builtin("guard_target")
def _guard_target(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``guard_target = t`` (``=~``, ``=ₛ``, ``=ₐ``): checks the target (Lean core's ``evalGuardTarget``)."""
    ts = syn.stream(1)
    if not (ts.tok.kind == "sym" and ts.tok.text in _GUARD_KINDS and ts.tok.text.startswith("=")):
        raise TacticError("unexpected token; expected '='", ts.tok.start, ts.tok.end)
    kind = _GUARD_KINDS[ts.advance().text]
    want_syn = parse_term(ts, 0)
    if ts.tok.kind != "eof":
        raise TacticError(
            f"unexpected token '{ts.tok.text}'; expected end of tactic", ts.tok.start, ts.tok.end
        )
    t = goal.target
    el = ctx.elaborator(goal)
    want = el.elab_prop(want_syn) if is_prop_type(t) else el.elab_type(want_syn)
    if not _guard_eq(kind, want, t):
        raise TacticError(
            f"target of main goal is\n  {pretty(t, goal.ascii)}\nnot\n  {pretty(want, goal.ascii)}"
        )
    return [goal]


@builtin("revert")
def _revert(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``revert x h …`` (Lean core's ``revert``): the locals named, and every local whose type mentions one of
    them, leave the context and become ``∀``/``→`` binders of the target, in context order."""
    names = syn.toks[1:]
    if not names:
        raise TacticError("unexpected end of input; expected identifier", syn.end, syn.end)
    chosen: set[str] = set()
    for tok in names:
        if tok.kind != "ident":
            raise TacticError(f"unexpected token '{tok.text}'; expected identifier", tok.start, tok.end)
        fid = goal.find(tok.text)
        if fid is None:
            raise TacticError(f"Unknown identifier `{tok.text}`", tok.start, tok.end)
        chosen.add(fid)
    # the dependents come along (Lean's `MVarId.revert` collects the forward dependencies)
    for fid, ty in goal.hyps:
        if fid not in chosen and free_vars(ty) & chosen:
            chosen.add(fid)
    target = goal.target
    for fid, ty in reversed(goal.hyps):
        if fid not in chosen:
            continue
        if is_prop_type(ty) and fid not in free_vars(target):
            target = ("→", ty, target)
        elif not is_prop_type(ty):
            x = user_name(fid)
            target = ("∀", x, ty, subst(target, fid, ("var", x)))
        else:
            raise TacticError(
                f"`revert` of `{user_name(fid)}`, which the target mentions, is outside the simulator's subset"
            )
    hyps = tuple((n, t) for n, t in goal.hyps if n not in chosen)
    return [Goal(hyps, target, goal.tag, goal.ascii)]


@builtin("suffices")
def _suffices(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """``suffices h : t from e`` / ``suffices h : t by tac`` (Lean core's ``suffices``, ``this`` when ``h :``
    is left out): ``e`` (or ``tac``) proves the goal with ``h : t`` added, and the goal becomes ``t``."""
    ts = syn.stream(1)
    name = "this"
    if ts.tok.kind == "ident" and ts.peek().kind == "sym" and ts.peek().text == ":":
        name = ts.advance().text
        ts.advance()
    if ts.tok.kind == "eof":
        raise TacticError("unexpected end of input; expected term", syn.end, syn.end)
    p = ctx.elaborator(goal).elab_prop(parse_term(ts, 0))
    if ts.is_word("from"):
        ts.advance()
        body = parse_term(ts, 0)
    elif ts.is_word("by"):
        body = parse_term(ts, 0)
    else:
        raise TacticError(
            "unexpected end of input; expected 'by' or 'from'"
            if ts.tok.kind == "eof"
            else f"unexpected token '{ts.tok.text}'; expected 'by' or 'from'",
            ts.tok.start,
            ts.tok.end,
        )
    if ts.tok.kind != "eof":
        raise TacticError(
            f"unexpected token '{ts.tok.text}'; expected end of tactic", ts.tok.start, ts.tok.end
        )
    ProofChecker(goal.add_hyp(name, p), ctx).check(body, goal.target)
    return [goal.with_target(p).with_tag(None)]


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
    pat: Pat | None = None
    if bang and ts.tok.kind != "eof" and not ts.is_sym(":"):
        # Mathlib's `by_contra! pat : ty` takes an rcases pattern (`rcasesPatMed`): it is
        # `by_contra h; push_neg at h; revert h; rintro pat` (Mathlib/Tactic/ByContra.lean)
        pat = parse_rcases_pat(ts)
        if pat.kind == "name" and pat.args[0] != "_":
            name, pat = pat.args[0], None
    elif ts.tok.kind == "ident":
        name = ts.advance().text
    t = goal.target
    neg = t[1] if t[0] == "¬" else ("¬", t)
    ascribed = None
    if bang and ts.is_sym(":"):
        ts.advance()
        ascribed = ctx.elaborator(goal).elab_prop(parse_term(ts, 0))
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'; expected end of tactic", ts.tok.start)
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
    if pat is None:
        return [goal.add_hyp(name, neg).with_target(FALSE)]
    since = mark(ctx)
    g, v = goal.with_target(FALSE).add_local("_h", neg)
    return destruct_hyp(g, v[1], pat, ctx) or close_cases(goal, since, ctx)


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
