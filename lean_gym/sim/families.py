"""Seeded goal families with ground truth: theorems that need *different* aesop configurations.

Each family draws true statements whose proof needs a particular kind of rule, so that on the SATP v1
action layout a per-goal configuration beats any single one, as on real Lean:

==============  =====================================================================================
family          what a proof needs (in the simulator)
==============  =====================================================================================
``prop``        propositional structure: aesop's builtin rules (intro, split, cases, assumption)
``linarith``    a linear consequence of linear hypotheses: a ``linarith`` rule
``subst``       ``h : x - c = 0`` with ``x²``/``x³`` terms elsewhere: the norm simp (default set,
                ``sub_eq_zero``) turns it into ``x = c``, the builtin ``subst`` substitutes, ``linarith`` finishes
``ring``        a polynomial identity (``ring``/``ring_nf``), some after ``field_simp`` (a division)
``nonlinear``   a nonlinear inequality: ``nlinarith``, ``positivity`` (quotients, ``|x|``), or the library
                lemma ``two_mul_le_add_sq`` for ``2st ≤ s² + t²`` (nlinarith would need a hint)
``lemma``       one lemma of the built-in library (abs/dvd/mod facts no decision procedure proves): the
                lemma-rank heads (``first | apply N | rw [N] | simp only [N]``) with the right rank
``cases``       a bounded natural number: ``omega`` or ``interval_cases`` (then simp closes each case)
``deep``        a long conjunction of linear facts: ``linarith`` and more ``maxRuleApplicationDepth``
                (a right-nested chain) or ``maxRuleApplications`` (a balanced tree) than the defaults
``simp_trap``   a linear goal with distractor hypotheses ``a * b = 0`` that the default simp set
                (``mul_eq_zero``) turns into disjunctions aesop then splits 2^k ways; ``enableSimp :=
                false`` or ``useDefaultSimpSet := false`` avoid the blow-up
``cast``        ℕ-to-ℝ/ℤ casts: ``norm_cast`` (safe or ``at *``), ``omega``, ``zify``
==============  =====================================================================================

Every theorem is true by construction (a Farkas certificate, a polynomial expansion, an enumerated range,
a library lemma instance, …); ``tests/test_families.py`` re-checks truth by brute force on small domains.
The terms are built with :mod:`lean_gym.sim.families_terms` (polynomials: :mod:`lean_gym.sim.families_poly`),
the context lemmas come from :mod:`lean_gym.sim.families_retrieval`. Splits come from disjoint seed ranges, and a statement is only kept in the split its text hashes to, so no
statement text occurs in two splits.

Example:
    >>> from lean_gym.sim.families import generate_split
    >>> rows = generate_split("test", n=3)
    >>> sorted(rows[0])[:4]
    ['context_lemma_scores', 'context_lemmas', 'difficulty', 'family']
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

from lean_gym.sim.elab import BUILTIN_FNS
from lean_gym.sim.evaluate import decide_closed, eval_term
from lean_gym.sim.families_poly import p_add, p_const, p_mul, p_pow, p_var, poly_term
from lean_gym.sim.families_retrieval import lemma_available, retrieve_lemmas
from lean_gym.sim.families_terms import (
    Rel,
    add,
    cast,
    lean_source,
    lin_rel,
    lin_term,
    mul,
    num,
    pw,
    rel,
    sub,
    v,
)
from lean_gym.sim.families_text import TEXT_FAMILIES, UNREACHABLE_FAMILIES, TextSpec, register_bases
from lean_gym.sim.goals import Goal
from lean_gym.sim.tactics import TacticContext
from lean_gym.sim.terms import FALSE, TRUE, Term, mk_num, pretty, type_term

__all__ = [
    "DEFAULT_SPLIT_SIZE",
    "FAMILIES",
    "FAMILY_WEIGHTS",
    "HEADER",
    "SPLITS",
    "UNREACHABLE_FAMILIES",
    "evaluate",
    "generate",
    "generate_split",
    "linear_facts",
    "retrieve_lemmas",
]

HEADER = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n\n"
"""Header of every generated theorem (miniF2F's, with Kimina's 400000 heartbeats instead of unlimited)."""

SPLITS = ("train", "valid", "test")
DEFAULT_SPLIT_SIZE = 300
_SEED_BASE = {"train": 10_000_000, "valid": 20_000_000, "test": 30_000_000}

# ------------------------------------------------------------------------------------ the record


class _Spec:
    """A generated statement before naming: binders, hypotheses, target, family data."""

    def __init__(
        self,
        family: str,
        data: Sequence[tuple[str, str]],
        hyps: Sequence[tuple[str, Term]],
        target: Term,
        difficulty: int,
        lemma: str | None = None,
    ) -> None:
        self.family = family
        self.data = list(data)  # (name, type name) in order
        self.hyps = list(hyps)
        self.target = target
        self.difficulty = difficulty
        self.lemma = lemma

    def binder_text(self) -> str:
        parts: list[str] = []
        i = 0
        while i < len(self.data):
            ty = self.data[i][1]
            names = [self.data[i][0]]
            j = i + 1
            while j < len(self.data) and self.data[j][1] == ty:
                names.append(self.data[j][0])
                j += 1
            parts.append(f"({' '.join(names)} : {ty})")
            i = j
        parts.extend(f"({h} : {lean_source(p)})" for h, p in self.hyps)
        return " ".join(parts)

    def body(self) -> str:
        b = self.binder_text()
        return (b + " " if b else "") + f": {lean_source(self.target)}"

    def goal(self) -> Goal:
        hyps = [(n, type_term(ty)) for n, ty in self.data] + list(self.hyps)
        return Goal(tuple(hyps), self.target)


def _hyp_names(k: int) -> list[str]:
    sub_digits = "₀₁₂₃₄₅₆₇₈₉"
    out = []
    for i in range(k):
        s = "".join(sub_digits[int(d)] for d in str(i))
        out.append(f"h{s}")
    return out


# -------------------------------------------------------------------------------------- families


def _fam_prop(rng: random.Random) -> _Spec:
    atoms = rng.sample(["p", "q", "r", "s", "t"], 4)
    a, b, c, d = (v(x) for x in atoms)
    kind = rng.randrange(15)
    hyps: list[Term]
    tgt: Term
    if kind == 0:
        hyps, tgt = [("∧", a, b), ("→", b, c)], ("∧", c, a)
    elif kind == 1:
        hyps, tgt = [("∨", a, b), ("→", a, c), ("→", b, c)], c
    elif kind == 2:
        hyps, tgt = [("↔", a, b), a], ("∨", b, d)
    elif kind == 3:
        k = rng.randint(2, 4)
        chain = [v(x) for x in atoms[:k]]
        hyps = [chain[0]] + [("→", chain[i], chain[i + 1]) for i in range(k - 1)]
        rng.shuffle(hyps)
        tgt = ("∧", chain[-1], chain[0])
    elif kind == 4:
        hyps, tgt = [("∨", ("¬", a), b), a], b
    elif kind == 5:
        hyps, tgt = [], ("→", a, ("→", b, ("∧", a, b)))
    elif kind == 6:
        hyps, tgt = [("∧", a, ("∨", b, c)), ("→", b, d), ("→", c, d)], ("∧", d, a)
    elif kind == 7:
        hyps, tgt = [], ("→", ("→", a, b), ("→", ("→", b, c), ("→", a, c)))
    elif kind == 8:
        hyps, tgt = [("→", a, b), ("¬", b)], ("¬", a)
    elif kind == 9:
        hyps, tgt = [("→", ("∧", a, b), c), a, b], c
    elif kind == 10:
        hyps, tgt = [("∨", a, b), ("¬", a)], ("∨", b, c)
    elif kind == 11:
        hyps, tgt = [("∧", a, b)], ("↔", ("∧", b, a), ("∧", a, b))
    elif kind == 12:  # classical: needs simp's not_not
        hyps, tgt = [("¬", ("¬", a)), ("→", a, b)], ("∧", b, a)
    elif kind == 13:  # contraposition (classical)
        hyps, tgt = [("→", ("¬", b), ("¬", a)), a], ("∨", b, c)
    else:  # material implication
        hyps, tgt = [("∨", ("¬", a), b)], ("→", a, b)
    used = sorted({x for x in atoms if _mentions(x, hyps, tgt)})
    data = [(x, "Prop") for x in used]
    names = _hyp_names(len(hyps))
    return _Spec("prop", data, list(zip(names, hyps)), tgt, 1 + (kind in (1, 3, 6, 7, 12, 13)))


def _mentions(x: str, hyps: Sequence[Term], tgt: Term) -> bool:
    from lean_gym.sim.terms import free_vars

    return any(x in free_vars(t) for t in [*hyps, tgt])


def _linear_system(
    rng: random.Random, ty: str, names: Sequence[str], n_hyps: int
) -> tuple[list[Term], list[tuple[list[int], Rel, int]], list[int]]:
    """Random consistent linear hypotheses ``Σ aᵢ xᵢ (≤|<|=) b`` around a random point."""
    x0 = [rng.randint(-4, 4) for _ in names]
    rows: list[tuple[list[int], Rel, int]] = []
    hyps: list[Term] = []
    while len(rows) < n_hyps:
        co = [rng.randint(-3, 3) for _ in names]
        if all(c == 0 for c in co) or any(co == r[0] for r in rows):
            continue
        op = rng.choices(["≤", "<", "="], [0.5, 0.3, 0.2])[0]
        val = sum(c * x for c, x in zip(co, x0))
        slack = 0 if op == "=" else (rng.randint(1, 3) if op == "<" else rng.randint(0, 2))
        b = val + slack
        rows.append((co, op, b))
        hyps.append(lin_rel(ty, co, names, op, b, rng))
    return hyps, rows, x0


def _linear_consequence(
    rng: random.Random, ty: str, names: Sequence[str], rows: Sequence[tuple[list[int], Rel, int]]
) -> tuple[list[int], Rel, int] | None:
    lam = [rng.choice([0, 1, 1, 2]) if op != "=" else rng.choice([-1, 0, 1, 2]) for _, op, _ in rows]
    if all(x == 0 for x in lam):
        return None
    co = [sum(l_ * r[0][j] for l_, r in zip(lam, rows)) for j in range(len(names))]
    if all(c == 0 for c in co):
        return None
    if sum(1 for l_ in lam if l_ != 0) < 2:
        return None
    const = sum(l_ * r[2] for l_, r in zip(lam, rows))
    strict = any(l_ > 0 and r[1] == "<" for l_, r in zip(lam, rows))
    s = rng.choice([0, 0, 1, 2])
    op: Rel = "<" if (strict or (s > 0 and rng.random() < 0.5)) else "≤"
    return co, op, const + s


def _fam_linarith(rng: random.Random) -> _Spec:
    ty = rng.choice(["ℝ", "ℝ", "ℚ"])
    names = rng.choice([["x", "y"], ["x", "y", "z"], ["a", "b"], ["a", "b", "c"]])
    n_h = rng.randint(2, 3)
    for _ in range(100):
        hyps, rows, _x0 = _linear_system(rng, ty, names, n_h)
        cons = _linear_consequence(rng, ty, names, rows)
        if cons is None:
            continue
        tgt = lin_rel(ty, cons[0], names, cons[1], cons[2], rng)
        if tgt in hyps:
            continue
        data = [(x, ty) for x in names]
        return _Spec("linarith", data, list(zip(_hyp_names(len(hyps)), hyps)), tgt, n_h - 1)
    raise RuntimeError("linarith family: no instance found")  # pragma: no cover - 100 tries always suffice


def _fam_subst(rng: random.Random) -> _Spec:
    ty = "ℝ"
    c = rng.randint(2, 5)
    b = rng.randint(1, 9)
    x, y = rng.choice([("x", "y"), ("a", "b"), ("m", "n")])
    h0 = rel("=", ty, sub(ty, v(x), num(ty, c)), num(ty, 0))
    kind = rng.randrange(3)
    if kind == 0:
        # x ^ 3 * y ≤ y + b  ⇒  (c³-1) y ≤ b   (degree 4: beyond nlinarith's products of pairs)
        h1 = rel("≤", ty, mul(ty, pw(ty, v(x), 3), v(y)), add(ty, v(y), num(ty, b)))
        bound = math.ceil(Fraction(b, c**3 - 1)) + rng.randint(0, 2)
        tgt = rel("≤", ty, v(y), num(ty, bound))
    elif kind == 1:
        # y + b ≤ x ^ 2 * y  ⇒  y ≥ b / (c²-1)
        h1 = rel("≤", ty, add(ty, v(y), num(ty, b)), mul(ty, pw(ty, v(x), 2), v(y)))
        bound = math.floor(Fraction(b, c * c - 1)) - rng.randint(0, 2)
        tgt = rel("≤", ty, num(ty, bound), v(y)) if bound >= 0 else rel("<", ty, num(ty, bound), v(y))
    else:
        # y < x ^ 3 + b  ⇒  y < c³ + b
        h1 = rel("<", ty, v(y), add(ty, pw(ty, v(x), 3), num(ty, b)))
        tgt = rel("<", ty, v(y), num(ty, c**3 + b + rng.randint(0, 3)))
    data = [(x, ty), (y, ty)]
    return _Spec("subst", data, list(zip(_hyp_names(2), [h0, h1])), tgt, 1 + (kind == 2))


def _fam_ring(rng: random.Random) -> _Spec:
    ty = rng.choice(["ℝ", "ℝ", "ℚ", "ℤ"])
    if rng.random() < 0.5 and ty != "ℤ":
        return _fam_field(rng, ty)
    names = rng.choice([["a", "b"], ["x", "y"], ["a", "b", "c"]])
    n = len(names)
    X = [p_var(i, n) for i in range(n)]
    kind = rng.randrange(6)
    k1, k2 = rng.randint(1, 4), rng.randint(1, 4)
    if kind == 0:  # (a + k b)^2
        inner = p_add(X[0], {m: k1 * c for m, c in X[1].items()})
        lhs_t = pw(ty, add(ty, v(names[0]), _coef(ty, k1, v(names[1]))), 2)
        p = p_pow(inner, 2, n)
    elif kind == 1:  # (a - b)^2
        inner = p_add(X[0], X[1], -1)
        lhs_t = pw(ty, sub(ty, v(names[0]), v(names[1])), 2)
        p = p_pow(inner, 2, n)
    elif kind == 2:  # (a + b)(a - b)
        lhs_t = mul(ty, add(ty, v(names[0]), v(names[1])), sub(ty, v(names[0]), v(names[1])))
        p = p_mul(p_add(X[0], X[1]), p_add(X[0], X[1], -1))
    elif kind == 3:  # (a + k1)(a + k2)
        lhs_t = mul(ty, add(ty, v(names[0]), num(ty, k1)), add(ty, v(names[0]), num(ty, k2)))
        p = p_mul(p_add(X[0], p_const(k1, n)), p_add(X[0], p_const(k2, n)))
    elif kind == 4:  # (a + b)^3
        lhs_t = pw(ty, add(ty, v(names[0]), v(names[1])), 3)
        p = p_pow(p_add(X[0], X[1]), 3, n)
    else:  # a (b + k) - b (a - k)
        lhs_t = sub(
            ty,
            mul(ty, v(names[0]), add(ty, v(names[1]), num(ty, k1))),
            mul(ty, v(names[1]), sub(ty, v(names[0]), num(ty, k2))),
        )
        p = p_add(p_mul(X[0], p_add(X[1], p_const(k1, n))), p_mul(X[1], p_add(X[0], p_const(k2, n), -1)), -1)
    rhs_t = poly_term(ty, p, names, rng)
    used = [x for x in names if _mentions(x, [], ("∧", lhs_t, rhs_t))]
    tgt = rel("=", ty, lhs_t, rhs_t) if rng.random() < 0.7 else rel("=", ty, rhs_t, lhs_t)
    return _Spec("ring", [(x, ty) for x in used], [], tgt, 1 + (kind == 4))


def _coef(ty: str, k: int, t: Term) -> Term:
    return t if k == 1 else mul(ty, num(ty, k), t)


def _fam_field(rng: random.Random, ty: str) -> _Spec:
    x = rng.choice(["x", "a", "t"])
    k = rng.randint(1, 5)
    kind = rng.randrange(3)
    lhs: Term
    rhs: Term
    if kind == 2:  # (x + k) / x - 1 = k / x
        lhs = sub(ty, ("/", ty, add(ty, v(x), num(ty, k)), v(x)), num(ty, 1))
        rhs = ("/", ty, num(ty, k), v(x))
        h = rel("≠", ty, v(x), num(ty, 0))
        return _Spec("ring", [(x, ty)], [("h₀", h)], rel("=", ty, lhs, rhs), 2)
    if kind == 0:  # (x^2 + k x) / x = x + k
        lhs = ("/", ty, add(ty, pw(ty, v(x), 2), mul(ty, num(ty, k), v(x))), v(x))
        rhs = add(ty, v(x), num(ty, k))
    else:  # k / x + 1 = (k + x) / x
        lhs = add(ty, ("/", ty, num(ty, k), v(x)), num(ty, 1))
        rhs = ("/", ty, add(ty, num(ty, k), v(x)), v(x))
    h = rel("≠", ty, v(x), num(ty, 0))
    return _Spec("ring", [(x, ty)], [("h₀", h)], rel("=", ty, lhs, rhs), 2)


def _fam_nonlinear(rng: random.Random) -> _Spec:
    ty = "ℝ"
    x, y = rng.choice([("x", "y"), ("a", "b"), ("s", "t"), ("u", "w")])
    kind = rng.randrange(6)
    k = rng.randint(1, 7)
    if kind == 0:  # 2 s t ≤ s^2 + t^2 for small terms s, t: nlinarith needs a hint, the library has the lemma
        s_t = _small_lin(rng, ty, [x, y]) if rng.random() < 0.6 else v(x)
        t_t = rng.choice(
            [v(y), add(ty, v(y), num(ty, rng.randint(1, 9))), mul(ty, num(ty, rng.randint(2, 5)), v(y))]
        )
        lhs = mul(ty, mul(ty, num(ty, 2), s_t), t_t)
        rhs = add(ty, pw(ty, s_t, 2), pw(ty, t_t, 2))
        used = [n for n in (x, y) if _mentions(n, [], ("∧", lhs, rhs))]
        return _Spec(
            "nonlinear", [(n, ty) for n in used], [], rel("≤", ty, lhs, rhs), 2, lemma="two_mul_le_add_sq"
        )
    if kind == 1:  # c < x → c x < x^2
        c = rng.randint(1, 6)
        lhs = v(x) if c == 1 else mul(ty, num(ty, c), v(x))
        return _Spec(
            "nonlinear",
            [(x, ty)],
            [("h₀", rel("<", ty, num(ty, c), v(x)))],
            rel("<", ty, lhs, pw(ty, v(x), 2)),
            2,
        )
    if kind == 2:  # 0 < x, 0 < y → 0 < (x y + k) / y   (a quotient: positivity, not nlinarith)
        hs = [("h₀", rel("<", ty, num(ty, 0), v(x))), ("h₁", rel("<", ty, num(ty, 0), v(y)))]
        return _Spec(
            "nonlinear",
            [(x, ty), (y, ty)],
            hs,
            rel("<", ty, num(ty, 0), ("/", ty, add(ty, mul(ty, v(x), v(y)), num(ty, k)), v(y))),
            1,
        )
    if kind == 3:  # 0 < (x^2 + k) / (y^2 + 1)  (or with |x|)
        top = (
            add(ty, pw(ty, v(x), 2), num(ty, k))
            if rng.random() < 0.5
            else add(ty, ("abs", ty, v(x)), num(ty, k))
        )
        return _Spec(
            "nonlinear",
            [(x, ty), (y, ty)],
            [],
            rel("<", ty, num(ty, 0), ("/", ty, top, add(ty, pw(ty, v(y), 2), num(ty, 1)))),
            1,
        )
    if kind == 4:  # 0 ≤ a, a ≤ b → a^2 ≤ b^2 + k'
        kk = rng.randint(0, 4)
        rhs = pw(ty, v(y), 2) if kk == 0 else add(ty, pw(ty, v(y), 2), num(ty, kk))
        hs = [("h₀", rel("≤", ty, num(ty, 0), v(x))), ("h₁", rel("≤", ty, v(x), v(y)))]
        return _Spec("nonlinear", [(x, ty), (y, ty)], hs, rel("≤", ty, pw(ty, v(x), 2), rhs), 2)
    # 0 ≤ x, 0 ≤ y → 0 ≤ x y + x^2 + k
    hs = [("h₀", rel("≤", ty, num(ty, 0), v(x))), ("h₁", rel("≤", ty, num(ty, 0), v(y)))]
    return _Spec(
        "nonlinear",
        [(x, ty), (y, ty)],
        hs,
        rel("≤", ty, num(ty, 0), add(ty, add(ty, mul(ty, v(x), v(y)), pw(ty, v(x), 2)), num(ty, k))),
        1,
    )


def _small_lin(rng: random.Random, ty: str, names: Sequence[str]) -> Term:
    """A small linear term such as ``x``, ``2 * y``, ``x + 3`` or ``x - y``."""
    a = v(rng.choice(names))
    kind = rng.randrange(5)
    if kind == 0:
        return a
    if kind == 1:
        return mul(ty, num(ty, rng.randint(2, 5)), a)
    if kind == 2:
        return add(ty, a, num(ty, rng.randint(1, 9)))
    b = v(rng.choice([n for n in names if n != a[1]] or list(names)))
    return sub(ty, a, b) if kind == 3 else add(ty, a, b)


# Lemma family: (lemma name, builder(rng) -> (data, hyps, target)).
def _lemma_templates() -> list[
    tuple[str, Callable[[random.Random], tuple[list[tuple[str, str]], list[tuple[str, Term]], Term]]]
]:
    R = "ℝ"

    def names2(rng: random.Random) -> list[str]:
        return rng.choice([["x", "y"], ["a", "b"], ["u", "w"]])

    def abs_add(rng: random.Random) -> Any:
        ns = names2(rng)
        s, t = _small_lin(rng, R, ns), _small_lin(rng, R, ns)
        return (
            [(n, R) for n in ns],
            [],
            rel("≤", R, ("abs", R, add(R, s, t)), add(R, ("abs", R, s), ("abs", R, t))),
        )

    def le_abs_self(rng: random.Random) -> Any:
        ns = names2(rng)
        s = _small_lin(rng, R, ns)
        return [(n, R) for n in ns], [], rel("≤", R, s, ("abs", R, s))

    def neg_abs_le(rng: random.Random) -> Any:
        ns = names2(rng)
        s = _small_lin(rng, R, ns)
        return [(n, R) for n in ns], [], rel("≤", R, ("neg", R, ("abs", R, s)), s)

    def abs_sub_abs(rng: random.Random) -> Any:
        ns = names2(rng)
        s, t = _small_lin(rng, R, ns), _small_lin(rng, R, ns)
        return (
            [(n, R) for n in ns],
            [],
            rel("≤", R, sub(R, ("abs", R, s), ("abs", R, t)), ("abs", R, sub(R, s, t))),
        )

    def mod_lt(rng: random.Random) -> Any:
        n, m = rng.choice([("n", "m"), ("a", "b"), ("k", "d")])
        return (
            [(n, "ℕ"), (m, "ℕ")],
            [("h₀", rel("<", "ℕ", num("ℕ", 0), v(m)))],
            rel("<", "ℕ", ("%", "ℕ", v(n), v(m)), v(m)),
        )

    def div_le_self(rng: random.Random) -> Any:
        n, m = rng.choice([("n", "m"), ("a", "b"), ("k", "d")])
        return [(n, "ℕ"), (m, "ℕ")], [], rel("≤", "ℕ", ("/", "ℕ", v(n), v(m)), v(n))

    def dvd_mul_left_of(rng: random.Random) -> Any:
        a, b, c = rng.choice([("a", "b", "c"), ("m", "n", "k"), ("p", "q", "r")])
        ty = rng.choice(["ℕ", "ℤ"])
        return (
            [(a, ty), (b, ty), (c, ty)],
            [("h₀", rel("∣", ty, v(a), v(b)))],
            rel("∣", ty, v(a), mul(ty, v(b), v(c))),
        )

    def pow_le_pow_left(rng: random.Random) -> Any:
        x, y, n = rng.choice([("x", "y", "n"), ("a", "b", "k")])
        hs = [("h₀", rel("≤", R, num(R, 0), v(x))), ("h₁", rel("≤", R, v(x), v(y)))]
        return [(x, R), (y, R), (n, "ℕ")], hs, rel("≤", R, ("^", R, v(x), v(n)), ("^", R, v(y), v(n)))

    return [
        ("abs_add", abs_add),
        ("le_abs_self", le_abs_self),
        ("neg_abs_le", neg_abs_le),
        ("abs_sub_abs_le_abs_sub", abs_sub_abs),
        ("Nat.mod_lt", mod_lt),
        ("Nat.div_le_self", div_le_self),
        ("dvd_mul_of_dvd_left", dvd_mul_left_of),
        ("pow_le_pow_left", pow_le_pow_left),
    ]


def _fam_lemma(rng: random.Random) -> _Spec:
    templates = [t for t in _lemma_templates() if lemma_available(t[0])]
    if not templates:
        return _fam_linarith(rng)
    name, build = rng.choice(templates)
    data, hyps, tgt = build(rng)
    used = [(x, ty) for x, ty in data if _mentions(x, [p for _, p in hyps], tgt)]
    return _Spec("lemma", used, hyps, tgt, 2, lemma=name)


def _fam_cases(rng: random.Random) -> _Spec:
    N = "ℕ"
    n = rng.choice(["n", "k", "m"])
    kind = rng.choice([0, 0, 1, 2])
    if kind == 0:  # n % k = r, lo < n < hi  ⇒  n = v (unique)
        for _ in range(200):
            k = rng.randint(3, 7)
            r = rng.randrange(k)
            lo = rng.randint(0, 20)
            hi = lo + rng.randint(2, k)
            sols = [x for x in range(lo + 1, hi) if x % k == r]
            if len(sols) == 1:
                hs = [
                    ("h₀", rel("=", N, ("%", N, v(n), num(N, k)), num(N, r))),
                    ("h₁", rel("<", N, num(N, lo), v(n))),
                    ("h₂", rel("<", N, v(n), num(N, hi))),
                ]
                return _Spec("cases", [(n, N)], hs, rel("=", N, v(n), num(N, sols[0])), 1)
    if kind == 1:  # n ≤ B, n^2 + a = b n  ⇒  n = r₁ ∨ n = r₂ (or n = r)
        for _ in range(200):
            r1, r2 = sorted(rng.sample(range(1, 8), 2))
            a, b = r1 * r2, r1 + r2
            bound = r2 + rng.randint(0, 3)
            hs = [
                ("h₀", rel("≤", N, v(n), num(N, bound))),
                ("h₁", rel("=", N, add(N, pw(N, v(n), 2), num(N, a)), mul(N, num(N, b), v(n)))),
            ]
            tgt = ("∨", rel("=", N, v(n), num(N, r1)), rel("=", N, v(n), num(N, r2)))
            return _Spec("cases", [(n, N)], hs, tgt, 2)
    # n < B  ⇒  n^2 % m ≠ r for a residue r that no square hits
    for _ in range(200):
        m = rng.choice([3, 4, 5, 7, 8])
        squares = {(x * x) % m for x in range(m)}
        non = [r for r in range(m) if r not in squares]
        if non:
            r = rng.choice(non)
            bound = rng.randint(4, 9)
            hs = [("h₀", rel("<", N, v(n), num(N, bound)))]
            return _Spec(
                "cases", [(n, N)], hs, rel("≠", N, ("%", N, pw(N, v(n), 2), num(N, m)), num(N, r)), 2
            )
    raise RuntimeError("cases family: no instance found")  # pragma: no cover


def linear_facts(
    rng: random.Random, ty: str, count: int
) -> tuple[list[tuple[str, str]], list[tuple[str, Term]], list[Term]]:
    """Hypotheses ``x < y``, ``y < z`` and ``count`` distinct strict linear consequences of them."""
    names = ["x", "y", "z"]
    hyps = [("h₀", rel("<", ty, v("x"), v("y"))), ("h₁", rel("<", ty, v("y"), v("z")))]
    # a consequence: λ₀ (y - x) + λ₁ (z - y) > 0 written as  Σ cᵢ xᵢ < s with s ≥ 0 shift on both sides
    facts: list[Term] = []
    seen: set[Term] = {h for _, h in hyps}
    tries = 0
    while len(facts) < count and tries < count * 200:
        tries += 1
        l0, l1 = rng.randint(0, 4), rng.randint(0, 4)
        if l0 == 0 and l1 == 0:
            continue
        co = [-l0, l0 - l1, l1]  # Σ co·(x,y,z) > 0
        shift = rng.randint(0, 9)
        # -(co·v) < 0  →  present as  Σ(neg) + shift < Σ(pos) + shift
        neg = [max(-c, 0) for c in co]
        pos = [max(c, 0) for c in co]
        left = lin_term(ty, neg, names)
        right = lin_term(ty, pos, names)
        if left is None or right is None:
            continue
        if shift:
            left, right = add(ty, left, num(ty, shift)), add(ty, right, num(ty, shift))
        t = rel("<", ty, left, right)
        if t in seen:
            continue
        seen.add(t)
        facts.append(t)
    return [(x, ty) for x in names], hyps, facts


def _fam_deep(rng: random.Random) -> _Spec:
    ty = "ℝ"
    shape = rng.choice(["chain", "chain", "tree"])
    if shape == "chain":
        count = rng.choice([rng.randint(33, 46), rng.randint(52, 66), rng.randint(72, 86)])
    else:
        count = rng.randint(102, 138)
    data, hyps, facts = linear_facts(rng, ty, count)
    if shape == "chain":
        tgt = facts[-1]
        for f in reversed(facts[:-1]):
            tgt = ("∧", f, tgt)
    else:
        tgt = _balanced(facts)
    diff = 1 + (count > 50) + (count > 70)
    return _Spec("deep", data, hyps, tgt, diff)


def _balanced(facts: Sequence[Term]) -> Term:
    if len(facts) == 1:
        return facts[0]
    mid = len(facts) // 2
    return ("∧", _balanced(facts[:mid]), _balanced(facts[mid:]))


def _fam_simp_trap(rng: random.Random) -> _Spec:
    ty = "ℝ"
    base = _fam_linarith(rng)
    k = rng.randint(7, 8)
    sub_digits = "₁₂₃₄₅₆₇₈₉"
    extra_vars: list[str] = []
    distractors: list[Term] = []
    for i in range(k):
        p, q = f"u{sub_digits[i]}", f"w{sub_digits[i]}"
        distractors.append(rel("=", ty, mul(ty, v(p), v(q)), num(ty, 0)))
        extra_vars += [p, q]
    hyps = [p for _, p in base.hyps] + distractors
    names = _hyp_names(len(hyps))
    data = [(x, ty) for x, _ in base.data] + [(x, ty) for x in extra_vars]
    return _Spec("simp_trap", data, list(zip(names, hyps)), base.target, k - 6)


def _fam_cast(rng: random.Random) -> _Spec:
    N = "ℕ"
    x = rng.choice(["x", "n", "k"])
    kind = rng.randrange(4)
    if kind == 0:  # (x : ℝ) + a = b  ⇒  x = b - a
        a, val = rng.randint(1, 9), rng.randint(0, 12)
        h = rel("=", "ℝ", add("ℝ", cast("ℝ", N, v(x)), num("ℝ", a)), num("ℝ", a + val))
        return _Spec("cast", [(x, N)], [("h₀", h)], rel("=", N, v(x), num(N, val)), 1)
    if kind == 1:  # (x : ℝ) < d + 2, d < x  ⇒  x = d + 1
        d = rng.randint(0, 15)
        hs = [
            ("h₀", rel("<", "ℝ", cast("ℝ", N, v(x)), num("ℝ", d + 2))),
            ("h₁", rel("<", N, num(N, d), v(x))),
        ]
        return _Spec("cast", [(x, N)], hs, rel("=", N, v(x), num(N, d + 1)), 2)
    if kind == 2:  # a + c ≤ b  ⇒  (c : ℤ) ≤ (b : ℤ) - (a : ℤ)
        na, nb = rng.choice([("a", "b"), ("m", "n"), ("x", "y"), ("p", "q")])
        c = rng.randint(1, 12)
        h = rel("≤", N, add(N, v(na), num(N, c)), v(nb))
        tgt = rel("≤", "ℤ", num("ℤ", c), sub("ℤ", cast("ℤ", N, v(nb)), cast("ℤ", N, v(na))))
        return _Spec("cast", [(na, N), (nb, N)], [("h₀", h)], tgt, 2)
    c = rng.randint(1, 20)  # c ≤ x  ⇒  (c : ℝ) ≤ x
    h = rel("≤", N, num(N, c), v(x))
    return _Spec("cast", [(x, N)], [("h₀", h)], rel("≤", "ℝ", num("ℝ", c), cast("ℝ", N, v(x))), 1)


FAMILIES: dict[str, Callable[[random.Random], _Spec | TextSpec]] = {
    "prop": _fam_prop,
    "linarith": _fam_linarith,
    "subst": _fam_subst,
    "ring": _fam_ring,
    "nonlinear": _fam_nonlinear,
    "lemma": _fam_lemma,
    "cases": _fam_cases,
    "deep": _fam_deep,
    "simp_trap": _fam_simp_trap,
    "cast": _fam_cast,
    **TEXT_FAMILIES,
}
"""Family name → generator (``random.Random`` → statement); the last ones are written as Lean source
(:mod:`lean_gym.sim.families_text`)."""
register_bases(FAMILIES)

_SHORT = {
    "prop": "prop",
    "linarith": "lin",
    "subst": "subst",
    "ring": "ring",
    "nonlinear": "nl",
    "lemma": "lem",
    "cases": "cases",
    "deep": "deep",
    "simp_trap": "trap",
    "cast": "cast",
    "distract": "dis",
    "normal_form": "nf",
    "olympiad": "oly",
    "classical": "cl",
    "ctx_linarith": "clin",
    "ctx_subst": "csubst",
    "ctx_ring": "cring",
    "ctx_lemma": "clem",
    "ctx_cast": "ccast",
    "ctx_nonlinear": "cnl",
    "ctx_normal_form": "cnf",
    "products": "prod",
}


# --------------------------------------------------------------------------------------- generation


def _split_of(body: str) -> str:
    h = int(hashlib.sha256(body.encode("utf-8")).hexdigest()[:8], 16)
    return SPLITS[h % 3]


FAMILY_WEIGHTS: dict[str, int] = {
    "prop": 2,
    "linarith": 0,
    "subst": 0,
    "ring": 0,
    "nonlinear": 0,
    "lemma": 0,
    "cases": 1,
    "deep": 1,
    "simp_trap": 1,
    "cast": 0,
    "classical": 1,
    "distract": 1,
    "normal_form": 0,
    "olympiad": 25,
    "ctx_linarith": 0,
    "ctx_subst": 0,
    "ctx_ring": 0,
    "ctx_lemma": 6,
    "ctx_cast": 0,
    "ctx_nonlinear": 0,
    "ctx_normal_form": 6,
    "products": 4,
}
"""Relative frequency of each family in a split (a cycle of 48 theorems; 0: generated only on request)."""


def _family_order(n: int) -> list[str]:
    cycle: list[str] = []
    remaining = dict(FAMILY_WEIGHTS)
    while any(remaining.values()):
        for name in FAMILIES:
            if remaining[name] > 0:
                cycle.append(name)
                remaining[name] -= 1
    return [cycle[i % len(cycle)] for i in range(n)]


def generate(family: str, split: str, index: int) -> dict[str, Any]:
    """The ``index``-th theorem of ``family`` in ``split`` (deterministic).

    Args:
        family: A key of :data:`FAMILIES`.
        split: ``train``, ``valid`` or ``test``.
        index: Position within the family's sequence for that split.

    Returns:
        The theorem dict: ``name``, ``formal_statement``, ``goal``, ``header``, ``context_lemmas``,
        ``context_lemma_scores``, ``family``, ``difficulty``, ``split`` (and ``informal_prefix`` empty).

    Raises:
        ValueError: For an unknown family or split.
    """
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; known: {sorted(FAMILIES)}")
    if split not in _SEED_BASE:
        raise ValueError(f"unknown split {split!r}; use one of {list(SPLITS)}")
    fam_idx = list(FAMILIES).index(family)
    seed = _SEED_BASE[split] + fam_idx * 1_000_000 + index * 1000
    attempt = 0
    while True:
        rng = random.Random(seed + attempt)
        spec = FAMILIES[family](rng)
        body = spec.body()
        attempt += 1
        if _split_of(body) == split:
            break
        if attempt > 500:
            raise RuntimeError(f"family {family!r}: no statement for split {split!r} in 500 draws")
    name = f"sim_{_SHORT[family]}_{split}_{index:04d}"
    goal = spec.goal().pretty()
    lemmas, scores = retrieve_lemmas(goal, 8, spec.lemma, noise=0.8, seed=seed)
    return {
        "name": name,
        "split": split,
        "informal_prefix": "",
        "formal_statement": f"theorem {name} {body} := by\n",
        "goal": goal,
        "header": HEADER,
        "context_lemmas": lemmas,
        "context_lemma_scores": scores,
        "family": family,
        "difficulty": spec.difficulty,
    }


def generate_split(split: str, n: int | None = None) -> list[dict[str, Any]]:
    """The first ``n`` theorems of a split (default :data:`DEFAULT_SPLIT_SIZE`), families interleaved.

    Statements are distinct within the split and never occur in another split.

    Raises:
        ValueError: For an unknown split or a negative ``n``.
    """
    if split not in _SEED_BASE:
        raise ValueError(f"unknown split {split!r}; use one of {list(SPLITS)}")
    n = DEFAULT_SPLIT_SIZE if n is None else n
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    return list(_generate_cached(split, n))


@lru_cache(maxsize=16)
def _generate_cached(split: str, n: int) -> tuple[dict[str, Any], ...]:
    out: list[dict[str, Any]] = []
    counters: dict[str, int] = dict.fromkeys(FAMILIES, 0)
    seen: set[str] = set()
    for fam in _family_order(n):
        for _ in range(1000):
            row = generate(fam, split, counters[fam])
            counters[fam] += 1
            body = row["formal_statement"].split(" ", 2)[2]
            if body not in seen:
                seen.add(body)
                break
        else:
            raise RuntimeError(f"family {fam!r} ran out of distinct statements for split {split!r}")
        out.append(row)
    return tuple(out)


# --------------------------------------------------------------------------------- ground truth check


def evaluate(t: Term, env: dict[str, Any]) -> Any:
    """Evaluate a term of the families' fragment under ``env`` (local id → value) with Lean's semantics.

    The locals are replaced by their values and the closed term goes to the simulator's own evaluator
    (:func:`~lean_gym.sim.evaluate.eval_term`, and :func:`~lean_gym.sim.evaluate.decide_closed` for a
    proposition, as ``decide``/``norm_num`` use them): one evaluator, so the ground truth of the generated
    goals and of the soundness tests is the arithmetic the tactics use (ℕ subtraction truncates, ℕ ``/``
    floors, ℤ ``/`` and ``%`` are ``Int.ediv``/``Int.emod``, ``x / 0 = 0``). Numbers are ``int`` (ℕ, ℤ) or
    ``Fraction`` (ℚ, ℝ); a ``Prop`` local takes a ``bool``; propositions evaluate to ``bool``.

    Raises:
        ValueError: For a head outside the fragment, or a value the evaluator cannot give.
    """
    closed = _instantiate(t, env, None)
    r: bool | int | Fraction | None
    if _is_prop(closed):
        r = decide_closed(closed, TacticContext(max_heartbeats=0), allow_fields=True)
    else:
        r = eval_term(closed)
    if r is None:
        raise ValueError(f"evaluate: cannot evaluate {pretty(closed)}")
    return r


_LOGIC = frozenset({"∧", "∨", "→", "↔"})
_RELS = frozenset({"=", "≠", "<", "≤", ">", "≥", "∣"})


def _is_prop(t: Term) -> bool:
    return t[0] in _LOGIC or t[0] in _RELS or t[0] in ("¬", "True", "False")


def _instantiate(t: Term, env: dict[str, Any], ty: str | None) -> Term:
    """``t`` with every local replaced by its value from ``env`` (a numeral of type ``ty``, or True/False)."""
    h = t[0]
    if h == "fvar":
        val = env[t[1]]
        if isinstance(val, bool):
            return TRUE if val else FALSE
        if ty is None:
            raise ValueError(f"evaluate: the type of local {t[1]!r} is not known here")
        return mk_num(ty, val)
    if h in ("num", "True", "False"):
        return t
    if h in ("+", "-", "*", "/", "%", "^"):
        return (h, t[1], _instantiate(t[2], env, t[1]), _instantiate(t[3], env, "ℕ" if h == "^" else t[1]))
    if h in ("neg", "abs", "inv"):
        return (h, t[1], _instantiate(t[2], env, t[1]))
    if h == "cast":
        return ("cast", t[1], t[2], _instantiate(t[3], env, t[2]))
    if h in _RELS:
        return (h, t[1], _instantiate(t[2], env, t[1]), _instantiate(t[3], env, t[1]))
    if h == "¬":
        return ("¬", _instantiate(t[1], env, "Prop"))
    if h in _LOGIC:
        return (h, _instantiate(t[1], env, "Prop"), _instantiate(t[2], env, "Prop"))
    if h == "app" and t[1][0] == "const" and t[1][1] in BUILTIN_FNS:
        arg_types = BUILTIN_FNS[t[1][1]][0]
        return ("app", t[1], tuple(_instantiate(a, env, at) for a, at in zip(t[2], arg_types)))
    raise ValueError(f"evaluate: unsupported head {h!r}")
