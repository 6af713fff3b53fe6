"""``RemoteBackend``: a :class:`~lean_gym.backends.Backend` whose checks run on a ``lean-gym serve`` elsewhere.

``make_backend("http://host:port")`` (or ``backend="http://host:port"`` in any env, ``--backend`` of
``eval`` and ``bench``) builds one, so everything that takes a backend runs against a remote service
unchanged. It speaks lean-gym's own API (``POST /v1/check``, see ``docs/serve.md``), with the standard
library's ``http.client`` only: one keep-alive connection per thread, nothing to install.

**Exactly one answer per check.** HTTP delivers at least once, so every ``check_batch`` request carries an
``Idempotency-Key``; the server runs a key once and answers a retry of it from the same run (in flight
or done). The client retries a dropped connection and a ``503`` (after its ``Retry-After``, capped) with
the same key, until ``retry_deadline_s``; each answer fills its slot once (a second one is counted in
``stats.duplicates`` and dropped); a slot still empty at the end is answered ``crashed``, never left
out. A server killed mid-request loses its memory of the key, so the check runs again on the restarted
server: one answer to the caller, two runs there (a check is a function of its code, header and budget).

**Names.** Each result keeps the name of the backend that ran it on the server (``"sim-repl"``,
``"repl:lake env repl"``): a simulated verdict never passes for Lean's. The backend itself is named
``"<the server's backend> via <url>"`` (``"sim-repl via http://127.0.0.1:8000"``), read from the server
when it is made, so a verdict given without a check says the simulator too. There is no tactic mode (no
``lease``).

Example:
    >>> backend = RemoteBackend("http://127.0.0.1:8000")  # doctest: +SKIP
    >>> backend.check("theorem t : 2 + 2 = 4 := by norm_num").backend  # doctest: +SKIP
    'sim-repl'
"""

from __future__ import annotations

import http.client
import json
import math
import os
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from lean_gym.backends.aio import AsyncMixin
from lean_gym.backends.base import Capabilities, CheckResult
from lean_gym.errors import ConfigError, LeanGymError, ProtocolError
from lean_gym.lean.protocol import Message, Position
from lean_gym.lean.result import check_arguments

__all__ = ["API_KEY_ENV", "RemoteBackend", "RemoteStats"]

API_KEY_ENV = "LEAN_GYM_API_KEY"
"""The environment variable a :class:`RemoteBackend` (and ``lean-gym serve``) reads its API key from."""

_RETRY_STATUSES = frozenset({502, 503, 504})
_MAX_RETRY_AFTER_S = 5.0


@dataclass
class RemoteStats:
    """What a :class:`RemoteBackend` counted (tests hold ``duplicates`` and ``unanswered`` at 0)."""

    requests: int = 0
    retries: int = 0
    duplicates: int = 0
    unanswered: int = 0


class _Transient(Exception):
    """A failure worth a retry with the same idempotency key (a dropped connection, a 503)."""

    def __init__(self, why: str, wait: float = 0.0) -> None:
        super().__init__(why)
        self.wait = wait


