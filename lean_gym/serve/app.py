"""The pieces every lean-gym HTTP service shares: config, request limits, JSON errors, the app factory.

A service is a list of Starlette routes handed to :func:`make_app`, which adds what all of them need:

* **Errors are JSON** in SATP's shape, ``{"ok": false, "error": "<one clear sentence>"}``, with a 4xx
  status for bad input (:class:`HTTPError`), 404/405 for an unknown path or method, 413 for a body over
  ``max_body_bytes``, 503 when ``max_pending`` requests are already in flight, 500 (without a traceback)
  for a server fault.
* **Bounded requests**: a body is read at most ``max_body_bytes`` (whatever ``Content-Length`` says), and
  :func:`read_json_object` parses it.
* **An optional API key** (``Authorization: Bearer KEY`` or ``X-API-Key: KEY``, compared in constant time);
  the paths in ``public_paths`` (``/health``) stay open.
* :func:`bind` and :func:`serve` run the app on uvicorn, on ``127.0.0.1`` unless told otherwise.

Needs the ``serve`` extra (``pip install -e '.[serve]'``: Starlette and uvicorn).
"""

from __future__ import annotations

import hmac
import json
import socket
from collections.abc import Awaitable, Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

from lean_gym.errors import ConfigError, LeanGymError, MissingDependencyError

try:
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import BaseRoute
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise MissingDependencyError(
        "lean-gym's HTTP services need Starlette and uvicorn: pip install -e '.[serve]'"
    ) from e

__all__ = [
    "HTTPError",
    "ServeConfig",
    "bind",
    "error_response",
    "make_app",
    "read_json_object",
    "serve",
]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


@dataclass(frozen=True)
class ServeConfig:
    """Where a service listens and what it accepts.

    Attributes:
        host: Address to listen on; the default, ``127.0.0.1``, takes connections from this machine only.
        port: TCP port (0: any free port).
        api_key: When set, every request outside ``public_paths`` must carry it.
        max_body_bytes: Largest request body read; a larger one gets 413.
        max_pending: Requests handled or waiting at once; one more gets 503 at once.
    """

    host: str = "127.0.0.1"
    port: int = 0
    api_key: str | None = None
    max_body_bytes: int = 1 << 20
    max_pending: int = 16

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"port must be in [0, 65535], got {self.port}")
        if self.max_body_bytes < 1:
            raise ConfigError(f"max_body_bytes must be at least 1, got {self.max_body_bytes}")
        if self.max_pending < 1:
            raise ConfigError(f"max_pending must be at least 1, got {self.max_pending}")
        if self.api_key is not None and not self.api_key.strip():
            raise ConfigError("api_key is empty: pass a non-blank key, or none")


class HTTPError(Exception):
    """A request the service refuses: answered as ``{"ok": false, "error": message}`` with ``status``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def error_response(status: int, message: str) -> JSONResponse:
    """SATP's error shape: ``{"ok": false, "error": message}``."""
    return JSONResponse({"ok": False, "error": message}, status_code=status)


