"""A real `lean-gym serve` (uvicorn on a bound socket) in a thread, for the serve tests."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from lean_gym.serve.app import ServeConfig, bind
from lean_gym.serve.check import CheckLimits, check_app


@contextmanager
def running_server(
    backend: Any, *, config: ServeConfig | None = None, limits: CheckLimits | None = None
) -> Iterator[tuple[str, Any]]:
    """``(base_url, service)`` of a server over ``backend`` until the block ends."""
    config = config or ServeConfig()
    sock = bind(config)
    app = check_app(backend, config, limits)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:  # uvicorn's own "serving" flag: an event the server thread sets
        if time.monotonic() > deadline or not thread.is_alive():
            raise AssertionError("the test server did not start")
        time.sleep(0.01)
    host, port = sock.getsockname()[:2]
    try:
        yield f"http://{host}:{port}", app.state.service
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def eventually(predicate: Any, what: str, seconds: float = 30.0) -> None:
    """Wait until ``predicate()`` holds (a state another thread or process brings about), or fail."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.01)


def main(argv: list[str]) -> None:
    """``python tests/serve_helpers.py PORT CMD...``: serve a pool of ``CMD`` processes on ``PORT``."""
    from lean_gym.backends import ReplBackend
    from lean_gym.serve.app import serve

    config = ServeConfig(port=int(argv[0]))
    sock = bind(config)
    backend = ReplBackend(command=argv[1:], pool_size=1, timeout=60, name="fake")
    print("serving", flush=True)
    serve(check_app(backend, config), sock, log_level="warning")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
