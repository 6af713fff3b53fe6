"""The public extension API: the one verdict pipeline, the backend registry and capabilities, the info
``TypedDict``\\ s, and the deprecated names that keep old imports working."""

from __future__ import annotations

import sys
import typing
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.backends import (
    Capabilities,
    CheckRequest,
    CheckResult,
    LazyBackend,
    SimBackend,
    VerdictCache,
    backend_names,
    capabilities_of,
    check_backend_spec,
    is_backend,
    make_backend,
    register_backend,
    unregister_backend,
)
from lean_gym.envs import info as infos
from lean_gym.errors import ConfigError, MissingDependencyError
from lean_gym.grading import Oracle, Plan, WeakGrader, make_weak_grader

THM = {"name": "t", "formal_statement": "theorem t (a b : Nat) : a + b = b + a := by\n"}
PROOF = "theorem t (a b : Nat) : a + b = b + a := by\n  omega"
SORRY = "theorem t (a b : Nat) : a + b = b + a := by\n  sorry"


@dataclass
class Counting:
    """A backend over the simulator that records every request it gets (one entry per check)."""

    name: str = "counting"
    inner: SimBackend = field(default_factory=SimBackend)
    asked: list[tuple[str, str, float | None]] = field(default_factory=list)
    batches: int = 0

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        self.asked.append((code, header, timeout))
        return self.inner.check(code, header=header, timeout=timeout)

    def check_batch(self, codes: Any, *, header: Any = "", timeout: float | None = None) -> list[CheckResult]:
        self.batches += 1
        headers = [header] * len(codes) if isinstance(header, str) else list(header)
        return [self.check(c, header=h, timeout=timeout) for c, h in zip(codes, headers)]

    def close(self) -> None:
        pass


# ------------------------------------------------------------------------------------------ the pipeline
def test_a_plan_concludes_what_judge_says() -> None:
    backend = Counting()
    oracle = Oracle(backend)
    for sub in (PROOF, SORRY, "theorem t (a b : Nat) : a + b = b + a := by\n  rfl"):
        plan = oracle.plan(THM, sub)
        results = [backend.check(r.code, header=r.header) for r in plan.requests]
        got, want = plan.conclude(results), oracle.judge(THM, sub)
        assert (got.accepted, got.hack_class, got.reason, got.axioms) == (
            want.accepted,
            want.hack_class,
            want.reason,
            want.axioms,
        )


def test_a_plan_refuses_results_that_do_not_match_its_requests() -> None:
    plan = Oracle(SimBackend()).plan(THM, PROOF)
    with pytest.raises(ValueError, match="needs 1 results, got 0"):
        plan.conclude([])


def test_a_caller_bound_can_tighten_the_oracles_length_bound_never_loosen_it() -> None:
    oracle = Oracle(Counting(), max_chars=200)
    long = PROOF + "\n" + "-- padding\n" * 40
    assert oracle.plan(THM, long, max_chars=10**9).conclude([]).hack_class == "oversized_submission"
    short = oracle.plan(THM, PROOF, max_chars=20)
    assert short.requests == () and short.conclude([]).hack_class == "oversized_submission"


def test_the_oversized_path_is_judged_under_the_oracles_own_rules() -> None:
    # LeanProof-v0 refuses an action over its bound through the oracle (its reason names that bound).
    env = gym.make(
        "LeanProof-v0", backend="sim", theorems=[THM], max_action_chars=20, allow_native_decide=True
    )
    env.reset(seed=0)
    _, reward, _, _, info = env.step("  omega" + " " * 30)
    assert (reward, info["hack_class"], info["status"]) == (-1.0, "oversized_submission", "refused")
    assert "bound of 20" in info["reason"] and info["response_truncated"]
    env.close()


def test_the_weak_grader_and_the_oracle_share_one_check() -> None:
    backend = Counting()
    oracle = Oracle(backend)
    weak = make_weak_grader("accept_sorry")
    plan = oracle.plan(THM, SORRY, graders=(weak, oracle))
    assert len(plan.requests) == 1  # accept_sorry reads the same check the oracle would make
    weak_v, oracle_v = plan.verdicts(oracle.run([plan])[0])
    assert (weak_v.accepted, oracle_v.accepted, oracle_v.hack_class) == (True, False, "sorry")
    assert len(backend.asked) == 1


def test_a_grader_that_lets_imports_through_checks_under_its_own_header() -> None:
    oracle = Oracle(Counting())
    sub = "import Mathlib.Tactic\n" + PROOF
    plan = oracle.plan(THM, sub, graders=(make_weak_grader("errors_only"), oracle))
    # the oracle refuses the extra import before Lean; errors_only checks with it in the header
    assert [r.header for r in plan.requests] == ["import Mathlib.Tactic\n"]
    assert plan.verdicts(oracle.run([plan])[0])[1].hack_class == "extra_import"


