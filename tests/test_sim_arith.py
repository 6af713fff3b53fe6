"""Tests of the simulator's decision procedures (``lean_gym.sim.arith``).

The soundness tests decide truth independently: random satisfying points (a counterexample means the
procedure must refuse), scipy's LP solver for linear systems over ℚ, brute force over boxes for ℤ, and
exact re-checking of every certificate.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lean_gym.errors import LeanGymError
from lean_gym.sim.arith import (
    ArithBudgetExceeded,
    Certificate,
    Constraint,
    EvalTooExpensive,
    Poly,
    binop,
    cast,
    compare,
    div_mod_constraints,
    dvd,
    dvd_constraints,
    factorial,
    field_div,
    int_ediv,
    int_emod,
    inv,
    is_nonneg_sos,
    is_pos,
    linarith,
    linarith_certificate,
    nat_sub,
    nat_sub_cases,
    neg,
    nlinarith,
    nlinarith_certificate,
    not_dvd_constraints,
    omega,
    poly_sign,
    pow_value,
    zpow,
)

X, Y, Z = Poly.var("x"), Poly.var("y"), Poly.var("z")
ATOMS = ("x", "y", "z")
FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ------------------------------------------------------------------------------------------------
# Strategies

coeffs = st.one_of(st.integers(-5, 5), st.fractions(min_value=-3, max_value=3, max_denominator=4))


@st.composite
def polys(draw: st.DrawFn, max_terms: int = 4, max_deg: int = 3) -> Poly:
    terms = []
    for _ in range(draw(st.integers(0, max_terms))):
        mono = {a: draw(st.integers(0, max_deg)) for a in ATOMS if draw(st.booleans())}
        terms.append((mono, draw(coeffs)))
    return Poly.from_terms(terms)


points = st.fixed_dictionaries({a: st.fractions(min_value=-4, max_value=4, max_denominator=3) for a in ATOMS})


# ------------------------------------------------------------------------------------------------
# Poly


@FAST
@given(polys(), polys(), polys())
def test_poly_ring_laws(p: Poly, q: Poly, r: Poly) -> None:
    assert p + q == q + p
    assert p * q == q * p
    assert (p + q) + r == p + (q + r)
    assert (p * q) * r == p * (q * r)
    assert p * (q + r) == p * q + p * r
    assert (p + q) - q == p
    assert p - p == Poly.zero() and (p - p).is_zero()
    neg_p = -p
    assert -neg_p == p and neg_p + p == 0
    assert p * 1 == p and 1 * p == p and p + 0 == p
    assert p**2 == p * p and p**3 == p * p * p and p**0 == Poly.one()
    assert hash(p + q) == hash(q + p)


@FAST
@given(polys(), polys(), points)
def test_poly_eval_is_a_homomorphism(p: Poly, q: Poly, pt: dict[str, F]) -> None:
    assert (p + q).eval(pt) == p.eval(pt) + q.eval(pt)
    assert (p * q).eval(pt) == p.eval(pt) * q.eval(pt)
    assert (-p).eval(pt) == -p.eval(pt)
    assert p.substitute("x", q).eval(pt) == p.eval({**pt, "x": q.eval(pt)})


def test_poly_basics() -> None:
    p = (X + Y) ** 2
    assert p == X**2 + 2 * X * Y + Y**2
    assert p.degree() == 2 and not p.is_const() and p.atoms() == {"x", "y"}
    assert Poly.const(F(3, 2)).is_const() and Poly.const(F(3, 2)).const_value() == F(3, 2)
    assert Poly.const(3) == 3 and hash(Poly.const(3)) == hash(3)
    assert (X * Y + X + 2).linear_part() == X + 2
    assert (X * Y + X + 2).nonlinear_part() == X * Y
    assert p.monomials()[0] == (("x", 2),)
    assert p.coeff({"x": 1, "y": 1}) == 2
    assert (X / 2).coeff({"x": 1}) == F(1, 2)
    assert not (X / 2).has_integer_coefficients() and (X * 2).has_integer_coefficients()
    assert len({X + Y, Y + X, X + Y + 0}) == 1
    assert Poly.from_terms([({"x": 1}, 1), ({"x": 1}, -1)]).is_zero()
    with pytest.raises(ValueError, match="exponent"):
        X**-1
    with pytest.raises(ZeroDivisionError):
        X / 0


def test_poly_to_lean_is_ring_nf_style_and_deterministic() -> None:
    assert ((X - 1) * (X + 1)).to_lean() == "-1 + x ^ 2"
    assert (X * 2 + 1 + X**2).to_lean() == "1 + x * 2 + x ^ 2"
    assert (X - Y * 3).to_lean() == "x - y * 3"
    assert (X / 2).to_lean() == "x * 2⁻¹"
    assert (-X).to_lean() == "-x"
    assert Poly.zero().to_lean() == "0"
    compound = Poly.var(("div", "a", "b"))
    assert (compound * 2).to_lean(lambda a: f"{a[1]} / {a[2]}") == "(a / b) * 2"
    assert ((Y + X) ** 3).to_lean() == ((X + Y) ** 3).to_lean()


def test_poly_pow_guard() -> None:
    with pytest.raises(ArithBudgetExceeded):
        (X + Y + Z + 1) ** 500
    assert isinstance(ArithBudgetExceeded("x"), LeanGymError)
    assert (X**200).degree() == 200  # a monomial power is cheap


# ------------------------------------------------------------------------------------------------
# linarith


def test_linarith_textbook() -> None:
    assert linarith([Constraint.lt(X, Y), Constraint.lt(Y, Z)], Constraint.lt(X, Z))
    assert linarith([Constraint.le(0, X), Constraint.le(0, Y)], Constraint.le(0, X + Y))
    assert linarith([Constraint.lt(2 * X + 3 * Y, 5), Constraint.gt(X, 1), Constraint.gt(Y, 1)], None)
    assert linarith([Constraint.eq(X, 2 * Y), Constraint.eq(Y, 3)], Constraint.eq(X, 6))
    assert linarith([Constraint.le(X, Y), Constraint.le(Y, X)], Constraint.eq(X, Y))
    assert linarith([Constraint.lt(X / 3, 1)], Constraint.lt(X, 3))
    # nonlinear monomials are atoms
    assert linarith([Constraint.lt(X * Y, 1)], Constraint.lt(2 * (X * Y), 3))
    assert linarith([Constraint.eq(X, 1)], Constraint.ne(X, 2)) is False  # ≠ goal: exfalso, hyps consistent
    assert linarith([Constraint.lt(X, 0), Constraint.lt(0, X)], Constraint.ne(X, 2))
    assert linarith([], Constraint.le(0, 1)) and not linarith([], Constraint.le(1, 0))


def test_linarith_refuses_false_goals() -> None:
    assert not linarith([Constraint.le(X, Y)], Constraint.lt(X, Y))
    assert not linarith([Constraint.lt(0, X)], Constraint.lt(1, X))
    assert not linarith([Constraint.le(X * X, 1)], Constraint.le(X, 1))  # true, but not linear
    assert not linarith([Constraint.ne(X, 0)], Constraint.lt(0, X * X))
    assert not linarith([Constraint.ne(X, 0), Constraint.ne(X, 1)], None)  # ≠ is ignored


def test_linarith_integer_strengthening() -> None:
    # over ℤ, 0 < x < 1 is impossible; over ℚ it is not
    hyps = [Constraint.lt(0, X), Constraint.lt(X, 1)]
    assert not linarith(hyps, None)
    assert linarith(hyps, None, integer=True)
    # the negated goal is strengthened too: x > 0 ⊢ x ≥ 1
    assert linarith([Constraint.lt(0, X)], Constraint.le(1, X), integer=True)
    # but linarith is not omega: 2x = 1 is consistent over ℚ
    assert not linarith([Constraint.eq(2 * X, 1)], None, integer=True)
    # rational coefficients are not strengthened
    assert not linarith([Constraint.lt(0, X / 2), Constraint.lt(X / 2, F(1, 2))], None, integer=True)


def test_linarith_nonneg_atoms_and_certificates() -> None:
    assert linarith([], Constraint.le(0, X + Y), nonneg_atoms=["x", "y"])
    certs = linarith_certificate([Constraint.le(X, Y), Constraint.le(Y, X)], Constraint.eq(X, Y))
    assert certs is not None and len(certs) == 2 and all(c.check() for c in certs)
    assert linarith_certificate([Constraint.le(X, Y)], Constraint.lt(X, Y)) is None


def test_linarith_budget() -> None:
    rng = random.Random(0)
    atoms = [Poly.var(f"v{i}") for i in range(12)]
    hyps = [
        Constraint(sum((rng.randint(-3, 3) * a for a in atoms), Poly.zero()) + rng.randint(-5, 5), "<=")
        for _ in range(40)
    ]
    with pytest.raises(ArithBudgetExceeded, match="budget"):
        linarith(hyps, None, budget=50)


def _lin_system(draw: st.DrawFn, nvars: int, nhyps: int) -> tuple[list[Constraint], Constraint]:
    vs = [Poly.var(a) for a in ATOMS[:nvars]]

    def lin() -> Poly:
        return sum((draw(st.integers(-3, 3)) * v for v in vs), Poly.zero()) + draw(st.integers(-4, 4))

    ops = st.sampled_from(["<", "<=", "<=", "="])
    hyps = [Constraint(lin(), draw(ops)) for _ in range(nhyps)]
    goal = Constraint(lin(), draw(st.sampled_from(["<", "<=", "="])))
    return hyps, goal


@st.composite
def lin_problems(draw: st.DrawFn) -> tuple[list[Constraint], Constraint]:
    return _lin_system(draw, draw(st.integers(1, 3)), draw(st.integers(1, 5)))


def _lp_feasible(cs: list[Constraint]) -> bool | None:
    """Decide feasibility over ℚ of ``cs`` with scipy (None when the float answer is too close to call)."""
    import numpy as np
    from scipy.optimize import linprog

    n = len(ATOMS)
    # variables x (n), t: maximise t subject to p(x) + t ≤ 0 (strict), p(x) ≤ 0, p(x) = 0, t ≤ 1
    a_ub, b_ub, a_eq, b_eq = [], [], [], []
    for c in cs:
        row = [float(c.poly.coeff({a: 1})) for a in ATOMS]
        k = float(c.poly.const_value())
        if c.op == "=":
            a_eq.append([*row, 0.0])
            b_eq.append(-k)
        else:
            a_ub.append([*row, 1.0 if c.op == "<" else 0.0])
            b_ub.append(-k)
    res = linprog(
        c=[0.0] * n + [-1.0],
        A_ub=np.array(a_ub) if a_ub else None,
        b_ub=b_ub or None,
        A_eq=np.array(a_eq) if a_eq else None,
        b_eq=b_eq or None,
        bounds=[(None, None)] * n + [(None, 1.0)],
        method="highs",
    )
    if res.status == 2:
        return False
    if res.status != 0:
        return None
    t = -res.fun
    if t > 1e-6:
        return True
    if t < -1e-6 or (t < 1e-9 and not any(c.op == "<" for c in cs)):
        return t >= -1e-9  # non-strict system feasible iff optimum reached with t ≥ 0
    return None


@settings(max_examples=300, deadline=None)
@given(lin_problems())
def test_linarith_agrees_with_lp(problem: tuple[list[Constraint], Constraint]) -> None:
    pytest.importorskip("scipy", reason="scipy (the independent LP solver) is not installed")
    hyps, goal = problem
    certs = linarith_certificate(hyps, goal)
    if certs is not None:
        assert all(c.check() for c in certs)
    branches = (
        [Constraint(goal.poly, "<"), Constraint(-goal.poly, "<")]
        if goal.op == "="
        else list(goal.negations())
    )
    verdicts = [_lp_feasible([*hyps, b]) for b in branches]
    if any(v is True for v in verdicts):
        assert certs is None, "linarith proved a goal whose negation is satisfiable over ℚ"
    elif all(v is False for v in verdicts):
        assert certs is not None, "linarith missed a linear consequence (it is complete over ℚ)"


@FAST
@given(lin_problems(), points)
def test_linarith_never_proves_a_goal_with_a_counterexample(
    problem: tuple[list[Constraint], Constraint], pt: dict[str, F]
) -> None:
    hyps, goal = problem
    if all(h.holds(pt) for h in hyps) and not goal.holds(pt):
        assert not linarith(hyps, goal)


@FAST
@given(st.lists(polys(max_deg=2), min_size=1, max_size=4), polys(max_deg=2), points)
def test_linarith_and_nlinarith_sound_on_random_points(hs: list[Poly], g: Poly, pt: dict[str, F]) -> None:
    # Shift each hypothesis so that it holds at pt; the goal fails at pt by construction.
    hyps = [
        Constraint(h - h.eval(pt) - (1 if i % 2 else 0), "<=" if i % 3 else "<") for i, h in enumerate(hs)
    ]
    hyps = [h for h in hyps if h.holds(pt)]
    goal = Constraint(g - g.eval(pt) + F(1, 7), "<=")
    assert not goal.holds(pt)
    assert not linarith(hyps, goal)
    assert not linarith(hyps, goal, integer=True) or not all(pt[a].denominator == 1 for a in ATOMS)
    try:
        assert not nlinarith(hyps, goal, budget=20_000)
    except ArithBudgetExceeded:
        pass


# ------------------------------------------------------------------------------------------------
# nlinarith


def test_nlinarith_classics() -> None:
    a, b = Poly.var("a"), Poly.var("b")
    sq = Constraint.le(0, (a - b) ** 2)  # the caller's conversion of `sq_nonneg (a - b)`
    assert nlinarith([], Constraint.le(0, a**2 + b**2 - 2 * a * b), extra_terms=[sq])
    assert nlinarith([], Constraint.le(2 * a * b, a**2 + b**2), squares=[a - b])
    assert nlinarith([Constraint.lt(0, a), Constraint.lt(0, b)], Constraint.lt(0, a * b))
    assert nlinarith([Constraint.le(0, a), Constraint.le(a, 1)], Constraint.le(a * a, a))
    assert nlinarith([Constraint.lt(1, a)], Constraint.lt(a, a * a))
    # AM-GM for two positive reals: 4ab ≤ (a+b)^2
    assert nlinarith([], Constraint.le(4 * a * b, (a + b) ** 2), squares=[a - b])
    certs = nlinarith_certificate([Constraint.lt(0, a), Constraint.lt(0, b)], Constraint.lt(0, a * b))
    assert certs is not None and all(c.check() for c in certs)


def test_nlinarith_refuses_false_goals() -> None:
    a, b = Poly.var("a"), Poly.var("b")
    assert not nlinarith([], Constraint.le(a * a, a))  # a = 2
    assert not nlinarith([Constraint.lt(0, a)], Constraint.lt(a, a * a))  # a = 1/2
    assert not nlinarith([], Constraint.le(a * b, a**2))  # a = 1, b = 2
    with pytest.raises(ValueError, match="degree"):
        nlinarith([], None, degree=3)


# ------------------------------------------------------------------------------------------------
# omega


def test_omega_integer_facts() -> None:
    assert omega([Constraint.eq(2 * X, 1)], None)  # false over ℤ, true over ℚ
    assert not linarith([Constraint.eq(2 * X, 1)], None)
    assert omega([Constraint.eq(2 * X + 4 * Y, 3)], None)
    assert omega([Constraint.lt(0, X), Constraint.lt(X, 2)], Constraint.eq(X, 1))
    assert omega([Constraint.lt(2 * X, 7), Constraint.lt(5, 2 * X)], Constraint.eq(X, 3))
    assert omega([Constraint.le(3 * X, 2 * Y + 1), Constraint.le(2 * Y, 3 * X)], None) is False
    assert omega([Constraint.eq(3 * X + 6 * Y, 2 * Z + 3), Constraint.eq(Z, 3 * Y)], None) is False
    assert omega([Constraint.eq(3 * X + 6 * Y, 2 * Z + 1), Constraint.eq(Z, 3 * Y)], None)
    assert omega([Constraint.eq(6 * X + 9 * Y, 4 * Z + 2), Constraint.eq(Z, 3 * X)], None)
    assert omega([], Constraint.le(0, X + Y), nat_atoms=["x", "y"])
    assert omega([Constraint.ne(X, 0)], Constraint.le(1, X), nat_atoms=["x"])
    assert omega(
        [Constraint.ne(X, 1), Constraint.le(0, X), Constraint.le(X, 2), Constraint.ne(X, 2)],
        Constraint.eq(X, 0),
    )


def test_omega_refusals() -> None:
    assert not omega([Constraint.eq(3 * X + 5 * Y, 1)], None)  # x = 2, y = -1
    assert not omega([Constraint.lt(0, X), Constraint.lt(X, 3)], Constraint.eq(X, 1))
    assert not omega([], Constraint.le(0, X))  # x is an integer, not a natural
    assert not omega([Constraint.ne(X, 0)], Constraint.lt(0, X))


def test_omega_div_mod_and_dvd() -> None:
    q, r = Poly.var("q"), Poly.var("r")
    for xv, k in [(-7, 2), (7, -2), (-7, -2), (7, 0), (-7, 0), (9, 3)]:
        facts = [Constraint.eq(X, xv), *div_mod_constraints(X, k, "q", "r")]
        assert omega(facts, Constraint.eq(q, int_ediv(xv, k)))
        assert omega(facts, Constraint.eq(r, int_emod(xv, k)))
        assert not omega(facts, Constraint.eq(q, int_ediv(xv, k) + 1))
    # x % 2 = 1 → ¬ 2 ∣ x
    facts = [*div_mod_constraints(X, 2, "q", "r"), Constraint.eq(r, 1), *dvd_constraints(2, X, "c")]
    assert omega(facts, None)
    assert omega([*not_dvd_constraints(3, X, "q", "r"), *dvd_constraints(3, X, "c")], None)
    assert not omega([*not_dvd_constraints(3, X, "q", "r"), *dvd_constraints(2, X, "c")], None)
    # ℕ subtraction: x - y ≤ x, and (x - y) + y = x fails (x < y)
    s = Poly.var("s")
    cases = [nat_sub_cases(X, Y, "s")]
    assert omega([], Constraint.le(s, X), nat_atoms=["x", "y", "s"], disjunctions=cases)
    assert not omega([], Constraint.eq(s + Y, X), nat_atoms=["x", "y", "s"], disjunctions=cases)
    assert omega(
        [Constraint.le(Y, X)], Constraint.eq(s + Y, X), nat_atoms=["x", "y", "s"], disjunctions=cases
    )


@st.composite
def int_problems(draw: st.DrawFn) -> tuple[list[Constraint], Constraint, int]:
    hyps, goal = _lin_system(draw, draw(st.integers(1, 3)), draw(st.integers(1, 4)))
    # a few divisibility-flavoured equalities with larger coefficients, and ≠ facts
    if draw(st.booleans()):
        hyps.append(
            Constraint(
                draw(st.integers(2, 6)) * X + draw(st.integers(-6, 6)) * Y + draw(st.integers(-7, 7)), "="
            )
        )
    if draw(st.booleans()):
        hyps.append(Constraint(X - draw(st.integers(-3, 3)), "!="))
    if draw(st.booleans()):
        goal = Constraint(goal.poly, "!=")
    return hyps, goal, draw(st.integers(2, 4))


@settings(max_examples=250, deadline=None)
@given(int_problems())
def test_omega_sound_against_brute_force(problem: tuple[list[Constraint], Constraint, int]) -> None:
    hyps, goal, bound = problem
    # Bound every variable to the box so that brute force decides the question exactly.
    box = [c for a in ATOMS for c in (Constraint.le(-bound, Poly.var(a)), Constraint.le(Poly.var(a), bound))]
    counterexample = False
    for vals in itertools.product(range(-bound, bound + 1), repeat=3):
        pt = dict(zip(ATOMS, vals))
        if all(h.holds(pt) for h in hyps) and not goal.holds(pt):
            counterexample = True
            break
    try:
        proved = omega([*box, *hyps], goal)
    except ArithBudgetExceeded:
        return
    if counterexample:
        assert not proved, "omega proved a goal with an integer counterexample"
    # over ℤ with integer strengthening linarith is weaker than omega, and must also refuse
    if counterexample:
        assert not linarith([*box, *hyps], goal, integer=True)


# ------------------------------------------------------------------------------------------------
# positivity helpers


def test_positivity_helpers() -> None:
    assert is_nonneg_sos(X**2 + 3 * Y**4 + 1)
    assert not is_nonneg_sos(X**2 - 2 * X * Y + Y**2)
    assert not is_nonneg_sos(X**3)
    assert is_pos(X * Y + 1, ["x"], ["y"])
    assert not is_pos(X * Y, ["x"], ["y"])  # y may be 0
    assert is_pos(X * Y, ["x", "y"], [])
    assert not is_pos(X**2)  # x may be 0
    assert poly_sign(X**2, nonzero_atoms=["x"]) == "pos"
    assert poly_sign(Poly.zero()) == "nonneg" and not is_pos(Poly.zero())
    assert poly_sign(Poly.const(-1)) is None


@FAST
@given(
    polys(max_deg=4),
    st.lists(st.fractions(min_value=-5, max_value=5, max_denominator=3), min_size=3, max_size=3),
)
def test_positivity_sound(p: Poly, vals: list[F]) -> None:
    pos_atoms, nonneg_atoms = {"x"}, {"y"}
    pt = {"x": abs(vals[0]) + F(1, 10), "y": abs(vals[1]), "z": vals[2]}
    s = poly_sign(p, pos_atoms, nonneg_atoms)
    if s == "pos":
        assert p.eval(pt) > 0
    elif s == "nonneg":
        assert p.eval(pt) >= 0


# ------------------------------------------------------------------------------------------------
# evaluation


def test_evaluation_semantics() -> None:
    assert nat_sub(3, 5) == 0 and binop("-", 3, 5, "Nat") == 0 and binop("-", 3, 5, "Int") == -2
    assert binop("/", -7, 2, "Int") == -4 and binop("%", -7, 2, "Int") == 1
    assert int_ediv(7, -2) == -3 and int_emod(7, -2) == 1
    assert int_ediv(-7, -2) == 4 and int_emod(-7, -2) == 1
    assert binop("/", 7, 0, "Int") == 0 and binop("%", 7, 0, "Int") == 7 and binop("%", -7, 0, "Int") == -7
    assert binop("/", 7, 2, "Nat") == 3 and binop("%", 7, 0, "Nat") == 7 and binop("/", 7, 0, "Nat") == 0
    assert binop("/", F(7), F(0), "Rat") == 0 and field_div(7, 0) == 0 and inv(0) == 0
    assert binop("/", F(7), F(2), "Real") == F(7, 2) and inv(F(2, 3)) == F(3, 2)
    assert binop("^", 2, 10, "Nat") == 1024 and binop("^", F(1, 2), 3, "Rat") == F(1, 8)
    assert zpow(2, -2) == F(1, 4) and zpow(0, -1) == 0
    assert compare("≤", 2, 2) and not compare("<", 2, 2) and compare("≠", 1, 2)
    assert dvd(3, 12, "Nat") and not dvd(5, 12, "Int") and dvd(-3, 12, "Int") and dvd(0, 0, "Nat")
    assert not dvd(0, 5, "Nat") and dvd(F(2), F(3), "Rat") and not dvd(0, F(3), "Real")
    assert cast(3, "Real") == F(3) and factorial(5) == 120
    with pytest.raises(ValueError, match="Neg ℕ"):
        neg(3, "Nat")
    with pytest.raises(ValueError, match="HMod"):
        binop("%", F(1), F(2), "Rat")
    with pytest.raises(ValueError, match="not a natural"):
        cast(-1, "Nat")


@FAST
@given(st.integers(-50, 50), st.integers(-12, 12))
def test_int_div_mod_identity(a: int, b: int) -> None:
    q, r = int_ediv(a, b), int_emod(a, b)
    if b == 0:
        assert (q, r) == (0, a)
    else:
        assert a == b * q + r and 0 <= r < abs(b)


def test_evaluation_size_guard() -> None:
    with pytest.raises(EvalTooExpensive):
        pow_value(5, 999_999)
    with pytest.raises(EvalTooExpensive):
        binop("^", 5, 999_999, "Nat")
    with pytest.raises(EvalTooExpensive):
        factorial(100_000)
    assert pow_value(1, 10**9) == 1 and pow_value(-1, 10**9 + 1) == -1 and pow_value(0, 10**9) == 0
    assert isinstance(EvalTooExpensive("x"), ArithBudgetExceeded)


# ------------------------------------------------------------------------------------------------
# the simplex oracle (used when Fourier–Motzkin blows up) agrees with Fourier–Motzkin


@settings(max_examples=200, deadline=None)
@given(lin_problems())
def test_simplex_oracle_agrees_with_fourier_motzkin(problem: tuple[list[Constraint], Constraint]) -> None:
    from lean_gym.sim.arith.simplex import simplex_certificate

    hyps, goal = problem
    fm = linarith_certificate(hyps, goal) is not None
    for branch in (
        [Constraint(goal.poly, "<"), Constraint(-goal.poly, "<")] if goal.op == "=" else goal.negations()
    ):
        cs = [*hyps, branch]
        rows = [({m: F(q) for m, q in c.poly.terms().items()}, c.op) for c in cs]
        mult = simplex_certificate(rows, lambda n: None)
        if mult is not None:
            assert Certificate(tuple(cs), tuple(mult)).check()
        elif fm:
            pytest.fail("the simplex oracle missed a refutation Fourier–Motzkin found")


def test_large_nlinarith_uses_the_simplex_oracle() -> None:
    a, b, c = Poly.var("a"), Poly.var("b"), Poly.var("c")
    hyps = [Constraint.lt(0, a), Constraint.lt(0, b), Constraint.lt(0, c), Constraint.eq(a + b + c, 3)]
    sq = [Constraint.le(0, (a - b) ** 2), Constraint.le(0, (b - c) ** 2), Constraint.le(0, (c - a) ** 2)]
    certs = nlinarith_certificate(hyps, Constraint.le(a * b + b * c + c * a, 3), extra_terms=sq)
    assert certs is not None and all(cert.check() for cert in certs)
    assert not nlinarith(hyps, Constraint.le(a * b + b * c + c * a, 2), extra_terms=sq)  # a = b = c = 1


def test_omega_balanced_mod_equalities() -> None:
    # no unit coefficient: Pugh's balanced-mod step is needed to use the equality exactly
    box = [Constraint.le(0, X), Constraint.le(X, 1), Constraint.le(0, Y), Constraint.le(Y, 1)]
    assert omega([*box, Constraint.eq(3 * X + 5 * Y, 1)], None)
    assert not omega([*box, Constraint.eq(3 * X + 5 * Y, 8)], None)  # x = y = 1
    assert omega(
        [
            Constraint.eq(6 * X + 10 * Y + 15 * Z, 1),
            Constraint.le(0, X),
            Constraint.le(0, Y),
            Constraint.le(0, Z),
            Constraint.le(X + Y + Z, 1),
        ],
        None,
    )
    assert not omega([Constraint.eq(6 * X + 10 * Y + 15 * Z, 1)], None)  # (1, 1, -1)


def test_unicode_domains_and_deterministic_printing() -> None:
    assert binop("-", 3, 5, "ℕ") == 0 and binop("/", -7, 2, "ℤ") == -4 and binop("/", F(1), F(0), "ℝ") == 0
    with pytest.raises(ValueError, match="unknown numeric domain"):
        binop("+", 1, 1, "ℂ")  # type: ignore[arg-type]
    atoms = [("app", "f", i) for i in range(5)]
    p = sum((Poly.var(a) * (i + 1) for i, a in enumerate(reversed(atoms))), Poly.zero())
    q = sum((Poly.var(a) * (5 - i) for i, a in enumerate(atoms)), Poly.zero())
    assert p == q and p.to_lean(repr) == q.to_lean(repr)


# ------------------------------------------------------------------------------------------------
# omega with the helpers for ℕ subtraction, `/` and `%` by numerals, end to end against brute force


class _NatConv:
    """A miniature of the interpreter's conversion: ℕ terms to polynomials plus omega side facts."""

    def __init__(self) -> None:
        self.facts: list[Constraint] = []
        self.cases: list[tuple[tuple[Constraint, ...], ...]] = []
        self.nat: set[object] = {"x", "y"}

    def poly(self, t: tuple) -> Poly:
        h = t[0]
        if h == "var":
            return Poly.var(t[1])
        if h == "num":
            return Poly.const(t[1])
        a = self.poly(t[1])
        if h in ("+", "*"):
            b = self.poly(t[2])
            return a + b if h == "+" else a * b
        if h == "-":
            b = self.poly(t[2])
            self.nat.add(t)
            self.cases.append(nat_sub_cases(a, b, t))
            return Poly.var(t)
        k = t[2]
        q, r = ("/", t[1], k), ("%", t[1], k)
        self.nat.update((q, r))
        self.facts.extend(div_mod_constraints(a, k, q, r))
        return Poly.var(q if h == "/" else r)


