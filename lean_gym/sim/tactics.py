"""The simulator's tactic interpreter: goals in, goals out, Lean's error texts on failure.

Public API (what the aesop search and the REPL layer build on):

* :class:`Goal` (frozen): ``hyps`` (ordered ``(name, type_or_prop)`` pairs) and ``target``;
  ``goal.pretty()`` is Lean's goal display (``x y : ℝ\\nh₀ : 0 < x\\n⊢ x + y = y + x``).
* :class:`TacticContext`: the environment (declarations, options, the built-in lemma library through
  :meth:`TacticContext.lookup`), the heartbeat budget (:meth:`TacticContext.tick` raises
  :class:`HeartbeatsExceeded` past ``maxHeartbeats``, which source text may lower but never raise past the
  caller's cap, :func:`heartbeat_cap`; ``0`` means "up to the cap"), the axioms
  used so far (``sorryAx``, ``Lean.ofReduceBool``, declared axioms), and the sorries met.
* :func:`run_tactic` ``(goal, text, ctx) -> list[Goal]``: run tactic text (one tactic or a sequence, with
  ``<;>``, ``·``, ``first | … | …``) on one goal; the remaining goals come back, and failure raises
  :class:`TacticError` with Lean's message.
* :func:`run_tactic_on_goals` ``(goals, text, ctx)``: the same on a goal list (the first goal is the main
  goal, as in Lean).
* :func:`register_tactic` ``(name, handler)``: ``handler(goal, syntax: str, ctx) -> list[Goal]`` runs on the
  main goal with the tactic's whole text (e.g. ``"aesop (config := { terminal := true })"``); a handler
  that closes its goal returns :func:`lean_gym.sim.kernel.close` (only the kernel marks a goal closed: a
  handler that leaves no goal the kernel did not close raises :class:`KernelRefusal`). The tactic
  families (:mod:`~lean_gym.sim.simp`, :mod:`~lean_gym.sim.tac_arith`, :mod:`~lean_gym.sim.tac_basic`,
  :mod:`~lean_gym.sim.aesop`) register themselves here; ``lean_gym/sim/__init__.py`` imports them, so the
  table is complete whichever simulator module is imported first. This module imports none of them.

Example:
    >>> from lean_gym.sim.elab import Env
    >>> from lean_gym.sim.tactics import TacticContext, goal_from_statement, run_tactic
    >>> ctx = TacticContext(env=Env(imports=("Mathlib",)))  # ℝ and linarith are Mathlib's
    >>> g = goal_from_statement("(x y : ℝ) (h : x < y) : x ≤ y + 1", ctx)
    >>> run_tactic(g, "linarith", ctx)
    []

Strength: every tactic is at most as strong as Lean's (see ``docs/simulator.md``); anything the simulator
cannot decide fails with the tactic's own failure message rather than succeeding.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from lean_gym.errors import LeanGymError
from lean_gym.sim.arith.errors import ArithBudgetExceeded, WorkBudget
from lean_gym.sim.arith.poly import set_work_meter
from lean_gym.sim.elab import Decl, ElabError, Elaborator, Env, parse_signature
from lean_gym.sim.goals import Goal
from lean_gym.sim.memo import MISS, IdentityMemo, Memo
from lean_gym.sim.memo import enabled as memo_enabled
from lean_gym.sim.syntax import (
    ParseError,
    Source,
    Syn,
    Token,
    TokenStream,
    fixed_arity_end,
    numeral,
    parse_term,
    tokenize,
)
from lean_gym.sim.terms import (
    NumeralTooLarge,
    Term,
    TermTooLarge,
    is_prop_type,
    numeral_too_large_message,
)
from lean_gym.sim.unify import canon

__all__ = [
    "DEFAULT_HEARTBEAT_CAP",
    "HARD_HEARTBEAT_CAP",
    "Goal",
    "HeartbeatsExceeded",
    "KernelRefusal",
    "SearchBudget",
    "TacSyntax",
    "TacticContext",
    "TacticError",
    "WallClockTimeout",
    "context_cost",
    "goal_from_statement",
    "heartbeat_cap",
    "register_tactic",
    "run_tactic",
    "run_tactic_on_goals",
    "timeout_message",
    "wall_clock_deadline",
]

HARD_HEARTBEAT_CAP = 5_000_000
"""Budget of a caller that asks for no cap (``heartbeat_cap(0)``, ``max_heartbeats=0``): nothing hangs."""

DEFAULT_HEARTBEAT_CAP = 400_000
"""The caller's cap when it sets none: ``set_option maxHeartbeats N`` in the checked text may lower the
budget but never raise it past the cap (``0`` in the text means "up to the cap"). miniF2F's header value."""

STANDARD_AXIOMS = ("propext", "Classical.choice", "Quot.sound")

MEMO_EXACT = 1 << 62
"""The need of a memoised run whose answer depended on the exact budget left: it is never replayed."""


class TacticError(Exception):
    """A tactic failed; ``message`` is Lean's text.

    Attributes:
        message: The error text as Lean words it (``linarith failed to find a contradiction``, …); it may
            be given as a function of no arguments, called when the text is first read.
        start: Absolute source offset of the error (``None``: the whole failing tactic).
        end: End offset.
        recover: ``True`` for elaboration errors Lean logs and recovers from (the goal is closed with a
            synthetic sorry and the proof goes on), ``False`` for tactic failures that abort the block.
    """

    def __init__(
        self,
        message: str | Callable[[], str],
        start: int | None = None,
        end: int | None = None,
        recover: bool = False,
    ) -> None:
        super().__init__()
        self._message = message  # a function for texts that cost (a goal printed): most failures go unread
        self.start = start
        self.end = end
        self.recover = recover

    @property
    def message(self) -> str:
        m = self._message
        if not isinstance(m, str):
            m = self._message = m()
        return m

    def reword(self, text: str) -> None:
        """Replace the message with ``text``, in ``args`` too (a method, not a property setter, which mypyc's
        compiled exception classes crash on: docs/simulator.md)."""
        self._message = text
        self.args = (text,)

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message, self.start, self.end, self.recover))


class HeartbeatsExceeded(TacticError):
    """Work past ``maxHeartbeats``: Lean's ``(deterministic) timeout`` error."""


def timeout_message(limit: int, where: str = "whnf") -> str:
    """Lean's heartbeat-timeout error text for ``limit``."""
    return (
        f"(deterministic) timeout at `{where}`, maximum number of heartbeats ({limit}) has been reached\n"
        "Use `set_option maxHeartbeats <num>` to set the limit.\n\n"
        "Additional diagnostic information may be available using the `set_option diagnostics true` command."
    )


_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "lean_gym_sim_deadline", default=None
)
_CAP: contextvars.ContextVar[int] = contextvars.ContextVar(
    "lean_gym_sim_heartbeat_cap", default=DEFAULT_HEARTBEAT_CAP
)


