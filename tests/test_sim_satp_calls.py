"""Causes of SATP's aesop calls that the simulator failed (issue 21, after the merge with i20t and i21m).

SATP's record (``lean_gym/conformance/cases/satp/``, from ChristianZ97/LeanSATP ``proofs/minif2f_test_v2`` at
``8173665e66bf003104d2cebeaf7c0fa6f1cdac08``): each theorem proved on Lean v4.26.0 with its aesop call under
the default ``maxHeartbeats`` 200000; its ``minimal/`` proof is the script Lean's ``aesop?`` printed.
Each test names the cause it fixes, the source it follows, and attacks the new proving path.
"""

from __future__ import annotations

import pytest

from lean_gym.backends.sim import SimBackend
from lean_gym.conformance.corpus import satp_theorems

HEADER = "import Mathlib"


@pytest.fixture(scope="module")
def backend() -> SimBackend:
    return SimBackend(max_heartbeats=200_000)


def _proves(backend: SimBackend, code: str) -> bool:
    return backend.check(code, header=HEADER).proved


# ------------------------------------------------------- Finset.card of a ground set, by reduction

CARD = "Finset.card (Finset.filter (fun x => 20 ∣ x) (Finset.Icc 15 85))"


@pytest.mark.parametrize("tac", ["decide", "rfl", "exact rfl", "bound"])
def test_reduction_computes_the_card_of_a_ground_finset(backend: SimBackend, tac: str) -> None:
    """SATP's minimal proof of mathd_numbertheory_12 is ``(bound )``: Mathlib's ``bound`` is an aesop call with
    Aesop's builtin rules, among them ``rfl`` (``Aesop/BuiltinRules/Rfl.lean`` at v4.26.0: safe, the ``rfl``
    tactic), whose ``isDefEq`` at default transparency reduces ``Finset.card`` of ``Finset.filter p
    (Finset.Icc 15 85)`` (``LocallyFiniteOrder ℕ`` builds ``Icc`` from ``List.range'``) to ``4``; ``decide``
    reduces the ``Decidable`` instance the same way."""
    assert _minimal_is("mathd_numbertheory_12", "(bound )")
    assert _proves(backend, f"example : {CARD} = 4 := by\n  {tac}")
    # the attack: every other count
    for wrong in (3, 5, 0, 71):
        assert not _proves(backend, f"example : {CARD} = {wrong} := by\n  {tac}"), wrong


def _minimal_is(name: str, last: str) -> bool:
    return satp_theorems("satp_minimal.jsonl")[name].rstrip().endswith(last)


@pytest.mark.parametrize(
    "stmt",
    [
        "Finset.card (Finset.range 10) = 10",
        "Finset.card (Finset.Icc (-3 : ℤ) 3) = 7",
        "Finset.card (Finset.filter (fun x => x % 3 = 1) (Finset.range 10)) = 3",
        "Finset.card (Finset.filter (fun x => 20 ∣ x) (Finset.Icc 85 15)) = 0",
    ],
)
def test_decide_counts_ground_finsets(backend: SimBackend, stmt: str) -> None:
    assert _proves(backend, f"example : {stmt} := by decide")


@pytest.mark.parametrize(
    "code",
    [
        # a bound or a predicate with a free variable: nothing to reduce
        "example (n : ℕ) : Finset.card (Finset.range n) = n := by decide",
        "example (k : ℕ) (h : k = 20) : Finset.card (Finset.filter (fun x => k ∣ x) (Finset.Icc 15 85)) = 4 := by decide",
        # a local finite set is opaque
        "example (S : Finset ℕ) (h : S.card = 4) : S.card = 4 := by decide",
        # the ℤ interval has 7 elements, not 6
        "example : Finset.card (Finset.Icc (-3 : ℤ) 3) = 6 := by rfl",
        # simp and norm_num have no simproc for it in the default set (Mathlib's `Finset.Icc_ofNat_ofNat` is a
        # `simproc_decl`, Mathlib/Tactic/Simproc/FinsetInterval.lean): they do not evaluate the count
        f"example : {CARD} = 4 := by norm_num",
        f"example : {CARD} = 4 := by simp",
    ],
)
def test_ground_finset_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


