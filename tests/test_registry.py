"""Every registered lean-gym id makes, passes gymnasium's env checker and vectorizes, on the simulator."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import lean_gym  # noqa: F401

IDS = sorted(k for k, spec in gym.registry.items() if str(spec.entry_point).startswith("lean_gym."))


def test_the_four_ids_are_registered() -> None:
    assert IDS == ["LeanAesop-v0", "LeanAesop-v1", "LeanHackable-v0", "LeanProof-v0", "LeanTactic-v0"]


@pytest.mark.parametrize("env_id", IDS)
def test_check_env(env_id: str) -> None:
    env = gym.make(env_id, backend="sim", split="test")
    check_env(env.unwrapped)
    env.reset(seed=0)
    _, _, _, _, info = env.step(env.action_space.sample())
    assert info["backend"] == "sim"
    env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_vector_entry_point(env_id: str) -> None:
    venv = gym.make_vec(env_id, num_envs=2, vectorization_mode="vector_entry_point", backend="sim", split="test")
    venv.reset(seed=0)
    _, rewards, _, _, _ = venv.step(venv.action_space.sample())
    assert rewards.shape == (2,) and set(rewards.tolist()) <= {-1.0, 0.0, 1.0}
    venv.close()
