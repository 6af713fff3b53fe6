"""The simulator's ``aesop`` and ``aesop?``: Aesop's search over the simulator's tactics.

What it does, following Aesop (``Aesop/Search/*.lean``) on a smaller rule base:

* **Rules.** Builtin rules (rule set ``builtin``): norm ``intros`` (−100), ``subst`` (−50),
  ``destructProducts`` (0: ``∧``/``∃`` hypotheses; ``↔`` ones are ``subst``'s); safe ``assumption`` (−50), ``rfl`` (0),
  ``not_intro`` (0), ``Iff``/``splitTarget`` (100), ``And`` constructors (101), ``Or`` cases (100),
  ``splitHypotheses`` (1000), ``True`` and ``False`` closers; unsafe ``applyHyps`` (75%), ``Or``
  constructors (50%). Rules from ``(add …)`` clauses: tactic rules ``(by T)`` in any phase, ``apply``,
  ``forward``/``destruct`` (hypotheses of the form ``A → B``), ``constructors``/``cases`` (on
  ``And``/``Or``/``Iff``/``True``/``False``/``Exists``), ``simp`` (lemmas added to the norm simp call) and
  ``unfold``. ``(erase …)`` and ``(rule_sets := […])`` filter them.
* **Normalisation** of every new goal: pre-simp norm rules, unfold rules, the builtin norm simp (``simp_all``
  or ``simp at *``, with or without the default simp set, per ``useSimpAll``/``useDefaultSimpSet``,
  skipped when ``enableSimp := false``), post-simp norm rules; repeated until nothing changes, at most
  ``maxNormIterations`` times (then Aesop's "exceeded maximum number of normalisation iterations" error).
* **Search.** Safe rules are tried in penalty order and the first that applies is committed (no
  backtracking); otherwise unsafe rules are tried in order of success probability, one rule application per
  expansion. Goals are expanded best-first by the product of success probabilities along their branch
  (``strategy := .depthFirst``/``.breadthFirst`` change the queue). ``maxRuleApplications``,
  ``maxRuleApplicationDepth``, ``maxGoals``, ``terminal`` and ``warnOnNonterminal`` act as in Aesop; on a
  non-fatal failure the goals left by the safe prefix are returned (with Aesop's warning) unless
  ``terminal``, in which case it fails with Aesop's error text.
* **Soundness.** A goal is closed only by a sub-tactic of the simulator (each sound) or by a builtin
  logical step (assumption up to the simulator's definitional equality, ``True``, a ``False``
  hypothesis). A rule whose tactic left an error or a synthetic ``sorry`` counts as failed.
* **Budget.** Every sub-tactic charges heartbeats through the :class:`~lean_gym.sim.tactics.TacticContext`,
  and each rule application and normalisation step charges a little more, so work past ``maxHeartbeats``
  ends in Lean's ``(deterministic) timeout`` error.

The parts: the cost model (:mod:`lean_gym.sim.aesop_cost`), the rule base (:mod:`lean_gym.sim.aesop_rules`),
applying a rule to a goal (:mod:`lean_gym.sim.aesop_apply`), the search (:mod:`lean_gym.sim.aesop_search`);
this module is the tactic: it parses the call, runs the search and turns its end into Lean's answer, and
registers ``aesop``/``aesop?`` with the tactic table.

Sub-tactic results and parsed calls are memoised in process (:mod:`lean_gym.sim.memo`; keyed on everything
they depend on, see :func:`~lean_gym.sim.aesop_apply.run_sub`), with their heartbeat cost replayed, so a
memoised call behaves exactly as the original one.
"""

from __future__ import annotations

from lean_gym.sim.aesop_apply import clear_cache, parse_cached
from lean_gym.sim.aesop_cost import tactic_cost
from lean_gym.sim.aesop_rules import elab_rules
from lean_gym.sim.aesop_search import AesopFailure, AesopResult, Search, indent
from lean_gym.sim.aesop_syntax import AesopSyntaxError
from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import Subproof, close
from lean_gym.sim.tactics import (
    LogMessage,
    TacticContext,
    TacticError,
    register_tactic,
)

__all__ = ["AesopResult", "aesop_tactic", "clear_cache", "run_aesop", "tactic_cost"]


