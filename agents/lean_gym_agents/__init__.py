"""Reference agents for lean-gym (import name ``lean_gym_agents``; the folder is ``agents/``).

The name is not ``agents`` on purpose: that import name belongs to the openai-agents package.
"""

from lean_gym_agents.bandit import ThompsonArgs, ThompsonBandit

__all__ = ["ThompsonArgs", "ThompsonBandit"]
