"""Train or evaluate any :class:`~lean_gym_agents.base.Agent` on any lean-gym env, with a progress bar,
a metrics log (JSONL and CSV) and a learning-curve PNG.

The runner takes a single ``gymnasium.Env`` or a ``gymnasium.vector.VectorEnv`` in any vectorization mode
(``sync``, ``async``, the pooled ``vector_entry_point``) and any autoreset mode. With ``NEXT_STEP`` (Gymnasium's
default) the step that only resets a finished sub-environment is not shown to the agent; with ``DISABLED`` the
runner resets finished sub-environments itself.

Example:
    >>> import gymnasium as gym, lean_gym
    >>> from lean_gym_agents import UniformRandomAgent, run_agent
    >>> env = gym.make("LeanAesop-v0", backend="sim", split="test")
    >>> result = run_agent(UniformRandomAgent(env.action_space, seed=0), env, steps=20, progress=False)
    >>> result.steps, 0.0 <= result.success_rate <= 1.0
    (20, True)
"""

from __future__ import annotations

import csv
import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import concatenate, create_empty_array, iterate

from lean_gym.buffers.recording import sub_env_info
from lean_gym.errors import MissingDependencyError
from lean_gym_agents.base import Agent, Transitions

__all__ = ["RunResult", "plot_curve", "run_agent", "write_metrics"]


@dataclass
class RunResult:
    """What a run did.

    Attributes:
        steps: Steps the agent took (sub-environment steps; reset-only steps are not counted).
        episodes: Episodes that ended.
        successes: Episodes with a positive reward in some step (for the aesop env: proved).
        reward_sum: Sum of all rewards.
        metrics: One dict per logged window (see :func:`run_agent`).
        paths: ``jsonl``, ``csv``, ``png``: the files written (absent when not written).
        wall_s: Wall-clock seconds of the whole run.
        backend: What produced the rewards, as the env's ``info["backend"]`` said (``sim`` is the simulator,
            not Lean); empty when the env does not say.
    """

    steps: int = 0
    episodes: int = 0
    successes: int = 0
    reward_sum: float = 0.0
    metrics: list[dict[str, float]] = field(default_factory=list)
    paths: dict[str, Path] = field(default_factory=dict)
    wall_s: float = 0.0
    backend: str = ""

    @property
    def success_rate(self) -> float:
        """Successful episodes / ended episodes (0 when none ended)."""
        return self.successes / self.episodes if self.episodes else 0.0

    @property
    def mean_reward(self) -> float:
        """Mean reward per step."""
        return self.reward_sum / self.steps if self.steps else 0.0


class _Window:
    """Accumulates one logging window."""

    def __init__(self) -> None:
        self.steps = 0
        self.reward = 0.0
        self.episodes = 0
        self.successes = 0
        self.returns: list[float] = []
        self.updates: dict[str, list[float]] = {}
        self.t0 = time.perf_counter()

    def add_update(self, metrics: dict[str, float]) -> None:
        for k, v in metrics.items():
            self.updates.setdefault(k, []).append(float(v))

    def row(self, total_steps: int, total_episodes: int, total_successes: int) -> dict[str, float]:
        dt = max(time.perf_counter() - self.t0, 1e-9)
        out: dict[str, float] = {
            "step": float(total_steps),
            "episodes": float(total_episodes),
            "window_steps": float(self.steps),
            "window_episodes": float(self.episodes),
            "episode_success": self.successes / self.episodes if self.episodes else math.nan,
            "success_so_far": total_successes / total_episodes if total_episodes else math.nan,
            "episode_return": float(np.mean(self.returns)) if self.returns else math.nan,
            "reward_mean": self.reward / self.steps if self.steps else math.nan,
            "steps_per_s": self.steps / dt,
        }
        for k, vs in self.updates.items():
            out[k] = float(np.mean(vs))
        return out


def _batch_actions(env: gym.vector.VectorEnv, actions: Sequence[Any]) -> Any:
    space = env.single_action_space
    out: Any = create_empty_array(space, len(actions))
    return concatenate(space, list(actions), out)


