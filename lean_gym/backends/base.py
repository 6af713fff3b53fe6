"""The one interface every environment, grader, benchmark and agent uses to ask Lean for a verdict."""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

from lean_gym.lean.result import STATUSES, CheckResult, Status, result_from_response

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "STATUSES",
    "Backend",
    "BatchMixin",
    "Capabilities",
    "CheckRequest",
    "CheckResult",
    "Status",
    "capabilities_of",
    "is_backend",
    "result_from_response",
]

DEFAULT_TIMEOUT_S = 60.0
"""Wall-clock deadline of one check, in seconds, where neither the caller nor the env sets one.

The environments pass it to every check (their ``timeout`` argument), ``SimBackend`` and ``ReplBackend``
default to it, so no check can run unbounded whatever the submitted text says."""


class CheckRequest(NamedTuple):
    """One check a backend is asked for: Lean source and the header it runs under.

    A tuple, so ``(code, header)`` pairs written before it existed compare equal to it.

    Attributes:
        code: The Lean source to check (positions in the result are relative to it).
        header: The imports, options and opens it runs under (one environment per distinct header).
    """

    code: str
    header: str = ""


@dataclass(frozen=True)
class Capabilities:
    """What a backend declares it can do, so that callers never guess from other attributes.

    Attributes:
        in_process: Checks run in this process under the GIL (threads around it would only add overhead).
        concurrent: ``check_batch`` runs several checks at once.
        tactic_mode: The backend has ``lease(header, affinity)`` for the REPL's tactic mode
            (:class:`~lean_gym.backends.tactic.ProofSession`).
        max_workers: How many checks run at once (1 for the in-process simulator).
        versions: What produced the verdicts, by component (``{"lean": "v4.27.0", "mathlib": …}`` on real
            Lean when known; empty for the simulator, which is no version of Lean).
        messages_follow: The Lean version whose wording the backend's messages are held to, where that is
            not ``versions["lean"]``: the simulator runs no Lean, and its messages follow the pinned version
            (:data:`~lean_gym.lean.versions.DEFAULT_LEAN_VERSION`); ``None``: its Lean version, if known.

    Example:
        >>> from lean_gym.backends import SimBackend
        >>> SimBackend.capabilities.in_process, SimBackend.capabilities.tactic_mode
        (True, True)
    """

    in_process: bool = False
    concurrent: bool = False
    tactic_mode: bool = False
    max_workers: int = 1
    versions: Mapping[str, str] = field(default_factory=dict, hash=False)
    messages_follow: str | None = None


_UNDECLARED = Capabilities()


def capabilities_of(backend: Any) -> Capabilities:
    """The capabilities ``backend`` declares (its ``capabilities`` attribute).

    A backend written before capabilities existed declares none: it gets the conservative defaults
    (not in process, one check at a time), with ``tactic_mode`` when it has a ``lease`` method, the one
    rule tactic mode followed before.
    """
    declared = getattr(backend, "capabilities", None)
    if isinstance(declared, Capabilities):
        return declared
    if callable(getattr(backend, "lease", None)):
        return Capabilities(tactic_mode=True)
    return _UNDECLARED


def is_backend(obj: Any) -> bool:
    """True when ``obj`` has what :class:`Backend` needs (``name``, ``check``, ``check_batch``, ``close``).

    Unlike ``isinstance(obj, Backend)`` on Python 3.11 it reads no property, so it never builds a
    :class:`~lean_gym.backends.LazyBackend`.
    """
    if isinstance(obj, type):
        return False
    for method in ("check", "check_batch", "close"):
        if not callable(inspect.getattr_static(obj, method, None)):
            return False
    return inspect.getattr_static(obj, "name", None) is not None


@runtime_checkable
class Backend(Protocol):
    """Anything that checks Lean source under a header and returns a verdict.

    Real Lean (:class:`~lean_gym.backends.ReplBackend`), the simulator
    (:class:`~lean_gym.backends.SimBackend`) and a Ray cluster implement it. A backend may also declare
    :class:`Capabilities` as ``capabilities`` (see :func:`capabilities_of`); register a new one by name
    with :func:`~lean_gym.backends.register_backend`.

    Example:
        >>> from lean_gym.backends import CheckResult
        >>> class Refuses:  # the smallest backend: every check is an error
        ...     name = "refuses"
        ...     def check(self, code, *, header="", timeout=None):
        ...         return CheckResult("error", backend=self.name)
        ...     def check_batch(self, codes, *, header="", timeout=None):
        ...         return [self.check(c) for c in codes]
        ...     def close(self):
        ...         pass
        >>> isinstance(Refuses(), Backend), is_backend(Refuses())
        (True, True)
    """

    name: str

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        """Check ``code`` in the environment that ``header`` (imports, options, opens) sets up."""
        ...

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        """Check many pieces of code, concurrently where the backend can; results in input order."""
        ...

    def close(self) -> None:
        """Release processes and other resources; the backend is unusable afterwards."""
        ...


class BatchMixin:
    """``check_batch`` on top of ``check``: sequential, or over a thread pool when ``max_workers > 1``."""

    max_workers: int = 1

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        """Check ``code`` under ``header`` (what a subclass implements)."""
        raise NotImplementedError

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        """Check many pieces of code with :meth:`check`; results in input order."""
        headers = [header] * len(codes) if isinstance(header, str) else list(header)
        if len(headers) != len(codes):
            raise ValueError(f"check_batch got {len(codes)} codes but {len(headers)} headers")
        if self.max_workers <= 1 or len(codes) <= 1:
            return [self.check(c, header=h, timeout=timeout) for c, h in zip(codes, headers)]
        with ThreadPoolExecutor(max_workers=min(self.max_workers, len(codes))) as ex:
            futs = [ex.submit(self.check, c, header=h, timeout=timeout) for c, h in zip(codes, headers)]
            return [f.result() for f in futs]
