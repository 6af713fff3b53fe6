"""The simulator's aesop: the clause grammar, configs that change outcomes, budgets, soundness."""

from __future__ import annotations

import random

import pytest

from lean_gym.backends.sim import SimBackend
from lean_gym.sim.aesop_syntax import AesopSyntaxError, parse_aesop
from lean_gym.sim.families import HEADER, linear_facts
from lean_gym.sim.families_terms import lean_source

SIX_VALID = [
    "aesop",
    "aesop? (config := { terminal := true, maxRuleApplications := 500 })",
    "aesop (add unsafe 30% apply Nat.le_of_lt) (config := { strategy := .depthFirst, maxRuleApplicationDepth := 10 })",
    "aesop (add safe (by omega), unsafe 20% (by decide), norm simp Nat.add_comm) (simp_config := { arith := true })",
    "aesop (add safe forward h, unsafe 10% cases List, safe 2 constructors Nat.le) "
    "(erase Aesop.BuiltinRules.applyHyps) (config := { introsTransparency? := some .default, warnOnNonterminal := false })",
    "aesop? (add safe 5 apply [Nat.succ_le_of_lt, Nat.lt_of_lt_of_le], unsafe 40% [constructors Nat.le, apply Or.inl], "
    "norm -1 (by omega), safe cases (transparency! := default) False) (erase Aesop.BuiltinRules.ext) "
    "(rule_sets := [-default]) (config := { maxRuleApplications := 400, destructProductsTransparency := .instances, "
    "useSimpAll := false, enableUnfold := false, terminal := true }) (simp_config := { zetaDelta := true, decide := true })",
]

INVALID = [
    ("aesop (config := { strategy := depthFirst })", "unknown identifier 'depthFirst'"),
    ("aesop (add safe 50% apply Nat.le_of_lt)", "safe rules must specify an integer penalty"),
    ("aesop (rule_sets [Continuous])", "unexpected token '\\['; expected ':='"),
    ("aesop (add safe forward (immediate := h) foo)", "expected '\\['"),
    ("aesop (rule_sets := [builtin])", "rule set 'builtin', but it is already active"),
    ("aesop (config { terminal := true })", "expected ':='"),
    (
        "aesop (config := { maxRuleHeartbeats := 0 })",
        "`maxRuleHeartbeats` is not a field of structure `Aesop.Options`",
    ),
    ("aesop (add foo)", "phase \\(safe/unsafe/norm\\) not specified"),
    ("aesop (add norm cases Or)", "cases rules cannot be norm rules"),
    ("aesop (add safe simp foo)", "simp rules must be norm rules"),
    ("aesop (add unsafe 101% foo)", "percentage '101%' is not between 0 and 100"),
    ("aesop (erase unsafe 50% foo)", "unexpected priority"),
    (
        "aesop (add safe apply (transparency := .reducible) foo)",
        "expected 'all', 'default', 'instances' or 'reducible'",
    ),
    ("aesop (add)", "unexpected token '\\)'; expected term"),
    ("aesop (rule_sets := [])", "expected identifier"),
    ("aesop (config := { noSuchOption := 1 })", "`noSuchOption` is not a field of structure `Aesop.Options`"),
    ("aesop (add safe foo bar)", "duplicate rule 'bar'; rule 'foo' was already given"),
]


@pytest.fixture(scope="module")
def backend() -> SimBackend:
    return SimBackend()


def check(backend: SimBackend, statement: str, tactic: str, header: str = HEADER):  # type: ignore[no-untyped-def]
    return backend.check(f"theorem t {statement} := by\n  {tactic}\n", header=header)


# ------------------------------------------------------------------------------------------ grammar


@pytest.mark.parametrize("text", SIX_VALID)
def test_six_valid_examples_parse(text: str) -> None:
    call = parse_aesop(text)
    assert call.traced == text.startswith("aesop?")


