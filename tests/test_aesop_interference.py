"""Interference between aesop rules in the simulator, and the cost model it rests on.

Issue 10 made dense configs lose by an invented conflict (``nlinarith`` charged for every monomial of
degree ≤ 2d, so that it spent the whole budget on the lemma families' contexts); SATP's record (issue 21:
every one of its 92 winning calls switches on nearly every rule and Lean proves them all under the default
budget) contradicts it, and it is gone: ``nlinarith`` is charged for what Mathlib's ``nlinarithExtras``
makes (pairwise products of the comparisons) and the monomials those mention. What remains is checked on
generated goals, through the same ``set_option maxHeartbeats 200000 in`` budget that ``LeanAesop-v0``
sends.
"""

from __future__ import annotations

import pytest

from lean_gym.backends.sim import SimBackend
from lean_gym.data import theorem_with_proof
from lean_gym.sim.aesop_cost import goal_degree, tactic_cost, term_degree
from lean_gym.sim.families import generate
from lean_gym.sim.families_text import _elaborate

BUDGET = "set_option maxHeartbeats 200000 in\n"
EVERY_TACTIC_BUT_NLINARITH = ", ".join(
    f"unsafe {p}% (by {t})"
    for p, t in [
        (100, "linarith"), (90, "positivity"), (90, "bound"), (80, "gcongr"), (80, "omega"),
        (80, "ring_nf"), (70, "norm_num [*] at *"), (70, "simp_all"), (70, "field_simp [*] at *"),
        (70, "norm_cast at *"),
    ]
)  # fmt: skip


def _lemmas(row: dict, pct: int = 40) -> str:
    return ", ".join(
        f"unsafe {pct}% (by first | apply {n} | rw [{n}] | simp only [{n}])" for n in row["context_lemmas"]
    )


def _proves(backend: SimBackend, row: dict, tactic: str) -> bool:
    code = BUDGET + theorem_with_proof(row["formal_statement"], "  " + tactic)
    return backend.check(code, header=row["header"]).proved


# ------------------------------------------------------------------------------------- the cost model


@pytest.mark.parametrize(
    ("body", "degree"),
    [
        ("(x : ℝ) : x ≤ x + 1", 1),
        ("(x y : ℝ) (h : x * y = 6) : x ≤ x", 2),
        ("(u v : ℝ) (h₀ : u ^ 3 = 27) : u ≤ u", 3),
        ("(u v : ℝ) (h₁ : u * v * u ≠ 1) : u ≤ u", 3),
        ("(u : ℝ) (h : |u| ≤ 2) : u ≤ 2", 1),  # |u| is one atom
        ("(u : ℝ) (h : u ^ 100 = 1) : u ≤ u", 8),  # capped
    ],
)
def test_goal_degree_is_the_highest_polynomial_degree(body: str, degree: int) -> None:
    assert goal_degree(_elaborate(body)) == degree


def test_degree_of_odd_shapes_never_raises() -> None:
    # a non-numeral exponent, an empty tuple, a non-tuple: the measure stays defined
    assert term_degree(("^", "ℝ", ("fvar", "x"), ("fvar", "n"))) == 2
    assert term_degree(()) == 0
    assert term_degree("x") == 0


def test_nlinarith_counts_comparisons_and_the_monomials_of_their_products() -> None:
    """Mathlib's ``nlinarithExtras`` multiplies linarith's comparisons pairwise (``≠`` facts are filtered out
    before it), so a ``≠`` fact costs nothing, a comparison does, and more monomials cost more."""
    base = _elaborate("(x y : ℝ) (h₀ : x + y = 5) (h₁ : x * y = 6) : x ^ 2 + y ^ 2 = 13")
    ne = _elaborate("(x y : ℝ) (h₀ : x + y = 5) (h₁ : x * y = 6) (h₂ : y ^ 3 ≠ 2) : x ^ 2 + y ^ 2 = 13")
    le = _elaborate("(x y : ℝ) (h₀ : x + y = 5) (h₁ : x * y = 6) (h₂ : y ^ 3 ≤ 2) : x ^ 2 + y ^ 2 = 13")
    wide = _elaborate(
        "(x y z : ℝ) (h₀ : x + y = 5) (h₁ : x * y = 6) (h₂ : (x + y + z) ^ 3 ≤ 2) : x ^ 2 + y ^ 2 = 13"
    )
    assert tactic_cost("nlinarith", ne) == tactic_cost("nlinarith", base)
    assert tactic_cost("nlinarith", base) < tactic_cost("nlinarith", le) < tactic_cost("nlinarith", wide)
    # linarith does not multiply hypotheses: the degree does not change its cost
    assert tactic_cost("linarith", le) == tactic_cost("linarith", ne)
    # two variables, three facts: within Lean's default budget, with room for the rest of the search
    assert tactic_cost("nlinarith", le) < 100_000


