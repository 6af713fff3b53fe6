"""Every input a user (or a policy) can give is handled: a verdict, or one clear error, never a crash.

Issue 13: lone surrogates and invalid UTF-8, ``accept_sorry`` and forged axioms text, ``«t»`` names,
``reset(options=…)``, goal-less rows, backend arguments, the episode lifecycle and async vector envs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import pytest

import lean_gym  # noqa: F401
from lean_gym.backends import SimBackend, make_backend
from lean_gym.envs.hackable_env import LeanHackableEnv
from lean_gym.errors import ProtocolError
from lean_gym.lean.protocol import command_request, encode_request

ROOT = Path(__file__).resolve().parent.parent
THM = {"name": "t", "formal_statement": "theorem t (a b : ℕ) : a + b = b + a := by\n"}
SURROGATE = "theorem t (a b : ℕ) : a + b = b + a := by\n  omega -- \ud800"


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
    stmt = f"theorem {declared} (a b : ℕ) : a + b = b + a := by\n"
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
