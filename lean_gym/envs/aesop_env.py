"""``LeanAesop-v0`` / ``LeanAesopV2-v0``: choose an aesop configuration per goal; Lean (or the simulator) decides.

One step renders the action to a canonical ``aesop`` call (:mod:`lean_gym.aesop`), puts it under the
theorem's statement in place of the proof and asks the backend whether that proves it: +1 when the verdict
is ``proved`` (no error, no sorry), −1 otherwise. See ``docs/aesop-env.md``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.spaces import Box, Dict, Tuple
from gymnasium.vector.utils import concatenate, create_empty_array

from lean_gym.aesop import Layout, uuid16
from lean_gym.aesop import layout as get_layout
from lean_gym.backends.base import DEFAULT_TIMEOUT_S, Backend, CheckRequest, CheckResult
from lean_gym.backends.cache import VerdictCache
from lean_gym.backends.lazy import resolve_backend
from lean_gym.data.records import theorem_list
from lean_gym.data.theorem import Theorem, split_statement
from lean_gym.envs.base import TheoremEnv
from lean_gym.envs.options import reset_index
from lean_gym.envs.spaces import LeanMultiDiscrete, LeanText, sanitize_text
from lean_gym.envs.vector import PooledVectorEnv
from lean_gym.errors import BadActionError, ResetNeededError

__all__ = [
    "DEFAULT_MAX_HEARTBEATS",
    "DEFAULT_SOURCE",
    "GOAL_MAX_CHARS",
    "HISTORY_MAX_CHARS",
    "LEMMA_MAX_CHARS",
    "THEOREM_MAX_CHARS",
    "LeanAesopEnv",
    "LeanAesopVectorEnv",
    "PreparedAesopCall",
]

GOAL_MAX_CHARS = 8192
THEOREM_MAX_CHARS = 8192
LEMMA_MAX_CHARS = 512
HISTORY_MAX_CHARS = 16384
DEFAULT_MAX_HEARTBEATS = 200_000
"""Heartbeats per check: Lean's default ``maxHeartbeats``, the budget SATP's checks ran under."""
DEFAULT_SOURCE = "satp-minif2f"
"""The default theorem set: SATP's 92 miniF2F-test theorems, each proved on Lean by an aesop call (SATP's).

