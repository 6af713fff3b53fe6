"""Signals the decision procedures raise when they stop before reaching a verdict.

They are not verdicts: a caller (the tactic interpreter) turns them into Lean's own failure, usually
``(deterministic) timeout``. They subclass :class:`~lean_gym.errors.LeanGymError` so that one
``except LeanGymError`` still catches everything lean-gym raises.
"""

from __future__ import annotations

from lean_gym.errors import LeanGymError

__all__ = ["ArithBudgetExceeded", "EvalTooExpensive"]


class ArithBudgetExceeded(LeanGymError):
    """A decision procedure used up its work budget before finding a proof or giving up.

    Report it as Lean reports a heartbeat overrun (``(deterministic) timeout``); never as a proof.
    """


class EvalTooExpensive(ArithBudgetExceeded):
    """Exact evaluation of a closed term would build a number too large to be worth computing.

    Example: ``5 ^ 999999``. The size cap is a parameter of the evaluation functions.
    """


class WorkBudget:
    """A count of work steps left; :meth:`spend` raises :class:`ArithBudgetExceeded` once it runs out.

    Subclasses name the procedure (``what``) for the message.
    """

    __slots__ = ("left", "total")
    what = "search"

    def __init__(self, total: int) -> None:
        self.total = total
        self.left = total

    def spend(self, n: int = 1) -> None:
        self.left -= n
        if self.left < 0:
            raise ArithBudgetExceeded(f"{self.what} exceeded its budget of {self.total} steps")
