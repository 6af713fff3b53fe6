"""``python -m lean_gym_agents.run``: train or evaluate a reference agent on a lean-gym env from the shell.

Example:
    python -m lean_gym_agents.run --agent thompson --env LeanAesop-v0 --steps 2000 \\
        --vector-mode vector_entry_point --num-envs 8 --out runs/thompson
    python examples/satp_loop.py --suite sim     # trains the DPO policy, writes runs/satp_loop/sim/policy.pt
    python -m lean_gym_agents.run --agent dpo --checkpoint runs/satp_loop/sim/policy.pt --eval --split test

It prints the run's figures and the backend that produced them, and writes ``metrics.jsonl``,
``metrics.csv`` and ``learning_curve.png`` under ``--out``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

import gymnasium as gym

AGENTS = ("plain", "random", "thompson", "dpo")
MODES = ("none", "sync", "async", "vector_entry_point")


def build_env(env_id: str, mode: str, num_envs: int, **kwargs: Any) -> Any:
    """One env (``mode="none"``) or a vector env of ``num_envs`` in a gymnasium vectorization mode."""
    import lean_gym  # noqa: F401  (registers the ids)

    if mode == "none":
        return gym.make(env_id, **kwargs)
    return gym.make_vec(env_id, num_envs=num_envs, vectorization_mode=mode, **kwargs)


def build_agent(name: str, env: Any, *, seed: int = 0, checkpoint: str | None = None) -> Any:
    """A reference agent for ``env`` by name (``plain``, ``random``, ``thompson``, ``dpo``)."""
    from lean_gym_agents.baselines import FixedActionAgent, UniformRandomAgent
    from lean_gym_agents.satp_thompson import SATPThompson, SATPThompsonArgs

    space = getattr(env, "single_action_space", None) or env.action_space
    inner = getattr(env, "unwrapped", env)
    layout = getattr(inner, "layout", None)
    if name == "random":
        return UniformRandomAgent(space, seed=seed)
    if layout is None:
        raise ValueError(f"agent {name!r} needs a LeanAesop env (one with an aesop action layout)")
    if name == "plain":
        return FixedActionAgent(layout.default_action())
    if name == "thompson":
        return SATPThompson.for_env(env, SATPThompsonArgs(seed=seed))
    from lean_gym_agents.dpo import DPOArgs, DPOPolicy

    if checkpoint:
        return DPOPolicy.load(checkpoint)
    return DPOPolicy(layout, DPOArgs(seed=seed))


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m lean_gym_agents.run", description=__doc__.split("\n")[0])
    p.add_argument("--agent", choices=AGENTS, default="thompson")
    p.add_argument("--env", default="LeanAesop-v0", help="a lean-gym env id")
    p.add_argument("--backend", default="sim", help="sim, repl or auto")
    p.add_argument("--source", default=None, help="theorem source (default: the simulator's families)")
    p.add_argument("--split", default="train")
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--vector-mode", choices=MODES, default="none")
    p.add_argument("--num-envs", type=int, default=4)
    p.add_argument("--eval", action="store_true", help="evaluate: no updates, greedy actions")
    p.add_argument("--checkpoint", default=None, help="a DPO policy checkpoint (--agent dpo)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="folder for metrics.jsonl, metrics.csv, learning_curve.png")
    p.add_argument("--no-progress", action="store_true")
    ns = p.parse_args(argv)
    if ns.steps < 1 or ns.num_envs < 1:
        p.error("--steps and --num-envs must be at least 1")
    # before any env is built: a checkpoint that is not there is one line
    if ns.checkpoint is not None and not os.path.isfile(ns.checkpoint):
        print(
            f"error: cannot read DPO checkpoint {ns.checkpoint}: no such file (`python examples/satp_loop.py "
            "--suite sim` writes runs/satp_loop/sim/policy.pt)",
            file=sys.stderr,
        )
        return 2
    if ns.agent == "dpo" and ns.eval and ns.checkpoint is None:
        print(
            "error: --agent dpo --eval needs --checkpoint (an untrained policy has nothing to evaluate)",
            file=sys.stderr,
        )
        return 2
    from lean_gym.errors import LeanGymError
    from lean_gym_agents.runner import run_agent

    try:
        kwargs: dict[str, Any] = {"backend": ns.backend, "split": ns.split}
        if ns.source:
            kwargs["source"] = ns.source
        env = build_env(ns.env, ns.vector_mode, ns.num_envs, **kwargs)
        agent = build_agent(ns.agent, env, seed=ns.seed, checkpoint=ns.checkpoint)
        result = run_agent(
            agent, env, steps=ns.steps, train=not ns.eval, seed=ns.seed, out_dir=ns.out,
            progress=not ns.no_progress, desc=f"{ns.agent} on {ns.env}",
        )  # fmt: skip
    except (LeanGymError, ValueError, gym.error.Error) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    backend = getattr(getattr(env, "unwrapped", env), "backend", None)
    name = getattr(backend, "name", ns.backend)
    env.close()
    print(f"backend: {name}{'  (the simulator, not Lean)' if str(name).startswith('sim') else ''}")
    print(
        f"{ns.agent} {'eval' if ns.eval else 'train'} on {ns.env} ({ns.split}): {result.steps} steps, "
        f"{result.episodes} episodes, {result.success_rate:.1%} proved, mean reward {result.mean_reward:+.3f}, "
        f"{result.steps / result.wall_s:.0f} steps/s"
    )
    for key, path in result.paths.items():
        print(f"{key}: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
