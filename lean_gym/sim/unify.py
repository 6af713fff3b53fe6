"""Definitional-equality checks and first-order matching of propositions with metavariables.

The simulator's definitional equality is syntactic equality after a fixed normalisation that mirrors the
reducible unfoldings Lean performs for free: ``a > b`` is ``b < a``, ``a ≥ b`` is ``b ≤ a``, ``a ≠ b`` is
``¬a = b``, ``¬p`` is ``p → False``, and bound variables are compared up to renaming. It never unfolds
arithmetic, so it is *weaker* than Lean's ``isDefEq`` (sound: it only ever equates equal things).

Metavariables are ``("mvar", name)`` nodes; type metavariables are type strings starting with ``?``.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import count
from typing import Any

from lean_gym.sim.terms import FALSE, Term, numeral_fits, subst

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
    if h == "≠":
        return ("→", ("=", t[1], canon(t[2]), canon(t[3])), FALSE)
    if h == "¬":
        return ("→", canon(t[1]), FALSE)
    if h in ("∀", "∃", "fun"):
        return (h, "", canon(t[2]), canon(_bound_rename(t)))
    if h in ("var", "fvar", "const", "num", "type", "True", "False", "bool", "sorry", "mvar"):
        return t
    if h == "app":
        if t[1] == ("const", "Nat.succ") and len(t[2]) == 1:
            return _succ(canon(t[2][0]), "ℕ")  # `Nat.succ n` is `n + 1`
        return ("app", canon(t[1]), tuple(canon(a) for a in t[2]))
    return tuple(canon(c) if type(c) is tuple else c for c in t)


@lru_cache(maxsize=1 << 15)
def canon_reducible(t: Term) -> Term:
    """:func:`canon` without reading ``a < b`` on ℕ/ℤ as ``a + 1 ≤ b``: that unfolds ``Nat.lt``/``Int.lt``,
    which are not reducible, so simp's matching (up to reducible defeq, indexed by the head symbol) never
    sees a ``<`` as a ``≤``."""
    h = t[0]
    if h in ("<", ">", "≥"):
        a, b = (t[3], t[2]) if h in (">", "≥") else (t[2], t[3])
        return ("≤" if h == "≥" else "<", t[1], canon_reducible(a), canon_reducible(b))
    if h == "≠":
        return ("→", ("=", t[1], canon_reducible(t[2]), canon_reducible(t[3])), FALSE)
    if h == "¬":
        return ("→", canon_reducible(t[1]), FALSE)
    if h in ("∀", "∃", "fun"):
        return (h, "", canon_reducible(t[2]), canon_reducible(_bound_rename(t)))
    if h in ("var", "fvar", "const", "num", "type", "True", "False", "bool", "sorry", "mvar"):
        return t
    if h == "app":
        if t[1] == ("const", "Nat.succ") and len(t[2]) == 1:
            return _succ(canon_reducible(t[2][0]), "ℕ")
        return ("app", canon_reducible(t[1]), tuple(canon_reducible(a) for a in t[2]))
    return tuple(canon_reducible(c) if type(c) is tuple else c for c in t)


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
                return ("num", ty, t[2])
        if h == "type" and t[1].startswith("?"):
            ty = asg.get(t[1])
            if isinstance(ty, str):
                return ("type", ty)
        return t
    if h == "app":
        return ("app", instantiate(t[1], asg), tuple(instantiate(a, asg) for a in t[2]))
    out: list[Any] = []
    for c in t:
        if type(c) is tuple:
            out.append(instantiate(c, asg))
        elif type(c) is str and c.startswith("?") and c in asg and isinstance(asg[c], str):
            out.append(asg[c])
        else:
            out.append(c)
    return tuple(out)


def match(
    pat: Term, t: Term, asg: dict[str, Term | str], offsets: bool = False, reducible: bool = False
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

    On failure ``asg`` may hold partial assignments: callers pass a copy.
    """
    if reducible:
        return _match(canon_reducible(pat), canon_reducible(t), asg, offsets, canon_reducible)
    return _match(canon(pat), canon(t), asg, offsets)


def _match(p: Term, t: Term, asg: dict[str, Term | str], offsets: bool = False, norm: Any = canon) -> bool:
    if p is t:
        return True
    hp = p[0]
    if offsets and hp == "+" and p[1] == "ℕ" and p[3][0] == "num" and type(p[3][2]) is int:
        k = p[3][2]
        if t[0] == "num" and t[1] == "ℕ":
            m = t[2]
            if type(m) is int and m >= k:
                return _match(p[2], ("num", "ℕ", m - k), asg, offsets, norm)
        elif t[0] == "+" and t[1] == "ℕ" and t[3][0] == "num" and type(t[3][2]) is int and t[3][2] >= k:
            # `?n + 2 =?= x + 5` solves `?n =?= x + 3` (Lean's `isDefEqOffsetNat`)
            rest = t[2] if t[3][2] == k else ("+", "ℕ", t[2], ("num", "ℕ", t[3][2] - k))
            return _match(p[2], rest, asg, offsets, norm)
    if hp == "mvar":
        name = p[1]
        cur = asg.get(name)
        if cur is None:
            if _has_bound(t):
                return False
            asg[name] = t
            return True
        if isinstance(cur, str):
            return False
        return norm(cur) == t
    if hp != t[0] or len(p) != len(t):
        return False
    if hp == "app":
        if len(p[2]) != len(t[2]):
            return False
        if not _match(p[1], t[1], asg, offsets, norm):
            return False
        return all(_match(a, b, asg, offsets, norm) for a, b in zip(p[2], t[2]))
    for a, b in zip(p[1:], t[1:]):
        if type(a) is tuple:
            if type(b) is not tuple or not _match(a, b, asg, offsets, norm):
                return False
        elif type(a) is str and a.startswith("?") and type(b) is str:
            cur = asg.get(a)
            if cur is None:
                asg[a] = b
            elif cur != b:
                return False
        elif a != b:
            return False
    return True


def _has_bound(t: Term) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        if u[0] == "var":
            if u[1].startswith("#"):
                return True
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
