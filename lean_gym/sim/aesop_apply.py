"""Applying one aesop rule to one goal: rule tactics run through the simulator, the builtin steps, and the
memo tables that make a repeated application a replay.

:func:`apply_rule` gives a rule's expansions (:class:`Expansion`) on a goal; :func:`run_sub` runs a rule's tactic text
(a failure, an error or a ``sorry`` is ``None``); :func:`memo_step` memoises a builtin step. Every answer is
memoised in process (:mod:`lean_gym.sim.memo`) under everything it depends on, with its heartbeat cost
replayed, so a memoised call behaves exactly as the original one; :func:`clear_cache` forgets them.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from lean_gym.lean.lexer import is_id_rest
from lean_gym.sim.aesop_cost import COST_BUILTIN, tactic_cost, tactic_result_cost
from lean_gym.sim.aesop_rules import Rule
from lean_gym.sim.aesop_syntax import AesopCall, AesopOptions, AesopSyntaxError, parse_aesop
from lean_gym.sim.elab import env_key
from lean_gym.sim.goals import Goal, canonical_goal
from lean_gym.sim.kernel import (
    Contradiction,
    DataValue,
    Hyp,
    Justification,
    Refl,
    Renamed,
    Subproof,
    TrueIntro,
    close,
    replayable,
)
from lean_gym.sim.memo import MISS, IdentityMemo, Memo, clear_all
from lean_gym.sim.memo import enabled as memo_enabled
from lean_gym.sim.tactics import (
    MEMO_EXACT,
    HeartbeatsExceeded,
    TacticContext,
    TacticError,
    forget_frames,
    parsed_text,
    run_node,
    term_size,
)
from lean_gym.sim.terms import (
    FALSE,
    FVAR_SEP,
    TRUE,
    Term,
    const_names,
    free_vars,
    fvar_mark,
    fvar_serial,
    new_fvar,
    rename_fvars,
    rename_remembered,
    replace_const,
    subst,
    user_name,
)
from lean_gym.sim.unify import defeq

__all__ = [
    "NORM_MEMO",
    "NORM_STEPS",
    "Expansion",
    "FailureProbe",
    "apply_rule",
    "builtin_proof",
    "clear_cache",
    "failure_probe",
    "memo_step",
    "mentions",
    "parse_cached",
    "run_sub",
    "tracked",
]

# --------------------------------------------------------------------------------- sub-tactic running
# A rule tactic's answer on a goal is memoised (``lean_gym.sim.memo``) under everything it depends on: the
# environment (``elab.env_key``), the tactic text, the goal up to an order-preserving renaming of its
# locals (``goals.canonical_goal``: an answer depends on locals only through their names, types and the
# order they were made in), whether errors are recovered from, and the flags that make any rule fail (a
# sorry or a self-reference already in the proof). Beside the answer it keeps the heartbeats the run cost,
# the heartbeats it needed left (``TacticContext.search_budget``: linarith and omega size their search by
# the budget, and report how much of it they needed), and the axioms it used, so a replay charges, records
# and fails exactly as the run would; a run that cannot be replayed with the budget left (it would time out
# part-way, or its search would have seen a smaller budget) is run again. The same holds for builtin steps
# and whole normalisations (``memo_step``, ``Search._normalize``). The answer keeps the goal's locals canonical and writes each
# local the tactic made as ``name␀n<j>`` (j in the order they were made): a replay maps the first back and
# makes fresh locals for the second, in that order, as the tactic would have, so no two goals share a
# local they did not share without the memo.
#
# Keys are small: a canonical goal is interned once as an int (a number is never given to two different
# goals, so an evicted number only makes entries unreachable, never wrong), and the canonical form of a
# goal object is computed once (every rule of an expansion runs on the same object; a replayed goal gets
# its canonical form from the answer).

_RESULTS = Memo("aesop.rule_results", max_entries=100_000, max_bytes=96 << 20)
_CALLS = Memo("aesop.calls", max_entries=512, max_bytes=8 << 20)
_STEPS = Memo("aesop.builtin_steps", max_entries=100_000, max_bytes=64 << 20)
NORM_MEMO = Memo("aesop.normalisations", max_entries=50_000, max_bytes=64 << 20)
"""Whole normalisations of a goal (``Search._normalize``), memoised as rule answers are."""
_GOAL_IDS = Memo("aesop.canonical_goals", max_entries=200_000, max_bytes=64 << 20)
# The remembered failures of rule texts on one goal (``(environment, canonical goal, flags)`` → rule text →
# ``(cost, need)``), written beside ``_RESULTS`` whenever it stores a failure that any budget replays: what
# :class:`FailureProbe` reads, one dictionary lookup per rule (an answer is a function of its key, so an entry
# stays true after ``_RESULTS`` evicts its twin).
_FAIL_SHEETS = Memo("aesop.failure_sheets", max_entries=50_000, max_bytes=32 << 20)
# A goal object's canonical number and renaming, for the goals of the request in progress (only the goals of
# the searches running need it).
_CANON = IdentityMemo("aesop.goal_keys", 2048, per_request=True)
# The inverse of a goal's canonical renaming (canonical id → the goal's id), by the renaming's identity: every
# answer replayed on the goal maps back through it.
_BACK = IdentityMemo("aesop.goal_renamings_back", 2048, per_request=True)
_SERIAL = itertools.count()


def clear_cache() -> None:
    """Forget every memo table of the simulator (benchmarks call it to measure cold runs)."""
    clear_all()


def _remember_canon(goal: Goal, n: int, ren: dict[str, str]) -> None:
    _CANON.put(goal, (n, ren))


def _goal_key(goal: Goal) -> tuple[int, dict[str, str]]:
    """The interned canonical form of ``goal`` (tag dropped) and its renaming (see ``canonical_goal``)."""
    hit = _CANON.get(goal)
    if hit is not MISS:
        return hit
    cgoal, ren = canonical_goal(goal.with_tag(None))
    ckey = (cgoal.hyps, cgoal.target, cgoal.ascii)  # a plain tuple: the collector stops tracking it
    n = _GOAL_IDS.get(ckey)
    if n is MISS:
        n = next(_SERIAL)
        _GOAL_IDS.put(ckey, n, 100 + 64 * _nodes(goal))
    _remember_canon(goal, n, ren)
    return n, ren


# One goal of a remembered answer: its context (``None``: the input's; else per local, an int ``k`` for the
# input's k-th local, unchanged, or a canonical ``(id, type)``), its target (``None``: the input's), tag
# (``_SAME``: the input's), ``ascii``, and its own canonical key with the renaming from the answer's ids.
_Entry = tuple[Any, Any, Any, bool, "tuple[int, tuple[tuple[str, str], ...]] | None"]
_SAME = object()


def _abstract(goal: Goal, ren: dict[str, str], new: list[Goal], mark: int) -> tuple[Any, ...] | None:
    """The answer ``new`` of a run on ``goal`` in replayable form (see ``_Entry``), or ``None`` when it
    mentions a local that is neither ``goal``'s nor made by the run (after ``mark``)."""
    pos = {id(e): k for k, e in enumerate(goal.hyps)}
    made: set[str] = set()
    mentioned: list[set[str]] = []
    for g in new:
        ids: set[str] = set()
        for e in g.hyps:
            ids.add(e[0])
            free_vars(e[1], ids)
        free_vars(g.target, ids)
        mentioned.append(ids)
        made.update(i for i in ids if i not in ren and FVAR_SEP in i)
    order = sorted(made, key=fvar_serial)
    if order and fvar_serial(order[0]) <= mark:
        return None
    full = dict(ren)
    holes = []
    for j, fid in enumerate(order):
        full[fid] = hole = f"{user_name(fid)}{FVAR_SEP}n{j}"
        holes.append(hole)
    entries: list[_Entry] = []
    old = goal.hyps
    for g, ids in zip(new, mentioned):
        hyps: Any = None
        if g.hyps is not old:
            parts: list[Any] = []
            for e in g.hyps:
                k = pos.get(id(e))
                parts.append(
                    k if k is not None and old[k] is e else (full.get(e[0], e[0]), rename_fvars(e[1], full))
                )
            hyps = tuple(parts)
        target = None if g.target is goal.target else rename_fvars(g.target, full)
        tag = _SAME if g.tag == goal.tag else g.tag
        own = {n for n, _ in g.hyps}
        key = None
        if all(i in own or FVAR_SEP not in i for i in ids):
            gk, gren = _goal_key(g)  # a replayed goal's canonical form is this one's (same order of locals)
            key = (gk, tuple((full[x], c) for x, c in gren.items()))
        entries.append((hyps, target, tag, g.ascii, key))
    return tuple(holes), tuple(entries)


