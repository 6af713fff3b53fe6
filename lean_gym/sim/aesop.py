"""The simulator's ``aesop`` and ``aesop?``: Aesop's search over the simulator's tactics.

What it does, following Aesop (``Aesop/Search/*.lean``) on a smaller rule base:

* **Rules.** Builtin rules (rule set ``builtin``): norm ``intros`` (−100), ``subst`` (−50),
  ``destructProducts`` (0: ``∧``/``∃`` hypotheses; ``↔`` ones are ``subst``'s); safe ``assumption`` (−50), ``rfl`` (0),
  ``not_intro`` (0), ``Iff``/``splitTarget`` (100), ``And`` constructors (101), ``Or`` cases (100),
  ``splitHypotheses`` (1000), ``True`` and ``False`` closers; unsafe ``applyHyps`` (75%), ``Or``
  constructors (50%). Rules from ``(add …)`` clauses: tactic rules ``(by T)`` in any phase, ``apply``,
  ``forward``/``destruct`` (hypotheses of the form ``A → B``), ``constructors``/``cases`` (on
  ``And``/``Or``/``Iff``/``True``/``False``/``Exists``), ``simp`` (lemmas added to the norm simp call) and
  ``unfold``. ``(erase …)`` and ``(rule_sets := […])`` filter them.
* **Normalisation** of every new goal: pre-simp norm rules, unfold rules, the builtin norm simp (``simp_all``
  or ``simp at *``, with or without the default simp set, per ``useSimpAll``/``useDefaultSimpSet``,
  skipped when ``enableSimp := false``), post-simp norm rules; repeated until nothing changes, at most
  ``maxNormIterations`` times (then Aesop's "exceeded maximum number of normalisation iterations" error).
* **Search.** Safe rules are tried in penalty order and the first that applies is committed (no
  backtracking); otherwise unsafe rules are tried in order of success probability, one rule application per
  expansion. Goals are expanded best-first by the product of success probabilities along their branch
  (``strategy := .depthFirst``/``.breadthFirst`` change the queue). ``maxRuleApplications``,
  ``maxRuleApplicationDepth``, ``maxGoals``, ``terminal`` and ``warnOnNonterminal`` act as in Aesop; on a
  non-fatal failure the goals left by the safe prefix are returned (with Aesop's warning) unless
  ``terminal``, in which case it fails with Aesop's error text.
* **Soundness.** A goal is closed only by a sub-tactic of the simulator (each sound) or by a builtin
  logical step (assumption up to the simulator's definitional equality, ``True``, a ``False``
  hypothesis). A rule whose tactic left an error or a synthetic ``sorry`` counts as failed.
* **Budget.** Every sub-tactic charges heartbeats through the :class:`~lean_gym.sim.tactics.TacticContext`,
  and each rule application and normalisation step charges a little more, so work past ``maxHeartbeats``
  ends in Lean's ``(deterministic) timeout`` error.

Sub-tactic results and parsed calls are memoised in process (:mod:`lean_gym.sim.memo`; keyed on everything
they depend on, see ``_run_sub``), with their heartbeat cost replayed, so a memoised call behaves exactly as
the original one.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import deque
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from lean_gym.lean.lexer import is_id_rest
from lean_gym.sim.aesop_syntax import AesopCall, AesopOptions, AesopSyntaxError, RuleSpec, parse_aesop
from lean_gym.sim.elab import env_key
from lean_gym.sim.goals import Goal, canonical_goal
from lean_gym.sim.memo import MISS, Memo, clear_all, request_scoped
from lean_gym.sim.memo import enabled as memo_enabled
from lean_gym.sim.syntax import ParseError, Source
from lean_gym.sim.tactics import (
    MEMO_EXACT,
    HeartbeatsExceeded,
    LogMessage,
    TacticContext,
    TacticError,
    exec_node,
    parse_block,
    register_tactic,
    term_size,
)
from lean_gym.sim.terms import (
    FALSE,
    FVAR_SEP,
    TRUE,
    Term,
    const_names,
    free_vars,
    fvar_mark,
    fvar_serial,
    new_fvar,
    rename_fvars,
    subst,
    user_name,
)
from lean_gym.sim.unify import defeq

__all__ = ["AesopResult", "aesop_tactic", "clear_cache", "run_aesop", "tactic_cost"]

# Heartbeats charged by the search itself, on top of what the simulator's tactics charge (which is small:
# tens to hundreds per call). Real Lean spends most of an aesop call inside rule tactics, and what a tactic
# costs grows with the work it does: simp and the normalisers walk every hypothesis and the target,
# linarith's Fourier-Motzkin/simplex grows with hypotheses times atoms, nlinarith first multiplies pairs of
# hypotheses (quadratic in them) and then runs linarith over the products, interval_cases pays per case. The
# model below charges that (about 20 heartbeats per millisecond of a typical Mathlib run), failed calls
# included, so a search that tries many expensive rules on a large context runs into ``maxHeartbeats`` as it
# does on Lean, while the one cheap right rule on a small goal costs little.
COST_EXPANSION = 20
COST_RAPP = 40
COST_NORM_STEP = 20
COST_BUILTIN = 5
COST_PER_CASE = 2500
"""Heartbeats per goal that ``interval_cases`` produces (each case is elaborated and simplified)."""


@lru_cache(maxsize=65536)
def _term_size(t: Any) -> int:
    """Nodes of a term (any tuple shape: the measure does not depend on how terms are encoded)."""
    if not isinstance(t, tuple):
        return 0
    return 1 + sum(_term_size(c) for c in t if isinstance(c, tuple))


_DEGREE_MAX = 8


def _degree(t: Any) -> int:
    """Polynomial degree of a term in its variables (``x * y ^ 2`` is 3; a non-polynomial node such as
    ``|x|`` or a cast counts as one atom); for a proposition, the highest degree of its sides.

    Read off the syntax, without expanding (``Poly.degree`` would need the expansion, whose work this cost
    model is there to charge), so ``(x + 1) ^ 2 - x ^ 2`` counts 2 where the polynomial (``2 * x + 1``) has
    degree 1."""
    if not isinstance(t, tuple) or not t:
        return 0
    head = t[0]
    kids = [c for c in t[1:] if isinstance(c, tuple)]
    if head == "num":
        return 0
    if head == "fvar":
        return 1
    if head == "*":
        return min(sum(_degree(c) for c in kids), _DEGREE_MAX)
    if head == "^" and len(kids) == 2:
        k = kids[1][-1] if kids[1][:1] == ("num",) and isinstance(kids[1][-1], int) else 2
        return min(_degree(kids[0]) * max(k, 1), _DEGREE_MAX)
    if head in ("+", "-", "neg", "=", "≠", "≤", "<", "≥", ">", "∧", "∨", "¬", "→", "↔"):
        return max((_degree(c) for c in kids), default=0)
    if head == "/" and len(kids) == 2 and _degree(kids[1]) == 0:
        return _degree(kids[0])  # division by a constant (`1 / 3 * x`) keeps the degree
    return 1 if kids else 0


@lru_cache(maxsize=65536)
def goal_degree(goal: Goal) -> int:
    """The highest polynomial degree among the target and the hypotheses of ``goal`` (at least 1)."""
    d = _degree(goal.target)
    for _, ty in goal.hyps:
        if ty[0] != "type":
            d = max(d, _degree(ty))
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


def _monomials(t: Any) -> int:
    """Monomials of a polynomial term read off its syntax, without expanding (an upper bound: ``x - x``
    counts 2); a non-polynomial node (``|x|``, a cast, a division's denominator) is one atom."""
    if not isinstance(t, tuple) or not t:
        return 1
    head = t[0]
    kids = [c for c in t[1:] if isinstance(c, tuple)]
    if head in ("+", "-") and len(kids) == 2:
        return min(_monomials(kids[0]) + _monomials(kids[1]), _MONOMIALS_MAX)
    if head == "neg" and kids:
        return _monomials(kids[0])
    if head == "*" and len(kids) == 2:
        return min(_monomials(kids[0]) * _monomials(kids[1]), _MONOMIALS_MAX)
    if head == "^" and len(kids) == 2 and kids[1][:1] == ("num",) and isinstance(kids[1][-1], int):
        m, k = _monomials(kids[0]), max(kids[1][-1], 1)
        return 1 if m == 1 else min(math.comb(m + k - 1, k), _MONOMIALS_MAX)
    return 1


def _comparison(t: Any) -> Any:
    """``t`` as one of linarith's comparisons (through ``¬``), or ``None`` (``≠``, ``∧``, ``∨``: filtered)."""
    while t[0] == "¬" and isinstance(t[1], tuple):
        t = t[1]
    return t if t[0] in _COMPARISONS else None


def _squares(t: Any, out: set[Any]) -> None:
    """The terms ``a`` with ``a ^ 2`` or ``a * a`` in ``t`` (``nlinarith`` adds ``0 ≤ a ^ 2`` for each)."""
    if not isinstance(t, tuple) or not t:
        return
    kids = [c for c in t[1:] if isinstance(c, tuple)]
    square = kids[1][:1] == ("num",) and kids[1][-1] == 2 if t[0] == "^" else t[0] == "*"
    if len(kids) == 2 and square and (t[0] == "^" or kids[0] == kids[1]):
        out.add(kids[0])
    for c in kids:
        _squares(c, out)


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
    d2 = max(4, 2 * max((_degree(c) for c in comps), default=1))
    bound = min(math.comb(max(atoms, 1) + d2, d2), _MONOMIALS_MAX)
    return n + n * (n + 1) // 2, min(sum(sizes) + pairs, bound)


def tactic_cost(text: str, goal: Goal) -> int:
    """Heartbeats charged for running tactic ``text`` as an aesop rule on ``goal`` (model of Lean's cost).

    Charged whether the tactic succeeds or fails: a failed ``nlinarith`` costs what its search cost.
    """
    h, a, size = goal_measure(goal)
    target = _term_size(goal.target)
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
        # atom), with the monomials counted off the syntax (an upper bound on the distinct ones).
        facts, monomials = nlinarith_size(goal)
        return 2000 + 100 * facts * (monomials + 1)
    if head == "grind":
        # its solvers together (the simulator's grind is cutsat, linarith and ring: ``tac_arith._grind``)
        return 1500 + 100 * (h + 1) * (max(a, 1) + 1)
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


_BUILTIN_NAMES = {
    "assumption",
    "rfl",
    "not_intro",
    "splitTarget",
    "splitHypotheses",
    "applyHyps",
    "ext",
    "intros",
    "subst",
    "destructProducts",
    "empty_false",
    "pEmpty_false",
    "heq_iff_eq",
}
_CORE_TYPES = {
    "And",
    "Or",
    "Iff",
    "Exists",
    "True",
    "False",
    "PUnit",
    "PUnit.unit",
    "ULift",
    "Prod",
    "Sum",
    "Subtype",
    "Sigma",
    "PSigma",
    "PProd",
    "MProd",
    "PSum",
}
# Inductive types the simulator knows by name (constructors/cases rules may name them).
_KNOWN_TYPES = _CORE_TYPES | {
    "Nat",
    "Int",
    "List",
    "Nat.le",
    "Eq",
    "Ne",
    "Not",
    "Bool",
    "Option",
    "Prop",
    "Real",
    "Rat",
    "Fin",
    "Finset",
    "Set",
    "Any",
    "Perm",
    "List.Perm",
}


# ------------------------------------------------------------------------------------------- rules


@dataclass(frozen=True)
class Rule:
    """One rule of the search: its phase, priority, a display name and how to run it."""

    name: str
    phase: str  # norm / safe / unsafe
    priority: int  # penalty (norm/safe) or success percentage (unsafe)
    kind: str  # builtin / tactic / apply / forward / destruct / constructors / cases / simp / unfold
    arg: str = ""
    rule_set: str = "local"
    order: int = 0

    @property
    def prob(self) -> float:
        return self.priority / 100.0 if self.phase == "unsafe" else 1.0


def _builtin_rules() -> list[Rule]:
    b = "builtin"
    return [
        Rule("Aesop.BuiltinRules.intros", "norm", -100, "builtin", "intros", b),
        Rule("Aesop.BuiltinRules.subst", "norm", -50, "builtin", "subst", b),
        Rule("Aesop.BuiltinRules.destructProducts", "norm", 0, "builtin", "destructProducts", b),
        Rule("Aesop.BuiltinRules.empty_false", "norm", 0, "builtin", "false_hyp", b),
        Rule("Aesop.BuiltinRules.assumption", "safe", -50, "builtin", "assumption", b),
        Rule("Aesop.BuiltinRules.rfl", "safe", 0, "builtin", "rfl", b),
        Rule("Aesop.BuiltinRules.not_intro", "safe", 0, "builtin", "not_intro", b),
        Rule("PUnit.unit", "safe", 0, "builtin", "unit_intro", b),
        Rule("Iff", "safe", 100, "builtin", "iff_intro", b),
        Rule("Or", "safe", 100, "builtin", "or_cases", b),
        Rule("And", "safe", 101, "builtin", "and_intro", b),
        Rule("Aesop.BuiltinRules.splitHypotheses", "safe", 1000, "builtin", "split_hyps", b),
        Rule("Aesop.BuiltinRules.ext", "unsafe", 80, "builtin", "ext", b),
        Rule("Aesop.BuiltinRules.applyHyps", "unsafe", 75, "builtin", "apply_hyps", b),
        Rule("Or", "unsafe", 50, "builtin", "or_intro", b),
        Rule("Exists", "unsafe", 30, "builtin", "exists_intro", b),
    ]


_BUILTINS = tuple(_builtin_rules())


@dataclass
class RuleSet:
    """The rules of one aesop call, split by phase and sorted as Aesop runs them."""

    norm_pre: list[Rule]
    norm_post: list[Rule]
    safe: list[Rule]
    unsafe: list[Rule]
    simp_lemmas: tuple[str, ...]
    unfold_defs: tuple[str, ...]


def _short(name: str) -> str:
    return name.rsplit(".", 1)[-1]


def _elab_rules(call: AesopCall, goal: Goal, ctx: TacticContext) -> RuleSet:
    """Resolve builders, check rule terms, apply erase filters and rule sets (Aesop's ElabM step)."""
    rules: list[Rule] = []
    if "builtin" in call.rule_sets:
        rules.extend(_BUILTINS)
    hyp_names = {user_name(n) for n, _ in goal.hyps}
    for i, spec in enumerate(call.rules):
        rules.extend(_build_rule(spec, i, goal, ctx, hyp_names))
    for er in call.erases:
        matched = [
            r
            for r in rules
            if (
                r.name == er.name
                or (r.rule_set == "builtin" and _short(r.name) == er.name and "." not in er.name)
                or (r.kind != "builtin" and r.arg == er.name)
            )
            and (er.phase is None or r.phase == er.phase)
            and (er.builder is None or _builder_of(r) == er.builder)
        ]
        if not matched:
            known = (
                er.name in hyp_names
                or ctx.lookup(er.name) is not None
                or er.name in _KNOWN_TYPES
                or (er.name.startswith("Aesop.BuiltinRules.") and _short(er.name) in _BUILTIN_NAMES)
            )
            if not known:
                raise TacticError(f"unknown identifier '{er.name}'")
            raise TacticError(
                f"aesop: '{er.name}' is not registered (with the given features) in any rule set."
            )
        rules = [r for r in rules if r not in matched]
    simp_lemmas = tuple(r.arg for r in rules if r.kind == "simp")
    unfold_defs = tuple(r.arg for r in rules if r.kind == "unfold")
    rules = [r for r in rules if r.kind not in ("simp", "unfold")]
    norm = sorted((r for r in rules if r.phase == "norm"), key=lambda r: (r.priority, r.order))
    safe = sorted((r for r in rules if r.phase == "safe"), key=lambda r: (r.priority, r.order))
    unsafe = sorted((r for r in rules if r.phase == "unsafe"), key=lambda r: (-r.priority, r.order))
    return RuleSet(
        norm_pre=[r for r in norm if r.priority < 0],
        norm_post=[r for r in norm if r.priority >= 0],
        safe=safe,
        unsafe=unsafe,
        simp_lemmas=simp_lemmas,
        unfold_defs=unfold_defs,
    )


def _builder_of(r: Rule) -> str:
    if r.kind == "builtin":
        return {
            "and_intro": "constructors",
            "iff_intro": "constructors",
            "or_intro": "constructors",
            "exists_intro": "constructors",
            "or_cases": "cases",
            "true_intro": "apply",
            "unit_intro": "apply",
        }.get(r.arg, "tactic")
    return r.kind


def _build_rule(spec: RuleSpec, i: int, goal: Goal, ctx: TacticContext, hyp_names: set[str]) -> list[Rule]:
    order = 1000 + i
    if spec.is_tactic:
        return [Rule(f"(by {spec.term})", spec.phase, spec.priority, "tactic", spec.term, "local", order)]
    term = spec.term
    is_hyp = term in hyp_names
    decl = None if is_hyp else ctx.lookup(term)
    is_type = term in _KNOWN_TYPES
    builder = spec.builder
    if builder == "default":
        if is_type and not is_hyp:
            builder = "constructors"
        elif spec.phase == "norm" and decl is not None and _is_rewrite(decl):
            builder = "simp"
        else:
            builder = "apply"
    if builder in ("constructors", "cases"):
        if not is_type:
            if not is_hyp and decl is None:
                raise TacticError(f"unknown identifier '{term}'")
            raise TacticError(
                f"aesop: {builder} builder: expected '{term}' to be an inductive type or structure"
            )
        return [Rule(term, spec.phase, spec.priority, builder, term, "local", order)]
    if builder == "tactic":
        raise TacticError(
            f"aesop: tactic builder: expected '{term}' to be a tactic, i.e. to have one of these types:\n"
            "  TacticM Unit\n  SimpleRuleTac\n  RuleTac\n  TacGen"
        )
    if not is_hyp and decl is None and not is_type and spec.builder != "unfold":
        if spec.term.replace(".", "").replace("_", "").isalnum() or spec.term.isidentifier():
            raise TacticError(f"unknown identifier '{term}'")
    if builder == "unfold":
        if decl is None or getattr(decl, "kind", "") != "def":
            raise TacticError(f"aesop: unfold builder: expected '{term}' to be a non-recursive definition")
        return [Rule(term, "norm", 0, "unfold", term, "local", order)]
    if builder == "simp":
        return [Rule(term, "norm", spec.priority, "simp", term, "local", order)]
    return [Rule(term, spec.phase, spec.priority, builder, term, "local", order)]


def _is_rewrite(decl: Any) -> bool:
    ty = getattr(decl, "type", None)
    while isinstance(ty, tuple) and ty and ty[0] == "∀":
        ty = ty[3]
    return isinstance(ty, tuple) and bool(ty) and ty[0] in ("=", "↔")


# --------------------------------------------------------------------------------- sub-tactic running
# A rule tactic's answer on a goal is memoised (``lean_gym.sim.memo``) under everything it depends on: the
# environment (``elab.env_key``), the tactic text, the goal up to an order-preserving renaming of its
# locals (``goals.canonical_goal``: an answer depends on locals only through their names, types and the
# order they were made in), whether errors are recovered from, and the flags that make any rule fail (a
# sorry or a self-reference already in the proof). Beside the answer it keeps the heartbeats the run cost,
# the heartbeats it needed left (``TacticContext.search_budget``: linarith and omega size their search by
# the budget, and report how much of it they needed), and the axioms it used, so a replay charges, records
# and fails exactly as the run would; a run that cannot be replayed with the budget left (it would time out
# part-way, or its search would have seen a smaller budget) is run again. The same holds for builtin steps
# and whole normalisations (``_memo_step``, ``Search._normalize``). The answer keeps the goal's locals canonical and writes each
# local the tactic made as ``name␀n<j>`` (j in the order they were made): a replay maps the first back and
# makes fresh locals for the second, in that order, as the tactic would have, so no two goals share a
# local they did not share without the memo.
#
# Keys are small: a canonical goal is interned once as an int (a number is never given to two different
# goals, so an evicted number only makes entries unreachable, never wrong), and the canonical form of a
# goal object is computed once (every rule of an expansion runs on the same object; a replayed goal gets
# its canonical form from the answer).

_RESULTS = Memo("aesop.rule_results", max_entries=100_000, max_bytes=96 << 20)
_NODES = Memo("aesop.rule_syntax", max_entries=20_000, max_bytes=16 << 20)
_CALLS = Memo("aesop.calls", max_entries=512, max_bytes=8 << 20)
_STEPS = Memo("aesop.builtin_steps", max_entries=100_000, max_bytes=64 << 20)
_NORMS = Memo("aesop.normalisations", max_entries=50_000, max_bytes=64 << 20)
_GOAL_IDS = Memo("aesop.canonical_goals", max_entries=200_000, max_bytes=64 << 20)
_CANON: dict[int, tuple[Goal, int, dict[str, str]]] = {}
request_scoped(_CANON.clear)  # about the goal objects of the request in progress
_SERIAL = itertools.count()


def clear_cache() -> None:
    """Forget every memo table of the simulator (benchmarks call it to measure cold runs)."""
    clear_all()
    _CANON.clear()


def _remember_canon(goal: Goal, n: int, ren: dict[str, str]) -> None:
    if len(_CANON) >= 2048:  # only goals of the searches in progress need it
        _CANON.clear()
    _CANON[id(goal)] = (goal, n, ren)  # the goal is kept alive with its id, so the id is never reused


def _goal_key(goal: Goal) -> tuple[int, dict[str, str]]:
    """The interned canonical form of ``goal`` (tag dropped) and its renaming (see ``canonical_goal``)."""
    hit = _CANON.get(id(goal))
    if hit is not None and hit[0] is goal:
        return hit[1], hit[2]
    cgoal, ren = canonical_goal(goal.with_tag(None))
    ckey = (cgoal.hyps, cgoal.target, cgoal.ascii)  # a plain tuple: the collector stops tracking it
    n = _GOAL_IDS.get(ckey)
    if n is MISS:
        n = next(_SERIAL)
        _GOAL_IDS.put(ckey, n, 100 + 64 * _nodes(goal))
    _remember_canon(goal, n, ren)
    return n, ren


# One goal of a remembered answer: its context (``None``: the input's; else per local, an int ``k`` for the
# input's k-th local, unchanged, or a canonical ``(id, type)``), its target (``None``: the input's), tag
# (``_SAME``: the input's), ``ascii``, and its own canonical key with the renaming from the answer's ids.
_Entry = tuple[Any, Any, Any, bool, "tuple[int, tuple[tuple[str, str], ...]] | None"]
_SAME = object()


def _abstract(goal: Goal, ren: dict[str, str], new: list[Goal], mark: int) -> tuple[Any, ...] | None:
    """The answer ``new`` of a run on ``goal`` in replayable form (see ``_Entry``), or ``None`` when it
    mentions a local that is neither ``goal``'s nor made by the run (after ``mark``)."""
    pos = {id(e): k for k, e in enumerate(goal.hyps)}
    made: set[str] = set()
    mentioned: list[set[str]] = []
    for g in new:
        ids: set[str] = set()
        for e in g.hyps:
            ids.add(e[0])
            free_vars(e[1], ids)
        free_vars(g.target, ids)
        mentioned.append(ids)
        made.update(i for i in ids if i not in ren and FVAR_SEP in i)
    order = sorted(made, key=fvar_serial)
    if order and fvar_serial(order[0]) <= mark:
        return None
    full = dict(ren)
    holes = []
    for j, fid in enumerate(order):
        full[fid] = hole = f"{user_name(fid)}{FVAR_SEP}n{j}"
        holes.append(hole)
    entries: list[_Entry] = []
    old = goal.hyps
    for g, ids in zip(new, mentioned):
        hyps: Any = None
        if g.hyps is not old:
            parts: list[Any] = []
            for e in g.hyps:
                k = pos.get(id(e))
                parts.append(
                    k if k is not None and old[k] is e else (full.get(e[0], e[0]), rename_fvars(e[1], full))
                )
            hyps = tuple(parts)
        target = None if g.target is goal.target else rename_fvars(g.target, full)
        tag = _SAME if g.tag == goal.tag else g.tag
        own = {n for n, _ in g.hyps}
        key = None
        if all(i in own or FVAR_SEP not in i for i in ids):
            gk, gren = _goal_key(g)  # a replayed goal's canonical form is this one's (same order of locals)
            key = (gk, tuple((full[x], c) for x, c in gren.items()))
        entries.append((hyps, target, tag, g.ascii, key))
    return tuple(holes), tuple(entries)


def _instantiate(
    goal: Goal, ren: dict[str, str], holes: tuple[str, ...], entries: tuple[_Entry, ...]
) -> list[Goal]:
    """A remembered answer replayed on ``goal`` (canonical renaming ``ren``): fresh locals for the holes."""
    if not entries:
        return []
    back = {c: fid for fid, c in ren.items()}
    for h in holes:
        back[h] = new_fvar(user_name(h))
    out: list[Goal] = []
    old = goal.hyps
    for hyps_s, target_s, tag, ascii, key in entries:
        if hyps_s is None:
            hyps = old
        else:
            hyps = tuple(
                old[x] if type(x) is int else (back.get(x[0], x[0]), rename_fvars(x[1], back)) for x in hyps_s
            )
        target = goal.target if target_s is None else rename_fvars(target_s, back)
        g = Goal(hyps, target, goal.tag if tag is _SAME else tag, ascii)
        if key is not None:
            _remember_canon(g, key[0], {back.get(x, x): c for x, c in key[1]})
        out.append(g)
    return out


def _node_for(text: str) -> Any:
    on = memo_enabled()
    node = _NODES.get(text) if on else MISS
    if node is MISS:
        src = Source(text)
        try:
            node = (src, parse_block(src, 0, len(text)))
        except ParseError as e:
            node = (src, TacticError(e.message))
        if on:
            _NODES.put(text, node, 200 + 8 * len(text))
    return node


def _run_sub(goal: Goal, text: str, ctx: TacticContext) -> list[Goal] | None:
    """Run tactic text on ``goal`` as an aesop rule: the new goals, or ``None`` when the rule fails.

    A run that logs an error, closes a goal with a synthetic sorry or uses ``sorryAx`` counts as a failure
    and leaves no trace in ``ctx`` (except the heartbeats it spent, as in Lean).

    Raises:
        HeartbeatsExceeded: when the budget runs out.
    """
    if not memo_enabled() or ctx.tactic_log is not None:
        return _run_sub_plain(goal, text, ctx)
    name = ctx.decl_name
    if name is not None and _mentions(text, name.rsplit(".", 1)[-1]):
        return _run_sub_plain(goal, text, ctx)  # it may name the theorem itself: its answer is this proof's
    # the key drops the goal's tag (the rule runs without it) and the answer's goals have none
    new, _ = _tracked(_RESULTS, text, goal, ctx, lambda: (_run_sub_plain(goal, text, ctx), None), False)
    return new


def _tracked(
    table: Memo, what: Any, goal: Goal, ctx: TacticContext, run: Any, keep_axioms_on_none: bool
) -> tuple[list[Goal] | None, Any]:
    """``run()`` (``(goals or None, data)``: a function of the goal up to renaming, of ``what`` and of the
    context's environment and flags), memoised in ``table`` with everything a replay needs: the heartbeats
    it cost and needed left (or the exact budget it read), and the axioms it used. ``None`` goals keep the
    axioms only when ``keep_axioms_on_none`` (a failed rule keeps none)."""
    sorry_before = ctx.hidden_sorry or "sorryAx" in ctx.axioms
    gkey, ren = _goal_key(goal)
    flags = (ctx.recover, ctx.synthetic_sorry, ctx.self_reference, sorry_before, ctx.numeral_too_large)
    key = (env_key(ctx.env), what, gkey, flags)
    hit = table.get(key)
    ok = False
    if hit is not MISS:
        cost, need, _, answer, axioms, data = hit
        ok = ctx.heartbeats_left_at_least(cost if cost > need else need)
    if not ok:  # an answer that read the budget below its cap is kept apart, under the budget it read
        hit = table.get((key, ctx.left_for_bookkeeping()))
        if hit is not MISS:
            cost, need, exact, answer, axioms, data = hit
            ok = ctx.heartbeats_left_exactly(exact)
    if ok:
        ctx.tick(cost)
        if answer is None:
            if keep_axioms_on_none:
                ctx.axioms.update(axioms)
            return None, data
        ctx.axioms.update(axioms)
        return _instantiate(goal, ren, answer[0], answer[1]), data
    mark = fvar_mark()
    left = ctx.left_for_bookkeeping()
    frame = [ctx.heartbeats, 0]
    saved_axioms, saved_hidden = ctx.axioms, ctx.hidden_sorry
    ctx.axioms, ctx.hidden_sorry = set(), sorry_before
    ctx.memo_frames.append(frame)
    try:
        new, data = run()
    except BaseException:
        # what raises through (a timeout) leaves what it used as the plain run leaves it
        ctx.axioms = saved_axioms | ctx.axioms
        ctx.hidden_sorry = ctx.hidden_sorry or saved_hidden
        raise
    finally:
        ctx.memo_frames.pop()
    ctx.hidden_sorry = saved_hidden
    added, ctx.axioms = ctx.axioms, saved_axioms
    if new is not None or keep_axioms_on_none:
        ctx.axioms.update(added)
    cost = ctx.heartbeats - frame[0]
    if cost > left:
        # it ran past the budget and something inside turned that into an answer: its remaining work
        # happens outside it, tick by tick, so there is nothing one replay could charge
        return new, data
    # a run that read the budget below its cap is replayed only with the very budget it had
    exact = left if frame[1] >= MEMO_EXACT else None
    need = 0 if exact is not None else frame[1]
    axioms = tuple(sorted(added)) if new is not None or keep_axioms_on_none else ()
    # the goal itself is held once, in the canonical goals' table; an answer holds its own goals
    where = key if exact is None else (key, exact)
    if new is None:
        table.put(where, (cost, need, exact, None, axioms, data), 200)
    else:
        answer = _abstract(goal, ren, new, mark)
        if answer is not None:
            size = 200 + 64 * sum(_nodes(g) for g in new)
            table.put(where, (cost, need, exact, answer, axioms, data), size)
    return new, data


def _mentions(text: str, name: str) -> bool:
    """Whether ``name`` may occur in ``text`` as (a part of) an identifier: not inside a longer name."""
    i = text.find(name)
    while i >= 0:
        j = i + len(name)
        if (i == 0 or not is_id_rest(text[i - 1])) and (j == len(text) or not is_id_rest(text[j])):
            return True
        i = text.find(name, i + 1)
    return False


def _nodes(goal: Goal) -> int:
    return len(goal.hyps) + term_size(goal.target) + sum(term_size(t) for _, t in goal.hyps)


def _run_sub_plain(goal: Goal, text: str, ctx: TacticContext) -> list[Goal] | None:
    """:func:`_run_sub` without the memo."""
    src, node = _node_for(text)
    ctx.tick(tactic_cost(text, goal))
    if isinstance(node, TacticError):
        ctx.tick(COST_BUILTIN)
        return None
    snap = ctx.snapshot()
    old_src = ctx.src
    ctx.src = src
    try:
        new = exec_node(node, [goal.with_tag(None)], ctx)
    except HeartbeatsExceeded as e:
        ctx.restore(snap)
        ctx.src = old_src
        e.start = e.end = None  # offsets into the rule's text, not the proof's: the aesop call is the place
        raise
    except TacticError:
        ctx.restore(snap)
        ctx.src = old_src
        return None
    ctx.src = old_src
    bad = (
        ctx.synthetic_sorry
        or ctx.self_reference
        or ctx.hidden_sorry
        or "sorryAx" in ctx.axioms
        or any(m.severity == "error" for m in ctx.messages[snap[1] :])
        or len(ctx.sorries) > snap[0]
    )
    if bad:
        ctx.restore(snap)
        return None
    # Only an error fails a rule in Aesop: `ring` that falls back to `ring_nf` ("Try this: ring_nf") succeeds
    # with the normalised goal, which a safe rule then commits. The note itself is not kept.
    del ctx.messages[snap[1] :]
    new_goals = [g.with_tag(None) for g in new]
    ctx.tick(tactic_result_cost(text, new))
    return new_goals


# ------------------------------------------------------------------------------------ builtin steps


def _intros(goal: Goal) -> tuple[Goal, list[str]] | None:
    g = goal
    names: list[str] = []
    t = g.target
    while t[0] in ("→", "∀"):
        if t[0] == "→":
            name = g.fresh_name("a")
            g = Goal((*g.hyps, (new_fvar(name), t[1])), t[2], g.tag, g.ascii)
        else:
            x = t[1]
            name = g.fresh_name(x)
            fid = new_fvar(name)
            g = Goal((*g.hyps, (fid, t[2])), subst(t[3], x, ("fvar", fid)), g.tag, g.ascii)
        names.append(name)
        t = g.target
    return (g, names) if names else None


def _subst_step(goal: Goal) -> tuple[Goal, str] | None:
    data = {n for n, ty in goal.hyps if ty[0] == "type"}
    for i, (hn, ty) in enumerate(goal.hyps):
        if ty[0] == "=":
            sides = ((ty[2], ty[3]), (ty[3], ty[2]))
        elif ty[0] == "↔":  # Aesop's subst reads `P ↔ Q` with a local side as `P = Q` (prepareIff?)
            sides = ((ty[1], ty[2]), (ty[2], ty[1]))
        else:
            continue
        for var_side, other in sides:
            if var_side[0] == "fvar" and var_side[1] in data and var_side[1] not in free_vars(other):
                x = var_side[1]
                hyps: list[tuple[str, Term]] = []
                for j, (n2, t2) in enumerate(goal.hyps):
                    if j == i or n2 == x:
                        continue
                    hyps.append((n2, subst(t2, x, other)))
                return Goal(
                    tuple(hyps), subst(goal.target, x, other), goal.tag, goal.ascii
                ), f"subst {user_name(hn)}"
    return None


def _destruct_products(goal: Goal) -> tuple[Goal, str] | None:
    for i, (hn, ty) in enumerate(goal.hyps):
        h = ty[0]
        if h == "∧":  # Aesop's destructProducts splits And/Prod/Exists/Subtype/Sigma; never `↔`
            parts = (ty[1], ty[2])
            names = ("left", "right")
            rest = goal.hyps[:i] + goal.hyps[i + 1 :]
            base = Goal(rest, goal.target, goal.tag, goal.ascii)
            n1 = base.fresh_name(names[0])
            n2 = base.fresh_name(names[1], {n1})
            new = Goal(
                (*rest, (new_fvar(n1), parts[0]), (new_fvar(n2), parts[1])), goal.target, goal.tag, goal.ascii
            )
            return new, f"obtain ⟨{n1}, {n2}⟩ := {user_name(hn)}"
        if h == "∃":
            rest = goal.hyps[:i] + goal.hyps[i + 1 :]
            base = Goal(rest, goal.target, goal.tag, goal.ascii)
            w = base.fresh_name("w")
            wid = new_fvar(w)
            body = subst(ty[3], ty[1], ("fvar", wid))
            hname = base.fresh_name("h", {w})
            new = Goal((*rest, (wid, ty[2]), (new_fvar(hname), body)), goal.target, goal.tag, goal.ascii)
            return new, f"obtain ⟨{w}, {hname}⟩ := {user_name(hn)}"
    return None


def _destruct_iff(goal: Goal) -> tuple[Goal, str] | None:
    """``cases`` on the first ``↔`` hypothesis (an ``(add cases Iff)`` rule): ``mp`` and ``mpr``."""
    for i, (hn, ty) in enumerate(goal.hyps):
        if ty[0] == "↔":
            rest = goal.hyps[:i] + goal.hyps[i + 1 :]
            base = Goal(rest, goal.target, goal.tag, goal.ascii)
            n1 = base.fresh_name("mp")
            n2 = base.fresh_name("mpr", {n1})
            parts = (("→", ty[1], ty[2]), ("→", ty[2], ty[1]))
            new = Goal(
                (*rest, (new_fvar(n1), parts[0]), (new_fvar(n2), parts[1])), goal.target, goal.tag, goal.ascii
            )
            return new, f"obtain ⟨{n1}, {n2}⟩ := {user_name(hn)}"
    return None


_UNIT = ("type", "Unit")


def _false_hyp(goal: Goal) -> str | None:
    for hn, ty in goal.hyps:
        if ty == FALSE:
            return f"exact False.elim {user_name(hn)}"
    return None


def _assumption(goal: Goal) -> str | None:
    t = goal.target
    for hn, ty in reversed(goal.hyps):
        if ty[0] != "type" and defeq(ty, t):
            return f"exact {user_name(hn)}"
    return None


def _one(r: tuple[Goal, Any] | None) -> tuple[list[Goal], str] | None:
    if r is None:
        return None
    g, script = r
    return [g], script if isinstance(script, str) else "intro " + " ".join(script)


_NORM_STEPS: dict[str, Any] = {
    "intros": lambda g: _one(_intros(g)),
    "subst": lambda g: _one(_subst_step(g)),
    "destructProducts": lambda g: _one(_destruct_products(g)),
    "false_hyp": lambda g: (lambda s: None if s is None else ([], s))(_false_hyp(g)),
}


def _memo_step(kind: str, goal: Goal, fn: Any) -> tuple[list[Goal], Any] | None:
    """``fn(goal)``, ``(goals, data)`` or ``None``, for a builtin step: a function of the goal alone (up to
    the renaming of its locals; it may make new ones; ``data`` holds no local), memoised as ``_run_sub``'s
    answers are (heartbeats are charged by the caller, whether memoised or not)."""
    if not memo_enabled():
        return fn(goal)
    gkey, ren = _goal_key(goal)
    key = (kind, gkey, goal.tag)
    hit = _STEPS.get(key)
    if hit is not MISS:
        if hit is None:
            return None
        answer, data = hit
        return _instantiate(goal, ren, answer[0], answer[1]), data
    mark = fvar_mark()
    res = fn(goal)
    if res is None:
        _STEPS.put(key, None, 100)
        return None
    answer = _abstract(goal, ren, res[0], mark)
    if answer is not None:
        _STEPS.put(key, (answer, res[1]), 200 + 64 * sum(_nodes(g) for g in res[0]))
    return res


@dataclass
class Expansion:
    """What applying a rule produced: new goals (possibly none) and a script step."""

    goals: list[Goal]
    script: str


def _apply_builtin(rule: Rule, goal: Goal, ctx: TacticContext, opts: AesopOptions) -> list[Expansion]:
    ctx.tick(COST_BUILTIN)
    k = rule.arg
    if k == "rfl" or k == "apply_hyps":
        return _builtin_steps(k, goal, ctx)
    got = _memo_step(k, goal, _expansions_of(k))
    if got is None:
        return []
    goals, scripts = got
    out: list[Expansion] = []
    i = 0
    for script, n in scripts:
        out.append(Expansion(goals[i : i + n], script))
        i += n
    return out


def _expansions_of(k: str) -> Any:
    def run(goal: Goal) -> tuple[list[Goal], tuple[tuple[str, int], ...]] | None:
        exps = _builtin_steps(k, goal, None)
        if not exps:
            return None
        return [g for e in exps for g in e.goals], tuple((e.script, len(e.goals)) for e in exps)

    return run


def _builtin_steps(k: str, goal: Goal, ctx: TacticContext | None) -> list[Expansion]:
    """The rule applications of builtin rule ``k``; only ``rfl`` and ``applyHyps`` run tactics (``ctx``)."""
    t = goal.target
    if k == "assumption":
        s = _assumption(goal)
        return [Expansion([], s)] if s else []
    if k == "rfl":
        if t[0] == "=" and (t[2] == t[3] or defeq(t[2], t[3])):
            return [Expansion([], "rfl")]
        if t[0] == "↔" and defeq(t[1], t[2]):
            return [Expansion([], "rfl")]
        if t[0] == "=" and ctx is not None:
            new = _run_sub(goal, "rfl", ctx)
            if new is not None and not new:
                return [Expansion([], "rfl")]
        return []
    if k == "not_intro":
        if t[0] == "¬":
            name = goal.fresh_name("a")
            return [
                Expansion(
                    [Goal((*goal.hyps, (new_fvar(name), t[1])), FALSE, goal.tag, goal.ascii)], f"intro {name}"
                )
            ]
        return []
    if k == "true_intro":
        return [Expansion([], "trivial")] if t == TRUE else []
    if k == "unit_intro":  # `safe 0 apply PUnit.unit`: closes `Unit` (not `True`: DroppedMVars.lean:27)
        return [Expansion([], "exact PUnit.unit")] if t == _UNIT else []
    if k == "and_intro":
        if t[0] == "∧":
            return [Expansion([goal.with_target(t[1]), goal.with_target(t[2])], "constructor")]
        return []
    if k == "iff_intro":
        if t[0] == "↔":
            return [
                Expansion(
                    [goal.with_target(("→", t[1], t[2])), goal.with_target(("→", t[2], t[1]))], "constructor"
                )
            ]
        return []
    if k in ("or_cases", "split_hyps"):
        for i, (hn, ty) in enumerate(goal.hyps):
            if ty[0] == "∨":
                hyps = list(goal.hyps)
                g1 = Goal((*hyps[:i], (hn, ty[1]), *hyps[i + 1 :]), t, goal.tag, goal.ascii)
                g2 = Goal((*hyps[:i], (hn, ty[2]), *hyps[i + 1 :]), t, goal.tag, goal.ascii)
                u = user_name(hn)
                return [Expansion([g1, g2], f"rcases {u} with {u} | {u}")]
        return []
    if k == "or_intro":
        if t[0] == "∨":
            return [Expansion([goal.with_target(t[1])], "left"), Expansion([goal.with_target(t[2])], "right")]
        return []
    if k == "apply_hyps" and ctx is not None:
        out: list[Expansion] = []
        for hn, ty in goal.hyps:
            if ty[0] in ("→", "∀", "¬", "≠"):
                new = _run_sub(goal, f"apply {user_name(hn)}", ctx)
                if new is not None:
                    out.append(Expansion(new, f"apply {user_name(hn)}"))
        return out
    return []  # ext, exists_intro: nothing in the simulator's subset needs them


def _apply_rule(rule: Rule, goal: Goal, ctx: TacticContext, opts: AesopOptions) -> list[Expansion]:
    """All rule applications of ``rule`` to ``goal`` (empty when it does not apply)."""
    if rule.kind == "builtin":
        return _apply_builtin(rule, goal, ctx, opts)
    if rule.kind == "tactic":
        new = _run_sub(goal, rule.arg, ctx)
        if new is None or (len(new) == 1 and new[0] == goal.with_tag(None)):
            return []
        return [Expansion(new, rule.arg)]
    if rule.kind == "apply":
        new = _run_sub(goal, f"apply {rule.arg}", ctx)
        return [] if new is None else [Expansion(new, f"apply {rule.arg}")]
    if rule.kind in ("forward", "destruct"):
        ctx.tick(COST_BUILTIN)
        src = goal.hyp(rule.arg)
        if src is None or src[0] != "→":
            return []
        prem, concl = src[1], src[2]
        have = [hn for hn, ty in goal.hyps if ty[0] != "type" and defeq(ty, prem)]
        if not have or any(defeq(ty, concl) for _, ty in goal.hyps):
            return []
        hyps = list(goal.hyps)
        if rule.kind == "destruct":
            hyps = [(n, ty) for n, ty in hyps if n not in (goal.find(rule.arg), have[0])]
        g0 = Goal(tuple(hyps), goal.target, goal.tag, goal.ascii)
        name = g0.fresh_name("fwd")
        return [
            Expansion(
                [Goal((*hyps, (new_fvar(name), concl)), goal.target, goal.tag, goal.ascii)],
                f"have {name} := {rule.arg} {user_name(have[0])}",
            )
        ]
    if rule.kind == "constructors":
        k = {
            "And": "and_intro",
            "Iff": "iff_intro",
            "Or": "or_intro",
            "True": "true_intro",
            "PUnit": "unit_intro",
            "PUnit.unit": "unit_intro",
            "Unit": "unit_intro",
        }.get(rule.arg)
        if k is None:
            return []
        return _apply_builtin(Rule(rule.name, rule.phase, rule.priority, "builtin", k), goal, ctx, opts)
    if rule.kind == "cases":
        ctx.tick(COST_BUILTIN)
        if rule.arg == "Or":
            return _apply_builtin(
                Rule(rule.name, rule.phase, rule.priority, "builtin", "or_cases"), goal, ctx, opts
            )
        if rule.arg == "False":
            s = _false_hyp(goal)
            return [Expansion([], s)] if s else []
        if rule.arg in ("And", "Exists"):
            res = _destruct_products(goal)
            return [Expansion([res[0]], res[1])] if res else []
        if rule.arg == "Iff":
            res = _destruct_iff(goal)
            return [Expansion([res[0]], res[1])] if res else []
        return []
    return []


# ------------------------------------------------------------------------------------------- the tree


@dataclass(eq=False)
class GNode:
    """A goal in the search tree."""

    goal: Goal
    depth: int
    priority: float
    parent: RNode | None
    gid: int
    normalized: bool = False
    norm_script: list[str] = field(default_factory=list)
    proved: bool = False
    unprovable: bool = False
    safe_done: bool = False
    safe_rapp: bool = False
    unsafe_next: int = 0
    rapps: list[RNode] = field(default_factory=list)
    exhausted: bool = False
    proof_rapp: RNode | None = None
    last_expanded: int = 0
    added: int = 0
    requeue: bool = False


@dataclass(eq=False)
class RNode:
    """A rule application in the search tree."""

    rule: Rule
    parent: GNode
    script: str
    children: list[GNode] = field(default_factory=list)
    proved: bool = False
    unprovable: bool = False


class AesopFailure(Exception):
    """A non-fatal end of the search (no proof); ``message`` is Aesop's reason."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class AesopResult:
    """Outcome of one search: remaining goals, the proof script when proved, and statistics."""

    proved: bool
    goals: tuple[Goal, ...]
    script: tuple[str, ...]
    rule_applications: int
    goals_created: int
    message: str = ""


class Search:
    """One run of Aesop's search on one goal."""

    def __init__(self, goal: Goal, call: AesopCall, rules: RuleSet, ctx: TacticContext) -> None:
        self.call = call
        self.opts = call.options
        self.rules = rules
        self.ctx = ctx
        self.counter = itertools.count()
        self.root = GNode(goal, 0, 1.0, None, next(self.counter))
        self.n_goals = 1
        self.n_rapps = 0
        self.depth_reached = False
        self.queue: list[tuple[Any, ...]] = []
        self.stack: list[GNode] = []
        self.fifo: deque[GNode] = deque()
        self.iteration = 1
        self.root_initial = goal
        self._push(self.root)
        self.simp_text = self._simp_text()

    # ---- queue (Aesop's BestFirstQueue / LIFOQueue / FIFOQueue)
    def _push(self, g: GNode) -> None:
        s = self.opts.strategy
        if s == "depthFirst":
            self.stack.append(g)
        elif s == "breadthFirst":
            self.fifo.append(g)
        else:
            # priority, then goals last expanded in an earlier iteration, then goals added earlier
            key = (-g.priority, g.last_expanded, g.added, g.gid)
            heapq.heappush(self.queue, (*key, g))

    def _push_children(self, gs: list[GNode]) -> None:
        if self.opts.strategy == "depthFirst":
            self.stack.extend(reversed(gs))
        else:
            for g in gs:
                self._push(g)

    def _active(self, g: GNode) -> bool:
        if g.proved or g.unprovable or g.exhausted:
            return False
        r = g.parent
        while r is not None:
            if r.proved or r.unprovable:
                return False
            p = r.parent
            if p.proved or p.unprovable:
                return False
            r = p.parent
        return True

    def _pop(self) -> GNode | None:
        s = self.opts.strategy
        while True:
            if s == "depthFirst":
                if not self.stack:
                    return None
                g = self.stack.pop()
            elif s == "breadthFirst":
                if not self.fifo:
                    return None
                g = self.fifo.popleft()
            else:
                if not self.queue:
                    return None
                g = heapq.heappop(self.queue)[-1]
            if self._active(g):
                return g

    # ---- state propagation
    def _mark_proved(self, g: GNode, via: RNode | None) -> None:
        g.proved = True
        g.proof_rapp = via
        r = g.parent
        while r is not None:
            if all(c.proved for c in r.children):
                r.proved = True
                p = r.parent
                if p.proved:
                    return
                p.proved = True
                p.proof_rapp = r
                r = p.parent
            else:
                return

    def _mark_unprovable(self, g: GNode) -> None:
        g.unprovable = True
        r = g.parent
        while r is not None:
            r.unprovable = True
            p = r.parent
            if p.proved or p.unprovable:
                return
            if self._has_rules_left(p) or any(not x.unprovable for x in p.rapps):
                return
            p.unprovable = True
            r = p.parent

    def _has_rules_left(self, g: GNode) -> bool:
        if not g.normalized:
            return True
        if not g.safe_done:
            return True
        if g.safe_rapp:
            return False
        return g.unsafe_next < len(self.rules.unsafe)

    # ---- main loop
    def run(self) -> AesopResult:
        o = self.opts
        while True:
            if self.root.proved:
                return AesopResult(True, (), tuple(self._script(self.root)), self.n_rapps, self.n_goals)
            if self.root.unprovable:
                if self.depth_reached:
                    raise AesopFailure(
                        "failed to prove the goal. Some goals were not explored because the maximum rule "
                        f"application depth ({o.max_rule_application_depth}) was reached. Set option "
                        "'maxRuleApplicationDepth' to increase the limit."
                    )
                raise AesopFailure("failed to prove the goal after exhaustive search.")
            if o.max_goals and self.n_goals >= o.max_goals:
                raise AesopFailure(
                    f"maximum number of goals ({o.max_goals}) reached. Set the 'maxGoals' option to increase the limit."
                )
            if o.max_rule_applications and self.n_rapps >= o.max_rule_applications:
                raise AesopFailure(
                    f"maximum number of rule applications ({o.max_rule_applications}) reached. Set the "
                    "'maxRuleApplications' option to increase the limit."
                )
            g = self._pop()
            if g is None:
                # every open goal is exhausted: the root can no longer be proved
                self.root.unprovable = True
                continue
            self._expand(g)
            g.last_expanded = self.iteration
            self.iteration += 1
            if g.requeue and self._active(g):
                g.requeue = False
                self._push(g)

    def _expand(self, g: GNode) -> None:
        ctx = self.ctx
        ctx.tick(COST_EXPANSION)
        o = self.opts
        if o.max_rule_application_depth and g.depth >= o.max_rule_application_depth:
            self.depth_reached = True
            g.exhausted = True
            self._mark_unprovable(g)
            return
        if not g.normalized:
            g.normalized = True
            res = self._normalize(g)
            if res is None:
                self._mark_proved(g, None)
                return
            g.goal = res
        if not g.safe_done:
            g.safe_done = True
            for rule in self.rules.safe:
                exps = _apply_rule(rule, g.goal, ctx, o)
                if exps:
                    g.safe_rapp = True
                    self._add_rapp(g, rule, exps[0])
                    if not g.proved and not g.unprovable:
                        g.exhausted = True
                        if all(r.unprovable for r in g.rapps):
                            self._mark_unprovable(g)
                    return
        unsafe = self.rules.unsafe
        while g.unsafe_next < len(unsafe):
            rule = unsafe[g.unsafe_next]
            g.unsafe_next += 1
            exps = _apply_rule(rule, g.goal, ctx, o)
            if exps:
                for e in exps:
                    self._add_rapp(g, rule, e)
                    if g.proved:
                        return
                if g.unsafe_next < len(unsafe) and not g.proved:
                    g.requeue = True
                else:
                    g.exhausted = True
                    if all(r.unprovable for r in g.rapps):
                        self._mark_unprovable(g)
                return
        g.exhausted = True
        if all(r.unprovable for r in g.rapps):
            self._mark_unprovable(g)

    def _add_rapp(self, g: GNode, rule: Rule, exp: Expansion) -> None:
        self.ctx.tick(COST_RAPP)
        self.n_rapps += 1
        r = RNode(rule, g, exp.script)
        g.rapps.append(r)
        if not exp.goals:
            r.proved = True
            self._mark_proved(g, r)
            return
        prio = g.priority * rule.prob
        for sub in exp.goals:
            child = GNode(sub, g.depth + 1, prio, r, next(self.counter), added=self.iteration)
            r.children.append(child)
            self.n_goals += 1
        self._push_children(r.children)

    # ---- normalisation
    def _simp_text(self) -> str | None:
        o = self.opts
        if not o.enable_simp:
            return None
        lemmas = self.rules.simp_lemmas
        lst = f" [{', '.join(lemmas)}]" if lemmas else ""
        if o.use_simp_all:
            return f"simp_all only{lst}" if not o.use_default_simp_set else f"simp_all{lst}"
        if not o.use_default_simp_set:
            return f"simp only{lst} at *"
        return f"simp{lst} at *"

    def _normalize(self, g: GNode) -> Goal | None:
        """Run the norm phase to a fixpoint; ``None`` when it proves the goal.

        Memoised as a whole (as a rule's answer is): configs share their norm rules and simp call far more
        often than anything else, and a goal's normalisation is a function of the goal and of them.
        """
        ctx = self.ctx
        if not memo_enabled() or ctx.tactic_log is not None or self._norm_names_decl():
            res, scripts = self._normalize_goal(g.goal)
        else:
            what = ("norm", self._norm_key())
            new, scripts = _tracked(_NORMS, what, g.goal, ctx, lambda: self._norm_run(g.goal), True)
            res = new[0] if new else None
        g.norm_script.extend(scripts)
        return res

    def _norm_key(self) -> tuple[Any, ...]:
        o, r = self.opts, self.rules
        return (tuple(r.norm_pre), tuple(r.norm_post), r.unfold_defs, o.enable_unfold, self.simp_text,
                o.max_norm_iterations)  # fmt: skip

    def _norm_names_decl(self) -> bool:
        name = self.ctx.decl_name
        if name is None:
            return False
        short = name.rsplit(".", 1)[-1]
        texts = [r.arg for r in (*self.rules.norm_pre, *self.rules.norm_post)]
        texts += [*self.rules.unfold_defs, self.simp_text or ""]
        return any(_mentions(t, short) for t in texts)

    def _norm_run(self, goal: Goal) -> tuple[list[Goal], tuple[str, ...]]:
        res, scripts = self._normalize_goal(goal)
        return ([] if res is None else [res]), tuple(scripts)

    def _normalize_goal(self, goal: Goal) -> tuple[Goal | None, list[str]]:
        """The norm phase on ``goal``: the normal goal (``None``: proved) and the script of its steps."""
        ctx = self.ctx
        o = self.opts
        norm_script: list[str] = []
        limit = o.max_norm_iterations or 100_000
        iteration = 0
        step = 0
        while True:
            if iteration >= limit:
                raise TacticError(
                    f"aesop: exceeded maximum number of normalisation iterations ({o.max_norm_iterations}). "
                    "This means normalisation probably got stuck in an infinite loop."
                )
            ctx.tick(COST_NORM_STEP)
            changed: Goal | None = None
            proved = False
            script = ""
            if step == 0:
                for rule in self.rules.norm_pre:
                    r = self._norm_rule(rule, goal)
                    if r is not None:
                        changed, proved, script = r
                        break
            elif step == 1:
                text = self._unfold_text(goal) if o.enable_unfold and self.rules.unfold_defs else None
                if text is not None:
                    new = _run_sub(goal, text, ctx)
                    if new is not None and not (len(new) == 1 and new[0] == goal):
                        if not new:
                            proved = True
                        else:
                            changed = new[0]
                        script = text
            elif step == 2:
                if self.simp_text is not None:
                    new = self._norm_simp(goal)
                    if new is not None:
                        if not new:
                            proved = True
                        else:
                            changed = new[0]
                        script = self.simp_text
            else:
                for rule in self.rules.norm_post:
                    r = self._norm_rule(rule, goal)
                    if r is not None:
                        changed, proved, script = r
                        break
            if proved:
                norm_script.append(script)
                return None, norm_script
            if changed is not None and changed != goal:
                norm_script.append(script)
                goal = changed
                iteration += 1
                step = 0
                continue
            step += 1
            if step == 4:
                return goal, norm_script

    def _unfold_text(self, goal: Goal) -> str | None:
        """``unfold d₁ d₂ at h … ⊢`` for the locations that mention an unfold rule's definition."""
        defs = set(self.rules.unfold_defs)
        locs = [user_name(n) for n, ty in goal.hyps if ty[0] != "type" and defs & const_names(ty)]
        if defs & const_names(goal.target):
            locs.append("⊢")
        if not locs:
            return None
        return f"unfold {' '.join(self.rules.unfold_defs)} at {' '.join(locs)}"

    def _norm_simp(self, goal: Goal) -> list[Goal] | None:
        text = self.simp_text
        assert text is not None
        new = _run_sub(goal, text, self.ctx)
        if new is None:
            return None
        if len(new) > 1:
            return None
        if len(new) == 1 and new[0] == goal:
            return None
        return new

    def _norm_rule(self, rule: Rule, goal: Goal) -> tuple[Goal | None, bool, str] | None:
        ctx = self.ctx
        if rule.kind == "builtin":
            k = rule.arg
            ctx.tick(COST_BUILTIN)
            step = _NORM_STEPS.get(k)
            if step is None:
                return None
            got = _memo_step(k, goal, step)
            if got is None:
                return None
            goals, script = got
            return (goals[0], False, script) if goals else (None, True, script)
        exps = _apply_rule(rule, goal, ctx, self.opts)
        if not exps:
            return None
        e = exps[0]
        if not e.goals:
            return (None, True, e.script)
        if len(e.goals) > 1:
            raise TacticError(
                f"aesop: error while running norm rule {rule.name}: rule produced more than one subgoal.\n"
                f"The rule was run on this goal:\n{_indent(goal.pretty())}"
            )
        return (e.goals[0], False, e.script)

    # ---- results
    def _script(self, g: GNode) -> list[str]:
        out = list(g.norm_script)
        r = g.proof_rapp
        if r is None:
            return out
        out.append(r.script)
        if len(r.children) == 1:
            out.extend(self._script(r.children[0]))
        else:
            for c in r.children:
                sub = self._script(c)
                if not sub:
                    continue
                out.append("· " + sub[0])
                out.extend("  " + s for s in sub[1:])
        return out

    def safe_prefix_goals(self) -> list[Goal]:
        """The goals left after normalisation and safe rules only, from the root (Aesop's safe prefix)."""
        out: list[Goal] = []
        self._safe_prefix(self.root, out)
        return out

    def _safe_prefix(self, g: GNode, out: list[Goal]) -> None:
        if g.proved:
            return
        safe = [r for r in g.rapps if r.rule.phase == "safe"]
        if safe:
            for c in safe[0].children:
                self._safe_prefix(c, out)
        else:
            out.append(g.goal)

    def release(self) -> None:
        """Cut the tree's links from parents to children, so that reference counting frees it at once (the
        collector would otherwise have to find its cycles)."""
        stack = [self.root]
        while stack:
            g = stack.pop()
            for r in g.rapps:
                stack.extend(r.children)
                r.children = []
            g.rapps = []
            g.proof_rapp = None
        self.queue, self.stack, self.fifo = [], [], deque()

    def made_progress(self) -> bool:
        if self.root.goal != self.root_initial:
            return True
        return any(r.rule.phase == "safe" for r in self.root.rapps)


def _indent(text: str, n: int = 2) -> str:
    pad = " " * n
    return "\n".join(pad + ln for ln in text.split("\n"))


def _parse_cached(text: str) -> AesopCall | AesopSyntaxError:
    """The parsed call (or its syntax error): a pure function of the text, memoised."""
    on = memo_enabled()
    got = _CALLS.get(text) if on else MISS
    if got is MISS:
        try:
            got = parse_aesop(text)
        except AesopSyntaxError as e:
            got = e
        if on:
            _CALLS.put(text, got, 2000 + 16 * len(text))
    return got


def run_aesop(goal: Goal, text: str, ctx: TacticContext) -> AesopResult:
    """Run an aesop call on ``goal`` and report what happened (no warnings logged).

    Args:
        goal: The goal.
        text: The whole call, ``aesop …`` or ``aesop? …``.
        ctx: The tactic context (heartbeats are charged to it).

    Returns:
        The result; ``proved`` tells whether the goal was closed.

    Raises:
        TacticError: for a malformed call, a fatal search error, or (as ``HeartbeatsExceeded``) the budget.
    """
    parsed = _parse_cached(text)
    if isinstance(parsed, AesopSyntaxError):
        raise TacticError(parsed.message)
    rules = _elab_rules(parsed, goal, ctx)
    search = Search(goal, parsed, rules, ctx)
    try:
        return search.run()
    except AesopFailure as f:
        return AesopResult(
            False, tuple(search.safe_prefix_goals()), (), search.n_rapps, search.n_goals, f.message
        )
    finally:
        search.release()


def _locate(ctx: TacticContext, text: str) -> tuple[int, int]:
    src = ctx.src
    if src is None:
        return -1, -1
    i = src.text.find(text.strip())
    if i < 0:
        return -1, -1
    return i, i + len(text.strip())


def aesop_tactic(goal: Goal, text: str, ctx: TacticContext) -> list[Goal]:
    """The ``aesop``/``aesop?`` tactic handler registered with :func:`~lean_gym.sim.tactics.register_tactic`.

    Returns:
        ``[]`` when the goal is proved; otherwise (non-terminal failure) the goals left by the safe prefix,
        after logging Aesop's warning.

    Raises:
        TacticError: Aesop's error (malformed call, ``terminal`` failure, no progress, fatal errors), or
            ``HeartbeatsExceeded`` past the budget.
    """
    parsed = _parse_cached(text)
    if isinstance(parsed, AesopSyntaxError):
        raise TacticError(parsed.message)
    rules = _elab_rules(parsed, goal, ctx)
    search = Search(goal, parsed, rules, ctx)
    start, end = _locate(ctx, text)
    try:
        return _finish(search, goal, ctx, start, end)
    finally:
        search.release()


def _finish(search: Search, goal: Goal, ctx: TacticContext, start: int, end: int) -> list[Goal]:
    """Run the search and turn its end into the tactic's answer, warning or error."""
    o = search.opts
    try:
        result = search.run()
    except AesopFailure as f:
        remaining = search.safe_prefix_goals()
        initial = _indent(goal.pretty())
        # `set_option aesop.smallErrorMessages true`: the first line only (Aesop's throwAesopEx)
        small = ctx.env.options.get("aesop.smallErrorMessages") is True
        if o.terminal and small:
            raise TacticError(f"tactic 'aesop' failed, {f.message}") from None
        if o.terminal:
            suffix = ""
            if remaining:
                suffix = "\nRemaining goals after safe rules:\n" + "\n\n".join(
                    _indent(g.pretty()) for g in remaining
                )
            raise TacticError(
                f"tactic 'aesop' failed, {f.message}\nInitial goal:\n{initial}{suffix}"
            ) from None
        if not search.made_progress():
            if small:
                raise TacticError("tactic 'aesop' failed, made no progress") from None
            raise TacticError(f"tactic 'aesop' failed, made no progress\nInitial goal:\n{initial}") from None
        if o.warn_on_nonterminal:
            ctx.messages.append(LogMessage("warning", f"aesop: {f.message}", start, end))
        return remaining
    if o.trace_script:
        steps = list(result.script) or ["done"]
        text_out = f"Try this: {steps[0]}" if len(steps) == 1 else "Try this:\n  " + "\n  ".join(steps)
        ctx.messages.append(LogMessage("info", text_out, start, end))
    return []


register_tactic("aesop", aesop_tactic)
register_tactic("aesop?", aesop_tactic)
