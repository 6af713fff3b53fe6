"""Registration of every lean-gym environment id (only ``register`` calls live here)."""

import warnings

from gymnasium.envs.registration import register

# LeanAesop-v1 is a different action layout (SATP v2), not a newer LeanAesop-v0: silence gymnasium's
# "out of date, consider upgrading to v1" notice for v0, which would mislead users.
warnings.filterwarnings("ignore", message=r".*environment LeanAesop-v0 is out of date.*")

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
register(
    id="LeanTactic-v0",
    entry_point="lean_gym.envs.tactic_env:LeanTacticEnv",
    vector_entry_point="lean_gym.envs.tactic_env:LeanTacticVectorEnv",
)
