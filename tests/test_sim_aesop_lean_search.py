"""Aesop's search as Aesop v4.26 runs it, and the cost model against SATP's record (issue 21).

Each test names the cause it fixes and the source it follows. Aesop at the tag ``v4.26.0``
(leanprover-community/aesop, commit ``2f6d238744c4cb07fdc91240feaf5d4221a27931``):

* ``Aesop/RuleTac/Tactic.lean`` (``tacticStx``): a rule ``(by tac)`` keeps whatever goals ``tac`` leaves, so a
  tactic that succeeds without changing its goal is a rule application; ``Aesop/Search/Expansion/Norm.lean``
  (``runNormSteps``) restarts normalisation after any success and throws ``aesop: exceeded maximum number of
  normalisation iterations`` after ``maxNormIterations`` of them.
* ``Aesop/Search/RuleSelection.lean`` and ``Norm.lean`` (``normalizeGoalIfNecessary``): the root goal is not
  normalised; its one rule is ``preprocess``, whose child (depth 1) is where the search starts.
* ``Aesop/Search/Main.lean`` (``handleNonfatalError``) and ``ExpandSafePrefix.lean``: a search that ends
  without a proof first expands the safe prefix (normalisation and safe rules) and then reports its goals.

SATP's record (``lean_gym/conformance/cases/satp/``, from ChristianZ97/LeanSATP
``proofs/minif2f_test_v2`` at ``8173665e66bf003104d2cebeaf7c0fa6f1cdac08``): each of 92 theorems proved on
Lean v4.26.0 with SATP's aesop call under the default ``maxHeartbeats`` 200000, and its ``minimal/`` proof is
the script Lean's ``aesop?`` printed for that very search, so the rules Lean ran before each step are known.
"""

from __future__ import annotations

import pytest

from lean_gym.backends.sim import SimBackend
from lean_gym.conformance.corpus import satp_theorems
from lean_gym.sim.aesop_apply import run_sub
from lean_gym.sim.aesop_cost import tactic_cost
from lean_gym.sim.elab import Env
from lean_gym.sim.memo import caching
from lean_gym.sim.tactics import TacticContext, goal_from_statement

HEADER = "import Mathlib"
LOOP = "aesop: exceeded maximum number of normalisation iterations (5)."


@pytest.fixture(scope="module")
def backend() -> SimBackend:
    return SimBackend(max_heartbeats=200_000)


def _check(backend: SimBackend, body: str, proof: str) -> tuple[bool, str]:
    r = backend.check(f"theorem t {body} := by\n  {proof}", header=HEADER)
    return r.proved, r.messages_text()


# --------------------------------------------------------------- a rule that succeeds without a change


@pytest.mark.parametrize("tac", ["push_cast", "norm_cast", "exfalso"])
def test_an_unchanged_success_restarts_normalisation_until_its_limit(backend: SimBackend, tac: str) -> None:
    """``push_cast`` (``failIfUnchanged := false``), ``norm_cast`` with nothing to move and ``exfalso`` on
    ``False`` succeed and leave their goal: Aesop counts that as a normalisation step every time."""
    body = "(x : ℝ) (h : 0 < x) : False"
    proved, text = _check(
        backend,
        body,
        f"aesop (rule_sets := [-builtin]) (config := {{ maxNormIterations := 5 }}) (add norm 1 (by {tac}))",
    )
    assert not proved and LOOP in text, text


def test_no_rule_after_an_unchanged_success_is_reached(backend: SimBackend) -> None:
    """The attack: a rule that proves the goal, ordered after one that succeeds without a change, is never
    run by Aesop (normalisation loops first), so the simulator must not prove with it; ahead of it, it does."""
    body = "(x : ℝ) (h : x = 2) : x + 1 = 3"
    behind = "aesop (rule_sets := [-builtin]) (config := { maxNormIterations := 5, enableSimp := false })\n"
    behind += "    (add norm 1 (by push_cast)) (add norm 2 (by linarith))"
    proved, text = _check(backend, body, behind)
    assert not proved and LOOP in text, text
    ahead = behind.replace("norm 2 (by linarith)", "norm 0 (by linarith)")
    assert _check(backend, body, ahead)[0]
    # as a safe rule it is a rule application too: its child is the same goal, to the depth limit
    safe = (
        "aesop (rule_sets := [-builtin]) (config := { enableSimp := false, maxRuleApplicationDepth := 6 })\n"
    )
    safe += "    (add safe 1 (by push_cast)) (add safe 2 (by linarith))"
    proved, text = _check(backend, body, safe)
    assert not proved and "maximum rule application depth (6)" in text, text


