"""Preference pairs: the stored 1-diff pairs of a buffer, its multi-diff rows, and pair mining.

A *pair* is a (success, failure) of the same goal whose action vectors differ in exactly one head, the
``diff_head``. SATP stored one per row at most (about 4% of rows); :func:`mine_pairs` finds every such pair
among all the rows of a goal.

Imports run one way: ``history`` imports this module, never the reverse. A :class:`PairTable` sees its buffer
only through the small :class:`RowSource` protocol, which :class:`~lean_gym.buffers.HistoryBuffer` satisfies.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

__all__ = ["Pair", "PairTable", "RowSource", "RowView", "mine_pair_indices"]


class RowView(Protocol):
    """The fields of a buffer row a :class:`Pair` is built from (``lean_gym.buffers.Row`` has them)."""

    @property
    def goal_uuid(self) -> str:
        """The goal's uuid."""
        ...

    @property
    def goal(self) -> str:
        """The goal state."""
        ...

    @property
    def theorem(self) -> str:
        """The theorem the goal comes from."""
        ...

    @property
    def lemmas(self) -> tuple[str, ...]:
        """The retrieved lemmas."""
        ...

    @property
    def tactic(self) -> str:
        """The canonical aesop string."""
        ...

    @property
    def action(self) -> tuple[int, ...] | None:
        """The action vector (``None`` when the tactic does not parse)."""
        ...


class RowSource(Protocol):
    """What a :class:`PairTable` needs from its buffer: rows by index and the uuid columns."""

    def row(self, i: int) -> RowView:
        """Row ``i``."""
        ...

    @property
    def goal_uuids(self) -> Sequence[str]:
        """The goal uuid of every row."""
        ...

    @property
    def action_uuids(self) -> Sequence[str]:
        """The action uuid of every row."""
        ...


@dataclass(frozen=True)
class Pair:
    """One preference pair, with the text a trainer needs.

    Attributes:
        goal_uuid: The goal's SATP uuid.
        goal: The goal state.
        theorem: The theorem the goal comes from.
        lemmas: The retrieved lemmas both arms index into.
        chosen: The canonical aesop string that proved the goal.
        rejected: The one that did not.
        chosen_action: ``chosen`` as an action vector.
        rejected_action: ``rejected`` as an action vector.
        diff_head: The head the two actions differ in (0–39 for SATP v1), or -1 when they differ in more.
        num_diff: In how many heads the two actions differ.
        chosen_row: Row index of the success in its buffer.
        rejected_row: Row index of the failure.
    """

    goal_uuid: str
    goal: str
    theorem: str
    lemmas: tuple[str, ...]
    chosen: str
    rejected: str
    chosen_action: tuple[int, ...]
    rejected_action: tuple[int, ...]
    diff_head: int
    num_diff: int
    chosen_row: int
    rejected_row: int


@dataclass(frozen=True)
class PairTable:
    """Pairs of one buffer, as row-index arrays (iterate or index it for :class:`Pair` objects).

    Attributes:
        buffer: The buffer the row indices refer to.
        chosen: Row index of each pair's success, ``int64``.
        rejected: Row index of each pair's failure, ``int64``.
        diff_head: The differing head, or -1 for a pair that differs in more than one head.
        num_diff: How many heads differ.
    """

    buffer: RowSource = field(repr=False, compare=False)
    chosen: np.ndarray
    rejected: np.ndarray
    diff_head: np.ndarray
    num_diff: np.ndarray

    def __len__(self) -> int:
        return int(self.chosen.shape[0])

    def __getitem__(self, i: int) -> Pair:
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"pair index {i} out of range for {n} pairs")
        buf = self.buffer
        c, r = int(self.chosen[i]), int(self.rejected[i])
        row = buf.row(c)
        bad = buf.row(r)
        return Pair(
            goal_uuid=row.goal_uuid,
            goal=row.goal,
            theorem=row.theorem,
            lemmas=row.lemmas,
            chosen=row.tactic,
            rejected=bad.tactic,
            chosen_action=row.action or (),
            rejected_action=bad.action or (),
            diff_head=int(self.diff_head[i]),
            num_diff=int(self.num_diff[i]),
            chosen_row=c,
            rejected_row=r,
        )

    def __iter__(self) -> Iterator[Pair]:
        for i in range(len(self)):
            yield self[i]

    def keys(self) -> set[tuple[str, str, str]]:
        """The (goal uuid, chosen action uuid, rejected action uuid) of every pair, to compare tables."""
        goal_uuids = self.buffer.goal_uuids
        action_uuids = self.buffer.action_uuids
        return {
            (goal_uuids[c], action_uuids[c], action_uuids[r])
            for c, r in zip(self.chosen.tolist(), self.rejected.tolist())
        }

    def head_counts(self, num_heads: int | None = None) -> np.ndarray:
        """How many pairs have each ``diff_head`` (pairs with -1 are not counted)."""
        heads = self.diff_head[self.diff_head >= 0]
        size = num_heads if num_heads is not None else int(heads.max()) + 1 if heads.size else 0
        return np.bincount(heads, minlength=size)


