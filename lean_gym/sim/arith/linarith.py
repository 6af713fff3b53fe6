"""``linarith`` and ``nlinarith``: refutation of linear constraints over ordered fields.

Everything is a :class:`Constraint` ``p op 0`` with ``op`` one of ``<``, ``<=``, ``=`` (and ``!=``, which
``linarith`` ignores exactly as Lean's does). To prove a goal, its negation is added to the hypotheses
and the set is refuted: a non-negative rational combination of the constraints (equalities with any
sign) whose polynomial is a constant ``c`` with ``c > 0``, or ``c = 0`` while some strict constraint
has a positive multiplier, is a contradiction (Positivstellensatz of degree 1; this is the certificate
Lean's ``linarith`` also looks for). Non-linear monomials (``x*y``, ``x^2``) are opaque atoms, as in
Lean. The search is exact Fourier–Motzkin elimination over ℚ, complete for linear arithmetic over ordered
fields and bounded by a work budget.

Example:
    >>> from lean_gym.sim.arith.poly import Poly
    >>> x, y = Poly.var("x"), Poly.var("y")
    >>> linarith([Constraint.lt(x, y), Constraint.lt(y, 3)], Constraint.le(x, 3))
    True
    >>> linarith([Constraint.le(x, y)], Constraint.lt(x, y))
    False
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from lean_gym.sim.arith.errors import ArithBudgetExceeded, WorkBudget
from lean_gym.sim.arith.poly import Monomial, Number, Poly
from lean_gym.sim.arith.poly import monomial_order_key as _mono_key
from lean_gym.sim.arith.simplex import simplex_certificate

__all__ = [
    "DEFAULT_LINARITH_BUDGET",
    "DEFAULT_NLINARITH_BUDGET",
    "Certificate",
    "Constraint",
    "Op",
    "linarith",
    "linarith_certificate",
    "nlinarith",
    "nlinarith_certificate",
    "square_atoms",
]

Op = Literal["<", "<=", "=", "!="]

DEFAULT_LINARITH_BUDGET = 20_000
"""Default cap on Fourier–Motzkin combinations (pairs of rows combined) for one refutation."""

FM_FIRST_BUDGET = 2_000
"""Fourier–Motzkin gets this many combinations before the problem goes to the simplex oracle."""

DEFAULT_NLINARITH_BUDGET = 60_000
"""Default cap for :func:`nlinarith`, whose product terms make larger problems."""

_OP_ALIASES = {
    "<": "<",
    "<=": "<=",
    "≤": "<=",
    "=": "=",
    "==": "=",
    "!=": "!=",
    "≠": "!=",
}


@dataclass(frozen=True)
class Constraint:
    """The fact ``poly op 0``.

    Attributes:
        poly: The left-hand side; the right-hand side is always 0.
        op: ``"<"``, ``"<="``, ``"="`` or ``"!="`` (``"≤"``, ``"≠"`` and ``"=="`` are accepted and
            normalised).
    """

    poly: Poly
    op: str

    def __post_init__(self) -> None:
        op = _OP_ALIASES.get(self.op)
        if op is None:
            raise ValueError(f"unknown comparison {self.op!r}; use one of '<', '<=', '=', '!='")
        if op != self.op:
            object.__setattr__(self, "op", op)
        if not isinstance(self.poly, Poly):
            object.__setattr__(self, "poly", Poly.coerce(self.poly))

    # Builders: a R b becomes (a - b) R' 0.
    @classmethod
    def lt(cls, a: Poly | Number, b: Poly | Number) -> Constraint:
        """``a < b``."""
        return cls(Poly.coerce(a) - Poly.coerce(b), "<")

    @classmethod
    def le(cls, a: Poly | Number, b: Poly | Number) -> Constraint:
        """``a ≤ b``."""
        return cls(Poly.coerce(a) - Poly.coerce(b), "<=")

    @classmethod
    def gt(cls, a: Poly | Number, b: Poly | Number) -> Constraint:
        """``a > b``."""
        return cls(Poly.coerce(b) - Poly.coerce(a), "<")

    @classmethod
    def ge(cls, a: Poly | Number, b: Poly | Number) -> Constraint:
        """``a ≥ b``."""
        return cls(Poly.coerce(b) - Poly.coerce(a), "<=")

    @classmethod
    def eq(cls, a: Poly | Number, b: Poly | Number) -> Constraint:
        """``a = b``."""
        return cls(Poly.coerce(a) - Poly.coerce(b), "=")

    @classmethod
    def ne(cls, a: Poly | Number, b: Poly | Number) -> Constraint:
        """``a ≠ b`` (usable by :func:`~lean_gym.sim.arith.omega.omega`, ignored by ``linarith``)."""
        return cls(Poly.coerce(a) - Poly.coerce(b), "!=")

    @classmethod
    def compare(cls, a: Poly | Number, rel: str, b: Poly | Number) -> Constraint:
        """``a rel b`` for ``rel`` in ``< <= ≤ > >= ≥ = ≠ !=``."""
        builders = {
            "<": cls.lt,
            "<=": cls.le,
            "≤": cls.le,
            ">": cls.gt,
            ">=": cls.ge,
            "≥": cls.ge,
            "=": cls.eq,
            "==": cls.eq,
            "!=": cls.ne,
            "≠": cls.ne,
        }
        if rel not in builders:
            raise ValueError(f"unknown comparison {rel!r}")
        return builders[rel](a, b)

    def negations(self) -> tuple[Constraint, ...]:
        """The disjuncts of ``¬ self`` (two for ``=``, which is ``<`` or ``>``)."""
        p = self.poly
        if self.op == "<":
            return (Constraint(-p, "<="),)
        if self.op == "<=":
            return (Constraint(-p, "<"),)
        if self.op == "=":
            return (Constraint(p, "<"), Constraint(-p, "<"))
        return (Constraint(p, "="),)

    def holds(self, assignment: Mapping[Any, Number] | Any) -> bool:
        """Whether the constraint is true when atoms take the rational values in ``assignment``."""
        v = self.poly.eval(assignment)
        return _holds_value(v, self.op)

    def atoms(self) -> frozenset[Any]:
        """The atoms of :attr:`poly`."""
        return self.poly.atoms()

    def is_trivial(self) -> bool | None:
        """``True``/``False`` when the constraint has no atoms (so its truth is known), else ``None``."""
        if not self.poly.is_const():
            return None
        return _holds_value(self.poly.const_value(), self.op)

    def strengthen_int(self) -> Constraint:
        """Over ℤ: ``p < 0`` with integer coefficients becomes ``p + 1 ≤ 0`` (Lean's ``strengthenStrictInt``)."""
        if self.op == "<" and self.poly.has_integer_coefficients():
            return Constraint(self.poly + 1, "<=")
        return self

    def __str__(self) -> str:
        return f"{self.poly} {self.op} 0"


def _holds_value(v: Fraction, op: str) -> bool:
    if op == "<":
        return v < 0
    if op == "<=":
        return v <= 0
    if op == "=":
        return v == 0
    return v != 0


@dataclass(frozen=True)
class Certificate:
    """A proof that ``constraints`` are contradictory: ``Σ multipliers[i] · constraints[i].poly`` is constant.

    Attributes:
        constraints: The constraints refuted (hypotheses after preprocessing, then the negated goal).
        multipliers: One rational per constraint, ``≥ 0`` except for equalities.
    """

    constraints: tuple[Constraint, ...]
    multipliers: tuple[Fraction, ...]

    def check(self) -> bool:
        """Re-verify the certificate from scratch (independent of the search that produced it)."""
        if len(self.constraints) != len(self.multipliers):
            return False
        total = Poly.zero()
        strict = False
        for c, m in zip(self.constraints, self.multipliers):
            if m == 0:
                continue
            if c.op == "!=":
                return False
            if c.op in ("<", "<=") and m < 0:
                return False
            if c.op == "<" and m > 0:
                strict = True
            total = total + c.poly.scale(m)
        if not total.is_const():
            return False
        k = total.const_value()
        return k > 0 or (k == 0 and strict)


# ----------------------------------------------------------------------------------------------------
# Fourier–Motzkin core over rows with integer coefficients.


class _Row:
    """``Σ coeffs[m]·m + const  (< if strict else ≤ ; = if eq)  0`` with coprime int coefficients."""

    __slots__ = ("coeffs", "const", "eq", "hist", "mult", "strict")

    def __init__(
        self,
        coeffs: dict[Monomial, int],
        const: Fraction,
        strict: bool,
        eq: bool,
        hist: frozenset[int],
        mult: dict[int, Fraction] | None,
    ) -> None:
        self.coeffs = coeffs
        self.const = const
        self.strict = strict
        self.eq = eq
        self.hist = hist
        self.mult = mult

    def contradiction(self) -> bool | None:
        """For a row without atoms: ``True`` when it is false; ``False`` when true; ``None`` otherwise."""
        if self.coeffs:
            return None
        c = self.const
        if self.eq:
            return c != 0
        return c > 0 or (self.strict and c >= 0)


def _row_from(c: Constraint, idx: int, want_mult: bool) -> _Row:
    coeffs: dict[Monomial, Fraction] = {}
    const = Fraction(0)
    for m, q in c.poly.terms().items():
        if m:
            coeffs[m] = Fraction(q)
        else:
            const = Fraction(q)
    mult = {idx: Fraction(1)} if want_mult else None
    row = _Row({}, const, c.op == "<", c.op == "=", frozenset((idx,)), mult)
    return _normalise(row, coeffs)


def _normalise(row: _Row, coeffs: Mapping[Monomial, Fraction | int]) -> _Row:
    """Scale ``row`` (with rational ``coeffs``) by a positive rational so coefficients are coprime ints."""
    if not coeffs:
        row.coeffs = {}
        return row
    num = 0
    den = 1
    for q in coeffs.values():
        if type(q) is int:
            num = math.gcd(num, q)
        else:
            num = math.gcd(num, q.numerator)
            d = q.denominator
            den = den * d // math.gcd(den, d)
    # multiply by den / num (positive)
    if den == 1 and num == 1:
        row.coeffs = {m: int(q) for m, q in coeffs.items()}
        return row
    scale = Fraction(den, num)
    row.coeffs = {m: int(q * scale) for m, q in coeffs.items()}
    row.const = row.const * scale
    if row.mult is not None:
        row.mult = {k: v * scale for k, v in row.mult.items()}
    return row


def _combine(a: _Row, ka: int, b: _Row, kb: int, hist: frozenset[int]) -> _Row:
    """``ka·a + kb·b`` (``ka > 0``; ``kb > 0`` unless ``b`` is an equality), renormalised."""
    coeffs: dict[Monomial, int] = {m: ka * v for m, v in a.coeffs.items()}
    for m, v in b.coeffs.items():
        s = coeffs.get(m, 0) + kb * v
        if s:
            coeffs[m] = s
        else:
            coeffs.pop(m, None)
    const = a.const * ka + b.const * kb
    strict = a.strict or (b.strict and kb != 0)
    mult: dict[int, Fraction] | None = None
    if a.mult is not None and b.mult is not None:
        mult = {k: q * ka for k, q in a.mult.items()}
        for k, q in b.mult.items():
            mult[k] = mult.get(k, Fraction(0)) + q * kb
    row = _Row({}, const, strict, a.eq, hist, mult)
    g = 0
    for v in coeffs.values():
        g = math.gcd(g, v)
        if g == 1:
            break
    if g > 1:
        coeffs = {m: v // g for m, v in coeffs.items()}
        row.const = row.const / g
        if row.mult is not None:
            row.mult = {k: v / g for k, v in row.mult.items()}
    row.coeffs = coeffs
    return row


# Row histories are not tracked: Chernikov's redundancy rule is only valid with Imbert's accounting of
# implicitly eliminated variables, and dropping a needed row loses completeness (the tests found one).
_NO_HIST: frozenset[int] = frozenset()


class _Budget(WorkBudget):
    __slots__ = ()
    what = "linear arithmetic search"


def _refute(rows: list[_Row], budget: WorkBudget) -> _Row | None:
    """Return a contradictory row derived from ``rows`` (a certificate), or ``None``."""
    eqs: list[_Row] = []
    ineqs: list[_Row] = []
    for r in rows:
        bad = r.contradiction()
        if bad is True:
            return r
        if bad is False:
            continue
        (eqs if r.eq else ineqs).append(r)

    # Gaussian elimination of equalities (exact: equalities may be scaled by any sign).
    while eqs:
        e = eqs.pop()
        if not e.coeffs:
            if e.contradiction():
                return e
            continue
        v, ev = min(e.coeffs.items(), key=lambda kv: (abs(kv[1]), len(kv[0])))
        sign = 1 if ev > 0 else -1
        aev = abs(ev)

        def elim(r: _Row, e: _Row = e, v: Monomial = v, sign: int = sign, aev: int = aev) -> _Row:
            rv = r.coeffs.get(v)
            if rv is None:
                return r
            budget.spend()
            return _combine(r, aev, e, -sign * rv, _NO_HIST)

        new_eqs = []
        for r in eqs:
            r2 = elim(r)
            bad = r2.contradiction()
            if bad is True:
                return r2
            if bad is None:
                new_eqs.append(r2)
        eqs = new_eqs
        new_ineqs = []
        for r in ineqs:
            r2 = elim(r)
            bad = r2.contradiction()
            if bad is True:
                return r2
            if bad is None:
                new_ineqs.append(r2)
        ineqs = new_ineqs

    ineqs = _prune(ineqs)
    while ineqs:
        pos: dict[Monomial, int] = {}
        neg: dict[Monomial, int] = {}
        for r in ineqs:
            for m, c in r.coeffs.items():
                if c > 0:
                    pos[m] = pos.get(m, 0) + 1
                else:
                    neg[m] = neg.get(m, 0) + 1
        best = None
        best_cost = None
        for m in pos.keys() | neg.keys():
            p, n = pos.get(m, 0), neg.get(m, 0)
            cost = (p * n - p - n, _mono_key(m))  # ties broken by a stable key: deterministic runs
            if best_cost is None or cost < best_cost:
                best, best_cost = m, cost
        if best is None:
            return None
        v = best
        keep: list[_Row] = []
        ups: list[_Row] = []
        downs: list[_Row] = []
        for r in ineqs:
            cv = r.coeffs.get(v)
            if cv is None:
                keep.append(r)
            elif cv > 0:
                ups.append(r)
            else:
                downs.append(r)
        budget.spend(len(ups) * len(downs))
        for a in ups:
            ca = a.coeffs[v]
            for b in downs:
                cb = -b.coeffs[v]
                r = _combine(a, cb, b, ca, _NO_HIST)
                r.coeffs.pop(v, None)
                bad = r.contradiction()
                if bad is True:
                    return r
                if bad is None:
                    keep.append(r)
        ineqs = _prune(keep)
    return None


def _prune(rows: list[_Row]) -> list[_Row]:
    """Keep, for each coefficient vector, only the strongest row."""
    best: dict[frozenset[tuple[Monomial, int]], _Row] = {}
    for r in rows:
        key = frozenset(r.coeffs.items())
        cur = best.get(key)
        if cur is None or r.const > cur.const or (r.const == cur.const and r.strict and not cur.strict):
            best[key] = r
    return list(best.values())


# ----------------------------------------------------------------------------------------------------
# Public entry points.


def _prepare_hyps(hyps: Iterable[Constraint], integer: bool, nonneg_atoms: Iterable[Any]) -> list[Constraint]:
    out: list[Constraint] = []
    for h in hyps:
        if not isinstance(h, Constraint):
            raise TypeError(f"hypotheses must be Constraint objects, got {type(h).__name__}")
        if h.op == "!=":
            continue  # linarith ignores ≠ hypotheses, as Lean's does
        out.append(h.strengthen_int() if integer else h)
    for a in nonneg_atoms:
        out.append(Constraint(-Poly.var(a), "<="))
    return out


def _goal_branches(goal: Constraint | None, integer: bool) -> list[Constraint | None]:
    """The negated goal for each refutation to run (``None``: refute the hypotheses alone)."""
    if goal is None or goal.op == "!=":
        return [None]
    if goal.op == "=":
        branches: list[Constraint | None] = [Constraint(goal.poly, "<"), Constraint(-goal.poly, "<")]
    else:
        branches = list(goal.negations())
    if integer:
        branches = [b.strengthen_int() if b is not None else None for b in branches]
    return branches


def _certificate(constraints: list[Constraint], budget: WorkBudget, want_mult: bool) -> Certificate | None:
    """Refute ``constraints``: Fourier–Motzkin first (fast on small problems), then the simplex oracle."""
    rows = [_row_from(c, i, want_mult) for i, c in enumerate(constraints)]
    fm = _Budget(budget.left_upto(FM_FIRST_BUDGET))
    try:
        row = _refute(rows, fm)
    except ArithBudgetExceeded:
        budget.spend(fm.total)
        return _simplex(constraints, budget)
    budget.spend(fm.total - fm.left)
    if row is None:
        return None
    if not want_mult or row.mult is None:
        return Certificate(tuple(constraints), ())
    sign = -1 if row.eq and row.const < 0 else 1  # an equality c = 0 with c < 0: use -1 times it
    mults = tuple(sign * Fraction(row.mult.get(i, 0)) for i in range(len(constraints)))
    return Certificate(tuple(constraints), mults)


def _simplex(constraints: list[Constraint], budget: WorkBudget) -> Certificate | None:
    usable = [c for c in constraints if c.op != "!="]
    rows = [({m: Fraction(q) for m, q in c.poly.terms().items()}, c.op) for c in usable]
    mult = simplex_certificate(rows, budget.spend)
    if mult is None:
        return None
    cert = Certificate(tuple(usable), tuple(mult))
    # The oracle's answer is re-verified exactly; a failed check (a bug) is reported as "no proof".
    return cert if cert.check() else None


def _run(
    hyps: Sequence[Constraint],
    goal: Constraint | None,
    integer: bool,
    nonneg_atoms: Iterable[Any],
    budget: int | WorkBudget | None,
    want_mult: bool,
    default_budget: int,
) -> tuple[Certificate, ...] | None:
    base = _prepare_hyps(hyps, integer, nonneg_atoms)
    b = budget if isinstance(budget, WorkBudget) else _Budget(default_budget if budget is None else budget)
    certs = []
    for neg in _goal_branches(goal, integer):
        cs = base if neg is None else [*base, neg]
        cert = _certificate(cs, b, want_mult)
        if cert is None:
            return None
        certs.append(cert)
    return tuple(certs)


def linarith(
    hyps: Sequence[Constraint],
    goal: Constraint | None = None,
    *,
    integer: bool = False,
    nonneg_atoms: Iterable[Any] = (),
    budget: int | WorkBudget | None = None,
) -> bool:
    """Whether ``hyps`` entail ``goal`` (or are contradictory when ``goal`` is ``None``) linearly.

    Mirrors Mathlib's ``linarith`` after its preprocessing: ``≠`` hypotheses are ignored, a ``≠`` goal
    is treated as ``False`` (Lean applies ``exfalso``), an ``=`` goal is proved as ``≤`` and ``≥``, and
    non-linear monomials are atoms. Complete for linear arithmetic over ordered fields up to the
    budget; a ``False`` answer means "linarith failed", never "the goal is false".

    Args:
        hyps: Hypotheses ``p op 0``.
        goal: The goal, or ``None`` to refute the hypotheses.
        integer: Every atom is integer-valued (ℤ, or ℕ cast to ℤ): strict constraints with integer
            coefficients, the negated goal included, are strengthened ``p < 0 ⇒ p + 1 ≤ 0`` first,
            as Lean does over ℤ. Anything beyond that (e.g. ``2*x = 1`` being impossible) needs ``omega``.
        nonneg_atoms: Atoms known to be ``≥ 0`` (ℕ casts, as Lean's ``natToInt`` adds them).
        budget: Maximum number of row combinations (default :data:`DEFAULT_LINARITH_BUDGET`).

    Returns:
        ``True`` when a refutation certificate was found.

    Raises:
        ArithBudgetExceeded: the search needed more than ``budget`` steps.
    """
    return _run(hyps, goal, integer, nonneg_atoms, budget, False, DEFAULT_LINARITH_BUDGET) is not None


def linarith_certificate(
    hyps: Sequence[Constraint],
    goal: Constraint | None = None,
    *,
    integer: bool = False,
    nonneg_atoms: Iterable[Any] = (),
    budget: int | WorkBudget | None = None,
) -> tuple[Certificate, ...] | None:
    """Like :func:`linarith`, returning one :class:`Certificate` per refuted branch, or ``None``.

    An ``=`` goal gives two certificates (for ``<`` and ``>``); every other goal gives one.
    """
    return _run(hyps, goal, integer, nonneg_atoms, budget, True, DEFAULT_LINARITH_BUDGET)


# ----------------------------------------------------------------------------------------------------
# nlinarith


def square_atoms(polys: Iterable[Poly]) -> list[Poly]:
    """Atoms that occur squared (exponent ≥ 2) in some monomial of ``polys``, as polynomials.

    A stand-in for Lean's syntactic search for ``t ^ 2`` and ``t * t`` when the caller only has
    normal forms; callers that have the syntax should pass the squared subterms themselves.
    """
    seen: dict[Any, None] = {}
    for p in polys:
        for m in p.terms():
            for a, e in m:
                if e >= 2:
                    seen.setdefault(a, None)
    return [Poly.var(a) for a in seen]


def _product(a: Constraint, b: Constraint) -> Constraint:
    """The product fact of ``a.poly R1 0`` and ``b.poly R2 0`` (both ``≤ 0`` sides multiply to ``≥ 0``)."""
    p = a.poly * b.poly
    if a.op == "=" or b.op == "=":
        return Constraint(p, "=")
    if a.op == "<" and b.op == "<":
        return Constraint(-p, "<")
    return Constraint(-p, "<=")


def _nl_constraints(base: list[Constraint], squares: Sequence[Poly], degree: int) -> list[Constraint]:
    sq_facts: list[Constraint] = []
    seen: set[Poly] = set()
    for t in squares:
        t = Poly.coerce(t)
        if t in seen:
            continue
        seen.add(t)
        sq_facts.append(Constraint(-(t * t), "<="))
    ls = [*sq_facts, *base]
    if degree < 2:
        return ls
    products = []
    for i in range(len(ls)):
        for j in range(i, len(ls)):
            products.append(_product(ls[i], ls[j]))
    return [*ls, *products]


def _nl_run(
    hyps: Sequence[Constraint],
    goal: Constraint | None,
    extra_terms: Sequence[Constraint],
    squares: Sequence[Poly] | None,
    degree: int,
    integer: bool,
    nonneg_atoms: Iterable[Any],
    budget: int | WorkBudget | None,
    want_mult: bool,
) -> tuple[Certificate, ...] | None:
    if degree not in (1, 2):
        raise ValueError(f"nlinarith supports degree 2 (Lean's products of pairs) or 1, got {degree}")
    base = _prepare_hyps([*extra_terms, *hyps], integer, nonneg_atoms)
    b = (
        budget
        if isinstance(budget, WorkBudget)
        else _Budget(DEFAULT_NLINARITH_BUDGET if budget is None else budget)
    )
    certs = []
    for neg in _goal_branches(goal, integer):
        cs = base if neg is None else [*base, neg]
        sq = square_atoms(c.poly for c in cs) if squares is None else list(squares)
        allcs = _nl_constraints(cs, sq, degree)
        cert = _certificate(allcs, b, want_mult)
        if cert is None:
            return None
        certs.append(cert)
    return tuple(certs)


def nlinarith(
    hyps: Sequence[Constraint],
    goal: Constraint | None = None,
    *,
    extra_terms: Sequence[Constraint] = (),
    squares: Sequence[Poly] | None = None,
    degree: int = 2,
    integer: bool = False,
    nonneg_atoms: Iterable[Any] = (),
    budget: int | WorkBudget | None = None,
) -> bool:
    """``linarith`` after Mathlib's ``nlinarith`` preprocessing.

    For each refutation branch (the hypotheses, ``extra_terms`` and the negated goal): add
    ``t^2 ≥ 0`` for every square ``t`` (``squares``), then the product of every pair (including each
    with itself) of these comparisons, then run :func:`linarith`. Every added fact is true, so the
    procedure stays sound.

    Args:
        hyps: Hypotheses from the context.
        goal: The goal, or ``None`` to refute.
        extra_terms: The facts given in brackets (``nlinarith [sq_nonneg (a - b), h]``), converted by
            the caller; they take part in the products, as in Lean.
        squares: Terms ``t`` that occur as ``t ^ 2`` or ``t * t`` in the hypotheses or goal (Lean's
            syntactic ``findSquares``). ``None``: use :func:`square_atoms` of the normal forms.
        degree: 2 (products of pairs, Lean's behaviour) or 1 (squares only).
        integer: As for :func:`linarith` (strengthening happens before the products, as in Lean).
        nonneg_atoms: As for :func:`linarith`.
        budget: Maximum number of row combinations (default :data:`DEFAULT_NLINARITH_BUDGET`).

    Raises:
        ArithBudgetExceeded: the search needed more than ``budget`` steps.
        ValueError: ``degree`` is not 1 or 2.
    """
    return _nl_run(hyps, goal, extra_terms, squares, degree, integer, nonneg_atoms, budget, False) is not None


def nlinarith_certificate(
    hyps: Sequence[Constraint],
    goal: Constraint | None = None,
    *,
    extra_terms: Sequence[Constraint] = (),
    squares: Sequence[Poly] | None = None,
    degree: int = 2,
    integer: bool = False,
    nonneg_atoms: Iterable[Any] = (),
    budget: int | WorkBudget | None = None,
) -> tuple[Certificate, ...] | None:
    """Like :func:`nlinarith`, returning the certificates (over the products as atoms-level facts)."""
    return _nl_run(hyps, goal, extra_terms, squares, degree, integer, nonneg_atoms, budget, True)
