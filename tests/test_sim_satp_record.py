"""SATP's record through the simulator (issue 21): the simulator agrees with Lean where it reads a case.

``lean_gym/conformance/cases/satp/`` holds SATP's 92 miniF2F-test theorems, each proved on Lean v4.26.0 with
SATP's aesop call and with an aesop-free minimal proof, under the default ``maxHeartbeats`` 200000. The
simulator may fail where Lean proves (it is weaker), never the other way; what it reads and proves here
is measured by ``benchmarks/bench_satp_record.py``. These tests check the mechanisms issue 21 added
(``grind`` as its linear solvers and ring, Mathlib's simp lemma names and Lean's simprocs, ``simp_all``
with ∀-facts, opaque real functions, the rebuilt ``nlinarith`` cost) on the record, and attack each with
false statements.
"""

from __future__ import annotations

import pytest

from lean_gym.backends.sim import SimBackend
from lean_gym.conformance.corpus import satp_theorems

HEADER = "import Mathlib"
BUDGET = "set_option maxHeartbeats 200000 in\n"


@pytest.fixture(scope="module")
def backend() -> SimBackend:
    return SimBackend(max_heartbeats=200_000)


@pytest.mark.parametrize(
    "name",
    [
        "mathd_algebra_478",  # nlinarith alone, within the budget Lean ran it in
        "mathd_numbertheory_299",  # simp_all only [one_mul, Nat.reduceMul, Nat.reduceMod]
        "mathd_algebra_419",  # simp_all only [neg_neg, neg_mul, one_mul, mul_neg]; linarith
        "mathd_algebra_171",  # simp_all only [mul_one] rewriting with h₀ : ∀ x, f x = 5 * x + 4
        "mathd_numbertheory_345",  # simp_all only [Nat.reduceAdd, Nat.reduceMod]
    ],
)
def test_minimal_proofs_lean_checked_prove_in_the_simulator(backend: SimBackend, name: str) -> None:
    code = satp_theorems("satp_minimal.jsonl")[name]
    r = backend.check(code, header=HEADER)
    assert r.proved, r.messages_text()[:400]


def test_satp_calls_prove_what_they_proved_on_lean(backend: SimBackend) -> None:
    calls = satp_theorems("satp_calls.jsonl")
    for name in ("mathd_algebra_478", "mathd_algebra_141", "mathd_numbertheory_1124"):
        r = backend.check(calls[name], header=HEADER)
        assert r.proved, (name, r.messages_text()[:300])


@pytest.mark.parametrize(
    "code",
    [
        "theorem t (x : ℝ) (h : 2 * x + 1 = 5) : x = 3 := by grind",
        "theorem t (x : ℝ) (h : 2 * x + 1 = 5) : x = 3 := by grind only [mul_self_nonneg, h]",
        "theorem t (n : ℕ) (h : n % 2 = 1) : n = 4 := by grind",
        "theorem t (x y : ℝ) : (x + y) ^ 2 = x ^ 2 + y ^ 2 := by grind",
        "theorem t (f : ℝ → ℝ) (h₀ : ∀ x, f x = 5 * x + 4) : f 1 = 10 := by\n  simp_all only [mul_one]\n  linarith",
        "theorem t (f : ℝ → ℝ) (h₀ : ∀ x, x > 0 → f x = 0) : f (-1) = 0 := by simp_all",
        "theorem t : (12 : ℕ) * 3 = 35 := by simp only [Nat.reduceMul]",
        "theorem t (a b : ℝ) : a - b + b = b := by simp only [sub_add_cancel]",
        "theorem t (a : ℝ) : 1 / a = a := by simp only [one_div]",
        "theorem t : Real.sqrt 4 = 3 := by norm_num",
        "theorem t : Real.sqrt 4 = Real.sqrt 5 := by simp",
        "theorem t (x : ℝ) : Real.log x = Real.exp x := by aesop",
        "theorem t : Int.floor (2.5 : ℝ) = 3 := by decide",
        "theorem t : Real.cos 0 = 0 := by norm_num",
        "theorem t : (0 : ℝ) ≠ 0 := by simp only [OfNat.ofNat_ne_zero]",
        "theorem t : (1 : ℝ) ≠ 1 := by simp only [OfNat.ofNat_ne_one, OfNat.ofNat_ne_zero]",
        "theorem t : (0 : ℝ) < 0 := by simp only [Nat.ofNat_pos, zero_lt_one]",
        "theorem t : (1 : ℝ) < 0 := by simp only [Nat.ofNat_pos, zero_lt_one]",
        "theorem t : |(-2 : ℝ)| = -2 := by simp only [Nat.abs_ofNat]",
        "theorem t : ((3 : ℕ) : ℝ) = 2 := by simp only [Nat.cast_ofNat]",
        "theorem t (b : ℝ) : 0 < 0 * b ↔ 0 < b := by simp only [mul_pos_iff_of_pos_left]",
        "theorem t (x : ℝ) (h₀ : x ≠ -1) (h₁ : (x - 9) / (x + 1) = 2) : x = -12 := by grind",
        "theorem t (x : ℝ) (h₀ : x ≠ 3) (h : x ≤ 4) (h2 : x ≥ 3) : False := by grind",
        "theorem t (x y : ℝ) (h₀ : x ≠ y) (h : x / (x - y) = 1) : False := by grind",
        "theorem t (x : ℝ) (h : x / x = 1) : x = 1 := by grind",
    ],
)
def test_false_statements_are_never_proved(backend: SimBackend, code: str) -> None:
    r = backend.check(code, header=HEADER)
    assert not r.proved, code


