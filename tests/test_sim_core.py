"""Unit tests of the simulator core: parser, pretty printer, elaboration, tactics, soundness, messages."""

from __future__ import annotations

import pytest
from mathlib_header import MathlibRepl

from lean_gym.sim.commands import axioms_text, run_commands
from lean_gym.sim.elab import Env
from lean_gym.sim.goals import Goal
from lean_gym.sim.library import library_decls
from lean_gym.sim.repl import SimRepl
from lean_gym.sim.syntax import ParseError, Source, parse_term_text, tokenize
from lean_gym.sim.tactics import (
    HeartbeatsExceeded,
    TacticContext,
    TacticError,
    goal_from_statement,
    register_tactic,
    run_tactic,
    run_tactic_on_goals,
)
from lean_gym.sim.terms import pretty, type_term

MATHLIB = Env(imports=("Mathlib",))


def goal(stmt: str) -> Goal:
    return goal_from_statement(stmt, TacticContext(env=MATHLIB))


def proves(stmt: str, tac: str) -> bool:
    ctx = TacticContext(env=MATHLIB)
    try:
        return run_tactic(goal(stmt), tac, ctx) == []
    except TacticError:
        return False


def run(stmt: str, tac: str) -> list[Goal]:
    return run_tactic(goal(stmt), tac, TacticContext(env=MATHLIB))


# ------------------------------------------------------------------------------------------- lexer


def test_columns_count_code_points() -> None:
    src = Source("theorem t (h₀ : 0 < x) : ℝ")
    toks = tokenize(src.text, src)
    colon = next(t for t in toks if t.text == ":")
    assert (colon.line, colon.col) == (1, 14)
    assert [t.text for t in toks][:4] == ["theorem", "t", "(", "h₀"]


def test_comments_are_skipped_and_nested() -> None:
    toks = tokenize("a /- x /- y -/ z -/ b -- c\nd")
    assert [t.text for t in toks if t.kind != "eof"] == ["a", "b", "d"]


def test_unterminated_comment_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="unterminated comment"):
        tokenize("a /- b")


# ----------------------------------------------------------------------------------- pretty printing


@pytest.mark.parametrize(
    ("stmt", "shown"),
    [
        ("(x y : ℝ) (h₀ : 0 < x) : x + y = y + x", "x y : ℝ\nh₀ : 0 < x\n⊢ x + y = y + x"),
        ("(a b : ℝ) : (a + b) ^ 2 ≤ 2 * (a ^ 2 + b ^ 2)", "a b : ℝ\n⊢ (a + b) ^ 2 ≤ 2 * (a ^ 2 + b ^ 2)"),
        ("(x : ℝ) : -x ^ 2 ≤ 0", "x : ℝ\n⊢ -x ^ 2 ≤ 0"),
        ("(x : ℝ) : (-x) ^ 2 = x ^ 2", "x : ℝ\n⊢ (-x) ^ 2 = x ^ 2"),
        ("(a b c : ℝ) : a - (b - c) = a - b + c", "a b c : ℝ\n⊢ a - (b - c) = a - b + c"),
        ("(n : ℕ) (x : ℝ) (h : x < n) : x < n + 1", "n : ℕ\nx : ℝ\nh : x < ↑n\n⊢ x < ↑n + 1"),
        ("(p q : Prop) : ¬(p ∧ q) ↔ ¬p ∨ ¬q", "p q : Prop\n⊢ ¬(p ∧ q) ↔ ¬p ∨ ¬q"),
        ("(a b : ℤ) (h₁ : ¬7 ∣ a) : a ≠ b", "a b : ℤ\nh₁ : ¬7 ∣ a\n⊢ a ≠ b"),
        ("(f : ℝ → ℝ) (h : ∀ x, f x = 2 * x) : f 3 = 6", "f : ℝ → ℝ\nh : ∀ (x : ℝ), f x = 2 * x\n⊢ f 3 = 6"),
        ("(x : ℝ) : ∃ y, y > x", "x : ℝ\n⊢ ∃ y, y > x"),
        ("(x : ℝ) (h : |x - 2| < 1) : x < 3", "x : ℝ\nh : |x - 2| < 1\n⊢ x < 3"),
        ("(p : Prop) : p → p ∨ p", "p : Prop\n⊢ p → p ∨ p"),
    ],
)
def test_goal_pretty_matches_lean(stmt: str, shown: str) -> None:
    assert goal(stmt).pretty() == shown


