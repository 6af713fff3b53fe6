"""A child program for tests/test_sim_compiled.py: answer deeply nested input with the simulator it imports.

Run as ``python tests/sim_deep_probe.py NAME…`` with the tree to test first on ``PYTHONPATH`` (the pure
build or the compiled one); it prints one JSON line per probe: the probe's name, the build that ran, and the
simulator's responses, in order. A crash of the process (the C stack overflowing in compiled code) shows
as a nonzero exit and missing lines. ``--list`` prints the probes' names.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

HEADER = "import Mathlib\n"
DEEP = 20_000  # far past Python's recursion limit, and past what the C stack holds of compiled frames


def _nest(depth: int, around: Callable[[str], str], leaf: str) -> str:
    out = leaf
    for _ in range(depth):
        out = around(out)
    return out


def _chain(depth: int, op: str, leaf: str) -> str:
    return f" {op} ".join([leaf] * depth)


def _statements() -> dict[str, list[str]]:
    """Each probe: the commands sent, in order (one fresh environment each)."""
    aesop_deep = "(p : Prop) (hp : p)"
    return {
        # nesting the parser and the elaborator (interpreted) meet first: every build must refuse alike
        "parens": [f"example {aesop_deep} : {_nest(DEEP, lambda s: f'({s})', 'p')} := by aesop"],
        "parens_500": [f"example : {_nest(500, lambda s: f'({s})', '1')} = 1 := by aesop"],
        "and_chain": [f"example {aesop_deep} : {_chain(DEEP, '∧', 'p')} := by aesop"],
        "or_chain": [f"example {aesop_deep} : {_chain(DEEP, '∨', 'p')} := by aesop"],
        "not_nest": [f"example {aesop_deep} : {_nest(DEEP, lambda s: f'¬{s}', '¬p')} := by aesop"],
        "and_nest": [f"example {aesop_deep} : {_nest(DEEP, lambda s: f'(p ∧ {s})', 'p')} := by aesop"],
        # the deepest terms the elaborator still reads, handed to the compiled cost model and search
        "and_chain_300": [f"example {aesop_deep} : {_chain(300, '∧', 'p')} := by aesop"],
        "sum_chain_400": [f"example (x : ℕ) (h : {_chain(400, '+', 'x')} = 0) : x = 0 := by aesop"],
        "nlinarith_deep": [
            f"example (x : ℝ) (h : 0 ≤ {_nest(300, lambda s: f'({s}) * x', 'x')}) : 0 ≤ x ^ 2 := by "
            "aesop (add unsafe (by nlinarith))"
        ],
        # a search whose own steps build deeper terms than the statement: simp loops on `h`
        "simp_grows": [
            "example (f : ℕ → ℕ) (h : ∀ n, f n = f (f n)) : f 0 = 1 := by aesop (add simp h)",
            "example (f : ℕ → ℕ) (h : ∀ n, f (n + 1) = f n + 1) : f 5000 = f 0 + 5000 := by "
            "aesop (add norm simp h)",
        ],
        # a search whose goals grow a level per rule application (`P (f (f … 0))`) until a walk over them
        # stops at native.NATIVE_DEPTH, given the heartbeats to get there (see _HEARTBEATS)
        "deep_terms": [
            "set_option maxHeartbeats 20000000 in\n"
            "example (f : ℕ → ℕ) (P : ℕ → Prop) (h : ∀ n, P (f n) → P n) : P 0 := by aesop (add safe apply h) "
            "(config := { maxRuleApplicationDepth := 0, maxRuleApplications := 0, "
            "maxSafePrefixRuleApplications := 0 })",
            "set_option maxHeartbeats 100000000 in\n"
            "example (f : ℕ → ℕ) (P : ℕ → Prop) (h : ∀ n, P (f n) → P n) : P 0 := by aesop (add unsafe apply h) "
            "(config := { maxRuleApplicationDepth := 0, maxRuleApplications := 0 })",
        ],
        # a search tree as deep as the rule applications allow (the tree's recursions: script, safe prefix)
        "deep_tree": [
            "example (P : ℕ → Prop) (h : ∀ n, P (n + 1) → P n) : P 0 := by aesop (add safe apply h) "
            "(config := { maxRuleApplicationDepth := 100000, maxRuleApplications := 100000, "
            "maxSafePrefixRuleApplications := 100000 })",
            "example (P : ℕ → Prop) (h : ∀ n, P (n + 1) → P n) : P 0 := by aesop (add unsafe apply h) "
            "(config := { maxRuleApplicationDepth := 0, maxRuleApplications := 0 })",
            "example (P : ℕ → Prop) (h : ∀ n, P n → P (n + 1)) (h0 : P 0) : P 3000 := by "
            "aesop (add safe apply h) (config := { maxRuleApplicationDepth := 100000, "
            "maxRuleApplications := 100000 })",
        ],
        # a rule list far longer than any real call
        "many_rules": [
            "example (p q : Prop) (hp : p) (h : p → q) : q := by aesop (add unsafe ["
            + ", ".join(["h"] * 5000)
            + "])",
            "example (p q : Prop) (hq : q) : p := by aesop (add safe ["
            + ", ".join("Nat.succ_le_succ, Nat.le_refl, hq" for _ in range(2000))
            + "])",
        ],
    }


#: Probes that need a larger heartbeat cap than ``SimRepl``'s default (a statement's ``maxHeartbeats`` is
#: capped by it).
_HEARTBEATS = {"deep_terms": 10**9}


def main(argv: list[str]) -> int:
    probes = _statements()
    if argv[:1] == ["--list"]:
        print("\n".join(probes))
        return 0
    sys.setrecursionlimit(1000)  # the interpreter's default, whatever the environment set
    import lean_gym.sim
    from lean_gym.sim import SimRepl

    build = "compiled" if lean_gym.sim.compiled() else "pure"
    for name in argv:
        repl = SimRepl(max_heartbeats=_HEARTBEATS[name]) if name in _HEARTBEATS else SimRepl()
        out = []
        for cmd in probes[name]:
            resp = repl.handle({"cmd": HEADER + cmd})
            resp.pop("env", None)
            out.append(resp)
        print(json.dumps({"probe": name, "build": build, "responses": out}, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
