"""Calibration of the simulator's aesop: does choosing a config matter the way it does on Lean?

Prints, through ``LeanAesop-v0`` (cache off, ``max_heartbeats`` 200000 as SATP ran its checks), on the
test split of the env's default set (``satp-minif2f``: SATP's 92 Lean-proved miniF2F-test theorems, 46 in
``test``; ``--split all`` for the 92), on the simulator's synthetic test split (``--source sim``, 300 goals)
or on a miniF2F JSONL file:

* plain ``aesop`` (the layout's default action);
* the mean success of a uniformly random action (``--k`` of them, seed ``--seed``);
* the best single config among those random actions;
* the per-goal best of them (oracle);
* the stored best static config (``lean_gym.aesop.best_static_action``, found by coordinate ascent on the
  source's train split; the synthetic split's for a source with none stored, and the line says so),
  evaluated on the same goals;
* on ``satp-minif2f``, SATP's own call for each goal (the one Lean proved it with) through the simulator;
* all of it per family;

beside SATP's published figures on Lean (miniF2F-test, ``lean_gym/conformance/cases/satp/figures.json``):
plain aesop 10.7%, best static config 31.6%, learned policy 37.7%. Issue 10's targets (random ≤ 20%, best
single ≤ 35%, oracle ≥ 45%) were guesses nobody measured on Lean and are retired (issue 21): the figures
fall where the simulator's tactics put them. Only SATP's plain-aesop figure bounds the simulator (it is
never stronger than Lean, so plain aesop through it proves at most 10.7% of miniF2F-test).

Every figure is produced by the simulator (backend ``sim``), not by Lean. Checks are spread over ``--jobs``
processes; identical (goal, rendered call) pairs are checked once per run.

Usage::

    python benchmarks/bench_sim_calibration.py                      # satp-minif2f test split, 192 actions
    python benchmarks/bench_sim_calibration.py --split all           # all of SATP's 92
    python benchmarks/bench_sim_calibration.py --source sim          # the synthetic test split (300)
    python benchmarks/bench_sim_calibration.py --n 60 --k 48         # a quick sample
    python benchmarks/bench_sim_calibration.py --source minif2f --split test   # after `lean-gym data fetch minif2f`
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# ---- the fixed 64-config portfolio of the first calibration, kept for ``bench_sim_speed.py``

HEADS = {
    "abel": 0,
    "push_neg": 1,
    "zify": 2,
    "ring": 3,
    "field_simp": 4,
    "norm_num": 5,
    "norm_cast": 6,
    "gcongr": 7,
    "interval_cases": 8,
    "ext": 9,
    "exfalso": 10,
    "split": 11,
    "linarith": 12,
    "nlinarith": 13,
    "positivity": 14,
    "omega": 15,
    "ring_nf": 16,
    "ring_nf_at": 17,
    "simp": 18,
    "simp_all": 19,
    "field_simp_at": 20,
    "norm_num_at": 21,
    "norm_cast_at": 22,
    "bound": 23,
    "depth": 32,
    "rapps": 33,
    "norm_iters": 34,
    "max_goals": 35,
    "enableSimp": 36,
    "useSimpAll": 37,
    "enableUnfold": 38,
    "useDefaultSimpSet": 39,
}
NVEC = np.array([5] * 36 + [2] * 4)


def default_action() -> np.ndarray:
    a = np.zeros(40, dtype=np.int64)
    a[36:] = 1
    return a


def cfg(**kw: int) -> np.ndarray:
    """A satp-v1 action from head names (``lem3=4`` sets lemma rank 3 to level 4)."""
    a = default_action()
    for k, val in kw.items():
        if k.startswith("lem"):
            a[24 + int(k[3:])] = val
        else:
            a[HEADS[k]] = val
    return a


def portfolio(seed: int = 0) -> list[tuple[str, np.ndarray]]:
    """The fixed set of 64 satp-v1 configs the benchmark evaluates."""
    out: list[tuple[str, np.ndarray]] = [("default", default_action())]
    specialists = {
        "linarith": cfg(linarith=4),
        "nlinarith": cfg(nlinarith=4),
        "positivity": cfg(positivity=4),
        "omega": cfg(omega=4),
        "safe ring": cfg(ring=4),
        "field_simp+ring": cfg(field_simp=4, ring=3),
        "safe norm_cast": cfg(norm_cast=4),
        "norm_cast at *+omega": cfg(norm_cast_at=4, omega=3),
        "norm_cast at *+linarith": cfg(norm_cast_at=4, linarith=3),
        "linarith depth70": cfg(linarith=4, depth=2),
        "linarith depth110 rapps280": cfg(linarith=4, depth=4, rapps=4),
        "linarith -simp": cfg(linarith=4, enableSimp=0),
        "linarith -defaultSimpSet": cfg(linarith=4, useDefaultSimpSet=0),
        "nlinarith+positivity": cfg(nlinarith=4, positivity=3),
        "interval_cases+norm_num at *": cfg(interval_cases=4, norm_num_at=3),
    }
    out.extend(specialists.items())
    out.extend((f"lemma rank {r}", cfg(**{f"lem{r}": 4})) for r in range(8))
    out.append(("lemma ranks 0-1", cfg(lem0=4, lem1=3)))
    rng = np.random.default_rng(seed)
    k = 0
    while len(out) < 64:
        # sparse random arms: 1-3 rule heads on (tactics or lemma ranks), random budgets and switches
        a = default_action()
        for i in rng.choice(32, size=int(rng.integers(1, 4)), replace=False):
            a[i] = rng.integers(1, 5)
        for i in range(32, 36):
            if rng.random() < 0.3:
                a[i] = rng.integers(1, 5)
        for i in range(36, 40):
            if rng.random() < 0.15:
                a[i] = 0
        k += 1
        out.append((f"random {k}", a))
    return out


def render(action: np.ndarray, lemmas: tuple[str, ...]) -> str:
    """The canonical satp-v1 string (``lean_gym.aesop.layout("satp-v1").render``)."""
    from lean_gym.aesop import layout as _layout

    return _layout("satp-v1").render(action, list(lemmas))


def one_line(text: str) -> str:
    """The same call on one line (config fields joined by commas): a workaround while the simulator's tactic
    block parser rejects the canonical multi-line form (see docs/dev/sim-requests.md, item 1)."""
    lines = text.strip("\n").split("\n")
    first = lines[0].strip()
    i = 1
    if first.endswith("(config := {"):
        fields = []
        while lines[i].strip() != "})":
            fields.append(" ".join(lines[i].split()))
            i += 1
        first = first[:-1] + "{ " + ", ".join(fields) + " })"
        i += 1
    return "  " + " ".join([first] + [ln.strip() for ln in lines[i:]])


# ---- the issue-10 calibration

_ENV: Any = None


def _init(source: str, split: str, n: int, max_heartbeats: int) -> None:
    global _ENV
    from lean_gym.backends.sim import SimBackend
    from lean_gym.data import load_theorems
    from lean_gym.envs.aesop_env import LeanAesopEnv

    thms = load_theorems(source, split=None if split == "all" else split)
    _ENV = LeanAesopEnv(backend=SimBackend(), theorems=thms, cache_size=0, max_heartbeats=max_heartbeats)
    if n:
        _ENV.theorems = _ENV.theorems[:n]


def _goal_row(args: tuple[int, np.ndarray]) -> tuple[int, list[bool], bool]:
    """Verdicts of every action on goal ``i`` (and whether its statement elaborates at all)."""
    i, actions = args
    env = _ENV
    seen: dict[str, bool] = {}
    out: list[bool] = []
    env.reset(options={"index": i})
    thm = env.theorems[i]
    parsed = env.backend.check(thm.formal_statement + "  sorry\n", header=thm.header).status == "sorry"
    for a in actions:
        p = env.prepare(a)
        if p.code not in seen:
            seen[p.code] = env.backend.check(p.code, header=p.header).status == "proved"
        out.append(seen[p.code])
    return i, out, parsed


def _satp_figures() -> dict[str, str]:
    """SATP's published figures on Lean (miniF2F-test), from the conformance corpus."""
    import json

    path = (
        Path(__file__).resolve().parents[1] / "lean_gym" / "conformance" / "cases" / "satp" / "figures.json"
    )
    figs = json.loads(path.read_text(encoding="utf-8"))["figures"]
    return {f["name"]: f"{100 * f['rate']:.1f}% ({f['proved']}/{f['of']})" for f in figs if "rate" in f}


