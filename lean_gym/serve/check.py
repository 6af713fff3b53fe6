"""``lean-gym serve``: the verification service, over one backend, in kimina's API and lean-gym's own.

**kimina's API** (what ``kimina-client`` 0.2.1 sends, so a recipe written for kimina's Lean server points
here by changing one URL; the contract is in ``docs/serve.md``):

* ``POST /api/check`` ``{"snippets": [{"id": str, "code": str}], "timeout": int, "debug", "reuse",
  "infotree"}`` → ``{"results": [{"id", "time", "response": {...}} | {"id", "time", "error": str}]}``:
  a REPL response (``env``, ``messages``, ``sorries``) per snippet, positions relative to the snippet's
  whole code (imports included), a timeout as ``error: "Lean REPL command timed out in T seconds"``.
* ``POST /verify`` (kimina's older API), ``GET /health`` and ``GET /`` (``{"status": "ok"}``).

Unlike kimina's server, a snippet with no imports runs in an environment of its own (kimina's reuses the
first snippet's declarations on that REPL), and a request waits no polling interval. kimina's client reads
a snippet as ``valid`` when Lean reports no error and no sorry: it checks no axiom and no statement. That
is what this endpoint answers too; ``/v1/grade`` is the path that does.

**lean-gym's API**:

* ``POST /v1/check`` ``{"checks": [{"id"?, "code", "header"?}], "timeout"?}`` → every
  :class:`~lean_gym.backends.CheckResult` whole (``to_wire``), with ``Idempotency-Key`` (a retry is answered
  from the first run). :class:`~lean_gym.backends.RemoteBackend` speaks it.
* ``POST /v1/grade`` ``{"items": [{"id"?, "theorem": {"name", "formal_statement", "header"?},
  "submission"}], "timeout"?, "weak"?}`` → the oracle's verdict per item (``accepted``, ``hack_class``,
  ``reason``, ``reward``, ``axioms``, ``check``), through the one verdict pipeline
  (:meth:`~lean_gym.grading.Oracle.plan`), and a weak grader's beside it when ``weak`` names one.
* ``GET /v1/info``, ``GET /healthz`` (alive), ``GET /readyz`` (a first check answered), ``POST /v1/selftest``,
  ``GET /metrics`` (Prometheus text; ``?format=json``).

**Bounds**: the body (413), checks per request (413), characters per check (422), the caller's timeout
under the server's cap (clamped), checks in flight across requests. Past the last, ``/v1/*`` answers 503
with ``Retry-After`` at once, and ``/api/check`` / ``/verify`` wait up to ``queue_wait_s`` and then answer
each snippet with an error, because kimina's client retries any HTTP error blindly three times and then
scores the whole batch 0. Bad input is one line in ``{"ok": false, "error": …}`` with a 4xx; the API key
(``Authorization: Bearer KEY``) guards everything but the health paths.

**Recovery**: the pool restarts a process that times out or dies; a check answered ``crashed`` is run once
more on a fresh process (a worker killed under it costs one retry, not its answer), and only a second crash
is the answer.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from lean_gym.backends import Backend, CheckResult, acheck_batch, capabilities_of
from lean_gym.errors import ConfigError, LeanGymError
from lean_gym.grading import Oracle
from lean_gym.grading.weak import WEAK_GRADERS, make_weak_grader
from lean_gym.lean.protocol import Position
from lean_gym.serve.app import HTTPError, ServeConfig, make_app, read_json_object
from lean_gym.serve.metrics import Metrics

__all__ = ["CheckLimits", "CheckService", "check_app", "kimina_result"]

_Answer = tuple[int, bytes, dict[str, str]]  # an idempotent request's status, body and extra headers
_INFOTREES = (None, "full", "tactics", "original", "substantive")
_SEVERITIES = ("trace", "info", "warning", "error")
_KIMINA_DEFAULT_TIMEOUT = 30  # kimina's CheckRequest default
_VERIFY_DEFAULT_TIMEOUT = 300  # kimina's VerifyRequestBody default


@dataclass(frozen=True)
class CheckLimits:
    """What one server accepts.

    Attributes:
        max_batch: Checks (snippets, items) in one request; more gets 413.
        max_code_chars: Characters of one check's code (and header); more gets 422.
        max_timeout_s: The cap on a caller's per-check timeout (a larger one is clamped to it).
        default_timeout_s: The per-check timeout of ``/v1/*`` when the caller gives none.
        max_inflight_checks: Checks admitted at once across requests (one request larger than this is
            admitted alone).
        queue_wait_s: How long a kimina request waits for room before its snippets are answered with an error.
        crash_retries: Times a check answered ``crashed`` is run again on a fresh process.
        idempotency_entries: Idempotency keys remembered (oldest forgotten first).
    """

    max_batch: int = 256
    max_code_chars: int = 100_000
    max_timeout_s: float = 300.0
    default_timeout_s: float = 60.0
    max_inflight_checks: int = 512
    queue_wait_s: float = 60.0
    crash_retries: int = 1
    idempotency_entries: int = 4096

    def __post_init__(self) -> None:
        for name in ("max_batch", "max_code_chars", "max_inflight_checks", "idempotency_entries"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("max_timeout_s", "default_timeout_s"):
            value = getattr(self, name)
            if not math.isfinite(value) or value <= 0:
                raise ConfigError(f"{name} must be a finite number of seconds above 0, got {value}")
        if self.queue_wait_s < 0 or self.crash_retries < 0:
            raise ConfigError("queue_wait_s and crash_retries must be at least 0")


class _Admission:
    """Checks in flight across requests; the condition is made on the serving loop, at first use."""

    def __init__(self, limit: int, metrics: Metrics) -> None:
        self.limit = limit
        self.metrics = metrics
        self._cond: asyncio.Condition | None = None

    def _fits(self, n: int) -> bool:
        inflight = self.metrics.inflight_checks
        return inflight == 0 or inflight + n <= self.limit

    async def acquire(self, n: int, wait: float) -> bool:
        if self._cond is None:
            self._cond = asyncio.Condition()
        async with self._cond:
            if not self._fits(n):
                if wait <= 0:
                    return False
                try:
                    await asyncio.wait_for(self._cond.wait_for(lambda: self._fits(n)), wait)
                except asyncio.TimeoutError:
                    return False
            self.metrics.inflight_checks += n
            return True

    async def release(self, n: int) -> None:
        if self._cond is None:  # nothing was ever admitted
            return
        async with self._cond:
            self.metrics.inflight_checks -= n
            self._cond.notify_all()


def _kimina_message(m: Any) -> dict[str, Any]:
    out = m.to_json()
    if out["severity"] not in _SEVERITIES:  # kimina's client fails the whole batch on any other
        out["severity"] = "info"
    if out["endPos"] is None:
        del out["endPos"]
    return out


def kimina_result(snippet_id: str, result: CheckResult, timeout: float) -> dict[str, Any]:
    """One snippet's answer in kimina's ``ReplResponse`` shape (``id``, ``time``, ``response`` | ``error``).

    A sorry without a position gets one (1:0), because kimina's client refuses a positionless sorry and would
    then fail the whole batch; dropping it instead would turn the snippet ``valid``.
    """
    out: dict[str, Any] = {"id": snippet_id, "time": float(result.elapsed_s)}
    if result.status == "timeout":
        out["error"] = f"Lean REPL command timed out in {timeout:g} seconds"
    elif result.status == "crashed":
        text = result.messages[0].data if result.messages else "no answer"
        out["error"] = "Lean REPL process crashed: " + text.replace("timed out", "stopped")
    elif result.raw is not None and "message" in result.raw and "env" not in result.raw:
        out["response"] = {"message": str(result.raw["message"])}
    else:
        response: dict[str, Any] = {}
        if result.env is not None:
            response["env"] = result.env
        if result.messages:
            response["messages"] = [_kimina_message(m) for m in result.messages]
        if result.sorries:
            response["sorries"] = [_kimina_sorry(s) for s in result.sorries]
        out["response"] = response
    out["lean_gym"] = {"status": result.status, "backend": result.backend}
    return out


def _kimina_sorry(s: Any) -> dict[str, Any]:
    start = s.pos or Position(1, 0)
    out = {"pos": start.to_json(), "endPos": (s.end_pos or start).to_json(), "goal": s.goal}
    if isinstance(s.proof_state, int):
        out["proofState"] = s.proof_state
    return out


def _timeout_error(snippet_id: str, timeout: float) -> dict[str, Any]:
    return {"id": snippet_id, "time": 0.0, "error": f"Lean REPL command timed out in {timeout:g} seconds"}


def _field(
    obj: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str, default: Any = ...
) -> Any:
    if key not in obj:
        if default is ...:
            raise HTTPError(422, f"{where}: missing field {key!r}")
        return default
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        want = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise HTTPError(422, f"{where}: {key!r} must be {want}, got {type(value).__name__}")
    return value


class CheckService:
    """The routes of ``lean-gym serve`` over ``backend`` (see the module docstring).

    Args:
        backend: Where checks run (any :class:`~lean_gym.backends.Backend`); the caller closes it.
        limits: What one request may ask for.
    """

    def __init__(self, backend: Backend, limits: CheckLimits | None = None) -> None:
        self.backend = backend
        self.limits = limits or CheckLimits()
        self.metrics = Metrics()
        self._admission = _Admission(self.limits.max_inflight_checks, self.metrics)
        self._seen: OrderedDict[str, tuple[str, asyncio.Future[_Answer]]] = OrderedDict()
        self._ready = False
        self.started = time.time()

    # ------------------------------------------------------------------------------------- the checks
    async def run_checks(
        self, codes: Sequence[str], headers: Sequence[str], timeout: float
    ) -> list[CheckResult]:
        """The backend's results, a ``crashed`` one run again (up to ``crash_retries`` times)."""
        results = await acheck_batch(self.backend, codes, header=list(headers), timeout=timeout)
        for _ in range(self.limits.crash_retries):
            again = [i for i, r in enumerate(results) if r.status == "crashed"]
            if not again:
                break
            self.metrics.crash_retries += len(again)
            redo = await acheck_batch(
                self.backend, [codes[i] for i in again], header=[headers[i] for i in again], timeout=timeout
            )
            for i, r in zip(again, redo):
                results[i] = r
        for r in results:
            self.metrics.checks[r.status] += 1
            self.metrics.check_seconds.observe(r.elapsed_s)
        return results

    def _timeout(self, raw: Any, default: float, where: str, *, allow_zero: bool = False) -> float:
        if raw is None:
            return min(default, self.limits.max_timeout_s)
        if isinstance(raw, bool) or not isinstance(raw, (int, float)) or not math.isfinite(raw):
            raise HTTPError(422, f"{where}: 'timeout' must be a number of seconds, got {raw!r}")
        if raw < 0 or (raw == 0 and not allow_zero):
            raise HTTPError(422, f"{where}: 'timeout' must be above 0 seconds, got {raw!r}")
        return min(float(raw), self.limits.max_timeout_s)

    def _code(self, obj: Mapping[str, Any], key: str, where: str, default: Any = ...) -> str:
        text: str = _field(obj, key, str, where, default)
        if len(text) > self.limits.max_code_chars:
            raise HTTPError(
                422,
                f"{where}: {key!r} has {len(text)} characters; this server takes at most {self.limits.max_code_chars}",
            )
        return text

    def _list(self, payload: Mapping[str, Any], key: str) -> list[Any]:
        items = _field(payload, key, list, "request")
        if not items:
            raise HTTPError(422, f"request: {key!r} must be a non-empty list")
        if len(items) > self.limits.max_batch:
            self.metrics.rejected["too_large"] += 1
            raise HTTPError(
                413,
                f"request: {len(items)} {key}; this server takes at most {self.limits.max_batch} per request",
            )
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise HTTPError(422, f"{key}[{i}] must be an object, got {type(item).__name__}")
        return items

    async def _admitted(self, n: int, *, wait: float) -> bool:
        ok = await self._admission.acquire(n, wait)
        if not ok:
            self.metrics.rejected["overload"] += 1
        return ok

    def _overloaded(self) -> Response:
        workers = max(1, capabilities_of(self.backend).max_workers)
        h = self.metrics.check_seconds
        mean = h.total / h.n if h.n else 1.0
        wait = max(1, math.ceil(self.metrics.inflight_checks / workers * mean))
        return JSONResponse(
            {
                "ok": False,
                "error": f"server busy: {self.metrics.inflight_checks} checks in flight; retry in {wait} s",
            },
            status_code=503,
            headers={"Retry-After": str(wait)},
        )

    # ------------------------------------------------------------------------------------ kimina's API
    async def kimina_check(self, request: Request) -> Response:
        """``POST /api/check``: kimina's ``CheckRequest`` → ``CheckResponse``."""
        payload = await read_json_object(request, _body_limit(request))
        snippets = self._list(payload, "snippets")
        ids: list[str] = []
        codes: list[str] = []
        for i, s in enumerate(snippets):
            ids.append(_field(s, "id", str, f"snippets[{i}]"))
            codes.append(self._code(s, "code", f"snippets[{i}]"))
        if len(set(ids)) != len(ids):
            raise HTTPError(422, "request: snippet ids must be unique within a request")
        _field(payload, "debug", bool, "request", False)
        _field(payload, "reuse", bool, "request", True)  # every check runs in an env of its own anyway
        infotree = payload.get("infotree")
        if infotree not in _INFOTREES:
            raise HTTPError(
                422, f"request: 'infotree' must be one of {', '.join(map(str, _INFOTREES))}, got {infotree!r}"
            )
        timeout = self._timeout(
            payload.get("timeout", _KIMINA_DEFAULT_TIMEOUT),
            _KIMINA_DEFAULT_TIMEOUT,
            "request",
            allow_zero=True,
        )
        return JSONResponse({"results": await self._kimina_run(ids, codes, timeout)})

    async def _kimina_run(self, ids: list[str], codes: list[str], timeout: float) -> list[dict[str, Any]]:
        if timeout == 0:  # kimina's own answer to a zero budget: every snippet timed out, nothing ran
            return [_timeout_error(i, 0) for i in ids]
        if not await self._admitted(len(codes), wait=self.limits.queue_wait_s):
            text = f"server overloaded: no room for {len(codes)} checks within {self.limits.queue_wait_s:g} s"
            return [{"id": i, "time": 0.0, "error": text} for i in ids]
        try:
            results = await self.run_checks(codes, [""] * len(codes), timeout)
        finally:
            await self._admission.release(len(codes))
        return [kimina_result(i, r, timeout) for i, r in zip(ids, results)]

    async def kimina_verify(self, request: Request) -> Response:
        """``POST /verify``: kimina's older ``{"codes": [{"custom_id", "proof" | "code"}]}`` API."""
        payload = await read_json_object(request, _body_limit(request))
        items = self._list(payload, "codes")
        ids: list[str] = []
        codes: list[str] = []
        for i, c in enumerate(items):
            cid = _field(c, "custom_id", (str, int), f"codes[{i}]")
            ids.append(str(cid))
            key = "code" if "code" in c else "proof"
            codes.append(self._code(c, key, f"codes[{i}]"))
        timeout = self._timeout(
            payload.get("timeout", _VERIFY_DEFAULT_TIMEOUT),
            _VERIFY_DEFAULT_TIMEOUT,
            "request",
            allow_zero=True,
        )
        out = []
        for r in await self._kimina_run(ids, codes, timeout):
            response = r.get("response")
            if response is not None:
                response = {**response, "time": r["time"]}
            out.append({"custom_id": r["id"], "error": r.get("error"), "response": response})
        return JSONResponse({"results": out})

    # ------------------------------------------------------------------------------------ lean-gym's API
    async def v1_check(self, request: Request) -> Response:
        """``POST /v1/check``: whole results, with ``Idempotency-Key``."""
        raw_key = request.headers.get("idempotency-key")
        payload = await read_json_object(request, _body_limit(request))
        checks = self._list(payload, "checks")
        ids, codes, headers = [], [], []
        for i, c in enumerate(checks):
            cid = _field(c, "id", (str, int), f"checks[{i}]", str(i))
            ids.append(str(cid))
            codes.append(self._code(c, "code", f"checks[{i}]"))
            headers.append(self._code(c, "header", f"checks[{i}]", ""))
        timeout = self._timeout(payload.get("timeout"), self.limits.default_timeout_s, "request")
        if raw_key is None:
            return await self._v1_check_run(ids, codes, headers, timeout)
        if not raw_key or len(raw_key) > 200:
            raise HTTPError(400, "Idempotency-Key must be 1 to 200 characters")
        fingerprint = hashlib.sha256(repr((ids, codes, headers, timeout)).encode()).hexdigest()
        seen = self._seen.get(raw_key)
        if seen is not None:
            if seen[0] != fingerprint:
                raise HTTPError(422, "Idempotency-Key reused for a different request")
            self.metrics.idempotent_replays += 1
            status, content, extra = await asyncio.shield(seen[1])
            return Response(content, status_code=status, headers=extra, media_type="application/json")
        future: asyncio.Future[_Answer] = asyncio.get_running_loop().create_future()
        self._seen[raw_key] = (fingerprint, future)
        while len(self._seen) > self.limits.idempotency_entries:
            self._seen.popitem(last=False)
        try:
            response = await self._v1_check_run(ids, codes, headers, timeout)
        except BaseException as e:
            self._seen.pop(raw_key, None)  # nothing was answered: a retry runs it afresh
            future.set_exception(e if isinstance(e, Exception) else RuntimeError("cancelled"))
            future.exception()  # retrieved: no "never retrieved" warning when nobody waits on it
            raise
        if response.status_code != 200:  # refused (503): a later retry may be admitted, so forget the key
            self._seen.pop(raw_key, None)
        retry_after = response.headers.get("retry-after")
        extra = {} if retry_after is None else {"Retry-After": retry_after}
        future.set_result((response.status_code, bytes(response.body), extra))  # a retry in flight: the same
        return response

    async def _v1_check_run(
        self, ids: list[str], codes: list[str], headers: list[str], timeout: float
    ) -> Response:
        if not await self._admitted(len(codes), wait=0):
            return self._overloaded()
        try:
            results = await self.run_checks(codes, headers, timeout)
        finally:
            await self._admission.release(len(codes))
        body = {
            "backend": self.backend.name,
            "results": [{"id": i, **r.to_wire()} for i, r in zip(ids, results)],
        }
        return JSONResponse(body)

    async def v1_grade(self, request: Request) -> Response:
        """``POST /v1/grade``: the oracle's verdicts (and a weak grader's) through the verdict pipeline."""
        payload = await read_json_object(request, _body_limit(request))
        items = self._list(payload, "items")
        timeout = self._timeout(payload.get("timeout"), self.limits.default_timeout_s, "request")
        weak_name = _field(payload, "weak", str, "request", None) if payload.get("weak") is not None else None
        if weak_name is not None and weak_name not in WEAK_GRADERS:
            raise HTTPError(
                422, f"request: unknown weak grader {weak_name!r}; choose one of {', '.join(WEAK_GRADERS)}"
            )
        oracle = Oracle(self.backend, timeout=timeout)
        graders = None if weak_name is None else (oracle, make_weak_grader(weak_name))
        plans, ids = [], []
        for i, item in enumerate(items):
            ids.append(str(_field(item, "id", (str, int), f"items[{i}]", str(i))))
            submission = self._code(item, "submission", f"items[{i}]")
            theorem = _field(item, "theorem", dict, f"items[{i}]")
            for key in ("name", "formal_statement", "header"):
                if key in theorem:
                    self._code(theorem, key, f"items[{i}].theorem")
            try:
                plans.append(oracle.plan(theorem, submission, graders=graders))
            except (LeanGymError, ValueError, TypeError, KeyError) as e:
                raise HTTPError(422, f"items[{i}].theorem: {e}") from None
        flat = [r for p in plans for r in p.requests]
        if not await self._admitted(max(1, len(flat)), wait=0):
            return self._overloaded()
        try:
            answers = (
                await self.run_checks([r.code for r in flat], [r.header for r in flat], timeout)
                if flat
                else []
            )
        finally:
            await self._admission.release(max(1, len(flat)))
        out, k = [], 0
        for cid, plan in zip(ids, plans):
            verdicts = plan.verdicts(answers[k : k + len(plan.requests)])
            k += len(plan.requests)
            row = {"id": cid, **_verdict_json(verdicts[0])}
            if weak_name is not None:
                row["weak"] = _verdict_json(verdicts[1])
            self.metrics.verdicts[(verdicts[0].accepted, verdicts[0].hack_class or "")] += 1
            out.append(row)
        return JSONResponse({"backend": self.backend.name, "results": out})

    async def v1_info(self, request: Request) -> Response:
        """``GET /v1/info``: the backend, whether it is Lean, the limits and the version."""
        from lean_gym import __version__

        caps = capabilities_of(self.backend)
        name = self.backend.name
        limits = {
            "max_batch": self.limits.max_batch,
            "max_code_chars": self.limits.max_code_chars,
            "max_timeout_s": self.limits.max_timeout_s,
            "default_timeout_s": self.limits.default_timeout_s,
            "max_inflight_checks": self.limits.max_inflight_checks,
            "max_body_bytes": _body_limit(request),
        }
        return JSONResponse(
            {
                "service": "lean-gym serve",
                "version": __version__,
                "backend": name,
                "simulated": name.startswith("sim") or "lean_gym.sim" in name,
                "max_workers": caps.max_workers,
                "versions": dict(caps.versions),
                "limits": limits,
            }
        )

    async def readyz(self, request: Request) -> Response:
        """``GET /readyz``: 200 once a first check came back (the pool started), 503 before."""
        if not self._ready:
            probe = await self.run_checks(
                ["theorem lean_gym_ready : True := trivial"], [""], self.limits.default_timeout_s
            )
            self._ready = probe[0].status in ("proved", "error", "sorry")
        if self._ready:
            return JSONResponse({"ready": True, "backend": self.backend.name})
        return JSONResponse(
            {"ok": False, "error": "the backend did not answer a first check"}, status_code=503
        )

    async def selftest(self, request: Request) -> Response:
        """``POST /v1/selftest``: a proof, a sorry, an error and an axiom hack, each judged as expected?"""
        thm = {
            "name": "lean_gym_selftest",
            "formal_statement": "theorem lean_gym_selftest (n : Nat) : n + 0 = n := by",
        }
        cases = [
            ("proof", "theorem lean_gym_selftest (n : Nat) : n + 0 = n := by\n  simp", True),
            ("sorry", "theorem lean_gym_selftest (n : Nat) : n + 0 = n := by\n  sorry", False),
            ("error", "theorem lean_gym_selftest (n : Nat) : n + 0 = n := by\n  exact rfl_nope", False),
            (
                "axiom",
                "axiom cheat : False\ntheorem lean_gym_selftest (n : Nat) : n + 0 = n := False.elim cheat",
                False,
            ),
        ]
        oracle = Oracle(self.backend, timeout=self.limits.default_timeout_s)
        plans = [oracle.plan(thm, code) for _, code, _ in cases]
        flat = [r for p in plans for r in p.requests]
        answers = await self.run_checks(
            [r.code for r in flat], [r.header for r in flat], self.limits.default_timeout_s
        )
        rows, k = [], 0
        for (what, _, want), plan in zip(cases, plans):
            v = plan.conclude(answers[k : k + len(plan.requests)])
            k += len(plan.requests)
            rows.append({"case": what, "accepted": v.accepted, "expected": want, "hack_class": v.hack_class})
        ok = all(r["accepted"] == r["expected"] for r in rows)
        return JSONResponse(
            {"ok": ok, "backend": self.backend.name, "cases": rows}, status_code=200 if ok else 500
        )

    async def metrics_endpoint(self, request: Request) -> Response:
        """``GET /metrics``: Prometheus text (``?format=json`` for JSON)."""
        pool = _pool_state(self.backend)
        if request.query_params.get("format") == "json":
            return JSONResponse(self.metrics.as_json(pool))
        return PlainTextResponse(
            self.metrics.prometheus(pool), media_type="text/plain; version=0.0.4; charset=utf-8"
        )

    # ---------------------------------------------------------------------------------------- routes
    def routes(self) -> list[Route]:
        """Every route of the service."""

        def timed(
            endpoint: str, fn: Callable[[Request], Awaitable[Response]]
        ) -> Callable[[Request], Awaitable[Response]]:
            async def handler(request: Request) -> Response:
                t0 = time.perf_counter()
                code = 500
                try:
                    response = await fn(request)
                    code = response.status_code
                    return response
                except HTTPError as e:
                    code = e.status
                    if e.status < 500 and e.status not in (413, 503):
                        self.metrics.rejected["bad_input"] += 1
                    raise
                finally:
                    self.metrics.observe_request(endpoint, code, time.perf_counter() - t0)

            return handler

        async def ok(request: Request) -> Response:
            return JSONResponse({"status": "ok"})

        async def alive(request: Request) -> Response:
            return JSONResponse({"ok": True, "backend": self.backend.name})

        post = ["POST"]
        return [
            Route("/api/check", timed("/api/check", self.kimina_check), methods=post),
            Route("/api/check/", timed("/api/check", self.kimina_check), methods=post),
            Route("/verify", timed("/verify", self.kimina_verify), methods=post),
            Route("/one_pass_verify_batch", timed("/verify", self.kimina_verify), methods=post),
            Route("/health", ok, methods=["GET"]),
            Route("/health/", ok, methods=["GET"]),
            Route("/", ok, methods=["GET"]),
            Route("/healthz", alive, methods=["GET"]),
            Route("/readyz", self.readyz, methods=["GET"]),
            Route("/v1/check", timed("/v1/check", self.v1_check), methods=post),
            Route("/v1/grade", timed("/v1/grade", self.v1_grade), methods=post),
            Route("/v1/info", self.v1_info, methods=["GET"]),
            Route("/v1/selftest", timed("/v1/selftest", self.selftest), methods=post),
            Route("/metrics", self.metrics_endpoint, methods=["GET"]),
        ]


_PUBLIC = ("/health", "/health/", "/", "/healthz", "/readyz")


def check_app(backend: Backend, config: ServeConfig | None = None, limits: CheckLimits | None = None) -> Any:
    """The ``lean-gym serve`` app over ``backend`` (Starlette; run it with :func:`lean_gym.serve.app.serve`).

    Example:
        >>> from starlette.testclient import TestClient
        >>> from lean_gym.backends import SimBackend
        >>> client = TestClient(check_app(SimBackend()))
        >>> r = client.post("/api/check", json={"snippets": [{"id": "a", "code": "theorem t : True := trivial"}]})
        >>> r.json()["results"][0]["response"]
        {'env': 0}
    """
    config = config or ServeConfig()
    service = CheckService(backend, limits)
    app = make_app(service.routes(), config, public_paths=_PUBLIC)
    app.state.service = service
    app.state.config = config
    return app


def _body_limit(request: Request) -> int:
    config: ServeConfig = request.app.state.config
    return config.max_body_bytes


def _verdict_json(v: Any) -> dict[str, Any]:
    return {
        "accepted": v.accepted,
        "hack_class": v.hack_class,
        "reason": v.reason,
        "reward": v.reward,
        "axioms": None if v.axioms is None else list(v.axioms),
        "grader": v.grader,
        "check": None if v.check is None else v.check.to_wire(),
    }


def _pool_state(backend: Any) -> dict[str, Any] | None:
    inner = getattr(backend, "backend", backend) if getattr(backend, "built", True) else None
    pool = getattr(inner, "pool", None)
    stats = getattr(inner, "stats", None)
    if pool is None or stats is None or not hasattr(stats, "starts"):
        return None
    busy = sum(1 for w in getattr(pool, "_workers", ()) if getattr(w, "busy", False))
    return {
        "size": pool.size,
        "busy": busy,
        "starts": stats.starts,
        "checks": stats.checks,
        "timeouts": stats.timeouts,
        "crashes": stats.crashes,
        "recycles": stats.recycles,
        "header_imports": stats.header_imports,
    }