# The simulator's printer does not read `open`s (the goals here are elaborated without them), while
# miniF2F's header opens `Real` and `Nat`, under which Lean prints `Real.pi` as `π` and `Real.logb 8 a`,
# `Nat.digits`, `Nat.ofDigits` without their namespace (docs/simulator.md, known differences).
_OPEN_DEPENDENT = ("Real.pi", "Real.logb", "Nat.digits", "Nat.ofDigits")


@pytest.mark.shared
def test_minif2f_goals_in_subset_print_as_lean(shared_dir) -> None:  # type: ignore[no-untyped-def]
    import json

    rows = [json.loads(line) for line in (shared_dir / "data" / "minif2f.jsonl").read_text().splitlines()]
    checked = 0
    for row in rows:
        stmt = row["formal_statement"]
        if any(name in stmt for name in _OPEN_DEPENDENT):
            continue
        head, _, _ = stmt.partition(":= by")
        name_end = head.find(" ", len("theorem "))
        sig = head[name_end:].strip()
        try:
            g = goal_from_statement(sig, TacticContext(env=MATHLIB))
        except TacticError:
            continue
        if "\n    " in row["goal"]:  # Lean wrapped a long line; the simulator never wraps
            continue
        assert g.pretty() == row["goal"], stmt
        checked += 1
    assert checked >= 250, checked


@pytest.fixture
def shared_dir():  # type: ignore[no-untyped-def]
    from pathlib import Path

    p = Path(__file__).resolve().parents[1].parent / "shared"
    if not p.is_dir():
        pytest.skip(f"shared reference folder not found at {p}")
    return p


def test_precedence_of_parsed_terms() -> None:
    g = goal("(a b c : ℝ) : a + b * c ^ 2 = a + (b * (c ^ 2))")
    t = g.target
    assert t[2] == t[3]
    assert pretty(parse_like("(a b : ℝ) : a - b - a = -b")[2]) == "a - b - a"


def parse_like(stmt: str):  # type: ignore[no-untyped-def]
    return goal(stmt).target


def test_non_associative_relation_chain_is_a_parse_error() -> None:
    with pytest.raises(TacticError, match="unexpected token"):
        goal("(a b c : ℕ) : a < b < c")


def test_parse_term_text_rejects_trailing_tokens() -> None:
    with pytest.raises(ParseError):
        parse_term_text("x + ) y")


# ----------------------------------------------------------------------------------------- elaboration


def test_unknown_identifier_message_and_position() -> None:
    out = run_commands("theorem t (x : ℝ) (h : Finset.sum x = 1) : x = x := by rfl", MATHLIB)
    (m,) = out.messages
    assert m.data == "Unknown identifier `Finset.sum`"
    assert out.src.position(m.start) == (1, 23)
    assert out.src.position(m.end) == (1, 33)


def test_nat_subtraction_and_division_stay_in_nat() -> None:
    g = goal("(a b : ℕ) : a - b + b / 2 = a")
    assert g.target[1] == "ℕ"
    assert g.target[2][0] == "+"


def test_percent_on_reals_is_rejected() -> None:
    with pytest.raises(TacticError, match="HMod"):
        goal("(x : ℝ) : x % 2 = 0")


def test_untyped_binder_takes_type_from_use() -> None:
    g = goal("(f : ℝ → ℝ) (h : ∀ x, x > 0 → f x = 1) (h2 : ∀ y, f y ≤ 2) : f 1 = 1")
    assert pretty(g.hyp("h")) == "∀ x > 0, f x = 1"  # Mathlib's binder-predicate display
    assert pretty(g.hyp("h2")) == "∀ (y : ℝ), f y ≤ 2"
    assert g.hyp("h")[2] == type_term("ℝ")


# --------------------------------------------------------------------------------------------- tactics


