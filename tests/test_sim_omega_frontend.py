"""``omega`` reads its goal and hypotheses as Lean's frontend does, and is never stronger than it.

Lean's ``omega`` (``src/Lean/Elab/Tactic/Omega/Frontend.lean``, leanprover/lean4 at 01a688a4bc8e) first
turns the goal into ``False`` (``falseOrByContra``: ``¬p`` and ``p → q`` are introduced, any other ``p``
becomes the hypothesis ``¬p``), then reads each hypothesis with ``addFact``/``pushNot`` and refutes the
linear problem over ℤ. What it cannot read it drops: ``True``, ``False``, ``∀``, relations over other
types, and a disjunction whose left side yields no fact. Products are linear only when one side is a
constant; ``x ^ 2`` is an atom; ``b ^ (k + 1)`` with a numeral ``b`` is ``b * b ^ k``.
Each test names the part of that algorithm it attacks.
"""

from __future__ import annotations

import pytest

from lean_gym.sim.commands import run_commands
from lean_gym.sim.elab import Env
from lean_gym.sim.memo import request


def _errors(code: str) -> list[str]:
    with request():
        out = run_commands(code, Env(), fresh=True)
    assert not out.unread, out.unread[0].data
    return [m.data for m in out.messages if m.severity == "error"]


def proves(code: str) -> bool:
    return not _errors(code)


@pytest.mark.parametrize(
    "code",
    [
        # the goal `True` becomes the hypothesis `¬True`, which pushNot cannot use (omega.lean:9, :11, :43)
        "example (_ : (0 : Int) < (1 : Int)) : True := by omega",
        "example {x y : Int} (_ : 6 * x + 7 * y = 5) : True := by omega",
        "example (x : Nat) (h : x < 3) : True ∧ x < 5 := by omega",
        # a `False` hypothesis is not an arithmetic fact: omega does not use it
        "example (x : Nat) (h : False) : x = 7 := by omega",
        "example (h : False) : False := by omega",
        # a disjunction whose left side yields nothing is skipped when splitting (splitDisjunction)
        "example (P : Prop) (x : Int) (h : P ∨ x < 0) (hx : 0 ≤ x) (hp : ¬P) : False := by omega",
        "example (x : Int) (h : False ∨ x < 0) (hx : 0 ≤ x) : False := by omega",
        # ∀ hypotheses are rejected ("it's not an arrow")
        "example (f : Nat → Nat) (h : ∀ n : Nat, f n = 0) : f 3 = 0 := by omega",
        # a product of two non-constants is an atom, syntactically: x * y and y * x differ
        "example (x y : Nat) : x * y = y * x := by omega",
        "example (x y : Int) : x * (y + 1) = x * y + x := by omega",
        # x ^ 2 is an atom (no non-negativity for it over ℤ)
        "example (x : Int) (h : x ^ 2 < 0) : False := by omega",
        "example (x : Int) : x ^ 2 = x * x := by omega",
        # a definition is an atom: omega reads numerals only
        "def c : Nat := 5\n\nexample : c = 5 := by omega",
        # `↑(2 ^ n)` becomes the atom `(↑2) ^ n` (Int.ofNat_pow) and `↑x / ↑y` stays an atom: analyzeAtom
        # (OmegaM.lean, leanprover/lean4 at 02637a033e9d) records no sign for either, so `2 ^ n` may be
        # negative to omega (omega.lean:448 needs `i % 2 ^ n < 2 ^ n` to show `2 ^ n ≠ 0`)
        "example (n : Nat) : 2 ^ (n + 1) - 2 ^ n = 2 ^ n := by omega",
        "example (i : Nat) : 0 < 2 ^ i := by omega",
        "example (x y : Nat) : 0 ≤ x / y := by omega",
        "example (x y : Nat) (h : x / y + 1 = 0) : False := by omega",
        # a goal that is not a proposition about ℕ/ℤ leaves nothing to refute
        "example (p : Prop) (hp : p) : p := by omega",
    ],
)
def test_omega_fails_where_lean_fails(code: str) -> None:
    errs = _errors(code)
    assert errs and errs[0].startswith("omega could not prove the goal:"), errs


@pytest.mark.parametrize(
    "code",
    [
        # ∃ hypotheses: the witness becomes an atom (Exists.choose_spec)
        "example (n : Nat) (h : ∃ k : Nat, n = 2 * k) : n % 2 = 0 := by omega",
        "example (n : Int) (h : ∃ k : Int, n = 2 * k + 1 ∧ 0 ≤ k) : 0 < n := by omega",
        # b ^ (k + 1) with a numeral base is b * b ^ k (omega.lean: `x < 2^(e+1) → x < 2^e * 2`)
        "example (x e : Nat) (hx : x < 2^(e+1)) : x < 2^e * 2 := by omega",
        # ↔, →, ¬ and ∨ are read (as Lean's frontend rewrites them)
        "example (x : Int) (h : x < 0 ↔ 3 < x) (h2 : x = 5 ∨ x = -1) : x = 5 := by omega",
        "example (x : Nat) (h : x < 3 → x = 7) (h2 : x < 2) : False := by omega",
        "example (x : Nat) (h : ¬(x < 3 ∨ x > 5)) : 3 ≤ x ∧ x ≤ 5 := by omega",
        # `x % b ^ e` with a positive numeral base: `0 ≤ x % k < k` (analyzeAtom; omega.lean:437, :448)
        "example (x y z i : Nat) (hz : z ≤ 1) : x % 2 ^ i + y % 2 ^ i + z < 2 * 2^ i := by omega",
        "example (i : Nat) (x : Int) : 0 ≤ x % 2 ^ i := by omega",
        # `(↑x : ℤ) % k` of a natural is non-negative (Int.emod_ofNat_nonneg; omega.lean:378)
        "example (a b : Nat) (h : a % b + 1 = 0) : False := by omega",
        # multiplication by a constant is linear
        "example (x : Nat) (h : 3 * x = 7) : False := by omega",
        # ¬ and ≠ goals are introduced
        "example (x : Nat) (h : x < 2) : ¬ x = 5 := by omega",
        "example (x : Int) (h : 2 * x = 1 + 2 * x) : x ≠ x := by omega",
    ],
)
def test_omega_proves_what_lean_proves(code: str) -> None:
    assert proves(code), _errors(code)


def test_no_usable_constraints_is_lean_s_message() -> None:
    """Lean's text when nothing arithmetic is left (``formatErrorMessage``; omega.lean's `0 < 0` case)."""
    for code in ("example : True := by omega", "example (h : False) : False := by omega"):
        errs = _errors(code)
        assert errs[0].startswith("omega could not prove the goal:\nNo usable constraints found."), errs
