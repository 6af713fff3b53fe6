"""Goals: a local context (ordered hypotheses) and a target, printed as Lean prints goal states."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from lean_gym.sim.memo import request_scoped
from lean_gym.sim.terms import (
    FVAR_SEP,
    Term,
    canonical_id,
    free_vars,
    fvar_serial,
    is_prop_type,
    new_fvar,
    pretty,
    rename_remembered,
    subst,
    user_name,
)

__all__ = ["Goal", "canonical_goal"]

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True, slots=True)
class Goal:
    """One goal: ``hyps`` is ``((id, type_or_prop), ...)`` in context order, ``target`` what to prove.

    Each local's ``id`` is unique (see :func:`~lean_gym.sim.terms.new_fvar`; terms refer to it as
    ``("fvar", id)``) and carries the local's user name. A name written by the user resolves to the *last*
    local of that user name, as in Lean; an older local of the same name stays in the context with its own
    id, and only its display changes (``x✝``). A data goal (``def f : Nat := by …``) has a type as its
    target. ``tag`` is Lean's case name (``pos``, ``neg``, ``inl``, …) or ``None``; ``ascii`` prints
    ``Nat``/``Int`` instead of ``ℕ``/``ℤ`` (Lean without Mathlib). Locals whose user name ends in ``✝`` are
    inaccessible, as in Lean.

    Example:
        >>> from lean_gym.sim.terms import new_fvar, type_term
        >>> x = new_fvar("x")
        >>> g = Goal(((x, type_term("ℝ")),), ("=", "ℝ", ("fvar", x), ("fvar", x)))
        >>> print(g.pretty())
        x : ℝ
        ⊢ x = x
    """

    hyps: tuple[tuple[str, Term], ...]
    target: Term
    tag: str | None = None
    ascii: bool = False

    def find(self, name: str) -> str | None:
        """The id of the local ``name`` refers to: an id itself, or the last local with that user name."""
        hyps = self.hyps
        if FVAR_SEP in name:
            for n, _ in hyps:
                if n == name:
                    return n
            return None
        prefix = name + FVAR_SEP
        for i in range(len(hyps) - 1, -1, -1):
            n = hyps[i][0]
            if n.startswith(prefix) or n == name:
                return n
        return None

    def var(self, name: str) -> Term | None:
        """The term ``("fvar", id)`` of the local ``name`` refers to, or ``None``."""
        fid = self.find(name)
        return None if fid is None else ("fvar", fid)

    def lctx(self) -> dict[str, Term]:
        """User name → type for every local (the last of a name shadowing earlier ones)."""
        return {user_name(n): t for n, t in self.hyps}

    def fvars(self) -> dict[str, str]:
        """User name → id for every local (the last of a name shadowing earlier ones)."""
        return {user_name(n): n for n, _ in self.hyps}

    def hyp(self, name: str) -> Term | None:
        """The type of the local ``name`` refers to (see :meth:`find`), or ``None``."""
        hyps = self.hyps
        if FVAR_SEP in name:
            for n, t in hyps:
                if n == name:
                    return t
            return None
        prefix = name + FVAR_SEP
        for i in range(len(hyps) - 1, -1, -1):
            n = hyps[i][0]
            if n.startswith(prefix) or n == name:
                return hyps[i][1]
        return None

    def with_target(self, target: Term) -> Goal:
        return Goal(self.hyps, target, self.tag, self.ascii)

    def with_tag(self, tag: str | None) -> Goal:
        return Goal(self.hyps, self.target, tag, self.ascii)

    def add_hyp(self, name: str, ty: Term) -> Goal:
        """A new goal with a fresh local of user name ``name`` and type ``ty`` added last.

        An older local of that name stays what it is (same id, so nothing that mentions it changes) and
        becomes inaccessible by name.
        """
        return Goal((*self.hyps, (new_fvar(name), ty)), self.target, self.tag, self.ascii)

    def add_local(self, name: str, ty: Term) -> tuple[Goal, Term]:
        """Like :meth:`add_hyp`, also returning the new local's term ``("fvar", id)``."""
        fid = new_fvar(name)
        return Goal((*self.hyps, (fid, ty)), self.target, self.tag, self.ascii), ("fvar", fid)

    def make_room(self, name: str) -> Goal:
        """This goal unchanged: a new local never captures an older one of the same name (ids are unique),
        so there is nothing to rename; the older one is only *shown* ``name✝``. Kept for callers."""
        return self

    def replace_hyp(self, name: str, ty: Term) -> Goal:
        """The goal with the local ``name`` refers to given the new type ``ty`` (same id, same position)."""
        fid = self.find(name)
        hyps = list(self.hyps)
        for i in range(len(hyps) - 1, -1, -1):
            if hyps[i][0] == fid:
                hyps[i] = (fid, ty)
                break
        return Goal(tuple(hyps), self.target, self.tag, self.ascii)

    def remove_hyp(self, name: str) -> Goal:
        """The goal without the local ``name`` refers to (callers check that nothing depends on it)."""
        fid = self.find(name)
        return Goal(tuple(h for h in self.hyps if h[0] != fid), self.target, self.tag, self.ascii)

    def dependents(self, fid: str) -> list[str]:
        """Ids of the locals whose type mentions local ``fid`` (in context order)."""
        return [n for n, t in self.hyps if n != fid and fid in free_vars(t)]

    def rename(self, fid: str, name: str) -> Goal:
        """The goal with local ``fid`` given the user name ``name``: a new id, substituted everywhere.

        Capture-free by construction: ids are unique, so the substitution can only hit ``fid``.
        """
        new = new_fvar(name)
        var = ("fvar", new)
        hyps = tuple((new if n == fid else n, subst(t, fid, var)) for n, t in self.hyps)
        return Goal(hyps, subst(self.target, fid, var), self.tag, self.ascii)

    def inaccessible(self) -> list[str]:
        """Ids of the locals no name can reach (``h✝`` or shadowed by a newer local), in context order."""
        nm = self.display_names()
        return [n for n, _ in self.hyps if nm[n] != user_name(n) or nm[n].endswith("✝")]

    def fresh_name(self, base: str = "h", taken: Collection[str] = ()) -> str:
        """A user name not used by any local nor in ``taken`` (``base``, ``base_1``, …)."""
        names = {user_name(n) for n, _ in self.hyps}
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

    def display_names(self) -> dict[str, str]:
        """Id → the name Lean shows: the user name, or ``x✝``, ``x✝¹``, … for inaccessible and shadowed ones.

        As Lean's ``sanitizeNames``: the newest inaccessible local of a base name shows ``x✝``, older ones
        ``x✝¹``, ``x✝²``, …
        """
        out: dict[str, str] = {}
        seen: set[str] = set()
        counts: dict[str, int] = {}
        for n, _ in reversed(self.hyps):
            u = user_name(n)
            if u.endswith("✝") or u in seen:
                base = u.rstrip("✝")
                k = counts.get(base, 0)
                counts[base] = k + 1
                out[n] = base + "✝" + (str(k).translate(_SUPERSCRIPT) if k else "")
            else:
                seen.add(u)
                out[n] = u
        return out

    def pretty(self) -> str:
        """The goal as Lean shows it: ``case tag``, grouped hypotheses, then ``⊢ target``."""
        lines: list[str] = []
        if self.tag:
            lines.append(f"case {self.tag}")
        at = self.ascii
        nm = self.display_names()
        i, n = 0, len(self.hyps)
        while i < n:
            name, ty = self.hyps[i]
            names = [nm[name]]
            j = i + 1
            while j < n and self.hyps[j][1] == ty:
                names.append(nm[self.hyps[j][0]])
                j += 1
            lines.append(f"{' '.join(names)} : {pretty(ty, at, nm)}")
            i = j
        lines.append(f"⊢ {pretty(self.target, at, nm)}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.pretty()


# ------------------------------------------------------------------------------ canonical forms (memo keys)
# A tactic's answer depends on a goal's locals only through their user names, their types and the order in
# which they were made (ids of one user name compare in that order, see ``terms.SERIAL_DIGITS``), never on
# the serials themselves. So goals that differ only by an order-preserving renaming of their locals get the
# same answer, and a memo table can key on a canonical renaming: the k-th oldest local becomes ``name␀c<k>``.


_HYPS_CANON: dict[int, tuple[tuple[tuple[str, Term], ...], tuple[tuple[str, Term], ...], dict[str, str]]] = {}
request_scoped(_HYPS_CANON.clear)


def canonical_goal(goal: Goal) -> tuple[Goal, dict[str, str]]:
    """``goal`` with its locals renamed canonically, and the renaming (local id → canonical id; shared
    between calls: do not change it).

    Goals made from one another share their context (``with_target``), so the renamed context is
    remembered by the context object.
    """
    hyps = goal.hyps
    hit = _HYPS_CANON.get(id(hyps))
    if hit is not None and hit[0] is hyps:
        chyps, ren = hit[1], hit[2]
    else:
        ids = [n for n, _ in hyps if FVAR_SEP in n]
        ids.sort(key=fvar_serial)
        ren = {fid: canonical_id(fid, k) for k, fid in enumerate(ids)}
        chyps = tuple((ren.get(n, n), rename_remembered(t, ren)) for n, t in hyps)
        if len(_HYPS_CANON) >= 4096:
            _HYPS_CANON.clear()
        _HYPS_CANON[id(hyps)] = (hyps, chyps, ren)  # kept alive with its id: the id is never reused
    return Goal(chyps, rename_remembered(goal.target, ren), goal.tag, goal.ascii), ren
