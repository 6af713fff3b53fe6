"""Deprecated: what the environments share now lives in modules with one idea each.

* :class:`~lean_gym.envs.TheoremEnv` (the base env): :mod:`lean_gym.envs.base`;
* :data:`RESET_OPTIONS`, :func:`reset_index` (reset options): :mod:`lean_gym.envs.options`;
* :func:`as_theorem`, :func:`env_theorems` (theorem records): :mod:`lean_gym.data.records`
  (``env_theorems`` is :func:`~lean_gym.data.records.theorem_list`);
* :func:`resolve_backend` (which backend, and who closes it): :mod:`lean_gym.backends.lazy`;
* :class:`VerdictCache`: :mod:`lean_gym.backends.cache`.

Every name stays importable from here.
"""

from __future__ import annotations

from lean_gym.backends.cache import VerdictCache
from lean_gym.backends.lazy import resolve_backend
from lean_gym.data.records import as_theorem
from lean_gym.data.records import theorem_list as env_theorems
from lean_gym.envs.base import ActT, ObsT, TheoremEnv
from lean_gym.envs.options import RESET_OPTIONS, reset_index

__all__ = [
    "RESET_OPTIONS",
    "ActT",
    "ObsT",
    "TheoremEnv",
    "VerdictCache",
    "as_theorem",
    "env_theorems",
    "reset_index",
    "resolve_backend",
]
