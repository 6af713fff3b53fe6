"""The families' lemma retriever: a lexical retriever over the simulator's built-in library.

:func:`retrieve_lemmas` gives each generated theorem its ``context_lemmas`` and ``context_lemma_scores`` (the
shape of SATP's retrieval fields); :func:`lemma_available` tells a generator whether the library has a lemma.
"""

from __future__ import annotations

import math
import random
import re
from functools import lru_cache
from typing import Any

from lean_gym.sim.terms import pretty, user_name

__all__ = ["lemma_available", "retrieve_lemmas"]


@lru_cache(maxsize=1)
def _library_texts() -> tuple[tuple[str, str, frozenset[str]], ...]:
    try:
        from lean_gym.sim.library import library_decls
    except ImportError:
        return ()
    out = []
    for name, d in sorted(library_decls().items()):
        if getattr(d, "kind", "theorem") not in ("theorem", "axiom"):
            continue
        text = _decl_text(d)
        out.append((name, text, frozenset(_tokens(text) | _name_tokens(name))))
    return tuple(out)


def lemma_available(name: str) -> bool:
    """Whether the built-in library has a theorem or axiom ``name``."""
    return any(n == name for n, _, _ in _library_texts())


def _decl_text(d: Any) -> str:
    parts = []
    for b in getattr(d, "binders", ()):
        try:
            parts.append(f"({user_name(b[0])} : {pretty(b[1])})")
        except (IndexError, TypeError):
            continue
    try:
        parts.append(": " + pretty(d.type))
    except (AttributeError, TypeError):
        pass
    return " ".join(parts)


_TOKEN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_'.]*|[0-9]+|[^\sA-Za-z0-9_()]")


def _tokens(text: str) -> set[str]:
    toks = set(_TOKEN_RE.findall(text))
    # variable names carry no signal between a goal and a lemma statement
    return {
        t
        for t in toks
        if not (len(t) <= 2 and t.isalpha() and t.islower()) and t not in ("h₀", "h₁", "h₂", ":")
    }


_NAME_WORDS = {
    "abs": "|",
    "dvd": "∣",
    "mod": "%",
    "div": "/",
    "mul": "*",
    "add": "+",
    "sub": "-",
    "pow": "^",
    "neg": "-",
    "le": "≤",
    "lt": "<",
    "sq": "^",
    "two": "2",
    "zero": "0",
    "one": "1",
    "eq": "=",
}


def _name_tokens(name: str) -> set[str]:
    out: set[str] = set()
    for w in re.split(r"[._]", name):
        if w in _NAME_WORDS:
            out.add(_NAME_WORDS[w])
    return out


def retrieve_lemmas(
    goal_text: str, k: int = 8, must_include: str | None = None, noise: float = 0.0, seed: int = 0
) -> tuple[list[str], list[float]]:
    """A simple lexical retriever over the built-in library: top ``k`` lemmas by token overlap.

    The score is the cosine of the token sets (operators, constants, symbols; short variable names
    ignored) between the goal and the lemma statement plus words of its name (``abs`` → ``|``), plus a
    seeded uniform jitter of at most ``noise`` (real retrievers are noisy, and so that the
    useful lemma lands on every rank: they use 0.8), min–max normalised over the top ``k`` as SATP's retriever does. Ties break by name. When ``must_include``
    (the lemma a goal needs) falls outside the top ``k``, it replaces the last one, keeping its own score,
    so the useful lemma is always among the candidates but not always first.

    Args:
        goal_text: The goal state text.
        k: How many lemmas.
        must_include: A lemma name that must be among the results.

    Returns:
        Lemma names and their scores (non-increasing, in [0, 1]).
    """
    lib = _library_texts()
    if not lib:
        return [], []
    gt = _tokens(goal_text)
    jitter = random.Random(seed)
    scored = []
    for name, _text, toks in lib:
        inter = len(gt & toks)
        denom = math.sqrt(max(len(gt), 1) * max(len(toks), 1))
        scored.append((inter / denom + noise * jitter.random(), name))
    scored.sort(key=lambda s: (-s[0], s[1]))
    top = scored[:k]
    if must_include is not None and all(n != must_include for _, n in top):
        own = next((s for s in scored if s[1] == must_include), None)
        if own is not None:
            top = [*top[: k - 1], own]
            top.sort(key=lambda s: (-s[0], s[1]))
    hi = max(s for s, _ in top)
    lo = min(s for s, _ in top)
    span = hi - lo
    scores = [round((s - lo) / span, 4) if span > 0 else 1.0 for s, _ in top]
    return [n for _, n in top], scores
