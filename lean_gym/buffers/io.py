"""Reading and writing buffer tables: Parquet (needs ``pyarrow``), JSONL (standard library) and the hub.

Everything here works on a :class:`Table`: the rows of one public schema with their *contexts* (goal uuid,
goal, theorem, lemmas, scores) interned, so that a million rows over a few tens of thousands of goals hold
each goal's text once. The Parquet reader interns with Arrow dictionary encoding before any Python string is
made; the JSONL reader interns with a dict.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from lean_gym.buffers._errors import format_error, import_optional
from lean_gym.buffers.schema import (
    ACTION_COLUMNS,
    CURRENT_COLUMNS,
    CURRENT_EXTRA_COLUMNS,
    LEGACY_COLUMNS,
    LEGACY_EXTRA_COLUMNS,
    SchemaName,
    detect_schema,
)

__all__ = [
    "JSONL_SUFFIXES",
    "PARQUET_SUFFIXES",
    "ActionColumn",
    "Table",
    "file_format",
    "read_hub",
    "read_jsonl",
    "read_parquet",
    "write_table",
]

PARQUET_SUFFIXES = (".parquet", ".pq")
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")

try:  # orjson is a fast drop-in when present; never required.
    import orjson as _orjson

    def _loads(line: bytes) -> Any:
        return _orjson.loads(line)

    def _dumps(obj: Any) -> bytes:
        return _orjson.dumps(obj)

except ImportError:  # pragma: no cover - depends on the environment

    def _loads(line: bytes) -> Any:
        return json.loads(line)

    def _dumps(obj: Any) -> bytes:
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


# Field names of a context, in key order, and the public column that holds each in either schema.
_CONTEXT_FIELDS = ("goal_uuid", "goal", "theorem", "lemmas", "scores")
_CONTEXT_COLUMNS: dict[SchemaName, tuple[str, ...]] = {
    "current": (
        "uuid_goal",
        "context_goal_state",
        "context_theorem",
        "context_lemmas",
        "context_lemma_scores",
    ),
    "legacy": ("uuid", "goal_state", "formal_statement", "lemma_names", "lemma_scores"),
}


@dataclass
class Table:
    """One public-schema table with interned contexts.

    Attributes:
        schema: ``"current"`` or ``"legacy"``.
        ctx: Context index of every row, ``int64`` of shape ``(n,)``.
        goal_uuid, goal, theorem, lemmas, scores: The distinct contexts (``goal_uuid`` may hold ``None``
            where the file has no uuid; the caller computes it).
        columns: The non-context columns, by public name, as Python lists (``None`` for nulls).
        actions: lean-gym's action-vector columns that the file has, as ``int16`` ``(n, H)`` arrays with
            -1 in every head of a null row.
    """

    schema: SchemaName
    ctx: np.ndarray
    goal_uuid: list[str | None]
    goal: list[str]
    theorem: list[str]
    lemmas: list[tuple[str, ...]]
    scores: list[tuple[float, ...]]
    columns: dict[str, list[Any]] = field(default_factory=dict)
    actions: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.ctx.shape[0])


@dataclass(frozen=True)
class ActionColumn:
    """An action-vector column to write: ``values`` ``(m, H)``, and which rows are null (``valid`` False)."""

    values: np.ndarray
    valid: np.ndarray

    def to_list(self) -> list[list[int] | None]:
        """Each row's vector as a list, ``None`` where it is not known."""
        rows = self.values.tolist()
        return [r if ok else None for r, ok in zip(rows, self.valid.tolist())]


def _actions_from_lists(values: list[Any]) -> np.ndarray | None:
    """``(n, H)`` int16 from per-row lists (``None`` rows become -1); ``None`` if the widths disagree."""
    widths = {len(v) for v in values if v is not None}
    if len(widths) != 1:
        return None
    h = widths.pop()
    out = np.full((len(values), h), -1, dtype=np.int16)
    for i, v in enumerate(values):
        if v is not None:
            out[i] = v
    return out


def file_format(path: str | os.PathLike[str]) -> str:
    """``"parquet"`` or ``"jsonl"`` from a file name's suffix.

    Raises:
        LeanGymError: The suffix is neither (the message lists the accepted ones).
    """
    suffix = Path(path).suffix.lower()
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    if suffix in JSONL_SUFFIXES:
        return "jsonl"
    raise format_error(
        f"cannot tell the format of {os.fspath(path)!r} from its suffix; use one of "
        f"{PARQUET_SUFFIXES + JSONL_SUFFIXES}"
    )


def _pa() -> Any:
    return import_optional("pyarrow", "parquet", "reading or writing Parquet")


