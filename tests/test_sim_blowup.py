"""Terms that grow as trees: a recursion rewritten by ``simp`` or ``rw`` ends in bounded work (issue slow14).

``h₂ : ∀ n, a (n + 2) = a (n + 1) + a n`` rewrites ``a 100`` (Lean's offset unification) into a term whose
tuples share subterms but whose tree has Fibonacci(100) nodes. Lean's terms are DAGs with cached hashes and
its simp has a cache, so Lean's work is linear; the simulator's hashing, matching and printing walk the tree.
One aesop check of miniF2F's ``mathd_numbertheory_483`` ran into the 60 s wall-clock timeout. A rewrite that
produces a term of more than ``MAX_TERM_NODES`` tree nodes now fails (``TermTooLarge``, a tactic error).

Each test counts work (the heartbeats charged) under a generous wall-clock deadline that is only a guard (a
``WallClockTimeout`` is a ``BaseException``: it fails the test); nothing asserts on wall-clock time. Where
the simulator gives up the verdict is a failure, never ``proved``; false statements built like the true ones
are never proved; true small instances the simulator proved before are still proved.
"""

from __future__ import annotations

import gymnasium as gym
import pytest
from mathlib_header import mathlib_ctx

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.backends import SimBackend
from lean_gym.sim.tactics import (
    TacticError,
    goal_from_statement,
    run_tactic_on_goals,
    wall_clock_deadline,
)
from lean_gym.sim.terms import MAX_TERM_NODES, TermTooLarge, check_term_size

GUARD_S = 120.0  # a guard against a hang, never an assertion: the tests count heartbeats
BUDGET = 200_000  # miniF2F's `set_option maxHeartbeats 200000`, the repro's own budget
HEADER = "import Mathlib"

FIB = "(a : ℕ → ℕ) (h₀ : a 1 = 1) (h₁ : a 2 = 1) (h₂ : ∀ n, a (n + 2) = a (n + 1) + a n)"
FIB_OPEN = "(a : ℕ → ℕ) (h₂ : ∀ n, a (n + 2) = a (n + 1) + a n)"  # nothing pins `a 0`, `a 1`
DOUBLE = "(f : ℕ → ℕ) (h : ∀ n, f (n + 1) = f n + f n)"
SQUARE = "(f : ℕ → ℕ) (h : ∀ n, f (n + 1) = f n * f n)"
INT_TWO = "(g : ℕ → ℤ) (h : ∀ n, g (n + 3) = g (n + 1) - g n)"
INT_DOUBLE = "(g : ℕ → ℤ) (h : ∀ n, g (n + 1) = g n + g n)"

SATP_CALL = """aesop (config := {
    maxRuleApplicationDepth := 110
    maxRuleApplications     := 260
    maxNormIterations       := 120
    maxGoals                := 32
    enableSimp              := false
  })
    (add safe 3 (by ring))
    (add safe 4 (by norm_num))
    (add unsafe 100% (by norm_num [*] at *))
    (add unsafe 90% (by linarith))
    (add unsafe 90% (by simp_all))
    (add unsafe 80% (by ring_nf at *))
    (add unsafe 70% (by omega))
    (add unsafe 70% (by simp))"""


def _run(statement: str, script: str) -> tuple[int, str | None, bool]:
    """Heartbeats charged, the error (if any) and whether every goal was closed, running ``script``."""
    with wall_clock_deadline(GUARD_S):
        ctx = mathlib_ctx(max_heartbeats=BUDGET)
        goal = goal_from_statement(statement, ctx)
        try:
            left = run_tactic_on_goals([goal], script, ctx)
        except TacticError as err:
            return ctx.heartbeats, err.message, False
    return ctx.heartbeats, None, not left


@pytest.fixture(scope="module")
def backend() -> SimBackend:
    return SimBackend(max_heartbeats=BUDGET)


def _check(backend: SimBackend, statement: str, script: str) -> tuple[str, str]:
    code = f"theorem t {statement} := by\n  {script}\n"
    res = backend.check(code, header=HEADER, timeout=GUARD_S)
    return res.status, res.messages_text()


