"""Whole-simulator soundness: the simulator never proves a statement that brute force shows false.

Statements in the documented subset are generated from a seed (random expression trees over ℕ, ℤ, ℚ, ℝ
with ``+ - * ^ / % abs``, comparisons, ``∣``, ``∧ ∨ ¬ → ↔`` and bounded quantifiers over ℕ; closed
statements; mixed-type statements with casts; linear systems) plus hand-written "near misses" that are
true except at an edge: ℕ truncated subtraction, floor and Euclidean division, division by zero,
``x^2 ≥ x`` off the integers, ``a < a``, bound variables shadowing free ones… Each one is evaluated here,
independently of the simulator, on every point of a small domain; only statements with a counterexample
(for ℝ a rational one) are kept, and each is sent through the in-process REPL (command mode, and tactic
mode on the ``sorry``'s proof state) with a battery of tactics. Any ``proved`` verdict is a soundness bug:
the test fails and lists the statement and the tactic (see ``docs/dev/soundness-bugs.md``). The built-in
lemma library is checked the same way, lemma by lemma.
"""

from __future__ import annotations

import itertools
import random
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction as F
from typing import Any

import pytest
from mathlib_header import MathlibRepl

from lean_gym.lean.protocol import classify_response

Value = Any  # int for ℕ/ℤ, Fraction for ℚ/ℝ
Env = dict[str, Value]

DOMAINS: dict[str, list[Value]] = {
    "ℕ": [0, 1, 2, 3, 5],
    "ℤ": [-3, -2, -1, 0, 1, 2, 3],
    "ℚ": [F(-2), F(-1), F(-1, 2), F(0), F(1, 3), F(1, 2), F(1), F(2)],
    "ℝ": [F(-2), F(-1), F(-1, 2), F(0), F(1, 2), F(1), F(3, 2), F(2)],
}

# ------------------------------------------------------------------------------------------------
# Lean's semantics, written out independently of lean_gym.sim.arith.evaluate


def _ediv(a: int, b: int) -> int:
    if b == 0:
        return 0
    r = a % abs(b)
    return (a - r) // b


def _div(ty: str, a: Value, b: Value) -> Value:
    if ty == "ℕ":
        return 0 if b == 0 else a // b
    if ty == "ℤ":
        return _ediv(a, b)
    return F(0) if b == 0 else F(a) / F(b)


def _mod(ty: str, a: int, b: int) -> int:
    if b == 0:
        return a
    return a % abs(b) if ty == "ℤ" else a % b


def _sub(ty: str, a: Value, b: Value) -> Value:
    return max(a - b, 0) if ty == "ℕ" else a - b


def _inv(a: Value) -> Value:
    return F(0) if a == 0 else 1 / F(a)


def _dvd(a: int, b: int) -> bool:
    return b == 0 if a == 0 else b % abs(a) == 0


@dataclass(frozen=True)
class Expr:
    text: str
    ev: Callable[[Env], Value]
    typed: bool = True  # mentions a variable or a type ascription, so Lean cannot default it to ℕ


@dataclass(frozen=True)
class Prop:
    text: str
    ev: Callable[[Env], bool]


@dataclass(frozen=True)
class Statement:
    ty: str
    variables: tuple[str, ...]
    hyps: tuple[Prop, ...]
    goal: Prop
    var_types: tuple[str, ...] | None = None  # one type per variable when they differ (default: all ``ty``)

    def types(self) -> tuple[str, ...]:
        return self.var_types or (self.ty,) * len(self.variables)

    def lean(self, tactic: str, name: str = "t") -> str:
        groups: list[tuple[str, list[str]]] = []
        for v, t in zip(self.variables, self.types()):
            if groups and groups[-1][0] == t:
                groups[-1][1].append(v)
            else:
                groups.append((t, [v]))
        binders = " ".join(f"({' '.join(vs)} : {t})" for t, vs in groups)
        hyps = " ".join(f"(h{i} : {h.text})" for i, h in enumerate(self.hyps))
        head = " ".join(x for x in (f"theorem {name}", binders, hyps) if x)
        return f"{head} :\n    {self.goal.text} := by\n  {tactic}"

    def counterexample(self) -> Env | None:
        doms = [DOMAINS[t] for t in self.types()]
        for vals in itertools.product(*doms):
            env = dict(zip(self.variables, vals))
            try:
                if all(h.ev(env) for h in self.hyps) and not self.goal.ev(env):
                    return env
            except _TooBig:
                return None
        return None


class _TooBig(Exception):
    pass


def _pow(a: Value, n: int) -> Value:
    if abs(a) > 10**6:
        raise _TooBig
    return a**n


# ------------------------------------------------------------------------------------------------
# Random statements


