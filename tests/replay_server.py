"""Replays one recorded REPL transcript: answers the recorded inputs with the recorded outputs.

Usage: ``python replay_server.py NAME.in NAME.expected.out``. Each incoming request must equal (as JSON,
after the REPL's framing) the next recorded request; the server then prints the next recorded response
byte for byte. A request that differs is answered with a top-level ``{"message": "replay mismatch ..."}``
so the test sees the difference.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from fake_repl import read_request
from transcripts import read_transcript


def main() -> int:
    requests, responses = read_transcript(Path(sys.argv[1]), Path(sys.argv[2]))
    for expected, raw in zip(requests, responses):
        text = read_request(sys.stdin)
        if text is None:
            return 0
        got = json.loads(text)
        if got != expected:
            sys.stdout.write(json.dumps({"message": f"replay mismatch: got {got}, expected {expected}"}) + "\n\n")
        else:
            sys.stdout.write(raw + "\n\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