def test_grind_reads_its_lemma_list_and_proves_what_its_solvers_prove(backend: SimBackend) -> None:
    ok = [
        "theorem t (x : ℝ) (h : 2 * x + 1 = 5) : x = 2 := by grind only [foo, bar.baz]",
        "theorem t (n : ℕ) (h : n % 2 = 1) : n ≠ 4 := by grind",
        "theorem t (x y : ℝ) : (x + y) ^ 2 = x ^ 2 + 2 * x * y + y ^ 2 := by grind",
        # a disequality split (x < 3 or 3 < x) and a denominator known non-zero through it
        "theorem t (x : ℝ) (h₀ : x ≠ 3) (h : x ≤ 3) (h2 : x ≥ 3) : False := by grind",
        "theorem t (x : ℝ) (h₀ : x ≠ -1) (h₁ : (x - 9) / (x + 1) = 2) : x = -11 := by grind",
    ]
    for code in ok:
        assert backend.check(code, header=HEADER).proved, code
    bad = backend.check("theorem t (x : ℝ) : x = 3 := by grind only [", header=HEADER)
    assert bad.status == "error"


def test_simprocs_and_simp_lemma_names_resolve(backend: SimBackend) -> None:
    code = "theorem t : (12 : ℕ) * 3 % 7 = 1 := by simp only [Nat.reduceMul, Nat.reduceMod]"
    assert backend.check(code, header=HEADER).proved
    unknown = backend.check("theorem t : (1 : ℕ) = 1 := by simp only [Nat.reduceFoo]", header=HEADER)
    assert unknown.status == "error" and "Nat.reduceFoo" in unknown.messages_text()


def test_literal_facts_decide_what_mathlibs_lemmas_state(backend: SimBackend) -> None:
    for code in [
        "theorem t : (2 : ℝ) ≠ 0 := by simp only [OfNat.ofNat_ne_zero]",
        "theorem t : (5 : ℚ) ≠ 1 := by simp only [OfNat.ofNat_ne_one]",
        # written with ¬, the rewrite leaves ¬False: Lean's `simp only` needs not_false_eq_true for it (what
        # `simp?` prints), since Aesop's record has no true_and/not_false in `simp only`'s set (issue 20)
        "theorem t : ¬ (5 : ℚ) = 1 := by simp only [OfNat.ofNat_ne_one, not_false_eq_true]",
        "theorem t : (0 : ℝ) < 7 := by simp only [Nat.ofNat_pos]",
        "theorem t : |(3 : ℝ)| = 3 := by simp only [Nat.abs_ofNat]",
        "theorem t : ((3 : ℕ) : ℝ) = 3 := by simp only [Nat.cast_ofNat]",
    ]:
        assert backend.check(code, header=HEADER).proved, code
    # without the name, `simp only` does not decide a literal fact over ℝ (Lean's neither)
    assert not backend.check("theorem t : (2 : ℝ) ≠ 0 := by simp only []", header=HEADER).proved


