"""The leanprover-community/repl JSON protocol, answered by the simulator.

:class:`SimRepl` keeps the REPL's state (environments and proof states, both numbered from 0 and never
freed, as in the real REPL) and answers one request at a time with the object the real REPL would print:
the same keys, in the same (Lean) order, omitted when empty in the same places, with the same top-level
``{"message": …}`` errors.

Example:
    >>> repl = SimRepl()
    >>> repl.handle({"cmd": "theorem t (x : Nat) : x + 0 = x := by simp"})
    {'env': 0}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from lean_gym.errors import ProtocolError
from lean_gym.sim.commands import Msg, run_commands
from lean_gym.sim.elab import Decl, Env
from lean_gym.sim.goals import Goal
from lean_gym.sim.jsonfmt import lean_order
from lean_gym.sim.memo import caching
from lean_gym.sim.memo import request as memo_request
from lean_gym.sim.native import mypyc_attr
from lean_gym.sim.syntax import ParseError, Source
from lean_gym.sim.tactics import DEFAULT_HEARTBEAT_CAP, heartbeat_cap
from lean_gym.sim.terms import FVAR_SEP, new_fvar

__all__ = ["INTERNAL_ERROR", "ProofState", "SimRepl"]


@dataclass(frozen=True)
class ProofState:
    """A tactic-mode proof state: open goals, the environment, and whether a sorry was used on the way."""

    goals: tuple[Goal, ...]
    env: Env
    has_sorry: bool = False
    decl_name: str | None = None
    self_reference: bool = False
    error: str | None = None


@dataclass
class _Counters:
    envs: list[Env] = field(default_factory=list)
    states: list[ProofState] = field(default_factory=list)


# callers may subclass it, were it compiled (make compile-sim leaves it interpreted: docs/simulator.md)
@mypyc_attr(allow_interpreted_subclasses=True)
class SimRepl:
    """In-process REPL-protocol handler backed by the simulator (not Lean).

    ``handle(request)`` returns exactly what the real REPL prints for ``request``, as a dict with keys in
    Lean's order. Requests that the real REPL cannot parse raise :class:`~lean_gym.errors.ProtocolError`
    (the real process dies on them; ``python -m lean_gym.sim`` does the same). Any other exception is a
    bug in the simulator: the request is answered with an error whose text starts with
    :data:`INTERNAL_ERROR` (a command gets an error message and a new environment, a tactic request a
    top-level ``Lean error``), so no submission can crash a check or the process; the tests and the
    attacking fuzzer look for that text, so a bug is still found.

    Args:
        max_heartbeats: The caller's heartbeat cap for every declaration and tactic request: a request's
            ``set_option maxHeartbeats N`` gets ``min(N, max_heartbeats)`` (``N = 0``: the cap), so the
            checked text can lower its budget but never raise it. ``0``: the hard cap
            (:data:`~lean_gym.sim.tactics.HARD_HEARTBEAT_CAP`).
        cache: Use the simulator's memo tables (:mod:`lean_gym.sim.memo`); ``False`` recomputes
            everything (the answers are the same either way); ``None``: as the process says.
    """

    def __init__(self, max_heartbeats: int = DEFAULT_HEARTBEAT_CAP, cache: bool | None = None) -> None:
        if max_heartbeats < 0:
            raise ValueError(f"max_heartbeats must be >= 0 (0: the hard cap), got {max_heartbeats}")
        self.max_heartbeats = int(max_heartbeats)
        self.cache = cache
        self._s = _Counters()

    # ------------------------------------------------------------------------------------ dispatch

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        """Answer one request.

        Raises:
            ProtocolError: when ``request`` matches no request shape of the protocol.
        """
        if not isinstance(request, dict):
            raise ProtocolError(f"a request must be a JSON object, got {type(request).__name__}")
        try:
            with heartbeat_cap(self.max_heartbeats), caching(self.cache), memo_request():
                return self._dispatch(request)
        except RecursionError:
            # Lean reports runaway recursion as an error too; the Python stack is the simulator's analogue
            return {
                "message": "Lean error:\nmaximum recursion depth has been reached\nuse `set_option maxRecDepth <num>` to increase limit"
            }
        except ProtocolError:
            raise
        except Exception as e:
            # A bug of the simulator must not be a crash that any submission can trigger: the request is
            # answered with an error (never a proof), whose text says that the simulator, not Lean, failed.
            return lean_order(_internal_error_response(request, e, len(self._s.envs), self._s))

    def _dispatch(self, request: dict[str, Any]) -> dict[str, Any]:
        r = request
        if "tactic" in r and "proofState" in r:
            return lean_order(self._tactic(r))
        if "pickleTo" in r and "env" in r:
            return lean_order(self._pickle_env(r))
        if "unpickleEnvFrom" in r:
            return lean_order(self._unpickle_env(r))
        if "pickleTo" in r and "proofState" in r:
            return lean_order(self._pickle_state(r))
        if "unpickleProofStateFrom" in r:
            return lean_order(self._unpickle_state(r))
        if "cmd" in r:
            return lean_order(self._command(str(r["cmd"]), r))
        if "path" in r:
            try:
                text = Path(str(r["path"])).read_text(encoding="utf-8")
            except OSError as e:
                return (
                    {
                        "message": f"Lean error:\nno such file or directory (error code: 2)\n  file: {r['path']}"
                    }
                    if isinstance(e, FileNotFoundError)
                    else {"message": f"Lean error:\n{e}"}
                )
            return lean_order(self._command(text, r))
        raise ProtocolError("Could not parse JSON:\n" + json.dumps(request, ensure_ascii=False)[:200])

    # ------------------------------------------------------------------------------------- commands

    def _new_state(self, st: ProofState) -> int:
        self._s.states.append(st)
        return len(self._s.states) - 1

    def _command(self, cmd: str, r: dict[str, Any]) -> dict[str, Any]:
        env_id = r.get("env")
        if env_id is not None:
            if not isinstance(env_id, int) or not 0 <= env_id < len(self._s.envs):
                return {"message": "Unknown environment."}
            base = self._s.envs[env_id]
            fresh = False
        else:
            base = Env()
            fresh = True
        out = run_commands(cmd, base, fresh, bool(r.get("allTactics")))
        src = out.src
        sorries = []
        for goal, start, end, decl in out.sorries:
            sid = self._new_state(ProofState((goal,), out.env, False, decl))
            sorries.append(
                {
                    "proofState": sid,
                    "pos": _pos(src, start),
                    "goal": goal.pretty(),
                    "endPos": _pos(src, end),
                }
            )
        tactics = []
        for text, goals, start, end in out.tactics:
            tid = self._new_state(ProofState(goals, out.env, False, None))
            tactics.append(
                {
                    "usedConstants": [],
                    "tactic": text,
                    "proofState": tid,
                    "pos": _pos(src, start),
                    "goals": "\n\n".join(g.pretty() for g in goals),
                    "endPos": _pos(src, end),
                }
            )
        messages = [_msg_json(src, m) for m in out.messages]
        self._s.envs.append(out.env)
        resp: dict[str, Any] = {}
        if tactics:
            resp["tactics"] = tactics
        if sorries:
            resp["sorries"] = sorries
        if messages:
            resp["messages"] = messages
        resp["env"] = len(self._s.envs) - 1
        return resp

    # --------------------------------------------------------------------------------------- tactics

    def _tactic(self, r: dict[str, Any]) -> dict[str, Any]:
        from lean_gym.sim.syntax import tokenize
        from lean_gym.sim.tactics import (
            BlockParser,
            TacticContext,
            TacticError,
            exec_node,
        )

        sid = r.get("proofState")
        if not isinstance(sid, int) or not 0 <= sid < len(self._s.states):
            return {"message": "Unknown proof state."}
        st = self._s.states[sid]
        text = str(r["tactic"])
        src = Source(text)
        try:
            toks = tokenize(text, src)
            bp = BlockParser(src, toks)
            node = bp.parse_seq(-1)
            if bp.tok.kind != "eof":
                t = bp.tok
                raise ParseError(f"unexpected token '{t.text}'; expected command", t.start, t.end)
            _check_known(node)
        except ParseError as parse_err:
            line, col = src.position(parse_err.start)
            return {"message": f"Lean error:\n<input>:{line}:{col}: {parse_err.message}"}
        except _UnknownTactic as unknown:
            line, col = src.position(unknown.start)
            return {"message": f"Lean error:\n<input>:{line}:{col + 1}: unknown tactic"}
        ctx = TacticContext(env=st.env, decl_name=st.decl_name)
        ctx.src = src
        ctx.recover = True
        try:
            goals = exec_node(node, list(st.goals), ctx)
        except TacticError as tac_err:
            return {"message": "Lean error:\n" + tac_err.message}
        sorries = []
        for s in ctx.sorries:
            nid = self._new_state(ProofState((s.goal,), st.env, False, st.decl_name))
            sorries.append({"proofState": nid, "goal": s.goal.pretty()})
        has_sorry = st.has_sorry or bool(ctx.sorries) or ctx.synthetic_sorry or "sorryAx" in ctx.axioms
        selfref = st.self_reference or ctx.self_reference
        new = ProofState(tuple(goals), st.env, has_sorry, st.decl_name, selfref)
        nid = self._new_state(new)
        resp: dict[str, Any] = {}
        if sorries:
            resp["sorries"] = sorries
        resp["proofStatus"] = _status(new)
        resp["proofState"] = nid
        msgs = [
            {
                "severity": m.severity,
                "pos": {"line": 0, "column": 0},
                "endPos": {"line": 0, "column": 0},
                "data": m.data,
            }
            for m in ctx.messages
        ]
        if msgs:
            resp["messages"] = msgs
        resp["goals"] = [g.pretty() for g in goals]
        return resp

    def _state_response(self, st: ProofState, nid: int) -> dict[str, Any]:
        return {"proofStatus": _status(st), "proofState": nid, "goals": [g.pretty() for g in st.goals]}

    # --------------------------------------------------------------------------------------- pickling

    def _pickle_env(self, r: dict[str, Any]) -> dict[str, Any]:
        env_id = r["env"]
        if not isinstance(env_id, int) or not 0 <= env_id < len(self._s.envs):
            return {"message": "Unknown environment."}
        _write(r["pickleTo"], {"kind": "sim-env", "env": _env_to_json(self._s.envs[env_id])})
        return {"env": env_id}

    def _unpickle_env(self, r: dict[str, Any]) -> dict[str, Any]:
        try:
            data = _read(r["unpickleEnvFrom"])
            env = _env_from_json(data["env"], {})
        except (OSError, KeyError, ValueError, TypeError) as e:
            return {"message": f"Lean error:\ncould not unpickle environment: {e}"}
        self._s.envs.append(env)
        return {"env": len(self._s.envs) - 1}

    def _pickle_state(self, r: dict[str, Any]) -> dict[str, Any]:
        sid = r["proofState"]
        if not isinstance(sid, int) or not 0 <= sid < len(self._s.states):
            return {"message": "Unknown proof State."}
        st = self._s.states[sid]
        _write(r["pickleTo"], {"kind": "sim-proof-state", "state": _state_to_json(st)})
        nid = self._new_state(st)
        return self._state_response(st, nid)

    def _unpickle_state(self, r: dict[str, Any]) -> dict[str, Any]:
        env_id = r.get("env")
        if env_id is not None and (not isinstance(env_id, int) or not 0 <= env_id < len(self._s.envs)):
            return {"message": "Unknown environment."}
        try:
            data = _read(r["unpickleProofStateFrom"])
            st = _state_from_json(data["state"])
        except (OSError, KeyError, ValueError, TypeError) as e:
            return {"message": f"Lean error:\ncould not unpickle proof state: {e}"}
        if env_id is not None:
            st = ProofState(st.goals, self._s.envs[env_id], st.has_sorry, st.decl_name, st.self_reference)
        nid = self._new_state(st)
        return self._state_response(st, nid)


INTERNAL_ERROR = "internal simulator error"
"""Starts the message of a request the simulator failed on (a bug of the simulator, not Lean's verdict)."""


def _internal_error_response(
    request: dict[str, Any], exc: Exception, n_envs: int, state: _Counters
) -> dict[str, Any]:
    """The answer to a request the simulator raised on: an error message, never a proof or a crash."""
    detail = str(exc).splitlines()[0][:200] if str(exc) else ""
    text = (
        f"{INTERNAL_ERROR} ({type(exc).__name__}{': ' + detail if detail else ''}): the simulator cannot "
        "check this; it is not Lean's verdict (please report it)"
    )
    if "tactic" in request and "proofState" in request:
        return {"message": "Lean error:\n" + text}
    if "cmd" in request or "path" in request:
        env_id = request.get("env")
        base = state.envs[env_id] if isinstance(env_id, int) and 0 <= env_id < n_envs else Env()
        state.envs.append(base)
        pos = {"line": 1, "column": 0}
        return {
            "messages": [{"severity": "error", "pos": pos, "endPos": pos, "data": text}],
            "env": len(state.envs) - 1,
        }
    return {"message": "Lean error:\n" + text}


class _UnknownTactic(Exception):
    def __init__(self, start: int) -> None:
        super().__init__("unknown tactic")
        self.start = start


def _check_known(node: Any) -> None:
    from lean_gym.sim.tactics import known_tactic

    if node.kind == "atomic":
        if not known_tactic(node.syntax.name):
            raise _UnknownTactic(node.syntax.start)
        return
    for c in node.children:
        _check_known(c)


def _status(st: ProofState) -> str:
    if st.goals:
        return "Incomplete: open goals remain"
    if st.self_reference:
        return "Error: kernel type check failed: (kernel) declaration has free variables '[anonymous]', expression: \n  _fvar.2"
    if st.has_sorry:
        return "Incomplete: contains sorry"
    return "Completed"


def _pos(src: Source, offset: int) -> dict[str, int]:
    line, col = src.position(offset)
    return {"line": line, "column": col}


def _msg_json(src: Source, m: Msg) -> dict[str, Any]:
    return {"severity": m.severity, "pos": _pos(src, m.start), "endPos": _pos(src, m.end), "data": m.data}


# ------------------------------------------------------------------------------------------ (de)serialise


def _enc(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_enc(x) for x in v]
    if isinstance(v, Fraction):
        return {"q": [v.numerator, v.denominator]}
    if isinstance(v, frozenset):
        return {"set": sorted(v)}
    return v


def _dec(v: Any, ids: dict[str, str]) -> Any:
    """Decode ``v``; local ids are mapped to fresh ones of this process (``ids`` keeps the mapping)."""
    if isinstance(v, list):
        return tuple(_dec(x, ids) for x in v)
    if isinstance(v, dict):
        if "q" in v:
            return Fraction(v["q"][0], v["q"][1])
        if "set" in v:
            return frozenset(v["set"])
    if isinstance(v, str) and FVAR_SEP in v:
        new = ids.get(v)
        if new is None:
            new = ids[v] = new_fvar(v)
        return new
    return v


def _env_to_json(env: Env) -> dict[str, Any]:
    return {
        "decls": [
            {
                "name": d.name,
                "kind": d.kind,
                "binders": _enc(d.binders),
                "type": _enc(d.type),
                "value": _enc(d.value) if d.value is not None else None,
                "axioms": sorted(d.axioms),
                "tyvars": [[n, sorted(a)] for n, a in d.tyvars],
            }
            for d in env.decls.values()
        ],
        "options": dict(env.options),
        "opens": list(env.opens),
        "imports": list(env.imports),
        "namespace": env.namespace,
    }


def _env_from_json(data: dict[str, Any], ids: dict[str, str]) -> Env:
    decls = {}
    for d in data["decls"]:
        decls[d["name"]] = Decl(
            d["name"],
            d["kind"],
            _dec(d["binders"], ids),
            _dec(d["type"], ids),
            _dec(d["value"], ids) if d["value"] is not None else None,
            frozenset(d["axioms"]),
            tuple((n, frozenset(a)) for n, a in d.get("tyvars", [])),
        )
    return Env(
        decls, dict(data["options"]), tuple(data["opens"]), tuple(data["imports"]), data.get("namespace", "")
    )


def _state_to_json(st: ProofState) -> dict[str, Any]:
    return {
        "goals": [
            {"hyps": _enc(g.hyps), "target": _enc(g.target), "tag": g.tag, "ascii": g.ascii} for g in st.goals
        ],
        "env": _env_to_json(st.env),
        "has_sorry": st.has_sorry,
        "decl_name": st.decl_name,
        "self_reference": st.self_reference,
    }


def _state_from_json(data: dict[str, Any]) -> ProofState:
    ids: dict[str, str] = {}
    goals = tuple(
        Goal(_dec(g["hyps"], ids), _dec(g["target"], ids), g["tag"], bool(g["ascii"])) for g in data["goals"]
    )
    return ProofState(
        goals,
        _env_from_json(data["env"], ids),
        bool(data["has_sorry"]),
        data["decl_name"],
        bool(data["self_reference"]),
    )


def _write(path: str, obj: dict[str, Any]) -> None:
    p = Path(path)
    if p.parent and not p.parent.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(obj, ensure_ascii=False), encoding="utf-8")


def _read(path: str) -> dict[str, Any]:
    return json.loads(Path(path).read_text(encoding="utf-8"))
