"""Three simulator workloads where RL spends its time, timed in one process (issue 22).

* ``aesop``: ``LeanAesop-v0`` (satp-v1, in-process ``SimBackend``, verdict cache off) on the test split,
  ``--steps`` uniformly random actions, each on a random goal; one figure per step. ``--again`` times a
  second pass over the same steps in the same process, where every answer is in the memo tables: what the
  tables cannot take away (parsing, the search's own bookkeeping, replays).
* ``calib``: the 192-config calibration of ``bench_sim_calibration.py`` (plain aesop, the stored static
  config and 192 seeded random actions) on the first ``--goals`` goals of the test split, one process, the
  same checks in the same order; one figure per goal (194 checks).
* ``proof``: ``LeanProof-v0`` (in-process ``SimBackend``, verdict cache off) on the test split with a fixed
  mix of tactic proofs (``linarith``, ``nlinarith``, ``simp``, ``norm_num``, ``omega``, ``aesop``,
  combinators, multi-line proofs); one figure per step.

It reads only the public API, so it can time an older tree: ``PYTHONPATH=<tree> python
bench_sim_workloads.py`` (``bench_sim_speed_vs.py`` does that). ``--json`` prints the per-item seconds and a
digest of every verdict (so two trees can be checked to agree) as one JSON object; ``--profile`` prints the
top of a cProfile instead. ``--phases`` (aesop, this tree's pure-Python simulator only: it wraps internal
functions) prints where a step's CPU time goes: the backend, the REPL request, the declaration, the parse of
the tactic block and of the aesop call, the rules built, the search and the safe prefix, and the rules and
normalisations run afresh inside them, each at its outermost call, for the median band of steps (45th to
55th percentile) and for all of them. Every figure comes from the simulator (backend ``sim``), not from Lean.

Usage::

    python benchmarks/bench_sim_workloads.py aesop [--steps 400] [--profile K] [--again] [--phases]
    python benchmarks/bench_sim_workloads.py calib [--goals 300]
    python benchmarks/bench_sim_workloads.py proof [--steps 600]
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import json
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

if "PYTHONPATH" not in os.environ:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# A fixed tactic mix for LeanProof-v0: what a policy writes (closers, hints, combinators, multi-line
# blocks, failures). Names that a goal lacks are errors, as they would be on Lean.
PROOF_MIX = (
    "linarith",
    "nlinarith [sq_nonneg (a - b), sq_nonneg (a + b)]",
    "nlinarith [h₀, h₁]",
    "positivity",
    "norm_num",
    "norm_num [h₀] at *",
    "simp",
    "simp_all",
    "omega",
    "decide",
    "ring_nf",
    "aesop",
    "first | linarith | nlinarith | positivity",
    "constructor <;> linarith",
    "intro h\n  linarith",
    "have h := h₀\n  linarith",
    "rcases h₀ with ⟨a, b⟩\n  simp_all",
    "field_simp\n  ring",
    "norm_num at h₀ ⊢\n  linarith",
    "try simp at *\n  omega",
)


_clock = time.perf_counter


def _digest(parts: list[str]) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode("utf-8", "surrogatepass"))
        h.update(b"\x00")
    return h.hexdigest()[:16]


def _verdict(r: object) -> str:
    msgs = getattr(r, "messages", ())
    return getattr(r, "status", "?") + "|" + "|".join(getattr(m, "data", str(m)) for m in msgs)


_STEP_PHASES: list[dict[str, float]] = []  # --phases: the accumulator, emptied before each aesop step
_STEP_ROWS: list[dict[str, float]] = []  # --phases: each timed step's phases


def workload_aesop(steps: int, seed: int, again: bool = False) -> tuple[list[float], list[str]]:
    from lean_gym.backends.sim import SimBackend
    from lean_gym.envs.aesop_env import LeanAesopEnv

    # the synthetic test split, named: LeanAesop-v0's default set changed (issue 21), and a comparison with an
    # older tree must time both on the same goals
    env = LeanAesopEnv(backend=SimBackend(), source="sim", split="test", cache_size=0)

    def one_pass() -> tuple[list[float], list[str]]:
        env.action_space.seed(seed)
        rng = np.random.default_rng(seed)
        times: list[float] = []
        verdicts: list[str] = []
        _STEP_ROWS.clear()
        for _ in range(steps):
            env.reset(options={"index": int(rng.integers(len(env.theorems)))})
            a = env.action_space.sample()
            for acc in _STEP_PHASES:
                acc.clear()
            t0 = _clock()
            _, _, _, _, info = env.step(a)
            times.append(_clock() - t0)
            for acc in _STEP_PHASES:
                _STEP_ROWS.append(dict(acc))
            verdicts.append(info["status"] + "|" + str(info["messages"]))
        return times, verdicts

    if again:  # the same steps once untimed: the timed pass finds every answer in the memo tables
        one_pass()
    return one_pass()


def _calib_env(goals: int, first: int) -> tuple[Any, np.ndarray]:
    """``LeanAesop-v0`` as the calibration builds it, on test goals ``first .. first + goals``, and its actions
    (plain aesop, the stored static config, 192 seeded random configs)."""
    from lean_gym.aesop import best_static_action
    from lean_gym.aesop import layout as get_layout
    from lean_gym.backends.sim import SimBackend
    from lean_gym.envs.aesop_env import LeanAesopEnv

    env = LeanAesopEnv(backend=SimBackend(), source="sim", split="test", cache_size=0, max_heartbeats=200_000)
    env.theorems = env.theorems[first : first + goals]
    lay = get_layout("satp-v1")
    rng = np.random.default_rng(0)
    randoms = rng.integers(0, np.asarray(lay.nvec), size=(192, len(lay.nvec)))
    actions = np.concatenate([lay.default_action()[None], best_static_action("satp-v1")[None], randoms])
    return env, actions


def workload_calib(goals: int, seed: int, first: int = 0) -> tuple[list[float], list[str]]:
    # the checks of bench_sim_calibration.py (its _init and _goal_row, restated here so that an older tree is
    # timed with its own simulator: that script puts its own tree first on sys.path)
    env, actions = _calib_env(goals, first)
    times: list[float] = []
    verdicts: list[str] = []
    for i in range(len(env.theorems)):
        t0 = _clock()
        env.reset(options={"index": i})
        thm = env.theorems[i]
        parsed = env.backend.check(thm.formal_statement + "  sorry\n", header=thm.header).status == "sorry"
        seen: dict[str, bool] = {}
        row = []
        for a in actions:
            p = env.prepare(a)
            if p.code not in seen:
                seen[p.code] = env.backend.check(p.code, header=p.header).status == "proved"
            row.append(seen[p.code])
        times.append(_clock() - t0)
        verdicts.append(("P" if parsed else "-") + "".join("1" if v else "0" for v in row))
    return times, verdicts


def workload_calib_observe(goals: int, seed: int, first: int = 0) -> tuple[list[float], list[str]]:
    """The calibration's checks through the simulator's command layer, observing everything a check
    produces: every message (text and position), every sorry, the heartbeats each declaration used. Run it
    with ``LEAN_GYM_SIM_CACHE=0`` and without: the digests must be equal (this tree only)."""
    from lean_gym.sim.commands import run_commands
    from lean_gym.sim.elab import Env
    from lean_gym.sim.memo import request
    from lean_gym.sim.tactics import heartbeat_cap

    env, actions = _calib_env(goals, first)
    headers: dict[str, Any] = {}
    times: list[float] = []
    verdicts: list[str] = []
    for i in range(len(env.theorems)):
        t0 = _clock()
        env.reset(options={"index": i})
        seen: set[str] = set()
        for a in actions:
            p = env.prepare(a)
            if p.code in seen:
                continue
            seen.add(p.code)
            with heartbeat_cap(400_000), request():
                h = headers.get(p.header)
                if h is None:
                    h = headers[p.header] = run_commands(p.header, Env(), True).env
                out = run_commands(p.code, h, False)
            verdicts.append(
                repr(
                    (
                        [(m.severity, m.start, m.end, m.data) for m in out.messages],
                        [(g.pretty(), s, e, d) for g, s, e, d in out.sorries],
                        out.heartbeats,
                    )
                )
            )
        times.append(_clock() - t0)
    return times, verdicts


def workload_proof(steps: int, seed: int) -> tuple[list[float], list[str]]:
    from lean_gym.backends.sim import SimBackend
    from lean_gym.envs.proof_env import LeanProofEnv

    env = LeanProofEnv(backend=SimBackend(), split="test", cache_size=0)
    rng = np.random.default_rng(seed)
    times: list[float] = []
    verdicts: list[str] = []
    for k in range(steps):
        env.reset(options={"index": int(rng.integers(len(env.theorems)))})
        action = "  " + PROOF_MIX[k % len(PROOF_MIX)]
        t0 = _clock()
        _, _, _, _, info = env.step(action)
        times.append(_clock() - t0)
        verdicts.append(f"{info['status']}|{info['accepted']}|{info['hack_class']}|{info['messages']}")
    return times, verdicts


def _count_lookups() -> dict[str, list[int]]:
    """Count, per memo table, the lookups and those that repeat a key already asked in the same check
    (request): wraps this tree's ``Memo.get`` and the end of a request (this tree only)."""
    from lean_gym.sim import memo

    counts: dict[str, list[int]] = {}
    seen: set[tuple[str, Any]] = set()
    get, end = memo.Memo.get, memo.clear_request_scoped

    def counting_get(self: Any, key: Any) -> Any:
        c = counts.setdefault(self.name, [0, 0])
        c[0] += 1
        if (self.name, key) in seen:
            c[1] += 1
        else:
            seen.add((self.name, key))
        return get(self, key)

    def counting_end() -> None:
        seen.clear()
        end()

    memo.Memo.get = counting_get  # type: ignore[method-assign]
    memo.clear_request_scoped = counting_end
    return counts


