"""SATP's aesop policy: a goal encoder, lemma-aware heads, and a BC + DPO + negative-likelihood loss.

The loss is behaviour cloning, DPO at ``diff_head`` and a negative-likelihood term on failures.

The policy reads an aesop observation (goal text, the context lemmas and their retrieval scores) and outputs
one categorical distribution per head of the action layout (``satp-v1``: 40 heads). A config's log-probability
is the sum of its heads'. Training (:meth:`DPOPolicy.fit`) draws three batches per step from a
:class:`~lean_gym.buffers.HistoryBuffer`:

* **BC** on successes: ``-mean_h log π(a_h | s)`` (by default only each goal's smallest successes, those
  with the fewest heads off their default: ``bc_smallest``);
* **DPO** on 1-diff pairs, at the differing head ``h``, against a frozen reference policy (a copy of the
  policy taken after ``ref_warmup_steps`` BC steps; Rafailov et al. 2023):
  ``-log σ(β [(log π(c_h) - log π_ref(c_h)) - (log π(r_h) - log π_ref(r_h))])``. The policy factorises over
  heads, so this equals DPO on the whole config: the other heads' log-ratios cancel;
* **NL** (negative likelihood) on failures with no paired success: ``-log(1 - π(a_h))`` averaged over the
  heads where the failure left the default (the choices it made; the default heads are shared with most
  successes and get no blame).

Encoders: :class:`ByteEncoder` (a small byte-level transformer, the default, no downloads) or
:class:`HFEncoder` (any Hugging Face encoder such as ByT5, with the ``hf`` extra's ``transformers``). Lemma
heads are lemma-aware: each lemma slot's logits come from a shared MLP over the goal vector, the lemma's
encoded text, their product, its retrieval score and its rank; a slot without a usable lemma (empty or not a
Lean identifier, which the layout renders as nothing) can only take level 0.

Greedy decoding (``act(..., explore=False)``) is one action per goal: the argmax of every head. The policy
runs on ``cuda`` when present (``device="auto"``), else on the CPU. Needs torch (the ``agents`` extra).

Example:
    >>> import gymnasium as gym, lean_gym
    >>> env = gym.make("LeanAesop-v0", backend="sim", split="test")
    >>> policy = DPOPolicy(env.unwrapped.layout, DPOArgs(d_model=32, n_layers=1, n_heads=2))
    >>> obs, _ = env.reset(seed=0)
    >>> action = policy.act([obs], explore=False)[0]
    >>> env.action_space.contains(action)
    True
"""

from __future__ import annotations

import copy
import os
import pickle
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from lean_gym.aesop import Layout, is_lean_ident
from lean_gym.aesop import layout as get_layout
from lean_gym.buffers import HistoryBuffer
from lean_gym.data import satp_prompt
from lean_gym.errors import ConfigError, LeanGymError, MissingDependencyError
from lean_gym_agents._torch import resolve_device
from lean_gym_agents.base import Transitions

if TYPE_CHECKING:
    from lean_gym_agents.satp_net import SATPPolicyNet

__all__ = ["ByteEncoder", "DPOArgs", "DPOPolicy", "HFEncoder", "LoraSpec", "PolicyData", "resolve_device"]

_NEG = -1e9
_FORMAT = "lean_gym_agents.dpo/1"


@dataclass(frozen=True)
class DPOArgs:
    """Hyperparameters of :class:`DPOPolicy` (names as in the DPO paper where it has one)."""

    d_model: int = 64
    """Width of the encoder and heads."""
    n_layers: int = 2
    """Transformer layers of the byte encoder."""
    n_heads: int = 4
    """Attention heads of the byte encoder."""
    max_goal_bytes: int = 512
    """Goal bytes the byte encoder reads (the *last* ones: the target ``⊢ …`` ends the goal state)."""
    max_lemma_bytes: int = 64
    """Bytes of each lemma name the encoder reads."""
    stride: int = 4
    """Bytes the byte encoder merges into one position before attention."""
    learning_rate: float = 3e-4
    """AdamW's learning rate."""
    weight_decay: float = 0.01
    """AdamW's weight decay."""
    batch_size: int = 32
    """Rows per loss term per step (successes, pairs and failures are drawn separately)."""
    beta: float = 0.1
    """DPO's β: the strength of the implicit KL constraint to the reference policy."""
    bc_coef: float = 1.0
    """Weight of behaviour cloning on successes."""
    dpo_coef: float = 1.0
    """Weight of the DPO loss on 1-diff pairs."""
    nl_coef: float = 0.1
    """Weight of the negative-likelihood loss on unpaired failures."""
    bc_smallest: bool = True
    """Clone only each goal's smallest successes (fewest heads off their default), not every success.

    Sampled configs carry many rules the proof does not need, some of which hurt other goals; after anchor
    ablations the smallest success of a goal is the nearest to what its proof needs."""
    ref_warmup_steps: int = 200
    """BC-only steps before the reference policy is frozen (a copy of the policy) and DPO starts."""
    max_grad_norm: float = 1.0
    """Gradient clipping by global norm (0 turns it off)."""
    seed: int = 0
    """Seeds the weights' initialisation, the batch draws and the sampling."""
    device: str = "auto"
    """``"auto"`` (``cuda`` when present, else ``cpu``), ``"cpu"``, ``"cuda"``, ``"cuda:1"``..."""
    shape: str = "lean-gym"
    """``"lean-gym"`` (a GELU trunk, one lemma MLP over name, product and score) or ``"satp"`` (SATP's policy:
    a shared 3-layer MLP with LayerNorm and dropout, per-head dropout, lemma heads over goal ‖ lemma with a
    calibration of the retrieval score; :mod:`lean_gym_agents.satp_net`)."""
    input_form: str = "goal"
    """What the encoder reads: ``"goal"`` (the last ``max_goal_bytes`` of the goal state) or ``"theorem"``
    (SATP's prompt ``theorem satp_goal (h : T) … : goal := by``, its first ``prompt_bytes``)."""
    prompt_bytes: int = 0
    """Bytes of the theorem-form prompt read (0: SATP's, by layout: 4,096 for ``satp-v1``, 1,024 for v2)."""
    mlp_dropout: float = 0.2
    """``shape="satp"``: dropout in the shared MLP (SATP's ``DROPOUT_RATE``)."""
    head_dropout: float = 0.5
    """``shape="satp"``: dropout on each head's input, an independent mask per head (SATP v2's
    ``HEAD_DROPOUT_RATE``): what dropout Thompson sampling samples over."""
    sampler: str = "categorical"
    """What ``act(..., explore=True)`` does: ``"categorical"`` (sample each head from its softmax) or
    ``"dropout"`` (Thompson sampling: one forward pass with the policy's dropout on, then every head's argmax;
    needs ``shape="satp"``)."""


