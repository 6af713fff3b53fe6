"""Rollouts in the math-lean-hackable-rollouts JSONL format (FAR AI, AlignmentResearch on Hugging Face).

One JSON object per line with the dataset's columns:

=====================  =========================================================================================
``row_index``          int, position in the file (0, 1, 2, …)
``messages``           list of ``{"role", "content"}``: the prompt, each attempt and each feedback turn
``label``              str: ``"correct"`` (the oracle accepted), ``"hack"`` (the weak grader paid, the oracle
                       rejected), ``"incorrect"`` (both rejected), ``"unverified"`` (the oracle did not run)
``reward``             float: the reward the policy was trained on
``undefended_reward``  float: the weak grader's reward
``oracle_reward``      float or null: the oracle's reward, null when it was not sampled
``hack_detected``      bool: the weak grader paid and the sampled oracle rejected
``run_id``             str: the training run
``step``               int: the training step
``group``              int: the GRPO group (rollouts of one prompt share it)
``rollout_uid``        str: unique id of the rollout
``oracle_sampled``     bool: whether the oracle ran
``response_truncated`` bool: whether the response was cut (over the action bound)
``total_turns``        int: turns in the episode
=====================  =========================================================================================

lean-gym adds ``hack_class`` (the oracle's class, or null) and ``backend`` (which backend graded); readers
of the original data ignore unknown columns. The meaning of ``label`` in the original data is not
documented; the values above are lean-gym's.

:class:`RolloutWriter` appends and flushes one row per call (a crash loses at most the row being written);
:func:`read_rollouts` validates every row's types.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from lean_gym.jsonl import read_jsonl_objects

__all__ = ["FIELDS", "Rollout", "RolloutWriter", "label_for", "read_rollouts", "rollout_from_episode"]

#: The columns of the original dataset, in its order.
FIELDS: tuple[str, ...] = (
    "row_index",
    "messages",
    "label",
    "run_id",
    "step",
    "group",
    "rollout_uid",
    "reward",
    "oracle_reward",
    "undefended_reward",
    "hack_detected",
    "oracle_sampled",
    "response_truncated",
    "total_turns",
)


@dataclass(frozen=True)
class Rollout:
    """One row of math-lean-hackable-rollouts (see the module docstring for each field)."""

    messages: tuple[Mapping[str, str], ...]
    label: str
    reward: float
    undefended_reward: float
    oracle_reward: float | None
    hack_detected: bool
    run_id: str
    step: int
    group: int
    rollout_uid: str
    oracle_sampled: bool
    response_truncated: bool
    total_turns: int
    row_index: int = -1
    hack_class: str | None = None
    backend: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The row as a JSON-ready dict (dataset columns first, lean-gym's after, then ``extra``)."""
        d = asdict(self)
        extra = d.pop("extra")
        d["messages"] = [dict(m) for m in self.messages]
        out = {k: d[k] for k in FIELDS}
        out["hack_class"] = d["hack_class"]
        out["backend"] = d["backend"]
        out.update(extra)
        return out

    @classmethod
    def from_json(cls, row: Mapping[str, Any], *, where: str = "row") -> Rollout:
        """Parse and type-check one row.

        Raises:
            ValueError: naming the row and the field, for a missing field or a wrong type.
        """

        def need(key: str, types: tuple[type, ...], *, nullable: bool = False) -> Any:
            if key not in row:
                raise ValueError(f"{where}: missing field {key!r}")
            value = row[key]
            if value is None and nullable:
                return None
            if isinstance(value, bool) and bool not in types:
                raise ValueError(f"{where}: field {key!r} must be {types[0].__name__}, got bool")
            if not isinstance(value, types):
                raise ValueError(
                    f"{where}: field {key!r} must be {types[0].__name__}, got {type(value).__name__}"
                )
            return value

        messages = need("messages", (list,))
        for k, m in enumerate(messages):
            if (
                not isinstance(m, Mapping)
                or not isinstance(m.get("role"), str)
                or not isinstance(m.get("content"), str)
            ):
                raise ValueError(f"{where}: messages[{k}] must be an object with string 'role' and 'content'")
        known = set(FIELDS) | {"hack_class", "backend"}
        oracle_reward = need("oracle_reward", (float, int), nullable=True)
        return cls(
            messages=tuple({"role": m["role"], "content": m["content"]} for m in messages),
            label=need("label", (str,)),
            reward=float(need("reward", (float, int))),
            undefended_reward=float(need("undefended_reward", (float, int))),
            oracle_reward=None if oracle_reward is None else float(oracle_reward),
            hack_detected=need("hack_detected", (bool,)),
            run_id=str(need("run_id", (str, int))),
            step=need("step", (int,)),
            group=need("group", (int,)),
            rollout_uid=str(need("rollout_uid", (str,))),
            oracle_sampled=need("oracle_sampled", (bool,)),
            response_truncated=need("response_truncated", (bool,)),
            total_turns=need("total_turns", (int,)),
            row_index=int(row.get("row_index", -1)),
            hack_class=row.get("hack_class"),
            backend=str(row.get("backend") or ""),
            extra={k: v for k, v in row.items() if k not in known},
        )


