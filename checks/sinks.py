"""Delivery sinks for new alerts: a Python callback, JSON lines, and an HTTP webhook.

A sink is any callable taking a list of alerts and raising on failure. `deliver` calls each
sink once per batch and collects failures instead of raising, so one broken sink never
stops another or loses the stored alerts (they stay in the `alerts` table).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from uac.checks.model import Alert


class Sink(Protocol):
    """Receives a batch of newly raised alerts; raises if it could not deliver them."""

    def __call__(self, alerts: Sequence[Alert]) -> None: ...


@runtime_checkable
class Recorder(Protocol):
    """A sink that records alerts for later delivery in the evaluation's own transaction.

    The outbox (runtime/api/outbox.py): checks/alerts.py writes one row per raised alert and
    each name in `sinks` together with the alert rows, then calls `recorded()` (to wake the
    deliverer), so an alert is never stored without its outbox rows nor the other way round.
    """

    sinks: list[str]

    def __call__(self, alerts: Sequence[Alert]) -> None: ...

    def recorded(self) -> None: ...


DELIVERY_ID_HEADER = "Uac-Delivery-Id"  # one outbox delivery's id: sinks deduplicate by it


class DeliveryError(Exception):
    """A sink gave up delivering."""


class CallbackSink:
    """Hands each batch to a Python function."""

    def __init__(self, fn: Callable[[Sequence[Alert]], Any], name: str = "callback"):
        self.fn = fn
        self.name = name

    def __call__(self, alerts: Sequence[Alert]) -> None:
        """Call the function with the batch."""
        self.fn(alerts)


class JsonLinesSink:
    """Appends one JSON object per alert to a file (or writes to a stream, e.g. stdout)."""

    def __init__(self, target: Path | str | IO[str] | None = None):
        self.target = sys.stdout if target is None else target
        self.name = "jsonl"

    def __call__(self, alerts: Sequence[Alert]) -> None:
        """Write the batch as JSON lines."""
        text = "".join(json.dumps(a.as_dict(), sort_keys=True) + "\n" for a in alerts)
        if isinstance(self.target, str | Path):
            with Path(self.target).open("a", encoding="utf-8") as fh:
                fh.write(text)
        else:
            self.target.write(text)
            self.target.flush()


class WebhookSink:
    """POSTs `{"alerts": [...]}` as JSON; retries with exponential backoff, per-try timeout.

    Alerts sent by the outbox carry a delivery id, sent as the `Uac-Delivery-Id` header (the
    same on every retry of one delivery: delivery is at-least-once, so deduplicate by it).
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 5.0,
        retries: int = 3,
        backoff: float = 0.5,
        headers: dict[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"webhook URL must be http(s): {url!r}")
        self.url = url
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.headers = {"Content-Type": "application/json", **(headers or {})}
        self.sleep = sleep
        self.name = "webhook"
        self.attempts = 0  # of the last delivery, for logs and tests

    def __call__(self, alerts: Sequence[Alert]) -> None:
        """POST the batch; raise DeliveryError after the last failed attempt."""
        import urllib.error  # with the first delivery: a read never loads the HTTP client
        import urllib.request

        body = json.dumps({"alerts": [a.as_dict() for a in alerts]}, sort_keys=True).encode()
        headers = dict(self.headers)
        ids = [getattr(a, "delivery_id", None) for a in alerts]
        if ids and all(ids):  # from the outbox: the same id on every retry of one delivery
            headers[DELIVERY_ID_HEADER] = ",".join(str(i) for i in ids)
        last = ""
        self.attempts = 0
        for attempt in range(self.retries + 1):
            if attempt:
                self.sleep(self.backoff * 2 ** (attempt - 1))
            self.attempts += 1
            request = urllib.request.Request(self.url, body, headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    if 200 <= response.status < 300:
                        return
                    last = f"HTTP {response.status}"
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code}"
                if 400 <= exc.code < 500 and exc.code not in (408, 429):
                    break  # the request itself is wrong: retrying will not help
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                last = f"{type(reason).__name__}: {reason}"
        raise DeliveryError(f"webhook {self.url} failed after {self.attempts} attempts: {last}")


def deliver(alerts: Sequence[Alert], sinks: Sequence[Sink]) -> dict[str, str]:
    """Give the batch to every sink; returns {sink name: error} for those that failed."""
    errors: dict[str, str] = {}
    names = [getattr(sink, "name", f"sink{n}") for n, sink in enumerate(sinks)]
    for n, sink in enumerate(sinks):
        name = names[n] if names.count(names[n]) == 1 else f"{names[n]}#{n}"
        try:
            sink(alerts)
        except Exception as exc:  # report, never lose the others' deliveries
            errors[name] = str(exc) or type(exc).__name__
    return errors