def test_parsed_fields_of_the_examples() -> None:
    c6 = parse_aesop(SIX_VALID[5])
    assert [(r.phase, r.priority, r.builder, r.term) for r in c6.rules] == [
        ("safe", 5, "apply", "Nat.succ_le_of_lt"),
        ("safe", 5, "apply", "Nat.lt_of_lt_of_le"),
        ("unsafe", 40, "constructors", "Nat.le"),
        ("unsafe", 40, "apply", "Or.inl"),
        ("norm", -1, "tactic", "omega"),
        ("safe", 1, "cases", "False"),
    ]
    assert c6.options.terminal and c6.options.trace_script and not c6.options.use_simp_all
    assert "default" not in c6.rule_sets and "builtin" in c6.rule_sets
    assert dict(c6.simp_config) == {"zetaDelta": True, "decide": True}
    c4 = parse_aesop(SIX_VALID[3])
    assert c4.rules[2].phase == "norm" and c4.rules[2].builder == "simp"
    # unsafe without a priority defaults to 50%; a bare % priority means unsafe
    assert parse_aesop("aesop (add unsafe apply foo)").rules[0].priority == 50
    assert parse_aesop("aesop (add 30% foo)").rules[0].phase == "unsafe"
    # the last config clause wins
    assert parse_aesop("aesop (config := { maxGoals := 4 }) (config := {})").options.max_goals == 0


def test_satp_canonical_multiline_config_parses() -> None:
    text = (
        "  aesop (config := {\n    maxRuleApplicationDepth := 50\n    maxGoals                := 64\n"
        "    useSimpAll              := false\n  })\n    (add safe 1 (by norm_num))\n"
        "    (add unsafe 20% (by first | apply sq_nonneg | rw [sq_nonneg] | simp only [sq_nonneg]))"
    )
    call = parse_aesop(text)
    assert (call.options.max_rule_application_depth, call.options.max_goals, call.options.use_simp_all) == (
        50,
        64,
        False,
    )
    assert call.rules[1].term == "first | apply sq_nonneg | rw [sq_nonneg] | simp only [sq_nonneg]"


@pytest.mark.parametrize(("text", "message"), INVALID)
def test_invalid_examples_are_rejected_with_lean_messages(text: str, message: str) -> None:
    with pytest.raises(AesopSyntaxError, match=message):
        parse_aesop(text)


def test_valid_examples_run_in_the_simulator(backend: SimBackend) -> None:
    stmt = "(n m : ℕ) (h : n < m) : m < n ∨ n < m"
    for text in SIX_VALID:
        r = check(backend, stmt, text)
        assert r.backend == "sim"
        assert r.proved, (text, r.messages_text())
    # aesop? reports a script
    r = check(backend, stmt, "aesop?")
    assert any(m.severity == "info" and m.data.startswith("Try this:") for m in r.messages)


def test_invalid_call_is_a_lean_error_not_a_crash(backend: SimBackend) -> None:
    r = check(backend, "(p : Prop) (h : p) : p", "aesop (config := { noSuchOption := 1 })")
    assert r.status == "error"
    assert "`noSuchOption` is not a field of structure `Aesop.Options`" in r.messages_text()
    r = check(backend, "(p : Prop) (h : p) : p", "aesop (add unsafe 50% apply no_such_lemma)")
    assert r.status == "error" and "unknown identifier 'no_such_lemma'" in r.messages_text()
    r = check(backend, "(p : Prop) (h : p) : p", "aesop (erase Nat.le_of_lt)")
    assert "is not registered (with the given features) in any rule set" in r.messages_text()


# ------------------------------------------------------------------------------ configs change outcomes

LIN = "(x y : ℝ) (h₀ : x + 2 * y ≤ 5) (h₁ : 0 ≤ y) : x ≤ 5"


def test_rule_needed(backend: SimBackend) -> None:
    r = check(backend, LIN, "aesop")
    assert r.status == "error" and "made no progress" in r.messages_text()
    assert check(backend, LIN, "aesop (add unsafe 90% (by linarith))").proved


def _deep_statement(n: int) -> str:
    _data, hyps, facts = linear_facts(random.Random(7), "ℝ", n)
    tgt = facts[-1]
    for f in reversed(facts[:-1]):
        tgt = ("∧", f, tgt)
    return "(x y z : ℝ) " + " ".join(f"({h} : {lean_source(p)})" for h, p in hyps) + f" : {lean_source(tgt)}"


