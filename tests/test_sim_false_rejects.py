"""Honest proofs the simulator used to refuse: ``refine`` holes, ``Eq.symm`` and friends as proof terms.

Each accepted form comes with its attack: the same shape on a false statement (or with the pieces in the
wrong place) is still refused, so accepting honest work opens no hole.
"""

from __future__ import annotations

import pytest

from lean_gym.lean.protocol import classify_response
from lean_gym.sim import SimRepl

HONEST = [
    "example (a b : ℕ) (h1 : a = 1) (h2 : b = 2) : a = 1 ∧ b = 2 := by\n  refine ⟨?_, ?_⟩\n  · exact h1\n  · exact h2",
    "example (p q : Prop) (hp : p) (hq : q) : p ↔ q := by\n  refine ⟨fun _ => ?_, fun _ => ?_⟩\n  · exact hq\n  · exact hp",
    "example (p q : Prop) (hp : p) (hq : q) : p ↔ q := by\n  refine ⟨?_, ?_⟩\n  · intro _\n    exact hq\n  · intro _\n    exact hp",
    "example : ∃ x : ℕ, x + 1 = 3 ∧ x = 2 := by\n  refine ⟨2, ?_, ?_⟩\n  · rfl\n  · rfl",
    "example : ∃ x : ℕ, x + 1 = 3 := by\n  refine ⟨2, ?_⟩\n  rfl",
    "example (p q : Prop) (hp : p) : p ∧ (q → q) := by\n  refine ⟨hp, fun hq => ?_⟩\n  exact hq",
    "example (x : ℝ) (h : 0 < x) : 0 < x ∧ 0 ≤ x := by\n  refine ⟨h, ?_⟩\n  linarith",
    "example (a b : ℕ) (h : a = b) : b = a := Eq.symm h",
    "example (a b : ℕ) (h : a = b) : b = a := h.symm",
    "example (a b : ℝ) (h : a = b) : b = a := by exact Eq.symm h",
    "example (a b : ℕ) (h : a = b) : b = a := by\n  have h' := Eq.symm h\n  exact h'",
    "example (a b : ℤ) (h : a = b) : b = a := by\n  apply Eq.symm\n  exact h",
    "example (a b c : ℕ) (h : a = b) (h2 : b = c) : a = c := Eq.trans h h2",
    "example (a b c : ℚ) (h : a = b) (h2 : b = c) : a = c := h.trans h2",
    "example (a b : ℕ) (h : a ≠ b) : b ≠ a := Ne.symm h",
    "example (a b : ℝ) (h : a ≠ b) : b ≠ a := h.symm",
    "example (a b : ℕ) (h : a = b) : b = a := by\n  rw [eq_comm]\n  exact h",
    "example (p q : Prop) (h : p ↔ q) : q ↔ p := Iff.symm h",
    "example (a b : ℝ) (h₀ : a + b = 5) (h₁ : a - b = 1) : a = 3 ∧ b = 2 := by\n  refine' ⟨_, _⟩ <;> linarith",
    "example (a b : ℝ) (h₀ : a + b = 5) (h₁ : a - b = 1) : a = 3 ∧ b = 2 := by\n  apply And.intro\n  · linarith\n  · linarith",
    "example (x : ℝ) (h : x * (x - 2) = 0) (hx : x ≠ 0) : x = 2 := by\n  rcases mul_eq_zero.mp h with h1 | h1\n  · exact absurd h1 hx\n  · linarith",
]

