"""A scriptable fake REPL: a real process that speaks the REPL framing and misbehaves on request.

The command text of a request chooses the behaviour, so one process can be driven through a fault matrix:

* ``HANG``          never answer
* ``SLEEP <s>``     answer after ``s`` seconds
* ``CRASH``         print half a response, then exit with status 3
* ``GARBAGE``       print a line that is not JSON
* ``HUGE <n>``      answer with a message of ``n`` bytes
* ``ALLOC <mb>``    allocate ``mb`` MiB (past an ``RLIMIT_AS`` cap this dies with MemoryError)
* ``STDERR <n>``    write ``n`` lines to stderr before answering (checks the client drains it)
* ``ERROR``         answer with an error message (a Lean verdict, not a fault)
* ``MEET <dir> <k> [s]`` leave a mark in ``dir`` and wait until ``k`` processes have (proves concurrency);
                    answers an error if they do not all arrive within ``s`` (10) seconds
* anything else     ``{"env": k}`` with a fresh env id

Options: ``--start-delay S`` sleeps before reading anything (a slow start).
The process counts how many env-less commands (header imports) it saw and reports it in ``--stats``
requests: ``{"cmd": "STATS"}`` → ``{"env": k, "messages": [{... "data": "imports=N pid=P"}]}``.
"""

from __future__ import annotations

import json
import os
import sys
import time


def read_request(stdin) -> str | None:
    """Read one request exactly as the REPL does: lines until a blank one, joined without separator."""
    parts: list[str] = []
    while True:
        line = stdin.readline()
        if not line:
            return "".join(parts) if parts else None
        if not line.strip():
            if parts:
                return "".join(parts)
            continue
        parts.append(line.rstrip())


def reply(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n\n")
    sys.stdout.flush()


def info(text: str) -> dict:
    return {"severity": "info", "pos": {"line": 1, "column": 0}, "endPos": None, "data": text}


def main() -> int:
    args = sys.argv[1:]
    if "--start-delay" in args:
        time.sleep(float(args[args.index("--start-delay") + 1]))
    env_counter = 0
    imports = 0
    hoard = []
    while True:
        text = read_request(sys.stdin)
        if text is None:
            return 0
        req = json.loads(text)
        cmd = req.get("cmd", "")
        if "env" not in req:
            imports += 1
        word, _, arg = cmd.strip().partition(" ")
        if word == "HANG":
            while True:
                time.sleep(60)
        if word == "SLEEP":
            time.sleep(float(arg))
        elif word == "CRASH":
            sys.stdout.write('{"env": ')
            sys.stdout.flush()
            os._exit(3)
        elif word == "GARBAGE":
            sys.stdout.write("this is not json\n\n")
            sys.stdout.flush()
            continue
        elif word == "HUGE":
            reply({"env": env_counter, "messages": [info("x" * int(arg))]})
            env_counter += 1
            continue
        elif word == "ALLOC":
            hoard.append(bytearray(int(arg) * 1024 * 1024))
        elif word == "STDERR":
            for i in range(int(arg)):
                sys.stderr.write(f"noise line {i} " + "y" * 100 + "\n")
            sys.stderr.flush()
        elif word == "MEET":
            where, k, *wait = arg.split()
            open(os.path.join(where, f"{os.getpid()}-{env_counter}"), "w").close()
            deadline = time.monotonic() + float(wait[0] if wait else 10)
            while len(os.listdir(where)) < int(k) and time.monotonic() < deadline:
                time.sleep(0.01)
            if len(os.listdir(where)) < int(k):
                reply({"env": env_counter, "messages": [dict(info("alone"), severity="error")]})
                env_counter += 1
                continue
        elif word == "STATS":
            reply({"env": env_counter, "messages": [info(f"imports={imports} pid={os.getpid()}")]})
            env_counter += 1
            continue
        elif word == "ERROR":
            reply(
                {
                    "env": env_counter,
                    "messages": [
                        {
                            "severity": "error",
                            "pos": {"line": 2, "column": 4},
                            "endPos": {"line": 2, "column": 9},
                            "data": "unsolved goals",
                        }
                    ],
                }
            )
            env_counter += 1
            continue
        reply({"env": env_counter})
        env_counter += 1


if __name__ == "__main__":
    sys.exit(main())
