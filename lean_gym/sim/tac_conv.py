"""Conversion mode (``conv => …``, Mathlib's ``conv_lhs``/``conv_rhs``): the part the simulator models.

Lean core's ``conv`` (``Lean/Elab/Tactic/Conv/Basic.lean``) focuses on a subterm of the target, rewrites
it with conversion tactics, puts the result back with ``Eq.mpr`` and ends with ``try (with_reducible rfl)``.
Mathlib's ``conv_lhs => cs`` is ``conv => lhs; cs`` and ``conv_rhs`` likewise (``Mathlib/Tactic/Conv.lean``).

Modelled: the navigation ``lhs``, ``rhs``, ``arg i`` (the ``i``-th explicit argument, 1-based), ``enter [i, …]``
and ``skip``; the rewriting ``ring_nf``, Mathlib's conv ``ring`` (``first | discharge => ring1 | try_this
ring_nf``: a ring identity becomes ``True``, anything else is ``ring_nf``'d with a ``Try this: ring_nf``
note, as ``MathlibTest/ring.lean`` records at e22e28d7071c, lines 111-132), and ``norm_num``. Any other
conversion (``rw``, ``simp``, ``ext``, ``intro``, ``pattern``, ``conv at h``, ``conv in p``) is said to be
outside the simulator's subset rather than guessed.
"""

from __future__ import annotations

from lean_gym.sim.goals import Goal
from lean_gym.sim.kernel import Refl, close_from
from lean_gym.sim.polyconv import RING_TYPES
from lean_gym.sim.simp import SimpSet, simp_term
from lean_gym.sim.tac_arith import ring_equal, ring_nf_term
from lean_gym.sim.tactics import LogMessage, Node, TacSyntax, TacticContext, TacticError, builtin, parse_block
from lean_gym.sim.terms import TRUE, Term

__all__: list[str] = []

_BINARY = frozenset({"+", "-", "*", "/", "%", "^", "=", "≠", "<", "≤", ">", "≥", "∣"})


def _outside(what: str, syn: TacSyntax | None = None) -> TacticError:
    s, e = (syn.start, syn.end) if syn is not None else (None, None)
    return TacticError(f"`{what}` inside `conv` is outside the simulator's Lean subset", s, e)


def _child(t: Term, i: int, syn: TacSyntax) -> tuple[Term, tuple[int, ...]]:
    """``arg i`` on ``t``: the subterm and its position (indices into the tuple)."""
    h = t[0]
    if h in _BINARY and i in (1, 2):
        return t[1 + i], (1 + i,)
    if h in ("∧", "∨", "↔", "→") and i in (1, 2):
        return t[i], (i,)
    if h in ("neg", "inv", "abs") and i == 1:
        return t[2], (2,)
    if h == "¬" and i == 1:
        return t[1], (1,)
    if h == "app" and 1 <= i <= len(t[2]):
        return t[2][i - 1], (2, i - 1)
    raise TacticError(
        f"invalid 'arg' conv tactic, application has only {_arity(t)} (nondependent) argument(s)",
        syn.start,
        syn.end,
    )


def _arity(t: Term) -> int:
    h = t[0]
    if h in _BINARY or h in ("∧", "∨", "↔", "→"):
        return 2
    if h in ("neg", "inv", "abs", "¬"):
        return 1
    if h == "app":
        return len(t[2])
    return 0


def _replace(t: Term, path: list[tuple[int, ...]], new: Term) -> Term:
    if not path:
        return new
    step, rest = path[0], path[1:]
    if len(step) == 1:
        k = step[0]
        return (*t[:k], _replace(t[k], rest, new), *t[k + 1 :])
    args = list(t[2])
    args[step[1]] = _replace(args[step[1]], rest, new)
    return ("app", t[1], tuple(args))


def _focus(t: Term, path: list[tuple[int, ...]]) -> Term:
    for step in path:
        t = t[step[0]] if len(step) == 1 else t[2][step[1]]
    return t


