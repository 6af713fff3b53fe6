"""The simulator against Aesop's and Lean core's test suites: each test names the record and the cause it attacks.

Each test attacks one cause by which the simulator's ``aesop`` proved what Lean's fails on:
``simp only`` closing through ``true_implies``/``true_and`` (lemmas of the default simp set only:
``AesopTest/NormSimp.lean:31``), ``destructProducts`` splitting ``↔`` (``Aesop/BuiltinRules/
DestructProducts.lean`` splits And/Prod/Exists/Subtype/Sigma only; ``↔`` hypotheses are ``subst``'s:
``Aesop/BuiltinRules/Subst.lean``, ``AesopTest/Subst.lean``), and the messages of
``aesop.smallErrorMessages`` (``Aesop/Search/Main.lean``, ``throwAesopEx``).
"""

from __future__ import annotations

import pytest

from lean_gym.sim.commands import OUTSIDE_SUBSET, run_commands
from lean_gym.sim.elab import Env
from lean_gym.sim.memo import request

HEADER = "import Aesop\nset_option aesop.smallErrorMessages true\n\n"
FAILED = "tactic 'aesop' failed, failed to prove the goal after exhaustive search."


def _errors(code: str, header: str = HEADER) -> list[str]:
    with request():
        out = run_commands(header + code, Env(), fresh=True)
    assert not out.unread, out.unread[0].data
    return [m.data for m in out.messages if m.severity == "error"]


@pytest.mark.parametrize(
    "code",
    [
        # NormSimp.lean:31: no default simp set, so `True → β` stays (it needs true_implies)
        "example {α β : Prop} (ha : α) (h : α → β) : β := by\n  aesop (rule_sets := [-builtin,-default])\n"
        "    (simp_config := { maxDischargeDepth := 0 })\n"
        "    (config := { terminal := true, useDefaultSimpSet := false })",
        # the same through `∧`: `True ∧ β` needs true_and
        "example {α β : Prop} (ha : α) (h : α ∧ β → False) (hb : β) : False := by\n"
        "  aesop (rule_sets := [-builtin,-default])\n"
        "    (config := { terminal := true, useDefaultSimpSet := false })",
        # Subst.lean: without the subst rule and simp_all, `↔` hypotheses are not used
        "example {P Q R : Prop} (h₁ : P ↔ Q) (h₂ : Q ↔ R) (h₃ : P) : R := by\n"
        "  aesop (erase Aesop.BuiltinRules.subst)\n    (config := { useSimpAll := false, terminal := true })",
    ],
)
def test_aesop_fails_where_lean_fails(code: str) -> None:
    assert _errors(code) == [FAILED]


@pytest.mark.parametrize(
    "code",
    [
        "example {α β : Prop} (ha : α) (h : α → β) : β := by\n  aesop (rule_sets := [-builtin,-default])",
        "example {P Q R : Prop} (h₁ : P ↔ Q) (h₂ : Q ↔ R) (h₃ : P) : R := by\n"
        "  aesop (config := { useSimpAll := false, terminal := true })",
        "example {P Q R : Prop} (h₁ : P ↔ Q) (h₂ : Q ↔ R) (h₃ : P) : R := by aesop",
    ],
)
def test_aesop_proves_what_lean_proves(code: str) -> None:
    assert _errors(code) == []


def test_simp_only_does_not_know_true_and() -> None:
    code = "example {p q : Prop} (hp : p) (h : p ∧ q) : q := by\n  simp only [hp] at h\n  exact h"
    errs = _errors(code, "")
    assert errs and "type mismatch" in errs[0].lower()


def test_small_error_messages_is_one_line_and_the_default_is_not() -> None:
    code = "example : False := by\n  aesop (config := { terminal := true })"
    assert _errors(code) == [FAILED]
    big = _errors(code, "import Aesop\n\n")
    assert big[0].startswith(FAILED + "\nInitial goal:\n  ⊢ False")
    nonterminal = "example : False := by\n  aesop"
    assert _errors(nonterminal) == ["tactic 'aesop' failed, made no progress"]


def test_global_aesop_rules_are_outside_the_subset() -> None:
    with request():
        out = run_commands(HEADER + "@[aesop safe]\naxiom loopy {α : Prop} : α ∨ α → α", Env(), fresh=True)
    texts = [m.data for m in (*out.unread, *out.messages) if m.severity == "error"]
    assert texts and OUTSIDE_SUBSET.search(texts[0]), texts


