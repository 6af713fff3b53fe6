"""The ``lean-gym`` command line: demo, bench and eval run end to end on the simulator and say so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lean_gym.cli import main
from lean_gym.data import load_theorems
from lean_gym.demo import candidate_actions, goal_context


def test_demo_reports_three_baselines_per_round_and_saves_a_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "curve.png"
    argv = ["demo", "--backend", "sim", "--episodes", "200", "--rounds", "2", "--eval-limit", "24"]
    assert main([*argv, "--seed", "1", "--plot-path", str(png)]) == 0
    out = capsys.readouterr().out
    assert "backend: sim  (the simulator, not Lean)" in out
    assert "baselines on the test split: plain" in out and "random" in out and "best static" in out
    rows = [x.split() for x in out.splitlines() if x.split()[:1] in (["1"], ["2"])]
    assert [r[:2] for r in rows] == [["1", "100"], ["2", "200"]]  # one table row per round
    summary = next(x for x in out.splitlines() if x.startswith("test split (24 theorems)"))
    assert "learned per-goal config" in summary and "plain" in summary and "best static" in summary
    assert f"learning curve: {png}" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000


def test_demo_no_plot_writes_no_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "curve.png"
    argv = ["demo", "--backend", "sim", "--episodes", "40", "--rounds", "1", "--eval-limit", "10"]
    assert main([*argv, "--no-plot", "--plot-path", str(png)]) == 0
    out = capsys.readouterr().out
    assert not png.exists() and "learning curve" not in out
    assert "backend: sim" in out


def test_bench_prints_rates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--backend", "sim", "-n", "20"]) == 0
    out = capsys.readouterr().out
    assert "backend: sim" in out and "steps/s" in out and "statuses:" in out


def test_eval_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (th,) = load_theorems("sim", split="test", limit=1)
    cands = tmp_path / "c.jsonl"
    assert th.name == "sim_prop_test_0000"  # (q r t : Prop) (h₀ : r ∨ t) (h₁ : r → q) (h₂ : t → q) : q
    honest = "rcases h₀ with h | h\n  · exact h₁ h\n  · exact h₂ h"
    rows = [{"name": th.name, "proof": "sorry"}, {"name": th.name, "proof": honest}]
    cands.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    assert (
        main(
            [
                "eval",
                str(cands),
                "--dataset",
                "sim",
                "--split",
                "test",
                "-k",
                "1",
                "--backend",
                "sim",
                "--quiet",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    assert report["backend"] == "sim"
    assert report["accepted"] == 1 and report["hack_classes"] == {"sorry": 1}
    mine = next(p for p in report["per_problem"] if p["name"] == th.name)
    assert (mine["n"], mine["c"]) == (2, 1)
    assert report["pass@k"]["pass@1"] == pytest.approx(0.5 / report["n_problems"])


def test_bad_arguments_exit_with_usage() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "lean_gym.cli", "eval", "x", "-k", "0"], capture_output=True, text=True
    )
    assert out.returncode == 2 and "k values must be positive integers" in out.stderr
    assert "Traceback" not in out.stderr


def test_demo_menu_and_context() -> None:
    from lean_gym.aesop import layout

    menu = candidate_actions(layout("satp-v1"))
    assert len(menu) >= 20
    assert len({a.tobytes() for a in menu}) == len(menu)  # no duplicate configs
    assert (menu[0] == layout("satp-v1").default_action()).all()
    assert goal_context("x : ℝ\n⊢ x ^ 2 ≥ 0") != goal_context("p q : Prop\n⊢ p ∧ q → q")
