"""Proof-state affinity: which process holds a proof state, and a lease on that process.

A tactic-mode proof state (``proofState`` in the REPL protocol) lives in the memory of the one process
that made it and is lost when that process dies, times out or is recycled. An :class:`Affinity` names the
process (a pool worker and the start of its process, its *generation*); a :class:`Lease` holds the process
for a caller, with its header elaborated, and says whether the affinity asked for still holds. The tactic
layer (:mod:`lean_gym.backends.tactic`) rebuilds lost states; this module only says where they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from lean_gym.lean.result import CheckResult

__all__ = ["Affinity", "Lease"]


@dataclass(frozen=True)
class Affinity:
    """Where proof states live: a worker of a pool and the generation (start count) of its process.

    Two affinities are equal only when they name the same live process: a restart of the worker bumps
    its generation, so states bound to the old generation are known to be gone.
    """

    worker: int
    generation: int


class Lease(Protocol):
    """One REPL-protocol process, held by one caller until the lease ends.

    Attributes:
        affinity: The process this lease holds.
        lost: True when the caller asked for an affinity that no longer holds (the process was restarted,
            recycled or given another header since): every proof state bound to it is gone.
        header_env: The env id of the header's environment (``None`` for an empty header).
        header_error: The header's error result when the header does not elaborate, else ``None``.
        backend: The backend's name, for results.
    """

    affinity: Affinity
    lost: bool
    header_env: int | None
    header_error: CheckResult | None
    backend: str

    def send(self, request: Mapping[str, Any], *, timeout: float | None = None) -> dict[str, Any]:
        """Send one request to the held process and return its raw response.

        Raises:
            LeanTimeoutError: no response in time; the process was killed (its states are gone).
            LeanProcessError: the process died or broke the protocol; it was killed.
        """
        ...
