"""Lean core's ℕ offset simprocs, ``#check_simp``, ``variable``, and simp under ``fun``.

Records: Lean core's ``tests/lean/run/simprocNat.lean`` (leanprover/lean4 at the commit its corpus cases cite,
lines 15–79: ``variable (a b : Nat)`` then ``#check_simp t ~> r``, each compiling); Mathlib's
``MathlibTest/SimpRw.lean`` (line 12: ``simp_rw [Nat.add_comm]`` closes an equation of two ``fun``s).
Algorithms: ``src/Lean/Meta/Tactic/Simp/BuiltinSimprocs/Nat.lean`` (``reduceEqDiff``, ``reduceLeDiff``,
``reduceSubDiff``, ``NatOffset.fromExpr?``), ``src/Lean/Elab/CheckTactic.lean`` (``#check_tactic t ~> r by
simp``: the result is compared at reducible transparency), core's ``@[simp] Nat.le_zero_eq``.
"""

from __future__ import annotations

import pytest
from sim_commands import code_errors, run_code

from lean_gym.conformance import load_cases

SIMPROC_NAT = [c for c in load_cases(None, None, kinds=("command",)) if "simprocNat.lean" in c.source["path"]]


@pytest.mark.parametrize("case", SIMPROC_NAT, ids=lambda c: c.id)
def test_check_simp_records(case) -> None:  # type: ignore[no-untyped-def]
    errors, unread = run_code(case.code)
    if unread:
        # `Nat.add a 400`, `Add.add b 1000`: terms the simulator does not elaborate stay unread
        assert "Nat.add" in case.code or "Add.add" in case.code, unread
        return
    assert errors == [], errors


@pytest.mark.parametrize(
    "code",
    [
        # each with the wrong normal form of a record's shape: `#check_simp` compares them
        "variable (a b : Nat)\n\n#check_simp (a + 1000) - 400 ~> a + 601",
        "variable (a b : Nat)\n\n#check_simp 400 - (a + 1000) ~> 600 - a",
        "variable (a b : Nat)\n\n#check_simp (a + 1000) = 400 ~> a = 0",
        "variable (a b : Nat)\n\n#check_simp (a + 400) ≤ (b + 1000) ~> a + 600 ≤ b",
        "variable (a b : Nat)\n\n#check_simp (a + 1000) ≤ 1000 ~> a ≤ 0",
        # simp must make progress
        "variable (a b : Nat)\n\n#check_simp a - b ~> a - b",
    ],
)
def test_check_simp_rejects_other_normal_forms(code: str) -> None:
    assert code_errors(code) != []


@pytest.mark.parametrize(
    "code",
    [
        "example (x : Nat) (h : x + 1 = 5) : x = 4 := by simp at h; exact h",
        "example (x : Nat) (h : x + 7 = 3) : False := by simp at h",
        "example (x y : Nat) (h : x + 3 ≤ y + 1) : x + 2 ≤ y := by simp at h; exact h",
        "example (x : Nat) : x + 5 - 2 = x + 3 := by simp",
        "example (x : Nat) (h : 2 ≥ x + 3) : False := by simp at h",
        # `simp only` keeps the default simprocs
        "example (x : Nat) (h : x + 1 = 5) : x = 4 := by simp only at h; exact h",
    ],
)
def test_offset_simprocs_prove_what_lean_proves(code: str) -> None:
    assert code_errors(code) == []


@pytest.mark.parametrize(
    "code",
    [
        "example (x : Nat) (h : x + 1 = 5) : x = 5 := by simp at h; exact h",
        "example (x : Nat) (h : x + 3 = 7) : False := by simp at h",
        # truncated subtraction: `x - 2 + 2` is not an offset of `x`
        "example (x : Nat) : x - 2 + 2 = x := by simp",
        # only a numeral literal is an offset: `x + y` is not
        "example (x y : Nat) (h : x + y = 0 + y) : x = 0 := by simp only at h; exact h",
        # on ℤ the ℕ simprocs do not apply (there `x + 1 = 5` is `x = 4` by other lemmas, not `x + 7 = 3`)
        "example (x : Int) (h : x + 7 = 3) : False := by simp at h",
        # norm_num1 runs no simp: no simprocs
        "example (x : Nat) (h : x + 1 = 5) : x = 4 := by norm_num1 at h; exact h",
    ],
)
def test_offset_simprocs_are_not_stronger(code: str) -> None:
    assert code_errors(code) != []


def test_variables_are_added_where_used() -> None:
    # a theorem takes the variables its statement names (and those their types name)
    code = "variable (a b : Nat) (h : a ≤ b)\n\ntheorem t : a ≤ b + 1 := by omega"
    assert code_errors(code) != []  # `h` is not in the statement: omega does not see it
    code = "variable (a b : Nat) (h : a ≤ b)\n\ntheorem t (h' : a ≤ b) : a ≤ b + 1 := by omega"
    assert code_errors(code) == []
    # a section ends the variables it opened
    code = "section\nvariable (a : Nat)\nend\n\nexample : a = a := rfl"
    errors, unread = run_code(code)
    assert errors or unread
    # `variable … in` holds for one command
    code = "variable (n : Nat) in\ntheorem t : n + 0 = n := by simp\n\nexample : n = n := rfl"
    errors, unread = run_code(code)
    assert errors or unread
    assert code_errors("variable (n : Nat) in\ntheorem t : n + 0 = n := by simp") == []
    # an example is elaborated with every variable in its context (Lean shows them in its goals)
    code = "variable (a b : Nat) (h : a ≤ b)\n\nexample : a ≤ b + 1 := by omega"
    assert code_errors(code) == []
    code = "variable (p q r : Prop)\n\nexample : p ∧ q → q := by\n  intro hpq\n  done"
    errors = code_errors(code)
    assert errors and errors[0].startswith("unsolved goals\np q r : Prop")


def test_simp_rewrites_under_fun() -> None:
    # MathlibTest/SimpRw.lean:12: both sides become one function (ordered rewriting with `Nat.add_comm`)
    code = "example : (fun (x y : Nat) ↦ x + y) = (fun x y ↦ y + x) := by simp_rw [Nat.add_comm]"
    assert code_errors(f"import Mathlib\n\n{code}") == []
    false = "example : (fun (x y : Nat) ↦ x + y) = (fun x y ↦ y + x + 1) := by simp_rw [Nat.add_comm]"
    assert code_errors(f"import Mathlib\n\n{false}") != []
