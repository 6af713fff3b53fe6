"""Writes that survive a crash: a file is either its old or its new content, never half of one."""

from __future__ import annotations

import os
from pathlib import Path

from lean_gym.buffers.io import fsync_dir


def atomic_write(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then an atomic rename.

    The temporary file and the folder are synced before and after the rename, so a crash or a kill at any
    point leaves ``path`` as it was or as it is now.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(path.parent)
    return path
