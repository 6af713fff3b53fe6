"""The simulator's modules form one direction: no module imports one above it (lazy imports included).

syntax → terms → elaboration → goals/local context → tactic core → tactic families registering into one
table → aesop → commands → REPL server. ``lean_gym/sim/__init__.py`` is the composition root above all of
them (it imports the library and the families so that they register). Every import of a ``lean_gym.sim``
module anywhere in a file — at the top, inside a function, under ``TYPE_CHECKING`` — is read with ``ast``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SIM = Path(__file__).resolve().parents[1] / "lean_gym" / "sim"

# lowest first; a module may import only modules of a lower rank (and its own subpackage)
LAYERS: list[tuple[str, ...]] = [
    # bounded memo tables and their switch (plain data); whether the simulator runs compiled (files only):
    # neither imports anything of the simulator
    ("memo", "native"),
    ("syntax",),
    ("terms",),
    ("arith",),  # the decision procedures (a subpackage over plain data)
    ("unify",),
    ("elab",),  # elaboration, the environment, signatures
    ("library",),  # the lemma library (its statements are elaborated) registers with Env.lookup
    ("goals",),  # goals and their local context
    ("tactics",),  # the tactic core: context, combinators, the tactic table
    ("evaluate",),  # closed evaluation, rfl and decide
    ("polyconv",),  # terms to polynomials (the arithmetic tactics and the kernel share it)
    ("proofs",),  # proof terms (by-blocks run through the core)
    ("kernel",),  # the trusted core: the only module that marks a goal closed (imports no tactic family)
    # simp's `arith` option (Lean core's `Nat.Linear` normal forms) and the ℕ offset simprocs (plain terms)
    ("simp_arith", "simp_nat"),
    ("simp",),  # the tactic families, registering into the core's table
    ("tac_arith",),
    ("tac_rcases",),  # intro, the rcases patterns and destructuring, cases/induction
    ("tac_basic",),  # exact, apply, have, constructor, … (uses the destructuring's subst/clear)
    ("rewrite",),  # the rewrite engine and rw (a rule's arguments are elaborated as apply does)
    # Mathlib's choose, linear_combination, tauto, cancel_denoms and field_simp; conversion mode; norm_cast as
    # Lean core's derive; Lean's grind
    (
        "tac_choose",
        "tac_lincomb",
        "tac_tauto",
        "tac_cancel",
        "tac_field_simp",
        "tac_conv",
        "tac_cast",
        "tac_grind",
    ),
    ("aesop_syntax",),
    ("aesop_cost", "aesop_rules"),  # aesop's cost model; its rule base (builtin rules, rules of the clauses)
    ("aesop_apply",),  # applying one rule to one goal, memoised
    ("aesop_search",),  # the search tree, expanded best-first
    ("aesop",),  # the tactic: parse, search, Lean's answer; registers aesop/aesop?
    ("families_text",),  # goal families written as Lean text (parsed by the core)
    ("families_terms",),  # the families' term builders and Lean source
    ("families_poly", "families_retrieval"),  # polynomials for the ring family; the lemma retriever
    ("families",),  # goal families for the envs' data (no tactic runs)
    ("commands",),
    ("jsonfmt",),
    ("repl",),
    ("server",),
    ("__main__",),
    ("__init__",),
]
RANK = {m: i for i, group in enumerate(LAYERS) for m in group}


def _module_of(path: Path) -> str:
    rel = path.relative_to(SIM)
    return rel.parts[0].removesuffix(".py") if len(rel.parts) == 1 else rel.parts[0]


def _imported(tree: ast.AST, path: Path) -> set[str]:
    """Top-level simulator modules that ``tree`` imports (``lean_gym.sim.X`` → ``X``)."""
    out: set[str] = set()
    pkg = ".".join(("lean_gym", "sim", *path.relative_to(SIM).parts[:-1]))
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            names = [mod] if mod != "lean_gym.sim" else [f"lean_gym.sim.{a.name}" for a in node.names]
        for n in names:
            parts = n.split(".")
            if parts[:2] == ["lean_gym", "sim"] and len(parts) > 2:
                out.add(parts[2])
    return out


def _files() -> list[Path]:
    return sorted(SIM.rglob("*.py"))


def test_every_simulator_module_has_a_layer() -> None:
    missing = sorted({_module_of(p) for p in _files()} - set(RANK))
    assert not missing, f"place these modules in LAYERS: {missing}"


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(SIM)))
def test_no_module_imports_one_above_it(path: Path) -> None:
    me = _module_of(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    above = sorted(m for m in _imported(tree, path) if m != me and RANK.get(m, len(RANK)) >= RANK[me])
    assert not above, f"{path.relative_to(SIM)} ({me}) imports modules above it: {above}"


def test_the_check_sees_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    """Control: a lazy import inside a function and one under TYPE_CHECKING are both seen."""
    src = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from lean_gym.sim.repl import SimRepl\n"
        "def f():\n    from lean_gym.sim import aesop\n    import lean_gym.sim.commands\n"
    )
    fake = SIM / "terms.py"
    assert _imported(ast.parse(src), fake) == {"repl", "aesop", "commands"}


def test_the_kernel_imports_no_tactic_family() -> None:
    """The trusted core relies on the core below it (defeq, the evaluator, polynomials, the proof checker)
    and on none of the tactics it checks."""
    path = SIM / "kernel.py"
    imported = _imported(ast.parse(path.read_text(encoding="utf-8")), path)
    families = {m for group in LAYERS[RANK["simp"] :] for m in group}
    assert imported and not imported & families, sorted(imported & families)
