"""Structural tactics: intro, exact, apply, refine, constructor, cases/rcases/obtain, have, rw, ….

Each handler takes the main goal and the tactic's :class:`~lean_gym.sim.tactics.TacSyntax` and returns
the goals that replace it. Failures raise :class:`~lean_gym.sim.tactics.TacticError` with Lean's words.
"""

from __future__ import annotations

from typing import Any

from lean_gym.sim.elab import ElabError
from lean_gym.sim.goals import Goal
from lean_gym.sim.proofs import (
    TERM_MACROS,
    Binder,
    Instance,
    ProofChecker,
    _pi,
    decl_telescope,
    prop_telescope,
)
from lean_gym.sim.syntax import ParseError, Syn, Token, TokenStream, parse_term
from lean_gym.sim.tactics import (
    SorryRecord,
    TacSyntax,
    TacticContext,
    TacticError,
    _hyp_closes,
    _map_at,
    _parse_location,
    builtin,
)
from lean_gym.sim.terms import (
    FALSE,
    TRUE,
    Term,
    _fresh,
    free_vars,
    is_prop_type,
    pretty,
    replace_const,
    subst,
    type_term,
    user_name,
)
from lean_gym.sim.unify import canon, defeq, instantiate, match

__all__: list[str] = []


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


def _pp(goal: Goal, t: Term) -> str:
    return pretty(t, goal.ascii, goal.display_names())


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
    return []


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


# --------------------------------------------------------------------------------------------- intro


def _intro_one(goal: Goal, name: str | None, ctx: TacticContext) -> Goal:
    t = goal.target
    h = t[0]
    if h == "∀":
        g, v = goal.add_local(name or (t[1] + "✝"), t[2])
        return g.with_target(subst(t[3], t[1], v))
    if h == "→":
        return Goal(goal.add_hyp(name or "a✝", t[1]).hyps, t[2], goal.tag, goal.ascii)
    if h == "¬":
        return Goal(goal.add_hyp(name or "a✝", t[1]).hyps, FALSE, goal.tag, goal.ascii)
    if h == "≠":
        return Goal(goal.add_hyp(name or "a✝", ("=", t[1], t[2], t[3])).hyps, FALSE, goal.tag, goal.ascii)
    raise TacticError("no additional binders or let bindings in the goal to introduce")


