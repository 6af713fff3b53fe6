"""One process that speaks the leanprover-community/repl JSON protocol, over pipes.

The process can be real Lean (``["lake", "env", "repl"]`` in a workspace), a user's fork of the REPL, or
the simulator (``[sys.executable, "-m", "lean_gym.sim"]``): anything that reads blank-line-terminated JSON
requests on stdin and answers with blank-line-terminated JSON on stdout.

Why pipes and not a pty: a pseudo-terminal in canonical mode truncates long input lines (about 4095 bytes
on Linux, 1024 on macOS) and echoes input back.
"""

from __future__ import annotations

import collections
import json
import os
import select
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from lean_gym.errors import LeanProcessError, LeanTimeoutError
from lean_gym.lean.protocol import encode_request
from lean_gym.lean.sandbox import Launch, Sandbox

__all__ = ["DEFAULT_MAX_RESPONSE_BYTES", "LeanRepl"]

DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
_STDERR_TAIL_LINES = 50
_CHUNK = 1 << 16


class LeanRepl:
    """A single REPL-protocol process.

    Each :meth:`send` writes one request and reads exactly one response. The process runs in its own
    session (process group), so a timeout kills ``lake env`` and the ``repl`` it spawned together. Stderr is
    drained continuously by a daemon thread (a full pipe would otherwise block the process), and its last
    lines are attached to every :class:`~lean_gym.errors.LeanProcessError`.

    Example:
        >>> import sys
        >>> with LeanRepl([sys.executable, "-m", "lean_gym.sim"]) as repl:  # doctest: +SKIP
        ...     repl.send({"cmd": "example : 1 + 1 = 2 := by norm_num"})
        {'env': 0}

    Args:
        command: The command line to start, e.g. ``["lake", "env", "repl"]``.
        cwd: Working directory of the process (the Lean workspace for real Lean).
        env: Environment variables for the process (default: inherit).
        memory_limit_mb: Address-space cap (``RLIMIT_AS``) of the process and its descendants, set by
            ``prlimit`` before the command runs (a backstop: ``RLIMIT_AS`` counts the mapped ``.olean``
            files too, so it cannot sit near what a process owns; recycle on private memory instead).
        sandbox: Run the process under bubblewrap (:class:`~lean_gym.lean.sandbox.Sandbox`).
        max_response_bytes: Largest response accepted; a larger one kills the process.
        default_timeout: Timeout for :meth:`send` when none is given (``None``: wait forever).
        start: Start the process now (default) or on the first :meth:`send`.

    Raises:
        LeanProcessError: when the command cannot be started.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        memory_limit_mb: int | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        default_timeout: float | None = None,
        start: bool = True,
        sandbox: Sandbox | None = None,
    ) -> None:
        if isinstance(command, str) or not command:
            raise ValueError(
                "command must be a non-empty sequence of arguments, e.g. ['lake', 'env', 'repl']"
            )
        self.command = list(command)
        self.cwd = cwd
        self.env = dict(env) if env is not None else None
        self.memory_limit_mb = memory_limit_mb
        self.max_response_bytes = max_response_bytes
        self.default_timeout = default_timeout
        self.sandbox = sandbox
        self.requests_sent = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._launch: Launch | None = None
        self._buf = bytearray()
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_TAIL_LINES)
        self._stderr_thread: threading.Thread | None = None
        if start:
            self.start()

    # ------------------------------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start the process (a no-op when it is already running)."""
        if self.alive:
            return
        self._buf.clear()
        self._stderr.clear()
        self._release_launch()
        argv, env, cwd = self.command, self.env, self.cwd
        fds: tuple[int, ...] = ()
        if self.sandbox is not None:
            self._launch = self.sandbox.launch(self.command, cwd=self.cwd, env=self.env)
            argv, env, cwd, fds = self._launch.argv, self._launch.env, None, self._launch.pass_fds
        argv, preexec = _with_memory_limit(argv, self.memory_limit_mb)
        try:
            self._proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=env,
                start_new_session=True,
                preexec_fn=preexec,
                pass_fds=fds,
                bufsize=0,
            )
        except OSError as e:
            self._release_launch()
            raise LeanProcessError(
                f"could not start {' '.join(self.command)!r}: {e}. Run `lean-gym doctor` to check the setup."
            ) from e
        finally:
            if self._launch is not None:
                self._launch.started()
        self.requests_sent = 0
        assert self._proc.stderr is not None  # set by PIPE above; not input validation
        self._stderr_thread = threading.Thread(
            target=_drain, args=(self._proc.stderr, self._stderr), name="lean-repl-stderr", daemon=True
        )
        self._stderr_thread.start()

    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def pid(self) -> int | None:
        """The process id, ``None`` before it started or after it exited."""
        return self._proc.pid if self._proc is not None else None

    def stderr_tail(self) -> str:
        """The last lines the process wrote to stderr."""
        return "".join(self._stderr)

    def kill(self) -> None:
        """Kill the whole process group at once (SIGKILL) and reap it."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process that survives SIGKILL
            pass
        self._close_pipes()

    def close(self, timeout: float = 2.0) -> None:
        """Close stdin (the REPL exits at EOF), wait briefly, then kill the group if needed."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                if proc.stdin:
                    proc.stdin.close()
                proc.wait(timeout=timeout)
            except (OSError, subprocess.TimeoutExpired):
                pass
        # Children of ``lake env`` may outlive the parent: always clear the group.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if proc.poll() is None:
            self.kill()
        self._close_pipes()

    def _release_launch(self) -> None:
        if self._launch is not None:
            self._launch.close()
            self._launch = None

    def _close_pipes(self) -> None:
        self._release_launch()
        proc = self._proc
        if proc is None:
            return
        for pipe in (proc.stdin, proc.stdout):
            try:
                if pipe:
                    pipe.close()
            except OSError:
                pass

    def __enter__(self) -> LeanRepl:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # best effort: never leave orphans behind
        try:
            if self._proc is not None and self._proc.poll() is None:
                self.kill()
        except Exception:
            pass

    # ------------------------------------------------------------------------------------------ requests

    def send(self, request: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        """Send one request and return the raw JSON response object.

        Args:
            request: A request object (see :mod:`lean_gym.lean.protocol` for builders).
            timeout: Seconds to wait for the whole response (``None``: ``default_timeout``).

        Returns:
            The response as a ``dict``: a command response, a tactic response, or ``{"message": ...}``.

        Raises:
            LeanTimeoutError: no complete response within ``timeout``; the process group was killed.
            LeanProcessError: the process died, closed stdout, sent non-JSON or an oversized response;
                the process was killed. Call :meth:`start` (or use a pool) to continue.
            ProtocolError: the request is not a JSON object (nothing was sent).
        """
        data = encode_request(request)
        # A request beginning with '#' or '--' would be skipped by the REPL with no reply: we would wait
        # forever. JSON objects start with '{', so this cannot happen for encode_request's output.
        if not self.alive:
            if self._proc is None:
                self.start()
            else:
                raise self._died("the REPL process is not running")
        timeout = self.default_timeout if timeout is None else timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        proc = self._proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(data)
            proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise self._died(f"could not write to the REPL process ({e.__class__.__name__})") from e
        self.requests_sent += 1
        raw = self._read_response(proc.stdout.fileno(), deadline, timeout)
        try:
            obj = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            self.kill()
            snippet = raw[:300].decode("utf-8", "replace")
            raise LeanProcessError(
                f"the REPL answered with something that is not JSON: {snippet!r}",
                stderr_tail=self.stderr_tail(),
            ) from e
        if not isinstance(obj, dict):
            self.kill()
            raise LeanProcessError(f"the REPL answered with a JSON {type(obj).__name__}, not an object")
        return obj

    def _read_response(self, fd: int, deadline: float | None, timeout: float | None) -> bytes:
        buf = self._buf
        start = 0
        while True:
            # A response ends at the first blank line: JSON strings cannot hold raw newlines.
            idx = buf.find(b"\n\n", start)
            if idx >= 0:
                head = bytes(buf[:idx])
                del buf[: idx + 2]
                if head.strip():
                    return head
                start = 0  # stray blank lines between responses
                continue
            start = max(0, len(buf) - 1)
            if len(buf) > self.max_response_bytes:
                self.kill()
                raise LeanProcessError(
                    f"the REPL response exceeded {self.max_response_bytes} bytes; process killed",
                    stderr_tail=self.stderr_tail(),
                )
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                self._timeout(timeout)
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                self._timeout(timeout)
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                if buf.strip():
                    # EOF after a final response without its trailing blank line.
                    tail = bytes(buf)
                    buf.clear()
                    try:
                        json.loads(tail)
                        return tail
                    except ValueError:
                        pass
                raise self._died("the REPL process closed its output (EOF)")
            buf += chunk

    def _timeout(self, timeout: float | None) -> None:
        self.kill()
        raise LeanTimeoutError(
            f"no response from the REPL within {timeout:.3g} s; its process group was killed"
            if timeout is not None
            else "no response from the REPL"
        )

    def _died(self, what: str) -> LeanProcessError:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                pass
        if self._stderr_thread is not None:
            self._stderr_thread.join(timeout=0.5)
        tail = self.stderr_tail()
        self.kill()
        return LeanProcessError(what, stderr_tail=tail, returncode=code)

    def __repr__(self) -> str:
        state = f"pid={self.pid}" if self.alive else "stopped"
        return f"LeanRepl({' '.join(self.command)!r}, {state}, requests={self.requests_sent})"


def _drain(pipe: Any, sink: collections.deque[str]) -> None:
    try:
        for line in iter(pipe.readline, b""):
            sink.append(line.decode("utf-8", "replace"))
    except (OSError, ValueError):
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass


def _with_memory_limit(argv: list[str], limit_mb: int | None) -> tuple[list[str], Any]:
    """``argv`` under an ``RLIMIT_AS`` of ``limit_mb`` (a backstop; lean-gym recycles on private memory).

    With util-linux's ``prlimit`` the limit is set by a program that then execs ``argv`` (same pid,
    inherited by every descendant, no Python code between ``fork`` and ``exec`` while this process runs
    threads); without it, by a ``preexec_fn``.
    """
    if not limit_mb:
        return argv, None
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return argv, _rlimit_as(limit_mb)
    n = int(limit_mb) * 1024 * 1024
    return [prlimit, f"--as={n}:{n}", "--", *argv], None


def _rlimit_as(limit_mb: int) -> Any:
    limit = int(limit_mb) * 1024 * 1024

    def apply() -> None:  # runs in the child between fork and exec
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return apply
