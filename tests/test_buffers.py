"""HistoryBuffer: both public schemas × both formats, views, pair mining, sampling, dedup, exports."""

from __future__ import annotations

import hashlib
import json
import re
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lean_gym.aesop import layout
from lean_gym.buffers import CURRENT_COLUMNS, LEGACY_COLUMNS, HistoryBuffer, detect_schema
from lean_gym.errors import BadActionError, LeanGymError

V1 = layout("satp-v1")
LEMMAS = [
    "sq_nonneg",
    "mul_pos",
    "add_pos",
    "Nat.le_succ_of_le",
    "abs_nonneg",
    "pow_pos",
    "div_pos",
    "sub_nonneg",
]
SCORES = [1.0, 0.9, 0.75, 0.5, 0.25, 0.125, 0.0625, 0.0]
GOAL_G = "x : ℝ\n⊢ 0 ≤ x ^ 2"
GOAL_H = "a b : ℕ\nh : a ≤ b\n⊢ a ≤ b + 1"


def act(**heads: int) -> np.ndarray:
    """A SATP v1 action: the default, with ``h<i>=level`` overrides."""
    a = V1.default_action()
    for name, value in heads.items():
        a[int(name[1:])] = value
    return a


def render(a: np.ndarray) -> str:
    return V1.render(a, LEMMAS)


def sha16(text: str) -> str:
    """SATP's uuid written out independently: sha256 of comment-stripped, whitespace-collapsed text."""
    canonical = " ".join(re.sub(r"--[^\n]*", "", text).split())
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


# Actions of the hand-built goal G. Successes: A, B. Failures: C, D, E, F, and K (which also succeeded once).
A = act(h5=4)
B = act(h5=4, h32=1)
C = act(h5=4, h12=3)  # 1 from A (head 12), 2 from B
D = act(h5=4, h32=1, h13=1)  # 1 from B (head 13), 2 from A
E = act(h5=4, h12=3, h13=1)  # 2 from A, 3 from B: no pair
F = act(h5=4, h32=2)  # 1 from A and 1 from B, both at head 32
K = act(h5=4, h24=2)  # 1 from A, but conflicted (both outcomes): no pair


def current_record(
    goal: str, good: np.ndarray | None, bad: np.ndarray | None, diff_head: int = -1, **kw: Any
) -> dict[str, Any]:
    g = render(good) if good is not None else None
    b = render(bad) if bad is not None else None
    rec = {
        "context_theorem": kw.get("theorem", "theorem t : True := by"),
        "context_goal_state": goal,
        "uuid_goal": sha16(goal),
        "context_lemmas": kw.get("lemmas", LEMMAS),
        "context_lemma_scores": SCORES,
        "arm_good_action": g,
        "uuid_good_action": sha16(g) if g is not None else None,
        "arm_bad_action": b,
        "uuid_bad_action": sha16(b) if b is not None else None,
        "diff_head": diff_head,
    }
    return rec


def legacy_record(goal: str, a: np.ndarray, reward: float, *, uuid: str | None = None) -> dict[str, Any]:
    t = render(a)
    return {
        "uuid": uuid or sha16(goal),
        "config_uuid": sha16(t),
        "formal_statement": "theorem t : True := by",
        "goal_state": goal,
        "tactic_string": t,
        "reward": reward,
        "lemma_names": LEMMAS,
        "lemma_scores": SCORES,
    }


def hand_built_current() -> list[dict[str, Any]]:
    """Goal G's rows in the current schema, plus goal H (same actions, other goal) and G under other lemmas."""
    return [
        current_record(GOAL_G, A, C, diff_head=12),  # a stored 1-diff pair
        current_record(GOAL_G, B, E),  # multi-diff (3 heads)
        current_record(GOAL_G, None, D),
        current_record(GOAL_G, None, F),
        current_record(GOAL_G, A, None),  # a repeated success: counts once in mining
        current_record(GOAL_G, K, None),
        current_record(GOAL_G, None, K),  # K both proved and failed G: conflicted
        current_record(GOAL_H, B, None),  # other goal: must not pair with G's failures
        current_record(GOAL_G, None, act(h5=4, h33=1), lemmas=LEMMAS[::-1]),  # other lemma list: no pair
    ]


@pytest.fixture()
def hand_built() -> HistoryBuffer:
    return HistoryBuffer.from_records(hand_built_current())


