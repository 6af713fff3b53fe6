"""The options ``reset(options=…)`` takes, checked before an episode starts.

A single env takes only the keys in :data:`RESET_OPTIONS` (an env adds its own with ``extra_keys``);
``{"index": i}`` needs an ``int`` in range. Unknown keys get a "did you mean".

Example:
    >>> reset_index({"index": 2}, 5), reset_index(None, 5)
    (2, None)
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from lean_gym.errors import ConfigError

__all__ = ["RESET_OPTIONS", "reset_index"]

#: The keys ``reset(options=…)`` takes in a single env.
RESET_OPTIONS: tuple[str, ...] = ("index",)


def reset_index(
    options: Mapping[str, Any] | None, n_theorems: int, *, extra_keys: Sequence[str] = ()
) -> int | None:
    """The theorem index ``reset(options=…)`` asks for, or ``None`` to let the env choose.

    Args:
        options: The ``options`` given to ``reset``.
        n_theorems: How many theorems the env has.
        extra_keys: Option keys this env takes besides :data:`RESET_OPTIONS` (it checks their values).

    Raises:
        ConfigError: for options that are not a dict, an unknown key (with a "did you mean"), or an index
            that is not an ``int`` (``"3"``, ``2.5`` and ``True`` are refused, never rounded).
        IndexError: for an index outside ``[0, n_theorems)``.
    """
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise ConfigError(f"reset options must be a dict like {{'index': 0}}, got {type(options).__name__}")
    allowed = (*RESET_OPTIONS, *extra_keys)
    for key in options:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            known = ", ".join(repr(k) for k in allowed)
            raise ConfigError(f"unknown reset option {key!r}{hint} (this env takes {known})")
    index = options.get("index")
    if index is None:
        return None
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise ConfigError(f"options['index'] must be an int, got {type(index).__name__} {index!r}")
    if not 0 <= int(index) < n_theorems:
        raise IndexError(f"options['index'] must be in [0, {n_theorems - 1}], got {int(index)}")
    return int(index)
