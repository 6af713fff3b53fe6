"""Checks lost or answered twice when RayBackend actors are killed in the middle of batches.

On a local Ray, each round sends one batch of distinct checks (alternating provable and false statements,
so a misplaced answer shows) to a RayBackend and kills one of its actors with ``ray.kill`` part-way
through, at a random moment within the batch's expected duration. It then compares every answer with the
verdict the same simulator gives locally. Prints, per round and in total: checks asked, answered, lost
(asked − answered), answered twice (``stats.duplicates``), wrong (answer differs from the local verdict),
actor deaths seen and checks retried. The backend is the simulator behind the REPL protocol (not Lean).

Run::

    python benchmarks/bench_ray_faults.py                 # 5 rounds of 120 checks, 2 actors, 2 CPUs
    python benchmarks/bench_ray_faults.py --rounds 20 --checks 400
"""

from __future__ import annotations

import argparse
import random
import threading
import time

import ray

from lean_gym.backends import SimBackend
from lean_gym.distributed import RayBackend

GOOD = "theorem t{0} (a b : ℕ) : a + b + {0} = b + a + {0} := by ring"
BAD = "theorem t{0} : (2 : ℕ) + {0} = 5 + {0} := by norm_num"
HEADER = "import Mathlib"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5, help="batches, each with one actor killed")
    p.add_argument("--checks", type=int, default=120, help="checks per batch")
    p.add_argument("--actors", type=int, default=2, help="RayBackend actors")
    p.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    rng = random.Random(args.seed)
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    local = SimBackend()
    totals = dict(asked=0, answered=0, lost=0, twice=0, wrong=0, deaths=0, retried=0)
    backend = RayBackend(
        "sim-repl", num_actors=args.actors, num_cpus_per_actor=args.cpus / args.actors, max_chunk=8
    )
    print(
        f"RayBackend {backend.name}, {args.actors} actors on a local {args.cpus}-CPU Ray (simulator, not Lean)"
    )
    for r in range(args.rounds):
        base = r * args.checks
        codes = [(GOOD if k % 2 == 0 else BAD).format(base + k) for k in range(args.checks)]
        expected = [local.check(c, header=HEADER).status for c in codes]
        t0 = time.perf_counter()  # an unkilled batch of the same size, to time the kill inside the next
        backend.check_batch(codes, header=HEADER)
        duration = time.perf_counter() - t0
        before = (
            backend.stats.answered,
            backend.stats.duplicates,
            backend.stats.actor_deaths,
            backend.stats.retried,
        )
        victim = rng.choice([a for a in backend.actors if a is not None])
        timer = threading.Timer(
            rng.uniform(0.1, 0.6) * duration, lambda v=victim: ray.kill(v, no_restart=True)
        )
        timer.start()
        results = backend.check_batch(codes, header=HEADER)
        timer.join()
        answered = backend.stats.answered - before[0]
        row = dict(
            asked=len(codes),
            answered=answered,
            lost=len(codes) - answered,
            twice=backend.stats.duplicates - before[1],
            wrong=sum(res.status != exp for res, exp in zip(results, expected)),
            deaths=backend.stats.actor_deaths - before[2],
            retried=backend.stats.retried - before[3],
        )
        for k, v in row.items():
            totals[k] += v
        print(f"round {r + 1}: " + ", ".join(f"{k} {v}" for k, v in row.items()))
    print("total: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    backend.close()
    ray.shutdown()


if __name__ == "__main__":
    main()
