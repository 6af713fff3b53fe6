"""``python -m lean_gym.conformance [--backend B] [--source S] [--family F] [--disagreements] [--messages]``.

Runs the corpus's command cases on a backend and prints agreement per family and per source (the
developer's view; ``lean-gym selftest`` is the user's). ``--messages`` lists every case whose recorded
Lean error and the backend's differ (and every one set aside for its record's version). ``--markdown`` prints the tables as Markdown;
``--write-docs docs/simulator.md`` writes them into that page, between its conformance markers (the
figures ``tests/test_conformance_ci.py`` holds current).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lean_gym.backends import make_backend
from lean_gym.conformance import is_simulator, load_cases, message_version, run_command_cases


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    p = argparse.ArgumentParser(prog="python -m lean_gym.conformance", description=__doc__.splitlines()[0])
    p.add_argument("--backend", default="sim")
    p.add_argument("--source", action="append", help="corpus source (repeatable)")
    p.add_argument("--family", action="append", help="family (repeatable)")
    p.add_argument("--disagreements", action="store_true", help="list every case that is not agree/unread")
    p.add_argument("--unread", action="store_true", help="list the unread cases and why")
    p.add_argument(
        "--messages",
        action="store_true",
        help="list every case whose recorded Lean error and the backend's differ, and those set aside for "
        "their record's Lean version",
    )
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
    from lean_gym.conformance.selftest import (
        SelftestReport,
        format_markdown_report,
        format_report,
        replace_docs_block,
    )

    report = SelftestReport(
        backend.name,
        None,
        is_simulator(backend),
        commands=tuple(results),
        messages_follow=message_version(backend),
    )
    if args.write_docs:
        page = Path(args.write_docs)
        page.write_text(replace_docs_block(page.read_text(encoding="utf-8"), report), encoding="utf-8")
        print(f"wrote the figures into {page}")
        return 0
    if args.markdown:
        print(format_markdown_report(report))
        return 0
    # selftest's text (tables, thresholds; every disagreement with --disagreements), then the unread cases
    print(format_report(report, disagreements=args.disagreements, messages=args.messages))
    if args.unread:
        for r in results:
            if r.outcome == "unread":
                print(
                    f"unread   {r.case.id} [{r.case.source.get('path')}:{r.case.source.get('line')}] | {r.unread_reason}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