def _instantiate(
    goal: Goal, ren: dict[str, str], holes: tuple[str, ...], entries: tuple[_Entry, ...]
) -> list[Goal]:
    """A remembered answer replayed on ``goal`` (canonical renaming ``ren``): fresh locals for the holes."""
    if not entries:
        return []
    back = _BACK.get(ren)
    if back is MISS:
        back = {c: fid for fid, c in ren.items()}
        _BACK.put(ren, back)
    if holes:
        back = dict(back)
        for h in holes:
            back[h] = new_fvar(user_name(h))
    out: list[Goal] = []
    old = goal.hyps
    for hyps_s, target_s, tag, ascii, key in entries:
        if hyps_s is None:
            hyps = old
        else:
            hyps = tuple(
                old[x] if type(x) is int else (back.get(x[0], x[0]), rename_remembered(x[1], back))
                for x in hyps_s
            )
        # an answer is replayed again and again on the goals of one request: its terms' renamings are kept
        target = goal.target if target_s is None else rename_remembered(target_s, back)
        g = Goal(hyps, target, goal.tag if tag is _SAME else tag, ascii)
        if key is not None:
            _remember_canon(g, key[0], {back.get(x, x): c for x, c in key[1]})
        out.append(g)
    return out


def run_sub(goal: Goal, text: str, ctx: TacticContext) -> list[Goal] | None:
    """Run tactic text on ``goal`` as an aesop rule: the new goals, or ``None`` when the rule fails.

    A run that logs an error, closes a goal with a synthetic sorry or uses ``sorryAx`` counts as a failure
    and leaves no trace in ``ctx`` (except the heartbeats it spent, as in Lean).

    Raises:
        HeartbeatsExceeded: when the budget runs out.
    """
    if not memo_enabled() or ctx.tactic_log is not None:
        return _run_sub_plain(goal, text, ctx)
    name = ctx.decl_name
    if name is not None and mentions(text, name.rsplit(".", 1)[-1]):
        return _run_sub_plain(goal, text, ctx)  # it may name the theorem itself: its answer is this proof's
    # the key drops the goal's tag (the rule runs without it) and the answer's goals have none
    new, _ = tracked(_RESULTS, text, goal, ctx, lambda: (_run_sub_plain(goal, text, ctx), None), False)
    return new


