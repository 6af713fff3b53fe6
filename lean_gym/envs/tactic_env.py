"""``LeanTactic-v0``: prove one tactic at a time on the REPL's tactic mode; the oracle confirms the proof.

The observation is the goals of the current proof state as Lean prints them; the action is a tactic as
text (applied to the current state) or ``{"state": id, "tactic": text}`` to expand any earlier state, as a
search agent does; :meth:`LeanTacticEnv.run_tac` is the same operation LeanDojo calls ``run_tac``. A state
with no goals ends the episode with +1 only when the proof assembled from the path's tactics passes the
oracle in a fresh whole-proof check: tactic mode alone can accept wrong proofs (REPL issue #44). States
survive a dead, timed-out or recycled process (:class:`~lean_gym.backends.tactic.ProofSession` rebuilds
them). See ``docs/tactic-env.md``.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces

from lean_gym.backends import DEFAULT_TIMEOUT_S, Backend, capabilities_of
from lean_gym.backends.cache import VerdictCache
from lean_gym.backends.lazy import resolve_backend
from lean_gym.backends.tactic import ProofSession, TacticOutcome, supports_tactic_mode
from lean_gym.data.records import theorem_list
from lean_gym.data.theorem import Theorem, split_statement
from lean_gym.envs.base import TheoremEnv
from lean_gym.envs.options import reset_index
from lean_gym.envs.spaces import LeanText, sanitize_text
from lean_gym.envs.vector import PooledVectorEnv, Step
from lean_gym.errors import BadActionError, ConfigError, ResetNeededError
from lean_gym.grading.oracle import Oracle, Verdict
from lean_gym.grading.policy import first_violation, scan
from lean_gym.grading.statement import TargetTheorem, as_target

__all__ = ["LeanTacticEnv", "LeanTacticVectorEnv", "TacticResult", "assemble_proof", "decode_states"]

#: Default bound on a tactic's length, in characters.
TACTIC_MAX_CHARS = 4_000
#: Default bound on an observation's length, in characters.
OBSERVATION_MAX_CHARS = 32_768
NO_GOALS = "no goals"


def assemble_proof(formal_statement: str, tactics: Sequence[str]) -> str:
    """The whole proof the oracle checks: the statement through ``:= by``, then each tactic indented by two.

    Args:
        formal_statement: The theorem's statement (ending in ``:= by``).
        tactics: The path's tactics, first to last; a multi-line tactic keeps its relative indentation.
    """
    head, _ = split_statement(formal_statement.rstrip())
    blocks = [textwrap.indent(textwrap.dedent(t.strip("\n")).strip(), "  ") for t in tactics if t.strip()]
    return head + "\n" + ("\n".join(blocks) if blocks else "  skip") + "\n"


def decode_states(observation: str) -> dict[str, Any]:
    """The ``observation="states"`` text as a dict: ``state``, ``goals`` and ``open`` (a list of states)."""
    value = json.loads(observation)
    if not isinstance(value, dict):
        raise ValueError("not a states observation")
    return value


@dataclass(frozen=True)
class TacticResult:
    """What :meth:`LeanTacticEnv.run_tac` did with one tactic.

    Attributes:
        status: ``open`` (a new state with goals), ``proved`` (no goals and the oracle accepted the
            assembled proof), ``unconfirmed`` (tactic mode said ``Completed`` but the oracle did not
            accept), ``error``, ``sorry``, ``refused`` (the policy scan banned the tactic; Lean never saw
            it), ``unknown_state``, ``timeout`` or ``crashed``.
        state: The new state's id (``open``/``proved``/``unconfirmed``), else ``None``.
        goals: The new state's goals.
        reward: 1.0 when ``proved``, else 0.0.
        info: Details (see :class:`LeanTacticEnv`).
        outcome: The session's outcome (timings included) when the tactic reached Lean.
    """

    status: str
    state: int | None
    goals: tuple[str, ...]
    reward: float
    info: dict[str, Any] = field(default_factory=dict)
    outcome: TacticOutcome | None = None

    @property
    def proved(self) -> bool:
        """True when the tactic proved the theorem (the oracle confirmed it)."""
        return self.status == "proved"


class LeanTacticEnv(TheoremEnv[str, Any]):
    """Prove a theorem tactic by tactic; +1 only for a proof the oracle confirms.

    Observation (``observation="goals"``, the default): the current state's goals as Lean prints them,
    separated by blank lines (``"no goals"`` once proved). With ``observation="states"`` it is JSON text
    (:func:`decode_states`): ``{"state": id, "goals": [...], "open": [{"state": id, "goals": [...]}, ...]}``,
    every state with goals made so far, for search agents.

    Action: a tactic (``str``), run on the current state; or a mapping ``{"state": id, "tactic": str}``
    that runs on any earlier state (with ``action="dict"`` the action space is that ``Dict``). A tactic
    that the oracle's policy scan bans (``sorry``, ``admit``, ``native_decide``, axioms, meta-programs…)
    is refused before it reaches Lean. A new state becomes the current one; an error leaves the current
    state as it was.

    Reward: +1 and ``terminated`` when a tactic leaves no goals (``proofStatus`` ``Completed``, no error,
    no sorry) *and* the oracle accepts the proof assembled from the path's tactics
    (:func:`assemble_proof`) in a fresh whole-proof check. A ``Completed`` the oracle rejects is recorded
    (``info["status"] == "unconfirmed"``, ``info["proof_status"] == "Completed"``) and never rewarded.
    Every other step gives ``-step_penalty`` (0 by default). ``truncated`` after ``max_steps`` steps.

    ``info``: ``status`` (above), ``proof_status`` (Lean's text), ``state`` (the current state after the
    step), ``parent``, ``proof`` (the proof so far: the statement and the current path's tactics),
    ``path``, ``backend``, ``error``, ``messages``, ``rebuilt`` (``"replay"``/``"pickle"`` when the state
    had to be rebuilt on a fresh process first, else ``None``), ``accepted``, ``hack_class`` and ``reason``
    (the oracle's, when it ran or refused), ``step``, ``name``, ``index``, ``num_states``. No wall times
    (steps must repeat exactly under a seed): timings are in ``env.session.stats`` and the outcomes of
    :meth:`run_tac` (``result.outcome.elapsed_s``, ``result.outcome.rebuild_s``).

    Args:
        backend: ``"auto"``, ``"sim"``, ``"sim-repl"``, ``"repl"`` or a backend with tactic mode
            (``lease``); not closed by the env when passed in.
        source: Where theorems come from (default ``"sim"``).
        split: The split to load (``None``: ``"train"``); not with ``theorems``.
        theorems: An explicit list of theorems or dicts (overrides ``source``).
        max_steps: Steps before ``truncated``.
        step_penalty: Subtracted from the reward of every step that does not prove the theorem.
        observation: ``"goals"`` or ``"states"``.
        action: ``"text"`` (``LeanText`` action space) or ``"dict"`` (``Dict(state=Discrete(max_states),
            tactic=LeanText)``); both forms are accepted either way.
        rebuild: How a lost state comes back: ``"replay"`` or ``"pickle"``.
        pickle_dir: Where pickled states go (``rebuild="pickle"``; default a temporary directory).
        timeout: Wall-clock deadline of each request and oracle check in seconds (default
            ``DEFAULT_TIMEOUT_S``, 60 s; ``None``: the backend's own default). Set by the user only: nothing in
            a tactic can raise it (``set_option maxHeartbeats 0 in`` included).
        allow_native_decide: Passed to the oracle and the tactic scan.
        max_states: Bound on state ids (the ``Dict`` action space's ``Discrete``).
        max_action_chars: Longest tactic.
        max_observation_chars: Longest observation.
        max_message_chars: Cut Lean's messages in ``info`` to this.
        render_mode: ``None``, ``"ansi"`` or ``"human"``.
        cache_size: Oracle verdicts kept (identical proofs are checked once).
        oracle_backend: Where the oracle's whole-proof check runs (default: ``backend``).

    Example:
        >>> import gymnasium as gym, lean_gym
        >>> thm = {"name": "t", "formal_statement": "theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\\n"}
        >>> env = gym.make("LeanTactic-v0", backend="sim", theorems=[thm])
        >>> obs, info = env.reset(seed=0)
        >>> print(obs)
        p q : Prop
        hp : p
        hq : q
        ⊢ p ∧ q
        >>> obs, reward, terminated, truncated, info = env.step("constructor")
        >>> obs, reward, terminated, truncated, info = env.step("exact hp")
        >>> obs, reward, terminated, truncated, info = env.step("exact hq")
        >>> reward, terminated, info["status"], info["backend"]
        (1.0, True, 'proved', 'sim')
    """

    def __init__(
        self,
        backend: str | Backend = "auto",
        source: str | None = None,
        split: str | None = None,
        theorems: Sequence[Theorem | Mapping[str, Any]] | None = None,
        max_steps: int = 64,
        step_penalty: float = 0.0,
        observation: str = "goals",
        action: str = "text",
        rebuild: str = "replay",
        pickle_dir: str | None = None,
        timeout: float | None = DEFAULT_TIMEOUT_S,
        allow_native_decide: bool = False,
        max_states: int = 4096,
        max_action_chars: int = TACTIC_MAX_CHARS,
        max_observation_chars: int = OBSERVATION_MAX_CHARS,
        max_message_chars: int = 2000,
        render_mode: str | None = None,
        cache_size: int = 4096,
        oracle_backend: Backend | None = None,
    ) -> None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        if observation not in ("goals", "states"):
            raise ValueError(f"observation must be 'goals' or 'states', got {observation!r}")
        if action not in ("text", "dict"):
            raise ValueError(f"action must be 'text' or 'dict', got {action!r}")
        if rebuild not in ("replay", "pickle"):
            raise ValueError(f"rebuild must be 'replay' or 'pickle', got {rebuild!r}")
        if max_states < 1 or max_action_chars < 1 or max_observation_chars < 256:
            raise ValueError("max_states and max_action_chars must be >= 1, max_observation_chars >= 256")
        self._check_render_mode(render_mode)
        self.backend, self._owns_backend = resolve_backend(backend)
        if not supports_tactic_mode(self.backend):
            name = getattr(self.backend, "name", type(self.backend).__name__)
            if self._owns_backend:
                self.backend.close()
            raise ConfigError(
                f"backend {name!r} has no tactic mode (no lease()); use backend='sim', 'sim-repl' or 'repl'"
            )
        self.theorems: list[Theorem] = theorem_list(source, split, theorems, "prove")
        # A statement the oracle cannot read (a `def`, a row naming another declaration) has no target:
        # its episodes can run, but no proof of it is ever confirmed or rewarded.
        self.targets: list[TargetTheorem | None] = [_target_or_none(t) for t in self.theorems]
        self.max_steps = int(max_steps)
        self.step_penalty = float(step_penalty)
        self.observation_mode = observation
        self.action_mode = action
        self.rebuild = rebuild
        self.pickle_dir = pickle_dir
        self.timeout = timeout
        self.allow_native_decide = bool(allow_native_decide)
        self.max_states = int(max_states)
        self.max_action_chars = int(max_action_chars)
        self.max_observation_chars = int(max_observation_chars)
        self.max_message_chars = int(max_message_chars)
        self.render_mode = render_mode
        longest = max(len(t.formal_statement) for t in self.theorems)
        self.oracle_backend: Backend = oracle_backend if oracle_backend is not None else self.backend
        self.oracle = Oracle(
            self.oracle_backend,
            allow_native_decide=self.allow_native_decide,
            max_chars=self.max_steps * (self.max_action_chars + 4) + longest + 64,
            timeout=timeout,
        )
        self._cache = VerdictCache(cache_size)
        self.observation_space = LeanText(self.max_observation_chars)
        tactic_space = LeanText(self.max_action_chars, min_length=1)
        self.action_space: spaces.Space[Any] = (
            tactic_space
            if action == "text"
            else spaces.Dict({"state": spaces.Discrete(self.max_states), "tactic": tactic_space})
        )
        self.session: ProofSession | None = None
        self._index: int | None = None
        self._state = 0
        self._steps = 0
        self._done = False
        self._start_error = ""
        self._last_render = ""

    # ----------------------------------------------------------------------------- gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode on theorem ``options["index"]`` (else one drawn at random).

        Returns:
            The initial goals and ``info`` with ``name``, ``index``, ``backend``, ``status`` (``"open"``,
            or ``"error"`` when the statement does not elaborate: every step then truncates) and ``state``.

        Raises:
            ConfigError: for bad options (unknown key, non-int index).
            IndexError: for an index outside the theorem list.
        """
        super().reset(seed=seed)
        index = reset_index(options, len(self.theorems))
        if index is None:
            index = int(self.np_random.integers(len(self.theorems)))
        if self.session is not None:
            self.session.close()
        thm = self.theorems[index]
        self.session = ProofSession(
            self.backend,
            thm.formal_statement,
            header=thm.header,
            timeout=self.timeout,
            rebuild=self.rebuild,
            pickle_dir=self.pickle_dir,
        )
        self._index = index
        self._state = 0
        self._steps = 0
        self._done = False
        out = self.session.start()
        self._start_error = "" if out.kind == "open" else (out.error or out.kind)
        info = {
            "name": thm.name,
            "index": index,
            "backend": out.backend or self.backend.name,
            "status": "open" if out.kind == "open" else "error",
            "state": 0,
            "error": self._start_error,
        }
        self._last_render = f"{thm.name} [{info['backend']}]\n{self._goals_text()}"
        return self._obs(), info

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Run one tactic (on the current state, or on ``action["state"]``).

        Raises:
            BadActionError: for an action that is neither a string nor ``{"state", "tactic"}``.
            ResetNeededError: before ``reset()``, or after the episode ended.
        """
        state, tactic = self.parse_action(action)
        if self._start_error:
            result = TacticResult("error", None, (), 0.0, {"error": self._start_error})
        else:
            result = self.run_tac(state, tactic)
        self._steps += 1
        if result.status == "open" and result.state is not None:
            self._state = result.state
        terminated = result.proved
        if terminated:
            self._state = result.state if result.state is not None else self._state
        truncated = not terminated and (self._steps >= self.max_steps or bool(self._start_error))
        self._end_step(terminated, truncated)
        reward = result.reward if terminated else result.reward - self.step_penalty
        info = dict(result.info)
        info.update(self._episode_info())
        info["step"] = self._steps
        arrow = "proved" if terminated else result.status
        self._last_render = f"[{self._steps}] {tactic!r} -> {arrow}\n{self._goals_text()}"
        if self.render_mode == "human":
            print(self._last_render)
        return self._obs(), float(reward), bool(terminated), bool(truncated), info

    def parse_action(self, action: Any) -> tuple[int, str]:
        """The ``(state, tactic)`` an action names (no Lean).

        Raises:
            BadActionError: for an action of the wrong form.
            ResetNeededError: before ``reset()``, or after the episode ended.
        """
        self._require_running()
        if isinstance(action, str):
            return self._state, action
        if isinstance(action, Mapping) and set(action) == {"state", "tactic"}:
            state, tactic = action["state"], action["tactic"]
            if isinstance(state, (bool, np.bool_)) or not isinstance(state, (int, np.integer)):
                raise BadActionError(f"action['state'] must be an int, got {type(state).__name__}")
            if not isinstance(tactic, str):
                raise BadActionError(f"action['tactic'] must be a str, got {type(tactic).__name__}")
            return int(state), tactic
        raise BadActionError(
            "an action must be a tactic (str) or {'state': int, 'tactic': str}, "
            f"got {type(action).__name__}"
        )

    # ----------------------------------------------------------------------------- run_tac
    def run_tac(self, state: int, tactic: str) -> TacticResult:
        """Run ``tactic`` on proof state ``state`` of this episode (LeanDojo's ``run_tac``).

        Unlike :meth:`step` it neither counts a step nor moves the current state; search agents call it
        directly. A state with no goals is checked by the oracle before it counts as ``proved``.

        Raises:
            ResetNeededError: before ``reset()``.
        """
        session = self.session
        if session is None or self._index is None:
            raise ResetNeededError("call reset() before run_tac()")
        base: dict[str, Any] = {
            "proof_status": None,
            "parent": state,
            "backend": self.backend.name,
            "error": "",
            "messages": "",
            "rebuilt": None,
            "accepted": False,
            "hack_class": None,
            "reason": "",
        }
        refusal = self._refusal(tactic)
        if refusal is not None:
            hack_class, reason = refusal
            base.update(status="refused", error=reason, hack_class=hack_class, reason=reason)
            return TacticResult("refused", None, (), 0.0, base)
        if not 0 <= state < len(session) or state >= self.max_states:
            base.update(status="unknown_state", error=f"no proof state {state} in this episode")
            return TacticResult("unknown_state", None, (), 0.0, base)
        out = session.run_tac(state, tactic)
        base.update(self._outcome_info(out))
        if out.kind == "open":
            base["status"] = "open"
            return TacticResult("open", out.state, out.goals, 0.0, base, out)
        if out.kind != "completed" or out.state is None:
            base["status"] = out.kind
            return TacticResult(out.kind, None, (), 0.0, base, out)
        verdict = self._confirm(session.path(out.state))
        accepted = verdict.accepted
        base.update(
            accepted=accepted,
            hack_class=verdict.hack_class,
            reason=verdict.reason,
            status="proved" if accepted else "unconfirmed",
            oracle_backend=verdict.check.backend if verdict.check is not None else None,
        )
        if not accepted:
            base["error"] = f"tactic mode says Completed, but the oracle rejects the proof: {verdict.reason}"
        return TacticResult(base["status"], out.state, (), 1.0 if accepted else 0.0, base, out)

    def proof(self, state: int | None = None) -> str:
        """The proof assembled from the path to ``state`` (default: the current state)."""
        if self.session is None or self._index is None:
            raise ResetNeededError("call reset() first")
        state = self._state if state is None else state
        path = self.session.path(state) if self.session.nodes else ()
        return assemble_proof(self.theorems[self._index].formal_statement, path)

    # ----------------------------------------------------------------------------- internals
    def _refusal(self, tactic: str) -> tuple[str, str] | None:
        if not tactic.strip():
            return "proof_error", "an empty tactic"
        if len(tactic) > self.max_action_chars:
            return (
                "oversized_submission",
                f"a tactic of {len(tactic)} characters, over {self.max_action_chars}",
            )
        v = first_violation(scan(tactic, allow_native_decide=self.allow_native_decide))
        if v is not None:
            return v.hack_class, f"{v.reason} (`{v.token}`); refused before Lean"
        return None

    def _confirm(self, path: Sequence[str]) -> Verdict:
        """The oracle's verdict on the proof assembled from ``path`` (one fresh whole-proof check)."""
        assert self._index is not None  # run_tac checked it; not input validation
        target = self.targets[self._index]
        if target is None:
            return Verdict(
                False, "proof_error", "the oracle cannot judge this statement (not a theorem)", None
            )
        try:
            plan = self.oracle.plan(target, assemble_proof(target.formal_statement, path))
        except ValueError as e:  # a dataset statement the oracle cannot read (a `def`): never rewarded
            return Verdict(False, "proof_error", f"the oracle cannot judge this statement: {e}", None)
        return plan.conclude(self._cache.run(self.oracle_backend, plan.requests, timeout=self.timeout))

    def _outcome_info(self, out: TacticOutcome) -> dict[str, Any]:
        text = "\n".join(f"{m.severity}: {m.data}" for m in out.messages)
        if len(text) > self.max_message_chars:
            text = text[: self.max_message_chars - 1] + "…"
        return {
            "proof_status": out.proof_status,
            "backend": out.backend or self.backend.name,
            "error": out.error,
            "messages": text,
            "rebuilt": out.rebuilt,
        }

    def _episode_info(self) -> dict[str, Any]:
        assert self._index is not None  # only called after reset; not input validation
        session = self.session
        path = session.path(self._state) if session is not None and session.nodes else ()
        return {
            "state": self._state,
            "path": list(path),
            "proof": assemble_proof(self.theorems[self._index].formal_statement, path),
            "name": self.theorems[self._index].name,
            "index": self._index,
            "num_states": len(session) if session is not None else 0,
        }

    def _current_goals(self) -> tuple[str, ...]:
        s = self.session
        if s is None or not s.nodes:
            return ()
        return s.goals(self._state)

    def _goals_text(self) -> str:
        if self._start_error:
            return f"error: {self._start_error}"
        goals = self._current_goals()
        return "\n\n".join(goals) if goals else NO_GOALS

    def _obs(self) -> str:
        limit = self.max_observation_chars
        if self.observation_mode == "goals":
            return sanitize_text(self._goals_text(), limit)
        s = self.session
        opened: list[dict[str, Any]] = []
        if s is not None:
            opened = [{"state": k, "goals": list(s.goals(k))} for k in range(len(s)) if s.goals(k)]
        current = {"state": self._state, "goals": list(self._current_goals())}
        if self._start_error:
            current["error"] = self._start_error
        # Keep the newest open states that fit (search agents expand recent states most).
        while True:
            text = json.dumps({**current, "open": opened}, ensure_ascii=False)
            text = sanitize_text(text, 1 << 30)
            if len(text) <= limit or not opened:
                break
            del opened[: max(1, len(opened) // 4)]
        if len(text) > limit:
            text = json.dumps({"state": self._state, "goals": [], "open": [], "cut": True})
        return text

    def close(self) -> None:
        """Remove the session's pickles, and close the backend when the env created it."""
        if self.session is not None:
            self.session.close()
        super().close()


# ------------------------------------------------------------------------------------------ vector env
class LeanTacticVectorEnv(PooledVectorEnv):
    """``num_envs`` tactic envs sharing one backend; their tactics run concurrently, each on its own process.

    The ``vector_entry_point`` of ``LeanTactic-v0``. With a ``ReplBackend`` pool (``"sim-repl"`` or
    ``"repl"``) each sub-env's proof states live on one process of the shared pool and its tactics go
    there (state affinity); the N tactics of a step run in N threads. With the in-process ``"sim"`` backend
    they run one after another. Sync and async modes come from gymnasium:
    ``gym.make_vec("LeanTactic-v0", num_envs=4, vectorization_mode="sync" | "async")``.

    Args:
        num_envs: Number of sub-environments.
        autoreset_mode: ``NEXT_STEP`` (default), ``SAME_STEP`` or ``DISABLED``.
        backend: As for :class:`LeanTacticEnv`; one instance serves every sub-environment.
        **kwargs: The other arguments of the single env.
    """

    env_class: type[Any] = LeanTacticEnv

    def __init__(self, num_envs: int = 1, **kwargs: Any) -> None:
        super().__init__(num_envs, **kwargs)
        self._executor: ThreadPoolExecutor | None = None

    def _check_actions(self, actions: Any) -> Any:
        if isinstance(actions, (str, Mapping)) or len(actions) != self.num_envs:
            raise BadActionError(f"actions must be a sequence of {self.num_envs} tactics")
        return actions

    def _prepare_one(self, env: Any, action: Any) -> Any:
        env.parse_action(action)
        return action

    def _run_steps(self, todo: Sequence[tuple[int, Any]]) -> list[Step]:
        """The sub-envs' steps; their tactics run concurrently across the backend's processes."""
        if len(todo) > 1 and not capabilities_of(self.backend).in_process:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=self.num_envs, thread_name_prefix="lean-tactic"
                )
            return list(self._executor.map(lambda ia: self.envs[ia[0]].step(ia[1]), todo))
        return [self.envs[i].step(action) for i, action in todo]

    def close_extras(self, **kwargs: Any) -> None:
        """Stop the tactic threads, then close the sub-envs and the shared backend."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)
            self._executor = None
        super().close_extras(**kwargs)


def _target_or_none(theorem: Theorem) -> TargetTheorem | None:
    try:
        return as_target(theorem)
    except ValueError:
        return None
