"""Helpers shared by the environments: resolving a backend, reading theorem records, caching verdicts."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from lean_gym.backends.base import Backend, CheckResult
from lean_gym.data.theorem import Theorem

__all__ = ["VerdictCache", "as_theorem", "env_theorems", "resolve_backend"]

_CACHEABLE = ("proved", "sorry", "error")  # Lean's own verdicts; timeouts and crashes are retried


def resolve_backend(backend: str | Backend) -> tuple[Backend, bool]:
    """A backend object and whether the caller owns it (and must close it).

    Args:
        backend: ``"auto"``, ``"sim"``, ``"repl"`` or a :class:`~lean_gym.backends.Backend` instance.
    """
    if isinstance(backend, str):
        from lean_gym.backends import make_backend

        return make_backend(backend), True
    if isinstance(backend, Backend):
        return backend, False
    raise TypeError(
        f"backend must be 'auto', 'sim', 'repl' or a Backend instance, got {type(backend).__name__}"
    )


def as_theorem(obj: Theorem | Mapping[str, Any], i: int = 0) -> Theorem:
    """A :class:`~lean_gym.data.Theorem` from a Theorem, a miniF2F-style dict or a SATP-schema row.

    Dicts go through :func:`lean_gym.data.loaders.theorem_from_row` (a missing ``name`` becomes
    ``theorem_{i}``).

    Args:
        obj: The record.
        i: Its position, for error messages and the default name.
    """
    if isinstance(obj, Theorem):
        return obj
    if not isinstance(obj, Mapping):
        raise TypeError(f"theorems[{i}] must be a Theorem or a dict, got {type(obj).__name__}")
    from lean_gym.data.loaders import theorem_from_row

    row = dict(obj)
    if "formal_statement" in row:
        row.setdefault("name", f"theorem_{i}")
    return theorem_from_row(row, where=f"theorems[{i}]", source="theorems")


def env_theorems(
    source: str | None, split: str, theorems: Sequence[Theorem | Mapping[str, Any]] | None, task: str
) -> list[Theorem]:
    """An env's theorem list: ``theorems`` when given, else :func:`lean_gym.data.load_theorems` of ``source``.

    Args:
        source: Where theorems come from (``None``: ``"sim"``).
        split: The split to load.
        theorems: An explicit list of theorems or dicts (overrides ``source``).
        task: What the env does with them, for the error on an empty list (``"play"``, ``"prove"``).
    """
    if theorems is not None:
        out = [as_theorem(t, i) for i, t in enumerate(theorems)]
    else:
        from lean_gym.data import load_theorems

        out = list(load_theorems(source or "sim", split=split))
    if not out:
        raise ValueError(f"no theorems to {task} (source={source!r}, split={split!r}); pass theorems=[...]")
    return out


class VerdictCache:
    """An LRU of Lean's verdicts keyed by (header, code, timeout); only proved/sorry/error are kept."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._d: OrderedDict[tuple[str, str, float | None], CheckResult] = OrderedDict()

    def get(self, key: tuple[str, str, float | None]) -> CheckResult | None:
        if self.maxsize <= 0:
            return None
        r = self._d.get(key)
        if r is None:
            self.misses += 1
            return None
        self._d.move_to_end(key)
        self.hits += 1
        return r

    def put(self, key: tuple[str, str, float | None], result: CheckResult) -> None:
        if self.maxsize <= 0 or result.status not in _CACHEABLE:
            return
        self._d[key] = result
        self._d.move_to_end(key)
        while len(self._d) > self.maxsize:
            self._d.popitem(last=False)
