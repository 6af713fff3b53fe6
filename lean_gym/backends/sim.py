"""``SimBackend``: the simulator in process, behind the same :class:`~lean_gym.backends.Backend` interface.

No subprocess and no pipes: the fastest way to run the simulator. For hard per-check timeouts and crash
isolation run the same simulator behind the protocol instead:
``ReplBackend(command=sim_command())``. Every result says ``backend="sim"``: the simulator is a sound
prover for a documented subset of Lean (see ``docs/simulator.md``), not Lean.
"""

from __future__ import annotations

import contextlib
import threading
import time
import traceback
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from lean_gym.backends.aio import AsyncMixin
from lean_gym.backends.base import (
    DEFAULT_TIMEOUT_S,
    BatchMixin,
    Capabilities,
    CheckResult,
    result_from_response,
)
from lean_gym.errors import LeanProcessError, LeanTimeoutError
from lean_gym.lean.affinity import Affinity
from lean_gym.lean.header import split_header
from lean_gym.lean.protocol import Message, Position, command_request
from lean_gym.lean.result import check_arguments, header_env_or_error, invalid_text_result
from lean_gym.lean.versions import DEFAULT_LEAN_VERSION
from lean_gym.sim.memo import caching
from lean_gym.sim.memo import request as sim_request
from lean_gym.sim.tactics import DEFAULT_HEARTBEAT_CAP, WallClockTimeout, wall_clock_deadline

__all__ = ["SimBackend"]


