"""The simulator's Mathlib tactics are never stronger than Mathlib's (issue 20, the Mathlib corpus).

Each test names the cause it pins and the record of Lean's behaviour it follows: Mathlib's
``MathlibTest/`` files and the tactic's source (cited per test). A test attacks the verdict with a
statement built to pass only if the simulator is stronger than Lean's tactic of the same name.
"""

from __future__ import annotations

import pytest
from mathlib_header import MathlibSimBackend


@pytest.fixture(scope="module")
def sim() -> MathlibSimBackend:
    return MathlibSimBackend()


def status(sim: MathlibSimBackend, code: str) -> str:
    return sim.check(code).status


# ------------------------------------------------------------------------------------------ linarith
# Mathlib/Tactic/Linarith/Preprocessing.lean, `natToInt`/`getNatComparisons`: each ℕ comparison is cast
# to ℤ by push_cast, and `0 ≤ ↑t` is added only for a cast `↑t` reached through `+ * - neg`.


@pytest.mark.parametrize(
    "stmt",
    [
        "(x : ℕ) : 0 ≤ x ^ 9890",  # MathlibTest/linarith.lean (fail_if_success)
        "(x : ℕ) : 0 ≤ x ^ 3",  # a small exponent expands, but ↑x under ^ gets no fact
        "(x : ℕ) : x ^ 2 < (x + 1) ^ 2",  # needs 0 ≤ x, which sits only under ^
        "(x y : ℕ) : 0 ≤ x * y",  # 0 ≤ ↑x and 0 ≤ ↑y, but nothing about the product
        "(x : ℕ) (h : x / 2 + 1 ≤ 0) : False",  # push_cast makes ↑(x / 2) into ↑x / 2: no fact
        "(x : ℕ) (h : x % 3 + 1 ≤ 0) : False",
        "(x : ℕ) (h : (x : ℤ) ^ 2 < 0) : False",  # a cast under ^ in a ℤ comparison: no fact either
    ],
)
def test_linarith_adds_nonnegativity_only_of_reachable_casts(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example {stmt} := by linarith") == "error"


@pytest.mark.parametrize(
    "stmt",
    [
        "(x : ℕ) : 0 ≤ x",
        "(x y : ℕ) (h : x + y = 0) : x ≤ 0",  # ↑x and ↑y reached through +
        "(x y : ℕ) (h : x * 2 + y < 1) : y = 0",  # through *
        "(a b : ℕ) (h : a - b + 1 ≤ 0) : False",  # ↑(a - b) is a cast: 0 ≤ ↑(a - b)
        "(x : ℕ) (h : (x : ℤ) + 1 ≤ 0) : False",  # a ℕ cast in a ℤ comparison
    ],
)
def test_linarith_keeps_the_nonnegativity_lean_adds(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example {stmt} := by linarith") == "proved"


def test_nlinarith_products_still_see_the_atom_facts(sim: MathlibSimBackend) -> None:
    # nlinarith multiplies the preprocessed facts, the nonnegativity ones included (Preprocessing.lean)
    assert status(sim, "example (x y : ℕ) : 0 ≤ x * y := by nlinarith") == "proved"


# ---------------------------------------------------------------------------------------- field_simp
# MathlibTest/ring.lean and MathlibTest/FieldSimp.lean: `field_simp; ring` — field_simp leaves the goal.


@pytest.mark.parametrize(
    "stmt",
    [
        "(x y z : ℚ) (hx : x ≠ 0) (hy : y ≠ 0) :\n"
        "    x / (y / z) + y ⁻¹ + 1 / (y * -x) = -1/ (x * y) + (x * z + 1) / y",
        "(x : ℝ) (hx : x ≠ 0) : 2 * x ^ 3 * 2 / (24 * x) = x ^ 2 / 6",
        "(x : ℚ) (h₀ : x ≠ 0) :\n    (4 / x)⁻¹ * ((3 * x ^ 3) / x) ^ 2 * ((1 / (2 * x))⁻¹) ^ 3 = 18 * x ^ 8",
        "{x y : ℚ} (hx : 0 < x) :\n"
        "    ((x ^ 2 - y ^ 2) / (x ^ 2 + y ^ 2)) ^ 2 + (2 * x * y / (x ^ 2 + y ^ 2)) ^ 2 = 1",
    ],
)
def test_field_simp_leaves_to_ring_what_needs_ring(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example {stmt} := by\n  field_simp") == "error"
    assert status(sim, f"example {stmt} := by\n  field_simp\n  ring") == "proved"


@pytest.mark.parametrize(
    "stmt",
    [
        # the August 2025 field_simp takes the common factor out of a sum, and a sum is an atom up to
        # syntax: both sides become one product (Mathlib/Tactic/FieldSimp.lean, `normalize`; the record
        # MathlibTest/FieldSimp.lean c5da5641a9ca line 479 closes the third with field_simp alone)
        "(a b : ℚ) : (a + b) * 2 = 2 * a + 2 * b",
        "(a b : ℚ) (ha : a ≠ 0) : (a + b) / a = 1 + b / a",
        "{x y : ℚ} (hx : x + y ≠ 0) : x / (x + y) + y / (x + y) = 1",
    ],
)
def test_field_simp_closes_what_its_normal_form_identifies(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example {stmt} := by\n  field_simp") == "proved"


@pytest.mark.parametrize(
    "stmt",
    [
        "(x : ℚ) (hx : x ≠ 0) : x * x⁻¹ = 1",  # MathlibTest/FieldSimp.lean
        "(a b : ℚ) : a * b = b * a",
        "(a b : ℚ) (hb : b ≠ 0) : a * b / b = a",
    ],
)
def test_field_simp_closes_one_product_normal_form(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example {stmt} := by\n  field_simp") == "proved"


def test_field_simp_cancels_only_what_is_nonzero(sim: MathlibSimBackend) -> None:
    # without `hx`, x * x⁻¹ = 1 is false at x = 0: nothing may close it
    assert status(sim, "example (x : ℚ) : x * x⁻¹ = 1 := by\n  field_simp") == "error"
    assert status(sim, "example (x : ℚ) : x * x⁻¹ = 1 := by\n  field_simp\n  ring") == "error"


# ------------------------------------------------------------------------------------ use / existsi
# Mathlib/Tactic/Use.lean: `try with_reducible use_discharger` (exists_prop, And.intro, rfl, assumption,
# True.intro); Mathlib/Tactic/ExistsI.lean: `existsi` is `refine ⟨…, ?_⟩`. MathlibTest/Use.lean and
# MathlibTest/ExistsI.lean follow each with `rfl` where the discharger leaves arithmetic.


@pytest.mark.parametrize(
    "code",
    [
        "example : ∃ a b c : Int, a + b + c = 6 := by\n  use 1, 2, 3",
        "example : ∃ n : Int, n * 3 = 3 * 2 := by\n  use 2",
        "example : ∃ n : ℕ, n + 0 = 2 := by\n  use 2",
        "example : ∃ n : ℤ, 2 * n = 4 := by\n  use 2",
        "example : ∃ x : Nat, x = x := by\n  existsi 42",
        "example : ∃ x : Nat, ∃ y : Nat, x = y := by\n  existsi 42, 42",
    ],
)
def test_use_and_existsi_leave_what_their_discharger_cannot_close(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "error"
    assert status(sim, code + "\n  rfl") == "proved"


@pytest.mark.parametrize(
    "code",
    [
        "example : ∃ x : Nat, x = x := by use 42",
        "example (y : ℕ) (h : 42 = y) : ∃ x : Nat, x = y := by use 42",
        "example (h1 : 1 > 0) : ∃ (n : Nat) (_h : n > 0), n = n := by\n  use 1",
        "example : ∃ n : ℕ, n = 2 ∧ True := by\n  use 2",
    ],
)
def test_use_discharger_closes_rfl_assumption_and(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "proved"


# -------------------------------------------------------------------------------- linear_combination
# Mathlib/Tactic/LinearCombination.lean; cases from MathlibTest/linear_combination.lean.


@pytest.mark.parametrize(
    "code",
    [
        "example (x y : ℤ) (h1 : x * y + 2 * x = 1) (h2 : x = y) : x * y = -2 * y + 1 := by\n"
        "  linear_combination 1 * h1 - 2 * h2",
        "example (a b : ℝ) (ha : 2 * a = 4) (hab : 2 * b = a - b) : b = 2 / 3 := by\n"
        "  linear_combination ha / 6 + hab / 3",
        "example {a : ℕ} (h : a = 3) : a ^ 2 + 3 = 4 * a := by\n  linear_combination a * h - h",
        "example (a b : ℚ) (h1 : a ≤ 1) (h2 : b = 1) : a + b < 3 := by linear_combination h1 + h2",
        "example {a b : ℝ} (ha : 0 ≤ a) (hb : b < 1) : a * b ≤ a := by linear_combination a * hb",
        "example (x y : ℤ) (h1 : 3 * x + 2 * y = 10) : 3 * x + 2 * y = 10 := by\n"
        "  linear_combination (norm := skip) h1\n  ring1",
        "example (x : ℤ) : x ^ 2 = x ^ 2 := by linear_combination",
    ],
)
def test_linear_combination_proves_what_ring_checks(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "proved"


@pytest.mark.parametrize(
    "code",
    [
        "example (a : ℤ) (ha : a = 1) : a = 2 := by linear_combination ha",  # wrong combination
        "example {x y : ℤ} (h : x = y) : x ^ 2 = y ^ 2 := by linear_combination h * h",  # not linear
        "example {x y : ℤ} (h : x = y) : 3 / x = 3 / y := by linear_combination 3 / h",
        "example {a b : ℕ} (h : a = 3) : a ^ 2 + 3 = 4 * a := by\n  linear_combination (a - 1) * h",  # ℕ `-`
        "example {a b : ℝ} (hb : b < 1) : a * b ≤ a := by linear_combination a * hb",  # sign of a unknown
        "example (a b : ℚ) (h1 : a ≤ 1) (h2 : b ≥ 0) : a ≤ b := by linear_combination h1 + h2",
        "example (a b : ℚ) (h1 : a ≤ 1) : -a ≤ -1 := by linear_combination -h1",  # negating an inequality
        "example (a b : ℚ) (h1 : a ≤ 1) (h2 : b ≤ 0) : a - b ≤ 1 := by linear_combination h1 - h2",
        "example (a b : ℚ) (h1 : a ≤ 1) : a = 1 := by linear_combination h1",  # an inequality for an equation
        "example (a b : ℚ) (h1 : a ≤ 1) : a < 1 := by linear_combination h1",  # strictness is not free
        "example (x y : ℤ) (h1 : 3 * x + 2 * y = 10) : 3 * x + 2 * y = 10 := by\n"
        "  linear_combination (norm := skip) h1",
    ],
)
def test_linear_combination_refuses_what_mathlib_refuses(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "error"


def test_linear_combination_messages_are_lean_s(sim: MathlibSimBackend) -> None:
    r = sim.check("example (a : ℚ) (ha : a = 1) : a = 2 := by linear_combination ha")
    assert r.errors[0].data == "ring failed, ring expressions not equal\na : ℚ\nha : a = 1\n⊢ -1 = 0"
    r = sim.check("example {x y : ℤ} (h : x = y) : x ^ 2 = y ^ 2 := by linear_combination h * h")
    assert r.errors[0].data == "'linear_combination' supports only linear operations"


# ------------------------------------------------------------------------------------------------ tauto
# Mathlib/Tactic/Tauto.lean: distribNot, casesMatching, constructorMatching, or_iff_not_imp_left — a
# classical tableau on the propositional structure; cases from MathlibTest/Tauto.lean.


@pytest.mark.parametrize(
    "stmt",
    [
        "(p q r : Prop) (h : p ∧ q ∨ p ∧ r) : p ∧ p",
        "(p q : Prop) (h : p ≠ q) : ¬ p ↔ q",
        "(p q r : Prop) : p ∨ (q ∧ r) ↔ (p ∨ q) ∧ (r ∨ p ∨ r)",
        "(p : Prop) : p ∨ ¬ p",  # classical
        "(p q : Prop) : ((p → q) → p) → p",  # Peirce: distribNot turns `a → b` into `¬a ∨ b`
        "(a b c : Nat) : ¬(¬a ≤ b ∧ a ≤ c ∨ ¬a ≤ c ∧ a ≤ b) ↔ a ≤ b ∧ a ≤ c ∨ ¬a ≤ c ∧ ¬a ≤ b",
        "(x : ℕ) (p : Prop) (h : x = x → p) : p",
    ],
)
def test_tauto_proves_classical_tautologies(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example {stmt} := by tauto") == "proved"


@pytest.mark.parametrize(
    "stmt",
    [
        "(p q : Prop) : p ∨ q",
        "(p q : Prop) (h : p → q) : q → p",
        "(x : ℕ) (h : x < 3) : x ≤ 3",  # arithmetic is not propositional logic
        "(p : ℕ → Prop) (h : ∀ n, p n) : p 0 ∧ p 1 ∧ False",
    ],
)
def test_tauto_refuses_what_is_not_a_tautology(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example {stmt} := by tauto") == "error"


# ------------------------------------------------------------- linarith's options, ≠ goals, ∧ hypotheses
# MathlibTest/linarith.lean; Mathlib/Tactic/Linarith/Frontend.lean (`LinarithConfig`), Preprocessing.lean.


@pytest.mark.parametrize(
    "code",
    [
        "example (x y : Rat) (h : x < y) : x ≠ y := by linarith",
        "example (x y : Rat) (h : x < y) : ¬ x = y := by linarith",
        "example (x y : Rat)\n    (h : 6 + ((x + 4) * x + (6 + 3 * y) * y) = 3 ∧ (x + 4) * x ≥ 0 ∧ (6 + 3 * y) * y ≥ 0) :\n"
        "    False := by\n  linarith",
        "example (x y z : ℚ) (hx : x < 5) (hy : y < 5000000000) (hz : z > 34 * y) : x ≤ 5 := by\n"
        "  linarith only [hx]",
        "example (a b : ℕ) (h1 : b ≠ a) (h2 : b ≤ a) : b < a := by\n  linarith (config := {splitNe := true})",
        "example (a b c : Rat) (h2 : (2 : Rat) > 3) : a + b - c ≥ 3 := by\n"
        "  linarith (config := {exfalso := false})",
    ],
)
def test_linarith_options_lean_has(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "proved"


@pytest.mark.parametrize(
    "code",
    [
        "example (x y : ℚ) (hx : x < 5) (hy : x = y) : y ≤ 5 := by\n  linarith only [hx]",  # hy is left out
        "example (a b : ℕ) (h1 : b ≠ a) (h2 : b ≤ a) : b < a := by\n  linarith",  # ≠ needs splitNe
        "example (a b : ℚ) (h : a ≤ b ∧ b ≤ a) : a = b := by\n"
        "  linarith (config := {splitHypotheses := false})",
        "example (x y : ℚ) (h : x ≤ y) : x ≠ y := by linarith",  # not a contradiction
        "example (x : ℚ) (h : x < 1) : x < 2 := by\n  linarith (config := {discharger := skip})",
    ],
)
def test_linarith_options_are_not_stronger(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "error"


# ------------------------------------------------------------------------------------------ gcongr, rel
# Mathlib/Tactic/GCongr/Core.lean; cases from MathlibTest/GCongr/inequalities.lean.


@pytest.mark.parametrize(
    "code",
    [
        "example {x : ℝ} (h : x < 1) : 3 * x ≤ 3 * 1 := by gcongr",  # le_of_lt of a hypothesis
        "example {n m : ℤ} (hn : n ≥ 10) : n * n ^ 3 - m ≥ 10 * n ^ 3 - m := by gcongr",
        "example {x : ℤ} (hx : x ≥ 12) : x ≥ 12 := by gcongr",
        "example {k m n : ℤ} (H : m ^ 2 ≤ n ^ 2) : k + m ^ 2 ≤ k + n ^ 2 := by gcongr",  # closes before ^
        "example (a b c d : ℕ) (h1 : a ≤ b) (h2 : c ≤ d) : a * c ≤ b * d := by gcongr",
        "example {a b : ℚ} (h₁ : a < b) (c : ℝ) : (a + c : ℝ) < b + c := by gcongr",
        "example {a b : ℕ} (h1 : a ≤ 0) (h2 : 0 ≤ b) : b ≤ a + 1 → 0 ≤ 0 + 1 := by gcongr",
        "example {x y : ℕ} (h : x ≤ y) : 2 ^ x ≤ 2 ^ y := by\n  gcongr\n  norm_num",  # side goal 1 ≤ 2 left
        "example {x y : ℤ} (hx : x ≥ 12) : y + x * x ≥ y + 12 * x := by rel [hx]",
    ],
)
def test_gcongr_follows_mathlib_lemmas(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "proved"


@pytest.mark.parametrize(
    "code",
    [
        "example {x : ℝ} (h : x ≤ 1) : 3 * x < 3 * 1 := by gcongr",  # < is not had from ≤
        "example (a b c : ℝ) (h : a ≤ b) : a * c ≤ b * c := by gcongr",  # 0 ≤ c is left open
        "example (a b c : ℝ) (h : a ≤ b) : c - a ≤ c - b := by gcongr",  # antitone: needs b ≤ a
        "example (a b c : ℕ) (h : a < b) : a - c < b - c := by gcongr",  # no strict tsub lemma
        "example {x y : ℕ} (h : x ≤ y) : 2 ^ x ≤ 2 ^ y := by gcongr",  # 1 ≤ 2 is not positivity's
        "example {x y : ℤ} (hx : x ≤ y) (hy : y ≤ 3) : x + 1 ≤ 3 + 1 := by rel [hx]",  # hy not listed
        "example {a b : ℕ} (h1 : a ≤ 0) : b ≤ a + 1 → 0 ≤ 0 + 1 := by gcongr",  # main goal 0 ≤ b left
    ],
)
def test_gcongr_is_not_stronger(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "error"


# -------------------------------------------------------------------------------------------- contrapose
# Mathlib/Tactic/Contrapose.lean; cases from MathlibTest/Contrapose.lean.


@pytest.mark.parametrize(
    "code",
    [
        "example (p q : Prop) (h : ¬q → ¬p) : p → q := by\n  contrapose\n  exact h",
        "example (p q : Prop) (h : q → p) : ¬p → ¬q := by\n  contrapose\n  exact h",  # ¬¬ is removed
        "example (p q : Prop) (h : p) (hpq : ¬q → ¬p) : q := by\n  contrapose h with h'\n  exact hpq h'",
        "example (p q r : Prop) (h : ¬ q ∧ ¬ r → ¬ p) : p → q ∨ r := by\n  contrapose!; exact h",
        "example (p q : Prop) (h : p ↔ q) : ¬p ↔ ¬q := by\n  contrapose\n  exact h",
    ],
)
def test_contrapose_turns_the_goal_as_mathlib(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "proved"


@pytest.mark.parametrize(
    "code",
    [
        "example (p q : Prop) (h : ¬q → ¬p) : p → q := by\n  contrapose",  # the goal is left
        "example (p q r : Prop) (h : ¬ q ∧ ¬ r → ¬ p) : p → q ∨ r := by\n  contrapose; exact h",  # no push_neg
        "example (p : Prop) (h : p) : p := by\n  contrapose\n  exact h",
        "set_option contrapose.negate_iff false in\n"
        "example (p q : Prop) (h : p ↔ q) : ¬p ↔ ¬q := by\n  contrapose\n  exact h",
    ],
)
def test_contrapose_refuses_what_mathlib_refuses(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "error"


# ------------------------------------------------------------------------ norm_cast, mod_cast, zify [h]
# MathlibTest/norm_cast.lean, MathlibTest/Qify.lean, MathlibTest/Rify.lean.


@pytest.mark.parametrize(
    "code",
    [
        "example (an bn : ℕ) : (an : ℤ) < bn ↔ an < bn := by norm_cast",
        "example (a b : ℕ) : (a : ℚ) ≤ b ↔ a ≤ b := by qify",
        "example (an : ℕ) (h : (an : ℝ) = 42) : an = 42 := mod_cast h",
        "example (an bn : ℕ) : (an : ℤ) = bn → an = bn := by intro h; exact mod_cast h",
        "example (a b c : ℕ) (h : a - b < c) (hab : b ≤ a) : a < b + c := by\n  rify [hab] at h ⊢\n  linarith",
    ],
)
def test_cast_tactics_close_what_lean_closes(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "proved"


@pytest.mark.parametrize(
    "code",
    [
        "example (an bn : ℕ) : (an : ℤ) < bn ↔ an ≤ bn := by norm_cast",
        "example (an : ℕ) (h : (an : ℝ) = 42) : an = 41 := mod_cast h",
        "example (a b c : ℕ) (h : a - b < c) : a < b + c := by\n  rify at h ⊢\n  linarith",  # ↑(a - b) stays
    ],
)
def test_cast_tactics_are_not_stronger(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "error"


# ------------------------------------------------------------------------------------------- positivity
# Mathlib/Tactic/Positivity/Core.lean (`compareHyp`, `orElse`), `evalIntDiv`; MathlibTest/positivity.lean.


@pytest.mark.parametrize(
    "stmt",
    [
        "{a : ℤ} (ha : a = 0) : a ≥ 0",
        "{a : ℤ} (ha : 3 = a) : a ≠ 0",
        "{a : ℤ} (ha : a = -1) : a ≠ 0",
        "{a : ℤ} (hlt : 0 ≤ a) (hne : a ≠ 0) : 0 < a",
        "{a b : ℤ} (ha : 0 ≤ a) (hb : 0 ≤ b) : 0 ≤ a / b",
    ],
)
def test_positivity_reads_hypotheses_as_mathlib(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example {stmt} := by positivity") == "proved"


@pytest.mark.parametrize(
    "stmt",
    [
        "{a : ℤ} (ha : a = 0) : 0 < a",
        "{a : ℤ} (ha : a = -1) : 0 ≤ a",
        "{a b : ℤ} (ha : 0 < a) (hb : 0 < b) : 0 < a / b",  # 1 / 2 = 0: only non-negative
        "{a : ℤ} (hne : a ≠ 0) : 0 < a",
    ],
)
def test_positivity_is_not_stronger(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example {stmt} := by positivity") == "error"


# ----------------------------------------------------------------------------------------------- choose
# Mathlib/Tactic/Choose.lean; cases from MathlibTest/choose.lean.


@pytest.mark.parametrize(
    "code",
    [
        "example (h : ∀ m : ℕ, ∃ n : ℕ, m < n) : ∀ m : ℕ, ∃ n : ℕ, m < n := by\n"
        "  choose f hf using h\n  intro m\n  exact ⟨f m, hf m⟩",
        "example (h : ∀ i : ℕ, i < 7 → ∃ j, i < j ∧ j < i + i) : True := by\n"
        "  choose! f h h' using h\n  trivial",
        "example (h : ∀ m : ℕ, ∃ n k : ℕ, m < n ∧ n < k) (m : ℕ) : m < m + 2 := by\n"
        "  choose f g hf hg using h\n  have := hf m\n  have := hg m\n  omega",
        "example : (∀ m : Nat, ∃ i, ∀ n : Nat, ∃ j, m = n + i ∨ m + j = n) → True := by\n"
        "  choose i j h\n  trivial",
        "example (h : ∃ n : Nat, n > 0) : True := by\n  choose (n : Nat) (hn : n > 0) using h\n  trivial",
    ],
)
def test_choose_makes_skolem_functions(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "proved"


@pytest.mark.parametrize(
    "code",
    [
        "example (h : ∃ n : Nat, n > 0) : True := by\n  choose (n : Int) hn using h\n  trivial",
        "example (h : ∃ n : Nat, n > 0) : True := by\n  choose n (hn : n < 0) using h\n  trivial",
        "example (h : ∀ m : ℕ, ∃ n : ℕ, m < n) : ∀ m : ℕ, m < 5 := by\n"
        "  choose f hf using h\n  intro m\n  exact hf m",  # hf says m < f m, nothing more
        "example (h : ∀ m : ℕ, ∃ n : ℕ, m < n) (m : ℕ) : m < m := by\n  choose f hf using h\n  exact h m",
    ],
)
def test_choose_gives_no_more_than_the_hypothesis(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "error"


def test_by_contra_bang_checks_its_type_up_to_push_neg(sim: MathlibSimBackend) -> None:
    # MathlibTest/byContra.lean
    ok = "example (a b : ℕ) (h : False) : a < b := by\n  by_contra! foo : ¬ a < b\n  exact h"
    assert status(sim, ok) == "proved"
    r = sim.check("example (a b : ℕ) : a < b := by\n  by_contra! : a ≤ b")
    assert r.status == "error"
    assert r.errors[0].data.splitlines()[0] == "Type mismatch"


def test_nat_sqrt_is_norm_num_s_alone(sim: MathlibSimBackend) -> None:
    # MathlibTest/norm_num_ext.lean evaluates Nat.sqrt with norm_num (Mathlib.Tactic.NormNum.NatSqrt);
    # Nat.sqrt is well-founded recursion, which decide and rfl do not unfold
    assert status(sim, "example : Nat.sqrt 99 = 9 := by norm_num1") == "proved"
    assert status(sim, "example : Nat.sqrt 99 = 10 := by norm_num1") == "error"
    for tac in ("decide", "rfl", "simp"):
        assert status(sim, f"example : Nat.sqrt 9 = 3 := by {tac}") == "error"


def test_interval_cases_using_takes_bounds_from_the_named_hypotheses_only(sim: MathlibSimBackend) -> None:
    # MathlibTest/interval_cases.lean: `interval_cases using w₁, w₂`
    ok = "example (n : ℕ) (w₁ : 1 ≤ n) (w₂ : n < 3) : n = 1 ∨ n = 2 := by\n"
    ok += "  interval_cases using w₁, w₂\n  · left; rfl\n  · right; rfl"
    assert status(sim, ok) == "proved"
    # a tighter bound h₃ that is not named gives no fewer cases: n = 2 and n = 3 stay
    code = "example (n : ℕ) (h₁ : 1 ≤ n) (h₂ : n < 4) (h₃ : n < 2) : n = 1 := by\n  interval_cases {} <;> rfl"
    assert status(sim, code.format("n")) == "proved"
    assert status(sim, code.format("using h₁, h₂")) == "error"


@pytest.mark.parametrize(
    "code",
    [
        "example {a b c : ℝ} {f : ℝ → ℝ} (h : f (a * c * b) * f (c + b + a) = 1) :\n"
        "    f (a + b + c) * f (b * a * c) = 1 := by\n  ring_nf at *\n  exact h",  # MathlibTest/ring.lean
        "example (a b : ℤ) : a+b=0 ↔ b+a=0 := by\n  ring_nf",
    ],
)
def test_ring_nf_normalises_inside_applications_and_iff(sim: MathlibSimBackend, code: str) -> None:
    assert status(sim, code) == "proved"


def test_ring_nf_inside_applications_is_not_stronger(sim: MathlibSimBackend) -> None:
    code = (
        "example {a b : ℝ} {f : ℝ → ℝ} (h : f (a * b) = 1) : f (a + b) = 1 := by\n  ring_nf at *\n  exact h"
    )
    assert status(sim, code) == "error"
