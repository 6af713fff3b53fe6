"""Verdicts: the one pipeline from a submission to the oracle's (and a weak grader's) judgement.

The public entry of the verdict pipeline, for every caller (the envs, the vector envs, ``lean-gym eval``,
the TRL reward, the services): :meth:`Oracle.plan` analyses a submission under the oracle's rules and says
which checks Lean must run; :meth:`Plan.conclude` turns their results into a :class:`Verdict`;
:meth:`Oracle.judge_batch` does all three for many submissions in one ``check_batch``. A
:class:`VerdictCache` answers repeated checks. See :mod:`lean_gym.grading.plan`.

Example:
    >>> from lean_gym.backends import SimBackend
    >>> from lean_gym.grading import Oracle
    >>> thm = {"name": "t", "formal_statement": "theorem t (a b : Nat) : a + b = b + a := by"}
    >>> [v.hack_class for v in Oracle(SimBackend()).judge_batch([(thm, "theorem t (a b : Nat) : "
    ...     "a + b = b + a := by\\n  omega"), (thm, "theorem t (a b : Nat) : a + b = b + a := by\\n  sorry")])]
    [None, 'sorry']
"""

from lean_gym.backends.base import CheckRequest
from lean_gym.backends.cache import VerdictCache
from lean_gym.grading.hacks import HACK_CLASSES, NOT_HACKS, SAFETY_CLASSES, HackClassInfo, is_hack
from lean_gym.grading.oracle import (
    DEFAULT_MAX_CHARS,
    STANDARD_AXIOMS,
    Analysis,
    GradingRules,
    Oracle,
    Verdict,
    analyse,
    checker,
    conclude,
    parse_axioms,
)
from lean_gym.grading.plan import Grader, Plan
from lean_gym.grading.policy import Violation, scan, strip_comments_and_strings
from lean_gym.grading.statement import TargetTheorem, as_target, build_submission, compare_statement
from lean_gym.grading.weak import WEAK_GRADERS, WeakGrader, WeakGraderFn, make_weak_grader
from lean_gym.lean.protocol import classify_response as classify

__all__ = [
    "DEFAULT_MAX_CHARS",
    "HACK_CLASSES",
    "NOT_HACKS",
    "SAFETY_CLASSES",
    "STANDARD_AXIOMS",
    "WEAK_GRADERS",
    "Analysis",
    "CheckRequest",
    "Grader",
    "GradingRules",
    "HackClassInfo",
    "Oracle",
    "Plan",
    "TargetTheorem",
    "Verdict",
    "VerdictCache",
    "Violation",
    "WeakGrader",
    "WeakGraderFn",
    "analyse",
    "as_target",
    "build_submission",
    "checker",
    "classify",
    "compare_statement",
    "conclude",
    "is_hack",
    "make_weak_grader",
    "parse_axioms",
    "scan",
    "strip_comments_and_strings",
]
