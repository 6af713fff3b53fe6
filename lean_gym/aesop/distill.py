"""The best static aesop config: one action for every goal, found by coordinate ascent over the heads.

SATP reports a "distilled static config" next to its learned per-goal policy (on Lean, miniF2F-test: 31.6%
against 37.7%). This is that baseline for lean-gym: an agent that chooses per goal has to beat it.
:func:`search_best_static` finds it for a layout and a theorem set; :func:`best_static_action` returns the
action stored with the package (``best_static.json``), so demos and agents use it without searching again.

Example:
    >>> from lean_gym.aesop import best_static_action, layout
    >>> a = best_static_action("satp-v1")
    >>> a.shape == (len(layout("satp-v1").nvec),)
    True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from lean_gym.aesop.layout import Layout

__all__ = ["best_static_action", "best_static_record", "search_best_static"]


@lru_cache(maxsize=1)
def _stored() -> dict[str, Any]:
    text = resources.files("lean_gym.aesop").joinpath("best_static.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def best_static_record(layout_name: str = "satp-v1", theorems: str = "sim") -> dict[str, Any]:
    """The stored search result: ``action``, ``train_success``, ``theorems``, ``split``, ``n``, ``how``.

    Raises:
        KeyError: when nothing is stored for that layout and theorem set (run :func:`search_best_static`).
    """
    key = f"{layout_name}/{theorems}"
    data = _stored()
    if key not in data:
        raise KeyError(
            f"no stored best static config for {key!r}; stored: {sorted(data)}. "
            "Find one with lean_gym.aesop.search_best_static(layout, theorems)."
        )
    record: dict[str, Any] = data[key]
    return record


def best_static_action(layout_name: str = "satp-v1", theorems: str = "sim") -> np.ndarray:
    """The stored best static action for ``layout_name`` on ``theorems`` (a fresh array each call)."""
    return np.asarray(best_static_record(layout_name, theorems)["action"], dtype=np.int64)


def search_best_static(
    layout: Layout,
    success: Callable[[np.ndarray], Sequence[bool]],
    *,
    start: np.ndarray | None = None,
    sweeps: int = 1,
    echo: Callable[[str], None] | None = None,
) -> tuple[np.ndarray, float]:
    """Coordinate ascent over the heads of ``layout``: the static action that proves the most goals.

    Starting from ``start`` (default: the layout's default action, plain aesop), each sweep visits every
    head in order and keeps the level under which ``success`` proves the most goals (ties keep the current
    level), so the result is at least as good as the start on the goals ``success`` checks.

    Args:
        layout: The action layout.
        success: ``action -> per-goal verdicts`` on the goals to optimise for (for instance one
            ``LeanAesop-v0`` step per training theorem).
        start: The first action.
        sweeps: Passes over the heads; the search stops early when a pass changes nothing.
        echo: Progress lines go here when given.

    Returns:
        The action and its success rate on those goals.
    """
    nvec = np.asarray(layout.nvec, dtype=np.int64)
    cur = layout.default_action().copy() if start is None else np.asarray(start, dtype=np.int64).copy()
    memo: dict[bytes, float] = {}

    def score(a: np.ndarray) -> float:
        key = a.tobytes()
        if key not in memo:
            verdicts = list(success(a))
            memo[key] = float(np.mean(verdicts)) if verdicts else 0.0
        return memo[key]

    best = score(cur)
    for sweep in range(sweeps):
        changed = False
        for h in range(len(nvec)):
            for level in range(int(nvec[h])):
                if level == cur[h]:
                    continue
                cand = cur.copy()
                cand[h] = level
                s = score(cand)
                if s > best:
                    best, cur, changed = s, cand, True
            if echo is not None:
                echo(f"sweep {sweep + 1} head {h} ({layout.head_names[h]}): level {cur[h]}, {best:.1%}")
        if not changed:
            break
    return cur, best
