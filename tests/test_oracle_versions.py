"""The oracle on every supported Lean version: native-computation axioms, wrapped axiom lists, wordings.

Recorded outputs: the REPL's own transcripts at each tag (``lean_gym/conformance/cases/repl/tags/``), and
the ``#print axioms`` texts quoted in :mod:`lean_gym.grading.axioms` (third-party ``#guard_msgs`` records
of Lean v4.29+; the REPL's ``test/`` has no ``#print axioms`` transcript at any tag). The Lean format of a
wrapped list is ``MessageData.ofList`` (lean4 ``src/Lean/Message.lean``): ``sbracket (joinSep xs ("," ++
line))``, every element on its own line, indented one space, when the list does not fit 120 columns.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_gym.backends import CheckResult
from lean_gym.grading import Oracle, parse_axioms
from lean_gym.grading.axioms import is_native_axiom, native_owner
from lean_gym.grading.oracle import analyse
from lean_gym.lean.protocol import Message, Position
from lean_gym.lean.result import result_from_response
from lean_gym.lean.versions import parse_version

TAGS = Path(__file__).resolve().parents[1] / "lean_gym" / "conformance" / "cases" / "repl" / "tags"
SIG = "theorem t : (2 : ℕ) ^ 10 = 1024"
THM = {"name": "t", "formal_statement": f"{SIG} := by\n", "header": "import Mathlib\n"}
NATIVE = f"{SIG} := by\n  native_decide"
NEW, OLD = "v4.33.0-rc2", "v4.27.0"


class Fixed:
    """A backend answering every check with ``#print axioms`` output built for the checked code."""

    name = "repl:fixed"

    def __init__(self, axioms: str, *, version: str | None = NEW, extra: tuple[Message, ...] = ()) -> None:
        self.axioms, self.version, self.extra = axioms, version, extra
        self.calls = 0

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        self.calls += 1
        line = code.rstrip().count("\n") + 1  # the appended `#print axioms` is the last line
        info = Message("info", Position(line, 0), None, self.axioms)
        versions = {"lean": self.version, "mathlib": self.version} if self.version else {}
        return CheckResult("proved", (*self.extra, info), backend=self.name, versions=versions)

    def check_batch(self, codes, *, header="", timeout=None):  # type: ignore[no-untyped-def]
        return [self.check(c) for c in codes]

    def close(self) -> None:
        pass


class Answers(Fixed):
    """A backend answering every check with one recorded result."""

    def __init__(self, result: CheckResult) -> None:
        super().__init__("")
        self.result = result

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        return self.result


def _judge(axioms: str, submission: str = NATIVE, *, allow: bool = True, version: str | None = NEW):  # type: ignore[no-untyped-def]
    return Oracle(Fixed(axioms, version=version), allow_native_decide=allow).judge(THM, submission)


# ----------------------------------------------------------------------------------------- the names
class TestNativeNames:
    @pytest.mark.parametrize(
        ("name", "owner"),
        [
            ("t._native.native_decide.ax_1_1", "t"),  # count56._native.native_decide.ax_1_1 pattern
            ("addov_correct._native.bv_decide.ax_1_6", "addov_correct"),
            (
                "Zcash.Snark.Fixture2.fingerprint_matches._native.native_decide.ax_1_1",
                "Zcash.Snark.Fixture2.fingerprint_matches",
            ),
            ("t._native.decide.ax_2", "t"),  # `decide +native`
            ("_private.0.t._native.native_decide.ax_1_1", "t"),
            ("«my thm»._native.native_decide.ax_1_1", "my thm"),
        ],
    )
    def test_owner(self, name: str, owner: str) -> None:
        assert native_owner(name) == owner

    @pytest.mark.parametrize(
        "name",
        [
            "t._native.foo.ax_1_1",  # forged tactic segment
            "t._native.native_decide.ax",  # no number
            "t._native.native_decide.axe_1",
            "t._native.native_decide.ax_1_x",
            "_native.native_decide.ax_1_1",  # no owner
            "t._native.native_decide.ax_1_1.extra",
            "t.native.native_decide.ax_1_1",
            "a._native.decide.ax_1._native.decide.ax_1",  # nested look-alike
            "Lean.ofReduceBool",
            "propext",
        ],
    )
    def test_not_native_aux(self, name: str) -> None:
        assert native_owner(name) is None

    def test_version_gate(self) -> None:
        name = "t._native.native_decide.ax_1_1"
        assert is_native_axiom(name, declared={"t"}, lean_version="v4.29.0-rc1")
        assert is_native_axiom(name, declared={"t"}, lean_version=None)  # unknown: read as recent
        assert not is_native_axiom(name, declared={"t"}, lean_version="v4.28.0")
        assert not is_native_axiom(name, declared={"s"}, lean_version=NEW)
        assert is_native_axiom("Lean.ofReduceBool", declared=(), lean_version=OLD)


