"""The simulator's trusted kernel: only :mod:`lean_gym.sim.kernel` marks a goal closed, and only from a
justification it re-checks against the goal.

Attacks: a registered tactic that leaves no goal without the kernel; forged justifications of every kind
(each refused directly and through a rogue tactic, where the REPL layer answers ``internal simulator error``,
never ``proved``); the kernel's key asked for twice; a sealed goal replayed from the memo. Coverage: over
the whole conformance corpus, every tactic family closes its goals through the kernel, and every term head
met in a goal is declared in :data:`lean_gym.sim.terms.TERM_HEADS`.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Iterator
from fractions import Fraction

import pytest
from corpus_run import whole_corpus_on_sim
from mathlib_header import MathlibSimBackend

from lean_gym.sim import kernel
from lean_gym.sim import tactics as engine
from lean_gym.sim.arith import Certificate, Constraint, Poly
from lean_gym.sim.elab import Env
from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import (
    Admit,
    Applied,
    Contradiction,
    DataValue,
    Decide,
    Decided,
    Hyp,
    Linear,
    PolyIdentity,
    ProofTerm,
    Refl,
    Renamed,
    Rewrote,
    Subproof,
    TrueIntro,
    close,
)
from lean_gym.sim.repl import INTERNAL_ERROR
from lean_gym.sim.syntax import parse_term_text
from lean_gym.sim.tactics import (
    _EXTERNAL,
    KernelRefusal,
    SealFrame,
    TacticContext,
    TacticError,
    goal_from_statement,
    register_tactic,
    run_tactic,
)
from lean_gym.sim.terms import FALSE, TRUE, check_heads

MATHLIB = Env(imports=("Mathlib",))


def ctx() -> TacticContext:
    return TacticContext(env=MATHLIB)


def goal(stmt: str) -> Goal:
    return goal_from_statement(stmt, ctx())


def fid(g: Goal, name: str) -> str:
    found = g.find(name)
    assert found is not None
    return found


@pytest.fixture
def rogue() -> Iterator[Callable[[Callable[[Goal, TacticContext], list[Goal]]], str]]:
    """Register a tactic ``sim_rogue`` whose handler is the given function (removed afterwards)."""

    def install(fn: Callable[[Goal, TacticContext], list[Goal]]) -> str:
        register_tactic("sim_rogue", lambda g, _text, c: fn(g, c))
        return "sim_rogue"

    yield install
    _EXTERNAL.pop("sim_rogue", None)


# ---------------------------------------------------------------------------------- the engine's refusal


def test_a_tactic_that_returns_no_goal_without_the_kernel_is_refused(rogue) -> None:
    name = rogue(lambda g, c: [])
    with pytest.raises(KernelRefusal, match="did not close its goal"):
        run_tactic(goal("(x : ℝ) : x < x"), name, ctx())


def test_combinators_do_not_swallow_the_refusal(rogue) -> None:
    """``first``/``try``/``<;>``/``·`` catch tactic failures, never the kernel's refusal."""
    name = rogue(lambda g, c: [])
    for text in (
        f"first | {name} | rfl",
        f"try {name}",
        f"skip <;> {name}",
        f"· {name}",
        f"all_goals {name}",
    ):
        with pytest.raises(KernelRefusal):
            run_tactic(goal("(x : ℕ) : x = x"), text, ctx())


def test_on_sim_the_rogue_tactic_is_an_internal_error_not_a_proof(rogue) -> None:
    name = rogue(lambda g, c: [])
    backend = MathlibSimBackend()
    res = backend.check(f"theorem t (x : ℕ) : x < x := by\n  {name}")
    assert res.status != "proved" and res.status == "error"
    assert res.messages[0].data.startswith(INTERNAL_ERROR) and "KernelRefusal" in res.messages[0].data
    # the same backend goes on checking honest proofs
    assert backend.check("theorem t (x : ℕ) : x = x := by\n  rfl").status == "proved"


