"""The simulator's error messages in Lean's words, and the Lean-core syntax it reads (issue 20).

Each test names the cause it pins and the record it follows. Where the corpus holds Lean's text, the test
compares the simulator's first error with the recorded one whole (whitespace collapsed, as ``#guard_msgs``
compares); next to each, an attack: input built so that the new path would prove what Lean rejects.
"""

from __future__ import annotations

import functools

import pytest
from mathlib_header import MathlibSimBackend

from lean_gym.backends import SimBackend
from lean_gym.conformance import load_cases
from lean_gym.conformance.corpus import Case
from lean_gym.conformance.runner import normalise_message
from lean_gym.lean.result import CheckResult


@pytest.fixture(scope="module")
def sim() -> SimBackend:
    return SimBackend()


@pytest.fixture(scope="module")
def msim() -> MathlibSimBackend:
    return MathlibSimBackend()


@functools.cache
def _cases() -> dict[str, Case]:
    return {c.id: c for c in load_cases(kinds=("command",))}


def _run(sim: SimBackend, case: Case) -> CheckResult:
    return sim.check(case.code, header=case.header)


def first_error(result: CheckResult) -> str:
    assert result.status == "error", result
    return result.errors[0].data


# Each: the corpus case, whose record (its `source`) holds Lean's whole first error.
RECORDED = [
    # Tactic `rfl`'s wording: tests/elab/rflTacticErrors.lean (leanprover/lean4 at de872f84), line 24
    "lean4.basic.0001",
    # `decide` on free variables, the hint without its final period: tests/elab/decideTactic.lean
    # (leanprover/lean4 at 41e06955), line 109
    "lean4.decide.0006",
    # `simpa using h`: the term is `h` itself, the types have no `: Prop`: tests/elab/4101.lean
    # (leanprover/lean4 at f9e0c705), line 16
    "lean4.simp.0042",
    # `rel` on a goal that is no relation: MathlibTest/GCongr/inequalities.lean (at 0c9bc5e5), line 113
    "mathlib.gcongr.0034",
    # a coefficient of another type: MathlibTest/linear_combination.lean (at f16a9c0e), line 327
    "mathlib.linear_combination.0051",
    # `simp_rw` with a rule left after the goal closed: MathlibTest/SimpRw.lean (at 2bfb8668), line 51
    "mathlib.simp.0029",
    # `·` outside parentheses: MathlibTest/Use.lean (at 44e8fc60), line 262
    "mathlib.use.0057",
    # `#check show False by native_decide`: tests/lean/run/decideNative.lean (at 1d6e5f68), line 89
    "lean4.native_decide.0006",
    # `choose` with a type written for what it makes: MathlibTest/choose.lean (at 112f03d1), lines 135, 147
    "mathlib.choose.0031",
    "mathlib.choose.0032",
    # `induction' m generalizing m`: MathlibTest/cases.lean (at 4aa09afd), line 141 (see below)
    "mathlib.cases.0028",
]


@pytest.mark.parametrize("case_id", RECORDED)
def test_first_error_is_leans_whole_text(sim: SimBackend, case_id: str) -> None:
    case = _cases()[case_id]
    assert case.expect == "error" and case.lean_errors, case_id
    got = first_error(_run(sim, case))
    assert normalise_message(got) == normalise_message(case.lean_errors[0])


def test_check_show_reports_the_proof_then_its_type(sim: SimBackend) -> None:
    # decideNative.lean records the info after the error: the failed proof is `sorry`
    case = _cases()["lean4.native_decide.0006"]
    result = _run(sim, case)
    texts = [(m.severity, m.data) for m in result.messages]
    assert texts == [(m["severity"], m["text"]) for m in case.messages]


# ------------------------------------------------------------------------------------------- rfl


def test_rfl_still_closes_what_is_definitionally_equal(sim: SimBackend) -> None:
    assert sim.check("example : 2 + 2 = 4 := by rfl").status == "proved"
    assert first_error(sim.check("example : 2 + 2 = 5 := by rfl")).startswith(
        "Tactic `rfl` failed: The left-hand side\n  2 + 2\nis not definitionally equal to the right-hand side\n  5"
    )


# ------------------------------------------------------------------------------------------- rel


@pytest.mark.parametrize(
    "stmt",
    [
        "(x : ℕ) (h : x ≤ 3) : x ≠ 3",  # `≠` unfolds to `¬(x = 3)`: one argument
        "(p : Prop) (h : p) : ¬¬p",
        "(x : ℕ) (h : x ≤ 3) : True",
        "(x : ℕ) (h : x ≤ 3) : ∀ y : ℕ, y ≤ y",
    ],
)
def test_rel_refuses_what_is_no_relation(msim: MathlibSimBackend, stmt: str) -> None:
    assert first_error(msim.check(f"example {stmt} := by\n  rel [h]")) == "rel failed, goal not a relation"


