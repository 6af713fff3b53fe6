"""Best-first proof search over a fixed tactic list, on ``LeanTactic-v0``'s ``run_tac``.

The baseline BFS-Prover-style searches improve on: no model, just a priority queue of proof states.
Each expansion tries every candidate tactic on the state:

* SATP v1's 24 tactics (its 7 safe and 17 unsafe aesop rule tactics, :mod:`lean_gym.aesop.satp`);
* for each of the theorem's retrieved context lemmas (at most ``lemma_k``) and, optionally, each local
  hypothesis of the goal: ``apply L``, ``rw [L]`` and ``simp only [L]``.

States are scored by a simple heuristic (lower is expanded first): ``goal_weight`` per open goal,
``length_weight`` per character of the goals, ``depth_weight`` per tactic on the path. A state whose goals
were seen before is dropped. The search ends when a tactic leaves no goals and the env's oracle accepts the
assembled proof (``run_tac`` checks that), or when the budget (``max_expansions`` states expanded,
``max_tactic_calls`` tactics sent) is spent.
"""

from __future__ import annotations

import heapq
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lean_gym.aesop.satp import V1_SAFE, V1_UNSAFE

__all__ = ["SATP_TACTICS", "BestFirstArgs", "BestFirstSearch", "SearchResult"]

#: SATP v1's 24 tactics: 7 safe, then 17 unsafe, in its head order.
SATP_TACTICS: tuple[str, ...] = V1_SAFE + V1_UNSAFE
#: How a context lemma or hypothesis ``L`` becomes tactics (SATP's lemma rule, split into its three arms).
LEMMA_TEMPLATES: tuple[str, ...] = ("apply {L}", "rw [{L}]", "simp only [{L}]")

_HYP = re.compile(r"^([^\s:⊢][^:]*?) : (.*)$", re.MULTILINE)
# Locals whose type is one of these are terms, not hypotheses: `apply x` with `x : ℕ` is wasted budget.
_TYPES = frozenset({"ℕ", "ℤ", "ℚ", "ℝ", "ℂ", "Nat", "Int", "Rat", "Real", "Complex", "Prop", "Bool", "Type"})


@dataclass(frozen=True)
class BestFirstArgs:
    """Hyperparameters (and budget) of :class:`BestFirstSearch`."""

    max_expansions: int = 16
    """States expanded per theorem (the budget's first half)."""
    max_tactic_calls: int = 400
    """Tactics sent to Lean per theorem (the budget's second half)."""
    lemma_k: int = 8
    """Retrieved context lemmas used (SATP's LEMMA_K)."""
    use_hypotheses: bool = True
    """Also try each local hypothesis through the lemma templates."""
    max_hypotheses: int = 8
    """At most this many hypotheses (the first ones of the goal)."""
    goal_weight: float = 1.0
    """Score per open goal."""
    length_weight: float = 0.005
    """Score per character of the goals."""
    depth_weight: float = 0.25
    """Score per tactic on the path."""


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one search.

    Attributes:
        name: The theorem.
        proved: True when the oracle accepted the proof found.
        proof: The accepted proof (statement and tactics), else ``None``.
        tactics: The path's tactics, when proved.
        expansions: States expanded.
        tactic_calls: Tactics sent (refused ones included).
        elapsed_s: Wall time of the search.
        backend: What answered (``"sim"`` is the simulator, not Lean).
    """

    name: str
    proved: bool
    proof: str | None
    tactics: tuple[str, ...]
    expansions: int
    tactic_calls: int
    elapsed_s: float
    backend: str


class BestFirstSearch:
    """Best-first search over :data:`SATP_TACTICS` and the goal's context lemmas.

    Example:
        >>> from lean_gym.envs.tactic_env import LeanTacticEnv
        >>> thm = {"name": "t", "formal_statement": "theorem t (a b : Nat) (h : a = b) : b = a := by\\n"}
        >>> env = LeanTacticEnv(backend="sim", theorems=[thm])
        >>> result = BestFirstSearch().search(env, 0)
        >>> result.proved, result.backend
        (True, 'sim')

    Args:
        args: Hyperparameters and budget.
    """

    def __init__(self, args: BestFirstArgs | None = None) -> None:
        self.args = args or BestFirstArgs()

    def candidates(self, goals: Sequence[str], context_lemmas: Sequence[str]) -> list[str]:
        """The tactics tried on a state: the 24 SATP tactics, then the lemma templates."""
        names = list(context_lemmas[: self.args.lemma_k])
        if self.args.use_hypotheses and goals:
            hyps: list[str] = []
            for group, typ in _HYP.findall(goals[0].split("⊢")[0]):
                head = typ.split()[0] if typ.split() else ""
                if head in _TYPES or head.startswith(("Type", "Sort", "Finset", "Set", "List", "Fin")):
                    continue
                hyps.extend(n for n in group.split() if n not in hyps)
            names += hyps[: self.args.max_hypotheses]
        out = list(SATP_TACTICS)
        for name in names:
            out += [t.format(L=name) for t in LEMMA_TEMPLATES]
        return list(dict.fromkeys(out))

    def score(self, goals: Sequence[str], depth: int) -> float:
        """The heuristic: lower is expanded first."""
        a = self.args
        return a.goal_weight * len(goals) + a.length_weight * sum(map(len, goals)) + a.depth_weight * depth

    def search(self, env: Any, index: int) -> SearchResult:
        """Search for a proof of theorem ``index`` of ``env`` (a :class:`~lean_gym.envs.tactic_env.LeanTacticEnv`).

        Resets ``env`` to that theorem and calls only ``env.run_tac``: the env's step counter is not used.
        """
        t0 = time.perf_counter()
        env = getattr(env, "unwrapped", env)
        _, info = env.reset(options={"index": index})
        thm = env.theorems[index]
        backend = str(info.get("backend", ""))
        calls = expansions = 0
        if info.get("status") != "open":
            return SearchResult(thm.name, False, None, (), 0, 0, time.perf_counter() - t0, backend)
        session = env.session
        seen = {tuple(session.goals(0))}
        heap: list[tuple[float, int, int]] = [(self.score(session.goals(0), 0), 0, 0)]
        tie = 1
        while heap and expansions < self.args.max_expansions and calls < self.args.max_tactic_calls:
            _, _, state = heapq.heappop(heap)
            expansions += 1
            goals = session.goals(state)
            for tactic in self.candidates(goals, thm.context_lemmas):
                if calls >= self.args.max_tactic_calls:
                    break
                calls += 1
                r = env.run_tac(state, tactic)
                backend = str(r.info.get("backend", backend))
                if r.proved and r.state is not None:
                    path = session.path(r.state)
                    return SearchResult(
                        thm.name,
                        True,
                        env.proof(r.state),
                        path,
                        expansions,
                        calls,
                        time.perf_counter() - t0,
                        backend,
                    )
                if r.status == "open" and r.state is not None:
                    key = tuple(r.goals)
                    if key in seen:
                        continue
                    seen.add(key)
                    heapq.heappush(heap, (self.score(r.goals, session.depth(r.state)), tie, r.state))
                    tie += 1
        return SearchResult(thm.name, False, None, (), expansions, calls, time.perf_counter() - t0, backend)
