"""Decision procedures of the simulator: polynomial normal forms, ``linarith``, ``nlinarith``, ``omega``,
positivity heuristics and exact evaluation with Lean's semantics.

Everything here works on :class:`Poly` (polynomials with rational coefficients over opaque atoms) and
:class:`Constraint` (``poly op 0``); the tactic interpreter in :mod:`lean_gym.sim` converts terms to
these types. Every procedure is sound: a ``True`` answer comes with a reason that holds in Lean's
semantics. ``False`` only means the procedure failed. See ``docs/simulator-arith.md``.
"""

from __future__ import annotations

from lean_gym.sim.arith.errors import ArithBudgetExceeded, EvalTooExpensive
from lean_gym.sim.arith.evaluate import (
    DEFAULT_MAX_BITS,
    Domain,
    Value,
    abs_value,
    binop,
    cast,
    compare,
    dvd,
    factorial,
    field_div,
    int_ediv,
    int_emod,
    inv,
    nat_div,
    nat_gcd,
    nat_lcm,
    nat_mod,
    nat_sub,
    neg,
    pow_value,
    zpow,
)
from lean_gym.sim.arith.linarith import (
    DEFAULT_LINARITH_BUDGET,
    DEFAULT_NLINARITH_BUDGET,
    Certificate,
    Constraint,
    Op,
    linarith,
    linarith_certificate,
    nlinarith,
    nlinarith_certificate,
    square_atoms,
)
from lean_gym.sim.arith.omega import (
    DEFAULT_OMEGA_BUDGET,
    MAX_OMEGA_BRANCHES,
    MAX_OMEGA_SPLITS,
    div_mod_constraints,
    dvd_constraints,
    nat_sub_cases,
    not_dvd_constraints,
    omega,
)
from lean_gym.sim.arith.poly import MAX_POW_TERMS, Monomial, Number, Poly, atom_sort_key
from lean_gym.sim.arith.positivity import Sign, is_nonneg_sos, is_pos, monomial_sign, poly_sign
from lean_gym.sim.arith.simplex import simplex_certificate

__all__ = [
    "DEFAULT_LINARITH_BUDGET",
    "DEFAULT_MAX_BITS",
    "DEFAULT_NLINARITH_BUDGET",
    "DEFAULT_OMEGA_BUDGET",
    "MAX_OMEGA_BRANCHES",
    "MAX_OMEGA_SPLITS",
    "MAX_POW_TERMS",
    "ArithBudgetExceeded",
    "Certificate",
    "Constraint",
    "Domain",
    "EvalTooExpensive",
    "Monomial",
    "Number",
    "Op",
    "Poly",
    "Sign",
    "Value",
    "abs_value",
    "atom_sort_key",
    "binop",
    "cast",
    "compare",
    "div_mod_constraints",
    "dvd",
    "dvd_constraints",
    "factorial",
    "field_div",
    "int_ediv",
    "int_emod",
    "inv",
    "is_nonneg_sos",
    "is_pos",
    "linarith",
    "linarith_certificate",
    "monomial_sign",
    "nat_div",
    "nat_gcd",
    "nat_lcm",
    "nat_mod",
    "nat_sub",
    "nat_sub_cases",
    "neg",
    "nlinarith",
    "nlinarith_certificate",
    "not_dvd_constraints",
    "omega",
    "poly_sign",
    "pow_value",
    "simplex_certificate",
    "square_atoms",
    "zpow",
]
