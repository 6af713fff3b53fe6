"""The runner's episode statistics (``info["episode"]``), its namespaced metrics and where they go: JSONL,
TensorBoard event files (read back), W&B; and GRPO through the runner's one loop (simulator)."""

from __future__ import annotations

import dataclasses
import json
import struct
import sys
import types
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import lean_gym  # noqa: F401  (registers the env ids)
import lean_gym_agents.run as run
from lean_gym_agents import Transitions, load_checkpoint, run_agent
from lean_gym_agents.checkpoint import save_checkpoint
from lean_gym_agents.metrics import JsonlLog, namespaced

ARGV = ["thompson", "--split", "test", "--seed", "2", "--log-every", "4", "--no-progress"]


class Spy:
    """Random configs; keeps every transition, per sub-env."""

    def __init__(self, space: Any) -> None:
        self.space = space
        self.space.seed(0)
        self.by_env: dict[int, list[tuple[float, bool, dict[str, Any]]]] = {}

    def act(self, observations: Any, *, explore: bool = True) -> list[Any]:
        return [self.space.sample() for _ in observations]

    def update(self, batch: Transitions) -> dict[str, float]:
        for i, r, t, u, info in zip(
            batch.env_ids, batch.rewards, batch.terminated, batch.truncated, batch.infos
        ):
            self.by_env.setdefault(int(i), []).append((float(r), bool(t or u), info))
        return {"seen": float(len(batch)), "mine/own": 1.0}


def make(kind: str, autoreset: str) -> Any:
    kw: dict[str, Any] = {"backend": "sim", "split": "test", "max_attempts": 3}
    mode = {"autoreset_mode": gym.vector.AutoresetMode(autoreset)}
    if kind == "single":
        return gym.make("LeanAesop-v0", **kw)
    if kind == "vector_entry_point":
        return gym.make_vec("LeanAesop-v0", num_envs=3, vectorization_mode=kind, **kw, **mode)
    return gym.make_vec("LeanAesop-v0", num_envs=3, vectorization_mode=kind, vector_kwargs=mode, **kw)


@pytest.mark.parametrize(
    ("kind", "autoreset"),
    [
        ("single", "NextStep"),
        ("sync", "NextStep"),
        ("sync", "Disabled"),  # Gymnasium's wrapper alone gets these wrong (see runner._EpisodeStatistics)
        ("async", "SameStep"),
        ("vector_entry_point", "SameStep"),
        ("vector_entry_point", "Disabled"),
    ],
)
def test_each_episode_ends_with_its_statistics_in_info(kind: str, autoreset: str) -> None:
    env = make(kind, autoreset)
    spy = Spy(gym.spaces.MultiDiscrete(env.unwrapped.layout.nvec if kind == "single" else [5] * 36 + [2] * 4))
    result = run_agent(spy, env, steps=40, seed=1, progress=False, log_every=8)
    env.close()
    episodes = 0
    for steps in spy.by_env.values():
        ret, length = 0.0, 0
        for reward, done, info in steps:
            ret, length = ret + reward, length + 1
            assert ("episode" in info) == done
            if done:
                assert set(info["episode"]) == {"r", "l", "t"} and info["episode"]["t"] >= 0
                assert (info["episode"]["r"], info["episode"]["l"]) == (ret, length)
                episodes += 1
                ret, length = 0.0, 0
    assert episodes == result.episodes > 0
    lengths = [
        r["charts/episodic_length"]
        for r in result.metrics
        if r["charts/episodic_length"] == r["charts/episodic_length"]
    ]
    assert lengths and all(1 <= x <= 3 for x in lengths) and max(lengths) > 1


def test_rows_are_namespaced_as_cleanrl_s() -> None:
    env = make("single", "NextStep")
    result = run_agent(Spy(env.action_space), env, steps=6, seed=0, progress=False, log_every=3)
    assert set(result.metrics[0]) == {
        "global_step", "charts/episodes", "charts/episodic_return", "charts/episodic_length",
        "charts/success_rate", "charts/success_so_far", "charts/reward_mean", "charts/SPS",
        "losses/seen", "mine/own",
    }  # fmt: skip
    assert namespaced("loss") == "losses/loss" and namespaced("eval/x") == "eval/x"


def test_a_metrics_log_longer_than_its_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "metrics.jsonl").write_text("{}\n")
    with pytest.raises(OSError, match="not the metrics log of this run"):
        JsonlLog(tmp_path / "metrics.jsonl", resume_at=100)


