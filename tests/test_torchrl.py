"""TorchRL's GymWrapper over every registered env: ``check_env_specs`` passes and a rollout runs."""

from __future__ import annotations

from importlib.util import find_spec

import gymnasium as gym
import pytest

import lean_gym  # noqa: F401  (registers the ids)

# torchrl is imported by the tests, not here: every worker of the suite collects this file, and importing
# torchrl (torch, tensordict) costs 4 s of CPU where none of its tests runs
pytestmark = pytest.mark.skipif(find_spec("torchrl") is None, reason="the torchrl extra is not installed")

IDS = sorted(k for k, spec in gym.registry.items() if str(spec.entry_point).startswith("lean_gym."))


@pytest.mark.parametrize("env_id", IDS)
def test_check_env_specs_passes(env_id: str) -> None:
    from torchrl.envs.utils import check_env_specs

    from lean_gym.integrations.torchrl import torchrl_env

    env = torchrl_env(env_id, backend="sim")
    check_env_specs(env, seed=0)
    td = env.rollout(3, break_when_any_done=False)  # episodes may end at any step: reset in between
    assert td["next", "reward"].shape == (3, 1)
    assert all(-1.0 <= r <= 1.0 for r in td["next", "reward"].flatten().tolist())
    env.close()


def test_plain_gym_wrapper_accepts_the_text_envs() -> None:
    from torchrl.envs import GymWrapper
    from torchrl.envs.utils import check_env_specs

    for env_id in ("LeanProof-v0", "LeanHackable-v0"):
        check_env_specs(GymWrapper(gym.make(env_id, backend="sim")), seed=0)


def test_upstream_tuple_of_text_spec_still_needs_the_correction() -> None:
    """TorchRL 0.14 gives LeanAesop's ``lemmas`` a (8,)-shaped spec but one tuple of data. When this test
    fails, TorchRL has fixed it and ``torchrl_env``'s correction can go."""
    from torchrl.envs import GymWrapper
    from torchrl.envs.utils import check_env_specs

    with pytest.raises(AssertionError, match="spec check failed"):
        check_env_specs(GymWrapper(gym.make("LeanAesop-v0", backend="sim")), seed=0)