def _ring_nf(e: Term, ctx: TacticContext) -> Term:
    new = ring_nf_term(e, ctx)
    if new == e:
        raise TacticError("ring_nf failed")
    return new


def _run_conv(node: Node, target: Term, path: list[tuple[int, ...]], ctx: TacticContext) -> Term:
    if node.kind == "seq":
        for child in node.children:
            target = _run_conv(child, target, path, ctx)
        return target
    if node.kind != "atomic" or node.syntax is None:
        raise _outside(node.kind)
    syn = node.syntax
    name = syn.name
    ts = syn.stream(1)
    e = _focus(target, path)
    ctx.tick(5)
    if name in ("lhs", "rhs"):
        if _arity(e) < 2:
            raise TacticError(
                f"invalid '{name}' conv tactic, application has only {_arity(e)} (nondependent) argument(s)",
                syn.start,
                syn.end,
            )
        _, step = _child(e, 1 if name == "lhs" else _arity(e), syn)
        path.append(step)
    elif name == "arg":
        tok = ts.tok
        if tok.kind != "num":
            raise _outside(syn.text, syn)
        _, step = _child(e, int(tok.text), syn)
        path.append(step)
    elif name == "enter":
        if not ts.is_sym("["):
            raise TacticError("unexpected token; expected '['", syn.start, syn.end)
        ts.advance()
        while ts.tok.kind == "num":
            _, step = _child(_focus(target, path), int(ts.tok.text), syn)
            path.append(step)
            ts.advance()
            if ts.is_sym(","):
                ts.advance()
        if not ts.is_sym("]"):
            raise _outside(syn.text, syn)
    elif name == "skip":
        pass
    elif name == "ring_nf":
        target = _replace(target, path, _ring_nf(e, ctx))
    elif name == "ring":
        if e[0] == "=" and e[1] in RING_TYPES and ring_equal(e[2], e[3], e[1], ctx):
            target = _replace(target, path, TRUE)  # `discharge => ring1`
        else:
            target = _replace(target, path, _ring_nf(e, ctx))
            ctx.messages.append(LogMessage("info", "Try this: ring_nf", syn.start, syn.end))
    elif name == "norm_num":
        new = simp_term(e, SimpSet(ctx, default=True, eval_fields=True), {})
        if new == e:
            raise TacticError("norm_num failed to simplify", syn.start, syn.end)
        target = _replace(target, path, new)
    else:
        raise _outside(name, syn)
    return target


@builtin("conv", "conv_lhs", "conv_rhs")
def _conv(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    toks = syn.toks
    arrow = next((i for i, t in enumerate(toks) if t.kind == "sym" and t.text == "=>"), None)
    if arrow is None:
        raise TacticError("unexpected end of input; expected '=>'", syn.end, syn.end)
    if arrow != 1:
        raise _outside(syn.src.text[toks[1].start : toks[arrow - 1].end], syn)  # `conv at h`, `conv in p`
    if arrow + 1 >= len(toks):
        raise TacticError("unexpected end of input; expected conv tactic", syn.end, syn.end)
    body = toks[arrow + 1]
    node = parse_block(syn.src, body.start, syn.end, toks[0].col if body.first else -1)
    path: list[tuple[int, ...]] = []
    target = goal.target
    if syn.name != "conv":
        if _arity(target) != 2 or target[0] not in _BINARY:
            raise TacticError(
                f"invalid '{syn.name[5:]}' conv tactic, application has only {_arity(target)} (nondependent) argument(s)"
            )
        path.append((2,) if syn.name == "conv_lhs" else (3,))
    new = _run_conv(node, target, path, ctx)
    ctx.use_standard_axioms()
    out = goal.with_target(new)
    h = new[0]
    # `try (with_reducible rfl)`: sides equal as written (reducible unfolding does not see `x * 1 = x`)
    if (h in ("=", "≤", "≥") and new[2] == new[3]) or (h == "↔" and new[1] == new[2]):
        return close_from(goal, out, Refl(), ctx)
    return [out]
