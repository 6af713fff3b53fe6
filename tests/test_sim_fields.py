"""Mathlib's ``cancel_denoms``, the August 2025 ``field_simp`` and conversion mode, as Mathlib implements them.

Each test names the record it follows (a line of Mathlib's ``MathlibTest/`` file at the commit the corpus
cites) or the source it implements, and attacks the verdict with a statement that passes only if the
simulator is stronger than Lean's tactic: a denominator that may be zero, a false comparison, a side
condition missing from the context.

Sources: ``Mathlib/Tactic/CancelDenoms/Core.lean`` (mathlib4 52ff0f1e79f3), records
``MathlibTest/cancel_denoms.lean`` at 1efdf0f9eba8; ``Mathlib/Tactic/FieldSimp.lean`` (52ff0f1e79f3) and
``Mathlib/Tactic/FieldSimp/Discharger.lean`` (1efdf0f9eba8), records ``MathlibTest/FieldSimp.lean`` at
c5da5641a9ca; Lean core's ``Lean/Elab/Tactic/Conv/Basic.lean`` and Mathlib's conv ``ring``, records
``MathlibTest/ring.lean`` at e22e28d7071c.
"""

from __future__ import annotations

import pytest
from mathlib_header import MathlibSimBackend


@pytest.fixture(scope="module")
def sim() -> MathlibSimBackend:
    return MathlibSimBackend()


def run(sim: MathlibSimBackend, code: str) -> tuple[str, str]:
    """The status and the first error's text."""
    r = sim.check(code)
    errors = [m.data for m in r.messages if m.severity == "error"]
    return r.status, errors[0] if errors else ""


def goal_after(sim: MathlibSimBackend, code: str) -> str:
    """The last line of the unsolved goal the code leaves (the target, or the hypothesis asked for)."""
    status, err = run(sim, code)
    assert status == "error" and err.startswith("unsolved goals"), err
    return err


# ------------------------------------------------------------------------------------- cancel_denoms
# MathlibTest/cancel_denoms.lean (1efdf0f9eba8): every example continues with `exact h` / `assumption`, so
# the shape cancel_denoms leaves is part of the record.

RECORDED = [
    ("(a b c : ℚ) (h : a / 5 + b / 4 < c) : 4*a + 5*b < 20*c", "cancel_denoms at h\n  exact h"),  # line 81
    ("(a : ℚ) (h : a > 0) : a / 5 > 0", "cancel_denoms\n  exact h"),  # line 85
    (
        "(a b c d : ℚ) (h : a + b = c) : a/5 + d*(b/4) = c - 4*a/5 + b*2*d/8 - b",
        "cancel_denoms\n  rw [← h]\n  ring",
    ),
    (
        "(a b c d : ℚ) (h : 2 * (4 * a + d * 5 * b) ≠ (40 * c - 32 * a + b * 2 * 5 * d - 40 * b)) :"
        " a/5 + d*(b/4) ≠ c - 4*a/5 + b*2*d/8 - b",
        "cancel_denoms\n  assumption",
    ),  # line 94
    ("(a : ℚ) (h : 27 ≤ (a + 3) ^ 3) : 1 ≤ (a / 3 + 1) ^ 3", "cancel_denoms\n  assumption"),  # line 99
    ("(a : ℚ) (h : a > 2) : 1 < 2⁻¹ * a", "cancel_denoms\n  assumption"),  # line 103
    ("(a b c : ℚ) (h : 6 * b = a⁻¹ * 3 + c * 2) : b = a⁻¹ * 2⁻¹ + c * 3⁻¹", "cancel_denoms\n  assumption"),
    ("(a b c : ℚ) (h : a * 5 + b * 6 = 30 * c) : a * 2⁻¹ * 3⁻¹ + b * 5⁻¹ = c", "cancel_denoms\n  assumption"),
    ("(a b : ℚ) (h : 5 * a ^ 2 + 4 * b ^ 3 = 0) : a ^ 2 / 4 + b ^ 3 / 5 = 0", "cancel_denoms\n  assumption"),
    (
        "(a b c : ℚ) (h : 5 * a ^ 3 * b ^ 2 = 72 * c) : (a / 2) ^ 3 * (b / 3) ^ 2 = c / 5",
        "cancel_denoms\n  assumption",
    ),
    (
        "(a c : ℚ) (h : (5 * a ^ 3 + 8) ^ 2 = 1600 * c) : ((a / 2) ^ 3 + 1 / 5) ^ 2 = c",
        "cancel_denoms\n  assumption",
    ),
    # lines 26, 34, 38, 42 (stated over a linear ordered field there; ℚ here)
    ("(a : ℚ) (h : 0 < a) : a / (3/2) > 0", "cancel_denoms\n  exact h"),
    ("(a : ℚ) (h : a < 0) : 0 < a / -1", "cancel_denoms\n  exact h"),
    ("(a b : ℚ) (h : -a < 2 * b) : a / -2 < b", "cancel_denoms\n  exact h"),
    ("(a : ℚ) (h : a < 6 * a) : a / 2 / 3 < a", "cancel_denoms\n  exact h"),
]


