"""Throughput of LeanAesop-v0: single env vs the backend alone, and vector envs in three modes.

Prints (all labelled with the backend that produced the verdicts):

1. single-env steps/s, and the env layer's overhead over calling ``backend.check`` directly on the same
   code (ratio of median per-step times over interleaved repeats in one run; target < 1.10);
2. vector-env steps/s for N = 1, 2, 4, 8 in ``sync``, ``async`` and pooled (``vector_entry_point``) modes,
   and the pooled/sync speed-up at N = 8.

The verdict cache is off (``cache_size=0``) and vector envs use SAME_STEP autoreset, so every step is one
real check; each vector configuration runs in a fresh process on fresh random actions, and the single-env
measurement clears the in-process simulator's own per-code memo before every timed check. Run::

    python benchmarks/bench_aesop_env.py            # simulator (backend="sim")
    python benchmarks/bench_aesop_env.py --quick    # fewer steps
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.backends import CheckResult, make_backend
from lean_gym.data import load_theorems, theorem_with_proof
from lean_gym.envs.aesop_env import LeanAesopEnv


class _Replay:
    """A backend that answers each code with the verdict recorded for it (no work): isolates the env layer."""

    def __init__(self, recorded: dict[tuple[str, str], CheckResult], name: str) -> None:
        self.recorded = recorded
        self.name = name

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        return self.recorded[code, header]

    def check_batch(self, codes: Any, *, header: Any = "", timeout: float | None = None) -> list[CheckResult]:
        headers = [header] * len(codes) if isinstance(header, str) else header
        return [self.recorded[c, h] for c, h in zip(codes, headers)]

    def close(self) -> None:
        pass


def _simulator_cache_clearer(backend: Any) -> Any:
    if backend.name == "sim":
        try:
            from lean_gym.sim.aesop import clear_cache
        except ImportError:
            pass
        else:
            return clear_cache
    return lambda: None


def single_env(backend_spec: str, steps: int, repeats: int, seed: int) -> None:
    theorems = load_theorems("sim", split="train")
    backend = make_backend(backend_spec)
    env = LeanAesopEnv(backend=backend, theorems=theorems, cache_size=0)
    rng = np.random.default_rng(seed)
    plan = [(int(rng.integers(len(theorems))), rng.integers(0, env.layout.nvec)) for _ in range(steps)]
    codes = [
        (
            theorem_with_proof(theorems[i], env.layout.render(a, theorems[i].context_lemmas)),
            theorems[i].header,
        )
        for i, a in plan
    ]
    recorded = {}
    for code, header in codes:  # record the verdicts (for (b)); warms the header and the library
        recorded[code, header] = backend.check(code, header=header)
    # The in-process simulator memoises per-code work (parsed aesop calls): clear it before every timed
    # check so each one costs what a first-time check costs, as in RL where calls rarely repeat.
    forget = _simulator_cache_clearer(backend)

    # (a) Interleaved per step (the check alone, then the same check through reset+step), so drift in
    # machine load hits both alike; each step's median over the repeats, summed.
    clock = time.perf_counter
    direct = np.zeros((repeats, steps))
    via_env = np.zeros((repeats, steps))
    for r in range(repeats):
        for k, ((code, header), (i, a)) in enumerate(zip(codes, plan)):
            forget()
            t0 = clock()
            backend.check(code, header=header)
            t1 = clock()
            forget()
            t2 = clock()
            env.reset(options={"index": i})
            env.step(a)
            direct[r, k], via_env[r, k] = t1 - t0, clock() - t2
    d = float(np.median(direct, axis=0).sum()) / steps
    e = float(np.median(via_env, axis=0).sum()) / steps

    # (b) The env layer alone: the same steps against a backend that replays the recorded verdicts at no
    # cost, so the layer's own time is measured without the check's noise. Ratio = (check + layer) / check.
    replay = LeanAesopEnv(backend=_Replay(recorded, backend.name), theorems=theorems, cache_size=0)
    layer = []
    for _ in range(repeats):
        t0 = clock()
        for i, a in plan:
            replay.reset(options={"index": i})
            replay.step(a)
        layer.append((clock() - t0) / steps)
    lay = float(np.median(layer))
    name = backend.name
    print(
        f"[backend={name}] single env: {1 / e:8.1f} steps/s (reset+step), backend.check alone: {1 / d:8.1f} checks/s"
    )
    print(f"[backend={name}] env layer alone: {lay * 1e6:.0f} us/step; backend.check: {d * 1e6:.0f} us/check")
    print(
        f"[backend={name}] env overhead: ratio {(d + lay) / d:.3f} ((check + env layer) / check; target < 1.10); "
        f"measured end to end: {e / d:.3f} (per-step medians of {repeats} interleaved repeats of {steps} steps)"
    )
    env.close()
    backend.close()


def vector_rate(
    mode: str, n: int, steps: int, seed: int, backend_spec: str, pool_size: int = 0
) -> tuple[float, str]:
    """Steps/s of one vector env configuration (run in a fresh process by :func:`isolated_rate`)."""
    backend: Any = backend_spec
    if pool_size:
        backend = make_backend(backend_spec, pool_size=pool_size)
    kwargs: dict[str, Any] = {"backend": backend, "cache_size": 0, "split": "train"}
    if mode == "pooled":
        venv = gym.make_vec(
            "LeanAesop-v0",
            num_envs=n,
            vectorization_mode="vector_entry_point",
            autoreset_mode=AutoresetMode.SAME_STEP,
            **kwargs,
        )
    else:
        venv = gym.make_vec(
            "LeanAesop-v0",
            num_envs=n,
            vectorization_mode=mode,
            vector_kwargs={"autoreset_mode": AutoresetMode.SAME_STEP},
            **kwargs,
        )
    venv.action_space.seed(seed)
    venv.reset(seed=seed)
    acts = [venv.action_space.sample() for _ in range(steps + 3)]
    for a in acts[:3]:  # warm up
        venv.step(a)
    t0 = time.perf_counter()
    for a in acts[3:]:
        _, _, _, _, info = venv.step(a)
    rate = n * steps / (time.perf_counter() - t0)
    name = str(info["backend"][0])
    venv.close()
    if pool_size:
        backend.close()
    return rate, name


def isolated_rate(
    mode: str, n: int, steps: int, seed: int, backend_spec: str, pool_size: int = 0
) -> tuple[float, str]:
    """:func:`vector_rate` in a fresh interpreter, so no configuration inherits another's warm caches."""
    cmd = [sys.executable, __file__, "--one", json.dumps([mode, n, steps, seed, backend_spec, pool_size])]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
    rate, name = json.loads(out)
    return float(rate), str(name)


