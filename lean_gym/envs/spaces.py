"""``Text`` spaces for Lean source and goal states, and their safe use in async vector envs.

Gymnasium's default ``Text`` charset is alphanumeric, so a goal such as ``x : ℝ ⊢ 0 ≤ x ^ 2`` is outside it
and ``check_env`` fails. :data:`LEAN_CHARSET` is printable ASCII, newline and tab, plus the Unicode blocks
Lean and Mathlib write (Latin-1 and Latin Extended-A letters, Greek, phonetic sub/superscripts, general
punctuation, super/subscripts, letterlike symbols (ℕ ℤ ℚ ℝ ℂ), arrows, mathematical operators, technical
symbols (⌊ ⌋), geometric shapes, dingbats (``✝``, which marks Lean's inaccessible names), the mathematical brackets and arrows blocks (⟨ ⟩ ⦃ ⦄ ⟶), supplemental
operators and the mathematical alphanumerics (𝓝 𝔼 𝟙)), and the replacement character ``�``.

:func:`sanitize_text` maps any other character to ``�`` and cuts text to the space's length (ending it with
``…``), so an observation is always inside its space.

Async vector envs: gymnasium 1.x's ``AsyncVectorEnv(shared_memory=True)`` (its default) reads a plain
``Text`` buffer once, at construction, and returns those blank strings forever after. This module registers
gymnasium's documented extension points (``create_shared_memory`` / ``read_from_shared_memory`` /
``write_to_shared_memory``) for :class:`LeanText`: the buffer holds UTF-8 with a length prefix and the read
returns a live view (as a ``Box`` read returns a NumPy view) that ``deepcopy`` — which ``AsyncVectorEnv``
applies to every observation it returns while ``copy=True``, its default — turns into a tuple of ``str``.
So ``gym.make_vec(..., vectorization_mode="async")`` returns the real strings with default arguments, and
``vector_kwargs={"shared_memory": False}`` (pickled through the pipes) does too.
"""

from __future__ import annotations

import multiprocessing as mp
import re
from collections.abc import Iterator, Sequence
from copy import deepcopy
from types import ModuleType
from typing import Any, overload

import numpy as np
from gymnasium.spaces import Box, MultiDiscrete, Text, Tuple
from gymnasium.vector.utils import (
    batch_space,
    create_shared_memory,
    iterate,
    read_from_shared_memory,
    write_to_shared_memory,
)

__all__ = [
    "LEAN_CHARSET",
    "REPLACEMENT",
    "LeanMultiDiscrete",
    "LeanMultiDiscreteBatch",
    "LeanText",
    "LeanTextBatch",
    "SharedTextBatch",
    "check_multidiscrete_batch",
    "check_text_batch",
    "sanitize_text",
]

REPLACEMENT = "\ufffd"
ELLIPSIS = "…"

# Inclusive code point ranges of the charset (see the module docstring for what each block is for).
_RANGES: tuple[tuple[int, int], ...] = (
    (0x09, 0x0A),  # tab, newline
    (0x20, 0x7E),  # printable ASCII
    (0xA0, 0x17F),  # Latin-1 supplement (« » · × ¬ ¹ ²), Latin Extended-A
    (0x2B0, 0x2FF),  # spacing modifier letters
    (0x370, 0x3FF),  # Greek
    (0x1D00, 0x1DBF),  # phonetic extensions (ᵢ ᵣ ᵀ)
    (0x2000, 0x218F),  # general punctuation (‖ • … ′), super/subscripts, currency, letterlike, number forms
    (0x2190, 0x23FF),  # arrows, mathematical operators, miscellaneous technical (⌊ ⌋ ⌈ ⌉)
    (0x2500, 0x25FF),  # box drawing, block elements, geometric shapes (▸ □)
    (0x2600, 0x26FF),  # miscellaneous symbols (★ ♯ ♭)
    (0x2700, 0x27BF),  # dingbats: ✝, Lean's mark of an inaccessible name (`a✝`), ✓ ✗
    (0x27C0, 0x2BFF),  # math symbols A/B (⟨ ⟩ ⦃ ⦄), supplemental arrows, supplemental operators
    (0x1D400, 0x1D7FF),  # mathematical alphanumeric symbols (𝓝 𝔼 𝟙)
    (ord(REPLACEMENT), ord(REPLACEMENT)),
)
LEAN_CHARSET: frozenset[str] = frozenset(chr(c) for lo, hi in _RANGES for c in range(lo, hi + 1))
_OUTSIDE = re.compile(
    "[^" + "".join(f"{re.escape(chr(lo))}-{re.escape(chr(hi))}" for lo, hi in _RANGES) + "]"
)


