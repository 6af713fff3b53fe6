"""The Lean-free simulator: a sound prover for a documented subset of Lean 4 that speaks the REPL protocol.

It is NOT Lean. It parses a small subset of Lean 4 (see ``docs/simulator.md``), checks proofs with its own
tactic interpreter and decision procedures, and answers leanprover-community/repl requests with the
shapes the real REPL prints. Results it produces are labelled ``backend="sim"`` everywhere.

This package's ``__init__`` is the composition root of the simulator's layers (syntax → terms →
elaboration → goals → tactic core → tactic families → aesop → commands → REPL server; no module imports
one above it, see ``tests/test_sim_layers.py``): it imports the lemma library and the tactic families,
which register themselves with :meth:`lean_gym.sim.elab.Env.lookup` and the tactic table of
:mod:`lean_gym.sim.tactics`. ``SimRepl`` is imported lazily.

It runs as pure Python, or with its aesop search compiled by mypyc where ``make compile-sim`` was run (an
opt-in build, the same answers; see ``docs/simulator.md``, "Memo tables and speed"): :func:`compiled` says
which, and importing the package warns when a compiled module is older than its source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lean_gym.sim import aesop as _aesop  # noqa: F401

# registration: the lemma library, then the tactic families and aesop
from lean_gym.sim import library as _library  # noqa: F401
from lean_gym.sim import rewrite as _rewrite  # noqa: F401
from lean_gym.sim import simp as _simp  # noqa: F401
from lean_gym.sim import tac_arith as _tac_arith  # noqa: F401
from lean_gym.sim import tac_basic as _tac_basic  # noqa: F401
from lean_gym.sim import tac_cancel as _tac_cancel  # noqa: F401
from lean_gym.sim import tac_cast as _tac_cast  # noqa: F401
from lean_gym.sim import tac_choose as _tac_choose  # noqa: F401
from lean_gym.sim import tac_conv as _tac_conv  # noqa: F401
from lean_gym.sim import tac_field_simp as _tac_field_simp  # noqa: F401
from lean_gym.sim import tac_grind as _tac_grind  # noqa: F401
from lean_gym.sim import tac_lincomb as _tac_lincomb  # noqa: F401
from lean_gym.sim import tac_tauto as _tac_tauto  # noqa: F401
from lean_gym.sim.native import compiled, warn_if_stale

if TYPE_CHECKING:
    from lean_gym.sim.repl import SimRepl

__all__ = ["SimRepl", "compiled"]

warn_if_stale()  # a compiled build older than an edited source would run the old code


def __getattr__(name: str) -> Any:
    if name == "SimRepl":
        from lean_gym.sim.repl import SimRepl

        return SimRepl
    raise AttributeError(f"module 'lean_gym.sim' has no attribute {name!r}")
