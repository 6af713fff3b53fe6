"""Time per training step of the DPO aesop policy (``lean_gym_agents.dpo``), on the CPU and on CUDA if present.

Builds a buffer from the simulator's train goals (their real goal texts and lemmas; random configs and
rewards, since only the step's cost is measured: 4 rows per goal, a third of the failures paired with a
success one head away), then times ``train_step`` with the reference frozen (all three losses: BC, DPO,
NL) at the default hyperparameters. Prints the median step time, the throughput (steps / wall time over
the timed steps) and, for comparison, the time of one ``LeanAesop-v0`` step on the simulator.

Run:  python benchmarks/bench_dpo_step.py                 (CPU, 1 torch thread; CUDA too when present)
      python benchmarks/bench_dpo_step.py --threads 2 --steps 100
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import torch

from lean_gym.aesop import layout
from lean_gym.buffers import HistoryBuffer
from lean_gym.data import load_theorems
from lean_gym_agents.dpo import DPOArgs, DPOPolicy, PolicyData


def make_buffer(seed: int = 0) -> HistoryBuffer:
    lay = layout("satp-v1")
    rng = np.random.default_rng(seed)
    buf = HistoryBuffer()
    for t in load_theorems("sim", split="train"):
        lemmas = list(t.context_lemmas[:8])
        scores = list(t.context_lemma_scores[:8])
        for _ in range(4):
            a = rng.integers(0, lay.nvec)
            ok = rng.random() < 0.6
            buf.add(goal=t.goal, action=a, reward=1.0 if ok else -1.0, lemmas=lemmas, lemma_scores=scores)
            if ok and rng.random() < 0.3:
                b = a.copy()
                h = int(rng.integers(0, 24))
                b[h] = (b[h] + 1) % lay.nvec[h]
                buf.add(goal=t.goal, action=b, reward=-1.0, lemmas=lemmas, lemma_scores=scores)
    return buf


def time_steps(data: PolicyData, device: str, steps: int, warmup: int) -> tuple[float, float, int]:
    policy = DPOPolicy("satp-v1", DPOArgs(device=device, ref_warmup_steps=0))
    for _ in range(warmup):
        policy.train_step(data)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    times, cpu = [], []
    t0 = time.perf_counter()
    for _ in range(steps):
        t, c = time.perf_counter(), time.process_time()
        policy.train_step(data)
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    wall = time.perf_counter() - t0
    return statistics.median(times), statistics.median(cpu), steps / wall, policy.num_parameters()


def env_step_ms(n: int = 100) -> float:
    import gymnasium as gym

    import lean_gym  # noqa: F401

    env = gym.make("LeanAesop-v0", backend="sim", split="train", cache_size=0)
    env.action_space.seed(0)
    times = []
    for i in range(n):
        env.reset(options={"index": i % 300})
        t = time.perf_counter()
        env.step(env.action_space.sample())
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    ns = p.parse_args()
    torch.set_num_threads(ns.threads)
    data = PolicyData.from_buffer(make_buffer())
    args = DPOArgs()
    print(f"data: {data.summary()}")
    print(
        f"policy: byte encoder d_model={args.d_model} layers={args.n_layers} stride={args.stride}; "
        f"batch {args.batch_size} successes + {args.batch_size} pairs + {args.batch_size} failures per step"
    )
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    for device in devices:
        med, med_cpu, rate, params = time_steps(data, device, ns.steps, ns.warmup)
        where = f"cpu, {ns.threads} torch thread(s)" if device == "cpu" else torch.cuda.get_device_name()
        print(
            f"{where}: {params:,} parameters, median {med * 1000:.0f} ms/step wall "
            f"({med_cpu * 1000:.0f} ms CPU time), {rate:.2f} steps/s over {ns.steps} steps"
        )
    print(
        f"load average while measuring: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores"
    )
    if not torch.cuda.is_available():
        print("cuda: not available here (no figure)")
    print(f"for comparison: one LeanAesop-v0 step on the simulator, median {env_step_ms():.1f} ms")


if __name__ == "__main__":
    main()