WORKLOADS: dict[str, Callable[..., tuple[list[float], list[str]]]] = {
    "aesop": workload_aesop,
    "calib": workload_calib,
    "calib-observe": workload_calib_observe,
    "proof": workload_proof,
}


# --phases: where a step's time goes, by phase (this tree's pure-Python simulator only: it wraps internal
# functions, which a compiled build calls directly and an older tree may not have). Each phase is timed at its
# outermost call only (bound's own aesop call runs inside the search), with the process's CPU clock.
_PHASES = (
    # (label, module, attribute, method of): what the step spends there
    ("backend check", "lean_gym.backends.sim", "check", "SimBackend"),
    ("REPL request", "lean_gym.sim.repl", "handle", "SimRepl"),
    ("declaration", "lean_gym.sim.commands", "declaration", "_Runner"),
    ("tactic block parse", "lean_gym.sim.tactics", "parse_block", None),
    ("aesop call parse", "lean_gym.sim.aesop", "parse_cached", None),
    ("aesop rules built", "lean_gym.sim.aesop", "elab_rules", None),
    ("search", "lean_gym.sim.aesop_search", "run", "Search"),
    ("safe prefix after a failure", "lean_gym.sim.aesop_search", "expand_safe_prefix", "Search"),
    ("  rules run afresh (memo misses)", "lean_gym.sim.aesop_apply", "_run_sub_plain", None),
    ("  normalisations run afresh", "lean_gym.sim.aesop_search", "_norm_run", "Search"),
)


