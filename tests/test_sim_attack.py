"""The simulator against an adversary: locals, declarations and elaboration (issue 9, classes 1–3 and 5).

Three layers:

* regressions: the known unsound submissions (and every finding of the attacking fuzzer) must fail;
* the rules that make them fail by construction: shadowing is display only, ``clear`` checks
  dependencies, a local shadows a constant, redeclaring is an error, untyped binders are refused unless
  their uses agree;
* the attacking fuzzer (:mod:`attack_fuzz`) under ``hypothesis`` (CI-sized; set
  ``LEAN_GYM_ATTACK_EXAMPLES`` for more) and as a seeded plain-random run. Long runs:
  ``python tests/attack_fuzz.py --attempts 1000000`` (issue 18's classes included, see ``--classes``).
"""

from __future__ import annotations

import os
import random

import pytest
from attack_fuzz import NEW_CLASSES, Attacker, DrawChooser, RandomChooser
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mathlib_header import MathlibRepl, mathlib_ctx

from lean_gym.lean.protocol import classify_response
from lean_gym.sim.repl import SimRepl
from lean_gym.sim.tactics import TacticError, goal_from_statement, run_tactic

# ------------------------------------------------------------------------------------- regressions

UNSOUND = [
    # class 1: a new local captured an old one
    "theorem t (a b : ℕ) : a = 0 ∨ b = 0 ∨ a = b := by cases a <;> cases b <;> simp",
    "theorem t (a b : ℕ) : a = 0 ∨ b = 0 ∨ a = b := by cases a <;> cases b <;> simp_all",
    "theorem t (a b : ℕ) : a = b := by induction a <;> induction b <;> simp_all",
    "theorem t (x : ℕ) (h : ∃ y : ℕ, y = x + 1) : x = 5 := by\n  obtain ⟨x, hx⟩ := h\n  omega",
    "theorem t (x : ℕ) (h : ∃ y : ℕ, y = x + 1) : x = 5 := by\n  rcases h with ⟨x, hx⟩\n  omega",
    "theorem t (x : ℕ) (h : ∃ y : ℕ, y = x + 1) : x = 5 := by\n  cases' h with x hx\n  omega",
    "theorem t (x : ℕ) : (∃ y : ℕ, y = x + 1) → x = 5 := by\n  rintro ⟨x, hx⟩\n  omega",
    "theorem t (x : ℕ) (h : ∃ x : ℕ, x = 3) : x = 3 := by\n  obtain ⟨x, hx⟩ := h\n  exact hx",
    "theorem t (a : ℕ) (h : ∃ y : ℕ, y = 3) : a = 3 := by\n  cases h\n  rename_i w hw\n  omega",
    "theorem t (w : ℕ) (h : ∃ y : ℕ, y = 3) : w = 3 := by\n  cases h\n  simp_all",
    "theorem t (n : ℕ) : n = 0 := by\n  induction n\n  · rfl\n  · induction n <;> simp_all",
    "theorem t (x : ℕ) : ∀ y : ℕ, y = x := fun x => rfl",
    "theorem t (x : ℕ) : ∀ y : ℕ, y = x := by\n  intro x\n  rfl",
    "theorem t (x : ℕ) : ∀ y : ℕ, y = x := by exact fun x => rfl",
    "theorem t (x : ℕ) : x = 1 := by\n  by_contra x\n  omega",
    "theorem t (x : ℕ) (hx : x = 2) : x = 3 := by\n  by_cases x : 1 = 1 <;> omega",
    "theorem t (x : ℕ) (h : x = 2) : x = 3 := by\n  have x : ℕ := 3\n  omega",
    # class 2: clear of a variable something depends on, then a new local of that name
    "theorem t (x : ℕ) (h : x = 2) : x = 3 := by\n  clear x\n  intro x\n  omega",
    "theorem t (x : ℕ) (h : x > 5) : x = 3 := by\n  clear x\n  omega",
    "theorem t (x : ℕ) (h : x = 2) : x = 3 := by\n  rcases h with -\n  intro x\n  omega",
    "theorem t (x : ℕ) (h : ∃ y : ℕ, x = y + 1) : x = 0 := by\n  obtain ⟨-, hy⟩ := h\n  omega",
    # class 3: a local and a constant of the same name
    "def a : ℕ := 1\ntheorem t (a : ℕ) (h : a > 0) : a = 1 := by rfl",
    "def a : ℕ := 1\ntheorem t (a : ℕ) (h : a > 0) : a = 1 := by simp [a]",
    "def a : ℕ := 1\ntheorem t (a : ℕ) (h : a > 0) : a = 1 := by\n  unfold a\n  rfl",
    "def a : ℕ := 1\ntheorem t (a : ℕ) (h : a > 0) : a = 1 := by decide",
    "def x : ℕ := 0\ntheorem t : ∀ x : ℕ, x = 0 := by\n  intro x\n  rfl",
    "def Nat.sqrt (n : ℕ) : ℕ := 0\ntheorem t : Nat.sqrt 4 = 0 := by rfl",
    # class 5: elaboration the simulator must not guess
    "theorem t : ∃ x, x / 2 = 0 ∧ (x : ℝ) = 1 := ⟨1, by norm_num⟩",
    "theorem t : ∃ x, x / 2 = 0 ∧ (x : ℝ) = 1 := by\n  use 1\n  norm_num",
    # subst/rfl patterns may not eliminate a variable its value mentions
    "theorem t (x : ℕ) (h : x = x + 1) : False := by\n  rcases h with rfl\n  omega",
    "theorem t (x y : ℕ) (h : x = y + 1) : x = y := by\n  subst h\n  omega",
]