ATTACKS = [
    # holes land on the right goals, in order, in the right context
    "example (a b : ℕ) (h1 : a = 1) (h2 : b = 2) : a = 1 ∧ b = 2 := by\n  refine ⟨?_, ?_⟩\n  · exact h2\n  · exact h1",
    "example (a b : ℕ) (h1 : a = 1) : a = 1 ∧ b = 2 := by\n  refine ⟨?_, ?_⟩\n  · exact h1",
    "example (a b : ℕ) (h1 : a = 1) : a = 1 ∧ b = 2 := by\n  refine ⟨?_, ?_⟩ <;> assumption",
    "example : ∃ x : ℕ, x + 1 = 3 := by\n  refine ⟨3, ?_⟩\n  rfl",
    "example : ∃ x : ℕ, x + 1 = 3 ∧ x = 3 := by\n  refine ⟨2, ?_, ?_⟩ <;> rfl",
    "example (x : ℕ) : ∀ y : ℕ, y = x := by\n  refine fun x => ?_\n  rfl",
    "example (x : ℕ) : ∀ y : ℕ, y = x := fun x => rfl",
    "example (x : ℕ) (h : x = 0) : ∀ y : ℕ, y = x → y = 1 := fun x hx => hx.trans h",
    "example (a b : ℕ) : b = a := by\n  exact ?_",
    "example (a b : ℕ) : b = a := ?_",
    "example (a b : ℕ) : b = a := by\n  refine ?_",
    # the new library lemmas are only as strong as they say
    "example (a b : ℕ) (h : a = b) : a = a + 1 := Eq.symm h",
    "example (a b c : ℕ) (h : a = b) (h2 : c = b) : a = c := Eq.trans h h2",
    "example (a b : ℕ) (h : a ≤ b) : b ≤ a := Eq.symm h",
    "example (a b : ℕ) (h : a = b) : b ≠ a := Ne.symm h",
    "example (a b : ℕ) (h : a ≠ b) : a ≠ a := Ne.symm h",
    "example (a b : ℕ) (h : a < b) : b < a := by\n  rw [eq_comm] at h\n  exact h",
    "example (p q : Prop) (h : p → q) : q ↔ p := Iff.symm h",
    "example (a b : ℕ) (h : a = 0 ∧ b = 1) : a + b = 1 := by\n  refine' _",
    "example (a b : ℝ) (h₀ : a + b = 5) : a = 3 ∧ b = 2 := by\n  refine' ⟨_, _⟩ <;> linarith",
    "example (a b : ℕ) (h : a ≠ b) : False := by\n  apply h",
    "example (x : ℝ) (h : x * (x - 2) = 0) : x = 2 := by\n  rcases mul_eq_zero.mp h with h1 | h1 <;> linarith",
    "example (a b : ℕ) : a - (a + b) = b := by simp",
    "example (a b : ℕ) : a + b - (a + 1) = b := by simp",
    # a proof term whose type has a premise is no unconditional rewrite rule (it used to turn False into True)
    "example (p : Prop) (h : ¬p) : False := by simp [(h)]",
    "example (x : ℕ) : False := by simp [(Nat.lt_irrefl x)]",
    "example (p : Prop) (h : p → False) : False := by simp [(h)]",
    "example (p : Prop) (a b : ℕ) (h : p → a = b) : a = b := by simp [(h)]",
    "example (a b : ℕ) (h : a ≠ b) : False := by simp [(h)]",
    "example (x : ℕ) (h : x ≠ 0 → x = 5) : x = 5 := by simp [(h)]",
    "example (x : ℕ) (h : ∀ y : ℕ, y ≠ 0 → y = 5) : x = 5 := by simp [(h)]",
]


# Both lists are Mathlib statements and proofs: they are checked under `import Mathlib`, as Lean would need.
MATHLIB = "import Mathlib\n"


@pytest.mark.parametrize("code", HONEST)
def test_honest_proof_is_accepted(code: str) -> None:
    resp = SimRepl().handle({"cmd": MATHLIB + code})
    assert classify_response(resp) == "proved", resp


@pytest.mark.parametrize("code", ATTACKS)
def test_attack_is_refused(code: str) -> None:
    resp = SimRepl().handle({"cmd": MATHLIB + code})
    assert classify_response(resp) != "proved", code


def test_core_lemmas_are_true() -> None:
    from test_sim_soundness import _lemma_counterexample, _Unsupported

    from lean_gym.sim.library import CORE, lookup_decls

    decls = lookup_decls()
    checked, false = 0, []
    for text, _, _ in CORE:
        name = text.split()[1]
        decl = decls[name]
        for tymap in [{"α": t} for _, ts in decl.tyvars for t in sorted(ts)] or [{}]:
            try:
                env = _lemma_counterexample(decl, tymap)
            except _Unsupported:
                continue
            checked += 1
            if env is not None:
                false.append(f"{name} at {tymap}: false at {env}")
    assert checked >= 15 and not false, (checked, false)


def test_refine_holes_become_goals_in_order() -> None:
    repl = SimRepl()
    resp = repl.handle(
        {"cmd": "example (a b : Nat) : a = a ∧ b + 0 = b := by\n  refine ⟨?_, ?_⟩\n  all_goals sorry"}
    )
    goals = [s["goal"] for s in resp["sorries"]]
    assert goals == ["a b : Nat\n⊢ a = a", "a b : Nat\n⊢ b + 0 = b"]
