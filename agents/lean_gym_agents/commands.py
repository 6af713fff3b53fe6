"""The command line's arguments: one dataclass per agent, every field a flag (read by ``tyro``, as CleanRL's).

Each agent's command is :class:`RunArgs` (the env, the budget, the logs, checkpoints) plus the agent's own
hyperparameter dataclass as ``agent`` (flags ``--agent.<field>``: ``--agent.prior-strength 2``). Commands of
the torch agents are built on first use (:attr:`AgentSpec.command`), so the torch-free agents run without
torch. :mod:`lean_gym_agents.run` parses them and runs the agent.
"""

# No ``from __future__ import annotations``: the commands of the torch agents are classes made inside
# functions, and tyro must read their field types (DPOArgs, GRPOArgs) where no global name holds them.
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

import tyro

from lean_gym_agents.bandit import ThompsonArgs
from lean_gym_agents.best_first import BestFirstArgs
from lean_gym_agents.satp_thompson import SATPThompsonArgs

__all__ = ["AGENTS", "AgentSpec", "RunArgs", "from_dict"]

VectorMode = Literal["none", "sync", "async", "vector_entry_point"]


@dataclass
class RunArgs:
    """What every agent's command takes: the env, the budget, where the figures and checkpoints go."""

    env_id: Annotated[str, tyro.conf.arg(aliases=("--env",))] = "LeanAesop-v0"
    """The lean-gym env id."""
    backend: str = "sim"
    """What checks proofs: ``sim`` (the simulator, not Lean), ``sim-repl``, ``repl`` (real Lean) or ``auto``."""
    source: str | None = None
    """Where theorems come from (default: the env's own, SATP's 92 ``satp-minif2f`` for ``LeanAesop-v0``, the
    simulator's families for the others): ``sim``, a miniF2F JSONL, a SATP parquet/JSONL."""
    split: str = "train"
    """The split of the source: ``train``, ``valid`` or ``test``."""
    vector_mode: VectorMode = "none"
    """One env (``none``) or a vector env: Gymnasium's ``sync``/``async`` or lean-gym's pooled
    ``vector_entry_point`` (one batched check per step)."""
    num_envs: int = 4
    """Sub-environments of a vector env."""
    seed: int = 0
    """Seeds the env's first reset and, unless its own ``--agent.seed`` is given, the agent."""
    total_timesteps: Annotated[int, tyro.conf.arg(aliases=("--steps",))] = 1000
    """Sub-environment steps to take (the run's budget)."""
    eval: bool = False
    """Evaluate: no updates, the agent's greedy actions; metrics go under ``eval/``."""
    log_every: int | None = None
    """Steps per logged row of metrics (default: a fiftieth of the budget)."""
    out: str | None = None
    """Folder for ``metrics.jsonl``, ``metrics.csv``, ``learning_curve.png``, ``tensorboard/`` and
    ``checkpoint.pkl`` (nothing is written without it)."""
    tensorboard: bool = True
    """Write TensorBoard event files to ``<out>/tensorboard`` (needs ``--out`` and tensorboardX)."""
    track: bool = False
    """Log to Weights & Biases (needs ``wandb``; ``WANDB_MODE=offline`` keeps it on disk)."""
    wandb_project_name: str = "lean-gym"
    """The W&B project (with ``--track``)."""
    wandb_entity: str | None = None
    """The W&B team or user (with ``--track``; default: yours)."""
    exp_name: str = ""
    """The run's name on W&B (default: ``<env>__<agent>__<seed>``)."""
    save_every: int = 0
    """Write ``<out>/checkpoint.pkl`` every this many steps (0: only at the end, and when Ctrl-C or SIGTERM
    stops the run)."""
    resume: str | None = None
    """Go on with the run of this checkpoint (its flags come from the checkpoint; the agent may be left out)."""
    progress: bool = True
    """Show a progress bar."""
    torch_threads: int = 0
    """CPU threads for torch (0: torch's default; a small policy gains little from more on a busy machine)."""