def test_zify_and_qify_fail_when_they_change_nothing(backend: SimBackend) -> None:
    """Mathlib's ``zify`` is ``simp -decide only [zify_simps, push_cast] at loc`` (``Mathlib/Tactic/Zify.lean``;
    ``qify`` alike), and ``simp`` fails when it makes no progress; ``push_cast`` does not fail."""
    for tac in ("zify", "qify"):
        proved, text = _check(backend, "(x : ℝ) (h : 0 < x) : x = 13", f"{tac}\n  sorry")
        assert not proved and "simp made no progress" in text, (tac, text)
    r = backend.check("theorem t (x : ℝ) (h : 0 < x) : x = 13 := by\n  push_cast\n  sorry", header=HEADER)
    assert r.status == "sorry"
    # where there is an ℕ comparison, zify moves it and succeeds
    r = backend.check("theorem t (a b : ℕ) (h : a < b) : a ≤ b := by\n  zify at h ⊢\n  sorry", header=HEADER)
    assert r.status == "sorry", r.messages_text()


def test_field_simps_rebuilt_product_is_no_loop(backend: SimBackend) -> None:
    """``field_simp`` rewrites a product with its own instances (new to Lean, printed the same); run again on
    its own output it makes no progress and fails, so the rules after it are reached: here ``linarith``."""
    body = "(s : ℝ → ℝ) (h : s 3 * 33 = 1) : s 3 * 33 ≤ 1"
    call = "aesop (rule_sets := [-builtin]) (config := { maxNormIterations := 5, enableSimp := false })\n"
    call += "    (add norm 1 (by field_simp)) (add norm 2 (by linarith))"
    proved, text = _check(backend, body, call)
    assert proved, text


# ----------------------------------------------------------- the root's preprocess rule and the safe prefix


def test_the_root_goal_starts_at_depth_one(backend: SimBackend) -> None:
    """``preprocess``'s child is at depth 1: with ``maxRuleApplicationDepth := 1`` it is beyond the limit
    before anything runs; with 2 the goal is normalised and closed."""
    body = "(p q : Prop) (hp : p) (hq : q) : p ∧ q"
    proved, text = _check(
        backend, body, "aesop (config := { maxRuleApplicationDepth := 1, terminal := true })"
    )
    assert not proved and "maximum rule application depth (1) was reached" in text, text
    assert _check(backend, body, "aesop (config := { maxRuleApplicationDepth := 2, terminal := true })")[0]


def test_the_safe_prefix_is_expanded_before_a_failure_is_reported(backend: SimBackend) -> None:
    """``maxRuleApplications := 1`` is spent by ``preprocess``; Aesop then expands the safe prefix (here the
    ``∧`` split) and leaves its goals, which the next tactics close (``AesopTest/Indent.lean`` at v4.26.0)."""
    body = "(p q : Prop) (hp : p) (hq : q) : p ∧ q"
    proof = "aesop (rule_sets := [-builtin]) (add safe constructors And)"
    proof += " (config := { maxRuleApplications := 1, warnOnNonterminal := false, enableSimp := false })"
    proof += "\n  exact hp\n  exact hq"
    proved, text = _check(backend, body, proof)
    assert proved, text
    # the prefix stops at maxSafePrefixRuleApplications and says so
    body = "(p : Prop) (hp : p) : p ∧ p ∧ p ∧ p ∧ p"
    proof = "aesop (rule_sets := [-builtin]) (add safe constructors And)"
    proof += (
        " (config := { maxRuleApplications := 1, maxSafePrefixRuleApplications := 1, enableSimp := false })"
    )
    proof += "\n  all_goals exact hp"
    r = backend.check(f"theorem t {body} := by\n  {proof}", header=HEADER)
    assert "safe prefix was not fully expanded because the maximum number of rule applications (1)" in (
        r.messages_text()
    ), r.messages_text()


# --------------------------------------------------------------- the cost model against SATP's record


