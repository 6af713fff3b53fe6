"""lean-gym: Gymnasium environments for reinforcement learning on Lean 4 theorem proving.

Importing the package registers ``LeanAesop-v0``, ``LeanAesopV2-v0``, ``LeanProof-v0``, ``LeanHackable-v0``
and ``LeanTactic-v0`` with Gymnasium (and ``LeanAesop-v1``, the deprecated name of ``LeanAesopV2-v0``).
"""

__version__ = "0.1.0"

from lean_gym import envs as _envs  # noqa: F401  (registers the environment ids)