@builtin("intro")
def _intro(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    toks = syn.toks[1:]
    if not toks:
        return [_intro_one(goal, None, ctx)]
    if any(t.kind != "ident" and t.text != "_" for t in toks):
        return _rintro(goal, syn, ctx)
    for t in toks:
        goal = _intro_one(goal, None if t.text == "_" else t.text, ctx)
    return [goal]


@builtin("intros")
def _intros(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    toks = syn.toks[1:]
    if toks:
        for t in toks:
            goal = _intro_one(goal, t.text, ctx)
        return [goal]
    while goal.target[0] in ("∀", "→"):
        goal = _intro_one(goal, None, ctx)
    return [goal]


# ------------------------------------------------------------------------------- rcases patterns


class Pat:
    """An rcases pattern: ``kind`` in ``name``, ``tuple``, ``alts``, ``clear``, ``rfl``."""

    __slots__ = ("args", "kind")

    def __init__(self, kind: str, args: tuple = ()) -> None:
        self.kind = kind
        self.args = args


def _parse_pat(ts: TokenStream) -> Pat:
    alts = [_parse_pat_atom(ts)]
    while ts.is_sym("|"):
        ts.advance()
        alts.append(_parse_pat_atom(ts))
    return alts[0] if len(alts) == 1 else Pat("alts", tuple(alts))


def _parse_typed_pat(ts: TokenStream) -> Pat:
    """A component of ``⟨…⟩``: a pattern, optionally ``p : T`` (rcases' ``rcasesPatMed : term``)."""
    p = _parse_pat(ts)
    if ts.is_sym(":"):
        ts.advance()
        return Pat("typed", (p, parse_term(ts, 0)))
    return p


def _drop_add_zero(t: Term) -> Term:
    """``e + 0`` → ``e`` over ℕ, everywhere: ``Nat.add e 0`` reduces to ``e`` definitionally."""
    if type(t) is not tuple:
        return t
    if t and t[0] == "+" and t[1] == "ℕ" and t[3] == ("num", "ℕ", 0):
        return _drop_add_zero(t[2])
    return tuple(_drop_add_zero(c) if type(c) is tuple else c for c in t)


def _parse_pat_atom(ts: TokenStream) -> Pat:
    t = ts.tok
    if ts.is_sym("⟨"):
        ts.advance()
        items: list[Pat] = []
        if not ts.is_sym("⟩"):
            items.append(_parse_typed_pat(ts))
            while ts.is_sym(","):
                ts.advance()
                items.append(_parse_typed_pat(ts))
        ts.expect_sym("⟩")
        return Pat("tuple", tuple(items))
    if ts.is_sym("("):
        ts.advance()
        p = _parse_pat(ts)
        if ts.is_sym(":"):
            ts.advance()
            ty = parse_term(ts, 0)
            ts.expect_sym(")")
            return Pat("typed", (p, ty))
        ts.expect_sym(")")
        return p
    if ts.is_sym("-"):
        ts.advance()
        return Pat("clear")
    if ts.is_sym("_"):
        ts.advance()
        return Pat("name", ("_",))
    if t.kind == "ident" and not ts.at_stop():
        ts.advance()
        if t.text == "rfl":
            return Pat("rfl")
        return Pat("name", (t.text,))
    raise ts.unexpected("rcases pattern")


def _destruct(goal: Goal, hname: str, pat: Pat, ctx: TacticContext) -> list[Goal]:
    """Apply pattern ``pat`` to hypothesis ``hname`` (already in ``goal``; a user name or an id)."""
    ctx.tick(5)
    fid = goal.find(hname)
    ty = goal.hyp(hname)
    if fid is None or ty is None:
        raise TacticError(f"unknown hypothesis '{hname}'")
    k = pat.kind
    if k == "typed":
        # `(p : T)`: the hypothesis's type becomes T, which must be definitionally equal (Lean's rcases)
        sub, tsyn = pat.args
        if ty[0] != "type" and is_prop_type(ty):
            want = ctx.elaborator(goal).elab_prop(tsyn)
            if not defeq(want, ty) and not defeq(_drop_add_zero(want), _drop_add_zero(ty)):
                raise TacticError(
                    f"Type mismatch\n  {pretty(want, goal.ascii)}\nis not definitionally equal to\n"
                    f"  {pretty(ty, goal.ascii)}"
                )
            goal = goal.replace_hyp(fid, want)
        return _destruct(goal, fid, sub, ctx)
    if k == "name":
        new = pat.args[0]
        if new == "_":
            u = user_name(fid)
            return [goal if u.endswith("✝") else goal.rename(fid, u.lstrip("_").split("_")[0] + "✝")]
        return [goal if new == user_name(fid) else goal.rename(fid, new)]
    if k == "clear":
        # rcases' `-` is `clear`: a local something else mentions cannot go
        return [_clear_local(goal, fid)]
    if k == "rfl":
        return _subst_eq(goal, fid, ctx)
    if k == "tuple":
        items = list(pat.args)
        if not items:
            return [goal]
        if len(items) == 1:
            return _destruct(goal, fid, items[0], ctx)
        h = ty[0]
        if h == "∧" or h == "↔":
            left, right = (ty[1], ty[2]) if h == "∧" else (("→", ty[1], ty[2]), ("→", ty[2], ty[1]))
            g = _clear_local(goal, fid)
            g, lv = g.add_local("_left", left)
            g, rv = g.add_local("_right", right)
            rest = Pat("tuple", tuple(items[1:])) if len(items) > 2 else items[1]
            out: list[Goal] = []
            for g2 in _destruct(g, lv[1], items[0], ctx):
                out.extend(_destruct(g2, rv[1], rest, ctx) if g2.find(rv[1]) is not None else [g2])
            return out
        if h == "∃":
            x, xty, body = ty[1], ty[2], ty[3]
            g = _clear_local(goal, fid)
            first = items[0]
            if first.kind == "typed" and first.args[0].kind == "name":
                first = first.args[0]  # `⟨n : Nat, …⟩`: the witness's type is the binder's
            g, xv = g.add_local(
                first.args[0] if first.kind == "name" and first.args[0] != "_" else x + "✝", xty
            )
            g, bv = g.add_local("_h", subst(body, x, xv))
            rest = Pat("tuple", tuple(items[1:])) if len(items) > 2 else items[1]
            return _destruct(g, bv[1], rest, ctx)
        # a tuple pattern on a non-structure: name with the first component
        return _destruct(goal, fid, items[0], ctx)
    if k == "alts":
        alts = list(pat.args)
        h = ty[0]
        if h == "∨":
            g = _clear_local(goal, fid)
            g1, v1 = g.with_tag("inl").add_local("_h", ty[1])
            g2, v2 = g.with_tag("inr").add_local("_h", ty[2])
            rest = Pat("alts", tuple(alts[1:])) if len(alts) > 2 else alts[1]
            return _destruct(g1, v1[1], alts[0], ctx) + _destruct(g2, v2[1], rest, ctx)
        if ty == FALSE:
            return []
        return _destruct(goal, fid, alts[0], ctx)
    raise TacticError("rcases: unsupported pattern")


def _clear_local(goal: Goal, fid: str) -> Goal:
    """``goal`` without local ``fid``; Lean's error when the target or another local depends on it."""
    deps = goal.dependents(fid)
    if deps:
        shown = goal.display_names()
        raise TacticError(
            f"tactic 'clear' failed, variable '{shown[deps[0]]}' depends on '{shown[fid]}'\n{goal.pretty()}"
        )
    if fid in free_vars(goal.target):
        shown = goal.display_names()
        raise TacticError(f"tactic 'clear' failed, target depends on '{shown[fid]}'\n{goal.pretty()}")
    return goal.remove_hyp(fid)


def _subst_eq(goal: Goal, hname: str, ctx: TacticContext) -> list[Goal]:
    ty = goal.hyp(hname)
    if ty is None or ty[0] != "=":
        raise TacticError(f"rcases: `rfl` pattern needs an equation, got\n  {_pp(goal, ty or TRUE)}")
    a, b = ty[2], ty[3]
    g = goal.remove_hyp(hname)
    for var, val in ((b, a), (a, b)):
        if var[0] == "fvar" and not is_prop_type(g.hyp(var[1]) or TRUE) and var[1] not in free_vars(val):
            fid = var[1]
            hyps = tuple((n, subst(t, fid, val)) for n, t in g.hyps if n != fid)
            return [Goal(hyps, subst(g.target, fid, val), g.tag, g.ascii)]
    raise TacticError(f"motive is not type correct: cannot substitute in\n  {_pp(goal, ty)}")


def _cases_on(goal: Goal, hname: str, ctx: TacticContext, lean4_names: bool = True) -> list[Goal]:
    """``cases h``: like rcases with inaccessible names and Lean's case tags."""
    ty = goal.hyp(hname)
    fid = goal.find(hname)
    if ty is None or fid is None:
        raise TacticError(f"unknown hypothesis `{hname}`")
    h = ty[0]
    g = _clear_local(goal, fid) if h in ("∧", "↔", "∨", "∃") else goal
    if h == "∧":
        return [g.add_hyp("left✝", ty[1]).add_hyp("right✝", ty[2]).with_tag("intro")]
    if h == "↔":
        return [g.add_hyp("mp✝", ("→", ty[1], ty[2])).add_hyp("mpr✝", ("→", ty[2], ty[1])).with_tag("intro")]
    if h == "∨":
        return [g.add_hyp("h✝", ty[1]).with_tag("inl"), g.add_hyp("h✝", ty[2]).with_tag("inr")]
    if h == "∃":
        g, w = g.add_local("w✝", ty[2])
        return [g.add_hyp("h✝", subst(ty[3], ty[1], w)).with_tag("intro")]
    if ty == FALSE:
        return []
    raise TacticError(
        f"tactic 'induction' failed, major premise type is not an inductive type \n  {_pp(goal, ty)}"
    )


def _target_hyp(goal: Goal, syn: Syn, ctx: TacticContext) -> tuple[Goal, str]:
    """Make ``syn`` a hypothesis: a name already is one; a proof term is added as a new one."""
    if syn.kind == "ident":
        fid = goal.find(syn.args[0])
        if fid is not None:
            return goal, fid
    pc = ProofChecker(goal, ctx)
    p = pc.infer(syn)
    g, v = goal.add_local("_h", p)
    return g, v[1]


@builtin("rcases")
def _rcases(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    term = parse_term(ts, 0)
    pat = Pat("name", ("_",))
    if ts.is_word("with"):
        ts.advance()
        pat = _parse_pat(ts)
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    g, hname = _target_hyp(goal, term, ctx)
    if pat.kind == "name" and pat.args[0] == "_" and term.kind == "ident":
        return _cases_on(g, hname, ctx)
    return _finish_names(_destruct(g, hname, pat, ctx))


@builtin("obtain")
def _obtain(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    pat = _parse_pat(ts)
    new_goals: list[Goal] = []
    if ts.is_sym(":"):
        ts.advance()
        pty = ctx.elaborator(goal).elab_prop(parse_term(ts, 0))
        if ts.is_sym(":="):
            ts.advance()
            pf = parse_term(ts, 0)
            ProofChecker(goal, ctx).check(pf, pty)
        else:
            new_goals.append(goal.with_target(pty).with_tag(None))
        g, v = goal.add_local("_h", pty)
        name = v[1]
    elif ts.is_sym(":="):
        ts.advance()
        term = parse_term(ts, 0)
        g, name = _target_hyp(goal, term, ctx)
    else:
        raise TacticError("unexpected end of input; expected ':=' or ':'", syn.end, syn.end)
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    return new_goals + _finish_names(_destruct(g, name, pat, ctx))


def _finish_names(goals: list[Goal]) -> list[Goal]:
    """Temporary names (``_left``…) that patterns did not name become inaccessible, as in Lean."""
    out = []
    for g in goals:
        for n, _ in g.hyps:
            u = user_name(n)
            if u.startswith("_"):
                g = g.rename(n, (u.lstrip("_").split("_")[0] or "h") + "✝")
        out.append(g)
    return out


@builtin("rintro")
def _rintro(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    goals = [goal]
    while ts.tok.kind != "eof":
        pat = _parse_pat_atom(ts)
        out: list[Goal] = []
        for g in goals:
            if pat.kind == "name":
                n = pat.args[0]
                out.append(_intro_one(g, None if n == "_" else n, ctx))
            else:
                g2 = _intro_one(g, "_x", ctx)
                out.extend(_destruct(g2, g2.hyps[-1][0], pat, ctx))
        goals = _finish_names(out)
    return goals


def _nat_cases(goal: Goal, x: str, with_ih: bool) -> list[Goal]:
    """``induction x`` / ``cases x`` for ``x : ℕ``: cases ``zero`` and ``succ`` (hypotheses about ``x`` are
    generalised, as Lean 4 does: they come back in each case, and the induction hypothesis assumes them).

    Every local it makes is new (``n✝``, the induction hypothesis, the re-introduced hypotheses), so nothing
    already in the goal can be captured, whatever its name.
    """
    fid = goal.find(x)
    if fid is None:
        raise TacticError(f"unknown identifier '{x}'")
    deps = [(n, t) for n, t in goal.hyps if n != fid and fid in free_vars(t)]
    dep_ids = {n for n, _ in deps}
    base_hyps = tuple((n, t) for n, t in goal.hyps if n != fid and n not in dep_ids)
    zero = ("num", "ℕ", 0)
    g0 = Goal(base_hyps, subst(goal.target, fid, zero), "zero", goal.ascii)
    for n, t in deps:
        g0 = g0.add_hyp(user_name(n), subst(t, fid, zero))
    g1, kv = Goal(base_hyps, goal.target, "succ", goal.ascii).add_local("n✝", type_term("ℕ"))
    if with_ih:
        ih: Term = subst(goal.target, fid, kv)
        for _, t in reversed(deps):
            ih = ("→", subst(t, fid, kv), ih)
        g1 = g1.add_hyp("a✝", ih)
    succ = ("+", "ℕ", kv, ("num", "ℕ", 1))
    for n, t in deps:
        g1 = g1.add_hyp(user_name(n), subst(t, fid, succ))
    g1 = Goal(g1.hyps, subst(goal.target, fid, succ), "succ", goal.ascii)
    return [g0, g1]


def _alternatives(syn: TacSyntax, ts: TokenStream) -> list[tuple[str, list[str], int, int, Token]]:
    """``| tag x y => tacs`` alternatives after ``with``: (tag, names, start, end, bar token)."""
    toks = ts.toks[ts.i : -1]
    starts: list[int] = []
    depth = 0
    for i, t in enumerate(toks):
        if t.kind == "sym" and t.text in ("(", "[", "{", "⟨"):
            depth += 1
        elif t.kind == "sym" and t.text in (")", "]", "}", "⟩"):
            depth -= 1
        elif depth == 0 and t.kind == "sym" and t.text == "|":
            j = i + 1
            while j < len(toks) and (toks[j].kind == "ident" or toks[j].text == "_"):
                j += 1
            if j > i + 1 and j < len(toks) and toks[j].text == "=>":
                starts.append(i)
    if not starts or starts[0] != 0:
        raise TacticError("unexpected token; expected '|'", toks[0].start if toks else syn.end, syn.end)
    alts = []
    for a, i in enumerate(starts):
        end_i = starts[a + 1] if a + 1 < len(starts) else len(toks)
        j = i + 1
        words: list[str] = []
        while toks[j].text != "=>":
            words.append(toks[j].text)
            j += 1
        body = toks[j + 1 : end_i]
        if not body:
            raise TacticError("unexpected token; expected tactic", toks[j].end, toks[j].end)
        alts.append((words[0], words[1:], body[0].start, body[-1].end, toks[i]))
    return alts


def _run_alternatives(
    goals: list[Goal], alts: list[tuple[str, list[str], int, int, Token]], syn: TacSyntax, ctx: TacticContext
) -> list[Goal]:
    from lean_gym.sim.tactics import _rename_inaccessible, run_block, unsolved_goals_message

    by_tag = {g.tag: g for g in goals}
    for tag, names, start, end, bar in alts:
        g = by_tag.pop(tag, None)
        if g is None:
            raise TacticError(f"invalid alternative name '{tag}'", bar.start, bar.end)
        g = _rename_inaccessible(g.with_tag(None), names) if names else g.with_tag(None)
        rest = run_block(syn.src, start, end, [g], ctx)
        if rest:
            raise TacticError(unsolved_goals_message(rest), bar.start, end)
    if by_tag:
        missing = next(iter(by_tag))
        raise TacticError(f"alternative '{missing}' has not been provided")
    return []


@builtin("induction", "induction'")
def _induction(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    if ts.tok.kind != "ident" or goal.hyp(ts.tok.text) is None:
        raise TacticError("the simulator's `induction` takes a variable: `induction n`", syn.start, syn.end)
    x = ts.advance().text
    hx = goal.hyp(x)
    if hx is not None and hx[0] in ("∨", "∧", "↔", "∃", "False") and syn.name == "induction":
        # a proof of a non-recursive inductive proposition: `induction` is `cases` (same motive, no
        # induction hypotheses; Lean core's tests/lean/run/induction1.lean)
        toks = syn.toks
        heads = {"∨": "Or", "∧": "And", "↔": "Iff", "∃": "Exists", "False": "False"}
        if len(toks) > 3 and toks[2].text == "using":
            # `using T.casesOn` / `T.rec` with T the hypothesis's own type: the default eliminator
            if toks[3].text not in (f"{heads[hx[0]]}.{e}" for e in ("casesOn", "rec", "recOn")):
                raise TacticError(
                    f"`induction … using {toks[3].text}` is outside the simulator's Lean subset"
                )
            toks = toks[:2] + toks[4:]
        return _cases(goal, TacSyntax("cases", toks, syn.src, syn.start, syn.end), ctx)
    if hx != type_term("ℕ"):
        raise TacticError(
            f"induction on `{x}` is outside the simulator's Lean subset (it supports natural-number variables"
            " and proofs of ∨, ∧, ↔, ∃)"
        )
    goals = _nat_cases(goal, x, with_ih=True)
    if ts.is_word("with"):
        ts.advance()
        if syn.name == "induction'":
            names = []
            while ts.tok.kind == "ident" or ts.is_sym("_"):
                names.append(ts.advance().text)
            from lean_gym.sim.tactics import _rename_inaccessible

            goals[1] = _rename_inaccessible(goals[1], names) if names else goals[1]
        else:
            return _run_alternatives(goals, _alternatives(syn, ts), syn, ctx)
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    return goals


@builtin("cases", "cases'")
def _cases(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    term = parse_term(ts, 0)
    names: list[str] = []
    if term.kind == "ident" and goal.hyp(term.args[0]) == type_term("ℕ"):
        goals = _nat_cases(goal, term.args[0], with_ih=False)
        if ts.is_word("with") and syn.name == "cases":
            ts.advance()
            return _run_alternatives(goals, _alternatives(syn, ts), syn, ctx)
        if ts.is_word("with"):
            ts.advance()
            while ts.tok.kind == "ident" or ts.is_sym("_"):
                names.append(ts.advance().text)
            from lean_gym.sim.tactics import _rename_inaccessible

            goals[1] = _rename_inaccessible(goals[1], names[-1:]) if names else goals[1]
        return goals
    if ts.is_word("with"):
        ts.advance()
        if syn.name == "cases":
            g0, hname0 = _target_hyp(goal, term, ctx)
            return _run_alternatives(_cases_on(g0, hname0, ctx), _alternatives(syn, ts), syn, ctx)
        while ts.tok.kind == "ident" or ts.is_sym("_"):
            names.append(ts.advance().text)
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    g, hname = _target_hyp(goal, term, ctx)
    ty = g.hyp(hname)
    if syn.name == "cases'" and ty is not None:
        if ty[0] == "∨":
            pat = Pat("alts", tuple(Pat("name", (n,)) for n in [*names, "_", "_"][:2]))
        else:
            pat = Pat("tuple", tuple(Pat("name", (n,)) for n in (names or ["_", "_"])))
        return _finish_names(_destruct(g, hname, pat, ctx))
    return _cases_on(g, hname, ctx)


@builtin("by_cases")
def _by_cases(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    name = "h✝"
    if ts.tok.kind == "ident" and ts.peek().kind == "sym" and ts.peek().text == ":":
        name = ts.advance().text
        ts.advance()
    term = parse_term(ts, 0)
    el = ctx.elaborator(goal)
    if term.kind == "ident" and goal.hyp(term.args[0]) == type_term("Bool"):
        p: Term = ("=", "Bool", goal.var(term.args[0]) or TRUE, ("bool", True))
    else:
        p = el.elab_prop(term)
    return [goal.add_hyp(name, p).with_tag("pos"), goal.add_hyp(name, ("¬", p)).with_tag("neg")]


# -------------------------------------------------------------------------------------- closing


@builtin("assumption")
def _assumption(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    if _hyp_closes(goal, goal.target) is not None:
        return []
    raise TacticError(lambda: "Tactic `assumption` failed\n\n" + goal.pretty())


def _contradiction_found(goal: Goal) -> bool:
    props = [t for _, t in goal.hyps if is_prop_type(t)]
    canons = {canon(t) for t in props}
    for t in props:
        if t == FALSE:
            return True
        c = canon(t)
        if c[0] == "→" and c[2] == FALSE and (c[1] in canons or c[1] == TRUE):
            return True
        if c[0] == "→" and c[2] == FALSE and c[1][0] == "=" and c[1][2] == c[1][3]:
            return True
    return False


@builtin("contradiction")
def _contradiction(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    if _contradiction_found(goal):
        return []
    raise TacticError(lambda: "Tactic `contradiction` failed\n\n" + goal.pretty())


@builtin("exfalso")
def _exfalso(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    if not is_prop_type(goal.target):
        raise TacticError("exfalso: the goal is not a proposition")
    return [goal.with_target(FALSE)]


@builtin("trivial")
def _trivial(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    if _trivial_closes(goal, ctx, 3):
        return []
    raise TacticError("Failed to prove the goal using `trivial`")


def _trivial_closes(goal: Goal, ctx: TacticContext, depth: int) -> bool:
    from lean_gym.sim.evaluate import decide_closed, rfl_closes

    t = goal.target
    ctx.tick(2)
    if t == TRUE or _hyp_closes(goal, t) is not None:
        return True
    if t[0] == "=" and rfl_closes(t, ctx):
        return True
    if t[0] == "∧" and depth > 0:
        return _trivial_closes(goal.with_target(t[1]), ctx, depth - 1) and _trivial_closes(
            goal.with_target(t[2]), ctx, depth - 1
        )
    return decide_closed(t, ctx) is True


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
        return []
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
        return [] if _use_discharger_closes(g, ctx, 8) else [g]
    # core's `exists` runs `try trivial` on what is left
    if _trivial_closes(g, ctx, 2):
        return []
    return [g]


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


def _use_discharger_closes(goal: Goal, ctx: TacticContext, depth: int) -> bool:
    """Whether Mathlib's ``try with_reducible use_discharger`` closes ``goal`` (``Mathlib/Tactic/Use.lean``).

    Its rules: ``apply exists_prop.mpr <;> use_discharger``, ``apply And.intro <;> use_discharger``,
    ``rfl``, ``assumption``, ``apply True.intro``, all at reducible transparency. The simulator reads
    ``rfl`` and ``assumption`` up to syntax (and the reducible ``>``/``≥``), which is weaker: it does no
    literal arithmetic (``use 1, 2, 3`` leaves ``1 + 2 + 3 = 6`` open, as ``MathlibTest/Use.lean`` records).
    """
    ctx.tick(2)
    t = goal.target
    if t == TRUE:
        return True
    if t[0] == "∧":
        return depth > 0 and all(_use_discharger_closes(goal.with_target(p), ctx, depth - 1) for p in t[1:3])
    if t[0] in ("=", "↔"):
        lhs, rhs = (t[2], t[3]) if t[0] == "=" else (t[1], t[2])
        if _reducible_form(lhs) == _reducible_form(rhs):
            return True
    r = _reducible_form(t)
    return any(is_prop_type(p) and _reducible_form(p) == r for _, p in goal.hyps)


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
            return []
        _check_data(goal, term, ctx)
        return []
    pc = ProofChecker(goal, ctx)
    pc.check(term, goal.target)
    return []


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
    return pc.new_goals


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


def _apply_telescope(
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
            from lean_gym.sim.proofs import _has_mvars

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
    pending, concl, inst, holes = _apply_telescope(goal, term, ctx)
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
        return new_goals
    at = goal.ascii
    shown = instantiate(concl, inst.asg)
    raise TacticError(
        lambda: (
            f"Tactic `apply` failed: could not unify the conclusion of `{_syn_src(syn, term)}`\n  {pretty(shown, at)}\nwith the goal\n  {pretty(target, at)}\n\n{goal.pretty()}"
        )
    )


def _unresolved(t: Term) -> bool:
    from lean_gym.sim.proofs import _has_mvars

    return _has_mvars(t)


def _syn_src(syn: TacSyntax, term: Syn) -> str:
    return syn.src.text[term.start : term.end]


def _apply_data(goal: Goal, term: Syn, ctx: TacticContext) -> list[Goal]:
    from lean_gym.sim.elab import BUILTIN_FNS

    target = goal.target
    if term.kind == "ident" and term.args[0] in BUILTIN_FNS:
        atys, rty = BUILTIN_FNS[term.args[0]]
        if target == type_term(rty):
            return [goal.with_target(type_term(a)) for a in atys]
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
    return []


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
            goal = _subst_eq(goal, n, ctx)[0]
            continue
        v = goal.var(n)
        for hn, ht in reversed(goal.props()):
            if ht[0] == "=" and (ht[2] == v or ht[3] == v):
                goal = _subst_eq(goal, hn, ctx)[0]
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
        goal = _clear_local(goal, fid)
    return [goal]


@builtin("rename_i")
def _rename_i(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    from lean_gym.sim.tactics import _rename_inaccessible

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


@builtin("exact_mod_cast", "assumption_mod_cast")
def _exact_mod_cast(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    from lean_gym.sim.simp import cast_normalize

    target = cast_normalize(goal.target)
    if syn.name == "assumption_mod_cast":
        for _, t in goal.hyps:
            if is_prop_type(t) and defeq(cast_normalize(t), target):
                return []
        raise TacticError("assumption_mod_cast failed")
    _check_mod_cast(ProofChecker(goal, ctx), _term_arg(syn), goal.target)
    return []


def _check_mod_cast(pc: ProofChecker, term: Syn, expected: Term) -> None:
    """``exact_mod_cast e`` and the term ``mod_cast e``: ``e``'s type and ``expected`` agree after norm_cast."""
    from lean_gym.sim.simp import cast_normalize

    target = cast_normalize(expected)
    p = pc.infer(term)
    if defeq(cast_normalize(p), target):
        return
    raise TacticError(
        f"Type mismatch: the normalized type\n  {pretty(cast_normalize(p), pc.goal.ascii)}\ndoes not match the normalized goal\n  {pretty(target, pc.goal.ascii)}"
    )


TERM_MACROS["mod_cast"] = _check_mod_cast


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
    if head.kind == "ident" and not args and goal.hyp(head.args[0]) is None and "." not in head.args[0]:
        d = ctx.lookup(head.args[0])
        if d is not None and d.kind in ("theorem", "axiom"):
            ctx.axioms.update(d.axioms)
            tel = decl_telescope(d, peel_not=False)
            inst = Instance(tel)
            while inst.pending:
                inst.mvar_next()
            return _eq_sides(inst, inst.conclusion, rev, term)
    if head.kind == "ident" and args and goal.hyp(head.args[0]) is None:
        _, _, inst, _ = _apply_telescope(goal, term, ctx)
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
        if h in ("var", "fvar", "const", "num", "type", "True", "False", "bool", "sorry", "mvar"):
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
    if not found:
        at = goal.ascii
        what = "target expression" if where is None else "expression"
        raise TacticError(
            lambda: (
                f"Tactic `rewrite` failed: Did not find an instance of the pattern in the {what}\n  {pretty(instantiate(lhs, asg), at)}\n\n{goal.pretty()}"
            )
        )
    from lean_gym.sim.proofs import _has_mvars

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
            return side
    if syn.name == "rwa":
        if _hyp_closes(goal, goal.target) is not None:
            return side
        raise TacticError(lambda: "Tactic `assumption` failed\n\n" + goal.pretty())
    if rfl_after_rw(goal):
        return side
    return [goal, *side]


__all__ += ["kabstract", "rewrite_once", "rfl_after_rw", "rule_equation"]
