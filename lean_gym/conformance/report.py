"""Figures over judged cases: agreement per family and source, and the cases that disagree."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lean_gym.conformance.runner import OUTCOMES, CaseResult

__all__ = ["COLUMNS", "Tally", "format_markdown", "format_table", "tally", "tally_by"]


@dataclass(frozen=True)
class Tally:
    """Counts of outcomes over a set of cases, and the rates the targets are stated in.

    Attributes:
        counts: Cases per outcome.
        messages: Cases where both report an error and Lean's text is recorded.
        first_line: Of those, the cases whose first lines are equal.
        exact: Of those, the cases whose whole texts are equal.
        set_aside: Cases where both report an error and Lean's text is recorded, but at another Lean version
            than the one the backend's messages follow: not in ``messages`` (listed by ``--messages``).
    """

    counts: dict[str, int]
    messages: int = 0
    first_line: int = 0
    exact: int = 0
    set_aside: int = 0

    @property
    def total(self) -> int:
        """All cases."""
        return sum(self.counts.values())

    @property
    def read(self) -> int:
        """Cases the backend read and that count: all but ``unread`` and ``version`` (another Lean's record)."""
        return self.total - self.counts.get("unread", 0) - self.counts.get("version", 0)

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
    messages = fl = ex = aside = 0
    for r in results:
        counts[r.outcome] += 1
        aside += r.message_set_aside
        if r.first_line_match is not None:
            messages += 1
            fl += r.first_line_match
            ex += bool(r.exact_match)
    return Tally(dict(counts), messages, fl, ex, aside)


def tally_by(results: Iterable[CaseResult], key: Callable[[CaseResult], str]) -> dict[str, Tally]:
    """One :class:`Tally` per value of ``key`` (e.g. the family), in sorted order."""
    groups: dict[str, list[CaseResult]] = defaultdict(list)
    for r in results:
        groups[key(r)].append(r)
    return {k: tally(v) for k, v in sorted(groups.items())}


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


#: The columns of :func:`format_table` and :func:`format_markdown`, and what each counts.
COLUMNS: tuple[tuple[str, str], ...] = (
    ("cases", "cases in the row"),
    ("read", "cases the backend read and that count (not unread, not from another Lean version)"),
    ("agree", "Lean's verdict and the backend's are the same"),
    ("stronger", "Lean fails, the backend proves (must be 0)"),
    ("weaker", "Lean proves, the backend fails"),
    ("unread", "the simulator cannot read the statement or syntax (counted apart)"),
    (
        "other v.",
        "Lean proves, the backend fails, on a record of another Lean version than the backend's (not counted)",
    ),
    ("t/o", "timeouts and crashes"),
    ("agreement", "agree / read"),
    ("msgs", "both fail and Lean's message is recorded"),
    ("1st line", "of those, the first lines are equal"),
    ("exact", "of those, the whole texts are equal (whitespace collapsed)"),
    (
        "msgs v.",
        "both fail and Lean's message is recorded, at another Lean version than the backend's "
        "messages follow (not counted; listed by --messages)",
    ),
)


def _row(name: str, t: Tally) -> list[str]:
    c = t.counts
    return [
        name, str(t.total), str(t.read), str(c.get("agree", 0)), str(c.get("stronger", 0)),
        str(c.get("weaker", 0)), str(c.get("unread", 0)), str(c.get("version", 0)),
        str(c.get("timeout", 0) + c.get("crashed", 0)), _pct(t.agreement), str(t.messages),
        _pct(t.first_line_rate), _pct(t.exact_rate), str(t.set_aside),
    ]  # fmt: skip


def format_table(rows: dict[str, Tally], *, title: str = "family") -> str:
    """A plain-text table of :data:`COLUMNS`, one row per entry of ``rows``."""
    widths = [22, 6, 6, 6, 8, 6, 6, 8, 4, 9, 5, 8, 6, 7]
    names = [title] + [c for c, _ in COLUMNS]
    head = " ".join(f"{n:<{w}}" if i == 0 else f"{n:>{w}}" for i, (n, w) in enumerate(zip(names, widths)))
    lines = [head, "-" * len(head)]
    for name, t in rows.items():
        cells = _row(name, t)
        lines.append(
            " ".join(f"{v:<{w}}" if i == 0 else f"{v:>{w}}" for i, (v, w) in enumerate(zip(cells, widths)))
        )
    return "\n".join(lines)


def format_markdown(rows: dict[str, Tally], *, title: str = "family") -> str:
    """The same table as :func:`format_table`, in Markdown."""
    names = [title] + [c for c, _ in COLUMNS]
    lines = ["| " + " | ".join(names) + " |", "|" + "|".join(["---"] + ["---:"] * len(COLUMNS)) + "|"]
    lines += ["| " + " | ".join(_row(f"`{name}`" if title == "family" else name, t)) + " |"
              for name, t in rows.items()]  # fmt: skip
    return "\n".join(lines)
