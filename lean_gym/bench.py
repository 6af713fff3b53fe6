"""``lean-gym bench``: vectorized rollout throughput of any registered env, in every vector mode.

For each mode (``sync``, ``async``, ``pooled``, ``ray``) and each N it builds a vector env of N copies,
warms it up, then times a loop of vector steps on pre-drawn random actions. Figures:

* **throughput** = completed env steps / wall time of the timed loop (never 1 / median latency);
* **p50 / p95 step latency**: of one vector step (all N envs), in ms;
* **speed-up** over N = 1 in the same mode;
* **env overhead** (pooled and ray modes): (checks + env layer) / checks, where the checks' time is exactly
  the timed loop's batches sent straight to a fresh backend of the same kind, and the env layer's time
  (rendering, observations, bookkeeping) is the same loop, same seed and actions, answered from the
  recorded verdicts at no cost.

The verdict cache is off and autoreset is ``SAME_STEP``, so every step is one real check (the episode's
reset is part of the step, as in training). The backend is always named; the simulator is not Lean.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from lean_gym.backends.base import Backend, CheckResult
from lean_gym.errors import ConfigError

__all__ = ["MODES", "BenchReport", "BenchRow", "format_report", "parse_sizes", "run_bench"]

MODES = ("sync", "async", "pooled", "ray")
DEFAULT_MODES = ("sync", "async", "pooled")
DEFAULT_SIZES = (1, 2, 4, 8)
_REPL_SPECS = ("sim-repl", "repl")  # backends with a process pool (sized to N in the pooled mode)
_TEXT_ACTIONS = (
    "  simp",
    "  ring",
    "  omega",
    "  norm_num",
    "  linarith",
    "  nlinarith [sq_nonneg 0]",
    "  aesop",
)
_WARMUP_STEPS = 2


@dataclass(frozen=True)
class BenchRow:
    """One configuration's figures.

    Attributes:
        mode: ``sync``, ``async``, ``pooled`` or ``ray``.
        num_envs: N, the vector env's size.
        steps: Completed env steps in the timed loop (N × vector steps).
        wall_s: Wall time of the timed loop.
        steps_per_s: ``steps / wall_s``.
        p50_ms: Median latency of one vector step.
        p95_ms: 95th percentile latency of one vector step.
        speedup: ``steps_per_s`` over the same mode's at N = 1 (``None`` without an N = 1 row).
        env_overhead: (checks + env layer) / checks, pooled and ray modes (``None`` otherwise): the checks'
            time is the timed loop's batches sent straight to a fresh backend of the same kind, the layer's
            is the same loop answered from the recorded verdicts at no cost.
        layer_us_per_step: The env layer's own time per env step (pooled and ray modes).
        backend: The backend object the envs used (``"sim"``, ``"sim-repl"``, ``"ray:sim-repl"``, …).
        verdicts_by: Which backend produced the verdicts (``info["backend"]``).
        statuses: Verdict counts of the timed steps.
    """

    mode: str
    num_envs: int
    steps: int
    wall_s: float
    steps_per_s: float
    p50_ms: float
    p95_ms: float
    speedup: float | None
    env_overhead: float | None
    layer_us_per_step: float | None
    backend: str
    verdicts_by: str
    statuses: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class BenchReport:
    """Everything one ``lean-gym bench`` run measured (``asdict`` is its ``--json`` form)."""

    env_id: str
    backend: str
    steps_per_row: int
    seed: int
    rows: list[BenchRow]
    cpu_count: int | None = os.cpu_count()

    def to_json(self) -> dict[str, Any]:
        """The row as a JSON-ready dict."""
        return asdict(self)


def parse_sizes(text: str) -> list[int]:
    """``"1,2,4,8"`` → ``[1, 2, 4, 8]``.

    Raises:
        ConfigError: a size that is not a positive integer.
    """
    try:
        sizes = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        raise ConfigError(f"-n takes positive env counts like 1,2,4,8, not {text!r}")
    return sizes


def _parse_modes(modes: Sequence[str]) -> list[str]:
    out = []
    for m in modes:
        if m not in MODES:
            raise ConfigError(f"unknown mode {m!r}: choose from {', '.join(MODES)}")
        if m not in out:
            out.append(m)
    if not out:
        raise ConfigError(f"no mode given: choose from {', '.join(MODES)}")
    return out


class _Recording:
    """A backend that passes every call through and records the batches sent while ``recording``."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner
        self.name = inner.name
        self.recording = False
        self.warmup: list[tuple[list[str], list[str], float | None]] = []
        self.batches: list[tuple[list[str], list[str], float | None]] = []
        self.answers: dict[tuple[str, str], CheckResult] = {}

    def _log(self, codes: Sequence[str], headers: Sequence[str], timeout: float | None) -> None:
        (self.batches if self.recording else self.warmup).append((list(codes), list(headers), timeout))

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        return self.check_batch([code], header=[header], timeout=timeout)[0]

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        headers = [header] * len(codes) if isinstance(header, str) else list(header)
        self._log(codes, headers, timeout)
        results = self.inner.check_batch(codes, header=headers, timeout=timeout)
        self.answers.update(zip(zip(codes, headers), results))
        return results

    def close(self) -> None:
        self.inner.close()


