"""`HistoryBuffer`: a columnar replay buffer of (goal, aesop config) → reward rows, in SATP's schemas.

One *row* is one experience: a goal (with its theorem and retrieved lemmas), an action (the SATP v1 action
vector and its canonical aesop string), and the reward Lean gave it. Rows that came from one public
current-schema row (a success arm and a failure arm of the same goal) share a *record* number, which is how
stored preference pairs survive a round trip.

Example:
    >>> from lean_gym.buffers import HistoryBuffer
    >>> buf = HistoryBuffer.load("satp-buffer.parquet")          # doctest: +SKIP
    >>> len(buf), len(buf.pairs()), len(buf.mine_pairs())         # doctest: +SKIP
    >>> batch = buf.sample(64, seed=0)                            # doctest: +SKIP
    >>> dpo = buf.to_dpo(mined=True)                              # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from lean_gym.buffers import io
from lean_gym.buffers._aesop import ActionCodec, resolve_layout, uuid16
from lean_gym.buffers._errors import format_error
from lean_gym.buffers.export import PromptFn, as_hf_dataset, default_prompt
from lean_gym.buffers.pairs import PairTable, mine_pair_indices
from lean_gym.buffers.sampling import Batch, PairBatch, make_rng
from lean_gym.buffers.schema import NO_DIFF_HEAD, SchemaName
from lean_gym.errors import BadActionError, LeanGymError

__all__ = ["BufferStats", "HistoryBuffer", "Row", "wal_path"]

# Action-vector parse state of a row.
_UNKNOWN, _PARSED, _UNPARSABLE = 0, 1, 2


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


@dataclass(frozen=True)
class BufferStats:
    """What a buffer holds, and what pair mining adds.

    Attributes:
        rows: Experiences.
        records: Public rows they came from (a record holds one or two arms).
        goals: Distinct goal uuids.
        positives: Rows with reward > 0.
        negatives: Rows with reward <= 0.
        unparsable: Rows whose tactic does not parse under the layout (left out of pairs and sampling).
        stored_pairs: Records with both arms that differ in exactly one head (``pairs()``).
        multi_diff: Records with both arms that differ in more than one head (``multi_diff_negatives()``).
        diff_head_mismatches: Stored pairs whose stored ``diff_head`` is not the head the layout finds.
        mined_pairs: Pairs :meth:`HistoryBuffer.mine_pairs` finds (the stored ones included).
        new_pairs: Mined pairs that are not stored pairs.
        pair_gain: ``mined_pairs / stored_pairs`` (``inf`` when nothing was stored and something was mined).
        conflicted_actions: (goal, action) seen both proving and failing, left out of mining.
    """

    rows: int
    records: int
    goals: int
    positives: int
    negatives: int
    unparsable: int
    stored_pairs: int
    multi_diff: int
    diff_head_mismatches: int
    mined_pairs: int
    new_pairs: int
    pair_gain: float
    conflicted_actions: int

    def summary(self) -> str:
        """A few lines for a log or a terminal."""
        return (
            f"{self.rows} rows in {self.records} records over {self.goals} goals: "
            f"{self.positives} positive, {self.negatives} negative, {self.unparsable} unparsable\n"
            f"stored 1-diff pairs: {self.stored_pairs} (multi-diff rows: {self.multi_diff}, "
            f"diff_head mismatches: {self.diff_head_mismatches})\n"
            f"mined 1-diff pairs: {self.mined_pairs} ({self.new_pairs} new, x{self.pair_gain:.2f} the stored "
            f"ones; {self.conflicted_actions} conflicted (goal, action) left out)"
        )


def wal_path(path: str | os.PathLike[str]) -> Path:
    """The write-ahead log that goes with a buffer file: ``<path>.wal.jsonl``."""
    p = Path(path)
    return p.with_name(p.name + ".wal.jsonl")


class HistoryBuffer:
    """A columnar replay buffer of LeanAesop experiences that reads and writes SATP's public schemas.

    Args:
        layout: The action layout (a name for ``lean_gym.aesop.layout``, or a layout object), used to parse
            stored aesop strings into action vectors (lazily, the first time vectors are needed) and to
            render recorded actions.
        dedup: Skip :meth:`add` calls whose (goal uuid, action uuid) is already in the buffer.

    Example:
        >>> buf = HistoryBuffer()
        >>> buf.add(goal="⊢ True", action=[0] * 40, reward=1.0)   # doctest: +SKIP
        True
    """

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

    # ------------------------------------------------------------------------------------------ layout
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

    # -------------------------------------------------------------------------------------------- load
    @classmethod
    def load(
        cls,
        source: str | os.PathLike[str],
        *,
        layout: str | ActionCodec = "satp-v1",
        split: str = "train",
        revision: str | None = None,
        include_wal: bool = True,
        recompute_goal_uuids: bool = False,
    ) -> HistoryBuffer:
        """Load a buffer from a Parquet or JSONL file of either public schema, or from the hub by name.

        The schema is detected from the columns. A path that exists (or whose write-ahead log exists) is
        read as a file; anything else is passed to ``datasets.load_dataset``.

        Args:
            source: A ``.parquet``/``.jsonl`` path, or a hub name such as
                ``"ChristianZ97/NuminaMath-LEAN-satp-buffer"``.
            layout: The action layout the arms are parsed with.
            split: Hub split.
            revision: Hub revision (branch, tag or commit).
            include_wal: Also replay ``<path>.wal.jsonl`` (rows a recorder wrote and had not compacted yet,
                e.g. because it was killed); a torn last line is ignored.
            recompute_goal_uuids: Replace the stored goal uuids by ``uuid16(goal)`` (for files whose
                ``uuid`` column is not the SATP goal hash).

        Returns:
            The buffer, rows in file order (the WAL's after the file's).

        Raises:
            LeanGymError: Unknown suffix or schema, malformed file, or a missing optional dependency
                (``pyarrow`` for Parquet: the ``parquet`` extra; ``datasets`` for the hub: the ``hf`` extra).
        """
        buf = cls(layout)
        path = Path(source)
        wal = wal_path(path)
        if path.is_file() or (include_wal and wal.is_file()):
            if path.is_file():
                fmt = io.file_format(path)
                table = io.read_parquet(path) if fmt == "parquet" else io.read_jsonl(path)
                buf._extend_table(table, recompute_goal_uuids=recompute_goal_uuids)
            if include_wal and wal.is_file():
                from lean_gym.buffers.wal import read_wal

                for entry in read_wal(wal):
                    buf.add_entry(entry)
            return buf
        if path.suffix.lower() in io.PARQUET_SUFFIXES + io.JSONL_SUFFIXES:
            raise format_error(f"no buffer file at {os.fspath(source)!r} (and no write-ahead log {wal.name})")
        table = io.read_hub(os.fspath(source), split=split, revision=revision)
        buf._extend_table(table, recompute_goal_uuids=recompute_goal_uuids)
        return buf

    @classmethod
    def from_records(
        cls, records: Sequence[dict[str, Any]], *, layout: str | ActionCodec = "satp-v1"
    ) -> HistoryBuffer:
        """A buffer from public-schema row dicts (either schema, detected from the keys)."""
        buf = cls(layout)
        if records:
            buf._extend_table(io.table_from_records(records))
        return buf

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

    def _extend_table(self, table: io.Table, *, recompute_goal_uuids: bool = False) -> None:
        self._flush()
        ctx_map = np.array(
            [
                self._context(g, t, lem, sc, None if recompute_goal_uuids else u)
                for u, g, t, lem, sc in zip(
                    table.goal_uuid, table.goal, table.theorem, table.lemmas, table.scores
                )
            ],
            dtype=np.int64,
        )
        cols = table.columns
        n = len(table)
        rec_base = int(self._record[-1]) + 1 if self._record.size else 0
        if table.schema == "current":
            arms = [
                (cols["arm_good_action"], cols["uuid_good_action"], 1.0, "good_action"),
                (cols["arm_bad_action"], cols["uuid_bad_action"], -1.0, "bad_action"),
            ]
            diff = np.array(
                [NO_DIFF_HEAD if d is None else int(d) for d in cols["diff_head"]], dtype=np.int64
            )
            row_ids: list[np.ndarray] = []
            role: list[np.ndarray] = []
            rewards: list[np.ndarray] = []
            tactics: list[str] = []
            uuids: list[str] = []
            backends: list[str] = []
            statuses: list[str] = []
            vectors: list[np.ndarray] = []
            for r, (arm, arm_uuid, reward, suffix) in enumerate(arms):
                present = np.flatnonzero(np.array([a is not None for a in arm], dtype=bool))
                vectors.append(self._stored_vectors(table, f"action_{suffix}", present))
                row_ids.append(present)
                role.append(np.full(present.size, r, dtype=np.int64))
                tactics.extend(arm[i] for i in present.tolist())
                uuids.extend(arm_uuid[i] or uuid16(arm[i]) for i in present.tolist())
                rewards.append(np.full(present.size, reward))
                b, s = cols[f"backend_{suffix}"], cols[f"status_{suffix}"]
                backends.extend(b[i] or "" for i in present.tolist())
                statuses.extend(s[i] or "" for i in present.tolist())
            rows = np.concatenate(row_ids)
            order = np.lexsort((np.concatenate(role), rows))
            rows = rows[order]
            tactic_list = [tactics[k] for k in order.tolist()]
            uuid_list = [uuids[k] for k in order.tolist()]
            backend_list = [backends[k] for k in order.tolist()]
            status_list = [statuses[k] for k in order.tolist()]
            reward_arr = np.concatenate(rewards)[order]
            width = max(v.shape[1] for v in vectors)
            action_arr = np.concatenate(
                [v if v.shape[1] == width else np.full((v.shape[0], width), -1, np.int16) for v in vectors]
            )[order]
            has_arm = np.zeros(n, dtype=bool)
            has_arm[rows] = True
            self.dropped_rows += int(n - has_arm.sum())
            # Records numbered densely in file order.
            rec_of_row = np.cumsum(has_arm) - 1 + rec_base
            record = rec_of_row[rows]
            diff_arr = diff[rows]
        else:
            tactic_col = cols["tactic_string"]
            present = np.flatnonzero(np.array([t is not None for t in tactic_col], dtype=bool))
            self.dropped_rows += int(n - present.size)
            rows = present
            tactic_list = [tactic_col[i] for i in rows.tolist()]
            cfg = cols["config_uuid"]
            uuid_list = [cfg[i] or uuid16(tactic_col[i]) for i in rows.tolist()]
            reward_col = cols["reward"]
            reward_arr = np.array([float(reward_col[i] or 0.0) for i in rows.tolist()], dtype=np.float64)
            backend_list = [cols["backend"][i] or "" for i in rows.tolist()]
            status_list = [cols["status"][i] or "" for i in rows.tolist()]
            record = np.arange(rows.size, dtype=np.int64) + rec_base
            diff_arr = np.full(rows.size, NO_DIFF_HEAD, dtype=np.int64)
            action_arr = self._stored_vectors(table, "action", rows)
        self._append_columns(
            ctx=ctx_map[table.ctx[rows]],
            reward=reward_arr,
            record=record,
            diff=diff_arr,
            tactic=tactic_list,
            action_uuid=uuid_list,
            backend=backend_list,
            status=status_list,
            actions=action_arr if (action_arr >= 0).any() else None,
        )

    def _stored_vectors(self, table: io.Table, name: str, rows: np.ndarray) -> np.ndarray:
        """The stored action vectors of ``rows`` (-1 rows where absent, malformed or out of range)."""
        stored = table.actions.get(name)
        if stored is None:
            return np.full((rows.size, 0), -1, dtype=np.int16)
        nvec = np.asarray(self.layout.nvec)
        if stored.shape[1] != nvec.size:
            return np.full((rows.size, 0), -1, dtype=np.int16)
        out = stored[rows]
        bad = ((out < 0) | (out >= nvec)).any(axis=1)
        out[bad] = -1
        return out

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

    # --------------------------------------------------------------------------------------------- add
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

    def extend(self, other: HistoryBuffer) -> int:
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

    # ------------------------------------------------------------------------------------------ access
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

    # ------------------------------------------------------------------------------------------- views
    def select(self, indices: Any) -> HistoryBuffer:
        """A new buffer holding the given rows (a boolean mask or indices), records renumbered densely."""
        self._flush()
        idx = np.asarray(indices)
        if idx.dtype == bool:
            idx = np.flatnonzero(idx)
        idx = np.sort(idx.astype(np.int64))
        out = HistoryBuffer(self._layout if self._layout is not None else self._layout_spec, dedup=self.dedup)
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

    def positives(self) -> HistoryBuffer:
        """The rows with reward > 0 (the successful arms)."""
        return self.select(self.rewards > 0)

    def negatives(self) -> HistoryBuffer:
        """The rows with reward <= 0 (the failing arms)."""
        return self.select(self.rewards <= 0)

    def _stored(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Records with both arms: (good rows, bad rows, num_diff, diff_head); num_diff -1 if unparsable."""
        if "stored" in self._cache:
            return self._cache["stored"]
        self._flush()
        rec = self._record
        first = np.flatnonzero(rec[1:] == rec[:-1])
        second = first + 1
        pos = self._reward > 0
        ok = pos[first] != pos[second]
        first, second = first[ok], second[ok]
        good = np.where(pos[first], first, second)
        bad = np.where(pos[first], second, first)
        acts, valid = self._actions()
        both = valid[good] & valid[bad]
        neq = acts[good] != acts[bad]
        num_diff = np.where(both, neq.sum(axis=1), -1).astype(np.int64)
        diff_head = np.where(num_diff == 1, neq.argmax(axis=1), NO_DIFF_HEAD).astype(np.int64)
        out = (good.astype(np.int64), bad.astype(np.int64), num_diff, diff_head)
        self._cache["stored"] = out
        return out

    def pairs(self) -> PairTable:
        """The stored 1-diff preference pairs: records with a success and a failure differing in one head.

        ``diff_head`` is computed by parsing both arms with the layout (the stored value is kept in
        :attr:`Row.diff_head`; :meth:`stats` counts disagreements).
        """
        if "pairs" not in self._cache:
            good, bad, num_diff, head = self._stored()
            m = num_diff == 1
            self._cache["pairs"] = PairTable(self, good[m], bad[m], head[m], num_diff[m])
        return self._cache["pairs"]

    def multi_diff_negatives(self) -> PairTable:
        """Records with a success and a failure that differ in more than one head (``diff_head`` -1).

        The failure is a negative with a known better sibling, but no single head to blame.
        """
        good, bad, num_diff, head = self._stored()
        m = num_diff > 1
        return PairTable(self, good[m], bad[m], head[m], num_diff[m])

    def _pair_groups(self) -> np.ndarray:
        """Group id per row for mining: same goal uuid *and* same lemma list (lemma heads index into it)."""
        index: dict[tuple[str, tuple[str, ...]], int] = {}
        ctx_group = np.array(
            [index.setdefault((u, lem), len(index)) for u, lem in zip(self._c_uuid, self._c_lemmas)],
            dtype=np.int64,
        )
        return ctx_group[self._ctx] if ctx_group.size else np.zeros(0, dtype=np.int64)

    def _mined(self) -> tuple[PairTable, int]:
        if "mined" not in self._cache:
            acts, valid = self._actions()
            chosen, rejected, heads, conflicted = mine_pair_indices(
                self._pair_groups(), acts, self._reward > 0, valid
            )
            table = PairTable(self, chosen, rejected, heads, np.ones_like(heads))
            self._cache["mined"] = (table, conflicted)
        return self._cache["mined"]

    def mine_pairs(self) -> PairTable:
        """Every (success, failure) of one goal whose actions differ in exactly one head.

        Rows are grouped by goal uuid and lemma list (a lemma head picks a lemma by rank, so two rows with
        different lemma lists do not compare head by head). Repeated (goal, action, outcome) rows count once;
        an action seen both proving and failing a goal is left out. The stored pairs are among the result.

        Returns:
            The mined pairs, ordered by failure row then success row.
        """
        return self._mined()[0]

    def stats(self) -> BufferStats:
        """Counts of rows, pairs and mined pairs (mines if not done yet)."""
        self._flush()
        _, valid = self._actions()
        good, _bad, num_diff, head = self._stored()
        stored = self.pairs()
        mined, conflicted = self._mined()
        stored_diff = self._diff[good]
        mismatch = int(((num_diff == 1) & (stored_diff >= 0) & (stored_diff != head)).sum())
        new = len(mined.keys() - stored.keys())
        gain = len(mined) / len(stored) if len(stored) else (float("inf") if len(mined) else 1.0)
        pos = int((self._reward > 0).sum())
        return BufferStats(
            rows=len(self),
            records=int(np.unique(self._record).size),
            goals=self.num_goals,
            positives=pos,
            negatives=len(self) - pos,
            unparsable=int((~valid).sum()),
            stored_pairs=len(stored),
            multi_diff=int((num_diff > 1).sum()),
            diff_head_mismatches=mismatch,
            mined_pairs=len(mined),
            new_pairs=new,
            pair_gain=gain,
            conflicted_actions=conflicted,
        )

    def verify_goal_uuids(self) -> tuple[int, int]:
        """How many distinct contexts have ``goal_uuid == uuid16(goal)``, out of how many.

        A check of the ``uuid_goal`` inference on real data: on the public current-schema buffer every
        context should match.
        """
        match = sum(u == uuid16(g) for u, g in zip(self._c_uuid, self._c_goal))
        return match, len(self._c_goal)

    # ---------------------------------------------------------------------------------------- sampling
    def sample(
        self,
        batch_size: int,
        *,
        seed: int | np.random.Generator | None = None,
        weighted: bool | np.ndarray = False,
        pairs: Literal["stored", "mined"] = "stored",
    ) -> Batch:
        """Draw a batch of rows (with replacement) among those whose action vector is known.

        Args:
            batch_size: Rows per batch.
            seed: An int (same seed, same batch) or a ``numpy`` generator (for a stream of batches; see
                :meth:`iter_batches`).
            weighted: ``False`` for uniform; ``True`` to give every (goal, outcome) the same total weight (so
                goals with many rows, and the majority outcome, do not dominate); or an array of one
                non-negative weight per row.
            pairs: Which pair table ``Batch.pair_index`` refers to.

        Returns:
            A :class:`~lean_gym.buffers.sampling.Batch`.

        Raises:
            LeanGymError: No row has a known action, or ``weighted`` has the wrong length or no positive
                weight.
        """
        rng = make_rng(seed)
        acts, valid = self._actions()
        if "candidates" not in self._cache:
            self._cache["candidates"] = np.flatnonzero(valid)
        candidates = self._cache["candidates"]
        if candidates.size == 0:
            raise format_error("cannot sample: no row of this buffer has a known action vector")
        cdf = self._weights(weighted, candidates)
        if cdf is None:
            rows = candidates[rng.integers(0, candidates.size, size=batch_size)]
        else:  # inverse-CDF draw: O(batch log n) per batch once the CDF is built
            pick = np.searchsorted(cdf, rng.random(batch_size) * cdf[-1], side="right")
            rows = candidates[np.minimum(pick, candidates.size - 1)]
        table = self.pairs() if pairs == "stored" else self.mine_pairs()
        pair_index = self._pair_index_of(rows, table, rng)
        return Batch(
            rows=rows.astype(np.int64),
            goal=self._goal_text(rows),
            lemmas=self._lemma_text(rows),
            actions=acts[rows].astype(np.int64),
            rewards=self._reward[rows].copy(),
            pair_index=pair_index,
        )

    def iter_batches(
        self, batch_size: int, *, seed: int | None = None, num_batches: int | None = None, **kwargs: Any
    ) -> Iterator[Batch]:
        """A stream of :meth:`sample` batches from one generator (same seed, same stream)."""
        rng = make_rng(seed)
        count = 0
        while num_batches is None or count < num_batches:
            yield self.sample(batch_size, seed=rng, **kwargs)
            count += 1

    def sample_pairs(
        self, batch_size: int, *, seed: int | np.random.Generator | None = None, mined: bool = False
    ) -> PairBatch:
        """Draw a batch of preference pairs (with replacement), stored or mined.

        Raises:
            LeanGymError: The pair table is empty.
        """
        rng = make_rng(seed)
        table = self.mine_pairs() if mined else self.pairs()
        if len(table) == 0:
            raise format_error(
                "cannot sample pairs: this buffer has no " + ("mined" if mined else "stored") + " pairs"
            )
        k = rng.integers(0, len(table), size=batch_size)
        acts, _ = self._actions()
        c, r = table.chosen[k], table.rejected[k]
        return PairBatch(
            pair_index=k.astype(np.int64),
            goal=self._goal_text(c),
            lemmas=self._lemma_text(c),
            chosen_actions=acts[c].astype(np.int64),
            rejected_actions=acts[r].astype(np.int64),
            diff_head=table.diff_head[k].copy(),
        )

    def _weights(self, weighted: bool | np.ndarray, candidates: np.ndarray) -> np.ndarray | None:
        """Cumulative sampling weights over ``candidates`` (``None`` for uniform)."""
        if weighted is False:
            return None
        if weighted is True and "weights" in self._cache:
            return self._cache["weights"]
        if weighted is True:
            goal_ids: dict[str, int] = {}
            ctx_goal = np.array([goal_ids.setdefault(u, len(goal_ids)) for u in self._c_uuid], dtype=np.int64)
            groups = ctx_goal[self._ctx[candidates]]
            key = np.stack([groups, (self._reward[candidates] > 0).astype(np.int64)], axis=1)
            _, inverse, counts = np.unique(key, axis=0, return_inverse=True, return_counts=True)
            w = 1.0 / counts[inverse.reshape(-1)]
        else:
            w_all = np.asarray(weighted, dtype=np.float64)
            if w_all.shape != (len(self),):
                raise format_error(
                    f"weights must have one entry per row ({len(self)}), got shape {w_all.shape}"
                )
            w = w_all[candidates]
            if (w < 0).any() or not np.isfinite(w).all():
                raise format_error("weights must be finite and non-negative")
        cdf = np.cumsum(w)
        if cdf.size == 0 or cdf[-1] <= 0:
            raise format_error("no row to sample has a positive weight")
        if weighted is True:
            self._cache["weights"] = cdf
        return cdf

    def _pair_index_of(self, rows: np.ndarray, table: PairTable, rng: np.random.Generator) -> np.ndarray:
        cache_key = f"members-{id(table.chosen)}"
        if cache_key not in self._cache:
            n = len(self)
            members = np.concatenate([table.chosen, table.rejected])
            ids = np.concatenate([np.arange(len(table)), np.arange(len(table))])
            order = np.argsort(members, kind="stable")
            counts = np.bincount(members, minlength=n)
            self._cache[cache_key] = (ids[order], counts, np.r_[0, np.cumsum(counts)[:-1]], table)
        pair_ids, counts, offsets, _ = self._cache[cache_key]
        c = counts[rows]
        pick = offsets[rows] + np.floor(rng.random(rows.size) * np.maximum(c, 1)).astype(np.int64)
        out = np.full(rows.size, -1, dtype=np.int64)
        has = c > 0
        out[has] = pair_ids[pick[has]]
        return out

    def _goal_text(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty(rows.size, dtype=object)
        out[:] = [self._c_goal[c] for c in self._ctx[rows].tolist()]
        return out

    def _lemma_text(self, rows: np.ndarray) -> np.ndarray:
        out = np.empty(rows.size, dtype=object)
        out[:] = ["\n".join(self._c_lemmas[c]) for c in self._ctx[rows].tolist()]
        return out

    # ----------------------------------------------------------------------------------------- exports
    def to_dpo(
        self,
        *,
        mined: bool = False,
        prompt: PromptFn = default_prompt,
        metadata: bool = False,
        as_dataset: bool = False,
    ) -> Any:
        """A TRL-ready DPO dataset: one ``{"prompt", "chosen", "rejected"}`` per 1-diff pair.

        Args:
            mined: Use :meth:`mine_pairs` instead of the stored :meth:`pairs`.
            prompt: Builds the prompt from (goal, lemmas); :func:`~lean_gym.buffers.export.default_prompt`.
            metadata: Add ``goal_uuid`` and ``diff_head`` to each record.
            as_dataset: Return a ``datasets.Dataset`` (needs the ``hf`` extra) instead of a list of dicts.
        """
        table = self.mine_pairs() if mined else self.pairs()
        out: list[dict[str, Any]] = []
        for c, r, h in zip(table.chosen.tolist(), table.rejected.tolist(), table.diff_head.tolist()):
            ctx = int(self._ctx[c])
            rec: dict[str, Any] = {
                "prompt": prompt(self._c_goal[ctx], self._c_lemmas[ctx]),
                "chosen": self._tactic[c],
                "rejected": self._tactic[r],
            }
            if metadata:
                rec["goal_uuid"] = self._c_uuid[ctx]
                rec["diff_head"] = h
            out.append(rec)
        return as_hf_dataset(out, "to_dpo(as_dataset=True)") if as_dataset else out

    def to_sft(
        self,
        *,
        prompt: PromptFn = default_prompt,
        unique: bool = True,
        metadata: bool = False,
        as_dataset: bool = False,
    ) -> Any:
        """A TRL-ready SFT dataset: one ``{"prompt", "completion"}`` per successful row.

        Args:
            prompt: Builds the prompt from (goal, lemmas).
            unique: One record per distinct (goal uuid, action uuid, lemmas).
            metadata: Add ``goal_uuid`` to each record.
            as_dataset: Return a ``datasets.Dataset`` (needs the ``hf`` extra).
        """
        self._flush()
        seen: set[tuple[str, str, tuple[str, ...]]] = set()
        out: list[dict[str, Any]] = []
        for i in np.flatnonzero(self._reward > 0).tolist():
            ctx = int(self._ctx[i])
            key = (self._c_uuid[ctx], self._auuid[i], self._c_lemmas[ctx])
            if unique:
                if key in seen:
                    continue
                seen.add(key)
            rec: dict[str, Any] = {
                "prompt": prompt(self._c_goal[ctx], self._c_lemmas[ctx]),
                "completion": self._tactic[i],
            }
            if metadata:
                rec["goal_uuid"] = self._c_uuid[ctx]
            out.append(rec)
        return as_hf_dataset(out, "to_sft(as_dataset=True)") if as_dataset else out

    # -------------------------------------------------------------------------------------------- save
    def save(
        self, path: str | os.PathLike[str], *, schema: SchemaName = "current", extras: bool = True
    ) -> None:
        """Write the buffer to a Parquet or JSONL file (format from the suffix), atomically.

        Args:
            path: ``.parquet`` (needs the ``parquet`` extra) or ``.jsonl``.
            schema: ``"current"``: one row per record, the success in ``arm_good_action``, the failure in
                ``arm_bad_action`` (rewards become their sign). ``"legacy"``: one row per experience with
                its reward.
            extras: Also write lean-gym's columns: each arm's action vector (so the file loads without
                parsing; every row is parsed first if it was not yet), and backend and status when any row
                has one. ``False`` writes the public columns only.

        Raises:
            LeanGymError: Unknown suffix, a record with two arms of the same sign (current schema), or a
                missing ``pyarrow`` for Parquet.
        """
        columns, types = self._columns(schema, extras)
        io.write_table(path, columns, types)

    def to_records(self, *, schema: SchemaName = "current", extras: bool = True) -> list[dict[str, Any]]:
        """The rows in a public schema, as dicts (what :meth:`save` writes to JSONL)."""
        columns, _ = self._columns(schema, extras)
        values = {name: io._as_list(make()) for name, make in columns.items()}
        n = len(next(iter(values.values()))) if values else 0
        return [{name: col[i] for name, col in values.items()} for i in range(n)]

    def _columns(self, schema: SchemaName, extras: bool = True) -> tuple[dict[str, Any], dict[str, str]]:
        self._flush()
        n = len(self)
        acts, valid = self._actions() if extras else (None, None)
        verdicts = extras and (any(self._backend) or any(self._status))
        if schema == "legacy":
            ctx = self._ctx

            def ctx_col(values: list[Any]) -> Any:
                return lambda: [values[c] for c in ctx.tolist()]

            cols: dict[str, Any] = {
                "uuid": ctx_col(self._c_uuid),
                "config_uuid": lambda: list(self._auuid),
                "formal_statement": ctx_col(self._c_theorem),
                "goal_state": ctx_col(self._c_goal),
                "tactic_string": lambda: list(self._tactic),
                "reward": lambda: self._reward.tolist(),
                "lemma_names": lambda: [list(self._c_lemmas[c]) for c in ctx.tolist()],
                "lemma_scores": lambda: [list(self._c_scores[c]) for c in ctx.tolist()],
            }
            types = {
                "uuid": "string",
                "config_uuid": "string",
                "formal_statement": "string",
                "goal_state": "string",
                "tactic_string": "string",
                "reward": "float64",
                "lemma_names": "list<string>",
                "lemma_scores": "list<float64>",
            }
            if verdicts:
                cols["backend"] = lambda: list(self._backend)
                cols["status"] = lambda: list(self._status)
                types["backend"] = types["status"] = "string"
            if acts is not None and valid is not None:
                cols["action"] = lambda: io.ActionColumn(acts, valid)
                types["action"] = "list<int16>"
            return cols, types
        if schema != "current":
            raise format_error(f"unknown schema {schema!r}; use 'current' or 'legacy'")
        # One output row per record; rows of a record are adjacent.
        rec = self._record
        starts = np.flatnonzero(np.r_[True, rec[1:] != rec[:-1]]) if n else np.zeros(0, dtype=np.int64)
        sizes = np.diff(np.r_[starts, n])
        if (sizes > 2).any():
            raise format_error(
                "a record holds more than two rows; it cannot be written in the current schema"
            )
        pos = self._reward > 0
        good = np.full(starts.size, -1, dtype=np.int64)
        bad = np.full(starts.size, -1, dtype=np.int64)
        for offset in (0, 1):
            has = sizes > offset
            i = starts[has] + offset
            g, b = has.copy(), has.copy()
            g[has], b[has] = pos[i], ~pos[i]
            if ((good[g] >= 0).any()) or ((bad[b] >= 0).any()):
                raise format_error(
                    "a record holds two successes or two failures; it cannot be written in the current schema"
                )
            good[g] = starts[g] + offset
            bad[b] = starts[b] + offset
        ctx = self._ctx[starts].tolist()

        def arm(values: list[str], which: np.ndarray) -> Any:
            return lambda: [values[i] if i >= 0 else None for i in which.tolist()]

        def ctx_col2(values: list[Any]) -> Any:
            return lambda: [values[c] for c in ctx]

        cols = {
            "context_theorem": ctx_col2(self._c_theorem),
            "context_goal_state": ctx_col2(self._c_goal),
            "uuid_goal": ctx_col2(self._c_uuid),
            "context_lemmas": lambda: [list(self._c_lemmas[c]) for c in ctx],
            "context_lemma_scores": lambda: [list(self._c_scores[c]) for c in ctx],
            "arm_good_action": arm(self._tactic, good),
            "uuid_good_action": arm(self._auuid, good),
            "arm_bad_action": arm(self._tactic, bad),
            "uuid_bad_action": arm(self._auuid, bad),
            "diff_head": lambda: self._diff[starts].tolist(),
        }
        types = {
            "context_theorem": "string",
            "context_goal_state": "string",
            "uuid_goal": "string",
            "context_lemmas": "list<string>",
            "context_lemma_scores": "list<float64>",
            "arm_good_action": "string",
            "uuid_good_action": "string",
            "arm_bad_action": "string",
            "uuid_bad_action": "string",
            "diff_head": "int64",
        }
        if acts is not None and valid is not None:

            def arm_actions(which: np.ndarray) -> Any:
                safe = np.maximum(which, 0)
                return lambda: io.ActionColumn(acts[safe], valid[safe] & (which >= 0))

            cols["action_good_action"] = arm_actions(good)
            cols["action_bad_action"] = arm_actions(bad)
            types["action_good_action"] = types["action_bad_action"] = "list<int16>"
        if verdicts:
            cols["backend_good_action"] = arm(self._backend, good)
            cols["status_good_action"] = arm(self._status, good)
            cols["backend_bad_action"] = arm(self._backend, bad)
            cols["status_bad_action"] = arm(self._status, bad)
            for name in (
                "backend_good_action",
                "status_good_action",
                "backend_bad_action",
                "status_bad_action",
            ):
                types[name] = "string"
        return cols, types
