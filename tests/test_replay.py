"""The replay tier, against a fake ``lake`` that behaves as ``lean -o`` and ``leanchecker`` are documented to.

The fake (a shell script in the workspace) compiles ``Submission.lean`` to ``Submission.olean`` by copying
it, and its ``leanchecker`` finds the module only through ``LEAN_PATH`` (as ``findOLean`` does), prints
nothing and exits 0, or prints ``leanchecker found a problem in Submission`` and a kernel error and exits 1
when the source holds the marker ``KERNEL_REJECTS`` (lean4 ``src/LeanChecker.lean``; lean4checker's
``Lean4CheckerTests/AddFalse.expected.out``). Markers sit in comments, which the oracle's scan ignores.
"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from proof_fakes import ScriptedLean

from lean_gym.grading import Oracle
from lean_gym.grading.replay import LeanChecker, ReplayResult
from lean_gym.lean.sandbox import sandbox_works
from lean_gym.workspace import write_workspace

SIG = "theorem t (a b : ℕ) : a + b = b + a"
THM = {"name": "t", "formal_statement": f"{SIG} := by\n", "header": "import Mathlib\n"}
GOOD = f"{SIG} := by\n  omega"

FAKE_LAKE = r"""#!/bin/sh
[ -n "$FAKE_LOG" ] && echo "$* | $(pwd)" >> "$FAKE_LOG"
shift
case "$1" in
  lean)
    if grep -q FAILS_TO_COMPILE "$4"; then echo "$4:3:2: error: unknown tactic" >&2; exit 1; fi
    if grep -q HANGS "$4"; then sleep 60; fi
    cp "$4" "$3"; exit 0 ;;
  leanchecker)
    f=""
    IFS=:
    for d in $LEAN_PATH; do [ -f "$d/$2.olean" ] && f="$d/$2.olean"; done
    if [ -z "$f" ]; then echo "uncaught exception: Could not find any oleans for: $2" >&2; exit 1; fi
    if grep -q KERNEL_REJECTS "$f"; then
      printf 'leanchecker found a problem in %s\nuncaught exception: (kernel) declaration type mismatch, %s\n' "$2" "'t'" >&2
      exit 1
    fi
    exit 0 ;;
