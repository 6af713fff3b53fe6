"""Theorem records as the envs and integrations take them: a ``Theorem``, a miniF2F-style dict or a SATP row.

Example:
    >>> [t.name for t in theorem_list(None, None, [{"formal_statement": "theorem a : True := by"}], "prove")]
    ['theorem_0']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lean_gym.data.theorem import Theorem, statement_problem
from lean_gym.errors import ConfigError

__all__ = ["as_theorem", "theorem_list"]


def as_theorem(obj: Theorem | Mapping[str, Any], i: int = 0) -> Theorem:
    """A :class:`~lean_gym.data.Theorem` from a Theorem, a miniF2F-style dict or a SATP-schema row.

    Dicts go through :func:`lean_gym.data.loaders.theorem_from_row` (a missing ``name`` becomes
    ``theorem_{i}``).

    Args:
        obj: The record.
        i: Its position, for error messages and the default name.
    """
    if isinstance(obj, Theorem):
        problem = statement_problem(obj.formal_statement)
        if problem is not None:
            raise ValueError(f"theorems[{i}] ({obj.name}): formal_statement {problem}")
        return obj
    if not isinstance(obj, Mapping):
        raise TypeError(f"theorems[{i}] must be a Theorem or a dict, got {type(obj).__name__}")
    from lean_gym.data.loaders import theorem_from_row

    row = dict(obj)
    if "formal_statement" in row:
        row.setdefault("name", f"theorem_{i}")
    return theorem_from_row(row, where=f"theorems[{i}]", source="theorems")


def theorem_list(
    source: str | None,
    split: str | None,
    theorems: Sequence[Theorem | Mapping[str, Any]] | None,
    task: str,
    default_source: str = "sim",
) -> list[Theorem]:
    """An env's theorem list: ``theorems`` when given, else :func:`lean_gym.data.load_theorems` of ``source``.

    Args:
        source: Where theorems come from (``None``: ``default_source``).
        split: The split to load (``None``: ``"train"``).
        theorems: An explicit list of theorems or dicts, used as given.
        task: What the env does with them, for the error on an empty list (``"play"``, ``"prove"``).
        default_source: The env's own default set (``"sim"``, or ``"satp-minif2f"`` for ``LeanAesop-v0``).

    Raises:
        ConfigError: ``theorems`` together with ``source`` or ``split`` (which would select nothing).
        ValueError: a row that is not one theorem header ending in ``:= by`` (the message names it).
    """
    if theorems is not None:
        if source is not None or split:
            raise ConfigError(
                f"pass theorems=[...] or source=/split=, not both: theorems=[...] is used as given, so "
                f"source={source!r} and split={split!r} would be ignored"
            )
        out = [as_theorem(t, i) for i, t in enumerate(theorems)]
    else:
        from lean_gym.data import load_theorems

        out = list(load_theorems(source or default_source, split=split or "train"))
    if not out:
        raise ValueError(f"no theorems to {task} (source={source!r}, split={split!r}); pass theorems=[...]")
    return out
