"""``load_theorems``: one entry point over every theorem source lean-gym reads."""

from __future__ import annotations

import difflib
import re
import warnings
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from lean_gym.data.theorem import Theorem, statement_problem
from lean_gym.errors import DatasetNotFoundError, MissingDependencyError
from lean_gym.jsonl import read_jsonl_objects
from lean_gym.lean.lexer import lex

__all__ = [
    "NAMED_SOURCES",
    "HeaderlessRowsWarning",
    "load_theorems",
    "satp_lean_figures",
    "satp_minif2f_split",
    "theorem_from_row",
]

_MINIF2F_KEYS = ("name", "formal_statement")
_SATP_KEYS = ("context_theorem",)


def load_theorems(source: str | Path, split: str | None = None, *, limit: int | None = None) -> list[Theorem]:
    """Load theorems from the simulator's families, a JSONL/parquet file, or a Hugging Face dataset.

    Sources:

    * ``"sim"``: the simulator's seeded goal families (:mod:`lean_gym.sim.families`), 300 theorems per
      split; ``split`` is ``"train"``, ``"valid"`` or ``"test"`` (``None``: all three).
    * ``"minif2f"``: the full miniF2F (488 rows, ``valid`` and ``test``), once fetched with
      ``lean-gym data fetch minif2f`` (:mod:`lean_gym.data.remote`; never downloaded here: when it is
      missing the error says how to fetch it). ``"minif2f-sample"``: the 8-row sample that ships with the
      package (:data:`lean_gym.data.MINIF2F_SAMPLE`). ``"satp-minif2f"`` (the default set of
      ``LeanAesop-v0``): the 92 miniF2F-test theorems that SATP's policy proved on Lean v4.26.0 (each with
      its own aesop call), shipped with the package as SATP's record (``lean_gym/conformance/cases/satp/``):
      a set on which every statement is known to be provable by some aesop config on Lean. SATP's record
      has no split of its own (all 92 are miniF2F-test), so lean-gym splits them into ``train`` (46) and
      ``test`` (46) by :func:`satp_minif2f_split`; ``split=None`` gives all 92.
    * A path to a JSONL file in the miniF2F format (``name``, ``split``, ``informal_prefix``,
      ``formal_statement``, ``goal``, ``header``); only ``name`` and ``formal_statement`` are required.
      A row without ``header`` is checked with no imports at all, as Lean would check it (Lean core only:
      no ``ℝ``, no ``nlinarith``); a warning at load time says how many rows have none.
    * A path to a JSONL or ``.parquet`` file in SATP's dataset schema (``context_theorem``,
      ``context_goal_state``, ``context_lemmas``, ``context_lemma_scores``; ``uuid_goal`` when present).
      Rows that repeat a goal (the replay buffer has many per goal) are kept once. Parquet needs
      ``pyarrow`` (``pip install -e '.[parquet]'``).
    * Any other string: a Hugging Face dataset name, loaded with ``datasets.load_dataset`` (needs
      ``pip install -e '.[hf]'``); rows in either schema.

    Args:
        source: ``"sim"``, a file path or a dataset name.
        split: Keep only rows of this split (rows without a split are kept when the file has no splits).
        limit: Keep at most this many theorems (after filtering by split).

    Returns:
        The theorems, in the source's order.

    Raises:
        FileNotFoundError: If a path-like source does not exist.
        ValueError: If a row lacks required fields or has fields of the wrong type (the message names the
            row), or ``split`` is unknown for the simulator.
        ImportError: If parquet or a Hugging Face dataset is asked for and its library is missing.
        DatasetNotFoundError: For ``"minif2f"`` when it has not been fetched, or a name that looks like a
            typo of a known one ("did you mean …").
    """
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    src = str(source)
    if src in _PACKAGED:
        return list(_packaged_theorems(src, split, limit))
    return _load_theorems(src, split, limit)


#: The sources whose theorems are a function of the package alone (generated, or files it ships).
_PACKAGED = ("sim", "satp-minif2f")


@lru_cache(maxsize=32)
def _packaged_theorems(src: str, split: str | None, limit: int | None) -> tuple[Theorem, ...]:
    """The theorems of a :data:`_PACKAGED` source, read once per process.

    Each env built over one reads its whole list (300 rows of a simulator split: 25 ms), and envs are built
    many times (one per vector sub-env, per worker); theorems are frozen, and callers get a list of their own.
    """
    return tuple(_load_theorems(src, split, limit))


