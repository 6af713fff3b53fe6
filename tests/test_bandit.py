"""The Thompson-sampling reference agent."""

from __future__ import annotations

import numpy as np
import pytest

from lean_gym_agents import ThompsonArgs, ThompsonBandit


def play(bandit: ThompsonBandit, probs, steps: int, rng, context=None) -> None:
    for _ in range(steps):
        i = bandit.act_index(context)
        bandit.update_index(i, 1.0 if rng.random() < probs[i] else -1.0, context)


def test_finds_the_best_arm() -> None:
    rng = np.random.default_rng(0)
    b = ThompsonBandit(arms=list("abcde"), args=ThompsonArgs(seed=1))
    play(b, [0.1, 0.2, 0.8, 0.3, 0.1], 600, rng)
    assert b.best() == "c"


def test_contexts_learn_separately() -> None:
    rng = np.random.default_rng(0)
    b = ThompsonBandit(arms=[0, 1], args=ThompsonArgs(seed=2))
    play(b, [0.9, 0.1], 300, rng, context="x")
    play(b, [0.1, 0.9], 300, rng, context="y")
    assert b.best("x") == 0 and b.best("y") == 1


def test_same_seed_same_choices() -> None:
    a = ThompsonBandit(arms=list(range(10)), args=ThompsonArgs(seed=5))
    b = ThompsonBandit(arms=list(range(10)), args=ThompsonArgs(seed=5))
    assert [a.act_index() for _ in range(20)] == [b.act_index() for _ in range(20)]


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="at least one arm"):
        ThompsonBandit(arms=[])
    b = ThompsonBandit(arms=[np.zeros(3), np.ones(3)])
    b.update(np.ones(3), 1.0)
    with pytest.raises(IndexError, match="out of range"):
        b.update_index(2, 1.0)
