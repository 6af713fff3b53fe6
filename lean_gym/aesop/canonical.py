"""Canonical text and 16-hex-digit uuids, as SATP's public datasets key goals and aesop configs.

The SATP dataset cards define ``canonical(s)`` as: strip ``--`` line comments, collapse runs of whitespace
(and trim). The uuid is the first 16 hex digits of the sha256 of that text. Three details the cards leave
open are settled here as inferences (marked [I] in ``docs/aesop-env.md``):

* a comment runs from ``--`` to the end of its line (block comments ``/- -/`` are kept);
* a run of whitespace (``str.split()``'s notion: spaces, tabs, newlines, other Unicode spaces) becomes one
  ASCII space, and the result is trimmed at both ends;
* the text is hashed as UTF-8.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["canonical_text", "uuid16"]

_LINE_COMMENT = re.compile(r"--[^\n]*")


def canonical_text(text: str) -> str:
    """``text`` with ``--`` line comments removed and whitespace runs collapsed to one space, trimmed.

    Args:
        text: Any Lean snippet (an aesop call, a goal state).

    Returns:
        The canonical form SATP hashes.

    Example:
        >>> canonical_text("  aesop -- plain\\n    (add safe 1 (by ring))")
        'aesop (add safe 1 (by ring))'
    """
    return " ".join(_LINE_COMMENT.sub("", text).split())


def uuid16(text: str) -> str:
    """First 16 hex digits of sha256 over :func:`canonical_text` of ``text`` (UTF-8).

    The same function keys goals (``uuid_goal``) and aesop strings (``uuid_good_action``) in SATP's buffer.

    Args:
        text: A goal state or an aesop call.

    Returns:
        16 lowercase hex digits.
    """
    return hashlib.sha256(canonical_text(text).encode("utf-8")).hexdigest()[:16]
