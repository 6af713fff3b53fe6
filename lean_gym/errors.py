"""The exceptions lean-gym raises.

Lean rejecting a proof is *data* (a verdict in a :class:`~lean_gym.backends.CheckResult`, a reward, an
``info`` entry) and never raises. Only a broken process, a protocol violation or a misuse raises, and
always one of the classes below, so callers can catch :class:`LeanGymError` at one place.
"""

from __future__ import annotations

__all__ = [
    "BadActionError",
    "BufferFormatError",
    "ConfigError",
    "DatasetNotFoundError",
    "DownloadError",
    "LeanGymError",
    "LeanProcessError",
    "LeanTimeoutError",
    "MissingDependencyError",
    "PoolExhaustedError",
    "ProtocolError",
    "ResetNeededError",
    "UnsafeInputError",
    "WorkspaceNotFoundError",
]


class LeanGymError(Exception):
    """Root of every exception raised by lean-gym."""


class LeanProcessError(LeanGymError):
    """A Lean (or REPL-protocol) process died, closed its output or printed something that is not JSON.

    Attributes:
        stderr_tail: The last lines the process wrote to stderr, for diagnosis.
        returncode: The exit status when the process has exited, else ``None``.
    """

    def __init__(self, message: str, *, stderr_tail: str = "", returncode: int | None = None) -> None:
        detail = message
        if returncode is not None:
            detail += f" (exit status {returncode})"
        if stderr_tail.strip():
            detail += f"\n--- last stderr ---\n{stderr_tail.rstrip()}"
        super().__init__(detail)
        self.stderr_tail = stderr_tail
        self.returncode = returncode


class LeanTimeoutError(LeanGymError, TimeoutError):
    """A request took longer than its timeout; the process that ran it has been killed."""


class ProtocolError(LeanGymError):
    """A request or response does not follow the REPL JSON protocol."""


class PoolExhaustedError(LeanGymError):
    """No REPL process became free within the pool's bounded wait."""


class WorkspaceNotFoundError(LeanGymError):
    """No built Lean workspace was found; run ``lean-gym doctor`` to see what is missing."""


class BadActionError(LeanGymError, ValueError):
    """An action does not fit the environment's action space (wrong shape, dtype or range)."""


class ResetNeededError(LeanGymError):
    """``step()`` before ``reset()``, or after the episode ended (terminated or truncated): call ``reset()``.

    Every lean-gym env follows this rule (gymnasium's: an episode that has ended is not stepped again; its
    ``OrderEnforcing`` wrapper raises ``ResetNeeded`` for a step before the first reset).
    """


class UnsafeInputError(LeanGymError, ValueError):
    """Untrusted text asked for something the caller did not allow (kept out of Lean entirely)."""


class ConfigError(LeanGymError, ValueError):
    """An environment, backend or agent was built with arguments that do not fit together."""


class MissingDependencyError(LeanGymError, ImportError):
    """An optional dependency is needed for this feature; the message names the extra to install."""


class BufferFormatError(LeanGymError, ValueError):
    """A replay-buffer file or row does not follow the schema it claims (the message names the row)."""


class DatasetNotFoundError(LeanGymError, FileNotFoundError):
    """A dataset asked for by name is unknown or not downloaded; the message says how to fetch it."""


class DownloadError(LeanGymError):
    """A download failed or its file's hash is not the pinned one; nothing was saved."""