@dataclass
class PlainCommand(RunArgs):
    """Plain ``aesop`` on every goal (the layout's default config): the baseline every agent is measured by."""


@dataclass
class RandomCommand(RunArgs):
    """A uniformly random action at every step (seeded by ``--seed``)."""


@dataclass
class ThompsonCommand(RunArgs):
    """SATP's Thompson sampler (``SATPThompson``).

    Beta posteriors over (head, level) per goal cluster, with anchor perturbation.
    """

    agent: SATPThompsonArgs = field(default_factory=SATPThompsonArgs)
    """The sampler's hyperparameters."""


@dataclass
class BanditCommand(RunArgs):
    """A Thompson bandit (``ConfigBandit``) over plain ``aesop`` and every config one head away from it."""

    agent: ThompsonArgs = field(default_factory=ThompsonArgs)
    """The bandit's hyperparameters."""
    contextual: bool = True
    """One bandit per goal cluster, seeded by the global rates (else one for every goal)."""


@dataclass
class BestFirstCommand(RunArgs):
    """Best-first proof search on ``LeanTactic-v0`` over SATP's 24 tactics and the context lemmas.

    One search per theorem (a step of the budget is one theorem; it learns nothing, so it has no checkpoints).
    """

    env_id: Annotated[str, tyro.conf.arg(aliases=("--env",))] = "LeanTactic-v0"
    """The lean-gym env id (a ``LeanTactic`` env)."""
    agent: BestFirstArgs = field(default_factory=BestFirstArgs)
    """The search's hyperparameters and budget."""


def _dpo_command() -> type[RunArgs]:
    from lean_gym_agents.dpo import DPOArgs

    @dataclass
    class DPOCommand(RunArgs):
        """SATP's aesop policy (``DPOPolicy``) trained online.

        BC on successes, DPO on 1-diff pairs, negative likelihood on failures; ``--eval --checkpoint P``
        evaluates a trained one.
        """

        agent: DPOArgs = field(default_factory=DPOArgs)
        """The policy's hyperparameters."""
        checkpoint: str | None = None
        """Start from this policy checkpoint (``DPOPolicy.save``; ``examples/satp_loop.py`` writes one)."""
        train_every: int = 256
        """Train after every this many new tries."""
        steps_per_round: int = 32
        """Optimiser steps per training round."""

    return DPOCommand


def _dropout_command() -> type[RunArgs]:
    from lean_gym_agents.dpo import DPOArgs
    from lean_gym_agents.satp_net import satp_args

    @dataclass
    class DropoutThompsonCommand(RunArgs):
        """SATP's own exploration (``DropoutThompson``).

        Dropout draws of SATP's policy shape, with anchor perturbation, the policy trained on its tries as it goes.
        """

        agent: SATPThompsonArgs = field(default_factory=SATPThompsonArgs)
        """The bookkeeping's hyperparameters (perturbation, resampling, seed)."""
        policy: DPOArgs = field(default_factory=satp_args)
        """The policy network's hyperparameters (SATP's shape: ``satp_args()``)."""
        train_every: int = 256
        """Train the policy after every this many new tries (0: never)."""
        steps_per_round: int = 32
        """Optimiser steps per training round."""
        draws: int = 8
        """Dropout draws per encoder pass, kept for the goal until the policy trains again."""

    return DropoutThompsonCommand


