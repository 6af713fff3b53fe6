"""``min``/``max`` on ℕ/ℤ/ℚ/ℝ as Lean elaborates them, and the tactics that know them.

Records: Lean core's ``tests/lean/run/omega.lean`` (lines 349–358: ``splitMinMax`` on and off); Mathlib's
``MathlibTest/positivity.lean`` (lines 128–139, 329–344) and ``MathlibTest/Bound/bound.lean`` (lines
45–51), each compiling (or, where said, failing). Algorithms: omega's front end (``Int.min_def``,
``Int.ofNat_min``, ``analyzeAtom``'s ``Int.min_le_left``/``ite_disjunction`` in
``src/Lean/Elab/Tactic/Omega/``), Mathlib's ``evalMin``/``evalMax`` (``Mathlib/Tactic/Positivity/Basic.lean``)
and ``bound``'s ``min``/``max`` rules (``Mathlib/Tactic/Bound.lean``: norm, safe 4, unsafe 50% guesses).
"""

from __future__ import annotations

import pytest

from lean_gym.sim.commands import run_commands
from lean_gym.sim.elab import Env
from lean_gym.sim.memo import request

MATHLIB = "import Mathlib\n\n"


def _errors(code: str) -> list[str]:
    with request():
        out = run_commands(code, Env(), fresh=True)
    assert not out.unread, out.unread[0].data
    return [m.data for m in out.messages if m.severity == "error"]


NO_SPLIT = "(config := { splitMinMax := false })"


@pytest.mark.parametrize(
    "code",
    [
        f"example {{a : Int}} (_ : a < min a b) : False := by omega {NO_SPLIT}",  # omega.lean:349
        f"example {{a : Nat}} (_ : max a b < b) : False := by omega {NO_SPLIT}",  # omega.lean:352
        "example {a b : Nat} (_ : a = 7) (_ : b = 3) : min a b = 3 := by\n  omega",  # omega.lean:354
        "example {a b : Nat} (_ : a + b = 9) : (min a b) % 2 + (max a b) % 2 = 1 := by\n  omega",
        "example (a b : Int) : min a b = a ∨ min a b = b := by omega",
        "example (a b : Nat) : max a b = a + b - min a b := by omega",
        "example (a b : Int) : min a b ≤ max a b := by omega -splitMinMax",
    ],
)
def test_omega_min_max(code: str) -> None:
    assert _errors(code) == []


@pytest.mark.parametrize(
    "code",
    [
        # omega.lean:354, :358 without the split: the atoms only know their bounds
        f"example {{a b : Nat}} (_ : a = 7) (_ : b = 3) : min a b = 3 := by\n  omega {NO_SPLIT}",
        f"example {{a b : Nat}} (_ : a + b = 9) : (min a b) % 2 + (max a b) % 2 = 1 := by\n  omega {NO_SPLIT}",
        f"example (a b : Int) : min a b = a ∨ min a b = b := by omega {NO_SPLIT}",
        # the unsplit atom `min ↑a ↑b` is no cast: no sign
        f"example (a b : Nat) : 0 < min a b + 1 := by omega {NO_SPLIT}",
        # false statements
        "example (a b : Int) : min a b < a := by omega",
        "example (a b : Nat) : max a b = a := by omega",
        "example {a b : Nat} (_ : a = 7) (_ : b = 3) : max a b = 3 := by omega",
    ],
)
def test_omega_min_max_is_not_stronger(code: str) -> None:
    assert _errors(code) != []


def test_omega_refuses_options_it_does_not_model() -> None:
    errors = _errors("example (a : Nat) : a - a = 0 := by omega (config := { splitNatSub := false })")
    assert errors and "outside the simulator's Lean subset" in errors[0]


@pytest.mark.parametrize(
    "code",
    [
        "example {a b : ℚ} (ha : 0 < a) (hb : 0 ≤ b) : 0 ≤ min a b := by positivity",  # positivity.lean:128
        "example {a b : ℚ} (ha : a ≠ 0) (hb : 0 < b) : min a b ≠ 0 := by positivity",  # :132
        "example {a b : ℚ} (ha : 0 < a) : 0 < max a b := by positivity",  # :135
        "example {a b : ℚ} (ha : a ≠ 0) (hb : b ≠ 0) : max a b ≠ 0 := by positivity",  # :139
        "example {a b : ℤ} (ha : 3 < a) : 0 ≤ min a (b ^ 2) := by positivity",  # :329
        "example {b : ℤ} : 0 ≤ max (-3) (b ^ 2) := by positivity",  # :340
        "example {a b c : ℝ} (h : a ≤ c) : a ≤ max b c := by bound",  # bound.lean:45
        "example {a b c : ℝ} (h : b < c) : min a b < c := by bound",  # bound.lean:51
    ],
)
def test_positivity_and_bound_min_max(code: str) -> None:
    assert _errors(MATHLIB + code) == []


@pytest.mark.parametrize(
    "code",
    [
        # evalMin needs both arguments; evalMax's non-zero needs both non-zero
        "example {a b : ℚ} (ha : 0 < a) : 0 ≤ min a b := by positivity",
        "example {a b : ℚ} (ha : a ≠ 0) : max a b ≠ 0 := by positivity",
        "example {a b : ℚ} (ha : 0 ≤ a) (hb : 0 < b) : 0 < min a b := by positivity",
        # bound: a guess must be provable from the hypotheses
        "example {a b c : ℝ} (h : a ≤ c) : a ≤ min b c := by bound",
        "example {a b c : ℝ} (h : c < b) : min a b < c := by bound",
    ],
)
def test_positivity_and_bound_min_max_are_not_stronger(code: str) -> None:
    assert _errors(MATHLIB + code) != []


def test_min_max_elaborate_at_their_first_argument_type() -> None:
    # Lean's application elaborator: the argument types unify; a larger second one is a mismatch (refused)
    # a leaf of a relation at ℝ: `min a b` is elaborated at ℕ, then coerced as a whole (`↑(min a b)`)
    errors = _errors(MATHLIB + "example (a b : ℕ) : (0 : ℝ) < min a b := by positivity")
    assert errors and "`↑(min a b)`" in errors[0]
    with request():
        out = run_commands(MATHLIB + "example (a : ℕ) (x : ℝ) : min a x ≤ x := by simp", Env(), fresh=True)
    assert out.unread
