"""Proof terms: checking ``h``, ``⟨h₁, h₂⟩``, ``fun x => …``, ``foo a b h``, ``h.1``, ``by …``, ``sorry``.

A proof term is checked against an expected proposition (:meth:`ProofChecker.check`) or its proposition is
inferred (:meth:`ProofChecker.infer`). Lemma application instantiates the lemma's binders with
metavariables, fills them from the explicit arguments and by matching against the expected proposition
(first-order, :mod:`lean_gym.sim.unify`). Nothing is accepted unless every premise is discharged by an
argument, a hypothesis of the right shape, or a new goal (``apply``/``refine``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lean_gym.sim.elab import Decl, ElabError
from lean_gym.sim.goals import Goal
from lean_gym.sim.native import mypyc_attr
from lean_gym.sim.syntax import Syn
from lean_gym.sim.terms import FALSE, TRUE, Term, beta, is_prop_type, pretty, subst, type_term, user_name
from lean_gym.sim.unify import defeq, fresh_mvar, instantiate, match, resolve_type_name

if TYPE_CHECKING:
    from lean_gym.sim.tactics import TacticContext

__all__ = ["Binder", "Instance", "ProofChecker", "Telescope", "decl_telescope", "prop_telescope"]


# a plain Python class even were it compiled (make compile-sim leaves it interpreted): mypyc's own classes
# cannot be weakly referenced (`_ISSUED`)
@mypyc_attr(native_class=False)
class Checked:
    """The proof checker's record that it checked ``syn`` against ``expected`` in the context ``hyps``,
    leaving new goals or not (``open_goals``). Only :meth:`ProofChecker.check` makes them (see
    :func:`issued`); the kernel closes a goal with ``ProofTerm`` from one."""

    __slots__ = ("__weakref__", "expected", "hyps", "open_goals", "syn")

    def __init__(
        self, syn: Syn, expected: Term, hyps: tuple[tuple[str, Term], ...], open_goals: bool
    ) -> None:
        self.syn = syn
        self.expected = expected
        self.hyps = hyps
        self.open_goals = open_goals


_ISSUED: weakref.WeakSet[Checked] = weakref.WeakSet()


def issued(rec: object) -> bool:
    """Whether ``rec`` is a record :meth:`ProofChecker.check` made (not one built elsewhere)."""
    return isinstance(rec, Checked) and rec in _ISSUED


@dataclass(frozen=True)
class Binder:
    """One premise or argument of a lemma: ``explicit`` as written with ``()`` (``False`` for ``{}``)."""

    name: str
    type: Term
    explicit: bool

    @property
    def is_prop(self) -> bool:
        return is_prop_type(self.type)


def _pi(b: Binder, body: Term) -> Term:
    """``∀ b, body`` (``b.type → body`` for a premise); a local ``b`` is abstracted into a bound variable."""
    if b.is_prop:
        return ("→", b.type, body)
    x = user_name(b.name)
    return ("∀", x, b.type, body if x == b.name else subst(body, b.name, ("var", x)))


@dataclass(frozen=True)
class Telescope:
    """``∀ binders, conclusion`` with type variables (``tyvars``: name → allowed types)."""

    binders: tuple[Binder, ...]
    conclusion: Term
    tyvars: tuple[tuple[str, frozenset[str]], ...] = ()


def prop_telescope(p: Term, explicit: bool = True, peel_not: bool = True) -> Telescope:
    """Peel the ``∀``/``→`` prefix of ``p`` into binders (and ``¬q``, as ``q → False``, when ``peel_not``)."""
    binders: list[Binder] = []
    anon = 0
    while True:
        h = p[0]
        if h == "∀":
            binders.append(Binder(p[1], p[2], explicit))
            p = p[3]
        elif h == "→":
            binders.append(Binder(f"_premise{anon}", p[1], True))
            anon += 1
            p = p[2]
        elif h == "¬" and peel_not:
            binders.append(Binder(f"_premise{anon}", p[1], True))
            anon += 1
            p = FALSE
        else:
            return Telescope(tuple(binders), p)


def decl_telescope(d: Decl, peel_not: bool = True) -> Telescope:
    """The telescope of a theorem or axiom: its binders, then the ``∀``/``→`` prefix of its statement."""
    inner = prop_telescope(d.type, peel_not=peel_not)
    binders = tuple(Binder(n, t, e) for n, t, e in d.binders) + inner.binders
    return Telescope(binders, inner.conclusion, getattr(d, "tyvars", ()))


def _retype(t: Term, mapping: dict[str, str]) -> Term:
    if not mapping:
        return t
    out: list[Any] = []
    for c in t:
        if type(c) is tuple:
            out.append(_retype(c, mapping))
        elif type(c) is str and c in mapping:
            out.append(mapping[c])
        else:
            out.append(c)
    return tuple(out)


class Instance:
    """A telescope being instantiated: metavariables for binders, assignments, new goals."""

    def __init__(self, tel: Telescope) -> None:
        self.asg: dict[str, Term | str] = {}
        self.tymap: dict[str, str] = {}
        self.allowed: dict[str, frozenset[str]] = {}
        for name, allowed in tel.tyvars:
            fresh = fresh_mvar("α")[1]
            self.tymap[name] = fresh
            self.allowed[fresh] = allowed
        self.pending: list[Binder] = [
            Binder(b.name, _retype(b.type, self.tymap), b.explicit) for b in tel.binders
        ]
        self.conclusion = _retype(tel.conclusion, self.tymap)
        self.mvars: list[tuple[str, Binder]] = []
        # arguments elaborated with their `_` left open (see `ProofChecker.infer_open`): what each proves
        # and the argument's expected type, re-checked once the goal has fixed the open metavariables
        self.opened: list[tuple[Term, Term]] = []
        self.open_mvars: dict[str, str] = {}  # open metavariable -> the argument's name (for the error)

    def next_binder(self) -> Binder:
        return self.pending[0]

    def assign_next(self, value: Term) -> None:
        b = self.pending.pop(0)
        self.pending = [Binder(x.name, subst(x.type, b.name, value), x.explicit) for x in self.pending]
        self.conclusion = subst(self.conclusion, b.name, value)

    def mvar_next(self) -> Term:
        b = self.pending[0]
        m = fresh_mvar(user_name(b.name).lstrip("_") or "m")
        self.mvars.append((m[1], b))
        self.assign_next(m)
        return m

    def check_types(self, asg: dict[str, Term | str] | None = None) -> str | None:
        """A type a type variable was instantiated at that the lemma does not hold for, or ``None``."""
        a = self.asg if asg is None else asg
        for mv, allowed in self.allowed.items():
            v = resolve_type_name(mv, a)
            if not v.startswith("?") and allowed and v not in allowed:
                return v
        return None


#: Term-level macros that the tactic families define (``mod_cast e``): name → ``check(checker, arg, expected)``.
#: The families register here, as they register their tactics in the core's table.
TERM_MACROS: dict[str, Callable[[ProofChecker, Syn, Term], None]] = {}


class ProofChecker:
    """Checks proof terms in a goal's context.

    Args:
        goal: The goal whose hypotheses are in scope.
        ctx: The tactic context (environment, sorries, axioms, nested ``by`` blocks).
        allow_new_goals: Whether ``?_`` and unassigned premises may become new goals (``refine``/``apply``).
    """

    def __init__(self, goal: Goal, ctx: TacticContext, allow_new_goals: bool = False) -> None:
        self.goal = goal
        self.ctx = ctx
        self.el = ctx.elaborator(goal)
        self.allow_new_goals = allow_new_goals
        self.new_goals: list[Goal] = []
        self._depth = 0

    # --------------------------------------------------------------------------------- checking

    def check(self, syn: Syn, expected: Term) -> None:
        """Check that ``syn`` proves ``expected``.

        The check is recorded in the running tactic's frame, where the kernel finds it when the tactic
        closes its goal with ``ProofTerm(syn)`` (:mod:`lean_gym.sim.kernel`).

        Raises:
            ElabError: with Lean's message when it does not.
        """
        if self._depth:
            return self._check(syn, expected)
        self._depth = 1
        try:
            self._check(syn, expected)
        finally:
            self._depth = 0
        frames = self.ctx.seal_frames
        if frames:  # the outermost check only: what a tactic closes its goal with
            rec = Checked(syn, expected, self.goal.hyps, bool(self.new_goals))
            _ISSUED.add(rec)
            frames[-1].checked.append(rec)
        return None

    def _check(self, syn: Syn, expected: Term) -> None:
        self.ctx.tick(5)
        k = syn.kind
        if k == "paren":
            return self.check(syn.args[0], expected)
        if k == "ident" and syn.args[0] == "sorry":
            self._sorry(syn, expected)
            return None
        if k == "mvar" and syn.args[0] == "_" and not self.allow_new_goals:
            raise ElabError("don't know how to synthesize placeholder", syn.start, syn.end)
        if k == "mvar":
            if not self.allow_new_goals:
                raise ElabError(
                    f"don't know how to synthesize placeholder for argument '?{syn.args[0]}'",
                    syn.start,
                    syn.end,
                )
            self.new_goals.append(self.goal.with_target(expected).with_tag(None))
            return None
        if k == "ident" and syn.args[0] == "_":
            raise ElabError(
                f"don't know how to synthesize placeholder\ncontext:\n{self.goal.with_target(expected).pretty()}",
                syn.start,
                syn.end,
            )
        if k == "by":
            self._by(syn, expected)
            return None
        if k == "anon":
            self._anon(syn, list(syn.args), expected)
            return None
        if k == "binder" and syn.args[0] == "fun":
            self._fun(syn, expected)
            return None
        if k == "ident" and syn.args[0] in ("rfl", "Eq.refl", "le_refl", "le_rfl"):
            if syn.args[0] in ("rfl", "Eq.refl") and expected[0] == "=" and self._rfl_ok(expected):
                return None
            if syn.args[0] == "le_rfl" and expected[0] in ("≤", "≥") and defeq(expected[2], expected[3]):
                return None
        if k == "ident" and syn.args[0] in ("trivial", "True.intro") and expected == TRUE:
            return None
        if k == "app" and syn.args[0].kind == "ident":
            head = syn.args[0].args[0]
            args = syn.args[1]
            macro = TERM_MACROS.get(head)
            if macro is not None and len(args) == 1 and self.goal.find(head) is None:
                macro(self, args[0], expected)
                return None
            if head in ("Or.inl", "Or.inr") and len(args) == 1 and expected[0] == "∨":
                self.check(args[0], expected[1] if head == "Or.inl" else expected[2])
                return None
            if head == "And.intro" and len(args) == 2 and expected[0] == "∧":
                self.check(args[0], expected[1])
                self.check(args[1], expected[2])
                return None
            if head in ("absurd",) and len(args) == 2:
                p = self.infer(args[0])
                self.check(args[1], ("¬", p))
                return None
            if head in ("False.elim", "False.rec", "nomatch") and len(args) == 1:
                self.check(args[0], FALSE)
                return None
            if head == "Iff.intro" and len(args) == 2 and expected[0] == "↔":
                self.check(args[0], ("→", expected[1], expected[2]))
                self.check(args[1], ("→", expected[2], expected[1]))
                return None
            if head in ("Exists.intro",) and len(args) == 2 and expected[0] == "∃":
                self._anon(syn, list(args), expected)
                return None
        core = self._core_constant_mismatch(syn, expected)
        if core is not None:
            raise core
        got = self.infer(syn, expected)
        if not defeq(got, expected):
            raise ElabError(self._mismatch(syn, got, expected), syn.start, syn.end)
        return None

    def _core_constant_mismatch(self, syn: Syn, expected: Term) -> ElabError | None:
        """Lean's type mismatch for a core constant (``rfl``, ``trivial``, ``And.intro``…) that does not fit.

        The simulator models these constants only where they fit the goal (the cases above); elsewhere
        Lean knows them and reports a type mismatch, never an unknown identifier. The text is Lean's
        (Lean core's ``tests/lean/run/addPPExplicitToExposeDiff.lean`` at b7e66cfbdb4cdebdb0a1c328a0ddb038986c6833
        records ``exact rfl`` on ``1 = 2``), with ``?_`` for what Lean's unification leaves open, as Lean
        prints it under ``pp.mvars false`` (the numbers of ``?m.N`` depend on Lean's elaboration order).
        """
        args: tuple[Syn, ...]
        if syn.kind == "ident":
            name, args = syn.args[0], ()
        elif syn.kind == "app" and syn.args[0].kind == "ident":
            name, args = syn.args[0].args[0], tuple(syn.args[1])
        else:
            return None
        if (
            name not in _CORE_CONSTANTS
            or self.goal.hyp(name) is not None
            or self.ctx.lookup(name) is not None
        ):
            return None
        at = self.goal.ascii
        nat = "Nat" if at else "ℕ"

        def arg(i: int) -> str:
            if i >= len(args):
                return "?_"
            try:
                return pretty(self.infer(args[i]), at)
            except ElabError:
                return "?_"

        sort = "Prop"
        if name == "rfl":
            has = "?_ = ?_"
        elif name == "Eq.refl":
            has = f"{_syn_text(args[0])} = {_syn_text(args[0])}" if args else "?_ = ?_"
        elif name in ("trivial", "True.intro"):
            has = "True"
        elif name == "And.intro":
            has = f"{arg(0)} ∧ {arg(1)}"
        elif name == "Or.inl":
            has = f"{arg(0)} ∨ ?_"
        elif name == "Or.inr":
            has = f"?_ ∨ {arg(0)}"
        elif name == "Nat.succ":
            has, sort = (f"{nat} → {nat}", "Type") if not args else (nat, "Type")
        else:  # Nat.zero
            has, sort = nat, "Type"
        return ElabError(
            f"Type mismatch\n  {_syn_text(syn)}\nhas type\n  {has} : {sort}\n"
            f"but is expected to have type\n  {pretty(expected, at)} : Prop",
            syn.start,
            syn.end,
        )

    def _rfl_ok(self, eq: Term) -> bool:
        from lean_gym.sim.evaluate import rfl_closes

        return rfl_closes(eq, self.ctx, kernel=True)  # the `rfl` term: `isDefEq` at default transparency

    def _mismatch(self, syn: Syn, got: Term, expected: Term) -> str:
        at = self.goal.ascii
        return (
            f"Type mismatch\n  {_syn_text(syn)}\nhas type\n  {pretty(got, at)} : Prop\n"
            f"but is expected to have type\n  {pretty(expected, at)} : Prop"
        )

    def _sorry(self, syn: Syn, expected: Term) -> None:
        from lean_gym.sim.tactics import SorryRecord

        self.ctx.sorries.append(
            SorryRecord(self.goal.with_target(expected).with_tag(None), syn.start, syn.end)
        )
        self.ctx.axioms.add("sorryAx")

    def _by(self, syn: Syn, expected: Term) -> None:
        from lean_gym.sim.tactics import TacticError, _log_and_admit, run_block, unsolved_goals_message

        start, end, by_tok = syn.args
        src = self.ctx.src
        if src is None:
            raise ElabError("nested `by` block without source", syn.start, syn.end)
        g = self.goal.with_target(expected).with_tag(None)
        try:
            rest = run_block(src, start, end, [g], self.ctx, outer_col=-1)
        except TacticError as e:
            if not self.ctx.recover:
                raise ElabError(
                    e.message,
                    e.start if e.start is not None else syn.start,
                    e.end if e.end is not None else syn.end,
                ) from e
            # a nested block's failure is logged and its goal admitted; the outer proof goes on
            _log_and_admit(self.ctx, e, syn)
            return
        if rest:
            from lean_gym.sim.tactics import LogMessage

            if not self.ctx.recover:
                raise ElabError(
                    unsolved_goals_message(rest), by_tok.start, end if end > start else by_tok.end
                )

            self.ctx.messages.append(
                LogMessage(
                    "error", unsolved_goals_message(rest), by_tok.start, end if end > start else by_tok.end
                )
            )
            self.ctx.synthetic_sorry = True
            self.ctx.axioms.add("sorryAx")

    def _anon(self, syn: Syn, items: list[Syn], expected: Term) -> None:
        h = expected[0]
        if h in ("∧", "↔") and items:
            if len(items) == 1:
                return self.check(items[0], expected)
            if h == "∧":
                self.check(items[0], expected[1])
                rest = items[1:]
                if len(rest) == 1:
                    self.check(rest[0], expected[2])
                else:
                    self._anon(syn, rest, expected[2])
                return None
            if len(items) == 2:
                self.check(items[0], ("→", expected[1], expected[2]))
                self.check(items[1], ("→", expected[2], expected[1]))
                return None
        if h == "∃" and len(items) >= 2:
            x, ty, body = expected[1], expected[2], expected[3]
            w = items[0]
            if ty[0] == "type":
                wt, _ = self.el.elab_term(w, ty[1])
                if ty[1] in ("ℕ", "ℤ", "ℚ", "ℝ"):
                    wt = self.el.elab_arith(w, ty[1])
            else:
                raise ElabError("the simulator supports witnesses of number types only", w.start, w.end)
            inst = subst(body, x, wt)
            rest = items[1:]
            if len(rest) == 1:
                self.check(rest[0], inst)
            else:
                self._anon(syn, rest, inst)
            return None
        if h == "True" and not items:
            return None
        raise ElabError(
            f"invalid constructor ⟨...⟩, expected type must be an inductive type \n  {pretty(expected, self.goal.ascii)}",
            syn.start,
            syn.end,
        )

    def _fun(self, syn: Syn, expected: Term) -> None:
        _, groups, body = syn.args
        names = [tok.text for grp in groups for tok in grp[0]]
        goal = self.goal
        target = expected
        for name in names:
            goal = goal.with_target(target).make_room(name)  # an older `name` becomes `name✝`, target too
            target = goal.target
            if target[0] == "∀":
                goal, v = goal.add_local(name, target[2])
                target = subst(target[3], target[1], v)
            elif target[0] in ("→", "¬", "≠"):
                if target[0] == "→":
                    prem, concl = target[1], target[2]
                elif target[0] == "¬":
                    prem, concl = target[1], FALSE
                else:
                    prem, concl = ("=", target[1], target[2], target[3]), FALSE
                goal = goal.add_hyp(name, prem)
                target = concl
            else:
                raise ElabError(
                    f"type mismatch: a function was given but the expected type is\n  {pretty(expected, self.goal.ascii)}",
                    syn.start,
                    syn.end,
                )
        sub = ProofChecker(goal, self.ctx, self.allow_new_goals)
        sub.check(body, target)
        self.new_goals.extend(sub.new_goals)

    # -------------------------------------------------------------------------------- inference

    def infer(self, syn: Syn, expected: Term | None = None) -> Term:
        """The proposition ``syn`` proves.

        Raises:
            ElabError: for unknown names, wrong arguments, or terms outside the subset.
        """
        k = syn.kind
        if k == "paren":
            return self.infer(syn.args[0], expected)
        if k in ("ascr", "show"):  # `(e : T)`, `show T from e`, `show T by tac`: `e` proves `T`
            p = self.el.elab_prop(syn.args[1])
            self.check(syn.args[0], p)
            return p
        if k == "assump":
            p = self.el.elab_prop(syn.args[0])
            for _, t in self.goal.hyps:
                if defeq(t, p):
                    return p
            raise ElabError("failed to find hypothesis of the given type", syn.start, syn.end)
        if k == "ident":
            return self._infer_app(syn, syn, (), expected)
        if k == "proj":
            return self._infer_app(syn, syn, (), expected)
        if k == "app":
            head = syn.args[0]
            if head.kind in ("ident", "paren", "proj"):
                return self._infer_app(syn, head, syn.args[1], expected)
        if k == "explicit":
            return self.infer(syn.args[0], expected)
        if k == "ident" and syn.args[0] == "sorry" and expected is not None:
            self._sorry(syn, expected)
            return expected
        if expected is not None and k in ("anon", "by", "binder"):
            self.check(syn, expected)
            return expected
        raise ElabError(_unsupported_proof(syn), syn.start, syn.end)

    def _head_telescope(self, head: Syn) -> tuple[Telescope, str]:
        if head.kind == "paren":
            p = self.infer(head.args[0])
            return prop_telescope(p), "term"
        if head.kind == "proj":
            # `(e).1`: the field of what `e` proves, as for a name's field (`h.1`)
            base, field_ = head.args
            return self._field_telescope(self._partial_telescope(base), field_, _syn_text(base), head), "term"
        name = head.args[0]
        tel = self._resolve(name, head)
        if tel is None:
            if name == "sorry":
                raise ElabError("sorry needs an expected type", head.start, head.end)
            if name in _CORE_CONSTANTS or name in _CORE_UNMODELLED:
                raise ElabError(
                    f"the simulator does not model `{name}` (a Lean core constant) here (outside its Lean subset)",
                    head.start,
                    head.end,
                )
            raise ElabError(f"Unknown identifier `{name}`", head.start, head.end)
        return tel, name

    def _resolve(self, name: str, head: Syn) -> Telescope | None:
        """The telescope ``name`` proves: a hypothesis, a declaration, or a projection ``base.field``."""
        hyp = self.goal.hyp(name)
        if hyp is not None:
            if not is_prop_type(hyp):
                raise ElabError(f"`{name}` is not a proof", head.start, head.end)
            return prop_telescope(hyp)
        d = self.ctx.lookup(name)
        if self.ctx.decl_name is not None and (
            name == self.ctx.decl_name or name == self.ctx.decl_name.split(".")[-1]
        ):
            self.ctx.self_reference = True
            if d is None and self.ctx.decl_type is not None:
                d = self.ctx.decl_type
        if d is not None:
            if d.kind not in ("theorem", "axiom"):
                raise ElabError(f"`{name}` is not a proof", head.start, head.end)
            self.ctx.axioms.update(d.axioms)
            return decl_telescope(d)
        if "." not in name:
            return None
        base, _, field_ = name.rpartition(".")
        if base in self.goal.lctx():
            hb = self.goal.hyp(base)
            if hb is not None and not is_prop_type(hb):
                return None
        tb = self._resolve(base, head)
        if tb is None:
            return None
        return self._field_telescope(tb, field_, base, head)

    def _field_telescope(self, tb: Telescope, field_: str, base: str, head: Syn) -> Telescope:
        """The telescope of the field ``field_`` of a proof of ``tb`` (``h.1``, ``h.mp``, ``h.trans``)."""
        if any(b.explicit for b in tb.binders):
            # Lean only projects once the remaining arguments are implicit (`abs_lt.mp`, not `sq_abs.symm`)
            raise ElabError(
                f"invalid field notation, type is not of the form (C ...) where C is a constant\n  {base}",
                head.start,
                head.end,
            )
        trans = _trans_telescope(tb.conclusion, field_)
        if trans is not None:
            extra, concl = trans
            return Telescope(tb.binders + extra, concl, tb.tyvars)
        projected = self._project(tb.conclusion, field_, base, head)
        inner = prop_telescope(projected)
        return Telescope(tb.binders + inner.binders, inner.conclusion, tb.tyvars)

    def _project(self, p: Term, field_: str, base: str, head: Syn) -> Term:
        h = p[0]
        if h == "∧" and field_ in ("1", "left"):
            return p[1]
        if h == "∧" and field_ in ("2", "right"):
            return p[2]
        if h == "↔" and field_ in ("1", "mp"):
            return ("→", p[1], p[2])
        if h == "↔" and field_ in ("2", "mpr"):
            return ("→", p[2], p[1])
        if h == "↔" and field_ == "symm":
            return ("↔", p[2], p[1])
        if h in ("<", ">") and field_ == "le":
            return ("≤" if h == "<" else "≥", p[1], p[2], p[3])
        if h in ("<", ">") and field_ in ("ne", "ne'"):
            a, b = (p[2], p[3]) if h == "<" else (p[3], p[2])
            return ("≠", p[1], a, b) if field_ == "ne" else ("≠", p[1], b, a)
        if h in ("=", "≠") and field_ == "symm":
            return (h, p[1], p[3], p[2])
        if h == "=" and field_ == "le":
            return ("≤", p[1], p[2], p[3])
        if h == "=" and field_ == "ge":
            return ("≥", p[1], p[2], p[3])
        raise ElabError(
            f"invalid field '{field_}', the environment does not contain the field for\n  {pretty(p, self.goal.ascii)}",
            head.start,
            head.end,
        )

    def _partial_telescope(self, base: Syn) -> Telescope:
        """What ``base`` proves as a telescope, its implicit arguments left open: the base of a projection
        ``(e).1`` (Lean elaborates ``e`` with its implicit arguments postponed, so the field's use fixes them:
        ``(div_eq_iff hb).1 h``)."""
        while base.kind == "paren":
            base = base.args[0]
        if base.kind in ("ident", "proj"):
            return self._head_telescope(base)[0]
        if base.kind != "app" or base.args[0].kind not in ("ident", "paren", "proj"):
            return prop_telescope(self.infer(base))
        inst, holes = self._apply_args(base, base.args[0], base.args[1])
        if holes:
            raise ElabError(_unsupported_proof(base), base.start, base.end)
        _require_types(inst, base)
        open_mvars = {mv for mv, _ in inst.mvars if mv not in inst.asg}
        binders = [
            Binder(mv, _mvars_to_vars(instantiate(b.type, inst.asg), open_mvars), False)
            for mv, b in inst.mvars
            if mv in open_mvars
        ]
        binders += [
            Binder(b.name, _mvars_to_vars(instantiate(b.type, inst.asg), open_mvars), b.explicit)
            for b in inst.pending
        ]
        concl = _mvars_to_vars(instantiate(inst.conclusion, inst.asg), open_mvars)
        tyvars = tuple((ty, allowed) for ty, allowed in inst.allowed.items() if ty not in inst.asg)
        return Telescope(tuple(binders), concl, tyvars)

    def _apply_args(
        self, syn: Syn, head: Syn, args: tuple[Syn, ...], open_args: bool = False
    ) -> tuple[Instance, list[tuple[str, Binder]]]:
        """The telescope of ``head`` instantiated with the arguments ``args``, and the ``_`` holes among them.

        With ``open_args``, a proof argument whose expected type has metavariables may leave its own ``_``
        open (:meth:`infer_open`); the caller re-checks ``inst.opened`` once the use fixes them."""
        tel, _ = self._head_telescope(head)
        inst = Instance(tel)
        holes: list[tuple[str, Binder]] = []
        deferred: list[tuple[str, Binder, Syn]] = []
        for arg in args:
            # implicit binders first
            while inst.pending and not inst.next_binder().explicit:
                inst.mvar_next()
            if not inst.pending:
                raise ElabError(
                    f"function expected at\n  {_syn_text(head)}\nterm has type\n  {pretty(instantiate(inst.conclusion, inst.asg), self.goal.ascii)}",
                    syn.start,
                    syn.end,
                )
            b = inst.next_binder()
            btype = instantiate(b.type, inst.asg)
            if (arg.kind == "ident" and arg.args[0] == "_") or arg.kind == "mvar":
                m = inst.mvar_next()
                holes.append((m[1], b))
                continue
            if b.is_prop:
                self.elab_proof_arg(arg, btype, inst, open_args)
            elif btype[0] == "arrow" and _has_type_mvars(btype):
                # a function whose type the other arguments fix (`congrArg (· + 1) h`): Lean postpones it;
                # it is elaborated once they are
                m = inst.mvar_next()
                deferred.append((m[1], b, arg))
            else:
                val = self._elab_data_arg(arg, btype, inst)
                inst.assign_next(val)
        for mv, b, arg in deferred:
            btype = instantiate(b.type, inst.asg)
            if _has_type_mvars(btype):
                raise ElabError(
                    "typeclass instance problem is stuck, it is often due to metavariables",
                    arg.start,
                    arg.end,
                )
            inst.asg[mv] = self.el.elab_value(arg, btype)
        if deferred:
            # the function applied in the statement is reduced (beta, definitional)
            inst.conclusion = beta(instantiate(inst.conclusion, inst.asg))
            inst.pending = [
                Binder(x.name, beta(instantiate(x.type, inst.asg)), x.explicit) for x in inst.pending
            ]
        return inst, holes

    def infer_open(self, syn: Syn) -> tuple[Term, dict[str, str], dict[str, frozenset[str]]]:
        """What ``syn`` proves, an application whose ``_`` data arguments (and implicit ones) may stay
        open: Lean postpones them and its unifier fixes them from the use (``apply le_trans _ (le_refl _)``
        gets ``le_refl ?a : ?a ≤ ?a`` and the goal fixes ``?a``).

        Returns:
            The proposition (with metavariables), the open term metavariables (name → the argument's
            name) and the open type variables (name → the types the lemma holds at). The caller unifies
            them (:func:`~lean_gym.sim.unify.match` with ``flex``) and re-checks the instantiated
            proposition against the argument's expected type.
        """
        while syn.kind == "paren":
            syn = syn.args[0]
        opened: tuple[dict[str, str], dict[str, frozenset[str]]] = ({}, {})
        if syn.kind == "app" and syn.args[0].kind in ("ident", "paren", "proj"):
            return self._infer_app(syn, syn.args[0], syn.args[1], None, opened), *opened
        return self.infer(syn), *opened

    def _infer_app(
        self,
        syn: Syn,
        head: Syn,
        args: tuple[Syn, ...],
        expected: Term | None,
        opened: tuple[dict[str, str], dict[str, frozenset[str]]] | None = None,
    ) -> Term:
        inst, holes = self._apply_args(syn, head, args, open_args=opened is None)
        # remaining binders: implicit and explicit are left as ∀/→ (Lean keeps explicit ones)
        while inst.pending and not inst.next_binder().explicit:
            inst.mvar_next()
        rest = list(inst.pending)
        concl = inst.conclusion
        for b in reversed(rest):
            concl = _pi(b, concl)
        if expected is not None and not rest:
            if not match(concl, expected, inst.asg):
                got = instantiate(concl, inst.asg)
                raise ElabError(self._mismatch(syn, got, expected), syn.start, syn.end)
        elif expected is not None:
            match(concl, expected, inst.asg)
        _require_types(inst, syn)
        result = instantiate(concl, inst.asg)
        for mv, name in inst.open_mvars.items():
            if _has_mvars(instantiate(("mvar", mv), inst.asg)):
                raise ElabError(
                    f"don't know how to synthesize placeholder for argument '{name}'\ncontext:\n{self.goal.pretty()}",
                    syn.start,
                    syn.end,
                )
        for got, want in inst.opened:
            # an argument elaborated open proves, instantiated, exactly the type it was expected to have
            g, w = instantiate(got, inst.asg), instantiate(want, inst.asg)
            if _has_mvars(g) or _has_mvars(w) or not defeq(g, w):
                raise ElabError(
                    f"don't know how to synthesize placeholder\ncontext:\n{self.goal.pretty()}",
                    syn.start,
                    syn.end,
                )
        if opened is not None:
            # data arguments and type variables left open for the caller's unifier (`infer_open`)
            for mv, b in inst.mvars:
                if mv not in inst.asg and not b.is_prop:
                    opened[0][mv] = user_name(b.name)
            for ty, allowed in inst.allowed.items():
                if ty not in inst.asg:
                    opened[1][ty] = allowed
        for mv, b in inst.mvars:
            if mv not in inst.asg:
                if opened is not None and mv in opened[0]:
                    continue
                if b.is_prop and any(mv == h for h, _ in holes):
                    raise ElabError(
                        f"don't know how to synthesize placeholder for argument '{user_name(b.name)}'\ncontext:\n{self.goal.pretty()}",
                        syn.start,
                        syn.end,
                    )
                if not b.is_prop and any(mv == h for h, _ in holes):
                    # an explicit `_` the user wrote: Lean names it a placeholder, shown with its type
                    hole_ty = instantiate(b.type, inst.asg)
                    # (a type still unknown is not shown: its metavariable's number is no part of Lean's text)
                    hole_goal = self.goal if _has_mvars(hole_ty) else self.goal.with_target(hole_ty)
                    raise ElabError(
                        f"don't know how to synthesize placeholder for argument '{user_name(b.name)}'\ncontext:\n"
                        f"{hole_goal.pretty()}",
                        syn.start,
                        syn.end,
                    )
                if not b.is_prop:
                    raise ElabError(
                        f"don't know how to synthesize implicit argument '{user_name(b.name)}'\ncontext:\n{self.goal.pretty()}",
                        syn.start,
                        syn.end,
                    )
        for mv, b in holes:
            if inst.asg.get(mv) is None and not (opened is not None and mv in opened[0]):
                raise ElabError(
                    f"don't know how to synthesize placeholder for argument '{user_name(b.name)}'",
                    syn.start,
                    syn.end,
                )
        if opened is not None and (opened[0] or opened[1]):
            if _mvar_names(result) - set(opened[0]) - set(opened[1]):
                raise ElabError(
                    f"don't know how to synthesize implicit arguments\ncontext:\n{self.goal.pretty()}",
                    syn.start,
                    syn.end,
                )
            return result
        if _has_mvars(result):
            raise ElabError(
                f"don't know how to synthesize implicit arguments\ncontext:\n{self.goal.pretty()}",
                syn.start,
                syn.end,
            )
        return result

    def elab_proof_arg(self, arg: Syn, btype: Term, inst: Instance, open_args: bool) -> None:
        """Check the proof argument ``arg`` against its binder's type ``btype`` and fill the binder in ``inst``.

        Where ``btype`` still has metavariables, ``arg``'s type is unified with it; with ``open_args``, Lean
        postpones the argument: its own open ``_`` are unified now and fixed by the use (:meth:`infer_open`),
        and the caller re-checks ``inst.opened`` once they are.

        Raises:
            ElabError: ``Application type mismatch`` where ``arg`` does not prove ``btype``.
        """
        if _has_mvars(btype) and open_args:
            got, open_terms, open_types = self.infer_open(arg)
            flex = frozenset(open_terms) | frozenset(open_types)
            if not match(btype, got, inst.asg, flex=flex):
                raise ElabError(self._app_mismatch(arg, got, btype, inst), arg.start, arg.end)
            if flex:
                inst.opened.append((got, btype))
                inst.open_mvars.update(open_terms)
                inst.allowed.update(open_types)
        elif _has_mvars(btype):
            got = self.infer(arg)
            if not match(btype, got, inst.asg):
                raise ElabError(self._app_mismatch(arg, got, btype, inst), arg.start, arg.end)
        else:
            self.check(arg, btype)
        inst.assign_next(("proof",))

    def _elab_data_arg(self, arg: Syn, btype: Term, inst: Instance) -> Term:
        if btype[0] == "type":
            tname = btype[1]
            if tname.startswith("?"):
                cur = inst.asg.get(tname)
                if isinstance(cur, str):
                    tname = cur
                else:
                    t, ty = self.el.elab_term(arg, None)
                    if ty is None:
                        raise ElabError(
                            "typeclass instance problem is stuck, it is often due to metavariables",
                            arg.start,
                            arg.end,
                        )
                    inst.asg[tname] = ty
                    return t
            if tname in ("ℕ", "ℤ", "ℚ", "ℝ"):
                return self.el.elab_arith(arg, tname)
            if tname == "Prop":
                return self.el.elab_prop(arg)
            return self.el.elab_term(arg, tname)[0]
        if btype[0] == "arrow":
            return self.el.elab_value(arg, btype)
        return self.el.elab_term(arg, None)[0]

    def _app_mismatch(self, arg: Syn, got: Term, want: Term, inst: Instance) -> str:
        at = self.goal.ascii
        return (
            f"Application type mismatch: The argument\n  {_syn_text(arg)}\nhas type\n  {pretty(got, at)} : Prop\n"
            f"but is expected to have type\n  {pretty(instantiate(want, inst.asg), at)} : Prop"
        )


_TRANS = {
    # (relation of h, field) -> (relation of the argument, relation of the result)
    ("≤", "trans"): ("≤", "≤"),
    ("<", "trans"): ("<", "<"),
    ("=", "trans"): ("=", "="),
    ("<", "trans_le"): ("≤", "<"),
    ("≤", "trans_lt"): ("<", "<"),
}


def _trans_telescope(p: Term, field_: str) -> tuple[tuple[Binder, ...], Term] | None:
    """``h.trans`` for ``h : a R b``: ``{c} → b R' c → a R'' c`` (``le_trans``, ``lt_of_lt_of_le``, …)."""
    h = p[0]
    if h in (">", "≥"):
        p = ("<" if h == ">" else "≤", p[1], p[3], p[2])
        h = p[0]
    rels = _TRANS.get((h, field_))
    if rels is None:
        return None
    c = fresh_mvar("c")[1].lstrip("?")
    cvar = ("var", c)
    arg = (rels[0], p[1], p[3], cvar)
    res = (rels[1], p[1], p[2], cvar)
    return (Binder(c, type_term(p[1]), False), Binder("_premise_trans", arg, True)), res


def _require_types(inst: Instance, at: Syn) -> None:
    """Refuse, at ``at``, an instantiation whose arguments fixed a type the lemma does not hold at
    (``div_eq_iff`` at ℤ: :meth:`Instance.check_types`), as Lean's failed instance synthesis does."""
    bad = inst.check_types()
    if bad is not None:
        raise ElabError(
            f"failed to synthesize an instance for `{bad}` (the lemma does not apply to this type)",
            at.start,
            at.end,
        )


def _mvar_names(t: Term) -> set[str]:
    """The metavariables of ``t``: term metavariables and type metavariables (``?…`` type names)."""
    out: set[str] = set()
    stack = [t]
    while stack:
        u = stack.pop()
        if u[0] == "mvar":
            out.add(u[1])
            continue
        if u[0] == "app":
            stack.append(u[1])
            stack.extend(u[2])
            continue
        for c in u[1:]:
            if type(c) is tuple:
                stack.append(c)
            elif type(c) is str and c.startswith("?"):
                out.add(c)
    return out


def _has_mvars(t: Term) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        h = u[0]
        if h == "mvar":
            return True
        if h == "app":
            stack.append(u[1])
            stack.extend(u[2])
            continue
        for c in u[1:]:
            if type(c) is tuple:
                stack.append(c)
            elif type(c) is str and c.startswith("?"):
                return True
    return False


#: Lean core constants whose type the simulator can state when they do not fit the goal.
_CORE_CONSTANTS = frozenset(
    {"rfl", "Eq.refl", "trivial", "True.intro", "And.intro", "Or.inl", "Or.inr", "Nat.succ", "Nat.zero"}
)
#: Lean core constants the simulator does not model: it says so rather than call them unknown.
_CORE_UNMODELLED = frozenset(
    {
        "congrFun",
        "congr",
        "Eq.symm",
        "Eq.trans",
        "Eq.subst",
        "Eq.mp",
        "Eq.mpr",
        "Eq.ndrec",
        "Eq.rec",
        "cast",
        "id",
        "HEq.refl",
        "Iff.refl",
        "Iff.rfl",
        "And.left",
        "And.right",
        "Or.elim",
        "Classical.em",
        "Classical.byContradiction",
        "Decidable.em",
        "Nat.rec",
        "Nat.le_refl",
        "Nat.lt_irrefl",
        "Nat.zero_le",
        "Nat.succ_le_succ",
        "Nat.le_of_lt",
        "Nat.lt_of_lt_of_le",
        "of_eq_true",
        "eq_true",
        "propext",
        "funext",
        "Subsingleton.elim",
        "Function.comp",
        "absurd",
        "False.elim",
        "Exists.intro",
        "Iff.intro",
        "Iff.mp",
        "Iff.mpr",
        "Nat.le_antisymm",
        "Nat.le_trans",
        "Nat.lt_trans",
    }
)


def _has_type_mvars(t: Term) -> bool:
    """Whether the type term ``t`` mentions a type metavariable (``("type", "?α1")``)."""
    if t[0] == "type":
        return str(t[1]).startswith("?")
    return any(type(c) is tuple and _has_type_mvars(c) for c in t[1:])


def _mvars_to_vars(t: Term, names: set[str]) -> Term:
    """``t`` with the metavariables ``names`` turned into variables of the same names (binders again)."""
    if not names or type(t) is not tuple:
        return t
    if t[0] == "mvar":
        return ("var", t[1]) if t[1] in names else t
    return tuple(_mvars_to_vars(c, names) if type(c) is tuple else c for c in t)


def _syn_text(syn: Syn) -> str:
    from lean_gym.sim.elab import syn_text

    if syn.kind == "show":
        return "this"  # Lean's `show T from e` is `let_fun this : T := e; this` (Term.elabShow)
    return syn_text(syn)


def _unsupported_proof(syn: Syn) -> str:
    return f"the simulator cannot elaborate this {syn.kind} proof term (outside its Lean subset)"
