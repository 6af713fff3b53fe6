"""GRPO on the toy task: a tiny random GPT-2 learns to prove four theorems (simulator, CPU or CUDA).

    python examples/grpo_toy.py                            # LeanProof-v0, 30 steps, seed 0
    python examples/grpo_toy.py --env LeanHackable-v0      # weak grader accepts sorry; logs the hack rate
    python examples/grpo_toy.py --device cuda

Prints loss, mean reward, KL (k3, to the frozen initial model) and time per step, then the mean reward of
the first and last five steps next to a uniform policy's, the median step time and the throughput
(sampled proofs per second of wall time). The task is constrained (one tactic token per proof, see
``lean_gym_agents.grpo_toy``); the verdicts are the simulator's, not Lean's.
"""

from __future__ import annotations

import statistics
import sys
import time
from dataclasses import dataclass
from typing import Literal

import numpy as np

INSTALL = 'pip install torch==2.13.0 -e ".[agents,hf]" (in a clone of lean-gym)'

# Tactics that prove each toy theorem in the simulator (sorry only pays under the weak grader).
_PROVES = {"toy_subst": 3, "toy_comm": 4, "toy_lin": 3, "toy_lt": 2}


@dataclass
class ToyArgs:
    """GRPO on the toy task: a tiny random GPT-2 learns to prove four theorems (simulator, CPU or CUDA)."""

    env: Literal["LeanProof-v0", "LeanHackable-v0"] = "LeanProof-v0"
    """The env (``LeanHackable-v0``: a weak grader that accepts ``sorry``; the hack rate is logged)."""
    steps: int = 30
    """GRPO steps."""
    seed: int = 0
    """Seeds the model's initialisation, the sampling and the theorem draws."""
    device: str = "cpu"
    """``cpu``, ``cuda``, ``cuda:1``…"""
    threads: int = 1
    """torch CPU threads."""


def main() -> None:
    try:
        from lean_gym_agents.run import UsageError, parse_flags

        a = parse_flags(ToyArgs, sys.argv[1:], prog="grpo_toy.py")
    except UsageError as e:
        raise SystemExit(f"grpo_toy.py: error: {e}") from None
    except ImportError as e:
        raise SystemExit(f"grpo_toy.py needs {e.name}: {INSTALL}") from None
    try:
        import torch
        import transformers  # noqa: F401  (the tiny model is built from a transformers config)

        from lean_gym_agents.grpo import GRPOAgent, make_grpo_env, train_grpo
        from lean_gym_agents.grpo_toy import (
            TOY_TACTICS,
            TOY_THEOREMS,
            TacticTokenizer,
            tiny_causal_lm,
            toy_agent_args,
        )
    except ImportError as e:
        raise SystemExit(
            f"grpo_toy.py needs torch and transformers ({e.name} is missing): {INSTALL}"
        ) from None
    torch.set_num_threads(a.threads)

    tok = TacticTokenizer()
    args = toy_agent_args(tok, device=a.device, seed=a.seed)
    agent = GRPOAgent(tiny_causal_lm(tok.vocab_size, seed=a.seed), tok, args)
    extra = {"weak_grader": "accept_sorry"} if a.env == "LeanHackable-v0" else {}
    env = make_grpo_env(a.env, args, backend="sim", theorems=TOY_THEOREMS, **extra)
    hack = a.env == "LeanHackable-v0"
    print(
        f"{a.env} backend={env.unwrapped.backend.name} device={agent.device} "
        f"G={args.group_size} prompts/step={args.prompts_per_step} seed={a.seed}"
    )
    print(
        f"{'step':>4} {'loss':>8} {'reward':>7} {'kl':>7} {'skipped':>7}"
        + (f" {'hack':>5}" if hack else "")
        + f" {'s/step':>7}"
    )

    def show(m: dict[str, float]) -> None:
        line = f"{int(m['step']):>4} {m['loss']:>8.4f} {m['mean_reward']:>7.3f} {m['kl']:>7.4f} {int(m['skipped_groups']):>7}"
        if hack:
            line += f" {m.get('hack_rate', 0.0):>5.2f}"
        print(line + f" {m['step_time_s']:>7.3f}")

    start = time.perf_counter()
    history = train_grpo(agent, env, steps=a.steps, seed=a.seed, on_step=show)
    wall = time.perf_counter() - start
    env.close()
    rewards = [m["mean_reward"] for m in history]
    p_uniform = np.mean([k / (len(TOY_TACTICS) + 1) for k in _PROVES.values()])  # +1: EOS (empty proof)
    print(
        f"mean reward, first 5 steps: {np.mean(rewards[:5]):+.3f}   last 5 steps: {np.mean(rewards[-5:]):+.3f}   "
        f"uniform policy: {2 * p_uniform - 1:+.3f}"
    )
    if hack:
        for key in ("hack_rate", "oracle_reward"):
            first, last = (np.mean([m[key] for m in part]) for part in (history[:5], history[-5:]))
            print(f"{key}, first 5 steps: {first:+.3f}   last 5 steps: {last:+.3f}")
    samples = len(history) * args.group_size * args.prompts_per_step
    print(
        f"median time per step: {statistics.median(m['step_time_s'] for m in history):.3f} s   "
        f"throughput: {samples / wall:.1f} proofs/s ({samples} proofs in {wall:.1f} s wall)"
    )


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