def test_mathd_numbertheory_12_call_and_minimal_proof(backend: SimBackend) -> None:
    for file in ("satp_calls.jsonl", "satp_minimal.jsonl"):
        r = backend.check(satp_theorems(file)["mathd_numbertheory_12"], header=HEADER)
        assert r.proved, (file, r.messages_text()[:300])


# ------------------------------------------------------------------ simp lemmas of the default set


@pytest.mark.parametrize(
    "code",
    [
        # one_div, @[simp] in Mathlib/Algebra/Group/Basic.lean
        "example (x : ℝ) : 1 / x = x⁻¹ := by simp",
        "example (x : ℚ) (h : 1 / x = 2) : x⁻¹ = 2 := by simp at h; exact h",
        # inv_inv, one_eq_inv and inv_eq_one, @[simp] in Mathlib/Algebra/Group/Basic.lean
        "example (x : ℝ) : (x⁻¹)⁻¹ = x := by simp",
        "example (x : ℝ) (h : 1 = x⁻¹) : x = 1 := by simp at h; exact h",
        "example (x : ℝ) (h : x⁻¹ = 1) : x = 1 := by simp at h; exact h",
        # neg_mul and mul_neg, @[simp] in Mathlib/Algebra/Ring/Defs.lean
        "example (a b : ℝ) : -a * b = -(a * b) := by simp",
        "example (a b : ℤ) : a * -b = -(a * b) := by simp",
        "example (a b : ℝ) : -a * -b = a * b := by simp",
        # Real.one_rpow, Real.rpow_zero, Real.rpow_one, @[simp] in Mathlib/Analysis/SpecialFunctions/Pow/Real.lean
        "example (x : ℝ) : (1 : ℝ) ^ x = 1 := by simp",
        "example (x : ℝ) : x ^ (0 : ℝ) = 1 := by simp",
        "example (x : ℝ) : x ^ (1 : ℝ) = x := by simp",
    ],
)
def test_default_simp_lemmas(backend: SimBackend, code: str) -> None:
    assert _proves(backend, code)


@pytest.mark.parametrize(
    "code",
    [
        "example (x : ℝ) : 1 / x = x := by simp",
        "example (x : ℝ) : 2 / x = x⁻¹ := by simp",
        "example (x : ℕ) : 1 / x = 1 := by simp",  # ℕ's `/` is no inverse
        "example (x : ℝ) (h : 1 = x⁻¹) : x = 2 := by simp at h; exact h",
        "example (a b : ℝ) : -a * b = a * b := by simp",
        "example (a b : ℝ) : -a * -b = -(a * b) := by simp",
        "example (x : ℝ) : (2 : ℝ) ^ x = 1 := by simp",
        "example (x : ℝ) : x ^ (2 : ℝ) = x := by simp",
        "example (x : ℝ) : (1 : ℝ) ^ x = 2 := by simp",
    ],
)
def test_default_simp_lemma_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


def test_mathd_algebra_275_call(backend: SimBackend) -> None:
    """Lean's norm simp closes mathd_algebra_275 at once (its minimal proof is one ``simp_all only`` with
    ``Real.one_rpow``, ``one_div``, ``one_eq_inv``): the default set the call's ``simp_all`` uses has them."""
    assert "one_eq_inv" in satp_theorems("satp_minimal.jsonl")["mathd_algebra_275"]
    r = backend.check(satp_theorems("satp_calls.jsonl")["mathd_algebra_275"], header=HEADER)
    assert r.proved, r.messages_text()[:300]


# ------------------------------------------------ ℂ: the ring and field identities of the library


@pytest.mark.parametrize(
    "code",
    [
        "example (z : ℂ) : 1 / z = z⁻¹ := by simp only [one_div]",
        "example (z w : ℂ) : -z * w = -(z * w) := by rw [neg_mul]",
        "example (z : ℂ) : 1 * z = z := by simp only [one_mul]",
        "example (z w : ℂ) : z * w = w * z := by rw [mul_comm]",
    ],
)
def test_field_identities_hold_at_the_complex_numbers(backend: SimBackend, code: str) -> None:
    """Mathlib states ``one_div``, ``neg_mul``, ``one_mul``, ``mul_comm`` for any (commutative) division
    ring or monoid, ℂ included; SATP's minimal proof of mathd_algebra_302 uses three of them at ℂ."""
    assert _proves(backend, code)


