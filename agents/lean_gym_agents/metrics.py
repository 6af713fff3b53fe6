"""Where a run's metrics go: a JSONL log written row by row, a CSV, a learning-curve PNG, TensorBoard, W&B.

Metric names follow CleanRL's namespaces (``docs/agents.md`` lists them all):

* ``global_step``: sub-environment steps so far (the x axis of every writer);
* ``charts/…``: what the episodes did (``charts/episodic_return``, ``charts/episodic_length`` from
  ``info["episode"]``, ``charts/success_rate``, ``charts/success_so_far``, ``charts/reward_mean``,
  ``charts/episodes``) and the throughput ``charts/SPS``; an evaluation run (``train=False``) writes the same
  names under ``eval/…``;
* ``losses/…``: the mean over the window of every value the agent's ``update`` returned (a name that already
  holds a ``/`` keeps its own namespace).

Every writer implements :class:`MetricWriter`: ``write(row, step)``, ``flush()``, ``close()``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from lean_gym.errors import MissingDependencyError
from lean_gym_agents._files import atomic_write

__all__ = [
    "JsonlLog",
    "MetricWriter",
    "TensorBoardWriter",
    "WandbWriter",
    "namespaced",
    "plot_curve",
    "write_csv",
    "write_metrics",
]


def namespaced(name: str, prefix: str = "losses") -> str:
    """``name`` under ``prefix/`` unless it already names its own namespace (holds a ``/``)."""
    return name if "/" in name else f"{prefix}/{name}"


def _finite(row: Mapping[str, float]) -> dict[str, float]:
    """The row's values that are numbers (NaN, a window without episodes, is left out)."""
    return {k: float(v) for k, v in row.items() if isinstance(v, (int, float)) and not math.isnan(v)}


def _json_row(row: Mapping[str, float]) -> str:
    return json.dumps({k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()})


@runtime_checkable
class MetricWriter(Protocol):
    """Where the runner sends each logged row (``step`` is the row's ``global_step``)."""

    def write(self, row: Mapping[str, float], step: int) -> None:
        """Log one row of metrics at ``step``."""
        ...

    def flush(self) -> None:
        """Push what was written to its destination."""
        ...

    def close(self) -> None:
        """Flush and release the destination; the writer is unusable afterwards."""
        ...