# ------------------------------------------------------------------------------------------------ schemas
def test_detect_schema_from_columns() -> None:
    assert detect_schema(CURRENT_COLUMNS) == "current"
    assert detect_schema(LEGACY_COLUMNS) == "legacy"
    with pytest.raises(LeanGymError, match="match neither SATP buffer schema"):
        detect_schema(["prompt", "chosen", "rejected"])


def test_current_records_read_as_arms_and_records(hand_built: HistoryBuffer) -> None:
    buf = hand_built
    assert len(buf) == 11  # 9 records, the first two with both arms
    first = buf.row(0), buf.row(1)
    assert (first[0].reward, first[1].reward) == (1.0, -1.0)
    assert first[0].record == first[1].record == 0 and first[0].diff_head == 12
    assert first[0].action == tuple(A.tolist()) and first[1].action == tuple(C.tolist())
    assert first[0].goal_uuid == sha16(GOAL_G)
    assert buf.row(2).record == buf.row(3).record == 1
    assert buf.records.tolist() == [0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8]


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
@pytest.mark.parametrize("schema", ["current", "legacy"])
def test_round_trip_identical_rows(tmp_path: Path, schema: str, fmt: str) -> None:
    if schema == "current":
        buf = HistoryBuffer.from_records(hand_built_current())
    else:
        buf = HistoryBuffer.from_records(
            [legacy_record(GOAL_G, A, 1.0), legacy_record(GOAL_G, C, -1.0), legacy_record(GOAL_H, B, 0.5)]
        )
    buf.add(
        goal=GOAL_H,
        action=F,
        reward=-1.0,
        theorem="theorem h",
        lemmas=LEMMAS,
        lemma_scores=SCORES,
        backend="sim",
        status="error",
    )
    path = tmp_path / f"buf.{fmt}"
    buf.save(path, schema=schema)  # type: ignore[arg-type]
    back = HistoryBuffer.load(path)
    assert len(back) == len(buf)
    assert list(back.rows()) == list(buf.rows())
    # And a second trip writes the same table.
    assert back.to_records(schema=schema) == buf.to_records(schema=schema)  # type: ignore[arg-type]


@pytest.mark.parametrize("schema", ["current", "legacy"])
def test_public_records_round_trip_exactly(tmp_path: Path, schema: str) -> None:
    if schema == "current":
        records = hand_built_current()
    else:
        records = [legacy_record(GOAL_G, A, 1.0, uuid="numina-0001"), legacy_record(GOAL_H, C, -1.0)]
    buf = HistoryBuffer.from_records(records)
    assert buf.to_records(schema=schema, extras=False) == records  # type: ignore[arg-type]
    buf.save(tmp_path / "b.jsonl", schema=schema, extras=False)  # type: ignore[arg-type]
    lines = [json.loads(line) for line in (tmp_path / "b.jsonl").read_text(encoding="utf-8").splitlines()]
    assert lines == records
    assert list(lines[0]) == list(CURRENT_COLUMNS if schema == "current" else LEGACY_COLUMNS)


