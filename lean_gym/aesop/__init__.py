"""Aesop action layouts: ``MultiDiscrete`` actions ⇄ canonical ``aesop`` calls, and SATP's uuids.

Example:
    >>> import numpy as np
    >>> from lean_gym.aesop import layout
    >>> v1 = layout("satp-v1")
    >>> a = v1.default_action(); a[5] = 4          # norm_num as a safe rule, level 4
    >>> print(v1.render(a, ["sq_nonneg"]))
      aesop
        (add safe 1 (by norm_num))
    >>> bool((v1.parse(v1.render(a)) == a).all())
    True
"""

from __future__ import annotations

from collections.abc import Callable

from lean_gym.aesop.canonical import canonical_text, uuid16
from lean_gym.aesop.distill import best_static_action, best_static_record, search_best_static
from lean_gym.aesop.layout import HeadSpec, Layout, RuleChoice, TableLayout, is_lean_ident
from lean_gym.aesop.satp import satp_v1, satp_v2

__all__ = [
    "LAYOUTS",
    "HeadSpec",
    "Layout",
    "RuleChoice",
    "TableLayout",
    "best_static_action",
    "best_static_record",
    "canonical_text",
    "is_lean_ident",
    "layout",
    "search_best_static",
    "uuid16",
]

LAYOUTS: dict[str, Callable[[], TableLayout]] = {
    "satp-v1": satp_v1,
    "satp-v2": satp_v2,
    "satp-v2-181": lambda: satp_v2(hosts=20),
}
_CACHE: dict[str, TableLayout] = {}


def layout(name: str | Layout) -> Layout:
    """The layout called ``name`` (built once and shared; layouts are immutable in use).

    Args:
        name: ``"satp-v1"``, ``"satp-v2"`` (Lean v4.27: 19 lemma hosts, 172 lemma choices) or
            ``"satp-v2-181"`` (Lean v4.26: 20 hosts, the last ``positivity [L]``; SATP's published proofs).
            The v2 layout goes with the Lean version of the workspace, and of the buffer or policy read
            with it. A :class:`Layout` object is returned as is, so environments accept custom layouts.

    Raises:
        ValueError: for an unknown name (the message lists the known ones).
    """
    if not isinstance(name, str):
        if isinstance(name, Layout):
            return name
        raise TypeError(f"layout must be a name or a Layout, got {type(name).__name__}")
    if name not in LAYOUTS:
        raise ValueError(f"unknown aesop layout {name!r}; known layouts: {', '.join(LAYOUTS)}")
    if name not in _CACHE:
        _CACHE[name] = LAYOUTS[name]()
    return _CACHE[name]
