"""Dropout Thompson sampling: SATP's exploration, a policy network sampled with its dropout on.

SATP explores with its policy itself: each head applies its own dropout mask to the shared features (its
code: "per-head independent dropout enables Bayesian Thompson sampling"), so one forward pass with dropout
on is one draw from an approximate posterior over policies, and every head's argmax under that draw is the
config to try (Gal and Ghahramani 2016's dropout posterior, used for Thompson sampling).

:class:`DropoutThompson` is :class:`~lean_gym_agents.SATPThompson` with the Beta posteriors replaced by such
draws from a :class:`~lean_gym_agents.dpo.DPOPolicy` of SATP's shape (``satp_args()``): the same per-goal
bookkeeping (never repeat a config on a goal; anchors; anchor perturbation, whose random-head move takes the
head's level from a dropout draw; 1-diff pairs), and the policy trains on the tries as it goes (``update``
keeps every try and runs ``steps_per_round`` BC + DPO + NL steps every ``train_every`` new tries).

Example:
    >>> import gymnasium as gym, lean_gym
    >>> from lean_gym_agents.dpo import DPOPolicy
    >>> from lean_gym_agents.satp_net import satp_args
    >>> env = gym.make("LeanAesop-v0", backend="sim", split="test")
    >>> agent = DropoutThompson(DPOPolicy("satp-v1", satp_args(d_model=16, n_layers=1, n_heads=2)))
    >>> obs, _ = env.reset(seed=0)
    >>> env.action_space.contains(agent.act([obs])[0])
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lean_gym_agents.base import Transitions
from lean_gym_agents.dpo import DPOPolicy
from lean_gym_agents.satp_thompson import SATPThompson, SATPThompsonArgs

__all__ = ["DropoutThompson", "one_cluster"]


def one_cluster(goal: str) -> str:
    """Every goal in one cluster: the policy network conditions on the goal itself.

    A named function, so the sampler pickles into a checkpoint.
    """
    return ""


class DropoutThompson(SATPThompson):
    """Thompson sampling by dropout draws of a policy network, with SATP's anchor perturbation.

    Args:
        policy: A :class:`~lean_gym_agents.dpo.DPOPolicy` with dropout in its heads (``shape="satp"``).
        args: The bookkeeping's hyperparameters (``perturb_prob``, ``ablate_prob``, ``max_resample``, ``seed``;
            the Beta-prior fields are not used for proposals).
        train_every: Train the policy after every this many new tries (0: never; the policy stays as given).
        steps_per_round: Optimiser steps per training round.
        draws: Dropout draws computed per encoder pass and kept for the goal until the policy trains again.
    """

    def __init__(
        self,
        policy: DPOPolicy,
        args: SATPThompsonArgs | None = None,
        *,
        train_every: int = 256,
        steps_per_round: int = 32,
        draws: int = 8,
    ) -> None:
        if policy.args.shape != "satp":
            raise ValueError(
                "DropoutThompson needs a policy with dropout in its heads: DPOArgs(shape='satp')"
            )
        layout = policy.layout
        super().__init__(
            layout.nvec, args, default_action=layout.default_action().tolist(), cluster_fn=one_cluster
        )
        self.policy = policy
        self.train_every = int(train_every)
        self.steps_per_round = int(steps_per_round)
        self.draws = max(1, int(draws))
        self._pool: dict[str, list[np.ndarray]] = {}

    def _logit_draw(self, obs: Any) -> np.ndarray:
        key = self._goal_key(obs)[0]
        pool = self._pool.get(key)
        if not pool:
            pool = self._pool[key] = list(self.policy.dropout_logits([obs], self.draws)[:, 0])
        return pool.pop()

    def _draw(self, obs: Any, cluster: str) -> np.ndarray:
        return np.asarray(self._logit_draw(obs).argmax(-1), dtype=np.int64)

    def _head_draw(self, obs: Any, cluster: str, h: int) -> np.ndarray:
        row = np.asarray(self._logit_draw(obs)[h], dtype=np.float64)
        return np.where(self._valid[h], row, -np.inf)

    def _greedy(self, obs: Any, cluster: str) -> np.ndarray:
        return np.asarray(self.policy.act([obs], explore=False)[0], dtype=np.int64)

    def update(self, batch: Transitions) -> dict[str, float]:
        """Record the tries (anchors, pairs) and train the policy on them every ``train_every`` tries."""
        metrics = super().update(batch)
        if self.train_every > 0:
            trained = self.policy.update(
                batch, train_every=self.train_every, steps_per_round=self.steps_per_round
            )
            if trained:
                self._pool.clear()  # draws of the old weights
                metrics.update({f"policy_{k}": v for k, v in trained.items()})
        return metrics
