"""simp's ``arith`` option as Lean core implements it (``Nat.Linear``), and ``simp_arith``'s deprecation.

Records: Lean core's ``tests/lean/run/simpArith1.lean`` (leanprover/lean4 at
19926bb75af400d67298297bde4fdf03475ba3f9, lines 1, 4, 10, 15: each example compiles). Algorithm:
``src/Lean/Meta/Tactic/Simp/Arith/Nat/Simp.lean`` and ``Nat/Basic.lean`` (``simpCnstr?``, ``simpExpr?``,
``toLinearExpr``), ``src/Init/Data/Nat/Linear.lean`` (``Poly.norm``, ``Poly.cancel``, ``isUnsat``,
``isValid``), ``src/Lean/Meta/Tactic/Simp/Rewrite.lean`` (``simpArith``, ``parentIsTarget``);
``simp_arith`` fails: ``src/Lean/Elab/Tactic/SimpArith.lean`` (``evalSimpArith``).
"""

from __future__ import annotations

import pytest
from sim_commands import code_errors, run_code


@pytest.mark.parametrize(
    "code",
    [
        # simpArith1.lean:1 and :4 — `a + b + 1 ≤ b + 1 + a + c` cancels to `0 ≤ c`: valid, so `True`
        "theorem ex1 : a + b < b + 1 + a + c := by\n  simp (config := { arith := true })",
        "theorem ex2 : a + b < b + 1 + a + c := by\n  simp +arith",
        # simpArith1.lean:10 — the hypothesis cancels to `2 * c + 2 ≤ 0`: unsatisfiable, so `False`
        "theorem ex5 (h : a + d + b > b + 1 + (a + (c + c) + d)) : False := by\n  simp +arith at h",
        # simpArith1.lean:15 — a linear term under a non-linear parent: atoms sorted, monomials fused
        "theorem ex6 (p : Nat → Prop) (h : p (a + 1 + a + 2 + b)) : p (2*a + b + 3) := by\n"
        "  simp +arith at h\n  assumption",
        # `x * y` is one atom: two of them are `2 * (x * y)`
        "example (x y : Nat) : x * y + x * y = 2 * (x * y) := by simp +arith",
        # the operand `a + b ≤ b` is normalised first (`a ≤ 0`, then core's simp lemma `Nat.le_zero_eq`)
        "example (a b : Nat) (h : ¬ (a + b ≤ b)) : a ≠ 0 := by simp +arith at h; exact h",
        # `a + 2 ≤ b + a` is `2 ≤ b`, its negation `b < 2` (`Nat.not_le`), which `+arith` reads as `b + 1 ≤ 2`
        # and cancels to `b ≤ 1`
        "example (a b : Nat) (h : ¬ (a + 2 ≤ b + a)) : b ≤ 1 := by simp +arith at h; exact h",
    ],
)
def test_simp_arith_proves_what_lean_proves(code: str) -> None:
    assert code_errors(code) == []


def test_simp_arith_leaves_lean_normal_forms() -> None:
    # the constraint cancels to `a ≤ c`; the atoms keep their declaration order, constants come last
    errors = code_errors("example (a b c : Nat) : a + b ≤ b + c := by simp +arith")
    assert errors and errors[0].endswith("⊢ a ≤ c")
    errors = code_errors("example (a b : Nat) : a - b + b = a := by simp +arith")
    assert errors and errors[0].endswith("⊢ b + (a - b) = a")  # `a - b` is an atom, after the locals


@pytest.mark.parametrize(
    "code",
    [
        # false statements of the shapes above
        "theorem ex1 (a b c : Nat) : a + b < b + a + c := by\n  simp (config := { arith := true })",
        "example (a b : Nat) : a + b < b + a := by simp +arith",
        "theorem ex5 (a b c d : Nat) (h : a + d + b ≥ b + (a + (c + c) + d)) : False := by\n  simp +arith at h",
        "example (a : Nat) (h : a + a = 2 * a) : False := by simp +arith at h",
        # truncated subtraction is an atom: `a - b + b = a` is not provable this way
        "example (a b : Nat) : a - b + b = a := by simp +arith",
        # a normal form is not a permutation of the goal's: `exact` needs the same term
        "example (p : Nat → Prop) (a b : Nat) (h : p (b + a + a)) : p (b + 2 * a) := by\n"
        "  simp +arith at h; exact h",
        # non-linear products are atoms, compared as written (`x * y` is not `y * x`)
        "example (x y : Nat) : x * y = y * x := by simp +arith",
        # without `arith` simp does not normalise linear arithmetic
        "theorem ex1 : a + b < b + 1 + a + c := by\n  simp",
        "theorem ex1 : a + b < b + 1 + a + c := by\n  simp (config := { arith := false })",
        "theorem ex1 : a + b < b + 1 + a + c := by\n  simp +arith -arith",
    ],
)
def test_simp_arith_is_not_stronger_than_lean(code: str) -> None:
    assert code_errors(code) != []


def test_simp_arith_on_int_is_refused() -> None:
    # Lean runs `Int.Linear`'s procedures on ℤ (gcd normalisation), which the simulator does not model
    errors, _ = run_code("example (a b : Int) : a + b < b + 1 + a := by simp +arith")
    assert errors and "outside the simulator's Lean subset" in errors[0]


@pytest.mark.parametrize("name", ["simp_arith", "simp_arith!", "simp_all_arith", "simp_all_arith!"])
def test_simp_arith_tactics_are_deprecated_errors(name: str) -> None:
    # evalSimpArith: the tactic throws, whatever the goal (it was plain simp here, stronger than Lean)
    errors = code_errors(f"example (x : Nat) : x + 2 = 1 + 1 + x := by {name}")
    base = name.replace("_arith", "")
    assert errors == [
        f"`{name}` has been deprecated. It was a shorthand for `{base} +arith +decide`, but most of the time, "
        "`+decide` was redundant since simprocs have been implemented."
    ]
