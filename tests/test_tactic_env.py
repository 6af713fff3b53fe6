"""LeanTactic-v0 and tactic-mode sessions: against the real REPL transcripts, and on the simulator."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from proof_fakes import ScriptedLean
from transcripts import replay_command, transcript

import lean_gym  # noqa: F401
from lean_gym.backends import ReplBackend, SimBackend
from lean_gym.backends.repl import sim_command
from lean_gym.backends.tactic import ProofSession, classify_tactic_response
from lean_gym.envs.tactic_env import LeanTacticEnv, LeanTacticVectorEnv, assemble_proof, decode_states
from lean_gym.errors import BadActionError, ConfigError, ResetNeededError

HERE = Path(__file__).parent

AND = {"name": "t_and", "formal_statement": "theorem t_and (p q : Prop) (hp : p) (hq : q) : p ∧ q := by\n"}
OR = {
    "name": "t_or",
    "formal_statement": "theorem t_or (p q r : Prop) (h : p ∨ q) (hp : p → r) (hq : q → r) : r := by\n",
}
# A proof of OR in three steps.
OR_PATH = ["rcases h with h | h", "exact hp h", "exact hq h"]


def replay(name: str) -> ReplBackend:
    """A backend whose process answers the recorded transcript ``name`` (a shipped REPL case)."""
    cmd = [sys.executable, *replay_command(name)]
    return ReplBackend(command=cmd, pool_size=1, timeout=30.0, name="replay")


# ------------------------------------------------------------------------------------ real transcripts
@pytest.mark.parametrize(
    ("name", "kinds"),
    [
        ("proof_step", ["open", "open", "completed"]),
        ("tactic_mode_sorry", ["sorry"]),
        ("invalid_tactic", ["error"]),
        ("unknown_proof_state", ["lost"]),
        ("readme", ["open", "completed"]),
        # goals == [] but "Incomplete: contains metavariable(s)": not a completed proof
        ("name_generator", ["sorry"] + ["error"] * 7),
        # goals == [] but "Error: kernel type check failed: ...": not a completed proof
        ("self_proof_rw", ["error"]),
    ],
)
def test_classify_every_recorded_tactic_response(name: str, kinds: list[str]) -> None:
    requests, responses = transcript(name)
    got = [classify_tactic_response(r)[0] for q, r in zip(requests, responses) if "tactic" in q]
    assert got == kinds


def test_proof_step_transcript_branches_and_completed_needs_the_oracle() -> None:
    oracle = ScriptedLean()
    env = LeanTacticEnv(
        backend=replay("proof_step"),
        theorems=[{"name": "f", "formal_statement": "def f : Nat := by\n"}],
        oracle_backend=oracle,  # type: ignore[arg-type]
        action="dict",
    )
    obs, info = env.reset(seed=0)
    assert obs == "⊢ Nat" and info["status"] == "open"
    obs, r, _, _, info = env.step({"state": 0, "tactic": "apply Int.natAbs"})
    assert (obs, r, info["state"]) == ("⊢ Int", 0.0, 1)
    obs, r, term, _, info = env.step({"state": 0, "tactic": "have t : Nat := 42"})  # branch from 0
    assert obs == "t : Nat\n⊢ Nat" and info["state"] == 2 and info["path"] == ["have t : Nat := 42"]
    obs, r, term, _trunc, info = env.step("exact t")
    # Lean's tactic mode said Completed; the oracle did not confirm (it judges theorems, and this is a
    # `def`): recorded, never rewarded, and the agent stays on its last open state.
    assert info["proof_status"] == "Completed" and info["status"] == "unconfirmed"
    assert r == 0.0 and not term and obs == "t : Nat\n⊢ Nat" and oracle.calls == []
    assert env.proof(3) == "def f : Nat := by\n  have t : Nat := 42\n  exact t\n"
    assert info["backend"] == "replay"
    env.close()
    env.backend.close()


def test_invalid_tactic_transcript_goals_empty_with_error_is_not_success() -> None:
    env = LeanTacticEnv(
        backend=replay("invalid_tactic"),
        theorems=[{"name": "my_theorem", "formal_statement": "theorem my_theorem (x : Nat) : x = x := by\n"}],
        oracle_backend=ScriptedLean(),  # type: ignore[arg-type]
    )
    obs0, _ = env.reset(seed=0)
    obs, r, term, _trunc, info = env.step("exact my_fake_premise")
    assert info["status"] == "error" and "my_fake_premise" in info["error"]
    assert info["proof_status"] == "Incomplete: contains sorry"
    assert (r, term, obs, info["state"]) == (0.0, False, obs0, 0)
    env.backend.close()


def test_tactic_mode_sorry_transcript_sorry_is_refused_before_lean() -> None:
    env = LeanTacticEnv(
        backend=replay("tactic_mode_sorry"),
        theorems=[{"name": "f", "formal_statement": "def f : Nat := by\n"}],
        oracle_backend=ScriptedLean(),  # type: ignore[arg-type]
    )
    env.reset(seed=0)
    _, r, _term, _, info = env.step("sorry")
    assert info["status"] == "refused" and info["hack_class"] == "sorry" and r == 0.0
    # The refused tactic never reached the process: the recorded `sorry` request is still next in line,
    # and sent through the session it is classified as a sorry, not a success.
    out = env.session.run_tac(0, "sorry")
    assert out.kind == "sorry" and out.proof_status == "Incomplete: contains sorry"
    env.backend.close()


def test_unknown_proof_state_transcript_is_a_lost_state_not_an_exception() -> None:
    backend = replay("unknown_proof_state")
    s = ProofSession(backend, "def f : Nat := by")
    assert s.start().kind == "open"
    aff, _ = s.nodes[0].binding  # type: ignore[misc]
    s.nodes[0].binding = (aff, 1)  # a stale id, as after a restart the client missed
    out = s.run_tac(0, "exact 42")
    # The process answers "Unknown proof state.": the session rebuilds the state rather than raise, and
    # the recorded transcript (which has no rebuild in it) answers that with a mismatch or its end.
    assert out.kind in ("error", "crashed") and out.rebuilt == "replay" and s.stats.rebuilds >= 1
    backend.close()


def test_pickle_proof_state_transcript_rebuilds_from_pickles() -> None:
    backend = replay("pickle_proof_state_1")
    s = ProofSession(backend, "def f : Nat := by", header="import Lean", rebuild="pickle")
    paths = {0: "test/c.olean", 1: "test/d.olean"}
    s._pickle_path = paths.__getitem__  # type: ignore[method-assign]
    assert s.start().goals == ("⊢ Nat",)
    s.nodes[0].binding = None  # the state is lost: the next tactic must unpickle it first
    out = s.run_tac(0, "have t : Nat := 42")
    assert (out.kind, out.rebuilt, out.goals) == ("open", "pickle", ("t : Nat\n⊢ Nat",))
    s.nodes[1].binding = None
    out = s.run_tac(1, "exact t")
    assert (out.kind, out.rebuilt, out.proof_status) == ("completed", "pickle", "Completed")
    assert s.stats.by_mode == {"pickle": 2} and s.stats.pickles == 2
    backend.close()


# ------------------------------------------------------------------------------------ simulator
def test_episode_on_the_simulator_proves_and_reports_the_proof() -> None:
    env = gym.make("LeanTactic-v0", backend="sim", theorems=[OR])
    obs, info = env.reset(seed=0)
    assert obs.endswith("⊢ r") and info["backend"] == "sim"
    rewards = []
    for tac in OR_PATH:
        obs, r, term, trunc, info = env.step(tac)
        rewards.append(r)
    assert rewards == [0.0, 0.0, 1.0] and term and not trunc
    assert info["status"] == "proved" and info["accepted"] and obs == "no goals"
    assert info["proof"] == assemble_proof(OR["formal_statement"], OR_PATH)
    with pytest.raises(ResetNeededError, match="episode is over"):
        env.step("skip")
    env.close()


def test_goals_are_as_lean_prints_them_and_errors_keep_the_state() -> None:
    env = LeanTacticEnv(backend="sim", theorems=[AND], step_penalty=0.1)
    obs0, _ = env.reset(seed=0)
    assert obs0 == "p q : Prop\nhp : p\nhq : q\n⊢ p ∧ q"
    obs, r, term, _, info = env.step("exact hq")
    assert info["status"] == "error" and obs == obs0 and r == pytest.approx(-0.1) and not term
    obs, r, _, _, info = env.step("constructor")
    assert obs == "case left\np q : Prop\nhp : p\nhq : q\n⊢ p\n\ncase right\np q : Prop\nhp : p\nhq : q\n⊢ q"
    assert info["status"] == "open" and info["path"] == ["constructor"]
    env.close()


@pytest.mark.parametrize(
    ("tactic", "hack_class"),
    [
        ("sorry", "sorry"),
        ("admit", "admit"),
        ("native_decide", "native_decide"),
        ("exact (sorry : False).elim", "sorry"),
        ("all_goals sorry", "sorry"),
    ],
)
def test_banned_tactics_never_reach_lean(tactic: str, hack_class: str) -> None:
    backend = SimBackend()
    env = LeanTacticEnv(backend=backend, theorems=[AND])
    env.reset(seed=0)
    before = env.session.stats.tactics  # type: ignore[union-attr]
    _, r, _, _, info = env.step(tactic)
    assert info["status"] == "refused" and info["hack_class"] == hack_class and r == 0.0
    assert env.session.stats.tactics == before  # type: ignore[union-attr]


class _RejectingOracle:
    """Wraps a backend: tactic mode as usual, but every whole-proof check fails (the oracle disagrees)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.lease = inner.lease
        self.checks = 0

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> Any:
        self.checks += 1
        from lean_gym.backends import CheckResult
        from lean_gym.lean.protocol import Message, Position

        return CheckResult(
            "error", (Message("error", Position(2, 2), None, "type mismatch"),), (), 0.0, self.name
        )

    def check_batch(self, codes: Any, *, header: Any = "", timeout: float | None = None) -> list[Any]:
        return [self.check(c) for c in codes]

    def close(self) -> None:
        self.inner.close()