# ------------------------------------------------------------------------------------------------ encoders
class ByteEncoder(nn.Module):
    """A small byte-level transformer: UTF-8 bytes → one vector per text (masked mean pool).

    A strided convolution first merges every ``stride`` bytes into one position (as Charformer-style byte
    models do), so attention runs over a quarter of the length: the encoder trains at a usable speed on a
    CPU.

    Args:
        d_model: Width.
        n_layers: Transformer layers.
        n_heads: Attention heads.
        max_len: Bytes read per text (the last ``max_len``; longer texts are cut from the front).
        stride: Bytes merged per position.
    """

    def __init__(
        self, d_model: int = 128, n_layers: int = 2, n_heads: int = 4, max_len: int = 384, stride: int = 4
    ) -> None:
        super().__init__()
        self.d_model = d_model
        self.max_len = max_len
        self.stride = stride
        self.embed = nn.Embedding(257, d_model, padding_idx=0)  # 0 = pad, byte b = b + 1
        self.merge = nn.Conv1d(d_model, d_model, kernel_size=stride, stride=stride)
        self.pos = nn.Embedding(-(-max_len // stride), d_model)
        layer = nn.TransformerEncoderLayer(
            d_model, n_heads, 4 * d_model, dropout=0.0, batch_first=True, norm_first=True
        )
        self.layers = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)

    def forward(self, texts: Sequence[str], max_len: int | None = None, keep: str = "last") -> torch.Tensor:
        """One vector per text, read from its last (``keep="last"``) or first ``max_len`` bytes."""
        limit = min(max_len or self.max_len, self.max_len)
        rows = [
            list(t.encode("utf-8"))[-limit:] if keep == "last" else list(t.encode("utf-8"))[:limit]
            for t in texts
        ]
        s = self.stride
        width = max(s, -(-max(len(r) for r in rows) // s) * s)
        ids = torch.zeros((len(rows), width), dtype=torch.long)
        for i, r in enumerate(rows):
            if r:
                ids[i, : len(r)] = torch.tensor(r, dtype=torch.long) + 1
        ids = ids.to(self.pos.weight.device)
        x = self.merge(self.embed(ids).transpose(1, 2)).transpose(1, 2)  # (B, width / s, d)
        mask = (ids > 0).view(len(rows), -1, s).any(-1)
        x = x + self.pos(torch.arange(x.shape[1], device=ids.device))[None]
        x = self.layers(x, src_key_padding_mask=~mask)
        m = mask.unsqueeze(-1).to(x.dtype)
        return self.norm((x * m).sum(1) / m.sum(1).clamp(min=1.0))


@dataclass(frozen=True)
class LoraSpec:
    """LoRA adapters for a Hugging Face encoder (applied with ``peft``; only the adapters train).

    The defaults are SATP's (``LORA_R``, ``LORA_ALPHA``, ``LORA_DROPOUT``, ``LORA_TARGET_MODULES`` in
    ``python/src/leansatp_runtime/config.py`` of ``ChristianZ97/LeanSATP``): rank 16, α 32, dropout 0.1 on
    T5's attention projections ``q``, ``k``, ``v`` and ``o`` (matched on the module's own name, so the
    feed-forward ``wo`` is not adapted).
    """

    r: int = 16
    alpha: int = 32
    dropout: float = 0.1
    target_modules: tuple[str, ...] = ("q", "k", "v", "o")


class HFEncoder(nn.Module):
    """A Hugging Face encoder (e.g. ByT5's) as a goal encoder: pooled last hidden state, optionally projected.

    Build it from a model and tokenizer you made (``HFEncoder(model, tokenizer, d_model)``; tests use a tiny
    ``T5EncoderModel`` from a config) or by name (:meth:`from_pretrained`, which may download).

    Args:
        model: A ``transformers`` model whose call returns ``last_hidden_state`` (for T5/ByT5, the encoder).
        tokenizer: Its tokenizer.
        d_model: Output width (a linear projection), or ``None`` for the model's own width (no projection,
            as SATP's policy reads ByT5's hidden state directly).
        name: The hub name or path the model came from (saved in checkpoints), empty for a model built here.
        pooling: ``"mean"`` (masked mean over tokens; SATP v2) or ``"first"`` (the first token's state, SATP v1).
        lora: Wrap the model in LoRA adapters (:class:`LoraSpec`, needs ``peft``): the model's own weights are
            frozen and only the adapters train.
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        d_model: int | None,
        name: str = "",
        *,
        pooling: str = "mean",
        lora: LoraSpec | None = None,
    ) -> None:
        super().__init__()
        if pooling not in ("mean", "first"):
            raise ConfigError(f"pooling must be 'mean' or 'first', got {pooling!r}")
        self.model_class = type(model).__name__
        self.model_config = model.config
        self.tokenizer = tokenizer
        self.name = name
        self.pooling = pooling
        self.lora = lora
        self.model = _with_lora(model, lora) if lora is not None else model
        width = int(getattr(model.config, "hidden_size", None) or model.config.d_model)
        self.d_model = width if d_model is None else int(d_model)
        self.proj: nn.Module = nn.Identity() if d_model is None else nn.Linear(width, int(d_model))

    @classmethod
    def from_pretrained(
        cls, name: str, d_model: int | None = 128, *, pooling: str = "mean", lora: LoraSpec | None = None
    ) -> HFEncoder:
        """Load ``name`` (e.g. ``"google/byt5-small"``); a T5-family model loads only its encoder."""
        transformers = _transformers()
        tok = transformers.AutoTokenizer.from_pretrained(name)
        cfg = transformers.AutoConfig.from_pretrained(name)
        if getattr(cfg, "is_encoder_decoder", False) or cfg.model_type in ("t5", "mt5", "umt5"):
            model = transformers.T5EncoderModel.from_pretrained(name)
        else:
            model = transformers.AutoModel.from_pretrained(name)
        return cls(model, tok, d_model, name=name, pooling=pooling, lora=lora)

    def forward(self, texts: Sequence[str], max_len: int | None = None, keep: str = "last") -> torch.Tensor:
        """One vector per text; a text longer than ``max_len`` tokens keeps its ``keep`` end (``last``/``first``)."""
        side = self.tokenizer.truncation_side
        self.tokenizer.truncation_side = "left" if keep == "last" else "right"
        try:
            batch = self.tokenizer(
                list(texts), padding=True, truncation=True, max_length=max_len or 512, return_tensors="pt"
            )
        finally:
            self.tokenizer.truncation_side = side
        device = next(self.model.parameters()).device
        batch = {k: v.to(device) for k, v in batch.items() if k in ("input_ids", "attention_mask")}
        hidden = self.model(**batch).last_hidden_state
        if self.pooling == "first":
            return self.proj(hidden[:, 0, :])
        m = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        return self.proj((hidden * m).sum(1) / m.sum(1).clamp(min=1.0))

    def spec(self) -> dict[str, Any]:
        """What a checkpoint needs to rebuild this encoder without the original objects."""
        return {
            "name": self.name,
            "config": self.model_config.to_dict(),
            "model_class": self.model_class,
            "tokenizer_class": type(self.tokenizer).__name__,
            "d_model": None if isinstance(self.proj, nn.Identity) else self.d_model,
            "pooling": self.pooling,
            "lora": asdict(self.lora) if self.lora is not None else None,
        }

    @classmethod
    def from_spec(cls, spec: dict[str, Any], d_model: int) -> HFEncoder:
        """Rebuild from :meth:`spec` (weights come from the checkpoint): no download for ByT5-style tokenizers."""
        transformers = _transformers()
        config_cls = transformers.AutoConfig.for_model(spec["config"]["model_type"]).__class__
        config = config_cls.from_dict(spec["config"])
        model = getattr(transformers, spec["model_class"])(config)
        tok_cls = getattr(transformers, spec["tokenizer_class"])
        # ByT5's tokenizer is the UTF-8 byte table: it has no files, so it is rebuilt without the hub.
        byte_level = spec["tokenizer_class"] == "ByT5Tokenizer"
        tokenizer = tok_cls.from_pretrained(spec["name"]) if spec["name"] and not byte_level else tok_cls()
        lora = spec.get("lora")
        return cls(
            model,
            tokenizer,
            spec.get("d_model", d_model),
            name=spec["name"],
            pooling=spec.get("pooling", "mean"),
            lora=LoraSpec(**{**lora, "target_modules": tuple(lora["target_modules"])}) if lora else None,
        )


def _with_lora(model: Any, spec: LoraSpec) -> Any:
    try:
        import peft
    except ImportError as e:
        raise MissingDependencyError("LoRA adapters need peft: `pip install peft` (or -e '.[hf]')") from e
    config = peft.LoraConfig(
        r=spec.r, lora_alpha=spec.alpha, lora_dropout=spec.dropout, target_modules=list(spec.target_modules)
    )
    with warnings.catch_warnings():
        # peft asks transformers whether gradient checkpointing is on through a name transformers deprecated
        warnings.filterwarnings("ignore", category=FutureWarning, message=".*is_gradient_checkpointing.*")
        return peft.get_peft_model(model, config)


def _transformers() -> Any:
    try:
        import transformers
    except ImportError as e:
        raise MissingDependencyError(
            "a Hugging Face encoder needs transformers: `pip install transformers` (or -e '.[hf]')"
        ) from e
    return transformers


# ------------------------------------------------------------------------------------------------ network
def prompt_bytes(args: DPOArgs, layout_name: str) -> int:
    """Bytes of the theorem-form prompt the encoder reads: ``args.prompt_bytes``, else SATP's by layout.

    SATP's ``MAX_SEQUENCE_LENGTH`` is 4,096 in v1 (``python/src/leansatp_runtime/config.py``) and 1,024 in
    v2 (its vendored v2 runtime), in ByT5 tokens, which are bytes.
    """
    if args.prompt_bytes > 0:
        return args.prompt_bytes
    return 1024 if layout_name.startswith("satp-v2") else 4096


def goal_encoder(args: DPOArgs, layout_name: str) -> ByteEncoder:
    """The default encoder: a :class:`ByteEncoder` sized for what ``args.input_form`` reads."""
    span = prompt_bytes(args, layout_name) if args.input_form == "theorem" else args.max_goal_bytes
    return ByteEncoder(args.d_model, args.n_layers, args.n_heads, span, args.stride)


def read_goals(encoder: nn.Module, goals: Sequence[str], args: DPOArgs, layout_name: str) -> torch.Tensor:
    """The encoder's vectors ``(B, d)`` of the goals, in the form ``args.input_form`` says.

    ``"goal"``: the last ``max_goal_bytes`` of the goal state (its target ``⊢ …`` ends it). ``"theorem"``:
    SATP's prompt (:func:`lean_gym.data.satp_prompt`), its first :func:`prompt_bytes`, as SATP's tokenizer
    truncates it.
    """
    if args.input_form == "theorem":
        n = prompt_bytes(args, layout_name)
        return encoder([satp_prompt(g) for g in goals], n, keep="first")
    return encoder(goals, args.max_goal_bytes)


def read_lemmas(
    encoder: nn.Module,
    lemmas: Sequence[Sequence[str]],
    slots: Sequence[int],
    max_bytes: int,
    like: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Each lemma slot's encoded name ``(B, K, d)`` (zeros where unusable) and whether it is usable ``(B, K)``.

    A slot is usable when it holds a Lean identifier (what the layout renders); each distinct name is
    encoded once per batch.
    """
    dev = like.device
    names = [[(row[s] if s < len(row) else "") for s in slots] for row in lemmas]
    usable = torch.tensor(
        [[bool(n) and is_lean_ident(n) for n in row] for row in names], dtype=torch.bool, device=dev
    ).reshape(len(names), len(slots))
    uniq = sorted({n for row in names for n in row if n})
    if uniq:
        enc = encoder(uniq, max_bytes)
        table = torch.cat([torch.zeros(1, enc.shape[1], device=dev, dtype=enc.dtype), enc])
    else:
        table = torch.zeros(1, like.shape[-1], device=dev, dtype=like.dtype)
    pos = {n: i + 1 for i, n in enumerate(uniq)}
    idx = torch.tensor([[pos.get(n, 0) for n in row] for row in names], dtype=torch.long, device=dev)
    return table[idx.reshape(len(names), len(slots))], usable


class HeadTable:
    """Where each head of a layout sits: lemma heads (and their slots), the other heads, choice counts."""

    def __init__(self, layout: Layout) -> None:
        heads = getattr(layout, "heads", None)
        nvec = np.asarray(layout.nvec, dtype=np.int64)
        self.nvec = nvec
        self.num_heads = int(nvec.size)
        self.max_levels = int(nvec.max())
        kinds = [h.kind for h in heads] if heads is not None else ["tactic"] * self.num_heads
        slots = [h.slot for h in heads] if heads is not None else [-1] * self.num_heads
        self.lemma_heads = [i for i, k in enumerate(kinds) if k == "lemma"]
        self.lemma_slots = [slots[i] for i in self.lemma_heads]
        self.other_heads = [i for i, k in enumerate(kinds) if k != "lemma"]
        self.num_lemmas = int(getattr(layout, "num_lemmas", 0))
        lemma_levels = {int(nvec[i]) for i in self.lemma_heads}
        if len(lemma_levels) > 1:
            raise LeanGymError(
                f"layout {layout.name}: lemma heads have different choice counts {lemma_levels}"
            )
        self.lemma_levels = lemma_levels.pop() if lemma_levels else 0

    def valid(self) -> torch.Tensor:
        """``(H, Lmax)``: which choices each head has."""
        return torch.arange(self.max_levels)[None, :] < torch.tensor(self.nvec.tolist())[:, None]


def only_off(out: torch.Tensor, usable: torch.Tensor) -> torch.Tensor:
    """Lemma logits ``(B, K, L)`` where an unusable slot can only take level 0 (it renders nothing)."""
    off = torch.full_like(out, _NEG)
    off[..., 0] = 0.0
    return torch.where(usable.unsqueeze(-1), out, off)


class AesopPolicyNet(nn.Module):
    """Goal encoder + one categorical head per action head; lemma heads read their lemma's text and score."""

    _valid: torch.Tensor
    _other_rows: torch.Tensor
    _other_cols: torch.Tensor

    def __init__(self, layout: Layout, args: DPOArgs, encoder: nn.Module | None = None) -> None:
        super().__init__()
        d = args.d_model
        self.args = args
        self.layout_name = layout.name
        self.encoder = encoder or goal_encoder(args, layout.name)
        t = HeadTable(layout)
        self.num_heads, self.max_levels, self.num_lemmas = t.num_heads, t.max_levels, t.num_lemmas
        self.lemma_heads, self.lemma_slots, self.other_heads = t.lemma_heads, t.lemma_slots, t.other_heads
        self.lemma_levels = t.lemma_levels
        self.trunk = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.Linear(d, d), nn.GELU())
        other_sizes = [int(t.nvec[i]) for i in self.other_heads]
        self.other_out = nn.Linear(d, sum(other_sizes))
        # Where each non-lemma head's logits go in the (H, Lmax) grid.
        rows, cols = [], []
        for h, n in zip(self.other_heads, other_sizes):
            rows += [h] * n
            cols += list(range(n))
        self.register_buffer("_other_rows", torch.tensor(rows, dtype=torch.long), persistent=False)
        self.register_buffer("_other_cols", torch.tensor(cols, dtype=torch.long), persistent=False)
        if self.lemma_heads:
            self.lemma_mlp = nn.Sequential(
                nn.Linear(3 * d + 1, d), nn.GELU(), nn.Linear(d, self.lemma_levels)
            )
            self.rank_bias = nn.Parameter(torch.zeros(len(self.lemma_heads), self.lemma_levels))
        self.register_buffer("_valid", t.valid(), persistent=False)

    def forward(
        self, goals: Sequence[str], lemmas: Sequence[Sequence[str]], scores: torch.Tensor
    ) -> torch.Tensor:
        """Logits ``(B, H, Lmax)``; invalid choices (past a head's count, unusable lemma slots) at -1e9."""
        dev = self._valid.device
        g = self.trunk(read_goals(self.encoder, goals, self.args, self.layout_name))
        b = g.shape[0]
        logits = torch.full((b, self.num_heads, self.max_levels), _NEG, device=dev, dtype=g.dtype)
        logits[:, self._other_rows, self._other_cols] = self.other_out(g)
        if self.lemma_heads:
            lem, usable = read_lemmas(self.encoder, lemmas, self.lemma_slots, self.args.max_lemma_bytes, g)
            gk = g[:, None, :].expand_as(lem)
            sc = scores.to(dev, g.dtype)[:, self.lemma_slots].unsqueeze(-1)
            out = self.lemma_mlp(torch.cat([gk, lem, gk * lem, sc], dim=-1)) + self.rank_bias
            full = torch.full((b, len(self.lemma_heads), self.max_levels), _NEG, device=dev, dtype=g.dtype)
            full[..., : self.lemma_levels] = only_off(out, usable)
            logits[:, self.lemma_heads] = full
        return logits.masked_fill(~self._valid, _NEG)


# ------------------------------------------------------------------------------------------------ data
@dataclass
class PolicyData:
    """A buffer as training arrays: contexts, actions, and the three index sets the losses draw from.

    Attributes:
        goals, lemmas, scores: Per context: goal text, ``num_lemmas`` lemma names (``""`` padded), scores.
        ctx: Context of each row. actions: ``(n, H)`` int64. rewards: ``(n,)``.
        positives: Rows that proved their goal.
        pairs: ``(P, 3)``: chosen row, rejected row, diff_head (1-diff pairs, mined and stored).
        negatives: Failing rows that are in no 1-diff pair.
    """

    goals: list[str]
    lemmas: list[tuple[str, ...]]
    scores: np.ndarray
    ctx: np.ndarray
    actions: np.ndarray
    rewards: np.ndarray
    positives: np.ndarray
    pairs: np.ndarray
    negatives: np.ndarray

    @classmethod
    def from_buffer(
        cls,
        buffer: HistoryBuffer,
        num_lemmas: int = 8,
        *,
        default_action: np.ndarray | None = None,
        smallest_successes: bool = False,
    ) -> PolicyData:
        """Rows with a known action vector; pairs from ``buffer.mine_pairs()`` (stored pairs included).

        Args:
            buffer: The buffer.
            num_lemmas: Lemma slots per context.
            default_action: The layout's default action (zeros when omitted).
            smallest_successes: Keep as ``positives`` only each context's successes with the fewest heads
                off ``default_action``.
        """
        valid = np.flatnonzero(buffer.valid)
        keep = {int(r): i for i, r in enumerate(valid.tolist())}
        goals: list[str] = []
        lemmas: list[tuple[str, ...]] = []
        scores: list[list[float]] = []
        index: dict[tuple[Any, ...], int] = {}
        ctx = np.zeros(valid.size, dtype=np.int64)
        for i, r in enumerate(valid.tolist()):
            row = buffer.row(r)
            lem = tuple(row.lemmas[:num_lemmas]) + ("",) * max(0, num_lemmas - len(row.lemmas))
            sc = list(row.lemma_scores[:num_lemmas]) + [0.0] * max(0, num_lemmas - len(row.lemma_scores))
            key = (row.goal, lem, tuple(sc))
            j = index.get(key)
            if j is None:
                j = index[key] = len(goals)
                goals.append(row.goal)
                lemmas.append(lem)
                scores.append(sc)
            ctx[i] = j
        actions = buffer.actions[valid]
        rewards = buffer.rewards[valid]
        mined = buffer.mine_pairs() if valid.size else None
        pairs = []
        in_pair: set[int] = set()
        if mined is not None:
            for c, r, h in zip(mined.chosen.tolist(), mined.rejected.tolist(), mined.diff_head.tolist()):
                if h >= 0 and c in keep and r in keep:
                    pairs.append((keep[c], keep[r], h))
                    in_pair.add(keep[r])
        pos = np.flatnonzero(rewards > 0)
        if smallest_successes and pos.size:
            default = np.zeros(actions.shape[1], np.int64) if default_action is None else default_action
            size = (actions[pos] != default).sum(1)
            order = np.lexsort((size, ctx[pos]))  # by context, then size
            pos, size, c = pos[order], size[order], ctx[pos][order]
            first = np.r_[True, c[1:] != c[:-1]]
            smallest = np.maximum.accumulate(np.where(first, np.arange(c.size), 0))  # each group's first
            pos = np.sort(pos[size == size[smallest]])
        neg = np.array([i for i in np.flatnonzero(rewards <= 0).tolist() if i not in in_pair], dtype=np.int64)
        return cls(
            goals=goals,
            lemmas=lemmas,
            scores=np.asarray(scores, dtype=np.float32).reshape(len(goals), num_lemmas),
            ctx=ctx,
            actions=actions,
            rewards=rewards,
            positives=pos.astype(np.int64),
            pairs=np.asarray(pairs, dtype=np.int64).reshape(-1, 3),
            negatives=neg,
        )

    def summary(self) -> str:
        """The counts as one line (rows, contexts, successes, failures)."""
        return (
            f"{len(self.ctx)} rows over {len(self.goals)} contexts: {self.positives.size} successes, "
            f"{len(self.pairs)} 1-diff pairs, {self.negatives.size} unpaired failures"
        )


# ------------------------------------------------------------------------------------------------ policy
def _check_args(args: DPOArgs) -> None:
    for name, allowed in (
        ("shape", ("lean-gym", "satp")),
        ("input_form", ("goal", "theorem")),
        ("sampler", ("categorical", "dropout")),
    ):
        value = getattr(args, name)
        if value not in allowed:
            raise ConfigError(f"DPOArgs.{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    if args.sampler == "dropout" and args.shape != "satp":
        raise ConfigError(
            "sampler='dropout' needs shape='satp' (the lean-gym shape has no dropout to sample)"
        )
    for name in ("mlp_dropout", "head_dropout"):
        if not 0.0 <= getattr(args, name) < 1.0:
            raise ConfigError(f"DPOArgs.{name} must be in [0, 1), got {getattr(args, name)}")


class DPOPolicy:
    """The trainable aesop policy: an :class:`~lean_gym_agents.base.Agent` with BC + DPO + NL training.

    Args:
        layout: The action layout (name or object), e.g. ``"satp-v1"``.
        args: Hyperparameters.
        encoder: A goal encoder module (``ByteEncoder`` by default; an :class:`HFEncoder` for ByT5 etc.).
            Its output width must be ``args.d_model``.
    """

    def __init__(
        self, layout: str | Layout = "satp-v1", args: DPOArgs | None = None, encoder: nn.Module | None = None
    ) -> None:
        self.layout = get_layout(layout)
        self.args = args or DPOArgs()
        _check_args(self.args)
        torch.manual_seed(self.args.seed)
        self.device = resolve_device(self.args.device)
        if self.args.shape == "satp":
            from lean_gym_agents.satp_net import SATPPolicyNet

            self.net: AesopPolicyNet | SATPPolicyNet = SATPPolicyNet(self.layout, self.args, encoder).to(
                self.device
            )
        else:
            self.net = AesopPolicyNet(self.layout, self.args, encoder).to(self.device)
        self.ref: AesopPolicyNet | SATPPolicyNet | None = None
        self.optimizer = torch.optim.AdamW(
            [p for p in self.net.parameters() if p.requires_grad],
            lr=self.args.learning_rate,
            weight_decay=self.args.weight_decay,
        )
        self.steps_done = 0
        self.rng = np.random.default_rng(self.args.seed)
        self._online: HistoryBuffer | None = None

    # -------------------------------------------------------------------------------- inference
    def _obs_fields(self, observations: Sequence[Any]) -> tuple[list[str], list[list[str]], torch.Tensor]:
        k = self.net.num_lemmas
        goals = [str(o["goal"]) for o in observations]
        lemmas = [[str(x) for x in tuple(o.get("lemmas", ()))[:k]] for o in observations]
        lemmas = [row + [""] * (k - len(row)) for row in lemmas]
        scores = np.zeros((len(observations), k), dtype=np.float32)
        for i, o in enumerate(observations):
            s = np.asarray(o.get("lemma_scores", ()), dtype=np.float32).reshape(-1)[:k]
            scores[i, : s.size] = s
        return goals, lemmas, torch.from_numpy(scores)

    @torch.no_grad()
    def logits(self, observations: Sequence[Any]) -> torch.Tensor:
        """Logits ``(B, H, Lmax)`` for a batch of aesop observations (evaluation mode)."""
        self.net.eval()
        return self.net(*self._obs_fields(observations))

    def act(self, observations: Sequence[Any], *, explore: bool = True) -> list[Any]:
        """One action per observation: greedy (argmax per head) unless ``explore``.

        Exploring, each head is sampled from its softmax (``sampler="categorical"``) or the argmax of a
        dropout draw is taken (``sampler="dropout"``: Thompson sampling).
        """
        if not observations:
            return []
        if explore and self.args.sampler == "dropout":
            acts = torch.from_numpy(self.dropout_logits(observations)[0]).argmax(-1)
        else:
            logits = self.logits(observations)
            acts = torch.distributions.Categorical(logits=logits).sample() if explore else logits.argmax(-1)
        return [a for a in acts.cpu().numpy().astype(np.int64)]

    @torch.no_grad()
    def dropout_logits(self, observations: Sequence[Any], draws: int = 1) -> np.ndarray:
        """``draws`` Thompson draws of the logits, ``(draws, B, H, Lmax)``.

        The policy's dropout is on, the encoder in evaluation mode (one encoder pass serves every draw).
        Needs ``shape="satp"``.
        """
        if self.args.shape != "satp":
            raise ConfigError("dropout draws need DPOArgs(shape='satp'), whose heads have dropout")
        self.net.eval()
        goals, lemmas, scores = self._obs_fields(observations)
        net = self.net
        if isinstance(net, AesopPolicyNet):
            raise ConfigError("dropout draws need DPOArgs(shape='satp'), whose heads have dropout")
        enc = net.encode(goals, lemmas).repeat(draws)
        logits = net.heads(enc, scores.repeat(draws, 1), dropout=True)
        return logits.reshape(draws, len(observations), *logits.shape[1:]).cpu().numpy()

    # -------------------------------------------------------------------------------- training
    def _forward_rows(
        self, net: nn.Module, data: PolicyData, ctx_ids: np.ndarray
    ) -> tuple[torch.Tensor, dict[int, int]]:
        uniq = np.unique(ctx_ids)
        goals = [data.goals[c] for c in uniq.tolist()]
        lemmas = [list(data.lemmas[c]) for c in uniq.tolist()]
        scores = torch.from_numpy(data.scores[uniq])
        logp = F.log_softmax(net(goals, lemmas, scores), dim=-1)
        return logp, {int(c): i for i, c in enumerate(uniq.tolist())}

    def _head_logp(
        self, logp: torch.Tensor, where: dict[int, int], data: PolicyData, rows: np.ndarray
    ) -> torch.Tensor:
        """Per-head log-probs ``(n, H)`` of the rows' actions."""
        idx = torch.tensor(
            [where[int(data.ctx[r])] for r in rows.tolist()], dtype=torch.long, device=logp.device
        )
        acts = torch.from_numpy(data.actions[rows]).to(logp.device).clamp(min=0)
        return logp[idx].gather(-1, acts.unsqueeze(-1)).squeeze(-1)

    def loss(
        self, data: PolicyData, rng: np.random.Generator | None = None
    ) -> tuple[torch.Tensor, dict[str, float]]:
        """The training loss on one draw of batches from ``data``, and its parts."""
        rng = rng or self.rng
        a = self.args
        bs = a.batch_size

        def draw(pool: np.ndarray) -> np.ndarray:
            return pool[rng.integers(pool.shape[0], size=min(bs, pool.shape[0]))] if pool.shape[0] else pool

        pos = draw(data.positives)
        use_dpo = self.ref is not None and a.dpo_coef > 0 and len(data.pairs) > 0
        pairs = draw(data.pairs) if use_dpo else np.zeros((0, 3), dtype=np.int64)
        neg = draw(data.negatives) if a.nl_coef > 0 else data.negatives[:0]
        rows = np.concatenate([pos, pairs[:, 0], pairs[:, 1], neg]).astype(np.int64)
        if rows.size == 0:
            raise LeanGymError("no training rows: the buffer holds no parsed successes, pairs or failures")
        self.net.train()
        logp, where = self._forward_rows(self.net, data, data.ctx[rows])
        parts: dict[str, float] = {}
        total = torch.zeros((), device=self.device)
        if pos.size and a.bc_coef > 0:
            bc = -self._head_logp(logp, where, data, pos).mean()
            total = total + a.bc_coef * bc
            parts["bc_loss"] = float(bc.detach())
        if use_dpo and self.ref is not None:
            c, r, h = pairs[:, 0], pairs[:, 1], torch.from_numpy(pairs[:, 2]).to(self.device)
            pick = h.unsqueeze(-1)
            lc = self._head_logp(logp, where, data, c).gather(-1, pick).squeeze(-1)
            lr = self._head_logp(logp, where, data, r).gather(-1, pick).squeeze(-1)
            with torch.no_grad():
                self.ref.eval()
                ref_logp, ref_where = self._forward_rows(self.ref, data, data.ctx[np.concatenate([c, r])])
                rc = self._head_logp(ref_logp, ref_where, data, c).gather(-1, pick).squeeze(-1)
                rr = self._head_logp(ref_logp, ref_where, data, r).gather(-1, pick).squeeze(-1)
            margin = a.beta * ((lc - rc) - (lr - rr))
            dpo = -F.logsigmoid(margin).mean()
            total = total + a.dpo_coef * dpo
            parts["dpo_loss"] = float(dpo.detach())
            parts["dpo_accuracy"] = float((margin > 0).float().mean())
            parts["dpo_margin"] = float(margin.detach().mean())
        if neg.size and a.nl_coef > 0:
            lp = self._head_logp(logp, where, data, neg)
            default = torch.from_numpy(self.layout.default_action()).to(self.device)
            chosen = torch.from_numpy(data.actions[neg]).to(self.device) != default
            p = lp.exp().clamp(max=1.0 - 1e-6)
            per = -torch.log1p(-p) * chosen
            nl = per.sum() / chosen.sum().clamp(min=1)
            total = total + a.nl_coef * nl
            parts["nl_loss"] = float(nl.detach())
        parts["loss"] = float(total.detach())
        return total, parts

    def train_step(self, data: PolicyData) -> dict[str, float]:
        """One optimiser step; freezes the reference once ``ref_warmup_steps`` steps are done."""
        if self.ref is None and self.steps_done >= self.args.ref_warmup_steps:
            self.freeze_reference()
        total, parts = self.loss(data)
        self.optimizer.zero_grad(set_to_none=True)
        total.backward()
        if self.args.max_grad_norm > 0:
            nn.utils.clip_grad_norm_(self.net.parameters(), self.args.max_grad_norm)
        self.optimizer.step()
        self.steps_done += 1
        return parts

    def freeze_reference(self) -> None:
        """Take the reference policy: a frozen copy of the policy as it is now."""
        self.ref = copy.deepcopy(self.net).eval()
        for p in self.ref.parameters():
            p.requires_grad_(False)

    def fit(
        self,
        data: PolicyData | HistoryBuffer,
        steps: int,
        *,
        progress: bool = False,
        log_every: int = 0,
        echo: Any = print,
    ) -> list[dict[str, float]]:
        """Train for ``steps`` optimiser steps on a buffer (or prepared :class:`PolicyData`).

        Returns:
            One dict of loss parts per step, plus ``step_s`` (its wall time) and ``step_cpu_s`` (the CPU time
            the process spent in it; on a busy machine the fairer measure of the step's cost).
        """
        if isinstance(data, HistoryBuffer):
            data = PolicyData.from_buffer(
                data,
                self.net.num_lemmas,
                default_action=self.layout.default_action(),
                smallest_successes=self.args.bc_smallest,
            )
        it: Any = range(steps)
        if progress:
            from tqdm.auto import tqdm

            it = tqdm(it, desc="dpo", mininterval=0.5, leave=False)
        history = []
        for i in it:
            t0, c0 = time.perf_counter(), time.process_time()
            parts = self.train_step(data)
            parts["step_s"] = time.perf_counter() - t0
            parts["step_cpu_s"] = time.process_time() - c0  # this process's CPU time (all its threads)
            history.append(parts)
            if log_every and (i + 1) % log_every == 0:
                echo(f"step {i + 1}: " + ", ".join(f"{k} {v:.4f}" for k, v in parts.items()))
        return history

    def update(
        self, batch: Transitions, *, train_every: int = 256, steps_per_round: int = 32
    ) -> dict[str, float]:
        """Agent API: keep the transitions; every ``train_every`` new rows, run ``steps_per_round`` steps."""
        if self._online is None:
            self._online = HistoryBuffer(self.layout)
        buf = self._online
        before = len(buf)
        for obs, action, reward, info in zip(
            batch.observations, batch.actions, batch.rewards.tolist(), batch.infos or [{}] * len(batch)
        ):
            k = self.net.num_lemmas
            lem = [str(x) for x in tuple(obs.get("lemmas", ()))[:k]]
            while lem and not lem[-1]:
                lem.pop()
            buf.add(
                goal=str(obs["goal"]),
                reward=float(reward),
                action=np.asarray(action, dtype=np.int64),
                theorem=str(obs.get("theorem", "")),
                lemmas=lem,
                lemma_scores=[float(x) for x in np.asarray(obs.get("lemma_scores", ()))[: len(lem)]],
                goal_uuid=info.get("goal_uuid"),
                backend=str(info.get("backend", "")),
                status=str(info.get("status", "")),
            )
        if len(buf) // train_every > before // train_every:
            hist = self.fit(buf, steps_per_round)
            return {k: float(np.mean([h[k] for h in hist if k in h])) for k in hist[-1]}
        return {}

    # -------------------------------------------------------------------------------- checkpoints
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write a checkpoint (args, layout name, weights, reference weights, encoder spec)."""
        enc = self.net.encoder
        state = {
            "format": _FORMAT,
            "args": asdict(self.args),
            "layout": self.layout.name,
            "steps_done": self.steps_done,
            "net": self.net.state_dict(),
            "ref": self.ref.state_dict() if self.ref is not None else None,
            "encoder": enc.spec() if isinstance(enc, HFEncoder) else None,
        }
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        torch.save(state, path)
        return path

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], *, device: str | None = None, encoder: nn.Module | None = None
    ) -> DPOPolicy:
        """Load a checkpoint written by :meth:`save` (on ``device``, default the saved one resolved again).

        Raises:
            LeanGymError: The file is not a lean-gym DPO checkpoint.
        """
        try:
            state = torch.load(Path(path), map_location="cpu", weights_only=True)
        except (OSError, RuntimeError, EOFError, pickle.UnpicklingError) as e:
            raise LeanGymError(f"cannot read DPO checkpoint {os.fspath(path)!r}: {e}") from e
        if not isinstance(state, dict) or state.get("format") != _FORMAT:
            raise LeanGymError(f"{os.fspath(path)!r} is not a lean_gym_agents DPO checkpoint")
        known = {f.name for f in fields(DPOArgs)}
        kw = {k: v for k, v in state["args"].items() if k in known}
        if device is not None:
            kw["device"] = device
        args = DPOArgs(**kw)
        if encoder is None and state.get("encoder"):
            encoder = HFEncoder.from_spec(state["encoder"], args.d_model)
        policy = cls(state["layout"], args, encoder)
        policy.net.load_state_dict(state["net"])
        if state.get("ref") is not None:
            policy.freeze_reference()
            if policy.ref is not None:
                policy.ref.load_state_dict(state["ref"])
        policy.steps_done = int(state.get("steps_done", 0))
        return policy

    def num_parameters(self) -> int:
        """Trainable parameters of the policy network."""
        return sum(p.numel() for p in self.net.parameters() if p.requires_grad)
