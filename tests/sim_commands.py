"""A file of Lean commands run on the simulator, as the tests of its tactics read it.

Each run is a fresh environment (no ``import``: core Lean) inside one memo request, so that no test's run
reuses another's.
"""

from __future__ import annotations

from lean_gym.sim.commands import run_commands
from lean_gym.sim.elab import Env
from lean_gym.sim.memo import request


def run_code(code: str) -> tuple[list[str], list[str]]:
    """The error messages of ``code`` and what the simulator did not read in it."""
    with request():
        out = run_commands(code, Env(), fresh=True)
    return [m.data for m in out.messages if m.severity == "error"], [u.data for u in out.unread]


def code_errors(code: str) -> list[str]:
    """The error messages of ``code``, which the simulator must read whole."""
    errs, unread = run_code(code)
    assert not unread, unread
    return errs
