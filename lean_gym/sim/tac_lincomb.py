"""Mathlib's ``linear_combination`` (``Mathlib/Tactic/LinearCombination.lean``), over ℕ ℤ ℚ ℝ.

``linear_combination e`` reads ``e`` as a combination of proofs (hypotheses, lemma applications) and
terms: a proof ``h : L R' R`` (``R'`` one of ``= ≤ <``) contributes ``L`` and ``R``, a term ``c`` stands for
``c = c``. The combination is built by the rules Mathlib's ``expandLinearCombo`` has: ``+`` of two
proofs, ``-`` and negation of an equation, a term times a proof (an inequality only by a coefficient
proved non-negative), a proof divided by a term; a product or quotient of two proofs is refused
("supports only linear operations"). For an equation goal ``a = b`` and the combination ``L = R`` the
normaliser (``ring1`` by default) must prove ``a - b - (L - R) = 0`` (over ℕ, ``a + R = b + L``); for an
inequality goal ``a ≤ b`` (or ``<``) ``a - b - (L - R)`` must be a numeral of the right sign.
``(exp := n)`` raises the goal's difference to the ``n``-th power; ``(norm := skip)`` leaves the goal
that the normaliser would have closed, and ``(norm := ring1)``/``(norm := ring)`` are the default.
Other normalisers are outside the simulator's subset.
"""

from __future__ import annotations

from dataclasses import dataclass

from lean_gym.sim.arith import ArithBudgetExceeded, Poly
from lean_gym.sim.elab import ElabError, syn_text
from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import Decided, close
from lean_gym.sim.proofs import ProofChecker
from lean_gym.sim.syntax import Syn, parse_term
from lean_gym.sim.tac_arith import DOMAIN, Conv, _sign, poly_to_term
from lean_gym.sim.tactics import TacSyntax, TacticContext, TacticError, builtin
from lean_gym.sim.terms import NUM_RANK, Term, is_prop_type, mk_num

_LINEAR_ONLY = "'linear_combination' supports only linear operations"
_STRENGTH = {"=": 0, "≤": 1, "<": 2}


@dataclass(frozen=True)
class _Piece:
    """A proof of ``lhs rel rhs`` (``rel`` in ``= ≤ <``), or a term (``rel`` is ``None``: ``lhs = rhs``)."""

    rel: str | None
    lhs: Poly
    rhs: Poly


def _as_relation(p: Term, ty: str) -> tuple[str, Term, Term] | None:
    h = p[0]
    if h in ("=", "≤", "<") and p[1] == ty:
        return h, p[2], p[3]
    if h in ("≥", ">") and p[1] == ty:
        return ("≤" if h == "≥" else "<"), p[3], p[2]
    return None


# Mathlib's lemma for `c op h` (the constant on the left) and `h op c` (on the right), each applied as
# `lemma h c` (Mathlib/Tactic/LinearCombination.lean, expandLinearCombo)
_CONST_LEFT = {"+": "add_const_eq", "-": "sub_const_eq", "*": "mul_const_eq", "/": "div_const_eq"}
_CONST_RIGHT = {"+": "add_eq_const", "-": "sub_eq_const", "*": "mul_eq_const", "/": "div_eq_const"}


