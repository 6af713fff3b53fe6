"""LeanRepl and ReplPool against a scriptable fake REPL (a real process): the fault matrix."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

from lean_gym.errors import LeanProcessError, LeanTimeoutError, PoolExhaustedError, ProtocolError
from lean_gym.lean import LeanRepl, ReplPool

FAKE = [sys.executable, str(Path(__file__).parent / "fake_repl.py")]


def _eventually(predicate: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
    """Wait until ``predicate()`` holds (an event another thread or process brings about), or fail."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.01)


def cmd(text: str, env: int | None = 0) -> dict:
    req: dict = {"cmd": text}
    if env is not None:
        req["env"] = env
    return req


# ---------------------------------------------------------------------------------------------- LeanRepl


def test_roundtrip_and_env_ids() -> None:
    with LeanRepl(FAKE, default_timeout=10) as repl:
        assert repl.send(cmd("a", None)) == {"env": 0}
        assert repl.send(cmd("b")) == {"env": 1}
        assert repl.requests_sent == 2


def test_long_request_line_is_not_truncated() -> None:
    # A pty would cut this at ~4095 bytes; pipes carry it whole.
    with LeanRepl(FAKE, default_timeout=10) as repl:
        assert repl.send(cmd("x" * 200_000))["env"] == 0


def test_hang_times_out_kills_the_group_and_next_start_works() -> None:
    repl = LeanRepl(FAKE)
    pid = repl.pid
    t0 = time.monotonic()
    with pytest.raises(LeanTimeoutError, match="within 0.5 s") as info:
        repl.send(cmd("HANG"), timeout=0.5)
    assert isinstance(info.value, TimeoutError)
    assert time.monotonic() - t0 < 5
    assert (not repl.alive and not psutil.pid_exists(pid)) or psutil.Process(
        pid
    ).status() == psutil.STATUS_ZOMBIE
    repl.start()
    assert repl.send(cmd("ok"), timeout=10) == {"env": 0}
    repl.close()


def test_crash_mid_response_raises_process_error_with_status() -> None:
    repl = LeanRepl(FAKE, default_timeout=10)
    with pytest.raises(LeanProcessError, match=r"EOF.*exit status 3"):
        repl.send(cmd("CRASH"))
    repl.start()
    assert repl.send(cmd("ok")) == {"env": 0}
    repl.close()


def test_garbage_reply_raises_process_error() -> None:
    with LeanRepl(FAKE, default_timeout=10) as repl:
        with pytest.raises(LeanProcessError, match="not JSON"):
            repl.send(cmd("GARBAGE"))
        assert not repl.alive


def test_enormous_reply_is_bounded() -> None:
    with LeanRepl(FAKE, default_timeout=20, max_response_bytes=1_000_000) as repl:
        with pytest.raises(LeanProcessError, match="exceeded 1000000 bytes"):
            repl.send(cmd("HUGE 5000000"))
        assert not repl.alive
    with LeanRepl(FAKE, default_timeout=20) as repl:  # the default bound lets a 5 MB answer through
        got = repl.send(cmd("HUGE 5000000"))
        assert len(got["messages"][0]["data"]) == 5_000_000


def test_memory_cap_is_enforced_on_the_child() -> None:
    with LeanRepl(FAKE, default_timeout=20, memory_limit_mb=300) as repl:
        assert repl.send(cmd("ALLOC 50")) == {"env": 0}
        with pytest.raises(LeanProcessError, match="MemoryError") as info:
            repl.send(cmd("ALLOC 600"))
        assert "MemoryError" in info.value.stderr_tail


def test_stderr_is_drained_and_does_not_block() -> None:
    # 20k lines (~2 MB) would fill a 64 KiB pipe many times over if nobody read it.
    with LeanRepl(FAKE, default_timeout=20) as repl:
        assert repl.send(cmd("STDERR 20000")) == {"env": 0}
        # the answer came after the whole burst was written: the drain thread has it, or soon will
        _eventually(lambda: "noise line 19999" in repl.stderr_tail(), "the last stderr line to be drained")
        assert repl.alive


def test_slow_start_is_waited_for() -> None:
    with LeanRepl([*FAKE, "--start-delay", "1.0"], default_timeout=10) as repl:
        assert repl.send(cmd("ok", None)) == {"env": 0}


def test_slow_start_past_timeout_times_out() -> None:
    with LeanRepl([*FAKE, "--start-delay", "5"]) as repl, pytest.raises(LeanTimeoutError):
        repl.send(cmd("ok", None), timeout=0.5)


def test_bad_command_line_is_a_clear_error() -> None:
    with pytest.raises(LeanProcessError, match="could not start.*lean-gym doctor"):
        LeanRepl(["/nonexistent/repl-binary"])
    with pytest.raises(ValueError, match="non-empty sequence"):
        LeanRepl("lake env repl")  # type: ignore[arg-type]


def test_invalid_request_is_refused_before_sending() -> None:
    with LeanRepl(FAKE, default_timeout=10) as repl:
        with pytest.raises(ProtocolError):
            repl.send({})
        assert repl.send(cmd("ok")) == {"env": 0}


def test_close_leaves_no_process_behind() -> None:
    repl = LeanRepl(FAKE)
    pid = repl.pid
    repl.close()
    assert not repl.alive
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


# ---------------------------------------------------------------------------------------------- ReplPool


def imports_reported(pool: ReplPool, header: str) -> dict[str, int]:
    res = pool.check("STATS", header=header)
    (msg,) = res.messages
    fields = dict(kv.split("=") for kv in msg.data.split())
    return {k: int(v) for k, v in fields.items()}