@pytest.mark.parametrize(
    ("stmt", "tac"),
    [
        ("(x y : ℝ) (h : x < y) : x ≤ y + 1", "linarith"),
        ("(x y : ℝ) (h₀ : x + y = 10) (h₁ : x - y = 2) : x = 6", "linarith"),
        ("(a b : ℝ) : 2 * a * b ≤ a ^ 2 + b ^ 2", "nlinarith [sq_nonneg (a - b)]"),
        ("(x y : ℝ) : (x + y) ^ 2 = x ^ 2 + 2 * x * y + y ^ 2", "ring"),
        ("(x : ℝ) (h : 0 < x) : 0 < x ^ 2 + x", "positivity"),
        ("(n : ℕ) (h : n < 3) : n ≤ 2", "omega"),
        ("(n : ℕ) (h : 5 ≤ n) : n - 5 + 5 = n", "omega"),
        ("(n : ℤ) (h : 2 * n = 7) : False", "omega"),
        ("(p q : Prop) (hp : p) (hq : q) : p ∧ q", "constructor\n· exact hp\n· exact hq"),
        ("(p q : Prop) (hp : p) (hq : q) : p ∧ q", "exact ⟨hp, hq⟩"),
        ("(p q : Prop) (h : p ∧ q) : q ∧ p", "obtain ⟨a, b⟩ := h\nexact ⟨b, a⟩"),
        ("(p q : Prop) (h : p ∨ q) : q ∨ p", "rcases h with a | b\n· right; exact a\n· left; exact b"),
        ("(p q : Prop) (h : p ∨ q) : q ∨ p", "cases h\n· right; assumption\n· left; assumption"),
        (": 2 + 2 = 4", "norm_num"),
        (": (1 / 2 : ℝ) + 1 / 3 = 5 / 6", "norm_num"),
        (": 2 ^ 10 % 7 = 2", "decide"),
        (": 2 + 2 = 4", "rfl"),
        ("(a : ℝ) : 0 ≤ a ^ 2", "exact sq_nonneg a"),
        ("(a : ℤ) : 0 ≤ a ^ 2", "apply sq_nonneg"),
        ("(a b : ℝ) (ha : 0 < a) (hb : 0 < b) : 0 < a * b", "apply mul_pos <;> assumption"),
        ("(a b : ℝ) (ha : 0 < a) (hb : 0 < b) : 0 < a * b", "exact mul_pos ha hb"),
        ("(x : ℝ) (h : x = 2) : x + x = 4", "rw [h]; norm_num"),
        ("(x : ℕ) (h : x = 2) : x + x = 4", "subst h; rfl"),
        ("(x : ℕ) (h1 : 2 ≤ x) (h2 : x < 5) : x * x < 30", "interval_cases x <;> norm_num"),
        ("(x : ℝ) (hx : x ≠ 0) : x / x = 1", "field_simp"),
        ("(p : Prop) : ¬¬p → p", "intro h; push_neg at h; exact h"),
        ("(f : ℝ → ℝ) (h : ∀ x, f x = 2 * x) : f 3 = 6", "rw [h]; norm_num"),
        ("(f : ℝ → ℝ) (h : ∀ x, f x = 2 * x) : f 3 = 6", "simp [h]; norm_num"),
        ("(x : ℝ) (h : x > 0) : ∃ y : ℝ, y > 0", "exact ⟨x, h⟩"),
        ("(x : ℝ) (h : x > 0) : ∃ y : ℝ, y > 0", "use x"),
        ("(p q : Prop) (hq : q) : p → q", "intro _; exact hq"),
        ("(p : Prop) (h : p) (hn : ¬p) : 1 = 2", "contradiction"),
        ("(p : Prop) (h : p) (hn : ¬p) : 1 = 2", "exfalso; exact hn h"),
        ("(x : ℝ) : x ≤ x", "rfl"),
        ("(x : ℝ) (h : 1 < x) : 0 < x", "first | positivity | linarith"),
        ("(a b : ℝ) (h : a ≤ b) (c : ℝ) : a + c ≤ b + c", "gcongr"),
        ("(n : ℕ) (h : n % 2 = 1) : n ≠ 0", "omega"),
        ("(x : ℝ) (h₀ : 3 * x + 2 = 11) : x = 3", "linarith"),
        ("(p q : Prop) (hp : p) : p ∨ q", "left; exact hp"),
        ("(p q : Prop) : p ∧ q → q", "intro ⟨_, hq⟩; exact hq"),
        ("(x : ℝ) (h : 2 ≤ x) : 4 ≤ x ^ 2", "nlinarith"),
        ("(a b : ℕ) (h : a = b) : b = a", "exact h.symm"),
        ("(x : ℕ) : x + 0 = x", "simp"),
        ("(x y : ℕ) (h : x + 1 = y + 1) : x = y", "simpa using h"),
        ("(x : ℝ) (h : |x - 1| < 2) : x < 3", "obtain ⟨h1, h2⟩ := abs_lt.mp h\nlinarith"),
        ("(a b : ℝ) (h : (a ≤ b ∧ b ≤ 2) ∧ True) : a ≤ 2", "exact le_trans h.1.1 h.1.2"),
        ("(n : ℕ) (h : 0 < n) : 1 ≤ n", "exact h"),
        ("(x : ℝ) (h₀ : x ≠ 0) : (4 / x)⁻¹ = x / 4", "ring"),
        ("(x : ℝ) (h : 0 < x) : 0 < x⁻¹", "positivity"),
        ("(x : ℝ) (h : x ≠ 0) : x⁻¹ * x = 1", "field_simp"),
        ("(a : ℕ) (h0 : a = 3) : ∀ b : ℕ, b + a = b + 3", "rw [h0]; intro b; rfl"),
        ("(a b c : ℝ) (hc : 0 < c) : a ≤ b / c ↔ a * c ≤ b", "rw [le_div_iff₀ hc]"),
        ("(a b c : ℝ) (hc : 0 < c) : a ≤ b / c ↔ a * c ≤ b", "rw [le_div_iff₀]; exact hc"),
        ("(n : ℕ) : n + 0 = n", "induction n with\n| zero => rfl\n| succ k ih => omega"),
        (
            "(p q : Prop) (h : p ∨ q) : q ∨ p",
            "cases h with\n| inl hp => exact Or.inr hp\n| inr hq => exact Or.inl hq",
        ),
        (
            "(n : ℕ) : 2 ^ n ≥ n + 1",
            "induction n with\n| zero => norm_num\n| succ k ih =>\n  have : 2 ^ (k + 1) = 2 * 2 ^ k := by ring\n  omega",
        ),
        ("(x : ℝ) (h1 : x ≤ 1) (h2 : (1 : ℝ) ≤ 2) : x ≤ 2", "exact h1.trans h2"),
    ],
)
def test_tactic_proves(stmt: str, tac: str) -> None:
    assert run(stmt, tac) == []


