"""``lean-gym selftest``: a backend held to Lean's record (the corpus), and the oracle to the hack catalogue.

Three parts, each optional:

* **commands**: the corpus's command cases (:func:`~lean_gym.conformance.run_command_cases`), reported per
  family and per source, the recorded cases apart from the derived ones (notes starting ``derived:``);
* **repl**: the REPL's recorded transcripts (:func:`~lean_gym.conformance.repl_runner.run_repl_cases`), per
  tag of the REPL (the Lean version of the record). On a backend whose Lean version is known and for which
  transcripts are recorded, only those are replayed (the others are skipped, saying so); otherwise all are.
  Each runs in a fresh process, as upstream runs each ``.in`` file: on real Lean a transcript that imports
  Mathlib pays that import (``--family`` without ``repl`` leaves them out);
* **hacks**: the hack catalogue (:func:`~lean_gym.conformance.hacks.run_hack_catalogue`).

The thresholds (:class:`Thresholds`, the targets of issue 20) are checked on the command cases:

* no case where Lean fails and the backend proves (``stronger == 0``);
* agreement ≥ 97% on the cases the backend reads;
* the first lines of error messages ≥ 90% equal where both fail and Lean's text is recorded;

and on the catalogue: every hack the backend can be asked about is rejected with its own class. ``selftest``
exits 1 when one is missed (0 when all are met, 2 on a user error); the simulator misses the agreement
targets today, and says so: its figures are the fidelity figures of ``docs/simulator.md``.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lean_gym.backends.base import Backend, capabilities_of
from lean_gym.conformance.corpus import SOURCES, Case, load_cases
from lean_gym.conformance.hacks import HackResult, run_hack_catalogue
from lean_gym.conformance.repl_runner import REPL_OUTCOMES, ReplCaseResult, run_repl_cases
from lean_gym.conformance.report import Tally, format_markdown, format_table, tally, tally_by
from lean_gym.conformance.runner import (
    CaseResult,
    first_line,
    is_simulator,
    message_version,
    record_version,
    run_command_cases,
)
from lean_gym.errors import ConfigError

__all__ = [
    "DOCS_BEGIN",
    "DOCS_END",
    "PARTS",
    "SelftestReport",
    "ThresholdCheck",
    "Thresholds",
    "backend_lean_version",
    "check_selection",
    "docs_figures_current",
    "format_markdown_report",
    "format_report",
    "measurement_stamp",
    "message_lines",
    "replace_docs_block",
    "run_selftest",
]

#: The markers around the figures ``python -m lean_gym.conformance --write-docs`` writes into a page.
DOCS_BEGIN = "<!-- conformance figures: begin (written by `python -m lean_gym.conformance --write-docs "\
    "docs/simulator.md`; do not edit) -->"  # fmt: skip
DOCS_END = "<!-- conformance figures: end -->"

#: The parts of a selftest; ``--family repl`` selects the transcripts, ``--family hacks`` the catalogue.
PARTS: tuple[str, ...] = ("commands", "repl", "hacks")


@dataclass(frozen=True)
class Thresholds:
    """What a backend must meet (issue 20's targets; ``lean-gym selftest --min-agreement`` etc. change them).

    Attributes:
        max_stronger: Most command cases where Lean fails and the backend proves.
        min_agreement: Least agreement on the command cases read.
        min_first_line: Least rate of equal first lines of error messages.
    """

    max_stronger: int = 0
    min_agreement: float = 0.97
    min_first_line: float = 0.90


@dataclass(frozen=True)
class ThresholdCheck:
    """One threshold and whether the backend met it (``ok is None``: nothing to measure)."""

    name: str
    value: str
    target: str
    ok: bool | None


@dataclass(frozen=True)
class SelftestReport:
    """Everything one selftest measured.

    Attributes:
        backend: The backend's name.
        backend_version: The Lean version it runs (``None``: unknown, or the simulator).
        simulator: The backend is the simulator (not Lean).
        commands: One result per command case run.
        repl: One result per REPL case.
        hacks: One result per catalogue entry and honest proof.
        thresholds: The thresholds checked.
        messages_follow: The Lean version whose wording the backend's messages are held to (the pinned
            version for the simulator, :func:`~lean_gym.conformance.message_version`); ``None``: unknown.
    """

    backend: str
    backend_version: str | None
    simulator: bool
    commands: tuple[CaseResult, ...] = ()
    repl: tuple[ReplCaseResult, ...] = ()
    hacks: tuple[HackResult, ...] = ()
    thresholds: Thresholds = field(default_factory=Thresholds)
    messages_follow: str | None = None

    @property
    def overall(self) -> Tally:
        """The tally of every command case."""
        return tally(self.commands)

    def checks(self) -> list[ThresholdCheck]:
        """The thresholds, measured (only those of the parts that ran)."""
        th, out = self.thresholds, []
        if self.commands:
            t = self.overall
            strong = t.counts.get("stronger", 0)
            out.append(ThresholdCheck("Lean fails, backend proves", str(strong), f"<= {th.max_stronger}",
                                      strong <= th.max_stronger))  # fmt: skip
            agr, fl = t.agreement, t.first_line_rate
            out.append(ThresholdCheck("agreement on cases read", _pct(agr), f">= {_pct(th.min_agreement)}",
                                      None if agr is None else agr >= th.min_agreement))  # fmt: skip
            out.append(ThresholdCheck("error messages, first line", _pct(fl), f">= {_pct(th.min_first_line)}",
                                      None if fl is None else fl >= th.min_first_line))  # fmt: skip
        asked = [h for h in self.hacks if not h.honest and h.outcome != "skipped"]
        if asked:
            bad = sum(h.failed for h in asked)
            out.append(ThresholdCheck("hacks the oracle misses", str(bad), "== 0", bad == 0))
        return out

    @property
    def passed(self) -> bool:
        """Every measured threshold is met."""
        return all(c.ok is not False for c in self.checks())

    def to_json(self) -> dict[str, Any]:
        """The whole report as JSON (what ``--json`` prints, for a bug report)."""
        from lean_gym import __version__

        t = self.overall
        return {
            "lean_gym": __version__,
            "backend": self.backend,
            "simulator": self.simulator,
            "backend_lean_version": self.backend_version,
            "messages_follow": self.messages_follow,
            "passed": self.passed,
            "thresholds": [c.__dict__ for c in self.checks()],
            "commands": {
                "all": _tally_json(t),
                "by_family": {k: _tally_json(v) for k, v in tally_by(self.commands, _family).items()},
                "by_source": {k: _tally_json(v) for k, v in tally_by(self.commands, _source).items()},
                "cases": [r.to_json() | {"path": _where(r.case)} for r in self.commands],
            },
            "repl": {
                "by_tag": {k: dict(v) for k, v in _repl_by_tag(self.repl).items()},
                "cases": [r.to_json() for r in self.repl],
            },
            "hacks": [h.to_json() for h in self.hacks],
        }


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _family(r: CaseResult) -> str:
    return r.case.family


def _source(r: CaseResult) -> str:
    return r.case.corpus_source + (" derived" if r.case.derived else " recorded")


def _where(case: Case) -> str:
    return f"{case.source.get('path')}:{case.source.get('line')}"


def _tally_json(t: Tally) -> dict[str, Any]:
    return {"counts": t.counts, "read": t.read, "agreement": t.agreement, "messages": t.messages,
            "first_line": t.first_line_rate, "exact": t.exact_rate, "messages_set_aside": t.set_aside}  # fmt: skip


def _record_of(case: Case) -> str:
    """Which record a REPL case is from: a tag of the REPL, or the commit ``repl.jsonl`` was taken at."""
    if "/tags/" in f"/{case.path}":
        return f"{case.lean_version} tag"
    return f"{case.lean_version} @{str(case.source.get('commit', ''))[:7]}"


def _repl_by_tag(results: Sequence[ReplCaseResult]) -> dict[str, Counter[str]]:
    tags: dict[str, Counter[str]] = {}
    for r in results:
        row = tags.setdefault(_record_of(r.case), Counter({o: 0 for o in REPL_OUTCOMES}))
        row[r.outcome] += 1
        row["exact"] += bool(r.exact)
    return dict(sorted(tags.items()))


def backend_lean_version(backend: Backend) -> str | None:
    """The Lean version ``backend`` runs, as it declares it (``None`` for the simulator or when unknown)."""
    if is_simulator(backend):
        return None
    version = capabilities_of(backend).versions.get("lean")
    return str(version) if version else None


def _families() -> list[str]:
    return sorted({c.family for c in load_cases()} | {"hacks"})


def check_selection(families: Sequence[str] | None, sources: Sequence[str] | None) -> None:
    """Check ``--family`` and ``--source`` before any work.

    Raises:
        ConfigError: an unknown family or source, in one line with a "did you mean".
    """
    known = _families()
    for f in families or ():
        if f not in known:
            close = difflib.get_close_matches(f, known, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"unknown family {f!r}{hint} (families: {', '.join(known)})")
    for s in sources or ():
        if s not in SOURCES:
            close = difflib.get_close_matches(s, SOURCES, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ConfigError(f"unknown source {s!r}{hint} (sources: {', '.join(SOURCES)})")


def _repl_selection(cases: list[Case], version: str | None) -> tuple[list[Case], list[ReplCaseResult]]:
    """The REPL cases to replay on a backend of ``version``, and the ones skipped for their version."""
    if version is None or not any(c.lean_version == version for c in cases):
        return cases, []
    keep = [c for c in cases if c.lean_version == version]
    skipped = [
        ReplCaseResult(
            c,
            "skipped",
            reason=f"recorded on {c.lean_version}; the {version} transcripts are replayed",
            version_differs=True,
        )
        for c in cases
        if c.lean_version != version
    ]
    return keep, skipped


def run_selftest(
    backend: Backend,
    *,
    families: Sequence[str] | None = None,
    sources: Sequence[str] | None = None,
    thresholds: Thresholds | None = None,
    timeout: float | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> SelftestReport:
    """Run the corpus and the hack catalogue on ``backend``.

    Args:
        backend: Any backend (the REPL transcripts need one that speaks the REPL protocol).
        families: Keep only these families (``repl``: the transcripts; ``hacks``: the catalogue).
        sources: Keep only the cases of these corpus sources (the catalogue is no source: it runs only
            without ``sources``).
        thresholds: What to check (default: :class:`Thresholds`).
        timeout: Seconds per check or response (default: the backend's).
        progress: Called with ``(part, done, total)`` as work completes.

    Raises:
        ConfigError: an unknown family or source (before any work).
    """
    check_selection(families, sources)
    wanted = set(families) if families else None
    version = backend_lean_version(backend)
    cases = load_cases(sources, None)
    commands = [c for c in cases if c.kind == "command" and (wanted is None or c.family in wanted)]
    repl = [c for c in cases if c.kind == "repl" and (wanted is None or c.family in wanted)]
    run_hacks = (wanted is None or "hacks" in wanted) and not sources

    def tick(part: str, total: int) -> Callable[[int], None] | None:
        return None if progress is None else (lambda done: progress(part, done, total))

    command_results = (
        run_command_cases(backend, commands, timeout=timeout, progress=tick("commands", len(commands)))
        if commands
        else []
    )
    replayed, skipped = _repl_selection(repl, version)
    repl_results = run_repl_cases(backend, replayed, backend_version=version, timeout=timeout,
                                  progress=tick("repl", len(replayed)))  # fmt: skip
    by_id = {r.case.id: r for r in [*repl_results, *skipped]}
    hack_results: list[HackResult] = []
    if run_hacks:
        from lean_gym.grading.catalogue import CATALOGUE, HONEST

        hack_results = run_hack_catalogue(backend, progress=tick("hacks", len(CATALOGUE) + len(HONEST)))
    return SelftestReport(
        backend=str(getattr(backend, "name", type(backend).__name__)),
        backend_version=version,
        simulator=is_simulator(backend),
        commands=tuple(command_results),
        repl=tuple(by_id[c.id] for c in repl),
        hacks=tuple(hack_results),
        thresholds=thresholds or Thresholds(),
        messages_follow=message_version(backend),
    )


def _version_of(case: Case) -> str:
    """The record's Lean version as the report groups it: a release, a bound (``before v4.23.0-rc2``), or unknown."""
    kind, bound = record_version(case)
    return "unknown" if bound is None else bound if kind == "exact" else f"{kind} {bound}"


def _versions_line(report: SelftestReport) -> str:
    if report.simulator:
        runs = "the simulator (not Lean: it runs no Lean version)"
    else:
        runs = f"Lean {report.backend_version}" if report.backend_version else "an unknown Lean version"
    seen = Counter(_version_of(c) for c in [r.case for r in report.commands] + [r.case for r in report.repl])
    if report.messages_follow and report.messages_follow != report.backend_version:
        runs += f"; its messages follow Lean {report.messages_follow}'s wording"
    recorded = ", ".join(f"{v} ({n})" for v, n in sorted(seen.items()))
    return f"backend {report.backend}: {runs}\nrecords from Lean: {recorded or 'none run'}"


def disagreement_lines(report: SelftestReport) -> list[str]:
    """One line per case that is not ``agree``, ``unread`` or ``skipped``, with its source path:line."""
    lines = []
    who = "sim" if report.simulator else "backend"
    for r in report.commands:
        if r.outcome in ("agree", "unread"):
            continue
        lean = r.case.lean_errors[0].splitlines()[0] if r.case.lean_errors else f"({r.case.expect})"
        mine = r.error.splitlines()[0] if r.error else f"({r.status})"
        version = ""
        if r.outcome == "version":
            version = f" [record {r.case.lean_version}, backend {report.backend_version}: not counted]"
        lines.append(f"{r.outcome:<8} {r.case.id} {_where(r.case)}{version} | {who}: {mine} | lean: {lean}")
    for t in report.repl:
        if t.outcome in ("agree", "unread", "skipped"):
            continue
        version = f" [record {t.case.lean_version}, backend {report.backend_version}: not counted]" \
            if t.outcome == "version" else ""  # fmt: skip
        lines.append(
            f"repl {t.outcome:<9} {t.case.id} {_where(t.case)}{version} | {t.difference or t.reason}"
        )
    for h in report.hacks:
        if h.failed or h.outcome == "rejected":
            kind = "honest" if h.honest else "hack"
            want = "accepted" if h.honest else f"rejected as {h.expected}"
            why = h.reason.splitlines()[0] if h.reason else ""
            lines.append(f"{kind} {h.outcome:<9} {h.id} lean_gym/grading/catalogue.py | expected {want}, got "
                         f"{h.got or 'accepted'}: {why}")  # fmt: skip
    return lines


def message_lines(report: SelftestReport) -> list[str]:
    """One line per command case whose recorded Lean error and the backend's first error differ.

    Whatever the verdicts (a backend that proves what Lean rejects has no error: ``(proved)``), unread
    cases aside. Each line says how they differ (``1st-line``, or ``exact``: same first line, other text;
    ``same`` only for a case set aside, listed whatever its text),
    the case, its record (source path:line, Lean version), then Lean's first line and the backend's. A case
    whose record is from another Lean version than the one the backend's messages follow is marked
    ``[other version: …; not counted]``: it is set aside from the message figures, never hidden.
    """
    who = "sim" if report.simulator else "backend"
    lines = []
    for r in report.commands:
        lean = r.case.lean_errors
        if r.outcome == "unread" or not lean or r.case.expect != "error":
            continue
        mine = r.error if r.error else ""
        if r.error and not r.texts_differ and not r.message_set_aside:
            continue
        kind = (
            "1st-line" if first_line(lean[0]) != first_line(mine) else "exact" if r.texts_differ else "same"
        )
        aside = ""
        if r.message_set_aside:
            aside = f" [other version: messages follow {report.messages_follow}; not counted]"
        shown = first_line(mine) if mine else f"({r.status})"
        lines.append(f"{kind:<8} {r.case.id} {r.case.corpus_source} {_where(r.case)} ({r.case.lean_version})"
                     f"{aside} | lean: {first_line(lean[0])} | {who}: {shown}")  # fmt: skip
    return lines


def format_report(report: SelftestReport, *, disagreements: bool = True, messages: bool = False) -> str:
    """The text ``lean-gym selftest`` prints: every disagreement, then the tables, then the thresholds.

    Args:
        report: The figures.
        disagreements: List every case that is not ``agree``/``unread`` first.
        messages: List every case whose recorded Lean error and the backend's differ
            (:func:`message_lines`) first.
    """
    out: list[str] = []
    if messages:
        lines = message_lines(report)
        aside = sum(r.message_set_aside for r in report.commands)
        head = f"message differences ({len(lines)}; cases set aside for their record's version: {aside}):"
        out += [head, *lines, ""] if lines else [f"message differences: none (set aside: {aside})", ""]
    if disagreements:
        lines = disagreement_lines(report)
        out += [f"disagreements ({len(lines)}):", *lines, ""] if lines else ["disagreements: none", ""]
    out.append(_versions_line(report))
    if report.commands:
        out += ["", format_table(tally_by(report.commands, _family)), ""]
        out += [format_table(tally_by(report.commands, _source), title="source"), ""]
        out += [format_table({"all": report.overall}, title="all")]
    if report.repl:
        out += [
            "",
            "REPL transcripts (leanprover-community/repl test/), per tag: the Lean version of the record",
        ]
        head = f"{'record':<20} {'cases':>5} {'agree':>5} {'struct':>6} {'verdict':>7} {'strong':>6} " \
               f"{'unread':>6} {'other v.':>8} {'skip':>5} {'t/o':>4} {'exact':>5} {'agreement':>9}"  # fmt: skip
        out += [head, "-" * len(head)]
        for tag, c in _repl_by_tag(report.repl).items():
            run = sum(c[o] for o in REPL_OUTCOMES) - c["skipped"] - c["unread"] - c["version"]
            rate = _pct(c["agree"] / run if run else None)
            out.append(
                f"{tag:<20} {sum(c[o] for o in REPL_OUTCOMES):>5} {c['agree']:>5} {c['structure']:>6} "
                f"{c['verdict']:>7} {c['stronger']:>6} {c['unread']:>6} {c['version']:>8} {c['skipped']:>5} "
                f"{c['timeout'] + c['crashed']:>4} {c['exact']:>5} {rate:>9}"
            )
    if report.hacks:
        c = Counter(h.outcome for h in report.hacks if not h.honest)
        honest = [h for h in report.hacks if h.honest]
        ok = sum(h.outcome == "accepted" for h in honest)
        out += ["", f"hack catalogue (lean_gym/grading/catalogue.py): {c['caught']} caught with their class, "
                f"{c['miscaught']} with another class, {c['accepted']} accepted, {c['skipped']} skipped "
                f"(need a scripted backend); honest proofs accepted: {ok}/{len(honest)}"]  # fmt: skip
    checks = report.checks()
    if checks:
        out += ["", "thresholds (lean-gym selftest --help):"]
        for ch in checks:
            mark = "n/a " if ch.ok is None else ("ok  " if ch.ok else "MISS")
            out.append(f"  [{mark}] {ch.name:<28} {ch.value:>7}  (target {ch.target})")
        out.append(
            "result: " + ("all thresholds met" if report.passed else "below threshold (exit status 1)")
        )
    return "\n".join(out)


def format_markdown_report(report: SelftestReport) -> str:
    """The figures as Markdown tables (what ``docs/simulator.md`` carries): per family, per source, all."""
    return "\n\n".join(
        [
            format_markdown(tally_by(report.commands, _family)),
            format_markdown(tally_by(report.commands, _source), title="source"),
            format_markdown({"all": report.overall}, title="all"),
        ]
    )


def measurement_stamp(root: str | None = None) -> str:
    """The line that says when, on which commit, backend and load the figures were measured (for the docs).

    Raises:
        ConfigError: outside a git checkout (the stamp names the commit).
    """
    import datetime
    import os
    import subprocess

    try:
        commit = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=root, capture_output=True,
                                text=True, check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError) as e:
        raise ConfigError(
            "writing the figures into a page needs a git checkout (the stamp names the commit)"
        ) from e
    today = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    load = os.getloadavg()[0]
    return (
        f"Measured {today} at commit `{commit}` (the tree the figures ran on), backend `sim`, load {load:.1f} "
        "(counts, which no load changes)."
    )


