"""Conformance: the simulator answers the real REPL's recorded transcripts as Lean did.

Every shipped REPL case (``lean_gym/conformance/cases/repl/repl.jsonl``: the 71 transcripts of the REPL's
``test/`` folder at 8948401 that have an ``.expected.out``) is replayed through :class:`SimRepl`, each in a
fresh instance as upstream runs each in a fresh process, in a fresh working directory; a transcript that
unpickles what another one pickled (``needs_files`` ending in ``.olean``) runs after that one, in the same
directory. Each case is in exactly one of three lists:

* ``CONFORMS``: every response printed by the simulator's server equals the recorded one byte for byte
  (:func:`lean_json` reproduces Lean's ``Json.pretty`` on every recorded response, see
  ``test_repl_cases.py``), which implies the weaker checks too; those are also made explicitly so that a
  failure says what differs.
* ``VERDICTS_AGREE``: the texts differ (the reason is given), but every response gets the same verdict
  under :func:`classify_response`.
* ``OUTSIDE``: the transcript uses what the simulator does not model (the reason is given); every answer
  is still a well-formed protocol response, and the simulator never answers ``proved`` where Lean did not,
  except the responses listed in ``KNOWN_STRONGER`` (with why that is not a reward: the tactic env sends a
  ``Completed`` proof to the oracle, which judges the whole theorem).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from lean_gym.lean.protocol import classify_response, parse_response
from lean_gym.sim import SimRepl
from lean_gym.sim.jsonfmt import lean_json

sys.path.insert(0, str(Path(__file__).parent))
from transcripts import fixture_names, repl_cases

CONFORMS = [
    "Mathlib/20240209",
    "Mathlib/H20231215",
    "Mathlib/H20231215_2",
    "Mathlib/line_breaks",
    "Mathlib/pickle",
    "all_tactics-20250622",
    "assumption_proof",
    "dup_msg",
    "dup_sorries",
    "have_by_sorry",
    "import_lean",
    "incomplete",
    "invalid_line_break",
    "invalid_tactic",
    "line_breaks",
    "pickle_environment",
    "pickle_environment_with_imports",
    "pickle_open",
    "pickle_open_2",
    "pickle_proof_state_1",
    "pickle_proof_state_2",
    "pickle_proof_state_env",
    "proof_branching2",
    "proof_step",
    "proof_transitivity",
    "readme",
    "self_proof_apply_check",
    "self_proof_exact_check",
    "sorry_hypotheses",
    "tactic_mode_sorry",
    "tactic_sorry",
    "term_sorry",
    "unfinished_tactic_block",
    "unknown_environment",
    "unknown_proof_state",
    "unknown_tactic",
]

_CASE_TAGS = "goals carry no `case pos`/`case neg`/`case zero`/`case succ` tags"
_NAT = "Lean prints `Nat` as written where the simulator prints `ℕ` under `import Mathlib`"
VERDICTS_AGREE = {
    "Mathlib/H20231115": _NAT,
    "Mathlib/H20231115_2": _NAT + "; " + _CASE_TAGS,
    "Mathlib/H20231115_3": _NAT,
    "Mathlib/induction": _CASE_TAGS + "; inaccessible names differ (`n✝` where Lean keeps `x`, `a✝`)",
    "Mathlib/on_goal": "`on_goal` is outside the simulator's tactics",
    "Mathlib/pickle_2": "`norm_num at h` makes no progress in the simulator where Mathlib's normalises `h`",
    "Mathlib/placeholder_synthesis": "`exists_ne` is not in the simulator's library",
    "app_type_mismatch": "no kernel: `(kernel) declaration has metavariables` comes from Lean's kernel",
    "app_type_mismatch2": "no kernel and no `cases` on a Nat literal",
    "by_cases": _CASE_TAGS,
    "infotree_theorem": "no `infotree` output",
    "no_goal_sorry": "`set Nat` is elaborated differently; Lean's `Case tag `body` not found` is not modelled",
    "no_goal_sorry_2": "Lean's `No goals to be solved` on the second `sorry` vs the simulator's message",
    "proof_branching": _CASE_TAGS,
    "self_proof_check": "`exact?` is not modelled (the simulator does not search the library)",
    "synthesize_placeholder": "Lean's `don't know how to synthesize placeholder` for a term `_` in a `def`",
}

OUTSIDE = {
    "Mathlib/H20231020": "`∑ k ∈ s, f k` big-operator notation",
    "Mathlib/H20231110": "`local macro_rules`",
    "Mathlib/exact": "`exact?` (library search)",
    "Mathlib/file_env": "a file of the REPL repository (`test/file_env.lean`)",
    "all_tactics": "`have t := 37` (a `have` without a type) under `allTactics`",
    "calc": "a `calc` block whose first step starts on the next line",
    "def_eval": "`#check (rfl : f = 37)` on a `def`",
    "file": "a file of the REPL repository (`test/file.lean`)",
    "file2": "a file of the REPL repository (`test/file2.lean`)",
    "file_env": "a file of the REPL repository (`test/file_env.lean`)",
    "infotree": "`infotree` output, and `constructor` on `Nat` in a `def`",
    "name_generator": "trace messages (`set_option trace.Meta.Tactic.simp true`) and metavariable bookkeeping",
    "options": "`#print` of a constructor and `pp.universes`",
    "pickle_open_scoped": "`open scoped`, `unsafe` and the `◾` notation",
    "pickle_open_scoped_2": "unpickles what pickle_open_scoped wrote, which the simulator could not",
    "root_goals": "`rootGoals` and `exact?`",
    "self_proof_rw": "the kernel's `declaration has free variables` error",
    "trace_simp": "trace messages and `trace`",
    "variables": "`variable` commands",
}

# (transcript, response index): the simulator says "Completed" where Lean says "Incomplete: contains
# metavariable(s)": a tactic run on the goal of a `have … := by sorry` inside a proof; the REPL reports
# that the enclosing proof still has holes. Not a reward: LeanTactic-v0 sends a Completed proof to the
# oracle, which checks the assembled theorem.
KNOWN_STRONGER = {("name_generator", 2), ("name_generator", 3), ("name_generator", 5), ("name_generator", 6)}


def _shape(v: object) -> object:
    if isinstance(v, dict):
        return [(k, _shape(x)) for k, x in v.items()]
    if isinstance(v, list):
        return ["list", [_shape(x) for x in v]]
    return type(v).__name__


def _producer(name: str) -> str | None:
    """The transcript that pickles the ``.olean`` that ``name`` needs, if any."""
    cases = repl_cases()
    needs = [p for p in cases[name].get("needs_files", []) if p.endswith(".olean")]
    if not needs:
        return None
    mathlib = name.startswith("Mathlib/")
    for other, case in cases.items():
        if other.startswith("Mathlib/") == mathlib and any(
            r.get("pickleTo") == needs[0] for r in case["requests"]
        ):
            return other
    raise AssertionError(f"{name}: nothing pickles {needs[0]}")


def _replay(name: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(simulator's answer, recorded answer) per request, in the current directory."""
    producer = _producer(name)
    if producer is not None:
        _replay(producer)
    case = repl_cases()[name]
    repl = SimRepl()
    return [(repl.handle(req), want) for req, want in zip(case["requests"], case["responses"])]


