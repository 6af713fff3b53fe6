"""``make_backend``: one place that turns ``"auto"``, ``"sim"``, ``"repl"`` or an instance into a Backend."""

from __future__ import annotations

import difflib
import logging
import os
from typing import Any, cast

from lean_gym.backends.base import Backend
from lean_gym.errors import ConfigError, WorkspaceNotFoundError

__all__ = ["BACKEND_NAMES", "check_backend_spec", "make_backend", "real_lean_available"]

log = logging.getLogger("lean_gym")
_warned = False


def real_lean_available(workspace: str | os.PathLike[str] | None = None) -> bool:
    """True when a built Lean workspace (REPL binary and Mathlib oleans) is found."""
    from lean_gym.workspace import find_workspace

    try:
        find_workspace(workspace)
    except WorkspaceNotFoundError:
        return False
    return True


#: The backend names :func:`make_backend` takes (besides ``ray:<one of them>`` and a Backend instance).
BACKEND_NAMES: tuple[str, ...] = ("auto", "sim", "sim-repl", "repl")


def check_backend_spec(spec: str) -> None:
    """Check a backend name before anything is built, started or imported.

    Args:
        spec: ``"auto"``, ``"sim"``, ``"sim-repl"``, ``"repl"``, ``"ray"`` or ``"ray:<one of those>"``.

    Raises:
        ConfigError: for any other name, in one line with a "did you mean" (``"lean"`` is real Lean:
            ``"repl"``).
    """
    if not isinstance(spec, str):
        return
    inner = spec[4:] if spec.startswith("ray:") else spec
    if spec == "ray" or inner in BACKEND_NAMES:
        return
    if inner.lower() in ("lean", "lean4", "real", "lake"):
        hint = "repl" if not spec.startswith("ray:") else "ray:repl"
        why = f"; real Lean is {hint!r}"
    else:
        close = difflib.get_close_matches(inner, BACKEND_NAMES, n=1, cutoff=0.5)
        why = f"; did you mean {('ray:' if spec.startswith('ray:') else '') + close[0]!r}?" if close else ""
    raise ConfigError(
        f"unknown backend {spec!r}{why} (backends: {', '.join(BACKEND_NAMES)}, ray:<one of them>, "
        "or a Backend instance)"
    )


def make_backend(
    spec: str | Backend = "auto", *, workspace: str | os.PathLike[str] | None = None, **kwargs: Any
) -> Backend:
    """Build a backend.

    Args:
        spec: ``"auto"`` (real Lean when a built workspace is found, otherwise the simulator with a one-line
            warning), ``"sim"`` (in-process simulator), ``"sim-repl"`` (the simulator behind the REPL protocol,
            in subprocesses), ``"repl"`` (real Lean; raises when no built workspace), ``"ray:<spec>"``
            (a :class:`~lean_gym.distributed.RayBackend` whose actors each hold a ``<spec>`` backend, e.g.
            ``"ray:sim-repl"``, ``"ray:repl"``; needs the ``ray`` extra), or a ``Backend`` instance,
            returned unchanged.
        workspace: Path of the Lean workspace (default: ``$LEAN_GYM_WORKSPACE`` or ``lean_workspace/``).
        **kwargs: Passed to the backend's constructor (``pool_size``, ``timeout``, ``memory_limit_mb``, ...).
            ``max_heartbeats`` (the simulator's heartbeat cap, which checked code cannot raise) is taken by
            ``"sim"`` and ``"sim-repl"``; real Lean bounds a check by its wall-clock ``timeout`` instead.
            So is ``cache`` (``False``: the simulator without its memo tables, see ``docs/simulator.md``).

    Raises:
        WorkspaceNotFoundError: ``"repl"`` without a built workspace.
        ConfigError: an unknown ``spec`` (a ``ValueError``), found before anything is built.
    """
    global _warned
    from lean_gym.backends.lazy import LazyBackend

    if isinstance(spec, LazyBackend):  # a Backend whose name is a read-only property
        return cast(Backend, spec)
    if isinstance(spec, str):
        check_backend_spec(spec)
    if not isinstance(spec, str):
        if not isinstance(spec, Backend):
            raise TypeError(
                f"backend must be a name or a Backend (with check/check_batch/close/name), got {type(spec).__name__}"
            )
        return spec
    if spec == "ray" or spec.startswith("ray:"):
        from lean_gym.distributed import RayBackend

        return RayBackend(backend=spec[4:] or "sim-repl", workspace=workspace, **kwargs)
    if spec == "auto":
        if real_lean_available(workspace):
            spec = "repl"
        else:
            if not _warned:
                log.warning(
                    "lean-gym: no built Lean workspace found; using the simulator (backend='sim', not Lean). "
                    "Run `lean-gym doctor` to set up real Lean."
                )
                _warned = True
            spec = "sim"
    if spec == "sim":
        from lean_gym.backends.sim import SimBackend

        return SimBackend(**kwargs)
    if spec == "sim-repl":
        from lean_gym.backends.repl import ReplBackend, sim_command

        cap = kwargs.pop("max_heartbeats", None)
        return ReplBackend(command=sim_command(cap, kwargs.pop("cache", None)), **kwargs)
    if spec == "repl":
        from lean_gym.backends.repl import ReplBackend
        from lean_gym.workspace import find_workspace, repl_command

        ws = find_workspace(workspace)
        kwargs.setdefault("memory_limit_mb", 12_000)
        kwargs.setdefault("timeout", 120.0)
        return ReplBackend(command=repl_command(ws), cwd=ws.root, **kwargs)
    raise ValueError(
        f"unknown backend {spec!r}: use 'auto', 'sim', 'sim-repl', 'repl', 'ray:<spec>' or a Backend instance"
    )
