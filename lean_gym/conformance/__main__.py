"""``python -m lean_gym.conformance [--backend B] [--source S] [--family F] [--disagreements] [--markdown]``.

Runs the corpus's command cases on a backend and prints agreement per family and per source (the
developer's view; ``lean-gym selftest`` is the user's). ``--markdown`` prints the tables as Markdown;
``--write-docs docs/simulator.md`` writes them into that page, between its conformance markers (the
figures ``tests/test_conformance_ci.py`` holds current).
"""

from __future__ import annotations

import argparse
import sys

from lean_gym.backends import make_backend
from lean_gym.conformance import format_table, is_simulator, load_cases, run_command_cases, tally, tally_by


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    p = argparse.ArgumentParser(prog="python -m lean_gym.conformance", description=__doc__.splitlines()[0])
    p.add_argument("--backend", default="sim")
    p.add_argument("--source", action="append", help="corpus source (repeatable)")
    p.add_argument("--family", action="append", help="family (repeatable)")
    p.add_argument("--disagreements", action="store_true", help="list every case that is not agree/unread")
    p.add_argument("--unread", action="store_true", help="list the unread cases and why")
    p.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    p.add_argument(
        "--write-docs", metavar="PAGE", help="write the Markdown tables into PAGE's conformance block"
    )
    args = p.parse_args(argv)
    cases = load_cases(args.source, args.family, kinds=("command",))
    backend = make_backend(args.backend)
    try:
        results = run_command_cases(backend, cases)
    finally:
        backend.close()
    if args.markdown or args.write_docs:
        from pathlib import Path

        from lean_gym.conformance.selftest import SelftestReport, format_markdown_report, replace_docs_block

        report = SelftestReport(backend.name, None, is_simulator(backend), commands=tuple(results))
        if args.write_docs:
            page = Path(args.write_docs)
            page.write_text(replace_docs_block(page.read_text(encoding="utf-8"), report), encoding="utf-8")
            print(f"wrote the figures into {page}")
        else:
            print(format_markdown_report(report))
        return 0
    print(format_table(tally_by(results, lambda r: r.case.family)))
    print()
    print(
        format_table(
            tally_by(results, lambda r: r.case.corpus_source + (" derived" if r.case.derived else "")),
            title="source",
        )
    )
    print()
    print(format_table({"all": tally(results)}, title="all"))
    for r in results:
        if (args.disagreements and r.outcome not in ("agree", "unread")) or (
            args.unread and r.outcome == "unread"
        ):
            lean = r.case.lean_errors[0].splitlines()[0] if r.case.lean_errors else ""
            print(
                f"{r.outcome:8} {r.case.id} [{r.case.source.get('path')}:{r.case.source.get('line')}] "
                f"status={r.status} | sim: {r.error.splitlines()[0] if r.error else ''} | lean: {lean} "
                f"{'| ' + r.unread_reason if r.unread_reason else ''}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
