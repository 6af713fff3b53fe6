"""Replays one recorded REPL transcript: answers the recorded inputs with the recorded outputs.

Usage: ``python replay_server.py NAME``, where ``NAME`` names a shipped REPL case (``dup_msg``,
``Mathlib/H20231215``; see ``transcripts.py``). Each incoming request must equal (as JSON, after the REPL's
framing) the next recorded request; the server then prints the next recorded response as Lean prints it
(``Json.pretty``, which :func:`lean_gym.sim.jsonfmt.lean_json` reproduces byte for byte on every recorded
response). A request that differs is answered with a top-level ``{"message": "replay mismatch ..."}`` so the
test sees the difference.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from fake_repl import read_request
from transcripts import transcript

from lean_gym.sim.jsonfmt import lean_json


def main() -> int:
    requests, responses = transcript(sys.argv[1])
    for expected, response in zip(requests, responses):
        text = read_request(sys.stdin)
        if text is None:
            return 0
        got = json.loads(text)
        if got != expected:
            sys.stdout.write(
                json.dumps({"message": f"replay mismatch: got {got}, expected {expected}"}) + "\n\n"
            )
        else:
            sys.stdout.write(lean_json(response) + "\n\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
