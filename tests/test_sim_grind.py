"""The simulator's ``grind`` (``lean_gym/sim/tac_grind.py``) against Lean core's record, and attacks on each
of its proving paths: the Gröbner basis of the ring module (with its checked certificates), E-matching,
the inverse case splits, the propositional engine and congruence closure.

Lean's record: leanprover/lean4 ``tests/lean/run/grind_t1.lean`` (the conformance cases
``lean_gym/conformance/cases/lean4/grind.jsonl``, commit 01a688a4bc8e), ``tests/lean/run/grind_ring_2.lean``
(commit 135617a795b3), and SATP's minimal proofs (``lean_gym/conformance/cases/satp/satp_minimal.jsonl``:
ChristianZ97/LeanSATP ``proofs/minif2f_test_v2/minimal/``, Lean v4.26.0). Lean's limits are its
``Grind.Config`` defaults (``src/Init/Grind/Config.lean``): ``splits := 9``, ``ematch := 5``, ``gen := 8``,
``instances := 1000``, ``ringSteps := 10000``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_gym.backends.sim import SimBackend
from lean_gym.conformance.corpus import satp_theorems
from lean_gym.sim.arith import Poly
from lean_gym.sim.arith.groebner import GroebnerBasis, IdealCertificate
from lean_gym.sim.library import lookup_decls
from lean_gym.sim.tac_grind import _param_theorem

CASES = Path(__file__).parents[1] / "lean_gym" / "conformance" / "cases"
HEADER = "import Mathlib"


@pytest.fixture(scope="module")
def backend() -> SimBackend:
    return SimBackend(max_heartbeats=200_000)


def _proves(backend: SimBackend, code: str, header: str = HEADER) -> bool:
    return bool(backend.check(code, header=header).proved)


def _case(path: str, ident: str) -> dict:
    for line in (CASES / path).read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        if c["id"] == ident:
            return c
    raise KeyError(ident)


def _minimal(name: str) -> str:
    return satp_theorems("satp_minimal.jsonl")[name]


# ------------------------------------------------------------------------- the Gröbner basis module


def test_groebner_certificates_check_and_a_tampered_one_does_not() -> None:
    a, b, x, y = (Poly.var(v) for v in "abxy")
    gens = [a * x + b * y - 3, a * x**2 + b * y**2 - 7, a * x**3 + b * y**3 - 16, a * x**4 + b * y**4 - 42]
    gb = GroebnerBasis(gens)
    assert gb.complete and gb.unit is None
    cert = gb.member(a * x**5 + b * y**5 - 20)
    assert cert is not None and cert.check()
    forged = IdealCertificate(cert.gens, cert.cofactors, a * x**5 + b * y**5 - 21)
    assert not forged.check()
    assert gb.member(a * x**5 + b * y**5 - 21) is None  # 20 is the value, 21 is not in the ideal


def test_groebner_finds_inconsistency_only_when_there_is_one() -> None:
    x, y, z = (Poly.var(v) for v in "xyz")
    # x ≠ 0 as x·z = 1 (Rabinowitsch): with x² = 0 the ideal holds 1 (x is in its radical)
    gb = GroebnerBasis([x**2, x * z - 1])
    assert gb.unit is not None and gb.unit.check()
    # x² = 1 does not make x = 1: (x - 1)·z = 1 is consistent (x = -1)
    assert GroebnerBasis([x**2 - 1, (x - 1) * z - 1]).unit is None
    assert GroebnerBasis([x * y - 1, x + y - 2, (x - 2) * z - 1]).unit is None


def test_groebner_stops_at_its_step_budget() -> None:
    a, b, x, y = (Poly.var(v) for v in "abxy")
    gens = [a * x + b * y - 3, a * x**2 + b * y**2 - 7, a * x**3 + b * y**3 - 16, a * x**4 + b * y**4 - 42]
    gb = GroebnerBasis(gens, steps=20)
    assert not gb.complete and gb.member(a * x**5 + b * y**5 - 20) is None


# ------------------------------------------------------------------------- Lean core's grind record


@pytest.mark.parametrize(
    "ident",
    ["lean4.grind.0002", "lean4.grind.0006", "lean4.grind.0007", "lean4.grind.0008", "lean4.grind.0009"],
)
def test_grind_t1_cases_lean_proves(backend: SimBackend, ident: str) -> None:
    """Bool equalities and propositional tautologies (grind_t1.lean lines 7, 217-226): congruence closure
    with distinct constructors, and case splits on ``↔`` and ``∧``/``∨`` as Lean's ``Split.lean`` makes them."""
    c = _case("lean4/grind.jsonl", ident)
    assert _proves(backend, c["code"], c["header"] or "")


