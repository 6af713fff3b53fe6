"""The simulator's built-in lemma library: true Mathlib/core lemmas, written as Lean source.

Each entry is ``(source, types, axioms)``. The source states the lemma over ``ℝ`` (or a fixed type such as
``ℕ``); ``types`` lists the types it is instantiated at (the ``ℝ`` in the statement becomes a type variable
restricted to them), chosen so that the lemma is TRUE at each of them with Lean's semantics (truncated ℕ
subtraction, ``x / 0 = 0``). ``None`` keeps the statement at its written type. ``axioms`` is what
``#print axioms`` reports for the lemma in Mathlib.

The sources are parsed once, on first use (:func:`library_decls`). Other modules may append entries to
:data:`LIBRARY` before the first lookup (sim-aesop appends at the END of the list).
"""

from __future__ import annotations

from functools import lru_cache

from lean_gym.sim.elab import Decl, Env, register_library

__all__ = ["CORE", "LIBRARY", "library_decls", "library_names", "lookup_decls"]

ALL = ("ℕ", "ℤ", "ℚ", "ℝ")
RING = ("ℤ", "ℚ", "ℝ")
FIELD = ("ℚ", "ℝ")
# The identities of commutative (semi)rings and fields (no order, no ℕ subtraction): true at ℂ as well, a
# field of characteristic zero (Mathlib states them for `CommRing`, `Field`, `DivisionRing`, …)
ALL_C = (*ALL, "ℂ")
RING_C = (*RING, "ℂ")
FIELD_C = (*FIELD, "ℂ")
STD = frozenset({"propext", "Classical.choice", "Quot.sound"})
PROPEXT = frozenset({"propext"})
NONE: frozenset[str] = frozenset()

