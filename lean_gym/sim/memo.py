"""Bounded, per-process memo tables for the simulator's pure functions, and the switch that turns them off.

RL asks the simulator the same questions many times (the same goal under thousands of aesop configs, the
same rule tactic on the same goal inside different searches, the same lines of source in every check), and
the simulator's answers are deterministic. The tables here remember them:

* every table is an LRU bounded both by entries and by an estimate of the memory its entries hold;
* every table lives in this process only (nothing is written to disk or shared);
* the caller can switch all of them off: ``LEAN_GYM_SIM_CACHE=0`` in the environment (read at import), the
  :func:`caching` context manager (what ``SimBackend(cache=False)``, ``SimRepl(cache=False)`` and
  ``python -m lean_gym.sim --no-cache`` use), or :func:`set_default`.

Whoever memoises must make the key capture everything the result depends on and replay every effect of the
original call (heartbeats included); ``tests/test_sim_memo.py`` compares verdicts, messages and heartbeats
with and without the tables.

Example:
    >>> t = Memo("example", max_entries=2)
    >>> t.put("a", 1); t.put("b", 2); t.put("c", 3)
    >>> t.get("a") is MISS, t.get("c")
    (True, 3)
"""

from __future__ import annotations

import contextlib
import contextvars
import gc
import os
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from typing import Any

__all__ = [
    "MISS",
    "IdentityMemo",
    "Memo",
    "caching",
    "clear_all",
    "clear_request_scoped",
    "enabled",
    "gc_paused",
    "request",
    "request_scoped",
    "set_default",
    "stats",
    "tables",
]


class _Miss:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISS"


MISS: Any = _Miss()
"""What :meth:`Memo.get` returns for a key it does not hold (``None`` can be a memoised value)."""

_DEFAULT = os.environ.get("LEAN_GYM_SIM_CACHE", "1").strip().lower() not in ("0", "false", "no", "off")
_ON: contextvars.ContextVar[bool | None] = contextvars.ContextVar("lean_gym_sim_cache", default=None)
_TABLES: list[Memo] = []


def enabled() -> bool:
    """Whether memo tables are consulted and filled in the current context."""
    on = _ON.get()
    return _DEFAULT if on is None else on


@contextlib.contextmanager
def caching(on: bool | None) -> Iterator[None]:
    """Switch the simulator's memo tables on or off inside the block (the tables keep their entries);
    ``None`` leaves the setting as it is."""
    if on is None:
        yield
        return
    token = _ON.set(bool(on))
    try:
        yield
    finally:
        _ON.reset(token)


def set_default(on: bool) -> None:
    """Switch the memo tables on or off for this process (outside any :func:`caching` block)."""
    global _DEFAULT
    _DEFAULT = bool(on)


_PAUSE_GC = os.environ.get("LEAN_GYM_SIM_PAUSE_GC", "1").strip().lower() not in ("0", "false", "no", "off")


_REQUEST_SCOPED: list[Any] = []


def clear_request_scoped() -> None:
    """Empty the tables that only serve the request in progress (what was computed about its own objects)."""
    for clear in _REQUEST_SCOPED:
        clear()


def request_scoped(clear: Any) -> Any:
    """Register ``clear()`` to run at the end of every simulator request (see :func:`request`)."""
    _REQUEST_SCOPED.append(clear)
    return clear


