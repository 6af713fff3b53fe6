"""Find the best static aesop config on a training split and store it (``lean_gym/aesop/best_static.json``).

Coordinate ascent over the heads of the layout (:func:`lean_gym.aesop.search_best_static`), scoring each
candidate action by one ``LeanAesop-v0`` step (cache off, ``max_heartbeats`` 200000) on each of the first
``--n`` theorems of ``--split``. Prints the progress and the action found; ``--write`` stores it as the
package's best static config for that layout and theorem source. Backend: the simulator, not Lean.

Usage::

    python benchmarks/find_best_static.py --jobs 2 --write     # 144 train goals, 3 sweeps (~7 min)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import re
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

_ENV: Any = None


def _init(source: str, split: str, n: int, max_heartbeats: int, layout: str) -> None:
    global _ENV
    from lean_gym.backends.sim import SimBackend
    from lean_gym.envs.aesop_env import LeanAesopEnv

    _ENV = LeanAesopEnv(
        layout=layout,
        backend=SimBackend(),
        source=source,
        split=split,
        cache_size=0,
        max_heartbeats=max_heartbeats,
    )
    if n:
        _ENV.theorems = _ENV.theorems[:n]


def _proved(args: tuple[int, np.ndarray]) -> bool:
    i, action = args
    _ENV.reset(options={"index": i})
    p = _ENV.prepare(action)
    return bool(_ENV.backend.check(p.code, header=p.header).status == "proved")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--layout", default="satp-v1")
    ap.add_argument("--source", default="sim")
    ap.add_argument("--split", default="train")
    ap.add_argument("--n", type=int, default=144)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--sweeps", type=int, default=3)
    ap.add_argument("--max-heartbeats", type=int, default=200_000)
    ap.add_argument(
        "--write", action="store_true", help="store the result in lean_gym/aesop/best_static.json"
    )
    args = ap.parse_args()

    from lean_gym.aesop import layout as get_layout
    from lean_gym.aesop import search_best_static

    init = (args.source, args.split, args.n, args.max_heartbeats, args.layout)
    _init(*init)
    n = len(_ENV.theorems)
    lay = get_layout(args.layout)
    ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
    t0 = time.perf_counter()
    with ctx.Pool(args.jobs, initializer=_init, initargs=init) as pool:
        action, rate = search_best_static(
            lay,
            lambda a: pool.map(_proved, [(i, a) for i in range(n)], chunksize=4),
            sweeps=args.sweeps,
            echo=print,
        )
    print(
        f"backend: sim (the simulator, not Lean); {n} {args.split} theorems; {time.perf_counter() - t0:.0f}s"
    )
    print(f"best static action: {action.tolist()}  success on the search goals: {rate:.1%}")
    print(lay.render(action, [f"<lemma {r}>" for r in range(lay.num_lemmas)]))
    if args.write:
        path = Path(__file__).resolve().parents[1] / "lean_gym" / "aesop" / "best_static.json"
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        data[f"{args.layout}/{args.source}"] = {
            "action": action.tolist(),
            "train_success": round(rate, 4),
            "theorems": args.source,
            "split": args.split,
            "n": n,
            "max_heartbeats": args.max_heartbeats,
            "how": f"coordinate ascent over the heads from the default action, {args.sweeps} sweep(s), "
            "benchmarks/find_best_static.py (simulator)",
        }
        text = json.dumps(data, indent=1)
        # the action on one line (json's indent would give a line per head)
        text = re.sub(
            r'"action": \[([\d,\s]+)\]',
            lambda m: '"action": [' + ", ".join(v.strip() for v in m.group(1).split(",")) + "]",
            text,
        )
        path.write_text(text + "\n", encoding="utf-8")
        print(f"stored in {path}")


if __name__ == "__main__":
    main()
