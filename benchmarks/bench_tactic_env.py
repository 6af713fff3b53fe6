"""``LeanTactic-v0``: steps per second, the cost of rebuilding a lost proof state, the best-first baseline.

Prints, each figure labelled with the backend that produced it (``sim`` and ``sim-repl`` are the
simulator, not Lean):

1. steps/s = completed steps / wall time, for one env and for N pooled envs (``LeanTacticVectorEnv``) over
   a ``sim-repl`` pool of N processes, and the in-process ``sim`` for reference; every step sends a tactic
   from a fixed cycle of SATP tactics (episodes reset when done or after ``--max-steps``);
2. the cost of rebuilding a proof state at depth d after its process was killed, ``replay`` (re-run the
   path) against ``pickle`` (unpickle the state pickled when it was made): the median ``rebuild_s`` of the
   step after the kill, the median wall time of that whole step (process restart and header included), and
   the median extra cost per step that pickling every new state adds;
3. the best-first baseline (``lean_gym_agents.best_first``): share of theorems proved on the simulator's
   test split and on miniF2F-test statements through the simulator, with its budget.

Run: ``python benchmarks/bench_tactic_env.py [--steps 400] [--n 4] [--repeats 7] [--limit 0]``.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import time
from typing import Any

CYCLE = (
    "norm_num",
    "simp",
    "linarith",
    "ring_nf",
    "omega",
    "positivity",
    "push_neg",
    "norm_cast",
    "simp_all",
)


def bench_steps(backend: Any, theorems: list[Any], n: int, steps: int, max_steps: int) -> float:
    """Completed steps / wall time over ``n`` envs (``n == 1``: a single env, no vector wrapper)."""
    from lean_gym.envs.tactic_env import LeanTacticEnv, LeanTacticVectorEnv

    done = 0
    if n == 1:
        env = LeanTacticEnv(backend=backend, theorems=theorems, max_steps=max_steps)
        env.reset(seed=0)
        t0 = time.perf_counter()
        k = 0
        while done < steps:
            _, _, term, trunc, _ = env.step(CYCLE[k % len(CYCLE)])
            done += 1
            k += 1
            if term or trunc:
                env.reset()
        return done / (time.perf_counter() - t0)
    venv = LeanTacticVectorEnv(n, backend=backend, theorems=theorems, max_steps=max_steps)
    venv.reset(seed=0)
    t0 = time.perf_counter()
    k = 0
    while done < steps:
        resetting = int(venv._autoreset_envs.sum())  # these sub-envs reset (NEXT_STEP) instead of stepping
        venv.step([CYCLE[(k + i) % len(CYCLE)] for i in range(n)])
        done += n - resetting
        k += 1
    wall = time.perf_counter() - t0
    venv.close()
    return done / wall


def bench_rebuild(backend_name: str, depth: int, mode: str, repeats: int) -> dict[str, float]:
    """Medians of the rebuild and of the whole step after the state's process was killed."""
    from lean_gym.backends import make_backend
    from lean_gym.backends.tactic import ProofSession

    stmt = "theorem t (a b : ℕ) (h : a = b) : b = a := by"
    rebuild: list[float] = []
    step: list[float] = []
    per_step: list[float] = []
    for _ in range(repeats):
        backend = (
            make_backend(backend_name)
            if backend_name != "sim-repl"
            else make_backend("sim-repl", pool_size=1)
        )
        s = ProofSession(backend, stmt, header="import Mathlib", rebuild=mode)
        s.start()
        state = 0
        for j in range(depth):
            t0 = time.perf_counter()
            state = s.run_tac(state, f"have h{j} : a + {j} = a + {j} := rfl").state  # type: ignore[assignment]
            per_step.append(time.perf_counter() - t0)
        if backend_name == "sim-repl":
            for pid in backend.pool.pids:
                os.kill(pid, signal.SIGKILL)
        else:
            backend._repl = None  # the in-process simulator's analogue of a dead process
        t0 = time.perf_counter()
        out = s.run_tac(state, "exact h.symm")
        step.append(time.perf_counter() - t0)
        if out.kind != "completed" or out.rebuilt is None:
            raise RuntimeError(f"rebuild failed: {out}")
        rebuild.append(out.rebuild_s)
        s.close()
        backend.close()
    return {
        "rebuild_ms": statistics.median(rebuild) * 1e3,
        "step_ms": statistics.median(step) * 1e3,
        "per_step_ms": statistics.median(per_step) * 1e3 if per_step else 0.0,
    }


