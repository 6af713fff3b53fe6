"""Lean versions side by side: the release table, per-version workspaces, setup against a fake toolchain.

No Lean here: ``elan`` and ``lake`` are stand-in scripts on ``PATH`` that log their calls and lay out the
files a real build leaves (Lake's manifest, Mathlib's ``.olean``, the REPL binary).
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest

from lean_gym.backends.repl import ReplBackend, sim_command
from lean_gym.cli import main
from lean_gym.errors import ConfigError, WorkspaceNotFoundError
from lean_gym.lean.versions import (
    DEFAULT_LEAN_VERSION,
    RELEASES,
    parse_version,
    release,
    supported_versions,
)
from lean_gym.lean.workspace import Workspace, find_workspace, find_workspaces, workspace_path
from lean_gym.workspace import doctor, format_report, setup

TAGS = Path(__file__).resolve().parents[1] / "lean_gym" / "conformance" / "cases" / "repl" / "tags"

FAKE_LAKE = r"""#!/bin/sh
echo "lake $* @ $(pwd)" >> "$FAKE_LOG"
case "$*" in
  update)
    rev=$(sed -n 's/^rev = "\(.*\)"/\1/p' lakefile.toml | head -1)
    printf '{"version": "1.1.0", "packages": [{"name": "mathlib", "inputRev": "%s", "rev": "0123"}]}' "$rev" > lake-manifest.json ;;
  "exe cache get")
    mkdir -p .lake/packages/mathlib/.lake/build/lib/lean && : > .lake/packages/mathlib/.lake/build/lib/lean/Mathlib.olean ;;
  "build repl")
    mkdir -p .lake/packages/REPL/.lake/build/bin && : > .lake/packages/REPL/.lake/build/bin/repl ;;
