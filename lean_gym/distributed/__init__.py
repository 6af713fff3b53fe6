"""The same :class:`~lean_gym.backends.Backend` over a Ray cluster (the ``ray`` extra).

``RayBackend`` runs Ray actors, each holding a backend (a ``ReplPool`` of real Lean or of the simulator's
protocol server) on its node; every env, vector env, ``eval``, ``bench`` and agent uses it unchanged. See
``docs/scale-out.md``.
"""

from lean_gym.distributed.ray_backend import RayBackend, RayStats, plan_batch

__all__ = ["RayBackend", "RayStats", "plan_batch"]