# ------------------------------------------------------------------------------------------------ TensorBoard
def read_events(folder: Path) -> tuple[dict[str, dict[int, float]], list[int]]:
    """Every scalar of the event files in ``folder`` as TensorBoard shows them, and the purge steps: files in
    name order, a ``SessionLog.START`` at step ``s`` (a resumed run's ``purge_step``) hiding what came before
    at ``s`` or later."""
    from tensorboardX.proto import event_pb2

    scalars: dict[str, dict[int, float]] = {}
    purges: list[int] = []
    files = sorted(folder.glob("events.out.tfevents.*"))
    assert files, f"no event file in {folder}"
    for path in files:
        data, i = path.read_bytes(), 0
        while i < len(data):
            (n,) = struct.unpack("<Q", data[i : i + 8])
            event = event_pb2.Event.FromString(data[i + 12 : i + 12 + n])
            i += 12 + n + 4  # length, its crc, the event, its crc
            if event.HasField("session_log") and event.session_log.status == event_pb2.SessionLog.START:
                purges.append(event.step)
                for series in scalars.values():
                    for step in [s for s in series if s >= event.step]:
                        del series[step]
            for value in event.summary.value:
                scalars.setdefault(value.tag, {})[event.step] = value.simple_value
    return scalars, purges


def expected(rows: list[dict[str, Any]]) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {}
    for row in rows:
        for k, v in row.items():
            if k != "global_step" and v is not None:
                out.setdefault(k, {})[int(row["global_step"])] = v
    return out