def _answer_flags(ctx: TacticContext, sorry_before: bool) -> tuple[bool, ...]:
    """The context's flags that a run can read: part of every remembered answer's key (:func:`_answer_key`)
    and of its goal's failure sheet's (what :class:`FailureProbe` reads)."""
    return (ctx.recover, ctx.synthetic_sorry, ctx.self_reference, sorry_before, ctx.numeral_too_large)


def _answer_key(ctx: TacticContext, what: Any, gkey: int, sorry_before: bool) -> tuple[Any, ...]:
    """The key of a remembered answer (:func:`tracked`): the environment, what ran, the goal's canonical
    number, and the context's flags (:func:`_answer_flags`)."""
    return (env_key(ctx.env), what, gkey, _answer_flags(ctx, sorry_before))


def tracked(
    table: Memo, what: Any, goal: Goal, ctx: TacticContext, run: Any, keep_axioms_on_none: bool
) -> tuple[list[Goal] | None, Any]:
    """``run()`` (``(goals or None, data)``: a function of the goal up to renaming, of ``what`` and of the
    context's environment and flags), memoised in ``table`` with everything a replay needs: the heartbeats
    it cost and needed left (or the exact budget it read), and the axioms it used. ``None`` goals keep the
    axioms only when ``keep_axioms_on_none`` (a failed rule keeps none)."""
    sorry_before = ctx.hidden_sorry or "sorryAx" in ctx.axioms
    gkey, ren = _goal_key(goal)
    key = _answer_key(ctx, what, gkey, sorry_before)
    hit = table.get(key)
    ok = False
    if hit is not MISS:
        cost, need, _, answer, axioms, data = hit
        ok = ctx.heartbeats_left_at_least(cost if cost > need else need)
    if not ok:  # an answer that read the budget below its cap is kept apart, under the budget it read
        hit = table.get((key, ctx.left_for_bookkeeping()))
        if hit is not MISS:
            cost, need, exact, answer, axioms, data = hit
            ok = ctx.heartbeats_left_exactly(exact)
    if ok:
        ctx.tick(cost)
        if answer is None:
            if keep_axioms_on_none:
                ctx.axioms.update(axioms)
            return None, data
        ctx.axioms.update(axioms)
        if len(answer) > 2:  # the run closed the goal: the replay closes it through the kernel, re-checked
            close(goal, Renamed(answer[2], answer[3]), ctx)
        return _instantiate(goal, ren, answer[0], answer[1]), data
    mark = fvar_mark()
    left = ctx.left_for_bookkeeping()
    frame = [ctx.heartbeats, 0]
    saved_axioms, saved_hidden = ctx.axioms, ctx.hidden_sorry
    ctx.axioms, ctx.hidden_sorry = set(), sorry_before
    ctx.memo_frames.append(frame)
    try:
        new, data = run()
    except BaseException:
        # what raises through (a timeout) leaves what it used as the plain run leaves it
        ctx.axioms = saved_axioms | ctx.axioms
        ctx.hidden_sorry = ctx.hidden_sorry or saved_hidden
        raise
    finally:
        ctx.memo_frames.pop()
    ctx.hidden_sorry = saved_hidden
    added, ctx.axioms = ctx.axioms, saved_axioms
    if new is not None or keep_axioms_on_none:
        ctx.axioms.update(added)
    cost = ctx.heartbeats - frame[0]
    if cost > left:
        # it ran past the budget and something inside turned that into an answer: its remaining work
        # happens outside it, tick by tick, so there is nothing one replay could charge
        return new, data
    # a run that read the budget below its cap is replayed only with the very budget it had
    exact = left if frame[1] >= MEMO_EXACT else None
    need = 0 if exact is not None else frame[1]
    axioms = tuple(sorted(added)) if new is not None or keep_axioms_on_none else ()
    # the goal itself is held once, in the canonical goals' table; an answer holds its own goals
    where = key if exact is None else (key, exact)
    if new is None:
        table.put(where, (cost, need, exact, None, axioms, data), 200)
        if table is _RESULTS and exact is None:
            skey = (key[0], gkey, key[3])  # the key less what ran: environment, goal, flags
            sheet = _FAIL_SHEETS.get(skey)
            if sheet is MISS:
                sheet = {}
            sheet[what] = (cost, need)
            _FAIL_SHEETS.put(skey, sheet, 200 + 120 * len(sheet))
    else:
        answer = _abstract(goal, ren, new, mark)
        if answer is not None and not new:
            # a closure is remembered with a justification that stands alone (else it is run again)
            proof = replayable(ctx, goal)
            answer = None if proof is None else (*answer, goal, proof)
        if answer is not None:
            size = 200 + 64 * sum(_nodes(g) for g in new)
            table.put(where, (cost, need, exact, answer, axioms, data), size)
    return new, data


