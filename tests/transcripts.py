"""Reading the REPL's recorded transcripts (``NAME.in`` / ``NAME.expected.out``) exactly as the REPL frames them."""

from __future__ import annotations

import json
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FIXTURES = SHARED / "fixtures" / "repl"


def split_requests(text: str) -> list[dict]:
    """Requests of a ``.in`` file: blocks separated by blank lines, each block's lines stripped of trailing
    whitespace and joined with no separator (which is why raw newlines inside strings disappear)."""
    requests: list[dict] = []
    parts: list[str] = []
    for line in text.split("\n"):
        if not line.strip():
            if parts:
                requests.append(json.loads("".join(parts)))
                parts = []
            continue
        parts.append(line.rstrip())
    if parts:
        requests.append(json.loads("".join(parts)))
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
    requests = split_requests(inp.read_text(encoding="utf-8"))
    responses = split_responses(out.read_text(encoding="utf-8"))
    return requests, responses


def fixture_names() -> list[str]:
    if not FIXTURES.is_dir():
        return []
    names = []
    for p in sorted(FIXTURES.rglob("*.expected.out")):
        rel = p.relative_to(FIXTURES).as_posix()[: -len(".expected.out")]
        if (FIXTURES / f"{rel}.in").exists():
            names.append(rel)
    return names
