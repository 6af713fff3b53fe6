"""Headers are real: the simulator checks a statement under its header as Lean would (issue 19).

* An ``import`` of a module that is not on Lean's search path is Lean's ``unknown module prefix`` error
  (``findOLean`` in Lean core's ``src/Lean/Util/Path.lean``, leanprover/lean4 at 0514f7ca), and nothing
  after the header is elaborated.
* With no header (Lean core alone), Mathlib's notation (``ℕ``, ``ℝ``) is an unknown identifier and Mathlib's
  tactics (``linarith``, ``nlinarith``, ``norm_num``) are an ``unknown tactic`` (the REPL's
  ``unknown_tactic`` transcript records that wording for a name that is no tactic); ``aesop`` needs Aesop.
* Lean core's constants (``rfl``, ``trivial``, ``And.intro``, …) are known: where they do not fit the goal,
  the message is a type mismatch (Lean core's ``tests/lean/run/addPPExplicitToExposeDiff.lean`` at b7e66cf
  records ``exact rfl`` on ``1 = 2``), never "Unknown identifier".
* Loading a theorem file warns when rows have no header; every dataset lean-gym ships has headers.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import gymnasium as gym
import pytest

import lean_gym  # noqa: F401  (registers the env ids)
from lean_gym.backends import ReplBackend, SimBackend
from lean_gym.backends.repl import sim_command
from lean_gym.data import MINIF2F_SAMPLE, load_theorems
from lean_gym.data.loaders import HeaderlessRowsWarning

MATHLIB = "import Mathlib"
REAL = "theorem t (x : ℝ) (h : 2 * x = 4) : x = 2 := by\n  linarith"
CORE = "theorem c (a b : Nat) (h : a = b) : b + 0 = a := by\n  omega"


@pytest.fixture(scope="module", params=["sim", "sim-repl"])
def backend(request: pytest.FixtureRequest):
    be = (
        SimBackend()
        if request.param == "sim"
        else ReplBackend(command=sim_command(), pool_size=1, timeout=60)
    )
    yield be
    be.close()


# ------------------------------------------------------------------------------------------- imports
@pytest.mark.parametrize("where", ["header", "code"])
def test_an_import_lean_cannot_find_is_lean_error(backend, where: str) -> None:
    header, code = ("import Foo", CORE) if where == "header" else ("", "import Foo\n" + CORE)
    res = backend.check(code, header=header)
    assert res.status == "error"
    first = res.errors[0].data.removeprefix("in the header: ").split("\n")
    assert first[0] == "unknown module prefix 'Foo'"
    assert first[2] == "No directory 'Foo' or file 'Foo.olean' in the search path entries:"
    # nothing after the header ran: the one error is the import's
    assert len(res.errors) == 1


def test_a_submodule_of_an_unknown_package_is_refused_and_known_roots_are_not(backend) -> None:
    assert backend.check(CORE, header="import Foo.Bar.Baz").status == "error"
    assert backend.check(CORE, header="import Lean\nimport Std").status == "proved"
    assert backend.check(REAL, header="import Mathlib.Tactic").status == "proved"


def test_a_row_with_an_unknown_import_gets_no_reward() -> None:
    row = {"name": "c", "formal_statement": CORE.split(":= by")[0] + ":= by\n", "header": "import Foo"}
    env = gym.make("LeanProof-v0", backend="sim", theorems=[row])
    env.reset(seed=0)
    _, reward, _, _, info = env.step("  omega")
    assert reward < 0 and "unknown module prefix 'Foo'" in info["messages"]


# ----------------------------------------------------------------------------------- Mathlib needed
def test_mathlib_notation_without_the_import_is_refused_with_lean_first_line(backend) -> None:
    res = backend.check(REAL)
    assert res.status == "error"
    assert res.errors[0].data.split("\n")[0] == "Unknown identifier `ℝ`"
    assert backend.check(REAL, header=MATHLIB).status == "proved"


@pytest.mark.parametrize("tactic", ["linarith", "nlinarith", "norm_num", "positivity", "ring", "aesop"])
def test_mathlib_tactics_without_the_import_are_unknown(backend, tactic: str) -> None:
    code = f"theorem u (a b : Nat) (h : a ≤ b) : a ≤ b + 1 := by\n  {tactic}"
    res = backend.check(code)
    assert res.status == "error" and res.errors[0].data == "unknown tactic"


def test_aesop_needs_aesop_and_core_tactics_need_nothing(backend) -> None:
    code = "theorem v (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n  aesop"
    assert backend.check(code).status == "error"
    assert backend.check(code, header="import Aesop").status == "proved"
    assert backend.check(CORE).status == "proved"
    assert backend.check("theorem w : 2 + 2 = 4 := by decide").status == "proved"


def test_goals_under_lean_core_print_nat_and_under_mathlib_print_the_notation(backend) -> None:
    core = backend.check("theorem g (n : Nat) : n = n := by sorry")
    mathlib = backend.check("theorem g (n : ℕ) : n = n := by sorry", header=MATHLIB)
    assert [s.goal for s in core.sorries] == ["n : Nat\n⊢ n = n"]
    assert [s.goal for s in mathlib.sorries] == ["n : ℕ\n⊢ n = n"]


# ------------------------------------------------------------------------------- core constants
@pytest.mark.parametrize(
    ("stmt", "term", "has"),
    [
        ("1 = 2", "rfl", "?_ = ?_ : Prop"),
        ("∀ x : Nat, x + 1 = x", "rfl", "?_ = ?_ : Prop"),
        ("1 = 2", "trivial", "True : Prop"),
        ("1 = 2", "True.intro", "True : Prop"),
        ("1 = 2", "Nat.succ", "Nat → Nat : Type"),
        ("False", "Nat.zero", "Nat : Type"),
    ],
)
def test_core_constants_that_do_not_fit_are_a_type_mismatch(backend, stmt: str, term: str, has: str) -> None:
    code = f"theorem m : {stmt} := by\n  intros\n  exact {term}"
    res = backend.check(code)
    assert res.status == "error"
    text = res.errors[0].data
    assert "Unknown identifier" not in text
    assert text.startswith(f"Type mismatch\n  {term}\nhas type\n  {has}\nbut is expected to have type\n")


def test_exact_rfl_on_a_false_equation_matches_lean_record(backend) -> None:
    res = backend.check("example : 1 = 2 := by\n  exact rfl")
    assert res.errors[0].data == (
        "Type mismatch\n  rfl\nhas type\n  ?_ = ?_ : Prop\nbut is expected to have type\n  1 = 2 : Prop"
    )
    assert backend.check("example : 2 = 2 := by\n  exact rfl").status == "proved"
    assert backend.check("example : True := by\n  exact True.intro").status == "proved"


def test_constructors_that_do_not_fit_show_their_type(backend) -> None:
    res = backend.check("theorem n (p q : Prop) (hp : p) (hq : q) : p ∨ q := by\n  exact And.intro hp hq")
    assert res.errors[0].data.startswith("Type mismatch\n  And.intro hp hq\nhas type\n  p ∧ q : Prop\n")
    res = backend.check("theorem o (p q : Prop) (hp : p) : p ∧ q := by\n  exact Or.inl hp")
    assert res.errors[0].data.startswith("Type mismatch\n  Or.inl hp\nhas type\n  p ∨ ?_ : Prop\n")


def test_an_unmodelled_core_constant_is_not_called_unknown_and_a_made_up_name_is(backend) -> None:
    res = backend.check(
        "theorem q (f g : Nat → Nat) (h : f = g) (a : Nat) : f a = g a := by\n  exact congrFun h a"
    )
    assert res.status == "error" and "Unknown identifier" not in res.errors[0].data
    assert "does not model `congrFun`" in res.errors[0].data
    res = backend.check("theorem r (p : Prop) (hp : p) : p := by\n  exact my_fake_premise")
    assert res.errors[0].data == "Unknown identifier `my_fake_premise`"


# ---------------------------------------------------------------------------------------- loaders
def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_loading_rows_without_a_header_warns_once_naming_them(tmp_path: Path) -> None:
    rows = [
        {"name": "a", "formal_statement": "theorem a (x : ℝ) : x = x := by\n"},
        {"name": "b", "formal_statement": "theorem b (x : ℝ) : x = x := by\n", "header": MATHLIB},
        {"name": "c", "formal_statement": "theorem c : True := by\n", "header": "  "},
    ]
    path = _write(tmp_path / "mine.jsonl", rows)
    with pytest.warns(HeaderlessRowsWarning) as rec:
        thms = load_theorems(path)
    assert len(rec) == 1 and "2 of 3 theorems have no header (first: a)" in str(rec[0].message)
    assert [t.name for t in thms] == ["a", "b", "c"]


def test_shipped_datasets_have_headers_and_load_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", HeaderlessRowsWarning)
        sim = load_theorems("sim")
        sample = load_theorems(MINIF2F_SAMPLE)
    assert len(sim) == 900 and all(t.header.startswith("import Mathlib") for t in sim)
    assert len(sample) == 8 and all(t.header.startswith("import Mathlib") for t in sample)


def test_the_toy_theorems_of_the_agents_package_have_headers() -> None:
    pytest.importorskip("lean_gym_agents")
    from lean_gym_agents.grpo_toy import TOY_THEOREMS

    be = SimBackend()
    for row in TOY_THEOREMS:
        assert row["header"] == MATHLIB
        assert be.check(row["formal_statement"] + "  linarith", header=row["header"]).status == "proved"