@pytest.fixture(scope="module")
def repl() -> SimRepl:
    return MathlibRepl()  # the submissions are Mathlib statements


@pytest.mark.parametrize("code", UNSOUND)
def test_known_unsound_submissions_fail(repl: SimRepl, code: str) -> None:
    assert classify_response(repl.handle({"cmd": code})) != "proved", code


def _messages(repl: SimRepl, code: str) -> list[str]:
    return [m["data"] for m in repl.handle({"cmd": code}).get("messages", []) if m["severity"] == "error"]


# ----------------------------------------------------------------------------- locals are unique ids


def _goal(stmt: str) -> tuple:
    ctx = mathlib_ctx()
    return goal_from_statement(stmt, ctx), ctx


def test_shadowing_renames_nothing_and_displays_dagger() -> None:
    g, ctx = _goal("(x : ℕ) (h : x = 2) : ∀ x : ℕ, x = x")
    (g2,) = run_tactic(g, "intro x", ctx)
    assert g2.pretty() == "x✝ : ℕ\nh : x✝ = 2\nx : ℕ\n⊢ x = x"
    old, new = g2.hyps[0][0], g2.hyps[2][0]
    assert old != new and g2.hyp("x") == g2.hyp(new)
    # the old local's id is untouched: `h` still mentions it, not the new `x`
    assert g2.hyp("h") == ("=", "ℕ", ("fvar", old), ("num", "ℕ", 2))


def test_inaccessible_names_number_newest_first_as_lean() -> None:
    g, ctx = _goal("(a : ℕ) : ∀ a : ℕ, ∀ a : ℕ, a = a")
    (g2,) = run_tactic(g, "intro a\nintro a", ctx)
    assert g2.pretty().splitlines()[0] == "a✝¹ a✝ a : ℕ"


def test_rename_i_renames_shadowed_locals() -> None:
    g, ctx = _goal("(x : ℕ) (h : x = 2) : ∀ x : ℕ, x = x")
    (g2,) = run_tactic(g, "intro x\nrename_i y", ctx)
    assert "y : ℕ\nh : y = 2" in g2.pretty()


