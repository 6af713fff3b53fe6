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


# ------------------------------------------------------------------ versions: verdicts and messages


def test_a_message_recorded_at_another_version_is_set_aside_equal_or_not() -> None:
    old = "omega could not prove the goal"
    for text in (old, "Omega could not prove the goal"):
        r = judge(_case("error", old, lean_version="v4.32.0-rc1"), _err(text), messages_follow="v4.33.0-rc2")
        # the verdict still counts; the texts do not (counting only the equal ones would inflate the rate)
        assert (r.outcome, r.first_line_match, r.exact_match, r.message_set_aside) == (
            "agree",
            None,
            None,
            True,
        )
    same = judge(
        _case("error", old, lean_version="v4.33.0-rc2"), _err("other"), messages_follow="v4.33.0-rc2"
    )
    unknown = judge(_case("error", old), _err("other"), messages_follow="v4.33.0-rc2")
    for r in (same, unknown):  # the pinned version's record, and one whose version is unknown, count
        assert (r.first_line_match, r.message_set_aside) == (False, False)
    t = tally([judge(_case("error", old, lean_version="v4.26.0"), _err(old), messages_follow="v4.33.0-rc2"),
               same])  # fmt: skip
    assert (t.messages, t.first_line, t.set_aside) == (1, 0, 1)


def test_a_stronger_case_is_never_set_aside_for_its_version() -> None:
    case = _case("error", "e", lean_version="v4.26.0")
    assert judge(case, CheckResult("proved", backend="x"), backend_version="v4.27.0").outcome == "stronger"
    weaker = judge(_case("ok", lean_version="v4.26.0"), _err("e"), backend_version="v4.27.0")
    assert weaker.outcome == "version"  # Lean proved it on another version: not counted against the backend
    # a backend's own version is what its messages follow unless it declares otherwise
    assert judge(case, _err("e"), backend_version="v4.27.0").message_set_aside


def test_the_version_a_backends_messages_follow() -> None:
    from types import SimpleNamespace

    from lean_gym.backends import Capabilities, SimBackend
    from lean_gym.conformance import message_version
    from lean_gym.lean.versions import DEFAULT_LEAN_VERSION

    assert message_version(SimBackend()) == DEFAULT_LEAN_VERSION
    real = SimpleNamespace(name="repl:v4.27.0", capabilities=Capabilities(versions={"lean": "v4.27.0"}))
    assert message_version(real) == "v4.27.0"
    # the simulator behind the REPL protocol or a server declares no version: it is still the simulator
    assert message_version(SimpleNamespace(name="sim via http://h:1")) == DEFAULT_LEAN_VERSION
    assert message_version(SimpleNamespace(name="repl")) is None
    both = Capabilities(versions={"lean": "v4.27.0"}, messages_follow="v4.28.0")
    assert message_version(SimpleNamespace(name="x", capabilities=both)) == "v4.28.0"


def test_a_record_dated_by_a_bound_differs_only_from_the_versions_the_bound_excludes() -> None:
    from lean_gym.conformance import record_version, versions_differ

    before = _case("error", "e", lean_version="before v4.23.0-rc2 (Mathlib commit 00d9f04e0b0d)")
    after = _case("error", "e", lean_version="after v4.22.0 (Mathlib commit 2bfb86689145)")
    assert record_version(before) == ("before", "v4.23.0-rc2") and record_version(after) == (
        "after",
        "v4.22.0",
    )
    assert record_version(_case("ok", lean_version="unknown (lean4 development commit 0123456789ab)")) == (
        "unknown",
        None,
    )
    assert versions_differ(before, "v4.33.0-rc2") is True and versions_differ(before, "v4.23.0-rc2") is True
    assert versions_differ(before, "v4.22.0") is None  # it may be that very version
    assert versions_differ(after, "v4.22.0") is True and versions_differ(after, "v4.21.0") is True
    assert versions_differ(after, "v4.33.0-rc2") is None
    assert versions_differ(_case("ok", lean_version="v4.26.0"), "v4.26.0") is False
    assert versions_differ(before, None) is None
    # the simulator's messages follow v4.33.0-rc2: a record from before v4.23.0-rc2 is set aside
    r = judge(before, _err("Unknown identifier `garbage`"), messages_follow="v4.33.0-rc2")
    assert r.message_set_aside and r.first_line_match is None and r.outcome == "agree"


def test_a_malformed_version_bound_is_a_one_line_error() -> None:
    for bad in ("before 4.23", "after", "before v4.x.0 (c)", "4.27", ""):
        with pytest.raises(ConfigError, match="is not a Lean version: a release"):
            _case("ok", lean_version=bad)
    with pytest.raises(ConfigError, match="lean_version must be a string"):
        _case("ok", lean_version=4)


def test_every_record_of_unknown_version_names_the_commit_it_was_read_at() -> None:
    from lean_gym.conformance import record_version

    for c in load_cases(kinds=("command",)):
        kind, _ = record_version(c)
        if kind != "exact":  # a bound or unknown: the parenthesis names the record's commit
            assert str(c.source["commit"])[:12] in c.lean_version, c.id
