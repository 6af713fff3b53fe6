"""Tactic-strength and library causes of issue 20: the simulator proves what Lean's tactic proves, no more.

Each section names one cause, the record of Lean's behaviour it follows (repository, path, commit, line of
a test file Lean's CI compiles) and the algorithm it implements; its attacks are false statements, or true
ones Lean's tactic cannot prove, of the same shape, which must fail.

Records: Mathlib's ``MathlibTest/`` (leanprover-community/mathlib4), Lean core's ``tests/lean/run/``
(leanprover/lean4) and Aesop's ``AesopTest/`` (leanprover-community/aesop), at the commits below.
"""

from __future__ import annotations

import pytest

from lean_gym.sim.commands import run_commands
from lean_gym.sim.elab import Env
from lean_gym.sim.memo import request

MATHLIB = "import Mathlib"
NORM_CAST = "MathlibTest/norm_cast.lean at 363c44193e519b469f4c7ee43238e2da1557d1bc"
LINARITH = "MathlibTest/linarith.lean at 00d9f04e0b0da36a69a3d7461c3e3e5d4a60b5ac"


def _errors(code: str, header: str = MATHLIB) -> list[str]:
    with request():
        out = run_commands(f"{header}\n\n{code}" if header else code, Env(), fresh=True)
    assert not out.unread, out.unread[0].data
    return [m.data for m in out.messages if m.severity == "error"]


def proves(code: str, header: str = MATHLIB) -> bool:
    return not _errors(code, header)


# --------------------------------------------------------------------------------------------- norm_cast
# Lean core's `Lean.Elab.Tactic.NormCast.derive`: numerals become casts from ℕ, casts move up (elim lemmas,
# move lemmas read upwards, the splitting heuristic, `Nat.cast_sub` discharged by a local `b ≤ a` only),
# then casts are squashed; `norm_cast` is `norm_cast0 <;> try trivial`.


@pytest.mark.parametrize(
    "code",
    [
        # NORM_CAST:27, :28 — the splitting heuristic lifts ↑(an : ℕ) through ℤ or ℚ, then an elim lemma
        "example (an : ℕ) (bz : ℤ) : (an : ℚ) < bz ↔ (an : ℝ) < bz := by norm_cast",
        "example (an : ℕ) (bq : ℚ) : ((an : ℤ) : ℝ) < bq ↔ (an : ℚ) < bq := by norm_cast",
        # NORM_CAST:77 — `Nat.cast_sub` moves ↑an - ↑bn up with `h : bn ≤ an` from the context
        "example (an bn : ℕ) (h : bn ≤ an) : an - bn = 1 ↔ (an - bn : ℤ) = 1 := by norm_cast",
        # numerals are casts of ℕ numerals, so literal arithmetic lands in ℕ where `decide` closes it
        "example : ((2 : ℝ) + 3 : ℝ) = 5 := by norm_cast",
        "example (a b : ℕ) (h : a + b = 10) : (a : ℤ) + b = 10 := by exact_mod_cast h",
    ],
)
def test_norm_cast_proves_what_lean_proves(code: str) -> None:
    assert proves(code), _errors(code)


@pytest.mark.parametrize(
    "code",
    [
        # true, but without `bn ≤ an` in the context `Nat.cast_sub` is not discharged: Lean's norm_cast
        # leaves `an - bn = 1 ↔ ↑an - ↑bn = 1` open
        "example (an bn : ℕ) : an - bn = 1 ↔ (an - bn : ℤ) = 1 := by norm_cast",
        # a local `bn < an` is not the premise `bn ≤ an`: `prove` looks a hypothesis up by its type
        "example (an bn : ℕ) (h : bn < an) : an - bn = 1 ↔ (an - bn : ℤ) = 1 := by norm_cast",
        # false statements of the shapes above
        "example (an : ℕ) (bz : ℤ) : (an : ℚ) < bz ↔ (an : ℝ) ≤ bz := by norm_cast",
        "example (an : ℕ) (bq : ℚ) : ((an : ℤ) : ℝ) < bq ↔ (an : ℚ) < bq + 1 := by norm_cast",
        "example : ((2 : ℝ) + 3 : ℝ) = 6 := by norm_cast",
        "example (a b : ℕ) (h : a + b = 10) : (a : ℤ) + b = 11 := by exact_mod_cast h",
        # a hypothesis at the wrong cast: ↑cz - ↑az is not ↑(cz - az) in ℕ
        "example (cz az : ℕ) (h : ((cz - az : ℕ) : ℤ) = 1) : (cz : ℤ) - az = 1 := by assumption_mod_cast",
        # ℤ division does not move (`Int.cast_div` needs `n ∣ m` and `(n : α) ≠ 0`)
        "example (a b c : ℤ) (h : ((a / b : ℤ) : ℚ) = c) : (a : ℚ) / b = c := by assumption_mod_cast",
    ],
)
def test_norm_cast_is_not_stronger_than_lean(code: str) -> None:
    assert not proves(code)


