"""SATP's record as conformance cases (``lean_gym/conformance/cases/satp/``): the format, and the facts.

Checked here: every case follows ``lean_gym/conformance/FORMAT.md``; the minimal proofs and the aesop calls
are SATP's 92 proved miniF2F-test theorems, one each; every call is an aesop call after its theorem's
statement (``tests/test_satp_vectors.py`` reads each with the ``satp-v2-181`` layout, SATP's on Lean v4.26);
``figures.json`` states each figure with its source.
With ``../shared/data/minif2f.jsonl`` present, each statement is miniF2F-test's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

CASES = Path(__file__).parents[1] / "lean_gym" / "conformance" / "cases" / "satp"
MINIF2F = Path(__file__).parents[1] / ".." / "shared" / "data" / "minif2f.jsonl"
KEYS = {"id", "kind", "family", "header", "code", "expect", "messages", "lean_version", "source", "note"}


def load(name: str) -> list[dict[str, Any]]:
    lines = (CASES / name).read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "" and all(lines[:-1]), "one JSON object per line, no blank lines"
    return [json.loads(line) for line in lines[:-1]]


def theorem_of(case: dict[str, Any]) -> str:
    m = re.match(r"theorem (\S+)", case["code"])
    assert m is not None, case["id"]
    return m.group(1)


@pytest.mark.parametrize(
    ("name", "family", "count"),
    [("satp_calls.jsonl", "aesop", 92), ("satp_minimal.jsonl", "minimal_proof", 92)],
)
def test_cases_follow_the_format(name: str, family: str, count: int) -> None:
    cases = load(name)
    assert len(cases) == count
    assert [c["id"] for c in cases] == [f"satp.{family}.{i:04d}" for i in range(1, count + 1)]
    for c in cases:
        assert set(c) == KEYS, c["id"]
        assert (c["kind"], c["family"], c["header"], c["expect"], c["messages"]) == (
            "command",
            family,
            "import Mathlib",
            "ok",
            [],
        )
        assert c["lean_version"] == "v4.26.0"
        src = c["source"]
        assert src["repo"] == "ChristianZ97/LeanSATP" and src["how"] == "published_proof"
        assert re.fullmatch(r"[0-9a-f]{40}", src["commit"]) and src["line"] == 3
        folder = "config" if family == "aesop" else "minimal"
        assert src["path"] == f"proofs/minif2f_test_v2/{folder}/{theorem_of(c)}.lean"
        assert "\n" not in c["note"] and "Mathlib v4.26.0" in c["note"] and "maxHeartbeats" in c["note"]
        assert "sorry" not in c["code"] and c["code"].startswith("theorem ")


def test_the_minimal_proofs_and_the_calls_are_the_same_92_theorems() -> None:
    minimal = {theorem_of(c): c for c in load("satp_minimal.jsonl")}
    calls = {theorem_of(c): c for c in load("satp_calls.jsonl")}
    assert len(minimal) == len(calls) == 92 and set(calls) == set(minimal)
    for name, call in calls.items():  # the same statement under both proofs
        statement = call["code"][: call["code"].index(":= by\n") + len(":= by\n")]
        assert minimal[name]["code"].startswith(statement)
        assert "aesop" not in minimal[name]["code"]


def test_every_call_is_an_aesop_call_after_its_statement() -> None:
    for c in load("satp_calls.jsonl"):
        _, sep, call = c["code"].partition(":= by\n\n")  # the files leave a blank line before the call
        assert sep and call.startswith("  aesop") and not call.endswith("\n")
        # SATP's winning calls switch on at least 22 of the 28 tactic heads and 29 of the 32 lemma slots
        # (all 32 in 91 of them; mathd_numbertheory_430 names 29 lemmas and 25 tactics)
        assert call.count("\n    (add ") >= 25 + 29
        # (tests/test_satp_vectors.py parses each with satp-v2-181 and renders it back byte for byte)


def test_figures_state_their_sources() -> None:
    figures = {
        f["name"]: f for f in json.loads((CASES / "figures.json").read_text(encoding="utf-8"))["figures"]
    }
    assert {"policy", "best_static", "plain_aesop", "buffer_rows", "buffer_successes"} <= set(figures)
    for f in figures.values():
        assert f["where"] and isinstance(f["read_here"], bool)
        if "proved" in f:
            assert f["of"] == 244 and round(f["proved"] / 244, 3) == f["rate"]
    assert (
        figures["policy"]["proved"],
        figures["best_static"]["proved"],
        figures["plain_aesop"]["proved"],
    ) == (92, 77, 26)
    assert (figures["buffer_rows"]["value"], figures["buffer_successes"]["value"]) == (94969, 71815)


@pytest.mark.shared
@pytest.mark.skipif(not MINIF2F.is_file(), reason="extra check: needs ../shared/data/minif2f.jsonl")
def test_statements_are_minif2f_test_statements() -> None:
    rows = [json.loads(line) for line in MINIF2F.open(encoding="utf-8")]
    test = {r["name"]: r["formal_statement"] for r in rows if r["split"] == "test"}
    for name in ("satp_calls.jsonl", "satp_minimal.jsonl"):
        for c in load(name):
            assert c["code"].startswith(test[theorem_of(c)]), c["id"]
