"""Thompson sampling over a fixed set of actions (e.g. aesop configs), optionally per context.

Each (context, arm) keeps a Beta(alpha, beta) posterior over its success probability; ``act`` samples one
value per arm and plays the largest, ``update`` adds the observed success or failure. With ``context=None``
it is the classic Bernoulli bandit; with a context key (e.g. the goal's shape) it learns one bandit per key,
seeded by a weak prior (``prior_strength`` pseudo-counts) from the global success rates, so unseen
contexts start from what worked elsewhere.

:class:`ConfigBandit` makes it an :class:`~lean_gym_agents.base.Agent` on ``LeanAesop`` envs: one arm per
config of a fixed menu (:func:`one_change_menu`: plain ``aesop`` and every config that changes one head of
it), one context per goal cluster (:func:`~lean_gym_agents.satp_thompson.goal_cluster`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np

from lean_gym_agents.base import Transitions
from lean_gym_agents.satp_thompson import goal_cluster

__all__ = ["ConfigBandit", "ThompsonArgs", "ThompsonBandit", "one_change_menu"]

A = TypeVar("A")


@dataclass(frozen=True)
class ThompsonArgs:
    """Hyperparameters of :class:`ThompsonBandit`."""

    alpha0: float = 1.0
    """Prior successes of every arm (Beta prior's alpha)."""
    beta0: float = 1.0
    """Prior failures of every arm (Beta prior's beta)."""
    prior_strength: float = 2.0
    """Pseudo-counts with which the global (context-free) success rate seeds each context (0 = none)."""
    seed: int = 0
    """Seeds the posterior draws."""


@dataclass
class ThompsonBandit(Generic[A]):
    """Beta–Bernoulli Thompson sampling over ``arms``.

    Example:
        >>> bandit = ThompsonBandit(arms=["a", "b"], args=ThompsonArgs(seed=0))
        >>> arm = bandit.act()
        >>> bandit.update(arm, reward=1.0)
        >>> bandit.best() in ("a", "b")
        True

    Args:
        arms: The actions to choose from.
        args: Hyperparameters.
    """

    arms: Sequence[A]
    args: ThompsonArgs = field(default_factory=ThompsonArgs)

    def __post_init__(self) -> None:
        if len(self.arms) == 0:
            raise ValueError("a bandit needs at least one arm")
        self._rng = np.random.default_rng(self.args.seed)
        k = len(self.arms)
        self._global = np.zeros((2, k))
        self._ctx: dict[Hashable, np.ndarray] = {}

    def _posterior(self, context: Hashable | None) -> tuple[np.ndarray, np.ndarray]:
        g = self._global
        a0, b0 = self.args.alpha0, self.args.beta0
        if context is None:
            return a0 + g[0], b0 + g[1]
        mean = (a0 + g[0]) / (a0 + b0 + g[0] + g[1])
        s = self.args.prior_strength
        counts = self._ctx.get(context, np.zeros_like(g))
        return a0 + s * mean + counts[0], b0 + s * (1 - mean) + counts[1]

    def act_index(self, context: Hashable | None = None) -> int:
        """Index of the arm to play: the argmax of one posterior sample per arm."""
        a, b = self._posterior(context)
        return int(np.argmax(self._rng.beta(a, b)))

    def act(self, context: Hashable | None = None) -> A:
        """The arm Thompson sampling picks for ``context`` (a draw from each arm's Beta posterior)."""
        return self.arms[self.act_index(context)]

    def update_index(self, index: int, reward: float, context: Hashable | None = None) -> None:
        """Record a result: ``reward > 0`` is a success (the env's +1), anything else a failure."""
        if not 0 <= index < len(self.arms):
            raise IndexError(f"arm index {index} out of range [0, {len(self.arms) - 1}]")
        row = 0 if reward > 0 else 1
        self._global[row, index] += 1
        if context is not None:
            self._ctx.setdefault(context, np.zeros_like(self._global))[row, index] += 1

    def update(self, arm: A, reward: float, context: Hashable | None = None) -> None:
        """Count ``reward`` (> 0: a success) for ``arm`` in ``context``."""
        self.update_index(self._index(arm), reward, context)

    def _index(self, arm: A) -> int:
        for i, a in enumerate(self.arms):
            if a is arm or _equal(a, arm):
                return i
        raise ValueError("unknown arm")

    def mean(self, context: Hashable | None = None) -> np.ndarray:
        """Posterior mean success probability of every arm."""
        a, b = self._posterior(context)
        return a / (a + b)

    def best(self, context: Hashable | None = None) -> A:
        """The arm with the highest posterior mean (greedy, for evaluation)."""
        return self.arms[int(np.argmax(self.mean(context)))]

    def best_index(self, context: Hashable | None = None) -> int:
        """The index of the arm with the highest posterior mean in ``context``."""
        return int(np.argmax(self.mean(context)))


def _equal(a: object, b: object) -> bool:
    eq = a == b
    if isinstance(eq, np.ndarray):
        return bool(eq.all())
    return bool(eq)


def one_change_menu(layout: Any) -> list[np.ndarray]:
    """Plain ``aesop`` (the layout's default action) and every action that changes one head of it.

    ``satp-v1`` has 40 heads, 36 of 5 levels and 4 of 2: 149 configs.
    """
    base = np.asarray(layout.default_action(), dtype=np.int64)
    menu = [base.copy()]
    for h, n in enumerate(np.asarray(layout.nvec).tolist()):
        for level in range(int(n)):
            if level != base[h]:
                a = base.copy()
                a[h] = level
                menu.append(a)
    return menu


class ConfigBandit:
    """A :class:`ThompsonBandit` over a menu of aesop configs as an :class:`~lean_gym_agents.base.Agent`.

    ``act`` plays one posterior draw per goal (``explore``) or the arm with the best posterior mean;
    ``update`` counts each try as a success (reward > 0) or a failure of its arm in its goal's context.

    Example:
        >>> from lean_gym.aesop import layout
        >>> agent = ConfigBandit(one_change_menu(layout("satp-v1")), ThompsonArgs(seed=0))
        >>> len(agent.arms), agent.act([{"goal": "x : ℕ\\n⊢ x + 0 = x"}])[0].shape
        (149, (40,))

    Args:
        arms: The configs (action vectors) to choose from.
        args: The bandit's hyperparameters.
        contextual: One bandit per goal cluster (:func:`~lean_gym_agents.satp_thompson.goal_cluster`),
            seeded from the global success rates; else one bandit for every goal.

    Raises:
        ValueError: An empty menu.
    """

    def __init__(
        self, arms: Sequence[Any], args: ThompsonArgs | None = None, *, contextual: bool = True
    ) -> None:
        self.arms = [np.asarray(a, dtype=np.int64) for a in arms]
        self.bandit: ThompsonBandit[int] = ThompsonBandit(list(range(len(self.arms))), args or ThompsonArgs())
        self.contextual = contextual
        self._index = {tuple(a.tolist()): i for i, a in enumerate(self.arms)}

    def _context(self, obs: Any) -> str | None:
        return goal_cluster(str(obs["goal"])) if self.contextual else None

    def act(self, observations: Sequence[Any], *, explore: bool = True) -> list[Any]:
        """One config per observation: a Thompson draw (``explore``) or the best posterior mean."""
        out = []
        for obs in observations:
            ctx = self._context(obs)
            i = self.bandit.act_index(ctx) if explore else self.bandit.best_index(ctx)
            out.append(self.arms[i].copy())
        return out

    def update(self, batch: Transitions) -> dict[str, float]:
        """Count each try for its arm; returns the number of contexts seen.

        Raises:
            ValueError: An action that is none of the arms (the bandit did not play it).
        """
        for obs, action, reward in zip(batch.observations, batch.actions, batch.rewards.tolist()):
            i = self._index.get(tuple(np.asarray(action).reshape(-1).tolist()))
            if i is None:
                raise ValueError("ConfigBandit.update: the action is not one of the bandit's arms")
            self.bandit.update_index(i, reward, self._context(obs))
        return {"contexts": float(len(self.bandit._ctx))}
