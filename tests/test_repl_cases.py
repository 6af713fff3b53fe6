"""The shipped REPL cases (``lean_gym/conformance/cases/repl/repl.jsonl``): their format, their sources, and,
where ``../shared`` is present, that they hold exactly what the copied fixture files hold."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from lean_gym.sim.jsonfmt import lean_json

sys.path.insert(0, str(Path(__file__).parent))
from transcripts import (
    CASES_FILE,
    FIXTURES,
    case_name,
    fixture_names,
    read_transcript,
    repl_cases,
    shared_fixture_names,
    split_requests,
)

COMMIT = "8948401ab4924499421c94b7facdfca5ff27d81d"
KEYS = {"id", "kind", "family", "header", "requests", "responses", "lean_version", "source", "note"}
OPTIONAL = {"needs_files", "in_text"}


def _lines() -> list[str]:
    return CASES_FILE.read_text(encoding="utf-8").split("\n")


def test_the_file_is_one_case_per_line_with_no_blank_lines() -> None:
    lines = _lines()
    assert lines[-1] == "" and all(lines[:-1])  # ends in one newline, no blank line inside
    ids = [json.loads(line)["id"] for line in lines[:-1]]
    assert len(ids) == len(set(ids)) == 71
    assert all(re.fullmatch(r"repl\.repl\.\d{4}", i) for i in ids)


@pytest.mark.parametrize("name", fixture_names())
def test_each_case_follows_the_format_and_cites_its_transcript(name: str) -> None:
    case = repl_cases()[name]
    assert KEYS <= set(case) <= KEYS | OPTIONAL
    assert (case["kind"], case["family"], case["lean_version"]) == ("repl", "repl", "v4.33.0-rc2")
    src = case["source"]
    assert src["repo"] == "leanprover-community/repl" and src["commit"] == COMMIT
    assert src["how"] == "transcript" and isinstance(src["line"], int) and src["line"] >= 1
    assert re.fullmatch(r"test/(Mathlib/test/)?[\w.-]+\.in", src["path"])
    assert case_name(case) == name
    assert case["header"] == ("import Mathlib" if name.startswith("Mathlib/") else "")
    assert len(case["requests"]) == len(case["responses"]) > 0
    assert all(isinstance(x, dict) and x for x in case["requests"] + case["responses"])
    # every file the transcript reads and does not write itself is listed
    written = {r["pickleTo"] for r in case["requests"] if "pickleTo" in r}
    read = [
        r.get("path") or r.get("unpickleEnvFrom") or r.get("unpickleProofStateFrom") for r in case["requests"]
    ]
    assert case.get("needs_files", []) == [p for p in read if p and p not in written]
    if "in_text" in case:
        assert split_requests(case["in_text"]) == case["requests"]


def test_the_cases_are_package_data() -> None:
    # pyproject's package-data must name the corpus, or an installed lean-gym ships without it
    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"conformance/cases/*/*.jsonl"' in text


def needs_shared(test):  # type: ignore[no-untyped-def]
    """An extra cross-check against ../shared/fixtures/repl: marked ``shared``, skipped where it is absent."""
    skip = pytest.mark.skipif(
        not FIXTURES.is_dir(),
        reason=f"{FIXTURES} not found: the cross-check against the copied fixtures is extra",
    )
    return pytest.mark.shared(skip(test))


@needs_shared
def test_every_shared_fixture_is_a_shipped_case() -> None:
    assert set(shared_fixture_names()) <= set(fixture_names())
    assert len(shared_fixture_names()) == 20


@needs_shared
@pytest.mark.parametrize("name", shared_fixture_names())
def test_shipped_case_equals_the_shared_fixture(name: str) -> None:
    requests, raw = read_transcript(FIXTURES / f"{name}.in", FIXTURES / f"{name}.expected.out")
    case = repl_cases()[name]
    assert case["requests"] == requests
    assert case["responses"] == [json.loads(r) for r in raw]
    # key order too (json.loads keeps it), and Lean's own printing of each response byte for byte, which
    # is what lets the replay server and the conformance test print the parsed responses
    assert [list(r) for r in case["responses"]] == [list(json.loads(r)) for r in raw]
    assert [lean_json(r) for r in case["responses"]] == raw


def test_a_built_wheel_holds_the_cases_and_the_sample(tmp_path: Path) -> None:
    """What an installed lean-gym holds: build the wheel from this checkout and read its file list."""
    pytest.importorskip("setuptools", reason="building a wheel without build isolation needs setuptools")
    import shutil
    import subprocess
    import zipfile

    root = Path(__file__).resolve().parents[1]
    src = tmp_path / "src"  # a copy, so that setuptools' build/ and egg-info never land in the checkout
    skip = shutil.ignore_patterns(".*", "build", "dist", "*.egg-info", "__pycache__", "lean_workspace")
    shutil.copytree(root, src, ignore=skip)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            ".",
        ],
        check=True,
        capture_output=True,
        cwd=src,
    )
    (wheel,) = tmp_path.glob("lean_gym-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "lean_gym/conformance/cases/repl/repl.jsonl" in names
    assert "lean_gym/conformance/cases/repl/tags/v4.33.0-rc2.jsonl" in names  # the per-tag cases (issue 24)
    assert {"lean_gym/data/samples/minif2f_sample.jsonl", "lean_gym/data/samples/NOTICE"} <= names
    assert "lean_gym/conformance/FORMAT.md" in names
