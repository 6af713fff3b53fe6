"""simp's ``arith`` option (``simp +arith``, ``simp (config := { arith := true })``): Lean core's ``Nat.Linear``.

Lean's ``Simp.simpArith`` (``src/Lean/Meta/Tactic/Simp/Rewrite.lean``, run in ``postDefault`` after the simp
lemmas and simprocs) normalises, on ℕ:

* a *linear constraint* ``a = b``, ``a ≤ b``, ``a < b``, ``a ≥ b``, ``a > b`` (and ``¬`` of an order) with
  ``Nat.simpCnstr?`` (``src/Lean/Meta/Tactic/Simp/Arith/Nat/Simp.lean``): both sides become sums of
  ``k * atom`` and a constant (``Nat.Linear.Expr.toPoly``, then ``Poly.norm`` sorts by atom and fuses), what
  both sides share is cancelled (``Poly.cancel``); ``a < b`` is ``a + 1 ≤ b``. The constraint becomes
  ``False`` when it is unsatisfiable in that form (``isUnsat``: ``c + … ≤ 0`` with ``c > 0``, ``c + … = 0``),
  ``True`` when valid (``isValid``: ``0 ≤ …``, ``0 = 0``), and else the normal form, written back only when
  it differs from the constraint as read (so ``a < b`` stays);
* a *linear term* (``+``, ``*`` and ``Nat.succ`` on ℕ) that is not the operand of another linear term or
  constraint (``parentIsTarget``), with ``Nat.simpExpr?``: its normal form when that differs.

A product is linear when one factor evaluates to a numeral (``evalNat``); any other subterm (``x - y``,
``x / 2``, ``f x``) is an atom. Atoms are ordered as Lean's ``sortExprs`` orders them (``Expr.lt``: locals
by creation, before constants, before applications, compared function first).

On ℤ, Lean runs ``Int.Linear``'s procedures (``simpRel?``, ``simpEq?``, ``simpExpr?``, ``simpDvd?``: gcd
normalisation, variables in decreasing order); the simulator does not model them and refuses such a simp
call as outside its subset (:class:`IntArithUnmodelled`), rather than leave the term as Lean would not.
"""

from __future__ import annotations

from typing import Any

from lean_gym.sim.terms import FALSE, TRUE, Term, fvar_serial

__all__ = ["FIXED", "IntArithUnmodelled", "is_linear_cnstr", "is_linear_term", "simp_arith_step"]

#: ``Nat.Linear.fixedVar``: the variable whose denotation is ``1``, sorted after every atom.
FIXED = 100_000_000

_RELS = ("=", "≠", "<", "≤", ">", "≥")


class IntArithUnmodelled(Exception):
    """simp's ``arith`` met a linear ℤ term or constraint (Lean's ``Int.Linear``, not modelled)."""


def is_linear_term(t: Term) -> bool:
    """Lean's ``isLinearTerm``: ``+``/``*`` on ℕ or ℤ, ``-``/negation on ℤ, ``Nat.succ``."""
    h = t[0]
    if h in ("+", "*"):
        return t[1] in ("ℕ", "ℤ")
    if h in ("-", "neg"):
        return t[1] == "ℤ"
    return h == "app" and t[1] == ("const", "Nat.succ") and len(t[2]) == 1


def is_linear_cnstr(t: Term) -> bool:
    """Lean's ``isLinearCnstr``: a relation on ℕ or ℤ, or its negation."""
    if t[0] == "¬":
        t = t[1]
    return t[0] in _RELS and t[1] in ("ℕ", "ℤ")


def is_arith_target(t: Term) -> bool:
    """Lean's ``parentIsTarget`` test on a parent: a linear term, a linear constraint or a ``∣`` on ℕ/ℤ."""
    return is_linear_term(t) or is_linear_cnstr(t) or (t[0] == "∣" and t[1] in ("ℕ", "ℤ"))


def simp_arith_step(t: Term, parent_is_target: bool) -> Term | None:
    """What Lean's ``simpArith`` rewrites ``t`` to, or ``None`` (no step).

    Raises:
        IntArithUnmodelled: ``t`` is one of the ℤ terms or constraints Lean's ``Int.Linear`` procedures
            would read.
    """
    if is_linear_cnstr(t):
        inner = t[1] if t[0] == "¬" else t
        if inner[1] == "ℤ":
            raise IntArithUnmodelled
        return _simp_cnstr(t)
    if is_linear_term(t):
        if parent_is_target:
            return None
        if t[1] == "ℤ":
            raise IntArithUnmodelled
        return _simp_expr(t)
    if t[0] == "∣" and t[1] == "ℤ":
        raise IntArithUnmodelled  # Int.simpDvd? (ℕ divisibility: its `toRawDvdCnstr?` needs ℤ's instance)
    return None


