"""Checkpoint and resume: a run stopped by a signal or a kill and resumed ends exactly as the uninterrupted run
with the same seed (all but the wall-clock figures), on the simulator, with tiny budgets."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import lean_gym  # noqa: F401  (registers the env ids)
import lean_gym_agents.run as run
from lean_gym.errors import LeanGymError
from lean_gym_agents import (
    RunInterrupted,
    SATPThompson,
    SATPThompsonArgs,
    Transitions,
    load_checkpoint,
    run_agent,
)
from lean_gym_agents._files import atomic_write

ROOT = Path(__file__).resolve().parents[1]
WALL_CLOCK = ("/SPS", "losses/step_s", "losses/step_cpu_s")


def make(
    kind: str = "vector_entry_point", autoreset: str = "NextStep", split: str = "test", **kw: Any
) -> Any:
    kw = {"backend": "sim", "split": split, **kw}
    if kind == "single":
        return gym.make("LeanAesop-v0", **kw)
    mode = {"autoreset_mode": gym.vector.AutoresetMode(autoreset)}
    if kind == "vector_entry_point":
        return gym.make_vec("LeanAesop-v0", num_envs=3, vectorization_mode=kind, **kw, **mode)
    return gym.make_vec("LeanAesop-v0", num_envs=3, vectorization_mode=kind, vector_kwargs=mode, **kw)


def timeless(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows without wall-clock figures, NaN as None (as metrics.jsonl writes it)."""
    return [
        {
            k: (None if isinstance(v, float) and math.isnan(v) else v)
            for k, v in r.items()
            if not k.endswith(WALL_CLOCK)
        }
        for r in rows
    ]


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


class StopAt:
    """The wrapped agent, which sends its own process ``signum`` once it has learned from ``at`` steps."""

    def __init__(self, agent: Any, at: int, signum: int = signal.SIGINT) -> None:
        self.agent, self.at, self.signum, self.seen = agent, at, signum, 0

    def act(self, observations: Any, *, explore: bool = True) -> list[Any]:
        return self.agent.act(observations, explore=explore)

    def update(self, batch: Transitions) -> dict[str, float]:
        self.seen += len(batch)
        if self.at and self.seen >= self.at:
            self.at = 0  # once: the checkpointed copy must not stop again
            signal.raise_signal(self.signum)
        return self.agent.update(batch)


def interrupted_then_resumed(
    build: Any, env_fn: Any, tmp_path: Path, *, steps: int, at: int, signum: int = signal.SIGINT, **kw: Any
) -> tuple[Any, Any, Any]:
    """(uninterrupted result and agent, resumed result and agent, the interruption)."""
    full_agent = build()
    full = run_agent(full_agent, env_fn(), steps=steps, progress=False, **kw)
    with pytest.raises(RunInterrupted) as stop:
        run_agent(StopAt(build(), at, signum), env_fn(), steps=steps, progress=False, out_dir=tmp_path, **kw)
    ckpt = load_checkpoint(stop.value.checkpoint)
    assert ckpt.steps == stop.value.steps < steps
    resumed = run_agent(
        ckpt.agent, env_fn(), steps=steps, progress=False, out_dir=tmp_path, resume=ckpt, **kw
    )
    return (full, full_agent), (resumed, ckpt.agent.agent), stop.value


@pytest.mark.parametrize(
    ("kind", "autoreset", "attempts"),
    [
        ("single", "", 1),
        ("vector_entry_point", "NextStep", 1),
        ("sync", "SameStep", 2),
        ("vector_entry_point", "Disabled", 3),  # episodes of 1-3 steps, masked resets replayed
    ],
)
def test_an_interrupted_thompson_run_resumes_to_the_uninterrupted_result(
    kind: str, autoreset: str, attempts: int, tmp_path: Path
) -> None:
    def env_fn() -> Any:
        return make(kind, autoreset or "NextStep", max_attempts=attempts)

    def build() -> SATPThompson:
        return SATPThompson.for_env(env_fn(), SATPThompsonArgs(seed=1))

    (full, a), (resumed, b), stop = interrupted_then_resumed(
        build, env_fn, tmp_path, steps=48, at=20, seed=5, log_every=6
    )
    assert stop.signum == signal.SIGINT
    assert timeless(resumed.metrics) == timeless(full.metrics)
    assert (resumed.steps, resumed.episodes, resumed.successes, resumed.reward_sum) == (
        full.steps, full.episodes, full.successes, full.reward_sum,
    )  # fmt: skip
    assert np.array_equal(a._global, b._global) and a.pairs == b.pairs and a.tries == b.tries
    assert a._clusters.keys() == b._clusters.keys()
    # the metrics log holds each row once: the rows after the checkpoint were cut and written again
    assert timeless(jsonl(tmp_path / "metrics.jsonl")) == timeless(full.metrics)
    assert jsonl(tmp_path / "metrics.jsonl")[0]["global_step"] == full.metrics[0]["global_step"]