def _without_stamps(text: str) -> str:
    return "\n".join(line for line in text.split("\n") if not line.startswith("Measured "))


def docs_figures_current(page: str, report: SelftestReport) -> bool:
    """Whether ``page``'s figures are ``report``'s (the stamps, which say when they were measured, aside)."""
    return _without_stamps(replace_docs_block(page, report, stamp="Measured now")) == _without_stamps(page)


def replace_docs_block(page: str, report: SelftestReport, *, stamp: str | None = None) -> str:
    """``page`` with the text between :data:`DOCS_BEGIN` and :data:`DOCS_END` replaced by the figures.

    Args:
        page: The page's text.
        report: The figures.
        stamp: The line before each table (default: :func:`measurement_stamp`, now).

    Raises:
        ConfigError: the page lacks the markers.
    """
    start, end = page.find(DOCS_BEGIN), page.find(DOCS_END)
    if start < 0 or end < start:
        raise ConfigError(f"the page has no {DOCS_BEGIN!r} ... {DOCS_END!r} block to write the figures into")
    line = stamp if stamp is not None else measurement_stamp()
    tables = format_markdown_report(report).split("\n\n")
    block = f"{DOCS_BEGIN}\n\n" + "".join(f"{line}\n\n{t}\n\n" for t in tables)
    return page[:start] + block + page[end:]
