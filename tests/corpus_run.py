"""The conformance corpus's command cases run once on ``sim`` per test process, watched as they run.

tests/test_conformance_ci.py judges the verdicts (none stronger than Lean, the figures of
docs/simulator.md) and tests/test_sim_kernel.py what the run met on its way (every goal's heads declared,
every family of tactics closing goals through the kernel). Both need the whole corpus run, 3–4 s of CPU;
they share this one (tests/conftest.py runs their files one after the other, so one worker runs both).
The watch only looks: the verdicts are those of an unwatched run.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from typing import Any

from lean_gym.backends import SimBackend
from lean_gym.conformance import CaseResult, load_cases, run_command_cases
from lean_gym.sim import tactics as engine
from lean_gym.sim.terms import check_heads


@dataclass(frozen=True)
class CorpusRun:
    """What the run gave and what it met."""

    results: list[CaseResult]
    """Each command case's result, in the corpus's order."""
    sealed: Counter[tuple[str, str]]
    """Goals closed through the kernel during the run, by (tactic, kind of justification)."""
    heads: frozenset[str]
    """Every term head in the first goal of every atomic tactic run (target and hypotheses)."""
    bad: tuple[str, ...]
    """What ``check_heads`` said of those goals that it refused (nothing, when all is well)."""


@cache
def whole_corpus_on_sim() -> CorpusRun:
    """Run every command case on a fresh :class:`SimBackend`, watching each atomic tactic's first goal."""
    heads: set[str] = set()
    bad: list[str] = []
    real = engine._exec_atomic

    def watch(t: object) -> None:
        stack = [t]
        while stack:
            u = stack.pop()
            if type(u) is tuple and u and type(u[0]) is str:
                heads.add(u[0])
            if type(u) is tuple:
                stack.extend(c for c in u if type(c) is tuple)

    def spy(syn: Any, goals: Any, c: Any) -> Any:
        for g in goals[:1]:
            watch(g.target)
            for _, ty in g.hyps:
                watch(ty)
            why = check_heads(g.target) or next((w for _, ty in g.hyps if (w := check_heads(ty))), "")
            if why:
                bad.append(why)
        return real(syn, goals, c)

    before = Counter(engine.SEALED_COUNTS)
    engine._exec_atomic = spy
    try:
        results = run_command_cases(SimBackend(), load_cases(kinds=("command",)))
    finally:
        engine._exec_atomic = real
    sealed = Counter(engine.SEALED_COUNTS)
    sealed.subtract(before)
    return CorpusRun(results, +sealed, frozenset(heads), tuple(bad))