def test_depth_needed(backend: SimBackend) -> None:
    # the norm simp is off: simp over a 36-fact conjunction on every new goal would cost more than the budget
    stmt = _deep_statement(36)
    r = check(backend, stmt, "aesop (config := { enableSimp := false }) (add unsafe 100% (by linarith))")
    assert not r.proved
    assert "maximum rule application depth (30) was reached" in r.messages_text()
    assert check(
        backend,
        stmt,
        "aesop (config := { maxRuleApplicationDepth := 50, enableSimp := false }) (add unsafe 100% (by linarith))",
    ).proved


TRAP = (
    "(x y u₁ w₁ u₂ w₂ u₃ w₃ u₄ w₄ u₅ w₅ u₆ w₆ u₇ w₇ : ℝ) (h₀ : x + 2 * y ≤ 5) (h₁ : 0 ≤ y) "
    + " ".join(f"(k{i} : u{s} * w{s} = 0)" for i, s in enumerate("₁₂₃₄₅₆₇"))
    + " : x ≤ 5"
)


def test_simp_must_be_disabled(backend: SimBackend) -> None:
    r = check(backend, TRAP, "aesop (add unsafe 90% (by linarith))")
    assert not r.proved
    text = r.messages_text()
    assert "maximum number of rule applications (200) reached" in text or "(deterministic) timeout" in text
    assert check(
        backend, TRAP, "aesop (config := { enableSimp := false }) (add unsafe 90% (by linarith))"
    ).proved
    assert check(
        backend, TRAP, "aesop (config := { useDefaultSimpSet := false }) (add unsafe 90% (by linarith))"
    ).proved


def test_terminal_and_nonterminal_failures(backend: SimBackend) -> None:
    stmt = "(p q : Prop) (h : p) : p ∧ q"
    r = check(backend, stmt, "aesop")
    text = r.messages_text()
    assert "warning: aesop: failed to prove the goal after exhaustive search." in text
    assert "unsolved goals" in text and "⊢ q" in text
    r = check(backend, stmt, "aesop (config := { warnOnNonterminal := false })")
    assert "warning" not in r.messages_text() and "unsolved goals" in r.messages_text()
    r = check(backend, stmt, "aesop (config := { terminal := true })")
    assert r.errors and r.errors[0].data.startswith(
        "tactic 'aesop' failed, failed to prove the goal after exhaustive search.\nInitial goal:\n  p q : Prop"
    )
    assert "Remaining goals after safe rules:" in r.errors[0].data


def test_limits_and_strategies(backend: SimBackend) -> None:
    stmt = _deep_statement(12)
    r = check(
        backend, stmt, "aesop (config := { maxGoals := 5, terminal := true }) (add unsafe 100% (by linarith))"
    )
    assert "maximum number of goals (5) reached" in r.messages_text()
    r = check(
        backend,
        stmt,
        "aesop (config := { maxRuleApplications := 4, terminal := true }) (add unsafe 100% (by linarith))",
    )
    assert "maximum number of rule applications (4) reached" in r.messages_text()
    for strategy in ("bestFirst", "depthFirst", "breadthFirst"):
        assert check(
            backend, stmt, f"aesop (config := {{ strategy := .{strategy} }}) (add unsafe 100% (by linarith))"
        ).proved
    r = check(
        backend, "(x : ℝ) : ∀ y : ℝ, y = 2 → x + y = x + 2", "aesop (config := { maxNormIterations := 1 })"
    )
    assert "exceeded maximum number of normalisation iterations (1)" in r.messages_text()


