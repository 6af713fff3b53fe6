"""``LazyBackend``: a backend named by a spec, built on first use in the process that uses it.

Environments are pickled whole by Ray, RLlib, TorchRL and gymnasium's subprocess vector envs. A live
backend holds locks, pipes and processes that cannot cross a process boundary, so an env made with
``backend="sim"`` (or any name) keeps only the recipe, and the backend comes to life at its first check,
in whichever process that happens. A pickled ``LazyBackend`` is its recipe alone: each copy builds its own.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, cast

from lean_gym.backends.aio import acheck, acheck_batch
from lean_gym.backends.base import Backend, Capabilities, CheckResult, capabilities_of, is_backend
from lean_gym.backends.registry import check_backend_spec, make_backend
from lean_gym.errors import ConfigError
from lean_gym.lean.affinity import Affinity, Lease

__all__ = ["LazyBackend", "resolve_backend"]


class LazyBackend:
    """The backend ``make_backend(spec, **kwargs)`` builds, built at first use and pickled as its recipe.

    Example:
        >>> backend = LazyBackend("sim")
        >>> backend.built
        False
        >>> backend.check("theorem t (a b : ℕ) : a + b = b + a := by ring", header="import Mathlib").status
        'proved'
        >>> backend.built, backend.name
        (True, 'sim')

    Only the :class:`~lean_gym.backends.Backend` methods, :attr:`capabilities` and (for a backend with
    tactic mode) :meth:`lease` are offered; anything else the built backend has is on :attr:`backend`.

    Args:
        spec: Any name :func:`~lean_gym.backends.make_backend` takes (``"auto"``, ``"sim"``, ``"sim-repl"``,
            ``"repl"``, ``"ray:sim-repl"``, …).
        **kwargs: Passed to ``make_backend`` (``pool_size``, ``timeout``, ``workspace``, …).
    """

    def __init__(self, spec: str, **kwargs: Any) -> None:
        check_backend_spec(spec)  # a typo fails here, at gym.make, not at the first check in a worker
        self.spec = spec
        self.kwargs = dict(kwargs)
        self._backend: Backend | None = None
        self._lock = threading.Lock()

    @property
    def built(self) -> bool:
        """Whether the backend has been built in this process."""
        return self._backend is not None

    @property
    def backend(self) -> Backend:
        """The backend itself, built now if it was not yet."""
        if self._backend is None:
            with self._lock:
                if self._backend is None:
                    self._backend = make_backend(self.spec, **self.kwargs)
        return self._backend

    @property
    def name(self) -> str:
        """The built backend's name (``"sim"``, ``"sim-repl"``, ``"repl:…"``); building it if needed."""
        return self.backend.name

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        """Check ``code`` under ``header`` on the (now built) backend."""
        return self.backend.check(code, header=header, timeout=timeout)

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        """Check many pieces of code on the (now built) backend; results in input order."""
        return self.backend.check_batch(codes, header=header, timeout=timeout)

    async def acheck(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        """Check ``code`` under ``header`` from a coroutine (see :mod:`lean_gym.backends.aio`).

        The backend is built on an executor thread, never on the event loop (building starts processes).
        """
        backend = await self._abuilt()
        return await acheck(backend, code, header=header, timeout=timeout)

    async def acheck_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        """Check many pieces of code from a coroutine; results in input order."""
        backend = await self._abuilt()
        return await acheck_batch(backend, codes, header=header, timeout=timeout)

    async def _abuilt(self) -> Backend:
        if self._backend is not None:
            return self._backend
        return await asyncio.get_running_loop().run_in_executor(None, lambda: self.backend)

    @property
    def capabilities(self) -> Capabilities:
        """The built backend's :class:`~lean_gym.backends.Capabilities` (building it if needed)."""
        return capabilities_of(self.backend)

    @contextmanager
    def lease(self, header: str = "", affinity: Affinity | None = None) -> Iterator[Lease]:
        """The built backend's ``lease`` (tactic mode), for a backend that declares ``tactic_mode``.

        Raises:
            ConfigError: when the built backend has no tactic mode.
        """
        backend = self.backend
        if not capabilities_of(backend).tactic_mode:
            raise ConfigError(f"backend {backend.name!r} has no tactic mode (no lease())")
        with backend.lease(header, affinity) as lease:  # type: ignore[attr-defined]
            yield lease

    def close(self) -> None:
        """Close the backend if it was built; closing one never built costs nothing."""
        with self._lock:
            backend, self._backend = self._backend, None
        if backend is not None:
            backend.close()

    def __getstate__(self) -> dict[str, Any]:
        return {"spec": self.spec, "kwargs": self.kwargs}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["spec"], **state["kwargs"])  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"LazyBackend({self.spec!r}, built={self.built})"


def resolve_backend(backend: str | Backend) -> tuple[Backend, bool]:
    """A backend object and whether the caller owns it (and must close it).

    A name becomes a :class:`~lean_gym.backends.LazyBackend`: built at the first check, in the process
    that makes it, so that an env pickles (Ray, RLlib, TorchRL, subprocess vector envs) before its first use.

    Args:
        backend: ``"auto"``, ``"sim"``, ``"sim-repl"``, ``"repl"``, ``"ray:<spec>"`` or a
            :class:`~lean_gym.backends.Backend` instance.
    """
    if isinstance(backend, str):
        return cast(Backend, LazyBackend(backend)), True
    if is_backend(backend):  # reads no property, so a LazyBackend passed in is not built here
        return backend, False
    raise TypeError(
        f"backend must be 'auto', 'sim', 'repl' or a Backend instance, got {type(backend).__name__}"
    )