def _load_theorems(src: str, split: str | None, limit: int | None) -> list[Theorem]:
    if src == "sim":
        from lean_gym.sim.families import DEFAULT_SPLIT_SIZE, generate_split

        splits = ("train", "valid", "test") if split is None else (split,)
        out: list[Theorem] = []
        for sp in splits:
            n = DEFAULT_SPLIT_SIZE if limit is None else min(DEFAULT_SPLIT_SIZE, limit - len(out))
            if n <= 0:
                break
            rows = generate_split(sp, n=n)
            out.extend(theorem_from_row(r, where=f"sim:{sp}[{i}]", source="sim") for i, r in enumerate(rows))
        return out
    if src == "satp-minif2f":
        return _collect(_satp_rows(), split, limit, source=src)
    if src in NAMED_SOURCES:
        src = str(_named_source(src))
    path = Path(src).expanduser()
    looks_like_path = path.suffix in (".jsonl", ".json", ".parquet") or "/" in src or src.startswith(".")
    if path.exists() or (looks_like_path and not _looks_like_hf_name(src)):
        if not path.exists():
            raise FileNotFoundError(f"no theorem file at {path}")
        if path.suffix == ".parquet":
            rows_iter = _read_parquet(path)
        else:
            rows_iter = _read_jsonl(path)
        return _collect(rows_iter, split, limit, source=str(path))
    close = difflib.get_close_matches(src, ["sim", *NAMED_SOURCES], n=1, cutoff=0.75)
    if close and "/" not in src:
        raise DatasetNotFoundError(
            f"no theorem source {src!r}: not a file, and not one of sim, {', '.join(NAMED_SOURCES)}; "
            f"did you mean {close[0]!r}?"
        )
    return _collect(_read_hf(src, split), split, limit, source=src)


#: Theorem sources known by name (besides ``"sim"``).
NAMED_SOURCES = ("minif2f", "minif2f-sample", "satp-minif2f")


def satp_lean_figures(source: str | None = None) -> str:
    """SATP's published figures on Lean (miniF2F-test, 244 statements), as one line for reports.

    Beside the simulator's: plain aesop, the best single static config, the learned policy (from
    ``lean_gym/conformance/cases/satp/figures.json``, each with its source there). With ``source``
    ``"satp-minif2f"`` (``LeanAesop-v0``'s default set), the line also says what Lean did on that set.
    """
    import json

    path = Path(__file__).parents[1] / "conformance" / "cases" / "satp" / "figures.json"
    figs = {f["name"]: f for f in json.loads(path.read_text(encoding="utf-8"))["figures"] if "rate" in f}

    def fig(name: str) -> str:
        return f"{100 * figs[name]['rate']:.1f}% ({figs[name]['proved']}/{figs[name]['of']})"

    line = (
        f"SATP on Lean (miniF2F-test, not the simulator): plain aesop {fig('plain_aesop')}, best static "
        f"config {fig('best_static')}, learned policy {fig('policy')}"
    )
    if source == "satp-minif2f":
        line += (
            "; the satp-minif2f set is the 92 its policy proved, so on Lean SATP's own per-goal call proves "
            "every theorem of each split (100%), and Lean's plain aesop at most 26 of the 92"
        )
    return line


def satp_minif2f_split(names: Iterable[str]) -> dict[str, str]:
    """lean-gym's ``train``/``test`` split of SATP's 92 theorems: stratified by competition, fixed by name.

    SATP's record has no split of its own: all 92 are miniF2F-test (SATP trained on NuminaMath-LEAN), so an
    agent that trains and is tested on them needs one. The theorems are grouped by miniF2F's problem source
    (the name's prefix: ``mathd_algebra``, ``mathd_numbertheory``, ``amc``, ``aime``, ``algebra``, ...),
    the groups taken in alphabetical order, each group's names ordered by their SHA-256, and the whole
    list dealt alternately to ``test`` and ``train``. Each competition is then split evenly (within one
    theorem), the halves differ by at most one, and the split depends on nothing but the names: not on the
    file's order, a seed or what any backend proves (so it is the same on the simulator and on Lean).

    Example:
        >>> satp_minif2f_split(["mathd_algebra_1", "mathd_algebra_2"])
        {'mathd_algebra_1': 'test', 'mathd_algebra_2': 'train'}
    """
    import hashlib

    def group(name: str) -> str:
        m = re.match(r"mathd_[a-z]+|[a-z]+", name)
        return m.group() if m else ""

    ordered = sorted(names, key=lambda n: (group(n), hashlib.sha256(n.encode("utf-8")).hexdigest()))
    return {n: ("test", "train")[k % 2] for k, n in enumerate(ordered)}


