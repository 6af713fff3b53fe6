"""SATP's policy shape for :class:`~lean_gym_agents.dpo.DPOPolicy` (``DPOArgs(shape="satp")``).

What SATP's inference code builds (``ChristianZ97/LeanSATP``, ``python/src/leansatp_runtime``: ``config.py``,
``models/policy.py``, ``models/components/{lemma_heads,tactic_heads,lora_adapter}.py``, and the vendored
v2 runtime), reproduced over any goal encoder:

* **Encoder**: SATP's is the ByT5-small encoder of the LeanDojo retriever
  (``kaiyuy/leandojo-lean4-retriever-byt5-small``, :data:`SATP_ENCODER`) with LoRA (r 16, α 32, dropout 0.1
  on ``q``/``k``/``v``/``o``): :func:`satp_encoder` loads it (internet or a Hugging Face cache). Without a
  checkpoint the default :class:`~lean_gym_agents.dpo.ByteEncoder` stands in.
* **Input**: the theorem-form prompt ``theorem satp_goal (h : T) … : goal := by``
  (:func:`lean_gym.data.satp_prompt`), its first 4,096 bytes for ``satp-v1``, 1,024 for v2.
* **Shared MLP** on the goal vector: dropout, ``h→2h``, LayerNorm, ReLU, dropout, ``2h→2h``, LayerNorm, ReLU,
  dropout, ``2h→2h``, LayerNorm, ReLU, ``2h→h`` (SATP's ``shared_mlp``; ``mlp_dropout``, SATP's 0.2). The
  lemma embeddings go through the same MLP, as in SATP.
* **Tactic and config heads**: one linear head per action head, each on its own dropout mask of the shared
  features (``head_dropout``; SATP's comments: "per-head independent dropout enables Bayesian Thompson
  sampling").
* **Lemma heads**: one shared head over ``[goal features ‖ lemma features]`` (so a lemma's logits follow the
  lemma, not its rank), plus SATP's calibration of the retrieval score: ``Linear(1, K) → ReLU →
  Linear(K, levels)`` of the score, modulated by FiLM on the lemma (``(1 + γ(e)) · cal + β(e)``, γ and β
  zero at init), added to the logits.
* **Dropout Thompson sampling** (``DPOArgs(sampler="dropout")``): one forward pass with the dropout of the
  shared MLP and the heads on, then every head's argmax. The encoder stays deterministic.

Not reproduced: SATP v1's group self-attention over the tactic heads, and its premise embeddings from a
retrieval cache (lean-gym's observations carry lemma names and scores; the names are encoded by the same
encoder). SATP's trained checkpoints (``satp-policy-goal``, ``satp-policy-v2``) have other parameter names and
do not load here.

Example:
    >>> from lean_gym_agents.dpo import DPOPolicy
    >>> policy = DPOPolicy("satp-v1", satp_args(d_model=32, n_layers=1, n_heads=2))
    >>> obs = {"goal": "x : ℝ\\n⊢ 0 ≤ x ^ 2", "lemmas": ("sq_nonneg",) + ("",) * 7, "lemma_scores": [1.0] * 8}
    >>> a, b = policy.act([obs, obs], explore=True)       # two Thompson draws (dropout on)
    >>> bool((policy.act([obs], explore=False)[0] == policy.act([obs], explore=False)[0]).all())
    True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from lean_gym.aesop import Layout
from lean_gym.errors import LeanGymError
from lean_gym_agents.dpo import (
    _NEG,
    DPOArgs,
    HeadTable,
    HFEncoder,
    LoraSpec,
    goal_encoder,
    only_off,
    read_goals,
    read_lemmas,
)

__all__ = ["SATP_ENCODER", "SATP_LORA", "Encoded", "SATPPolicyNet", "satp_args", "satp_encoder"]

SATP_ENCODER = "kaiyuy/leandojo-lean4-retriever-byt5-small"
"""SATP's goal encoder (``SENTENCE_ENCODER`` in SATP's ``config.py``): LeanDojo's ByT5-small retriever."""

SATP_LORA = LoraSpec(r=16, alpha=32, dropout=0.1, target_modules=("q", "k", "v", "o"))
"""SATP's LoRA (``LORA_R``, ``LORA_ALPHA``, ``LORA_DROPOUT``, ``LORA_TARGET_MODULES``)."""

_FILM_WIDTH = 32  # SATP's film_d bottleneck


