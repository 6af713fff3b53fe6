"""Replaying the corpus's REPL transcripts on a REPL-protocol backend, and comparing the answers.

A REPL case (``kind: "repl"``) is one transcript of the REPL's ``test/`` folder: its requests and what Lean
answered to each. Each transcript is replayed on a **fresh session** (a new :class:`~lean_gym.sim.SimRepl`
for ``sim``, a new process for ``sim-repl`` and ``repl``), as upstream runs each ``.in`` file in a fresh
``repl`` process, so that ``env`` and ``proofState`` numbers start at 0 as in the record.

What is compared, response by response (got = the backend's answer, want = Lean's recorded one):

* **verdict**: :func:`~lean_gym.lean.protocol.classify_response` (proved / sorry / error), the rule every
  lean-gym reward goes through;
* **structure**: the set of top-level keys (key *order* is not compared: JSON objects are unordered, and
  the order is an artefact of Lean's printer); ``env`` and ``proofState`` numbers (later requests refer to
  them, so a backend that numbers differently breaks the transcript); ``proofStatus``; per message its
  severity, ``pos`` and ``endPos``, in order; per sorry its ``pos``, ``endPos`` and ``proofState``; the
  number of ``goals``; per ``tactics`` entry (``allTactics``) its ``tactic`` text, ``pos``, ``endPos`` and
  ``proofState``;
* **text** (reported as ``exact``): the whole response, with every run of whitespace inside a string
  collapsed to one space (``#guard_msgs``' default comparison: Lean's pretty printer breaks long lines by
  width, which carries no meaning) and key order ignored.

A case **agrees** when every response has the same verdict and the same structure; ``exact`` says
whether the texts are equal too. A transcript that reads or writes files (``path``, ``pickleTo``,
``unpickleEnvFrom``, ``unpickleProofStateFrom``) is **skipped**, with the reason: it needs the REPL
repository's ``test/`` files, and its pickles would land in the working directory, which on real Lean is
the user's workspace (``tests/test_sim_conformance.py`` replays those on the simulator, in a temporary
directory). A transcript whose ``.in`` text matters for its framing (``in_text``) is replayed from its
parsed requests: the framing itself is not exercised.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from lean_gym.conformance.corpus import Case
from lean_gym.errors import LeanGymError, LeanTimeoutError
from lean_gym.lean.protocol import classify_response

__all__ = [
    "FILE_KEYS",
    "REPL_OUTCOMES",
    "ReplCaseResult",
    "ReplOutcome",
    "ReplSession",
    "compare_response",
    "repl_session_factory",
    "run_repl_cases",
]

ReplOutcome = Literal[
    "agree", "structure", "verdict", "stronger", "unread", "version", "skipped", "timeout", "crashed"
]  # fmt: skip
#: Every outcome of a REPL case, in the order reports list them.
REPL_OUTCOMES: tuple[ReplOutcome, ...] = (
    "agree", "structure", "verdict", "stronger", "unread", "version", "skipped", "timeout", "crashed",
)  # fmt: skip

#: Request keys that read or write files: a transcript using one is skipped (see the module docstring).
FILE_KEYS = ("path", "pickleTo", "unpickleEnvFrom", "unpickleProofStateFrom")

_WS = re.compile(r"\s+")


class ReplSession(Protocol):
    """One fresh REPL session: answers requests in order, numbering environments from 0."""

    def send(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Answer one request."""

    def close(self) -> None:
        """End the session."""


