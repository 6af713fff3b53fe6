"""The simulator held to Lean's record in CI: the whole corpus of command cases, run once on ``sim``.

* the property: no case where Lean fails and the simulator proves (a tactic stronger than Lean's teaches a
  policy something false about Lean);
* the figures in ``docs/simulator.md`` are the ones this run measures (they are written by
  ``python -m lean_gym.conformance --write-docs docs/simulator.md``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corpus_run import whole_corpus_on_sim

from lean_gym.conformance import CaseResult, load_cases
from lean_gym.conformance.selftest import DOCS_BEGIN, DOCS_END, SelftestReport, docs_figures_current

DOCS = Path(__file__).resolve().parents[1] / "docs" / "simulator.md"


@pytest.fixture(scope="module")
def results() -> list[CaseResult]:
    return whole_corpus_on_sim().results  # the run tests/test_sim_kernel.py watches too


def test_the_whole_corpus_runs(results: list[CaseResult]) -> None:
    assert len(results) == len(load_cases(kinds=("command",))) >= 1500
    assert not [r.case.id for r in results if r.outcome in ("timeout", "crashed")]


def test_no_case_where_lean_fails_and_the_simulator_proves(results: list[CaseResult]) -> None:
    stronger = [
        f"{r.case.id} {r.case.source['path']}:{r.case.source['line']}"
        for r in results
        if r.outcome == "stronger"
    ]
    assert not stronger, "the simulator proves what Lean rejects:\n" + "\n".join(stronger)


def test_the_figures_in_docs_simulator_md_are_current(results: list[CaseResult]) -> None:
    page = DOCS.read_text(encoding="utf-8")
    assert DOCS_BEGIN in page and DOCS_END in page
    report = SelftestReport("sim", None, True, commands=tuple(results))
    assert docs_figures_current(page, report), (
        "docs/simulator.md's conformance figures are stale: run "
        "`python -m lean_gym.conformance --write-docs docs/simulator.md`"
    )


def test_a_stale_figure_is_found(results: list[CaseResult]) -> None:
    page = DOCS.read_text(encoding="utf-8")
    row = page.index("| all | ", page.index(DOCS_BEGIN))
    stale = page[:row] + "| all | 1" + page[row + len("| all | ") :]  # one figure changed
    report = SelftestReport("sim", None, True, commands=tuple(results))
    assert not docs_figures_current(stale, report)
