"""Backends: the one interface (:class:`Backend`) over real Lean, the simulator and a Ray cluster."""

from __future__ import annotations

from typing import Any

from lean_gym.backends.base import (
    DEFAULT_TIMEOUT_S,
    Backend,
    BatchMixin,
    CheckResult,
    Status,
    result_from_response,
)

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "Backend",
    "BatchMixin",
    "CheckResult",
    "LazyBackend",
    "ReplBackend",
    "SimBackend",
    "Status",
    "make_backend",
    "result_from_response",
]


def __getattr__(name: str) -> Any:
    # Lazy, so importing the interface does not start or import the simulator or the pool.
    if name == "SimBackend":
        from lean_gym.backends.sim import SimBackend

        return SimBackend
    if name == "ReplBackend":
        from lean_gym.backends.repl import ReplBackend

        return ReplBackend
    if name == "LazyBackend":
        from lean_gym.backends.lazy import LazyBackend

        return LazyBackend
    if name == "make_backend":
        from lean_gym.backends.factory import make_backend

        return make_backend
    raise AttributeError(name)
