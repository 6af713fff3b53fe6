"""``lean-gym serve-policy``: a lean-gym aesop policy behind SATP's HTTP API, for SATP's Lean tactic ``satp``.

SATP's ``satp`` tactic asks a local service for an aesop call and runs it (``LeanSATP/Tactic.lean``,
commit ``17e9ab990e646172435346a43550c042f4eb99e3``; ``LeanSATP/Bridge.lean``, commit
``058181d8b6140411df45e159b63ebd5f48a22518``, both of ``ChristianZ97/LeanSATP``). It checks
``GET http://127.0.0.1:5177/health`` for ``{"ok": true}``, POSTs the goal to ``/infer``, reads ``ok``, then
``tactic`` (or ``error`` when ``ok`` is false), parses the tactic and runs it, falling back to plain
``aesop`` with a warning on any failure. This module answers that contract (SATP's service:
``python/src/leansatp_runtime/service.py``, commits ``687f9b809d0ea07965ead71adbd3e5e483a7882f`` and
``1418a071426ae79239b4dd38f92be5aa67f1620d``):

``GET /health`` → ``200 {"ok": true, "policy": NAME, "layout": LAYOUT}``

``POST /infer`` with a JSON object in one of SATP's two request forms:

* ``{"goal": str, "hypotheses": [{"name": str, "type": str}, ...], "user_lemmas": [str], "tactic_name": str}``
  (``Tactic.lean``); the service builds SATP's prompt ``theorem satp_goal (h : T) … : goal := by``;
* ``{"formal_statement": str, "user_lemmas": [str], "tactic_name": str}`` (``Bridge.lean``, which renders
  that prompt in Lean); SATP's later fields ``strip_retrieval``, ``hint_priority``, ``user_lemma_priority`` and
  ``name`` are accepted and have no effect (the policy chooses every lemma's level).

→ ``200 {"ok": true, "tactic": str, "formal_statement": str}``: the tactic is the canonical aesop call of the
policy's action in its layout (``  aesop …``, or ``  aesop? …`` for ``tactic_name="aesop?"``), so it parses
back to the same action; the user's lemmas fill the layout's lemma slots in order (score 1.0), where SATP
appends each at a fixed 40% (the v1 layout's level 4). Bad input gets ``400``/``413`` with
``{"ok": false, "error": "…"}``: SATP's shape, which the tactic reads (SATP answered 500).

Example:
    >>> from starlette.testclient import TestClient
    >>> from lean_gym.serve.policy import load_policy, policy_app
    >>> client = TestClient(policy_app(load_policy("plain")))
    >>> client.post("/infer", json={"goal": "0 ≤ x", "hypotheses": [{"name": "x", "type": "ℕ"}]}).json()
    {'ok': True, 'tactic': '  aesop', 'formal_statement': 'theorem satp_goal\\n  (x : ℕ)\\n  : 0 ≤ x := by'}
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import anyio
import numpy as np
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from lean_gym.aesop import Layout, best_static_action, is_lean_ident
from lean_gym.aesop import layout as get_layout
from lean_gym.data.goal_state import (
    Hypothesis,
    goal_state_text,
    parse_theorem_form,
    satp_formal_statement,
)
from lean_gym.envs.aesop_env import GOAL_MAX_CHARS, LEMMA_MAX_CHARS, THEOREM_MAX_CHARS
from lean_gym.envs.spaces import sanitize_text
from lean_gym.errors import ConfigError
from lean_gym.serve.app import HTTPError, ServeConfig, make_app, read_json_object

__all__ = [
    "SATP_PORT",
    "AgentPolicy",
    "InferRequest",
    "StaticPolicy",
    "TacticPolicy",
    "infer",
    "load_policy",
    "parse_infer_request",
    "policy_app",
]

SATP_PORT = 5177
"""The port SATP's ``satp`` tactic calls (``defaultServerPort`` in ``Bridge.lean``), on ``127.0.0.1``."""

MAX_HYPOTHESES = 1024
TACTIC_NAMES = ("aesop", "aesop?")


class TacticPolicy(Protocol):
    """What the service serves: an aesop policy over a layout, one action per observation."""

    @property
    def name(self) -> str:
        """What the policy is (``/health`` reports it)."""
        ...

    @property
    def layout(self) -> Layout:
        """The action layout its actions belong to."""
        ...

    def choose(self, observation: Mapping[str, Any]) -> np.ndarray:
        """The action for a ``LeanAesop`` observation (``goal``, ``theorem``, ``lemmas``, ``lemma_scores``)."""
        ...