@pytest.mark.parametrize(
    ("stmt", "tac"),
    [
        ("(x y : ℝ) (h : x < y) : y < x", "linarith"),
        ("(x : ℝ) : x < x", "nlinarith [sq_nonneg x]"),
        ("(n : ℕ) : n - 5 + 5 = n", "omega"),
        ("(x y : ℝ) : (x + y) ^ 2 = x ^ 2 + y ^ 2", "ring"),
        ("(x : ℝ) : 0 < x ^ 2", "positivity"),
        ("(x : ℝ) : 0 ≤ x", "positivity"),
        (": 2 + 2 = 5", "decide"),
        (": (2 : ℝ) + 2 = 4", "decide"),
        (": 2 + 2 = 5", "rfl"),
        ("(x : ℕ) : x * 0 = 1", "simp"),
        ("(x : ℝ) : x / x = 1", "field_simp"),
        ("(a : ℝ) : 0 ≤ a", "exact sq_nonneg a"),
        ("(a b : ℝ) (ha : 0 < a) : 0 < a * b", "exact mul_pos ha ha"),
        ("(p q : Prop) (h : p ∨ q) : p", "rcases h with a | b <;> assumption"),
        ("(a b : ℝ) (h : a ≤ b) (c : ℝ) : a * c ≤ b * c", "gcongr"),
        ("(n : ℕ) (h : n < 3) : n ≤ 1", "interval_cases n <;> decide"),
        ("(x : ℝ) : |x| = x", "simp"),
        ("(x : ℕ) : x - 1 + 1 = x", "simp"),
        ("(x y : ℝ) (h : x ≤ y) : x < y", "exact lt_of_le_of_lt h h"),
        ("(x : ℝ) (h : x ^ 2 = 4) : x = 2", "nlinarith [sq_nonneg (x - 2), sq_nonneg (x + 2)]"),
        (": (0 : ℝ) / 0 = 1", "norm_num"),
        ("(a : ℝ) : a < a", "gcongr"),
        ("(a b : ℝ) (h0 : 0 < b) : a * b < a * b", "bound"),
        ("(a : ℕ) (h0 : ((2 * a : ℕ) : ℝ) ≠ 0) : 1 / ((2 * a : ℕ) : ℝ) * (a : ℝ) = 1", "field_simp"),
        ("(a : ℤ) (h : a / 2 = 1) : a = 2", "omega"),
        ("(x : ℝ) : x⁻¹ * x = 1", "field_simp"),
        ("(n : ℕ) (h : 0 < n) : 2 ≤ n", "exact h"),
        ("(a : ℕ) (h0 : a = 3) : ∀ a : ℕ, a = 3", "rw [h0]; intro a; rfl"),
        ("(a : ℕ) (h0 : a = 3) : ∀ a : ℕ, a = 3", "simp [h0]"),
        ("(a b : ℕ) (h0 : a = b + 1) : ∀ b : ℕ, a = b + 1", "simp [h0]"),
        ("(a : ℝ) (h0 : 0 < a) : ∀ a : ℝ, 0 < a", "simp_all"),
        ("(a : ℝ) : |a| ^ 2 = a ^ 2", "exact sq_abs.symm"),
        ("(a b : ℝ) (h : a * b = 0) (hb : b = 1) : a = 1", "simp_all"),
        ("(a b : ℕ) (h0 : a - b = 0) : a = b", "rw [sub_eq_zero] at h0; exact h0"),
        ("(a b : ℝ) (h0 : ¬a < b) : a < b", "exfalso; rw [h0]"),
        ("(a b : ℕ) : a - b + b = a", "exfalso; rw [lt_irrefl]"),
        ("(a b c : ℝ) : a ≤ b / c ↔ a * c ≤ b", "rw [le_div_iff₀]"),
        ("(n : ℕ) : n = 5", "induction n with\n| zero => simp\n| succ k ih => omega"),
    ],
)
def test_tactic_never_proves_a_false_goal(stmt: str, tac: str) -> None:
    assert not proves(stmt, tac)


