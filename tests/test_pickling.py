"""Environments pickle (Ray, RLlib, TorchRL and subprocess vector envs need it): backends named by a string
are built lazily in the process that uses them, and a backend instance travels as its recipe."""

from __future__ import annotations

import pickle

import cloudpickle
import gymnasium as gym
import numpy as np
import pytest

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.backends import LazyBackend, ReplBackend, make_backend

IDS = sorted(k for k, spec in gym.registry.items() if str(spec.entry_point).startswith("lean_gym."))


@pytest.mark.parametrize("env_id", IDS)
def test_every_env_round_trips_through_cloudpickle(env_id: str) -> None:
    env = gym.make(env_id, backend="sim")
    obs, _ = env.reset(seed=3)
    action = env.action_space.sample() if env_id.startswith("LeanAesop") else "  simp"
    _, r1, *_, info1 = env.step(action)  # the backend is built and used before pickling
    copy = pickle.loads(cloudpickle.dumps(env))
    obs2, _ = copy.reset(seed=3)
    assert str(obs2) == str(obs)
    _, r2, *_, info2 = copy.step(action)
    assert (r2, info2["status"], info2["backend"]) == (r1, info1["status"], "sim")
    assert copy.unwrapped.backend is not env.unwrapped.backend
    copy.close()
    env.close()


def test_a_named_backend_is_built_at_first_use_and_pickles_as_its_recipe() -> None:
    env = gym.make("LeanAesop-v0", backend="sim-repl")
    backend = env.unwrapped.backend
    assert isinstance(backend, LazyBackend) and not backend.built  # no process started yet
    copy = pickle.loads(cloudpickle.dumps(env))
    assert not copy.unwrapped.backend.built
    copy.reset(seed=0)
    copy.step(copy.action_space.sample())
    assert copy.unwrapped.backend.built and not backend.built
    copy.close()
    assert not copy.unwrapped.backend.built  # closed, and closing released its processes
    env.close()


def test_a_shared_pool_travels_as_a_fresh_pool_that_the_copy_closes() -> None:
    pool = make_backend("sim-repl", pool_size=1)
    assert isinstance(pool, ReplBackend)
    env = gym.make("LeanProof-v0", backend=pool)
    env.reset(seed=0)
    env.step("  simp")
    pids = pool.pool.pids
    copy = pickle.loads(cloudpickle.dumps(env))
    copy.reset(seed=0)
    copy.step("  omega")  # not "simp": the copy's verdict cache would answer that without a check
    theirs = copy.unwrapped.backend
    assert theirs is not pool and theirs.pool.pids and theirs.pool.pids != pids
    copy.close()
    assert theirs.pool.pids == []  # the copy owned its pool and closed it
    assert pool.pool.pids == pids  # the caller's pool is untouched
    env.close()
    pool.close()


def test_async_vector_env_without_shared_memory_runs_every_env() -> None:
    # spawned, not forked: each worker gets its env by unpickling it, as with forkserver (Python 3.14's
    # default on Linux) and on macOS; the rest of the suite forks (tests/conftest.py)
    venv = gym.make_vec(
        "LeanAesop-v0",
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"shared_memory": False, "context": "spawn"},
        backend="sim",
    )
    try:
        obs, _ = venv.reset(seed=0)
        assert all(g.strip() for g in obs["goal"])  # real goals, not blank snapshots
        _, rewards, _, _, info = venv.step(venv.action_space.sample())
        assert set(np.asarray(rewards).tolist()) <= {1.0, -1.0}
        assert list(info["backend"]) == ["sim", "sim"]
    finally:
        venv.close()