def test_push_cast_simp_arguments_rewrite() -> None:
    """``push_cast [Int.add_zero] at h2`` uses its argument as a simp lemma of the same call
    (NORM_CAST:120); a lemma that does not apply changes nothing it should not."""
    ok = (
        "example (a b : ℕ) (h2 : ((a + b + 0 : ℕ) : ℤ) = 10) : ((a + b : ℕ) : ℤ) = 10 := by\n"
        "  push_cast\n  push_cast [Int.add_zero] at h2\n  exact h2"
    )
    assert proves(ok), _errors(ok)
    bad = (
        "example (a b : ℕ) (h2 : ((a + b + 1 : ℕ) : ℤ) = 10) : ((a + b : ℕ) : ℤ) = 10 := by\n"
        "  push_cast\n  push_cast [Int.add_zero] at h2\n  exact h2"
    )
    assert not proves(bad)


# ------------------------------------------------------------------------------------- library lemmas
# Each with Mathlib's/core's exact statement, at the types among ℕ/ℤ/ℚ/ℝ that carry its instances.


@pytest.mark.parametrize(
    "code",
    [
        "example (x : Nat) : 0 ≤ x ^ 9890 := by\n  apply zero_le",  # LINARITH:661
        # MathlibTest/interval_cases.lean at 8f5c1186fb2b73d732a7fbfa95ffed0d5e35573a, line 149
        "example {x : ℕ} (hx2 : x < 2) : x ≤ 1 := by\n  interval_cases x\n  · exact zero_le_one\n  · rfl",
        "example (x : Rat) (hx : x > 0) (h : x.num < 0) : False := by\n  linarith only [Rat.num_pos.mpr hx, h]",
        "example (h : 1 < 0) : 3 = 7 := by\n  linarith [Int.zero_lt_one]",  # LINARITH:190, :222
        # MathlibTest/Qify.lean at 449d4621735f270ba97bffa13dad901cb7ce6e8b, line 20
        "example (a b c : ℕ) (h : a - b = c) (hab : b ≤ a) : a = c + b := by\n"
        "  qify [hab] at h ⊢\n  exact sub_eq_iff_eq_add.1 h",
    ],
)
def test_library_lemmas_lean_uses(code: str) -> None:
    assert proves(code), _errors(code)


@pytest.mark.parametrize(
    "code",
    [
        "example (x : ℤ) : 0 ≤ x := by\n  apply zero_le",  # ℤ is not canonically ordered
        "example (x : ℝ) : 0 ≤ x := by\n  exact zero_le x",
        "example : (1 : ℕ) ≤ 0 := by\n  exact zero_le_one",
        "example : (0 : ℝ) < 1 := by\n  exact zero_le_one",  # ≤ is not <
        "example (x : Rat) (h : x.num < 0) : False := by\n  linarith only [Rat.num_pos.mpr h]",
        "example (x : Rat) (hx : x ≥ 0) (h : x.num < 0) : False := by\n  linarith only [Rat.num_pos.mpr hx, h]",
        "example (h : 1 < 2) : 3 = 7 := by\n  linarith [Int.zero_lt_one]",
        # `sub_eq_iff_eq_add` needs an additive group: not at ℕ's truncated subtraction
        "example (a b c : ℕ) (h : a - b = c) : a = c + b := by\n  exact sub_eq_iff_eq_add.1 h",
        "example (a b c : ℚ) (h : a - b = c) : a = b + c + 1 := by\n  exact sub_eq_iff_eq_add.1 h",
    ],
)
def test_library_lemmas_are_not_stronger(code: str) -> None:
    assert not proves(code)


