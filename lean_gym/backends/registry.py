"""The backend registry: names (``"sim"``, ``"repl"``, ``"ray:<spec>"``…) to ``"module:Class"`` entry points.

As Gymnasium's env registry does with ``entry_point``, each name maps to a string that is imported only when
a backend of that name is built, so this module knows no backend's code: the simulator, the REPL pool and
the Ray cluster layer (and later an HTTP client) each register themselves by name, and
:func:`make_backend` resolves the name at call time. The built-in entries are registered in
:mod:`lean_gym.backends` (the one place that lists them).

A *prefixed* entry takes an argument after its name and a colon (``ray:sim-repl``); with
``nested=True`` the argument is itself a backend name, checked as one.

Example:
    >>> from lean_gym.backends import register_backend, make_backend, backend_names
    >>> register_backend("quiet-sim", "lean_gym.backends.sim:SimBackend", summary="the simulator, renamed",
    ...                  defaults={"name": "quiet-sim"})
    >>> make_backend("quiet-sim").name, "quiet-sim" in backend_names()
    ('quiet-sim', True)
    >>> unregister_backend("quiet-sim")
"""

from __future__ import annotations

import difflib
import importlib
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lean_gym.backends.base import Backend, is_backend
from lean_gym.errors import ConfigError, MissingDependencyError, WorkspaceNotFoundError

__all__ = [
    "BACKEND_NAMES",
    "BackendEntry",
    "backend_entry",
    "backend_names",
    "check_backend_spec",
    "load_entry_point",
    "make_backend",
    "real_lean_available",
    "register_backend",
    "unregister_backend",
]

log = logging.getLogger("lean_gym")
_warned = False

#: Names that are not backends but mean real Lean (``"repl"``), for the error's hint.
_LEAN_WORDS = ("lean", "lean4", "real", "lake")


@dataclass(frozen=True)
class BackendEntry:
    """One registered backend name.

    Attributes:
        name: The name users pass (``backend="sim"``).
        entry_point: ``"module:attr"`` (``attr`` may be dotted, ``Class.constructor``), imported when a
            backend of this name is built; calling it with keyword arguments returns the backend.
        summary: One line for ``--help`` texts and error messages.
        argument: For a prefixed entry (``ray:<spec>``), the keyword the text after the colon is passed
            as; ``None`` for a plain name.
        default_argument: What a prefixed name alone (``ray``) means (``None``: the argument is required).
        nested: The argument is itself a backend name (checked as one before anything is built).
        workspace: Pass ``workspace=`` through to the entry point (real Lean and the cluster need it).
        defaults: Keyword arguments set unless the caller gives them.
    """

    name: str
    entry_point: str
    summary: str = ""
    argument: str | None = None
    default_argument: str | None = None
    nested: bool = False
    workspace: bool = False
    defaults: Mapping[str, Any] = field(default_factory=dict, hash=False)


_REGISTRY: dict[str, BackendEntry] = {}

#: The built-in backend names :func:`make_backend` takes besides ``ray:<one of them>`` and an instance.
BACKEND_NAMES: tuple[str, ...] = ("auto", "sim", "sim-repl", "repl")


def register_backend(
    name: str,
    entry_point: str,
    *,
    summary: str = "",
    argument: str | None = None,
    default_argument: str | None = None,
    nested: bool = False,
    workspace: bool = False,
    defaults: Mapping[str, Any] | None = None,
) -> None:
    """Register a backend under ``name`` (see :class:`BackendEntry` for the arguments).

    Raises:
        ConfigError: for a name already registered, ``"auto"``, or an entry point not of the form
            ``"module:attr"``.
    """
    if name == "auto" or name in _REGISTRY:
        raise ConfigError(f"backend {name!r} is already registered")
    if not name or ":" in name:
        raise ConfigError(f"a backend name must be non-empty and have no ':', got {name!r}")
    module, sep, attr = entry_point.partition(":")
    if not sep or not module or not attr:
        raise ConfigError(f"entry_point must be 'module:attr', got {entry_point!r}")
    _REGISTRY[name] = BackendEntry(
        name, entry_point, summary, argument, default_argument, nested, workspace, dict(defaults or {})
    )


def unregister_backend(name: str) -> None:
    """Remove a registered name (tests and plugins that replace an entry)."""
    _REGISTRY.pop(name, None)


def backend_names(*, prefixed: bool = True) -> tuple[str, ...]:
    """``"auto"`` and every registered name (a prefixed one as ``"ray:<…>"`` unless ``prefixed=False``)."""
    out = ["auto"]
    for e in _REGISTRY.values():
        if e.argument is None:
            out.append(e.name)
        elif prefixed:
            out.append(f"{e.name}:<{e.argument}>")
    return tuple(out)


