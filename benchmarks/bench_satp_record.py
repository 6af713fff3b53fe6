"""SATP's record through the simulator: how much of what Lean proved does the simulator read and prove?

Reads SATP's 92 miniF2F-test theorems (``lean_gym/conformance/cases/satp/``: each proved on Lean v4.26.0,
Mathlib v4.26.0, with SATP's own aesop call and with an aesop-free minimal proof, under Lean's default
``maxHeartbeats`` 200000, the files' header setting none) and prints, through the simulator (backend
``sim``, ``max_heartbeats`` 200000):

* the statements it elaborates (``statement := by sorry`` answers ``sorry``), and why the others fail;
* of those, how many it proves with SATP's call, with plain ``aesop`` and with the minimal proof (and the
  first line of the error of each failure, with ``--failures``);
* with ``--minif2f PATH`` (miniF2F JSONL, e.g. ``../shared/data/minif2f.jsonl`` or after
  ``lean-gym data fetch minif2f``): the miniF2F-test statements it elaborates and plain ``aesop`` on all
  244, beside SATP's plain-aesop figure on Lean (10.7%, 26/244), which bounds it (the simulator is never
  stronger than Lean).

Every figure is the simulator's, not Lean's; Lean proved all 92 with both proofs. Issue 21's targets: at
least 88 of the 92 elaborated, at least 90% of those proved with SATP's call and with the minimal proof,
plain aesop on miniF2F-test at most 10.7%, at least 200 of the 244 elaborated.

Run:  python benchmarks/bench_satp_record.py
      python benchmarks/bench_satp_record.py --minif2f ../shared/data/minif2f.jsonl --failures
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lean_gym.backends.sim import SimBackend

CASES = Path(__file__).resolve().parents[1] / "lean_gym" / "conformance" / "cases" / "satp"
HEADER = "import Mathlib"


def _load(name: str) -> list[tuple[str, str]]:
    out = []
    for line in (CASES / name).read_text(encoding="utf-8").splitlines():
        code = json.loads(line)["code"]
        m = re.match(r"theorem (\S+)", code)
        assert m is not None
        out.append((m.group(1), code))
    return out


def _statement(code: str) -> str:
    return code[: code.index(":= by\n") + len(":= by\n")]


def _why(result: object) -> str:
    msgs = getattr(result, "messages", ())
    return msgs[0].data.splitlines()[0][:110] if msgs else str(getattr(result, "status", "?"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--minif2f", default="", help="a miniF2F JSONL file: also count miniF2F-test statements")
    ap.add_argument("--failures", action="store_true", help="print each failure's first error line")
    args = ap.parse_args()
    backend = SimBackend(max_heartbeats=200_000, timeout=120)
    calls, minimal = _load("satp_calls.jsonl"), _load("satp_minimal.jsonl")
    t0 = time.perf_counter()
    elaborated: dict[str, bool] = {}
    refused: collections.Counter[str] = collections.Counter()
    for name, code in calls:
        r = backend.check(_statement(code) + "  sorry", header=HEADER)
        elaborated[name] = r.status == "sorry"
        if not elaborated[name]:
            refused[_why(r)] += 1
    n_el = sum(elaborated.values())
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(f"SATP's record through the simulator (backend: sim, maxHeartbeats 200000, commit {commit or '?'})")
    print(f"statements elaborated: {n_el}/92   (Lean: 92/92; target >= 88)")
    for why, k in refused.most_common():
        print(f"  not read ({k}): {why}")
    for label, rows, plain in (
        ("SATP's call", calls, False),
        ("plain aesop", calls, True),
        ("minimal proof", minimal, False),
    ):
        ok = 0
        fails = []
        for name, code in rows:
            if not elaborated[name]:
                continue
            text = _statement(code) + "  aesop" if plain else code
            r = backend.check(text, header=HEADER)
            if r.proved:
                ok += 1
            else:
                fails.append((name, _why(r)))
        lean = "not published" if plain else f"{n_el}/{n_el}"
        print(f"proved with {label:14s} {ok:3d}/{n_el} = {100 * ok / max(n_el, 1):5.1f}%   (Lean: {lean})")
        if args.failures:
            for name, why in fails:
                print(f"  {name}: {why}")
    if args.minif2f:
        lines = Path(args.minif2f).read_text(encoding="utf-8").splitlines()
        rows = [json.loads(line) for line in lines if line.strip()]
        test = [r for r in rows if r.get("split") == "test"]
        el = proved = 0
        for r in test:
            header = r.get("header") or HEADER
            if backend.check(r["formal_statement"] + "  sorry", header=header).status != "sorry":
                continue
            el += 1
            proved += backend.check(r["formal_statement"] + "  aesop", header=header).proved
        n = len(test)
        print(f"miniF2F-test statements elaborated: {el}/{n}   (target >= 200)")
        print(
            f"plain aesop on miniF2F-test: {proved}/{n} = {100 * proved / max(n, 1):.1f}%   (Lean, SATP: 10.7%, 26/244)"
        )
    print(f"elapsed {time.perf_counter() - t0:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