@pytest.mark.parametrize(
    "code",
    [
        "example (z : ℂ) : 1 / z = z := by simp only [one_div]",
        "example (z w : ℂ) : -z * w = z * w := by rw [neg_mul]",
        # order lemmas stay off ℂ (it has no order): `sq_nonneg` does not elaborate there
        "example (z : ℂ) : 0 ≤ z ^ 2 := by exact sq_nonneg z",
    ],
)
def test_field_identities_at_the_complex_numbers_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


# ------------------------------------------------------------ ring_nf's negative rational constants


def test_ring_nf_writes_a_negative_rational_as_mathlib_does(backend: SimBackend) -> None:
    """Mathlib's ring_nf cleans ``Rat.rawCast (.negOfNat n) d`` to ``-n / d`` (``rat_rawCast_neg``,
    ``int_rawCast_neg`` in Mathlib/Tactic/Ring/RingNF.lean), which ``add_neg`` and ``mul_neg`` do not
    rewrite; a negative integer coefficient is subtracted. SATP's minimal proof of mathd_algebra_302 needs
    the first: after ``simp_all only [Complex.I_sq, one_div, neg_mul, one_mul]`` the goal ``-4⁻¹ = -1 / 4``
    is left for ``(bound )``."""
    r = backend.check("example (x : ℝ) : x - x / 4 - 1 / 4 = 0 := by\n  ring_nf", header=HEADER)
    assert "⊢ -1 / 4 + x * (3 / 4) = 0" in r.messages_text(), r.messages_text()
    r = backend.check("example (x : ℝ) : x - 3 * x ^ 2 = 0 := by\n  ring_nf", header=HEADER)
    assert "⊢ x - x ^ 2 * 3 = 0" in r.messages_text(), r.messages_text()
    r = backend.check(satp_theorems("satp_minimal.jsonl")["mathd_algebra_302"], header=HEADER)
    assert r.proved, r.messages_text()[:300]
    # the attack: the constant is still the same number
    bad = "example : (Complex.I / 2) ^ 2 = -(1 / 2) := by\n  ring_nf\n  simp_all only [Complex.I_sq, one_div, neg_mul, one_mul]\n  norm_num"
    assert not _proves(backend, bad)


# ------------------------------------------------------------------------- grind's ring module on ℂ


def test_grind_ring_module_reads_the_complex_numbers(backend: SimBackend) -> None:
    """Lean core's grind runs its ring module on every commutative ring (``Grind.CommRing``), ℂ included:
    SATP's minimal proof of algebra_2varlineareq_fp3zeq11_3tfm1m5zeqn68_feqn10_zeq7 is one ``grind only [L]``
    on two linear equations over ℂ. The linear solvers need an order, which ℂ lacks."""
    code = satp_theorems("satp_minimal.jsonl")["algebra_2varlineareq_fp3zeq11_3tfm1m5zeqn68_feqn10_zeq7"]
    assert "grind only" in code and "(f z : ℂ)" in code
    assert _proves(backend, code)
    r = backend.check(
        satp_theorems("satp_calls.jsonl")["algebra_2varlineareq_fp3zeq11_3tfm1m5zeqn68_feqn10_zeq7"],
        header=HEADER,
    )
    assert r.proved, r.messages_text()[:300]
    assert _proves(backend, "example (z : ℂ) (h : z ≠ 0) (h2 : z ^ 2 = 0) : False := by grind")


@pytest.mark.parametrize(
    "code",
    [
        "example (f z : ℂ) (h₀ : f + 3 * z = 11) (h₁ : 3 * (f - 1) - 5 * z = -68) : f = -10 ∧ z = 8 := by grind",
        "example (f z : ℂ) (h₀ : f + 3 * z = 11) : f = -10 := by grind",
        # `z = Complex.I` satisfies it: no contradiction over ℂ (over ℝ it would be one)
        "example (z : ℂ) (h : z * z = -1) : False := by grind",
        "example (z w : ℂ) (h : z ^ 2 = w ^ 2) : z = w := by grind",
    ],
)
def test_grind_on_the_complex_numbers_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


# ------------------------------------------------------------------- lists: `d :: L`, `[]`, digits


