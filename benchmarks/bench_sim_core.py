"""Per-command time of the simulator on one-line proofs (in process, through ``SimRepl.handle``).

Run: ``python benchmarks/bench_sim_core.py`` — prints the median and 99th percentile per proof kind.
A fresh environment is used for each command (no ``env`` chaining), as a checker would do.
"""

from __future__ import annotations

import statistics
import time

from lean_gym.sim import SimRepl

CASES = {
    "linarith": "theorem t (x y : ℝ) (h : x < y) : x ≤ y + 1 := by linarith",
    "linarith (3 hyps)": "theorem t (x y z : ℝ) (h₀ : x + y = 10) (h₁ : x - y = 2) (h₂ : z = x) : z = 6 := by linarith",
    "nlinarith [hint]": "theorem t (a b : ℝ) : 2 * a * b ≤ a ^ 2 + b ^ 2 := by nlinarith [sq_nonneg (a - b)]",
    "positivity": "theorem t (a b : ℝ) (ha : 0 < a) : 0 < a ^ 2 + a + |b| := by positivity",
    "omega": "theorem t (n : ℕ) (h : n % 4 = 3) : n % 2 = 1 := by omega",
    "ring": "theorem t (x y : ℝ) : (x + y) ^ 3 = x ^ 3 + 3 * x ^ 2 * y + 3 * x * y ^ 2 + y ^ 3 := by ring",
    "norm_num": "theorem t : (2 : ℝ) ^ 10 / 4 = 256 := by norm_num",
    "term proof": "theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q := ⟨hp, hq⟩",
    "sorry": "theorem t (x : ℝ) : x = x := by sorry",
    "failing linarith": "theorem t (x y : ℝ) (h : x < y) : y < x := by linarith",
}


def main(n: int = 300) -> None:
    repl = SimRepl()
    print(f"{'case':<20} {'median ms':>10} {'p99 ms':>10}")
    for name, cmd in CASES.items():
        repl.handle({"cmd": cmd})  # warm caches (library parsing, lru caches)
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            repl.handle({"cmd": cmd})
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        print(f"{name:<20} {statistics.median(times):>10.3f} {times[int(0.99 * (n - 1))]:>10.3f}")


if __name__ == "__main__":
    main()