def test_completed_in_tactic_mode_without_the_oracle_is_never_rewarded() -> None:
    backend = _RejectingOracle(SimBackend())
    env = LeanTacticEnv(backend=backend, theorems=[AND], max_steps=5)  # type: ignore[arg-type]
    env.reset(seed=0)
    env.step("constructor")
    env.step("exact hp")
    obs, r, term, trunc, info = env.step("exact hq")
    assert info["proof_status"] == "Completed" and info["status"] == "unconfirmed"
    assert r == 0.0 and not term and backend.checks == 1
    assert info["hack_class"] == "proof_error" and "oracle rejects" in info["error"]
    # The agent stays on the last open state and the episode goes on to truncation.
    assert obs.endswith("⊢ q")
    _, _, term, trunc, _ = env.step("skip")
    _, _, term, trunc, _ = env.step("skip")
    assert trunc and not term


def test_truncated_after_max_steps_and_unknown_states_are_data() -> None:
    env = LeanTacticEnv(backend="sim", theorems=[AND], max_steps=2, action="dict")
    env.reset(seed=0)
    _, _r, term, trunc, info = env.step({"state": 7, "tactic": "skip"})
    assert info["status"] == "unknown_state" and not (term or trunc)
    _, _, term, trunc, _ = env.step({"state": 0, "tactic": "skip"})
    assert trunc and not term
    with pytest.raises(BadActionError, match="state"):
        env.reset(seed=0)
        env.step({"state": "0", "tactic": "skip"})
    with pytest.raises(BadActionError):
        env.step(3)


