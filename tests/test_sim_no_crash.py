"""No submission can crash a check (issue 18, classes 1, 2 and 9): combinators around tactics that leave
goals, numbers past 4,300 digits through every tactic family and printer, ``set_option … in`` inside a
tactic block, and the guard that turns any simulator bug into an error verdict.

Every check here runs on the in-process simulator and the same submissions go through the REPL protocol
(``sim-repl``) and ``LeanTactic-v0``: a verdict must be a verdict (never ``crashed``), and no message may
carry :data:`~lean_gym.sim.repl.INTERNAL_ERROR`, the text of the guard. A crash path that comes back
fails these tests even though the guard keeps the process alive.
"""

from __future__ import annotations

import io
import json

import gymnasium as gym
import pytest
from mathlib_header import MathlibRepl, MathlibSimBackend

import lean_gym  # noqa: F401
from lean_gym.backends import ReplBackend, SimBackend
from lean_gym.backends.repl import sim_command
from lean_gym.sim.repl import INTERNAL_ERROR
from lean_gym.sim.tactics import (
    _EXTERNAL,
    TacticContext,
    TacticError,
    goal_from_statement,
    register_tactic,
    run_tactic,
)
from lean_gym.sim.terms import MAX_NUMERAL_DIGITS, NumeralTooLarge, mk_num, pretty

STATEMENT = "theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q := by"

# tactics that leave goals (none, one, two) or fail
LEAVING = ["skip", "constructor", "exact ⟨hp, hq⟩", "apply And.intro", "refine ⟨?_, ?_⟩", "exact hp"]

# each combinator around a tactic `T`, then what follows it in the block
COMBINATORS = [
    "focus T",
    "focus\n    T",
    "· T",
    "{ T }",
    "(T)",
    "T <;> skip",
    "skip <;> T",
    "T <;> exact hp",
    "case _ => T",
    "next => T",
    "all_goals T",
    "any_goals T",
    "first | T | skip",
    "first | fail | T",
    "try T",
    "repeat T",
    "iterate 2 T",
    "iterate T",
    "set_option maxRecDepth 100 in T",
    "set_option pp.all true in\n  T",
    "focus (T <;> try exact hp)",
    "· (T); all_goals try exact hq",
]
AFTER = [
    "",
    "\n  exact hp",
    "\n  exact hp\n  exact hq",
    "\n  all_goals assumption",
    "\n  · exact hp\n  · exact hq",
]


def _programs() -> list[str]:
    out = []
    for comb in COMBINATORS:
        for tac in LEAVING:
            for after in AFTER:
                out.append(f"{STATEMENT}\n  {comb.replace('T', tac)}{after}\n")
    return out


PROGRAMS = _programs()


@pytest.fixture(scope="module")
def sim() -> SimBackend:
    return MathlibSimBackend()  # the statements are Mathlib's: checked under `import Mathlib`


@pytest.fixture(scope="module")
def sim_repl():
    backend = ReplBackend(command=sim_command(), pool_size=1, timeout=60)
    yield backend
    backend.close()


def _assert_no_crash(result) -> None:
    assert result.status != "crashed", result.messages_text()
    assert not any(INTERNAL_ERROR in m.data for m in result.messages), result.messages_text()


def test_every_combinator_around_goal_leaving_tactics_gives_a_verdict_on_both_backends(sim, sim_repl) -> None:
    a = sim.check_batch(PROGRAMS)
    b = sim_repl.check_batch(PROGRAMS, header="import Mathlib")
    for code, x, y in zip(PROGRAMS, a, b):
        _assert_no_crash(x)
        _assert_no_crash(y)
        assert x.status == y.status, code
    # some of them are honest proofs Lean accepts, and those are proved
    assert sum(r.status == "proved" for r in a) > len(PROGRAMS) // 10


