"""SATP's record as constraints on the simulator's aesop cost model: what would Lean's own search path cost?

Each of SATP's 92 theorems (``lean_gym/conformance/cases/satp/``) was proved on Lean v4.26.0 with SATP's aesop
call under the default ``maxHeartbeats`` 200000, and its minimal proof is the script Lean's ``aesop?``
printed for that very search (``proofs/minif2f_test_v2/README.md``). Every recorded script is a chain of
normalisation steps: the norm simp (printed ``simp_all only […]``), builtin steps (``subst h``) and norm
rules (printed ``(tac)``). Aesop's normalisation (``Aesop/Search/Expansion/Norm.lean``, ``runNormSteps``)
runs, for each step, the pre-simp rules, the norm simp, then the post-simp rules in order until one
succeeds, and starts again; so the rules Lean ran before each step, and failed, are known from the call's
rule order. This script replays that path through the simulator: for each step it charges what the
simulator charges (``run_sub``, memo off) for every rule Lean ran on the goal, failures included, and moves
to the goal Lean's step made (the simulator's run of the printed step). The sum is a lower bound of what
the simulator would charge for Lean's search, and Lean's ran within 200000: a path that costs more here is
a contradiction between the cost model and the record (a charge larger than Lean pays).

A path stops where the simulator cannot run Lean's step (its tactic is weaker: ``grind``, a simp lemma it
lacks); what was charged up to there is still a lower bound. Statements it does not read are skipped.

Run:  python benchmarks/bench_satp_paths.py             # every theorem, the sum and where it stopped
      python benchmarks/bench_satp_paths.py NAME ...    # the charges, step by step
"""

from __future__ import annotations

import argparse
import collections
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lean_gym.conformance.corpus import satp_theorems
from lean_gym.sim.aesop_apply import apply_rule, parse_cached, run_sub
from lean_gym.sim.aesop_rules import Rule, RuleSet, elab_rules
from lean_gym.sim.aesop_search import Search
from lean_gym.sim.aesop_syntax import AesopCall
from lean_gym.sim.elab import Env
from lean_gym.sim.goals import Goal
from lean_gym.sim.memo import caching
from lean_gym.sim.tactics import HeartbeatsExceeded, TacticContext, TacticError, goal_from_statement

BUDGET = 200_000


