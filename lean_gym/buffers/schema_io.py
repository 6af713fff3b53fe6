"""A buffer in SATP's public schemas: loading (files, the hub, a write-ahead log) and saving.

The *current* schema holds one row per record (a success in ``arm_good_action``, a failure in
``arm_bad_action``); the *legacy* one a row per experience with its reward (:mod:`lean_gym.buffers.schema`
names the columns, :mod:`lean_gym.buffers.io` reads and writes the files).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from lean_gym.buffers import io
from lean_gym.buffers._aesop import ActionCodec, uuid16
from lean_gym.buffers._errors import format_error
from lean_gym.buffers.export import _Exporting
from lean_gym.buffers.schema import NO_DIFF_HEAD, SchemaName

__all__ = ["wal_path"]

_S = TypeVar("_S", bound="_SchemaIO")


def wal_path(path: str | os.PathLike[str]) -> Path:
    """The write-ahead log that goes with a buffer file: ``<path>.wal.jsonl``."""
    p = Path(path)
    return p.with_name(p.name + ".wal.jsonl")


class _SchemaIO(_Exporting):
    """``load``, ``from_records``, ``save`` and ``to_records``."""

    @classmethod
    def load(
        cls: type[_S],
        source: str | os.PathLike[str],
        *,
        layout: str | ActionCodec = "satp-v1",
        split: str = "train",
        revision: str | None = None,
        include_wal: bool = True,
        recompute_goal_uuids: bool = False,
    ) -> _S:
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
        cls: type[_S], records: Sequence[dict[str, Any]], *, layout: str | ActionCodec = "satp-v1"
    ) -> _S:
        """A buffer from public-schema row dicts (either schema, detected from the keys)."""
        buf = cls(layout)
        if records:
            buf._extend_table(io.table_from_records(records))
        return buf

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
