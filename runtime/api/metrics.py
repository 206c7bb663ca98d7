"""Prometheus-style text metrics at `GET /metrics`, and the shared database's readiness.

Aggregates only (no tenant or subject names), so the endpoint needs no key, like /healthz:
request latency as a histogram and requests by status code (this process), and, for a
workspace bound to PostgreSQL, the job queue (jobs by state, the oldest job's lag, failed
attempts, successful runs, shared by every node) and the outbox by status.
"""

from __future__ import annotations

import threading
import time
from bisect import bisect_left
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse

from uac.fact_log.store import Store

BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class RequestMetrics:
    """Request latency histogram and counts by status code, thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.buckets = [0] * len(BUCKETS)
        self.count = 0
        self.total = 0.0
        self.codes: dict[int, int] = {}

    def observe(self, seconds: float, status: int) -> None:
        """Count one request that took `seconds` and answered `status`."""
        with self._lock:
            at = bisect_left(BUCKETS, seconds)
            if at < len(BUCKETS):
                self.buckets[at] += 1
            self.count += 1
            self.total += seconds
            self.codes[status] = self.codes.get(status, 0) + 1

    def lines(self) -> list[str]:
        """The histogram and counter in the text exposition format."""
        name = "uac_http_request_duration_seconds"
        out = [f"# HELP {name} Time to answer an HTTP request.", f"# TYPE {name} histogram"]
        with self._lock:
            running = 0
            for bound, n in zip(BUCKETS, self.buckets, strict=True):
                running += n
                out.append(f'{name}_bucket{{le="{bound}"}} {running}')
            out += [
                f'{name}_bucket{{le="+Inf"}} {self.count}',
                f"{name}_sum {self.total:.6f}",
                f"{name}_count {self.count}",
                "# HELP uac_http_requests_total HTTP requests answered, by status code.",
                "# TYPE uac_http_requests_total counter",
                *(
                    f'uac_http_requests_total{{code="{c}"}} {n}'
                    for c, n in sorted(self.codes.items())
                ),
            ]
        return out


def _gauge(name: str, help: str, values: dict[str, float], label: str = "") -> list[str]:
    out = [f"# HELP {name} {help}", f"# TYPE {name} gauge"]
    for key, value in values.items():
        out.append(f'{name}{{{label}="{key}"}} {value}' if label else f"{name} {value}")
    return out


def queue_lines(store: Store) -> list[str]:
    """Jobs and outbox metrics of the workspace (the shared ones when bound to PostgreSQL)."""
    outbox = {k: float(v) for k, v in store.backend.outbox.counts().items()}
    status = store.backend.job_status(limit=0)
    if status is None:  # no shared job queue: the server runs its checks itself
        return _gauge("uac_outbox_rows", "Outbox rows by status.", outbox, "status")
    return [
        *_gauge("uac_jobs", "Compile-and-check jobs by state.", status.states, "state"),  # type: ignore[arg-type]
        *_gauge(
            "uac_jobs_oldest_lag_seconds",
            "Age of the oldest write not yet covered by a finished job.",
            {"": round(status.oldest_lag_s, 3)},
        ),
        "# HELP uac_job_failures_total Failed job attempts.",
        "# TYPE uac_job_failures_total counter",
        f"uac_job_failures_total {status.failures}",
        "# HELP uac_job_runs_total Successful job runs.",
        "# TYPE uac_job_runs_total counter",
        f"uac_job_runs_total {status.runs}",
        *_gauge("uac_outbox_rows", "Outbox rows by status.", outbox, "status"),
    ]


def install(app: FastAPI, store: Callable[[], Store | None]) -> RequestMetrics:
    """Add the latency middleware and `GET /metrics` to an app; `store()`: the open workspace."""
    requests = RequestMetrics()

    @app.middleware("http")
    async def _timed(request: Request, call_next: Any) -> Any:
        started = time.perf_counter()
        response = await call_next(request)
        requests.observe(time.perf_counter() - started, response.status_code)
        return response

    @app.get("/metrics", tags=["ops"], response_class=PlainTextResponse)
    def metrics() -> PlainTextResponse:
        """Prometheus-style metrics: request latency, jobs by state, lag, outbox."""
        lines = requests.lines()
        opened = store()
        if opened is not None:
            try:
                lines += queue_lines(opened)
            except Exception as exc:  # the database is away: say so, keep the process metrics
                lines += [f"# uac: queue metrics unavailable: {str(exc)[:200]}"]
        return PlainTextResponse("\n".join(lines) + "\n", media_type=CONTENT_TYPE)

    return requests
