"""The numeric cores of Mathlib's ``norm_num`` and ``positivity`` extensions on numerals, as Mathlib computes them.

Plain functions over ``int``/:class:`~fractions.Fraction` values (a numeral the caller has evaluated); each
says ``None`` where Mathlib's extension fails, so that the tactic leaves the term as it was (never stronger).
The tactics that use them are :mod:`lean_gym.sim.simp` (``norm_num``) and :mod:`lean_gym.sim.tac_arith`
(``positivity``). Sources, leanprover-community/mathlib4:

* ``Mathlib/Tactic/NormNum/Prime.lean`` (``evalNatPrime``, ``evalMinFac``; read at 89db761): ``Nat.Prime n``
  is false for ``n = 0, 1`` and for ``n`` with ``minFac n < n``; true when the trial division by
  ``3, 5, 7, …`` reaches ``k * k > n`` without a divisor. Its notes say that the proof of primality of a
  number above 25 bits overflows the kernel's stack: the simulator proves no prime from ``2 ^ 25`` on.
* ``Mathlib/Tactic/NormNum/RealSqrt.lean`` (``evalRealSqrt``; read at 00ddfb8): ``√x`` of a natural
  numeral that is a perfect square; ``0`` of a negative numeral (integer or rational); ``√(n / d)`` when
  ``n`` and ``d`` (the reduced fraction) are both perfect squares; otherwise the extension fails.
* ``Mathlib/Analysis/SpecialFunctions/Pow/Real.lean`` (``evalRPow``, rewritten 2025-10-21, in Mathlib
  v4.26.0; read in mathlib4's sources by its name): ``a ^ b`` on ℝ for numerals ``a``, ``b``: a natural
  ``b`` is a power, a negative integer ``b`` the inverse of one; a non-integer ``b = n / d ≥ 0`` needs
  ``a ≥ 0`` and is evaluated only when the numerator and the denominator of ``a`` are exact ``d``-th
  powers (``proveIsNatRPowIsNNRat``: ``r = Nat.nthRoot d m ^ n`` checked by ``r ^ d = m ^ n``); a negative
  non-integer ``b`` is ``(a⁻¹) ^ (-b)``; a negative base with a non-integer exponent fails
  (``MathlibTest/norm_num_rpow.lean``: ``(-8 : ℝ) ^ (1 / 3 : ℝ)`` stays).
* ``evalLogNatLit``, the positivity extension of ``Real.log`` on numerals (read in mathlib4's sources by its
  name): the sign of ``Real.log`` of a numeral, from the numeral's value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Literal

__all__ = [
    "MAX_PRIME_PROOF",
    "MAX_TRIAL_STEPS",
    "log_numeral_sign",
    "nat_fib",
    "nat_log",
    "nat_min_fac",
    "nat_prime",
    "prime_factors_list",
    "real_rpow",
    "real_sqrt",
]

MAX_PRIME_PROOF = 1 << 25
"""No primality proof from here on (Mathlib's note: the kernel's stack overflows above 25 bits)."""

MAX_TRIAL_STEPS = 1 << 21
"""At most this many trial divisions (bounded work on untrusted numerals); past it the answer is ``None``."""


def nat_prime(n: int, tick: Callable[[int], None]) -> bool | None:
    """``Nat.Prime n`` as ``evalNatPrime`` decides it, or ``None`` where it fails (or the work is too large).

    ``tick(k)`` is charged once per trial division (``k = 1``), so a large numeral spends heartbeats.
    """
    if n < 2:
        return False  # isNat_prime_0, isNat_prime_1
    if n % 2 == 0:
        return n == 2  # minFac n = 2: `2` is prime (the proof of `minFac 2 = 2` is minFac's first case)
    k = _odd_min_fac(n, tick)
    if k is None:
        return None
    if k != n:
        return False  # deriveNotPrime: the factor `k` and `n / k`, both above 1
    if n >= MAX_PRIME_PROOF:
        return None
    return True


def nat_min_fac(n: int, tick: Callable[[int], None]) -> int | None:
    """``Nat.minFac n`` as Mathlib's ``evalMinFac`` computes it (``Mathlib/Tactic/NormNum/Prime.lean``):
    ``minFac 0 = 2``, ``minFac 1 = 1``, else the least prime factor, by trial division charged like
    :func:`nat_prime`; ``None`` where the work is too large."""
    if n == 0:
        return 2
    if n == 1:
        return 1
    if n % 2 == 0:
        return 2
    return _odd_min_fac(n, tick)


def _odd_min_fac(n: int, tick: Callable[[int], None]) -> int | None:
    """The least factor of the odd ``n >= 3`` above 1 (``n`` itself when it is prime), by trial division of
    the odd numbers up to its square root, ``tick(1)`` charged for each; ``None`` past
    :data:`MAX_TRIAL_STEPS` divisions. What :func:`nat_prime` and :func:`nat_min_fac` both compute."""
    k = 3
    steps = 0
    while k * k <= n:
        steps += 1
        if steps > MAX_TRIAL_STEPS:
            return None
        tick(1)
        if n % k == 0:
            return k
        k += 2
    return n


def prime_factors_list(n: int, tick: Callable[[int], None]) -> list[int] | None:
    """``Nat.primeFactorsList n`` as Mathlib's simproc ``Nat.primeFactorsList_ofNat`` computes it
    (``Mathlib/Tactic/NormNum/Factors.lean``: repeated ``minFac``): the prime factors in increasing order
    with multiplicity, ``[]`` for ``0`` and ``1``; ``None`` where the work is too large."""
    out: list[int] = []
    if n < 2:
        return out
    while n > 1:
        p = nat_min_fac(n, tick)
        if p is None:
            return None
        out.append(p)
        n //= p
    return out


def nat_log(b: int, n: int) -> int:
    """``Nat.log b n`` (Mathlib's ``Nat.log``, evaluated by ``Mathlib/Tactic/NormNum/NatLog.lean``): the
    largest ``k`` with ``b ^ k ≤ n``, and ``0`` when ``b ≤ 1`` or ``n < b``."""
    if b <= 1:
        return 0
    k = 0
    while n >= b:
        n //= b
        k += 1
    return k


def nat_fib(n: int) -> int:
    """``Nat.fib n`` (``Mathlib/Tactic/NormNum/NatFib.lean``): ``fib 0 = 0``, ``fib 1 = 1``."""
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def _square_root(n: int) -> int | None:
    r = math.isqrt(n)
    return r if r * r == n else None


def real_sqrt(v: int | Fraction) -> int | Fraction | None:
    """``√v`` as ``evalRealSqrt`` computes it, or ``None`` where the extension fails."""
    if v < 0:
        return 0  # isNat_realSqrt_neg, isNat_realSqrt_of_isRat_negOfNat
    q = Fraction(v)
    sn, sd = _square_root(q.numerator), _square_root(q.denominator)
    if sn is None or sd is None:
        return None
    return sn if sd == 1 else Fraction(sn, sd)


MAX_RPOW_BITS = 1 << 16
"""Powers computed for ``evalRPow`` stay below this many bits (bounded work on untrusted numerals; the
simulator's cap on every evaluation, ``arith.evaluate.DEFAULT_MAX_BITS``)."""


def _nth_root(d: int, m: int) -> int:
    """``Nat.nthRoot d m``: the largest ``r`` with ``r ^ d ≤ m``."""
    if m < 2:
        return m
    r = 1 << -(-m.bit_length() // d)  # an upper bound: 2 ^ ceil(bits / d)
    while True:  # Newton's method from above, on integers
        s = ((d - 1) * r + m // r ** (d - 1)) // d
        if s >= r:
            return r
        r = s


def _rpow_nat(m: int, n: int, d: int) -> int | None:
    """``m ^ (n / d)`` for naturals, as ``proveIsNatRPowIsNNRat`` proves it, or ``None`` (not exact)."""
    if m.bit_length() * max(n, d) > MAX_RPOW_BITS:
        return None
    r = _nth_root(d, m) ** n
    return r if r**d == m**n else None


def real_rpow(a: int | Fraction, b: int | Fraction) -> int | Fraction | None:
    """``a ^ b`` on ℝ as ``evalRPow`` computes it, or ``None`` where the extension fails."""
    qa, qb = Fraction(a), Fraction(b)
    if qb.denominator == 1:
        n = abs(qb.numerator)
        if (
            abs(qa.numerator).bit_length() * n > MAX_RPOW_BITS
            or qa.denominator.bit_length() * n > MAX_RPOW_BITS
        ):
            return None
        p = qa**n
        if qb >= 0:
            return p
        return Fraction(0) if p == 0 else 1 / p  # `IsInt.rpow_eq_inv_pow`, with `0⁻¹ = 0`
    if qb < 0:
        return real_rpow(Fraction(0) if qa == 0 else 1 / qa, -qb)  # `rpow_isRat_eq_inv_rpow`
    if qa < 0:
        return None
    num = _rpow_nat(qa.numerator, qb.numerator, qb.denominator)
    den = _rpow_nat(qa.denominator, qb.numerator, qb.denominator)
    if num is None or den is None:
        return None
    return num if den == 1 else Fraction(num, den)


Strictness = Literal["pos", "nonneg", "nonzero"]


def log_numeral_sign(v: int | Fraction) -> Strictness | None:
    """What ``evalLogNatLit`` proves of ``Real.log v`` for a numeral ``v`` (``None``: it fails).

    A natural numeral: positive above 1, else non-negative (``log 0 = log 1 = 0``); a negative integer
    ``-m``: positive for ``m > 1``, else non-negative (``log (-1) = 0``); a non-integer rational ``q``:
    non-zero for ``0 < q < 1`` and ``-1 < q < 0``, positive for ``q > 1`` and ``q < -1``.
    """
    q = Fraction(v)
    if q.denominator == 1:
        m = abs(q.numerator)
        return "pos" if m > 1 else "nonneg"
    if -1 < q < 1:
        return "nonzero"
    return "pos"
