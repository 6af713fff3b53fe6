"""Reading a file's imports with ``ast``: every one, at the top, inside a function, under ``TYPE_CHECKING``."""

from __future__ import annotations

import ast
from pathlib import Path


def imported_modules(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports, as dotted names, relative imports resolved against ``package``.

    ``from X import name`` also yields ``X.name`` (``name`` may be a submodule).

    Args:
        path: The file.
        package: The dotted package the file is in (``lean_gym.backends`` for ``lean_gym/backends/x.py``).
    """
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{alias.name}" for alias in node.names)
    return out
