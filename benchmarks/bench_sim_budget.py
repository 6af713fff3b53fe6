"""Budgets a submission cannot switch off (issue 9): what adversarial scripts are charged and how they end.

Each script runs under ``set_option maxHeartbeats 0`` (Lean's "unlimited"), the way a policy would try to
switch its budget off. For each one this prints the simulated heartbeats charged, the budget in force,
the wall time, and how the tactic run ended; then the ``LeanProof-v0`` verdict of the first one (issue 9's
script: it took 57 s in one step and was accepted). Run it against another checkout to compare::

    python benchmarks/bench_sim_budget.py
    PYTHONPATH=/path/to/old/checkout python benchmarks/bench_sim_budget.py

Every figure comes from the simulator (backend ``sim``), not from Lean. Wall times depend on the machine.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym

import lean_gym
from lean_gym.sim.elab import Env
from lean_gym.sim.tactics import TacticContext, TacticError, goal_from_statement, run_tactic_on_goals

STMT = "(x : Nat) (h : x = 1) : x + 1 = 2"  # Lean core: no header needed


def scripts(n: int, empty: int) -> dict[str, tuple[str, str]]:
    return {
        f"iterate {n} have := h; simp_all": (STMT, f"iterate {n} have := h\nsimp_all"),
        f"iterate {n} have := h; simp at *": (STMT, f"iterate {n} have := h\nsimp at *"),
        f"iterate {empty} (empty); simp [h]": (STMT, f"iterate {empty}\nsimp [h]"),
        "iterate 20 (try nlinarith) on ^12": (
            "(a b c d : ℝ) (h : 0 < a) : (a + b + c + d) ^ 12 = 0",
            "iterate 20 (try nlinarith)",
        ),
    }


def run_one(stmt: str, script: str) -> tuple[int, int, float, str]:
    env = Env(options={"maxHeartbeats": 0})
    goal = goal_from_statement(stmt, TacticContext(env=env))
    ctx = TacticContext(env=env)
    t0 = time.perf_counter()
    try:
        rest = run_tactic_on_goals([goal], script, ctx, recover=True)
        end = "goal closed" if not rest else f"{len(rest)} goal(s) left"
    except TacticError as e:
        end = e.message.splitlines()[0]
    except RecursionError:
        end = "maximum recursion depth"
    limit = getattr(ctx, "_limit", 0)
    return ctx.heartbeats, limit, time.perf_counter() - t0, end


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=5000, help="`have`s in the first scripts (issue 9: 5000)")
    ap.add_argument("--empty", type=int, default=10**9, help="rounds of the `iterate` over an empty body")
    args = ap.parse_args()
    print(f"lean_gym from {lean_gym.__file__}")
    print(f"{'script':38s} {'heartbeats':>11s} {'budget':>9s} {'wall s':>7s}  end")
    for label, (stmt, script) in scripts(args.n, args.empty).items():
        spent, limit, wall, end = run_one(stmt, script)
        print(f"{label:38s} {spent:11d} {limit:9d} {wall:7.2f}  {end[:90]}")
    thm = {"name": "t", "formal_statement": f"theorem t {STMT} := by\n"}
    env = gym.make("LeanProof-v0", backend="sim", theorems=[thm])
    env.reset(seed=0)
    action = (
        f"set_option maxHeartbeats 0 in\ntheorem t {STMT} := by\n  iterate {args.n} have := h\n  simp_all"
    )
    t0 = time.perf_counter()
    _, reward, _, _, info = env.step(action)
    wall = time.perf_counter() - t0
    timeout = getattr(env.unwrapped, "timeout", None)
    print(
        f"LeanProof-v0 step (env timeout={timeout}): reward {reward:+.0f}, status {info['status']}, "
        f"hack_class {info['hack_class']}, backend {info['backend']}, {wall:.2f} s"
    )
    env.close()


if __name__ == "__main__":
    main()
