"""Goal families written as Lean source, for interference between aesop rules (issue 10).

The families in :mod:`lean_gym.sim.families` each need one kind of rule; a configuration that switches on
most rules proves nearly all of them. These families add what makes such configurations lose on Lean:

==================  ===================================================================================
family              what it models
==================  ===================================================================================
``distract``        a linear goal among miniF2F-style distractor hypotheses ``h₀ … h₅`` (products,
                    squares, disequalities of the same variables). ``linarith`` proves it cheaply; every
                    rule that reads the whole context pays for the distractors, ``nlinarith`` quadratically,
                    and rules at 100% that rewrite without closing (``exfalso``, ``simp_all``, ``norm_num
                    [*] at *``, …) send the best-first search into dead subtrees first, where every rule
                    runs again: the budget (``maxHeartbeats``) runs out before the cheap right rule.
``normal_form``     a library-lemma instance (``2 * s * t ≤ s ^ 2 + t ^ 2``, ``n % m < m``,
                    ``n / m ≤ n``) that the safe normalisers wreck: a safe ``ring`` (which falls back to
                    ``ring_nf``) or ``zify`` commits the goal into a normal form the lemma no longer
                    matches, and no decision procedure proves it. Needs the lemma's rank head on and those
                    safe heads off.
``products``        two variables, two facts and a distractor: ``c < x → c x < x²``, monotone squares and
                    products, Vieta identities. Only ``nlinarith`` (products of pairs of facts) proves them;
                    on the ``ctx_*`` contexts the same rule spends the whole budget, so a configuration
                    cannot serve both.
``olympiad``        competition inequalities and identities that need hints (``nlinarith [sq_nonneg
                    (a - b), …]``) or induction: no aesop configuration of the layout proves them, as most
                    of miniF2F is out of aesop's reach.
==================  ===================================================================================

Statements are Lean source text; the goal display is what the simulator elaborates from it, so these
families do not depend on how the simulator represents terms. Each is true by construction (a linear
certificate, a library lemma, a classical inequality); ``tests/test_families.py`` checks truth by brute
force on small domains as for the other families.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lean_gym.sim.goals import Goal

__all__ = ["TEXT_FAMILIES", "UNREACHABLE_FAMILIES", "TextSpec"]


@dataclass(frozen=True)
class TextSpec:
    """A generated statement as Lean source: ``binders`` (``"(x y : ℝ) (h₀ : …)"``) and ``target``."""

    family: str
    binders: str
    target: str
    difficulty: int
    lemma: str | None = None

    def body(self) -> str:
        """What follows the theorem's name: binders, ``:`` and the target."""
        return (self.binders + " " if self.binders else "") + f": {self.target}"

    def goal(self) -> Goal:
        """The goal the simulator elaborates from :meth:`body`."""
        return _elaborate(self.body())


@lru_cache(maxsize=4096)
def _elaborate(body: str) -> Goal:
    from lean_gym.sim.elab import Env
    from lean_gym.sim.tactics import TacticContext, goal_from_statement

    return goal_from_statement(body, TacticContext(env=Env(imports=("Mathlib",))))


_SUB = "₀₁₂₃₄₅₆₇₈₉"


def _hname(i: int) -> str:
    return "h" + "".join(_SUB[int(d)] for d in str(i))


def _binders(data: Sequence[tuple[str, str]], hyps: Sequence[str]) -> str:
    """``(x y : ℝ) (h₀ : …) (h₁ : …)``: consecutive variables of one type share a binder."""
    parts: list[str] = []
    i = 0
    while i < len(data):
        ty = data[i][1]
        names = [data[i][0]]
        j = i + 1
        while j < len(data) and data[j][1] == ty:
            names.append(data[j][0])
            j += 1
        parts.append(f"({' '.join(names)} : {ty})")
        i = j
    parts.extend(f"({_hname(k)} : {h})" for k, h in enumerate(hyps))
    return " ".join(parts)


# ------------------------------------------------------------------------------------ linear text


def _lin(coeffs: Sequence[int], names: Sequence[str]) -> str | None:
    """``c₁ * x₁ + c₂ * x₂ + …`` for non-negative coefficients (``None`` when all are zero)."""
    terms = [x if c == 1 else f"{c} * {x}" for c, x in zip(coeffs, names) if c > 0]
    return " + ".join(terms) if terms else None