def test_tensorboard_event_files_hold_every_logged_number(tmp_path: Path) -> None:
    pytest.importorskip("tensorboardX", reason="TensorBoard logging needs tensorboardX (agents extra)")
    assert run.main([*ARGV, "--steps", "12", "--out", str(tmp_path)]) == 0
    rows = [json.loads(x) for x in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    (got, purges), want = read_events(tmp_path / "tensorboard"), expected(rows)
    assert purges == []
    assert got.keys() == want.keys() and "charts/success_so_far" in got and "losses/tries" in got
    for tag, series in want.items():
        assert got[tag].keys() == series.keys()
        assert all(got[tag][s] == pytest.approx(v, rel=1e-6) for s, v in series.items()), tag


class CrashAt:
    """The wrapped agent, which raises (as a crash would) once it has learned from ``at`` steps."""

    def __init__(self, agent: Any, at: int) -> None:
        self.agent, self.at, self.seen = agent, at, 0

    def act(self, observations: Any, *, explore: bool = True) -> list[Any]:
        return self.agent.act(observations, explore=explore)

    def update(self, batch: Transitions) -> dict[str, float]:
        self.seen += len(batch)
        if self.at and self.seen >= self.at:
            raise RuntimeError("crash")
        return self.agent.update(batch)


def test_a_resumed_run_hides_the_events_it_writes_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("tensorboardX", reason="TensorBoard logging needs tensorboardX (agents extra)")
    argv = [*ARGV, "--steps", "20", "--save-every", "8"]
    assert run.main([*argv, "--out", str(tmp_path / "full")]) == 0
    build = run.build_agent
    monkeypatch.setattr(run, "build_agent", lambda *a: CrashAt(build(*a), 14))
    cut = tmp_path / "cut"
    with pytest.raises(RuntimeError, match="crash"):  # after the checkpoint at step 8 and the row at step 12
        run.main([*argv, "--out", str(cut)])
    monkeypatch.setattr(run, "build_agent", build)
    crashed, _ = read_events(cut / "tensorboard")
    assert sorted(crashed["charts/success_so_far"]) == [4, 8, 12]
    # the checkpoint's agent is the crashing wrapper: resume on the agent inside it (the bug fixed, say)
    ckpt = load_checkpoint(cut / "checkpoint.pkl")
    save_checkpoint(cut / "checkpoint.pkl", dataclasses.replace(ckpt, agent=ckpt.agent.agent))
    assert run.main(["--resume", str(cut / "checkpoint.pkl"), "--no-progress"]) == 0
    assert len(list((cut / "tensorboard").glob("events.out.tfevents.*"))) == 2  # both parts kept
    full, _ = read_events(tmp_path / "full" / "tensorboard")
    got, purges = read_events(cut / "tensorboard")
    assert purges == [9]  # the events at step 9 and after (step 12's) are hidden, then written again
    assert got.keys() == full.keys()
    for tag in full:
        if not tag.endswith("/SPS"):
            assert got[tag] == full[tag], tag
    rows = [json.loads(x)["global_step"] for x in (cut / "metrics.jsonl").read_text().splitlines()]
    assert rows == [4, 8, 12, 16, 20]  # the crashed run's row at 12 was cut from the log, then written again


# ------------------------------------------------------------------------------------------------ W&B
class FakeWandb(types.ModuleType):
    """Records what the runner asks of ``wandb`` (the real one is not a test dependency)."""

    def __init__(self) -> None:
        super().__init__("wandb")
        self.inits: list[dict[str, Any]] = []
        self.logged: list[tuple[int, dict[str, float]]] = []
        self.finished = 0

    def init(self, **kwargs: Any) -> Any:
        self.inits.append(kwargs)
        fake = self
        run_id = kwargs["id"] or f"run{len(self.inits)}"

        class Run:
            id = run_id

            def log(self, row: dict[str, float], step: int) -> None:
                fake.logged.append((step, row))

            def finish(self) -> None:
                fake.finished += 1

        return Run()


def test_track_logs_to_wandb_and_a_resume_goes_on_with_the_same_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeWandb()
    monkeypatch.setitem(sys.modules, "wandb", fake)
    argv = [*ARGV, "--steps", "8", "--out", str(tmp_path), "--track", "--wandb-project-name", "p"]
    assert run.main(argv) == 0
    (first,) = fake.inits
    assert first["project"] == "p" and first["id"] is None and first["resume"] == "allow"
    assert first["name"] == "LeanAesop-v0__thompson__2" and first["config"]["seed"] == 2
    assert [s for s, _ in fake.logged] == [4, 8] and "charts/success_so_far" in fake.logged[0][1]
    assert fake.finished == 1
    assert (
        run.main(["--resume", str(tmp_path / "checkpoint.pkl"), "--total-timesteps", "12", "--no-progress"])
        == 0
    )
    assert fake.inits[1]["id"] == "run1"  # the same W&B run, from the checkpoint
    assert [s for s, _ in fake.logged] == [4, 8, 12]


def test_wandb_offline_run_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("wandb", reason="wandb is not a dependency of lean-gym: install it to run this")
    monkeypatch.setenv("WANDB_MODE", "offline")
    assert run.main([*ARGV, "--steps", "4", "--out", str(tmp_path), "--track"]) == 0
    assert list((tmp_path / "wandb").glob("offline-run-*"))


# ------------------------------------------------------------------------------------------------ GRPO
def test_grpo_through_the_runner_is_train_grpo(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch", reason="GRPO needs torch")
    pytest.importorskip("transformers", reason="the toy LM is built with transformers (hf extra)")
    from lean_gym_agents.grpo import GroupResets, GRPOAgent, make_grpo_env, train_grpo
    from lean_gym_agents.grpo_toy import TOY_THEOREMS, TacticTokenizer, tiny_causal_lm, toy_agent_args

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        tok = TacticTokenizer()
        args = toy_agent_args(tok, group_size=4, prompts_per_step=2)

        def agent() -> GRPOAgent:
            return GRPOAgent(tiny_causal_lm(tok.vocab_size, seed=0), tok, args)

        env = make_grpo_env("LeanProof-v0", args, backend="sim", theorems=TOY_THEOREMS)
        history = train_grpo(agent(), env, steps=3, seed=4)
        env.close()
        disabled = gym.vector.AutoresetMode.DISABLED
        env = make_grpo_env(
            "LeanProof-v0", args, backend="sim", theorems=TOY_THEOREMS, autoreset_mode=disabled
        )
        result = run_agent(agent(), GroupResets(env, args, 4), steps=24, seed=4, progress=False, log_every=8)
        env.close()
    finally:
        torch.set_num_threads(threads)
    assert len(result.metrics) == len(history) == 3
    for row, step in zip(result.metrics, history):
        for key in ("loss", "kl", "mean_reward", "groups", "skipped_groups", "trained_sequences"):
            assert row[f"losses/{key}"] == pytest.approx(step[key], rel=1e-6, abs=1e-9), key
    assert np.isclose(result.mean_reward, np.mean([h["mean_reward"] for h in history]))