# MathlibTest/cases.lean at 4aa09afd2b27011a76f1fb953cd19ec43ee091b5, line 111: core's `Nat.succ_add` and the
# constructor's `Nat.succ.injEq`, rewritten after `induction'`; MathlibTest/Qify.lean at
# 449d4621735f270ba97bffa13dad901cb7ce6e8b, lines 28 and 33: `qify [hab]` pushes the cast through `/` with
# `Int.cast_div_charZero`/`Nat.cast_div_charZero` (premise `b ∣ a`, discharged by the simp argument), then
# Mathlib's `div_eq_iff (hb : b ≠ 0) : a / b = c ↔ a = c * b`.
CASES_111 = """example (a b : ℕ) (h : a + b = a) : b = 0 := by
  induction' a with d hd
  · revert h
    intro h
    rw [Nat.zero_add] at h
    assumption
  · revert h
    intro h
    rw [Nat.succ_add, Nat.succ.injEq] at h
    apply hd
    assumption"""


@pytest.mark.parametrize(
    "code",
    [
        CASES_111,
        "example (a b : ℕ) (h : a + 1 + b = c + 1) : a + b = c := by\n  rw [Nat.succ_add, Nat.succ.injEq] at h\n  exact h",
        "example (a b c : ℤ) (h : a / b = c) (hab : b ∣ a) (hb : b ≠ 0) : a = c * b := by\n"
        "  qify [hab] at h hb ⊢\n  exact (div_eq_iff hb).1 h",
        "example (a b c : ℕ) (h : a / b = c) (hab : b ∣ a) (hb : b ≠ 0) : a = c * b := by\n"
        "  qify [hab] at h hb ⊢\n  exact (div_eq_iff hb).1 h",
        "example (a b c : ℚ) (hb : b ≠ 0) (h : a = c * b) : c = a / b := by\n  exact ((eq_div_iff hb).2 h.symm)",
    ],
)
def test_successor_and_division_lemmas(code: str) -> None:
    assert proves(code), _errors(code)


@pytest.mark.parametrize(
    "code",
    [
        # the successor lemmas at their exact statements: `succ n + m`, not `n + m + 2`
        "example (a b : ℕ) : (a + 1) + b = (a + b) + 2 := Nat.succ_add a b",
        "example (a b : ℕ) (h : a + 1 + b = c + 1) : a + b = c + 1 := by\n"
        "  rw [Nat.succ_add, Nat.succ.injEq] at h\n  exact h",
        # without the divisibility fact the cast stays on `a / b` (ℤ division is not ℚ's)
        "example (a b c : ℤ) (h : a / b = c) (hb : b ≠ 0) : a = c * b := by\n"
        "  qify at h hb ⊢\n  exact (div_eq_iff hb).1 h",
        # the fact must be `b ∣ a`, not `a ∣ b`
        "example (a b c : ℤ) (h : a / b = c) (hab : a ∣ b) (hb : b ≠ 0) : a = c * b := by\n"
        "  qify [hab] at h hb ⊢\n  exact (div_eq_iff hb).1 h",
        # `div_eq_iff` needs `b ≠ 0` and a field: not ℕ's or ℤ's division
        "example (a b c : ℤ) (hb : b ≠ 0) (h : a / b = c) : a = c * b := (div_eq_iff hb).1 h",
        "example (a b c : ℚ) (h : a / b = c) : a = c * b := (div_eq_iff h).1 h",
        "example (a b c : ℚ) (hb : b ≠ 0) (h : a / b = c) : a = b * c + 1 := (div_eq_iff hb).1 h",
    ],
)
def test_successor_and_division_lemmas_are_not_stronger(code: str) -> None:
    assert not proves(code)


def test_simp_unfolds_ne_and_accepts_id_eq() -> None:
    """``simp [id_eq]`` accepts a core simp lemma about ``id`` (tests/lean/run/simpUnusedArgs.lean at
    0feb03ba34c5ddf320a1882c536dfdd402210bd2, lines 19 and 30: Lean only warns that it is unused), and
    ``simp only [Ne]`` unfolds ``≠`` (MathlibTest/byContra.lean at 151e10c0, line 81); neither proves more."""
    assert proves("example : True := by simp [id_eq]", "")
    assert proves("example : True ∧ True := by simp [id_eq, and_self]", "")
    assert not proves("example (p : Prop) : p := by simp [id_eq]", "")
    assert proves("example (h : (0 : ℕ) ≠ 0) : False := by\n  simp only [Ne, not_true_eq_false] at h")
    assert not proves("example (n : ℕ) (h : n ≠ 0) : False := by\n  simp only [Ne, not_true_eq_false] at h")


# ----------------------------------------------------------------------------------------------- simp
# Lean's simp: a rule is a permutation rule only when its sides are one term up to its metavariables
# (`isPerm`), and rules match up to reducible defeq, indexed by the head (a `<` on ℕ is never a `≤`).