def test_failure_messages_are_leans() -> None:
    with pytest.raises(TacticError, match="^linarith failed to find a contradiction"):
        run("(x y : ℝ) (h : x < y) : y < x", "linarith")
    with pytest.raises(TacticError, match="^Tactic `decide` proved that the proposition"):
        run(": 2 + 2 = 5", "decide")
    with pytest.raises(TacticError, match="^Tactic `rewrite` failed: Did not find an instance"):
        run("(x y : ℝ) (h : x = 2) : y = 2", "rw [h]")
    with pytest.raises(TacticError, match="^unknown tactic"):
        run("(x : ℝ) : x = x", "exat rfl")
    with pytest.raises(TacticError, match="^no goals to be proved"):
        run("(x : ℝ) : x = x", "rfl\nrfl")
    with pytest.raises(TacticError, match="^Tactic `apply` failed"):
        run("(a b : ℝ) : a < b", "apply sq_nonneg")
    with pytest.raises(TacticError, match="Unknown identifier `foo`"):
        run("(x : ℝ) : x = x", "exact foo")
    with pytest.raises(TacticError, match="^Type mismatch"):
        run("(x : ℝ) (h : 0 < x) : 0 ≤ x", "exact h")


def test_apply_tags_new_goals_with_binder_names() -> None:
    goals = run("(a b : ℝ) (ha : 0 < a) (hb : 0 < b) : 0 < a * b", "apply mul_pos")
    assert [g.tag for g in goals] == ["ha", "hb"]
    assert goals[0].pretty().startswith("case ha\n")


@pytest.mark.parametrize(
    ("stmt", "tac", "left"),
    [
        # the conclusion is tried after every number of binders left unconsumed, fewest first (Lean's
        # `MVarId.apply`): with binders left it is an `→` or a `∀`, matched against such a target
        ("(p q r : Prop) (h : p → q → r) : q → r", "apply h", ["p"]),
        ("(f : ℕ → ℕ) (h : ∀ n, 0 < n → ∀ m, f n ≤ f m) : ∀ m, f 1 ≤ f m", "apply h", ["0 < 1"]),
        ("(p : ℕ → Prop) (h : ∀ n, p n) : ∀ k, p k", "apply h", []),
        ("(p q : Prop) (h : (p → q) → q) : (p → q) → q", "apply h", []),
        # `¬p` and `a ≠ b` are `→ False` targets: a premise left unconsumed meets them
        ("(p : Prop) (h : p → False) : ¬ p", "apply h", []),
        ("(a b : ℕ) (h : a ≠ b → False) : a ≠ b → False", "apply h", []),
        ("(a b c : ℝ) (h : a ≤ b) : a ≤ max b c", "apply le_max_of_le_left", ["a ≤ b"]),
        # no number of binders gives the target's head
        ("(p q : Prop) (h : p → q) : ¬ q", "apply h", None),
        ("(a b c : ℝ) (h : a ≤ b) : a ≤ max b c → True", "apply le_max_of_le_left", None),
    ],
)
def test_apply_tries_the_conclusion_under_each_number_of_binders(
    stmt: str, tac: str, left: list[str] | None
) -> None:
    if left is None:
        with pytest.raises(TacticError, match="^Tactic `apply` failed: could not unify the conclusion"):
            run(stmt, tac)
    else:
        assert [pretty(g.target) for g in run(stmt, tac)] == left