def _nat_value(t: tuple, env: dict[str, int]) -> int:
    h = t[0]
    if h == "var":
        return env[t[1]]
    if h == "num":
        return t[1]
    a = _nat_value(t[1], env)
    if h in ("/", "%"):
        k = t[2]
        return (0 if k == 0 else a // k) if h == "/" else (a if k == 0 else a % k)
    b = _nat_value(t[2], env)
    return {"+": a + b, "*": a * b, "-": max(a - b, 0)}[h]


@st.composite
def nat_terms(draw: st.DrawFn, depth: int = 2) -> tuple:
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from([("var", "x"), ("var", "y"), ("num", 1), ("num", 2), ("num", 3)]))
    op = draw(st.sampled_from(["+", "-", "-", "/", "%", "*"]))
    a = draw(nat_terms(depth - 1))
    if op in ("/", "%"):
        return (op, a, draw(st.sampled_from([0, 1, 2, 3])))
    b = draw(nat_terms(depth - 1))
    if op == "*" and not (a[0] == "num" or b[0] == "num"):
        op = "+"  # keep it linear
    return (op, a, b)


@settings(max_examples=150, deadline=None)
@given(nat_terms(), nat_terms(), st.sampled_from(["<", "<=", "=", "!="]))
def test_omega_nat_helpers_sound_against_brute_force(lhs: tuple, rhs: tuple, op: str) -> None:
    conv = _NatConv()
    goal = Constraint(conv.poly(lhs) - conv.poly(rhs), op)
    box = [Constraint.le(Poly.var(v), 4) for v in ("x", "y")]
    rel = {
        "<": lambda u, v: u < v,
        "<=": lambda u, v: u <= v,
        "=": lambda u, v: u == v,
        "!=": lambda u, v: u != v,
    }[op]
    counterexample = any(
        not rel(_nat_value(lhs, env), _nat_value(rhs, env))
        for env in ({"x": i, "y": j} for i in range(5) for j in range(5))
    )
    try:
        proved = omega([*box, *conv.facts], goal, nat_atoms=conv.nat, disjunctions=conv.cases)
    except ArithBudgetExceeded:
        return
    if counterexample:
        assert not proved, f"omega proved {lhs} {op} {rhs} on 0 ≤ x, y ≤ 4"