class FailureProbe:
    """Replays, on one goal, the rule applications the memo tables know to fail, without the call chain of
    :func:`apply_rule` (most rules of an expansion fail, and most failures are remembered).

    :meth:`fails` answers ``True`` only where :func:`apply_rule` would have found a remembered failure and
    replayed it: it charges exactly what that replay charges and records the same need (see
    :func:`tracked`); anything else (a miss, a success, a budget too small for a replay, a rule of another
    kind) answers ``False`` with no effect, and the caller runs :func:`apply_rule` as before. The failures
    are read from the goal's failure sheet (``_FAIL_SHEETS``: :func:`tracked` writes there every failure it
    stores for any budget), found under the context's environment and flags (:func:`_answer_flags`), which
    are read again at every question; only the goal's canonical form, a function of the goal object, is
    computed once.
    """

    __slots__ = ("_apply_texts", "_ctx", "_env", "_flags", "_gkey", "_goal", "_named", "_sheet", "_tag")

    def __init__(self, goal: Goal, ctx: TacticContext, named: dict[str, bool]) -> None:
        self._ctx = ctx
        self._goal = goal
        self._gkey = _goal_key(goal)[0]
        self._tag = goal.tag
        self._named = named
        self._apply_texts: dict[str, str] = {}
        # the failure sheet of the goal under the context's environment and flags (read again whenever
        # they change, and while there is none)
        self._env: Any = None
        self._flags: Any = None
        self._sheet: Any = MISS

    def fails(self, rule: Rule) -> bool:
        """Whether ``rule`` fails on the goal by a remembered answer, replayed now (see the class)."""
        kind = rule.kind
        ctx = self._ctx
        if kind == "builtin":
            k = rule.arg
            if k == "rfl" or k == "apply_hyps":
                # _builtin_steps runs no tactic where the goal gives it nothing to try: no equation or
                # iff to close, no hypothesis to apply
                if k == "rfl" and self._goal.target[0] not in ("=", "↔"):
                    ctx.tick(COST_BUILTIN)
                    return True
                if k == "apply_hyps" and not any(ty[0] in _APPLICABLE for _, ty in self._goal.hyps):
                    ctx.tick(COST_BUILTIN)
                    return True
                return False
            # _apply_builtin: its charge, then memo_step's remembered "no step"
            if _STEPS.get((k, self._gkey, self._tag)) is not None:
                return False
            ctx.tick(COST_BUILTIN)
            return True
        if kind == "tactic":
            text = rule.arg
        elif kind == "apply":
            if rule.delta:  # apply_rule may run it on the goal's unfolding (another key) and close the goal
                return False
            text = self._apply_texts.get(rule.arg) or self._apply_texts.setdefault(
                rule.arg, f"apply {rule.arg}"
            )
        else:
            return False
        named = self._named.get(text)
        if named is None:
            name = ctx.decl_name
            named = self._named[text] = name is not None and mentions(text, name.rsplit(".", 1)[-1])
        if named:
            return False  # run_sub runs it without the memo
        # tracked's key, read through the goal's failure sheet, and its replay of an answer that is a failure
        flags = _answer_flags(ctx, ctx.hidden_sorry or "sorryAx" in ctx.axioms)
        sheet = self._sheet
        if sheet is MISS or flags != self._flags or ctx.env is not self._env:
            self._flags, self._env = flags, ctx.env
            sheet = self._sheet = _FAIL_SHEETS.get((env_key(ctx.env), self._gkey, flags))
            if sheet is MISS:
                return False
        hit = sheet.get(text)
        if hit is None:
            return False
        cost, need = hit
        if not ctx.heartbeats_left_at_least(cost if cost > need else need):
            return False
        ctx.tick(cost)
        return True


