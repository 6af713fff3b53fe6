"""``lean-gym serve-policy``: SATP's /health + /infer contract, on the simulator, in process and over TCP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("starlette", reason="the services need the serve extra (Starlette, uvicorn)")
httpx = pytest.importorskip("httpx", reason="the contract is tested with an HTTP client (httpx)")
from starlette.testclient import TestClient  # noqa: E402

import lean_gym  # noqa: E402, F401
from lean_gym.aesop import best_static_action, layout  # noqa: E402
from lean_gym.backends import make_backend  # noqa: E402
from lean_gym.data import load_theorems, parse_goal_state, satp_formal_statement  # noqa: E402
from lean_gym.errors import ConfigError  # noqa: E402
from lean_gym.serve.app import ServeConfig  # noqa: E402
from lean_gym.serve.policy import StaticPolicy, load_policy, policy_app  # noqa: E402

V1 = layout("satp-v1")
ROOT = Path(__file__).resolve().parents[1]
THMS = load_theorems("sim", split="test", limit=24)
SIM = make_backend("sim")


def satp_request(t: Any, **extra: Any) -> dict[str, Any]:
    """What SATP's Tactic.lean sends for theorem ``t``'s goal: one {name, type} per hypothesis."""
    hyps, target = parse_goal_state(t.goal)
    body = {
        "goal": target,
        "hypotheses": [{"name": h.name, "type": h.type} for h in hyps],
        "user_lemmas": list(t.context_lemmas),
        "tactic_name": "aesop",
    }
    return {**body, **extra}


def sim_verdict(answer: dict[str, Any], header: str) -> str:
    """The simulator's verdict on the returned tactic placed in the returned statement's proof."""
    return SIM.check(answer["formal_statement"] + "\n" + answer["tactic"] + "\n", header=header).status


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(policy_app(load_policy("best-static")))


def test_health_is_ok_and_names_the_policy(client: TestClient) -> None:
    r = client.get("/health")
    assert r.status_code == 200
    assert r.json() == {"ok": True, "policy": load_policy("best-static").name, "layout": "satp-v1"}


def test_infer_answers_satps_shape_and_the_simulator_checks_the_tactic(client: TestClient) -> None:
    env = gym.make("LeanAesop-v0", backend="sim", theorems=THMS)
    static = best_static_action("satp-v1", "sim")
    proved = 0
    for i, t in enumerate(THMS):
        r = client.post("/infer", json=satp_request(t))
        assert r.status_code == 200
        answer = r.json()
        assert set(answer) == {"ok", "tactic", "formal_statement"} and answer["ok"] is True
        hyps, target = parse_goal_state(t.goal)
        assert answer["formal_statement"] == satp_formal_statement(target, hyps)
        # canonical: the layout's own rendering of the policy's action, which parses back to it
        assert answer["tactic"] == V1.render(static, t.context_lemmas)
        assert (
            V1.parse(answer["tactic"], t.context_lemmas) == V1.canonical_action(static, t.context_lemmas)
        ).all()
        # the tactic in SATP's statement gets the verdict the env gives the same action on the theorem
        verdict = sim_verdict(answer, t.header)
        env.reset(options={"index": i})
        reward = env.step(static)[1]
        assert (verdict == "proved") == (reward > 0), t.name
        proved += verdict == "proved"
    assert 0 < proved < len(THMS)  # the check can go either way on this set
    env.close()


def test_bridge_form_request_gets_the_same_tactic(client: TestClient) -> None:
    t = THMS[0]
    by_goal = client.post("/infer", json=satp_request(t)).json()
    stated = by_goal["formal_statement"]
    by_statement = client.post(
        "/infer",
        json={
            "formal_statement": stated + "\n",
            "user_lemmas": list(t.context_lemmas),
            "strip_retrieval": True,
        },
    ).json()
    assert by_statement == {"ok": True, "tactic": by_goal["tactic"], "formal_statement": stated}


def test_aesop_query_tactic_name(client: TestClient) -> None:
    t = THMS[1]
    answer = client.post("/infer", json=satp_request(t, tactic_name="aesop?")).json()
    assert answer["tactic"].startswith("  aesop?\n")
    plain = client.post("/infer", json=satp_request(t)).json()["tactic"]
    assert answer["tactic"] == plain.replace("  aesop", "  aesop?", 1)


def test_user_lemmas_fill_the_lemma_slots() -> None:
    action = V1.default_action()
    action[24] = 4  # slot 0 at the v1 layout's top lemma level (40%, SATP's hint priority)
    app = policy_app(StaticPolicy("slot 0 on", V1, action))
    c = TestClient(app)
    answer = c.post("/infer", json={"goal": "0 ≤ x ^ 2", "hypotheses": [{"name": "x", "type": "ℝ"}],
                                    "user_lemmas": ["sq_nonneg", "sq_nonneg", " ", "pow_two"]}).json()  # fmt: skip
    assert (
        answer["tactic"]
        == "  aesop\n    (add unsafe 40% (by first | apply sq_nonneg | rw [sq_nonneg] | simp only [sq_nonneg]))"
    )
    assert sim_verdict(answer, THMS[0].header) == "proved"
    # no lemma: the slot renders nothing
    assert c.post("/infer", json={"goal": "True"}).json()["tactic"] == "  aesop"


def test_a_dpo_checkpoint_serves_its_greedy_action(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="a DPO checkpoint needs torch (the agents extra)")
    from lean_gym.buffers import HistoryBuffer
    from lean_gym_agents.dpo import DPOArgs, DPOPolicy

    policy = DPOPolicy("satp-v1", DPOArgs(d_model=16, n_layers=1, n_heads=2, batch_size=4))
    buf = HistoryBuffer()
    for t in THMS[:4]:
        buf.add(goal=t.goal, action=best_static_action("satp-v1", "sim"), reward=1.0,
                lemmas=list(t.context_lemmas), lemma_scores=[1.0] * 8)  # fmt: skip
    policy.fit(buf, 2)
    path = policy.save(tmp_path / "policy.pt")
    served = load_policy(str(path))
    c = TestClient(policy_app(served))
    assert c.get("/health").json()["policy"].startswith("DPO policy policy.pt")
    for t in THMS[:4]:
        answer = c.post("/infer", json=satp_request(t)).json()
        obs = {"goal": t.goal, "lemmas": t.context_lemmas, "lemma_scores": np.ones(8, dtype=np.float32)}
        expected = policy.act([obs], explore=False)[0]
        assert answer["tactic"] == V1.render(expected, t.context_lemmas)


BAD = [
    (b"not json", 400, "not valid JSON"),
    (b"", 400, "request body is empty"),
    (b"[1, 2]", 400, "must be a JSON object, got list"),
    (b'{"hypotheses": []}', 400, "must contain string field 'goal'"),
    (b'{"goal": 3}', 400, "'goal' must be a string, got int"),
    (b'{"goal": "p", "hypotheses": {"name": "h"}}', 400, "'hypotheses' must be a list"),
    (
        b'{"goal": "p", "hypotheses": [{"name": "h", "type": "p"}, 7]}',
        400,
        r"hypotheses\[1\] must be an object",
    ),
    (b'{"goal": "p", "hypotheses": [{"name": 1, "type": "p"}]}', 400, "'name' must be a string"),
    (b'{"goal": "p", "tactic_name": "simp"}', 400, "'tactic_name' must be 'aesop' or 'aesop\\?'"),
    (b'{"goal": "p", "user_lemmas": "sq_nonneg"}', 400, "'user_lemmas' must be a list"),
    (b'{"goal": "p", "user_lemmas": ["a", 2]}', 400, "'user_lemmas' must be a list"),
    (b'{"goal": "p", "formal_statement": "theorem t : p := by"}', 400, "not both"),
    (b'{"formal_statement": "def x := 1"}', 400, "must have the shape"),
    (b'{"formal_statement": "theorem t (x : \\u2115 : p := by"}', 400, "unclosed bracket"),
]


@pytest.mark.parametrize(("body", "status", "message"), BAD, ids=[b[2][:30] for b in BAD])
def test_bad_requests_get_a_4xx_with_a_clear_message(
    client: TestClient, body: bytes, status: int, message: str
) -> None:
    r = client.post("/infer", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status
    out = r.json()
    assert out["ok"] is False
    assert __import__("re").search(message, out["error"]), out["error"]


@pytest.mark.parametrize(
    "lemma",
    [
        "foo)) (add safe 1 (by sorry",  # a clause smuggled into the aesop call
        "x\n    (add safe 1 (by sorry))",
        "sq_nonneg] | exact sorry | simp only [x",
        "«open»\u0000",
    ],
)
def test_a_lemma_that_is_not_an_identifier_cannot_reach_the_tactic(client: TestClient, lemma: str) -> None:
    r = client.post("/infer", json={"goal": "p", "user_lemmas": ["sq_nonneg", lemma]})
    assert r.status_code == 400 and "not a Lean identifier" in r.json()["error"]


def test_more_user_lemmas_than_slots_is_refused(client: TestClient) -> None:
    r = client.post("/infer", json={"goal": "p", "user_lemmas": [f"l{i}" for i in range(9)]})
    assert r.status_code == 400 and "8 lemma slots" in r.json()["error"]


def test_unknown_paths_methods_and_oversized_bodies() -> None:
    c = TestClient(policy_app(load_policy("plain"), ServeConfig(max_body_bytes=256)))
    assert c.get("/nope").status_code == 404 and c.get("/nope").json() == {"ok": False, "error": "not found"}
    r = c.get("/infer")
    assert r.status_code == 405 and r.json()["ok"] is False
    big = json.dumps({"goal": "p" * 400})
    r = c.post("/infer", content=big)
    assert r.status_code == 413 and "exceeds 256 bytes" in r.json()["error"]
    # a chunked body (no Content-Length) is cut at the limit too
    r = c.post("/infer", content=iter([big[:200].encode(), big[200:].encode()]))
    assert r.status_code == 413
    r = c.post("/infer", content=b"{}", headers={"content-length": "x"})
    assert r.status_code == 400


def test_api_key_is_required_when_set_and_health_stays_open() -> None:
    c = TestClient(policy_app(load_policy("plain"), ServeConfig(api_key="s3cret")))
    body = {"goal": "True"}
    assert c.get("/health").status_code == 200
    assert c.post("/infer", json=body).status_code == 401
    assert c.post("/infer", json=body, headers={"authorization": "Bearer nope"}).status_code == 401
    assert c.post("/infer", json=body, headers={"authorization": "Bearer s3cret"}).status_code == 200
    assert c.post("/infer", json=body, headers={"x-api-key": "s3cret"}).json()["ok"] is True
    with pytest.raises(ConfigError, match="api_key is empty"):
        ServeConfig(api_key=" ")


def test_requests_past_max_pending_get_503() -> None:
    entered, release = threading.Event(), threading.Event()

    class Blocking(StaticPolicy):
        def choose(self, observation: Any) -> np.ndarray:
            entered.set()
            release.wait(30)
            return super().choose(observation)

    app = policy_app(Blocking("blocking", V1, V1.default_action()), ServeConfig(max_pending=1))
    with TestClient(app) as c:
        first: dict[str, Any] = {}
        worker = threading.Thread(target=lambda: first.update(r=c.post("/infer", json={"goal": "True"})))
        worker.start()
        assert entered.wait(30)
        r = c.post("/infer", json={"goal": "True"})
        assert r.status_code == 503 and "busy" in r.json()["error"]
        release.set()
        worker.join(30)
    assert first["r"].status_code == 200


def test_load_policy_errors_say_what_to_do() -> None:
    with pytest.raises(ConfigError, match="did you mean 'best-static'"):
        load_policy("best_static")
    with pytest.raises(ConfigError, match="no stored best static config for layout 'satp-v2'"):
        load_policy("best-static", layout="satp-v2")


def test_serve_policy_as_a_real_subprocess_over_tcp() -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with subprocess.Popen(
        [sys.executable, "-m", "lean_gym.cli", "serve-policy", "best-static", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    ) as proc:  # closes the pipes and waits for the process
        try:
            _talk_to_the_server(proc)
        finally:
            proc.terminate()
            proc.wait(30)


def _talk_to_the_server(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline()  # printed once the socket listens: the event to wait for
    assert "SATP's API" in line and "127.0.0.1" in line, line + (proc.stderr.read() if proc.poll() else "")
    url = line.strip().rsplit(" ", 1)[-1]
    with httpx.Client(base_url=url, timeout=60) as http:
        assert http.get("/health").json()["ok"] is True
        t = THMS[2]
        r = http.post("/infer", json=satp_request(t))
        assert r.status_code == 200
        answer = r.json()
        static = best_static_action("satp-v1", "sim")
        assert answer["tactic"] == V1.render(static, t.context_lemmas)
        env = gym.make("LeanAesop-v0", backend="sim", theorems=[t])
        env.reset(options={"index": 0})
        assert (sim_verdict(answer, t.header) == "proved") == (env.step(static)[1] > 0)
        env.close()
        bad = http.post("/infer", content=b"{", headers={"content-type": "application/json"})
        assert bad.status_code == 400 and bad.json()["ok"] is False


def test_serve_policy_cli_user_errors_are_one_line() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "lean_gym.cli", "serve-policy", "missing.pt"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "neither 'plain', 'best-static' nor a checkpoint" in r.stderr