def test_list_literals_are_cons_chains(backend: SimBackend) -> None:
    """Lean core's ``[a, b, c]`` is ``a :: b :: c :: []`` (the ``«term[_]»`` macro; ``infixr:67 " :: "``):
    the two spellings are one term, printed as a literal when the chain ends in ``[]``."""
    assert _proves(backend, "example : (1 :: 2 :: []) = [1, 2] := by rfl")
    assert not _proves(backend, "example : (1 :: 2 :: []) = [2, 1] := by rfl")
    r = backend.check("example (L : List ℕ) (d : ℕ) : d :: L = [] := by\n  skip", header=HEADER)
    assert "⊢ d :: L = []" in r.messages_text(), r.messages_text()


@pytest.mark.parametrize(
    "code",
    [
        # List.cons.injEq (generated, @[simp]) and Lean core's reduceCtorEq simproc
        "example (a b : ℕ) (h : [a, 2] = [1, b]) : a = 1 ∧ 2 = b := by simp at h; exact h",
        "example (a : ℕ) (L : List ℕ) (h : a :: L = []) : False := by simp at h",
        "example (a : ℕ) (L : List ℕ) (h : [] = a :: L) : False := by simp only at h",
        # Nat.digits_zero, Nat.digits_of_two_le_of_pos (@[simp], Mathlib/Data/Nat/Digits/Defs.lean)
        "example : Nat.digits 10 625 = [5, 2, 6] := by simp",
        "example : Nat.digits 10 0 = [] := by simp",
        "example : Nat.digits 2 6 = [0, 1, 1] := by simp only [Nat.digits_of_two_le_of_pos, Nat.digits_zero]",
        # Nat.ofDigits_nil, Nat.ofDigits_singleton (@[simp]); Nat.ofDigits_cons by rw
        "example : Nat.ofDigits 10 [7] = 7 := by simp",
        "example : Nat.ofDigits 10 [1, 2] = 21 := by\n  simp only [Nat.ofDigits_cons, Nat.ofDigits_singleton, Nat.ofDigits_nil]",
    ],
)
def test_list_and_digit_lemmas(backend: SimBackend, code: str) -> None:
    assert _proves(backend, code)


@pytest.mark.parametrize(
    "code",
    [
        "example (a b : ℕ) (h : [a, 2] = [1, b]) : a = 2 := by simp at h; exact h.1",
        "example (a : ℕ) (L : List ℕ) (h : a :: L = [a]) : False := by simp at h",
        "example : Nat.digits 10 625 = [6, 2, 5] := by simp",
        "example : Nat.digits 1 3 = [3] := by simp",  # base 1: `digits 1 n` is `replicate n 1`, not read
        "example : Nat.digits 10 625 = [5, 2, 6] := by simp only [Nat.digits_zero]",  # the premise lemma unnamed
        "example : Nat.ofDigits 10 [1, 2] = 12 := by\n  simp only [Nat.ofDigits_cons, Nat.ofDigits_singleton]",
    ],
)
def test_list_and_digit_lemma_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


def test_grind_matches_cons_patterns_and_knows_constructors(backend: SimBackend) -> None:
    """SATP's minimal proof of amc12a_2003_p5 is ``grind only [Nat.ofDigits_cons]``: E-matching the pattern
    ``Nat.ofDigits ?b (?hd :: ?tl)`` against the literal lists, chained through the tails. Lean core's
    ``grind_t1.lean`` (line 1) has ``a = [] → b = [2] → a = b → False``: distinct constructors conflict."""
    for file in ("satp_minimal.jsonl", "satp_calls.jsonl"):
        r = backend.check(satp_theorems(file)["amc12a_2003_p5"], header=HEADER)
        assert r.proved, (file, r.messages_text()[:300])
    assert _proves(backend, "example (a b : List Nat) : a = [] → b = [2] → a = b → False := by\n  grind")
    assert _proves(backend, "example (x y : ℕ) (h : [x, 1] = [2, y]) : x + y = 3 := by grind")
    attacks = [
        # 15 is not the sum: the digits are 6, 1, 7
        "example (A M C : ℕ) (h₀ : A ≤ 9 ∧ M ≤ 9 ∧ C ≤ 9) (h₁ : Nat.ofDigits 10 [0, 1, C, M, A]"
        " + Nat.ofDigits 10 [2, 1, C, M, A] = 123422) : A + M + C = 15 := by\n  grind only [Nat.ofDigits_cons]",
        # without the lemma, ofDigits is an opaque function
        "example (A M C : ℕ) (h₀ : A ≤ 9 ∧ M ≤ 9 ∧ C ≤ 9) (h₁ : Nat.ofDigits 10 [0, 1, C, M, A]"
        " + Nat.ofDigits 10 [2, 1, C, M, A] = 123422) : A + M + C = 14 := by\n  grind",
        "example (a b : List Nat) : a = [1] → b = [1] → a = b → False := by\n  grind",
        "example (x y : ℕ) (h : [x, 1] = [2, y]) : x + y = 4 := by grind",
    ]
    for code in attacks:
        assert not _proves(backend, code), code