# ------------------------------------------------------------------------------------- linear expressions
# Nat.Linear.Expr as tuples: ("num", v), ("var", i), ("add", a, b), ("mulL", k, a), ("mulR", a, k)

LinExpr = tuple[Any, ...]


class _ToLinear:
    """Lean's ``Nat.Linear.ToLinear``: a term as a linear expression over atoms, numbered as met."""

    def __init__(self) -> None:
        self.atoms: list[Term] = []
        self._index: dict[Term, int] = {}

    def var(self, t: Term) -> LinExpr:
        i = self._index.get(t)
        if i is None:
            i = len(self.atoms)
            self._index[t] = i
            self.atoms.append(t)
        return ("var", i)

    def expr(self, t: Term) -> LinExpr:
        h = t[0]
        if h == "num" and t[1] == "ℕ" and type(t[2]) is int:
            return ("num", t[2])
        if h == "app" and t[1] == ("const", "Nat.succ") and len(t[2]) == 1:
            return ("add", self.expr(t[2][0]), ("num", 1))  # Expr.inc
        if h == "app" and t[1] == ("const", "Nat.zero") and not t[2]:
            return ("num", 0)
        if h == "+" and t[1] == "ℕ":
            return ("add", self.expr(t[2]), self.expr(t[3]))
        if h == "*" and t[1] == "ℕ":
            k = eval_nat(t[2])
            if k is not None:
                return ("mulL", k, self.expr(t[3]))
            k = eval_nat(t[3])
            if k is not None:
                return ("mulR", self.expr(t[2]), k)
        return self.var(t)


def eval_nat(t: Term) -> int | None:
    """Lean's ``Meta.evalNat``: the value of a closed ℕ term of numerals, ``+ - * / % ^`` and ``Nat.succ``."""
    h = t[0]
    if h == "num":
        return t[2] if t[1] == "ℕ" and type(t[2]) is int else None
    if h == "app" and t[1] == ("const", "Nat.succ") and len(t[2]) == 1:
        a = eval_nat(t[2][0])
        return None if a is None else a + 1
    if h in ("+", "-", "*", "/", "%", "^") and t[1] == "ℕ":
        a = eval_nat(t[2])
        b = eval_nat(t[3]) if a is not None else None
        if a is None or b is None:
            return None
        if h == "+":
            return a + b
        if h == "-":
            return max(a - b, 0)
        if h == "*":
            return a * b
        if h == "/":
            return a // b if b else 0
        if h == "%":
            return a % b if b else a
        return a**b if b <= 256 else None  # evalNat's `checkExponent` refuses huge exponents
    return None


def _apply_perm(e: LinExpr, perm: dict[int, int]) -> LinExpr:
    k = e[0]
    if k == "num":
        return e
    if k == "var":
        return ("var", perm[e[1]])
    if k == "add":
        return ("add", _apply_perm(e[1], perm), _apply_perm(e[2], perm))
    if k == "mulL":
        return ("mulL", e[1], _apply_perm(e[2], perm))
    return ("mulR", _apply_perm(e[1], perm), e[2])


def _sorted_atoms(atoms: list[Term]) -> tuple[list[Term], dict[int, int]]:
    """Lean's ``sortExprs``: the atoms in ``Expr.lt`` order and each old index's new position."""
    order = sorted(range(len(atoms)), key=lambda i: _LeanKey(_lean_expr(atoms[i])))
    return [atoms[i] for i in order], {old: new for new, old in enumerate(order)}


# ---------------------------------------------------------------------------------------------- polynomials
Poly = list[tuple[int, int]]  # (coefficient, variable), FIXED for the constant


def _to_poly(e: LinExpr) -> Poly:
    k = e[0]
    if k == "num":
        return [] if e[1] == 0 else [(e[1], FIXED)]
    if k == "var":
        return [(1, e[1])]
    if k == "add":
        return _to_poly(e[1]) + _to_poly(e[2])
    c, p = (e[1], _to_poly(e[2])) if k == "mulL" else (e[2], _to_poly(e[1]))
    if c == 0:
        return []
    return p if c == 1 else [(c * k2, v) for k2, v in p]


def _norm(p: Poly) -> Poly:
    """``Poly.norm`` (``sort`` then ``fuse``): one monomial per variable, in variable order."""
    acc: dict[int, int] = {}
    for k, v in p:
        acc[v] = acc.get(v, 0) + k
    return [(acc[v], v) for v in sorted(acc)]