@pytest.mark.parametrize("ident", ["lean4.grind.0014", "lean4.grind.0015"])
def test_grind_t1_cases_lean_fails(backend: SimBackend, ident: str) -> None:
    c = _case("lean4/grind.jsonl", ident)
    assert not _proves(backend, c["code"], c["header"] or "")


@pytest.mark.parametrize(
    "code",
    [
        "example (P Q : Prop) : (P → Q) ↔ (Q → P) := by grind",
        "example (a b : Bool) : a = true → b = false → a = b := by grind",
        "example (a b c : Bool) : a = b → b = c → a = true := by grind",
        "example {P Q : Prop} (w : P = (P = Q)) : False := by grind",
    ],
)
def test_propositional_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


# grind_ring_2.lean (135617a795b3): `grobner` (grind's ring module alone) on a commutative ring; ℝ and ℤ are
# commutative rings, so Lean's grind proves these there
@pytest.mark.parametrize(
    "code",
    [
        # line 42
        "example (x y : ℤ) : y = 0 → (x + 1) * (x - 1) + y = x ^ 2 → False := by grind",
        # lines 48, 51
        "example (x y : ℝ) : x * y * x = 1 → x * y * y = y → y = 1 := by grind",
        "example (x y : ℝ) : x ^ 2 * y = 1 → x * y ^ 2 = y → y * x = 1 := by grind",
        # line 60
        "example (a b c : ℝ) : a + b + c = 3 → a ^ 2 + b ^ 2 + c ^ 2 = 5 → a ^ 3 + b ^ 3 + c ^ 3 = 7 → "
        "a ^ 4 + b ^ 4 + c ^ 4 = 9 := by grind",
    ],
)
def test_ring_module_proves_what_grind_ring_2_records(backend: SimBackend, code: str) -> None:
    assert _proves(backend, code)


@pytest.mark.parametrize(
    "code",
    [
        # false consequences the ring module must not reach
        "example (a b c : ℝ) : a + b + c = 3 → a ^ 2 + b ^ 2 + c ^ 2 = 5 → a ^ 3 + b ^ 3 + c ^ 3 = 7 → "
        "a ^ 4 + b ^ 4 + c ^ 4 = 10 := by grind",
        "example (x : ℝ) (h : x ^ 2 = 1) : x = 1 := by grind",
        "example (x y : ℝ) (h : x * y = 0) : x = 0 := by grind",
        "example (x y : ℝ) (h : x ^ 2 = y ^ 2) : x = y := by grind",
        "example (a b x y : ℝ) (h₀ : a * x + b * y = 3) (h₁ : a * x ^ 2 + b * y ^ 2 = 7)\n"
        "    (h₂ : a * x ^ 3 + b * y ^ 3 = 16) (h₃ : a * x ^ 4 + b * y ^ 4 = 42) : a * x ^ 5 + b * y ^ 5 = 21 := by\n"
        "  grind only [mul_self_nonneg]",
        # ℕ: no field, so no Rabinowitsch step for a disequality
        "example (a b : ℕ) (h : a * b = 6) (h2 : a + b = 5) : a = 2 := by grind",
    ],
)
def test_ring_module_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


