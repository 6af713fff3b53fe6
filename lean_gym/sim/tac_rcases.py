"""Introducing and destructuring hypotheses: ``intro``/``intros``, the ``rcases`` pattern grammar and its
destructuring (``rcases``, ``obtain``, ``rintro``), and the case splits ``cases``, ``induction`` and ``by_cases``.

Each handler takes the main goal and the tactic's :class:`~lean_gym.sim.tactics.TacSyntax` and returns
the goals that replace it. Failures raise :class:`~lean_gym.sim.tactics.TacticError` with Lean's words.
``intro`` with a pattern is ``rintro``, so both live here.
"""

from __future__ import annotations

from collections.abc import Callable

from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import Contradiction, close, close_cases, mark
from lean_gym.sim.proofs import (
    ProofChecker,
)
from lean_gym.sim.syntax import Syn, Token, TokenStream, parse_term
from lean_gym.sim.tactics import (
    TacSyntax,
    TacticContext,
    TacticError,
    _rename_inaccessible,
    builtin,
    run_block,
    unsolved_goals_message,
)
from lean_gym.sim.terms import (
    FALSE,
    TRUE,
    Term,
    free_vars,
    is_prop_type,
    pretty,
    replace_term,
    subst,
    type_term,
    user_name,
)
from lean_gym.sim.unify import defeq

__all__ = ["Pat", "clear_local", "destruct_hyp", "parse_rcases_pat", "subst_eq"]


def _pp(goal: Goal, t: Term) -> str:
    return pretty(t, goal.ascii, goal.display_names())


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


def parse_rcases_pat(ts: TokenStream) -> Pat:
    """An ``rcasesPatMed`` at ``ts``: patterns separated by ``|`` (``h``, ``⟨a, b⟩``, ``ha | hb``, ``rfl``)."""
    return _parse_pat(ts)


def destruct_hyp(goal: Goal, hname: str, pat: Pat, ctx: TacticContext) -> list[Goal]:
    """Destructure the local ``hname`` of ``goal`` with ``pat``, as ``rcases``/``rintro`` do (the names the
    pattern leaves unnamed become inaccessible). A case closed on the way (``⟨⟩`` on ``False``) is closed
    through the kernel; the caller closes ``goal`` with :func:`~lean_gym.sim.kernel.close_cases` when no
    goal is left."""
    return _finish_names(_destruct(goal, hname, pat, ctx))


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


