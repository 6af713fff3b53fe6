"""Recording LeanAesop steps into a buffer: wrappers, dedup, the write-ahead log, and a real SIGKILL."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from lean_gym.aesop import uuid16
from lean_gym.backends.base import CheckResult
from lean_gym.buffers import (
    HistoryBuffer,
    RecordToBuffer,
    RecordVectorToBuffer,
    WriteAheadLog,
    read_wal,
    wal_path,
)

HERE = Path(__file__).resolve().parent
CHILD = HERE / "buffer_recording_child.py"
_spec = importlib.util.spec_from_file_location("buffer_recording_child", CHILD)
assert _spec is not None and _spec.loader is not None
child = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(child)
FakeAesopEnv, action_for_step, expected_reward = (
    child.FakeAesopEnv,
    child.action_for_step,
    child.expected_reward,
)


def run_steps(env: Any, ks: list[int], goal_index: int = 0) -> None:
    env.reset(seed=0, options={"index": goal_index})
    for k in ks:
        env.step(action_for_step(k))


def assert_rows_match_the_rule(buf: HistoryBuffer) -> None:
    """Every row's reward is the fake verdict for *its* goal and action (so obs and action were aligned)."""
    for row in buf.rows():
        assert row.action is not None
        assert row.reward == expected_reward(row.goal, row.action), row


