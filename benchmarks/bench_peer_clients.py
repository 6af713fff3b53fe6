"""lean-gym's REPL client against LeanInteract's, both driving the same ``python -m lean_gym.sim`` server.

LeanInteract (``lean-interact`` 0.11.6) starts its REPL as ``<lake> env <repl dir>/.lake/build/bin/repl``
and wants a ``lake`` that answers ``--version``. Without a Lean toolchain, this script gives it a local
"REPL directory" (``local_repl_path``, ``build_repl=False``) and a ``lake`` shim that execs the simulator's
protocol server for ``lake env …``, so both clients talk to the same process kind over the same pipes. No
Lean is involved; every figure is the simulator's, and what is compared is the client code.

Prints, all measured in this one run:

1. per request: median µs of one ``theorem`` command, lean-gym ``LeanRepl.send`` vs LeanInteract
   ``LeanServer.run(Command(...))``, rounds interleaved;
2. a mixed batch (the simulator's test theorems with one of several tactics each): throughput in checks/s
   of lean-gym ``ReplPool.check_batch`` vs LeanInteract ``LeanServerPool.run_batch`` with 1 and 2
   processes, and the ratios.

Run::

    pip install lean-interact==0.11.6
    python benchmarks/bench_peer_clients.py
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lean_gym.backends.repl import sim_command
from lean_gym.data import load_theorems, theorem_with_proof
from lean_gym.lean import LeanRepl, ReplPool
from lean_gym.lean.protocol import command_request

TACTICS = ("simp", "ring", "omega", "norm_num", "linarith", "aesop")


def leaninteract_config(workdir: Path) -> Any:
    """A LeanREPLConfig whose REPL process is the simulator (see the module docstring)."""
    from lean_interact import LeanREPLConfig

    repl_dir = workdir / "repl"
    repl_dir.mkdir()
    (repl_dir / "lean-toolchain").write_text("leanprover/lean4:v4.27.0\n")
    lake = workdir / "lake"
    server = " ".join(sim_command())
    lake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "Lake (shim for lean_gym.sim)"; exit 0; fi\n'
        f'if [ "$1" = "env" ]; then exec {server}; fi\n'
        "exit 0\n"
    )
    lake.chmod(0o755)
    return LeanREPLConfig(local_repl_path=str(repl_dir), build_repl=False, lake_path=str(lake))


def per_request(config: Any, n: int, rounds: int) -> tuple[float, float]:
    from lean_interact import Command, LeanServer

    code = "theorem t (a b : ℕ) : a + b = b + a := by omega"
    ours = LeanRepl(sim_command(), default_timeout=60)
    theirs = LeanServer(config)
    for _ in range(20):  # warm up: imports, first elaboration
        ours.send(command_request(code))
        theirs.run(Command(cmd=code))
    a, b = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            ours.send(command_request(code))
        a.append((time.perf_counter() - t0) / n)
        t0 = time.perf_counter()
        for _ in range(n):
            theirs.run(Command(cmd=code))
        b.append((time.perf_counter() - t0) / n)
    ours.close()
    theirs.kill()
    return statistics.median(a), statistics.median(b)


def batch_rates(config: Any, workers: int, codes: list[str], rounds: int) -> tuple[float, float]:
    from lean_interact import Command, LeanServerPool

    ours = ReplPool(sim_command(), size=workers, default_timeout=60)
    theirs = LeanServerPool(config, num_workers=workers)
    try:
        ours.check_batch(codes[:8] * workers)  # start every process
        theirs.run_batch([Command(cmd=c) for c in codes[:8] * workers])
        a, b = [], []
        for _ in range(rounds):
            t0 = time.perf_counter()
            ours.check_batch(codes)
            a.append(len(codes) / (time.perf_counter() - t0))
            t0 = time.perf_counter()
            out = theirs.run_batch([Command(cmd=c) for c in codes], timeout_per_cmd=60)
            b.append(len(codes) / (time.perf_counter() - t0))
            failed = [r for r in out if isinstance(r, Exception)]
            if failed:
                raise RuntimeError(f"LeanInteract failed {len(failed)} requests: {failed[0]!r}")
        return statistics.median(a), statistics.median(b)
    finally:
        ours.close()
        theirs.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--requests", type=int, default=100, help="requests per round (per-request figure)")
    p.add_argument("--checks", type=int, default=120, help="checks in the mixed batch")
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    try:
        import lean_interact  # noqa: F401
    except ImportError:
        print("needs LeanInteract: pip install lean-interact==0.11.6", file=sys.stderr)
        return 2
    theorems = load_theorems("sim", split="test")
    codes = [
        theorem_with_proof(t, "  " + TACTICS[i % len(TACTICS)]) for i, t in enumerate(theorems[: args.checks])
    ]
    print(
        "both clients drive `python -m lean_gym.sim` (the simulator, not Lean); medians of interleaved rounds"
    )
    with tempfile.TemporaryDirectory() as tmp:
        config = leaninteract_config(Path(tmp))
        ours, theirs = per_request(config, args.requests, args.rounds)
        print(
            f"per request: lean-gym {ours * 1e6:.0f} µs, LeanInteract {theirs * 1e6:.0f} µs "
            f"(LeanInteract / lean-gym = {theirs / ours:.2f}x)"
        )
        for workers in (1, 2):
            a, b = batch_rates(config, workers, codes, args.rounds)
            print(
                f"mixed batch of {len(codes)}, {workers} process(es): lean-gym {a:.1f} checks/s, "
                f"LeanInteract {b:.1f} checks/s (lean-gym / LeanInteract = {a / b:.2f}x)"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