@pytest.mark.parametrize(("stmt", "proof"), RECORDED)
def test_cancel_denoms_leaves_the_recorded_shape(sim: MathlibSimBackend, stmt: str, proof: str) -> None:
    assert run(sim, f"example {stmt} := by\n  {proof}") == ("proved", "")


@pytest.mark.parametrize(("stmt", "proof"), RECORDED)
def test_cancel_denoms_alone_leaves_the_goal_open(sim: MathlibSimBackend, stmt: str, proof: str) -> None:
    # the record goes on after cancel_denoms, so it closes none of these goals (norm_num does not use h)
    first = proof.split("\n")[0]
    assert run(sim, f"example {stmt} := by\n  {first}")[0] == "error"


def test_cancel_denoms_closes_what_norm_num_then_closes(sim: MathlibSimBackend) -> None:
    # lines 11 and 77: the trailing `norm_num [← mul_assoc]` decides the numeral comparison
    assert run(sim, "example : ¬ (4 / 2 : ℚ) = 3 := by cancel_denoms")[0] == "proved"
    assert run(sim, "example : (1 : ℚ) > 0 := by cancel_denoms")[0] == "proved"


def test_cancel_denoms_shape_of_a_hypothesis(sim: MathlibSimBackend) -> None:
    err = goal_after(sim, "example (a b c : ℚ) (h : a / 5 + b / 4 < c) : False := by\n  cancel_denoms at h")
    assert "h : 4 * a + 5 * b < 20 * c" in err
    err = goal_after(
        sim, "example (a b c d : ℚ) : a/5 + d*(b/4) ≠ c - 4*a/5 + b*2*d/8 - b := by\n  cancel_denoms"
    )
    # the closing `norm_num [← mul_assoc]` uses the default simp set, whose `ne_eq` writes `≠` as `¬ =` (SATP's
    # `simp_all?`-made minimal proofs name it, e.g. mathd_algebra_270's `simp_all only [ne_eq, one_div]`);
    # MathlibTest/cancel_denoms.lean closes this goal with `assumption`, which holds either way
    assert err.endswith("⊢ ¬2 * (4 * a + d * 5 * b) = 40 * c - 32 * a + b * 2 * 5 * d - 40 * b")


def test_cancel_denoms_leaves_a_variable_denominator(sim: MathlibSimBackend) -> None:
    # findCancelFactor: a denominator that is not a natural numeral is an atom (it may be zero)
    code = "example (a b : ℚ) (h : 0 < a) : a / b > 0 := by\n  cancel_denoms\n  exact h"
    assert run(sim, code)[0] == "error"
    assert goal_after(sim, "example (a b : ℚ) : a / b > 0 := by\n  cancel_denoms").endswith("⊢ 0 < a / b")


def test_cancel_denoms_on_a_false_comparison(sim: MathlibSimBackend) -> None:
    assert run(sim, "example : (1 : ℚ) / 2 > 1 := by cancel_denoms")[0] == "error"
    assert (
        run(sim, "example (a : ℚ) (h : 0 < a) : a / 2 > a := by\n  cancel_denoms\n  linarith")[0] == "error"
    )
    # a false hypothesis: norm_num at h turns it into False, which closes the goal (as Lean's does)
    assert run(sim, "example (h : (1 : ℚ) / 2 > 1) : False := by cancel_denoms at h")[0] == "proved"


@pytest.mark.parametrize(
    ("code", "first_line"),
    [
        ("example (a : ℚ) : a / 0 > 1 := by cancel_denoms", "CancelDenoms.derive failed to normalize a / 0."),
        ("example (a : ℕ) : a / 2 > 1 := by cancel_denoms", "failed to synthesize"),  # no `Field ℕ`
        ("example (a b : ℚ) : a ∣ b := by cancel_denoms", "cannot kill factors"),
        ("example (p : Prop) (hp : p) : p := by cancel_denoms at *", "Failed to cancel any denominators"),
        ("example (a : ℚ) : a / 2 < 1 := by cancel_denoms at h", "unknown hypothesis 'h'"),
    ],
)
def test_cancel_denoms_errors(sim: MathlibSimBackend, code: str, first_line: str) -> None:
    status, err = run(sim, code)
    assert status == "error" and err.splitlines()[0] == first_line


