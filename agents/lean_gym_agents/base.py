"""The agent interface every reference agent implements, and the batch it learns from.

An agent does two things: :meth:`Agent.act` maps a *list* of observations (one per sub-environment; a single
env is a batch of one) to a list of actions, and :meth:`Agent.update` learns from a :class:`Transitions`
batch of what happened. The runner (:mod:`lean_gym_agents.runner`) handles the rest: single envs and every
vector mode (``sync``, ``async``, the pooled ``vector_entry_point``), autoreset, logging.

Actions are whatever the env takes: an ``int64`` vector for ``LeanAesop-v0``, a proof string for
``LeanProof-v0``. Nothing here imports torch.

Example:
    >>> import numpy as np
    >>> class Plain:                       # always plain `aesop`; learns nothing
    ...     def act(self, observations, *, explore=True):
    ...         return [np.zeros(40, dtype=np.int64) for _ in observations]
    ...     def update(self, batch):
    ...         return {}
    >>> isinstance(Plain(), Agent)
    True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Agent", "Transitions", "env_layout"]


@dataclass(frozen=True)
class Transitions:
    """One batch of steps, one entry per (sub-environment, step), in the order they happened.

    Attributes:
        observations: The observation each action was taken on (per sub-environment, not batched).
        actions: The actions taken.
        rewards: The rewards, ``float64``.
        terminated: Whether each step ended its episode (for the aesop env: proved, or out of attempts).
        truncated: Whether each step was cut off.
        infos: Each step's ``info`` (``status``, ``backend``, ``tactic``... as the env wrote it).
        env_ids: Which sub-environment each entry came from (0 for a single env).
    """

    observations: list[Any]
    actions: list[Any]
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    infos: list[dict[str, Any]] = field(default_factory=list)
    env_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return len(self.actions)

    @property
    def successes(self) -> np.ndarray:
        """``reward > 0`` per entry (the env's +1 for a proof)."""
        return self.rewards > 0


@runtime_checkable
class Agent(Protocol):
    """What the runner needs from an agent.

    ``act`` must return exactly one action per observation. ``explore=False`` asks for the agent's
    evaluation behaviour (greedy decoding, posterior means); agents without such a distinction ignore it.
    ``update`` returns scalar metrics to log (an empty dict when it learned nothing this call); agents that
    learn in rounds keep the transitions and train when they have enough.
    """

    def act(self, observations: Sequence[Any], *, explore: bool = True) -> list[Any]:
        """One action per observation; ``explore=False`` asks for the agent's best guess."""
        ...

    def update(self, batch: Transitions) -> dict[str, float]:
        """Learn from a batch of transitions; returns the metrics of the update."""
        ...


def env_layout(env: Any) -> Any:
    """The aesop action layout of a ``LeanAesop`` env or vector env of any mode (``None`` for other envs).

    Gymnasium 1.x wrappers no longer forward attributes, so a ``sync``/``async`` vector env is asked through
    ``get_attr``; the pooled vector env and a single env carry ``layout`` on their unwrapped selves.
    """
    layout = getattr(getattr(env, "unwrapped", env), "layout", None)
    if layout is None and hasattr(env, "get_attr"):
        try:
            layout = env.get_attr("layout")[0]
        except AttributeError:
            layout = None
    return layout
