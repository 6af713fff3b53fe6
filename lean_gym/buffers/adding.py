"""Adding experiences to a buffer: one row, a write-ahead-log entry, or another buffer's rows.

With ``dedup`` a row whose (goal uuid, action uuid) is already in the buffer is skipped, so a recorder
that replays its log, or two buffers merged, never count an experience twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from lean_gym.buffers._aesop import uuid16
from lean_gym.buffers.columns import _PARSED, _Columns
from lean_gym.buffers.schema import NO_DIFF_HEAD
from lean_gym.errors import BadActionError

__all__: list[str] = []


class _Adding(_Columns):
    """``add``, ``add_entry``, ``contains`` and ``extend`` (dedup by goal and action uuid)."""

    def add(
        self,
        *,
        goal: str,
        reward: float,
        action: Any = None,
        tactic: str | None = None,
        theorem: str = "",
        lemmas: Sequence[str] = (),
        lemma_scores: Sequence[float] = (),
        goal_uuid: str | None = None,
        action_uuid: str | None = None,
        backend: str = "",
        status: str = "",
    ) -> bool:
        """Append one experience (its own record), unless its (goal uuid, action uuid) is already here.

        The row's action vector is the one its tactic text means (``layout.parse(tactic, lemmas)``, computed
        when first needed), which is ``action`` itself unless a head is inert under these lemmas.

        Args:
            goal: The goal state the action was tried on.
            reward: The reward Lean (or the named backend) gave.
            action: The action vector (validated; rendered when ``tactic`` is omitted).
            tactic: The canonical aesop string; rendered from ``action`` when omitted.
            theorem: The theorem the goal comes from.
            lemmas: The retrieved lemmas the action's lemma heads index into.
            lemma_scores: Their scores.
            goal_uuid: Defaults to ``uuid16(goal)``, as SATP computes ``uuid_goal``.
            action_uuid: Defaults to ``uuid16(tactic)``.
            backend: Who gave the verdict (``"sim"``, ``"repl:…"``).
            status: The backend's status.

        Returns:
            ``True`` when the row was added, ``False`` when it was a duplicate (only with ``dedup``).

        Raises:
            BadActionError: Neither ``action`` nor ``tactic`` is given, or ``action`` has the wrong shape or
                values outside the layout.
        """
        vec: np.ndarray | None = None
        if action is not None:
            vec = self._check_action(action)
        if tactic is None:
            if vec is None:
                raise BadActionError("add() needs an action vector or a tactic string (or both)")
            tactic = self.layout.render(vec, list(lemmas))
        gu = goal_uuid or uuid16(goal)
        auuid = action_uuid or uuid16(tactic)
        key = (gu, auuid)
        if self.dedup:
            keys = self._key_set()
            if key in keys:
                return False
            keys.add(key)
        elif self._keys is not None:
            self._keys.add(key)
        ctx = self._context(goal, theorem, lemmas, lemma_scores, gu)
        record = self._next_record()
        # The stored vector is always the one the tactic text means (parsed lazily), so a row reads back the
        # same after a save: e.g. a lemma head on an empty slot renders nothing and parses back as 0.
        self._pending.append((ctx, float(reward), record, NO_DIFF_HEAD, None))
        self._tactic.append(tactic)
        self._auuid.append(auuid)
        self._backend.append(backend)
        self._status.append(status)
        self._touch()
        return True

    def add_entry(self, entry: dict[str, Any]) -> bool:
        """:meth:`add` from a write-ahead-log entry (the dict :meth:`entry` returns)."""
        return self.add(
            goal=entry["goal"],
            reward=float(entry["reward"]),
            action=entry.get("action"),
            tactic=entry.get("tactic"),
            theorem=entry.get("theorem") or "",
            lemmas=entry.get("lemmas") or (),
            lemma_scores=entry.get("lemma_scores") or (),
            goal_uuid=entry.get("goal_uuid"),
            action_uuid=entry.get("action_uuid"),
            backend=entry.get("backend") or "",
            status=entry.get("status") or "",
        )

    def contains(self, goal_uuid: str, action_uuid: str) -> bool:
        """Whether a row with this (goal uuid, action uuid) is in the buffer."""
        return (goal_uuid, action_uuid) in self._key_set()

    def _key_set(self) -> set[tuple[str, str]]:
        if self._keys is None:
            self._flush()
            cu = self._c_uuid
            self._keys = {(cu[c], u) for c, u in zip(self._ctx.tolist(), self._auuid)}
        return self._keys

    def extend(self, other: _Columns) -> int:
        """Append another buffer's rows (records renumbered after ours), skipping duplicates under ``dedup``.

        Returns:
            How many rows were added.
        """
        other._flush()
        self._flush()
        keep = np.ones(len(other), dtype=bool)
        if self.dedup:
            keys = self._key_set()
            for i, key in enumerate(zip(other.goal_uuids, other._auuid)):
                if key in keys:
                    keep[i] = False
                else:
                    keys.add(key)
        idx = np.flatnonzero(keep)
        if idx.size == 0:
            return 0
        ctx_map = np.array(
            [
                self._context(g, t, lem, sc, u)
                for u, g, t, lem, sc in zip(
                    other._c_uuid, other._c_goal, other._c_theorem, other._c_lemmas, other._c_scores
                )
            ],
            dtype=np.int64,
        )
        rec = other._record[idx]
        rec = np.r_[0, np.cumsum(rec[1:] != rec[:-1])] + self._next_record()
        acts = None
        if other._act is not None:
            acts = np.where((other._act_state[idx] == _PARSED)[:, None], other._act[idx], -1).astype(np.int16)
        self._append_columns(
            ctx=ctx_map[other._ctx[idx]],
            reward=other._reward[idx],
            record=rec,
            diff=other._diff[idx],
            tactic=[other._tactic[i] for i in idx.tolist()],
            action_uuid=[other._auuid[i] for i in idx.tolist()],
            backend=[other._backend[i] for i in idx.tolist()],
            status=[other._status[i] for i in idx.tolist()],
            actions=acts,
        )
        return int(idx.size)
