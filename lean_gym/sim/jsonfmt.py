"""Lean's ``Json.pretty``: the exact text the real REPL prints for a response.

The real REPL prints each response with ``Json.pretty`` (width 80): objects list their keys in *reverse*
sorted order (Lean folds its key map into a list back to front), and line breaking follows Lean's
``Format`` engine, where a group is laid out flat when it and the rest of the line up to the next break
fit in the width. :func:`lean_json` reproduces that byte for byte on every response of the REPL's
recorded transcripts (``lean_gym/conformance/cases/repl/repl.jsonl``); :func:`lean_order` gives a dict
the same key order.
"""

from __future__ import annotations

from typing import Any

__all__ = ["lean_json", "lean_order"]

Doc = tuple[Any, ...]
_LINE: Doc = ("line",)


def lean_order(obj: Any) -> Any:
    """``obj`` with every object's keys in Lean's order (reverse sorted), recursively."""
    if isinstance(obj, dict):
        return {k: lean_order(obj[k]) for k in sorted(obj, reverse=True)}
    if isinstance(obj, list):
        return [lean_order(v) for v in obj]
    return obj


def _escape(s: str) -> str:
    out = ['"']
    for ch in s:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _render(v: Any) -> Doc:
    if v is None:
        return ("text", "null")
    if v is True:
        return ("text", "true")
    if v is False:
        return ("text", "false")
    if isinstance(v, int):
        return ("text", str(v))
    if isinstance(v, float):
        return ("text", repr(v))
    if isinstance(v, str):
        return ("text", _escape(v))
    if isinstance(v, (list, tuple)):
        items: list[Doc] = []
        for i, x in enumerate(v):
            if i:
                items.append(("text", ","))
                items.append(_LINE)
            items.append(_render(x))
        return _bracket("[", items, "]")
    if isinstance(v, dict):
        items = []
        for i, k in enumerate(sorted(v, reverse=True)):
            if i:
                items.append(("text", ","))
                items.append(_LINE)
            items.append(("group", ("cat", [("text", _escape(str(k)) + ":"), _LINE, _render(v[k])])))
        return _bracket("{", items, "}")
    raise TypeError(f"cannot render {type(v).__name__} as JSON")


def _bracket(left: str, items: list[Doc], right: str) -> Doc:
    return ("group", ("nest", len(left), ("cat", [("text", left), *items, ("text", right)])))


def _flat_len(d: Doc, limit: int) -> int:
    """Length of ``d`` laid out flat (stops counting past ``limit``)."""
    k = d[0]
    if k == "text":
        return len(d[1])
    if k == "line":
        return 1
    if k == "nest":
        return _flat_len(d[2], limit)
    if k == "group":
        return _flat_len(d[1], limit)
    total = 0
    for c in d[1]:
        total += _flat_len(c, limit - total)
        if total > limit:
            return total
    return total


def _upto_line(d: Doc, flat: bool, limit: int) -> tuple[int, bool]:
    """Space used by ``d`` up to its first line break (in mode ``flat``), and whether one was found."""
    k = d[0]
    if k == "text":
        return len(d[1]), False
    if k == "line":
        return (1, False) if flat else (0, True)
    if k == "nest":
        return _upto_line(d[2], flat, limit)
    if k == "group":
        return _flat_len(d[1], limit), False
    total = 0
    for c in d[1]:
        n, found = _upto_line(c, flat, limit - total)
        total += n
        if found or total > limit:
            return total, found
    return total, False


def lean_json(obj: Any, width: int = 80) -> str:
    """The text Lean's ``Json.pretty`` prints for ``obj`` (no trailing newline)."""
    doc = _render(obj)
    out: list[str] = []
    col = 0
    # a stack of groups, each [flatten, items]; items is a stack of (indent, doc)
    gs: list[list[Any]] = [[False, [(0, doc)]]]
    while gs:
        g = gs[-1]
        if not g[1]:
            gs.pop()
            continue
        indent, d = g[1].pop()
        k = d[0]
        if k == "text":
            out.append(d[1])
            col += len(d[1])
        elif k == "line":
            if g[0]:
                out.append(" ")
                col += 1
            else:
                out.append("\n" + " " * indent)
                col = indent
        elif k == "cat":
            for c in reversed(d[1]):
                g[1].append((indent, c))
        elif k == "nest":
            g[1].append((indent + d[1], d[2]))
        elif k == "group":
            if g[0]:
                g[1].append((indent, d[1]))
                continue
            space = width - col
            need = _flat_len(d[1], space)
            if need <= space:
                need += _rest_len(gs, space - need)
            gs.append([need <= space, [(indent, d[1])]])
    return "".join(out)


def _rest_len(gs: list[list[Any]], limit: int) -> int:
    total = 0
    # [::-1], not reversed(), which mypyc cannot compile over a sequence of Any (docs/simulator.md)
    for g in gs[::-1]:
        flat = g[0]
        for _, d in g[1][::-1]:
            n, found = _upto_line(d, flat, limit - total)
            total += n
            if found or total > limit:
                return total
    return total
