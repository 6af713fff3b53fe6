"""The agent interface, the runner over every env kind and vector mode, and the SATP Thompson sampler."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import lean_gym  # noqa: F401
from lean_gym.aesop import layout
from lean_gym.buffers import HistoryBuffer, RecordToBuffer
from lean_gym.data import load_theorems
from lean_gym_agents import (
    Agent,
    FixedActionAgent,
    SATPThompson,
    SATPThompsonArgs,
    Transitions,
    UniformRandomAgent,
    goal_cluster,
    pair_up,
    run_agent,
)
from lean_gym_agents.satp_thompson import AnchorPair

V1 = layout("satp-v1")


class Spy:
    """Plays plain aesop and keeps every batch it is asked to learn from."""

    def __init__(self, action: Any) -> None:
        self.action = action
        self.batches: list[Transitions] = []
        self.acted = 0

    def act(self, observations: Any, *, explore: bool = True) -> list[Any]:
        self.acted += len(observations)
        return [self.action for _ in observations]

    def update(self, batch: Transitions) -> dict[str, float]:
        self.batches.append(batch)
        return {"seen": float(len(batch))}


def make(kind: str, autoreset: str = "NextStep", env_id: str = "LeanAesop-v0") -> Any:
    kw: dict[str, Any] = {"backend": "sim", "split": "test"}
    if kind == "single":
        return gym.make(env_id, **kw)
    vec_kw: dict[str, Any] = {"autoreset_mode": gym.vector.AutoresetMode(autoreset)}
    if kind == "vector_entry_point":
        return gym.make_vec(env_id, num_envs=3, vectorization_mode=kind, **kw, **vec_kw)
    return gym.make_vec(env_id, num_envs=3, vectorization_mode=kind, vector_kwargs=vec_kw, **kw)


@pytest.mark.parametrize(
    ("kind", "autoreset"),
    [
        ("single", ""),
        ("sync", "NextStep"),
        ("sync", "SameStep"),
        ("async", "NextStep"),
        ("vector_entry_point", "NextStep"),
        ("vector_entry_point", "SameStep"),
        ("vector_entry_point", "Disabled"),
    ],
)
def test_runner_drives_every_env_kind(kind: str, autoreset: str) -> None:
    env = make(kind, autoreset or "NextStep")
    spy = Spy(V1.default_action())
    result = run_agent(spy, env, steps=12, seed=0, progress=False)
    env.close()
    assert 12 <= result.steps < 12 + 3
    seen = [info for b in spy.batches for info in b.infos]
    assert len(seen) == result.steps
    # every transition is a real check (a reset-only step of NEXT_STEP is never shown to the agent)
    assert all("tactic" in info and info["backend"] == "sim" for info in seen)
    assert all(isinstance(o, dict) and o["goal"] for b in spy.batches for o in b.observations)
    assert result.episodes == result.steps  # one attempt per episode
    assert 0.0 <= result.success_rate <= 1.0
    assert result.metrics and result.metrics[-1]["global_step"] == result.steps
    assert "losses/seen" in result.metrics[-1]


def test_runner_text_actions_on_the_proof_env() -> None:
    env = make("vector_entry_point", env_id="LeanProof-v0")
    spy = Spy("  sorry")
    result = run_agent(spy, env, steps=4, progress=False)
    env.close()
    assert result.steps >= 4 and result.successes == 0  # sorry never counts
    assert all(isinstance(a, str) for b in spy.batches for a in b.actions)


def test_runner_eval_does_not_update_and_writes_logs(tmp_path: Path) -> None:
    env = make("single")
    spy = Spy(V1.default_action())
    result = run_agent(spy, env, steps=10, train=False, out_dir=tmp_path, log_every=5, progress=False)
    assert spy.batches == [] and spy.acted == 10
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert [json.loads(x)["global_step"] for x in lines] == [5, 10]
    header = (tmp_path / "metrics.csv").read_text().splitlines()[0].split(",")
    # an evaluation run's figures go under eval/, a training run's under charts/ (CleanRL's names)
    assert {"global_step", "eval/success_rate", "eval/reward_mean", "eval/episodic_return"} <= set(header)
    png = result.paths["png"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_runner_rejects_a_wrong_number_of_actions() -> None:
    class Short(Spy):
        def act(self, observations: Any, *, explore: bool = True) -> list[Any]:
            return []

    with pytest.raises(ValueError, match="returned 0 actions for 1 observations"):
        run_agent(Short(None), make("single"), steps=1, progress=False)
    with pytest.raises(ValueError, match="steps must be at least 1"):
        run_agent(Short(None), make("single"), steps=0, progress=False)


def test_agents_satisfy_the_interface() -> None:
    env = make("single")
    for agent in (
        FixedActionAgent(V1.default_action()),
        UniformRandomAgent(env.action_space, seed=0),
        SATPThompson.for_env(env),
    ):
        assert isinstance(agent, Agent)
        obs, _ = env.reset(seed=1)
        (action,) = agent.act([obs])
        assert env.action_space.contains(action)


@pytest.mark.parametrize("kind", ["single", "sync", "async", "vector_entry_point"])
def test_thompson_finds_the_layout_s_default_action_in_every_env_kind(kind: str) -> None:
    # Gymnasium 1.x wrappers do not forward `layout`: a sync/async vector env used to give all zeros, which
    # is not plain aesop in satp-v1 (4 heads default to another level), so ablations went to the wrong levels
    env = make(kind)
    sampler = SATPThompson.for_env(env)
    env.close()
    assert (sampler.default_action == V1.default_action()).all() and V1.default_action().any()


def test_random_agent_is_reproducible_and_leaves_the_env_space_alone() -> None:
    env = make("single")
    a = UniformRandomAgent(env.action_space, seed=3).act([None] * 4)
    b = UniformRandomAgent(env.action_space, seed=3).act([None] * 4)
    assert all((x == y).all() for x, y in zip(a, b))


# ------------------------------------------------------------------------------------------------ Thompson
def goal_obs(name: str, lemmas: tuple[str, ...] = ("a",) * 8) -> dict[str, Any]:
    return {"goal": f"x : ℕ\n⊢ {name} = x", "lemmas": lemmas, "lemma_scores": np.zeros(8)}


def test_thompson_learns_the_level_that_proves() -> None:
    s = SATPThompson([5, 5, 5, 2], SATPThompsonArgs(seed=0, perturb_prob=0.0), cluster_fn=lambda g: "")
    rng = np.random.default_rng(0)
    for _ in range(400):
        obs = goal_obs(f"g{rng.integers(1000)}")
        (a,) = s.act([obs])
        s.observe(obs, a, 1.0 if a[2] == 3 else -1.0)
    assert s.greedy()[2] == 3
    mean = s.mean()
    assert mean[2, 3] > max(mean[2, level] for level in (0, 1, 2, 4))


def test_thompson_clusters_learn_separately() -> None:
    s = SATPThompson([4], SATPThompsonArgs(seed=1, perturb_prob=0.0), cluster_fn=lambda g: g[-1])
    for t in range(300):
        for cluster, good in (("A", 1), ("B", 2)):
            obs = {"goal": f"{t}{cluster}"}
            (a,) = s.act([obs])
            s.observe(obs, a, 1.0 if a[0] == good else -1.0)
    assert s.greedy("A")[0] == 1 and s.greedy("B")[0] == 2
    (ga,) = s.act([{"goal": "newA"}], explore=False)
    assert ga[0] == 1


def test_anchor_perturbation_makes_one_diff_pairs() -> None:
    s = SATPThompson(V1.nvec, SATPThompsonArgs(seed=2), default_action=V1.default_action())
    obs = goal_obs("p")
    anchor = np.zeros(40, dtype=np.int64)
    anchor[12] = 2
    assert s.observe(obs, anchor, 1.0) is None and s.proved(obs)
    for _ in range(10):
        cand, perturbed = s.propose(obs)
        assert perturbed
        diff = np.flatnonzero(cand != anchor)
        assert diff.size == 1
        pair = s.observe(obs, cand, -1.0)
        assert pair == AnchorPair(pair.goal_key, tuple(anchor.tolist()), tuple(cand.tolist()), int(diff[0]))
    assert len(s.pairs) == 10
    assert len({p.rejected for p in s.pairs}) == 10  # never the same perturbation twice


def test_thompson_never_repeats_a_config_on_a_goal() -> None:
    s = SATPThompson([2, 2], SATPThompsonArgs(seed=3, perturb_prob=0.0))
    obs = {"goal": "⊢ q"}
    tried = set()
    for _ in range(4):
        (a,) = s.act([obs])
        tried.add(tuple(a.tolist()))
        s.observe(obs, a, -1.0)
    assert len(tried) == 4


def test_pair_weight_credits_only_the_differing_head() -> None:
    s = SATPThompson([3, 3], SATPThompsonArgs(pair_weight=5.0), cluster_fn=lambda g: "")
    s.observe({"goal": "g"}, [1, 0], 1.0)
    s.observe({"goal": "g"}, [1, 2], -1.0)
    a, b = s.posterior()
    assert a[1, 0] == 1 + 1 + 5 and b[1, 2] == 1 + 1 + 5  # prior + try + pair
    assert a[0, 1] == 1 + 1 and b[0, 1] == 1 + 1  # the shared head: only the tries


def test_thompson_rejects_a_bad_nvec() -> None:
    with pytest.raises(ValueError, match="positive choice counts"):
        SATPThompson([])
    with pytest.raises(ValueError, match="positive choice counts"):
        SATPThompson([3, 0])


def test_goal_cluster_reads_the_goal_shape() -> None:
    assert goal_cluster("x y : ℝ\nh₀ : x ≤ y\n⊢ x ^ 2 ≤ y ^ 2").startswith("ineq/ℝ/nl")
    assert goal_cluster("p q : Prop\n⊢ p ∧ q → q").startswith("logic/Prop")
    assert goal_cluster("n : ℕ\n⊢ 3 ∣ n * 3") != goal_cluster("n : ℕ\n⊢ n + 0 = n")


def test_thompson_tries_are_recorded_in_the_public_schema_with_diff_head(tmp_path: Path) -> None:
    theorems = load_theorems("sim", split="train", limit=10)  # 15 tries per goal
    env = RecordToBuffer(
        gym.make("LeanAesop-v0", backend="sim", theorems=theorems), tmp_path / "t.jsonl", fsync=False
    )
    sampler = SATPThompson.for_env(env, SATPThompsonArgs(seed=0))
    run_agent(sampler, env, steps=150, seed=0, progress=False)
    env.close()
    tries = HistoryBuffer.load(tmp_path / "t.jsonl")
    assert len(tries) == 150  # every try recorded, none repeated on its goal
    assert sampler.pairs, "anchor perturbation found no 1-diff pair in 150 tries"
    paired = pair_up(tries)
    assert len(paired) == len(tries)
    paired.save(tmp_path / "paired.jsonl")
    rows = [json.loads(line) for line in (tmp_path / "paired.jsonl").read_text().splitlines()]
    both = [r for r in rows if r["arm_good_action"] and r["arm_bad_action"]]
    assert both and all(r["diff_head"] >= 0 for r in both)
    assert all(r["diff_head"] == -1 for r in rows if not (r["arm_good_action"] and r["arm_bad_action"]))
    back = HistoryBuffer.load(tmp_path / "paired.jsonl")
    stats = back.stats()
    assert stats.stored_pairs == len(both) and stats.diff_head_mismatches == 0
    for pair in back.pairs():
        diff = [i for i, (x, y) in enumerate(zip(pair.chosen_action, pair.rejected_action)) if x != y]
        assert diff == [pair.diff_head]
    # the sampler's own pairs are among the stored ones (by goal text, chosen and rejected config)
    assert {(p.chosen, p.rejected) for p in sampler.pairs} & {
        (pr.chosen_action, pr.rejected_action) for pr in back.pairs()
    }


def test_the_agents_package_imports_without_torch() -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "import lean_gym, lean_gym_agents\n"
        "from lean_gym_agents import SATPThompson, run_agent, ThompsonBandit\n"
        "try:\n    lean_gym_agents.DPOPolicy\nexcept ImportError:\n    print('no torch, no DPO')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "no torch, no DPO"


def test_run_module_trains_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from lean_gym_agents.run import main

    argv = ["thompson", "--steps", "8", "--vector-mode", "vector_entry_point", "--num-envs", "2"]
    assert main([*argv, "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "backend: sim  (the simulator, not Lean)" in out and "thompson train on LeanAesop-v0" in out
    assert (tmp_path / "metrics.jsonl").is_file()


def test_run_module_user_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    from lean_gym_agents.run import main

    pytest.importorskip("torch", reason="the dpo command needs torch (agents extra)")
    assert main(["dpo", "--checkpoint", "/nonexistent/p.pt", "--steps", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: cannot read DPO checkpoint") and err.count("\n") == 1
    assert main(["plain", "--env", "LeanProof-v0", "--steps", "1", "--no-progress"]) == 2
    assert "needs a LeanAesop env" in capsys.readouterr().err