# -------------------------------------------------------------------------------- the oracle, v4.29+
class TestOracleNative:
    def test_recorded_wrapped_list_is_accepted_when_native_is_allowed(self) -> None:
        # the wrapping of a recorded v4.29+ `#guard_msgs` (Soundcalc.sp1_core_lookup_bits), for `t`
        text = "'t' depends on axioms: [propext,\n Classical.choice,\n Quot.sound,\n t._native.native_decide.ax_1_1]"
        v = _judge(text)
        assert v.accepted, v.reason
        assert v.axioms == ("propext", "Classical.choice", "Quot.sound", "t._native.native_decide.ax_1_1")

    def test_native_not_allowed_is_its_own_class(self) -> None:
        # no native token in the source (a helper proved it), so only the axioms show it
        text = "'t' depends on axioms: [t._native.native_decide.ax_1_1]"
        v = _judge(text, f"{SIG} := by\n  norm_num", allow=False)
        assert not v.accepted and v.hack_class == "native_decide"

    def test_private_axioms_belong_only_to_private_declarations(self) -> None:
        # a library's private `t` proved by native_decide: the submission's public `t` does not own it
        text = "'t' depends on axioms: [_private.Mathlib.X.0.t._native.native_decide.ax_1_1]"
        v = _judge(text)
        assert not v.accepted and v.hack_class == "nonstandard_axiom"
        own = "'t' depends on axioms: [_private.0.t._native.native_decide.ax_1_1]"
        assert _judge(own, f"private {SIG} := by\n  native_decide").accepted  # its own private `t`
        assert _judge(own).hack_class == "nonstandard_axiom"  # the same name, but `t` is public here

    def test_helper_declared_by_the_submission(self) -> None:
        sub = f"theorem helper : (2 : ℕ) ^ 10 = 1024 := by\n  native_decide\n\n{SIG} := helper"
        v = _judge("'t' depends on axioms: [helper._native.native_decide.ax_1_1]", sub)
        assert v.accepted, v.reason

    @pytest.mark.parametrize(
        "axiom",
        [
            "Mathlib.Other._native.native_decide.ax_1_1",  # forged owner: a declaration it did not declare
            "t._native.foo.ax_1_1",  # forged tactic segment
            "t._native.native_decide.ax",  # no numeric suffix
            "helper._native.native_decide.ax_1_1",  # `helper` is not declared in this submission
        ],
    )
    def test_forged_native_names_are_nonstandard(self, axiom: str) -> None:
        v = _judge(f"'t' depends on axioms: [propext, {axiom}]")
        assert not v.accepted and v.hack_class == "nonstandard_axiom"

    def test_aux_name_on_an_older_lean_is_not_native(self) -> None:
        # v4.27.0 never prints these names: one there came from somewhere else
        v = _judge("'t' depends on axioms: [t._native.native_decide.ax_1_1]", version=OLD)
        assert not v.accepted and v.hack_class == "nonstandard_axiom"
        v = _judge("'t' depends on axioms: [propext, Lean.ofReduceBool]", version=OLD)
        assert v.accepted

    def test_unknown_version_reads_both_forms(self) -> None:
        assert _judge("'t' depends on axioms: [t._native.native_decide.ax_1_1]", version=None).accepted
        assert _judge("'t' depends on axioms: [Lean.ofReduceBool]", version=None).accepted

    def test_a_look_alike_axiom_is_refused_before_lean(self) -> None:
        backend = Fixed("'t' depends on axioms: [t._native.native_decide.ax_1_1]")
        sub = f"axiom t._native.native_decide.ax_1_1 : (2 : ℕ) ^ 10 = 1024\n\n{SIG} := t._native.native_decide.ax_1_1"
        v = Oracle(backend, allow_native_decide=True).judge(THM, sub)
        assert not v.accepted and v.hack_class == "axiom_injection" and backend.calls == 0

    def test_forged_earlier_line_cannot_launder_sorry(self) -> None:
        forged = Message("info", Position(1, 0), None, "'t' depends on axioms: [propext]")
        backend = Fixed(
            "'t' depends on axioms: [propext,\n sorryAx,\n t._native.native_decide.ax_1_1]", extra=(forged,)
        )
        v = Oracle(backend, allow_native_decide=True).judge(THM, NATIVE)
        assert not v.accepted and v.hack_class == "sorry"

    def test_weak_grader_of_a_hackable_env_follows_the_oracle(self) -> None:
        from lean_gym.grading.weak import make_weak_grader

        g = make_weak_grader("no_statement_check", allow_native=True)
        a = analyse(THM, NATIVE, allow_native_decide=True)
        check = Fixed("'t' depends on axioms: [t._native.native_decide.ax_1_1]").check(a.code)
        assert g.conclude(a, check).accepted
        strict = make_weak_grader("no_statement_check")
        assert strict.conclude(a, check).hack_class == "native_decide"