_APPLICABLE = ("→", "∀", "¬", "≠")  # the hypotheses applyHyps tries (see _builtin_steps)


def failure_probe(goal: Goal, ctx: TacticContext, named: dict[str, bool]) -> FailureProbe | None:
    """A :class:`FailureProbe` for ``goal``, or ``None`` where :func:`run_sub` would not use the memo at all
    (the tables off, or ``allTactics`` recording every tactic). ``named``: the search's own record of which
    rule texts may name the theorem being proved (filled as they are met)."""
    if not memo_enabled() or ctx.tactic_log is not None:
        return None
    return FailureProbe(goal, ctx, named)


def mentions(text: str, name: str) -> bool:
    """Whether ``name`` may occur in ``text`` as (a part of) an identifier: not inside a longer name."""
    i = text.find(name)
    while i >= 0:
        j = i + len(name)
        if (i == 0 or not is_id_rest(text[i - 1])) and (j == len(text) or not is_id_rest(text[j])):
            return True
        i = text.find(name, i + 1)
    return False


def _nodes(goal: Goal) -> int:
    return len(goal.hyps) + term_size(goal.target) + sum(term_size(t) for _, t in goal.hyps)


def _run_sub_plain(goal: Goal, text: str, ctx: TacticContext) -> list[Goal] | None:
    """:func:`run_sub` without the memo."""
    src, node = parsed_text(text)
    ctx.tick(tactic_cost(text, goal))
    if isinstance(node, tuple):  # a parse error: the rule fails
        ctx.tick(COST_BUILTIN)
        return None
    snap = ctx.snapshot()
    old_src = ctx.src
    ctx.src = src
    try:
        new = run_node(node, [goal.with_tag(None)], ctx)
    except HeartbeatsExceeded as timeout:
        ctx.restore(snap)
        ctx.src = old_src
        # offsets into the rule's text, not the proof's: the aesop call is the place
        timeout.start = timeout.end = None
        raise
    except TacticError as tac_err:
        forget_frames(tac_err)
        ctx.restore(snap)
        ctx.src = old_src
        return None
    ctx.src = old_src
    bad = (
        ctx.synthetic_sorry
        or ctx.self_reference
        or ctx.hidden_sorry
        or "sorryAx" in ctx.axioms
        or any(m.severity == "error" for m in ctx.messages[snap[1] :])
        or len(ctx.sorries) > snap[0]
    )
    if bad:
        ctx.restore(snap)
        return None
    # Only an error fails a rule in Aesop: `ring` that falls back to `ring_nf` ("Try this: ring_nf") succeeds
    # with the normalised goal, which a safe rule then commits. The note itself is not kept.
    del ctx.messages[snap[1] :]
    new_goals = [g.with_tag(None) for g in new]
    ctx.tick(tactic_result_cost(text, new))
    return new_goals


# ------------------------------------------------------------------------------------ builtin steps


def _intros(goal: Goal) -> tuple[Goal, list[str]] | None:
    g = goal
    names: list[str] = []
    t = g.target
    while t[0] in ("→", "∀"):
        if t[0] == "→":
            name = g.fresh_name("a")
            g = Goal((*g.hyps, (new_fvar(name), t[1])), t[2], g.tag, g.ascii)
        else:
            x = t[1]
            name = g.fresh_name(x)
            fid = new_fvar(name)
            g = Goal((*g.hyps, (fid, t[2])), subst(t[3], x, ("fvar", fid)), g.tag, g.ascii)
        names.append(name)
        t = g.target
    return (g, names) if names else None


def _subst_step(goal: Goal) -> tuple[Goal, str] | None:
    data = {n for n, ty in goal.hyps if ty[0] == "type"}
    for i, (hn, ty) in enumerate(goal.hyps):
        if ty[0] == "=":
            sides = ((ty[2], ty[3]), (ty[3], ty[2]))
        elif ty[0] == "↔":  # Aesop's subst reads `P ↔ Q` with a local side as `P = Q` (prepareIff?)
            sides = ((ty[1], ty[2]), (ty[2], ty[1]))
        else:
            continue
        for var_side, other in sides:
            if var_side[0] == "fvar" and var_side[1] in data and var_side[1] not in free_vars(other):
                x = var_side[1]
                hyps: list[tuple[str, Term]] = []
                for j, (n2, t2) in enumerate(goal.hyps):
                    if j == i or n2 == x:
                        continue
                    hyps.append((n2, subst(t2, x, other)))
                return Goal(
                    tuple(hyps), subst(goal.target, x, other), goal.tag, goal.ascii
                ), f"subst {user_name(hn)}"
    return None


