"""Signals the decision procedures raise when they stop before reaching a verdict.

They are not verdicts: a caller (the tactic interpreter) turns them into Lean's own failure, usually
``(deterministic) timeout``. They subclass :class:`~lean_gym.errors.LeanGymError` so that one
``except LeanGymError`` still catches everything lean-gym raises.
"""

from __future__ import annotations

from lean_gym.errors import LeanGymError

__all__ = ["ArithBudgetExceeded", "EvalTooExpensive", "WorkBudget"]


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

    Subclasses name the procedure (``what``) for the message. It also knows how much of its total the work
    depended on (:attr:`need`, :attr:`exact`): any total of at least ``need`` would have done the same work,
    unless ``exact`` (it ran out, or a decision read how much was left below a cap).
    """

    __slots__ = ("_cap_need", "exact", "left", "total")
    what = "search"

    def __init__(self, total: int) -> None:
        self.total = total
        self.left = total
        self._cap_need = 0
        self.exact = False

    def spend(self, n: int = 1) -> None:
        self.left -= n
        if self.left < 0:
            self.exact = True
            raise ArithBudgetExceeded(f"{self.what} exceeded its budget of {self.total} steps")

    def left_upto(self, cap: int) -> int:
        """What is left, but at most ``cap`` (for a decision that reads it: recorded in :attr:`need`)."""
        if self.left >= cap:
            need = self.total - self.left + cap
            if need > self._cap_need:
                self._cap_need = need
            return cap
        self.exact = True
        return self.left

    @property
    def need(self) -> int:
        """The least total that would have done the same work (when not :attr:`exact`)."""
        spent = self.total - self.left
        return spent if spent > self._cap_need else self._cap_need
