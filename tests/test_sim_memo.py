"""The simulator's memo tables change nothing but its speed (issue 22).

Every check here runs twice in this process, with the memo tables (``lean_gym.sim.memo``) switched on and
switched off, and what it produced is compared exactly: the verdict's messages (text and positions), the
sorries (their goals as printed), the axioms each declaration depends on, and the simulated heartbeats each
declaration's proof used. The checks:

* random satp-v1 aesop actions over the simulator's train, valid and test splits;
* the same goal under many configs (what the calibration and the bandit do);
* a mix of tactic proofs (``LeanProof-v0``'s kind of action);
* sequences built to poison a memo: the same goal text under different environments and headers (a
  ``def`` with another value, ``open``, a namespace, Mathlib or not), shadowed and renamed locals, goals
  equal up to the names of their locals, budgets swept across the point where a check runs out of
  heartbeats (``set_option maxHeartbeats N in`` and in the header), aesop inside ``first``/``try`` (errors
  are not recovered from there), a ``sorry`` or a self-reference before the search, ``allTactics``.

They run in several orders (forward, backward, shuffled) with the tables kept warm between runs, so an
answer remembered in one environment, budget or context is offered to every other one. The uncached runs
are compared with each other in those orders as well: a check's answer does not depend on what the
process checked before. Nothing asserts on wall-clock time.
"""

from __future__ import annotations

import bisect
import contextvars
import gc
import random
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import pytest

import lean_gym.sim  # the tactic table, and whether it runs compiled
from lean_gym.aesop import layout as get_layout
from lean_gym.data import load_theorems
from lean_gym.lean.lexer import LexToken, lex, lex_lines, slices_whole
from lean_gym.lean.lexer import _Lexer as Lexer
from lean_gym.sim import memo
from lean_gym.sim.aesop import clear_cache
from lean_gym.sim.commands import run_commands
from lean_gym.sim.elab import Env
from lean_gym.sim.syntax import Source, _tokenize, tokenize
from lean_gym.sim.tactics import TacticContext, goal_from_statement, heartbeat_cap, run_tactic
from lean_gym.sim.terms import FVAR_SEP, free_vars

Check = tuple[str, str]  # (header, code)
MATHLIB_ENV = Env(imports=("Mathlib",))
M = "import Mathlib\nimport Aesop\n"  # the statements and tactics here are Mathlib's (without it, Lean core)


def _observe(checks: Sequence[Check], cache: bool, cap: int = 400_000) -> list[Any]:
    """What each check produced, in order, run in one simulated process with the tables on or off.

    The checks run at the bottom of a fresh thread's stack, in a copy of the caller's context (the memo and
    budget switches are context variables), and the caller waits for them. Why: Python 3.11 keeps frames in
    16 KiB chunks that it maps when a call crosses a chunk's end and unmaps when the call returns, so a
    recursion that keeps crossing one boundary maps and unmaps memory on every crossing; where that boundary
    falls depends on how deep the caller already is. At the depth of a test under plain ``pytest`` the
    corpus test below made about 2 million such pairs and took twice the CPU it takes from a fresh stack;
    from a fresh thread its depth is the same whatever runs the test. The answers do not depend on it.
    """
    out: list[Any] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            out.extend(_observe_here(checks, cache, cap))
        except BaseException as e:  # re-raised in the caller's thread, where pytest reports it
            failed.append(e)

    context = contextvars.copy_context()
    worker = threading.Thread(target=context.run, args=(run,))
    worker.start()
    worker.join()
    if failed:
        raise failed[0]
    return out


def _observe_here(checks: Sequence[Check], cache: bool, cap: int) -> list[Any]:
    """:func:`_observe`'s work, in the calling thread."""
    envs: dict[str, Env] = {}
    out: list[Any] = []
    with memo.caching(cache), heartbeat_cap(cap):
        for header, code in checks:
            env = envs.get(header)
            if env is None:
                env = envs[header] = run_commands(header, Env(), True).env if header else Env()
            res = run_commands(code, env, not header, all_tactics="allTactics" in code)
            decls = sorted(
                (n, tuple(sorted(d.axioms))) for n, d in res.env.decls.items() if n not in env.decls
            )
            out.append(
                (
                    [(m.severity, m.start, m.end, m.data) for m in res.messages],
                    [(g.pretty(), s, e, d) for g, s, e, d in res.sorries],
                    [(t, tuple(g.pretty() for g in gs), s, e) for t, gs, s, e in res.tactics],
                    res.heartbeats,
                    decls,
                )
            )
    return out


