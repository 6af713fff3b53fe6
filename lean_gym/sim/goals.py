"""Goals: a local context (ordered hypotheses) and a target, printed as Lean prints goal states."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from lean_gym.sim.terms import Term, is_prop_type, pretty

__all__ = ["Goal"]

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True, slots=True)
class Goal:
    """One goal: ``hyps`` is ``((name, type_or_prop), ...)`` in context order, ``target`` what to prove.

    A data goal (``def f : Nat := by …``) has a type as its target. ``tag`` is Lean's case name
    (``pos``, ``neg``, ``inl``, …) or ``None``; ``ascii`` prints ``Nat``/``Int`` instead of ``ℕ``/``ℤ`` (Lean
    without Mathlib). Hypotheses whose name ends in ``✝`` are inaccessible, as in Lean.

    Example:
        >>> from lean_gym.sim.terms import type_term
        >>> x = ("var", "x")
        >>> g = Goal((("x", type_term("ℝ")),), ("=", "ℝ", x, x))
        >>> print(g.pretty())
        x : ℝ
        ⊢ x = x
    """

    hyps: tuple[tuple[str, Term], ...]
    target: Term
    tag: str | None = None
    ascii: bool = False

    def lctx(self) -> dict[str, Term]:
        """Name → type for every accessible local (later shadowing earlier)."""
        return dict(self.hyps)

    def hyp(self, name: str) -> Term | None:
        """The type of the *last* hypothesis called ``name`` (shadowing as in Lean), or ``None``."""
        for n, t in reversed(self.hyps):
            if n == name:
                return t
        return None

    def with_target(self, target: Term) -> Goal:
        return Goal(self.hyps, target, self.tag, self.ascii)

    def with_tag(self, tag: str | None) -> Goal:
        return Goal(self.hyps, self.target, tag, self.ascii)

    def add_hyp(self, name: str, ty: Term) -> Goal:
        """A new goal with ``name : ty`` added last; an older local of that name becomes inaccessible.

        The older local is renamed everywhere it occurs (``x✝``, ``x✝¹``, …), so ``ty`` and later terms that
        say ``name`` mean the new one only.
        """
        g = self.make_room(name)
        return Goal((*g.hyps, (name, ty)), g.target, g.tag, g.ascii)

    def make_room(self, name: str) -> Goal:
        """This goal with any local called ``name`` renamed to a fresh inaccessible name (uses renamed too)."""
        if not any(n == name for n, _ in self.hyps):
            return self
        from lean_gym.sim.terms import subst

        taken = {n for n, _ in self.hyps}
        new = name + "✝"
        i = 0
        while new in taken:
            i += 1
            new = name + "✝" + str(i).translate(_SUPERSCRIPT)
        var = ("var", new)
        hyps = []
        for n, t in self.hyps:
            hyps.append((new if n == name else n, subst(t, name, var)))
        return Goal(tuple(hyps), subst(self.target, name, var), self.tag, self.ascii)

    def replace_hyp(self, name: str, ty: Term) -> Goal:
        """The goal with the last hypothesis ``name`` given the new type ``ty`` (same position)."""
        hyps = list(self.hyps)
        for i in range(len(hyps) - 1, -1, -1):
            if hyps[i][0] == name:
                hyps[i] = (name, ty)
                break
        return Goal(tuple(hyps), self.target, self.tag, self.ascii)

    def remove_hyp(self, name: str) -> Goal:
        hyps = list(self.hyps)
        for i in range(len(hyps) - 1, -1, -1):
            if hyps[i][0] == name:
                del hyps[i]
                break
        return Goal(tuple(hyps), self.target, self.tag, self.ascii)

    def fresh_name(self, base: str = "h", taken: Collection[str] = ()) -> str:
        """A name not used by any hypothesis nor in ``taken`` (``base``, ``base_1``, …)."""
        names = {n for n, _ in self.hyps}
        names.update(taken)
        if base not in names:
            return base
        i = 1
        while f"{base}_{i}" in names:
            i += 1
        return f"{base}_{i}"

    def props(self) -> list[tuple[str, Term]]:
        """The hypotheses that are propositions (not data variables)."""
        return [(n, t) for n, t in self.hyps if is_prop_type(t)]

    def pretty(self) -> str:
        """The goal as Lean shows it: ``case tag``, grouped hypotheses, then ``⊢ target``."""
        lines: list[str] = []
        if self.tag:
            lines.append(f"case {self.tag}")
        at = self.ascii
        i, n = 0, len(self.hyps)
        while i < n:
            name, ty = self.hyps[i]
            names = [name]
            j = i + 1
            while j < n and self.hyps[j][1] == ty:
                names.append(self.hyps[j][0])
                j += 1
            lines.append(f"{' '.join(names)} : {pretty(ty, at)}")
            i = j
        lines.append(f"⊢ {pretty(self.target, at)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.pretty()