esac
exit 0
"""


@pytest.fixture
def toolchain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Fake ``elan``/``lake`` first on PATH, a fresh HOME, per-version workspaces under ``tmp_path/ws``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("lake", FAKE_LAKE), ("elan", '#!/bin/sh\necho "elan $*" >> "$FAKE_LOG"\n')):
        f = bin_dir / name
        f.write_text(text)
        f.chmod(f.stat().st_mode | stat.S_IEXEC)
    log = tmp_path / "calls.log"
    log.write_text("")
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LEAN_GYM_WORKSPACES", str(tmp_path / "ws"))
    monkeypatch.setenv("LEAN_GYM_WORKSPACE", str(tmp_path / "default"))
    return log


# ------------------------------------------------------------------------------------------- the table
def test_table_is_well_formed_and_sorted() -> None:
    versions = [parse_version(r.lean) for r in RELEASES]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)
    for r in RELEASES:
        for commit in (r.repl_commit, r.mathlib_commit, r.aesop_commit):
            assert re.fullmatch(r"[0-9a-f]{40}", commit), (r.lean, commit)
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", r.repl_date) and r.note
    assert DEFAULT_LEAN_VERSION == RELEASES[-1].lean == "v4.33.0-rc2"
    assert "14484" in release(DEFAULT_LEAN_VERSION).note or "#14484" in release(DEFAULT_LEAN_VERSION).note
    assert {"v4.26.0", "v4.27.0"} <= set(supported_versions())


def test_layout_goes_with_the_version() -> None:
    assert release("v4.26.0").satp_layout == "satp-v2-181"
    assert {r.satp_layout for r in RELEASES if r.lean != "v4.26.0"} == {"satp-v2"}


def test_table_agrees_with_the_recorded_repl_transcripts() -> None:
    """Each tag's recorded cases name the REPL commit the table has for that release."""
    files = sorted(TAGS.glob("*.jsonl"))
    assert files
    for f in files:
        rel = release(f.stem)
        for line in f.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            assert case["lean_version"] == rel.lean
            assert case["source"]["commit"] == rel.repl_commit, case["id"]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("v4.23.0", r"no REPL tag and Mathlib tag on record.*v4\.26\.0.*default v4\.33\.0-rc2"),  # untagged
        ("v4.20.0", "no REPL tag"),
        ("v4.34.0", "no REPL tag"),  # not on record here
        ("v4.26", "did you mean v4.26.0"),
    ],
)
def test_a_version_without_both_tags_is_refused(text: str, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        release(text)


def test_versions_parse_and_order() -> None:
    assert release("4.26.0").lean == "v4.26.0"
    assert parse_version("leanprover/lean4:v4.27.0") == parse_version("v4.27.0")
    assert parse_version("v4.33.0-rc2") < parse_version("v4.33.0") < parse_version("v4.34.0-rc1")
    with pytest.raises(ConfigError, match="not a Lean version"):
        parse_version("nightly")


# ------------------------------------------------------------------------------------ setup and finding
def test_setup_builds_a_version_beside_the_default(toolchain: Path, tmp_path: Path) -> None:
    lines: list[str] = []
    assert setup(lean="v4.26.0", echo=lines.append) == 0
    root = tmp_path / "ws" / "v4.26.0"
    assert workspace_path("v4.26.0") == root
    assert (root / "lean-toolchain").read_text() == "leanprover/lean4:v4.26.0\n"
    lakefile = (root / "lakefile.toml").read_text()
    assert lakefile.count('rev = "v4.26.0"') == 2
    calls = toolchain.read_text().splitlines()
    assert calls == [f"lake {step} @ {root}" for step in ("update", "exe cache get", "build", "build repl")]
    assert any("a9a6f5bac483" in line for line in lines)  # the REPL commit of the tag is echoed
    ws = find_workspace(lean_version="v4.26.0")
    assert ws.root == root and ws.is_built and ws.versions == {"lean": "v4.26.0", "mathlib": "v4.26.0"}
    with pytest.raises(WorkspaceNotFoundError, match="lean-gym setup --lean v4.27.0"):
        find_workspace(lean_version="v4.27.0")
    with pytest.raises(WorkspaceNotFoundError, match="pinned to v4.26.0, not v4.27.0"):
        find_workspace(root, lean_version="v4.27.0")


def test_the_backend_of_a_version_names_it(toolchain: Path) -> None:
    assert setup(lean="v4.26.0", echo=lambda _: None) == 0
    b = ReplBackend.lean(lean_version="v4.26.0", pool_size=1)
    try:
        assert b.name == "repl:v4.26.0"
        assert dict(b.capabilities.versions) == {"lean": "v4.26.0", "mathlib": "v4.26.0"}
    finally:
        b.close()
    with pytest.raises(ConfigError, match="did you mean"):
        ReplBackend.lean(lean_version="v4.26")


def test_every_result_carries_the_versions() -> None:
    versions = {"lean": "v4.29.0", "mathlib": "v4.29.0"}
    with ReplBackend(command=sim_command(), pool_size=1, versions=versions, name="repl:test") as b:
        one = b.check("theorem t (x : Nat) : x + 0 = x := by simp")
        many = b.check_batch(["example : 1 = 1 := rfl", "example : 2 = 2 := rfl"])
    for r in (one, *many):
        assert dict(r.versions) == versions and r.lean_version == "v4.29.0"
        assert r.to_json()["versions"] == versions


def test_an_unknown_version_is_refused_before_any_work(toolchain: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no REPL tag"):
        setup(lean="v4.23.0", echo=lambda _: None)
    assert toolchain.read_text() == "" and not (tmp_path / "ws").exists()


def test_setup_cli_unknown_version_is_one_line(toolchain: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["setup", "--lean", "v4.23.0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "v4.33.0-rc2" in err[0] and err[0].startswith("lean-gym setup:")
    assert toolchain.read_text() == ""


def test_setup_does_not_silently_repin(toolchain: Path, tmp_path: Path) -> None:
    root = tmp_path / "mine"
    assert setup(root, lean="v4.26.0", echo=lambda _: None) == 0
    with pytest.raises(ConfigError, match="pinned to v4.26.0, not v4.27.0.*--force"):
        setup(root, lean="v4.27.0", echo=lambda _: None)
    assert Workspace(root).lean_version == "v4.26.0"
    assert setup(root, lean="v4.27.0", force=True, echo=lambda _: None) == 0
    assert Workspace(root).lean_version == "v4.27.0"


def test_doctor_lists_every_workspace_with_its_versions(toolchain: Path, tmp_path: Path) -> None:
    assert setup(echo=lambda _: None) == 0  # the default, in $LEAN_GYM_WORKSPACE
    assert setup(lean="v4.26.0", echo=lambda _: None) == 0
    (tmp_path / "ws" / "v4.27.0").mkdir(parents=True)
    setup(lean="v4.27.0", dry_run=True, echo=lambda _: None)  # a dry run writes nothing
    found = {w.lean_version: w for w in find_workspaces()}
    assert set(found) == {"v4.33.0-rc2", "v4.26.0"}
    checks = {c.name: c for c in doctor(tmp_path / "ws" / "v4.26.0", smoke=False)}
    assert checks["toolchain pin"].ok
    assert (
        "Mathlib v4.26.0" in checks["toolchain pin"].detail
        and "satp-v2-181" in checks["toolchain pin"].detail
    )
    assert "not the default v4.33.0-rc2" in checks["toolchain pin"].detail
    listed = checks["workspaces"].detail
    assert "v4.33.0-rc2 at" in listed and "v4.26.0 at" in listed and "(built)" in listed
    assert "workspaces" in format_report(list(checks.values()))


def test_doctor_flags_an_unsupported_pin(tmp_path: Path) -> None:
    (tmp_path / "lakefile.toml").write_text("")
    (tmp_path / "lean-toolchain").write_text("leanprover/lean4:v4.23.0\n")
    pin = next(c for c in doctor(tmp_path, smoke=False, runner=lambda cmd: None) if c.name == "toolchain pin")
    assert not pin.ok and "not a release" in pin.detail and "--lean v4.33.0-rc2" in pin.fix


def test_the_docs_table_lists_every_release() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "real-lean.md").read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| \*{0,2}(v[\d.]+(?:-rc\d+)?)\*{0,2} \| `([0-9a-f]{8})` \| `([0-9a-f]{8})` \| `([\w-]+)` \|",
        doc,
        re.M,
    )
    assert [r[0] for r in rows] == list(supported_versions())
    for lean, repl, mathlib, layout in rows:
        rel = release(lean)
        assert (repl, mathlib, layout) == (rel.repl_commit[:8], rel.mathlib_commit[:8], rel.satp_layout)