def test_a_tactic_may_not_close_a_goal_it_was_not_given(rogue) -> None:
    """Closing some other (true) goal through the kernel does not close the goal the tactic was given."""

    def other(g: Goal, c: TacticContext) -> list[Goal]:
        close(g.with_target(TRUE), TrueIntro(), c)
        return []

    name = rogue(other)
    with pytest.raises(KernelRefusal):
        run_tactic(goal("(x : ℕ) : x < x"), name, ctx())


def test_the_kernel_key_is_handed_out_once() -> None:
    with pytest.raises(KernelRefusal):
        engine._kernel_key()
    c = ctx()
    c.seal_frames.append(SealFrame("t"))
    g = goal("(x : ℕ) : x < x")
    with pytest.raises(KernelRefusal):
        engine.seal(c, g, "Hyp", None, object())  # a key of one's own
    assert engine.sealed_here(c, g) is None


def test_reloading_the_kernel_does_not_get_a_second_key() -> None:
    with pytest.raises(KernelRefusal):
        importlib.reload(kernel)


# ------------------------------------------------------------------------------------ forged justifications


def _refused(g: Goal, j: kernel.Justification, c: TacticContext | None = None) -> None:
    with pytest.raises(KernelRefusal):
        close(g, j, c or ctx())


def test_hyp_naming_a_local_of_another_type_is_refused() -> None:
    g = goal("(x : ℝ) (h : x ≤ 1) : x < 1")
    _refused(g, Hyp(fid(g, "h")))
    _refused(g, Hyp(fid(g, "x")))  # a data local is no proof
    _refused(g, Hyp("nonexistent"))
    ok = goal("(x : ℝ) (h : x < 1) : x < 1")
    assert close(ok, Hyp(fid(ok, "h")), ctx()) == []


def test_hyp_up_to_defeq_is_accepted() -> None:
    g = goal("(x : ℕ) (h : x + 1 ≤ 5) : x < 5")  # `<` on ℕ is `+ 1 ≤` by definition
    assert close(g, Hyp(fid(g, "h")), ctx()) == []


def test_a_contradiction_that_is_none_is_refused() -> None:
    g = goal("(x : ℕ) (h : x = x) (h2 : ¬ x = 1) : x = 2")
    _refused(g, Contradiction(fid(g, "h")))
    _refused(g, Contradiction(fid(g, "h2"), fid(g, "h")))  # ¬(x = 1) beside x = x
    for stmt, name in [
        ("(x : ℕ) (h : False) : x = 2", "h"),
        ("(x : ℕ) (h : x ≠ x) : x = 2", "h"),
        ("(x : ℕ) (h : 2 + 2 = 5) : x = 2", "h"),
        ("(x : ℕ) (h : 2 ≤ 1 ∧ 1 = 1) : x = 2", "h"),  # a connective of closed relations, decided false
    ]:
        g = goal(stmt)
        assert close(g, Contradiction(fid(g, name)), ctx()) == []
    for stmt in [
        "(x : ℕ) (h : 2 ≤ 1 ∨ 1 = 1) : x = 2",  # true
        "(x : ℕ) (h : 1 ≤ 2 → 1 = 1) : x = 2",  # true
        "(x : ℕ) (h : x ≤ 1 ∧ 3 ≤ 1) : x = 2",  # not closed: the evaluator has no value for x
    ]:
        g = goal(stmt)
        _refused(g, Contradiction(fid(g, "h")))
    g = goal("(p : Prop) (hp : p) (hn : ¬ p) : False")
    assert close(g, Contradiction(fid(g, "hn"), fid(g, "hp")), ctx()) == []


def test_refl_on_distinct_sides_is_refused() -> None:
    _refused(goal("(a b : ℕ) : a = b"), Refl())
    _refused(goal("(a b : ℝ) : a ≤ b"), Refl())
    _refused(goal("(a : ℕ) : a < a"), Refl())  # not reflexive
    assert close(goal("(a : ℕ) : a + 0 = a + 0"), Refl(), ctx()) == []
    assert close(goal(": 2 + 2 = 4"), Refl(), ctx()) == []  # closed ℕ sides evaluate equal