# ------------------------------------------------------------------ the simulator gives up, and says so


@pytest.mark.parametrize(
    ("statement", "script"),
    [
        (f"{FIB} : a 100 % 4 = 3", "simp [h₂]"),
        (f"{FIB} : a 100 % 4 = 3", "simp only [h₂]"),
        (f"{FIB} : a 100 % 4 = 3", "norm_num [h₂]"),
        (f"{FIB} : a 100 % 4 = 3", "simp_rw [h₂]"),
        (f"{FIB_OPEN} : a 100 % 4 = 3", "simp_all"),
        (f"{DOUBLE} : f 60 = 0", "simp [h]"),
        (f"{DOUBLE} : f 60 = 0", "simp_all"),
        (f"{DOUBLE} : f 60 = f 0 * 2 ^ 60", "simp [h]"),
        (f"{SQUARE} : f 60 = 0", "simp_all"),
        (f"{INT_TWO} : g 90 = 0", "simp_all"),
        (f"{INT_DOUBLE} : g 60 = 0", "simp [h]"),
    ],
)
def test_a_growing_rewrite_fails_with_bounded_work(statement: str, script: str) -> None:
    spent, err, closed = _run(statement, script)
    assert not closed
    assert err is not None and "does not support terms this large" in err
    # the bound ends it long before the budget: the work is linear in the rewrites, not in the tree
    assert spent < BUDGET // 4


@pytest.mark.parametrize("script", ["simp_all", "norm_num [*] at *", "aesop (add unsafe (by simp_all))"])
@pytest.mark.parametrize("statement", [f"{FIB_OPEN} : a 100 % 4 = 3", f"{INT_TWO} : g 90 = 0"])
def test_no_entry_point_runs_into_the_deadline(backend: SimBackend, statement: str, script: str) -> None:
    status, _ = _check(backend, statement, script)
    assert status == "error"


def test_rw_repeated_on_a_doubling_rule_fails_with_bounded_work() -> None:
    # each `rw [h]` rewrites every instance of `f (x + 1 + … + 1)` into two: 2^k leaves after k rewrites
    arg = "x" + " + 1" * 40
    spent, err, closed = _run(f"{DOUBLE} (x : ℕ) : f ({arg}) = 0", "rw [" + ", ".join(["h"] * 40) + "]")
    assert not closed
    assert err is not None and "rw produced a term of more than" in err
    assert spent < BUDGET // 4


def test_the_repro_ends_in_bounded_work(backend: SimBackend) -> None:
    """The aesop call of the report (a SATP-style rule list over mathd_numbertheory_483) ends: its
    `norm_num [*] at *` branch, where nothing pins `a 0`, used to grow `a 100` without end; now that branch
    fails and the search goes on to `simp_all` on the original goal, SATP's minimal proof of the theorem
    (LeanSATP @62e4349c: Lean proves it so)."""
    status, msgs = _check(backend, f"{FIB} : a 100 % 4 = 3", SATP_CALL)
    assert status == "proved", msgs


def test_lean_proof_env_ends_a_growing_direct_proof() -> None:
    theorem = {"name": "t", "header": HEADER, "formal_statement": f"theorem t {FIB} : a 100 % 4 = 3 := by\n"}
    env = gym.make("LeanProof-v0", backend="sim", theorems=[theorem], timeout=GUARD_S)
    env.reset(seed=0)
    _, reward, _, _, info = env.step(f"theorem t {FIB} : a 100 % 4 = 3 := by\n  simp [h₂]")
    env.close()
    assert reward == -1.0 and info["status"] == "error"
    assert "does not support terms this large" in info["messages"]


# ------------------------------------------------------------------ soundness: nothing false is proved