LIBRARY: list[tuple[str, tuple[str, ...] | None, frozenset[str]]] = [
    # --- squares and absolute values
    ("theorem sq_nonneg (a : ℝ) : 0 ≤ a ^ 2", ALL, STD),
    ("theorem pow_two_nonneg (a : ℝ) : 0 ≤ a ^ 2", ALL, STD),
    ("theorem mul_self_nonneg (a : ℝ) : 0 ≤ a * a", ALL, STD),
    ("theorem abs_nonneg (a : ℝ) : 0 ≤ |a|", RING, STD),
    ("theorem abs_pos {a : ℝ} : 0 < |a| ↔ a ≠ 0", RING, STD),
    ("theorem le_abs_self (a : ℝ) : a ≤ |a|", RING, STD),
    ("theorem neg_abs_le (a : ℝ) : -|a| ≤ a", RING, STD),
    ("theorem abs_sub_comm (a b : ℝ) : |a - b| = |b - a|", RING, STD),
    ("theorem abs_add (a b : ℝ) : |a + b| ≤ |a| + |b|", RING, STD),
    ("theorem abs_sub_abs_le_abs_sub (a b : ℝ) : |a| - |b| ≤ |a - b|", RING, STD),
    ("theorem abs_le {a b : ℝ} : |a| ≤ b ↔ -b ≤ a ∧ a ≤ b", RING, STD),
    ("theorem abs_lt {a b : ℝ} : |a| < b ↔ -b < a ∧ a < b", RING, STD),
    ("theorem abs_abs (a : ℝ) : |(|a|)| = |a|", RING, STD),
    ("theorem sq_abs (a : ℝ) : |a| ^ 2 = a ^ 2", RING, STD),
    ("theorem abs_mul_abs_self (a : ℝ) : |a| * |a| = a * a", RING, STD),
    ("theorem two_mul_le_add_sq (a b : ℝ) : 2 * a * b ≤ a ^ 2 + b ^ 2", RING, STD),
    # --- positivity of sums, products, quotients, powers
    ("theorem add_pos {a b : ℝ} (ha : 0 < a) (hb : 0 < b) : 0 < a + b", ALL, STD),
    ("theorem add_nonneg {a b : ℝ} (ha : 0 ≤ a) (hb : 0 ≤ b) : 0 ≤ a + b", ALL, STD),
    ("theorem add_pos_of_pos_of_nonneg {a b : ℝ} (ha : 0 < a) (hb : 0 ≤ b) : 0 < a + b", ALL, STD),
    ("theorem mul_pos {a b : ℝ} (ha : 0 < a) (hb : 0 < b) : 0 < a * b", ALL, STD),
    ("theorem mul_nonneg {a b : ℝ} (ha : 0 ≤ a) (hb : 0 ≤ b) : 0 ≤ a * b", ALL, STD),
    ("theorem mul_pos_of_neg_of_neg {a b : ℝ} (ha : a < 0) (hb : b < 0) : 0 < a * b", RING, STD),
    ("theorem div_pos {a b : ℝ} (ha : 0 < a) (hb : 0 < b) : 0 < a / b", FIELD, STD),
    ("theorem div_nonneg {a b : ℝ} (ha : 0 ≤ a) (hb : 0 ≤ b) : 0 ≤ a / b", FIELD, STD),
    ("theorem pow_pos {a : ℝ} (H : 0 < a) (n : ℕ) : 0 < a ^ n", ALL, STD),
    ("theorem pow_nonneg {a : ℝ} (H : 0 ≤ a) (n : ℕ) : 0 ≤ a ^ n", ALL, STD),
    # --- order
    ("theorem le_refl (a : ℝ) : a ≤ a", ALL, NONE),
    ("theorem le_of_lt {a b : ℝ} (h : a < b) : a ≤ b", ALL, NONE),
    ("theorem le_of_eq {a b : ℝ} (h : a = b) : a ≤ b", ALL, NONE),
    ("theorem ne_of_gt {a b : ℝ} (h : a > b) : a ≠ b", ALL, NONE),
    ("theorem ne_of_lt {a b : ℝ} (h : a < b) : a ≠ b", ALL, NONE),
    ("theorem lt_irrefl (a : ℝ) : ¬a < a", ALL, NONE),
    ("theorem le_trans {a b c : ℝ} (h₁ : a ≤ b) (h₂ : b ≤ c) : a ≤ c", ALL, NONE),
    ("theorem lt_trans {a b c : ℝ} (h₁ : a < b) (h₂ : b < c) : a < c", ALL, NONE),
    ("theorem lt_of_le_of_lt {a b c : ℝ} (h₁ : a ≤ b) (h₂ : b < c) : a < c", ALL, NONE),
    ("theorem lt_of_lt_of_le {a b c : ℝ} (h₁ : a < b) (h₂ : b ≤ c) : a < c", ALL, NONE),
    ("theorem le_antisymm {a b : ℝ} (h₁ : a ≤ b) (h₂ : b ≤ a) : a = b", ALL, NONE),
    ("theorem add_le_add {a b c d : ℝ} (h₁ : a ≤ b) (h₂ : c ≤ d) : a + c ≤ b + d", ALL, STD),
    ("theorem add_lt_add {a b c d : ℝ} (h₁ : a < b) (h₂ : c < d) : a + c < b + d", ALL, STD),
    ("theorem mul_le_mul_of_nonneg_left {a b c : ℝ} (h : b ≤ c) (hc : 0 ≤ a) : a * b ≤ a * c", ALL, STD),
    ("theorem mul_le_mul_of_nonneg_right {a b c : ℝ} (h : b ≤ c) (hc : 0 ≤ a) : b * a ≤ c * a", ALL, STD),
    ("theorem mul_lt_mul_of_pos_left {a b c : ℝ} (h : b < c) (hc : 0 < a) : a * b < a * c", ALL, STD),
    (
        "theorem mul_le_mul {a b c d : ℝ} (h₁ : a ≤ b) (h₂ : c ≤ d) (hc : 0 ≤ c) (hb : 0 ≤ b) : a * c ≤ b * d",
        ALL,
        STD,
    ),
    ("theorem pow_le_pow_left {a b : ℝ} (ha : 0 ≤ a) (hab : a ≤ b) (n : ℕ) : a ^ n ≤ b ^ n", ALL, STD),
    ("theorem sub_nonneg {a b : ℝ} : 0 ≤ a - b ↔ b ≤ a", RING, STD),
    ("theorem sub_pos {a b : ℝ} : 0 < a - b ↔ b < a", RING, STD),
    ("theorem sub_eq_zero {a b : ℝ} : a - b = 0 ↔ a = b", RING_C, STD),
    ("theorem le_div_iff₀ {a b c : ℝ} (hc : 0 < c) : a ≤ b / c ↔ a * c ≤ b", FIELD, STD),
    ("theorem div_le_iff₀ {a b c : ℝ} (hc : 0 < c) : a / c ≤ b ↔ a ≤ b * c", FIELD, STD),
    ("theorem lt_div_iff₀ {a b c : ℝ} (hc : 0 < c) : a < b / c ↔ a * c < b", FIELD, STD),
    ("theorem div_lt_iff₀ {a b c : ℝ} (hc : 0 < c) : a / c < b ↔ a < b * c", FIELD, STD),
    ("theorem mul_self_eq_zero {a : ℝ} : a * a = 0 ↔ a = 0", ALL_C, STD),
    # --- ring identities
    ("theorem two_mul (a : ℝ) : 2 * a = a + a", ALL_C, STD),
    ("theorem mul_comm (a b : ℝ) : a * b = b * a", ALL_C, STD),
    ("theorem add_comm (a b : ℝ) : a + b = b + a", ALL_C, STD),
    ("theorem mul_assoc (a b c : ℝ) : a * b * c = a * (b * c)", ALL_C, STD),
    ("theorem add_assoc (a b c : ℝ) : a + b + c = a + (b + c)", ALL_C, STD),
    ("theorem mul_add (a b c : ℝ) : a * (b + c) = a * b + a * c", ALL_C, STD),
    ("theorem add_mul (a b c : ℝ) : (a + b) * c = a * c + b * c", ALL_C, STD),
    ("theorem add_sq (a b : ℝ) : (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2", ALL_C, STD),
    ("theorem sub_sq (a b : ℝ) : (a - b) ^ 2 = a ^ 2 - 2 * a * b + b ^ 2", RING_C, STD),
    ("theorem sq (x : ℝ) : x ^ 2 = x * x", ALL_C, STD),
    ("theorem pow_two (a : ℝ) : a ^ 2 = a * a", ALL_C, STD),
    ("theorem add_zero (a : ℝ) : a + 0 = a", ALL_C, NONE),
    ("theorem zero_add (a : ℝ) : 0 + a = a", ALL_C, NONE),
    ("theorem mul_one (a : ℝ) : a * 1 = a", ALL_C, NONE),
    ("theorem one_mul (a : ℝ) : 1 * a = a", ALL_C, NONE),
    ("theorem mul_zero (a : ℝ) : a * 0 = 0", ALL_C, NONE),
    ("theorem zero_mul (a : ℝ) : 0 * a = 0", ALL_C, NONE),
    ("theorem sub_self (a : ℝ) : a - a = 0", ALL_C, NONE),
    ("theorem neg_neg (a : ℝ) : -(-a) = a", RING_C, NONE),
    ("theorem div_add_div_same (a b c : ℝ) : a / c + b / c = (a + b) / c", FIELD_C, STD),
    # --- simp lemmas of SATP's minimal proofs (issue 21): Mathlib's statements, Mathlib's names
    ("theorem ne_eq (a b : ℝ) : (a ≠ b) = ¬(a = b)", ALL_C, NONE),
    ("theorem one_div (a : ℝ) : 1 / a = a⁻¹", FIELD_C, NONE),
    ("theorem neg_mul (a b : ℝ) : -a * b = -(a * b)", RING_C, NONE),
    ("theorem mul_neg (a b : ℝ) : a * -b = -(a * b)", RING_C, NONE),
    ("theorem sub_add_cancel (a b : ℝ) : a - b + b = a", RING_C, NONE),
    ("theorem pow_zero (a : ℝ) : a ^ 0 = 1", ALL_C, NONE),
    ("theorem abs_neg (a : ℝ) : |-a| = |a|", RING, NONE),
    ("theorem div_div (a b c : ℝ) : a / b / c = a / (b * c)", FIELD_C, NONE),
    ("theorem mul_div_assoc (a b c : ℝ) : a * b / c = a * (b / c)", FIELD_C, NONE),
    ("theorem mul_inv (a b : ℝ) : (a * b)⁻¹ = a⁻¹ * b⁻¹", FIELD_C, NONE),
    ("theorem div_inv_eq_mul (a b : ℝ) : a / b⁻¹ = a * b", FIELD_C, NONE),
    ("theorem lt_add_iff_pos_left (a : ℝ) {b : ℝ} : a < b + a ↔ 0 < b", ALL, PROPEXT),
    ("theorem Nat.add_eq_left {a b : ℕ} : a + b = a ↔ b = 0", None, PROPEXT),
    ("theorem add_pos_iff {a b : ℕ} : 0 < a + b ↔ 0 < a ∨ 0 < b", None, PROPEXT),
    ("theorem Real.one_rpow (x : ℝ) : (1 : ℝ) ^ x = 1", None, STD),
    # Mathlib/Data/Nat/Digits/Defs.lean (digits and ofDigits of natural numbers; ofDigits at ℕ)
    (
        "theorem Nat.ofDigits_cons {b hd : ℕ} {tl : List ℕ} : Nat.ofDigits b (hd :: tl) = hd + b * Nat.ofDigits b tl",
        None,
        NONE,
    ),
    ("theorem Nat.ofDigits_nil {b : ℕ} : Nat.ofDigits b [] = 0", None, NONE),
    ("theorem Nat.ofDigits_singleton {b n : ℕ} : Nat.ofDigits b [n] = n", None, PROPEXT),
    ("theorem Nat.digits_zero (b : ℕ) : Nat.digits b 0 = []", None, PROPEXT),
    (
        "theorem Nat.digits_of_two_le_of_pos {n b : ℕ} (hb : 2 ≤ b) (hn : 0 < n) : Nat.digits b n = n % b :: Nat.digits b (n / b)",
        None,
        PROPEXT,
    ),
    (
        "theorem Nat.digits_add_two_add_one (b n : ℕ) : Nat.digits (b + 2) (n + 1) = (n + 1) % (b + 2) :: Nat.digits (b + 2) ((n + 1) / (b + 2))",
        None,
        PROPEXT,
    ),
    # Mathlib's `Complex.I` (Mathlib/Data/Complex/Basic.lean): `I * I = -1`, both @[simp]
    ("theorem Complex.I_mul_I : Complex.I * Complex.I = -1", None, STD),
    ("theorem Complex.I_sq : Complex.I ^ 2 = -1", None, STD),
    ("theorem Int.natCast_ediv (m n : ℕ) : ((m / n : ℕ) : ℤ) = (m : ℤ) / (n : ℤ)", None, NONE),
    ("theorem Nat.cast_mul (m n : ℕ) : ((m * n : ℕ) : ℝ) = (m : ℝ) * (n : ℝ)", RING, PROPEXT),
    ("theorem even_two : Even (2 : ℕ)", None, NONE),
    ("theorem one_eq_inv {a : ℝ} : 1 = a⁻¹ ↔ a = 1", FIELD_C, PROPEXT),
    # conditional: simp does not use them here (it would have to discharge the premise), `rw`/`apply` do
    ("theorem mul_pos_iff_of_pos_left {b c : ℝ} (h : 0 < c) : 0 < c * b ↔ 0 < b", ALL, PROPEXT),
    ("theorem Even.neg_pow {n : ℕ} (hn : Even n) (a : ℝ) : (-a) ^ n = a ^ n", RING, NONE),
    ("theorem zero_pow {n : ℕ} (h : n ≠ 0) : (0 : ℝ) ^ n = 0", ALL_C, NONE),
    ("theorem and_true (p : Prop) : (p ∧ True) = p", None, PROPEXT),
    ("theorem or_false (p : Prop) : (p ∨ False) = p", None, PROPEXT),
    ("theorem or_true (p : Prop) : (p ∨ True) = True", None, PROPEXT),
    ("theorem not_false_eq_true : (¬False) = True", None, PROPEXT),
    # --- natural numbers (core)
    ("theorem Nat.succ_le_of_lt {n m : ℕ} (h : n < m) : n + 1 ≤ m", None, NONE),
    ("theorem Nat.le_of_lt_succ {m n : ℕ} (h : m < n + 1) : m ≤ n", None, NONE),
    ("theorem Nat.lt_succ_self (n : ℕ) : n < n + 1", None, NONE),
    ("theorem Nat.le_succ (n : ℕ) : n ≤ n + 1", None, NONE),
    ("theorem Nat.succ_pos (n : ℕ) : 0 < n + 1", None, NONE),
    ("theorem Nat.zero_lt_succ (n : ℕ) : 0 < n + 1", None, NONE),
    ("theorem Nat.succ_ne_zero (n : ℕ) : n + 1 ≠ 0", None, NONE),
    ("theorem Nat.pos_of_ne_zero {n : ℕ} (h : n ≠ 0) : 0 < n", None, NONE),
    ("theorem Nat.sub_add_cancel {n m : ℕ} (h : m ≤ n) : n - m + m = n", None, NONE),
    ("theorem Nat.add_sub_cancel {n m : ℕ} : n + m - m = n", None, NONE),
    ("theorem Nat.lt_irrefl (n : ℕ) : ¬n < n", None, NONE),
    ("theorem Nat.le_antisymm {n m : ℕ} (h₁ : n ≤ m) (h₂ : m ≤ n) : n = m", None, NONE),
    ("theorem Nat.mod_lt (x : ℕ) {y : ℕ} (h : y > 0) : x % y < y", None, NONE),
    ("theorem Nat.div_add_mod (m k : ℕ) : k * (m / k) + m % k = m", None, NONE),
    ("theorem Nat.mul_le_mul {p q m n : ℕ} (h₁ : p ≤ m) (h₂ : q ≤ n) : p * q ≤ m * n", None, NONE),
    # --- logic
    ("theorem and_comm {a b : Prop} : a ∧ b ↔ b ∧ a", None, PROPEXT),
    ("theorem or_comm {a b : Prop} : a ∨ b ↔ b ∨ a", None, PROPEXT),
    ("theorem not_not {a : Prop} : ¬¬a ↔ a", None, STD),
    ("theorem and_self (p : Prop) : (p ∧ p) = p", None, PROPEXT),
    ("theorem or_self (p : Prop) : (p ∨ p) = p", None, PROPEXT),
    ("theorem Or.symm {a b : Prop} (h : a ∨ b) : b ∨ a", None, NONE),
    ("theorem And.symm {a b : Prop} (h : a ∧ b) : b ∧ a", None, NONE),
    ("theorem Or.resolve_left {a b : Prop} (h : a ∨ b) (na : ¬a) : b", None, NONE),
    ("theorem Or.resolve_right {a b : Prop} (h : a ∨ b) (nb : ¬b) : a", None, NONE),
    ("theorem absurd' {a b : Prop} (h₁ : a) (h₂ : ¬a) : b", None, NONE),
    ("theorem mt {a b : Prop} (h₁ : a → b) (h₂ : ¬b) : ¬a", None, NONE),
    ("theorem not_lt {a b : ℝ} : ¬a < b ↔ b ≤ a", ALL, STD),
    ("theorem not_le {a b : ℝ} : ¬a ≤ b ↔ b < a", ALL, STD),
    ("theorem le_or_lt (a b : ℝ) : a ≤ b ∨ b < a", ALL, STD),
    ("theorem lt_or_le (a b : ℝ) : a < b ∨ b ≤ a", ALL, STD),
    ("theorem eq_or_ne (a b : ℝ) : a = b ∨ a ≠ b", ALL_C, STD),
    # --- appended by sim-aesop (goal families, aesop grammar examples); each is a Mathlib/core lemma
    ("theorem Nat.le_of_lt {n m : ℕ} (h : n < m) : n ≤ m", None, NONE),
    ("theorem Nat.lt_of_lt_of_le {n m k : ℕ} (h₁ : n < m) (h₂ : m ≤ k) : n < k", None, NONE),
    ("theorem Nat.add_comm (n m : ℕ) : n + m = m + n", None, NONE),
    ("theorem Nat.div_le_self (n k : ℕ) : n / k ≤ n", None, NONE),
    ("theorem Nat.mod_le (x y : ℕ) : x % y ≤ x", None, NONE),
    ("theorem Or.inl {a b : Prop} (h : a) : a ∨ b", None, NONE),
    ("theorem Or.inr {a b : Prop} (h : b) : a ∨ b", None, NONE),
    ("theorem dvd_mul_of_dvd_left {a b : ℝ} (h : a ∣ b) (c : ℝ) : a ∣ b * c", ("ℕ", "ℤ"), NONE),
    ("theorem dvd_mul_right (a b : ℝ) : a ∣ a * b", ("ℕ", "ℤ"), NONE),
]


