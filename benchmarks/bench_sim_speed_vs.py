"""The simulator's speed against another git ref, or compiled against pure, in one run: the workloads RL
spends its time on (issue 22).

The ref's ``lean_gym/`` is extracted (``git archive``) into a temporary directory, and
``bench_sim_workloads.py`` (this tree's script, which reads only the public API) times each workload in a
fresh process on that tree and on this one (pure, or compiled where ``make compile-sim`` was run here: each
side's build is printed), alternately (``--rounds`` rounds; the order flips every round, so machine load
hits both sides alike). With ``--compiled`` the two sides are this tree's own ``lean_gym/`` twice, copied
into a temporary directory: once pure, once built there with ``scripts/compile_sim.py`` (the opt-in mypyc
build; needs a C compiler), so the ratio is what the compiled build gains on the same code.

* ``aesop``: random satp-v1 actions on ``LeanAesop-v0``, test split, in-process simulator, verdict cache
  off, each on a random goal (``--steps``, default 6000: the length of SB3's PPO example): the figure is
  the median step (the median of the first 300 steps, before the memo tables have seen most goals, is
  printed beside it);
* ``calib``: the 192-config calibration (``bench_sim_calibration.py``'s checks) on the first ``--goals`` test
  goals: the figure is the total time;
* ``proof``: ``LeanProof-v0`` with a fixed mix of tactic proofs: the median step;
* ``speed`` (only when asked for): the older ``bench_sim_speed.py --no-protocol`` total, run in each tree.

It prints, per workload, both sides' figures over the rounds, their medians, the ratio ref / this tree (how
many times faster this tree is; pure / compiled with ``--compiled``), for the step workloads also the
steps' total time (medians over the rounds; the throughput's ratio, tail included), and whether both trees
gave the same verdicts (a digest of every status and message; the simulator's own figures, not Lean's). ``--cpu`` times with each process's CPU clock instead of
the wall clock (for a machine shared with other work); the load (``uptime``) is printed either way.

Usage::

    python benchmarks/bench_sim_speed_vs.py --ref 0d07032 [--rounds 3] [--workloads aesop,calib,proof]
        [--steps 400] [--proof-steps 600] [--goals 300] [--cpu]
    python benchmarks/bench_sim_speed_vs.py --compiled [--rounds 3] …
"""

from __future__ import annotations

import argparse
import importlib.util
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


def _workload(tree: Path, name: str, args: argparse.Namespace) -> tuple[float, str, float, str, float]:
    """One run of workload ``name`` on ``tree``'s simulator: its figure (seconds), verdict digest, the
    median of its first 300 items, the build that ran (``pure``/``compiled``), and the items' total time."""
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
        total = int(m.group(1)) * float(m.group(2)) / 1000
        return total, "-", float("nan"), "?", total
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
    # a tree older than the compiled build's script prints no build: it is pure
    return figure, data["digest"], statistics.median(times[:300]), data.get("build", "pure"), sum(times)


