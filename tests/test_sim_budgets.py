"""Budgets belong to the caller (DESIGN.md contract 8): the checked text can lower them, never raise them.

* heartbeats: work is charged (a growing context, ``simp_all`` over it, ``iterate`` over nothing), and
  ``set_option maxHeartbeats N`` in the text gets ``min(N, cap)`` with the caller's cap, in process, in
  tactic mode and behind the protocol (``sim-repl``);
* wall clock: every env passes a default deadline to every check, which the user (not the text) sets.

The adversarial script of issue 9 (``set_option maxHeartbeats 0 in`` + ``iterate 5000 have := h`` +
``simp_all``) took 57 s in one step; here it must end as a ``timeout`` verdict with the heartbeats it was
charged at the cap. Nothing asserts on wall-clock time.
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium as gym
import pytest

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.backends import DEFAULT_TIMEOUT_S, CheckResult, ReplBackend, SimBackend, make_backend
from lean_gym.backends.repl import sim_command
from lean_gym.sim import SimRepl
from lean_gym.sim.elab import Env
from lean_gym.sim.tactics import (
    DEFAULT_HEARTBEAT_CAP,
    HeartbeatsExceeded,
    TacticContext,
    goal_from_statement,
    heartbeat_cap,
    run_tactic_on_goals,
)

STMT = "(x : Nat) (h : x = 1) : x + 1 = 2"  # Lean core: no header needed
ADVERSARIAL = "iterate 5000 have := h\nsimp_all"
THEOREM = {"name": "t", "formal_statement": f"theorem t {STMT} := by\n"}


def _spent(script: str, *, option: int | None = 0, cap: int | None = None) -> tuple[int, str | None]:
    """Heartbeats charged running ``script`` on :data:`STMT` under ``set_option maxHeartbeats option``."""
    env = Env(options={} if option is None else {"maxHeartbeats": option})
    g = goal_from_statement(STMT)
    ctx = TacticContext(env=env) if cap is None else _ctx_with_cap(env, cap)
    try:
        run_tactic_on_goals([g], script, ctx, recover=True)
        return ctx.heartbeats, None
    except HeartbeatsExceeded as e:
        return ctx.heartbeats, e.message


def _ctx_with_cap(env: Env, cap: int) -> TacticContext:
    with heartbeat_cap(cap):
        return TacticContext(env=env)


def test_the_adversarial_script_is_stopped_at_the_default_cap() -> None:
    spent, err = _spent(ADVERSARIAL, option=0)
    assert err is not None and "maximum number of heartbeats (400000)" in err
    assert DEFAULT_HEARTBEAT_CAP <= spent <= DEFAULT_HEARTBEAT_CAP + 10_000


@pytest.mark.parametrize("option", [0, 5_000_000, 10**12])
def test_set_option_cannot_raise_the_callers_cap(option: int) -> None:
    spent, err = _spent(ADVERSARIAL, option=option, cap=30_000)
    assert err is not None and "maximum number of heartbeats (30000)" in err
    assert 30_000 <= spent <= 31_000


def test_set_option_can_lower_the_budget_and_the_caller_can_raise_it() -> None:
    _, err = _spent(ADVERSARIAL, option=2_000, cap=30_000)
    assert err is not None and "(2000)" in err
    spent, err = _spent("iterate 300 have := h\nsimp_all", option=0, cap=10_000_000)
    assert err is None and spent > DEFAULT_HEARTBEAT_CAP // 10


def test_a_growing_context_is_charged_for() -> None:
    small, _ = _spent("iterate 200 have := h", option=None, cap=0)
    large, _ = _spent("iterate 400 have := h", option=None, cap=0)
    # each `have` renames the older `this` through the whole context: twice the haves, ~4x the work
    assert large > 3 * small


def test_simp_all_over_a_large_context_is_charged_for() -> None:
    hyps = " ".join(f"(h{i} : x = 1)" for i in range(60))
    g = goal_from_statement(f"(x : Nat) {hyps} : x + 1 = 2")
    ctx = TacticContext(env=Env(), max_heartbeats=0)
    run_tactic_on_goals([g], "simp_all", ctx)
    assert ctx.heartbeats >= 60 * 60


def test_iterate_over_an_empty_body_ends() -> None:
    spent, err = _spent(f"iterate {10**12}\nsimp", option=0, cap=5_000)
    assert err is not None and spent <= 5_100


def test_repl_command_mode_caps_set_option() -> None:
    code = f"set_option maxHeartbeats 0 in\ntheorem t {STMT} := by\n  {ADVERSARIAL.replace(chr(10), chr(10) + '  ')}"
    resp = SimRepl(max_heartbeats=20_000).handle({"cmd": code})
    errors = [m["data"] for m in resp["messages"] if m["severity"] == "error"]
    assert errors and errors[0].startswith("(deterministic) timeout") and "(20000)" in errors[0]


def test_repl_tactic_mode_caps_set_option() -> None:
    repl = SimRepl(max_heartbeats=20_000)
    env = repl.handle({"cmd": "set_option maxHeartbeats 0"})["env"]
    st = repl.handle({"cmd": f"theorem t {STMT} := by sorry", "env": env})["sorries"][0]["proofState"]
    resp = repl.handle({"tactic": "iterate 5000 have := h", "proofState": st})
    assert resp["message"].startswith("Lean error:\n(deterministic) timeout") and "(20000)" in resp["message"]


def test_sim_backend_caps_an_option_moved_into_the_header() -> None:
    # split_header moves the leading `set_option` line into the header the backend elaborates once
    code = f"set_option maxHeartbeats 0\ntheorem t {STMT} := by\n  iterate 5000 have := h\n  simp_all"
    res = SimBackend(max_heartbeats=20_000).check(code)
    assert res.status == "error" and "(20000)" in res.errors[0].data


def test_sim_repl_process_takes_the_cap_on_its_command_line() -> None:
    assert sim_command(1234)[-2:] == ["--max-heartbeats", "1234"]
    code = f"set_option maxHeartbeats 0 in\ntheorem t {STMT} := by\n  iterate 5000 have := h\n  simp_all"
    with make_backend("sim-repl", max_heartbeats=20_000, pool_size=1, timeout=120) as backend:
        res = backend.check(code)
    assert res.status == "error" and "(20000)" in res.errors[0].data


def test_negative_caps_are_refused() -> None:
    with pytest.raises(ValueError, match="max_heartbeats must be >= 0"):
        SimRepl(max_heartbeats=-1)
    with pytest.raises(ValueError, match="max_heartbeats must be >= 0"):
        SimBackend(max_heartbeats=-1)


def test_leanproof_step_ends_as_a_timeout_verdict() -> None:
    env = gym.make("LeanProof-v0", backend="sim", theorems=[THEOREM])
    env.reset(seed=0)
    action = (
        "set_option maxHeartbeats 0 in\ntheorem t " + STMT + " := by\n  iterate 5000 have := h\n  simp_all"
    )
    _, reward, _, _, info = env.step(action)
    assert reward == -1.0 and info["status"] == "error" and info["hack_class"] == "timeout"
    assert "maximum number of heartbeats (400000)" in info["messages"]
    env.close()


class _Recording(SimBackend):
    def __init__(self) -> None:
        super().__init__()
        self.timeouts: list[float | None] = []

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        self.timeouts.append(timeout)
        return super().check(code, header=header, timeout=timeout)

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        self.timeouts.append(timeout)
        return super().check_batch(codes, header=header, timeout=timeout)


@pytest.mark.parametrize("env_id", ["LeanProof-v0", "LeanHackable-v0", "LeanAesop-v0"])
@pytest.mark.parametrize("timeout", [None, 7.5])
def test_every_env_passes_a_deadline_to_every_check(env_id: str, timeout: float | None) -> None:
    backend = _Recording()
    kw = {} if timeout is None else {"timeout": timeout}
    if env_id == "LeanAesop-v0":
        env = gym.make(env_id, backend=backend, **kw)
        env.reset(seed=0)
        env.step(env.action_space.sample())
    else:
        env = gym.make(env_id, backend=backend, theorems=[THEOREM], **kw)
        env.reset(seed=0)
        env.step("  omega")
    assert backend.timeouts and set(backend.timeouts) == {DEFAULT_TIMEOUT_S if timeout is None else timeout}
    env.close()


@pytest.mark.parametrize("timeout", [None, 7.5])
def test_tactic_env_sends_every_request_with_a_deadline(
    timeout: float | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lean_gym.backends import sim as sim_backend

    seen: list[float | None] = []
    real_send = sim_backend._SimLease.send

    def send(self, request, *, timeout=None):  # type: ignore[no-untyped-def]
        seen.append(timeout)
        return real_send(self, request, timeout=timeout)

    monkeypatch.setattr(sim_backend._SimLease, "send", send)
    kw = {} if timeout is None else {"timeout": timeout}
    env = gym.make("LeanTactic-v0", backend=SimBackend(), theorems=[THEOREM], **kw)
    env.reset(seed=0)
    env.step("omega")
    assert seen and set(seen) == {DEFAULT_TIMEOUT_S if timeout is None else timeout}
    env.close()


def test_backends_have_a_default_deadline() -> None:
    assert SimBackend().timeout == DEFAULT_TIMEOUT_S
    backend = ReplBackend(command=sim_command(), pool_size=1)
    try:
        assert backend.pool.default_timeout == DEFAULT_TIMEOUT_S
    finally:
        backend.close()
