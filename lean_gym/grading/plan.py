"""The verdict pipeline: analyse → plan the checks → run them → conclude, the one way to a verdict.

:meth:`lean_gym.grading.Oracle.plan` analyses a submission once (the oracle's own rules: its length bound,
``allow_native_decide``, the statement check) and returns a :class:`Plan`: the graders that judge it (the
oracle, a weak grader beside it, or both), the checks Lean must run for them (identical checks once), and
:meth:`Plan.conclude`, which turns Lean's results into the verdict. Every caller takes this path — the
envs and vector envs, ``lean-gym eval``, the TRL reward, ``LeanTactic-v0``'s final whole-proof check and
the services — so no caller re-implements a step, and the checks of many plans can go to a backend in one
batch (:meth:`lean_gym.backends.VerdictCache.run`, with or without a cache).

Example:
    >>> from lean_gym.backends import SimBackend
    >>> from lean_gym.grading import Oracle
    >>> oracle = Oracle(SimBackend())
    >>> thm = {"name": "t", "formal_statement": "theorem t (a b : Nat) : a + b = b + a := by"}
    >>> plan = oracle.plan(thm, "theorem t (a b : Nat) : a + b = b + a := by\\n  omega")
    >>> len(plan.requests)  # one check: the submission followed by `#print axioms t`
    1
    >>> results = [oracle.backend.check(r.code, header=r.header) for r in plan.requests]
    >>> plan.conclude(results).accepted
    True
    >>> oracle.plan(thm, "theorem t (a b : Nat) : a + b = b + a := by\\n  sorry").requests  # refused before Lean
    ()
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from lean_gym.backends.base import CheckRequest, CheckResult

if TYPE_CHECKING:
    from lean_gym.grading.oracle import Analysis, Verdict

__all__ = ["Grader", "Plan"]


@runtime_checkable
class Grader(Protocol):
    """What judges an analysed submission.

    The :class:`~lean_gym.grading.Oracle` and every :class:`~lean_gym.grading.WeakGrader` are graders.
    """

    @property
    def name(self) -> str:
        """The grader's name, written into each of its verdicts."""
        ...

    def needs_lean(self, analysis: Analysis) -> bool:
        """True when the static checks leave the verdict to Lean."""
        ...

    def header_for(self, analysis: Analysis) -> str:
        """The header this grader's check runs under."""
        ...

    def conclude(self, analysis: Analysis, check: CheckResult | None) -> Verdict:
        """The verdict, given Lean's check of ``analysis.code`` (``None`` when it needed none)."""
        ...


@dataclass(frozen=True)
class Plan:
    """One submission on its way to a verdict: its analysis, its graders and the checks they need.

    Attributes:
        analysis: The static analysis (no Lean) every grader of the plan reads.
        graders: Who judges, first the one whose verdict :meth:`conclude` returns.
        requests: The distinct checks the graders need, in grader order (empty when every grader decides
            before Lean).
        slots: For each grader, the index of its check in :attr:`requests` (``None``: it needs none).
    """

    analysis: Analysis
    graders: tuple[Grader, ...]
    requests: tuple[CheckRequest, ...]
    slots: tuple[int | None, ...]

    @classmethod
    def of(cls, analysis: Analysis, graders: Sequence[Grader]) -> Plan:
        """The plan of ``graders`` on ``analysis``: each grader that needs Lean adds its check once.

        Raises:
            ValueError: for no grader.
        """
        if not graders:
            raise ValueError("a plan needs at least one grader")
        requests: list[CheckRequest] = []
        slots: list[int | None] = []
        for g in graders:
            if not g.needs_lean(analysis):
                slots.append(None)
                continue
            req = CheckRequest(analysis.code, g.header_for(analysis))
            if req not in requests:
                requests.append(req)
            slots.append(requests.index(req))
        return cls(analysis, tuple(graders), tuple(requests), tuple(slots))

    @property
    def needs_lean(self) -> bool:
        """True when at least one check must run."""
        return bool(self.requests)

    def verdicts(self, results: Sequence[CheckResult]) -> tuple[Verdict, ...]:
        """Every grader's verdict, in :attr:`graders` order, from Lean's ``results`` of :attr:`requests`.

        Raises:
            ValueError: when ``results`` does not have one result per request.
        """
        if len(results) != len(self.requests):
            raise ValueError(f"this plan needs {len(self.requests)} results, got {len(results)}")
        return tuple(
            g.conclude(self.analysis, None if k is None else results[k])
            for g, k in zip(self.graders, self.slots)
        )

    def conclude(self, results: Sequence[CheckResult]) -> Verdict:
        """The first grader's verdict (the oracle's, for a plan the oracle made alone)."""
        return self.verdicts(results)[0]