Its figures mean something about Lean: every theorem is real (miniF2F-test's own statement), Lean proved
every one with an aesop config, and SATP's figures on Lean are measured on the same benchmark. The
simulator's synthetic families (``source="sim"``, the default until issue 21) stay reachable by name; they are
generated goals built to exercise the search, not a measurement of Lean. See ``docs/aesop-env.md``.
"""


# ------------------------------------------------------------------------------------------ helpers
def _unit_scores(raw: Sequence[float], n: int) -> np.ndarray:
    """Scores in [0, 1]: kept when already there (SATP min-max normalises per goal), else min-max scaled."""
    sc = np.zeros(n, dtype=np.float32)
    vals = np.nan_to_num(np.asarray(raw, dtype=np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    if vals.size and (vals.min() < 0.0 or vals.max() > 1.0):
        span = vals.max() - vals.min()
        vals = (vals - vals.min()) / span if span > 0 else np.ones_like(vals)
    sc[: vals.size] = vals
    return sc


@dataclass(frozen=True)
class PreparedAesopCall:
    """One step's work before the verdict (:meth:`LeanAesopEnv.prepare`): the rendered call and its check.

    Attributes:
        tactic: The canonical aesop call the action renders to.
        code: The theorem with that call as its proof (and the heartbeat budget line), as checked.
        header: The theorem's header.
    """

    tactic: str
    code: str
    header: str

    @property
    def request(self) -> CheckRequest:
        """The one check this step needs."""
        return CheckRequest(self.code, self.header)


@dataclass(frozen=True)
class _StaticObs:
    goal: str
    theorem: str
    lemmas: tuple[str, ...]
    scores: np.ndarray
    goal_uuid: str
    statement_head: str  # the statement through its final `:= by`


# ------------------------------------------------------------------------------------------ env
class LeanAesopEnv(TheoremEnv[dict[str, Any], np.ndarray]):
    """Pick an aesop configuration for a goal; reward +1 when it proves the theorem, −1 otherwise.

    Observation (a ``Dict``): ``goal`` (the goal state), ``theorem`` (the statement), ``lemmas`` (a ``Tuple`` of
    ``layout.num_lemmas`` texts, ``""`` where the theorem has fewer context lemmas), ``lemma_scores``
    (``Box`` of the same length, 0 where absent) and, only when ``max_attempts > 1``, ``history`` (the
    tactics tried so far in this episode with their verdicts). Texts are :class:`~lean_gym.envs.spaces.LeanText`
    and are sanitised to its charset and cut to its length, so observations are always in the space.

    Action: ``MultiDiscrete(layout.nvec)`` (``satp-v1``: 40 heads, ``[5]*36 + [2]*4``).

    ``info`` after a step: ``tactic``, ``action_uuid``, ``goal_uuid`` (SATP uuids), ``status``, ``backend``
    (which backend decided: never pass a simulated verdict off as Lean's), ``elapsed_s``, ``messages``
    (Lean's messages, cut to ``max_message_chars``), ``name`` and ``attempt``.

    Identical checks (same header, code and timeout) are answered from an LRU cache of Lean's verdicts
    (``cache_size``; timeouts and crashes are never cached); ``elapsed_s`` is then the original check's
    time. This also makes a seeded step reproducible, as ``check_env`` demands.

    Args:
        layout: A layout name (``"satp-v1"``, ``"satp-v2"``, ``"satp-v2-181"``) or a :class:`~lean_gym.aesop.Layout`.
            The v2 layout goes with the Lean version: ``satp-v2`` is v4.27, ``satp-v2-181`` v4.26 (its 20th
            lemma host is ``positivity [L]``).
        backend: ``"auto"`` (real Lean when a built workspace is found, else the simulator, with a warning),
            ``"sim"``, ``"repl"`` or a Backend instance (not closed by the env).
        source: Where theorems come from: ``"satp-minif2f"`` (the default, :data:`DEFAULT_SOURCE`: SATP's
            92 Lean-proved miniF2F-test theorems, split 46/46 into ``train`` and ``test``), ``"sim"`` (the
            simulator's synthetic goal families, 300 per split), a miniF2F JSONL path, a SATP-schema
            parquet/JSONL path or a Hugging Face dataset name (see :func:`lean_gym.data.load_theorems`).
        split: The split to load (``"train"``, ``"test"``; ``"valid"`` for ``"sim"`` and miniF2F;
            ``None``: ``"train"``); not with ``theorems``.
        theorems: An explicit list of :class:`~lean_gym.data.Theorem` or dicts (overrides ``source``).
        max_attempts: Attempts per episode; the episode ends at the first proof or after this many.
        timeout: Wall-clock deadline of each check in seconds, passed to the backend (default
            ``DEFAULT_TIMEOUT_S``, 60 s; ``None``: the backend's own default). Set by the user only: nothing
            in a check's text can raise it (``set_option maxHeartbeats 0`` included).
        max_message_chars: Cut ``info["messages"]`` to this many characters.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the last step as text) or ``"human"``.
        cache_size: Verdicts kept in the LRU cache (0 turns it off).
        max_heartbeats: Lean's heartbeat budget for each check, sent in front of the theorem as
            ``set_option maxHeartbeats N in`` (the same text on the simulator and on real Lean). The default
            200000 is Lean's own default, under which SATP ran its checks; ``None`` sends nothing and leaves
            the header's setting (miniF2F's header says ``maxHeartbeats 400000``). ``0`` means no limit on
            Lean (the simulator still caps it).

    Example:
        >>> import gymnasium as gym, lean_gym
        >>> env = gym.make("LeanAesop-v0", backend="sim")
        >>> obs, info = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        >>> info["backend"], reward in (1.0, -1.0)
        ('sim', True)
    """

    def __init__(
        self,
        layout: str | Layout = "satp-v1",
        backend: str | Backend = "auto",
        source: str | None = None,
        split: str | None = None,
        theorems: Sequence[Theorem | Mapping[str, Any]] | None = None,
        max_attempts: int = 1,
        timeout: float | None = DEFAULT_TIMEOUT_S,
        max_message_chars: int = 2000,
        render_mode: str | None = None,
        cache_size: int = 4096,
        max_heartbeats: int | None = DEFAULT_MAX_HEARTBEATS,
    ) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        if max_heartbeats is not None and (
            isinstance(max_heartbeats, bool) or not isinstance(max_heartbeats, int) or max_heartbeats < 0
        ):
            raise ValueError(f"max_heartbeats must be a non-negative int or None, got {max_heartbeats!r}")
        self.max_heartbeats = max_heartbeats
        self._budget_line = (
            "" if max_heartbeats is None else f"set_option maxHeartbeats {max_heartbeats} in\n"
        )
        self._check_render_mode(render_mode)
        self.layout: Layout = get_layout(layout)
        self.backend, self._owns_backend = resolve_backend(backend)
        self.max_attempts = int(max_attempts)
        self.timeout = timeout
        self.max_message_chars = int(max_message_chars)
        self.render_mode = render_mode
        self.theorems: list[Theorem] = theorem_list(source, split, theorems, "play", DEFAULT_SOURCE)
        self._cache = VerdictCache(cache_size)
        self._static: dict[int, _StaticObs] = {}

        k = self.layout.num_lemmas
        spaces: dict[str, gym.Space[Any]] = {
            "goal": LeanText(GOAL_MAX_CHARS),
            "theorem": LeanText(THEOREM_MAX_CHARS),
            "lemmas": Tuple([LeanText(LEMMA_MAX_CHARS) for _ in range(k)]),
            "lemma_scores": Box(0.0, 1.0, shape=(k,), dtype=np.float32),
        }
        if self.max_attempts > 1:
            spaces["history"] = LeanText(HISTORY_MAX_CHARS)
        self.observation_space = Dict(spaces)
        self.action_space = LeanMultiDiscrete(np.asarray(self.layout.nvec, dtype=np.int64))

        self._index: int | None = None
        self._attempts = 0
        self._history: list[str] = []
        self._last_render = ""

    # ----------------------------------------------------------------------------- setup
    def _static_obs(self, index: int) -> _StaticObs:
        s = self._static.get(index)
        if s is None:
            t = self.theorems[index]
            k = self.layout.num_lemmas
            lemmas = tuple(sanitize_text(x, LEMMA_MAX_CHARS) for x in t.context_lemmas[:k])
            scores = np.zeros(k, dtype=np.float32)
            scores[: len(lemmas)] = _unit_scores(t.context_lemma_scores[: len(lemmas)], len(lemmas))
            s = _StaticObs(
                sanitize_text(t.goal or self._printed_goal(t), GOAL_MAX_CHARS),
                sanitize_text(t.formal_statement, THEOREM_MAX_CHARS),
                lemmas + ("",) * (k - len(lemmas)),
                scores,
                uuid16(t.goal),
                split_statement(t.formal_statement)[0],
            )
            self._static[index] = s
        return s

    def _printed_goal(self, t: Theorem) -> str:
        """The goal the backend prints for ``t``'s statement, for a row without ``goal`` (checked once)."""
        head = split_statement(t.formal_statement)[0]
        r = self.backend.check(head + "\n  sorry\n", header=t.header, timeout=self.timeout)
        if r.status == "sorry" and r.sorries and r.sorries[0].goal:
            return r.sorries[0].goal
        why = r.messages_text(300).replace("\n", " ") or "no goal reported"
        warnings.warn(
            f"theorem {t.name!r} has no `goal` field and backend {self.backend.name!r} could not print its "
            f"goal ({r.status}: {why}); its goal observation is empty",
            stacklevel=4,
        )
        return ""

    def _obs(self) -> dict[str, Any]:
        if self._index is None:
            raise ResetNeededError("call reset() before step()")
        s = self._static_obs(self._index)
        obs: dict[str, Any] = {
            "goal": s.goal,
            "theorem": s.theorem,
            "lemmas": s.lemmas,
            "lemma_scores": s.scores.copy(),
        }
        if self.max_attempts > 1:
            text = "\n".join(self._history)
            if len(text) > HISTORY_MAX_CHARS:  # keep the most recent attempts
                text = "…" + text[-(HISTORY_MAX_CHARS - 1) :]
            obs["history"] = sanitize_text(text, HISTORY_MAX_CHARS)
        return obs

    # ----------------------------------------------------------------------------- gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode on a theorem: ``options={"index": i}`` picks theorem ``i``, else one at random.

        Returns:
            The observation and ``info`` with ``name``, ``index``, ``goal_uuid`` and ``backend``.

        Raises:
            ConfigError: for an unknown option or an index that is not an ``int``.
            IndexError: for an index outside the theorem list.
        """
        super().reset(seed=seed)
        index = reset_index(options, len(self.theorems))
        if index is None:
            index = int(self.np_random.integers(len(self.theorems)))
        self._start_episode(index)
        self._attempts = 0
        self._history = []
        self._last_render = ""
        s = self._static_obs(index)
        info = {
            "name": self.theorems[index].name,
            "index": index,
            "goal_uuid": s.goal_uuid,
            "backend": self.backend.name,
        }
        return self._obs(), info

    def step(self, action: Any) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Render ``action``, check it as the theorem's proof and score it.

        Raises:
            BadActionError: when ``action`` has the wrong shape or dtype or a head is out of range.
            ResetNeededError: before ``reset()``, or after the episode ended (it is never scored again).
        """
        prepared = self.prepare(action)
        return self.finish(prepared, self.check(prepared))

    def prepare(self, action: Any) -> PreparedAesopCall:
        """Validate and render ``action`` against the current theorem (the first half of :meth:`step`)."""
        index = self._require_running()
        t = self.theorems[index]
        tactic = self.layout.render(action, t.context_lemmas)
        # = theorem_with_proof(t, tactic) (the rendered block is already indented), with the split cached
        code = self._budget_line + self._static_obs(index).statement_head + "\n" + tactic + "\n"
        return PreparedAesopCall(tactic, code, t.header)

    def cached(self, prepared: PreparedAesopCall) -> CheckResult | None:
        """The cached verdict for ``prepared``, if any."""
        return self._cache.lookup(prepared.request, self.timeout)

    def remember(self, prepared: PreparedAesopCall, result: CheckResult) -> None:
        """Store a verdict in the cache (Lean's own verdicts only)."""
        self._cache.store(prepared.request, self.timeout, result)

    def check(self, prepared: PreparedAesopCall) -> CheckResult:
        """The backend's verdict on ``prepared`` (from the cache when the same check was made before)."""
        # a plain (code, header) tuple: the same key as prepared.request, without building one per step
        return self._cache.run(self.backend, ((prepared.code, prepared.header),), timeout=self.timeout)[0]

    def finish(
        self, prepared: PreparedAesopCall, result: CheckResult
    ) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Turn a verdict into the step's return values (the second half of :meth:`step`)."""
        if self._index is None:
            raise ResetNeededError("call reset() before step()")
        self._attempts += 1
        proved = result.status == "proved"
        reward = 1.0 if proved else -1.0
        terminated = proved or self._attempts >= self.max_attempts
        self._end_step(terminated, False)
        s = self._static_obs(self._index)
        if self.max_attempts > 1:
            self._history.append(f"-- attempt {self._attempts}: {result.status}\n{prepared.tactic}")
        info = {
            "tactic": prepared.tactic,
            "action_uuid": uuid16(prepared.tactic),
            "goal_uuid": s.goal_uuid,
            "status": result.status,
            "backend": result.backend or self.backend.name,
            "elapsed_s": float(result.elapsed_s),
            "messages": result.messages_text(self.max_message_chars),
            "name": self.theorems[self._index].name,
            "attempt": self._attempts,
        }
        self._last_render = f"{info['name']} (attempt {self._attempts})\n{prepared.tactic}\n=> {result.status} [{info['backend']}]"
        if self.render_mode == "human":
            print(self._last_render)
        return self._obs(), reward, terminated, False, info


# ------------------------------------------------------------------------------------------ vector env
class LeanAesopVectorEnv(PooledVectorEnv):
    """``num_envs`` aesop envs whose checks go to one shared backend in one ``check_batch`` per step.

    This is the ``vector_entry_point`` of ``LeanAesop-v0``/``-v1``:
    ``gym.make_vec("LeanAesop-v0", num_envs=8, vectorization_mode="vector_entry_point")``. With a
    ``ReplBackend`` pool the N checks of a step run concurrently; the sub-environments share the theorem
    list and the verdict cache.

    Args:
        num_envs: Number of sub-environments.
        autoreset_mode: ``NEXT_STEP`` (default), ``SAME_STEP`` or ``DISABLED``, as in gymnasium's vector envs.
        backend: As for :class:`LeanAesopEnv`; one instance serves every sub-environment.
        **kwargs: The other :class:`LeanAesopEnv` arguments.
    """

    env_class = LeanAesopEnv

    def __init__(self, num_envs: int = 1, **kwargs: Any) -> None:
        super().__init__(num_envs, **kwargs)
        self.layout = self.envs[0].layout

    def _share(self, first: Any, env: Any) -> None:
        env._cache = first._cache
        env._static = first._static

    def _check_actions(self, actions: Any) -> np.ndarray:
        actions = np.asarray(actions)
        if actions.ndim != 2 or actions.shape[0] != self.num_envs:
            raise BadActionError(
                f"actions must have shape ({self.num_envs}, {len(self.layout.nvec)}), got {actions.shape}"
            )
        return actions

    def _requests(self, prepared: PreparedAesopCall) -> tuple[tuple[str, str], ...]:
        return (prepared.request,)

    def _finish(
        self, env: Any, prepared: PreparedAesopCall, results: list[CheckResult]
    ) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        return env.finish(prepared, results[0])

    def _observations(self) -> dict[str, Any]:
        # A fresh buffer each step, so returned batches never share memory (no deepcopy needed).
        out: Any = create_empty_array(self.single_observation_space, self.num_envs)
        batch: dict[str, Any] = concatenate(self.single_observation_space, self._env_obs, out)  # type: ignore[assignment]
        return batch


_warned_v1 = False


def _warn_v1() -> None:
    global _warned_v1
    if not _warned_v1:
        _warned_v1 = True
        warnings.warn(
            "LeanAesop-v1 is now LeanAesopV2-v0 (SATP's v2 layout is another env, not a newer LeanAesop-v0); "
            "the old id will be removed",
            FutureWarning,
            stacklevel=4,
        )


def deprecated_aesop_v1(**kwargs: Any) -> LeanAesopEnv:
    """``gym.make("LeanAesop-v1")``: the deprecated name of ``LeanAesopV2-v0`` (warns once per process)."""
    _warn_v1()
    return LeanAesopEnv(**kwargs)


def deprecated_aesop_v1_vector(**kwargs: Any) -> LeanAesopVectorEnv:
    """``gym.make_vec("LeanAesop-v1", vectorization_mode="vector_entry_point")``: as :func:`deprecated_aesop_v1`."""
    _warn_v1()
    return LeanAesopVectorEnv(**kwargs)
