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


def test_demo_learns_and_names_the_backend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--backend", "sim", "--episodes", "400", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "backend: sim  (the simulator, not Lean)" in out
    line = next(x for x in out.splitlines() if x.startswith("test split"))
    plain, learned = (float(p.split("%")[0].split()[-1]) for p in line.split(";"))
    assert 0 < plain < 100 and learned >= plain


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
