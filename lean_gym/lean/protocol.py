"""Typed requests and responses of the leanprover-community/repl JSON protocol.

The wire format keeps Lean's own camelCase names (``proofState``, ``endPos``, ``allTactics``); the Python
side uses snake_case. Requests are plain ``dict``s on the wire: the builders here produce exactly the
objects the REPL parses (see ``REPL/JSON.lean``), and the parsers turn any response object into frozen
dataclasses without losing fields.

Framing (``REPL/Main.lean``): the REPL reads lines until a line that is blank after trimming, strips
each line's trailing whitespace and joins them with *no separator*. So a request is sent as
``json.dumps(req, ensure_ascii=False) + "\\n\\n"`` on one line (``json.dumps`` escapes raw newlines), and
a response is pretty-printed JSON terminated by a blank line.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from lean_gym.errors import ProtocolError

__all__ = [
    "CommandResponse",
    "ErrorResponse",
    "Message",
    "Position",
    "ResponseStatus",
    "Sorry",
    "Tactic",
    "TacticResponse",
    "classify_response",
    "command_request",
    "encode_request",
    "file_request",
    "parse_response",
    "pickle_env_request",
    "pickle_proof_state_request",
    "tactic_request",
    "unencodable_position",
    "unpickle_env_request",
    "unpickle_proof_state_request",
]

ResponseStatus = Literal["proved", "sorry", "error"]
"""What a REPL response alone says of the code (a timeout or a crash is the process's, not the response's).

Formerly named ``Verdict``; :class:`lean_gym.grading.Verdict` is the grader's judgement."""
Severity = Literal["info", "warning", "error"]


@dataclass(frozen=True)
class Position:
    """A source position: ``line`` is 1-based, ``column`` 0-based in Unicode code points (as Lean counts)."""

    line: int
    column: int

    @classmethod
    def from_json(cls, obj: Mapping[str, Any] | None) -> Position | None:
        """Read it from the REPL's JSON."""
        if obj is None:
            return None
        return cls(int(obj["line"]), int(obj["column"]))

    def to_json(self) -> dict[str, int]:
        """Write it as the REPL's JSON."""
        return {"line": self.line, "column": self.column}


@dataclass(frozen=True)
class Message:
    """One message Lean reported: ``severity`` is ``info``, ``warning`` or ``error``."""

    severity: Severity
    pos: Position
    end_pos: Position | None
    data: str

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Message:
        """Read it from the REPL's JSON."""
        pos = Position.from_json(obj.get("pos")) or Position(0, 0)
        return cls(
            obj.get("severity", "error"), pos, Position.from_json(obj.get("endPos")), str(obj.get("data", ""))
        )

    def to_json(self) -> dict[str, Any]:
        """Write it as the REPL's JSON."""
        return {
            "severity": self.severity,
            "pos": self.pos.to_json(),
            "endPos": self.end_pos.to_json() if self.end_pos else None,
            "data": self.data,
        }

    def shifted(self, lines: int) -> Message:
        """The same message with its line numbers moved by ``lines`` (tactic-mode 0:0 positions stay)."""
        if lines == 0 or self.pos.line == 0:
            return self
        end = Position(self.end_pos.line + lines, self.end_pos.column) if self.end_pos else None
        return Message(self.severity, Position(self.pos.line + lines, self.pos.column), end, self.data)


@dataclass(frozen=True)
class Sorry:
    """A ``sorry`` Lean found: its goal, and a proof state to continue from in tactic mode."""

    goal: str
    proof_state: int | None = None
    pos: Position | None = None
    end_pos: Position | None = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Sorry:
        """Read it from the REPL's JSON."""
        return cls(
            str(obj.get("goal", "")),
            obj.get("proofState"),
            Position.from_json(obj.get("pos")),
            Position.from_json(obj.get("endPos")),
        )

    def shifted(self, lines: int) -> Sorry:
        """The same sorry with its positions moved down by ``lines`` lines."""
        if lines == 0 or self.pos is None:
            return self
        end = Position(self.end_pos.line + lines, self.end_pos.column) if self.end_pos else None
        return Sorry(self.goal, self.proof_state, Position(self.pos.line + lines, self.pos.column), end)


