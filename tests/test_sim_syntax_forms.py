"""Syntax the simulator reads as Lean parses and elaborates it (issue 20: proofs Lean accepts that the
simulator refused on syntax), each with the attacks its new proving path opens.

Every accepted form cites the Lean record it comes from; the attacks are the same shapes on false statements
(or with a hypothesis bound to the wrong name, a witness in the wrong place), which must still fail.
"""

from __future__ import annotations

import pytest

from lean_gym.lean.lexer import lex, lex_errors
from lean_gym.lean.protocol import classify_response
from lean_gym.sim import SimRepl
from lean_gym.sim.commands import run_commands
from lean_gym.sim.elab import Env
from lean_gym.sim.memo import request

MATHLIB = "import Mathlib\n"


def _verdict(code: str, header: str = MATHLIB) -> str:
    return classify_response(SimRepl().handle({"cmd": header + code}))


def _unread(code: str) -> list[str]:
    with request():
        out = run_commands(code, Env(), fresh=True)
    return [m.data for m in out.unread]


# (record, code): Lean elaborates each without error
HONEST = [
    # leanprover/lean4 tests/lean/run/induction1.lean at 031a99a65d27, lines 1 and 22: `:=` then `by {` at
    # column 0 (a bracketed tactic sequence has no column check)
    (
        "lean4 induction1.lean:1",
        "theorem tst0 {p q : Prop } (h : p ∨ q) : q ∨ p :=\nby {\n  induction h;\n"
        "  { apply Or.inr; assumption };\n  { apply Or.inl; assumption }\n}",
    ),
    (
        "lean4 induction1.lean:22",
        "theorem tst6 {p q : Prop } (h : p ∨ q) : q ∨ p :=\nby {\n  cases h with\n"
        "  | inr h2 => exact Or.inl h2\n  | inl h1 => exact Or.inr h1\n}",
    ),
    # mathlib4 MathlibTest/Use.lean at 44e8fc60eabb, line 240: the binder predicate's numeral types `n`
    ("Use.lean:240", "example : ∃ n > 0, n = n := by\n  use (discharger := skip) 1\n  decide"),
    # mathlib4 MathlibTest/byContra.lean at 151e10c0959b, lines 14, 85, 89
    (
        "byContra.lean:14",
        "example (a b : ℕ) (h : False) : a < b := by\n  by_contra! foo\n"
        "  revert foo; change b ≤ a → False; intro\n  exact h",
    ),
    (
        "byContra.lean:85",
        "example (p q : Prop) (hnp : ¬ p) : ¬ p ∨ ¬ q := by\n  by_contra! ⟨hp, _⟩\n  exact hnp hp",
    ),
    (
        "byContra.lean:89",
        "example (p q : Prop) (hnp : ¬ p) (hnq : ¬ q) : ¬ (p ∨ q) := by\n  by_contra! hp | hq\n"
        "  · exact hnp hp\n  · exact hnq hq",
    ),
    # mathlib4 MathlibTest/linarith.lean at 00d9f04e0b0d, lines 569 and 605
    (
        "linarith.lean:569",
        "example (n : Nat) (h1 : ¬n = 1) (h2 : n ≥ 1) : n ≥ 2 := by\n  by_contra h3\n"
        "  suffices n = 1 by exact h1 this\n  linarith",
    ),
    (
        "linarith.lean:605",
        "example (k : ℤ) (h : k < 1) (h₁ : -1 < k) : k = 0 := by\n  change _ at h₁\n  linarith",
    ),
    # mathlib4 MathlibTest/cases.lean at 4aa09afd2b27, line 76: `induction' e : n` generalizes `n`
    ("cases.lean:76", "example (n : Nat) : n = n := by\n  induction' e : n with m ih\n  · rfl\n  · rfl"),
    # the projection of a term, its implicit arguments fixed by the field's use (as `(div_eq_iff hb).1 h`
    # in mathlib4 MathlibTest/Qify.lean at 449d4621735f, line 28)
    (
        "Qify.lean:28 form",
        "example (a b c : ℚ) (hc : 0 < c) (h : a / c ≤ b) : a ≤ b * c := (div_le_iff₀ hc).1 h",
    ),
    ("Qify.lean:28 form", "example (a b : ℚ) (h : b ≤ a) : 0 ≤ a - b := by exact (sub_nonneg).mpr h"),
    # core `cases h : e` (tests/lean/run/rcases.lean's `rcases h : a with _ | n` records the equations)
    (
        "cases h : e",
        "example (n : Nat) (h0 : 0 < n) : n ≠ 0 := by\n  cases h : n with\n  | zero => omega\n  | succ m => omega",
    ),
    # mathlib4 MathlibTest/Use.lean at 44e8fc60eabb, line 25: an argument past the witnesses refines the goal
    ("Use.lean:25", "example (y : ℕ) (h : 42 = y) : ∃ x : Nat, x = y := by use 42, h"),
    (
        "Use.lean:25 form",
        "example (y : ℕ) (h : 42 = y) (h2 : y = 42) : ∃ x : Nat, x = y ∧ y = x := by use 42, h, h2",
    ),
    # `(·)` and `(· + 1)` are functions (Lean's `expandCDot?`): mathlib4 MathlibTest/Use.lean at
    # 44e8fc60eabb, line 265, and MathlibTest/cases.lean at 4aa09afd2b27, line 51
    ("Use.lean:265", "example : ∃ f : Nat → Nat, f 1 = 1 := by\n  use (·)"),
    (
        "cases.lean:51",
        "example (n : Nat) : n = n := by\n  induction' n with n ih\n  · rfl\n  · exact congr_arg (· + 1) ih",
    ),
    (
        "fun witness",
        "example : ∃ f : ℕ → ℕ → ℕ, ∀ a b, f a b = b + a := by\n  use fun a b => a + b\n  intro a b\n  omega",
    ),
    ("cdot order", "example : ∃ f : ℕ → ℕ → ℕ, f 3 1 = 3 - 1 := by\n  use (· - ·)"),
    ("congrArg", "example (a b : ℝ) (h : a = b) : a ^ 2 = b ^ 2 := congrArg (fun x => x ^ 2) h"),
    # Lean core tests/lean/run/rcases.lean at 4804971a77d6: rcases on ℕ with alternatives (line 39, 189),
    # `⟨⟩` on an equation substitutes it (line 46) and on `False` has no case (line 71), with guard_hyp
    (
        "rcases.lean:39",
        "example (x y : Nat) (h : x = y) : True := by\n  rcases x with _|⟨⟩|z\n  · guard_hyp h :ₛ 0 = y; trivial\n"
        "  · guard_hyp h :ₛ 0 + 1 = y; trivial\n  · guard_hyp z : Nat\n    guard_hyp h :ₛ z + 1 + 1 = y; trivial",
    ),
    (
        "rcases.lean:189",
        "example (a : Nat) : True := by\n  rcases h : a with _ | n\n  · guard_hyp h :ₛ a = 0; trivial\n"
        "  · guard_hyp h :ₛ a = n + 1; trivial",
    ),
    (
        "rcases.lean:46",
        "example (x : Nat) (h : x = 3) (h₂ : x < 4) : x < 4 := by\n  rcases h with ⟨⟩\n"
        "  guard_hyp h₂ : 3 < 4; guard_target = 3 < 4; exact h₂",
    ),
    (
        "rcases.lean:71",
        "example : True := by\n  obtain (h : True) | ⟨⟨⟩⟩ : True ∨ False\n  · exact Or.inl trivial\n"
        "  guard_hyp h : True; trivial",
    ),
    ("rcases ℕ", "example (n : ℕ) (h : n ≠ 0) : n ≥ 1 := by\n  rcases n with _ | n\n  · omega\n  · omega"),
    # mathlib4 MathlibTest/byContra.lean at 151e10c0959b, line 24: `contradiction` decides a closed
    # hypothesis (Lean core's `Contradiction.Config.useDecide`)
    ("byContra.lean:24", "example : 1 < 2 := by\n  by_contra!\n  contradiction"),
    # mathlib4 MathlibTest/Use.lean at 44e8fc60eabb, line 213: `use n` on a ℕ goal refines it
    ("Use.lean:213", "example (n : Nat) : Nat := by use n"),
    ("set … with", "example (n : ℕ) (h : n % 2 < 2) : n % 2 ≤ 1 := by\n  set r := n % 2 with hr\n  omega"),
]