def _lin_rel(coeffs: Sequence[int], names: Sequence[str], op: str, const: int) -> str:
    """``Σ cᵢ xᵢ op const`` written naturally: positive terms left, negative terms and the constant right."""
    left = _lin([max(c, 0) for c in coeffs], names)
    right = _lin([max(-c, 0) for c in coeffs], names)
    if left is None:
        flip = {"≤": "≥", "<": ">", "=": "="}[op]
        return f"{right or '0'} {flip} {-const}"
    if right is None:
        rhs = str(const)
    elif const == 0:
        rhs = right
    elif const > 0:
        rhs = f"{right} + {const}"
    else:
        rhs = f"{right} - {-const}"
    return f"{left} {op} {rhs}"


def _linear_problem(
    rng: random.Random, names: Sequence[str], n_hyps: int
) -> tuple[list[str], str, list[int]]:
    """Consistent linear hypotheses around a random integer point and a non-negative combination of them."""
    while True:
        x0 = [rng.randint(-4, 4) for _ in names]
        rows: list[tuple[list[int], str, int]] = []
        while len(rows) < n_hyps:
            co = [rng.randint(-3, 3) for _ in names]
            if all(c == 0 for c in co) or any(co == r[0] for r in rows):
                continue
            op = rng.choice(["≤", "≤", "<", "="])
            val = sum(c * x for c, x in zip(co, x0))
            rows.append((co, op, val + (0 if op == "=" else rng.randint(0, 2))))
        lam = [rng.choice([1, 1, 2]) for _ in rows]
        co = [sum(lm * r[0][j] for lm, r in zip(lam, rows)) for j in range(len(names))]
        if all(c == 0 for c in co):
            continue
        const = sum(lm * r[2] for lm, r in zip(lam, rows)) + rng.choice([0, 0, 1, 3])
        strict = any(r[1] == "<" for r in rows)
        hyps = [_lin_rel(c, names, op, b) for c, op, b in rows]
        target = _lin_rel(co, names, "<" if strict else "≤", const)
        if target in hyps:
            continue
        return hyps, target, x0


def _distractors(rng: random.Random, names: Sequence[str], x0: Sequence[int], k: int) -> list[str]:
    """``k`` miniF2F-style facts about the variables, true at ``x0`` (so the context stays consistent)."""
    val = dict(zip(names, x0))
    out: list[str] = []
    pool = list(range(8))
    rng.shuffle(pool)
    for kind in pool:
        if len(out) == k:
            break
        a, b = rng.sample(list(names), 2)
        if kind == 0:
            out.append(f"{a} * {b} = {val[a] * val[b]}")
        elif kind == 1:
            out.append(f"{a} ^ 2 + {b} ^ 2 = {val[a] ** 2 + val[b] ** 2}")
        elif kind == 2:
            out.append(f"{a} ≠ {val[a] + rng.choice([-2, -1, 1, 2])}")
        elif kind == 3:
            out.append(f"{a} ^ 2 ≤ {val[a] ** 2 + rng.randint(0, 5)}")
        elif kind == 4:
            out.append(f"{a} * {b} + {a} ≤ {val[a] * val[b] + val[a] + rng.randint(0, 3)}")
        elif kind == 5:
            out.append(f"{a} ^ 3 = {val[a] ** 3}")
        elif kind == 6:
            c = rng.randint(2, 5)
            out.append(f"{b} ^ 2 - {c} * {a} = {val[b] ** 2 - c * val[a]}")
        else:
            out.append(f"{a} * {b} * {a} ≠ {val[a] * val[b] * val[a] + rng.choice([-1, 1])}")
    return out


def _fam_distract(rng: random.Random) -> TextSpec:
    names = rng.choice([["x", "y", "z"], ["a", "b", "c"], ["p", "q", "r"]])
    hyps, target, x0 = _linear_problem(rng, names, 3)
    k = rng.randint(3, 4)
    all_hyps = hyps + _distractors(rng, names, x0, k)
    rng.shuffle(all_hyps)
    return TextSpec("distract", _binders([(x, "ℝ") for x in names], all_hyps), target, 1 + (k == 4))


# ------------------------------------------------------------------------------------ normal forms


def _small(rng: random.Random, names: Sequence[str]) -> str:
    """A small linear term with at least two monomials, so ``ring_nf`` rewrites any product of it."""
    a = rng.choice(list(names))
    b = rng.choice([n for n in names if n != a])
    return rng.choice(
        [f"({a} + {rng.randint(1, 9)})", f"({a} - {b})", f"({a} + {b})", f"({a} - {rng.randint(1, 9)})"]
    )


