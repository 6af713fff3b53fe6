"""Every input a user (or a policy) can give is handled: a verdict, or one clear error, never a crash.

Issue 13: lone surrogates and invalid UTF-8, ``accept_sorry`` and forged axioms text, ``«t»`` names,
``reset(options=…)``, goal-less rows, backend arguments, the episode lifecycle and async vector envs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import lean_gym  # noqa: F401
from lean_gym.backends import SimBackend, make_backend
from lean_gym.data import MINIF2F_SAMPLE
from lean_gym.envs.hackable_env import LeanHackableEnv
from lean_gym.errors import BadActionError, ConfigError, ProtocolError, ResetNeededError
from lean_gym.lean.protocol import command_request, encode_request

ROOT = Path(__file__).resolve().parent.parent
# Lean core statements (`Nat`, `omega`); the aesop env's tactic needs Aesop
THM = {
    "name": "t",
    "formal_statement": "theorem t (a b : Nat) : a + b = b + a := by\n",
    "header": "import Aesop",
}
SURROGATE = "theorem t (a b : Nat) : a + b = b + a := by\n  omega -- \ud800"


# ------------------------------------------------------------------------------------------ surrogates
def test_encode_request_refuses_a_lone_surrogate_with_a_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="lone surrogate U\\+D800"):
        encode_request(command_request(SURROGATE))
    assert encode_request(command_request("-- 😀")).endswith(b"\n\n")  # a real astral char is fine


@pytest.mark.parametrize("spec", ["sim", "sim-repl"])
def test_backends_give_a_lone_surrogate_an_error_verdict(spec: str) -> None:
    backend = make_backend(spec)
    try:
        r = backend.check(SURROGATE)
        assert r.status == "error" and r.backend == backend.name
        (msg,) = r.messages
        assert (msg.pos.line, msg.pos.column) == (2, 11) and "lone surrogate U+D800" in msg.data
        h = backend.check("theorem u : True := trivial", header="-- \udcff\n")
        assert h.status == "error" and "in the header: " in h.messages[0].data
        # the backend is still fine afterwards
        assert backend.check(SURROGATE.replace("\ud800", "ok")).status == "proved"
    finally:
        backend.close()


def test_proof_env_step_with_a_lone_surrogate_is_a_rejection() -> None:
    env = gym.make("LeanProof-v0", backend="sim-repl", theorems=[THM])
    try:
        env.reset(seed=0)
        _, reward, terminated, _, info = env.step("  omega \ud800")
        assert reward == -1.0 and terminated and info["status"] == "error"
    finally:
        env.close()


def _sim_server(data: bytes) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "lean_gym.sim"], input=data, capture_output=True, timeout=60, env=env
    )


@pytest.mark.parametrize(
    "data",
    [
        b'{"cmd": "theorem t : True := trivial -- \\ud800"}\n\n',
        '{"cmd": "theorem t : True := trivial -- é"}\n\n'.encode("latin-1"),
        b'{"cmd": "example : 1 = 1 := rfl"}\n\n{"cmd": "-- \xff\xfe"}\n\n',
    ],
    ids=["json-escape", "latin-1", "after-a-good-request"],
)
def test_sim_server_answers_invalid_unicode_with_uncaught_exception(data: bytes) -> None:
    proc = _sim_server(data)
    assert proc.returncode == 1
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    last = proc.stdout.decode().strip().splitlines()[-1]
    assert last.startswith("uncaught exception: invalid UTF-8 or lone surrogate")


def test_sim_server_keeps_valid_surrogate_pairs() -> None:
    proc = _sim_server(b'{"cmd": "theorem t : True := trivial -- \\ud83d\\ude00"}\n\n')
    assert proc.returncode == 0 and proc.stdout.decode().startswith('{"env": 0}')


# ------------------------------------------------------------------------------------------ accept_sorry
def test_accept_sorry_accepts_sorry_with_an_axioms_comment() -> None:
    env = LeanHackableEnv(weak_grader="accept_sorry", backend=SimBackend(), theorems=[THM])
    env.reset(seed=0)
    _, reward, _, _, info = env.step("  sorry -- 'h1' depends on axioms: [propext]")
    assert reward == 1.0 and info["accepted"], info["weak_reason"]
    assert info["oracle_reward"] == -1.0 and info["hack_detected"]  # the oracle still rejects it


# ------------------------------------------------------------------------------------------ «t» names
@pytest.mark.parametrize(
    ("name", "declared"), [("«t»", "«t»"), ("t", "«t»"), ("«t»", "t"), ("«x y»", "«x y»")]
)
@pytest.mark.parametrize("env_id", ["LeanProof-v0", "LeanHackable-v0"])
def test_guillemet_names_are_lean_names(name: str, declared: str, env_id: str) -> None:
    stmt = f"theorem {declared} (a b : Nat) : a + b = b + a := by\n"
    env = gym.make(env_id, backend="sim", theorems=[{"name": name, "formal_statement": stmt}], max_turns=3)
    env.reset(seed=0)
    assert env.step("  omega")[1] == 1.0
    env.reset(seed=0)
    assert env.step(stmt + "  omega")[1] == 1.0
    env.reset(seed=0)
    _, reward, _, _, info = env.step(stmt.replace(f"theorem {declared}", "theorem «other»") + "  omega")
    if env_id == "LeanProof-v0":
        assert reward == -1.0 and info["hack_class"] == "renamed_theorem"


def test_a_row_whose_name_its_statement_does_not_declare_is_refused_when_the_env_is_built() -> None:
    with pytest.raises(ValueError, match="named 'foo' but its statement declares 't'"):
        gym.make("LeanProof-v0", backend="sim", theorems=[{**THM, "name": "foo"}])


# ------------------------------------------------------------------------------------------ lifecycle
ENV_IDS = ["LeanAesop-v0", "LeanProof-v0", "LeanHackable-v0"]


def _action(env: gym.Env, env_id: str) -> object:
    return env.action_space.sample() if env_id.startswith("LeanAesop") else "  omega"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_step_after_the_episode_ended_raises_reset_needed_in_every_env(env_id: str) -> None:
    env = gym.make(env_id, backend="sim", theorems=[THM]).unwrapped  # no OrderEnforcing wrapper
    with pytest.raises(ResetNeededError, match="call reset\\(\\) before step\\(\\)"):
        env.step(_action(env, env_id))
    env.reset(seed=0)
    *_, terminated, truncated, _ = env.step(_action(env, env_id))
    assert terminated or truncated
    with pytest.raises(ResetNeededError, match="the episode is over"):
        env.step(_action(env, env_id))  # an ended episode is never scored again
    env.reset(seed=1)
    env.step(_action(env, env_id))  # and reset starts a new one


def test_multi_attempt_aesop_episode_runs_until_it_ends() -> None:
    env = gym.make("LeanAesop-v0", backend="sim", theorems=[THM], max_attempts=3).unwrapped
    env.reset(seed=0)
    bad = env.action_space.sample()
    steps = 0
    terminated = False
    while not terminated:
        *_, terminated, _, _ = env.step(bad)
        steps += 1
    assert steps <= 3
    with pytest.raises(ResetNeededError):
        env.step(bad)


# ------------------------------------------------------------------------------------------ reset options
@pytest.mark.parametrize("env_id", ENV_IDS)
@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"index": "3"}, "options\\['index'\\] must be an int, got str '3'"),
        ({"index": 2.5}, "options\\['index'\\] must be an int, got float 2.5"),
        ({"index": True}, "must be an int, got bool"),
        ({"idx": 3}, "unknown reset option 'idx'; did you mean 'index'\\?"),
        ({"seed": 3}, "unknown reset option 'seed' \\(this env takes 'index'\\)"),
    ],
)
def test_reset_options_are_checked(env_id: str, options: dict, match: str) -> None:  # type: ignore[type-arg]
    env = gym.make(env_id, backend="sim", source="sim", split="test")
    with pytest.raises(ConfigError, match=match):
        env.reset(seed=0, options=options)
    with pytest.raises(IndexError, match="must be in \\[0, 299\\]"):
        env.reset(seed=0, options={"index": 300})
    _, info = env.reset(seed=0, options={"index": np.int64(2)})
    assert info["index"] == 2


# ------------------------------------------------------------------------------------------ goal-less rows
def test_a_minif2f_row_without_goal_gets_the_goal_the_backend_prints() -> None:
    rows = [json.loads(x) for x in Path(MINIF2F_SAMPLE).read_text(encoding="utf-8").splitlines()]
    row = next(r for r in rows if r["name"] == "mathd_algebra_412")
    goal = row.pop("goal")
    env = gym.make("LeanAesop-v0", backend="sim", theorems=[row])
    obs, _ = env.reset(seed=0)
    assert obs["goal"] == goal == "x y : ℝ\nh₀ : x + y = 25\nh₁ : x - y = 11\n⊢ x = 18"


def test_a_goal_less_row_the_backend_cannot_read_warns_why() -> None:
    row = {"name": "w", "formal_statement": "theorem w (s : Finset ℕ) : s.card = s.card := by\n"}
    env = gym.make("LeanAesop-v0", backend="sim", theorems=[row])
    with pytest.warns(UserWarning, match="theorem 'w' has no `goal` field and backend 'sim' could not print"):
        obs, _ = env.reset(seed=0)
    assert obs["goal"] == ""


# ------------------------------------------------------------------------------------------ backend arguments
@pytest.mark.parametrize("spec", ["sim", "sim-repl"])
def test_backend_check_arguments_are_checked(spec: str) -> None:
    backend = make_backend(spec)
    code = "theorem t : True := trivial"
    try:
        with pytest.raises(ConfigError, match="code must be a str of Lean source, got NoneType"):
            backend.check(None)  # type: ignore[arg-type]
        with pytest.raises(ConfigError, match="header must be a str \\(use '' for none\\), got NoneType"):
            backend.check(code, header=None)  # type: ignore[arg-type]
        with pytest.raises(ConfigError, match="timeout must be seconds as a number or None, got str '5'"):
            backend.check(code, timeout="5")  # type: ignore[arg-type]
        for bad in (float("nan"), float("inf"), 0, -1.0):
            with pytest.raises(ConfigError, match="finite number of seconds above 0"):
                backend.check(code, timeout=bad)
        assert backend.check(code, timeout=np.float32(30)).status == "proved"
    finally:
        backend.close()


# ------------------------------------------------------------------------------------------ async vector envs
@pytest.mark.parametrize("env_id", ["LeanAesop-v0", "LeanProof-v0"])
def test_async_vector_env_survives_bad_actions_and_closes(env_id: str) -> None:
    env = gym.make_vec(
        env_id, num_envs=2, vectorization_mode="async", backend="sim", source="sim", split="test"
    )
    try:
        env.reset(seed=0)
        good = env.action_space.sample() if env_id == "LeanAesop-v0" else ("  omega", "  simp")
        bad_batches = [good[:1], None, [1, 2]]  # wrong length, no batch, wrong element type
        if env_id == "LeanAesop-v0":
            out_of_range = good.copy()
            out_of_range[1, 3] = 99
            bad_batches += [good[:, :5], out_of_range]
        for bad in bad_batches:
            with pytest.raises(BadActionError):
                env.step(bad)
        # the workers never saw the bad batches: the env still steps, every sub-env answers
        _, rewards, *_ = env.step(good)
        assert rewards.shape == (2,)
    finally:
        env.close()
    assert not any(p.is_alive() for p in env.processes)
