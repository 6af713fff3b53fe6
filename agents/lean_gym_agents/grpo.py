"""GRPO (Group Relative Policy Optimization) for any Hugging Face causal LM on ``LeanProof-v0``.

DeepSeekMath (Shao et al. 2024, arXiv 2402.03300), as used by DeepSeek-Prover and Kimina-Prover: for each
prompt sample ``G`` proofs (``group_size``), reward each with the env (the oracle's +1/−1), and use the
group-normalised reward as every token's advantage, ``A_i = (r_i − mean(r)) / (std(r) + adv_eps)``. The
objective per token is PPO's clipped surrogate minus a KL penalty to a frozen reference model, with the
k3 estimator ``π_ref/π_θ − log(π_ref/π_θ) − 1``::

    J = 1/G Σ_i 1/|o_i| Σ_t [ min(ρ_it A_i, clip(ρ_it, 1−ε, 1+ε) A_i) − β D_KL,it ],  ρ_it = π_θ/π_θ_old

Groups whose rewards are all equal carry no signal (every advantage is 0) and are skipped. Gradients are
accumulated over ``gradient_accumulation_steps`` micro-batches before each optimizer step.

The agent needs ``torch`` only: any model whose ``forward(input_ids, attention_mask=…, position_ids=…,
past_key_values=…, use_cache=…)`` returns ``.logits`` (every ``transformers`` causal LM) and any tokenizer
with ``encode``/``decode`` and ``eos_token_id``. Building a model needs ``transformers`` (the ``hf``
extra); :mod:`lean_gym_agents.grpo_toy` builds a tiny one from a config, with no download.

It follows the agent contract of :mod:`lean_gym_agents` — ``act(observations) -> actions`` and
``update(batch) -> metrics`` — where ``batch`` is anything with ``observations``, ``actions``, ``rewards``
and ``infos`` (:class:`Rollouts` here, or the runner's ``Transitions``). :func:`train_grpo` is the GRPO
loop over the pooled vector env: one step is ``prompts_per_step`` theorems × ``group_size`` samples, one
attempt each (``max_turns=1``).

Example:
    >>> from lean_gym_agents.grpo import GRPOArgs, GRPOAgent, make_grpo_env, train_grpo
    >>> # model, tokenizer = AutoModelForCausalLM.from_pretrained(...), AutoTokenizer.from_pretrained(...)
    >>> # agent = GRPOAgent(model, tokenizer, GRPOArgs(group_size=8, prompts_per_step=4))
    >>> # env = make_grpo_env("LeanProof-v0", agent.args, backend="sim", source="sim")
    >>> # history = train_grpo(agent, env, steps=100)
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
import torch

from lean_gym_agents._torch import resolve_device

__all__ = ["GRPOAgent", "GRPOArgs", "GroupResets", "Rollouts", "make_grpo_env", "train_grpo"]


@dataclass(frozen=True)
class GRPOArgs:
    """Hyperparameters of :class:`GRPOAgent`, named as in DeepSeekMath (and TRL where the paper has none)."""

    group_size: int = 8
    """G: proofs sampled per prompt; advantages are normalised within each group."""
    prompts_per_step: int = 4
    """Prompts (theorems) per training step; a step samples ``prompts_per_step * group_size`` proofs."""
    clip_eps: float = 0.2
    """ε: the ratio π_θ/π_θ_old is clipped to [1 − ε, 1 + ε]."""
    kl_coef: float = 0.04
    """β: weight of the k3 KL estimate to the frozen reference model."""
    learning_rate: float = 1e-6
    """AdamW learning rate."""
    weight_decay: float = 0.0
    """AdamW weight decay."""
    num_iterations: int = 1
    """μ: optimizer passes over each batch of samples (π_θ_old is the sampling policy throughout)."""
    gradient_accumulation_steps: int = 1
    """Micro-batches per optimizer step (the batch's sequences are split this many ways)."""
    max_grad_norm: float = 1.0
    """Gradient clipping by global norm (0 turns it off)."""
    max_new_tokens: int = 256
    """Longest completion sampled, in tokens."""
    max_prompt_tokens: int = 1024
    """Prompts longer than this keep their last tokens (the statement sits at the end)."""
    temperature: float = 1.0
    """Sampling temperature (also applied to the log-probabilities of the objective, as TRL does)."""
    adv_eps: float = 1e-4
    """Added to the group's reward std before dividing."""
    disable_dropout: bool = True
    """Set every dropout of the policy and the reference to 0 (as TRL's default), so π_θ_old, π_θ and π_ref
    are the same function of the weights when ρ and the KL are computed."""
    allowed_token_ids: tuple[int, ...] | None = None
    """Constrained decoding: when set, only these token ids (plus EOS) may be sampled; the objective uses
    the same restricted distribution."""
    device: str = "auto"
    """``"auto"`` (CUDA when present, else CPU), ``"cpu"``, ``"cuda"``, ``"cuda:1"``…"""
    seed: int = 0
    """Seeds sampling (the caller seeds the model's initialisation)."""

    def __post_init__(self) -> None:
        if self.group_size < 2:
            raise ValueError(
                f"group_size must be at least 2 (advantages are relative), got {self.group_size}"
            )
        for name in ("prompts_per_step", "num_iterations", "gradient_accumulation_steps", "max_new_tokens"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not 0.0 <= self.clip_eps < 1.0:
            raise ValueError(f"clip_eps must be in [0, 1), got {self.clip_eps}")
        if self.kl_coef < 0 or self.temperature <= 0:
            raise ValueError("kl_coef must be >= 0 and temperature > 0")


@dataclass(frozen=True)
class Rollouts:
    """One GRPO batch: a flat list of (observation, action, reward, info), groups sharing an observation.

    Attributes:
        observations: The prompt each proof answered (identical for a group).
        actions: The sampled proofs.
        rewards: The env's rewards, ``float64``.
        infos: Each step's ``info`` (``hack_detected``, ``oracle_reward``… on ``LeanHackable-v0``).
    """

    observations: list[Any]
    actions: list[str]
    rewards: np.ndarray
    infos: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.actions)


class GRPOAgent:
    """A causal LM trained with GRPO; ``act`` samples proofs, ``update`` takes one GRPO step on a batch.

    Args:
        model: A causal LM (``transformers`` ``PreTrainedModel`` or anything with the same forward).
        tokenizer: ``encode(text) -> list[int]``, ``decode(ids, skip_special_tokens=True) -> str``,
            ``eos_token_id``; ``pad_token_id`` (EOS when missing); ``apply_chat_template`` for chat
            observations.
        args: The hyperparameters.
        ref_model: The frozen reference for the KL term; a copy of ``model`` as given when omitted.
        prompt_fn: Maps an observation to the prompt text; by default text observations are used as they
            are and chat observations (``observation="chat"``) go through the tokenizer's chat template.

    Raises:
        ValueError: when the tokenizer has no EOS token.
    """

    def __init__(
        self,
        model: torch.nn.Module,
        tokenizer: Any,
        args: GRPOArgs | None = None,
        *,
        ref_model: torch.nn.Module | None = None,
        prompt_fn: Callable[[Any], str] | None = None,
    ) -> None:
        self.args = args or GRPOArgs()
        self.device = resolve_device(self.args.device)
        self.tokenizer = tokenizer
        if getattr(tokenizer, "eos_token_id", None) is None:
            raise ValueError("the tokenizer needs an eos_token_id (GRPO samples until EOS)")
        self.eos_id = int(tokenizer.eos_token_id)
        pad = getattr(tokenizer, "pad_token_id", None)
        self.pad_id = self.eos_id if pad is None else int(pad)
        self.model = model.to(self.device)
        self.ref_model = (ref_model if ref_model is not None else copy.deepcopy(model)).to(self.device)
        self.ref_model.eval()
        if self.args.disable_dropout:
            for module in (*self.model.modules(), *self.ref_model.modules()):
                if isinstance(module, torch.nn.Dropout):
                    module.p = 0.0
        for p in self.ref_model.parameters():
            p.requires_grad_(False)
        self.optimizer = torch.optim.AdamW(
            self.model.parameters(), lr=self.args.learning_rate, weight_decay=self.args.weight_decay
        )
        self.prompt_fn = prompt_fn
        self._gen = torch.Generator(device=self.device).manual_seed(self.args.seed)
        self._allowed_mask: torch.Tensor | None = None
        self._sampled: dict[tuple[str, str], list[int]] = {}

    # ----------------------------------------------------------------------------- tokens
    def prompt_text(self, observation: Any) -> str:
        """The prompt the model continues for ``observation``."""
        if self.prompt_fn is not None:
            return self.prompt_fn(observation)
        from lean_gym.envs.proof_env import decode_observation

        value = decode_observation(str(observation))
        if isinstance(value, list):
            return str(self.tokenizer.apply_chat_template(value, tokenize=False, add_generation_prompt=True))
        return value

    def _prompt_ids(self, observation: Any) -> list[int]:
        ids = list(self.tokenizer.encode(self.prompt_text(observation)))
        return ids[-self.args.max_prompt_tokens :] or [self.eos_id]

    def _logits_mask(self, vocab: int) -> torch.Tensor | None:
        if self.args.allowed_token_ids is None:
            return None
        if self._allowed_mask is None or self._allowed_mask.shape[0] != vocab:
            mask = torch.full((vocab,), float("-inf"), device=self.device)
            mask[[*self.args.allowed_token_ids, self.eos_id]] = 0.0
            self._allowed_mask = mask
        return self._allowed_mask

    def _shape_logits(self, logits: torch.Tensor) -> torch.Tensor:
        logits = logits.float() / self.args.temperature
        mask = self._logits_mask(logits.shape[-1])
        return logits if mask is None else logits + mask

    # ----------------------------------------------------------------------------- acting
    @torch.no_grad()
    def act(self, observations: Sequence[Any], *, explore: bool = True) -> list[str]:
        """One proof per observation: sampled at ``temperature`` (``explore``), else greedy.

        The sampled token ids are remembered so that :meth:`update` trains on exactly what was sampled.
        """
        if not observations:
            return []
        prompts = [self._prompt_ids(o) for o in observations]
        n, width = len(prompts), max(len(p) for p in prompts)
        input_ids = torch.full((n, width), self.pad_id, dtype=torch.long, device=self.device)
        attention = torch.zeros((n, width), dtype=torch.long, device=self.device)
        for i, p in enumerate(prompts):  # left padding: every prompt ends at the same column
            input_ids[i, width - len(p) :] = torch.tensor(p, device=self.device)
            attention[i, width - len(p) :] = 1
        self.model.eval()
        out_tokens: list[list[int]] = [[] for _ in range(n)]
        done = torch.zeros(n, dtype=torch.bool, device=self.device)
        past = None
        cache_kw = _cache_kwarg(self.model)
        step_ids = input_ids
        for _ in range(self.args.max_new_tokens):
            position = (attention.cumsum(-1) - 1).clamp(min=0)[:, -step_ids.shape[1] :]
            out = self.model(
                input_ids=step_ids,
                attention_mask=attention,
                position_ids=position,
                use_cache=True,
                **{cache_kw: past},
            )
            past = getattr(out, "cache", None) or getattr(out, "past_key_values", None)
            logits = self._shape_logits(out.logits[:, -1, :])
            if explore:
                probs = torch.softmax(logits, dim=-1)
                nxt = torch.multinomial(probs, 1, generator=self._gen).squeeze(-1)
            else:
                nxt = logits.argmax(dim=-1)
            nxt = torch.where(done, torch.full_like(nxt, self.pad_id), nxt)
            for i in torch.nonzero(~done).flatten().tolist():
                out_tokens[i].append(int(nxt[i]))
            done = done | (nxt == self.eos_id)
            if bool(done.all()):
                break
            step_ids = nxt.unsqueeze(-1)
            attention = torch.cat([attention, (~done | (nxt == self.eos_id)).long().unsqueeze(-1)], dim=-1)
        self.model.train()
        actions: list[str] = []
        if len(self._sampled) > 100_000:  # never consumed (e.g. act without update): keep memory bounded
            self._sampled.clear()
        for obs, toks in zip(observations, out_tokens):
            body = toks[:-1] if toks and toks[-1] == self.eos_id else toks
            text = str(self.tokenizer.decode(body, skip_special_tokens=True))
            self._sampled[(str(obs), text)] = toks
            actions.append(text)
        return actions

    # ----------------------------------------------------------------------------- learning
    def _sequences(
        self, observations: Sequence[Any], actions: Sequence[str]
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Right-padded prompt+completion ids, attention mask, and a mask of the completion's targets."""
        rows: list[tuple[list[int], list[int]]] = []
        for obs, act in zip(observations, actions):
            comp = self._sampled.get((str(obs), act))
            if comp is None:  # not sampled by this agent (e.g. an offline batch): tokenize the text
                comp = [*self.tokenizer.encode(act), self.eos_id]
            rows.append((self._prompt_ids(obs), comp))
        width = max(len(p) + len(c) for p, c in rows)
        n = len(rows)
        ids = torch.full((n, width), self.pad_id, dtype=torch.long)
        attn = torch.zeros((n, width), dtype=torch.long)
        target = torch.zeros((n, width - 1), dtype=torch.float32)
        for i, (p, c) in enumerate(rows):
            ids[i, : len(p) + len(c)] = torch.tensor(p + c)
            attn[i, : len(p) + len(c)] = 1
            target[i, len(p) - 1 : len(p) + len(c) - 1] = 1.0  # logits at t predict token t+1
        return ids.to(self.device), attn.to(self.device), target.to(self.device)

    def _token_logprobs(
        self, model: torch.nn.Module, ids: torch.Tensor, attn: torch.Tensor, target: torch.Tensor
    ) -> torch.Tensor:
        """Log π(token t+1 | ≤ t) at the completion's targets, 0 elsewhere.

        (A prompt token may be outside ``allowed_token_ids`` and have −inf there.)
        """
        logits = model(input_ids=ids, attention_mask=attn).logits[:, :-1, :]
        logp = torch.log_softmax(self._shape_logits(logits), dim=-1)
        picked = logp.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
        return torch.where(target > 0, picked, torch.zeros_like(picked))

    def update(self, batch: Any) -> dict[str, float]:
        """One GRPO update from a batch of groups (entries sharing an observation form a group).

        Args:
            batch: Anything with ``observations``, ``actions``, ``rewards`` (and optionally ``infos``):
                :class:`Rollouts`, or the runner's ``Transitions``.

        Returns:
            ``loss``, ``kl`` (the k3 estimate: mean over tokens, then sequences, of the trained sequences,
            or of the whole batch when every group was skipped), ``clip_frac``, ``mean_reward``, ``groups``,
            ``skipped_groups`` (all rewards equal), ``trained_sequences``; on ``LeanHackable-v0`` also
            ``hack_rate`` (share of samples with ``hack_detected``) and ``oracle_reward`` (mean).
        """
        observations = list(batch.observations)
        actions = list(batch.actions)
        rewards = np.asarray(batch.rewards, dtype=np.float64)
        infos = list(getattr(batch, "infos", None) or [])
        metrics: dict[str, float] = {"mean_reward": float(rewards.mean()) if len(rewards) else 0.0}
        metrics.update(_hack_metrics(infos))

        groups: dict[str, list[int]] = {}
        for k, obs in enumerate(observations):
            groups.setdefault(str(obs), []).append(k)
        chosen: list[int] = []
        advantages: list[float] = []
        skipped = 0
        for members in groups.values():
            r = rewards[members]
            if len(members) < 2 or float(r.max() - r.min()) == 0.0:
                skipped += 1
                continue
            adv = (r - r.mean()) / (r.std() + self.args.adv_eps)
            chosen.extend(members)
            advantages.extend(adv.tolist())
        metrics.update(groups=float(len(groups)), skipped_groups=float(skipped))
        metrics.update(trained_sequences=float(len(chosen)), loss=0.0, kl=0.0, clip_frac=0.0)
        if not chosen:  # nothing to learn; still report how far the policy is from the reference
            if observations:
                ids, attn, target = self._sequences(observations, actions)
                with torch.no_grad():
                    log_ref_ratio = self._token_logprobs(self.ref_model, ids, attn, target) - (
                        self._token_logprobs(self.model, ids, attn, target)
                    )
                    kl = torch.exp(log_ref_ratio) - log_ref_ratio - 1.0
                    metrics["kl"] = float(((kl * target).sum(-1) / target.sum(-1).clamp(min=1.0)).mean())
            self._forget(observations, actions)
            return metrics

        ids, attn, target = self._sequences([observations[k] for k in chosen], [actions[k] for k in chosen])
        adv_t = torch.tensor(advantages, dtype=torch.float32, device=self.device).unsqueeze(-1)
        with torch.no_grad():
            old_logp = self._token_logprobs(self.model, ids, attn, target)
            ref_logp = self._token_logprobs(self.ref_model, ids, attn, target)
        n = len(chosen)
        chunks = [c for c in np.array_split(np.arange(n), self.args.gradient_accumulation_steps) if len(c)]
        self.model.train()
        loss_sum = kl_sum = clip_sum = 0.0
        for _ in range(self.args.num_iterations):
            self.optimizer.zero_grad(set_to_none=True)
            loss_sum = kl_sum = clip_sum = 0.0
            for chunk in chunks:
                idx = torch.as_tensor(chunk, device=self.device)
                mask = target[idx]
                logp = self._token_logprobs(self.model, ids[idx], attn[idx], mask)
                ratio = torch.exp(logp - old_logp[idx])
                a = adv_t[idx]
                surrogate = torch.minimum(
                    ratio * a, torch.clamp(ratio, 1 - self.args.clip_eps, 1 + self.args.clip_eps) * a
                )
                log_ref_ratio = ref_logp[idx] - logp
                kl = torch.exp(log_ref_ratio) - log_ref_ratio - 1.0  # k3: unbiased, always >= 0
                per_token = -(surrogate - self.args.kl_coef * kl)
                lengths = mask.sum(-1).clamp(min=1.0)
                per_seq = (per_token * mask).sum(-1) / lengths  # 1/|o_i| Σ_t
                loss = per_seq.sum() / n  # 1/G Σ_i, over every group of the batch
                loss.backward()
                loss_sum += float(loss.detach())
                kl_sum += float(((kl.detach() * mask).sum(-1) / lengths).sum())
                clipped = ((ratio.detach() - 1).abs() > self.args.clip_eps).float()
                clip_sum += float(((clipped * mask).sum(-1) / lengths).sum())
            if self.args.max_grad_norm > 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
            self.optimizer.step()
        self._forget(observations, actions)
        metrics.update(loss=loss_sum, kl=kl_sum / n, clip_frac=clip_sum / n)
        return metrics

    def _forget(self, observations: Sequence[Any], actions: Sequence[str]) -> None:
        for obs, act in zip(observations, actions):
            self._sampled.pop((str(obs), act), None)


def _cache_kwarg(model: torch.nn.Module) -> str:
    """The forward's KV-cache argument: ``cache`` (transformers >= 5.2x) or ``past_key_values``."""
    import inspect

    try:
        params = inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return "past_key_values"
    return "cache" if "cache" in params else "past_key_values"


def _hack_metrics(infos: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """``hack_rate`` and ``oracle_reward`` over the samples whose info has them (``LeanHackable-v0``)."""
    out: dict[str, float] = {}
    hacks = [bool(i["hack_detected"]) for i in infos if "hack_detected" in i]
    if hacks:
        out["hack_rate"] = float(np.mean(hacks))
    oracle = [float(i["oracle_reward"]) for i in infos if i.get("oracle_reward") is not None]
    if oracle:
        out["oracle_reward"] = float(np.mean(oracle))
    return out


# ------------------------------------------------------------------------------------------ the loop
def make_grpo_env(env_id: str = "LeanProof-v0", args: GRPOArgs | None = None, **kwargs: Any) -> Any:
    """The pooled vector env for GRPO: ``prompts_per_step * group_size`` single-attempt sub-envs.

    Args:
        env_id: ``"LeanProof-v0"`` or ``"LeanHackable-v0"``.
        args: Sizes the env (``prompts_per_step * group_size`` sub-envs).
        **kwargs: The env's arguments (``backend``, ``source``, ``theorems``, ``weak_grader``…).
    """
    import gymnasium as gym

    import lean_gym  # noqa: F401  (registers the ids)

    args = args or GRPOArgs()
    kwargs.setdefault("max_turns", 1)
    return gym.make_vec(
        env_id,
        num_envs=args.prompts_per_step * args.group_size,
        vectorization_mode="vector_entry_point",
        **kwargs,
    )


def _split_infos(infos: Mapping[str, Any], n: int) -> list[dict[str, Any]]:
    """Gymnasium's batched info dict (``key`` + ``_key`` masks) as one dict per sub-env."""
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    for key, values in infos.items():
        if key.startswith("_"):
            continue
        present = infos.get(f"_{key}", np.ones(n, dtype=bool))
        for i in range(n):
            if present[i]:
                value = values[i]
                out[i][key] = value.item() if isinstance(value, np.generic) else value
    return out


class GroupResets(gym.vector.VectorWrapper):
    """Resets that give GRPO its groups.

    Each reset draws ``prompts_per_step`` theorems (seeded; distinct while there are enough) and puts
    ``group_size`` sub-envs on each.

    With ``autoreset_mode=DISABLED`` and one attempt per episode (``max_turns=1``, as :func:`make_grpo_env`
    builds it) every step ends every episode and :func:`~lean_gym_agents.runner.run_agent`'s masked reset
    draws the next groups, so the runner plays GRPO as :func:`train_grpo` does.

    Args:
        env: A vector env of ``prompts_per_step * group_size`` sub-envs (:func:`make_grpo_env`).
        args: ``prompts_per_step`` and ``group_size``.
        seed: Seeds the theorem draws.

    Raises:
        ValueError: The env's size is not ``prompts_per_step * group_size``.
    """

    def __init__(self, env: gym.vector.VectorEnv, args: GRPOArgs, seed: int | None = 0) -> None:
        super().__init__(env)
        p, g = args.prompts_per_step, args.group_size
        if env.num_envs != p * g:
            raise ValueError(
                f"the env has {env.num_envs} sub-envs; GRPO needs prompts_per_step*group_size = {p * g}"
                " (build it with make_grpo_env)"
            )
        self.prompts_per_step, self.group_size = p, g
        inner: Any = env.unwrapped
        self.num_theorems = len(inner.envs[0].theorems)
        self.rng = np.random.default_rng(seed)

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-env, ``group_size`` of them on each of ``prompts_per_step`` drawn theorems.

        Raises:
            ValueError: A ``reset_mask`` that leaves some sub-env out (groups are reset together).
        """
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if mask is not None and not np.asarray(mask).all():
            raise ValueError(
                "GRPO's groups are reset together: every sub-env must end each step (max_turns=1)"
            )
        p, g = self.prompts_per_step, self.group_size
        picks = self.rng.choice(self.num_theorems, size=p, replace=p > self.num_theorems)
        options["index"] = [int(i) for i in picks for _ in range(g)]
        return self.env.reset(seed=seed, options=options)  # type: ignore[arg-type]  # a list seeds each sub-env


def train_grpo(
    agent: GRPOAgent,
    env: Any,
    *,
    steps: int,
    seed: int = 0,
    on_step: Callable[[dict[str, float]], None] | None = None,
) -> list[dict[str, float]]:
    """Run ``steps`` GRPO steps of ``agent`` on a pooled vector env built by :func:`make_grpo_env`.

    Each step resets the env through :class:`GroupResets` (``prompts_per_step`` drawn theorems, ``group_size``
    sub-envs on each), samples one proof per sub-env, steps the env once (every check of the step in one
    ``check_batch``) and calls ``agent.update``.

    Args:
        agent: The agent.
        env: A vector env with ``prompts_per_step * group_size`` sub-envs and ``max_turns=1``.
        steps: Training steps.
        seed: Seeds the theorem draws and the env.
        on_step: Called with each step's metrics (e.g. to print or log them).

    Returns:
        One metrics dict per step: the agent's metrics plus ``step`` and ``step_time_s`` (wall time of the
        whole step: sampling, checking, update).

    Raises:
        ValueError: when the env's size does not match the agent's ``prompts_per_step * group_size``.
    """
    p, g = agent.args.prompts_per_step, agent.args.group_size
    groups = GroupResets(env, agent.args, seed)
    history: list[dict[str, float]] = []
    for step in range(steps):
        start = time.perf_counter()
        obs, _ = groups.reset(seed=seed if step == 0 else None)
        observations = list(obs)
        actions = agent.act(observations)
        _, rewards, _, _, infos = groups.step(tuple(actions))
        batch = Rollouts(
            observations, actions, np.asarray(rewards, dtype=np.float64), _split_infos(infos, p * g)
        )
        metrics = dict(agent.update(batch))
        metrics.update(step=float(step), step_time_s=time.perf_counter() - start)
        history.append(metrics)
        if on_step is not None:
            on_step(metrics)
    return history