@pytest.mark.parametrize(
    "code",
    [
        f"{STATEMENT}\n  focus constructor\n  exact hp\n  exact hq",
        f"{STATEMENT}\n  focus\n    constructor\n    exact hp\n  exact hq",
        f"{STATEMENT}\n  focus skip\n  exact ⟨hp, hq⟩",
        f"{STATEMENT}\n  constructor\n  focus exact hp\n  exact hq",
        f"{STATEMENT}\n  constructor\n  focus (exact hq)\n  exact hp",  # Lean's `focus` does not check
    ],
)
def test_focus_keeps_the_goals_its_tactic_leaves_as_lean(sim, code: str) -> None:
    """Lean's ``evalFocus``: the main goal alone, and the goals left come first; no error of its own."""
    res = sim.check(code)
    if "focus (exact hq)" in code:
        assert res.status == "error"  # `exact hq` on `p`: the tactic's own error, not a crash
        assert "Type mismatch" in res.messages_text() or "type mismatch" in res.messages_text()
    else:
        assert res.status == "proved", res.messages_text()


def test_focus_that_leaves_goals_is_unsolved_goals_at_the_end_not_a_crash(sim) -> None:
    res = sim.check("theorem t (x : ℕ) (h : x = 1) : x = 2 := by\n  focus skip")
    assert res.status == "error"
    assert res.messages[0].data == "unsolved goals\nx : ℕ\nh : x = 1\n⊢ x = 2"  # under Mathlib: ℕ


@pytest.mark.parametrize(
    ("block", "where"),
    [("· constructor", "·"), ("{ constructor }", "}"), ("case _ => constructor", "case")],
)
def test_cdot_braces_and_case_must_close_their_goal(sim, block: str, where: str) -> None:
    """``·``/``{}``/``case`` are ``closeUsingOrAdmit``: goals left are an error, the goal is admitted."""
    res = sim.check(f"{STATEMENT}\n  {block}")
    assert res.status == "error"
    (msg,) = [m for m in res.messages if m.severity == "error"]
    assert msg.data.startswith("unsolved goals\ncase left")
    line = f"{STATEMENT}\n  {block}".split("\n")[1]
    assert msg.pos.line == 2 and msg.pos.column == line.index(where)


def test_the_tactic_env_steps_through_every_combinator_without_crashing() -> None:
    env = gym.make("LeanTactic-v0", backend="sim", theorems=[{"name": "t", "formal_statement": STATEMENT}])
    statuses = set()
    for comb in COMBINATORS:
        for tac in LEAVING:
            env.reset(seed=0)
            obs, _, _, _, info = env.step(comb.replace("T", tac).replace("\n  ", "\n"))
            statuses.add(info["status"])
            assert info["status"] != "crashed" and INTERNAL_ERROR not in str(info.get("error", "")), comb
            assert INTERNAL_ERROR not in obs
    assert {"open", "error"} <= statuses
    env.close()


# ------------------------------------------------------------------------------ set_option … in


@pytest.mark.parametrize(
    "block",
    [
        "set_option maxRecDepth 1000 in\n  simp",
        "set_option maxRecDepth 1000 in simp",
        "set_option pp.all true in\n  simp",
        "set_option maxHeartbeats 0 in\n  simp",
        "set_option maxHeartbeats 400000 in\n  simp",
    ],
)
def test_set_option_in_a_tactic_block_runs_its_tactics(sim, block: str) -> None:
    res = sim.check(f"theorem t (x : ℕ) : x + 0 = x := by\n  {block}")
    assert res.status == "proved", res.messages_text()


def test_set_option_in_applies_to_the_rest_of_its_column(sim) -> None:
    code = f"{STATEMENT}\n  set_option pp.all true in\n  constructor\n  exact hp\n  exact hq"
    assert sim.check(code).status == "proved"


