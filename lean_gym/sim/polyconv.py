"""Terms to polynomials: the conversion the arithmetic tactics and the kernel share.

Where soundness of the arithmetic tactics is decided (see :mod:`lean_gym.sim.tac_arith`'s docstring for
what each operation becomes). It lives below the kernel (:mod:`lean_gym.sim.kernel`), which re-normalises
a ``ring`` goal with it, and below the tactic families, which build their constraints with it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any
from typing import cast as cast_domain

from lean_gym.sim.arith import (
    Constraint,
    Domain,
    EvalTooExpensive,
    Poly,
    binop,
    div_mod_constraints,
    nat_sub_cases,
)
from lean_gym.sim.evaluate import eval_term
from lean_gym.sim.terms import MAX_NUMERAL_DIGITS, Term, mk_num, numeral_fits, subst

if TYPE_CHECKING:
    from lean_gym.sim.tactics import TacticContext

__all__ = [
    "DOMAIN",
    "MAX_POW",
    "OMEGA_GROUND_POW_BITS",
    "RING_TYPES",
    "Conv",
    "ground_mod",
    "poly_to_term",
    "to_constraint",
]

DOMAIN = {"ℕ": "Nat", "ℤ": "Int", "ℚ": "Rat", "ℝ": "Real"}
"""The ordered number types: what linarith, omega and positivity read."""
RING_TYPES = ("ℕ", "ℤ", "ℚ", "ℝ", "ℂ")
"""The commutative (semi)rings ``ring``/``ring_nf`` normalise: ``ℂ`` too, which has no order (a field of
characteristic zero: ``ℚ``'s constants embed, ``/`` and ``⁻¹`` are a field's)."""


_MIN_MAX = (("const", "min"), ("const", "max"))


def _dom(ty: str) -> Domain:
    return cast_domain(Domain, DOMAIN[ty])


MAX_POW = 64


OMEGA_GROUND_POW_BITS = 1 << 24
"""The largest ground value (in bits) that omega's ground evaluation builds: Lean's omega evaluates ground
terms with GMP (``groundNat?``/``groundInt?`` in ``src/Lean/Elab/Tactic/Omega/OmegaM.lean``), which builds
``5 ^ 999999`` (2.3 million bits) at once (SATP's minimal proof of mathd_numbertheory_328 is ``omega`` on
``5 ^ 999999 % 7 = 6``); the simulator computes the remainder without building the number, and refuses a
term whose value would be larger than about seven times that (weaker than Lean, never stronger)."""


def ground_mod(t: Term, m: int, ctx: TacticContext | None = None) -> int | None:
    """The value of the ground ℕ/ℤ term ``t`` modulo ``m > 0`` (Lean's ``%``: ``Nat.mod``, ``Int.emod``), the
    number Lean's omega gets by evaluating ``t`` exactly (``groundNat?``), computed without building ``t``:
    numerals, casts from ℕ, ``+``, ``*``, ``^`` by a ground exponent (modular exponentiation) and, in ℤ,
    negation; ``None`` for anything else (ℕ's truncated ``-`` and ``/``, which no remainder determines, a
    variable) and for a term whose value has more than :data:`OMEGA_GROUND_POW_BITS` bits."""
    r = _ground_mod(t, m, ctx)
    return None if r is None else r[0]


def _ground_mod(t: Term, m: int, ctx: TacticContext | None) -> tuple[int, int] | None:
    """``(t mod m, b)`` with ``b`` an upper bound on the bit length of ``t``'s value."""
    if ctx is not None:
        ctx.tick(1)
    h = t[0]
    if t[1] not in ("ℕ", "ℤ"):
        return None
    if h == "num":
        v = int(t[2])
        return v % m, abs(v).bit_length()
    if h == "cast" and t[2] in ("ℕ", "ℤ"):
        return _ground_mod(t[3], m, ctx)  # Nat.cast: the same value (groundInt? reads through it)
    if h in ("+", "*"):
        x = _ground_mod(t[2], m, ctx)
        y = None if x is None else _ground_mod(t[3], m, ctx)
        if x is None or y is None:
            return None
        if h == "+":
            r, bits = (x[0] + y[0]) % m, max(x[1], y[1]) + 1
        else:
            r, bits = (x[0] * y[0]) % m, x[1] + y[1]
        return None if bits > OMEGA_GROUND_POW_BITS else (r, bits)
    if h == "neg" and t[1] == "ℤ":
        x = _ground_mod(t[2], m, ctx)
        return None if x is None else ((-x[0]) % m, x[1])
    if h == "^":
        x = _ground_mod(t[2], m, ctx)
        try:
            e = eval_term(t[3], ctx, False)
        except EvalTooExpensive:
            return None
        if x is None or not isinstance(e, int) or e < 0:
            return None
        bits = x[1] * e if x[1] > 1 else x[1]  # 0 ^ e and 1 ^ e stay one bit
        if bits > OMEGA_GROUND_POW_BITS:
            return None
        if ctx is not None:
            ctx.tick(1 + e.bit_length())
        return pow(x[0], e, m), bits
    return None


class Conv:
    """Converts terms of one type to :class:`Poly`, remembering facts about the atoms it creates.

    Args:
        ty: The type (``ℕ ℤ ℚ ℝ``) of the terms.
        mode: ``ring`` (atoms only), ``linarith`` (plus non-negativity of ℕ-valued atoms) or ``omega``
            (plus the defining facts of truncated subtraction, ``/`` and ``%`` by numerals).
    """

    def __init__(self, ty: str, mode: str = "ring", ctx: TacticContext | None = None) -> None:
        self.ty = ty
        self.mode = mode
        self.ctx = ctx
        self.nat_atoms: set[Any] = set()
        self.facts: list[Constraint] = []
        self.disjunctions: list[tuple[tuple[Constraint, ...], ...]] = []
        self._seen: set[Term] = set()
        # `b ^ e % m` of a ground power by modular exponentiation (the `omega` tactic: see
        # :data:`OMEGA_GROUND_POW_BITS`)
        self.ground_pow_mod = mode == "omega"
        # omega atoms of an ℕ problem that Lean's omega knows no sign of: it reads an ℕ fact over ℤ, where
        # `↑(x / y)` becomes the atom `↑x / ↑y` and `↑(2 ^ i)` the atom `(↑2) ^ i`, with no fact about them
        self.signless: set[Any] = set()
        self._reducible: bool | None = None  # whether the environment has an `abbrev` (computed once)
        # Lean's omega reads ground numerals only (``groundInt?``): it never unfolds a definition
        self._unfold = mode != "omega"
        # omega's `splitMinMax` option (on by default): `min`/`max` split into their two cases
        self.split_min_max = True

    def reducible_key(self, t: Term) -> Term:
        """``t`` with every reducible definition (``abbrev``) unfolded: what Mathlib's ``ring``, ``linarith``
        and ``nlinarith`` compare atoms by (``AtomM`` at ``.reducible`` transparency), so that ``wrapped x``
        with ``abbrev wrapped (z : ℤ) := z`` is the atom ``x``. An atom's unfolded body stays one atom: Lean
        compares atoms, it does not read them again as sums or products."""
        if self.ctx is None:
            return t
        if self._reducible is None:
            self._reducible = any(d.reducible for d in self.ctx.env.decls.values())
        return _unfold_reducible(t, self.ctx) if self._reducible else t

    def atom(self, t: Term, nat: bool) -> Poly:
        if self.mode in ("ring", "linarith"):
            t = self.reducible_key(t)
        if nat:
            self.nat_atoms.add(t)
        return Poly.var(t)

    def poly(self, t: Term) -> Poly:
        if self.ctx is not None:
            self.ctx.tick(1)
        h = t[0]
        ty = self.ty
        nat = ty == "ℕ"
        if h == "num":
            return Poly.const(Fraction(t[2]))
        if h in ("+", "*"):
            a, b = self.poly(t[2]), self.poly(t[3])
            if h == "+":
                return a + b
            if self.mode == "omega" and not (a.is_const() or b.is_const()):
                return self.atom(t, nat)  # omega's `x * y` with neither side constant is an atom
            return a * b
        if h == "-":
            if not nat:
                return self.poly(t[2]) - self.poly(t[3])
            a, b = self.poly(t[2]), self.poly(t[3])
            if b.is_const() and b.const_value() == 0:
                return a
            if a.is_const() and b.is_const():
                return Poly.const(max(a.const_value() - b.const_value(), Fraction(0)))
            s = self.atom(t, True)
            if self.mode == "omega" and t not in self._seen:
                self._seen.add(t)
                self.disjunctions.append(nat_sub_cases(a, b, t))
            return s
        if h == "neg":
            return -self.poly(t[2])
        if h == "^":
            if self.mode == "omega":
                return self._omega_pow(t, nat)
            n = eval_term(t[3], self.ctx)
            if n is not None and 0 <= n <= MAX_POW:
                return self.poly(t[2]) ** int(n)
            if n is not None and n > MAX_POW and self.mode == "ring":
                # a numeral to a large power is a numeral (Mathlib's `ring` evaluates it with norm_num's
                # `evalPow`): `2 ^ 2014`, bounded as every numeral the simulator builds
                base = self.poly(t[2])
                if base.is_const():
                    c = base.const_value()
                    size = abs(c.numerator).bit_length() + c.denominator.bit_length()
                    if size * int(n) <= 4 * MAX_NUMERAL_DIGITS:
                        power = c ** int(n)
                        if numeral_fits(power):
                            return Poly.const(power)
            if n is None and self.mode == "ring":
                # x ^ (e + c) = x ^ e * x ^ c (Mathlib's `ring` normalises exponents; linarith/omega do not)
                e = Conv("ℕ", "ring", self.ctx).poly(t[3])
                c = e.coeff(())
                rest = e - c
                if c > 0 and c.denominator == 1 and c <= MAX_POW and not rest.is_zero():
                    head = ("^", t[1], t[2], poly_to_term(rest, "ℕ"))
                    return self.atom(head, nat) * self.poly(t[2]) ** int(c)
                if not rest.is_zero():
                    return self.atom(("^", t[1], t[2], poly_to_term(rest, "ℕ")), nat)
            return self.atom(t, nat)
        if h == "/":
            if ty in ("ℚ", "ℝ", "ℂ"):
                return self.poly(t[2]) * self.inv(t[3])
            return self._divmod(t, nat)
        if h == "%":
            return self._divmod(t, nat)
        if h == "cast":
            return self.cast(t)
        if h == "inv":
            return self.inv(t[2])
        if h == "abs":
            return self.atom(t, False)  # Lean's linarith knows nothing about |a| (it needs abs_nonneg)
        if h == "app" and t[1] in _MIN_MAX and len(t[2]) == 2 and self.mode == "omega":
            return self._omega_min_max(t)
        if h == "app" and t[1] == ("const", "Nat.succ") and len(t[2]) == 1 and self.mode == "omega":
            # Lean's omega front end reads `n.succ` as `n + 1` (`Int.ofNat_succ`, its `succ?`)
            return self.poly(t[2][0]) + Poly.const(Fraction(1))
        if h == "app" and t[1] == ("const", "Nat.factorial"):
            v = eval_term(t, self.ctx)
            if v is not None:
                return Poly.const(Fraction(v))
        if h == "const" and self.ctx is not None:
            d = self.ctx.lookup(t[1])
            if (
                d is not None
                and d.kind == "def"
                and d.value is not None
                and not d.binders
                and self.mode == "unfold"
            ):
                return self.poly(d.value)
        return self.atom(t, nat)

    def _omega_min_max(self, t: Term) -> Poly:
        """Lean's omega on ``min a b``/``max a b`` (on ℕ through ``Int.ofNat_min``/``ofNat_max``): with
        ``splitMinMax``, ``Int.min_def`` makes it ``if a ≤ b then a else b``, an atom with the two cases
        (``ite_disjunction``); without, an atom with ``min a b ≤ a, b`` (``Int.min_le_left``/``right``) or
        ``a, b ≤ max a b``. Either way the atom is no cast: it has no sign of its own."""
        m = self.atom(t, False)
        self.signless.add(t)
        if t in self._seen:
            return m
        self._seen.add(t)
        a, b = self.poly(t[2][0]), self.poly(t[2][1])
        is_min = t[1] == ("const", "min")
        if self.split_min_max:
            first, second = (a, b) if is_min else (b, a)
            self.disjunctions.append(
                (
                    (Constraint.le(a, b), Constraint.eq(m, first)),
                    (Constraint.lt(b, a), Constraint.eq(m, second)),
                )
            )
        elif is_min:
            self.facts.extend((Constraint.le(m, a), Constraint.le(m, b)))
        else:
            self.facts.extend((Constraint.le(a, m), Constraint.le(b, m)))
        return m

    def _omega_pow(self, t: Term, nat: bool) -> Poly:
        """Lean's omega on ``b ^ k``: ground values evaluate, ``b ^ (k + 1)`` with a ground base ``b`` is
        ``b * b ^ k`` (``Int.pow_succ``), and anything else is an atom (``x ^ 2`` included)."""
        v = eval_term(t, self.ctx, False)
        if v is not None:
            return Poly.const(Fraction(v))
        base, e = t[2], t[3]
        bv = eval_term(base, self.ctx, False)
        if bv is not None and e[0] == "+" and e[3] == ("num", "ℕ", 1):
            return self._omega_pow(("^", t[1], base, e[2]), nat) * Fraction(bv)
        if bv is not None and e[0] == "app" and e[1] == ("const", "Nat.succ") and len(e[2]) == 1:
            return self._omega_pow(("^", t[1], base, e[2][0]), nat) * Fraction(bv)
        if bv is not None:
            self.signless.add(t)
        return self.atom(t, nat)

    def _pow_modulus(self, k: Term) -> bool:
        """Whether Lean's omega knows ``0 ≤ x % k < k`` for the atom ``x % k`` (``analyzeAtom``): ``k`` is
        ``b ^ e`` with ``b`` a positive numeral literal, or the cast to ℤ of such a power of ℕ."""
        if k[0] == "cast" and k[1] == "ℤ" and k[2] == "ℕ":
            k = k[3]
        if k[0] != "^":
            return False
        b = k[2]
        if b[0] == "cast" and b[2] == "ℕ":
            b = b[3]
        return b[0] == "num" and type(b[2]) is int and b[2] > 0

    def _divmod(self, t: Term, nat: bool) -> Poly:
        a, b = t[2], t[3]
        bv = eval_term(b, self.ctx, self._unfold)
        try:
            av = eval_term(a, self.ctx, self._unfold)
        except EvalTooExpensive:
            # a numeral too large to build, `5 ^ 999999`: Lean's omega evaluates the ground term with big
            # numbers (`groundNat?`), and its remainder by a numeral is the number `ground_mod` computes;
            # linarith and ring leave `a % b` an atom (their simprocs refuse such powers: `Nat.reducePow`
            # checks the exponent), and so does everything here that cannot be evaluated exactly
            if self.ground_pow_mod and t[0] == "%" and isinstance(bv, int) and bv > 0:
                r = ground_mod(a, bv, self.ctx)
                if r is not None:
                    return Poly.const(Fraction(r))
            if self.mode == "omega":
                raise
            return self.atom(t, nat)
        if av is not None and bv is not None:
            v = binop(t[0], av, bv, _dom(self.ty))
            return Poly.const(Fraction(v))
        if bv == 1 and t[0] == "/":
            return self.poly(a)
        p = self.atom(t, nat)
        if self.mode == "omega" and bv is None and t not in self._seen:
            self._seen.add(t)
            if t[0] == "%" and self._pow_modulus(b):
                # Int.emod_nonneg and Int.emod_lt_of_pos, with `0 < b ^ e` from a positive literal base
                self.facts.extend((Constraint.le(0, p), Constraint.lt(p, self.poly(b))))
            elif t[0] == "%" and a[0] == "cast" and a[2] == "ℕ":
                self.facts.append(Constraint.le(0, p))  # Int.emod_ofNat_nonneg: `(↑x : ℤ) % k`
            elif t[0] == "/":
                self.signless.add(t)
        if self.mode == "omega" and bv is not None and t not in self._seen:
            self._seen.add(t)
            q_atom = ("/", t[1], a, b)
            r_atom = ("%", t[1], a, b)
            self.facts.extend(div_mod_constraints(self.poly(a), int(bv), q_atom, r_atom))
            self._seen.add(q_atom)
            self._seen.add(r_atom)
            if nat:
                self.nat_atoms.update((q_atom, r_atom))
        return p

    def inv(self, d: Term) -> Poly:
        v = eval_term(d, self.ctx)
        if v is not None:
            return Poly.const(Fraction(0) if v == 0 else 1 / Fraction(v))
        h = d[0]
        if h == "*":
            return self.inv(d[2]) * self.inv(d[3])
        if h == "^":
            n = eval_term(d[3], self.ctx)
            if n is not None and 0 <= n <= MAX_POW:
                return self.inv(d[2]) ** int(n)
        if h == "/":
            return self.poly(d[3]) * self.inv(d[2])
        if h == "neg":
            return -self.inv(d[2])
        if h == "inv":
            return self.poly(d[2])  # (a⁻¹)⁻¹ = a in a field (with 0⁻¹ = 0)
        return Poly.var(("inv", d))

    def cast(self, t: Term) -> Poly:
        _, to, frm, a = t
        h = a[0]
        if h == "num":
            return Poly.const(Fraction(a[2]))
        if h in ("+", "*") or (h == "-" and frm != "ℕ") or h == "neg":
            if h == "neg":
                return -self.cast(("cast", to, frm, a[2]))
            lhs = self.cast(("cast", to, frm, a[2]))
            rhs = self.cast(("cast", to, frm, a[3]))
            if h == "*" and self.mode == "omega" and not (lhs.is_const() or rhs.is_const()):
                # ↑(a * b) = ↑a * ↑b (Int.ofNat_mul), an atom with `0 ≤ ↑a * ↑b` (Int.ofNat_mul_nonneg)
                prod = ("*", to, ("cast", to, frm, a[2]), ("cast", to, frm, a[3]))
                return self.atom(prod, frm == "ℕ")
            return lhs + rhs if h == "+" else lhs * rhs if h == "*" else lhs - rhs
        if self.mode == "omega" and frm == "ℕ" and to == "ℤ":
            if h == "app" and a[1] in _MIN_MAX and len(a[2]) == 2:
                # ↑(min a b) = min ↑a ↑b (Int.ofNat_min, Int.ofNat_max)
                return self.poly(("app", a[1], tuple(("cast", to, frm, x) for x in a[2])))
            if h == "app" and a[1] == ("const", "Nat.succ") and len(a[2]) == 1:
                # ↑(n.succ) = ↑n + 1 (Int.ofNat_succ, omega's `handleNatCast`)
                return self.cast(("cast", to, frm, a[2][0])) + Poly.const(Fraction(1))
            if h in ("/", "%"):
                # ↑(a / b) = ↑a / ↑b and ↑(a % b) = ↑a % ↑b (Int.natCast_ediv, Int.natCast_mod: on naturals
                # ℤ's Euclidean division is ℕ's), as Lean's omega frontend pushes the cast
                return self.poly((h, to, ("cast", to, frm, a[2]), ("cast", to, frm, a[3])))
            if h == "^":
                if eval_term(a[2], self.ctx, False) is not None:  # Int.ofNat_pow for a ground base
                    return self._omega_pow(("^", to, ("cast", to, frm, a[2]), a[3]), False)
                return self.atom(t, True)
            if h == "-" and t not in self._seen:
                # ↑(a - b): b ≤ a ∧ ↑(a - b) = ↑a - ↑b, or a < b ∧ ↑(a - b) = 0 (omega's ℕ-subtraction facts)
                self._seen.add(t)
                ca, cb = self.cast(("cast", to, frm, a[2])), self.cast(("cast", to, frm, a[3]))
                self.disjunctions.append(nat_sub_cases(ca, cb, t))
                return self.atom(t, True)
        if h == "^":
            n = eval_term(a[3], self.ctx)
            if n is not None and 0 <= n <= MAX_POW:
                return self.cast(("cast", to, frm, a[2])) ** int(n)
        if h == "cast":
            return self.cast(("cast", to, a[2], a[3]))
        v = eval_term(a, self.ctx, self._unfold)
        if v is not None:
            return Poly.const(Fraction(v))
        return self.atom(t, frm == "ℕ")


def _unfold_reducible(t: Term, ctx: TacticContext) -> Term:
    h = t[0]
    if h in ("var", "fvar", "num", "type", "True", "False", "bool", "sorry", "mvar"):
        return t
    if h in ("app", "const"):
        head = t[1] if h == "app" else t
        args = tuple(_unfold_reducible(a, ctx) for a in t[2]) if h == "app" else ()
        if head[0] == "const":
            d = ctx.lookup(head[1])
            if d is not None and d.reducible and d.value is not None and len(args) == len(d.binders):
                body = d.value
                for (fid, _, _), a in zip(d.binders, args):
                    body = subst(body, fid, a)
                return _unfold_reducible(body, ctx)
        return ("app", t[1], args) if h == "app" else t
    if h in ("∀", "∃", "fun"):
        return (h, t[1], t[2], _unfold_reducible(t[3], ctx))
    return tuple(_unfold_reducible(c, ctx) if type(c) is tuple else c for c in t)


def to_constraint(rel: Term, conv: Conv) -> Constraint | None:
    """``a R b`` (R in ``< ≤ > ≥ = ≠``) at ``conv``'s type as a constraint, else ``None``."""
    h = rel[0]
    if h not in ("<", "≤", ">", "≥", "=", "≠") or rel[1] != conv.ty:
        return None
    a, b = conv.poly(rel[2]), conv.poly(rel[3])
    return Constraint.compare(a, h, b)


def poly_to_term(p: Poly, ty: str) -> Term:
    """A term for polynomial ``p`` at type ``ty`` (atoms are the terms they came from).

    A negative rational coefficient is written as Mathlib's ring_nf writes it, ``-n / d`` (``rat_rawCast_neg``
    then ``int_rawCast_neg``: ``(-n) / d``), which neither ``mul_neg`` nor ``add_neg`` rewrites, so it stays a
    coefficient that is added (``x + x * (-1 / 4)``, ``-1 / 4 + x``); a negative integer one is subtracted
    (``x - y * 3``, by ``mul_neg`` and ``add_neg``)."""
    items = sorted(p.terms().items(), key=lambda mc: _mono_key(mc[0]))
    out: Term | None = None
    for m, c in items:
        c = Fraction(c)
        neg = c < 0 and c.denominator == 1
        a = -c if neg else c
        factors: list[Term] = []
        for atom, e in m:
            base = _atom_term(atom, ty)
            factors.append(base if e == 1 else ("^", ty, base, mk_num("ℕ", e)))
        coeff = _coeff_term(a, ty)
        mono: Term | None = None
        for f in factors:
            mono = f if mono is None else ("*", ty, mono, f)
        if mono is None:
            mono = coeff
        elif a != 1:
            mono = ("*", ty, mono, coeff)
        if out is None:
            out = ("neg", ty, mono) if neg else mono
        else:
            out = ("-" if neg else "+", ty, out, mono)
    return out if out is not None else ("num", ty, 0)


def _coeff_term(a: Fraction, ty: str) -> Term:
    if a < 0:
        return ("/", ty, ("neg", ty, ("num", ty, -a.numerator)), ("num", ty, a.denominator))
    return mk_num(ty, a)


def _mono_key(m: Any) -> tuple:
    from lean_gym.sim.arith.poly import monomial_degree

    return (monomial_degree(m), [repr(a) for a, _ in m])


def _atom_term(atom: Any, ty: str) -> Term:
    if isinstance(atom, tuple) and atom and atom[0] == "inv":
        return ("/", ty, ("num", ty, 1), atom[1])
    return atom