class JsonlLog:
    """``metrics.jsonl``, one row per line, each row flushed as it is written.

    Args:
        path: The file.
        resume_at: Continue a run: cut the file to this byte offset (what :meth:`offset` returned when the
            checkpoint was taken; rows after it are written again by the resumed run) and append. ``None``
            starts a new file.
    """

    def __init__(self, path: str | os.PathLike[str], *, resume_at: int | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if resume_at is None:
            self._f = open(self.path, "w", encoding="utf-8")  # noqa: SIM115  (closed by close())
        else:
            if not self.path.is_file() or self.path.stat().st_size < resume_at:
                size = self.path.stat().st_size if self.path.is_file() else 0
                raise OSError(
                    f"{self.path} holds {size} bytes, fewer than the {resume_at} the checkpoint saw: "
                    "it is not the metrics log of this run"
                )
            self._f = open(self.path, "r+", encoding="utf-8")  # noqa: SIM115
            self._f.truncate(resume_at)
            self._f.seek(resume_at)

    def write(self, row: Mapping[str, float], step: int) -> None:
        """Append ``row`` (NaN written as ``null``) and flush it to the OS."""
        self._f.write(_json_row(row) + "\n")
        self._f.flush()

    def offset(self) -> int:
        """Sync the file to disk and return its length: where a resumed run continues."""
        self._f.flush()
        os.fsync(self._f.fileno())
        return self._f.tell()

    def flush(self) -> None:
        """Push what was written to its destination."""
        self._f.flush()

    def close(self) -> None:
        """Flush and release the destination."""
        if not self._f.closed:
            self._f.close()


def write_csv(rows: Sequence[Mapping[str, float]], path: str | os.PathLike[str]) -> Path:
    """All ``rows`` as a CSV (the union of their keys as columns), written atomically."""
    keys: list[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=keys)
    writer.writeheader()
    for row in rows:
        writer.writerow(row)
    return atomic_write(path, text.getvalue().encode("utf-8"))


def _summary_writer(log_dir: Path, purge_step: int | None) -> Any:
    try:
        from tensorboardX import SummaryWriter
    except ImportError:
        try:
            from torch.utils.tensorboard import SummaryWriter  # needs the tensorboard package
        except ImportError as e:
            raise MissingDependencyError(
                "TensorBoard logging needs tensorboardX: `pip install tensorboardX` (in the agents extra), "
                "or turn it off with --no-tensorboard"
            ) from e
    # The event file is named by the second it was opened in and opened with "wb": a resumed run that starts
    # within the same second as the run before it would wipe its events. A suffix counting the files already
    # there keeps every part, in the order TensorBoard reads them (by name).
    part = len(list(log_dir.glob("events.out.tfevents.*"))) if log_dir.is_dir() else 0
    return SummaryWriter(str(log_dir), purge_step=purge_step, filename_suffix=f".{part:04d}")


class TensorBoardWriter:
    """TensorBoard event files: every number of a row as a scalar at its ``global_step``.

    Uses ``tensorboardX`` (or ``torch.utils.tensorboard`` when only that is installed).

    Args:
        log_dir: The folder of the event files (``tensorboard --logdir`` it).
        purge_step: Continue a run from a checkpoint taken at step ``purge_step - 1``: TensorBoard hides the
            events an interrupted run wrote at or after this step, which the resumed run writes again.

    Raises:
        MissingDependencyError: Neither ``tensorboardX`` nor ``tensorboard`` is installed.
    """

    def __init__(self, log_dir: str | os.PathLike[str], *, purge_step: int | None = None) -> None:
        self.log_dir = Path(log_dir)
        self._w = _summary_writer(self.log_dir, purge_step)

    def write(self, row: Mapping[str, float], step: int) -> None:
        """Log one row of metrics at ``step``."""
        for key, value in _finite(row).items():
            if key != "global_step":
                self._w.add_scalar(key, value, global_step=step)

    def flush(self) -> None:
        """Push what was written to its destination."""
        self._w.flush()

    def close(self) -> None:
        """Flush and release the destination."""
        self._w.close()


class WandbWriter:
    """A Weights & Biases run (``WANDB_MODE=offline`` keeps it on disk), resumable by its id.

    Args:
        project: The W&B project.
        entity: The team or user (``None``: the default one).
        name: The run's display name.
        config: The run's hyperparameters.
        run_id: Resume this run (the id a checkpoint saved); ``None`` starts a new one.
        folder: Where W&B keeps its files (``None``: its default).

    Raises:
        MissingDependencyError: ``wandb`` is not installed.
    """

    def __init__(
        self,
        *,
        project: str,
        entity: str | None = None,
        name: str | None = None,
        config: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        folder: str | os.PathLike[str] | None = None,
    ) -> None:
        try:
            import wandb
        except ImportError as e:
            raise MissingDependencyError("--track logs to Weights & Biases: `pip install wandb`") from e
        self._run = wandb.init(
            project=project,
            entity=entity,
            name=name,
            config=dict(config or {}),
            id=run_id,
            resume="allow",
            dir=None if folder is None else os.fspath(folder),
        )
        self.run_id: str = str(self._run.id)

    def write(self, row: Mapping[str, float], step: int) -> None:
        """Log one row of metrics at ``step``."""
        self._run.log({k: v for k, v in _finite(row).items() if k != "global_step"}, step=step)

    def flush(self) -> None:
        """W&B sends in the background; nothing to do."""

    def close(self) -> None:
        """Flush and release the destination."""
        self._run.finish()


def write_metrics(
    metrics: Sequence[Mapping[str, float]],
    out_dir: str | os.PathLike[str],
    *,
    plot: bool | None = None,
    title: str = "",
    backend: str = "",
) -> dict[str, Path]:
    """Write ``metrics.jsonl``, ``metrics.csv`` and (with matplotlib) ``learning_curve.png`` to ``out_dir``.

    ``backend`` (what produced the rewards) goes into the PNG's title.

    Raises:
        MissingDependencyError: ``plot=True`` without matplotlib (the ``agents`` extra).
    """
    out = Path(out_dir)
    paths = {
        "jsonl": atomic_write(out / "metrics.jsonl", "".join(_json_row(r) + "\n" for r in metrics).encode()),
        "csv": write_csv(metrics, out / "metrics.csv"),
    }
    if plot is not False:
        try:
            paths["png"] = plot_curve(metrics, out / "learning_curve.png", title=title, backend=backend)
        except MissingDependencyError:
            if plot:
                raise
    return paths


def _curve_keys(metrics: Sequence[Mapping[str, float]]) -> tuple[str, ...]:
    names = ("success_rate", "success_so_far")
    for prefix in ("charts", "eval"):
        if any(f"{prefix}/{names[0]}" in row for row in metrics):
            return tuple(f"{prefix}/{n}" for n in names)
    return tuple(f"charts/{n}" for n in names)


def plot_curve(
    metrics: Sequence[Mapping[str, float]],
    path: str | os.PathLike[str],
    *,
    keys: Sequence[str] | None = None,
    title: str = "",
    backend: str = "",
) -> Path:
    """A learning curve PNG: ``keys`` against ``global_step``, its title naming the backend of the rewards.

    Args:
        metrics: The logged rows.
        path: The PNG.
        keys: The curves (default: ``charts/success_rate`` and ``charts/success_so_far``, or their ``eval/``
            names for an evaluation run).
        title: The figure's title, before the backend.
        backend: What gave the rewards (``sim…`` is marked as the simulator, not Lean).

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
    keys = _curve_keys(metrics) if keys is None else keys
    steps = [row["global_step"] for row in metrics]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for key in keys:
        ys = [row.get(key, math.nan) for row in metrics]
        if not all(isinstance(y, float) and math.isnan(y) for y in ys):
            ax.plot(steps, ys, marker=".", label=key)
    ax.set_xlabel("global_step")
    ax.set_ylabel("success")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    where = "backend unknown" if not backend else f"backend: {backend}"
    if backend.startswith("sim") or backend.startswith("ray:sim"):
        where += " (the simulator, not Lean)"
    ax.set_title(f"{title} — {where}" if title else where, fontsize=10)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    plt.close(fig)
    return atomic_write(path, buf.getvalue())
