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
from transcripts import fixture_names, repl_cases, replay_command, split_requests, transcript

HERE = Path(__file__).parent

# The verdict of every response of these recorded transcripts, written down by reading each one (the
# REPL's test/*.expected.out at 8948401; the first 20 are the set described in fixtures/repl/README.md).
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
    # goals == [] after a tactic on a `have`'s sorry goal, but "Incomplete: contains metavariable(s)": the
    # enclosing proof is not finished, whatever the tactic did
    "name_generator": ["sorry", "error", "error", "error", "error", "error", "error", "error", "error"],
    # two errors and no sorry entry, though the source has two `sorry`s
    "no_goal_sorry": ["error"],
    "unfinished_tactic_block": ["error"],
    "synthesize_placeholder": ["error"],
    # framing joins `by` and the next line: `Unknown identifier \`bysorry\``
    "invalid_line_break": ["error", "error"],
    # allTactics output beside two sorries
    "calc": ["sorry"],
    "tactic_sorry": ["sorry"],
}


def test_verdicts_name_shipped_transcripts() -> None:
    assert set(EXPECTED_VERDICTS) <= set(fixture_names())
    assert len(fixture_names()) == 71  # every test/*.in of the REPL at 8948401 with an .expected.out


def _kind_ok(req: dict, obj: dict) -> bool:
    parsed = parse_response(obj)
    if "tactic" in req or "unpickleProofStateFrom" in req or ("pickleTo" in req and "proofState" in req):
        return isinstance(parsed, (TacticResponse, ErrorResponse))
    if "message" in obj:
        return isinstance(parsed, ErrorResponse)
    return isinstance(parsed, CommandResponse)


@pytest.mark.parametrize("name", fixture_names())
def test_every_recorded_response_parses_as_its_request_kind(name: str) -> None:
    requests, responses = transcript(name)
    assert len(requests) == len(responses) > 0
    for req, obj in zip(requests, responses):
        assert _kind_ok(req, obj), (name, req, obj)


@pytest.mark.parametrize("name", sorted(EXPECTED_VERDICTS))
def test_fixture_responses_parse_and_classify(name: str) -> None:
    requests, responses = transcript(name)
    assert len(requests) == len(responses) == len(EXPECTED_VERDICTS[name])
    for req, obj, verdict in zip(requests, responses, EXPECTED_VERDICTS[name]):
        assert _kind_ok(req, obj), (name, req, obj)
        assert classify(obj) == verdict, (name, req, obj)


def test_parsed_fields_keep_positions_and_goals() -> None:
    _, responses = transcript("have_by_sorry")
    first = parse_response(responses[0])
    assert isinstance(first, CommandResponse)
    assert first.env == 0
    (err,) = first.messages
    assert (err.severity, err.pos.line, err.pos.column, err.end_pos.line, err.end_pos.column) == (
        "error",
        1,
        33,
        2,
        28,
    )
    assert err.data.startswith("unsolved goals")
    (s,) = first.sorries
    assert s.goal == "x : Int\n⊢ x = 1" and s.proof_state == 0
    third = parse_response(responses[2])
    assert isinstance(third, TacticResponse)
    assert third.sorries[0].pos is None  # tactic-mode sorries carry no position
    assert third.proof_status == "Incomplete: open goals remain"


def test_sorry_warning_wording_of_older_lean_is_still_a_sorry() -> None:
    old = {
        "env": 0,
        "messages": [
            {
                "severity": "warning",
                "pos": {"line": 1, "column": 8},
                "endPos": None,
                "data": "declaration uses 'sorry'",
            }
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
    case = repl_cases()["line_breaks"]
    text = case["in_text"]  # the .in file verbatim
    assert 'by\\n\nsorry"' in text  # an escaped newline, then a raw one, inside one JSON string
    requests = split_requests(text)
    assert requests == case["requests"]
    assert requests[0]["cmd"] == "theorem foo : 1 = 1 := by\nsorry"  # the raw newline is gone
    assert requests[1]["cmd"] == "theorem foo : 1 = 1 := by\n  sorry"  # leading spaces survive
    # and with no escape, the raw newline alone joins two tokens into one identifier
    other = repl_cases()["invalid_line_break"]
    assert split_requests(other["in_text"]) == other["requests"]
    assert other["requests"][0]["cmd"] == "theorem foo : 1 = 1 := bysorry"


@pytest.mark.parametrize("name", sorted(EXPECTED_VERDICTS))
def test_transcript_replayed_through_lean_repl(name: str) -> None:
    """A server process answering the recorded inputs with the recorded outputs, driven by LeanRepl."""
    requests, responses = transcript(name)
    with LeanRepl([sys.executable, *replay_command(name)], default_timeout=20) as repl:
        for req, want in zip(requests, responses):
            got = repl.send(req)
            assert got == want
            assert parse_response(got) == parse_response(want)
            assert classify(got) == classify(want)
