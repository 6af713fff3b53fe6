"""Checks lost or answered twice when RayBackend actors are killed in the middle of batches.

On a local Ray, each round sends one batch of distinct checks (the simulator's test theorems, each with one of
several tactics; some prove, most fail, so a misplaced answer shows) to a RayBackend and kills one of its actors with ``ray.kill`` part-way
through: once a random number of the batch's checks (at least one chunk, at most half) have been answered. It then compares every answer with the
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
from lean_gym.data import load_theorems, theorem_with_proof
from lean_gym.distributed import RayBackend

TACTICS = ("nlinarith [sq_nonneg 0]", "aesop", "norm_num", "linarith", "omega", "simp")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=5, help="batches, each with one actor killed")
    p.add_argument("--checks", type=int, default=120, help="checks per batch")
    p.add_argument("--actors", type=int, default=2, help="RayBackend actors")
    p.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray")
    p.add_argument("--max-chunk", type=int, default=8, help="checks per actor task")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    rng = random.Random(args.seed)
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    local = SimBackend()
    theorems = load_theorems("sim", split="test")
    header = theorems[0].header
    totals = dict.fromkeys(
        (
            "asked",
            "answered",
            "lost",
            "twice",
            "wrong",
            "deaths",
            "retried",
            "answered_by_victim_before_death",
        ),
        0,
    )
    backend = RayBackend(
        "sim-repl",
        num_actors=args.actors,
        num_cpus_per_actor=args.cpus / args.actors,
        max_chunk=args.max_chunk,
    )
    print(
        f"RayBackend {backend.name}, {args.actors} actors on a local {args.cpus}-CPU Ray (simulator, not Lean)"
    )
    for r in range(args.rounds):
        picks = [theorems[(r * args.checks + k) % len(theorems)] for k in range(args.checks)]
        codes = [theorem_with_proof(t, "  " + TACTICS[k % len(TACTICS)]) for k, t in enumerate(picks)]
        expected = [local.check(c, header=header).status for c in codes]
        before = (
            backend.stats.answered,
            backend.stats.duplicates,
            backend.stats.actor_deaths,
            backend.stats.retried,
        )
        slot = rng.choice([k for k, a in enumerate(backend.actors) if a is not None])
        victim = backend.actors[slot]
        by_victim = backend.stats.checks_by_actor.get(slot, 0)
        after = rng.randint(args.max_chunk, args.checks // 2)  # answers to wait for: then kill, mid-batch

        def kill(victim: object = victim, after: int = after, start: int = before[0]) -> None:
            while backend.stats.answered - start < after:
                time.sleep(0.001)
            ray.kill(victim, no_restart=True)

        timer = threading.Thread(target=kill)
        timer.start()
        results = backend.check_batch(codes, header=header)
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
            answered_by_victim_before_death=backend.stats.checks_by_actor.get(slot, 0) - by_victim,
        )
        for k, v in row.items():
            totals[k] += v
        print(f"round {r + 1}: " + ", ".join(f"{k} {v}" for k, v in row.items()))
    print("total: " + ", ".join(f"{k} {v}" for k, v in totals.items()))
    backend.close()
    ray.shutdown()


if __name__ == "__main__":
    main()