@pytest.mark.parametrize(
    ("statement", "script"),
    [
        (f"{FIB} : a 100 % 4 = 2", "simp_all"),  # the true value is 3
        (f"{FIB} : a 100 % 4 = 2", SATP_CALL),
        (f"{FIB_OPEN} : a 100 % 4 = 3", SATP_CALL),  # `a 0` and `a 1` are free: not provable
        (f"{FIB} : a 5 % 4 = 2", "simp_all"),  # a 5 = 5
        ("(f : ℕ → ℕ) (h₀ : f 0 = 1) (h : ∀ n, f (n + 1) = f n + f n) : f 60 = 0", "simp_all"),
        ("(f : ℕ → ℕ) (h₀ : f 0 = 1) (h : ∀ n, f (n + 1) = f n + f n) : f 6 = 63", "simp_all"),
        (f"{INT_TWO} : g 90 = 0", "aesop (add unsafe (by simp_all))"),
    ],
)
def test_false_or_unpinned_statements_are_not_proved(
    backend: SimBackend, statement: str, script: str
) -> None:
    status, _ = _check(backend, statement, script)
    assert status == "error"


# ------------------------------------------------------------------ true instances proved before still are


@pytest.mark.parametrize(
    ("statement", "script"),
    [
        (f"{FIB} : a 5 % 4 = 1", "simp_all"),
        (f"{FIB} : a 100 % 4 = 3", "simp_all"),  # SATP's minimal proof (LeanSATP @62e4349c, line 3)
        (f"{FIB} : a 100 % 4 = 3", "aesop (add unsafe (by simp_all))"),
        ("(f : ℕ → ℕ) (h₀ : f 0 = 1) (h : ∀ n, f (n + 1) = f n + f n) : f 6 = 64", "simp_all"),
        ("(f : ℕ → ℕ) (h₀ : f 0 = 1) (h : ∀ n, f (n + 1) = f n + f n) : f 6 = 64", "simp [h, h₀]"),
        ("(f : ℕ → ℕ) (h₀ : f 0 = 2) (h : ∀ n, f (n + 1) = f n * f n) : f 3 = 256", "simp_all"),
        (
            "(g : ℕ → ℤ) (h₀ : g 0 = 1) (h₁ : g 1 = 2) (h₂ : g 2 = 0) (h : ∀ n, g (n + 3) = g (n + 1) - g n) : g 5 = 1",
            "simp_all",
        ),
    ],
)
def test_true_small_instances_are_still_proved(backend: SimBackend, statement: str, script: str) -> None:
    status, msgs = _check(backend, statement, script)
    assert status == "proved", msgs


# ------------------------------------------------------------------ the count itself


def test_the_count_is_linear_in_the_dag() -> None:
    t: tuple = ("fvar", "x")
    sizes: dict[int, tuple[tuple, int]] = {}
    nodes = 1
    while nodes * 2 + 1 <= MAX_TERM_NODES:
        t = ("+", "ℕ", t, t)  # the tree doubles, the DAG grows by one node
        nodes = nodes * 2 + 1
        check_term_size(t, sizes, "test")
    assert sizes[id(t)][1] == nodes
    assert len(sizes) < 64  # one entry per distinct object, not per tree node
    with pytest.raises(TermTooLarge):
        check_term_size(("+", "ℕ", t, t), sizes, "test")


# ------------------------------------------------------------------ the commands that run simp


@pytest.mark.parametrize("cmd", ["#norm_num (2 : ℕ) + 3 * 4", "#check_simp (2 : ℕ) + 0 ~> 2"])
def test_a_command_running_simp_reports_the_bound_as_its_error(
    cmd: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``#norm_num`` and ``#check_simp`` run simp outside any tactic: past the bound they report the
    simulator's own message as the command's error, not an internal simulator error. The bound is lowered to
    nothing so that any rewrite meets it (no default simp lemma grows a term past 20,000 nodes from text)."""
    from lean_gym.sim import terms
    from lean_gym.sim.repl import SimRepl

    repl = SimRepl()
    env = repl.handle({"cmd": HEADER})["env"]
    monkeypatch.setattr(terms, "MAX_TERM_NODES", 0)
    out = repl.handle({"cmd": cmd, "env": env})
    [msg] = out["messages"]
    assert msg["severity"] == "error"
    assert msg["data"].startswith("the simulator does not support terms this large: simp produced")
    assert "internal simulator error" not in msg["data"]