def _assert_same(
    checks: Sequence[Check], orders: Iterable[str] = ("forward", "backward", "shuffled"), history: bool = True
) -> list[Any]:
    """Cached runs (tables kept warm across orders) equal the uncached runs, check by check; with
    ``history``, the uncached runs backward equal them too. Returns what the uncached runs produced."""
    clear_cache()
    reference = _observe(checks, cache=False)
    rng = random.Random(0)
    for order in orders:
        idx = list(range(len(checks)))
        if order == "backward":
            idx.reverse()
        elif order == "shuffled":
            rng.shuffle(idx)
        got = _observe([checks[i] for i in idx], cache=True)
        for k, i in enumerate(idx):
            assert got[k] == reference[i], f"{order}: check {i} differs with the memo:\n{checks[i][1]}"
    if history:
        again = _observe(list(reversed(checks)), cache=False)
        assert again[::-1] == reference, "an uncached answer depends on what was checked before"
    return reference


def _errors(obs: Any) -> list[str]:
    return [m[3] for m in obs[0] if m[0] == "error"]


def _timed_out(obs: Any) -> bool:
    return any("maximum number of heartbeats" in e for e in _errors(obs))


def _aesop_checks(split: str, n: int, seed: int, per_goal: int = 1) -> list[Check]:
    lay = get_layout("satp-v1")
    thms = load_theorems("sim", split=split)
    rng = np.random.default_rng(seed)
    out: list[Check] = []
    for _ in range(n):
        t = thms[int(rng.integers(len(thms)))]
        head = t.formal_statement.rstrip()
        for _ in range(per_goal):
            a = rng.integers(0, np.asarray(lay.nvec))
            tactic = lay.render(a, list(t.context_lemmas))
            out.append((t.header, f"set_option maxHeartbeats 200000 in\n{head}\n{tactic}\n"))
    return out


# ------------------------------------------------------------------------------------------ workloads


@pytest.mark.parametrize("split", ["train", "valid", "test"])
def test_random_aesop_actions_are_answered_the_same_with_and_without_the_memo(split: str) -> None:
    checks = _aesop_checks(split, 40, seed={"train": 1, "valid": 2, "test": 3}[split])
    checks += checks[:10]  # the same checks again: every answer comes from the tables the second time
    _assert_same(checks, orders=("shuffled",), history=False)


def test_one_goal_under_many_configs_is_answered_the_same() -> None:
    # the calibration's and the bandit's pattern: the tables are warm for everything but the config
    checks = _aesop_checks("test", 3, seed=7, per_goal=16)
    _assert_same(checks, orders=("forward",), history=False)


TACTICS = (
    "linarith",
    "nlinarith [sq_nonneg (a - b), sq_nonneg (a + b)]",
    "nlinarith [h₀, h₁]",
    "positivity",
    "norm_num",
    "norm_num [h₀] at *",
    "simp",
    "simp_all",
    "omega",
    "decide",
    "ring_nf",
    "aesop",
    "aesop?",
    "first | linarith | nlinarith | positivity",
    "constructor <;> linarith",
    "intro h\n  linarith",
    "have h := h₀\n  linarith",
    "rcases h₀ with ⟨a, b⟩\n  simp_all",
    "field_simp\n  ring",
    "norm_num at h₀ ⊢\n  linarith",
    "try simp at *\n  omega",
    "sorry",
    "exact?",
    "interval_cases x <;> simp_all",
)


def test_a_mix_of_tactic_proofs_is_answered_the_same() -> None:
    thms = load_theorems("sim", split="test")
    rng = random.Random(5)
    checks = []
    for k in range(600):
        t = thms[rng.randrange(len(thms))]
        checks.append((t.header, f"{t.formal_statement.rstrip()}\n  {TACTICS[k % len(TACTICS)]}\n"))
    _assert_same(checks, orders=("shuffled",))


# ------------------------------------------------------------------------------------ adversarial

