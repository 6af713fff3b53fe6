"""LeanAesopEnv: spaces, reset/step semantics, rewards, info, attempts, cache, check_env."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.aesop import layout, uuid16
from lean_gym.backends.base import BatchMixin, CheckResult
from lean_gym.data import MINIF2F_SAMPLE
from lean_gym.envs.aesop_env import LeanAesopEnv
from lean_gym.envs.spaces import LEAN_CHARSET, REPLACEMENT
from lean_gym.errors import BadActionError, LeanGymError
from lean_gym.lean.protocol import Message, Position

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


class FakeBackend(BatchMixin):
    """Proves a theorem named easy_* exactly when the call has an unsafe linarith rule; records calls."""

    def __init__(self, status_on_fail: str = "error") -> None:
        self.name = "fake"
        self.status_on_fail = status_on_fail
        self.calls: list[tuple[str, str, float | None]] = []
        self.batches: list[int] = []
        self.closed = False

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        self.calls.append((code, header, timeout))
        if "(by linarith))" in code and "theorem easy" in code:
            return CheckResult("proved", (), (), 0.001 * len(self.calls), "fake")
        msg = Message(
            "error", Position(2, 2), None, "aesop: failed to prove the goal after exhaustive search. " * 20
        )
        return CheckResult(self.status_on_fail, (msg,), (), 0.001 * len(self.calls), "fake")  # type: ignore[arg-type]

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        self.batches.append(len(codes))
        return super().check_batch(codes, header=header, timeout=timeout)

    def close(self) -> None:
        self.closed = True


def theorems() -> list[dict[str, object]]:
    rows: list[dict[str, object]] = [
        {
            "name": f"easy_{i}",
            "formal_statement": f"theorem easy_{i} (x : ℝ) (h₀ : 0 < x) : 0 ≤ x + {i} := by\n",
            "goal": f"x : ℝ\nh₀ : 0 < x\n⊢ 0 ≤ x + {i}",
            "header": "import Mathlib\n",
            "context_lemmas": ["sq_nonneg", "le_of_lt", "add_nonneg"],
            "context_lemma_scores": [0.9, 0.5, 0.1],
        }
        for i in range(3)
    ]
    rows.append(
        {
            "name": "hard",
            "formal_statement": "theorem hard (n : ℕ) : n = n + 0 := by\n",
            "goal": "n : ℕ\n⊢ n = n + 0 \u4e00"
            + "x" * 9000,  # a CJK character (outside the charset), too long
            "header": "import Mathlib\n",
        }
    )
    return rows


def linarith_action(name: str = "satp-v1") -> np.ndarray:
    lay = layout(name)
    a = lay.default_action()
    if name == "satp-v1":
        a[lay.head_names.index("unsafe:linarith")] = 3
    else:
        a[lay.head_names.index("tactic:linarith")] = 9
    return a


def make(**kw: object) -> LeanAesopEnv:
    kw.setdefault("backend", FakeBackend())
    kw.setdefault("theorems", theorems())
    return LeanAesopEnv(**kw)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------- check_env
@pytest.mark.parametrize("env_id", ["LeanAesop-v0", "LeanAesopV2-v0"])
@pytest.mark.parametrize("max_attempts", [1, 3])
def test_check_env_passes(env_id: str, max_attempts: int) -> None:
    env = gym.make(env_id, backend=FakeBackend(), theorems=theorems(), max_attempts=max_attempts)
    check_env(env.unwrapped)
    env.close()


def test_check_env_passes_on_the_simulator() -> None:
    pytest.importorskip("lean_gym.sim.families", reason="the simulator's goal families have not landed")
    for env_id in ("LeanAesop-v0", "LeanAesopV2-v0"):
        env = gym.make(env_id, backend="sim")
        check_env(env.unwrapped)
        _obs, info = env.reset(seed=0)
        _, reward, _, _, info = env.step(env.action_space.sample())
        assert info["backend"] == "sim" and reward in (1.0, -1.0)
        env.close()


# ------------------------------------------------------------------------------------------- spaces
def test_spaces() -> None:
    env = make()
    assert env.action_space.nvec.tolist() == [5] * 36 + [2] * 4
    assert set(env.observation_space.spaces) == {"goal", "theorem", "lemmas", "lemma_scores"}
    assert len(env.observation_space["lemmas"]) == 8
    assert env.observation_space["lemma_scores"].shape == (8,)
    assert env.observation_space["goal"].character_set == LEAN_CHARSET
    env2 = make(layout="satp-v2", max_attempts=2)
    assert env2.action_space.nvec.tolist() == [10] * 28 + [172] * 32 + [8] * 4 + [2] * 5
    assert len(env2.observation_space["lemmas"]) == 32 and "history" in env2.observation_space.spaces


def test_observation_is_the_theorem_padded_and_sanitised() -> None:
    env = make()
    obs, info = env.reset(options={"index": 0})
    assert obs["goal"] == "x : ℝ\nh₀ : 0 < x\n⊢ 0 ≤ x + 0"
    assert obs["theorem"].startswith("theorem easy_0 (x : ℝ)")
    assert obs["lemmas"] == ("sq_nonneg", "le_of_lt", "add_nonneg", "", "", "", "", "")
    assert np.allclose(obs["lemma_scores"], [0.9, 0.5, 0.1, 0, 0, 0, 0, 0])
    assert info == {"name": "easy_0", "index": 0, "goal_uuid": uuid16(obs["goal"]), "backend": "fake"}
    assert env.observation_space.contains(obs)
    obs, _ = env.reset(options={"index": 3})
    assert env.observation_space.contains(obs)
    assert REPLACEMENT in obs["goal"] and len(obs["goal"]) == 8192 and obs["goal"].endswith("…")
    assert obs["lemmas"] == ("",) * 8


def test_scores_outside_unit_interval_are_min_max_scaled() -> None:
    rows = theorems()[:1]
    rows[0]["context_lemma_scores"] = [12.0, 2.0, 7.0]
    obs, _ = make(theorems=rows).reset()
    assert np.allclose(obs["lemma_scores"][:3], [1.0, 0.0, 0.5])


def test_satp_schema_rows_are_accepted() -> None:
    row = {
        "context_theorem": "import Mathlib\nimport Aesop\n\ntheorem easy_s (a : ℝ) : 0 ≤ a ^ 2 := by\n  sorry",
        "context_goal_state": "a : ℝ\n⊢ 0 ≤ a ^ 2",
        "context_lemmas": ["sq_nonneg"] * 8,
        "context_lemma_scores": [1.0] * 8,
        "uuid_goal": "0123456789abcdef",
    }
    backend = FakeBackend()
    env = make(theorems=[row], backend=backend)
    obs, _ = env.reset()
    assert obs["goal"] == "a : ℝ\n⊢ 0 ≤ a ^ 2"
    _, reward, *_ = env.step(linarith_action())
    code, header, _ = backend.calls[-1]
    assert header.startswith("import Mathlib") and "sorry" not in code
    assert reward == 1.0


# ------------------------------------------------------------------------------------------- reset / step
def test_reset_is_seeded_and_index_picks_a_theorem() -> None:
    env = make()
    names = [env.reset(seed=s)[1]["name"] for s in range(20)]
    assert names == [env.reset(seed=s)[1]["name"] for s in range(20)]
    assert len(set(names)) > 1
    assert env.reset(options={"index": 2})[1]["name"] == "easy_2"
    with pytest.raises(IndexError, match=r"options\['index'\] must be in \[0, 3\]"):
        env.reset(options={"index": 4})


def test_step_replaces_the_proof_and_rewards_by_status() -> None:
    backend = FakeBackend()
    env = make(backend=backend, timeout=7.5)
    env.reset(options={"index": 0})
    _obs, reward, terminated, truncated, info = env.step(linarith_action())
    code, header, timeout = backend.calls[-1]
    assert code == (
        "set_option maxHeartbeats 200000 in\n"
        "theorem easy_0 (x : ℝ) (h₀ : 0 < x) : 0 ≤ x + 0 := by\n  aesop\n    (add unsafe 90% (by linarith))\n"
    )
    assert header == "import Mathlib\n" and timeout == 7.5
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert set(info) == {
        "tactic",
        "action_uuid",
        "goal_uuid",
        "status",
        "backend",
        "elapsed_s",
        "messages",
        "name",
        "attempt",
    }
    assert info["tactic"] == "  aesop\n    (add unsafe 90% (by linarith))"
    assert info["action_uuid"] == uuid16(info["tactic"])
    assert info["goal_uuid"] == uuid16("x : ℝ\nh₀ : 0 < x\n⊢ 0 ≤ x + 0")
    assert (info["status"], info["backend"], info["messages"]) == ("proved", "fake", "")
    assert info["elapsed_s"] > 0

    env.reset(options={"index": 3})  # "hard": the old `sorry` proof is replaced, never kept
    _, reward, terminated, _, info = env.step(linarith_action())
    assert "sorry" not in backend.calls[-1][0]
    assert (reward, terminated, info["status"]) == (-1.0, True, "error")
    assert 0 < len(info["messages"]) <= 2000 and info["messages"].startswith("2:2: error: aesop")


def test_messages_limit_and_timeout_status() -> None:
    env = make(backend=FakeBackend(status_on_fail="timeout"), max_message_chars=100)
    env.reset(options={"index": 3})
    _, reward, _, _, info = env.step(env.layout.default_action())
    assert reward == -1.0 and info["status"] == "timeout" and len(info["messages"]) <= 100


def test_v1_layout_env_uses_lemmas_of_the_theorem() -> None:
    backend = FakeBackend()
    env = make(backend=backend)
    env.reset(options={"index": 0})
    a = env.layout.default_action()
    a[24 + 1] = 2  # rank 1 = le_of_lt
    a[24 + 5] = 2  # rank 5: no lemma there, inert
    _, _, _, _, info = env.step(a)
    assert (
        info["tactic"]
        == "  aesop\n    (add unsafe 20% (by first | apply le_of_lt | rw [le_of_lt] | simp only [le_of_lt]))"
    )


@pytest.mark.parametrize(
    ("action", "match"),
    [
        (np.array([0] * 33 + [7] + [0] * 6), r"head 33 \(maxRuleApplications\) must be in \[0, 4\], got 7"),
        (np.zeros(41, dtype=np.int64), r"shape \(40,\)"),
        (np.zeros(40) + 0.5, "integers"),
    ],
)
def test_bad_action_raises(action: np.ndarray, match: str) -> None:
    env = make()
    env.reset()
    with pytest.raises(BadActionError, match=match):
        env.step(action)


def test_step_before_reset_raises() -> None:
    with pytest.raises(LeanGymError, match="reset"):
        make().step(layout("satp-v1").default_action())


def test_multi_attempt_episode_has_history() -> None:
    env = make(max_attempts=3)
    obs, _ = env.reset(options={"index": 0})
    assert obs["history"] == ""
    obs, reward, terminated, _, info = env.step(env.layout.default_action())
    assert (reward, terminated, info["attempt"]) == (-1.0, False, 1)
    assert obs["history"] == "-- attempt 1: error\n  aesop"
    obs, reward, terminated, _, _ = env.step(linarith_action())
    assert (reward, terminated) == (1.0, True)
    assert obs["history"].count("-- attempt") == 2 and "linarith" in obs["history"]
    env.reset(options={"index": 3})
    outcomes = [env.step(env.layout.default_action())[2] for _ in range(3)]
    assert outcomes == [False, False, True]


def test_verdict_cache() -> None:
    backend = FakeBackend()
    env = make(backend=backend)
    env.reset(options={"index": 0})
    first = env.step(linarith_action())[4]
    env.reset(options={"index": 0})
    second = env.step(linarith_action())[4]
    assert len(backend.calls) == 1 and first == second  # elapsed_s is the original check's
    env_nc = make(backend=backend, cache_size=0)
    for _ in range(2):
        env_nc.reset(options={"index": 0})
        env_nc.step(linarith_action())
    assert len(backend.calls) == 3
    timeouts = FakeBackend(status_on_fail="timeout")
    env_t = make(backend=timeouts)
    for _ in range(2):
        env_t.reset(options={"index": 3})
        env_t.step(env_t.layout.default_action())
    assert len(timeouts.calls) == 2  # a timeout is never cached


def test_render_ansi() -> None:
    env = make(render_mode="ansi")
    env.reset(options={"index": 0})
    env.step(linarith_action())
    assert env.render() == "easy_0 (attempt 1)\n  aesop\n    (add unsafe 90% (by linarith))\n=> proved [fake]"


def test_close_only_closes_an_owned_backend() -> None:
    backend = FakeBackend()
    make(backend=backend).close()
    assert not backend.closed


@pytest.mark.parametrize(
    ("path", "n_test"),
    [
        pytest.param(MINIF2F_SAMPLE, 4, id="sample"),
        pytest.param(
            str(SHARED / "data" / "minif2f.jsonl"),
            244,
            id="full",
            marks=[
                pytest.mark.shared,
                pytest.mark.skipif(
                    not (SHARED / "data" / "minif2f.jsonl").exists(),
                    reason="the full miniF2F (../shared) is extra",
                ),
            ],
        ),
    ],
)
def test_minif2f_source(path: str, n_test: int) -> None:
    backend = FakeBackend()
    env = LeanAesopEnv(backend=backend, source=path, split="test")
    assert len(env.theorems) == n_test
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    env.step(env.action_space.sample())
    assert backend.calls[-1][1].startswith("import Mathlib")


# ------------------------------------------------------------------------------------------- features wrapper
def test_aesop_features_wrapper() -> None:
    from lean_gym.envs.wrappers import AesopFeatures, goal_features

    env = AesopFeatures(make(max_attempts=2), n_buckets=64)
    assert env.observation_space.shape == (64 + 16 + 3,)
    obs, _ = env.reset(options={"index": 0})
    assert env.observation_space.contains(obs) and obs.dtype == np.float32
    goal = "x : ℝ\nh₀ : 0 < x\n⊢ 0 ≤ x + 0"
    assert np.allclose(obs[:64], goal_features(goal, 64))
    assert np.allclose(obs[64:72], [0.9, 0.5, 0.1, 0, 0, 0, 0, 0])
    assert obs[72:80].tolist() == [1, 1, 1, 0, 0, 0, 0, 0]
    assert np.allclose(obs[80:], np.log1p([len(goal), 2, 0]))
    obs, *_ = env.step(env.unwrapped.layout.default_action())
    assert np.isclose(obs[-1], np.log1p(1))
    other, _ = env.reset(options={"index": 1})
    assert not np.allclose(other[:64], obs[:64])  # different goals, different features
    # ≤ and ℝ are tokens of their own; crc32 buckets do not depend on the process's hash seed
    assert goal_features("⊢ 0 ≤ x", 1024).sum() > goal_features("⊢ 0 x", 1024).sum()


def test_aesop_features_rejects_other_spaces() -> None:
    from lean_gym.envs.wrappers import AesopFeatures

    with pytest.raises(TypeError, match="LeanAesop Dict"):
        AesopFeatures(gym.make("CartPole-v1"))


@pytest.mark.slow
def test_sb3_ppo_trains_on_the_features() -> None:
    pytest.importorskip("stable_baselines3", reason="the sb3 extra is not installed")
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_checker import check_env as sb3_check_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    from lean_gym.envs.wrappers import AesopFeatures

    sb3_check_env(AesopFeatures(make()))
    venv = DummyVecEnv([lambda: AesopFeatures(make(cache_size=0))] * 2)
    model = PPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, gamma=0.0, seed=0, device="cpu")
    model.learn(total_timesteps=64)
    action, _ = model.predict(venv.reset(), deterministic=True)
    assert action.shape == (2, 40) and model.num_timesteps == 64


def test_code_is_theorem_with_proof_of_the_tactic() -> None:
    from lean_gym.data import theorem_with_proof

    backend = FakeBackend()
    for name in ("satp-v1", "satp-v2"):
        env = make(backend=backend, layout=name)
        env.action_space.seed(0)
        for i in range(4):
            env.reset(options={"index": i})
            _, _, _, _, info = env.step(env.action_space.sample())
            assert backend.calls[-1][0] == "set_option maxHeartbeats 200000 in\n" + theorem_with_proof(
                env.theorems[i], info["tactic"]
            )


def test_max_heartbeats_is_sent_in_front_of_the_theorem_and_the_simulator_honours_it() -> None:
    from lean_gym.data import theorem_with_proof

    backend = FakeBackend()
    env = make(backend=backend, max_heartbeats=None)  # nothing sent: the header's setting applies
    env.reset(options={"index": 0})
    _, _, _, _, info = env.step(linarith_action())
    assert backend.calls[-1][0] == theorem_with_proof(env.theorems[0], info["tactic"])
    env = make(backend=backend, max_heartbeats=0)
    env.reset(options={"index": 0})
    env.step(linarith_action())
    assert backend.calls[-1][0].startswith("set_option maxHeartbeats 0 in\ntheorem easy_0")
    for bad in (-1, 2.5, True, "200000"):
        with pytest.raises(ValueError, match="max_heartbeats must be a non-negative int or None"):
            make(backend=backend, max_heartbeats=bad)
    # on the simulator the budget decides: nlinarith over a large context runs out of a small budget
    stmt = "theorem t (a b c : ℝ) (h₀ : a < b) (h₁ : b < c) (h₂ : a * b = 1) (h₃ : b * c = 2) (h₄ : c ^ 2 = 4) : a < c := by\n"
    thm = {"name": "t", "formal_statement": stmt, "header": "import Mathlib\n"}
    nl = np.zeros(40, dtype=np.int64)
    nl[36:] = 1
    nl[13] = 4  # nlinarith at 100%
    for budget, proved in ((200_000, True), (2_000, False)):
        env = gym.make("LeanAesop-v0", backend="sim", theorems=[thm], cache_size=0, max_heartbeats=budget)
        env.reset(options={"index": 0})
        _, reward, _, _, info = env.step(nl)
        assert (reward > 0) == proved, (budget, info["messages"])
        if not proved:
            assert "maximum number of heartbeats (2000)" in info["messages"]


def test_quickstart_example_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import runpy

    import lean_gym.backends.registry as factory

    pytest.importorskip("lean_gym.sim.families", reason="the simulator's goal families")
    monkeypatch.setattr(
        factory, "real_lean_available", lambda workspace=None: False
    )  # the README's default path
    runpy.run_path(
        str(Path(__file__).resolve().parents[1] / "examples" / "quickstart.py"), run_name="__main__"
    )
    out = capsys.readouterr().out
    assert "⊢" in out and "  aesop" in out and "backend=sim" in out
