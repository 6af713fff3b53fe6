"""Mathlib's ``choose`` (``Mathlib/Tactic/Choose.lean``): Skolem functions from ``∀ xs, ∃ y, P``.

``choose f hf using h`` with ``h : ∀ x₁ … xₖ, ∃ y, P x y`` adds ``f : X₁ → … → Xₖ → Y`` and
``hf : ∀ x₁ … xₖ, P x (f x₁ … xₖ)``; further names take further ``∃`` (``choose f g h``) and the parts of
an ``∧`` (``choose f h₁ h₂``), the last name takes what is left. Without ``using`` the goal's premise is
introduced first. ``choose!`` drops the proof arguments (``∀ i, i < 7 → ∃ j, …`` gives ``f : ℕ → ℕ``)
and keeps them in the hypotheses. A name may carry its type (``(f : ℕ → ℕ)``), which must be the one
``choose`` makes, up to the simulator's normal form. Plain ``choose`` over a proof argument makes a
dependent function type (``(n m : ℕ) → n < m → ℕ``), and a witness of a type the simulator has no
function type for (a product) is outside its subset.
"""

from __future__ import annotations

from lean_gym.sim.evaluate import fold_literals
from lean_gym.sim.goals import Goal
from lean_gym.sim.proofs import ProofChecker
from lean_gym.sim.syntax import Syn, parse_term
from lean_gym.sim.tactics import TacSyntax, TacticContext, TacticError, builtin
from lean_gym.sim.terms import Term, is_prop_type, pretty, subst
from lean_gym.sim.unify import defeq

_OUTSIDE = "is outside the simulator's subset"


def _parse(syn: TacSyntax) -> tuple[list[tuple[str, Syn | None]], Syn | None]:
    ts = syn.stream(1)
    names: list[tuple[str, Syn | None]] = []
    while ts.tok.kind != "eof" and not ts.is_word("using"):
        if ts.is_sym("("):
            ts.advance()
            name = ts.advance()
            if ts.tok.kind == "sym" and ts.tok.text in ("<", ">", "≤", "≥", "≠", "∈", "∉", "⊆"):
                raise TacticError(
                    "binder predicates like '< n' are not supported by choose; "
                    "use a type annotation like '(h : x < n)' instead",
                    ts.tok.start,
                    ts.tok.end,
                )
            ts.expect_sym(":")
            ty = parse_term(ts, 0)
            ts.expect_sym(")")
            names.append((name.text, ty))
            continue
        tok = ts.advance()
        if tok.kind != "ident":
            raise TacticError(f"unexpected token '{tok.text}'; expected identifier", tok.start, tok.end)
        names.append((tok.text, None))
    src = None
    if ts.is_word("using"):
        ts.advance()
        src = parse_term(ts, 0)
    if ts.tok.kind != "eof":
        raise TacticError(f"unexpected token '{ts.tok.text}'", ts.tok.start, ts.tok.end)
    if not names:
        raise TacticError("choose: expected a name")
    return names, src


@builtin("choose", "choose!")
def _choose(goal: Goal, syn: TacSyntax, ctx: TacticContext) -> list[Goal]:
    names, src = _parse(syn)
    if src is None:
        t = goal.target
        if t[0] != "→" or not is_prop_type(t[1]):
            raise TacticError("choose: the goal has no premise to introduce")
        h, goal = t[1], goal.with_target(t[2])
    else:
        h = ProofChecker(goal, ctx).infer(src)
        if (
            src.kind == "ident"
            and goal.hyp(src.args[0]) is not None
            and not goal.dependents(goal.find(src.args[0]) or "")
        ):
            goal = goal.remove_hyp(src.args[0])
    bang = syn.name == "choose!"
    binders: list[tuple[str, str, Term]] = []  # ("∀", name, type) or ("→", "", premise)
    body = _binders(h, binders, bang, ctx)
    for i, (name, ty_syn) in enumerate(names):
        last = i == len(names) - 1
        data = [(n, ty) for k, n, ty in binders if k == "∀"]
        args = tuple(("var", n) for n, _ in data)
        if body[0] == "∃" and not last:
            wty = body[2]
            if wty[0] != "type":
                raise TacticError(f"`choose` of a witness of type `{pretty(wty)}` {_OUTSIDE}")
            if any(k == "→" for k, _, _ in binders) and wty[1] not in ("ℕ", "ℤ", "ℚ", "ℝ"):
                # choose! needs `Nonempty` of the witness type to drop the proof arguments
                raise TacticError(f"`choose!` of a witness of type `{pretty(wty)}` {_OUTSIDE}")
            fty: Term = wty
            for _, xty in reversed(data):
                fty = ("arrow", xty, fty)
            _check_type(goal, ctx, name, ty_syn, fty)
            goal, f = goal.add_local(name, fty)
            body = _binders(subst(body[3], body[1], ("app", f, args) if args else f), binders, bang, ctx)
            continue
        if body[0] == "∧" and not last:
            part, body = body[1], body[2]
        else:
            part = body
            if not last:
                raise TacticError(f"choose: nothing is left for `{names[i + 1][0]}`")
        hyp = part
        for k, n, ty in reversed(binders):
            hyp = ("∀", n, ty, hyp) if k == "∀" else ("→", ty, hyp)
        _check_type(goal, ctx, name, ty_syn, hyp)
        goal = goal.add_hyp(name, hyp)
    ctx.use_standard_axioms()  # Classical.choice, as Mathlib's `choose` uses it
    return [goal]


def _binders(body: Term, binders: list[tuple[str, str, Term]], bang: bool, ctx: TacticContext) -> Term:
    """Move the leading ``∀ x : X`` (and, for ``choose!``, ``A →``) of ``body`` into ``binders``."""
    while True:
        ctx.tick(1)
        if body[0] == "∀" and not is_prop_type(body[2]):
            if any(n == body[1] for _, n, _ in binders):
                raise TacticError(f"`choose` under a shadowed binder `{body[1]}` {_OUTSIDE}")
            binders.append(("∀", body[1], body[2]))
            body = body[3]
        elif body[0] == "→" and is_prop_type(body[1]):
            if not bang:
                raise TacticError(f"`choose` over a proof argument (a dependent function type) {_OUTSIDE}")
            binders.append(("→", "", body[1]))
            body = body[2]
        else:
            return body


def _check_type(goal: Goal, ctx: TacticContext, name: str, ty_syn: Syn | None, ty: Term) -> None:
    if ty_syn is None:
        return
    el = ctx.elaborator(goal)
    given = el.elab_prop(ty_syn) if is_prop_type(ty) else el.elab_type(ty_syn)
    # Lean checks the written type with `isDefEq` at default transparency, where literal ℕ/ℤ arithmetic
    # reduces (`n > 0 + 0` is `n > 0`: MathlibTest/choose.lean at 112f03d1, line 120)
    if not defeq(given, ty) and not defeq(fold_literals(given, ctx), fold_literals(ty, ctx)):
        raise TacticError(
            # Mathlib's text (MathlibTest/choose.lean at 112f03d1, lines 135 and 147): the type `choose`
            # makes, then the one written
            lambda: (
                f"type mismatch for '{name}'\nhas type\n  {pretty(ty)}\nbut is expected to have type\n  {pretty(given)}"
            ),
            ty_syn.start,
            ty_syn.end,
        )