def _void_rows(a: np.ndarray) -> np.ndarray:
    """View each row of a 2-D array as one opaque, comparable value (for ``np.unique``)."""
    a = np.ascontiguousarray(a)
    return a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).reshape(-1)


def mine_pair_indices(
    group: np.ndarray, actions: np.ndarray, success: np.ndarray, valid: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Every (success, failure) of one group whose actions differ in exactly one head.

    Rows with the same (group, action, outcome) count once (the first row stands for them). An action that
    both succeeded and failed in a group is *conflicted* (a flaky verdict) and takes part in no pair.

    How: each row gets a 64-bit hash that is a sum of one random word per (head, value) plus one per group,
    so the hash of a row with head ``h`` masked out is one subtraction away; two rows that agree everywhere
    but ``h`` share that masked hash. Each head then costs one sort of ``n`` integers. Every grouping is
    checked against the actual vectors; on a hash collision (never seen in practice) the exact, slower
    row-sorting method runs instead, so the result is always exact.

    Args:
        group: Group id of every row (lean-gym groups by goal uuid and lemma list), ``int64`` ``(n,)``.
        actions: Action vectors, integer ``(n, H)``.
        success: Whether each row is a success, ``bool`` ``(n,)``.
        valid: Rows to consider (those whose action is known), ``bool`` ``(n,)``.

    Returns:
        ``(chosen_rows, rejected_rows, diff_heads, conflicted)``: row indices of each pair's success and
        failure (ordered by failure, then success), the head they differ in, and how many distinct
        (group, action) were conflicted.
    """
    empty = np.zeros(0, dtype=np.int64)
    rows = np.flatnonzero(valid)
    if rows.size == 0:
        return empty, empty, empty, 0
    act = actions[rows].astype(np.int64)
    g = group[rows].astype(np.int64)
    ok = success[rows].astype(np.int64)
    n_heads = act.shape[1]
    rng = np.random.default_rng(0x5A7B0F)  # fixed: the result never depends on it, only the speed
    raw = rng.integers(0, np.iinfo(np.int64).max, size=(n_heads, int(act.max()) + 1), dtype=np.int64)
    words = raw.astype(np.uint64) * np.uint64(2) + np.uint64(1)
    heads = np.arange(n_heads)
    with np.errstate(over="ignore"):
        ghash = (g.astype(np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        ghash ^= ghash >> np.uint64(29)
        ghash *= np.uint64(0xBF58476D1CE4E5B9)
        full = ghash + words[heads, act].sum(axis=1, dtype=np.uint64)

    # One representative per (group, action, outcome), then drop conflicted (group, action).
    key = full ^ (ok.astype(np.uint64) * np.uint64(0xD6E8FEB86659FD93))
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    rep = first[inverse]
    if not ((act == act[rep]).all() and (g == g[rep]).all() and (ok == ok[rep]).all()):
        return _mine_exact(group, actions, success, valid)
    first.sort()
    rows, act, g, ok, full = rows[first], act[first], g[first], ok[first], full[first]
    _, first2, inv2, counts = np.unique(full, return_index=True, return_inverse=True, return_counts=True)
    rep = first2[inv2.reshape(-1)]
    if not ((act == act[rep]).all() and (g == g[rep]).all()):
        return _mine_exact(group, actions, success, valid)
    conflicted = counts[inv2.reshape(-1)] > 1
    n_conflicted = int((counts > 1).sum())
    keep = ~conflicted
    rows, act, g, ok, full = rows[keep], act[keep], g[keep], ok[keep], full[keep]
    if rows.size == 0:
        return empty, empty, empty, n_conflicted

    chosen_parts: list[np.ndarray] = []
    rejected_parts: list[np.ndarray] = []
    head_parts: list[np.ndarray] = []
    for h in range(n_heads):
        with np.errstate(over="ignore"):
            masked = full - words[h, act[:, h]]
        # One sort key: the masked hash's top 63 bits, then the outcome (failures first in each block).
        key = (masked & ~np.uint64(1)) | ok.astype(np.uint64)
        order = np.argsort(key)
        m_sorted = key[order] >> np.uint64(1)
        ok_sorted = ok[order]
        starts = np.flatnonzero(np.r_[True, m_sorted[1:] != m_sorted[:-1]])
        n_fail = np.add.reduceat(1 - ok_sorted, starts)
        n_succ = np.diff(np.r_[starts, m_sorted.size]) - n_fail
        cross = _cross_blocks(starts, n_fail, n_succ)
        if cross is None:
            continue
        fail, succ = order[cross[0]], order[cross[1]]
        differ = act[succ] != act[fail]
        if not ((differ.sum(axis=1) == 1).all() and differ[:, h].all() and (g[succ] == g[fail]).all()):
            return _mine_exact(group, actions, success, valid)
        chosen_parts.append(rows[succ])
        rejected_parts.append(rows[fail])
        head_parts.append(np.full(succ.size, h, dtype=np.int64))
    return _assemble(chosen_parts, rejected_parts, head_parts, n_conflicted)


def _mine_exact(
    group: np.ndarray, actions: np.ndarray, success: np.ndarray, valid: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """:func:`mine_pair_indices` by sorting whole rows (exact, slower); the fallback on a hash collision."""
    empty = np.zeros(0, dtype=np.int64)
    rows = np.flatnonzero(valid)
    if rows.size == 0:
        return empty, empty, empty, 0
    n_heads = actions.shape[1]
    act = actions[rows].astype(np.int16).view(np.int8)  # bytes of each vector (values may exceed 127)
    g = group[rows].astype(np.int64)
    ok = success[rows].astype(np.int8)
    gbytes = g.view(np.int8).reshape(-1, 8)

    # One representative per (group, action, outcome).
    _, first = np.unique(_void_rows(np.concatenate([gbytes, act, ok[:, None]], axis=1)), return_index=True)
    first.sort()
    rows, act, g, ok, gbytes = rows[first], act[first], g[first], ok[first], gbytes[first]

    # Conflicted (group, action): present with both outcomes.
    ga = _void_rows(np.concatenate([gbytes, act], axis=1))
    _, inverse, counts = np.unique(ga, return_inverse=True, return_counts=True)
    conflicted = counts[inverse.reshape(-1)] > 1
    n_conflicted = int((counts > 1).sum())
    keep = ~conflicted
    rows, act, ok, gbytes = rows[keep], act[keep], ok[keep], gbytes[keep]
    if rows.size == 0:
        return empty, empty, empty, n_conflicted

    chosen_parts: list[np.ndarray] = []
    rejected_parts: list[np.ndarray] = []
    head_parts: list[np.ndarray] = []
    for h in range(n_heads):
        masked = act.copy()
        masked[:, 2 * h : 2 * h + 2] = -1  # both bytes of head h
        key = _void_rows(np.concatenate([gbytes, masked], axis=1))
        _, inv = np.unique(key, return_inverse=True)
        inv = inv.reshape(-1)
        # Sort by (key, outcome): in each key block the failures come first, then the successes.
        order = np.lexsort((ok, inv))
        k_sorted = inv[order]
        ok_sorted = ok[order]
        starts = np.flatnonzero(np.r_[True, k_sorted[1:] != k_sorted[:-1]])
        sizes = np.diff(np.r_[starts, k_sorted.size])
        n_fail = np.add.reduceat(1 - ok_sorted.astype(np.int64), starts)
        n_succ = sizes - n_fail
        cross = _cross_blocks(starts, n_fail, n_succ)
        if cross is None:
            continue
        fail_pos, succ_pos = cross
        chosen_parts.append(rows[order[succ_pos]])
        rejected_parts.append(rows[order[fail_pos]])
        head_parts.append(np.full(succ_pos.size, h, dtype=np.int64))
    return _assemble(chosen_parts, rejected_parts, head_parts, n_conflicted)


def _cross_blocks(
    starts: np.ndarray, n_fail: np.ndarray, n_succ: np.ndarray
) -> tuple[np.ndarray, np.ndarray] | None:
    """Every (failure, success) position pair within each sorted block (failures first, then successes).

    Returns ``(fail_positions, success_positions)``, or ``None`` when no block holds both outcomes.
    """
    both = (n_fail > 0) & (n_succ > 0)
    if not both.any():
        return None
    b_start, b_fail, b_succ = starts[both], n_fail[both], n_succ[both]
    per = b_fail * b_succ
    total = int(per.sum())
    block = np.repeat(np.arange(per.size), per)
    local = np.arange(total) - np.repeat(np.cumsum(per) - per, per)
    fail_pos = b_start[block] + local // b_succ[block]
    succ_pos = b_start[block] + b_fail[block] + local % b_succ[block]
    return fail_pos, succ_pos


def _assemble(
    chosen_parts: list[np.ndarray],
    rejected_parts: list[np.ndarray],
    head_parts: list[np.ndarray],
    n_conflicted: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The per-head pair lists as one result, ordered by failure, then success."""
    if not chosen_parts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, n_conflicted
    chosen = np.concatenate(chosen_parts)
    rejected = np.concatenate(rejected_parts)
    heads = np.concatenate(head_parts)
    order = np.lexsort((chosen, rejected))
    return chosen[order], rejected[order], heads[order], n_conflicted