def run_aesop(goal: Goal, text: str, ctx: TacticContext) -> AesopResult:
    """Run an aesop call on ``goal`` and report what happened (no warnings logged).

    Args:
        goal: The goal.
        text: The whole call, ``aesop …`` or ``aesop? …``.
        ctx: The tactic context (heartbeats are charged to it).

    Returns:
        The result; ``proved`` tells whether the goal was closed.

    Raises:
        TacticError: for a malformed call, a fatal search error, or (as ``HeartbeatsExceeded``) the budget.
    """
    parsed = parse_cached(text)
    if isinstance(parsed, AesopSyntaxError):
        raise TacticError(parsed.message)
    rules = elab_rules(parsed, goal, ctx)
    search = Search(goal, parsed, rules, ctx)
    try:
        return search.run()
    except AesopFailure as f:
        search.expand_safe_prefix()
        return AesopResult(
            False, tuple(search.safe_prefix_goals()), (), search.n_rapps, search.n_goals, f.message
        )
    finally:
        search.release()


def _locate(ctx: TacticContext, text: str) -> tuple[int, int]:
    src = ctx.src
    if src is None:
        return -1, -1
    i = src.text.find(text.strip())
    if i < 0:
        return -1, -1
    return i, i + len(text.strip())


def aesop_tactic(goal: Goal, text: str, ctx: TacticContext) -> list[Goal]:
    """The ``aesop``/``aesop?`` tactic handler registered with :func:`~lean_gym.sim.tactics.register_tactic`.

    Returns:
        ``[]`` when the goal is proved; otherwise (non-terminal failure) the goals left by the safe prefix,
        after logging Aesop's warning.

    Raises:
        TacticError: Aesop's error (malformed call, ``terminal`` failure, no progress, fatal errors), or
            ``HeartbeatsExceeded`` past the budget.
    """
    parsed = parse_cached(text)
    if isinstance(parsed, AesopSyntaxError):
        raise TacticError(parsed.message)
    rules = elab_rules(parsed, goal, ctx)
    search = Search(goal, parsed, rules, ctx)
    start, end = _locate(ctx, text)
    try:
        return _finish(search, goal, ctx, start, end)
    finally:
        search.release()


def _finish(search: Search, goal: Goal, ctx: TacticContext, start: int, end: int) -> list[Goal]:
    """Run the search and turn its end into the tactic's answer, warning or error."""
    o = search.opts
    try:
        result = search.run()
    except AesopFailure as f:
        # Aesop's `handleNonfatalError`: expand the safe prefix, then report the goals it leaves
        expanded = search.expand_safe_prefix()
        remaining = search.safe_prefix_goals()
        prefix_cut = (
            f"the maximum number of rule applications ({o.max_safe_prefix_rule_applications}) was reached."
        )
        # `set_option aesop.smallErrorMessages true`: the first line only (Aesop's throwAesopEx)
        small = ctx.env.options.get("aesop.smallErrorMessages") is True
        if o.terminal and small:
            raise TacticError(f"tactic 'aesop' failed, {f.message}") from None
        if o.terminal:
            suffix = ""
            if remaining:
                suffix = "\nRemaining goals after safe rules:\n" + "\n\n".join(
                    indent(g.pretty()) for g in remaining
                )
                if not expanded:
                    suffix += f"\nThe safe prefix was not fully expanded because {prefix_cut}"
            raise TacticError(
                f"tactic 'aesop' failed, {f.message}\nInitial goal:\n{indent(goal.pretty())}{suffix}"
            ) from None
        if not search.made_progress():
            if small:
                raise TacticError("tactic 'aesop' failed, made no progress") from None
            initial = indent(goal.pretty())  # printed only where a message shows it
            raise TacticError(f"tactic 'aesop' failed, made no progress\nInitial goal:\n{initial}") from None
        if o.warn_on_nonterminal:
            ctx.messages.append(LogMessage("warning", f"aesop: {f.message}", start, end))
        if not expanded:
            ctx.messages.append(
                LogMessage(
                    "warning", f"aesop: safe prefix was not fully expanded because {prefix_cut}", start, end
                )
            )
        if search.root.proved:
            # the safe prefix closed the goal: its proof is the tree's
            return close(goal, Subproof(search.proof_leaves()), ctx)
        return remaining
    if o.trace_script:
        steps = list(result.script) or ["done"]
        text_out = f"Try this: {steps[0]}" if len(steps) == 1 else "Try this:\n  " + "\n  ".join(steps)
        ctx.messages.append(LogMessage("info", text_out, start, end))
    return close(goal, Subproof(search.proof_leaves()), ctx)


register_tactic("aesop", aesop_tactic)
register_tactic("aesop?", aesop_tactic)