def test_set_option_max_heartbeats_in_a_tactic_may_lower_the_budget_only() -> None:
    g = goal_from_statement("(x : Nat) : x + 0 = x")
    with pytest.raises(TacticError, match=r"maximum number of heartbeats \(1\)"):
        run_tactic(g, "set_option maxHeartbeats 1 in\n  simp", TacticContext(max_heartbeats=100_000))
    # a larger value does not raise the caller's budget
    ctx = TacticContext(max_heartbeats=30)
    with pytest.raises(TacticError, match=r"maximum number of heartbeats \(30\)"):
        run_tactic(g, "set_option maxHeartbeats 5000000 in\n  simp\n  skip\n  skip\n  skip", ctx)
    # and the budget is back after the body
    ctx = TacticContext(max_heartbeats=100_000)
    run_tactic(g, "set_option maxHeartbeats 100000 in skip\nsimp", ctx)


def test_set_option_in_a_tactic_needs_a_body(sim) -> None:
    res = sim.check("theorem t (x : ℕ) : x = x := by\n  set_option maxRecDepth 10 in")
    assert res.status == "error" and "expected tactic" in res.messages_text()


# --------------------------------------------------------------------------------- large numbers

BIG = "10 ^ 5000"
LARGE = [
    f"theorem t (x : ℕ) (h : x = {BIG}) : True := by\n  norm_num at h",
    f"theorem t (x : ℕ) (h : x = {BIG}) : True := by\n  simp at h",
    f"theorem t (x : ℕ) (h : x = {BIG}) : x = 1 := by\n  simp_all",
    f"theorem t (x : ℕ) (h : x = {BIG}) : x = 1 := by\n  simp_all\n  sorry",
    f"theorem t (x : ℝ) (h : x = {BIG}) : x = 1 := by\n  field_simp at h",
    "theorem t (x : ℕ) (h : (x : ℝ) = (10 : ℝ) ^ 5000) : x = 1 := by\n  ring_nf at h",
    "theorem t (x : ℝ) : (x + 10) ^ 5000 = 1 := by\n  ring_nf",
    "theorem t (x : ℝ) : (x ^ (10 ^ 4000)) ^ (10 ^ 4000) = 1 := by\n  ring_nf",
    "theorem t (x : ℕ) (h : x = Nat.factorial 3000) : x = 1 := by\n  norm_num at h",
    "theorem t (x : ℕ) (h : x = (3000)!) : x = 1 := by\n  norm_num at h\n  sorry",
    "theorem t (x : ℕ) (h : x = Nat.sqrt (10 ^ 10000)) : x = 1 := by\n  norm_num at h",
    "theorem t (x : ℕ) (h : x = Nat.gcd (10 ^ 5000) (10 ^ 5000)) : x = 1 := by\n  norm_num at h",
    "theorem t (x : ℕ) (h : x = Nat.lcm (10 ^ 3000) (7 ^ 3000)) : x = 1 := by\n  norm_num at h",
    f"theorem t (x : ℤ) (h : x = -{BIG}) : x = 1 := by\n  norm_num at h",
    f"theorem t (x : ℝ) (h : x = (1 : ℝ) / {BIG}) : x = 1 := by\n  norm_num at h",
    f"theorem t (x : ℕ) (h : x = {BIG} - 1) : x = 1 := by\n  norm_num at h\n  sorry",
    f"theorem t : {BIG} = 1 := by\n  decide",
    f"theorem t : {BIG} = 1 := by\n  rfl",
    f"theorem t : {BIG} = 1 := by\n  norm_num",
    f"theorem t (x : ℕ) (h : x = {BIG}) : x = 1 := by\n  omega",
    f"theorem t (x : ℝ) (h : x = {BIG}) : x = 1 := by\n  linarith",
    f"theorem t (x : ℝ) (h : x = {BIG}) : x = 1 := by\n  nlinarith",
    f"theorem t (x : ℝ) : 0 < x - {BIG} := by\n  positivity",
    f"theorem t (x : ℕ) (h : ((x + {BIG} : ℕ) : ℝ) = 1) : True := by\n  push_cast at h",
    f"theorem t (x : ℕ) (h : x = {BIG}) : x = 1 := by\n  aesop",
    f"theorem t (x : ℕ) (h : x = {BIG}) : x = 1 := by\n  subst h\n  norm_num",
    f"theorem t (x : ℕ) (h : x = {BIG}) : x = 1 := by\n  rw [h]\n  sorry",
    f"theorem t (x : ℕ) (h : x + {BIG} = 1) : False := by\n  simp at h",
    f"def big : ℕ := {BIG}\ntheorem t : big = 1 := by\n  norm_num [big]",
    f"def big : ℕ := {BIG}\ntheorem t : big = 1 := by\n  decide",
    "theorem t (x : ℕ) (h : x = 10^4000 * 10^4000 * 10^4000) : x = 1 := by\n  norm_num at h",
    "theorem t (x : ℕ) (h : x = 7 ^ 123456789) : x = 1 := by\n  norm_num at h",
    "theorem t : 7 ^ 123456789 % 10 = 1 := by\n  decide",
    "theorem t (x : ℕ) (h : x = 2 ^ 2 ^ 2 ^ 2 ^ 2) : x = 1 := by\n  norm_num at h",
    "theorem t (x : ℕ) (h : x < 3) (h2 : x = 10 ^ 5000) : x = 1 := by\n  interval_cases x <;> simp_all",
    f"theorem t (x : ℕ) (h : x = {BIG}) : x = 1 := by\n  first | norm_num at h | simp at h",
    f"theorem t (x : ℕ) (h : x = {BIG}) : x = 1 := by\n  try norm_num at h\n  sorry",
    f"theorem t (x : ℕ) (h : x = {BIG}) : x = 1 := by\n  have : x = {BIG} := h\n  norm_num at this",
    f"theorem t (x : ℕ) (h : x = Nat.succ ({'9' * MAX_NUMERAL_DIGITS})) : x = 1 := by\n  simp at h",
]


