"""Judge a JSONL of proofs with lean-gym's oracle on one node, a pool sized by SLURM (see lean-gym.sbatch).

Each input row is a theorem with its proof: ``{"name": …, "formal_statement": …, "header": …, "proof": …}``
(``proof`` is the whole submission, or a tactic block for ``formal_statement``). Each output row says the
verdict, the hack class, and which backend and Lean and Mathlib versions gave it.

Run::

    python examples/slurm/judge.py proofs.jsonl verdicts.jsonl --backend repl
    python examples/slurm/judge.py proofs.jsonl verdicts.jsonl --backend sim-repl   # no Lean: the simulator
"""

from __future__ import annotations

import argparse
import json
import os

from lean_gym.backends import make_backend
from lean_gym.grading import Oracle, as_target, build_submission


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("proofs")
    p.add_argument("verdicts")
    p.add_argument("--backend", default="repl", choices=("repl", "sim-repl"))
    p.add_argument("--lean-version", default=None, help="a workspace set up with `lean-gym setup --lean`")
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument(
        "--private-mb", type=float, default=3000.0, help="recycle a REPL above this private memory"
    )
    p.add_argument("--replay", action="store_true", help="replay accepted proofs with leanchecker")
    args = p.parse_args()
    # one REPL per CPU SLURM gave the job, less one for this process (os.cpu_count() is the whole node's)
    pool = max(1, int(os.environ.get("SLURM_CPUS_PER_TASK", "2")) - 1)
    kwargs: dict[str, object] = {
        "pool_size": pool,
        "max_private_mb": args.private_mb,
        "timeout": args.timeout,
    }
    if args.backend == "repl":
        kwargs["memory_limit_mb"] = 16_000  # RLIMIT_AS backstop: counts the ~5 GB of mapped oleans too
        if args.lean_version:
            kwargs["lean_version"] = args.lean_version
    backend = make_backend(args.backend, **kwargs)
    try:
        with open(args.proofs, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        oracle = Oracle(backend, timeout=args.timeout, replay=args.replay)
        items = [(r, build_submission(as_target(r), r["proof"])) for r in rows]
        verdicts = oracle.judge_batch(items)
    finally:
        backend.close()
    with open(args.verdicts, "w", encoding="utf-8") as out:
        for row, v in zip(rows, verdicts):
            check = v.check
            out.write(
                json.dumps(
                    {
                        "name": row["name"],
                        "accepted": v.accepted,
                        "hack_class": v.hack_class,
                        "reason": v.reason,
                        "backend": check.backend if check else None,
                        "versions": dict(check.versions) if check else {},
                    }
                )
                + "\n"
            )
    print(f"{sum(v.accepted for v in verdicts)}/{len(verdicts)} accepted; verdicts in {args.verdicts}")


if __name__ == "__main__":
    main()
