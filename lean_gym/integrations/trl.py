"""TRL: an oracle-backed reward function for ``GRPOTrainer`` and a prompt dataset from lean-gym theorems.

``GRPOTrainer(reward_funcs=[OracleReward(...)], train_dataset=grpo_dataset(...))`` trains any Hugging Face
causal LM to write proofs that the oracle (:class:`~lean_gym.grading.Oracle`) accepts. TRL calls a reward
function as ``f(prompts=…, completions=…, completion_ids=…, **columns)``, where ``columns`` holds the
dataset's other columns (one value per completion) plus ``trainer_state``, ``log_extra``, ``log_metric``;
it returns one float per completion. Completions are strings, or — with conversational prompts — lists of
messages whose last ``assistant`` content is the proof. Every completion of a call is judged in **one**
``check_batch`` (a ``ReplBackend`` pool runs them concurrently); identical (theorem, proof) pairs are
judged once.

The theorem a completion must prove comes from the dataset row (``name``, ``formal_statement``, ``header``
columns, as :func:`grpo_dataset` writes them), never from the completion.

DPO: :mod:`lean_gym.buffers` already exports ``prompt``/``chosen``/``rejected`` rows, TRL's ``DPOTrainer``
format (``buf.to_dpo(mined=True, as_dataset=True)``; see ``docs/buffers.md``).

Nothing here imports ``trl``; :func:`grpo_dataset` needs ``datasets`` (the ``hf`` extra).

Example:
    >>> from lean_gym.integrations.trl import OracleReward, grpo_rows
    >>> rows = grpo_rows(theorems=[{"name": "t", "formal_statement": "theorem t (a b : Nat) : a + b = b + a := by\\n"}])
    >>> reward = OracleReward(backend="sim")
    >>> reward(prompts=[r["prompt"] for r in rows] * 2, completions=["  omega", "  sorry"],
    ...        name=["t", "t"], formal_statement=[rows[0]["formal_statement"]] * 2, header=[""] * 2)
    [1.0, -1.0]
    >>> reward.close()
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lean_gym.backends import Backend
from lean_gym.backends.lazy import resolve_backend
from lean_gym.data.records import theorem_list
from lean_gym.data.theorem import Theorem
from lean_gym.errors import ConfigError
from lean_gym.grading import Oracle, TargetTheorem, Verdict, as_target, build_submission
from lean_gym.prompts import prompt_messages, theorem_prompt

__all__ = ["AsyncOracleReward", "OracleReward", "completion_text", "grpo_dataset", "grpo_rows"]


def completion_text(completion: Any) -> str:
    """The proof in a TRL completion: the string itself, or the last assistant message's content."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence):
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                content = message.get("content")
                if isinstance(content, str):
                    return content
                if isinstance(content, Sequence):  # multimodal content parts: keep the text ones
                    return "".join(
                        str(p.get("text", ""))
                        for p in content
                        if isinstance(p, Mapping) and p.get("type") == "text"
                    )
                return ""
    return ""