def _destruct_products(goal: Goal) -> tuple[Goal, str] | None:
    for i, (hn, ty) in enumerate(goal.hyps):
        h = ty[0]
        if h == "∧":  # Aesop's destructProducts splits And/Prod/Exists/Subtype/Sigma; never `↔`
            parts = (ty[1], ty[2])
            names = ("left", "right")
            rest = goal.hyps[:i] + goal.hyps[i + 1 :]
            base = Goal(rest, goal.target, goal.tag, goal.ascii)
            n1 = base.fresh_name(names[0])
            n2 = base.fresh_name(names[1], {n1})
            new = Goal(
                (*rest, (new_fvar(n1), parts[0]), (new_fvar(n2), parts[1])), goal.target, goal.tag, goal.ascii
            )
            return new, f"obtain ⟨{n1}, {n2}⟩ := {user_name(hn)}"
        if h == "∃":
            rest = goal.hyps[:i] + goal.hyps[i + 1 :]
            base = Goal(rest, goal.target, goal.tag, goal.ascii)
            w = base.fresh_name("w")
            wid = new_fvar(w)
            body = subst(ty[3], ty[1], ("fvar", wid))
            hname = base.fresh_name("h", {w})
            new = Goal((*rest, (wid, ty[2]), (new_fvar(hname), body)), goal.target, goal.tag, goal.ascii)
            return new, f"obtain ⟨{w}, {hname}⟩ := {user_name(hn)}"
    return None


def _destruct_iff(goal: Goal) -> tuple[Goal, str] | None:
    """``cases`` on the first ``↔`` hypothesis (an ``(add cases Iff)`` rule): ``mp`` and ``mpr``."""
    for i, (hn, ty) in enumerate(goal.hyps):
        if ty[0] == "↔":
            rest = goal.hyps[:i] + goal.hyps[i + 1 :]
            base = Goal(rest, goal.target, goal.tag, goal.ascii)
            n1 = base.fresh_name("mp")
            n2 = base.fresh_name("mpr", {n1})
            parts = (("→", ty[1], ty[2]), ("→", ty[2], ty[1]))
            new = Goal(
                (*rest, (new_fvar(n1), parts[0]), (new_fvar(n2), parts[1])), goal.target, goal.tag, goal.ascii
            )
            return new, f"obtain ⟨{n1}, {n2}⟩ := {user_name(hn)}"
    return None


_UNIT = ("type", "Unit")


def _false_hyp(goal: Goal) -> str | None:
    for hn, ty in goal.hyps:
        if ty == FALSE:
            return f"exact False.elim {user_name(hn)}"
    return None


def _assumption(goal: Goal) -> str | None:
    t = goal.target
    for hn, ty in reversed(goal.hyps):
        if ty[0] != "type" and defeq(ty, t):
            return f"exact {user_name(hn)}"
    return None


def _one(r: tuple[Goal, Any] | None) -> tuple[list[Goal], str] | None:
    if r is None:
        return None
    g, script = r
    return [g], script if isinstance(script, str) else "intro " + " ".join(script)


# a function, not a lambda inside NORM_STEPS' lambda, which mypyc cannot compile (docs/simulator.md)
def _none_left(script: str | None) -> tuple[list[Goal], str] | None:
    return None if script is None else ([], script)


NORM_STEPS: dict[str, Any] = {
    "intros": lambda g: _one(_intros(g)),
    "subst": lambda g: _one(_subst_step(g)),
    "destructProducts": lambda g: _one(_destruct_products(g)),
    "false_hyp": lambda g: _none_left(_false_hyp(g)),
}
"""The norm-phase builtin steps by rule argument: ``goal → (goals, script step)`` or ``None``."""


def memo_step(kind: str, goal: Goal, fn: Any) -> tuple[list[Goal], Any] | None:
    """``fn(goal)``, ``(goals, data)`` or ``None``, for a builtin step: a function of the goal alone (up to
    the renaming of its locals; it may make new ones; ``data`` holds no local), memoised as ``run_sub``'s
    answers are (heartbeats are charged by the caller, whether memoised or not)."""
    if not memo_enabled():
        return fn(goal)
    gkey, ren = _goal_key(goal)
    key = (kind, gkey, goal.tag)
    hit = _STEPS.get(key)
    if hit is not MISS:
        if hit is None:
            return None
        answer, data = hit
        return _instantiate(goal, ren, answer[0], answer[1]), data
    mark = fvar_mark()
    res = fn(goal)
    if res is None:
        _STEPS.put(key, None, 100)
        return None
    answer = _abstract(goal, ren, res[0], mark)
    if answer is not None:
        _STEPS.put(key, (answer, res[1]), 200 + 64 * sum(_nodes(g) for g in res[0]))
    return res


def builtin_proof(goal: Goal) -> Justification | None:
    """The justification of a builtin rule that closed ``goal`` without running a tactic (``assumption``,
    syntactic ``rfl``, ``trivial``, ``exact PUnit.unit``, a ``False`` hypothesis), or ``None``: the kernel
    re-checks it, so it may be found here by looking at the goal."""
    t = goal.target
    if t == TRUE:
        return TrueIntro()
    if t == _UNIT:
        return DataValue()
    for hn, ty in reversed(goal.hyps):
        if ty[0] != "type" and defeq(ty, t):
            return Hyp(hn)
    for hn, ty in goal.hyps:
        if ty == FALSE:
            return Contradiction(hn)
    if (t[0] == "=" and defeq(t[2], t[3])) or (t[0] == "↔" and defeq(t[1], t[2])):
        return Refl()
    return None