def test_canon_keeps_the_head_of_a_pi() -> None:
    # `apply` skips a number of binders whose `→`/`∀` head differs from the target's without normalising
    # the conclusion: that holds only while `canon` keeps these two heads, whatever is below them
    from lean_gym.sim.unify import canon

    x = ("fvar", "x")
    bodies = [
        ("≠", "ℕ", x, x),
        ("¬", ("True",)),
        (">", "ℤ", x, x),
        ("≥", "ℝ", x, x),
        ("False",),
        ("<", "ℕ", x, x),
    ]
    for body in bodies:
        for ty in [("type", "ℕ"), ("¬", ("False",)), ("≠", "ℕ", x, x)]:
            assert canon(("→", ty, body))[0] == "→"
            assert canon(("∀", "y", ty, body))[0] == "∀"


def test_cases_names_inaccessible_hypotheses_and_tags() -> None:
    goals = run("(p q : Prop) (h : p ∨ q) : q ∨ p", "cases h")
    assert [g.tag for g in goals] == ["inl", "inr"]
    assert goals[0].pretty() == "case inl\np q : Prop\nh✝ : p\n⊢ q ∨ p"


def test_by_cases_gives_pos_and_neg() -> None:
    goals = run("(x : ℝ) : x ≤ 0 ∨ 0 < x", "by_cases h : x ≤ 0")
    assert [g.tag for g in goals] == ["pos", "neg"]
    assert goals[1].hyp("h") == ("¬", ("≤", "ℝ", goals[1].var("x"), ("num", "ℝ", 0)))


def test_intro_renames_shadowed_variables_everywhere() -> None:
    (g,) = run("(x : ℕ) (h : x = 1) : ∀ y : ℕ, y = x → y = 1", "intro x")
    assert g.pretty() == "x✝ : ℕ\nh : x✝ = 1\nx : ℕ\n⊢ x = x✝ → x = 1"
    assert not proves("(x : ℕ) (h : x = 1) : ∀ y : ℕ, y = x → y = 1", "intro x\nintro hx\nrw [hx]")


def test_first_and_try_backtrack() -> None:
    assert run("(x : ℝ) (h : 1 < x) : 0 < x", "try simp\nlinarith") == []
    (g,) = run("(x : ℝ) (h : 1 < x) : 0 < x ∧ 1 < x", "constructor <;> first | assumption | skip")
    assert g.tag == "left"


def test_have_and_nested_by_blocks() -> None:
    assert run("(x y : ℝ) (h : x < y) : x < y + 1", "have h2 : y < y + 1 := by linarith\nlinarith") == []
    goals = run("(x y : ℝ) (h : x < y) : x < y + 1", "have h2 : y < y + 1")
    assert len(goals) == 2 and goals[0].pretty().endswith("⊢ y < y + 1")


def test_sorry_records_goal_and_axiom() -> None:
    ctx = TacticContext(env=MATHLIB)
    assert run_tactic(goal("(x : ℝ) : x < x"), "sorry", ctx) == []
    assert "sorryAx" in ctx.axioms
    assert ctx.sorries[0].goal.pretty() == "x : ℝ\n⊢ x < x"


def test_native_decide_uses_of_reduce_bool() -> None:
    ctx = TacticContext(env=MATHLIB)
    assert run_tactic(goal(": 123 * 456 = 56088"), "native_decide", ctx) == []
    assert ctx.axioms == {"Lean.ofReduceBool"}


def test_heartbeats_exceeded_is_leans_timeout() -> None:
    ctx = TacticContext(env=MATHLIB, max_heartbeats=50)
    with pytest.raises(
        HeartbeatsExceeded, match=r"^\(deterministic\) timeout at `whnf`, maximum number of heartbeats \(50\)"
    ):
        run_tactic(
            goal("(a b c : ℝ) (h : a < b) (h2 : b < c) : a * b * c ≤ a ^ 3 + b ^ 3 + c ^ 3"),
            "nlinarith [sq_nonneg (a - b)]",
            ctx,
        )
    ctx0 = TacticContext(env=MATHLIB, max_heartbeats=0)
    assert run_tactic(goal("(x : ℝ) (h : 0 < x) : 0 < 2 * x"), "linarith", ctx0) == []


