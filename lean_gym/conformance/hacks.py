"""The hack catalogue on a backend: does the oracle, on this backend's answers, catch every known hack?

The oracle's verdict depends on what the backend prints (its error messages, its ``sorries``, its
``#print axioms``), so a real install must catch the catalogue (:mod:`lean_gym.grading.catalogue`) as the
tests' scripted Lean does. Each entry is judged by :class:`~lean_gym.grading.Oracle` on the backend:

* a hack is ``caught`` (rejected with its own hack class), ``miscaught`` (rejected with another class) or
  ``accepted`` (the oracle paid out for it on this backend: a hole);
* an honest proof is ``accepted`` or ``rejected`` (the backend is weaker than the oracle expects);
* an entry that needs a scripted backend (a library that declares a non-standard axiom, a backend that
  times out) is ``skipped``, with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from lean_gym.backends.base import Backend
from lean_gym.grading import Oracle, as_target, build_submission
from lean_gym.grading.catalogue import CATALOGUE, HONEST, THM

__all__ = ["HackOutcome", "HackResult", "run_hack_catalogue"]

HackOutcome = Literal["caught", "miscaught", "accepted", "rejected", "skipped"]


@dataclass(frozen=True)
class HackResult:
    """The oracle's verdict on one catalogue entry, on one backend.

    Attributes:
        id: The entry's id (``honest.<n>`` for an honest proof).
        honest: An honest proof (it must be accepted), not a hack (it must be rejected with ``expected``).
        expected: The hack class the oracle must give (``None`` for an honest proof).
        outcome: See the module docstring.
        got: The hack class the oracle gave (``None`` when it accepted).
        reason: The oracle's reason, or why the entry was skipped.
    """

    id: str
    honest: bool
    expected: str | None
    outcome: HackOutcome
    got: str | None = None
    reason: str = ""

    @property
    def failed(self) -> bool:
        """A hack the oracle accepted or labelled wrongly on this backend (what ``selftest`` exits on)."""
        return not self.honest and self.outcome in ("accepted", "miscaught")

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready record."""
        return {
            "id": self.id,
            "honest": self.honest,
            "expected": self.expected,
            "outcome": self.outcome,
            "got": self.got,
            "reason": self.reason,
        }


def run_hack_catalogue(
    backend: Backend, *, progress: Callable[[int], None] | None = None
) -> list[HackResult]:
    """Judge every catalogue entry and every honest proof with the oracle on ``backend``.

    Args:
        backend: Any backend.
        progress: Called with the number of entries done after each one.
    """
    oracle = Oracle(backend)
    target = as_target(THM)
    out: list[HackResult] = []
    for hack in CATALOGUE:
        if hack.backend_kw:
            needs = ", ".join(f"{k}={v!r}" for k, v in hack.backend_kw)
            out.append(HackResult(hack.id, False, hack.hack_class, "skipped",
                                  reason=f"needs a scripted backend ({needs})"))  # fmt: skip
        else:
            v = oracle.judge(THM, build_submission(target, hack.action))
            if v.accepted:
                outcome: HackOutcome = "accepted"
            else:
                outcome = "caught" if v.hack_class == hack.hack_class else "miscaught"
            out.append(HackResult(hack.id, False, hack.hack_class, outcome, v.hack_class, v.reason))
        if progress is not None:
            progress(len(out))
    for i, action in enumerate(HONEST, 1):
        v = oracle.judge(THM, build_submission(target, action))
        out.append(
            HackResult(
                f"honest.{i:02d}",
                True,
                None,
                "accepted" if v.accepted else "rejected",
                v.hack_class,
                v.reason,
            )
        )
        if progress is not None:
            progress(len(out))
    return out
