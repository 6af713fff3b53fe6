"""Interference between aesop rules in the simulator (issue 10): what helps one family must hurt another.

The calibration figures (``benchmarks/bench_sim_calibration.py``) rest on these mechanisms; each test
checks one of them on generated goals, through the same ``set_option maxHeartbeats 200000 in`` budget that
``LeanAesop-v0`` sends.
"""

from __future__ import annotations

import pytest

from lean_gym.backends.sim import SimBackend
from lean_gym.data import theorem_with_proof
from lean_gym.sim.aesop import _degree, goal_degree, tactic_cost
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
    assert _degree(("^", "ℝ", ("fvar", "x"), ("fvar", "n"))) == 2
    assert _degree(()) == 0
    assert _degree("x") == 0


def test_nlinarith_costs_grow_with_the_degree_of_the_context() -> None:
    quad = _elaborate("(x y : ℝ) (h₀ : x + y = 5) (h₁ : x * y = 6) (h₂ : y ≠ 2) : x ^ 2 + y ^ 2 = 13")
    cubic = _elaborate("(x y : ℝ) (h₀ : x + y = 5) (h₁ : x * y = 6) (h₂ : y ^ 3 ≠ 2) : x ^ 2 + y ^ 2 = 13")
    assert tactic_cost("nlinarith", cubic) > tactic_cost("nlinarith", quad)
    # linarith does not multiply hypotheses: the degree does not change its cost
    assert tactic_cost("linarith", cubic) == tactic_cost("linarith", quad)
    # two variables, three facts: within Lean's default budget, with room for the rest of the search
    assert tactic_cost("nlinarith", cubic) < 100_000


# ------------------------------------------------------------------------------------- the families


def test_products_need_nlinarith_and_nothing_else_stands_in() -> None:
    backend = SimBackend()
    for i in range(8):
        row = generate("products", "test", i)
        assert _proves(backend, row, "aesop (add unsafe 100% (by nlinarith))"), row["formal_statement"]
        every_other = f"aesop (add {EVERY_TACTIC_BUT_NLINARITH}, {_lemmas(row)})"
        assert not _proves(backend, row, every_other), row["formal_statement"]


@pytest.mark.parametrize("family", ["ctx_lemma", "ctx_normal_form"])
def test_nlinarith_ahead_of_the_lemma_runs_out_of_the_budget(family: str) -> None:
    """The conflict the calibration rests on: ``products`` goals need ``nlinarith``; on the miniF2F-sized
    contexts of the lemma families the same rule (always ahead of the lemma rules, 70% or more against at
    most 40%) fails only after it has spent the budget. Without the norm simp (which can split the
    zero-product facts and shrink the context) this holds on every goal the lemma config proves."""
    backend = SimBackend()
    checked = 0
    for i in range(10):
        row = generate(family, "test", i)
        lemma_only = f"aesop (config := {{ enableSimp := false }}) (add {_lemmas(row)})"
        if not _proves(backend, row, lemma_only):
            continue
        checked += 1
        with_nlinarith = lemma_only.replace("(add ", "(add unsafe 70% (by nlinarith), ", 1)
        code = BUDGET + theorem_with_proof(row["formal_statement"], "  " + with_nlinarith)
        r = backend.check(code, header=row["header"])
        assert not r.proved, row["formal_statement"]
        assert "heartbeats" in r.messages_text(), r.messages_text()[:300]
    assert checked >= 6


def test_the_degree_never_makes_nlinarith_cheaper_than_before() -> None:
    """Recalibration may make a tactic dearer, never cheaper (a cheaper failing rule would let a dense config
    through). The degree-based count of monomials is at least the old fixed degree-4 count on every goal of
    the sim splits, and on inputs built to shrink it: powers by non-numerals, huge exponents, atoms hiding
    products inside ``|·|``."""
    import math

    from lean_gym.sim.aesop import goal_measure
    from lean_gym.sim.families import generate_split

    def old_cost(goal: object) -> int:
        h, a, _ = goal_measure(goal)
        facts = (h + 1) + (h + 1) * (h + 2) // 2
        return 2000 + 150 * facts * min(math.comb(max(a, 1) + 4, 4), 70)

    bodies = [
        "(x y : ℝ) (n : ℕ) (h : x ^ n = y) : x ≤ y",
        "(x : ℝ) (h : x ^ 1000000 = 1) : x ≤ 1",
        "(x y z : ℝ) (h : |x * y * z| ≤ 1) (h' : |x| * |y| ≤ 2) : x ≤ 1",
        "(x : ℝ) : x ≤ |x|",
    ]
    goals = [_elaborate(b) for b in bodies]
    goals += [_elaborate(r["formal_statement"].split(" ", 2)[2].removesuffix(" := by\n"))
              for r in generate_split("test")[:96]]  # fmt: skip
    for g in goals:
        assert tactic_cost("nlinarith", g) >= old_cost(g), g.pretty()[:200]
    assert tactic_cost("nlinarith", goals[1]) < 10**7  # the exponent is capped, the count stays bounded
