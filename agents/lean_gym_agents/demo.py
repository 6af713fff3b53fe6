"""``lean-gym demo``: the main job in one command, on whichever backend is there (``bench``: :mod:`lean_gym.bench`).

It lives with the reference agents because it trains one; ``lean-gym demo`` resolves it at call time.

The demo trains a contextual Thompson-sampling bandit (``lean_gym_agents.ThompsonBandit``) to choose an
aesop configuration per goal on ``LeanAesop-v0`` and, round by round, compares it on held-out theorems
with three baselines: plain ``aesop`` (the all-default configuration), a uniformly random configuration
and the best static configuration (one config for every goal, searched on the train split). It prints a
table per round, saves the learning curve as a PNG, and names the backend that produced every figure: on
a machine without a built Lean workspace that is the simulator, which is not Lean. The theorems are the
env's default set (SATP's 92 Lean-proved miniF2F-test theorems, ``satp-minif2f``, 46 train / 46 test),
and SATP's own figures on Lean are printed beside the demo's; ``source="sim"`` plays the simulator's
synthetic families instead.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["candidate_actions", "goal_context", "run_demo"]

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


def _baselines(env: Any, lay: Any, seed: int, source: str) -> dict[str, list[np.ndarray]]:
    """Per test goal, the action of each baseline: plain aesop, a uniformly random action, the best static.

    The best static config is the one stored for ``source``'s train split; it is left out when none is.
    """
    n = len(env.unwrapped.theorems)
    rng = np.random.default_rng(seed + 1)
    out = {
        "plain": [lay.default_action()] * n,
        "random": [rng.integers(0, np.asarray(lay.nvec)) for _ in range(n)],
    }
    try:
        from lean_gym.aesop import best_static_action

        out["best static"] = [best_static_action(lay.name, source)] * n
    except KeyError:
        pass  # no stored static config for this layout
    return out


def _plot(
    path: str,
    episodes: list[int],
    learned: list[float],
    baselines: dict[str, float],
    backend: str,
    train: list[float] | None = None,
) -> None:
    """The demo's picture: the learned policy on test and the train success per round, over the baselines.

    The baselines are thin grey lines drawn first; the two curves come after, thicker, in colour and with
    markers, so a learned curve that ends on the best static config's level stays visible on top of it.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.8, 4.0))
    styles = {"plain": ":", "random": "--", "best static": "-."}
    for name, rate in baselines.items():
        ax.axhline(
            100 * rate,
            linestyle=styles.get(name, "-"),
            color="grey",
            linewidth=1.0,
            zorder=1,
            label=f"{name} (test) {rate:.1%}",
        )
    if train:
        ax.plot(
            episodes, [100 * x for x in train], marker="s", markersize=4, linewidth=1.5, color="tab:orange",
            zorder=2, label="train episodes of the round (bandit exploring)",
        )  # fmt: skip
    ax.plot(
        episodes, [100 * x for x in learned], marker="o", linewidth=2.5, color="tab:blue", zorder=3,
        label="learned per-goal config (test)",
    )  # fmt: skip
    ax.set_xlabel("training episodes")
    ax.set_ylabel("test theorems proved (%)")
    where = "the simulator, not Lean" if backend.startswith("sim") else backend
    ax.set_title(f"LeanAesop-v0: learning curve (backend: {where})", fontsize=10)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))  # beside the curves, not over them
    fig.tight_layout()
    fig.savefig(path, format="png", dpi=100)
    plt.close(fig)


def _check_plot_path(plot_path: str) -> None:
    """Fail now, not after the whole run, when the learning curve cannot be drawn or written."""
    from lean_gym.errors import LeanGymError

    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise LeanGymError(
            'the learning-curve plot needs matplotlib: pip install -e ".[demo]" (or pass --no-plot)'
        ) from None
    folder = os.path.dirname(os.path.abspath(plot_path))
    if not os.path.isdir(folder):
        raise LeanGymError(f"--plot-path {plot_path}: the folder {folder} does not exist (or pass --no-plot)")
    if not os.access(folder, os.W_OK):
        raise LeanGymError(
            f"--plot-path {plot_path}: the folder {folder} is not writable (or pass --no-plot)"
        )
    if os.path.isdir(plot_path):
        raise LeanGymError(f"--plot-path {plot_path} is a folder; give a file name such as demo.png")


