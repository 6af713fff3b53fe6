"""`HistoryBuffer`: a columnar replay buffer of (goal, aesop config) → reward rows, in SATP's schemas.

One *row* is one experience: a goal (with its theorem and retrieved lemmas), an action (the SATP v1 action
vector and its canonical aesop string), and the reward Lean gave it. Rows that came from one public
current-schema row (a success arm and a failure arm of the same goal) share a *record* number, which is how
stored preference pairs survive a round trip.

Example:
    >>> from lean_gym.buffers import HistoryBuffer
    >>> buf = HistoryBuffer.load("satp-buffer.parquet")          # doctest: +SKIP
    >>> len(buf), len(buf.pairs()), len(buf.mine_pairs())         # doctest: +SKIP
    >>> batch = buf.sample(64, seed=0)                            # doctest: +SKIP
    >>> dpo = buf.to_dpo(mined=True)                              # doctest: +SKIP

The class is assembled from one module per idea, each a layer over the one before: the column store
(:mod:`~lean_gym.buffers.columns`), adding rows with dedup (:mod:`~lean_gym.buffers.adding`), preference
pairs and mining (:mod:`~lean_gym.buffers.mining`), sampling (:mod:`~lean_gym.buffers.sampling`), the TRL
exports (:mod:`~lean_gym.buffers.export`) and SATP's schemas on disk (:mod:`~lean_gym.buffers.schema_io`);
the write-ahead log is :mod:`~lean_gym.buffers.wal`.
"""

from __future__ import annotations

from lean_gym.buffers.columns import Row
from lean_gym.buffers.mining import BufferStats
from lean_gym.buffers.schema_io import _SchemaIO, wal_path

__all__ = ["BufferStats", "HistoryBuffer", "Row", "wal_path"]


class HistoryBuffer(_SchemaIO):
    """A columnar replay buffer of LeanAesop experiences that reads and writes SATP's public schemas.

    Args:
        layout: The action layout (a name for ``lean_gym.aesop.layout``, or a layout object), used to parse
            stored aesop strings into action vectors (lazily, the first time vectors are needed) and to
            render recorded actions.
        dedup: Skip :meth:`add` calls whose (goal uuid, action uuid) is already in the buffer.

    Example:
        >>> buf = HistoryBuffer()
        >>> buf.add(goal="⊢ True", action=[0] * 40, reward=1.0)   # doctest: +SKIP
        True
    """
