"""Bad input is refused at load time with one clear line, never used silently (issue 18, classes 6, 8, 10).

A dataset row that carries more than its statement (a second declaration with its own proof, a proof
after ``:= by``, a ``def``) would be checked along with every submission and could pay for nothing; it is
refused on every path a row can take: JSONL and SATP files, ``theorems=[…]`` (dicts and ``Theorem``
objects), ``eval`` datasets and the oracle's own ``as_target``. So are duplicate names in an ``eval``
dataset, a complete but corrupt last line of a write-ahead log, and ``theorems=[…]`` given with
``source=``/``split=``. And a few bugs of the kind that copies breed: budgets lost in pickling, ``ResetNeeded``
raised as a plain error, a second evaluator with another ℤ division.
"""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path

import cloudpickle
import gymnasium as gym
import pytest
from mathlib_header import MathlibRepl

import lean_gym  # noqa: F401
from lean_gym.backends import SimBackend
from lean_gym.buffers import read_wal
from lean_gym.data import Theorem, load_theorems
from lean_gym.data.theorem import statement_problem
from lean_gym.errors import ConfigError, LeanGymError, ResetNeededError
from lean_gym.evaluation import run_eval
from lean_gym.grading.statement import as_target
from lean_gym.sim.families import evaluate

GOOD = "theorem t (x : ℕ) : x + 0 = x := by\n"
# each of these carries something besides one statement header ending in `:= by`
CARRIERS = [
    "theorem t (x : ℕ) : x + 0 = x := by\n  simp\ntheorem u : True := by\n",  # issue 18's row
    "theorem t (x : ℕ) : x + 0 = x := by\n  simp\nexample : True := by\n",
    "theorem t (x : ℕ) : x + 0 = x := by simp\nlemma u : True := by\n",
    "theorem t (x : ℕ) : x + 0 = x := by\n  simp",  # a proof after `:= by`
    "theorem t (x : ℕ) : x + 0 = x := by sorry",
    "theorem t (x : ℕ) : x + 0 = x := by\n  omega\n",
    "def helper : ℕ := 0\ntheorem t (x : ℕ) : x + 0 = x := by\n",
    "instance : Inhabited ℕ := ⟨0⟩\ntheorem t (x : ℕ) : x + 0 = x := by\n",
    "theorem t (x : ℕ) : x + 0 = x := by\n  sorry\n#print axioms t\n",
    "open Nat in\ntheorem t (x : ℕ) : x + 0 = x := by\n",
    "theorem t (x : ℕ) : x + 0 = x := trivial\n",
    "theorem t (x : ℕ) : x + 0 = x :=\n",
]


@pytest.mark.parametrize("stmt", CARRIERS)
def test_a_statement_with_more_than_one_header_has_a_problem(stmt: str) -> None:
    assert statement_problem(stmt) is not None


@pytest.mark.parametrize(
    "stmt",
    [
        GOOD,
        "theorem t (x : ℕ) : x + 0 = x := by",
        "/-- The statement. -/\ntheorem t (x : ℕ) : x + 0 = x := by\n",
        "@[simp] theorem t (x : ℕ) : x + 0 = x := by\n",
        "theorem t (x : ℕ) -- a comment: theorem u : True := by simp\n  : x + 0 = x := by\n",
        "theorem t (f : ℕ → ℕ) (h : f = fun n => by exact n) : f 0 = 0 := by\n",
        "theorem t (x : ℕ) (h : x = (by exact 0)) : x = 0 := by\n",
    ],
)
def test_one_header_is_fine_whatever_its_comments_and_terms(stmt: str) -> None:
    assert statement_problem(stmt) is None, statement_problem(stmt)


def _jsonl(tmp_path: Path, rows: list[dict]) -> Path:  # type: ignore[type-arg]
    p = tmp_path / "rows.jsonl"
    p.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return p