MATHLIB = "import Mathlib\nimport Aesop\n\nset_option maxHeartbeats 400000\n\nopen BigOperators Real Nat Topology Rat\n"
ENV_GOALS = (
    "theorem t : c + 0 = 2 := by\n  aesop (add safe (by unfold c; rfl))\n",
    "theorem t : c = 2 := by\n  aesop (add safe (by simp [c]))\n",
    "theorem t : c * 1 = 2 := by\n  aesop (add unsafe 50% (by norm_num [c]))\n",
    "theorem t (x : ℕ) (h : x = c) : x = 2 := by\n  aesop (add safe (by subst h; rfl)) (add norm unfold c)\n",
    "theorem t (x : ℕ) (h : x < c) : x < 3 := by\n  aesop (add safe (by unfold c at h; omega))\n",
)
HEADERS = (
    M + "def c : ℕ := 2\n",
    M + "def c : ℕ := 3\n",
    MATHLIB + "def c : ℕ := 2\n",
    M + "namespace A\ndef c : ℕ := 2\nend A\nopen A\n",
    M + "namespace A\ndef c : ℕ := 2\nend A\n",
    M + "def c : ℕ := 2\nset_option maxHeartbeats 2000\n",
    "def c : Nat := 2\n",  # Lean core: no ℕ, no aesop
)


def test_the_same_goal_text_in_other_environments_gets_its_own_answers() -> None:
    checks = [(h, g) for g in ENV_GOALS for h in HEADERS]
    checks += [(M, h[len(M) :] + g) for g in ENV_GOALS[:2] for h in HEADERS[:2]]  # the definition in the text
    ref = _assert_same(checks)
    # not vacuous: the same goal text is proved in one environment and not in another
    n = len(HEADERS)
    mixed = [len({not _errors(ref[g * n + h]) for h in range(n)}) == 2 for g in range(len(ENV_GOALS))]
    assert sum(mixed) >= 3


SHADOWS = (
    "theorem t (x : ℕ) (x : ℕ) (h : x = 1) : x = 1 := by\n  aesop\n",
    "theorem t (x : ℕ) (y : ℕ) (h : y = 1) : y = 1 := by\n  aesop\n",
    "theorem t (y : ℕ) (x : ℕ) (h : x = 1) : x = 1 := by\n  aesop\n",
    "theorem t (x y : ℝ) (h : x < y) : ∀ x : ℝ, x = x := by\n  aesop (add safe (by intro x; rfl))\n",
    "theorem t (x y : ℝ) (h : y < x) : ∀ y : ℝ, y = y := by\n  aesop (add safe (by intro y; rfl))\n",
    "theorem t (a b : ℕ) (h : a = b) : b = a := by\n  intro_h_dummy\n",
    "theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  aesop (add safe (by rename_i h; exact h))\n",
    "theorem t (p q : Prop) (hp : p) (hp : q) : p ∧ q := by\n  aesop (config := { terminal := true })\n",
    "theorem t (x : ℕ) (h : x > 0) : ∀ x : ℕ, x > 0 → x ≥ 1 := by\n  aesop (add safe (by omega))\n",
    "theorem t (x : ℕ) (h : x > 0) : ∀ y : ℕ, y > 0 → y ≥ 1 := by\n  aesop (add safe (by omega))\n",
    "theorem t (x x : ℝ) (h : x * x ≥ 0) : x * x + x * x ≥ 0 := by\n  aesop (add safe (by nlinarith)) (add safe (by ring_nf at *))\n",
    "theorem t (x y : ℝ) (h : y * x ≥ 0) : y * x + y * x ≥ 0 := by\n  aesop (add safe (by ring_nf at *)) (add unsafe 50% (by positivity))\n",
    "theorem t (x : ℝ) (h₀ : x ≠ 0) : ¬ (x = 0) := by\n  aesop (add safe (by intro a; exact h₀ a))\n",
    "theorem t (n : ℕ) (h : n % 2 = 1) : n ≠ 0 := by\n  aesop (add safe (by intro hn; subst hn; simp at h))\n",
)


def test_shadowed_and_renamed_locals_get_their_own_answers() -> None:
    _assert_same([(M, s) for s in SHADOWS] + [(MATHLIB, s) for s in SHADOWS])


HEAVY = (
    "theorem t (a b c : ℝ) (h₀ : 0 < a) (h₁ : 0 < b) (h₂ : 0 < c) : a * b * c > 0 := by\n"
    "  aesop (add unsafe 90% (by nlinarith [sq_nonneg (a - b), sq_nonneg (b - c)])) (add unsafe 80% (by positivity))"
    " (add unsafe 70% (by linarith)) (add safe (by ring_nf at *))\n",
    "theorem t (x y : ℤ) (h₀ : 3 * x + 2 * y = 7) (h₁ : x - y = 4) : x = 3 := by\n"
    "  aesop (add unsafe 90% (by omega)) (add unsafe 80% (by linarith)) (add unsafe 70% (by nlinarith))\n",
    "theorem t (x : ℝ) (h : x ^ 2 - 3 * x + 2 = 0) (h' : x ≠ 1) : x = 2 := by\n"
    "  aesop (add unsafe 90% (by nlinarith [h, h'])) (add unsafe 80% (by field_simp at *)) (add unsafe 50% (by simp_all))\n",
)


