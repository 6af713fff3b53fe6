"""Replays recorded REPL transcripts: answers the recorded inputs with the recorded outputs.

Usage:

* ``python replay_server.py NAME``, where ``NAME`` names a shipped REPL case (``dup_msg``,
  ``Mathlib/H20231215``; see ``transcripts.py``). Each incoming request must equal (as JSON, after the
  REPL's framing) the next recorded request; the server then prints the next recorded response as Lean
  prints it (``Json.pretty``, which :func:`lean_gym.sim.jsonfmt.lean_json` reproduces byte for byte on every
  recorded response). A request that differs is answered with a top-level ``{"message": "replay mismatch
  ..."}`` so the test sees the difference.
* ``python replay_server.py --lean`` (any further arguments are ignored, as ``lake env`` passes the REPL
  binary's path): **recorded Lean**, a stand-in for ``lake env repl`` in a built workspace, for
  ``lean-gym selftest --backend repl``. Its Lean version is the ``lean-toolchain`` of its working
  directory. While the requests of the process are those of a transcript recorded for that version (and
  that touches no file), it answers as that transcript. Otherwise it answers as the simulator does
  (:class:`~lean_gym.sim.SimRepl`, which sees every request, so that the env numbering is the process's),
  except a command that is a corpus command case (the same header and code), answered from the record: ``{"env": k}`` with the recorded
  non-error messages when Lean accepted it, the recorded messages (or one error, when the record shows
  no text) when Lean rejected it. ``$LEAN_GYM_FAKE_FLIP`` (comma-separated case ids) makes it answer those
  cases the other way, so a test can see how selftest reports a backend that disagrees.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from fake_repl import read_request
from transcripts import PACKAGE

CASES = PACKAGE / "conformance" / "cases"


def _lean_json_module() -> Any:
    """``lean_gym/sim/jsonfmt.py`` (Lean's ``Json.pretty``), loaded from its file alone.

    Importing it as ``lean_gym.sim.jsonfmt`` imports the package first (gymnasium, numpy: 0.3 s of CPU);
    the replay of a transcript, a process of its own per transcript replayed, needs nothing else of it.
    The module imports nothing but ``typing``.
    """
    spec = importlib.util.spec_from_file_location("_replay_jsonfmt", PACKAGE / "sim" / "jsonfmt.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lean_json = _lean_json_module().lean_json


def replay(requests: list[dict[str, Any]], responses: list[dict[str, Any]]) -> int:
    """Answer ``requests`` with ``responses``, in order."""
    for expected, response in zip(requests, responses):
        text = read_request(sys.stdin)
        if text is None:
            return 0
        got = json.loads(text)
        if got != expected:
            out = json.dumps({"message": f"replay mismatch: got {got}, expected {expected}"})
        else:
            out = lean_json(response)
        sys.stdout.write(out + "\n\n")
        sys.stdout.flush()
    return 0


def _pos() -> dict[str, int]:
    return {"line": 1, "column": 0}


def recorded_answer(case: dict[str, Any], env: Any, flip: bool) -> dict[str, Any]:
    """Lean's answer to a command case as the record shows it (the other way round with ``flip``)."""
    ok = (case["expect"] == "ok") != flip
    recorded = [m for m in case.get("messages", []) if ok != (m["severity"] == "error")]
    if not ok and not any(m["severity"] == "error" for m in recorded):
        recorded = [{"severity": "error", "text": "error (the record does not show Lean's text)"}]
    messages = [
        {"severity": m["severity"], "pos": _pos(), "endPos": _pos(), "data": m["text"]} for m in recorded
    ]
    return {"messages": messages, "env": env} if messages else {"env": env}


def _load(files: list[Path]) -> list[dict[str, Any]]:
    return [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines()]


def _last_line(text: str) -> str:
    """The last line of ``text`` that is not blank, without its trailing blanks ("" when there is none)."""
    return text.rstrip().rsplit("\n", 1)[-1]


class CommandRecord:
    """The corpus's command cases by the (header, body) the pool sends for them: the first case, in the
    files' order, whose code and header ``split_header`` splits into them.

    Splitting all 2,600 cases up front cost a third of this process's CPU, in every process a selftest
    starts; a case is split here only when a request's body could be its own. The body is a suffix of the
    case's code that starts at a line, so a body with text has the code's last line that is not blank: the
    cases are filed under that line, and a body with no text is looked for among all of them.
    """

    def __init__(self, cases: list[dict[str, Any]]) -> None:
        self.cases = [c for c in cases if c["kind"] == "command"]
        self.by_last_line: dict[str, list[dict[str, Any]]] = {}
        for case in self.cases:
            self.by_last_line.setdefault(_last_line(case["code"]), []).append(case)
        self.splits: dict[str, tuple[str, str]] = {}

    def get(self, header: str, body: str) -> dict[str, Any] | None:
        """The case that the pool sends as ``header`` then ``body``, or None."""
        from lean_gym.lean.header import split_header

        last = _last_line(body)
        for case in self.by_last_line.get(last, []) if last else self.cases:
            split = self.splits.get(case["id"])
            if split is None:
                parts = split_header(case["code"], case["header"])
                split = self.splits[case["id"]] = (parts.header, parts.body)
            if split == (header, body):
                return case
        return None


def recorded_lean() -> int:
    """The ``--lean`` mode (see the module docstring)."""
    from lean_gym.conformance.repl_runner import FILE_KEYS
    from lean_gym.sim import SimRepl

    toolchain = Path("lean-toolchain")
    version = toolchain.read_text().strip().rsplit(":", 1)[-1] if toolchain.exists() else "unknown"
    transcripts = [
        c
        for c in _load([CASES / "repl" / "repl.jsonl", *sorted((CASES / "repl" / "tags").glob("*.jsonl"))])
        if c["lean_version"] == version and not any(k in r for r in c["requests"] for k in FILE_KEYS)
    ]
    record = CommandRecord(_load(sorted(CASES.glob("*/*.jsonl"))))
    flips = set(filter(None, os.environ.get("LEAN_GYM_FAKE_FLIP", "").split(",")))
    sim = SimRepl()  # every request goes through it too, so that its env numbering stays the process's
    headers: dict[Any, str] = {}
    step = 0
    while (text := read_request(sys.stdin)) is not None:
        request = json.loads(text)
        response = sim.handle(request)
        if "cmd" in request and "env" in response and "env" not in request:
            headers[response["env"]] = request["cmd"]
        # a transcript of this Lean whose requests so far are this process's: answer from it
        transcripts = [c for c in transcripts if len(c["requests"]) > step and c["requests"][step] == request]
        if transcripts:
            response = transcripts[0]["responses"][step]
        elif "cmd" in request and "env" in response:
            header = headers.get(request["env"], "") if "env" in request else ""
            case = record.get(header, request["cmd"]) or (
                record.get("", request["cmd"]) if "env" not in request else None
            )
            if case is not None:
                response = recorded_answer(case, response["env"], case["id"] in flips)
        step += 1
        sys.stdout.write(lean_json(response) + "\n\n")
        sys.stdout.flush()
    return 0


def main() -> int:
    if sys.argv[1] == "--lean":
        return recorded_lean()
    from transcripts import transcript

    requests, responses = transcript(sys.argv[1])
    return replay(requests, responses)


if __name__ == "__main__":
    sys.exit(main())
