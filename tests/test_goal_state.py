"""Goal states and SATP's theorem-form prompt: built as SATP builds it, read back from both forms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_gym.data import (
    MINIF2F_SAMPLE,
    Hypothesis,
    goal_state_text,
    load_theorems,
    parse_goal_state,
    parse_theorem_form,
    satp_formal_statement,
    satp_prompt,
)

RECORDED = json.loads((Path(__file__).parent / "data" / "satp_formal_statements.json").read_text("utf-8"))


def test_the_recorded_strings_name_their_source() -> None:
    src = RECORDED["source"]
    assert src["repository"] == "ChristianZ97/LeanSATP" and len(src["commit"]) == 40
    assert len(RECORDED["cases"]) >= 8


@pytest.mark.parametrize("case", RECORDED["cases"], ids=lambda c: c["why"][:40])
def test_prompt_is_byte_for_byte_satps(case: dict) -> None:
    assert satp_formal_statement(case["goal"], case["hypotheses"]) == case["formal_statement"]
    # the same through Hypothesis objects (a missing name is the empty name)
    hyps = [Hypothesis(h.get("name", ""), h.get("type", "")) for h in case["hypotheses"]]
    assert satp_formal_statement(case["goal"], hyps) == case["formal_statement"]


def test_satps_own_test_string() -> None:
    # python/tests/test_service.py of LeanSATP (commit 202aa7f) asserts these lines for goal "True"
    assert satp_formal_statement("True") == "theorem satp_goal\n  : True := by"


def test_the_prompt_from_a_goal_state_is_the_prompt_from_its_hypotheses() -> None:
    goal = "x y : ℝ\nh₀ : x + y = 10\nh₁ : x - y = 2\n⊢ x = 6"
    case = RECORDED["cases"][1]
    assert satp_prompt(goal) == case["formal_statement"]
    assert satp_prompt(goal, max_bytes=30) == case["formal_statement"].encode()[:30].decode()
    # a cut inside a multi-byte character drops the character, never raises
    cut = satp_prompt("x : ℝ\n⊢ 0 ≤ x", max_bytes=len(b"theorem satp_goal\n  (x : ") + 1)
    assert cut.endswith("(x : ")


@pytest.mark.parametrize("source", ["sim", MINIF2F_SAMPLE])
def test_goal_states_and_statements_of_the_theorem_sets_round_trip(source: str) -> None:
    splits = ("test", "train") if source == "sim" else ("test", "valid")
    thms = [t for s in splits for t in load_theorems(source, split=s, limit=200) if t.goal]
    assert len(thms) >= 8
    for t in thms:
        hyps, target = parse_goal_state(t.goal)
        assert goal_state_text(hyps, target) == t.goal, t.name
        # the statement's binders are the goal's hypotheses (Lean's printer may respell a type: miniF2F's
        # `∀ x : ℝ, …` is printed `∀ (x : ℝ), …`; the simulator prints the source)
        stated, goal = parse_theorem_form(t.formal_statement)
        assert [h.name for h in stated] == [h.name for h in hyps], t.name
        if source == "sim":
            assert (stated, goal) == (hyps, target), t.name


def test_goal_state_reader_handles_cases_lets_wrapped_types_and_more_goals() -> None:
    text = "case h\nn : ℕ\nm : ℕ := 2\nh : n +\n    m = 3\n⊢ n ≤\n    3\n\ncase g\nk : ℕ\n⊢ k = k"
    hyps, target = parse_goal_state(text)
    assert hyps == [Hypothesis("n", "ℕ"), Hypothesis("m", "ℕ"), Hypothesis("h", "n +\n    m = 3")]
    assert target == "n ≤\n    3"
    assert parse_goal_state("True") == ([], "True")


def test_theorem_form_reader_reads_binders_with_lean_s_lexer() -> None:
    text = (
        "theorem satp_goal\n  (x y : ℝ) {n : ℕ} [inst : Foo x] [Bar]\n  (h : (x : ℝ) ≤ y) -- a : comment\n"
        '  /- (z : ℕ) -/ : x = y ∧ "a := by" = "b" := by\n  aesop'
    )
    hyps, goal = parse_theorem_form(text)
    assert [h.name for h in hyps] == ["x", "y", "n", "inst", "h"]
    assert hyps[-1].type == "(x : ℝ) ≤ y"
    assert goal == 'x = y ∧ "a := by" = "b"'
    assert parse_theorem_form("example : True := by") == ([], "True")


@pytest.mark.parametrize(
    "text",
    [
        "def f := 1",
        "theorem t : True",
        "theorem t (x ℕ) : True := by",
        "theorem t (x : ℕ : True := by",
        "theorem t (x : ℕ) := by",
        'theorem t : "unterminated := by',
        "theorem t :  := by",
    ],
)
def test_theorem_form_reader_refuses_other_shapes(text: str) -> None:
    with pytest.raises(ValueError, match="formal_statement"):
        parse_theorem_form(text)


_NAME = st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_'₀-₉]{0,6}", fullmatch=True)
_TYPE = st.from_regex(r"[a-zA-Z0-9 +*<≤=()ℝℕ∀,:]{1,20}", fullmatch=True).filter(
    lambda t: bool(t.strip()) and ":=" not in t  # `name : type := value` is a let: its value is dropped
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_NAME, _TYPE), max_size=6), _TYPE)
def test_goal_state_text_reads_back_and_keeps_satps_prompt(pairs: list[tuple[str, str]], goal: str) -> None:
    hyps = [Hypothesis(n, t.strip()) for n, t in pairs]
    text = goal_state_text(hyps, goal)
    assert parse_goal_state(text) == (hyps, goal.strip())
    assert satp_prompt(text) == satp_formal_statement(goal, hyps)
