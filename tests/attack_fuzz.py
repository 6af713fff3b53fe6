"""An attacking fuzzer for the simulator: proof scripts built to exploit, against statements shown false.

Each attempt is a statement that brute force shows false (a counterexample on a small domain, evaluated
here with Lean's semantics, independently of the simulator) and a proof built the way an adversary would
build one: the same few names reused across every binder-introducing tactic (``intro``, ``obtain``,
``rcases``, ``cases'``, ``rintro``, ``induction'``, ``by_contra``, ``by_cases``, ``have``, ``fun``),
``clear``/``revert``/``subst``/``induction``/``cases`` combinations, ``def``s that shadow the theorem's
binders, and casts of decimals. The proof goes through the whole verdict path: ``SimBackend`` (the REPL
protocol over ``SimRepl``) and, where asked, the oracle. Any ``proved`` verdict is a finding.

The generator draws through a :class:`Chooser`, so the same code runs under ``hypothesis`` (in CI, with
shrinking: ``tests/test_sim_attack.py``) and under a seeded ``random.Random`` for long runs::

    python tests/attack_fuzz.py --attempts 1000000 --seed 1 --oracle-every 50

prints the attempts made, the statements skipped and every finding (the statement, the script, the verdict).

Issue 18 added classes with a known right answer each (``--classes``, half of the attempts by default):
combinators around tactics that leave goals (``combinator``: no crash on ``sim``, and every
``--other-backends-every`` attempts on ``sim-repl`` and through the JSON printer; no false statement
proved), numbers past 4,300 digits through every tactic family and printer (``bignum``: no crash, no
timeout), honest names that look like the host's and real host references hidden (``io``), axioms text in
comments and forged lines where Lean prints (``axioms``), binder spellings of one statement and changed
statements (``binders``: equal exactly when the statement is the same), and rows with extra declarations
(``rows``). A crash of the simulator (``crashed``, or the guard's "internal simulator error") is a finding in
every class.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

T = TypeVar("T")

# -------------------------------------------------------------------------------------------- choices


class Chooser(Protocol):
    def choice(self, options: Sequence[T]) -> T: ...

    def chance(self, p: float) -> bool: ...

    def integer(self, lo: int, hi: int) -> int: ...


class RandomChooser:
    """A :class:`Chooser` over ``random.Random`` (long runs)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choice(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


class DrawChooser:
    """A :class:`Chooser` over hypothesis' ``data.draw`` (shrinkable choices)."""

    def __init__(self, draw: Callable[[Any], Any]) -> None:
        from hypothesis import strategies as st

        self.draw = draw
        self.st = st

    def choice(self, options: Sequence[T]) -> T:
        return options[self.draw(self.st.integers(0, len(options) - 1))]

    def chance(self, p: float) -> bool:
        return self.draw(self.st.integers(0, 999)) < int(p * 1000)

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))


# ------------------------------------------------------------------------------------ Lean semantics

Env = dict[str, Any]
DOMAIN = {"ℕ": [0, 1, 2, 3, 5], "ℤ": [-2, -1, 0, 1, 2, 3]}
BOUND_DOMAIN = {"ℕ": [0, 1, 2, 3, 4, 5, 7], "ℤ": [-3, -2, -1, 0, 1, 2, 3, 4]}


def _sub(ty: str, a: int, b: int) -> int:
    return max(a - b, 0) if ty == "ℕ" else a - b


@dataclass(frozen=True)
class Ex:
    """An expression: its Lean text, its value in an environment at a type, and whether it mentions a
    variable (a relation none of whose sides does is elaborated at ℕ, Lean's default numeral type)."""

    text: str
    ev: Callable[[Env, str], Any]
    typed: bool


@dataclass(frozen=True)
class Pr:
    """A proposition: its Lean text and its truth in an environment (``None``: cannot tell)."""

    text: str
    ev: Callable[[Env], bool | None]


def _rel(op: str, a: Ex, b: Ex) -> Pr:
    fns: dict[str, Callable[[Any, Any], bool]] = {
        "=": lambda x, y: x == y,
        "≠": lambda x, y: x != y,
        "≤": lambda x, y: x <= y,
        "<": lambda x, y: x < y,
        "≥": lambda x, y: x >= y,
        ">": lambda x, y: x > y,
    }
    f = fns[op]
    ty = None if a.typed or b.typed else "ℕ"
    return Pr(f"{a.text} {op} {b.text}", lambda e: f(a.ev(e, ty or e["#ty"]), b.ev(e, ty or e["#ty"])))


def _and(p: Pr, q: Pr) -> Pr:
    return Pr(f"({p.text}) ∧ ({q.text})", lambda e: _tri_and(p.ev(e), q.ev(e)))


def _or(p: Pr, q: Pr) -> Pr:
    return Pr(f"({p.text}) ∨ ({q.text})", lambda e: _tri_or(p.ev(e), q.ev(e)))


def _tri_and(a: bool | None, b: bool | None) -> bool | None:
    if a is False or b is False:
        return False
    return None if a is None or b is None else True


def _tri_or(a: bool | None, b: bool | None) -> bool | None:
    if a is True or b is True:
        return True
    return None if a is None or b is None else False


# ------------------------------------------------------------------------------------- statements

VAR_NAMES = ("a", "b", "x", "n")
BOUND_NAMES = ("x", "y", "a", "n", "w")
EXTRA_NAMES = ("h", "w", "y", "x", "this", "n", "hx", "ih", "h0")


