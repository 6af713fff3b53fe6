"""The counters of ``lean-gym serve``, written as Prometheus text (format 0.0.4) or JSON, no dependency.

Series (all prefixed ``leangym_``): ``checks_total{status}``, ``verdicts_total{accepted,hack_class}``,
``requests_total{endpoint,code}``, ``rejected_total{reason}``, ``crash_retries_total``,
``idempotent_replays_total``, the histograms ``check_seconds`` (each check's own time) and
``request_seconds{endpoint}``, the gauge ``inflight_checks``, and, for a pool, ``pool_size``,
``pool_busy`` and ``pool_{starts,checks,timeouts,crashes,recycles,header_imports}_total``.

Labels have few values (statuses, hack classes, endpoints): never a theorem or a check id.
"""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BUCKETS", "Histogram", "Metrics"]

#: Upper bounds (seconds) of the latency histograms: the simulator's sub-millisecond checks to Lean's minutes.
BUCKETS: tuple[float, ...] = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
)  # fmt: skip


@dataclass
class Histogram:
    """A cumulative-bucket histogram of seconds."""

    counts: list[int] = field(default_factory=lambda: [0] * (len(BUCKETS) + 1))
    total: float = 0.0
    n: int = 0

    def observe(self, seconds: float) -> None:
        """Count one observation."""
        self.counts[bisect.bisect_left(BUCKETS, seconds)] += 1
        self.total += seconds
        self.n += 1

    def lines(self, name: str, labels: str) -> list[str]:
        """The ``_bucket`` / ``_sum`` / ``_count`` samples (``labels`` is ``k="v",…`` or empty)."""
        sep = "," if labels else ""
        out, running = [], 0
        for bound, count in zip((*BUCKETS, float("inf")), self.counts):
            running += count
            le = "+Inf" if bound == float("inf") else f"{bound:g}"
            out.append(f'{name}_bucket{{{labels}{sep}le="{le}"}} {running}')
        braces = f"{{{labels}}}" if labels else ""
        out += [f"{name}_sum{braces} {self.total:.6f}", f"{name}_count{braces} {self.n}"]
        return out


def _labels(**kv: str) -> str:
    return ",".join(f'{k}="{_escape(v)}"' for k, v in kv.items())


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


@dataclass
class Metrics:
    """What the service counts; updated on the event loop only (no lock needed)."""

    checks: Counter[str] = field(default_factory=Counter)
    verdicts: Counter[tuple[bool, str]] = field(default_factory=Counter)
    requests: Counter[tuple[str, int]] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    crash_retries: int = 0
    idempotent_replays: int = 0
    check_seconds: Histogram = field(default_factory=Histogram)
    request_seconds: dict[str, Histogram] = field(default_factory=dict)
    inflight_checks: int = 0

    def observe_request(self, endpoint: str, code: int, seconds: float) -> None:
        """Count one answered request."""
        self.requests[(endpoint, code)] += 1
        self.request_seconds.setdefault(endpoint, Histogram()).observe(seconds)

    def as_json(self, pool: dict[str, Any] | None) -> dict[str, Any]:
        """Everything as one JSON object (``GET /metrics?format=json``)."""
        return {
            "checks": dict(self.checks),
            "verdicts": [
                {"accepted": a, "hack_class": h, "n": n} for (a, h), n in sorted(self.verdicts.items())
            ],
            "requests": [{"endpoint": e, "code": c, "n": n} for (e, c), n in sorted(self.requests.items())],
            "rejected": dict(self.rejected),
            "crash_retries": self.crash_retries,
            "idempotent_replays": self.idempotent_replays,
            "inflight_checks": self.inflight_checks,
            "check_seconds": {"count": self.check_seconds.n, "sum": self.check_seconds.total},
            "pool": pool,
        }

    def prometheus(self, pool: dict[str, Any] | None) -> str:
        """Everything in the Prometheus text format."""
        out: list[str] = []

        def family(name: str, kind: str, text: str) -> str:
            full = f"leangym_{name}"
            out.extend([f"# HELP {full} {text}", f"# TYPE {full} {kind}"])
            return full

        n = family("checks_total", "counter", "Checks answered, by status")
        out += [f"{n}{{{_labels(status=s)}}} {c}" for s, c in sorted(self.checks.items())]
        n = family("verdicts_total", "counter", "Oracle verdicts given by /v1/grade")
        out += [
            f"{n}{{{_labels(accepted=str(a).lower(), hack_class=h)}}} {c}"
            for (a, h), c in sorted(self.verdicts.items())
        ]
        n = family("requests_total", "counter", "HTTP requests answered, by endpoint and status code")
        out += [
            f"{n}{{{_labels(endpoint=e, code=str(c))}}} {k}" for (e, c), k in sorted(self.requests.items())
        ]
        n = family("rejected_total", "counter", "Requests refused, by reason")
        out += [f"{n}{{{_labels(reason=r)}}} {c}" for r, c in sorted(self.rejected.items())]
        n = family("crash_retries_total", "counter", "Checks run again on a fresh process after a crash")
        out.append(f"{n} {self.crash_retries}")
        n = family(
            "idempotent_replays_total", "counter", "Requests answered from an earlier run of their key"
        )
        out.append(f"{n} {self.idempotent_replays}")
        n = family("inflight_checks", "gauge", "Checks admitted and not yet answered")
        out.append(f"{n} {self.inflight_checks}")
        n = family("check_seconds", "histogram", "Time of each check, as the backend measured it")
        out += self.check_seconds.lines(n, "")
        n = family("request_seconds", "histogram", "Time of each request, by endpoint")
        for endpoint, h in sorted(self.request_seconds.items()):
            out += h.lines(n, _labels(endpoint=endpoint))
        for key, value in sorted((pool or {}).items()):
            kind = "gauge" if key in ("size", "busy") else "counter"
            suffix = "" if kind == "gauge" else "_total"
            n = family(f"pool_{key}{suffix}", kind, f"The backend pool's {key.replace('_', ' ')}")
            out.append(f"{n} {value}")
        return "\n".join(out) + "\n"
