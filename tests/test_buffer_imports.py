"""The buffer modules import in one direction: ``pairs`` never imports the buffer, and the buffer's parts form
one chain (columns → adding → mining → sampling → export → schema_io → history), each over the one before."""

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


CHAIN = ("columns", "adding", "mining", "sampling", "export", "schema_io", "history")


def _buffer_modules(path: Path) -> set[str]:
    return {m.split(".")[2] for m in imported_modules(path) if m.startswith("lean_gym.buffers.")}


def test_pairs_does_not_import_the_buffer() -> None:
    mods = _buffer_modules(BUFFERS / "pairs.py")
    assert not mods & set(CHAIN), mods


def test_mining_uses_pairs() -> None:
    assert "pairs" in _buffer_modules(BUFFERS / "mining.py")


def test_the_buffer_parts_import_downwards_only() -> None:
    for k, name in enumerate(CHAIN):
        above = set(CHAIN[k + 1 :])
        assert not _buffer_modules(BUFFERS / f"{name}.py") & above, name
        if k:
            assert CHAIN[k - 1] in _buffer_modules(BUFFERS / f"{name}.py"), name  # each part over the last


def test_a_buffer_satisfies_the_pairs_row_source() -> None:
    from lean_gym.buffers import HistoryBuffer
    from lean_gym.buffers.pairs import RowSource

    buf = HistoryBuffer()
    buf.add(goal="⊢ True", action=[0] * 40, reward=1.0)
    buf.add(goal="⊢ True", action=[0] * 5 + [4] + [0] * 34, reward=-1.0)
    table = buf.mine_pairs()
    source: RowSource = table.buffer
    assert source is buf and len(table) == 1 and table[0].diff_head == 5
