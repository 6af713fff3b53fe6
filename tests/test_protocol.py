"""The REPL wire protocol: parsing and verdicts on every recorded transcript, and end-to-end replay."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from lean_gym.errors import ProtocolError
from lean_gym.grading import classify
from lean_gym.lean import LeanRepl
from lean_gym.lean.protocol import (
    CommandResponse,
    ErrorResponse,
    TacticResponse,
    command_request,
    encode_request,
    parse_response,
    tactic_request,
)

sys.path.insert(0, str(Path(__file__).parent))
from transcripts import FIXTURES, fixture_names, read_transcript, split_requests

HERE = Path(__file__).parent

pytestmark = pytest.mark.skipif(
    not FIXTURES.is_dir(), reason=f"REPL transcripts not found at {FIXTURES} (../shared is absent)"
)

# The verdict of every recorded response, written down by reading each one (see fixtures/repl/README.md).
EXPECTED_VERDICTS: dict[str, list[str]] = {
    "Mathlib/H20231215": ["proved", "proved"],
    "Mathlib/H20231215_2": ["proved", "sorry"],
    "all_tactics-20250622": ["proved", "proved"],
    # kernel error in command mode; sorry; open goals; open goals; kernel-check failure; open goals beside
    # a sorry (still not a finished proof); `Lean error:` top-level message.
    "app_type_mismatch2": ["error", "sorry", "error", "error", "error", "error", "error"],
    # info message from #check is not an error; `Unknown identifier` is.
    "dup_msg": ["proved", "proved", "error"],
    "file": ["proved"],
    # an error and a sorry in one response is an error
    "have_by_sorry": ["error", "sorry", "error"],
    "incomplete": ["error", "error"],
    # the trap: an error message with goals == [] and "Incomplete: contains sorry"
    "invalid_tactic": ["sorry", "error"],
    "line_breaks": ["error", "sorry", "proved"],
    "pickle_environment": ["proved", "proved", "proved", "proved"],
    "pickle_proof_state_1": ["proved", "sorry", "error", "error", "error", "error", "error", "proved"],
    "proof_step": ["sorry", "error", "error", "proved"],
    "readme": ["sorry", "error", "proved"],
    "self_proof_exact_check": ["error", "sorry", "error"],
    # goals == [] but "Incomplete: contains sorry"
    "tactic_mode_sorry": ["sorry", "sorry"],
    "term_sorry": ["sorry"],
    "unknown_environment": ["error"],
    "unknown_proof_state": ["sorry", "error"],
    "unknown_tactic": ["sorry", "error"],
}


def test_every_fixture_has_expected_verdicts() -> None:
    assert sorted(EXPECTED_VERDICTS) == fixture_names()


@pytest.mark.parametrize("name", sorted(EXPECTED_VERDICTS))
def test_fixture_responses_parse_and_classify(name: str) -> None:
    requests, responses = read_transcript(FIXTURES / f"{name}.in", FIXTURES / f"{name}.expected.out")
    assert len(requests) == len(responses) == len(EXPECTED_VERDICTS[name])
    for req, raw, verdict in zip(requests, responses, EXPECTED_VERDICTS[name]):
        obj = json.loads(raw)
        parsed = parse_response(obj)
        if "tactic" in req or "unpickleProofStateFrom" in req or ("pickleTo" in req and "proofState" in req):
            assert isinstance(parsed, (TacticResponse, ErrorResponse))
        elif "message" in obj:
            assert isinstance(parsed, ErrorResponse)
        else:
            assert isinstance(parsed, CommandResponse)
        assert classify(obj) == verdict, (name, req, obj)


def test_parsed_fields_keep_positions_and_goals() -> None:
    _, responses = read_transcript(FIXTURES / "have_by_sorry.in", FIXTURES / "have_by_sorry.expected.out")
    first = parse_response(json.loads(responses[0]))
    assert isinstance(first, CommandResponse)
    assert first.env == 0
    (err,) = first.messages
    assert (err.severity, err.pos.line, err.pos.column, err.end_pos.line, err.end_pos.column) == (
        "error", 1, 33, 2, 28)
    assert err.data.startswith("unsolved goals")
    (s,) = first.sorries
    assert s.goal == "x : Int\n⊢ x = 1" and s.proof_state == 0
    third = parse_response(json.loads(responses[2]))
    assert isinstance(third, TacticResponse)
    assert third.sorries[0].pos is None  # tactic-mode sorries carry no position
    assert third.proof_status == "Incomplete: open goals remain"


def test_sorry_warning_wording_of_older_lean_is_still_a_sorry() -> None:
    old = {
        "env": 0,
        "messages": [
            {"severity": "warning", "pos": {"line": 1, "column": 8}, "endPos": None,
             "data": "declaration uses 'sorry'"}
        ],
    }
    assert classify(old) == "sorry"
    info_only = {"env": 0, "messages": [{**old["messages"][0], "severity": "info", "data": "f : Nat"}]}
    assert classify(info_only) == "proved"


def test_malformed_responses_raise_protocol_error() -> None:
    with pytest.raises(ProtocolError, match="unrecognised REPL response"):
        parse_response({"foo": 1})
    with pytest.raises(ProtocolError, match="must be a JSON object"):
        parse_response([1, 2])  # type: ignore[arg-type]
    with pytest.raises(ProtocolError, match="malformed"):
        parse_response({"env": "zero"})


def test_request_builders_and_framing() -> None:
    req = command_request("theorem t : 1 = 1 := by\n  rfl", env=3, all_tactics=True)
    assert req == {"cmd": "theorem t : 1 = 1 := by\n  rfl", "env": 3, "allTactics": True}
    data = encode_request(req)
    # one line of JSON (raw newlines would be deleted by the REPL's framing) and one blank line
    assert data.endswith(b"\n\n") and data.count(b"\n") == 2
    assert json.loads(data) == req
    assert tactic_request("simp", 4) == {"tactic": "simp", "proofState": 4}
    with pytest.raises(ProtocolError, match="infotree"):
        command_request("x", infotree="everything")
    with pytest.raises(ProtocolError, match="non-empty JSON object"):
        encode_request({})


def test_line_breaks_fixture_shows_the_framing_rule() -> None:
    # The REPL strips each line and joins with no separator: a raw newline inside a string disappears.
    text = (FIXTURES / "line_breaks.in").read_text(encoding="utf-8")
    assert 'by\\n\nsorry"' in text  # an escaped newline, then a raw one, inside one JSON string
    requests = split_requests(text)
    assert requests[0]["cmd"] == "theorem foo : 1 = 1 := by\nsorry"  # the raw newline is gone
    assert requests[1]["cmd"] == "theorem foo : 1 = 1 := by\n  sorry"  # leading spaces survive


@pytest.mark.parametrize("name", sorted(EXPECTED_VERDICTS))
def test_transcript_replayed_through_lean_repl(name: str) -> None:
    """A server process answering the recorded inputs with the recorded outputs, driven by LeanRepl."""
    inp, out = FIXTURES / f"{name}.in", FIXTURES / f"{name}.expected.out"
    requests, responses = read_transcript(inp, out)
    cmd = [sys.executable, str(HERE / "replay_server.py"), str(inp), str(out)]
    with LeanRepl(cmd, default_timeout=20) as repl:
        for req, raw in zip(requests, responses):
            got = repl.send(req)
            assert got == json.loads(raw)
            assert parse_response(got) == parse_response(json.loads(raw))
            assert classify(got) == classify(json.loads(raw))
