"""The two kinds of error the buffers raise, built in one place.

A missing optional dependency is a :class:`~lean_gym.errors.MissingDependencyError` (also an
``ImportError``, chained ``from`` the original); a malformed data file is a
:class:`~lean_gym.errors.BufferFormatError` (also a ``ValueError``).
"""

from __future__ import annotations

from typing import Any

from lean_gym.errors import BufferFormatError, LeanGymError, MissingDependencyError

__all__ = ["format_error", "import_optional", "missing_extra"]


def missing_extra(module: str, extra: str, what: str) -> LeanGymError:
    """The error for an optional dependency that is not installed.

    Args:
        module: The module that failed to import, e.g. ``"pyarrow"``.
        extra: The lean-gym extra that brings it, e.g. ``"parquet"``.
        what: What the caller tried to do, e.g. ``"reading Parquet"``.
    """
    return MissingDependencyError(
        f"{what} needs the optional dependency `{module}`, which is not installed; "
        f"install it with `pip install -e '.[{extra}]'` (JSONL files need no extra)"
    )


def import_optional(module: str, extra: str, what: str) -> Any:
    """Import an optional dependency or raise :func:`missing_extra`'s error, chained from the ImportError."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise missing_extra(module, extra, what) from e


def format_error(message: str) -> LeanGymError:
    """The error for a data file or table that does not follow a buffer schema."""
    return BufferFormatError(message)