def _ref_tree(ref: str, into: Path) -> Path:
    """``ref``'s ``lean_gym/`` and ``benchmarks/``, extracted into ``into``."""
    archive = subprocess.run(
        ["git", "archive", ref, "lean_gym", "benchmarks"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    tar_path = into / "ref.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(into, filter="data")
    return into


def _copy_of_this_tree(into: Path, compiled: bool) -> Path:
    """This tree's ``lean_gym/`` and ``benchmarks/`` copied into ``into`` without any compiled extension;
    built there with ``scripts/compile_sim.py`` when ``compiled`` (its ``copy_package``)."""
    spec = importlib.util.spec_from_file_location("compile_sim", ROOT / "scripts" / "compile_sim.py")
    assert spec is not None and spec.loader is not None
    compile_sim = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compile_sim)
    try:
        return compile_sim.copy_package(into, compiled, ("lean_gym", "benchmarks"))
    except RuntimeError as e:
        raise SystemExit(f"{e}\n(a C compiler and mypy are needed)") from None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref", default="main", help="the git ref to compare with (the tree before the change)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workloads", default=WORKLOADS, help=f"comma-separated, of {WORKLOADS},speed")
    ap.add_argument("--steps", type=int, default=6000, help="aesop: steps per run")
    ap.add_argument("--proof-steps", type=int, default=600, help="proof: steps per run")
    ap.add_argument("--goals", type=int, default=300, help="calib: the first N test goals")
    ap.add_argument("--cpu", action="store_true", help="time with each process's CPU clock")
    ap.add_argument(
        "--compiled",
        action="store_true",
        help="compare this tree's pure build with its compiled build (scripts/compile_sim.py), not a ref",
    )
    args = ap.parse_args()
    names = [w.strip() for w in args.workloads.split(",") if w.strip()]
    unknown = [w for w in names if w not in (*WORKLOADS.split(","), "speed")]
    if unknown or args.rounds < 1:
        ap.error(f"unknown workload {unknown[0]!r}" if unknown else "--rounds must be at least 1")
    clock = "CPU" if args.cpu else "wall"
    versus = "pure vs compiled, this tree" if args.compiled else f"{args.ref} vs this tree"
    print(f"simulator speed, {versus} (backend: sim; simulator figures, not Lean); {clock} clock")
    print(f"load before: {_uptime()}")
    with tempfile.TemporaryDirectory() as tmp:
        if args.compiled:
            (Path(tmp) / "pure").mkdir()
            (Path(tmp) / "compiled").mkdir()
            sides = [
                ("pure", _copy_of_this_tree(Path(tmp) / "pure", compiled=False)),
                ("compiled", _copy_of_this_tree(Path(tmp) / "compiled", compiled=True)),
            ]
        else:
            sides = [(args.ref, _ref_tree(args.ref, Path(tmp))), ("this tree", ROOT)]
        labels = [label for label, _ in sides]
        results: dict[str, dict[str, list[float]]] = {w: {s: [] for s in labels} for w in names}
        early: dict[str, dict[str, list[float]]] = {w: {s: [] for s in labels} for w in names}
        totals: dict[str, dict[str, list[float]]] = {w: {s: [] for s in labels} for w in names}
        digests: dict[str, dict[str, set[str]]] = {w: {s: set() for s in labels} for w in names}
        builds: dict[str, set[str]] = {s: set() for s in labels}
        for r in range(args.rounds):
            for w in names:
                for side, tree in sides if r % 2 == 0 else sides[::-1]:
                    fig, dig, first, build, total = _workload(tree, w, args)
                    results[w][side].append(fig)
                    totals[w][side].append(total)
                    early[w][side].append(first)
                    digests[w][side].add(dig)
                    builds[side].add(build)
            print(f"  round {r + 1}/{args.rounds} done; load: {_uptime().split('load average:')[-1].strip()}")
    print(f"load after: {_uptime()}")
    a, b = labels
    print(f"builds: {a} {'/'.join(sorted(builds[a]))}, {b} {'/'.join(sorted(builds[b]))}")
    what = {"aesop": "median step", "calib": "total", "proof": "median step", "speed": "total"}
    for w in names:
        ref, this = results[w][a], results[w][b]
        mr, mt = statistics.median(ref), statistics.median(this)
        unit, scale = ("ms", 1000) if what[w] == "median step" else ("s", 1)
        same = digests[w][a] == digests[w][b]
        print(
            f"{w:6s} {what[w]:11s}: {a} median {scale * mr:9.2f} {unit} {[round(scale * x, 2) for x in ref]} | "
            f"{b} median {scale * mt:9.2f} {unit} {[round(scale * x, 2) for x in this]} | "
            f"{a}/{b} = {mr / mt:5.2f}x | verdicts {'identical' if same else 'DIFFER'}"
            f" {sorted(digests[w][a])} vs {sorted(digests[w][b])}"
        )
        if w == "aesop":
            er, et = statistics.median(early[w][a]), statistics.median(early[w][b])
            print(
                f"{'':6s} first 300 steps' median: {a} {1000 * er:.2f} ms | {b} {1000 * et:.2f} ms |"
                f" {a}/{b} = {er / et:5.2f}x"
            )
        if what[w] == "median step":  # throughput: the steps' whole time, the mean and the tail included
            tr, tt = statistics.median(totals[w][a]), statistics.median(totals[w][b])
            print(
                f"{'':6s} all steps' total time: {a} {tr:.2f} s | {b} {tt:.2f} s | {a}/{b} = {tr / tt:5.2f}x"
            )


if __name__ == "__main__":
    main()