# --------------------------------------------------------------------------------------------------- JSONL
def iter_jsonl(path: str | os.PathLike[str], *, allow_torn_tail: bool = False) -> Iterator[dict[str, Any]]:
    """Yield the JSON objects of a JSONL file, one per non-blank line.

    Args:
        path: The file.
        allow_torn_tail: Skip a last line that is not terminated by a newline and does not parse (a write
            cut short by a crash). A complete line (newline-terminated) that does not parse is corruption,
            not a torn write, and is an error wherever it is.

    Raises:
        LeanGymError: A line is not a JSON object.
    """

    def parse(line: bytes, number: int, last: bool) -> dict[str, Any] | None:
        try:
            obj = _loads(line)
        except ValueError as e:
            if allow_torn_tail and last and not line.endswith(b"\n"):
                return None
            raise format_error(f"{os.fspath(path)}:{number}: not valid JSON ({e})") from e
        if not isinstance(obj, dict):
            raise format_error(
                f"{os.fspath(path)}:{number}: expected a JSON object, got {type(obj).__name__}"
            )
        return obj

    # Streamed with one line of lookahead, so only the file's last non-blank line may be torn.
    pending: tuple[bytes, int] | None = None
    with open(path, "rb") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            if pending is not None:
                obj = parse(pending[0], pending[1], last=False)
                if obj is not None:
                    yield obj
            pending = (line, number)
    if pending is not None:
        obj = parse(pending[0], pending[1], last=True)
        if obj is not None:
            yield obj


def read_jsonl(path: str | os.PathLike[str]) -> Table:
    """Read a JSONL buffer file of either schema (detected from the first row's keys), streaming."""
    return table_from_records(iter_jsonl(path), source=os.fspath(path))


def table_from_records(records: Iterable[dict[str, Any]], *, source: str = "records") -> Table:
    """Build a :class:`Table` from row dicts of one public schema (consumed one at a time).

    Raises:
        LeanGymError: The rows match no schema, or there are none (the schema cannot be told).
    """
    it = iter(records)
    first = next(it, None)
    if first is None:
        raise format_error(f"{source}: no rows, so the schema cannot be told")
    schema = detect_schema(first.keys())
    names = _CONTEXT_COLUMNS[schema]
    other = _other_columns(schema)
    index: dict[tuple[Any, ...], int] = {}
    ctx: list[int] = []
    contexts: list[tuple[Any, ...]] = []
    action_names = [name for name in ACTION_COLUMNS[schema] if name in first]
    columns: dict[str, list[Any]] = {name: [] for name in (*other, *action_names)}
    appends = [(name, columns[name].append) for name in (*other, *action_names)]
    for rec in itertools.chain((first,), it):
        key = (
            rec.get(names[0]),
            rec.get(names[1]) or "",
            rec.get(names[2]) or "",
            tuple(rec.get(names[3]) or ()),
            tuple(float(s) for s in rec.get(names[4]) or ()),
        )
        j = index.get(key)
        if j is None:
            j = index[key] = len(contexts)
            contexts.append(key)
        ctx.append(j)
        for name, append in appends:
            append(rec.get(name))
    table = _table(schema, np.array(ctx, dtype=np.int64), contexts, columns)
    for name in action_names:
        arr = _actions_from_lists(columns.pop(name))
        if arr is not None:
            table.actions[name] = arr
    return table


def _other_columns(schema: SchemaName) -> tuple[str, ...]:
    if schema == "current":
        base, extra = CURRENT_COLUMNS, CURRENT_EXTRA_COLUMNS
    else:
        base, extra = LEGACY_COLUMNS, LEGACY_EXTRA_COLUMNS
    ctx_names = set(_CONTEXT_COLUMNS[schema])
    return tuple(c for c in base + extra if c not in ctx_names)


def _table(
    schema: SchemaName, ctx: np.ndarray, contexts: list[tuple[Any, ...]], columns: dict[str, list[Any]]
) -> Table:
    return Table(
        schema=schema,
        ctx=ctx,
        goal_uuid=[c[0] for c in contexts],
        goal=[c[1] for c in contexts],
        theorem=[c[2] for c in contexts],
        lemmas=[c[3] for c in contexts],
        scores=[c[4] for c in contexts],
        columns=columns,
    )


# ------------------------------------------------------------------------------------------------- Parquet
def read_parquet(path: str | os.PathLike[str]) -> Table:
    """Read a Parquet buffer file of either schema. Needs ``pyarrow`` (the ``parquet`` extra)."""
    pa = _pa()
    import pyarrow.parquet as pq

    try:
        return table_from_arrow(pq.read_table(path), source=os.fspath(path))
    finally:
        # Arrow's allocator keeps freed pages; the table is gone once its rows are Python objects.
        pa.default_memory_pool().release_unused()