class _Replay:
    """A backend that answers from recorded verdicts at no cost: what is left is the env layer's own time."""

    def __init__(self, answers: dict[tuple[str, str], CheckResult], name: str) -> None:
        self.answers = answers
        self.name = name

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        return self.answers[code, header]

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        headers = [header] * len(codes) if isinstance(header, str) else list(header)
        return [self.answers[c, h] for c, h in zip(codes, headers)]

    def close(self) -> None:
        pass


def _forget_sim_memo() -> None:
    """Clear the in-process simulator's memo of sub-tactic results, so compared runs start equally cold."""
    try:
        from lean_gym.sim.aesop import clear_cache
    except ImportError:
        return
    clear_cache()


def _shared_backend(mode: str, spec: str, n: int, ray_actors: int) -> Backend:
    from lean_gym.backends import make_backend

    if mode == "ray":
        from lean_gym.distributed import RayBackend

        return RayBackend(spec, num_actors=ray_actors, num_cpus_per_actor=_ray_cpus(ray_actors))
    if spec in _REPL_SPECS:
        return make_backend(spec, pool_size=n)
    return make_backend(spec)


def _ray_cpus(actors: int) -> float:
    import ray

    if not ray.is_initialized():
        ray.init(include_dashboard=False, log_to_driver=False)
    total = float(ray.cluster_resources().get("CPU", 1.0))
    return max(0.01, min(1.0, total / actors))


def _make_vec(env_id: str, mode: str, n: int, backend: Any, data: dict[str, Any] | None = None) -> Any:
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode

    kwargs: dict[str, Any] = {"backend": backend, "cache_size": 0, **(data or {})}
    if mode in ("pooled", "ray"):
        return gym.make_vec(
            env_id,
            num_envs=n,
            vectorization_mode="vector_entry_point",
            autoreset_mode=AutoresetMode.SAME_STEP,
            **kwargs,
        )
    vector_kwargs: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}
    if mode == "async":
        # strings pickled through the pipes, as the documented figures were measured (the default shared
        # memory gives the real strings too: lean_gym.envs.spaces registers gymnasium's hooks for LeanText)
        vector_kwargs["shared_memory"] = False
    return gym.make_vec(env_id, num_envs=n, vectorization_mode=mode, vector_kwargs=vector_kwargs, **kwargs)


def _actions(venv: Any, count: int, seed: int) -> list[Any]:
    import gymnasium as gym

    space = venv.single_action_space
    if isinstance(space, gym.spaces.Text):  # whole-proof envs: plausible tactic blocks, not random glyphs
        rng = np.random.default_rng(seed)
        return [
            tuple(_TEXT_ACTIONS[int(k)] for k in rng.integers(len(_TEXT_ACTIONS), size=venv.num_envs))
            for _ in range(count)
        ]
    venv.action_space.seed(seed)
    return [venv.action_space.sample() for _ in range(count)]


def _replay(spec: str, mode: str, n: int, ray_actors: int, rec: _Recording) -> float:
    """Wall time of sending the recorded timed batches straight to a fresh backend of the same kind."""
    fresh = _shared_backend(mode, spec, n, ray_actors)
    try:
        for codes, headers, timeout in rec.warmup:  # the headers, imported as in the env's warm-up
            fresh.check_batch(codes, header=headers, timeout=timeout)
        _forget_sim_memo()
        t0 = time.perf_counter()
        for codes, headers, timeout in rec.batches:
            fresh.check_batch(codes, header=headers, timeout=timeout)
        return time.perf_counter() - t0
    finally:
        fresh.close()


