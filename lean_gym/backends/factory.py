"""Deprecated home of :func:`make_backend` and friends: they live in :mod:`lean_gym.backends.registry`.

Importable from here as before (and from :mod:`lean_gym.backends`, where new code should take them).
"""

from __future__ import annotations

from lean_gym.backends.registry import BACKEND_NAMES, check_backend_spec, make_backend, real_lean_available

__all__ = ["BACKEND_NAMES", "check_backend_spec", "make_backend", "real_lean_available"]