def _fam_normal_form(rng: random.Random) -> TextSpec:
    kind = rng.randrange(3)
    if kind == 0:
        names = rng.choice([["x", "y"], ["a", "b"], ["s", "t"]])
        s, t = _small(rng, names), rng.choice([names[1], _small(rng, names)])
        body = f"2 * {s} * {t} ≤ {s} ^ 2 + {t} ^ 2"
        return TextSpec("normal_form", _binders([(x, "ℝ") for x in names], []), body, 2, "two_mul_le_add_sq")
    n, m = rng.choice([("n", "m"), ("a", "b"), ("k", "d")])
    if kind == 1:
        return TextSpec(
            "normal_form", _binders([(n, "ℕ"), (m, "ℕ")], [f"0 < {m}"]), f"{n} % {m} < {m}", 2, "Nat.mod_lt"
        )
    return TextSpec(
        "normal_form", _binders([(n, "ℕ"), (m, "ℕ")], []), f"{n} / {m} ≤ {n}", 1, "Nat.div_le_self"
    )


# ------------------------------------------------------------------------------------ products


def _fam_products(rng: random.Random) -> TextSpec:
    """A miniF2F-style nonlinear fact that needs products of hypotheses (``nlinarith``): ``c < x → c x <
    x²``, monotone squares and products, ``0 ≤ x ≤ 1 → x² ≤ x``, and the Vieta identities
    ``x + y = s, x y = p → x² + y² = s² - 2p``. Two variables and one distractor fact, so ``nlinarith``'s
    pairwise products fit the budget here, while on the ``ctx_*`` goals (four variables, five or more
    hypotheses) the same rule runs out of it: a config cannot both keep ``nlinarith`` for these and
    drop it for those."""
    x, y = rng.choice([("x", "y"), ("a", "b"), ("s", "t"), ("m", "n")])
    kind = rng.randrange(7)
    if kind == 0:  # c < x → c x < x²
        c = rng.randint(1, 6)
        hyps, target, x0 = (
            [f"{c} < {x}"],
            f"{'' if c == 1 else f'{c} * '}{x} < {x} ^ 2",
            [c + 1, rng.randint(-3, 3)],
        )
    elif kind == 1:  # 0 ≤ x ≤ y → x² ≤ y² + k
        k = rng.randint(0, 4)
        hyps = [f"0 ≤ {x}", f"{x} ≤ {y}"]
        target, x0 = f"{x} ^ 2 ≤ {y} ^ 2" + (f" + {k}" if k else ""), [1, 2]
    elif kind in (2, 3):  # Vieta: x ± y and x y given
        r1, r2 = rng.randint(-6, 6), rng.randint(-6, 6)
        if kind == 2:
            hyps, val = [f"{x} + {y} = {r1 + r2}", f"{x} * {y} = {r1 * r2}"], (r1 + r2) ** 2 - 2 * r1 * r2
        else:
            hyps, val = [f"{x} - {y} = {r1 - r2}", f"{x} * {y} = {r1 * r2}"], (r1 - r2) ** 2 + 2 * r1 * r2
        target, x0 = f"{x} ^ 2 + {y} ^ 2 = {val}", [r1, r2]
    elif kind == 4:  # 0 ≤ x ≤ 1 → x² ≤ x
        hyps, target, x0 = [f"0 ≤ {x}", f"{x} ≤ 1"], f"{x} ^ 2 ≤ {x}", [1, rng.randint(-3, 3)]
    elif kind == 5:  # 0 < x < y → x x < y y
        hyps, target, x0 = [f"0 < {x}", f"{x} < {y}"], f"{x} * {x} < {y} * {y}", [1, 2]
    else:  # c ≤ x, d ≤ y (c, d ≥ 1) → c d ≤ x y
        c, d = rng.randint(1, 4), rng.randint(1, 4)
        hyps, target, x0 = [f"{c} ≤ {x}", f"{d} ≤ {y}"], f"{c * d} ≤ {x} * {y}", [c, d]
    extra = _distractors(rng, [x, y], x0, 1)
    while "^ 2 +" in extra[0]:  # a sum of squares could state the target itself
        extra = _distractors(rng, [x, y], x0, 1)
    all_hyps = hyps + extra
    rng.shuffle(all_hyps)
    return TextSpec("products", _binders([(x, "ℝ"), (y, "ℝ")], all_hyps), target, 2)