class _Combination:
    def __init__(self, goal: Goal, ctx: TacticContext, ty: str) -> None:
        self.goal = goal
        self.ctx = ctx
        self.ty = ty
        self.conv = Conv(ty, "ring", ctx)

    def proof(self, syn: Syn) -> _Piece | None:
        """``syn`` as a proof of a relation at the goal's type, or ``None`` when it is a term."""
        if syn.kind == "ident":
            name = syn.args[0]
            p = self.goal.hyp(name)
            if p is None and self.ctx.lookup(name) is None:
                return None
            if p is not None and not is_prop_type(p):
                return None
        elif syn.kind not in ("app", "proj"):
            return None
        try:
            prop = ProofChecker(self.goal, self.ctx).infer(syn)
        except (ElabError, TacticError):
            if syn.kind == "ident":
                raise
            return None
        rel = _as_relation(prop, self.ty)
        if rel is None:
            raise TacticError(f"linear_combination: `{syn.args[0] if syn.kind == 'ident' else 'term'}` is not "
                              f"an equation or inequality at {self.ty}")  # fmt: skip
        return _Piece(rel[0], self.conv.poly(rel[1]), self.conv.poly(rel[2]))

    def term(self, syn: Syn) -> tuple[Poly, Term]:
        t = self.ctx.elaborator(self.goal).elab_arith(syn, self.ty)
        return self.conv.poly(t), t

    def expand(self, syn: Syn) -> _Piece:
        self.ctx.tick(1)
        k = syn.kind
        if k == "paren":
            return self.expand(syn.args[0])
        if k == "neg":
            p = self.expand(syn.args[0])
            if p.rel not in (None, "="):
                raise TacticError(_LINEAR_ONLY)
            return _Piece(p.rel, -p.lhs, -p.rhs)
        if k == "binop" and syn.args[0] in ("+", "-", "*", "/"):
            op, a_syn, b_syn = syn.args
            self._check_coefficient_type(op, a_syn, b_syn)
            a, b = self.expand(a_syn), self.expand(b_syn)
            if op in ("+", "-"):
                if op == "-" and b.rel not in (None, "="):
                    raise TacticError(_LINEAR_ONLY)
                rel = _join(a.rel, b.rel)
                if op == "+":
                    return _Piece(rel, a.lhs + b.lhs, a.rhs + b.rhs)
                return _Piece(rel, a.lhs - b.lhs, a.rhs - b.rhs)
            if a.rel is not None and b.rel is not None:
                raise TacticError(_LINEAR_ONLY)
            if op == "/":
                if b.rel is not None or self.ty not in ("ℚ", "ℝ"):
                    raise TacticError(_LINEAR_ONLY)
                return self._scale(a, b_syn, inverse=True)
            proof, coeff_syn = (a, b_syn) if a.rel is not None else (b, a_syn)
            if proof.rel is None:
                c = a.lhs * b.lhs
                return _Piece(None, c, c)
            return self._scale(proof, coeff_syn, inverse=False)
        piece = self.proof(syn)
        if piece is not None:
            return piece
        c, _ = self.term(syn)
        return _Piece(None, c, c)

    def _check_coefficient_type(self, op: str, a_syn: Syn, b_syn: Syn) -> None:
        """Lean's error for a coefficient ascribed a type that does not coerce to the goal's, next to a hypothesis.

        Mathlib's ``expandLinearCombo`` turns ``c * h`` into ``mul_const_eq h c`` (``h * c`` into
        ``mul_eq_const h c``, and so on for ``+ - /``); elaborating that application fails on ``c``
        (``MathlibTest/linear_combination.lean`` at f16a9c0e7528, line 327).
        """
        for coeff, other, lemma in ((a_syn, b_syn, _CONST_LEFT[op]), (b_syn, a_syn, _CONST_RIGHT[op])):
            while coeff.kind == "paren":
                coeff = coeff.args[0]
            if coeff.kind != "ascr" or coeff.args[1].kind != "ident" or other.kind != "ident":
                continue
            cty = coeff.args[1].args[0]
            if cty not in NUM_RANK or self.ty not in NUM_RANK or NUM_RANK[cty] <= NUM_RANK[self.ty]:
                continue  # the same type, or one Lean coerces to the goal's (`↑(2 : ℕ)` at ℤ): no error
            piece = self.proof(other)
            if piece is None or piece.rel != "=":
                continue
            c = syn_text(coeff.args[0])
            raise TacticError(
                f"Application type mismatch: The argument\n  {c}\nhas type\n  {cty}\nbut is expected to have "
                f"type\n  {self.ty}\nin the application\n  Mathlib.Tactic.LinearCombination.{lemma} "
                f"{other.args[0]} {c}"
            )

    def _scale(self, p: _Piece, coeff_syn: Syn, inverse: bool) -> _Piece:
        c, t = self.term(coeff_syn)
        if inverse:
            c = self.conv.inv(t)
        if p.rel is None:
            return _Piece(None, p.lhs * c, p.rhs * c)
        rel = p.rel
        if rel != "=":
            s = _sign(t, self.goal, self.ctx)
            if s not in ("pos", "nonneg"):
                raise TacticError(lambda: f"could not establish the nonnegativity of {_show(t)}")
            if s == "nonneg":
                rel = "≤"
        return _Piece(rel, p.lhs * c, p.rhs * c)


def _join(a: str | None, b: str | None) -> str | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if _STRENGTH[a] >= _STRENGTH[b] else b


def _show(t: Term) -> str:
    from lean_gym.sim.terms import pretty

    return pretty(t)


