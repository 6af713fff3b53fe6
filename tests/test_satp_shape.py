"""SATP's policy shape in the reference agents: LoRA encoder, theorem-form input, calibrated lemma heads,
dropout Thompson sampling (all on CPU, with a tiny encoder built from a config; nothing is downloaded)."""

from __future__ import annotations

import os
from importlib.util import find_spec
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # read when huggingface_hub is imported: before transformers
torch = pytest.importorskip("torch", reason="the DPO policy needs torch (the agents extra)")
# transformers and peft are imported by the tests that use them, not here: every worker of the suite
# collects this file, and importing them costs 3 s of CPU where none of its tests runs
pytestmark = [
    pytest.mark.skipif(
        find_spec("transformers") is None, reason="a Hugging Face encoder needs transformers (hf extra)"
    ),
    pytest.mark.skipif(find_spec("peft") is None, reason="LoRA needs peft (hf extra)"),
]
torch.set_num_threads(1)

import lean_gym  # noqa: E402, F401
from lean_gym.aesop import layout  # noqa: E402
from lean_gym.buffers import HistoryBuffer  # noqa: E402
from lean_gym.data import satp_prompt  # noqa: E402
from lean_gym.errors import ConfigError  # noqa: E402
from lean_gym_agents import DropoutThompson, SATPThompsonArgs, Transitions  # noqa: E402
from lean_gym_agents.dpo import DPOArgs, DPOPolicy, HFEncoder  # noqa: E402
from lean_gym_agents.satp_net import SATP_ENCODER, SATP_LORA, SATPPolicyNet, satp_args  # noqa: E402

V1 = layout("satp-v1")
LEMMAS = ("sq_nonneg", "add_comm", "", "not an ident", "", "", "", "")
GOAL = "x y : ℝ\nh₀ : x < y\n⊢ x ^ 2 + 1 ≤ y ^ 2 + x ^ 2 + 1"
TINY = {"d_model": 16, "n_layers": 1, "n_heads": 2, "batch_size": 8, "learning_rate": 3e-3}


@pytest.fixture(autouse=True)
def _offline(monkeypatch: pytest.MonkeyPatch) -> None:
    # a test that tried to download would fail at once, not fetch (nor wait on a network that is not there);
    # the hub reads the variable at import, which another test module may have done first
    import huggingface_hub.constants

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)


def obs(goal: str = GOAL, scores: np.ndarray | None = None, lemmas: tuple[str, ...] = LEMMAS) -> dict:
    sc = np.linspace(1, 0, 8).astype(np.float32) if scores is None else scores
    return {"goal": goal, "lemmas": lemmas, "lemma_scores": sc}


def tiny_t5(layers: int = 2, *, lora: bool = True, pooling: str = "first") -> HFEncoder:
    import transformers

    config = transformers.T5Config(
        vocab_size=384, d_model=16, d_kv=8, d_ff=32, num_layers=layers, num_heads=2
    )
    return HFEncoder(
        transformers.T5EncoderModel(config),
        transformers.ByT5Tokenizer(),
        None,
        pooling=pooling,
        lora=SATP_LORA if lora else None,
    )


def test_satps_constants() -> None:
    assert SATP_ENCODER == "kaiyuy/leandojo-lean4-retriever-byt5-small"
    assert (SATP_LORA.r, SATP_LORA.alpha, SATP_LORA.dropout) == (16, 32, 0.1)
    assert SATP_LORA.target_modules == ("q", "k", "v", "o")
    v1, v2 = satp_args("satp-v1"), satp_args("satp-v2")
    assert (v1.prompt_bytes, v2.prompt_bytes) == (4096, 1024)
    assert v1.shape == "satp" and v1.input_form == "theorem" and v1.sampler == "dropout"


def test_satps_encoder_without_internet_or_cache_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import huggingface_hub.constants

    from lean_gym.errors import LeanGymError
    from lean_gym_agents.satp_net import satp_encoder

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path))  # an empty cache, offline
    with pytest.raises(
        LeanGymError, match="cannot load encoder 'kaiyuy/leandojo-lean4-retriever-byt5-small'"
    ):
        satp_encoder()