@pytest.mark.parametrize(
    "code",
    [
        # grind_ring_2.lean lines 54, 57, 84: the ring module's implied equalities feed congruence closure
        "example (x y : ℝ) (f : ℝ → ℕ) : x ^ 2 * y = 1 → x * y ^ 2 = y → f (y * x) = f 1 := by grind",
        "example (x y : ℝ) (f : ℝ → ℕ) : x ^ 2 * y = 1 → x * y ^ 2 - y = 0 → f (y * x) = f (y * x * y) := by grind",
        "example (a b : ℝ) (f : ℝ → ℕ) : a - b = 0 → f a = f b := by grind",
    ],
)
def test_implied_equalities_reach_congruence(backend: SimBackend, code: str) -> None:
    assert _proves(backend, code)


@pytest.mark.parametrize(
    "code",
    [
        "example (x y : ℝ) (f : ℝ → ℕ) : x ^ 2 * y = 1 → x * y ^ 2 = y → f (y * x) = f 2 := by grind",
        "example (a b : ℤ) (f : ℤ → ℕ) : 2 * a = 1 + b → f a = f b := by grind",
        "example (a b : ℝ) (f : ℝ → ℝ) (h : a ^ 2 = b ^ 2) : f a = f b := by grind",
        # SATP's mathd_algebra_487 with the wrong value under the root
        "example (a c : ℝ) (h₁ : a + a ^ 2 = 1) (h₃ : c + c ^ 2 = 1) (h₄ : ¬a = c) :\n"
        "    Real.sqrt ((a - c) ^ 2 + (a ^ 2 - c ^ 2) ^ 2) = Real.sqrt 9 := by grind",
        # without `a ≠ c` the sum is 0 (a = c is allowed), so the roots are not equal
        "example (a c : ℝ) (h₁ : a + a ^ 2 = 1) (h₃ : c + c ^ 2 = 1) :\n"
        "    Real.sqrt ((a - c) ^ 2 + (a ^ 2 - c ^ 2) ^ 2) = Real.sqrt 10 := by grind",
    ],
)
def test_implied_equality_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


def test_rabinowitsch_proves_radical_membership(backend: SimBackend) -> None:
    # `x ≠ 0` becomes `x * x⁻¹ = 1` (CommRing/EqCnstr.lean, `diseqZeroToEq`): with x² = 0 that is 0 = 1
    assert _proves(backend, "example (x : ℝ) (h : x ^ 2 = 0) : x = 0 := by grind")
    # SATP's amc12_2000_p20: xyz - 1 is in the radical of the equations, not in their ideal
    assert _proves(backend, _minimal("amc12_2000_p20"))
    # mathd_algebra_487: a ≠ c as a Rabinowitsch equation gives a + c = -1, so the radicand is 10
    assert _proves(backend, _minimal("mathd_algebra_487"))


# ---------------------------------------------------------------------------------- inverse splits


def test_inverses_split_as_lean_does(backend: SimBackend) -> None:
    """``d⁻¹`` for a non-numeral ``d`` is ``d = 0 ∧ d⁻¹ = 0`` or ``d * d⁻¹ = 1`` (``processInv``): SATP's
    amc12b_2021_p3 (three nested inverses) and mathd_algebra_270."""
    assert _proves(backend, _minimal("amc12b_2021_p3"))
    assert _proves(backend, _minimal("mathd_algebra_270"))


@pytest.mark.parametrize(
    "code",
    [
        "example (x : ℝ) (h : 2 + (1 + (2 + 2 * (3 + x)⁻¹)⁻¹)⁻¹ = 144 / 53) : x = 1 / 4 := by grind",
        "example (x : ℝ) (h : 1 / x = 2) : x = 2 := by grind",
        "example (x : ℝ) (h : x / x = 1) : x = 1 := by grind",
        # 0⁻¹ = 0 in Lean: `x⁻¹ = 0` does not make x anything but 0, and `x * x⁻¹ = 1` needs x ≠ 0
        "example (x : ℝ) : x * x⁻¹ = 1 := by grind",
        "example (x : ℝ) (h : x⁻¹ = 0) : x = 1 := by grind",
    ],
)
def test_inverse_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


# --------------------------------------------------------------------------------------- E-matching


def _patterns(name: str) -> list[tuple]:
    thm = _param_theorem(lookup_decls()[name])
    assert thm is not None
    return [p for pats in thm.patterns for p in pats]