def table_from_arrow(table: Any, *, source: str = "table") -> Table:
    """Build a :class:`Table` from a ``pyarrow.Table`` of one public schema.

    Contexts are interned with Arrow dictionary encoding; only one row per distinct context becomes Python
    objects.
    """
    pa = _pa()
    import pyarrow.compute as pc

    schema = detect_schema(table.column_names)
    n = table.num_rows
    names = _CONTEXT_COLUMNS[schema]
    if n == 0:
        raise format_error(f"{source}: no rows")
    codes: list[np.ndarray] = []
    sizes: list[int] = []
    for name in names:
        if name not in table.column_names:
            codes.append(np.zeros(n, dtype=np.int64))
            sizes.append(1)
            continue
        arr = table.column(name).combine_chunks()
        if pa.types.is_list(arr.type) or pa.types.is_large_list(arr.type):
            if not pa.types.is_string(arr.type.value_type) and not pa.types.is_large_string(
                arr.type.value_type
            ):
                arr = pc.cast(arr, pa.list_(pa.string()))
            arr = pc.binary_join(arr, "\x1f")
        encoded = pc.dictionary_encode(arr)
        idx = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64) + 1
        codes.append(idx)
        sizes.append(len(encoded.dictionary) + 1)
    # One int64 key per row when the code spaces fit (the usual case), else unique over the stacked codes.
    if float(np.prod([float(s) for s in sizes])) < 2.0**62:
        key = np.zeros(n, dtype=np.int64)
        for c, s in zip(codes, sizes):
            key = key * s + c
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    else:
        _, first, inverse = np.unique(np.stack(codes, axis=1), axis=0, return_index=True, return_inverse=True)
    first_rows = pa.array(first)

    def take(name: str) -> list[Any]:
        if name not in table.column_names:
            return [None] * len(first)
        return table.column(name).take(first_rows).to_pylist()

    uuids, goals, theorems, lemmas, scores = (take(name) for name in names)
    contexts = [
        (u, g or "", t or "", tuple(lem or ()), tuple(float(s) for s in sc or ()))
        for u, g, t, lem, sc in zip(uuids, goals, theorems, lemmas, scores)
    ]
    columns = {
        name: _column_list(pa, pc, table.column(name)) if name in table.column_names else [None] * n
        for name in _other_columns(schema)
    }
    out = _table(schema, inverse.reshape(-1).astype(np.int64), contexts, columns)
    for name in ACTION_COLUMNS[schema]:
        if name in table.column_names:
            arr = _actions_from_arrow(pa, pc, table.column(name).combine_chunks())
            if arr is not None:
                out.actions[name] = arr
    return out


def _column_list(pa: Any, pc: Any, column: Any) -> list[Any]:
    """A column as a Python list.

    A string column goes through its dictionary, so equal strings (the same aesop config on many rows,
    the same backend name) are one object.
    """
    arr = column.combine_chunks()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        return arr.to_pylist()
    encoded = pc.dictionary_encode(arr)
    values = [*encoded.dictionary.to_pylist(), None]
    idx = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
    return [values[i] for i in idx.tolist()]


def _actions_from_arrow(pa: Any, pc: Any, col: Any) -> np.ndarray | None:
    """``(n, H)`` int16 from a list column without a Python object per value (nulls become -1 rows)."""
    if not (pa.types.is_list(col.type) or pa.types.is_large_list(col.type)):
        return None
    lengths = pc.list_value_length(col).fill_null(0).to_numpy(zero_copy_only=False)
    present = ~col.is_null().to_numpy(zero_copy_only=False)
    widths = np.unique(lengths[present])
    if widths.size != 1:
        return None if widths.size > 1 else np.full((len(col), 0), -1, dtype=np.int16)
    h = int(widths[0])
    values = pc.list_flatten(col).to_numpy(zero_copy_only=False).astype(np.int16)
    out = np.full((len(col), h), -1, dtype=np.int16)
    out[present] = values.reshape(-1, h)
    return out