def _path_cost(name: str, texts: list[str]) -> int:
    """The heartbeats the simulator charges for running ``texts`` as aesop rules, one after the other, on the
    goal of record theorem ``name`` (memo off: each run is charged in full)."""
    code = satp_theorems("satp_calls.jsonl")[name]
    stmt = code[len(f"theorem {name}") : code.index(":= by\n")]
    ctx = TacticContext(env=Env(imports=("Mathlib",)), max_heartbeats=0)
    goal = goal_from_statement(stmt.strip(), ctx)
    with caching(False):
        for t in texts:
            run_sub(goal, t, ctx)
    return ctx.heartbeats


def test_the_rules_lean_ran_for_aime_1990_p15_fit_the_budget_it_ran_in() -> None:
    """Lean's ``aesop?`` script for SATP's call is ``(grind only [mul_self_nonneg])`` alone: the norm simp
    left the goal, and the norm rules of penalty 0 before it in the call's order (``linarith``,
    ``nlinarith``, ``omega``, ``bound``, ``grind only [sq_add_sq_mul]``) failed, all within 200000
    heartbeats. A failing ``nlinarith`` on four equations of degree up to 5 must cost less than that."""
    minimal = satp_theorems("satp_minimal.jsonl")["aime_1990_p15"]
    assert minimal.rstrip().endswith("(grind only [mul_self_nonneg])")
    ran = ["simp_all", "linarith", "nlinarith", "omega", "bound", "grind only [sq_add_sq_mul]"]
    assert _path_cost("aime_1990_p15", [*ran, "grind only [mul_self_nonneg]"]) < 200_000


def test_satps_call_for_amc12b_2002_p7_proves_within_the_budget(backend: SimBackend) -> None:
    """Lean's script: the norm simp, then ``nlinarith`` (after ``linarith`` failed): a successful
    ``nlinarith`` over 44 facts of products must fit the budget with the rest of the search."""
    assert satp_theorems("satp_minimal.jsonl")["amc12b_2002_p7"].rstrip().endswith("(nlinarith)")
    r = backend.check(satp_theorems("satp_calls.jsonl")["amc12b_2002_p7"], header=HEADER)
    assert r.proved, r.messages_text()[:300]


def test_a_failing_nlinarith_still_pays_for_its_products() -> None:
    """The other side: the charge grows with the products Mathlib's ``nlinarithExtras`` forms, so a large
    context still costs more than a small one, and more than one budget when very large."""
    ctx = TacticContext(env=Env(imports=("Mathlib",)))
    small = goal_from_statement("(x y : ℝ) (h₀ : x + y = 5) (h₁ : x * y = 6) : x ^ 2 + y ^ 2 = 13", ctx)
    big = goal_from_statement(
        "(a b x y : ℝ) (h₀ : a * x + b * y = 3) (h₁ : a * x ^ 2 + b * y ^ 2 = 7)"
        " (h₂ : a * x ^ 3 + b * y ^ 3 = 16) (h₃ : a * x ^ 4 + b * y ^ 4 = 42) : a * x ^ 5 + b * y ^ 5 = 20",
        ctx,
    )
    assert tactic_cost("nlinarith", small) < tactic_cost("nlinarith", big) < 200_000


# ---------------------------------------------------------- omega on a ground power modulo a numeral