def _satp_own_calls(thms: list[Any], max_heartbeats: int) -> list[bool]:
    """Whether the simulator proves each theorem with SATP's own call (``satp_calls.jsonl``, Lean-checked)."""
    import json

    from lean_gym.backends.sim import SimBackend

    path = (
        Path(__file__).resolve().parents[1]
        / "lean_gym"
        / "conformance"
        / "cases"
        / "satp"
        / "satp_calls.jsonl"
    )
    calls = {}
    for text in path.read_text(encoding="utf-8").splitlines():
        case = json.loads(text)
        calls[case["code"].split(None, 2)[1]] = (case["header"], case["code"])
    backend = SimBackend()
    budget = f"set_option maxHeartbeats {max_heartbeats} in\n"
    return [backend.check(budget + calls[t.name][1], header=calls[t.name][0]).proved for t in thms]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--source",
        default="satp-minif2f",
        help="satp-minif2f (the env's default set), sim (the synthetic families) or a miniF2F-format JSONL path",
    )
    ap.add_argument("--split", default="test", help="train, valid, test or all")
    ap.add_argument("--n", type=int, default=0, help="first N goals only (0: all)")
    ap.add_argument("--k", type=int, default=192, help="uniformly random actions (default 192)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--max-heartbeats", type=int, default=200_000)
    ap.add_argument("--save", default="", help="write the verdict matrix and families to this .npz")
    args = ap.parse_args()

    from lean_gym.aesop import best_static_action
    from lean_gym.aesop import layout as get_layout

    _init(args.source, args.split, args.n, args.max_heartbeats)
    thms = _ENV.theorems
    lay = get_layout("satp-v1")
    rng = np.random.default_rng(args.seed)
    randoms = rng.integers(0, np.asarray(lay.nvec), size=(args.k, len(lay.nvec)))
    try:
        static, static_from = best_static_action("satp-v1", args.source), args.source
    except KeyError:
        static, static_from = best_static_action("satp-v1", "sim"), "sim"
    actions = np.concatenate([lay.default_action()[None], static[None], randoms])

    t0 = time.perf_counter()
    jobs = [(i, actions) for i in range(len(thms))]
    if args.jobs > 1:
        ctx = mp.get_context("fork") if "fork" in mp.get_all_start_methods() else mp.get_context()
        init = (args.source, args.split, args.n, args.max_heartbeats)
        with ctx.Pool(args.jobs, initializer=_init, initargs=init) as pool:
            rows = []
            for row in pool.imap_unordered(_goal_row, jobs, chunksize=1):
                rows.append(row)
                if len(rows) % 25 == 0:
                    print(
                        f"  {len(rows)}/{len(jobs)} goals, {time.perf_counter() - t0:.0f}s", file=sys.stderr
                    )
    else:
        rows = [_goal_row(j) for j in jobs]
    elapsed = time.perf_counter() - t0
    rows.sort(key=lambda r: r[0])
    m = np.array([r[1] for r in rows], dtype=bool)  # goals x actions
    parsed = np.array([r[2] for r in rows], dtype=bool)
    plain, stat, rand = m[:, 0], m[:, 1], m[:, 2:]
    rates = rand.mean(axis=0)
    best = int(np.argmax(rates))
    if args.save:
        fam_names = np.array([t.family or "minif2f" for t in thms])
        np.savez_compressed(args.save, verdicts=m, families=fam_names, actions=actions)

    n = len(thms)
    print("Calibration of the simulator's aesop (backend: sim; the simulator, not Lean)")
    print(
        f"source={args.source} split={args.split} goals={n} (statements the simulator elaborates: "
        f"{int(parsed.sum())}) random actions={args.k} seed={args.seed} maxHeartbeats={args.max_heartbeats} "
        f"checks={m.size} elapsed={elapsed:.0f}s ({m.size / elapsed:.0f} checks/s over {args.jobs} processes)"
    )
    satp = _satp_figures()
    shown = f" (of the {int(parsed.sum())} elaborated: {{:.1f}}%)"

    def line(label: str, hits: float, lean: str) -> None:
        el = hits * n / max(int(parsed.sum()), 1)
        print(f"{label:50s} {100 * hits:5.1f}%{shown.format(100 * el)}   {lean}")

    line("plain aesop (default action):", float(plain.mean()), f"Lean (SATP): {satp['plain_aesop']}")
    line("uniformly random action (mean):", float(rand.mean()), "Lean: not published")
    line(
        f"best single of the {args.k} random (#{best}):",
        float(rates[best]),
        f"Lean (SATP, distilled static): {satp['best_static']}",
    )
    line(
        f"per-goal best of the {args.k} (oracle):",
        float(rand.any(axis=1).mean()),
        f"Lean (SATP, learned policy): {satp['policy']}",
    )
    line(
        f"best static config (stored, {static_from} train):",
        float(stat.mean()),
        f"Lean (SATP, distilled static): {satp['best_static']}",
    )
    if args.source == "satp-minif2f":
        own = _satp_own_calls(thms, args.max_heartbeats)
        line("SATP's own call for each goal:", float(np.mean(own)), f"Lean: {len(own)}/{len(own)} (100%)")
        print(
            "(SATP's three figures are over all 244 of miniF2F-test; on SATP's 92, Lean proved every one with "
            "SATP's own per-goal call: Lean's per-goal best on any split of them is 100%)"
        )
    print(f"oracle - best single: {100 * (rand.any(axis=1).mean() - rates[best]):.1f} points")

    fams: dict[str, list[int]] = defaultdict(list)
    for i, t in enumerate(thms):
        fams[t.family or "minif2f"].append(i)
    if len(fams) > 1 or "minif2f" not in fams:
        print(
            f"\n{'family':16s} {'n':>4s} {'plain':>6s} {'random':>7s} {'best1':>6s} {'oracle':>7s} {'static':>7s}"
        )
        for fam, idx in fams.items():
            sub = rand[idx]
            print(
                f"{fam:16s} {len(idx):4d} {100 * plain[idx].mean():5.1f}% {100 * sub.mean():6.1f}% "
                f"{100 * sub[:, best].mean():5.1f}% {100 * sub.any(axis=1).mean():6.1f}% {100 * stat[idx].mean():6.1f}%"
            )
        print("(best1: the overall best single random action, per family)")


if __name__ == "__main__":
    main()
