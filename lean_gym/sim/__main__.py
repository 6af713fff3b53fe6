"""``python -m lean_gym.sim``: the simulator as a REPL-protocol process on stdin/stdout."""

from __future__ import annotations

import io
import sys

from lean_gym.sim.server import serve


def main() -> int:
    # Invalid UTF-8 on stdin is read as lone surrogates, which ``serve`` answers with `uncaught exception:`.
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(encoding="utf-8", errors="surrogateescape")
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(encoding="utf-8")
    return serve()


if __name__ == "__main__":
    sys.exit(main())