def test_judge_batch_sends_one_batch_and_identical_checks_once() -> None:
    backend = Counting()
    other = "theorem t (a b : Nat) : a + b = b + a := by\n  exact Nat.add_comm a b"
    verdicts = Oracle(backend).judge_batch([(THM, PROOF), (THM, PROOF), (THM, SORRY), (THM, other)])
    assert [v.accepted for v in verdicts] == [True, True, False, True]
    assert backend.batches == 1 and len(backend.asked) == 2  # PROOF once, the other once; sorry: refused


def test_the_cache_keys_on_header_code_and_timeout() -> None:
    backend, cache = Counting(), VerdictCache(8)
    a, b = CheckRequest(PROOF, ""), CheckRequest(PROOF, "import Mathlib")
    cache.run(backend, [a, b], timeout=5.0)
    cache.run(backend, [a, b], timeout=5.0)
    assert len(backend.asked) == 2  # the second call came from the cache
    cache.run(backend, [a], timeout=6.0)  # another deadline is another check
    assert len(backend.asked) == 3
    assert cache.get(("", PROOF, 5.0)) is cache.lookup(a, 5.0)  # the old key order reads the same entry


def test_the_cache_never_keeps_a_timeout_or_a_crash() -> None:
    cache = VerdictCache(8)
    for status in ("timeout", "crashed"):
        cache.store(CheckRequest("x"), None, CheckResult(status))  # type: ignore[arg-type]
    assert len(cache) == 0 and cache.lookup(CheckRequest("x"), None) is None


def test_every_env_reaches_its_verdict_through_the_cache_run() -> None:
    # A vector env answers repeated checks from its shared cache, with one backend call per step.
    backend = Counting()
    venv = gym.make_vec(
        "LeanProof-v0", num_envs=3, vectorization_mode="vector_entry_point", backend=backend, theorems=[THM]
    )
    venv.reset(seed=0)
    venv.step(["  omega", "  omega", "  sorry"])
    assert len(backend.asked) == 1  # two identical checks once; sorry refused before Lean
    venv.step(["  omega", "  omega", "  omega"])  # every sub-env ended: this step resets them
    venv.step(["  omega", "  omega", "  omega"])
    assert len(backend.asked) == 1 and venv.unwrapped.cache_hits == 1
    venv.close()


# ------------------------------------------------------------------------------------------ the registry
def test_a_registered_backend_is_built_by_name_and_resolved_only_then() -> None:
    register_backend("test-counting", "tests.test_public_api:Counting", summary="counts")
    try:
        assert "test-counting" in backend_names()
        b = make_backend("test-counting")
        assert type(b).__name__ == "Counting" and b.name == "counting"  # imported by its name, now
        with pytest.raises(ConfigError, match=r"did you mean 'test-counting'\?"):
            check_backend_spec("test-countin")
        with pytest.raises(ConfigError, match="already registered"):
            register_backend("test-counting", "tests.test_public_api:Counting")
    finally:
        unregister_backend("test-counting")
    with pytest.raises(ConfigError, match="unknown backend 'test-counting'"):
        check_backend_spec("test-counting")


def test_an_entry_whose_module_is_missing_is_one_clear_line() -> None:
    register_backend("test-missing", "no_such_module_anywhere:Backend")
    try:
        with pytest.raises(
            MissingDependencyError, match="needs no_such_module_anywhere, which is not installed"
        ):
            make_backend("test-missing")
    finally:
        unregister_backend("test-missing")


