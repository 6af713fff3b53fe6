"""The simulator's speed against another git ref, in one run: the workloads RL spends its time on (issue 22).

The ref's ``lean_gym/`` is extracted (``git archive``) into a temporary directory, and
``bench_sim_workloads.py`` (this tree's script, which reads only the public API) times each workload in a
fresh process on that tree and on this one, alternately (``--rounds`` rounds; the order flips every round,
so machine load hits both sides alike):

* ``aesop``: random satp-v1 actions on ``LeanAesop-v0``, test split, in-process simulator, verdict cache
  off, each on a random goal (``--steps``, default 6000: the length of SB3's PPO example): the figure is
  the median step (the median of the first 300 steps, before the memo tables have seen most goals, is
  printed beside it);
* ``calib``: the 192-config calibration (``bench_sim_calibration.py``'s checks) on the first ``--goals`` test
  goals: the figure is the total time;
* ``proof``: ``LeanProof-v0`` with a fixed mix of tactic proofs: the median step;
* ``speed`` (only when asked for): the older ``bench_sim_speed.py --no-protocol`` total, run in each tree.

It prints, per workload, both sides' figures over the rounds, their medians, the ratio ref / this tree (how
many times faster this tree is), and whether both trees gave the same verdicts (a digest of every status and
message; the simulator's own figures, not Lean's). ``--cpu`` times with each process's CPU clock instead of
the wall clock (for a machine shared with other work); the load (``uptime``) is printed either way.

Usage::

    python benchmarks/bench_sim_speed_vs.py --ref 0d07032 [--rounds 3] [--workloads aesop,calib,proof]
        [--steps 400] [--proof-steps 600] [--goals 300] [--cpu]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORKLOADS = "aesop,calib,proof"
_SPEED_ALL = re.compile(r"in process, all\s+n=\s*(\d+).*?mean\s+([\d.]+) ms")


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}"


def _workload(tree: Path, name: str, args: argparse.Namespace) -> tuple[float, str, float]:
    """One run of workload ``name`` on ``tree``'s simulator: its figure (seconds), verdict digest, and the
    median of its first 300 items."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    if name == "speed":
        out = subprocess.run(
            [sys.executable, str(tree / "benchmarks" / "bench_sim_speed.py"), "--no-protocol"],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        m = _SPEED_ALL.search(out)
        if m is None:
            raise SystemExit(f"unexpected output from bench_sim_speed.py in {tree}:\n{out}")
        return int(m.group(1)) * float(m.group(2)) / 1000, "-", float("nan")
    cmd = [sys.executable, str(ROOT / "benchmarks" / "bench_sim_workloads.py"), name, "--json"]
    if name == "calib":
        cmd += ["--goals", str(args.goals)]
    else:
        cmd += ["--steps", str(args.steps if name == "aesop" else args.proof_steps)]
    if args.cpu:
        cmd.append("--cpu")
    proc = subprocess.run(
        cmd, cwd=tempfile.gettempdir(), env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"{name} failed on {tree}:\n{proc.stderr[-3000:]}")
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    if Path(data["tree"]).resolve() != tree.resolve():
        raise SystemExit(f"{name} ran the simulator of {data['tree']}, not of {tree}")
    times = data["times"]
    figure = sum(times) if name == "calib" else statistics.median(times)
    return figure, data["digest"], statistics.median(times[:300])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref", default="main", help="the git ref to compare with (the tree before the change)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workloads", default=WORKLOADS, help=f"comma-separated, of {WORKLOADS},speed")
    ap.add_argument("--steps", type=int, default=6000, help="aesop: steps per run")
    ap.add_argument("--proof-steps", type=int, default=600, help="proof: steps per run")
    ap.add_argument("--goals", type=int, default=300, help="calib: the first N test goals")
    ap.add_argument("--cpu", action="store_true", help="time with each process's CPU clock")
    args = ap.parse_args()
    names = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = [w for w in names if w not in (*WORKLOADS.split(","), "speed")]
    if unknown or args.rounds < 1:
        ap.error(f"unknown workload {unknown[0]!r}" if unknown else "--rounds must be at least 1")
    clock = "CPU" if args.cpu else "wall"
    print(
        f"simulator speed, {args.ref} vs this tree (backend: sim; simulator figures, not Lean); {clock} clock"
    )
    print(f"load before: {_uptime()}")
    with tempfile.TemporaryDirectory() as tmp:
        ref_tree = Path(tmp)
        archive = subprocess.run(
            ["git", "archive", args.ref, "lean_gym", "benchmarks"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        tar_path = ref_tree / "ref.tar"
        tar_path.write_bytes(archive)
        with tarfile.open(tar_path) as tar:
            tar.extractall(ref_tree, filter="data")
        results: dict[str, dict[str, list[float]]] = {w: {"ref": [], "this": []} for w in names}
        early: dict[str, dict[str, list[float]]] = {w: {"ref": [], "this": []} for w in names}
        digests: dict[str, dict[str, set[str]]] = {w: {"ref": set(), "this": set()} for w in names}
        for r in range(args.rounds):
            for w in names:
                order = [("ref", ref_tree), ("this", ROOT)]
                for side, tree in order if r % 2 == 0 else order[::-1]:
                    fig, dig, first = _workload(tree, w, args)
                    results[w][side].append(fig)
                    early[w][side].append(first)
                    digests[w][side].add(dig)
            print(f"  round {r + 1}/{args.rounds} done; load: {_uptime().split('load average:')[-1].strip()}")
    print(f"load after: {_uptime()}")
    what = {"aesop": "median step", "calib": "total", "proof": "median step", "speed": "total"}
    for w in names:
        ref, this = results[w]["ref"], results[w]["this"]
        mr, mt = statistics.median(ref), statistics.median(this)
        unit, scale = ("ms", 1000) if what[w] == "median step" else ("s", 1)
        same = digests[w]["ref"] == digests[w]["this"]
        print(
            f"{w:6s} {what[w]:11s}: {args.ref} median {scale * mr:9.2f} {unit} {[round(scale * x, 2) for x in ref]} | "
            f"this tree median {scale * mt:9.2f} {unit} {[round(scale * x, 2) for x in this]} | "
            f"ref/this = {mr / mt:5.2f}x | verdicts {'identical' if same else 'DIFFER'}"
            f" {sorted(digests[w]['ref'])} vs {sorted(digests[w]['this'])}"
        )
        if w == "aesop":
            er, et = statistics.median(early[w]["ref"]), statistics.median(early[w]["this"])
            print(
                f"{'':6s} first 300 steps' median: {args.ref} {1000 * er:.2f} ms | this tree {1000 * et:.2f} ms |"
                f" ref/this = {er / et:5.2f}x"
            )


if __name__ == "__main__":
    main()
