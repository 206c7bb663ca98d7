"""The alert outbox outlasts outages: backoff up to a horizon, retry and drop, delivery ids.

The clock is a parameter of the deliverer, so an outage of hours is lived through in a loop
of `run_due` calls; the slow sink is a real HTTP server answering after the webhook's timeout.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import http.server
import json
import random
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from test_serve import serving

from uac import Memory
from uac.checks.sinks import DELIVERY_ID_HEADER, WebhookSink
from uac.fact_log.store import utc_now
from uac.runtime.api import outbox
from uac.runtime.api.outbox import Deliverer, OutboxSettings, OutboxSink
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")

DAY = dt.datetime(2025, 1, 10, 9)


class Clock:
    """A settable UTC clock (naive, like the outbox's timestamps)."""

    def __init__(self) -> None:
        self.now = utc_now() + dt.timedelta(seconds=1)

    def __call__(self) -> dt.datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


def _raise_alerts(mem: Memory, n: int, sink: str = "hook") -> list[str]:
    """n subjects with an expiring passport, checked: one alert each, queued for `sink`."""
    ids = []
    for i in range(n):
        subject = f"user{i}"
        mem.set(subject, "identity.passport.expiry_date", "2025-02-01", now=DAY)
        mem.compile(subject)
        result = mem.check(subject, today=DAY.date(), sinks=[OutboxSink(mem.store, [sink])])
        ids += [a.id for a in result.new]
    assert len(ids) == n
    return ids


def _statuses(mem: Memory) -> Counter[str]:
    return Counter(row["status"] for row in outbox.rows(mem.store, mem.tenant, limit=1000))


def test_a_sink_down_for_an_hour_loses_no_alert_once_it_is_back(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        ids = _raise_alerts(mem, 20)
        clock = Clock()
        down = True
        received: list[str] = []
        lock = threading.Lock()

        def hook(batch: list) -> None:
            if down:
                raise ConnectionError("connection refused")
            with lock:
                received.extend(a.id for a in batch)

        settings = OutboxSettings()
        deliverer = Deliverer(mem.store, {"hook": hook}, settings=settings, clock=clock)
        deliverer.rng = random.Random(7)
        try:
            for _ in range(60):  # an hour, a minute at a time
                deliverer.run_due()
                clock.advance(60)
            assert received == [] and _statuses(mem) == {"pending": 20}
            attempts = {row["attempts"] for row in outbox.rows(mem.store, mem.tenant)}
            assert min(attempts) > 8  # the old give-up point; still retrying
            down = False
            clock.advance(settings.max_delay * (1 + settings.jitter))
            deliverer.run_due()
        finally:
            deliverer.stop()
        assert sorted(received) == sorted(ids)  # 0 lost, 0 sent twice
        assert _statuses(mem) == {"delivered": 20} and deliverer.pending() == 0


def test_past_the_horizon_a_row_is_dead_until_retried_and_drop_deletes(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        ids = _raise_alerts(mem, 3)
        clock = Clock()
        down = True
        received: list[str] = []

        def hook(batch: list) -> None:
            if down:
                raise ConnectionError("connection refused")
            received.extend(a.id for a in batch)

        settings = OutboxSettings(horizon=2 * 3600, max_delay=300)
        deliverer = Deliverer(mem.store, {"hook": hook}, settings=settings, clock=clock)
        try:
            for _ in range(3 * 60):  # three hours down: past the two-hour horizon
                deliverer.run_due()
                clock.advance(60)
            assert _statuses(mem) == {"dead": 3} and received == []
            (first, *_others) = outbox.rows(mem.store, mem.tenant)
            assert first["last_error"].startswith("ConnectionError")
            assert outbox.counts(mem.store, mem.tenant) == {"pending": 0, "delivered": 0, "dead": 3}
            assert outbox.drop(mem.store, mem.tenant, [first["id"]]) == 1
            assert outbox.drop(mem.store, "elsewhere", [first["id"]]) == 0  # another tenant's
            down = False
            assert outbox.retry(mem.store, mem.tenant, now=clock()) == 2  # every dead row
            deliverer.run_due()
        finally:
            deliverer.stop()
        assert sorted(received) == sorted(set(ids) - {first["alert_id"]})
        assert _statuses(mem) == {"delivered": 2}
        assert outbox.retry(mem.store, mem.tenant) == 0  # delivered rows are not sent again


def test_one_sink_gets_at_most_its_bound_of_deliveries_at_once(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        _raise_alerts(mem, 8)
        both = threading.Barrier(2, timeout=30)  # the first two sends must overlap
        lock = threading.Lock()
        state = {"now": 0, "most": 0, "calls": 0}

        def hook(batch: list) -> None:
            with lock:
                state["now"] += 1
                state["calls"] += 1
                state["most"] = max(state["most"], state["now"])
                first_two = state["calls"] <= 2
            if first_two:
                both.wait()
            with lock:
                state["now"] -= 1

        settings = OutboxSettings(workers=4, per_sink=2)
        deliverer = Deliverer(mem.store, {"hook": hook}, settings=settings)
        try:
            deliverer.run_due()
        finally:
            deliverer.stop()
        assert state["calls"] == 8 and state["most"] == 2
        assert _statuses(mem) == {"delivered": 8}


class _SlowSink(http.server.BaseHTTPRequestHandler):
    """Answers a delivery id's first request after the client gave up; later ones at once."""

    seen: ClassVar[list[tuple[str, str]]] = []
    lock = threading.Lock()
    slow = threading.Event()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        delivery = self.headers.get(DELIVERY_ID_HEADER, "")
        with self.lock:
            first = all(d != delivery for d, _ in self.seen)
            self.seen.append((delivery, body["alerts"][0]["id"]))
        if first:
            self.slow.wait(2.0)  # past the webhook timeout: the client counts it as failed
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def slow_sink() -> Iterator[str]:
    _SlowSink.seen = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowSink)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def test_a_slow_sink_sees_each_duplicate_under_one_delivery_id(home: Path, slow_sink: str) -> None:
    with Memory(home, create=True, react=False) as mem:
        ids = _raise_alerts(mem, 5, sink="webhook")
        settings = OutboxSettings(base_delay=0.01, timeout=0.2)
        sink = WebhookSink(slow_sink, retries=0, timeout=settings.timeout)
        deliverer = Deliverer(mem.store, {"webhook": sink}, settings=settings)
        try:
            for _ in range(200):
                deliverer.run_due()
                if deliverer.pending() == 0:
                    break
                deliverer.run_due(utc_now() + dt.timedelta(seconds=1))
        finally:
            deliverer.stop()
        assert _statuses(mem) == {"delivered": 5}
        seen = list(_SlowSink.seen)
        by_alert: dict[str, set[str]] = {}
        for delivery, alert in seen:
            by_alert.setdefault(alert, set()).add(delivery)
        assert sorted(by_alert) == sorted(ids)
        assert len(seen) >= 10  # each alert at least twice: the first answer came too late
        assert all(len(d) == 1 and "" not in d for d in by_alert.values())  # one id per alert
        assert len({d for d, _ in seen}) == 5


@pytest.mark.parametrize("served", [False, True], ids=["local", "through-uac-serve"])
def test_uac_outbox_lists_retries_and_drops_rows(
    home: Path, capsys: pytest.CaptureFixture[str], served: bool
) -> None:
    """Run on the workspace, or forwarded to the server that holds it (its admin routes)."""
    with Memory(home, create=True, react=False) as mem:
        _raise_alerts(mem, 2)
        settings = OutboxSettings(horizon=1.0, base_delay=1.0)  # dead after a second try
        clock = Clock()

        def hook(batch: list) -> None:
            raise ConnectionError("connection refused")

        deliverer = Deliverer(mem.store, {"hook": hook}, settings=settings, clock=clock)
        try:
            deliverer.run_due()
            clock.advance(2)
            deliverer.run_due()
        finally:
            deliverer.stop()
        assert _statuses(mem) == {"dead": 2}
    with serving(home) if served else contextlib.nullcontext():
        _outbox_commands(home, capsys)


def _outbox_commands(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--home", str(home), "outbox", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["counts"] == {"pending": 0, "delivered": 0, "dead": 2}
    first, second = sorted(row["id"] for row in listed["rows"])
    assert main(["--home", str(home), "outbox", "list"]) == 0
    text = capsys.readouterr().out
    assert "0 pending, 0 delivered, 2 dead" in text and "uac outbox retry" in text
    assert main(["--home", str(home), "outbox", "drop", str(first)]) == 0
    assert capsys.readouterr().out.strip() == "dropped 1 outbox rows"
    assert main(["--home", str(home), "outbox", "retry", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"requeued": 1}
    assert main(["--home", str(home), "outbox", "list", "--status", "pending", "--json"]) == 0
    assert [row["id"] for row in json.loads(capsys.readouterr().out)["rows"]] == [second]
    assert main(["--home", str(home), "outbox", "drop"]) == 1  # names no row: refused
    assert "name the outbox rows to drop" in capsys.readouterr().err