def test_omega_nat_helpers_prove_lean_facts() -> None:
    conv = _NatConv()
    x = ("var", "x")
    # x - 1 + 1 = x fails at x = 0, but x % 2 < 2 and x / 2 * 2 ≤ x hold
    assert not omega(
        [*conv.facts],
        Constraint.eq(conv.poly(("+", ("-", x, ("num", 1)), ("num", 1))), Poly.var("x")),
        nat_atoms=conv.nat,
        disjunctions=conv.cases,
    )
    conv = _NatConv()
    lhs = conv.poly(("%", x, 2))
    assert omega(conv.facts, Constraint.lt(lhs, 2), nat_atoms=conv.nat)
    conv = _NatConv()
    lhs = conv.poly(("*", ("/", x, 2), ("num", 2)))
    assert omega(conv.facts, Constraint.le(lhs, Poly.var("x")), nat_atoms=conv.nat)
    conv = _NatConv()
    lhs = conv.poly(("-", x, ("var", "y")))
    assert omega(conv.facts, Constraint.le(lhs, Poly.var("x")), nat_atoms=conv.nat, disjunctions=conv.cases)


def test_omega_budget_and_split_limits() -> None:
    many_ne = [Constraint.ne(X, k) for k in range(12)]
    with pytest.raises(ArithBudgetExceeded, match="case split"):
        omega(many_ne, None)
    rng = random.Random(1)
    vs = [Poly.var(f"v{i}") for i in range(8)]
    hyps = [
        Constraint(sum((rng.randint(-5, 5) * v for v in vs), Poly.zero()) + rng.randint(-9, 9), "<=")
        for _ in range(30)
    ]
    with pytest.raises(ArithBudgetExceeded, match="budget"):
        omega(hyps, None, budget=10)
