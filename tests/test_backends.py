"""The Backend contract, on the simulator in process and behind the REPL protocol (the real-Lean code path)."""

from __future__ import annotations

import pytest

from lean_gym.backends import Backend, ReplBackend, SimBackend
from lean_gym.backends.repl import sim_command

MATHLIB = "import Mathlib"  # the cases use Mathlib's notation and tactics (`ℕ`, `ℝ`, `linarith`, `norm_num`)
CASES = [
    ("theorem t1 (a b : ℕ) : a + b = b + a := by omega", "proved"),
    ("theorem t2 (x : ℝ) (h : 0 < x) : 0 < x + 1 := by linarith", "proved"),
    ("theorem t3 (x : ℕ) : x = x := by sorry", "sorry"),
    ("theorem t4 (x : ℝ) (h : 0 < x) : x < 0 := by linarith", "error"),
    ("theorem t5 : (2 : ℕ) + 2 = 5 := by norm_num", "error"),
    (
        "theorem t6 (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  constructor\n  · exact hp\n  · exact hq",
        "proved",
    ),
]


@pytest.fixture(scope="module")
def sim() -> SimBackend:
    return SimBackend()


@pytest.fixture(scope="module")
def sim_repl():
    backend = ReplBackend(command=sim_command(), pool_size=2, timeout=60)
    yield backend
    backend.close()


def test_both_implement_the_protocol(sim, sim_repl) -> None:
    assert isinstance(sim, Backend) and isinstance(sim_repl, Backend)
    assert sim.name == "sim" and sim_repl.name == "sim-repl"


@pytest.mark.parametrize(("code", "status"), CASES)
def test_sim_verdicts(sim: SimBackend, code: str, status: str) -> None:
    res = sim.check(code, header=MATHLIB)
    assert res.status == status, res.messages_text()
    assert res.backend == "sim"


def test_protocol_path_agrees_with_in_process(sim, sim_repl) -> None:
    codes = [c for c, _ in CASES]
    a = sim.check_batch(codes, header=MATHLIB)
    b = sim_repl.check_batch(codes, header=MATHLIB)
    assert [r.status for r in a] == [r.status for r in b] == [s for _, s in CASES]
    for x, y in zip(a, b):
        assert x.messages == y.messages
        assert [s.goal for s in x.sorries] == [s.goal for s in y.sorries]
    assert all(r.backend == "sim-repl" for r in b)


def test_header_is_elaborated_once_and_positions_map_back(sim_repl) -> None:
    header = "import Mathlib\nimport Aesop\nset_option maxHeartbeats 400000\nopen Real Nat"
    bad = "import Mathlib\n\ntheorem p (x : ℝ) (h : 0 < x) : x < 0 := by\n  linarith"
    before = sim_repl.stats.header_imports  # the pool is shared by the module's tests
    results = sim_repl.check_batch([bad] * 4, header=header)
    assert all(r.status == "error" for r in results)
    # The error is on line 3/4 of the caller's code (the import line was moved into the header).
    assert all(r.errors[0].pos.line in (3, 4) for r in results), [r.errors[0].pos for r in results]
    assert sim_repl.stats.header_imports - before <= 2


def test_sim_in_process_positions_match(sim) -> None:
    bad = "import Mathlib\n\ntheorem p (x : ℝ) (h : 0 < x) : x < 0 := by\n  linarith"
    r1 = sim.check(bad)
    r2 = sim.check(bad.split("\n", 2)[2], header=MATHLIB)
    assert r1.errors[0].pos.line == r2.errors[0].pos.line + 2


def test_sim_timeout_budget_is_an_error_not_a_hang(sim) -> None:
    code = "set_option maxHeartbeats 1\ntheorem h (a b c d : ℝ) (h1 : a < b) (h2 : b < c) (h3 : c < d) : a < d := by nlinarith"
    res = sim.check(code, header=MATHLIB)
    assert res.status in ("error", "proved")
    if res.status == "error":
        assert any("heartbeats" in m.data or "timeout" in m.data for m in res.errors)


def test_sim_wall_clock_timeout_ends_the_check_and_the_simulator_recovers(sim) -> None:
    code = "theorem tw (x : ℝ) (h : 0 < x) : 0 < x + 1 := by\n  first | nlinarith | linarith"
    # A deadline already past when the first heartbeat is spent: no tactic combinator may swallow it.
    res = sim.check(code, header=MATHLIB, timeout=1e-9)
    assert res.status == "timeout" and res.backend == "sim"
    assert "timeout of this check" in res.messages[0].data
    assert sim.check(code, header=MATHLIB).status == "proved"
    assert sim.check(code, header=MATHLIB, timeout=60).status == "proved"
    aesop = "theorem ta (x : ℝ) (h : 0 < x) : 0 < x + 1 := by\n  aesop (add unsafe 90% (by linarith))"
    assert sim.check(aesop, header="import Mathlib", timeout=1e-9).status == "timeout"
    assert sim.check(aesop, header="import Mathlib").status == "proved"
