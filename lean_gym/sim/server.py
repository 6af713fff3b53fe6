"""Serve the REPL protocol on stdin/stdout with the real REPL's framing.

Framing (``REPL/Main.lean``): read lines until one that is blank after trimming (or EOF), strip each
line's trailing whitespace and join them with no separator; skip a request that starts with ``#`` or
``--`` (no response); answer with Lean's ``Json.pretty`` text and a blank line, flushed; invalid JSON or a
request of no known shape, or one holding text that is not valid Unicode (invalid UTF-8 bytes, a lone
``\\ud800`` escape), prints ``uncaught exception: …`` and exits with status 1; EOF exits with 0.
"""

from __future__ import annotations

import json
import sys
from typing import IO

from lean_gym.errors import ProtocolError
from lean_gym.sim.jsonfmt import lean_json

__all__ = ["serve"]


def _read_request(stream: IO[str]) -> str | None:
    lines: list[str] = []
    while True:
        line = stream.readline()
        if line == "":
            return "".join(lines) if lines else None
        stripped = line.rstrip()
        if not stripped.strip():
            return "".join(lines)
        lines.append(stripped)


def _invalid_unicode(value: object) -> str | None:
    """Why a request holds text that is not valid Unicode (invalid UTF-8, a lone ``\\ud800``), or ``None``."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            return f"invalid UTF-8 or lone surrogate U+{ord(value[e.start]):04X} in a request string"
        return None
    items = value.items() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for item in items:
        for part in item if isinstance(item, tuple) else (item,):
            bad = _invalid_unicode(part)
            if bad is not None:
                return bad
    return None


def serve(
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    max_heartbeats: int | None = None,
    cache: bool | None = None,
) -> int:
    """Answer requests until EOF; returns the process exit status (0 at EOF, 1 on a fatal request).

    Args:
        stdin: Where requests come from (default ``sys.stdin``).
        stdout: Where responses go (default ``sys.stdout``).
        max_heartbeats: The caller's heartbeat cap (``SimRepl``'s; ``None``: its default). Requests can
            lower their budget with ``set_option maxHeartbeats``, never raise it past this.
        cache: Use the simulator's memo tables (``SimRepl``'s ``cache``).
    """
    from lean_gym.sim.repl import SimRepl

    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    repl = (
        SimRepl(cache=cache)
        if max_heartbeats is None
        else SimRepl(max_heartbeats=max_heartbeats, cache=cache)
    )
    while True:
        text = _read_request(inp)
        if text is None:
            return 0
        if text.startswith("#") or text.startswith("--"):
            continue
        try:
            req = json.loads(text)
        except json.JSONDecodeError as bad_json:
            out.write(f'uncaught exception: {{"message": "Could not parse JSON: {bad_json.msg}"}}\n')
            out.flush()
            return 1
        bad = _invalid_unicode(req)
        if bad is not None:
            out.write(f"uncaught exception: {bad}\n")
            out.flush()
            return 1
        try:
            resp = repl.handle(req)
        except ProtocolError as protocol_err:
            out.write(f"uncaught exception: {protocol_err}\n")
            out.flush()
            return 1
        except Exception as exc:
            import traceback

            traceback.print_exc(file=sys.stderr)
            out.write(f"uncaught exception: internal simulator error: {type(exc).__name__}: {exc}\n")
            out.flush()
            return 1
        out.write(lean_json(resp) + "\n\n")
        out.flush()
