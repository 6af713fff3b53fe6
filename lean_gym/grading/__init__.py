"""Verdicts: from a REPL response to ``proved``/``sorry``/``error``, the oracle, weak graders and hack classes."""

from lean_gym.lean.protocol import classify_response as classify

__all__ = ["classify"]