def test_opaque_functions_are_atoms(backend: SimBackend) -> None:
    # what holds of any function holds of them; nothing about their values does
    ok = "theorem t (x : ℝ) (h : Real.sqrt x = 2) : Real.sqrt x + 1 = 3 := by linarith"
    assert backend.check(ok, header=HEADER).proved
    r = backend.check("theorem t : Real.sqrt 4 = 2 := by sorry", header=HEADER)
    assert r.status == "sorry"


def test_satp_minif2f_source_is_satps_92_statements() -> None:
    from lean_gym.data import load_theorems

    thms = load_theorems("satp-minif2f")
    assert len(thms) == 92 and len({t.name for t in thms}) == 92
    assert all(t.split in ("train", "test") and t.header == HEADER for t in thms)
    calls = satp_theorems("satp_calls.jsonl")
    for t in thms:
        assert t.formal_statement.endswith(":= by\n")
        assert calls[t.name].startswith(t.formal_statement)
    assert len(load_theorems("satp-minif2f", "test", limit=5)) == 5


# --- the causes of SATP's weaker cases, fixed as Lean's algorithms (issue 21, second pass) ---------------


@pytest.mark.parametrize(
    "name",
    [
        "mathd_algebra_338",  # grind's ring solver with the linear equations (Gaussian pivots)
        "mathd_numbertheory_314",  # grind's cutsat decides what omega's real shadow cannot
        "mathd_algebra_513",  # bound: Aesop splits the ∧, its linarith rule closes each side
        "mathd_algebra_153",  # bound's norm_num rule with norm_num's Int.floor extension
        "mathd_algebra_80",  # simp_all only [ne_eq] is progress (≠ becomes ¬ =); grind splits ¬ =
        "mathd_algebra_139",  # simp_all with a conditional hypothesis, its premises discharged by simp
        "amc12a_2013_p4",  # grind's ring evaluates 2 ^ 2014
        "mathd_algebra_125",  # linarith's natToInt: an ℕ goal meets an ℤ fact about its cast
        "amc12a_2021_p3",  # omega pushes ↑(x / 10) to ↑x / 10
    ],
)
def test_minimal_proofs_of_the_fixed_causes_prove(backend: SimBackend, name: str) -> None:
    code = satp_theorems("satp_minimal.jsonl")[name]
    r = backend.check(code, header=HEADER)
    assert r.proved, r.messages_text()[:400]


@pytest.mark.parametrize("name", ["mathd_algebra_338", "mathd_numbertheory_765", "mathd_numbertheory_314"])
def test_satp_calls_of_the_fixed_causes_prove(backend: SimBackend, name: str) -> None:
    r = backend.check(satp_theorems("satp_calls.jsonl")[name], header=HEADER)
    assert r.proved, r.messages_text()[:300]