def sanitize_text(text: str, max_length: int, charset: frozenset[str] = LEAN_CHARSET) -> str:
    """``text`` inside ``LeanText(max_length, charset=charset)``.

    Characters outside the charset become ``�``; text longer than ``max_length`` is cut and ends with ``…``.

    Args:
        text: Any string (a goal state, a theorem, Lean's messages).
        max_length: The space's maximum length in characters.
        charset: The space's charset; the default uses a fast compiled filter.

    Returns:
        A string of at most ``max_length`` characters, all in ``charset``.
    """
    if charset is LEAN_CHARSET:
        text = _OUTSIDE.sub(REPLACEMENT, text)
    else:
        text = "".join(c if c in charset else REPLACEMENT for c in text)
    if len(text) > max_length:
        text = text[: max_length - 1] + ELLIPSIS if max_length > 0 else ""
    return text


# Gymnasium's ``Text`` derives tables from its charset at construction (``_char_set``, ``_char_list``,
# ``_char_index``, ``_char_str``): for the 4,578 characters of LEAN_CHARSET, 3 ms to build, 4 ms to deep-copy
# (``batch_space`` copies a space once per sub-env) and 160 kB to pickle (an async vector env sends its
# spaces through pipes). No ``Text`` writes them after construction, so every LeanText over one charset
# shares one set, built once by gymnasium itself; a copy shares them, and a pickle carries the charset alone.
_TABLE_PREFIX = "_char_"
_ONE_CHAR = frozenset("a")
_CHAR_TABLES: dict[frozenset[str], dict[str, Any] | None] = {}


def _char_tables(charset: frozenset[str]) -> dict[str, Any] | None:
    """``Text``'s tables for ``charset`` (its ``_char_*`` attributes), or None where they cannot be shared.

    They are shared only where a ``Text`` over any other charset differs in nothing else (checked once per
    charset against a one-character ``Text``), so that a space built with another charset and given these
    tables is the space gymnasium builds.
    """
    if charset in _CHAR_TABLES:
        return _CHAR_TABLES[charset]
    full, one = vars(Text(1, min_length=0, charset=charset)), vars(Text(1, min_length=0, charset=_ONE_CHAR))
    tables: dict[str, Any] | None = {k: v for k, v in full.items() if k.startswith(_TABLE_PREFIX)}
    rest = {k for k in full if not k.startswith(_TABLE_PREFIX) and k != "_np_random"}
    if rest != {k for k in one if not k.startswith(_TABLE_PREFIX) and k != "_np_random"} or any(
        full[k] != one[k] for k in rest
    ):
        tables = None  # this gymnasium derives something else from the charset: build each space in full
    if len(_CHAR_TABLES) < 64:  # a few charsets in practice; bounded all the same
        _CHAR_TABLES[charset] = tables
    return tables


