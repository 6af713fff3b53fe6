"""A difficulty curriculum: start with the easiest theorems, move up when the policy solves them.

Used by ``LeanProof-v0``/``LeanHackable-v0`` with ``curriculum="difficulty"`` (levels from each theorem's
``difficulty``) or any object with the same two methods: ``sample(rng) -> index`` at reset and
``update(index, solved)`` at the end of each episode.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np

__all__ = ["DifficultyCurriculum"]


class DifficultyCurriculum:
    """Sample theorems level by level, promoting when the recent solve rate at the top level is high.

    The unlocked levels are the easiest ``level + 1`` distinct difficulties. A reset draws from the
    highest unlocked level with probability ``focus``, else uniformly from all unlocked theorems (so easier
    ones are rehearsed). After ``window`` episodes at the top level with a solve rate of at least
    ``promote_at``, the next level unlocks.

    Args:
        difficulties: One number per theorem (larger is harder).
        window: Episodes at the top level that decide a promotion.
        promote_at: Solve rate that promotes.
        focus: Probability of drawing from the newest level.
        start_level: Levels unlocked at the start (0: only the easiest).

    Example:
        >>> cur = DifficultyCurriculum([0, 0, 1, 2], window=2, promote_at=0.5)
        >>> rng = np.random.default_rng(0)
        >>> cur.sample(rng) in (0, 1)
        True
        >>> cur.update(0, True); cur.update(1, True); cur.level
        1
    """

    def __init__(
        self,
        difficulties: Sequence[float],
        *,
        window: int = 32,
        promote_at: float = 0.6,
        focus: float = 0.75,
        start_level: int = 0,
    ) -> None:
        if not difficulties:
            raise ValueError("a curriculum needs at least one theorem")
        if window < 1 or not 0.0 < promote_at <= 1.0 or not 0.0 <= focus <= 1.0:
            raise ValueError("need window >= 1, 0 < promote_at <= 1 and 0 <= focus <= 1")
        self.values = sorted(set(float(d) for d in difficulties))
        self.by_level = [[i for i, d in enumerate(difficulties) if float(d) == v] for v in self.values]
        self.level = min(max(int(start_level), 0), len(self.values) - 1)
        self.window = int(window)
        self.promote_at = float(promote_at)
        self.focus = float(focus)
        self._level_of = {i: k for k, idx in enumerate(self.by_level) for i in idx}
        self._recent: deque[bool] = deque(maxlen=self.window)

    @property
    def num_levels(self) -> int:
        """The number of distinct difficulties."""
        return len(self.values)

    def sample(self, rng: np.random.Generator) -> int:
        """A theorem index for the next episode."""
        top = self.by_level[self.level]
        if self.level == 0 or rng.random() < self.focus:
            return int(top[int(rng.integers(len(top)))])
        pool = [i for k in range(self.level + 1) for i in self.by_level[k]]
        return int(pool[int(rng.integers(len(pool)))])

    def update(self, index: int, solved: bool) -> None:
        """Record an episode's outcome; unlocks the next level when the top level is mastered."""
        if self._level_of.get(int(index)) != self.level:
            return
        self._recent.append(bool(solved))
        if (
            len(self._recent) >= self.window
            and sum(self._recent) / len(self._recent) >= self.promote_at
            and self.level < len(self.values) - 1
        ):
            self.level += 1
            self._recent.clear()
