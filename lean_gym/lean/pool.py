"""A header-keyed pool of REPL-protocol processes.

Each process elaborates one header (imports, options, opens) once, in its first command, and runs every
later check in that environment by ``env`` id. That is what makes checks fast: ``import Mathlib`` costs
seconds and gigabytes, and it is paid once per process, not once per check.

Faults cost one restart, never a lost or hung request:

* a check that runs past its timeout kills the process group and is reported as ``timeout``;
* a process that dies, closes its output or prints garbage is reported as ``crashed``;
* either way the process is started afresh (and re-imports its header) on its next use;
* processes are recycled after ``max_uses`` checks, above ``max_private_mb`` of private memory (USS: the
  pages only that process tree holds; the ~5 GB of ``.olean`` files Mathlib maps are shared by every REPL
  of a node and do not count) or above ``max_rss_mb`` resident memory (which does count them); the REPL
  keeps every environment it ever made, so memory only grows;
* with ``sandbox``, every process runs under bubblewrap (:mod:`lean_gym.lean.sandbox`);
* a caller that finds no free process within ``acquire_timeout`` gets a
  :class:`~lean_gym.errors.PoolExhaustedError`.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import psutil

from lean_gym.errors import LeanGymError, LeanProcessError, LeanTimeoutError, PoolExhaustedError
from lean_gym.lean.affinity import Affinity
from lean_gym.lean.header import split_header
from lean_gym.lean.protocol import Message, Position, command_request
from lean_gym.lean.repl import DEFAULT_MAX_RESPONSE_BYTES, LeanRepl
from lean_gym.lean.result import (
    CheckResult,
    check_arguments,
    header_env_or_error,
    invalid_text_result,
    result_from_response,
)
from lean_gym.lean.sandbox import Sandbox

__all__ = ["PoolStats", "ReplPool", "tree_memory_mb"]


@dataclass
class PoolStats:
    """Counters a pool keeps (read them to check reuse, recycling and faults)."""

    checks: int = 0
    header_imports: int = 0
    starts: int = 0
    timeouts: int = 0
    crashes: int = 0
    recycles: int = 0
    imports_by_pid: dict[int, int] = field(default_factory=dict)


@dataclass
class _Worker:
    index: int
    repl: LeanRepl
    header: str | None = None
    header_env: int | None = None
    uses: int = 0
    busy: bool = False
    last_used: float = 0.0
    generation: int = 0  # bumped at every start of the process: proof states of older generations are gone


class ReplPool:
    """Up to ``size`` REPL processes, each bound to one header, shared by many concurrent checks.

    Example:
        >>> import sys
        >>> pool = ReplPool([sys.executable, "-m", "lean_gym.sim"], size=2)  # doctest: +SKIP
        >>> pool.check("theorem t : 2 + 2 = 4 := by norm_num").status  # doctest: +SKIP
        'proved'

    Args:
        command: Command line of one REPL process (``["lake", "env", "repl"]`` for real Lean).
        size: Most processes alive at once.
        cwd: Working directory of the processes.
        env: Environment variables of the processes.
        memory_limit_mb: ``RLIMIT_AS`` per process (a backstop, see :class:`~lean_gym.lean.repl.LeanRepl`).
        max_uses: Recycle a process after this many checks (``None``: never).
        max_rss_mb: Recycle a process whose resident memory (with its children) exceeds this.
        max_private_mb: Recycle a process whose private memory (USS, with its children) exceeds this:
            the measure to size a pool by (what each process owns, not the pages it shares).
        sandbox: Run every process under this :class:`~lean_gym.lean.sandbox.Sandbox`.
        acquire_timeout: Longest wait for a free process before ``PoolExhaustedError``.
        default_timeout: Per-check timeout when a call gives none.
        header_timeout: Timeout for elaborating a header (imports are slow on real Lean).
        name: Backend name put into each result (``"repl:<command>"`` by default).
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        size: int = 1,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        memory_limit_mb: int | None = None,
        max_uses: int | None = 2000,
        max_rss_mb: float | None = None,
        max_private_mb: float | None = None,
        sandbox: Sandbox | None = None,
        acquire_timeout: float = 600.0,
        default_timeout: float | None = 60.0,
        header_timeout: float | None = 600.0,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        name: str | None = None,
    ) -> None:
        if size < 1:
            raise ValueError(f"pool size must be at least 1, got {size}")
        self.command = list(command)
        self.size = size
        self.max_uses = max_uses
        self.max_rss_mb = max_rss_mb
        self.max_private_mb = max_private_mb
        self.acquire_timeout = acquire_timeout
        self.default_timeout = default_timeout
        self.header_timeout = header_timeout
        self.name = name or f"repl:{' '.join(self.command)}"
        self.stats = PoolStats()
        self._stats_lock = threading.Lock()
        self._repl_kwargs: dict[str, Any] = dict(
            cwd=cwd,
            env=env,
            memory_limit_mb=memory_limit_mb,
            max_response_bytes=max_response_bytes,
            sandbox=sandbox,
        )
        self._workers: list[_Worker] = []
        self._cond = threading.Condition()
        self._closed = False
        self._executor: ThreadPoolExecutor | None = None

    # ------------------------------------------------------------------------------------------ public

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        """Check ``code`` under ``header``; never raises for Lean's verdicts, timeouts or crashes.

        Raises:
            PoolExhaustedError: no process became free within ``acquire_timeout``.
            LeanGymError: the pool is closed.
        """
        timeout = check_arguments(code, header, timeout)
        bad = invalid_text_result(code, header, backend=self.name)
        if bad is not None:  # no Lean reading: an error verdict, and no process is touched
            return bad
        split = split_header(code, header)
        timeout = self.default_timeout if timeout is None else timeout
        t0 = time.perf_counter()
        with self._acquire(split.header) as worker:
            self._count("checks")
            try:
                env = self._ensure_header(worker, split.header)
                if isinstance(env, CheckResult):
                    return _with_elapsed(env, time.perf_counter() - t0)
                request = command_request(split.body, env=env)
                response = worker.repl.send(request, timeout=timeout)
            except LeanTimeoutError as e:
                self._count("timeouts")
                self._reset(worker)
                return _fault("timeout", str(e), time.perf_counter() - t0, self.name)
            except LeanProcessError as e:
                self._count("crashes")
                self._reset(worker)
                return _fault("crashed", str(e), time.perf_counter() - t0, self.name)
            worker.uses += 1
            elapsed = time.perf_counter() - t0
            try:
                result = result_from_response(
                    response, elapsed_s=elapsed, backend=self.name, line_offset=split.line_offset
                )
            except LeanGymError as e:  # a JSON object of an unknown shape: treat the process as broken
                self._count("crashes")
                self._reset(worker)
                return _fault("crashed", f"protocol violation: {e}", elapsed, self.name)
            self._maybe_recycle(worker)
            return result

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        """Check many pieces of code concurrently across the pool; results in input order."""
        headers = [header] * len(codes) if isinstance(header, str) else list(header)
        if len(headers) != len(codes):
            raise ValueError(f"check_batch got {len(codes)} codes but {len(headers)} headers")
        if len(codes) <= 1 or self.size == 1:
            return [self.check(c, header=h, timeout=timeout) for c, h in zip(codes, headers)]
        ex = self._pool_executor()
        futures = [ex.submit(self.check, c, header=h, timeout=timeout) for c, h in zip(codes, headers)]
        return [f.result() for f in futures]

    def warm(self, header: str = "", n: int | None = None) -> None:
        """Start ``n`` processes (default: all) and elaborate ``header`` in each, ahead of the first check."""
        n = self.size if n is None else min(n, self.size)
        split = split_header("", header)

        def one() -> None:
            with self._acquire(split.header, prefer_new=True) as w:
                self._ensure_header(w, split.header)

        with ThreadPoolExecutor(max_workers=n) as ex:
            for f in [ex.submit(one) for _ in range(n)]:
                f.result()

    @contextlib.contextmanager
    def lease(self, header: str = "", affinity: Affinity | None = None) -> Iterator[_PoolLease]:
        """Hold one process (with ``header`` elaborated) for a sequence of requests, e.g. tactic mode.

        With ``affinity`` the lease waits for that worker (where the caller's proof states live) and says
        in ``lost`` whether its process was restarted since. Without, it takes a new process while the
        pool has room (so concurrent sessions spread over the pool), then any free one with the header.

        Raises:
            PoolExhaustedError: the worker (or any worker) did not become free within ``acquire_timeout``.
            LeanTimeoutError, LeanProcessError: the header import timed out or crashed (process killed).
        """
        split = split_header("", header)
        want = None
        if affinity is not None and 0 <= affinity.worker < self.size:
            want = affinity.worker
        with self._acquire(split.header, want=want, spread=affinity is None) as worker:
            try:
                env = self._ensure_header(worker, split.header)
            except (LeanTimeoutError, LeanProcessError):
                self._count("crashes")
                self._reset(worker)
                raise
            aff = Affinity(worker.index, worker.generation)
            lease = _PoolLease(self, worker, aff, affinity is not None and affinity != aff, env)
            yield lease
            self._maybe_recycle(worker)

    def close(self) -> None:
        """Stop every process; later calls raise."""
        with self._cond:
            self._closed = True
            workers = list(self._workers)
            self._cond.notify_all()
        for w in workers:
            w.repl.close()
        if self._executor is not None:
            self._executor.shutdown(wait=False)

    def __enter__(self) -> ReplPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pids(self) -> list[int]:
        """The process ids of the live workers."""
        return [w.repl.pid for w in self._workers if w.repl.alive and w.repl.pid is not None]

    # ------------------------------------------------------------------------------------------ internals

    def _pool_executor(self) -> ThreadPoolExecutor:
        with self._cond:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=self.size, thread_name_prefix="lean-pool")
            return self._executor

    @contextlib.contextmanager
    def _acquire(
        self, header: str, prefer_new: bool = False, want: int | None = None, spread: bool = False
    ) -> Iterator[_Worker]:
        deadline = time.monotonic() + self.acquire_timeout
        with self._cond:
            while True:
                if self._closed:
                    raise LeanGymError("the REPL pool is closed")
                if want is not None:
                    worker = self._pick_worker(want)
                elif spread and len(self._workers) < self.size:
                    worker = self._pick(header, prefer_new=True)  # a new process: spread sessions out
                else:
                    worker = self._pick(header, prefer_new)
                if worker is not None:
                    worker.busy = True
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise PoolExhaustedError(
                        f"no REPL process became free within {self.acquire_timeout:g} s "
                        f"(pool size {self.size}, all busy); raise pool_size or acquire_timeout"
                    )
                self._cond.wait(left)
        try:
            yield worker
        finally:
            with self._cond:
                worker.busy = False
                worker.last_used = time.monotonic()
                self._cond.notify()

    def new_process(self, **kwargs: Any) -> LeanRepl:
        """A REPL process with the pool's command and settings (sandbox, limits), not part of the pool.

        Args:
            **kwargs: Passed on to :class:`~lean_gym.lean.repl.LeanRepl` (``start``, ``default_timeout``).
        """
        return LeanRepl(self.command, **self._repl_kwargs, **kwargs)

    def _pick(self, header: str, prefer_new: bool) -> _Worker | None:
        free = [w for w in self._workers if not w.busy]
        if not prefer_new:
            for w in free:
                if w.header == header and w.repl.alive:
                    return w
        if len(self._workers) < self.size:
            w = _Worker(len(self._workers), self.new_process(start=False))
            self._workers.append(w)
            return w
        if free:
            # Prefer a dead process (it needs a restart anyway), then the one idle longest (LRU).
            free.sort(key=lambda w: (w.repl.alive, w.header == header, w.last_used))
            return free[0]
        return None

    def _pick_worker(self, index: int) -> _Worker | None:
        while len(self._workers) <= index:  # a worker index from before a restart of the pool's list
            self._workers.append(_Worker(len(self._workers), self.new_process(start=False)))
        w = self._workers[index]
        return None if w.busy else w

    def _ensure_header(self, worker: _Worker, header: str) -> int | CheckResult | None:
        """Start the process and elaborate ``header`` if needed; return the env id to run in."""
        if worker.repl.alive and worker.header == header:
            return worker.header_env
        if worker.repl.alive:
            worker.repl.close()  # one header per process: importing twice is unsupported
        worker.repl.start()
        worker.generation += 1
        self._count("starts")
        worker.uses = 0
        worker.header = header
        worker.header_env = None
        if not header:
            return None
        response = worker.repl.send(command_request(header), timeout=self.header_timeout)
        pid = worker.repl.pid or -1
        with self._stats_lock:
            self.stats.header_imports += 1
            self.stats.imports_by_pid[pid] = self.stats.imports_by_pid.get(pid, 0) + 1
        env = header_env_or_error(response, backend=self.name)
        if isinstance(env, CheckResult):
            worker.header = None  # keep nothing of a header that does not elaborate
            worker.repl.close()
            return env
        worker.header_env = env
        return env

    def _count(self, key: str) -> None:
        with self._stats_lock:
            setattr(self.stats, key, getattr(self.stats, key) + 1)

    def _reset(self, worker: _Worker) -> None:
        worker.repl.kill()
        worker.header = None
        worker.header_env = None

    def _maybe_recycle(self, worker: _Worker) -> None:
        if self.max_uses is not None and worker.uses >= self.max_uses:
            self._count("recycles")
            worker.repl.close()
            worker.header = None
            return
        pid = worker.repl.pid
        if pid is None:
            return
        if self.max_rss_mb is None and self.max_private_mb is None:
            return
        rss, private = tree_memory_mb(pid)
        over_rss = self.max_rss_mb is not None and rss > self.max_rss_mb
        if over_rss or (self.max_private_mb is not None and private > self.max_private_mb):
            self._count("recycles")
            worker.repl.close()
            worker.header = None


