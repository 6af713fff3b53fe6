"""Reference agents for lean-gym (import name ``lean_gym_agents``; the folder is ``agents/``).

The name is not ``agents`` on purpose: that import name belongs to the openai-agents package.

Every agent implements :class:`Agent` (``act`` on a batch of observations, ``update`` from a batch of
:class:`Transitions`), and :func:`run_agent` trains or evaluates any of them on any lean-gym env, with namespaced metrics, TensorBoard
and W&B writers and checkpoints to resume from; ``python -m lean_gym_agents.run`` does it from the shell. The DPO
policy and the dropout Thompson sampler need torch (``pip install -e '.[agents]'`` in a clone); they are
imported only when asked for, so this package
imports without it. See ``docs/agents.md``.
"""

from typing import Any

from lean_gym_agents.bandit import ConfigBandit, ThompsonArgs, ThompsonBandit, one_change_menu
from lean_gym_agents.base import Agent, Transitions
from lean_gym_agents.baselines import FixedActionAgent, UniformRandomAgent
from lean_gym_agents.checkpoint import Checkpoint, load_checkpoint
from lean_gym_agents.runner import RunInterrupted, RunResult, as_vector_env, run_agent
from lean_gym_agents.satp_thompson import SATPThompson, SATPThompsonArgs, goal_cluster, pair_up

__all__ = [
    "Agent",
    "Checkpoint",
    "ConfigBandit",
    "DPOArgs",
    "DPOPolicy",
    "DropoutThompson",
    "FixedActionAgent",
    "RunInterrupted",
    "RunResult",
    "SATPThompson",
    "SATPThompsonArgs",
    "ThompsonArgs",
    "ThompsonBandit",
    "Transitions",
    "UniformRandomAgent",
    "as_vector_env",
    "goal_cluster",
    "load_checkpoint",
    "one_change_menu",
    "pair_up",
    "run_agent",
]


def __getattr__(name: str) -> Any:
    # torch is an extra: import the DPO policy only when it is asked for.
    if name in ("DPOArgs", "DPOPolicy"):
        from lean_gym_agents import dpo

        return getattr(dpo, name)
    if name == "DropoutThompson":
        from lean_gym_agents.dropout_thompson import DropoutThompson

        return DropoutThompson
    raise AttributeError(f"module 'lean_gym_agents' has no attribute {name!r}")