def satp_args(layout: str = "satp-v1", **overrides: Any) -> DPOArgs:
    """:class:`~lean_gym_agents.dpo.DPOArgs` for SATP's shape.

    Theorem-form input, SATP's MLP and heads, dropout Thompson sampling.

    Args:
        layout: The action layout the policy will use; it picks the prompt length SATP reads (4,096 bytes
            for ``satp-v1``, 1,024 for v2).
        **overrides: Any other field (``d_model`` sizes the default byte encoder; the network takes a
            Hugging Face encoder's own width).
    """
    base = DPOArgs(shape="satp", input_form="theorem", sampler="dropout", mlp_dropout=0.2, head_dropout=0.5)
    base = replace(base, prompt_bytes=1024 if layout.startswith("satp-v2") else 4096)
    return replace(base, **overrides)


def satp_encoder(
    name: str = SATP_ENCODER, *, layout: str = "satp-v1", lora: LoraSpec | None = SATP_LORA
) -> HFEncoder:
    """SATP's encoder: ``name``'s ByT5 encoder with LoRA, read at its own width (no projection).

    Pools the first token's state for ``satp-v1`` (SATP v1's ``last_hidden_state[:, 0]``) and the masked mean
    for v2 (SATP v2's mean pool). Downloads ``name`` unless it is in the Hugging Face cache (set
    ``HF_HUB_OFFLINE=1`` to refuse downloads).

    Raises:
        LeanGymError: The model is neither reachable nor cached.
    """
    pooling = "mean" if layout.startswith("satp-v2") else "first"
    try:
        return HFEncoder.from_pretrained(name, d_model=None, pooling=pooling, lora=lora)
    except OSError as e:
        raise LeanGymError(
            f"cannot load encoder {name!r}: {str(e).splitlines()[0]} (it needs internet once, or a copy in the "
            "Hugging Face cache)"
        ) from e


@dataclass(frozen=True)
class Encoded:
    """A batch's encoder outputs, reusable across dropout draws (the encoder is deterministic in eval)."""

    goals: torch.Tensor
    """``(B, h)``"""
    lemmas: torch.Tensor
    """``(B, K, h)``, zeros where a slot is unusable"""
    usable: torch.Tensor
    """``(B, K)`` bool"""

    def repeat(self, n: int) -> Encoded:
        """The batch repeated ``n`` times (draw-major: row ``i * B + b`` is draw ``i`` of observation ``b``)."""
        return Encoded(self.goals.repeat(n, 1), self.lemmas.repeat(n, 1, 1), self.usable.repeat(n, 1))


class _SharedMLP(nn.Module):
    """SATP's ``shared_mlp``: three LayerNorm-ReLU blocks at twice the width, dropout before the first three."""

    def __init__(self, h: int, p: float) -> None:
        super().__init__()
        self.p = p
        self.l1, self.l2, self.l3, self.out = (
            nn.Linear(h, 2 * h),
            nn.Linear(2 * h, 2 * h),
            nn.Linear(2 * h, 2 * h),
            nn.Linear(2 * h, h),
        )
        self.n1, self.n2, self.n3 = nn.LayerNorm(2 * h), nn.LayerNorm(2 * h), nn.LayerNorm(2 * h)

    def forward(self, x: torch.Tensor, dropout: bool) -> torch.Tensor:
        for lin, norm in ((self.l1, self.n1), (self.l2, self.n2), (self.l3, self.n3)):
            x = F.relu(norm(lin(F.dropout(x, self.p, training=dropout))))
        return self.out(x)


