"""``lean-gym selftest``: the REPL-transcript runner, the hack catalogue on a backend, the report, the CLI,
and the real-Lean path end to end on recorded Lean (``replay_server.py --lean`` behind a fake ``lake``)."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from lean_gym.backends import ReplBackend, SimBackend
from lean_gym.cli import main
from lean_gym.conformance import load_cases
from lean_gym.conformance.hacks import run_hack_catalogue
from lean_gym.conformance.repl_runner import (
    compare_response,
    file_reason,
    replay_case,
    run_repl_cases,
)
from lean_gym.conformance.selftest import (
    SelftestReport,
    Thresholds,
    backend_lean_version,
    format_report,
    message_lines,
    run_selftest,
)
from lean_gym.errors import ConfigError
from lean_gym.lean.versions import release
from lean_gym.lean.workspace import Workspace
from lean_gym.workspace import write_workspace

REPLAY = Path(__file__).parent / "replay_server.py"


def _repl_case(path: str, version: str | None = None) -> Any:
    """The transcript ``path`` of the REPL at 8948401 (``repl.jsonl``), or of the tag ``version``."""
    where = "repl/repl.jsonl" if version is None else f"repl/tags/{version}.jsonl"
    (case,) = [c for c in load_cases(["repl"]) if c.source["path"] == path and c.path == where]
    return case


class Scripted:
    """A REPL session that answers the recorded responses, edited by ``edit(i, response)``."""

    def __init__(self, case: Any, edit: Any) -> None:
        self.case, self.edit, self.i = case, edit, 0

    def send(self, request: Mapping[str, Any]) -> dict[str, Any]:
        out = self.edit(self.i, json.loads(json.dumps(self.case.responses[self.i])))
        self.i += 1
        return out

    def close(self) -> None:
        pass


# ------------------------------------------------------------------------------------ the REPL runner


def test_a_conforming_transcript_agrees_exactly_on_the_simulator() -> None:
    case = _repl_case("test/dup_msg.in")
    (r,) = run_repl_cases(SimBackend(), [case])
    assert (r.outcome, r.exact, r.responses) == ("agree", True, len(case.requests))


def test_an_answer_proved_where_lean_failed_is_stronger_even_beside_an_outside_message() -> None:
    case = _repl_case("test/unfinished_tactic_block.in")
    lean = [compare_response(x, x)[1] for x in case.responses]
    i = lean.index("error")

    def lie(k: int, resp: dict[str, Any]) -> dict[str, Any]:
        if k == i:  # a "proof" with an outside-the-subset note elsewhere must still count as stronger
            return {"env": resp.get("env", 0)}
        if k == 0:
            resp.setdefault("messages", []).append(
                {"severity": "info", "pos": {"line": 1, "column": 0}, "endPos": None,
                 "data": "x is outside the simulator's Lean subset"}
            )  # fmt: skip
        return resp

    r = replay_case(case, Scripted(case, lie), simulator=True)
    assert r.outcome == "stronger" and f"response {i}" in r.difference


def test_renumbered_environments_and_moved_messages_are_structural_differences() -> None:
    case = _repl_case("test/dup_msg.in")

    def renumber(k: int, resp: dict[str, Any]) -> dict[str, Any]:
        return {**resp, "env": resp["env"] + 1} if "env" in resp else resp

    r = replay_case(case, Scripted(case, renumber))
    assert r.outcome == "structure" and "env" in r.difference
    assert compare_response({"env": 0, "x": 1}, {"env": 0})[2].startswith("keys")
    moved = {"env": 0, "messages": [{"severity": "error", "pos": {"line": 2, "column": 0}, "data": "e"}]}
    want = {"env": 0, "messages": [{"severity": "error", "pos": {"line": 1, "column": 0}, "data": "e"}]}
    assert "messages[0].pos" in compare_response(moved, want)[2]


def test_text_is_compared_with_whitespace_collapsed_and_key_order_ignored() -> None:
    want = {"messages": [{"severity": "error", "pos": None, "endPos": None, "data": "a\n  b"}], "env": 0}
    got = {"env": 0, "messages": [{"severity": "error", "pos": None, "endPos": None, "data": "a b"}]}
    assert compare_response(got, want) == ("error", "error", "", True)
    got["messages"][0]["data"] = "a c"
    assert compare_response(got, want)[3] is False


def test_transcripts_that_touch_files_are_skipped_with_the_reason() -> None:
    pickling = [c for c in load_cases(["repl"]) if file_reason(c)]
    assert pickling and all("files" in file_reason(c) for c in pickling)
    results = run_repl_cases(SimBackend(), pickling[:3])
    assert [r.outcome for r in results] == ["skipped"] * 3 and all(r.reason for r in results)


def test_a_backend_without_the_repl_protocol_skips_every_transcript() -> None:
    from proof_fakes import ScriptedLean

    results = run_repl_cases(ScriptedLean(), [_repl_case("test/dup_msg.in")])
    assert results[0].outcome == "skipped" and "REPL protocol" in results[0].reason


def test_sim_repl_subprocesses_answer_the_transcripts_as_the_in_process_simulator() -> None:
    names = ["test/dup_msg.in", "test/proof_step.in", "test/calc.in", "test/unknown_tactic.in"]
    cases = [_repl_case(n) for n in names]
    backend = ReplBackend.simulator(pool_size=1)
    try:
        sub = run_repl_cases(backend, cases)
    finally:
        backend.close()
    here = run_repl_cases(SimBackend(), cases)
    assert [(r.outcome, r.exact, r.difference) for r in sub] == [
        (r.outcome, r.exact, r.difference) for r in here
    ]


# --------------------------------------------------------------------------------- the hack catalogue


def test_the_catalogue_on_the_simulator_catches_every_hack_it_can_ask_about() -> None:
    results = run_hack_catalogue(SimBackend())
    hacks = [r for r in results if not r.honest]
    assert not any(r.failed for r in hacks)
    assert {r.outcome for r in hacks} == {"caught", "skipped"}
    assert all("scripted backend" in r.reason for r in hacks if r.outcome == "skipped")


def test_the_oracle_catches_the_catalogue_even_on_a_backend_that_lies() -> None:
    """A broken Lean that proves everything and lists only ``propext``: the oracle's scan still catches
    every hack (so on a real install the catalogue part mostly shows that honest proofs are accepted)."""
    from lean_gym.backends import CheckResult
    from lean_gym.lean.protocol import Message, Position

    class Liar:
        name = "liar"

        def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
            msgs = tuple(
                Message("info", Position(k, 0), None, f"'{line.split()[-1]}' depends on axioms: [propext]")
                for k, line in enumerate(code.split("\n"), 1)
                if line.startswith("#print axioms")
            )
            return CheckResult("proved", msgs, backend="liar")

        def check_batch(
            self, codes: Any, *, header: Any = "", timeout: float | None = None
        ) -> list[CheckResult]:
            return [self.check(c) for c in codes]

        def close(self) -> None:
            pass

    results = run_hack_catalogue(Liar())
    assert not any(r.failed for r in results)
    assert all(r.outcome == "accepted" for r in results if r.honest)


def test_a_hack_given_another_class_fails_the_selftest(monkeypatch: pytest.MonkeyPatch) -> None:
    import lean_gym.conformance.hacks as hacks
    from lean_gym.grading.catalogue import CATALOGUE, Hack

    wrong = Hack("sorry-labelled-admit", "sorry", "admit", "accept_sorry")
    monkeypatch.setattr(hacks, "CATALOGUE", (*CATALOGUE[:3], wrong))
    monkeypatch.setattr(hacks, "HONEST", ())
    results = run_hack_catalogue(SimBackend())
    assert [r.outcome for r in results] == ["caught"] * 3 + ["miscaught"]
    report = SelftestReport("sim", None, True, hacks=tuple(results))
    assert not report.passed
    assert "hack miscaught sorry-labelled-admit" in format_report(report)


# --------------------------------------------------------------------------------------- the report


def test_selftest_on_one_family_reports_every_disagreement_with_its_source_line() -> None:
    report = run_selftest(SimBackend(), families=["omega"])
    assert report.commands and all(r.case.family == "omega" for r in report.commands)
    assert not report.repl and not report.hacks
    text = format_report(report)
    for r in report.commands:
        if r.outcome not in ("agree", "unread"):
            assert f"{r.case.id} {r.case.source['path']}:{r.case.source['line']}" in text
    assert "the simulator (not Lean" in text
    assert ("all thresholds met" in text) == report.passed


def test_thresholds_decide_the_verdict() -> None:
    report = run_selftest(SimBackend(), families=["zify"])
    t = report.overall
    assert t.agreement is not None
    lax = run_selftest(
        SimBackend(), families=["zify"], thresholds=Thresholds(t.counts["stronger"], t.agreement, 0)
    )
    strict = run_selftest(
        SimBackend(), families=["zify"], thresholds=Thresholds(0, min(1.0, t.agreement + 0.01))
    )
    assert lax.passed and not (strict.passed and t.agreement < 1.0)


def test_unknown_family_and_source_are_one_line_errors_with_a_suggestion() -> None:
    with pytest.raises(ConfigError, match="unknown family 'omgea'; did you mean 'omega'"):
        run_selftest(SimBackend(), families=["omgea"])
    with pytest.raises(ConfigError, match="unknown source 'mathlb'; did you mean 'mathlib'"):
        run_selftest(SimBackend(), sources=["mathlb"])


def test_the_simulator_runs_no_lean_version() -> None:
    assert backend_lean_version(SimBackend()) is None


# ------------------------------------------------------------------------------- message differences


def _judged(case_id: str, expect: str, lean: str | None, status: str, error: str = "", **kw: Any) -> Any:
    from lean_gym.conformance import Case, judge
    from lean_gym.lean.protocol import Message, Position
    from lean_gym.lean.result import CheckResult

    case = Case.from_json({"id": case_id, "kind": "command", "family": "decide", "header": "", "code": "x",
                           "expect": expect, "source": {"path": "t.lean", "line": 3}, **kw,
                           "messages": [{"severity": "error", "text": lean}] if lean else []})  # fmt: skip
    errors = (Message("error", Position(1, 0), None, error),) if error else ()
    return judge(case, CheckResult(status, errors, backend="sim"), messages_follow="v4.33.0-rc2")


def test_message_lines_list_every_differing_text_and_every_case_set_aside() -> None:
    results = (
        _judged(
            "lean4.decide.0001",
            "error",
            "tactic 'decide' proved\n  P",
            "error",
            "Tactic `decide` proved\n  P",
        ),
        _judged("lean4.decide.0002", "error", "same first\nbody", "error", "same first\nother body"),
        _judged("lean4.decide.0003", "error", "e", "proved"),  # stronger: the backend has no error
        _judged("lean4.decide.0004", "error", "equal\ntext", "error", "equal  \ntext"),  # equal: not listed
        _judged("aesop.decide.0005", "error", "equal", "error", "equal", lean_version="v4.32.0-rc1"),
        _judged("lean4.decide.0006", "ok", None, "error", "e"),  # no Lean text: not a message case
    )
    lines = message_lines(SelftestReport("sim", None, True, commands=results, messages_follow="v4.33.0-rc2"))
    assert [line.split()[:2] for line in lines] == [
        ["1st-line", "lean4.decide.0001"], ["exact", "lean4.decide.0002"], ["1st-line", "lean4.decide.0003"],
        ["same", "aesop.decide.0005"],
    ]  # fmt: skip
    assert "lean: tactic 'decide' proved | sim: Tactic `decide` proved" in lines[0]
    assert "t.lean:3" in lines[0] and lines[2].endswith("sim: (proved)")
    assert "(v4.32.0-rc1) [other version: messages follow v4.33.0-rc2; not counted]" in lines[3]
    assert "aesop.decide.0005" not in " ".join(lines[:3])


def test_cli_messages_lists_the_differences_of_the_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    from lean_gym.conformance.__main__ import main as conformance_main

    conformance_main(["--source", "aesop", "--family", "aesop", "--messages"])
    out = capsys.readouterr().out
    head = next(line for line in out.splitlines() if line.startswith("message differences"))
    listed = [line for line in out.splitlines() if line.startswith(("1st-line ", "exact ", "same "))]
    aside = int(head.rsplit(" ", 1)[1].rstrip("):"))
    # every aesop record is v4.32.0-rc1: each message case is set aside and listed, none hidden
    assert aside > 0 and len(listed) >= aside and all("not counted" in line for line in listed)
    assert "its messages follow Lean v4.33.0-rc2's wording" in out
    main(["selftest", "--backend", "sim", "--family", "decide", "--messages", "--quiet"])
    lines = capsys.readouterr().out.splitlines()
    head = next(line for line in lines if line.startswith("message differences"))
    n = 0 if "none" in head else int(head.split("(", 1)[1].split(";", 1)[0])
    assert len([line for line in lines if line.startswith(("1st-line ", "exact ", "same "))]) == n


# ------------------------------------------------------------------------------------------- the CLI


def _exit_status(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as e:  # argparse's errors
        return int(e.code or 0)


def test_cli_bad_flags_fail_in_one_line_before_any_backend_starts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import lean_gym.backends as backends

    def boom(*a: Any, **k: Any) -> Any:
        raise AssertionError("a backend was built before the flags were checked")

    monkeypatch.setattr(backends, "make_backend", boom)
    for argv, words in (
        (["--family", "omgea"], "did you mean 'omega'"),
        (["--source", "mathlb"], "did you mean 'mathlib'"),
        (["--backend", "lean"], "real Lean is 'repl'"),
        (["--min-agreement", "120"], "between 0 and 100"),
    ):
        assert _exit_status(["selftest", *argv]) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1, err


def test_cli_json_is_a_bug_report_and_the_exit_status_is_the_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["selftest", "--backend", "sim", "--family", "zify", "--family", "hacks", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["backend"] == "sim" and out["simulator"] is True and out["backend_lean_version"] is None
    assert code == (0 if out["passed"] else 1)
    cases = out["commands"]["cases"]
    assert cases and all(c["family"] == "zify" and ":" in c["path"] for c in cases)
    assert len(out["hacks"]) > 40 and {t["name"] for t in out["thresholds"]} >= {"hacks the oracle misses"}


def test_cli_markdown_prints_the_tables(capsys: pytest.CaptureFixture[str]) -> None:
    main(["selftest", "--backend", "sim", "--family", "zify", "--markdown"])
    out = capsys.readouterr().out
    assert "| family | cases |" in out and "| `zify` |" in out and "| all |" in out


# ------------------------------------------------------------------------- the real path, recorded Lean


@pytest.fixture
def recorded_lean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A built-looking workspace (Lean v4.27.0) whose ``lake env repl`` is recorded Lean."""
    root = tmp_path / "ws"
    write_workspace(root, lean=release("v4.27.0"))  # a release whose transcripts are on record
    ws = Workspace(root)
    for f in (ws.repl_binary, ws.mathlib_olean):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    lake = bin_dir / "lake"
    lake.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{REPLAY}" --lean "$@"\n')
    lake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{__import__('os').environ['PATH']}")
    monkeypatch.delenv("LEAN_GYM_FAKE_FLIP", raising=False)
    # the fake lake lives outside what real Lean's sandbox binds (elan's home, the workspace): no sandbox
    # here (tests/test_sandbox.py attacks the sandbox itself)
    monkeypatch.setenv("LEAN_GYM_SANDBOX", "0")
    return root


