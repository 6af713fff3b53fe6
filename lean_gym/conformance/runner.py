"""Running the corpus's command cases on a backend, and what each outcome means.

A case's outcome compares Lean's recorded verdict with the backend's:

* ``agree``: both accept (no error), or both report an error;
* ``stronger``: Lean reports an error, the backend accepts: **a tactic stronger than Lean's** (the simulator
  must never do this: it would reward a policy for what Lean rejects);
* ``weaker``: Lean accepts, the backend reports an error;
* ``unread``: the simulator cannot read the case (a statement it does not elaborate, syntax outside its
  subset); counted apart, never as agreement or disagreement (only simulator backends have it);
* ``version``: Lean proves, the backend fails, and the record is from another Lean version than the one
  the backend runs (known on both sides): reported per case, not counted as agreement or disagreement (only
  a real Lean backend with a known version has it; the simulator runs no Lean version). A ``stronger`` case
  is never set aside for its version: "never stronger" holds whatever the record's version;
* ``timeout`` / ``crashed``: the backend gave no verdict.

Where both report an error and Lean's text is recorded, the first error's first line and whole text are
compared too, with runs of whitespace collapsed (``#guard_msgs`` compares that way by default). Messages are
held to one Lean version's wording (:func:`message_version`: the one the backend runs, or for the
simulator, which runs none, the pinned version its messages follow). On a case recorded at another known
version the texts are not counted, equal or not (Lean's wording changes between versions; counting only
the equal ones would inflate the figure): :attr:`CaseResult.message_set_aside` says so, and the case's
verdict still counts. A case whose record's version is unknown is counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from lean_gym.backends.base import Backend, capabilities_of
from lean_gym.conformance.corpus import Case
from lean_gym.errors import ConfigError
from lean_gym.lean.result import CheckResult
from lean_gym.lean.versions import parse_version

__all__ = [
    "OUTCOMES",
    "CaseResult",
    "Outcome",
    "first_line",
    "is_simulator",
    "judge",
    "message_version",
    "normalise_message",
    "record_version",
    "run_command_cases",
    "sim_unread_reason",
    "versions_differ",
]

Outcome = Literal["agree", "stronger", "weaker", "unread", "version", "timeout", "crashed"]
OUTCOMES: tuple[Outcome, ...] = ("agree", "stronger", "weaker", "unread", "version", "timeout", "crashed")

_WS = re.compile(r"\s+")


def normalise_message(text: str) -> str:
    """A message with every run of whitespace collapsed to one space (``#guard_msgs``' default)."""
    return _WS.sub(" ", text).strip()


def first_line(text: str) -> str:
    """The first non-blank line of a message, whitespace collapsed."""
    for line in text.splitlines():
        if line.strip():
            return normalise_message(line)
    return ""


@dataclass(frozen=True)
class CaseResult:
    """What one backend said about one case.

    Attributes:
        case: The case.
        outcome: See the module docstring.
        status: The backend's :attr:`~lean_gym.lean.result.CheckResult.status`.
        error: The backend's first error message (empty when it reported none).
        first_line_match: Whether the first lines of Lean's and the backend's first errors are equal
            (``None`` unless both report an error and Lean's text is recorded).
        exact_match: Whether the whole texts are equal, whitespace collapsed (``None`` likewise).
        unread_reason: Why the simulator could not read the case (``unread`` only).
        version_differs: The record is from a known Lean version other than the backend's (``None`` when
            either is unknown).
        message_set_aside: Both report an error and Lean's text is recorded, but the record is from a known
            Lean version other than the one the backend's messages follow: the texts are not counted
            (``first_line_match``/``exact_match`` are ``None``).
    """

    case: Case
    outcome: Outcome
    status: str
    error: str = ""
    first_line_match: bool | None = None
    exact_match: bool | None = None
    unread_reason: str = ""
    version_differs: bool | None = None
    message_set_aside: bool = False

    @property
    def texts_differ(self) -> bool:
        """Both report an error, Lean's text is recorded, and the whole texts differ (counted or set aside)."""
        lean = self.case.lean_errors
        if not lean or self.case.expect != "error" or not self.error:
            return False
        return normalise_message(lean[0]) != normalise_message(self.error)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record (what ``lean-gym selftest --json`` prints per case)."""
        return {
            "id": self.case.id,
            "family": self.case.family,
            "source": self.case.corpus_source,
            "derived": self.case.derived,
            "expect": self.case.expect,
            "outcome": self.outcome,
            "status": self.status,
            "error": self.error,
            "lean_error": self.case.lean_errors[0] if self.case.lean_errors else None,
            "first_line_match": self.first_line_match,
            "exact_match": self.exact_match,
            "unread_reason": self.unread_reason,
            "lean_version": self.case.lean_version,
            "version_differs": self.version_differs,
            "message_set_aside": self.message_set_aside,
        }


def is_simulator(backend: Backend) -> bool:
    """True for the simulator's backends, which may not read a case.

    ``sim``, ``sim-repl``, and either behind ``lean-gym serve`` (a ``RemoteBackend`` named
    ``"sim via http://…"``).
    """
    name = getattr(backend, "name", "")
    if not isinstance(name, str):
        return False
    name = name.split(" via ", 1)[0]
    return name == "sim" or name.startswith("sim-")


def sim_unread_reason(case: Case) -> str:
    """Why the simulator cannot read ``case``, or ``""`` when it reads it.

    It cannot read a statement it does not elaborate, nor a command or term outside its subset.
    """
    from lean_gym.sim.commands import OUTSIDE_SUBSET, run_commands
    from lean_gym.sim.elab import Env
    from lean_gym.sim.memo import request as sim_request

    text = f"{case.header}\n\n{case.code}" if case.header else case.code
    with sim_request():
        out = run_commands(text, Env(), fresh=True)
    if out.unread:
        return out.unread[0].data
    for m in out.messages:
        if m.severity == "error" and OUTSIDE_SUBSET.search(m.data):
            return m.data
    return ""


def record_version(case: Case) -> tuple[str, str | None]:
    """What the record of ``case`` establishes about its Lean version (``FORMAT.md``, ``lean_version``).

    Returns:
        ``("exact", "v4.32.0-rc1")``; ``("before", "v4.23.0-rc2")`` or ``("after", "v4.22.0")``: a bound
        the record's own text sets (a wording Lean changed at that version); ``("unknown", None)``.
    """
    v = case.lean_version
    for kind in ("before", "after"):
        if v.startswith(kind + " "):
            return kind, v.split()[1]
    if not v or v.startswith("unknown"):
        return "unknown", None
    return "exact", v.split()[0]


def versions_differ(case: Case, backend_version: str | None) -> bool | None:
    """Whether the record of ``case`` is from another Lean version than ``backend_version`` (``None``: unknown).

    A record dated by a bound differs when the bound excludes ``backend_version``: ``before v4.23.0-rc2``
    from a backend at v4.23.0-rc2 or later, ``after v4.22.0`` from one at v4.22.0 or earlier.
    """
    if not backend_version:
        return None
    kind, bound = record_version(case)
    if kind == "unknown" or bound is None:
        return None
    if kind == "exact":
        return bound != backend_version
    try:
        ours, theirs = parse_version(backend_version), parse_version(bound)
    except ConfigError:
        return None
    if kind == "before":
        return True if ours >= theirs else None
    return True if ours <= theirs else None


def message_version(backend: Backend) -> str | None:
    """The Lean version whose wording ``backend``'s messages are held to (``None``: unknown).

    The backend's declared :attr:`~lean_gym.backends.Capabilities.messages_follow`, else the Lean version it
    runs; a simulator backend that declares neither (``sim-repl``, the simulator behind ``lean-gym serve``)
    follows the pinned version, as :class:`~lean_gym.backends.SimBackend` declares.
    """
    caps = capabilities_of(backend)
    if caps.messages_follow:
        return caps.messages_follow
    version = caps.versions.get("lean")
    if version:
        return str(version)
    if is_simulator(backend):
        from lean_gym.lean.versions import DEFAULT_LEAN_VERSION

        return DEFAULT_LEAN_VERSION
    return None


def judge(
    case: Case,
    result: CheckResult,
    *,
    unread: Callable[[Case], str] | None = None,
    backend_version: str | None = None,
    messages_follow: str | None = None,
) -> CaseResult:
    """The outcome of one command case, given the backend's result (see the module docstring).

    Args:
        case: The case.
        result: The backend's result on it.
        unread: Why the simulator cannot read a case (simulator backends), or ``None``.
        backend_version: The Lean version the backend runs (verdicts on another version's record that
            differ are ``version``, a stronger one excepted); ``None``: unknown, or the simulator.
        messages_follow: The Lean version the backend's messages are held to (default:
            ``backend_version``); a message recorded at another known version is set aside.
    """
    version_differs = versions_differ(case, backend_version)
    message_differs = versions_differ(case, messages_follow or backend_version)
    error = result.errors[0].data if result.errors else ""
    if result.status in ("timeout", "crashed"):
        return CaseResult(case, result.status, result.status, error, version_differs=version_differs)
    accepted = result.status in ("proved", "sorry")
    lean_errors = case.lean_errors
    fl = ex = None
    set_aside = False
    if not accepted and case.expect == "error" and lean_errors:
        fl = first_line(lean_errors[0]) == first_line(error)
        ex = normalise_message(lean_errors[0]) == normalise_message(error)
    if not accepted and unread is not None and not fl:
        reason = unread(case)
        if reason:
            return CaseResult(case, "unread", result.status, error, unread_reason=reason,
                              version_differs=version_differs)  # fmt: skip
    if fl is not None and message_differs:
        fl = ex = None  # another Lean's wording: not counted, equal or not
        set_aside = True
    if accepted:
        outcome: Outcome = "agree" if case.expect == "ok" else "stronger"
    else:
        outcome = "agree" if case.expect == "error" else "weaker"
    if outcome == "weaker" and version_differs:
        outcome = "version"
    return CaseResult(case, outcome, result.status, error, fl, ex, version_differs=version_differs,
                      message_set_aside=set_aside)  # fmt: skip


def run_command_cases(
    backend: Backend,
    cases: Iterable[Case],
    *,
    timeout: float | None = None,
    batch: int = 64,
    progress: Callable[[int], None] | None = None,
) -> list[CaseResult]:
    """Run the command cases on ``backend`` and judge each (REPL cases are skipped: see the REPL runner).

    Args:
        backend: Any backend; on a simulator backend, cases it cannot read are ``unread``.
        cases: The cases (``kind == "command"`` ones are run).
        timeout: Seconds per check (default: the backend's).
        batch: How many checks go to ``check_batch`` at once.
        progress: Called with the number of cases done after each batch.
    """
    todo = [c for c in cases if c.kind == "command"]
    unread = sim_unread_reason if is_simulator(backend) else None
    version = capabilities_of(backend).versions.get("lean")
    follow = message_version(backend)
    out: list[CaseResult] = []
    for i in range(0, len(todo), batch):
        chunk: Sequence[Case] = todo[i : i + batch]
        results = backend.check_batch(
            [c.code for c in chunk], header=[c.header for c in chunk], timeout=timeout
        )
        out.extend(
            judge(c, r, unread=unread, backend_version=version, messages_follow=follow)
            for c, r in zip(chunk, results)
        )
        if progress is not None:
            progress(len(out))
    return out