def test_nat_cases_twice_keeps_every_case_distinct() -> None:
    g, ctx = _goal("(a b : ℕ) : a = 0 ∨ b = 0 ∨ a = b")
    goals = run_tactic(g, "cases a <;> cases b", ctx)
    assert [x.pretty().splitlines()[-1] for x in goals] == [
        "⊢ 0 = 0 ∨ 0 = 0 ∨ 0 = 0",
        "⊢ 0 = 0 ∨ n✝ + 1 = 0 ∨ 0 = n✝ + 1",
        "⊢ n✝ + 1 = 0 ∨ 0 = 0 ∨ n✝ + 1 = 0",
        "⊢ n✝¹ + 1 = 0 ∨ n✝ + 1 = 0 ∨ n✝¹ + 1 = n✝ + 1",
    ]


# ------------------------------------------------------------------------------ clear and friends


def test_clear_of_a_variable_a_hypothesis_mentions_is_lean_error(repl: SimRepl) -> None:
    (msg,) = _messages(repl, "theorem t (x : ℕ) (h : x = 2) : x = 2 := by\n  clear x\n  exact h")
    assert msg.startswith("tactic 'clear' failed, variable 'h' depends on 'x'\n")


def test_clear_of_a_variable_the_target_mentions_is_lean_error(repl: SimRepl) -> None:
    (msg,) = _messages(repl, "theorem t (x : ℕ) : x = x := by\n  clear x\n  rfl")
    assert msg.startswith("tactic 'clear' failed, target depends on 'x'\n")


def test_clear_in_dependency_order_succeeds(repl: SimRepl) -> None:
    resp = repl.handle({"cmd": "theorem t (x : ℕ) (h : x = 2) : 1 = 1 := by\n  clear h x\n  rfl"})
    assert classify_response(resp) == "proved"


# --------------------------------------------------------------------------------- declarations


@pytest.mark.parametrize(
    "code, name",
    [
        ("def Nat.sqrt (n : ℕ) : ℕ := 0", "Nat.sqrt"),
        ("def Nat.succ (n : ℕ) : ℕ := n", "Nat.succ"),
        ("import Mathlib\ntheorem add_comm (a b : ℕ) : a + b = b + a := by omega", "add_comm"),
        ("def f : ℕ := 1\ndef f : ℕ := 2", "f"),
        ("namespace Nat\ndef sqrt (n : ℕ) : ℕ := 0\nend Nat", "Nat.sqrt"),
    ],
)
def test_redeclaring_a_name_is_lean_error(repl: SimRepl, code: str, name: str) -> None:
    assert f"'{name}' has already been declared" in _messages(repl, code)


def test_a_local_shadows_a_constant(repl: SimRepl) -> None:
    code = "def a : ℕ := 1\ntheorem t (a : ℕ) (h : a > 0) : a = 1 := by\n  show a = 1\n  sorry"
    resp = repl.handle({"cmd": code})
    assert resp["sorries"][0]["goal"] == "a : ℕ\nh : a > 0\n⊢ a = 1"  # under Mathlib, `Nat` prints as `ℕ`
    # and the constant is still there, under its own name, outside the binder's scope
    assert classify_response(repl.handle({"cmd": "def a : ℕ := 1\ntheorem u : a = 1 := by rfl"})) == "proved"


# ---------------------------------------------------------------------------------- elaboration


def test_untyped_binder_with_disagreeing_uses_is_refused(repl: SimRepl) -> None:
    msgs = _messages(repl, "theorem t (y : ℕ) : ∃ x, x + y = 0 ∧ (x : ℝ) = 1 := sorry")
    assert any("cannot be sure how Lean elaborates the type of `x`" in m for m in msgs)


def test_untyped_binder_takes_the_type_every_use_agrees_on(repl: SimRepl) -> None:
    resp = repl.handle({"cmd": "theorem t : ∃ x, x / 2 = 0 ∧ (x : ℝ) = 1 := sorry"})
    assert resp["sorries"][0]["goal"] == "⊢ ∃ x, x / 2 = 0 ∧ x = 1"
    resp = repl.handle({"cmd": "theorem t (y : ℝ) : ∀ x, x + y = y + x := by\n  intro x\n  ring"})
    assert classify_response(resp) == "proved"