def test_every_case_is_in_exactly_one_list() -> None:
    names = fixture_names()
    lists = [set(CONFORMS), set(VERDICTS_AGREE), set(OUTSIDE)]
    assert sum(len(s) for s in lists) == len(set().union(*lists)), "a case is in two lists"
    assert set().union(*lists) == set(names)


@pytest.mark.parametrize("name", CONFORMS)
def test_transcript_conforms_byte_for_byte(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # pickles go to test/*.olean relative to the working directory
    for i, (got, want) in enumerate(_replay(name)):
        where = f"{name} response {i}"
        assert list(got) == list(want), where
        assert _shape(got) == _shape(want), where
        assert classify_response(got) == classify_response(want), where
        for key in ("messages", "sorries"):
            g, w = got.get(key, []), want.get(key, [])
            assert len(g) == len(w), f"{where}: {key}"
            if key == "messages":
                assert [m["severity"] for m in g] == [m["severity"] for m in w], where
        for key in ("env", "proofState", "proofStatus", "goals", "message"):
            assert got.get(key) == want.get(key), f"{where}: {key}"
        assert lean_json(got) == lean_json(want), where


@pytest.mark.parametrize("name", sorted(VERDICTS_AGREE))
def test_transcript_verdicts_agree(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    runs = _replay(name)
    for i, (got, want) in enumerate(runs):
        parse_response(got)
        assert classify_response(got) == classify_response(want), f"{name} response {i}"
    # listed here because the text differs: when it no longer does, move the case to CONFORMS
    assert any(lean_json(got) != lean_json(want) for got, want in runs), f"{name} now conforms"


@pytest.mark.parametrize("name", sorted(OUTSIDE))
def test_outside_transcripts_get_well_formed_answers_and_never_a_stronger_verdict(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    runs = _replay(name)
    agree = True
    for i, (got, want) in enumerate(runs):
        parse_response(got)  # every answer is a valid protocol response
        mine, lean = classify_response(got), classify_response(want)
        agree = agree and mine == lean
        if mine == "proved" and lean != "proved":
            assert (name, i) in KNOWN_STRONGER, f"{name} response {i}: the simulator proves what Lean did not"
    assert not agree, f"{name}: every verdict now agrees; move it to VERDICTS_AGREE"


def test_known_stronger_answers_are_still_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    runs = _replay("name_generator")
    still = {
        ("name_generator", i)
        for i, (got, want) in enumerate(runs)
        if classify_response(got) == "proved" != classify_response(want)
    }
    assert still == KNOWN_STRONGER, "update KNOWN_STRONGER"


def test_a_file_request_is_answered_as_lean_answers_a_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ((got, _want),) = _replay("file")
    assert got["message"].startswith("Lean error:\nno such file or directory")
