"""Gröbner bases over ℚ with cofactors: the procedure of Lean core's ``grind`` ring module, and its certificate.

Lean core's ``grind`` decides equalities in commutative rings with a Buchberger-style completion
(``src/Lean/Meta/Tactic/Grind/Arith/CommRing/EqCnstr.lean``): each new equation is simplified by the basis
(``EqCnstr.simplify``), made monic (``toMonic``), used to simplify the basis elements whose leading monomial
it divides (``simplifyBasis``), and superposed with every basis element whose leading monomial shares a
variable with its own (``superposeWith``, Buchberger's first criterion); the S-polynomials go to a queue
ordered by degree (``sugar``). Monomials are ordered by ``grevlex``. Every use of one polynomial to
simplify another is one step, and the solver stops after ``ringSteps`` steps (``Grind.Config``, default
10000: :data:`RING_STEPS`).

This module computes the same thing over ℚ and keeps, for every polynomial, its cofactors: the polynomials
``cᵢ`` with ``p = Σ cᵢ·gᵢ`` over the input generators ``gᵢ``. A verdict is never taken from the
completion itself: :class:`IdealCertificate` re-expands ``Σ cᵢ·gᵢ`` with :class:`~lean_gym.sim.arith.Poly`
arithmetic (the normalisation the kernel uses) and compares it with the claimed polynomial, so that a bug
here can only lose a proof, never make one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

from lean_gym.sim.arith.errors import ArithBudgetExceeded
from lean_gym.sim.arith.poly import Poly, atom_sort_key

__all__ = ["MAX_GROEBNER_TERMS", "RING_STEPS", "GroebnerBasis", "IdealCertificate"]

RING_STEPS = 10_000
"""Lean's ``Grind.Config.ringSteps`` default: simplification steps the ring solver performs at most."""

MAX_GROEBNER_TERMS = 4_000
"""A polynomial of the completion with more terms stops it (bounded work; the solver then proves nothing)."""

_Mono = tuple[int, ...]
_P = dict[_Mono, Fraction]
_Cof = dict[int, _P]


@dataclass(frozen=True)
class IdealCertificate:
    """``target = Σ cofactors[i] · gens[i]``: ``target`` lies in the ideal of ``gens``.

    :meth:`check` expands the sum with :class:`Poly` arithmetic; only a certificate that checks is a proof.
    """

    gens: tuple[Poly, ...]
    cofactors: tuple[Poly, ...]
    target: Poly

    def check(self) -> bool:
        """Whether the combination really equals the target."""
        if len(self.gens) != len(self.cofactors):
            return False
        total = Poly.zero()
        for g, c in zip(self.gens, self.cofactors):
            if not c.is_zero():
                total = total + c * g
        return (total - self.target).is_zero()


@lru_cache(maxsize=1 << 16)
def _grevlex_key(m: _Mono) -> tuple[int, tuple[int, ...]]:
    # larger key = larger monomial: total degree first, then the smaller exponent of the last variable wins
    return (sum(m), tuple(-e for e in reversed(m)))


def _divides(a: _Mono, b: _Mono) -> bool:
    return all(x <= y for x, y in zip(a, b))


def _shares_var(a: _Mono, b: _Mono) -> bool:
    return any(x and y for x, y in zip(a, b))


def _lcm(a: _Mono, b: _Mono) -> _Mono:
    return tuple(max(x, y) for x, y in zip(a, b))


def _quot(a: _Mono, b: _Mono) -> _Mono:
    return tuple(x - y for x, y in zip(a, b))


def _mul(a: _Mono, b: _Mono) -> _Mono:
    return tuple(x + y for x, y in zip(a, b))


def _axpy(p: _P, c: Fraction, m: _Mono, q: _P) -> None:
    """``p += c · m · q`` in place."""
    for mq, cq in q.items():
        k = _mul(m, mq)
        v = p.get(k, Fraction(0)) + c * cq
        if v:
            p[k] = v
        else:
            p.pop(k, None)


def _cof_axpy(a: _Cof, c: Fraction, m: _Mono, b: _Cof) -> None:
    for i, q in b.items():
        p = a.setdefault(i, {})
        _axpy(p, c, m, q)
        if not p:
            del a[i]


