"""Oracle overhead over a bare check, and multi-turn ``LeanProof-v0`` episode throughput.

Prints, labelled with the backend that produced the verdicts (``sim`` is the simulator, not Lean):

1. per submission, the median wall time of a bare ``backend.check(code, header=...)`` of the same
   submission and of ``Oracle.judge`` (policy scan + statement comparison + the check with ``#print axioms``
   appended + reading the axioms), interleaved in one run, and the ratio of the medians;
2. the median time of the oracle's static part alone (no backend);
3. multi-turn episodes (``max_turns`` attempts, a fixed cycle of tactic blocks) per second and steps per
   second, single env and the pooled vector env.

Run: ``python benchmarks/bench_oracle.py [--backend sim] [--n 60] [--episodes 40] [--max-turns 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

# A fixed retry policy: the attempt k of every episode is TACTICS[k] (the simulator's families each yield to
# one of these; see lean_gym.sim.families).
TACTICS = ("linarith", "positivity", "aesop", "omega", "ring", "norm_cast", "nlinarith [sq_nonneg (x - y)]")


def _median_ms(xs: list[float]) -> float:
    return statistics.median(xs) * 1e3


def bench_overhead(backend: Any, theorems: list[Any], n: int) -> dict[str, float]:
    from lean_gym.grading import Oracle, as_target, build_submission
    from lean_gym.grading.oracle import analyse

    oracle = Oracle(backend)
    bare: list[float] = []
    judged: list[float] = []
    static: list[float] = []
    accepted = 0
    for i in range(n):
        target = as_target(theorems[i % len(theorems)])
        sub = build_submission(target, TACTICS[i % len(TACTICS)])
        # interleave so drift (warm caches, CPU contention) hits both equally
        t0 = time.perf_counter()
        backend.check(sub, header=target.header)
        bare.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        v = oracle.judge(target, sub)
        judged.append(time.perf_counter() - t0)
        accepted += v.accepted
        fresh = sub + "\n"  # a new string, so no cache of an earlier scan helps
        t0 = time.perf_counter()
        analyse(target, fresh)
        static.append(time.perf_counter() - t0)
    return {
        "bare_ms": _median_ms(bare),
        "oracle_ms": _median_ms(judged),
        "ratio": statistics.median(judged) / statistics.median(bare),
        "static_ms": _median_ms(static),
        "accepted": accepted,
    }


def bench_episodes(
    backend: Any, theorems: list[Any], episodes: int, max_turns: int, num_envs: int
) -> dict[str, float]:
    from lean_gym.envs.proof_env import LeanProofEnv, LeanProofVectorEnv

    env = LeanProofEnv(backend=backend, theorems=theorems, max_turns=max_turns, cache_size=0)
    steps = solved = 0
    t0 = time.perf_counter()
    for ep in range(episodes):
        env.reset(seed=ep)
        for turn in range(max_turns):
            _, reward, terminated, _, _ = env.step(TACTICS[turn % len(TACTICS)])
            steps += 1
            if terminated:
                solved += reward > 0
                break
    single = time.perf_counter() - t0

    venv = LeanProofVectorEnv(num_envs, backend=backend, theorems=theorems, max_turns=max_turns, cache_size=0)
    venv.reset(seed=0)
    vsteps = 0
    t1 = time.perf_counter()
    done_eps = 0
    turns = [0] * num_envs
    while done_eps < episodes:
        _, _, term, trunc, infos = venv.step(tuple(TACTICS[t % len(TACTICS)] for t in turns))
        stepped = [int(t) > 0 for t in infos["turn"]]  # turn 0: the sub-env was autoreset on this step
        vsteps += sum(stepped)
        done = term | trunc
        done_eps += int(done.sum())
        turns = [0 if done[i] or not stepped[i] else turns[i] + 1 for i in range(num_envs)]
    vec = time.perf_counter() - t1
    return {
        "episodes_per_s": episodes / single,
        "steps_per_s": steps / single,
        "solved": solved,
        "vec_episodes_per_s": done_eps / vec,
        "vec_steps_per_s": vsteps / vec,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="sim")
    ap.add_argument("--source", default="sim")
    ap.add_argument("--split", default="test")
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--episodes", type=int, default=100)
    ap.add_argument("--max-turns", type=int, default=3)
    ap.add_argument("--num-envs", type=int, default=4)
    args = ap.parse_args()

    from lean_gym.backends import make_backend
    from lean_gym.data import load_theorems

    backend = make_backend(args.backend)
    theorems = list(load_theorems(args.source, split=args.split, limit=max(args.n, args.episodes)))
    print(f"backend={backend.name}  source={args.source}:{args.split}  theorems={len(theorems)}")
    o = bench_overhead(backend, theorems, args.n)
    print(
        f"[{backend.name}] oracle overhead over a bare check (n={args.n}, medians, one run): "
        f"bare {o['bare_ms']:.2f} ms, oracle {o['oracle_ms']:.2f} ms, ratio {o['ratio']:.2f}x; "
        f"static part {o['static_ms']:.3f} ms; accepted {o['accepted']}/{args.n}"
    )
    e = bench_episodes(backend, theorems, args.episodes, args.max_turns, args.num_envs)
    print(
        f"[{backend.name}] LeanProof-v0 max_turns={args.max_turns}: {e['episodes_per_s']:.1f} episodes/s, "
        f"{e['steps_per_s']:.1f} steps/s (single env, solved {e['solved']}/{args.episodes}); "
        f"vector env x{args.num_envs}: {e['vec_episodes_per_s']:.1f} episodes/s, {e['vec_steps_per_s']:.1f} steps/s"
    )
    backend.close()


if __name__ == "__main__":
    main()