def test_true_intro_on_another_target_is_refused() -> None:
    _refused(goal(": False"), TrueIntro())
    assert close(goal(": True"), TrueIntro(), ctx()) == []


def test_decide_on_a_false_or_open_goal_is_refused() -> None:
    _refused(goal(": 2 + 2 = 5"), Decide())
    _refused(goal("(x : ℕ) : x = x + 0 ∨ x = 1"), Decide())  # not closed: nothing to evaluate
    _refused(goal(": (1 : ℝ) / 3 < 0"), Decide(fields=True))
    assert close(goal(": 2 + 2 = 4"), Decide(), ctx()) == []


def _cert(*pairs: tuple[Constraint, int]) -> Certificate:
    return Certificate(tuple(c for c, _ in pairs), tuple(Fraction(m) for _, m in pairs))


def test_a_linear_certificate_that_does_not_sum_to_a_contradiction_is_refused() -> None:
    x, y = Poly.var("x"), Poly.var("y")
    g = goal("(x y : ℝ) (h : x < y) : x ≤ y")
    # x - y < 0 and y - x ≤ 0 (the negated goal x > y): the sum is 0 < 0, a contradiction
    good = _cert((Constraint.lt(x, y), 1), (Constraint(y - x, "<"), 1))
    assert close(g, Linear((good,)), ctx()) == []
    _refused(g, Linear(()))  # no certificate
    _refused(g, Linear((_cert((Constraint.lt(x, y), 1), (Constraint(y - x, "<"), 2)),)))  # leaves y - x
    _refused(g, Linear((_cert((Constraint.lt(x, y), -1), (Constraint(y - x, "<"), -1)),)))  # negative
    _refused(g, Linear((good, _cert((Constraint.le(x, y), 1)))))  # one good branch is not all of them
    _refused(g, Linear((Certificate((Constraint.lt(x, y),), ()),)))  # multipliers missing


def test_a_ring_identity_that_is_none_is_refused() -> None:
    _refused(goal("(a b : ℝ) : (a + b) ^ 2 = a ^ 2 + b ^ 2"), PolyIdentity())
    _refused(goal("(a b : ℕ) : a - b + b = a"), PolyIdentity())  # truncated subtraction
    _refused(goal("(a b : ℝ) : a ≤ b"), PolyIdentity())
    assert close(goal("(a b : ℝ) : (a + b) ^ 2 = a ^ 2 + 2 * a * b + b ^ 2"), PolyIdentity(), ctx()) == []


def test_a_proof_term_the_checker_did_not_check_is_refused() -> None:
    from lean_gym.sim.proofs import ProofChecker

    g = goal("(p : Prop) (hp : p) : p")
    syn = parse_term_text("hp")
    c = ctx()
    _refused(g, ProofTerm(syn), c)  # no call running
    c.seal_frames.append(SealFrame("exact"))
    _refused(g, ProofTerm(syn), c)  # checked nowhere in this call
    ProofChecker(g, c).check(syn, g.target)
    assert close(g, ProofTerm(syn), c) == []
    other = goal("(p q : Prop) (hp : p) : q")
    _refused(other, ProofTerm(syn), c)  # checked, but against another target


def test_a_subproof_whose_leaves_were_not_closed_is_refused() -> None:
    g = goal("(x : ℕ) : x < x")
    leaf = g.with_target(TRUE)
    c = ctx()
    c.seal_frames.append(SealFrame("t"))
    _refused(g, Subproof(()), c)
    _refused(g, Subproof((leaf,)), c)  # never closed
    close(leaf, TrueIntro(), c)
    assert close(g, Subproof((leaf,)), c) == []  # trusted reduction, checked leaves
    bad = g.with_target(FALSE)
    _refused(g, Subproof((leaf, bad)), c)
    _refused(g, Subproof(((bad, TrueIntro()),)), c)  # a carried justification is re-checked
    assert close(g, Subproof(((leaf, TrueIntro()),)), ctx()) == []


