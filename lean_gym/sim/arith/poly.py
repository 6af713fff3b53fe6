"""Multivariate polynomials with exact rational coefficients over opaque atoms.

A :class:`Poly` is the normal form ``ring`` and ``ring_nf`` compute, and the input format of the
arithmetic decision procedures. Atoms are any hashable objects the caller chooses (variable names,
term objects for ``x / y`` or ``a % 3``); the polynomial never looks inside them. Two atoms are the same
atom exactly when they are ``==``. Monomials are ordered by :func:`atom_sort_key` (the type name and
``repr`` of each atom), so the printed form is deterministic across processes; distinct atoms must
therefore have distinct ``repr``.

Example:
    >>> x, y = Poly.var("x"), Poly.var("y")
    >>> (x + y) ** 2 == x**2 + 2 * x * y + y**2
    True
    >>> ((x - 1) * (x + 1)).to_lean()
    '-1 + x ^ 2'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from lean_gym.sim.arith.errors import ArithBudgetExceeded

__all__ = [
    "MAX_POW_TERMS",
    "Monomial",
    "Number",
    "Poly",
    "atom_sort_key",
    "monomial_degree",
    "monomial_mul",
    "monomial_order_key",
]

Atom = Hashable
Monomial = tuple[tuple[Any, int], ...]
"""A monomial: ``((atom, exponent), ...)`` sorted by :func:`atom_sort_key`, exponents ≥ 1; ``()`` is 1."""

Number = int | Fraction

_meter: Callable[[int], None] | None = None
FREE_PRODUCT = 64
"""Monomial products of one polynomial multiplication that cost nothing (honest ``nlinarith`` products)."""


def set_work_meter(meter: Callable[[int], None] | None) -> Callable[[int], None] | None:
    """Have every large multiplication report its work (monomial products) to ``meter``; returns the old one.

    The simulator's tactic layer passes its heartbeat counter, so ``ring_nf``/``nlinarith`` on
    ``(a + b + c + d) ^ 12`` pay for the expansion and can be stopped by the budget mid-way.
    """
    global _meter
    old, _meter = _meter, meter
    return old


MAX_POW_TERMS = 20_000
"""``p ** n`` raises :class:`ArithBudgetExceeded` when its result could have more terms than this."""

_ONE: Monomial = ()


@lru_cache(maxsize=1 << 16)
def atom_sort_key(atom: Any) -> tuple[str, str]:
    """The key atoms are ordered by inside monomials and in printed output: ``(type name, repr)``."""
    return (type(atom).__name__, repr(atom))


def _norm(c: Any) -> Number:
    """Keep coefficients as ``int`` when integral (fast path) and ``Fraction`` otherwise."""
    if type(c) is int:
        return c
    if isinstance(c, Fraction):
        return c.numerator if c.denominator == 1 else c
    if isinstance(c, bool):
        return int(c)
    if isinstance(c, int):
        return int(c)
    raise TypeError(f"polynomial coefficients must be int or Fraction, not {type(c).__name__}")


def monomial_mul(m1: Monomial, m2: Monomial) -> Monomial:
    """The product of two monomials, in canonical order."""
    if not m1:
        return m2
    if not m2:
        return m1
    if len(m1) == 1 and len(m2) == 1:
        (a, e), (b, f) = m1[0], m2[0]
        if a == b:
            return ((a, e + f),)
        return (m1[0], m2[0]) if atom_sort_key(a) <= atom_sort_key(b) else (m2[0], m1[0])
    d = dict(m1)
    for a, e in m2:
        d[a] = d.get(a, 0) + e
    return tuple(sorted(d.items(), key=_item_key))


def _item_key(item: tuple[Any, int]) -> tuple[str, str]:
    return atom_sort_key(item[0])


def monomial_degree(m: Monomial) -> int:
    """The total degree of a monomial (0 for the constant monomial)."""
    return sum(e for _, e in m)


def _canonical_monomial(m: Monomial | Mapping[Any, int] | Iterable[tuple[Any, int]]) -> Monomial:
    d: dict[Any, int] = {}
    items = m.items() if isinstance(m, Mapping) else m
    for a, e in items:
        if not isinstance(e, int) or e < 0:
            raise ValueError(f"monomial exponents must be non-negative ints, got {e!r} for {a!r}")
        if e:
            d[a] = d.get(a, 0) + e
    return tuple(sorted(d.items(), key=_item_key))


def monomial_order_key(m: Monomial) -> tuple[int, tuple[tuple[tuple[str, str], int], ...]]:
    """The printing order of monomials: by total degree, then atom keys (higher powers first)."""
    return (monomial_degree(m), tuple((atom_sort_key(a), -e) for a, e in m))


class Poly:
    """An immutable, hashable polynomial ``Σ c·m`` with rational coefficients over opaque atoms.

    Equal polynomials (as elements of ℚ[atoms]) are ``==`` and hash alike. Arithmetic accepts ``int``
    and ``Fraction`` on either side. Build polynomials with :meth:`const`, :meth:`var`,
    :meth:`from_terms` and the operators.

    Raises:
        ArithBudgetExceeded: from ``**`` when the result could exceed :data:`MAX_POW_TERMS` terms.
    """

    __slots__ = ("_hash", "_t")

    _t: dict[Monomial, Number]
    _hash: int | None

    def __init__(self, terms: Mapping[Monomial, Number] | None = None) -> None:
        """Build from canonical monomials (as produced by this module); zero coefficients are dropped.

        Prefer :meth:`from_terms` for monomials written by hand.
        """
        t: dict[Monomial, Number] = {}
        if terms:
            for m, c in terms.items():
                c = _norm(c)
                if c:
                    t[m] = c
        self._t = t
        self._hash = None

    @classmethod
    def _raw(cls, t: dict[Monomial, Number]) -> Poly:
        # `cls()`, not `object.__new__(cls)`: a class compiled by mypyc (docs/simulator.md) cannot be
        # made without its __init__, which costs one empty dict here
        p = cls()
        p._t = t
        return p

    # ----- constructors -------------------------------------------------------------------------
    @classmethod
    def const(cls, q: Number) -> Poly:
        """The constant polynomial ``q``."""
        q = _norm(q)
        return cls._raw({_ONE: q} if q else {})

    @classmethod
    def zero(cls) -> Poly:
        """The zero polynomial."""
        return cls._raw({})

    @classmethod
    def one(cls) -> Poly:
        """The constant polynomial 1."""
        return cls._raw({_ONE: 1})

    @classmethod
    def var(cls, atom: Atom) -> Poly:
        """The polynomial consisting of the single atom ``atom``."""
        return cls._raw({((atom, 1),): 1})

    @classmethod
    def from_terms(
        cls, terms: Iterable[tuple[Monomial | Mapping[Any, int] | Iterable[tuple[Any, int]], Number]]
    ) -> Poly:
        """Build from ``(monomial, coefficient)`` pairs; a monomial is a mapping or pairs ``atom -> exponent``.

        Repeated monomials are added up.
        """
        t: dict[Monomial, Number] = {}
        for m, c in terms:
            cm = _canonical_monomial(m)
            t[cm] = _norm(t.get(cm, 0) + _norm(c))
        return cls._raw({m: c for m, c in t.items() if c})

    @staticmethod
    def coerce(x: Poly | Number) -> Poly:
        """``x`` itself when it is a :class:`Poly`, else the constant polynomial ``x``."""
        if isinstance(x, Poly):
            return x
        return Poly.const(x)

    # ----- queries --------------------------------------------------------------------------------
    def is_zero(self) -> bool:
        """Whether this is the zero polynomial."""
        return not self._t

    def is_const(self) -> bool:
        """Whether this polynomial has no atoms (the zero polynomial included)."""
        t = self._t
        return not t or (len(t) == 1 and _ONE in t)

    def const_value(self) -> Fraction:
        """The constant coefficient (the whole value when :meth:`is_const`)."""
        return Fraction(self._t.get(_ONE, 0))

    def coeff(self, monomial: Monomial | Mapping[Any, int] = ()) -> Fraction:
        """The coefficient of ``monomial`` (canonical tuple or mapping ``atom -> exponent``)."""
        m = (
            monomial
            if isinstance(monomial, tuple) and _is_canonical(monomial)
            else _canonical_monomial(monomial)
        )
        return Fraction(self._t.get(m, 0))

    def degree(self) -> int:
        """The total degree; 0 for constants, including the zero polynomial."""
        return max((monomial_degree(m) for m in self._t), default=0)

    def is_linear(self) -> bool:
        """Whether every monomial has degree at most 1."""
        return all(len(m) == 0 or (len(m) == 1 and m[0][1] == 1) for m in self._t)

    def atoms(self) -> frozenset[Any]:
        """The atoms occurring in this polynomial."""
        return frozenset(a for m in self._t for a, _ in m)

    def monomials(self) -> tuple[Monomial, ...]:
        """The monomials with non-zero coefficient, ordered by degree then atom key (constant first)."""
        return tuple(sorted(self._t, key=monomial_order_key))

    def items(self) -> tuple[tuple[Monomial, Fraction], ...]:
        """``(monomial, coefficient)`` pairs in the order of :meth:`monomials`."""
        return tuple((m, Fraction(self._t[m])) for m in self.monomials())

    def terms(self) -> Mapping[Monomial, Number]:
        """A read-only view of the internal ``monomial -> coefficient`` map (int or Fraction values)."""
        return _FrozenView(self._t)

    def __len__(self) -> int:
        return len(self._t)

    def linear_part(self) -> Poly:
        """The terms of degree at most 1."""
        return Poly._raw({m: c for m, c in self._t.items() if len(m) == 0 or (len(m) == 1 and m[0][1] == 1)})

    def nonlinear_part(self) -> Poly:
        """The terms of degree at least 2."""
        return Poly._raw(
            {m: c for m, c in self._t.items() if not (len(m) == 0 or (len(m) == 1 and m[0][1] == 1))}
        )

    def has_integer_coefficients(self) -> bool:
        """Whether every coefficient is an integer."""
        return all(type(c) is int for c in self._t.values())

    def content(self) -> Fraction:
        """The positive rational ``g`` such that ``self / g`` has coprime integer coefficients (0 for zero)."""
        if not self._t:
            return Fraction(0)
        num = 0
        den = 1
        for c in self._t.values():
            f = Fraction(c)
            num = math.gcd(num, f.numerator)
            den = den * f.denominator // math.gcd(den, f.denominator)
        return Fraction(num, den)

    # ----- arithmetic -----------------------------------------------------------------------------
    def __add__(self, other: Poly | Number) -> Poly:
        if not isinstance(other, Poly):
            if isinstance(other, (int, Fraction)):
                other = Poly.const(other)
            else:
                return NotImplemented
        a, b = self._t, other._t
        if len(a) < len(b):
            a, b = b, a
        t = dict(a)
        for m, c in b.items():
            s = t.get(m, 0) + c
            if s:
                t[m] = _norm(s)
            else:
                t.pop(m, None)
        return Poly._raw(t)

    def __radd__(self, other: Poly | Number) -> Poly:
        # a method, not the alias `__radd__ = __add__`, which mypyc cannot compile (docs/simulator.md)
        return self.__add__(other)

    def __neg__(self) -> Poly:
        return Poly._raw({m: -c for m, c in self._t.items()})

    def __pos__(self) -> Poly:
        return self

    def __sub__(self, other: Poly | Number) -> Poly:
        if not isinstance(other, Poly):
            if isinstance(other, (int, Fraction)):
                other = Poly.const(other)
            else:
                return NotImplemented
        t = dict(self._t)
        for m, c in other._t.items():
            s = t.get(m, 0) - c
            if s:
                t[m] = _norm(s)
            else:
                t.pop(m, None)
        return Poly._raw(t)

    def __rsub__(self, other: Number) -> Poly:
        if isinstance(other, (int, Fraction)):
            return Poly.const(other) - self
        return NotImplemented

    def scale(self, q: Number) -> Poly:
        """``q · self`` for a rational ``q``."""
        q = _norm(q)
        if not q:
            return Poly._raw({})
        if q == 1:
            return self
        return Poly._raw({m: _norm(c * q) for m, c in self._t.items()})

    def __mul__(self, other: Poly | Number) -> Poly:
        if not isinstance(other, Poly):
            if isinstance(other, (int, Fraction)):
                return self.scale(other)
            return NotImplemented
        a, b = self._t, other._t
        if not a or not b:
            return Poly._raw({})
        if len(b) == 1 and _ONE in b:
            return self.scale(b[_ONE])
        if len(a) == 1 and _ONE in a:
            return other.scale(a[_ONE])
        if _meter is not None and len(a) * len(b) > FREE_PRODUCT:
            _meter(len(a) * len(b))
        t: dict[Monomial, Number] = {}
        for m1, c1 in a.items():
            for m2, c2 in b.items():
                m = monomial_mul(m1, m2)
                s = t.get(m, 0) + c1 * c2
                t[m] = s
        return Poly._raw({m: _norm(c) for m, c in t.items() if c})

    def __rmul__(self, other: Poly | Number) -> Poly:
        # a method, not the alias `__rmul__ = __mul__`, which mypyc cannot compile (docs/simulator.md)
        return self.__mul__(other)

    def __truediv__(self, other: Number) -> Poly:
        """Division by a non-zero rational constant (polynomial division is not offered)."""
        if isinstance(other, Poly):
            if not other.is_const():
                return NotImplemented
            other = other.const_value()
        if not isinstance(other, (int, Fraction)):
            return NotImplemented
        if other == 0:
            raise ZeroDivisionError("Poly division by zero (Lean's x / 0 = 0 is the caller's business)")
        return self.scale(Fraction(1) / Fraction(other))

    def __pow__(self, n: int) -> Poly:
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError(f"Poly exponent must be an int >= 0, got {n!r}")
        if n == 0:
            return Poly.one()
        if n == 1:
            return self
        t = self._t
        if not t:
            return self
        if len(t) == 1:
            ((m, c),) = t.items()
            return Poly._raw({tuple((a, e * n) for a, e in m): _norm(Fraction(c) ** n)})
        k = len(t)
        # The number of monomials of degree n in k "variables" bounds the result's size.
        if math.comb(n + k - 1, k - 1) > MAX_POW_TERMS:
            raise ArithBudgetExceeded(f"expanding a {k}-term polynomial to the power {n} is too expensive")
        result = Poly.one()
        base = self
        while True:
            if n & 1:
                result = result * base
            n >>= 1
            if not n:
                return result
            base = base * base

    # ----- evaluation and substitution -----------------------------------------------------------
    def eval(self, assignment: Mapping[Any, Number] | Callable[[Any], Number]) -> Fraction:
        """The exact value under ``assignment`` (a mapping or a function from atoms to rationals).

        Raises:
            KeyError: an atom has no value in the mapping.
        """
        get = assignment.__getitem__ if isinstance(assignment, Mapping) else assignment
        total: Fraction | int = 0
        for m, c in self._t.items():
            v: Fraction | int = c
            for a, e in m:
                v = v * Fraction(get(a)) ** e
            total += v
        return Fraction(total)

    def substitute(self, atom: Atom, value: Poly | Number) -> Poly:
        """Replace every occurrence of ``atom`` by ``value``."""
        return self.substitute_many({atom: value})

    def substitute_many(self, mapping: Mapping[Any, Poly | Number]) -> Poly:
        """Replace several atoms at once (simultaneously)."""
        if not mapping or self.atoms().isdisjoint(mapping):
            return self
        subst = {a: Poly.coerce(v) for a, v in mapping.items()}
        powers: dict[tuple[Any, int], Poly] = {}
        out = Poly.zero()
        for m, c in self._t.items():
            keep: list[tuple[Any, int]] = []
            factor = Poly.const(c)
            for a, e in m:
                if a in subst:
                    key = (a, e)
                    pw = powers.get(key)
                    if pw is None:
                        pw = powers[key] = subst[a] ** e
                    factor = factor * pw
                else:
                    keep.append((a, e))
            out = out + factor * Poly._raw({tuple(keep): 1})
        return out

    def map_coefficients(self, f: Callable[[Fraction], Number]) -> Poly:
        """Apply ``f`` to every coefficient (zero results are dropped)."""
        return Poly({m: f(Fraction(c)) for m, c in self._t.items()})

    # ----- equality, hashing, printing -------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, Poly):
            return self._t == other._t
        if isinstance(other, (int, Fraction)):
            return self.is_const() and self.const_value() == other
        return NotImplemented

    def __hash__(self) -> int:
        h = self._hash
        if h is None:
            if self.is_const():
                h = hash(self.const_value())
            else:
                h = hash(frozenset(self._t.items()))
            self._hash = h
        return h

    def __bool__(self) -> bool:
        return bool(self._t)

    def __repr__(self) -> str:
        return f"Poly({self.to_lean(_repr_atom)!r})"

    def __str__(self) -> str:
        return self.to_lean()

    def to_lean(self, atom_printer: Callable[[Any], str] = str) -> str:
        """Render in the style of Mathlib's ``ring_nf``: ``1 + x * 2 - x * y + x ^ 2``.

        The constant comes first, then monomials by degree and atom order; a coefficient other than
        ±1 follows its monomial (``x * 2``); negative terms are subtracted. The exact spacing and order
        of real ``ring_nf`` output is not reproduced (it depends on Lean's atom indices).

        Args:
            atom_printer: Renders one atom; text that is not a single token or bracketed group is
                wrapped in parentheses.
        """
        if not self._t:
            return "0"
        parts: list[tuple[bool, str]] = []
        for m in self.monomials():
            c = Fraction(self._t[m])
            neg = c < 0
            a = -c if neg else c
            if not m:
                parts.append((neg, _fmt_number(a)))
                continue
            factors = []
            for atom, e in m:
                s = _wrap(atom_printer(atom))
                factors.append(s if e == 1 else f"{s} ^ {e}")
            body = " * ".join(factors)
            if a != 1:
                body = f"{body} * {_fmt_coeff(a)}"
            parts.append((neg, body))
        out = []
        for i, (neg, body) in enumerate(parts):
            if i == 0:
                out.append(f"-{body}" if neg and _is_token(body) else (f"-({body})" if neg else body))
            else:
                out.append(f" - {body}" if neg else f" + {body}")
        return "".join(out)


def _is_canonical(m: tuple[Any, ...]) -> bool:
    try:
        return all(isinstance(e, int) and e > 0 for _, e in m) and list(m) == sorted(m, key=_item_key)
    except (TypeError, ValueError):
        return False


def _fmt_number(q: Fraction) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    return f"{q.numerator} / {q.denominator}"


def _fmt_coeff(q: Fraction) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    if q.numerator == 1:
        return f"{q.denominator}⁻¹"
    return f"({q.numerator} / {q.denominator})"


def _repr_atom(a: Any) -> str:
    return a if isinstance(a, str) else repr(a)


def _is_token(s: str) -> bool:
    return bool(s) and all(ch.isalnum() or ch in "_'.!?⁻¹₀₁₂₃₄₅₆₇₈₉" for ch in s)


def _wrap(s: str) -> str:
    if _is_token(s):
        return s
    if s.startswith("(") and s.endswith(")"):
        depth = 0
        for i, ch in enumerate(s):
            if ch in "([{⟨":
                depth += 1
            elif ch in ")]}⟩":
                depth -= 1
                if depth == 0 and i != len(s) - 1:
                    break
        else:
            return s
    if s.startswith("|") and s.endswith("|") and s.count("|") == 2:
        return s
    return f"({s})"


class _FrozenView(Mapping[Monomial, Number]):
    __slots__ = ("_d",)

    def __init__(self, d: dict[Monomial, Number]) -> None:
        self._d = d

    def __getitem__(self, k: Monomial) -> Number:
        return self._d[k]

    def __iter__(self) -> Iterator[Monomial]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)
