"""``VerdictCache``: Lean's verdicts on checks already made, and the one place checks are looked up in it.

Every caller that checks source through a backend with a cache (the envs, the vector envs, the oracle's
pipeline) goes through :meth:`VerdictCache.run`: cached answers come from the cache, the rest go to the
backend in one call (identical requests once), and Lean's own verdicts are stored. The key is always
``(header, code, timeout)``: the same check under a different deadline may end differently.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from lean_gym.backends.base import Backend, CheckResult

__all__ = ["CACHEABLE", "CacheKey", "VerdictCache"]

#: Lean's own verdicts; timeouts and crashes say nothing about the source and are checked again.
CACHEABLE: tuple[str, ...] = ("proved", "sorry", "error")

CacheKey = tuple[str, str, float | None]
"""``(header, code, timeout)``: the one key order of the cache."""


def _key(request: tuple[str, str], timeout: float | None) -> CacheKey:
    code, header = request
    return (header, code, timeout)


class VerdictCache:
    """An LRU of Lean's verdicts keyed by (header, code, timeout); only proved/sorry/error are kept.

    Args:
        maxsize: Verdicts kept (0 turns the cache off: :meth:`run` still sends identical requests once).

    Example:
        >>> from lean_gym.backends import CheckRequest, SimBackend
        >>> cache, backend = VerdictCache(16), SimBackend()
        >>> req = CheckRequest("theorem t : 1 + 1 = 2 := by norm_num", "import Mathlib")
        >>> [r.status for r in cache.run(backend, [req, req])], backend.checks
        (['proved', 'proved'], 1)
        >>> cache.run(backend, [req])[0].status, backend.checks, cache.hits
        ('proved', 1, 1)
    """

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._d: OrderedDict[CacheKey, CheckResult] = OrderedDict()

    def lookup(self, request: tuple[str, str], timeout: float | None) -> CheckResult | None:
        """The cached verdict of ``request`` (a ``(code, header)`` pair) under ``timeout``, if any."""
        if self.maxsize <= 0:
            return None
        key = _key(request, timeout)
        r = self._d.get(key)
        if r is None:
            self.misses += 1
            return None
        self._d.move_to_end(key)
        self.hits += 1
        return r

    def store(self, request: tuple[str, str], timeout: float | None, result: CheckResult) -> None:
        """Keep ``result`` for ``request`` under ``timeout`` (Lean's own verdicts only)."""
        if self.maxsize <= 0 or result.status not in CACHEABLE:
            return
        key = _key(request, timeout)
        self._d[key] = result
        self._d.move_to_end(key)
        while len(self._d) > self.maxsize:
            self._d.popitem(last=False)

    def run(
        self, backend: Backend, requests: Sequence[tuple[str, str]], *, timeout: float | None = None
    ) -> list[CheckResult]:
        """Lean's results for ``requests``, in order: from the cache, else from ``backend``.

        The requests not in the cache go to the backend in one call (``check`` for one, ``check_batch``
        for more), each distinct request once, and their verdicts are stored.

        Args:
            backend: Where the checks run.
            requests: ``(code, header)`` pairs (:class:`~lean_gym.backends.CheckRequest` or plain tuples).
            timeout: The deadline of each check, passed to the backend (and part of the key).
        """
        if len(requests) == 1:  # an env's step: the common case, without the bookkeeping below
            req = requests[0]
            hit = self.lookup(req, timeout)
            if hit is None:
                hit = backend.check(req[0], header=req[1], timeout=timeout)
                self.store(req, timeout, hit)
            return [hit]
        found: dict[tuple[str, str], CheckResult] = {}
        misses: list[tuple[str, str]] = []
        for req in requests:  # a CheckRequest equals (and hashes as) its plain tuple
            if req in found or req in misses:
                continue
            hit = self.lookup(req, timeout)
            if hit is None:
                misses.append(req)
            else:
                found[req] = hit
        if len(misses) == 1:
            code, header = misses[0]
            answers = [backend.check(code, header=header, timeout=timeout)]
        elif misses:
            answers = list(
                backend.check_batch([c for c, _ in misses], header=[h for _, h in misses], timeout=timeout)
            )
        else:
            answers = []
        for req, result in zip(misses, answers):
            self.store(req, timeout, result)
            found[req] = result
        return [found[r] for r in requests]

    # The names before lookup/store (key first, in the one key order).
    def get(self, key: CacheKey) -> CheckResult | None:
        """Deprecated: :meth:`lookup` with a ``(header, code, timeout)`` key."""
        header, code, timeout = key
        return self.lookup((code, header), timeout)

    def put(self, key: CacheKey, result: CheckResult) -> None:
        """Deprecated: :meth:`store` with a ``(header, code, timeout)`` key."""
        header, code, timeout = key
        self.store((code, header), timeout, result)

    def __len__(self) -> int:
        return len(self._d)
