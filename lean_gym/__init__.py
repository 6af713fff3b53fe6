"""lean-gym: Gymnasium environments for reinforcement learning on Lean 4 theorem proving.

Importing the package registers ``LeanAesop-v0``, ``LeanAesop-v1``, ``LeanProof-v0`` and
``LeanHackable-v0`` with Gymnasium.
"""

__version__ = "0.1.0"

from lean_gym import envs as _envs  # noqa: F401  (registers the environment ids)
