"""Tiny REPL-protocol servers for benchmarks: ``echo`` answers at once, ``busy S`` / ``sleep S`` take a fixed
time per request (CPU-bound like Lean, or idle). Framing exactly as the real REPL reads and writes."""

from __future__ import annotations

import json
import sys
import time


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "echo"
    cost = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
    env = 0
    parts: list[str] = []
    for line in sys.stdin:
        if line.strip():
            parts.append(line.rstrip())
            continue
        if not parts:
            continue
        req = json.loads("".join(parts))
        parts = []
        if mode == "busy":
            end = time.perf_counter() + cost
            while time.perf_counter() < end:
                pass
        elif mode == "sleep":
            time.sleep(cost)
        resp = {"env": env} if "cmd" in req else {"message": "Unknown environment."}
        sys.stdout.write(json.dumps(resp, indent=2) + "\n\n")
        sys.stdout.flush()
        env += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
