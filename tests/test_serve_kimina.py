"""kimina's own client (kimina-client 0.2.1, PyPI) against `lean-gym serve` on the simulator.

kimina-client 0.2.1 needs Python >= 3.12 (on 3.11 its models fail to import: they use typing.TypedDict,
which pydantic refuses below 3.12), so it runs in a separate interpreter: ``$LEAN_GYM_KIMINA_PYTHON`` or
``build/kimina-venv/bin/python``, built by ``sh scripts/kimina_venv.sh``. Without one this test skips, saying so.
Every verdict is the simulator's (`sim-repl`), not Lean's.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from serve_helpers import running_server

from lean_gym.backends import ReplBackend
from lean_gym.backends.repl import sim_command
from lean_gym.serve.app import ServeConfig

ROOT = Path(__file__).resolve().parent.parent
DRIVER = Path(__file__).parent / "kimina_driver.py"


def _kimina_python() -> str:
    python = os.environ.get("LEAN_GYM_KIMINA_PYTHON") or str(
        ROOT / "build" / "kimina-venv" / "bin" / "python"
    )
    if not Path(python).exists():
        pytest.skip(f"no Python with kimina-client at {python} (build it: sh scripts/kimina_venv.sh)")
    probe = subprocess.run([python, "-c", "import kimina_client"], capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip(f"{python} cannot import kimina_client: {probe.stderr.strip().splitlines()[-1:]}")
    return python


@pytest.mark.slow
def test_kimina_client_gets_correct_answers_from_lean_gym_serve() -> None:
    python = _kimina_python()
    backend = ReplBackend(command=sim_command(), pool_size=2, timeout=60)
    try:
        with running_server(backend, config=ServeConfig(api_key="secret-key")) as (url, service):
            run = subprocess.run(
                [python, str(DRIVER), url, "secret-key"], capture_output=True, text=True, timeout=300
            )
            assert run.returncode == 0, run.stderr[-2000:]
            out = json.loads(run.stdout.strip().splitlines()[-1])
    finally:
        backend.close()
    assert out["health"] == {"status": "ok"}
    assert out["sync"] == {"ok": "valid", "sorry": "sorry", "err": "lean_error", "dup1": "valid"}
    assert out["lines"]["err"] == [2]  # full-file lines: the import is line 1
    assert out["dup2"] == "valid"  # no kimina-style env-0 leak across requests
    want = {f"m{i}": ("valid" if i % 2 else "lean_error") for i in range(10)}
    assert out["interleaved"] == want and out["async"] == want
    assert out["wrong_key"] == "server_error"  # 401, retried 3 times by the client, then its server_error
    assert service.metrics.rejected["bad_input"] == 0