def test_parameter_patterns_follow_lean_inference() -> None:
    # `√a * √a = a`: Eq is never a pattern, `*` only as a last resort: the pattern is `√#0`
    (p,) = _patterns("Real.mul_self_sqrt")
    assert p[0] == "app" and p[1] == ("const", "Real.sqrt") and p[2][0][0] == "mvar"
    # `Even a ↔ 2 ∣ a`: Iff is never a pattern, `Even` has the default priority
    (p,) = _patterns("even_iff_two_dvd")
    assert p[0] == "app" and p[1] == ("const", "Even")
    # `0 ≤ a * a`: `≤` has the default priority and `a * a` (low) subsumes nothing at that priority
    (p,) = _patterns("mul_self_nonneg")
    assert p[0] == "≤"


@pytest.mark.parametrize("name", ["mathd_algebra_76", "mathd_algebra_263", "mathd_algebra_452"])
def test_ematching_proves_satp_minimal_proofs(backend: SimBackend, name: str) -> None:
    """E-matching a local ``∀`` hypothesis (its singleton patterns, with Nat offsets: ``a (n + 2)`` matches
    ``a 9``) and the ``only [L]`` lemmas (``Real.mul_self_sqrt``, ``even_iff_two_dvd``)."""
    assert _proves(backend, _minimal(name))


@pytest.mark.parametrize(
    "code",
    [
        # 3 is not even: the Even instance must not fire
        "example (f : ℤ → ℤ) (h₀ : ∀ n, Odd n → f n = n ^ 2) (h₁ : ∀ n, Even n → f n = n ^ 2 - 4 * n - 1) :"
        " f 3 = -4 := by grind only [even_iff_two_dvd]",
        "example (f : ℤ → ℤ) (h₁ : ∀ n, Even n → f n = 0) : f 3 = 0 := by grind only [even_iff_two_dvd]",
        # the wrong value
        "example (f : ℤ → ℤ) (h₀ : ∀ n, Odd n → f n = n ^ 2) (h₁ : ∀ n, Even n → f n = n ^ 2 - 4 * n - 1) :"
        " f 4 = 0 := by grind only [even_iff_two_dvd]",
        # without the lemma, `Even 4` is not known
        "example (f : ℤ → ℤ) (h₁ : ∀ n, Even n → f n = n ^ 2 - 4 * n - 1) : f 4 = -1 := by grind",
        # `√x * √x = x` needs `0 ≤ x`, which nothing here gives
        "example (x : ℝ) (h : Real.sqrt x = 3) : x = 9 := by grind only [Real.mul_self_sqrt]",
        "example (y : ℝ) (h₀ : 0 ≤ 19 + 3 * y) (h₁ : Real.sqrt (19 + 3 * y) = 7) : y = 11 := by\n"
        "  grind only [Real.mul_self_sqrt]",
        # `a (n + 2)` does not match `a 1`, and nothing relates a 1 to a 0
        "example (a : ℕ → ℝ) (h : ∀ n, a (n + 2) = a n) : a 1 = a 0 := by grind",
        "example (a : ℕ → ℝ) (h₀ : ∀ n, a (n + 2) - a (n + 1) = a (n + 1) - a n) (h₁ : a 1 = 2 / 3)\n"
        "    (h₂ : a 9 = 4 / 5) : a 5 = 3 / 4 := by grind",
    ],
)
def test_ematching_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


def test_instance_chains_stop_at_lean_limits(backend: SimBackend) -> None:
    # a short chain is found; a chain longer than `gen := 8` from both ends is not (Lean's limit)
    assert _proves(backend, "example (a : ℕ → ℝ) (h : ∀ n, a (n + 1) = a n) : a 4 = a 0 := by grind")
    assert not _proves(backend, "example (a : ℕ → ℝ) (h : ∀ n, a (n + 1) = a n) : a 20 = a 0 := by grind")


