"""The one interface every environment, grader, benchmark and agent uses to ask Lean for a verdict."""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, runtime_checkable

from lean_gym.lean.result import STATUSES, CheckResult, Status, result_from_response

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "STATUSES",
    "Backend",
    "BatchMixin",
    "CheckResult",
    "Status",
    "result_from_response",
]

DEFAULT_TIMEOUT_S = 60.0
"""Wall-clock deadline of one check, in seconds, where neither the caller nor the env sets one.

The environments pass it to every check (their ``timeout`` argument), ``SimBackend`` and ``ReplBackend``
default to it, so no check can run unbounded whatever the submitted text says."""


@runtime_checkable
class Backend(Protocol):
    """Anything that checks Lean source under a header and returns a verdict.

    Real Lean (:class:`~lean_gym.backends.ReplBackend`), the simulator
    (:class:`~lean_gym.backends.SimBackend`) and a Ray cluster implement it.
    """

    name: str

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        """Check ``code`` in the environment that ``header`` (imports, options, opens) sets up."""
        ...

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        """Check many pieces of code, concurrently where the backend can; results in input order."""
        ...

    def close(self) -> None:
        """Release processes and other resources; the backend is unusable afterwards."""
        ...


class BatchMixin:
    """``check_batch`` on top of ``check``: sequential, or over a thread pool when ``max_workers > 1``."""

    max_workers: int = 1

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        raise NotImplementedError

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        headers = [header] * len(codes) if isinstance(header, str) else list(header)
        if len(headers) != len(codes):
            raise ValueError(f"check_batch got {len(codes)} codes but {len(headers)} headers")
        if self.max_workers <= 1 or len(codes) <= 1:
            return [self.check(c, header=h, timeout=timeout) for c, h in zip(codes, headers)]
        with ThreadPoolExecutor(max_workers=min(self.max_workers, len(codes))) as ex:
            futs = [ex.submit(self.check, c, header=h, timeout=timeout) for c, h in zip(codes, headers)]
            return [f.result() for f in futs]
