"""Mathlib's ``norm_num`` and ``positivity`` extensions on numerals, as Mathlib implements them (issue 20).

Each test names the extension it pins (its Mathlib source) and the ``MathlibTest/`` lines whose recorded
behaviour it follows (the corpus cases cite them: ``MathlibTest/norm_num_ext.lean`` at 0501ce4f,
``MathlibTest/norm_num.lean`` at 00f7c249, ``MathlibTest/positivity.lean`` at 04a91371). Every extension
is attacked with statements built to pass only if the simulator were stronger than Mathlib's extension:
false claims, numerals on the wrong side of a condition, terms that are not numerals, huge numbers.
"""

from __future__ import annotations

import pytest
from mathlib_header import MathlibSimBackend

from lean_gym.sim.arith.normnum import (
    MAX_PRIME_PROOF,
    log_numeral_sign,
    nat_prime,
    real_sqrt,
)


@pytest.fixture(scope="module")
def sim() -> MathlibSimBackend:
    return MathlibSimBackend()


def status(sim: MathlibSimBackend, code: str) -> str:
    return sim.check(code).status


def first_error(sim: MathlibSimBackend, code: str) -> str:
    errs = [m.data for m in sim.check(code).messages if m.severity == "error"]
    return errs[0].splitlines()[0] if errs else ""


def _no_tick(_: int) -> None:
    pass


# ------------------------------------------------------------------------------------ Nat.Prime
# Mathlib/Tactic/NormNum/Prime.lean (`evalNatPrime`, `evalMinFac`): 0 and 1 are not prime; `n` is not prime
# when `minFac n < n`; prime when the trial division by 3, 5, 7, … passes √n with no divisor.