class _Elem:
    __slots__ = ("cof", "id", "lm", "p")

    def __init__(self, p: _P, cof: _Cof, ident: int) -> None:
        self.p = p
        self.cof = cof
        self.id = ident
        self.lm: _Mono = max(p, key=_grevlex_key) if p else ()

    def refresh(self) -> None:
        self.lm = max(self.p, key=_grevlex_key) if self.p else ()


class GroebnerBasis:
    """The completion of ``gens`` (each ``= 0``), bounded by ``steps`` simplification steps.

    Args:
        gens: The generators, as polynomials equal to zero.
        steps: The step budget (:data:`RING_STEPS`, Lean's default).
        meter: Called with the work of each step (the tactic's heartbeats).
        atoms: Further atoms the queries may mention (the variables are the generators' and these).

    After construction, :attr:`inconsistent` says that a non-zero constant lies in the ideal (the equations
    contradict each other) and, when the cofactors are tracked (``track``), :attr:`unit` is the certificate;
    :attr:`complete` says whether the completion finished within the budget. :meth:`normal_form` reduces a
    polynomial by the basis; :meth:`member` certifies that one reduces to zero (tracked bases only). Without
    ``track`` the completion is cheaper: a caller that finds a verdict that way re-runs it tracked for the
    certificate.
    """

    def __init__(
        self,
        gens: Sequence[Poly],
        steps: int = RING_STEPS,
        meter: Callable[[int], None] | None = None,
        atoms: Iterable[Any] = (),
        track: bool = True,
    ) -> None:
        self.gens = tuple(gens)
        self.track = track
        self.inconsistent = False
        known: set[Any] = set(atoms)
        for g in self.gens:
            known |= g.atoms()
        self._atoms = sorted(known, key=atom_sort_key)
        self._index = {a: i for i, a in enumerate(self._atoms)}
        self._steps = steps
        self._steps_left = steps
        self._meter = meter
        self._next = 0
        self.basis: list[_Elem] = []
        self.unit: IdealCertificate | None = None
        self.complete = False
        queue = [
            self._elem(self._from_poly(g), {i: {self._zero_mono(): Fraction(1)}} if track else {})
            for i, g in enumerate(self.gens)
        ]
        try:
            self._complete(queue)
            self.complete = not self.inconsistent
        except ArithBudgetExceeded:
            self.complete = False

    @property
    def steps_used(self) -> int:
        """The simplification steps the completion (and the queries so far) took."""
        return self._steps - max(self._steps_left, 0)

    # ---------------------------------------------------------------------------------- conversion
    def _zero_mono(self) -> _Mono:
        return (0,) * len(self._atoms)

    def _from_poly(self, p: Poly) -> _P:
        out: _P = {}
        n = len(self._atoms)
        for m, c in p.terms().items():
            e = [0] * n
            for a, k in m:
                idx = self._index.get(a)
                if idx is None:
                    raise KeyError(a)
                e[idx] += k
            out[tuple(e)] = Fraction(c)
        return out

    def _to_poly(self, p: _P) -> Poly:
        return Poly.from_terms(({self._atoms[i]: k for i, k in enumerate(m) if k}, c) for m, c in p.items())

    def _cofactors(self, cof: _Cof) -> tuple[Poly, ...]:
        return tuple(self._to_poly(cof.get(i, {})) for i in range(len(self.gens)))

    def _elem(self, p: _P, cof: _Cof) -> _Elem:
        self._next += 1
        return _Elem(p, cof, self._next)

    # ------------------------------------------------------------------------------------ the steps
    def _step(self, size: int, work: int) -> None:
        """One simplification step: ``size`` terms left, ``work`` term operations done (charged to the meter,
        a heartbeat for every four)."""
        self._steps_left -= 1
        if self._steps_left < 0:
            raise ArithBudgetExceeded("grind's ring solver used up its steps")
        if size > MAX_GROEBNER_TERMS:
            raise ArithBudgetExceeded("a polynomial of grind's ring solver grew too large")
        if self._meter is not None:
            self._meter(1 + work // 4)

    def _cof_size(self, cof: _Cof) -> int:
        return sum(len(q) for q in cof.values()) if self.track else 0

    def _reduce(self, e: _Elem) -> None:
        """Simplify ``e`` by the basis until no monomial of it is divisible by a leading monomial."""
        p, cof = e.p, e.cof
        done: set[_Mono] = set()  # monomials no leading monomial divides (the basis does not change here)
        while True:
            pick = None
            for m in list(p):
                if m in done:
                    continue
                b = next((b for b in self.basis if _divides(b.lm, m)), None)
                if b is not None:
                    pick = (m, b)
                    break
                done.add(m)
            if pick is None:
                e.refresh()
                return
            m, b = pick
            c = -p[m] / b.p[b.lm]
            q = _quot(m, b.lm)
            _axpy(p, c, q, b.p)
            if self.track:
                _cof_axpy(cof, c, q, b.cof)
            self._step(len(p), len(b.p) + self._cof_size(b.cof))

    def _monic(self, e: _Elem) -> None:
        lc = e.p[e.lm]
        if lc != 1:
            inv = 1 / lc
            for m in e.p:
                e.p[m] *= inv
            for q in e.cof.values():
                for m in q:
                    q[m] *= inv

    def _complete(self, queue: list[_Elem]) -> None:
        while queue:
            queue.sort(key=lambda x: (sum(x.lm) if x.p else 0, x.id))
            e = queue.pop(0)
            self._reduce(e)
            if not e.p:
                continue
            if all(k == 0 for k in e.lm):
                # a non-zero constant: the equations are inconsistent
                self.inconsistent = True
                if self.track:
                    self.unit = IdealCertificate(self.gens, self._cofactors(e.cof), self._to_poly(e.p))
                return
            self._monic(e)
            keep: list[_Elem] = []
            for b in self.basis:
                if _divides(e.lm, b.lm):
                    queue.append(b)  # simplified by `e` when it comes back (Lean's `simplifyBasis`)
                else:
                    keep.append(b)
            self.basis = keep
            for b in self.basis:
                if _shares_var(e.lm, b.lm):
                    queue.append(self._spol(e, b))
            self.basis.append(e)

    def _spol(self, a: _Elem, b: _Elem) -> _Elem:
        lcm = _lcm(a.lm, b.lm)
        qa, qb = _quot(lcm, a.lm), _quot(lcm, b.lm)
        ca, cb = Fraction(1) / a.p[a.lm], Fraction(1) / b.p[b.lm]
        p: _P = {}
        cof: _Cof = {}
        _axpy(p, ca, qa, a.p)
        _axpy(p, -cb, qb, b.p)
        if self.track:
            _cof_axpy(cof, ca, qa, a.cof)
            _cof_axpy(cof, -cb, qb, b.cof)
        self._step(len(p), len(a.p) + len(b.p) + self._cof_size(a.cof) + self._cof_size(b.cof))
        return self._elem(p, cof)

    # ------------------------------------------------------------------------------------- queries
    def normal_form(self, target: Poly) -> Poly | None:
        """``target`` reduced by the basis (two polynomials with one normal form differ by a member of the
        ideal), or ``None`` when the completion did not finish or ``target`` has an unknown atom."""
        if not self.complete:
            return None
        e = self._reduced(target)
        return None if e is None else self._to_poly(e.p)

    def member(self, target: Poly) -> IdealCertificate | None:
        """A certificate that ``target`` reduces to zero by the basis (so lies in the ideal), else ``None``.

        Atoms of ``target`` that no generator mentions make it a non-member unless they cancel.
        """
        if not self.complete or not self.track:
            return None
        e = self._reduced(target)
        if e is None or e.p:
            return None
        # target - Σ c·b = 0, and each b = Σ cof·g: target = -(accumulated cofactors)
        cofs = tuple(-c for c in self._cofactors(e.cof))
        return IdealCertificate(self.gens, cofs, target)

    def _reduced(self, target: Poly) -> _Elem | None:
        """``target`` reduced by the basis, its cofactors tracked as the basis tracks them; ``None`` when
        ``target`` has an atom no generator mentions or the reduction ran out of budget."""
        if not target.atoms() <= set(self._index):
            return None
        e = _Elem(self._from_poly(target), {}, 0)
        try:
            self._reduce(e)
        except ArithBudgetExceeded:
            return None
        return e