class SimBackend(AsyncMixin, BatchMixin):
    """Checks Lean source with the in-process simulator.

    Each distinct header is elaborated once and its environment reused, exactly as the REPL pool does with
    real Lean. Two budgets belong to the caller, and the checked code can lower them but never raise them:

    * heartbeats: every tactic pays for the work it does (the context it touches, the rewrites it tries);
      ``set_option maxHeartbeats N`` in the code gets ``min(N, max_heartbeats)`` (``0``: the cap), so a
      submission cannot switch its budget off; past it the check is Lean's ``(deterministic) timeout``
      error;
    * wall clock: each check has a deadline (``timeout`` per call, else the backend's), checked at every
      heartbeat; past it the check ends as ``timeout`` and the simulator starts afresh (as a killed Lean
      process would).

    For isolation from simulator crashes as well, use ``make_backend("sim-repl")``.

    Example:
        >>> backend = SimBackend()
        >>> backend.check("theorem t (a b : ℕ) : a + b = b + a := by ring", header="import Mathlib").status
        'proved'

    Args:
        recycle_after: Start a fresh simulator after this many checks (the REPL keeps every environment it
            made; recycling bounds memory, as with real Lean).
        name: Backend name in results.
        max_heartbeats: The heartbeat cap of every check (``0``: the hard cap of 5,000,000).
        timeout: The wall-clock deadline of a check, in seconds, when the call gives none (``None``: no
            deadline beyond the heartbeat cap).
        cache: Use the simulator's memo tables (``lean_gym.sim.memo``: answers of rule tactics, parsed
            calls and statements, remembered with the heartbeats they cost, so verdicts, messages and
            budgets are the same either way); ``False`` recomputes everything; ``None`` (the default): as the
            process says (``LEAN_GYM_SIM_CACHE=0`` in the environment turns them off).
    """

    max_workers = 1  # pure Python under the GIL: threads would only add overhead
    #: In process, one check at a time, with tactic mode; no Lean version (the simulator is not Lean), but
    #: its messages are held to the pinned version's wording (the conformance corpus counts them so).
    capabilities = Capabilities(
        in_process=True,
        concurrent=False,
        tactic_mode=True,
        max_workers=1,
        messages_follow=DEFAULT_LEAN_VERSION,
    )

    def __init__(
        self,
        *,
        recycle_after: int = 20_000,
        name: str = "sim",
        max_heartbeats: int = DEFAULT_HEARTBEAT_CAP,
        timeout: float | None = DEFAULT_TIMEOUT_S,
        cache: bool | None = None,
    ) -> None:
        if max_heartbeats < 0:
            raise ValueError(f"max_heartbeats must be >= 0 (0: the hard cap), got {max_heartbeats}")
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be positive or None, got {timeout}")
        self.name = name
        self.recycle_after = recycle_after
        self.max_heartbeats = int(max_heartbeats)
        self.timeout = timeout
        self.cache = cache
        # what a copy in another process is built from (the caller's budgets travel with it)
        self._recipe: dict[str, Any] = dict(
            recycle_after=recycle_after,
            name=name,
            max_heartbeats=self.max_heartbeats,
            timeout=timeout,
            cache=cache,
        )
        self.checks = 0
        self._lock = threading.Lock()
        self._repl: Any = None
        self._header_env: dict[str, int | CheckResult] = {}
        self._uses = 0
        self.generation = 0  # bumped with every fresh simulator: proof states of older ones are gone

    def _fresh(self) -> Any:
        from lean_gym.sim import SimRepl

        self._repl = SimRepl(max_heartbeats=self.max_heartbeats, cache=self.cache)
        self._header_env = {}
        self._uses = 0
        self.generation += 1
        return self._repl

    @contextlib.contextmanager
    def lease(self, header: str = "", affinity: Affinity | None = None) -> Iterator[_SimLease]:
        """Hold the simulator for a sequence of protocol requests (tactic mode), as ``ReplPool.lease`` does.

        The simulator is one "process" (worker 0); ``lost`` says that it was replaced (recycled, or after a
        timeout or crash) since ``affinity`` was taken, so proof states bound to it are gone.
        """
        split = split_header("", header)
        with self._lock:
            repl = self._repl if self._repl is not None and self._uses < self.recycle_after else self._fresh()
            env: int | CheckResult | None = None
            if split.header:
                env = self._header_env.get(split.header)
                if env is None:
                    try:
                        with wall_clock_deadline(self.timeout):
                            env = self._elaborate_header(repl, split.header)
                    except WallClockTimeout as e:
                        self._repl = None
                        raise LeanTimeoutError(
                            f"the simulator ran past the {self.timeout:g} s timeout"
                        ) from e
                    self._header_env[split.header] = env
            aff = Affinity(0, self.generation)
            yield _SimLease(self, repl, aff, affinity is not None and affinity != aff, env)

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        """Check ``code`` under ``header``; a simulator bug is reported as ``crashed``, never raised.

        ``timeout`` (seconds) overrides the backend's deadline for this check.
        """
        t0 = time.perf_counter()
        timeout = check_arguments(code, header, timeout)
        timeout = self.timeout if timeout is None else timeout
        with (
            sim_request(),
            caching(self.cache),
        ):  # gc_paused: see lean_gym.sim.memo (a check's working set dies young)
            return self._check(code, header, timeout, t0)

    def _check(self, code: str, header: str, timeout: float | None, t0: float) -> CheckResult:
        bad = invalid_text_result(code, header, backend=self.name)
        if bad is not None:
            return bad
        split = split_header(code, header)
        with self._lock:
            self.checks += 1
            try:
                repl = (
                    self._repl
                    if self._repl is not None and self._uses < self.recycle_after
                    else self._fresh()
                )
                self._uses += 1
                env: int | CheckResult | None = None
                if split.header:
                    env = self._header_env.get(split.header)
                    if env is None:
                        with wall_clock_deadline(timeout):
                            env = self._elaborate_header(repl, split.header)
                        self._header_env[split.header] = env
                if isinstance(env, CheckResult):
                    return CheckResult("error", env.messages, (), time.perf_counter() - t0, self.name)
                with wall_clock_deadline(timeout):
                    response = repl.handle(command_request(split.body, env=env))
            except WallClockTimeout:
                self._repl = None  # its state may be mid-command: start afresh, like a killed process
                text = f"the simulator ran past the {timeout:g} s timeout of this check"
                msg = Message("error", Position(1, 0), None, text)
                return CheckResult("timeout", (msg,), (), time.perf_counter() - t0, self.name)
            except Exception as e:  # a simulator bug must cost one check, not an episode
                self._repl = None
                text = f"simulator crashed: {type(e).__name__}: {e}\n{traceback.format_exc(limit=3)}"
                return CheckResult(
                    "crashed",
                    (Message("error", Position(1, 0), None, text),),
                    (),
                    time.perf_counter() - t0,
                    self.name,
                )
        return result_from_response(
            response, elapsed_s=time.perf_counter() - t0, backend=self.name, line_offset=split.line_offset
        )

    def _elaborate_header(self, repl: Any, header: str) -> int | CheckResult:
        return header_env_or_error(repl.handle(command_request(header)), backend=self.name)

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        """Check many pieces of code, in order (the in-process simulator is single-threaded)."""
        return super().check_batch(codes, header=header, timeout=timeout)

    def close(self) -> None:
        """Drop the simulator and its environments (a later check starts a fresh one)."""
        self._repl = None
        self._header_env = {}
        self._close_async()

    def __getstate__(self) -> dict[str, Any]:
        # A copy in another process is a fresh simulator with the same settings, budgets included (locks
        # do not pickle), as ReplBackend keeps its recipe.
        return dict(self._recipe)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __enter__(self) -> SimBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SimBackend(checks={self.checks})"


class _SimLease:
    """The in-process simulator held by :meth:`SimBackend.lease` (see :class:`~lean_gym.lean.affinity.Lease`)."""

    def __init__(
        self, owner: SimBackend, repl: Any, affinity: Affinity, lost: bool, env: int | CheckResult | None
    ) -> None:
        self._owner = owner
        self._repl = repl
        self.affinity = affinity
        self.lost = lost
        self.header_env = env if isinstance(env, int) else None
        self.header_error = env if isinstance(env, CheckResult) else None
        self.backend = owner.name

    def send(self, request: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        """Answer one request; a timeout or a simulator bug replaces the simulator, as a killed process."""
        owner = self._owner
        if owner._repl is not self._repl:
            raise LeanProcessError("the simulator was replaced during this lease")
        owner._uses += 1
        timeout = owner.timeout if timeout is None else timeout
        try:
            with wall_clock_deadline(timeout):
                return dict(self._repl.handle(dict(request)))
        except WallClockTimeout as e:
            owner._repl = None
            raise LeanTimeoutError(f"the simulator ran past the {timeout:g} s timeout of this request") from e
        except Exception as e:  # a simulator bug costs this request and the simulator's states
            owner._repl = None
            raise LeanProcessError(f"simulator crashed: {type(e).__name__}: {e}") from e
