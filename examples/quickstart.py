"""Quickstart: one LeanAesop episode (runs on the simulator when no Lean workspace is built)."""

import gymnasium as gym

import lean_gym  # noqa: F401  (registers LeanAesop-v0)

env = gym.make("LeanAesop-v0", backend="auto", split="test")
obs, info = env.reset(seed=0)
print(obs["goal"])
obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
print(info["tactic"])
print(f"status={info['status']} reward={reward} backend={info['backend']}")
env.close()
