"""Aesop's search: the tree of goals and rule applications, expanded best-first, and its end.

:class:`Search` normalises every new goal, commits the first safe rule that applies, tries unsafe rules by
success probability one application per expansion, and stops at a proof, at a limit of the call's options
(``maxRuleApplications``, ``maxRuleApplicationDepth``, ``maxGoals``, ``maxNormIterations``) or at the
heartbeat budget. Rules are applied by :mod:`lean_gym.sim.aesop_apply`.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from lean_gym.sim.aesop_apply import (
    NORM_MEMO,
    NORM_STEPS,
    Expansion,
    FailureProbe,
    apply_rule,
    builtin_proof,
    failure_probe,
    memo_step,
    mentions,
    run_sub,
    tracked,
)
from lean_gym.sim.aesop_cost import COST_BUILTIN, COST_EXPANSION, COST_NORM_STEP, COST_RAPP
from lean_gym.sim.aesop_rules import Rule, RuleSet
from lean_gym.sim.aesop_syntax import AesopCall
from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import Subproof, close
from lean_gym.sim.memo import enabled as memo_enabled
from lean_gym.sim.native import NATIVE_DEPTH, TOO_DEEP
from lean_gym.sim.tactics import (
    TacticContext,
    TacticError,
    sealed_here,
)
from lean_gym.sim.terms import (
    const_names,
    user_name,
)

__all__ = ["AesopFailure", "AesopResult", "GNode", "RNode", "Search", "indent"]

_RULE_FIELDS = tuple(f.name for f in fields(Rule))  # what a rule's equality compares


# ------------------------------------------------------------------------------------------- the tree


@dataclass(eq=False, slots=True)
class GNode:
    """A goal in the search tree."""

    goal: Goal
    depth: int
    priority: float
    parent: RNode | None
    gid: int
    normalized: bool = False
    norm_script: list[str] = field(default_factory=list)
    proved: bool = False
    unprovable: bool = False
    safe_done: bool = False
    safe_rapp: bool = False
    unsafe_next: int = 0
    rapps: list[RNode] = field(default_factory=list)
    exhausted: bool = False
    proof_rapp: RNode | None = None
    last_expanded: int = 0
    added: int = 0
    requeue: bool = False


@dataclass(eq=False, slots=True)
class RNode:
    """A rule application in the search tree."""

    rule: Rule
    parent: GNode
    script: str
    children: list[GNode] = field(default_factory=list)
    proved: bool = False
    unprovable: bool = False


class AesopFailure(Exception):
    """A non-fatal end of the search (no proof); ``message`` is Aesop's reason."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class AesopResult:
    """Outcome of one search: remaining goals, the proof script when proved, and statistics."""

    proved: bool
    goals: tuple[Goal, ...]
    script: tuple[str, ...]
    rule_applications: int
    goals_created: int
    message: str = ""