@dataclass(frozen=True)
class Statement:
    """``theorem t binders hyps : goal``, false at ``counterexample``; ``ty`` is the variables' type."""

    ty: str
    variables: tuple[str, ...]
    hyps: tuple[tuple[str, Pr], ...]
    goal: Pr
    binders_text: str

    def text(self) -> str:
        hyps = " ".join(f"({n} : {p.text})" for n, p in self.hyps)
        parts = [x for x in ("theorem t", self.binders_text, hyps) if x]
        return f"{' '.join(parts)} : {self.goal.text}"

    def counterexample(self) -> Env | None:
        """An assignment making every hypothesis certainly true and the goal certainly false."""
        for vals in itertools.product(DOMAIN[self.ty], repeat=len(self.variables)):
            env = dict(zip(self.variables, vals))
            env["#ty"] = self.ty
            if all(p.ev(env) is True for _, p in self.hyps) and self.goal.ev(env) is False:
                return env
        return None


def _expr(c: Chooser, ty: str, names: Sequence[str], depth: int = 0) -> Ex:
    k = c.integer(0, 5 if depth < 2 else 1)
    if k == 0 or not names:
        v = c.integer(0, 3)
        return Ex(str(v), lambda e, t, v=v: v, False)
    if k == 1:
        x = c.choice(names)
        return Ex(x, lambda e, t, x=x: e[x], True)
    a, b = _expr(c, ty, names, depth + 1), _expr(c, ty, names, depth + 1)
    op = c.choice(["+", "-", "*", "+"])
    typed = a.typed or b.typed
    if op == "+":
        return Ex(f"({a.text} + {b.text})", lambda e, t: a.ev(e, t) + b.ev(e, t), typed)
    if op == "-":
        return Ex(f"({a.text} - {b.text})", lambda e, t: _sub(t, a.ev(e, t), b.ev(e, t)), typed)
    return Ex(f"({a.text} * {b.text})", lambda e, t: a.ev(e, t) * b.ev(e, t), typed)


def _atom(c: Chooser, ty: str, names: Sequence[str]) -> Pr:
    return _rel(c.choice(["=", "≠", "≤", "<", "=", "≥"]), _expr(c, ty, names), _expr(c, ty, names))


def _prop(c: Chooser, ty: str, names: Sequence[str], depth: int = 0) -> Pr:
    k = c.integer(0, 4 if depth == 0 else 2)
    if k <= 2:
        return _atom(c, ty, names)
    if k == 3:
        return _and(_prop(c, ty, names, depth + 1), _prop(c, ty, names, depth + 1))
    return _or(_prop(c, ty, names, depth + 1), _prop(c, ty, names, depth + 1))


def _forall_goal(c: Chooser, ty: str, names: Sequence[str]) -> Pr:
    """``∀ y : ty, P y``: false when false for some ``y`` of the domain (a real counterexample)."""
    y = c.choice(BOUND_NAMES)
    inner_names = [n for n in names if n != y] + [y]
    body = _atom(c, ty, inner_names)

    def ev(e: Env) -> bool | None:
        for v in DOMAIN[ty]:
            r = body.ev({**e, y: v})
            if r is False:
                return False
        return None  # true on the domain says nothing about the rest

    return Pr(f"∀ {y} : {ty}, {body.text}", ev)


def _exists_hyp(c: Chooser, ty: str, names: Sequence[str]) -> Pr:
    """``∃ y : ty, P y``: certainly true when a witness is found on a domain, else unknown."""
    y = c.choice(BOUND_NAMES)
    inner_names = [n for n in names if n != y] + [y]
    body = _prop(c, ty, inner_names, 1)

    def ev(e: Env) -> bool | None:
        for v in BOUND_DOMAIN[ty]:
            if body.ev({**e, y: v}) is True:
                return True
        return None

    return Pr(f"∃ {y} : {ty}, {body.text}", ev)


def _bounded_forall_hyp(c: Chooser, ty: str, names: Sequence[str]) -> Pr:
    """``∀ y : ℕ, y < K → P y``: decided exactly."""
    y = c.choice(BOUND_NAMES)
    k = c.integer(0, 3)
    inner_names = [n for n in names if n != y] + [y]
    body = _atom(c, "ℕ" if ty == "ℕ" else ty, inner_names)

    def ev(e: Env) -> bool | None:
        out: bool | None = True
        for v in range(k):
            r = body.ev({**e, y: v})
            if r is False:
                return False
            if r is None:
                out = None
        return out

    if ty != "ℕ":
        return _atom(c, ty, names)
    return Pr(f"∀ {y} : ℕ, {y} < {k} → {body.text}", ev)


def _eq_disjunction(c: Chooser, ty: str, names: Sequence[str]) -> Pr:
    """``a = 0 ∨ b = 0 ∨ a = b``-like goals: true in every case of a case split that confuses locals."""
    atoms = [
        _rel("=", Ex(x, lambda e, t, x=x: e[x], True), Ex(y, lambda e, t, y=y: e[y], True))
        if y in names
        else _rel("=", Ex(x, lambda e, t, x=x: e[x], True), Ex(y, lambda e, t, v=int(y): v, False))
        for x, y in ((c.choice(names), c.choice([*names, "0", "1"])) for _ in range(c.integer(2, 3)))
    ]
    out = atoms[-1]
    for a in reversed(atoms[:-1]):
        out = Pr(f"{a.text} ∨ {out.text}", lambda e, a=a, o=out: _tri_or(a.ev(e), o.ev(e)))
    return out