def _parse_options(syn: TacSyntax) -> tuple[str, int, Syn | None]:
    ts = syn.stream(1)
    norm, exp = "ring1", 1
    while ts.is_sym("(") and ts.peek().kind == "ident" and ts.peek().text in ("norm", "exp"):
        ts.advance()
        key = ts.advance().text
        ts.expect_sym(":=")
        if key == "exp":
            tok = ts.advance()
            if tok.kind != "num" or not tok.text.isdigit() or int(tok.text) < 1:
                raise TacticError("linear_combination: `exp` takes a positive numeral", tok.start, tok.end)
            exp = int(tok.text)
        else:
            start = ts.tok
            depth = 0
            parts: list[str] = []
            while not (depth == 0 and ts.is_sym(")")) and ts.tok.kind != "eof":
                if ts.is_sym("("):
                    depth += 1
                elif ts.is_sym(")"):
                    depth -= 1
                parts.append(ts.advance().text)
            norm = " ".join(parts)
            if norm not in ("ring1", "ring", "skip"):
                raise TacticError(
                    f"`linear_combination (norm := {norm})` is outside the simulator's subset", start.start
                )
        ts.expect_sym(")")
    expr = None if ts.tok.kind == "eof" else parse_term(ts, 0)
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    return norm, exp, expr


@builtin("linear_combination", "linear_combination'", "linear_combination2")
def _linear_combination(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    if syn.name != "linear_combination":
        raise TacticError(f"`{syn.name}` is outside the simulator's subset")
    norm, exp, expr = _parse_options(syn)
    t = goal.target
    rel = _as_relation(t, t[1]) if t[0] in ("=", "≤", "<", "≥", ">") and t[1] in DOMAIN else None
    if rel is None:
        raise TacticError("linear_combination: the goal is not an equation or inequality at ℕ, ℤ, ℚ or ℝ")
    ty = t[1]
    comb = _Combination(goal, ctx, ty)
    piece = comb.expand(expr) if expr is not None else _Piece(None, Poly.zero(), Poly.zero())
    goal_rel, a, b = rel
    if goal_rel == "=" and piece.rel not in (None, "="):
        raise TacticError("linear_combination: an inequality cannot prove an equation")
    if goal_rel != "=" and exp != 1:
        raise TacticError("linear_combination (exp := n) works on equations only")
    ctx.use_standard_axioms()
    try:
        pa, pb = comb.conv.poly(a), comb.conv.poly(b)
        diff = (pa - pb) ** exp - (piece.lhs - piece.rhs)
    except ArithBudgetExceeded:
        raise TacticError("ring failed, ring expressions not equal") from None
    if goal_rel == "=":
        if norm == "skip":
            return [_skip_goal(goal, ty, pa, pb, exp, piece)]
        if diff.is_zero():
            return close(goal, Decided("linear_combination"), ctx)
        raise TacticError(lambda: _not_equal(goal, ty, diff))
    if norm == "skip":
        raise TacticError(
            "`linear_combination (norm := skip)` on an inequality is outside the simulator's subset"
        )
    if not diff.is_const():
        raise TacticError(lambda: _not_equal(goal, ty, diff, "≤", " up to an additive constant"))
    c = diff.const_value()
    strict = goal_rel == "<" and piece.rel != "<"
    if c < 0 or (c == 0 and not strict):
        return close(goal, Decided("linear_combination"), ctx)
    raise TacticError(lambda: _larger(goal, ty, c, strict))


def _skip_goal(goal: Goal, ty: str, pa: Poly, pb: Poly, exp: int, piece: _Piece) -> Goal:
    """What ``(norm := skip)`` leaves: ``(a - b) ^ n - (L - R) = 0`` (the simulator's terms for each side)."""
    lhs = poly_to_term((pa - pb) ** exp - (piece.lhs - piece.rhs), ty)
    return goal.with_target(("=", ty, lhs, mk_num(ty, 0)))


def _not_equal(goal: Goal, ty: str, diff: Poly, rel: str = "=", tail: str = "") -> str:
    g = goal.with_target((rel, ty, poly_to_term(diff, ty), mk_num(ty, 0)))
    return f"ring failed, ring expressions not equal{tail}\n{g.pretty()}"


def _larger(goal: Goal, ty: str, c: object, strict: bool) -> str:
    g = goal.with_target(("<" if strict else "≤", ty, mk_num(ty, c), mk_num(ty, 0)))  # type: ignore[arg-type]
    return f"comparison failed, LHS is larger\n{g.pretty()}"
