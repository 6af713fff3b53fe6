"""Lean core's ``grind`` (``src/Lean/Meta/Tactic/Grind/``), as much of it as the simulator models.

``grind`` refutes the negated goal: it asserts every hypothesis and ``¬target``, normalises them, and then
alternates propagation (the truth values of propositions, congruence closure, its theory solvers),
E-matching rounds and case splits until it finds a contradiction in every branch. The parts modelled here,
each with Lean's own limits (``Init/Grind/Config.lean``: ``splits := 9``, ``ematch := 5`` rounds before each
split, ``gen := 8``, ``instances := 1000``, ``ringSteps := 10000``):

* **Propositional structure**: ``∧`` facts are split, ``∨``/``→``/``↔`` facts propagate truth values (an
  implication whose antecedent is true asserts its consequent, …); ``∃`` facts get a fresh witness, ``¬∀``
  facts one of ``¬``. Case splits are Lean's (``Grind/Split.lean``): a true ``a ∨ b``, a false ``a ∧ b``, an
  ``a ↔ b`` whose sides are not decided, and an implication whose antecedent is an arithmetic proposition
  (``splitImp := false``); the first case of a split is free, as Lean counts them since its
  leanprover/lean4 PR 11609 (December 2025: a first case closed without its hypothesis costs nothing).
* **Congruence closure** of equalities (``a = b`` merges; ``f a = f b`` follows), with distinct literals
  (``true``/``false``, numerals) and asserted disequalities as conflicts.
* **E-matching** (``EMatch.lean``, ``EMatchTheorem.lean``): the lemmas of ``grind only [L, …]`` with
  Lean's pattern inference for parameters (the conclusion then the hypotheses, the first indexable
  subterm that covers new variables, minimal indexable subterms first, symbol priorities: ``Eq``, ``Iff``,
  ``And``, ``Or``, ``Not`` never, ``+ - * / % ∣`` only as a last resort), and every local ``∀`` fact with
  all its singleton patterns (``mkEMatchTheoremUsingSingletonPatterns``); patterns match the terms of the
  facts syntactically, with Lean's offsets (``?n + 2`` matches ``9``). Plain ``grind`` has none of
  Mathlib's ``@[grind]`` lemmas (the simulator does not know that set): it is weaker there.
* **Theories**: ``cutsat`` for ℕ/ℤ (:func:`lean_gym.sim.tac_arith._cutsat_tac`), the ``linarith`` module
  for ordered fields (with ``≠`` split), and the commutative-ring module (ℂ too, which the ordered solvers never read): a Gröbner basis of the
  equations (:mod:`lean_gym.sim.arith.groebner`, certificate checked), a field disequality ``a ≠ b`` as
  ``(a - b) * (a - b)⁻¹ = 1`` (Rabinowitsch, ``diseqToEq``), and every inverse ``d⁻¹`` split as ``d = 0 ∧
  d⁻¹ = 0`` or ``d * d⁻¹ = 1`` (``CommRing/Internalize.lean``, ``processInv``).

The ring module's implied equalities between the number-typed arguments of applications (two with one
normal form) join the congruence closure, as ``grind_ring_2.lean`` records (``f (y * x) = f 1``).

Not modelled: matching modulo the E-graph's equivalence classes, model-based theory combination, the ring
module's implied equalities between other terms, ``match``/``ite`` splitting, extensionality, Mathlib's
grind lemma set. Each of those only loses proofs, so the simulator's ``grind`` proves less than Lean's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from lean_gym.sim.arith import ArithBudgetExceeded, EvalTooExpensive, Poly
from lean_gym.sim.arith.groebner import RING_STEPS, GroebnerBasis
from lean_gym.sim.elab import BUILTIN_FNS, Decl
from lean_gym.sim.evaluate import decide_closed, eval_term
from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import Decided, PolyIdentity, close
from lean_gym.sim.polyconv import RING_TYPES, Conv
from lean_gym.sim.proofs import Binder, Instance, _has_mvars, decl_telescope, prop_telescope
from lean_gym.sim.tac_arith import _cutsat_tac, _ring_closes, linarith_core
from lean_gym.sim.tactics import TacSyntax, TacticContext, TacticError, builtin
from lean_gym.sim.terms import (
    ATOM_HEADS,
    FALSE,
    LIST_NIL,
    ORDERED_TYPES,
    TRUE,
    NumeralTooLarge,
    Term,
    map_subterms,
    mk_num,
    new_fvar,
    subst,
)
from lean_gym.sim.unify import canon, instantiate, match

__all__ = ["GRIND_EMATCH_ROUNDS", "GRIND_MAX_GEN", "GRIND_MAX_INSTANCES", "GRIND_SPLITS"]

GRIND_SPLITS = 9
"""``Grind.Config.splits``: case splits on one branch (the first case of a split is not counted)."""
GRIND_EMATCH_ROUNDS = 5
"""``Grind.Config.ematch``: E-matching rounds before each case split."""
GRIND_MAX_GEN = 8
"""``Grind.Config.gen``: the longest chain of instances (terms of the goal have generation 0)."""
GRIND_MAX_INSTANCES = 1000
"""``Grind.Config.instances``: theorem instances on one branch."""
NE_SPLITS = 3
"""``≠`` facts the linarith module splits into ``<``/``>`` (its model search decides them one at a time)."""

_NUM = ORDERED_TYPES
"""The ordered number types: what the linear solvers (cutsat, the linarith module) read."""
_RINGS = RING_TYPES
"""The commutative rings of the ring module (``Grind.CommRing``): ℂ too, a field with no order."""
_FIELDS = ("ℚ", "ℝ", "ℂ")
_RELS = ("=", "<", "≤", "∣")

# E-matching symbol priorities (Init/Grind/Tactics.lean: `attribute [grind symbol 0] Eq HEq Iff And Or Not
# ite dite`, `attribute [grind symbol low] HAdd.hAdd HSub.hSub HMul.hMul HSMul.hSMul Dvd.dvd HDiv.hDiv
# HMod.hMod`); every other symbol has the default priority
_PRIO_DEFAULT = 2
_PRIO_LOW = 1
_LOW_HEADS = frozenset({"+", "-", "*", "/", "%", "∣"})
_DEFAULT_HEADS = frozenset({"^", "neg", "inv", "abs", "cast", "<", "≤"})


class _Conflict(Exception):
    """The current branch is contradictory."""


# ------------------------------------------------------------------------------------------ the tactic


@builtin("grind")
def _grind(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    """Lean core's ``grind`` (``grind``, ``grind only [L, …]``): see the module docstring."""
    names = _parse_params(goal, syn, ctx)
    if _ring_closes(goal.target, ctx):
        return close(goal, PolyIdentity(), ctx)
    thms: list[_Thm] = []
    for name in names:
        d = ctx.lookup(name)
        if d is None or d.kind not in ("theorem", "axiom"):
            continue  # a Mathlib name the simulator does not know: it cannot be used (weaker)
        thm = _param_theorem(d)
        if thm is not None:
            thms.append(thm)
            ctx.axioms.update(d.axioms)
    bare = TacSyntax(syn.name, syn.toks[:1], syn.src, syn.start, syn.toks[0].end)
    search = _Search(goal, thms, ctx, bare)
    if search.run():
        ctx.use_standard_axioms()
        return close(goal, Decided("grind"), ctx)
    raise TacticError("`grind` failed")


