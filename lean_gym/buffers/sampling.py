"""Training batches drawn from a buffer: rows (for policy-gradient style losses) or pairs (for DPO style).

:class:`Batch` and :class:`PairBatch` are what :meth:`~lean_gym.buffers.HistoryBuffer.sample` and
:meth:`~lean_gym.buffers.HistoryBuffer.sample_pairs` return; the sampling itself (uniform, or weighted so that
no goal or outcome dominates) is here too.
"""

from collections.abc import Iterator
from typing import Any, Literal, NamedTuple

import numpy as np

from lean_gym.buffers._errors import format_error
from lean_gym.buffers.mining import _Mining
from lean_gym.buffers.pairs import PairTable

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


class _Sampling(_Mining):
    """``sample``, ``iter_batches`` and ``sample_pairs``."""

    def sample(
        self,
        batch_size: int,
        *,
        seed: int | np.random.Generator | None = None,
        weighted: bool | np.ndarray = False,
        pairs: Literal["stored", "mined"] = "stored",
    ) -> Batch:
        """Draw a batch of rows (with replacement) among those whose action vector is known.

        Args:
            batch_size: Rows per batch.
            seed: An int (same seed, same batch) or a ``numpy`` generator (for a stream of batches; see
                :meth:`iter_batches`).
            weighted: ``False`` for uniform; ``True`` to give every (goal, outcome) the same total weight (so
                goals with many rows, and the majority outcome, do not dominate); or an array of one
                non-negative weight per row.
            pairs: Which pair table ``Batch.pair_index`` refers to.

        Returns:
            A :class:`~lean_gym.buffers.sampling.Batch`.

        Raises:
            LeanGymError: No row has a known action, or ``weighted`` has the wrong length or no positive
                weight.
        """
        rng = make_rng(seed)
        acts, valid = self._actions()
        if "candidates" not in self._cache:
            self._cache["candidates"] = np.flatnonzero(valid)
        candidates = self._cache["candidates"]
        if candidates.size == 0:
            raise format_error("cannot sample: no row of this buffer has a known action vector")
        cdf = self._weights(weighted, candidates)
        if cdf is None:
            rows = candidates[rng.integers(0, candidates.size, size=batch_size)]
        else:  # inverse-CDF draw: O(batch log n) per batch once the CDF is built
            pick = np.searchsorted(cdf, rng.random(batch_size) * cdf[-1], side="right")
            rows = candidates[np.minimum(pick, candidates.size - 1)]
        table = self.pairs() if pairs == "stored" else self.mine_pairs()
        pair_index = self._pair_index_of(rows, table, rng)
        return Batch(
            rows=rows.astype(np.int64),
            goal=self._goal_text(rows),
            lemmas=self._lemma_text(rows),
            actions=acts[rows].astype(np.int64),
            rewards=self._reward[rows].copy(),
            pair_index=pair_index,
        )

    def iter_batches(
        self, batch_size: int, *, seed: int | None = None, num_batches: int | None = None, **kwargs: Any
    ) -> Iterator[Batch]:
        """A stream of :meth:`sample` batches from one generator (same seed, same stream)."""
        rng = make_rng(seed)
        count = 0
        while num_batches is None or count < num_batches:
            yield self.sample(batch_size, seed=rng, **kwargs)
            count += 1

    def sample_pairs(
        self, batch_size: int, *, seed: int | np.random.Generator | None = None, mined: bool = False
    ) -> PairBatch:
        """Draw a batch of preference pairs (with replacement), stored or mined.

        Raises:
            LeanGymError: The pair table is empty.
        """
        rng = make_rng(seed)
        table = self.mine_pairs() if mined else self.pairs()
        if len(table) == 0:
            raise format_error(
                "cannot sample pairs: this buffer has no " + ("mined" if mined else "stored") + " pairs"
            )
        k = rng.integers(0, len(table), size=batch_size)
        acts, _ = self._actions()
        c, r = table.chosen[k], table.rejected[k]
        return PairBatch(
            pair_index=k.astype(np.int64),
            goal=self._goal_text(c),
            lemmas=self._lemma_text(c),
            chosen_actions=acts[c].astype(np.int64),
            rejected_actions=acts[r].astype(np.int64),
            diff_head=table.diff_head[k].copy(),
        )

    def _weights(self, weighted: bool | np.ndarray, candidates: np.ndarray) -> np.ndarray | None:
        """Cumulative sampling weights over ``candidates`` (``None`` for uniform)."""
        if weighted is False:
            return None
        if weighted is True and "weights" in self._cache:
            return self._cache["weights"]
        if weighted is True:
            goal_ids: dict[str, int] = {}
            ctx_goal = np.array([goal_ids.setdefault(u, len(goal_ids)) for u in self._c_uuid], dtype=np.int64)
            groups = ctx_goal[self._ctx[candidates]]
            key = np.stack([groups, (self._reward[candidates] > 0).astype(np.int64)], axis=1)
            _, inverse, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
            w = 1.0 / counts[inverse.reshape(-1)]
        else:
            w_all = np.asarray(weighted, dtype=np.float64)
            if w_all.shape != (len(self),):
                raise format_error(
                    f"weights must have one entry per row ({len(self)}), got shape {w_all.shape}"
                )
            w = w_all[candidates]
            if (w < 0).any() or not np.isfinite(w).all():
                raise format_error("weights must be finite and non-negative")
        cdf = np.cumsum(w)
        if cdf.size == 0 or cdf[-1] <= 0:
            raise format_error("no row to sample has a positive weight")
        if weighted is True:
            self._cache["weights"] = cdf
        return cdf

    def _pair_index_of(self, rows: np.ndarray, table: PairTable, rng: np.random.Generator) -> np.ndarray:
        cache_key = f"members-{id(table.chosen)}"
        if cache_key not in self._cache:
            n = len(self)
            members = np.concatenate([table.chosen, table.rejected])
            ids = np.concatenate([np.arange(len(table)), np.arange(len(table))])
            order = np.argsort(members, kind="stable")
            counts = np.bincount(members, minlength=n)
            self._cache[cache_key] = (ids[order], counts, np.r_[0, np.cumsum(counts)[:-1]], table)
        pair_ids, counts, offsets, _ = self._cache[cache_key]
        c = counts[rows]
        pick = offsets[rows] + np.floor(rng.random(rows.size) * np.maximum(c, 1)).astype(np.int64)
        out = np.full(rows.size, -1, dtype=np.int64)
        has = c > 0
        out[has] = pair_ids[pick[has]]
        return out

    def _goal_text(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty(rows.size, dtype=object)
        out[:] = [self._c_goal[c] for c in self._ctx[rows].tolist()]
        return out

    def _lemma_text(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty(rows.size, dtype=object)
        out[:] = ["\n".join(self._c_lemmas[c]) for c in self._ctx[rows].tolist()]
        return out
