"""lean-gym's layouts against strings SATP's own renderers wrote (``tests/data/satp_vectors/``, see its README).

Every recorded vector: ``render(a, L, verbatim=True)`` is SATP's string byte for byte; the guarded ``render``
is too whenever the lemmas it uses are plain identifiers, and otherwise writes a subset of SATP's lines;
``parse`` reads SATP's string back to a vector that renders to it; ``uuid16`` is the recorded one. The 92
calls of SATP's published miniF2F-test proofs are read back as well.
"""

from __future__ import annotations

import collections
import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lean_gym.aesop import is_lean_ident, layout, uuid16
from lean_gym.errors import BadActionError

DATA = Path(__file__).parent / "data" / "satp_vectors"
CASES = Path(__file__).parents[1] / "lean_gym" / "conformance" / "cases" / "satp" / "satp_calls.jsonl"
LAYOUTS = ("satp-v1", "satp-v2", "satp-v2-181")


@cache
def vectors(name: str) -> tuple[dict[str, Any], ...]:
    with gzip.open(DATA / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f)


def plain(lemmas: list[str]) -> bool:
    """Every name is one the guarded render writes as it is (an identifier without surrounding space)."""
    return all(n == "" or (n == n.strip() and is_lean_ident(n)) for n in lemmas)


@pytest.mark.parametrize("name", LAYOUTS)
def test_the_recorded_set_covers_every_kind(name: str) -> None:
    kinds = collections.Counter(r["kind"].split(":")[0] for r in vectors(name))
    lay = layout(name)
    assert kinds["default"] == kinds["max"] == 1
    assert kinds["head"] == int((lay.nvec - 1).sum())  # every head alone at every non-default level
    assert kinds["random"] == kinds["random-sparse"] == 300
    assert kinds["repeated"] >= 100 and kinds["odd"] >= 100 and kinds["odd-alone"] >= 80
    odd = {n for r in vectors(name) for n in r["lemmas"] if not plain([n])}
    assert {"_private.Mathlib.Data.Nat.0.foo", "x.1", "foo bar", "«odd name»", "   ", "e\nf"} <= odd


@pytest.mark.parametrize("name", LAYOUTS)
def test_render_is_satps_string_on_every_recorded_vector(name: str) -> None:
    lay = layout(name)
    guarded_equal = 0
    for r in vectors(name):
        a, lemmas, satp = np.array(r["action"]), r["lemmas"], r["satp"]
        assert lay.render(a, lemmas, verbatim=True) == satp, r["kind"]
        guarded = lay.render(a, lemmas)
        if plain(lemmas):
            assert guarded == satp, r["kind"]
            guarded_equal += 1
        elif not any(n != n.strip() and is_lean_ident(n.strip()) for n in lemmas):
            # the guard only leaves rules out (a padded identifier is written stripped, so not compared)
            it = iter(satp.split("\n"))
            assert all(line in it for line in guarded.split("\n")), r["kind"]
        if guarded != satp:  # (SATP's own strings are read back below)
            assert lay.render(lay.parse(guarded, lemmas), lemmas) == guarded
    assert guarded_equal >= len(vectors(name)) - 600


@pytest.mark.parametrize("name", LAYOUTS)
def test_parse_reads_every_string_satp_writes(name: str) -> None:
    lay = layout(name)
    for r in vectors(name):
        lemmas, satp = r["lemmas"], r["satp"]
        back = lay.parse(satp, lemmas)
        assert lay.render(back, lemmas, verbatim=True) == satp, r["kind"]
        if len({n for n in lemmas if n.strip()}) == len([n for n in lemmas if n.strip()]):
            # distinct names: the very vector, up to heads on blank slots (SATP writes nothing for them)
            want = np.array(r["action"])
            k = lay.num_lemmas
            first = 24 if name == "satp-v1" else 28
            for slot in range(k):
                if slot >= len(lemmas) or not lemmas[slot].strip():
                    want[first + slot] = 0
            assert np.array_equal(back, want), r["kind"]


@pytest.mark.parametrize("name", LAYOUTS)
def test_uuid16_is_the_recorded_one(name: str) -> None:
    for r in vectors(name):
        assert uuid16(r["satp"]) == r["uuid16"]


def test_satps_published_calls_read_back_byte_for_byte() -> None:
    """The 92 calls of ``proofs/minif2f_test_v2/config/``: each lemma it names on, read and re-rendered.

    ``satp-v2-181`` (SATP's layout on Lean v4.26, the proofs' Lean) reads every one; ``satp-v2`` (v4.27, no
    ``positivity [L]`` host) reads the others and rejects the five calls that use that host.
    """
    rows = [json.loads(line) for line in (DATA / "calls.jsonl").open(encoding="utf-8")]
    lemmas = {d["case"]: d["lemmas"] for d in rows}
    cases = [json.loads(line) for line in CASES.open(encoding="utf-8")]
    assert len(cases) == len(rows) == len(lemmas) == 92
    v26, v27 = layout("satp-v2-181"), layout("satp-v2")
    rejected = []
    for c in cases:
        call = c["code"][c["code"].index("\n\n  aesop") + 2 :]
        names = lemmas[c["id"]]
        a = v26.parse(call, names, strict=True)
        assert v26.render(a, names) == call, c["id"]
        # every rule on a named lemma is read back to its slot; the slots after the names stay off
        assert (a[28 : 28 + len(names)] > 0).all() and not a[28 + len(names) : 60].any(), c["id"]
        assert len(names) == 32 or c["code"].startswith("theorem mathd_numbertheory_430 "), c["id"]
        if "(by positivity [" in call:
            with pytest.raises(BadActionError):
                v27.parse(call, names, strict=True)
            rejected.append(c["id"])
        else:
            assert v27.render(v27.parse(call, names, strict=True), names) == call, c["id"]
    # five of the 92 calls use positivity [L] (issue 21's count), one of them twice
    assert len(rejected) == 5
