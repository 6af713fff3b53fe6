"""A SATP buffer whose lemma lists hold odd or repeated names loads: every arm gets its action vector.

The arms are strings SATP's own v1 renderer wrote (``tests/data/satp_vectors/satp-v1.jsonl.gz``), spliced
verbatim whatever the name (``x.1``, ``foo bar``, ``_private.….0.foo``, a name with a newline), in the
buffer's public current schema. Before issue 21 such rows did not parse and were left out of pairs and
sampling.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np

from lean_gym.aesop import is_lean_ident, layout, uuid16
from lean_gym.buffers import HistoryBuffer

DATA = Path(__file__).parent / "data" / "satp_vectors" / "satp-v1.jsonl.gz"


def satp_rows(kind: str, n: int) -> list[dict[str, Any]]:
    with gzip.open(DATA, "rt", encoding="utf-8") as f:
        rows = [r for r in map(json.loads, f) if r["kind"] == kind and "(add" in r["satp"]]
    return rows[:n]


def record(i: int, r: dict[str, Any], bad: str | None = None) -> dict[str, Any]:
    goal = f"x : ℝ\n⊢ x ^ 2 ≥ {i}"
    return {
        "context_theorem": f"import Mathlib\ntheorem t{i} (x : ℝ) : x ^ 2 ≥ {i} := by",
        "context_goal_state": goal,
        "uuid_goal": uuid16(goal),
        "context_lemmas": r["lemmas"],
        "context_lemma_scores": [1.0] * len(r["lemmas"]),
        "arm_good_action": r["satp"],
        "uuid_good_action": r["uuid16"],
        "arm_bad_action": bad,
        "uuid_bad_action": uuid16(bad) if bad else None,
        "diff_head": -1,
    }


def test_rows_with_odd_and_repeated_names_load_with_their_vectors(tmp_path: Path) -> None:
    rows = satp_rows("odd", 40) + satp_rows("repeated", 20)
    assert any(not is_lean_ident(n.strip()) for r in rows for n in r["lemmas"] if n.strip())
    records = [record(i, r) for i, r in enumerate(rows)]
    path = tmp_path / "satp.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in records), encoding="utf-8")
    v1 = layout("satp-v1")
    for buf in (HistoryBuffer.from_records(records), HistoryBuffer.load(path)):
        assert len(buf) == len(rows)
        assert buf.valid.all()  # every arm parsed
        for i, r in enumerate(rows):
            row = buf.row(i)
            assert row.tactic == r["satp"] and row.action_uuid == r["uuid16"]
            assert v1.render(np.array(row.action), list(row.lemmas), verbatim=True) == r["satp"]


def test_a_pair_of_satp_arms_with_odd_names_gives_its_diff_head() -> None:
    (r,) = [x for x in satp_rows("odd", 200) if sum(np.array(x["action"][24:32]) > 0) >= 2][:1]
    v1 = layout("satp-v1")
    good = np.array(r["action"])
    bad = good.copy()
    bad[5] = (bad[5] + 1) % 5  # one tactic head differs
    bad_text = v1.render(bad, r["lemmas"], verbatim=True)
    buf = HistoryBuffer.from_records([record(0, r, bad_text)])
    assert buf.valid.all()
    pairs = buf.pairs()
    assert len(pairs) == 1 and int(pairs.diff_head[0]) == 5


def test_a_null_lemma_is_an_empty_slot_not_the_name_none() -> None:
    goal = "x : ℝ\n⊢ 0 ≤ x ^ 2"
    rec = {
        "context_theorem": "",
        "context_goal_state": goal,
        "uuid_goal": uuid16(goal),
        "context_lemmas": [None, "sq_nonneg"],
        "context_lemma_scores": [0.0, 1.0],
        "arm_good_action": "  aesop\n    (add unsafe 20% (by first | apply sq_nonneg | rw [sq_nonneg] | simp only [sq_nonneg]))",
        "uuid_good_action": None,
        "arm_bad_action": None,
        "uuid_bad_action": None,
        "diff_head": -1,
    }
    buf = HistoryBuffer.from_records([rec])
    row = buf.row(0)
    assert row.lemmas == ("", "sq_nonneg")
    assert row.action is not None and row.action[24:26] == (0, 2)
