"""Mathlib's ``tauto`` (``Mathlib/Tactic/Tauto.lean``), on the propositional structure of the goal.

Lean's ``tauto`` works classically: ``distribNot`` rewrites every hypothesis (``¬(a ∧ b)`` to
``¬a ∨ ¬b``, ``a → b`` to ``¬a ∨ b``, ``a ↔ b`` to both implications, ``¬¬a`` to ``a``, a ``Prop``
equality to ``↔``), ``casesMatching`` splits every ``∧ ∨ ↔ ∃`` hypothesis, the goal is split by
``constructorMatching`` (``∧ ↔ True``) and ``or_iff_not_imp_left``, and the leaves are closed by
``contradiction``, ``assumption``, ``rfl`` or ``solve_by_elim``. On propositional formulas that search is
a complete classical tableau, so it closes exactly the classical tautologies; the simulator decides that by
truth table (``a = a`` counts as true: ``rfl`` closes it as a goal, ``contradiction`` refutes its negation). Its atoms are the formulas that are not ``∧ ∨ → ↔ ¬ True False`` (an equation, an ``∃``, a
``∀``), compared up to the simulator's normal form, where Lean also destructs ``∃`` hypotheses and chains
``∀`` ones by ``solve_by_elim``: weaker there, never stronger.
"""

from __future__ import annotations

import itertools

from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import Decided, close
from lean_gym.sim.tactics import TacSyntax, TacticContext, TacticError, builtin
from lean_gym.sim.terms import FALSE, TRUE, Term
from lean_gym.sim.unify import canon

#: Beyond this many atoms the truth table is not tried (``2 ** 14`` rows).
MAX_ATOMS = 14

_FAILED = "tauto failed to solve some goals."


def _formula(t: Term, atoms: dict[Term, int]) -> Term:
    """``t`` with every atom replaced by ``("atom", i)``."""
    h = t[0]
    if t in (TRUE, FALSE):
        return t
    if h in ("∧", "∨", "→", "↔"):
        return (h, _formula(t[1], atoms), _formula(t[2], atoms))
    if h == "¬":
        return ("¬", _formula(t[1], atoms))
    if h == "≠":
        return ("¬", _formula(("=", t[1], t[2], t[3]), atoms))
    if h == "=" and t[1] == "Prop":
        return ("↔", _formula(t[2], atoms), _formula(t[3], atoms))
    if h == "=" and t[2] == t[3]:
        return TRUE  # a leaf goal `a = a` falls to `rfl`, a hypothesis `¬a = a` to `contradiction`
    key = canon(t)
    if key not in atoms:
        atoms[key] = len(atoms)
    return ("atom", atoms[key])


def _value(f: Term, row: tuple[bool, ...]) -> bool:
    h = f[0]
    if h == "atom":
        return row[f[1]]
    if h == "True":
        return True
    if h == "False":
        return False
    if h == "¬":
        return not _value(f[1], row)
    a = _value(f[1], row)
    if h == "∧":
        return a and _value(f[2], row)
    if h == "∨":
        return a or _value(f[2], row)
    if h == "→":
        return (not a) or _value(f[2], row)
    return a == _value(f[2], row)  # ↔


@builtin("tauto")
def _tauto(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    ts = syn.stream(1)
    if ts.tok.kind != "eof":
        raise TacticError(
            f"`tauto {ts.tok.text}` is outside the simulator's subset", ts.tok.start, ts.tok.end
        )
    atoms: dict[Term, int] = {}
    hyps = [_formula(p, atoms) for _, p in goal.props()]
    target = _formula(goal.target, atoms)
    if len(atoms) > MAX_ATOMS:
        raise TacticError(_FAILED)
    ctx.tick((len(hyps) + 1) * 2 ** len(atoms))
    for row in itertools.product((False, True), repeat=len(atoms)):
        if all(_value(h, row) for h in hyps) and not _value(target, row):
            raise TacticError(_FAILED)
    ctx.use_standard_axioms()
    return close(goal, Decided("tauto"), ctx)
