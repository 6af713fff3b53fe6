"""Datasets for TRL: DPO (``prompt``/``chosen``/``rejected``) and SFT (``prompt``/``completion``).

Both are TRL's "standard" (non-conversational) format: plain strings, which ``DPOTrainer`` and
``SFTTrainer`` tokenize themselves. The completion is the canonical aesop string the environment runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lean_gym.buffers._errors import import_optional
from lean_gym.buffers.sampling import _Sampling

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


class _Exporting(_Sampling):
    """``to_dpo`` and ``to_sft``."""

    def to_dpo(
        self,
        *,
        mined: bool = False,
        prompt: PromptFn = default_prompt,
        metadata: bool = False,
        as_dataset: bool = False,
    ) -> Any:
        """A TRL-ready DPO dataset: one ``{"prompt", "chosen", "rejected"}`` per 1-diff pair.

        Args:
            mined: Use :meth:`mine_pairs` instead of the stored :meth:`pairs`.
            prompt: Builds the prompt from (goal, lemmas); :func:`~lean_gym.buffers.export.default_prompt`.
            metadata: Add ``goal_uuid`` and ``diff_head`` to each record.
            as_dataset: Return a ``datasets.Dataset`` (needs the ``hf`` extra) instead of a list of dicts.
        """
        table = self.mine_pairs() if mined else self.pairs()
        out: list[dict[str, Any]] = []
        for c, r, h in zip(table.chosen.tolist(), table.rejected.tolist(), table.diff_head.tolist()):
            ctx = int(self._ctx[c])
            rec: dict[str, Any] = {
                "prompt": prompt(self._c_goal[ctx], self._c_lemmas[ctx]),
                "chosen": self._tactic[c],
                "rejected": self._tactic[r],
            }
            if metadata:
                rec["goal_uuid"] = self._c_uuid[ctx]
                rec["diff_head"] = h
            out.append(rec)
        return as_hf_dataset(out, "to_dpo(as_dataset=True)") if as_dataset else out

    def to_sft(
        self,
        *,
        prompt: PromptFn = default_prompt,
        unique: bool = True,
        metadata: bool = False,
        as_dataset: bool = False,
    ) -> Any:
        """A TRL-ready SFT dataset: one ``{"prompt", "completion"}`` per successful row.

        Args:
            prompt: Builds the prompt from (goal, lemmas).
            unique: One record per distinct (goal uuid, action uuid, lemmas).
            metadata: Add ``goal_uuid`` to each record.
            as_dataset: Return a ``datasets.Dataset`` (needs the ``hf`` extra).
        """
        self._flush()
        seen: set[tuple[str, str, tuple[str, ...]]] = set()
        out: list[dict[str, Any]] = []
        for i in np.flatnonzero(self._reward > 0).tolist():
            ctx = int(self._ctx[i])
            key = (self._c_uuid[ctx], self._auuid[i], self._c_lemmas[ctx])
            if unique:
                if key in seen:
                    continue
                seen.add(key)
            rec: dict[str, Any] = {
                "prompt": prompt(self._c_goal[ctx], self._c_lemmas[ctx]),
                "completion": self._tactic[i],
            }
            if metadata:
                rec["goal_uuid"] = self._c_uuid[ctx]
            out.append(rec)
        return as_hf_dataset(out, "to_sft(as_dataset=True)") if as_dataset else out
