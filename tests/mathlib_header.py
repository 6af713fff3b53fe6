"""Checking Mathlib statements as Lean would: under ``import Mathlib``.

A command with no header is Lean core alone, where ``ℕ``, ``ℝ``, ``linarith`` and ``norm_num`` do not exist, so
the simulator refuses them there as Lean does. Tests about Mathlib statements use these helpers.
"""

from __future__ import annotations

from typing import Any

from lean_gym.backends import SimBackend
from lean_gym.sim import SimRepl
from lean_gym.sim.elab import Env
from lean_gym.sim.tactics import TacticContext

HEADER = "import Mathlib"
MATHLIB_ENV = Env(imports=("Mathlib",))


class MathlibRepl(SimRepl):
    """A :class:`SimRepl` whose commands without an ``env`` run in an environment that imported Mathlib.

    The import is the environment every other command extends, as a REPL client sends its header once; it
    takes no env id, so the ids and positions of the answers are those of the commands alone.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._base = super().handle({"cmd": HEADER})["env"]
        self._shift = self._base + 1

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        req = dict(request)
        if "cmd" in req:
            req["env"] = self._base if "env" not in req else req["env"] + self._shift
        elif "env" in req:
            req["env"] = req["env"] + self._shift
        resp = super().handle(req)
        if "env" in resp:
            resp = {**resp, "env": resp["env"] - self._shift}
        return resp


def mathlib_ctx(**kwargs: Any) -> TacticContext:
    """A :class:`TacticContext` whose environment imported Mathlib."""
    env = kwargs.pop("env", None) or MATHLIB_ENV
    if not env.mathlib:
        env = env.extend(imports=(*env.imports, "Mathlib"))
    return TacticContext(env=env, **kwargs)


class MathlibSimBackend(SimBackend):
    """A :class:`SimBackend` whose checks default to the header ``import Mathlib`` (a header given wins)."""

    def check(self, code: str, *, header: str = HEADER, timeout: float | None = None):  # type: ignore[override]
        return super().check(code, header=header, timeout=timeout)

    def check_batch(self, codes, *, header=HEADER, timeout=None):  # type: ignore[no-untyped-def,override]
        return super().check_batch(codes, header=header, timeout=timeout)
