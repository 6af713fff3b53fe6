"""Definitional-equality checks and first-order matching of propositions with metavariables.

The simulator's definitional equality is syntactic equality after a fixed normalisation that mirrors the
reducible unfoldings Lean performs for free: ``a > b`` is ``b < a``, ``a ≥ b`` is ``b ≤ a``, ``a ≠ b`` is
``¬a = b``, ``¬p`` is ``p → False``, and bound variables are compared up to renaming. It never unfolds
arithmetic, so it is *weaker* than Lean's ``isDefEq`` (sound: it only ever equates equal things).

Metavariables are ``("mvar", name)`` nodes; type metavariables are type strings starting with ``?``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from itertools import count
from typing import Any

from lean_gym.sim.terms import ATOM_HEADS, FALSE, Term, numeral_fits, subst

__all__ = ["canon", "defeq", "instantiate", "match", "rename_bound"]

_fresh_ids = count()


@lru_cache(maxsize=1 << 15)
def canon(t: Term) -> Term:
    """The normal form used to compare propositions (see module docstring)."""
    h = t[0]
    if h in ("<", ">") and t[1] in ("ℕ", "ℤ"):
        # on ℕ and ℤ, `a < b` is by definition `a + 1 ≤ b` (Nat.lt, Int.lt)
        a, b = (t[2], t[3]) if h == "<" else (t[3], t[2])
        return ("≤", t[1], _succ(canon(a), t[1]), canon(b))
    if h in (">", "≥"):
        return ("<" if h == ">" else "≤", t[1], canon(t[3]), canon(t[2]))
    return _canon_rest(t, canon)


@lru_cache(maxsize=1 << 15)
def canon_reducible(t: Term) -> Term:
    """:func:`canon` without reading ``a < b`` on ℕ/ℤ as ``a + 1 ≤ b``: that unfolds ``Nat.lt``/``Int.lt``,
    which are not reducible, so simp's matching (up to reducible defeq, indexed by the head symbol) never
    sees a ``<`` as a ``≤``."""
    h = t[0]
    if h in ("<", ">", "≥"):
        a, b = (t[3], t[2]) if h in (">", "≥") else (t[2], t[3])
        return ("≤" if h == "≥" else "<", t[1], canon_reducible(a), canon_reducible(b))
    return _canon_rest(t, canon_reducible)


def _canon_rest(t: Term, rec: Callable[[Term], Term]) -> Term:
    """What :func:`canon` and :func:`canon_reducible` do alike once the order relations are read: ``≠``,
    ``¬``, binders up to renaming and ``Nat.succ``, with ``rec`` (the one of the two that called) below."""
    h = t[0]
    if h == "≠":
        return ("→", ("=", t[1], rec(t[2]), rec(t[3])), FALSE)
    if h == "¬":
        return ("→", rec(t[1]), FALSE)
    if h in ("∀", "∃", "fun"):
        return (h, "", rec(t[2]), rec(_bound_rename(t)))
    if h in ATOM_HEADS:
        return t
    if h == "app":
        if t[1] == ("const", "Nat.succ") and len(t[2]) == 1:
            return _succ(rec(t[2][0]), "ℕ")  # `Nat.succ n` is `n + 1`
        return ("app", rec(t[1]), tuple(rec(a) for a in t[2]))
    return tuple(rec(c) if type(c) is tuple else c for c in t)


def _succ(a: Term, ty: str) -> Term:
    """``a + 1``, folded when ``a`` is a numeral (Lean's literal arithmetic is definitional)."""
    if a[0] == "num" and isinstance(a[2], int) and numeral_fits(a[2] + 1):
        return ("num", ty, a[2] + 1)
    return ("+", ty, a, ("num", ty, 1))


_BOUND_NAMES = [f"#{i}" for i in range(64)]


def _depth(t: Term) -> int:
    # number of enclosing binders in canonical names used inside t (to pick a fresh canonical name)
    best = -1
    stack = [t]
    while stack:
        u = stack.pop()
        if u[0] == "var" and u[1].startswith("#"):
            try:
                best = max(best, int(u[1][1:]))
            except ValueError:
                pass
        elif u[0] == "app":
            stack.append(u[1])
            stack.extend(u[2])
        else:
            for c in u[1:]:
                if type(c) is tuple:
                    stack.append(c)
    return best + 1


def _bound_rename(t: Term) -> Term:
    body = t[3]
    k = _depth(body)
    name = _BOUND_NAMES[k] if k < len(_BOUND_NAMES) else f"#{k}"
    return subst(body, t[1], ("var", name))


def rename_bound(t: Term) -> Term:
    """``t`` with canonical bound-variable names (alpha-normal form)."""
    return canon(t)


def defeq(a: Term, b: Term) -> bool:
    """Whether ``a`` and ``b`` are equal up to the simulator's definitional normalisation."""
    return a == b or canon(a) == canon(b)


def instantiate(t: Term, asg: dict[str, Term | str]) -> Term:
    """``t`` with assigned metavariables (and type metavariables) replaced."""
    if not asg:
        return t
    h = t[0]
    if h == "mvar":
        v = asg.get(t[1])
        if v is None or isinstance(v, str):
            return t
        return instantiate(v, asg)
    if h in ("var", "fvar", "const", "num", "type", "True", "False", "bool", "sorry"):
        if h == "num" and isinstance(t[1], str) and t[1].startswith("?"):
            ty = asg.get(t[1])
            if isinstance(ty, str):
                return ("num", resolve_type_name(ty, asg), t[2])
        if h == "type" and t[1].startswith("?"):
            ty = asg.get(t[1])
            if isinstance(ty, str):
                return ("type", resolve_type_name(ty, asg))
        return t
    if h == "app":
        return ("app", instantiate(t[1], asg), tuple(instantiate(a, asg) for a in t[2]))
    out: list[Any] = []
    for c in t:
        if type(c) is tuple:
            out.append(instantiate(c, asg))
        elif type(c) is str and c.startswith("?") and c in asg and isinstance(asg[c], str):
            out.append(resolve_type_name(c, asg))
        else:
            out.append(c)
    return tuple(out)


def match(
    pat: Term,
    t: Term,
    asg: dict[str, Term | str],
    offsets: bool = False,
    reducible: bool = False,
    flex: frozenset[str] = frozenset(),
) -> bool:
    """First-order matching of ``pat`` (with metavariables) against ``t``; extends ``asg`` on success.

    With ``offsets``, a pattern ``p + k`` over ℕ (``k`` a numeral) also matches a numeral ``m ≥ k``, ``p``
    matching ``m - k``, and a term ``u + k'`` with ``k' ≥ k``, ``p`` matching ``u + (k' - k)``: Lean's
    ``isDefEq`` solves ``?n + 2 =?= 20`` (``isDefEqOffsetNat``), as ``apply`` sees it (Aesop's test
    ``AesopTest/Aesop.lean`` applies ``Even n → Even (n + 2)`` to ``Even 20``) and as simp does (its
    discrimination tree indexes an offset ``n + k`` as a wildcard and leaves it to ``isDefEq``:
    ``simp_all`` rewrites ``a 100`` with ``h : ∀ n, a (n + 2) = …``, SATP's minimal proof of
    mathd_numbertheory_483).

    With ``reducible``, both sides are compared in :func:`canon_reducible` form (simp's matching: a ``<``
    on ℕ/ℤ is never a ``≤``).

    ``flex`` names metavariables of ``t`` that may be assigned too (first-order unification): those of a
    term elaborated with its ``_`` arguments left open (``apply le_trans _ (le_refl _)``, where Lean's
    unifier fixes the argument of ``le_refl`` from the goal). A pattern metavariable already assigned a
    term with metavariables is unified with ``t`` through that term; every assignment passes an occurs
    check. Type metavariables (``?α…`` strings) resolve through chains of such assignments.

    On failure ``asg`` may hold partial assignments: callers pass a copy.
    """
    if reducible:
        return _match(canon_reducible(pat), canon_reducible(t), asg, offsets, canon_reducible, flex)
    if _generic_lt(pat):
        # a `<` whose type is still a metavariable cannot be unfolded to `+ 1 ≤` as ℕ's and ℤ's are:
        # unify it with the term's `<` first, as Lean's unifier does (structurally, before unfolding)
        trial = dict(asg)
        if _match(canon_reducible(pat), canon_reducible(t), trial, offsets, canon_reducible, flex):
            asg.update(trial)
            return True
    return _match(canon(pat), canon(t), asg, offsets, canon, flex)


@lru_cache(maxsize=1 << 14)
def _generic_lt(t: Term) -> bool:
    """Whether ``t`` has a ``<``/``>`` at a type metavariable (a lemma over an ordered type, not applied)."""
    h = t[0]
    if h in ("<", ">") and type(t[1]) is str and t[1].startswith("?"):
        return True
    if h in ATOM_HEADS:
        return False
    if h == "app":
        return _generic_lt(t[1]) or any(_generic_lt(a) for a in t[2])
    return any(_generic_lt(c) for c in t[1:] if type(c) is tuple)


def _match(
    p: Term,
    t: Term,
    asg: dict[str, Term | str],
    offsets: bool = False,
    norm: Any = canon,
    flex: frozenset[str] = frozenset(),
) -> bool:
    if p is t:
        return True
    hp = p[0]
    if flex and t[0] == "mvar" and t[1] in flex:
        if p == t:
            return True
        cur_t = asg.get(t[1])
        if isinstance(cur_t, str):
            return False
        if cur_t is not None:
            return _match(p, norm(cur_t), asg, offsets, norm, flex)
        if hp == "mvar" and asg.get(p[1]) is None:
            asg[p[1]] = t  # two open metavariables: the pattern's now stands for the term's
            return True
        if hp != "mvar":
            if _unassignable(t[1], p, asg):
                return False
            asg[t[1]] = p
            return True
    if offsets and hp == "+" and p[1] == "ℕ" and p[3][0] == "num" and type(p[3][2]) is int:
        k = p[3][2]
        if t[0] == "num" and t[1] == "ℕ":
            m = t[2]
            if type(m) is int and m >= k:
                return _match(p[2], ("num", "ℕ", m - k), asg, offsets, norm, flex)
        elif t[0] == "+" and t[1] == "ℕ" and t[3][0] == "num" and type(t[3][2]) is int and t[3][2] >= k:
            # `?n + 2 =?= x + 5` solves `?n =?= x + 3` (Lean's `isDefEqOffsetNat`)
            rest = t[2] if t[3][2] == k else ("+", "ℕ", t[2], ("num", "ℕ", t[3][2] - k))
            return _match(p[2], rest, asg, offsets, norm, flex)
    if hp == "mvar":
        name = p[1]
        cur = asg.get(name)
        if cur is None:
            if p == t:
                return True
            if _unassignable(name, t, asg):
                return False
            asg[name] = t
            return True
        if isinstance(cur, str):
            return False
        if _has_mvar_node(cur):
            # assigned a term with metavariables of its own (an open argument's): unify through it
            return _match(norm(cur), t, asg, offsets, norm, flex)
        return norm(cur) == t
    if hp != t[0] or len(p) != len(t):
        return False
    if hp == "app":
        if len(p[2]) != len(t[2]):
            return False
        if not _match(p[1], t[1], asg, offsets, norm, flex):
            return False
        return all(_match(a, b, asg, offsets, norm, flex) for a, b in zip(p[2], t[2]))
    for a, b in zip(p[1:], t[1:]):
        if type(a) is tuple:
            if type(b) is not tuple or not _match(a, b, asg, offsets, norm, flex):
                return False
        elif type(a) is str and type(b) is str and (a.startswith("?") or (flex and b in flex)):
            if not _unify_type_names(a, b, asg, flex):
                return False
        elif a != b:
            return False
    return True


def _unify_type_names(a: str, b: str, asg: dict[str, Term | str], flex: frozenset[str]) -> bool:
    """A pattern's type name ``a`` (a type metavariable ``?…`` or a type) against ``t``'s ``b``."""
    a, b = resolve_type_name(a, asg), resolve_type_name(b, asg)
    if a == b:
        return True
    if a.startswith("?") and a not in asg:
        asg[a] = b
        return True
    if flex and b in flex and b not in asg:
        asg[b] = a
        return True
    return False


def resolve_type_name(s: str, asg: dict[str, Term | str]) -> str:
    """``s`` with type-metavariable assignments followed to their end."""
    for _ in range(64):
        if not s.startswith("?"):
            return s
        nxt = asg.get(s)
        if not isinstance(nxt, str) or nxt == s:
            return s
        s = nxt
    return s


def _has_mvar_node(t: Term) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        if u[0] == "mvar":
            return True
        if u[0] == "app":
            stack.append(u[1])
            stack.extend(u[2])
        else:
            for c in u[1:]:
                if type(c) is tuple:
                    stack.append(c)
    return False


def _unassignable(name: str, t: Term, asg: dict[str, Term | str]) -> bool:
    """Whether ``t`` cannot be the value of metavariable ``name``: it mentions a bound variable of the
    enclosing term (``#k``), or ``name`` itself, also through the assignments of its metavariables (the
    occurs check). One pass over ``t``."""
    stack = [t]
    seen: set[str] = set()
    while stack:
        u = stack.pop()
        if u[0] == "var":
            if u[1].startswith("#"):
                return True
        elif u[0] == "mvar":
            if u[1] == name:
                return True
            v = asg.get(u[1])
            if isinstance(v, tuple) and u[1] not in seen:
                seen.add(u[1])
                stack.append(v)
        elif u[0] == "app":
            stack.append(u[1])
            stack.extend(u[2])
        else:
            for c in u[1:]:
                if type(c) is tuple:
                    stack.append(c)
    return False


def fresh_mvar(base: str = "m") -> Term:
    """A new metavariable node."""
    return ("mvar", f"?{base}{next(_fresh_ids)}")
