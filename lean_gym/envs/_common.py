"""What the environments share: a base class, resolving a backend, reading theorem records, caching verdicts.

Two rules every lean-gym env follows (a new env gets both by subclassing :class:`TheoremEnv`):

* **Lifecycle.** ``step()`` before the first ``reset()``, or after a step returned ``terminated`` or
  ``truncated``, raises :class:`~lean_gym.errors.ResetNeededError` and changes nothing; call ``reset()``.
  An ended episode is never scored again (gymnasium's rule; vector envs autoreset as gymnasium's do).
  Subclasses call :meth:`TheoremEnv._start_episode` in ``reset``, :meth:`TheoremEnv._require_running` first
  thing in ``step`` (or ``prepare``), and :meth:`TheoremEnv._end_step` with the step's flags.
* **Reset options.** ``reset(options=…)`` takes only the keys in :data:`RESET_OPTIONS`; ``{"index": i}``
  needs an ``int`` in range. :func:`reset_index` checks them (unknown keys get a "did you mean").
"""

from __future__ import annotations

import difflib
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar, cast

import gymnasium as gym
import numpy as np

from lean_gym.backends.base import Backend, CheckResult
from lean_gym.data.theorem import Theorem, statement_problem
from lean_gym.errors import ConfigError, ResetNeededError

__all__ = [
    "RESET_OPTIONS",
    "TheoremEnv",
    "VerdictCache",
    "as_theorem",
    "env_theorems",
    "reset_index",
    "resolve_backend",
]

#: The keys ``reset(options=…)`` takes in a single env.
RESET_OPTIONS: tuple[str, ...] = ("index",)

_CACHEABLE = ("proved", "sorry", "error")  # Lean's own verdicts; timeouts and crashes are retried


def resolve_backend(backend: str | Backend) -> tuple[Backend, bool]:
    """A backend object and whether the caller owns it (and must close it).

    A name becomes a :class:`~lean_gym.backends.LazyBackend`: built at the first check, in the process
    that makes it, so that an env pickles (Ray, RLlib, TorchRL, subprocess vector envs) before its first use.

    Args:
        backend: ``"auto"``, ``"sim"``, ``"sim-repl"``, ``"repl"``, ``"ray:<spec>"`` or a
            :class:`~lean_gym.backends.Backend` instance.
    """
    from lean_gym.backends.lazy import LazyBackend

    if isinstance(backend, str):
        return cast(Backend, LazyBackend(backend)), True
    if isinstance(backend, LazyBackend):  # before the Protocol check, which would read .name and build it
        return cast(Backend, backend), False
    if isinstance(backend, Backend):
        return backend, False
    raise TypeError(
        f"backend must be 'auto', 'sim', 'repl' or a Backend instance, got {type(backend).__name__}"
    )


def as_theorem(obj: Theorem | Mapping[str, Any], i: int = 0) -> Theorem:
    """A :class:`~lean_gym.data.Theorem` from a Theorem, a miniF2F-style dict or a SATP-schema row.

    Dicts go through :func:`lean_gym.data.loaders.theorem_from_row` (a missing ``name`` becomes
    ``theorem_{i}``).

    Args:
        obj: The record.
        i: Its position, for error messages and the default name.
    """
    if isinstance(obj, Theorem):
        problem = statement_problem(obj.formal_statement)
        if problem is not None:
            raise ValueError(f"theorems[{i}] ({obj.name}): formal_statement {problem}")
        return obj
    if not isinstance(obj, Mapping):
        raise TypeError(f"theorems[{i}] must be a Theorem or a dict, got {type(obj).__name__}")
    from lean_gym.data.loaders import theorem_from_row

    row = dict(obj)
    if "formal_statement" in row:
        row.setdefault("name", f"theorem_{i}")
    return theorem_from_row(row, where=f"theorems[{i}]", source="theorems")


def env_theorems(
    source: str | None,
    split: str | None,
    theorems: Sequence[Theorem | Mapping[str, Any]] | None,
    task: str,
) -> list[Theorem]:
    """An env's theorem list: ``theorems`` when given, else :func:`lean_gym.data.load_theorems` of ``source``.

    Args:
        source: Where theorems come from (``None``: ``"sim"``).
        split: The split to load (``None``: ``"train"``).
        theorems: An explicit list of theorems or dicts, used as given.
        task: What the env does with them, for the error on an empty list (``"play"``, ``"prove"``).

    Raises:
        ConfigError: ``theorems`` together with ``source`` or ``split`` (which would select nothing).
        ValueError: a row that is not one theorem header ending in ``:= by`` (the message names it).
    """
    if theorems is not None:
        if source is not None or split:
            raise ConfigError(
                f"pass theorems=[...] or source=/split=, not both: theorems=[...] is used as given, so "
                f"source={source!r} and split={split!r} would be ignored"
            )
        out = [as_theorem(t, i) for i, t in enumerate(theorems)]
    else:
        from lean_gym.data import load_theorems

        out = list(load_theorems(source or "sim", split=split or "train"))
    if not out:
        raise ValueError(f"no theorems to {task} (source={source!r}, split={split!r}); pass theorems=[...]")
    return out


