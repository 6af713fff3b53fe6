"""The corpus loader and the judge of one case (lean_gym.conformance)."""

from __future__ import annotations

import pytest

from lean_gym.conformance import Case, judge, load_cases, run_command_cases, tally
from lean_gym.errors import ConfigError
from lean_gym.lean.protocol import Message, Position
from lean_gym.lean.result import CheckResult


def _case(expect: str, lean_error: str | None = None, **kw: object) -> Case:
    msgs = [{"severity": "error", "text": lean_error}] if lean_error else []
    return Case.from_json(
        {"id": "lean4.omega.9999", "kind": "command", "family": "omega", "header": "",
         "code": "example : True := by omega", "expect": expect, "messages": msgs,
         "source": {"repo": "r", "path": "p", "commit": "0" * 40, "line": 1, "how": "compiles"}, **kw}
    )  # fmt: skip


def _err(text: str) -> CheckResult:
    return CheckResult("error", (Message("error", Position(1, 0), None, text),), backend="x")


def test_the_whole_corpus_loads_with_unique_ids() -> None:
    cases = load_cases()
    assert len(cases) >= 1500
    assert len({c.id for c in cases}) == len(cases)
    assert {c.corpus_source for c in cases} == {"aesop", "lean4", "mathlib", "repl", "satp"}


def test_a_backend_that_accepts_what_lean_rejects_is_stronger() -> None:
    r = judge(_case("error", "omega could not prove the goal"), CheckResult("proved", backend="x"))
    assert r.outcome == "stronger"
    assert judge(_case("error"), CheckResult("sorry", backend="x")).outcome == "stronger"


def test_outcomes_and_message_matches() -> None:
    r = judge(_case("error", "omega could not prove the goal:\na possible counterexample"),
              _err("omega  could not prove the goal:\nsomething else"))  # fmt: skip
    assert (r.outcome, r.first_line_match, r.exact_match) == ("agree", True, False)
    assert judge(_case("ok"), _err("nope")).outcome == "weaker"
    assert judge(_case("ok"), CheckResult("timeout", backend="x")).outcome == "timeout"
    # a case the simulator cannot read is counted apart, unless its error is Lean's own first line
    assert judge(_case("ok"), _err("e"), unread=lambda c: "outside").outcome == "unread"
    assert judge(_case("error", "e"), _err("e"), unread=lambda c: "outside").outcome == "agree"


def test_malformed_cases_are_one_line_errors() -> None:
    with pytest.raises(ConfigError, match="expect must be"):
        _case("maybe")
    with pytest.raises(ConfigError, match="unknown corpus source 'mathlb'"):
        load_cases(["mathlb"])


def test_the_simulator_on_a_family_of_the_record() -> None:
    from lean_gym.backends import SimBackend

    cases = load_cases(["lean4"], ["omega"])
    t = tally(run_command_cases(SimBackend(), cases))
    assert t.total == len(cases) and t.read > 0


def test_the_simulator_is_recognised_behind_a_server_and_nothing_else_is() -> None:
    from types import SimpleNamespace

    from lean_gym.conformance import is_simulator

    names = {"sim": True, "sim-repl": True, "sim via http://h:1": True, "sim-repl via https://h": True,
             "repl:v4.33.0-rc2": False, "repl:v4.33.0-rc2 via http://h:1": False, "simulated-lean": False}  # fmt: skip
    assert {n: is_simulator(SimpleNamespace(name=n)) for n in names} == names  # type: ignore[arg-type]
