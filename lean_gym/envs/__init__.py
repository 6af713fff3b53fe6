r"""Registration of every lean-gym environment id (only ``register`` calls live here).

The extension API is importable from here without importing any env: :class:`TheoremEnv` (the base of a
new env, :mod:`lean_gym.envs.base`), :class:`PooledVectorEnv` (its vector env, :mod:`lean_gym.envs.vector`)
and the ``info`` dicts of each env as ``TypedDict``\ s (:mod:`lean_gym.envs.info`).
"""

from typing import Any

from gymnasium import registry
from gymnasium.envs.registration import register

_PUBLIC = {
    "TheoremEnv": "lean_gym.envs.base",
    "PooledVectorEnv": "lean_gym.envs.vector",
    "AesopStepInfo": "lean_gym.envs.info",
    "ProofStepInfo": "lean_gym.envs.info",
    "HackableStepInfo": "lean_gym.envs.info",
    "TacticStepInfo": "lean_gym.envs.info",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str) -> Any:
    # Lazy, so that registering the ids imports no env (gymnasium imports an env at gym.make).
    if name in _PUBLIC:
        import importlib

        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'lean_gym.envs' has no attribute {name!r}")


# Two action layouts are two envs, not two versions of one (a version is new behaviour of the same env):
# SATP's v1 layout is LeanAesop-v0, its v2 layout LeanAesopV2-v0.
register(
    id="LeanAesop-v0",
    entry_point="lean_gym.envs.aesop_env:LeanAesopEnv",
    vector_entry_point="lean_gym.envs.aesop_env:LeanAesopVectorEnv",
    kwargs={"layout": "satp-v1"},
)
register(
    id="LeanAesopV2-v0",
    entry_point="lean_gym.envs.aesop_env:LeanAesopEnv",
    vector_entry_point="lean_gym.envs.aesop_env:LeanAesopVectorEnv",
    kwargs={"layout": "satp-v2"},
)
# The old name of LeanAesopV2-v0, kept as a deprecated alias (it warns once). Its spec carries no version:
# gymnasium would otherwise take it for a newer LeanAesop-v0 and warn that v0 is "out of date".
register(
    id="LeanAesop-v1",
    entry_point="lean_gym.envs.aesop_env:deprecated_aesop_v1",
    vector_entry_point="lean_gym.envs.aesop_env:deprecated_aesop_v1_vector",
    kwargs={"layout": "satp-v2"},
)
registry["LeanAesop-v1"].version = None
register(
    id="LeanProof-v0",
    entry_point="lean_gym.envs.proof_env:LeanProofEnv",
    vector_entry_point="lean_gym.envs.proof_env:LeanProofVectorEnv",
)
register(
    id="LeanHackable-v0",
    entry_point="lean_gym.envs.hackable_env:LeanHackableEnv",
    vector_entry_point="lean_gym.envs.hackable_env:LeanHackableVectorEnv",
)
register(
    id="LeanTactic-v0",
    entry_point="lean_gym.envs.tactic_env:LeanTacticEnv",
    vector_entry_point="lean_gym.envs.tactic_env:LeanTacticVectorEnv",
)
