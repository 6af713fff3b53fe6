"""An append-only JSONL write-ahead log: one line per recorded step, durable before the step returns.

Crash model: the recording process may be killed at any instant (``SIGKILL``, OOM, a node going away). Every
entry is written as one ``write`` of ``line + "\\n"`` and flushed to the kernel before the step returns, so a
killed process loses at most the entry it was writing, which shows up as a *torn* last line (no newline, not
valid JSON). ``fsync=True`` also survives a power loss, at one ``fsync`` per step (cheap next to a Lean check).

On open, a torn last line is cut off (a last line that parses but lost its newline is kept and completed), so
appends continue on a clean line boundary. A line that does not parse anywhere else is corruption, not a
crash, and raises.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from lean_gym.buffers.io import dumps_line, fsync_dir, iter_jsonl

__all__ = ["WAL_VERSION", "WriteAheadLog", "read_wal"]

WAL_VERSION = 1


def read_wal(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The entries of a write-ahead log, a torn last line ignored.

    Only an unterminated last line is a torn write (the process died mid-``write``); a complete line that
    does not parse is corruption and is reported, wherever it is.

    Raises:
        LeanGymError: A complete line does not parse.
    """
    return list(iter_jsonl(path, allow_torn_tail=True))


def _repair_tail(path: Path) -> int:
    """Cut a torn last line off ``path`` (or complete one that only lost its newline); return the size."""
    with open(path, "rb+") as f:
        data = f.read()
        if not data or data.endswith(b"\n"):
            return len(data)
        cut = data.rfind(b"\n") + 1
        tail = data[cut:]
        try:
            import json

            complete = isinstance(json.loads(tail), dict)
        except ValueError:
            complete = False
        if complete:
            f.write(b"\n")
            size = len(data) + 1
        else:
            f.truncate(cut)
            size = cut
        f.flush()
        os.fsync(f.fileno())
        return size


class WriteAheadLog:
    """Append JSON entries to a log file, one line each, durably.

    Args:
        path: The log file (created with its folder if missing; a torn tail is repaired).
        fsync: ``fsync`` after every entry (survives power loss); ``False`` only flushes to the kernel
            (survives a killed process, which is what the crash test checks).
    """

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = True) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existed = self.path.exists()
        if existed:
            _repair_tail(self.path)
        self._file = open(self.path, "ab")  # noqa: SIM115 - held open for the log's lifetime
        if not existed:
            fsync_dir(self.path.parent)

    def append(self, entry: dict[str, Any]) -> None:
        """Write one entry as one line; it is in the kernel (and on disk with ``fsync``) on return."""
        self._file.write(dumps_line(entry) + b"\n")
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())

    def clear(self) -> None:
        """Empty the log (after its entries were compacted into the buffer file)."""
        self._file.truncate(0)
        self._file.flush()
        os.fsync(self._file.fileno())

    def remove(self) -> None:
        """Close and delete the log."""
        self.close()
        if self.path.exists():
            self.path.unlink()
            fsync_dir(self.path.parent)

    def close(self) -> None:
        """Close the file (idempotent)."""
        if not self._file.closed:
            self._file.close()

    @property
    def closed(self) -> bool:
        """Whether the log's file is closed."""
        return self._file.closed
