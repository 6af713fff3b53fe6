"""Reference agents for lean-gym (import name ``lean_gym_agents``; the folder is ``agents/``).

The name is not ``agents`` on purpose: that import name belongs to the openai-agents package.

Every agent implements :class:`Agent` (``act`` on a batch of observations, ``update`` from a batch of
:class:`Transitions`), and :func:`run_agent` trains or evaluates any of them on any lean-gym env. The DPO
policy and the dropout Thompson sampler need torch (``pip install -e '.[agents]'`` in a clone); they are
imported only when asked for, so this package
imports without it. See ``docs/agents.md``.
"""

from typing import Any

from lean_gym_agents.bandit import ThompsonArgs, ThompsonBandit
from lean_gym_agents.base import Agent, Transitions
from lean_gym_agents.baselines import FixedActionAgent, UniformRandomAgent
from lean_gym_agents.runner import RunResult, run_agent
from lean_gym_agents.satp_thompson import SATPThompson, SATPThompsonArgs, goal_cluster, pair_up

__all__ = [
    "Agent",
    "DPOArgs",
    "DPOPolicy",
    "DropoutThompson",
    "FixedActionAgent",
    "RunResult",
    "SATPThompson",
    "SATPThompsonArgs",
    "ThompsonArgs",
    "ThompsonBandit",
    "Transitions",
    "UniformRandomAgent",
    "goal_cluster",
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
