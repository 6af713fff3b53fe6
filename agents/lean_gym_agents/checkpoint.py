"""A run's checkpoint: the agent, the runner's counters, the global RNGs and a log to rebuild the env from.

A checkpoint is one pickle file, written atomically (a crash or a kill while it is written leaves the previous
one). It holds:

* the agent object itself (its networks, optimiser state, posteriors and its own random generators);
* the runner's state: step and episode counters, the open logging window, the metrics rows so far, the byte
  offset of ``metrics.jsonl`` at that moment;
* the global random states (Python's ``random``, NumPy's legacy generator, torch's CPU and CUDA generators);
* an :class:`EnvLog`: the seed of the first ``reset`` and every later call the runner made to the env (the
  actions of every step, the reset masks under ``DISABLED``), with the rewards that came back.

Environments are not pickled: a sub-environment may hold state in another process (a Lean REPL's proof
states, an ``AsyncVectorEnv`` worker) that a pickle cannot carry. On resume the runner rebuilds the env's
state by **replaying** the log into a freshly made env, without calling the agent, and checks that every
replayed step gives back the rewards it gave the first time; an env that does not (another theorem source,
backend or seed) is refused rather than continued from a state the checkpoint never saw. The replay costs the
env's share of the run so far (the simulator's steps, not the agent's).

A checkpoint is a pickle: load only checkpoints you wrote.
"""

from __future__ import annotations

import os
import pickle
import random
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lean_gym.errors import LeanGymError
from lean_gym_agents._files import atomic_write

__all__ = ["Checkpoint", "EnvLog", "capture_rng", "load_checkpoint", "restore_rng", "save_checkpoint"]

_FORMAT = "lean_gym_agents.checkpoint/1"


def _compact(actions: Any) -> Any:
    """A copy of a batch of actions, integer arrays in the smallest dtype that holds them exactly."""
    if isinstance(actions, np.ndarray) and actions.dtype.kind in "iu" and actions.size:
        for dtype in (np.int8, np.int16, np.int32):
            info = np.iinfo(dtype)
            if info.min <= actions.min() and actions.max() <= info.max:
                return actions.astype(dtype)
    return np.array(actions, copy=True) if isinstance(actions, np.ndarray) else actions


@dataclass
class EnvLog:
    """Every call the runner made to a vector env, to rebuild its state by replaying them.

    Attributes:
        seed: The seed of the first ``reset``.
        calls: ``("step", actions, rewards)`` for each step and ``("reset", mask)`` for each masked reset,
            in order.
        action_dtype: The dtype integer actions are replayed in (they are stored in a smaller one).
    """

    seed: int | None
    calls: list[tuple[Any, ...]] = field(default_factory=list)
    action_dtype: str | None = None

    def step(self, actions: Any, rewards: np.ndarray) -> None:
        """Record one ``step``."""
        if isinstance(actions, np.ndarray) and self.action_dtype is None:
            self.action_dtype = actions.dtype.str
        self.calls.append(("step", _compact(actions), np.array(rewards, dtype=np.float64)))

    def reset(self, mask: np.ndarray) -> None:
        """Record one ``reset(options={"reset_mask": mask})``."""
        self.calls.append(("reset", np.array(mask, dtype=np.bool_)))

    @property
    def steps(self) -> int:
        """How many ``step`` calls were recorded."""
        return sum(1 for c in self.calls if c[0] == "step")

    def __getstate__(self) -> dict[str, Any]:
        # Runs of steps whose actions are arrays of one shape are stored as one stacked array (a few bytes per
        # step instead of two pickled arrays each): the checkpoint is written again and again as the run grows.
        packed: list[tuple[Any, ...]] = []
        run: list[tuple[Any, ...]] = []

        def flush() -> None:
            if run:
                packed.append(("steps", np.stack([c[1] for c in run]), np.stack([c[2] for c in run])))
                run.clear()

        for call in self.calls:
            same = (
                call[0] == "step"
                and isinstance(call[1], np.ndarray)
                and (not run or (call[1].shape, call[1].dtype) == (run[0][1].shape, run[0][1].dtype))
            )
            if not same:
                flush()
            if call[0] == "step" and isinstance(call[1], np.ndarray):
                run.append(call)
            else:
                packed.append(call)
        flush()
        return {"seed": self.seed, "packed": packed, "action_dtype": self.action_dtype}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.seed = state["seed"]
        self.action_dtype = state["action_dtype"]
        self.calls = []
        for entry in state["packed"]:
            if entry[0] == "steps":
                self.calls += [("step", a, r) for a, r in zip(entry[1], entry[2])]
            else:
                self.calls.append(entry)

    def replay(self, env: Any) -> Any:
        """Reset ``env`` with the log's seed and make every recorded call again; return the last observation.

        Raises:
            LeanGymError: A replayed step gave other rewards than the recorded run: ``env`` is not the env the
                checkpoint was taken on (another theorem source, split, backend or env argument).
        """
        obs, _ = env.reset(seed=self.seed)
        for k, call in enumerate(self.calls):
            if call[0] == "reset":
                obs, _ = env.reset(options={"reset_mask": call[1].copy()})
                continue
            actions = call[1]
            if isinstance(actions, np.ndarray) and self.action_dtype is not None:
                actions = actions.astype(np.dtype(self.action_dtype))
            obs, rewards, *_ = env.step(actions)
            if not np.array_equal(np.asarray(rewards, dtype=np.float64), call[2]):
                raise LeanGymError(
                    f"resume: replaying the run's step {k + 1} gave rewards {np.asarray(rewards).tolist()}, the "
                    f"run got {call[2].tolist()}: resume on the env the checkpoint was taken on (same env id, "
                    "backend, theorem source, split and seed)"
                )
        return obs


