"""The causes behind SATP's minimal proofs that the simulator failed (issue 21), each tested on Lean's record.

Every case here proves on Lean: ``lean_gym/conformance/cases/satp/satp_minimal.jsonl`` records SATP's
aesop-free minimal proofs (ChristianZ97/LeanSATP, ``proofs/minif2f_test_v2/minimal/``, Lean v4.26.0, Mathlib
v4.26.0), and Mathlib's tests are cited where they state the fact. Each cause comes with attacks: false
statements built like the true ones, which the simulator must not prove.
"""

from __future__ import annotations

import pytest

from lean_gym.backends.sim import SimBackend
from lean_gym.conformance.corpus import satp_theorems

HEADER = "import Mathlib"


def _minimal(name: str) -> str:
    return satp_theorems("satp_minimal.jsonl")[name]


@pytest.fixture(scope="module")
def backend() -> SimBackend:
    return SimBackend(max_heartbeats=200_000)


def _proves(backend: SimBackend, code: str) -> bool:
    return bool(backend.check(code, header=HEADER).proved)


# ---------------------------------------------------------------------------------- simp: Lean's isPerm


def test_simp_rewrites_with_a_rule_whose_sides_differ_in_shape(backend: SimBackend) -> None:
    """``one_eq_inv : 1 = a⁻¹ ↔ a = 1`` is no permutation lemma (Lean's ``isPerm`` compares shapes), so simp
    rewrites with it: SATP's minimal proof of mathd_algebra_275 (LeanSATP @62e4349c,
    ``proofs/minif2f_test_v2/minimal/mathd_algebra_275.lean`` line 3) closes its goal that way."""
    assert _proves(backend, _minimal("mathd_algebra_275"))
    code = (
        "example (h : (1 : ℝ) = (5 : ℝ)⁻¹) : False := by\n  simp only [one_eq_inv, OfNat.ofNat_ne_one] at h"
    )
    assert _proves(backend, code)


def test_permutation_rules_stay_ordered(backend: SimBackend) -> None:
    # `mul_comm` is a permutation rule: simp rewrites with it only to a smaller term (no loop), so it
    # cannot turn one side into an unrelated product
    assert not _proves(backend, "example (a b c : ℝ) : a * b = c * a := by simp only [mul_comm]")
    assert _proves(backend, "example (a b : ℝ) : a * b = b * a := by simp only [mul_comm]")


def test_one_eq_inv_does_not_prove_false_equations(backend: SimBackend) -> None:
    assert not _proves(
        backend,
        "example (h : (1 : ℝ) = (5 : ℝ)⁻¹) : (5 : ℝ) = 2 := by\n  simp only [one_eq_inv] at h\n  exact h",
    )
    assert not _proves(
        backend,
        "example (h : (1 : ℝ) = (1 : ℝ)⁻¹) : False := by\n  simp only [one_eq_inv, OfNat.ofNat_ne_one] at h",
    )


# ------------------------------------------------------------------------ simp: Nat offset unification


def test_simp_all_rewrites_with_an_offset_pattern(backend: SimBackend) -> None:
    """``h₂ : ∀ n, a (n + 2) = a (n + 1) + a n`` rewrites ``a 100`` (``?n + 2 =?= 100``, Lean's
    ``isDefEqOffsetNat``): SATP's minimal proof of mathd_numbertheory_483 (LeanSATP @62e4349c, line 3)."""
    assert _proves(backend, _minimal("mathd_numbertheory_483"))


@pytest.mark.parametrize(
    "code",
    [
        # the true value is 3
        "theorem t (a : ℕ → ℕ) (h₀ : a 1 = 1) (h₁ : a 2 = 1)\n    (h₂ : ∀ n, a (n + 2) = a (n + 1) + a n) : "
        "a 100 % 4 = 2 := by\n  simp_all only [zero_add, Nat.add_eq_left, Nat.reduceAdd, add_zero, Nat.reduceMod]",
        # `a (n + 2)` does not match `a 1`: nothing pins `a 0`, so `a 3` is unknown
        "theorem t (a : ℕ → ℕ) (h₀ : a 1 = 1) (h₂ : ∀ n, a (n + 2) = a (n + 1) + a n) : a 3 = 2 := by\n"
        "  simp_all only [Nat.reduceAdd]",
    ],
)
def test_offset_rewriting_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


def test_offset_matches_an_offset_term(backend: SimBackend) -> None:
    # `?n + 2 =?= m + 5` is `?n =?= m + 3`
    code = "example (f : ℕ → ℕ) (h : ∀ n, f (n + 2) = n) (m : ℕ) : f (m + 5) = m + 3 := by simp only [h]"
    assert _proves(backend, code)
    bad = "example (f : ℕ → ℕ) (h : ∀ n, f (n + 2) = n) (m : ℕ) : f (m + 5) = m + 2 := by simp only [h]"
    assert not _proves(backend, bad)


# ------------------------------------------------------------------------------- norm_num: evalRPow

