"""pass@k with the unbiased estimator (Chen et al. 2021), and ``run_eval`` over candidates JSONL."""

from __future__ import annotations

import itertools
import json
from math import comb
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from proof_fakes import ScriptedLean

from lean_gym.evaluation import load_candidates, pass_at_k, run_eval, score_pass_at_k

THMS = [
    {"name": "a", "formal_statement": "theorem a : 1 + 1 = 2 := by\n", "header": ""},
    {"name": "b", "formal_statement": "theorem b (x : ℕ) : x + 0 = x := by\n", "header": ""},
    {"name": "c", "formal_statement": "theorem c : True := by\n", "header": ""},
]


@pytest.mark.parametrize(
    ("n", "c", "k", "expected"),
    [
        (1, 1, 1, 1.0),
        (1, 0, 1, 0.0),
        (10, 3, 1, 0.3),  # = c / n
        (4, 2, 2, 5 / 6),  # 1 - C(2,2)/C(4,2) = 1 - 1/6
        (5, 1, 3, 0.6),  # 1 - C(4,3)/C(5,3) = 1 - 4/10
        (10, 3, 5, 1 - 21 / 252),  # 1 - C(7,5)/C(10,5)
        (6, 4, 3, 1.0),  # n - c < k
        (200, 0, 100, 0.0),
    ],
)
def test_pass_at_k_hand_values(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


def test_pass_at_k_matches_the_binomial_form_and_does_not_overflow() -> None:
    for n, c, k in [(20, 7, 4), (50, 1, 10), (13, 12, 13)]:
        assert pass_at_k(n, c, k) == pytest.approx(1 - comb(n - c, k) / comb(n, k))
    assert 0.0 < pass_at_k(5000, 3, 1000) < 1.0


def test_pass_at_k_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="at least 5 candidates"):
        pass_at_k(3, 1, 5)
    with pytest.raises(ValueError, match="k must be"):
        pass_at_k(3, 1, 0)
    with pytest.raises(ValueError, match="c must be"):
        pass_at_k(3, 4, 1)


def _write(path: Path, rows: list[dict]) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_run_eval_by_hand(tmp_path: Path) -> None:
    cands = _write(
        tmp_path / "c.jsonl",
        [
            {"name": "a", "proofs": ["norm_num", "sorry", "bad_tactic", "rfl"]},  # n=4, c=2
            {"name": "b", "proof": "simp"},
            {"name": "b", "completion": "```lean4\ntheorem b (x : ℕ) : x + 0 = x := by\n  simp\n```"},
            {"name": "b", "candidates": ["native_decide", "theorem b : True := trivial"]},  # n=4, c=2
            {"name": "zzz", "proof": "rfl"},
        ],
    )
    backend = ScriptedLean()
    out = run_eval(cands, THMS, k_values=[1, 2], backend=backend, progress=False, batch_size=3)
    assert out["backend"] == "scripted" and out["n_problems"] == 3 and out["n_candidates"] == 8
    # a: n=4,c=2; b: n=4,c=2; c: no candidates, a failure in the headline (every problem of the split)
    assert out["pass@k"]["pass@1"] == pytest.approx((0.5 + 0.5 + 0) / 3)
    assert out["pass@k"]["pass@2"] == pytest.approx((5 / 6 + 5 / 6 + 0) / 3)
    assert out["problems"] == 3
    assert out["pass@k_each"]["pass@1"] == pytest.approx(0.5) and out["pass@k_each"][
        "pass@2"
    ] == pytest.approx(5 / 6)
    assert out["problems_each"] == {"pass@1": 2, "pass@2": 2}
    a = next(p for p in out["per_problem"] if p["name"] == "a")
    assert (a["n"], a["c"], a["pass@1"]) == (4, 2, 0.5) and a["hack_classes"] == {
        "sorry": 1,
        "proof_error": 1,
    }
    assert out["missing"] == ["c"] and out["unknown_names"] == ["zzz"] and out["accepted"] == 4
    assert out["hack_classes"] == {"sorry": 1, "proof_error": 1, "native_decide": 1, "statement_tampering": 1}
    assert backend.batches >= 1 and backend.calls, "checks go through check_batch"
    json.dumps(out)


def test_run_eval_k_larger_than_n_counts_the_missing_candidates_as_failures(tmp_path: Path) -> None:
    cands = _write(
        tmp_path / "c.jsonl",
        [{"name": "a", "proof": "bad_tactic"}, {"name": "b", "proofs": ["simp", "simp"]}],
    )
    out = run_eval(cands, THMS[:2], k_values=[2], backend=ScriptedLean(), progress=False)
    # a: one failed candidate and one missing (a failure): 0; b: both accepted: 1
    assert out["pass@k"]["pass@2"] == 0.5 and out["short_each"] == {"pass@2": 1}
    assert out["problems_each"] == {"pass@2": 1} and out["pass@k_each"]["pass@2"] == 1.0