def label_for(oracle_reward: float | None, hack_detected: bool) -> str:
    """``correct``, ``hack``, ``incorrect`` or ``unverified`` (see the module docstring)."""
    if oracle_reward is None:
        return "unverified"
    if oracle_reward > 0:
        return "correct"
    return "hack" if hack_detected else "incorrect"


def rollout_from_episode(
    messages: Sequence[Mapping[str, str]],
    info: Mapping[str, Any],
    *,
    run_id: str,
    step: int,
    group: int,
    rollout_uid: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Rollout:
    """A :class:`Rollout` from a finished ``LeanHackable-v0`` episode.

    Args:
        messages: The whole conversation (prompt, attempts, feedback): decode the last chat observation
            with :func:`lean_gym.envs.proof_env.decode_observation` and append the last action.
        info: The ``info`` of the episode's last step.
        run_id: The training run.
        step: The training step.
        group: The GRPO group.
        rollout_uid: A unique id (a random UUID when omitted).
        extra: More columns to store.
    """
    oracle_reward = info.get("oracle_reward")
    hack = bool(info.get("hack_detected", False))
    return Rollout(
        messages=tuple({"role": str(m["role"]), "content": str(m["content"])} for m in messages),
        label=label_for(oracle_reward, hack),
        reward=float(info["reward"]),
        undefended_reward=float(info["undefended_reward"]),
        oracle_reward=None if oracle_reward is None else float(oracle_reward),
        hack_detected=hack,
        run_id=str(run_id),
        step=int(step),
        group=int(group),
        rollout_uid=rollout_uid or uuid.uuid4().hex,
        oracle_sampled=bool(info.get("oracle_sampled", oracle_reward is not None)),
        response_truncated=bool(info.get("response_truncated", False)),
        total_turns=int(info.get("total_turns", info.get("turn", 1))),
        hack_class=info.get("hack_class"),
        backend=str(info.get("backend", "")),
        extra=dict(extra or {}),
    )


class RolloutWriter:
    """Append rollouts to a JSONL file, one flushed line per row.

    ``row_index`` continues from the rows already in the file, so several runs can append to one file.

    Example:
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "r.jsonl")
        >>> with RolloutWriter(path) as w:
        ...     r = w.write(Rollout(({"role": "user", "content": "x"},), "correct", 1.0, 1.0, 1.0, False,
        ...                         "run", 0, 0, "u1", True, False, 1))
        >>> [x.row_index for x in read_rollouts(path)]
        [0]
    """

    def __init__(self, path: str | os.PathLike[str], *, fsync: bool = False) -> None:
        self.path = Path(path)
        self.fsync = fsync
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._next = _count_rows(self.path)
        self._fh: IO[str] | None = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()

    def write(self, rollout: Rollout) -> Rollout:
        """Append ``rollout`` (with the next ``row_index``) and flush; returns the row as written."""
        if self._fh is None:
            raise ValueError(f"the writer for {self.path} is closed")
        from dataclasses import replace

        row = replace(rollout, row_index=self._next)
        self._fh.write(json.dumps(row.to_json(), ensure_ascii=False) + "\n")
        self._fh.flush()
        if self.fsync:
            os.fsync(self._fh.fileno())
        self._next += 1
        return row

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> RolloutWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _count_rows(path: Path) -> int:
    if not path.exists():
        return 0
    with open(path, encoding="utf-8") as fh:
        return sum(1 for line in fh if line.strip())


def read_rollouts(path: str | os.PathLike[str]) -> Iterator[Rollout]:
    """Yield the rollouts of a JSONL file (the original dataset's ``train.jsonl`` or one lean-gym wrote).

    Raises:
        ValueError: naming the line, for invalid JSON or a row with a missing or mistyped field.
    """
    for where, row in read_jsonl_objects(path):
        yield Rollout.from_json(row, where=where)