def bench_baseline(theorems: list[Any], label: str, args: Any) -> None:
    from lean_gym.envs.tactic_env import LeanTacticEnv
    from lean_gym_agents.best_first import BestFirstSearch

    env = LeanTacticEnv(backend="sim", theorems=theorems, timeout=10.0)
    search = BestFirstSearch(args)
    t0 = time.perf_counter()
    proved = opened = calls = 0
    for i in range(len(theorems)):
        r = search.search(env, i)
        proved += r.proved
        calls += r.tactic_calls
        opened += env.session is not None and len(env.session) > 0
    wall = time.perf_counter() - t0
    print(
        f"  {label:<34} proved {proved}/{len(theorems)} = {proved / len(theorems):.1%}"
        f"  (statement opened by the simulator: {opened}; {calls} tactics, {wall:.0f} s, backend sim)"
    )
    env.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=400)
    p.add_argument("--n", type=int, default=4)
    p.add_argument("--max-steps", type=int, default=8)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--limit", type=int, default=0, help="theorems per baseline test set (0: all)")
    p.add_argument("--skip", default="", help="comma list of sections to skip: steps,rebuild,baseline")
    a = p.parse_args()
    skip = set(filter(None, a.skip.split(",")))

    from lean_gym.backends import make_backend
    from lean_gym.data import load_theorems
    from lean_gym.errors import DatasetNotFoundError

    test = load_theorems("sim", split="test")
    print(f"LeanTactic-v0 benchmark ({os.cpu_count()} CPUs; simulator backends are not Lean)")
    if "steps" not in skip:
        print(
            f"1. steps/s = completed steps / wall ({a.steps} steps, tactics cycling over {len(CYCLE)} SATP tactics)"
        )
        sim = make_backend("sim")
        print(f"  sim (in process), 1 env           {bench_steps(sim, test, 1, a.steps, a.max_steps):8.1f}")
        sim.close()
        pool1 = make_backend("sim-repl", pool_size=1)
        print(f"  sim-repl pool 1, 1 env            {bench_steps(pool1, test, 1, a.steps, a.max_steps):8.1f}")
        pool1.close()
        pool = make_backend("sim-repl", pool_size=a.n)
        pool.warm(test[0].header)
        rate = bench_steps(pool, test, a.n, a.steps, a.max_steps)
        print(f"  sim-repl pool {a.n}, {a.n} pooled envs   {rate:8.1f}")
        pool.close()
    if "rebuild" not in skip:
        print(f"2. rebuilding a state after its process was killed (medians of {a.repeats})")
        print("  backend   depth  mode     rebuild ms  step-after-kill ms  step ms (pickling included)")
        for backend_name in ("sim-repl", "sim"):
            for depth in (1, 8, 32):
                for mode in ("replay", "pickle"):
                    r = bench_rebuild(backend_name, depth, mode, a.repeats)
                    print(
                        f"  {backend_name:<9} {depth:>5}  {mode:<7} {r['rebuild_ms']:>10.2f}  "
                        f"{r['step_ms']:>18.2f}  {r['per_step_ms']:>10.2f}"
                    )
    if "baseline" not in skip:
        from lean_gym_agents.best_first import BestFirstArgs

        args = BestFirstArgs()
        print(
            "3. best-first baseline: 24 SATP tactics + apply/rw/simp only with each context lemma and hypothesis;"
            f" budget {args.max_expansions} expansions and {args.max_tactic_calls} tactics per theorem, 10 s per tactic"
        )
        sims = test[: a.limit] if a.limit else test
        bench_baseline(sims, "simulator test split", args)
        try:
            mini = load_theorems("minif2f", split="test")
        except DatasetNotFoundError as e:
            print(f"  miniF2F: skipped ({e})")
        else:
            mini = mini[: a.limit] if a.limit else mini
            bench_baseline(mini, "miniF2F-test through the simulator", args)


if __name__ == "__main__":
    main()
