"""Every action of every layout renders to an aesop call valid under aesop-syntax.md §3.

The checker below is written from ``shared/reference/aesop-syntax.md`` (§1 options, §3 grammar and the
``add`` resolution rules) and shares no code with the renderer (``lean_gym.aesop``): a tokenizer, a
recursive-descent parser of ``tactic ::= "aesop" clause*`` with the rule-expression grammar, then the
per-branch checks (exactly one term, phase/priority types, percentages in 0–100), the ``Aesop.Options``
field table with value types, and the v4.26+ ``colGt`` rule (a clause on a later line is indented past
the tactic's column).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pytest

from lean_gym.aesop import layout, uuid16

# --------------------------------------------------------------------------------------------- checker
# §1: Aesop.Options fields and their types (the removed *Heartbeats fields are not here).
OPTIONS = {
    "strategy": "strategy",
    "maxRuleApplicationDepth": "nat",
    "maxRuleApplications": "nat",
    "maxGoals": "nat",
    "maxNormIterations": "nat",
    "maxSafePrefixRuleApplications": "nat",
    "applyHypsTransparency": "transparency",
    "assumptionTransparency": "transparency",
    "destructProductsTransparency": "transparency",
    "introsTransparency?": "option_transparency",
    "terminal": "bool",
    "warnOnNonterminal": "bool",
    "traceScript": "bool",
    "enableSimp": "bool",
    "useSimpAll": "bool",
    "useDefaultSimpSet": "bool",
    "enableUnfold": "bool",
}
PHASES = {"safe", "norm", "unsafe"}
BUILDERS = {"apply", "forward", "destruct", "constructors", "cases", "simp", "unfold", "tactic", "default"}
DEFAULT_RULE_SETS = {"builtin", "default"}

_TOKEN = re.compile(
    r"""(?P<ws>[ \t]+)|(?P<nl>\n)|(?P<num>\d+)|(?P<assign>:=)|(?P<ident>\.?[^\W\d][\w'!?.\u2070-\u209f]*\??)
      |(?P<sym>[()\[\]{},%|*\-←])""",
    re.VERBOSE,
)


class GrammarError(Exception):
    pass


@dataclass
class Tok:
    kind: str
    text: str
    line: int
    col: int


def tokenize(text: str) -> list[Tok]:
    toks: list[Tok] = []
    line, col, i = 0, 0, 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None:
            raise GrammarError(f"bad character {text[i]!r} at {line}:{col}")
        kind = m.lastgroup or ""
        if kind == "nl":
            line, col = line + 1, 0
        elif kind != "ws":
            toks.append(Tok(kind, m.group(), line, col))
            col += len(m.group())
        else:
            col += len(m.group())
        i = m.end()
    return toks


class Parser:
    def __init__(self, text: str) -> None:
        self.toks = tokenize(text)
        self.i = 0
        self.rules: list[dict[str, object]] = []
        self.config: dict[str, str] = {}

    def peek(self, k: int = 0) -> Tok | None:
        return self.toks[self.i + k] if self.i + k < len(self.toks) else None

    def at(self, text: str) -> bool:
        t = self.peek()
        return t is not None and t.text == text

    def next(self) -> Tok:
        t = self.peek()
        if t is None:
            raise GrammarError("unexpected end of input")
        self.i += 1
        return t

    def expect(self, text: str) -> Tok:
        t = self.next()
        if t.text != text:
            raise GrammarError(f"expected {text!r}, got {t.text!r} at {t.line}:{t.col}")
        return t

    # tactic ::= ("aesop" | "aesop?") clause*
    def tactic(self) -> None:
        head = self.next()
        if head.text not in ("aesop", "aesop?"):
            raise GrammarError(f"a call starts with aesop, got {head.text!r}")
        while self.peek() is not None:
            t = self.peek()
            assert t is not None
            if t.text != "(":
                raise GrammarError(f"expected a clause, got {t.text!r} at {t.line}:{t.col}")
            if t.line > head.line and t.col <= head.col:
                raise GrammarError(f"clause at {t.line}:{t.col} is not indented past aesop (colGt)")
            self.clause()

    def clause(self) -> None:
        self.expect("(")
        kw = self.next().text
        if kw in ("add", "erase"):
            exprs = [self.rule_expr()]
            while self.at(","):
                self.next()
                if self.at(")"):
                    break
                exprs.append(self.rule_expr())
            for e in exprs:
                for branch in branches(e):
                    (self.check_add if kw == "add" else self.check_erase)(branch)
        elif kw == "rule_sets":
            self.expect(":=")
            self.expect("[")
            sets = [self.rule_set()]
            while self.at(","):
                self.next()
                if self.at("]"):
                    break
                sets.append(self.rule_set())
            self.expect("]")
            for neg, name in sets:
                if not neg and name in DEFAULT_RULE_SETS:
                    raise GrammarError(f"rule set {name} is already active")
        elif kw == "config":
            self.expect(":=")
            self.structure()
        else:
            raise GrammarError(f"unknown clause keyword {kw!r}")
        self.expect(")")

    def rule_set(self) -> tuple[bool, str]:
        neg = False
        if self.at("-"):
            self.next()
            neg = True
        t = self.next()
        if t.kind != "ident":
            raise GrammarError(f"rule set name expected, got {t.text!r}")
        return neg, t.text

    # config term: { field := value (, | newline) ... }, closed literals only
    def structure(self) -> None:
        self.expect("{")
        while self.peek() is not None and not self.at("}"):
            name = self.next()
            if name.text not in OPTIONS:
                raise GrammarError(f"{name.text} is not a field of structure Aesop.Options")
            self.expect(":=")
            value = self.next()
            typ = OPTIONS[name.text]
            ok = (
                (typ == "nat" and value.kind == "num")
                or (typ == "bool" and value.text in ("true", "false"))
                or (typ == "strategy" and value.text in (".bestFirst", ".depthFirst", ".breadthFirst"))
            )
            if not ok:
                raise GrammarError(f"{name.text} := {value.text}: expected a {typ} literal")
            if name.text in self.config:
                raise GrammarError(f"field {name.text} given twice")
            self.config[name.text] = value.text
            if self.at(","):
                self.next()
        self.expect("}")

    # rule_expr ::= feature | feature rule_expr | feature "[" rule_expr,+ "]"
    def rule_expr(self) -> tuple[list[tuple[str, str]], list[object]]:
        feats = [self.feature()]
        while True:
            t = self.peek()
            if t is None or t.text in (",", ")", "]"):
                return feats, []
            if t.text == "[":
                self.next()
                subs = [self.rule_expr()]
                while self.at(","):
                    self.next()
                    subs.append(self.rule_expr())
                self.expect("]")
                return feats, subs
            feats.append(self.feature())

    def feature(self) -> tuple[str, str]:
        t = self.next()
        if t.text in PHASES:
            return ("phase", t.text)
        if t.kind == "num":
            if self.at("%"):
                self.next()
                return ("percent", t.text)
            return ("int", t.text)
        if t.text == "-":
            n = self.next()
            if n.kind != "num":
                raise GrammarError("'-' must precede a priority")
            return ("int", "-" + n.text)
        if t.text in BUILDERS:
            return ("builder", t.text)
        if t.kind == "ident":
            return ("term", t.text)
        if t.text == "(":
            nxt = self.peek()
            if nxt is not None and nxt.text == "by":
                self.next()
                body = self.tactic_seq()
                self.expect(")")
                return ("term", "by " + body)
            raise GrammarError(f"unsupported parenthesised feature at {t.line}:{t.col}")
        raise GrammarError(f"unexpected {t.text!r} in a rule expression at {t.line}:{t.col}")

    # The tactics inside (by …): Lean/Mathlib tactic syntax for the forms SATP's pools use.
    SIMPLE: ClassVar[set[str]] = {
        "abel", "push_neg", "zify", "ring", "field_simp", "norm_num", "norm_cast", "gcongr", "interval_cases",
        "ext", "exfalso", "split", "linarith", "nlinarith", "positivity", "omega", "ring_nf", "simp", "simp_all",
        "bound", "rfl", "decide", "push_cast", "assumption_mod_cast", "solve_by_elim", "simp_rw", "rw",
    }  # fmt: skip

    def tactic_seq(self) -> str:
        t = self.peek()
        if t is not None and t.text == "first":
            self.next()
            alts = []
            while self.at("|"):
                self.next()
                alts.append(self.one_tactic())
            if not alts:
                raise GrammarError("first needs at least one | alternative")
            return "first | " + " | ".join(alts)
        return self.one_tactic()

    def one_tactic(self) -> str:
        name = self.next()
        words = [name.text]
        if name.text in ("apply", "unfold"):
            arg = self.next()
            if arg.kind != "ident":
                raise GrammarError(f"{name.text} needs an identifier, got {arg.text!r}")
            return f"{name.text} {arg.text}"
        if name.text in ("simp", "simp_all", "grind") and self.at("only"):
            self.next()
            words.append("only")
            if not self.at("["):
                raise GrammarError(f"{name.text} only needs a [lemma list]")
        elif name.text not in self.SIMPLE:
            raise GrammarError(f"unknown tactic {name.text!r}")
        if name.text in ("rw", "simp_rw", "solve_by_elim") and (not self.at("[")):
            raise GrammarError(f"{name.text} needs a [list]")
        if self.at("["):
            self.next()
            items = []
            while True:
                t = self.next()
                if t.text == "←":
                    t = self.next()
                    if t.kind != "ident":
                        raise GrammarError("← must precede a lemma name")
                elif t.text != "*" and t.kind != "ident":
                    raise GrammarError(f"bad list item {t.text!r}")
                items.append(t.text)
                sep = self.next()
                if sep.text == "]":
                    break
                if sep.text != ",":
                    raise GrammarError(f"expected , or ] in a list, got {sep.text!r}")
            words.append("[" + ", ".join(items) + "]")
        if self.at("at"):
            self.next()
            self.expect("*")
            words.append("at *")
        return " ".join(words)

    # The `add` resolution rules of §3 for one branch.
    def check_add(self, branch: list[tuple[str, str]]) -> None:
        terms = [v for k, v in branch if k == "term"]
        if len(terms) != 1:
            raise GrammarError("missing rule" if not terms else "duplicate rule")
        phases = [v for k, v in branch if k == "phase"]
        prios = [(k, v) for k, v in branch if k in ("percent", "int")]
        if len(phases) > 1 or len(prios) > 1:
            raise GrammarError("phase or priority given twice")
        phase = phases[0] if phases else None
        if phase is None and prios and prios[0][0] == "percent":
            phase = "unsafe"
        if phase is None:
            raise GrammarError("phase (safe/unsafe/norm) not specified")
        if prios:
            kind, val = prios[0]
            if phase == "unsafe" and (kind != "percent" or not 0 <= int(val) <= 100):
                raise GrammarError(f"unsafe needs a percentage in 0–100, got {val}")
            if phase in ("safe", "norm") and kind != "int":
                raise GrammarError(f"{phase} needs an integer priority, got {val}%")
        self.rules.append({"phase": phase, "prio": prios[0][1] if prios else None, "term": terms[0]})

    def check_erase(self, branch: list[tuple[str, str]]) -> None:
        if any(k in ("percent", "int") for k, _ in branch):
            raise GrammarError("unexpected priority.")


def branches(expr: tuple[list[tuple[str, str]], list[object]]) -> list[list[tuple[str, str]]]:
    feats, subs = expr
    if not subs:
        return [list(feats)]
    return [list(feats) + b for s in subs for b in branches(s)]  # type: ignore[arg-type]


def check_call(text: str) -> Parser:
    p = Parser(text)
    p.tactic()
    return p


# ------------------------------------------------------------------------------------------- the checker itself
@pytest.mark.parametrize(
    "text",
    [
        "aesop",
        "aesop? (config := { terminal := true, maxRuleApplications := 500 })",
        "aesop (add unsafe 30% apply Nat.le_of_lt) (config := { strategy := .depthFirst, maxRuleApplicationDepth := 10 })",
        "aesop (add safe (by omega), unsafe 20% (by decide), norm simp Nat.add_comm)",
        "aesop (add safe 5 apply [Nat.succ_le_of_lt, Nat.lt_of_lt_of_le], unsafe 40% [constructors Nat.le, apply Or.inl], norm -1 (by omega)) (rule_sets := [-default])",
    ],
)
def test_checker_accepts_the_documents_valid_examples(text: str) -> None:
    check_call(text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("aesop (add safe 50% apply Nat.le_of_lt)", "integer priority"),
        ("aesop (rule_sets [Continuous])", "expected ':='"),
        ("aesop (config := { maxRuleHeartbeats := 0 })", "not a field"),
        ("aesop (add foo)", "phase"),
        ("aesop (add unsafe 101% (by ring))", "0–100"),
        ("aesop (rule_sets := [builtin])", "already active"),
        ("aesop (add)", "unexpected"),
        ("aesop (config := { useSimpAll := 0 })", "bool"),
        ("aesop\n(add safe 1 (by ring))", "colGt"),
        ("aesop (add safe 1 (by ring) (by abel))", "duplicate rule"),
    ],
)
def test_checker_rejects_the_documents_invalid_examples(text: str, why: str) -> None:
    with pytest.raises(GrammarError, match=why):
        check_call(text)


# ------------------------------------------------------------------------------------------- the layouts
LEMMAS = [f"Nat.lemma_{i}'" if i % 3 else f"sq_nonneg_{i}" for i in range(32)]


def _random_actions(name: str, n: int, seed: int) -> tuple[Any, list[np.ndarray]]:
    lay = layout(name)
    rng = np.random.default_rng(seed)
    acts = [rng.integers(0, lay.nvec) for _ in range(n)]
    # Sparse actions too: most heads at their default, as a trained policy emits.
    for _ in range(n // 4):
        a = lay.default_action()
        idx = rng.choice(len(a), size=3, replace=False)
        a[idx] = rng.integers(0, lay.nvec[idx])
        acts.append(a)
    return lay, acts


@pytest.mark.parametrize(("name", "n"), [("satp-v1", 2000), ("satp-v2", 600), ("satp-v2-181", 200)])
def test_random_actions_render_valid_calls_that_round_trip(name: str, n: int) -> None:
    lay, acts = _random_actions(name, n, seed=7)
    for a in acts:
        text = lay.render(a, LEMMAS)
        p = check_call(text)
        rules = sum(int(a[i] != 0) for i, h in enumerate(lay.heads) if h.kind in ("tactic", "lemma"))
        assert len(p.rules) == rules, text
        assert np.array_equal(lay.parse(text, LEMMAS), a), text
        assert uuid16(text) == uuid16(text.replace("\n", "\n  ") + "  -- same call")


def test_default_action_renders_plain_aesop() -> None:
    for name in ("satp-v1", "satp-v2"):
        lay = layout(name)
        assert lay.render(lay.default_action(), LEMMAS) == "  aesop"
        check_call(lay.render(lay.default_action(), LEMMAS))


def test_doc_example_reproduced_exactly() -> None:
    # satp-aesop-policy.md §2: pos5=4, pos12=3, pos13=1, pos24=2 (lemma sq_nonneg), pos32=1, pos35=3, pos37=0.
    expected = (
        "  aesop (config := {\n"
        "    maxRuleApplicationDepth := 50\n"
        "    maxGoals                := 64\n"
        "    useSimpAll              := false\n"
        "  })\n"
        "    (add safe 1 (by norm_num))\n"
        "    (add unsafe 90% (by linarith))\n"
        "    (add unsafe 70% (by nlinarith))\n"
        "    (add unsafe 20% (by first | apply sq_nonneg | rw [sq_nonneg] | simp only [sq_nonneg]))"
    )
    lay = layout("satp-v1")
    a = lay.default_action()
    a[[5, 12, 13, 24, 32, 35, 37]] = [4, 3, 1, 2, 1, 3, 0]
    lemmas = ["sq_nonneg", "add_pos", "mul_pos", "abs_nonneg", "pow_pos", "sub_nonneg", "div_pos", "le_refl"]
    assert lay.render(a, lemmas) == expected
    check_call(expected)
    assert np.array_equal(lay.parse(expected, lemmas, strict=True), a)


def test_simulator_parses_every_rendered_call() -> None:
    aesop_syntax = pytest.importorskip("lean_gym.sim.aesop_syntax", reason="the simulator's aesop parser")
    for name, n in (("satp-v1", 300), ("satp-v2", 150)):
        lay, acts = _random_actions(name, n, seed=11)
        for a in acts:
            text = lay.render(a, LEMMAS)
            try:
                aesop_syntax.parse_aesop(text)
            except aesop_syntax.AesopSyntaxError as e:  # pragma: no cover - the failure message is the point
                pytest.fail(f"simulator rejects a rendered {name} call: {e.message}\n{text}")


CALL_REJECTED = re.compile(
    r"unexpected token|expected term|not a field of structure|must specify|phase \(safe/unsafe/norm\)"
    r"|duplicate rule|missing rule|percentage|is already (?:active|enabled)"
)


@pytest.mark.parametrize("form", ["canonical", "one-line"])
def test_simulator_accepts_every_rendered_call_in_a_proof(form: str) -> None:
    """End to end: the calls, as the env checks them (statement + block), never draw a parse error."""
    from lean_gym.aesop import canonical_text
    from lean_gym.backends import SimBackend
    from lean_gym.data import load_theorems, theorem_with_proof

    pytest.importorskip("lean_gym.sim.families", reason="the simulator's goal families")
    theorems = load_theorems("sim", split="valid", limit=40)
    backend = SimBackend()
    rng = np.random.default_rng(5)
    for name, n in (("satp-v1", 80), ("satp-v2", 30)):
        lay = layout(name)
        for k in range(n):
            t = theorems[k % len(theorems)]
            a = rng.integers(0, lay.nvec) if k % 2 else lay.default_action()
            if k % 2 == 0:  # sparse: a few heads off their default
                idx = rng.choice(len(a), size=4, replace=False)
                a[idx] = rng.integers(0, lay.nvec[idx])
            block = lay.render(a, t.context_lemmas)
            if form == "one-line":
                block = "  " + canonical_text(block)
            result = backend.check(theorem_with_proof(t, block), header=t.header)
            bad = [m.data for m in result.messages if m.severity == "error" and CALL_REJECTED.search(m.data)]
            assert not bad, (name, t.name, bad, block)
