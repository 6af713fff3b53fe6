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

import json
import re
from pathlib import Path

import pytest

from lean_gym.backends.sim import SimBackend

CASES = Path(__file__).parents[1] / "lean_gym" / "conformance" / "cases" / "satp"
HEADER = "import Mathlib"
BUDGET = "set_option maxHeartbeats 200000 in\n"


def _load(name: str) -> dict[str, str]:
    out = {}
    for line in (CASES / name).read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        m = re.match(r"theorem (\S+)", c["code"])
        assert m is not None
        out[m.group(1)] = c["code"]
    return out


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
    code = _load("satp_minimal.jsonl")[name]
    r = backend.check(code, header=HEADER)
    assert r.proved, r.messages_text()[:400]


def test_satp_calls_prove_what_they_proved_on_lean(backend: SimBackend) -> None:
    calls = _load("satp_calls.jsonl")
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
        "theorem t (x : ℝ) (h₁ : (x - 9) / (x + 1) = 2) : x = -11 := by grind",
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
    calls = _load("satp_calls.jsonl")
    for t in thms:
        assert t.formal_statement.endswith(":= by\n")
        assert calls[t.name].startswith(t.formal_statement)
    assert len(load_theorems("satp-minif2f", "test", limit=5)) == 5
