"""SATP-style Thompson sampling over the heads of an aesop action, with anchor perturbation.

Each (head, level) keeps a Beta(alpha, beta) posterior over "a config with this head at this level proves
the goal", globally and per goal cluster (a cluster's prior is the global posterior mean with
``prior_strength`` pseudo-counts, so a new cluster starts from what worked elsewhere). To propose a config the
sampler draws one value per (head, level) and takes the argmax level of every head; it never repeats a
config it already tried on that goal (the checker is deterministic).

**Anchor perturbation.** Once a config has proved a goal it becomes an *anchor*: the next tries on that goal
change one head of an anchor and try again, either turning one of the smallest anchor's rules or settings back
to its default (an ablation: does the proof need it?) or moving a random head to a level drawn from the
posterior. A failing perturbation
and its anchor form a 1-diff preference pair with ``diff_head`` = the changed head, the event SATP's DPO
stage trains on; a 1-diff pair also gives its head ``pair_weight`` extra pseudo-counts, since it is the only
evidence that isolates one head.

Every try goes through the env, so wrapping the env in ``RecordToBuffer``/``RecordVectorToBuffer`` records it
in the public schema; :func:`pair_up` then turns the recorded tries into public-schema records that hold both
arms of each 1-diff pair with its ``diff_head``.

Example:
    >>> import gymnasium as gym, lean_gym
    >>> env = gym.make("LeanAesop-v0", backend="sim", split="test")
    >>> agent = SATPThompson.for_env(env)
    >>> obs, _ = env.reset(seed=0)
    >>> action = agent.act([obs])[0]
    >>> _, r, term, trunc, info = env.step(action)
    >>> agent.update(Transitions([obs], [action], np.array([r]), np.array([term]), np.array([trunc])))["tries"]
    1.0
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lean_gym.aesop import uuid16
from lean_gym.buffers import HistoryBuffer
from lean_gym_agents.base import Transitions, env_layout

__all__ = ["AnchorPair", "SATPThompson", "SATPThompsonArgs", "goal_cluster", "pair_up"]

_HYP = re.compile(r"^\S.*? : ", re.MULTILINE)


def goal_cluster(goal: str) -> str:
    """A coarse, cheap key for a goal's shape: relation of the target, number types, nonlinearity, size.

    Goals with the same key share a posterior (SATP conditions its sampler on goal clusters).
    """
    target = goal.rsplit("⊢", 1)[-1]
    rel = (
        "iff"
        if "↔" in target
        else "logic"
        if any(op in target for op in ("∧", "∨", "¬", "→", "∀", "∃", "False", "True"))
        else "dvd"
        if "∣" in target or "%" in target
        else "ineq"
        if any(op in target for op in ("<", "≤", ">", "≥", "≠"))
        else "eq"
        if "=" in target
        else "other"
    )
    types = "".join(t for t in ("ℕ", "ℤ", "ℚ", "ℝ", "ℂ", "Prop") if t in goal) or "-"
    nonlinear = "nl" if ("^" in target or re.search(r"[a-zA-Z_]\w*\s*\*\s*[a-zA-Z_(]", target)) else "lin"
    absval = "abs" if "|" in target else ""
    hyps = len(_HYP.findall(goal.rsplit("⊢", 1)[0]))
    size = "h0" if hyps == 0 else "h1" if hyps <= 2 else "h3"
    return f"{rel}/{types}/{nonlinear}{absval}/{size}"


@dataclass(frozen=True)
class SATPThompsonArgs:
    """Hyperparameters of :class:`SATPThompson`."""

    alpha0: float = 1.0
    """Prior successes of every (head, level) (the Beta prior's alpha)."""
    beta0: float = 1.0
    """Prior failures of every (head, level) (the Beta prior's beta)."""
    prior_strength: float = 4.0
    """Pseudo-counts with which the global posterior mean seeds each goal cluster (0 = clusters start flat)."""
    perturb_prob: float = 1.0
    """Once a goal is proved, the chance that a try perturbs one of its anchors rather than sampling afresh."""
    ablate_prob: float = 0.5
    """Of the perturbations, the share that turns one non-default head of the smallest anchor back to its
    default (does the proof need that rule?); the rest move a random head to a posterior-drawn level."""
    pair_weight: float = 2.0
    """Extra pseudo-counts a 1-diff pair gives its differing head (chosen level +, rejected level −)."""
    max_resample: int = 32
    """Draws to find a config not yet tried on the goal before playing a repeat."""
    seed: int = 0
    """Seeds the posterior draws and the perturbations."""


@dataclass(frozen=True)
class AnchorPair:
    """A 1-diff preference pair found on one goal: ``chosen`` proved it, ``rejected`` (one head changed) did not."""

    goal_key: str
    chosen: tuple[int, ...]
    rejected: tuple[int, ...]
    diff_head: int


@dataclass
class _Goal:
    tried: dict[tuple[int, ...], bool] = field(default_factory=dict)  # config -> proved
    anchors: list[tuple[int, ...]] = field(default_factory=list)


class SATPThompson:
    """Thompson sampling over (head, level) Beta posteriors, per goal cluster, with anchor perturbation.

    Implements :class:`~lean_gym_agents.base.Agent`: observations are ``LeanAesop`` observation dicts (the
    ``goal`` text is used), actions are ``int64`` vectors of the layout. ``act(..., explore=False)`` plays the
    posterior-mean argmax of every head (the sampler's greedy config for the goal's cluster).

    Args:
        nvec: Choices per head (``env.action_space.nvec``).
        args: Hyperparameters.
        default_action: The level that leaves each head unchanged (plain ``aesop``); zeros when omitted.
        cluster_fn: Goal text -> cluster key (:func:`goal_cluster`; ``lambda g: ""`` for global only).
    """

    def __init__(
        self,
        nvec: Sequence[int] | np.ndarray,
        args: SATPThompsonArgs | None = None,
        *,
        default_action: Sequence[int] | None = None,
        cluster_fn: Callable[[str], str] = goal_cluster,
    ) -> None:
        self.nvec = np.asarray(nvec, dtype=np.int64)
        if self.nvec.ndim != 1 or self.nvec.size == 0 or (self.nvec < 1).any():
            raise ValueError(f"nvec must be a non-empty vector of positive choice counts, got {list(nvec)}")
        self.args = args or SATPThompsonArgs()
        self.default_action = (
            np.zeros_like(self.nvec) if default_action is None else np.asarray(default_action, dtype=np.int64)
        )
        self.cluster_fn = cluster_fn
        self.rng = np.random.default_rng(self.args.seed)
        h, lmax = self.nvec.size, int(self.nvec.max())
        self._valid = np.arange(lmax)[None, :] < self.nvec[:, None]  # (H, L)
        self._global = np.zeros((2, h, lmax))  # successes, failures
        self._clusters: dict[str, np.ndarray] = {}
        self._goals: dict[str, _Goal] = {}
        self.pairs: list[AnchorPair] = []
        self.tries = 0
        self.proofs = 0

    @classmethod
    def for_env(cls, env: Any, args: SATPThompsonArgs | None = None, **kwargs: Any) -> SATPThompson:
        """A sampler for a ``LeanAesop`` env or vector env (its layout's ``nvec`` and default action)."""
        layout = env_layout(env)
        space = getattr(env, "single_action_space", None) or env.action_space
        default = layout.default_action() if layout is not None else None
        return cls(np.asarray(space.nvec), args, default_action=default, **kwargs)

    # ------------------------------------------------------------------------------------ posteriors
    def posterior(self, cluster: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Beta parameters ``(alpha, beta)``, each ``(H, L)``, globally (``None``) or for a cluster."""
        a0, b0 = self.args.alpha0, self.args.beta0
        g = self._global
        if cluster is None:
            return a0 + g[0], b0 + g[1]
        mean = (a0 + g[0]) / (a0 + b0 + g[0] + g[1])
        s = self.args.prior_strength
        c = self._clusters.get(cluster)
        cs, cf = (0.0, 0.0) if c is None else (c[0], c[1])
        return a0 + s * mean + cs, b0 + s * (1.0 - mean) + cf

    def mean(self, cluster: str | None = None) -> np.ndarray:
        """Posterior mean success of every (head, level), ``(H, L)`` (invalid levels are ``-inf``)."""
        a, b = self.posterior(cluster)
        return np.where(self._valid, a / (a + b), -np.inf)

    def greedy(self, cluster: str | None = None) -> np.ndarray:
        """The config that takes every head's highest posterior-mean level."""
        return np.argmax(self.mean(cluster), axis=1).astype(np.int64)

    def sample(self, cluster: str | None = None) -> np.ndarray:
        """One Thompson draw: every head's argmax of one Beta sample per level."""
        a, b = self.posterior(cluster)
        theta = np.where(self._valid, self.rng.beta(a, b), -np.inf)
        return np.argmax(theta, axis=1).astype(np.int64)

    # ------------------------------------------------------------------------------------ agent API
    def _goal_key(self, obs: Any) -> tuple[str, str]:
        goal = str(obs["goal"])
        lemmas = obs.get("lemmas", ()) if hasattr(obs, "get") else ()
        # The lemma heads index the goal's lemma list, so the same goal under other lemmas is another arm set.
        return uuid16(goal + "\n" + "\n".join(str(x) for x in lemmas)), self.cluster_fn(goal)

    def _draw(self, obs: Any, cluster: str) -> np.ndarray:
        """One fresh proposal for ``obs`` (here a Thompson draw from the cluster's Beta posteriors)."""
        return self.sample(cluster)

    def _head_draw(self, obs: Any, cluster: str, h: int) -> np.ndarray:
        """One draw of a value per level of head ``h`` (``-inf`` on invalid levels); its argmax is the level."""
        a, b = self.posterior(cluster)
        return np.where(self._valid[h], self.rng.beta(a[h], b[h]), -np.inf)

    def _greedy(self, obs: Any, cluster: str) -> np.ndarray:
        """The evaluation-mode config for ``obs`` (the cluster's posterior-mean argmax)."""
        return self.greedy(cluster)

    def _perturb(
        self, obs: Any, anchors: list[tuple[int, ...]], cluster: str, tried: dict[tuple[int, ...], bool]
    ) -> np.ndarray | None:
        """One anchor with one head changed, not tried yet on this goal (``None`` when none is found).

        An ablation (``ablate_prob``) returns a head of the anchor with the fewest non-default heads to its
        default: when a proof no longer goes through without a rule, the pair says which head mattered. Else a
        random anchor's random head moves to a level drawn from the posterior.
        """
        default = self.default_action
        if self.rng.random() < self.args.ablate_prob:
            sizes = [int((np.asarray(a) != default).sum()) for a in anchors]
            anchor = anchors[int(np.argmin(sizes))]
            heads = [h for h in range(self.nvec.size) if anchor[h] != default[h]]
            self.rng.shuffle(heads)
            for h in heads:
                cand = list(anchor)
                cand[h] = int(default[h])
                if tuple(cand) not in tried:
                    return np.asarray(cand, dtype=np.int64)
        heads = [h for h in range(self.nvec.size) if self.nvec[h] > 1]
        for _ in range(self.args.max_resample):
            anchor = anchors[int(self.rng.integers(len(anchors)))]
            h = int(self.rng.choice(heads))
            theta = np.array(self._head_draw(obs, cluster, h), dtype=np.float64)
            theta[anchor[h]] = -np.inf
            cand = list(anchor)
            cand[h] = int(np.argmax(theta))
            if tuple(cand) not in tried:
                return np.asarray(cand, dtype=np.int64)
        return None

    def propose(self, obs: Any) -> tuple[np.ndarray, bool]:
        """The next config to try on ``obs``'s goal, and whether it is an anchor perturbation."""
        key, cluster = self._goal_key(obs)
        state = self._goals.get(key)
        tried = state.tried if state is not None else {}
        if state is not None and state.anchors and self.rng.random() < self.args.perturb_prob:
            cand = self._perturb(obs, state.anchors, cluster, tried)
            if cand is not None:
                return cand, True
        action = self._draw(obs, cluster)
        for _ in range(self.args.max_resample):
            if tuple(action.tolist()) not in tried:
                break
            action = self._draw(obs, cluster)
        return action, False

    def act(self, observations: Sequence[Any], *, explore: bool = True) -> list[Any]:
        """One config per observation: a Thompson draw or an anchor perturbation (``explore``), else greedy."""
        if not explore:
            return [self._greedy(obs, self._goal_key(obs)[1]) for obs in observations]
        return [self.propose(obs)[0] for obs in observations]

    def _credit(
        self, cluster: str, action: np.ndarray, success: bool, weight: float = 1.0, head: int | None = None
    ) -> None:
        row = 0 if success else 1
        heads = np.arange(self.nvec.size) if head is None else np.array([head])
        c = self._clusters.setdefault(cluster, np.zeros_like(self._global))
        self._global[row, heads, action[heads]] += weight
        c[row, heads, action[heads]] += weight

    def observe(self, obs: Any, action: Any, reward: float) -> AnchorPair | None:
        """Record one try's result; returns the 1-diff pair it completed with a tried config, if any."""
        key, cluster = self._goal_key(obs)
        act = np.asarray(action, dtype=np.int64).reshape(-1)
        t = tuple(act.tolist())
        success = float(reward) > 0
        state = self._goals.setdefault(key, _Goal())
        self.tries += 1
        self.proofs += int(success)
        self._credit(cluster, act, success)
        found: AnchorPair | None = None
        if t not in state.tried:
            for other, other_ok in state.tried.items():
                if other_ok == success:
                    continue
                diff = [i for i, (x, y) in enumerate(zip(t, other)) if x != y]
                if len(diff) == 1:
                    chosen, rejected = (t, other) if success else (other, t)
                    found = AnchorPair(key, chosen, rejected, diff[0])
                    self.pairs.append(found)
                    w = self.args.pair_weight
                    if w > 0:
                        self._credit(cluster, np.asarray(chosen), True, w, diff[0])
                        self._credit(cluster, np.asarray(rejected), False, w, diff[0])
        state.tried[t] = success
        if success and t not in state.anchors:
            state.anchors.append(t)
        return found

    def update(self, batch: Transitions) -> dict[str, float]:
        """Update the posteriors from a batch of tries; returns counts for the metrics log."""
        new_pairs = 0
        for obs, action, reward in zip(batch.observations, batch.actions, batch.rewards.tolist()):
            new_pairs += self.observe(obs, action, reward) is not None
        return {"tries": float(len(batch)), "pairs": float(len(self.pairs)), "new_pairs": float(new_pairs)}

    def proved(self, obs: Any) -> bool:
        """Whether some tried config proved ``obs``'s goal."""
        state = self._goals.get(self._goal_key(obs)[0])
        return bool(state is not None and state.anchors)


def pair_up(buffer: HistoryBuffer) -> HistoryBuffer:
    """The buffer's rows as public-schema records in which 1-diff pairs share a record, with ``diff_head``.

    Every failure that differs from a success on the same goal (and lemma list) in exactly one head is put in
    one record with such a success (each row in at most one record), so the saved file holds
    ``arm_good_action``, ``arm_bad_action`` and ``diff_head`` as SATP's buffer does; the other rows keep a
    record of their own. Rows that already share a record are kept as they are.

    Args:
        buffer: A buffer whose rows came one per record (what ``RecordToBuffer`` writes).

    Returns:
        A new buffer; ``pair_up(b).pairs()`` holds the matched pairs.
    """
    if len(buffer) == 0:
        return HistoryBuffer(buffer.layout)
    records = buffer.to_records(schema="current")
    rec = buffer.records
    starts = np.flatnonzero(np.r_[True, rec[1:] != rec[:-1]])
    single = np.diff(np.r_[starts, len(buffer)]) == 1
    out_of = {int(starts[j]): j for j in np.flatnonzero(single).tolist()}  # row -> its record dict
    used: set[int] = set()
    merged: list[dict[str, Any]] = []
    mined = buffer.mine_pairs()
    for c, r, h in zip(mined.chosen.tolist(), mined.rejected.tolist(), mined.diff_head.tolist()):
        if h < 0 or c in used or r in used or c not in out_of or r not in out_of:
            continue
        used.update((c, r))
        good, bad = records[out_of[c]], records[out_of[r]]
        row = dict(good)
        for k, v in bad.items():
            if k.endswith("_bad_action"):
                row[k] = v
        row["diff_head"] = int(h)
        merged.append(row)
    rest = [records[j] for row, j in out_of.items() if row not in used]
    multi = [records[j] for j in np.flatnonzero(~single).tolist()]
    return HistoryBuffer.from_records(merged + rest + multi, layout=buffer.layout)
