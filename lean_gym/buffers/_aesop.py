"""The few things the buffers take from :mod:`lean_gym.aesop`, imported lazily.

Reading and writing a buffer needs neither; parsing arms into action vectors, rendering recorded actions and
computing uuids do.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

__all__ = ["ActionCodec", "Layout", "resolve_layout", "uuid16"]


class ActionCodec(Protocol):
    """What the buffers need of an action layout: render a vector, parse a call, the heads' sizes.

    :class:`lean_gym.aesop.Layout` (what ``lean_gym.aesop.layout(name)`` returns) is one.
    """

    @property
    def nvec(self) -> Any: ...

    def render(self, action: Any, lemmas: Any) -> str: ...

    def parse(self, text: str, lemmas: Any) -> np.ndarray: ...


#: The old name of :class:`ActionCodec` (it clashed with :class:`lean_gym.aesop.Layout`).
Layout = ActionCodec


def resolve_layout(layout: str | ActionCodec) -> ActionCodec:
    """A layout object from a name such as ``"satp-v1"``, or the object itself."""
    if isinstance(layout, str):
        from lean_gym.aesop import layout as make_layout

        return make_layout(layout)
    return layout


def uuid16(text: str) -> str:
    """The SATP uuid of a goal state or aesop string (``lean_gym.aesop.uuid16``)."""
    from lean_gym.aesop import uuid16 as _uuid16

    return _uuid16(text)
