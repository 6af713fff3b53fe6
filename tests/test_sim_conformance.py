"""Conformance: the simulator answers the real REPL's recorded transcripts as Lean did.

Every ``.in`` file of ``shared/fixtures/repl`` that falls in the simulator's subset is replayed through
:class:`SimRepl` (each file in a fresh instance, as upstream runs each in a fresh process; the two
``Mathlib/H20231215*`` files share a working directory because the second unpickles what the first
pickled). For those, the response text printed by the simulator's server must equal the recorded
``.expected.out`` byte for byte, which implies the weaker checks too (same keys in the same order, same
value types, same number and order of messages and sorries, same severities, same verdict under
:func:`lean_gym.lean.protocol.classify_response`); the weaker checks are also made explicitly so that a
failure says what differs.

Out of the subset, and why:

* ``app_type_mismatch2``: ``cases 1`` on a ``Nat`` literal and a kernel type error in the elaborated term
  (``(kernel) application type mismatch``) — the simulator has no kernel and no ``cases`` on data; it
  answers with errors of its own (the first verdict, ``error``, still agrees).
* ``file``: a ``{"path": "test/file.lean"}`` request for a file of the REPL repository that is not copied
  into ``shared/`` (the simulator answers that the file does not exist).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_gym.lean.protocol import classify_response, parse_response
from lean_gym.sim import SimRepl
from lean_gym.sim.jsonfmt import lean_json

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
FIXTURES = SHARED / "fixtures" / "repl"

OUT_OF_SUBSET = {
    "app_type_mismatch2": "kernel type errors and `cases` on a Nat literal are outside the subset",
    "file": "the Lean file it names is not in shared/fixtures",
}


def _fixtures() -> list[str]:
    if not FIXTURES.is_dir():
        return []
    names = sorted(p.name[: -len(".in")] for p in FIXTURES.glob("*.in"))
    names += sorted("Mathlib/" + p.name[: -len(".in")] for p in (FIXTURES / "Mathlib").glob("*.in"))
    return names


def _requests(text: str) -> list[dict]:
    """Requests as the real REPL frames them (lines joined without separator, blank-line separated)."""
    out: list[dict] = []
    cur: list[str] = []
    for line in [*text.split("\n"), ""]:
        s = line.rstrip()
        if not s.strip():
            if cur:
                joined = "".join(cur)
                if not (joined.startswith("#") or joined.startswith("--")):
                    out.append(json.loads(joined))
                cur = []
            continue
        cur.append(s)
    return out


def _responses(text: str) -> list[tuple[dict, str]]:
    dec = json.JSONDecoder()
    out, i = [], 0
    while True:
        while i < len(text) and text[i] in " \n":
            i += 1
        if i >= len(text):
            return out
        obj, j = dec.raw_decode(text, i)
        out.append((obj, text[i:j]))
        i = j


def _shape(v: object) -> object:
    if isinstance(v, dict):
        return [(k, _shape(x)) for k, x in v.items()]
    if isinstance(v, list):
        return ["list", [_shape(x) for x in v]]
    return type(v).__name__


def _replay(name: str, repl: SimRepl) -> list[tuple[dict, dict, str]]:
    reqs = _requests((FIXTURES / f"{name}.in").read_text(encoding="utf-8"))
    exp = _responses((FIXTURES / f"{name}.expected.out").read_text(encoding="utf-8"))
    assert len(reqs) == len(exp), f"{name}: {len(reqs)} requests but {len(exp)} recorded responses"
    return [(repl.handle(req), obj, raw) for req, (obj, raw) in zip(reqs, exp)]


def test_fixture_list_is_complete() -> None:
    if not FIXTURES.is_dir():
        pytest.skip(f"fixtures not found at {FIXTURES} (CI puts shared/ beside the repository)")
    names = _fixtures()
    assert len(names) == 20
    assert set(OUT_OF_SUBSET) <= set(names)


@pytest.mark.parametrize("name", [n for n in _fixtures() if n not in OUT_OF_SUBSET] or ["<none>"])
def test_fixture_conforms(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if name == "<none>":
        pytest.skip(f"fixtures not found at {FIXTURES}")
    monkeypatch.chdir(tmp_path)  # pickles go to test/*.olean relative to the working directory
    runs: list[tuple[dict, dict, str]] = []
    if name.startswith("Mathlib/H20231215"):
        # the second transcript unpickles what the first one pickled, in a new process
        first = _replay("Mathlib/H20231215", SimRepl())
        runs = first if name == "Mathlib/H20231215" else _replay(name, SimRepl())
    else:
        runs = _replay(name, SimRepl())
    for i, (got, want, raw) in enumerate(runs):
        where = f"{name} response {i}"
        assert list(got) == list(want), where
        assert _shape(got) == _shape(want), where
        assert classify_response(got) == classify_response(want), where
        for key in ("messages", "sorries"):
            g, w = got.get(key, []), want.get(key, [])
            assert len(g) == len(w), f"{where}: {key}"
            if key == "messages":
                assert [m["severity"] for m in g] == [m["severity"] for m in w], where
        for key in ("env", "proofState", "proofStatus", "goals", "message"):
            assert got.get(key) == want.get(key), f"{where}: {key}"
        assert lean_json(got) == raw, where


@pytest.mark.parametrize("name", sorted(OUT_OF_SUBSET))
def test_out_of_subset_fixtures_still_get_well_formed_answers(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not FIXTURES.is_dir():
        pytest.skip(f"fixtures not found at {FIXTURES}")
    monkeypatch.chdir(tmp_path)
    runs = _replay(name, SimRepl())
    for got, _want, _raw in runs:
        parse_response(got)  # every answer is a valid protocol response
    if name == "app_type_mismatch2":
        # the first answer's verdict agrees with Lean's even here (the proof is rejected)
        assert classify_response(runs[0][0]) == classify_response(runs[0][1]) == "error"
    else:
        assert runs[0][0]["message"].startswith("Lean error:\nno such file or directory")
