"""Record every LeanAesop step into a :class:`HistoryBuffer`, crash-safely.

:class:`RecordToBuffer` wraps one environment and :class:`RecordVectorToBuffer` a vector environment. Both
hand each step to a :class:`BufferRecorder`, which

1. builds the row from the observation the action was taken on (goal, theorem, lemmas, scores), the action,
   the reward and the step's ``info`` (``tactic``, ``status``, ``backend``),
2. drops it if its (goal uuid, action uuid) is already recorded,
3. appends it to the write-ahead log ``<path>.wal.jsonl`` (flushed, and ``fsync``-ed by default) *before*
   the step returns, and adds it to the in-memory buffer,
4. on :meth:`~BufferRecorder.compact` (and on close) writes the whole buffer to ``path`` (Parquet or JSONL by
   suffix) atomically and empties the log.

Opening a recorder on a path that already holds a buffer file and/or a log continues it: both are read back
(a torn last log line, the step in flight when a process was killed, is dropped) and new steps append.

Example:
    >>> import gymnasium as gym, lean_gym
    >>> from lean_gym.buffers import RecordToBuffer
    >>> env = RecordToBuffer(gym.make("LeanAesop-v0", backend="sim"), "runs/aesop.parquet")  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium.vector.utils import iterate

from lean_gym.buffers._aesop import ActionCodec
from lean_gym.buffers.history import HistoryBuffer, wal_path
from lean_gym.buffers.wal import WAL_VERSION, WriteAheadLog

__all__ = ["BufferRecorder", "RecordToBuffer", "RecordVectorToBuffer", "step_entry", "sub_env_info"]


def _lemmas(value: Any) -> list[str]:
    """Lemma names from an observation entry, without the empty slots an environment pads the list with.

    The entry is a sequence of names, or one string with one name per line.
    """
    if value is None:
        return []
    names = value.split("\n") if isinstance(value, str) else [_text(x) for x in value]
    while names and not names[-1].strip():
        names.pop()
    return names


def _scores(value: Any) -> list[float]:
    if value is None:
        return []
    return [float(x) for x in np.asarray(value, dtype=np.float64).reshape(-1)]


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8")
    return str(value)


def step_entry(
    obs: Mapping[str, Any], action: Any, reward: SupportsFloat, info: Mapping[str, Any]
) -> dict[str, Any]:
    """The write-ahead-log entry for one LeanAesop step.

    Args:
        obs: The observation the action was taken on (``goal``, ``theorem``, ``lemmas``, ``lemma_scores``).
        action: The action vector.
        reward: The step's reward.
        info: The step's info (``tactic``, ``status``, ``backend`` are used when present).
    """
    tactic = info.get("tactic")
    lemmas = _lemmas(obs.get("lemmas"))
    goal_uuid, action_uuid = info.get("goal_uuid"), info.get("action_uuid")
    return {
        "v": WAL_VERSION,
        "goal": _text(obs.get("goal")),
        "theorem": _text(obs.get("theorem")),
        "lemmas": lemmas,
        "lemma_scores": _scores(obs.get("lemma_scores"))[: len(lemmas)],
        "action": [int(x) for x in np.asarray(action).reshape(-1)],
        "tactic": _text(tactic) if tactic is not None else None,
        "reward": float(reward),
        # The environment hashes the goal and tactic it really used (its observation text may be sanitised
        # or cut to the space's limits); without them the buffer hashes what it sees.
        "goal_uuid": _text(goal_uuid) if goal_uuid else None,
        "action_uuid": _text(action_uuid) if action_uuid else None,
        "backend": _text(info.get("backend")),
        "status": _text(info.get("status")),
    }


class BufferRecorder:
    """A buffer file plus its write-ahead log: deduplicated, append-only, crash-safe recording.

    Args:
        path: The buffer file (``.parquet`` needs the ``parquet`` extra; ``.jsonl`` needs nothing). Its log
            is ``<path>.wal.jsonl``.
        layout: The action layout (name or object).
        fsync: ``fsync`` the log after every step (see :class:`~lean_gym.buffers.wal.WriteAheadLog`).

    Attributes:
        buffer: Everything recorded so far (including what the file and log held on open).
        recorded: Steps written by this recorder.
        duplicates: Steps skipped because their (goal uuid, action uuid) was already recorded.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, layout: str | ActionCodec = "satp-v1", fsync: bool = True
    ) -> None:
        self.path = Path(path)
        if self.path.exists() or wal_path(self.path).exists():
            self.buffer = HistoryBuffer.load(self.path, layout=layout, include_wal=True)
        else:
            self.buffer = HistoryBuffer(layout)
        self.buffer.dedup = True
        self.wal = WriteAheadLog(wal_path(self.path), fsync=fsync)
        self.recorded = 0
        self.duplicates = 0

    def record(
        self, obs: Mapping[str, Any], action: Any, reward: SupportsFloat, info: Mapping[str, Any]
    ) -> bool:
        """Record one step; returns ``False`` for a duplicate (nothing written)."""
        entry = step_entry(obs, action, reward, info)
        added = self.buffer.add_entry(entry)
        if not added:
            self.duplicates += 1
            return False
        if entry["tactic"] is None:  # rendered by the buffer; log the text so replay needs no rendering
            entry["tactic"] = self.buffer.tactics[-1]
        self.wal.append(entry)
        self.recorded += 1
        return True

    def compact(self) -> None:
        """Write the buffer to ``path`` (atomically) and empty the log."""
        if len(self.buffer):
            self.buffer.save(self.path)
        self.wal.clear()

    def close(self, *, compact: bool = True) -> None:
        """Compact (unless told not to) and close the log; idempotent."""
        if self.wal.closed:
            return
        if compact:
            self.compact()
            self.wal.remove()
        else:
            self.wal.close()