class Gen:
    """Random expressions and propositions over one numeric type."""

    def __init__(self, rng: random.Random, ty: str, variables: tuple[str, ...]) -> None:
        self.rng = rng
        self.ty = ty
        self.vars = variables

    def leaf(self) -> Expr:
        r = self.rng
        if self.vars and r.random() < 0.7:
            v = r.choice(self.vars)
            return Expr(v, lambda env, v=v: env[v])
        k = r.choice([0, 1, 1, 2, 2, 3, 4])
        if self.ty != "ℕ" and r.random() < 0.15:
            return Expr(f"(-{k} : {self.ty})" if k else f"(0 : {self.ty})", lambda env, k=k: self._lit(-k))
        if r.random() < 0.3:
            return Expr(f"({k} : {self.ty})", lambda env, k=k: self._lit(k))
        return Expr(str(k), lambda env, k=k: self._lit(k), typed=False)

    def _lit(self, k: int) -> Value:
        return F(k) if self.ty in ("ℚ", "ℝ") else k

    def expr(self, depth: int) -> Expr:
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            return self.leaf()
        ty = self.ty
        ops = ["+", "-", "*", "*", "^", "/"]
        if ty in ("ℕ", "ℤ"):
            ops.append("%")
        if ty != "ℕ":
            ops += ["neg", "abs"]
        op = r.choice(ops)
        a = self.expr(depth - 1)
        if op == "neg":
            return Expr(f"(-{a.text})", lambda env: -a.ev(env), a.typed)
        if op == "abs":
            inner = (
                f"({a.text})" if a.text.startswith("|") or a.text.endswith("|") else a.text
            )  # `||` is `or`
            return Expr(f"|{inner}|", lambda env: abs(a.ev(env)), a.typed)
        if op == "^":
            n = r.choice([0, 1, 2, 2, 3])
            return Expr(f"({a.text} ^ {n})", lambda env: _pow(a.ev(env), n), a.typed)
        b = self.expr(depth - 1)
        if op == "+":
            return Expr(f"({a.text} + {b.text})", lambda env: a.ev(env) + b.ev(env), a.typed or b.typed)
        if op == "-":
            return Expr(
                f"({a.text} - {b.text})", lambda env: _sub(ty, a.ev(env), b.ev(env)), a.typed or b.typed
            )
        if op == "*":
            return Expr(f"({a.text} * {b.text})", lambda env: a.ev(env) * b.ev(env), a.typed or b.typed)
        if op == "/":
            return Expr(
                f"({a.text} / {b.text})", lambda env: _div(ty, a.ev(env), b.ev(env)), a.typed or b.typed
            )
        return Expr(f"({a.text} % {b.text})", lambda env: _mod(ty, a.ev(env), b.ev(env)), a.typed or b.typed)

    def atom(self, depth: int) -> Prop:
        r = self.rng
        a, b = self.expr(depth), self.expr(depth)
        if not (a.typed or b.typed):  # numerals alone would default to ℕ in Lean
            a = Expr(f"({a.text} : {self.ty})", a.ev)
        if self.ty in ("ℕ", "ℤ") and r.random() < 0.1:
            k = r.choice([2, 3])
            return Prop(f"({k} : {self.ty}) ∣ {a.text}", lambda env: _dvd(k, a.ev(env)))
        rel = r.choice(["=", "≠", "<", "≤", ">", "≥"])
        fns: dict[str, Callable[[Value, Value], bool]] = {
            "=": lambda x, y: x == y,
            "≠": lambda x, y: x != y,
            "<": lambda x, y: x < y,
            "≤": lambda x, y: x <= y,
            ">": lambda x, y: x > y,
            "≥": lambda x, y: x >= y,
        }
        f = fns[rel]
        return Prop(f"{a.text} {rel} {b.text}", lambda env: f(a.ev(env), b.ev(env)))

    def prop(self, depth: int, edepth: int = 2) -> Prop:
        r = self.rng
        if depth <= 0 or r.random() < 0.5:
            return self.atom(edepth)
        kind = r.choice(["∧", "∨", "→", "↔", "¬", "∀", "∃"] if self.ty == "ℕ" else ["∧", "∨", "→", "↔", "¬"])
        if kind == "¬":
            p = self.prop(depth - 1, edepth)
            return Prop(f"¬({p.text})", lambda env: not p.ev(env))
        if kind in ("∀", "∃"):
            k = r.choice([2, 3, 4])
            bound = "n" if "n" not in self.vars else "m"
            inner = Gen(r, self.ty, (*self.vars, bound)).prop(depth - 1, edepth)
            if kind == "∀":
                return Prop(
                    f"(∀ {bound} : ℕ, {bound} < {k} → {inner.text})",
                    lambda env: all(inner.ev({**env, bound: i}) for i in range(k)),
                )
            return Prop(
                f"(∃ {bound} : ℕ, {bound} < {k} ∧ {inner.text})",
                lambda env: any(inner.ev({**env, bound: i}) for i in range(k)),
            )
        p, q = self.prop(depth - 1, edepth), self.prop(depth - 1, edepth)
        if kind == "∧":
            return Prop(f"({p.text} ∧ {q.text})", lambda env: p.ev(env) and q.ev(env))
        if kind == "∨":
            return Prop(f"({p.text} ∨ {q.text})", lambda env: p.ev(env) or q.ev(env))
        if kind == "→":
            return Prop(f"({p.text} → {q.text})", lambda env: (not p.ev(env)) or q.ev(env))
        return Prop(f"({p.text} ↔ {q.text})", lambda env: p.ev(env) == q.ev(env))


def random_statement(rng: random.Random) -> Statement:
    ty = rng.choice(["ℕ", "ℤ", "ℚ", "ℝ"])
    variables = ("a", "b", "c")[: rng.choice([0, 1, 2, 2, 3])]  # 0: a closed statement (decide, norm_num)
    g = Gen(rng, ty, variables)
    n_hyps = rng.choice([0, 1, 1, 2])
    hyps = tuple(g.prop(rng.choice([0, 0, 1]), 1) for _ in range(n_hyps))
    goal = g.prop(rng.choice([0, 0, 1, 2]), rng.choice([1, 2]))
    return Statement(ty, variables, hyps, goal)


def random_linear_statement(rng: random.Random) -> Statement:
    """Linear hypotheses and goal: the home ground of linarith/omega, where a near miss is easy."""
    ty = rng.choice(["ℕ", "ℤ", "ℚ", "ℝ"])
    variables = ("a", "b", "c")[: rng.choice([1, 2, 3])]

    def lin() -> Expr:
        parts: list[tuple[int, str]] = [(rng.randint(0 if ty == "ℕ" else -3, 3), v) for v in variables]
        k = rng.randint(0, 4)
        text = " + ".join(f"{c} * {v}" if c >= 0 else f"({c}) * {v}" for c, v in parts) + f" + {k}"
        return Expr(text, lambda env, parts=parts, k=k: sum(c * env[v] for c, v in parts) + k)

    rels: dict[str, Callable[[Value, Value], bool]] = {
        "<": lambda x, y: x < y,
        "≤": lambda x, y: x <= y,
        "=": lambda x, y: x == y,
        "≠": lambda x, y: x != y,
    }

    def cmp() -> Prop:
        a, b = lin(), lin()
        rel = rng.choice(list(rels))
        f = rels[rel]
        return Prop(f"{a.text} {rel} {b.text}", lambda env: f(a.ev(env), b.ev(env)))

    hyps = tuple(cmp() for _ in range(rng.randint(1, 3)))
    return Statement(ty, variables, hyps, cmp())


_RANK = {"ℕ": 0, "ℤ": 1, "ℚ": 2, "ℝ": 3}


def random_cast_statement(rng: random.Random) -> Statement:
    """Variables of different types under casts: ``((a - b : ℕ) : ℤ)``, ``(a / 2 : ℕ)`` seen in ℝ…"""
    var_types = ("ℕ", "ℕ", rng.choice(["ℤ", "ℝ"]))
    variables = ("a", "b", "c")
    target = rng.choice([t for t in ("ℤ", "ℚ", "ℝ") if _RANK[t] >= _RANK[var_types[2]]])

    def nat_expr(depth: int) -> Expr:
        return Gen(rng, "ℕ", ("a", "b")).expr(depth)

    def leaf() -> Expr:
        r = rng.random()
        if r < 0.45:
            e = nat_expr(rng.choice([0, 1, 1, 2]))
            # a cast of a ℕ expression: truncated subtraction and floor division happen before the cast
            return Expr(
                f"(({e.text} : ℕ) : {target})", lambda env, e=e: F(e.ev(env)) if target != "ℤ" else e.ev(env)
            )
        if r < 0.7:
            return Expr(f"(c : {target})" if var_types[2] != target else "c", lambda env: env["c"])
        k = rng.randint(0, 3)
        return Expr(f"({k} : {target})", lambda env, k=k: F(k) if target != "ℤ" else k)

    def expr(depth: int) -> Expr:
        if depth <= 0 or rng.random() < 0.35:
            return leaf()
        a, b = expr(depth - 1), expr(depth - 1)
        op = rng.choice(["+", "-", "*"])
        fn: dict[str, Callable[[Value, Value], Value]] = {
            "+": lambda x, y: x + y,
            "-": lambda x, y: x - y,
            "*": lambda x, y: x * y,
        }
        f = fn[op]
        return Expr(f"({a.text} {op} {b.text})", lambda env: f(a.ev(env), b.ev(env)))

    rels: dict[str, Callable[[Value, Value], bool]] = {
        "<": lambda x, y: x < y,
        "≤": lambda x, y: x <= y,
        "=": lambda x, y: x == y,
        "≠": lambda x, y: x != y,
    }

    def cmp() -> Prop:
        a, b = expr(2), expr(2)
        rel = rng.choice(list(rels))
        f = rels[rel]
        return Prop(f"{a.text} {rel} {b.text}", lambda env: f(a.ev(env), b.ev(env)))

    hyps = tuple(cmp() for _ in range(rng.randint(0, 2)))
    return Statement(target, variables, hyps, cmp(), var_types)


