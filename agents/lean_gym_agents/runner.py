"""Train or evaluate any :class:`~lean_gym_agents.base.Agent` on any lean-gym env.

One loop over a vector env, episode statistics, namespaced metrics (JSONL, CSV, PNG, TensorBoard, W&B) and
checkpoints to resume from.

The runner takes a single ``gymnasium.Env`` or a ``gymnasium.vector.VectorEnv`` in any vectorization mode
(``sync``, ``async``, the pooled ``vector_entry_point``) and any autoreset mode. A single env becomes a vector
of one (:func:`as_vector_env`, as SB3's ``_wrap_env``), so there is one loop. With ``NEXT_STEP`` (Gymnasium's
default) the step that only resets a finished sub-environment is not shown to the agent; with ``DISABLED`` the
runner resets finished sub-environments itself. Gymnasium's ``RecordEpisodeStatistics`` puts
``info["episode"] = {"r", "l", "t"}`` in the info of each episode's last step (:func:`with_episode_statistics`).

Example:
    >>> import gymnasium as gym, lean_gym
    >>> from lean_gym_agents import UniformRandomAgent, run_agent
    >>> env = gym.make("LeanAesop-v0", backend="sim", split="test")
    >>> result = run_agent(UniformRandomAgent(env.action_space, seed=0), env, steps=20, progress=False)
    >>> result.steps, 0.0 <= result.success_rate <= 1.0
    (20, True)
"""

from __future__ import annotations

import math
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import concatenate, create_empty_array, iterate
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from lean_gym.buffers.recording import sub_env_info
from lean_gym_agents.base import Agent, Transitions
from lean_gym_agents.checkpoint import Checkpoint, EnvLog, capture_rng, restore_rng, save_checkpoint
from lean_gym_agents.metrics import JsonlLog, MetricWriter, namespaced, plot_curve, write_csv, write_metrics

__all__ = [
    "RunInterrupted",
    "RunResult",
    "as_vector_env",
    "plot_curve",
    "run_agent",
    "with_episode_statistics",
    "write_metrics",
]


@dataclass
class RunResult:
    """What a run did.

    Attributes:
        steps: Steps the agent took (sub-environment steps; reset-only steps are not counted).
        episodes: Episodes that ended.
        successes: Episodes with a positive reward in some step (for the aesop env: proved).
        reward_sum: Sum of all rewards.
        metrics: One dict per logged window (see :func:`run_agent`).
        paths: ``jsonl``, ``csv``, ``png``, ``checkpoint``: the files written (absent when not written).
        wall_s: Wall-clock seconds of the whole run (every part of a resumed one).
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


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by SIGINT or SIGTERM after it wrote a checkpoint at the end of the step in progress.

    Attributes:
        signum: The signal.
        checkpoint: The checkpoint written (resume from it).
        steps: Steps the run had taken.
    """

    def __init__(self, signum: int, checkpoint: Path, steps: int) -> None:
        """The signal that stopped the run, the checkpoint written, and the steps done."""
        super().__init__(f"{signal.Signals(signum).name} at step {steps}: checkpoint {checkpoint}")
        self.signum = signum
        self.checkpoint = checkpoint
        self.steps = steps