@pytest.mark.parametrize(("record", "code"), HONEST)
def test_lean_accepts_and_so_does_the_simulator(record: str, code: str) -> None:
    assert _verdict(code) == "proved", record


ATTACKS = [
    # `by {` at column 0 is one bracketed sequence: a tactic after its `}` is not part of the proof
    "theorem t (p : Prop) (hp : p) : p ∧ p :=\nby {\n  constructor\n}\n  all_goals exact hp",
    # the discharger runs on the goal the witness left, and a wrong witness stays wrong
    "example : ∃ n > 0, n = 2 := by\n  use (discharger := skip) 1\n  decide",
    "example : ∃ n > 0, n = n := by\n  use (discharger := skip) 0\n  decide",
    "example : ∃ n : ℕ, n = 2 := by\n  use (discharger := fail) 2",
    # by_contra!'s pattern binds what push_neg made, in its place
    "example (p q : Prop) (hnq : ¬ q) : ¬ p ∨ ¬ q := by\n  by_contra! ⟨hp, _⟩\n  exact hnq hp",
    "example (p q : Prop) (hnp : ¬ p) (hnq : ¬ q) : ¬ (p ∨ q) := by\n  by_contra! hp | hq\n  · exact hnq hp\n  · exact hnp hq",
    "example (p q : Prop) (hnp : ¬ p) : ¬ (p ∨ q) := by\n  by_contra! hp | hq\n  · exact hnp hp",
    # revert keeps the hypothesis as a premise; change only to what is definitionally the same
    "example (a b : ℕ) (h : a ≤ b) : b ≤ a := by\n  revert h\n  intro h\n  exact h",
    "example (a b : ℕ) (h : a ≤ b) : a < b := by\n  change a ≤ b\n  exact h",
    "example (a b : ℕ) (h : a ≤ b) (g : b ≤ a) : a < b := by\n  change a < b at g\n  exact g",
    "example (x : ℕ) (h : x = 2) : ∀ y : ℕ, y = 2 := by\n  revert x\n  intro y hy\n  exact hy",
    # suffices: the body proves the goal from the new hypothesis, and the new hypothesis is the goal left
    "example (n : ℕ) (h : n = 1) : n = 2 := by\n  suffices n = 1 by exact this\n  exact h",
    "example (n : ℕ) (h : n = 2) : n = 2 := by\n  suffices n = 1 by omega\n  exact h",
    # the generalized equation is the target's value, in each case
    "example (n : Nat) : n = 0 := by\n  induction' e : n with m ih\n  · rfl\n  · rfl",
    "example (n : Nat) (h0 : 0 < n) : n = 1 := by\n  cases h : n with\n  | zero => omega\n  | succ m => omega",
    # a projection proves its own field, of its own statement
    "example (a b c : ℚ) (hc : 0 < c) (h : a / c ≤ b) : a ≤ c * b := (div_le_iff₀ hc).1 h",
    "example (a b c : ℚ) (hc : 0 < c) (h : a / c ≤ b) : a / c ≤ b * c := (div_le_iff₀ hc).1 h",
    "example (a b : ℚ) (h : 0 ≤ a - b) : a ≤ b := (sub_nonneg).1 h",
    "example (p q : Prop) (h : p ∧ q) : p := (h).2",
    # `use`'s proof arguments go to their own goals, and a goal the constructor closes takes none
    # (mathlib4 MathlibTest/Use.lean at 44e8fc60eabb, line 21: `use 42, rfl` is too many arguments)
    "example : ∃ x : Nat, x = x := by use 42, rfl",
    "example (y : ℕ) (h : 43 = y) : ∃ x : Nat, x = y := by use 42, h",
    "example (y : ℕ) (h : 42 = y) (h2 : y = 42) : ∃ x : Nat, x = y ∧ y = x := by use 42, h2, h",
    "example (y : ℕ) (h : 42 = y) : ∃ x : Nat, x = y := by use 42, h, h",
    # a function witness is applied as written, and congrArg proves only its function's image of `h`
    "example : ∃ f : Nat → Nat, f 1 = 2 := by\n  use (·)",
    "example : ∃ f : ℕ → ℕ → ℕ, f 1 2 = 3 := by\n  use fun a b => a * b",
    "example : ∃ f : ℕ → ℕ, ∀ x, f x = x + 2 := by\n  use fun x => x + 1\n  intro y\n  omega",
    "example (a b : ℕ) (h : a = b) : b + 1 = a + 1 := congrArg (· + 1) h",
    # the placeholders are the binders left to right: `(· - ·) 1 3` is `1 - 3`, which is 0 on ℕ
    "example : ∃ f : ℕ → ℕ → ℕ, f 1 3 = 3 - 1 := by\n  use (· - ·)",
    "example (a b c : ℕ) (h : a = c) : a + 1 = b + 1 := congrArg (· + 1) h",
    "example (a b : ℕ) (h : a = b) : a + 1 = b + 2 := congrArg (· + 1) h",
    "example (a b : ℕ) (h : a ≤ b) : a + 1 = b + 1 := congrArg (· + 1) h",
    # the cases of ℕ are the cases, and a guard checks what is there
    "example (n : ℕ) : n = 0 ∨ n ≥ 2 := by\n  rcases n with _ | n\n  · left; rfl\n  · right; omega",
    "example (x y : Nat) (h : x = y) : x < 2 ∨ 2 < y := by\n  rcases x with _|⟨⟩|z\n  · omega\n  · omega\n  · omega",
    "example (a : Nat) : a = 0 := by\n  rcases h : a with _ | n\n  · exact h\n  · omega",
    "example (x : Nat) (h : x = 3) : x = 4 := by\n  rcases h with ⟨⟩\n  rfl",
    "example (x : Nat) (h₂ : x ≤ 4) : x < 4 := by\n  guard_hyp h₂ : x < 4\n  exact h₂",
    "example (x : Nat) (h₂ : x < 4) : x ≤ 4 := by\n  guard_target = x < 4\n  exact h₂",
    # contradiction decides only closed ℕ/ℤ relations that are false
    "example (h : 2 ≤ 3) : False := by contradiction",
    "example (x : ℕ) (h : x ≤ 1) (h2 : 3 ≤ x) : False := by contradiction",
    "example (h : (2 : ℝ) ≤ 1) : 1 = 2 := by contradiction",
    "example (n : Nat) : Nat := by use n, n",
    # set's equation says what the new local is, and nothing more
    "example (n : ℕ) : n % 3 ≤ 1 := by\n  set r := n % 3 with hr\n  omega",
    "example (n : ℕ) (h : n % 2 < 2) : n % 2 = 0 := by\n  set r := n % 2 with hr\n  omega",
]