@dataclass(frozen=True)
class StaticPolicy:
    """One fixed action for every goal (plain ``aesop``, the best static config): the baselines."""

    name: str
    layout: Layout
    action: np.ndarray = field(repr=False)

    def choose(self, observation: Mapping[str, Any]) -> np.ndarray:
        """The action for one observation."""
        return self.action.copy()


class AgentPolicy:
    """Any lean-gym agent with ``act(observations, explore=False)`` and a ``layout`` (a ``DPOPolicy``).

    Calls are serialised (one model, one thread at a time).
    """

    def __init__(self, agent: Any, name: str, layout: Layout | None = None) -> None:
        self.agent = agent
        self.name = name
        self.layout = get_layout(layout if layout is not None else agent.layout)
        self._lock = threading.Lock()

    def choose(self, observation: Mapping[str, Any]) -> np.ndarray:
        """The action for one observation."""
        with self._lock:
            return np.asarray(self.agent.act([dict(observation)], explore=False)[0], dtype=np.int64)


def load_policy(spec: str, *, layout: str = "satp-v1", device: str | None = None) -> TacticPolicy:
    """The policy ``spec`` names.

    ``plain`` (plain aesop), ``best-static`` (the stored best static config of ``layout`` on the
    simulator's train split) or the path of a DPO checkpoint (``DPOPolicy.save``).

    Raises:
        ConfigError: For an unknown name, a missing file or a layout with no stored best static config.
        LeanGymError: When the file is not a lean-gym DPO checkpoint.
    """
    lay = get_layout(layout)
    if spec == "plain":
        return StaticPolicy("plain aesop", lay, lay.default_action())
    if spec == "best-static":
        try:
            action = best_static_action(lay.name, "sim")
        except KeyError:
            raise ConfigError(
                f"no stored best static config for layout {lay.name!r} (there is one for satp-v1)"
            ) from None
        return StaticPolicy(f"best static config of {lay.name} (simulator train split)", lay, action)
    path = Path(spec)
    if not path.is_file():
        raise ConfigError(
            f"policy {spec!r} is neither 'plain', 'best-static' nor a checkpoint file"
            + (
                " (did you mean 'best-static'?)"
                if spec.replace("_", "-").lower() in ("best-static", "beststatic")
                else ""
            )
        )
    from lean_gym.backends.registry import load_entry_point

    # the agents package (with torch), resolved at call time: nothing in lean_gym imports the agents
    dpo = load_entry_point(
        "lean_gym_agents.dpo:DPOPolicy",
        what="serving a DPO checkpoint",
        hint="pip install -e '.[agents]' in a clone (torch)",
    )
    agent = dpo.load(path, device=device)
    return AgentPolicy(agent, f"DPO policy {path.name} ({agent.layout.name})")


@dataclass(frozen=True)
class InferRequest:
    """An ``/infer`` request, checked: the goal, its hypotheses, the user's lemmas, the tactic's name."""

    goal: str
    hypotheses: tuple[Hypothesis, ...]
    formal_statement: str
    user_lemmas: tuple[str, ...] = ()
    tactic_name: str = "aesop"


def _string(payload: Mapping[str, Any], key: str, default: str = "") -> str:
    value = payload.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise HTTPError(400, f"request field {key!r} must be a string, got {type(value).__name__}")
    return value


def parse_infer_request(payload: Mapping[str, Any], num_lemmas: int) -> InferRequest:
    """Check an ``/infer`` body and build its prompt (:func:`~lean_gym.data.satp_formal_statement`).

    Raises:
        HTTPError: 400 with the first problem found.
    """
    goal = _string(payload, "goal")
    stated = _string(payload, "formal_statement")
    if goal.strip() and stated.strip():
        raise HTTPError(400, "send either 'goal' (with 'hypotheses') or 'formal_statement', not both")
    if stated.strip():
        if len(stated) > THEOREM_MAX_CHARS * 8:
            raise HTTPError(400, f"'formal_statement' is longer than {THEOREM_MAX_CHARS * 8} characters")
        try:
            hyps, goal = parse_theorem_form(stated)
        except ValueError as e:
            raise HTTPError(400, str(e)) from None
        formal = stated.strip()
    elif goal.strip():
        hyps = _hypotheses(payload.get("hypotheses"))
        formal = satp_formal_statement(goal, hyps)
    else:
        raise HTTPError(400, "request body must contain string field 'goal' (or 'formal_statement')")
    lemmas = _user_lemmas(payload.get("user_lemmas"), num_lemmas)
    name = _string(payload, "tactic_name", "aesop").strip() or "aesop"
    if name not in TACTIC_NAMES:
        raise HTTPError(
            400, f"'tactic_name' must be 'aesop' or 'aesop?' (the policy writes aesop calls), got {name!r}"
        )
    return InferRequest(goal.strip(), tuple(hyps), formal, lemmas, name)


