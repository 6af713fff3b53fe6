"""The commands a user types next, found wrong before any work starts (issue 19).

Names and paths are checked up front, with a "did you mean" where it helps: a backend name at
``gym.make`` (not at the first check, inside a worker), ``ray:<name>`` before Ray starts, the demo's plot
path before training. ``lean-gym setup`` says what it needs and stops at the step that fails, including a
failed download. ``lean-gym bench`` takes a user's own theorems and ``ray:<spec>``. The runner's and the
demo's pictures name the backend, and the demo's shows the learned and the train curves on top.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import lean_gym  # noqa: F401  (registers the env ids)
from lean_gym.backends import make_backend
from lean_gym.backends.lazy import LazyBackend
from lean_gym.cli import main
from lean_gym.errors import ConfigError, LeanGymError


# ------------------------------------------------------------------------------------- backend names
@pytest.mark.parametrize("env_id", ["LeanAesop-v0", "LeanProof-v0", "LeanHackable-v0", "LeanTactic-v0"])
def test_a_wrong_backend_name_fails_at_gym_make_with_the_real_lean_name(env_id: str) -> None:
    with pytest.raises(ConfigError, match=r"unknown backend 'lean'; real Lean is 'repl'"):
        gym.make(env_id, backend="lean")


def test_a_near_miss_gets_a_did_you_mean_and_nothing_is_built() -> None:
    with pytest.raises(ConfigError, match=r"unknown backend 'sim_repl'; did you mean 'sim-repl'\?"):
        LazyBackend("sim_repl")
    with pytest.raises(ConfigError, match=r"unknown backend 'ray:simm'; did you mean 'ray:sim'\?"):
        make_backend("ray:simm")
    with pytest.raises(ConfigError):
        gym.make_vec("LeanAesop-v0", num_envs=2, vectorization_mode="vector_entry_point", backend="snm")


def test_ray_with_a_wrong_inner_name_fails_before_ray_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    import lean_gym.distributed.ray_backend as rb

    def no_ray() -> Any:
        raise AssertionError("Ray was imported or started")

    monkeypatch.setattr(rb, "_import_ray", no_ray)
    with pytest.raises(ConfigError, match=r"unknown backend 'lean'; real Lean is 'repl'"):
        rb.RayBackend("lean")
    with pytest.raises(ConfigError, match=r"'ray:lean'; real Lean is 'ray:repl'"):
        make_backend("ray:lean")


def test_the_cli_refuses_a_wrong_backend_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["eval", "c.jsonl", "--split", "test", "--backend", "ray:lean"],
        ["bench", "--backend", "lean"],
    ):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert "real Lean is" in line and "Traceback" not in line


# -------------------------------------------------------------------------------------------- demo
@pytest.mark.parametrize("bad", ["/nonexistent/x.png", "{tmp}"])
def test_demo_checks_its_plot_path_before_training(
    bad: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    import lean_gym_agents.demo as demo

    def no_training(*a: object, **k: object) -> None:
        raise AssertionError("the demo started working before checking its plot path")

    monkeypatch.setattr(demo, "candidate_actions", no_training)
    path = bad.format(tmp=tmp_path)
    assert main(["demo", "--backend", "sim", "--plot-path", path]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("lean-gym demo: --plot-path ")


def test_demo_refuses_a_folder_it_cannot_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("matplotlib")
    import lean_gym_agents.demo as demo

    # root may write anywhere, so the folder is made unwritable in the check's eyes
    monkeypatch.setattr(demo.os, "access", lambda path, mode: path != str(tmp_path))
    assert main(["demo", "--backend", "sim", "--plot-path", str(tmp_path / "x.png")]) == 2
    assert f"the folder {tmp_path} is not writable" in capsys.readouterr().err


def _saved_figures(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    import matplotlib.figure

    figs: list[Any] = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", lambda self, *a, **k: figs.append(self))
    return figs


def test_demo_picture_shows_the_learned_and_train_curves_above_the_baselines(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    from lean_gym_agents.demo import _plot

    figs = _saved_figures(monkeypatch)
    # the learned curve ends exactly on the best static config's level: it must still be seen
    _plot(str(tmp_path / "d.png"), [10, 20], [0.2, 0.34], {"plain": 0.07, "best static": 0.34}, "sim",
          train=[0.15, 0.3])  # fmt: skip
    (ax,) = figs[0].axes
    lines = {line.get_label(): line for line in ax.get_lines()}
    learned = next(v for k, v in lines.items() if k.startswith("learned"))
    train = next(v for k, v in lines.items() if k.startswith("train"))
    baselines = [v for k, v in lines.items() if "(test)" in k and not k.startswith("learned")]
    assert len(baselines) == 2
    assert all(
        learned.get_zorder() > b.get_zorder() and train.get_zorder() > b.get_zorder() for b in baselines
    )
    assert learned.get_linewidth() > max(b.get_linewidth() for b in baselines)
    assert list(train.get_ydata()) == [15.0, 30.0]
    assert "backend: the simulator, not Lean" in ax.get_title()


def test_runner_picture_names_the_backend(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from lean_gym_agents import UniformRandomAgent, run_agent

    figs = _saved_figures(monkeypatch)
    env = gym.make("LeanAesop-v0", backend="sim", split="test")
    agent = UniformRandomAgent(env.action_space, seed=0)
    # seeded: an unseeded env draws its theorems at random, and a random config on one of them
    # (mathd_numbertheory_483) keeps the simulator busy until the check's 60 s timeout
    result = run_agent(
        agent, env, steps=4, progress=False, out_dir=tmp_path, plot=True, desc="random", seed=0
    )
    assert result.backend == "sim"
    (ax,) = figs[0].axes
    assert ax.get_title() == "random — backend: sim (the simulator, not Lean)"


# ------------------------------------------------------------------------------------------- setup
def test_setup_help_says_what_it_needs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["setup", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for need in ("internet", "5 GB of disk", "memory", "time", "--dry-run", "stopping at the first step"):
        assert need in text, need


def test_setup_stops_at_a_failed_download(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No elan, and a `curl` that fails: the download step is reported, and nothing runs after it."""
    import lean_gym.workspace as W

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "ran.txt"
    for tool, code in (("curl", 22), ("lake", 0)):
        script = bin_dir / tool
        script.write_text(f"#!/bin/sh\necho {tool} >> {log}\nexit {code}\n", encoding="utf-8")
        script.chmod(0o755)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin")
    monkeypatch.setattr(
        W.shutil, "which", lambda name: str(bin_dir / name) if name in ("curl", "lake") else None
    )
    steps = W.setup_steps(tmp_path / "ws")
    assert [n for n, _ in steps][:2] == ["download elan's installer", "install elan"]
    assert all("|" not in " ".join(cmd) for _, cmd in steps), "a pipeline hides the status of its first part"
    lines: list[str] = []
    assert W.setup(tmp_path / "ws", echo=lines.append) == 22
    assert any("setup failed at 'download elan's installer' (exit status 22)" in x for x in lines)
    assert log.read_text(encoding="utf-8").split() == ["curl"]  # nothing after the failed step


