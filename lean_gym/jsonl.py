"""Reading JSON Lines files of objects, with errors that name the file and line."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

__all__ = ["read_jsonl_objects"]


def read_jsonl_objects(path: str | os.PathLike[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield ``(where, row)`` for each non-blank line of a JSONL file, ``where`` being ``"path:line"``.

    Raises:
        ValueError: naming the line, for invalid JSON or a line that is not a JSON object.
    """
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{n}: not valid JSON ({e.msg})") from e
            if not isinstance(row, dict):
                raise ValueError(f"{path}:{n}: expected a JSON object, got {type(row).__name__}")
            yield f"{path}:{n}", row
