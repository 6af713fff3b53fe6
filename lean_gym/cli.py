"""The ``lean-gym`` command and its subcommands.

``doctor``, ``selftest``, ``setup``, ``demo``, ``bench``, ``eval``, ``serve``, ``serve-policy``.

Every command that produces verdicts prints which backend produced them: real Lean (``repl:...``) or the
simulator (``sim``), which is never Lean.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from lean_gym import __version__

__all__ = ["main"]


def _doctor(args: argparse.Namespace) -> int:
    from lean_gym.workspace import doctor, format_report

    path = args.workspace
    if path is None and args.lean is not None:
        from lean_gym.lean.workspace import workspace_path

        path = workspace_path(args.lean)
    checks = doctor(path, smoke=not args.no_smoke)
    if args.json:
        print(json.dumps([c.__dict__ for c in checks], indent=2))
    else:
        print(f"lean-gym {__version__} doctor")
        print(format_report(checks))
    real_ok = all(c.ok for c in checks if c.name != "simulator" and not c.advisory)
    return 0 if real_ok else 1


def _selftest(args: argparse.Namespace) -> int:
    from lean_gym.backends import make_backend
    from lean_gym.conformance.selftest import (
        Thresholds,
        check_selection,
        format_markdown_report,
        format_report,
        run_selftest,
    )

    check_selection(args.family, args.source)  # a user error before any backend starts
    thresholds = Thresholds(args.max_stronger, args.min_agreement / 100, args.min_first_line / 100)
    bar: Any = None
    progress = None
    if not args.quiet and not args.json and sys.stderr.isatty():
        from tqdm import tqdm

        def progress(part: str, done: int, total: int) -> None:
            nonlocal bar
            if bar is None or bar.desc != part:
                if bar is not None:
                    bar.close()
                bar = tqdm(total=total, desc=part, unit="case", leave=False)
            bar.n = done
            bar.refresh()

    backend = make_backend(args.backend, workspace=args.workspace)
    try:
        report = run_selftest(
            backend, families=args.family, sources=args.source, thresholds=thresholds, timeout=args.timeout,
            progress=progress,
        )  # fmt: skip
    finally:
        if bar is not None:
            bar.close()
        backend.close()
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=1))
    elif args.markdown:
        print(format_markdown_report(report))
    else:
        print(format_report(report, messages=args.messages))
    return 0 if report.passed else 1


def _percent(text: str) -> float:
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a percentage like 97, got {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"a percentage is between 0 and 100, got {text!r}")
    return value


def _setup(args: argparse.Namespace) -> int:
    from lean_gym.workspace import setup

    return setup(args.workspace, dry_run=args.dry_run, force=args.force, lean=args.lean)


def _demo(args: argparse.Namespace) -> int:
    from lean_gym.backends.registry import load_entry_point

    # The demo trains a reference agent: it lives in the agents package, resolved now, never imported above.
    run_demo = load_entry_point(
        "lean_gym_agents.demo:run_demo",
        what="`lean-gym demo` (it trains a reference agent)",
        hint="the agents package lean_gym_agents comes with lean-gym: reinstall from a clone, pip install -e .",
    )
    return int(
        run_demo(
            backend=args.backend,
            episodes=args.episodes,
            seed=args.seed,
            plot=not args.no_plot,
            plot_path=args.plot_path,
            rounds=args.rounds,
            eval_limit=args.eval_limit,
            source=args.source,
        )
    )


def _bench(args: argparse.Namespace) -> int:
    from lean_gym.bench import format_report, parse_sizes, report_json, run_bench

    report = run_bench(
        args.env_id,
        backend=args.backend,
        modes=None if args.modes is None else [m.strip() for m in args.modes.split(",") if m.strip()],
        sizes=parse_sizes(args.num_envs),
        steps=args.steps,
        seed=args.seed,
        ray_actors=args.ray_actors,
        progress=None if args.json else (lambda line: print(line, file=sys.stderr)),
        source=args.source,
        split=args.split,
    )
    print(report_json(report) if args.json else format_report(report))
    return 0


def _data(args: argparse.Namespace) -> int:
    from lean_gym.data.remote import REMOTE_DATASETS, cache_dir, dataset_path, fetch_dataset
    from lean_gym.errors import LeanGymError

    if args.data_command == "list":
        for name, known in REMOTE_DATASETS.items():
            try:
                where = str(dataset_path(name))
            except LeanGymError:
                where = f"not downloaded (`lean-gym data fetch {name}`)"
            print(f"{name}: {known.describes}\n  {where}")
        print(f"cache: {cache_dir()} (set $LEAN_GYM_DATA to move it)")
        return 0
    ds = REMOTE_DATASETS.get(args.name)
    if ds is not None and args.url is None and not args.force:
        print(f"downloading {args.name} ({ds.size // 1000} kB) from {ds.url}", file=sys.stderr)
    path = fetch_dataset(args.name, url=args.url, force=args.force, timeout=args.timeout)
    print(path)
    return 0


def _eval(args: argparse.Namespace) -> int:
    from lean_gym.evaluation import run_eval

    split = None if args.split == "all" else args.split
    # Open --output first: an unwritable path should fail before the candidates are judged, not after.
    detail = open(args.output, "w", encoding="utf-8") if args.output else None  # noqa: SIM115
    try:
        report = run_eval(
            args.candidates,
            args.dataset,
            k_values=args.k,
            backend=args.backend,
            split=split,
            timeout=args.timeout,
            allow_native_decide=args.allow_native_decide,
            progress=not args.quiet,
        )
        if detail is not None:
            for row in report["per_problem"]:
                detail.write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        if detail is not None:
            detail.close()
    report["split"] = args.split
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print(format_eval(report, detail_file=args.output))
    return 0


def _serve_policy(args: argparse.Namespace) -> int:
    from lean_gym.serve.app import ServeConfig, bind, serve
    from lean_gym.serve.policy import load_policy, policy_app

    key = args.api_key if args.api_key is not None else os.environ.get("LEAN_GYM_API_KEY") or None
    config = ServeConfig(host=args.host, port=args.port, api_key=key, max_body_bytes=args.max_body_bytes)
    policy = load_policy(args.policy, layout=args.layout, device=args.device)  # user errors before binding
    sock = bind(config)
    host, port = sock.getsockname()[:2]
    print(
        f"lean-gym serve-policy: {policy.name}, layout {policy.layout.name}, SATP's API "
        f"(GET /health, POST /infer) on http://{host}:{port}"
        + ("" if key is None else " (API key required)"),
        flush=True,
    )
    if port != 5177 or host not in ("127.0.0.1", "localhost"):
        print("note: SATP's `satp` tactic calls http://127.0.0.1:5177", flush=True)
    serve(policy_app(policy, config), sock, log_level="info" if args.verbose else "warning")
    return 0


def _serve_checks(args: argparse.Namespace) -> int:
    from lean_gym.backends import make_backend
    from lean_gym.backends.remote import API_KEY_ENV
    from lean_gym.errors import ConfigError
    from lean_gym.serve.app import ServeConfig, bind, serve
    from lean_gym.serve.check import CheckLimits, check_app

    if args.backend.startswith(("http:", "https:")):
        raise ConfigError(
            "lean-gym serve needs a local backend (sim, sim-repl, repl, ray:…), not another server"
        )
    key = args.api_key if args.api_key is not None else os.environ.get(API_KEY_ENV) or None
    config = ServeConfig(
        host=args.host, port=args.port, api_key=key, max_body_bytes=args.max_body_bytes,
        max_pending=args.max_requests,
    )  # fmt: skip
    limits = CheckLimits(
        max_batch=args.max_batch, max_code_chars=args.max_code_chars, max_timeout_s=args.max_timeout,
        max_inflight_checks=args.max_inflight, queue_wait_s=args.queue_wait,
    )  # fmt: skip
    sock = bind(config)  # a busy port is one line, before any process starts
    kwargs: dict[str, Any] = {}
    if args.pool_size is not None:
        kwargs["pool_size"] = args.pool_size
    backend = make_backend(args.backend, **kwargs)
    host, port = sock.getsockname()[:2]
    lean = "" if not backend.name.startswith("sim") else " (the simulator, not Lean)"
    print(
        f"lean-gym serve: backend {backend.name}{lean}, kimina's API (POST /api/check, /verify) and lean-gym's "
        f"(/v1/check, /v1/grade, /metrics) on http://{host}:{port}"
        + ("" if key is None else " (API key required)"),
        flush=True,
    )
    try:
        serve(check_app(backend, config, limits), sock, log_level="info" if args.verbose else "warning")
    finally:
        backend.close()
    return 0


def format_eval(report: dict[str, Any], detail_file: str | None = None) -> str:
    """The tables ``lean-gym eval`` prints: the backend, pass@k over the whole split, then coverage per k."""
    backend = report["backend"]
    note = "  (the simulator, not Lean)" if backend.startswith("sim") else ""
    n = report["n_problems"]
    with_cands = n - len(report["missing"])
    lines = [
        f"backend: {backend}{note}",
        f"split {report['split']}: {n} problems, {with_cands} with candidates "
        f"({report['n_candidates']} candidates, {report['accepted']} accepted)",
    ]
    if report["unknown_names"]:
        lines.append(f"ignored: candidates for {len(report['unknown_names'])} names not in the dataset")
    lines.append(f"pass@k over all {n} problems of the split (a missing candidate counts as a failure):")
    lines.append(f"{'k':>6}  {'pass@k':>8}")
    for key, value in report["pass@k"].items():
        lines.append(f"{key[5:]:>6}  {_fmt(value):>8}")
    lines.append("coverage: pass@k over only the problems with at least k candidates:")
    lines.append(f"{'k':>6}  {'pass@k':>8}  {'problems':>8}")
    for key, value in report["pass@k_each"].items():
        lines.append(f"{key[5:]:>6}  {_fmt(value):>8}  {report['problems_each'][key]:>8}")
    short = {key[5:]: m for key, m in report["short_each"].items() if m}
    if report["missing"]:
        lines.append(
            f"note: {len(report['missing'])} of {n} problems have no candidate (each scores 0 above)"
        )
    if short:
        most = max((row["n"] for row in report["per_problem"]), default=0)
        which = ", ".join(f"{m} for k={k}" for k, m in short.items())
        lines.append(
            f"note: problems with fewer than k candidates ({which}; the most any has is {most}): their missing "
            "candidates count as failures above"
        )
    if report["hack_classes"]:
        lines.append("rejections: " + ", ".join(f"{k}={v}" for k, v in report["hack_classes"].items()))
    lines.append(
        f"per-problem detail: {detail_file}"
        if detail_file
        else "per-problem detail: --output FILE; all: --json"
    )
    return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _k_values(text: str) -> list[int]:
    try:
        ks = [int(k) for k in text.split(",") if k.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"k values must be positive integers like 1,8,32, not {text!r}"
        ) from None
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError(f"k values must be positive integers like 1,8,32, not {text!r}")
    return ks


def _int_at_least(low: int) -> Any:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


_BACKENDS = ("auto", "sim", "sim-repl", "repl")


def _backend_or_ray(text: str) -> str:
    """A backend name, or ``ray:<name>`` (a RayBackend whose actors each hold that backend)."""
    from lean_gym.backends.registry import check_backend_spec
    from lean_gym.errors import ConfigError

    try:
        check_backend_spec(text)
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (and exit status 2), as every user error."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="lean-gym", description="Gymnasium environments for RL on Lean 4 theorem proving.")
    p.add_argument("--version", action="version", version=f"lean-gym {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="log more; show tracebacks of errors")
    sub = p.add_subparsers(dest="command", required=True)

    d = sub.add_parser("doctor", help="report what real Lean needs, what is present and how to fix the rest")
    d.add_argument(
        "--workspace",
        default=None,
        help="Lean workspace path (default: $LEAN_GYM_WORKSPACE or lean_workspace/)",
    )
    d.add_argument("--lean", default=None, help="inspect the workspace of this Lean release (vX.Y.Z)")
    d.add_argument("--no-smoke", action="store_true", help="skip the real-Lean smoke check")
    d.add_argument("--json", action="store_true", help="machine-readable output")
    d.set_defaults(func=_doctor)

    st = sub.add_parser(
        "selftest",
        help="hold a backend to Lean's recorded behaviour (the conformance corpus) and the hack catalogue",
        description="Run the conformance corpus (cases of Lean's recorded behaviour from Mathlib's, Aesop's "
        "and Lean core's tests, SATP's proofs and the REPL's transcripts) and the oracle's hack catalogue on "
        "a backend; print every disagreement, agreement per family and per source, the Lean version of each "
        "record and of the backend. On real Lean, attach the --json output to a bug report; on the simulator "
        "these are its fidelity figures (docs/simulator.md). Exit status: 0 when every threshold is met, 1 "
        "when one is missed (Lean fails and the backend proves in more than --max-stronger cases, agreement "
        "on the cases read below --min-agreement, equal first lines of error messages below "
        "--min-first-line, or a hack the oracle misses), 2 on a user error.",
    )
    st.add_argument(
        "--backend",
        default="auto",
        type=_backend_or_ray,
        help="auto (real Lean if set up, else the simulator), sim, sim-repl, repl, or a registered name",
    )
    st.add_argument("--family", action="append", help="only this family (repeatable; repl, hacks included)")
    st.add_argument(
        "--source", action="append", help="only this corpus source (repeatable): aesop, lean4, ..."
    )
    st.add_argument("--workspace", default=None, help="the Lean workspace of --backend repl")
    st.add_argument("--timeout", type=_positive_seconds, default=None, help="seconds per check")
    st.add_argument(
        "--json", action="store_true", help="the whole report as JSON, every case (for a bug report)"
    )
    st.add_argument(
        "--markdown", action="store_true", help="the figures as Markdown tables (docs/simulator.md)"
    )
    st.add_argument("--messages", action="store_true",
                    help="also list every case whose recorded Lean error and the backend's differ")  # fmt: skip
    st.add_argument("--quiet", action="store_true", help="no progress bar")
    st.add_argument("--max-stronger", type=_int_at_least(0), default=0,
                    help="most cases where Lean fails and the backend proves (default 0)")  # fmt: skip
    st.add_argument("--min-agreement", type=_percent, default=97.0,
                    help="least agreement on the cases read, in %% (default 97)")  # fmt: skip
    st.add_argument("--min-first-line", type=_percent, default=90.0,
                    help="least rate of equal first lines of error messages, in %% (default 90)")  # fmt: skip
    st.set_defaults(func=_selftest)

    s = sub.add_parser(
        "setup",
        help="create and build the Lean workspace for real Lean (needs internet, ~5 GB of disk)",
        description="Create the workspace of one Lean release (default v4.33.0-rc2 in lean_workspace/; "
        "`--lean vX.Y.Z` for another, in ~/.cache/lean-gym/workspaces/vX.Y.Z, side by side): Lean, and "
        "Mathlib (with Aesop) and the leanprover-community REPL at their tags of that release; a release "
        "without both tags is refused, listing those that have them. It builds it step by step, stopping "
        "at the first step that fails: installs "
        "elan (the Lean toolchain manager) if it is absent, then `lake update`, `lake exe cache get` "
        "(Mathlib's prebuilt oleans), `lake build` and the REPL binary. Needs: internet access to GitHub and "
        "Mathlib's cache; about 5 GB of disk for Mathlib's oleans, plus about 1 GB for the toolchain; memory: "
        "a REPL process that imports Mathlib holds several GB (lean-gym caps each at 12 GB by default); "
        "time: mostly the download of several GB. "
        "`--dry-run` prints the steps without running them; `lean-gym doctor` says what is missing.",
    )
    s.add_argument(
        "--lean", default=None, help="the Lean release (default v4.33.0-rc2; see lean_gym.lean.versions)"
    )
    s.add_argument("--workspace", default=None, help="where to build it (default: the release's own folder)")
    s.add_argument("--dry-run", action="store_true", help="print the steps without running them")
    s.add_argument("--force", action="store_true", help="rewrite the workspace files")
    s.set_defaults(func=_setup)

    m = sub.add_parser("demo", help="train a small agent on LeanAesop-v0 and print what it learned")
    m.add_argument(
        "--backend",
        default="auto",
        choices=_BACKENDS,
        help="auto (real Lean if set up, else the simulator), sim, sim-repl, repl",
    )
    m.add_argument(
        "--episodes",
        type=_int_at_least(1),
        default=3000,
        help="training episodes (one aesop call each; default 3000)",
    )
    m.add_argument(
        "--seed",
        type=_int_at_least(0),
        default=0,
        help="seed of the bandit and the theorem draws (default 0)",
    )
    m.add_argument(
        "--rounds", type=_int_at_least(1), default=5, help="evaluate on the test split after each round"
    )
    m.add_argument("--no-plot", action="store_true", help="do not save the learning-curve PNG")
    m.add_argument("--plot-path", default="lean-gym-demo.png", help="where the learning-curve PNG goes")
    m.add_argument(
        "--eval-limit",
        type=_int_at_least(0),
        default=0,
        help="evaluate on the first N test theorems (0: all)",
    )
    m.add_argument(
        "--source",
        default=None,
        help="the theorem set, its train split trains and its test split evaluates (default: satp-minif2f, "
        "SATP's 92 Lean-proved miniF2F-test theorems; sim: the simulator's synthetic families)",
    )
    m.set_defaults(func=_demo)

    b = sub.add_parser(
        "bench",
        help="vectorized rollout throughput of an env: sync, async, pooled and ray modes for several N",
        description="Vectorized rollout benchmark: throughput (completed env steps / wall time), p50/p95 "
        "step latency, speed-up over N=1 and the env layer's overhead over raw backend checks.",
    )
    b.add_argument(
        "env_id", nargs="?", default="LeanAesop-v0", help="registered env id (default: LeanAesop-v0)"
    )
    b.add_argument(
        "--backend",
        default="auto",
        type=_backend_or_ray,
        help="auto (real Lean if set up, else the simulator), sim, sim-repl or repl; in ray mode, what each "
        "actor holds; ray:<one of them> runs the ray mode with actors holding it",
    )
    b.add_argument(
        "--modes",
        default=None,
        help="comma-separated among sync, async, pooled, ray (ray needs the ray extra); default sync,async,pooled "
        "(ray with --backend ray:<spec>)",
    )
    b.add_argument(
        "--source",
        default=None,
        help="the envs' theorems: a JSONL of your own (see the README), minif2f, minif2f-sample, satp-minif2f, "
        "sim (default: the env's own; satp-minif2f for LeanAesop, the simulator's families for the others)",
    )
    b.add_argument("--split", default=None, help="the split of --source (default: the env's, train)")
    b.add_argument(
        "-n", "--num-envs", default="1,2,4,8", help="comma-separated vector env sizes N (default 1,2,4,8)"
    )
    b.add_argument("--steps", type=int, default=200, help="env steps timed per mode and N (default 200)")
    b.add_argument("--ray-actors", type=int, default=2, help="RayBackend actors in ray mode (default 2)")
    b.add_argument("--seed", type=int, default=0, help="seed of the theorems and actions (default 0)")
    b.add_argument("--json", action="store_true", help="print the figures as JSON instead of a table")
    b.set_defaults(func=_bench)

    dt = sub.add_parser(
        "data",
        help="datasets lean-gym knows by name but does not ship (the full miniF2F): fetch, list",
        description="Fetch a named dataset into the user cache (checked by SHA-256), or list them. "
        "`load_theorems(NAME)`, `lean-gym eval --dataset NAME` and the examples then find it there.",
    )
    dsub = dt.add_subparsers(dest="data_command", required=True)
    df = dsub.add_parser("fetch", help="download a dataset (one try, no retries) and print its path")
    df.add_argument("name", choices=["minif2f"], help="minif2f: miniF2F in Lean 4, 488 rows (valid, test)")
    df.add_argument("--url", default=None, help="download from this mirror instead (the hash must match)")
    df.add_argument("--force", action="store_true", help="download again even if a verified copy exists")
    df.add_argument("--timeout", type=_positive_seconds, default=30.0, help="seconds to wait (default 30)")
    dsub.add_parser("list", help="the named datasets and where each is")
    dt.set_defaults(func=_data)

    e = sub.add_parser("eval", help="pass@k of a JSONL of candidate proofs against a dataset")
    e.add_argument("candidates", help="JSONL with one candidate per line: {'name': ..., 'proof': ...}")
    e.add_argument(
        "--dataset",
        default="sim",
        help="'sim', 'minif2f' (after `lean-gym data fetch minif2f`), 'minif2f-sample', a miniF2F-format "
        "JSONL path, or a Hugging Face dataset name",
    )
    e.add_argument(
        "--split",
        required=True,
        help="the dataset split to score against (e.g. test, valid), or 'all' for every split",
    )
    e.add_argument("-k", type=_k_values, default=[1, 8, 32], help="comma-separated k values, e.g. 1,8,32")
    e.add_argument(
        "--backend",
        default="auto",
        type=_backend_or_ray,
        help="auto, sim, sim-repl, repl, or ray:<one of them> (Ray actors; see docs/scale-out.md)",
    )
    e.add_argument("--timeout", type=_positive_seconds, default=None, help="seconds per check")
    e.add_argument("--allow-native-decide", action="store_true", help="accept proofs that use native_decide")
    e.add_argument("--json", action="store_true", help="print the whole result as one JSON object")
    e.add_argument("--output", metavar="FILE", default=None, help="write per-problem detail (JSONL) to FILE")
    e.add_argument("--quiet", action="store_true", help="no progress bar")
    e.set_defaults(func=_eval)

    sp = sub.add_parser(
        "serve-policy",
        help="serve an aesop policy over SATP's HTTP API (/health, /infer), for SATP's Lean tactic `satp`",
        description="Serve a trained policy (a DPO checkpoint) or a baseline with SATP's inference API, so "
        "that SATP's `satp` tactic (which calls http://127.0.0.1:5177) runs it. Needs the serve extra.",
    )
    sp.add_argument(
        "policy",
        help="'best-static' (the stored best static config), 'plain' (plain aesop) or a DPO checkpoint",
    )
    sp.add_argument("--layout", default="satp-v1", help="layout of 'best-static'/'plain' (default satp-v1)")
    sp.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    sp.add_argument(
        "--port", type=_int_at_least(0), default=5177, help="port (default 5177, SATP's; 0: any free)"
    )
    sp.add_argument(
        "--api-key",
        default=None,
        help="require this key (default: $LEAN_GYM_API_KEY; SATP's tactic sends none)",
    )
    sp.add_argument(
        "--max-body-bytes",
        type=_int_at_least(1),
        default=1 << 20,
        help="largest request body (default 1 MiB)",
    )
    sp.add_argument("--device", default=None, help="torch device of a checkpoint (default: the saved one)")
    sp.set_defaults(func=_serve_policy)

    sv = sub.add_parser(
        "serve",
        help="serve checks over HTTP: kimina's API (/api/check, /verify) and lean-gym's (/v1/check, /v1/grade)",
        description="A verification service over one backend, for trainers that send completions over HTTP "
        "(kimina-client, verl/TRL/OpenRLHF reward functions, RemoteBackend). See docs/serve.md. Needs the "
        "serve extra.",
    )
    sv.add_argument(
        "--backend",
        default="sim-repl",
        type=_backend_or_ray,
        help="sim-repl (default), sim, repl, ray:<spec>",
    )
    sv.add_argument(
        "--pool-size", type=_int_at_least(1), default=None, help="REPL processes (default: CPUs - 1)"
    )
    sv.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)"
    )
    sv.add_argument(
        "--port", type=_int_at_least(0), default=8000, help="port (default 8000, kimina's; 0: any free)"
    )
    sv.add_argument(
        "--api-key", default=None, help="require this key (default: $LEAN_GYM_API_KEY; none: open)"
    )
    sv.add_argument(
        "--max-body-bytes", type=_int_at_least(1), default=8 << 20, help="largest body (default 8 MiB)"
    )
    sv.add_argument(
        "--max-batch", type=_int_at_least(1), default=256, help="checks per request (default 256)"
    )
    sv.add_argument("--max-code-chars", type=_int_at_least(1), default=100_000, help="characters per check")
    sv.add_argument(
        "--max-timeout", type=_positive_seconds, default=300.0, help="cap on a check's timeout, s"
    )
    sv.add_argument("--max-inflight", type=_int_at_least(1), default=512, help="checks in flight at once")
    sv.add_argument("--max-requests", type=_int_at_least(1), default=1024, help="requests open at once")
    sv.add_argument(
        "--queue-wait",
        type=float,
        default=60.0,
        help="how long a kimina request waits for room, s (default 60)",
    )
    sv.set_defaults(func=_serve_checks)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``lean-gym`` console script.

    A user error (a missing file, a malformed row, a bad argument) is one line on stderr and exit status
    2, never a traceback (``-v`` shows it); Ctrl-C exits with 130, a closed stdout quietly with 1.
    """
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(message)s")
    from lean_gym.errors import LeanGymError

    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        # The reader went away (``lean-gym doctor --json | head``): stop writing, quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        print(f"lean-gym {args.command}: output closed early (broken pipe)", file=sys.stderr)
        return 1
    except (LeanGymError, OSError, ValueError) as e:
        if args.verbose:
            raise
        print(f"lean-gym {args.command}: {_one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _one_line(e: BaseException) -> str:
    if isinstance(e, OSError) and e.filename:
        return f"{e.strerror or type(e).__name__}: {e.filename}"
    text = str(e).strip() or type(e).__name__
    first, _, rest = text.partition("\n")
    return first + (" (run with -v for more)" if rest.strip() else "")


if __name__ == "__main__":
    sys.exit(main())
