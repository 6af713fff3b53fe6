"""A stand-in LeanAesop environment, and a recording process for the buffer crash test.

Run as a script, it records steps of :class:`FakeAesopEnv` through :class:`RecordToBuffer` into a buffer file
and prints one line per *completed* step (``STEP <k> <goal_uuid> <action_uuid>``, flushed) before it starts
the next one, so the parent knows exactly which steps returned before it killed the process:

    python tests/buffer_recording_child.py OUT.parquet NUM_STEPS [START]

The environment is a toy with LeanAesop-v0's interface (Dict observation with ``goal``, ``theorem``,
``lemmas``, ``lemma_scores``; SATP v1 ``MultiDiscrete`` actions; ``info`` with ``tactic``, ``action_uuid``,
``goal_uuid``, ``status``, ``backend``, ``elapsed_s``, ``messages``). Its verdict is a fixed rule, not Lean's,
and its backend says so (``"fake"``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

GOALS = (
    "x : ℝ\n⊢ 0 ≤ x ^ 2",
    "a b : ℕ\nh : a ≤ b\n⊢ a ≤ b + 1",
    "n : ℤ\n⊢ n * n ≥ 0",
)
LEMMAS = (
    "sq_nonneg",
    "mul_pos",
    "add_pos",
    "Nat.le_succ_of_le",
    "abs_nonneg",
    "pow_pos",
    "div_pos",
    "sub_nonneg",
)
CHARSET = "".join(sorted(set("".join(GOALS) + "".join(LEMMAS) + "theorem:=by ()_.\n")))


def expected_reward(goal: str, action: Any) -> float:
    """The fake verdict: proved iff the ``norm_num`` safe head (5) is on and head 0 matches the goal's index."""
    a = np.asarray(action)
    return 1.0 if a[5] > 0 and int(a[0]) == GOALS.index(goal) % 5 else -1.0


def action_for_step(k: int) -> np.ndarray:
    """A distinct SATP v1 action for every step number (mixed radix over heads 0, 5, 7..12)."""
    from lean_gym.aesop import layout

    a = layout("satp-v1").default_action()
    for head in (0, 5, 7, 8, 9, 10, 11, 12):
        a[head] = k % 5
        k //= 5
    return a


class FakeAesopEnv(gym.Env):  # type: ignore[type-arg]
    """One-step episodes over :data:`GOALS`, verdicts by :func:`expected_reward`."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}

    def __init__(self) -> None:
        from lean_gym.aesop import layout, uuid16

        self.layout = layout("satp-v1")
        self._uuid16 = uuid16
        self.action_space = spaces.MultiDiscrete(self.layout.nvec)
        self.observation_space = spaces.Dict(
            {
                "goal": spaces.Text(max_length=200, charset=CHARSET),
                "theorem": spaces.Text(max_length=200, min_length=0, charset=CHARSET),
                "lemmas": spaces.Tuple([spaces.Text(max_length=64, charset=CHARSET) for _ in LEMMAS]),
                "lemma_scores": spaces.Box(0.0, 1.0, shape=(8,), dtype=np.float64),
            }
        )
        self._goal = GOALS[0]
        self.steps = 0

    def _obs(self) -> dict[str, Any]:
        return {
            "goal": self._goal,
            "theorem": f"theorem t{GOALS.index(self._goal)} : True := by",
            "lemmas": LEMMAS,
            "lemma_scores": np.linspace(1.0, 0.3, 8),
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        index = (options or {}).get("index")
        self._goal = GOALS[int(self.np_random.integers(len(GOALS))) if index is None else int(index)]
        return self._obs(), {}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self.steps += 1
        tactic = self.layout.render(action, LEMMAS)
        reward = expected_reward(self._goal, action)
        info = {
            "tactic": tactic,
            "action_uuid": self._uuid16(tactic),
            "goal_uuid": self._uuid16(self._goal),
            "status": "proved" if reward > 0 else "error",
            "backend": "fake",
            "elapsed_s": 0.0,
            "messages": (),
        }
        return self._obs(), reward, True, False, info


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from lean_gym.buffers import RecordToBuffer

    path, num_steps = argv[0], int(argv[1])
    start = int(argv[2]) if len(argv) > 2 else 0
    env = RecordToBuffer(FakeAesopEnv(), path)
    env.reset(seed=start)
    for k in range(start, start + num_steps):
        _, _, _, _, info = env.step(action_for_step(k))
        print(f"STEP {k} {info['goal_uuid']} {info['action_uuid']}", flush=True)
        env.reset()
    env.close()
    print("DONE", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