# ------------------------------------------------------------------------------------------ single env
def test_record_to_buffer_writes_parquet_on_close(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    env = RecordToBuffer(FakeAesopEnv(), path)
    run_steps(env, [*range(10), 0, 1])  # the last two repeat (goal, action): deduplicated
    assert env.recorder.recorded == 10 and env.recorder.duplicates == 2
    assert wal_path(path).exists() and not path.exists()
    env.close()
    assert path.exists() and not wal_path(path).exists()
    back = HistoryBuffer.load(path)
    assert list(back.rows()) == list(env.buffer.rows())
    assert len(back) == 10
    assert {r.backend for r in back.rows()} == {"fake"}
    assert {r.status for r in back.rows()} == {"proved", "error"}
    assert_rows_match_the_rule(back)
    assert back.row(0).goal_uuid == uuid16(child.GOALS[0])


def test_reopen_continues_and_dedups_against_the_file(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    env = RecordToBuffer(FakeAesopEnv(), path)
    run_steps(env, list(range(5)))
    env.close()
    env = RecordToBuffer(FakeAesopEnv(), path)
    assert len(env.buffer) == 5
    run_steps(env, list(range(8)))
    assert env.recorder.recorded == 3 and env.recorder.duplicates == 5
    env.close()
    assert len(HistoryBuffer.load(path)) == 8


def test_jsonl_target_needs_no_pyarrow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    path = tmp_path / "run.jsonl"
    env = RecordToBuffer(FakeAesopEnv(), path, fsync=False)
    run_steps(env, list(range(4)), goal_index=2)
    env.close()
    back = HistoryBuffer.load(path)
    assert len(back) == 4 and {r.goal for r in back.rows()} == {child.GOALS[2]}


# ------------------------------------------------------------------------------------ write-ahead log
def test_torn_wal_tail_is_ignored_and_repaired(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    env = RecordToBuffer(FakeAesopEnv(), path)
    run_steps(env, list(range(4)))
    env.recorder.wal.close()  # "crash": no compaction
    wal = wal_path(path)
    with open(wal, "ab") as f:
        f.write(b'{"v": 1, "goal": "x : \xe2\x84')  # a line cut mid-write (even mid-character)
    assert len(read_wal(wal)) == 4
    assert len(HistoryBuffer.load(path)) == 4
    env = RecordToBuffer(FakeAesopEnv(), path)  # reopening cuts the torn line off, then appends
    assert wal.read_bytes().endswith(b"\n") and len(wal.read_bytes().splitlines()) == 4
    run_steps(env, list(range(4, 6)))
    assert len(read_wal(wal)) == 6
    env.close()
    assert len(HistoryBuffer.load(path)) == 6


def test_wal_keeps_a_complete_last_line_without_newline(tmp_path: Path) -> None:
    wal = tmp_path / "x.wal.jsonl"
    wal.write_bytes(b'{"a": 1}\n{"a": 2}')
    assert read_wal(wal) == [{"a": 1}, {"a": 2}]
    log = WriteAheadLog(wal, fsync=False)
    log.append({"a": 3})
    log.close()
    assert read_wal(wal) == [{"a": 1}, {"a": 2}, {"a": 3}]


def test_corrupt_wal_line_before_the_end_raises(tmp_path: Path) -> None:
    from lean_gym.errors import LeanGymError

    wal = tmp_path / "x.wal.jsonl"
    wal.write_bytes(b'{"a": 1}\n{"a": \n{"a": 3}\n')
    with pytest.raises(LeanGymError, match=r"x\.wal\.jsonl:2: not valid JSON"):
        read_wal(wal)


def test_compaction_then_crash_loses_nothing_and_duplicates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "run.parquet"
    env = RecordToBuffer(FakeAesopEnv(), path)
    run_steps(env, list(range(3)))
    wal = wal_path(path)
    before = wal.read_bytes()
    env.compact()
    assert path.exists() and wal.read_bytes() == b""
    run_steps(env, list(range(3, 5)))
    env.recorder.wal.close()  # crash after compaction: 3 rows in the file, 2 in the log
    assert len(HistoryBuffer.load(path)) == 5
    # A crash between writing the file and emptying the log: the log's rows are in the file already.
    wal.write_bytes(before + wal.read_bytes())
    back = HistoryBuffer.load(path)
    assert len(back) == 5
    assert len({(r.goal_uuid, r.action_uuid) for r in back.rows()}) == 5


# ------------------------------------------------------------------------------------------ vector env
@pytest.mark.parametrize("mode", ["NextStep", "SameStep"])
def test_record_vector_env(tmp_path: Path, mode: str) -> None:
    n = 3
    venv = gym.vector.SyncVectorEnv(
        [FakeAesopEnv for _ in range(n)], autoreset_mode=gym.vector.AutoresetMode(mode)
    )
    env = RecordVectorToBuffer(venv, tmp_path / "vec.parquet", fsync=False)
    env.reset(seed=1)
    for t in range(6):
        env.step(np.stack([action_for_step(t * n + i) for i in range(n)]))
    # Every episode is one step: with NEXT_STEP every other step only resets the sub-environments.
    assert len(env.buffer) == (9 if mode == "NextStep" else 18)
    assert_rows_match_the_rule(env.buffer)
    env.close()
    assert list(HistoryBuffer.load(tmp_path / "vec.parquet").rows()) == list(env.buffer.rows())


# ------------------------------------------------------------------------ the real LeanAesop environments
class RuleBackend:
    """A Backend whose verdict is a fixed rule on the code (not Lean's, and named so)."""

    name = "fake-rule"

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        status = "proved" if "norm_num))" in code else "error"
        return CheckResult(status=status, backend=self.name)  # type: ignore[arg-type]

    def check_batch(self, codes: Any, *, header: Any = "", timeout: float | None = None) -> list[CheckResult]:
        return [self.check(c) for c in codes]

    def close(self) -> None:
        pass


THEOREMS = [
    {
        "name": f"t{i}",
        "formal_statement": f"theorem t{i} (x : ℕ) : x + {i} = {i} + x := by",
        "goal": f"x : ℕ\n⊢ x + {i} = {i} + x",
        "context_lemmas": ["Nat.add_comm", "Nat.add_zero"],
        "context_lemma_scores": [0.9, 0.1],
    }
    for i in range(3)
]


def _aesop_env_or_skip() -> None:
    if importlib.util.find_spec("lean_gym.envs.aesop_env") is None:  # pragma: no cover
        pytest.skip("lean_gym.envs.aesop_env is not in this tree")


def test_record_the_real_lean_aesop_env(tmp_path: Path) -> None:
    _aesop_env_or_skip()
    from lean_gym.envs.aesop_env import LeanAesopEnv

    env = RecordToBuffer(LeanAesopEnv(backend=RuleBackend(), theorems=THEOREMS), tmp_path / "aesop.parquet")
    rng = np.random.default_rng(0)
    infos = []
    for _ in range(12):
        env.reset(seed=int(rng.integers(1 << 30)))
        a = env.action_space.sample()
        a[5] = int(rng.integers(0, 2)) * 4  # norm_num on or off
        *_, info = env.step(a)
        infos.append(info)
    buf = env.buffer
    keys = {(i["goal_uuid"], i["action_uuid"]) for i in infos}
    assert {(r.goal_uuid, r.action_uuid) for r in buf.rows()} == keys
    for row in buf.rows():
        assert row.lemmas == ("Nat.add_comm", "Nat.add_zero") and len(row.lemma_scores) == 2
        assert row.backend == "fake-rule"
        assert row.reward == (1.0 if "norm_num))" in row.tactic else -1.0)
        assert row.action is not None and row.goal_uuid == uuid16(row.goal)
    env.close()
    assert list(HistoryBuffer.load(tmp_path / "aesop.parquet").rows()) == list(buf.rows())


def test_record_the_real_lean_aesop_vector_env(tmp_path: Path) -> None:
    _aesop_env_or_skip()
    from lean_gym.envs.aesop_env import LeanAesopVectorEnv

    venv = LeanAesopVectorEnv(num_envs=2, backend=RuleBackend(), theorems=THEOREMS)
    env = RecordVectorToBuffer(venv, tmp_path / "aesop-vec.jsonl")
    env.reset(seed=0)
    seen = []
    for t in range(6):
        actions = env.action_space.sample()
        actions[:, 5] = (t % 2) * 4
        obs_before = env._obs
        _, _, _, _, info = env.step(actions)
        if t % 2 == 0:  # NEXT_STEP: odd steps only reset
            seen += [(info["goal_uuid"][i], info["action_uuid"][i], obs_before["goal"][i]) for i in range(2)]
    buf = env.buffer
    assert [(r.goal_uuid, r.action_uuid, r.goal) for r in buf.rows()] == seen
    assert all(r.lemmas == ("Nat.add_comm", "Nat.add_zero") for r in buf.rows())
    env.close()
    assert len(HistoryBuffer.load(tmp_path / "aesop-vec.jsonl")) == len(buf)


# ----------------------------------------------------------------------------------------- crash test
def _run_and_kill(path: Path, start: int, kill_after: int) -> list[tuple[str, str]]:
    """Start a real recording process, SIGKILL it after ``kill_after`` reported steps, return all it reported."""
    env = {**os.environ, "PYTHONPATH": str(HERE.parent) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, str(CHILD), str(path), "1000000", str(start)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    reported: list[tuple[str, str]] = []
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    try:
        while len(reported) < kill_after:
            line = proc.stdout.readline()
            if not line:
                err = proc.stderr.read().decode() if proc.stderr else ""
                pytest.fail(f"the recording process ended early (rc={proc.poll()}):\n{err}")
            parts = line.decode().split()
            if parts and parts[0] == "STEP":
                reported.append((parts[2], parts[3]))
            assert time.monotonic() < deadline, "the recording process is too slow"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    # Steps it completed (and reported) after we stopped reading but before the signal landed.
    for line in proc.stdout.read().decode().splitlines():
        parts = line.split()
        if parts and parts[0] == "STEP":
            reported.append((parts[2], parts[3]))
    return reported


def test_sigkill_mid_run_loses_at_most_the_step_in_flight(tmp_path: Path) -> None:
    path = tmp_path / "crash.parquet"
    reported: list[tuple[str, str]] = []
    runs = ((0, 25), (100_000, 40))  # kill, restart on the same files, kill again
    for kills, (start, kill_after) in enumerate(runs, start=1):
        reported += _run_and_kill(path, start, kill_after)
        assert not path.exists()  # never compacted: everything comes from the log
        buf = HistoryBuffer.load(path)
        keys = {(r.goal_uuid, r.action_uuid) for r in buf.rows()}
        assert set(reported) <= keys  # every completed step survived
        # at most the step in flight at each kill is extra (recorded, not yet reported)
        assert 0 <= len(buf) - len(reported) <= kills
        assert len(keys) == len(buf)
    # A recorder reopened after the crashes continues cleanly and compacts everything.
    env = RecordToBuffer(FakeAesopEnv(), path)
    n = len(env.buffer)
    run_steps(env, [500_000])
    env.close()
    final = HistoryBuffer.load(path)
    assert len(final) == n + 1 and not wal_path(path).exists()
    assert_rows_match_the_rule(final)