def gen_statement(c: Chooser) -> Statement:
    ty = c.choice(["ℕ", "ℕ", "ℤ"])
    nv = c.integer(1, 3)
    variables = tuple(dict.fromkeys(c.choice(VAR_NAMES) for _ in range(nv)))
    hyps: list[tuple[str, Pr]] = []
    hyp_names = ["h", "h0", "hx", "h"]
    for i in range(c.integer(0, 2)):
        k = c.integer(0, 3)
        if k == 0:
            p = _exists_hyp(c, ty, variables)
        elif k == 1:
            p = _bounded_forall_hyp(c, ty, variables)
        else:
            p = _prop(c, ty, variables)
        name = c.choice(hyp_names) if c.chance(0.3) else f"h{i}"
        hyps.append((name, p))
    r = c.integer(0, 9)
    goal = (
        _forall_goal(c, ty, variables)
        if r < 3
        else _eq_disjunction(c, ty, variables)
        if r < 5
        else _prop(c, ty, variables)
    )
    binders = f"({' '.join(variables)} : {ty})"
    return Statement(ty, variables, tuple(hyps), goal, binders)


# ---------------------------------------------------------------------------------------- scripts

CLOSERS = (
    "omega",
    "simp",
    "simp_all",
    "linarith",
    "decide",
    "rfl",
    "assumption",
    "trivial",
    "norm_num",
    "aesop",
    "positivity",
    "nlinarith",
    "contradiction",
    "simp at *",
    "exact h",
    "exact this",
    "exact x",
    "exact hx",
)


def _names(st: Statement) -> list[str]:
    return list(dict.fromkeys([*st.variables, *(n for n, _ in st.hyps), *EXTRA_NAMES]))


def _rel_text(c: Chooser, names: Sequence[str]) -> str:
    return f"{c.choice(names)} {c.choice(['=', '≤', '<', '≠'])} {c.choice([*names, '0', '1', '2'])}"


def _step(c: Chooser, names: Sequence[str], st: Statement) -> str:
    n = lambda: c.choice(names)  # noqa: E731
    hyp = lambda: c.choice([h for h, _ in st.hyps] or list(names))  # noqa: E731
    var = lambda: c.choice([*list(st.variables), c.choice(names)])  # noqa: E731
    templates: list[Callable[[], str]] = [
        lambda: f"intro {n()}",
        lambda: f"intro {n()} {n()}",
        lambda: "intros",
        lambda: f"rintro ⟨{n()}, {n()}⟩",
        lambda: f"obtain ⟨{n()}, {n()}⟩ := {hyp()}",
        lambda: f"obtain ⟨{n()}, -⟩ := {hyp()}",
        lambda: f"rcases {hyp()} with ⟨{n()}, {n()}⟩",
        lambda: f"rcases {hyp()} with {n()} | {n()}",
        lambda: f"rcases {hyp()} with -",
        lambda: f"rcases {hyp()} with rfl",
        lambda: f"cases' {hyp()} with {n()} {n()}",
        lambda: f"cases {hyp()}",
        lambda: f"cases {var()}",
        lambda: f"cases {var()} <;> cases {var()}",
        lambda: f"induction {var()}",
        lambda: f"induction' {var()} with {n()} {n()}",
        lambda: f"cases {var()} with\n  | zero => {c.choice(CLOSERS)}\n  | succ {n()} => {c.choice(CLOSERS)}",
        lambda: f"by_contra {n()}",
        lambda: f"by_contra! {n()}",
        lambda: f"by_cases {n()} : {_rel_text(c, names)}",
        lambda: f"have {n()} : {_rel_text(c, names)} := by {c.choice(CLOSERS)}",
        lambda: f"have {n()} := {hyp()}",
        lambda: f"set {n()} := {var()} + 1 with {n()}",
        lambda: f"generalize {n()} : {var()} + 1 = {n()}",
        lambda: f"subst {n()}",
        lambda: "subst_vars",
        lambda: f"clear {n()}",
        lambda: f"clear {n()} {n()}",
        lambda: f"revert {n()}",
        lambda: f"rename_i {n()}",
        lambda: f"rename_i {n()} {n()}",
        lambda: f"interval_cases {var()}",
        lambda: f"specialize {hyp()} {var()}",
        lambda: f"exact fun {n()} => rfl",
        lambda: f"refine fun {n()} => ?_",
        lambda: f"simp only [{n()}] at *",
        lambda: f"unfold {n()}",
        lambda: f"use {var()}",
    ]
    return c.choice(templates)()