def backend_entry(name: str) -> BackendEntry:
    """The entry registered under ``name``.

    Raises:
        ConfigError: for a name not registered.
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown backend {name!r}") from None


def load_entry_point(entry_point: str, *, what: str = "", hint: str = "") -> Any:
    """The object ``"module:attr"`` names (``attr`` may be dotted), imported now.

    The layers above lean-gym (the reference agents, the cluster extra) are reached this way, at call time,
    so that nothing below them imports them.

    Args:
        entry_point: ``"package.module:Name"`` or ``"package.module:Class.method"``.
        what: What needs it (``"lean-gym demo"``), for the error when the module is not installed.
        hint: How to install it (default: lean-gym's extras from a clone).

    Raises:
        MissingDependencyError: the module (or one it imports) is not installed; one line naming it.
    """
    module, _, attr = entry_point.partition(":")
    try:
        obj: Any = importlib.import_module(module)
    except ImportError as e:
        who = what or entry_point
        how = hint or "install lean-gym with its extras from a clone: pip install -e '.[all]'"
        raise MissingDependencyError(f"{who} needs {e.name or module}, which is not installed; {how}") from e
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _split(spec: str) -> tuple[BackendEntry | None, str | None]:
    """The entry a spec names and its argument (``"ray:repl"`` → the ray entry, ``"repl"``)."""
    named = _REGISTRY.get(spec)
    if named is not None:
        return named, (named.default_argument if named.argument is not None else None)
    head, sep, rest = spec.partition(":")
    prefixed = _REGISTRY.get(head)
    if sep and prefixed is not None and prefixed.argument is not None:
        return prefixed, rest
    return None, None


def check_backend_spec(spec: str) -> None:
    """Check a backend name before anything is built, started or imported.

    Args:
        spec: ``"auto"``, a registered name (``"sim"``, ``"sim-repl"``, ``"repl"``), or a prefixed one
            (``"ray"``, ``"ray:<a plain name>"``).

    Raises:
        ConfigError: for any other name, in one line with a "did you mean" (``"lean"`` is real Lean:
            ``"repl"``).
    """
    if not isinstance(spec, str) or spec == "auto":
        return
    entry, arg = _split(spec)
    if entry is not None:
        if entry.argument is not None and not arg:
            raise ConfigError(f"backend {spec!r} needs its {entry.argument} after the colon")
        if not entry.nested or arg is None:
            return
        inner = backend_entry(arg) if arg in _REGISTRY else None
        if arg == "auto" or (inner is not None and inner.argument is None):
            return
        prefix, name = f"{entry.name}:", arg
    else:
        prefix, name = "", spec
    plain = list(backend_names(prefixed=False))
    if name.lower() in _LEAN_WORDS:
        why = f"; real Lean is {prefix + 'repl'!r}"
    else:
        close = difflib.get_close_matches(name, plain, n=1, cutoff=0.5)
        why = f"; did you mean {prefix + close[0]!r}?" if close else ""
    listed = ", ".join(backend_names())
    raise ConfigError(f"unknown backend {spec!r}{why} (backends: {listed}, or a Backend instance)")


def real_lean_available(workspace: str | os.PathLike[str] | None = None) -> bool:
    """True when a built Lean workspace (REPL binary and Mathlib oleans) is found."""
    from lean_gym.lean.workspace import find_workspace

    try:
        find_workspace(workspace)
    except WorkspaceNotFoundError:
        return False
    return True


def make_backend(
    spec: str | Backend = "auto", *, workspace: str | os.PathLike[str] | None = None, **kwargs: Any
) -> Backend:
    """Build a backend from its registered name.

    Args:
        spec: ``"auto"`` (real Lean when a built workspace is found, otherwise the simulator with a one-line
            warning), ``"sim"`` (in-process simulator), ``"sim-repl"`` (the simulator behind the REPL protocol,
            in subprocesses), ``"repl"`` (real Lean; raises when no built workspace), ``"ray:<spec>"``
            (a :class:`~lean_gym.distributed.RayBackend` whose actors each hold a ``<spec>`` backend, e.g.
            ``"ray:sim-repl"``, ``"ray:repl"``; needs the ``ray`` extra), any other registered name, or a
            ``Backend`` instance, returned unchanged.
        workspace: Path of the Lean workspace (default: ``$LEAN_GYM_WORKSPACE`` or ``lean_workspace/``).
        **kwargs: Passed to the backend's constructor (``pool_size``, ``timeout``, ``memory_limit_mb``, ...).
            ``max_heartbeats`` (the simulator's heartbeat cap, which checked code cannot raise) is taken by
            ``"sim"`` and ``"sim-repl"``; real Lean bounds a check by its wall-clock ``timeout`` instead.
            So is ``cache`` (``False``: the simulator without its memo tables, see ``docs/simulator.md``).

    Raises:
        WorkspaceNotFoundError: ``"repl"`` without a built workspace.
        ConfigError: an unknown ``spec`` (a ``ValueError``), found before anything is built.
        MissingDependencyError: the backend's module needs an extra that is not installed.
    """
    global _warned
    if not isinstance(spec, str):
        if not is_backend(spec):
            raise TypeError(
                f"backend must be a name or a Backend (with check/check_batch/close/name), got {type(spec).__name__}"
            )
        return spec
    check_backend_spec(spec)
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
    entry, arg = _split(spec)
    if entry is None:  # check_backend_spec let it through: cannot happen
        raise ConfigError(f"unknown backend {spec!r}")
    args = {**entry.defaults, **kwargs}
    if entry.argument is not None:
        args[entry.argument] = arg
    if entry.workspace:
        args["workspace"] = workspace
    factory = load_entry_point(entry.entry_point, what=f"backend {entry.name!r}")
    backend: Backend = factory(**args)
    return backend
