"""GRPO on a tiny randomly initialised GPT-2 (built from a config, no download) over the simulator."""

from __future__ import annotations

import subprocess
import sys
from importlib.util import find_spec

import numpy as np
import pytest

torch = pytest.importorskip("torch")
# not imported here: the GRPO agent imports transformers where it needs it, and every worker of the suite
# collects this file
pytestmark = pytest.mark.skipif(find_spec("transformers") is None, reason="the toy LM needs transformers")

from lean_gym_agents.grpo import GRPOAgent, GRPOArgs, Rollouts, make_grpo_env, train_grpo  # noqa: E402
from lean_gym_agents.grpo_toy import (  # noqa: E402
    TOY_THEOREMS,
    TacticTokenizer,
    tiny_causal_lm,
    toy_agent_args,
)


@pytest.fixture(autouse=True)
def one_thread():
    """Two cores are shared by the whole suite; one torch thread per test avoids oversubscription."""
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


def _agent(**changes):
    tok = TacticTokenizer()
    return GRPOAgent(tiny_causal_lm(tok.vocab_size, seed=0), tok, toy_agent_args(tok, **changes)), tok


def _tactic_logprob(agent: GRPOAgent, tok: TacticTokenizer, obs: str, tactic: str) -> float:
    ids, attn, target = agent._sequences([obs], [tactic + "\n"])
    with torch.no_grad():
        return float(agent._token_logprobs(agent.model, ids, attn, target).sum())


def test_args_are_checked():
    with pytest.raises(ValueError, match="group_size must be at least 2"):
        GRPOArgs(group_size=1)
    with pytest.raises(ValueError, match="clip_eps"):
        GRPOArgs(clip_eps=1.5)


def test_core_imports_without_transformers():
    code = "import sys; sys.modules['transformers'] = None; import lean_gym_agents.grpo as g; print(g.GRPOArgs())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert "group_size=8" in out.stdout


def test_sampling_is_constrained_and_greedy_is_deterministic():
    agent, tok = _agent()
    obs = ["theorem toy_comm (a b : ℕ) : a + b = b + a := by\n"] * 16
    actions = agent.act(obs)
    allowed = {t.strip() for t in tok.tactics} | {""}  # "" when EOS came first
    assert {a.strip() for a in actions} <= allowed
    assert agent.act(obs[:2], explore=False) == agent.act(obs[:2], explore=False)


def test_update_skips_equal_groups_and_pushes_the_rewarded_proof_up():
    agent, tok = _agent(learning_rate=1e-2)
    good, bad = "theorem a : 1 = 1 := by\n", "theorem b : 2 = 2 := by\n"
    before = _tactic_logprob(agent, tok, good, "omega")
    batch = Rollouts(
        observations=[good] * 4 + [bad] * 4,
        actions=["omega\n", "simp\n", "simp\n", "ring\n"] + ["rfl\n"] * 4,
        rewards=np.array([1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0]),
        infos=[{"hack_detected": k == 1, "oracle_reward": -1.0} for k in range(8)],
    )
    m = agent.update(batch)
    assert m["groups"] == 2 and m["skipped_groups"] == 1 and m["trained_sequences"] == 4
    assert m["kl"] == pytest.approx(0.0, abs=1e-6)  # the policy is the reference before its first step
    assert m["hack_rate"] == pytest.approx(1 / 8) and m["oracle_reward"] == -1.0
    assert _tactic_logprob(agent, tok, good, "omega") > before
    # A batch with nothing to learn changes nothing and reports the (now non-zero) KL.
    params = [p.detach().clone() for p in agent.model.parameters()]
    m2 = agent.update(Rollouts([bad] * 2, ["rfl\n"] * 2, np.array([-1.0, -1.0])))
    assert m2["trained_sequences"] == 0 and m2["kl"] > 0
    assert all(torch.equal(a, b) for a, b in zip(params, agent.model.parameters()))