@pytest.mark.parametrize(
    "stmt",
    [
        "¬ Nat.Prime 0",  # norm_num_ext.lean:100
        "¬ Nat.Prime 1",  # :101
        "Nat.Prime 2",  # minFac's even case: `minFac 2 = 2`
        "Nat.Prime 5",  # :105
        "Nat.Prime (2 ^ 19 - 1)",  # :109, the argument evaluated first (`deriveNat`)
        "¬ Nat.Prime 681",  # :190
        "¬ Nat.Prime 682",  # :201
        "¬ Nat.Prime 77",  # :233
        "Nat.Prime 251",  # :249
        "¬ Nat.Prime 851",  # :261 (23 · 37)
    ],
)
def test_norm_num1_decides_primality_of_numerals(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example : {stmt} := by norm_num1") == "proved"
    assert status(sim, f"example : {stmt} := by norm_num") == "proved"


@pytest.mark.parametrize(
    "stmt",
    [
        "Nat.Prime 91",  # 7 · 13: a false claim
        "Nat.Prime 1",
        "Nat.Prime 0",
        "¬ Nat.Prime 2",
        "¬ Nat.Prime 251",
        "Nat.Prime (2 ^ 11 - 1)",  # 23 · 89, a Mersenne number that is not prime
        "Nat.Prime 25",  # a square of a prime: the trial division must reach √n itself
    ],
)
def test_false_primality_claims_fail(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example : {stmt} := by norm_num1") == "error"
    assert status(sim, f"example : {stmt} := by norm_num") == "error"


def test_a_hypothesis_that_a_composite_is_prime_is_refuted(sim: MathlibSimBackend) -> None:
    assert status(sim, "example (h : Nat.Prime 4) : False := by norm_num at h") == "proved"
    assert status(sim, "example (h : Nat.Prime 5) : False := by norm_num at h") == "error"


@pytest.mark.parametrize(
    "tac",
    ["simp", "decide", "rfl", "omega", "simp only []"],
)
def test_only_norm_num_has_the_extension(sim: MathlibSimBackend, tac: str) -> None:
    # `Nat.Prime` unfolds to `Irreducible`; `decide` does not reduce `Nat.decidablePrime1` by default, simp
    # has no prime lemma for literals: the extension is norm_num's (Mathlib.Tactic.NormNum.Prime)
    assert status(sim, f"example : Nat.Prime 5 := by {tac}") == "error"


def test_primality_of_a_variable_is_not_decided(sim: MathlibSimBackend) -> None:
    assert status(sim, "example (n : ℕ) (h : n = 5) : Nat.Prime n := by norm_num") == "error"


def test_huge_numbers_are_bounded_work() -> None:
    ticks: list[int] = []
    # a composite with a large least factor: the trial division stops at its bound and answers nothing
    big = (2**31 - 1) * (2**61 - 1)
    assert nat_prime(big, ticks.append) is None
    assert 0 < len(ticks) <= (1 << 21)
    # a prime past 25 bits: Mathlib's proof would overflow the kernel's stack (Prime.lean's note); no proof
    assert nat_prime(2**31 - 1, _no_tick) is None
    assert nat_prime(MAX_PRIME_PROOF - 1, _no_tick) is False  # 2^25 - 1 = 31 · 601 · 1801
    # a composite of any size with a small factor is refuted (its factor is all the proof needs)
    assert nat_prime(3 * 10**200, _no_tick) is False
    assert nat_prime(10**200 + 1, _no_tick) is False  # 73 · 137 · …: a factor below 2^21


def test_a_huge_prime_claim_spends_heartbeats(sim: MathlibSimBackend) -> None:
    # the prime after 2^40: its trial division charges each of its ~2^19 steps, past the budget (a timeout)
    code = "example : Nat.Prime 1099511627791 := by norm_num1"
    assert status(sim, code) == "error"
    assert "maximum number of heartbeats" in first_error(sim, code)


def test_nat_prime_against_a_sieve() -> None:
    sieve = [True] * 2000
    sieve[0] = sieve[1] = False
    for i in range(2, 2000):
        if sieve[i]:
            for j in range(i * i, 2000, i):
                sieve[j] = False
    assert [nat_prime(n, _no_tick) for n in range(2000)] == sieve


# ------------------------------------------------------------------------------------ big operators
# Mathlib/Tactic/NormNum/BigOperators.lean (`evalFinsetSum`, `evalFinsetProd`, `Finset.proveEmptyOrCons`):
# `Finset.range n` of a numeral is peeled element by element; each term must evaluate to a numeral.


@pytest.mark.parametrize(
    "stmt",
    [
        "∑ i ∈ Finset.range 10, i = 45",  # norm_num_ext.lean:377
        "∑ i ∈ Finset.range 10, (i^2 : ℕ) = 285",  # :378
        "∏ i ∈ Finset.range 4, ((i+1)^2 : ℕ) = 576",  # :379
        "∏ i ∈ Finset.range 9, Nat.sqrt (i + 1) = 96",  # :391 (with Mathlib.Tactic.NormNum.NatSqrt)
        "∑ i ∈ Finset.range 0, (i : ℤ) = 0",  # the empty sum
        "∑ i ∈ Finset.range 3, ((i : ℤ) - 5) = -12",
        "∑ i ∈ Finset.range 4, (i : ℚ) / 2 = 3",
    ],
)
def test_norm_num1_evaluates_big_operators_over_ranges(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example : {stmt} := by norm_num1") == "proved"


@pytest.mark.parametrize(
    "stmt",
    [
        "∑ i ∈ Finset.range 10, i = 46",  # a false value
        "∏ i ∈ Finset.range 4, ((i+1)^2 : ℕ) = 577",
        "(f : ℕ → ℕ) : ∑ i ∈ Finset.range 3, f i = f 0 + f 1 + f 2",  # terms that are no numerals
        "(n : ℕ) : ∑ i ∈ Finset.range n, i = n * (n - 1) / 2",  # the range of a variable
        ": ∑ i ∈ Finset.Icc 1 3, i = 6",  # intervals are the source's TODO: not evaluated
    ],
)
def test_big_operators_the_extension_cannot_evaluate(sim: MathlibSimBackend, stmt: str) -> None:
    binders, _, body = stmt.rpartition(": ")
    code = f"example {binders} : {body} := by norm_num1" if binders else f"example : {body} := by norm_num1"
    assert status(sim, code) == "error"


def test_only_norm_num_evaluates_big_operators(sim: MathlibSimBackend) -> None:
    for tac in ("simp", "decide", "rfl"):
        assert status(sim, f"example : ∑ i ∈ Finset.range 10, i = 45 := by {tac}") == "error"


def test_a_huge_range_is_not_unrolled(sim: MathlibSimBackend) -> None:
    code = "example : ∑ i ∈ Finset.range 100001, i = 5000050000 := by norm_num1"
    assert status(sim, code) == "error"


# ------------------------------------------------------------------------------------ Real.sqrt
# Mathlib/Tactic/NormNum/RealSqrt.lean (`evalRealSqrt`): a perfect square, 0 of a negative numeral, and
# `√(n / d)` when both are perfect squares; otherwise the extension fails.


@pytest.mark.parametrize(
    "stmt",
    [
        "Real.sqrt 25 = 5",  # norm_num_ext.lean:477
        "Real.sqrt (25 / 16) = 5 / 4",  # :478
        "Real.sqrt (0.25) = 1/2",  # :479
        "Real.sqrt (-37) = 0",  # :481
        "Real.sqrt (-5 / 3) = 0",  # :482
        "Real.sqrt 0 = 0",  # :483
    ],
)
def test_norm_num_evaluates_square_roots(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example : {stmt} := by norm_num") == "proved"


@pytest.mark.parametrize(
    "stmt",
    [
        "Real.sqrt 25 = 6",
        "Real.sqrt (-4) = 2",  # √ of a negative is 0, not the root of its absolute value
        "Real.sqrt 2 = 1",  # not a perfect square: no evaluation at all
        "Real.sqrt (9 / 7) = 3 / 7",  # the denominator is no square
        "Real.sqrt 4 = -2",
    ],
)
def test_square_roots_the_extension_does_not_prove(sim: MathlibSimBackend, stmt: str) -> None:
    assert status(sim, f"example : {stmt} := by norm_num") == "error"


def test_real_sqrt_values() -> None:
    from fractions import Fraction

    assert real_sqrt(49) == 7
    assert real_sqrt(Fraction(49, 4)) == Fraction(7, 2)
    assert real_sqrt(Fraction(-1, 3)) == 0
    assert real_sqrt(2) is None
    assert real_sqrt(Fraction(4, 3)) is None


# ------------------------------------------------------------------------------------ positivity
# Mathlib's positivity extensions on the functions the simulator models, each read in mathlib4's sources by
# its name (the files that define the functions); each combines with the hypotheses (`compareHyp`) as
# `Positivity.core` does.


@pytest.mark.parametrize(
    "stmt",
    [
        # `evalSqrt`: √a ≥ 0 always; > 0 when a > 0
        "(x : ℝ) : 0 ≤ Real.sqrt x",  # positivity.lean:322
        "{a : ℝ} (_ha : 0 ≤ a) : 0 ≤ Real.sqrt a",  # :325
        "(x : ℝ) (h : 0 < x) : 0 < Real.sqrt x",
        # `evalExp`
        "{r : ℝ} : 0 < Real.exp r",  # :359
        # `evalLogNatCast`, `evalLogIntCast`, `evalLogNatLit`
        "{n : ℤ} : 0 ≤ Real.log n",  # :362
        "{n : ℕ} : 0 ≤ Real.log n",
        ": 0 < Real.log 1.01",  # :364
        ": 0 < Real.log (-2)",  # :366
        ": 0 ≠ Real.log (-0.99)",  # :368 (the goal `0 ≠ e`, Positivity.solve's `.ne'`)
        ": 0 ≤ Real.log 0",  # :370
        ": 0 ≤ Real.log 1",
        ": 0 ≤ Real.log (-1)",
        ": Real.log 0.5 ≠ 0",
        ": 0 < Real.log (-1.5)",
        # `evalRpow`, `evalRpowZero`
        "{a b : ℝ} (ha : 0 ≤ a) : 0 ≤ a ^ b",  # :286
        "{a b : ℝ} (ha : 0 < a) : 0 < a ^ b",
        "{a : ℝ} : 0 < a ^ (0 : ℝ)",
        # `evalRatNum`, `evalRatDen`
        "{q : ℚ} (hq : q ≠ 0) : q.num ≠ 0",  # :207
        "{q : ℚ} (hq : 0 ≤ q) : 0 ≤ q.num",  # :210
        "{q : ℚ} : 0 < q.den",
        # `evalFinsetSum`, `evalFinsetProd`
        "(s : Finset ℕ) : 0 ≤ ∑ j ∈ s, j",  # :472
        "(s : Finset ℕ) : 0 ≤ ∏ j ∈ s, j",  # :490
        "(n : ℕ) (f : ℕ → ℤ) : 0 ≤ ∑ j ∈ Finset.range n, f j ^ 2",  # :464
        "(n : ℕ) : ∏ j ∈ Finset.range n, (-1 : ℤ) ≠ 0",  # :482
        "(s : Finset ℕ) (f : ℕ → ℤ) : 0 < ∏ j ∈ s, (f j ^ 2 + 1)",
    ],
)
def test_positivity_extensions(sim: MathlibSimBackend, stmt: str) -> None:
    binders, _, body = stmt.rpartition(": ")
    assert status(sim, f"example {binders} : {body} := by positivity") == "proved"


@pytest.mark.parametrize(
    "stmt",
    [
        "(x : ℝ) : 0 < Real.sqrt x",  # √0 = 0: positive needs the argument positive
        "(x : ℝ) : Real.sqrt x ≠ 0",
        ": 0 < Real.log 1",  # log 1 = 0: the wrong side of 1
        ": 0 < Real.log (-1)",  # log (-1) = log 1 = 0
        ": 0 < Real.log 0",
        ": 0 < Real.log 0.5",  # log of a number in (0, 1) is negative: only `≠ 0`
        ": 0 ≤ Real.log 0.5",
        ": 0 ≤ Real.log (-0.5)",
        "{n : ℕ} : 0 < Real.log n",  # a cast is only non-negative (n = 0, 1)
        "{x : ℝ} : 0 ≤ Real.log x",  # no rule for a variable
        "{a b : ℝ} : 0 ≤ a ^ b",  # rpow of an unknown base
        "{a : ℝ} : 0 ≤ a ^ (2 : ℝ)",  # a real exponent 2 is no even natural power
        "{a b : ℝ} (ha : a ≠ 0) : a ^ b ≠ 0",  # `evalRpow` answers nothing for a non-zero base
        "{q : ℚ} : 0 ≤ q.num",
        "(s : Finset ℕ) : 0 < ∑ j ∈ s, (j + 1)",  # positive needs a non-empty set
        "(s : Finset ℕ) (f : ℕ → ℤ) : 0 ≤ ∑ j ∈ s, f j",  # the body's sign is unknown
        "(s : Finset ℕ) (f : ℕ → ℤ) : ∑ j ∈ s, (f j ^ 2 + 1) ≠ 0",  # sums are never non-zero by the body
        "(s : Finset ℕ) (f : ℕ → ℤ) : 0 ≤ ∏ j ∈ s, f j",
    ],
)
def test_positivity_extensions_never_stronger(sim: MathlibSimBackend, stmt: str) -> None:
    binders, _, body = stmt.rpartition(": ")
    code = f"example {binders} : {body} := by positivity"
    assert status(sim, code) == "error"
    assert first_error(sim, code).startswith("failed to prove positivity")


def test_bound_variable_gets_no_hypothesis(sim: MathlibSimBackend) -> None:
    # a hypothesis about a local named like the bound variable says nothing about the body's variable
    code = "example (j : ℤ) (hj : 0 < j) (s : Finset ℤ) : 0 ≤ ∑ j ∈ s, j := by positivity"
    assert status(sim, code) == "error"


@pytest.mark.parametrize(
    ("v", "want"),
    [(0, "nonneg"), (1, "nonneg"), (2, "pos"), (-1, "nonneg"), (-3, "pos")],
)
def test_log_numeral_sign_of_integers(v: int, want: str) -> None:
    assert log_numeral_sign(v) == want


def test_log_numeral_sign_of_fractions() -> None:
    from fractions import Fraction

    assert log_numeral_sign(Fraction(1, 2)) == "nonzero"
    assert log_numeral_sign(Fraction(-1, 2)) == "nonzero"
    assert log_numeral_sign(Fraction(3, 2)) == "pos"
    assert log_numeral_sign(Fraction(-3, 2)) == "pos"
    assert log_numeral_sign(Fraction(4, 2)) == "pos"  # 2, an integer once reduced


# ------------------------------------------------------------------------------------ norm_num1 at h
# MathlibTest/norm_num.lean:417 (00f7c249): `norm_num1 at h` turns `3⁻¹ * a = a` into `1 / 3 * a = a`.


def test_norm_num1_writes_an_inverse_numeral_as_a_fraction(sim: MathlibSimBackend) -> None:
    code = "example (a : ℚ) (h : 3⁻¹ * a = a) : True := by\n  norm_num1 at h\n  trivial"
    assert status(sim, code) == "proved"
    left = sim.check("example (a : ℚ) (h : 3⁻¹ * a = a) : True := by\n  norm_num1 at h")
    assert left.status == "error"
    assert "h : 1 / 3 * a = a" in left.messages[0].data


# ------------------------------------------------------------------------------------ #norm_num
# Mathlib's `#norm_num` command (`elabNormNumCmd`): prints the norm_num form of the term as an info;
# MathlibTest/norm_num.lean:580 and :583 (00f7c249) record `True` for both.


@pytest.mark.parametrize(
    ("cmd", "info"),
    [
        ("#norm_num 1 = 1", "True"),  # norm_num.lean:580
        ("#norm_num 2^4-1 ∣ 2^16-1", "True"),  # :583
        ("#norm_num 2 + 2 = 5", "False"),  # a false statement is printed False, not accepted as proved
        ("#norm_num (2:ℚ) / 4 + 1", "3 / 2"),
        ("#norm_num Nat.Prime 91", "False"),
    ],
)
def test_norm_num_command_prints_the_normal_form(sim: MathlibSimBackend, cmd: str, info: str) -> None:
    r = sim.check(cmd)
    assert [(m.severity, m.data) for m in r.messages] == [("info", info)]


def test_norm_num_command_that_makes_no_progress_fails(sim: MathlibSimBackend) -> None:
    assert first_error(sim, "#norm_num (1 : ℕ)") == "norm_num failed to simplify"
