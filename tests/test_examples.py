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

# A fenced ```python block right after a `<!-- runnable -->` line is run as written.
_RUNNABLE = re.compile(r"^<!-- runnable -->\n```python\n(.*?)^```", re.S | re.M)


def _runnable_blocks() -> list[tuple[str, str]]:
    out = []
    for doc in sorted((ROOT / "docs").rglob("*.md")):
        text = doc.read_text(encoding="utf-8")
        for m in _RUNNABLE.finditer(text):
            line = text[: m.start()].count("\n") + 2
            out.append((f"{doc.relative_to(ROOT)}:{line}", m.group(1)))
    return out


BLOCKS = _runnable_blocks()


def test_the_docs_mark_their_runnable_examples() -> None:
    assert any(where.startswith("docs/proof-env.md") for where, _ in BLOCKS)


@pytest.mark.parametrize(("where", "code"), BLOCKS, ids=[w for w, _ in BLOCKS])
def test_docs_python_block_runs_as_written(where: str, code: str, tmp_path: Path) -> None:
    # From an empty directory: a user has no ../shared, no repository checkout around them.
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, f"{where}:\n{out.stderr[-3000:]}"


def test_sb3_ppo_without_torch_names_the_extra_to_install() -> None:
    hide = (
        "import runpy, sys; sys.modules['torch'] = None; sys.argv = ['sb3_ppo.py']; "
        f"runpy.run_path({str(SB3_PPO)!r}, run_name='__main__')"
    )
    out = subprocess.run([sys.executable, "-c", hide], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    assert out.stderr.strip().splitlines() == [
        'sb3_ppo.py needs torch and stable-baselines3 (torch is missing): pip install torch==2.13.0 "lean-gym[sb3]"'
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
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "interrupted", err