class OracleReward:
    """A TRL ``reward_funcs`` entry: the oracle's verdict on each completion as a proof of its row's theorem.

    Args:
        backend: ``"auto"``, ``"sim"``, ``"repl"`` or a Backend instance (not closed by :meth:`close`).
        theorems: Theorems to look rows up by ``name`` when the dataset has no ``formal_statement`` column.
        accepted_reward: The reward of an accepted proof.
        rejected_reward: The reward of a rejected one (the env's −1 by default; 0.0 is TRL's usual choice).
        allow_native_decide: Passed to the oracle.
        timeout: Seconds per check.

    Raises:
        ConfigError: (when called) for a row whose theorem cannot be found.
    """

    __name__ = "lean_oracle"  # TRL names the reward's logged metrics after it

    def __init__(
        self,
        backend: str | Backend = "auto",
        *,
        theorems: Sequence[Theorem | Mapping[str, Any]] | None = None,
        accepted_reward: float = 1.0,
        rejected_reward: float = -1.0,
        allow_native_decide: bool = False,
        timeout: float | None = None,
    ) -> None:
        self.backend, self._owns_backend = resolve_backend(backend)
        self.oracle = Oracle(self.backend, allow_native_decide=allow_native_decide, timeout=timeout)
        self.accepted_reward = float(accepted_reward)
        self.rejected_reward = float(rejected_reward)
        self._by_name: dict[str, TargetTheorem] = {}
        if theorems is not None:
            for t in theorem_list(None, None, theorems, "reward"):
                self._by_name[t.name] = as_target(t)

    def _target(self, k: int, columns: Mapping[str, Any]) -> TargetTheorem:
        names = columns.get("name")
        statements = columns.get("formal_statement")
        if statements is not None:
            headers = columns.get("header")
            return as_target(
                {
                    "name": names[k] if names is not None else "",
                    "formal_statement": statements[k],
                    "header": headers[k] if headers is not None else "",
                }
            )
        if names is not None and names[k] in self._by_name:
            return self._by_name[names[k]]
        raise ConfigError(
            "OracleReward needs each row's theorem: give the dataset a formal_statement column (grpo_dataset "
            "writes one), or a name column and OracleReward(theorems=[...])"
        )

    def _items(
        self, completions: Sequence[Any], columns: Mapping[str, Any]
    ) -> list[tuple[TargetTheorem, str]]:
        targets = [self._target(k, columns) for k in range(len(completions))]
        return [(t, build_submission(t, completion_text(c))) for t, c in zip(targets, completions)]

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **columns: Any) -> list[float]:
        """One reward per completion (TRL's ``reward_funcs`` contract)."""
        per = self.oracle.judge_batch(self._items(completions, columns))  # one check_batch, identical once
        return self._rewards(per, columns)

    def _rewards(self, per: Sequence[Verdict], columns: Mapping[str, Any]) -> list[float]:
        rewards = [self.accepted_reward if v.accepted else self.rejected_reward for v in per]
        log_metric = columns.get("log_metric")
        if callable(log_metric) and per:
            log_metric("lean/accepted", sum(v.accepted for v in per) / len(per))
        log_extra = columns.get("log_extra")
        if callable(log_extra):
            log_extra("hack_class", [v.hack_class or "" for v in per])
        return rewards

    def close(self) -> None:
        """Close the backend when this reward function created it."""
        if self._owns_backend:
            self.backend.close()
            self._owns_backend = False

    def __enter__(self) -> OracleReward:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncOracleReward(OracleReward):
    """:class:`OracleReward` as an async reward function: TRL awaits it on its own loop thread.

    TRL 1.16 runs reward functions whose ``__call__`` is a coroutine function on a daemon event loop,
    gathered with the other async ones, so the trainer's other async rewards and tools run while Lean
    checks; with ``backend="http://host:port"`` the checks run on a ``lean-gym serve``.
    """

    __name__ = "lean_oracle"

    async def __call__(  # type: ignore[override]
        self, prompts: Sequence[Any], completions: Sequence[Any], **columns: Any
    ) -> list[float]:
        """One reward per completion, awaited (TRL's async ``reward_funcs`` contract)."""
        per = await self.oracle.ajudge_batch(self._items(completions, columns))
        return self._rewards(per, columns)


def grpo_rows(
    source: str | None = None,
    split: str | None = None,
    *,
    theorems: Sequence[Theorem | Mapping[str, Any]] | None = None,
    conversational: bool = False,
) -> list[dict[str, Any]]:
    """Rows in TRL's prompt-only format, one per theorem, with the columns :class:`OracleReward` reads.

    Args:
        source: For :func:`lean_gym.data.load_theorems` (``"sim"`` by default, a miniF2F JSONL…).
        split: The split to load (``None``: ``"train"``); not with ``theorems``.
        theorems: An explicit list (overrides ``source``).
        conversational: ``prompt`` as chat messages (``[{"role": "user", …}]``, the env's ``chat``
            prompt) instead of the env's text prompt (header and statement ending in ``:= by``).

    Returns:
        Dicts with ``prompt``, ``name``, ``formal_statement`` and ``header``.
    """
    rows = []
    for t in theorem_list(source, split, theorems, "prove"):
        target = as_target(t)
        prompt: Any = prompt_messages(target) if conversational else theorem_prompt(target)
        rows.append(
            {"prompt": prompt, "name": t.name, "formal_statement": t.formal_statement, "header": t.header}
        )
    return rows


def grpo_dataset(
    source: str | None = None,
    split: str | None = None,
    *,
    theorems: Sequence[Theorem | Mapping[str, Any]] | None = None,
    conversational: bool = False,
) -> Any:
    """:func:`grpo_rows` as a ``datasets.Dataset`` for ``GRPOTrainer(train_dataset=…)``.

    Raises:
        MissingDependencyError: without ``datasets`` (``pip install -e '.[hf]'``).
    """
    from lean_gym.buffers.export import as_hf_dataset

    return as_hf_dataset(
        grpo_rows(source, split, theorems=theorems, conversational=conversational), "a GRPO prompt dataset"
    )
