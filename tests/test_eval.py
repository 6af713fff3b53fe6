"""pass@k with the unbiased estimator (Chen et al. 2021), and ``run_eval`` over candidates JSONL."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

import pytest
from proof_fakes import ScriptedLean

from lean_gym.evaluation import load_candidates, pass_at_k, run_eval

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
    # a: n=4,c=2; b: n=4,c=2; c: no candidates (counts as unsolved)
    assert out["pass@k"]["pass@1"] == pytest.approx((0.5 + 0.5 + 0.0) / 3)
    assert out["pass@k"]["pass@2"] == pytest.approx((5 / 6 + 5 / 6 + 0.0) / 3)
    assert out["problems_counted"] == {"pass@1": 3, "pass@2": 3}
    assert out["missing"] == ["c"] and out["unknown_names"] == ["zzz"] and out["accepted"] == 4
    assert out["hack_classes"] == {"sorry": 1, "proof_error": 1, "native_decide": 1, "statement_tampering": 1}
    assert backend.batches >= 1 and backend.calls, "checks go through check_batch"
    json.dumps(out)


def test_run_eval_k_larger_than_n_is_not_counted(tmp_path: Path) -> None:
    cands = _write(
        tmp_path / "c.jsonl", [{"name": "a", "proof": "rfl"}, {"name": "b", "proofs": ["simp", "simp"]}]
    )
    out = run_eval(cands, THMS[:2], k_values=[2], backend=ScriptedLean(), progress=False)
    assert out["problems_counted"] == {"pass@2": 1} and out["pass@k"]["pass@2"] == 1.0


def test_load_candidates_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=":1: each row needs a string 'name'"):
        load_candidates(_write(tmp_path / "x.jsonl", [{"proof": "rfl"}]))
    with pytest.raises(ValueError, match=":1: no candidate"):
        load_candidates(_write(tmp_path / "y.jsonl", [{"name": "a"}]))


def test_run_eval_progress_bar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cands = _write(tmp_path / "c.jsonl", [{"name": "a", "proof": "rfl"}])
    run_eval(cands, THMS, backend=ScriptedLean(), progress=True)
    assert "oracle" in capsys.readouterr().err


def test_run_eval_rejects_a_batch_size_below_one(tmp_path: Path) -> None:
    cands = tmp_path / "c.jsonl"
    cands.write_text('{"name": "x", "proof": "rfl"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match="batch_size must be at least 1, got 0"):
        run_eval(cands, [], backend="sim", batch_size=0, progress=False)