class LeanText(Text):
    """A ``Text`` space over :data:`LEAN_CHARSET` whose empty string is allowed (``min_length=0``).

    Spaces over one charset share the tables gymnasium derives from it (they are never written), so
    building, copying and pickling one costs what a ``Text`` over a few characters costs.

    Args:
        max_length: Maximum length in characters.
        min_length: Minimum length (0: an absent lemma is the empty string).
        charset: Allowed characters.
        seed: Seed for :meth:`sample`.

    Example:
        >>> space = LeanText(64)
        >>> space.contains("x : ℝ\\n⊢ 0 ≤ x ^ 2")
        True
    """

    def __init__(
        self,
        max_length: int,
        *,
        min_length: int = 0,
        charset: frozenset[str] = LEAN_CHARSET,
        seed: int | np.random.Generator | None = None,
    ) -> None:
        tables = _char_tables(charset) if isinstance(charset, frozenset) else None
        if tables is None:
            super().__init__(max_length, min_length=min_length, charset=charset, seed=seed)
        else:
            super().__init__(max_length, min_length=min_length, charset=_ONE_CHAR, seed=seed)
            self.__dict__.update(tables)

    def __deepcopy__(self, memo: dict[int, Any]) -> LeanText:
        """A copy with its own random generator; the charset's tables are shared."""
        new = object.__new__(type(self))
        memo[id(self)] = new
        for k, v in vars(self).items():
            new.__dict__[k] = v if k.startswith(_TABLE_PREFIX) else deepcopy(v, memo)
        return new

    def __getstate__(self) -> dict[str, Any]:
        """The state without the charset's tables: the charset alone (they are rebuilt or shared on load)."""
        state = {k: v for k, v in vars(self).items() if not k.startswith(_TABLE_PREFIX)}
        state["_lean_charset"] = self._char_set
        return state

    def __setstate__(self, state: Any) -> None:
        """Load a pickle of :meth:`__getstate__` (or one of a ``Text``'s whole state)."""
        state = dict(state)
        charset = state.pop("_lean_charset", None)
        if charset is not None:
            tables = _char_tables(charset)
            if tables is None:
                built = vars(Text(1, min_length=0, charset=charset))
                tables = {k: v for k, v in built.items() if k.startswith(_TABLE_PREFIX)}
            state.update(tables)
        super().__setstate__(state)

    def __repr__(self) -> str:
        which = "lean" if self.character_set == LEAN_CHARSET else f"{len(self.character_set)} chars"
        return f"LeanText({self.min_length}, {self.max_length}, charset={which})"


# ------------------------------------------------------------------------------------ shared memory
def _stride(space: Text) -> int:
    return 4 + 4 * space.max_length  # a uint32 byte count, then at most 4 UTF-8 bytes per character


class SharedTextBatch(Sequence[str]):
    """A live view of ``n`` strings in an async vector env's shared buffer (like a NumPy view for ``Box``).

    ``copy.deepcopy`` (what ``AsyncVectorEnv`` returns with ``copy=True``) and :meth:`snapshot` give a plain
    ``tuple[str, ...]``; indexing and iteration read the buffer as it is now.
    """

    def __init__(self, space: Text, shared_memory: Any, n: int) -> None:
        self._space = space
        self._shm = shared_memory
        self._n = n

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> str: ...
    @overload
    def __getitem__(self, i: slice) -> tuple[str, ...]: ...
    def __getitem__(self, i: int | slice) -> str | tuple[str, ...]:
        if isinstance(i, slice):
            return tuple(self._read(k) for k in range(self._n)[i])
        if not -self._n <= i < self._n:
            raise IndexError(f"index {i} out of range for {self._n} strings")
        return self._read(i % self._n)

    def _read(self, k: int) -> str:
        buf = np.frombuffer(self._shm.get_obj(), dtype=np.uint8)
        off = k * _stride(self._space)
        size = int(buf[off : off + 4].view(np.uint32)[0])
        return bytes(buf[off + 4 : off + 4 + size]).decode("utf-8")

    def __iter__(self) -> Iterator[str]:
        return (self._read(k) for k in range(self._n))

    def snapshot(self) -> tuple[str, ...]:
        """The strings as a tuple, copied out of the buffer."""
        return tuple(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return self.snapshot()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (SharedTextBatch, tuple, list)):
            return tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SharedTextBatch({self.snapshot()!r})"


@create_shared_memory.register(LeanText)
def _create_lean_text_shared_memory(space: LeanText, n: int = 1, ctx: ModuleType = mp) -> Any:
    return ctx.Array("B", n * _stride(space))


@read_from_shared_memory.register(LeanText)
def _read_lean_text_from_shared_memory(space: LeanText, shared_memory: Any, n: int = 1) -> SharedTextBatch:
    return SharedTextBatch(space, shared_memory, n)


@write_to_shared_memory.register(LeanText)
def _write_lean_text_to_shared_memory(space: LeanText, index: int, value: str, shared_memory: Any) -> None:
    data = value.encode("utf-8")
    stride = _stride(space)
    buf = np.frombuffer(shared_memory.get_obj(), dtype=np.uint8)
    off = index * stride
    buf[off : off + 4] = np.frombuffer(np.uint32(len(data)).tobytes(), dtype=np.uint8)
    buf[off + 4 : off + 4 + len(data)] = np.frombuffer(data, dtype=np.uint8)