def _closing_cases(fn: Handler) -> Handler:
    """A destructuring tactic that leaves no goal closed each of its cases through the kernel (a ``False``
    hypothesis, an alternative's tactics): its goal is closed as their ``Subproof``."""

    def run(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
        since = mark(ctx)
        return fn(goal, syn, ctx) or close_cases(goal, since, ctx)

    run.__name__, run.__doc__, run.__module__ = fn.__name__, fn.__doc__, fn.__module__
    return run


Handler = Callable[[Goal, TacSyntax, TacticContext], list[Goal]]


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
        return [clear_local(goal, fid)]
    if k == "rfl":
        return subst_eq(goal, fid, ctx)
    if k == "tuple":
        items = list(pat.args)
        if not items:
            # `⟨⟩` is `cases` with every field unnamed (Lean's `RCases`): an equation is substituted, `False`
            # has no case, a conjunction or an existential is split into inaccessible fields
            if ty == FALSE:
                return close(goal, Contradiction(fid), ctx)
            if ty[0] == "=" and any(side[0] == "fvar" for side in ty[2:4]):
                return subst_eq(goal, fid, ctx)
            if ty[0] in ("∧", "∃"):
                return _destruct(goal, fid, Pat("tuple", (Pat("name", ("_",)), Pat("name", ("_",)))), ctx)
            return [goal]
        if len(items) == 1:
            return _destruct(goal, fid, items[0], ctx)
        h = ty[0]
        if h == "∧" or h == "↔":
            left, right = (ty[1], ty[2]) if h == "∧" else (("→", ty[1], ty[2]), ("→", ty[2], ty[1]))
            g = clear_local(goal, fid)
            g, lv = g.add_local("_left", left)
            g, rv = g.add_local("_right", right)
            rest = Pat("tuple", tuple(items[1:])) if len(items) > 2 else items[1]
            out: list[Goal] = []
            for g2 in _destruct(g, lv[1], items[0], ctx):
                out.extend(_destruct(g2, rv[1], rest, ctx) if g2.find(rv[1]) is not None else [g2])
            return out
        if h == "∃":
            x, xty, body = ty[1], ty[2], ty[3]
            g = clear_local(goal, fid)
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
            g = clear_local(goal, fid)
            g1, v1 = g.with_tag("inl").add_local("_h", ty[1])
            g2, v2 = g.with_tag("inr").add_local("_h", ty[2])
            rest = Pat("alts", tuple(alts[1:])) if len(alts) > 2 else alts[1]
            return _destruct(g1, v1[1], alts[0], ctx) + _destruct(g2, v2[1], rest, ctx)
        if ty == FALSE:
            return close(goal, Contradiction(fid), ctx)
        if ty == type_term("ℕ"):
            return _destruct_nat(goal, fid, alts, ctx)
        return _destruct(goal, fid, alts[0], ctx)
    raise TacticError("rcases: unsupported pattern")


def _destruct_nat(goal: Goal, fid: str, alts: list[Pat], ctx: TacticContext) -> list[Goal]:
    """``rcases n with p₀ | p₁ | …`` on ``n : ℕ`` (Lean's ``RCases.processConstructors``): ``zero`` takes
    ``p₀`` (it has no field), ``succ`` the rest as the pattern of its field, which splits again when that is
    an alternative too (``_ | ⟨⟩ | z``: ``0``, ``0 + 1``, ``z + 1 + 1``). ``n`` is replaced in the target and
    in the hypotheses that mention it, as ``cases`` does."""
    if alts[0].kind not in ("name", "clear") and not (alts[0].kind == "tuple" and not alts[0].args):
        raise TacticError("an rcases pattern on `0` with fields is outside the simulator's Lean subset")
    before = {n for n, _ in goal.hyps}
    zero, succ = _nat_cases(goal, fid, with_ih=False)
    field = next(n for n, t in succ.hyps if n not in before and t == type_term("ℕ"))
    rest = alts[1] if len(alts) == 2 else Pat("alts", tuple(alts[1:]))
    return [zero, *_destruct(succ, field, rest, ctx)]


def clear_local(goal: Goal, fid: str) -> Goal:
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


def subst_eq(goal: Goal, hname: str, ctx: TacticContext) -> list[Goal]:
    """Substitute by the equation ``hname : a = b`` (a local on either side), as the ``rfl`` pattern does."""
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
    g = clear_local(goal, fid) if h in ("∧", "↔", "∨", "∃") else goal
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
        return close(goal, Contradiction(fid), ctx)
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
@_closing_cases
def _rcases(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    if ts.tok.kind == "ident" and ts.peek().kind == "sym" and ts.peek().text == ":":
        # `rcases h : e with pat`: `e` generalized with `h : e = x` (Lean's `generalizeExceptFVar`)
        goal, inner = _generalized(goal, syn, ts, ctx)
        return _rcases(goal, inner, ctx)
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
@_closing_cases
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
@_closing_cases
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


def _generalize_target(goal: Goal, hname: str, ts: TokenStream, ctx: TacticContext) -> tuple[Goal, str]:
    """``h : e`` as a ``cases``/``induction`` target (Lean's ``generalizeExceptFVar``, as
    ``generalize h : e = x``): a new local ``x`` replaces ``e`` in the target, with ``h : e = x``; the
    returned id is ``x``'s. The simulator takes natural-number terms ``e`` only."""
    term = parse_term(ts, 0)
    e = ctx.elaborator(goal).elab_arith(term, "ℕ")
    g, xv = goal.add_local("x✝", type_term("ℕ"))
    g = g.add_hyp(hname, ("=", "ℕ", e, xv)).with_target(replace_term(goal.target, e, xv))
    return g, xv[1]


def _generalized(goal: Goal, syn: TacSyntax, ts: TokenStream, ctx: TacticContext) -> tuple[Goal, TacSyntax]:
    """``tac h : e rest`` (``ts`` at ``h``) as ``tac x rest`` on the goal where ``e`` is generalized to the new
    local ``x`` (see :func:`_generalize_target`)."""
    hname = ts.advance().text
    ts.advance()
    goal, fid = _generalize_target(goal, hname, ts, ctx)
    x_tok = Token("ident", fid, syn.start, syn.start, 0, 0, False)
    return goal, TacSyntax(syn.name, (syn.toks[0], x_tok, *ts.toks[ts.i : -1]), syn.src, syn.start, syn.end)


@builtin("induction", "induction'")
@_closing_cases
def _induction(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    if ts.tok.kind == "ident" and ts.peek().kind == "sym" and ts.peek().text == ":":
        # `induction' h : e`: generalize `e` (Mathlib's `elabCasesTargets`), then induction on the new local
        goal, inner = _generalized(goal, syn, ts, ctx)
        return _induction(goal, inner, ctx)
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
            while (ts.tok.kind == "ident" and not ts.is_word("generalizing")) or ts.is_sym("_"):
                names.append(ts.advance().text)
            goals[1] = _rename_inaccessible(goals[1], names) if names else goals[1]
        else:
            return _run_alternatives(goals, _alternatives(syn, ts), syn, ctx)
    if syn.name == "induction'" and ts.is_word("generalizing"):
        _generalizing_refused(goal, x, ts)
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    return goals


def _generalizing_refused(goal: Goal, x: str, ts: TokenStream) -> None:
    """Mathlib's ``induction' … generalizing y …`` checks (``Mathlib/Tactic/Cases.lean``), then the refusal.

    A variable the target is or depends on cannot be generalized, and one that depends on the target is
    generalized anyway (Mathlib's texts; ``MathlibTest/cases.lean`` at 4aa09afd, line 141). Past the
    checks the simulator does not revert and re-introduce the variables: outside its subset.
    """
    start = ts.advance()
    while ts.tok.kind == "ident":
        v = ts.advance()
        ty = goal.hyp(v.text)
        if ty is None:
            raise TacticError(f"Unknown identifier `{v.text}`", v.start, v.end)
        if v.text == x:
            raise TacticError(f"variable cannot be generalized because target depends on it\n  {v.text}")
        if any(user_name(n) == x for n in free_vars(ty)):
            raise TacticError(
                f"unnecessary 'generalizing' argument, variable '{v.text}' is generalized automatically"
            )
    raise TacticError("`induction' … generalizing` is outside the simulator's Lean subset", start.start)


@builtin("cases", "cases'")
@_closing_cases
def _cases(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    if ts.tok.kind == "ident" and ts.peek().kind == "sym" and ts.peek().text == ":":
        goal, inner = _generalized(goal, syn, ts, ctx)
        return _cases(goal, inner, ctx)
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