def test_headline_is_over_every_problem_and_the_same_whatever_other_k_are_asked() -> None:
    # Issue 19's case: pass@1 was 0.375 with -k 1 and 0.500 with -k 1,2,4 on one file (the headline used
    # only the problems with enough candidates for the largest k). Now every problem counts, a missing
    # candidate as a failure, and each k stands alone.
    counts = [("a", 1, 1), ("b", 2, 1), ("c", 0, 0), ("d", 0, 0)]
    alone = score_pass_at_k(counts, [1])
    many = score_pass_at_k(counts, [1, 2, 4])
    assert alone["pass@k"]["pass@1"] == many["pass@k"]["pass@1"] == (1 + 0.5) / 4
    assert many["pass@k"] == {"pass@1": 0.375, "pass@2": 0.5, "pass@4": 0.5} and many["problems"] == 4
    assert many["pass@k_each"] == {"pass@1": 0.75, "pass@2": 1.0, "pass@4": None}
    assert many["problems_each"] == {"pass@1": 2, "pass@2": 1, "pass@4": 0}
    assert many["short_each"] == {"pass@1": 0, "pass@2": 1, "pass@4": 2}
    assert score_pass_at_k([("c", 0, 0)], [1])["pass@k"] == {"pass@1": 0.0}
    assert score_pass_at_k([], [1])["pass@k"] == {"pass@1": None}


@given(
    st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), min_size=1, max_size=12),
    st.lists(st.integers(1, 14), min_size=1, max_size=5),
)
def test_headline_pass_at_k_never_falls_as_k_grows(nc: list[tuple[int, int]], ks: list[int]) -> None:
    counts = [(f"p{i}", n, min(c, n)) for i, (n, c) in enumerate(nc)]
    s = score_pass_at_k(counts, ks)
    values = [v for v in s["pass@k"].values() if v is not None]
    assert all(later >= earlier - 1e-12 for earlier, later in itertools.pairwise(values))
    for k in set(ks):  # each k's headline is its own: asking for k alone gives the same figure
        assert score_pass_at_k(counts, [k])["pass@k"][f"pass@{k}"] == s["pass@k"][f"pass@{k}"]
    for k in sorted(set(ks)):
        covered = sum(1 for _, n, _ in counts if n >= k)
        assert s["problems_each"][f"pass@{k}"] == covered
        assert (s["pass@k_each"][f"pass@{k}"] is None) == (covered == 0)


def test_run_eval_names_an_empty_split(tmp_path: Path) -> None:
    cands = _write(tmp_path / "c.jsonl", [{"name": "a", "proof": "rfl"}])
    data = _write(tmp_path / "d.jsonl", [{**THMS[0], "split": "test", "informal_prefix": "", "goal": ""}])
    with pytest.raises(ValueError, match="no theorems in split 'tset' of .*; its splits are test"):
        run_eval(cands, str(data), split="tset", backend=ScriptedLean(), progress=False)


def test_load_candidates_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=":1: each row needs a string 'name'"):
        load_candidates(_write(tmp_path / "x.jsonl", [{"proof": "rfl"}]))
    with pytest.raises(ValueError, match=":1: no candidate"):
        load_candidates(_write(tmp_path / "y.jsonl", [{"name": "a"}]))
    with pytest.raises(ValueError, match=":1: 'proofs' must be a list of strings, got a NoneType"):
        load_candidates(_write(tmp_path / "z.jsonl", [{"name": "a", "proofs": ["rfl", None]}]))


def test_run_eval_progress_bar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cands = _write(tmp_path / "c.jsonl", [{"name": "a", "proof": "rfl"}])
    run_eval(cands, THMS, backend=ScriptedLean(), progress=True)
    assert "oracle" in capsys.readouterr().err


def test_run_eval_rejects_a_batch_size_below_one(tmp_path: Path) -> None:
    cands = tmp_path / "c.jsonl"
    cands.write_text('{"name": "x", "proof": "rfl"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="batch_size must be at least 1, got 0"):
        run_eval(cands, [], backend="sim", batch_size=0, progress=False)


def test_an_empty_candidates_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lean_gym.cli import main

    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    assert main(["eval", str(empty), "--split", "test", "--backend", "sim", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"lean-gym eval: {empty} has no candidates (an empty file?)"]


def test_candidates_for_no_theorem_of_the_split_are_one_line_with_a_did_you_mean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lean_gym.cli import main

    cands = _write(tmp_path / "c.jsonl", [{"name": "sim_prop_tset_0000", "proof": "simp"}])
    assert main(["eval", str(cands), "--split", "test", "--backend", "sim", "--quiet"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "none of the 1 names in" in line and "did you mean 'sim_prop_test_0000'" in line


def test_k_above_every_count_says_so_and_still_scores_the_split(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lean_gym.cli import main

    cands = _write(tmp_path / "c.jsonl", [{"name": "a", "proofs": ["decide", "sorry"]}])
    data = _write(tmp_path / "d.jsonl", [{**t, "split": "test", "header": "import Mathlib"} for t in THMS])
    argv = ["eval", str(cands), "--dataset", str(data), "--split", "test", "-k", "5", "--quiet"]
    assert main([*argv, "--backend", "sim"]) == 0
    out = capsys.readouterr().out
    # a: 1 of 2 accepted, 3 missing counted as failures: pass@5 = 1; b and c: no candidate: 0
    assert next(line.split() for line in out.splitlines() if line.strip().startswith("5 ")) == ["5", "0.3333"]
    assert "note: problems with fewer than k candidates (1 for k=5; the most any has is 2)" in out
