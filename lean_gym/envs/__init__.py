"""Registration of every lean-gym environment id (only ``register`` calls live here)."""

from gymnasium.envs.registration import register

register(
    id="LeanAesop-v0",
    entry_point="lean_gym.envs.aesop_env:LeanAesopEnv",
    vector_entry_point="lean_gym.envs.aesop_env:LeanAesopVectorEnv",
    kwargs={"layout": "satp-v1"},
)
register(
    id="LeanAesop-v1",
    entry_point="lean_gym.envs.aesop_env:LeanAesopEnv",
    vector_entry_point="lean_gym.envs.aesop_env:LeanAesopVectorEnv",
    kwargs={"layout": "satp-v2"},
)
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