def test_untyped_binder_without_any_use_is_refused(repl: SimRepl) -> None:
    assert any("cannot be sure" in m for m in _messages(repl, "theorem t : ∀ x, x = x := fun x => rfl"))


def test_fun_binder_names_are_display_only(repl: SimRepl) -> None:
    # honest proofs that reuse names still go through
    for code in [
        "theorem t (x : ℕ) : ∀ x : ℕ, x = x := fun x => rfl",
        "theorem t (x : ℕ) (h : ∃ x : ℕ, x = 3) : ∃ y : ℕ, y = 3 := by\n  obtain ⟨x, hx⟩ := h\n  exact ⟨x, hx⟩",
        "theorem t (n : ℕ) : n + 0 = n := by\n  induction n with\n  | zero => rfl\n  | succ n ih => simp",
    ]:
        assert classify_response(repl.handle({"cmd": code})) == "proved", code


def test_clear_error_is_a_tactic_error() -> None:
    g, ctx = _goal("(x : ℕ) (h : x = 2) : x = 2")
    with pytest.raises(TacticError, match="depends on"):
        run_tactic(g, "clear x", ctx)


# ------------------------------------------------------------------------------------ the fuzzer

_ATTACKER: Attacker | None = None


def _attacker() -> Attacker:
    global _ATTACKER
    if _ATTACKER is None:
        _ATTACKER = Attacker(timeout=10.0, oracle_every=10, decimals=False)
    return _ATTACKER


@settings(
    max_examples=int(os.environ.get("LEAN_GYM_ATTACK_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
@given(st.data())
def test_attacking_fuzzer_finds_nothing(data: st.DataObject) -> None:
    finding = _attacker().attempt(DrawChooser(data.draw))
    assert finding is None, f"accepted via {finding.via}:\n{finding.code}"


def test_seeded_attack_run_finds_nothing() -> None:
    attacker = Attacker(timeout=10.0, oracle_every=25, decimals=False)
    chooser = RandomChooser(random.Random(9))
    while attacker.attempts < 300:
        attacker.attempt(chooser)
    assert not attacker.findings, "\n\n".join(f.code for f in attacker.findings)


def test_seeded_decimal_cast_attacks_find_nothing() -> None:
    from attack_fuzz import gen_decimal

    attacker = Attacker(timeout=10.0)
    chooser = RandomChooser(random.Random(4))
    found = []
    for _ in range(400):
        stmt, prefix, proof = gen_decimal(chooser)
        res = attacker.backend.check(f"{prefix}{stmt.text()} := {proof}\n", timeout=10.0)
        if res.status == "proved":
            found.append(stmt.text() + " := " + proof)
    assert not found, "\n\n".join(found)


# ---------------------------------------------------------------------- issue 18's attack classes


@settings(
    max_examples=int(os.environ.get("LEAN_GYM_ATTACK_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
@given(st.data(), st.sampled_from(NEW_CLASSES))
def test_issue_18_attack_classes_find_nothing(data: st.DataObject, kind: str) -> None:
    """Combinators, large numbers, host look-alikes, axioms text, binder spellings, rows (attack_fuzz)."""
    finding = _attacker().attempt_class(DrawChooser(data.draw), kind)
    assert finding is None, f"{kind} via {finding.via}: {finding.detail}\n{finding.code}"


def test_seeded_issue_18_run_through_every_backend_finds_nothing() -> None:
    """A seeded run of every class, every 10th simulator attempt also on sim-repl and the JSON printer."""
    attacker = Attacker(timeout=10.0, classes=NEW_CLASSES, other_backends_every=10)
    chooser = RandomChooser(random.Random(18))
    try:
        while attacker.attempts < 400:
            attacker.attempt_class(chooser, chooser.choice(NEW_CLASSES))
    finally:
        if attacker._repl_backend is not None:
            attacker._repl_backend.close()
    assert set(attacker.by_class) == set(NEW_CLASSES)
    assert not attacker.findings, "\n\n".join(f"{f.detail}\n{f.code}" for f in attacker.findings)
