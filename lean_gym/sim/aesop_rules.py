"""Aesop's rule base: the builtin rules and the rules an aesop call's clauses add, erase or select.

:func:`elab_rules` turns a parsed call (:mod:`lean_gym.sim.aesop_syntax`) into the :class:`RuleSet` of that
call against one goal, as Aesop's rule elaboration does: builders resolved, rule terms checked, ``(erase …)``
and ``(rule_sets := […])`` applied, each phase sorted as Aesop runs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lean_gym.sim.aesop_syntax import AesopCall, RuleSpec
from lean_gym.sim.goals import Goal
from lean_gym.sim.memo import MISS, IdentityMemo
from lean_gym.sim.memo import enabled as memo_enabled
from lean_gym.sim.tactics import (
    TacticContext,
    TacticError,
)
from lean_gym.sim.terms import (
    user_name,
)

__all__ = ["Rule", "RuleSet", "elab_rules"]

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
    # an apply rule with `(transparency! := default)` or `all`: un-indexed (tried on every goal) and unified
    # at that transparency, so the goal's definitions unfold (AesopTest/ApplyTransparency.lean:29)
    delta: bool = False

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


def elab_rules(call: AesopCall, goal: Goal, ctx: TacticContext) -> RuleSet:
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


# A tactic rule is a function of its clause's spec and position: specs come from the clause memo (the same
# objects from call to call), so the rule object is kept with its spec (a frozen dataclass is slow to build).
_TACTIC_RULES = IdentityMemo("aesop.tactic_rules", 8192)


def _build_rule(spec: RuleSpec, i: int, goal: Goal, ctx: TacticContext, hyp_names: set[str]) -> list[Rule]:
    order = 1000 + i
    if spec.is_tactic:
        on = memo_enabled()
        known = _TACTIC_RULES.get(spec) if on else MISS
        if known is MISS or known.order != order:
            known = Rule(f"(by {spec.term})", spec.phase, spec.priority, "tactic", spec.term, "local", order)
            if on:
                _TACTIC_RULES.put(spec, known)
        return [known]
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
    delta = builder == "apply" and not spec.index_ok and spec.transparency in ("default", "all")
    return [Rule(term, spec.phase, spec.priority, builder, term, "local", order, delta)]


def _is_rewrite(decl: Any) -> bool:
    ty = getattr(decl, "type", None)
    while isinstance(ty, tuple) and ty and ty[0] == "∀":
        ty = ty[3]
    return isinstance(ty, tuple) and bool(ty) and ty[0] in ("=", "↔")