def gen_script(c: Chooser, st: Statement) -> tuple[str, str]:
    """``(prefix, proof)``: ``def``s put before the theorem, and the proof after ``:=``."""
    names = _names(st)
    prefix = ""
    if c.chance(0.25):
        # a def of a binder's name: the binder must shadow it
        d = c.choice([*st.variables, *names])
        prefix = f"def {d} : {c.choice(['ℕ', st.ty])} := {c.integer(0, 3)}\n"
    if c.chance(0.1):
        return prefix, c.choice(
            [
                f"fun {c.choice(names)} => rfl",
                f"fun {c.choice(names)} {c.choice(names)} => by {c.choice(CLOSERS)}",
                f"by exact fun {c.choice(names)} => rfl",
                f"⟨{c.integer(0, 3)}, rfl⟩",
            ]
        )
    vs = list(st.variables)
    exists = [h for h, p in st.hyps if p.text.startswith("∃")]
    if c.chance(0.15) and st.ty == "ℕ":
        # split two variables, then close every case: a split that mixes up locals proves too much
        steps = [f"{c.choice(['cases', 'induction', 'rcases'])} {c.choice(vs)} <;> cases {c.choice(vs)}"]
    elif c.chance(0.15) and exists:
        # destruct an ∃ into the name of a variable that already exists
        steps = [
            f"{c.choice(['obtain', 'rcases'])} ⟨{c.choice(vs)}, {c.choice(names)}⟩ := {c.choice(exists)}"
        ]
        if steps[0].startswith("rcases"):
            h, rest = steps[0].split(" := ")
            steps = [f"rcases {rest} with {h.removeprefix('rcases ')}"]
    else:
        steps = []
    steps += [_step(c, names, st) for _ in range(c.integer(0, 3))]
    closer = c.choice(CLOSERS)
    if c.chance(0.3):
        closer = f"all_goals {closer}"
    elif c.chance(0.2):
        closer = f"({c.choice(CLOSERS)}) <;> {closer}"
    steps.append(closer)
    return prefix, "by\n" + "\n".join("  " + s.replace("\n", "\n  ") for s in steps)


# ------------------------------------------------------------------------------------- decimals


def gen_decimal(c: Chooser) -> tuple[Statement, str, str]:
    """``(n : ℝ) + 0.5 = k``-style statements with an integral ``n``: never true, whatever the casts."""
    k = c.integer(0, 3)
    d = c.choice(["0.5", "1.5", "0.25", "2.5"])
    op = c.choice(["=", "="])
    goal = Pr(
        f"({c.choice(['n', '(n : ℤ)'])} : ℝ) + {d} {op} {c.integer(0, 3)}",
        lambda e: False,  # an integer plus a non-integer is never an integer
    )
    hyp = Pr(f"n = {k}", lambda e: e["n"] == k)
    st = Statement("ℕ", ("n",), (("h", hyp),), goal, "(n : ℕ)")
    tac = c.choice(
        [
            "norm_cast",
            "push_cast",
            "simp [h]",
            "norm_num [h]",
            "subst h",
            "rw [h]",
            "exact_mod_cast h",
            "field_simp",
            "ring_nf",
            "linarith",
            "omega",
        ]
    )
    steps = [tac, c.choice(["simp [h]", "norm_num [h]", "linarith", "omega", "rfl", "simp"])]
    return st, "", "by\n" + "\n".join("  " + s for s in steps)


# ------------------------------------------------------------------------- issue 18: new attack classes
# Each generator builds an input with a known right answer (built to fool the verdict path it attacks) and
# `Attacker.attempt_class` checks the answer; a wrong one is a finding.

GOAL_LEAVING = (
    "skip",
    "constructor",
    "refine ⟨?_, ?_⟩",
    "apply And.intro",
    "exact hp",
    "exact ⟨hp, hq⟩",
    "omega",
)
COMBINATOR_TEMPLATES = (
    "focus T",
    "focus\n  T",
    "· T",
    "{ T }",
    "(T)",
    "T <;> T",
    "T <;> skip",
    "case _ => T",
    "next => T",
    "all_goals T",
    "any_goals T",
    "first | T | T",
    "try T",
    "repeat T",
    "iterate 2 T",
    "set_option maxRecDepth 100 in T",
    "set_option pp.all true in\n  T",
)


def gen_combinator_script(c: Chooser, depth: int = 0) -> str:
    """Combinators nested around tactics that leave goals (the crash of issue 18's class 1)."""
    if depth >= 2 or c.chance(0.35):
        return c.choice(GOAL_LEAVING)
    tpl = c.choice(COMBINATOR_TEMPLATES)
    out = tpl
    while "T" in out:
        out = out.replace("T", gen_combinator_script(c, depth + 1).replace("\n", "\n  "), 1)
    return out


BIG_VALUES = (
    lambda c: f"10 ^ {c.integer(4000, 6500)}",
    lambda c: f"Nat.factorial {c.integer(1400, 3600)}",
    lambda c: f"({c.integer(1400, 3000)})!",
    lambda c: f"Nat.sqrt (10 ^ {c.integer(8800, 13000)})",
    lambda c: f"Nat.gcd (10 ^ {c.integer(4300, 6000)}) (10 ^ {c.integer(4300, 6000)})",
    lambda c: f"Nat.lcm (10 ^ {c.integer(2200, 3000)}) (7 ^ {c.integer(2600, 3600)})",
    lambda c: f"2 ^ 2 ^ {c.integer(13, 17)}",
    lambda c: f"10 ^ {c.integer(2000, 2200)} * 10 ^ {c.integer(2200, 2400)}",
    lambda c: f"7 ^ {c.integer(10**6, 10**9)}",
    lambda c: f"10 ^ {c.integer(4300, 5000)} - 1",
    lambda c: "9" * 4300 + " + 1",
)
BIG_TACTICS = (
    "norm_num at h",
    "simp at h",
    "simp_all",
    "field_simp at h",
    "ring_nf at h",
    "norm_num",
    "simp",
    "decide",
    "rfl",
    "omega",
    "linarith",
    "nlinarith",
    "positivity",
    "push_cast at h",
    "norm_cast at h",
    "aesop",
    "subst h",
    "rw [h]",
    "exact h",
    "norm_num [h]",
    "simp only [h]",
    "interval_cases x",
    "contradiction",
)