# ------------------------------------------------------------------------------------ out of reach

_OLYMPIAD: tuple[Callable[[random.Random], tuple[list[tuple[str, str]], list[str], str]], ...] = (
    # a² + b² + c² ≥ ab + bc + ca  (nlinarith needs sq_nonneg (a - b), … as hints)
    lambda r: ([("a", "ℝ"), ("b", "ℝ"), ("c", "ℝ")], [], "a * b + b * c + c * a ≤ a ^ 2 + b ^ 2 + c ^ 2"),
    # x⁴ + y⁴ ≥ x³y + xy³
    lambda r: ([("x", "ℝ"), ("y", "ℝ")], [], "x ^ 3 * y + x * y ^ 3 ≤ x ^ 4 + y ^ 4"),
    # AM-GM for three positive reals, cubed form
    lambda r: (
        [("a", "ℝ"), ("b", "ℝ"), ("c", "ℝ")],
        ["0 < a", "0 < b", "0 < c"],
        "27 * (a * b * c) ≤ (a + b + c) ^ 3",
    ),
    # (a + b)(b + c)(c + a) ≥ 8abc
    lambda r: (
        [("a", "ℝ"), ("b", "ℝ"), ("c", "ℝ")],
        ["0 ≤ a", "0 ≤ b", "0 ≤ c"],
        "8 * a * b * c ≤ (a + b) * (b + c) * (c + a)",
    ),
    # k(k+1)(k+2) divisible by 6, with k bounded away from a decision procedure's reach
    lambda r: ([("k", "ℕ")], [], f"6 ∣ k * (k + 1) * (k + 2) + {6 * r.randint(1, 9)}"),
    # (x + y)² ≤ 2(x² + y²) shifted
    lambda r: (
        [("x", "ℝ"), ("y", "ℝ")],
        [],
        f"(x + y) ^ 2 + {r.randint(0, 9)} ≤ 2 * (x ^ 2 + y ^ 2) + {r.randint(9, 20)}",
    ),
    # Cauchy-Schwarz in two variables
    lambda r: (
        [("a", "ℝ"), ("b", "ℝ"), ("c", "ℝ"), ("d", "ℝ")],
        [],
        "(a * c + b * d) ^ 2 ≤ (a ^ 2 + b ^ 2) * (c ^ 2 + d ^ 2)",
    ),
)


def _fam_olympiad(rng: random.Random) -> TextSpec:
    i = rng.randrange(len(_OLYMPIAD))
    data, hyps, target = _OLYMPIAD[i](rng)
    if " ≤ " in target and rng.random() < 0.8:
        # shift both sides (the right one at least as much), so statements vary and stay true
        lhs, rhs = target.split(" ≤ ")
        k1 = rng.randint(1, 30)
        target = f"{lhs} + {k1} ≤ {rhs} + {k1 + rng.randint(0, 5)}"
    return TextSpec("olympiad", _binders(data, hyps), target, 3)


# ------------------------------------------------------------------------------------ classical logic

_CLASSICAL: tuple[tuple[tuple[str, ...], str], ...] = (
    (("¬¬{a}", "{a} → {b}"), "{b}"),
    (("¬{b} → ¬{a}", "{a}"), "{b}"),
    (("¬({a} ∧ ¬{b})", "{a}"), "{b}"),
    (("¬{a} → {b}", "¬{b}"), "{a}"),
    (("¬({a} ∧ {b})", "{a}", "{b} ∨ {c}"), "{c}"),
)


def _fam_classical(rng: random.Random) -> TextSpec:
    """A classical tautology: plain aesop proves it through the norm ``simp_all`` and its default simp set
    (``not_not``, ``not_and``, …); with ``enableSimp``, ``useSimpAll`` or ``useDefaultSimpSet`` off the
    builtin rules alone cannot."""
    hyps, target = _CLASSICAL[rng.randrange(len(_CLASSICAL))]
    a, b, c, d = rng.sample(["p", "q", "r", "s", "t"], 4)
    names = {"a": a, "b": b, "c": c}
    hs = [h.format(**names) for h in hyps]
    tgt = target.format(**names)
    if rng.random() < 0.6:  # a chain on the conclusion: one more step for the builtin rules
        hs.append(f"{tgt} → {d}")
        tgt = d if rng.random() < 0.5 else f"{d} ∧ {tgt}"
    rng.shuffle(hs)
    used = sorted({x for x in (a, b, c, d) if any(x in h for h in hs) or x in tgt})
    return TextSpec("classical", _binders([(x, "Prop") for x in used], hs), tgt, 2)