def bench_one(
    env_id: str,
    mode: str,
    n: int,
    *,
    backend: str,
    steps: int,
    seed: int,
    ray_actors: int = 2,
    data: dict[str, Any] | None = None,
) -> BenchRow:
    """Time one configuration (see the module docstring); ``speedup`` is left ``None``.

    ``data`` holds the envs' ``source``/``split`` when the theorems are not the env's default ones.
    """
    rec: _Recording | None = None
    env_backend: Any = backend
    if mode in ("pooled", "ray"):
        rec = _Recording(_shared_backend(mode, backend, n, ray_actors))
        env_backend = rec
    vector_steps = max(1, math.ceil(steps / n))
    venv = _make_vec(env_id, mode, n, env_backend, data)
    try:
        wall, latencies, statuses, producers = _timed_loop(venv, n, vector_steps, seed, rec)
        name = rec.name if rec is not None else _backend_name(venv, backend)
    finally:
        venv.close()
        if rec is not None:
            rec.close()
    overhead = layer = None
    if rec is not None:
        # (checks + env layer) / checks: the checks' time is the same batches sent straight to a fresh
        # backend; the layer's is the same loop (same seed, same actions) answered from the recorded verdicts.
        raw = _replay(backend, mode, n, ray_actors, rec)
        replay_env = _make_vec(env_id, "pooled", n, _Replay(rec.answers, rec.name), data)
        try:
            layer = _timed_loop(replay_env, n, vector_steps, seed, None)[0]
        finally:
            replay_env.close()
        overhead = (raw + layer) / raw if raw > 0 else None
    done = n * vector_steps
    return BenchRow(
        mode=mode,
        num_envs=n,
        steps=done,
        wall_s=wall,
        steps_per_s=done / wall,
        p50_ms=float(np.percentile(latencies, 50)) * 1e3,
        p95_ms=float(np.percentile(latencies, 95)) * 1e3,
        speedup=None,
        env_overhead=overhead,
        layer_us_per_step=None if layer is None else layer / done * 1e6,
        backend=name,
        verdicts_by=",".join(sorted(producers)),
        statuses=statuses,
    )


def _timed_loop(
    venv: Any, n: int, vector_steps: int, seed: int, rec: _Recording | None
) -> tuple[float, np.ndarray, dict[str, int], set[str]]:
    """Reset, warm up, then time ``vector_steps`` steps on pre-drawn actions.

    Returns (wall, latencies, statuses, backends that produced the verdicts).
    """
    venv.reset(seed=seed)
    actions = _actions(venv, vector_steps + _WARMUP_STEPS, seed)
    for a in actions[:_WARMUP_STEPS]:  # starts processes, imports headers
        venv.step(a)
    _forget_sim_memo()
    if rec is not None:
        rec.recording = True
    latencies = np.zeros(vector_steps)
    statuses: dict[str, int] = {}
    producers: set[str] = set()
    clock = time.perf_counter
    t_start = clock()
    for k, a in enumerate(actions[_WARMUP_STEPS:]):
        t0 = clock()
        _, _, _, _, info = venv.step(a)
        latencies[k] = clock() - t0
        for status, by in _verdicts(info, n):
            statuses[status] = statuses.get(status, 0) + 1
            producers.add(by)
    return clock() - t_start, latencies, statuses, producers


def _verdicts(info: dict[str, Any], n: int) -> list[tuple[str, str]]:
    """Each env's (status, backend) of this step.

    Read from ``final_info`` where its episode ended (SAME_STEP autoreset puts the step's own info there
    and the new episode's in ``info``).
    """
    out = []
    final = info.get("final_info") or {}
    ended = info.get("_final_info", np.zeros(n, dtype=bool))
    for i in range(n):
        src = final if ended[i] else info
        mask = src.get("_status")
        if "status" in src and (mask is None or mask[i]):
            out.append((str(src["status"][i]), str(src["backend"][i])))
    return out


def _backend_name(venv: Any, spec: str) -> str:
    envs = getattr(venv, "envs", None)
    if envs:  # sync: the sub-envs' own backends
        return str(envs[0].unwrapped.backend.name)
    return spec  # async: the backends live in the worker processes; their verdicts name them