@contextlib.contextmanager
def heartbeat_cap(cap: int) -> Iterator[None]:
    """Cap the heartbeats of every :class:`TacticContext` created inside the block (the caller's budget).

    The checked text's ``set_option maxHeartbeats N`` then gets ``min(N, cap)`` (``N = 0``: ``cap``); only
    the caller can raise the cap. ``cap = 0`` means :data:`HARD_HEARTBEAT_CAP`.
    """
    token = _CAP.set(int(cap))
    try:
        yield
    finally:
        _CAP.reset(token)


class WallClockTimeout(BaseException):
    """A check ran past the wall-clock deadline set with :func:`wall_clock_deadline`.

    A ``BaseException`` (like ``KeyboardInterrupt``) on purpose: no tactic combinator (``first``, ``try``,
    aesop's search) may catch it and carry on; it ends the whole check, as a killed Lean process would.
    """


@contextlib.contextmanager
def wall_clock_deadline(seconds: float | None) -> Iterator[None]:
    """Make every :class:`TacticContext` created inside the block stop after ``seconds`` of wall time."""
    if seconds is None:
        yield
        return
    token = _DEADLINE.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


@dataclass
class SorryRecord:
    """A ``sorry`` met while running tactics: its goal and the source span of the ``sorry``."""

    goal: Goal
    start: int
    end: int


class KernelRefusal(LeanGymError):
    """A goal was marked closed without the kernel (:mod:`lean_gym.sim.kernel`) closing it, or the kernel
    refused a justification: a bug of the simulator, never a proof.

    Not a :class:`TacticError`, so no combinator (``first``, ``try``, aesop's search) catches it: the request
    ends with the REPL layer's ``internal simulator error`` answer.
    """


@dataclass(slots=True)
class SealFrame:
    """What the kernel closed during one atomic tactic call (the engine pushes one frame per call).

    ``closed`` maps each goal the kernel closed in this call, or that a nested call or run the engine
    checked closed, to ``(goal, kind, justification, frame)`` (keyed by the identity of the goal's context
    and target; ``justification`` is ``None`` for a run of several tactics; ``frame`` is the call whose
    records the justification cites); ``checked`` holds the proof checker's records
    (:class:`lean_gym.sim.proofs.Checked`) of the terms it checked in this call.
    """

    tactic: str
    closed: dict[tuple[int, int], list[tuple[Goal, str, Any, SealFrame]]] = field(default_factory=dict)
    checked: list[Any] = field(default_factory=list)
    order: list[Goal] = field(default_factory=list)

    def add(self, goal: Goal, kind: str, justification: Any, frame: SealFrame | None = None) -> None:
        key = (id(goal.hyps), id(goal.target))
        entry = (goal, kind, justification, self if frame is None else frame)  # the goal keeps its ids alive
        entries = self.closed.get(key)
        if entries is None:
            self.closed[key] = [entry]
        else:
            entries.append(entry)
        self.order.append(goal)

    def entries_of(self, goal: Goal) -> list[tuple[Goal, str, Any, SealFrame]]:
        """How ``goal`` (its context and target, whatever its tag) was closed in this call, oldest first."""
        entries = self.closed.get((id(goal.hyps), id(goal.target)))
        if entries is not None:
            return entries
        hyps, target = goal.hyps, goal.target
        return [e for es in self.closed.values() for e in es if e[0].target == target and e[0].hyps == hyps]

    def justification_of(self, goal: Goal) -> tuple[str, Any] | None:
        """The kind and justification of the newest closure of ``goal`` in this call, or ``None``."""
        entries = self.entries_of(goal)
        return (entries[-1][1], entries[-1][2]) if entries else None


#: Closures checked by the engine: ``(tactic, kind)`` → count (a test reads it: every family closes
#: through the kernel).
SEALED_COUNTS: dict[tuple[str, str], int] = {}

_KERNEL_KEY: list[object] = []


def _kernel_key() -> object:
    """The capability to mark goals closed: handed out once, to :mod:`lean_gym.sim.kernel` at its import."""
    if _KERNEL_KEY:
        raise KernelRefusal("the kernel's key was already handed out: only lean_gym.sim.kernel seals goals")
    key = object()
    _KERNEL_KEY.append(key)
    return key


def seal(ctx: TacticContext, goal: Goal, kind: str, justification: Any, key: object) -> None:
    """Record that the kernel closed ``goal`` in the current atomic call (only the kernel holds ``key``)."""
    if not _KERNEL_KEY or key is not _KERNEL_KEY[0]:
        raise KernelRefusal("a goal was sealed without the kernel's key")
    if ctx.seal_frames:
        ctx.seal_frames[-1].add(goal, kind, justification)


def sealed_here(ctx: TacticContext, goal: Goal) -> tuple[str, Any] | None:
    """How ``goal`` was closed in the atomic call running now (see :class:`SealFrame`), or ``None``."""
    return ctx.seal_frames[-1].justification_of(goal) if ctx.seal_frames else None


def _seal_run(ctx: TacticContext, goals: Sequence[Goal], how: str) -> None:
    """A run of tactics the engine checked left no goal: its input goals are closed (each atomic closure in
    it went through the kernel, each admitted goal recorded ``sorryAx``); the calling tactic may cite them."""
    if ctx.seal_frames:
        frame = ctx.seal_frames[-1]
        for g in goals:
            frame.add(g, how, None)


@dataclass
class LogMessage:
    """A message logged while running tactics (absolute source offsets; -1 when unknown)."""

    severity: str
    data: str
    start: int
    end: int


