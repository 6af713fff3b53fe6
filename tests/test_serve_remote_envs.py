"""The envs' core cases with ``backend="http://…"``: a ``RemoteBackend`` over a live ``lean-gym serve``.

The server holds the in-process simulator (``sim``), so every verdict here is the simulator's and names it;
each case is one of ``tests/test_proof_env.py``'s simulator cases, run through HTTP, or a step-for-step
comparison with the same env on ``backend="sim"`` in this process.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from serve_helpers import running_server

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.backends import SimBackend
from lean_gym.envs.proof_env import LeanProofEnv

HEADER = "import Mathlib\n\nopen Real\n\n"
THMS = [
    {
        "name": "t0",
        "formal_statement": "theorem t0 (x : ℝ) (h₀ : 0 ≤ x) : 0 ≤ x ^ 2 := by\n",
        "header": HEADER,
    },
    {"name": "t1", "formal_statement": "theorem t1 (a b : ℕ) : a + b = b + a := by\n", "header": HEADER},
    {"name": "t2", "formal_statement": "theorem t2 : (2 : ℕ) + 2 = 4 := by\n", "header": HEADER},
]


@pytest.fixture(scope="module")
def url():
    with running_server(SimBackend()) as (base, _):
        yield base


@pytest.mark.parametrize("env_id", ["LeanProof-v0", "LeanHackable-v0"])
def test_check_env_through_the_server(url, env_id: str) -> None:
    env = gym.make(env_id, backend=url, split="test", max_turns=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", category=UserWarning)
        check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_multi_turn_feedback_through_the_server_is_the_simulators_text(url) -> None:
    env = LeanProofEnv(backend=url, theorems=THMS, max_turns=3)
    env.reset(options={"index": 0})
    _, reward, terminated, _, info = env.step("linarith")
    assert (reward, terminated, info["status"], info["backend"]) == (-1.0, False, "error", "sim")
    assert info["messages"].startswith("2:2: error: linarith failed to find a contradiction")
    _, reward, terminated, _, info = env.step("nlinarith [sq_nonneg x]")
    assert (reward, terminated, info["turn"], info["hack_class"]) == (1.0, True, 2, None)
    assert info["axioms"] == ["propext", "Classical.choice", "Quot.sound"]


def test_pooled_vector_env_through_the_server(url) -> None:
    venv = gym.make_vec(
        "LeanProof-v0", num_envs=3, vectorization_mode="vector_entry_point", backend=url, theorems=THMS
    )
    venv.reset(seed=0, options={"index": [0, 1, 2]})
    _, rewards, _, _, infos = venv.step(("positivity", "omega", "sorry"))
    assert rewards.tolist() == [1.0, 1.0, -1.0]
    # the two checks name the server's backend; the sorry, refused before any check, the client, which
    # names the server's backend too (the simulator, not Lean)
    assert list(infos["backend"]) == ["sim", "sim", f"sim via {url}"]
    assert list(infos["hack_class"]) == [None, None, "sorry"]
    venv.close()


def test_async_vector_env_workers_each_reach_the_server(url) -> None:
    # each worker process unpickles the URL and builds its own RemoteBackend there
    venv = gym.make_vec(
        "LeanProof-v0", num_envs=2, vectorization_mode="async", backend=url, theorems=THMS[1:]
    )
    venv.reset(seed=0)
    _, rewards, _, _, infos = venv.step(("omega", "omega"))  # proves t1 and t2 both
    assert rewards.tolist() == [1.0, 1.0] and list(infos["backend"]) == ["sim", "sim"]
    venv.close()


@pytest.mark.parametrize("env_id", ["LeanAesop-v0", "LeanHackable-v0"])
def test_remote_steps_match_in_process_steps(url, env_id: str) -> None:
    local = gym.make(env_id, backend="sim", split="test")
    remote = gym.make(env_id, backend=url, split="test")
    rng = np.random.default_rng(0)
    for episode in range(3):
        o1, _ = local.reset(seed=episode)
        o2, _ = remote.reset(seed=episode)
        assert str(o1) == str(o2)
        for _ in range(2):
            action = (
                local.action_space.sample()
                if env_id == "LeanAesop-v0"
                else ["  simp", "  omega", "  sorry"][rng.integers(3)]
            )
            a = local.step(action)
            b = remote.step(action)
            assert a[1:4] == b[1:4] and str(a[0]) == str(b[0])
            if a[2] or a[3]:
                break
    local.close()
    remote.close()


def test_eval_through_the_server_reports_what_it_reports_in_process(url, tmp_path, capsys) -> None:
    import json

    from lean_gym.cli import main
    from lean_gym.data import load_theorems

    rows = [
        {"name": t.name, "proofs": ["  simp", "  omega", "  sorry"]}
        for t in load_theorems("sim", split="test", limit=3)
    ]
    cands = tmp_path / "c.jsonl"
    cands.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    reports = []
    for backend in ("sim", url):
        assert (
            main(
                [
                    "eval",
                    str(cands),
                    "--split",
                    "test",
                    "-k",
                    "1,2",
                    "--backend",
                    backend,
                    "--quiet",
                    "--json",
                ]
            )
            == 0
        )
        reports.append(json.loads(capsys.readouterr().out))
    local, remote = reports
    assert remote["pass@k"] == local["pass@k"] and remote["backend"] == f"sim via {url}"
    assert main(["eval", str(cands), "--split", "test", "-k", "1", "--backend", url, "--quiet"]) == 0
    assert "(the simulator, not Lean)" in capsys.readouterr().out


def test_async_trl_reward_through_the_server_matches_the_sync_one_in_process(url) -> None:
    import asyncio
    import threading

    from trl.trainer.utils import is_async_callable

    from lean_gym.integrations.trl import AsyncOracleReward, OracleReward

    thm = {"name": "t_comm", "formal_statement": "theorem t_comm (a b : Nat) : a + b = b + a := by\n"}
    completions = [
        "  omega",
        "  sorry",
        "theorem t_comm (a b : Nat) : a + b = a + b := by\n  rfl",
        "  simp [nope]",
    ]
    columns = {"name": ["t_comm"] * 4, "formal_statement": [thm["formal_statement"]] * 4, "header": [""] * 4}
    want = OracleReward("sim")(prompts=["p"] * 4, completions=completions, **columns)
    reward = AsyncOracleReward(url)
    assert is_async_callable(reward)  # TRL's own test: it will await it on its loop thread
    out: dict = {}
    # as TRL does: the coroutine runs on a loop in another thread than the one that made the reward
    t = threading.Thread(
        target=lambda: out.setdefault(
            "r", asyncio.run(reward(prompts=["p"] * 4, completions=completions, **columns))
        )
    )
    t.start()
    t.join(60)
    assert out["r"] == want == [1.0, -1.0, -1.0, -1.0]
    reward.close()