def test_cancel_denoms_needs_mathlib(sim: MathlibSimBackend) -> None:
    from lean_gym.backends import SimBackend

    r = SimBackend().check("example : True := by\n  cancel_denoms")
    assert r.status == "error" and r.messages[0].data == "unknown tactic"


# ---------------------------------------------------------------------------------------- field_simp
# MathlibTest/FieldSimp.lean (c5da5641a9ca), "Documenting field_simp normal form": each `P (e)` example
# prints (#guard_msgs) the normal form the tactic leaves.

NORMAL_FORMS = [
    ("", "x ^ 0", "P 1"),  # line 40
    ("", "x ^ 1", "P x"),  # 44
    ("", "x ^ 2", "P (x ^ 2)"),  # 52: a power written anew counts as a change
    ("", "x ^ 1 * x ^ 2", "P (x ^ 3)"),
    ("", "x ^ 3 * x ^ 42", "P (x ^ 45)"),
    ("", "x⁻¹", "P (1 / x)"),  # 78
    ("", "x * x⁻¹", "P (x / x)"),  # 82: x may be zero, so no cancellation
    ("", "x⁻¹ * x", "P (x / x)"),
    ("", "x * x * x⁻¹", "P x"),  # 90
    ("", "x / x", "P (x / x)"),
    ("", "x ^ 2 * x⁻¹", "P x"),  # 98
    ("", "x / x ^ 4", "P (1 / x ^ 3)"),
    ("(hx : x ≠ 0)", "x * x⁻¹", "P 1"),  # 130: cancelled with the side condition
    ("(hx : x ≠ 0)", "x ^ 17 / x ^ 17", "P 1"),
    ("", "x - x", "P (x * (1 - 1))"),  # 164: no ring arithmetic
    ("", "-x + x", "P (x * (-1 + 1))"),
    ("", "(2 - 2) * x", "P (2 * (1 - 1) * x)"),  # 176: numerals are atoms
    ("", "x * y", "P (x * y)"),  # 190
    ("", "(x * y) / (y * x)", "P (x * y / (x * y))"),
    ("", "x * y + y * x", "P (x * y * (1 + 1))"),
    ("", "x * y + x * 1", "P (x * (y + 1))"),
    ("", "x / -y", "P (-(x / y))"),
    ("(hx : x + 1 ≠ 0)", "x / (x + 1) + y / (y + 1)", "P ((x + (x + 1) * y / (y + 1)) / (x + 1))"),  # 234
    (
        "(hx : 0 < x + 1) (hy : 0 < y + 1)",
        "x / (x + 1) + y / (y + 1)",
        "P ((x * (y + 1) + (x + 1) * y) / ((x + 1) * (y + 1)))",
    ),  # 238: positivity discharges
    ("", "x / (y / x)", "P (x ^ 2 / y)"),
    ("", "x ^ 1 * y * x ^ 2 * y⁻¹", "P (x ^ 3 * y / y)"),  # 258
    ("(hy : y ≠ 0)", "x ^ 1 * y * x ^ 2 * y⁻¹", "P (x ^ 3)"),
    ("(hx : x ≠ 0)", "x / (x * y + x * z)", "P (1 / (y + z))"),  # 288
    ("", "x / (x * y + x * z)", "P (x / (x * (y + z)))"),
    ("", "2 * x - x - x", "P (x * (2 - 1 - 1))"),  # 304
    ("", "0 * x * y + 0", "P (0 * (x * y + 1))"),  # 323: no special handling of zero
    ("", "(x * y - y * x) * z", "P (x * y * (1 - 1) * z)"),
    ("", "-(-x)", "P x"),  # 332
    ("", "0 -(0 + (-x))", "P (0 - (0 + -x))"),  # 337: prints as before, but written anew
]


@pytest.mark.parametrize(("hyps", "expr", "shown"), NORMAL_FORMS)
def test_field_simp_normal_form(sim: MathlibSimBackend, hyps: str, expr: str, shown: str) -> None:
    err = goal_after(sim, f"example {{P : ℚ → Prop}} {{x y z : ℚ}} {hyps} : P ({expr}) := by field_simp")
    assert err.splitlines()[-1] == f"⊢ {shown}"


