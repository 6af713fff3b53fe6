"""Adapters from lean-gym to other training libraries.

:mod:`lean_gym.integrations.trl` (TRL's GRPOTrainer reward functions and datasets) and
:mod:`lean_gym.integrations.torchrl` (TorchRL's Gym wrapper).

Ray/RLlib and gymnasium's vector envs need no adapter (environments pickle; see ``docs/scale-out.md``).
"""
