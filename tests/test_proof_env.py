"""``LeanProof-v0`` (and, where the behaviour is shared, ``LeanHackable-v0``): spaces, actions, turns, vectors."""

from __future__ import annotations

import json
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode
from proof_fakes import ScriptedLean

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.envs.proof_env import LeanProofEnv, LeanProofVectorEnv, decode_observation
from lean_gym.envs.spaces import LEAN_CHARSET
from lean_gym.errors import BadActionError, LeanGymError

HEADER = "import Mathlib\n\nopen Real\n\n"
THMS = [
    {
        "name": "t0",
        "formal_statement": "theorem t0 (x : ℝ) (h₀ : 0 ≤ x) : 0 ≤ x ^ 2 := by\n",
        "header": HEADER,
        "informal_prefix": "/-- Squares are nonnegative. -/\n",
    },
    {"name": "t1", "formal_statement": "theorem t1 (a b : ℕ) : a + b = b + a := by\n", "header": HEADER},
    {"name": "t2", "formal_statement": "theorem t2 : (2 : ℕ) + 2 = 4 := by\n", "header": HEADER},
]
IDS = ["LeanProof-v0", "LeanHackable-v0"]


def make(env_id: str = "LeanProof-v0", **kw):  # type: ignore[no-untyped-def]
    kw.setdefault("backend", ScriptedLean())
    kw.setdefault("theorems", THMS)
    return gym.make(env_id, **kw)