# ------------------------------------------------------------------------------------ vector-env batches
# Gymnasium's AsyncVectorEnv sends each sub-env its action after ``iterate(action_space, actions)``; an
# action the sub-env rejects kills that worker for good, and a batch of the wrong length reaches only some
# workers. So the batched action spaces of lean-gym's spaces check the whole batch in the parent process,
# inside ``iterate``, before anything is sent (SyncVectorEnv goes through the same ``iterate``).


class LeanTextBatch(Tuple):
    """``batch_space(LeanText, n)``: a ``Tuple`` of ``n`` texts whose batches are checked in the parent."""


class LeanMultiDiscrete(MultiDiscrete):
    """A ``MultiDiscrete`` whose vector-env batches are checked in the parent process (see above)."""


class LeanMultiDiscreteBatch(Box):
    """``batch_space(LeanMultiDiscrete, n)``: the usual integer ``Box``, checked in the parent process."""

    nvec: np.ndarray


@batch_space.register(LeanText)
def _batch_lean_text(space: LeanText, n: int = 1) -> LeanTextBatch:
    batched = LeanTextBatch(tuple(deepcopy(space) for _ in range(n)), seed=deepcopy(space.np_random))
    rng = deepcopy(space.np_random)
    batched.seed([int(s) for s in rng.integers(0, int(1e8), n)])
    return batched


@batch_space.register(LeanMultiDiscrete)
def _batch_lean_multidiscrete(space: LeanMultiDiscrete, n: int = 1) -> LeanMultiDiscreteBatch:
    repeats = (n,) + (1,) * space.nvec.ndim
    low = np.tile(space.start, repeats)
    high = low + np.tile(space.nvec, repeats) - 1
    out = LeanMultiDiscreteBatch(low=low, high=high, dtype=space.dtype, seed=deepcopy(space.np_random))
    out.nvec = np.asarray(space.nvec)
    return out


def check_text_batch(actions: Any, n: int) -> None:
    """Raise :class:`~lean_gym.errors.BadActionError` unless ``actions`` is ``n`` strings."""
    from lean_gym.errors import BadActionError

    if isinstance(actions, (str, bytes)) or not isinstance(actions, (Sequence, np.ndarray)):
        raise BadActionError(f"actions must be a sequence of {n} strings, got {type(actions).__name__}")
    if len(actions) != n:
        raise BadActionError(f"actions must be a sequence of {n} strings, got {len(actions)} actions")
    for i, a in enumerate(actions):
        if not isinstance(a, str):
            raise BadActionError(f"env {i}: an action must be a str, got {type(a).__name__}")


def check_multidiscrete_batch(actions: Any, nvec: np.ndarray, n: int) -> np.ndarray:
    """``actions`` as an integer array of shape ``(n, *nvec.shape)`` in range, or :class:`BadActionError`."""
    from lean_gym.errors import BadActionError

    arr = np.asarray(actions)
    want = (n, *nvec.shape)
    if arr.shape != want:
        raise BadActionError(f"actions must have shape {want}, got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise BadActionError(f"actions must hold integers, got dtype {arr.dtype}")
    bad = np.argwhere((arr < 0) | (arr >= nvec))
    if bad.size:
        i, *head = (int(x) for x in bad[0])
        where = head[0] if len(head) == 1 else tuple(head)
        raise BadActionError(
            f"env {i}: head {where} must be in [0, {int(nvec[tuple(head)]) - 1}], got {int(arr[tuple(bad[0])])}"
        )
    return arr


@iterate.register(LeanTextBatch)
def _iterate_lean_text(space: LeanTextBatch, items: Any) -> Iterator[Any]:  # type: ignore[misc]
    check_text_batch(items, len(space.spaces))
    return iter(items)


@iterate.register(LeanMultiDiscreteBatch)
def _iterate_lean_multidiscrete(space: LeanMultiDiscreteBatch, items: Any) -> Iterator[Any]:  # type: ignore[misc]
    return iter(check_multidiscrete_batch(items, space.nvec, space.shape[0]))
