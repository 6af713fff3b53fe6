"""``lean-gym demo`` and ``lean-gym bench``: the main job in one command, on whichever backend is there.

The demo trains a contextual Thompson-sampling bandit (``lean_gym_agents.ThompsonBandit``) to choose an
aesop configuration per goal on ``LeanAesop-v0``, then compares it on held-out theorems with plain
``aesop`` (the all-default configuration). It prints the backend that produced every figure: on a machine
without a built Lean workspace that is the simulator, which is not Lean.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["candidate_actions", "goal_context", "run_bench", "run_demo"]

_UNSAFE_MENU = (
    "linarith", "nlinarith", "positivity", "omega", "ring_nf", "simp_all", "interval_cases",
    "norm_num [*] at *", "field_simp [*] at *", "bound", "exfalso", "split",
)  # fmt: skip
_SAFE_MENU = ("ring", "norm_num", "field_simp", "push_neg", "zify", "norm_cast")
# (head, level): the deepest search, and the simp switches turned off
_SETTING_MENU = (("maxRuleApplicationDepth", 4), ("enableSimp", 0), ("useDefaultSimpSet", 0))


def candidate_actions(layout: Any) -> list[np.ndarray]:
    """A fixed menu of aesop configurations: plain aesop and one-change variants of it.

    Heads the layout does not have are left out, so the menu works for any layout that names its heads
    like SATP's v1 (``unsafe:linarith``, ``lemma:0``, ``maxRuleApplicationDepth``, ...).
    """
    base = layout.default_action()
    names = list(layout.head_names)
    changes = [f"unsafe:{t}" for t in _UNSAFE_MENU] + [f"safe:{t}" for t in _SAFE_MENU]
    changes += [f"lemma:{r}" for r in range(4)]
    menu = [base.copy()]
    for name, level in [(c, 4) for c in changes] + list(_SETTING_MENU):
        if name in names:
            a = base.copy()
            a[names.index(name)] = level
            menu.append(a)
    return menu


def goal_context(goal: str) -> tuple[bool, ...]:
    """A coarse, cheap description of a goal's shape: the bandit learns one choice per shape."""
    target = goal.rsplit("⊢", 1)[-1]
    return (
        "^" in target or "*" in target,
        any(op in target for op in ("<", "≤", ">", "≥")),
        any(op in target for op in ("∧", "∨", "↔", "¬", "→", "∀", "∃")),
        "ℕ" in goal or "ℤ" in goal,
        "ℝ" in goal or "ℚ" in goal,
        "|" in target or "%" in target,
    )


def _progress(iterable: Sequence[Any], desc: str) -> Any:
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, leave=False, mininterval=0.5)


def _success(env: Any, index: int, action: np.ndarray) -> tuple[bool, dict[str, Any]]:
    env.reset(options={"index": index})
    _, reward, _, _, info = env.step(action)
    return float(reward) > 0, info


def run_demo(
    backend: str = "auto", episodes: int = 3000, seed: int = 0, echo: Callable[[str], None] = print
) -> int:
    """Train a bandit over aesop configs on the train split, evaluate it on the test split, print figures."""
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    import gymnasium as gym

    import lean_gym  # noqa: F401  (registers the ids)
    from lean_gym_agents import ThompsonArgs, ThompsonBandit

    train = gym.make("LeanAesop-v0", backend=backend, source="sim", split="train")
    inner: Any = train.unwrapped
    test = gym.make("LeanAesop-v0", backend=inner.backend, source="sim", split="test")
    test_inner: Any = test.unwrapped
    lay = inner.layout
    arms = candidate_actions(lay)
    bandit = ThompsonBandit(arms=list(range(len(arms))), args=ThompsonArgs(seed=seed))
    rng = np.random.default_rng(seed)
    n_train = len(inner.theorems)
    backend_name = "?"
    t0 = time.perf_counter()
    wins = 0
    for _ in _progress(range(episodes), "training"):
        obs, _ = train.reset(options={"index": int(rng.integers(n_train))})
        ctx = goal_context(obs["goal"])
        arm = bandit.act_index(ctx)
        _, reward, _, _, info = train.step(arms[arm])
        backend_name = info["backend"]
        bandit.update_index(arm, reward, ctx)
        wins += float(reward) > 0
    train_s = time.perf_counter() - t0
    echo(f"backend: {backend_name}{'  (the simulator, not Lean)' if backend_name.startswith('sim') else ''}")
    echo(
        f"trained a contextual Thompson bandit over {len(arms)} aesop configs for {episodes} episodes "
        f"in {train_s:.1f} s ({episodes / train_s:.0f} episodes/s); training success {wins / episodes:.1%}"
    )
    n_test = len(test_inner.theorems)
    default = lay.default_action()
    plain = learned = 0
    for i in _progress(range(n_test), "evaluating"):
        obs, _ = test.reset(options={"index": i})
        ok_plain, _ = _success(test, i, default)
        choice = arms[bandit.best_index(goal_context(obs["goal"]))]
        ok_learned, _ = _success(test, i, choice)
        plain += ok_plain
        learned += ok_learned
    echo(
        f"test split ({n_test} theorems): plain `aesop` proves {plain / n_test:.1%}; "
        f"the learned per-goal config proves {learned / n_test:.1%}"
    )
    train.close()
    test.close()
    return 0


def run_bench(backend: str = "auto", n: int = 200, seed: int = 0, echo: Callable[[str], None] = print) -> int:
    """Checks per second through the backend directly and through ``LeanAesop-v0``, medians."""
    import gymnasium as gym

    import lean_gym  # noqa: F401

    env = gym.make("LeanAesop-v0", backend=backend, source="sim", split="test")
    inner: Any = env.unwrapped
    lay = inner.layout
    rng = np.random.default_rng(seed)
    arms = candidate_actions(lay)
    step_s: list[float] = []
    statuses: dict[str, int] = {}
    backend_name = "?"
    for _ in _progress(range(n), "bench"):
        env.reset(options={"index": int(rng.integers(len(inner.theorems)))})
        t = time.perf_counter()
        _, _, _, _, info = env.step(arms[int(rng.integers(len(arms)))])
        step_s.append(time.perf_counter() - t)
        statuses[info["status"]] = statuses.get(info["status"], 0) + 1
        backend_name = info["backend"]
    med = statistics.median(step_s)
    p99 = float(np.quantile(step_s, 0.99))
    echo(f"backend: {backend_name}{'  (the simulator, not Lean)' if backend_name.startswith('sim') else ''}")
    echo(
        f"LeanAesop-v0 steps: {n}; median {med * 1000:.2f} ms/step ({1 / med:.0f} steps/s); p99 {p99 * 1000:.1f} ms"
    )
    echo("statuses: " + ", ".join(f"{k}={v}" for k, v in sorted(statuses.items())))
    env.close()
    return 0
