"""Baselines every agent is compared with: one fixed action (plain ``aesop``, a static config) and uniform random.

Example:
    >>> import gymnasium as gym, lean_gym
    >>> env = gym.make("LeanAesop-v0", backend="sim")
    >>> plain = FixedActionAgent(env.unwrapped.layout.default_action())
    >>> len(plain.act([None, None]))
    2
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from lean_gym_agents.base import Transitions

__all__ = ["FixedActionAgent", "UniformRandomAgent"]


class FixedActionAgent:
    """Plays the same action on every observation (e.g. plain ``aesop`` or the best static config).

    Args:
        action: The action to play.
    """

    def __init__(self, action: Any) -> None:
        self.action = np.array(action, copy=True) if not isinstance(action, str) else action

    def act(self, observations: Sequence[Any], *, explore: bool = True) -> list[Any]:
        """The fixed action, once per observation."""
        return [
            self.action.copy() if isinstance(self.action, np.ndarray) else self.action for _ in observations
        ]

    def update(self, batch: Transitions) -> dict[str, float]:
        """Nothing to learn: returns no metrics."""
        return {}


class UniformRandomAgent:
    """Samples every action uniformly from the action space, reproducibly.

    Args:
        action_space: The single env's action space.
        seed: Seeds the space's sampler.
    """

    def __init__(self, action_space: gym.Space[Any], seed: int | None = None) -> None:
        self.action_space = copy.deepcopy(action_space)  # seeding must not touch the env's own space
        self.action_space.seed(seed)

    def act(self, observations: Sequence[Any], *, explore: bool = True) -> list[Any]:
        """A uniformly random action per observation."""
        return [self.action_space.sample() for _ in observations]

    def update(self, batch: Transitions) -> dict[str, float]:
        """Nothing to learn: returns no metrics."""
        return {}
