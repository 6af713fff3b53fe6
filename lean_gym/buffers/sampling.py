"""Training batches drawn from a buffer: rows (for policy-gradient style losses) or pairs (for DPO style)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Batch", "PairBatch", "make_rng"]


class Batch(NamedTuple):
    """A batch of buffer rows.

    Attributes:
        rows: Row index of each sample in its buffer, ``int64`` ``(B,)``.
        goal: Goal-state text, ``object`` ``(B,)``.
        lemmas: The retrieved lemmas, one per line, ``object`` ``(B,)``.
        actions: Action vectors, ``int64`` ``(B, H)``.
        rewards: ``float64`` ``(B,)`` (+1 proved, -1 not, for LeanAesop data).
        pair_index: Index into the buffer's pair table (``pairs()``, or ``mine_pairs()`` when sampled with
            ``pairs="mined"``) of a pair this row belongs to, -1 when it is in none. A row in several mined
            pairs gets one of them at random (same seed, same choice).
    """

    rows: np.ndarray
    goal: np.ndarray
    lemmas: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    pair_index: np.ndarray


class PairBatch(NamedTuple):
    """A batch of preference pairs.

    Attributes:
        pair_index: Index of each sample in the pair table it was drawn from, ``int64`` ``(B,)``.
        goal: Goal-state text, ``object`` ``(B,)``.
        lemmas: The retrieved lemmas, one per line, ``object`` ``(B,)``.
        chosen_actions: Actions that proved the goal, ``int64`` ``(B, H)``.
        rejected_actions: Actions that did not, ``int64`` ``(B, H)``.
        diff_head: The head each pair differs in, ``int64`` ``(B,)``.
    """

    pair_index: np.ndarray
    goal: np.ndarray
    lemmas: np.ndarray
    chosen_actions: np.ndarray
    rejected_actions: np.ndarray
    diff_head: np.ndarray


def make_rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    """A generator from a seed (same seed, same draws), or the generator itself."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(seed)
