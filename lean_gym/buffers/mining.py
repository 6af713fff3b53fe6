"""Preference pairs of a buffer: the stored ones (a record's two arms), the mined ones, and the counts.

A stored pair is a record holding a success and a failure that differ in exactly one head; mining finds
every such (success, failure) of one goal and lemma list (:func:`~lean_gym.buffers.pairs.mine_pair_indices`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lean_gym.buffers._aesop import uuid16
from lean_gym.buffers.adding import _Adding
from lean_gym.buffers.pairs import PairTable, mine_pair_indices
from lean_gym.buffers.schema import NO_DIFF_HEAD

__all__ = ["BufferStats"]


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


class _Mining(_Adding):
    """``pairs``, ``multi_diff_negatives``, ``mine_pairs``, ``stats`` and ``verify_goal_uuids``."""

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