def test_parquet_has_the_public_column_types(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    HistoryBuffer.from_records(hand_built_current()).save(tmp_path / "b.parquet")
    schema = pq.read_schema(tmp_path / "b.parquet")
    assert schema.names == [*CURRENT_COLUMNS, "action_good_action", "action_bad_action"]
    assert schema.field("action_good_action").type.value_type == pa.int16()
    assert schema.field("context_lemmas").type.value_type == pa.string()
    assert schema.field("context_lemma_scores").type.value_type == pa.float64()
    assert schema.field("diff_head").type == pa.int64()
    assert schema.field("arm_good_action").type == pa.string()


def test_cross_schema_current_to_legacy_keeps_each_arm(tmp_path: Path) -> None:
    buf = HistoryBuffer.from_records(hand_built_current())
    buf.save(tmp_path / "legacy.parquet", schema="legacy")
    back = HistoryBuffer.load(tmp_path / "legacy.parquet")
    key = lambda r: (r.goal_uuid, r.action_uuid, r.reward, r.lemmas)  # noqa: E731
    assert sorted(map(key, back.rows())) == sorted(map(key, buf.rows()))
    assert len(back.pairs()) == 0  # legacy rows carry no pairing...
    assert len(back.mine_pairs()) == len(buf.mine_pairs())  # ...but mining recovers every pair


def test_goal_uuid_is_the_satp_hash_of_the_canonical_goal() -> None:
    buf = HistoryBuffer()
    noisy = "x  : ℝ   -- a comment\n\n⊢ 0 ≤ x ^ 2  "
    assert buf.add(goal=GOAL_G, action=A, reward=1.0, lemmas=LEMMAS)
    assert buf.row(0).goal_uuid == sha16(GOAL_G) == sha16(noisy)
    assert buf.row(0).action_uuid == sha16(render(A))
    # The same goal written differently is the same goal: the row is a duplicate.
    assert not buf.add(goal=noisy, action=A, reward=1.0, lemmas=LEMMAS)
    assert buf.verify_goal_uuids() == (1, 1)


def test_legacy_uuid_is_kept_unless_recomputed(tmp_path: Path) -> None:
    records = [legacy_record(GOAL_G, A, 1.0, uuid="numina-0001")]
    path = tmp_path / "legacy.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    assert HistoryBuffer.load(path).row(0).goal_uuid == "numina-0001"
    assert HistoryBuffer.load(path).verify_goal_uuids() == (0, 1)
    assert HistoryBuffer.load(path, recompute_goal_uuids=True).row(0).goal_uuid == sha16(GOAL_G)


def test_missing_uuids_are_computed() -> None:
    rec = current_record(GOAL_G, A, C)
    rec["uuid_goal"] = rec["uuid_good_action"] = None
    row = HistoryBuffer.from_records([rec]).row(0)
    assert row.goal_uuid == sha16(GOAL_G) and row.action_uuid == sha16(render(A))


def test_unparsable_arms_are_kept_but_left_out_of_pairs_and_sampling() -> None:
    rec = current_record(GOAL_G, A, None)
    rec["arm_bad_action"] = "  aesop\n    (add safe 1 (by no_such_tactic))"
    rec["uuid_bad_action"] = sha16(rec["arm_bad_action"])
    buf = HistoryBuffer.from_records([rec])
    assert buf.row(1).action is None and buf.valid.tolist() == [True, False]
    assert len(buf.pairs()) == 0 and len(buf.multi_diff_negatives()) == 0
    assert buf.stats().unparsable == 1
    assert set(buf.sample(50, seed=1).rows.tolist()) == {0}


def test_empty_file_and_bad_suffix_and_missing_file(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(LeanGymError, match="no rows"):
        HistoryBuffer.load(tmp_path / "empty.jsonl")
    (tmp_path / "b.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(LeanGymError, match="cannot tell the format"):
        HistoryBuffer.load(tmp_path / "b.csv")
    with pytest.raises(LeanGymError, match="no buffer file"):
        HistoryBuffer.load(tmp_path / "absent.parquet")


def test_corrupt_jsonl_line_names_the_line(tmp_path: Path) -> None:
    good = json.dumps(legacy_record(GOAL_G, A, 1.0), ensure_ascii=False)
    (tmp_path / "b.jsonl").write_text(good + "\n{oops\n" + good + "\n", encoding="utf-8")
    with pytest.raises(LeanGymError, match=r"b\.jsonl:2: not valid JSON"):
        HistoryBuffer.load(tmp_path / "b.jsonl")


# -------------------------------------------------------------------------------------------------- views
def test_positives_negatives(hand_built: HistoryBuffer) -> None:
    pos, neg = hand_built.positives(), hand_built.negatives()
    assert len(pos) + len(neg) == len(hand_built)
    assert all(r.reward > 0 for r in pos) and all(r.reward <= 0 for r in neg)
    assert {r.action_uuid for r in pos} == {sha16(render(x)) for x in (A, B, K)}


def test_stored_pairs_and_multi_diff(hand_built: HistoryBuffer) -> None:
    pairs = hand_built.pairs()
    assert len(pairs) == 1
    p = pairs[0]
    assert (p.chosen, p.rejected, p.diff_head, p.num_diff) == (render(A), render(C), 12, 1)
    assert p.goal == GOAL_G and p.lemmas == tuple(LEMMAS)
    multi = hand_built.multi_diff_negatives()
    assert len(multi) == 1 and multi[0].rejected == render(E) and multi[0].num_diff == 3
    assert multi[0].diff_head == -1


def test_diff_head_is_computed_and_mismatches_counted() -> None:
    buf = HistoryBuffer.from_records([current_record(GOAL_G, A, C, diff_head=7)])
    assert buf.pairs()[0].diff_head == 12  # parsed, not trusted
    assert buf.row(0).diff_head == 7  # the stored value survives
    assert buf.stats().diff_head_mismatches == 1


def test_mine_pairs_on_a_hand_built_goal(hand_built: HistoryBuffer) -> None:
    mined = hand_built.mine_pairs()
    got = sorted((p.chosen, p.rejected, p.diff_head) for p in mined)
    want = sorted(
        [
            (render(A), render(C), 12),
            (render(B), render(D), 13),
            (render(A), render(F), 32),
            (render(B), render(F), 32),
        ]
    )
    assert got == want
    assert all(p.goal == GOAL_G and p.num_diff == 1 for p in mined)
    for p in mined:  # exactly one head differs, and it is the reported one
        diff = np.flatnonzero(np.array(p.chosen_action) != np.array(p.rejected_action)).tolist()
        assert diff == [p.diff_head]
    stats = hand_built.stats()
    assert (stats.stored_pairs, stats.mined_pairs, stats.new_pairs) == (1, 4, 3)
    assert stats.pair_gain == pytest.approx(4.0)
    assert stats.multi_diff == 1 and stats.conflicted_actions == 1
    assert stats.goals == 2 and "mined 1-diff pairs: 4 (3 new" in stats.summary()


def test_mine_pairs_matches_brute_force_on_random_rows() -> None:
    rng = np.random.default_rng(7)
    buf = HistoryBuffer()
    pool = [act(h5=4)]
    for _ in range(30):  # a cloud of near neighbours so that many 1-diff pairs exist
        a = pool[int(rng.integers(len(pool)))].copy()
        h = int(rng.integers(0, 36))
        a[h] = (a[h] + 1 + int(rng.integers(0, 4))) % 5
        pool.append(a)
    for goal in (GOAL_G, GOAL_H):
        for a in pool:
            buf.add(goal=goal, action=a, reward=float(rng.choice([-1.0, 1.0])), lemmas=LEMMAS)
    acts, ok = buf.actions, buf.rewards > 0
    goals = buf.goal_uuids
    want = set()
    for i in range(len(buf)):
        for j in range(len(buf)):
            if ok[i] and not ok[j] and goals[i] == goals[j]:
                d = np.flatnonzero(acts[i] != acts[j])
                if d.size == 1:
                    want.add((i, j, int(d[0])))
    mined = buf.mine_pairs()
    assert set(zip(mined.chosen.tolist(), mined.rejected.tolist(), mined.diff_head.tolist())) == want
    assert len(want) > 5


# ----------------------------------------------------------------------------------------------- sampling
def skewed_buffer() -> HistoryBuffer:
    buf = HistoryBuffer()
    for k in range(90):  # goal G: 90 rows, mostly failures
        buf.add(
            goal=GOAL_G,
            action=act(h5=k % 5, h7=(k // 5) % 5, h8=k // 25),
            reward=1.0 if k % 10 == 0 else -1.0,
            lemmas=LEMMAS,
        )
    for k in range(10):  # goal H: 10 rows
        buf.add(goal=GOAL_H, action=act(h5=k % 5, h7=k // 5), reward=1.0 if k % 2 else -1.0, lemmas=LEMMAS)
    return buf


def test_sample_is_deterministic_per_seed(hand_built: HistoryBuffer) -> None:
    a, b, c = (hand_built.sample(64, seed=s) for s in (3, 3, 4))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a.rows, c.rows)
    s1 = [batch.rows.tolist() for batch in hand_built.iter_batches(8, seed=11, num_batches=4)]
    s2 = [batch.rows.tolist() for batch in hand_built.iter_batches(8, seed=11, num_batches=4)]
    assert s1 == s2 and len({tuple(r) for r in s1}) > 1


def test_sample_fields_are_consistent(hand_built: HistoryBuffer) -> None:
    batch = hand_built.sample(200, seed=0, pairs="mined")
    assert batch.actions.shape == (200, 40) and batch.actions.dtype == np.int64
    assert batch.rewards.dtype == np.float64
    mined = hand_built.mine_pairs()
    for i, row in enumerate(batch.rows.tolist()):
        r = hand_built.row(row)
        assert batch.goal[i] == r.goal and batch.lemmas[i] == "\n".join(r.lemmas)
        assert tuple(batch.actions[i]) == r.action and batch.rewards[i] == r.reward
        k = int(batch.pair_index[i])
        if k >= 0:
            assert row in (int(mined.chosen[k]), int(mined.rejected[k]))
        else:
            assert row not in set(mined.chosen.tolist()) | set(mined.rejected.tolist())
    assert (batch.pair_index >= 0).any() and (batch.pair_index < 0).any()


def test_weighted_sampling_balances_goals_and_outcomes() -> None:
    buf = skewed_buffer()
    is_h = np.array([u == sha16(GOAL_H) for u in buf.goal_uuids])
    uniform = buf.sample(20000, seed=0)
    weighted = buf.sample(20000, seed=0, weighted=True)
    assert is_h[uniform.rows].mean() == pytest.approx(0.10, abs=0.02)
    assert is_h[weighted.rows].mean() == pytest.approx(0.50, abs=0.02)
    assert (weighted.rewards > 0).mean() == pytest.approx(0.50, abs=0.02)
    w = np.zeros(len(buf))
    w[:3] = 1.0
    assert set(buf.sample(500, seed=0, weighted=w).rows.tolist()) == {0, 1, 2}
    with pytest.raises(LeanGymError, match="one entry per row"):
        buf.sample(2, seed=0, weighted=np.ones(3))


def test_sample_pairs(hand_built: HistoryBuffer) -> None:
    batch = hand_built.sample_pairs(32, seed=5, mined=True)
    diff = batch.chosen_actions != batch.rejected_actions
    assert (diff.sum(axis=1) == 1).all()
    assert (diff.argmax(axis=1) == batch.diff_head).all()
    again = hand_built.sample_pairs(32, seed=5, mined=True)
    np.testing.assert_array_equal(batch.pair_index, again.pair_index)
    with pytest.raises(LeanGymError, match="no stored pairs"):
        skewed_buffer().select([0]).sample_pairs(4, seed=0)


# -------------------------------------------------------------------------------------------------- dedup
def test_dedup_by_goal_and_action_uuid() -> None:
    buf = HistoryBuffer()
    assert buf.add(goal=GOAL_G, action=A, reward=1.0, lemmas=LEMMAS)
    assert not buf.add(goal=GOAL_G, action=A, reward=-1.0, lemmas=LEMMAS)  # same key, other verdict
    assert not buf.add(goal=GOAL_G, tactic=render(A) + "  -- same call", reward=1.0, lemmas=LEMMAS)
    assert buf.add(goal=GOAL_G, action=B, reward=1.0, lemmas=LEMMAS)
    assert buf.add(goal=GOAL_H, action=A, reward=1.0, lemmas=LEMMAS)
    assert len(buf) == 3 and buf.contains(sha16(GOAL_G), sha16(render(A)))
    loose = HistoryBuffer(dedup=False)
    assert loose.add(goal=GOAL_G, action=A, reward=1.0) and loose.add(goal=GOAL_G, action=A, reward=1.0)
    assert len(loose) == 2
    # extend() skips what is already there, and renumbers records after ours.
    other = HistoryBuffer.from_records(hand_built_current())
    added = buf.extend(other)
    assert added == len(other) - 4  # A (twice) and B on G are in buf; K's failure repeats K's success key
    assert len(buf) == 3 + added and buf.records.tolist() == sorted(buf.records.tolist())


def test_add_rejects_bad_actions() -> None:
    buf = HistoryBuffer()
    with pytest.raises(BadActionError, match="shape"):
        buf.add(goal=GOAL_G, action=[0, 1], reward=1.0)
    with pytest.raises(BadActionError, match="out of range"):
        buf.add(goal=GOAL_G, action=act(h0=4) + 3, reward=1.0)
    with pytest.raises(BadActionError, match="needs an action"):
        buf.add(goal=GOAL_G, reward=1.0)


# ------------------------------------------------------------------------------------------------ exports
def test_to_dpo_is_trl_shaped(hand_built: HistoryBuffer) -> None:
    stored = hand_built.to_dpo()
    assert stored == [
        {
            "prompt": stored[0]["prompt"],
            "chosen": render(A),
            "rejected": render(C),
        }
    ]
    assert GOAL_G in stored[0]["prompt"] and "0: sq_nonneg" in stored[0]["prompt"]
    mined = hand_built.to_dpo(mined=True, metadata=True)
    assert len(mined) == 4 and {m["diff_head"] for m in mined} == {12, 13, 32}
    assert all(set(m) == {"prompt", "chosen", "rejected", "goal_uuid", "diff_head"} for m in mined)
    custom = hand_built.to_dpo(prompt=lambda goal, lemmas: goal)
    assert custom[0]["prompt"] == GOAL_G


def test_to_sft_from_unique_positives(hand_built: HistoryBuffer) -> None:
    sft = hand_built.to_sft()
    assert [r["completion"] for r in sft] == [render(A), render(B), render(K), render(B)]
    assert all(set(r) == {"prompt", "completion"} for r in sft)
    assert len(hand_built.to_sft(unique=False)) == len(hand_built.positives())


def test_hf_exports_need_datasets(hand_built: HistoryBuffer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(LeanGymError, match=r"pip install -e '\.\[hf\]'"):
        hand_built.to_dpo(as_dataset=True)
    with pytest.raises(LeanGymError, match=r"pip install -e '\.\[hf\]'"):
        HistoryBuffer.load("ChristianZ97/NuminaMath-LEAN-satp-buffer")


def test_hf_exports_with_datasets(hand_built: HistoryBuffer) -> None:
    pytest.importorskip("datasets", reason="the `hf` extra is not installed")
    ds = hand_built.to_dpo(mined=True, as_dataset=True)
    assert ds.column_names == ["prompt", "chosen", "rejected"] and len(ds) == 4
    assert hand_built.to_sft(as_dataset=True).column_names == ["prompt", "completion"]


# ----------------------------------------------------------------------------------------- optional deps
def test_parquet_without_pyarrow_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    buf = HistoryBuffer.from_records(hand_built_current())
    buf.save(tmp_path / "b.parquet")
    for name in [m for m in sys.modules if m == "pyarrow" or m.startswith("pyarrow.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(LeanGymError, match=r"pip install -e '\.\[parquet\]'"):
        HistoryBuffer.load(tmp_path / "b.parquet")
    with pytest.raises(LeanGymError, match=r"-e '\.\[parquet\]'"):
        buf.save(tmp_path / "c.parquet")
    # JSONL needs no pyarrow.
    buf.save(tmp_path / "b.jsonl")
    assert list(HistoryBuffer.load(tmp_path / "b.jsonl").rows()) == list(buf.rows())


def _fake_datasets(table_or_dict: Any, calls: list[tuple[Any, ...]]) -> types.ModuleType:
    mod = types.ModuleType("datasets")

    class FakeDataset:
        def __init__(self) -> None:
            if isinstance(table_or_dict, dict):
                self._dict = table_or_dict
            else:
                self.data = types.SimpleNamespace(table=table_or_dict)
                self._indices = None

        def to_dict(self) -> dict[str, list[Any]]:
            return self._dict

    def load_dataset(name: str, split: str | None = None, **kwargs: Any) -> FakeDataset:
        calls.append((name, split, kwargs))
        return FakeDataset()

    mod.load_dataset = load_dataset  # type: ignore[attr-defined]
    return mod


def test_hub_path_reads_arrow_backed_and_dict_datasets(monkeypatch: pytest.MonkeyPatch) -> None:
    pa = pytest.importorskip("pyarrow")
    records = hand_built_current()
    columns = {k: [r[k] for r in records] for k in records[0]}
    want = list(HistoryBuffer.from_records(records).rows())
    for payload in (pa.Table.from_pydict(columns), columns):
        calls: list[tuple[Any, ...]] = []
        monkeypatch.setitem(sys.modules, "datasets", _fake_datasets(payload, calls))
        buf = HistoryBuffer.load("ChristianZ97/NuminaMath-LEAN-satp-buffer", revision="abc123")
        assert calls == [("ChristianZ97/NuminaMath-LEAN-satp-buffer", "train", {"revision": "abc123"})]
        assert list(buf.rows()) == want


def test_hub_path_with_real_datasets_on_local_files(tmp_path: Path) -> None:
    pytest.importorskip("datasets", reason="the `hf` extra is not installed")
    folder = tmp_path / "satp-buffer"
    folder.mkdir()
    buf = HistoryBuffer.from_records(hand_built_current())
    buf.save(folder / "train.parquet")
    back = HistoryBuffer.load(str(folder))
    assert list(back.rows()) == list(buf.rows())


# ---------------------------------------------------------------------------------- stored action vectors
class CountingLayout:
    """The SATP v1 layout, counting parse calls."""

    def __init__(self) -> None:
        self.nvec = V1.nvec
        self.parses = 0

    def render(self, action: Any, lemmas: Any = ()) -> str:
        return V1.render(action, lemmas)

    def parse(self, text: str, lemmas: Any = ()) -> np.ndarray:
        self.parses += 1
        return V1.parse(text, lemmas)


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
@pytest.mark.parametrize("schema", ["current", "legacy"])
def test_saved_action_vectors_load_without_parsing(tmp_path: Path, schema: str, fmt: str) -> None:
    records = hand_built_current()
    records[2]["arm_bad_action"] = "  aesop\n    (add safe 1 (by no_such_tactic))"
    buf = HistoryBuffer.from_records(records)
    buf.save(tmp_path / f"b.{fmt}", schema=schema)  # type: ignore[arg-type]
    counting = CountingLayout()
    back = HistoryBuffer.load(tmp_path / f"b.{fmt}", layout=counting)  # type: ignore[arg-type]
    np.testing.assert_array_equal(back.actions[back.valid], buf.actions[buf.valid])
    assert (
        counting.parses == 2
    )  # only the unparsable arm (stored as null) is tried again: bare, then with lemmas
    key = lambda r: (r.goal_uuid, r.action_uuid, r.reward, r.action)  # noqa: E731  (legacy rows hold no records)
    assert [key(r) for r in back.rows()] == [key(r) for r in buf.rows()]


def test_out_of_range_stored_vectors_are_parsed_again(tmp_path: Path) -> None:
    rec = current_record(GOAL_G, A, C)
    rec["action_good_action"] = [9] * 40  # not a SATP v1 action: ignored
    rec["action_bad_action"] = C.tolist()
    counting = CountingLayout()
    buf = HistoryBuffer.from_records([rec], layout=counting)  # type: ignore[arg-type]
    assert buf.row(0).action == tuple(A.tolist()) and buf.row(1).action == tuple(C.tolist())
    assert counting.parses == 1


def test_hashed_mining_equals_the_exact_method() -> None:
    from lean_gym.buffers.pairs import _mine_exact, mine_pair_indices

    rng = np.random.default_rng(3)
    n = 3000
    group = rng.integers(0, 40, size=n)
    base = rng.integers(0, 5, size=(40, 40))
    actions = base[group].copy()
    for i in range(n):  # 0-2 changed heads around each group's mode
        for h in rng.integers(0, 40, size=int(rng.integers(0, 3))):
            actions[i, h] = rng.integers(0, 5)
    success = rng.random(n) < 0.6
    valid = rng.random(n) < 0.95
    fast = mine_pair_indices(group, actions, success, valid)
    exact = _mine_exact(group, actions, success, valid)
    assert len(fast[0]) > 100
    for a, b in zip(fast[:3], exact[:3]):
        np.testing.assert_array_equal(a, b)
    assert fast[3] == exact[3] > 0


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_wide_layouts_round_trip(tmp_path: Path, fmt: str) -> None:
    """satp-v2 lemma heads have up to 181 choices: action values past 127 must survive storage and mining."""
    v2 = layout("satp-v2")
    lemmas = [f"lemma_{k}" for k in range(v2.num_lemmas)]
    big = int(np.flatnonzero(v2.nvec > 128)[0])
    good = v2.default_action()
    good[big] = int(v2.nvec[big]) - 1
    bad = good.copy()
    bad[big] = int(v2.nvec[big]) - 2
    buf = HistoryBuffer("satp-v2")
    assert buf.add(goal=GOAL_G, action=good, reward=1.0, lemmas=lemmas)
    assert buf.add(goal=GOAL_G, action=bad, reward=-1.0, lemmas=lemmas)
    assert buf.row(0).action == tuple(good.tolist())
    buf.save(tmp_path / f"v2.{fmt}")
    back = HistoryBuffer.load(tmp_path / f"v2.{fmt}", layout="satp-v2")
    assert list(back.rows()) == list(buf.rows())
    mined = back.mine_pairs()
    assert len(mined) == 1 and mined[0].diff_head == big
    from lean_gym.buffers.pairs import _mine_exact

    exact = _mine_exact(np.zeros(2, dtype=np.int64), back.actions, back.rewards > 0, back.valid)
    assert exact[2].tolist() == [big]
