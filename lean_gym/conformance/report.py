"""Figures over judged cases: agreement per family and source, and the cases that disagree."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lean_gym.conformance.runner import OUTCOMES, CaseResult

__all__ = ["Tally", "format_table", "tally", "tally_by"]


@dataclass(frozen=True)
class Tally:
    """Counts of outcomes over a set of cases, and the rates the targets are stated in.

    Attributes:
        counts: Cases per outcome.
        messages: Cases where both report an error and Lean's text is recorded.
        first_line: Of those, the cases whose first lines are equal.
        exact: Of those, the cases whose whole texts are equal.
    """

    counts: dict[str, int]
    messages: int = 0
    first_line: int = 0
    exact: int = 0

    @property
    def total(self) -> int:
        """All cases."""
        return sum(self.counts.values())

    @property
    def read(self) -> int:
        """Cases the backend read (all but ``unread``)."""
        return self.total - self.counts.get("unread", 0)

    @property
    def agreement(self) -> float | None:
        """Agreeing cases over the cases read (``None`` when none was read)."""
        return self.counts.get("agree", 0) / self.read if self.read else None

    @property
    def first_line_rate(self) -> float | None:
        """Equal first lines over the cases with both errors and Lean's text recorded."""
        return self.first_line / self.messages if self.messages else None

    @property
    def exact_rate(self) -> float | None:
        """Equal whole texts over the same cases."""
        return self.exact / self.messages if self.messages else None


def tally(results: Iterable[CaseResult]) -> Tally:
    """The :class:`Tally` of ``results``."""
    counts: Counter[str] = Counter({o: 0 for o in OUTCOMES})
    messages = fl = ex = 0
    for r in results:
        counts[r.outcome] += 1
        if r.first_line_match is not None:
            messages += 1
            fl += r.first_line_match
            ex += bool(r.exact_match)
    return Tally(dict(counts), messages, fl, ex)


def tally_by(results: Iterable[CaseResult], key: Callable[[CaseResult], str]) -> dict[str, Tally]:
    """One :class:`Tally` per value of ``key`` (e.g. the family), in sorted order."""
    groups: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        groups[key(r)].append(r)
    return {k: tally(v) for k, v in sorted(groups.items())}


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def format_table(rows: dict[str, Tally], *, title: str = "family") -> str:
    """A plain-text table: cases, read, agree, stronger, weaker, agreement, message first line and exact."""
    head = f"{title:<22} {'cases':>6} {'read':>6} {'agree':>6} {'strong':>6} {'weak':>6} {'t/o':>4} " \
           f"{'agreement':>9} {'msgs':>5} {'1st line':>8} {'exact':>6}"  # fmt: skip
    lines = [head, "-" * len(head)]
    for name, t in rows.items():
        c = t.counts
        lines.append(
            f"{name:<22} {t.total:>6} {t.read:>6} {c.get('agree', 0):>6} {c.get('stronger', 0):>6} "
            f"{c.get('weaker', 0):>6} {c.get('timeout', 0) + c.get('crashed', 0):>4} {_pct(t.agreement):>9} "
            f"{t.messages:>5} {_pct(t.first_line_rate):>8} {_pct(t.exact_rate):>6}"
        )
    return "\n".join(lines)
