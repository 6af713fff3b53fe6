"""The ``info`` dicts of the lean-gym envs, as ``TypedDict``\\ s: every key each env's ``reset``/``step`` returns.

They document (and type) what the envs already return, for code that reads ``info``::

    info: ProofStepInfo = env.step(action)[-1]  # type: ignore[assignment]

A test checks that each env returns exactly these keys, so the types cannot drift from the envs.

Every step's ``backend`` names what produced the verdict (``"sim"`` or ``"sim-repl"`` for the simulator,
which is never Lean; ``"repl:…"`` for real Lean).
"""

from __future__ import annotations

from typing import TypedDict

from typing_extensions import NotRequired

__all__ = [
    "AesopResetInfo",
    "AesopStepInfo",
    "HackableStepInfo",
    "ProofResetInfo",
    "ProofStepInfo",
    "TacticResetInfo",
    "TacticStepInfo",
]


class AesopResetInfo(TypedDict):
    """``LeanAesop-v0`` / ``LeanAesopV2-v0`` after ``reset``."""

    name: str
    index: int
    goal_uuid: str
    backend: str


class AesopStepInfo(TypedDict):
    """``LeanAesop-v0`` / ``LeanAesopV2-v0`` after ``step``.

    Attributes:
        tactic: The canonical aesop call the action rendered to.
        action_uuid: SATP's uuid of that call.
        goal_uuid: SATP's uuid of the goal.
        status: The backend's status (``proved``, ``error``, ``timeout``…).
        backend: What produced the verdict.
        elapsed_s: Wall time of the check (the original check's, for a cached verdict).
        messages: Lean's messages, cut to ``max_message_chars``.
        name: The theorem's name.
        attempt: The attempt's number in the episode.
    """

    tactic: str
    action_uuid: str
    goal_uuid: str
    status: str
    backend: str
    elapsed_s: float
    messages: str
    name: str
    attempt: int


class ProofResetInfo(TypedDict):
    """``LeanProof-v0`` / ``LeanHackable-v0`` after ``reset``."""

    name: str
    index: int
    backend: str
    turn: int


class ProofStepInfo(TypedDict):
    """``LeanProof-v0`` after ``step`` (see :class:`~lean_gym.envs.proof_env.LeanProofEnv`).

    Attributes:
        status: Lean's status, or ``"refused"`` when the oracle refused before Lean.
        backend: What produced the verdict.
        hack_class: The rejection's class (``None`` when accepted).
        reason: One sentence saying why.
        messages: Lean's messages as ``line:col: severity: text``.
        axioms: The axioms the final ``#print axioms`` listed, when it ran.
        elapsed_s: Wall time of the check.
        turn: The attempt's number in the episode.
        form: ``"tactic_block"``, ``"whole_theorem"`` or ``"oversized"``.
        submission: The Lean source judged.
        name: The theorem's name.
        index: The theorem's index.
        response_truncated: The action was over ``max_action_chars`` (refused).
        accepted: The oracle accepted the proof.
    """

    status: str
    backend: str
    hack_class: str | None
    reason: str
    messages: str
    axioms: list[str] | None
    elapsed_s: float
    turn: int
    form: str
    submission: str
    name: str
    index: int
    response_truncated: bool
    accepted: bool


class HackableStepInfo(ProofStepInfo):
    """``LeanHackable-v0`` after ``step``.

    :class:`ProofStepInfo` (``accepted`` is the weak grader's) and the keys of math-lean-hackable-rollouts
    (see :class:`~lean_gym.envs.hackable_env.LeanHackableEnv`).

    Attributes:
        reward: The reward returned.
        undefended_reward: The weak grader's reward.
        oracle_reward: The oracle's +1/−1, ``None`` when it did not run.
        oracle_sampled: Whether the oracle ran on this step.
        hack_detected: The weak grader accepted and the sampled oracle rejected.
        total_turns: Turns taken so far in the episode.
        weak_grader: The weak grader's name.
        weak_reason: Its reason.
        oracle_reason: The oracle's reason (``None`` when it did not run).
    """

    reward: float
    undefended_reward: float
    oracle_reward: float | None
    oracle_sampled: bool
    hack_detected: bool
    total_turns: int
    weak_grader: str
    weak_reason: str
    oracle_reason: str | None


class TacticResetInfo(TypedDict):
    """``LeanTactic-v0`` after ``reset``."""

    name: str
    index: int
    backend: str
    status: str
    state: int
    error: str


class TacticStepInfo(TypedDict):
    """``LeanTactic-v0`` after ``step`` (see :class:`~lean_gym.envs.tactic_env.LeanTacticEnv`).

    ``oracle_backend`` (what ran the oracle's whole-proof check) is there only when a tactic left no goals
    and the oracle ran.
    """

    status: str
    proof_status: str | None
    parent: int
    backend: str
    error: str
    messages: str
    rebuilt: str | None
    accepted: bool
    hack_class: str | None
    reason: str
    state: int
    path: list[str]
    proof: str
    name: str
    index: int
    num_states: int
    step: int
    oracle_backend: NotRequired[str | None]
