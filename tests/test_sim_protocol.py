"""The simulator's REPL protocol: in process (:class:`SimRepl`) and through ``python -m lean_gym.sim``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from mathlib_header import MathlibRepl

from lean_gym.errors import ProtocolError
from lean_gym.lean.protocol import classify_response
from lean_gym.sim import SimRepl
from lean_gym.sim.jsonfmt import lean_json, lean_order

ROOT = Path(__file__).resolve().parents[1]


def run_server(stdin: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run(
        [sys.executable, "-m", "lean_gym.sim"],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=timeout,
        cwd=ROOT,
        env=env,
    )


def responses(stdout: str) -> list[dict]:
    dec = json.JSONDecoder()
    out, i = [], 0
    while True:
        while i < len(stdout) and stdout[i] in " \n":
            i += 1
        if i >= len(stdout):
            return out
        obj, i = dec.raw_decode(stdout, i)
        out.append(obj)


# ------------------------------------------------------------------------------------------ in process


def test_env_chaining_and_ids() -> None:
    r = MathlibRepl()  # Mathlib statements
    assert r.handle({"cmd": "theorem a (x : Nat) : x = x := rfl"}) == {"env": 0}
    assert r.handle({"cmd": "theorem b (x : Nat) : x = x := a x", "env": 0}) == {"env": 1}
    resp = r.handle({"cmd": "theorem c (x : Nat) : x = x := b x"})
    assert resp["messages"][0]["data"] == "Unknown identifier `b`"
    assert resp["env"] == 2
    assert r.handle({"cmd": "#check a", "env": 7}) == {"message": "Unknown environment."}


def test_options_and_opens_are_part_of_the_snapshot() -> None:
    r = MathlibRepl()  # Mathlib statements
    r.handle({"cmd": "set_option maxHeartbeats 50"})
    slow = "theorem t (a b c : ℝ) (h : a < b) (h2 : b < c) : a * b * c ≤ a ^ 3 + b ^ 3 + c ^ 3 := by nlinarith [sq_nonneg (a - b), sq_nonneg (b - c)]"
    resp = r.handle({"cmd": slow, "env": 0})
    assert "maximum number of heartbeats (50)" in resp["messages"][0]["data"]
    fresh = r.handle({"cmd": "theorem u (x : ℝ) (h : 0 < x) : 0 < 2 * x := by linarith"})
    assert "messages" not in fresh


def test_sorry_gives_proof_state_and_tactic_mode_completes() -> None:
    r = MathlibRepl()  # Mathlib statements
    resp = r.handle({"cmd": "theorem t (x y : ℝ) (h : x < y) : x ≤ y := by sorry"})
    assert list(resp) == ["sorries", "messages", "env"]
    (s,) = resp["sorries"]
    assert list(s) == ["proofState", "pos", "goal", "endPos"]
    assert s["goal"] == "x y : ℝ\nh : x < y\n⊢ x ≤ y"
    assert classify_response(resp) == "sorry"
    step = r.handle({"tactic": "linarith", "proofState": s["proofState"]})
    assert step == {"proofStatus": "Completed", "proofState": 1, "goals": []}
    assert classify_response(step) == "proved"


def test_tactic_mode_branching_errors_and_status() -> None:
    r = MathlibRepl()  # Mathlib statements
    r.handle({"cmd": "theorem t (p q : Prop) (hp : p) (hq : q) : p ∧ q := by sorry"})
    step = r.handle({"tactic": "constructor", "proofState": 0})
    assert step["proofStatus"] == "Incomplete: open goals remain"
    assert step["goals"][0].startswith("case left\n")
    again = r.handle({"tactic": "exact ⟨hp, hq⟩", "proofState": 0})
    assert again["proofStatus"] == "Completed"
    bad = r.handle({"tactic": "exact nope", "proofState": 0})
    assert bad["proofStatus"] == "Incomplete: contains sorry" and bad["goals"] == []
    assert bad["messages"][0]["pos"] == {"line": 0, "column": 0}
    assert classify_response(bad) == "error"
    thrown = r.handle({"tactic": "linarith", "proofState": 1})
    assert thrown["message"].startswith("Lean error:\nlinarith failed")
    assert r.handle({"tactic": "exat 42", "proofState": 0}) == {
        "message": "Lean error:\n<input>:1:1: unknown tactic"
    }
    assert r.handle({"tactic": "rfl", "proofState": 99}) == {"message": "Unknown proof state."}
    sorry = r.handle({"tactic": "sorry", "proofState": 0})
    assert sorry["proofStatus"] == "Incomplete: contains sorry" and "proofState" in sorry["sorries"][0]


def test_pickle_round_trip(tmp_path: Path) -> None:
    r = MathlibRepl()  # Mathlib statements
    r.handle({"cmd": "def f := 42\ntheorem g (x : ℝ) (h : 0 < x) : 0 < x * x := by sorry"})
    envp, psp = str(tmp_path / "e.olean"), str(tmp_path / "p.olean")
    assert r.handle({"pickleTo": envp, "env": 0}) == {"env": 0}
    assert r.handle({"unpickleEnvFrom": envp}) == {"env": 1}
    assert r.handle({"cmd": "example : f = 42 := by rfl", "env": 1}) == {"env": 2}
    pick = r.handle({"pickleTo": psp, "proofState": 0})
    assert pick["proofState"] == 1 and pick["goals"] == ["x : ℝ\nh : 0 < x\n⊢ 0 < x * x"]
    un = r.handle({"unpickleProofStateFrom": psp})
    assert un["proofState"] == 2
    assert r.handle({"tactic": "positivity", "proofState": 2})["proofStatus"] == "Completed"
    assert r.handle({"pickleTo": psp, "proofState": 50}) == {"message": "Unknown proof State."}


def test_unparseable_request_raises_protocol_error() -> None:
    with pytest.raises(ProtocolError):
        SimRepl().handle({"nonsense": 1})


def test_key_order_is_leans() -> None:
    assert list(lean_order({"env": 0, "messages": [], "sorries": []})) == ["sorries", "messages", "env"]
    assert list(lean_order({"goals": [], "proofState": 1, "proofStatus": "Completed"})) == [
        "proofStatus",
        "proofState",
        "goals",
    ]


def test_lean_json_layout() -> None:
    assert lean_json({"env": 0}) == '{"env": 0}'
    long = {"proofStatus": "Incomplete: open goals remain", "proofState": 1, "goals": ["⊢ Nat"]}
    assert (
        lean_json(long)
        == '{"proofStatus": "Incomplete: open goals remain",\n "proofState": 1,\n "goals": ["⊢ Nat"]}'
    )
    assert lean_json({"a": 'x\ny"\\'}) == '{"a": "x\\ny\\"\\\\"}'


def test_in_process_speed_of_a_one_line_proof() -> None:
    # a behaviour check, not a timing assertion: the cache-free path must stay cheap enough to loop
    r = MathlibRepl()  # Mathlib statements
    for i in range(50):
        assert "messages" not in r.handle(
            {"cmd": f"theorem t{i} (x y : ℝ) (h : x < y) : x ≤ y := by linarith"}
        )


# ------------------------------------------------------------------------------------------ subprocess


def test_server_framing_chaining_and_tactic_mode() -> None:
    stdin = (
        '{"cmd": "theorem t (x : Nat) (h : x < 3) : x ≤ 2 := by sorry"}\n\n'
        "# a comment request gets no response\n\n"
        "-- nor does this one\n\n"
        '{"tactic": "omega", "proofState": 0}\n\n'
        '{"cmd": "#print axioms t", "env": 0}\n\n'
    )
    proc = run_server(stdin)
    assert proc.returncode == 0, proc.stderr
    rs = responses(proc.stdout)
    assert [classify_response(x) for x in rs] == ["sorry", "proved", "proved"]
    assert rs[1] == {"proofStatus": "Completed", "proofState": 1, "goals": []}
    assert rs[2]["messages"][0]["data"] == "'t' depends on axioms: [sorryAx]"
    # byte framing: every response is Lean's pretty JSON followed by one blank line
    assert proc.stdout.endswith("}\n\n")
    assert proc.stdout.count("\n\n") == 3


def test_server_joins_lines_without_separator() -> None:
    stdin = '{"cmd": "theorem foo : 1 = 1 := by\\n\n  rfl"}\n\n{"cmd":\n "example : 2 = 2 := rfl"}\n\n'
    rs = responses(run_server(stdin).stdout)
    assert rs == [{"env": 0}, {"env": 1}]


def test_server_invalid_json_exits_1() -> None:
    proc = run_server('{"cmd": "example : 1 = 1 := rfl"}\n\n{not json}\n\n{"cmd": "x"}\n\n')
    assert proc.returncode == 1
    assert proc.stdout.startswith('{"env": 0}\n\n')
    assert "uncaught exception:" in proc.stdout
    assert proc.stdout.count('{"env"') == 1


def test_server_unknown_request_shape_exits_1() -> None:
    proc = run_server('{"what": 1}\n\n')
    assert proc.returncode == 1 and proc.stdout.startswith("uncaught exception:")


def test_server_eof_without_trailing_blank_line() -> None:
    proc = run_server('{"cmd": "example : 1 = 1 := rfl"}')
    assert proc.returncode == 0
    assert proc.stdout == '{"env": 0}\n\n'


def test_server_empty_input() -> None:
    proc = run_server("")
    assert proc.returncode == 0 and proc.stdout == ""
