"""``benchmarks/bench_sim_workloads.py --phases``: where an aesop step's time goes, phase by phase; each phase
is timed at its outermost call, so the nested ones add up within the ones around them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import lean_gym.sim

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_sim_workloads.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(lean_gym.sim.compiled(), reason="--phases times the pure-Python simulator only")
def test_phases_nest_within_the_step_and_each_other() -> None:
    out = _run("aesop", "--steps", "40", "--phases")
    assert out.returncode == 0, out.stderr
    rows = dict(
        (m.group(1).strip(), (float(m.group(2)), float(m.group(3))))
        for m in re.finditer(r"^ +(\S.*?)\s+([\d.]+)\s+([\d.]+)$", out.stdout, re.M)
    )
    assert {"step", "backend check", "REPL request", "declaration", "search"} <= rows.keys(), out.stdout
    for col in (0, 1):  # the median band and all steps
        step, backend, repl, decl = (
            rows[k][col] for k in ("step", "backend check", "REPL request", "declaration")
        )
        search = rows["search"][col] + rows["safe prefix after a failure"][col]
        fresh = rows["rules run afresh (memo misses)"][col] + rows["normalisations run afresh"][col]
        parse = sum(rows[k][col] for k in ("tactic block parse", "aesop call parse", "aesop rules built"))
        assert 0 < search + parse <= decl <= repl <= backend <= step
        assert 0 <= fresh <= search
    assert rows["rules run afresh (memo misses)"][1] > 0  # a cold process runs rules afresh
    floor = re.search(r"step less search and safe prefix\s+([\d.]+)", out.stdout)
    assert floor is not None and 0 < float(floor.group(1)) < rows["step"][0]


def test_phases_is_refused_for_another_workload_before_any_work() -> None:
    out = _run("proof", "--phases")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines()[-1].endswith("--phases is for the aesop workload")
    assert out.stdout == ""
