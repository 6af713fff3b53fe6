"""Registration of every lean-gym environment id (only ``register`` calls live here)."""

from gymnasium import registry
from gymnasium.envs.registration import register

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