def test_an_interrupted_dpo_run_resumes_with_the_same_weights_and_optimiser(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    torch = pytest.importorskip("torch", reason="the DPO policy needs torch (agents extra)")
    from lean_gym_agents.dpo import DPOArgs, DPOPolicy

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny net: more threads only wait on each other on a shared machine
    request.addfinalizer(lambda: torch.set_num_threads(threads))

    lay = make("single").unwrapped.layout

    def build() -> Any:
        args = DPOArgs(d_model=16, n_layers=1, n_heads=2, ref_warmup_steps=2, seed=3, device="cpu")
        return run.UpdateEvery(DPOPolicy(lay, args), train_every=6, steps_per_round=2)

    # training rounds before the checkpoint (steps 6, 12, 18) and after it; SIGTERM as a scheduler sends it
    (full, a), (resumed, b), stop = interrupted_then_resumed(
        build, lambda: make("single"), tmp_path, steps=40, at=20, signum=signal.SIGTERM, seed=2, log_every=4
    )
    assert stop.signum == signal.SIGTERM
    assert timeless(resumed.metrics) == timeless(full.metrics)
    assert any("losses/loss" in r for r in full.metrics[5:])  # it trained after the checkpoint too
    pa, pb = a.agent, b.agent
    assert pa.steps_done == pb.steps_done > 0
    for (ka, va), (kb, vb) in zip(pa.net.state_dict().items(), pb.net.state_dict().items()):
        assert ka == kb and torch.equal(va, vb), ka
    sa, sb = pa.optimizer.state_dict()["state"], pb.optimizer.state_dict()["state"]
    assert sa.keys() == sb.keys() and all(torch.equal(sa[k]["exp_avg"], sb[k]["exp_avg"]) for k in sa)
    assert len(pa._online) == len(pb._online) == 40


def test_an_interrupted_grpo_run_with_text_actions_resumes_to_the_uninterrupted_result(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    torch = pytest.importorskip("torch", reason="GRPO needs torch")
    pytest.importorskip("transformers", reason="the toy LM is built with transformers (hf extra)")
    from lean_gym_agents.grpo import GroupResets, GRPOAgent, make_grpo_env
    from lean_gym_agents.grpo_toy import TOY_THEOREMS, TacticTokenizer, tiny_causal_lm, toy_agent_args

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    request.addfinalizer(lambda: torch.set_num_threads(threads))
    tok = TacticTokenizer()
    args = toy_agent_args(tok, group_size=4, prompts_per_step=2)

    def env_fn() -> Any:
        disabled = gym.vector.AutoresetMode.DISABLED
        env = make_grpo_env(
            "LeanProof-v0", args, backend="sim", theorems=TOY_THEOREMS, autoreset_mode=disabled
        )
        return GroupResets(env, args, seed=1)

    (full, a), (resumed, b), _ = interrupted_then_resumed(
        lambda: GRPOAgent(tiny_causal_lm(tok.vocab_size, seed=0), tok, args), env_fn, tmp_path,
        steps=32, at=16, seed=1, log_every=8,
    )  # fmt: skip
    assert timeless(resumed.metrics) == timeless(full.metrics) and len(full.metrics) == 4
    for (ka, va), (kb, vb) in zip(a.model.state_dict().items(), b.model.state_dict().items()):
        assert ka == kb and torch.equal(va, vb), ka


def test_resume_refuses_an_env_that_does_not_replay_the_run(tmp_path: Path) -> None:
    env = make("single")
    with pytest.raises(RunInterrupted) as stop:
        agent = StopAt(SATPThompson.for_env(env, SATPThompsonArgs(seed=0)), 10)
        run_agent(agent, env, steps=30, seed=0, progress=False, out_dir=tmp_path)
    ckpt = load_checkpoint(stop.value.checkpoint)
    # another split: its theorems differ from the first reset on, whatever rewards its steps would give
    with pytest.raises(
        LeanGymError, match="first reset gave other observations .* resume on the env the checkpoint"
    ):
        run_agent(ckpt.agent, make("single", split="train"), steps=30, seed=0, progress=False, resume=ckpt)
    # the same env, but a recorded reward its replay does not give: found at that step
    with pytest.raises(LeanGymError, match="replaying the run's step .* resume on the env the checkpoint"):
        broke = ckpt.env_log.calls[0]
        ckpt.env_log.calls[0] = (
            broke[0],
            broke[1],
            broke[2] + 1.0,
        )  # as if the run had been rewarded otherwise
        run_agent(ckpt.agent, make("single"), steps=30, seed=0, progress=False, resume=ckpt)
    ckpt.env_log.calls[0] = broke
    with pytest.raises(ValueError, match="resume: seed=1, but the checkpointed run has seed=0"):
        run_agent(ckpt.agent, make("single"), steps=30, seed=1, progress=False, resume=ckpt)
    with pytest.raises(ValueError, match="resume with the checkpoint's agent"):
        run_agent(StopAt(None, 0), make("single"), steps=30, seed=0, progress=False, resume=ckpt)


def test_a_failed_write_leaves_the_previous_checkpoint_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = atomic_write(tmp_path / "checkpoint.pkl", b"the previous checkpoint")

    def crash(*a: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(path, b"half of a new one")
    assert path.read_bytes() == b"the previous checkpoint"
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint.pkl"]  # no temporary file left


def test_an_unpicklable_agent_is_one_clear_error(tmp_path: Path) -> None:
    env = make("single")
    agent = SATPThompson.for_env(env, cluster_fn=lambda goal: "")  # a lambda does not pickle
    with pytest.raises(LeanGymError, match="its agent does not pickle"):
        # seeded: an unseeded env draws its theorems at random, and a random config on one of them
        # (mathd_numbertheory_483) keeps the simulator busy until the check's 60 s timeout
        run_agent(agent, env, steps=2, progress=False, out_dir=tmp_path, seed=0)


# ------------------------------------------------------------------------------------------------ the CLI
ARGV = ["thompson", "--split", "test", "--log-every", "6", "--seed", "4", "--no-progress"]


def test_the_cli_stops_on_sigterm_and_resumes_to_the_uninterrupted_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = [*ARGV, "--steps", "40", "--vector-mode", "vector_entry_point", "--num-envs", "2"]
    assert run.main([*argv, "--out", str(tmp_path / "full")]) == 0
    build = run.build_agent
    monkeypatch.setattr(run, "build_agent", lambda *a: StopAt(build(*a), 16, signal.SIGTERM))
    assert run.main([*argv, "--out", str(tmp_path / "cut")]) == 128 + signal.SIGTERM
    err = capsys.readouterr().err.strip().splitlines()
    ckpt = tmp_path / "cut" / "checkpoint.pkl"
    assert err == [f"interrupted (SIGTERM) at step 16; go on with: {run.PROG} --resume {ckpt}"]
    # no agent named: it comes from the checkpoint, and so does every other flag
    assert run.main(["--resume", str(ckpt), "--no-progress"]) == 0
    assert "thompson train on LeanAesop-v0 (test): 40 steps" in capsys.readouterr().out
    full, cut = jsonl(tmp_path / "full" / "metrics.jsonl"), jsonl(tmp_path / "cut" / "metrics.jsonl")
    assert timeless(cut) == timeless(full) and len(full) >= 6


def test_the_cli_resume_keeps_the_run_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run.main([*ARGV, "--steps", "6", "--out", str(tmp_path)]) == 0
    ckpt = str(tmp_path / "checkpoint.pkl")
    capsys.readouterr()
    for argv, says in (
        (["--resume", ckpt, "--seed", "9"], "--seed differs from the checkpoint's (4)"),
        (["random", "--resume", ckpt], "a run of 'thompson', not 'random'"),
        (["--resume", ckpt, "--total-timesteps", "3"], "already took 6 steps"),
        (["--resume", str(tmp_path / "metrics.jsonl")], "cannot read checkpoint"),
    ):
        assert run.main(argv) == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("error: ") and says in line, line
    # a longer budget goes on from the checkpoint
    assert run.main(["--resume", ckpt, "--total-timesteps", "12", "--no-progress"]) == 0
    assert [r["global_step"] for r in jsonl(tmp_path / "metrics.jsonl")] == [6, 12]


@pytest.mark.slow
def test_a_killed_cli_run_resumes_to_the_uninterrupted_files(tmp_path: Path) -> None:
    argv = [*ARGV, "--steps", "240", "--save-every", "20", "--no-tensorboard"]
    assert run.main([*argv, "--out", str(tmp_path / "full")]) == 0
    child = subprocess.Popen(
        [sys.executable, "-m", "lean_gym_agents.run", *argv, "--out", str(tmp_path / "cut")],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert child.stdout is not None
    for line in child.stdout:  # the event: a checkpoint is on disk
        if line.startswith("checkpoint: step"):
            break
    child.kill()  # SIGKILL: no handler runs, no last checkpoint
    child.wait(timeout=120)
    child.stdout.close()
    assert run.main(["--resume", str(tmp_path / "cut" / "checkpoint.pkl"), "--no-progress"]) == 0
    full, cut = jsonl(tmp_path / "full" / "metrics.jsonl"), jsonl(tmp_path / "cut" / "metrics.jsonl")
    assert timeless(cut) == timeless(full)