def _autoreset_mode(env: gym.vector.VectorEnv) -> str:
    mode = env.metadata.get("autoreset_mode", gym.vector.AutoresetMode.NEXT_STEP)
    return str(getattr(mode, "value", mode)).lower().replace("_", "")


def run_agent(
    agent: Agent,
    env: gym.Env[Any, Any] | gym.vector.VectorEnv,
    *,
    steps: int,
    train: bool = True,
    explore: bool | None = None,
    seed: int | None = None,
    out_dir: str | Path | None = None,
    log_every: int | None = None,
    progress: bool = True,
    plot: bool | None = None,
    desc: str | None = None,
) -> RunResult:
    """Run ``agent`` on ``env`` for ``steps`` sub-environment steps.

    Every step's transitions go to ``agent.update`` when ``train`` is set. Every ``log_every`` steps a row of
    metrics is logged: ``step``, ``episodes``, ``episode_success`` (fraction of the episodes that ended in the
    window with a positive reward at some step), ``success_so_far``, ``episode_return``, ``reward_mean``,
    ``steps_per_s`` (window steps / window wall time) and the mean of every metric ``update`` returned.

    Args:
        agent: Any object with ``act`` and ``update`` (:class:`~lean_gym_agents.base.Agent`).
        env: A ``gymnasium.Env`` or a ``gymnasium.vector.VectorEnv`` (any mode).
        steps: Sub-environment steps to take (a vector env may overshoot by less than ``num_envs``).
        train: Pass transitions to ``agent.update``.
        explore: Passed to ``agent.act``; defaults to ``train``.
        seed: Seed of the first ``reset``.
        out_dir: Write ``metrics.jsonl``, ``metrics.csv`` and ``learning_curve.png`` here.
        log_every: Steps per logged window (default: ``steps // 50``, at least one step of every sub-env).
        progress: Show a tqdm progress bar.
        plot: Write the PNG: ``None`` when matplotlib is installed, ``True`` always (error if it is not).
        desc: Progress-bar label.

    Returns:
        A :class:`RunResult`.

    Raises:
        ValueError: ``steps`` < 1.
        MissingDependencyError: ``plot=True`` without matplotlib (the ``agents`` extra).
    """
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    explore = train if explore is None else explore
    vec: gym.vector.VectorEnv | None = env if isinstance(env, gym.vector.VectorEnv) else None
    vector = vec is not None
    n_envs = int(vec.num_envs) if vec is not None else 1
    every = max(log_every or steps // 50, n_envs, 1)
    result = RunResult()
    window = _Window()
    ep_return = np.zeros(n_envs)
    ep_success = np.zeros(n_envs, dtype=bool)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=steps, desc=desc or ("train" if train else "eval"), mininterval=0.5, leave=False)
    t_start = time.perf_counter()
    obs, _ = env.reset(seed=seed)
    skip = np.zeros(n_envs, dtype=bool)  # NEXT_STEP: sub-envs whose next step only resets them
    mode = _autoreset_mode(vec) if vec is not None else ""
    next_log = every
    try:
        while result.steps < steps:
            per_env = list(iterate(env.observation_space, obs)) if vector else [obs]
            actions = agent.act(per_env, explore=explore)
            if len(actions) != n_envs:
                raise ValueError(f"agent.act returned {len(actions)} actions for {n_envs} observations")
            if vector:
                next_obs, rew, term, trunc, info = env.step(_batch_actions(env, actions))  # type: ignore[arg-type]
                rewards = np.asarray(rew, dtype=np.float64)
                terminated = np.asarray(term, dtype=bool)
                truncated = np.asarray(trunc, dtype=bool)
                infos = [sub_env_info(info, i) for i in range(n_envs)]
                if mode == "samestep" and "final_info" in info:
                    # SAME_STEP: a finished sub-env's info is its reset's; the step's own is in final_info.
                    finals = info.get("_final_info", np.zeros(n_envs, dtype=bool))
                    for i in np.flatnonzero(finals).tolist():
                        infos[i] = sub_env_info(info["final_info"], i)
            else:
                next_obs, r, t, u, inf = env.step(actions[0])
                rewards = np.array([float(r)])
                terminated, truncated = np.array([bool(t)]), np.array([bool(u)])
                infos = [dict(inf)]
            live = np.flatnonzero(~skip)
            for i in live.tolist():
                if infos[i].get("backend"):
                    result.backend = str(infos[i]["backend"])
            batch = Transitions(
                observations=[per_env[i] for i in live],
                actions=[actions[i] for i in live],
                rewards=rewards[live],
                terminated=terminated[live],
                truncated=truncated[live],
                infos=[infos[i] for i in live],
                env_ids=live.astype(np.int64),
            )
            if train and len(batch):
                window.add_update(agent.update(batch))
            done = terminated | truncated
            for i in live.tolist():
                ep_return[i] += rewards[i]
                ep_success[i] |= bool(rewards[i] > 0)
                if done[i]:
                    result.episodes += 1
                    result.successes += int(ep_success[i])
                    window.episodes += 1
                    window.successes += int(ep_success[i])
                    window.returns.append(float(ep_return[i]))
                    ep_return[i], ep_success[i] = 0.0, False
            result.steps += len(live)
            result.reward_sum += float(rewards[live].sum())
            window.steps += len(live)
            window.reward += float(rewards[live].sum())
            if bar is not None:
                bar.update(len(live))
            if not vector:
                if done[0]:
                    next_obs, _ = env.reset()
            elif mode == "nextstep":
                skip = done.copy()
            elif mode == "disabled" and done.any():
                next_obs, _ = env.reset(options={"reset_mask": done})
            obs = next_obs
            if result.steps >= next_log or result.steps >= steps:
                result.metrics.append(window.row(result.steps, result.episodes, result.successes))
                window = _Window()
                next_log = result.steps + every
    finally:
        if bar is not None:
            bar.close()
    result.wall_s = time.perf_counter() - t_start
    if out_dir is not None:
        result.paths = write_metrics(
            result.metrics, out_dir, plot=plot, title=desc or "", backend=result.backend
        )
    return result