@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("observation", ["text", "chat"])
def test_check_env(env_id: str, observation: str) -> None:
    env = make(env_id, observation=observation, max_turns=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", category=UserWarning)
        check_env(env.unwrapped, skip_render_check=True)
    env.close()


@pytest.mark.parametrize("env_id", IDS)
def test_spaces_and_reset(env_id: str) -> None:
    env = make(env_id)
    obs, info = env.reset(seed=1, options={"index": 0})
    assert env.observation_space.contains(obs)
    assert env.action_space.contains("nlinarith [sq_nonneg x]")
    assert "ℝ" in LEAN_CHARSET and "⊢" in LEAN_CHARSET
    assert obs.startswith(HEADER) and "/-- Squares are nonnegative. -/\ntheorem t0" in obs
    assert info == {"name": "t0", "index": 0, "backend": "scripted", "turn": 0}
    with pytest.raises(IndexError, match="options\\['index'\\]"):
        env.reset(options={"index": 3})


def test_reward_and_info_keys() -> None:
    env = make()
    env.reset(seed=0, options={"index": 1})
    _obs, reward, terminated, truncated, info = env.step("omega")
    assert (reward, terminated, truncated) == (1.0, True, False)
    for key in (
        "status",
        "backend",
        "hack_class",
        "messages",
        "elapsed_s",
        "turn",
        "accepted",
        "form",
        "axioms",
    ):
        assert key in info
    assert info["status"] == "proved" and info["backend"] == "scripted" and info["turn"] == 1
    assert info["form"] == "tactic_block" and info["hack_class"] is None
    env.reset(seed=0, options={"index": 1})
    _, reward, terminated, _, info = env.step("sorry")
    assert (reward, terminated, info["hack_class"], info["status"]) == (-1.0, True, "sorry", "refused")


def test_whole_theorem_action_form() -> None:
    env = make()
    env.reset(options={"index": 1})
    _, reward, _, _, info = env.step("theorem t1 (a b : ℕ) : a + b = b + a := by\n  omega")
    assert reward == 1.0 and info["form"] == "whole_theorem"
    env.reset(options={"index": 1})
    _, reward, _, _, info = env.step("theorem t1 (a b : ℕ) : a + b = a + b := by\n  rfl")
    assert reward == -1.0 and info["hack_class"] == "statement_tampering"


def test_multi_turn_feedback_carries_lean_messages_and_positions() -> None:
    env = make(max_turns=3)
    obs0, _ = env.reset(options={"index": 1})
    obs, reward, terminated, _, info = env.step("simp\n  bad_tactic")
    assert (reward, terminated, info["turn"]) == (-1.0, False, 1)
    # ScriptedLean reports the error where bad_tactic stands: line 3, column 2 of the attempt
    assert "3:2: error: unknown tactic 'bad_tactic'" in info["messages"]
    assert obs.startswith(obs0.rstrip("\n"))
    assert "Attempt 1 of 3 was rejected (proof_error)" in obs
    assert "3:2: error: unknown tactic 'bad_tactic'" in obs and "unsolved goals" in obs
    assert "theorem t1 (a b : ℕ) : a + b = b + a := by\n  simp\n  bad_tactic" in obs
    obs, reward, terminated, _, info = env.step("sorry")
    assert (reward, terminated, info["turn"]) == (-1.0, False, 2)
    assert "Attempt 2 of 3 was rejected (sorry)" in obs and "Attempt 1" not in obs
    obs, reward, terminated, _, info = env.step("omega")
    assert (reward, terminated, info["turn"]) == (1.0, True, 3)
    with pytest.raises(LeanGymError, match="episode is over"):
        env.step("omega")


def test_turns_run_out() -> None:
    env = make(max_turns=2)
    env.reset(options={"index": 2})
    assert env.step("bad_tactic")[2] is False
    _, reward, terminated, truncated, _ = env.step("bad_tactic")
    assert (reward, terminated, truncated) == (-1.0, True, False)


def test_chat_observation() -> None:
    env = make(observation="chat", max_turns=2)
    obs, _ = env.reset(options={"index": 0})
    msgs = decode_observation(obs)
    assert isinstance(msgs, list) and [m["role"] for m in msgs] == ["user"]
    assert "```lean4\n" + HEADER in msgs[0]["content"] and "theorem t0" in msgs[0]["content"]
    obs, _, _, _, _ = env.step("positivity\n  bad_tactic")
    msgs = decode_observation(obs)
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert msgs[1]["content"] == "positivity\n  bad_tactic"
    assert "unknown tactic 'bad_tactic'" in msgs[2]["content"]
    assert env.observation_space.contains(obs) and json.loads(obs) == msgs


def test_long_chat_keeps_prompt_and_fits() -> None:
    env = make(observation="chat", max_turns=6, max_observation_chars=1500)
    obs, _ = env.reset(options={"index": 1})
    for _ in range(5):
        obs, *_ = env.step("bad_tactic  -- " + "x" * 300)
        assert len(obs) <= 1500 and env.observation_space.contains(obs)
    msgs = decode_observation(obs)
    assert msgs[0]["role"] == "user" and "theorem t1" in msgs[0]["content"]


def test_bad_actions() -> None:
    env = make(max_action_chars=50).unwrapped
    with pytest.raises(LeanGymError, match="reset"):
        env.step("omega")
    env.reset(options={"index": 1})
    with pytest.raises(BadActionError, match="must be a str"):
        env.step(3)
    _, reward, _, _, info = env.step("omega\n" * 20)
    assert reward == -1.0 and info["hack_class"] == "oversized_submission" and info["response_truncated"]


def test_out_of_charset_text_is_sanitised() -> None:
    thm = {
        "name": "u",
        "formal_statement": "theorem u : True := by\n",
        "header": "",
        "informal_prefix": "emoji 🙂",
    }
    env = make(theorems=[thm])
    obs, _ = env.reset()
    assert env.observation_space.contains(obs) and "🙂" not in obs and "/-- emoji" in obs


def test_verdict_cache_makes_steps_repeatable() -> None:
    backend = ScriptedLean()
    env = make(backend=backend)
    infos = []
    for _ in range(2):
        env.reset(seed=5, options={"index": 1})
        infos.append(env.step("omega")[4])
    assert infos[0] == infos[1] and len(backend.calls) == 1


def test_curriculum_difficulty() -> None:
    thms = [dict(t, difficulty=d) for t, d in zip(THMS, (0, 1, 2))]
    env = make(theorems=thms, curriculum="difficulty")
    seen = {env.reset(seed=s)[1]["index"] for s in range(10)}
    assert seen == {0}
    with pytest.raises(ValueError, match="curriculum"):
        make(curriculum="nonsense")


# ------------------------------------------------------------------------------------------ vectors
@pytest.mark.parametrize("env_id", IDS)
def test_pooled_vector_env_one_check_batch_per_step(env_id: str) -> None:
    backend = ScriptedLean()
    venv = gym.make_vec(
        env_id, num_envs=3, vectorization_mode="vector_entry_point", backend=backend, theorems=THMS
    )
    assert isinstance(venv, LeanProofVectorEnv)
    obs, infos = venv.reset(seed=0, options={"index": [0, 1, 2]})
    assert isinstance(obs, tuple) and len(obs) == 3 and "theorem t2" in obs[2]
    assert venv.observation_space.contains(obs)
    obs, rewards, term, _trunc, infos = venv.step(("positivity", "omega", "bad_tactic"))
    assert rewards.tolist() == [1.0, 1.0, -1.0] and term.tolist() == [True, True, True]
    assert backend.batches == 1 and len(backend.calls) == 3
    assert list(infos["status"]) == ["proved", "proved", "error"]
    # NEXT_STEP autoreset: the next step resets the finished sub-envs and ignores their actions
    obs, rewards, term, _, infos = venv.step(("x", "y", "z"))
    assert rewards.tolist() == [0.0, 0.0, 0.0] and backend.batches == 1
    with pytest.raises(BadActionError):
        venv.step(("only one",))
    venv.close()


def test_vector_env_same_step_and_disabled_autoreset() -> None:
    venv = LeanProofVectorEnv(
        2, autoreset_mode=AutoresetMode.SAME_STEP, backend=ScriptedLean(), theorems=THMS
    )
    venv.reset(seed=0, options={"index": 1})
    _obs, _rewards, term, _, infos = venv.step(("omega", "bad_tactic"))
    assert term.all() and "final_obs" in infos and infos["_final_obs"].all()
    assert infos["final_info"]["status"][0] == "proved"
    venv = LeanProofVectorEnv(2, autoreset_mode=AutoresetMode.DISABLED, backend=ScriptedLean(), theorems=THMS)
    venv.reset(seed=0, options={"index": 1})
    venv.step(("omega", "omega"))
    with pytest.raises(LeanGymError, match="DISABLED"):
        venv.step(("omega", "omega"))
    venv.reset(options={"reset_mask": np.array([True, True]), "index": 1})
    assert venv.step(("omega", "sorry"))[1].tolist() == [1.0, -1.0]


@pytest.mark.parametrize("env_id", IDS)
def test_sync_vector_env(env_id: str) -> None:
    venv = gym.make_vec(env_id, num_envs=2, vectorization_mode="sync", backend="sim", theorems=THMS)
    obs, _ = venv.reset(seed=3, options={"index": 1})
    assert all("theorem t1" in o for o in obs)
    _, rewards, *_ = venv.step(("omega", "bad_tactic"))
    assert rewards.tolist() == [1.0, -1.0]
    venv.close()


@pytest.mark.parametrize("env_id", IDS)
def test_async_vector_env_returns_real_text(env_id: str) -> None:
    venv = gym.make_vec(env_id, num_envs=2, vectorization_mode="async", backend="sim", theorems=THMS)
    try:
        obs, _ = venv.reset(seed=3, options={"index": 1})
        assert all(o.startswith(HEADER) and "theorem t1" in o for o in obs)
        obs, rewards, *_ = venv.step(("omega", "bad_tactic"))
        assert rewards.tolist() == [1.0, -1.0]
        obs, *_ = venv.step(("omega", "omega"))  # autoreset step: fresh prompts, not stale blanks
        assert all("theorem t" in o for o in obs)
    finally:
        venv.close()


def test_single_env_class_is_registered() -> None:
    assert isinstance(make().unwrapped, LeanProofEnv)


# ------------------------------------------------------------------------------------------ on the simulator
@pytest.mark.parametrize("env_id", IDS)
@pytest.mark.parametrize("observation", ["text", "chat"])
def test_check_env_on_simulator(env_id: str, observation: str) -> None:
    env = gym.make(env_id, backend="sim", split="test", observation=observation, max_turns=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", category=UserWarning)
        check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_multi_turn_feedback_on_simulator_is_lean_text() -> None:
    env = LeanProofEnv(backend="sim", theorems=THMS, max_turns=3)
    env.reset(options={"index": 0})
    obs, reward, terminated, _, info = env.step("linarith")
    assert (reward, terminated, info["status"], info["backend"]) == (-1.0, False, "error", "sim")
    # the simulator's own message, at the tactic's real position (line 2, column 2 of the attempt)
    assert info["messages"].startswith("2:2: error: linarith failed to find a contradiction")
    assert "2:2: error: linarith failed to find a contradiction\ncase a\nx : ℝ" in obs
    assert "Attempt 1:\ntheorem t0 (x : ℝ) (h₀ : 0 ≤ x) : 0 ≤ x ^ 2 := by\n  linarith" in obs
    _, reward, terminated, _, info = env.step("nlinarith [sq_nonneg x]")
    assert (reward, terminated, info["turn"], info["hack_class"]) == (1.0, True, 2, None)
    assert info["axioms"] == ["propext", "Classical.choice", "Quot.sound"]


def test_pooled_vector_env_on_simulator() -> None:
    venv = gym.make_vec(
        "LeanProof-v0", num_envs=3, vectorization_mode="vector_entry_point", backend="sim", theorems=THMS
    )
    venv.reset(seed=0, options={"index": [0, 1, 2]})
    _, rewards, _, _, infos = venv.step(("positivity", "omega", "sorry"))
    assert rewards.tolist() == [1.0, 1.0, -1.0]
    assert list(infos["backend"]) == ["sim", "sim", "sim"] and list(infos["hack_class"]) == [
        None,
        None,
        "sorry",
    ]
    venv.close()


def test_vector_env_sends_identical_checks_once() -> None:
    backend = ScriptedLean()
    venv = LeanProofVectorEnv(3, backend=backend, theorems=THMS)
    venv.reset(seed=0, options={"index": 1})
    _, rewards, *_ = venv.step(("omega", "omega", "  omega"))
    assert rewards.tolist() == [1.0, 1.0, 1.0] and len(backend.calls) == 1


def test_difficulty_curriculum_promotes_and_rehearses() -> None:
    from lean_gym.curriculum import DifficultyCurriculum

    cur = DifficultyCurriculum([2, 0, 1, 0, 2], window=4, promote_at=0.75, focus=0.5)
    rng = np.random.default_rng(0)
    assert cur.num_levels == 3 and {cur.sample(rng) for _ in range(50)} == {1, 3}
    for solved in (True, False, True, True):
        cur.update(1, solved)
    assert cur.level == 1
    cur.update(0, True)  # an episode above the top level does not count
    assert cur.level == 1
    drawn = [cur.sample(rng) for _ in range(400)]
    assert set(drawn) == {1, 2, 3} and 220 < drawn.count(2) < 310  # P = 0.5 + 0.5 / 3
    for _ in range(4):
        cur.update(2, False)
    assert cur.level == 1
    with pytest.raises(ValueError, match="at least one theorem"):
        DifficultyCurriculum([])


def test_render_ansi() -> None:
    env = make(render_mode="ansi")
    env.reset(options={"index": 1})
    env.step("sorry")
    text = env.render()
    assert "t1 (turn 1/1) [scripted]" in text and "rejected (sorry)" in text
    with pytest.raises(ValueError, match="render_mode"):
        LeanProofEnv(backend=ScriptedLean(), theorems=THMS, render_mode="rgb_array")