def _instrument_phases() -> dict[str, float]:
    """Wrap each of :data:`_PHASES` to add its outermost calls' CPU time to the returned dict (emptied before
    each aesop step, copied after it)."""
    import importlib

    import lean_gym.sim

    if getattr(lean_gym.sim, "compiled", lambda: False)():
        raise SystemExit("--phases times the pure-Python simulator only: run `make clean-compiled` first")
    acc: dict[str, float] = {}
    clock = time.process_time
    for label, modname, attr, owner_name in _PHASES:
        mod = importlib.import_module(modname)
        owner = getattr(mod, owner_name) if owner_name else mod
        fn = getattr(owner, attr)
        depth = [0]

        def wrapped(*a: Any, _fn: Any = fn, _label: str = label, _depth: list[int] = depth, **k: Any) -> Any:
            if _depth[0]:
                return _fn(*a, **k)
            _depth[0] += 1
            t0 = clock()
            try:
                return _fn(*a, **k)
            finally:
                _depth[0] -= 1
                acc[_label] = acc.get(_label, 0.0) + clock() - t0

        setattr(owner, attr, wrapped)
    _STEP_PHASES.append(acc)
    return acc


def _print_phases(rows: list[tuple[float, dict[str, float]]]) -> None:
    """Per phase, the mean CPU time of the median band's steps (45th to 55th percentile) and of all steps."""
    rows = sorted(rows, key=lambda r: r[0])
    n = len(rows)
    band = rows[int(0.45 * n) : max(int(0.55 * n), int(0.45 * n) + 1)]

    def mean(rs: list[tuple[float, dict[str, float]]], key: str | None) -> float:
        return 1000 * statistics.mean(t if key is None else d.get(key, 0.0) for t, d in rs)

    print(
        f"phases (CPU ms per step; the median band is the {len(band)} steps from the 45th to the 55th percentile)"
    )
    print(f"  {'phase':34s} {'median band':>11s} {'all steps':>10s}")
    print(f"  {'step':34s} {mean(band, None):11.3f} {mean(rows, None):10.3f}")
    for label, *_ in _PHASES:
        print(f"  {label:34s} {mean(band, label):11.3f} {mean(rows, label):10.3f}")
    floor: list[tuple[float, dict[str, float]]] = [
        (t - d.get("search", 0.0) - d.get("safe prefix after a failure", 0.0), {}) for t, d in band
    ]
    print(f"  {'step less search and safe prefix':34s} {mean(floor, None):11.3f}")