def test_large_numbers_through_every_tactic_family_give_a_verdict(sim, sim_repl) -> None:
    a = sim.check_batch(LARGE, timeout=60)
    b = sim_repl.check_batch(LARGE, header="import Mathlib", timeout=60)
    for code, x, y in zip(LARGE, a, b):
        _assert_no_crash(x)
        _assert_no_crash(y)
        assert x.status == y.status != "proved" or "interval_cases" in code, code
        assert x.status != "timeout", code  # the work is bounded: the refusal is quick


@pytest.mark.parametrize(
    "code",
    [
        f"theorem t (x : ℕ) (h : x = {BIG}) : True := by\n  norm_num at h",
        f"theorem t (x : ℕ) (h : x = {BIG}) : True := by\n  simp at h",
        "theorem t (x : ℕ) (h : x = Nat.factorial 3000) : x = 1 := by\n  norm_num at h",
        "theorem t (x : ℕ) (h : x = Nat.sqrt (10 ^ 10000)) : x = 1 := by\n  norm_num at h",
    ],
)
def test_a_number_too_large_for_a_term_is_a_clear_error(sim, code: str) -> None:
    res = sim.check(code)
    assert res.status == "error"
    assert res.messages[0].data.startswith("the simulator does not support numbers this large")
    assert f"more than {MAX_NUMERAL_DIGITS} digits" in res.messages[0].data


def test_a_relation_around_a_large_value_is_still_decided(sim) -> None:
    """Refusing to build the numeral does not stop the relation from being evaluated (Lean decides it)."""
    res = sim.check(f"theorem t (x : ℕ) (h : x < 3) (h2 : x = {BIG}) : x = 1 := by\n  simp_all")
    assert res.status == "proved", res.messages_text()
    res = sim.check(f"theorem t : {BIG} ≠ 1 := by\n  norm_num")
    assert res.status == "proved", res.messages_text()