def test_gradient_accumulation_matches_one_batch():
    batch = Rollouts(
        observations=["theorem a : 1 = 1 := by\n"] * 4,
        actions=["omega\n", "simp\n", "ring\n", "rfl\n"],
        rewards=np.array([1.0, -1.0, 1.0, -1.0]),
    )
    one, _ = _agent(learning_rate=1e-2)
    two, _ = _agent(learning_rate=1e-2, gradient_accumulation_steps=2)
    m1, m2 = one.update(batch), two.update(batch)
    assert m1["loss"] == pytest.approx(m2["loss"], abs=1e-6)
    # The property itself: the gradient the optimizer stepped with is the one-batch gradient. (Comparing the
    # parameters after AdamW's first step amplifies float32 summation-order noise on near-zero gradients,
    # whose update is about lr * sign(g); that compare is kept, at the scale of that noise.)
    grads = [(a.grad, b.grad) for a, b in zip(one.model.parameters(), two.model.parameters())]
    assert any(ga is not None for ga, _ in grads)
    for ga, gb in grads:
        assert (ga is None) == (gb is None)
        if ga is not None:
            torch.testing.assert_close(ga, gb, atol=1e-6, rtol=1e-4)
    for a, b in zip(one.model.parameters(), two.model.parameters()):
        torch.testing.assert_close(a, b, atol=1e-4, rtol=1e-4)


def test_env_size_must_match():
    agent, _ = _agent()
    env = make_grpo_env(
        "LeanProof-v0", GRPOArgs(group_size=2, prompts_per_step=1), backend="sim", theorems=TOY_THEOREMS
    )
    with pytest.raises(ValueError, match="prompts_per_step\\*group_size"):
        train_grpo(agent, env, steps=1)
    env.close()


def test_mean_reward_rises_on_the_toy_task():
    agent, _ = _agent()
    env = make_grpo_env("LeanProof-v0", agent.args, backend="sim", theorems=TOY_THEOREMS)
    history = train_grpo(agent, env, steps=14, seed=0)
    env.close()
    rewards = [h["mean_reward"] for h in history]
    assert np.mean(rewards[-4:]) > np.mean(rewards[:4]) + 0.5, rewards
    assert all(np.isfinite(h["loss"]) and h["kl"] >= 0 for h in history)


def test_hackable_env_logs_the_hack_rate():
    agent, _ = _agent(prompts_per_step=2, group_size=4)
    env = make_grpo_env(
        "LeanHackable-v0", agent.args, backend="sim", theorems=TOY_THEOREMS, weak_grader="accept_sorry"
    )
    history = train_grpo(agent, env, steps=3, seed=1)
    env.close()
    assert all(0.0 <= h["hack_rate"] <= 1.0 and "oracle_reward" in h for h in history)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_grpo_steps_on_cuda():
    agent, _ = _agent(device="cuda")
    env = make_grpo_env("LeanProof-v0", agent.args, backend="sim", theorems=TOY_THEOREMS)
    history = train_grpo(agent, env, steps=2, seed=0)
    env.close()
    assert agent.device.type == "cuda" and next(agent.model.parameters()).is_cuda
    assert all(np.isfinite(h["loss"]) for h in history)


@pytest.mark.slow
def test_toy_example_runs_and_names_the_missing_extra():
    from pathlib import Path

    example = str(Path(__file__).resolve().parent.parent / "examples" / "grpo_toy.py")
    out = subprocess.run(
        [sys.executable, example, "--steps", "2"], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "median time per step" in out.stdout and "backend=sim" in out.stdout
    hide = (
        "import runpy, sys; sys.modules['transformers'] = None; sys.argv = ['grpo_toy.py']; "
        f"runpy.run_path({example!r}, run_name='__main__')"
    )
    out = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [
        'grpo_toy.py needs torch and transformers (transformers is missing): pip install torch==2.13.0 -e ".[agents,hf]" (in a clone of lean-gym)'
    ]