class Search:
    """One run of Aesop's search on one goal."""

    def __init__(self, goal: Goal, call: AesopCall, rules: RuleSet, ctx: TacticContext) -> None:
        self.call = call
        self.opts = call.options
        self.rules = rules
        self.ctx = ctx
        self.counter = itertools.count()
        # Aesop (v4.26, `selectSafeRules`/`normalizeGoalIfNecessary`) never normalises the root: its one
        # rule is `preprocess`, whose child (the same goal, at depth 1) is where the search starts. The tree
        # here merges the two, so it starts with their counts: two goals, one rule application, depth 1.
        self.root = GNode(goal, 1, 1.0, None, next(self.counter))
        self.n_goals = 2
        self.n_rapps = 1
        self.depth_reached = False
        self.queue: list[tuple[Any, ...]] = []
        self.stack: list[GNode] = []
        self.fifo: deque[GNode] = deque()
        self.iteration = 1
        self.root_initial = goal
        self.named_rules: dict[str, bool] = {}  # rule text → may it name the theorem (FailureProbe)
        self._norm_what: tuple[str, tuple[Any, ...]] | bool | None = None  # the norm memo's key part
        self._push(self.root)
        self.simp_text = self._simp_text()

    # ---- queue (Aesop's BestFirstQueue / LIFOQueue / FIFOQueue)
    def _push(self, g: GNode) -> None:
        s = self.opts.strategy
        if s == "depthFirst":
            self.stack.append(g)
        elif s == "breadthFirst":
            self.fifo.append(g)
        else:
            # priority, then goals last expanded in an earlier iteration, then goals added earlier
            key = (-g.priority, g.last_expanded, g.added, g.gid)
            heapq.heappush(self.queue, (*key, g))

    def _push_children(self, gs: list[GNode]) -> None:
        if self.opts.strategy == "depthFirst":
            self.stack.extend(reversed(gs))
        else:
            for g in gs:
                self._push(g)

    def _active(self, g: GNode) -> bool:
        if g.proved or g.unprovable or g.exhausted:
            return False
        r = g.parent
        while r is not None:
            if r.proved or r.unprovable:
                return False
            p = r.parent
            if p.proved or p.unprovable:
                return False
            r = p.parent
        return True

    def _pop(self) -> GNode | None:
        s = self.opts.strategy
        while True:
            if s == "depthFirst":
                if not self.stack:
                    return None
                g = self.stack.pop()
            elif s == "breadthFirst":
                if not self.fifo:
                    return None
                g = self.fifo.popleft()
            else:
                if not self.queue:
                    return None
                g = heapq.heappop(self.queue)[-1]
            if self._active(g):
                return g

    # ---- state propagation
    def _mark_proved(self, g: GNode, via: RNode | None) -> None:
        g.proved = True
        g.proof_rapp = via
        r = g.parent
        while r is not None:
            if all(c.proved for c in r.children):
                r.proved = True
                p = r.parent
                if p.proved:
                    return
                p.proved = True
                p.proof_rapp = r
                r = p.parent
            else:
                return

    def _mark_unprovable(self, g: GNode) -> None:
        g.unprovable = True
        r = g.parent
        while r is not None:
            r.unprovable = True
            p = r.parent
            if p.proved or p.unprovable:
                return
            if self._has_rules_left(p) or any(not x.unprovable for x in p.rapps):
                return
            p.unprovable = True
            r = p.parent

    def _has_rules_left(self, g: GNode) -> bool:
        if not g.normalized:
            return True
        if not g.safe_done:
            return True
        if g.safe_rapp:
            return False
        return g.unsafe_next < len(self.rules.unsafe)

    # ---- main loop
    def run(self) -> AesopResult:
        o = self.opts
        while True:
            if self.root.proved:
                return AesopResult(True, (), tuple(self._script(self.root)), self.n_rapps, self.n_goals)
            if self.root.unprovable:
                if self.depth_reached:
                    raise AesopFailure(
                        "failed to prove the goal. Some goals were not explored because the maximum rule "
                        f"application depth ({o.max_rule_application_depth}) was reached. Set option "
                        "'maxRuleApplicationDepth' to increase the limit."
                    )
                raise AesopFailure("failed to prove the goal after exhaustive search.")
            if o.max_goals and self.n_goals >= o.max_goals:
                raise AesopFailure(
                    f"maximum number of goals ({o.max_goals}) reached. Set the 'maxGoals' option to increase the limit."
                )
            if o.max_rule_applications and self.n_rapps >= o.max_rule_applications:
                raise AesopFailure(
                    f"maximum number of rule applications ({o.max_rule_applications}) reached. Set the "
                    "'maxRuleApplications' option to increase the limit."
                )
            g = self._pop()
            if g is None:
                # every open goal is exhausted: the root can no longer be proved
                self.root.unprovable = True
                continue
            self._expand(g)
            g.last_expanded = self.iteration
            self.iteration += 1
            if g.requeue and self._active(g):
                g.requeue = False
                self._push(g)

    def _expand(self, g: GNode) -> None:
        ctx = self.ctx
        ctx.tick(COST_EXPANSION)
        o = self.opts
        if o.max_rule_application_depth and g.depth >= o.max_rule_application_depth:
            self.depth_reached = True
            g.exhausted = True
            self._mark_unprovable(g)
            return
        if self._normalize_node(g):
            return
        # remembered failures are replayed without the call chain of apply_rule (see FailureProbe)
        probe = failure_probe(g.goal, ctx, self.named_rules)
        if not g.safe_done and self._run_safe(g, probe):
            return
        unsafe = self.rules.unsafe
        while g.unsafe_next < len(unsafe):
            rule = unsafe[g.unsafe_next]
            g.unsafe_next += 1
            if probe is not None and probe.fails(rule):
                continue
            exps = apply_rule(rule, g.goal, ctx, o)
            if exps:
                for e in exps:
                    self._add_rapp(g, rule, e)
                    if g.proved:
                        return
                if g.unsafe_next < len(unsafe) and not g.proved:
                    g.requeue = True
                else:
                    g.exhausted = True
                    if all(r.unprovable for r in g.rapps):
                        self._mark_unprovable(g)
                return
        g.exhausted = True
        if all(r.unprovable for r in g.rapps):
            self._mark_unprovable(g)

    def _normalize_node(self, g: GNode) -> bool:
        """Normalise ``g`` once (Aesop's ``normalizeGoalIfNecessary``); whether normalisation proved it."""
        if not g.normalized:
            g.normalized = True
            res = self._normalize(g)
            if res is None:
                self._mark_proved(g, None)
                return True
            g.goal = res
        return g.proved

    def _run_safe(self, g: GNode, probe: FailureProbe | None) -> bool:
        """Aesop's ``runFirstSafeRule``: the safe rules in order, the first that applies committed; whether
        one applied. ``probe``: :func:`failure_probe` of ``g``'s goal (``None``: every rule is run)."""
        g.safe_done = True
        for rule in self.rules.safe:
            if probe is not None and probe.fails(rule):
                continue
            exps = apply_rule(rule, g.goal, self.ctx, self.opts)
            if exps:
                g.safe_rapp = True
                self._add_rapp(g, rule, exps[0])
                if not g.proved and not g.unprovable:
                    g.exhausted = True
                    if all(r.unprovable for r in g.rapps):
                        self._mark_unprovable(g)
                return True
        return False

    def expand_safe_prefix(self) -> bool:
        """After a search that ended without a proof, expand the safe prefix as Aesop's ``expandSafePrefix``
        (``Aesop/Search/ExpandSafePrefix.lean``) does before it reports: from the root, every goal that has
        neither a safe rule application nor its unsafe rules selected is normalised and its safe rules are
        run, and the children of each safe rule application are expanded the same way. Whether it finished
        within ``maxSafePrefixRuleApplications`` goals (``False``: it stopped there)."""
        limit = self.opts.max_safe_prefix_rule_applications
        done = 0
        stack = [self.root]
        while stack:
            g = stack.pop()
            if g.proved:
                continue
            if not g.safe_done:
                if self._normalize_node(g):
                    continue
                if limit and done > limit:
                    return False
                self._run_safe(g, failure_probe(g.goal, self.ctx, self.named_rules))
                done += 1
            if g.proved:
                continue
            safe = [r for r in g.rapps if r.rule.phase == "safe"]
            if safe:
                stack.extend(reversed(safe[0].children))
        return True

    def _add_rapp(self, g: GNode, rule: Rule, exp: Expansion) -> None:
        self.ctx.tick(COST_RAPP)
        self.n_rapps += 1
        r = RNode(rule, g, exp.script)
        g.rapps.append(r)
        if not exp.goals:
            r.proved = True
            self._mark_proved(g, r)
            return
        prio = g.priority * rule.prob
        for sub in exp.goals:
            child = GNode(sub, g.depth + 1, prio, r, next(self.counter), added=self.iteration)
            r.children.append(child)
            self.n_goals += 1
        self._push_children(r.children)

    # ---- normalisation
    def _simp_text(self) -> str | None:
        o = self.opts
        if not o.enable_simp:
            return None
        lemmas = self.rules.simp_lemmas
        lst = f" [{', '.join(lemmas)}]" if lemmas else ""
        if o.use_simp_all:
            return f"simp_all only{lst}" if not o.use_default_simp_set else f"simp_all{lst}"
        if not o.use_default_simp_set:
            return f"simp only{lst} at *"
        return f"simp{lst} at *"

    def _normalize(self, g: GNode) -> Goal | None:
        """Run the norm phase to a fixpoint; ``None`` when it proves the goal.

        Memoised as a whole (as a rule's answer is): configs share their norm rules and simp call far more
        often than anything else, and a goal's normalisation is a function of the goal and of them.
        """
        ctx = self.ctx
        what = self._norm_what
        if what is None:  # the same for every goal of the search: computed once
            what = self._norm_what = False if self._norm_names_decl() else ("norm", self._norm_key())
        scripts: Sequence[str]  # a list from a plain run, a tuple from the memo table
        if not memo_enabled() or ctx.tactic_log is not None or what is False:
            res, scripts = self._normalize_goal(g.goal)
        else:
            new, scripts = tracked(NORM_MEMO, what, g.goal, ctx, lambda: self._norm_run(g.goal), True)
            res = new[0] if new else None
        g.norm_script.extend(scripts)
        return res

    def _norm_key(self) -> tuple[Any, ...]:
        o, r = self.opts, self.rules
        # rules as their fields (what a rule's equality compares): plain tuples hash in C, and the
        # collector stops tracking them
        pre = tuple(tuple(getattr(x, f) for f in _RULE_FIELDS) for x in r.norm_pre)
        post = tuple(tuple(getattr(x, f) for f in _RULE_FIELDS) for x in r.norm_post)
        return (pre, post, tuple(r.unfold_defs), o.enable_unfold, self.simp_text, o.max_norm_iterations)

    def _norm_names_decl(self) -> bool:
        name = self.ctx.decl_name
        if name is None:
            return False
        short = name.rsplit(".", 1)[-1]
        texts = [r.arg for r in (*self.rules.norm_pre, *self.rules.norm_post)]
        texts += [*self.rules.unfold_defs, self.simp_text or ""]
        return any(mentions(t, short) for t in texts)

    def _norm_run(self, goal: Goal) -> tuple[list[Goal], tuple[str, ...]]:
        res, scripts = self._normalize_goal(goal)
        return ([] if res is None else [res]), tuple(scripts)

    def _normalize_goal(self, goal: Goal) -> tuple[Goal | None, list[str]]:
        """The norm phase on ``goal``: the normal goal (``None``: proved) and the script of its steps."""
        ctx = self.ctx
        o = self.opts
        start = goal
        norm_script: list[str] = []
        limit = o.max_norm_iterations or 100_000
        iteration = 0
        step = 0
        while True:
            if iteration >= limit:
                raise TacticError(
                    f"aesop: exceeded maximum number of normalisation iterations ({o.max_norm_iterations}). "
                    "This means normalisation probably got stuck in an infinite loop."
                )
            ctx.tick(COST_NORM_STEP)
            changed: Goal | None = None
            proved = False
            script = ""
            if step == 0:
                for rule in self.rules.norm_pre:
                    r = self._norm_rule(rule, goal)
                    if r is not None:
                        changed, proved, script = r
                        break
            elif step == 1:
                text = self._unfold_text(goal) if o.enable_unfold and self.rules.unfold_defs else None
                if text is not None:
                    new = run_sub(goal, text, ctx)
                    if new is not None and not (len(new) == 1 and new[0] == goal):
                        if not new:
                            proved = True
                        else:
                            changed = new[0]
                        script = text
            elif step == 2:
                if self.simp_text is not None:
                    new = self._norm_simp(goal)
                    if new is not None:
                        if not new:
                            proved = True
                        else:
                            changed = new[0]
                        script = self.simp_text
            else:
                for rule in self.rules.norm_post:
                    r = self._norm_rule(rule, goal)
                    if r is not None:
                        changed, proved, script = r
                        break
            if proved:
                norm_script.append(script)
                self._seal_norm(start, goal)
                return None, norm_script
            if changed is not None:
                # any success restarts the loop, a rule that left its goal as it was included (Aesop's
                # `runNormSteps`): such a rule succeeds again on the same goal, until `maxNormIterations`
                norm_script.append(script)
                goal = changed
                iteration += 1
                step = 0
                continue
            step += 1
            if step == 4:
                return goal, norm_script

    def _seal_norm(self, start: Goal, last: Goal) -> None:
        """The norm phase proved ``start`` by proving ``last`` (what its steps made of it): close both through
        the kernel (``last`` is closed already when a rule's tactic closed it)."""
        ctx = self.ctx
        if sealed_here(ctx, last) is None:
            close(last, builtin_proof(last), ctx)  # None: the kernel refuses
        if last is not start:
            close(start, Subproof((last,)), ctx)

    def proof_leaves(self) -> tuple[Goal | tuple[Goal, Any], ...]:
        """The leaves of the proof of the root: each goal a rule (or the norm phase) closed, with the
        justification of a builtin rule that ran no tactic (the others were closed through the kernel)."""
        out: list[Goal | tuple[Goal, Any]] = []
        stack = [self.root]
        while stack:
            g = stack.pop()
            r = g.proof_rapp
            if r is not None and r.children:
                stack.extend(r.children)
                continue
            goal = g.goal
            j = None if r is None or sealed_here(self.ctx, goal) is not None else builtin_proof(goal)
            out.append(goal if j is None else (goal, j))
        return tuple(out)

    def _unfold_text(self, goal: Goal) -> str | None:
        """``unfold d₁ d₂ at h … ⊢`` for the locations that mention an unfold rule's definition."""
        defs = set(self.rules.unfold_defs)
        locs = [user_name(n) for n, ty in goal.hyps if ty[0] != "type" and defs & const_names(ty)]
        if defs & const_names(goal.target):
            locs.append("⊢")
        if not locs:
            return None
        return f"unfold {' '.join(self.rules.unfold_defs)} at {' '.join(locs)}"

    def _norm_simp(self, goal: Goal) -> list[Goal] | None:
        text = self.simp_text
        assert text is not None
        new = run_sub(goal, text, self.ctx)
        if new is None:
            return None
        if len(new) > 1:
            return None
        if len(new) == 1 and new[0] == goal:
            return None
        return new

    def _norm_rule(self, rule: Rule, goal: Goal) -> tuple[Goal | None, bool, str] | None:
        ctx = self.ctx
        if rule.kind == "builtin":
            k = rule.arg
            ctx.tick(COST_BUILTIN)
            step = NORM_STEPS.get(k)
            if step is None:
                return None
            got = memo_step(k, goal, step)
            if got is None:
                return None
            goals, script = got
            return (goals[0], False, script) if goals else (None, True, script)
        exps = apply_rule(rule, goal, ctx, self.opts)
        if not exps:
            return None
        e = exps[0]
        if not e.goals:
            return (None, True, e.script)
        if len(e.goals) > 1:
            raise TacticError(
                f"aesop: error while running norm rule {rule.name}: rule produced more than one subgoal.\n"
                f"The rule was run on this goal:\n{indent(goal.pretty())}"
            )
        return (e.goals[0], False, e.script)

    # ---- results
    def _script(self, g: GNode, depth: int = 0) -> list[str]:
        # the proof's depth in the tree, counted: nothing else bounds it compiled (native.NATIVE_DEPTH)
        if depth > NATIVE_DEPTH:
            raise RecursionError(TOO_DEEP)
        out = list(g.norm_script)
        r = g.proof_rapp
        if r is None:
            return out
        out.append(r.script)
        if len(r.children) == 1:
            out.extend(self._script(r.children[0], depth + 1))
        else:
            for c in r.children:
                sub = self._script(c, depth + 1)
                if not sub:
                    continue
                out.append("· " + sub[0])
                out.extend("  " + s for s in sub[1:])
        return out

    def safe_prefix_goals(self) -> list[Goal]:
        """The goals left after normalisation and safe rules only, from the root (Aesop's safe prefix)."""
        out: list[Goal] = []
        self._safe_prefix(self.root, out)
        return out

    def _safe_prefix(self, g: GNode, out: list[Goal], depth: int = 0) -> None:
        if depth > NATIVE_DEPTH:  # see _script
            raise RecursionError(TOO_DEEP)
        if g.proved:
            return
        safe = [r for r in g.rapps if r.rule.phase == "safe"]
        if safe:
            for c in safe[0].children:
                self._safe_prefix(c, out, depth + 1)
        else:
            out.append(g.goal)

    def release(self) -> None:
        """Cut the tree's links from parents to children, so that reference counting frees it at once (the
        collector would otherwise have to find its cycles)."""
        stack = [self.root]
        while stack:
            g = stack.pop()
            for r in g.rapps:
                stack.extend(r.children)
                r.children = []
            g.rapps = []
            g.proof_rapp = None
        self.queue, self.stack, self.fifo = [], [], deque()

    def made_progress(self) -> bool:
        if self.root.goal != self.root_initial:
            return True
        return any(r.rule.phase == "safe" for r in self.root.rapps)


def indent(text: str, n: int = 2) -> str:
    """``text`` with every line indented by ``n`` spaces (Aesop's error and goal displays)."""
    pad = " " * n
    return "\n".join(pad + ln for ln in text.split("\n"))