class _PoolLease:
    """A worker held by :meth:`ReplPool.lease` (see :class:`~lean_gym.lean.affinity.Lease`)."""

    def __init__(
        self, pool: ReplPool, worker: _Worker, affinity: Affinity, lost: bool, env: int | CheckResult | None
    ) -> None:
        self._pool = pool
        self._worker = worker
        self.affinity = affinity
        self.lost = lost
        self.header_env = env if isinstance(env, int) else None
        self.header_error = env if isinstance(env, CheckResult) else None
        self.backend = pool.name

    def send(self, request: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        """Send one request to the held process (see :meth:`LeanRepl.send`); a fault resets the worker."""
        pool, worker = self._pool, self._worker
        timeout = pool.default_timeout if timeout is None else timeout
        try:
            response = worker.repl.send(request, timeout=timeout)
        except LeanTimeoutError:
            pool._count("timeouts")
            pool._reset(worker)
            raise
        except LeanProcessError:
            pool._count("crashes")
            pool._reset(worker)
            raise
        worker.uses += 1
        return response


def tree_memory_mb(pid: int) -> tuple[float, float]:
    """``(resident, private)`` memory of process ``pid`` and its descendants, in MiB.

    Private is USS (``Private_Clean + Private_Dirty`` of ``/proc/PID/smaps_rollup``, through psutil's
    ``memory_full_info``): what the tree alone holds. Where it cannot be read (another user's process,
    not Linux), resident memory stands in for it. A process gone is 0.
    """
    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.Error:
        return 0.0, 0.0
    rss = private = 0
    for p in procs:
        with contextlib.suppress(psutil.Error):
            full = p.memory_full_info()
            rss += full.rss
            private += getattr(full, "uss", full.rss)
            continue
        with contextlib.suppress(psutil.Error):
            info = p.memory_info()
            rss += info.rss
            private += info.rss
    return rss / (1024 * 1024), private / (1024 * 1024)


def _fault(status: str, text: str, elapsed: float, backend: str) -> CheckResult:
    msg = Message("error", Position(1, 0), None, text)
    return CheckResult(status, (msg,), (), elapsed, backend)  # type: ignore[arg-type]


def _with_elapsed(result: CheckResult, elapsed: float) -> CheckResult:
    return CheckResult(
        result.status, result.messages, result.sorries, elapsed, result.backend, result.env, result.raw
    )