@dataclass
class Expansion:
    """What applying a rule produced: new goals (possibly none) and a script step."""

    goals: list[Goal]
    script: str


def _apply_builtin(rule: Rule, goal: Goal, ctx: TacticContext, opts: AesopOptions) -> list[Expansion]:
    ctx.tick(COST_BUILTIN)
    k = rule.arg
    if k == "rfl" or k == "apply_hyps":
        return _builtin_steps(k, goal, ctx)
    got = memo_step(k, goal, _expansions_of(k))
    if got is None:
        return []
    goals, scripts = got
    out: list[Expansion] = []
    i = 0
    for script, n in scripts:
        out.append(Expansion(goals[i : i + n], script))
        i += n
    return out


def _expansions_of(k: str) -> Any:
    def run(goal: Goal) -> tuple[list[Goal], tuple[tuple[str, int], ...]] | None:
        exps = _builtin_steps(k, goal, None)
        if not exps:
            return None
        return [g for e in exps for g in e.goals], tuple((e.script, len(e.goals)) for e in exps)

    return run


def _builtin_steps(k: str, goal: Goal, ctx: TacticContext | None) -> list[Expansion]:
    """The rule applications of builtin rule ``k``; only ``rfl`` and ``applyHyps`` run tactics (``ctx``)."""
    t = goal.target
    if k == "assumption":
        s = _assumption(goal)
        return [Expansion([], s)] if s else []
    if k == "rfl":
        if t[0] == "=" and (t[2] == t[3] or defeq(t[2], t[3])):
            return [Expansion([], "rfl")]
        if t[0] == "↔" and defeq(t[1], t[2]):
            return [Expansion([], "rfl")]
        if t[0] == "=" and ctx is not None:
            new = run_sub(goal, "rfl", ctx)
            if new is not None and not new:
                return [Expansion([], "rfl")]
        return []
    if k == "not_intro":
        if t[0] == "¬":
            name = goal.fresh_name("a")
            return [
                Expansion(
                    [Goal((*goal.hyps, (new_fvar(name), t[1])), FALSE, goal.tag, goal.ascii)], f"intro {name}"
                )
            ]
        return []
    if k == "true_intro":
        return [Expansion([], "trivial")] if t == TRUE else []
    if k == "unit_intro":  # `safe 0 apply PUnit.unit`: closes `Unit` (not `True`: DroppedMVars.lean:27)
        return [Expansion([], "exact PUnit.unit")] if t == _UNIT else []
    if k == "and_intro":
        if t[0] == "∧":
            return [Expansion([goal.with_target(t[1]), goal.with_target(t[2])], "constructor")]
        return []
    if k == "iff_intro":
        if t[0] == "↔":
            return [
                Expansion(
                    [goal.with_target(("→", t[1], t[2])), goal.with_target(("→", t[2], t[1]))], "constructor"
                )
            ]
        return []
    if k in ("or_cases", "split_hyps"):
        for i, (hn, ty) in enumerate(goal.hyps):
            if ty[0] == "∨":
                hyps = list(goal.hyps)
                g1 = Goal((*hyps[:i], (hn, ty[1]), *hyps[i + 1 :]), t, goal.tag, goal.ascii)
                g2 = Goal((*hyps[:i], (hn, ty[2]), *hyps[i + 1 :]), t, goal.tag, goal.ascii)
                u = user_name(hn)
                return [Expansion([g1, g2], f"rcases {u} with {u} | {u}")]
        return []
    if k == "or_intro":
        if t[0] == "∨":
            return [Expansion([goal.with_target(t[1])], "left"), Expansion([goal.with_target(t[2])], "right")]
        return []
    if k == "apply_hyps" and ctx is not None:
        out: list[Expansion] = []
        for hn, ty in goal.hyps:
            if ty[0] in _APPLICABLE:
                new = run_sub(goal, f"apply {user_name(hn)}", ctx)
                if new is not None:
                    out.append(Expansion(new, f"apply {user_name(hn)}"))
        return out
    return []  # ext, exists_intro: nothing in the simulator's subset needs them


_REBUILDING_TACTICS = frozenset({"field_simp"})
"""Tactics whose only success that the simulator sees as "no change" is a term Lean builds anew: Mathlib's
``field_simp`` rewrites a product it normalises with its own instances, so the goal is new to Lean though it
prints the same (``tac_field_simp``), and on that rebuilt goal it then fails (``field_simp made no progress
on goal``: ``transformAtTarget`` compares the expressions). As an aesop rule such a success is counted as the
failure Lean meets one step later, where every other unchanged success is one (Aesop's semantics)."""