def test_no_term_holds_a_number_past_the_limit() -> None:
    mk_num("ℕ", 10**MAX_NUMERAL_DIGITS - 1)
    for v in (10**MAX_NUMERAL_DIGITS, -(10**MAX_NUMERAL_DIGITS)):
        with pytest.raises(NumeralTooLarge):
            mk_num("ℤ", v)
    from fractions import Fraction

    with pytest.raises(NumeralTooLarge):
        mk_num("ℝ", Fraction(1, 10**MAX_NUMERAL_DIGITS))
    # and the printer refuses what was built by hand, with the same error rather than Python's
    with pytest.raises(NumeralTooLarge):
        pretty(("num", "ℕ", 10 ** (MAX_NUMERAL_DIGITS + 1)))


def test_large_literals_print_and_serialise_everywhere() -> None:
    """The largest numeral a term may hold goes through the goal display, the JSON and pickling."""
    lit = "9" * MAX_NUMERAL_DIGITS
    repl = MathlibRepl()  # Mathlib statements
    resp = repl.handle({"cmd": f"theorem t (x : ℕ) (h : x = {lit}) : x + 0 = {lit} := by\n  simp\n  sorry"})
    assert lit in resp["sorries"][0]["goal"]
    from lean_gym.sim.jsonfmt import lean_json

    assert lit in lean_json(resp)
    st = resp["sorries"][0]["proofState"]
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        path = str(Path(d) / "s.olean")
        assert "message" not in repl.handle({"pickleTo": path, "proofState": st})
        back = repl.handle({"unpickleProofStateFrom": path})
        assert lit in back["goals"][0]


# ---------------------------------------------------------------------------- the generic guard


@pytest.fixture
def broken_tactic():
    """A tactic whose handler has a bug (a Python exception), registered for the test only."""

    def handler(goal, text, ctx):
        raise KeyError("a bug")

    register_tactic("sim_bug_probe", handler)
    yield "sim_bug_probe"
    _EXTERNAL.pop("sim_bug_probe", None)


def test_a_simulator_bug_is_an_error_verdict_not_a_crash(broken_tactic: str) -> None:
    backend = MathlibSimBackend()  # Mathlib statements
    res = backend.check(f"theorem t (x : ℕ) : x = x := by\n  {broken_tactic}")
    assert res.status == "error"
    assert res.messages[0].data.startswith(INTERNAL_ERROR) and "KeyError" in res.messages[0].data
    assert "not Lean's verdict" in res.messages[0].data
    # the simulator goes on checking
    assert backend.check("theorem t (x : ℕ) : x = x := by\n  rfl").status == "proved"


def test_a_simulator_bug_in_tactic_mode_is_a_lean_error(broken_tactic: str) -> None:
    repl = MathlibRepl()  # Mathlib statements
    resp = repl.handle({"cmd": "theorem t (x : ℕ) : x = x := by\n  sorry"})
    out = repl.handle({"tactic": broken_tactic, "proofState": resp["sorries"][0]["proofState"]})
    assert out["message"].startswith(f"Lean error:\n{INTERNAL_ERROR}")
    assert repl.handle({"tactic": "rfl", "proofState": 0})["proofStatus"] == "Completed"


def test_the_protocol_server_survives_a_simulator_bug(broken_tactic: str) -> None:
    from lean_gym.sim.server import serve

    requests = [
        {"cmd": f"theorem t (x : Nat) : x = x := by\n  {broken_tactic}"},
        {"cmd": "theorem u (x : Nat) : x = x := by\n  rfl"},
    ]
    out = io.StringIO()
    rc = serve(io.StringIO("\n\n".join(json.dumps(r) for r in requests) + "\n\n"), out)
    answers = [json.loads(x) for x in out.getvalue().split("\n\n") if x.strip()]
    assert rc == 0 and len(answers) == 2
    assert answers[0]["messages"][0]["data"].startswith(INTERNAL_ERROR)
    assert "messages" not in answers[1]
