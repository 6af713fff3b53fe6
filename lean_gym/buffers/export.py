"""Datasets for TRL: DPO (``prompt``/``chosen``/``rejected``) and SFT (``prompt``/``completion``).

Both are TRL's "standard" (non-conversational) format: plain strings, which ``DPOTrainer`` and
``SFTTrainer`` tokenize themselves. The completion is the canonical aesop string the environment runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lean_gym.buffers._errors import import_optional

__all__ = ["PromptFn", "as_hf_dataset", "default_prompt"]

PromptFn = Callable[[str, Sequence[str]], str]


def default_prompt(goal: str, lemmas: Sequence[str]) -> str:
    """The prompt for one goal: the goal state, the ranked lemmas, then the cue for an aesop call.

    Lemma ranks are printed because the aesop string's lemma rules are chosen by rank (SATP v1 heads 24–31).

    Example:
        >>> print(default_prompt("x : ℝ\\n⊢ 0 ≤ x ^ 2", ["sq_nonneg"]))
        Goal state:
        x : ℝ
        ⊢ 0 ≤ x ^ 2
        <BLANKLINE>
        Lemmas (rank: name):
        0: sq_nonneg
        <BLANKLINE>
        Aesop call:
        <BLANKLINE>
    """
    lines = [f"{rank}: {name}" for rank, name in enumerate(lemmas)] or ["(none)"]
    return "Goal state:\n" + goal + "\n\nLemmas (rank: name):\n" + "\n".join(lines) + "\n\nAesop call:\n"


def as_hf_dataset(rows: list[dict[str, Any]], what: str) -> Any:
    """``datasets.Dataset.from_list(rows)``, or a clear error naming the ``hf`` extra."""
    datasets = import_optional("datasets", "hf", what)
    return datasets.Dataset.from_list(rows)