@pytest.mark.parametrize(
    ("code", "header"),
    [
        # (`grind` was here: issue 21 models a weak `grind`, so it is no longer outside the subset)
        ("example : 2 = 2 := by with_reducible apply_rfl", ""),
        ("example : True := by decide!", ""),
        # (`#check_simp t ~> r` was here: it is modelled now, tests/test_sim_simp_nat.py; its `!~>` form is not)
        ("#check_simp (1000 : Nat) - 400 !~>", "import Lean.Elab.CheckTactic"),
        ("add_aesop_rules safe (by simp)", "import Aesop"),
    ],
)
def test_lean_tactics_and_commands_the_simulator_lacks_are_outside_its_subset(code: str, header: str) -> None:
    """Lean has these (it would not say ``unknown tactic``): the simulator says it does not model them."""
    with request():
        out = run_commands(f"{header}\n\n{code}" if header else code, Env(), fresh=True)
    texts = [m.data for m in (*out.unread, *out.messages) if m.severity == "error"]
    assert texts and OUTSIDE_SUBSET.search(texts[0]), texts


def test_a_name_that_is_no_tactic_is_still_unknown() -> None:
    assert _errors("example : True := by frobnicate", "") == ["unknown tactic"]


def test_apply_unifies_nat_offsets_with_numerals() -> None:
    """AesopTest/Aesop.lean:80: ``Even (n + 2)`` against ``Even 20`` (Lean's Nat offset unification)."""
    code = (
        "example (Even : Nat → Prop) (zero : Even 0)\n    (plusTwo : ∀ n, Even n → Even (n + 2)) : Even 20 := by\n"
        "  aesop"
    )
    assert _errors(code) == []
    # an offset larger than the numeral does not unify
    assert _errors("example (E : Nat → Prop) (h : ∀ n, E (n + 3)) : E 2 := by\n  apply h", "")


@pytest.mark.parametrize(
    ("code", "ok"),
    [
        ("example (x : Nat) (h : x < 5) : x + 1 ≤ 5 := by decide +revert", True),  # decideTactic.lean:113
        ("example (x : Nat) (h : x < 6) : x + 1 ≤ 5 := by decide +revert", False),
        ("example (x : Nat) (h : x < 5) : x + 1 ≤ 5 := by decide", False),
    ],
)
def test_decide_revert(code: str, ok: bool) -> None:
    errs = _errors(code, "")
    assert (errs == []) is ok, errs
    if code.endswith("by decide"):
        assert errs[0].startswith("Expected type must not contain free variables\n  x + 1 ≤ 5")


@pytest.mark.parametrize(
    ("code", "ok"),
    [
        (
            "example : Unit := by\n  aesop",
            True,
        ),  # AesopTest/Logic.lean:14 (builtin `safe 0 apply PUnit.unit`)
        ("example : Unit := by\n  aesop (add safe PUnit.unit) (rule_sets := [-default, -builtin])", True),
        # PUnit.unit does not prove `True`; without simp nothing builtin does (DroppedMVars.lean:27 adds True.intro)
        ("example : True := by\n  aesop (config := { enableSimp := false, terminal := true })", False),
        ("example : True := by\n  aesop (add safe True.intro) (config := { enableSimp := false })", True),
        # `(add cases Iff)` still destructs ↔ (destructProducts does not)
        (
            "example {p q : Prop} (h : p ↔ q) (hp : p) : q := by\n  aesop (add safe cases Iff)"
            " (erase Aesop.BuiltinRules.subst) (config := { useSimpAll := false, terminal := true })",
            True,
        ),
        # local simp rule from a hypothesis (NormSimp.lean:13) and a tactic rule ending in `done` (LocalTactic.lean:32)
        (
            "example {α : Prop} (h : α) : α := by\n  aesop (rule_sets := [-builtin,-default]) (add h norm simp)",
            True,
        ),
        ("example (m n : Nat) : m * n = n * m := by\n  aesop (add safe (by apply Nat.mul_comm; done))", True),
    ],
)
def test_unit_true_iff_and_local_rules(code: str, ok: bool) -> None:
    errs = _errors(code)
    assert (errs == []) is ok, errs


def test_done_and_skip_succeed_on_no_goals() -> None:
    assert _errors("example : 2 = 2 := by\n  rfl; done", "") == []
    assert _errors("example : 2 = 2 := by\n  rfl; skip", "") == []
    assert _errors("example : 2 = 2 := by\n  rfl; rfl", "")  # a tactic that needs a goal still fails