def test_simp_rw_rewrites_under_binders_with_iff_hypotheses() -> None:
    """MathlibTest/SimpRw.lean at 2bfb86689145d89f9116b9dd84bacf640ca98cf6, line 31."""
    code = (
        "example {a : Nat}\n  (h1 : ∀ a b : Nat, a - 1 ≤ b ↔ a ≤ b + 1)\n"
        "  (h2 : ∀ a b : Nat, a ≤ b ↔ ∀ c, c < a → c < b) :\n"
        "  (∀ b, a - 1 ≤ b) = ∀ b c : Nat, c < a → c < b + 1 := by\n  simp_rw [h1, h2]"
    )
    assert proves(code), _errors(code)
    # the same rewrites do not make a different statement true
    bad = code.replace("c < b + 1 := by", "c < b := by")
    assert not proves(bad)


@pytest.mark.parametrize(
    "code",
    [
        # a ≤-rule never rewrites a `<` (Nat.lt is not reducible): the goal stays `c < a`
        "example (a c : Nat) (h : ∀ x y : Nat, x ≤ y ↔ True) : c < a := by\n  simp only [h]",
        # `?a + 1 ≤ ?b ↔ ?a ≤ ?b + 1` is no permutation rule, yet it does not prove a false goal
        "example (a b : Nat) (h : ∀ x y : Nat, x + 1 ≤ y ↔ x ≤ y + 1) : a + 1 ≤ b := by\n  simp only [h]",
    ],
)
def test_simp_matching_is_not_stronger(code: str) -> None:
    assert not proves(code)


# ---------------------------------------------------------------------------------- linarith/nlinarith
# Mathlib's atoms are compared up to reducible defeq (`AtomM` at `.reducible`): an `abbrev` is
# transparent, a `def` is not, and an atom's unfolding is not read again as a sum or product.


def test_nlinarith_sees_through_abbrev() -> None:
    """LINARITH:720 (`private abbrev wrapped (z : ℤ) : ℤ := z`)."""
    code = "private abbrev wrapped (z : ℤ) : ℤ := z\n\nexample (x : ℤ) : 0 ≤ x * wrapped x := by nlinarith"
    assert proves(code), _errors(code)


@pytest.mark.parametrize(
    "code",
    [
        "def wrapped (z : ℤ) : ℤ := z\n\nexample (x : ℤ) : 0 ≤ x * wrapped x := by nlinarith",
        "abbrev wrapped (z : ℤ) : ℤ := z\n\nexample (x : ℤ) : wrapped (x + 1) = x + 1 := by linarith",
        "abbrev wrapped (z : ℤ) : ℤ := z + 1\n\nexample (x : ℤ) : wrapped x = x := by linarith",
        "abbrev wrapped (z : ℤ) : ℤ := z\n\nexample (x : ℤ) : x * wrapped x < 0 := by nlinarith",
        "abbrev wrapped (z : ℤ) : ℤ := 2 * z\n\nexample (x : ℤ) : wrapped x = x + x + 1 := by ring",
    ],
)
def test_reducible_atoms_are_not_stronger(code: str) -> None:
    assert not proves(code)


# ---------------------------------------------------------------------------------------------- omega
# `analyzeAtom` (src/Lean/Elab/Tactic/Omega/OmegaM.lean): `x % b ^ e` for a positive literal base gets
# `0 ≤ x % k < k` (tests/lean/run/omega.lean at 9deafb0f5e8060e8566e97ce67c3475504d33150, lines 437, 448);
# `(2 ^ i : ℕ)` becomes the atom `(↑2) ^ i` and `x / y` the atom `↑x / ↑y`, with no sign.


@pytest.mark.parametrize(
    "code",
    [
        "example (x y z i : Nat) (hz : z ≤ 1) : x % 2 ^ i + y % 2 ^ i + z < 2 * 2^ i := by omega",
        "example (n : Nat) (i : Int) (h2n : (2 : Int) ^ n = ↑((2 : Nat) ^ (n : Nat)))\n"
        "    (hlt : i % 2 ^ n < 2 ^ n) :  2 ^ n ≠ 0 := by\n  omega",
    ],
)
def test_omega_pow_modulus_facts(code: str) -> None:
    assert proves(code, ""), _errors(code, "")