def test_tick_counts_and_raises() -> None:
    ctx = TacticContext(env=MATHLIB, max_heartbeats=10)
    ctx.tick(10)
    with pytest.raises(HeartbeatsExceeded):
        ctx.tick()


def test_register_tactic_receives_text_and_can_close() -> None:
    """A registered tactic closes its goal through the kernel (a bare ``[]`` is refused: test_sim_kernel)."""
    from lean_gym.sim.kernel import Refl, close

    seen: list[str] = []

    def handler(g: Goal, text: str, ctx: TacticContext) -> list[Goal]:
        seen.append(text)
        return close(g, Refl(), ctx)

    register_tactic("sim_test_close", handler)
    assert run("(x : ℝ) : x = x", "sim_test_close (config := {})") == []
    assert seen == ["sim_test_close (config := {})"]


def test_run_tactic_on_goals_runs_on_main_goal_first() -> None:
    g1, g2 = goal("(x : ℝ) : x = x"), goal("(y : ℝ) (h : 0 < y) : 0 < y")
    rest = run_tactic_on_goals([g1, g2], "rfl", TacticContext(env=MATHLIB))
    assert rest == [g2]


def test_goal_groups_same_type_variables_and_pretty_is_stable() -> None:
    g = Goal((("a", type_term("ℝ")), ("b", type_term("ℝ")), ("n", type_term("ℕ"))), ("True",))
    assert g.pretty() == "a b : ℝ\nn : ℕ\n⊢ True"


# ------------------------------------------------------------------------------------------ library


def test_library_parses_and_lemmas_are_polymorphic() -> None:
    lib = library_decls()
    assert len(lib) >= 60
    assert "sq_nonneg" in lib and "Nat.succ_le_of_lt" in lib
    assert proves("(x : ℚ) : 0 ≤ x ^ 2", "exact sq_nonneg x")
    assert proves("(n : ℕ) (m : ℕ) (h : n < m) : n + 1 ≤ m", "exact Nat.succ_le_of_lt h")
    # sub_nonneg is false on ℕ (truncated subtraction), so it is not offered there
    assert not proves("(a b : ℕ) (h : 0 ≤ a - b) : b ≤ a", "exact sub_nonneg.mp h")
    assert proves("(a b : ℝ) (h : 0 ≤ a - b) : b ≤ a", "rw [sub_nonneg] at h; exact h")


def test_library_usable_by_linarith_rw_and_simp_only() -> None:
    assert proves("(a b : ℝ) : a * b ≤ (a ^ 2 + b ^ 2) / 2", "nlinarith [two_mul_le_add_sq a b]")
    assert proves("(a b : ℝ) : a * b = b * a", "rw [mul_comm]")
    assert proves("(a : ℝ) : a + 0 = a", "simp only [add_zero]")


# ---------------------------------------------------------------------------------------- commands


def test_axioms_text_uses_leans_order_and_wording() -> None:
    assert axioms_text("foo", set()) == "'foo' does not depend on any axioms"
    assert (
        axioms_text("foo", {"sorryAx", "Quot.sound", "propext", "Classical.choice"})
        == "'foo' depends on axioms: [propext, sorryAx, Classical.choice, Quot.sound]"
    )
    assert (
        axioms_text("foo", {"Lean.ofReduceBool", "propext"})
        == "'foo' depends on axioms: [propext, Lean.ofReduceBool]"
    )


def test_print_axioms_after_axiom_and_sorry() -> None:
    r = SimRepl()
    resp = r.handle({"cmd": "axiom bad : 1 = 2\ntheorem foo : 1 = 2 := bad\n#print axioms foo"})
    assert resp["messages"][0]["data"] == "'foo' depends on axioms: [bad]"
    resp = r.handle({"cmd": "theorem foo (x : Nat) : x = x := by\n  sorry\n#print axioms foo"})
    assert [m["severity"] for m in resp["messages"]] == ["warning", "info"]
    assert resp["messages"][1]["data"] == "'foo' depends on axioms: [sorryAx]"