def test_rel_on_a_relation_still_substitutes_or_lists_what_is_left(msim: MathlibSimBackend) -> None:
    ok = "example (a b c : ℝ) (h : a ≤ b) : a + c ≤ b + c := by\n  rel [h]"
    assert msim.check(ok).status == "proved"
    # no @[gcongr] lemma relates `a % 3` and `b % 3`: the goal itself is not justified
    bad = "example (a b : ℕ) (h : a ≤ b) : a % 3 ≤ b % 3 := by\n  rel [h]"
    msg = first_error(msim.check(bad))
    assert msg.startswith("rel failed, cannot prove goal by 'substituting' the listed relationships.")
    assert msg.endswith("were:\na % 3 ≤ b % 3")


# --------------------------------------------------------------------------------------- simp_rw


def test_simp_rw_closes_with_its_last_rule(msim: MathlibSimBackend) -> None:
    code = "example {n : ℕ} (hn : n = 0) (hm : n + 1 = 1) : n = 0 := by\n  simp_rw [hn]"
    assert msim.check(code).status == "proved"


def test_simp_rw_rule_after_the_goal_closed_is_an_error(msim: MathlibSimBackend) -> None:
    # the goal closes after the first rule; Lean's second `simp only [hn]` finds no goal
    code = "example {n : ℕ} (hn : n = 0) : n = 0 := by\n  simp_rw [hn, hn]"
    assert first_error(msim.check(code)) == "No goals to be solved"


# ---------------------------------------------------------------------------- linear_combination


@pytest.mark.parametrize(
    ("combo", "lemma"),
    [
        ("h1 + (0 : ℝ) * h2", "mul_const_eq h2 0"),
        ("h1 + h2 * (0 : ℝ)", "mul_eq_const h2 0"),
        ("h1 + h2 / (1 : ℝ)", "div_eq_const h2 1"),
        ("h1 + ((0 : ℚ) - h2) + h2", "sub_const_eq h2 0"),
        ("h1 - (0 : ℚ)", "sub_eq_const h1 0"),
    ],
)
def test_linear_combination_coefficient_of_another_type(
    msim: MathlibSimBackend, combo: str, lemma: str
) -> None:
    code = (
        "example (x y : ℤ) (h1 : x * y + 2 * x = 1) (h2 : x = y) : x * y + 2 * x = 1 := by\n"
        f"  linear_combination {combo}"
    )
    msg = first_error(msim.check(code))
    assert msg.startswith("Application type mismatch: The argument\n")
    assert msg.endswith(f"in the application\n  Mathlib.Tactic.LinearCombination.{lemma}")


@pytest.mark.parametrize(
    "combo",
    [
        "h1 + (0 : ℤ) * h2",  # the goal's own type
        "h1 + (0 : ℕ) * h2",  # `mul_const_eq h2 (0 : ℕ)` at ℤ: Lean coerces the argument (`↑(0 : ℕ)`)
    ],
)
def test_linear_combination_coefficient_that_fits_still_works(msim: MathlibSimBackend, combo: str) -> None:
    code = (
        "example (x y : ℤ) (h1 : x * y + 2 * x = 1) (h2 : x = y) : x * y + 2 * x = 1 := by\n"
        f"  linear_combination {combo}"
    )
    assert msim.check(code).status == "proved"


# ------------------------------------------------------------------------------------------- `·`


def test_cdot_inside_parentheses_is_not_called_an_invalid_occurrence(sim: SimBackend) -> None:
    # Lean reads `(· + 1)` (the simulator does not): its refusal must not claim Lean's error
    msg = first_error(sim.check("example : ∃ f : Nat → Nat, f 1 = 2 := ⟨(· + 1), rfl⟩"))
    assert "invalid occurrence" not in msg


# ---------------------------------------------------------------------------------- show … by/from


@pytest.mark.parametrize(
    "code",
    [
        "example (p : Prop) (h : p) : p := show p from h",
        "example (p : Prop) (h : p) : p := by exact show p from h",
        "example : 2 + 2 = 4 := show 2 + 2 = 4 by decide",
        "example (p q : Prop) (hp : p) (hq : q) : p ∧ q := ⟨show p from hp, show q by exact hq⟩",
    ],
)
def test_show_terms_prove_what_they_show(sim: SimBackend, code: str) -> None:
    assert sim.check(code).status == "proved"


