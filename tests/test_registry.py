"""Every registered lean-gym id makes, passes gymnasium's env checker and vectorizes, on the simulator."""

from __future__ import annotations

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import lean_gym  # noqa: F401

IDS = sorted(k for k, spec in gym.registry.items() if str(spec.entry_point).startswith("lean_gym."))


def test_the_ids_are_registered() -> None:
    assert IDS == [
        "LeanAesop-v0",
        "LeanAesop-v1",
        "LeanAesopV2-v0",
        "LeanHackable-v0",
        "LeanProof-v0",
        "LeanTactic-v0",
    ]


def test_no_id_is_out_of_date_and_the_old_name_warns_once() -> None:
    """Two layouts are two envs: making LeanAesop-v0 must not warn that it is "out of date" (issue 19)."""
    import warnings

    import lean_gym.envs.aesop_env as aesop_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for env_id in ("LeanAesop-v0", "LeanAesopV2-v0", "LeanProof-v0"):
            gym.make(env_id, backend="sim").close()
    assert [str(w.message) for w in caught if "out of date" in str(w.message)] == []
    aesop_env._warned_v1 = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = gym.make("LeanAesop-v1", backend="sim")
        b = gym.make("LeanAesop-v1", backend="sim")
    old = [w for w in caught if "LeanAesop-v1 is now LeanAesopV2-v0" in str(w.message)]
    assert len(old) == 1 and old[0].category is FutureWarning
    assert not [w for w in caught if "out of date" in str(w.message)]
    assert a.unwrapped.layout.name == b.unwrapped.layout.name == "satp-v2"  # type: ignore[attr-defined]


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
    venv = gym.make_vec(
        env_id, num_envs=2, vectorization_mode="vector_entry_point", backend="sim", split="test"
    )
    venv.reset(seed=0)
    _, rewards, _, _, _ = venv.step(venv.action_space.sample())
    assert rewards.shape == (2,) and set(rewards.tolist()) <= {-1.0, 0.0, 1.0}
    venv.close()
