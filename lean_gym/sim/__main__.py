"""``python -m lean_gym.sim``: the simulator as a REPL-protocol process on stdin/stdout."""

from __future__ import annotations

import io
import sys

from lean_gym.sim.server import serve


def main() -> int:
    for stream in (sys.stdin, sys.stdout):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(encoding="utf-8")
    return serve()


if __name__ == "__main__":
    sys.exit(main())
