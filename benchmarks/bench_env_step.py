"""Median time of one env step, per env: the env layer alone (an instant backend) and on the simulator.

The instant backend answers every check at once (an ``error``), so its figures are the env layer and the
verdict pipeline themselves (analysis, plan, cache, conclusion, info); the ``sim`` figures add the in-process
simulator's check. The verdict cache is off (``cache_size=0``): every step checks. Prints one JSON object,
``"env|backend|mode": median microseconds per step``.

To compare two checkouts, run it with each one's Python alternately in one session and take the medians
of the repeats (what issue 23's note reports)::

    for r in 1 2 3 4 5; do
        (cd ../main && .venv/bin/python ../i23a/benchmarks/bench_env_step.py)
        .venv/bin/python benchmarks/bench_env_step.py
    done
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import gymnasium as gym

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.backends import CheckResult

PROOFS = ("  omega", "  simp", "  sorry", "  rfl", "  nlinarith [sq_nonneg a]", "  linarith", "  norm_num")
#: (env id, backend, steps, vector of 4?)
CONFIGS = (
    ("LeanAesop-v0", "instant", 3000, False),
    ("LeanProof-v0", "instant", 3000, False),
    ("LeanHackable-v0", "instant", 3000, False),
    ("LeanProof-v0", "instant", 1000, True),
    ("LeanAesop-v0", "sim", 300, False),
    ("LeanProof-v0", "sim", 500, False),
    ("LeanHackable-v0", "sim", 500, False),
)


class Instant:
    """A backend that does no work: every check is an ``error`` at once."""

    name = "instant"

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        return CheckResult("error", backend=self.name)

    def check_batch(self, codes: Any, *, header: Any = "", timeout: float | None = None) -> list[CheckResult]:
        return [self.check(c) for c in codes]

    def close(self) -> None:
        pass


def median_step_us(env_id: str, backend: str, steps: int, vector: bool) -> float:
    """The median wall time of one ``step`` over ``steps`` steps (split ``test``, seeded)."""
    kwargs: dict[str, Any] = {"backend": Instant() if backend == "instant" else backend, "split": "test"}
    kwargs["cache_size"] = 0
    env: Any = (
        gym.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point", **kwargs)
        if vector
        else gym.make(env_id, **kwargs)
    )
    env.action_space.seed(0)
    env.reset(seed=0)
    times = []
    for k in range(steps):
        if env_id.startswith("LeanAesop"):
            action: Any = env.action_space.sample()
        elif vector:
            action = [PROOFS[(k + i) % len(PROOFS)] for i in range(4)]
        else:
            action = PROOFS[k % len(PROOFS)]
        t0 = time.perf_counter()
        out = env.step(action)
        times.append(time.perf_counter() - t0)
        if not vector and (out[2] or out[3]):
            env.reset()
    env.close()
    return statistics.median(times) * 1e6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scale", type=float, default=1.0, help="multiply every config's step count")
    args = p.parse_args()
    out = {
        f"{e}|{b}|{'vec4' if v else 'single'}": round(median_step_us(e, b, max(1, int(s * args.scale)), v), 1)
        for e, b, s, v in CONFIGS
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