def test_pool_imports_each_header_once_per_process() -> None:
    with ReplPool(FAKE, size=2, default_timeout=10) as pool:
        header = "import Mathlib\nopen Real"
        results = pool.check_batch([f"check {i}" for i in range(20)], header=header)
        assert [r.status for r in results] == ["proved"] * 20
        # Each process saw exactly one env-less command (its header), however many checks it ran.
        assert pool.stats.header_imports <= 2
        assert all(n == 1 for n in pool.stats.imports_by_pid.values())
        assert imports_reported(pool, header)["imports"] == 1


def test_pool_maps_positions_back_to_the_callers_code() -> None:
    with ReplPool(FAKE, size=1, default_timeout=10) as pool:
        code = "import Mathlib\nset_option maxHeartbeats 400000\n\nERROR"
        res = pool.check(code)
        assert res.status == "error"
        # The fake reports line 2 of the body it was sent; the body starts at line 4 of the caller's code.
        assert res.messages[0].pos.line == 2 + 3
        assert pool.stats.header_imports == 1


def test_pool_switches_headers_by_restarting_a_process() -> None:
    with ReplPool(FAKE, size=1, default_timeout=10) as pool:
        assert pool.check("a", header="import A").proved
        pid_a = pool.pids[0]
        assert pool.check("b", header="import B").proved
        assert pool.pids[0] != pid_a  # one header per process: a new header means a new process
        assert pool.stats.header_imports == 2


@pytest.mark.parametrize(
    ("text", "status"), [("HANG", "timeout"), ("CRASH", "crashed"), ("GARBAGE", "crashed")]
)
def test_pool_reports_faults_as_statuses_and_recovers(text: str, status: str) -> None:
    with ReplPool(FAKE, size=1, default_timeout=1.0) as pool:
        res = pool.check(text, header="import X")
        assert res.status == status
        assert res.backend.startswith("repl:")
        again = pool.check("fine", header="import X")
        assert again.status == "proved"
        assert pool.stats.header_imports == 2  # the restarted process re-imported its header


def test_pool_fault_loses_no_other_request() -> None:
    codes = ["ok"] * 6 + ["HANG", "CRASH", "GARBAGE", "HUGE 100"] + ["ok"] * 6
    with ReplPool(FAKE, size=2, default_timeout=1.5) as pool:
        results = pool.check_batch(codes, header="import X")
    statuses = [r.status for r in results]
    assert len(statuses) == len(codes)
    assert statuses[6:10] == ["timeout", "crashed", "crashed", "proved"]
    assert statuses[:6] == ["proved"] * 6 and statuses[10:] == ["proved"] * 6


def test_pool_memory_cap_kills_only_the_offender() -> None:
    with ReplPool(FAKE, size=2, default_timeout=10, memory_limit_mb=300) as pool:
        results = pool.check_batch(["ok", "ALLOC 900", "ok", "ok"])
        assert [r.status for r in results] == ["proved", "crashed", "proved", "proved"]
        assert "MemoryError" in results[1].messages[0].data


def test_pool_recycles_after_max_uses() -> None:
    with ReplPool(FAKE, size=1, default_timeout=10, max_uses=3) as pool:
        pids = set()
        for _ in range(7):
            assert pool.check("ok", header="import X").proved
            pids.update(pool.pids)
        assert pool.stats.recycles == 2
        assert pool.stats.header_imports == 3
        assert len(pids) >= 2


def test_pool_recycles_above_rss_cap() -> None:
    with ReplPool(FAKE, size=1, default_timeout=10, max_rss_mb=100) as pool:
        assert pool.check("ALLOC 200").proved
        assert pool.stats.recycles == 1
        assert pool.check("ok").proved


def test_pool_waiting_caller_gets_a_clear_error_after_bounded_wait(tmp_path: Path) -> None:
    meet = tmp_path / "meet"
    meet.mkdir()
    with ReplPool(FAKE, size=1, default_timeout=30, acquire_timeout=0.3) as pool:
        # the only process holds a check that waits for a second mark in `meet`
        t = threading.Thread(target=pool.check, args=(f"MEET {meet} 2 30",))
        t.start()
        _eventually(lambda: any(meet.iterdir()), "the check to reach the process")
        with pytest.raises(PoolExhaustedError, match=r"within 0.3 s.*pool size 1"):
            pool.check("ok")
        (meet / "release").touch()  # the second mark: the held check answers
        t.join(timeout=30)
        assert not t.is_alive()
        assert pool.check("ok").proved


def test_pool_runs_checks_concurrently(tmp_path: Path) -> None:
    # Each check waits until two processes have arrived: it passes only if two run at the same time.
    with ReplPool(FAKE, size=2, default_timeout=20) as pool:
        results = pool.check_batch([f"MEET {tmp_path} 2"] * 2, header="import X")
        assert [r.status for r in results] == ["proved", "proved"], [r.messages for r in results]
        assert len(set(pool.pids)) == 2
    with ReplPool(FAKE, size=1, default_timeout=20) as pool:  # the control: one process cannot meet itself
        (tmp_path / "solo").mkdir()
        assert pool.check(f"MEET {tmp_path / 'solo'} 2 1").status == "error"


def test_header_error_is_reported_not_hidden() -> None:
    with ReplPool(FAKE, size=1, default_timeout=10) as pool:
        res = pool.check("fine", header="ERROR")
        assert res.status == "error"
        assert res.messages[0].data.startswith("in the header:")


def test_closed_pool_refuses() -> None:
    pool = ReplPool(FAKE, size=1)
    pool.close()
    with pytest.raises(Exception, match="closed"):
        pool.check("ok")


def test_no_orphans_after_pool_close() -> None:
    pool = ReplPool(FAKE, size=2, default_timeout=10)
    pool.check_batch(["ok", "ok", "ok"])
    pids = list(pool.pids)
    pool.close()
    for pid in pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    assert os.getpid() not in pids