@dataclass(frozen=True)
class ReplCaseResult:
    """What one backend answered to one recorded transcript.

    Attributes:
        case: The case.
        outcome: ``agree`` (same verdicts and structure throughout), ``structure`` (same verdicts, a
            structural difference), ``verdict`` (a verdict differs, never towards proved), ``stronger``
            (the backend answers proved where Lean did not), ``unread`` (the simulator reports the
            transcript outside its subset; never for a stronger answer), ``version`` (a difference, on a
            record of another Lean version than the backend's: not counted), ``skipped`` (see
            ``reason``), ``timeout``/``crashed``.
        responses: How many responses were compared.
        exact: Every response's text equal after normalisation (``None`` when nothing was compared).
        difference: The first difference found (``"response 2: goals: 1 vs 2 (backend vs Lean)"``).
        reason: Why the case was skipped, unread, or got no answer.
        version_differs: The record is from another Lean version than the backend's (``None`` when
            either is unknown).
    """

    case: Case
    outcome: ReplOutcome
    responses: int = 0
    exact: bool | None = None
    difference: str = ""
    reason: str = ""
    version_differs: bool | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record (what ``lean-gym selftest --json`` prints per transcript)."""
        return {
            "id": self.case.id,
            "path": f"{self.case.source.get('path')}:{self.case.source.get('line')}",
            "lean_version": self.case.lean_version,
            "outcome": self.outcome,
            "responses": self.responses,
            "exact": self.exact,
            "difference": self.difference,
            "reason": self.reason,
            "version_differs": self.version_differs,
        }


def _norm(v: Any) -> Any:
    if isinstance(v, str):
        return _WS.sub(" ", v).strip()
    if isinstance(v, Mapping):
        return {k: _norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_norm(x) for x in v]
    return v


def _verdict(obj: Mapping[str, Any]) -> str:
    try:
        return classify_response(obj)
    except LeanGymError:
        return "malformed"


def _items(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def _struct_diff(got: Mapping[str, Any], want: Mapping[str, Any]) -> str:
    """The first structural difference of two responses, ``""`` when none (see the module docstring)."""
    if set(got) != set(want):
        extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
        return f"keys: backend has {extra or 'no extra'}, lacks {missing or 'none'}"
    for key in ("env", "proofState", "proofStatus"):
        if got.get(key) != want.get(key):
            return f"{key}: {got.get(key)!r} vs {want.get(key)!r} (backend vs Lean)"
    for key, fields in (
        ("messages", ("severity", "pos", "endPos")),
        ("sorries", ("pos", "endPos", "proofState")),
        ("tactics", ("tactic", "pos", "endPos", "proofState")),
    ):
        g, w = _items(got.get(key)), _items(want.get(key))
        if len(g) != len(w):
            return f"{key}: {len(g)} vs {len(w)} (backend vs Lean)"
        for i, (a, b) in enumerate(zip(g, w)):
            for f in fields:
                if isinstance(a, Mapping) and isinstance(b, Mapping) and a.get(f) != b.get(f):
                    return f"{key}[{i}].{f}: {a.get(f)!r} vs {b.get(f)!r} (backend vs Lean)"
    g, w = _items(got.get("goals")), _items(want.get("goals"))
    if len(g) != len(w):
        return f"goals: {len(g)} vs {len(w)} (backend vs Lean)"
    return ""


def compare_response(got: Mapping[str, Any], want: Mapping[str, Any]) -> tuple[str, str, str, bool]:
    """Compare one answer with Lean's recorded one.

    Returns:
        ``(backend's verdict, Lean's verdict, first structural difference or "", texts equal)``.
    """
    return _verdict(got), _verdict(want), _struct_diff(got, want), _norm(dict(got)) == _norm(dict(want))


def _outside(obj: Mapping[str, Any]) -> str:
    """The simulator's "outside its subset" message in an answer, ``""`` when there is none."""
    from lean_gym.sim.commands import OUTSIDE_SUBSET

    texts = [str(obj.get("message", ""))] + [
        str(m.get("data", "")) for m in _items(obj.get("messages")) if isinstance(m, Mapping)
    ]
    return next((t.splitlines()[0] for t in texts if OUTSIDE_SUBSET.search(t)), "")


def file_reason(case: Case) -> str:
    """Why ``case`` is skipped (it reads or writes files), or ``""``."""
    used = sorted({k for r in case.requests for k in FILE_KEYS if k in r})
    if not used and not case.needs_files:
        return ""
    files = ", ".join(case.needs_files) if case.needs_files else "pickles it writes itself"
    return f"reads or writes files ({', '.join(used)}: {files})"