@pytest.mark.parametrize("code", ATTACKS)
def test_attack_is_refused(code: str) -> None:
    assert _verdict(code) != "proved", code


def test_a_statement_behind_modifiers_is_unread_when_it_is_not_read() -> None:
    # mathlib4 MathlibTest/push_neg.lean at 13ecfa732c2c, line 111: `set_option … in` before an example
    # whose binder `{α}` the simulator does not elaborate; Lean reads it, so the simulator must not claim
    # an error of its own there
    code = (
        "set_option linter.unusedVariables false in\n"
        "example {α} [Preorder α] (m n : α) (h : ¬(∃ k : α, m ≤ k)) (h₂ : m ≤ n) : m ≤ n := by\n"
        "  push_neg at h\n  exact h₂"
    )
    assert _unread("import Mathlib\n" + code)
    # mathlib4 MathlibTest/positivity.lean at 04a91371ee31, line 216: a postfix notation the parser stops at
    assert _unread("import Mathlib\nexample (a : ℤ) : 0 ≤ a⁻ := by positivity")
    # a statement it reads is read, whatever comes before it
    assert not _unread("import Mathlib\nset_option maxHeartbeats 400 in\nexample : 1 = 1 := by rfl")


def test_a_cdot_outside_parentheses_is_lean_s_error() -> None:
    # mathlib4 MathlibTest/Use.lean at 44e8fc60eabb, line 262: `use ·` is `elabBadCDot`'s error
    resp = SimRepl().handle({"cmd": MATHLIB + "example : ∃ f : Nat → Nat, f 1 = 1 := by\n  use ·"})
    first = next(m["data"] for m in resp["messages"] if m["severity"] == "error")
    assert first.startswith("invalid occurrence of `·` notation, it must be surrounded by parentheses")


