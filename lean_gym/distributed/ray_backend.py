"""``RayBackend``: checks spread over Ray actors, each holding a backend (a REPL pool) on its node.

How one ``check_batch`` runs:

1. the checks are grouped by header and planned onto the live actors (:func:`plan_batch`): an actor that
   already holds a header's environment gets that header's checks first, and no actor gets more than its
   even share while another has room, so a batch spreads over the cluster;
2. each actor receives its checks in chunks (at most ``max_chunk`` each) and answers a chunk with one
   ``check_batch`` on its own backend, where its pool runs them concurrently;
3. a chunk whose actor died (the node went away, the process was killed, the backend crashed the worker)
   is planned again onto the other live actors, and the dead actor is replaced by a fresh one; a chunk that
   has already failed ``max_attempts`` times is answered ``crashed`` (data, as a crashed REPL process is);
4. every answer is written to its check's slot once: a slot already answered is never overwritten and is
   counted in :attr:`RayStats.duplicates` (which stays 0 by construction; the tests check it).

Verdicts keep the ``backend`` name of what produced them on the actor (``"sim-repl"``, ``"repl:lake env
repl"``); the RayBackend itself is named ``"ray:<that name>"``.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lean_gym.backends.base import Backend, Capabilities, CheckResult
from lean_gym.errors import ConfigError, LeanGymError, MissingDependencyError
from lean_gym.lean.header import split_header
from lean_gym.lean.protocol import Message, Position

__all__ = ["RayBackend", "RayStats", "plan_batch"]

BackendSpec = str | Callable[[], Backend]


def plan_batch(
    headers: Sequence[str], holders: Mapping[int, set[str]], alive: Sequence[int]
) -> dict[int, list[int]]:
    """Assign checks (by their headers) to actors: header affinity first, within an even share each.

    Args:
        headers: The header of each check, in batch order.
        holders: For each actor slot, the headers it already holds (updated in place with what it will
            hold after this batch).
        alive: The slots that may take work.

    Returns:
        For each slot that gets work, the indices of its checks (in batch order).

    Raises:
        LeanGymError: when no actor is alive.
    """
    if not alive:
        raise LeanGymError("no Ray actor is alive to take checks")
    share = math.ceil(len(headers) / len(alive)) if headers else 0
    load = dict.fromkeys(alive, 0)
    groups: dict[str, list[int]] = {}
    for i, h in enumerate(headers):
        groups.setdefault(h, []).append(i)
    plan: dict[int, list[int]] = {}
    # Biggest header groups first, so that they settle on their holders before the small ones fill them.
    for h, idxs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        for i in idxs:
            slot = min(
                alive,
                key=lambda s: (
                    load[s] >= share,
                    h not in holders.get(s, ()),
                    load[s],
                    len(holders.get(s, ())),
                ),
            )
            load[slot] += 1
            plan.setdefault(slot, []).append(i)
            holders.setdefault(slot, set()).add(h)  # type: ignore[attr-defined]
    for idxs in plan.values():
        idxs.sort()
    return plan


@dataclass
class RayStats:
    """Counters of a :class:`RayBackend` (read them to check spreading, affinity and fault handling).

    Attributes:
        checks: Checks asked for.
        answered: Checks answered (each exactly once).
        duplicates: Answers that arrived for a check already answered (discarded; 0 by construction).
        retried: Checks planned again after their actor died.
        given_up: Checks answered ``crashed`` after ``max_attempts`` failed attempts.
        actor_deaths: Actors found dead.
        actors_started: Actors started, replacements included.
        checks_by_actor: Checks answered per actor slot.
    """

    checks: int = 0
    answered: int = 0
    duplicates: int = 0
    retried: int = 0
    given_up: int = 0
    actor_deaths: int = 0
    actors_started: int = 0
    checks_by_actor: dict[int, int] = field(default_factory=dict)


class _CheckActor:
    """The Ray actor: one backend on one node, answering chunks of checks."""

    def __init__(self, backend: BackendSpec, kwargs: dict[str, Any]) -> None:
        if callable(backend):
            self.backend: Backend = backend()
        else:
            from lean_gym.backends.registry import make_backend

            self.backend = make_backend(backend, **kwargs)

    def info(self) -> dict[str, Any]:
        import ray

        return {
            "name": self.backend.name,
            "pid": os.getpid(),
            "node": ray.get_runtime_context().get_node_id(),
        }

    def check_chunk(self, codes: list[str], headers: list[str], timeout: float | None) -> list[CheckResult]:
        return self.backend.check_batch(codes, header=headers, timeout=timeout)

    def stats(self) -> dict[str, Any]:
        s = getattr(self.backend, "stats", None)
        return dict(s.__dict__) if s is not None else {}

    def close(self) -> None:
        self.backend.close()


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise MissingDependencyError(
            'RayBackend needs Ray: pip install -e ".[ray]" (or pip install ray)'
        ) from e
    return ray


class RayBackend:
    """The :class:`~lean_gym.backends.Backend` interface over Ray actors, each holding a backend on its node.

    Use it wherever a backend goes: ``gym.make("LeanAesop-v0", backend=RayBackend(...))``,
    ``backend="ray:sim-repl"`` (a string spec, built lazily in the process that uses it),
    ``lean-gym bench --modes ray``, ``lean-gym eval --backend ray:repl``. Pickling a ``RayBackend`` (as
    RLlib does with ``env_config``) shares its actors; only the instance that started them stops them.

    Example:
        >>> import ray  # doctest: +SKIP
        >>> ray.init(num_cpus=2)  # doctest: +SKIP
        >>> backend = RayBackend("sim-repl", num_actors=2)  # doctest: +SKIP
        >>> [r.status for r in backend.check_batch(["theorem t : 1 + 1 = 2 := by norm_num"] * 4)]  # doctest: +SKIP
        ['proved', 'proved', 'proved', 'proved']

    Args:
        backend: What each actor holds: a :func:`~lean_gym.backends.make_backend` name (``"sim-repl"``, the
            default; ``"repl"`` for real Lean, which must be set up on every node; ``"sim"``) or a picklable
            zero-argument callable returning a Backend.
        num_actors: Actors to start.
        pool_size: REPL processes per actor (passed to the backend as ``pool_size``; ignored for ``"sim"``).
        num_cpus_per_actor: CPUs Ray reserves per actor (default: ``pool_size``).
        max_chunk: Most checks sent to an actor in one task (bounds what one death costs).
        max_attempts: Attempts per check before it is answered ``crashed``.
        max_actor_restarts: Replacement actors started over the backend's life before a dead slot is
            left empty.
        actor_options: More ``.options(...)`` for the actors (``resources``, ``scheduling_strategy``, …).
        address: Ray cluster address for ``ray.init`` when Ray is not initialized yet (``None``: local Ray,
            or ``$RAY_ADDRESS``).
        workspace: Lean workspace path on the nodes (for ``backend="repl"``).
        **backend_kwargs: Passed to ``make_backend`` on each actor (``timeout``, ``memory_limit_mb``, …).

    Raises:
        MissingDependencyError: Ray is not installed.
        ConfigError: ``num_actors`` or ``pool_size`` below 1.
    """

    def __init__(
        self,
        backend: BackendSpec = "sim-repl",
        *,
        num_actors: int = 2,
        pool_size: int = 1,
        num_cpus_per_actor: float | None = None,
        max_chunk: int = 64,
        max_attempts: int = 3,
        max_actor_restarts: int = 16,
        actor_options: Mapping[str, Any] | None = None,
        address: str | None = None,
        workspace: str | os.PathLike[str] | None = None,
        **backend_kwargs: Any,
    ) -> None:
        if num_actors < 1 or pool_size < 1 or max_chunk < 1 or max_attempts < 1:
            raise ConfigError(
                f"num_actors, pool_size, max_chunk and max_attempts must be at least 1, got "
                f"{num_actors}, {pool_size}, {max_chunk}, {max_attempts}"
            )
        if isinstance(backend, str):
            from lean_gym.backends.registry import check_backend_spec

            check_backend_spec(backend)  # before Ray starts: a typo costs no cluster and no dead actor
        ray = _import_ray()
        if not ray.is_initialized():
            ray.init(address=address, ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
        kwargs = dict(backend_kwargs)
        if workspace is not None:
            kwargs["workspace"] = workspace
        if not callable(backend) and backend != "sim":
            kwargs.setdefault("pool_size", pool_size)
        self._spec = backend
        self._kwargs = kwargs
        self.num_actors = int(num_actors)
        self.max_chunk = int(max_chunk)
        self.max_attempts = int(max_attempts)
        self._restarts_left = int(max_actor_restarts)
        options = {"num_cpus": float(pool_size if num_cpus_per_actor is None else num_cpus_per_actor)}
        options.update(actor_options or {})
        self._options = options
        self._remote = ray.remote(_CheckActor)
        self.stats = RayStats()
        self._lock = threading.Lock()  # one check_batch at a time plans and tracks actors
        self._owner = True
        self._actors: list[Any] = [self._start_actor() for _ in range(self.num_actors)]
        self._holders: dict[int, set[str]] = {i: set() for i in range(self.num_actors)}
        infos = ray.get([a.info.remote() for a in self._actors])
        self.actor_info: list[dict[str, Any]] = infos
        self.name = f"ray:{infos[0]['name']}"

    # ------------------------------------------------------------------------------------------ public

    @property
    def capabilities(self) -> Capabilities:
        """Concurrent over the actors; no tactic mode (proof states live on one actor's process)."""
        per_actor = int(self._kwargs.get("pool_size", 1))
        return Capabilities(
            in_process=False, concurrent=True, tactic_mode=False, max_workers=self.num_actors * per_actor
        )

    def check(self, code: str, *, header: str = "", timeout: float | None = None) -> CheckResult:
        """Check ``code`` under ``header`` on one actor (chosen by header affinity, then load)."""
        return self.check_batch([code], header=[header], timeout=timeout)[0]

    # C901: the retry loop; split, it would hide that every check is answered exactly once.
    def check_batch(  # noqa: C901
        self, codes: Sequence[str], *, header: str | Sequence[str] = "", timeout: float | None = None
    ) -> list[CheckResult]:
        """Check many pieces of code across the actors; every check answered exactly once, in input order.

        Raises:
            LeanGymError: every actor is dead and no replacement may be started.
        """
        ray = _import_ray()
        headers = [header] * len(codes) if isinstance(header, str) else list(header)
        if len(headers) != len(codes):
            raise ValueError(f"check_batch got {len(codes)} codes but {len(headers)} headers")
        n = len(codes)
        keys = [split_header(c, h).header for c, h in zip(codes, headers)]
        results: list[CheckResult | None] = [None] * n
        attempts = [0] * n
        with self._lock:
            self.stats.checks += n
            inflight: dict[Any, tuple[int, Any, list[int]]] = {}

            def submit(indices: list[int], exclude: int | None = None) -> None:
                alive = [s for s in range(len(self._actors)) if self._actors[s] is not None and s != exclude]
                if not alive and exclude is not None and self._actors[exclude] is not None:
                    alive = [exclude]  # the replacement of the only slot
                plan = plan_batch([keys[i] for i in indices], self._holders, alive)
                for slot, local in plan.items():
                    idxs = [indices[k] for k in local]
                    for j in range(0, len(idxs), self.max_chunk):
                        part = idxs[j : j + self.max_chunk]
                        for i in part:
                            attempts[i] += 1
                        actor = self._actors[slot]
                        ref = actor.check_chunk.remote(
                            [codes[i] for i in part], [headers[i] for i in part], timeout
                        )
                        inflight[ref] = (slot, actor, part)

            if n:
                submit(list(range(n)))
            while inflight:
                ready, _ = ray.wait(list(inflight), num_returns=1)
                ref = ready[0]
                slot, actor, part = inflight.pop(ref)
                try:
                    answers = ray.get(ref)
                except (ray.exceptions.RayActorError, ray.exceptions.ActorUnavailableError):
                    # Dead, or unreachable for now: either way this chunk's answer is never read, so
                    # planning it again cannot answer a check twice.
                    self._actor_died(slot, actor)
                    again = [i for i in part if attempts[i] < self.max_attempts]
                    for i in part:
                        if attempts[i] >= self.max_attempts:
                            self._answer(results, i, _gave_up(self.name, attempts[i]), slot)
                            self.stats.given_up += 1
                    if again:
                        self.stats.retried += len(again)
                        submit(again, exclude=slot)
                    continue
                except ray.exceptions.RayTaskError as e:  # the backend raised (a misuse, a closed pool)
                    cause = e.as_instanceof_cause()
                    if isinstance(cause, LeanGymError):
                        raise cause from e
                    raise LeanGymError(f"a Ray actor's backend raised: {e}") from e
                for i, r in zip(part, answers):
                    self._answer(results, i, r, slot)
        missing = [i for i, r in enumerate(results) if r is None]
        if missing:  # cannot happen: every chunk ends answered, retried or given up
            raise LeanGymError(f"RayBackend lost {len(missing)} checks; please report this")
        return results  # type: ignore[return-value]

    def actor_stats(self) -> list[dict[str, Any]]:
        """Each live actor's backend counters (``PoolStats`` fields for REPL pools)."""
        ray = _import_ray()
        return [ray.get(a.stats.remote()) if a is not None else {} for a in self._actors]

    @property
    def actors(self) -> list[Any]:
        """The actor handles, by slot (``None`` for a slot whose actor died and could not be replaced)."""
        return list(self._actors)

    def close(self) -> None:
        """Stop the actors (only in the instance that started them; a pickled copy leaves them running)."""
        if not self._owner:
            return
        self._owner = False
        ray = _import_ray()
        for a in self._actors:
            if a is None:
                continue
            with contextlib.suppress(ray.exceptions.RayError):  # a dead or hung actor is killed below anyway
                ray.get(a.close.remote(), timeout=30)
            ray.kill(a)
        self._actors = [None] * len(self._actors)

    def __enter__(self) -> RayBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("_lock", "_remote")}
        state["_owner"] = False  # a copy shares the actors; the instance that started them stops them
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
        self._remote = _import_ray().remote(_CheckActor)

    def __repr__(self) -> str:
        return f"RayBackend({self.name!r}, num_actors={self.num_actors})"

    # ------------------------------------------------------------------------------------------ internals

    def _start_actor(self) -> Any:
        self.stats.actors_started += 1
        return self._remote.options(max_restarts=0, max_task_retries=0, **self._options).remote(
            self._spec, self._kwargs
        )

    def _actor_died(self, slot: int, actor: Any) -> None:
        """Replace a dead actor (once per death: the other chunks it held find it already replaced)."""
        if self._actors[slot] is not actor:
            return
        self.stats.actor_deaths += 1
        self._holders[slot] = set()
        if self._restarts_left > 0:
            self._restarts_left -= 1
            self._actors[slot] = self._start_actor()
        else:
            self._actors[slot] = None

    def _answer(self, results: list[CheckResult | None], i: int, r: CheckResult, slot: int) -> None:
        if results[i] is not None:
            self.stats.duplicates += 1
            return
        results[i] = r
        self.stats.answered += 1
        self.stats.checks_by_actor[slot] = self.stats.checks_by_actor.get(slot, 0) + 1


def _gave_up(name: str, attempts: int) -> CheckResult:
    text = f"{attempts} Ray actors died while checking this; answered crashed ({name})"
    return CheckResult("crashed", (Message("error", Position(1, 0), None, text),), (), 0.0, name)
