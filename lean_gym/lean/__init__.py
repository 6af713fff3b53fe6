"""Talking to processes that speak the leanprover-community/repl JSON protocol.

:class:`LeanRepl` is one process over pipes; :class:`ReplPool` a header-keyed pool of them; the
protocol types and :func:`classify_response` live in :mod:`lean_gym.lean.protocol`.
"""

from lean_gym.lean.pool import PoolStats, ReplPool
from lean_gym.lean.protocol import (
    CommandResponse,
    ErrorResponse,
    Message,
    Position,
    Sorry,
    TacticResponse,
    classify_response,
    command_request,
    parse_response,
    tactic_request,
)
from lean_gym.lean.repl import LeanRepl
from lean_gym.lean.result import CheckResult, result_from_response

__all__ = [
    "CheckResult",
    "CommandResponse",
    "ErrorResponse",
    "LeanRepl",
    "Message",
    "PoolStats",
    "Position",
    "ReplPool",
    "Sorry",
    "TacticResponse",
    "classify_response",
    "command_request",
    "parse_response",
    "result_from_response",
    "tactic_request",
]
