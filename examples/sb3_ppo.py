"""Train Stable-Baselines3 PPO on LeanAesop-v0 and compare success rates on the test split.

The text observation goes through :class:`lean_gym.envs.wrappers.AesopFeatures` (hashed goal tokens and
lemma scores in a ``Box``), the action is the 40-head SATP v1 ``MultiDiscrete``. The theorems are the env's
default set (``--source satp-minif2f``: SATP's 92 Lean-proved miniF2F-test theorems, 46 train / 46 test;
``--source sim`` for the simulator's synthetic families). Prints the success rate on the test split of
three baselines (the all-default config, i.e. plain ``aesop``; a uniformly random config; the best static
config, one action for every goal searched on the train split and stored with the package), of the
untrained policy and of the trained one, which backend decided (the simulator unless a Lean workspace is
built and ``--backend repl``), and SATP's own figures on Lean beside them.

Run (under 2 minutes on 2 cores with the defaults)::

    pip install torch==2.13.0 -e ".[sb3]"    # in a clone of lean-gym; torch pinned as in the README
    python examples/sb3_ppo.py --total-timesteps 6000
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, fields

import gymnasium as gym
import numpy as np

import lean_gym  # noqa: F401  (registers LeanAesop-v0)
from lean_gym.aesop import best_static_action
from lean_gym.data import satp_lean_figures
from lean_gym.envs.aesop_env import DEFAULT_SOURCE
from lean_gym.envs.wrappers import AesopFeatures


@dataclass
class Args:
    """Hyperparameters (names as in the PPO paper / SB3)."""

    env_id: str = "LeanAesop-v0"
    backend: str = "sim"  # "auto" uses real Lean when a workspace is built
    source: str = DEFAULT_SOURCE  # SATP's 92 Lean-proved miniF2F-test theorems; "sim": synthetic families
    total_timesteps: int = 6000
    n_envs: int = 4
    n_steps: int = 128  # rollout length per env
    batch_size: int = 128
    n_epochs: int = 4
    learning_rate: float = 1e-3
    ent_coef: float = 0.01
    clip_eps: float = 0.2
    n_buckets: int = 256  # hashed goal-token features
    default_prior: float = (
        0.0  # logit bonus for each head's default choice at init (>0 starts near plain aesop)
    )
    eval_limit: int = 0  # 0: the whole test split
    seed: int = 0


def parse_args() -> Args:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in fields(Args):
        p.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return Args(**vars(p.parse_args()))


def success_rate(env: gym.Env, act: Callable[[np.ndarray], np.ndarray], limit: int) -> float:
    """Fraction of test theorems proved by one attempt with ``act(obs)``, in theorem order."""
    n = len(env.unwrapped.theorems)
    n = min(n, limit) if limit else n
    wins = 0
    for i in range(n):
        obs, _ = env.reset(options={"index": i})
        _, reward, *_ = env.step(act(obs))
        wins += reward > 0
    return wins / n


INSTALL = 'pip install torch==2.13.0 -e ".[sb3]" (in a clone of lean-gym)'


def main() -> None:
    args = parse_args()
    try:
        import torch
        from stable_baselines3 import PPO
        from stable_baselines3.common.env_util import make_vec_env
    except ImportError as e:
        raise SystemExit(
            f"sb3_ppo.py needs torch and stable-baselines3 ({e.name} is missing): {INSTALL}"
        ) from None

    torch.set_num_threads(1)

    def make_env(split: str) -> gym.Env:
        return AesopFeatures(
            gym.make(args.env_id, backend=args.backend, source=args.source, split=split),
            n_buckets=args.n_buckets,
        )

    train = make_vec_env(lambda: make_env("train"), n_envs=args.n_envs, seed=args.seed)
    test = make_env("test")
    backend = test.unwrapped.backend.name
    print(
        f"backend: {backend}  (verdicts below come from {'the simulator, not Lean' if backend.startswith('sim') else backend})"
    )
    print(
        f"theorems: {args.source}; train theorems: {len(train.get_attr('theorems')[0])}  test theorems: "
        f"{len(test.unwrapped.theorems)}"
    )

    model = PPO(
        "MlpPolicy",
        train,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        ent_coef=args.ent_coef,
        clip_range=args.clip_eps,
        gamma=0.0,  # one-step episodes
        policy_kwargs={"net_arch": [128, 128]},
        seed=args.seed,
        verbose=0,
    )
    default = test.unwrapped.layout.default_action()
    # Optionally start near plain aesop (useful where large random configs rarely prove anything, as when
    # every extra rule costs real Lean search time): a logit bonus on each head's default choice.
    with torch.no_grad():
        offsets = np.concatenate([[0], np.cumsum(test.unwrapped.layout.nvec)[:-1]])
        model.policy.action_net.bias[torch.as_tensor(offsets + default)] += args.default_prior
    policy = lambda obs: model.predict(obs, deterministic=True)[0]  # noqa: E731
    rng = np.random.default_rng(args.seed)
    nvec = test.unwrapped.layout.nvec
    rate_random = success_rate(test, lambda obs: rng.integers(0, nvec), args.eval_limit)
    rate_default = success_rate(test, lambda obs: default, args.eval_limit)
    try:
        static = best_static_action(test.unwrapped.layout.name, args.source)
        rate_static: float | None = success_rate(test, lambda obs: static, args.eval_limit)
    except KeyError:  # no config stored for a source of the user's own
        rate_static = None
    rate_before = success_rate(test, policy, args.eval_limit)
    print(f"test success, all-default config (plain aesop): {rate_default:.1%}")
    print(f"test success, uniformly random config:         {rate_random:.1%}")
    shown = "none stored for this source" if rate_static is None else f"{rate_static:.1%}"
    print(f"test success, best static config (distilled):  {shown}")
    print(f"test success, PPO before training:             {rate_before:.1%}")

    t0 = time.perf_counter()
    model.learn(total_timesteps=args.total_timesteps)
    train_s = time.perf_counter() - t0
    rate_after = success_rate(test, policy, args.eval_limit)
    print(f"test success, PPO after {args.total_timesteps} steps ({train_s:.0f} s): {rate_after:.1%}")
    where = "the simulator, not Lean" if backend.startswith("sim") else backend
    print(f"theorems: {args.source} test split; backend: {backend} (every figure above is {where})")
    print(satp_lean_figures(args.source))
    train.close()
    test.close()


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
