"""``omega``: linear arithmetic over ℤ and ℕ.

The input is the same :class:`~lean_gym.sim.arith.linarith.Constraint` language as ``linarith``, with
every atom integer-valued (ℤ terms, or ℕ terms cast to ℤ; atoms listed in ``nat_atoms`` are also
``≥ 0``). The procedure follows the omega test as Lean's ``omega`` implements it: exact elimination of
equalities (with Pugh's balanced-mod substitution when no coefficient is ±1), normalisation with
tightening (``Σ aᵢxᵢ + c ≤ 0`` divided by ``g = gcd aᵢ`` gives ``Σ (aᵢ/g)xᵢ + ⌈c/g⌉ ≤ 0``), detection of
opposite bounds that pin an equality, and Fourier–Motzkin elimination (exact when a unit coefficient
allows, the real shadow otherwise). ``≠`` facts (and the negation of an ``=`` goal) are case split into
``<`` and ``>``. Like Lean's implementation it has no dark or grey shadows, so it can fail on true goals;
it never proves a false one.

``x / k`` and ``x % k`` for a numeral ``k`` become fresh atoms ``q`` and ``r`` with the facts from
:func:`div_mod_constraints`; ``k ∣ x`` uses :func:`dvd_constraints`.

Example:
    >>> from lean_gym.sim.arith.poly import Poly
    >>> x = Poly.var("x")
    >>> omega([Constraint.eq(2 * x, 1)], None)
    True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from lean_gym.sim.arith.errors import ArithBudgetExceeded, WorkBudget
from lean_gym.sim.arith.linarith import Constraint
from lean_gym.sim.arith.poly import Monomial, Number, Poly
from lean_gym.sim.arith.poly import monomial_order_key as _mono_key

__all__ = [
    "DEFAULT_OMEGA_BUDGET",
    "MAX_OMEGA_BRANCHES",
    "MAX_OMEGA_SPLITS",
    "div_mod_constraints",
    "dvd_constraints",
    "nat_sub_cases",
    "not_dvd_constraints",
    "omega",
]

DEFAULT_OMEGA_BUDGET = 20_000
"""Default cap on elimination steps, summed over all case splits."""

MAX_OMEGA_SPLITS = 10
"""At most this many ``≠`` facts are case split; more raise :class:`ArithBudgetExceeded`."""

MAX_OMEGA_BRANCHES = 1024
"""At most this many case-split branches (``≠`` facts and ``disjunctions`` together)."""


class _Fresh:
    """A fresh integer variable introduced by the balanced-mod equality elimination."""

    __slots__ = ("n",)

    def __init__(self, n: int) -> None:
        self.n = n

    def __repr__(self) -> str:
        return f"σ{self.n}"


class _Row:
    """``Σ coeffs[m]·m + const ≤ 0`` (or ``= 0`` when ``eq``) with integer data."""

    __slots__ = ("coeffs", "const", "eq")

    def __init__(self, coeffs: dict[Monomial, int], const: int, eq: bool) -> None:
        self.coeffs = coeffs
        self.const = const
        self.eq = eq


class _Unsat(Exception):
    """Internal: the current branch is contradictory."""


class _Budget(WorkBudget):
    __slots__ = ()
    what = "omega"


def _to_row(c: Constraint) -> _Row:
    """Scale ``c`` to integer data; ``<`` becomes ``≤`` with ``+1`` (sound over ℤ)."""
    den = 1
    for q in c.poly.terms().values():
        if isinstance(q, Fraction):
            den = den * q.denominator // math.gcd(den, q.denominator)
    coeffs: dict[Monomial, int] = {}
    const = 0
    for m, q in c.poly.terms().items():
        v = int(q * den)
        if m:
            coeffs[m] = v
        else:
            const = v
    if c.op == "<":
        const += 1
    return _Row(coeffs, const, c.op == "=")


def _normalise(r: _Row) -> _Row | None:
    """Tighten ``r``; ``None`` when it is trivially true. Raises ``_Unsat`` when trivially false."""
    if not r.coeffs:
        if (r.eq and r.const != 0) or (not r.eq and r.const > 0):
            raise _Unsat
        return None
    g = 0
    for v in r.coeffs.values():
        g = math.gcd(g, v)
        if g == 1:
            break
    if g > 1:
        if r.eq:
            if r.const % g:
                raise _Unsat
            return _Row({m: v // g for m, v in r.coeffs.items()}, r.const // g, True)
        return _Row({m: v // g for m, v in r.coeffs.items()}, -((-r.const) // g), False)
    return r


def _subst(r: _Row, v: Monomial, lin: dict[Monomial, int], lin_const: int) -> _Row:
    """Replace ``v`` in ``r`` by ``Σ lin + lin_const``."""
    a = r.coeffs.get(v)
    if a is None:
        return r
    coeffs = dict(r.coeffs)
    del coeffs[v]
    for m, c in lin.items():
        s = coeffs.get(m, 0) + a * c
        if s:
            coeffs[m] = s
        else:
            coeffs.pop(m, None)
    return _Row(coeffs, r.const + a * lin_const, r.eq)


def _bal_mod(a: int, m: int) -> int:
    """Pugh's symmetric residue: ``a - m·⌊a/m + 1/2⌋``."""
    return a - m * ((2 * a + m) // (2 * m))


def _solve(rows: list[_Row], budget: WorkBudget, fresh: itertools.count[int], complete: bool = False) -> bool:
    """``True`` when ``rows`` are shown to have no integer solution (``complete``: ``False`` only when
    they have one, see :func:`_shadows`)."""
    try:
        return _solve_inner(rows, budget, fresh, complete)
    except _Unsat:
        return True


def _solve_inner(rows: list[_Row], budget: WorkBudget, fresh: itertools.count[int], complete: bool) -> bool:
    eqs: list[_Row] = []
    ineqs: list[_Row] = []
    for r in rows:
        n = _normalise(r)
        if n is not None:
            (eqs if n.eq else ineqs).append(n)
    while True:
        # 1. Eliminate equalities exactly.
        while eqs:
            budget.spend()
            e = eqs.pop()
            n = _normalise(e)
            if n is None:
                continue
            e = n
            unit = next((m for m, c in e.coeffs.items() if c in (1, -1)), None)
            if unit is not None:
                a = e.coeffs[unit]
                # a·v + rest + c = 0  ⇒  v = -a·(rest + c)   (a = ±1)
                lin = {m: -a * c for m, c in e.coeffs.items() if m != unit}
                lin_const = -a * e.const
                v = unit
            else:
                k, ak = min(e.coeffs.items(), key=lambda kv: abs(kv[1]))
                mod = abs(ak) + 1
                sigma: Monomial = ((_Fresh(next(fresh)), 1),)
                s = 1 if ak > 0 else -1
                lin = {m: s * _bal_mod(c, mod) for m, c in e.coeffs.items() if m != k}
                lin = {m: c for m, c in lin.items() if c}
                lin[sigma] = -s * mod
                lin_const = s * _bal_mod(e.const, mod)
                v = k
                eqs.append(e)  # the equation itself shrinks after substitution
            new_eqs = []
            for r in eqs:
                n = _normalise(_subst(r, v, lin, lin_const))
                if n is not None:
                    new_eqs.append(n)
            eqs = new_eqs
            new_ineqs = []
            for r in ineqs:
                n = _normalise(_subst(r, v, lin, lin_const))
                if n is not None:
                    new_ineqs.append(n)
            ineqs = new_ineqs
        # 2. Keep the strongest row per coefficient vector; opposite rows may pin an equality.
        best: dict[frozenset[tuple[Monomial, int]], _Row] = {}
        for r in ineqs:
            key = frozenset(r.coeffs.items())
            cur = best.get(key)
            if cur is None or r.const > cur.const:
                best[key] = r
        ineqs = list(best.values())
        for key, r in list(best.items()):
            opp = best.get(frozenset((m, -c) for m, c in key))
            if opp is None:
                continue
            total = r.const + opp.const
            if total > 0:
                return True
            if total == 0 and not eqs:
                eqs.append(_Row(dict(r.coeffs), r.const, True))
        if eqs:
            continue
        if not ineqs:
            return False
        # 3. Fourier–Motzkin on one variable, preferring exact eliminations.
        ups: dict[Monomial, list[_Row]] = {}
        downs: dict[Monomial, list[_Row]] = {}
        for r in ineqs:
            for m, c in r.coeffs.items():
                (ups if c > 0 else downs).setdefault(m, []).append(r)
        best_v = None
        best_cost: tuple[int, int, Any] | None = None
        for m in ups.keys() | downs.keys():
            u, d = ups.get(m, []), downs.get(m, [])
            exact = all(r.coeffs[m] == 1 for r in u) or all(r.coeffs[m] == -1 for r in d)
            cost = (0 if exact else 1, len(u) * len(d) - len(u) - len(d), _mono_key(m))
            if best_cost is None or cost < best_cost:
                best_v, best_cost = m, cost
        if best_v is None:
            return False
        v = best_v
        u, d = ups.get(v, []), downs.get(v, [])
        if complete and best_cost is not None and best_cost[0] == 1:
            return _shadows(ineqs, v, u, d, budget, fresh)
        budget.spend(len(u) * len(d) + 1)
        keep = [r for r in ineqs if v not in r.coeffs]
        for ra in u:
            for rb in d:
                nr = _combine(ra, rb, v, 0)
                if nr is not None:
                    keep.append(nr)
        ineqs = keep


def _combine(ra: _Row, rb: _Row, v: Monomial, slack: int) -> _Row | None:
    """The shadow of the upper bound ``ra`` and the lower bound ``rb`` on ``v`` (``v`` eliminated), made
    ``slack`` stronger (0: the real shadow; ``(a−1)(b−1)``: the dark shadow)."""
    ca, cb = ra.coeffs[v], -rb.coeffs[v]
    coeffs = {m: cb * c for m, c in ra.coeffs.items()}
    for m, c in rb.coeffs.items():
        s = coeffs.get(m, 0) + ca * c
        if s:
            coeffs[m] = s
        else:
            coeffs.pop(m, None)
    return _normalise(_Row(coeffs, cb * ra.const + ca * rb.const + slack, False))


def _shadows(
    ineqs: list[_Row],
    v: Monomial,
    u: list[_Row],
    d: list[_Row],
    budget: WorkBudget,
    fresh: itertools.count[int],
) -> bool:
    """Pugh's complete omega test for an inexact elimination of ``v`` (Pugh 1991, "The Omega test: a fast
    and practical integer programming algorithm for dependence analysis", §2.3-2.4): no integer solution
    when the real shadow has none; one when the dark shadow has one; otherwise every integer solution lies
    on a grey-shadow splinter ``b·v = β + i`` (``β ≤ b·v`` a lower bound, ``0 ≤ i ≤ (M·b − M − b)/M``,
    ``M`` the largest coefficient of ``v`` in an upper bound), each solved exactly. Only ``grind``'s
    ``cutsat``, a complete procedure, uses it; Lean's ``omega`` has no dark or grey shadow."""
    keep = [r for r in ineqs if v not in r.coeffs]
    budget.spend(len(u) * len(d) + 1)
    real = keep + [r for ra in u for rb in d if (r := _combine(ra, rb, v, 0)) is not None]
    if _solve(real, budget, fresh, True):
        return True
    budget.spend(len(u) * len(d) + 1)
    try:  # a trivially false dark row says nothing about the problem: go to the grey shadow
        dark = keep + [
            r
            for ra in u
            for rb in d
            if (r := _combine(ra, rb, v, (ra.coeffs[v] - 1) * (-rb.coeffs[v] - 1))) is not None
        ]
    except _Unsat:
        dark = None
    if dark is not None and not _solve(dark, budget, fresh, True):
        return False
    big = max(r.coeffs[v] for r in u)
    for rb in d:
        b = -rb.coeffs[v]
        for i in range((big * b - big - b) // big + 1):
            budget.spend()
            if not _solve([*ineqs, _Row(dict(rb.coeffs), rb.const + i, True)], budget, fresh, True):
                return False
    return True


def _nat_facts(constraints: Iterable[Constraint], nat_atoms: frozenset[Any]) -> list[Constraint]:
    seen: set[Monomial] = set()
    out = []
    for c in constraints:
        for m in c.poly.terms():
            if m and m not in seen and all(a in nat_atoms for a, _ in m):
                seen.add(m)
                out.append(Constraint(-Poly({m: 1}), "<="))
    return out


def omega(
    hyps: Sequence[Constraint],
    goal: Constraint | None = None,
    *,
    nat_atoms: Iterable[Any] = (),
    disjunctions: Sequence[Sequence[Sequence[Constraint]]] = (),
    budget: int | WorkBudget | None = None,
    complete: bool = False,
) -> bool:
    """Whether ``hyps`` entail ``goal`` (or are contradictory when ``goal`` is ``None``) over ℤ.

    Every atom (every monomial, for products) must denote an integer; the caller guarantees it. Atoms in
    ``nat_atoms`` are natural numbers, so every monomial built only from them is ``≥ 0``.

    Args:
        hyps: Hypotheses; ``≠`` is allowed (case split).
        goal: The goal (``<``, ``<=``, ``=``, ``!=``), or ``None`` to refute the hypotheses.
        nat_atoms: Atoms that range over ℕ.
        disjunctions: Extra facts of the form ``A₁ ∨ A₂ ∨ …`` where each ``Aᵢ`` is a conjunction
            (a sequence of constraints), e.g. from :func:`nat_sub_cases` or an ``∨`` hypothesis; every
            combination of alternatives is refuted separately.
        budget: Maximum elimination steps over all branches (default :data:`DEFAULT_OMEGA_BUDGET`).
        complete: Decide the problem (grind's ``cutsat``): an inexact elimination goes through the dark
            and grey shadows (:func:`_shadows`) instead of the real shadow alone, as Lean's ``omega`` does.

    Returns:
        ``True`` when every case is refuted; ``False`` means "omega failed", not "the goal is false".

    Raises:
        ArithBudgetExceeded: the search ran past ``budget``, needs more than :data:`MAX_OMEGA_SPLITS`
            ``≠`` splits, or more than :data:`MAX_OMEGA_BRANCHES` branches in all.
    """
    cs: list[Constraint] = []
    for h in hyps:
        if not isinstance(h, Constraint):
            raise TypeError(f"hypotheses must be Constraint objects, got {type(h).__name__}")
        cs.append(h)
    if goal is not None:
        neg = goal.negations()
        if len(neg) == 1:
            cs.append(neg[0])
        else:  # ¬(p = 0) is p ≠ 0
            cs.append(Constraint(goal.poly, "!="))
    alternatives: list[list[tuple[Constraint, ...]]] = []
    for c in cs:
        if c.op == "!=":
            alternatives.append([(Constraint(c.poly, "<"),), (Constraint(-c.poly, "<"),)])
    if len(alternatives) > MAX_OMEGA_SPLITS:
        raise ArithBudgetExceeded(f"omega would case split on {len(alternatives)} facts of the form a ≠ b")
    plain = [c for c in cs if c.op != "!="]
    for d in disjunctions:
        alts = []
        for conj in d:
            conj = tuple(conj)
            if any(c.op == "!=" for c in conj):
                raise ValueError("a disjunction alternative for omega cannot contain '!='; split it first")
            alts.append(conj)
        alternatives.append(alts)
    n_branches = 1
    for alts in alternatives:
        n_branches *= len(alts)
    if n_branches > MAX_OMEGA_BRANCHES:
        raise ArithBudgetExceeded(f"omega would explore {n_branches} case-split branches")
    nat = frozenset(nat_atoms)
    b = (
        budget
        if isinstance(budget, WorkBudget)
        else _Budget(DEFAULT_OMEGA_BUDGET if budget is None else budget)
    )
    fresh = itertools.count()
    for choice in itertools.product(*alternatives):
        branch = [*plain, *(c for conj in choice for c in conj)]
        if nat:
            branch.extend(_nat_facts(branch, nat))
        if not _solve([_to_row(c) for c in branch], b, fresh, complete):
            return False
    return True


def nat_sub_cases(a: Poly | Number, b: Poly | Number, s_atom: Any) -> tuple[tuple[Constraint, ...], ...]:
    """The two cases of the ℕ truncated subtraction ``s = a - b``, for ``omega(disjunctions=[...])``.

    Either ``b ≤ a`` and ``s = a - b``, or ``a < b`` and ``s = 0``.
    """
    ap, bp, sp = Poly.coerce(a), Poly.coerce(b), Poly.var(s_atom)
    return (
        (Constraint.le(bp, ap), Constraint.eq(sp, ap - bp)),
        (Constraint.lt(ap, bp), Constraint.eq(sp, 0)),
    )


def div_mod_constraints(x: Poly | Number, k: int, q_atom: Any, r_atom: Any) -> tuple[Constraint, ...]:
    """Facts defining ``q = x / k`` and ``r = x % k`` for a numeral ``k`` (Lean's ℕ and ℤ semantics).

    Lean's ``/`` and ``%`` on ``Int`` are ``Int.ediv``/``Int.emod`` (Euclidean: ``0 ≤ r < |k|``) and on
    ``Nat`` the usual ones, which agree on ``x ≥ 0``; ``x / 0 = 0`` and ``x % 0 = x``. So for ``k ≠ 0``
    the facts are ``x = k·q + r``, ``0 ≤ r``, ``r ≤ |k| - 1``, and for ``k = 0`` they are ``q = 0``,
    ``r = x``. Give ``q_atom``/``r_atom`` to :func:`omega` as ordinary atoms (and list them in
    ``nat_atoms`` for ℕ).

    Args:
        x: The dividend, as a polynomial.
        k: The divisor, a literal integer.
        q_atom: The atom standing for ``x / k``.
        r_atom: The atom standing for ``x % k``.
    """
    xp = Poly.coerce(x)
    q, r = Poly.var(q_atom), Poly.var(r_atom)
    if k == 0:
        return (Constraint(q, "="), Constraint(r - xp, "="))
    return (
        Constraint(xp - q.scale(k) - r, "="),
        Constraint(-r, "<="),
        Constraint(r - (abs(k) - 1), "<="),
    )


def dvd_constraints(k: int, x: Poly | Number, q_atom: Any) -> tuple[Constraint, ...]:
    """Facts for ``k ∣ x`` with a numeral ``k``: ``x = k·q`` for a fresh integer atom ``q``."""
    xp = Poly.coerce(x)
    if k == 0:
        return (Constraint(xp, "="),)
    return (Constraint(xp - Poly.var(q_atom).scale(k), "="),)


def not_dvd_constraints(k: int, x: Poly | Number, q_atom: Any, r_atom: Any) -> tuple[Constraint, ...]:
    """Facts for ``¬ k ∣ x`` with a numeral ``k``: ``x = k·q + r`` with ``1 ≤ r ≤ |k| - 1`` (``x ≠ 0`` if ``k = 0``)."""
    xp = Poly.coerce(x)
    if k == 0:
        return (Constraint(xp, "!="),)
    q, r = Poly.var(q_atom), Poly.var(r_atom)
    return (
        Constraint(xp - q.scale(k) - r, "="),
        Constraint(1 - r, "<="),
        Constraint(r - (abs(k) - 1), "<="),
    )
