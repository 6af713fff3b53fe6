"""Throughput and memory of `lean_gym.buffers.HistoryBuffer` at 100k and 1M generated rows.

Generates a current-schema SATP buffer (about 14 rows per goal like the public one: 75% success-only rows,
20% failure-only rows, 5% stored 1-diff pairs; 8 lemmas per goal), then runs each measurement in a fresh
subprocess so that its peak RSS is its own:

* on the generated public-schema file: load, parsing every arm into action vectors (first access),
  ``pairs()``, ``mine_pairs()`` (and the pair gain), ``sample(256)`` uniform and weighted,
  ``sample_pairs(256)``, then ``buf.save`` to Parquet and JSONL (write rows/s, file size);
* on each written file: ``HistoryBuffer.load`` (rows/s, RSS after the load, peak RSS of the process) and
  the first ``sample(256)`` (no parsing: lean-gym's files carry the action vectors).

Run:  python benchmarks/bench_buffers.py                  (100k and 1M rows, a few minutes on 2 cores)
      python benchmarks/bench_buffers.py --sizes 20000    (a quick look)
Needs pyarrow (the ``parquet`` extra) and psutil.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

VOCAB = [
    f"{ns}.{stem}_{k}"
    for k in range(60)
    for ns, stem in (("Nat", "succ_le"), ("Real", "sq_nonneg"), ("Int", "emod_emod"), ("Finset", "sum_le"))
] + ["sq_nonneg", "mul_pos", "add_pos", "abs_nonneg", "pow_pos", "div_pos", "sub_nonneg", "mul_self_nonneg"]


def rss_mb() -> float:
    import psutil

    return float(psutil.Process().memory_info().rss) / 2**20


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def generate(n: int, path: Path, seed: int = 0) -> dict[str, Any]:
    """Write an n-row current-schema Parquet file; returns what was generated."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lean_gym.aesop import layout, uuid16

    v1 = layout("satp-v1")
    rng = np.random.default_rng(seed)
    n_goals = max(1, n // 14)
    goals = [
        f"x y : ℝ\nh₀ : 0 < x\nh₁ : x ≤ y + {g}\nh₂ : y ^ 2 ≤ {g % 97 + 1}\n⊢ x ^ 2 + y ^ 2 ≥ 2 * x * y - {g}"
        for g in range(n_goals)
    ]
    theorems = [
        f"import Mathlib\n\ntheorem bench_{g} (x y : ℝ) (h₀ : 0 < x) (h₁ : x ≤ y + {g}) "
        f"(h₂ : y ^ 2 ≤ {g % 97 + 1}) : x ^ 2 + y ^ 2 ≥ 2 * x * y - {g} := by"
        for g in range(n_goals)
    ]
    lemmas = [list(rng.choice(VOCAB, size=8, replace=False)) for _ in range(n_goals)]
    scores = [sorted(rng.random(8).tolist(), reverse=True) for _ in range(n_goals)]
    goal_uuid = [uuid16(g) for g in goals]

    # A pool of sparse actions (binary heads mostly at their default), like a policy's samples.
    pool_size = 4096
    pool = np.zeros((pool_size, 40), dtype=np.int64)
    on = rng.random((pool_size, 36)) < 0.12
    pool[:, :36] = np.where(on, rng.integers(1, 5, size=(pool_size, 36)), 0)
    lemma_on = rng.random((pool_size, 8)) < 0.05
    pool[:, 24:32] = np.where(lemma_on, pool[:, 24:32] + (pool[:, 24:32] == 0), 0)
    pool[:, 36:] = (rng.random((pool_size, 4)) > 0.1).astype(np.int64)

    render_cache: dict[tuple[int, bytes], str] = {}

    def text(a: np.ndarray, g: int) -> str:
        lemma_free = not a[24:32].any()
        key = (-1 if lemma_free else g, a.tobytes())
        t = render_cache.get(key)
        if t is None:
            t = render_cache[key] = v1.render(a, () if lemma_free else lemmas[g])
        return t

    # Each goal's rows are perturbations of one "mode" action (0, 1 or 2 heads changed), as a policy's
    # samples around its mode would be; that is what makes 1-diff pairs minable.
    mode = pool[rng.integers(0, pool_size, size=n_goals)]
    ctx = rng.integers(0, n_goals, size=n)
    kind = rng.random(n)
    n_changes = rng.choice([0, 1, 2], p=[0.1, 0.5, 0.4], size=n)
    change_heads = rng.integers(0, 36, size=(n, 3))
    change_steps = rng.integers(1, 5, size=(n, 3))
    good: list[str | None] = []
    bad: list[str | None] = []
    diff: list[int] = []
    for i in range(n):
        g, k = int(ctx[i]), float(kind[i])
        a = mode[g].copy()
        for c in range(int(n_changes[i])):
            h = change_heads[i, c]
            a[h] = (a[h] + change_steps[i, c]) % 5
        t = text(a, g)
        if k < 0.75:
            good.append(t), bad.append(None), diff.append(-1)
        elif k < 0.95:
            good.append(None), bad.append(t), diff.append(-1)
        else:
            h = int(change_heads[i, 2])
            a[h] = (a[h] + change_steps[i, 2]) % 5
            good.append(t), bad.append(text(a, g)), diff.append(h)
    uuid_cache: dict[str, str] = {}

    def uuid_of(t: str | None) -> str | None:
        if t is None:
            return None
        u = uuid_cache.get(t)
        if u is None:
            u = uuid_cache[t] = uuid16(t)
        return u

    idx = pa.array(ctx)
    table = pa.table(
        {
            "context_theorem": pa.array(theorems).take(idx),
            "context_goal_state": pa.array(goals).take(idx),
            "uuid_goal": pa.array(goal_uuid).take(idx),
            "context_lemmas": pa.array(lemmas, type=pa.list_(pa.string())).take(idx),
            "context_lemma_scores": pa.array(scores, type=pa.list_(pa.float64())).take(idx),
            "arm_good_action": pa.array(good, type=pa.string()),
            "uuid_good_action": pa.array([uuid_of(t) for t in good], type=pa.string()),
            "arm_bad_action": pa.array(bad, type=pa.string()),
            "uuid_bad_action": pa.array([uuid_of(t) for t in bad], type=pa.string()),
            "diff_head": pa.array(diff, type=pa.int64()),
        }
    )
    pq.write_table(table, path)
    return {"rows": n, "goals": n_goals}


def child(mode: str, path: str, out: str) -> None:
    """One measurement in this (fresh) process; prints a JSON line.

    ``work``: load the public-schema file ``path``, parse, mine, sample, then write ``out``.parquet and
    ``out``.jsonl. ``load``: load ``path`` (a file lean-gym wrote) and draw the first batch.
    """
    import pyarrow.parquet  # noqa: F401  (its import is not the buffer's memory)

    from lean_gym.buffers import HistoryBuffer

    base = rss_mb()
    t0 = time.perf_counter()
    buf = HistoryBuffer.load(path)
    res: dict[str, Any] = {
        "rows": len(buf),
        "load_s": time.perf_counter() - t0,
        "rss_after_load_mb": rss_mb() - base,
    }
    if mode == "load":
        t0 = time.perf_counter()
        buf.sample(256, seed=0)
        res["first_sample_s"] = time.perf_counter() - t0
    else:
        t0 = time.perf_counter()
        acts = buf.actions
        res["parse_s"] = time.perf_counter() - t0
        res["unparsable"] = int((acts[:, 0] < 0).sum())
        res["stored_pairs"] = len(buf.pairs())
        t0 = time.perf_counter()
        res["mined_pairs"] = len(buf.mine_pairs())
        res["mine_s"] = time.perf_counter() - t0
        for name, kw in (("sample", {}), ("sample_weighted", {"weighted": True})):
            buf.sample(256, seed=0, **kw)  # warm (weights, pair membership)
            rng = np.random.default_rng(0)
            t0 = time.perf_counter()
            for _ in range(200):
                buf.sample(256, seed=rng, **kw)
            res[name + "_per_s"] = 200 / (time.perf_counter() - t0)
        rng = np.random.default_rng(0)
        t0 = time.perf_counter()
        for _ in range(200):
            buf.sample_pairs(256, seed=rng, mined=True)
        res["sample_pairs_per_s"] = 200 / (time.perf_counter() - t0)
        for fmt in ("parquet", "jsonl"):
            t0 = time.perf_counter()
            buf.save(f"{out}.{fmt}")
            res[f"write_{fmt}_s"] = time.perf_counter() - t0
            res[f"file_{fmt}_mb"] = os.path.getsize(f"{out}.{fmt}") / 2**20
    res["peak_mb"] = peak_mb() - base
    print(json.dumps(res))


def run_child(mode: str, path: Path, out: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, __file__, "--child", mode, str(path), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"child {mode} {path} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--child", nargs=3, metavar=("MODE", "PATH", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return
    io_rows = []
    work_rows = []
    with tempfile.TemporaryDirectory(prefix="bench-buffers-") as tmp:
        for n in args.sizes:
            src = Path(tmp) / f"src-{n}.parquet"
            t0 = time.perf_counter()
            info = generate(n, src)
            print(
                f"generated {n:,} rows over {info['goals']:,} goals in {time.perf_counter() - t0:.1f}s",
                flush=True,
            )
            out = Path(tmp) / f"out-{n}"
            work = run_child("work", src, out)
            work_rows.append((n, work))
            print("  public-schema file: loaded, parsed, mined, sampled, written", flush=True)
            for fmt in ("parquet", "jsonl"):
                r = run_child("load", Path(f"{out}.{fmt}"), src)
                io_rows.append(
                    (n, fmt, work[f"file_{fmt}_mb"], n / work[f"write_{fmt}_s"], n / r["load_s"], r)
                )
                print(f"  {fmt}: loaded", flush=True)
            for f in Path(tmp).iterdir():
                f.unlink()
    print()
    print("Files lean-gym writes (current schema + action vectors). write: save(); load: load() in a fresh")
    print("process, then the first sample(256); memory: RSS growth over the process's baseline")
    print(
        f"{'rows':>9} {'format':>7} {'file MB':>8} {'write rows/s':>13} {'load rows/s':>12} {'load s':>7} "
        f"{'1st batch s':>11} {'RSS MB':>7} {'peak MB':>8}"
    )
    for n, fmt, mb, wps, lps, r in io_rows:
        print(
            f"{n:>9,} {fmt:>7} {mb:>8.1f} {wps:>13,.0f} {lps:>12,.0f} {r['load_s']:>7.2f} "
            f"{r['first_sample_s']:>11.3f} {r['rss_after_load_mb']:>7.0f} {r['peak_mb']:>8.0f}"
        )
    print()
    print("A public-schema Parquet file (no action vectors): load, first parse of every arm, pairs, sampling")
    print("(200 batches of 256; b/s = batches per second)")
    print(
        f"{'rows':>9} {'load s':>7} {'parse s':>8} {'stored':>7} {'mined':>8} {'gain':>6} {'mine s':>7} "
        f"{'uniform b/s':>12} {'weighted b/s':>13} {'pairs b/s':>10} {'peak MB':>8}"
    )
    for n, k in work_rows:
        gain = k["mined_pairs"] / max(k["stored_pairs"], 1)
        print(
            f"{n:>9,} {k['load_s']:>7.2f} {k['parse_s']:>8.2f} {k['stored_pairs']:>7,} {k['mined_pairs']:>8,} "
            f"{gain:>6.2f} {k['mine_s']:>7.2f} {k['sample_per_s']:>12,.0f} {k['sample_weighted_per_s']:>13,.0f} "
            f"{k['sample_pairs_per_s']:>10,.0f} {k['peak_mb']:>8.0f}"
        )


if __name__ == "__main__":
    main()
