"""Test doubles for the proof envs and the oracle: a scripted stand-in for Lean's command verdicts.

:class:`ScriptedLean` answers ``check`` the way Lean answers the constructs the hack catalogue uses, from
the source text alone: ``sorry``/``admit`` give a ``sorries`` entry and ``sorryAx``; ``native_decide``
gives ``Lean.ofReduceBool``; a used ``axiom`` appears in ``#print axioms``; ``#exit`` stops every later
message; an ``import`` after the header is an error; a line with ``bad_tactic`` is an error at its real
position; ``#print axioms NAME`` prints Lean's wording at its own line, or ``unknown constant``. It is not
a prover: whatever else compiles. It records every code it was sent, so tests can assert that a
submission never reached it. Results say ``backend="scripted"``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence

from lean_gym.backends import CheckResult
from lean_gym.grading.policy import strip_comments_and_strings
from lean_gym.lean.protocol import Message, Position, Sorry

__all__ = ["ScriptedLean"]


class ScriptedLean:
    """A scripted backend (see the module docstring)."""

    def __init__(self, *, base_axioms: Sequence[str] = ("propext",), status: str | None = None) -> None:
        self.name = "scripted"
        self.base_axioms = tuple(base_axioms)
        self.forced_status = status
        self.calls: list[tuple[str, str]] = []
        self.batches = 0

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        t0 = time.perf_counter()
        self.calls.append((code, header))
        if self.forced_status in ("timeout", "crashed"):
            return CheckResult(self.forced_status, (), (), 0.0, self.name)
        stripped = strip_comments_and_strings(code)
        lines = stripped.split("\n")
        messages: list[Message] = []
        sorries: list[Sorry] = []
        axioms = set(self.base_axioms)
        declared_axioms = set(re.findall(r"\b(?:axiom|opaque)\s+([\w.']+)", stripped))
        names = set(re.findall(r"\b(?:theorem|lemma)\s+([\w.'«»]+)", stripped))
        for k, line in enumerate(lines, start=1):
            if re.match(r"\s*#exit\b", line):
                break
            m = re.match(r"\s*#print\s+axioms\s+(\S+)", line)
            if m:
                name = m.group(1)
                if name not in names and "." not in name:  # dotted names stand for library constants
                    messages.append(Message("error", Position(k, 15), None, f"unknown constant '{name}'"))
                elif axioms:
                    listed = ", ".join(sorted(axioms))
                    messages.append(
                        Message("info", Position(k, 0), None, f"'{name}' depends on axioms: [{listed}]")
                    )
                else:
                    messages.append(
                        Message("info", Position(k, 0), None, f"'{name}' does not depend on any axioms")
                    )
                continue
            if re.match(r"\s*import\b", line):
                messages.append(
                    Message(
                        "error",
                        Position(k, 0),
                        None,
                        "invalid 'import' command, it must be used in the beginning of the file",
                    )
                )
            for m in re.finditer(r"\b(sorry|admit)\b", line):
                sorries.append(Sorry("⊢ False", None, Position(k, m.start()), Position(k, m.end())))
                axioms.add("sorryAx")
            if re.search(r"\bnative_decide\b", line):
                axioms.add("Lean.ofReduceBool")
            for ax in declared_axioms:
                if re.search(r"\b(?:exact|apply|refine|absurd|have|:=)\b.*\b" + re.escape(ax) + r"\b", line):
                    axioms.add(ax)
            col = line.find("bad_tactic")
            if col >= 0:
                messages.append(
                    Message(
                        "error",
                        Position(k, col),
                        Position(k, col + 10),
                        "unknown tactic 'bad_tactic'\nunsolved goals\n⊢ False",
                    )
                )
        if sorries:
            messages.append(Message("warning", Position(1, 8), None, "declaration uses `sorry`"))
        if any(m.severity == "error" for m in messages):
            status = "error"
        elif sorries:
            status = "sorry"
        else:
            status = "proved"
        messages.sort(key=lambda m: (m.pos.line, m.pos.column))
        return CheckResult(status, tuple(messages), tuple(sorries), time.perf_counter() - t0, self.name)  # type: ignore[arg-type]

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        self.batches += 1
        headers = [header] * len(codes) if isinstance(header, str) else list(header)
        return [self.check(c, header=h, timeout=timeout) for c, h in zip(codes, headers)]

    def close(self) -> None:
        pass