# Lean 4 precedences: ``+ -`` 65 (left), ``* / %`` 70 (left), ``^`` 75 (right), prefix ``-`` 75 (so
# ``-a ^ 2`` is ``-(a ^ 2)`` and ``-a * b`` is ``(-a) * b``), relations 50, ``¬`` binds its argument at 40,
# ``∧`` 35 and ``∨`` 30 (right), ``→`` 25 (right), ``↔`` 20.
_BIN_PREC = {"+": 65, "-": 65, "*": 70, "/": 70, "%": 70}
_MAX = 1024


def _wrap(text: str, prec: int, need: int) -> str:
    return text if prec >= need else f"({text})"


def random_precedence_statement(rng: random.Random) -> Statement:
    """Like :func:`random_statement` but printed with as few parentheses as Lean's precedences allow.

    A parser that groups differently from Lean would evaluate a different statement; when that
    statement is true and Lean's is false, a proof is a soundness bug this test catches.
    """
    ty = rng.choice(["ℕ", "ℤ", "ℚ", "ℝ"])
    variables = ("a", "b", "c")[: rng.choice([1, 2, 3])]

    def expr(depth: int) -> tuple[str, int, Callable[[Env], Value]]:
        if depth <= 0 or rng.random() < 0.25:
            if rng.random() < 0.75:
                v = rng.choice(variables)
                return v, _MAX, lambda env, v=v: env[v]
            k = rng.randint(0, 3)
            lit = F(k) if ty in ("ℚ", "ℝ") else k
            return str(k), _MAX, lambda env, lit=lit: lit
        ops = (
            ["+", "-", "*", "/", "^", "^"]
            + (["%"] if ty in ("ℕ", "ℤ") else [])
            + ([] if ty == "ℕ" else ["neg", "neg"])
        )
        op = rng.choice(ops)
        a_text, a_prec, a_ev = expr(depth - 1)
        if op == "neg":
            text = _wrap(a_text, a_prec, 75)
            if text.startswith("-"):
                text = f"({text})"  # `- -a` would start a comment
            return f"-{text}", 75, lambda env: -a_ev(env)
        if op == "^":
            n = rng.choice([2, 2, 3])
            return f"{_wrap(a_text, a_prec, 76)} ^ {n}", 75, lambda env: _pow(a_ev(env), n)
        b_text, b_prec, b_ev = expr(depth - 1)
        p = _BIN_PREC[op]
        text = f"{_wrap(a_text, a_prec, p)} {op} {_wrap(b_text, b_prec, p + 1)}"
        fns: dict[str, Callable[[Value, Value], Value]] = {
            "+": lambda x, y: x + y,
            "-": lambda x, y: _sub(ty, x, y),
            "*": lambda x, y: x * y,
            "/": lambda x, y: _div(ty, x, y),
            "%": lambda x, y: _mod(ty, x, y),
        }
        f = fns[op]
        return text, p, lambda env: f(a_ev(env), b_ev(env))

    rels: dict[str, Callable[[Value, Value], bool]] = {
        "<": lambda x, y: x < y,
        "≤": lambda x, y: x <= y,
        "=": lambda x, y: x == y,
        "≠": lambda x, y: x != y,
        "≥": lambda x, y: x >= y,
    }

    def atom() -> tuple[str, int, Callable[[Env], bool]]:
        while True:  # a side must mention a variable, or Lean would elaborate the numerals in ℕ
            (at, ap, aev), (bt, bp, bev) = expr(rng.choice([1, 2, 3])), expr(rng.choice([0, 1, 2]))
            if set(at + bt) & set(variables):
                break
        rel = rng.choice(list(rels))
        f = rels[rel]
        return f"{_wrap(at, ap, 51)} {rel} {_wrap(bt, bp, 51)}", 50, lambda env: f(aev(env), bev(env))

    def prop(depth: int) -> tuple[str, int, Callable[[Env], bool]]:
        if depth <= 0 or rng.random() < 0.5:
            return atom()
        kind = rng.choice(["∧", "∨", "→", "¬"])
        a_text, a_prec, a_ev = prop(depth - 1)
        if kind == "¬":
            return f"¬{_wrap(a_text, a_prec, 40)}", _MAX, lambda env: not a_ev(env)
        b_text, b_prec, b_ev = prop(depth - 1)
        p = {"∧": 35, "∨": 30, "→": 25}[kind]
        text = f"{_wrap(a_text, a_prec, p + 1)} {kind} {_wrap(b_text, b_prec, p)}"
        g: dict[str, Callable[[bool, bool], bool]] = {
            "∧": lambda x, y: x and y,
            "∨": lambda x, y: x or y,
            "→": lambda x, y: (not x) or y,
        }
        h = g[kind]
        return text, p, lambda env: h(a_ev(env), b_ev(env))

    hyps = tuple(
        Prop(t, ev) for t, _, ev in (prop(rng.choice([0, 1])) for _ in range(rng.choice([0, 1, 1, 2])))
    )
    gt, _, gev = prop(rng.choice([0, 0, 1, 2]))
    return Statement(ty, variables, hyps, Prop(gt, gev))


def _p(text: str, ev: Callable[[Env], bool]) -> Prop:
    return Prop(text, ev)