def _parse_params(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[str]:
    """The lemma names of ``grind only [a, b]`` / ``grind [a, b]`` (other parameters are read and not used).

    A name that is a local hypothesis and no global constant is Lean's error (``Grind/Param.lean``,
    ``processParam``): local hypotheses are used anyway.
    """
    ts = syn.stream(1)
    if ts.tok.kind == "ident" and ts.tok.text == "only":
        ts.advance()
    names: list[str] = []
    if ts.is_sym("["):
        ts.advance()
        depth = 0
        item: list[Any] = []
        while ts.tok.kind != "eof":
            tok = ts.tok
            if depth == 0 and (ts.is_sym(",") or ts.is_sym("]")):
                if len(item) == 1 and item[0].kind == "ident":
                    names.append(item[0].text)
                    _check_not_local(goal, item[0], ctx)
                item = []
                if ts.is_sym("]"):
                    ts.advance()
                    break
                ts.advance()
                continue
            if tok.kind == "sym" and tok.text in ("(", "[", "⟨"):
                depth += 1
            elif tok.kind == "sym" and tok.text in (")", "]", "⟩"):
                depth -= 1
            item.append(tok)
            ts.advance()
        else:
            raise TacticError("unexpected end of input; expected ']'", syn.end, syn.end)
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    return names


def _check_not_local(goal: Goal, tok: Any, ctx: TacticContext) -> None:
    name = tok.text
    if goal.find(name) is not None and ctx.lookup(name) is None:
        raise TacticError(
            f"redundant parameter `{name}`, `grind` uses local hypotheses automatically", tok.start, tok.end
        )


# --------------------------------------------------------------------------------------- normalisation


def _norm(t: Term) -> Term:
    """grind's normaliser on a proposition or term, as far as the simulator models it: closed arithmetic
    evaluated, closed comparisons decided, ``>``/``≥``/``≠`` unfolded, ``¬a < b`` as ``b ≤ a``, and the
    propositional identities with ``True``/``False``."""
    h = t[0]
    if h in ATOM_HEADS or h in ("∀", "∃", "fun"):
        return t
    if h == "app":
        args = tuple(_norm(a) for a in t[2])
        t = t if all(a is b for a, b in zip(args, t[2])) else ("app", t[1], args)
    else:
        parts = tuple(_norm(c) if type(c) is tuple else c for c in t)
        t = t if all(a is b for a, b in zip(parts, t)) else parts
        h = t[0]
    return _norm_root(t)


REDUCE_POW_THRESHOLD = 256
"""Lean's ``exponentiation.threshold``: simp's ``Nat.reducePow`` (grind normalises with it) evaluates no
power with a larger exponent."""


def _norm_root(t: Term) -> Term:
    h = t[0]
    if h in ("+", "-", "*", "/", "%", "^", "neg", "inv", "cast") and t[1] in _RINGS:
        if _large_power(t):
            return t
        try:
            v = eval_term(t, None, False)
        except (EvalTooExpensive, ValueError, ArithmeticError):
            v = None
        if v is not None:
            try:
                return mk_num(t[1], v)
            except NumeralTooLarge:
                return t
        return t
    if h == ">":
        return _norm_root(("<", t[1], t[3], t[2]))
    if h == "≥":
        return _norm_root(("≤", t[1], t[3], t[2]))
    if h == "≠":
        return _norm_root(("¬", ("=", t[1], t[2], t[3])))
    if h in ("=", "<", "≤", "∣") and t[1] in _RINGS:
        if h == "=" and t[2] == t[3]:
            return TRUE
        if t[2][0] in ("num", "neg", "/") and t[3][0] in ("num", "neg", "/"):
            r = decide_closed(t, _NULL_CTX, allow_fields=True)
            if r is not None:
                return TRUE if r else FALSE
        return t
    if h == "=" and t[1] == "Prop":
        return _norm_root(("↔", t[2], t[3]))
    if h == "=" and t[2] == t[3]:
        return TRUE
    if h == "=" and t[2][0] == "bool" and t[3][0] == "bool":
        return TRUE if t[2][1] == t[3][1] else FALSE
    if h == "¬":
        a = t[1]
        if a == TRUE:
            return FALSE
        if a == FALSE:
            return TRUE
        if a[0] == "¬":
            return a[1]
        if a[0] == "<" and a[1] in _NUM:
            return ("≤", a[1], a[3], a[2])
        if a[0] == "≤" and a[1] in _NUM:
            return ("<", a[1], a[3], a[2])
        return t
    if h == "∧":
        a, b = t[1], t[2]
        if a == FALSE or b == FALSE:
            return FALSE
        return b if a == TRUE else a if b == TRUE else t
    if h == "∨":
        a, b = t[1], t[2]
        if a == TRUE or b == TRUE:
            return TRUE
        return b if a == FALSE else a if b == FALSE else t
    if h == "→":
        a, b = t[1], t[2]
        if a == FALSE or b == TRUE:
            return TRUE
        if a == TRUE:
            return b
        if b == FALSE:
            return _norm_root(("¬", a))
        return t
    if h == "↔":
        a, b = t[1], t[2]
        if a == b:
            return TRUE
        if a == TRUE:
            return b
        if b == TRUE:
            return a
        if a == FALSE:
            return _norm_root(("¬", b))
        if b == FALSE:
            return _norm_root(("¬", a))
        return t
    return t


class _NullCtx:
    """A stand-in tactic context for closed decisions during normalisation (they cost nothing here: the
    search charges its own work)."""

    def tick(self, n: int = 1) -> None:
        return None

    def lookup(self, name: str) -> None:
        return None


_NULL_CTX: Any = _NullCtx()


# ------------------------------------------------------------------------------------------ E-matching


@dataclass
class _Thm:
    """An E-matching theorem: binders opened as metavariables, its patterns, the types it allows."""

    key: Any
    binders: tuple[tuple[str, Binder], ...]
    conclusion: Term
    patterns: tuple[tuple[Term, ...], ...]
    allowed: dict[str, frozenset[str]]
    gen: int = 0

    @property
    def data(self) -> frozenset[str]:
        return frozenset(m for m, b in self.binders if not b.is_prop)


def _open(inst: Instance) -> tuple[tuple[tuple[str, Binder], ...], Term]:
    while inst.pending:
        inst.mvar_next()
    return tuple(inst.mvars), inst.conclusion


def _param_theorem(d: Decl) -> _Thm | None:
    """A ``grind only [d]`` parameter: Lean's ``mkEMatchTheoremAndSuggest`` for a parameter tries the
    ``.default`` kind first, with the minimal-indexable-subterm condition, then without it."""
    inst = Instance(decl_telescope(d, peel_not=False))
    binders, concl = _open(inst)
    data = frozenset(m for m, b in binders if not b.is_prop)
    places = [_unfold_reducible(concl)] + [_unfold_reducible(b.type) for _, b in binders if b.is_prop]
    for min_idx in (True, False):
        pats = _collect_default(places, data, min_idx)
        if pats is not None:
            return _Thm(d.name, binders, concl, (tuple(pats),), dict(inst.allowed))
    return None


def _local_theorem(p: Term, key: Any, gen: int) -> _Thm | None:
    """A local ``∀`` fact with all its singleton patterns (``addLocalEMatchTheorems``)."""
    inst = Instance(prop_telescope(p, peel_not=False))
    binders, concl = _open(inst)
    data = frozenset(m for m, b in binders if not b.is_prop)
    if not data:
        return None
    places = [_unfold_reducible(b.type) for _, b in binders if b.is_prop] + [_unfold_reducible(concl)]
    pats = _collect_singletons(places, data)
    if not pats:
        return None
    return _Thm(key, binders, concl, tuple((q,) for q in pats), dict(inst.allowed), gen)


def _unfold_reducible(t: Term) -> Term:
    """``>``, ``≥``, ``≠`` unfolded (they are reducible: Lean's patterns see ``<``, ``≤``, ``¬ =``)."""
    h = t[0]
    if h in ("∀", "∃", "fun"):
        return t
    t = map_subterms(t, _unfold_reducible)
    if h == ">":
        return ("<", t[1], t[3], t[2])
    if h == "≥":
        return ("≤", t[1], t[3], t[2])
    if h == "≠":
        return ("¬", ("=", t[1], t[2], t[3]))
    return t


def _children(t: Term) -> tuple[Term, ...]:
    h = t[0]
    if h in ATOM_HEADS or h in ("∀", "∃", "fun"):
        return ()
    if h == "app":
        return tuple(t[2])
    return tuple(c for c in t[1:] if type(c) is tuple)


def _mvars(t: Term, out: set[str] | None = None) -> set[str]:
    acc: set[str] = set() if out is None else out
    stack = [t]
    while stack:
        u = stack.pop()
        if u[0] == "mvar":
            acc.add(u[1])
        elif u[0] == "app":
            stack.append(u[1])
            stack.extend(u[2])
        else:
            stack.extend(c for c in u[1:] if type(c) is tuple)
    return acc


def _prio(t: Term) -> int:
    h = t[0]
    if h == "app":
        return _PRIO_DEFAULT if t[1][0] in ("const", "fvar") else 0
    if h in _LOW_HEADS:
        return _PRIO_LOW
    if h in _DEFAULT_HEADS:
        return _PRIO_DEFAULT
    return 0


def _candidate(t: Term, root: bool, min_prio: int) -> bool:
    """Whether ``t``'s head may head a pattern (``isPatternFnCandidate``; a local function always may)."""
    if t[0] == "app" and t[1][0] == "fvar":
        return True
    p = _prio(t)
    return p > 0 and (not root or p >= min_prio)


def _is_offset(t: Term) -> bool:
    return t[0] == "+" and t[1] == "ℕ" and t[3][0] == "num" and type(t[3][2]) is int and t[3][2] > 0


def _collect_default(places: list[Term], data: frozenset[str], min_idx: bool) -> list[Term] | None:
    """Lean's ``collectPatterns?`` for the ``.default`` kind: the first indexable subterms, in the order of
    ``places``, that cover new variables, trying the symbol priorities present from the highest down."""
    prios = sorted({_prio(s) for pl in places for s in _subterms(pl) if _prio(s) > 0}, reverse=True)
    for min_prio in prios or [_PRIO_DEFAULT]:
        found: set[str] = set()
        pats: list[Term] = []
        if any(_collect_in(pl, data, min_idx, min_prio, found, pats) for pl in places):
            return pats
    return None


def _collect_in(
    e: Term, data: frozenset[str], min_idx: bool, min_prio: int, found: set[str], pats: list[Term]
) -> bool:
    """Collect patterns in ``e`` (Lean's ``collect.go``); whether every variable is covered now."""
    if e[0] in ATOM_HEADS:
        return False
    if _candidate(e, True, min_prio):
        new = (_mvars(e) & data) - found
        if new and not (min_idx and _subsumed(e, new, found, data, min_prio)):
            pats.append(e)
            found.update(_mvars(e) & data)
            return found >= data
    return any(
        not _is_offset(c) and _collect_in(c, data, min_idx, min_prio, found, pats) for c in _children(e)
    )


def _subsumed(e: Term, new: set[str], found: set[str], data: frozenset[str], min_prio: int) -> bool:
    """A child of ``e`` that covers as many new variables (the minimal indexable subterm condition)."""
    for c in _children(e):
        if c[0] in ATOM_HEADS or _is_offset(c) or not _candidate(c, True, min_prio):
            continue
        if len((_mvars(c) & data) - found) == len(new):
            return True
    return False


def _collect_singletons(places: list[Term], data: frozenset[str]) -> list[Term]:
    out: list[Term] = []
    for pl in places:
        for s in _subterms(pl):
            if (
                s[0] not in ATOM_HEADS
                and _candidate(s, True, _PRIO_DEFAULT)
                and _mvars(s) >= data
                and s not in out
            ):
                out.append(s)
    return out


def _subterms(t: Term) -> Iterator[Term]:
    stack = [t]
    while stack:
        u = stack.pop()
        yield u
        stack.extend(reversed(_children(u)))


def _head_key(t: Term) -> Any:
    return ("app", t[1]) if t[0] == "app" else t[0]


# -------------------------------------------------------------------------------------- types of terms


def _type_of(t: Term, types: dict[str, Term]) -> str | None:
    """The type name of a data term, where the simulator can tell it (``None`` otherwise)."""
    h = t[0]
    if h == "fvar":
        ty = types.get(t[1])
        return ty[1] if ty is not None and ty[0] == "type" else None
    if h in ("num", "+", "-", "*", "/", "%", "^", "neg", "abs", "inv", "cast"):
        return str(t[1]) if isinstance(t[1], str) and not t[1].startswith("?") else None
    if h == "bool":
        return "Bool"
    if h == "app":
        f = t[1]
        if f[0] == "const" and f[1] in BUILTIN_FNS:
            return BUILTIN_FNS[f[1]][1]
        if f[0] == "fvar":
            ty = types.get(f[1])
            n = len(t[2])
            while ty is not None and ty[0] == "arrow" and n > 0:
                ty, n = ty[2], n - 1
            return ty[1] if ty is not None and n == 0 and ty[0] == "type" else None
    return None


# ------------------------------------------------------------------------------------------ the search


@dataclass
class _Branch:
    """One branch of the search: what is known, and what is left to decide."""

    values: dict[Term, bool] = field(default_factory=dict)  # canonical atom → truth value
    atoms: dict[Term, Term] = field(default_factory=dict)  # canonical atom → the atom
    compounds: list[tuple[Term, int]] = field(default_factory=list)  # ∨ → ↔ facts with their generation
    thms: list[_Thm] = field(default_factory=list)
    terms: dict[Term, int] = field(default_factory=dict)  # ground terms → generation
    index: dict[Any, list[Term]] = field(default_factory=dict)
    instances: set[Any] = field(default_factory=set)
    num_instances: int = 0
    splits: int = 0
    split_inv: set[Term] = field(default_factory=set)
    types: dict[str, Term] = field(default_factory=dict)
    parent_uf: dict[Term, Term] = field(default_factory=dict)
    ring_steps: int = RING_STEPS  # what is left of `Grind.Config.ringSteps` on this branch
    charged: set[Any] = field(default_factory=set)  # the theory problems already charged to it

    def copy(self) -> _Branch:
        return _Branch(
            dict(self.values),
            dict(self.atoms),
            list(self.compounds),
            list(self.thms),
            dict(self.terms),
            {k: list(v) for k, v in self.index.items()},
            set(self.instances),
            self.num_instances,
            self.splits,
            set(self.split_inv),
            dict(self.types),
            dict(self.parent_uf),
            self.ring_steps,
            set(self.charged),
        )


class _Search:
    """The case-splitting search of one ``grind`` call."""

    def __init__(self, goal: Goal, thms: list[_Thm], ctx: TacticContext, bare: TacSyntax) -> None:
        self.goal = goal
        self.ctx = ctx
        self.bare = bare
        self.params = thms
        self.theory_memo: dict[Any, tuple[bool, tuple[Term, ...], int]] = {}
        self.linear_charged = False  # whether this call has paid for a run of its linear solvers

    # ------------------------------------------------------------------------------ entry point
    def run(self) -> bool:
        b = _Branch()
        b.types = {n: t for n, t in self.goal.hyps if not _is_prop(t)}
        b.thms = list(self.params)
        try:
            for _, p in self.goal.props():
                self._assert(b, _norm(p), True, 0)
            if self.goal.target != FALSE:
                self._assert(b, _norm(self.goal.target), False, 0)
        except _Conflict:
            return True
        return self._solve(b)

    def _solve(self, b: _Branch) -> bool:
        for rnd in range(GRIND_EMATCH_ROUNDS + 1):
            try:
                while True:
                    self._propagate(b)
                    known = len(b.values)
                    if self._theories(b):
                        return True
                    if len(b.values) == known:
                        break
            except _Conflict:
                return True
            if rnd == GRIND_EMATCH_ROUNDS:
                break
            try:
                if not self._ematch(b):
                    break
            except _Conflict:
                return True
        if b.splits >= GRIND_SPLITS:
            return False
        cand = self._pick_split(b)
        if cand is None:
            return False
        for i, branch in enumerate(cand):
            child = b.copy()
            if i > 0:
                child.splits += 1  # the first case is free (Lean's split counter heuristic)
            self.ctx.tick(20)
            try:
                for p in branch:
                    self._assert(child, _norm(p), True, 0)
            except _Conflict:
                continue
            if not self._solve(child):
                return False
        return True

    # -------------------------------------------------------------------------------- asserting
    def _assert(self, b: _Branch, p: Term, v: bool, gen: int) -> None:
        """Assert that ``p`` has truth value ``v``.

        Raises:
            _Conflict: when that contradicts what the branch knows.
        """
        self.ctx.tick(2)
        if p in (TRUE, FALSE):
            if (p == TRUE) != v:
                raise _Conflict
            return
        h = p[0]
        if h == "¬":
            return self._assert(b, p[1], not v, gen)
        if h == "∧":
            if v:
                self._assert(b, p[1], True, gen)
                self._assert(b, p[2], True, gen)
            else:
                self._add_compound(b, ("∨", _neg(p[1]), _neg(p[2])), gen)
            return
        if h == "∨":
            if v:
                self._add_compound(b, p, gen)
            else:
                self._assert(b, p[1], False, gen)
                self._assert(b, p[2], False, gen)
            return
        if h == "→":
            if v:
                self._add_compound(b, p, gen)
            else:
                self._assert(b, p[1], True, gen)
                self._assert(b, p[2], False, gen)
            return
        if h == "↔":
            self._add_compound(b, p if v else ("↔", p[1], _neg(p[2])), gen)
            return
        if h == "∀":
            if v:
                self._index_terms(b, p, gen)
                thm = _local_theorem(p, canon(p), gen)
                if thm is not None:
                    b.thms.append(thm)
            else:
                self._witness(b, p, True, gen)
            return
        if h == "∃":
            if v:
                self._witness(b, p, False, gen)
            else:
                self._assert(b, ("∀", p[1], p[2], ("¬", p[3])), True, gen)
            return
        key = canon(p)
        old = b.values.get(key)
        if old is not None:
            if old != v:
                raise _Conflict
            return
        b.values[key] = v
        b.atoms[key] = p
        self._index_terms(b, p, gen)
        if v and h == "=" and p[1] != "Prop":
            self._merge(b, p[2], p[3])

    def _add_compound(self, b: _Branch, p: Term, gen: int) -> None:
        if any(c == p for c, _ in b.compounds):
            return
        b.compounds.append((p, gen))
        self._index_terms(b, p, gen)

    def _witness(self, b: _Branch, p: Term, negate: bool, gen: int) -> None:
        """``∃ x, q x`` (or ``¬∀ x, q x`` with ``negate``): a fresh local for the witness."""
        x, ty, body = p[1], p[2], p[3]
        fid = new_fvar(x)
        b.types[fid] = ty
        q = subst(body, x, ("fvar", fid))
        self._assert(b, _norm(q), not negate, gen)

    # ------------------------------------------------------------------------------ propagation
    def _eval(self, b: _Branch, p: Term) -> bool | None:
        if p == TRUE:
            return True
        if p == FALSE:
            return False
        h = p[0]
        if h == "¬":
            r = self._eval(b, p[1])
            return None if r is None else not r
        if h in ("∧", "∨", "→", "↔"):
            x, y = self._eval(b, p[1]), self._eval(b, p[2])
            if h == "∧":
                return False if x is False or y is False else True if x and y else None
            if h == "∨":
                return True if x or y else False if x is False and y is False else None
            if h == "→":
                return True if x is False or y else False if x and y is False else None
            return None if x is None or y is None else x == y
        if h in ("∀", "∃"):
            return None
        return b.values.get(canon(p))

    def _propagate(self, b: _Branch) -> None:
        """Unit propagation over the ``∨ → ↔`` facts and congruence closure, to a fixpoint.

        Raises:
            _Conflict: when a fact is false under what the branch knows.
        """
        changed = True
        while changed:
            before = (len(b.values), len(b.compounds))
            for c, gen in list(b.compounds):
                self.ctx.tick(1)
                r = self._eval(b, c)
                if r is True:
                    continue
                if r is False:
                    raise _Conflict
                h = c[0]
                x, y = self._eval(b, c[1]), self._eval(b, c[2])
                if h == "∨":
                    if x is False:
                        self._assert(b, c[2], True, gen)
                    elif y is False:
                        self._assert(b, c[1], True, gen)
                elif h == "→":
                    if x is True:
                        self._assert(b, c[2], True, gen)
                    elif y is False:
                        self._assert(b, c[1], False, gen)
                elif h == "↔":
                    if x is not None:
                        self._assert(b, c[2], x, gen)
                    elif y is not None:
                        self._assert(b, c[1], y, gen)
            changed = (len(b.values), len(b.compounds)) != before
            changed = self._congruence(b) or changed

    # ---------------------------------------------------------------------- congruence closure
    def _find(self, b: _Branch, t: Term) -> Term:
        uf = b.parent_uf
        root = t
        while root in uf:
            root = uf[root]
        while t in uf and uf[t] != root:
            uf[t], t = root, uf[t]
        return root

    def _merge(self, b: _Branch, x: Term, y: Term) -> None:
        rx, ry = self._find(b, canon(x)), self._find(b, canon(y))
        if rx == ry:
            return
        if _literal(rx) and _literal(ry):
            raise _Conflict  # two distinct literals (numerals, `true`/`false`) equal
        if _literal(rx):
            rx, ry = ry, rx
        b.parent_uf[rx] = ry

    def _congruence(self, b: _Branch) -> bool:
        """Merge applications whose arguments are equal; refute a false equation between equal terms."""
        changed = False
        if b.parent_uf:
            seen: dict[Any, Term] = {}
            for t in list(b.terms):
                if t[0] != "app":
                    continue
                sig = (self._find(b, canon(t[1])), tuple(self._find(b, canon(a)) for a in t[2]))
                other = seen.get(sig)
                if other is None:
                    seen[sig] = t
                elif self._find(b, canon(t)) != self._find(b, canon(other)):
                    self._merge(b, t, other)
                    changed = True
            changed = self._constructors(b) or changed
        values: dict[Term, bool] = {}
        for key, v in list(b.values.items()):
            p = b.atoms[key]
            if p[0] == "=" and p[1] != "Prop" and self._find(b, canon(p[2])) == self._find(b, canon(p[3])):
                if not v:
                    raise _Conflict
            # propositions in one class have one truth value (`P a` and `P b` once `a = b`)
            root = self._find(b, key)
            if values.setdefault(root, v) != v:
                raise _Conflict
        return changed

    def _constructors(self, b: _Branch) -> bool:
        """Constructor theory (Lean's grind, ``Grind/Ctor.lean``): two distinct constructors in one class
        are a conflict (``[] = a :: l``), and one constructor's arguments are equal where two of its
        applications are (``a :: l = b :: m`` gives ``a = b`` and ``l = m``). The constructors the simulator
        has are the lists': ``List.nil`` and ``List.cons``."""
        changed = False
        seen: dict[Term, Term] = {}
        for t in list(b.terms):
            if not _is_ctor(t):
                continue
            root = self._find(b, canon(t))
            other = seen.setdefault(root, t)
            if other is t:
                continue
            if (t == LIST_NIL) != (other == LIST_NIL):
                raise _Conflict
            for x, y in zip(t[2] if t != LIST_NIL else (), other[2] if other != LIST_NIL else ()):
                if self._find(b, canon(x)) != self._find(b, canon(y)):
                    # an equality of numbers is a fact the theories read too (the E-graph shares it)
                    ty = _type_of(x, b.types) or _type_of(y, b.types)
                    if ty in _RINGS:
                        self._assert(b, ("=", ty, x, y), True, 0)
                    self._merge(b, x, y)
                    changed = True
        return changed

    # ------------------------------------------------------------------------------- E-matching
    def _index_terms(self, b: _Branch, p: Term, gen: int) -> None:
        for s in _subterms(p):
            if s[0] in ("∀", "∃", "fun") or s[0] in ("var", "mvar", "type", "sorry"):
                continue
            old = b.terms.get(s)
            if old is None:
                b.terms[s] = gen
                if s[0] not in ATOM_HEADS:
                    b.index.setdefault(_head_key(s), []).append(s)
            elif gen < old:
                b.terms[s] = gen

    def _ematch(self, b: _Branch) -> bool:
        """One round of E-matching over every theorem; whether it produced a new instance."""
        new: list[tuple[Term, int]] = []
        for thm in list(b.thms):
            data = sorted(thm.data)
            for pats in thm.patterns:
                for asg, gen in self._matches(b, pats, 0, {}, 0):
                    if gen >= GRIND_MAX_GEN:
                        continue
                    # an instance is the theorem at its variables' values: a match seen before is skipped
                    # before it is built (Lean's E-matching only visits new terms)
                    binding = (
                        thm.key,
                        tuple(canon(v) if isinstance(v, tuple) else v for v in map(asg.get, data)),
                    )
                    if binding in b.instances:
                        continue
                    b.instances.add(binding)
                    self.ctx.tick(5)
                    fact = self._instance(b, thm, asg)
                    if fact is None:
                        continue
                    key = (thm.key, canon(fact))
                    if key in b.instances:
                        continue
                    if b.num_instances >= GRIND_MAX_INSTANCES:
                        return bool(new) and self._add_instances(b, new)
                    b.instances.add(key)
                    b.num_instances += 1
                    new.append((fact, max(gen, thm.gen) + 1))
        return bool(new) and self._add_instances(b, new)

    def _add_instances(self, b: _Branch, new: list[tuple[Term, int]]) -> bool:
        for fact, gen in new:
            self._assert(b, _norm(fact), True, gen)
        return True

    def _matches(
        self, b: _Branch, pats: tuple[Term, ...], i: int, asg: dict[str, Any], gen: int
    ) -> Iterator[tuple[dict[str, Any], int]]:
        if i == len(pats):
            yield asg, gen
            return
        pat = pats[i]
        for t in list(b.index.get(_head_key(pat), ())):
            self.ctx.tick(1)
            tg = b.terms.get(t, 0)
            if tg >= GRIND_MAX_GEN:
                continue
            a2 = dict(asg)
            if match(pat, t, a2, offsets=True):
                yield from self._matches(b, pats, i + 1, a2, max(gen, tg))

    def _instance(self, b: _Branch, thm: _Thm, asg: dict[str, Any]) -> Term | None:
        """The instance of ``thm`` at ``asg``: its premises imply its conclusion (``None`` when a variable is
        not determined or a type does not fit)."""
        asg = dict(asg)
        for m, binder in thm.binders:
            if binder.is_prop:
                continue
            val = asg.get(m)
            if val is None or isinstance(val, str):
                return None
            ty = binder.type
            got = _type_of(val, b.types)
            if ty[0] == "type" and ty[1].startswith("?"):
                if ty[1] not in asg:
                    if got is None:
                        return None
                    asg[ty[1]] = got
                elif got is not None and asg[ty[1]] != got:
                    return None
            elif ty[0] == "type" and got is not None and ty[1] != got:
                return None
        for mv, allowed in thm.allowed.items():
            v = asg.get(mv)
            if not isinstance(v, str) or (allowed and v not in allowed):
                return None
        out = instantiate(thm.conclusion, asg)
        for _, binder in reversed(thm.binders):
            if binder.is_prop:
                out = ("→", instantiate(binder.type, asg), out)
        if _has_mvars(out) or _has_type_mvars(out):
            return None
        return out

    # -------------------------------------------------------------------------------- theories
    def _literals(self, b: _Branch) -> list[Term]:
        out: list[Term] = []
        for key, v in b.values.items():
            p = b.atoms[key]
            if p[0] in _RELS and p[1] in _RINGS:
                out.append(p if v else ("¬", p))
        return out

    def _theories(self, b: _Branch) -> bool:
        """Whether a theory refutes the branch's literals; the equalities the ring module implies between
        the arguments of applications are asserted (congruence then relates the applications).

        Raises:
            _Conflict: when an implied equality contradicts the branch.
        """
        lits = self._literals(b)
        if not lits:
            return False
        cands = self._ring_candidates(b)
        key = (frozenset(canon(q) for q in lits), frozenset(cands))
        got = self.theory_memo.get(key)
        if got is None or got[2] > b.ring_steps:
            # a verdict found with more of `ringSteps` than this branch has left is found again with less
            conflict, implied, used = self._ring(lits, cands, b.ring_steps)
            got = (conflict or self._linear(b, lits), tuple(implied), used)
            self.theory_memo[key] = got
        if key not in b.charged:  # the same literals again cost nothing (Lean's ring state keeps its basis)
            b.charged.add(key)
            b.ring_steps -= got[2]
        if got[0]:
            return True
        for eq in got[1]:
            self._assert(b, eq, True, 0)
        return False

    def _ring_candidates(self, b: _Branch) -> tuple[tuple[str, Term], ...]:
        """The arguments of applications (``f t``) of a number type, with their types: the terms whose
        equalities the ring module propagates for congruence."""
        out: dict[Term, str] = {}
        for t in b.terms:
            if t[0] != "app":
                continue
            for a in t[2]:
                ty = _type_of(a, b.types)
                if ty in _RINGS and a not in out:
                    out[a] = ty
        return tuple(sorted(((ty, a) for a, ty in out.items()), key=repr))

    def _linear(self, b: _Branch, lits: list[Term]) -> bool:
        ordered = [q for q in lits if (q[1][1] if q[0] == "¬" else q[1]) in _NUM]  # no order on ℂ
        hyps = tuple((n, t) for n, t in b.types.items()) + tuple((new_fvar("h"), q) for q in ordered)
        return self._linear_split(Goal(hyps, FALSE), 0)

    def _linear_split(self, g: Goal, depth: int) -> bool:
        """``cutsat`` and the ``linarith`` module on the literals, splitting ``a ≠ b`` into ``a < b`` and
        ``b < a`` at most :data:`NE_SPLITS` deep.

        Only the first run of a ``grind`` call is charged. Lean's linear solvers are incremental: the
        linarith module decides disequalities inside one model search over the facts it already holds
        (``Grind/Arith/Linear``), cutsat likewise, and a case split adds its facts to the same state; the
        simulator's re-run of a whole solver per split leaf and per branch is its own way to the same
        verdict, not work Lean does (SATP's record bounds grind's charge: aime_1990_p4's path runs 16 failing
        ``grind`` calls within 200000; see ``aesop_cost.tactic_cost``)."""
        if depth == 0 and not self.linear_charged:
            self.linear_charged = True
            return self._linear_leaf(g) or self._linear_cases(g, depth)
        with self.ctx.uncharged():
            return self._linear_leaf(g) or self._linear_cases(g, depth)

    def _linear_leaf(self, g: Goal) -> bool:
        for solver in (_cutsat_tac, linarith_core):
            snap = self.ctx.snapshot()
            try:
                solver(g, self.bare, self.ctx)
                return True
            except TacticError:
                self.ctx.restore(snap)
        return False

    def _linear_cases(self, g: Goal, depth: int) -> bool:
        if depth >= NE_SPLITS:
            return False
        for name, p in g.props():
            if p[0] == "¬" and p[1][0] == "=" and p[1][1] in _NUM:
                ty, x, y = p[1][1], p[1][2], p[1][3]
                lo, hi = g.replace_hyp(name, ("<", ty, x, y)), g.replace_hyp(name, ("<", ty, y, x))
                return self._linear_split(lo, depth + 1) and self._linear_split(hi, depth + 1)
        return False

    def _ring(
        self, lits: list[Term], cands: tuple[tuple[str, Term], ...], budget: int
    ) -> tuple[bool, list[Term], int]:
        """The commutative-ring module: per type, a Gröbner basis of the equations (a field disequality by
        Rabinowitsch's trick, ``diseqToEq``); a constant in the ideal, or a disequality whose sides are equal
        in it, is a contradiction. Also the equalities it implies between ``cands`` (two candidates with one
        normal form: ``f (y * x) = f 1`` from ``x ^ 2 * y = 1``, grind_ring_2.lean). ``budget`` is what is
        left of the branch's ``ringSteps``; the steps used are returned. Every verdict and every implied
        equality rests on a certificate, computed by a tracked re-run once the untracked one finds it."""
        by_type: dict[str, tuple[list[Term], list[Term]]] = {}
        for q in lits:
            if q[0] == "=" and q[1] in _RINGS:
                by_type.setdefault(q[1], ([], []))[0].append(q)
            elif q[0] == "¬" and q[1][0] == "=" and q[1][1] in _RINGS:
                by_type.setdefault(q[1][1], ([], []))[1].append(q[1])
        for ty, _ in cands:
            by_type.setdefault(ty, ([], []))
        implied: list[Term] = []
        used = 0
        for ty, (eqs, nes) in by_type.items():
            conv = Conv(ty, "ring", self.ctx)
            try:
                gens = [conv.poly(e[2]) - conv.poly(e[3]) for e in eqs]
                diffs = [(conv.poly(n[2]) - conv.poly(n[3]), n) for n in nes]
                terms = [(t, conv.poly(t)) for tt, t in cands if tt == ty]
            except ArithBudgetExceeded:
                continue
            if any(d.is_zero() for d, _ in diffs):
                return True, [], used
            if ty in _FIELDS:
                for d, n in diffs:
                    if not d.is_const():
                        z = Poly.var(("inv", ("-", ty, n[2], n[3])))
                        gens.append(d * z - 1)
            gens = [g for g in gens if not g.is_zero()]
            extra: set[Any] = set()
            for _, p in terms:
                extra |= p.atoms()
            left = budget - used
            if left <= 0:
                break
            gb = GroebnerBasis(gens, steps=left, meter=self.ctx.tick, atoms=extra, track=False)
            used += gb.steps_used
            certified = _Certifier(gens, left, self.ctx, extra)

            if gb.inconsistent:
                if certified.check(None):
                    return True, [], used
                continue
            if ty not in _FIELDS:
                for d, _ in diffs:
                    nf = gb.normal_form(d)
                    if nf is not None and nf.is_zero() and certified.check(d):
                        return True, [], used
            seen: dict[Poly, tuple[Term, Poly]] = {}
            for t, p in terms:
                nf = gb.normal_form(p)
                if nf is None:
                    continue
                other = seen.get(nf)
                if other is None:
                    seen[nf] = (t, p)
                elif certified.check(p - other[1]):
                    implied.append(("=", ty, other[0], t))
        return False, implied, used

    # ----------------------------------------------------------------------------------- splits
    def _pick_split(self, b: _Branch) -> list[list[Term]] | None:
        """The next case split, as Lean's ``selectNextSplit?`` prefers them: the lowest generation first."""
        best: tuple[int, int, list[list[Term]]] | None = None
        for i, (c, gen) in enumerate(b.compounds):
            if self._eval(b, c) is not None:
                continue
            h = c[0]
            x, y = self._eval(b, c[1]), self._eval(b, c[2])
            cases: list[list[Term]] | None = None
            if h == "∨" and x is None and y is None:
                cases = [[c[1]], [c[2]]]
            elif h == "↔" and x is None and y is None:
                cases = [[c[1], c[2]], [_neg(c[1]), _neg(c[2])]]
            elif h == "→" and x is None and y is None and _arith(c[1]):
                cases = [[_neg(c[1])], [c[1]]]
            if cases is not None and (best is None or (gen, i) < best[:2]):
                best = (gen, i, cases)
        if best is not None:
            return best[2]
        return self._inverse_split(b)

    def _inverse_split(self, b: _Branch) -> list[list[Term]] | None:
        """``if d = 0 then d⁻¹ = 0 else d * d⁻¹ = 1`` for an inverse ``d⁻¹`` of the facts (``processInv``)."""
        for q in self._literals(b):
            rel = q[1] if q[0] == "¬" else q
            ty = rel[1]
            if ty not in _FIELDS:
                continue
            conv = Conv(ty, "ring", self.ctx)
            try:
                atoms = (conv.poly(rel[2]) - conv.poly(rel[3])).atoms()
            except ArithBudgetExceeded:
                continue
            for a in sorted(atoms, key=repr):
                if isinstance(a, tuple) and len(a) == 2 and a[0] == "inv" and a[1] not in b.split_inv:
                    d = a[1]
                    b.split_inv.add(d)
                    inv = ("inv", ty, d)
                    zero, one = ("num", ty, 0), ("num", ty, 1)
                    return [
                        [("=", ty, d, zero), ("=", ty, inv, zero)],
                        [("=", ty, ("*", ty, d, inv), one)],
                    ]
        return None


# ------------------------------------------------------------------------------------------- helpers


class _Certifier:
    """Certificates for what an untracked completion found: the same completion re-run once with its
    cofactors tracked (it takes the same steps), each certificate re-expanded before it is believed."""

    def __init__(self, gens: list[Poly], steps: int, ctx: TacticContext, atoms: set[Any]) -> None:
        self.gens, self.steps, self.ctx, self.atoms = gens, steps, ctx, atoms
        self._gb: GroebnerBasis | None = None

    def check(self, target: Poly | None) -> bool:
        """Whether ``target`` (``None``: a non-zero constant) is certified to lie in the ideal."""
        if self._gb is None:
            self._gb = GroebnerBasis(self.gens, steps=self.steps, meter=self.ctx.tick, atoms=self.atoms)
        if target is None:
            return self._gb.unit is not None and self._gb.unit.check()
        cert = self._gb.member(target)
        return cert is not None and cert.check()


def _large_power(t: Term) -> bool:
    """Whether ``t`` has a power whose numeral exponent passes :data:`REDUCE_POW_THRESHOLD`."""
    for s in _subterms(t):
        if s[0] == "^" and s[3][0] == "num" and isinstance(s[3][2], int) and s[3][2] > REDUCE_POW_THRESHOLD:
            return True
    return False


def _is_ctor(t: Term) -> bool:
    return t == LIST_NIL or (t[0] == "app" and t[1] == ("const", "List.cons") and len(t[2]) == 2)


def _is_prop(t: Term) -> bool:
    return t[0] not in ("type", "arrow")


def _neg(p: Term) -> Term:
    return _norm_root(("¬", p))


def _arith(p: Term) -> bool:
    """An arithmetic proposition (``isArithProp``): a comparison or divisibility over a number type."""
    q = p[1] if p[0] == "¬" else p
    return q[0] in _RELS and q[1] in _NUM


def _literal(t: Term) -> bool:
    return t[0] in ("num", "bool") or (t[0] == "neg" and t[2][0] == "num")


def _has_type_mvars(t: Term) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        for c in u[1:] if u[0] != "app" else (u[1], *u[2]):
            if type(c) is tuple:
                stack.append(c)
            elif type(c) is str and c.startswith("?"):
                return True
    return False
