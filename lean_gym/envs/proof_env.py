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
from lean_gym.data.theorem import Theorem
from lean_gym.envs._common import TheoremEnv, VerdictCache, env_theorems, reset_index, resolve_backend
from lean_gym.envs.spaces import LeanText, sanitize_text
from lean_gym.envs.vector import PooledVectorEnv
from lean_gym.errors import BadActionError, LeanGymError, ResetNeededError
from lean_gym.grading.oracle import Analysis, Oracle, Verdict, analyse, checker, conclude
from lean_gym.grading.statement import TargetTheorem, as_target, build_submission, is_whole_theorem

__all__ = [
    "ACTION_MAX_CHARS",
    "OBSERVATION_MAX_CHARS",
    "LeanProofEnv",
    "LeanProofVectorEnv",
    "decode_observation",
    "prompt_messages",
    "theorem_prompt",
]

#: Default bound on an action's length, in characters.
ACTION_MAX_CHARS = 16_000
#: Default bound on an observation's length, in characters.
OBSERVATION_MAX_CHARS = 32_768

CHAT_INSTRUCTION = (
    "Complete the following Lean 4 code. Reply with the tactic block that follows `:= by`, or with the "
    "whole theorem (same name and statement); a ```lean4 code block is fine."
)


# ------------------------------------------------------------------------------------------ prompts
def theorem_prompt(theorem: TargetTheorem) -> str:
    """The theorem as a model sees it: header, informal statement (as a doc comment), formal statement."""
    informal = theorem.informal.strip()
    if informal and not informal.startswith("/-"):
        informal = f"/-- {informal} -/"
    body = "\n".join(p for p in (informal, theorem.formal_statement.rstrip("\n")) if p)
    header = theorem.header.rstrip("\n")
    return (f"{header}\n\n{body}" if header else body) + "\n"


def prompt_messages(theorem: TargetTheorem) -> list[dict[str, str]]:
    """The first chat turn: ``[{"role": "user", "content": …}]``, ready for ``apply_chat_template``."""
    content = f"{CHAT_INSTRUCTION}\n\n```lean4\n{theorem_prompt(theorem)}```"
    return [{"role": "user", "content": content}]


def decode_observation(observation: str) -> str | list[dict[str, str]]:
    """A chat observation (JSON text) as a list of ``{"role", "content"}`` dicts; text is returned as is."""
    if observation.startswith("[{"):
        try:
            value = json.loads(observation)
        except json.JSONDecodeError:
            return observation
        if isinstance(value, list):
            return value
    return observation


def _feedback(turn: int, max_turns: int, verdict: Verdict, submission: str, limit: int) -> str:
    """The feedback on a rejected attempt: verdict, Lean's messages with positions, the attempt itself."""
    label = f" ({verdict.hack_class})" if verdict.hack_class else ""
    lines = [f"Attempt {turn} of {max_turns} was rejected{label}: {verdict.reason}"]
    if verdict.check is not None and verdict.check.messages:
        who = checker(verdict.check)  # "Lean" on real Lean, "the simulator" on sim: never passed off as Lean
        lines.append(f"{who[0].upper()}{who[1:]}'s messages (line:column in the attempt below):")
        lines.append(verdict.check.messages_text(limit))
    lines.append(f"Attempt {turn}:")
    lines.append(submission.rstrip("\n"))
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ step plumbing
@dataclass(frozen=True)
class _Pending:
    """One step's work before Lean runs: the submission, its analysis and the checks it needs."""

    action: str
    submission: str
    form: str
    truncated: bool
    analysis: Analysis
    requests: tuple[tuple[str, str], ...]
    oracle_sampled: bool = True


@dataclass(frozen=True)
class _Grades:
    """What the env's graders concluded about one step."""

    verdict: Verdict  # the verdict that gives the reward
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
    ) -> None:
        if max_turns < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns}")
        if observation not in ("text", "chat"):
            raise ValueError(f"observation must be 'text' or 'chat', got {observation!r}")
        self._check_render_mode(render_mode)
        if max_action_chars < 1 or max_observation_chars < 256:
            raise ValueError("max_action_chars must be >= 1 and max_observation_chars >= 256")
        self.backend, self._owns_backend = resolve_backend(backend)
        self.theorems: list[Theorem] = env_theorems(source, split, theorems, "prove")
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

    def prepare(self, action: Any) -> _Pending:
        """Turn ``action`` into a submission and analyse it (the first half of :meth:`step`; no Lean)."""
        index = self._require_running()
        if not isinstance(action, str):
            raise BadActionError(
                f"an action must be a str (a tactic block or a whole theorem), got {type(action).__name__}"
            )
        action = str(action)
        target = self.targets[index]
        truncated = len(action) > self.max_action_chars
        if truncated:
            submission = action
            form = "oversized"
            analysis = analyse(target, action, max_chars=self.max_action_chars)
        else:
            form = "whole_theorem" if is_whole_theorem(action) else "tactic_block"
            submission = build_submission(target, action)
            analysis = self.oracle.analyse(target, submission)
        return self._plan(action, submission, form, truncated, analysis)

    def _plan(self, action: str, submission: str, form: str, truncated: bool, analysis: Analysis) -> _Pending:
        requests: tuple[tuple[str, str], ...] = ()
        if self.oracle.needs_lean(analysis):
            requests = ((analysis.code, analysis.header_for(self.oracle.rules)),)
        return _Pending(action, submission, form, truncated, analysis, requests)

    def cached(self, request: tuple[str, str]) -> CheckResult | None:
        """The cached verdict for a ``(code, header)`` request, if any."""
        return self._cache.get((request[1], request[0], self.timeout))

    def remember(self, request: tuple[str, str], result: CheckResult) -> None:
        """Store a verdict in the cache (Lean's own verdicts only)."""
        self._cache.put((request[1], request[0], self.timeout), result)

    def check(self, pending: _Pending) -> list[CheckResult]:
        """Lean's results for ``pending.requests`` (from the cache when the same check was made before)."""
        out: list[CheckResult] = []
        for req in pending.requests:
            hit = self.cached(req)
            if hit is None:
                hit = self.backend.check(req[0], header=req[1], timeout=self.timeout)
                self.remember(req, hit)
            out.append(hit)
        return out

    def _grade(self, pending: _Pending, results: dict[tuple[str, str], CheckResult]) -> _Grades:
        a = pending.analysis
        verdict = conclude(a, results.get((a.code, a.header_for(self.oracle.rules))), self.oracle.rules)
        return _Grades(verdict, verdict.reward, {"accepted": verdict.accepted})

    def finish(
        self, pending: _Pending, results: Sequence[CheckResult]
    ) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Turn Lean's results into the step's return values (the second half of :meth:`step`)."""
        if self._index is None:
            raise ResetNeededError("call reset() before step()")
        if len(results) != len(pending.requests):
            raise LeanGymError(f"finish() needs {len(pending.requests)} results, got {len(results)}")
        grades = self._grade(pending, dict(zip(pending.requests, results)))
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
            fb = _feedback(self._turn, self.max_turns, v, pending.submission, self.max_message_chars)
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

    def _requests(self, prepared: _Pending) -> tuple[tuple[str, str], ...]:
        return prepared.requests

    def _finish(
        self, env: Any, prepared: _Pending, results: list[CheckResult]
    ) -> tuple[str, float, bool, bool, dict[str, Any]]:
        return env.finish(prepared, results)
