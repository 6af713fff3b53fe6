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
    assert err.endswith("⊢ 2 * (4 * a + d * 5 * b) ≠ 40 * c - 32 * a + b * 2 * 5 * d - 40 * b")


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