def test_auto_bound_implicits_take_the_type_lean_gives_them() -> None:
    # Lean's autoImplicit (on by default): `x` is bound in front of the binders, typed by its uses; a
    # numeral beside it with nothing else makes it ℕ (lean4 tests/lean/run/rcases.lean at 4804971a77d6,
    # line 46 uses `(h : x = 3)` so)
    assert _verdict("example (h : x = 3) (h₂ : x < 4) : x < 4 := h₂", header="") == "proved"
    assert _verdict("example (h : x = 3) : x + 1 = 4 := by omega", header="") == "proved"
    assert _verdict("example (h : x = 3) : x - 5 = 0 := by omega", header="") == "proved"  # ℕ, truncated
    assert _verdict("example (h : x = 3) : x - 5 + 5 = x := by omega", header="") != "proved"
    # an ascription types it; a use that says nothing leaves it to Lean's universe-polymorphic reading
    assert _verdict("example (h : x = (3 : Int)) : x - 5 = -2 := by omega", header="") == "proved"
    assert _unread("example (h : x = y) : y = x := h.symm")
    # a negation or a decimal beside it keeps Lean's default ℕ from applying, and autoImplicit false
    # makes it Lean's error (whose first line is the simulator's)
    assert _unread("example (h : x = -1) : True := trivial")
    assert _unread("example (h : x = 1.5) : True := trivial")
    assert _unread("set_option autoImplicit false in\nexample (h : x = 3) : x = 3 := h") == [
        "Unknown identifier `x`"
    ]
    # under an `open`, a one-letter name may be a constant of the namespace: not bound
    assert _unread("open Nat in\nexample (h : x = 3) : x = 3 := h")
    # an operand of `∧ ∨ ¬ ↔` is a proposition (aesop AesopTest/NormSimp.lean at 02a999f94d3b, line 16:
    # `(h : (α ∧ β) ∨ γ)`); a binder type alone only makes it some `Sort u`
    assert (
        _verdict(
            "example (h : (α ∧ β) ∨ γ) : α ∨ γ := by\n  rcases h with ⟨a, _⟩ | c\n  · exact Or.inl a\n  · exact Or.inr c",
            header="",
        )
        == "proved"
    )
    assert (
        _verdict(
            "example (h : (α ∧ β) ∨ γ) : α := by\n  rcases h with ⟨a, _⟩ | c\n  · exact a\n  · exact c",
            header="",
        )
        != "proved"
    )
    assert _unread("example (h : False) : α := h.elim")
    # an untyped binder `{m}` is typed the same way (mathlib4 MathlibTest/cases.lean at 4aa09afd2b27, line 64)
    assert _verdict("example (n : Nat) {m} (h : m < 5) : m < 6 := by omega", header="") == "proved"
    assert _verdict("example (n : Nat) {m} (h : m < 5) : m < 4 := by omega", header="") != "proved"


