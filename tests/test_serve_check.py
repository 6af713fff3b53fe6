"""`lean-gym serve` (lean_gym/serve/check.py) driven over HTTP against a real uvicorn server on the simulator.

Every verdict here is the simulator's (`sim`, `sim-repl`), never Lean's. kimina's wire contract is the one
recorded in /work/coord/research-25.md from kimina-client 0.2.1 and kimina-ast-server 2.1.3 (PyPI); the
real client's own test is tests/test_serve_kimina.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from pathlib import Path

import httpx
import pytest
from serve_helpers import eventually, running_server

from lean_gym.backends import CheckResult, LazyBackend, ReplBackend, SimBackend, acheck, acheck_batch
from lean_gym.backends.remote import RemoteBackend
from lean_gym.backends.repl import sim_command
from lean_gym.errors import ConfigError, LeanGymError
from lean_gym.lean.protocol import Message, Position, Sorry
from lean_gym.serve.app import ServeConfig
from lean_gym.serve.check import CheckLimits, kimina_result

FAKE = [sys.executable, str(Path(__file__).parent / "fake_repl.py")]
OK = "import Mathlib\ntheorem t1 (a b : ℕ) : a + b = b + a := by\n  omega"
SORRY = "theorem t2 (a b : Nat) : a + b = b + a := by\n  sorry"
ERR = "theorem t3 (a : Nat) : a + 1 = a := by\n  simp"
THM = {"name": "t", "formal_statement": "theorem t (a b : Nat) : a + b = b + a := by"}


@pytest.fixture(scope="module")
def backend():
    b = ReplBackend(command=sim_command(), pool_size=2, timeout=60)
    yield b
    b.close()


@pytest.fixture(scope="module")
def server(backend):
    config = ServeConfig(max_body_bytes=64 << 10)
    with running_server(backend, config=config, limits=CheckLimits(max_batch=8, max_code_chars=4000)) as s:
        yield s


@pytest.fixture(scope="module")
def client(server):
    with httpx.Client(base_url=server[0], timeout=60) as c:
        yield c


def kimina(client: httpx.Client, *snippets: tuple[str, str], **extra) -> list[dict]:
    body = {"timeout": 20, "debug": False, "reuse": True, "infotree": None, **extra}
    body["snippets"] = [{"id": i, "code": c} for i, c in snippets]
    r = client.post("/api/check", json=body)
    assert r.status_code == 200, r.text
    return r.json()["results"]


# ------------------------------------------------------------------------------------------ kimina's API
def test_kimina_check_answers_each_snippet_in_kimina_shape_with_full_file_lines(client) -> None:
    ok, sorry, err = kimina(client, ("ok", OK), ("s", SORRY), ("e", ERR))
    assert ok["id"] == "ok" and set(ok["response"]) == {"env"} and "error" not in ok
    assert isinstance(ok["time"], float)
    sorries = sorry["response"]["sorries"]
    assert len(sorries) == 1 and sorries[0]["pos"] == {"line": 2, "column": 2}
    assert sorries[0]["endPos"] and "⊢ a + b = b + a" in sorries[0]["goal"]
    msgs = err["response"]["messages"]
    assert msgs[0]["severity"] == "error" and msgs[0]["pos"]["line"] == 1
    assert ok["lean_gym"] == {"status": "proved", "backend": "sim-repl"}  # never passed off as Lean


def test_lines_count_the_import_lines_of_the_snippet(client) -> None:
    (res,) = kimina(client, ("s", "import Mathlib\n\n" + SORRY))
    assert res["response"]["sorries"][0]["pos"]["line"] == 4  # kimina-ast-server 2.1.3 would say 2


def test_no_cross_request_leak_a_repeated_declaration_is_valid_every_time(client) -> None:
    # kimina's server runs header-less snippets in the env the first one left: the second `dup` fails there
    for i in range(3):
        (res,) = kimina(client, (f"d{i}", "theorem dup : 1 + 1 = 2 := by decide"))
        assert "messages" not in res["response"], res


def test_timeout_zero_answers_kimina_timeout_without_running(client, server) -> None:
    before = sum(server[1].metrics.checks.values())
    (res,) = kimina(client, ("z", OK), timeout=0)
    assert "timed out" in res["error"] and "response" not in res
    assert sum(server[1].metrics.checks.values()) == before


def test_verify_is_kimina_older_api(client) -> None:
    r = client.post(
        "/verify", json={"codes": [{"custom_id": 7, "proof": SORRY}, {"custom_id": "b", "code": ERR}]}
    )
    assert r.status_code == 200
    a, b = r.json()["results"]
    assert a["custom_id"] == "7" and a["error"] is None and a["response"]["sorries"]
    assert isinstance(a["response"]["time"], float)
    assert b["response"]["messages"][0]["severity"] == "error"
    for path in ("/health", "/"):
        assert client.get(path).json() == {"status": "ok"}


def test_a_positionless_sorry_gets_a_position_and_an_unknown_severity_becomes_info() -> None:
    weird = CheckResult(
        "sorry",
        (Message("information", Position(1, 0), None, "x"),),  # type: ignore[arg-type]
        (Sorry("⊢ True"),),
        backend="sim",
    )
    out = kimina_result("a", weird, 5)
    s = out["response"]["sorries"][0]
    assert s["pos"] == s["endPos"] == {"line": 1, "column": 0}  # dropped, the snippet would read `valid`
    assert out["response"]["messages"][0]["severity"] == "info"
    crashed = kimina_result(
        "c", CheckResult("crashed", (Message("error", Position(1, 0), None, "timed out"),)), 5
    )
    assert "timed out" not in crashed["error"]  # kimina's client would call it a timeout, not a fault


# ------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "body, status, words",
    [
        (b"{not json", 400, "not valid JSON"),
        (b"[1, 2]", 400, "must be a JSON object"),
        (b"\xff\xfe{}", 400, "not valid JSON"),
        (b"", 400, "empty"),
        (json.dumps({"snippets": []}).encode(), 422, "non-empty"),
        (json.dumps({"snippets": [{"id": "a"}]}).encode(), 422, "missing field 'code'"),
        (json.dumps({"snippets": [{"id": 1, "code": "x"}]}).encode(), 422, "'id' must be str"),
        (json.dumps({"snippets": [{"id": "a", "code": "x"}] * 2}).encode(), 422, "unique"),
        (
            json.dumps({"snippets": [{"id": str(i), "code": "x"} for i in range(9)]}).encode(),
            413,
            "at most 8",
        ),
        (json.dumps({"snippets": [{"id": "a", "code": "x" * 4001}]}).encode(), 422, "at most 4000"),
        (json.dumps({"snippets": [{"id": "a", "code": "x"}], "timeout": -1}).encode(), 422, "above 0"),
        (json.dumps({"snippets": [{"id": "a", "code": "x"}], "timeout": True}).encode(), 422, "number"),
        (json.dumps({"snippets": [{"id": "a", "code": "x"}], "infotree": "bogus"}).encode(), 422, "infotree"),
        (json.dumps({"snippets": "x"}).encode(), 422, "must be list"),
    ],
)
def test_every_bad_kimina_request_gets_its_4xx_in_one_line(client, body, status, words) -> None:
    r = client.post("/api/check", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status, r.text
    error = r.json()["error"]
    assert words in error and "\n" not in error


def test_text_with_no_lean_reading_is_an_error_verdict_not_a_fault(client) -> None:
    body = b'{"snippets": [{"id": "s", "code": "theorem t : True := by\\n  trivial -- \\ud800"}]}'
    r = client.post("/api/check", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 200, r.text
    (res,) = r.json()["results"]
    assert "lone surrogate" in res["response"]["messages"][0]["data"]  # kimina's client: lean_error


def test_bodies_over_the_limit_are_413_whether_announced_or_streamed(client) -> None:
    big = json.dumps({"snippets": [{"id": "a", "code": "x" * (70 << 10)}]}).encode()
    assert client.post("/api/check", content=big).status_code == 413

    def chunks():
        for _ in range(80):
            yield b" " * 1024

    r = client.post("/api/check", content=chunks())  # no Content-Length: counted as it arrives
    assert r.status_code == 413 and "exceeds" in r.json()["error"]


def test_the_listening_socket_disables_nagle_for_every_connection_it_accepts(server) -> None:
    import socket

    from lean_gym.serve.app import bind

    # uvicorn leaves a handed-in socket's connections with Nagle on: each keep-alive answer then waited
    # ~40 ms for the client's delayed ACK (measured 44 ms per GET /health before, 0.4 ms after)
    with bind(ServeConfig()) as sock:
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def test_wrong_methods_and_paths(client) -> None:
    assert client.get("/api/check").status_code == 405
    assert client.post("/nope", json={}).status_code == 404
    assert client.post("/v1/grade", json={"items": [{"theorem": THM}]}).status_code == 422
    r = client.post("/v1/grade", json={"items": [{"theorem": THM, "submission": "x"}], "weak": "nope"})
    assert r.status_code == 422 and "accept_sorry" in r.json()["error"]


def test_api_key_is_required_when_set_and_health_stays_open() -> None:
    with running_server(SimBackend(), config=ServeConfig(api_key="s3cret")) as (url, _):
        body = {"snippets": [{"id": "a", "code": "theorem t : True := trivial"}]}
        assert httpx.post(url + "/api/check", json=body).status_code == 401
        wrong = httpx.post(url + "/api/check", json=body, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and "API key" in wrong.json()["error"]
        right = httpx.post(url + "/api/check", json=body, headers={"Authorization": "Bearer s3cret"})
        assert right.status_code == 200
        assert httpx.get(url + "/health").status_code == 200
        assert httpx.get(url + "/metrics").status_code == 401
        with pytest.raises(LeanGymError, match="401"):
            RemoteBackend(url, api_key="nope")
        assert RemoteBackend(url, api_key="s3cret").check("theorem t : True := trivial").status == "proved"


# ------------------------------------------------------------------------ the oracle, through the service
@pytest.mark.parametrize(
    "submission, hack",
    [
        ("axiom cheat : False\ntheorem t (a b : Nat) : a + b = b + a := False.elim cheat", "axiom_injection"),
        ("theorem t (a b : Nat) : a + b = b + a := by\n  sorry", "sorry"),
        ("theorem t (a b : Nat) : a = a := by\n  rfl", None),  # a different, easier statement
        ('theorem t (a b : Nat) : a + b = b + a := by\n  omega\n#print axioms t\n#eval IO.println "x"', None),
    ],
)
def test_grade_refuses_what_kimina_valid_lets_through(client, submission, hack) -> None:
    r = client.post("/v1/grade", json={"items": [{"id": "x", "theorem": THM, "submission": submission}]})
    assert r.status_code == 200, r.text
    (v,) = r.json()["results"]
    assert v["accepted"] is False and v["reward"] == -1.0 and v["hack_class"]
    if hack is not None:
        assert v["hack_class"] == hack


def test_grade_accepts_a_proof_and_reports_the_weak_grader_beside_the_oracle(client) -> None:
    items = [
        {"id": "p", "theorem": THM, "submission": THM["formal_statement"] + "\n  omega"},
        {"id": "s", "theorem": THM, "submission": THM["formal_statement"] + "\n  sorry"},
    ]
    r = client.post("/v1/grade", json={"items": items, "weak": "accept_sorry"})
    p, s = r.json()["results"]
    assert (
        p["accepted"] and p["reward"] == 1.0 and p["axioms"] is not None and p["check"]["status"] == "proved"
    )
    assert not s["accepted"] and s["weak"]["accepted"] and s["weak"]["grader"] == "accept_sorry"


def test_the_kimina_endpoint_calls_an_axiom_proof_valid_and_grade_does_not(client) -> None:
    cheat = "axiom cheat : False\ntheorem t (a b : Nat) : a + b = b + a := False.elim cheat"
    (res,) = kimina(client, ("c", cheat))
    assert "messages" not in res["response"]  # kimina's "valid": the documented gap of that API
    r = client.post("/v1/grade", json={"items": [{"theorem": THM, "submission": cheat}]})
    assert r.json()["results"][0]["accepted"] is False


def test_selftest_info_readiness_and_metrics(client) -> None:
    assert client.post("/v1/selftest").json()["ok"] is True
    info = client.get("/v1/info").json()
    assert info["backend"] == "sim-repl" and info["simulated"] is True and info["limits"]["max_batch"] == 8
    assert client.get("/readyz").json()["ready"] is True
    text = client.get("/metrics").text
    assert "# TYPE leangym_check_seconds histogram" in text
    assert 'leangym_checks_total{status="proved"}' in text and "leangym_pool_size 2" in text
    data = client.get("/metrics", params={"format": "json"}).json()
    assert data["checks"]["proved"] >= 1 and data["pool"]["size"] == 2


# ------------------------------------------------------------------------------- /v1/check and remote
def test_v1_check_idempotency_key_runs_once_and_refuses_a_different_body(client, server) -> None:
    body = {"checks": [{"id": "a", "code": ERR}]}
    key = {"Idempotency-Key": "k-1"}
    first = client.post("/v1/check", json=body, headers=key).json()
    n = sum(server[1].metrics.checks.values())
    again = client.post("/v1/check", json=body, headers=key).json()
    assert again == first and sum(server[1].metrics.checks.values()) == n
    other = client.post("/v1/check", json={"checks": [{"id": "a", "code": OK}]}, headers=key)
    assert other.status_code == 422 and "Idempotency-Key" in other.json()["error"]


def test_remote_backend_gives_what_the_backend_gives_in_process(server, backend) -> None:
    codes = [OK.split("\n", 1)[1], SORRY, ERR, "theorem z : True := trivial"]
    with RemoteBackend(server[0], max_batch=3) as remote:  # chunks of 3: two requests
        got = remote.check_batch(codes, header=["import Mathlib", "", "", ""])
        assert remote.stats.duplicates == 0 and remote.stats.unanswered == 0 and remote.stats.requests == 2
    want = backend.check_batch(codes, header=["import Mathlib", "", "", ""])
    for g, w in zip(got, want):
        assert (g.status, g.messages, g.backend) == (w.status, w.messages, w.backend)
        # proof-state ids number a process's states: equal goals and places, not equal ids
        assert [(s.goal, s.pos, s.end_pos) for s in g.sorries] == [
            (s.goal, s.pos, s.end_pos) for s in w.sorries
        ]


def test_envs_run_against_a_remote_server(server) -> None:
    import gymnasium as gym

    env = gym.make("LeanProof-v0", backend=server[0], theorems=[THM])
    env.reset(seed=0)
    _, reward, *_ = env.step("  omega")
    assert reward > 0
    env.reset(seed=0)
    _, reward, *_ = env.step("  sorry")
    assert reward < 0
    env.close()
    with pytest.raises(LeanGymError, match="tactic mode"):
        gym.make("LeanTactic-v0", backend=RemoteBackend(server[0]), theorems=[THM]).reset(seed=0)


def test_remote_backend_user_errors_are_one_line_before_any_work() -> None:
    with pytest.raises(ConfigError, match="http://host:port"):
        RemoteBackend("ftp://x")
    with pytest.raises(LeanGymError, match="cannot reach lean-gym serve"):
        RemoteBackend("http://127.0.0.1:9")


def test_wire_format_round_trips_every_result(backend) -> None:
    codes = [OK.split("\n", 1)[1], SORRY, ERR, "theorem q : 1 = 2 := by decide"]
    for r in backend.check_batch(codes, header=["import Mathlib", "", "", ""]):
        back = CheckResult.from_wire(json.loads(json.dumps(r.to_wire())))
        assert back == r and back.env == r.env and back.sorries == r.sorries


# ------------------------------------------------------------------------------------- async backends
def test_acheck_on_every_kind_of_backend_from_a_loop_on_another_thread(backend) -> None:
    class Plain:  # a third-party backend with no coroutines
        name = "plain"

        def check(self, code, *, header="", timeout=None):
            return CheckResult("proved", backend=self.name)

        def check_batch(self, codes, *, header="", timeout=None):
            return [self.check(c) for c in codes]

        def close(self):
            pass

    lazy = LazyBackend("sim")
    out: dict = {}

    def run() -> None:
        async def main():
            return await asyncio.gather(
                backend.acheck(SORRY),
                SimBackend().acheck_batch([ERR, SORRY]),
                lazy.acheck("theorem z : True := trivial"),
                acheck(Plain(), "x"),
                acheck_batch(Plain(), ["x", "y"]),
            )

        out["r"] = asyncio.run(main())

    t = threading.Thread(target=run)
    t.start()
    t.join(60)
    one, batch, lazy_r, plain, plain_batch = out["r"]
    assert one.status == "sorry" and [r.status for r in batch] == ["error", "sorry"]
    assert lazy_r.status == "proved" and lazy.built
    assert plain.backend == "plain" and len(plain_batch) == 2


# ------------------------------------------------------------------------------------ overload, faults
class Gate:
    """A backend whose checks wait until the test opens the gate (overload without sleeps)."""

    name = "gate"

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.open = threading.Event()

    runs = 0

    def check(self, code, *, header="", timeout=None):
        self.runs += 1
        self.entered.set()
        self.open.wait(30)
        return CheckResult("proved", backend=self.name)

    def check_batch(self, codes, *, header="", timeout=None):
        return [self.check(c) for c in codes]

    def close(self):
        self.open.set()


def test_overload_is_503_with_retry_after_on_v1_and_a_per_snippet_error_on_kimina() -> None:
    gate = Gate()
    limits = CheckLimits(max_inflight_checks=1, queue_wait_s=0)
    with running_server(gate, limits=limits) as (url, service):
        first: dict = {}
        t = threading.Thread(
            target=lambda: first.setdefault(
                "r", httpx.post(url + "/v1/check", json={"checks": [{"code": "a"}]}, timeout=30)
            )
        )
        t.start()
        assert gate.entered.wait(30)
        busy = httpx.post(url + "/v1/check", json={"checks": [{"code": "b"}]})
        assert busy.status_code == 503 and int(busy.headers["retry-after"]) >= 1
        k = httpx.post(url + "/api/check", json={"snippets": [{"id": "x", "code": "b"}]})
        (res,) = k.json()["results"]
        assert k.status_code == 200 and "overloaded" in res["error"] and "timed out" not in res["error"]
        gate.open.set()
        t.join(30)
        assert first["r"].status_code == 200 and service.metrics.rejected["overload"] == 2
        assert httpx.post(url + "/v1/check", json={"checks": [{"code": "c"}]}).status_code == 200


def test_a_retry_while_the_first_run_is_in_flight_joins_it_and_nothing_runs_twice() -> None:
    gate = Gate()
    with running_server(gate) as (url, service):
        body, key = {"checks": [{"id": "a", "code": "x"}]}, {"Idempotency-Key": "same"}
        out: list = []

        def post() -> None:
            out.append(httpx.post(url + "/v1/check", json=body, headers=key, timeout=30))

        first = threading.Thread(target=post)
        first.start()
        assert gate.entered.wait(30)
        second = threading.Thread(target=post)
        second.start()
        eventually(lambda: service.metrics.idempotent_replays == 1, "the retry to join the run in flight")
        gate.open.set()
        first.join(30)
        second.join(30)
        assert [r.status_code for r in out] == [200, 200] and out[0].json() == out[1].json()
        assert gate.runs == 1


def test_a_repl_killed_mid_request_costs_one_retry_not_the_answer(tmp_path) -> None:
    import os
    import signal

    fake = ReplBackend(command=FAKE, pool_size=1, timeout=30, name="fake")
    marks = tmp_path / "meet"
    marks.mkdir()
    try:
        with running_server(fake) as (url, service):
            out: dict = {}
            code = f"MEET {marks} 2 20"  # waits for a second process to arrive: the retry's fresh one
            t = threading.Thread(target=lambda: out.setdefault("r", RemoteBackend(url).check_batch([code])))
            t.start()
            eventually(lambda: len(list(marks.iterdir())) == 1, "the first process to reach the check")
            (pid,) = fake.pool.pids
            os.kill(pid, signal.SIGKILL)
            t.join(60)
            (r,) = out["r"]
            assert r.status == "proved" and r.backend == "fake"  # one answer, the right one
            assert service.metrics.crash_retries == 1 and service.metrics.checks["proved"] == 1
            assert "crashed" not in service.metrics.checks
    finally:
        fake.close()


@pytest.mark.slow
def test_a_server_killed_mid_request_costs_a_retry_never_a_lost_or_doubled_answer(tmp_path) -> None:
    import signal
    import socket
    import subprocess

    import psutil

    helper = Path(__file__).parent / "serve_helpers.py"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    marks = tmp_path / "meet"
    marks.mkdir()

    def start() -> subprocess.Popen:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
        proc = subprocess.Popen(
            [sys.executable, str(helper), str(port), *FAKE], stdout=subprocess.PIPE, env=env
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == b"serving"
        eventually(lambda: _up(url), "the server to answer")
        return proc

    first = start()
    remote = RemoteBackend(url, retry_deadline_s=60)
    out: dict = {}
    t = threading.Thread(target=lambda: out.setdefault("r", remote.check_batch([f"MEET {marks} 2 30"])))
    t.start()
    eventually(lambda: len(list(marks.iterdir())) == 1, "the check to reach the first server's REPL")
    for child in psutil.Process(first.pid).children(recursive=True):
        child.kill()
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    second = start()
    try:
        t.join(90)
        (r,) = out["r"]
        assert r.status == "proved" and r.backend == "fake"
        assert remote.stats.retries >= 1 and remote.stats.duplicates == 0 and remote.stats.unanswered == 0
    finally:
        second.terminate()
        second.wait(10)


def _up(url: str) -> bool:
    try:
        return httpx.get(url + "/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
