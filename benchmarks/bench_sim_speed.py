"""Speed of aesop-config checks on the simulator (issue 3): in process, and through the REPL protocol.

For every theorem of the simulator's test split it checks satp-v1 aesop configs (seeded draws from the
calibration portfolio, rendered by ``lean_gym.aesop.layout("satp-v1")``) as whole Lean commands:

* **in process** (``SimBackend``): checks per second at the median check time (target >= 200/s on one
  core), the distribution (p50/p90/p99, the slowest 1%, max), first on a cold simulator (empty caches: every
  goal is new) and then warm (a second config on the same goals, as when an agent tries many configs);
* **protocol** (``ReplBackend(command=[sys.executable, "-m", "lean_gym.sim"], pool_size=1)``): the same
  checks through the REPL JSON protocol over pipes, and the ratio protocol / in-process of the total time
  for the same work in one run (target within 1.3x).

Every figure comes from the simulator (backend ``sim``), not from Lean.

Usage::

    python benchmarks/bench_sim_speed.py [--n 300] [--no-protocol]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_sim_calibration import one_line, portfolio, render

from lean_gym.backends.sim import SimBackend
from lean_gym.data import load_theorems, theorem_with_proof
from lean_gym.sim.aesop import clear_cache


def _stats(label: str, times: list[float]) -> None:
    t = np.array(times)
    p50, p90, p99 = np.percentile(t, [50, 90, 99])
    slowest = np.sort(t)[-max(1, len(t) // 100) :]
    print(
        f"{label:34s} n={len(t):5d}  median {1000 * p50:7.2f} ms -> {1 / p50:8.0f} checks/s | "
        f"mean {1000 * t.mean():6.2f} ms ({len(t) / t.sum():6.0f}/s) | p90 {1000 * p90:6.2f} | p99 {1000 * p99:7.2f} | "
        f"slowest 1% mean {1000 * slowest.mean():7.1f} ms | max {1000 * t.max():7.1f} ms"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--no-protocol", action="store_true")
    args = ap.parse_args()
    thms = load_theorems("sim", split="test", limit=args.n)
    configs = [a for _, a in portfolio()]
    rng = np.random.default_rng(1)
    picks = [(int(rng.integers(len(configs))), int(rng.integers(len(configs)))) for _ in thms]

    # the multi-line canonical form when the simulator accepts it (see bench_sim_calibration.py)
    probe = SimBackend().check(
        theorem_with_proof(thms[0], render(configs[10], thms[0].context_lemmas)), header=thms[0].header
    )
    fmt = one_line if any("unexpected token" in m.data for m in probe.messages) else (lambda s: s)
    jobs = []
    for t, (i, _j) in zip(thms, picks):
        jobs.append((theorem_with_proof(t, fmt(render(configs[i], t.context_lemmas))), t.header))
    jobs2 = [
        (theorem_with_proof(t, fmt(render(configs[j], t.context_lemmas))), t.header)
        for t, (_, j) in zip(thms, picks)
    ]

    print(
        "aesop-config check speed (backend: sim; simulator, not Lean), one core, Python",
        sys.version.split()[0],
    )
    clear_cache()
    backend = SimBackend()
    backend.check(jobs[0][0], header=jobs[0][1])  # elaborate the header once, as any pool does
    clear_cache()
    cold: list[float] = []
    for code, header in jobs:
        t0 = time.perf_counter()
        backend.check(code, header=header)
        cold.append(time.perf_counter() - t0)
    warm: list[float] = []
    for code, header in jobs2:
        t0 = time.perf_counter()
        backend.check(code, header=header)
        warm.append(time.perf_counter() - t0)
    _stats("in process, cold (first config)", cold)
    _stats("in process, warm (second config)", warm)
    _stats("in process, all", cold + warm)

    if args.no_protocol:
        return
    try:
        from lean_gym.backends.repl import ReplBackend, sim_command
    except ImportError as e:  # pragma: no cover - part of the tree
        print(f"protocol figures skipped: {e}")
        return
    # same work, same order, in one run: fresh in-process backend vs a fresh protocol server
    clear_cache()
    inproc = SimBackend()
    inproc.check(jobs[0][0], header=jobs[0][1])
    clear_cache()
    t0 = time.perf_counter()
    for code, header in jobs + jobs2:
        inproc.check(code, header=header)
    t_in = time.perf_counter() - t0
    repl = ReplBackend(command=sim_command(), pool_size=1)
    try:
        repl.check(jobs[0][0], header=jobs[0][1])  # start the server and elaborate the header
        per: list[float] = []
        t0 = time.perf_counter()
        for code, header in jobs + jobs2:
            t1 = time.perf_counter()
            r = repl.check(code, header=header)
            per.append(time.perf_counter() - t1)
        t_pr = time.perf_counter() - t0
        _stats(f"protocol ({r.backend})", per)
    finally:
        repl.close()
    n = len(jobs) + len(jobs2)
    print(
        f"same {n} checks: in process {t_in:.2f} s, protocol {t_pr:.2f} s, ratio protocol/in-process "
        f"{t_pr / t_in:.2f}x (target <= 1.3x)"
    )
    print(f"median per check: in process {1000 * statistics.median(cold + warm):.2f} ms")


if __name__ == "__main__":
    main()