# ------------------------------------------------------------------------------------------------ the env
class _EpisodeStatistics(RecordEpisodeStatistics):
    """Gymnasium's ``RecordEpisodeStatistics`` that keeps the running episodes' statistics on a masked reset.

    ``SyncVectorEnv`` and ``AsyncVectorEnv`` (gymnasium 1.4) pop ``reset_mask`` from the very options dict
    they are given, so the wrapper's own look for it, after the reset, finds none and zeroes every
    sub-environment's return and length; this puts back the ones outside the mask (the bug Gymnasium's open
    pull request #1696, "Preserve vector wrapper state across partial resets", fixes upstream).
    """

    def reset(self, seed: Any = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        mask = None if options is None else options.get("reset_mask")
        kept = (self.episode_start_times.copy(), self.episode_returns.copy(), self.episode_lengths.copy())
        obs, info = super().reset(seed=seed, options=options)
        if mask is not None:
            running = ~np.asarray(mask, dtype=bool)
            self.episode_start_times[running] = kept[0][running]
            self.episode_returns[running] = kept[1][running]
            self.episode_lengths[running] = kept[2][running]
        return obs, info


def as_vector_env(env: gym.Env[Any, Any] | gym.vector.VectorEnv) -> gym.vector.VectorEnv:
    """``env`` as a vector env: a vector env as it is, a single env as a ``SyncVectorEnv`` of one.

    The vector of one resets a finished episode in the step that ends it (``SAME_STEP``), as a loop over a
    single env does, and never closes ``env`` (closing it stays the caller's job).
    """
    if isinstance(env, gym.vector.VectorEnv):
        return env
    return gym.vector.SyncVectorEnv([lambda: env], autoreset_mode=AutoresetMode.SAME_STEP)


def with_episode_statistics(env: gym.vector.VectorEnv) -> gym.vector.VectorEnv:
    """``env`` with Gymnasium's ``RecordEpisodeStatistics`` (unless a wrapper of it already is one)."""
    inner: Any = env
    while isinstance(inner, gym.vector.VectorWrapper):
        if isinstance(inner, RecordEpisodeStatistics):
            return env
        inner = inner.env
    mode = env.metadata.get("autoreset_mode")
    if isinstance(mode, str):  # the wrapper wants the enum; a custom vector env may say it as text
        env.metadata = {**env.metadata, "autoreset_mode": AutoresetMode(mode)}
    return _EpisodeStatistics(env)


def _batch_actions(env: gym.vector.VectorEnv, actions: Sequence[Any]) -> Any:
    space = env.single_action_space
    out: Any = create_empty_array(space, len(actions))
    return concatenate(space, list(actions), out)


def _autoreset_mode(env: gym.vector.VectorEnv) -> str:
    mode = env.metadata.get("autoreset_mode", AutoresetMode.NEXT_STEP)
    return str(getattr(mode, "value", mode)).lower().replace("_", "")


def _step_infos(info: Mapping[str, Any], n: int, mode: str) -> list[dict[str, Any]]:
    """Each sub-env's own info of a step, with ``episode`` ({"r", "l", "t"}) where an episode ended."""
    infos = [sub_env_info(info, i) for i in range(n)]
    if mode == "samestep" and "final_info" in info:
        # SAME_STEP: a finished sub-env's info is its reset's; the step's own is in final_info.
        finals = info.get("_final_info", np.zeros(n, dtype=bool))
        for i in np.flatnonzero(finals).tolist():
            infos[i] = sub_env_info(info["final_info"], i)
    episode, ended = info.get("episode"), info.get("_episode")
    if isinstance(episode, Mapping) and ended is not None:
        for i in np.flatnonzero(ended).tolist():
            infos[i]["episode"] = {k: np.asarray(v)[i].item() for k, v in episode.items()}
    return infos


# ------------------------------------------------------------------------------------------------ the loop
class _Window:
    """Accumulates one logging window."""

    def __init__(self) -> None:
        self.steps = 0
        self.reward = 0.0
        self.episodes = 0
        self.successes = 0
        self.returns: list[float] = []
        self.lengths: list[float] = []
        self.updates: dict[str, list[float]] = {}
        self.t0 = time.perf_counter()

    def add_update(self, metrics: Mapping[str, float]) -> None:
        for k, v in metrics.items():
            self.updates.setdefault(k, []).append(float(v))

    def row(self, prefix: str, result: RunResult) -> dict[str, float]:
        dt = max(time.perf_counter() - self.t0, 1e-9)
        p = prefix
        out: dict[str, float] = {
            "global_step": float(result.steps),
            f"{p}/episodes": float(result.episodes),
            f"{p}/episodic_return": float(np.mean(self.returns)) if self.returns else math.nan,
            f"{p}/episodic_length": float(np.mean(self.lengths)) if self.lengths else math.nan,
            f"{p}/success_rate": self.successes / self.episodes if self.episodes else math.nan,
            f"{p}/success_so_far": result.successes / result.episodes if result.episodes else math.nan,
            f"{p}/reward_mean": self.reward / self.steps if self.steps else math.nan,
            f"{p}/SPS": self.steps / dt,
        }
        for k, vs in self.updates.items():
            out[namespaced(k)] = float(np.mean(vs))
        return out

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "t0"}  # wall time means nothing elsewhere

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.t0 = time.perf_counter()


