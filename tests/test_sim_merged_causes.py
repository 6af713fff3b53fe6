"""The features two branches implemented each (issue 21's merge of i21c with i20t and i21m), as one.

* omega's ground evaluation: Lean core's omega reads a ground term through ``groundNat?``/``groundInt?``
  (``src/Lean/Elab/Tactic/Omega/OmegaM.lean``: casts, ``+ * - / ^`` evaluated with big numbers) and a
  remainder by a ground modulus through ``Int.emod_def`` (``Frontend.lean``, ``asLinearComboImpl``), so the
  remainder of a ground term is the number that big-number arithmetic gives. The simulator computes it
  modulo the numeral without building the term (:func:`lean_gym.sim.polyconv.ground_mod`), and refuses a
  term whose value would be larger than :data:`~lean_gym.sim.polyconv.OMEGA_GROUND_POW_BITS` bits.
* ``zify``: Mathlib's ``@[zify_simps] natCast_dvd`` (``Mathlib/Tactic/Zify.lean``) moves ``a ∣ b`` on ℕ to ℤ
  (``MathlibTest/Zify.lean`` line 52, commit ``173d1ddf698cc38968a3ac82533bc441e9ee67db``).
* ``norm_cast`` into ℂ: ``Complex.ofReal_inj`` and ``Nat.cast_inj`` are elim lemmas (``MathlibTest/norm_cast.lean``
  lines 22-23, commit ``363c44193e519b469f4c7ee43238e2da1557d1bc``: ``(aq : ℝ) = br ↔ (aq : ℂ) = br`` and
  ``(an : ℚ) = bz ↔ (an : ℂ) = bz`` by ``norm_cast``); ℂ has no order, so only ``=`` and ``≠`` move.
"""

from __future__ import annotations

import pytest

from lean_gym.backends.sim import SimBackend
from lean_gym.sim.polyconv import OMEGA_GROUND_POW_BITS, ground_mod

HEADER = "import Mathlib"


@pytest.fixture(scope="module")
def backend() -> SimBackend:
    return SimBackend(max_heartbeats=200_000)


def _proves(backend: SimBackend, code: str) -> bool:
    return backend.check(code, header=HEADER).proved


# ------------------------------------------------------------------------- omega's ground evaluation


def _n(v: int) -> tuple[str, str, int]:
    return ("num", "ℕ", v)


def test_ground_mod_is_the_remainder_of_the_value() -> None:
    pw = ("^", "ℕ", _n(5), _n(999999))
    assert ground_mod(pw, 7) == pow(5, 999999, 7) == 6
    s = ("+", "ℕ", pw, ("*", "ℕ", _n(3), ("^", "ℕ", _n(2), _n(100000))))
    assert ground_mod(s, 7) == (pow(5, 999999, 7) + 3 * pow(2, 100000, 7)) % 7
    neg = ("^", "ℤ", ("neg", "ℤ", ("num", "ℤ", 5)), ("num", "ℕ", 3))
    assert ground_mod(neg, 7) == (-125) % 7 == 1  # Int.emod: the Euclidean remainder
    assert ground_mod(("cast", "ℤ", "ℕ", pw), 7) == 6  # Nat.cast: groundInt? reads through it
    # ℕ's truncated subtraction and division are not determined by remainders: not read
    assert ground_mod(("-", "ℕ", pw, _n(1)), 7) is None
    assert ground_mod(("/", "ℕ", pw, _n(7)), 7) is None
    assert ground_mod(("+", "ℕ", pw, ("var", "ℕ", "x")), 7) is None


def test_ground_mod_refuses_a_value_larger_than_its_bound() -> None:
    """A value Lean would have to build with more than ``OMEGA_GROUND_POW_BITS`` bits is not read (weaker than
    Lean, which may build it, never stronger); one just below is."""
    e_ok = OMEGA_GROUND_POW_BITS // 3  # 5 has 3 bits
    assert ground_mod(("^", "ℕ", _n(5), _n(e_ok)), 7) == pow(5, e_ok, 7)
    assert ground_mod(("^", "ℕ", _n(5), _n(e_ok + 1)), 7) is None
    assert ground_mod(("^", "ℕ", _n(2), ("^", "ℕ", _n(2), _n(60))), 7) is None
    big = ("^", "ℕ", _n(5), _n(e_ok))
    assert ground_mod(("*", "ℕ", big, big), 7) is None  # the product's bits add up
    assert ground_mod(("^", "ℕ", _n(1), _n(10**30)), 7) == 1  # 1 ^ e stays one bit


def test_omega_reads_a_cast_ground_power_and_grind_does_not(backend: SimBackend) -> None:
    assert _proves(backend, "example : ((5 ^ 999999 : ℕ) : ℤ) % 7 = 6 := by omega")
    assert not _proves(backend, "example : ((5 ^ 999999 : ℕ) : ℤ) % 7 = 5 := by omega")
    # grind's cutsat normalises with simp's Nat.reducePow, which stops at exponent 256
    # (`exponentiation.threshold`): no ground power past it
    assert not _proves(backend, "example : 5 ^ 999999 % 7 = 6 := by grind")
    # an exponent no machine evaluates: refused, and refused quickly (no hang)
    assert not _proves(backend, "example : 2 ^ (2 ^ 60) % 7 = 2 := by omega")


# ------------------------------------------------------------------------------------- zify on ∣


def test_zify_moves_divisibility_to_the_integers(backend: SimBackend) -> None:
    code = (
        "example (a b c : ℕ) (h : a - b ∣ c) (h2 : b ≤ a) : (a : ℤ) - b ∣ c := by\n"
        "  zify [h2] at h\n  exact h"
    )
    assert _proves(backend, code)
    # the attack: without `b ≤ a`, ℕ's subtraction stays a cast (Nat.cast_sub needs it)
    bad = "example (a b c : ℕ) (h : a - b ∣ c) : (a : ℤ) - b ∣ c := by\n  zify at h\n  exact h"
    assert not _proves(backend, bad)
    # qify has no divisibility lemma (Mathlib/Tactic/Qify.lean's qify_simps): no progress, an error
    assert not _proves(backend, "example (a c : ℕ) (h : a ∣ c) : True := by\n  qify at h\n  trivial")


# ---------------------------------------------------------------------------------- norm_cast into ℂ


@pytest.mark.parametrize(
    "code",
    [
        "example (x y : ℝ) (h : (x : ℂ) = y) : x = y := by exact_mod_cast h",
        "example (n : ℕ) (h : (n : ℂ) = 3) : n = 3 := by exact_mod_cast h",
        "example (n : ℕ) (z : ℤ) (h : (n : ℂ) = z) : (n : ℤ) = z := by exact_mod_cast h",
        "example (x : ℝ) (h : (x : ℂ) ≠ 2) : x ≠ 2 := by exact_mod_cast h",
    ],
)
def test_norm_cast_moves_equations_out_of_the_complex_numbers(backend: SimBackend, code: str) -> None:
    assert _proves(backend, code)


@pytest.mark.parametrize(
    "code",
    [
        "example (x y : ℝ) (h : (x : ℂ) = y + 1) : x = y := by exact_mod_cast h",
        "example (n : ℕ) (h : (n : ℂ) = 3) : n = 4 := by exact_mod_cast h",
        "example (x : ℝ) (h : (x : ℂ) ≠ 2) : x = 2 := by exact_mod_cast h",
        "example (n : ℕ) (z : ℤ) (h : (n : ℂ) = z + 1) : (n : ℤ) = z := by exact_mod_cast h",
    ],
)
def test_norm_cast_into_the_complex_numbers_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)