def test_a_rewrite_that_does_not_close_is_refused() -> None:
    g = goal("(x : ℕ) (h : x = 1) : x = 2")
    _refused(g, Rewrote("simp", g.target))
    _refused(g, Rewrote("simp", ("=", "ℕ", ("num", "ℕ", 1), ("num", "ℕ", 2))))
    _refused(g, Rewrote("simp", TRUE, "nonexistent"))  # a local that is not there
    _refused(g, Rewrote("simp", ("=", "ℕ", ("num", "ℕ", 1), ("num", "ℕ", 2)), fid(g, "h")))
    assert close(g, Rewrote("simp", TRUE), ctx()) == []
    assert close(g, Rewrote("simp", FALSE, fid(g, "h")), ctx()) == []
    assert close(g, Rewrote("simp", g.target, fid(g, "h")), ctx()) == []


def test_an_unlisted_decision_procedure_or_a_wrong_shape_is_refused() -> None:
    _refused(goal("(x : ℕ) : x < x"), Decided("my_oracle"))
    _refused(goal("(x : ℝ) : x ≤ 1"), Decided("positivity"))  # not `0 ≤ e`/`0 < e`/`e ≠ 0`
    assert close(goal("(x : ℝ) : 0 ≤ x ^ 2"), Decided("positivity"), ctx()) == []
    # `0 ≠ e` is positivity's too (Mathlib's `Positivity.solve`, `.ne'`); `1 ≠ e` is not
    _refused(goal("(x : ℝ) : 1 ≠ x ^ 2 + 1"), Decided("positivity"))
    _refused(goal("(x : ℝ) : x ^ 2 + 1 ≠ 1"), Decided("positivity"))
    assert close(goal("(x : ℝ) : 0 ≠ x ^ 2 + 1"), Decided("positivity"), ctx()) == []


def test_an_applied_conclusion_that_does_not_fit_is_refused() -> None:
    g = goal("(a b : ℕ) : a ≤ a + b")
    _refused(g, Applied(("≤", "ℕ", ("fvar", fid(g, "b")), ("fvar", fid(g, "a")))))
    _refused(g, Applied(("mvar", "?m")))  # a metavariable matches anything: refused
    assert close(g, Applied(g.target), ctx()) == []


def test_a_data_value_for_a_proposition_is_refused() -> None:
    _refused(goal("(x : ℕ) : x < x"), DataValue())
    assert close(Goal((), ("type", "ℕ")), DataValue(), ctx()) == []


def test_a_renamed_closure_of_another_goal_is_refused() -> None:
    original = goal("(x : ℕ) (h : x < 5) : x < 5")
    j = Hyp(fid(original, "h"))
    same_shape = goal("(x : ℕ) (h : x < 5) : x < 5")  # other locals, same form: accepted
    assert close(same_shape, Renamed(original, j), ctx()) == []
    _refused(goal("(x : ℕ) (h : x < 6) : x < 5"), Renamed(original, j))  # not a renaming
    _refused(goal("(y : ℕ) (h : y < 5) : y < 5"), Renamed(original, j))  # user names differ
    _refused(same_shape, Renamed(original, Hyp(fid(original, "x"))))  # the original's proof fails
    _refused(same_shape, Renamed(original, ProofTerm(parse_term_text("h"))))  # cites no record


def test_replayable_gives_only_justifications_that_stand_alone() -> None:
    c = ctx()
    c.seal_frames.append(SealFrame("t"))
    g = goal("(x : ℕ) (h : x < 5) : x < 5")
    leaf = g.with_target(TRUE)
    close(leaf, TrueIntro(), c)
    close(g, Subproof((leaf,)), c)
    j = kernel.replayable(c, g)
    assert j == Subproof(((leaf, TrueIntro()),))  # the leaf carried with its own justification
    assert close(g, j, ctx()) == []  # re-checks in a fresh context, no frame
    admitted = goal("(x : ℕ) : x < x")
    close(admitted, Admit("sorry"), c)
    assert kernel.replayable(c, admitted) is None  # a sorry is never replayed
    assert kernel.replayable(c, goal("(x : ℕ) : x = 7")) is None  # never closed