@dataclass
class _Loop:
    """The runner's state between two steps: what a checkpoint holds besides the agent and the env log."""

    result: RunResult
    window: _Window
    success: np.ndarray  # per sub-env: the running episode had a positive reward
    skip: np.ndarray  # NEXT_STEP: sub-envs whose next step only resets them
    every: int
    next_log: int
    train: bool
    explore: bool
    seed: int | None


class _StopOnSignal:
    """While active, SIGINT and SIGTERM only ask the loop to stop at the end of the step in progress.

    A second signal acts as the old handler would (Ctrl-C twice stops at once; the last checkpoint on disk
    is whole either way). Signals are only caught in the main thread (Python's rule), else left alone.
    """

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and threading.current_thread() is threading.main_thread()
        self.signum: int | None = None
        self._old: dict[int, Any] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.signum = signum
        signal.signal(signum, self._old[signum])

    def __enter__(self) -> _StopOnSignal:
        if self.enabled:
            for s in (signal.SIGINT, signal.SIGTERM):
                self._old[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for s, old in self._old.items():
            signal.signal(s, old)


def _check_resume(
    resume: Checkpoint, agent: Agent, steps: int, train: bool, explore: bool, seed: int | None
) -> _Loop:
    loop: _Loop = resume.loop
    if agent is not resume.agent:
        raise ValueError("resume with the checkpoint's agent: run_agent(ckpt.agent, env, resume=ckpt, ...)")
    for name, given, saved in (
        ("train", train, loop.train),
        ("explore", explore, loop.explore),
        ("seed", seed, loop.seed),
    ):
        if given != saved:
            raise ValueError(f"resume: {name}={given!r}, but the checkpointed run has {name}={saved!r}")
    if steps < loop.result.steps:
        raise ValueError(f"resume: steps={steps}, but the checkpointed run already took {loop.result.steps}")
    return loop


# C901: CleanRL's one loop (act, step, episode statistics, update, log, checkpoint) kept readable top to bottom
def run_agent(  # noqa: C901
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
    writers: Sequence[MetricWriter] = (),
    save_every: int = 0,
    checkpoint: str | Path | None = None,
    resume: Checkpoint | None = None,
    config: Mapping[str, Any] | None = None,
    on_checkpoint: Callable[[Path, int], None] | None = None,
) -> RunResult:
    """Run ``agent`` on ``env`` for ``steps`` sub-environment steps.

    Every step's transitions go to ``agent.update`` when ``train`` is set. Every ``log_every`` steps a row of
    metrics is logged (the names of :mod:`lean_gym_agents.metrics`; ``eval/`` instead of ``charts/`` when
    ``train`` is off): ``global_step``, ``charts/episodes``, ``charts/episodic_return`` and
    ``charts/episodic_length`` (means of ``info["episode"]`` over the episodes that ended in the window),
    ``charts/success_rate`` (the share of those with a positive reward at some step),
    ``charts/success_so_far``, ``charts/reward_mean``, ``charts/SPS`` (window steps / window wall time) and
    ``losses/<name>``, the mean of every metric ``update`` returned.

    **Checkpoints.** With ``save_every`` (or a SIGINT/SIGTERM while checkpointing) the runner writes
    ``checkpoint`` (default ``out_dir/checkpoint.pkl``) atomically at the end of a step, and once more at the
    end of the run; a signal stops the run after that checkpoint with :class:`RunInterrupted`. To go on,
    ``ckpt = load_checkpoint(path)`` and ``run_agent(ckpt.agent, new_env, resume=ckpt, ...)`` with the same
    ``steps`` (or more), ``train``, ``explore`` and ``seed``: the env is rebuilt by replaying the run's env
    calls (:class:`~lean_gym_agents.checkpoint.EnvLog`), ``metrics.jsonl`` is cut back to where the checkpoint
    saw it, and the run ends as an uninterrupted one would (all but the wall-clock figures).

    Args:
        agent: Any object with ``act`` and ``update`` (:class:`~lean_gym_agents.base.Agent`).
        env: A ``gymnasium.Env`` or a ``gymnasium.vector.VectorEnv`` (any mode).
        steps: Sub-environment steps to take (a vector env may overshoot by less than ``num_envs``).
        train: Pass transitions to ``agent.update``.
        explore: Passed to ``agent.act``; defaults to ``train``.
        seed: Seed of the first ``reset``.
        out_dir: Write ``metrics.jsonl`` (row by row), ``metrics.csv`` and ``learning_curve.png`` here.
        log_every: Steps per logged window (default: ``steps // 50``, at least one step of every sub-env).
        progress: Show a tqdm progress bar.
        plot: Write the PNG: ``None`` when matplotlib is installed, ``True`` always (error if it is not).
        desc: Progress-bar label.
        writers: More places for each row (:class:`~lean_gym_agents.metrics.TensorBoardWriter`,
            :class:`~lean_gym_agents.metrics.WandbWriter`); flushed, not closed, by the runner.
        save_every: Write a checkpoint every this many steps (0: only when a signal stops the run).
        checkpoint: The checkpoint file (default ``out_dir/checkpoint.pkl``; without either, no checkpoints).
        resume: Continue the run of this checkpoint (its agent must be ``agent``).
        config: Kept in the checkpoint for the caller (``Checkpoint.config``).
        on_checkpoint: Called with the path and the step count after each checkpoint is written.

    Returns:
        A :class:`RunResult`.

    Raises:
        ValueError: ``steps`` < 1, ``save_every`` < 0 or without a place to write, a ``resume`` that does not
            match the arguments.
        RunInterrupted: SIGINT or SIGTERM while checkpointing (after the checkpoint is written).
        LeanGymError: ``env`` does not replay the checkpoint's run.
        MissingDependencyError: ``plot=True`` without matplotlib (the ``agents`` extra).
    """
    if steps < 1:
        raise ValueError(f"steps must be at least 1, got {steps}")
    if save_every < 0:
        raise ValueError(f"save_every must be at least 0, got {save_every}")
    explore = train if explore is None else explore
    ckpt_path = Path(checkpoint) if checkpoint is not None else None
    if ckpt_path is None and out_dir is not None:
        ckpt_path = Path(out_dir) / "checkpoint.pkl"
    if save_every and ckpt_path is None:
        raise ValueError("save_every needs a place for the checkpoint: out_dir or checkpoint")
    venv = with_episode_statistics(as_vector_env(env))
    n_envs = int(venv.num_envs)
    mode = _autoreset_mode(venv)
    prefix = "charts" if train else "eval"
    log: EnvLog | None = None
    if resume is not None:
        loop = _check_resume(resume, agent, steps, train, explore, seed)
        log = resume.env_log
        obs = log.replay(venv)
        restore_rng(resume.rng)
    else:
        every = max(log_every or steps // 50, n_envs, 1)
        loop = _Loop(
            RunResult(), _Window(), np.zeros(n_envs, dtype=bool), np.zeros(n_envs, dtype=bool),
            every, every, train, explore, seed,
        )  # fmt: skip
        obs, _ = venv.reset(seed=seed)
        if ckpt_path is not None:
            log = EnvLog(seed)
            log.first_reset(obs)
    result, skip = loop.result, loop.skip
    jsonl = None
    if out_dir is not None:
        offset = resume.metrics_offset if resume is not None else None
        jsonl = JsonlLog(Path(out_dir) / "metrics.jsonl", resume_at=offset)
    sinks: list[MetricWriter] = ([jsonl] if jsonl is not None else []) + list(writers)
    next_save = (result.steps // save_every + 1) * save_every if save_every else None

    def save() -> Path:
        if ckpt_path is None or log is None:  # pragma: no cover - only called while checkpointing
            raise RuntimeError("no checkpoint file was set")
        for w in sinks:
            w.flush()
        state = Checkpoint(
            agent, loop, log, capture_rng(), jsonl.offset() if jsonl is not None else None, dict(config or {})
        )
        path = save_checkpoint(ckpt_path, state)
        if out_dir is not None:
            write_csv(result.metrics, Path(out_dir) / "metrics.csv")
        if on_checkpoint is not None:
            on_checkpoint(path, result.steps)
        return path

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=steps, initial=result.steps, desc=desc or prefix, mininterval=0.5, leave=False)
    t_start = time.perf_counter() - result.wall_s
    try:
        with _StopOnSignal(ckpt_path is not None) as stop:
            while result.steps < steps:
                per_env = list(iterate(venv.observation_space, obs))
                actions = agent.act(per_env, explore=explore)
                if len(actions) != n_envs:
                    raise ValueError(f"agent.act returned {len(actions)} actions for {n_envs} observations")
                batched = _batch_actions(venv, actions)
                next_obs, rew, term, trunc, info = venv.step(batched)
                rewards = np.asarray(rew, dtype=np.float64)
                if log is not None:
                    log.step(batched, rewards)
                terminated = np.asarray(term, dtype=bool)
                truncated = np.asarray(trunc, dtype=bool)
                infos = _step_infos(info, n_envs, mode)
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
                window = loop.window
                if train and len(batch):
                    window.add_update(agent.update(batch))
                done = terminated | truncated
                for i in live.tolist():
                    loop.success[i] |= bool(rewards[i] > 0)
                    if done[i]:
                        stats = infos[i].get("episode", {})
                        result.episodes += 1
                        result.successes += int(loop.success[i])
                        window.episodes += 1
                        window.successes += int(loop.success[i])
                        window.returns.append(float(stats.get("r", math.nan)))
                        window.lengths.append(float(stats.get("l", math.nan)))
                        loop.success[i] = False
                result.steps += len(live)
                result.reward_sum += float(rewards[live].sum())
                window.steps += len(live)
                window.reward += float(rewards[live].sum())
                if bar is not None:
                    bar.update(len(live))
                if mode == "nextstep":
                    skip[:] = done
                elif mode == "disabled" and done.any():
                    next_obs, _ = venv.reset(options={"reset_mask": done.copy()})
                    if log is not None:
                        log.reset(done)
                obs = next_obs
                if result.steps >= loop.next_log or result.steps >= steps:
                    row = window.row(prefix, result)
                    result.metrics.append(row)
                    for w in sinks:
                        w.write(row, result.steps)
                    loop.window = _Window()
                    loop.next_log = result.steps + loop.every
                result.wall_s = time.perf_counter() - t_start
                if next_save is not None and result.steps >= next_save and result.steps < steps:
                    result.paths["checkpoint"] = save()
                    next_save = (result.steps // save_every + 1) * save_every
                if stop.signum is not None:
                    raise RunInterrupted(stop.signum, save(), result.steps)
            if ckpt_path is not None:
                result.paths["checkpoint"] = save()
    finally:
        if bar is not None:
            bar.close()
        for w in sinks:
            w.flush()
        if jsonl is not None:
            jsonl.close()
    result.wall_s = time.perf_counter() - t_start
    if out_dir is not None:
        out = Path(out_dir)
        result.paths["jsonl"] = out / "metrics.jsonl"
        result.paths["csv"] = write_csv(result.metrics, out / "metrics.csv")
        if plot is not False:
            from lean_gym.errors import MissingDependencyError

            try:
                result.paths["png"] = plot_curve(
                    result.metrics, out / "learning_curve.png", title=desc or "", backend=result.backend
                )
            except MissingDependencyError:
                if plot:
                    raise
    return result