# `ring` falls back to `ring_nf`, and turns any failure of it into its own: a budget that runs out inside the
# expansion is swallowed there, so the rule's answer (and cost) holds for that budget only
RING_SWALLOWS = (
    "theorem t (a b c d : ℝ) : (a + b + c + d) ^ 6 < (a + b + c + d) ^ 6 + 1 := by\n"
    "  aesop (config := { enableSimp := false }) (add safe (by ring)) (add unsafe 50% (by positivity))\n"
)


def _chain(k: int) -> str:
    """A goal omega proves only with a large search budget, which it sizes by the heartbeats left (``k = 8, 9``:
    with 110000 left it succeeds, with 30000 or 60000 it gives up), at a cost of a few hundred heartbeats."""
    vs = " ".join(f"a{i}" for i in range(k + 1))
    hyps = " ".join(f"(h{i} : a{i} - a{i + 1} ≤ 1)" for i in range(k))
    return f"theorem t ({vs} : ℕ) {hyps} : a0 - a{k} ≤ {k} := by\n  aesop (add safe (by omega))\n"


def _sweep(code: str, budgets: Iterable[int]) -> list[Check]:
    return [(M, f"set_option maxHeartbeats {n} in\n{code}") for n in budgets]


def test_budgets_that_run_out_part_way_time_out_at_the_same_point() -> None:
    checks: list[Check] = []
    for code in (*HEAVY, RING_SWALLOWS):
        full = _observe([(M, code)], cache=False)[0][3][0][1]  # the heartbeats the proof uses
        assert full > 0
        budgets = sorted({max(100, int(full * f / 20)) for f in range(4, 26)} | {full - 1, full, full + 1})
        checks += [(M, code), *_sweep(code, budgets)]
        # a generous budget first, so that every replay is offered to the smaller ones
        checks += [(M + f"set_option maxHeartbeats {b}\n", code) for b in (full // 3, full // 2, full + 50)]
        checks += _sweep(code, (100_001, 99_999, 500_000, 0))  # linarith/omega size their search by it
    ref = _assert_same(checks)
    outcomes = [_timed_out(o) for o in ref]
    assert any(outcomes) and not all(outcomes)  # the sweep crosses the point where the budget runs out


def test_a_search_sized_by_the_budget_left_is_replayed_only_where_it_reads_the_same_budget() -> None:
    checks: list[Check] = []
    checks += _sweep(_chain(9), (110_000, 60_000, 99_999, 200_000))
    ref = _assert_same(checks, orders=("forward", "backward"), history=False)
    proved = [not _errors(o) for o in ref]
    assert any(proved) and not all(
        proved
    )  # the same answer is right under one budget and wrong under another


CONTEXTS = (
    "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  first | aesop (add safe (by linarith)) | skip\n",
    "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  try aesop (add safe (by linarith))\n",
    "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  aesop (add safe (by linarith))\n",
    "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  have h2 : x = x := sorry\n  aesop (add safe (by linarith))\n",
    "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  aesop (add safe (by exact t x y h))\n",
    "theorem u (x y : ℝ) (h : x < y) : x ≤ y := by\n  aesop (add safe (by exact t x y h))\n",
    "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  aesop (add safe (by exact foo)) (add safe (by linarith))\n",
    "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  all_goals aesop (add safe (by linarith))\n",
    "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  aesop (add safe (by linarith)) -- allTactics\n",
    "theorem t (x y : ℝ) (h : x < y) : x ≤ y ∧ x < y := by\n  constructor\n  · aesop (add safe (by linarith))\n"
    "  · aesop (add safe (by sorry)) (add safe (by linarith))\n",
    "example (x y : ℝ) (h : x < y) : x ≤ y := by\n  aesop (add safe (by linarith))\n",
    "theorem t (p : Prop) (hp : p) : p ∧ p := by\n  aesop? (add safe (by exact hp))\n",
    "theorem t (n : ℕ) (h : n < 3) : n ^ 2 < 9 := by\n  aesop (add safe (by interval_cases n <;> simp))\n",
    "theorem t (x : ℕ) : x = x := by\n  aesop (add safe (by native_decide)) (add safe (by decide))\n",
    # an elaboration error inside a rule: recovered (and the rest of the rule runs) at the top of a proof,
    # raised inside `try`: the rule fails either way, after different work
    "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  aesop (add safe (by have h3 : x = foo := rfl; linarith))\n",
    "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  try aesop (add safe (by have h3 : x = foo := rfl; linarith))\n",
    "theorem t (x y : ℝ) (h : x < y) : x ≤ y ∧ x ≤ y := by\n  constructor\n  · sorry\n"
    "  · aesop (add safe (by linarith))\n",
)


def test_recover_sorry_self_reference_and_all_tactics_contexts_get_their_own_answers() -> None:
    axioms_first = M + "axiom foo : (1 : ℕ) = 1\n"
    checks = [(M, c) for c in CONTEXTS] + [(axioms_first, c) for c in CONTEXTS]
    checks += [
        (M, "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  linarith\n" + c.replace(" t ", " v ", 1))
        for c in CONTEXTS[:6]
    ]
    _assert_same(checks)


# ------------------------------------------------------------------------------------ the tables


def test_a_replayed_answer_makes_fresh_locals() -> None:
    clear_cache()
    stmt = "(p q r : Prop) (hp : p) : p → q → (r ∧ p)"
    call = "aesop (config := { warnOnNonterminal := false })"
    seen: set[str] = set()
    printed = []
    for _ in range(3):
        ctx = TacticContext(env=MATHLIB_ENV)
        goal = goal_from_statement(stmt, ctx)
        before = {n for n, _ in goal.hyps}
        rest = run_tactic(goal, call, ctx)
        assert rest, "the search should leave goals with the locals it made"
        ids = set()
        for g in rest:
            ids |= {n for n, _ in g.hyps}
            for _, t in g.hyps:
                ids |= {i for i in free_vars(t) if FVAR_SEP in i}
        made = ids - before
        assert not made & seen, "a replay gave a goal a local another goal already had"
        seen |= ids
        printed.append([g.pretty() for g in rest])
    assert printed[0] == printed[1] == printed[2]
    assert memo.stats()["aesop.builtin_steps"]["hits"] > 0
    # a statement elaborated again (from the table) gets locals of its own too
    hits = memo.stats()["elab.statements"]["hits"]
    g1, g2 = (goal_from_statement(stmt, TacticContext(env=MATHLIB_ENV)) for _ in range(2))
    assert memo.stats()["elab.statements"]["hits"] > hits
    assert not {n for n, _ in g1.hyps} & {n for n, _ in g2.hyps} and g1.pretty() == g2.pretty()


def test_memo_tables_are_bounded_by_entries_and_bytes() -> None:
    t = memo.Memo("test.bounds", max_entries=3, max_bytes=1000)
    for k in range(5):
        t.put(k, k, size=100)
    assert len(t) == 3 and t.get(0) is memo.MISS and t.get(4) == 4
    t.get(2)  # now the most recently used
    for k in range(5, 13):
        t.put(k, k, size=400)
    assert t.bytes <= 1000 and len(t) == 2 and t.get(2) is memo.MISS
    t.put("huge", 1, size=5000)  # larger than the whole table: not kept
    assert t.get("huge") is memo.MISS
    s = memo.stats()["test.bounds"]
    assert s["evictions"] > 0 and s["hits"] >= 1 and s["entries"] == len(t)


def test_the_switch_turns_every_table_off() -> None:
    clear_cache()
    code = "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  aesop (add safe (by linarith))\n"
    before = memo.stats()
    with memo.caching(False):
        assert not memo.enabled()
        with memo.caching(None):
            assert not memo.enabled()
        run_commands(code, MATHLIB_ENV, False)
        run_commands(code, MATHLIB_ENV, False)
    assert memo.stats() == before  # not one table was read or written
    run_commands(code, MATHLIB_ENV, False)
    run_commands(code, MATHLIB_ENV, False)
    assert memo.stats()["aesop.rule_results"]["hits"] > 0


def test_the_backend_the_repl_and_the_server_take_the_switch() -> None:
    from lean_gym.backends import make_backend
    from lean_gym.backends.repl import sim_command
    from lean_gym.backends.sim import SimBackend
    from lean_gym.sim.repl import SimRepl

    code = "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by\n  aesop (add safe (by linarith))\n"
    clear_cache()
    assert SimBackend(cache=False).check(code, header=M).status == "proved"
    assert SimRepl(cache=False).handle({"cmd": M + code}) == {"env": 0}
    assert memo.stats()["aesop.rule_results"]["entries"] == 0
    assert make_backend("sim", cache=False).cache is False
    assert sim_command(cache=False)[-1] == "--no-cache" and "--no-cache" not in sim_command()
    assert SimBackend().check(code, header=M).status == "proved"
    assert memo.stats()["aesop.rule_results"]["entries"] > 0
    req = '{"cmd": "theorem t (x : Nat) : x + 0 = x := by simp"}\n\n'
    for argv in (["--no-cache"], []):
        p = subprocess.run(
            [sys.executable, "-m", "lean_gym.sim", *argv],
            input=req,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert p.returncode == 0 and '"env": 0' in p.stdout
    p = subprocess.run(
        [sys.executable, "-c", "import lean_gym.sim.memo as m; print(m.enabled())"],
        env={"LEAN_GYM_SIM_CACHE": "0", "PATH": ""},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.stdout.strip() == "False"


# ------------------------------------------------------------------------------- lexing by lines


def _whole(text: str) -> list[LexToken]:
    lx = Lexer(text, len(text))
    lx.run(0)
    return lx.out


ALPHABET = [
    *"ab xy_'.12\n\n  ()[]{}⟨⟩-/*+=<>:;,|@#`«»\r\t\x00ℕλ∀→←·!?",
    "--",
    "/-",
    "-/",
    "/--",
    "aesop",
    "0x1F",
]
ALPHABET += ["1.5e3", "h.1", "r#", "s!", "⁻¹'", "∑'", "'a'", "x.2.1", "«a b»", "/- x -/", "\n  "]


def _random_texts(seed: int, n: int) -> Iterable[tuple[random.Random, str]]:
    """``n`` texts of up to 30 pieces of :data:`ALPHABET`, each with the generator (for drawing ranges)."""
    rng = random.Random(seed)
    for _ in range(n):
        yield rng, "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 30)))


def test_lexing_line_by_line_gives_the_whole_texts_tokens() -> None:
    read = 0
    for _, text in _random_texts(11, 4000):
        lines = lex_lines(text)
        if lines is None:
            continue
        read += 1
        shifted = [
            LexToken(k, s + off, e + off, tx, m, ip) for off, toks in lines for k, s, e, tx, m, ip in toks
        ]
        assert shifted == _whole(text), text
        assert lex(text) == _whole(text), text
    assert read > 1000


def test_tokens_of_a_range_cut_from_the_whole_text_are_the_ranges_own() -> None:
    for rng, text in _random_texts(12, 1500):
        src = Source(text)
        try:
            tokenize(text, src)
        except Exception:
            pass
        a, b = sorted(rng.randint(0, len(text)) for _ in range(2))
        try:
            want: Any = _tokenize(text, src, a, b)
        except Exception as e:
            want = type(e).__name__ + str(e)
        try:
            got: Any = tokenize(text, src, a, b)
        except Exception as e:
            got = type(e).__name__ + str(e)
        assert got == want, (text, a, b)


def test_a_range_read_by_lines_slices_the_whole_text_exactly_where_the_whole_reading_says() -> None:
    # slices_whole answers from the lines' tokens when the text reads line by line (no token is lexed
    # whole then): it must agree with the whole text's tokens on every range
    by_lines = 0
    for rng, text in _random_texts(13, 3000):
        toks = _whole(text)
        starts = [t.start for t in toks]
        by_lines += lex_lines(text) is not None
        for _ in range(8):
            a, b = sorted(rng.randint(0, len(text)) for _ in range(2))
            i, j = bisect.bisect_left(starts, a), bisect.bisect_left(starts, b)
            straddles = (i > 0 and toks[i - 1].end > a) or (j > 0 and toks[j - 1].end > b)
            want = not straddles and not any(t.kind == "error" for t in toks[i:j])
            assert slices_whole(text, a, b) == want, (text, a, b)
    assert by_lines > 500


def test_split_header_read_from_the_first_line_agrees_with_the_whole_reading(monkeypatch) -> None:
    # split_header decides from the first line when it can (every aesop check starts with
    # `set_option maxHeartbeats N in`); on texts built to confuse it, it agrees with the whole reading
    from lean_gym.lean import header

    heads = [
        "set_option",
        "import",
        "open",
        "theorem",
        " ",
        "--",
        "\n",
        "x",
        "/-",
        "«open»",
        "set_option a 1",
    ]
    parts = [*ALPHABET, "set_option", "import", "open", " in", " A.B", " 1", " maxHeartbeats", "theorem"]
    parts += ['"', '"s"', 's!"{x}"']  # string literals: the first line is read alone, the rest need not be
    rng = random.Random(14)
    texts = [
        "set_option maxHeartbeats 200000 in\ntheorem t : True := by\n  aesop\n",
        "import Mathlib\nopen Nat\nx",
    ]
    texts += [
        rng.choice(heads) + "".join(rng.choice(parts) for _ in range(rng.randint(0, 12))) for _ in range(6000)
    ]
    fast = sum(header._first_line_keeps_all(t) for t in texts)
    got = [header.split_header(t, "import Mathlib") for t in texts]
    monkeypatch.setattr(header, "_first_line_keeps_all", lambda code: False)
    want = [header.split_header(t, "import Mathlib") for t in texts]
    assert got == want
    assert fast > 1000


def test_a_failed_rule_leaves_no_frames_for_the_collector() -> None:
    # a rule that fails inside aesop is an exception caught and discarded; its frames are freed by reference
    # counting (memo.gc_paused: the collector's pass after a request costs what the request left behind)
    code = (
        "theorem t (x y : ℝ) (h : x < y) : x * y < y * y + 3 := by\n"
        "  aesop (add unsafe 50% (by linarith [nonexistent_lemma])) (add unsafe 50% (by first | exact foo | rw [bar]))"
        " (add safe (by exact nope))\n"
    )
    from lean_gym.backends.sim import SimBackend

    backend = SimBackend(cache=False)
    backend.check(code, header="import Mathlib")
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        backend.check(code, header="import Mathlib")
        gc.collect()
        kinds = {type(o).__name__ for o in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert "frame" not in kinds and "traceback" not in kinds, kinds


def test_the_whole_conformance_corpus_is_answered_the_same_with_and_without_the_memo() -> None:
    # Lean's recorded cases (lean_gym/conformance/cases): every command case, forward and shuffled with
    # the tables warm, against the uncached answers (issue 22: "byte-identical on the whole corpus")
    from lean_gym.conformance import load_cases

    checks = [(c.header, c.code) for c in load_cases(kinds=("command",))]
    assert len(checks) > 2000
    _assert_same(checks, orders=("forward", "shuffled"), history=False)


def test_a_text_read_line_by_line_gives_the_tokens_of_the_whole_reading() -> None:
    # the simulator's tokens of a text that reads line by line are placed from each line's remembered
    # reading (comments dropped, field indices glued within the line): they must be the tokens the lexer's
    # whole reading gives (`_tokenize` with an explicit end reads the text whole), read once and again
    read = 0
    for _, text in _random_texts(15, 3000):
        src = Source(text)
        try:
            want: Any = _tokenize(text, src, 0, len(text))
        except Exception as e:
            want = type(e).__name__ + str(e)
        for _ in range(2):  # the second reading places the remembered line readings
            try:
                got: Any = _tokenize(text, src, 0, None)
            except Exception as e:
                got = type(e).__name__ + str(e)
            assert got == want, text
        read += lex_lines(text) is not None and isinstance(want, list)
    assert read > 800


@pytest.mark.skipif(
    lean_gym.sim.compiled(),
    reason="replaces a method of a class, which compiled callers do not look up (make compile-sim's build; "
    "the pure-Python run checks it)",
)
def test_the_failure_probe_replays_exactly_what_apply_rule_would(monkeypatch) -> None:
    # Wherever the search's probe answers that a rule fails by a remembered answer, the rule's ordinary
    # application (on a twin of the context, from the same state) gives no expansion and charges the same
    # heartbeats, records the same needs in the memoised runs in progress and the same axioms
    import copy

    from lean_gym.sim import aesop_apply
    from lean_gym.sim.aesop_syntax import AesopOptions

    plain = aesop_apply.FailureProbe.fails
    seen: dict[str, int] = {}

    def fails(self: Any, rule: Any) -> bool:
        ctx = self._ctx
        twin = copy.copy(ctx)
        twin.memo_frames = [list(f) for f in ctx.memo_frames]
        twin.axioms = set(ctx.axioms)
        twin.messages, twin.sorries = list(ctx.messages), list(ctx.sorries)
        got = plain(self, rule)
        if got:
            assert aesop_apply.apply_rule(rule, self._goal, twin, AesopOptions()) == []
            assert (twin.heartbeats, twin.memo_frames, twin.axioms) == (
                ctx.heartbeats,
                ctx.memo_frames,
                ctx.axioms,
            ), rule
            seen[rule.kind] = seen.get(rule.kind, 0) + 1
        return got

    monkeypatch.setattr(aesop_apply.FailureProbe, "fails", fails)
    checks = _aesop_checks("test", 12, seed=16, per_goal=6) + _aesop_checks("valid", 30, seed=17)
    _observe(checks + checks[:20], cache=True)
    assert seen.get("tactic", 0) > 100 and seen.get("builtin", 0) > 100, seen


def test_the_failure_probe_leaves_an_apply_rule_at_default_transparency_to_apply_rule() -> None:
    # `(transparency! := default)` runs `apply` on the goal's unfolding (AesopTest/ApplyTransparency.lean at
    # b5b9e2bb45ce91e4bc44eaa738c3a8910404ab82, line 29: `T := True` is proved by True.intro): a failure
    # remembered for the same text on the folded goal (the first example's plain rule) is not its answer
    code = (
        "set_option aesop.smallErrorMessages true\n\ndef T := True\n\n"
        "example : T := by\n  aesop (add safe apply True.intro)\n\n"
        "example : T := by\n  aesop (add safe apply (transparency! := default) True.intro)\n"
    )
    checks = [("import Aesop", code)]
    clear_cache()
    want = _observe(checks, cache=False)
    assert _errors(want[0]) == ["tactic 'aesop' failed, made no progress"]  # the first example only
    clear_cache()
    assert _observe(checks, cache=True) == want == _observe(checks, cache=True)


def test_a_tactic_text_run_by_a_tactic_fails_the_same_way_parsed_once_or_afresh() -> None:
    # tactic texts that tactics run (bound's aesop call, a closer) are parsed once per process: a text
    # that does not parse gives the same error, at the same place, from the table as afresh
    from lean_gym.sim.tactics import TacticError

    def outcome(text: str) -> Any:
        try:
            return [
                g.pretty() for g in run_tactic(goal_from_statement("(x : ℕ) : x = x"), text, TacticContext())
            ]
        except TacticError as e:
            return (e.message, e.start, e.end)

    for text in ("rfl", "simp [", "first | linarith | rfl", "(rfl", "exact h", "rfl rfl"):
        with memo.caching(False):
            want = outcome(text)
        with memo.caching(True):
            assert outcome(text) == want == outcome(text), text


def test_a_failure_sheet_answers_only_under_its_own_environment_and_flags() -> None:
    # the probe reads a goal's remembered failures from one sheet per (environment, goal, flags): a failure
    # recorded in one environment, or before the proof held a sorry, is no answer in another, and a failure
    # stays an answer after the rule results' table forgets its twin (a failure is a function of its key)
    from lean_gym.sim import aesop_apply
    from lean_gym.sim.aesop_rules import Rule

    clear_cache()
    rule = Rule("t", "safe", 0, "tactic", "exact h")
    stmt = "(x : ℕ) (h : x = 2) : x + 1 = 3"

    def probe(ctx: TacticContext) -> bool:
        return aesop_apply.FailureProbe(goal_from_statement(stmt, ctx), ctx, {}).fails(rule)

    ctx = TacticContext(env=MATHLIB_ENV)
    g = goal_from_statement(stmt, ctx)
    assert not probe(ctx)  # nothing remembered yet
    assert aesop_apply.run_sub(g, "exact h", ctx) is None  # a failure, remembered
    assert probe(ctx)
    other_env = Env(imports=("Mathlib",), opens=("Real",))
    assert not probe(TacticContext(env=other_env))
    sorry_ctx = TacticContext(env=MATHLIB_ENV)
    sorry_ctx.axioms.add("sorryAx")
    assert not probe(sorry_ctx)
    assert aesop_apply.run_sub(goal_from_statement(stmt, sorry_ctx), "exact h", sorry_ctx) is None
    assert probe(sorry_ctx)
    # the flags of the context at the question, not when the probe was made
    ctx2 = TacticContext(env=MATHLIB_ENV)
    p = aesop_apply.FailureProbe(goal_from_statement(stmt, ctx2), ctx2, {})
    assert p.fails(rule)
    ctx2.hidden_sorry = True
    before = ctx2.heartbeats
    assert p.fails(rule) and ctx2.heartbeats > before  # the sorry sheet holds it too, charged
    ctx2.recover = not ctx2.recover
    assert not p.fails(rule)
    aesop_apply._RESULTS.clear()
    assert probe(ctx) and probe(sorry_ctx)
    clear_cache()
    assert not probe(ctx)
