"""The Lean-free simulator: a sound prover for a documented subset of Lean 4 that speaks the REPL protocol.

It is NOT Lean. It parses a small subset of Lean 4 (see ``docs/simulator.md``), checks proofs with its own
tactic interpreter and decision procedures, and answers leanprover-community/repl requests with the
shapes the real REPL prints. Results it produces are labelled ``backend="sim"`` everywhere.

Imports here are lazy so that ``import lean_gym.sim`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lean_gym.sim.repl import SimRepl

__all__ = ["SimRepl"]


def __getattr__(name: str) -> Any:
    if name == "SimRepl":
        from lean_gym.sim.repl import SimRepl

        return SimRepl
    raise AttributeError(f"module 'lean_gym.sim' has no attribute {name!r}")