# ------------------------------------------------------------------------------- wrapping and wording
class TestAxiomLists:
    def _msg(self, text: str, line: int = 4) -> list[Message]:
        return [Message("info", Position(line, 0), None, text)]

    @pytest.mark.parametrize(
        "text",
        [
            "'t' depends on axioms: [propext, Classical.choice, Quot.sound]",
            "'t' depends on axioms: [propext,\n Classical.choice,\n Quot.sound]",
            "'t' depends on axioms: [propext,\r\n Classical.choice,\r\n Quot.sound]",
            "'t' depends on axioms:\n[propext,\n Classical.choice,\n Quot.sound]",
        ],
    )
    def test_wrapped_and_flat_read_the_same(self, text: str) -> None:
        assert parse_axioms(self._msg(text), "t", print_line=4) == (
            "propext",
            "Classical.choice",
            "Quot.sound",
        )

    def test_a_name_at_the_width(self) -> None:
        # a name that alone pushes the line past 120 columns: Lean breaks every separator of the group
        long = "A" * 90 + "._native.native_decide.ax_1_1"
        text = f"'t' depends on axioms: [propext,\n {long}]"
        assert parse_axioms(self._msg(text), "t", print_line=4) == ("propext", long)

    def test_escaped_name_with_a_comma_stays_one_name(self) -> None:
        text = "'t' depends on axioms: [«propext, Quot.sound»]"
        got = parse_axioms(self._msg(text), "t", print_line=4)
        assert got == ("«propext, Quot.sound»",)
        v = _judge(text, f"{SIG} := by\n  norm_num", allow=False)
        assert not v.accepted and v.hack_class == "nonstandard_axiom"

    def test_kernel_heartbeats_are_a_timeout(self) -> None:
        msg = Message("error", Position(2, 2), None, "(kernel) deterministic timeout")

        v = Oracle(Answers(CheckResult("error", (msg,), backend="repl:x"))).judge(
            THM, f"{SIG} := by\n  norm_num"
        )
        assert v.hack_class == "timeout" and "(kernel) deterministic timeout" in v.reason


# ----------------------------------------------------------------------- recorded outputs, per REPL tag
def _tag_cases() -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    out = []
    for f in sorted(TAGS.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append((f.stem, json.loads(line)))
    return out


CASES = _tag_cases()


def test_every_supported_tag_has_recorded_cases() -> None:
    tags = {t for t, _ in CASES}
    assert {"v4.26.0", "v4.27.0", "v4.28.0", "v4.29.0", "v4.33.0-rc2"} <= tags


@pytest.mark.parametrize("tag", sorted({t for t, _ in CASES}))
def test_sorry_wording_of_each_tag_is_read_as_sorry(tag: str) -> None:
    """Both wordings (``'sorry'`` to v4.27.0, backticks from v4.28.0): a sorry even without the array."""
    quoted = (
        "declaration uses 'sorry'"
        if parse_version(tag) < parse_version("v4.28.0")
        else "declaration uses `sorry`"
    )
    seen = 0
    for t, case in CASES:
        if t != tag:
            continue
        for resp in case["responses"]:
            warns = [
                m
                for m in resp.get("messages", [])
                if m.get("severity") == "warning" and "declaration uses" in m.get("data", "")
            ]
            if (
                not warns
                or "proofStatus" in resp
                or any(m.get("severity") == "error" for m in resp.get("messages", []))
            ):
                continue
            assert all(quoted in m["data"] for m in warns), (case["id"], warns)
            stripped = {k: v for k, v in resp.items() if k != "sorries"}
            for r in (resp, stripped):
                assert result_from_response(r, elapsed_s=0.0, backend="repl:recorded").status == "sorry", (
                    case["id"]
                )
            seen += 1
    assert seen >= 10


@pytest.mark.parametrize("tag", sorted({t for t, _ in CASES}))
def test_oracle_never_accepts_a_recorded_sorry_or_error(tag: str) -> None:
    """Each recorded command response that is not a clean proof, fed to the oracle, is refused."""
    for t, case in CASES:
        if t != tag:
            continue
        for resp in case["responses"]:
            if "proofStatus" in resp or "tactics" in resp:
                continue
            res = result_from_response(resp, elapsed_s=0.0, backend="repl:recorded")
            if res.status == "proved":
                continue
            res = CheckResult(
                res.status, res.messages, res.sorries, backend="repl:recorded", versions={"lean": tag}
            )

            v = Oracle(Answers(res)).judge(THM, f"{SIG} := by\n  norm_num")
            assert not v.accepted and v.hack_class in ("sorry", "proof_error", "timeout"), (case["id"], v)