@pytest.mark.parametrize(
    "code",
    [
        "example (x i : Nat) : x % 2 ^ i < 2 ^ i - 1 := by omega",  # false at x = 1, i = 1
        "example (x y : Int) : 0 ≤ x % y := by omega",  # k is no power of a positive literal
        "example (x : Int) (i : Nat) : x % 0 ^ i < 0 ^ i := by omega",  # base 0: no fact (and false at i = 0)
        "example (i : Nat) : 0 < 2 ^ i := by omega",  # true, but `(↑2) ^ i` has no sign to omega
        "example (x y : Nat) (h : x / y + 1 = 0) : False := by omega",  # true, but `↑x / ↑y` has no sign
    ],
)
def test_omega_atoms_are_not_stronger(code: str) -> None:
    assert not proves(code, "")


# omega's front end reads `n.succ` as `n + 1` (`succ?`, and `Int.ofNat_succ` under a cast: `handleNatCast` in
# src/Lean/Elab/Tactic/Omega/Frontend.lean); tests/lean/run/omega.lean at 9deafb0f5e80, line 27.


@pytest.mark.parametrize(
    "code",
    [
        "example (_ : a ≤ c) (_ : b ≤ c) : a < Nat.succ c := by omega",  # omega.lean:27
        "example (a c : Nat) (h : a ≤ c) : a + 1 < Nat.succ (Nat.succ c) := by omega",
        "example (n : Nat) : (n : Int) < ((Nat.succ n : Nat) : Int) := by omega",
    ],
)
def test_omega_reads_nat_succ(code: str) -> None:
    assert proves(code, ""), _errors(code, "")


@pytest.mark.parametrize(
    "code",
    [
        "example (a c : Nat) (h : a ≤ c) : a + 1 < Nat.succ c := by omega",  # false at a = c
        "example (a c : Nat) (h : a ≤ c + 1) : a < Nat.succ c := by omega",
        "example (n : Nat) : (n : Int) + 1 < ((Nat.succ n : Nat) : Int) := by omega",
    ],
)
def test_omega_nat_succ_is_not_stronger(code: str) -> None:
    assert not proves(code, "")


# ------------------------------------------------------------------------------------ basic tactics


def test_contradiction_decides_closed_hypotheses() -> None:
    """Lean core's ``contradiction`` with ``useDecide``: MathlibTest/byContra.lean at
    151e10c0959bf82af9e318466889fc1dee3bffb8, line 24 (``by_contra!`` leaves ``this : 2 ≤ 1``)."""
    assert proves("example : 1 < 2 := by\n  by_contra!\n  contradiction")
    assert not proves("example (x : ℕ) (h : x ≤ 1) (h2 : 3 ≤ x) : False := by contradiction")  # free x
    assert not proves("example (h : 2 + 2 = 4) : False := by contradiction")  # a true closed fact
    assert not proves("example (h : (2 : ℝ) ≤ 1) : False := by contradiction")  # ℝ: not decidable by eval


def test_choose_type_is_checked_at_default_transparency() -> None:
    """MathlibTest/choose.lean at 112f03d1dc7f1d4fca42a15af5b9afdc57dc0297, line 120: ``n > 0 + 0``."""
    ok = "example (h : ∃ n : Nat, n > 0) : True := by\n  choose (n : Nat) (hn : n > 0 + 0) using h\n  trivial"
    assert proves(ok), _errors(ok)
    assert not proves(ok.replace("0 + 0", "0 + 1"))
    real = "example (h : ∃ n : ℝ, n > 0) : True := by\n  choose (n : ℝ) (hn : n > 0 + 0) using h\n  trivial"
    assert not proves(real)  # ℝ's `+` does not reduce (Real.add is irreducible)


def test_use_refines_a_goal_that_is_no_structure() -> None:
    """Mathlib's ``useLoop`` (Mathlib/Tactic/Use.lean): MathlibTest/Use.lean at
    44e8fc60eabb771877f68cca2c1be286ae4afca8, line 213 (``use n`` on ``Nat``) and line 21 (``use 42, rfl`` on
    ``∃ x, x = x``: ``Eq.refl`` closes the goal, so ``rfl`` is one argument too many)."""
    assert proves("example (n : Nat) : Nat := by use n")
    assert proves("example (x : ℕ) (h : x = 2) : ∃ y, y = 2 := by use x, h")
    assert _errors("example : ∃ x : Nat, x = x := by use 42, rfl") == ["too many arguments supplied to `use`"]
    assert not proves("example (x : ℕ) (h : x = 3) : ∃ y, y = 2 := by use x, h")
    assert not proves("example (n : Nat) : Nat := by use n, n")
    assert not proves("example (n : ℕ) (h : Even n) : Even n := by use h")  # Even unfolds to an ∃
    # `Eq.refl` closes `x + 0 = x` by `whnf` (Nat.add), and `Int.NonNeg.mk` closes `2 ≤ 3`: then the
    # argument is one too many in Lean, so the simulator must not refine with it
    assert not proves("example (x : ℕ) (h : x + 0 = x) : x + 0 = x := by use h")
    assert not proves("example (h : (2 : ℤ) ≤ 3) : (2 : ℤ) ≤ 3 := by use h")


