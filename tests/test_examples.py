"""The examples and the docs' Python blocks run as a user would run them, and fail as a user would want."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SB3_PPO = ROOT / "examples" / "sb3_ppo.py"

# A fenced ```python or ```bash block right after a `<!-- runnable -->` line is run as written. The blocks of
# one page run in order, in one directory: a later block may use what an earlier one wrote (the README's walk
# from a JSONL of one's own to an `eval` table does).
# A plain ``` block right after a runnable one (one blank line between) is what it prints, exactly.
_RUNNABLE = re.compile(
    r"^<!-- runnable -->\n```(python|bash)\n(.*?)^```\n(?:\n```\n(.*?)^```\n)?", re.S | re.M
)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _runnable_blocks() -> list[tuple[str, list[tuple[str, str, str, str | None]]]]:
    out = []
    for doc in PAGES:
        text = doc.read_text(encoding="utf-8")
        blocks = []
        for m in _RUNNABLE.finditer(text):
            line = text[: m.start()].count("\n") + 2
            blocks.append((f"{doc.relative_to(ROOT)}:{line}", m.group(1), m.group(2), m.group(3)))
        if blocks:
            out.append((str(doc.relative_to(ROOT)), blocks))
    return out


BLOCKS = _runnable_blocks()


def test_the_docs_mark_their_runnable_examples() -> None:
    pages = [page for page, _ in BLOCKS]
    assert "docs/proof-env.md" in pages and "README.md" in pages


@pytest.mark.parametrize(("page", "blocks"), BLOCKS, ids=[p for p, _ in BLOCKS])
def test_docs_runnable_blocks_run_as_written_and_show_something(
    page: str, blocks: list[tuple[str, str, str, str | None]], tmp_path: Path
) -> None:
    # From an empty directory: a user has no ../shared, no repository checkout around them. `lean-gym` is
    # the console script of this interpreter's environment, as after the README's install line.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env["LEAN_GYM_DATA"] = str(tmp_path / "cache")  # no fetched dataset either
    for where, lang, code, shown in blocks:
        argv = [sys.executable, "-c", code] if lang == "python" else ["bash", "-euo", "pipefail", "-c", code]
        out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
        assert out.returncode == 0, f"{where}:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
        # an example that prints nothing shows the reader nothing (simulator.md's blocks did that)
        assert out.stdout.strip(), f"{where}: the block prints nothing"
        if shown is not None:
            assert out.stdout == shown, f"{where}: the page shows another output than the block prints"


def test_sb3_ppo_without_torch_names_the_extra_to_install() -> None:
    hide = (
        "import runpy, sys; sys.modules['torch'] = None; sys.argv = ['sb3_ppo.py']; "
        f"runpy.run_path({str(SB3_PPO)!r}, run_name='__main__')"
    )
    out = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [
        'sb3_ppo.py needs torch and stable-baselines3 (torch is missing): pip install torch==2.13.0 -e ".[sb3]" (in a clone of lean-gym)'
    ]


def test_sb3_ppo_ctrl_c_is_one_line() -> None:
    pytest.importorskip("stable_baselines3")
    proc = subprocess.Popen(
        [sys.executable, str(SB3_PPO), "--total-timesteps", "1000000", "--eval-limit", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None and proc.stderr is not None
    try:
        first = proc.stdout.readline()  # "backend: …": torch is loaded
        assert first.startswith("backend:"), first + proc.stderr.read()
        # the last line before `model.learn`: from here on the process is training (a million steps)
        for line in proc.stdout:
            if line.startswith("test success, PPO before training"):
                break
        else:
            raise AssertionError("sb3_ppo.py ended before training: " + proc.stderr.read())
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            # a lost SIGINT trains on for a million steps: fail with what it wrote, do not hang the suite
            proc.kill()
            _, err = proc.communicate()
            raise AssertionError("sb3_ppo.py was still running 120 s after SIGINT:\n" + err[-3000:]) from None
        assert proc.returncode == 130, err
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "interrupted", err