def _args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("workload", choices=sorted(WORKLOADS))
    ap.add_argument("--steps", type=int, default=0, help="aesop/proof: steps (default 400 / 600)")
    ap.add_argument("--goals", type=int, default=300, help="calib: N test goals")
    ap.add_argument("--first", type=int, default=0, help="calib: from this test goal on")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print per-item seconds and a verdict digest")
    ap.add_argument("--profile", type=int, default=0, metavar="K", help="print the top K of a cProfile")
    ap.add_argument("--dump", default="", help="write every verdict, one a line, to this file")
    ap.add_argument("--cpu", action="store_true", help="time with the process's CPU clock (a loaded machine)")
    ap.add_argument(
        "--again",
        action="store_true",
        help="aesop: time a second pass over the same steps (every answer memoised: the tables' floor)",
    )
    ap.add_argument(
        "--phases",
        action="store_true",
        help="aesop: print where the steps' CPU time goes, by phase (pure-Python simulator of this tree only)",
    )
    ap.add_argument(
        "--lookups",
        action="store_true",
        help="print, per memo table, how many lookups repeat one made earlier in the same check (the counting "
        "slows the run: read no time from it)",
    )
    args = ap.parse_args()
    for flag in ("again", "phases"):
        if getattr(args, flag) and args.workload != "aesop":
            ap.error(f"--{flag} is for the aesop workload")
    return args


def main() -> None:
    args = _args()
    global _clock
    if args.cpu or args.phases:  # phases are timed with the CPU clock: the step too
        _clock = time.process_time
    calib = args.workload.startswith("calib")
    n = args.goals if calib else (args.steps or (6000 if args.workload == "aesop" else 600))
    fn = WORKLOADS[args.workload]
    prof = cProfile.Profile() if args.profile else None
    t0 = _clock()
    if prof is not None:
        prof.enable()
    lookups = _count_lookups() if args.lookups else None
    phases = _instrument_phases() if args.phases else None
    if calib:
        times, verdicts = fn(n, args.seed, args.first)
    elif args.again:
        times, verdicts = fn(n, args.seed, True)
    else:
        times, verdicts = fn(n, args.seed)
    if prof is not None:
        prof.disable()
    wall = _clock() - t0
    if args.dump:
        Path(args.dump).write_text("".join(v.replace("\n", "\\n") + "\n" for v in verdicts), encoding="utf-8")
    import lean_gym
    import lean_gym.sim

    tree = str(Path(lean_gym.__file__).resolve().parents[1])
    # `make compile-sim`'s build or the pure-Python simulator (an older tree has no `compiled`: pure)
    build = "compiled" if getattr(lean_gym.sim, "compiled", lambda: False)() else "pure"
    if args.json:
        print(
            json.dumps(
                {"times": times, "digest": _digest(verdicts), "wall": wall, "tree": tree, "build": build}
            )
        )
        return
    t = np.array(times)
    print(
        f"{args.workload}: n={len(t)} total {t.sum():.2f} s, median {1000 * statistics.median(times):.2f} ms, "
        f"mean {1000 * t.mean():.2f} ms, p90 {1000 * np.percentile(t, 90):.2f} ms "
        f"(verdict digest {_digest(verdicts)}; backend sim; {build} simulator of {tree})"
    )
    if lookups is not None:
        for name, (asked, again) in sorted(lookups.items()):
            print(
                f"  {name}: {asked} lookups, {again} ({100 * again / max(asked, 1):.0f}%) repeat one of the same check"
            )
    if phases is not None:
        _print_phases(list(zip(times, _STEP_ROWS)))
    if prof is not None:
        for key in ("tottime", "cumulative"):
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats(key).print_stats(args.profile)
            print(s.getvalue())


if __name__ == "__main__":
    main()
