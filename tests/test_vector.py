"""Vectorised LeanAesop: sync, async (shared memory on and off) and the pooled vector entry point.

Checks that text observations are the real strings (not gymnasium's blank shared-memory snapshot), the
three autoreset modes, and that the pooled env sends one ``check_batch`` per step to one backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.aesop import layout
from lean_gym.backends.base import BatchMixin, CheckResult
from lean_gym.envs.aesop_env import LeanAesopVectorEnv
from lean_gym.errors import BadActionError, LeanGymError

N = 3


class FakeBackend(BatchMixin):
    """Proves exactly the calls with an unsafe linarith rule; records single and batched calls."""

    def __init__(self) -> None:
        self.name = "fake"
        self.calls = 0
        self.batches: list[int] = []
        self.batch_codes: list[list[str]] = []

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        self.calls += 1
        return CheckResult("proved" if "(by linarith))" in code else "error", (), (), 0.0, "fake")

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        self.batches.append(len(codes))
        self.batch_codes.append(list(codes))
        return super().check_batch(codes, header=header, timeout=timeout)

    def close(self) -> None:
        pass


THEOREMS = [
    {
        "name": f"t{i}",
        "formal_statement": f"theorem t{i} (x : ℝ) (h₀ : 0 < x) : 0 ≤ x * {i} := by\n",
        "goal": f"x : ℝ\nh₀ : 0 < x\n⊢ 0 ≤ x * {i}",
        "context_lemmas": ["mul_nonneg", f"lemma_{i}"],
        "context_lemma_scores": [0.75, 0.25],
    }
    for i in range(5)
]
GOALS = {f"x : ℝ\nh₀ : 0 < x\n⊢ 0 ≤ x * {i}" for i in range(5)}


def actions(proving: Sequence[bool]) -> np.ndarray:
    lay = layout("satp-v1")
    out = np.stack([lay.default_action() for _ in proving])
    out[:, lay.head_names.index("unsafe:linarith")] = [3 if p else 0 for p in proving]
    return out


def make_vec(
    mode: str, autoreset: AutoresetMode, backend: FakeBackend, **vector_kwargs: Any
) -> gym.vector.VectorEnv:
    kwargs: dict[str, Any] = {"backend": backend, "theorems": THEOREMS}
    if mode == "vector_entry_point":
        return gym.make_vec(
            "LeanAesop-v0", num_envs=N, vectorization_mode=mode, autoreset_mode=autoreset, **kwargs
        )
    return gym.make_vec(
        "LeanAesop-v0",
        num_envs=N,
        vectorization_mode=mode,
        vector_kwargs={"autoreset_mode": autoreset, **vector_kwargs},
        **kwargs,
    )


def assert_real_text(obs: dict[str, Any]) -> None:
    assert isinstance(obs["goal"], tuple) and len(obs["goal"]) == N
    assert all(g in GOALS for g in obs["goal"]), obs["goal"]
    assert all(t.startswith("theorem t") for t in obs["theorem"])
    assert obs["lemmas"][0] == ("mul_nonneg",) * N
    assert all(x.startswith("lemma_") for x in obs["lemmas"][1])
    assert obs["lemmas"][2] == ("",) * N
    assert obs["lemma_scores"].shape == (N, 8)


MODES = [
    pytest.param("sync", {}, id="sync"),
    pytest.param("async", {}, id="async-shared-memory"),
    pytest.param("async", {"shared_memory": False}, id="async-pipes"),
    pytest.param("vector_entry_point", {}, id="pooled"),
]


@pytest.mark.parametrize(("mode", "vkw"), MODES)
def test_next_step_autoreset(mode: str, vkw: dict[str, Any]) -> None:
    venv = make_vec(mode, AutoresetMode.NEXT_STEP, FakeBackend(), **vkw)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = venv.reset(seed=3)
    assert_real_text(obs)
    assert set(info["name"]) <= {f"t{i}" for i in range(5)}
    obs, rew, term, trunc, info = venv.step(actions([True, False, True]))
    assert_real_text(obs)
    assert rew.tolist() == [1.0, -1.0, 1.0] and term.all() and not trunc.any()
    assert info["status"].tolist() == ["proved", "error", "proved"] and info["_status"].all()
    # Every sub-env ended (one-step episodes): this step resets them and ignores the actions.
    obs, rew, term, trunc, info = venv.step(actions([True] * N))
    assert_real_text(obs)
    assert rew.tolist() == [0.0] * N and not term.any()
    assert "status" not in info and "goal_uuid" in info
    obs, rew, term, _, _ = venv.step(actions([False] * N))
    assert rew.tolist() == [-1.0] * N and term.all()
    venv.close()


@pytest.mark.parametrize(("mode", "vkw"), MODES)
def test_same_step_autoreset(mode: str, vkw: dict[str, Any]) -> None:
    venv = make_vec(mode, AutoresetMode.SAME_STEP, FakeBackend(), **vkw)
    venv.reset(seed=5)
    obs, rew, term, _, info = venv.step(actions([False, True, False]))
    assert rew.tolist() == [-1.0, 1.0, -1.0] and term.all()
    assert_real_text(obs)  # already the next episode's observation
    assert info["_final_obs"].all() and info["_final_info"].all()
    final = info["final_obs"][1]
    assert final["goal"] in GOALS and final["lemmas"][0] == "mul_nonneg"
    assert info["final_info"]["status"].tolist() == ["error", "proved", "error"]
    obs, rew, *_ = venv.step(actions([True] * N))
    assert rew.tolist() == [1.0] * N  # no wasted reset step
    venv.close()


@pytest.mark.parametrize(("mode", "vkw"), MODES)
def test_disabled_autoreset_with_reset_mask(mode: str, vkw: dict[str, Any]) -> None:
    venv = make_vec(mode, AutoresetMode.DISABLED, FakeBackend(), **vkw)
    venv.reset(seed=1)
    _, rew, term, _, _ = venv.step(actions([True, False, True]))
    assert term.all()
    obs, _info = venv.reset(options={"reset_mask": np.array([True, True, True])})
    assert_real_text(obs)
    _, rew, term, _, _ = venv.step(actions([False, True, False]))
    assert rew.tolist() == [-1.0, 1.0, -1.0]
    venv.close()


def test_pooled_sends_one_batch_per_step_to_one_backend() -> None:
    backend = FakeBackend()
    venv = LeanAesopVectorEnv(4, backend=backend, theorems=THEOREMS, cache_size=0)
    assert all(env.backend is backend for env in venv.envs)
    venv.reset(seed=0)
    for _ in range(3):
        venv.step(actions([True, False, False, True]))
        venv.step(actions([True] * 4))  # NEXT_STEP: this one only resets
    # One batch per checking step; identical checks (same theorem, same action) are sent once.
    assert len(backend.batches) == 3 and all(1 <= b <= 4 for b in backend.batches)
    assert all(len(set(codes)) == len(codes) for codes in backend.batch_codes)
    assert backend.calls == sum(backend.batches)


def test_pooled_sends_identical_checks_once_and_answers_every_env() -> None:
    backend = FakeBackend()
    venv = LeanAesopVectorEnv(4, backend=backend, theorems=THEOREMS, cache_size=0)
    venv.reset(seed=0, options={"index": [0, 0, 0, 1]})
    _, rew, term, _, infos = venv.step(actions([True, True, True, True]))
    assert backend.batches == [2]
    assert rew.tolist() == [1.0] * 4 and term.all()
    assert list(infos["status"]) == ["proved"] * 4


def test_pooled_matches_sync_step_for_step() -> None:
    sync = make_vec("sync", AutoresetMode.NEXT_STEP, FakeBackend())
    pooled = make_vec("vector_entry_point", AutoresetMode.NEXT_STEP, FakeBackend())
    rng = np.random.default_rng(0)
    o1, _ = sync.reset(seed=42)
    o2, _ = pooled.reset(seed=42)
    assert o1["goal"] == o2["goal"]
    for _ in range(6):
        a = actions(rng.random(N) < 0.5)
        s1, s2 = sync.step(a), pooled.step(a)
        assert (
            s1[0]["goal"] == s2[0]["goal"] and np.array_equal(s1[1], s2[1]) and np.array_equal(s1[2], s2[2])
        )
        assert np.array_equal(s1[0]["lemma_scores"], s2[0]["lemma_scores"])


def test_pooled_errors() -> None:
    venv = LeanAesopVectorEnv(2, backend=FakeBackend(), theorems=THEOREMS, autoreset_mode="Disabled")
    venv.reset(seed=0)
    bad = actions([True, True])
    bad[1, 33] = 7
    with pytest.raises(
        BadActionError, match=r"env 1: head 33 \(maxRuleApplications\) must be in \[0, 4\], got 7"
    ):
        venv.step(bad)
    with pytest.raises(BadActionError, match=r"shape \(2, 40\)"):
        venv.step(actions([True]))
    venv.step(actions([True, True]))
    with pytest.raises(LeanGymError, match="reset_mask"):
        venv.step(actions([True, True]))


def test_pooled_reset_index_per_env_and_spaces() -> None:
    venv = LeanAesopVectorEnv(3, backend=FakeBackend(), theorems=THEOREMS)
    obs, info = venv.reset(options={"index": [4, 0, 2]})
    assert info["name"].tolist() == ["t4", "t0", "t2"]
    assert venv.observation_space.contains(obs)
    assert venv.action_space.shape == (3, 40)


def test_async_shared_memory_without_copy_is_a_live_view() -> None:
    from lean_gym.envs.spaces import SharedTextBatch

    venv = gym.make_vec(
        "LeanAesop-v0",
        num_envs=2,
        vectorization_mode="async",
        vector_kwargs={"copy": False},
        backend=FakeBackend(),
        theorems=THEOREMS,
    )
    obs, _ = venv.reset(options={"index": 1})
    assert isinstance(obs["goal"], SharedTextBatch)
    assert obs["goal"] == ("x : ℝ\nh₀ : 0 < x\n⊢ 0 ≤ x * 1",) * 2 and obs["goal"][-1].endswith("* 1")
    venv.reset(options={"index": 3})
    assert obs["goal"][0].endswith("* 3")  # the view follows the buffer, as a Box view does
    venv.close()


@pytest.mark.parametrize("env_id", ["LeanProof-v0", "LeanHackable-v0", "LeanTactic-v0"])
def test_async_with_default_arguments_returns_the_real_strings_for_every_text_env(env_id: str) -> None:
    """What the README and scale-out.md say (issue 19): no ``shared_memory=False`` is needed."""
    thms = [
        {"name": f"t{i}", "formal_statement": f"theorem t{i} (p : Prop) (h{i} : p) : p := by\n"}
        for i in range(2)
    ]
    venv = gym.make_vec(env_id, num_envs=2, vectorization_mode="async", backend="sim", theorems=thms)
    try:
        obs, _ = venv.reset(seed=0)
        texts = list(obs) if not isinstance(obs, dict) else list(obs["prompt"])
        assert all(isinstance(t, str) and t.strip() for t in texts), texts
        assert any(f"h{i} : p" in t for t in texts for i in range(2)), texts
    finally:
        venv.close()