esac
exit 2
"""


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ws"
    write_workspace(root)
    lake = root / "bin" / "lake"
    lake.parent.mkdir()
    lake.write_text(FAKE_LAKE)
    lake.chmod(lake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("FAKE_LOG", str(tmp_path / "calls.log"))
    (tmp_path / "calls.log").write_text("")
    return root


def _checker(ws: Path, **kw: object) -> LeanChecker:
    return LeanChecker(workspace=ws, lake=str(ws / "bin" / "lake"), sandbox=False, **kw)  # type: ignore[arg-type]


def _calls(ws: Path) -> list[str]:
    return (ws.parent / "calls.log").read_text().splitlines()


def test_an_honest_proof_is_replayed_and_accepted(workspace: Path) -> None:
    v = Oracle(ScriptedLean(), replay=_checker(workspace)).judge(THM, GOOD)
    assert v.accepted and "the kernel replay agrees" in v.reason
    calls = _calls(workspace)
    assert len(calls) == 2
    assert calls[0].startswith("env lean -o ") and calls[0].endswith(f"Submission.lean | {workspace}")
    assert calls[1] == f"env leanchecker Submission | {workspace}"


@pytest.mark.parametrize(
    ("marker", "detail"),
    [
        ("KERNEL_REJECTS", "leanchecker rejects it: leanchecker found a problem in Submission"),
        ("FAILS_TO_COMPILE", "the file does not compile: "),
    ],
)
def test_a_disagreement_is_its_own_class(workspace: Path, marker: str, detail: str) -> None:
    sub = f"{GOOD}\n-- {marker}"
    v = Oracle(ScriptedLean(), replay=_checker(workspace)).judge(THM, sub)
    assert not v.accepted and v.hack_class == "replay_mismatch"
    assert detail in v.reason and "accepted it, but the kernel replay does not" in v.reason


def test_the_replayed_file_is_the_header_and_the_submission(workspace: Path, tmp_path: Path) -> None:
    seen: list[tuple[str, str]] = []

    class Spy:
        def replay(self, header: str, code: str) -> ReplayResult:
            seen.append((header, code))
            return ReplayResult(True, "ok")

    oracle = Oracle(ScriptedLean(), replay=Spy())
    assert oracle.judge(THM, GOOD).accepted and oracle.judge(THM, GOOD).accepted
    assert seen == [("import Mathlib\n", GOOD)]  # once per distinct submission, without `#print axioms`


def test_a_rejected_submission_is_never_replayed(workspace: Path) -> None:
    oracle = Oracle(ScriptedLean(), replay=_checker(workspace))
    assert oracle.judge(THM, f"{SIG} := by\n  sorry").hack_class == "sorry"
    assert oracle.judge(THM, f"{SIG} := by\n  bad_tactic").hack_class == "proof_error"
    assert _calls(workspace) == []


def test_a_checker_that_cannot_run_never_accepts(workspace: Path, tmp_path: Path) -> None:
    v = Oracle(ScriptedLean(), replay=_checker(workspace, timeout=1.0)).judge(THM, f"{GOOD}\n-- HANGS")
    assert not v.accepted and v.hack_class == "crashed" and "ran past 1 s" in v.reason
    v = Oracle(ScriptedLean(), replay=LeanChecker(workspace=tmp_path / "none", sandbox=False)).judge(
        THM, GOOD
    )
    assert not v.accepted and v.hack_class == "crashed" and "no Lean workspace" in v.reason


def test_a_workspace_before_leanchecker_is_refused(workspace: Path) -> None:
    (workspace / "lean-toolchain").write_text("leanprover/lean4:v4.26.0\n")
    v = Oracle(ScriptedLean(), replay=_checker(workspace)).judge(THM, GOOD)
    assert (
        v.hack_class == "crashed" and "ships with Lean from v4.28.0" in v.reason and _calls(workspace) == []
    )


@pytest.mark.skipif(
    not sandbox_works(), reason="bubblewrap is not installed or cannot create namespaces here"
)
def test_the_replay_runs_in_the_sandbox(workspace: Path) -> None:
    checker = LeanChecker(workspace=workspace, lake=str(workspace / "bin" / "lake"), sandbox=True)
    assert checker.replay("import Mathlib\n", GOOD).agrees is True
    bad = checker.replay("import Mathlib\n", f"{GOOD}\n-- KERNEL_REJECTS")
    assert bad.agrees is False and "found a problem in Submission" in bad.detail
    assert _calls(workspace) == []  # the log is outside the sandbox: nothing reached it


def test_switches_are_checked() -> None:
    with pytest.raises(TypeError, match="replay must be"):
        Oracle(ScriptedLean(), replay="yes")  # type: ignore[arg-type]
    import gymnasium as gym

    import lean_gym  # noqa: F401

    with pytest.raises(ValueError, match="oracle must be 'default' or 'replay'"):
        gym.make("LeanProof-v0", backend="sim", oracle="strict")


def test_the_env_reports_a_replay_mismatch(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lean_gym.envs.proof_env import LeanProofEnv

    monkeypatch.setenv("LEAN_GYM_WORKSPACE", str(workspace))
    monkeypatch.setenv("PATH", f"{workspace / 'bin'}:/usr/bin:/bin")
    env = LeanProofEnv(backend=ScriptedLean(), theorems=[THM], oracle="replay", max_turns=2)
    env.oracle._replayer.sandbox = False  # type: ignore[union-attr]
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step("  omega\n  -- KERNEL_REJECTS")
    assert reward == -1.0 and info["hack_class"] == "replay_mismatch" and not terminated
    _, reward, terminated, _, info = env.step("  omega")
    assert reward == 1.0 and terminated