@pytest.mark.parametrize(
    "code",
    [
        # Lean core tests/lean/run/induction1.lean: induction on proofs of ∨ / ↔ (the record's `by` block at
        # column 0 is indented here: newer Lean rejects it, as the REPL's line_breaks transcript records)
        "theorem t {p q : Prop} (h : p ∨ q) : q ∨ p := by\n  induction h with\n"
        "  | inr h2 => exact Or.inl h2\n  | inl h1 => exact Or.inr h1",
        "theorem t {p q : Prop} (h₁ : p ∨ q) (h₂ : p ↔ q) (h₃ : p) : q := by\n"
        "  induction h₂ using Iff.casesOn with\n  | intro h _ =>\n    exact h h₃",
        # rintro/obtain type ascriptions change the hypothesis up to defeq (n = m + 0 is n = m)
        "theorem t (n m o : Nat) : n = m + 0 → m = o → m = o := by\n  intro (h₁ : n = m) h₂\n"
        "  rw [← h₁, ← h₂]\n  assumption",
        "example : True := by\n  obtain ⟨n : Nat, _h : n = n, -⟩ : ∃ n : Nat, n = n ∧ True\n"
        "  · exact ⟨0, rfl, trivial⟩\n  trivial",
    ],
)
def test_lean_core_induction_and_patterns(code: str) -> None:
    assert _errors(code, "") == []


@pytest.mark.parametrize(
    "code",
    [
        # an ascription that is not definitionally equal is refused (n = m + 1 is not n = m)
        "example (n m : Nat) : n = m + 1 → True := by\n  intro (h : n = m)\n  trivial",
        # a column-0 line after a proof whose block is indented still ends the command
        "example : True := by\n  trivial\nfoo",
        # a `by` block at column 0 is not one (REPL test/line_breaks.in)
        "theorem foo : 1 = 1 := by\nrfl",
        # induction on a proposition with another type's eliminator is not taken as cases
        "example {p q : Prop} (h : p ∨ q) : q ∨ p := by\n  induction h using Iff.casesOn with\n"
        "  | intro a b => exact Or.inl a",
    ],
)
def test_lean_core_induction_and_patterns_refuse(code: str) -> None:
    with request():
        out = run_commands(code, Env(), fresh=True)
    assert [m for m in (*out.unread, *out.messages) if m.severity == "error"]


@pytest.mark.parametrize(
    ("code", "ok"),
    [
        # Lean core tests/lean/run/simpUnusedArgs.lean
        ("example (a : Nat) (h : a = 1) : 0 < a := by simp -failIfUnchanged [h]", True),
        ("example (a : Nat) (_h : a = 1) : True := by simp -failIfUnchanged [_h]", True),
        ("example (a : Nat) (h : a = 1) : 0 < a := by simp -failIfUnchanged", False),  # unsolved goals
        ("def some_def := 1\n\nexample : 0 < some_def := by simp [some_def, (some_def.eq_def)]", True),
        ("def some_def := 1\n\nexample : 0 < some_def := by simp [some_def.eq_def]", True),
        (
            "example (a : Nat) (h : a = 1) : 0 < a := by simp +decide [h]",
            False,
        ),  # an option it does not model
    ],
)
def test_simp_config_flags_and_equation_lemmas(code: str, ok: bool) -> None:
    errs = _errors(code, "")
    assert (errs == []) is ok, errs


def test_aesop_safe_prefix_after_exists_and_split() -> None:
    """AesopTest/Indent.lean: simp's exists_and_right splits the goal, one rule application leaves two ∃."""
    code = (
        "example : ∃ n : Nat, n ^ 2 = 4 ∧ ∃ n : Nat, n ^ 2 = 9 ∧ True := by\n  aesop\n"
        "    (config := { maxRuleApplications := 1, warnOnNonterminal := false })\n  (exists 2)\n  (exists 3)"
    )
    assert _errors(code) == []


def test_fail_with_a_message_and_pattern_matching_definitions() -> None:
    # Lean core tests/lean/run/decideNative.lean:57: `fail "msg"` prints the message and the goal
    assert _errors('example : False := by first | decide | fail "second case"', "") == [
        "second case\n⊢ False"
    ]
    with request():
        out = run_commands("def foo : Nat → Nat\n| 0 => 0\n| n+1 => foo n + 1", Env(), fresh=True)
    texts = [m.data for m in (*out.unread, *out.messages) if m.severity == "error"]
    assert texts and OUTSIDE_SUBSET.search(texts[0]), texts


def test_an_attribute_on_its_own_line_belongs_to_the_declaration() -> None:
    assert _errors("@[simp]\ntheorem foo : 1 = 1 := rfl\n\nexample : 1 = 1 := foo", "") == []
    # irreducibility is not modelled (the simulator would unfold what Lean may not): outside the subset
    with request():
        out = run_commands(
            "@[irreducible]\ndef bar : Nat := 37\n\nexample : bar = 37 := rfl", Env(), fresh=True
        )
    texts = [m.data for m in (*out.unread, *out.messages) if m.severity == "error"]
    assert texts and OUTSIDE_SUBSET.search(texts[0]), texts
