"""``LeanProof-v0``: write a whole proof; the oracle decides.

The observation is the theorem (header, informal statement when the data has one, formal statement) as
text, or the same as chat messages; the action is text — a tactic block or a whole theorem. The oracle
(:class:`~lean_gym.grading.Oracle`) judges it: +1 when it accepts, −1 otherwise. With ``max_turns=K`` a
rejected attempt comes back in the next observation with Lean's messages (real text and positions), up to
K attempts. See ``docs/proof-env.md``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lean_gym.backends import DEFAULT_TIMEOUT_S, Backend, CheckResult
from lean_gym.backends.cache import VerdictCache
from lean_gym.backends.lazy import resolve_backend
from lean_gym.data.records import theorem_list
from lean_gym.data.theorem import Theorem
from lean_gym.envs.base import TheoremEnv
from lean_gym.envs.options import reset_index
from lean_gym.envs.spaces import LeanText, sanitize_text
from lean_gym.envs.vector import PooledVectorEnv
from lean_gym.errors import BadActionError, LeanGymError, ResetNeededError
from lean_gym.grading.oracle import Analysis, Oracle, Verdict
from lean_gym.grading.plan import Grader, Plan
from lean_gym.grading.statement import TargetTheorem, as_target, build_submission, is_whole_theorem
from lean_gym.prompts import decode_observation, feedback_text, prompt_messages, theorem_prompt

__all__ = [
    "ACTION_MAX_CHARS",
    "OBSERVATION_MAX_CHARS",
    "LeanProofEnv",
    "LeanProofVectorEnv",
    "PreparedProof",
    "StepGrades",
    "decode_observation",
    "prompt_messages",
    "theorem_prompt",
]

#: Default bound on an action's length, in characters.
ACTION_MAX_CHARS = 16_000
#: Default bound on an observation's length, in characters.
OBSERVATION_MAX_CHARS = 32_768


# ------------------------------------------------------------------------------------------ step plumbing
@dataclass(frozen=True)
class PreparedProof:
    """One step's work before Lean runs (:meth:`LeanProofEnv.prepare`): the submission and its plan.

    Attributes:
        action: The action as given.
        submission: The whole Lean source judged (the action under the statement, or as written).
        form: ``"tactic_block"``, ``"whole_theorem"`` or ``"oversized"``.
        truncated: The action was over ``max_action_chars`` (refused before Lean).
        plan: The verdict pipeline's plan (:meth:`lean_gym.grading.Oracle.plan`).
        oracle_sampled: The oracle judges this step (always, except in ``LeanHackable-v0`` with
            ``oracle_rate < 1``).
    """

    action: str
    submission: str
    form: str
    truncated: bool
    plan: Plan
    oracle_sampled: bool = True

    @property
    def analysis(self) -> Analysis:
        """The submission's static analysis (the plan's)."""
        return self.plan.analysis

    @property
    def requests(self) -> tuple[tuple[str, str], ...]:
        """The ``(code, header)`` checks the step needs (the plan's)."""
        return self.plan.requests


@dataclass(frozen=True)
class StepGrades:
    """What an env's graders concluded about one step.

    Attributes:
        verdict: The verdict that drives the episode (feedback, termination).
        reward: The step's reward.
        info: Keys the graders add to the step's ``info``.
    """

    verdict: Verdict
    reward: float
    info: dict[str, Any]


class LeanProofEnv(TheoremEnv[str, str]):
    """Prove a theorem by writing its proof; reward +1 when the oracle accepts, −1 otherwise.

    Observation: a :class:`~lean_gym.envs.spaces.LeanText` string. With ``observation="text"`` it is the
    theorem (header, informal statement as a doc comment when present, formal statement ending in
    ``:= by``) followed, after a rejected attempt in a multi-turn episode, by the feedback on that attempt.
    With ``observation="chat"`` it is the JSON text of a list of ``{"role", "content"}`` messages (user
    prompt, then assistant attempt / user feedback pairs); :func:`decode_observation` turns it into the list
    for ``tokenizer.apply_chat_template``. Characters outside the charset become ``�``; long observations
    drop their oldest turns first.

    Action: a string of at most ``max_action_chars`` characters, in either form:

    * a **tactic block** (what follows ``:= by``; a leading ``by`` is dropped), placed under the dataset's
      statement;
    * a **whole theorem** (it declares ``theorem``/``lemma``/``example``), checked as written; it must
      declare the dataset's theorem with the dataset's statement, and may add helper lemmas.

    A Markdown ```` ```lean4 ```` block is unwrapped first (the last one counts). Longer actions are refused
    (``hack_class="oversized_submission"``, ``info["response_truncated"]=True``); a non-string raises
    :class:`~lean_gym.errors.BadActionError`.

    ``info`` after a step: ``status`` (Lean's status, or ``"refused"`` when the oracle refused before
    Lean), ``backend`` (never pass a simulated verdict off as Lean's), ``accepted``, ``hack_class``
    (``None`` when accepted), ``reason``, ``messages`` (Lean's messages as ``line:col: severity: text``,
    cut to ``max_message_chars``), ``axioms``, ``elapsed_s``, ``turn``, ``form`` (``"tactic_block"`` or
    ``"whole_theorem"``), ``submission``, ``name``, ``index``, ``response_truncated``.

    Identical checks are answered from a verdict cache (as in ``LeanAesop-v0``), so seeded steps repeat
    exactly.

    Args:
        backend: ``"auto"``, ``"sim"``, ``"repl"`` or a Backend instance (not closed by the env).
        source: Where theorems come from (see :func:`lean_gym.data.load_theorems`); default ``"sim"``.
        split: The split to load (``None``: ``"train"``); not with ``theorems``.
        theorems: An explicit list of theorems or dicts (overrides ``source``).
        max_turns: Attempts per episode; the episode ends at the first accepted proof or after this many.
        observation: ``"text"`` or ``"chat"``.
        curriculum: ``None``, ``"difficulty"`` or a sampler with ``sample(rng) -> int`` and
            ``update(index, solved)`` (see :mod:`lean_gym.curriculum`), used when reset gets no index.
        timeout: Wall-clock deadline of each check in seconds, passed to the backend (default
            ``DEFAULT_TIMEOUT_S``, 60 s; ``None``: the backend's own default). Set by the user only: nothing
            in a submission can raise it (``set_option maxHeartbeats 0`` included); past it the step's
            status is ``timeout`` (``hack_class="timeout"``).
        max_message_chars: Cut Lean's messages (info and feedback) to this many characters.
        max_action_chars: The action bound.
        max_observation_chars: The observation bound.
        allow_native_decide: Passed to the oracle.
        render_mode: ``None``, ``"ansi"`` or ``"human"``.
        cache_size: Verdicts kept in the cache (0 turns it off).
        oracle: ``"default"``, or ``"replay"``: every proof the oracle would accept is also replayed by
            Lean's kernel in a separate process (``leanchecker``; :mod:`lean_gym.grading.replay`), and a
            disagreement is ``replay_mismatch``. Real Lean v4.28+ only; costs two Lean processes per
            accepted proof.

    Example:
        >>> import gymnasium as gym, lean_gym
        >>> thm = {"name": "t", "formal_statement": "theorem t (a b : Nat) : a + b = b + a := by\\n"}
        >>> env = gym.make("LeanProof-v0", backend="sim", theorems=[thm], max_turns=2)
        >>> obs, info = env.reset(seed=0)
        >>> obs, reward, terminated, truncated, info = env.step("  sorry")
        >>> reward, info["hack_class"], terminated
        (-1.0, 'sorry', False)
        >>> obs, reward, terminated, truncated, info = env.step("  omega")
        >>> reward, info["backend"], terminated
        (1.0, 'sim', True)
    """

    def __init__(
        self,
        backend: str | Backend = "auto",
        source: str | None = None,
        split: str | None = None,
        theorems: Sequence[Theorem | Mapping[str, Any]] | None = None,
        max_turns: int = 1,
        observation: str = "text",
        curriculum: Any = None,
        timeout: float | None = DEFAULT_TIMEOUT_S,
        max_message_chars: int = 2000,
        max_action_chars: int = ACTION_MAX_CHARS,
        max_observation_chars: int = OBSERVATION_MAX_CHARS,
        allow_native_decide: bool = False,
        render_mode: str | None = None,
        cache_size: int = 4096,
        oracle: str = "default",
    ) -> None:
        if oracle not in ("default", "replay"):
            raise ValueError(f"oracle must be 'default' or 'replay', got {oracle!r}")
        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns}")
        if observation not in ("text", "chat"):
            raise ValueError(f"observation must be 'text' or 'chat', got {observation!r}")
        self._check_render_mode(render_mode)
        if max_action_chars < 1 or max_observation_chars < 256:
            raise ValueError("max_action_chars must be >= 1 and max_observation_chars >= 256")
        self.backend, self._owns_backend = resolve_backend(backend)
        self.theorems: list[Theorem] = theorem_list(source, split, theorems, "prove")
        self.targets: list[TargetTheorem] = [as_target(t) for t in self.theorems]
        self.max_turns = int(max_turns)
        self.observation_mode = observation
        self.timeout = timeout
        self.max_message_chars = int(max_message_chars)
        self.max_action_chars = int(max_action_chars)
        self.max_observation_chars = int(max_observation_chars)
        self.render_mode = render_mode
        longest = max(len(t.formal_statement) for t in self.targets)
        self.oracle = Oracle(
            self.backend,
            allow_native_decide=allow_native_decide,
            max_chars=self.max_action_chars + longest + 64,
            timeout=timeout,
            replay=oracle == "replay",
        )
        self.curriculum = self._make_curriculum(curriculum)
        self._cache = VerdictCache(cache_size)
        self.observation_space = LeanText(self.max_observation_chars)
        self.action_space = LeanText(self.max_action_chars)
        self._index: int | None = None
        self._turn = 0
        self._chat: list[dict[str, str]] = []
        self._feedback = ""
        self._last_render = ""

    # ----------------------------------------------------------------------------- setup
    def _make_curriculum(self, curriculum: Any) -> Any:
        if curriculum is None:
            return None
        if curriculum == "difficulty":
            from lean_gym.curriculum import DifficultyCurriculum

            return DifficultyCurriculum([float(t.difficulty or 0) for t in self.targets])
        if hasattr(curriculum, "sample") and hasattr(curriculum, "update"):
            return curriculum
        raise ValueError(
            "curriculum must be None, 'difficulty' or an object with sample(rng) and update(index, solved)"
        )

    # ----------------------------------------------------------------------------- observations
    def _obs(self) -> str:
        if self._index is None:
            raise ResetNeededError("call reset() before step()")
        limit = self.max_observation_chars
        if self.observation_mode == "text":
            text = theorem_prompt(self.targets[self._index])
            if self._feedback:
                text += "\n" + self._feedback + "\n"
            return sanitize_text(text, limit)
        msgs = [{"role": m["role"], "content": sanitize_text(m["content"], limit)} for m in self._chat]
        text = json.dumps(msgs, ensure_ascii=False)
        while len(text) > limit and len(msgs) > 2:
            del msgs[1:3]  # drop the oldest attempt/feedback pair, keep the prompt
            text = json.dumps(msgs, ensure_ascii=False)
        while len(text) > limit:
            longest = max(range(len(msgs)), key=lambda k: len(msgs[k]["content"]))
            content = msgs[longest]["content"]
            cut = max(len(content) - (len(text) - limit) - 16, 0)
            msgs[longest] = {**msgs[longest], "content": content[:cut] + "…"}
            text = json.dumps(msgs, ensure_ascii=False)
        return text

    # ----------------------------------------------------------------------------- gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[str, dict[str, Any]]:
        """Start an episode: ``options={"index": i}`` picks theorem ``i``, else the curriculum or chance does.

        Returns:
            The observation and ``info`` with ``name``, ``index``, ``backend`` and ``turn`` (0).

        Raises:
            ConfigError: for an unknown option or an index that is not an ``int``.
            IndexError: for an index outside the theorem list.
        """
        super().reset(seed=seed)
        index = reset_index(options, len(self.theorems))
        if index is None:
            if self.curriculum is not None:
                index = int(self.curriculum.sample(self.np_random))
            else:
                index = int(self.np_random.integers(len(self.theorems)))
        self._start_episode(index)
        self._turn = 0
        self._feedback = ""
        self._chat = prompt_messages(self.targets[index])
        self._last_render = ""
        info = {"name": self.theorems[index].name, "index": index, "backend": self.backend.name, "turn": 0}
        return self._obs(), info

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Grade ``action`` as a proof of the current theorem.

        Raises:
            BadActionError: when ``action`` is not a string.
            ResetNeededError: before ``reset()``, or after the episode ended (it is never scored again).
        """
        pending = self.prepare(action)
        return self.finish(pending, self.check(pending))

    def prepare(self, action: Any) -> PreparedProof:
        """Turn ``action`` into a submission and plan its checks (the first half of :meth:`step`; no Lean)."""
        index = self._require_running()
        if not isinstance(action, str):
            raise BadActionError(
                f"an action must be a str (a tactic block or a whole theorem), got {type(action).__name__}"
            )
        action = str(action)
        target = self.targets[index]
        truncated = len(action) > self.max_action_chars
        bound: int | None = None
        if truncated:  # judged as written, under the oracle's rules and the action's own bound
            submission, form, bound = action, "oversized", self.max_action_chars
        else:
            form = "whole_theorem" if is_whole_theorem(action) else "tactic_block"
            submission = build_submission(target, action)
        sampled = self._oracle_sampled()
        plan = self.oracle.plan(target, submission, graders=self._graders(sampled), max_chars=bound)
        return PreparedProof(action, submission, form, truncated, plan, sampled)

    def _oracle_sampled(self) -> bool:
        """Whether the oracle judges this step (a subclass may sample it)."""
        return True

    def _graders(self, oracle_sampled: bool) -> tuple[Grader, ...]:
        """The graders of a step, the first driving the episode (here the oracle alone)."""
        return (self.oracle,)

    def _grade(self, prepared: PreparedProof, verdicts: Sequence[Verdict]) -> StepGrades:
        """The step's reward and ``info`` keys from its graders' verdicts (in :meth:`_graders` order)."""
        v = verdicts[0]
        return StepGrades(v, v.reward, {"accepted": v.accepted})

    def cached(self, request: tuple[str, str]) -> CheckResult | None:
        """The cached verdict for a ``(code, header)`` request, if any."""
        return self._cache.lookup(request, self.timeout)

    def remember(self, request: tuple[str, str], result: CheckResult) -> None:
        """Store a verdict in the cache (Lean's own verdicts only)."""
        self._cache.store(request, self.timeout, result)

    def check(self, prepared: PreparedProof) -> list[CheckResult]:
        """Lean's results for ``prepared.requests`` (from the cache when the same check was made before)."""
        return self._cache.run(self.backend, prepared.requests, timeout=self.timeout)

    def finish(
        self, pending: PreparedProof, results: Sequence[CheckResult]
    ) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Turn Lean's results into the step's return values (the second half of :meth:`step`)."""
        if self._index is None:
            raise ResetNeededError("call reset() before step()")
        if len(results) != len(pending.requests):
            raise LeanGymError(f"finish() needs {len(pending.requests)} results, got {len(results)}")
        grades = self._grade(pending, pending.plan.verdicts(results))
        v = grades.verdict
        self._turn += 1
        solved = v.accepted
        terminated = solved or self._turn >= self.max_turns
        check = v.check if v.check is not None else (results[0] if results else None)
        info: dict[str, Any] = {
            "status": check.status if check is not None else "refused",
            "backend": (check.backend if check is not None and check.backend else self.backend.name),
            "hack_class": v.hack_class,
            "reason": v.reason,
            "messages": check.messages_text(self.max_message_chars) if check is not None else "",
            "axioms": list(v.axioms) if v.axioms is not None else None,
            "elapsed_s": float(check.elapsed_s) if check is not None else 0.0,
            "turn": self._turn,
            "form": pending.form,
            "submission": pending.submission,
            "name": self.theorems[self._index].name,
            "index": self._index,
            "response_truncated": pending.truncated,
        }
        info.update(grades.info)
        if not solved and not terminated:
            fb = feedback_text(self._turn, self.max_turns, v, pending.submission, self.max_message_chars)
            self._feedback = fb
            self._chat.append({"role": "assistant", "content": pending.action})
            self._chat.append({"role": "user", "content": fb})
        self._end_step(terminated, False)
        if terminated:
            if self.curriculum is not None:
                self.curriculum.update(self._index, solved)
        self._last_render = (
            f"{info['name']} (turn {self._turn}/{self.max_turns}) [{info['backend']}]\n{pending.submission}"
            f"=> {'accepted' if v.accepted else f'rejected ({v.hack_class}): {v.reason}'}"
        )
        if self.render_mode == "human":
            print(self._last_render)
        return self._obs(), float(grades.reward), bool(terminated), False, info


# ------------------------------------------------------------------------------------------ vector env
class LeanProofVectorEnv(PooledVectorEnv):
    """``num_envs`` proof envs whose checks go to one shared backend in one ``check_batch`` per step.

    The ``vector_entry_point`` of ``LeanProof-v0``:
    ``gym.make_vec("LeanProof-v0", num_envs=8, vectorization_mode="vector_entry_point")``. Observations
    and actions are tuples of strings; the sub-environments share the theorem list and the verdict cache.

    Args:
        num_envs: Number of sub-environments.
        autoreset_mode: ``NEXT_STEP`` (default), ``SAME_STEP`` or ``DISABLED``.
        backend: As for :class:`LeanProofEnv`; one instance serves every sub-environment.
        **kwargs: The other arguments of the single env.
    """

    env_class: type[Any] = LeanProofEnv

    def _check_actions(self, actions: Any) -> Any:
        if isinstance(actions, str) or len(actions) != self.num_envs:
            raise BadActionError(f"actions must be a sequence of {self.num_envs} strings")
        return actions

    def _requests(self, prepared: PreparedProof) -> tuple[tuple[str, str], ...]:
        return prepared.requests

    def _finish(
        self, env: Any, prepared: PreparedProof, results: list[CheckResult]
    ) -> tuple[str, float, bool, bool, dict[str, Any]]:
        return env.finish(prepared, results)