# ------------------------------------------------------------------------------------------- bench
def _rows(path: Path) -> Path:
    rows = [
        {"name": "mine_add", "split": "test", "header": "import Mathlib",
         "formal_statement": "theorem mine_add (a b : ℕ) : a + b = b + a := by\n",
         "context_lemmas": ["Nat.add_comm"], "context_lemma_scores": [0.9]},
        {"name": "mine_pos", "split": "test", "header": "import Mathlib",
         "formal_statement": "theorem mine_pos (x : ℝ) (h : 0 < x) : 0 < x + 1 := by\n"},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_bench_runs_on_a_users_own_theorems(tmp_path: Path) -> None:
    from lean_gym.bench import run_bench

    report = run_bench(
        "LeanAesop-v0", backend="sim", modes=["sync"], sizes=[1], steps=4, source=str(_rows(tmp_path / "m.jsonl")),
        split="test",
    )  # fmt: skip
    (row,) = report.rows
    assert row.steps == 4 and report.backend == "sim"


def test_bench_source_errors_come_before_any_timing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["bench", "--backend", "sim", "--source", str(tmp_path / "missing.jsonl"), "--steps", "2"]) == 2
    )
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "missing.jsonl" in line
    path = _rows(tmp_path / "m.jsonl")
    assert main(["bench", "--backend", "sim", "--source", str(path), "--split", "tset", "--steps", "2"]) == 2
    assert "no theorems in split 'tset'" in capsys.readouterr().err


def test_bench_takes_ray_specs_and_says_which_modes_they_mean() -> None:
    from lean_gym.bench import run_bench

    with pytest.raises(ConfigError, match=r"--backend ray:sim runs the ray mode .*drop --modes sync"):
        run_bench("LeanAesop-v0", backend="ray:sim", modes=["sync", "ray"], sizes=[1], steps=1)
    with pytest.raises(LeanGymError, match="real Lean is 'ray:repl'"):
        run_bench("LeanAesop-v0", backend="ray:lean", sizes=[1], steps=1)


@pytest.mark.slow
def test_bench_with_a_ray_spec_runs_the_ray_mode() -> None:
    pytest.importorskip("ray")
    from lean_gym.bench import run_bench

    report = run_bench("LeanAesop-v0", backend="ray:sim", sizes=[2], steps=4, ray_actors=1)
    assert [r.mode for r in report.rows] == ["ray"] and report.rows[0].backend.startswith("ray:")


def test_the_cli_help_lists_source_and_split_for_bench(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    out = capsys.readouterr().out
    assert "--source" in out and "--split" in out and "ray:<one of them>" in out


def test_the_runner_says_where_a_dpo_checkpoint_comes_from_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("lean_gym_agents")
    import lean_gym_agents.run as run

    def no_env(*a: object, **k: object) -> None:
        raise AssertionError("an env was built before the arguments were checked")

    monkeypatch.setattr(run, "build_env", no_env)
    for argv, says in (
        (
            ["dpo", "--checkpoint", str(tmp_path / "policy.pt"), "--eval"],
            "satp_loop.py --suite sim",
        ),
        (["dpo", "--eval"], "needs --checkpoint"),
    ):
        assert run.main(argv) == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("error: ") and says in line
