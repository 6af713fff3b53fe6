"""Arguments Lean elaborates postponed: ``_`` holes that the use fixes, and proofs whose ``_`` stay open.

Records: Mathlib's ``MathlibTest/positivity.lean`` (leanprover-community/mathlib4 at
04a91371ee317ca34154bc62dd2873e0a583e78f, line 532: ``example : 0 ≤ 0 := by apply le_trans _ (le_refl _);
positivity`` compiles). Algorithm: Lean core's ``MVarId.apply`` (``src/Lean/Meta/Tactic/Apply.lean``: the
term's unassigned metavariables become goals after the new ones) and its unifier, which fixes the argument of
``le_refl _`` from the expected type ``?b ≤ ?c`` and then from the goal. The simulator unifies the open
metavariables (``unify.match`` with ``flex``) and re-checks the argument's instantiated proposition against
its expected type before anything is closed.
"""

from __future__ import annotations

import pytest

from lean_gym.sim.commands import run_commands
from lean_gym.sim.elab import Env
from lean_gym.sim.memo import request
from lean_gym.sim.unify import fresh_mvar, instantiate, match


def _errors(code: str) -> list[str]:
    with request():
        out = run_commands(f"import Mathlib\n\n{code}", Env(), fresh=True)
    assert not out.unread, out.unread[0].data
    return [m.data for m in out.messages if m.severity == "error"]


@pytest.mark.parametrize(
    "code",
    [
        # positivity.lean:532 (with the file's `open Nat`, `0 ≤ 0` is at ℕ)
        "example : (0 : ℕ) ≤ 0 := by apply le_trans _ (le_refl _); positivity",
        "example (x : ℝ) (h : 0 ≤ x) : 0 ≤ x := by apply le_trans _ (le_refl _); exact h",
        "example (x : ℝ) (h : 0 ≤ x) : 0 ≤ x := by apply le_trans h (le_refl _)",
        # a `_` proof argument becomes a goal
        "example (x y : ℝ) (h : 0 ≤ x) (h2 : x ≤ y) : 0 ≤ y := by apply le_trans h _; exact h2",
        "example (x y : ℝ) (h : 0 ≤ x) (h2 : x ≤ y) : 0 ≤ y := by apply le_trans _ h2; exact h",
        # term mode postpones the same way
        "example (x : ℝ) (h : 0 ≤ x) : 0 ≤ x := le_trans h (le_refl _)",
        # a lemma's `<` at a type still unknown unifies with ℕ's and ℤ's `<` as written
        "example (x : ℕ) (h : 0 < x) : 0 < x := lt_of_lt_of_le h (le_refl _)",
        "example (x y : ℤ) (h : y < x) (h2 : x ≤ x) : y < x := lt_of_lt_of_le h h2",
    ],
)
def test_open_arguments_prove_what_lean_proves(code: str) -> None:
    assert _errors(code) == []


@pytest.mark.parametrize(
    "code",
    [
        # the hole's goal is what the goal fixed: `0 ≤ x`, which `1 ≤ x` does not prove
        "example (x : ℝ) (h : 1 ≤ x) : 0 ≤ x := by apply le_trans _ (le_refl _); exact h",
        # `le_refl _` proves `?a ≤ ?a`: it cannot stand for `x ≤ x + 1`
        "example (x : ℝ) (h : 0 ≤ x) : 0 ≤ x + 1 := by apply le_trans h (le_refl _)",
        "example (x : ℝ) (h : 0 ≤ x) : 0 ≤ x + 1 := le_trans h (le_refl _)",
        "example (x y : ℝ) (h : 0 ≤ x) (h2 : x ≤ y) : 0 ≤ y := by apply le_trans _ (le_refl _); exact h2",
        # nothing fixes the middle term: the simulator leaves no metavariable in a goal
        "example (x y : ℝ) (h : 0 ≤ x) (h2 : x ≤ y) : 0 ≤ y := by apply le_trans _ _; exact h",
        # false statements of the shapes above
        "example (x : ℕ) (h : 0 < x) : 1 < x := lt_of_lt_of_le h (le_refl _)",
        "example (x y : ℤ) (h : y < x) (h2 : x ≤ x) : y ≤ x - 1 := lt_of_lt_of_le h h2",
        # a lemma over a field does not hold at ℤ, however its type is fixed (here by a projection's base)
        "example (a b c : ℤ) (hb : b ≠ 0) (h : a / b = c) : a = c * b := (div_eq_iff hb).1 h",
        "example (a b c : ℤ) (hb : 0 < b) (h : a / b ≤ c) : a ≤ c * b := (div_le_iff₀ hb).1 h",
    ],
)
def test_open_arguments_are_not_stronger(code: str) -> None:
    assert _errors(code) != []


def test_flex_unification_is_first_order_with_an_occurs_check() -> None:
    a, x = fresh_mvar("a"), fresh_mvar("x")
    nat = ("fvar", "n\x00000000000001")
    # `?a ≤ ?a + 1` against the open `?x ≤ n`: ?a := ?x, then ?x + 1 must be n — no
    asg: dict = {}
    pat = ("≤", "ℝ", a, ("+", "ℝ", a, ("num", "ℝ", 1)))
    assert not match(pat, ("≤", "ℝ", x, nat), asg, flex=frozenset({x[1]}))
    # an open metavariable never takes a value that mentions itself
    asg = {}
    one = ("num", "ℝ", 1)
    assert not match(("=", "ℝ", a, a), ("=", "ℝ", x, ("+", "ℝ", x, one)), asg, flex=frozenset({x[1]}))
    # `?a ≤ ?a` against `?x ≤ n`: both become n, through the chain ?a := ?x := n
    asg = {}
    assert match(("≤", "ℝ", a, a), ("≤", "ℝ", x, nat), asg, flex=frozenset({x[1]}))
    assert instantiate(a, asg) == nat and instantiate(x, asg) == nat
    # without `flex` the term's metavariables are rigid, as before
    asg = {}
    assert not match(("≤", "ℝ", nat, nat), ("≤", "ℝ", x, nat), asg)