def _cancel(p: Poly, q: Poly) -> tuple[Poly, Poly]:
    """``Poly.cancel`` on normalised polynomials: what a variable has on both sides goes from both."""
    qd = dict((v, k) for k, v in q)
    pd = dict((v, k) for k, v in p)
    lhs = [(k - min(k, qd.get(v, 0)), v) for k, v in p]
    rhs = [(k - min(k, pd.get(v, 0)), v) for k, v in q]
    return [m for m in lhs if m[0]], [m for m in rhs if m[0]]


def _is_nonzero(p: Poly) -> bool:
    return any(v == FIXED and k > 0 for k, v in p)


def _poly_to_expr(p: Poly) -> LinExpr:
    """``Poly.toExpr``: monomials left to right, ``k * x`` (``mulL``) for ``k ≠ 1``, the constant last."""

    def mono(k: int, v: int) -> LinExpr:
        if v == FIXED:
            return ("num", k)
        return ("var", v) if k == 1 else ("mulL", k, ("var", v))

    if not p:
        return ("num", 0)
    out = mono(*p[0])
    for k, v in p[1:]:
        out = ("add", out, mono(k, v))
    return out


def _to_arith(e: LinExpr, atoms: list[Term]) -> Term:
    k = e[0]
    if k == "num":
        return ("num", "ℕ", e[1])
    if k == "var":
        return atoms[e[1]]
    if k == "add":
        return ("+", "ℕ", _to_arith(e[1], atoms), _to_arith(e[2], atoms))
    if k == "mulL":
        return ("*", "ℕ", ("num", "ℕ", e[1]), _to_arith(e[2], atoms))
    return ("*", "ℕ", _to_arith(e[1], atoms), ("num", "ℕ", e[2]))


# ---------------------------------------------------------------------------------------------- simprocs


def _simp_cnstr(t: Term) -> Term | None:
    """``Nat.simpCnstr?``; ``a ≠ b`` as simp reads it (``ne_eq``, then the equation under ``¬``)."""
    if t[0] == "¬":
        a = t[1]
        h = a[0]
        if h not in ("≤", "≥", "<", ">"):
            return None
        # Nat.not_le_eq, Nat.not_ge_eq, Nat.not_lt_eq, Nat.not_gt_eq
        one = ("num", "ℕ", 1)
        new = {
            "≤": ("≤", "ℕ", ("+", "ℕ", a[3], one), a[2]),
            "≥": ("≤", "ℕ", ("+", "ℕ", a[2], one), a[3]),
            "<": ("≤", "ℕ", a[3], a[2]),
            ">": ("≤", "ℕ", a[2], a[3]),
        }[h]
        got = _simp_cnstr_pos(new)
        return new if got is None else got
    if t[0] == "≠":
        got = _simp_cnstr_pos(("=", "ℕ", t[2], t[3]))
        if got is None:
            return None
        return FALSE if got == TRUE else TRUE if got == FALSE else ("≠", "ℕ", got[2], got[3])
    return _simp_cnstr_pos(t)


def _simp_cnstr_pos(t: Term) -> Term | None:
    """``Nat.simpCnstrPos?``: ``False``, ``True``, the normal form, or ``None`` when it is the constraint."""
    h, a, b = t[0], t[2], t[3]
    conv = _ToLinear()
    if h == "=":
        eq, lhs, rhs = True, conv.expr(a), conv.expr(b)
    elif h == "≤":
        eq, lhs, rhs = False, conv.expr(a), conv.expr(b)
    elif h == "<":
        eq, lhs, rhs = False, ("add", conv.expr(a), ("num", 1)), conv.expr(b)
    elif h == "≥":
        eq, rhs, lhs = False, conv.expr(a), conv.expr(b)
    elif h == ">":
        eq, rhs = False, conv.expr(a)
        lhs = ("add", conv.expr(b), ("num", 1))
    else:
        return None
    atoms = conv.atoms
    if len(atoms) > 1:
        atoms, perm = _sorted_atoms(atoms)
        lhs, rhs = _apply_perm(lhs, perm), _apply_perm(rhs, perm)
    rel = "=" if eq else "≤"
    read = (rel, "ℕ", _to_arith(lhs, atoms), _to_arith(rhs, atoms))
    pl, pr = _cancel(_norm(_to_poly(lhs)), _norm(_to_poly(rhs)))
    if eq:
        unsat = (not pl and _is_nonzero(pr)) or (_is_nonzero(pl) and not pr)
        valid = not pl and not pr
    else:
        unsat = _is_nonzero(pl) and not pr
        valid = not pl
    if unsat:
        return FALSE
    if valid:
        return TRUE
    new = (rel, "ℕ", _to_arith(_poly_to_expr(pl), atoms), _to_arith(_poly_to_expr(pr), atoms))
    return None if new == read else new


