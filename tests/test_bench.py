"""``lean-gym bench``: its throughput is completed steps over wall time, consistent with the clock around it."""

from __future__ import annotations

import json
import math
import time

import pytest

from lean_gym.bench import format_report, run_bench
from lean_gym.cli import build_parser, main


def test_throughput_agrees_with_steps_over_wall_time_measured_around_the_call() -> None:
    t0 = time.perf_counter()
    report = run_bench("LeanAesop-v0", backend="sim", modes=["sync", "pooled"], sizes=[1, 3], steps=7, seed=1)
    outer = time.perf_counter() - t0
    assert [(r.mode, r.num_envs) for r in report.rows] == [
        ("sync", 1),
        ("sync", 3),
        ("pooled", 1),
        ("pooled", 3),
    ]
    for r in report.rows:
        assert r.steps == r.num_envs * math.ceil(7 / r.num_envs)  # whole vector steps: 7 or 9
        assert sum(r.statuses.values()) == r.steps  # every timed step completed with a verdict
        assert r.steps_per_s == pytest.approx(r.steps / r.wall_s, rel=1e-12)
        # The figure can never claim more than the steps done over the time the whole call took...
        assert r.steps / outer <= r.steps_per_s
        # ...and the tail latency of one vector step fits in the timed loop.
        assert r.p50_ms <= r.p95_ms <= r.wall_s * 1e3
        assert r.backend == "sim" and r.verdicts_by == "sim"
    assert sum(r.wall_s for r in report.rows) <= outer
    assert [r.speedup for r in report.rows][::2] == [1.0, 1.0]
    assert report.rows[1].speedup == pytest.approx(report.rows[1].steps_per_s / report.rows[0].steps_per_s)
    pooled = report.rows[2:]
    # (checks + layer) / checks, both measured on the very checks of the timed loop
    assert all(r.env_overhead is not None and r.env_overhead >= 1.0 for r in pooled)
    assert all(r.layer_us_per_step is not None and r.layer_us_per_step > 0 for r in pooled)
    # The same seeds give the same verdicts whichever way the envs are vectorized.
    assert report.rows[0].statuses == report.rows[2].statuses

    table = format_report(report)
    for r in report.rows:
        assert f"{r.steps_per_s:9.1f}" in table
    assert "verdicts by sim  (the simulator, not Lean)" in table


def test_cli_table_json_and_user_errors(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "LeanProof-v0", "--backend", "sim", "--modes", "async", "-n", "2", "--steps", "4"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (row,) = data["rows"]
    assert (data["env_id"], data["backend"], row["mode"], row["steps"]) == ("LeanProof-v0", "sim", "async", 4)
    assert row["steps_per_s"] == pytest.approx(row["steps"] / row["wall_s"])

    for bad, message in [
        (["-n", "0"], "-n takes positive env counts like 1,2,4,8, not '0'"),
        (["-n", "two"], "-n takes positive env counts"),
        (["--modes", "turbo"], "unknown mode 'turbo': choose from sync, async, pooled, ray"),
        (["--steps", "0"], "--steps and --ray-actors must be at least 1"),
        (["NoSuchEnv-v0"], "unknown env id 'NoSuchEnv-v0'"),
    ]:
        assert main(["bench", "--backend", "sim", *bad]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        lines = captured.err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("lean-gym bench: ") and message in lines[0]


def test_every_bench_option_has_help() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    bench = sub.choices["bench"]  # type: ignore[attr-defined]
    for action in bench._actions:
        assert action.help, f"bench option {action.option_strings or action.dest} has no help"
