"""``info["reason"]`` and the multi-turn feedback name the checker that spoke: Lean, or the simulator (issue 19)."""

from __future__ import annotations

import gymnasium as gym
import pytest

import lean_gym  # noqa: F401  (registers the env ids)
from lean_gym.backends import CheckResult
from lean_gym.grading.oracle import GradingRules, analyse, checker, conclude
from lean_gym.grading.statement import as_target, build_submission
from lean_gym.lean.protocol import Message, Position

THM = {"name": "t", "formal_statement": "theorem t (a b : Nat) : a + b = b + a := by\n"}


RULES = GradingRules("oracle")


def _verdict(backend: str, status: str):  # type: ignore[no-untyped-def]
    """The oracle's conclusion on a check of ``status`` (an error at 3:2) that backend ``backend`` gave."""
    msgs = (Message("error", Position(3, 2), None, "unsolved goals"),) if status == "error" else ()
    submission = build_submission(as_target(THM), "  simp")
    return conclude(analyse(THM, submission), CheckResult(status, msgs, (), 0.0, backend), RULES)


@pytest.mark.parametrize(
    ("backend", "who"),
    [
        ("sim", "the simulator"),
        ("sim-repl", "the simulator"),
        ("ray:sim-repl", "the simulator"),
        ("repl:v4.27.0", "Lean"),
        ("ray:repl", "Lean"),
        ("scripted", "the scripted backend"),
    ],
)
def test_the_reason_names_the_checker(backend: str, who: str) -> None:
    v = _verdict(backend, "error")
    assert v.hack_class == "proof_error" and v.reason == f"{who} reports an error at 3:2: unsolved goals"
    check = CheckResult("error", (), (), 0.0, backend)
    assert checker(check) == who


def test_a_sorry_and_a_crash_name_the_checker_too() -> None:
    v = _verdict("sim", "sorry")
    assert v.reason.startswith("the simulator reports a `sorry`")
    v = _verdict("repl:v4.27.0", "crashed")
    assert v.reason == "the Lean process died during the check"


def test_on_the_simulator_no_env_says_lean_spoke() -> None:
    env = gym.make("LeanProof-v0", backend="sim", theorems=[THM], max_turns=2)
    obs, _ = env.reset(seed=0)
    obs, reward, _, _, info = env.step("  exact rfl")
    assert reward < 0 and info["reason"].startswith("the simulator reports an error at ")
    assert "Lean" not in info["reason"]
    assert "The simulator's messages (line:column in the attempt below):" in str(obs)
    assert "Lean's messages" not in str(obs)
