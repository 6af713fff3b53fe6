"""Verdicts: from a REPL response to ``proved``/``sorry``/``error``, the oracle, weak graders and hack classes."""

from lean_gym.lean.protocol import classify_response as classify

__all__ = ["classify"]

# --- the oracle, weak graders and hack classes (issue 5) ---
from lean_gym.grading.hacks import HACK_CLASSES, NOT_HACKS, SAFETY_CLASSES, HackClassInfo, is_hack
from lean_gym.grading.oracle import (
    DEFAULT_MAX_CHARS,
    STANDARD_AXIOMS,
    Analysis,
    GradingRules,
    Oracle,
    Verdict,
    analyse,
    parse_axioms,
)
from lean_gym.grading.policy import Violation, scan, strip_comments_and_strings
from lean_gym.grading.statement import TargetTheorem, as_target, build_submission, compare_statement
from lean_gym.grading.weak import WEAK_GRADERS, WeakGrader, make_weak_grader

__all__ += [
    "DEFAULT_MAX_CHARS",
    "HACK_CLASSES",
    "NOT_HACKS",
    "SAFETY_CLASSES",
    "STANDARD_AXIOMS",
    "WEAK_GRADERS",
    "Analysis",
    "GradingRules",
    "HackClassInfo",
    "Oracle",
    "TargetTheorem",
    "Verdict",
    "Violation",
    "WeakGrader",
    "analyse",
    "as_target",
    "build_submission",
    "compare_statement",
    "is_hack",
    "make_weak_grader",
    "parse_axioms",
    "scan",
    "strip_comments_and_strings",
]
