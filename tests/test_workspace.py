"""The real-Lean workspace: its pinned files, detection, doctor's report and setup's steps (no Lean needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lean_gym.backends import make_backend
from lean_gym.errors import WorkspaceNotFoundError
from lean_gym.workspace import (
    LEAN_VERSION,
    WORKSPACE_FILES,
    Workspace,
    doctor,
    find_workspace,
    format_report,
    repl_command,
    setup,
    setup_steps,
    write_workspace,
)

REPO = Path(__file__).resolve().parents[1]


def test_repository_workspace_matches_the_embedded_copy() -> None:
    for rel, text in WORKSPACE_FILES.items():
        assert (REPO / "lean_workspace" / rel).read_text(encoding="utf-8") == text, rel


def test_workspace_pins_one_release_for_lean_mathlib_and_repl() -> None:
    lakefile = WORKSPACE_FILES["lakefile.toml"]
    assert (
        WORKSPACE_FILES["lean-toolchain"].strip()
        == f"leanprover/lean4:{LEAN_VERSION}"
        == "leanprover/lean4:v4.33.0-rc2"
    )
    assert lakefile.count(f'rev = "{LEAN_VERSION}"') == 2
    assert "leanprover-community/mathlib4" in lakefile and "leanprover-community/repl" in lakefile


def fake_built(root: Path) -> Workspace:
    write_workspace(root)
    ws = Workspace(root)
    for f in (ws.repl_binary, ws.mathlib_olean):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(b"")
    return ws


def test_find_workspace_distinguishes_missing_unbuilt_and_built(tmp_path: Path) -> None:
    with pytest.raises(WorkspaceNotFoundError, match="no Lean workspace.*lean-gym setup"):
        find_workspace(tmp_path / "nothing")
    write_workspace(tmp_path / "ws")
    with pytest.raises(WorkspaceNotFoundError, match="not built.*lean-gym doctor"):
        find_workspace(tmp_path / "ws")
    assert find_workspace(tmp_path / "ws", require_built=False).root == tmp_path / "ws"
    ws = fake_built(tmp_path / "ws")
    assert find_workspace(tmp_path / "ws").is_built
    cmd = repl_command(ws)
    assert cmd[1:] == ["env", str(ws.repl_binary)] and cmd[0].endswith("lake")


def no_tools(cmd):  # a machine without elan/lean/lake
    return None


def test_doctor_reports_each_missing_piece_with_a_fix(tmp_path: Path) -> None:
    checks = doctor(tmp_path / "absent", runner=no_tools)
    by = {c.name: c for c in checks}
    for name in ("elan", "lean", "lake", "workspace", "toolchain pin", "Mathlib oleans", "REPL binary"):
        assert not by[name].ok and by[name].fix, name
    assert not by["smoke check"].ok and "skipped" in by["smoke check"].detail
    report = format_report(checks)
    assert "lake exe cache get" in report and "elan-init.sh" in report
    assert "falls back to the simulator" in report


def test_doctor_on_a_built_workspace_with_tools_runs_the_smoke_check(tmp_path: Path, monkeypatch) -> None:
    ws = fake_built(tmp_path / "ws")
    import lean_gym.workspace as W

    monkeypatch.setattr(W, "_tool_version", lambda tool, runner: f"{tool} 4.27.0")
    ran = []
    monkeypatch.setattr(W, "_smoke", lambda w: ran.append(w) or W.Check("smoke check", True, "proved"))
    checks = doctor(ws.root)
    assert ran == [ws]
    assert all(c.ok for c in checks if c.name != "simulator" and not c.advisory)
    report = format_report(checks)
    assert "Real Lean is ready" in report
    # the first thing it points to on a real install: selftest, whose output goes with a bug report
    after = report.split("Real Lean is ready", 1)[1]
    assert after.splitlines()[1].startswith("First run `lean-gym selftest --backend repl`")
    import dataclasses

    broken = [dataclasses.replace(checks[0], ok=False), *checks[1:]]
    assert "lean-gym selftest" not in format_report(broken)  # only once real Lean is ready


def test_doctor_cli_fails_cleanly_without_traceback(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "lean_gym.cli", "doctor", "--workspace", str(tmp_path / "none")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 1
    assert "Traceback" not in out.stdout + out.stderr
    assert "MISSING" in out.stdout and "fix:" in out.stdout
    assert "simulator" in out.stdout


def test_setup_dry_run_lists_the_build_steps(tmp_path: Path) -> None:
    lines: list[str] = []
    assert setup(tmp_path / "ws", dry_run=True, echo=lines.append) == 0
    text = "\n".join(lines)
    for step in ("lake update", "lake exe cache get", "lake build repl"):
        assert step in text
    names = [n for n, _ in setup_steps(tmp_path)]
    assert names[-1] == "build the REPL binary"


def test_setup_reports_the_failing_step(tmp_path: Path, monkeypatch) -> None:
    import lean_gym.workspace as W

    monkeypatch.setattr(
        W, "setup_steps", lambda root: [("download", [sys.executable, "-c", "raise SystemExit(7)"])]
    )
    lines: list[str] = []
    assert setup(tmp_path / "ws", echo=lines.append) == 7
    assert (tmp_path / "ws" / "lakefile.toml").exists()
    assert any("setup failed at 'download' (exit status 7)" in line for line in lines)


def test_make_backend_choices(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LEAN_GYM_WORKSPACE", str(tmp_path / "none"))
    with pytest.raises(WorkspaceNotFoundError):
        make_backend("repl")
    b = make_backend("auto")
    assert b.name == "sim"
    assert make_backend(b) is b
    with pytest.raises(ValueError, match="unknown backend 'lean4'"):
        make_backend("lean4")
    with pytest.raises(TypeError, match="must be a name or a Backend"):
        make_backend(42)  # type: ignore[arg-type]


def test_doctor_says_when_there_is_no_sandbox(monkeypatch) -> None:
    import lean_gym.lean.sandbox as S
    import lean_gym.workspace as W

    monkeypatch.setattr(S, "bwrap_path", lambda: None)
    check = W._sandbox_check()
    assert not check.ok and check.advisory and "without an OS sandbox" in check.detail
    assert "apt-get install bubblewrap" in check.fix
    assert "WARN" in format_report([check])
