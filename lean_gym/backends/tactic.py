"""Tactic mode over any backend that can lease a process: proof states that survive a dead process.

A :class:`ProofSession` proves one theorem one tactic at a time on the REPL's tactic mode
(``{"tactic", "proofState"}``). Its states have stable ids (0 is the theorem's initial goal) that never
change, while the REPL's own ``proofState`` ids belong to one process and die with it. Each state keeps the
path of tactics that made it and is bound to the process (:class:`~lean_gym.lean.affinity.Affinity`)
holding it; a tactic on a state is sent to that process. When the process died, timed out or was recycled
since, the session rebuilds the state on a fresh process before running the tactic: by replaying the path
(``rebuild="replay"``, the default) or by unpickling the state the session pickled when it was made
(``rebuild="pickle"``). The outcome says so in ``rebuilt``; nothing else differs.

Verdicts of one tactic (:attr:`TacticOutcome.kind`), each guarding a trap the real transcripts show:

* ``open``: a new state with goals (``proofStatus`` ``Incomplete: open goals remain``, no error);
* ``completed``: no goals, ``proofStatus`` ``Completed``, no error and no sorry. This is *not* a proof:
  tactic mode can accept wrong proofs (REPL issue #44); the caller must confirm it with the oracle;
* ``error``: an error message (even with ``goals: []``, as ``invalid_tactic`` shows), a top-level
  ``Lean error`` (a tactic that does not parse), or any other ``proofStatus`` (metavariables, kernel errors);
* ``sorry``: the state contains a sorry (``goals: []`` with ``Incomplete: contains sorry``,
  ``tactic_mode_sorry``);
* ``timeout`` / ``crashed``: the process was killed; the parent state is rebuilt on the next tactic.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from lean_gym.backends.base import capabilities_of
from lean_gym.errors import ConfigError, LeanGymError, LeanProcessError, LeanTimeoutError
from lean_gym.lean.affinity import Affinity, Lease
from lean_gym.lean.header import split_header
from lean_gym.lean.protocol import (
    CommandResponse,
    ErrorResponse,
    Message,
    TacticResponse,
    command_request,
    parse_response,
    pickle_proof_state_request,
    tactic_request,
    unpickle_proof_state_request,
)

__all__ = [
    "ProofSession",
    "SessionStats",
    "TacticKind",
    "TacticOutcome",
    "classify_tactic_response",
    "start_command",
    "supports_tactic_mode",
]

TacticKind = Literal["open", "completed", "error", "sorry", "timeout", "crashed"]
RebuildMode = Literal["replay", "pickle"]

_UNKNOWN_STATE = "Unknown proof state."


def supports_tactic_mode(backend: Any) -> bool:
    """True when ``backend`` declares tactic mode (it can ``lease`` a process; see ``Capabilities``).

    See :func:`~lean_gym.backends.capabilities_of` for a backend that declares no capabilities.
    """
    return capabilities_of(backend).tactic_mode


def start_command(formal_statement: str) -> str:
    """The command that opens a theorem in tactic mode: the statement through ``:= by``, then ``sorry``.

    Its one ``sorries`` entry carries the initial proof state (as the REPL README shows).
    """
    from lean_gym.data.theorem import split_statement

    head, _ = split_statement(formal_statement.rstrip())
    return head + " sorry"


@dataclass(frozen=True)
class TacticOutcome:
    """What one tactic (or the start of a session) did.

    Attributes:
        kind: ``open``, ``completed``, ``error``, ``sorry``, ``timeout`` or ``crashed`` (module docstring).
        state: The new state's stable id (``open`` and ``completed``), else ``None``.
        goals: The new state's goals as Lean prints them (empty unless ``open``).
        proof_status: Lean's ``proofStatus`` text, when the response had one.
        messages: Lean's messages (tactic mode puts them at 0:0).
        error: A one-line reason for ``error``, ``sorry``, ``timeout`` and ``crashed``.
        elapsed_s: Wall time of the step, rebuild included.
        rebuilt: ``"replay"`` or ``"pickle"`` when the parent state had to be rebuilt first, else ``None``.
        rebuild_s: Wall time of that rebuild.
        backend: The backend that answered.
    """

    kind: TacticKind
    state: int | None = None
    goals: tuple[str, ...] = ()
    proof_status: str | None = None
    messages: tuple[Message, ...] = ()
    error: str = ""
    elapsed_s: float = 0.0
    rebuilt: str | None = None
    rebuild_s: float = 0.0
    backend: str = ""


def classify_tactic_response(obj: Mapping[str, Any]) -> tuple[TacticKind | Literal["lost"], str]:
    """The kind of a raw tactic response, and a one-line reason when it is not ``open``/``completed``.

    ``"lost"`` is the top-level ``Unknown proof state.``: the process does not hold the state (the
    session rebuilds it). Rules, in order: a top-level message is an error; any ``severity: error`` message
    is an error whatever ``goals`` says; a sorry (the ``sorries`` array or the status) is ``sorry``;
    ``Completed`` with no goals is ``completed``; open goals are ``open``; anything else is an error. A
    response without ``proofStatus`` (REPL versions before it) is ``completed`` only with no goals.
    """
    resp = parse_response(obj)
    if isinstance(resp, ErrorResponse):
        if resp.message.strip() == _UNKNOWN_STATE:
            return "lost", resp.message
        lines = resp.message.replace("Lean error:\n", "").strip().splitlines()
        return "error", lines[0] if lines else "Lean error"
    if not isinstance(resp, TacticResponse):
        return "error", "the REPL answered a tactic with a command response"
    errors = [m for m in resp.messages if m.severity == "error"]
    if errors:
        return "error", errors[0].data.splitlines()[0] if errors[0].data else "error"
    status = resp.proof_status
    if resp.sorries or (status is not None and "contains sorry" in status):
        return "sorry", "the proof state contains a sorry"
    if status is None:
        return ("completed", "") if not resp.goals else ("open", "")
    if status == "Completed":
        return ("completed", "") if not resp.goals else ("error", "Completed with goals left")
    if resp.goals and status.startswith("Incomplete: open goals remain"):
        return "open", ""
    return "error", f"proof status: {status}"


@dataclass
class _Node:
    parent: int | None
    tactic: str | None
    goals: tuple[str, ...]
    depth: int
    binding: tuple[Affinity, int] | None = None  # (process, the REPL's proofState id there)
    pickle: str | None = None


@dataclass
class _Attempt:
    """What the tries of one ``run_tac`` share: the rebuild that happened and the backend that answered."""

    rebuilt: str | None = None
    rebuild_s: float = 0.0
    backend: str = ""

    def fault(self, kind: TacticKind, e: Exception, t0: float) -> TacticOutcome:
        text = str(e).splitlines()[0] if str(e) else type(e).__name__
        return TacticOutcome(
            kind,
            None,
            (),
            None,
            (),
            text,
            time.perf_counter() - t0,
            self.rebuilt,
            self.rebuild_s,
            self.backend,
        )


@dataclass
class SessionStats:
    """Counters of one session: tactics sent, rebuilds and their cost."""

    tactics: int = 0
    rebuilds: int = 0
    rebuild_requests: int = 0
    rebuild_s: float = 0.0
    pickles: int = 0
    by_mode: dict[str, int] = field(default_factory=dict)


class ProofSession:
    """One theorem in tactic mode, with stable state ids and rebuilds after a lost process.

    Example:
        >>> from lean_gym.backends import SimBackend
        >>> s = ProofSession(SimBackend(), "theorem t (p : Prop) (h : p) : p ∧ p := by")
        >>> s.start().goals
        ('p : Prop\\nh : p\\n⊢ p ∧ p',)
        >>> s.run_tac(0, "constructor").goals
        ('case left\\np : Prop\\nh : p\\n⊢ p', 'case right\\np : Prop\\nh : p\\n⊢ p')

    Args:
        backend: A backend with ``lease(header, affinity)``: ``ReplBackend`` (real Lean or ``sim-repl``)
            or the in-process ``SimBackend``.
        formal_statement: The theorem's statement, ending in ``:= by``.
        header: Imports and options it is checked under.
        timeout: Seconds per request (``None``: the backend's default).
        rebuild: ``"replay"`` (re-run the path's tactics) or ``"pickle"`` (pickle every new state when it
            is made, unpickle it after a loss; on real Lean an unpickle re-runs the imports).
        pickle_dir: Where pickles go (default: a temporary directory removed by :meth:`close`).

    Raises:
        ConfigError: for a backend without tactic mode or an unknown ``rebuild``.
    """

    def __init__(
        self,
        backend: Any,
        formal_statement: str,
        *,
        header: str = "",
        timeout: float | None = None,
        rebuild: str = "replay",
        pickle_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        if not supports_tactic_mode(backend):
            raise ConfigError(
                f"backend {getattr(backend, 'name', type(backend).__name__)!r} has no tactic mode; use "
                "backend='sim', 'sim-repl' or 'repl'"
            )
        if rebuild not in ("replay", "pickle"):
            raise ConfigError(f"rebuild must be 'replay' or 'pickle', got {rebuild!r}")
        self.backend = backend
        split = split_header(start_command(formal_statement), header)
        self.header = split.header
        self._start_cmd = split.body
        self.timeout = timeout
        self.rebuild = rebuild
        self._own_dir = pickle_dir is None and rebuild == "pickle"
        self._dir = str(pickle_dir) if pickle_dir is not None else None
        self.nodes: list[_Node] = []
        self.stats = SessionStats()
        self.start_messages: tuple[Message, ...] = ()

    # ----------------------------------------------------------------------------------- public

    def start(self) -> TacticOutcome:
        """Open the theorem: state 0 is its initial goal (``kind="open"``).

        The outcome is an ``error`` when the statement does not elaborate into exactly one goal.
        """
        t0 = time.perf_counter()
        for crash in range(2):
            try:
                return self._start(t0)
            except LeanTimeoutError as e:
                return _Attempt().fault("timeout", e, t0)
            except LeanProcessError as e:
                if crash == 1:
                    return _Attempt().fault("crashed", e, t0)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns

    def _start(self, t0: float) -> TacticOutcome:
        self.nodes = []
        with self.backend.lease(self.header) as lease:
            if lease.header_error is not None:
                text = lease.header_error.messages_text(300) or "the header does not elaborate"
                return TacticOutcome("error", error=text, backend=lease.backend)
            out = self._open_root(lease)
            if isinstance(out, TacticOutcome):
                return out
            lean_id, goal = out
            self.nodes.append(_Node(None, None, (goal,), 0, (lease.affinity, lean_id)))
            if self.rebuild == "pickle":
                self._pickle(lease, 0)
            return TacticOutcome(
                "open",
                0,
                (goal,),
                None,
                self.start_messages,
                "",
                time.perf_counter() - t0,
                None,
                0.0,
                lease.backend,
            )

    def run_tac(self, state: int, tactic: str) -> TacticOutcome:
        """Run ``tactic`` on ``state``; a new state gets the next id. Never raises for Lean's verdicts.

        A process found dead during the request (killed, crashed) is restarted and the step is tried once
        more on the rebuilt state, so a death between two steps costs the agent nothing; a tactic that
        kills its process twice is reported as ``crashed``. A timeout is reported as ``timeout`` at once
        (its process is killed; the state is rebuilt on the next tactic).

        Raises:
            LeanGymError: before :meth:`start` succeeded.
            IndexError: for an unknown ``state``.
        """
        if not self.nodes:
            raise LeanGymError("call start() before run_tac()")
        if not 0 <= state < len(self.nodes):
            raise IndexError(f"unknown proof state {state} (this session has {len(self.nodes)})")
        t0 = time.perf_counter()
        acc = _Attempt()
        for crash in range(2):
            try:
                return self._attempt(state, tactic, acc, t0)
            except LeanTimeoutError as e:
                return acc.fault("timeout", e, t0)
            except LeanProcessError as e:
                if crash == 1:
                    return acc.fault("crashed", e, t0)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns

    def _attempt(self, state: int, tactic: str, acc: _Attempt, t0: float) -> TacticOutcome:
        node = self.nodes[state]
        affinity = node.binding[0] if node.binding is not None else None
        for lost_retry in range(2):
            with self.backend.lease(self.header, affinity) as lease:
                acc.backend = lease.backend
                if lease.header_error is not None:
                    text = lease.header_error.messages_text(300)
                    return TacticOutcome("error", error=text, backend=acc.backend)
                lean_id = self._bound_id(lease, state)
                if lean_id is None:
                    r0 = time.perf_counter()
                    try:
                        lean_id, acc.rebuilt = self._rebuild(lease, state)
                    finally:
                        acc.rebuild_s += time.perf_counter() - r0
                self.stats.tactics += 1
                response = lease.send(tactic_request(tactic, lean_id), timeout=self.timeout)
                kind, reason = classify_tactic_response(response)
                if kind == "lost":
                    # The process answered but does not hold the state (never expected): rebuild once.
                    for n in self.nodes:
                        if n.binding is not None and n.binding[0] == lease.affinity:
                            n.binding = None
                    affinity = lease.affinity
                    if lost_retry == 0:
                        continue
                    raise LeanProcessError("the REPL lost a proof state right after rebuilding it")
                resp = parse_response(response)
                msgs = resp.messages if isinstance(resp, TacticResponse) else ()
                status = resp.proof_status if isinstance(resp, TacticResponse) else None
                elapsed = time.perf_counter() - t0
                if kind in ("open", "completed") and isinstance(resp, TacticResponse):
                    goals = resp.goals if kind == "open" else ()
                    new = len(self.nodes)
                    self.nodes.append(
                        _Node(state, tactic, goals, node.depth + 1, (lease.affinity, resp.proof_state))
                    )
                    if self.rebuild == "pickle" and kind == "open":
                        self._pickle(lease, new)
                    return TacticOutcome(
                        kind, new, goals, status, msgs, "", elapsed, acc.rebuilt, acc.rebuild_s, acc.backend
                    )
                return TacticOutcome(
                    kind,
                    None,
                    (),
                    status,
                    msgs,
                    reason,
                    elapsed,
                    acc.rebuilt,
                    acc.rebuild_s,
                    acc.backend,
                )
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def path(self, state: int) -> tuple[str, ...]:
        """The tactics from the initial state to ``state``, in order."""
        out: list[str] = []
        n: int | None = state
        while n is not None:
            node = self.nodes[n]
            if node.tactic is not None:
                out.append(node.tactic)
            n = node.parent
        return tuple(reversed(out))

    def goals(self, state: int) -> tuple[str, ...]:
        """The goals of ``state`` as Lean printed them."""
        return self.nodes[state].goals

    def depth(self, state: int) -> int:
        """How many tactics lead from state 0 to ``state``."""
        return self.nodes[state].depth

    def affinity(self, state: int) -> Affinity | None:
        """The process that holds ``state`` now (``None`` when it must be rebuilt first)."""
        b = self.nodes[state].binding
        return b[0] if b is not None else None

    def __len__(self) -> int:
        return len(self.nodes)

    def close(self) -> None:
        """Remove the session's pickles when it made their directory."""
        if self._own_dir and self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    # ----------------------------------------------------------------------------------- internals

    def _open_root(self, lease: Lease) -> tuple[int, str] | TacticOutcome:
        response = lease.send(command_request(self._start_cmd, env=lease.header_env), timeout=self.timeout)
        resp = parse_response(response)
        if isinstance(resp, ErrorResponse):
            return TacticOutcome("error", error=resp.message, backend=lease.backend)
        if not isinstance(resp, CommandResponse):
            raise LeanProcessError("the REPL answered a command with a tactic response")
        errors = [m for m in resp.messages if m.severity == "error"]
        opened = [s for s in resp.sorries if s.proof_state is not None]
        if errors or len(opened) != 1:
            why = errors[0].data if errors else f"{len(opened)} sorries with a proof state, expected 1"
            return TacticOutcome("error", messages=resp.messages, error=why, backend=lease.backend)
        self.start_messages = tuple(m for m in resp.messages if m.severity != "warning")
        sorry = opened[0]
        return int(sorry.proof_state), sorry.goal  # type: ignore[arg-type]

    def _bound_id(self, lease: Lease, state: int) -> int | None:
        b = self.nodes[state].binding
        if b is not None and b[0] == lease.affinity:
            return b[1]
        return None

    def _rebuild(self, lease: Lease, state: int) -> tuple[int, str]:
        """Make ``state`` exist on the leased process; returns its REPL id and how it was rebuilt."""
        self.stats.rebuilds += 1
        t0 = time.perf_counter()
        mode = "replay"
        try:
            node = self.nodes[state]
            if self.rebuild == "pickle" and node.pickle is not None:
                lean_id = self._unpickle(lease, state)
                if lean_id is not None:
                    mode = "pickle"
                    return lean_id, mode
            # Replay: climb to the nearest ancestor still bound to this process (or the root), then
            # re-run the tactics below it. Goals must come out as they did: a divergence is a fault.
            chain: list[int] = []
            n: int | None = state
            start_id: int | None = None
            while n is not None:
                start_id = self._bound_id(lease, n)
                if start_id is not None:
                    break
                chain.append(n)
                n = self.nodes[n].parent
            if start_id is None:
                root = chain.pop()  # the root itself: open the theorem again
                self.stats.rebuild_requests += 1
                out = self._open_root(lease)
                if isinstance(out, TacticOutcome):
                    raise LeanProcessError(f"could not reopen the theorem to rebuild a state: {out.error}")
                start_id = out[0]
                self.nodes[root].binding = (lease.affinity, start_id)
            lean_id = start_id
            for k in reversed(chain):
                child = self.nodes[k]
                self.stats.rebuild_requests += 1
                resp = lease.send(tactic_request(str(child.tactic), lean_id), timeout=self.timeout)
                kind, reason = classify_tactic_response(resp)
                parsed = parse_response(resp)
                if kind not in ("open", "completed") or not isinstance(parsed, TacticResponse):
                    raise LeanProcessError(f"replaying {child.tactic!r} failed on a fresh process: {reason}")
                if tuple(parsed.goals) != child.goals and kind == "open":
                    raise LeanProcessError(f"replaying {child.tactic!r} gave different goals than before")
                lean_id = parsed.proof_state
                child.binding = (lease.affinity, lean_id)
            return lean_id, mode
        finally:
            dt = time.perf_counter() - t0
            self.stats.rebuild_s += dt
            self.stats.by_mode[mode] = self.stats.by_mode.get(mode, 0) + 1

    def _pickle_path(self, state: int) -> str:
        if self._dir is None:
            self._dir = tempfile.mkdtemp(prefix="lean-gym-states-")
        return os.path.join(self._dir, f"{id(self):x}-{state}.olean")

    def _pickle(self, lease: Lease, state: int) -> None:
        node = self.nodes[state]
        if node.binding is None:
            return
        path = self._pickle_path(state)
        response = lease.send(pickle_proof_state_request(path, node.binding[1]), timeout=self.timeout)
        if isinstance(parse_response(response), TacticResponse):
            node.pickle = path
            self.stats.pickles += 1

    def _unpickle(self, lease: Lease, state: int) -> int | None:
        node = self.nodes[state]
        self.stats.rebuild_requests += 1
        response = lease.send(unpickle_proof_state_request(str(node.pickle)), timeout=self.timeout)
        resp = parse_response(response)
        if not isinstance(resp, TacticResponse) or tuple(resp.goals) != node.goals:
            return None  # a missing or stale pickle: fall back to replay
        node.binding = (lease.affinity, resp.proof_state)
        return resp.proof_state
