"""The alert outbox: a write records its alerts and returns; a worker delivers them later.

`OutboxSink` is the only sink a serving `Memory` has: it inserts one `outbox` row per alert
and configured sink (a cheap local insert), so a slow or dead webhook can never slow a
write. `Deliverer` is a thread that sends due rows to the real sinks, with exponential
backoff between attempts and a dead letter after `max_attempts`; undelivered rows survive a
crash or restart and are sent when the server comes back (at-least-once delivery: a row
whose sink succeeded but whose status update was lost is sent again, so sinks should
deduplicate by alert id).
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Callable, Sequence
from typing import Any

from uac.checks.alerts import record_outbox
from uac.checks.model import Alert
from uac.fact_log.store import Store, utc_now
from uac.runtime.api import schema  # noqa: F401 (registers the outbox table)


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
    """Sends due outbox rows to their sinks in a background thread until stopped."""

    def __init__(
        self,
        store: Store,
        sinks: dict[str, Callable[[Sequence[Any]], None]],
        *,
        max_attempts: int = 8,
        base_delay: float = 1.0,
        max_delay: float = 3600.0,
        log: Callable[[dict[str, Any]], None] = lambda event: None,
    ):
        self.store = store
        self.sinks = sinks
        self.max_attempts = max_attempts
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.log = log
        self.wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start delivering (rows left by an earlier run are due at once)."""
        self._thread = threading.Thread(target=self._loop, name="uac-outbox", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop after the row being sent; what is left stays pending for the next start."""
        self._stop.set()
        self.wake.set()
        if self._thread is not None:
            self._thread.join(timeout)

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
        now = now or utc_now()
        # On a shared outbox each row is locked while sent: one node sends it.
        nxt = self.store.backend.outbox.deliver_due(now, self._send, self._stop.is_set)
        if nxt is None:
            return 5.0
        return max(0.05, min(5.0, (nxt - utc_now()).total_seconds()))

    def _send(
        self, row_id: int, sink_name: str, payload: str, attempts: int
    ) -> tuple[str, int, dt.datetime, str | None]:
        """Send one row; its new (status, attempts, next try or delivery time, last error)."""
        sink = self.sinks.get(sink_name)
        error: str | None = None
        if sink is None:
            error = f"no sink named {sink_name!r} is configured on this server"
        else:
            try:
                sink([_Delivered(json.loads(payload))])
            except Exception as exc:  # any failure is retried later
                error = f"{type(exc).__name__}: {exc}"
        now = utc_now()
        attempts += 1
        if error is None:
            self.log({"event": "alert_delivered", "outbox_id": row_id, "sink": sink_name})
            return "delivered", attempts, now, None
        status = "dead" if attempts >= self.max_attempts else "pending"
        delay = min(self.max_delay, self.base_delay * 2 ** (attempts - 1))
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


class _Delivered:
    """An alert as stored in the outbox: sinks only call `as_dict()` on what they send."""

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]):
        self._data = data

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
