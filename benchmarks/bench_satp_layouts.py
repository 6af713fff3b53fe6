"""Conformance of lean-gym's SATP layouts with SATP's own renderer, on the recorded vectors.

Reads ``tests/data/satp_vectors/`` (vectors rendered by SATP's code, see its README) and, per layout,
counts the vectors on which:

* ``render(a, L, verbatim=True)`` is SATP's string byte for byte (must be all);
* the guarded ``render(a, L)`` is SATP's string, among the vectors whose lemma lists hold only plain
  identifiers (must be all; on the others lean-gym leaves the odd names out by design);
* ``parse`` reads SATP's string back to a vector that renders to it (must be all);
* ``uuid16`` is the recorded one (must be all);

then reads SATP's 92 recorded miniF2F-test calls (``lean_gym/conformance/cases/satp/satp_calls.jsonl``) with
``satp-v2-181`` (must read all) and ``satp-v2`` (must read all but the calls using ``positivity [L]``, a host it
lacks, and reject those), and times ``parse`` (median per string, per kind of vector). No Lean and no
simulator run: the figures are about lean-gym's layout code. Exits 1 when any count is short.

Run:  python benchmarks/bench_satp_layouts.py
      python benchmarks/bench_satp_layouts.py --layouts satp-v1
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lean_gym.aesop import is_lean_ident, layout, uuid16  # noqa: E402
from lean_gym.errors import BadActionError  # noqa: E402

DATA = ROOT / "tests" / "data" / "satp_vectors"
CALLS = ROOT / "lean_gym" / "conformance" / "cases" / "satp" / "satp_calls.jsonl"
LAYOUTS = ("satp-v1", "satp-v2", "satp-v2-181")


def plain(lemmas: list[str]) -> bool:
    return all(n == "" or (n == n.strip() and is_lean_ident(n)) for n in lemmas)


def check_layout(name: str) -> tuple[dict[str, int], dict[str, float]]:
    lay = layout(name)
    counts = dict.fromkeys(("vectors", "verbatim", "plain", "guarded", "parse", "uuid16"), 0)
    times: dict[str, list[float]] = {}
    with gzip.open(DATA / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
        for r in map(json.loads, f):
            a, lemmas, satp = np.array(r["action"]), r["lemmas"], r["satp"]
            counts["vectors"] += 1
            counts["verbatim"] += lay.render(a, lemmas, verbatim=True) == satp
            if plain(lemmas):
                counts["plain"] += 1
                counts["guarded"] += lay.render(a, lemmas) == satp
            t0 = time.perf_counter()
            back = lay.parse(satp, lemmas)
            times.setdefault(r["kind"].split(":")[0], []).append(time.perf_counter() - t0)
            counts["parse"] += lay.render(back, lemmas, verbatim=True) == satp
            counts["uuid16"] += uuid16(satp) == r["uuid16"]
    return counts, {k: statistics.median(v) for k, v in times.items()}


def check_calls() -> dict[str, tuple[int, int, int, int]]:
    """Per layout: calls read back byte for byte, calls rejected, calls it must reject, calls."""
    lemmas = {d["case"]: d["lemmas"] for d in map(json.loads, (DATA / "calls.jsonl").open(encoding="utf-8"))}
    out = {}
    for name in ("satp-v2-181", "satp-v2"):
        lay, ok, rejected, must, n = layout(name), 0, 0, 0, 0
        for c in map(json.loads, CALLS.open(encoding="utf-8")):
            call = c["code"][c["code"].index("\n\n  aesop") + 2 :]
            n += 1
            must += name == "satp-v2" and "(by positivity [" in call  # the v4.27 layout has no such host
            try:
                ok += lay.render(lay.parse(call, lemmas[c["id"]], strict=True), lemmas[c["id"]]) == call
            except BadActionError:
                rejected += 1
        out[name] = (ok, rejected, must, n)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--layouts", nargs="+", default=list(LAYOUTS), help="layouts to check (default: all three)"
    )
    args = parser.parse_args(argv)
    unknown = [x for x in args.layouts if x not in LAYOUTS]
    if unknown:
        print(
            f"bench_satp_layouts: unknown layout {unknown[0]!r}; choose from {', '.join(LAYOUTS)}",
            file=sys.stderr,
        )
        return 2
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    print(
        f"# SATP layout conformance  {datetime.date.today()}  commit {commit.stdout.strip() or '?'}  "
        f"load {os.getloadavg()[0]:.2f}  backend: none (layout code only)"
    )
    print(
        f"{'layout':<13}{'vectors':>8}{'verbatim':>10}{'guarded':>14}{'parse':>8}{'uuid16':>8}   median parse µs by kind"
    )
    short = False
    for name in args.layouts:
        c, t = check_layout(name)
        short |= (
            any(c[k] != c["vectors"] for k in ("verbatim", "parse", "uuid16")) or c["guarded"] != c["plain"]
        )
        med = ", ".join(f"{k} {v * 1e6:.0f}" for k, v in sorted(t.items()))
        print(
            f"{name:<13}{c['vectors']:>8}{c['verbatim']:>10}{c['guarded']:>8}/{c['plain']:<5}{c['parse']:>8}"
            f"{c['uuid16']:>8}   {med}"
        )
    for name, (ok, rejected, must, n) in check_calls().items():
        short |= ok != n - must or rejected != must
        print(
            f"SATP's recorded miniF2F-test calls under {name}: {ok}/{n} parsed and rendered back byte for byte, "
            f"{rejected} rejected (positivity [L]: {must})"
        )
    return 1 if short else 0


if __name__ == "__main__":
    raise SystemExit(main())