def test_rule_builders(backend: SimBackend) -> None:
    assert check(
        backend, "(a b : ℤ) (c : ℤ) (h₀ : a ∣ b) : a ∣ b * c", "aesop (add safe apply dvd_mul_of_dvd_left)"
    ).proved
    host = "aesop (add unsafe 40% (by first | apply abs_add | rw [abs_add] | simp only [abs_add]))"
    assert check(backend, "(x y : ℝ) : |2 * x + y| ≤ |2 * x| + |y|", host).proved
    assert not check(backend, "(x y : ℝ) : |2 * x + y| ≤ |2 * x| + |y|", "aesop").proved
    fwd = "(p q : Prop) (h : p → q) (hp : p) : q"
    base = "(erase Aesop.BuiltinRules.applyHyps) (config := { enableSimp := false, terminal := true })"
    assert not check(backend, fwd, f"aesop {base}").proved
    assert check(backend, fwd, f"aesop (add safe forward h) {base}").proved
    assert check(
        backend, "(p q : Prop) (hp : p) : p ∨ q", "aesop (erase Or) (add unsafe 50% constructors Or)"
    ).proved
    r = check(
        backend,
        "(p q : Prop) (hp : p) : p ∨ q",
        "aesop (rule_sets := [-builtin]) (config := { enableSimp := false, terminal := true })",
    )
    assert not r.proved


# ---------------------------------------------------------------------------------- budget, soundness


def test_heartbeat_budget_is_lean_timeout(backend: SimBackend) -> None:
    header = HEADER.replace("set_option maxHeartbeats 400000", "set_option maxHeartbeats 3000")
    stmt = _deep_statement(20)
    r = check(backend, stmt, "aesop (add unsafe 100% (by nlinarith))", header=header)
    assert r.status == "error"
    assert "(deterministic) timeout" in r.messages_text()
    assert "maximum number of heartbeats (3000)" in r.messages_text()


@pytest.mark.parametrize(
    "stmt",
    [
        "(x y : ℝ) (h : x < y) : y < x",
        "(p q : Prop) (h : p ∨ q) : p",
        "(n : ℕ) (h : n % 2 = 1) : n = 1",
        "(x : ℝ) : x ^ 2 + 1 ≤ 0",
        "(a b : ℤ) : a ∣ a + b",
    ],
)
def test_never_proves_false_statements(backend: SimBackend, stmt: str) -> None:
    big = (
        "aesop (config := { maxRuleApplications := 400, maxRuleApplicationDepth := 60 }) "
        "(add safe 1 (by norm_num), safe 2 (by ring), safe 3 (by norm_cast), "
        "unsafe 100% (by linarith), unsafe 90% (by nlinarith), unsafe 90% (by positivity), unsafe 90% (by omega), "
        "unsafe 80% (by simp_all), unsafe 80% (by norm_num [*] at *), unsafe 70% (by exfalso), "
        "unsafe 40% (by first | apply dvd_mul_right | rw [dvd_mul_right] | simp only [dvd_mul_right]), "
        "unsafe 40% (by first | apply no_such_lemma | rw [no_such_lemma] | simp only [no_such_lemma]))"
    )
    r = check(backend, stmt, big)
    assert not r.proved


def test_unfold_rules_and_enable_unfold(backend: SimBackend) -> None:
    code = "def c : ℕ := 5\n\ntheorem t (x : ℕ) (h : x + 1 = c) : x = 4 := by\n  {}\n"
    rule = "aesop (add norm unfold c) (add unsafe 90% (by omega))"
    assert backend.check(code.format(rule), header=HEADER).proved
    off = backend.check(code.format(rule + " (config := { enableUnfold := false })"), header=HEADER)
    assert not off.proved and "made no progress" in off.messages_text()
    traced = backend.check(code.format(rule.replace("aesop", "aesop?", 1)), header=HEADER)
    assert traced.proved
    # Aesop's norm simp runs Lean's default simprocs (`mkLocalRuleSet` adds `Simp.getSimprocs`): after the
    # unfold, `x + 1 = 5` is `x = 4` (`Nat.reduceEqDiff`) and `simp_all` closes the goal with it
    assert any(
        m.severity == "info" and m.data == "Try this:\n  unfold c at h\n  simp_all" for m in traced.messages
    )


def test_satp_canonical_multiline_string_runs(backend: SimBackend) -> None:
    block = (
        "aesop (config := {\n    maxRuleApplicationDepth := 50\n    maxGoals                := 64\n"
        "    useSimpAll              := false\n  })\n    (add safe 1 (by norm_num))\n"
        "    (add unsafe 90% (by linarith))"
    )
    assert check(backend, LIN, block).proved