def _rebuilds(text: str) -> bool:
    head = text.split(None, 1)[0] if text.strip() else ""
    return head in _REBUILDING_TACTICS


def _unfold_target(goal: Goal, ctx: TacticContext) -> Goal:
    """``goal`` with the definitions (constants with a value) in its target unfolded, as ``isDefEq`` at
    default transparency sees them (the simulator refuses ``@[irreducible]``, so ``all`` is the same)."""
    t = goal.target
    for _ in range(8):
        values: dict[str, Term] = {}
        for n in const_names(t):
            d = ctx.lookup(n)
            if d is not None and d.kind == "def" and d.value is not None and not d.binders:
                values[n] = d.value
        if not values:
            break
        for n, v in values.items():
            t = replace_const(t, n, v)
    return goal if t is goal.target else goal.with_target(t)


def apply_rule(rule: Rule, goal: Goal, ctx: TacticContext, opts: AesopOptions) -> list[Expansion]:
    """All rule applications of ``rule`` to ``goal`` (empty when it does not apply)."""
    if rule.kind == "builtin":
        return _apply_builtin(rule, goal, ctx, opts)
    if rule.kind == "tactic":
        new = run_sub(goal, rule.arg, ctx)
        if new is None:
            return []
        if len(new) == 1 and new[0] == goal.with_tag(None) and _rebuilds(rule.arg):
            return []
        # A tactic that succeeds is a rule application even where it leaves its goal as it was
        # (Aesop's `RuleTac.tacticStx` keeps whatever goals the tactic leaves, and `runNormSteps`
        # restarts on any success): `push_cast` and `norm_cast` with nothing to do, `exfalso` on `False`.
        return [Expansion(new, rule.arg)]
    if rule.kind == "apply":
        if rule.delta:
            unfolded = _unfold_target(goal, ctx)
            if unfolded is not goal:
                new = run_sub(unfolded, f"apply {rule.arg}", ctx)
                if new == []:
                    close(goal, Subproof((unfolded,)), ctx)  # the goal is its unfolding (δ-reduction)
                return [] if new is None else [Expansion(new, f"apply {rule.arg}")]
        new = run_sub(goal, f"apply {rule.arg}", ctx)
        return [] if new is None else [Expansion(new, f"apply {rule.arg}")]
    if rule.kind in ("forward", "destruct"):
        ctx.tick(COST_BUILTIN)
        src = goal.hyp(rule.arg)
        if src is None or src[0] != "→":
            return []
        prem, concl = src[1], src[2]
        have = [hn for hn, ty in goal.hyps if ty[0] != "type" and defeq(ty, prem)]
        if not have or any(defeq(ty, concl) for _, ty in goal.hyps):
            return []
        hyps = list(goal.hyps)
        if rule.kind == "destruct":
            hyps = [(n, ty) for n, ty in hyps if n not in (goal.find(rule.arg), have[0])]
        g0 = Goal(tuple(hyps), goal.target, goal.tag, goal.ascii)
        name = g0.fresh_name("fwd")
        return [
            Expansion(
                [Goal((*hyps, (new_fvar(name), concl)), goal.target, goal.tag, goal.ascii)],
                f"have {name} := {rule.arg} {user_name(have[0])}",
            )
        ]
    if rule.kind == "constructors":
        k = {
            "And": "and_intro",
            "Iff": "iff_intro",
            "Or": "or_intro",
            "True": "true_intro",
            "PUnit": "unit_intro",
            "PUnit.unit": "unit_intro",
            "Unit": "unit_intro",
        }.get(rule.arg)
        if k is None:
            return []
        return _apply_builtin(Rule(rule.name, rule.phase, rule.priority, "builtin", k), goal, ctx, opts)
    if rule.kind == "cases":
        ctx.tick(COST_BUILTIN)
        if rule.arg == "Or":
            return _apply_builtin(
                Rule(rule.name, rule.phase, rule.priority, "builtin", "or_cases"), goal, ctx, opts
            )
        if rule.arg == "False":
            s = _false_hyp(goal)
            return [Expansion([], s)] if s else []
        if rule.arg in ("And", "Exists"):
            res = _destruct_products(goal)
            return [Expansion([res[0]], res[1])] if res else []
        if rule.arg == "Iff":
            res = _destruct_iff(goal)
            return [Expansion([res[0]], res[1])] if res else []
        return []
    return []


def parse_cached(text: str) -> AesopCall | AesopSyntaxError:
    """The parsed call (or its syntax error): a pure function of the text, memoised."""
    on = memo_enabled()
    got = _CALLS.get(text) if on else MISS
    if got is MISS:
        try:
            got = parse_aesop(text)
        except AesopSyntaxError as e:
            got = e
        if on:
            _CALLS.put(text, got, 2000 + 16 * len(text))
    return got
