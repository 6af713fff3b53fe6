"""Adapters from lean-gym to other training libraries (:mod:`lean_gym.integrations.trl` for TRL)."""
