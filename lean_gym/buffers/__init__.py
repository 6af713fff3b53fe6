"""Replay buffers for LeanAesop.

SATP's public buffer schemas, preference pairs, sampling, TRL exports and crash-safe recording.

Example:
    >>> from lean_gym.buffers import HistoryBuffer
    >>> buf = HistoryBuffer.load("ChristianZ97/NuminaMath-LEAN-satp-buffer")  # doctest: +SKIP
    >>> print(buf.stats().summary())                                          # doctest: +SKIP

See ``docs/buffers.md`` for the recipes.
"""

from __future__ import annotations

from typing import Any

from lean_gym.buffers.export import default_prompt
from lean_gym.buffers.history import BufferStats, HistoryBuffer, Row, wal_path
from lean_gym.buffers.pairs import Pair, PairTable
from lean_gym.buffers.sampling import Batch, PairBatch
from lean_gym.buffers.schema import CURRENT_COLUMNS, LEGACY_COLUMNS, detect_schema
from lean_gym.buffers.wal import WriteAheadLog, read_wal

__all__ = [
    "CURRENT_COLUMNS",
    "LEGACY_COLUMNS",
    "Batch",
    "BufferRecorder",
    "BufferStats",
    "HistoryBuffer",
    "Pair",
    "PairBatch",
    "PairTable",
    "RecordToBuffer",
    "RecordVectorToBuffer",
    "Row",
    "WriteAheadLog",
    "default_prompt",
    "detect_schema",
    "read_wal",
    "wal_path",
]


def __getattr__(name: str) -> Any:
    # The recording wrappers import gymnasium; reading and writing buffers does not need it.
    if name in ("BufferRecorder", "RecordToBuffer", "RecordVectorToBuffer"):
        from lean_gym.buffers import recording

        return getattr(recording, name)
    raise AttributeError(f"module 'lean_gym.buffers' has no attribute {name!r}")