# ----------------------------------------------------------------------------------------------------- hub
def read_hub(name: str, *, split: str = "train", revision: str | None = None, **kwargs: Any) -> Table:
    """Read a buffer from the Hugging Face hub (or any ``datasets.load_dataset`` path) by name.

    Args:
        name: A dataset name such as ``"ChristianZ97/NuminaMath-LEAN-satp-buffer"``, or anything else
            ``datasets.load_dataset`` accepts (a local folder of Parquet/JSON files works too).
        split: The split to read.
        revision: A branch, tag or commit of the dataset repository (pin it for reproducible runs).
        **kwargs: Passed on to ``datasets.load_dataset``.

    Raises:
        LeanGymError: ``datasets`` is not installed (the ``hf`` extra), or the rows match no schema.
    """
    datasets = import_optional("datasets", "hf", f"loading {name!r} from the Hugging Face hub")
    if revision is not None:
        kwargs["revision"] = revision
    ds = datasets.load_dataset(name, split=split, **kwargs)
    # The Arrow table behind a freshly loaded Dataset (no index mapping) avoids a Python round trip.
    arrow = getattr(getattr(ds, "data", None), "table", None)
    if arrow is not None and hasattr(arrow, "column_names") and getattr(ds, "_indices", None) is None:
        return table_from_arrow(arrow, source=name)
    columns: dict[str, list[Any]] = ds.to_dict()
    keys = list(columns)
    n = len(columns[keys[0]]) if keys else 0
    return table_from_records([{k: columns[k][i] for k in keys} for i in range(n)], source=name)


# ------------------------------------------------------------------------------------------------- writing
def write_table(
    path: str | os.PathLike[str], columns: dict[str, Callable[[], Any]], types: dict[str, str]
) -> None:
    """Write columns to ``path`` (format from the suffix), atomically (a temporary file, then a rename).

    Args:
        path: The destination.
        columns: Column name to a callable returning the column as a list or array (called once; lazy so
            that JSONL and Parquet can build only what they need).
        types: Column name to one of ``"string"``, ``"list<string>"``, ``"list<float64>"``, ``"int64"``,
            ``"float64"`` (the Parquet types the public cards use), ``"list<int16>"`` (action vectors, given as
            an :class:`ActionColumn`).
    """
    path = Path(path)
    fmt = file_format(path)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        if fmt == "parquet":
            _write_parquet(tmp, columns, types)
        else:
            _write_jsonl(tmp, columns)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    fsync_dir(path.parent)


def fsync_dir(directory: str | os.PathLike[str]) -> None:
    """Make a rename or a new file in ``directory`` durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _arrow_type(pa: Any, name: str) -> Any:
    return {
        "string": pa.string(),
        "list<string>": pa.list_(pa.string()),
        "list<float64>": pa.list_(pa.float64()),
        "int64": pa.int64(),
        "float64": pa.float64(),
        "list<int16>": pa.list_(pa.int16()),
    }[name]


def _write_parquet(path: Path, columns: dict[str, Callable[[], Any]], types: dict[str, str]) -> None:
    pa = _pa()
    import pyarrow.parquet as pq

    arrays = []
    for name, make in columns.items():
        value = make()
        if isinstance(value, ActionColumn):
            m, h = value.values.shape
            offsets = pa.array(np.arange(m + 1, dtype=np.int32) * h)
            flat = pa.array(value.values.astype(np.int16).reshape(-1))
            arr = pa.ListArray.from_arrays(
                offsets, flat, type=pa.list_(pa.int16()), mask=pa.array(~value.valid)
            )
            arrays.append(arr)
        elif isinstance(value, (pa.Array, pa.ChunkedArray)):
            arrays.append(value)
        else:
            arrays.append(pa.array(value, type=_arrow_type(pa, types[name])))
    table = pa.Table.from_arrays(arrays, names=list(columns))
    pq.write_table(table, path, row_group_size=65536)
    del table, arrays
    pa.default_memory_pool().release_unused()


def _write_jsonl(path: Path, columns: dict[str, Callable[[], Any]]) -> None:
    names = list(columns)
    values = [_as_list(columns[name]()) for name in names]
    n = len(values[0]) if values else 0
    with open(path, "wb") as f:
        chunk: list[bytes] = []
        for i in range(n):
            chunk.append(_dumps({name: col[i] for name, col in zip(names, values)}))
            if len(chunk) >= 4096:
                f.write(b"\n".join(chunk) + b"\n")
                chunk.clear()
        if chunk:
            f.write(b"\n".join(chunk) + b"\n")


def _as_list(value: Any) -> list[Any]:
    if isinstance(value, ActionColumn):
        return value.to_list()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if hasattr(value, "to_pylist"):
        return value.to_pylist()
    return list(value)


def dumps_line(obj: dict[str, Any]) -> bytes:
    """One JSONL line (no newline) for ``obj``, UTF-8, compact."""
    return _dumps(obj)
