"""The pooled vector env: N sub-environments whose checks go to one shared backend in one batch per step.

Every lean-gym task vectorizes the same way, so this base class holds the whole loop (seeding, reset
masks, the three autoreset modes, one ``check_batch`` per step with identical checks sent once, the shared
verdict cache); a task says only how to build its sub-env, which checks an action needs and how verdicts
become a step's result. Sub-envs implement ``prepare(action)`` and ``finish(prepared, results)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from lean_gym.backends.base import Backend, CheckResult
from lean_gym.backends.lazy import resolve_backend
from lean_gym.errors import BadActionError, LeanGymError

__all__ = ["PooledVectorEnv"]

Request = tuple[str, str]  # (code, header)
Step = tuple[
    Any, float, bool, bool, dict[str, Any]
]  # one sub-env's (obs, reward, terminated, truncated, info)


class PooledVectorEnv(VectorEnv[Any, Any, np.ndarray]):
    """``num_envs`` sub-envs sharing one backend, one theorem list and one verdict cache.

    Args:
        num_envs: Number of sub-environments.
        autoreset_mode: ``NEXT_STEP`` (default), ``SAME_STEP`` or ``DISABLED``, as in gymnasium's vector envs.
        backend: ``"auto"``, ``"sim"``, ``"repl"`` or a Backend; one instance serves every sub-environment,
            so with a ``ReplBackend`` pool the N checks of a step run concurrently.
        **kwargs: The single env's other arguments.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"]}  # noqa: RUF012
    env_class: type[Any]

    def __init__(
        self,
        num_envs: int = 1,
        *,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        backend: str | Backend = "auto",
        **kwargs: Any,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.num_envs = int(num_envs)
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.backend, self._owns_backend = resolve_backend(backend)
        first = self.env_class(backend=self.backend, **kwargs)
        # the other copies take the first one's theorems as given (not loaded again from source/split)
        kwargs = {k: v for k, v in kwargs.items() if k not in ("source", "split")}
        kwargs["theorems"] = first.theorems
        self.envs = [first] + [
            self.env_class(backend=self.backend, **kwargs) for _ in range(self.num_envs - 1)
        ]
        for env in self.envs[1:]:
            self._share(first, env)
        self.render_mode = first.render_mode
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._env_obs: list[Any] = [None] * self.num_envs
        self._autoreset_envs = np.zeros(self.num_envs, dtype=np.bool_)

    # ------------------------------------------------------------------------------------ task hooks

    def _share(self, first: Any, env: Any) -> None:
        """Let ``env`` reuse what ``first`` built (at least the verdict cache)."""
        env._cache = first._cache

    def _check_actions(self, actions: Any) -> Any:
        """Validate the batch of actions; return it in the form sub-envs take."""
        return actions

    def _requests(self, prepared: Any) -> Sequence[Request]:
        """The ``(code, header)`` checks one prepared step needs."""
        raise NotImplementedError

    def _finish(self, env: Any, prepared: Any, results: list[CheckResult]) -> Step:
        """The sub-env's step result from its verdicts."""
        raise NotImplementedError

    def _observations(self) -> Any:
        """The batched observation of the current sub-env observations."""
        return tuple(self._env_obs)

    # ------------------------------------------------------------------------------------ the loop

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-env (or those in ``options["reset_mask"]``); ``options["index"]`` may be a list."""
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"got {len(seeds)} seeds for {self.num_envs} envs")
        options = dict(options or {})
        mask = options.pop("reset_mask", None)
        if mask is None:
            mask = np.ones(self.num_envs, dtype=np.bool_)
        else:
            mask = np.asarray(mask)
            if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},)")
        index = options.pop("index", None)
        infos: dict[str, Any] = {}
        for i in (int(k) for k in np.flatnonzero(mask)):
            opts = dict(options)
            if index is not None:
                opts["index"] = index[i] if isinstance(index, (Sequence, np.ndarray)) else index
            self._env_obs[i], info = self.envs[i].reset(seed=seeds[i], options=opts)
            infos = self._add_info(infos, info, i)
        self._autoreset_envs[mask] = False
        return self._observations(), infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-env: autoreset as gymnasium's mode says, then :meth:`_run_steps` on the others.

        Raises:
            BadActionError: for a batch of the wrong shape, or a sub-env's bad action (named by index).
        """
        actions = self._check_actions(actions)
        n = self.num_envs
        rewards = np.zeros(n, dtype=np.float64)
        terminations = np.zeros(n, dtype=np.bool_)
        truncations = np.zeros(n, dtype=np.bool_)
        infos: dict[str, Any] = {}
        env_infos: list[dict[str, Any]] = [{} for _ in range(n)]
        todo: list[tuple[int, Any]] = []
        for i, env in enumerate(self.envs):
            if self._autoreset_envs[i]:
                if self.autoreset_mode == AutoresetMode.NEXT_STEP:
                    self._env_obs[i], env_infos[i] = env.reset()
                    continue
                if self.autoreset_mode == AutoresetMode.DISABLED:
                    raise LeanGymError(
                        f"sub-env {i} is done; with autoreset DISABLED call reset(options={{'reset_mask': ...}})"
                    )
            try:
                todo.append((i, self._prepare_one(env, actions[i])))
            except BadActionError as e:
                raise BadActionError(f"env {i}: {e}") from e

        for (i, _), step in zip(todo, self._run_steps(todo)):
            obs, rewards[i], terminations[i], truncations[i], info = step
            if self.autoreset_mode == AutoresetMode.SAME_STEP and (terminations[i] or truncations[i]):
                infos = self._add_info(infos, {"final_obs": obs, "final_info": info}, i)
                obs, info = self.envs[i].reset()
            self._env_obs[i], env_infos[i] = obs, info
        for i in range(n):
            infos = self._add_info(infos, env_infos[i], i)
        self._autoreset_envs = np.logical_or(terminations, truncations)
        return self._observations(), rewards, terminations, truncations, infos

    def _prepare_one(self, env: Any, action: Any) -> Any:
        """Check one sub-env's action and turn it into what :meth:`_run_steps` takes (no Lean yet)."""
        return env.prepare(action)

    def _run_steps(self, todo: Sequence[tuple[int, Any]]) -> list[Step]:
        """The steps of the sub-envs in ``todo``: every check not in the cache goes in one ``check_batch``."""
        first = self.envs[0]
        asked = [list(self._requests(p)) for _, p in todo]
        flat = [req for reqs in asked for req in reqs]
        answers = first._cache.run(self.backend, flat, timeout=first.timeout)
        out: list[Step] = []
        k = 0
        for (i, p), reqs in zip(todo, asked):
            out.append(self._finish(self.envs[i], p, answers[k : k + len(reqs)]))
            k += len(reqs)
        return out

    def render(self) -> tuple[Any, ...] | None:
        """The sub-envs' renders (``render_mode="ansi"``)."""
        return tuple(env.render() for env in self.envs)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        # The copy's backend is its own (see TheoremEnv.__setstate__); the vector env closes it, once.
        self._owns_backend = True
        for env in self.envs:
            env._owns_backend = False

    def close_extras(self, **kwargs: Any) -> None:
        """Close the shared backend when this vector env created it."""
        for env in self.envs:
            env.close()
        if self._owns_backend:
            self.backend.close()
            self._owns_backend = False

    @property
    def cache_hits(self) -> int:
        """How many checks the shared verdict cache answered."""
        return int(self.envs[0]._cache.hits)