def test_the_registry_does_not_import_the_cluster_layer() -> None:
    # Checking every built-in name imports no backend's code: not Ray's, the simulator's or the REPL pool's.
    import subprocess

    code = (
        "import sys, lean_gym.backends as b\n"
        "[b.check_backend_spec(n) for n in ('auto', 'sim', 'sim-repl', 'repl', 'ray', 'ray:repl')]\n"
        "print(sorted(m for m in sys.modules if m.startswith(('lean_gym.distributed', 'lean_gym.sim',"
        " 'lean_gym.backends.sim', 'lean_gym.backends.repl', 'ray'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_only_the_simulators_own_process_skips_registering_the_envs(tmp_path: Path) -> None:
    # `python -m lean_gym.sim` (each process of a sim-repl pool) makes no env, so lean_gym/__init__ skips the
    # registration there (it imports gymnasium and numpy); every other start registers the ids on import
    import subprocess

    def imported(*argv: str) -> set[str]:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", *argv], input="", capture_output=True, text=True, check=True
        )
        return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}

    sim = imported("-m", "lean_gym.sim")
    assert "lean_gym.sim.server" in sim and not {"lean_gym.envs", "gymnasium", "numpy"} & sim
    assert "lean_gym.envs" in imported("-m", "lean_gym.cli", "--version")
    # the same words after a script are the script's arguments, not the interpreter's `-m`
    script = tmp_path / "user.py"
    script.write_text("import gymnasium, lean_gym\nprint('LeanAesop-v0' in gymnasium.registry)\n")
    out = subprocess.run(
        [sys.executable, str(script), "-m", "lean_gym.sim"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "True"


def test_capabilities_are_declared_not_guessed() -> None:
    from lean_gym.lean.versions import DEFAULT_LEAN_VERSION

    # no Lean version (the simulator is not Lean), but its messages are held to the pinned version's wording
    assert capabilities_of(SimBackend()) == Capabilities(
        in_process=True, tactic_mode=True, max_workers=1, messages_follow=DEFAULT_LEAN_VERSION
    )
    pool = make_backend("sim-repl", pool_size=2)
    try:
        caps = capabilities_of(pool)
        assert (caps.in_process, caps.concurrent, caps.tactic_mode, caps.max_workers) == (
            False,
            True,
            True,
            2,
        )
    finally:
        pool.close()
    assert capabilities_of(Counting()) == Capabilities()  # declares nothing: the conservative defaults


def test_a_lazy_backend_offers_the_backend_interface_not_everything() -> None:
    lazy = LazyBackend("sim")
    assert is_backend(lazy) and not lazy.built  # the check read no property
    assert lazy.capabilities.in_process and lazy.built
    with pytest.raises(AttributeError):
        lazy.generation  # noqa: B018  (a SimBackend attribute: on lazy.backend, not forwarded)
    assert lazy.backend.generation == 0  # reachable on the built backend itself
    lazy.close()


# ------------------------------------------------------------------------------------------ info dicts
def _keys(td: Any) -> tuple[set[str], set[str]]:
    hints = typing.get_type_hints(td)
    return set(hints), set(td.__required_keys__)


@pytest.mark.parametrize(
    ("env_id", "action", "reset_td", "step_td"),
    [
        ("LeanAesop-v0", None, infos.AesopResetInfo, infos.AesopStepInfo),
        ("LeanProof-v0", "  omega", infos.ProofResetInfo, infos.ProofStepInfo),
        ("LeanHackable-v0", "  sorry", infos.ProofResetInfo, infos.HackableStepInfo),
        ("LeanTactic-v0", "omega", infos.TacticResetInfo, infos.TacticStepInfo),
    ],
)
def test_info_typeddicts_list_exactly_the_keys_the_envs_return(
    env_id: str, action: Any, reset_td: Any, step_td: Any
) -> None:
    kwargs = {} if env_id == "LeanAesop-v0" else {"theorems": [THM]}
    env = gym.make(env_id, backend="sim", **kwargs)
    _, info = env.reset(seed=0)
    assert set(info) == _keys(reset_td)[0]
    _, _, _, _, info = env.step(env.action_space.sample() if action is None else action)
    every, required = _keys(step_td)
    assert required <= set(info) <= every
    env.close()


# ------------------------------------------------------------------------------------------ old names
def test_the_base_env_is_public_and_the_old_imports_still_work() -> None:
    from lean_gym.envs import TheoremEnv, _common
    from lean_gym.envs.base import TheoremEnv as Base

    assert TheoremEnv is Base is _common.TheoremEnv
    for name in (
        "RESET_OPTIONS",
        "VerdictCache",
        "as_theorem",
        "env_theorems",
        "reset_index",
        "resolve_backend",
    ):
        assert getattr(_common, name) is not None
    from lean_gym.backends.factory import BACKEND_NAMES
    from lean_gym.backends.factory import make_backend as old_make

    assert old_make is make_backend and "sim" in BACKEND_NAMES


def test_deprecated_names_warn_and_resolve() -> None:
    from lean_gym.lean import protocol

    with pytest.warns(DeprecationWarning, match="ResponseStatus"):
        assert protocol.Verdict is protocol.ResponseStatus  # type: ignore[attr-defined]
    import lean_gym.demo as old_demo
    from lean_gym_agents import demo

    with pytest.warns(DeprecationWarning, match="lean_gym_agents.demo"):
        assert old_demo.run_demo is demo.run_demo
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from lean_gym.buffers._aesop import ActionCodec, Layout  # the private old name, kept

        assert Layout is ActionCodec


def test_weak_graders_are_graders() -> None:
    from lean_gym.grading import Grader

    assert isinstance(make_weak_grader("accept_sorry"), Grader)
    assert isinstance(Oracle(SimBackend()), Grader)
    assert isinstance(WeakGrader("x", fn=lambda t, s, c: True), Grader)
    assert Plan.of(Oracle(SimBackend()).analyse(THM, SORRY), [make_weak_grader("errors_only")]).needs_lean


def test_lean_gym_demo_without_the_agents_package_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from lean_gym.cli import main

    monkeypatch.setitem(sys.modules, "lean_gym_agents.demo", None)  # import fails as if not installed
    assert main(["demo", "--backend", "sim", "--episodes", "1", "--no-plot"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert (
        len(err) == 1 and "`lean-gym demo` (it trains a reference agent) needs lean_gym_agents.demo" in err[0]
    )
