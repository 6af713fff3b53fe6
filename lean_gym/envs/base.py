"""``TheoremEnv``: the base class of every single-theorem lean-gym env (subclass it to write a new one).

Two rules every lean-gym env follows (a new env gets both by subclassing :class:`TheoremEnv`):

* **Lifecycle.** ``step()`` before the first ``reset()``, or after a step returned ``terminated`` or
  ``truncated``, raises :class:`~lean_gym.errors.ResetNeededError` and changes nothing; call ``reset()``.
  An ended episode is never scored again (gymnasium's rule; vector envs autoreset as gymnasium's do).
  Subclasses call :meth:`TheoremEnv._start_episode` in ``reset``, :meth:`TheoremEnv._require_running` first
  thing in ``step`` (or ``prepare``), and :meth:`TheoremEnv._end_step` with the step's flags.
* **Reset options.** ``reset(options=…)`` takes only the keys in
  :data:`~lean_gym.envs.options.RESET_OPTIONS`; :func:`~lean_gym.envs.options.reset_index` checks them.

A subclass also sets ``theorems`` (:func:`lean_gym.data.records.theorem_list` reads them), ``backend`` and
``_owns_backend`` (:func:`lean_gym.backends.resolve_backend` gives both), and ``_last_render``.

Example:
    >>> from lean_gym.envs import TheoremEnv
    >>> from lean_gym.backends import resolve_backend
    >>> from lean_gym.data.records import theorem_list
    >>> class Countdown(TheoremEnv[str, str]):  # every theorem is "proved" at the third step
    ...     def __init__(self):
    ...         self.theorems = theorem_list(None, None, [{"formal_statement": "theorem t : True := by"}], "play")
    ...         self.backend, self._owns_backend = resolve_backend("sim")
    ...         self._index, self._last_render, self.render_mode = None, "", None
    ...     def reset(self, *, seed=None, options=None):
    ...         super().reset(seed=seed)
    ...         self._start_episode(0)
    ...         self._n = 0
    ...         return "start", {}
    ...     def step(self, action):
    ...         self._require_running()
    ...         self._n += 1
    ...         self._end_step(self._n == 3, False)
    ...         return "obs", float(self._n == 3), self._n == 3, False, {}
    >>> env = Countdown()
    >>> _ = env.reset(seed=0)
    >>> [env.step("x")[2] for _ in range(3)]
    [False, False, True]
    >>> env.step("x")
    Traceback (most recent call last):
      ...
    lean_gym.errors.ResetNeededError: the episode is over (a step returned terminated or truncated); call reset() before step()
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import gymnasium as gym

from lean_gym.backends.base import Backend
from lean_gym.data.theorem import Theorem
from lean_gym.errors import ResetNeededError

__all__ = ["TheoremEnv"]

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
