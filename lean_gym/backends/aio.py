"""The asyncio API of the backends: ``await backend.acheck(...)`` and ``await backend.acheck_batch(...)``.

Every built-in backend has the two coroutines (:class:`AsyncMixin`); :func:`acheck` and
:func:`acheck_batch` take any backend, a third-party one without them included, and run its blocking
``check`` / ``check_batch`` on the event loop's default executor. The methods are not part of the
:class:`~lean_gym.backends.Backend` protocol, so a backend written before them is still a ``Backend``.

How it works: the blocking call runs on a thread pool the backend owns (as many threads as it runs checks
at once, :attr:`~lean_gym.backends.Capabilities.max_workers`), created at the first await. Nothing is bound
to an event loop at construction, so a backend built on one thread can be awaited from a loop on another
(TRL runs async reward functions on a daemon loop thread). ``acheck_batch`` sends the whole batch as one
``check_batch``, so the backend's own fan-out and header affinity plan it, and the answers come in input
order.

Cancelling the awaiting task does not stop a check that has started: it runs to its own deadline (the
per-check ``timeout``, past which the pool kills the process) and its answer is dropped.

Example:
    >>> import asyncio
    >>> from lean_gym.backends import SimBackend
    >>> backend = SimBackend()
    >>> asyncio.run(backend.acheck("theorem t : 2 + 2 = 4 := by decide")).status
    'proved'
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lean_gym.backends.base import CheckResult, capabilities_of

__all__ = ["AsyncMixin", "acheck", "acheck_batch"]

_CREATE = threading.Lock()


class AsyncMixin:
    """``acheck`` / ``acheck_batch`` over a backend's blocking ``check`` / ``check_batch``."""

    _aio_executor: ThreadPoolExecutor | None = None

    def _async_executor(self) -> ThreadPoolExecutor:
        if self._aio_executor is None:
            with _CREATE:
                if self._aio_executor is None:
                    workers = max(1, capabilities_of(self).max_workers)
                    self._aio_executor = ThreadPoolExecutor(workers, thread_name_prefix="lean-gym-aio")
        return self._aio_executor

    def _close_async(self) -> None:
        ex, self._aio_executor = self._aio_executor, None
        if ex is not None:
            ex.shutdown(wait=False)

    async def acheck(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        """Check ``code`` under ``header`` without blocking the event loop (see ``check``)."""
        call = functools.partial(self.check, code, header=header, timeout=timeout)  # type: ignore[attr-defined]
        result: CheckResult = await asyncio.get_running_loop().run_in_executor(self._async_executor(), call)
        return result

    async def acheck_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        """Check many pieces of code in one ``check_batch``, without blocking the loop; input order."""
        call = functools.partial(self.check_batch, list(codes), header=header, timeout=timeout)  # type: ignore[attr-defined]
        results: list[CheckResult] = await asyncio.get_running_loop().run_in_executor(
            self._async_executor(), call
        )
        return results


async def acheck(backend: Any, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
    """``await backend.acheck(...)`` where the backend has it, else its ``check`` on the default executor."""
    method = getattr(backend, "acheck", None)
    if method is not None and asyncio.iscoroutinefunction(method):
        result: CheckResult = await method(code, header=header, timeout=timeout)
        return result
    call = functools.partial(backend.check, code, header=header, timeout=timeout)
    out: CheckResult = await asyncio.get_running_loop().run_in_executor(None, call)
    return out


async def acheck_batch(
    backend: Any, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
) -> list[CheckResult]:
    """``await backend.acheck_batch(...)`` where the backend has it, else ``check_batch`` on an executor."""
    method = getattr(backend, "acheck_batch", None)
    if method is not None and asyncio.iscoroutinefunction(method):
        results: list[CheckResult] = await method(codes, header=header, timeout=timeout)
        return results
    call = functools.partial(backend.check_batch, list(codes), header=header, timeout=timeout)
    out: list[CheckResult] = await asyncio.get_running_loop().run_in_executor(None, call)
    return out
