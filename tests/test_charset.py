"""Every character Lean or the simulator can put in an observation is in the observation charset (issue 19).

The sources scanned: the REPL's recorded transcripts (shipped cases), the miniF2F sample (and the full
miniF2F where ``../shared`` has it), the simulator's goal families, the simulator's answers to every
recorded transcript, and every string literal of the simulator's source (its messages and notation).
Lean's inaccessible-name mark ``✝`` (U+271D) is the character that was missing.
"""

from __future__ import annotations

import ast
import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

import lean_gym
from lean_gym.data import MINIF2F_SAMPLE, load_theorems
from lean_gym.envs.spaces import LEAN_CHARSET, sanitize_text
from lean_gym.sim import SimRepl

sys.path.insert(0, str(Path(__file__).parent))
from transcripts import SHARED, repl_cases

PKG = Path(lean_gym.__file__).parent


def _strings(obj: object) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


def _outside(texts: Iterable[str]) -> dict[str, str]:
    """Characters outside the charset, each with the first text it came in."""
    out: dict[str, str] = {}
    for t in texts:
        for ch in t:
            if ch not in LEAN_CHARSET:
                out.setdefault(ch, t[:80])
    return out


def test_lean_inaccessible_name_mark_is_in_the_charset() -> None:
    assert "✝" in LEAN_CHARSET
    assert sanitize_text("a✝ : ℕ\n⊢ a✝ = a✝", 100) == "a✝ : ℕ\n⊢ a✝ = a✝"


def test_every_character_of_the_recorded_transcripts() -> None:
    cases = repl_cases()
    assert _outside(s for c in cases.values() for s in _strings(c)) == {}
    # the recordings do hold the mark, so this scan would have caught it
    assert any("✝" in s for c in cases.values() for s in _strings(c["responses"]))


def test_every_character_of_the_minif2f_sample_and_the_sim_families() -> None:
    rows = [json.loads(x) for x in Path(MINIF2F_SAMPLE).read_text(encoding="utf-8").splitlines()]
    assert _outside(s for r in rows for s in _strings(r)) == {}
    sim = load_theorems("sim")
    assert _outside(s for t in sim for s in (t.formal_statement, t.goal, t.header, *t.context_lemmas)) == {}


@pytest.mark.shared
@pytest.mark.skipif(
    not (SHARED / "data" / "minif2f.jsonl").is_file(), reason="the full miniF2F is extra (../shared/data)"
)
def test_every_character_of_the_full_minif2f() -> None:
    rows = [
        json.loads(x) for x in (SHARED / "data" / "minif2f.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert len(rows) == 488 and _outside(s for r in rows for s in _strings(r)) == {}


def test_every_character_the_simulator_answers_the_transcripts_with(tmp_path: Path) -> None:
    cwd = os.getcwd()
    os.chdir(tmp_path)  # pickles land here
    try:
        answers = []
        for case in repl_cases().values():
            repl = SimRepl()
            answers += [repl.handle(r) for r in case["requests"]]
    finally:
        os.chdir(cwd)
    assert _outside(s for a in answers for s in _strings(a)) == {}
    # shadowing gives inaccessible names in the simulator's goals too
    repl = SimRepl()
    resp = repl.handle({"cmd": "theorem t (x : Nat) : ∀ x : Nat, x = x := by\n  intro x\n  sorry"})
    assert resp["sorries"][0]["goal"] == "x✝ x : Nat\n⊢ x = x"


def test_every_printable_character_of_the_simulator_source() -> None:
    texts = []
    for path in sorted((PKG / "sim").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                # control characters in literals are escapes and separators, never printed raw
                texts.append("".join(ch for ch in node.value if ch.isprintable() or ch in "\t\n"))
    assert _outside(texts) == {}