# ---------------------------------------------------------------------------- miniF2F-shaped contexts


def _split_body(body: str) -> tuple[str, str]:
    """``(binders, target)`` of a statement body: the target follows the first ``:`` outside brackets."""
    depth = 0
    for i, ch in enumerate(body):
        if ch in "([{⟨":
            depth += 1
        elif ch in ")]}⟩":
            depth -= 1
        elif ch == ":" and depth == 0 and body[i + 1 : i + 2] != "=":
            return body[:i].strip(), body[i + 1 :].strip()
    raise ValueError(f"no ':' in statement body {body!r}")


_BASES: dict[str, Callable[[random.Random], Any]] = {}
"""The families the ``ctx_*`` families build on; :mod:`lean_gym.sim.families` (a layer above) registers
them with :func:`register_bases`, so this module never imports it."""


def register_bases(table: Mapping[str, Callable[[random.Random], Any]]) -> None:
    """Make the families of ``table`` available as bases of the ``ctx_*`` families."""
    _BASES.update(table)


def _with_context(
    base: str, family: str, facts: tuple[int, int] = (3, 4), zeros: Sequence[int] = (0, 1, 2, 2)
) -> Callable[[random.Random], TextSpec]:
    """A family of ``base``'s statements with two more variables and three or four facts about them.

    miniF2F statements carry hypotheses that the proof never uses (``h₀ … h₅``); here they are facts about
    fresh variables, true at a random integer point (so the context stays consistent and the statement
    stays true: extra hypotheses only weaken it). Every rule that reads the whole context pays for them.
    """

    def gen(rng: random.Random) -> TextSpec:
        if base not in _BASES:
            raise KeyError(f"family {base!r} is not registered (import lean_gym.sim.families first)")
        spec = _BASES[base](rng)
        binders, target = _split_body(spec.body())
        taken = set(binders.replace("(", " ").replace(")", " ").split()) | set(target.split())
        pair = next(p for p in (("u", "v"), ("p", "q"), ("r", "s"), ("m", "w")) if not taken & set(p))
        k0 = sum(1 for i in range(20) if f"({_hname(i)} :" in binders)
        n_facts = rng.randint(*facts)
        n_zeros = min(rng.choice(list(zeros)), n_facts - 1)
        x0 = [0 if n_zeros else rng.randint(-5, 5), rng.choice([-3, -2, -1, 1, 2, 3, 4])]
        facts_ = _distractors(rng, pair, x0, n_facts - n_zeros)
        # zero products, as miniF2F has them: the default simp set turns each into a disjunction
        # (`mul_eq_zero`) that aesop splits, doubling every later step's work
        u, v = pair
        facts_ += [f"{u} * ({v} - {c}) = 0" for c in rng.sample(range(1, 9), n_zeros)]
        rng.shuffle(facts_)
        extra = " ".join(f"({_hname(k0 + j)} : {f})" for j, f in enumerate(facts_))
        all_binders = f"{binders} ({' '.join(pair)} : ℝ) {extra}".strip()
        return TextSpec(family, all_binders, target, spec.difficulty + 1, getattr(spec, "lemma", None))

    return gen


TEXT_FAMILIES: dict[str, Callable[[random.Random], TextSpec]] = {
    "classical": _fam_classical,
    "distract": _fam_distract,
    "normal_form": _fam_normal_form,
    "olympiad": _fam_olympiad,
    "ctx_linarith": _with_context("linarith", "ctx_linarith"),
    "ctx_subst": _with_context("subst", "ctx_subst"),
    "ctx_ring": _with_context("ring", "ctx_ring"),
    "ctx_lemma": _with_context("lemma", "ctx_lemma", (4, 5), (0, 0, 1)),
    "ctx_cast": _with_context("cast", "ctx_cast"),
    "ctx_nonlinear": _with_context("nonlinear", "ctx_nonlinear"),
    "ctx_normal_form": _with_context("normal_form", "ctx_normal_form", (4, 5), (0, 0, 1)),
    "products": _fam_products,
}
"""Family name → generator of Lean-source statements."""

UNREACHABLE_FAMILIES = frozenset({"olympiad"})
"""Families no aesop configuration of the layouts proves (on purpose: most of miniF2F is out of reach)."""