def test_lora_parameters_are_the_only_trainable_encoder_parameters() -> None:
    enc = tiny_t5()
    policy = DPOPolicy("satp-v1", satp_args(**TINY), encoder=enc)
    names = {n: p for n, p in policy.net.encoder.named_parameters()}
    trainable = [n for n, p in names.items() if p.requires_grad]
    assert trainable and all(".lora_A." in n or ".lora_B." in n for n in trainable)
    # exactly SATP's targets, in every block: q, k, v, o (not the feed-forward wi/wo)
    adapted = {n.split(".lora_")[0].rsplit(".", 1)[1] for n in trainable}
    assert adapted == {"q", "k", "v", "o"}
    assert len(trainable) == 2 * 4 * 2  # A and B, four projections, two blocks
    frozen = {n: p.detach().clone() for n, p in names.items() if not p.requires_grad}
    lora_b = {n: p.detach().clone() for n, p in names.items() if ".lora_B." in n}
    buf = HistoryBuffer()
    a = V1.default_action()
    a[5] = 3
    buf.add(goal=GOAL, action=a, reward=1.0, lemmas=list(LEMMAS[:2]), lemma_scores=[1.0, 0.5])
    policy.fit(buf, 3)
    after = dict(policy.net.encoder.named_parameters())
    assert all(torch.equal(after[n], v) for n, v in frozen.items())  # the base model never moves
    assert any(not torch.equal(after[n], v) for n, v in lora_b.items())  # the adapters do
    # the optimiser holds no frozen parameter
    held = {id(p) for g in policy.optimizer.param_groups for p in g["params"]}
    assert not any(id(p) in held for p in frozen.values()) and held


def test_dropout_draws_differ_with_dropout_on_and_agree_with_it_off() -> None:
    policy = DPOPolicy("satp-v1", satp_args(**TINY))
    draws = {tuple(policy.act([obs()], explore=True)[0]) for _ in range(6)}
    assert len(draws) > 1
    greedy = {tuple(policy.act([obs()], explore=False)[0]) for _ in range(6)}
    assert len(greedy) == 1
    # with the policy's dropout rates at 0 the "draws" are one action: what varies is the dropout
    off = DPOPolicy("satp-v1", satp_args(**TINY, mlp_dropout=0.0, head_dropout=0.0))
    assert len({tuple(off.act([obs()], explore=True)[0]) for _ in range(6)}) == 1
    assert tuple(off.act([obs()], explore=True)[0]) == tuple(off.act([obs()], explore=False)[0])
    # one encoder pass serves many draws; each draw is a valid action of the layout
    logits = policy.dropout_logits([obs(), obs("n : ℕ\n⊢ n ≤ n")], draws=5)
    assert logits.shape == (5, 2, 40, 5)
    space = gym.spaces.MultiDiscrete(V1.nvec)
    assert all(space.contains(a.astype(np.int64)) for a in logits.argmax(-1).reshape(-1, 40))
    # unusable lemma slots stay off under every draw
    assert (logits.argmax(-1)[..., 26:28] == 0).all()


def test_the_encoder_reads_satps_theorem_form_prompt() -> None:
    seen: list[tuple[list[str], int | None, str]] = []

    class Spy(torch.nn.Module):
        d_model = 8

        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.zeros(8))

        def forward(self, texts, max_len=None, keep="last"):  # type: ignore[no-untyped-def]
            seen.append((list(texts), max_len, keep))
            return self.w.expand(len(texts), 8) + torch.tensor([float(len(t)) for t in texts])[:, None]

    DPOPolicy("satp-v1", satp_args(d_model=8), encoder=Spy()).act([obs()], explore=False)
    goal_texts = seen[0]
    assert goal_texts == ([satp_prompt(GOAL)], 4096, "first")
    assert goal_texts[0][0].startswith("theorem satp_goal\n  (x : ℝ)\n  (y : ℝ)\n  (h_ : x < y)\n")
    seen.clear()
    DPOPolicy("satp-v2", satp_args("satp-v2", d_model=8), encoder=Spy()).act([obs()], explore=False)
    assert seen[0][1] == 1024
    # the HF encoder truncates as SATP's tokenizer call does: the first max_length tokens (bytes + EOS)
    enc = tiny_t5(1)
    batch = enc.tokenizer([satp_prompt(GOAL)], truncation=True, max_length=20)
    long = satp_prompt(GOAL).encode()
    assert batch["input_ids"][0][:-1] == [b + 3 for b in long[:19]]  # ByT5: byte b is token b + 3


