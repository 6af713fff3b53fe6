"""The DPO aesop policy: encoders, lemma-aware heads, the three losses, greedy decoding, checkpoints."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the DPO policy needs torch (the agents extra)")
torch.set_num_threads(1)  # tiny models: a second thread only adds contention on a shared CI machine

import lean_gym  # noqa: E402, F401
from lean_gym.aesop import layout  # noqa: E402
from lean_gym.buffers import HistoryBuffer  # noqa: E402
from lean_gym.errors import LeanGymError  # noqa: E402
from lean_gym_agents import Agent  # noqa: E402
from lean_gym_agents.dpo import DPOArgs, DPOPolicy, HFEncoder, PolicyData, resolve_device  # noqa: E402

V1 = layout("satp-v1")
TINY = {"d_model": 16, "n_layers": 1, "n_heads": 2, "batch_size": 16, "learning_rate": 3e-3}
LEMMAS = ("sq_nonneg", "add_comm", "", "not an ident", "", "", "", "")


def obs(goal: str, lemmas: tuple[str, ...] = LEMMAS) -> dict:
    return {"goal": goal, "lemmas": lemmas, "lemma_scores": np.linspace(1, 0, 8).astype(np.float32)}


def act(level_at: dict[int, int]) -> np.ndarray:
    a = V1.default_action()
    for h, lv in level_at.items():
        a[h] = lv
    return a


def buffer_of(rows: list[tuple[str, np.ndarray, float]]) -> HistoryBuffer:
    buf = HistoryBuffer()
    for goal, action, reward in rows:
        buf.add(goal=goal, action=action, reward=reward, lemmas=list(LEMMAS[:2]), lemma_scores=[1.0, 0.5])
    return buf


A, B = "x : ℝ\n⊢ 0 ≤ x ^ 2", "n : ℕ\nh : n < 3\n⊢ n ≤ 5"


def test_policy_is_an_agent_and_decodes_one_valid_action_per_goal() -> None:
    p = DPOPolicy("satp-v1", DPOArgs(**TINY))
    assert isinstance(p, Agent)
    assert p.device == resolve_device("auto")
    space = gym.spaces.MultiDiscrete(V1.nvec)
    for explore in (False, True):
        actions = p.act([obs(A), obs(B), obs(A)], explore=explore)
        assert len(actions) == 3 and all(space.contains(a) for a in actions)
        # slots 2.. hold no usable lemma (empty or not an identifier): their heads can only be off
        assert all((a[26:32] == 0).all() for a in actions)
    g1, _, g3 = p.act([obs(A), obs(B), obs(A)], explore=False)
    assert (g1 == g3).all()  # greedy: one action per goal


def test_lemma_heads_read_the_lemma_text() -> None:
    p = DPOPolicy("satp-v1", DPOArgs(**TINY))
    a = p.logits([obs(A, ("sq_nonneg",) + ("",) * 7)])[0, 24]
    b = p.logits([obs(A, ("add_comm",) + ("",) * 7)])[0, 24]
    assert not torch.allclose(a, b)
    other = p.logits([obs(A, ("add_comm",) + ("",) * 7)])[0, :24]
    assert torch.allclose(p.logits([obs(A, ("sq_nonneg",) + ("",) * 7)])[0, :24], other)


def test_behaviour_cloning_learns_a_config_per_goal() -> None:
    rows = [(A, act({5: 3}), 1.0), (B, act({5: 1, 12: 4}), 1.0)]
    args = DPOArgs(**{**TINY, "learning_rate": 1e-2}, nl_coef=0.0, ref_warmup_steps=10**6)
    p = DPOPolicy("satp-v1", args)
    hist = p.fit(buffer_of(rows), 120)
    assert hist[-1]["bc_loss"] < hist[0]["bc_loss"] / 3
    ga, gb = p.act([obs(A, LEMMAS[:2] + ("",) * 6), obs(B, LEMMAS[:2] + ("",) * 6)], explore=False)
    assert (ga == act({5: 3})).all() and (gb == act({5: 1, 12: 4})).all()


def test_dpo_moves_the_differing_head_against_the_frozen_reference() -> None:
    chosen, rejected = act({7: 2, 12: 1}), act({7: 0, 12: 1})
    buf = buffer_of([(A, chosen, 1.0), (A, rejected, -1.0)])
    data = PolicyData.from_buffer(buf)
    assert data.pairs.tolist() == [[0, 1, 7]] and data.negatives.size == 0
    p = DPOPolicy("satp-v1", DPOArgs(**TINY, bc_coef=0.0, nl_coef=0.0, ref_warmup_steps=0, beta=0.5))
    o = obs(A, LEMMAS[:2] + ("",) * 6)
    before = torch.log_softmax(p.logits([o])[0, 7], -1)
    hist = p.fit(data, 30)
    after = torch.log_softmax(p.logits([o])[0, 7], -1)
    assert hist[0]["dpo_loss"] == pytest.approx(np.log(2), abs=1e-4)  # policy == reference at the start
    assert hist[-1]["dpo_loss"] < 0.3 and hist[-1]["dpo_accuracy"] == 1.0
    assert (after[2] - after[0]) > (before[2] - before[0]) + 1.0
    assert p.ref is not None and all(not q.requires_grad for q in p.ref.parameters())


def test_negative_likelihood_pushes_down_a_failures_choices() -> None:
    fail = act({9: 4})
    buf = buffer_of([(A, fail, -1.0)])
    p = DPOPolicy("satp-v1", DPOArgs(**TINY, bc_coef=0.0, ref_warmup_steps=10**6, nl_coef=1.0))
    o = obs(A, LEMMAS[:2] + ("",) * 6)
    before = torch.softmax(p.logits([o])[0, 9], -1)[4]
    hist = p.fit(buf, 20)
    after = torch.softmax(p.logits([o])[0, 9], -1)[4]
    assert "nl_loss" in hist[0] and after < before / 2


def test_checkpoint_round_trip(tmp_path: Path) -> None:
    buf = buffer_of([(A, act({5: 3}), 1.0), (A, act({5: 0}), -1.0), (B, act({3: 2}), -1.0)])
    p = DPOPolicy("satp-v1", DPOArgs(**TINY, ref_warmup_steps=1))
    p.fit(buf, 3)
    path = p.save(tmp_path / "ckpt" / "policy.pt")
    q = DPOPolicy.load(path)
    assert q.args == p.args and q.steps_done == 3 and q.ref is not None
    batch = [obs(A), obs(B)]
    assert torch.allclose(p.logits(batch), q.logits(batch))
    assert all((x == y).all() for x, y in zip(p.act(batch, explore=False), q.act(batch, explore=False)))
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    with pytest.raises(LeanGymError, match="cannot read DPO checkpoint"):
        DPOPolicy.load(tmp_path / "junk.pt")
    torch.save({"format": "other"}, tmp_path / "other.pt")
    with pytest.raises(LeanGymError, match="not a lean_gym_agents DPO checkpoint"):
        DPOPolicy.load(tmp_path / "other.pt")


def test_no_rows_is_a_clear_error() -> None:
    p = DPOPolicy("satp-v1", DPOArgs(**TINY))
    with pytest.raises(LeanGymError, match="no training rows"):
        p.fit(HistoryBuffer(), 1)


def test_online_update_trains_in_rounds() -> None:
    from lean_gym_agents import Transitions, run_agent

    env = gym.make("LeanAesop-v0", backend="sim", split="test")
    p = DPOPolicy("satp-v1", DPOArgs(**TINY))
    seen = []
    real = p.update

    def update(batch: Transitions) -> dict[str, float]:
        out = real(batch, train_every=4, steps_per_round=1)
        seen.append(out)
        return out

    p.update = update  # type: ignore[method-assign]
    # seeded: an unseeded env draws its theorems at random, and a random config on one of them
    # (mathd_numbertheory_483) keeps the simulator busy until the check's 60 s timeout
    run_agent(p, env, steps=8, progress=False, seed=0)
    assert p.steps_done == 2 and sum(1 for m in seen if "loss" in m) == 2


def test_hugging_face_encoder_from_a_config(tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers", reason="the HF encoder needs transformers (hf extra)")
    config = transformers.T5Config(vocab_size=384, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_heads=2)
    encoder = HFEncoder(transformers.T5EncoderModel(config), transformers.ByT5Tokenizer(), d_model=16)
    p = DPOPolicy("satp-v1", DPOArgs(**TINY, ref_warmup_steps=1), encoder=encoder)
    hist = p.fit(buffer_of([(A, act({5: 3}), 1.0), (B, act({5: 0}), -1.0), (B, act({5: 2}), 1.0)]), 3)
    assert "dpo_loss" in hist[-1]
    q = DPOPolicy.load(p.save(tmp_path / "hf.pt"))  # rebuilt from the saved config: no download
    assert isinstance(q.net.encoder, HFEncoder)
    assert torch.allclose(p.logits([obs(A)]), q.logits([obs(A)]), atol=1e-6)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_policy_trains_and_decodes_on_cuda() -> None:
    p = DPOPolicy("satp-v1", DPOArgs(**TINY, ref_warmup_steps=1, device="auto"))
    assert p.device.type == "cuda"
    hist = p.fit(buffer_of([(A, act({5: 3}), 1.0), (A, act({5: 0}), -1.0)]), 3)
    assert np.isfinite(hist[-1]["loss"])
    (a,) = p.act([obs(A)], explore=False)
    assert gym.spaces.MultiDiscrete(V1.nvec).contains(a)


def test_smallest_successes_keeps_each_goals_fewest_rule_configs() -> None:
    rows = [
        (A, act({5: 3, 7: 1, 9: 2}), 1.0),
        (A, act({5: 3}), 1.0),
        (A, act({7: 2}), 1.0),
        (A, act({}), -1.0),
        (B, act({5: 1, 12: 4}), 1.0),
        (B, act({5: 1, 12: 4, 13: 1}), 1.0),
    ]
    buf = buffer_of(rows)
    everything = PolicyData.from_buffer(buf)
    smallest = PolicyData.from_buffer(buf, default_action=V1.default_action(), smallest_successes=True)
    assert everything.positives.tolist() == [0, 1, 2, 4, 5]
    assert smallest.positives.tolist() == [1, 2, 4]
    assert smallest.negatives.tolist() == everything.negatives.tolist()