def test_use_merged_loop() -> None:
    """The one ``useLoop`` both issue-20 branches wrote (Mathlib/Tactic/Use.lean at
    0b28b0d249b397d467bfd2276473eac8ca2893b5: ``applyTheConstructor`` on the last goal, else ``refine``;
    ``use!`` refines first). MathlibTest/Use.lean at 44e8fc60eabb771877f68cca2c1be286ae4afca8, line 128:
    ``use 1`` on ``Nat → Nat`` refines (a function type is no inductive type) and fails on the numeral."""
    errs = _errors("example : Nat → Nat := by use 1")
    assert errs and "outside the simulator" not in errs[0], errs
    # `<` on ℝ is Mathlib's `private irreducible_def lt` (Mathlib/Data/Real/Basic.lean): `whnf` stops there,
    # so the constructor fails and the argument refines the goal
    assert proves("example (x : ℝ) (h : 0 < x) : ∃ y : ℝ, 0 < y := by use x, h")
    assert not proves("example (x : ℝ) (h : 0 < 2 * x) : ∃ y : ℝ, 0 < y := by use x, h")
    # `use!` (eager) tries `refine` first: `rfl` proves `42 = 42`, where `use` applies `Eq.refl` first and
    # `rfl` is one argument too many (Use.lean line 21)
    assert proves("example : ∃ x : Nat, x = x := by use! 42, rfl")
    assert not proves("example : ∃ x : Nat, x = x + 1 := by use! 42, rfl")
    # ∧ is `And.intro` on the last goal: its fields take the next arguments
    assert proves("example (p q : Prop) (hp : p) (hq : q) : p ∧ q := by use hp, hq")
    assert not proves("example (p q : Prop) (hp : p) (hq : q) : p ∧ q := by use hq, hp")


@pytest.mark.parametrize(
    ("code", "ok"),
    [
        # Lean core's `contradiction` (src/Lean/Meta/Tactic/Contradiction.lean at
        # 01b5ee150020e36e9da2e1f469f6c997fc7ffdd3): `decide p` reduced by `whnf`; core's `Decidable`
        # instances of `∧ ∨ ¬ →` evaluate their parts, and ℝ's order has no evaluable instance
        ("example (h : 2 ≤ 1 ∧ 1 = 1) : False := by contradiction", True),
        ("example (h : 1 ≤ 2 → 3 ≤ 1) : False := by contradiction", True),
        ("example (h : 2 ≤ 1 ∨ 1 = 1) : False := by contradiction", False),  # true
        ("example (h : (2 : ℝ) ≤ 1 ∧ 1 = 1) : False := by contradiction", False),  # ℝ: no whnf decision
        ("example (x : ℕ) (h : x ≤ 1 ∧ 3 ≤ 1) : False := by contradiction", False),  # a free variable
    ],
)  # fmt: skip
def test_contradiction_decides_connectives(code: str, ok: bool) -> None:
    assert proves(code) is ok, _errors(code)


@pytest.mark.parametrize(
    ("code", "ok"),
    [
        # LINARITH:569, :574 (`suffices … by`), :605 (`change _ at h₁`); byContra.lean:14 (`revert`)
        ("example (n : Nat) (h1 : ¬n = 1) (h2 : n ≥ 1) : n ≥ 2 := by\n"
         "  by_contra h3\n  suffices n = 1 by exact h1 this\n  linarith", True),
        ("example (k : ℤ) (h : k < 1) (h₁ : -1 < k) : k = 0 := by\n  change _ at h₁\n  linarith", True),
        ("example (a b : ℕ) (h : False) : a < b := by\n  by_contra! foo\n"
         "  revert foo; change b ≤ a → False; intro\n  exact h", True),
        ("example (n : Nat) (h2 : n ≥ 1) : n ≥ 2 := by\n  suffices h : n = 1 by omega\n  omega", False),
        ("example (p q : Prop) (hq : q) : p := by\n  suffices h : q from hq\n  exact hq", False),
        ("example (k : ℤ) (h₁ : -1 < k) : k = 0 := by\n  change k > 1 at h₁\n  linarith", False),
        ("example (a b : ℕ) (foo : b ≤ a) : b ≤ a := by\n  revert foo\n  intro\n  omega", True),
        ("example (a b : ℕ) (foo : b ≤ a) : a ≤ b := by\n  revert a\n  intro x hx\n  omega", False),
    ],
)  # fmt: skip
def test_suffices_change_revert(code: str, ok: bool) -> None:
    assert proves(code) is ok, _errors(code)


