"""lean_gym.data: load_theorems over every source, bad rows, theorem_with_proof."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from lean_gym.data import MINIF2F_SAMPLE, Theorem, load_theorems, split_statement, theorem_with_proof

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FULL = SHARED / "data" / "minif2f.jsonl"

# The 8-row sample ships with the package; the full file (../shared) is an extra run of the same tests.
MINIF2F_FILES = [
    pytest.param(Path(MINIF2F_SAMPLE), id="sample"),
    pytest.param(
        FULL,
        id="full",
        marks=[
            pytest.mark.shared,
            pytest.mark.skipif(not FULL.exists(), reason=f"{FULL} (the full miniF2F) is extra"),
        ],
    ),
]


@pytest.mark.parametrize("minif2f", MINIF2F_FILES)
def test_minif2f_all_rows_and_splits(minif2f: Path) -> None:
    rows = load_theorems(minif2f)
    assert len(rows) == sum(1 for ln in minif2f.read_text(encoding="utf-8").splitlines() if ln.strip())
    test = load_theorems(minif2f, split="test")
    valid = load_theorems(minif2f, split="valid")
    assert len(test) + len(valid) == len(rows)
    assert {t.split for t in test} == {"test"}
    t0 = test[0]
    assert t0.formal_statement.rstrip().endswith(":= by")
    assert t0.goal and "⊢" in t0.goal
    assert t0.header.startswith("import Mathlib")
    assert t0.source == str(minif2f)


@pytest.mark.parametrize("minif2f", MINIF2F_FILES)
def test_minif2f_limit_and_proof_replacement(minif2f: Path) -> None:
    two = load_theorems(str(minif2f), split="valid", limit=2)
    assert len(two) == 2
    code = theorem_with_proof(two[0], "  nlinarith [sq_nonneg (x - 1)]")
    assert code.startswith("theorem ")
    assert code.endswith(":= by\n  nlinarith [sq_nonneg (x - 1)]\n")


def test_sim_source_has_required_fields() -> None:
    thms = load_theorems("sim", split="test", limit=12)
    assert len(thms) == 12
    for t in thms:
        assert isinstance(t, Theorem)
        assert t.split == "test" and t.source == "sim"
        assert t.name.startswith("sim_")
        assert t.formal_statement.endswith(":= by\n")
        assert t.family and t.difficulty >= 1
        assert len(t.context_lemmas) == len(t.context_lemma_scores)


def test_sim_all_splits_when_split_is_none() -> None:
    thms = load_theorems("sim", limit=5)
    assert len(thms) == 5
    with pytest.raises(ValueError, match="unknown split"):
        load_theorems("sim", split="dev")


def test_satp_schema_jsonl_dedupes_goals(tmp_path: Path) -> None:
    p = tmp_path / "buffer.jsonl"
    row = {
        "context_theorem": "import Mathlib\n\ntheorem foo (x : ℝ) (h : 0 < x) : 0 < x ^ 2 := by\n  sorry",
        "context_goal_state": "x : ℝ\nh : 0 < x\n⊢ 0 < x ^ 2",
        "uuid_goal": "0123456789abcdef",
        "context_lemmas": ["sq_nonneg", "pow_pos"],
        "context_lemma_scores": [1.0, 0.5],
        "arm_good_action": "  aesop",
    }
    p.write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n", encoding="utf-8")
    thms = load_theorems(p)
    assert len(thms) == 1
    t = thms[0]
    assert t.name == "foo"
    assert t.header == "import Mathlib\n\n"
    assert t.formal_statement == "theorem foo (x : ℝ) (h : 0 < x) : 0 < x ^ 2 := by\n"
    assert t.context_lemmas == ("sq_nonneg", "pow_pos")
    assert t.context_lemma_scores == (1.0, 0.5)


def test_satp_schema_parquet(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table(
        {
            "context_theorem": ["theorem bar (n : ℕ) : n + 0 = n := by\n  sorry"],
            "context_goal_state": ["n : ℕ\n⊢ n + 0 = n"],
            "context_lemmas": [["Nat.add_zero"]],
            "context_lemma_scores": [[0.9]],
        }
    )
    p = tmp_path / "b.parquet"
    pq.write_table(table, p)
    (t,) = load_theorems(p)
    assert t.name == "bar" and t.goal == "n : ℕ\n⊢ n + 0 = n" and t.context_lemmas == ("Nat.add_zero",)


def test_bad_rows_are_named(tmp_path: Path) -> None:
    p = tmp_path / "bad.jsonl"
    p.write_text(
        '{"name": "a", "formal_statement": "theorem a : True := by\\n"}\n{"foo": 1}\n', encoding="utf-8"
    )
    with pytest.raises(ValueError, match=r"bad\.jsonl:2: row fits no known schema"):
        load_theorems(p)
    p.write_text('{"name": "a", "formal_statement": "theorem a : True := trivial"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl:1: formal_statement does not end in `:= by`"):
        load_theorems(p)
    p.write_text("not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl:1: not valid JSON"):
        load_theorems(p)
    p.write_text(
        '{"name": "a", "formal_statement": "theorem a : True := by\\n", "context_lemmas": ["x"], '
        '"context_lemma_scores": [1, 2]}\n',
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="1 context_lemmas but 2 context_lemma_scores"):
        load_theorems(p)


def test_missing_file_and_missing_hf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(FileNotFoundError):
        load_theorems(tmp_path / "nope.jsonl")
    monkeypatch.setitem(sys.modules, "datasets", None)  # as if the `hf` extra were not installed
    with pytest.raises(ImportError, match=r"pip install -e '\.\[hf\]'"):
        load_theorems("someone/some-dataset")


def test_hf_dataset_name_goes_through_datasets(monkeypatch: pytest.MonkeyPatch) -> None:
    datasets = pytest.importorskip("datasets", reason="the `hf` extra (datasets) is not installed")
    rows = [
        {
            "name": "hf_t0",
            "formal_statement": "theorem hf_t0 (x : ℕ) : x + 0 = x := by\n",
            "goal": "x : ℕ\n⊢ x + 0 = x",
            "header": "import Mathlib\n",
        }
    ]
    calls = []

    def fake_load_dataset(name: str, split: str) -> Any:  # the hub is not reachable here
        calls.append((name, split))
        return datasets.Dataset.from_list(rows)

    monkeypatch.setattr(datasets, "load_dataset", fake_load_dataset)
    (t,) = load_theorems("someone/some-dataset", split="test")
    assert calls == [("someone/some-dataset", "test")]
    assert t.name == "hf_t0" and t.goal == "x : ℕ\n⊢ x + 0 = x"


def test_theorem_with_proof_replaces_existing_proof() -> None:
    stmt = "theorem t (x : ℕ) : x = x := by\n  sorry\n"
    assert theorem_with_proof(stmt, "rfl") == "theorem t (x : ℕ) : x = x := by\n  rfl\n"
    block = "  aesop (config := {\n    maxGoals := 64\n  })\n    (add unsafe 90% (by linarith))"
    out = theorem_with_proof(stmt, block)
    assert out == "theorem t (x : ℕ) : x = x := by\n" + block + "\n"
    head, proof = split_statement("theorem u : (fun x => x) 1 = 1 := by simp")
    assert head.endswith(":= by") and proof == " simp"
    with pytest.raises(ValueError, match="no `:= by`"):
        theorem_with_proof("theorem v : True := trivial", "trivial")


def test_theorem_roundtrip_dict() -> None:
    t = Theorem("n", "theorem n : True := by\n", context_lemmas=("a",), context_lemma_scores=(0.5,))
    d = t.to_dict()
    assert d["context_lemmas"] == ["a"]
    assert Theorem.from_dict(d) == t


@pytest.mark.parametrize(
    ("source", "split", "limit"), [("sim", "test", None), ("sim", None, 7), ("satp-minif2f", "train", None)]
)
def test_packaged_sources_are_read_once_and_each_caller_gets_its_own_list(
    source: str, split: str | None, limit: int | None
) -> None:
    from lean_gym.data.loaders import _load_theorems

    first = load_theorems(source, split, limit=limit)
    assert first == _load_theorems(source, split, limit)  # what reading the source again gives
    first.clear()  # a caller's list is its own
    again = load_theorems(source, split, limit=limit)
    assert again and again == _load_theorems(source, split, limit)
    assert again is not load_theorems(source, split, limit=limit)
    with pytest.raises(ValueError, match="unknown split"):  # errors are not remembered as answers
        load_theorems("sim", "dev")
    with pytest.raises(ValueError, match="unknown split"):
        load_theorems("sim", "dev")


def test_a_theorems_target_is_the_one_built_from_its_fields() -> None:
    from lean_gym.grading.statement import _as_target, as_target

    for thm in load_theorems("sim", "valid", limit=20) + load_theorems(MINIF2F_SAMPLE):
        assert as_target(thm) == _as_target(thm) == _as_target(thm.to_dict())
    bad = Theorem(name="other", formal_statement="theorem t : 1 = 1 := by\n")
    for _ in range(2):  # a refusal is not remembered as an answer
        with pytest.raises(ValueError, match="named 'other'"):
            as_target(bad)


def test_a_headerless_rows_warning_points_at_the_code_that_loaded_them(tmp_path: Path) -> None:
    # the warning names the caller's line (stacklevel), not a line of the loader
    from lean_gym.data.loaders import HeaderlessRowsWarning

    p = tmp_path / "h.jsonl"
    p.write_text('{"name": "a", "formal_statement": "theorem a : True := by\\n"}\n', encoding="utf-8")
    with pytest.warns(HeaderlessRowsWarning) as rec:
        load_theorems(p)
    assert len(rec) == 1 and rec[0].filename == __file__, rec[0].filename
