"""Aesop's cost model: the heartbeats the simulator's aesop charges beside what its rule tactics charge.

What a rule tactic costs on Lean grows with the goal it reads (its hypotheses, atoms, size, polynomial
degree, and for ``nlinarith`` the products it forms), so :func:`tactic_cost` charges from those measures,
and the search charges :data:`COST_EXPANSION`, :data:`COST_RAPP`, :data:`COST_NORM_STEP` and
:data:`COST_BUILTIN` for its own steps (:mod:`lean_gym.sim.aesop_search`).

SATP's record bounds the charges from above: each of its 92 theorems was proved on Lean by its aesop call
within the default 200000 heartbeats, and its minimal proof is the script Lean's ``aesop?`` printed for that
search, so the rules Lean ran (and that failed) on each goal are known. ``benchmarks/bench_satp_paths.py``
replays those paths through these charges; a path that costs more than 200000 here is a charge Lean does
not pay.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from lean_gym.sim.goals import Goal
from lean_gym.sim.memo import MISS, IdentityMemo
from lean_gym.sim.memo import enabled as memo_enabled
from lean_gym.sim.native import NATIVE_DEPTH, TOO_DEEP

__all__ = [
    "COST_BUILTIN",
    "COST_EXPANSION",
    "COST_NORM_STEP",
    "COST_PER_CASE",
    "COST_RAPP",
    "goal_degree",
    "goal_measure",
    "nlinarith_size",
    "tactic_cost",
    "tactic_result_cost",
    "term_degree",
]

# Heartbeats charged by the search itself, on top of what the simulator's tactics charge (which is small:
# tens to hundreds per call). Real Lean spends most of an aesop call inside rule tactics, and what a tactic
# costs grows with the work it does: simp and the normalisers walk every hypothesis and the target,
# linarith's Fourier-Motzkin/simplex grows with hypotheses times atoms, nlinarith first multiplies pairs of
# hypotheses (quadratic in them) and then runs linarith over the products, interval_cases pays per case. The
# model below charges that, failed calls included, so a search that tries many expensive rules on a large
# context runs into ``maxHeartbeats`` as it does on Lean, while the one cheap right rule on a small goal costs
# little. Its scale was first a guess (about 20 heartbeats per millisecond of a typical Mathlib run); SATP's
# record bounds it from above (see the module docstring), and where it contradicted the record it was cut.
COST_EXPANSION = 20
COST_RAPP = 40
COST_NORM_STEP = 20
COST_BUILTIN = 5
COST_PER_CASE = 2500
"""Heartbeats per goal that ``interval_cases`` produces (each case is elaborated and simplified)."""


@lru_cache(maxsize=65536)
def _term_size(t: Any) -> int:
    """Nodes of a term (any tuple shape: the measure does not depend on how terms are encoded)."""
    return _nodes(t, 0)


def _nodes(t: Any, depth: int) -> int:
    # the recursion counts its depth: compiled (make compile-sim), nothing else bounds it (native.NATIVE_DEPTH)
    if depth > NATIVE_DEPTH:
        raise RecursionError(TOO_DEEP)
    if not isinstance(t, tuple):
        return 0
    return 1 + sum(_nodes(c, depth + 1) for c in t if isinstance(c, tuple))


_DEGREE_MAX = 8


def term_degree(t: Any) -> int:
    """Polynomial degree of a term in its variables (``x * y ^ 2`` is 3; a non-polynomial node such as
    ``|x|`` or a cast counts as one atom); for a proposition, the highest degree of its sides.

    Read off the syntax, without expanding (``Poly.degree`` would need the expansion, whose work this cost
    model is there to charge), so ``(x + 1) ^ 2 - x ^ 2`` counts 2 where the polynomial (``2 * x + 1``) has
    degree 1.

    Raises:
        RecursionError: for a term nested deeper than :data:`lean_gym.sim.native.NATIVE_DEPTH`.
    """
    return _degree(t, 0)


def _degree(t: Any, depth: int) -> int:
    if depth > NATIVE_DEPTH:  # see _nodes
        raise RecursionError(TOO_DEEP)
    depth += 1
    if not isinstance(t, tuple) or not t:
        return 0
    head = t[0]
    kids = [c for c in t[1:] if isinstance(c, tuple)]
    if head == "num":
        return 0
    if head == "fvar":
        return 1
    if head == "*":
        return min(sum(_degree(c, depth) for c in kids), _DEGREE_MAX)
    if head == "^" and len(kids) == 2:
        k = kids[1][-1] if kids[1][:1] == ("num",) and isinstance(kids[1][-1], int) else 2
        return min(_degree(kids[0], depth) * max(k, 1), _DEGREE_MAX)
    if head in ("+", "-", "neg", "=", "≠", "≤", "<", "≥", ">", "∧", "∨", "¬", "→", "↔"):
        return max((_degree(c, depth) for c in kids), default=0)
    if head == "/" and len(kids) == 2 and _degree(kids[1], depth) == 0:
        return _degree(kids[0], depth)  # division by a constant (`1 / 3 * x`) keeps the degree
    return 1 if kids else 0


@lru_cache(maxsize=65536)
def goal_degree(goal: Goal) -> int:
    """The highest polynomial degree among the target and the hypotheses of ``goal`` (at least 1)."""
    d = term_degree(goal.target)
    for _, ty in goal.hyps:
        if ty[0] != "type":
            d = max(d, term_degree(ty))
    return max(d, 1)


@lru_cache(maxsize=65536)
def goal_measure(goal: Goal) -> tuple[int, int, int]:
    """``(hypotheses, atoms, size)`` of a goal: propositions in the context, data variables, and the nodes
    of every hypothesis and the target (what a tactic that reads the whole context walks)."""
    hyps = 0
    atoms = 0
    size = _term_size(goal.target)
    for _, ty in goal.hyps:
        if ty[0] == "type":
            atoms += 1
        else:
            hyps += 1
            size += _term_size(ty)
    return hyps, atoms, size


_COMPARISONS = frozenset({"=", "≤", "<", "≥", ">"})
_MONOMIALS_MAX = 500


def _monomials(t: Any, depth: int = 0) -> int:
    """Monomials of a polynomial term read off its syntax, without expanding (an upper bound: ``x - x``
    counts 2); a non-polynomial node (``|x|``, a cast, a division's denominator) is one atom."""
    if depth > NATIVE_DEPTH:  # see _nodes
        raise RecursionError(TOO_DEEP)
    depth += 1
    if not isinstance(t, tuple) or not t:
        return 1
    head = t[0]
    kids = [c for c in t[1:] if isinstance(c, tuple)]
    if head in ("+", "-") and len(kids) == 2:
        return min(_monomials(kids[0], depth) + _monomials(kids[1], depth), _MONOMIALS_MAX)
    if head == "neg" and kids:
        return _monomials(kids[0], depth)
    if head == "*" and len(kids) == 2:
        return min(_monomials(kids[0], depth) * _monomials(kids[1], depth), _MONOMIALS_MAX)
    if head == "^" and len(kids) == 2 and kids[1][:1] == ("num",) and isinstance(kids[1][-1], int):
        m, k = _monomials(kids[0], depth), max(kids[1][-1], 1)
        return 1 if m == 1 else min(math.comb(m + k - 1, k), _MONOMIALS_MAX)
    return 1


def _comparison(t: Any) -> Any:
    """``t`` as one of linarith's comparisons (through ``¬``), or ``None`` (``≠``, ``∧``, ``∨``: filtered)."""
    while t[0] == "¬" and isinstance(t[1], tuple):
        t = t[1]
    return t if t[0] in _COMPARISONS else None


def _squares(t: Any, out: set[Any], depth: int = 0) -> None:
    """The terms ``a`` with ``a ^ 2`` or ``a * a`` in ``t`` (``nlinarith`` adds ``0 ≤ a ^ 2`` for each)."""
    if depth > NATIVE_DEPTH:  # see _nodes
        raise RecursionError(TOO_DEEP)
    if not isinstance(t, tuple) or not t:
        return
    kids = [c for c in t[1:] if isinstance(c, tuple)]
    square = kids[1][:1] == ("num",) and kids[1][-1] == 2 if t[0] == "^" else t[0] == "*"
    if len(kids) == 2 and square and (t[0] == "^" or kids[0] == kids[1]):
        out.add(kids[0])
    for c in kids:
        _squares(c, out, depth + 1)


@lru_cache(maxsize=65536)
def nlinarith_size(goal: Goal) -> tuple[int, int]:
    """``(facts, monomials)`` of ``nlinarith`` on ``goal``: its comparisons, squares and their pairwise
    products, and the monomials those mention (at most the monomials of degree ≤ ``2d`` in the variables,
    ``d`` the context's highest degree, and at most 500)."""
    comps = [c for c in (_comparison(ty) for _, ty in goal.hyps if ty[0] != "type") if c is not None]
    target = _comparison(goal.target)
    if target is not None:
        comps.append(target)
    sizes = [min(_monomials(c[2]) + _monomials(c[3]), _MONOMIALS_MAX) for c in comps if len(c) == 4]
    squares: set[Any] = set()
    for c in comps:
        _squares(c, squares)
    sizes += [1] * len(squares)
    n = len(sizes)
    pairs = sum(sizes[i] * sizes[j] for i in range(n) for j in range(i, n))
    _, atoms, _ = goal_measure(goal)
    d2 = max(4, 2 * max((term_degree(c) for c in comps), default=1))
    bound = min(math.comb(max(atoms, 1) + d2, d2), _MONOMIALS_MAX)
    return n + n * (n + 1) // 2, min(sum(sizes) + pairs, bound)


# The measures of the goal object every rule of an expansion runs on: the caches above key on the goal's
# value, whose hash walks the whole goal at every call.
_MEASURES = IdentityMemo("aesop_cost.measures", 4096, per_request=True)


def tactic_cost(text: str, goal: Goal) -> int:
    """Heartbeats charged for running tactic ``text`` as an aesop rule on ``goal`` (model of Lean's cost).

    Charged whether the tactic succeeds or fails: a failed ``nlinarith`` costs what its search cost.
    """
    m = _MEASURES.get(goal) if memo_enabled() else MISS
    if m is MISS:
        m = (*goal_measure(goal), _term_size(goal.target))
        if memo_enabled():
            _MEASURES.put(goal, m)
    h, a, size, target = m
    at_star = "at *" in text or "[*]" in text
    head = text.split(None, 1)[0] if text.strip() else ""
    walk = size if at_star else target  # what a rewriting tactic traverses
    if head == "first":
        # SATP's lemma host: `apply`, then `rw`, then `simp only` with the lemma over the target
        return 300 + 20 * target
    if head == "nlinarith":
        # Mathlib's `nlinarith` (Mathlib/Tactic/Linarith/Preprocessing.lean, `nlinarithExtras`): linarith's
        # comparisons (the hypotheses that are comparisons and the negated goal), one `sq_nonneg` fact per
        # square that occurs, and the product of every pair of those (`mapDiagM`); then linarith over them,
        # whose atoms are the monomials that occur in the products. Charged as `linarith` is (per fact and
        # atom), with the monomials counted off the syntax (an upper bound on the distinct ones). The factor
        # is SATP's record's: aime_1990_p15's path (a failing nlinarith of 35 facts over 185 monomials beside
        # the norm simp, linarith, omega, bound and two grind calls) ran within 200000 on Lean, which bounds
        # it by 26; 20 is the round value below (bench_satp_paths.py; the earlier 100 charged it 653000).
        facts, monomials = nlinarith_size(goal)
        return 2000 + 20 * facts * (monomials + 1)
    if head == "grind":
        # its fixed preprocessing only: `tac_grind` charges the work of its solvers as it runs them (E-matching,
        # ring steps, one linear run per call), which the `100·(h+1)·(a+1)` term here used to stand in for.
        # SATP's record bounds the whole: aime_1990_p4's path runs 16 failing `grind only [L]` calls beside its
        # other rules within 200000; the part of it the simulator replays (to the second `bound`, 8 of the
        # grind calls, 104000 of other charges) leaves at most 12000 per call, and Lean's second half has 8
        # more: at most 6000 each on that goal (bench_satp_paths.py). The charge there is now about 5300.
        return 1500
    if head == "linarith":
        return 800 + 100 * (h + 1) * (max(a, 1) + 1)
    if head == "positivity":
        return 200 + 10 * target
    if head == "omega":
        return 500 + 100 * (h + 1) * max(a, 1)
    if head == "interval_cases":
        return 1000 + 100 * h
    if head in ("ring", "ring_nf", "ring1", "abel", "abel_nf"):
        return 300 + 25 * walk
    if head in ("simp", "simp_all", "norm_num", "field_simp", "simp_arith", "dsimp", "push_cast"):
        lemmas = 20 if "only" in text else 60  # the default simp set is large; `simp only [...]` is not
        walk = size if at_star or head == "simp_all" else target
        return (1500 if head == "field_simp" else 500) + lemmas * walk
    if head in ("norm_cast", "zify", "push_neg", "exact_mod_cast", "qify"):
        return 200 + 20 * walk
    if head == "gcongr":
        return 400 + 10 * target
    if head == "bound":
        return 1500 + 40 * size
    if head in ("decide", "native_decide"):
        return 300
    return 40


def tactic_result_cost(text: str, goals: list[Goal]) -> int:
    """Heartbeats charged after a successful rule tactic for the goals it made (``interval_cases``: per case)."""
    if text.split(None, 1)[:1] == ["interval_cases"]:
        return COST_PER_CASE * len(goals)
    return 0