def test_notation_tokens_with_a_quote_or_a_subscript() -> None:
    # Lean core's `Σ'` and `×'` (aesop AesopTest/DestructProducts.lean at b5b9e2bb45ce, line 44) and the
    # guard specifiers `:ₛ` (lean4 tests/lean/run/rcases.lean at 4804971a77d6, line 39), `:~`, `=~`;
    # Mathlib's `::ₘ` (MathlibTest/norm_num_ext.lean at 0501ce4f3771, line 347)
    src = "(h : Σ' a, p a) (q : α ×' β) guard_hyp h :ₛ 0 = y guard_target =~ t h :=~ v (1 ::ₘ {})"
    assert not lex_errors(src)
    syms = [t.text for t in lex(src) if t.kind == "sym"]
    for tok in ("Σ'", "×'", ":ₛ", "=~", ":=~", "::ₘ"):
        assert tok in syms
    # a subscript stays in an identifier, and a `'` after an unknown symbol is still ambiguous
    assert [t.text for t in lex("h₁ : x₂")] == ["h₁", ":", "x₂"]
    assert lex_errors("s ⊆'a'")


def test_unknown_notation_makes_the_statement_unread_not_an_error() -> None:
    header = "import Mathlib\n"
    assert _unread(header + "example : (1 ::ₘ 2 ::ₘ {}).sum = 3 := by norm_num")
    assert _unread(header + "example {p : ℕ → Prop} (h : Σ' a, p a) : True := trivial")