@dataclass(frozen=True)
class Tactic:
    """An ``allTactics`` entry: the tactic text, its goals (one string) and where it stands."""

    tactic: str
    goals: str
    proof_state: int | None
    pos: Position | None
    end_pos: Position | None
    used_constants: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Tactic:
        """Read it from the REPL's JSON."""
        return cls(
            str(obj.get("tactic", "")),
            str(obj.get("goals", "")),
            obj.get("proofState"),
            Position.from_json(obj.get("pos")),
            Position.from_json(obj.get("endPos")),
            tuple(obj.get("usedConstants", ())),
        )


@dataclass(frozen=True)
class CommandResponse:
    """Answer to a command, file or environment (un)pickle request."""

    env: int
    messages: tuple[Message, ...] = ()
    sorries: tuple[Sorry, ...] = ()
    tactics: tuple[Tactic, ...] = ()
    infotree: Any = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class TacticResponse:
    """Answer to a tactic request or a proof-state (un)pickle request."""

    proof_state: int
    goals: tuple[str, ...]
    proof_status: str | None = None
    messages: tuple[Message, ...] = ()
    sorries: tuple[Sorry, ...] = ()
    traces: tuple[str, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


@dataclass(frozen=True)
class ErrorResponse:
    """The top-level ``{"message": ...}`` form (unknown env or proof state, ``Lean error:`` from a tactic)."""

    message: str
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)


Response = CommandResponse | TacticResponse | ErrorResponse


def parse_response(obj: Mapping[str, Any]) -> Response:
    """Turn one response object into its typed form.

    Raises:
        ProtocolError: when ``obj`` matches none of the response shapes.
    """
    if not isinstance(obj, Mapping):
        raise ProtocolError(f"a REPL response must be a JSON object, got {type(obj).__name__}")
    try:
        if "proofState" in obj and "goals" in obj:
            return TacticResponse(
                int(obj["proofState"]),
                tuple(obj["goals"]),
                obj.get("proofStatus"),
                tuple(Message.from_json(m) for m in obj.get("messages", ())),
                tuple(Sorry.from_json(s) for s in obj.get("sorries", ())),
                tuple(str(t) for t in obj.get("traces", ())),
                raw=obj,
            )
        if "env" in obj:
            return CommandResponse(
                int(obj["env"]),
                tuple(Message.from_json(m) for m in obj.get("messages", ())),
                tuple(Sorry.from_json(s) for s in obj.get("sorries", ())),
                tuple(Tactic.from_json(t) for t in obj.get("tactics", ())),
                obj.get("infotree"),
                raw=obj,
            )
        if "message" in obj:
            return ErrorResponse(str(obj["message"]), raw=obj)
    except (KeyError, TypeError, ValueError) as e:
        raise ProtocolError(f"malformed REPL response: {e}: {json.dumps(obj)[:300]}") from e
    raise ProtocolError(f"unrecognised REPL response (keys {sorted(obj)}): {json.dumps(obj)[:300]}")


def classify_response(obj: Mapping[str, Any]) -> ResponseStatus:
    """The verdict of any command or tactic response: ``"proved"``, ``"sorry"`` or ``"error"``.

    The rules, in order (each guards against a trap the real transcripts show):

    * a top-level ``{"message": ...}`` is an error;
    * any ``severity: error`` message is an error, even when ``goals`` is ``[]`` (``invalid_tactic``);
    * in tactic mode, ``proofStatus`` decides: ``Completed`` is proved, ``Incomplete: contains sorry`` is a
      sorry, anything else (open goals, even beside a sorry; metavariables; kernel errors) is an error; a
      tactic response without ``proofStatus`` (REPL versions before it existed) counts only when
      ``goals`` is empty;
    * in command mode, a non-empty ``sorries`` array is a sorry, whatever the warning's wording in that
      Lean version;
    * otherwise a warning ``declaration uses 'sorry'`` (either quoting) is a sorry;
    * info messages never count against a proof.
    """
    resp = parse_response(obj)
    if isinstance(resp, ErrorResponse):
        return "error"
    if any(m.severity == "error" for m in resp.messages):
        return "error"
    if isinstance(resp, TacticResponse):
        status = resp.proof_status
        if status is None:  # REPL versions before proofStatus existed
            if resp.sorries:
                return "sorry"
            return "proved" if not resp.goals else "error"
        if status == "Completed":
            return "sorry" if resp.sorries else "proved"
        if "contains sorry" in status:
            return "sorry"
        return "error"  # open goals (even beside a sorry), metavariables, kernel errors
    if resp.sorries:
        return "sorry"
    if any(m.severity == "warning" and _is_sorry_warning(m.data) for m in resp.messages):
        return "sorry"
    return "proved"


