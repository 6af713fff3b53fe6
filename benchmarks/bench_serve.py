"""Load test of ``lean-gym serve``: N concurrent clients × M checks, beside the in-process pool and kimina's server.

Every system runs ``python -m lean_gym.sim`` (the simulator, not Lean) with the same number of processes:

* **in-process pool**: ``ReplBackend`` (sim-repl), N threads each calling ``check`` M times;
* **lean-gym serve**: ``lean-gym serve --backend sim-repl`` in its own process, N clients each POSTing M
  one-snippet requests to kimina's ``/api/check`` (what kimina-client and slime's reward send) over a
  keep-alive ``httpx.Client``;
* **kimina-ast-server 2.1.3** (optional, ``--kimina-server PATH/TO/kimina-ast-server``): the same requests
  to kimina's own server, its REPL made the simulator by a ``lake`` shim (``lake env X`` execs X) and its
  unused Prisma import stubbed (it needs ``LEAN_SERVER_SKIP_VALIDATION``; install it in a Python 3.13 venv
  with ``pip install kimina-ast-server==2.1.3 fastapi==0.116.1 starlette==0.47.2 uvicorn==0.35.0``).

Rounds alternate the systems; throughput is checks answered over the round's wall time (median over
rounds), latency the p50/p99 of every request. Each check has its own id: the run fails on one lost or
answered twice, and counts verdicts that differ from the in-process pool's. Localhost only, bounded
(``--clients``, ``--checks``, ``--rounds``).

Run::

    python benchmarks/bench_serve.py --clients 8 --checks 20 --rounds 3 [--kimina-server .../kimina-ast-server]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from lean_gym.backends import ReplBackend
from lean_gym.backends.repl import sim_command
from lean_gym.data import load_theorems, theorem_with_proof

TACTICS = ("simp", "ring", "omega", "norm_num", "linarith", "aesop")


def workload(n: int) -> list[str]:
    """``n`` whole snippets (header and theorem), the simulator's test theorems with one tactic each."""
    theorems = load_theorems("sim", split="test")
    return [
        f"{t.header}\n{theorem_with_proof(t, '  ' + TACTICS[i % len(TACTICS)])}"
        for i, t in enumerate(theorems[i % len(theorems)] for i in range(n))
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_up(url: str, proc: subprocess.Popen[bytes], what: str, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            if httpx.get(url + "/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"{what} did not answer /health within {seconds:g} s")


def start_lean_gym(pool: int) -> tuple[str, subprocess.Popen[bytes]]:
    port = free_port()
    cmd = [sys.executable, "-m", "lean_gym.cli", "serve", "--backend", "sim-repl", "--pool-size", str(pool)]
    proc = subprocess.Popen([*cmd, "--port", str(port)], stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    wait_up(url, proc, "lean-gym serve")
    return url, proc


def start_kimina(server_bin: str, pool: int, tmp: Path) -> tuple[str, subprocess.Popen[bytes]]:
    """kimina-ast-server with the simulator as its REPL (see the module docstring)."""
    bin_dir, stubs, work, proj = tmp / "bin", tmp / "stubs" / "prisma", tmp / "work", tmp / "proj"
    for d in (bin_dir, stubs, work, proj):
        d.mkdir(parents=True)
    lake = bin_dir / "lake"
    lake.write_text(
        '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "Lake (shim)"; exit 0; fi\n'
        'if [ "$1" = "env" ]; then shift; exec "$@"; fi\nexit 2\n'
    )
    repl = bin_dir / "simrepl"
    repl.write_text(f'#!/bin/sh\nexec {" ".join(sim_command())} "$@"\n')
    for f in (lake, repl):
        f.chmod(0o755)
    (stubs / "__init__.py").write_text(
        "class Prisma:\n    async def connect(self):\n        raise RuntimeError('no database')\n"
        "    async def disconnect(self):\n        return None\n"
    )
    port = free_port()
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(tmp / "stubs"),
        "LEAN_SERVER_SKIP_VALIDATION": "1",
        "LEAN_SERVER_REPL_PATH": str(repl),
        "LEAN_SERVER_PROJECT_DIR": str(proj),
        "LEAN_SERVER_HOST": "127.0.0.1",
        "LEAN_SERVER_PORT": str(port),
        "LEAN_SERVER_MAX_REPLS": str(pool),
        "LEAN_SERVER_MAX_REPL_MEM": "4G",
        "LEAN_SERVER_LOG_LEVEL": "WARNING",
        "LEAN_SERVER_ENVIRONMENT": "dev",
    }
    proc = subprocess.Popen(
        [server_bin], cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    wait_up(url, proc, "kimina-ast-server")
    return url, proc


def kimina_status(result: dict[str, Any]) -> str:
    """kimina-client's reading of one result (``ReplResponse.analyze``), as lean-gym's status words."""
    if result.get("error"):
        return "timeout" if "timed out" in result["error"] else "crashed"
    response = result.get("response") or {}
    if "message" in response:
        return "error"
    if any(m.get("severity") == "error" for m in response.get("messages", [])):
        return "error"
    return "sorry" if response.get("sorries") else "proved"


def run_round(
    clients: int,
    per_client: int,
    one: Callable[[httpx.Client | None, list[str], list[str]], list[tuple[str, str]]],
    codes: list[str],
    http: bool,
    batch: int = 1,
    on_answer: Callable[[int], None] | None = None,
) -> tuple[float, list[float], dict[str, str], int]:
    """(checks/s, request latencies, id → status, answers seen twice) of one round."""
    answers: dict[str, str] = {}
    twice = 0
    latencies: list[float] = []
    lock = threading.Lock()
    start = threading.Barrier(clients + 1)

    def client(k: int) -> None:
        nonlocal twice
        c = httpx.Client(timeout=300) if http else None
        try:
            start.wait()
            for j0 in range(0, per_client, batch):
                js = range(j0, min(j0 + batch, per_client))
                ids = [f"c{k}-{j}" for j in js]
                t0 = time.perf_counter()
                got = one(c, ids, [codes[(k * per_client + j) % len(codes)] for j in js])
                dt = time.perf_counter() - t0
                with lock:
                    latencies.append(dt)
                    for cid, status in got:
                        twice += cid in answers
                        answers[cid] = status
                    if on_answer is not None:
                        on_answer(len(answers))
        finally:
            if c is not None:
                c.close()

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return len(answers) / wall, latencies, answers, twice


def http_one(url: str) -> Callable[[httpx.Client | None, list[str], list[str]], list[tuple[str, str]]]:
    """One kimina ``/api/check`` request of the snippets ``ids``/``codes``: (id, status) per answer."""

    def one(c: httpx.Client | None, ids: list[str], codes: list[str]) -> list[tuple[str, str]]:
        assert c is not None
        snippets = [{"id": i, "code": code} for i, code in zip(ids, codes)]
        r = c.post(url + "/api/check", json={"timeout": 60, "snippets": snippets})
        if r.status_code != 200:  # kimina's server answers a dead REPL with a 500
            return [(i, "crashed") for i in ids]
        return [(res["id"], kimina_status(res)) for res in r.json()["results"]]

    return one


def pool_one(
    pool: ReplBackend,
) -> Callable[[httpx.Client | None, list[str], list[str]], list[tuple[str, str]]]:
    """The same checks on the in-process pool (``check``, or ``check_batch`` for several)."""

    def one(c: httpx.Client | None, ids: list[str], codes: list[str]) -> list[tuple[str, str]]:
        if len(codes) == 1:
            return [(ids[0], pool.check(codes[0]).status)]
        return [(i, r.status) for i, r in zip(ids, pool.check_batch(codes))]

    return one


def killer(server: subprocess.Popen[bytes], kills: int, n: int) -> tuple[Callable[[int], None], list[int]]:
    """A progress callback that SIGKILLs one simulator process of ``server`` at each n/(kills+1) answers."""
    import psutil

    done = [0]

    def on_answer(count: int) -> None:
        if done[0] < kills and count >= (done[0] + 1) * n // (kills + 1):
            children = [
                p
                for p in psutil.Process(server.pid).children(recursive=True)
                if "lean_gym.sim" in " ".join(p.cmdline())
            ]
            if children:
                children[done[0] % len(children)].kill()
                done[0] += 1

    return on_answer, done


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    p.add_argument("--checks", type=int, default=20, help="checks per client per round (default 20)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--batch", type=int, default=1, help="checks per request (default 1, as slime's reward)")
    p.add_argument("--kills", type=int, default=0, help="then a round per server killing K REPL processes")
    p.add_argument("--pool", type=int, default=2, help="simulator processes of every system (default 2)")
    p.add_argument("--kimina-server", default=os.environ.get("KIMINA_SERVER_BIN"), help="kimina-ast-server")
    args = p.parse_args()
    if not (
        1 <= args.clients <= 64
        and 1 <= args.checks <= 500
        and 1 <= args.rounds <= 20
        and 1 <= args.batch <= 256
    ):
        p.error("bounded: --clients 1..64, --checks 1..500, --rounds 1..20, --batch 1..256")
    n = args.clients * args.checks
    codes = workload(n)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(
        f"bench_serve {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}, load "
        f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; backend sim-repl (the simulator, not Lean), "
        f"{args.pool} processes each; {args.clients} clients x {args.checks} checks in requests of {args.batch}, "
        f"{args.rounds} rounds alternated"
    )
    systems: dict[str, tuple[Callable[..., list[tuple[str, str]]], bool]] = {}
    procs: list[subprocess.Popen[bytes]] = []
    pool = ReplBackend(command=sim_command(), pool_size=args.pool, timeout=60)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            systems["in-process pool"] = (pool_one(pool), False)
            url, proc = start_lean_gym(args.pool)
            procs.append(proc)
            systems["lean-gym serve /api/check"] = (http_one(url), True)
            servers = {"lean-gym serve /api/check": proc}
            if args.kimina_server:
                kurl, kproc = start_kimina(args.kimina_server, args.pool, Path(tmp))
                procs.append(kproc)
                systems["kimina-ast-server 2.1.3"] = (http_one(kurl), True)
                servers["kimina-ast-server 2.1.3"] = kproc
            else:
                print("kimina-ast-server: not run (pass --kimina-server PATH or set KIMINA_SERVER_BIN)")
            for one, http in systems.values():  # warm: start processes, import headers
                run_round(min(args.clients, 4), 2, one, codes, http)
            rates: dict[str, list[float]] = {k: [] for k in systems}
            lat: dict[str, list[float]] = {k: [] for k in systems}
            verdicts: dict[str, dict[str, str]] = {k: {} for k in systems}
            faults: dict[str, list[int]] = {k: [0, 0] for k in systems}  # lost, answered twice
            order = list(systems)
            for r in range(args.rounds):
                for name in order if r % 2 == 0 else reversed(order):
                    one, http = systems[name]
                    rate, ls, answers, twice = run_round(
                        args.clients, args.checks, one, codes, http, args.batch
                    )
                    faults[name][0] += n - len(answers)
                    faults[name][1] += twice
                    rates[name].append(rate)
                    lat[name] += ls
                    verdicts[name] = answers
            fault_rows = []
            for name, server in servers.items() if args.kills else ():
                one, http = systems[name]
                on_answer, killed = killer(server, args.kills, n)
                _, _, answers, twice = run_round(
                    args.clients, args.checks, one, codes, http, args.batch, on_answer
                )
                wrong = sum(
                    answers.get(k) != v for k, v in verdicts["in-process pool"].items() if k in answers
                )
                retried = "n/a"
                if name.startswith("lean-gym"):
                    retried = str(
                        httpx.get(url + "/metrics", params={"format": "json"}).json()["crash_retries"]
                    )
                fault_rows.append((name, killed[0], n - len(answers), twice, wrong, retried))
                faults[name][0] += n - len(answers)
                faults[name][1] += twice
        finally:
            pool.close()
            for proc in procs:
                proc.terminate()
                proc.wait(30)
    base = statistics.median(rates["in-process pool"])
    ref = verdicts["in-process pool"]
    print(
        f"{'system':<28} {'checks/s':>9} {'x pool':>7} {'p50 ms':>8} {'p99 ms':>8} {'lost':>5} {'twice':>6} {'differ':>7}"
    )
    for name in systems:
        rate = statistics.median(rates[name])
        differ = sum(verdicts[name][k] != v for k, v in ref.items())
        print(
            f"{name:<28} {rate:>9.1f} {rate / base:>7.2f} {pct(lat[name], 0.5) * 1e3:>8.2f} "
            f"{pct(lat[name], 0.99) * 1e3:>8.2f} {faults[name][0]:>5} {faults[name][1]:>6} {differ:>7}"
        )
    if fault_rows:
        print(f"faults: one round each, {args.kills} simulator processes SIGKILLed at evenly spaced progress")
        print(f"{'system':<28} {'killed':>7} {'lost':>5} {'twice':>6} {'wrong':>6} {'retried':>8}")
        for name, killed, lost, twice, wrong, retried in fault_rows:
            print(f"{name:<28} {killed:>7} {lost:>5} {twice:>6} {wrong:>6} {retried:>8}")
    print(f"load after: {os.getloadavg()[0]:.1f}")
    return 1 if any(lost or twice for lost, twice in faults.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