def test_omega_reads_a_ground_power_modulo_a_numeral(backend: SimBackend) -> None:
    """SATP's record: ``mathd_numbertheory_328`` (``5 ^ 999999 % 7 = 6``) is proved by ``(omega)`` alone, after
    ``linarith`` and ``nlinarith`` failed (norm rules of penalty 0 ahead of it). Lean core's omega evaluates
    ground terms with big numbers (``groundNat?``, ``src/Lean/Elab/Tactic/Omega/OmegaM.lean``); the simulator
    computes the remainder by modular exponentiation, the same number. linarith leaves ``a % b`` an atom."""
    assert satp_theorems("satp_minimal.jsonl")["mathd_numbertheory_328"].rstrip().endswith("(omega)")
    ok = ["5 ^ 999999 % 7 = 6", "(2 : ℤ) ^ 999999 % 7 = 1", "(-2 : ℤ) ^ 999999 % 7 = 6",
          "(5 ^ 999999 + 3 * 2 ^ 100000) % 7 = 5"]  # fmt: skip
    for stmt in ok:
        assert _check(backend, f": {stmt}", "omega")[0], stmt
    # the attack: every other remainder, and the tactics that do not evaluate it
    for wrong in ("5 ^ 999999 % 7 = 5", "(5 ^ 999999 + 3 * 2 ^ 100000) % 7 = 1", "(2 : ℤ) ^ 999999 % 7 = 6"):
        assert not _check(backend, f": {wrong}", "omega")[0], wrong
    for tac in ("linarith", "nlinarith", "ring_nf", "simp"):
        assert not _check(backend, ": 5 ^ 999999 % 7 = 6", tac)[0], tac
    # ℕ's truncated subtraction and division are not read modulo 7: omega does not prove these
    assert not _check(backend, ": (5 ^ 999999 - 1) % 7 = 5", "omega")[0]
    r = backend.check(satp_theorems("satp_calls.jsonl")["mathd_numbertheory_328"], header=HEADER)
    assert r.proved, r.messages_text()[:300]


# ------------------------------------------------------------------ numeral exponents elaborate in ℕ


@pytest.mark.parametrize("tac", ["norm_num", "simp", "aesop", "grind", "linarith", "nlinarith", "ring_nf"])
def test_a_numeral_quotient_exponent_is_a_natural_number(backend: SimBackend, tac: str) -> None:
    """``(16 : ℝ) ^ (1 / 4)``: the exponent of ``^`` elaborates in ℕ (``Monoid.npow``, by the default instance
    of ``HPow``), where ``1 / 4 = 0``, so the power is 1, never 2 (``mathd_algebra_275``'s statement, whose
    minimal proof uses ``Nat.reduceDiv`` and ``pow_zero``); written ``(1 : ℝ) / 4`` it is ``Real.rpow``."""
    assert not _check(backend, ": (16 : ℝ) ^ (1 / 4) = 2", tac)[0]
    if tac in ("norm_num", "simp"):
        assert _check(backend, ": (16 : ℝ) ^ (1 / 4) = 1", tac)[0]
    assert not _check(backend, ": (16 : ℝ) ^ ((1 : ℝ) / 4) = 1", tac)[0]


# ------------------------------------------------------------------------- ℂ: a field with no order


def test_complex_statements_of_the_record_elaborate(backend: SimBackend) -> None:
    """SATP's ``algebra_2varlineareq_fp3zeq11_3tfm1m5zeqn68_feqn10_zeq7`` (``f z : ℂ``) and
    ``mathd_algebra_302`` (``Complex.I``) are read, and display as Lean shows them."""
    calls = satp_theorems("satp_calls.jsonl")
    for name in ("algebra_2varlineareq_fp3zeq11_3tfm1m5zeqn68_feqn10_zeq7", "mathd_algebra_302"):
        stmt = calls[name][: calls[name].index(":= by\n") + len(":= by\n")]
        r = backend.check(stmt + "  sorry", header=HEADER)
        assert r.status == "sorry", (name, r.messages_text())
    r = backend.check("theorem t : (Complex.I / 2) ^ 2 = -(1 / 4) := by\n  skip", header=HEADER)
    assert r.messages_text().endswith("unsolved goals\n⊢ (Complex.I / 2) ^ 2 = -(1 / 4)"), r.messages_text()


def test_satps_call_for_mathd_algebra_302_proves(backend: SimBackend) -> None:
    """Lean's script: ``(ring)`` (which leaves ``ring_nf``'s form), the norm simp with ``Complex.I_sq``, then
    ``(bound)``: the same steps through the simulator's ring over ℂ and ``Complex.I_sq`` (@[simp])."""
    assert "Complex.I_sq" in satp_theorems("satp_minimal.jsonl")["mathd_algebra_302"]
    r = backend.check(satp_theorems("satp_calls.jsonl")["mathd_algebra_302"], header=HEADER)
    assert r.proved, r.messages_text()[:300]


