"""``python -m lean_gym.sim [--max-heartbeats N] [--no-cache]``: the simulator as a REPL-protocol process on
stdin/stdout."""

from __future__ import annotations

import argparse
import io
import sys

from lean_gym.sim.server import serve


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m lean_gym.sim",
        description="The lean-gym simulator (not Lean) speaking the leanprover-community/repl protocol.",
    )
    ap.add_argument(
        "--max-heartbeats",
        type=int,
        default=None,
        metavar="N",
        help="heartbeat cap per declaration; `set_option maxHeartbeats` in a request may lower it, never "
        "raise it (default 400000; 0: the hard cap of 5000000)",
    )
    ap.add_argument(
        "--no-cache",
        action="store_true",
        help="do not use the simulator's memo tables (answers are the same; everything is recomputed)",
    )
    args = ap.parse_args(argv)
    if args.max_heartbeats is not None and args.max_heartbeats < 0:
        ap.error(f"--max-heartbeats must be >= 0, got {args.max_heartbeats}")
    # Invalid UTF-8 on stdin is read as lone surrogates, which ``serve`` answers with `uncaught exception:`.
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    return serve(max_heartbeats=args.max_heartbeats, cache=False if args.no_cache else None)


if __name__ == "__main__":
    sys.exit(main())