def _default_layout(env: Any) -> str | ActionCodec:
    layout = getattr(getattr(env, "unwrapped", env), "layout", None)
    if isinstance(layout, str) or (
        layout is not None and hasattr(layout, "parse") and hasattr(layout, "nvec")
    ):
        return layout
    return "satp-v1"


class RecordToBuffer(gym.Wrapper):
    """Record every step of a LeanAesop environment into a buffer file, crash-safely.

    Args:
        env: A ``LeanAesop`` environment (Dict observation with ``goal``, ``theorem``, ``lemmas``,
            ``lemma_scores``; ``info`` with ``tactic``, ``status``, ``backend``).
        path: The buffer file; see :class:`BufferRecorder`.
        layout: The action layout; defaults to the environment's ``layout`` attribute, else ``"satp-v1"``.
        fsync: ``fsync`` the log after every step.
        compact_on_close: Write ``path`` and remove the log on :meth:`close`.

    Example:
        >>> env = RecordToBuffer(gym.make("LeanAesop-v0", backend="sim"), "run.parquet")  # doctest: +SKIP
        >>> obs, info = env.reset(seed=0)                                                 # doctest: +SKIP
        >>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())  # doctest: +SKIP
        >>> env.close()  # writes run.parquet                                             # doctest: +SKIP
    """

    def __init__(
        self,
        env: gym.Env,
        path: str | os.PathLike[str],
        *,
        layout: str | ActionCodec | None = None,
        fsync: bool = True,
        compact_on_close: bool = True,
    ) -> None:
        super().__init__(env)
        self.recorder = BufferRecorder(path, layout=layout or _default_layout(env), fsync=fsync)
        self.compact_on_close = compact_on_close
        self._obs: Any = None

    @property
    def buffer(self) -> HistoryBuffer:
        """Everything recorded (and what the file held on open)."""
        return self.recorder.buffer

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env and remember its observation (the next step's ``obs``)."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._obs = obs
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and record the step (observation, action, reward, info)."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        if self._obs is not None:
            self.recorder.record(self._obs, action, reward, info)
        self._obs = obs
        return obs, reward, terminated, truncated, info

    def compact(self) -> None:
        """Write the buffer file now and empty the log."""
        self.recorder.compact()

    def close(self) -> None:
        """Close the recorder (compacting the log unless told not to) and the env."""
        self.recorder.close(compact=self.compact_on_close)
        super().close()


def sub_env_info(info: Mapping[str, Any], i: int) -> dict[str, Any]:
    """Sub-environment ``i``'s entries of a vector env's batched ``info`` (masked keys left out)."""
    out: dict[str, Any] = {}
    for key, value in info.items():
        if key.startswith("_"):
            continue
        mask = info.get("_" + key)
        if mask is not None and not bool(mask[i]):
            continue
        try:
            out[key] = value[i]
        except (TypeError, IndexError, KeyError):
            continue
    return out


class RecordVectorToBuffer(gym.vector.VectorWrapper):
    """Record every step of every sub-environment of a LeanAesop vector environment.

    Works with all three autoreset modes: with ``NEXT_STEP`` (Gymnasium's default) the step that only resets a
    finished sub-environment is not recorded; with ``SAME_STEP`` the row uses the observation the action was
    taken on, not the reset observation the step returns.

    Args:
        env: A ``LeanAesop`` vector environment.
        path: The buffer file; see :class:`BufferRecorder`.
        layout: The action layout; defaults to the environment's ``layout`` attribute, else ``"satp-v1"``.
        fsync: ``fsync`` the log after every recorded step.
        compact_on_close: Write ``path`` and remove the log on :meth:`close`.
    """

    def __init__(
        self,
        env: gym.vector.VectorEnv,
        path: str | os.PathLike[str],
        *,
        layout: str | ActionCodec | None = None,
        fsync: bool = True,
        compact_on_close: bool = True,
    ) -> None:
        super().__init__(env)
        self.recorder = BufferRecorder(path, layout=layout or _default_layout(env), fsync=fsync)
        self.compact_on_close = compact_on_close
        self._obs: Any = None
        self._resetting = np.zeros(self.num_envs, dtype=bool)

    @property
    def buffer(self) -> HistoryBuffer:
        """Everything recorded (and what the file held on open)."""
        return self.recorder.buffer

    def _next_step_mode(self) -> bool:
        mode = self.env.metadata.get("autoreset_mode", gym.vector.AutoresetMode.NEXT_STEP)
        return getattr(mode, "value", mode) in ("NextStep", "next_step")

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Reset the env and remember its observation (the next step's ``obs``)."""
        obs, info = self.env.reset(seed=seed, options=options)
        self._obs = obs
        mask = (options or {}).get("reset_mask")
        if mask is None:
            self._resetting[:] = False
        else:
            self._resetting[np.asarray(mask, dtype=bool)] = False
        return obs, info

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Step the env and record the step (observation, action, reward, info)."""
        obs, rewards, terminated, truncated, info = self.env.step(actions)
        if self._obs is not None:
            acts = np.asarray(actions)
            # iterate() undoes the batching of every space (a batched Tuple of lemma texts is one tuple per
            # slot, not per sub-environment).
            per_env = list(iterate(self.env.observation_space, self._obs))
            for i in range(self.num_envs):
                if self._resetting[i]:
                    continue
                self.recorder.record(per_env[i], acts[i], rewards[i], sub_env_info(info, i))
        if self._next_step_mode():
            self._resetting = np.logical_or(terminated, truncated).astype(bool)
        self._obs = obs
        return obs, rewards, terminated, truncated, info

    def compact(self) -> None:
        """Write the buffer file now and empty the log."""
        self.recorder.compact()

    def close(self, **kwargs: Any) -> None:
        """Close the recorder (compacting the log unless told not to) and the env."""
        self.recorder.close(compact=self.compact_on_close)
        super().close(**kwargs)