@pytest.mark.parametrize(
    "code",
    [
        "example (p q : Prop) (h : p) : q := show p from h",  # shows another proposition
        "example (p q : Prop) (h : p) : q := show q from h",  # the body does not prove it
        "example : 2 + 2 = 5 := show 2 + 2 = 5 by decide",
        "example (p : Prop) (h : p) : p := show p",  # Lean's `show` term needs `from` or `by`
        "example (p : Prop) (h : p) : p := show p from sorry",
    ],
)
def test_show_terms_prove_nothing_else(sim: SimBackend, code: str) -> None:
    assert sim.check(code).status in ("error", "sorry")


def test_check_show_of_a_proof_that_succeeds_is_outside_the_subset(sim: SimBackend) -> None:
    # Lean prints the proof term, which the simulator does not build: it says so instead of guessing
    msg = first_error(sim.check("#check show True by trivial"))
    assert "outside the simulator's Lean subset" in msg


# --------------------------------------------------------------------- alternatives without `with`
# tests/lean/unsolvedIndCases.lean (leanprover/lean4 at 41539a77) writes `cases x` and then `| zero => …`
# with no `with`; its .expected.out shows goals with `Nat.zero`, a display Lean dropped at v4.8.0-rc1 (the
# REPL's test outputs at 6d5b2c3). Today's `inductionAlts` begins with " with" (src/Init/Tactics.lean), so
# the simulator, which follows the pinned version, does not read the old form, and the records are dated.


def test_records_of_alternatives_without_with_are_dated_before_v4_8() -> None:
    dated = [c for c in _cases().values() if c.source["commit"].startswith("41539a7725a8")]
    assert len(dated) == 5
    assert {c.lean_version for c in dated} == {"before v4.8.0-rc1 (lean4 development commit 41539a7725a8)"}


def test_alternatives_without_with_prove_nothing(sim: SimBackend) -> None:
    code = "theorem ex1 (x : Nat) : 0 + x = x := by\n  cases x\n  | zero => rfl\n  | succ y => simp"
    assert sim.check(code).status == "error"
    with_alts = "theorem ex1 (x : Nat) : 0 + x = x := by\n  cases x with\n  | zero => rfl\n  | succ y => simp"
    assert sim.check(with_alts).status == "proved"


def test_records_with_column_zero_tactic_blocks_are_dated_before_v4_31() -> None:
    # tests/lean/run/induction1.lean at 031a99a6 compiles `:= by` then `induction h` at column 0; from
    # v4.31.0-rc1 Lean says "expected command" there (the REPL's line_breaks transcript at a6c92b4e)
    dated = [c for c in _cases().values() if c.source["commit"].startswith("031a99a65d27")]
    assert len(dated) == 19
    assert {c.lean_version for c in dated} == {"before v4.31.0-rc1 (lean4 development commit 031a99a65d27)"}


def test_a_column_zero_tactic_block_proves_nothing(sim: SimBackend) -> None:
    code = "theorem foo : 1 = 1 := by\nrfl"
    assert first_error(sim.check(code)) == "unsolved goals\n⊢ 1 = 1"


# ------------------------------------------------------------------------- induction' generalizing
# Mathlib/Tactic/Cases.lean's `induction'`: the target (or what it depends on) cannot be generalized, a
# hypothesis that depends on the target is generalized anyway; MathlibTest/cases.lean (at 4aa09afd), line 141


@pytest.mark.parametrize(
    ("gen", "msg"),
    [
        ("h", "unnecessary 'generalizing' argument, variable 'h' is generalized automatically"),
        # past the checks: the simulator does not revert and re-introduce, and says so
        ("n", "`induction' … generalizing` is outside the simulator's Lean subset"),
    ],
)
def test_induction_prime_generalizing_is_read_not_ignored(
    msim: MathlibSimBackend, gen: str, msg: str
) -> None:
    # before, `generalizing h` was read as two more names for the `succ` case and silently dropped
    code = (
        "example (m n : ℕ) (h : m ≤ n) : m ≤ n + 1 := by\n"
        f"  induction' m with k ih generalizing {gen}\n  all_goals omega"
    )
    assert first_error(msim.check(code)) == msg


def test_simp_rw_at_a_hypothesis_never_rewrites_the_goal(msim: MathlibSimBackend) -> None:
    # `simp_rw [hn] at h2` rewrites `h2` only (Mathlib's SimpRw.lean passes the location to each
    # `simp only`); the goal `n = 0` stays open in Lean. Before, the simulator rewrote the goal and proved it.
    code = "example (n m : ℕ) (hn : n = 0) (h2 : m = n) : n = 0 := by\n  simp_rw [hn] at h2"
    assert msim.check(code).status == "error"