@pytest.mark.parametrize("expr", ["1", "x", "x + y"])  # lines 34, 48, 186
def test_field_simp_no_progress(sim: MathlibSimBackend, expr: str) -> None:
    code = f"example {{P : ℚ → Prop}} {{x y : ℚ}} : P ({expr}) := by field_simp"
    assert run(sim, code) == ("error", "field_simp made no progress on goal")


@pytest.mark.parametrize(
    ("stmt", "shown"),
    [
        ("{x y z : ℚ} (hy : y ≠ 0) (hz : z ≠ 0) : x / y = x / z", "⊢ x * z = x * y"),  # line 417
        ("{x y z : ℚ} (hy : y ≠ 0) (hz : z ≠ 0) (hx : x ≠ 0) : x / y = x / z", "⊢ z = y"),  # 422
        ("{x y z : ℚ} : x / y ^ 2 = z / y", "⊢ x / y ^ 2 = z / y"),  # 436: nothing proved non-zero
        (
            "(x y : ℚ) (hy : y + 1 ≠ 0) : 2 * x / (y + 1) = x",
            "⊢ 2 * x = x * (y + 1)",
        ),  # 389 (a Semifield there)
    ],
)
def test_field_simp_equations(sim: MathlibSimBackend, stmt: str, shown: str) -> None:
    assert goal_after(sim, f"example {stmt} := by field_simp").splitlines()[-1] == shown


def test_field_simp_at_a_hypothesis(sim: MathlibSimBackend) -> None:
    # line 400: guard_hyp h : x * w = y * z; line 427: `x * y = x * z` stays, and that is no error
    err = goal_after(
        sim,
        "example {x y z w : ℚ} (h : x / y = z / w) (hy : y ≠ 0) (hw : w ≠ 0) : False := by field_simp at h",
    )
    assert "h : x * w = y * z" in err
    err = goal_after(sim, "example {x y z : ℚ} (h : x * y = x * z) : False := by field_simp at h")
    assert "h : x * y = x * z" in err


@pytest.mark.parametrize(
    "code",
    [
        "example {x y : ℚ} (h : x + y ≠ 0) : x / (x + y) + y / (x + y) = 1 := by field_simp",  # line 479
        "example {x : ℚ} (hx : x ≠ 0) : x * x⁻¹ = 1 := by field_simp",  # 480
        "example {x : ℚ} : x ^ 2 * x⁻¹ = x := by field_simp",  # 481: true at 0 too, no side condition
        "example {x y : ℚ} (hx : y ≠ 0) {f : ℚ → ℚ} (hf : ∀ t, f t ≠ 0) :\n"
        "    f (x * y / y) / f (x / y * y) = 1 := by\n  field_simp [hf]",  # 489: recursion into f's argument
        "example {x y z : ℚ} (hx : y ≠ 0) {f : ℚ → ℚ} (hf : ∀ t, f t ≠ 0) :\n"
        "    f (y * x / (y ^ 2 / z)) / f (z / (y / x)) = 1 := by\n  field_simp [hf]",  # 498
        "example (n : ℕ) (T : ℝ) {hT : T ≠ 0} (hn : n ≠ 0) {a : ℝ} :\n"
        "    (2 * a / T * (n * (T / 2 / n))) = a := by\n  field_simp",  # 599: the discharger through a cast
        "example {x y z : ℚ} : (x / y ^ 2 = z / y) ↔ (x * y = z * y ^ 2) := by\n"
        "  obtain rfl | hy := eq_or_ne y 0\n  · simp\n  field_simp",  # 442: both sides become one, `iff_self`
    ],
)
def test_field_simp_closes_recorded_identities(sim: MathlibSimBackend, code: str) -> None:
    assert run(sim, code) == ("proved", "")


