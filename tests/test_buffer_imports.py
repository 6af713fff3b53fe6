"""The buffer modules import in one direction: ``history`` uses ``pairs``, ``pairs`` never imports ``history``."""

from __future__ import annotations

import ast
from pathlib import Path

import lean_gym.buffers

BUFFERS = Path(lean_gym.buffers.__file__).parent


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth (inside ``if TYPE_CHECKING:`` and functions too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ("." * node.level) + (node.module or "")
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names)
    return out


def test_pairs_does_not_import_history() -> None:
    mods = imported_modules(BUFFERS / "pairs.py")
    assert not {m for m in mods if m.endswith("history") or ".history." in m}, mods


def test_history_imports_pairs() -> None:
    assert "lean_gym.buffers.pairs" in imported_modules(BUFFERS / "history.py")


def test_a_buffer_satisfies_the_pairs_row_source() -> None:
    from lean_gym.buffers import HistoryBuffer
    from lean_gym.buffers.pairs import RowSource

    buf = HistoryBuffer()
    buf.add(goal="⊢ True", action=[0] * 40, reward=1.0)
    buf.add(goal="⊢ True", action=[0] * 5 + [4] + [0] * 34, reward=-1.0)
    table = buf.mine_pairs()
    source: RowSource = table.buffer
    assert source is buf and len(table) == 1 and table[0].diff_head == 5