def vector_envs(backend_spec: str, steps: int, seed: int, sizes: list[int]) -> None:
    rates: dict[tuple[str, int], float] = {}
    for n in sizes:
        for mode in ("sync", "async", "pooled"):
            rate, name = isolated_rate(mode, n, max(steps // n, 8), seed, backend_spec)
            rates[mode, n] = rate
            print(f"[backend={name}] vector {mode:6s} N={n}: {rate:8.1f} steps/s")
    big = max(sizes)
    print(
        f"[backend={backend_spec}] pooled/sync speed-up at N={big}: {rates['pooled', big] / rates['sync', big]:.2f}x"
        f"  (async/sync: {rates['async', big] / rates['sync', big]:.2f}x)"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--backend", default="sim", help="backend spec for every env ('sim', 'sim-repl', 'repl', 'auto')"
    )
    p.add_argument(
        "--pooled-backend", default="", help="also time the pooled mode with this backend (e.g. 'sim-repl')"
    )
    p.add_argument("--steps", type=int, default=400, help="checks per single-env run and per vector config")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="steps=100, repeats=3")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pool-size", type=int, default=2, help="processes of the --pooled-backend pool")
    p.add_argument("--one", default="", help=argparse.SUPPRESS)  # internal: one configuration, JSON args
    args = p.parse_args()
    if args.one:
        print(json.dumps(vector_rate(*json.loads(args.one))))
        return
    if args.quick:
        args.steps, args.repeats = 100, 3
    single_env(args.backend, args.steps, args.repeats, args.seed)
    vector_envs(args.backend, args.steps, args.seed, [1, 2, 4, 8])
    if args.pooled_backend:
        for n in (1, 2, 4, 8):
            steps = max(args.steps // n, 8)
            rate, name = isolated_rate("pooled", n, steps, args.seed, args.pooled_backend, args.pool_size)
            print(f"[backend={name}, pool of {args.pool_size}] vector pooled N={n}: {rate:8.1f} steps/s")


if __name__ == "__main__":
    main()