def _is_sorry_warning(text: str) -> bool:
    return "declaration uses `sorry`" in text or "declaration uses 'sorry'" in text


# ---------------------------------------------------------------------------------------------- requests


def command_request(
    cmd: str,
    *,
    env: int | None = None,
    all_tactics: bool = False,
    root_goals: bool = False,
    infotree: str | None = None,
) -> dict[str, Any]:
    """A command request; without ``env`` the REPL starts a fresh environment (imports allowed only then)."""
    req: dict[str, Any] = {"cmd": cmd}
    if env is not None:
        req["env"] = env
    if all_tactics:
        req["allTactics"] = True
    if root_goals:
        req["rootGoals"] = True
    if infotree is not None:
        if infotree not in ("full", "tactics", "original", "substantive"):
            raise ProtocolError(f"infotree must be full, tactics, original or substantive, not {infotree!r}")
        req["infotree"] = infotree
    return req


def file_request(path: str, *, env: int | None = None, all_tactics: bool = False) -> dict[str, Any]:
    """A file request (the REPL reads and elaborates the file at ``path``)."""
    req: dict[str, Any] = {"path": path}
    if env is not None:
        req["env"] = env
    if all_tactics:
        req["allTactics"] = True
    return req


def tactic_request(tactic: str, proof_state: int) -> dict[str, Any]:
    """Run ``tactic`` on proof state ``proof_state``."""
    return {"tactic": tactic, "proofState": proof_state}


def pickle_env_request(path: str, env: int) -> dict[str, Any]:
    """The request that pickles environment ``env`` to ``path``."""
    return {"pickleTo": path, "env": env}


def pickle_proof_state_request(path: str, proof_state: int) -> dict[str, Any]:
    """The request that pickles proof state ``proof_state`` to ``path``."""
    return {"pickleTo": path, "proofState": proof_state}


def unpickle_env_request(path: str) -> dict[str, Any]:
    """The request that unpickles an environment from ``path``."""
    return {"unpickleEnvFrom": path}


def unpickle_proof_state_request(path: str, env: int | None = None) -> dict[str, Any]:
    """The request that unpickles a proof state from ``path`` (into ``env`` when given)."""
    req: dict[str, Any] = {"unpickleProofStateFrom": path}
    if env is not None:
        req["env"] = env
    return req


def unencodable_position(text: str) -> tuple[int, int, str] | None:
    """Where ``text`` stops being valid Unicode: ``(line, column, char)`` of its first lone surrogate.

    Lean's strings hold Unicode scalar values and its source is UTF-8, so a surrogate code point
    (U+D800–U+DFFF, which Python strings can hold) has no Lean reading: the request's UTF-8 cannot encode
    it, and Lean's JSON parser would turn a ``\\ud800`` escape into ``\\0``, another program. ``line`` is
    1-based and ``column`` 0-based in code points, as Lean counts; ``None`` when the text is valid.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        before = text[: e.start]
        line = before.count("\n") + 1
        return line, len(before) - (before.rfind("\n") + 1), text[e.start]
    return None


def encode_request(req: Mapping[str, Any]) -> bytes:
    """The exact bytes to write for one request: one JSON line and a blank line.

    Raises:
        ProtocolError: for a request that is not a JSON object (the real REPL would die on it), or one
            holding text that is not valid Unicode (a lone surrogate: see :func:`unencodable_position`).
            Backends check their code first and give such text an ``error`` verdict instead.
    """
    if not isinstance(req, Mapping) or not req:
        raise ProtocolError("a REPL request must be a non-empty JSON object")
    text = json.dumps(req, ensure_ascii=False)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ProtocolError(
            f"a REPL request must be valid Unicode: lone surrogate U+{ord(text[e.start]):04X} in "
            f"{text[max(0, e.start - 40) : e.start]!r}…; UTF-8 cannot carry it to Lean"
        ) from None
    return data + b"\n\n"


def __getattr__(name: str) -> Any:
    # ``Verdict`` was this Literal's name; it clashed with lean_gym.grading.Verdict (the grader's dataclass).
    if name == "Verdict":
        import warnings

        warnings.warn(
            "lean_gym.lean.protocol.Verdict is deprecated: it is ResponseStatus (lean_gym.grading.Verdict is "
            "the grader's verdict)",
            DeprecationWarning,
            stacklevel=2,
        )
        return ResponseStatus
    raise AttributeError(f"module 'lean_gym.lean.protocol' has no attribute {name!r}")