def gen_big_number(c: Chooser) -> tuple[str, bool]:
    """A statement whose hypotheses compute past 4,300 digits, attacked through every tactic family.

    Returns the code and whether it is false (``x = V → x = k`` for a small ``k``: a counterexample is
    ``x = V``); a ``sorry`` at the end has the goal printed, so every printer sees the values.
    """
    ty = c.choice(["ℕ", "ℕ", "ℤ", "ℝ"])
    v = c.choice(BIG_VALUES)(c)
    if ty != "ℕ" and ("!" in v or "Nat." in v):
        ty = "ℕ"
    k = c.integer(0, 3)
    tacs = [c.choice(BIG_TACTICS) for _ in range(c.integer(1, 3))]
    if c.chance(0.3):
        tacs[-1] = f"first | {tacs[-1]} | {c.choice(BIG_TACTICS)}"
    if c.chance(0.4):
        tacs.append("sorry")
    body = "\n  ".join(tacs)
    return f"theorem t (x : {ty}) (h : x = {v}) : x = {k} := by\n  {body}\n", True


IO_LOOKALIKES = (
    "hIO",
    "RATIO",
    "FS",
    "hFS",
    "Process",
    "FilePath",
    "Handle",
    "IORef",
    "ioh",
    "hIOx",
    "IO'",
    "IO₁",
)
IO_ROOT_NAMES = ("IO", "System", "EIO", "BaseIO", "unsafeIO", "unsafeBaseIO")


def gen_io_honest(c: Chooser) -> str:
    """An honest proof whose locals look like the host's names; none may be reported as IO."""
    n = c.choice((*IO_LOOKALIKES, *IO_ROOT_NAMES))
    forms = [
        f"theorem t (x : ℕ) (h : x = 2) : x = 2 := by\n  have {n} : x = 2 := h\n  exact {n}",
        f"theorem t : ∀ {n} : ℕ, {n} = {n} := by\n  intro {n}\n  rfl",
        f"theorem t : ∀ {n} : ℕ, {n} = {n} := fun {n} => rfl",
        f"theorem t ({n} : ℕ) (h : {n} = 2) : {n} + 0 = 2 := by\n  simp [h]",
        f"theorem t (x : ℕ) (h : ∃ y, y = x) : ∃ y, y = x := by\n  obtain ⟨{n}, hy⟩ := h\n  exact ⟨{n}, hy⟩",
        f"theorem t (x : ℕ) (h : ∃ y, y = x) : ∃ y, y = x := by\n  rcases h with ⟨{n}, hy⟩\n  exact ⟨{n}, hy⟩",
        f"theorem t (p : Prop) (h : p) : p := by\n  by_contra {n}\n  exact {n} h",
        f"theorem t (x : ℕ) : x = x ∨ True := by\n  by_cases {n} : x = 2\n  · exact Or.inl rfl\n  · exact Or.inr trivial",
        f"theorem t : ∃ {n} : ℕ, {n} = 0 := ⟨0, rfl⟩",
        f"theorem t (f : ℕ → ℕ) (h : ∀ {n}, f {n} = {n}) : f 1 = 1 := h 1",
        f"theorem t (p q : Prop) (h : p ∨ q) : q ∨ p := by\n  cases h\n  case inl {n} => exact Or.inr {n}\n  "
        f"case inr {n} => exact Or.inl {n}",
        f"theorem t (p q : Prop) (h : p ∨ q) : q ∨ p := by\n  cases h\n  next {n} => exact Or.inr {n}\n  "
        f"next {n} => exact Or.inl {n}",
        f"theorem t (p : Prop) (h : p) : p := by\n  have {n} : p := h\n  exact {n}",
    ]
    out = c.choice(forms)
    if n not in IO_ROOT_NAMES and c.chance(0.3):
        out += f"\n-- uses {n}: not the host's"
    return out


IO_PATHS = ("IO.Process.spawn", "IO.FS.writeFile", "IO.println", "System.FilePath.mk", "IO.getStdout")


def gen_io_attack(c: Chooser) -> str:
    """A reference to the host, hidden as a policy would hide it; it must be reported."""
    path = c.choice(IO_PATHS)
    root, _, rest = path.partition(".")
    first, _, tail = rest.partition(".")
    forms = [
        f"def e := {path}",
        f"def e := _root_.{path}",
        f"def e := «{root}».{rest}",
        f"def e := {root}.«{first}»{'.' + tail if tail else ''}",
        f"open {root} in\ndef e := {rest}",
        f"open {root} renaming {first} → q in\ndef e := q",
        f"namespace {root}\ndef e := {rest}\nend {root}",
        f"def e := unsafeBaseIO ({path})",
        f"def e := (fun {root} => {root}) 1 + {path}",
        f"theorem a ({root} : ℕ) : True := trivial\ndef e := {path}",
        f"theorem a : True := by\n  have : ∀ {root} : ℕ, True := fun _ => trivial\n  exact {path}",
        f"theorem a : True := by\n  exact fun {root} => {root}\n  exact {path}",
        f"theorem a : True := by\n  have h : True := by\n    intro {root}\n    trivial\n  exact {path}",
        f"def e := ⟨fun {root} => {root}, {path}⟩",
        f'def e := s!"{{{path}}}"',
        f"def e := `{path}",
        f"def e := show ∀ {root} : ℕ, True from {path}",
        f"def e := ((∀ {root} : ℕ, True : Prop), {path})",
        f"theorem a ({root} : {path}) : True := trivial",
        f"theorem a : True := by\n  have {root} : ℕ := {path}\n  trivial",
        f"theorem a : True := by\n  have {root} : ℕ :=\n    {path}\n  trivial",
        f"theorem a : True := by\n  obtain ⟨{root}, h⟩ : ∃ x, p x := ⟨{path}, h⟩\n  trivial",
        f"theorem a : True := by\n  by_cases {root} : {path} = 1\n  all_goals trivial",
        f"theorem a : True := by\n  first | intro {root} | exact {path}",
        f"theorem a ({root} : ℕ) : True := trivial def e := {path}",
        f"theorem a ({root} : ℕ) : True := trivial\n  def e := {path}",
    ]
    return c.choice(forms)


