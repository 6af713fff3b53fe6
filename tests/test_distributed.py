"""RayBackend on a local 2-CPU Ray: spreading, header affinity, and actors that die in the middle of a batch.

One Ray instance serves the whole module (starting Ray takes seconds); the planner is tested without Ray.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import pytest

import lean_gym  # noqa: F401  (registers the ids)
from lean_gym.backends import CheckResult, SimBackend
from lean_gym.distributed import RayBackend, plan_batch
from lean_gym.errors import LeanGymError

pytestmark = pytest.mark.slow  # a local Ray cluster per module: seconds to start, many to run

H_A = "import Mathlib"
H_B = "import Mathlib\nopen Real"
GOOD = "theorem t{} (a b : ℕ) : a + b + {} = b + a + {} := by ring"
BAD = "theorem t{} : (2 : ℕ) + {} = 5 + {} := by norm_num"


def _codes(n: int) -> list[str]:
    """Distinct checks whose verdicts alternate (proved, error, ...): a misplaced answer shows."""
    return [(GOOD if k % 2 == 0 else BAD).format(k, k, k) for k in range(n)]


def _expected(codes: list[str], headers: list[str]) -> list[str]:
    local = SimBackend()
    return [local.check(c, header=h).status for c, h in zip(codes, headers)]


# ------------------------------------------------------------------------------------------ planner
def test_plan_batch_prefers_holders_and_spreads() -> None:
    holders: dict[int, set[str]] = {0: {"A"}, 1: {"B"}}
    plan = plan_batch(["A", "B", "A", "B"], holders, [0, 1])
    assert plan == {0: [0, 2], 1: [1, 3]}
    # One header, two actors: the work spreads evenly; afterwards both hold the header.
    holders = {0: {"A"}, 1: set()}
    plan = plan_batch(["A"] * 5, holders, [0, 1])
    assert sorted(len(v) for v in plan.values()) == [2, 3]
    assert holders == {0: {"A"}, 1: {"A"}}
    # A new header goes to the actor that holds fewer headers.
    holders = {0: {"A"}, 1: set()}
    assert plan_batch(["C"], holders, [0, 1]) == {1: [0]}
    with pytest.raises(LeanGymError, match="no Ray actor is alive"):
        plan_batch(["A"], {}, [])


# ------------------------------------------------------------------------------------------ on Ray
@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield ray
    ray.shutdown()


def test_ray_backend_answers_in_order_with_header_affinity(local_ray: Any) -> None:
    with RayBackend("sim-repl", num_actors=2, pool_size=1, num_cpus_per_actor=0.5) as backend:
        assert backend.name == "ray:sim-repl"
        a = backend.check(GOOD.format(0, 0, 0), header=H_A)
        b = backend.check(GOOD.format(1, 1, 1), header=H_B)
        assert (a.status, b.status, a.backend) == ("proved", "proved", "sim-repl")
        assert backend.stats.checks_by_actor == {0: 1, 1: 1}  # the second header went to the idle actor

        codes = _codes(12)
        headers = [H_A if k % 2 == 0 else H_B for k in range(12)] * 1
        results = backend.check_batch(codes, header=headers)
        assert [r.status for r in results] == _expected(codes, headers)
        # Affinity: each actor (one process each) imported only the header it already held.
        imports = [s["header_imports"] for s in backend.actor_stats()]
        assert imports == [1, 1]
        assert backend.stats.answered == 14 and backend.stats.duplicates == 0

        # Every env runs on it unchanged: the pooled vector env sends a step's checks as one batch.
        venv = gym.make_vec(
            "LeanAesop-v0", num_envs=4, vectorization_mode="vector_entry_point", backend=backend
        )
        venv.reset(seed=0)
        _, rewards, _, _, info = venv.step(venv.action_space.sample())
        assert list(info["backend"]) == ["sim-repl"] * 4 and set(rewards) <= {1.0, -1.0}
        venv.close()


def _crash_once_backend(marker: str) -> Any:
    """A factory (pickled by value to the actors) whose backend kills its actor's process the first time
    it meets the poisoned check, wherever that is, and answers it normally afterwards."""

    def make() -> Any:
        import os

        from lean_gym.backends import SimBackend

        class CrashOnce(SimBackend):
            def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
                if "t5 " in code and not os.path.exists(marker):
                    open(marker, "w").close()
                    os._exit(1)  # the actor's process dies in the middle of its chunk
                return super().check(code, header=header, timeout=timeout)

        return CrashOnce()

    return make


def _gated_backend(gate: str) -> Any:
    """A backend whose checks announce themselves (a file ``started-<pid>`` in ``gate``) and then wait for
    the file ``go``: the driver knows when every actor is in the middle of a check, whatever the load."""

    def make() -> Any:
        import os
        import time

        from lean_gym.backends import SimBackend

        class Gated(SimBackend):
            def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
                open(os.path.join(gate, f"started-{os.getpid()}"), "w").close()
                deadline = time.monotonic() + 60
                while not os.path.exists(os.path.join(gate, "go")) and time.monotonic() < deadline:
                    time.sleep(0.01)
                return super().check(code, header=header, timeout=timeout)

        return Gated()

    return make


def _wait_for(predicate: Any, what: str, seconds: float = 60.0) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.01)


def test_dead_actors_lose_no_check_and_answer_none_twice(local_ray: Any, tmp_path: Any) -> None:
    codes = _codes(16)
    headers = [H_A] * 16
    expected = _expected(codes, headers)

    # (1) The backend kills its own actor in the middle of a chunk.
    marker = str(tmp_path / "crashed")
    with RayBackend(
        _crash_once_backend(marker), num_actors=2, num_cpus_per_actor=0.5, max_chunk=4
    ) as backend:
        results = backend.check_batch(codes, header=headers)
        lost = sum(r is None for r in results)
        assert (len(results), lost, backend.stats.duplicates) == (16, 0, 0)
        assert [r.status for r in results] == expected
        assert backend.stats.actor_deaths == 1 and backend.stats.retried >= 1
        assert backend.stats.answered == 16
        # The dead actor was replaced: the next batch uses both slots again.
        assert [r.status for r in backend.check_batch(codes, header=headers)] == expected

    # (2) The driver kills an actor (ray.kill) while its chunk is running: both actors hold a check that
    # waits for the gate, the driver kills one of them, then opens the gate.
    gate = tmp_path / "gate"
    gate.mkdir()
    with RayBackend(_gated_backend(str(gate)), num_actors=2, num_cpus_per_actor=0.5) as backend:
        victim = backend.actors[0]
        out: dict[str, Any] = {}
        driver = threading.Thread(
            target=lambda: out.update(results=backend.check_batch(codes, header=headers))
        )
        driver.start()
        _wait_for(lambda: len(list(gate.glob("started-*"))) >= 2, "both actors to start a check")
        local_ray.kill(victim, no_restart=True)
        (gate / "go").touch()
        driver.join(timeout=120)
        assert not driver.is_alive()
        results = out["results"]
        assert [r.status for r in results] == expected
        assert (backend.stats.answered, backend.stats.duplicates, backend.stats.actor_deaths) == (16, 0, 1)


def test_bench_ray_mode_names_both_backends(local_ray: Any) -> None:
    from lean_gym.bench import run_bench

    report = run_bench("LeanAesop-v0", backend="sim-repl", modes=["pooled", "ray"], sizes=[2], steps=6)
    pooled, on_ray = report.rows
    assert (pooled.backend, on_ray.backend) == ("sim-repl", "ray:sim-repl")
    assert on_ray.verdicts_by == "sim-repl"  # the verdicts came from the simulator on the actors
    assert on_ray.statuses == pooled.statuses and sum(on_ray.statuses.values()) == on_ray.steps == 6
    assert on_ray.steps_per_s == pytest.approx(on_ray.steps / on_ray.wall_s)


def test_eval_runs_on_ray_unchanged(local_ray: Any, tmp_path: Any, capsys: Any) -> None:
    import json

    from lean_gym.cli import main
    from lean_gym.data import load_theorems

    (th,) = load_theorems("sim", split="test", limit=1)
    honest = "rcases h₀ with h | h\n  · exact h₁ h\n  · exact h₂ h"  # proves sim_prop_test_0000
    rows = [{"name": th.name, "proof": "sorry"}, {"name": th.name, "proof": honest}]
    cands = tmp_path / "c.jsonl"
    cands.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    argv = ["eval", str(cands), "--dataset", "sim", "--split", "test", "-k", "1", "--quiet", "--json"]
    assert main([*argv, "--backend", "ray:sim-repl"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["backend"] == "ray:sim-repl"
    assert report["accepted"] == 1 and report["hack_classes"] == {"sorry": 1}