@pytest.mark.parametrize(
    "code",
    [
        # the side condition missing from the context: x / x stays (line 94), so nothing closes
        "example {x : ℚ} : x * x⁻¹ = 1 := by field_simp",
        "example {x y : ℚ} : x / (x + y) + y / (x + y) = 1 := by field_simp",
        # without [hf] no discharger proves f _ ≠ 0 (hypotheses under ∀ are not assumptions)
        "example {x y : ℚ} (hx : y ≠ 0) {f : ℚ → ℚ} (hf : ∀ t, f t ≠ 0) :\n"
        "    f (x * y / y) / f (x / y * y) = 1 := by\n  field_simp",
        # line 581: positivity takes no help from the arguments, and simp [hK x] proves `0 < x + 1`, not `≠`
        "example (hK : ∀ ξ : ℚ, 0 < ξ + 1) (x : ℚ) : 1 / (x + 1) = 5 := by field_simp [hK x]",
        # a false equation: field_simp never decides it
        "example {x : ℚ} (hx : x ≠ 0) : x / x = 2 := by field_simp",
        # `field_simp; ring` of MathlibTest/ring.lean needs the ring step: field_simp alone leaves it open
        "example (x : ℝ) (hx : x ≠ 0) : 2 * x ^ 3 * 2 / (24 * x) = x ^ 2 / 6 := by field_simp",
    ],
)
def test_field_simp_is_not_stronger(sim: MathlibSimBackend, code: str) -> None:
    assert run(sim, code)[0] == "error"


def test_field_simp_positivity_uses_a_hypothesis_in_context(sim: MathlibSimBackend) -> None:
    # line 584: `have := hK x` brings `0 < x + 1` out for positivity; the goal becomes `1 = (x + 1) * 5`
    code = "example (hK : ∀ ξ : ℚ, 0 < ξ + 1) (x : ℚ) : 1 / (x + 1) = 5 := by\n  have := hK x\n  field_simp"
    assert goal_after(sim, code).splitlines()[-1] == "⊢ 1 = (x + 1) * 5"


def test_field_simp_custom_discharger(sim: MathlibSimBackend) -> None:
    # line 539: a custom discharger ignores the argument list, with Lean's warning
    code = (
        "example (x : ℚ) (h₀ : x ≠ 0) :\n    (4 / x)⁻¹ * ((3 * x ^ 3) / x) ^ 2 * ((1 / (2 * x))⁻¹) ^ 3 = 18 * x ^ 8 := by\n"
        "  field_simp (discharger := simp; assumption) [h₀]\n  ring"
    )
    r = sim.check(code)
    assert r.status == "proved"
    assert [m.data for m in r.messages if m.severity == "warning"] == [
        "Custom `field_simp` dischargers do not make use of the `field_simp` arguments list"
    ]


# ----------------------------------------------------------------------------------------------- conv
# MathlibTest/ring.lean (e22e28d7071c), lines 111-169: Mathlib's conv `ring` is
# `first | discharge => ring1 | try_this ring_nf`; Lean's `conv` ends with `try (with_reducible rfl)`.


@pytest.mark.parametrize(
    ("code", "info"),
    [
        ("example : 22 + 7 * 4 + 3 * 8 = 0 + 7 * 4 + 46 := by\n  conv => ring\n  trivial", False),  # 111
        (
            "example : (22 + 7 * 4 + 3 * 8 = 0 + 7 * 4 + 47) = (74 = 75) := by\n  conv => ring\n  trivial",
            True,
        ),
        ("example (x : ℕ) : 22 + 7 * x + 3 * 8 = 0 + 7 * x + 46 := by\n  conv => ring\n  trivial", False),
        (
            "example (x : ℕ) : (22 + 7 * x + 3 * 8 = 0 + 7 * x + 46 + 1)\n"
            "                    = (7 * x + 46 = 7 * x + 47) := by\n  conv => ring\n  trivial",
            True,
        ),  # 132
        (
            "example {n : ℝ} :\n    (n + 1 / 2) ^ 2 * (n + 1 + 1 / 3) = 1 / 3 + n * (19 / 12) + n ^ 2 * (7 / 3) + n ^ 3 := by\n"
            "  conv_lhs => ring_nf",
            False,
        ),  # 169: the left side becomes the right one, and conv's rfl closes the goal
    ],
)
def test_conv_ring_records(sim: MathlibSimBackend, code: str, info: bool) -> None:
    r = sim.check(code)
    assert r.status == "proved"
    assert ([m.data for m in r.messages if m.severity == "info"] == ["Try this: ring_nf"]) == info


def test_conv_ring_leaves_true_to_prove(sim: MathlibSimBackend) -> None:
    # the record needs `trivial` after `conv => ring`: the target is `True`, which rfl does not close
    err = goal_after(sim, "example : 22 + 7 * 4 + 3 * 8 = 0 + 7 * 4 + 46 := by\n  conv => ring")
    assert err.splitlines()[-1] == "⊢ True"