def test_admit_records_the_sorry_axiom() -> None:
    c = ctx()
    assert close(goal("(x : ℕ) : x < x"), Admit("sorry"), c) == []
    assert "sorryAx" in c.axioms


def test_a_forged_justification_through_a_tactic_is_an_internal_error(rogue) -> None:
    name = rogue(lambda g, c: close(g, Refl(), c))
    backend = MathlibSimBackend()
    res = backend.check(f"theorem t (a b : ℕ) : a = b := by\n  {name}")
    assert res.status == "error" and res.messages[0].data.startswith(INTERNAL_ERROR)
    assert backend.check(f"theorem t (a : ℕ) : a = a := by\n  {name}").status == "proved"


# ------------------------------------------------------------------------------------------- the memo


def _closures_in_memo() -> list[tuple[object, object, tuple]]:
    from lean_gym.sim import aesop_apply

    out = []
    for table in (aesop_apply._RESULTS, aesop_apply.NORM_MEMO):
        for key, (value, _size) in table._data.items():
            answer = value[3]
            if answer is not None and len(answer) > 2:
                out.append((table, key, value))
    return out


AESOP_GOAL = "(x : ℕ) (h : x = 2) : x + 0 = 2"


def test_a_memoised_closure_is_replayed_through_the_kernel() -> None:
    from lean_gym.sim import aesop_apply, memo

    with memo.caching(True):
        aesop_apply.clear_cache()
        assert run_tactic(goal(AESOP_GOAL), "aesop", ctx()) == []
        stored = _closures_in_memo()
        assert stored, "the memo remembers the closure with its justification"
        for _, _, value in stored:
            assert value[3][2] is not None and isinstance(value[3][3], tuple(kernel.Justification.__args__))
        before = kernel.CLOSED_KINDS.get("Renamed", 0)
        assert run_tactic(goal(AESOP_GOAL), "aesop", ctx()) == []  # a fresh goal: replayed, renamed
        assert kernel.CLOSED_KINDS.get("Renamed", 0) > before


def test_a_poisoned_memo_cannot_close_a_goal() -> None:
    """A remembered closure whose justification does not hold is refused at replay, not trusted."""
    from lean_gym.sim import aesop_apply, memo

    with memo.caching(True):
        aesop_apply.clear_cache()
        assert run_tactic(goal(AESOP_GOAL), "aesop", ctx()) == []
        stored = _closures_in_memo()
        assert stored
        for table, key, value in stored:
            answer = value[3]
            forged = (*answer[:3], Rewrote("simp", answer[2].target))  # the target "rewritten" to itself
            table._data[key] = ((*value[:3], forged, *value[4:]), table._data[key][1])
        with pytest.raises(KernelRefusal):
            run_tactic(goal(AESOP_GOAL), "aesop", ctx())
        aesop_apply.clear_cache()
        assert run_tactic(goal(AESOP_GOAL), "aesop", ctx()) == []  # forgotten: proved again, honestly


# ---------------------------------------------------------------------------------------- term heads


def test_check_heads_finds_undeclared_heads_and_wrong_shapes() -> None:
    assert check_heads(("=", "ℕ", ("num", "ℕ", 1), ("num", "ℕ", 1))) == ""
    assert "undeclared" in check_heads(("=", "ℕ", ("frobnicate", 1), ("num", "ℕ", 1)))
    assert "fields" in check_heads(("=", "ℕ", ("num", "ℕ", 1)))
    assert "arguments" in check_heads(("app", ("const", "f"), "x"))
    assert "not a term" in check_heads(
        ("app", ("const", "f"), ("num", "ℕ", 1))
    )  # a term, not a tuple of them
    assert "value belongs" in check_heads(("num", ("num", "ℕ", 1), 1))
    assert "not a term" in check_heads(("∧", "p", TRUE))