# MathlibTest/norm_num_rpow.lean at leanprover-community/mathlib4 55499f335b3d, lines 7-24
RPOW_RECORDED = [
    "example : (2 : ℝ) ^ (3 : ℝ) = 8 := by norm_num1",
    "example : (-1/3 : ℝ) ^ (-3 : ℝ) = -27 := by norm_num1",
    "example : (1/2 : ℝ) ^ (-3 : ℝ) = 8 := by norm_num1",
    "example : (8 : ℝ) ^ (2 / 6 : ℝ) = 2 := by norm_num1",
    "example : (0 : ℝ) ^ (1 / 3 : ℝ) = 0 := by norm_num1",
    "example : (8 / 27 : ℝ) ^ (1 / 3 : ℝ) = 2 / 3 := by norm_num1",
    "example : (8 : ℝ) ^ (-1 / 3 : ℝ) = 1 / 2 := by norm_num1",
    "example : (8 / 27 : ℝ) ^ (-1 / 3 : ℝ) = 3 / 2 := by norm_num1",
    "example : (1 / 27 : ℝ) ^ (-1 / 3 : ℝ) = 3 := by norm_num1",
    "example : (0 : ℝ) ^ (-1 / 3 : ℝ) = 0 := by norm_num1",
]


@pytest.mark.parametrize("code", RPOW_RECORDED)
def test_norm_num_evaluates_real_powers_as_mathlib_records(backend: SimBackend, code: str) -> None:
    assert _proves(backend, code)


@pytest.mark.parametrize(
    "code",
    [
        # line 27 of the same file: a negative base with a non-integer exponent is left alone
        "example : (-8 : ℝ) ^ (1 / 3 : ℝ) = -2 := by norm_num1",
        "example : (2 : ℝ) ^ (1 / 3 : ℝ) = 1 := by norm_num1",  # no exact root: not evaluated
        "example : (8 : ℝ) ^ (1 / 3 : ℝ) = 3 := by norm_num1",
        "example : (8 : ℝ) ^ (2 / 3 : ℝ) = 2 := by norm_num1",
        "example : (4 : ℝ) ^ (-1 / 2 : ℝ) = 2 := by norm_num1",
    ],
)
def test_norm_num_real_power_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


# ---------------------------------------------------------------- linarith: cancelDenoms runs norm_num


@pytest.mark.parametrize("name", ["mathd_algebra_208", "mathd_algebra_114"])
def test_linarith_preprocessing_evaluates_comparisons_with_a_division(backend: SimBackend, name: str) -> None:
    """Linarith's ``cancelDenoms`` runs norm_num's core on a comparison with ``/``/``⁻¹``
    (``CancelDenoms.derive``), evaluating ``√1000000`` and ``1000000 ^ 3⁻¹``: SATP's minimal proofs of
    mathd_algebra_208 (LeanSATP @62e4349c) and mathd_algebra_114 (@8173665e), ``simp_all only [one_div];
    linarith``."""
    assert _proves(backend, _minimal(name))


@pytest.mark.parametrize(
    "code",
    [
        # no division anywhere: `√1000000` stays an atom for linarith, as in Mathlib
        "example : Real.sqrt 1000000 = 1000 := by linarith",
        # false values
        "example : Real.sqrt 1000000 - 1000000 ^ ((1 : ℝ) / 3) = 901 := by\n  simp_all only [one_div]\n  linarith",
        "example (a : ℝ) (h₀ : a = 8) : (16 * (a ^ 2) ^ ((1 : ℝ) / 3)) ^ ((1 : ℝ) / 3) = 5 := by\n"
        "  simp_all only [one_div]\n  linarith",
        # no exact root: the power stays an atom
        "example : (2 : ℝ) ^ ((1 : ℝ) / 3) < 1 := by linarith",
    ],
)
def test_linarith_norm_num_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


# ------------------------------------------------------------------------------- ring_nf inside atoms


def test_ring_nf_normalises_ring_subterms_of_atoms(backend: SimBackend) -> None:
    """``ring_nf at *`` rewrites ``24 * x % 1199`` (``%`` is an atom of ``ring``, its argument a ring term):
    SATP's minimal proof of mathd_numbertheory_765 (LeanSATP @62e4349c), ``bound; ring_nf at *; grind only
    [Int.emod_nonneg]``."""
    assert _proves(backend, _minimal("mathd_numbertheory_765"))
    code = "example (x : ℤ) (h : 24 * x % 1199 = 15) : x * 24 % 1199 = 15 := by\n  ring_nf at h\n  exact h"
    assert _proves(backend, code)
    # the value 449 is the bound; 450 is not
    bad = "example (x : ℤ) (h₀ : x < 0) (h₁ : 24 * x % 1199 = 15) : x ≤ -450 := by\n  ring_nf at *\n  grind"
    assert not _proves(backend, bad)


# ------------------------------------------------------------------------------ omega's ground powers


def test_omega_evaluates_a_ground_power_modulo_a_numeral(backend: SimBackend) -> None:
    """Lean's omega evaluates ground terms (``groundNat?`` in ``src/Lean/Elab/Tactic/Omega/Frontend.lean``):
    SATP's minimal proof of mathd_numbertheory_328 is ``omega`` on ``5 ^ 999999 % 7 = 6``."""
    assert _proves(backend, _minimal("mathd_numbertheory_328"))
    assert _proves(backend, "example : ((-5 : ℤ) ^ 999999) % 7 = 1 := by omega")  # Euclidean remainder


@pytest.mark.parametrize(
    "code",
    [
        "example : 5 ^ 999999 % 7 = 5 := by omega",
        "example : ((-5 : ℤ) ^ 3) % 7 = 6 := by omega",  # -125 % 7 is 1 (Int.emod), not 6
        "example : 5 ^ 999999 / 7 = 6 := by omega",  # the quotient is no small number
    ],
)
def test_omega_ground_power_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)
