"""Lean's recorded behaviour as a corpus of cases, and the runner that holds a backend to it.

``load_cases`` reads the corpus (``cases/``, format in ``FORMAT.md``); ``run_command_cases`` runs its
command cases on any backend and judges each (:class:`CaseResult`); ``tally``/``tally_by`` give the
figures (agreement, cases where the backend is stronger than Lean, message matches).
``run_repl_cases`` (:mod:`~lean_gym.conformance.repl_runner`) replays the REPL transcripts, and
:mod:`~lean_gym.conformance.selftest` is ``lean-gym selftest`` (the corpus and the hack catalogue on any
backend, with thresholds).

Example:
    >>> from lean_gym.conformance import load_cases
    >>> cases = load_cases(["lean4"], ["omega"])
    >>> all(c.family == "omega" and c.id.startswith("lean4.omega.") for c in cases)
    True
"""

from __future__ import annotations

from lean_gym.conformance.corpus import CASES_DIR, SOURCES, Case, load_cases
from lean_gym.conformance.repl_runner import ReplCaseResult, run_repl_cases
from lean_gym.conformance.report import Tally, format_markdown, format_table, tally, tally_by
from lean_gym.conformance.runner import (
    OUTCOMES,
    CaseResult,
    Outcome,
    first_line,
    is_simulator,
    judge,
    message_version,
    normalise_message,
    record_version,
    run_command_cases,
    sim_unread_reason,
    versions_differ,
)

__all__ = [
    "CASES_DIR",
    "OUTCOMES",
    "SOURCES",
    "Case",
    "CaseResult",
    "Outcome",
    "ReplCaseResult",
    "Tally",
    "first_line",
    "format_markdown",
    "format_table",
    "is_simulator",
    "judge",
    "load_cases",
    "message_version",
    "normalise_message",
    "record_version",
    "run_command_cases",
    "run_repl_cases",
    "sim_unread_reason",
    "tally",
    "tally_by",
    "versions_differ",
]
