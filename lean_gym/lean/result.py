"""The verdict of one check (``CheckResult``), shared by the process layer and every backend."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from lean_gym.lean.protocol import (
    CommandResponse,
    ErrorResponse,
    Message,
    Position,
    Sorry,
    classify_response,
    parse_response,
    unencodable_position,
)

__all__ = [
    "STATUSES",
    "CheckResult",
    "Status",
    "check_arguments",
    "header_env_or_error",
    "invalid_text_result",
    "result_from_response",
]

Status = Literal["proved", "sorry", "error", "timeout", "crashed"]
STATUSES: tuple[Status, ...] = ("proved", "sorry", "error", "timeout", "crashed")


@dataclass(frozen=True)
class CheckResult:
    """What a backend says about one piece of Lean source.

    Attributes:
        status: ``proved`` (no error, no sorry), ``sorry``, ``error`` (Lean rejected it), ``timeout`` (the
            check ran past its time and the process was killed) or ``crashed`` (the process died).
        messages: Lean's messages, positions relative to the ``code`` that was checked.
        sorries: The sorries Lean found (the array, not the warning text).
        elapsed_s: Wall time of the check, seconds.
        backend: Which backend produced the verdict, e.g. ``"sim"`` or ``"repl:lake env repl"``; never
            pass a simulated verdict off as Lean's.
        env: The REPL environment id the code was checked in, when known.
        versions: What produced the verdict, by component (``{"lean": "v4.33.0-rc2", "mathlib": …}``), as
            the backend declares in its :class:`~lean_gym.backends.Capabilities`; empty for the simulator
            (which is no version of Lean) and when unknown.
    """

    status: Status
    messages: tuple[Message, ...] = ()
    sorries: tuple[Sorry, ...] = ()
    elapsed_s: float = 0.0
    backend: str = ""
    env: int | None = None
    raw: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    versions: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def lean_version(self) -> str | None:
        """The Lean release that produced the verdict (``versions["lean"]``), ``None`` when unknown."""
        return self.versions.get("lean") or None

    @property
    def proved(self) -> bool:
        """True when Lean accepted the code with no error and no sorry."""
        return self.status == "proved"

    @property
    def errors(self) -> tuple[Message, ...]:
        """The error messages."""
        return tuple(m for m in self.messages if m.severity == "error")

    def messages_text(self, limit: int = 2000) -> str:
        """Messages as Lean prints them (``line:col: severity: text``), cut to ``limit`` characters."""
        text = "\n".join(f"{m.pos.line}:{m.pos.column}: {m.severity}: {m.data}" for m in self.messages)
        return text if len(text) <= limit else text[: limit - 15] + "\n…[truncated]"

    def to_json(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (what ``lean-gym eval`` and the services write)."""
        return {
            "status": self.status,
            "messages": [m.to_json() for m in self.messages],
            "sorries": [{"goal": s.goal, "pos": s.pos.to_json() if s.pos else None} for s in self.sorries],
            "elapsed_s": self.elapsed_s,
            "backend": self.backend,
            **({"versions": dict(self.versions)} if self.versions else {}),
        }

    def to_wire(self) -> dict[str, Any]:
        """The result as JSON with nothing lost but ``raw`` (what ``lean-gym serve`` sends).

        :meth:`from_wire` reads it back to an equal result: every message and sorry keeps its positions,
        its severity and its proof state, and ``backend`` still names the backend that ran the check.
        """
        return {
            "status": self.status,
            "messages": [m.to_json() for m in self.messages],
            "sorries": [
                {
                    "goal": s.goal,
                    "proofState": s.proof_state,
                    "pos": s.pos.to_json() if s.pos else None,
                    "endPos": s.end_pos.to_json() if s.end_pos else None,
                }
                for s in self.sorries
            ],
            "elapsed_s": self.elapsed_s,
            "backend": self.backend,
            "env": self.env,
        }

    @classmethod
    def from_wire(cls, obj: Mapping[str, Any]) -> CheckResult:
        """The result :meth:`to_wire` wrote.

        Raises:
            ProtocolError: ``obj`` is not a result of that shape (an unknown status, a missing field).
        """
        from lean_gym.errors import ProtocolError

        try:
            status = obj["status"]
            if status not in STATUSES:
                raise ValueError(f"unknown status {status!r}")
            messages = tuple(Message.from_json(m) for m in obj.get("messages") or ())
            sorries = tuple(Sorry.from_json(s) for s in obj.get("sorries") or ())
            env = obj.get("env")
            return cls(
                status,
                messages,
                sorries,
                float(obj.get("elapsed_s") or 0.0),
                str(obj["backend"]),
                None if env is None else int(env),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ProtocolError(f"not a lean-gym check result: {type(e).__name__}: {e}") from None


def result_from_response(
    response: Mapping[str, Any], *, elapsed_s: float, backend: str, line_offset: int = 0
) -> CheckResult:
    """Build a :class:`CheckResult` from one REPL command response.

    Args:
        response: The raw JSON object the REPL returned for the command.
        elapsed_s: Wall time the check took.
        backend: The backend's name.
        line_offset: Added to every message line, to map positions back to the caller's code.
    """
    status = classify_response(response)
    parsed = parse_response(response)
    if isinstance(parsed, ErrorResponse):
        msg = Message("error", Position(1, 0), None, parsed.message)
        return CheckResult("error", (msg,), (), elapsed_s, backend, None, response)
    messages = tuple(m.shifted(line_offset) for m in parsed.messages)
    sorries = tuple(s.shifted(line_offset) for s in parsed.sorries)
    env = parsed.env if isinstance(parsed, CommandResponse) else None
    return CheckResult(status, messages, sorries, elapsed_s, backend, env, response)


def header_env_or_error(response: Mapping[str, Any], *, backend: str) -> int | CheckResult:
    """The env id a header's command response made, or the ``error`` result every check under it gets.

    A header that does not elaborate poisons every check under it, so its messages are reported, each
    marked ``in the header:``.
    """
    result = result_from_response(response, elapsed_s=0.0, backend=backend)
    if result.status != "error" and result.env is not None:
        return result.env
    msgs = tuple(Message(m.severity, m.pos, m.end_pos, f"in the header: {m.data}") for m in result.messages)
    return CheckResult("error", msgs, (), 0.0, backend, None, response)


def invalid_text_result(code: str, header: str, *, backend: str) -> CheckResult | None:
    """The ``error`` verdict for source that is not valid Unicode (a lone surrogate), else ``None``.

    Such text has no Lean reading (see :func:`~lean_gym.lean.protocol.unencodable_position`): it is
    never sent, and every backend gives it this same verdict, with the position of the first bad
    character, instead of raising.
    """
    for where, text in (("", code), ("in the header: ", header)):
        bad = unencodable_position(text)
        if bad is not None:
            line, column, char = bad
            msg = (
                f"{where}invalid source text: lone surrogate U+{ord(char):04X} (not a Unicode character; "
                "Lean source is UTF-8 and cannot hold it). Nothing was sent to Lean."
            )
            pos = Position(line, column) if not where else Position(1, 0)
            return CheckResult("error", (Message("error", pos, None, msg),), (), 0.0, backend)
    return None


def check_arguments(code: object, header: object, timeout: object) -> float | None:
    """The ``timeout`` as a ``float`` (or ``None``); refuses arguments no backend can use, with one clear error.

    Raises:
        ConfigError: ``code`` or ``header`` not a ``str`` (``None`` included), or ``timeout`` not ``None``
            nor a finite number of seconds above 0 (``"5"``, ``nan``, ``inf``, ``0``, ``True``).
    """
    from lean_gym.errors import ConfigError

    if not isinstance(code, str):
        raise ConfigError(f"code must be a str of Lean source, got {type(code).__name__}")
    if not isinstance(header, str):
        raise ConfigError(f"header must be a str (use '' for none), got {type(header).__name__}")
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real):
        raise ConfigError(
            f"timeout must be seconds as a number or None, got {type(timeout).__name__} {timeout!r}"
        )
    if not math.isfinite(float(timeout)) or timeout <= 0:
        raise ConfigError(f"timeout must be a finite number of seconds above 0 or None, got {timeout!r}")
    return float(timeout)