@contextlib.contextmanager
def request() -> Iterator[None]:
    """One simulator request: the garbage collector paused (:func:`gc_paused`), and the request-scoped
    tables emptied at its end, before the collector looks at what the request left (they hold the request's
    own objects: kept, they would be scanned and moved to the old generation, whose full collections scan
    everything kept)."""
    with gc_paused():
        try:
            yield
        finally:
            clear_request_scoped()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block (one simulator request), if it is running.

    A request allocates a working set (tokens, goals, the aesop search tree) that lives until it ends; a
    collection in the middle would scan it and promote it to the old generation, whose full collections
    then cost most of the simulator's time (measured: 40% of the calibration's). Paused, the working set is
    freed by reference counting when the request ends, and its cycles (the search tree) are collected young
    by the first collection after it. What a request can allocate is bounded by its heartbeat budget and
    its deadline. ``LEAN_GYM_SIM_PAUSE_GC=0`` in the environment leaves the collector alone.
    """
    if not _PAUSE_GC or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class Memo:
    """An LRU memo table bounded by entries and by an estimate of bytes held.

    Args:
        name: Shown by :func:`stats`.
        max_entries: The most entries kept.
        max_bytes: The most (estimated) bytes kept: :meth:`put` takes each entry's estimate.
    """

    __slots__ = ("_data", "bytes", "evictions", "hits", "max_bytes", "max_entries", "misses", "name")

    def __init__(self, name: str, max_entries: int, max_bytes: int = 1 << 62) -> None:
        if max_entries < 1 or max_bytes < 1:
            raise ValueError("a memo table needs room for at least one entry")
        self.name = name
        self.max_entries = int(max_entries)
        self.max_bytes = int(max_bytes)
        self._data: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self.bytes = 0
        self.hits = 0
        self.misses = 0
        self.evictions = 0
        _TABLES.append(self)

    def get(self, key: Hashable) -> Any:
        """The value stored under ``key`` (now the most recently used), or :data:`MISS`."""
        hit = self._data.get(key)
        if hit is None:
            self.misses += 1
            return MISS
        self._data.move_to_end(key)
        self.hits += 1
        return hit[0]

    def put(self, key: Hashable, value: Any, size: int = 64) -> None:
        """Store ``value`` under ``key`` (``size``: its estimated bytes), evicting the least recently used."""
        data = self._data
        old = data.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        if size > self.max_bytes:
            return
        data[key] = (value, size)
        self.bytes += size
        while len(data) > self.max_entries or self.bytes > self.max_bytes:
            _, (_, s) = data.popitem(last=False)
            self.bytes -= s
            self.evictions += 1

    def clear(self) -> None:
        self._data.clear()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._data)


class IdentityMemo:
    """A memo keyed by the identity of an object (which it keeps alive, so the identity is never reused),
    bounded by entries (emptied when full): what was computed about *this* object."""

    __slots__ = ("_data", "max_entries", "name")

    def __init__(self, name: str, max_entries: int, per_request: bool = False) -> None:
        self.name = name
        self.max_entries = int(max_entries)
        self._data: dict[int, tuple[Any, Any]] = {}
        _IDENTITY.append(self)
        if per_request:  # about objects of one request: emptied when it ends (see `request`)
            _REQUEST_SCOPED.append(self.clear)

    def get(self, obj: Any) -> Any:
        """What was stored for ``obj`` (the very object), or :data:`MISS`."""
        hit = self._data.get(id(obj))
        if hit is None or hit[0] is not obj:
            return MISS
        return hit[1]

    def put(self, obj: Any, value: Any) -> None:
        if len(self._data) >= self.max_entries:
            self._data.clear()
        self._data[id(obj)] = (obj, value)

    def clear(self) -> None:
        self._data.clear()

    def __len__(self) -> int:
        return len(self._data)


_IDENTITY: list[IdentityMemo] = []


def tables() -> tuple[Memo, ...]:
    """Every memo table of this process."""
    return tuple(_TABLES)


def clear_all() -> None:
    """Empty every memo table (benchmarks call it to measure cold runs)."""
    for t in _TABLES:
        t.clear()
    for m in _IDENTITY:
        m.clear()


def stats() -> dict[str, dict[str, int]]:
    """``name → {entries, bytes, hits, misses, evictions}`` for every table."""
    return {
        t.name: {
            "entries": len(t),
            "bytes": t.bytes,
            "hits": t.hits,
            "misses": t.misses,
            "evictions": t.evictions,
        }
        for t in _TABLES
    }