def _satp_rows() -> Iterable[tuple[str, Mapping[str, Any]]]:
    """SATP's 92 miniF2F-test theorems, each proved on Lean v4.26.0 by SATP's aesop call.

    From ``lean_gym/conformance/cases/satp/satp_minimal.jsonl``: rows in the miniF2F schema, in the file's
    order, each with its split of :func:`satp_minif2f_split` and a ``goal``: the statement's own hypotheses
    and target written as a goal state, so that the observation is the same text on every backend (the
    simulator does not read 6 of the 92 statements). For 66 of the 92 it is byte for byte the goal state
    Lean prints: its ``uuid16`` is the goal uuid SATP recorded for the theorem (``satp_calls.jsonl``); the
    others differ where Lean's printer writes a term otherwise than the statement does.
    """
    import json

    from lean_gym.data.goal_state import goal_state_text, parse_theorem_form

    path = Path(__file__).parents[1] / "conformance" / "cases" / "satp" / "satp_minimal.jsonl"
    rows = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        case = json.loads(line)
        code = case["code"]
        stmt = code[: code.index(":= by\n") + len(":= by\n")]
        name = stmt.split(None, 2)[1]
        goal = goal_state_text(*parse_theorem_form(stmt))
        row = {"name": name, "formal_statement": stmt, "header": case["header"], "goal": goal}
        rows.append((f"{path.name}:{i}", row))
    split = satp_minif2f_split(row["name"] for _, row in rows)
    for where, row in rows:
        yield where, {**row, "split": split[row["name"]]}


def _named_source(name: str) -> Path:
    if name == "minif2f-sample":
        return Path(__file__).parent / "samples" / "minif2f_sample.jsonl"
    from lean_gym.data.remote import dataset_path

    return dataset_path(name)


def _looks_like_hf_name(src: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", src)) and not src.endswith(
        (".jsonl", ".json", ".parquet")
    )


def _collect(
    rows: Iterable[tuple[str, Mapping[str, Any]]], split: str | None, limit: int | None, source: str
) -> list[Theorem]:
    out: list[Theorem] = []
    seen_goals: set[str] = set()
    headerless: list[str] = []
    for where, row in rows:
        thm = theorem_from_row(row, where=where, source=source)
        if split is not None and thm.split and thm.split != split:
            continue
        if "context_theorem" in row:
            key = str(row.get("uuid_goal") or thm.goal or thm.formal_statement)
            if key in seen_goals:
                continue
            seen_goals.add(key)
        out.append(thm)
        if not thm.header.strip():
            headerless.append(thm.name)
        if limit is not None and len(out) >= limit:
            break
    if headerless:
        warnings.warn(
            f"{source}: {len(headerless)} of {len(out)} theorems have no header (first: {headerless[0]}); they "
            "are checked under Lean core alone, where Mathlib's `ℝ`, `ℕ` and `nlinarith` do not exist. Add a "
            '"header" field (e.g. "import Mathlib") to each row that needs Mathlib',
            HeaderlessRowsWarning,
            stacklevel=4,  # _collect, _load_theorems, load_theorems: the caller's line
        )
    return out


class HeaderlessRowsWarning(UserWarning):
    """Rows of a theorem file have no ``header``: they are checked with no imports, as Lean would check them."""


def _read_jsonl(path: Path) -> Iterable[tuple[str, Mapping[str, Any]]]:
    return read_jsonl_objects(path)


def _read_parquet(path: Path) -> Iterable[tuple[str, Mapping[str, Any]]]:
    try:
        import pyarrow.parquet as pq
    except ImportError as e:
        raise ImportError(
            f"reading {path} needs pyarrow; install it with `pip install -e '.[parquet]'`"
        ) from e
    table = pq.read_table(path)
    for i, row in enumerate(table.to_pylist()):
        yield f"{path}[row {i}]", row


def _read_hf(name: str, split: str | None) -> Iterable[tuple[str, Mapping[str, Any]]]:
    try:
        import datasets
    except ImportError as e:
        raise MissingDependencyError(
            f"{name!r} is not a file and not 'sim'; loading it as a Hugging Face dataset needs the `datasets` "
            "package: `pip install -e '.[hf]'`"
        ) from e
    ds = datasets.load_dataset(name, split=split or "train")
    for i, row in enumerate(ds):
        yield f"{name}[{split or 'train'}][row {i}]", row


def _text(row: Mapping[str, Any], key: str, where: str, required: bool = True) -> str:
    v = row.get(key)
    if v is None:
        if required:
            raise ValueError(f"{where}: missing required field {key!r} (fields present: {sorted(row)})")
        return ""
    if not isinstance(v, str):
        raise ValueError(f"{where}: field {key!r} must be a string, got {type(v).__name__}")
    return v