def run_bench(
    env_id: str = "LeanAesop-v0",
    *,
    backend: str = "auto",
    modes: Sequence[str] | None = None,
    sizes: Sequence[int] = DEFAULT_SIZES,
    steps: int = 200,
    seed: int = 0,
    ray_actors: int = 2,
    progress: Callable[[str], None] | None = None,
    source: str | None = None,
    split: str | None = None,
) -> BenchReport:
    """Benchmark ``env_id`` in each mode for each N.

    Args:
        env_id: Any registered lean-gym id.
        backend: The backend spec every env uses (``"auto"``, ``"sim"``, ``"sim-repl"``, ``"repl"``); in the
            ``ray`` mode each RayBackend actor holds one of these. ``"ray:<spec>"`` runs the ``ray`` mode
            with actors holding ``<spec>`` (``modes`` may then only be ``ray``).
        modes: Among ``sync``, ``async``, ``pooled``, ``ray`` (``None``: sync, async, pooled; ``ray`` for a
            ``ray:<spec>`` backend).
        sizes: The Ns.
        steps: Env steps per configuration (rounded up to whole vector steps).
        seed: Seeds the theorems and the actions.
        ray_actors: Actors of the ``ray`` mode's RayBackend.
        progress: Called with a line after each configuration.
        source: The envs' theorems (``load_theorems`` sources: a JSONL path, ``"minif2f"``…; ``None``: the
            env's default, ``satp-minif2f`` for ``LeanAesop-v0``, the simulator's families for the others).
        split: The split of ``source`` (``None``: the env's default).

    Raises:
        ConfigError: an unknown env id, mode or backend, a size, step count or actor count below 1, or
            modes other than ``ray`` with a ``ray:<spec>`` backend.
        FileNotFoundError, ValueError: a ``source`` that cannot be read, or an empty split (before any
            timing starts).
        MissingDependencyError: the ``ray`` mode without Ray installed.
    """
    import gymnasium as gym

    import lean_gym  # noqa: F401  (registers the ids)

    if env_id not in gym.registry:
        known = sorted(k for k, s in gym.registry.items() if str(s.entry_point).startswith("lean_gym."))
        raise ConfigError(f"unknown env id {env_id!r}: lean-gym registers {', '.join(known)}")
    from lean_gym.backends.registry import check_backend_spec

    check_backend_spec(backend)
    if backend.startswith("ray:"):
        backend = backend[4:]
        modes = ["ray"] if modes is None else modes
        extra = [m for m in _parse_modes(modes) if m != "ray"]
        if extra:
            raise ConfigError(
                f"--backend ray:{backend} runs the ray mode (actors holding {backend}); "
                f"drop --modes {','.join(extra)} or use --backend {backend}"
            )
    mode_list = _parse_modes(DEFAULT_MODES if modes is None else modes)
    data: dict[str, Any] = {}
    if source is not None or split is not None:
        from lean_gym.data import load_theorems

        data = {k: v for k, v in (("source", source), ("split", split)) if v is not None}
        # read the theorems once now: a wrong path or split is one error before any timing
        if not load_theorems(source or "sim", split=split or "train", limit=1):
            raise ConfigError(f"no theorems in split {split!r} of {source or 'sim'}")
    if not sizes or min(sizes) < 1:
        raise ConfigError(f"env counts must be positive integers, got {list(sizes)}")
    if steps < 1 or ray_actors < 1:
        raise ConfigError(f"--steps and --ray-actors must be at least 1, got {steps} and {ray_actors}")
    if backend == "auto":  # decide once, so that every configuration (and process) uses the same one
        from lean_gym.backends.registry import real_lean_available

        backend = "repl" if real_lean_available() else "sim"
    if "ray" in mode_list:
        from lean_gym.distributed.ray_backend import _import_ray

        _import_ray()
    rows: list[BenchRow] = []
    for mode in mode_list:
        base: float | None = None
        for n in sizes:
            row = bench_one(
                env_id, mode, n, backend=backend, steps=steps, seed=seed, ray_actors=ray_actors, data=data
            )
            if n == 1:
                base = row.steps_per_s
            if base:
                row = BenchRow(**{**asdict(row), "speedup": row.steps_per_s / base})
            rows.append(row)
            if progress is not None:
                progress(f"{mode} N={n}: {row.steps_per_s:.1f} steps/s")
    names = sorted({r.verdicts_by for r in rows if r.verdicts_by})
    return BenchReport(env_id, ",".join(names) or backend, steps, seed, rows)


def _not_lean(names: str) -> str:
    return "  (the simulator, not Lean)" if all(n.startswith("sim") for n in names.split(",")) else ""


def format_report(report: BenchReport) -> str:
    """The human table."""
    lines = [
        f"lean-gym bench: {report.env_id}, verdicts by {report.backend}{_not_lean(report.backend)}",
        f"{report.steps_per_row} env steps per row, verdict cache off, SAME_STEP autoreset, "
        f"{report.cpu_count} CPUs",
        "",
        f"{'mode':7} {'N':>3} {'steps':>6} {'wall s':>8} {'steps/s':>9} {'p50 ms':>8} {'p95 ms':>8} "
        f"{'speed-up':>8} {'env ovh':>8}  backend",
    ]
    for r in report.rows:
        speed = f"{r.speedup:.2f}x" if r.speedup is not None else "-"
        ovh = f"{r.env_overhead:.2f}x" if r.env_overhead is not None else "-"
        lines.append(
            f"{r.mode:7} {r.num_envs:>3} {r.steps:>6} {r.wall_s:>8.2f} {r.steps_per_s:>9.1f} {r.p50_ms:>8.2f} "
            f"{r.p95_ms:>8.2f} {speed:>8} {ovh:>8}  {r.backend}"
        )
    lines += [
        "",
        "steps/s = completed env steps / wall time of the timed loop; p50/p95 = latency of one vector step "
        "(all N envs);",
        "speed-up = steps/s over N=1 in the same mode; env ovh = (checks + env layer) / checks, the same "
        "checks sent straight to the backend.",
    ]
    return "\n".join(lines)


def report_json(report: BenchReport) -> str:
    """The ``--json`` form."""
    return json.dumps(report.to_json(), indent=2)
