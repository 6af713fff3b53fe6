"""RLlib's PPO trains on LeanAesop-v0 over Ray env runners (examples/rllib_ppo.py, with a tiny budget)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # a local Ray cluster per module: seconds to start, many to run

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rllib_ppo.py"


def _example() -> Any:
    spec = importlib.util.spec_from_file_location("rllib_ppo_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    from ray import cloudpickle

    # The env runners cannot import this module by name: send its functions by value, as they are when
    # the example runs as a script (__main__).
    cloudpickle.register_pickle_by_value(module)
    return module


def test_ppo_trains_over_env_runners_whose_checks_go_to_a_ray_backend() -> None:
    # imported here, not at the module's top: the fast lane collects this file too (then deselects its one
    # slow test), and importing RLlib costs each worker 4 s of CPU
    pytest.importorskip("ray.rllib", reason="the rllib extra is not installed")
    pytest.importorskip("torch", reason="RLlib's PPO needs torch")
    import ray

    ex = _example()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:
        args = ex.parse_args(
            [
                "--iterations",
                "2",
                "--num-env-runners",
                "1",
                "--train-batch-size",
                "32",
                "--minibatch-size",
                "16",
                "--num-epochs",
                "1",
                "--ray-backend",
                "--backend",
                "sim-repl",
            ]
        )
        from lean_gym.distributed import RayBackend

        seen: list[RayBackend] = []
        real = RayBackend

        class Spy(real):  # type: ignore[misc,valid-type]
            def __init__(self, *a: Any, **kw: Any) -> None:
                super().__init__(*a, **kw)
                seen.append(self)

            def close(self) -> None:
                self.checks_on_actors = sum(s.get("checks", 0) for s in self.actor_stats())
                super().close()

        import lean_gym.distributed as dist

        dist.RayBackend = Spy  # the example imports it from there at call time
        try:
            summaries = ex.train(args)
        finally:
            dist.RayBackend = real
    finally:
        ray.shutdown()
    assert [s["iteration"] for s in summaries] == [1, 2]
    assert summaries[-1]["env_steps_sampled"] >= 64
    assert all(
        -1.0 <= s["episode_return_mean"] <= 1.0 for s in summaries if not math.isnan(s["episode_return_mean"])
    )
    assert summaries[0]["backend"] == "ray:sim-repl"
    # The env runners' steps were checked on the RayBackend's actors (the runners got it by pickle).
    assert seen and seen[0].checks_on_actors >= 64