def replay_case(
    case: Case,
    session: ReplSession,
    *,
    simulator: bool = False,
    version_differs: bool | None = None,
) -> ReplCaseResult:
    """Replay one transcript on a fresh ``session`` and judge it (see the module docstring)."""
    worst: ReplOutcome = "agree"
    difference = ""
    exact = True
    unread = ""
    n = 0
    for i, (request, want) in enumerate(zip(case.requests, case.responses)):
        try:
            got = session.send(request)
        except LeanTimeoutError as e:
            return ReplCaseResult(case, "timeout", n, None, f"response {i}", str(e).splitlines()[0],
                                  version_differs)  # fmt: skip
        except LeanGymError as e:
            return ReplCaseResult(case, "crashed", n, None, f"response {i}", str(e).splitlines()[0],
                                  version_differs)  # fmt: skip
        n += 1
        mine, lean, struct, same_text = compare_response(got, want)
        exact = exact and same_text
        if simulator and not unread:
            unread = _outside(got)
        if mine != lean:
            found: ReplOutcome = "stronger" if mine == "proved" else "verdict"
            what = f"response {i}: verdict {mine} vs {lean} (backend vs Lean)"
        elif struct:
            found, what = "structure", f"response {i}: {struct}"
        else:
            continue
        rank = REPL_OUTCOMES.index
        if rank(found) > rank(worst):
            worst, difference = found, what
        elif not difference:
            difference = what
    if worst != "agree" and version_differs:  # another Lean's record: said per case, not counted
        return ReplCaseResult(case, "version", n, exact, difference, "", version_differs)
    if worst in ("structure", "verdict") and unread:  # never hides a stronger answer
        return ReplCaseResult(case, "unread", n, exact, difference, unread, version_differs)
    return ReplCaseResult(case, worst, n, exact, difference, "", version_differs)


class _InProcess:
    def __init__(self, repl: Any) -> None:
        self._repl = repl

    def send(self, request: Mapping[str, Any]) -> dict[str, Any]:
        return dict(self._repl.handle(dict(request)))

    def close(self) -> None:
        pass


class _Process:
    def __init__(self, repl: Any, header_timeout: float | None) -> None:
        self._repl = repl
        self._header_timeout = header_timeout

    def send(self, request: Mapping[str, Any]) -> dict[str, Any]:
        # a command without an env starts a fresh environment: its imports may take as long as a header's
        fresh = "cmd" in request and "env" not in request
        return self._repl.send(request, timeout=self._header_timeout if fresh else None)

    def close(self) -> None:
        self._repl.close()


def repl_session_factory(backend: Any, *, timeout: float | None = None) -> Callable[[], ReplSession] | None:
    """How to open fresh REPL sessions like ``backend``'s, or ``None`` for a backend with no REPL protocol.

    The simulator's in-process backend gets an in-process :class:`~lean_gym.sim.SimRepl` with its heartbeat
    cap; a :class:`~lean_gym.backends.ReplBackend` (``sim-repl``, ``repl``, a user's command line) gets a new
    process of its command line, in its working directory and environment, with the pool's header timeout
    for a command that starts a fresh environment (its imports) and ``timeout`` for the others.
    """
    from lean_gym.backends.repl import ReplBackend
    from lean_gym.backends.sim import SimBackend

    if isinstance(backend, SimBackend):
        from lean_gym.sim import SimRepl

        cap = getattr(backend, "max_heartbeats", None)
        return lambda: _InProcess(SimRepl(cap) if isinstance(cap, int) else SimRepl())
    if isinstance(backend, ReplBackend):
        header_timeout = backend.pool.header_timeout
        return lambda: _Process(backend.open_repl(timeout=timeout), header_timeout)
    return None


def run_repl_cases(
    backend: Any,
    cases: Iterable[Case],
    *,
    backend_version: str | None = None,
    timeout: float | None = None,
    progress: Callable[[int], None] | None = None,
    sessions: Callable[[], ReplSession] | None = None,
) -> list[ReplCaseResult]:
    """Replay every REPL case on ``backend``, each in a fresh session.

    Args:
        backend: A backend that speaks the REPL protocol (``sim``, ``sim-repl``, ``repl``); for any other,
            every case is ``skipped`` with the reason.
        cases: The cases (``kind == "repl"`` ones are replayed).
        backend_version: The Lean version the backend runs (``None``: unknown, or the simulator).
        timeout: Seconds per response (default: the backend's).
        progress: Called with the number of cases done after each one.
        sessions: Opens a fresh session (default: :func:`repl_session_factory` of ``backend``).
    """
    from lean_gym.conformance.runner import is_simulator, versions_differ

    todo = [c for c in cases if c.kind == "repl"]
    factory = sessions if sessions is not None else repl_session_factory(backend, timeout=timeout)
    simulator = is_simulator(backend)
    out: list[ReplCaseResult] = []
    for case in todo:
        differs = versions_differ(case, backend_version)
        reason = file_reason(case)
        if factory is None:
            reason = f"backend {getattr(backend, 'name', '?')!r} does not speak the REPL protocol"
        if reason or factory is None:
            out.append(ReplCaseResult(case, "skipped", reason=reason, version_differs=differs))
        else:
            session = factory()
            try:
                out.append(replay_case(case, session, simulator=simulator, version_differs=differs))
            finally:
                session.close()
        if progress is not None:
            progress(len(out))
    return out