CORE: list[tuple[str, tuple[str, ...] | None, frozenset[str]]] = [
    ("theorem Eq.symm {a b : ℝ} (h : a = b) : b = a", ALL, NONE),
    ("theorem Eq.trans {a b c : ℝ} (h₁ : a = b) (h₂ : b = c) : a = c", ALL, NONE),
    ("theorem Ne.symm {a b : ℝ} (h : a ≠ b) : b ≠ a", ALL, NONE),
    ("theorem eq_comm {a b : ℝ} : a = b ↔ b = a", ALL, NONE),
    ("theorem ne_comm {a b : ℝ} : a ≠ b ↔ b ≠ a", ALL, NONE),
    ("theorem Iff.symm {a b : Prop} (h : a ↔ b) : b ↔ a", None, NONE),
    ("theorem And.intro {a b : Prop} (left : a) (right : b) : a ∧ b", None, NONE),
    ("theorem Iff.intro {a b : Prop} (mp : a → b) (mpr : b → a) : a ↔ b", None, NONE),
    ("theorem mul_eq_zero {a b : ℝ} : a * b = 0 ↔ a = 0 ∨ b = 0", ALL, STD),
    ("theorem div_self {a : ℝ} (h : a ≠ 0) : a / a = 1", FIELD, STD),
    # Lean core (Init): names the Aesop and Lean test suites use as rules and terms
    ("theorem True.intro : True", None, NONE),
    ("theorem Nat.le_refl (n : ℕ) : n ≤ n", None, NONE),
    ("theorem Nat.le_trans {n m k : ℕ} (h₁ : n ≤ m) (h₂ : m ≤ k) : n ≤ k", None, NONE),
    ("theorem Nat.lt_trans {n m k : ℕ} (h₁ : n < m) (h₂ : m < k) : n < k", None, NONE),
    ("theorem Nat.lt_irrefl (n : ℕ) : ¬n < n", None, NONE),
    ("theorem Nat.zero_le (n : ℕ) : 0 ≤ n", None, NONE),
    ("theorem Nat.lt_or_ge (a b : ℕ) : a < b ∨ a ≥ b", None, NONE),
    ("theorem Nat.add_comm (n m : ℕ) : n + m = m + n", None, NONE),
    ("theorem Nat.add_assoc (n m k : ℕ) : n + m + k = n + (m + k)", None, NONE),
    ("theorem Nat.mul_comm (n m : ℕ) : n * m = m * n", None, NONE),
    # --- issue 20: lemmas the conformance corpus's Lean proofs name (Mathlib's/core's statements; the types
    # are those among ℕ/ℤ/ℚ/ℝ that carry the lemma's instances: `zero_le` needs a canonically ordered
    # semiring, so ℕ alone; `sub_eq_iff_eq_add` an additive group, so not ℕ)
    ("theorem zero_le (a : ℕ) : 0 ≤ a", None, NONE),
    ("theorem zero_le_one : (0 : ℝ) ≤ 1", ALL, NONE),
    ("theorem zero_lt_one : (0 : ℝ) < 1", ALL, NONE),
    ("theorem zero_le_two : (0 : ℝ) ≤ 2", ALL, NONE),
    ("theorem zero_lt_two : (0 : ℝ) < 2", ALL, NONE),
    ("theorem one_pos : (0 : ℝ) < 1", ALL, NONE),
    ("theorem two_pos : (0 : ℝ) < 2", ALL, NONE),
    ("theorem Nat.zero_lt_one : (0 : ℕ) < 1", None, NONE),
    ("theorem Int.zero_lt_one : (0 : ℤ) < 1", None, NONE),
    ("theorem Rat.num_pos {a : ℚ} : 0 < a.num ↔ 0 < a", None, PROPEXT),
    ("theorem sub_eq_iff_eq_add {a b c : ℝ} : a - b = c ↔ a = c + b", RING, STD),
    ("theorem not_true_eq_false : (¬True) = False", None, PROPEXT),
    # core's `protected` ℕ/ℤ identities (`push_cast [Int.add_zero]`)
    ("theorem Nat.add_zero (n : ℕ) : n + 0 = n", None, NONE),
    ("theorem Nat.zero_add (n : ℕ) : 0 + n = n", None, NONE),
    ("theorem Nat.mul_one (n : ℕ) : n * 1 = n", None, NONE),
    ("theorem Nat.one_mul (n : ℕ) : 1 * n = n", None, NONE),
    ("theorem Nat.mul_zero (n : ℕ) : n * 0 = 0", None, NONE),
    ("theorem Nat.zero_mul (n : ℕ) : 0 * n = 0", None, NONE),
    ("theorem Int.add_zero (a : ℤ) : a + 0 = a", None, NONE),
    ("theorem Int.zero_add (a : ℤ) : 0 + a = a", None, NONE),
    ("theorem Int.mul_one (a : ℤ) : a * 1 = a", None, NONE),
    ("theorem Int.one_mul (a : ℤ) : 1 * a = a", None, NONE),
    ("theorem Int.mul_zero (a : ℤ) : a * 0 = 0", None, NONE),
    ("theorem Int.zero_mul (a : ℤ) : 0 * a = 0", None, NONE),
    # Mathlib's `div_eq_iff`/`eq_div_iff` (Mathlib/Algebra/GroupWithZero/Basic.lean: a group with zero, so
    # ℚ and ℝ; MathlibTest/Qify.lean uses `(div_eq_iff hb).1 h`)
    ("theorem div_eq_iff {a b c : ℝ} (hb : b ≠ 0) : a / b = c ↔ a = c * b", FIELD, STD),
    ("theorem eq_div_iff {a b c : ℝ} (hb : b ≠ 0) : c = a / b ↔ c * b = a", FIELD, STD),
    # Mathlib's `min`/`max` lemmas of a linear order (Mathlib/Order/Lattice.lean, Order/MinMax.lean), which
    # `bound` applies (Mathlib/Tactic/Bound.lean: norm, safe 4, and its unsafe 50% guessing rules)
    ("theorem min_le_left (a b : ℝ) : min a b ≤ a", ALL, NONE),
    ("theorem min_le_right (a b : ℝ) : min a b ≤ b", ALL, NONE),
    ("theorem le_max_left (a b : ℝ) : a ≤ max a b", ALL, NONE),
    ("theorem le_max_right (a b : ℝ) : b ≤ max a b", ALL, NONE),
    ("theorem le_min {a b c : ℝ} (h₁ : a ≤ b) (h₂ : a ≤ c) : a ≤ min b c", ALL, NONE),
    ("theorem max_le {a b c : ℝ} (h₁ : a ≤ c) (h₂ : b ≤ c) : max a b ≤ c", ALL, NONE),
    ("theorem lt_min {a b c : ℝ} (h₁ : a < b) (h₂ : a < c) : a < min b c", ALL, NONE),
    ("theorem max_lt {a b c : ℝ} (h₁ : a < c) (h₂ : b < c) : max a b < c", ALL, NONE),
    ("theorem le_max_of_le_left {a b c : ℝ} (h : a ≤ b) : a ≤ max b c", ALL, NONE),
    ("theorem le_max_of_le_right {a b c : ℝ} (h : a ≤ c) : a ≤ max b c", ALL, NONE),
    ("theorem lt_max_of_lt_left {a b c : ℝ} (h : a < b) : a < max b c", ALL, NONE),
    ("theorem lt_max_of_lt_right {a b c : ℝ} (h : a < c) : a < max b c", ALL, NONE),
    ("theorem min_le_of_left_le {a b c : ℝ} (h : a ≤ c) : min a b ≤ c", ALL, NONE),
    ("theorem min_le_of_right_le {a b c : ℝ} (h : b ≤ c) : min a b ≤ c", ALL, NONE),
    ("theorem min_lt_of_left_lt {a b c : ℝ} (h : a < c) : min a b < c", ALL, NONE),
    ("theorem min_lt_of_right_lt {a b c : ℝ} (h : b < c) : min a b < c", ALL, NONE),
    # core's successor lemmas (Init/Data/Nat/Basic.lean) and the constructor's generated `injEq`
    # (MathlibTest/cases.lean rewrites with `Nat.succ_add, Nat.succ.injEq` after `induction'`)
    ("theorem Nat.succ_add (n m : ℕ) : Nat.succ n + m = Nat.succ (n + m)", None, NONE),
    ("theorem Nat.add_succ (n m : ℕ) : n + Nat.succ m = Nat.succ (n + m)", None, NONE),
    ("theorem Nat.add_one (n : ℕ) : n + 1 = Nat.succ n", None, NONE),
    ("theorem Nat.succ_eq_add_one (n : ℕ) : Nat.succ n = n + 1", None, NONE),
    ("theorem Nat.succ.injEq (n n_1 : ℕ) : (Nat.succ n = Nat.succ n_1) = (n = n_1)", None, NONE),
    # `congrArg` (Init/Prelude.lean; Batteries' alias `congr_arg`, Batteries/Logic.lean) with the function
    # between one number type: `congrArg (· + 1) h`
    ("theorem congrArg {a₁ a₂ : ℝ} (f : ℝ → ℝ) (h : a₁ = a₂) : f a₁ = f a₂", ALL, NONE),
    ("theorem congr_arg {a₁ a₂ : ℝ} (f : ℝ → ℝ) (h : a₁ = a₂) : f a₁ = f a₂", ALL, NONE),
]
"""Core equality/iff lemmas that honest proofs name as terms (``Eq.symm h``). They resolve like library
lemmas (:func:`lookup_decls`) but stay out of :func:`library_decls`, whose list the goal families' lemma
retriever reads: adding them there would change every generated split."""