@dataclass
class TacticContext:
    """Everything a tactic may consult or record besides its goal.

    Args:
        env: The environment snapshot (declarations, ``set_option`` values, ``open`` namespaces).
        max_heartbeats: The Python caller's own budget, overriding ``env``'s ``maxHeartbeats`` option and the
            cap (``0``: :data:`HARD_HEARTBEAT_CAP`). When ``None`` (what the REPL layer uses), the budget is
            the option's value, but never more than the caller's cap (:func:`heartbeat_cap`, default
            :data:`DEFAULT_HEARTBEAT_CAP`): source text can lower its budget, never raise it.
        decl_name: The declaration being proved (a proof that mentions it is rejected, as in Lean).

    Attributes:
        heartbeats: Simulated heartbeats used so far.
        axioms: Axioms the proof depends on so far.
        sorries: Explicit ``sorry``s met (each becomes a ``sorries`` entry in the REPL response).
        messages: Messages logged (recovered errors, infos such as ``aesop?`` suggestions).
        synthetic_sorry: Whether an error was recovered from by closing a goal with a synthetic sorry.
    """

    env: Env = field(default_factory=Env)
    max_heartbeats: int | None = None
    decl_name: str | None = None
    heartbeats: int = 0
    axioms: set[str] = field(default_factory=set)
    sorries: list[SorryRecord] = field(default_factory=list)
    messages: list[LogMessage] = field(default_factory=list)
    synthetic_sorry: bool = False
    self_reference: bool = False
    recover: bool = True
    decl_type: Decl | None = None
    tactic_log: list[tuple[str, tuple[Goal, ...], int, int]] | None = None
    src: Source | None = None
    numeral_too_large: bool = False
    _limit: int = 0
    _deadline: float | None = None
    memo_frames: list[list[int]] = field(default_factory=list)
    hidden_sorry: bool = False
    seal_frames: list[SealFrame] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.max_heartbeats is not None:
            mh = self.max_heartbeats
            self._limit = HARD_HEARTBEAT_CAP if mh <= 0 else mh
        else:
            cap = _CAP.get()
            cap = HARD_HEARTBEAT_CAP if cap <= 0 else cap
            opt = self.env.heartbeats()  # `set_option maxHeartbeats` in the text: it may only lower the cap
            mh = self._limit = cap if opt <= 0 else min(opt, cap)
        self.max_heartbeats = mh
        self._deadline = _DEADLINE.get()

    def tick(self, n: int = 1) -> None:
        """Spend ``n`` simulated heartbeats.

        Raises:
            HeartbeatsExceeded: when the total passes the budget (Lean's ``(deterministic) timeout``).
        """
        self.heartbeats += n
        if self.heartbeats > self._limit:
            # A run in progress that catches this (a tactic may turn any failure into its own) has an answer
            # that holds for this very budget only: memoised runs record that.
            for f in self.memo_frames:
                f[1] = MEMO_EXACT
            shown = self.max_heartbeats if self.max_heartbeats else HARD_HEARTBEAT_CAP
            raise HeartbeatsExceeded(timeout_message(int(shown)))
        if self._deadline is not None and time.monotonic() > self._deadline:
            raise WallClockTimeout("the simulator ran past its wall-clock deadline")

    def heartbeats_left(self, upto: int) -> int:
        """The heartbeats left before the budget runs out, but at most ``upto``.

        A tactic whose work depends on the budget left (``linarith``'s and ``omega``'s search bounds) reads
        it here and only here, so that a memoised answer (see :mod:`lean_gym.sim.memo`) is replayed only
        where the tactic would read the same value: with at least ``upto`` left, any larger budget reads the
        same; with less, only the same budget does.
        """
        left = self._limit - self.heartbeats
        if left >= upto:
            self.note_need(upto)
            return upto
        for f in self.memo_frames:
            f[1] = MEMO_EXACT
        return left

    def left_for_bookkeeping(self) -> int:
        """The heartbeats left, for a memo's records only: what a tactic does may not depend on it (that
        reads :meth:`heartbeats_left`, which the memo accounts for)."""
        return self._limit - self.heartbeats

    def heartbeats_left_exactly(self, left: int) -> bool:
        """Whether exactly ``left`` heartbeats are left; when they are, memoised runs in progress record that
        their answer needs that very budget (a replayed answer that read it)."""
        if self._limit - self.heartbeats != left:
            return False
        for f in self.memo_frames:
            f[1] = MEMO_EXACT
        return True

    def heartbeats_left_at_least(self, need: int) -> bool:
        """Whether ``need`` heartbeats are left; when they are, memoised runs in progress record the need
        (a replayed answer that needed them)."""
        if self._limit - self.heartbeats < need:
            return False
        self.note_need(need)
        return True

    def note_need(self, need: int, at: int | None = None) -> None:
        """Record, for every memoised run in progress, that its answer needs ``need`` heartbeats left at
        the point where ``at`` heartbeats had been used (default: now): what a replayed inner answer
        needed, or what a search sized by the budget really used."""
        hb = self.heartbeats if at is None else at
        for f in self.memo_frames:
            n = need + hb - f[0]
            if n > f[1]:
                f[1] = n

    def search_budget(self, lo: int, hi: int, per: int) -> SearchBudget:
        """The work budget of a decision procedure sized by the heartbeats left: ``max(lo, min(hi, left //
        per))`` steps. Settle it after the search (:meth:`SearchBudget.settle`), so that a memoised answer
        is replayed exactly where the search would have done the same work."""
        left = self._limit - self.heartbeats
        return SearchBudget(self, self.heartbeats, max(lo, min(hi, left // per)), lo, hi, per)

    def lookup(self, name: str) -> Decl | None:
        """A declaration or built-in library lemma by name (honouring ``open``)."""
        return self.env.lookup(name)

    def use_axiom(self, name: str) -> None:
        self.axioms.add(name)

    def use_standard_axioms(self) -> None:
        """Record Mathlib's usual three axioms (what Lean reports for most Mathlib-tactic proofs)."""
        self.axioms.update(STANDARD_AXIOMS)

    def elaborator(self, goal: Goal) -> Elaborator:
        return Elaborator(self.env, goal.lctx(), goal.fvars())

    @contextlib.contextmanager
    def uncharged(self) -> Iterator[None]:
        """Run a block without spending heartbeats or recording memo entries: for the simulator's own
        re-runs of work Lean does once (the block's procedures keep their own work budgets)."""
        saved = self.heartbeats, self.memo_frames, self._limit
        self.memo_frames = []
        self._limit = 1 << 62
        outer = set_work_meter(None)
        try:
            yield
        finally:
            set_work_meter(outer)
            self.heartbeats, self.memo_frames, self._limit = saved

    def snapshot(self) -> tuple[int, int, frozenset[str], bool, bool]:
        return (
            len(self.sorries),
            len(self.messages),
            frozenset(self.axioms),
            self.synthetic_sorry,
            self.self_reference,
        )

    def restore(self, snap: tuple[int, int, frozenset[str], bool, bool]) -> None:
        """Undo what a failed branch recorded (heartbeats stay spent, as in Lean)."""
        ns, nm, ax, syn, selfref = snap
        del self.sorries[ns:]
        del self.messages[nm:]
        self.axioms = set(ax)
        self.synthetic_sorry = syn
        self.self_reference = selfref


@dataclass
class SearchBudget:
    """A decision procedure's work budget, sized by the heartbeats left (see
    :meth:`TacticContext.search_budget`); ``value`` is the number of steps."""

    ctx: TacticContext
    at: int
    value: int
    lo: int
    hi: int
    per: int

    def settle(self, meter: WorkBudget, scale: int = 1) -> None:
        """After the search ran on ``meter`` (``scale * value`` steps): record what it depended on. It did the
        same work for any budget whose steps cover ``meter.need``; when it ran out below the cap, only for
        this very budget."""
        if meter.exact and self.value < self.hi:
            for f in self.ctx.memo_frames:
                f[1] = MEMO_EXACT
            return
        if meter.exact:
            need_left = self.per * self.hi  # ran out at the cap: the same for every budget at the cap
        else:
            steps = -(-meter.need // scale)
            need_left = 0 if steps <= self.lo else self.per * steps
        self.ctx.note_need(need_left, self.at)


# ------------------------------------------------------------------------------------------ syntax


@dataclass(frozen=True)
class TacSyntax:
    """One atomic tactic's syntax: its tokens, its text and where it sits in the source."""

    name: str
    toks: tuple[Token, ...]
    src: Source
    start: int
    end: int

    @property
    def text(self) -> str:
        return self.src.text[self.start : self.end]

    def stream(self, skip: int = 1, stop_col: int = -1) -> TokenStream:
        """A token stream over this tactic's tokens after the first ``skip`` ones."""
        eof = Token("eof", "", self.end, self.end, 0, 0, True)
        return TokenStream([*self.toks[skip:], eof], stop_col)


@dataclass
class Node:
    """A parsed tactic-block node (``atomic``, ``then``, ``cdot``, ``brace``, ``focus``, ``first``, ``seq``, …).

    ``arg`` is what the kind needs: the ``·`` token of a ``cdot``, the closing ``}`` of a ``brace``, the
    count of an ``iterate``, the keyword and tags of a ``case``; ``None`` otherwise.
    """

    kind: str
    start: int
    end: int
    syntax: TacSyntax | None = None
    children: list[Any] = field(default_factory=list)
    arg: Any = None


_PATTERN_TACTICS = {
    "rcases",
    "obtain",
    "rintro",
    "cases",
    "cases'",
    "induction",
    "induction'",
    "rintros",
    "match",
    "by_contra!",
}
_COMBINATORS = {
    "first",
    "try",
    "repeat",
    "all_goals",
    "any_goals",
    "focus",
    "iterate",
    "case",
    "next",
    "on_goal",
    "repeat'",
    "solve",
    "set_option",
}


class BlockParser:
    """Splits tactic source into nodes following Lean's layout rules (see :mod:`lean_gym.sim.syntax`)."""

    def __init__(self, src: Source, toks: list[Token]) -> None:
        self.src = src
        self.toks = toks
        self.i = 0

    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def error(self, msg: str, tok: Token | None = None) -> ParseError:
        t = tok or self.tok
        return ParseError(msg, t.start, t.end)

    def parse_seq(self, outer_col: int, closers: tuple[str, ...] = ()) -> Node:
        """A tactic sequence whose block column is the first token's column."""
        first = self.tok
        nodes: list[Node] = []
        if (
            first.kind == "eof"
            or (first.first and first.col <= outer_col)
            or (first.kind == "sym" and first.text in closers)
        ):
            return Node("seq", first.start, first.start)
        col = first.col
        while True:
            nodes.append(self.parse_item(col, closers))
            t = self.tok
            if t.kind == "sym" and t.text == ";" and not (t.first and t.col < col):
                self.i += 1
                continue
            if t.kind == "eof" or (t.kind == "sym" and t.text in closers and not t.first):
                break
            if t.kind == "sym" and t.text in closers and t.first and t.col > outer_col:
                break
            if t.first and t.col == col:
                continue
            if t.first and t.col < col:
                break
            if t.kind == "sym" and t.text == "|":
                break
            what = "unexpected identifier" if t.kind == "ident" else f"unexpected token '{t.text}'"
            raise self.error(f"{what}; expected command" if outer_col <= 0 else what)
        return Node("seq", nodes[0].start, nodes[-1].end, children=nodes)

    def parse_item(self, col: int, closers: tuple[str, ...]) -> Node:
        node = self._parse_one(col, closers)
        while (
            self.tok.kind == "sym" and self.tok.text == "<;>" and not (self.tok.first and self.tok.col <= col)
        ):
            self.i += 1
            rhs = self._parse_one(col, closers)
            node = Node("then", node.start, rhs.end, children=[node, rhs])
        return node

    def _parse_one(self, col: int, closers: tuple[str, ...]) -> Node:
        t = self.tok
        if t.kind == "eof":
            raise self.error("unexpected end of input; expected tactic")
        if t.kind == "sym" and t.text in ("·", "."):
            self.i += 1
            body = self.parse_seq(t.col, closers)
            if not body.children:
                raise self.error("unexpected end of input; expected tactic")
            return Node("cdot", t.start, body.end, children=[body], arg=t)
        if t.kind == "sym" and t.text in ("(", "{"):
            close = ")" if t.text == "(" else "}"
            self.i += 1
            body = self.parse_seq(-1, (close,))
            ct = self.tok
            if not (ct.kind == "sym" and ct.text == close):
                raise self.error(
                    f"unexpected token '{ct.text}'; expected '{close}'"
                    if ct.kind != "eof"
                    else f"unexpected end of input; expected '{close}'"
                )
            self.i += 1
            return Node("paren" if close == ")" else "brace", t.start, ct.end, children=[body], arg=ct)
        if t.kind == "ident" and t.text == "first":
            self.i += 1
            alts: list[Node] = []
            while self.tok.kind == "sym" and self.tok.text == "|":
                self.i += 1
                alts.append(self.parse_seq(col if self.tok.first else -1, (*closers, "|")))
            if not alts:
                raise self.error(
                    "unexpected token; expected '|'"
                    if self.tok.kind != "eof"
                    else "unexpected end of input; expected '|'"
                )
            return Node("first", t.start, alts[-1].end, children=alts)
        if t.kind == "ident" and t.text in (
            "try",
            "repeat",
            "all_goals",
            "any_goals",
            "focus",
            "repeat'",
            "solve",
        ):
            self.i += 1
            body = self.parse_seq(col, closers)
            if not body.children:
                raise self.error("unexpected end of input; expected tactic")
            return Node(t.text, t.start, body.end, children=[body])
        if t.kind == "ident" and t.text == "iterate":
            self.i += 1
            n = 1
            if self.tok.kind == "num":
                n = int(numeral(self.tok))
                self.i += 1
            body = self.parse_seq(col, closers)
            return Node("iterate", t.start, body.end, children=[body], arg=n)
        if t.kind == "ident" and t.text == "set_option":
            return self._parse_set_option(col, closers)
        if t.kind == "ident" and t.text in ("case", "next", "case'"):
            self.i += 1
            tags: list[str] = []
            while self.tok.kind == "ident" or (self.tok.kind == "sym" and self.tok.text == "_"):
                tags.append(self.tok.text)
                self.i += 1
            if not (self.tok.kind == "sym" and self.tok.text == "=>"):
                raise self.error("unexpected token; expected '=>'")
            self.i += 1
            body = self.parse_seq(col, closers)
            return Node("case", t.start, body.end, children=[body], arg=(t.text, tags))
        if t.kind != "ident":
            raise self.error(
                f"unexpected token '{t.text}'; expected tactic" if t.text != "" else "unknown tactic"
            )
        # atomic tactic: take tokens up to the layout stop
        i0 = self.i
        depth = 0
        seen_by = False
        seen_with = False
        name = t.text
        pattern = name in _PATTERN_TACTICS
        all_toks = self.toks
        i = self.i + 1
        fixed_end = fixed_arity_end(all_toks, i, name)
        stop = len(all_toks) if fixed_end is None else fixed_end  # a well-formed stream ends in `eof`
        while i < stop:  # the tokens are read from locals: this loop sees every token of a long call
            kind, text, _, _, _, u_col, u_first = all_toks[i]
            if kind == "eof":
                break
            if u_first and u_col <= col and depth == 0:
                # layout only separates tactics: inside brackets a line may start anywhere (Lean's rule);
                # `induction n with` / `cases h with` alternatives may start at the block's own column
                if not (seen_with and kind == "sym" and text == "|" and u_col == col):
                    break
            if kind == "sym":
                if text in _OPENERS:
                    depth += 1
                elif text in _CLOSERS:
                    if depth == 0:
                        break
                    depth -= 1
                elif text == "=>" and name in ("conv", "conv_lhs", "conv_rhs"):
                    seen_by = True  # a conversion sequence runs on past `;`, as a `by` block does
                elif depth == 0 and not seen_by:
                    if text in (";", "<;>"):
                        break
                    if text == "|" and not pattern:
                        break
            elif kind == "ident":
                if text == "by":
                    seen_by = True
                elif text == "with" and name in ("induction", "cases", "match"):
                    seen_with = True
            i += 1
        self.i = i
        toks = tuple(all_toks[i0:i])
        syn = TacSyntax(name, toks, self.src, toks[0].start, toks[-1].end)
        return Node("atomic", syn.start, syn.end, syntax=syn)

    def _parse_set_option(self, col: int, closers: tuple[str, ...]) -> Node:
        """``set_option NAME VALUE in TACTICS`` (Lean's tactic ``Parser.Tactic.set_option``).

        The body is a tactic sequence; it may start on the next line at the column of ``set_option``
        itself, and then runs to the end of that column's block, as Lean's parser reads it.
        """
        t = self.tok
        self.i += 1
        name = self.tok
        if name.kind != "ident":
            raise self.error("unexpected token; expected identifier")
        self.i += 1
        v = self.tok
        value: object
        if v.kind == "num":
            value = numeral(v)
        elif v.kind == "ident" and v.text in ("true", "false"):
            value = v.text == "true"
        elif v.kind == "str":
            value = v.text
        else:
            raise self.error("unexpected token; expected option value")
        self.i += 1
        if not (self.tok.kind == "ident" and self.tok.text == "in"):
            raise self.error(
                "unexpected end of input; expected 'in'" if self.tok.kind == "eof" else "expected 'in'"
            )
        self.i += 1
        body = self.parse_seq(col - 1 if self.tok.first else col, closers)
        if not body.children:
            raise self.error("unexpected end of input; expected tactic")
        return Node("set_option", t.start, body.end, children=[body], arg=(name.text, value))


_OPENERS = frozenset(("(", "[", "{", "⟨", "⦃"))
_CLOSERS = frozenset((")", "]", "}", "⟩", "⦄"))


def parse_block(src: Source, start: int, end: int, outer_col: int = -1) -> Node:
    """Parse ``src.text[start:end]`` as a tactic sequence.

    Raises:
        ParseError: when it is not one.
    """
    toks = tokenize(src.text, src, start, end)
    bp = BlockParser(src, toks)
    first = bp.tok
    if first.kind == "sym" and first.text == "{":
        # `by { tacs }`: Lean's `tacticSeqIndentGt` tries `tacticSeqBracketed` first, and only the indented
        # sequence has the column check, so the `{` may sit at any column (`:=` then `by {` at column 0,
        # tests/lean/run/induction1.lean); the block is that one bracketed sequence
        brace = bp._parse_one(-1, ())
        node = Node("seq", brace.start, brace.end, children=[brace])
    else:
        node = bp.parse_seq(outer_col)
    if bp.tok.kind != "eof":
        t = bp.tok
        raise ParseError(f"unexpected token '{t.text}'; expected command", t.start, t.end)
    return node


# ----------------------------------------------------------------------------------------- registry

Handler = Callable[[Goal, str, TacticContext], list[Goal]]
_BuiltinHandler = Callable[[Goal, TacSyntax, TacticContext], list[Goal]]
_EXTERNAL: dict[str, Handler] = {}
_BUILTIN: dict[str, _BuiltinHandler] = {}


def register_tactic(name: str, handler: Handler) -> None:
    """Register ``handler(goal, syntax_text, ctx) -> remaining goals`` for tactics starting with ``name``.

    A handler that closes its goal returns ``lean_gym.sim.kernel.close(goal, justification, ctx)``; one that
    returns ``[]`` without it is refused (:class:`KernelRefusal`)."""
    _EXTERNAL[name] = handler


def builtin(*names: str) -> Callable[[_BuiltinHandler], _BuiltinHandler]:
    """Decorator registering a built-in tactic that receives the :class:`TacSyntax`."""

    def deco(fn: _BuiltinHandler) -> _BuiltinHandler:
        for n in names:
            _BUILTIN[n] = fn
        return fn

    return deco


def _find_handler(name: str) -> tuple[str, Any] | None:
    if name in _EXTERNAL:
        return ("ext", _EXTERNAL[name])
    if name in _BUILTIN:
        return ("builtin", _BUILTIN[name])
    return None


def known_tactic(name: str) -> bool:
    return _find_handler(name) is not None or name in _COMBINATORS


# ---------------------------------------------------------------------------------------- execution


def forget_frames(e: BaseException) -> None:
    """Drop the tracebacks of ``e`` and of the exceptions chained to it (cause, context): a failure that is
    caught and discarded then frees its frames by reference counting (a frame that holds the exception, as
    ``err = TacticError(...); raise err`` does, is a frame ↔ traceback cycle left to the collector)."""
    seen = 0
    x: BaseException | None = e
    while x is not None and seen < 64:
        x.__traceback__ = None
        nxt = x.__cause__ if x.__cause__ is not None else x.__context__
        x = nxt
        seen += 1


def no_goals_error() -> TacticError:
    return TacticError("no goals to be proved")


def unsolved_goals_message(goals: Sequence[Goal]) -> str:
    """Lean's ``unsolved goals`` text for ``goals``."""
    return "unsolved goals\n" + "\n\n".join(g.pretty() for g in goals)


def exec_node(node: Node, goals: list[Goal], ctx: TacticContext) -> list[Goal]:
    """Run one parsed node on ``goals``; returns the new goal list.

    Raises:
        TacticError: the first unrecovered failure.
    """
    k = node.kind
    if k == "seq" or k == "paren":
        body = node.children if k == "seq" else node.children[0].children
        for child in body:
            goals = exec_node(child, goals, ctx)
        return goals
    if k == "atomic":
        return _exec_atomic(node.syntax, goals, ctx)  # type: ignore[arg-type]
    if k == "then":
        if not goals:
            raise no_goals_error()
        first, rest = goals[0], goals[1:]
        mids = exec_node(node.children[0], [first], ctx)
        out: list[Goal] = []
        for g in mids:
            out.extend(exec_node(node.children[1], [g], ctx))
        return out + rest
    if k in ("cdot", "brace"):
        # `· tacs` and `{ tacs }` (Lean's `evalTacticCDot`/`evalTacticSeqBracketed`): focus on the main
        # goal, and `closeUsingOrAdmit`: goals left are an error at the `·` (the `}`), and are admitted
        if not goals:
            raise no_goals_error()
        first, rest = goals[0], goals[1:]
        res = exec_node(node.children[0], [first], ctx)
        if res:
            tok = node.arg
            err = TacticError(unsolved_goals_message(res), tok.start, tok.end, recover=True)
            if not ctx.recover:
                raise err
            _log_and_admit(ctx, err, node)
        return rest
    if k == "first":
        last: TacticError | None = None
        for alt in node.children:
            snap = ctx.snapshot()
            saved_recover, ctx.recover = ctx.recover, False
            try:
                return exec_node(alt, goals, ctx)
            except HeartbeatsExceeded:
                raise
            except TacticError as e:
                ctx.restore(snap)
                forget_frames(e)  # kept past its frames: no frame ↔ traceback cycle to collect
                last = e
            finally:
                ctx.recover = saved_recover
        raise last or TacticError("first failed")
    if k == "try":
        snap = ctx.snapshot()
        saved_recover, ctx.recover = ctx.recover, False
        try:
            return exec_node(node.children[0], goals, ctx)
        except HeartbeatsExceeded:
            raise
        except TacticError as e:
            forget_frames(e)
            ctx.restore(snap)
            return goals
        finally:
            ctx.recover = saved_recover
    if k in ("repeat", "repeat'"):
        for _ in range(1000):
            ctx.tick(10)
            snap = ctx.snapshot()
            saved_recover, ctx.recover = ctx.recover, False
            try:
                new = exec_node(node.children[0], goals, ctx)
            except HeartbeatsExceeded:
                raise
            except TacticError as e:
                forget_frames(e)
                ctx.restore(snap)
                return goals
            finally:
                ctx.recover = saved_recover
            if new == goals:
                return goals
            goals = new
            if not goals:
                return goals
        return goals
    if k == "iterate":
        for _ in range(int(node.arg)):
            ctx.tick(1)  # `iterate 10^12` over an empty body still ends
            goals = exec_node(node.children[0], goals, ctx)
        return goals
    if k == "all_goals" or k == "any_goals":
        out = []
        ok = False
        last_err: TacticError | None = None
        for g in goals:
            snap = ctx.snapshot()
            saved_recover = ctx.recover
            if k == "any_goals":
                ctx.recover = False
            try:
                out.extend(exec_node(node.children[0], [g], ctx))
                ok = True
            except HeartbeatsExceeded:
                raise
            except TacticError as e:
                if k == "all_goals":
                    raise
                ctx.restore(snap)
                forget_frames(e)
                last_err = e
                out.append(g)
            finally:
                ctx.recover = saved_recover
        if k == "any_goals" and not ok:
            raise last_err or no_goals_error()
        return out
    if k == "focus":
        # `focus tacs` (Lean's `evalFocus`): run on the main goal alone; the goals it leaves come first
        if not goals:
            raise no_goals_error()
        return exec_node(node.children[0], [goals[0]], ctx) + goals[1:]
    if k == "set_option":
        # Lean's `elabSetOption` tactic (src/Lean/Elab/Tactic/BuiltinTactic.lean): the body runs with the
        # option set. Budgets belong to the caller: `maxHeartbeats` may lower the budget for the body,
        # never raise it (`0`, "no limit", keeps the budget as it is)
        name, value = node.arg
        saved_env, saved_limit, saved_shown = ctx.env, ctx._limit, ctx.max_heartbeats
        ctx.env = ctx.env.extend(options={**ctx.env.options, name: value})
        if name == "maxHeartbeats" and isinstance(value, int) and 0 < value < ctx._limit:
            ctx._limit = ctx.max_heartbeats = value
        try:
            return exec_node(node.children[0], goals, ctx)
        finally:
            ctx.env, ctx._limit, ctx.max_heartbeats = saved_env, saved_limit, saved_shown
    if k == "solve":
        res = exec_node(node.children[0], goals, ctx)
        if res:
            raise TacticError(unsolved_goals_message(res))
        return res
    if k == "case":
        kw, tags = node.arg
        if not goals:
            raise no_goals_error()
        idx = 0
        if kw != "next" and tags and tags[0] != "_":
            for j, g in enumerate(goals):
                if g.tag == tags[0] or (g.tag or "").endswith("." + tags[0]):
                    idx = j
                    break
            else:
                raise TacticError(f"Case tag '{tags[0]}' not found.\n\nThere are no cases to select.")
        g = goals[idx].with_tag(None)
        if kw == "next" and tags:
            g = _rename_inaccessible(g, list(tags))
        elif kw != "next" and len(tags) > 1:
            g = _rename_inaccessible(g, tags[1:])
        rest = goals[:idx] + goals[idx + 1 :]
        res = exec_node(node.children[0], [g], ctx)
        if res:
            err = TacticError(unsolved_goals_message(res), node.start, node.end, recover=True)
            if not ctx.recover:
                raise err
            _log_and_admit(ctx, err, node)
        return rest
    raise TacticError(f"unsupported tactic combinator {k}")


_SIZES: dict[int, tuple[Term, int]] = {}


def term_size(t: Term) -> int:
    """Nodes in ``t``; memoised by object (goals share their hypotheses' terms from step to step)."""
    hit = _SIZES.get(id(t))
    if hit is not None and hit[0] is t:
        return hit[1]
    n = 0
    stack = [t]
    while stack:
        u = stack.pop()
        n += 1
        for c in u:
            if type(c) is tuple:
                stack.append(c)
    if len(_SIZES) >= 65_536:
        _SIZES.clear()
    _SIZES[id(t)] = (t, n)  # the term is kept alive with its id, so an id is never reused while cached
    return n


CONTEXT_FREE_NODES = 256
"""Term nodes of a goal (hypotheses and target) that a tactic may touch for free: a miniF2F goal has tens."""


def context_cost(goal: Goal) -> int:
    """Heartbeats a tactic pays for the goal it works on: one per hypothesis, one per term node past 256.

    Every tactic reads, copies or renames through the local context (``have`` over a shadowed name rewrites
    all of it, about a microsecond per node), so a proof that grows the context (``iterate 5000 have :=
    h``) pays for that growth, while an honest goal of a few dozen nodes pays one heartbeat per hypothesis.
    """
    hyps = goal.hyps
    nodes = _CONTEXT_NODES.get(hyps)  # goals made from one another share their context object
    if nodes is MISS:
        nodes = 0
        for _, t in hyps:
            nodes += term_size(t)
        _CONTEXT_NODES.put(hyps, nodes)
    nodes += term_size(goal.target)
    return len(hyps) + max(0, nodes - CONTEXT_FREE_NODES)


_CONTEXT_NODES = IdentityMemo("tactics.context_nodes", 4096)


def _rename_inaccessible(g: Goal, names: list[str]) -> Goal:
    """Give the last inaccessible locals (``h✝``, shadowed ones) the names ``names`` (``case tag x y =>``)."""
    idxs = g.inaccessible()
    pick = idxs[-len(names) :] if names else []
    for fid, new in zip(pick, names):
        if new != "_":
            g = g.rename(fid, new)
    return g


def _log_and_admit(ctx: TacticContext, err: TacticError, node: Node | TacSyntax | Syn) -> None:
    """Recover from ``err``: log it (at ``node`` when it has no position) and admit the goal with ``sorry``."""
    start = err.start if err.start is not None else node.start
    end = err.end if err.end is not None else node.end
    ctx.messages.append(LogMessage("error", err.message, start, end))
    ctx.synthetic_sorry = True
    ctx.axioms.add("sorryAx")


#: Tactics of the simulator that Lean has only with Mathlib imported (Mathlib's own and Batteries'), and the
#: one that Aesop brings. Without the import Lean does not parse them: ``unknown tactic``, as the REPL's
#: ``unknown_tactic`` transcript records for a name that is no tactic.
MATHLIB_TACTICS = frozenset(
    {
        "abel",
        "cancel_denoms",
        "conv_lhs",
        "conv_rhs",
        "abel!",
        "abel1",
        "abel_nf",
        "aesop_cat",
        "bound",
        "by_contra",
        "by_contra!",
        "cases'",
        "choose",
        "choose!",
        "contrapose",
        "contrapose!",
        "existsi",
        "field_simp",
        "gcongr",
        "have'",
        "hint",
        "induction'",
        "interval_cases",
        "library_search",
        "lift",
        "linear_combination",
        "linarith",
        "linarith!",
        "nlinarith",
        "nlinarith!",
        "norm_num",
        "norm_num1",
        "nth_rewrite",
        "nth_rw",
        "polyrith",
        "positivity",
        "push_neg",
        "qify",
        "refine'",
        "rel",
        "rify",
        "ring",
        "ring!",
        "ring1",
        "ring_nf",
        "ring_nf!",
        "set",
        "simp_rw",
        "unfold_let",
        "use",
        "use!",
        "zify",
        "tauto",
    }
)
AESOP_TACTICS = frozenset({"aesop", "aesop?"})

#: Tactics that Lean core has (so Lean does not answer ``unknown tactic``) and the simulator does not
#: model: a proof using one is outside its subset, said so plainly rather than as Lean's parse error.
UNMODELLED_CORE_TACTICS = frozenset(
    {
        "apply_rfl",
        "bv_decide",
        "bv_omega",
        "decide!",
        "eq_refl",
        "exact?",
        "apply?",
        "rw?",
        "grind",
        "guard_expr",
        "with_reducible",
        "with_reducible_and_instances",
        "with_unfolding_all",
    }
)


def _imported(name: str, ctx: TacticContext) -> bool:
    if name in MATHLIB_TACTICS:
        return ctx.env.mathlib
    if name in AESOP_TACTICS:
        return ctx.env.mathlib or any(i == "Aesop" or i.startswith("Aesop.") for i in ctx.env.imports)
    return True


def _exec_atomic(syn: TacSyntax, goals: list[Goal], ctx: TacticContext) -> list[Goal]:
    name = syn.name
    found = _find_handler(name)
    if found is None and name in UNMODELLED_CORE_TACTICS:
        raise TacticError(f"`{name}` is outside the simulator's Lean subset", syn.start, syn.end)
    if found is None or not _imported(name, ctx):
        raise TacticError("unknown tactic", syn.start, syn.end)
    if not goals:
        if name in ("done", "skip"):
            return []  # Lean's `done` checks that no goal is left, `skip` does nothing
        raise no_goals_error()
    ctx.tick(20 + context_cost(goals[0]))
    if ctx.tactic_log is not None:
        ctx.tactic_log.append((syn.text, tuple(goals), syn.start, syn.end))
    goal, rest = goals[0], goals[1:]
    kind, handler = found
    outer_meter = set_work_meter(ctx.tick)  # polynomial arithmetic pays as it goes
    outer_too_large, ctx.numeral_too_large = ctx.numeral_too_large, False
    frame = SealFrame(name)
    ctx.seal_frames.append(frame)
    try:
        if kind == "ext":
            new = handler(goal, syn.text, ctx)
        else:
            new = handler(goal, syn, ctx)
    except ElabError as elab_err:
        err = TacticError(
            elab_err.message,
            elab_err.start if elab_err.start >= 0 else None,
            elab_err.end if elab_err.end >= 0 else None,
            recover=True,
        )
        if not ctx.recover:
            raise err from elab_err
        _log_and_admit(ctx, err, syn)
        return list(rest)
    except ParseError as parse_err:
        raise TacticError(parse_err.message, parse_err.start, parse_err.end) from parse_err
    except TacticError as tac_err:
        if ctx.numeral_too_large and not isinstance(tac_err, HeartbeatsExceeded):
            # the tactic left a number it could not hold unevaluated, and then failed: say why
            tac_err.reword(numeral_too_large_message(f"a number computed by `{name}`"))
        if tac_err.recover and ctx.recover:
            _log_and_admit(ctx, tac_err, syn)
            return list(rest)
        if tac_err.start is None:
            tac_err.start, tac_err.end = syn.start, syn.end
        raise
    except ArithBudgetExceeded as budget:
        for f in ctx.memo_frames:
            f[1] = MEMO_EXACT
        raise HeartbeatsExceeded(
            timeout_message(int(ctx.max_heartbeats or HARD_HEARTBEAT_CAP)), syn.start, syn.end
        ) from budget
    except NumeralTooLarge as too_large:
        where = f"a number computed by `{name}`"
        raise TacticError(numeral_too_large_message(where), syn.start, syn.end) from too_large
    except TermTooLarge as too_large:
        raise TacticError(str(too_large), syn.start, syn.end) from too_large
    finally:
        set_work_meter(outer_meter)
        ctx.numeral_too_large = outer_too_large
        ctx.seal_frames.pop()
    if not new:
        # only the kernel marks a goal closed: a handler that leaves no goal must have closed its goal there
        how = frame.justification_of(goal)
        if how is None:
            raise KernelRefusal(f"`{name}` left no goal, but the kernel did not close its goal")
        key = (name, how[0])
        SEALED_COUNTS[key] = SEALED_COUNTS.get(key, 0) + 1
        if ctx.seal_frames:  # the calling tactic may cite it, with the justification the kernel checked
            ctx.seal_frames[-1].add(goal, how[0], how[1], frame)
        return list(rest)
    return list(new) + list(rest)


def run_block(
    src: Source, start: int, end: int, goals: list[Goal], ctx: TacticContext, outer_col: int = -1
) -> list[Goal]:
    """Parse and run the tactic block ``src.text[start:end]`` on ``goals``.

    Raises:
        TacticError: on a parse error or the first unrecovered tactic failure.
    """
    try:
        node = parse_block(src, start, end, outer_col)
    except ParseError as e:
        raise TacticError(e.message, e.start, e.end) from e
    ctx.src = src
    return run_node(node, goals, ctx)


def run_node(node: Node, goals: list[Goal], ctx: TacticContext) -> list[Goal]:
    """:func:`exec_node` for a tactic that runs tactics on its goals: when no goal is left, the goals given
    are recorded closed in the calling tactic's frame, so that it may cite them (``Subproof``)."""
    out = exec_node(node, goals, ctx)
    if not out and goals:
        _seal_run(ctx, goals, "run")
    return out


def run_tactic_on_goals(
    goals: Sequence[Goal], text: str, ctx: TacticContext, recover: bool = False
) -> list[Goal]:
    """Run tactic text on a goal list (the first goal is the main goal); return the remaining goals.

    Args:
        goals: The goals, main goal first.
        text: Tactic text: one tactic or a sequence (newlines, ``;``, ``<;>``, ``·``, ``first | … | …``).
        ctx: The context (heartbeats, axioms and sorries accumulate in it).
        recover: ``False`` (the default, what a search such as aesop wants): every failure raises, as
            inside Lean's ``first``. ``True``: elaboration errors are logged in ``ctx.messages`` and the goal
            is admitted, as at the top level of a Lean proof.

    Raises:
        TacticError: with Lean's message when a tactic fails (``HeartbeatsExceeded`` past the budget).
    """
    src, node = parsed_text(text)
    saved_src, saved_recover = ctx.src, ctx.recover
    ctx.recover = recover
    try:
        if isinstance(node, tuple):  # the parse error's message and place (no traceback is kept)
            raise TacticError(*node)
        ctx.src = src
        return run_node(node, list(goals), ctx)
    finally:
        ctx.src, ctx.recover = saved_src, saved_recover


# Tactic texts run on goals from inside the simulator (an aesop rule's tactic, ``bound``'s aesop call, the
# closers a tactic tries) recur: each is parsed once per process, with its source (a parsed block is read,
# never changed). A parsed text of n characters holds about 2,000 + 100·n bytes.
_TEXTS = Memo("tactics.texts", max_entries=20_000, max_bytes=64 << 20)


def parsed_text(text: str) -> tuple[Source, Node | tuple[str, int, int]]:
    """``text`` parsed as a whole tactic block (as :func:`run_block` parses it), or its parse error's
    message, start and end; memoised per process (``tactics.texts``)."""
    on = memo_enabled()
    got = _TEXTS.get(text) if on else MISS
    if got is MISS:
        src = Source(text)
        try:
            got = (src, parse_block(src, 0, len(text)))
        except ParseError as e:
            got = (src, (e.message, e.start, e.end))
        if on:
            _TEXTS.put(text, got, 2000 + 100 * len(text))
    return got


def run_tactic(goal: Goal, tactic_text: str, ctx: TacticContext, recover: bool = False) -> list[Goal]:
    """Run tactic text on one goal; return the remaining goals (``[]`` when it closes the goal).

    See :func:`run_tactic_on_goals` for ``recover``.

    Raises:
        TacticError: with Lean's message when a tactic fails (``HeartbeatsExceeded`` past the budget).
    """
    return run_tactic_on_goals([goal], tactic_text, ctx, recover)


def goal_from_statement(statement: str, ctx: TacticContext | None = None) -> Goal:
    """The goal of a theorem statement written after its name: ``"(x : ℝ) (h : 0 < x) : 0 < x ^ 2"``.

    Raises:
        TacticError: when the statement does not parse or elaborate.
    """

    ctx = ctx or TacticContext()
    src = Source(statement)
    try:
        toks = tokenize(statement, src)
        ts = TokenStream(toks)
        hyps, target = parse_signature(ts, ctx.env, src)
        if ts.tok.kind != "eof":
            raise ts.unexpected("':='")
    except (ParseError, ElabError) as e:
        raise TacticError(e.message) from e
    if target is None:
        raise TacticError("a statement needs a type after ':'")
    return Goal(tuple(hyps), target)


# ------------------------------------------------------------------------------------------ helpers


def parse_term_in(syn: TacSyntax, ts: TokenStream) -> Syn:
    """Parse one term from ``ts`` (a stream over part of ``syn``)."""
    return parse_term(ts, 0)


def elab_prop_in(goal: Goal, term: Syn, ctx: TacticContext) -> Term:
    return ctx.elaborator(goal).elab_prop(term)


# ------------------------------------------------------------------- helpers for the tactic families
# The families (simp, tac_arith, tac_basic, aesop) import this module and register their tactics with
# ``builtin``/``register_tactic``; ``lean_gym/sim/__init__.py`` imports them, so the table is full
# whatever module a caller imports first. Nothing here imports a family.


def _hyp_closes(goal: Goal, target: Term) -> str | None:
    """The id of the newest hypothesis that is the target up to definitional normalisation, or ``None``."""
    c = canon(target)
    for n, t in reversed(goal.hyps):
        if is_prop_type(t) and canon(t) == c:
            return n
    return None


def _parse_location(ts: TokenStream) -> list[str] | None:
    """``at h h' ⊢`` / ``at *`` → names (``"⊢"`` for the target), ``["*"]``, or ``None`` (target only)."""
    if not ts.is_word("at"):
        return None
    ts.advance()
    locs: list[str] = []
    while ts.tok.kind != "eof":
        t = ts.tok
        if t.kind == "ident" or (t.kind == "sym" and t.text in ("⊢", "*")):
            locs.append(t.text)
            ts.advance()
        else:
            break
    return locs


def _location_has_target(locs: list[str] | None) -> bool:
    """Whether the location ``locs`` (:func:`_parse_location`) takes in the target: none given, ``⊢``, or ``*``."""
    return locs is None or "⊢" in locs or locs == ["*"]


def _location_hyps(goal: Goal, locs: list[str] | None) -> list[str]:
    """The hypotheses the location ``locs`` names, in order: every propositional one of ``goal`` for ``at *``,
    else the names given (``⊢`` left out); a name may be unknown (the caller reports it)."""
    return [n for n, _ in goal.props()] if locs == ["*"] else [n for n in (locs or []) if n != "⊢"]


def _map_at(goal: Goal, locs: list[str] | None, fn: Callable[[Term], Term]) -> tuple[Goal, bool]:
    """Apply ``fn`` at ``locs`` (the target, and each named hypothesis); the new goal and whether it changed.

    Raises:
        TacticError: ``unknown hypothesis`` for a name not in the context.
    """
    changed = False
    if locs is None or "⊢" in locs:
        new = fn(goal.target)
        if new != goal.target:
            goal = goal.with_target(new)
            changed = True
    for n in locs or []:
        if n == "⊢":
            continue
        p = goal.hyp(n)
        if p is None:
            raise TacticError(f"unknown hypothesis '{n}'")
        new = fn(p)
        if new != p:
            goal = goal.replace_hyp(n, new)
            changed = True
    return goal, changed