def test_mathd_numbertheory_341_call_and_minimal_proof(backend: SimBackend) -> None:
    """Its minimal proof's norm simp names ``Nat.digits_of_two_le_of_pos``, ``Nat.digits_zero`` and
    ``List.cons.injEq``: the call's default ``simp_all`` has them too."""
    for file in ("satp_calls.jsonl", "satp_minimal.jsonl"):
        r = backend.check(satp_theorems(file)["mathd_numbertheory_341"], header=HEADER)
        assert r.proved, (file, r.messages_text()[:300])


# -------------------------------------------------------------- what a failing grind costs, by the record

P4 = (
    "(x : ℝ) (h₀ : 0 < x) (h₁ : ¬x ^ 2 - 10 * x - 29 = 0) (h₂ : ¬x ^ 2 - 10 * x - 45 = 0)"
    " (h₃ : ¬x ^ 2 - 10 * x - 69 = 0) (h₄ : (x ^ 2 - 10 * x - 29)⁻¹ + (x ^ 2 - 10 * x - 45)⁻¹"
    " - 2 / (x ^ 2 - 10 * x - 69) = 0) (fwd : 0 ≤ x) : x = 13"
)


def _charge(stmt: str, tac: str) -> tuple[int, bool]:
    from lean_gym.sim.aesop_apply import run_sub
    from lean_gym.sim.elab import Env
    from lean_gym.sim.memo import caching
    from lean_gym.sim.tactics import TacticContext, goal_from_statement

    ctx = TacticContext(env=Env(imports=("Mathlib",)), max_heartbeats=0)
    goal = goal_from_statement(stmt, ctx)
    with caching(False):
        before = ctx.heartbeats
        new = run_sub(goal, tac, ctx)
    return ctx.heartbeats - before, new is not None


def test_a_failing_grind_costs_what_the_record_allows() -> None:
    """SATP's aime_1990_p4 (its minimal proof and its call's rule order): Lean ran 16 failing ``grind only
    [L]`` rules on this goal's path beside about 104000 of other charges within 200000 heartbeats, so one
    failing call costs at most about 6000 there. Lean's linear solvers are incremental; the simulator's
    re-runs per disequality split and per branch are not charged again."""
    assert satp_theorems("satp_minimal.jsonl")["aime_1990_p4"].count("(bound )") == 2
    cost, ok = _charge(P4, "grind only [Iff]")
    assert not ok
    assert 1500 < cost <= 6000, cost
    # the re-runs are uncharged, not skipped: a split still proves what it proved
    cost2, ok2 = _charge("(x y : ℝ) (h : x ≠ y) (h1 : x ≤ y) (h2 : y ≤ x) : False", "grind")
    assert ok2 and cost2 > 0


def test_rw_with_a_namespaced_lemma_leaves_its_implicit_arguments_to_the_match(backend: SimBackend) -> None:
    """Lean's ``rw [Nat.ofDigits_cons]`` elaborates the lemma with its implicit arguments as metavariables
    that the rewrite's match assigns, whatever the name's namespace; a projection of a local (``h.1``) is a
    term as before."""
    r = backend.check("example : Nat.ofDigits 10 [1, 2] = 21 := by\n  rw [Nat.ofDigits_cons]", header=HEADER)
    assert "⊢ 1 + 10 * Nat.ofDigits 10 [2] = 21" in r.messages_text(), r.messages_text()
    assert _proves(backend, "example (a b : ℕ) (h : a = 1 ∧ b = 2) : a + b = 1 + b := by\n  rw [h.1]")
    # the attack: the rewrite still needs an instance of the pattern
    r = backend.check(
        "example (L : List ℕ) : Nat.ofDigits 10 L = 0 := by\n  rw [Nat.ofDigits_cons]", header=HEADER
    )
    assert not r.proved and "Did not find an instance" in r.messages_text(), r.messages_text()
