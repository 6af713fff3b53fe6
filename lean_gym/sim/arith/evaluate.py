"""Exact evaluation of closed arithmetic with Lean 4's semantics, for ``decide``/``norm_num``/``rfl``.

Values are Python ``int`` for ℕ and ℤ and :class:`fractions.Fraction` for ℚ and ℝ (the simulator only
handles rational reals). The semantics are Lean's, which differ from school arithmetic at the edges:

* ℕ subtraction truncates: ``3 - 5 = 0``.
* ℕ and ℤ ``/`` and ``%``: ℕ floors; on ℤ Lean uses ``Int.ediv``/``Int.emod`` (Euclidean: the
  remainder is always in ``[0, |b|)``), so ``-7 / 2 = -4``, ``-7 % 2 = 1``, ``7 / -2 = -3``,
  ``-7 / -2 = 4``. Division by zero gives ``0`` and ``x % 0 = x``.
* Field division and inverse: ``x / 0 = 0``, ``0⁻¹ = 0``.
* ``^`` takes a natural exponent (``Monoid.npow``); on fields :func:`zpow` also takes an integer one.
* ``a ∣ b`` is ``∃ c, b = a * c``: ``0 ∣ b ↔ b = 0``; in a field every ``a ≠ 0`` divides everything.

Sizes are capped (``max_bits``): a result that would exceed it raises :class:`EvalTooExpensive`
instead of hanging (``5 ^ 999999``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Literal

from lean_gym.sim.arith.errors import EvalTooExpensive

__all__ = [
    "DEFAULT_MAX_BITS",
    "Domain",
    "Value",
    "abs_value",
    "binop",
    "cast",
    "compare",
    "dvd",
    "factorial",
    "field_div",
    "int_ediv",
    "int_emod",
    "inv",
    "nat_div",
    "nat_gcd",
    "nat_lcm",
    "nat_mod",
    "nat_sub",
    "neg",
    "pow_value",
    "zpow",
]

Domain = Literal["Nat", "Int", "Rat", "Real", "ℕ", "ℤ", "ℚ", "ℝ"]
Value = int | Fraction

DEFAULT_MAX_BITS = 1 << 16
"""Largest numerator/denominator size (in bits) an evaluation may build: about 19,700 decimal digits."""

_DOMAINS = {
    "Nat": "Nat",
    "Int": "Int",
    "Rat": "Rat",
    "Real": "Real",
    "ℕ": "Nat",
    "ℤ": "Int",
    "ℚ": "Rat",
    "ℝ": "Real",
}


def _check_domain(domain: str) -> str:
    """The canonical name of ``domain`` (``"ℕ"`` and ``"Nat"`` are both accepted)."""
    canon = _DOMAINS.get(domain)
    if canon is None:
        raise ValueError(f"unknown numeric domain {domain!r}; use one of Nat Int Rat Real (or ℕ ℤ ℚ ℝ)")
    return canon


def _bits(x: Value) -> int:
    if isinstance(x, Fraction):
        return max(x.numerator.bit_length(), x.denominator.bit_length())
    return int(x).bit_length()


def _show(x: Value) -> str:
    """``x`` for a message: its digits, or its size when it is too large to print."""
    return str(x) if _bits(x) <= 10_000 else f"a number of {_bits(x)} bits"


def _guard(x: Value, max_bits: int) -> Value:
    if _bits(x) > max_bits:
        raise EvalTooExpensive(f"a number with more than {max_bits} bits is too expensive to evaluate")
    return x


def nat_sub(a: int, b: int) -> int:
    """Truncated subtraction on ℕ: ``max(a - b, 0)``."""
    return a - b if a > b else 0


def nat_div(a: int, b: int) -> int:
    """``a / b`` on ℕ (floor; ``a / 0 = 0``)."""
    return 0 if b == 0 else a // b


def nat_mod(a: int, b: int) -> int:
    """``a % b`` on ℕ (``a % 0 = a``)."""
    return a if b == 0 else a % b


def int_ediv(a: int, b: int) -> int:
    """``a / b`` on ℤ, Lean's ``Int.ediv``: the quotient with ``0 ≤ a - b·q < |b|`` (``a / 0 = 0``)."""
    if b == 0:
        return 0
    q = a // b  # floor division
    if a - b * q < 0:  # only possible for b < 0
        q += 1
    return q


def int_emod(a: int, b: int) -> int:
    """``a % b`` on ℤ, Lean's ``Int.emod``: always in ``[0, |b|)`` (``a % 0 = a``)."""
    if b == 0:
        return a
    return a % abs(b)


def field_div(a: Value, b: Value) -> Fraction:
    """``a / b`` in ℚ or ℝ with Lean's convention ``a / 0 = 0``."""
    return Fraction(0) if b == 0 else Fraction(a) / Fraction(b)


def inv(a: Value) -> Fraction:
    """``a⁻¹`` with ``0⁻¹ = 0``."""
    return Fraction(0) if a == 0 else 1 / Fraction(a)


def pow_value(base: Value, n: int, *, max_bits: int = DEFAULT_MAX_BITS) -> Value:
    """``base ^ n`` for a natural ``n``, refusing results larger than ``max_bits``.

    Raises:
        ValueError: ``n`` is negative (use :func:`zpow` on fields).
        EvalTooExpensive: the result would be too large.
    """
    if n < 0:
        raise ValueError("Monoid.npow needs a natural exponent; use zpow for integer exponents")
    if n == 0:
        return 1 if not isinstance(base, Fraction) else Fraction(1)
    b = _bits(base)
    if b > 1 and (b - 1) * n > max_bits:
        raise EvalTooExpensive(f"{_show(base)} ^ {_show(n)} is too expensive to evaluate")
    return _guard(base**n, max_bits)