def test_lemma_heads_use_the_retrieval_score_through_the_calibration() -> None:
    policy = DPOPolicy("satp-v1", satp_args(**TINY))
    lo = np.zeros(8, dtype=np.float32)
    hi = lo.copy()
    hi[0] = 1.0
    a, b = policy.logits([obs(scores=lo)])[0], policy.logits([obs(scores=hi)])[0]
    assert not torch.allclose(a[24], b[24])  # slot 0's head moved with its score
    assert torch.allclose(a[:24], b[:24]) and torch.allclose(a[25:], b[25:])  # nothing else did
    net = policy.net
    assert isinstance(net, SATPPolicyNet)
    with (
        torch.no_grad()
    ):  # SATP's calibration is the only path from the score: zero it and the score is inert
        for p in net.calibration.parameters():
            p.zero_()
    a, b = policy.logits([obs(scores=lo)])[0], policy.logits([obs(scores=hi)])[0]
    assert torch.allclose(a, b)
    # the lemma heads read the lemma (content, not rank): another name in slot 0 changes slot 0's logits
    c = policy.logits([obs(lemmas=("add_comm", *LEMMAS[1:]))])[0]
    assert not torch.allclose(a[24], c[24]) and torch.allclose(a[:24], c[:24])


def test_satp_shape_trains_with_dpo_and_round_trips_through_a_checkpoint(tmp_path: Path) -> None:
    enc = tiny_t5(1, pooling="mean")
    policy = DPOPolicy("satp-v1", satp_args(**TINY, ref_warmup_steps=1), encoder=enc)
    buf = HistoryBuffer()
    good, bad = V1.default_action(), V1.default_action()
    good[12] = 4
    for action, reward in ((good, 1.0), (bad, -1.0)):
        buf.add(goal=GOAL, action=action, reward=reward, lemmas=list(LEMMAS[:2]), lemma_scores=[1.0, 0.5])
    hist = policy.fit(buf, 4)
    assert "dpo_loss" in hist[-1] and np.isfinite(hist[-1]["loss"])
    loaded = DPOPolicy.load(policy.save(tmp_path / "satp.pt"))  # the ByT5 tokenizer needs no download
    assert isinstance(loaded.net, SATPPolicyNet) and isinstance(loaded.net.encoder, HFEncoder)
    assert loaded.net.encoder.lora == SATP_LORA and loaded.net.encoder.pooling == "mean"
    assert torch.allclose(policy.logits([obs()]), loaded.logits([obs()]), atol=1e-6)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"sampler": "dropout"}, "needs shape='satp'"),
        ({"shape": "satq"}, "DPOArgs.shape must be one of"),
        ({"input_form": "proof"}, "DPOArgs.input_form"),
        ({"shape": "satp", "head_dropout": 1.0}, "head_dropout must be in"),
    ],
)
def test_inconsistent_args_are_a_clear_error(kw: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        DPOPolicy("satp-v1", DPOArgs(**kw))


def test_the_lean_gym_shape_can_read_the_theorem_form_too() -> None:
    policy = DPOPolicy("satp-v1", DPOArgs(**TINY, input_form="theorem", prompt_bytes=256))
    assert policy.net.encoder.max_len == 256  # type: ignore[union-attr]
    assert len(policy.act([obs()], explore=True)) == 1


def test_dropout_thompson_never_repeats_a_config_and_trains_its_policy() -> None:
    policy = DPOPolicy("satp-v1", satp_args(**TINY, ref_warmup_steps=1))
    agent = DropoutThompson(policy, SATPThompsonArgs(seed=0), train_every=4, steps_per_round=2)
    env = gym.make("LeanAesop-v0", backend="sim", split="test")
    seen: dict[int, set[tuple[int, ...]]] = {}
    for step in range(12):
        o, info = env.reset(options={"index": step % 3})
        (a,) = agent.act([o])
        key = tuple(a.tolist())
        assert key not in seen.setdefault(step % 3, set())  # a deterministic checker: never the same twice
        seen[step % 3].add(key)
        _, r, term, trunc, info = env.step(a)
        agent.update(Transitions([o], [a], np.array([r]), np.array([term]), np.array([trunc]), [info]))
    assert policy.steps_done == 6  # three rounds of two steps: it learns from its tries
    assert agent.tries == 12
    with pytest.raises(ValueError, match="shape='satp'"):
        DropoutThompson(DPOPolicy("satp-v1", DPOArgs(**TINY)))


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_satp_shape_trains_and_draws_on_cuda() -> None:
    policy = DPOPolicy("satp-v1", satp_args(**TINY, device="cuda"), encoder=tiny_t5(1))
    assert policy.device.type == "cuda"
    buf = HistoryBuffer()
    buf.add(
        goal=GOAL, action=V1.default_action(), reward=1.0, lemmas=list(LEMMAS[:2]), lemma_scores=[1.0, 0.5]
    )
    assert np.isfinite(policy.fit(buf, 2)[-1]["loss"])
    assert policy.dropout_logits([obs()], draws=3).shape == (3, 1, 40, 5)