@pytest.mark.parametrize("stmt", CARRIERS[:4])
def test_every_loader_refuses_the_row_naming_it(tmp_path: Path, stmt: str) -> None:
    ok = {"name": "ok", "formal_statement": "theorem ok : True := by\n"}
    bad = {"name": "t", "formal_statement": stmt}
    p = _jsonl(tmp_path, [ok, bad])
    with pytest.raises(ValueError, match=r"rows\.jsonl:2: formal_statement ") as e:
        load_theorems(p)
    assert "\n" not in str(e.value)  # one line
    with pytest.raises(ValueError, match=r"theorems\[1\]: formal_statement "):
        gym.make("LeanProof-v0", backend="sim", theorems=[ok, bad])
    with pytest.raises(ValueError, match=r"theorems\[0\] \(t\): formal_statement "):
        gym.make("LeanTactic-v0", backend="sim", theorems=[Theorem(name="t", formal_statement=stmt)])
    with pytest.raises(ValueError, match=r"dataset row 1: the theorem 't': formal_statement "):
        run_eval(_jsonl(tmp_path, [{"name": "t", "proof": "simp"}]), [ok, bad], backend="sim", progress=False)
    with pytest.raises(ValueError, match=r"the theorem 't': formal_statement "):
        as_target(bad)


def test_a_satp_row_is_split_at_its_own_declaration(tmp_path: Path) -> None:
    """A ``:= by`` inside the proof (``have h : … := by``) is not the end of the statement."""
    ctx = (
        "import Mathlib\n-- theorem decoy : False := by\n\ntheorem s (x : ℕ) (h : x = 2) : x + 0 = 2 := by\n"
        "  have k : x = 2 := by\n    exact h\n  simp [k]\n"
    )
    (t,) = load_theorems(_jsonl(tmp_path, [{"context_theorem": ctx, "context_goal_state": "⊢ x"}]))
    assert t.name == "s" and t.formal_statement == "theorem s (x : ℕ) (h : x = 2) : x + 0 = 2 := by\n"
    assert t.header == "import Mathlib\n-- theorem decoy : False := by\n\n"


def test_the_issue_row_pays_nothing_any_more() -> None:
    row = {"name": "t", "formal_statement": CARRIERS[0]}
    with pytest.raises(ValueError, match="holds 2 declarations"):
        gym.make("LeanProof-v0", backend="sim", theorems=[row])


# ------------------------------------------------------------------------------------- eval names


def test_eval_refuses_two_rows_with_one_name(tmp_path: Path) -> None:
    rows = [
        {"name": "t", "formal_statement": "theorem t : True := by\n"},
        {"name": "t", "formal_statement": "theorem t : 1 = 1 := by\n"},
    ]
    cands = _jsonl(tmp_path, [{"name": "t", "proof": "trivial"}])
    with pytest.raises(ValueError, match=r"dataset rows 0 and 1 are both named 't'"):
        run_eval(cands, rows, backend="sim", progress=False)
    ds = tmp_path / "ds.jsonl"
    ds.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(ValueError, match=r"both named 't'"):
        run_eval(cands, ds, backend="sim", progress=False)


# --------------------------------------------------------------------------------- theorems=[...]