def zpow(base: Value, n: int, *, max_bits: int = DEFAULT_MAX_BITS) -> Fraction:
    """``base ^ (n : ℤ)`` in a field: ``base ^ (-k) = (base ^ k)⁻¹`` and ``0 ^ (-k) = 0``."""
    if n >= 0:
        return Fraction(pow_value(Fraction(base), n, max_bits=max_bits))
    return inv(pow_value(Fraction(base), -n, max_bits=max_bits))


def neg(a: Value, domain: Domain) -> Value:
    """``-a``. ℕ has no negation in Lean.

    Raises:
        ValueError: ``domain`` is ``"Nat"``.
    """
    dom = _check_domain(domain)
    if dom == "Nat":
        raise ValueError("failed to synthesize Neg ℕ")
    return -a


def abs_value(a: Value) -> Value:
    """``|a|``."""
    return -a if a < 0 else a


def cast(a: Value, domain: Domain) -> Value:
    """``a`` as an element of ``domain`` (``(n : ℤ)``, ``(q : ℝ)``...).

    Raises:
        ValueError: ``a`` does not belong to ``domain`` (a negative ℕ or a fraction in ℤ).
    """
    dom = _check_domain(domain)
    if dom in ("Rat", "Real"):
        return Fraction(a)
    f = Fraction(a)
    if f.denominator != 1:
        raise ValueError(f"{_show(a)} is not an integer")
    if dom == "Nat" and f < 0:
        raise ValueError(f"{_show(a)} is not a natural number")
    return f.numerator


def binop(op: str, a: Value, b: Value, domain: Domain, *, max_bits: int = DEFAULT_MAX_BITS) -> Value:
    """``a op b`` in ``domain`` with Lean's semantics; ``op`` is one of ``+ - * / % ^``.

    For ``^`` the exponent ``b`` is a natural number whatever the domain of ``a``.

    Raises:
        ValueError: an operation Lean does not have (``%`` on ℚ/ℝ, a negative exponent).
        EvalTooExpensive: the result would exceed ``max_bits``.
    """
    dom = _check_domain(domain)
    integral = dom in ("Nat", "Int")
    if op == "+":
        r: Value = a + b
    elif op == "-":
        r = nat_sub(int(a), int(b)) if dom == "Nat" else a - b
    elif op == "*":
        if _bits(a) + _bits(b) > max_bits + 1:
            raise EvalTooExpensive(f"a product with more than {max_bits} bits is too expensive to evaluate")
        r = a * b
    elif op == "/":
        if dom == "Nat":
            r = nat_div(int(a), int(b))
        elif dom == "Int":
            r = int_ediv(int(a), int(b))
        else:
            r = field_div(a, b)
    elif op == "%":
        if dom == "Nat":
            r = nat_mod(int(a), int(b))
        elif dom == "Int":
            r = int_emod(int(a), int(b))
        else:
            raise ValueError(f"failed to synthesize HMod {'ℚ' if dom == 'Rat' else 'ℝ'}")
    elif op == "^":
        if isinstance(b, Fraction) and b.denominator != 1:
            raise ValueError("the exponent of ^ must be a natural number")
        r = pow_value(a, int(b), max_bits=max_bits)
    else:
        raise ValueError(f"unknown arithmetic operation {op!r}")
    if integral:
        r = int(r)
    else:
        r = Fraction(r)
    return _guard(r, max_bits)


def compare(rel: str, a: Value, b: Value) -> bool:
    """Decide ``a rel b`` for ``rel`` in ``= ≠ != < ≤ <= > ≥ >=``."""
    if rel == "=":
        return a == b
    if rel in ("≠", "!="):
        return a != b
    if rel == "<":
        return a < b
    if rel in ("≤", "<="):
        return a <= b
    if rel == ">":
        return a > b
    if rel in ("≥", ">="):
        return a >= b
    raise ValueError(f"unknown comparison {rel!r}")


def dvd(a: Value, b: Value, domain: Domain) -> bool:
    """Decide ``a ∣ b`` (``∃ c, b = a * c``) in ``domain``."""
    dom = _check_domain(domain)
    if a == 0:
        return b == 0
    if dom in ("Rat", "Real"):
        return True
    return int(b) % abs(int(a)) == 0


def nat_gcd(a: int, b: int) -> int:
    """``Nat.gcd`` (and ``Int.gcd`` of the absolute values)."""
    return math.gcd(int(a), int(b))


def nat_lcm(a: int, b: int) -> int:
    """``Nat.lcm`` (``lcm 0 b = 0``)."""
    return math.lcm(int(a), int(b))


def factorial(n: int, *, max_bits: int = DEFAULT_MAX_BITS) -> int:
    """``n !`` (``Nat.factorial``), refusing results larger than ``max_bits``."""
    if n < 0:
        raise ValueError("Nat.factorial needs a natural number")
    # log2(n!) ≤ n·log2(n)
    if n > 1 and n * n.bit_length() > max_bits * 2 and n > 5000:
        raise EvalTooExpensive(f"{_show(n)}! is too expensive to evaluate")
    r = 1
    for i in range(2, n + 1):
        r *= i
        if r.bit_length() > max_bits:
            raise EvalTooExpensive(f"{_show(n)}! is too expensive to evaluate")
    return r
