"""Deprecated: the demo is :mod:`lean_gym_agents.demo` (it trains a reference agent, so it lives with them).

``from lean_gym.demo import run_demo`` still works (with a ``DeprecationWarning``); the names are resolved
when asked for, so that nothing in ``lean_gym`` imports the agents package.
"""

from __future__ import annotations

import warnings
from typing import Any

from lean_gym.backends.registry import load_entry_point

__all__ = ["candidate_actions", "goal_context", "run_demo"]  # noqa: F822  (resolved by __getattr__)

#: Where the demo lives now.
DEMO_MODULE = "lean_gym_agents.demo"


def __getattr__(name: str) -> Any:
    if name in __all__ or name == "_plot":
        warnings.warn(
            f"lean_gym.demo is deprecated: import {name} from {DEMO_MODULE}", DeprecationWarning, stacklevel=2
        )
        return load_entry_point(f"{DEMO_MODULE}:{name}", what="the demo")
    raise AttributeError(f"module 'lean_gym.demo' has no attribute {name!r}")