# Hand-written near misses: each is false somewhere in its small domain, usually at an edge.
NEAR_MISSES: list[Statement] = [
    Statement("ℕ", ("a", "b"), (), _p("a - b + b = a", lambda e: max(e["a"] - e["b"], 0) + e["b"] == e["a"])),
    Statement("ℕ", ("a",), (), _p("a / 2 * 2 = a", lambda e: e["a"] // 2 * 2 == e["a"])),
    Statement("ℕ", ("a",), (), _p("a % 2 = 1", lambda e: e["a"] % 2 == 1)),
    Statement(
        "ℕ",
        ("a", "b"),
        (_p("a - b = 0", lambda e: max(e["a"] - e["b"], 0) == 0),),
        _p("a = b", lambda e: e["a"] == e["b"]),
    ),
    Statement(
        "ℕ",
        ("a", "b", "c"),
        (),
        _p(
            "a - (b - c) = a - b + c",
            lambda e: max(e["a"] - max(e["b"] - e["c"], 0), 0) == max(e["a"] - e["b"], 0) + e["c"],
        ),
    ),
    Statement("ℕ", ("a",), (), _p("0 < a", lambda e: e["a"] > 0)),
    Statement("ℕ", ("a",), (), _p("a ≤ a * a - 1", lambda e: e["a"] <= max(e["a"] * e["a"] - 1, 0))),
    Statement(
        "ℕ",
        ("a", "b"),
        (_p("0 < b", lambda e: e["b"] > 0),),
        _p("a / b * b = a", lambda e: e["a"] // e["b"] * e["b"] == e["a"]),
    ),
    Statement(
        "ℕ", ("a", "b"), (), _p("a % b < b", lambda e: (e["a"] if e["b"] == 0 else e["a"] % e["b"]) < e["b"])
    ),
    Statement("ℕ", ("a",), (), _p("2 ∣ a * a + 1", lambda e: (e["a"] * e["a"] + 1) % 2 == 0)),
    Statement("ℕ", ("a",), (), _p("a ^ 2 ≠ 2 * a", lambda e: e["a"] ** 2 != 2 * e["a"])),
    Statement(
        "ℕ",
        ("a", "b"),
        (_p("a * b = 0", lambda e: e["a"] * e["b"] == 0),),
        _p("a = 0", lambda e: e["a"] == 0),
    ),
    Statement(
        "ℕ", ("a",), (), _p("(∀ n : ℕ, n < 3 → n * n ≠ a)", lambda e: all(n * n != e["a"] for n in range(3)))
    ),
    Statement(
        "ℕ", ("a",), (), _p("(∃ n : ℕ, n < 3 ∧ n + a = 5)", lambda e: any(n + e["a"] == 5 for n in range(3)))
    ),
    Statement("ℤ", ("a",), (), _p("(-a) / 2 = -(a / 2)", lambda e: _ediv(-e["a"], 2) == -_ediv(e["a"], 2))),
    Statement("ℤ", ("a",), (), _p("a / 2 * 2 = a", lambda e: _ediv(e["a"], 2) * 2 == e["a"])),
    Statement("ℤ", ("a",), (), _p("a % 2 = 1", lambda e: e["a"] % 2 == 1)),
    Statement(
        "ℤ", ("a",), (), _p("a % (-2) = -1 ∨ a % (-2) = 0", lambda e: _mod("ℤ", e["a"], -2) in (-1, 0))
    ),
    Statement("ℤ", ("a",), (), _p("|a| = a", lambda e: abs(e["a"]) == e["a"])),
    Statement("ℤ", ("a",), (), _p("2 * a ≠ 2", lambda e: 2 * e["a"] != 2)),
    Statement("ℤ", ("a",), (), _p("a * a > 0", lambda e: e["a"] * e["a"] > 0)),
    Statement(
        "ℤ",
        ("a", "b"),
        (_p("a < b", lambda e: e["a"] < e["b"]),),
        _p("a * a < b * b", lambda e: e["a"] ** 2 < e["b"] ** 2),
    ),
    Statement("ℤ", ("a",), (_p("0 < a", lambda e: e["a"] > 0),), _p("1 < a", lambda e: e["a"] > 1)),
    Statement(
        "ℤ", ("a", "b"), (_p("a ≤ b", lambda e: e["a"] <= e["b"]),), _p("a < b", lambda e: e["a"] < e["b"])
    ),
    Statement("ℤ", ("a",), (), _p("a - 1 < a / 2", lambda e: e["a"] - 1 < _ediv(e["a"], 2))),
    Statement(
        "ℚ", ("a", "b"), (), _p("a / b * b = a", lambda e: _div("ℚ", e["a"], e["b"]) * e["b"] == e["a"])
    ),
    Statement("ℚ", ("a",), (), _p("a / a = 1", lambda e: _div("ℚ", e["a"], e["a"]) == 1)),
    Statement("ℚ", ("a",), (), _p("a ^ 2 ≥ a", lambda e: e["a"] ** 2 >= e["a"])),
    Statement("ℚ", ("a",), (_p("0 < a", lambda e: e["a"] > 0),), _p("1 ≤ a", lambda e: e["a"] >= 1)),
    Statement("ℚ", ("a",), (), _p("a * (1 / a) = 1", lambda e: e["a"] * _inv(e["a"]) == 1)),
    Statement(
        "ℝ",
        ("a", "b"),
        (),
        _p("a * b < (a ^ 2 + b ^ 2) / 2", lambda e: e["a"] * e["b"] < (e["a"] ** 2 + e["b"] ** 2) / 2),
    ),
    Statement(
        "ℝ",
        ("a", "b"),
        (),
        _p("(a + b) ^ 2 = a ^ 2 + b ^ 2", lambda e: (e["a"] + e["b"]) ** 2 == e["a"] ** 2 + e["b"] ** 2),
    ),
    Statement(
        "ℝ",
        ("a", "b"),
        (),
        _p("|a + b| = |a| + |b|", lambda e: abs(e["a"] + e["b"]) == abs(e["a"]) + abs(e["b"])),
    ),
    Statement(
        "ℝ",
        ("a", "b"),
        (_p("a < b", lambda e: e["a"] < e["b"]),),
        _p("a ^ 2 < b ^ 2", lambda e: e["a"] ** 2 < e["b"] ** 2),
    ),
    Statement(
        "ℝ",
        ("a",),
        (_p("0 ≤ a", lambda e: e["a"] >= 0), _p("a ≤ 1", lambda e: e["a"] <= 1)),
        _p("a ^ 2 < a", lambda e: e["a"] ** 2 < e["a"]),
    ),
    Statement("ℝ", ("a",), (), _p("1 / (a ^ 2 + 1) < 1", lambda e: 1 / (e["a"] ** 2 + 1) < 1)),
    Statement("ℝ", ("a",), (), _p("0 < a ^ 2", lambda e: e["a"] ** 2 > 0)),
    Statement("ℝ", ("a",), (_p("a ≠ 0", lambda e: e["a"] != 0),), _p("0 < a", lambda e: e["a"] > 0)),
    Statement(
        "ℝ",
        ("a", "b"),
        (_p("a * b = 0", lambda e: e["a"] * e["b"] == 0),),
        _p("a = 0", lambda e: e["a"] == 0),
    ),
    Statement(
        "ℝ", ("a", "b"), (_p("0 < a", lambda e: e["a"] > 0),), _p("a * b > 0", lambda e: e["a"] * e["b"] > 0)
    ),
    Statement("ℝ", ("a",), (), _p("a / 2 + a / 3 = a", lambda e: e["a"] / 2 + e["a"] / 3 == e["a"])),
    Statement(
        "ℝ", ("a",), (_p("a ^ 2 = 1", lambda e: e["a"] ** 2 == 1),), _p("a = 1", lambda e: e["a"] == 1)
    ),
    Statement(
        "ℝ", ("a", "b"), (_p("a ≤ b ∨ b ≤ a", lambda e: True),), _p("a ≤ b", lambda e: e["a"] <= e["b"])
    ),
    Statement("ℝ", ("a", "b"), (), _p("a ≤ b → b ≤ a", lambda e: not e["a"] <= e["b"] or e["b"] <= e["a"])),
    Statement("ℝ", ("a",), (), _p("¬(a < 1) ∨ a < 0", lambda e: not e["a"] < 1 or e["a"] < 0)),
]

# Closed statements (evaluation: decide, norm_num, simp, rfl) and edge cases of specific tactics.
NEAR_MISSES += [
    Statement("ℕ", (), (), _p("(3 - 5 : ℕ) + 5 = 3", lambda e: False)),
    Statement("ℤ", (), (), _p("(-7 : ℤ) / 2 = -3", lambda e: _ediv(-7, 2) == -3)),
    Statement("ℤ", (), (), _p("(-7 : ℤ) % 2 = -1", lambda e: _mod("ℤ", -7, 2) == -1)),
    Statement("ℤ", (), (), _p("(7 : ℤ) / (-2) = -4", lambda e: _ediv(7, -2) == -4)),
    Statement("ℤ", (), (), _p("(7 : ℤ) % (-2) = -1", lambda e: _mod("ℤ", 7, -2) == -1)),
    Statement("ℚ", (), (), _p("(7 : ℚ) / 0 = 7", lambda e: False)),
    Statement("ℝ", (), (), _p("(2 : ℝ) ^ 10 = 1000", lambda e: False)),
    Statement("ℕ", (), (), _p("(5 : ℕ) / 0 = 5", lambda e: False)),
    Statement("ℕ", (), (), _p("(5 : ℕ) % 0 = 0", lambda e: False)),
    Statement("ℤ", (), (), _p("(2 : ℤ) ∣ 7", lambda e: False)),
    Statement("ℕ", (), (), _p("(0 : ℕ) ∣ 3", lambda e: False)),
    Statement("ℕ", (), (), _p("∀ n : ℕ, n < 5 → n * n < 16", lambda e: all(n * n < 16 for n in range(5)))),
    Statement("ℕ", (), (), _p("∃ n : ℕ, n < 2 ∧ n * n = 4", lambda e: any(n * n == 4 for n in range(2)))),
    Statement("ℚ", (), (), _p("(1 : ℚ) / 3 + 1 / 3 = 2 / 3 + 1 / 100", lambda e: False)),
    Statement("ℕ", (), (), _p("(10 : ℕ) / 3 * 3 = 10", lambda e: 10 // 3 * 3 == 10)),
    Statement(
        "ℕ",
        ("a", "b"),
        (),
        _p(
            "(a - b) ^ 2 = a ^ 2 - 2 * a * b + b ^ 2",
            lambda e: (
                max(e["a"] - e["b"], 0) ** 2
                == max(max(e["a"] ** 2 - 2 * e["a"] * e["b"], 0) + e["b"] ** 2, 0)
            ),
        ),
    ),
    Statement("ℤ", ("a", "b"), (), _p("a % b < b", lambda e: _mod("ℤ", e["a"], e["b"]) < e["b"])),
    Statement(
        "ℝ",
        ("a", "b", "c"),
        (),
        _p(
            "a / b + c / b = (a + c) / b + 1",
            lambda e: (
                _div("ℝ", e["a"], e["b"]) + _div("ℝ", e["c"], e["b"])
                == _div("ℝ", e["a"] + e["c"], e["b"]) + 1
            ),
        ),
    ),
    Statement(
        "ℝ",
        ("a", "b", "c"),
        (),
        _p(
            "a / b + c / a = (a * a + b * c) / (b * a)",
            lambda e: (
                _div("ℝ", e["a"], e["b"]) + _div("ℝ", e["c"], e["a"])
                == _div("ℝ", e["a"] * e["a"] + e["b"] * e["c"], e["b"] * e["a"])
            ),
        ),
    ),
    Statement(
        "ℝ",
        ("a", "b"),
        (_p("0 < b", lambda e: e["b"] > 0),),
        _p("a / b < a", lambda e: _div("ℝ", e["a"], e["b"]) < e["a"]),
    ),
    Statement(
        "ℝ",
        ("a",),
        (_p("0 ≤ a", lambda e: e["a"] >= 0),),
        _p("a / 2 ≤ a / 3", lambda e: e["a"] / 2 <= e["a"] / 3),
    ),
    Statement("ℝ", ("a",), (), _p("0 < a ^ 2 + a", lambda e: e["a"] ** 2 + e["a"] > 0)),
    Statement("ℝ", ("a",), (), _p("0 ≤ a ^ 3", lambda e: e["a"] ** 3 >= 0)),
    Statement("ℝ", ("a",), (), _p("0 < |a|", lambda e: abs(e["a"]) > 0)),
    Statement("ℝ", ("a", "b"), (), _p("0 ≤ a * b", lambda e: e["a"] * e["b"] >= 0)),
    Statement(
        "ℝ",
        ("a", "b"),
        (_p("0 < a", lambda e: e["a"] > 0),),
        _p("0 < a / b", lambda e: _div("ℝ", e["a"], e["b"]) > 0),
    ),
    Statement("ℝ", ("a",), (), _p("a ^ 2 ≠ 0", lambda e: e["a"] ** 2 != 0)),
    Statement(
        "ℝ", ("a", "b"), (_p("a * b > 0", lambda e: e["a"] * e["b"] > 0),), _p("a > 0", lambda e: e["a"] > 0)
    ),
    Statement(
        "ℝ", ("a",), (), _p("a ^ 2 ≥ 2 * a - 1 + 1 / 10", lambda e: e["a"] ** 2 >= 2 * e["a"] - 1 + F(1, 10))
    ),
    Statement("ℝ", ("a",), (), _p("a < a", lambda e: False)),
    Statement("ℝ", ("a", "b"), (), _p("a + b < a + b", lambda e: False)),
    Statement("ℝ", ("a", "b"), (_p("0 < b", lambda e: e["b"] > 0),), _p("a * b < a * b", lambda e: False)),
    Statement(
        "ℕ",
        ("a", "b"),
        (_p("a ≤ b + 1", lambda e: e["a"] <= e["b"] + 1),),
        _p("a - b ≤ 0", lambda e: max(e["a"] - e["b"], 0) <= 0),
    ),
    Statement(
        "ℕ", ("a",), (_p("a % 4 = 3", lambda e: e["a"] % 4 == 3),), _p("a % 2 = 0", lambda e: e["a"] % 2 == 0)
    ),
    Statement("ℕ", ("a",), (), _p("a / 3 * 3 ≥ a", lambda e: e["a"] // 3 * 3 >= e["a"])),
    Statement("ℕ", ("a",), (_p("2 ∣ a", lambda e: e["a"] % 2 == 0),), _p("4 ∣ a", lambda e: e["a"] % 4 == 0)),
    Statement(
        "ℕ", ("a",), (_p("3 * a ≤ 10", lambda e: 3 * e["a"] <= 10),), _p("a ≤ 2", lambda e: e["a"] <= 2)
    ),
    Statement("ℤ", ("a",), (_p("2 * a < 3", lambda e: 2 * e["a"] < 3),), _p("a ≤ 0", lambda e: e["a"] <= 0)),
    Statement("ℕ", ("a",), (_p("a < 3", lambda e: e["a"] < 3),), _p("a ≠ 2", lambda e: e["a"] != 2)),
    Statement(
        "ℤ",
        ("a",),
        (_p("-2 < a", lambda e: e["a"] > -2), _p("a < 2", lambda e: e["a"] < 2)),
        _p("a * a < 1", lambda e: e["a"] * e["a"] < 1),
    ),
    # A ℕ variable under casts to ℝ: push_cast / field_simp must keep the numeral.
    Statement(
        "ℕ",
        ("a",),
        (_p("((2 * a : ℕ) : ℝ) ≠ 0", lambda e: 2 * e["a"] != 0),),
        _p("1 / ((2 * a : ℕ) : ℝ) * (a : ℝ) = 1", lambda e: _div("ℝ", 1, 2 * e["a"]) * e["a"] == 1),
    ),
    Statement(
        "ℕ",
        ("a", "b"),
        (),
        _p("((a - b : ℕ) : ℤ) = (a : ℤ) - (b : ℤ)", lambda e: max(e["a"] - e["b"], 0) == e["a"] - e["b"]),
    ),
    Statement("ℕ", ("a",), (), _p("((a / 2 : ℕ) : ℝ) = (a : ℝ) / 2", lambda e: e["a"] // 2 == F(e["a"], 2))),
]

# Bound variables that shadow a free variable: rewriting with `h0 : a = 3` must not touch the bound `a`.
NEAR_MISSES += [
    Statement("ℕ", ("a",), (_p("a = 3", lambda e: e["a"] == 3),), _p("∀ a : ℕ, a = 3", lambda e: False)),
    Statement(
        "ℕ", ("a",), (_p("a = 3", lambda e: e["a"] == 3),), _p("∀ a : ℕ, a < 5 → a = 3", lambda e: False)
    ),
    Statement(
        "ℕ",
        ("a",),
        (_p("a = 0", lambda e: e["a"] == 0),),
        _p("(∀ a : ℕ, a < 2 → a = 0) ∨ False", lambda e: False),
    ),
    Statement(
        "ℤ", ("a", "b"), (_p("a = b", lambda e: e["a"] == e["b"]),), _p("∀ a : ℤ, a = b", lambda e: False)
    ),
    Statement("ℝ", ("a",), (_p("a = 1", lambda e: e["a"] == 1),), _p("∀ a : ℝ, a * a = a", lambda e: False)),
    Statement(
        "ℕ",
        ("a",),
        (_p("a = 3", lambda e: e["a"] == 3),),
        _p("∀ b : ℕ, ∀ a : ℕ, a + b = 3 + b", lambda e: False),
    ),
    # the right-hand side's free `b` must not be captured by the binder `∀ b`
    Statement(
        "ℕ",
        ("a", "b"),
        (_p("a = b + 1", lambda e: e["a"] == e["b"] + 1),),
        _p("∀ b : ℕ, a = b + 1", lambda e: False),
    ),
    # a hypothesis `0 < a` used as the rule `0 < a = True` must not fire on a bound `a`
    Statement("ℝ", ("a",), (_p("0 < a", lambda e: e["a"] > 0),), _p("∀ a : ℝ, 0 < a", lambda e: False)),
    Statement(
        "ℕ",
        ("a",),
        (_p("a = 3", lambda e: e["a"] == 3), _p("∀ a : ℕ, a = 3 → a < 4", lambda e: True)),
        _p("∀ a : ℕ, a < 4", lambda e: False),
    ),
]

# field_simp must clear a denominator only with a nonzero fact about that denominator.
NEAR_MISSES += [
    Statement(
        "ℝ",
        ("a", "b"),
        (_p("a ≠ 0", lambda e: e["a"] != 0),),
        _p("a / b * b = a", lambda e: _div("ℝ", e["a"], e["b"]) * e["b"] == e["a"]),
    ),
    Statement(
        "ℝ",
        ("a", "b"),
        (_p("a ≠ 0", lambda e: e["a"] != 0),),
        _p(
            "a / (a + b) + b / (a + b) = 1",
            lambda e: _div("ℝ", e["a"], e["a"] + e["b"]) + _div("ℝ", e["b"], e["a"] + e["b"]) == 1,
        ),
    ),
    Statement(
        "ℝ",
        ("a", "b"),
        (),
        _p(
            "(a ^ 2 - b ^ 2) / (a - b) = a + b",
            lambda e: _div("ℝ", e["a"] ** 2 - e["b"] ** 2, e["a"] - e["b"]) == e["a"] + e["b"],
        ),
    ),
    Statement(
        "ℝ",
        ("a",),
        (_p("0 ≤ a", lambda e: e["a"] >= 0),),
        _p("a / a = 1", lambda e: _div("ℝ", e["a"], e["a"]) == 1),
    ),
]

# Conditional rewrite rules: `rw [le_div_iff₀]` needs `0 < c` and `rw [Nat.mod_lt]` needs `y > 0`.
NEAR_MISSES += [
    Statement(
        "ℝ",
        ("a", "b", "c"),
        (),
        _p(
            "a ≤ b / c ↔ a * c ≤ b",
            lambda e: (e["a"] <= _div("ℝ", e["b"], e["c"])) == (e["a"] * e["c"] <= e["b"]),
        ),
    ),
    Statement(
        "ℝ",
        ("a", "b", "c"),
        (),
        _p(
            "a / c ≤ b ↔ a ≤ b * c",
            lambda e: (_div("ℝ", e["a"], e["c"]) <= e["b"]) == (e["a"] <= e["b"] * e["c"]),
        ),
    ),
    Statement("ℕ", ("a", "b"), (), _p("a % b < b", lambda e: _mod("ℕ", e["a"], e["b"]) < e["b"])),
    # lemmas stated for rings (ℤ ℚ ℝ) must not be used at ℕ, where subtraction truncates
    Statement(
        "ℕ",
        ("a", "b"),
        (),
        _p("0 ≤ a - b ↔ b ≤ a", lambda e: (max(e["a"] - e["b"], 0) >= 0) == (e["b"] <= e["a"])),
    ),
]

# A negated hypothesis must not turn `False` into `True` when used as a rewrite rule, and an implication
# `p → a = 5` rewrites only with `p` as a new goal.
NEAR_MISSES += [
    Statement(
        "ℕ",
        ("a", "b"),
        (_p("a < b → a = 5", lambda e: not e["a"] < e["b"] or e["a"] == 5),),
        _p("a = 5", lambda e: e["a"] == 5),
    ),
    Statement("ℕ", ("a", "b"), (_p("¬a < b", lambda e: not e["a"] < e["b"]),), _p("False", lambda e: False)),
    Statement(
        "ℝ",
        ("a", "b"),
        (_p("¬a < b", lambda e: not e["a"] < e["b"]),),
        _p("a < b", lambda e: e["a"] < e["b"]),
    ),
    Statement(
        "ℕ", ("a", "b"), (_p("a ≠ b", lambda e: e["a"] != e["b"]),), _p("a < b", lambda e: e["a"] < e["b"])
    ),
]

TACTICS: list[str] = [
    "linarith",
    "nlinarith",
    "nlinarith [sq_nonneg (a - 1), sq_nonneg (a + 1)]",
    "positivity",
    "omega",
    "simp",
    "simp_all",
    "norm_num",
    "norm_num at *",
    "decide",
    "ring",
    "ring_nf",
    "field_simp",
    "aesop",
    "trivial",
    "rfl",
    "assumption",
    "contradiction",
    "intro h; linarith",
    "intros; simp_all",
    "constructor <;> linarith",
    "constructor <;> simp",
    "first | linarith | nlinarith | omega | positivity | norm_num | simp | decide",
    "push_neg; linarith",
    "by_contra h; push_neg at h; linarith",
    "interval_cases a <;> simp",
    "field_simp; ring",
    "ring_nf; nlinarith",
    "norm_num; linarith",
    "exact h0",
    "simp at *; linarith",
    "left; linarith",
    "right; linarith",
    "gcongr",
    "bound",
    "native_decide",
    "norm_num [h0]",
    "simp [h0]",
    "nlinarith [h0, sq_nonneg (a - b), sq_nonneg (a + b)]",
    "interval_cases a <;> omega",
    "push_cast; ring",
    "norm_cast",
    "zify; omega",
    "field_simp at *",
    "abel",
    "rcases h0 with h | h <;> linarith",
    "constructor <;> intro h <;> linarith",
    "exact?",
    "tauto",
    "split_ifs <;> linarith",
    "positivity; done",
    "apply le_of_lt; linarith",
    "norm_num <;> linarith",
    "simp only [h0]",
    "rw [h0]",
    "subst h0; simp",
    "use 1",
    "use 2; norm_num",
    "exists 0",
    "refine ⟨1, ?_, ?_⟩ <;> norm_num",
    "constructor <;> norm_num",
    "simp; omega",
    "norm_num; nlinarith",
    "aesop (add safe apply le_of_lt)",
    "aesop (config := { terminal := true })",
    "aesop (add unsafe 50% apply mul_pos) (add unsafe 30% (by nlinarith))",
    "nlinarith [sq_nonneg a, sq_nonneg b, mul_pos h0 h0]",
    "positivity",
    "exact le_refl _",
    "exact lt_irrefl _",
    "apply mul_pos <;> linarith",
    "cases h0 <;> simp_all",
    "omega",
    "decide",
    "simp at h0",
    "norm_num at h0 ⊢",
    "field_simp at h0 ⊢",
    "ring_nf at h0 ⊢; linarith",
    "push_neg at h0; linarith",
    "nlinarith [h0, h1]",
    "linarith [h0, h1]",
    "simp_all [mul_comm]",
    "ring_nf at *; nlinarith",
    "rw [h0]",
    "exfalso; rw [h0]",
    "exfalso; rw [lt_irrefl]",
    "rw [le_div_iff₀]",
    "rw [div_le_iff₀]",
    "rw [Nat.mod_lt]",
    "rw [Nat.sub_add_cancel]",
    "rw [sub_sq]",
    "simp only [sub_sq]",
    "rw [sub_nonneg]",
    "rw [sub_eq_zero] at h0; exact h0",
    "exfalso; first | apply lt_irrefl | rw [lt_irrefl] | simp only [lt_irrefl]",
    "exfalso; simp only [h0]",
    "aesop (add unsafe 70% (by exfalso)) (add unsafe 30% (by first | apply lt_irrefl | rw [lt_irrefl] | simp only [lt_irrefl]))",
]


def statements(
    seed: int, n_random: int, n_linear: int, n_cast: int = 0, n_prec: int = 0
) -> Iterator[Statement]:
    """Near misses first, then random statements; only those with a counterexample are yielded."""
    rng = random.Random(seed)
    candidates = itertools.chain(
        NEAR_MISSES,
        (random_linear_statement(rng) for _ in range(n_linear)),
        (random_statement(rng) for _ in range(n_random)),
        (random_cast_statement(rng) for _ in range(n_cast)),
        (random_precedence_statement(rng) for _ in range(n_prec)),
    )
    for s in candidates:
        if s.counterexample() is not None:
            yield s


# ------------------------------------------------------------------------------------------------
# The test


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Hang


def _check_all(stmts: list[Statement], tactics: list[str], per_check_s: float = 10.0) -> list[str]:
    """Run every statement with every tactic; return a description of each proof of a false statement.

    A check that runs past ``per_check_s`` (a hang: the simulator must end in a heartbeat timeout) is a
    failure too. The watchdog uses ``SIGALRM`` where the platform has it (POSIX).
    """
    repl = MathlibRepl()  # the statements are Mathlib's: checked under `import Mathlib`, as Lean needs
    failures: list[str] = []
    watchdog = hasattr(signal, "SIGALRM")
    old = signal.signal(signal.SIGALRM, _alarm) if watchdog else None
    try:
        for s in stmts:
            for tac in tactics:
                code = s.lean(tac)
                if watchdog:
                    signal.setitimer(signal.ITIMER_REAL, per_check_s)
                try:
                    resp = repl.handle({"cmd": code})
                except _Hang:
                    failures.append(f"HANG (> {per_check_s}s) on:\n{code}")
                    continue
                finally:
                    if watchdog:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                if classify_response(resp) == "proved":
                    failures.append(
                        f"PROVED A FALSE STATEMENT (counterexample {s.counterexample()}):\n{code}"
                    )
    finally:
        if watchdog:
            signal.signal(signal.SIGALRM, old)
    return failures


def _report(failures: list[str]) -> str:
    shown = "\n\n".join(failures[:25])
    more = f"\n\n… and {len(failures) - 25} more" if len(failures) > 25 else ""
    return f"{len(failures)} soundness failure(s); see docs/dev/soundness-bugs.md\n\n{shown}{more}"


def test_generated_statements_are_false() -> None:
    """The generator's own check: every yielded statement really has a counterexample."""
    stmts = list(statements(seed=1, n_random=200, n_linear=100))
    assert len(stmts) > 150
    for s in stmts:
        env = s.counterexample()
        assert env is not None
        assert all(h.ev(env) for h in s.hyps) and not s.goal.ev(env)


# The tactics that decide most goals; the fast test runs only these, the slow ones run the whole battery.
CORE_TACTICS = [
    "rw [h0]",
    "simp only [sub_sq]",
    "rw [sub_nonneg]",
    "rw [sub_eq_zero] at h0; exact h0",
    "exfalso; rw [h0]",
    "rw [le_div_iff₀]",
    "rw [Nat.mod_lt]",
    "linarith",
    "nlinarith",
    "positivity",
    "omega",
    "simp",
    "simp_all",
    "norm_num",
    "decide",
    "ring",
    "field_simp",
    "gcongr",
    "simp [h0]",
    "aesop",
]


def test_near_misses_are_never_proved_by_core_tactics() -> None:
    stmts = [s for s in NEAR_MISSES if s.counterexample() is not None]
    assert len(stmts) == len(NEAR_MISSES)  # the hand-written list stays honest: each one is really false
    failures = _check_all(stmts, CORE_TACTICS)
    assert not failures, _report(failures)


@pytest.mark.slow
@pytest.mark.slow
def test_near_misses_are_never_proved() -> None:
    stmts = [s for s in NEAR_MISSES if s.counterexample() is not None]
    failures = _check_all(stmts, [t for t in TACTICS if t not in CORE_TACTICS])
    assert not failures, _report(failures)


@pytest.mark.slow
@pytest.mark.slow
def test_random_statements_are_never_proved() -> None:
    stmts = list(statements(seed=20261129, n_random=200, n_linear=100, n_cast=100, n_prec=150))[
        len(NEAR_MISSES) :
    ]
    assert len(stmts) > 250
    failures = _check_all(stmts, TACTICS[::3])
    assert not failures, _report(failures)


def test_tactic_mode_never_proves_near_misses() -> None:
    """The same near misses through tactic mode: ``sorry`` gives a ``proofState``, then each tactic runs on it."""
    repl = MathlibRepl()  # the statements are Mathlib's: checked under `import Mathlib`, as Lean needs
    failures = []
    for s in NEAR_MISSES:
        resp = repl.handle({"cmd": s.lean("sorry")})
        sorries = resp.get("sorries") or []
        assert sorries, f"no proof state for:\n{s.lean('sorry')}\n{resp}"
        state = sorries[0]["proofState"]
        for tac in CORE_TACTICS:
            if classify_response(repl.handle({"tactic": tac, "proofState": state})) == "proved":
                failures.append(f"PROVED A FALSE STATEMENT in tactic mode:\n{s.lean(tac)}")
    assert not failures, _report(failures)


@pytest.mark.slow
@pytest.mark.slow
def test_lemma_hosts_never_prove_near_misses() -> None:
    """SATP's lemma host ``first | apply N | rw [N] | simp only [N]`` for every library lemma ``N``."""
    library = pytest.importorskip("lean_gym.sim.library", reason="lean_gym.sim.library is not built yet")
    hosts = [f"first | apply {n} | rw [{n}] | simp only [{n}]" for n in library.library_names()]
    failures = _check_all(NEAR_MISSES, hosts)
    assert not failures, _report(failures)


@pytest.mark.slow
@pytest.mark.slow
def test_random_aesop_actions_never_prove_near_misses() -> None:
    """Random ``satp-v1`` actions rendered as aesop calls (what ``LeanAesop-v0`` agents send)."""
    aesop_layouts = pytest.importorskip("lean_gym.aesop", reason="lean_gym.aesop is not built yet")
    library = pytest.importorskip("lean_gym.sim.library", reason="lean_gym.sim.library is not built yet")
    import textwrap

    import numpy as np

    lay = aesop_layouts.layout("satp-v1")
    names = library.library_names()
    rng = np.random.default_rng(20261129)
    default = lay.default_action()
    tactics = []
    for _ in range(12):
        action = np.array([rng.integers(0, n) for n in lay.nvec])
        for i, head in enumerate(lay.head_names):
            if ":" not in head:
                action[i] = default[i]  # config heads: one random block each is enough below
        lemmas = [str(x) for x in rng.choice(names, size=8, replace=False)]
        text = textwrap.dedent(lay.render(action, lemmas)).strip("\n")
        tactics.append(text.replace("\n", "\n  "))
    failures = _check_all(NEAR_MISSES, tactics)
    assert not failures, _report(failures)


def test_harness_positive_control() -> None:
    """The harness can see a proof: true statements the simulator should prove come back ``proved``."""
    repl = MathlibRepl()  # the statements are Mathlib's: checked under `import Mathlib`, as Lean needs
    proved = [
        "theorem t (a b : ℝ) (h0 : a < b) : a ≤ b := by\n  linarith",
        "theorem t (a : ℤ) (h0 : 2 * a = 1) : False := by\n  omega",
        "theorem t (a b : ℝ) : (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2 := by\n  ring",
        "theorem t : (7 : ℤ) / (-2) = -3 := by\n  decide",
        "theorem t (a : ℝ) : 0 ≤ a ^ 2 := by\n  positivity",
    ]
    verdicts = [classify_response(repl.handle({"cmd": code})) for code in proved]
    assert verdicts == ["proved"] * len(proved)


# ------------------------------------------------------------------------------------------------
# The built-in lemma library: every lemma, at every type it is offered at, holds on a small domain.


class _Unsupported(Exception):
    pass


def _term_value(t: tuple[Any, ...], env: Env, tymap: dict[str, str]) -> Any:
    """Evaluate a simulator term (``lean_gym.sim.terms`` layout) with Lean's semantics, independently."""
    h = t[0]
    if h == "num":
        ty = tymap.get(t[1], t[1])
        return F(t[2]) if ty in ("ℚ", "ℝ") else t[2]
    if h in ("var", "fvar"):  # a bound variable or a lemma's parameter (a local of its signature)
        if t[1] not in env:
            raise _Unsupported(t[1])
        return env[t[1]]
    if h == "True":
        return True
    if h == "False":
        return False
    if h in ("+", "-", "*", "/", "%", "^") and len(t) == 4:
        ty = tymap.get(t[1], t[1])
        a, b = _term_value(t[2], env, tymap), _term_value(t[3], env, tymap)
        if h == "+":
            return a + b
        if h == "-":
            return _sub(ty, a, b)
        if h == "*":
            return a * b
        if h == "/":
            return _div(ty, a, b)
        if h == "%":
            if ty not in ("ℕ", "ℤ"):
                raise _Unsupported("% on a field")
            return _mod(ty, a, b)
        if not isinstance(b, int) or b < 0 or b > 12:
            raise _Unsupported("^")
        return a**b
    if h == "neg":
        return -_term_value(t[2], env, tymap)
    if h == "abs":
        return abs(_term_value(t[2], env, tymap))
    if h == "cast":
        v = _term_value(t[3], env, tymap)
        return F(v) if tymap.get(t[1], t[1]) in ("ℚ", "ℝ") else v
    if h in ("=", "≠", "<", "≤", ">", "≥", "∣"):
        a, b = _term_value(t[2], env, tymap), _term_value(t[3], env, tymap)
        if h == "∣":
            if tymap.get(t[1], t[1]) in ("ℚ", "ℝ"):
                return b == 0 if a == 0 else True
            return _dvd(a, b)
        return {"=": a == b, "≠": a != b, "<": a < b, "≤": a <= b, ">": a > b, "≥": a >= b}[h]
    if h == "¬":
        return not _term_value(t[1], env, tymap)
    if h in ("∧", "∨", "→", "↔"):
        a, b = _term_value(t[1], env, tymap), _term_value(t[2], env, tymap)
        return {"∧": a and b, "∨": a or b, "→": (not a) or b, "↔": a == b}[h]
    raise _Unsupported(h)


def _lemma_counterexample(decl: Any, tymap: dict[str, str]) -> Env | None:
    variables: list[tuple[str, list[Any]]] = []
    hyps: list[tuple[Any, ...]] = []
    for name, ty, _explicit in decl.binders:
        if ty[0] == "type":
            tname = tymap.get(ty[1], ty[1])
            if tname == "Prop":
                variables.append((name, [False, True]))
            elif tname in DOMAINS:
                variables.append((name, DOMAINS[tname]))
            else:
                raise _Unsupported(tname)
        else:
            hyps.append(ty)
    names = [n for n, _ in variables]
    for vals in itertools.product(*(d for _, d in variables)):
        env = dict(zip(names, vals))
        if all(_term_value(h, env, tymap) for h in hyps) and not _term_value(decl.type, env, tymap):
            return env
    return None


def test_library_lemmas_are_true() -> None:
    library = pytest.importorskip("lean_gym.sim.library", reason="lean_gym.sim.library is not built yet")
    try:  # aesop appends its own lemmas to the library; check those too
        import lean_gym.sim.aesop  # noqa: F401
    except ImportError:
        pass
    checked, false = 0, []
    for name, decl in library.library_decls().items():
        tymaps = [{"α": t} for v, ts in decl.tyvars for t in sorted(ts)] or [{}]
        for tymap in tymaps:
            try:
                env = _lemma_counterexample(decl, tymap)
            except _Unsupported:
                continue
            checked += 1
            if env is not None:
                false.append(f"{name} at {tymap or 'its own type'}: false at {env}")
    assert checked >= 100, f"only {checked} lemma instances could be evaluated"
    assert not false, "library lemmas that are false in Lean's semantics:\n" + "\n".join(false)


def test_lemma_checker_catches_false_lemmas() -> None:
    """Control: the library check above would notice a lemma offered at a type where it is false."""
    from types import SimpleNamespace

    a, b = ("var", "a"), ("var", "b")
    sub_eq_zero = SimpleNamespace(
        binders=(("a", ("type", "α"), False), ("b", ("type", "α"), False)),
        type=("↔", ("=", "α", ("-", "α", a, b), ("num", "α", 0)), ("=", "α", a, b)),
    )
    assert _lemma_counterexample(sub_eq_zero, {"α": "ℤ"}) is None
    assert _lemma_counterexample(sub_eq_zero, {"α": "ℕ"}) is not None  # 0 - 1 = 0 but 0 ≠ 1
    div_self = SimpleNamespace(
        binders=(("a", ("type", "α"), True),), type=("=", "α", ("/", "α", a, a), ("num", "α", 1))
    )
    assert _lemma_counterexample(div_self, {"α": "ℝ"}) == {"a": F(0)}  # needs a ≠ 0