def _simp_expr(t: Term) -> Term | None:
    """``Nat.simpExpr?``: the normal form of a linear ℕ term, when it is not the term as read."""
    conv = _ToLinear()
    e = conv.expr(t)
    atoms = conv.atoms
    if len(atoms) > 1:
        atoms, perm = _sorted_atoms(atoms)
        e = _apply_perm(e, perm)
    e2 = _poly_to_expr(_norm(_to_poly(e)))
    if e2 == e:
        return None
    return _to_arith(e2, atoms)


# ------------------------------------------------------------------------------------ Lean's `Expr.lt`
# Expressions as Lean's kernel sees them, for the order only: ("fvar", serial, name), ("const", name),
# ("lit", n), ("app", fn, arg) (binary, as Lean's), ("bind", domain, body). Kinds are ordered as Lean's
# `Expr` constructors (bvar, fvar, mvar, sort, const, app, lam, forallE, letE, lit, mdata, proj).

_KIND = {"fvar": 1, "const": 4, "app": 5, "bind": 7, "lit": 9}
_OP_NAMES = {
    "+": "HAdd.hAdd",
    "-": "HSub.hSub",
    "*": "HMul.hMul",
    "/": "HDiv.hDiv",
    "%": "HMod.hMod",
    "^": "HPow.hPow",
}
_TYPE_NAMES = {"ℕ": "Nat", "ℤ": "Int", "ℚ": "Rat", "ℝ": "Real"}


def _apps(fn: tuple, args: list[tuple]) -> tuple:
    out = fn
    for a in args:
        out = ("app", out, a)
    return out


def _ty(name: str) -> tuple:
    return ("const", _TYPE_NAMES.get(name, name))


def _lean_expr(t: Term) -> tuple:
    h = t[0]
    if h == "fvar":
        return ("fvar", fvar_serial(t[1]), t[1])
    if h == "var":
        # a variable of a binder simp went under: a local newer than every other one
        return ("fvar", 1 << 62, t[1])
    if h == "const":
        return ("const", t[1])
    if h == "type":
        return _ty(t[1])
    if h == "num":
        ty = _ty(t[1])
        return _apps(("const", "OfNat.ofNat"), [ty, ("lit", t[2]), ("const", f"instOfNat{ty[1]}")])
    if h in _OP_NAMES:
        ty = _ty(t[1])
        ety = ("const", "Nat") if h == "^" else ty
        inst = ("const", f"inst{_OP_NAMES[h].split('.')[0]}{ty[1]}")
        return _apps(("const", _OP_NAMES[h]), [ty, ety, ty, inst, _lean_expr(t[2]), _lean_expr(t[3])])
    if h == "app":
        return _apps(_lean_expr(t[1]), [_lean_expr(a) for a in t[2]])
    if h == "cast":
        name = "Nat.cast" if t[2] == "ℕ" else "Int.cast" if t[2] == "ℤ" else "cast"
        return _apps(("const", name), [_ty(t[1]), ("const", "inst"), _lean_expr(t[3])])
    if h in ("neg", "abs", "inv"):
        name = {"neg": "Neg.neg", "abs": "abs", "inv": "Inv.inv"}[h]
        return _apps(("const", name), [_ty(t[1]), ("const", "inst"), _lean_expr(t[2])])
    if h in ("∀", "∃", "fun"):
        return ("bind", _lean_expr(t[2]) if type(t[2]) is tuple else ("const", str(t[2])), _lean_expr(t[3]))
    return ("const", repr(t))


def _name_key(name: str) -> tuple:
    """Lean's ``Name`` order: component by component, numbers before strings, numbers by value."""
    return tuple((0, int(c), "") if c.isdigit() else (1, 0, c) for c in name.split("."))


def _expr_lt(a: tuple, b: tuple) -> bool:
    if a == b:
        return False
    ka, kb = _KIND[a[0]], _KIND[b[0]]
    if ka != kb:
        return ka < kb
    h = a[0]
    if h == "fvar":
        return (a[1], a[2]) < (b[1], b[2])
    if h == "const":
        return _name_key(a[1]) < _name_key(b[1])
    if h == "lit":
        return repr(a[1]) < repr(b[1]) if type(a[1]) is not type(b[1]) else a[1] < b[1]
    # app (function first, then argument) and binders (domain first, then body)
    if a[1] != b[1]:
        return _expr_lt(a[1], b[1])
    return _expr_lt(a[2], b[2])


class _LeanKey:
    """A sort key comparing by :func:`_expr_lt`."""

    __slots__ = ("e",)

    def __init__(self, e: tuple) -> None:
        self.e = e

    def __lt__(self, other: _LeanKey) -> bool:
        return _expr_lt(self.e, other.e)
