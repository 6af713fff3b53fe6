"""Theorem sets: the simulator's goal families, miniF2F-format JSONL, SATP-schema rows, Hugging Face datasets.

Every source becomes a list of :class:`Theorem` (a frozen dataclass), so environments, agents and
benchmarks see one shape whatever the theorems came from.

Example:
    >>> from lean_gym.data import load_theorems, theorem_with_proof
    >>> thms = load_theorems("sim", split="test", limit=3)
    >>> code = theorem_with_proof(thms[0], "  aesop")
"""

from __future__ import annotations

from pathlib import Path

from lean_gym.data.goal_state import (
    Hypothesis,
    goal_state_text,
    parse_goal_state,
    parse_theorem_form,
    satp_formal_statement,
    satp_prompt,
)
from lean_gym.data.loaders import load_theorems, satp_lean_figures
from lean_gym.data.theorem import Theorem, split_statement, theorem_with_proof

__all__ = [
    "MINIF2F_SAMPLE",
    "Hypothesis",
    "Theorem",
    "goal_state_text",
    "load_theorems",
    "parse_goal_state",
    "parse_theorem_form",
    "satp_formal_statement",
    "satp_lean_figures",
    "satp_prompt",
    "split_statement",
    "theorem_with_proof",
]

#: Path of the 8-row miniF2F sample shipped with the package (4 ``valid``, 4 ``test``; licences in the
#: ``NOTICE`` next to it). The full 488-row file is ``datasets/minif2f.jsonl`` of DeepSeek-Prover-V1.5.
MINIF2F_SAMPLE = str(Path(__file__).parent / "samples" / "minif2f_sample.jsonl")
