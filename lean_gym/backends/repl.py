"""``ReplBackend``: the :class:`~lean_gym.backends.Backend` over a pool of REPL-protocol processes."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from lean_gym.backends.aio import AsyncMixin
from lean_gym.backends.base import DEFAULT_TIMEOUT_S, Capabilities, CheckResult
from lean_gym.lean.affinity import Affinity, Lease
from lean_gym.lean.pool import PoolStats, ReplPool
from lean_gym.lean.repl import LeanRepl
from lean_gym.lean.sandbox import Sandbox, lean_sandbox, resolve_sandbox, sandbox_works

__all__ = ["ReplBackend", "sandbox_default", "sim_command"]


def sandbox_default() -> bool | str:
    """Real Lean's sandbox unless told otherwise.

    ``$LEAN_GYM_SANDBOX``: ``0``/``off``/``false`` (none), ``1``/``on``/``true`` (required, an error without
    bubblewrap), unset or ``auto`` (when bwrap works here).

    Raises:
        ConfigError: any other value of ``$LEAN_GYM_SANDBOX``, in one line.
    """
    raw = os.environ.get("LEAN_GYM_SANDBOX", "").strip().lower()
    if raw in ("", "auto"):
        return "auto"
    if raw in ("0", "off", "false", "no"):
        return False
    if raw in ("1", "on", "true", "yes"):
        return True
    from lean_gym.errors import ConfigError

    raise ConfigError(f"LEAN_GYM_SANDBOX={raw!r}: use 0/off, 1/on or auto")


def sim_command(max_heartbeats: int | None = None, cache: bool | None = None) -> list[str]:
    """The command line of the simulator's protocol server (``python -m lean_gym.sim``).

    Args:
        max_heartbeats: The heartbeat cap of every check (``None``: the simulator's default, 400000);
            ``set_option maxHeartbeats`` in checked code may lower it, never raise it.
        cache: ``False`` runs it with ``--no-cache`` (no memo tables; the same answers, recomputed).
    """
    cmd = [sys.executable, "-m", "lean_gym.sim"]
    if max_heartbeats is not None:
        cmd += ["--max-heartbeats", str(int(max_heartbeats))]
    if cache is False:
        cmd.append("--no-cache")
    return cmd


class ReplBackend(AsyncMixin):
    """Checks Lean source on a header-keyed pool of REPL processes.

    With ``command=["lake", "env", "repl"]`` and ``cwd`` a built Lean workspace this is real Lean; with
    :func:`sim_command` it is the simulator behind the same protocol (and then its results say so).

    Example:
        >>> backend = ReplBackend(command=sim_command(), pool_size=2)  # doctest: +SKIP
        >>> backend.check("theorem t (x : Nat) : x + 0 = x := by simp").status  # doctest: +SKIP
        'proved'

    Args:
        command: The REPL command line.
        pool_size: Processes run at once (default: CPU count − 1, at least 1).
        cwd: Working directory (the Lean workspace).
        env: Environment of the processes.
        memory_limit_mb: ``RLIMIT_AS`` per process (real Lean with Mathlib: 8–12 GB).
        max_uses: Recycle a process after this many checks.
        max_rss_mb: Recycle a process above this resident memory.
        acquire_timeout: Longest wait for a free process.
        timeout: Default per-check wall-clock timeout in seconds (the pool kills a process past it; this is
            what bounds a check on real Lean, where `set_option maxHeartbeats 0` in the code is honoured).
        name: Backend name in results; defaults to ``"repl:<command>"``, or ``"sim-repl"`` for the simulator.
        versions: What the processes are (``{"lean": "v4.33.0-rc2", "mathlib": …}``), declared in
            :attr:`capabilities` and stamped on every result (:attr:`CheckResult.versions`).
        max_private_mb: Recycle a process above this private memory (USS), the measure to size by.
        sandbox: Run every process under bubblewrap (:mod:`lean_gym.lean.sandbox`): ``True`` (required;
            raises without bwrap), ``"auto"`` (when bwrap is installed and works here), ``False``/``None``
            (off), or a :class:`~lean_gym.lean.sandbox.Sandbox`. :meth:`lean` defaults to ``"auto"``.
    """

    def __init__(
        self,
        command: Sequence[str] | None = None,
        *,
        pool_size: int | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        memory_limit_mb: int | None = None,
        max_uses: int | None = 2000,
        max_rss_mb: float | None = None,
        acquire_timeout: float = 600.0,
        timeout: float | None = DEFAULT_TIMEOUT_S,
        header_timeout: float | None = 600.0,
        name: str | None = None,
        versions: Mapping[str, str] | None = None,
        max_private_mb: float | None = None,
        sandbox: bool | str | Sandbox | None = None,
    ) -> None:
        command = list(command) if command is not None else sim_command()
        self._recipe: dict[str, Any] = dict(
            command=command, pool_size=pool_size, cwd=cwd, env=env, memory_limit_mb=memory_limit_mb,
            max_uses=max_uses, max_rss_mb=max_rss_mb, acquire_timeout=acquire_timeout, timeout=timeout,
            header_timeout=header_timeout, name=name, versions=versions, max_private_mb=max_private_mb,
            sandbox=sandbox,
        )  # fmt: skip
        box = resolve_sandbox(sandbox, command, cwd)
        self.sandboxed = box is not None
        self.versions: dict[str, str] = dict(versions or {})
        #: The Lean workspace the processes run in (set by :meth:`lean`; the replay tier reads it).
        self.workspace: str | None = None
        if pool_size is None:
            pool_size = max(1, (os.cpu_count() or 2) - 1)
        if name is None:
            name = "sim-repl" if command[1:3] == ["-m", "lean_gym.sim"] else f"repl:{' '.join(command)}"
        self.name = name
        self.pool = ReplPool(
            command,
            size=pool_size,
            cwd=cwd,
            env=env,
            memory_limit_mb=memory_limit_mb,
            max_uses=max_uses,
            max_rss_mb=max_rss_mb,
            max_private_mb=max_private_mb,
            sandbox=box,
            acquire_timeout=acquire_timeout,
            default_timeout=timeout,
            header_timeout=header_timeout,
            name=name,
        )

    @classmethod
    def simulator(
        cls, *, max_heartbeats: int | None = None, cache: bool | None = None, **kwargs: Any
    ) -> ReplBackend:
        """The simulator behind the REPL protocol, in subprocesses (the ``"sim-repl"`` backend).

        Args:
            max_heartbeats: The heartbeat cap of every check (see :func:`sim_command`).
            cache: ``False`` runs the simulator without its memo tables (see :func:`sim_command`).
            **kwargs: The other arguments of :class:`ReplBackend`.
        """
        return cls(command=sim_command(max_heartbeats, cache), **kwargs)

    @classmethod
    def lean(
        cls,
        *,
        workspace: str | os.PathLike[str] | None = None,
        lean_version: str | None = None,
        **kwargs: Any,
    ) -> ReplBackend:
        """Real Lean: ``lake env repl`` in a built workspace (the ``"repl"`` backend).

        Its name is ``repl:<Lean release>`` (``repl:v4.33.0-rc2``), with ``+mathlib@<rev>`` when Mathlib
        is not at the tag of the same name, and every result carries both in ``versions``.

        Args:
            workspace: The Lean workspace, or a user's own Lake project that requires the REPL (default:
                the workspace of ``lean_version``, else ``$LEAN_GYM_WORKSPACE`` or ``lean_workspace/``).
            lean_version: The Lean release wanted (``"v4.26.0"``); its workspace must be set up
                (``lean-gym setup --lean v4.26.0``).
            **kwargs: The other arguments of :class:`ReplBackend`; ``sandbox`` defaults to
                ``$LEAN_GYM_SANDBOX`` (``0``/``off``: none, ``1``/``on``: required), else ``"auto"``.

        Raises:
            WorkspaceNotFoundError: without a built workspace (of that release).
            ConfigError: for a ``lean_version`` without a REPL tag and a Mathlib tag on record.
        """
        from lean_gym.lean.workspace import find_workspace, repl_command

        ws = find_workspace(workspace, lean_version=lean_version)
        if "sandbox" not in kwargs:
            kwargs["sandbox"] = sandbox_default()
        if kwargs["sandbox"] in ("auto", True):
            box = lean_sandbox(ws)
            kwargs["sandbox"] = box if kwargs["sandbox"] is True or sandbox_works() else None
        versions = ws.versions
        if "name" not in kwargs and "lean" in versions:
            mathlib = versions.get("mathlib")
            tail = "" if mathlib in (None, versions["lean"]) else f"+mathlib@{mathlib}"
            kwargs["name"] = f"repl:{versions['lean']}{tail}"
        backend = cls(command=repl_command(ws), cwd=ws.root, versions=versions, **kwargs)
        backend.workspace = str(ws.root)
        return backend

    @property
    def capabilities(self) -> Capabilities:
        """A pool of processes: concurrent up to its size, with tactic mode."""
        size = self.pool.size
        return Capabilities(
            in_process=False, concurrent=size > 1, tactic_mode=True, max_workers=size, versions=self.versions
        )

    def _stamp(self, result: CheckResult) -> CheckResult:
        return replace(result, versions=self.versions) if self.versions else result

    @property
    def stats(self) -> PoolStats:
        """The pool's counters (starts, recycles, checks…)."""
        return self.pool.stats

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        """Check ``code`` under ``header``; see :meth:`ReplPool.check`."""
        return self._stamp(self.pool.check(code, header=header, timeout=timeout))

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        """Check many pieces of code concurrently across the pool."""
        return [self._stamp(r) for r in self.pool.check_batch(codes, header=header, timeout=timeout)]

    @contextmanager
    def lease(self, header: str = "", affinity: Affinity | None = None) -> Iterator[Lease]:
        """Hold one process for tactic-mode requests; see :meth:`ReplPool.lease`."""
        with self.pool.lease(header, affinity) as lease:
            yield lease

    def open_repl(self, *, timeout: float | None = None) -> LeanRepl:
        """A new process of this backend's command line, outside the pool: a fresh REPL session.

        Its environments and proof states are numbered from 0, as in a recorded transcript (the
        conformance corpus's REPL cases replay on it). The caller closes it.

        Args:
            timeout: Seconds per request (default: the backend's per-check timeout).
        """
        return self.pool.new_process(
            default_timeout=timeout if timeout is not None else self._recipe["timeout"]
        )

    def warm(self, header: str = "") -> None:
        """Start every process and import ``header`` in each ahead of time."""
        self.pool.warm(header)

    def close(self) -> None:
        """Stop every process of the pool."""
        self.pool.close()
        self._close_async()

    def __getstate__(self) -> dict[str, Any]:
        # Processes and pipes cannot cross a process boundary: a copy is a new pool with the same settings,
        # whose processes start at its first check.
        return dict(self._recipe)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __enter__(self) -> ReplBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ReplBackend({self.name!r}, pool_size={self.pool.size})"
