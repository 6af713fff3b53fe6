"""SATP's loop end to end on ``LeanAesop-v0``: Thompson + anchor perturbation → buffer → DPO policy → test.

1. **Collect** on the train split: the SATP Thompson sampler (:class:`lean_gym_agents.SATPThompson`) plays
   ``tries_per_goal × (train goals)`` steps on a pooled vector env (goals drawn at random by the env, so a
   goal gets that many tries on average), every try recorded by ``RecordVectorToBuffer``; the recorded tries
   are then paired up (1-diff pairs share a public-schema record with ``diff_head``) and saved.
2. **Best static config**: a greedy search over heads on (a subset of) the train split: one pass of
   coordinate ascent from plain ``aesop``, each head set to its best level if that proves more
   (``lean_gym.aesop.search_best_static`` when the package has it; for the ``sim`` suite the action stored
   by that search over the whole train split, ``best_static_action``, when present).
3. **Train** the DPO policy on the buffer (BC on successes, DPO at ``diff_head``, NL on unpaired failures).
4. **Evaluate** on the test split and print the table: plain ``aesop``, a uniformly random config, the best
   static config, the DPO policy greedy (one try each); 8 tries of the default config, 8 uniformly random
   tries, and the Thompson sampler with 8 tries per goal (it goes on learning from its test tries).

Samplers (``--sampler``): ``beta``, the SATP Thompson sampler over (head, level) Beta posteriors (the
default); ``dropout``, :class:`lean_gym_agents.DropoutThompson`: SATP's own exploration, its policy shape
(``satp_args()``: theorem-form prompt, shared MLP, per-head dropout, calibrated lemma heads; here over the byte
encoder, since no checkpoint is downloaded) sampled with its dropout on and trained on its tries as it
collects, with the same anchor perturbation; ``both`` runs each from the same start and prints a comparison
(the dropout sampler's files go under ``<out>/<suite>/dropout/``). Every sampler's buffer trains the same DPO
policy, so its "DPO policy, greedy" row measures the buffer.

Suites: ``satp`` (the default: ``LeanAesop-v0``'s default set, SATP's 92 Lean-proved miniF2F-test
theorems, ``satp-minif2f``, trained on its 46-theorem train split and tested on its 46-theorem test split),
``sim`` (the simulator's synthetic train/test split), ``minif2f`` (train on the simulator's train split
plus miniF2F-valid, test on miniF2F-test, all through the simulator; the full miniF2F comes from
``lean-gym data fetch minif2f``, or pass ``--minif2f minif2f-sample`` for the 8 rows that ship) and
``both`` (``sim`` then ``minif2f``). Every figure is the simulator's verdict, not Lean's; on the ``satp``
suite SATP's figures on Lean are printed beside them.

Run:
    python examples/satp_loop.py --sampler both              # the default set, each sampler
    python examples/satp_loop.py --suite both                # the synthetic and miniF2F suites
    python examples/satp_loop.py --suite sim --quick         # a tiny budget (what the test runs)
    python examples/satp_loop.py --suite sim --sampler both  # Beta posteriors vs dropout Thompson sampling
    python examples/satp_loop.py --sampler dropout --encoder kaiyuy/leandojo-lean4-retriever-byt5-small
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import gymnasium as gym
import numpy as np

import lean_gym  # noqa: F401  (registers the env ids)
from lean_gym.buffers import HistoryBuffer, RecordVectorToBuffer
from lean_gym.data import Theorem, load_theorems, satp_lean_figures
from lean_gym.envs.aesop_env import DEFAULT_SOURCE
from lean_gym.errors import LeanGymError
from lean_gym_agents import (
    FixedActionAgent,
    SATPThompson,
    SATPThompsonArgs,
    Transitions,
    UniformRandomAgent,
    pair_up,
    run_agent,
)
from lean_gym_agents.run import UsageError, parse_flags


@dataclass
class LoopArgs:
    """SATP's loop end to end on LeanAesop-v0: Thompson + anchor perturbation, buffer, DPO policy, test (every
    figure is the simulator's verdict, not Lean's)."""

    suite: Literal["satp", "sim", "minif2f", "both"] = "satp"
    """``satp`` (the env's default set, SATP's 92), ``sim`` (synthetic families), ``minif2f`` or ``both``
    (``sim`` then ``minif2f``)."""
    minif2f: str = "minif2f"
    """The miniF2F source: ``minif2f`` (the full file, after ``lean-gym data fetch minif2f``),
    ``minif2f-sample`` (8 rows that ship with lean-gym) or a path to a miniF2F-format JSONL."""
    tries_per_goal: int = 8
    """Collection budget: this many steps per train goal, on average."""
    eval_tries: int = 8
    """Tries per test goal for the multi-try rows."""
    dpo_steps: int = 600
    """DPO policy optimiser steps."""
    ref_warmup_steps: int = 200
    """BC-only steps before the DPO reference is frozen."""
    d_model: int = 64
    """Width of the DPO policy (and of the dropout sampler's policy)."""
    static_goals: int = 48
    """Train goals the best-static search scores configs on."""
    num_envs: int = 8
    """Sub-environments of the pooled vector env that collects."""
    limit: int | None = None
    """Theorems per split (None: all)."""
    seed: int = 0
    """Seeds the samplers, the policies and the envs."""
    out: str = "runs/satp_loop"
    """Where each suite's files go (``<out>/<suite>/``)."""
    progress: bool = True
    """Show progress bars."""
    sampler: Literal["beta", "dropout", "both"] = "beta"
    """Who collects (and plays the multi-try test row): ``beta`` (SATPThompson's Beta posteriors),
    ``dropout`` (DropoutThompson: SATP's shape sampled with its dropout on, trained as it collects) or
    ``both`` (each in turn, from the same start, and a comparison)."""
    dropout_train_every: int = 256
    """Dropout sampler: train its policy after every this many tries."""
    dropout_steps_per_round: int = 32
    """Dropout sampler: optimiser steps per training round."""
    encoder: str = ""
    """Dropout sampler: a Hugging Face encoder with SATP's LoRA (``kaiyuy/leandojo-lean4-retriever-byt5-small``,
    SATP's; downloads it) instead of the byte encoder."""
    torch_threads: int = 1
    """CPU threads for torch (a small model gains little from more, and loses much on a busy machine)."""
    quick: bool = False
    """A tiny budget: 8 goals per split, a few steps (what the test runs)."""


# ------------------------------------------------------------------------------------------------ helpers
def _theorems(args: LoopArgs, suite: str) -> tuple[list[Theorem], list[Theorem]]:
    lim = args.limit
    if suite == "satp":
        return (
            load_theorems(DEFAULT_SOURCE, split="train", limit=lim),
            load_theorems(DEFAULT_SOURCE, split="test", limit=lim),
        )
    train = load_theorems("sim", split="train", limit=lim)
    if suite == "sim":
        return train, load_theorems("sim", split="test", limit=lim)
    train = train + load_theorems(args.minif2f, split="valid", limit=lim)
    return train, load_theorems(args.minif2f, split="test", limit=lim)


def evaluate(
    env: gym.Env[Any, Any],
    agent: Any,
    tries: int,
    *,
    explore: bool,
    learn: bool = False,
    progress: bool = False,
    desc: str = "",
) -> float:
    """Fraction of the env's theorems proved within ``tries`` tries (each try a fresh one-step episode)."""
    n = len(env.unwrapped.theorems)  # type: ignore[attr-defined]
    proved = 0
    it: Any = range(n)
    if progress:
        from tqdm.auto import tqdm

        it = tqdm(it, desc=desc, leave=False, mininterval=0.5)
    for i in it:
        for _ in range(tries):
            obs, _ = env.reset(options={"index": i})
            action = agent.act([obs], explore=explore)[0]
            _, reward, term, trunc, info = env.step(action)
            if learn:
                agent.update(
                    Transitions(
                        [obs],
                        [action],
                        np.array([float(reward)]),
                        np.array([term]),
                        np.array([trunc]),
                        [info],
                    )
                )
            if float(reward) > 0:
                proved += 1
                break
    return proved / n if n else 0.0


def _score(env: gym.Env[Any, Any], action: np.ndarray, indices: Sequence[int], need: int) -> int:
    """Goals among ``indices`` that ``action`` proves; stops early once it cannot reach ``need``."""
    ok = 0
    for k, i in enumerate(indices):
        env.reset(options={"index": int(i)})
        ok += float(env.step(action)[1]) > 0
        if ok + (len(indices) - k - 1) < need:
            return ok
    return ok


def best_static_config(env: gym.Env[Any, Any], indices: Sequence[int], progress: bool = False) -> np.ndarray:
    """One pass of coordinate ascent over heads from plain ``aesop``, scored on the train goals ``indices``.

    Uses ``lean_gym.aesop.search_best_static`` (the calibration issue's search) when the package has it,
    else the same search here, with early stopping.
    """
    lay = env.unwrapped.layout  # type: ignore[attr-defined]
    try:
        from lean_gym.aesop import search_best_static  # type: ignore[attr-defined, unused-ignore]
    except ImportError:
        search_best_static = None
    if search_best_static is not None:

        def success(action: np.ndarray) -> list[bool]:
            out = []
            for i in indices:
                env.reset(options={"index": int(i)})
                out.append(float(env.step(action)[1]) > 0)
            return out

        action, _ = search_best_static(lay, success)
        return np.asarray(action, dtype=np.int64)
    best = lay.default_action()
    best_score = _score(env, best, indices, 0)
    heads: Any = range(len(lay.nvec))
    if progress:
        from tqdm.auto import tqdm

        heads = tqdm(heads, desc="best static", leave=False, mininterval=0.5)
    for h in heads:
        for level in range(int(lay.nvec[h])):
            if level == best[h]:
                continue
            cand = best.copy()
            cand[h] = level
            s = _score(env, cand, indices, best_score + 1)
            if s > best_score:
                best, best_score = cand, s
    return best


def stored_best_static(suite: str) -> np.ndarray | None:
    """The stored best static config for the suite's train split (``sim``, ``satp``), when present."""
    stored_for = {"sim": "sim", "satp": DEFAULT_SOURCE}
    if suite not in stored_for:
        return None
    try:
        from lean_gym.aesop import best_static_action  # type: ignore[attr-defined, unused-ignore]

        return np.asarray(best_static_action("satp-v1", stored_for[suite]), dtype=np.int64)
    except (ImportError, KeyError):
        return None


# ------------------------------------------------------------------------------------------------ the loop
_ENCODERS: dict[str, Any] = {}


def _encoder(name: str) -> Any:
    """SATP's encoder ``name`` with LoRA, loaded once per run (every suite starts from the same weights)."""
    import copy

    from lean_gym_agents.satp_net import satp_encoder

    if name not in _ENCODERS:
        _ENCODERS[name] = satp_encoder(name)
    return copy.deepcopy(_ENCODERS[name])


def _sampler(args: LoopArgs, kind: str, venv: Any) -> Any:
    """A fresh collector: ``beta`` (SATPThompson) or ``dropout`` (DropoutThompson over SATP's shape)."""
    if kind == "beta":
        return SATPThompson.for_env(venv, SATPThompsonArgs(seed=args.seed))
    from lean_gym_agents.dpo import DPOPolicy
    from lean_gym_agents.dropout_thompson import DropoutThompson
    from lean_gym_agents.satp_net import satp_args

    encoder = _encoder(args.encoder) if args.encoder else None
    policy = DPOPolicy(
        "satp-v1",
        satp_args(d_model=args.d_model, ref_warmup_steps=args.ref_warmup_steps, seed=args.seed),
        encoder=encoder,
    )
    return DropoutThompson(
        policy,
        SATPThompsonArgs(seed=args.seed),
        train_every=args.dropout_train_every,
        steps_per_round=args.dropout_steps_per_round,
    )


def collect(
    args: LoopArgs, suite: str, kind: str, train_thms: list[Theorem], out: Path, echo: Callable[[str], None]
) -> tuple[Any, dict[str, Any]]:
    """Collect ``tries_per_goal × train goals`` tries with sampler ``kind``; pair them up into ``out``."""
    budget = args.tries_per_goal * len(train_thms)
    buffer_path = out / "tries.jsonl"
    for stale in (buffer_path, buffer_path.with_name(buffer_path.name + ".wal.jsonl")):
        stale.unlink(missing_ok=True)
    venv = gym.make_vec(
        "LeanAesop-v0",
        num_envs=args.num_envs,
        vectorization_mode="vector_entry_point",
        backend="sim",
        theorems=train_thms,
    )
    recorded = RecordVectorToBuffer(venv, buffer_path, fsync=False)
    sampler = _sampler(args, kind, venv)
    t0 = time.perf_counter()
    run = run_agent(
        sampler, recorded, steps=budget, seed=args.seed, out_dir=out / "collect", progress=args.progress,
        desc=f"collect {suite} ({kind})",
    )  # fmt: skip
    recorded.close()
    paired = pair_up(HistoryBuffer.load(buffer_path))
    paired.save(out / "buffer.jsonl")
    stats = paired.stats()
    figures = {
        "sampler": kind,
        "steps": run.steps,
        "wall_s": round(time.perf_counter() - t0, 1),
        "train_success": round(run.success_rate, 4),
        "rows": len(paired),
        "goals_proved": len({r.goal_uuid for r in paired if r.reward > 0}),
        "stored_1diff_pairs": stats.stored_pairs,
        "sampler_pairs": len(sampler.pairs),
    }
    echo(
        f"[{suite}] {kind} sampler: collected {run.steps} tries on {len(train_thms)} train goals "
        f"({args.tries_per_goal}/goal on average): {run.success_rate:.1%} of tries proved, "
        f"{figures['goals_proved']} goals proved; {stats.stored_pairs} 1-diff pairs stored with diff_head in "
        f"{out / 'buffer.jsonl'}"
    )
    return sampler, figures


def train_dpo(args: LoopArgs, out: Path) -> tuple[Any, dict[str, Any]]:
    """Train the DPO policy (the lean-gym shape, the same for every sampler) on ``out/buffer.jsonl``."""
    from lean_gym_agents.dpo import DPOArgs, DPOPolicy

    policy = DPOPolicy(
        "satp-v1", DPOArgs(d_model=args.d_model, ref_warmup_steps=args.ref_warmup_steps, seed=args.seed)
    )
    history = policy.fit(HistoryBuffer.load(out / "buffer.jsonl"), args.dpo_steps, progress=args.progress)
    policy.save(out / "policy.pt")
    step_ms = statistics.median(h["step_s"] for h in history) * 1000 if history else float("nan")
    cpu_ms = statistics.median(h["step_cpu_s"] for h in history) * 1000 if history else float("nan")
    last = history[-50:]
    return policy, {
        "steps": len(history),
        "device": str(policy.device),
        "parameters": policy.num_parameters(),
        "median_step_ms": round(step_ms, 1),
        "median_step_cpu_ms": round(cpu_ms, 1),
        "final": {
            k: round(float(np.mean([h[k] for h in last if k in h])), 4) for k in (last[-1] if last else {})
        },
    }


_MULTI_TRY = {"beta": "SATP Thompson (+ perturbation)", "dropout": "dropout Thompson (+ perturbation)"}


def run_suite(args: LoopArgs, suite: str, echo: Callable[[str], None] = print) -> dict[str, Any]:
    """Collect, search, train and evaluate on one suite; returns the figures."""
    kinds = ("beta", "dropout") if args.sampler == "both" else (args.sampler,)
    base = Path(args.out) / suite
    base.mkdir(parents=True, exist_ok=True)
    train_thms, test_thms = _theorems(args, suite)
    figures: dict[str, Any] = {"suite": suite, "train_goals": len(train_thms), "test_goals": len(test_thms)}

    # 1. collect with each sampler (Thompson + anchor perturbation), every try recorded; the Beta sampler's
    # files stay where a single run writes them, the dropout sampler's go under dropout/ when both run
    outs = {k: (base if k == kinds[0] else base / k) for k in kinds}
    samplers: dict[str, Any] = {}
    figures["collect"] = {}
    for kind in kinds:
        outs[kind].mkdir(parents=True, exist_ok=True)
        samplers[kind], figures["collect"][kind] = collect(args, suite, kind, train_thms, outs[kind], echo)
    if len(kinds) == 1:
        figures["collect"] = figures["collect"][kinds[0]]

    # 2. best static config (greedy over heads on train goals)
    train_env = gym.make("LeanAesop-v0", backend="sim", theorems=train_thms)
    rng = np.random.default_rng(args.seed)
    idx = rng.permutation(len(train_thms))[: args.static_goals]
    stored = stored_best_static(suite) if args.limit is None else None
    static = stored if stored is not None else best_static_config(train_env, idx.tolist(), args.progress)
    figures["best_static_source"] = (
        "stored (lean_gym.aesop.best_static_action)"
        if stored is not None
        else (f"coordinate ascent over heads on {len(idx)} train goals")
    )
    lay = train_env.unwrapped.layout  # type: ignore[attr-defined]
    figures["best_static"] = {"action": static.tolist(), "tactic": lay.render(static)}
    train_env.close()

    # 3. DPO policy on each sampler's buffer
    policies: dict[str, Any] = {}
    dpo_figs: dict[str, Any] = {}
    for kind in kinds:
        policies[kind], dpo_figs[kind] = train_dpo(args, outs[kind])
    figures["dpo"] = dpo_figs[kinds[0]] if len(kinds) == 1 else dpo_figs

    # 4. evaluate on test
    test_env = gym.make("LeanAesop-v0", backend="sim", theorems=test_thms)
    default = test_env.unwrapped.layout.default_action()  # type: ignore[attr-defined]
    space = test_env.action_space
    ev = lambda agent, tries, explore=False, learn=False, name="": evaluate(  # noqa: E731
        test_env, agent, tries, explore=explore, learn=learn, progress=args.progress, desc=name
    )
    k = args.eval_tries
    tag = (lambda kind: "") if len(kinds) == 1 else (lambda kind: f" [{kind} buffer]")
    rows = [
        ("plain aesop", 1, ev(FixedActionAgent(default), 1, name="plain")),
        ("uniformly random config", 1, ev(UniformRandomAgent(space, seed=args.seed), 1, name="random")),
        ("best static config (train search)", 1, ev(FixedActionAgent(static), 1, name="static")),
    ]
    rows += [
        (f"DPO policy, greedy{tag(kind)}", 1, ev(policies[kind], 1, name=f"dpo {kind}")) for kind in kinds
    ]
    if "dropout" in kinds:
        own = samplers["dropout"]
        rows.append(("SATP-shape policy of the dropout sampler, greedy", 1, ev(own, 1, name="satp greedy")))
    rows += [
        ("default config", k, ev(FixedActionAgent(default), k, name="default x k")),
        ("uniformly random configs", k, ev(UniformRandomAgent(space, seed=args.seed), k, name="random x k")),
    ]
    rows += [
        (_MULTI_TRY[kind], k, ev(samplers[kind], k, explore=True, learn=True, name=kind)) for kind in kinds
    ]
    test_env.close()
    figures["test"] = [{"method": m, "tries": t, "proved": round(p, 4)} for m, t, p in rows]
    echo(f"\n[{suite}] test: {len(test_thms)} goals, backend sim (the simulator, not Lean)")
    echo(f"{'method':<52} {'tries/goal':>10} {'proved':>8}")
    for m, t, p in rows:
        echo(f"{m:<52} {t:>10} {p:>8.1%}")
    for kind in kinds:
        d = dpo_figs[kind]
        echo(
            f"DPO policy{tag(kind)}: {d['parameters']:,} parameters, {d['steps']} steps on {d['device']}, "
            f"median {d['median_step_ms']:.0f} ms/step wall ({d['median_step_cpu_ms']:.0f} ms CPU time)"
        )
    echo(f"best static ({figures['best_static_source']}): {lay.render(static)!r}")
    if suite == "satp":
        echo(satp_lean_figures(DEFAULT_SOURCE))
    if len(kinds) > 1:
        echo(f"\n[{suite}] samplers compared (same budget, seed {args.seed}):")
        echo(
            f"{'sampler':<10} {'tries':>6} {'tries proved':>13} {'goals proved':>13} {'1-diff pairs':>13} {'wall s':>8}"
        )
        for kind in kinds:
            c = figures["collect"][kind]
            echo(
                f"{kind:<10} {c['steps']:>6} {c['train_success']:>13.1%} {c['goals_proved']:>13} "
                f"{c['stored_1diff_pairs']:>13} {c['wall_s']:>8.1f}"
            )
    (base / "results.json").write_text(json.dumps({"args": asdict(args), **figures}, indent=1))
    return figures


def _refuse(message: str) -> int:
    """A user error: one line on stderr, exit status 2."""
    print(f"satp_loop.py: error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse_flags(LoopArgs, sys.argv[1:] if argv is None else argv, prog="satp_loop.py")
    except UsageError as e:
        return _refuse(str(e))
    if args.quick:
        args.limit, args.tries_per_goal, args.eval_tries = 8, 4, 2
        args.dpo_steps, args.ref_warmup_steps, args.d_model, args.static_goals, args.num_envs = 4, 2, 16, 3, 2
        args.dropout_train_every, args.dropout_steps_per_round = 8, 2
    for name in ("tries_per_goal", "eval_tries", "num_envs"):
        if getattr(args, name) < 1:
            return _refuse(f"--{name.replace('_', '-')} must be at least 1")
    if args.suite in ("minif2f", "both"):
        # before any work: a miniF2F that was never fetched is one line, not a traceback after the sim suite
        try:
            load_theorems(args.minif2f, split="test", limit=1)
        except (LeanGymError, OSError, ValueError) as e:
            raise SystemExit(_refuse(f"--minif2f {args.minif2f}: {e}")) from None  # the tests read the exit
    import torch

    if args.encoder:
        if args.sampler == "beta":
            return _refuse("--encoder is the dropout sampler's: add --sampler dropout (or both)")
        try:
            _encoder(args.encoder)  # before any work: a missing model is one line
        except LeanGymError as e:
            return _refuse(str(e))
    torch.manual_seed(args.seed)
    if args.torch_threads > 0:
        torch.set_num_threads(args.torch_threads)
    suites = ("sim", "minif2f") if args.suite == "both" else (args.suite,)
    for suite in suites:
        run_suite(args, suite)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