def test_the_kernel_refuses_to_close_an_ill_formed_goal() -> None:
    g = Goal((), ("∨", TRUE, ("frobnicate",)))
    _refused(g, Rewrote("simp", TRUE))


# ------------------------------------------------------------------------------- the whole corpus


@pytest.fixture(scope="module")
def corpus_run() -> tuple[list, Counter[tuple[str, str]], set[str]]:
    """The conformance corpus on ``sim`` with every goal a tactic met collected (its heads); the run is the
    one tests/test_conformance_ci.py judges (tests/corpus_run.py)."""
    run = whole_corpus_on_sim()
    assert not run.bad, run.bad[:5]
    return run.results, run.sealed, set(run.heads)


def test_no_case_of_the_corpus_meets_a_refusal(corpus_run) -> None:
    results, _, _ = corpus_run
    refused = [
        r.case.id
        for r in results
        if any(
            "KernelRefusal" in (m.get("data", "") if isinstance(m, dict) else str(m)) for m in _messages(r)
        )
    ]
    assert not refused, refused[:10]


def _messages(r: object) -> list[object]:
    res = getattr(r, "result", None)
    return list(getattr(res, "messages", ()) or ())


def test_every_tactic_family_closes_through_the_kernel(corpus_run) -> None:
    """Each module that registers tactics closed goals through the kernel somewhere in the corpus."""
    _, sealed, _ = corpus_run
    tables = (*engine._BUILTIN.items(), *engine._EXTERNAL.items())
    module_of = {name: fn.__module__ for name, fn in tables}
    closed_by: dict[str, Counter[str]] = {}
    for (tac, kind), n in sealed.items():
        closed_by.setdefault(module_of.get(tac, "?"), Counter())[kind] += n
    families = {m for m in module_of.values() if m.startswith("lean_gym.sim.")} - NEVER_CLOSE
    assert {"lean_gym.sim.aesop", "lean_gym.sim.tac_basic", "lean_gym.sim.simp"} <= families
    missing = sorted(families - set(closed_by))
    assert not missing, f"families with no closure through the kernel in the corpus: {missing}"
    assert sum(sealed.values()) > 500  # the corpus closes hundreds of goals, each through the kernel


NEVER_CLOSE = {"lean_gym.sim.tac_choose"}
"""Families none of whose tactics closes a goal (``choose`` always leaves one)."""


def test_every_head_met_in_the_corpus_is_declared(corpus_run) -> None:
    from lean_gym.sim.terms import TERM_HEADS

    _, _, heads = corpus_run
    assert len(heads) > 20  # the watch saw real goals
    assert heads <= set(TERM_HEADS), sorted(heads - set(TERM_HEADS))


def test_a_tactic_error_is_still_a_tactic_error() -> None:
    """Control: honest failures keep their Lean messages (the kernel changes no verdict)."""
    with pytest.raises(TacticError, match="linarith failed"):
        run_tactic(goal("(x y : ℝ) (h : x ≤ y) : x < y"), "linarith", ctx())


# ---------------------------------------------------------------------------------------------------------
# Every head the elaborator builds is declared, also outside the corpus: `∈` over a Finset local (miniF2F's
# `mathd_algebra_215`, `amc12a_2020_p9`, … state their goals with it) was missing, so the kernel refused
# `sorry` and `exact` on those statements as an internal error.


@pytest.mark.parametrize("proof", ["sorry", "exact h"])
def test_membership_goals_close_through_the_kernel(proof: str) -> None:
    from lean_gym.backends.sim import SimBackend

    r = SimBackend().check(
        f"theorem t (S : Finset ℕ) (h : 3 ∈ S) : 3 ∈ S := by\n  {proof}", header="import Mathlib"
    )
    assert r.status == ("sorry" if proof == "sorry" else "proved"), r.messages