def write_metrics(
    metrics: Sequence[dict[str, float]],
    out_dir: str | Path,
    *,
    plot: bool | None = None,
    title: str = "",
    backend: str = "",
) -> dict[str, Path]:
    """Write ``metrics.jsonl``, ``metrics.csv`` and (with matplotlib) ``learning_curve.png`` to ``out_dir``.

    ``backend`` (what produced the rewards) goes into the PNG's title.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"jsonl": out / "metrics.jsonl", "csv": out / "metrics.csv"}
    with paths["jsonl"].open("w", encoding="utf-8") as f:
        for row in metrics:
            f.write(
                json.dumps(
                    {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
                )
            )
            f.write("\n")
    keys: list[str] = []
    for row in metrics:
        keys += [k for k in row if k not in keys]
    with paths["csv"].open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys)
        writer.writeheader()
        for row in metrics:
            writer.writerow(row)
    if plot is not False:
        try:
            paths["png"] = plot_curve(metrics, out / "learning_curve.png", title=title, backend=backend)
        except MissingDependencyError:
            if plot:
                raise
    return paths


def plot_curve(
    metrics: Sequence[dict[str, float]],
    path: str | Path,
    *,
    keys: Sequence[str] = ("episode_success", "success_so_far"),
    title: str = "",
    backend: str = "",
) -> Path:
    """A learning curve PNG: ``keys`` against ``step``, its title naming the backend that gave the rewards.

    Raises:
        MissingDependencyError: matplotlib is not installed (``pip install -e '.[agents]'``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise MissingDependencyError(
            "the learning-curve PNG needs matplotlib: install it with `pip install -e '.[agents]'`"
        ) from e
    steps = [row["step"] for row in metrics]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for key in keys:
        ys = [row.get(key, math.nan) for row in metrics]
        if not all(isinstance(y, float) and math.isnan(y) for y in ys):
            ax.plot(steps, ys, marker=".", label=key)
    ax.set_xlabel("step")
    ax.set_ylabel("success")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    where = "backend unknown" if not backend else f"backend: {backend}"
    if backend.startswith("sim") or backend.startswith("ray:sim"):
        where += " (the simulator, not Lean)"
    ax.set_title(f"{title} — {where}" if title else where, fontsize=10)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
