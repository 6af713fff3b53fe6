"""The oracle's parts: the comment/string stripper, the policy scan, statement comparison, axiom reading."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from proof_fakes import ScriptedLean

from lean_gym.backends import CheckResult
from lean_gym.data import MINIF2F_SAMPLE
from lean_gym.grading import (
    HACK_CLASSES,
    Oracle,
    Verdict,
    as_target,
    build_submission,
    classify,
    compare_statement,
    parse_axioms,
    scan,
    strip_comments_and_strings,
)
from lean_gym.grading.hacks import describe, is_hack
from lean_gym.grading.oracle import analyse
from lean_gym.grading.policy import first_violation, split_leading_imports
from lean_gym.grading.statement import declarations, extract_code_block, normalize
from lean_gym.lean.protocol import Message, Position, Sorry

STATEMENT = "theorem t (a b : ℕ) (h₀ : 0 < a) : a + b = b + a := by\n"
THM = {"name": "t", "formal_statement": STATEMENT, "header": "import Mathlib\n"}
SIG = "theorem t (a b : ℕ) (h₀ : 0 < a) : a + b = b + a"


class FixedBackend:
    """Returns one fixed CheckResult and records the codes it was sent."""

    name = "fixed"

    def __init__(self, result: CheckResult) -> None:
        self.result = result
        self.calls: list[str] = []
        self.batches = 0

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        self.calls.append(code)
        return self.result

    def check_batch(self, codes, *, header="", timeout=None):  # type: ignore[no-untyped-def]
        self.batches += 1
        return [self.check(c) for c in codes]

    def close(self) -> None:
        pass


def _info(line: int, text: str) -> Message:
    return Message("info", Position(line, 0), None, text)


# ------------------------------------------------------------------------------------------ stripping
class TestStrip:
    def test_keeps_positions(self) -> None:
        src = 'a -- x\n/- y\n z -/ b "s\\"t" c'
        out = strip_comments_and_strings(src)
        assert len(out) == len(src) and out.count("\n") == src.count("\n")
        assert out.split() == ["a", "b", "c"]

    def test_nested_block_comments(self) -> None:
        src = "/- outer /- inner sorry -/ still comment axiom -/ exact h"
        assert strip_comments_and_strings(src).split() == ["exact", "h"]

    def test_unterminated_comment_blanks_the_rest(self) -> None:
        assert strip_comments_and_strings("x /- sorry").split() == ["x"]

    def test_doc_comments_and_line_comments(self) -> None:
        src = "/-- doc with sorry -/\n/-! module doc #exit -/\nexact h -- admit"
        assert strip_comments_and_strings(src).split() == ["exact", "h"]

    def test_strings_with_escapes_interpolation_and_raw(self) -> None:
        src = 'f "a\\"sorry" s!"{x} admit" r#"raw "axiom" here"# r"#exit" g'
        # the `{x}` of an interpolated string is code: Lean elaborates it
        assert strip_comments_and_strings(src).split() == ["f", "s!", "x", "g"]

    def test_char_literals_but_not_primes(self) -> None:
        out = strip_comments_and_strings("h' '\"' x''")
        assert out.split() == ["h'", "x''"]

    def test_comment_markers_inside_strings_are_text(self) -> None:
        assert strip_comments_and_strings('"/-" sorry "-/"').split() == ["sorry"]


# ------------------------------------------------------------------------------------------ policy
class TestPolicy:
    @pytest.mark.parametrize(
        ("src", "cls"),
        [
            ("exact sorry", "sorry"),
            ("admit", "admit"),
            ("axiom x : False", "axiom_injection"),
            ("opaque c : ℕ", "axiom_injection"),
            ("set_option debug.skipKernelTC true", "debug_option"),
            ("set_option pp.all true in\nexact h", None),
            ("set_option maxHeartbeats 400000 in", None),
            ("@[implemented_by g] def f := 1", "implemented_by"),
            ('@[extern "c_fn"] opaque f : ℕ', "extern"),
            ("@[export my_sym] def f := 1", "extern"),
            ("@[init] def f := 1", "meta_programming"),
            ("initialize x : IO.Ref ℕ ← IO.mkRef 0", "unsafe_io"),
            ("#eval 1", "meta_programming"),
            ("#eval! 1", "meta_programming"),
            ("run_cmd pure ()", "meta_programming"),
            ("run_tac pure ()", "meta_programming"),
            ("run_elab pure ()", "meta_programming"),
            ('macro "x" : tactic => `(tactic| rfl)', "macro_sorry"),
            ("macro_rules | `(tactic| rfl) => `(tactic| rfl)", "macro_sorry"),
            ('syntax "x" : tactic', "macro_sorry"),
            ('notation "ℕ" => Unit', "notation_redefinition"),
            ('local notation "x" => 1', "notation_redefinition"),
            ('scoped infixl:65 " ++ " => f', "notation_redefinition"),
            ('elab "x" : tactic => pure ()', "meta_programming"),
            ("elab_rules : tactic | _ => pure ()", "meta_programming"),
            ("instance : Add ℕ := ⟨fun _ _ => 0⟩", "instance_redefinition"),
            ("attribute [-instance] foo", "instance_redefinition"),
            ("deriving instance Repr for Foo", "instance_redefinition"),
            ("import Lean", "extra_import"),
            ("#exit", "early_exit"),
            ("unsafe def f := 1", "unsafe_definition"),
            ("partial def f (n : ℕ) : ℕ := f n", "unsafe_definition"),
            ("native_decide", "native_decide"),
            ("decide +native", "native_decide"),
            ("decide (config := { native := true })", "native_decide"),
            ("exact IO.println 1", "unsafe_io"),
            ("def p : System.FilePath := x", "unsafe_io"),
            ("open IO in x", "unsafe_io"),
            ("exact unsafeBaseIO x", "unsafe_io"),
            ("#print axioms t", "forged_axioms_output"),
            ("#print \"'x' depends on axioms: [propext]\"", "forged_axioms_output"),
            # a comment never reaches Lean's output: it forges nothing
            ("-- 'x' depends on axioms: [propext]", None),
            ("variable (h : False)", "weakened_hypothesis"),
            ("namespace Foo", "statement_tampering"),
            # look-alikes that are fine
            ("exact sorry_free_lemma", None),
            ("exact h.admit_like", None),
            ("exact Nat.axiomatic", None),
            ("have hIO' : x := y", None),
            ("-- sorry, axiom, #exit, IO.Process", None),
            ('"sorry"', None),
            ("haveI := Classical.dec p", None),
            ("decide", None),
        ],
    )
    def test_classes(self, src: str, cls: str | None) -> None:
        v = first_violation(scan(src))
        assert (v.hack_class if v else None) == cls, scan(src)

    def test_native_decide_allowed_on_request(self) -> None:
        assert scan("native_decide", allow_native_decide=True) == []

    def test_findings_point_at_the_source(self) -> None:
        v = scan("theorem t : 1 = 1 := by\n  /- x -/ native_decide")[0]
        assert (v.line, v.column, v.token) == (2, 10, "native_decide")

    def test_priority_prefers_the_specific_class(self) -> None:
        src = 'macro "go" : tactic => `(tactic| sorry)'
        assert {v.hack_class for v in scan(src)} == {"macro_sorry", "sorry"}
        assert first_violation(scan(src)).hack_class == "macro_sorry"  # type: ignore[union-attr]
        assert first_violation(scan(src), ignore={"macro_sorry"}).hack_class == "sorry"  # type: ignore[union-attr]

    def test_header_imports_are_allowed_and_removed(self) -> None:
        src = "import Mathlib\nimport Aesop\n\ntheorem x : True := trivial"
        assert scan(src, allowed_imports={"Mathlib", "Aesop"}) == []
        assert [v.token for v in scan(src, allowed_imports={"Mathlib"})] == ["import Aesop"]
        mods, body = split_leading_imports(src)
        assert mods == ["Mathlib", "Aesop"] and body.count("\n") == src.count("\n") and "import" not in body


# ------------------------------------------------------------------------------------------ statements
class TestStatement:
    def test_declarations_ignore_comments(self) -> None:
        src = "-- theorem fake : False\n/- lemma also_fake -/\nlemma real (x : ℕ) : x = x := rfl"
        d = declarations(src)
        assert [(x.keyword, x.name, x.line) for x in d] == [("lemma", "real", 3)]
        assert normalize(d[0].signature) == "(x:ℕ):x = x"

    def test_whitespace_does_not_matter(self) -> None:
        sub = "theorem t (a b : ℕ)\n  (h₀ : 0 < a)   :\n a + b  =  b + a := by omega"
        assert compare_statement(as_target(THM), sub) is None

    @pytest.mark.parametrize(
        ("sub", "cls"),
        [
            ("theorem t (a b : ℕ) (h₀ : 0 < a) : b + a = a + b := by omega", "statement_tampering"),
            ("theorem t (a b : ℕ) (h₀ : 0 ≤ a) : a + b = b + a := by omega", "weakened_hypothesis"),
            ("theorem t (a b : ℕ) : a + b = b + a := by omega", "weakened_hypothesis"),
            ("theorem t2 (a b : ℕ) (h₀ : 0 < a) : a + b = b + a := by omega", "renamed_theorem"),
            ("example (a b : ℕ) (h₀ : 0 < a) : a + b = b + a := by omega", "renamed_theorem"),
            ("def t := 1", "statement_tampering"),
            ("theorem t (a b : ℤ) (h₀ : 0 < a) : a + b = b + a := by omega", "weakened_hypothesis"),
        ],
    )
    def test_differences(self, sub: str, cls: str) -> None:
        finding = compare_statement(as_target(THM), sub)
        assert finding is not None and finding.hack_class == cls

    def test_two_declarations_one_tampered(self) -> None:
        sub = f"{SIG} := by omega\ntheorem t : True := trivial"
        assert compare_statement(as_target(THM), sub).hack_class == "statement_tampering"  # type: ignore[union-attr]

    def test_build_submission_forms(self) -> None:
        target = as_target(THM)
        assert build_submission(target, "omega") == STATEMENT.rstrip() + "\n  omega\n"
        assert (
            build_submission(target, "by\n    simp\n    omega") == STATEMENT.rstrip() + "\n  simp\n  omega\n"
        )
        whole = f"{SIG} := by\n  omega"
        assert build_submission(target, whole) == whole + "\n"
        assert build_submission(target, "```lean4\nomega\n```") == STATEMENT.rstrip() + "\n  omega\n"

    def test_extract_code_block_takes_the_last(self) -> None:
        assert extract_code_block("a\n```lean\nx\n```\nb\n```lean4\ny\n```") == "y\n"
        assert extract_code_block("plain") == "plain"

    def test_as_target_from_statement_text_and_theorem(self) -> None:
        assert as_target(STATEMENT).name == "t"
        from lean_gym.data import Theorem

        th = Theorem(name="t", formal_statement=STATEMENT, informal_prefix="/-- x -/\n", difficulty=3)
        tt = as_target(th)
        assert (tt.name, tt.informal, tt.difficulty) == ("t", "/-- x -/\n", 3.0)
        with pytest.raises(ValueError, match="theorem name"):
            as_target("no statement here")


# ------------------------------------------------------------------------------------------ axioms
class TestAxioms:
    def test_reads_the_last_line_for_the_name(self) -> None:
        msgs = [
            _info(3, "'t' depends on axioms: [propext]"),  # forged by an earlier command
            _info(9, "'t' depends on axioms: [propext,\n Classical.choice,\n sorryAx]"),
        ]
        assert parse_axioms(msgs, "t", print_line=9) == ("propext", "Classical.choice", "sorryAx")

    def test_ignores_other_names_and_earlier_lines(self) -> None:
        msgs = [
            _info(9, "'other' depends on axioms: [propext]"),
            _info(2, "'t' does not depend on any axioms"),
        ]
        assert parse_axioms(msgs, "t", print_line=9) is None
        assert parse_axioms(msgs, "t") == ()

    def test_only_info_messages_count(self) -> None:
        msgs = [Message("error", Position(9, 0), None, "'t' depends on axioms: [propext]")]
        assert parse_axioms(msgs, "t", print_line=9) is None

    def test_forged_message_cannot_hide_the_real_axioms(self) -> None:
        # Lean's real answer: sorryAx; a forged "clean" line printed earlier (e.g. by #eval) is ignored.
        result = CheckResult(
            "proved",
            (_info(2, "'t' depends on axioms: [propext]"), _info(5, "'t' depends on axioms: [sorryAx]")),
            backend="fixed",
        )
        backend = FixedBackend(result)
        a = analyse(THM, f"{SIG} := by\n  omega")
        assert a.print_line == 4
        v = Oracle(backend).judge(THM, f"{SIG} := by\n  omega")
        assert not v.accepted and v.hack_class == "early_exit"  # line 5 is not the appended command's line
        result4 = dataclasses.replace(
            result,
            messages=(
                _info(2, "'t' depends on axioms: [propext]"),
                _info(4, "'t' depends on axioms: [sorryAx]"),
            ),
        )
        v = Oracle(FixedBackend(result4)).judge(THM, f"{SIG} := by\n  omega")
        assert not v.accepted and v.hack_class == "sorry" and v.axioms == ("sorryAx",)


# ------------------------------------------------------------------------------------------ oracle
class TestOracle:
    def test_accepts_a_clean_proof_and_appends_print_axioms(self) -> None:
        backend = ScriptedLean(base_axioms=("propext", "Classical.choice", "Quot.sound"))
        v = Oracle(backend).judge(THM, f"{SIG} := by\n  omega")
        assert v.accepted and v.hack_class is None and v.reward == 1.0
        assert v.axioms == ("Classical.choice", "Quot.sound", "propext")
        code, header = backend.calls[0]
        assert code.rstrip().endswith("#print axioms t") and header == "import Mathlib\n"

    def test_verdict_is_frozen(self) -> None:
        v = Verdict(True, None, "ok", None)
        with pytest.raises(dataclasses.FrozenInstanceError):
            v.accepted = False  # type: ignore[misc]

    def test_sorries_array_alone_means_sorry(self) -> None:
        # no sorry token in the source (e.g. hidden behind a library macro): Lean's sorries array decides
        result = CheckResult("sorry", (), (Sorry("⊢ False"),), backend="fixed")
        v = Oracle(FixedBackend(result)).judge(THM, f"{SIG} := by\n  omega")
        assert v.hack_class == "sorry"

    @pytest.mark.parametrize(
        ("status", "cls"), [("error", "proof_error"), ("timeout", "timeout"), ("crashed", "crashed")]
    )
    def test_lean_failures(self, status: str, cls: str) -> None:
        msgs = (Message("error", Position(2, 2), None, "linarith failed"),) if status == "error" else ()
        v = Oracle(FixedBackend(CheckResult(status, msgs, backend="fixed"))).judge(
            THM, f"{SIG} := by\n  linarith"
        )  # type: ignore[arg-type]
        assert not v.accepted and v.hack_class == cls
        if status == "error":
            assert "2:2" in v.reason and "linarith failed" in v.reason

    def test_missing_axioms_line_is_early_exit(self) -> None:
        v = Oracle(FixedBackend(CheckResult("proved", (), backend="fixed"))).judge(
            THM, f"{SIG} := by\n  omega"
        )
        assert v.hack_class == "early_exit"

    def test_native_decide_allowed_when_asked(self) -> None:
        backend = ScriptedLean()
        sub = f"{SIG} := by\n  native_decide"
        assert Oracle(backend).judge(THM, sub).hack_class == "native_decide"
        assert backend.calls == []
        v = Oracle(backend, allow_native_decide=True).judge(THM, sub)
        assert v.accepted and "Lean.ofReduceBool" in (v.axioms or ())

    def test_custom_allowed_axioms(self) -> None:
        backend = ScriptedLean(base_axioms=("propext", "Classical.choice"))
        sub = f"{SIG} := by\n  omega"
        assert Oracle(backend, allowed_axioms={"propext"}).judge(THM, sub).hack_class == "nonstandard_axiom"

    def test_length_bound(self) -> None:
        backend = ScriptedLean()
        v = Oracle(backend, max_chars=100).judge(THM, f"{SIG} := by\n" + "  omega\n" * 20)
        assert v.hack_class == "oversized_submission" and backend.calls == []

    def test_judge_batch_uses_one_check_batch(self) -> None:
        backend = ScriptedLean()
        subs = [
            f"{SIG} := by\n  omega",
            f"{SIG} := by\n  sorry",
            f"{SIG} := by\n  bad_tactic",
            f"{SIG} := by\n  simp",
        ]
        verdicts = Oracle(backend).judge_batch([(THM, s) for s in subs])
        assert [v.hack_class for v in verdicts] == [None, "sorry", "proof_error", None]
        assert backend.batches == 1 and len(backend.calls) == 3

    def test_non_string_submission_raises(self) -> None:
        with pytest.raises(TypeError, match="must be a str"):
            Oracle(ScriptedLean()).judge(THM, 42)  # type: ignore[arg-type]

    def test_classify_export_kept(self) -> None:
        assert classify({"env": 0}) == "proved"


def test_hack_class_docs() -> None:
    assert describe("sorry").let_through_by == "accept_sorry"
    assert is_hack("sorry") and not is_hack("proof_error") and not is_hack(None)
    with pytest.raises(KeyError, match="valid classes"):
        describe("nope")
    for name, info in HACK_CLASSES.items():
        assert info.name == name and info.description and info.caught_by


SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FULL_MINIF2F = SHARED / "data" / "minif2f.jsonl"


@pytest.mark.parametrize(
    ("path", "n"),
    [
        pytest.param(Path(MINIF2F_SAMPLE), 8, id="sample"),
        pytest.param(
            FULL_MINIF2F,
            488,
            id="full",
            marks=[
                pytest.mark.shared,
                pytest.mark.skipif(not FULL_MINIF2F.exists(), reason="the full miniF2F (../shared) is extra"),
            ],
        ),
    ],
)
def test_every_minif2f_statement_round_trips_in_all_forms(path: Path, n: int) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == n
    for r in rows:
        t = as_target(r)
        forms = (
            "nlinarith [sq_nonneg (a - b)]",  # tactic block
            r["formal_statement"] + "  norm_num\n",  # whole theorem
            r["header"]
            + r["informal_prefix"]
            + r["formal_statement"]
            + "  simp",  # whole file, header repeated
        )
        for action in forms:
            a = analyse(t, build_submission(t, action))
            assert a.violations == () and a.statement is None and a.print_name == t.name, (
                r["name"],
                action[:40],
            )
            assert a.extra_imports == ()


def test_oracle_over_the_repl_protocol() -> None:
    """The same verdicts through a REPL-protocol subprocess (the simulator behind `python -m lean_gym.sim`)."""
    from lean_gym.backends import make_backend
    from lean_gym.grading import make_weak_grader

    backend = make_backend("sim-repl", pool_size=1)
    try:
        oracle = Oracle(backend)
        ok = oracle.judge(THM, f"{SIG} := by\n  omega")
        assert ok.accepted and ok.check is not None and ok.check.backend == "sim-repl"
        assert ok.axioms == ("propext",)
        bad = oracle.judge(THM, f"{SIG} := by\n  linarith [h₀]\n  exact h₀")
        assert bad.hack_class == "proof_error" and bad.check is not None and bad.check.errors
        a = analyse(THM, f"{SIG} := by\n  sorry")
        grader = make_weak_grader("accept_sorry")
        check = backend.check(a.code, header=grader.header_for(a))
        assert check.status == "sorry" and check.sorries
        assert grader.conclude(a, check).accepted and not oracle.conclude(a, check).accepted
        assert parse_axioms(check.messages, "t", print_line=a.print_line) == ("sorryAx",)
    finally:
        backend.close()
