"""The bubblewrap sandbox's overhead on the simulator's REPL process: per check, and per process start.

Alternates rounds without and with the sandbox (``ReplBackend(command=sim_command(), sandbox=…)``, one
process each): per round, the time from a fresh backend to its first answer (process start, imports, the
first check), then ``--checks`` checks one after the other in that same process. Prints the medians of
each kind and their ratios (sandboxed / plain), measured in this one run. No Lean: the process is the
simulator (``sim-repl``), so this is the cost of the sandbox around a process, not of Lean inside it.

Run::

    python benchmarks/bench_sandbox.py --rounds 7 --checks 30
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time

from lean_gym.backends.repl import ReplBackend, sim_command
from lean_gym.lean.sandbox import Sandbox, sandbox_works, seccomp_available

CODES = [
    "theorem t (x : Nat) : x + 0 = x := by simp",
    "theorem u (a b : Nat) : a + b = b + a := by omega",
    "theorem v : (2 : Nat) + 2 = 4 := by decide",
]


def one_round(boxed: bool, checks: int, seccomp: bool | None = None) -> tuple[float, list[float]]:
    """Seconds to the first answer, and the seconds of each later check, for one fresh backend."""
    t0 = time.perf_counter()
    backend = ReplBackend(
        command=sim_command(),
        pool_size=1,
        sandbox=Sandbox.for_python(seccomp=seccomp) if boxed else False,
        max_uses=None,
    )
    try:
        backend.check(CODES[0])
        start = time.perf_counter() - t0
        per: list[float] = []
        for k in range(checks):
            t = time.perf_counter()
            res = backend.check(CODES[k % len(CODES)])
            per.append(time.perf_counter() - t)
            if res.status != "proved":
                raise SystemExit(f"unexpected verdict {res.status} for {CODES[k % len(CODES)]!r}")
    finally:
        backend.close()
    return start, per


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--checks", type=int, default=30)
    p.add_argument("--no-seccomp", action="store_true", help="sandbox without the seccomp filter")
    args = p.parse_args()
    if not sandbox_works():
        raise SystemExit("bubblewrap is not installed or cannot create namespaces here")
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(f"commit {commit}, backend sim-repl, load {os.getloadavg()[0]:.1f} (1 min), cores {os.cpu_count()}")
    seccomp = False if args.no_seccomp else None
    print(f"seccomp filter: {'yes' if seccomp is None and seccomp_available() else 'no'}")
    starts: dict[bool, list[float]] = {False: [], True: []}
    checks: dict[bool, list[float]] = {False: [], True: []}
    for r in range(args.rounds):
        for boxed in (False, True) if r % 2 == 0 else (True, False):
            s, per = one_round(boxed, args.checks, seccomp)
            starts[boxed].append(s)
            checks[boxed].append(statistics.median(per))
    for label, data in (("start to first answer", starts), ("per check (median of round medians)", checks)):
        plain, boxed = statistics.median(data[False]), statistics.median(data[True])
        print(
            f"{label}: plain {plain * 1000:.2f} ms, sandboxed {boxed * 1000:.2f} ms, ratio {boxed / plain:.3f}"
        )


if __name__ == "__main__":
    main()
