"""The ``lean-gym`` command line: demo, bench and eval run end to end on the simulator and say so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lean_gym.cli import main
from lean_gym.data import load_theorems
from lean_gym_agents.demo import candidate_actions, goal_context


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
    assert "theorems: satp-minif2f (train split: 46, test split: 24)" in out  # the env's default set
    summary = next(x for x in out.splitlines() if x.startswith("satp-minif2f test split (24 theorems)"))
    assert "backend sim (the simulator, not Lean)" in summary
    assert "learned per-goal config" in summary and "plain" in summary and "best static" in summary
    # SATP's figures on Lean beside the simulator's, labelled as Lean's
    assert "SATP on Lean (miniF2F-test, not the simulator): plain aesop 10.7% (26/244)" in out
    assert f"learning curve: {png}" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000


def test_demo_no_plot_writes_no_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "curve.png"
    argv = ["demo", "--backend", "sim", "--episodes", "40", "--rounds", "1", "--eval-limit", "10"]
    assert main([*argv, "--no-plot", "--plot-path", str(png)]) == 0
    out = capsys.readouterr().out
    assert not png.exists() and "learning curve" not in out
    assert "backend: sim" in out


def test_demo_plays_the_synthetic_families_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["demo", "--backend", "sim", "--episodes", "20", "--rounds", "1", "--eval-limit", "6", "--no-plot"]
    assert main([*argv, "--source", "sim"]) == 0
    out = capsys.readouterr().out
    assert "theorems: sim (train split: 300, test split: 6)" in out
    assert "sim test split (6 theorems)" in out and "best static" in out
    assert main([*argv, "--source", "satp-minif2"]) != 0  # a typo is refused before any training
    assert "did you mean 'satp-minif2f'" in capsys.readouterr().err


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
                "--json",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert len(out.strip().splitlines()) == 1, "--json prints one JSON object"
    report = json.loads(out)
    assert report["backend"] == "sim" and report["split"] == "test"
    assert report["accepted"] == 1 and report["hack_classes"] == {"sorry": 1}
    mine = next(p for p in report["per_problem"] if p["name"] == th.name)
    assert (mine["n"], mine["c"]) == (2, 1)
    # every problem of the split counts, the 299 with no candidate as failures; coverage: the one with some
    assert report["pass@k"] == {"pass@1": 0.5 / 300} and report["problems"] == 300
    assert report["pass@k_each"] == {"pass@1": 0.5} and report["problems_each"] == {"pass@1": 1}
    assert len(report["missing"]) == report["n_problems"] - 1


def test_eval_prints_a_short_table_and_writes_detail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    th1, th2 = load_theorems("sim", split="test", limit=2)
    cands = tmp_path / "c.jsonl"
    rows = [{"name": th1.name, "proofs": ["sorry", "sorry"]}, {"name": th2.name, "proof": "sorry"}]
    cands.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    detail = tmp_path / "detail.jsonl"
    argv = ["eval", str(cands), "--split", "test", "-k", "1,2,8", "--backend", "sim", "--quiet"]
    assert main([*argv, "--output", str(detail)]) == 0
    out = capsys.readouterr().out
    assert len(out.splitlines()) < 20, out
    assert "backend: sim  (the simulator, not Lean)" in out
    assert "pass@k over all 300 problems of the split (a missing candidate counts as a failure):" in out
    assert "coverage: pass@k over only the problems with at least k candidates:" in out
    # the headline row for k=8 is a figure (0: every candidate failed); the coverage row has no problem
    assert [line.split() for line in out.splitlines() if line.strip().startswith("8 ")] == [
        ["8", "0.0000"],
        ["8", "n/a", "0"],
    ]
    assert "note: 298 of 300 problems have no candidate" in out
    assert "note: problems with fewer than k candidates (1 for k=2, 2 for k=8; the most any has is 2)" in out
    per = [json.loads(x) for x in detail.read_text(encoding="utf-8").splitlines()]
    assert len(per) == 300 and {"name": th1.name, "n": 2, "c": 0}.items() <= per[0].items()
    assert per[0]["pass@2"] == 0.0 and "pass@2" not in per[1] and per[1]["pass@1"] == 0.0


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


def _user_errors(tmp: Path) -> list[list[str]]:
    good = tmp / "good.jsonl"
    good.write_text('{"name": "sim_prop_test_0000", "proof": "sorry"}\n', encoding="utf-8")
    no_name = tmp / "no_name.jsonl"
    no_name.write_text('{"proof": "rfl"}\n', encoding="utf-8")
    no_proof = tmp / "no_proof.jsonl"
    no_proof.write_text('{"name": "sim_prop_test_0000"}\n', encoding="utf-8")
    missing = str(tmp / "missing.jsonl")
    return [
        ["eval", missing, "--split", "test"],
        ["eval", str(good), "--split", "test", "--dataset", missing],
        ["eval", str(good), "--split", "tset"],
        ["eval", str(good)],  # no --split: never silently train+valid+test
        ["eval", str(no_name), "--split", "test"],
        ["eval", str(no_proof), "--split", "test"],
        ["eval", str(good), "--split", "test", "--timeout", "nan"],
        ["eval", str(good), "--split", "test", "--output", str(tmp / "no" / "such" / "dir.jsonl")],
        ["demo", "--backend", "foo"],
        ["demo", "--episodes", "0"],
        ["demo", "--episodes", "-5"],
        ["demo", "--seed", "x"],
    ]


def test_every_user_error_is_one_line_and_a_nonzero_exit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every case in process (an exception escaping main fails the test, as a traceback would), and the first
    # case of each command also through a real `python -m lean_gym.cli`: the process's exit status and
    # everything it writes, interpreter start and exit included.
    through_a_process: set[str] = set()
    for argv in _user_errors(tmp_path):
        try:
            code = main(argv)
        except SystemExit as e:  # argparse
            code = e.code
        seen = capsys.readouterr()
        runs = [(code, seen.out, seen.err)]
        if argv[0] not in through_a_process:
            through_a_process.add(argv[0])
            out = subprocess.run(
                [sys.executable, "-m", "lean_gym.cli", *argv], capture_output=True, text=True, timeout=120
            )
            runs.append((out.returncode, out.stdout, out.stderr))
        for code, stdout, stderr in runs:
            err = stderr.strip()
            assert isinstance(code, int) and code != 0, (argv, code)
            assert "Traceback" not in stderr, (argv, stderr)
            assert len(err.splitlines()) == 1 and err.startswith(f"lean-gym {argv[0]}"), (argv, stderr)
            assert stdout == "", (argv, stdout)
    assert through_a_process == {"eval", "demo"}


def test_the_user_error_messages_say_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = [
        "missing.jsonl",
        "no theorem file at",
        "unknown split 'tset'",
        "--split",
        ":1: each row needs a string 'name'",
        ":1: no candidate",
        "positive number of seconds",
        "No such file or directory",
        "invalid choice: 'foo'",
        "must be at least 1, got 0",
        "must be at least 1, got -5",
        "expected an integer, got 'x'",
    ]
    for argv, words in zip(_user_errors(tmp_path), expected):
        try:
            code = main(argv)
        except SystemExit as e:  # argparse
            code = e.code
        assert code == 2, argv
        assert words in capsys.readouterr().err, argv


def test_demo_and_eval_options_have_help_text() -> None:
    demo = subprocess.run(
        [sys.executable, "-m", "lean_gym.cli", "demo", "--help"], capture_output=True, text=True
    ).stdout
    assert "training episodes" in demo and "seed of the bandit" in demo
    ev = subprocess.run(
        [sys.executable, "-m", "lean_gym.cli", "eval", "--help"], capture_output=True, text=True
    )
    assert "--json" in ev.stdout and "--output FILE" in ev.stdout and "'all' for every split" in ev.stdout


def test_run_demo_refuses_no_episodes() -> None:
    from lean_gym_agents.demo import run_demo

    with pytest.raises(ValueError, match="episodes must be at least 1, got 0"):
        run_demo(backend="sim", episodes=0)


def test_doctor_json_into_a_closed_pipe_exits_quietly(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lean_gym.cli",
            "doctor",
            "--json",
            "--no-smoke",
            "--workspace",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # as `| head` does once it has read enough
    err = proc.stderr.read()
    assert proc.wait(timeout=120) != 0
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert err.strip().splitlines() == ["lean-gym doctor: output closed early (broken pipe)"]


def test_doctor_labels_a_skipped_smoke_check_skip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--workspace", str(tmp_path)]) == 1  # nothing is set up there
    line = next(x for x in capsys.readouterr().out.splitlines() if "smoke check" in x)
    assert line.startswith("[ SKIP  ]") and "skipped" in line and "FAIL" not in line
