"""The two public SATP replay-buffer schemas and how lean-gym maps them onto its own rows.

Both schemas are those of ``ChristianZ97/NuminaMath-LEAN-satp-buffer`` (the *current*, "v2-prefixed" one)
and ``ChristianZ97/NuminaMath-LEAN-satp-buffer-v1-backup`` (the *legacy* one); see
``shared/reference/satp-aesop-policy.md`` §3.

* **current**: one row per (goal, success arm?, failure arm?, diff_head). Both arms are canonical aesop
  strings; a row that carries both arms is a stored preference pair.
* **legacy**: one row per (goal, config) with the sign of its reward.

lean-gym keeps one *experience* per arm (goal, action, reward) and a ``record`` number that says which
experiences came from the same public row, so a current-schema file round-trips exactly.

Extra columns. The public schemas say nothing about *who* produced a verdict. lean-gym writes the backend
name (``"sim"``, ``"repl:…"``) and the Lean status next to the public columns when it knows them
(``backend_good_action``/``status_good_action``… in the current schema, ``backend``/``status`` in the
legacy one), so that a buffer recorded on the simulator is never mistaken for Lean's. It also writes each
arm's action vector (``action_good_action``/``action_bad_action``, ``action``), so that its own files load
without parsing. Readers that only know the public columns ignore them; ``save(..., extras=False)`` writes
the public columns only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from lean_gym.buffers._errors import format_error

__all__ = [
    "ACTION_COLUMNS",
    "CURRENT_COLUMNS",
    "CURRENT_EXTRA_COLUMNS",
    "LEGACY_COLUMNS",
    "LEGACY_EXTRA_COLUMNS",
    "NO_DIFF_HEAD",
    "SchemaName",
    "detect_schema",
]

SchemaName = Literal["current", "legacy"]

CURRENT_COLUMNS: tuple[str, ...] = (
    "context_theorem",
    "context_goal_state",
    "uuid_goal",
    "context_lemmas",
    "context_lemma_scores",
    "arm_good_action",
    "uuid_good_action",
    "arm_bad_action",
    "uuid_bad_action",
    "diff_head",
)
CURRENT_EXTRA_COLUMNS: tuple[str, ...] = (
    "backend_good_action",
    "status_good_action",
    "backend_bad_action",
    "status_bad_action",
)
LEGACY_COLUMNS: tuple[str, ...] = (
    "uuid",
    "config_uuid",
    "formal_statement",
    "goal_state",
    "tactic_string",
    "reward",
    "lemma_names",
    "lemma_scores",
)
LEGACY_EXTRA_COLUMNS: tuple[str, ...] = ("backend", "status")
#: Action-vector columns lean-gym adds (``list<int16>``, one vector per arm, null where the arm is absent or
#: does not parse), so a buffer it wrote loads without re-parsing every aesop string.
ACTION_COLUMNS: dict[SchemaName, tuple[str, ...]] = {
    "current": ("action_good_action", "action_bad_action"),
    "legacy": ("action",),
}

#: ``diff_head`` of a row that is not a 1-diff pair. The public card does not show its sentinel; -1 is an
#: inference (the column is int64 and 0..39 are head positions). Rows read from a file keep their value.
NO_DIFF_HEAD = -1

# Columns whose presence decides the schema (enough of them to tell the two apart, few enough that a file
# missing an optional column still loads).
_CURRENT_KEYS = frozenset({"context_goal_state", "arm_good_action", "arm_bad_action"})
_LEGACY_KEYS = frozenset({"goal_state", "tactic_string", "reward"})


def detect_schema(columns: Iterable[str]) -> SchemaName:
    """Say which public schema a set of column names belongs to.

    Args:
        columns: The column names of a table (or the keys of a JSONL row).

    Returns:
        ``"current"`` or ``"legacy"``.

    Raises:
        LeanGymError: The columns match neither schema; the message lists what is missing.
    """
    names = set(columns)
    if names >= _CURRENT_KEYS:
        return "current"
    if names >= _LEGACY_KEYS:
        return "legacy"
    raise format_error(
        "these columns match neither SATP buffer schema: "
        f"{sorted(names)}; the current schema needs {sorted(_CURRENT_KEYS)}, the legacy one "
        f"{sorted(_LEGACY_KEYS)}"
    )