def _hypotheses(raw: Any) -> list[Hypothesis]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise HTTPError(
            400, f"'hypotheses' must be a list of {{name, type}} objects, got {type(raw).__name__}"
        )
    if len(raw) > MAX_HYPOTHESES:
        raise HTTPError(400, f"'hypotheses' has {len(raw)} entries; at most {MAX_HYPOTHESES} are read")
    out = []
    for i, h in enumerate(raw):
        if not isinstance(h, dict):
            raise HTTPError(400, f"hypotheses[{i}] must be an object {{name, type}}, got {type(h).__name__}")
        out.append(Hypothesis(_string(h, "name"), _string(h, "type")))
    return out


def _user_lemmas(raw: Any, num_lemmas: int) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
        raise HTTPError(400, "'user_lemmas' must be a list of lemma names (strings)")
    names: list[str] = []
    for i, x in enumerate(raw):
        x = x.strip()
        if not x or x in names:
            continue  # SATP skips blanks and repeats too
        if len(x) > LEMMA_MAX_CHARS or not is_lean_ident(x):
            raise HTTPError(400, f"user_lemmas[{i}] is not a Lean identifier: {x[:80]!r}")
        names.append(x)
    if len(names) > num_lemmas:
        raise HTTPError(400, f"'user_lemmas' has {len(names)} names; the layout has {num_lemmas} lemma slots")
    return tuple(names)


def observation(req: InferRequest, num_lemmas: int) -> dict[str, Any]:
    """The ``LeanAesop`` observation the policy sees for a request (texts cut as the env cuts them)."""
    lemmas = req.user_lemmas + ("",) * (num_lemmas - len(req.user_lemmas))
    scores = np.zeros(num_lemmas, dtype=np.float32)
    scores[: len(req.user_lemmas)] = 1.0
    return {
        "goal": sanitize_text(goal_state_text(req.hypotheses, req.goal), GOAL_MAX_CHARS),
        "theorem": sanitize_text(req.formal_statement, THEOREM_MAX_CHARS),
        "lemmas": lemmas,
        "lemma_scores": scores,
    }


def infer(policy: TacticPolicy, req: InferRequest) -> dict[str, Any]:
    """The ``/infer`` answer: the policy's action for the request, rendered canonically in its layout."""
    lay = policy.layout
    action = lay.validate(policy.choose(observation(req, lay.num_lemmas)))
    tactic = lay.render(action, req.user_lemmas)
    if req.tactic_name != "aesop":
        tactic = "  " + req.tactic_name + tactic[len("  aesop") :]
    return {"ok": True, "tactic": tactic, "formal_statement": req.formal_statement}


def policy_app(policy: TacticPolicy, config: ServeConfig | None = None) -> Any:
    """The Starlette app of SATP's API over ``policy`` (see the module docstring)."""
    config = config or ServeConfig(port=SATP_PORT)
    limiter = anyio.CapacityLimiter(1)  # one inference at a time; the others wait (bounded by max_pending)
    layout_name = policy.layout.name

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"ok": True, "policy": policy.name, "layout": layout_name})

    async def infer_endpoint(request: Request) -> JSONResponse:
        payload = await read_json_object(request, config.max_body_bytes)
        req = parse_infer_request(payload, policy.layout.num_lemmas)
        answer = await anyio.to_thread.run_sync(infer, policy, req, limiter=limiter)
        return JSONResponse(answer)

    routes = [Route("/health", health, methods=["GET"]), Route("/infer", infer_endpoint, methods=["POST"])]
    return make_app(routes, config)
