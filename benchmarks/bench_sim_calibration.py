"""Calibration of the simulator's aesop against SATP's real-Lean shape (issue 3): do configs matter?

Prints, on the simulator's test split (``lean_gym.data.load_theorems("sim", split="test")``):

* plain ``aesop`` (the all-default satp-v1 action): target 5–20% proved (SATP on miniF2F-test: 10.7%);
* the per-goal best of a FIXED portfolio of 64 satp-v1 configs: target ≥ 45% (SATP's learned policy: 37.7%);
* the best single config of that portfolio: target ≤ 35% (SATP's distilled static config: 31.6%);
* per-family rates, and for reference two "everything on" configs that are NOT in the portfolio.

The portfolio is fixed and documented (``portfolio()``): the all-default action, 24 one-idea specialists
(a tactic, a lemma rank, a budget or simp switch, as a bandit would keep them) and 39 sparse random arms
(seed 0): one to three rule heads on, random budget levels and switches, like the exploratory arms of SATP's
replay buffer. Richer configs are reported separately ("REF" lines) and are NOT part of the portfolio.

Every figure is produced by the simulator (backend ``sim``), not by Lean.

Usage::

    python benchmarks/bench_sim_calibration.py [--n 300] [--split test]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lean_gym.backends.sim import SimBackend
from lean_gym.data import load_theorems, theorem_with_proof

try:
    from lean_gym.aesop import layout as _layout
except ImportError:  # pragma: no cover - the layout package is part of the tree
    _layout = None  # type: ignore[assignment]

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


def reference_configs() -> list[tuple[str, np.ndarray]]:
    """Two 'everything on' configs, reported for transparency (not part of the portfolio)."""
    big = dict(
        linarith=4,
        nlinarith=3,
        positivity=3,
        omega=3,
        ring_nf=2,
        interval_cases=1,
        norm_cast_at=2,
        ring=2,
        field_simp=1,
        norm_cast=1,
        depth=4,
        rapps=4,
    )
    return [
        ("REF all tactics on", cfg(**big)),
        ("REF all tactics + all lemma ranks", cfg(**big, **{f"lem{r}": 2 for r in range(8)})),
    ]


def render(action: np.ndarray, lemmas: tuple[str, ...]) -> str:
    """The canonical satp-v1 string (``lean_gym.aesop.layout("satp-v1").render``)."""
    if _layout is None:
        raise SystemExit("lean_gym.aesop is missing: the benchmark needs layout('satp-v1')")
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=300, help="theorems of the split to use (default 300)")
    ap.add_argument("--split", default="test")
    ap.add_argument(
        "--no-reference", action="store_true", help="skip the two everything-on reference configs"
    )
    args = ap.parse_args()
    thms = load_theorems("sim", split=args.split, limit=args.n)
    backend = SimBackend()
    configs = portfolio()
    refs = [] if args.no_reference else reference_configs()

    # does the simulator accept the canonical multi-line form?
    probe = render(cfg(linarith=4, depth=1), thms[0].context_lemmas)
    r = backend.check(theorem_with_proof(thms[0], probe), header=thms[0].header)
    multiline_ok = not any("unexpected token" in m.data for m in r.messages)
    fmt = (lambda s: s) if multiline_ok else one_line

    t0 = time.perf_counter()
    proved: dict[str, np.ndarray] = {}
    for name, action in [*configs, *refs]:
        row = np.zeros(len(thms), dtype=bool)
        for i, thm in enumerate(thms):
            code = theorem_with_proof(thm, fmt(render(action, thm.context_lemmas)))
            row[i] = backend.check(code, header=thm.header).proved
        proved[name] = row
    elapsed = time.perf_counter() - t0

    names = [n for n, _ in configs]
    mat = np.stack([proved[n] for n in names])
    plain = proved["default"].mean()
    oracle = mat.any(axis=0).mean()
    rates = mat.mean(axis=1)
    best = int(np.argmax(rates))
    print("Calibration of the aesop simulator (backend: sim; simulator, not Lean)")
    print(
        f"split={args.split} theorems={len(thms)} portfolio={len(configs)} satp-v1 configs "
        f"checks={len(thms) * (len(configs) + len(refs))} elapsed={elapsed:.1f}s"
    )
    print(
        f"config rendering: {'canonical multi-line' if multiline_ok else 'one line (simulator rejects the multi-line form)'}"
    )
    print(f"plain aesop (all-default action):        {100 * plain:5.1f}%   target 5-20%")
    print(f"per-goal best of the {len(configs)} configs:          {100 * oracle:5.1f}%   target >= 45%")
    print(f"best single config ({names[best]}): {100 * rates[best]:5.1f}%   target <= 35%")
    top = np.argsort(-rates)[:5]
    print("top single configs: " + ", ".join(f"{names[i]} {100 * rates[i]:.1f}%" for i in top))
    for name, _ in refs:
        print(f"{name} (not in the portfolio): {100 * proved[name].mean():5.1f}%")
    fams = defaultdict(list)
    for i, t in enumerate(thms):
        fams[t.family].append(i)
    print(
        f"\n{'family':10s} {'n':>4s} {'plain':>6s} {'oracle':>7s} {'best1':>6s}  best config for the family"
    )
    for fam, idx in fams.items():
        sub = mat[:, idx]
        fr = sub.mean(axis=1)
        j = int(np.argmax(fr))
        print(
            f"{fam:10s} {len(idx):4d} {100 * proved['default'][idx].mean():5.1f}% {100 * sub.any(axis=0).mean():6.1f}% "
            f"{100 * rates[best] if False else 100 * sub[best].mean():5.1f}%  {names[j]} ({100 * fr[j]:.0f}%)"
        )


if __name__ == "__main__":
    main()