def run_demo(
    backend: str = "auto",
    episodes: int = 3000,
    seed: int = 0,
    echo: Callable[[str], None] = print,
    *,
    rounds: int = 5,
    plot: bool = True,
    plot_path: str = "lean-gym-demo.png",
    eval_limit: int = 0,
    source: str | None = None,
) -> int:
    """Train a bandit over aesop configs on the train split and report it, round by round, on the test split.

    Three baselines are measured on the same test theorems: plain ``aesop`` (the default action), a uniformly
    random action per theorem and the stored best static config (:func:`lean_gym.aesop.best_static_action`,
    one action for every goal, found by coordinate ascent on the train split). After each of ``rounds``
    rounds of training the learned per-goal choice is evaluated; a table row is printed per round and,
    unless ``plot`` is false, the learning curve is saved as a PNG at ``plot_path`` (needs matplotlib:
    ``pip install -e ".[demo]"``).

    Args:
        backend: The backend name (``"auto"``: real Lean when set up, else the simulator).
        episodes: Training episodes in all.
        seed: Seeds the bandit, the random baseline and the training order.
        echo: Where the report's lines go.
        rounds: Evaluations on the test split, evenly spread over the training.
        plot: Save the learning curve as a PNG.
        plot_path: Where the PNG goes.
        eval_limit: Evaluate on the first N test theorems only (0: all of them).
        source: The theorem set (``None``: the env's default, ``satp-minif2f``; ``"sim"``: the simulator's
            synthetic families); its ``train`` split trains, its ``test`` split evaluates.

    Returns:
        0 (the exit status of ``lean-gym demo``).

    Raises:
        LeanGymError: when a plot is asked for and matplotlib is not installed or ``plot_path`` cannot be
            written (found before any training).
    """
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    import gymnasium as gym

    import lean_gym  # noqa: F401  (registers the ids)
    from lean_gym_agents.bandit import ThompsonArgs, ThompsonBandit

    if plot:
        _check_plot_path(plot_path)
    rounds = max(1, min(rounds, episodes)) if episodes > 0 else 1

    from lean_gym.envs.aesop_env import DEFAULT_SOURCE

    source = source or DEFAULT_SOURCE
    train = gym.make("LeanAesop-v0", backend=backend, source=source, split="train")
    inner: Any = train.unwrapped
    test = gym.make("LeanAesop-v0", backend=inner.backend, source=source, split="test")
    test_inner: Any = test.unwrapped
    if eval_limit:
        test_inner.theorems = test_inner.theorems[:eval_limit]
    lay = inner.layout
    arms = candidate_actions(lay)
    base = _baselines(test, lay, seed, source)
    if "best static" in base:
        arms.append(base["best static"][0])  # the distilled config is one of the bandit's choices too
    bandit = ThompsonBandit(arms=list(range(len(arms))), args=ThompsonArgs(seed=seed))
    rng = np.random.default_rng(seed)
    n_train = len(inner.theorems)
    n_test = len(test_inner.theorems)
    contexts = []
    for i in range(n_test):
        obs, _ = test.reset(options={"index": i})
        contexts.append(goal_context(obs["goal"]))

    backend_name = test_inner.backend.name
    rates: dict[str, float] = {}
    for name, acts in base.items():
        wins = 0
        for i in _progress(range(n_test), name):
            ok, info = _success(test, i, acts[i])
            wins += ok
            backend_name = info["backend"]
        rates[name] = wins / n_test
    echo(f"backend: {backend_name}{'  (the simulator, not Lean)' if backend_name.startswith('sim') else ''}")
    echo(
        f"a contextual Thompson bandit over {len(arms)} aesop configs, {episodes} training episodes in "
        f"{rounds} rounds; theorems: {source} (train split: {n_train}, test split: {n_test})"
    )
    echo("baselines on the test split: " + ", ".join(f"{k} {v:.1%}" for k, v in rates.items()))
    header = f"{'round':>5s} {'episodes':>8s} {'train':>7s} {'learned':>8s}" + "".join(
        f" {k:>12s}" for k in rates
    )
    echo(header)
    done = 0
    xs: list[int] = []
    learned_curve: list[float] = []
    train_curve: list[float] = []
    t0 = time.perf_counter()
    for r in range(rounds):
        n_round = episodes // rounds + (1 if r < episodes % rounds else 0)
        wins = 0
        for _ in _progress(range(n_round), f"round {r + 1}"):
            obs, _ = train.reset(options={"index": int(rng.integers(n_train))})
            ctx = goal_context(obs["goal"])
            arm = bandit.act_index(ctx)
            _, reward, _, _, info = train.step(arms[arm])
            bandit.update_index(arm, float(reward), ctx)
            wins += float(reward) > 0
        done += n_round
        learned = 0
        for i in _progress(range(n_test), "evaluating"):
            ok, _ = _success(test, i, arms[bandit.best_index(contexts[i])])
            learned += ok
        xs.append(done)
        learned_curve.append(learned / n_test)
        train_curve.append(wins / n_round if n_round else 0.0)
        train_rate = f"{wins / n_round:.1%}" if n_round else "-"
        echo(
            f"{r + 1:5d} {done:8d} {train_rate:>7s} {learned / n_test:8.1%}"
            + "".join(f" {v:12.1%}" for v in rates.values())
        )
    elapsed = time.perf_counter() - t0
    summary = "; ".join(f"{k} {v:.1%}" for k, v in rates.items())
    where = " (the simulator, not Lean)" if backend_name.startswith("sim") else ""
    echo(
        f"{source} test split ({n_test} theorems), backend {backend_name}{where}: learned per-goal config "
        f"{learned_curve[-1]:.1%}; {summary} ({elapsed:.0f} s)"
    )
    from lean_gym.data import satp_lean_figures

    echo(satp_lean_figures(source))
    if plot:
        _plot(plot_path, xs, learned_curve, rates, backend_name, train=train_curve)
        echo(f"learning curve: {os.path.abspath(plot_path)}")
    train.close()
    test.close()
    return 0