def test_self_proof_is_rejected() -> None:
    resp = SimRepl().handle({"cmd": "theorem ex : False := by exact ex"})
    assert resp["messages"][0]["data"].startswith("fail to show termination for\n  ex")


def test_unsolved_goals_error_spans_the_by_block() -> None:
    out = run_commands(
        "theorem t (x : ℝ) (h : 0 < x) : 0 < x ∧ x ≠ 0 := by\n  constructor\n  · exact h", MATHLIB
    )
    (m,) = out.messages
    assert m.data == "unsolved goals\ncase right\nx : ℝ\nh : 0 < x\n⊢ x ≠ 0"
    assert out.src.position(m.start) == (1, 49)
    assert out.src.position(m.end) == (3, 11)


def test_first_error_aborts_the_block_and_is_the_only_message() -> None:
    out = run_commands("theorem t (x y : ℝ) (h : x < y) : y < x := by\n  linarith\n  exact foo", MATHLIB)
    assert len(out.messages) == 1 and out.messages[0].data.startswith("linarith failed")
    assert out.src.position(out.messages[0].start) == (2, 2)


def test_set_option_max_heartbeats_in() -> None:
    out = run_commands(
        "set_option maxHeartbeats 100 in\ntheorem t (a b c : ℝ) (h : a < b) (h2 : b < c) : a * b * c ≤ a ^ 3 + b ^ 3 + c ^ 3 := by\n  nlinarith [sq_nonneg (a - b), sq_nonneg (b - c)]",
        MATHLIB,
    )
    assert "maximum number of heartbeats (100)" in out.messages[0].data


def test_outside_subset_is_an_error_never_a_crash() -> None:
    for cmd in [
        "theorem t : (∑ k in Finset.range 3, k) = 3 := by simp",
        "instance : Foo := sorry",
        "#eval 1 + 1",
        "theorem t (x : ZMod 7) : x = x := rfl",  # (ℂ is in the subset since issue 21; ZMod is not)
        "theorem t := by",
        "theorem t : 1 = 1 := by\n  calc 1 = 1 := rfl",
        "theorem t (x : ℝ) : Real.cosh x > 0 := by positivity",  # (`Real.sqrt` is modelled: Mathlib's `evalSqrt`)
        "structure P where x : ℕ",
    ]:
        resp = SimRepl().handle({"cmd": "import Mathlib\n" + cmd})  # refused for what it uses, not the header
        assert any(m["severity"] == "error" for m in resp.get("messages", [])), cmd


def test_check_prints_type() -> None:
    resp = SimRepl().handle({"cmd": "def f := 2\n#check f"})
    assert resp["messages"][0]["data"] == "f : Nat"


def test_mutated_inputs_never_crash() -> None:
    """Random edits of real statements and tactic scripts give Lean-style answers, never exceptions."""
    import random

    rng = random.Random(7)
    base = [
        "theorem t (x y : ℝ) (h₀ : 0 < x ∧ 0 < y) (h₁ : x + y = 10) : x * y ≤ 25 := by\n  nlinarith [sq_nonneg (x - y)]",
        "theorem t (n : ℕ) (h : n % 4 = 3) : n % 2 = 1 := by\n  omega",
        "theorem t (p q : Prop) (h : p ∨ q) : q ∨ p := by\n  rcases h with a | b\n  · right; exact a\n  · left; exact b",
        "theorem t (a b : ℤ) (h : ¬7 ∣ a) : a ≠ 7 * b := by\n  intro h2\n  apply h\n  exact ⟨b, h2⟩",
        "theorem t (f : ℝ → ℝ) (h : ∀ x, f x = 2 * x + 1) : f 2 = 5 := by\n  rw [h]; norm_num",
    ]
    alphabet = list("()[]⟨⟩,:=+-*/^<>≤≥∣|¬∧∨→↔∀∃ \nx0123h₀.!?@_·;")
    repl = MathlibRepl()  # the statements are Mathlib's
    for _ in range(150):
        s = list(rng.choice(base))
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(s))
            if rng.random() < 0.5:
                del s[i]
            else:
                s.insert(i, rng.choice(alphabet))
        resp = repl.handle({"cmd": "".join(s)})
        assert "env" in resp or "message" in resp
        for sorry in resp.get("sorries", [])[:1]:
            repl.handle(
                {
                    "tactic": rng.choice(["linarith", "simp", "omega", "sorry", "exact h"]),
                    "proofState": sorry["proofState"],
                }
            )