def test_conv_on_a_false_equation(sim: MathlibSimBackend) -> None:
    # ring1 fails, ring_nf normalises the sides, and the goal stays (false, so nothing proves it)
    code = "example (x : ℕ) : x + x = 3 * x := by\n  conv => ring"
    assert run(sim, code)[0] == "error"
    code = "example (x : ℕ) : x + x = 3 * x := by\n  conv_lhs => ring_nf\n  rfl"
    assert run(sim, code)[0] == "error"


@pytest.mark.parametrize(
    ("code", "first_line"),
    [
        (
            "example (a b : ℕ) (h : a = b) : a + 0 = b := by\n  conv => rw [h]",
            "`rw` inside `conv` is outside",
        ),
        (
            "example (a b : ℕ) (h : a = b) : a = b := by\n  conv at h => ring_nf",
            "`at h` inside `conv` is outside",
        ),
        ("example (p : Prop) (hp : p) : p := by\n  conv_lhs => ring_nf", "invalid 'lhs' conv tactic"),
        ("example (a : ℕ) : a = a + 0 := by\n  conv => arg 3", "invalid 'arg' conv tactic"),
    ],
)
def test_conv_errors(sim: MathlibSimBackend, code: str, first_line: str) -> None:
    status, err = run(sim, code)
    assert status == "error" and err.startswith(first_line), err


def test_conv_navigation(sim: MathlibSimBackend) -> None:
    # `rhs` then `arg 1`: only `x * 1` is rewritten; the left side stays as written
    code = "example (x : ℕ) : x * 1 = x * 1 + 0 := by\n  conv =>\n    rhs\n    arg 1\n    ring_nf"
    assert goal_after(sim, code).splitlines()[-1] == "⊢ x * 1 = x + 0"
    code = "example (x : ℕ) : x * 1 = x * 1 + 0 := by\n  conv => enter [2, 1]; ring_nf"
    assert goal_after(sim, code).splitlines()[-1] == "⊢ x * 1 = x + 0"
    # the sides made equal: conv's closing `rfl` proves the goal
    assert run(sim, "example (x : ℕ) : x + 0 = x * 1 + 0 := by\n  conv => enter [2, 1]; ring_nf") == (
        "proved",
        "",
    )


# ------------------------------------------------------------------------------------------ push_neg
# MathlibTest/push_neg.lean (13ecfa732c2c), line 143 under `set_option push_neg.use_distrib true`:
# `¬(p ∧ q)` becomes `¬p ∨ ¬q` (`not_and_or`); without the option it is `p → ¬q` (`not_and`).


def test_push_neg_use_distrib(sim: MathlibSimBackend) -> None:
    body = "example {p q : Prop} (h : ¬ p ∨ ¬ q) : ¬ (p ∧ q) := by\n  push_neg\n  exact h"
    assert run(sim, "set_option push_neg.use_distrib true in\n" + body) == ("proved", "")
    assert run(sim, body)[0] == "error"
    imp = "example {p q : Prop} (h : p → ¬ q) : ¬ (p ∧ q) := by\n  push_neg\n  exact h"
    assert run(sim, imp) == ("proved", "")
    assert run(sim, "set_option push_neg.use_distrib true in\n" + imp)[0] == "error"


# ------------------------------------------------------------------------------------ interval_cases
# MathlibTest/interval_cases.lean, lines 84 and 89: `interval_cases h : n % 3` / `interval_cases n % 3` on a
# term that is not a variable: its bounds from the hypotheses, one goal per value with the term replaced.


def test_interval_cases_on_a_term(sim: MathlibSimBackend) -> None:
    code = "example (n : ℕ) (w₁ : n % 3 < 1) : n % 3 = 0 := by\n  interval_cases h : n % 3\n  · rfl"
    assert run(sim, code) == ("proved", "")
    assert run(sim, "example (n : ℕ) (w₁ : n % 3 < 1) : n % 3 = 0 := by\n  interval_cases n % 3\n  rfl") == (
        "proved",
        "",
    )
    # two values: the second case `1 = 0` is false, and nothing closes it
    err = goal_after(
        sim, "example (n : ℕ) (w₁ : n % 3 < 2) : n % 3 = 0 := by\n  interval_cases h : n % 3\n  · rfl"
    )
    assert "h : n % 3 = 1" in err and err.endswith("⊢ 1 = 0")
    status, err = run(sim, "example (n : ℕ) : n % 3 = 0 := by\n  interval_cases n % 3")
    assert status == "error" and err == "interval_cases failed: could not find upper bound on n % 3"
