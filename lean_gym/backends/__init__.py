"""Backends: the one interface (:class:`Backend`) over real Lean, the simulator and a Ray cluster.

The built-in names are registered here, and only here (:mod:`lean_gym.backends.registry` resolves them at
call time, so nothing below imports the simulator, the pool or the cluster layer until it is asked for).
A new backend registers itself the same way: ``register_backend("mine", "my_pkg.module:MyBackend")``.
"""

from __future__ import annotations

from typing import Any

from lean_gym.backends.aio import acheck, acheck_batch
from lean_gym.backends.base import (
    DEFAULT_TIMEOUT_S,
    Backend,
    BatchMixin,
    Capabilities,
    CheckRequest,
    CheckResult,
    Status,
    capabilities_of,
    is_backend,
    result_from_response,
)
from lean_gym.backends.cache import VerdictCache
from lean_gym.backends.lazy import LazyBackend, resolve_backend
from lean_gym.backends.registry import (
    BACKEND_NAMES,
    BackendEntry,
    backend_names,
    check_backend_spec,
    load_entry_point,
    make_backend,
    real_lean_available,
    register_backend,
    unregister_backend,
)

__all__ = [
    "BACKEND_NAMES",
    "DEFAULT_TIMEOUT_S",
    "Backend",
    "BackendEntry",
    "BatchMixin",
    "Capabilities",
    "CheckRequest",
    "CheckResult",
    "LazyBackend",
    "RemoteBackend",
    "ReplBackend",
    "SimBackend",
    "Status",
    "VerdictCache",
    "acheck",
    "acheck_batch",
    "backend_names",
    "capabilities_of",
    "check_backend_spec",
    "is_backend",
    "load_entry_point",
    "make_backend",
    "real_lean_available",
    "register_backend",
    "resolve_backend",
    "result_from_response",
    "unregister_backend",
]

# ------------------------------------------------------------------------------------------ built-in names
register_backend(
    "sim",
    "lean_gym.backends.sim:SimBackend",
    summary="the Lean-free simulator, in this process (not Lean)",
)
register_backend(
    "sim-repl",
    "lean_gym.backends.repl:ReplBackend.simulator",
    summary="the simulator behind the REPL protocol, in subprocesses (not Lean)",
)
register_backend(
    "repl",
    "lean_gym.backends.repl:ReplBackend.lean",
    summary="real Lean: `lake env repl` in a built workspace",
    workspace=True,
    defaults={"memory_limit_mb": 12_000, "timeout": 120.0},
)
register_backend(
    "ray",
    "lean_gym.distributed.ray_backend:RayBackend",
    summary="a Ray cluster whose actors each hold the named backend (the ray extra)",
    argument="backend",
    default_argument="sim-repl",
    nested=True,
    workspace=True,
)
register_backend(
    "http",
    "lean_gym.backends.remote:RemoteBackend.over_http",
    summary="a `lean-gym serve` at http://host:port (its verdicts name the server's backend)",
    argument="address",
)
register_backend(
    "https",
    "lean_gym.backends.remote:RemoteBackend.over_https",
    summary="a `lean-gym serve` behind https://host:port",
    argument="address",
)


def __getattr__(name: str) -> Any:
    # Lazy, so importing the interface does not start or import the simulator or the pool.
    if name == "SimBackend":
        from lean_gym.backends.sim import SimBackend

        return SimBackend
    if name == "ReplBackend":
        from lean_gym.backends.repl import ReplBackend

        return ReplBackend
    if name == "RemoteBackend":
        from lean_gym.backends.remote import RemoteBackend

        return RemoteBackend
    raise AttributeError(f"module 'lean_gym.backends' has no attribute {name!r}")
