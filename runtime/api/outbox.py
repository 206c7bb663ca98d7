"""The alert outbox: a write records its alerts and returns; workers deliver them later.

`OutboxSink` is the only sink a serving `Memory` has: it inserts one `outbox` row per alert
and configured sink (a cheap local insert), so a slow or dead webhook can never slow a
write. `Deliverer` sends due rows to the real sinks from a pool of `workers` threads, at most
`per_sink` at once to one sink, with exponential backoff and jitter between attempts
(`OutboxSettings`). A row is given up on (`dead`) only once its attempts span the
`horizon` (default 48 h), so a sink down for a day loses nothing; `uac outbox retry` (or the
console's Operations page) queues dead rows again, `drop` deletes rows.

Delivery is at-least-once: a row whose sink succeeded but whose answer or status update was
lost (a timeout, a crash) is sent again. Every send of one row carries the same delivery id
(`delivery_id`; the webhook sends it as the `Uac-Delivery-Id` header), so a sink
deduplicates by that id.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import random
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from uac.checks.alerts import record_outbox
from uac.checks.model import Alert
from uac.fact_log.errors import InputError
from uac.fact_log.store import Store, utc_now
from uac.runtime.api import schema  # noqa: F401 (registers the outbox table)
from uac.runtime.api.outbox_settings import OutboxSettings

STATUSES = ("pending", "delivered", "dead")
__all__ = ["STATUSES", "Deliverer", "OutboxSettings", "OutboxSink", "delivery_id"]


class OutboxSink:
    """A recording sink (checks/sinks.py Recorder): one outbox row per alert and named sink.

    Evaluations write its rows in the alert's own transaction (checks/alerts.py); on a
    workspace bound to PostgreSQL they go to the shared outbox there
    (fact_log/backends/pg_alerts.py).
    """

    name = "outbox"

    def __init__(self, store: Store, sinks: Sequence[str], wake: threading.Event | None = None):
        self.store = store
        self.sinks = list(sinks)
        self.wake = wake

    def __call__(self, alerts: Sequence[Alert]) -> None:
        """Record the alerts outside an evaluation (its own transaction); wake the deliverer."""
        if not self.sinks or not alerts:
            return
        entries = []
        for alert in alerts:
            payload = json.dumps(alert.as_dict(), sort_keys=True, ensure_ascii=False)
            entries += [(alert, 1, sink, payload) for sink in self.sinks]
        with self.store.write_lock:
            record_outbox(self.store, entries)
        self.recorded()

    def recorded(self) -> None:
        """Rows were recorded: wake the deliverer."""
        if self.wake is not None:
            self.wake.set()


class Deliverer:
    """Sends due outbox rows to their sinks from a pool of threads until stopped.

    `clock` (UTC, naive) and `rng` are parameters so a test can live through an outage of
    hours without waiting for it.
    """

    def __init__(
        self,
        store: Store,
        sinks: dict[str, Callable[[Sequence[Any]], None]],
        *,
        settings: OutboxSettings | None = None,
        log: Callable[[dict[str, Any]], None] = lambda event: None,
        clock: Callable[[], dt.datetime] = utc_now,
        rng: random.Random | None = None,
    ):
        self.store = store
        self.sinks = sinks
        self.settings = settings or OutboxSettings()
        self.max_attempts = self.settings.max_attempts()
        self.log = log
        self.clock = clock
        self.rng = rng or random.Random()
        self._rng_lock = threading.Lock()
        self._bounds = {name: threading.Semaphore(self.settings.per_sink) for name in sinks}
        self._pool = ThreadPoolExecutor(self.settings.workers, thread_name_prefix="uac-outbox")
        self.wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start delivering (rows left by an earlier run are due at once)."""
        self._thread = threading.Thread(target=self._loop, name="uac-outbox", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop after the rows being sent; what is left stays pending for the next start."""
        self._stop.set()
        self.wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def pending(self) -> int:
        """Rows not yet delivered (nor dead-lettered)."""
        return self.store.backend.outbox.pending()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                delay = self.run_due()
            except Exception as exc:  # e.g. the shared database restarting: try again soon
                self.log({"event": "outbox_unavailable", "error": str(exc)[:200]})
                delay = 5.0
            self.wake.wait(timeout=delay)
            self.wake.clear()

    def run_due(self, now: dt.datetime | None = None) -> float:
        """Deliver every due row once; returns seconds until the next row falls due (max 5)."""
        now = now or self.clock()
        # Several workers send at once (the per-sink bound is kept by `_send`); on a shared
        # outbox each row is locked while sent: one node sends it.
        nxt = self.store.backend.outbox.deliver_due(
            now, self._send, self._stop.is_set, self._pool, self.settings.workers
        )
        if nxt is None:
            return 5.0
        return max(0.05, min(5.0, (nxt - self.clock()).total_seconds()))

    def _send(
        self, row_id: int, sink_name: str, payload: str, attempts: int
    ) -> tuple[str, int, dt.datetime, str | None]:
        """Send one row; its new (status, attempts, next try or delivery time, last error)."""
        sink = self.sinks.get(sink_name)
        error: str | None = None
        if sink is None:
            error = f"no sink named {sink_name!r} is configured on this server"
        else:
            delivered = _Delivered(json.loads(payload), delivery_id(row_id, sink_name, payload))
            try:
                with self._bounds[sink_name]:
                    sink([delivered])
            except Exception as exc:  # any failure is retried later
                error = f"{type(exc).__name__}: {exc}"
        now = self.clock()
        attempts += 1
        if error is None:
            self.log({"event": "alert_delivered", "outbox_id": row_id, "sink": sink_name})
            return "delivered", attempts, now, None
        status = "dead" if attempts >= self.max_attempts else "pending"
        with self._rng_lock:
            stretch = 1 + self.settings.jitter * self.rng.random()
        delay = self.settings.delay(attempts) * stretch
        self.log(
            {
                "event": "alert_delivery_failed",
                "outbox_id": row_id,
                "sink": sink_name,
                "attempts": attempts,
                "status": status,
                "error": error[:200],
            }
        )
        return status, attempts, now + dt.timedelta(seconds=delay), error[:500]


def delivery_id(row_id: int, sink: str, payload: str) -> str:
    """The id every send of one outbox row carries (the same on each retry)."""
    digest = hashlib.sha256(f"{row_id}\x1f{sink}\x1f{payload}".encode()).hexdigest()
    return f"uac-{digest[:32]}"


# -- operating the outbox (uac outbox, the console) ---------------------------------------------


def rows(
    store: Store, tenant: str, status: str | None = None, limit: int = 50
) -> list[dict[str, Any]]:
    """The tenant's outbox rows, newest first (optionally of one status)."""
    if status is not None and status not in STATUSES:
        raise InputError(f"outbox status {status!r}: use one of {', '.join(STATUSES)}.")
    found = store.backend.outbox.rows(tenant, status, limit)
    names: tuple[str, ...] = ("id", "alert_id", "sink", "status", "attempts", "next_at")
    names += ("last_error", "created_at", "delivered_at")
    return [dict(zip(names, row, strict=True)) for row in found]


def counts(store: Store, tenant: str) -> dict[str, int]:
    """The tenant's outbox rows per status (every status named, 0 if none)."""
    found = store.backend.outbox.tenant_counts(tenant)
    return {status: int(found.get(status, 0)) for status in STATUSES}


def retry(
    store: Store, tenant: str, ids: Sequence[int] = (), now: dt.datetime | None = None
) -> int:
    """Queue rows again, due now with a fresh horizon: the named ones, or every dead row."""
    return store.backend.outbox.requeue(tenant, list(ids), now or utc_now())


def drop(store: Store, tenant: str, ids: Sequence[int]) -> int:
    """Delete the named rows (their alerts stay stored; they are just not sent)."""
    if not ids:
        raise InputError("name the outbox rows to drop: uac outbox drop ID [ID ...]")
    return store.backend.outbox.drop(tenant, list(ids))


class _Delivered:
    """An alert as stored in the outbox: sinks only call `as_dict()` on what they send."""

    __slots__ = ("_data", "delivery_id")

    def __init__(self, data: dict[str, Any], delivery_id: str):
        self._data = data
        self.delivery_id = delivery_id

    def as_dict(self) -> dict[str, Any]:
        """The alert as a JSON-ready dict."""
        return dict(self._data)

    @property
    def id(self) -> str:
        """The alert's id (its fingerprint)."""
        return str(self._data["id"])

    @property
    def message(self) -> str:
        """The alert's message."""
        return str(self._data["message"])