GRIND_LEMMAS: list[tuple[str, tuple[str, ...] | None, frozenset[str]]] = [
    # issue 21: the lemmas SATP's `grind only [...]` calls and minimal proofs name (Mathlib's statements)
    ("theorem Real.mul_self_sqrt {a : ℝ} (h : 0 ≤ a) : Real.sqrt a * Real.sqrt a = a", None, STD),
    (
        "theorem Real.sqrt_mul {x : ℝ} (hx : 0 ≤ x) (y : ℝ) : Real.sqrt (x * y) = Real.sqrt x * Real.sqrt y",
        None,
        STD,
    ),
    ("theorem even_iff_two_dvd {a : ℤ} : Even a ↔ 2 ∣ a", ("ℕ", "ℤ"), PROPEXT),
    ("theorem Int.emod_nonneg (a : ℤ) {b : ℤ} (h : b ≠ 0) : 0 ≤ a % b", None, NONE),
    ("theorem Nat.add_sub_of_le {a b : ℕ} (h : a ≤ b) : a + (b - a) = b", None, NONE),
]
"""Lemmas that resolve by name (:func:`lookup_decls`) but stay out of :func:`library_decls`, like
:data:`CORE`: the goal families' retriever reads that list."""


def _generalize(t: object, types: tuple[str, ...] | None, written: str = "ℝ") -> object:
    """``t`` with the type ``written`` (the statement's type, ℝ unless said) made the type variable ``α``."""
    if types is None:
        return t
    if isinstance(t, tuple):
        return tuple(_generalize(c, types, written) for c in t)
    if t == written:
        return "α"
    return t


