"""The column store under :class:`~lean_gym.buffers.HistoryBuffer`: interned contexts, row columns, access.

Rows live in numpy columns (reward, record, context id, ``diff_head``, the parsed action vectors) and
lists (tactic, action uuid, backend, status); a row's goal, theorem and lemmas are interned once per
distinct context. Single-row appends wait in a pending list until a read flushes them; every change bumps a
version and clears the derived-value cache that the other parts (mining, sampling) fill.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from lean_gym.buffers._aesop import ActionCodec, resolve_layout, uuid16
from lean_gym.errors import BadActionError, LeanGymError

__all__ = ["Row"]

# Action-vector parse state of a row.
_UNKNOWN, _PARSED, _UNPARSABLE = 0, 1, 2

_B = TypeVar("_B", bound="_Columns")


@dataclass(frozen=True)
class Row:
    """One experience of a buffer.

    Attributes:
        goal_uuid: ``sha256(canonical(goal))[:16]``, or the value the source file stored.
        goal: The Lean goal state (``hyp : T`` lines, then ``⊢ goal``).
        theorem: The theorem the goal comes from (may be empty).
        lemmas: The retrieved lemmas the action's lemma heads index into.
        lemma_scores: Their retrieval scores.
        tactic: The canonical aesop string.
        action_uuid: ``sha256(canonical(tactic))[:16]``, or the value the source file stored.
        reward: +1.0 proved, -1.0 not (legacy files may hold other values).
        action: The action vector, or ``None`` when the tactic does not parse under the buffer's layout.
        record: Rows with the same record came from one public row (a stored success/failure pair).
        diff_head: The ``diff_head`` stored with the record, -1 when none.
        backend: Who gave the verdict (``"sim"``, ``"repl:…"``), empty when unknown (public data).
        status: The backend's status (``proved``, ``error``, ``timeout``…), empty when unknown.
    """

    goal_uuid: str
    goal: str
    theorem: str
    lemmas: tuple[str, ...]
    lemma_scores: tuple[float, ...]
    tactic: str
    action_uuid: str
    reward: float
    action: tuple[int, ...] | None
    record: int
    diff_head: int
    backend: str = ""
    status: str = ""


class _Columns:
    """Storage and read access of a buffer (the base of :class:`~lean_gym.buffers.HistoryBuffer`)."""

    def __init__(self, layout: str | ActionCodec = "satp-v1", *, dedup: bool = True) -> None:
        self._layout_spec = layout
        self._layout: ActionCodec | None = None if isinstance(layout, str) else layout
        self.dedup = dedup
        #: Public rows skipped on load because they carried no arm at all.
        self.dropped_rows = 0
        # Contexts (interned): goal uuid, goal, theorem, lemmas, scores; lemma-list id for pairing.
        self._c_uuid: list[str] = []
        self._c_goal: list[str] = []
        self._c_theorem: list[str] = []
        self._c_lemmas: list[tuple[str, ...]] = []
        self._c_scores: list[tuple[float, ...]] = []
        self._c_index: dict[tuple[Any, ...], int] = {}
        # Row columns (committed numpy parts + pending single-row appends).
        self._ctx = np.zeros(0, dtype=np.int64)
        self._reward = np.zeros(0, dtype=np.float64)
        self._record = np.zeros(0, dtype=np.int64)
        self._diff = np.zeros(0, dtype=np.int64)
        self._act_state = np.zeros(0, dtype=np.int8)
        self._act: np.ndarray | None = None  # (n, H) int16 once the layout is known
        self._tactic: list[str] = []
        self._auuid: list[str] = []
        self._backend: list[str] = []
        self._status: list[str] = []
        self._pending: list[tuple[int, float, int, int, np.ndarray | None]] = []
        self._keys: set[tuple[str, str]] | None = None
        self._version = 0
        self._cache: dict[str, Any] = {}

    @property
    def layout(self) -> ActionCodec:
        """The action layout (resolved from its name on first use)."""
        if self._layout is None:
            self._layout = resolve_layout(self._layout_spec)
        return self._layout

    @property
    def num_heads(self) -> int:
        """Length of an action vector under the layout (40 for SATP v1)."""
        return len(self.layout.nvec)

    def _context(
        self,
        goal: str,
        theorem: str,
        lemmas: Sequence[str],
        scores: Sequence[float],
        goal_uuid: str | None,
    ) -> int:
        lem = tuple("" if x is None else str(x) for x in lemmas)  # null: an empty slot, not a lemma "None"
        sc = tuple(float(x) for x in scores)
        gu = goal_uuid if goal_uuid else uuid16(goal)
        key = (gu, goal, theorem, lem, sc)
        j = self._c_index.get(key)
        if j is None:
            j = self._c_index[key] = len(self._c_goal)
            self._c_uuid.append(gu)
            self._c_goal.append(goal)
            self._c_theorem.append(theorem)
            self._c_lemmas.append(lem)
            self._c_scores.append(sc)
        return j

    def _append_columns(
        self,
        *,
        ctx: np.ndarray,
        reward: np.ndarray,
        record: np.ndarray,
        diff: np.ndarray,
        tactic: list[str],
        action_uuid: list[str],
        backend: list[str],
        status: list[str],
        actions: np.ndarray | None,
    ) -> None:
        self._flush()
        m = ctx.size
        self._ctx = np.concatenate([self._ctx, ctx.astype(np.int64)])
        self._reward = np.concatenate([self._reward, reward.astype(np.float64)])
        self._record = np.concatenate([self._record, record.astype(np.int64)])
        self._diff = np.concatenate([self._diff, diff.astype(np.int64)])
        if actions is not None and actions.shape[1] == 0:
            actions = None
        if actions is None:
            state = np.full(m, _UNKNOWN, dtype=np.int8)
        else:  # rows given as -1 are parsed from their text when needed
            state = np.where((actions >= 0).all(axis=1), _PARSED, _UNKNOWN).astype(np.int8)
        self._act_state = np.concatenate([self._act_state, state])
        if actions is not None or self._act is not None:
            h = self.num_heads
            block = actions.astype(np.int16) if actions is not None else np.full((m, h), -1, dtype=np.int16)
            base = (
                self._act if self._act is not None else np.full((len(self._act_state) - m, h), -1, np.int16)
            )
            self._act = np.concatenate([base, block])
        self._tactic.extend(tactic)
        self._auuid.extend(action_uuid)
        self._backend.extend(backend)
        self._status.extend(status)
        if self._keys is not None:
            for c, u in zip(ctx.tolist(), action_uuid):
                self._keys.add((self._c_uuid[c], u))
        self._touch()

    def _touch(self) -> None:
        self._version += 1
        self._cache.clear()

    def _flush(self) -> None:
        """Move pending single-row appends into the numpy columns."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        ctx, reward, record, diff, acts = zip(*pending)
        m = len(pending)
        self._ctx = np.concatenate([self._ctx, np.array(ctx, dtype=np.int64)])
        self._reward = np.concatenate([self._reward, np.array(reward, dtype=np.float64)])
        self._record = np.concatenate([self._record, np.array(record, dtype=np.int64)])
        self._diff = np.concatenate([self._diff, np.array(diff, dtype=np.int64)])
        known = np.array([a is not None for a in acts], dtype=bool)
        self._act_state = np.concatenate(
            [self._act_state, np.where(known, _PARSED, _UNKNOWN).astype(np.int8)]
        )
        if known.any() or self._act is not None:
            h = self.num_heads
            block = np.full((m, h), -1, dtype=np.int16)
            for i, a in enumerate(acts):
                if a is not None:
                    block[i] = a
            base = (
                self._act if self._act is not None else np.full((len(self._act_state) - m, h), -1, np.int16)
            )
            self._act = np.concatenate([base, block])

    def _next_record(self) -> int:
        if self._pending:
            return self._pending[-1][2] + 1
        return int(self._record[-1]) + 1 if self._record.size else 0

    def _check_action(self, action: Any) -> np.ndarray:
        vec = np.asarray(action)
        nvec = np.asarray(self.layout.nvec)
        if vec.shape != nvec.shape or not np.issubdtype(vec.dtype, np.integer):
            raise BadActionError(
                f"an action must be an integer vector of shape {nvec.shape}, got {vec.dtype} {vec.shape}"
            )
        if (vec < 0).any() or (vec >= nvec).any():
            bad = np.flatnonzero((vec < 0) | (vec >= nvec)).tolist()
            raise BadActionError(f"action values out of range at heads {bad} (nvec={nvec.tolist()})")
        return vec.astype(np.int16)

    def __len__(self) -> int:
        return len(self._tactic)

    def __iter__(self) -> Iterator[Row]:
        return self.rows()

    def __repr__(self) -> str:
        return f"HistoryBuffer(rows={len(self)}, goals={self.num_goals}, layout={self._layout_spec!r})"

    def rows(self) -> Iterator[Row]:
        """Every row, in order."""
        for i in range(len(self)):
            yield self.row(i)

    def row(self, i: int) -> Row:
        """Row ``i`` as a :class:`Row` (its action parsed if needed)."""
        n = len(self)
        if not -n <= i < n:
            raise IndexError(f"row {i} out of range for {n} rows")
        i %= n
        self._flush()
        c = int(self._ctx[i])
        acts, valid = self._actions()
        return Row(
            goal_uuid=self._c_uuid[c],
            goal=self._c_goal[c],
            theorem=self._c_theorem[c],
            lemmas=self._c_lemmas[c],
            lemma_scores=self._c_scores[c],
            tactic=self._tactic[i],
            action_uuid=self._auuid[i],
            reward=float(self._reward[i]),
            action=tuple(int(x) for x in acts[i]) if valid[i] else None,
            record=int(self._record[i]),
            diff_head=int(self._diff[i]),
            backend=self._backend[i],
            status=self._status[i],
        )

    @property
    def rewards(self) -> np.ndarray:
        """Reward of every row, ``float64`` ``(n,)``."""
        self._flush()
        return self._reward

    @property
    def records(self) -> np.ndarray:
        """Record number of every row, ``int64`` ``(n,)``."""
        self._flush()
        return self._record

    @property
    def actions(self) -> np.ndarray:
        """Action vector of every row, ``int64`` ``(n, H)``; -1 in every head of an unparsable row."""
        return self._actions()[0].astype(np.int64)

    @property
    def valid(self) -> np.ndarray:
        """Whether each row's action vector is known (its tactic parsed under the layout)."""
        return self._actions()[1]

    @property
    def tactics(self) -> list[str]:
        """The canonical aesop string of every row."""
        return self._tactic

    @property
    def action_uuids(self) -> list[str]:
        """The action uuid of every row."""
        return self._auuid

    @property
    def goal_uuids(self) -> list[str]:
        """The goal uuid of every row."""
        self._flush()
        cu = self._c_uuid
        return [cu[c] for c in self._ctx.tolist()]

    @property
    def num_goals(self) -> int:
        """Distinct goal uuids."""
        self._flush()
        return len({self._c_uuid[c] for c in np.unique(self._ctx).tolist()})

    def _actions(self) -> tuple[np.ndarray, np.ndarray]:
        """Parse every row whose action is not known yet; (actions int16 (n, H), valid bool (n,))."""
        self._flush()
        cached = self._cache.get("actions")
        if cached is not None:
            return cached
        n = len(self)
        todo = np.flatnonzero(self._act_state == _UNKNOWN)
        if todo.size or self._act is None:
            h = self.num_heads
            if self._act is None:
                self._act = np.full((n, h), -1, dtype=np.int16)
            layout = self.layout
            # Most aesop strings hold no lemma rule, and then their vector does not depend on the lemma list:
            # parse each distinct string once without lemmas, and again per lemma list only when that fails.
            plain: dict[str, np.ndarray | None] = {}
            with_lemmas: dict[tuple[tuple[str, ...], str], np.ndarray | None] = {}
            for i in todo.tolist():
                text = self._tactic[i]
                if text in plain:
                    vec = plain[text]
                else:
                    vec = plain[text] = self._parse(layout, text, (), h)
                if vec is None:
                    lemmas = self._c_lemmas[int(self._ctx[i])]
                    key = (lemmas, text)
                    if key in with_lemmas:
                        vec = with_lemmas[key]
                    else:
                        vec = with_lemmas[key] = self._parse(layout, text, lemmas, h)
                if vec is None:
                    self._act_state[i] = _UNPARSABLE
                else:
                    self._act[i] = vec
                    self._act_state[i] = _PARSED
        out = (self._act, self._act_state == _PARSED)
        self._cache["actions"] = out
        return out

    @staticmethod
    def _parse(layout: ActionCodec, text: str, lemmas: tuple[str, ...], h: int) -> np.ndarray | None:
        try:
            vec = np.asarray(layout.parse(text, list(lemmas)), dtype=np.int64)
        except (LeanGymError, ValueError):
            return None
        return vec if vec.shape == (h,) else None

    def select(self: _B, indices: Any) -> _B:
        """A new buffer holding the given rows (a boolean mask or indices), records renumbered densely."""
        self._flush()
        idx = np.asarray(indices)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        idx = np.sort(idx.astype(np.int64))
        out = type(self)(self._layout if self._layout is not None else self._layout_spec, dedup=self.dedup)
        out._c_uuid, out._c_goal, out._c_theorem = (
            list(self._c_uuid),
            list(self._c_goal),
            list(self._c_theorem),
        )
        out._c_lemmas, out._c_scores, out._c_index = (
            list(self._c_lemmas),
            list(self._c_scores),
            dict(self._c_index),
        )
        out._ctx = self._ctx[idx]
        out._reward = self._reward[idx]
        rec = self._record[idx]
        out._record = np.r_[0, np.cumsum(rec[1:] != rec[:-1])].astype(np.int64) if rec.size else rec
        out._diff = self._diff[idx]
        out._act_state = self._act_state[idx]
        out._act = self._act[idx] if self._act is not None else None
        il = idx.tolist()
        out._tactic = [self._tactic[i] for i in il]
        out._auuid = [self._auuid[i] for i in il]
        out._backend = [self._backend[i] for i in il]
        out._status = [self._status[i] for i in il]
        return out

    def positives(self: _B) -> _B:
        """The rows with reward > 0 (the successful arms)."""
        return self.select(self.rewards > 0)

    def negatives(self: _B) -> _B:
        """The rows with reward <= 0 (the failing arms)."""
        return self.select(self.rewards <= 0)
