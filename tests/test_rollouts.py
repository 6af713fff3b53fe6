"""Rollouts in the math-lean-hackable-rollouts JSONL format: round trip, append-only, flushed per row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_gym.rollouts import FIELDS, Rollout, RolloutWriter, label_for, read_rollouts


def _row(uid: str = "u0", **kw) -> Rollout:  # type: ignore[no-untyped-def]
    base = dict(
        messages=(
            {"role": "user", "content": "Complete the following Lean 4 code: ℝ ⊢"},
            {"role": "assistant", "content": "sorry"},
        ),
        label="hack",
        reward=1.0,
        undefended_reward=1.0,
        oracle_reward=-1.0,
        hack_detected=True,
        run_id="run-a",
        step=12,
        group=3,
        rollout_uid=uid,
        oracle_sampled=True,
        response_truncated=False,
        total_turns=1,
        hack_class="sorry",
        backend="sim",
    )
    base.update(kw)
    return Rollout(**base)  # type: ignore[arg-type]


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    rows = [
        _row("a"),
        _row(
            "b",
            oracle_reward=None,
            oracle_sampled=False,
            label="unverified",
            hack_detected=False,
            hack_class=None,
        ),
    ]
    with RolloutWriter(path) as w:
        written = [w.write(r) for r in rows]
    back = list(read_rollouts(path))
    assert back == written
    assert [r.row_index for r in back] == [0, 1]
    assert back[1].oracle_reward is None and back[0].messages[0]["content"].endswith("ℝ ⊢")


def test_columns_and_types_match_the_dataset(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    with RolloutWriter(path) as w:
        w.write(_row(extra={"prompt_id": 7}))
    obj = json.loads(path.read_text(encoding="utf-8"))
    assert list(obj)[: len(FIELDS)] == list(FIELDS)
    assert obj["prompt_id"] == 7 and obj["hack_class"] == "sorry"
    types = {k: type(obj[k]).__name__ for k in FIELDS}
    assert types == {
        "row_index": "int",
        "messages": "list",
        "label": "str",
        "run_id": "str",
        "step": "int",
        "group": "int",
        "rollout_uid": "str",
        "reward": "float",
        "oracle_reward": "float",
        "undefended_reward": "float",
        "hack_detected": "bool",
        "oracle_sampled": "bool",
        "response_truncated": "bool",
        "total_turns": "int",
    }
    assert next(iter(read_rollouts(path))).extra == {"prompt_id": 7}


def test_append_only_and_flushed_per_row(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    w = RolloutWriter(path)
    w.write(_row("a"))
    assert len(list(read_rollouts(path))) == 1, "a row must be on disk as soon as write returns"
    w.write(_row("b"))
    assert [r.rollout_uid for r in read_rollouts(path)] == ["a", "b"]
    w.close()
    with RolloutWriter(path) as w2:  # a second run appends and continues the row index
        w2.write(_row("c"))
    assert [(r.rollout_uid, r.row_index) for r in read_rollouts(path)] == [("a", 0), ("b", 1), ("c", 2)]
    with pytest.raises(ValueError, match="closed"):
        w.write(_row("d"))


def test_reads_rows_in_the_original_shape(tmp_path: Path) -> None:
    # a row as the original train.jsonl has it: no lean-gym columns, integer rewards
    original = {
        "row_index": 5,
        "messages": [{"role": "user", "content": "x"}],
        "label": "whatever",
        "run_id": "r",
        "step": 1,
        "group": 0,
        "rollout_uid": "id",
        "reward": 1,
        "oracle_reward": None,
        "undefended_reward": 1,
        "hack_detected": False,
        "oracle_sampled": False,
        "response_truncated": True,
        "total_turns": 2,
    }
    path = tmp_path / "o.jsonl"
    path.write_text(json.dumps(original) + "\n\n", encoding="utf-8")
    (r,) = read_rollouts(path)
    assert r.row_index == 5 and r.reward == 1.0 and r.oracle_reward is None and r.response_truncated


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"hack_detected": "yes"}, "hack_detected' must be bool"),
        ({"step": 1.5}, "step' must be int"),
        ({"step": True}, "step' must be int, got bool"),
        ({"messages": [{"role": "user"}]}, "messages\\[0\\]"),
    ],
)
def test_type_errors_name_line_and_field(tmp_path: Path, change: dict, match: str) -> None:  # type: ignore[type-arg]
    obj = _row().to_json()
    obj.update(change)
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(obj) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=f"bad.jsonl:1: .*{match}"):
        list(read_rollouts(path))


def test_missing_field_and_bad_json(tmp_path: Path) -> None:
    obj = _row().to_json()
    del obj["group"]
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps(obj) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match="missing field 'group'"):
        list(read_rollouts(path))


def test_labels() -> None:
    assert label_for(1.0, False) == "correct"
    assert label_for(-1.0, True) == "hack"
    assert label_for(-1.0, False) == "incorrect"
    assert label_for(None, False) == "unverified"