def test_a_local_hypothesis_is_no_parameter(backend: SimBackend) -> None:
    """Lean's ``processParam`` (src/Lean/Elab/Tactic/Grind/Param.lean): a name that is a local and no
    global constant is an error, since grind uses the local context anyway."""
    r = backend.check("example (x : ℝ) (h : 2 * x = 4) : x = 2 := by grind only [h]", header=HEADER)
    assert not r.proved
    assert "redundant parameter `h`" in r.messages_text()
    assert _proves(backend, "example (x : ℝ) (h : 2 * x = 4) : x = 2 := by grind")


def test_congruence_relates_propositions(backend: SimBackend) -> None:
    # congruence closure (grind's E-graph): `a = b` makes `P a` and `P b` one proposition
    assert _proves(backend, "example (a b : ℕ) (P : ℕ → Prop) (h : a = b) (hp : P a) : P b := by grind")
    assert not _proves(
        backend, "example (a b : ℕ) (P : ℕ → Prop) (h : a = b + 1) (hp : P a) : P b := by grind"
    )
    assert not _proves(backend, "example (a b : ℕ) (P : ℕ → Prop) (hp : P a) : P b := by grind")


# tests/lean/run/grind_field_div.lean at leanprover/lean4 019ea2a74be6 (lines 3-63): grind on `[Field α]`
# (with `[IsCharP α 0]` where stated); ℝ is a field of characteristic 0, and grind runs the same modules there
# (and more: the linarith module), so these hold of Lean's grind at ℝ
@pytest.mark.parametrize(
    "code",
    [
        "example (a b c : ℝ) : a / 3 = b → c = a / 3 → a / 2 + a / 2 = b + 2 * c := by grind",
        "example (a b : ℝ) : b = 0 → (a + a) / 0 = b := by grind",
        "example (a : ℝ) : a⁻¹⁻¹ = a := by grind",
        "example (a : ℝ) : a / 2 + a / 3 = 5 * a / 6 := by grind",
        "example (a b : ℝ) : a ≠ 0 → a / (a / b) = b := by grind",
        "example (x : ℝ) : x ≠ 0 → (4 / x)⁻¹ * ((3 * x ^ 3) / x) ^ 2 * ((1 / (2 * x))⁻¹) ^ 3 = 18 * x ^ 8 := by grind",
        "example (a : ℝ) : 1 / a + 1 / (2 * a) = 3 / (2 * a) := by grind",
        "example (a b : ℝ) : 2 * b - a = a + b → 1 / a + 1 / (2 * a) = 3 / b := by grind",
        "example {x y z w : ℝ} : x / y = z / w → y ≠ 0 → w ≠ 0 → x * w = z * y := by grind",
        "example (a : ℝ) : a = 0 → a ≠ 1 - a := by grind",
    ],
)
def test_field_normalisation_as_grind_field_div_records(backend: SimBackend, code: str) -> None:
    assert _proves(backend, code)


@pytest.mark.parametrize(
    "code",
    [
        # each needs the non-zero hypothesis it drops, or states a wrong value
        "example {x y z w : ℝ} : x / y = z / w → w ≠ 0 → x * w = z * y := by grind",
        "example (a b : ℝ) : a / (a / b) = b := by grind",
        "example (x : ℝ) : x ≠ 0 → (4 / x)⁻¹ * ((3 * x ^ 3) / x) ^ 2 = 9 * x ^ 5 := by grind",
        "example (a b : ℝ) : 2 * b - a = a + b → 1 / a + 1 / (2 * a) = 2 / b := by grind",
    ],
)
def test_field_normalisation_attacks(backend: SimBackend, code: str) -> None:
    assert not _proves(backend, code)


def test_grind_has_no_mathlib_norm_num(backend: SimBackend) -> None:
    # grind is Lean core's: its linarith module has none of Mathlib's linarith preprocessing (the
    # `cancelDenoms` step that runs norm_num's extensions), so `√1000000` stays an atom for it, where
    # Mathlib's `linarith` evaluates it (SATP's mathd_algebra_208, `simp_all only [one_div]; linarith`)
    stmt = "example : Real.sqrt 1000000 - 1000000 ^ ((1 : ℝ) / 3) = 900 := by\n  "
    assert not _proves(backend, stmt + "grind only")
    assert _proves(backend, stmt + "linarith")