@pytest.mark.parametrize("env_id", ["LeanProof-v0", "LeanTactic-v0", "LeanAesop-v0", "LeanHackable-v0"])
@pytest.mark.parametrize("kw", [{"source": "bogus"}, {"split": "nosuch"}, {"source": "sim", "split": "test"}])
def test_theorems_with_source_or_split_is_refused(env_id: str, kw: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(ConfigError, match=r"pass theorems=\[\.\.\.\] or source=/split=, not both"):
        gym.make(env_id, backend="sim", theorems=[{"name": "t", "formal_statement": GOOD}], **kw)


def test_vector_envs_still_share_their_theorems() -> None:
    env = gym.make_vec(
        "LeanProof-v0",
        num_envs=2,
        vectorization_mode="vector_entry_point",
        backend="sim",
        source="sim",
        split="test",
    )
    assert len(env.unwrapped.envs[1].theorems) == len(env.unwrapped.envs[0].theorems) > 0
    env.close()


# --------------------------------------------------------------------------------- write-ahead log


def test_a_complete_but_corrupt_last_wal_line_is_an_error(tmp_path: Path) -> None:
    wal = tmp_path / "x.wal.jsonl"
    wal.write_bytes(b'{"a": 1}\n{not json}\n')
    with pytest.raises(LeanGymError, match=r"x\.wal\.jsonl:2: not valid JSON"):
        read_wal(wal)
    wal.write_bytes(b'{"a": 1}\n{not json}\n\n\n')  # blank lines after it change nothing
    with pytest.raises(LeanGymError, match=r"x\.wal\.jsonl:2"):
        read_wal(wal)
    wal.write_bytes(b'{"a": 1}\n{"a": 2, "b": "cut mi')  # unterminated: a torn write, dropped
    assert read_wal(wal) == [{"a": 1}]


# ------------------------------------------------------------------------------------ pickling


def test_sim_backend_keeps_the_callers_budgets_through_pickling() -> None:
    b = SimBackend(max_heartbeats=20, timeout=5, recycle_after=7, name="mine")
    for copy in (pickle.loads(pickle.dumps(b)), cloudpickle.loads(cloudpickle.dumps(b))):
        assert (copy.max_heartbeats, copy.timeout, copy.recycle_after, copy.name) == (20, 5, 7, "mine")
        # and the budget is the one in force: a proof that needs more heartbeats times out
        code = "theorem t (a b c d : ℕ) : (a + b + c + d) ^ 6 = (d + c + b + a) ^ 6 := by ring"
        res = copy.check(code, header="import Mathlib")
        assert res.status == "error" and "heartbeats (20)" in res.messages_text()


def test_an_env_shipped_elsewhere_keeps_its_backends_budgets() -> None:
    env = gym.make(
        "LeanProof-v0",
        backend=SimBackend(max_heartbeats=1234, timeout=7.5),
        theorems=[{"name": "t", "formal_statement": GOOD}],
    )
    copy = cloudpickle.loads(cloudpickle.dumps(env))
    assert (copy.unwrapped.backend.max_heartbeats, copy.unwrapped.backend.timeout) == (1234, 7.5)


# ------------------------------------------------------------------------------------ ResetNeeded


@pytest.mark.parametrize("env_id", ["LeanAesop-v0", "LeanProof-v0", "LeanTactic-v0", "LeanHackable-v0"])
def test_every_call_before_reset_raises_reset_needed(env_id: str) -> None:
    env = gym.make(env_id, backend="sim", theorems=[{"name": "t", "formal_statement": GOOD}]).unwrapped
    action = env.action_space.sample() if env_id.startswith("LeanAesop") else "  simp"
    with pytest.raises(ResetNeededError, match=r"call reset\(\)"):
        env.step(action)
    for name, args in [("prepare", (action,)), ("run_tac", (0, "simp")), ("proof", ())]:
        if hasattr(env, name):
            with pytest.raises(ResetNeededError, match=r"call reset\(\)"):
                getattr(env, name)(*args)
    env.close()


# ------------------------------------------------------------------------------------ one evaluator


@pytest.mark.parametrize(
    ("op", "a", "b", "want"),
    [("/", 7, -2, -3), ("/", -7, 2, -4), ("/", -7, -2, 4), ("%", -7, 2, 1), ("%", 7, -2, 1), ("/", 5, 0, 0)],
)
def test_evaluate_divides_integers_as_lean_does(op: str, a: int, b: int, want: int) -> None:
    t = (op, "ℤ", ("fvar", "a"), ("fvar", "b"))
    assert evaluate(t, {"a": a, "b": b}) == want


def _lit(n: int, ty: str) -> str:
    return f"({n} : {ty})" if n >= 0 else f"(-{-n} : {ty})"


def test_evaluate_agrees_with_the_simulators_decide_on_random_arithmetic() -> None:
    """The ground truth against the ``decide`` tactic, through the Lean text and the whole simulator."""
    rng = random.Random(18)
    repl = MathlibRepl()  # ℕ and ℤ are Mathlib's notation
    for _ in range(120):
        ty = rng.choice(["ℕ", "ℤ"])
        op = rng.choice(["+", "-", "*", "/", "%"])
        a, b = rng.randint(-9, 9), rng.choice([-3, -2, -1, 0, 1, 2, 3, 7])
        if ty == "ℕ":
            a, b = abs(a), abs(b)
        want = evaluate((op, ty, ("fvar", "a"), ("fvar", "b")), {"a": a, "b": b})
        for c, holds in ((want, True), (want + 1, False)):
            code = f"theorem t : {_lit(a, ty)} {op} {_lit(b, ty)} = {_lit(c, ty)} := by decide"
            proved = "messages" not in repl.handle({"cmd": code})
            assert proved == holds, code
