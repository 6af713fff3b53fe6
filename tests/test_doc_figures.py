"""Pages that tell the truth (issue 19): every figure table says when, on which commit, on which backend and
under which load it was measured, and every command a page gives for a figure still exists with its flags.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

# a cell that is a measured figure: a number with a decimal point or a unit (7.3%, 40.9, 0.86 ms, 1.03×,
# 59/244 = 24.2%); bare integers (weights, counts, N) are not
_FIGURE_CELL = re.compile(
    r"^[*\s]*[<>≤≥~]?\s?[-+−]?(?:\d+/\d+ = )?\d[\d,]*(?:\.\d+|\s?(?:%|×|x\b|ms|µs|s\b))[\s\S]*$"
)
_RATE = re.compile(r"steps/s|checks/s|\bms\b")


def _is_figure_table(rows: list[str], after: str) -> bool:
    if re.search(r"\b(default|arg)\b", rows[0], re.I):  # a table of arguments and their defaults
        return False
    cells = [c.strip() for r in rows[2:] for c in r.strip("|").split("|")[1:]]
    return sum(1 for c in cells if _FIGURE_CELL.match(c)) >= 2 or bool(_RATE.search(rows[0] + after))


STAMP = re.compile(
    r"Measured (?P<date>\d{4}-\d{2}-\d{2}),? (?:at )?commit `?(?P<commit>[0-9a-f]{7,40})\b[\s\S]*?backend:? `?(?P<backend>[\w:-]+)`?"
    r"[\s\S]*?\bload\b"
)


def _tables(text: str) -> list[tuple[int, list[str]]]:
    """(first line number, lines) of each markdown table."""
    out: list[tuple[int, list[str]]] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|[\s:|-]+\|$", lines[i + 1]):
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            out.append((i + 1, lines[i:j]))
            i = j
        else:
            i += 1
    return out


def _figure_tables() -> list[tuple[str, int, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for line, rows in _tables(text):
            all_lines = text.split("\n")
            after = "\n".join(all_lines[line - 1 + len(rows) : line + 2 + len(rows)])
            if _is_figure_table(rows, after):
                before = "\n".join(all_lines[max(0, line - 16) : line - 1])
                found.append((f"{page.relative_to(ROOT)}:{line}", before, "\n".join(rows)))
    return found


FIGURE_TABLES = _figure_tables()


def test_the_pages_have_figure_tables() -> None:
    assert len(FIGURE_TABLES) >= 8


@pytest.mark.parametrize(("where", "before", "table"), FIGURE_TABLES, ids=[w for w, _, _ in FIGURE_TABLES])
def test_every_figure_table_says_date_commit_backend_and_load(where: str, before: str, table: str) -> None:
    stamps = list(STAMP.finditer(before))
    assert stamps, (
        f"{where}: no 'Measured DATE at commit C, backend B, load …' line in the 15 lines before the table"
    )
    stamp = stamps[-1]
    assert stamp["backend"].startswith(("sim", "ray:sim", "none")), (
        f"{where}: no figure here was measured on real Lean"
    )
    if (ROOT / ".git").exists():
        known = subprocess.run(
            ["git", "cat-file", "-e", f"{stamp['commit']}^{{commit}}"], cwd=ROOT, capture_output=True
        )
        assert known.returncode == 0, f"{where}: commit {stamp['commit']} is not in this repository's history"


# ------------------------------------------------------------------------------------- commands
_CMD = re.compile(
    r"(?:python3? (?:-m (?P<mod>lean_gym_agents\.run|lean_gym\.cli)|(?P<script>(?:benchmarks|examples)/[\w/]+\.py))"
    r"|(?P<cli>lean-gym) (?P<sub>[a-z][a-z-]*))(?P<rest>(?: [^`\n|]*)?)"
)


def _code(text: str) -> list[tuple[int, str]]:
    """(line number, text) of the code on a page: lines of fenced blocks and inline `code` spans."""
    out: list[tuple[int, str]] = []
    fenced = False
    for n, line in enumerate(text.split("\n"), start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            out.append((n, line))
        else:
            out += [(n, span) for span in re.findall(r"`([^`]+)`", line)]
    return out


def _commands(pages: list[Path] = PAGES, root: Path = ROOT) -> list[tuple[str, str, str, list[str]]]:
    """(where, program, subcommand, flags) of every command the pages show (in code, not in prose)."""
    out = []
    for page in pages:
        for n, line in _code(page.read_text(encoding="utf-8")):
            for m in _CMD.finditer(line):
                prog = m["script"] or m["mod"] or "lean-gym"
                sub = m["sub"] or ""
                rest = m["rest"].split("#")[0]
                try:
                    words = shlex.split(rest)
                except ValueError:
                    words = rest.split()
                if prog == "lean_gym_agents.run":
                    # the agent is a subcommand; a run without one (--resume) or with a placeholder (AGENT)
                    # takes the flags every agent's command has, which are plain's
                    named = words and not words[0].startswith("-") and not words[0].isupper()
                    sub = words[0] if named else "plain"
                flags = sorted({w.split("=")[0] for w in words if w.startswith("--") and len(w) > 2})
                out.append((f"{page.relative_to(root)}:{n}", prog, sub, flags))
    return out


COMMANDS = _commands()


def _argv(prog: str, sub: str) -> list[str]:
    """What follows ``python`` on the command line that prints ``prog``'s (``sub``'s) help."""
    if prog == "lean-gym":
        return ["-m", "lean_gym.cli", *([sub] if sub else []), "--help"]
    if prog.endswith(".py"):
        return [str(ROOT / prog), "--help"]
    return ["-m", prog, *([sub] if sub else []), "--help"]


_HELPS: dict[tuple[str, str], tuple[int, str, str]] = {}


def _help(prog: str, sub: str) -> str:
    """``prog``'s help text. The first call reads the help of every program the pages name, in one
    interpreter (``tests/help_texts.py``: each program run as ``python ARGV`` would run it) instead of one
    per program; that each entry point starts as a process of its own is tested where that is the point
    (tests/test_cli.py, tests/test_agents_cli.py, tests/test_examples.py)."""
    if (prog, sub) not in _HELPS:
        wanted = sorted(({(p, s) for _, p, s, _ in COMMANDS} | {(prog, sub)}) - _HELPS.keys())
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "helps.json"
            res = subprocess.run(
                [sys.executable, str(ROOT / "tests" / "help_texts.py"), str(out)],
                input=json.dumps([_argv(p, s) for p, s in wanted]),
                capture_output=True,
                text=True,
                cwd=ROOT,
                timeout=300,
            )
            assert res.returncode == 0, f"tests/help_texts.py failed:\n{res.stderr[-3000:]}"
            _HELPS.update(zip(wanted, (tuple(a) for a in json.loads(out.read_text(encoding="utf-8")))))
    code, stdout, stderr = _HELPS[(prog, sub)]
    assert code == 0, f"python {' '.join(_argv(prog, sub))} failed:\n{stderr[-2000:]}"
    return stdout


def test_the_pages_show_commands() -> None:
    progs = {p for _, p, _, _ in COMMANDS}
    assert "lean-gym" in progs and any(p.startswith("benchmarks/") for p in progs)


@pytest.mark.parametrize(
    ("where", "prog", "sub", "flags"), COMMANDS, ids=[f"{w} {p} {s}" for w, p, s, _ in COMMANDS]
)
def test_every_command_on_the_pages_exists_with_its_flags(
    where: str, prog: str, sub: str, flags: list[str]
) -> None:
    if prog.endswith(".py"):
        assert (ROOT / prog).is_file(), f"{where}: {prog} does not exist"
    text = _help(prog, sub)
    missing = [f for f in flags if not re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", text)]
    assert not missing, f"{where}: {prog} {sub} has no {missing}"


def test_the_command_check_catches_a_flag_or_script_that_is_gone(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "`python benchmarks/bench_aesop_env.py --pooled-backend sim-repl --no-such-flag 3`\n"
        "```\nlean-gym bench --source mine.jsonl --splt test\n```\n",
        encoding="utf-8",
    )
    found = {(p, s): f for _, p, s, f in _commands([page], tmp_path)}
    assert found[("benchmarks/bench_aesop_env.py", "")] == ["--no-such-flag", "--pooled-backend"]
    assert "--no-such-flag" not in _help("benchmarks/bench_aesop_env.py", "")
    assert "--splt" in found[("lean-gym", "bench")] and "--splt" not in _help("lean-gym", "bench")