def _lemmas(row: Mapping[str, Any], where: str) -> tuple[tuple[str, ...], tuple[float, ...]]:
    lemmas = row.get("context_lemmas")
    scores = row.get("context_lemma_scores")
    if lemmas is None:
        return (), ()
    if isinstance(lemmas, str) or not isinstance(lemmas, Iterable):
        raise ValueError(f"{where}: context_lemmas must be a list of names, got {type(lemmas).__name__}")
    lem = tuple(str(x) for x in lemmas)
    if scores is None:
        sc: tuple[float, ...] = tuple(0.0 for _ in lem)
    else:
        try:
            sc = tuple(float(x) for x in scores)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{where}: context_lemma_scores must be numbers ({e})") from e
    if len(sc) != len(lem):
        raise ValueError(
            f"{where}: {len(lem)} context_lemmas but {len(sc)} context_lemma_scores; they must pair up"
        )
    return lem, sc


def _split_context(full: str, where: str) -> tuple[str, str, str | None]:
    """``(header, statement through its first top-level ``:= by``, name)`` of a SATP ``context_theorem``.

    Read by the one lexer: the declaration is the first ``theorem``/``lemma``/``example`` token outside
    comments, and its statement ends at its own ``:=`` (a ``:= by`` inside the proof that follows, as in
    ``have h : … := by``, is not the statement's).

    Raises:
        ValueError: naming the row, when there is no declaration or no ``:= by`` after it.
    """
    toks = [t for t in lex(full) if t.kind not in ("comment", "doc")]
    k = next(
        (i for i, t in enumerate(toks) if t.kind == "ident" and t.text in ("theorem", "lemma", "example")),
        None,
    )
    if k is None:
        raise ValueError(f"{where}: context_theorem has no `theorem`/`lemma`/`example` declaration")
    start = toks[k].start
    # attributes and doc comments right before the keyword belong to the declaration
    for t in reversed(lex(full[:start])):
        if t.kind == "doc" or (t.kind == "ident" and t.text in ("private", "protected", "noncomputable")):
            start = t.start
        elif t.kind != "comment":
            break
    depth, j = 0, k + 1
    while j < len(toks):
        t = toks[j]
        if t.kind == "sym" and t.text in ("(", "[", "{", "⦃", "⟨", "@["):
            depth += 1
        elif t.kind == "sym" and t.text in (")", "]", "}", "⦄", "⟩"):
            depth -= 1
        elif depth == 0 and t.kind == "sym" and t.text == ":=":
            break
        j += 1
    if j + 1 >= len(toks) or toks[j + 1].text != "by":
        raise ValueError(
            f"{where}: context_theorem has no `:= by` after its `{toks[k].text}`; lean-gym needs "
            "tactic-mode statements (miniF2F style)"
        )
    name = toks[k + 1].text if toks[k].text != "example" and k + 1 < j else None
    return full[:start], full[start : toks[j + 1].end], name


def theorem_from_row(row: Mapping[str, Any], *, where: str = "row", source: str = "") -> Theorem:
    """Turn one row (miniF2F, simulator-family or SATP schema) into a :class:`Theorem`.

    Args:
        row: The row's fields.
        where: How to name the row in error messages (``file:line``).
        source: Recorded in :attr:`Theorem.source`.

    Raises:
        ValueError: If the row fits neither schema or a field has the wrong type.
    """
    if not isinstance(row, Mapping):
        raise ValueError(f"{where}: expected a mapping, got {type(row).__name__}")
    lemmas, scores = _lemmas(row, where)
    if all(k in row for k in _MINIF2F_KEYS):
        stmt = _text(row, "formal_statement", where)
        problem = statement_problem(stmt)
        if problem is not None:
            raise ValueError(f"{where}: formal_statement {problem}")
        diff = row.get("difficulty") or 0
        if not isinstance(diff, int):
            raise ValueError(f"{where}: difficulty must be an integer, got {type(diff).__name__}")
        return Theorem(
            name=_text(row, "name", where),
            formal_statement=stmt,
            goal=_text(row, "goal", where, required=False),
            header=_text(row, "header", where, required=False),
            split=_text(row, "split", where, required=False),
            context_lemmas=lemmas,
            context_lemma_scores=scores,
            informal_prefix=_text(row, "informal_prefix", where, required=False),
            family=_text(row, "family", where, required=False),
            difficulty=diff,
            source=source,
        )
    if all(k in row for k in _SATP_KEYS):
        full = _text(row, "context_theorem", where)
        header, head, name_tok = _split_context(full, where)
        uuid = row.get("uuid_goal")
        name = name_tok or (f"goal_{uuid}" if uuid else f"goal_{where}")
        return Theorem(
            name=name,
            formal_statement=head + "\n",
            goal=_text(row, "context_goal_state", where, required=False),
            header=header,
            split=_text(row, "split", where, required=False),
            context_lemmas=lemmas,
            context_lemma_scores=scores,
            source=source,
        )
    raise ValueError(
        f"{where}: row fits no known schema: need {list(_MINIF2F_KEYS)} (miniF2F) or {list(_SATP_KEYS)} "
        f"(SATP); fields present: {sorted(row)}"
    )