class RemoteBackend(AsyncMixin):
    """The checks of a ``lean-gym serve`` at ``url``, as a backend.

    Args:
        url: ``http://host:port`` (or ``https://``) of the server, with an optional path prefix.
        api_key: The server's key (default: ``$LEAN_GYM_API_KEY``), sent as ``Authorization: Bearer``.
        timeout: Default per-check timeout, seconds (the server caps it at its own limit).
        request_timeout: Longest wait for one HTTP answer before the request is retried (the retry joins
            the server's run of the same key, so waiting again costs no second run).
        retry_deadline_s: How long one ``check_batch`` keeps retrying before the checks still unanswered
            are answered ``crashed``.
        max_batch: Checks per request (default: the server's limit, read from ``GET /v1/info``).
        max_workers: Threads of :meth:`acheck` / :meth:`acheck_batch` (concurrent requests).

    Raises:
        ConfigError: ``url`` is not an ``http(s)://host[:port]`` address.
        LeanGymError: the server cannot be reached, or refuses the key (it is asked at once).
    """

    def __init__(
        self,
        url: str,
        *,
        api_key: str | None = None,
        timeout: float | None = None,
        request_timeout: float = 600.0,
        retry_deadline_s: float = 120.0,
        max_batch: int | None = None,
        max_workers: int = 8,
    ) -> None:
        self._recipe: dict[str, Any] = dict(
            url=url, api_key=api_key, timeout=timeout, request_timeout=request_timeout,
            retry_deadline_s=retry_deadline_s, max_batch=max_batch, max_workers=max_workers,
        )  # fmt: skip
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"a remote backend needs an http://host:port URL, got {url!r}")
        try:
            port = parts.port
        except ValueError as e:
            raise ConfigError(f"bad port in {url!r}: {e}") from None
        self.url = url.rstrip("/")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = port
        self._prefix = parts.path.rstrip("/")
        key = api_key if api_key is not None else os.environ.get(API_KEY_ENV)
        self._api_key = key or None
        self.timeout = check_arguments("", "", timeout)
        self.request_timeout = float(request_timeout)
        self.retry_deadline_s = float(retry_deadline_s)
        if max_batch is not None and max_batch < 1:
            raise ConfigError(f"max_batch must be at least 1, got {max_batch}")
        self._max_batch = max_batch
        self._max_workers = max(1, int(max_workers))
        self.stats = RemoteStats()
        self._info: dict[str, Any] | None = None
        self._local = threading.local()
        self._lock = threading.Lock()
        # The first contact, here: a server that is not there (or a wrong key) is one error before any work,
        # and the name says which backend answers there ("sim-repl via http://…": the simulator, not Lean).
        self.name = f"{self.info().get('backend', 'unknown')} via {self.url}"

    @classmethod
    def over_http(cls, address: str, **kwargs: Any) -> RemoteBackend:
        """The registry's ``http:<address>`` entry: ``make_backend("http://host:port")``."""
        return cls("http:" + address, **kwargs)

    @classmethod
    def over_https(cls, address: str, **kwargs: Any) -> RemoteBackend:
        """The registry's ``https:<address>`` entry."""
        return cls("https:" + address, **kwargs)

    @property
    def capabilities(self) -> Capabilities:
        """Concurrent, out of process, no tactic mode; verdicts come from the server's backend."""
        return Capabilities(
            in_process=False, concurrent=True, tactic_mode=False, max_workers=self._max_workers
        )

    def info(self) -> dict[str, Any]:
        """The server's ``GET /v1/info`` (its backend, limits and version), read once.

        Raises:
            LeanGymError: the server cannot be reached, or answers with an error (a wrong key: 401).
        """
        if self._info is None:
            try:
                status, _, body = self._request("GET", "/v1/info", None, {})
            except (OSError, http.client.HTTPException) as e:
                raise LeanGymError(
                    f"cannot reach lean-gym serve at {self.url}: {e} (is `lean-gym serve` running there?)"
                ) from None
            payload = _json_object(body, "/v1/info")
            if status != 200:
                raise LeanGymError(f"{self.url}/v1/info answered {status}: {payload.get('error', payload)}")
            self._info = payload
        return self._info

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        """Check ``code`` under ``header`` on the server."""
        return self.check_batch([code], header=header, timeout=timeout)[0]

    def check_batch(
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        """Check many pieces of code on the server (in requests of at most its batch limit); input order.

        Raises:
            ConfigError: bad arguments (as every backend), found before any request.
            LeanGymError: the server refuses the request (a 4xx: a wrong key, a body over its limit) or
                cannot be reached at all at the first contact.
        """
        headers = [header] * len(codes) if isinstance(header, str) else list(header)
        if len(headers) != len(codes):
            raise ValueError(f"check_batch got {len(codes)} codes but {len(headers)} headers")
        t = self.timeout if timeout is None else timeout
        for c, h in zip(codes, headers):
            t = check_arguments(c, h, t)
        if not codes:
            return []
        size = self._max_batch or int(self.info().get("limits", {}).get("max_batch", 64))
        slots: list[CheckResult | None] = [None] * len(codes)
        for start in range(0, len(codes), size):
            stop = min(start + size, len(codes))
            self._run_chunk(codes, headers, start, stop, t, slots)
        out: list[CheckResult] = []
        for i, r in enumerate(slots):
            if r is None:
                self.stats.unanswered += 1
                r = _no_answer(f"the server at {self.url} sent no answer for check {i}", self.name)
            out.append(r)
        return out

    def _run_chunk(
        self,
        codes: Sequence[str],
        headers: Sequence[str],
        start: int,
        stop: int,
        timeout: float | None,
        slots: list[CheckResult | None],
    ) -> None:
        checks = [{"id": str(i), "code": codes[i], "header": headers[i]} for i in range(start, stop)]
        payload: dict[str, Any] = {"checks": checks}
        if timeout is not None:
            payload["timeout"] = timeout
        body = json.dumps(payload, ensure_ascii=False).encode()
        extra = {"Idempotency-Key": uuid.uuid4().hex, "Content-Type": "application/json"}
        deadline = time.monotonic() + self.retry_deadline_s
        attempt = 0
        while True:
            try:
                answer = self._post_once(body, extra)
                break
            except _Transient as e:
                attempt += 1
                left = deadline - time.monotonic()
                if left <= 0:
                    for i in range(start, stop):
                        if slots[i] is None:
                            slots[i] = _no_answer(
                                f"the server at {self.url} gave no answer within {self.retry_deadline_s:g} s "
                                f"({attempt} tries; last: {e})",
                                self.name,
                            )
                    return
                with self._lock:
                    self.stats.retries += 1
                time.sleep(min(left, max(e.wait, min(2.0, 0.05 * 2 ** min(attempt, 6)))))
        for item in answer:
            self._answer(item, start, stop, slots)

    def _post_once(self, body: bytes, extra: Mapping[str, str]) -> list[Any]:
        self.info()  # the first contact: a server that is not there is one clear error, not N crashes
        with self._lock:
            self.stats.requests += 1
        try:
            status, resp_headers, raw = self._request("POST", "/v1/check", body, extra)
        except (OSError, http.client.HTTPException) as e:
            raise _Transient(f"{type(e).__name__}: {e}") from None
        if status in _RETRY_STATUSES:
            wait = _retry_after(resp_headers.get("retry-after"))
            raise _Transient(f"HTTP {status}", wait)
        payload = _json_object(raw, "/v1/check")
        if status != 200:
            raise LeanGymError(
                f"{self.url}/v1/check refused the request ({status}): {payload.get('error', payload)}"
            )
        results = payload.get("results")
        if not isinstance(results, list):
            raise ProtocolError(f"{self.url}/v1/check answered without a results list")
        return results

    def _answer(self, item: Any, start: int, stop: int, slots: list[CheckResult | None]) -> None:
        try:
            i = int(item["id"])
        except (KeyError, TypeError, ValueError):
            raise ProtocolError(f"{self.url}/v1/check answered a result without a check id") from None
        if not start <= i < stop:
            raise ProtocolError(f"{self.url}/v1/check answered check {i}, which this request did not send")
        if slots[i] is not None:
            with self._lock:
                self.stats.duplicates += 1
            return
        slots[i] = CheckResult.from_wire(item)

    def _connection(self) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            conn = cls(self._host, self._port, timeout=self.request_timeout)
            self._local.conn = conn
        return conn

    def _request(
        self, method: str, path: str, body: bytes | None, extra: Mapping[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        headers = {"Accept": "application/json", **extra}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        conn = self._connection()
        try:
            conn.request(method, self._prefix + path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
        except BaseException:
            conn.close()
            self._local.conn = None
            raise
        if resp.getheader("connection", "").lower() == "close":
            conn.close()
            self._local.conn = None
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data

    def close(self) -> None:
        """Close this thread's connection (other threads' close when they end); a later check reconnects."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
        self._close_async()

    def __getstate__(self) -> dict[str, Any]:
        # Connections and locks do not pickle: a copy is a new client of the same server.
        return dict(self._recipe)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __enter__(self) -> RemoteBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"RemoteBackend({self.url!r})"


def _no_answer(text: str, backend: str) -> CheckResult:
    return CheckResult("crashed", (Message("error", Position(1, 0), None, text),), backend=backend)


def _retry_after(value: str | None) -> float:
    try:
        wait = float(value) if value is not None else 0.0
    except ValueError:
        return 0.0
    return min(_MAX_RETRY_AFTER_S, wait) if math.isfinite(wait) and wait > 0 else 0.0


def _json_object(raw: bytes, where: str) -> dict[str, Any]:
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ProtocolError(f"{where} answered something that is not JSON: {raw[:120]!r}") from None
    if not isinstance(payload, dict):
        raise ProtocolError(f"{where} answered JSON that is not an object")
    return payload