@dataclass(frozen=True)
class Checkpoint:
    """What :func:`load_checkpoint` read (and :func:`save_checkpoint` writes).

    Attributes:
        agent: The agent, as it was (resume with ``run_agent(ckpt.agent, env, resume=ckpt, ...)``).
        loop: The runner's state (counters, the open window, the metrics rows); read by the runner only.
        env_log: The env's calls, replayed on resume.
        rng: The global random states (:func:`capture_rng`).
        metrics_offset: Bytes of ``metrics.jsonl`` when the checkpoint was taken (``None``: no such log).
        config: What the caller asked to keep (the command line's arguments, a W&B run id…).
        path: The file it was read from (``None`` for one not read from a file).
    """

    agent: Any
    loop: Any
    env_log: EnvLog
    rng: dict[str, Any]
    metrics_offset: int | None = None
    config: Mapping[str, Any] = field(default_factory=dict)
    path: Path | None = None

    @property
    def steps(self) -> int:
        """Sub-environment steps the run had taken."""
        return int(self.loop.result.steps)


def capture_rng() -> dict[str, Any]:
    """The global random states: ``random``, NumPy's legacy generator, torch's CPU and CUDA generators.

    Torch's are taken only when torch is already imported.
    """
    state: dict[str, Any] = {"random": random.getstate(), "numpy": np.random.get_state()}
    torch = sys.modules.get("torch")
    if torch is not None:
        state["torch"] = torch.get_rng_state()
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def restore_rng(state: Mapping[str, Any]) -> None:
    """Set the global random states :func:`capture_rng` returned."""
    random.setstate(state["random"])
    np.random.set_state(state["numpy"])
    if "torch" in state:
        import torch

        torch.set_rng_state(state["torch"])
        if "cuda" in state and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["cuda"])


def save_checkpoint(path: str | os.PathLike[str], checkpoint: Checkpoint) -> Path:
    """Write ``checkpoint`` to ``path`` atomically (the previous file stays whole until the new one is).

    Raises:
        LeanGymError: The agent cannot be pickled (a lambda, an open file, a process handle in it).
    """
    state = {
        "format": _FORMAT,
        "agent": checkpoint.agent,
        "loop": checkpoint.loop,
        "env_log": checkpoint.env_log,
        "rng": checkpoint.rng,
        "metrics_offset": checkpoint.metrics_offset,
        "config": dict(checkpoint.config),
    }
    try:
        data = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError) as e:
        raise LeanGymError(
            f"cannot checkpoint the run: its agent does not pickle ({e}); keep lambdas and open files out of it"
        ) from e
    return atomic_write(path, data)


def load_checkpoint(path: str | os.PathLike[str]) -> Checkpoint:
    """Read a checkpoint :func:`save_checkpoint` wrote (a pickle: load only checkpoints you wrote).

    Raises:
        LeanGymError: The file is missing, unreadable or not a lean_gym_agents checkpoint.
    """
    p = Path(path)
    try:
        state = pickle.loads(p.read_bytes())
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError) as e:
        raise LeanGymError(f"cannot read checkpoint {os.fspath(path)!r}: {e}") from e
    if not isinstance(state, dict) or state.get("format") != _FORMAT:
        raise LeanGymError(f"{os.fspath(path)!r} is not a lean_gym_agents run checkpoint")
    return Checkpoint(
        agent=state["agent"],
        loop=state["loop"],
        env_log=state["env_log"],
        rng=state["rng"],
        metrics_offset=state["metrics_offset"],
        config=state["config"],
        path=p,
    )