def test_nlinarith_on_a_recorded_statement_fits_the_budget_lean_ran_it_in() -> None:
    """SATP's minimal proof of ``mathd_algebra_478`` is ``nlinarith`` alone, checked by Lean under the default
    ``maxHeartbeats`` 200000 (``lean_gym/conformance/cases/satp/``): the model must leave it room."""
    goal = _elaborate(
        "(b h v : ℝ) (h₀ : 0 < b ∧ 0 < h ∧ 0 < v) (h₁ : v = 1 / 3 * (b * h)) (h₂ : b = 30) (h₃ : h = 13 / 2)"
        " : v = 65"
    )
    assert tactic_cost("nlinarith", goal) < 200_000
    backend = SimBackend()
    code = BUDGET + "theorem t (b h v : ℝ) (h₀ : 0 < b ∧ 0 < h ∧ 0 < v) (h₁ : v = 1 / 3 * (b * h))\n"
    code += "    (h₂ : b = 30) (h₃ : h = 13 / 2) : v = 65 := by\n  nlinarith"
    assert backend.check(code, header="import Mathlib").proved


def test_a_failing_nlinarith_on_a_large_context_still_pays_for_its_products() -> None:
    """A failing rule's cost where Lean pays it: eight comparisons in four variables, cubic, make 45 facts
    over hundreds of monomials, more than one default budget."""
    facts = " ".join(f"(h{i} : x ^ 3 + y * z * w + {i} * x * y ≤ {i + 7} * z ^ 2 + w)" for i in range(8))
    goal = _elaborate(f"(x y z w : ℝ) {facts} : x * y * z * w ≤ 1")
    assert tactic_cost("nlinarith", goal) > 200_000


def test_nlinarith_cost_stays_bounded_on_odd_shapes() -> None:
    bodies = [
        "(x y : ℝ) (n : ℕ) (h : x ^ n = y) : x ≤ y",
        "(x : ℝ) (h : x ^ 1000000 = 1) : x ≤ 1",
        "(x y z : ℝ) (h : |x * y * z| ≤ 1) (h' : |x| * |y| ≤ 2) : x ≤ 1",
        "(x : ℝ) : x ≤ |x|",
        "(x : ℝ) (h : ¬ (x ≤ 2)) (h' : x ≠ 3 ∧ x < 5) : x ≤ |x|",
    ]
    for b in bodies:
        cost = tactic_cost("nlinarith", _elaborate(b))
        assert 2000 < cost < 10**7, b


# ------------------------------------------------------------------------------------- the families


def test_products_need_nlinarith_and_nothing_else_stands_in() -> None:
    backend = SimBackend()
    stood_in = 0
    for i in range(8):
        row = generate("products", "test", i)
        assert _proves(backend, row, "aesop (add unsafe 100% (by nlinarith))"), row["formal_statement"]
        every_other = f"aesop (add {EVERY_TACTIC_BUT_NLINARITH}, {_lemmas(row)})"
        if _proves(backend, row, every_other):
            # one row (`2 * m < m ^ 2` from `2 < m`) is monotonicity once its lemma rules act: `ring_nf` gives
            # `m * 2 < m ^ 2`, `rw [pow_two]` `m * 2 < m * m`, `apply mul_lt_mul_of_pos_left` leaves `2 < m`
            # and `0 < m` to `simp_all` and `linarith`, as in Lean; without the lemma rules nothing stands in
            assert not _proves(backend, row, f"aesop (add {EVERY_TACTIC_BUT_NLINARITH})"), row[
                "formal_statement"
            ]
            stood_in += 1
    assert stood_in <= 1
