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

    def __init__(self, timeout: float = 5.0, oracle_every: int = 0, decimals: bool = True) -> None:
        from lean_gym.backends.sim import SimBackend
        from lean_gym.grading import Oracle

        self.backend = SimBackend(recycle_after=2000)
        self.oracle = Oracle(SimBackend(recycle_after=2000), timeout=timeout)
        self.timeout = timeout
        self.oracle_every = oracle_every
        self.decimals = decimals
        self.attempts = 0
        self.skipped = 0
        self.findings: list[Finding] = []

    def attempt(self, c: Chooser) -> Finding | None:
        """One attempt; returns the finding, if the simulator or the oracle accepted a false statement."""
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
        if res.status == "proved":
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
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    attacker = Attacker(oracle_every=args.oracle_every, decimals=not args.no_decimals)
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
            kinds = {k: sum(1 for x in attacker.findings if x.kind == k) for k in ("names", "decimal")}
            print(
                f"attempts={attacker.attempts} skipped={attacker.skipped} findings={kinds} "
                f"elapsed={el:.0f}s rate={attacker.attempts / el:.1f}/s",
                flush=True,
            )
    el = time.perf_counter() - t0
    kinds = {k: sum(1 for x in attacker.findings if x.kind == k) for k in ("names", "decimal")}
    print(
        f"done: attempts={attacker.attempts} skipped={attacker.skipped} findings={kinds} "
        f"elapsed={el:.0f}s seed={args.seed}",
        flush=True,
    )
    return 1 if attacker.findings else 0


if __name__ == "__main__":
    sys.exit(main())
