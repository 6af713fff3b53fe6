"""The best-first baseline on LeanTactic-v0 (simulator)."""

from __future__ import annotations

from lean_gym.envs.tactic_env import LeanTacticEnv
from lean_gym_agents.best_first import SATP_TACTICS, BestFirstArgs, BestFirstSearch

MATHLIB = "import Mathlib"  # the statements use ℕ and ℝ, the search Mathlib's tactics
EASY = [
    {
        "name": "t_hyp",
        "formal_statement": "theorem t_hyp (a b : ℕ) (h : a = b) : b = a := by\n",
        "header": MATHLIB,
    },
    {
        "name": "t_lin",
        "formal_statement": "theorem t_lin (x y : ℝ) (h : x < y) : x < y + 1 := by\n",
        "header": MATHLIB,
    },
]
FALSE = {
    "name": "t_false",
    "formal_statement": "theorem t_false (x : ℕ) : x + 1 = x := by\n",
    "header": MATHLIB,
}


def test_candidates_are_the_24_satp_tactics_then_lemmas_and_hypotheses() -> None:
    assert len(SATP_TACTICS) == 24 and len(set(SATP_TACTICS)) == 24
    cands = BestFirstSearch().candidates(["x : ℕ\nh₀ : x = 1\n⊢ x < 2"], ["Nat.lt_succ_self"])
    assert cands[:24] == list(SATP_TACTICS)
    assert cands[24:] == [
        "apply Nat.lt_succ_self",
        "rw [Nat.lt_succ_self]",
        "simp only [Nat.lt_succ_self]",
        "apply h₀",
        "rw [h₀]",
        "simp only [h₀]",
    ]


def test_proves_easy_theorems_with_oracle_confirmed_proofs() -> None:
    env = LeanTacticEnv(backend="sim", theorems=EASY)
    search = BestFirstSearch()
    for i in range(len(EASY)):
        r = search.search(env, i)
        assert r.proved and r.backend == "sim" and r.proof is not None
        assert env.oracle.judge(env.targets[i], r.proof).accepted


def test_respects_its_budget_on_a_false_statement() -> None:
    env = LeanTacticEnv(backend="sim", theorems=[FALSE])
    r = BestFirstSearch(BestFirstArgs(max_expansions=3, max_tactic_calls=50)).search(env, 0)
    assert not r.proved and r.proof is None
    assert r.tactic_calls <= 50 and r.expansions <= 3