@pytest.mark.parametrize(
    "code",
    [
        # the ring solver: a linear system pins a, b, c; a wrong product, a nonlinear consequence it cannot
        # see, a wrong quotient, and a pivot over ℕ (no field: no division)
        "theorem t (a b c : ℝ) (h₀ : 3 * a + b + c = -3) (h₁ : a + 3 * b + c = 9) (h₂ : a + b + 3 * c = 19) :"
        " a * b * c = -55 := by grind",
        "theorem t (a b : ℝ) (h : a + b = 2) : a * b = 1 := by grind",
        "theorem t (a b : ℝ) (h : a * b = 2) : a = 3 / b := by grind",
        "theorem t (a b : ℕ) (h : 2 * a = b) : a * b = b * b / 2 + 1 := by grind",
        # cutsat: the bound is sharp (6710 = 5 · 1342 has remainder 2 mod 13), so one more is false
        "theorem t (n : ℕ) (h₁ : 0 < n) (h₂ : 1342 ∣ n) (h₃ : n % 13 < 3) : 6711 ≤ n := by grind",
        "theorem t (x : ℤ) (h₀ : x < 0) (h₁ : 24 * x % 1199 = 15) : x ≤ -450 := by grind",
        # Lean's omega has no dark or grey shadow: it fails here where grind's cutsat proves
        "theorem t (n : ℕ) (h₁ : 0 < n) (h₂ : 1342 ∣ n) (h₃ : n % 13 < 3) : 6710 ≤ n := by omega",
        # bound: a false side, and a goal its forward rule does not reach
        "theorem t (a b : ℝ) (h₀ : 3 * a + 2 * b = 5) (h₁ : a + b = 2) : a = 1 ∧ b = 2 := by bound",
        "theorem t (x : ℝ) (h : 0 < x) : x = 13 := by bound",
        "theorem t (x : ℝ) : x = 13 := by bound",
        # norm_num's floor: exact (⌊-10/3⌋ is -4), and only norm_num evaluates it (ℝ is not computable)
        "theorem t : Int.floor ((-10 : ℝ) / 3) = -3 := by norm_num",
        "theorem t : Int.floor ((10 : ℝ) / 3) = 3 := by decide",
        "theorem t : Int.floor ((10 : ℝ) / 3) = 3 := by simp only []",
        # conditional rewriting: the premise must be discharged (¬0 = 0 is not), and a wrong value stays false
        "theorem t (s : ℝ → ℝ) (h₀ : ∀ (x) (_ : x ≠ 0), s x = 1 / x) : s 0 = 0 := by\n"
        "  simp_all only [ne_eq, one_div, OfNat.ofNat_ne_zero, not_false_eq_true]",
        "theorem t (s : ℝ → ℝ) (h₀ : ∀ (x) (_ : x ≠ 0), s x = 1 / x) : s 3 = 1 / 2 := by\n"
        "  simp_all only [ne_eq, one_div, OfNat.ofNat_ne_zero, not_false_eq_true]",
        # a conclusion `False` (a peeled ¬) is no rewrite rule: it must not turn False into True
        "theorem t (p : ℝ → Prop) (h : ∀ x, x ≠ 0 → ¬p x) (h1 : p 1) : False := by simp_all only []",
        # ne_eq rewrites a ≠ b, nothing else: a fact already written with ¬ is no progress
        "theorem t (x : ℝ) (h₀ : ¬x = -1) : x = 2 := by simp_all only [ne_eq]",
        # casts: natToInt and the pushed division keep their values
        "theorem t (x : ℕ) (h : 6 * (x : ℤ) = 36) : x = 7 := by linarith",
        "theorem t (x y : ℕ) (h : (x : ℤ) - y = -3) : y ≤ x := by linarith",
        "theorem t (x : ℕ) (h₀ : x + x / 10 = 17402) : (x : ℤ) - (x : ℤ) / 10 = 14239 := by omega",
        "theorem t (x : ℕ) (h₀ : x % 10 = 3) : ((x % 10 : ℕ) : ℤ) = 4 := by omega",
        # the power evaluation: 5/3 is the value, 5/2 is not
        "theorem t : (2 ^ 2014 + 2 ^ 2012) / (2 ^ 2014 - 2 ^ 2012) = (5 : ℝ) / 2 := by grind",
        "theorem t : (2 : ℝ) ^ 2014 = 2 ^ 2013 := by ring",
    ],
)
def test_the_fixed_causes_prove_nothing_false(backend: SimBackend, code: str) -> None:
    r = backend.check(code, header=HEADER)
    assert not r.proved, code