def _words(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Path_:
    """One replayed path: the charges, in order, and how it ended."""

    name: str
    charges: list[tuple[str, int]] = field(default_factory=list)
    end: str = ""

    @property
    def total(self) -> int:
        return sum(c for _, c in self.charges)


def _charge_text(goal: Goal, text: str, ctx: TacticContext) -> tuple[int, list[Goal] | None]:
    before = ctx.heartbeats
    try:
        new = run_sub(goal, text, ctx)
    except HeartbeatsExceeded:
        new = None
    return ctx.heartbeats - before, new


def _charge_rule(rule: Rule, goal: Goal, ctx: TacticContext) -> int:
    before = ctx.heartbeats
    try:
        apply_rule(rule, goal, ctx, None)  # type: ignore[arg-type]  # the builtin steps read no option here
    except (HeartbeatsExceeded, TacticError):
        pass
    return ctx.heartbeats - before


def _before(rule: Rule, rules: RuleSet) -> list[Rule]:
    """The rules Lean ran, and that failed, on a goal before ``rule`` succeeded on it (Aesop's order)."""
    post = list(rules.norm_post)
    if rule.phase == "norm":
        return post[: post.index(rule)] if rule in post else []
    if rule.phase == "safe":
        return post + rules.safe[: rules.safe.index(rule)]
    return post + rules.safe + rules.unsafe[: rules.unsafe.index(rule)]


def _step(step: str, goal: Goal, rules: RuleSet, simp_text: str | None, by_text: dict[str, Rule],
          ctx: TacticContext, out: Path_) -> list[Goal] | str | None:  # fmt: skip
    """Charge one recorded step on ``goal``: the new goals, ``None`` (the simulator fails it) or why not."""
    for p in rules.norm_pre:
        out.charges.append((f"failed {p.name}", _charge_rule(p, goal, ctx)))
    if step.startswith("(") and step.endswith(")"):
        rule = by_text.get(_words(step[1:-1]))
        if rule is None:
            return f"rule not in the call: {step}"
        if simp_text is not None:
            out.charges.append((f"unchanged {simp_text}", _charge_text(goal, simp_text, ctx)[0]))
        for p in _before(rule, rules):
            what = _words(p.arg) if p.kind == "tactic" else p.name
            out.charges.append((f"failed {what}", _charge_rule(p, goal, ctx)))
        cost, new = _charge_text(goal, rule.arg, ctx)
        out.charges.append((f"step {_words(rule.arg)}", cost))
        return new
    if step.startswith("simp"):
        # the norm simp, printed as the `simp_all only […]` of the lemmas it used
        out.charges.append((f"step {simp_text}", _charge_text(goal, simp_text or "simp_all", ctx)[0]))
    return _charge_text(goal, step, ctx)[1]


def replay(name: str, call: str, minimal: str) -> Path_ | None:
    """The charges of Lean's recorded search path for theorem ``name``; ``None`` when it is not read."""
    out = Path_(name)
    stmt = call[len(f"theorem {name}") : call.index(":= by\n")]
    ctx = TacticContext(env=Env(imports=("Mathlib",)), max_heartbeats=0)
    try:
        goal = goal_from_statement(stmt.strip(), ctx)
    except TacticError:
        return None
    parsed = parse_cached(call[call.index(":= by\n") + len(":= by\n") :].strip())
    if not isinstance(parsed, AesopCall):
        out.end = "call not parsed"
        return out
    rules = elab_rules(parsed, goal, ctx)
    simp_text = Search(goal, parsed, rules, ctx).simp_text
    by_text: dict[str, Rule] = {}
    for r in (*rules.norm_pre, *rules.norm_post, *rules.safe, *rules.unsafe):
        if r.kind == "tactic":
            by_text.setdefault(_words(r.arg), r)
    steps = [
        s.strip() for s in minimal[minimal.index(":= by\n") + len(":= by\n") :].splitlines() if s.strip()
    ]
    for step in steps:
        new = _step(step, goal, rules, simp_text, by_text, ctx, out)
        if isinstance(new, str):
            out.end = new
            return out
        if new is None:
            out.end = f"stopped: the simulator fails `{_words(step)[:60]}`"
            return out
        if not new:
            out.end = "proved"
            return out
        if len(new) > 1:
            out.end = "stopped: a step left several goals"
            return out
        goal = new[0]
    out.end = "stopped: the script left a goal"
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", help="theorems to show step by step (default: all, summed)")
    args = ap.parse_args()
    calls, minimal = satp_theorems("satp_calls.jsonl"), satp_theorems("satp_minimal.jsonl")
    names = args.names or list(calls)
    paths: list[Path_] = []
    with caching(False):
        for name in names:
            p = replay(name, calls[name], minimal[name])
            if p is not None:
                paths.append(p)
    print(
        "Lean's recorded aesop paths through the simulator's charges (memo off; Lean ran each within 200000)"
    )
    for p in sorted(paths, key=lambda p: -p.total):
        flag = "  OVER THE BUDGET LEAN RAN IN" if p.total > BUDGET else ""
        print(f"{p.total:9d}  {p.name:32s} {p.end}{flag}")
        if args.names:
            for what, c in p.charges:
                print(f"           {c:8d}  {what[:90]}")
    full = [p for p in paths if p.end == "proved"]
    over = [p for p in paths if p.total > BUDGET]
    print(f"paths read: {len(paths)}; replayed to the end: {len(full)}; over 200000: {len(over)}")
    per: collections.Counter[str] = collections.Counter()
    for p in paths:
        for what, c in p.charges:
            per[(what.split(" ", 1)[1:] or [what])[0].split()[0]] += c
    print("charged, by tactic (all paths): " + ", ".join(f"{k} {v}" for k, v in per.most_common(8)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
