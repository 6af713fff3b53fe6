"""The simulator's speed against another git ref, in one run: ``bench_sim_speed.py`` on both trees.

The ref's ``lean_gym/`` and ``benchmarks/`` are extracted (``git archive``) into a temporary directory and
``bench_sim_speed.py --no-protocol`` runs alternately in that tree and in this one (``--rounds`` times
each, so machine load hits both alike). The figure compared is the total in-process time of the same
checks (cold and warm configs of the test split): the ratio this tree / ref is printed with both medians.
Every figure comes from the simulator, not from Lean.

Usage::

    python benchmarks/bench_sim_speed_vs.py --ref main [--n 300] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_ALL = re.compile(r"in process, all\s+n=\s*(\d+).*?mean\s+([\d.]+) ms")


def _run(tree: Path, n: int) -> float:
    """Total seconds of the in-process checks of one ``bench_sim_speed.py`` run in ``tree``."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run(
        [sys.executable, str(tree / "benchmarks" / "bench_sim_speed.py"), "--no-protocol", "--n", str(n)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    m = _ALL.search(out)
    if m is None:
        raise SystemExit(f"unexpected output from bench_sim_speed.py in {tree}:\n{out}")
    return int(m.group(1)) * float(m.group(2)) / 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref", default="main")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ref_tree = Path(tmp)
        archive = subprocess.run(
            ["git", "archive", args.ref, "lean_gym", "benchmarks"], cwd=ROOT, capture_output=True, check=True
        ).stdout
        tar_path = ref_tree / "ref.tar"
        tar_path.write_bytes(archive)
        with tarfile.open(tar_path) as tar:
            tar.extractall(ref_tree, filter="data")
        ref_t: list[float] = []
        this_t: list[float] = []
        for _ in range(args.rounds):
            ref_t.append(_run(ref_tree, args.n))
            this_t.append(_run(ROOT, args.n))
    r, t = statistics.median(ref_t), statistics.median(this_t)
    print("simulator in-process check time, same checks (backend: sim; simulator, not Lean)")
    print(f"{args.ref:>12s}: median total {r:.2f} s over {args.rounds} runs {[f'{x:.2f}' for x in ref_t]}")
    print(
        f"{'this tree':>12s}: median total {t:.2f} s over {args.rounds} runs {[f'{x:.2f}' for x in this_t]}"
    )
    print(f"ratio this tree / {args.ref}: {t / r:.3f}x (target <= 1.15x)")


if __name__ == "__main__":
    main()