def test_run_tac_expands_any_state_without_counting_steps() -> None:
    env = LeanTacticEnv(backend="sim", theorems=[OR], max_steps=1, observation="states")
    env.reset(seed=0)
    a = env.run_tac(0, "rcases h with h | h")
    b = env.run_tac(0, "cases h")
    assert a.status == b.status == "open" and a.state != b.state
    done = env.run_tac(env.run_tac(a.state, "exact hp h").state, "exact hq h")  # type: ignore[arg-type]
    assert done.proved and done.reward == 1.0
    assert env.proof(done.state).endswith("  rcases h with h | h\n  exact hp h\n  exact hq h\n")
    _, _, _, trunc, _ = env.step("skip")  # run_tac did not use the one step
    assert trunc
    opened = decode_states(env._obs())["open"]
    assert [s["state"] for s in opened] == [0, 1, 2, 3, 5]  # 4 has no goals; 5 is the `skip` step


def test_a_backend_without_tactic_mode_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="no tactic mode"):
        LeanTacticEnv(backend=ScriptedLean(), theorems=[AND])  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", [{}, {"observation": "states", "action": "dict"}, {"rebuild": "pickle"}])
def test_check_env_in_every_mode(mode: dict[str, Any]) -> None:
    env = gym.make("LeanTactic-v0", backend="sim", split="test", **mode)
    check_env(env.unwrapped)
    env.close()


