"""Issue 2 figures: the REPL client's overhead and the pool's throughput.

1. Client overhead per request against a trivial echo server, as a ratio to a minimal hand-written pipe
   client on the same server in the same run (target: within 1.2x).
2. Pool throughput with 1 and 2 processes against a server that takes a fixed time per request
   (target: >= 1.8x from 1 to 2 on a 2-core machine), for a CPU-bound and an idle server.

Run: ``python benchmarks/bench_repl_client.py``. Prints medians over repeated rounds; no Lean involved.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from lean_gym.lean import LeanRepl, ReplPool

SERVER = [sys.executable, str(Path(__file__).parent / "_servers.py")]


class MinimalClient:
    """The least a client can do: write a line, read lines until a blank one, parse JSON."""

    def __init__(self, cmd: list[str]) -> None:
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.out = self.p.stdout

    def send(self, req: dict) -> dict:
        self.p.stdin.write((json.dumps(req) + "\n\n").encode())
        lines = []
        while True:
            line = self.out.readline()
            if line.strip():
                lines.append(line)
            elif lines:
                return json.loads(b"".join(lines))

    def close(self) -> None:
        self.p.stdin.close()
        self.p.wait()


def per_request_us(send, n: int) -> float:
    req = {"cmd": "theorem t : 1 + 1 = 2 := by norm_num", "env": 0}
    t0 = time.perf_counter()
    for _ in range(n):
        send(req)
    return (time.perf_counter() - t0) / n * 1e6


def client_overhead(n: int, rounds: int) -> None:
    ours = LeanRepl([*SERVER, "echo"], default_timeout=30)
    minimal = MinimalClient([*SERVER, "echo"])
    per_request_us(ours.send, 200)
    per_request_us(minimal.send, 200)  # warm up both
    a, b = [], []
    for _ in range(rounds):  # interleaved rounds, so machine noise hits both alike
        a.append(per_request_us(ours.send, n))
        b.append(per_request_us(minimal.send, n))
    ours.close()
    minimal.close()
    ma, mb = statistics.median(a), statistics.median(b)
    print("client overhead vs a minimal pipe client (echo server, same run)")
    print(f"  LeanRepl.send       median {ma:8.1f} us/request  (rounds: {', '.join(f'{x:.0f}' for x in a)})")
    print(f"  minimal pipe client median {mb:8.1f} us/request  (rounds: {', '.join(f'{x:.0f}' for x in b)})")
    print(f"  ratio LeanRepl / minimal = {ma / mb:.3f}  (target <= 1.2)")


def pool_throughput(mode: str, cost: float, n: int, rounds: int) -> None:
    rates: dict[int, list[float]] = {1: [], 2: []}
    pools = {
        k: ReplPool([*SERVER, mode, str(cost)], size=k, default_timeout=60, max_uses=None) for k in (1, 2)
    }
    for pool in pools.values():
        pool.warm("import X")
    for _ in range(rounds):
        for k, pool in pools.items():
            t0 = time.perf_counter()
            results = pool.check_batch([f"check {i}" for i in range(n)], header="import X")
            rates[k].append(n / (time.perf_counter() - t0))
            if not all(r.proved for r in results):
                raise SystemExit("a check failed during the benchmark")
    for pool in pools.values():
        pool.close()
    m1, m2 = statistics.median(rates[1]), statistics.median(rates[2])
    print(
        f"pool throughput, server {mode} {cost * 1000:.0f} ms/request, {n} checks per round, {rounds} rounds"
    )
    print(f"  1 process : median {m1:7.1f} checks/s")
    print(f"  2 processes: median {m2:7.1f} checks/s")
    print(f"  speed-up 2 vs 1 = {m2 / m1:.2f}x  (target >= 1.8)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000, help="requests per round for the overhead test")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    print("backend: protocol test servers (benchmarks/_servers.py), no Lean")
    client_overhead(args.n, args.rounds)
    pool_throughput("busy", 0.02, 100, max(3, args.rounds // 2))
    pool_throughput("sleep", 0.02, 100, max(3, args.rounds // 2))


if __name__ == "__main__":
    main()