def _grpo_command(toy: bool) -> type[RunArgs]:
    from lean_gym_agents.grpo import GRPOArgs

    if toy:
        from lean_gym_agents.grpo_toy import TacticTokenizer, toy_agent_args

        def default_args() -> GRPOArgs:
            return toy_agent_args(TacticTokenizer())

    else:
        default_args = GRPOArgs

    @dataclass
    class GRPOCommand(RunArgs):
        """GRPO (``GRPOAgent``) for a Hugging Face causal LM on ``LeanProof-v0``.

        Groups of ``group_size`` proofs per theorem, group-normalised rewards, PPO's clipped objective and a KL
        penalty.
        """

        env_id: Annotated[str, tyro.conf.arg(aliases=("--env",))] = "LeanProof-v0"
        """The lean-gym env id (``LeanProof-v0`` or ``LeanHackable-v0``)."""
        vector_mode: VectorMode = "vector_entry_point"
        """GRPO runs on the pooled vector env (``vector_entry_point``) only."""
        num_envs: int | None = None  # type: ignore[assignment]  # None: derived from the agent's args
        """Sub-environments: ``prompts_per_step × group_size`` (the default; anything else is refused)."""
        agent: GRPOArgs = field(default_factory=default_args)
        """GRPO's hyperparameters."""
        model: str = ""
        """The causal LM: a Hugging Face hub name or a local folder (downloads it unless cached)."""

    @dataclass
    class GRPOToyCommand(GRPOCommand):
        """GRPO on the toy task (``grpo_toy``).

        A tiny random GPT-2 writes one tactic token per proof, on four theorems ``linarith`` proves; nothing is
        downloaded.
        """

        model: str = "toy"
        """Always ``toy``: the tiny GPT-2 of ``grpo_toy`` (``grpo`` takes any other model)."""

    return GRPOToyCommand if toy else GRPOCommand


@dataclass(frozen=True)
class AgentSpec:
    """One agent of the command line.

    Attributes:
        name: The subcommand.
        summary: One line for the list of agents.
        make_command: Builds the command's dataclass (imports what the agent needs, e.g. torch).
        learns: Whether it has an ``update`` that learns (baselines and the search do not).
        needs: What it needs beyond the base install, for the error when that is missing.
    """

    name: str
    summary: str
    make_command: Callable[[], type[RunArgs]]
    learns: bool = True
    needs: str = ""

    def command(self) -> type[RunArgs]:
        """The command's dataclass."""
        return self.make_command()


def _fixed(cls: type[RunArgs]) -> Callable[[], type[RunArgs]]:
    return lambda: cls


AGENTS: dict[str, AgentSpec] = {
    s.name: s
    for s in (
        AgentSpec("plain", "plain aesop on every goal (a baseline)", _fixed(PlainCommand), learns=False),
        AgentSpec("random", "a uniformly random action per step (a baseline)", _fixed(RandomCommand), False),
        AgentSpec(
            "thompson", "SATPThompson: SATP's Beta-posterior Thompson sampler", _fixed(ThompsonCommand)
        ),
        AgentSpec("bandit", "ConfigBandit: a Thompson bandit over one-head configs", _fixed(BanditCommand)),
        AgentSpec(
            "dropout-thompson",
            "DropoutThompson: Thompson sampling by dropout draws of SATP's policy",
            _dropout_command,
            needs="torch (the agents extra)",
        ),
        AgentSpec("dpo", "DPOPolicy: SATP's aesop policy, BC + DPO + NL", _dpo_command, needs="torch"),
        AgentSpec(
            "grpo",
            "GRPOAgent: GRPO for a Hugging Face causal LM on LeanProof-v0",
            lambda: _grpo_command(toy=False),
            needs="torch and transformers (the hf extra)",
        ),
        AgentSpec(
            "grpo-toy",
            "GRPOAgent on the toy task: a tiny GPT-2, one tactic token per proof",
            lambda: _grpo_command(toy=True),
            needs="torch and transformers (the hf extra)",
        ),
        AgentSpec(
            "best-first",
            "BestFirstSearch: best-first proof search on LeanTactic-v0 (no learning)",
            _fixed(BestFirstCommand),
            learns=False,
        ),
    )
}


def from_dict(cls: type[Any], values: dict[str, Any]) -> Any:
    """The dataclass ``cls`` from ``dataclasses.asdict`` output (nested dataclasses rebuilt)."""
    hints = {f.name: f for f in dataclasses.fields(cls)}
    kwargs: dict[str, Any] = {}
    for name, value in values.items():
        if name not in hints:
            continue
        default = _default_of(hints[name])
        if dataclasses.is_dataclass(default) and isinstance(value, dict):
            value = from_dict(type(default), value)
        kwargs[name] = value
    return cls(**kwargs)


def _default_of(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None
