"""pass@k of candidate proofs against a theorem set, judged by the oracle (what ``lean-gym eval`` runs).

The estimator is the unbiased one of Chen et al. 2021 ("Evaluating Large Language Models Trained on
Code"): for a problem with ``n`` candidates of which ``c`` are accepted,
``pass@k = 1 - C(n - c, k) / C(n, k)``, averaged over problems. It is computed as a running product so it
never overflows.

Candidates file: JSONL, one object per line, each naming its theorem with ``name`` and giving either one
candidate (``proof``, ``completion``, ``output``, ``response`` or ``candidate``) or a list (``proofs`` or
``candidates``). Several lines may name the same theorem. A candidate is a tactic block or a whole theorem,
as the ``LeanProof-v0`` action.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from lean_gym.backends import Backend
from lean_gym.backends.lazy import resolve_backend
from lean_gym.data.theorem import statement_problem
from lean_gym.grading.oracle import Oracle
from lean_gym.grading.statement import TargetTheorem, as_target, build_submission
from lean_gym.jsonl import read_jsonl_objects

__all__ = ["load_candidates", "pass_at_k", "run_eval", "score_pass_at_k"]

_SINGLE_KEYS = ("proof", "completion", "output", "response", "candidate")
_LIST_KEYS = ("proofs", "candidates", "completions", "outputs")


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimate for one problem: ``1 - C(n-c, k) / C(n, k)``.

    Args:
        n: Candidates generated (``n >= k``).
        c: Candidates accepted (``0 <= c <= n``).
        k: The budget.

    Raises:
        ValueError: when ``n < k``, ``k < 1`` or ``c`` is out of range.

    Example:
        >>> round(pass_at_k(10, 3, 1), 6), round(pass_at_k(10, 3, 5), 6)
        (0.3, 0.916667)
    """
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    if n < k:
        raise ValueError(f"pass@{k} needs at least {k} candidates per problem, got n={n}")
    if not 0 <= c <= n:
        raise ValueError(f"c must be in [0, n={n}], got {c}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def load_candidates(path: str | os.PathLike[str]) -> dict[str, list[str]]:
    """Candidates by theorem name, in file order.

    Raises:
        ValueError: naming the line, for invalid JSON or a row without a name or a candidate.
    """
    out: dict[str, list[str]] = {}
    for where, row in read_jsonl_objects(path):
        if not isinstance(row.get("name"), str):
            raise ValueError(f"{where}: each row needs a string 'name' (the theorem's)")
        cands: list[str] = []
        for key in _LIST_KEYS:
            if isinstance(row.get(key), list):
                bad = [x for x in row[key] if not isinstance(x, str)]
                if bad:
                    raise ValueError(
                        f"{where}: {key!r} must be a list of strings, got a {type(bad[0]).__name__}"
                    )
                cands.extend(row[key])
        for key in _SINGLE_KEYS:
            if isinstance(row.get(key), str):
                cands.append(row[key])
        if not cands:
            raise ValueError(
                f"{where}: no candidate; give one of {', '.join(_SINGLE_KEYS)} or a list in {', '.join(_LIST_KEYS)}"
            )
        out.setdefault(row["name"], []).extend(cands)
    return out


def _theorems(dataset: Any, split: str | None) -> list[Any]:
    if isinstance(dataset, (str, os.PathLike)):
        from lean_gym.data import load_theorems

        theorems = list(load_theorems(os.fspath(dataset), split=split))
        if not theorems and split is not None:
            present = sorted({t.split for t in load_theorems(os.fspath(dataset)) if t.split})
            raise ValueError(
                f"no theorems in split {split!r} of {os.fspath(dataset)}"
                + (f"; its splits are {', '.join(present)}" if present else "")
            )
        return theorems
    return list(dataset)


def _targets(theorems: Sequence[Any]) -> dict[str, TargetTheorem]:
    """The dataset's theorems by name; each must be one theorem header, and no two may share a name.

    Candidates name their theorem, so a repeated name would score the candidates of one row against
    another's statement.

    Raises:
        ValueError: naming the rows.
    """
    out: dict[str, TargetTheorem] = {}
    first: dict[str, int] = {}
    for i, x in enumerate(theorems):
        try:
            t = as_target(x)
        except ValueError as e:
            raise ValueError(f"dataset row {i}: {e}") from e
        problem = statement_problem(t.formal_statement)
        if problem is not None:
            raise ValueError(f"dataset row {i} ({t.name}): formal_statement {problem}")
        if t.name in out:
            raise ValueError(
                f"dataset rows {first[t.name]} and {i} are both named {t.name!r}: candidates name their "
                "theorem, so every name must be unique"
            )
        out[t.name] = t
        first[t.name] = i
    return out


def score_pass_at_k(counts: Sequence[tuple[str, int, int]], k_values: Iterable[int]) -> dict[str, Any]:
    """pass@k of per-problem ``(name, n, c)`` counts: over every problem (the headline), and per k.

    Two views come out:

    * ``pass@k``, the headline (what papers report): the mean over *every* problem given, where a problem
      with fewer than ``k`` candidates counts the missing ones as failures (one with no candidate scores 0).
      Each k is computed on its own, so pass@1 is the same whatever other k are asked for.
    * ``pass@k_each``, the coverage view: each k over only the problems with at least ``k`` candidates
      (``problems_each`` says how many; ``None`` when there are none).

    Args:
        counts: ``(name, n, c)`` per problem: candidates judged and candidates accepted.
        k_values: The budgets (positive integers).

    Returns:
        ``pass@k`` and ``pass@k_each`` (``{"pass@1": float | None, …}``), ``problems`` (how many problems
        the headline averages over), ``problems_each`` and ``short_each`` (per k, the problems with at least
        one but fewer than ``k`` candidates, whose missing candidates the headline counts as failures).

    Example:
        >>> s = score_pass_at_k([("a", 2, 1), ("b", 1, 1), ("c", 0, 0)], [1, 2])
        >>> s["pass@k"], s["problems"]
        ({'pass@1': 0.5, 'pass@2': 0.6666666666666666}, 3)
        >>> s["pass@k_each"], s["problems_each"], s["short_each"]
        ({'pass@1': 0.75, 'pass@2': 1.0}, {'pass@1': 2, 'pass@2': 1}, {'pass@1': 0, 'pass@2': 1})
    """
    ks = sorted({int(k) for k in k_values})
    if not ks or ks[0] < 1:
        raise ValueError(f"k_values must be positive integers, got {list(k_values)}")
    headline: dict[str, float | None] = {}
    each: dict[str, float | None] = {}
    problems_each: dict[str, int] = {}
    short_each: dict[str, int] = {}
    for k in ks:
        key = f"pass@{k}"
        # a missing candidate is a failed one: pad every problem to k candidates with failures
        padded = [pass_at_k(max(n, k), c, k) for _, n, c in counts]
        headline[key] = sum(padded) / len(padded) if padded else None
        covered = [pass_at_k(n, c, k) for _, n, c in counts if n >= k]
        each[key] = sum(covered) / len(covered) if covered else None
        problems_each[key] = len(covered)
        short_each[key] = sum(1 for _, n, _ in counts if 0 < n < k)
    return {
        "pass@k": headline,
        "problems": len(counts),
        "pass@k_each": each,
        "problems_each": problems_each,
        "short_each": short_each,
    }


def run_eval(
    candidates_path: str | os.PathLike[str],
    dataset: str | os.PathLike[str] | Sequence[Any],
    *,
    k_values: Iterable[int] = (1,),
    backend: str | Backend = "auto",
    split: str | None = None,
    progress: bool = True,
    batch_size: int = 64,
    timeout: float | None = None,
    allow_native_decide: bool = False,
) -> dict[str, Any]:
    """Judge every candidate with the oracle and compute pass@k (see :func:`score_pass_at_k`).

    The headline ``pass@k`` is over every theorem of the dataset's split, a missing candidate counting as
    a failure (a theorem with none scores 0; they are listed under ``missing``); ``pass@k_each`` is each k
    over the theorems with at least k candidates. Candidates naming theorems outside the dataset are
    listed under ``unknown_names`` and ignored.

    Args:
        candidates_path: The JSONL file of candidates (see the module docstring).
        dataset: A source for :func:`lean_gym.data.load_theorems` (``"sim"``, a miniF2F JSONL path…) or a
            list of theorems.
        k_values: The budgets to report.
        backend: ``"auto"``, ``"sim"``, ``"repl"`` or a Backend instance (not closed here).
        split: The dataset split to load (``None``: every split of a named dataset).
        progress: Show a tqdm progress bar on stderr.
        batch_size: Candidates per ``check_batch``.
        timeout: Seconds per check.
        allow_native_decide: Passed to the oracle.

    Returns:
        A JSON-ready dict: ``backend``, ``split``, ``n_problems``, ``n_candidates``, the fields of
        :func:`score_pass_at_k` (``pass@k``, ``problems``, ``pass@k_each``, ``problems_each``,
        ``short_each``), ``accepted``, ``hack_classes`` (rejections by class), ``per_problem``
        (``name``, ``n``, ``c``, ``hack_classes`` and the problem's own ``pass@k`` for each k it has
        enough candidates for), ``missing`` and ``unknown_names``.

    Raises:
        FileNotFoundError: for a missing candidates or dataset file.
        ValueError: for a malformed candidates row (naming the line), a candidates file with no candidate,
            candidates none of which names a theorem of the split (with a "did you mean"), an empty split or
            bad arguments. All are found before a backend starts.
    """
    ks = sorted({int(k) for k in k_values})
    if not ks or ks[0] < 1:
        raise ValueError(f"k_values must be positive integers, got {list(k_values)}")
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    # Read the inputs before starting a backend: a typo should cost nothing.
    targets = _targets(_theorems(dataset, split))
    candidates = load_candidates(candidates_path)
    if not candidates:
        raise ValueError(f"{os.fspath(candidates_path)} has no candidates (an empty file?)")
    if not any(name in targets for name in candidates):
        some = next(iter(candidates))
        close = difflib.get_close_matches(some, list(targets), n=1)
        hint = f"; did you mean {close[0]!r} for {some!r}?" if close else ""
        raise ValueError(
            f"none of the {len(candidates)} names in {os.fspath(candidates_path)} is a theorem of this split "
            f"({len(targets)} theorems, e.g. {next(iter(targets))!r}){hint}"
        )
    be, owned = resolve_backend(backend)
    try:
        unknown = sorted(name for name in candidates if name not in targets)
        items = [(name, cand) for name, cands in candidates.items() if name in targets for cand in cands]
        oracle = Oracle(be, allow_native_decide=allow_native_decide, timeout=timeout)
        accepted: Counter[str] = Counter()
        classes: Counter[str] = Counter()
        by_problem: dict[str, Counter[str]] = {}
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(items), desc="oracle", unit="proof")
        for start in range(0, len(items), batch_size):
            chunk = items[start : start + batch_size]
            verdicts = oracle.judge_batch(
                [(targets[name], build_submission(targets[name], cand)) for name, cand in chunk]
            )
            for (name, _), v in zip(chunk, verdicts):
                if v.accepted:
                    accepted[name] += 1
                else:
                    cls = v.hack_class or "unknown"
                    classes[cls] += 1
                    by_problem.setdefault(name, Counter())[cls] += 1
            if bar is not None:
                bar.update(len(chunk))
        if bar is not None:
            bar.close()
        counts = [(name, len(candidates.get(name, [])), accepted[name]) for name in targets]
        per_problem = [
            {
                "name": name,
                "n": n,
                "c": c,
                "hack_classes": dict(by_problem.get(name, Counter()).most_common()),
                **{f"pass@{k}": pass_at_k(n, c, k) for k in ks if n >= k},
            }
            for name, n, c in counts
        ]
        return {
            "backend": be.name,
            "split": split,
            "n_problems": len(targets),
            "n_candidates": len(items),
            **score_pass_at_k(counts, ks),
            "accepted": sum(accepted.values()),
            "hack_classes": dict(classes.most_common()),
            "per_problem": per_problem,
            "missing": [name for name, n, _ in counts if n == 0],
            "unknown_names": unknown,
        }
    finally:
        if owned:
            be.close()