# --------------------------------------------------------------------------------------- gcongr/bound


def test_bound_uses_rpow_monotonicity() -> None:
    """``Real.rpow_le_rpow_of_exponent_le`` (@[gcongr, bound]): MathlibTest/Bound/bound.lean at
    2206a76dc9485d82344d17a0fe50276837ed948d, line 54; ``Real.rpow_le_rpow`` for the base."""
    assert proves("example {a b c : ℝ} (a1 : 1 ≤ a) (h : b ≤ c) : a^b ≤ a^c := by bound")
    assert proves("example {a b c : ℝ} (a1 : 0 ≤ a) (h : a ≤ b) (hc : 0 ≤ c) : a^c ≤ b^c := by bound")
    assert not proves("example {a b c : ℝ} (h : b ≤ c) : a^b ≤ a^c := by bound")  # 1 ≤ a missing
    assert not proves("example {a b c : ℝ} (a1 : 1 ≤ a) (h : c ≤ b) : a^b ≤ a^c := by bound")
    assert not proves("example {a b c : ℝ} (h : a ≤ b) (hc : 0 ≤ c) : a^c ≤ b^c := by bound")  # 0 ≤ a


# ---------------------------------------------------------------------------------------------- aesop


def test_aesop_apply_rule_at_default_transparency() -> None:
    """``(transparency! := default)`` un-indexes an apply rule and unifies at default transparency, so
    ``T := True`` unfolds (AesopTest/ApplyTransparency.lean at b5b9e2bb45ce91e4bc44eaa738c3a8910404ab82,
    line 29); ``(transparency := default)`` alone stays indexed at reducible (line 25) and fails."""
    head = "set_option aesop.smallErrorMessages true\n\ndef T := True\n\n"
    assert proves(
        head + "example : T := by\n  aesop (add safe apply (transparency! := default) True.intro)",
        "import Aesop",
    )
    assert not proves(
        head + "example : T := by\n  aesop (add safe apply (transparency := default) True.intro)\n"
        "    (config := { terminal := true })",
        "import Aesop",
    )
    false_t = (
        "def T := False\n\nexample : T := by\n  aesop (add safe apply (transparency! := default) True.intro)"
    )
    assert not proves(false_t, "import Aesop")


# ------------------------------------------------------------------------------------- function equations
# MathlibTest/ring.lean at e22e28d7071c5c2ae44ccbff796869bd8b8a4376, line 243: `Eq` elaborates both sides at
# one function type, so `fun y => …` takes ℝ from `fun x : ℝ => …` (it was typed ℕ, a default); `ring_nf`
# rewrites under the binder and closes the equation of equal functions (`eq_self`, up to bound names).


@pytest.mark.parametrize(
    "code",
    [
        "example : (fun x : ℝ => x * x^2) = (fun y => y^2 * y) := by\n  ring_nf",  # ring.lean:243
        "example : (fun x : ℝ => x * x^2) = (fun y => y^3) := by ring",
        "example (a : ℝ) : (fun x : ℝ => x * a) = (fun y => a * y) := by ring_nf",
        "example : (fun x : ℝ => x + 0) = (fun y => y) := by ring_nf",
    ],
)
def test_function_equations(code: str) -> None:
    assert proves(code), _errors(code)


@pytest.mark.parametrize(
    "code",
    [
        "example : (fun x : ℝ => x * x^2) = (fun y => y^3 + 1) := by ring_nf",
        # at ℕ, truncated subtraction stays: `x - 1 + 1` is not `x`
        "example : (fun x : ℕ => x - 1 + 1) = (fun y => y) := by ring_nf",
        # a free `x` is not the bound one
        "example (a x : ℝ) : (fun x : ℝ => x * a) = (fun y => a * x) := by ring_nf",
        "example : (fun x : ℝ => x / 2) = fun y => y / 2 + 0 * y := by rfl",
    ],
)
def test_function_equations_are_not_stronger(code: str) -> None:
    assert not proves(code)


