"""Prompt text: a theorem as a model sees it, the first chat turn, and the feedback on a rejected attempt.

One module for every caller that writes text for a policy: ``LeanProof-v0`` and ``LeanHackable-v0``
(observations and multi-turn feedback) and the TRL integration (GRPO prompts), so the env and a trainer
built on it show a model the same words.

Example:
    >>> from lean_gym.grading import as_target
    >>> t = as_target({"name": "t", "formal_statement": "theorem t : 1 = 1 := by", "informal": "One is one."})
    >>> print(theorem_prompt(t), end="")
    /-- One is one. -/
    theorem t : 1 = 1 := by
    >>> prompt_messages(t)[0]["role"]
    'user'
"""

from __future__ import annotations

import json

from lean_gym.grading.oracle import Verdict, checker
from lean_gym.grading.statement import TargetTheorem

__all__ = ["CHAT_INSTRUCTION", "decode_observation", "feedback_text", "prompt_messages", "theorem_prompt"]

#: The instruction in front of the theorem in the first chat turn.
CHAT_INSTRUCTION = (
    "Complete the following Lean 4 code. Reply with the tactic block that follows `:= by`, or with the "
    "whole theorem (same name and statement); a ```lean4 code block is fine."
)


def theorem_prompt(theorem: TargetTheorem) -> str:
    """The theorem as a model sees it: header, informal statement (as a doc comment), formal statement."""
    informal = theorem.informal.strip()
    if informal and not informal.startswith("/-"):
        informal = f"/-- {informal} -/"
    body = "\n".join(p for p in (informal, theorem.formal_statement.rstrip("\n")) if p)
    header = theorem.header.rstrip("\n")
    return (f"{header}\n\n{body}" if header else body) + "\n"


def prompt_messages(theorem: TargetTheorem) -> list[dict[str, str]]:
    """The first chat turn: ``[{"role": "user", "content": …}]``, ready for ``apply_chat_template``."""
    content = f"{CHAT_INSTRUCTION}\n\n```lean4\n{theorem_prompt(theorem)}```"
    return [{"role": "user", "content": content}]


def decode_observation(observation: str) -> str | list[dict[str, str]]:
    """A chat observation (JSON text) as a list of ``{"role", "content"}`` dicts; text is returned as is.

    Example:
        >>> decode_observation('[{"role": "user", "content": "hi"}]')
        [{'role': 'user', 'content': 'hi'}]
        >>> decode_observation("theorem t : True := by")
        'theorem t : True := by'
    """
    if observation.startswith("[{"):
        try:
            value = json.loads(observation)
        except json.JSONDecodeError:
            return observation
        if isinstance(value, list):
            return value
    return observation


def feedback_text(turn: int, max_turns: int, verdict: Verdict, submission: str, limit: int) -> str:
    """The feedback on a rejected attempt: verdict, Lean's messages with positions, the attempt itself.

    Args:
        turn: The attempt's number (1-based).
        max_turns: Attempts in the episode.
        verdict: The verdict that drives the episode (the oracle's, or a hackable env's weak grader's).
        submission: The attempt as checked.
        limit: Cut Lean's messages to this many characters.
    """
    label = f" ({verdict.hack_class})" if verdict.hack_class else ""
    lines = [f"Attempt {turn} of {max_turns} was rejected{label}: {verdict.reason}"]
    if verdict.check is not None and verdict.check.messages:
        who = checker(verdict.check)  # "Lean" on real Lean, "the simulator" on sim: never passed off as Lean
        lines.append(f"{who[0].upper()}{who[1:]}'s messages (line:column in the attempt below):")
        lines.append(verdict.check.messages_text(limit))
    lines.append(f"Attempt {turn}:")
    lines.append(submission.rstrip("\n"))
    return "\n".join(lines)
