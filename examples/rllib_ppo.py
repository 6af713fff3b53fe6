"""Train RLlib's PPO on LeanAesop-v0 over Ray env runners.

Each env runner is a Ray actor that builds its own ``LeanAesop-v0`` (the backend is named by a string, so
it is created lazily inside the runner; with ``--ray-backend`` every runner's checks go instead to one
shared :class:`lean_gym.distributed.RayBackend`, whose actors hold REPL pools). The text observation goes
through :class:`lean_gym.envs.wrappers.AesopFeatures` (RLlib's default model wants arrays), the action is
the 40-head SATP v1 ``MultiDiscrete``. Prints, per iteration, the mean episode return (+1 proved, −1 not)
and the backend that decided.

Run::

    pip install -e ".[rllib]"
    python examples/rllib_ppo.py --iterations 5                   # simulator, 2 env runners
    python examples/rllib_ppo.py --iterations 5 --ray-backend     # checks on RayBackend actors
    python examples/rllib_ppo.py --address auto --backend repl    # on a Ray cluster with Lean on each node
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, fields
from typing import Any

import gymnasium as gym


@dataclass
class Args:
    """Hyperparameters (names as in RLlib's ``PPOConfig``)."""

    backend: str = "sim"  # what each env runner (or each RayBackend actor) checks with
    ray_backend: bool = False  # one shared RayBackend instead of a backend per runner
    num_actors: int = 2  # RayBackend actors (with --ray-backend)
    iterations: int = 5
    num_env_runners: int = 2
    num_envs_per_env_runner: int = 2
    train_batch_size: int = 256
    minibatch_size: int = 64
    num_epochs: int = 2
    lr: float = 3e-4
    n_buckets: int = 64  # hashed goal-token features
    num_cpus: int = 0  # for a local Ray (0: all)
    address: str = ""  # a Ray cluster to join ("auto" on a cluster node); empty: start a local Ray
    seed: int = 0


def parse_args(argv: list[str] | None = None) -> Args:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in fields(Args):
        if isinstance(f.default, bool):
            p.add_argument("--" + f.name.replace("_", "-"), action="store_true")
        else:
            p.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return Args(**vars(p.parse_args(argv)))


def make_env(config: dict[str, Any]) -> gym.Env[Any, Any]:
    """The env each runner builds: ``LeanAesop-v0`` with array features (runs inside the Ray worker)."""
    import lean_gym  # noqa: F401  (registers the ids in the worker process)
    from lean_gym.envs.wrappers import AesopFeatures

    config = dict(config)
    n_buckets = int(config.pop("n_buckets", 64))
    return AesopFeatures(gym.make("LeanAesop-v0", **config), n_buckets=n_buckets)


def train(args: Args) -> list[dict[str, Any]]:
    """Run ``args.iterations`` PPO iterations; return one summary dict per iteration."""
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.tune.registry import register_env

    if not ray.is_initialized():
        ray.init(
            address=args.address or None,
            num_cpus=args.num_cpus or None if not args.address else None,
            include_dashboard=False,
            log_to_driver=False,
        )
    backend: Any = args.backend
    if args.ray_backend:
        from lean_gym.distributed import RayBackend

        # Pickled into every env runner with env_config: the runners share these actors.
        backend = RayBackend(args.backend, num_actors=args.num_actors, num_cpus_per_actor=0.5)
    register_env("LeanAesopFeatures", make_env)
    config = (
        PPOConfig()
        .environment(
            "LeanAesopFeatures",
            env_config={"backend": backend, "split": "train", "n_buckets": args.n_buckets},
        )
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=args.num_envs_per_env_runner,
            num_cpus_per_env_runner=0.5,
            rollout_fragment_length="auto",
        )
        .training(
            train_batch_size=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            lr=args.lr,
        )
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    summaries = []
    try:
        for it in range(args.iterations):
            result = algo.train()
            runners = result.get("env_runners", {})
            summary = {
                "iteration": it + 1,
                "episode_return_mean": float(runners.get("episode_return_mean", float("nan"))),
                "env_steps_sampled": int(result.get("num_env_steps_sampled_lifetime", 0)),
                "backend": getattr(backend, "name", backend),
            }
            summaries.append(summary)
            print(
                f"iteration {summary['iteration']}: mean return {summary['episode_return_mean']:+.3f} "
                f"over {summary['env_steps_sampled']} env steps so far  [backend={summary['backend']}]"
            )
    finally:
        algo.stop()
        if args.ray_backend:
            backend.close()
    return summaries


if __name__ == "__main__":
    train(parse_args())