def test_function_equation_binder_types_must_agree() -> None:
    # the binder takes the other side's type: `fun (x : ℕ)` against `ℝ → ℝ` is Lean's type mismatch
    with request():
        out = run_commands(
            f"{MATHLIB}\n\nexample : (fun x : ℝ => x) = fun (x : ℕ) => x := rfl", Env(), fresh=True
        )
    assert [m.data for m in out.messages if m.severity == "error"] == [
        "type mismatch: the binder `x` does not have type ℝ"
    ]


# ------------------------------------------------------------------------------------ norm_num extensions
# MathlibTest/norm_num_ext.lean (lines 116–262, 302–331): `Nat.minFac`, `Nat.log`, `Nat.fib` of numerals by
# Mathlib's `evalMinFac` (NormNum/Prime.lean), `evalNatLog` (NormNum/NatLog.lean), `evalNatFib`
# (NormNum/NatFib.lean); `decide` cannot evaluate `Nat.minFac`/`Nat.log` (well-founded recursion).
NORM_NUM_EXT = "import Mathlib.Tactic.NormNum.Prime\nimport Mathlib.Tactic.NormNum.NatLog\nimport Mathlib.Tactic.NormNum.NatFib"


@pytest.mark.parametrize(
    "code",
    [
        "example : Nat.minFac 0 = 2 := by norm_num1",
        "example : Nat.minFac 923 = 13 := by norm_num1",
        "example : Nat.minFac 251 = 251 := by norm_num1",
        "example : Nat.log 10 (10 ^ 7 + 2) + Nat.log 2 (2 ^ 30 + 3) = 7 + 30 := by norm_num1",
        "example : Nat.log 0 100 = 0 := by norm_num1",
        "example : Nat.fib 1000 + Nat.fib 1001 = Nat.fib 1002 := by norm_num1",
        "example : Nat.fib 65 = 17167680177565 := by norm_num",
    ],
)
def test_norm_num_nat_extensions(code: str) -> None:
    assert proves(code, NORM_NUM_EXT), _errors(code, NORM_NUM_EXT)


@pytest.mark.parametrize(
    "code",
    [
        "example : Nat.minFac 923 = 23 := by norm_num1",
        "example : Nat.minFac 1 = 2 := by norm_num1",
        "example : Nat.log 2 256 = 7 := by norm_num1",
        "example : Nat.log 10 9 = 1 := by norm_num1",
        "example : Nat.fib 10 = 56 := by norm_num1",
        "example : Nat.fib 1000 + Nat.fib 1002 = Nat.fib 1001 := by norm_num1",
        # not `decide`, not `simp`: the definitions are not unfolded there
        "example : Nat.minFac 4 = 2 := by decide",
        "example : Nat.log 2 8 = 3 := by decide",
        "example : Nat.minFac 4 = 2 := by simp",
    ],
)
def test_norm_num_nat_extensions_are_not_stronger(code: str) -> None:
    assert not proves(code, NORM_NUM_EXT)


# MathlibTest/norm_num_ext.lean (lines 195–263): Mathlib's simproc `Nat.primeFactorsList_ofNat`
# (Mathlib/Tactic/NormNum/Factors.lean) turns `Nat.primeFactorsList` of a numeral into its list literal.
FACTORS = "import Mathlib.Tactic.NormNum.Factors"


def test_prime_factors_list_simproc() -> None:
    assert proves("example : Nat.primeFactorsList 728 = [2, 2, 2, 7, 13] := by simp", FACTORS)
    assert proves("example : Nat.primeFactorsList 251 = [251] := by simp", FACTORS)
    assert proves("example : Nat.primeFactorsList 1 = [] := by simp", FACTORS)
    # the factors in increasing order, with multiplicity: no other list
    assert not proves("example : Nat.primeFactorsList 728 = [2, 2, 7, 2, 13] := by simp", FACTORS)
    assert not proves("example : Nat.primeFactorsList 728 = [2, 7, 13] := by simp", FACTORS)
    assert not proves("example : Nat.primeFactorsList 851 = [851] := by simp", FACTORS)
    # norm_num1 runs no simp: no simproc
    assert not proves("example : Nat.primeFactorsList 34 = [2, 17] := by norm_num1", FACTORS)
