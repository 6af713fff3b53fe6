"""Cast-moving tactics never move a literal into a type it is not a value of.

``norm_cast``, ``push_cast``, ``exact_mod_cast``, ``assumption_mod_cast`` and ``zify``/``qify``/``rify``
rewrite between ℕ ⊂ ℤ ⊂ ℚ ⊂ ℝ. Each statement below is false (the test checks it on the given point with
Lean's semantics: exact rationals, truncated ℕ subtraction, floor division) and is attacked with the
scripts a policy would try after casts have been moved: it must never be accepted. A few true statements
check that honest cast proofs still go through.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from mathlib_header import MathlibRepl  # the statements are Mathlib's (ℕ, ℝ, casts)

from lean_gym.lean.protocol import classify_response
from lean_gym.sim import SimRepl

# (hypotheses and goal, the point, the goal's two sides evaluated there with Lean's semantics, relation)
FALSE_CASES: list[tuple[str, str, F, str, F]] = [
    ("(n : ℕ) (h : n = 1) : (n : ℝ) + 0.5 = 1", "n = 1", F(1) + F(1, 2), "=", F(1)),
    ("(n : ℕ) (h : n = 1) : (n : ℝ) + 1 / 2 = 1", "n = 1", F(1) + F(1, 2), "=", F(1)),
    ("(n : ℕ) (h : n = 1) : (n : ℝ) * 0.5 = 0", "n = 1", F(1, 2), "=", F(0)),
    ("(n : ℕ) (h : n = 3) : (n : ℚ) * 0.5 = 1", "n = 3", F(3, 2), "=", F(1)),
    ("(z : ℤ) (h : z = 1) : (z : ℝ) + 0.5 = 1", "z = 1", F(3, 2), "=", F(1)),
    ("(z : ℤ) (h : z = 1) : (z : ℚ) - 2.5 = -2", "z = 1", F(1) - F(5, 2), "=", F(-2)),
    ("(n : ℕ) (h : n = 1) : (n : ℝ) / 2 = 0", "n = 1", F(1, 2), "=", F(0)),
    ("(n : ℕ) (h : n = 0) : (n : ℤ) - 1 = 0", "n = 0", F(-1), "=", F(0)),
    ("(n : ℕ) (h : n = 0) : (n : ℝ) - 1 = 0", "n = 0", F(-1), "=", F(0)),
    ("(n : ℕ) (h : n = 0) : (n : ℤ) + -1 = 0", "n = 0", F(-1), "=", F(0)),
    ("(n : ℕ) (h : n = 1) : (((n / 2 : ℕ)) : ℝ) = (n : ℝ) / 2", "n = 1", F(1 // 2), "=", F(1, 2)),
    ("(n : ℕ) (h : n = 0) : (((n - 1 : ℕ)) : ℤ) = (n : ℤ) - 1", "n = 0", F(max(0 - 1, 0)), "=", F(-1)),
    ("(z : ℤ) (h : z = 1) : (((z / 2 : ℤ)) : ℚ) = (z : ℚ) / 2", "z = 1", F(1 // 2), "=", F(1, 2)),
    ("(a b : ℕ) (ha : a = 0) (hb : b = 1) : a - b + b = a", "a = 0, b = 1", F(max(0 - 1, 0) + 1), "=", F(0)),
    ("(n : ℕ) (h : (n : ℝ) + 0.5 = 1.5) : n = 2", "n = 1", F(1), "=", F(2)),
    ("(n : ℕ) (h : n = 1) : (n : ℝ) + 0.5 < 1", "n = 1", F(3, 2), "<", F(1)),
    ("(n : ℕ) (h : n = 1) : (n : ℝ) ≤ 0.5", "n = 1", F(1), "≤", F(1, 2)),
    ("(n : ℕ) (h : n = 1) : (n : ℝ) ≠ 0.5 + 0.5", "n = 1", F(1), "≠", F(1)),
]
_REL = {"=": F.__eq__, "<": F.__lt__, "≤": F.__le__, "≠": F.__ne__}

ATTACKS = [
    "norm_cast\n  simp [h]",
    "norm_cast\n  omega",
    "norm_cast at *\n  omega",
    "norm_cast at *\n  simp_all",
    "norm_cast\n  norm_num [h]",
    "norm_cast\n  subst h\n  rfl",
    "norm_cast\n  subst h\n  decide",
    "push_cast\n  simp [h]",
    "push_cast\n  subst h\n  ring",
    "push_cast\n  omega",
    "exact_mod_cast h",
    "assumption_mod_cast",
    "zify\n  omega",
    "zify at *\n  simp_all",
    "qify\n  subst h\n  norm_num",
    "rify\n  simp_all",
    "subst h\n  norm_cast",
    "simp only [h]\n  norm_cast",
    "norm_cast\n  linarith",
    "norm_cast\n  nlinarith [h]",
]


def _verdict(repl: SimRepl, code: str) -> str:
    return classify_response(repl.handle({"cmd": code}))


@pytest.mark.parametrize(("stmt", "point", "lhs", "rel", "rhs"), FALSE_CASES, ids=[c[0] for c in FALSE_CASES])
def test_false_cast_statements_are_never_proved(stmt: str, point: str, lhs: F, rel: str, rhs: F) -> None:
    assert not _REL[rel](lhs, rhs), f"the case is not false at {point}"
    repl = MathlibRepl()
    proved = [a for a in ATTACKS if _verdict(repl, f"theorem t {stmt} := by\n  {a}") == "proved"]
    assert proved == [], f"{stmt} (false at {point}) proved by {proved}"


@pytest.mark.parametrize(
    ("stmt", "proof"),
    [
        ("(n : ℕ) (h : n = 1) : (n : ℝ) + 2 = 3", "norm_cast\n  omega"),
        ("(n : ℕ) (h : (n : ℝ) = 1) : n = 1", "exact_mod_cast h"),
        ("(q : ℚ) (h : q = 1) : (q : ℝ) + 0.5 = 1.5", "norm_cast\n  subst h\n  norm_num"),
        ("(a b : ℕ) (h : a < b) : (a : ℝ) < b", "exact_mod_cast h"),
        ("(a b : ℕ) (h : (a : ℤ) + 2 = b) : a + 2 = b", "exact_mod_cast h"),
        ("(z : ℤ) (h : z = 2) : (z : ℝ) - 2 = 0", "norm_cast\n  omega"),
    ],
)
def test_honest_cast_proofs_still_work(stmt: str, proof: str) -> None:
    assert _verdict(MathlibRepl(), f"theorem t {stmt} := by\n  {proof}") == "proved"


def test_norm_cast_keeps_a_decimal_in_the_larger_type() -> None:
    resp = MathlibRepl().handle({"cmd": "example (n : ℕ) : (n : ℝ) + 0.5 = 1 := by\n  norm_cast\n  sorry"})
    goal = resp["sorries"][0]["goal"]
    assert "↑n" in goal, goal  # the relation stays over ℝ: 0.5 is not a natural number


# ------------------------------------------------------------- leaves of Lean's binop%/binrel% trees
# Lean's `binop%` elaborator (Lean/Elab/Extra.lean, `Op.toTree`/`analyze`/`applyCoe`) elaborates a leaf of
# the tree (an application, `|…|`, an ascription) on its own and coerces it as a whole: with `x : ℤ`,
# `|x / 2| + y` for `y : ℝ` is `↑|x / 2| + y`, integer division inside. Each statement below is false as
# Lean reads it (evaluated here with integer division in the leaf) and true as the old reading (division
# in ℝ) had it; no script may prove it.
LEAF_FALSE: list[tuple[str, str, F, F]] = [
    ("(x : ℤ) (y : ℝ) (h : x = 1) (hy : y = 0) : |x / 2| + y = 1 / 2", "x=1", F(abs(1 // 2)), F(1, 2)),
    ("(x : ℤ) (y : ℝ) (h : x = 1) (hy : y = 0) : y + |x / 2| = 0.5", "x=1", F(abs(1 // 2)), F(1, 2)),
    ("(x : ℤ) (y : ℝ) (h : x = 3) (hy : y = 1) : |x / 2| * y = 3 / 2", "x=3", F(3 // 2), F(3, 2)),
    ("(x : ℤ) (y : ℝ) (h : x = -1) (hy : y = 0) : |x / 2| = y + 1 / 2", "x=-1", F(1), F(1, 2)),
    ("(x : ℤ) (y : ℝ) (h : x = 1) (hy : y = 0) : |x % 2 / 2| + y = 1 / 2", "x=1", F(0), F(1, 2)),
    (
        "(x : ℤ) (f : ℤ → ℤ) (hf : ∀ n, f n = n) (h : x = 1) (y : ℝ) (hy : y = 0) : f (x / 2) + y = 1 / 2",
        "x=1",
        F(0),
        F(1, 2),
    ),
    ("(x : ℕ) (y : ℝ) (h : x = 1) (hy : y = 0) : Nat.sqrt (x / 2) + y = 0.5", "x=1", F(0), F(1, 2)),
    ("(x : ℤ) (y : ℝ) (h : x = 1) (hy : y = 0) : Int.toNat (x / 2) + y = 1 / 2", "x=1", F(0), F(1, 2)),
]

LEAF_ATTACKS = [
    "subst h hy\n  norm_num",
    "rw [h, hy]\n  norm_num",
    "simp [h, hy]",
    "norm_num [h, hy]",
    "subst h hy\n  push_cast\n  norm_num",
    "subst h hy\n  simp",
    "simp_all",
    "subst h hy\n  norm_num [abs_of_nonneg]",
    "rw [h, hy]\n  simp [abs_of_pos]",
    "simp [hf, h, hy]",
    "subst h hy\n  norm_cast",
    "subst h\n  linarith",
]


@pytest.mark.parametrize(("stmt", "point", "lhs", "rhs"), LEAF_FALSE, ids=[c[0] for c in LEAF_FALSE])
def test_a_leaf_keeps_its_own_arithmetic(stmt: str, point: str, lhs: F, rhs: F) -> None:
    assert lhs != rhs, f"the case is not false at {point}"
    repl = MathlibRepl()  # Mathlib statements
    proved = [a for a in LEAF_ATTACKS if _verdict(repl, f"theorem t {stmt} := by\n  {a}") == "proved"]
    assert proved == [], f"{stmt} (false at {point}) proved by {proved}"


@pytest.mark.parametrize(
    ("stmt", "goal"),
    [
        # a leaf of a tree: elaborated on its own, coerced as a whole
        ("(x : ℤ) (y : ℝ) : |x / 2| + y = 0", "⊢ ↑|x / 2| + y = 0"),
        ("(x : ℤ) (y : ℝ) : |x / 2| = y", "⊢ ↑|x / 2| = y"),
        ("(x : ℤ) (f : ℤ → ℤ) (y : ℝ) : f (x / 2) = y", "⊢ ↑(f (x / 2)) = y"),
        ("(x : ℕ) (y : ℝ) : Nat.sqrt (x / 2) + y = 0", "⊢ ↑(x / 2).sqrt + y = 0"),
        # an expected type is propagated into the term (an argument, an ascription): Lean's elabAppArgs
        ("(x : ℤ) (y : ℝ) : (|x / 2| : ℝ) = y", "⊢ |↑x / 2| = y"),
        ("(x : ℤ) (f : ℝ → ℝ) (y : ℝ) : f (x / 2) = y", "⊢ f (↑x / 2) = y"),
        ("(x : ℕ) (y : ℝ) : (x / 2 : ℝ) + y = 0", "⊢ ↑x / 2 + y = 0"),
        # nodes of the tree (unop% `-`, rightact% `^`, parentheses): coerced at their leaves
        ("(x : ℤ) (y : ℝ) : -(x / 2) + y = 0", "⊢ -(↑x / 2) + y = 0"),
        ("(x : ℤ) (y : ℝ) : (x / 2) ^ 2 + y = 0", "⊢ (↑x / 2) ^ 2 + y = 0"),
        # a leaf whose type is unknown on its own takes the tree's type (unification)
        ("(x : ℤ) (y : ℝ) : |2| + y = 0", "⊢ |2| + y = 0"),
    ],
)
def test_binop_trees_are_elaborated_as_lean_does(stmt: str, goal: str) -> None:
    resp = MathlibRepl().handle({"cmd": f"theorem t {stmt} := by sorry"})
    assert resp["sorries"][0]["goal"].split("\n")[-1] == goal


def test_an_honest_proof_about_a_leaf_still_works() -> None:
    code = (
        "theorem t (x : ℤ) (y : ℝ) (h : x = 1) (hy : y = 0) : |x / 2| + y = 0 := by\n  rw [h, hy]\n  norm_num"
    )
    assert _verdict(MathlibRepl(), code) == "proved"
