"""lean_gym.integrations.trl: the oracle reward for TRL's GRPOTrainer, the prompt dataset, and a real TRL run."""

from __future__ import annotations

import pytest

from lean_gym.backends.sim import SimBackend
from lean_gym.errors import ConfigError
from lean_gym.integrations.trl import OracleReward, completion_text, grpo_dataset, grpo_rows

THM = {"name": "t_comm", "formal_statement": "theorem t_comm (a b : Nat) : a + b = b + a := by\n"}


class CountingBackend:
    """The simulator, counting the checks that reach it."""

    def __init__(self) -> None:
        self.inner = SimBackend()
        self.name = self.inner.name
        self.checks = 0

    def check(self, code, *, header="", timeout=None):
        self.checks += 1
        return self.inner.check(code, header=header, timeout=timeout)

    def check_batch(self, codes, *, header="", timeout=None):
        self.checks += len(codes)
        return self.inner.check_batch(codes, header=header, timeout=timeout)

    def close(self) -> None:
        self.inner.close()


def _columns(n: int) -> dict:
    return {"name": [THM["name"]] * n, "formal_statement": [THM["formal_statement"]] * n, "header": [""] * n}


def test_completion_text_reads_strings_and_conversations():
    assert completion_text("  omega") == "  omega"
    assert completion_text([{"role": "assistant", "content": "omega"}]) == "omega"
    parts = [
        {"role": "assistant", "content": [{"type": "text", "text": "om"}, {"type": "text", "text": "ega"}]}
    ]
    assert completion_text(parts) == "omega"
    assert completion_text([{"role": "user", "content": "omega"}]) == ""  # only the model's own words count
    assert completion_text(None) == ""


def test_oracle_reward_judges_each_completion_once_per_distinct_proof():
    backend = CountingBackend()
    reward = OracleReward(backend, rejected_reward=0.0)
    completions = [
        "  omega",
        [{"role": "assistant", "content": "```lean4\nomega\n```"}],
        "  sorry",  # refused by the oracle before Lean
        "theorem t_comm (a b : Nat) : a + b = a + b := by\n  rfl",  # a changed statement
        "  omega",  # the same proof again
        "  simp [nonexistent_lemma]",
    ]
    rewards = reward(prompts=["p"] * 6, completions=completions, **_columns(6))
    assert rewards == [1.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    assert (
        backend.checks == 2
    )  # omega (the fenced copy builds the same submission) and simp; sorry never reaches Lean
    backend.close()


def test_oracle_reward_by_name_and_its_errors():
    with OracleReward("sim", theorems=[THM]) as reward:
        assert reward(prompts=["p"], completions=["  omega"], name=["t_comm"]) == [1.0]
        with pytest.raises(ConfigError, match="formal_statement column"):
            reward(prompts=["p"], completions=["  omega"], name=["unknown"])


def test_grpo_rows_in_trl_prompt_formats():
    (row,) = grpo_rows(theorems=[THM])
    assert row["prompt"].rstrip().endswith(":= by") and row["name"] == "t_comm"
    (chat,) = grpo_rows(theorems=[THM], conversational=True)
    assert chat["prompt"][0]["role"] == "user" and "t_comm" in chat["prompt"][0]["content"]
    ds = grpo_dataset("sim", "valid")
    assert {"prompt", "name", "formal_statement", "header"} <= set(ds.column_names) and len(ds) > 10


def test_trl_grpo_trainer_trains_with_the_oracle_reward(tmp_path):
    torch = pytest.importorskip("torch")
    trl = pytest.importorskip("trl")
    from lean_gym_agents.grpo_toy import TOY_THEOREMS, TacticTokenizer, tiny_causal_lm

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # two cores shared by the whole suite
    tok = TacticTokenizer()
    reward = OracleReward("sim")
    seen: list[tuple[str, float]] = []

    def lean_oracle(prompts, completions, **kwargs):
        out = reward(prompts, completions, **kwargs)
        seen.extend(zip(completions, out))
        return out

    args = trl.GRPOConfig(
        output_dir=str(tmp_path),
        max_steps=3,
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=1,
        # The toy's constraint: a random tiny LM samples only tactic tokens (see lean_gym_agents.grpo_toy).
        generation_kwargs={"suppress_tokens": [i for i in range(tok.vocab_size) if i not in tok.tactic_ids]},
        learning_rate=1e-3,
        use_cpu=True,
        report_to="none",
        logging_steps=1,
        save_strategy="no",
        seed=0,
    )
    trainer = trl.GRPOTrainer(
        model=tiny_causal_lm(tok.vocab_size, seed=0),
        reward_funcs=[lean_oracle],
        args=args,
        train_dataset=grpo_dataset(theorems=TOY_THEOREMS),
        processing_class=tok.as_hf_tokenizer(),
    )
    try:
        trainer.train()
    finally:
        reward.close()
        torch.set_num_threads(threads)
    assert len(seen) == 12
    for completion, r in seen:  # the toy theorems all fall to linarith and none to sorry/rfl
        if completion.strip() in ("linarith", "nlinarith"):
            assert r == 1.0
        if completion.strip() in ("sorry", "rfl", "constructor"):
            assert r == -1.0
    logs = [h for h in trainer.state.log_history if "rewards/lean_oracle/mean" in h]
    assert len(logs) == 3 and all("lean/accepted" in h for h in logs)
    assert any(r == 1.0 for _, r in seen) and any(h["grad_norm"] > 0 for h in logs)  # a group with signal