@lru_cache(maxsize=1)
def _parsed(n: int) -> dict[str, Decl]:
    return _parse(LIBRARY[:n])


@lru_cache(maxsize=1)
def _parsed_core() -> dict[str, Decl]:
    return {**_parse(CORE), **_parse(GRIND_LEMMAS)}


def _parse(entries: list[tuple[str, tuple[str, ...] | None, frozenset[str]]]) -> dict[str, Decl]:
    from lean_gym.sim.elab import parse_signature_ex
    from lean_gym.sim.syntax import Source, TokenStream, tokenize

    out: dict[str, Decl] = {}
    env = Env(imports=("Mathlib",))
    for src_text, types, axioms in entries:
        src = Source(src_text)
        toks = tokenize(src_text, src)
        ts = TokenStream(toks)
        kw = ts.advance()
        if kw.text not in ("theorem", "lemma"):
            raise ValueError(f"library entry must be a theorem: {src_text!r}")
        name = ts.advance().text
        hyps, target, _ = parse_signature_ex(ts, env, src)
        if target is None or ts.tok.kind != "eof":
            raise ValueError(f"library entry does not parse: {src_text!r}")
        # a statement over ℝ is generalised from ℝ; one written at another type (`Even` takes ℕ/ℤ only), from
        # the first type it is instantiated at
        written = "ℝ" if types is None or "ℝ" in src_text or "ℝ" in types else types[-1]
        binders = tuple((bn, _generalize(bt, types, written), e) for bn, bt, e in hyps)
        stmt = _generalize(target, types, written)
        tyvars = (("α", frozenset(types)),) if types is not None else ()
        out[name] = Decl(name, "theorem", binders, stmt, None, axioms, tyvars)  # type: ignore[arg-type]
    return out


_loading = False


def library_decls() -> dict[str, Decl]:
    """Name → declaration for every library lemma (parsed once and cached)."""
    global _loading
    if _loading:
        return {}
    _loading = True
    try:
        return _parsed(len(LIBRARY))
    finally:
        _loading = False


def lookup_decls() -> dict[str, Decl]:
    """Everything a name may resolve to: :func:`library_decls` and the :data:`CORE` lemmas."""
    lib = library_decls()
    if not lib:
        return lib
    global _loading
    _loading = True
    try:
        core = _parsed_core()
    finally:
        _loading = False
    return {**core, **lib}


register_library(lookup_decls)


def library_names() -> list[str]:
    """The library's lemma names, in list order."""
    return list(library_decls())
