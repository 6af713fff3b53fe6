"""How :meth:`TableLayout.parse <lean_gym.aesop.layout.TableLayout.parse>` reads lemma rules back.

Two things make the reading harder than a table lookup, and both come from SATP's own renderer:

* **Names are spliced verbatim.** SATP writes any non-blank lemma name as it is (``_private.Foo.0.bar``,
  ``x.1``, ``foo bar``, even ``a]`` or a name with a newline), so the text between ``(by `` and ``))``
  cannot be cut at brackets or spaces. A rule is matched against the *known* names instead: each host
  template fixes what surrounds its name, so the name's length (hence the name) follows from the body's
  length, and the name must then be one of the goal's lemmas.
* **Repeated names.** With a name at several slots, the slot of each rule is not written. The layout's rule
  order (its sort key) is, so the slots are assigned such that the rules, in the order the text gives them,
  have strictly increasing sort keys: then rendering the result writes the same lines in the same order.
  :func:`assign` finds such an assignment by a bounded depth-first search.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lean_gym.errors import BadActionError

__all__ = ["Candidate", "Template", "assign", "assign_spans", "lemma_spellings"]

# Nodes the slot-assignment search may visit before it gives up (a buffer row has at most a few dozen
# rules; only lemma lists built to be ambiguous come near this).
SEARCH_BUDGET = 20_000
# Pieces one rule may span: a lemma name holding the rule separator up to MAX_SPAN - 1 times.
MAX_SPAN = 8


@dataclass(frozen=True)
class Template:
    """A lemma host (``rw [{L}] at *``) cut at its ``{L}`` holes, for matching a rule's body."""

    text: str
    parts: tuple[str, ...]
    literal: int  # characters outside the holes
    word: str  # the template's first word (``rw``), "" when its text does not start with one

    @classmethod
    def of(cls, text: str) -> Template:
        """The template ``text``, which must contain ``{L}`` at least once."""
        parts = tuple(text.split("{L}"))
        word = parts[0].split(" ", 1)[0] if " " in parts[0] else ""
        return cls(text, parts, sum(len(p) for p in parts), word)

    def name_in(self, body: str) -> str | None:
        """The lemma name ``body`` was made from by filling this template, or ``None``.

        Every hole holds the same name, so ``len(body) = len(literals) + holes·len(name)`` fixes the name's
        length and its first occurrence fixes the name; the whole body is then checked.
        """
        holes = len(self.parts) - 1
        extra = len(body) - self.literal
        if extra <= 0 or extra % holes or not body.startswith(self.parts[0]):
            return None
        start = len(self.parts[0])
        name = body[start : start + extra // holes]
        return name if self.text.replace("{L}", name) == body else None


@dataclass(frozen=True)
class Candidate:
    """One way to read a rule: head ``head`` at ``choice``, whose rendered line sorts at ``key``."""

    head: int
    choice: int
    key: tuple[Any, ...]


def lemma_spellings(
    lemmas: Sequence[object], k: int, guarded: Callable[[str], bool], norm: Callable[[str], str]
) -> dict[str, list[int]]:
    """Each way a rendered rule can spell a slot's lemma, mapped to the slots (ascending) spelled so.

    A slot's lemma is written verbatim (SATP: any name that is not blank) or, by lean-gym's guarded render,
    stripped when the stripped name passes ``guarded``. ``norm`` is applied to every spelling (identity for
    text as rendered, whitespace collapsing for reformatted text).
    """
    out: dict[str, list[int]] = {}
    for i in range(min(k, len(lemmas))):
        raw = lemmas[i]
        if not isinstance(raw, str) or not raw.strip():
            continue
        spellings = {norm(raw)}
        if guarded(raw.strip()):
            spellings.add(norm(raw.strip()))
        for s in spellings:
            out.setdefault(s, []).append(i)
    return out


def assign(rules: Sequence[Sequence[Candidate]], *, ordered: bool) -> list[Candidate] | None:
    """One candidate per rule, no head twice, and (``ordered``) strictly increasing sort keys.

    Ordered, this reproduces the text's line order; unordered (text whose clauses were moved about), it is
    a plain matching of rules to heads.

    Args:
        rules: The readings of each rule, in text order; within a rule, the preferred reading first.
        ordered: Require the keys to increase along the text (the text is in the layout's rule order).

    Returns:
        The chosen candidates, or ``None`` when there is no such assignment.

    Raises:
        BadActionError: The search ran past its budget (a lemma list built to be ambiguous).
    """
    if all(len(r) == 1 for r in rules):  # the common case: no repeated name, nothing to search
        chosen = [r[0] for r in rules]
        if len({c.head for c in chosen}) < len(chosen):
            return None
        if ordered and any(not a.key < b.key for a, b in itertools.pairwise(chosen)):
            return None
        return chosen
    return _in_order(rules) if ordered else _matching(rules)


def _in_order(rules: Sequence[Sequence[Candidate]]) -> list[Candidate] | None:
    """Ordered assignment for keys of the form ``(prefix, head index)``.

    Both SATP layouts sort a rule so, with a prefix that does not depend on the slot (v1: group, level,
    name; v2: kind, type). Along the text the prefixes must not decrease; a run of equal prefixes is a
    *group* whose rules need strictly increasing heads. Rules with one reading are settled first and bound
    their neighbours; :func:`_place` places the others.
    """
    prefixes = []
    for r in rules:
        p = {c.key[:-1] for c in r}
        if not r or len(p) != 1 or any(c.key[-1] != c.head for c in r):
            return _search(rules)  # a layout whose keys are not (prefix, head): fall back to a search
        prefixes.append(p.pop())
    if any(b < a for a, b in itertools.pairwise(prefixes)):
        return None
    # A rule with one reading is settled; it bounds the heads of its group's other rules on either side.
    fixed = {c.head for r in rules if len(r) == 1 for c in r}
    if len(fixed) < sum(1 for r in rules if len(r) == 1):
        return None
    bounds: list[tuple[int, int]] = []
    for i, r in enumerate(rules):
        lo, hi = -1, 1 << 62
        j = i - 1
        while j >= 0 and prefixes[j] == prefixes[i] and len(rules[j]) > 1:
            j -= 1
        if j >= 0 and prefixes[j] == prefixes[i]:
            lo = rules[j][0].head
        j = i + 1
        while j < len(rules) and prefixes[j] == prefixes[i] and len(rules[j]) > 1:
            j += 1
        if j < len(rules) and prefixes[j] == prefixes[i]:
            hi = rules[j][0].head
        if len(r) == 1 and not lo < r[0].head < hi:
            return None
        bounds.append((lo, hi))
    groups: list[list[dict[int, Candidate]]] = []
    where: list[tuple[int, int]] = []  # free rule -> (group, position)
    free = [i for i, r in enumerate(rules) if len(r) > 1]
    for n, i in enumerate(free):
        lo, hi = bounds[i]
        allowed = {c.head: c for c in rules[i] if lo < c.head < hi and c.head not in fixed}
        if not allowed:
            return None
        if n == 0 or prefixes[i] != prefixes[free[n - 1]]:
            groups.append([])
        where.append((len(groups) - 1, len(groups[-1])))
        groups[-1].append(allowed)
    found = _place(groups)
    if found is None:
        return None
    picks = iter(groups[g][pos][found[(g, pos)]] for g, pos in where)
    return [r[0] if len(r) == 1 else next(picks) for r in rules]


def _place(groups: list[list[dict[int, Candidate]]]) -> dict[tuple[int, int], int] | None:
    """Heads for every rule of every group, increasing within a group and never shared, or ``None``.

    A depth-first walk over the heads in ascending order: each head goes to the waiting rule (one per group)
    that must be placed soonest, or, on backtracking, to another or to none. A rule's deadline is the last
    head it can take with the rest of its group still placeable after it; a walk that passes a deadline is
    dead, and dead states are remembered, so no state is explored twice.
    """
    deadline: list[list[int]] = []
    for g in groups:
        d = [0] * len(g)
        nxt = 1 << 62
        for pos in range(len(g) - 1, -1, -1):
            ok = [h for h in g[pos] if h < nxt]
            if not ok:
                return None
            d[pos] = nxt = max(ok)
        deadline.append(d)
    heads = sorted({h for g in groups for step in g for h in step})
    sizes = tuple(len(g) for g in groups)
    dead: set[tuple[int, tuple[int, ...]]] = set()
    got: dict[tuple[int, int], int] = {}

    def walk(i: int, ptr: tuple[int, ...]) -> bool:
        if ptr == sizes:
            return True
        if i == len(heads) or (i, ptr) in dead:
            return False
        h = heads[i]
        if any(p < n and deadline[g][p] < h for g, (p, n) in enumerate(zip(ptr, sizes))):
            return False
        takers = sorted(
            (deadline[g][p], g) for g, (p, n) in enumerate(zip(ptr, sizes)) if p < n and h in groups[g][p]
        )
        for _, g in takers:
            got[(g, ptr[g])] = h
            if walk(i + 1, (*ptr[:g], ptr[g] + 1, *ptr[g + 1 :])):
                return True
        if walk(i + 1, ptr):
            return True
        dead.add((i, ptr))
        if len(dead) > SEARCH_BUDGET:
            raise BadActionError(
                "cannot place the repeated lemma names of this call within the search budget"
            )
        return False

    return got if walk(0, tuple(0 for _ in groups)) else None


def _matching(rules: Sequence[Sequence[Candidate]]) -> list[Candidate] | None:
    """Unordered assignment: a matching of rules to distinct heads (augmenting paths, lowest heads first)."""
    owner: dict[int, int] = {}  # head -> rule

    def augment(i: int, seen: set[int]) -> bool:
        for c in rules[i]:
            if c.head in seen:
                continue
            seen.add(c.head)
            if c.head not in owner or augment(owner[c.head], seen):
                owner[c.head] = i
                return True
        return False

    for i in range(len(rules)):
        if not augment(i, set()):
            return None
    by_rule = {i: h for h, i in owner.items()}
    return [next(c for c in rules[i] if c.head == by_rule[i]) for i in range(len(rules))]


def _search(rules: Sequence[Sequence[Candidate]]) -> list[Candidate] | None:
    """Ordered assignment by bounded depth-first search (for keys that are not ``(prefix, head)``)."""
    used: set[int] = set()
    picked: list[Candidate] = []
    budget = [SEARCH_BUDGET]

    def search(i: int, prev: tuple[Any, ...] | None) -> bool:
        if i == len(rules):
            return True
        for c in rules[i]:
            if c.head in used or (prev is not None and not prev < c.key):
                continue
            budget[0] -= 1
            if budget[0] < 0:
                raise BadActionError(
                    "cannot place the repeated lemma names of this call within the search budget"
                )
            used.add(c.head)
            picked.append(c)
            if search(i + 1, c.key):
                return True
            picked.pop()
            used.discard(c.head)
        return False

    return picked if search(0, None) else None


def assign_spans(n: int, read: Callable[[int, int], list[Candidate]]) -> list[Candidate] | None:
    """Cut ``n`` pieces into consecutive rules and read them, with keys strictly increasing along the text.

    The pieces are the text split at every rule separator; a lemma name that holds the separator spans
    several pieces. ``read(i, j)`` gives the readings of pieces ``i..j-1`` joined back as one rule. The
    common case (every piece one rule) needs no search over the cuts.

    Returns:
        One candidate per rule, or ``None``.

    Raises:
        BadActionError: The search ran past its budget.
    """
    singles = [read(i, i + 1) for i in range(n)]
    if all(singles):
        found = assign(singles, ordered=True)
        if found is not None:
            return found
    budget = [SEARCH_BUDGET]

    def cut(i: int, acc: list[list[Candidate]]) -> list[Candidate] | None:
        if i == n:
            return assign(acc, ordered=True)
        for j in range(i + 1, min(n, i + MAX_SPAN) + 1):
            rule = read(i, j)
            if not rule:
                continue
            budget[0] -= 1
            if budget[0] < 0:
                raise BadActionError("cannot read this call's rules within the search budget")
            found = cut(j, [*acc, rule])
            if found is not None:
                return found
        return None

    return cut(0, [])