AXIOMS_LINES = (
    "'t' depends on axioms: [propext]",
    "'t' does not depend on any axioms",
    "'t' depends on axioms: [propext, Classical.choice, Quot.sound]",
    "t depends on axioms: [Quot.sound]",
)


def gen_axioms_honest(c: Chooser) -> str:
    """Axioms text where no output can show it (a comment), or prose in a doc comment: not a forgery."""
    line = c.choice((*AXIOMS_LINES, "this proof depends on axioms only via omega", "no axioms here"))
    body = c.choice(["omega", "exact h", "simp [h]"])
    forms = [
        f"-- {line}\n  {body}",
        f"{body} -- {line}",
        f"/- {line} -/\n  {body}",
        f"/- /- {line} -/ -/\n  {body}",
        f"/-\n{line}\n-/\n  {body}",
    ]
    out = "theorem t (x : ℕ) (h : x = 2) : x = 2 := by\n  " + c.choice(forms)
    if c.chance(0.3):
        out = "/-- A lemma whose proof depends on axioms through choice. -/\n" + out
    return out


def gen_axioms_attack(c: Chooser) -> str:
    """A forged ``#print axioms`` line where Lean can print it; it must be reported."""
    line = c.choice(AXIOMS_LINES)
    esc = line.replace(" on ", c.choice([" on ", "\\x20on ", "\\u0020on ", " \\\n    on "]), 1)
    forms = [
        f'#print "{line}"',
        f'#print "{esc}"',
        f'def note := "{esc}"',
        f'def note := r#"{line}"#',
        f"def «{line}» := 0",
        f"/-- {line} -/\ntheorem u : True := trivial",
        "exact depends on axioms",
        "#print axioms t",
    ]
    return "theorem t (x : ℕ) (h : x = 2) : x = 2 := by\n  exact h\n" + c.choice(forms)


BinderAst = tuple[tuple[tuple[str, str, str], ...], str]


def gen_binder_ast(c: Chooser) -> BinderAst:
    """A quantified statement: binders ``(quantifier, name, type)`` and a body over their names."""
    n = c.integer(1, 4)
    names = ["x", "y", "z", "w"][:n]
    binders = []
    q = c.choice(["∀", "∃"])
    ty = c.choice(["ℕ", "ℤ", "ℝ"])
    for name in names:
        if c.chance(0.3):
            q = c.choice(["∀", "∃"])
        if c.chance(0.3):
            ty = c.choice(["ℕ", "ℤ", "ℝ"])
        binders.append((q, name, ty))
    a, b = c.choice(names), c.choice([*names, "0", "1"])
    return tuple(binders), f"{a} {c.choice(['=', '≤', '<', '≠'])} {b}"


def spell_binders(c: Chooser, ast: BinderAst) -> str:
    """One of the spellings Lean's binder notation reads as ``ast``."""
    binders, body = ast
    out: list[str] = []
    i = 0
    while i < len(binders):
        q, _, ty = binders[i]
        j = i + 1
        while j < len(binders) and binders[j][0] == q and binders[j][2] == ty and c.chance(0.7):
            j += 1
        names = [b[1] for b in binders[i:j]]
        style = c.integer(0, 3)
        if style == 0:
            out.append(f"{q} {' '.join(names)} : {ty},")
        elif style == 1:
            out.append(f"{q} ({' '.join(names)} : {ty}),")
        elif style == 2:
            out.append(f"{q} " + " ".join(f"({n} : {ty})" for n in names) + ",")
        else:
            out.extend(f"{q} {n} : {ty}," for n in names)
        i = j
    return " ".join(out) + " " + body


def mutate_binders(c: Chooser, ast: BinderAst) -> BinderAst:
    """A different statement: a type, a quantifier, the order of two binders or the body changed."""
    binders, body = list(ast[0]), ast[1]
    k = c.integer(0, len(binders) - 1)
    q, name, ty = binders[k]
    m = c.integer(0, 3)
    if m == 0:
        binders[k] = (q, name, c.choice([t for t in ("ℕ", "ℤ", "ℝ") if t != ty]))
    elif m == 1:
        binders[k] = ("∃" if q == "∀" else "∀", name, ty)
    elif m == 2 and len(binders) > 1:
        j = (k + 1) % len(binders)
        binders[k], binders[j] = binders[j], binders[k]
    else:
        body = body.replace("=", "≠", 1) if "=" in body and "≠" not in body else body + " ∧ 0 = 0"
    return tuple(binders), body


ROW_HEAD = "theorem t (x : ℕ) : x + 0 = x := by"
ROW_FINE_PREFIX = ("", "/-- The statement. -/\n", "-- theorem decoy : False := by\n", "@[simp] ")
ROW_BAD_PREFIX = ("open Nat in\n", "def helper : ℕ := 0\n", "theorem pre : True := by\n  trivial\n")
ROW_FINE_SUFFIX = ("", "\n", "\n  -- theorem u : True := by\n", "\n/- lemma v : True := by simp -/\n")
ROW_BAD_SUFFIX = (
    "\n  simp",
    " sorry",
    "\ntheorem u : True := by\n",
    "\n  simp\ntheorem u : True := by\n",
    "\nexample : True := by\n",
    "\ndef d := 0\n",
    "\n#print axioms t\n",
)


