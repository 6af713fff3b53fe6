"""The REPL's recorded transcripts, as the package ships them: conformance cases of kind ``"repl"``.

``lean_gym/conformance/cases/repl/repl.jsonl`` holds every transcript of the REPL's ``test/`` folder
(leanprover-community/repl at 8948401, Lean v4.33.0-rc2) that has an ``.expected.out``: its requests as the
REPL framed them and its responses as parsed JSON, in Lean's key order. A transcript is named as in
``../shared/fixtures/repl``: ``dup_msg`` for ``test/dup_msg.in``, ``Mathlib/H20231215`` for
``test/Mathlib/test/H20231215.in``.

``../shared/fixtures/repl`` (the same transcripts as files, for the 20 that were copied there) is only an
extra cross-check (``test_repl_cases.py``); nothing here needs it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

# Where the installed package is, found without importing it: replay_server.py, a process per replayed
# transcript, reads the transcripts from here and imports nothing of lean-gym.
PACKAGE = Path(next(iter(find_spec("lean_gym").submodule_search_locations)))  # type: ignore[union-attr]
CASES_FILE = PACKAGE / "conformance" / "cases" / "repl" / "repl.jsonl"
SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FIXTURES = SHARED / "fixtures" / "repl"


def case_name(case: dict[str, Any]) -> str:
    """The transcript's name (``dup_msg``, ``Mathlib/H20231215``) from the case's source path."""
    path = case["source"]["path"]
    stem = path[: -len(".in")]
    if stem.startswith("test/Mathlib/test/"):
        return "Mathlib/" + stem[len("test/Mathlib/test/") :]
    return stem[len("test/") :]


@lru_cache(maxsize=1)
def _cases() -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for line in CASES_FILE.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        out[case_name(case)] = case
    return out


def repl_cases() -> dict[str, dict[str, Any]]:
    """Every shipped REPL case by transcript name (a fresh copy each call: tests may not share edits)."""
    return json.loads(json.dumps(_cases()))


def fixture_names() -> list[str]:
    """Names of the shipped transcripts, sorted."""
    return sorted(_cases())


def transcript(name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The requests and the recorded responses of transcript ``name``."""
    case = repl_cases()[name]
    return case["requests"], case["responses"]


def replay_command(name: str) -> list[str]:
    """Arguments (after the interpreter) of ``replay_server.py`` answering transcript ``name``."""
    return [str(Path(__file__).parent / "replay_server.py"), name]


def split_requests(text: str) -> list[dict]:
    """Requests of a ``.in`` file: blocks separated by blank lines, each block's lines stripped of trailing
    whitespace and joined with no separator (which is why raw newlines inside strings disappear), as
    ``getLines`` in the REPL's ``REPL/Main.lean``; a block starting with ``#`` or ``--`` is a comment."""
    requests: list[dict] = []
    parts: list[str] = []
    for line in [*text.split("\n"), ""]:
        if not line.strip():
            if parts:
                joined = "".join(parts)
                if not joined.startswith(("#", "--")):
                    requests.append(json.loads(joined))
                parts = []
            continue
        parts.append(line.rstrip())
    return requests


def split_responses(text: str) -> list[str]:
    """Raw text of each pretty-printed response in a ``.expected.out`` file."""
    out: list[str] = []
    dec = json.JSONDecoder()
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        _, end = dec.raw_decode(text, i)
        out.append(text[i:end])
        i = end


def read_transcript(inp: Path, out: Path) -> tuple[list[dict], list[str]]:
    """A transcript of ``../shared/fixtures/repl`` (files): its requests and the raw text of its responses."""
    requests = split_requests(inp.read_text(encoding="utf-8"))
    responses = split_responses(out.read_text(encoding="utf-8"))
    return requests, responses


def shared_fixture_names() -> list[str]:
    """Names of the transcripts under ``../shared/fixtures/repl`` (empty when ``../shared`` is absent)."""
    if not FIXTURES.is_dir():
        return []
    names = []
    for p in sorted(FIXTURES.rglob("*.expected.out")):
        rel = p.relative_to(FIXTURES).as_posix()[: -len(".expected.out")]
        if (FIXTURES / f"{rel}.in").exists():
            names.append(rel)
    return names
