"""The buffer modules import in one direction: ``pairs`` never imports the buffer, and the buffer's parts form
one chain (columns → adding → mining → sampling → export → schema_io → history), each over the one before."""

from __future__ import annotations

from pathlib import Path

from import_graph import imported_modules

import lean_gym.buffers

BUFFERS = Path(lean_gym.buffers.__file__).parent


CHAIN = ("columns", "adding", "mining", "sampling", "export", "schema_io", "history")


def _buffer_modules(path: Path) -> set[str]:
    return {
        m.split(".")[2]
        for m in imported_modules(path, "lean_gym.buffers")
        if m.startswith("lean_gym.buffers.")
    }


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