def gen_row(c: Chooser) -> tuple[str, bool]:
    """A dataset row's ``formal_statement`` and whether it is one header ending in ``:= by``."""
    good = True
    if c.chance(0.2):
        pre = c.choice(ROW_BAD_PREFIX)
        good = False
    else:
        pre = c.choice(ROW_FINE_PREFIX)
    if c.chance(0.5):
        suf = c.choice(ROW_BAD_SUFFIX)
        good = False
    else:
        suf = c.choice(ROW_FINE_SUFFIX)
    head = ROW_HEAD
    if c.chance(0.2):
        head = head.replace("(x : ℕ)", "(x : ℕ) (h : x = (by exact x))")
    return pre + head + suf, good


NEW_CLASSES = ("combinator", "bignum", "io", "axioms", "binders", "rows")


# ------------------------------------------------------------------------------------------ checks


@dataclass
class Finding:
    code: str
    via: str
    detail: str
    kind: str  # "decimal" (casts of decimals) or "names" (everything else)


MATHLIB = "import Mathlib"


class Attacker:
    """Runs attempts through ``SimBackend`` (and the oracle every ``oracle_every`` attempts).

    Findings are kept (not only the code but the whole list), so a long run must not find thousands: if
    it does, stop and fix the cause.
    """

    def __init__(
        self,
        timeout: float = 5.0,
        oracle_every: int = 0,
        decimals: bool = True,
        classes: Sequence[str] = (),
        other_backends_every: int = 0,
    ) -> None:
        from lean_gym.backends.sim import SimBackend
        from lean_gym.grading import Oracle

        self.backend = SimBackend(recycle_after=2000)
        self.oracle = Oracle(SimBackend(recycle_after=2000), timeout=timeout)
        self.timeout = timeout
        self.oracle_every = oracle_every
        self.decimals = decimals
        self.classes = tuple(classes)
        self.other_backends_every = other_backends_every
        self._repl_backend: Any = None
        self._sim_repl: Any = None
        self.attempts = 0
        self.skipped = 0
        self.by_class: dict[str, int] = {}
        self.findings: list[Finding] = []

    # --------------------------------------------------------------------------- issue 18's classes

    def _crashed(self, res: Any) -> str | None:
        """Why ``res`` is a crash (``crashed``, or the simulator's internal-error text), or ``None``."""
        from lean_gym.sim.repl import INTERNAL_ERROR

        if res.status == "crashed":
            return "crashed"
        if any(INTERNAL_ERROR in m.data for m in res.messages):
            return "internal simulator error"
        return None

    def _other_backends(self, code: str) -> str | None:
        """The same code through the REPL protocol (``sim-repl``) and the JSON printer; a crash is a finding."""
        from lean_gym.backends import ReplBackend
        from lean_gym.backends.repl import sim_command
        from lean_gym.sim import SimRepl
        from lean_gym.sim.jsonfmt import lean_json

        if self._repl_backend is None:
            self._repl_backend = ReplBackend(command=sim_command(), pool_size=1, timeout=60)
            self._sim_repl = SimRepl()
        why = self._crashed(self._repl_backend.check(code, timeout=self.timeout * 4))
        if why is not None:
            return f"sim-repl: {why}"
        try:
            lean_json(self._sim_repl.handle({"cmd": code}))
        except Exception as e:  # the printer raising is the finding
            return f"printer: {type(e).__name__}: {e}"
        return None

    def attempt_class(self, c: Chooser, kind: str) -> Finding | None:
        """One attempt of one of :data:`NEW_CLASSES`; a wrong answer is the finding."""
        from lean_gym.data.theorem import statement_problem
        from lean_gym.grading.policy import scan
        from lean_gym.grading.statement import as_target, compare_statement

        self.attempts += 1
        self.by_class[kind] = self.by_class.get(kind, 0) + 1
        finding: Finding | None = None
        if kind in ("combinator", "bignum"):
            if kind == "combinator":
                if c.chance(0.5):
                    st = gen_statement(c)
                    if st.counterexample() is None:
                        self.skipped += 1
                        return None
                    stmt, false = st.text(), True
                else:
                    stmt, false = "theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q", False
                lines = [gen_combinator_script(c) for _ in range(c.integer(1, 3))]
                code = f"{stmt} := by\n  " + "\n  ".join(x.replace("\n", "\n  ") for x in lines) + "\n"
            else:
                code, false = gen_big_number(c)
            res = self.backend.check(code, timeout=self.timeout)
            why = self._crashed(res)
            if why is None and false and res.status == "proved":
                why = "a false statement proved"
            if why is None and kind == "bignum" and res.status == "timeout":
                why = "unbounded work on a large number"
            if why is None and self.other_backends_every and self.attempts % self.other_backends_every == 0:
                why = self._other_backends(code)
            if why is not None:
                finding = Finding(code, "SimBackend", why, kind)
        elif kind in ("io", "axioms"):
            honest = c.chance(0.5)
            if kind == "io":
                code = gen_io_honest(c) if honest else gen_io_attack(c)
                cls = "unsafe_io"
            else:
                code = gen_axioms_honest(c) if honest else gen_axioms_attack(c)
                cls = "forged_axioms_output"
            found = any(v.hack_class == cls for v in scan(code))
            if found == honest:
                finding = Finding(code, "scan", f"{cls} {'on an honest proof' if honest else 'missed'}", kind)
        elif kind == "binders":
            ast = gen_binder_ast(c)
            other = ast if c.chance(0.5) else mutate_binders(c, ast)
            want, got = spell_binders(c, ast), spell_binders(c, other)
            target = as_target({"name": "t", "formal_statement": f"theorem t : {want} := by\n"})
            same = compare_statement(target, f"theorem t : {got} := by\n  sorry\n") is None
            if same != (ast == other):
                why = "two different statements made equal" if same else "one statement refused"
                finding = Finding(f"{want}\n{got}", "compare_statement", why, kind)
        elif kind == "rows":
            row, good = gen_row(c)
            if (statement_problem(row) is None) != good:
                finding = Finding(row, "statement_problem", "accepted" if not good else "refused", kind)
        else:
            raise ValueError(f"unknown attack class {kind!r}; use one of {', '.join(NEW_CLASSES)}")
        if finding is not None:
            self.findings.append(finding)
        return finding

    def attempt(self, c: Chooser) -> Finding | None:
        """One attempt; returns the finding, if the simulator or the oracle accepted a false statement.

        With ``classes`` set, a share of the attempts goes to those classes of issue 18 (see
        :meth:`attempt_class`).
        """
        if self.classes and c.chance(0.5):
            return self.attempt_class(c, c.choice(self.classes))
        kind = "names"
        if self.decimals and c.chance(0.08):
            st, prefix, proof = gen_decimal(c)
            kind = "decimal"
        else:
            st = gen_statement(c)
            if st.counterexample() is None:
                self.skipped += 1
                return None
            prefix, proof = gen_script(c, st)
        self.attempts += 1
        code = f"{prefix}{st.text()} := {proof}\n"
        # the statements are Mathlib's (ℕ, ℤ, ℝ, Mathlib's tactics): under no header they would be refused
        # for that alone, and the attack would test nothing
        res = self.backend.check(code, header=MATHLIB, timeout=self.timeout)
        finding = None
        self.by_class[kind] = self.by_class.get(kind, 0) + 1
        crash = self._crashed(res)
        if crash is not None:
            finding = Finding(code, "SimBackend", crash, kind)
        elif res.status == "proved":
            finding = Finding(code, "SimBackend", res.status, kind)
        elif self.oracle_every and self.attempts % self.oracle_every == 0:
            stmt = f"{st.text()} := by"
            v = self.oracle.judge({"name": "t", "formal_statement": stmt, "header": MATHLIB}, code)
            if v.accepted:
                finding = Finding(code, "oracle", v.reason, kind)
        if finding is not None:
            self.findings.append(finding)
        return finding


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--attempts", type=int, default=10_000, help="attempts to make (statements shown false)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--oracle-every", type=int, default=50, help="also judge every N-th attempt by the oracle"
    )
    ap.add_argument("--report-every", type=int, default=10_000)
    ap.add_argument("--no-decimals", action="store_true", help="leave out the casts-of-decimals attacks")
    ap.add_argument("--show", type=int, default=5, help="print the first N findings of each kind in full")
    ap.add_argument(
        "--classes",
        default=",".join(NEW_CLASSES),
        help=f"issue 18's classes to mix in (half the attempts), comma-separated from {','.join(NEW_CLASSES)}; "
        "'' for none",
    )
    ap.add_argument(
        "--other-backends-every",
        type=int,
        default=200,
        help="send every N-th combinator/large-number attempt through sim-repl and the JSON printer too",
    )
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    classes = [k for k in args.classes.split(",") if k]
    bad = [k for k in classes if k not in NEW_CLASSES]
    if bad:
        ap.error(f"unknown class {bad[0]!r}; choose from {', '.join(NEW_CLASSES)}")
    attacker = Attacker(
        oracle_every=args.oracle_every,
        decimals=not args.no_decimals,
        classes=classes,
        other_backends_every=args.other_backends_every,
    )
    shown: dict[str, int] = {}
    chooser = RandomChooser(rng)
    t0 = time.perf_counter()
    next_report = args.report_every
    while attacker.attempts < args.attempts:
        f = attacker.attempt(chooser)
        if f is not None and shown.get(f.kind, 0) < args.show:
            shown[f.kind] = shown.get(f.kind, 0) + 1
            print(f"FINDING ({f.kind}) via {f.via}: {f.detail}\n{f.code}", flush=True)
        if attacker.attempts >= next_report:
            next_report += args.report_every
            el = time.perf_counter() - t0
            kinds = {k: sum(1 for x in attacker.findings if x.kind == k) for k in attacker.by_class}
            print(
                f"attempts={attacker.attempts} skipped={attacker.skipped} by_class={attacker.by_class} "
                f"findings={kinds} elapsed={el:.0f}s rate={attacker.attempts / el:.1f}/s",
                flush=True,
            )
    el = time.perf_counter() - t0
    kinds = {k: sum(1 for x in attacker.findings if x.kind == k) for k in attacker.by_class}
    print(
        f"done: attempts={attacker.attempts} skipped={attacker.skipped} by_class={attacker.by_class} "
        f"findings={kinds} elapsed={el:.0f}s seed={args.seed}",
        flush=True,
    )
    return 1 if attacker.findings else 0


if __name__ == "__main__":
    sys.exit(main())