class SATPPolicyNet(nn.Module):
    """SATP's policy network over a layout: see the module docstring.

    ``forward(goals, lemmas, scores)`` is the same call as :class:`~lean_gym_agents.dpo.AesopPolicyNet`'s,
    so :class:`~lean_gym_agents.dpo.DPOPolicy` trains either; :meth:`encode` and :meth:`heads` split it so
    that dropout draws reuse one encoder pass.

    Args:
        layout: The action layout.
        args: Hyperparameters (``mlp_dropout``, ``head_dropout``, ``input_form``, ``prompt_bytes``).
        encoder: The goal encoder; its width (``encoder.d_model``) is the network's. Default: a
            :class:`~lean_gym_agents.dpo.ByteEncoder` of width ``args.d_model``.
    """

    _valid: torch.Tensor
    _other_index: torch.Tensor

    def __init__(self, layout: Layout, args: DPOArgs, encoder: nn.Module | None = None) -> None:
        super().__init__()
        self.args = args
        self.layout_name = layout.name
        self.encoder = encoder or goal_encoder(args, layout.name)
        h = int(getattr(self.encoder, "d_model", args.d_model))
        t = HeadTable(layout)
        self.num_heads, self.max_levels, self.num_lemmas = t.num_heads, t.max_levels, t.num_lemmas
        self.lemma_heads, self.lemma_slots, self.other_heads = t.lemma_heads, t.lemma_slots, t.other_heads
        self.lemma_levels = t.lemma_levels
        self.mlp = _SharedMLP(h, args.mlp_dropout)
        # One linear head per non-lemma head, stored as one (heads, Lmax, h) tensor (nn.Linear's init).
        bound = 1.0 / math.sqrt(h)
        n_other = len(self.other_heads)
        self.head_weight = nn.Parameter(torch.empty(n_other, self.max_levels, h).uniform_(-bound, bound))
        self.head_bias = nn.Parameter(torch.empty(n_other, self.max_levels).uniform_(-bound, bound))
        self.register_buffer(
            "_other_index", torch.tensor(self.other_heads, dtype=torch.long), persistent=False
        )
        if self.lemma_heads:
            k, lv = max(1, len(self.lemma_heads)), self.lemma_levels
            self.shared_head = nn.Linear(2 * h, lv)
            self.calibration = nn.Sequential(nn.Linear(1, k), nn.ReLU(), nn.Linear(k, lv))
            self.embed_proj = nn.Linear(h, _FILM_WIDTH)
            self.film_gamma = nn.Linear(_FILM_WIDTH, lv)
            self.film_beta = nn.Linear(_FILM_WIDTH, lv)
            for layer in (self.film_gamma, self.film_beta):  # SATP: FiLM starts as the identity
                nn.init.zeros_(layer.weight)
                nn.init.zeros_(layer.bias)
        self.register_buffer("_valid", t.valid(), persistent=False)

    def encode(self, goals: Sequence[str], lemmas: Sequence[Sequence[str]]) -> Encoded:
        """The encoder's pass over a batch: goal vectors, lemma vectors and which lemma slots are usable."""
        g = read_goals(self.encoder, goals, self.args, self.layout_name)
        if not self.lemma_heads:
            return Encoded(
                g, g.new_zeros(g.shape[0], 0, g.shape[1]), torch.zeros(g.shape[0], 0, dtype=torch.bool)
            )
        lem, usable = read_lemmas(self.encoder, lemmas, self.lemma_slots, self.args.max_lemma_bytes, g)
        return Encoded(g, lem, usable)

    def heads(self, enc: Encoded, scores: torch.Tensor, *, dropout: bool) -> torch.Tensor:
        """Logits ``(B, H, Lmax)`` from encoder outputs; ``dropout`` turns on the MLP's and the heads' dropout.

        Args:
            enc: From :meth:`encode` (or :meth:`Encoded.repeat` of it, for several draws at once).
            scores: ``(B, num_lemmas)`` retrieval scores in [0, 1].
            dropout: Whether this pass drops (training, and Thompson draws).
        """
        p = self.args.head_dropout
        f = self.mlp(enc.goals, dropout)
        b, dev = f.shape[0], f.device
        logits = torch.full((b, self.num_heads, self.max_levels), _NEG, device=dev, dtype=f.dtype)
        x = f[:, None, :].expand(b, len(self.other_heads), f.shape[1])
        x = F.dropout(x, p, training=dropout)  # one mask per head: the heads' draws are independent
        logits[:, self._other_index] = torch.einsum("bhd,hld->bhl", x, self.head_weight) + self.head_bias
        if self.lemma_heads:
            k = len(self.lemma_slots)
            lf = self.mlp(enc.lemmas.reshape(b * k, -1), dropout).reshape(b, k, -1)
            combined = F.dropout(
                torch.cat([f[:, None, :].expand(b, k, f.shape[1]), lf], dim=-1), p, training=dropout
            )
            base = self.shared_head(combined)
            sc = scores.to(dev, f.dtype)[:, self.lemma_slots].reshape(b * k, 1)
            cal = self.calibration(sc).reshape(b, k, -1)
            film = F.gelu(self.embed_proj(lf))
            residual = (1 + self.film_gamma(film)) * cal + self.film_beta(film)
            full = torch.full((b, k, self.max_levels), _NEG, device=dev, dtype=f.dtype)
            full[..., : self.lemma_levels] = only_off(base + residual, enc.usable.to(dev))
            logits[:, self.lemma_heads] = full
        return logits.masked_fill(~self._valid, _NEG)

    def forward(
        self, goals: Sequence[str], lemmas: Sequence[Sequence[str]], scores: torch.Tensor
    ) -> torch.Tensor:
        """Logits ``(B, H, Lmax)``; dropout on in training mode."""
        return self.heads(self.encode(goals, lemmas), scores, dropout=self.training)
