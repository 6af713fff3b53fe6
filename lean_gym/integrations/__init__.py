"""Adapters for RL libraries whose wrappers need a little help with lean-gym's text spaces.

Ray/RLlib and gymnasium's vector envs need none (environments pickle; see ``docs/scale-out.md``).
"""