def test_the_fixed_causes_prove_their_true_forms(backend: SimBackend) -> None:
    for code in [
        "theorem t (n : ℕ) (h₁ : 0 < n) (h₂ : 1342 ∣ n) (h₃ : n % 13 < 3) : 6710 ≤ n := by grind",
        "theorem t (x : ℤ) (h₀ : x < 0) (h₁ : 24 * x % 1199 = 15) : x ≤ -449 := by grind",
        "theorem t (a b : ℝ) (h₀ : 3 * a + 2 * b = 5) (h₁ : a + b = 2) : a = 1 ∧ b = 1 := by bound",
        "theorem t : Int.floor ((-10 : ℝ) / 3) = -4 := by norm_num",
        "theorem t (s : ℝ → ℝ) (h₀ : ∀ (x) (_ : x ≠ 0), s x = 1 / x) : s 3 = 1 / 3 := by\n"
        "  simp_all only [ne_eq, one_div, OfNat.ofNat_ne_zero, not_false_eq_true]",
        "theorem t : (2 : ℝ) ^ 2014 = 4 * 2 ^ 2012 := by ring",
        "theorem t (x : ℕ) (h : 6 * (x : ℤ) = 36) : x = 6 := by linarith",
        "theorem t (x y : ℕ) (h : (x : ℤ) - y = 3) : y ≤ x := by linarith",
        "theorem t (x : ℕ) (h₀ : x + x / 10 = 17402) : (x : ℤ) - (x : ℤ) / 10 = 14238 := by omega",
        # true in Lean's semantics (b = 0 makes `a * b = 2` false): grind's ring module splits every inverse
        # as `b = 0 ∧ b⁻¹ = 0` or `b * b⁻¹ = 1` (leanprover/lean4 src/Lean/Meta/Tactic/Grind/Arith/CommRing/
        # Internalize.lean, `processInv`), and the second case is a Gröbner consequence
        "theorem t (a b : ℝ) (h : a * b = 2) : a = 2 / b := by grind",
        "theorem t (x : ℝ) (h₁ : (x - 9) / (x + 1) = 2) : x = -11 := by grind",
        # bound leaves what it cannot finish (Mathlib v4.26: terminal := false), with le_of_lt's fact
        "theorem t (x : ℝ) (h : 0 < x) (h2 : x * x = 169) : x = 13 := by\n  bound\n  nlinarith",
    ]:
        r = backend.check(code, header=HEADER)
        assert r.proved, (code, r.messages_text()[:300])


def test_cutsat_agrees_with_brute_force_on_bounded_problems() -> None:
    import itertools
    import random

    import numpy as np

    from lean_gym.sim.arith import Constraint, Poly, omega

    rng = random.Random(7)
    names = "abc"
    xs = [Poly.var(n) for n in names]
    # The brute force reads every constraint at every point of the box at once, from the coefficients each
    # was drawn with (integers: exact); reading each point with Poly.eval (exact fractions, one point and
    # constraint at a time) was nearly all of this test's time. Each constraint's Poly is checked against its
    # coefficients at one point of the box.
    box = np.array(list(itertools.product(range(-5, 6), repeat=3)))
    gained = 0
    for problem in range(400):
        cs = []
        rows: list[tuple[list[int], int, str]] = []  # each constraint's coefficients, constant and relation
        for k in range(rng.randint(2, 5)):
            co = [rng.randint(-9, 9) for _ in xs]
            const = rng.randint(-30, 30)
            op = rng.choice(["<=", "<", "="]) if k else "<="
            cs.append(Constraint(sum((c * x for c, x in zip(co, xs)), Poly.zero()) + const, op))
            rows.append((co, const, op))
        for i, x in enumerate(xs):
            cs += [Constraint(x - 5, "<="), Constraint(-5 - x, "<=")]
            unit = [int(j == i) for j in range(len(xs))]
            rows += [(unit, -5, "<="), ([-u for u in unit], -5, "<=")]
        values = box @ np.array([co for co, _, _ in rows]).T + np.array([const for _, const, _ in rows])
        at = box[(97 * problem) % len(box)]
        for c, v in zip(cs, values[(97 * problem) % len(box)]):
            assert c.poly.eval(dict(zip(names, at.tolist()))) == v, (c, at)
        holds = np.stack(
            [
                v <= 0 if op == "<=" else v < 0 if op == "<" else v == 0
                for v, (_, _, op) in zip(values.T, rows)
            ],
            axis=1,
        )
        sat = bool(holds.all(axis=1).any())
        complete = omega(cs, None, complete=True)
        assert complete == (not sat), cs  # decides: refutes exactly the problems without a solution
        plain = omega(cs, None)
        assert not (plain and sat), cs  # Lean's omega is sound, and weaker
        gained += complete and not plain
    assert gained > 0  # the shadows are used