def test_selftest_on_recorded_lean_meets_every_threshold(recorded_lean: Path) -> None:
    from lean_gym.backends import make_backend

    backend = make_backend("repl", workspace=recorded_lean)
    try:
        # families whose cases share one header each (a new header is a new process in a pool of one)
        report = run_selftest(backend, families=["decide", "minimal_proof", "hacks"])
    finally:
        backend.close()
    text = format_report(report)
    assert "Lean v4.27.0" in text and "all thresholds met" in text and report.passed, text
    assert "hack catalogue" in text and " 0 accepted" in text
    out = report.to_json()
    counts = out["commands"]["all"]["counts"]
    # recorded Lean answers every case as the record does: all agree, none set apart for its version
    assert counts["agree"] == len(out["commands"]["cases"]) > 100 and counts["version"] == 0
    assert out["backend_lean_version"] == "v4.27.0"


def test_selftest_on_recorded_lean_reports_a_disagreement_or_another_versions_record(
    recorded_lean: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = load_cases(["lean4", "satp"], ["decide", "minimal_proof"])
    same = next(c for c in cases if c.family == "decide" and c.expect == "error")  # version unknown
    other = next(c for c in cases if c.family == "minimal_proof" and c.expect == "ok")  # v4.26.0
    monkeypatch.setenv("LEAN_GYM_FAKE_FLIP", f"{same.id},{other.id}")
    code = main(["selftest", "--backend", "repl", "--workspace", str(recorded_lean), "--family", "decide",
                 "--family", "minimal_proof"])  # fmt: skip
    text = capsys.readouterr().out
    assert code == 1  # Lean fails, this backend proves: below threshold
    assert f"stronger {same.id} {same.source['path']}:{same.source['line']}" in text
    assert f"version  {other.id}" in text and "record v4.26.0, backend v4.27.0: not counted" in text


def test_recorded_transcripts_replay_on_the_real_path(recorded_lean: Path) -> None:
    backend = ReplBackend.lean(workspace=recorded_lean, pool_size=1)
    try:
        assert backend_lean_version(backend) == "v4.27.0"
        cases = [_repl_case(p, "v4.27.0") for p in ("test/dup_msg.in", "test/calc.in", "test/proof_step.in")]
        results = run_repl_cases(backend, cases, backend_version="v4.27.0")
    finally:
        backend.close()
    assert [(r.outcome, r.exact) for r in results] == [("agree", True)] * 3


@pytest.mark.slow
def test_selftest_replays_every_transcript_of_the_backends_version(
    recorded_lean: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["selftest", "--backend", "repl", "--workspace", str(recorded_lean), "--family", "repl", "--json"]
    )
    out = json.loads(capsys.readouterr().out)
    by_tag = out["repl"]["by_tag"]
    mine = by_tag["v4.27.0 tag"]
    assert mine["agree"] == mine["exact"] == 55 - mine["skipped"] and mine["skipped"] == 9
    assert all(t["skipped"] == sum(v for k, v in t.items() if k != "exact") for k, t in by_tag.items()
               if k != "v4.27.0 tag")  # fmt: skip
    assert code == 0


def test_sim_repl_gives_the_simulators_figures(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["selftest", "--family", "zify", "--family", "decide", "--family", "hacks", "--json"]
    main([*argv, "--backend", "sim"])
    here = json.loads(capsys.readouterr().out)
    main([*argv, "--backend", "sim-repl"])
    sub = json.loads(capsys.readouterr().out)
    assert sub["backend"] == "sim-repl" and sub["simulator"] is True
    assert sub["commands"]["by_family"] == here["commands"]["by_family"]
    assert [(h["id"], h["outcome"]) for h in sub["hacks"]] == [(h["id"], h["outcome"]) for h in here["hacks"]]


def test_a_terminal_gets_a_progress_bar_and_a_pipe_none(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    main(["selftest", "--backend", "sim", "--family", "zify"])
    assert "commands" not in capsys.readouterr().err  # stderr is not a terminal here
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    main(["selftest", "--backend", "sim", "--family", "zify"])
    assert "commands" in term.getvalue() and "12/12" in term.getvalue()