@pytest.mark.parametrize(
    "body",
    [
        "(z : ℂ) : z < 1",  # Complex.partialOrder is scoped (`open ComplexOrder`): no `<` on ℂ
        "(z : ℂ) : z ≤ 1",
        "(z : ℂ) : |z| = 1",
        "(z : ℂ) : z % 2 = 1",
        "(z : ℂ) : 2 ∣ z",
        "(z : ℂ) : z ^ (1 / 2 : ℂ) = 1",  # `cpow` is not modelled
        "(z : ℂ) : Complex.abs z = 1",
    ],
)
def test_what_complex_numbers_lack_is_not_read(backend: SimBackend, body: str) -> None:
    r = backend.check(f"theorem t {body} := by\n  sorry", header=HEADER)
    assert r.status == "error", (body, r.messages_text())


@pytest.mark.parametrize(
    "body",
    [
        # an ordered field's facts are false in ℂ: `z * z + 1 = 0` at `I`
        "(z : ℂ) : z * z + 1 ≠ 0",
        "(z : ℂ) (h : z ^ 2 = -1) : False",
        "(z : ℂ) (h : z * z = -1) : False",
        ": Complex.I ^ 2 = 1",
        ": (Complex.I / 2) ^ 2 = 1 / 4",
        ": (2 : ℂ) + 2 = 5",
        "(z w : ℂ) : (z + w) ^ 2 = z ^ 2 + w ^ 2",
        "(z w : ℂ) (h : z = w + 1) (h2 : w = 2) : z = 4",
        "(x : ℝ) (h : (x : ℂ) = 2) : x = 3",
        "(z : ℂ) (h : z * z = 1) : z = 1",
        "(a b : ℂ) (h : a * b = 0) : b = 0",
    ],
)
@pytest.mark.parametrize(
    "tac",
    ["positivity", "nlinarith", "linarith", "simp_all", "norm_num [*] at *", "ring_nf at *", "grind", "aesop",
     "bound", "field_simp", "norm_cast at *", "decide"],
)  # fmt: skip
def test_complex_numbers_prove_nothing_false(backend: SimBackend, body: str, tac: str) -> None:
    assert not _check(backend, body, tac)[0], (body, tac)


def test_complex_numbers_prove_what_a_field_of_characteristic_zero_does(backend: SimBackend) -> None:
    for body, tac in [
        ("(z w : ℂ) : (z + w) ^ 2 = z ^ 2 + 2 * z * w + w ^ 2", "ring"),
        (": (Complex.I / 2) ^ 2 = Complex.I ^ 2 / 4", "ring"),
        (": Complex.I ^ 2 = -1", "simp"),
        (": Complex.I * Complex.I = -1", "simp only [Complex.I_mul_I]"),
        (": (2 : ℂ) + 2 = 4", "norm_num"),
        (": (1 : ℂ) / 3 ≠ 2 / 7", "norm_num"),  # MathlibTest/norm_num.lean:381
        ("(x : ℝ) (h : (x : ℂ) = 2) : x = 2", "norm_cast at h"),
        ("(x : ℝ) (z : ℂ) (h : z = x) (hx : x = 2) : z = 2", "simp_all"),
    ]:
        assert _check(backend, body, tac)[0], (body, tac)


def test_norm_cast_moves_a_relation_with_several_cast_sources() -> None:
    """norm_cast's splitting procedure writes ``(↑n : ℝ)`` as ``((↑n : ℤ) : ℝ)`` beside an ``ℤ`` cast, so the
    relation moves to ℤ (``MathlibTest/norm_cast.lean``, the ``(an : ℚ) = bz ↔ (an : ℂ) = bz`` examples)."""
    backend = SimBackend()
    ok = "theorem t (a : ℕ) (b : ℤ) (h : (a : ℝ) = b) : (a : ℤ) = b := by\n  norm_cast at h"
    assert backend.check(ok, header=HEADER).proved
    ok = "theorem t (a : ℕ) (b : ℤ) (h : (a : ℝ) < b) : (a : ℤ) < b := by\n  norm_cast at h"
    assert backend.check(ok, header=HEADER).proved
    bad = "theorem t (a : ℕ) (b : ℤ) (h : (a : ℝ) = b) : (a : ℤ) = b + 1 := by\n  norm_cast at h"
    assert not backend.check(bad, header=HEADER).proved
    bad = "theorem t (a : ℕ) (b : ℤ) (h : (a : ℝ) ≤ b) : (a : ℤ) < b := by\n  norm_cast at h"
    assert not backend.check(bad, header=HEADER).proved