def reset_index(
    options: Mapping[str, Any] | None, n_theorems: int, *, extra_keys: Sequence[str] = ()
) -> int | None:
    """The theorem index ``reset(options=…)`` asks for, or ``None`` to let the env choose.

    Args:
        options: The ``options`` given to ``reset``.
        n_theorems: How many theorems the env has.
        extra_keys: Option keys this env takes besides :data:`RESET_OPTIONS` (it checks their values).

    Raises:
        ConfigError: for options that are not a dict, an unknown key (with a "did you mean"), or an index
            that is not an ``int`` (``"3"``, ``2.5`` and ``True`` are refused, never rounded).
        IndexError: for an index outside ``[0, n_theorems)``.
    """
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise ConfigError(f"reset options must be a dict like {{'index': 0}}, got {type(options).__name__}")
    allowed = (*RESET_OPTIONS, *extra_keys)
    for key in options:
        if key not in allowed:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            known = ", ".join(repr(k) for k in allowed)
            raise ConfigError(f"unknown reset option {key!r}{hint} (this env takes {known})")
    index = options.get("index")
    if index is None:
        return None
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        raise ConfigError(f"options['index'] must be an int, got {type(index).__name__} {index!r}")
    if not 0 <= int(index) < n_theorems:
        raise IndexError(f"options['index'] must be in [0, {n_theorems - 1}], got {int(index)}")
    return int(index)


class VerdictCache:
    """An LRU of Lean's verdicts keyed by (header, code, timeout); only proved/sorry/error are kept."""

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._d: OrderedDict[tuple[str, str, float | None], CheckResult] = OrderedDict()

    def get(self, key: tuple[str, str, float | None]) -> CheckResult | None:
        if self.maxsize <= 0:
            return None
        r = self._d.get(key)
        if r is None:
            self.misses += 1
            return None
        self._d.move_to_end(key)
        self.hits += 1
        return r

    def put(self, key: tuple[str, str, float | None], result: CheckResult) -> None:
        if self.maxsize <= 0 or result.status not in _CACHEABLE:
            return
        self._d[key] = result
        self._d.move_to_end(key)
        while len(self._d) > self.maxsize:
            self._d.popitem(last=False)


ObsT = TypeVar("ObsT")
ActT = TypeVar("ActT")


class TheoremEnv(gym.Env[ObsT, ActT], Generic[ObsT, ActT]):
    """Base of the single-theorem envs: render modes, the current theorem, rendering and closing.

    Subclasses set ``theorems``, ``_index``, ``backend``, ``_owns_backend`` and ``_last_render``.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "render_fps": 1}  # noqa: RUF012
    theorems: list[Theorem]
    _index: int | None
    backend: Backend
    _owns_backend: bool
    _last_render: str
    _done: bool = False

    def _start_episode(self, index: int) -> None:
        """Begin an episode on theorem ``index`` (called by ``reset``)."""
        self._index = index
        self._done = False

    def _require_running(self) -> int:
        """The current theorem's index; raises unless an episode is running (the lifecycle rule above).

        Raises:
            ResetNeededError: before the first ``reset()``, or after the episode ended.
        """
        if self._index is None:
            raise ResetNeededError("call reset() before step()")
        if self._done:
            raise ResetNeededError(
                "the episode is over (a step returned terminated or truncated); call reset() before step()"
            )
        return self._index

    def _end_step(self, terminated: bool, truncated: bool) -> None:
        """Record a step's flags: once either is set, the episode is over until ``reset()``."""
        self._done = bool(terminated or truncated)

    def _check_render_mode(self, render_mode: str | None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}"
            )

    @property
    def theorem(self) -> Theorem | None:
        """The theorem of the current episode (``None`` before the first reset)."""
        return None if self._index is None else self.theorems[self._index]

    def render(self) -> str | None:
        """``"ansi"``: the last step as text; ``"human"`` prints it at each step."""
        if self.render_mode == "ansi":
            return self._last_render
        return None

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        # An unpickled env's backend is its own copy, rebuilt from its recipe in this process (a
        # RayBackend copy shares the actors but never stops them), so this env closes it.
        self._owns_backend = True

    def close(self) -> None:
        """Close the backend when the env created it."""
        if self._owns_backend:
            self.backend.close()
            self._owns_backend = False
        super().close()
