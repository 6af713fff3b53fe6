"""Wrappers that make the text observations usable by libraries that want fixed-size arrays.

:class:`AesopFeatures` turns the ``LeanAesop`` ``Dict`` of texts into a ``Box`` vector, so that
Stable-Baselines3's ``PPO("MlpPolicy")`` (which has no ``Text`` support) trains on it.
"""

from __future__ import annotations

import re
import zlib
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.spaces import Box

__all__ = ["AesopFeatures", "goal_features"]

_TOKEN = re.compile(r"[^\W\d_]+|\d+|[^\w\s]")
FEATURE_HIGH = 12.0  # log1p of any count an 8192-character text can produce is below this


def _bucket(token: str, n: int, memo: dict[str, int]) -> int:
    b = memo.get(token)
    if b is None:
        # crc32, not hash(): Python salts str hashes per process, features must agree across workers.
        b = zlib.crc32(token.encode("utf-8")) % n
        memo[token] = b
    return b


def goal_features(text: str, n_buckets: int, memo: dict[str, int] | None = None) -> np.ndarray:
    """Hashed token counts of ``text`` (log1p-scaled), length ``n_buckets``.

    Tokens are runs of letters, runs of digits and single symbols (``ℝ``, ``≤``, ``^``, ``⊢``); each goes to
    bucket ``crc32(token) % n_buckets``.
    """
    memo = {} if memo is None else memo
    counts = np.zeros(n_buckets, dtype=np.float32)
    for tok in _TOKEN.findall(text):
        counts[_bucket(tok, n_buckets, memo)] += 1.0
    return np.log1p(counts)


class AesopFeatures(gym.ObservationWrapper[np.ndarray, np.ndarray, dict[str, Any]]):
    """``LeanAesop`` observations as a fixed-size ``Box(0, 12, (n_buckets + 2·K + 3,))`` float32 vector.

    Layout of the vector (``K`` = the layout's number of lemma slots):

    * ``[0, n_buckets)``: hashed token counts of the goal text, ``log1p``-scaled (:func:`goal_features`);
    * ``[n_buckets, n_buckets + K)``: the lemma scores;
    * ``[n_buckets + K, n_buckets + 2K)``: 1 where a lemma slot holds a lemma, else 0;
    * the last three: ``log1p`` of the goal's length in characters, of its number of hypotheses (lines
      before ``⊢``), and of the attempts already made in this episode (0 without ``history``).

    Features of a goal are cached (by its text), so repeated goals cost a dictionary lookup.

    Args:
        env: A ``LeanAesop`` env (or a wrapper of one).
        n_buckets: Size of the hashed goal vocabulary.
        cache_size: Goals whose features are kept.

    Example:
        >>> import gymnasium as gym, lean_gym
        >>> from lean_gym.envs.wrappers import AesopFeatures
        >>> env = AesopFeatures(gym.make("LeanAesop-v0", backend="sim"))
        >>> obs, _ = env.reset(seed=0)
        >>> obs.shape
        (275,)
    """

    def __init__(
        self, env: gym.Env[dict[str, Any], np.ndarray], n_buckets: int = 256, cache_size: int = 100_000
    ) -> None:
        super().__init__(env)
        space = env.observation_space
        if (
            not isinstance(space, gym.spaces.Dict)
            or "goal" not in space.spaces
            or "lemma_scores" not in space.spaces
        ):
            raise TypeError(f"AesopFeatures needs a LeanAesop Dict observation, got {space}")
        self.n_buckets = int(n_buckets)
        self.num_lemmas = int(np.prod(space["lemma_scores"].shape or (0,)))
        self.cache_size = int(cache_size)
        size = self.n_buckets + 2 * self.num_lemmas + 3
        self.observation_space = Box(0.0, FEATURE_HIGH, shape=(size,), dtype=np.float32)
        self._memo: dict[str, int] = {}
        self._goal_cache: dict[str, np.ndarray] = {}

    def observation(self, observation: dict[str, Any]) -> np.ndarray:
        """The feature vector of one ``LeanAesop`` observation."""
        goal = observation["goal"]
        g = self._goal_cache.get(goal)
        if g is None:
            hyps = goal.split("⊢", 1)[0].count("\n") if "⊢" in goal else 0
            g = np.concatenate(
                [
                    goal_features(goal, self.n_buckets, self._memo),
                    np.log1p([len(goal), hyps]).astype(np.float32),
                ]
            )
            if len(self._goal_cache) >= self.cache_size:
                self._goal_cache.clear()
            self._goal_cache[goal] = g
        scores = np.clip(np.asarray(observation["lemma_scores"], dtype=np.float32), 0.0, 1.0)
        present = np.array([1.0 if s else 0.0 for s in observation["lemmas"]], dtype=np.float32)
        attempts = observation["history"].count("-- attempt ") if "history" in observation else 0
        out = np.concatenate(
            [
                g[: self.n_buckets],
                scores,
                present,
                g[self.n_buckets :],
                np.log1p([attempts]).astype(np.float32),
            ]
        )
        return np.clip(out, 0.0, FEATURE_HIGH).astype(np.float32)