async def read_json_object(request: Request, limit: int) -> dict[str, Any]:
    """The request's body as a JSON object, read at most ``limit`` bytes.

    Raises:
        HTTPError: 413 when the body is larger than ``limit``; 400 when it is not UTF-8 JSON or not an object.
    """
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPError(413, f"request body exceeds {limit} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        raise HTTPError(400, "request body is empty: send a JSON object")
    try:
        payload = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise HTTPError(400, f"request body is not valid JSON: {e}") from None
    if not isinstance(payload, dict):
        raise HTTPError(400, f"request body must be a JSON object, got {type(payload).__name__}")
    return payload


class _Guard:
    """ASGI middleware: API key, ``Content-Length`` over the limit, and the bound on pending requests."""

    def __init__(self, app: Any, config: ServeConfig, public_paths: frozenset[str]) -> None:
        self.app = app
        self.config = config
        self.public = public_paths
        self.pending = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", ())}
        refusal = self._refusal(scope.get("path", ""), headers)
        if refusal is not None:
            await error_response(*refusal)(scope, receive, send)
            return
        self.pending += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.pending -= 1

    def _refusal(self, path: str, headers: dict[str, str]) -> tuple[int, str] | None:
        key = self.config.api_key
        if key is not None and path not in self.public:
            given = headers.get("x-api-key") or ""
            auth = headers.get("authorization", "")
            if auth[:7].lower() == "bearer ":
                given = auth[7:].strip()
            if not hmac.compare_digest(given.encode(), key.encode()):
                return 401, "missing or wrong API key (send `Authorization: Bearer KEY` or `X-API-Key: KEY`)"
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                return 400, f"Content-Length is not a number: {length!r}"
            if int(length) > self.config.max_body_bytes:
                return 413, f"request body exceeds {self.config.max_body_bytes} bytes"
        if self.pending >= self.config.max_pending:
            return (
                503,
                f"server busy: {self.pending} requests in flight (the limit is {self.config.max_pending})",
            )
        return None


async def _http_error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, HTTPError):
        return error_response(exc.status, exc.message)
    return await _server_error(request, exc)


async def _starlette_error(request: Request, exc: Exception) -> Response:
    if not isinstance(exc, HTTPException):
        return await _server_error(request, exc)
    words = {404: "not found", 405: f"method {request.method} not allowed on {request.url.path}"}
    return error_response(exc.status_code, words.get(exc.status_code, str(exc.detail)))


async def _server_error(request: Request, exc: Exception) -> Response:
    return error_response(500, f"internal error ({type(exc).__name__}); see the server's log")


def make_app(
    routes: Sequence[BaseRoute], config: ServeConfig, *, public_paths: Iterable[str] = ("/health",)
) -> Starlette:
    """A Starlette app of ``routes`` with JSON errors, request limits and the optional API key.

    Args:
        routes: The service's routes; their endpoints raise :class:`HTTPError` for bad input.
        config: Limits and the API key.
        public_paths: Paths answered without the API key.
    """
    return Starlette(
        routes=list(routes),
        middleware=[Middleware(_Guard, config=config, public_paths=frozenset(public_paths))],
        exception_handlers={
            HTTPError: _http_error,
            HTTPException: _starlette_error,
            Exception: _server_error,
        },
    )


def bind(config: ServeConfig) -> socket.socket:
    """A listening TCP socket on ``config.host:config.port`` (the port the OS gave when ``port`` is 0).

    Binding first turns a busy port into one clear error before anything is loaded or served.

    Raises:
        LeanGymError: The address is in use or cannot be bound.
    """
    family = socket.AF_INET6 if ":" in config.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Connections accepted on a socket handed to uvicorn do not get asyncio's TCP_NODELAY; they inherit it
    # from the listening socket. Without it every keep-alive answer waits ~40 ms for the client's delayed
    # ACK (Nagle), measured: 44 ms per GET /health here, 0.4 ms with it.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((config.host, config.port))
    except OSError as e:
        sock.close()
        raise LeanGymError(
            f"cannot listen on {config.host}:{config.port}: {e.strerror or e} "
            f"(another server on that port? try `--port 0` for any free port)"
        ) from None
    sock.listen(128)
    return sock


def serve(app: Any, sock: socket.socket, *, log_level: str = "info") -> None:
    """Serve ``app`` on the bound socket with uvicorn until interrupted (Ctrl-C, SIGTERM)."""
    try:
        import uvicorn
    except ImportError as e:  # pragma: no cover - exercised only without the extra
        raise MissingDependencyError("serving needs uvicorn: pip install -e '.[serve]'") from e
    server = uvicorn.Server(uvicorn.Config(app, log_level=log_level, lifespan="off"))
    server.run(sockets=[sock])