# ------------------------------------------------------------------------------------ dead processes
def _run(env: LeanTacticEnv, kill_after: int | None) -> list[tuple[Any, ...]]:
    obs, _ = env.reset(seed=0, options={"index": 0})
    trace: list[tuple[Any, ...]] = [(obs,)]
    for k, tac in enumerate(OR_PATH):
        if kill_after is not None and k == kill_after:
            pool = env.backend.pool  # type: ignore[attr-defined]
            for pid in pool.pids:
                os.kill(pid, signal.SIGKILL)
        obs, r, term, trunc, info = env.step(tac)
        trace.append((obs, r, term, trunc, info["status"], info["state"], info["path"], info["rebuilt"]))
    return trace


@pytest.mark.parametrize("rebuild", ["replay", "pickle"])
def test_killing_the_process_mid_episode_changes_nothing_the_agent_sees(rebuild: str) -> None:
    backend = ReplBackend(command=sim_command(), pool_size=1, timeout=60.0)
    try:
        env = LeanTacticEnv(backend=backend, theorems=[OR], rebuild=rebuild)
        clean = _run(env, None)
        killed = _run(env, 1)
        strip = [t[:-1] for t in clean]
        assert [t[:-1] for t in killed] == strip  # observations, rewards, ends, states, paths
        assert [t[-1] for t in killed[1:]] == [None, rebuild, None]
        assert killed[-1][1] == 1.0
        assert backend.stats.starts >= 2
    finally:
        backend.close()


def test_recycled_process_is_rebuilt_too() -> None:
    backend = ReplBackend(command=sim_command(), pool_size=1, max_uses=2, timeout=60.0)
    try:
        env = LeanTacticEnv(backend=backend, theorems=[OR])
        trace = _run(env, None)
        assert trace[-1][1] == 1.0 and backend.stats.recycles >= 1
        assert "replay" in [t[-1] for t in trace[1:]]
    finally:
        backend.close()


def test_states_keep_their_process_in_a_shared_pool() -> None:
    backend = ReplBackend(command=sim_command(), pool_size=2, timeout=60.0)
    try:
        venv = LeanTacticVectorEnv(2, backend=backend, theorems=[OR, AND])
        venv.reset(seed=0, options={"index": [0, 1]})
        _, r, term, _, info = venv.step(["rcases h with h | h", "constructor"])
        sessions = [e.session for e in venv.envs]
        workers = {s.affinity(1).worker for s in sessions}
        assert workers == {0, 1}  # one process each, chosen at start and kept
        _, r, term, _, info = venv.step(["exact hp h", "exact hp"])
        _, r, term, _, info = venv.step(["exact hq h", "exact hq"])
        assert r.tolist() == [1.0, 1.0] and term.all()
        assert list(info["rebuilt"]) == [None, None] and backend.stats.starts == 2
        venv.close()
    finally:
        backend.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_gymnasium_sync_and_async_vector_modes(mode: str) -> None:
    venv = gym.make_vec(
        "LeanTactic-v0", num_envs=2, vectorization_mode=mode, backend="sim", theorems=[OR], max_steps=4
    )
    obs, _ = venv.reset(seed=0)
    assert all(o.endswith("⊢ r") for o in obs)
    for tac in OR_PATH:
        obs, r, term, _trunc, _info = venv.step([tac, tac])
    assert r.tolist() == [1.0, 1.0] and term.all()
    venv.close()


def test_a_timed_out_tactic_costs_one_step_and_the_state_comes_back() -> None:
    env = LeanTacticEnv(backend="sim", theorems=[OR])
    env.reset(seed=0)
    obs1, *_ = env.step(OR_PATH[0])
    env.session.timeout = 1e-9  # type: ignore[union-attr]  # the next request runs past its deadline
    obs, r, term, trunc, info = env.step("simp_all")
    assert info["status"] == "timeout" and obs == obs1 and r == 0.0 and not (term or trunc)
    env.session.timeout = None  # type: ignore[union-attr]
    obs, _, _, _, info = env.step(OR_PATH[1])
    assert info["status"] == "open" and info["rebuilt"] == "replay" and obs.endswith("h : q\n⊢ r")
