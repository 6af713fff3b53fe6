"""A toy GRPO task that a tiny randomly initialised LM can learn on a CPU in seconds.

A *constrained* task, on purpose: a 2-layer GPT-2 with random weights writes nothing provable in free text,
so the toy gives it a vocabulary where each tactic is one token (``"linarith\\n"``) and decodes only from
those tokens and EOS (``GRPOArgs.allowed_token_ids``). Prompts are read character by character. The
theorems (:data:`TOY_THEOREMS`) all fall to ``linarith``/``nlinarith`` and some to ``omega``; the other
tactics of :data:`TOY_TACTICS` fail on them in the simulator, and ``sorry`` is there for
``LeanHackable-v0`` (its weak grader pays for it; the oracle flags it as a hack). A uniform policy proves
about a fifth of its samples; GRPO should push that up within a few dozen steps.

Nothing here is downloaded; :func:`tiny_causal_lm` needs ``transformers`` (the ``hf`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["TOY_TACTICS", "TOY_THEOREMS", "TacticTokenizer", "tiny_causal_lm", "toy_agent_args"]

_MATHLIB = "import Mathlib"

#: Theorems every one of which ``linarith`` proves (in the simulator and in Lean with Mathlib, which their
#: header imports: ``ℕ``, ``ℝ`` and ``linarith`` are Mathlib's).
TOY_THEOREMS: list[dict[str, str]] = [
    {
        "name": "toy_subst",
        "formal_statement": "theorem toy_subst (x : ℕ) (h : x = 3) : x + 1 = 4 := by\n",
        "header": _MATHLIB,
    },
    {
        "name": "toy_comm",
        "formal_statement": "theorem toy_comm (a b : ℕ) : a + b = b + a := by\n",
        "header": _MATHLIB,
    },
    {
        "name": "toy_lin",
        "formal_statement": "theorem toy_lin (a : ℤ) (h : 2 * a = 6) : a = 3 := by\n",
        "header": _MATHLIB,
    },
    {
        "name": "toy_lt",
        "formal_statement": "theorem toy_lt (x : ℝ) (h : x > 2) : x > 1 := by\n",
        "header": _MATHLIB,
    },
]

#: One token each in :class:`TacticTokenizer`.
TOY_TACTICS: tuple[str, ...] = (
    "linarith",
    "nlinarith",
    "omega",
    "simp",
    "norm_num",
    "ring",
    "rfl",
    "decide",
    "trivial",
    "assumption",
    "constructor",
    "positivity",
    "sorry",
)

_CHARS = "".join(chr(c) for c in range(32, 127)) + "\n\tℕℤℚℝℂ→←↔∀∃¬∧∨≤≥≠⟨⟩·∑∏√∣αβγλπ"


class TacticTokenizer:
    """Characters, plus one token per tactic (decoded as the tactic and a newline); no download.

    The ``encode``/``decode`` signatures match ``transformers`` tokenizers, so :class:`GRPOAgent` and
    TRL's ``GRPOTrainer`` (through :meth:`as_hf_tokenizer`) can use it.

    Args:
        tactics: The tactic tokens.
    """

    pad_token = "<pad>"
    eos_token = "<eos>"
    unk_token = "<unk>"

    def __init__(self, tactics: Sequence[str] = TOY_TACTICS) -> None:
        self.special = [self.pad_token, self.eos_token, self.unk_token]
        self.tactics = [t + "\n" for t in tactics]
        self.vocab: list[str] = self.special + self.tactics + list(dict.fromkeys(_CHARS))
        self.token_to_id = {t: i for i, t in enumerate(self.vocab)}
        self.pad_token_id, self.eos_token_id, self.unk_token_id = 0, 1, 2

    @property
    def vocab_size(self) -> int:
        """The number of tokens."""
        return len(self.vocab)

    @property
    def tactic_ids(self) -> tuple[int, ...]:
        """The ids of the tactic tokens (for ``GRPOArgs.allowed_token_ids``)."""
        return tuple(self.token_to_id[t] for t in self.tactics)

    def encode(self, text: str, add_special_tokens: bool = False, **_: Any) -> list[int]:
        """Greedy: a tactic token where the text has ``tactic\\n``, else one id per character."""
        ids: list[int] = []
        i = 0
        while i < len(text):
            for tac in self.tactics:
                if text.startswith(tac, i):
                    ids.append(self.token_to_id[tac])
                    i += len(tac)
                    break
            else:
                ids.append(self.token_to_id.get(text[i], self.unk_token_id))
                i += 1
        return ids

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True, **_: Any) -> str:
        """The text of ``ids`` (special tokens dropped when ``skip_special_tokens``)."""
        out = []
        for i in ids:
            i = int(i)
            if i < len(self.special):
                if not skip_special_tokens:
                    out.append(self.vocab[i])
                continue
            out.append(self.vocab[i])
        return "".join(out)

    def as_hf_tokenizer(self) -> Any:
        """The same vocabulary as a ``transformers.PreTrainedTokenizerFast`` (for TRL's trainers).

        Raises:
            ImportError: without ``transformers``/``tokenizers`` (the ``hf`` extra).
        """
        from tokenizers import Tokenizer, models, pre_tokenizers
        from transformers import PreTrainedTokenizerFast

        vocab = {t: i for i, t in enumerate(self.vocab)}
        tok = Tokenizer(models.WordPiece(vocab=vocab, unk_token=self.unk_token, max_input_chars_per_word=1))
        tok.pre_tokenizer = pre_tokenizers.Split("", behavior="isolated")
        tok.add_special_tokens([self.pad_token, self.eos_token, self.unk_token])
        tok.add_tokens(self.tactics)
        from tokenizers import decoders

        tok.decoder = decoders.Fuse()
        return PreTrainedTokenizerFast(
            tokenizer_object=tok, pad_token=self.pad_token, eos_token=self.eos_token, unk_token=self.unk_token
        )


def tiny_causal_lm(vocab_size: int, *, seed: int = 0, n_layer: int = 2, n_embd: int = 64) -> Any:
    """A randomly initialised 2-layer GPT-2 built from a config (no download).

    Raises:
        ImportError: without ``transformers`` (``pip install -e ".[hf]"``).
    """
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=vocab_size,
        n_positions=256,
        n_embd=n_embd,
        n_layer=n_layer,
        n_head=4,
        bos_token_id=1,
        eos_token_id=1,
        pad_token_id=0,
    )
    return GPT2LMHeadModel(config)


def toy_agent_args(tokenizer: TacticTokenizer, **changes: Any) -> Any:
    """:class:`~lean_gym_agents.grpo.GRPOArgs` for the toy: tactic tokens only, short completions, CPU."""
    from lean_gym_agents.grpo import GRPOArgs

    base: dict[str, Any] = {
        "group_size": 8,
        "prompts_per_step": 4,
        "learning_rate": 2e-3,
        "kl_coef": 0.04,
        "clip_eps": 0.2,
        "max_new_tokens": 1,
        "max_prompt_tokens": 128,
        "allowed_token_ids": tokenizer.tactic_ids,
        "device": "cpu",
    }
    base.update(changes)
    return GRPOArgs(**base)
