"""Alert lifecycle, scoping, delivery sinks (real HTTP server), user rules and the scheduler."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import new_workspace
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from uac import Memory
from uac.checks import (
    Alert,
    CallbackSink,
    JsonLinesSink,
    RuleError,
    WebhookSink,
    acknowledge,
    add_rule,
    evaluate,
    get_alert,
    list_alerts,
    snooze,
    validate_rule,
)
from uac.checks.scheduler import (
    LOCK_FILE,
    SchedulerBusy,
    acquire_lock,
    jobs,
    parse_cron,
    parse_every,
    release_lock,
    run_once,
    serve,
)
from uac.fact_log.addressing import Address
from uac.fact_log.errors import InputError, NotFound
from uac.fact_log.store import Batch, NewFact
from uac.fact_log.user_rules import RULE_KIND, RULE_PATH, rule_fact

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("rule parsing, schedules and webhook delivery alone: no log")

ROOT = Path(__file__).resolve().parents[1]
T = dt.datetime(2025, 1, 10, 9)
TODAY = dt.date(2025, 1, 10)


def passport_trip(mem: Memory, subject: str = "maya", expiry: str = "2025-03-05") -> None:
    mem.set(subject, "identity.passport.issuing_country", "GB", now=T)
    mem.set(subject, "identity.passport.expiry_date", expiry, now=T)
    mem.import_records(
        subject, "trips", [{"country": "TH", "city": "Bangkok", "depart": "2025-02-20"}], now=T
    )
    mem.compile(subject)


# -- lifecycle -----------------------------------------------------------------------------


def test_alert_fires_once_and_carries_its_computation(mem: Memory) -> None:
    passport_trip(mem)
    addr = mem.address("maya")
    first = evaluate(mem.store, mem.home, addr, TODAY)
    checks = {a.check: a for a in first.new}
    trip_alert = checks["passport_validity_for_trip"]
    assert trip_alert.severity == "critical"
    assert "13 days < 180 required" in trip_alert.computation
    passport_facts = {f.id for f in mem.facts("maya", "identity.passport.expiry_date")}
    trip_facts = {f.id for f in mem.facts("maya", "travel.trips")}
    assert set(trip_alert.fact_ids) == passport_facts | trip_facts
    again = evaluate(mem.store, mem.home, addr, TODAY)
    assert again.new == [] and {a.id for a in again.still_open} == {a.id for a in first.new}
    assert len(list_alerts(mem.store, addr)) == len(first.new)


def test_a_snoozed_alert_is_delivered_again_when_its_snooze_ends(mem: Memory) -> None:
    passport_trip(mem)
    addr = mem.address("maya")
    got: list[str] = []
    sink = CallbackSink(lambda alerts: got.extend(a.id for a in alerts))
    [alert] = [
        a
        for a in evaluate(mem.store, mem.home, addr, TODAY, sinks=[sink]).new
        if a.check.startswith("pass")
    ]
    got.clear()
    snooze(mem.store, addr, alert.id, dt.date(2025, 1, 20), TODAY)
    for day in (TODAY, dt.date(2025, 1, 19)):  # during the snooze: silent
        assert evaluate(mem.store, mem.home, addr, day, sinks=[sink]).woken == []
    assert got == []
    woken = evaluate(mem.store, mem.home, addr, dt.date(2025, 1, 20), sinks=[sink]).woken
    assert [a.id for a in woken] == [alert.id] and got == [alert.id]
    again = get_alert(mem.store, addr, alert.id)
    assert (again.status, again.snoozed_until) == ("open", None)
    # Woken once: the next day's evaluation does not deliver it a third time.
    assert evaluate(mem.store, mem.home, addr, dt.date(2025, 1, 21), sinks=[sink]).woken == []
    assert got == [alert.id]


def test_acknowledge_snooze_resolve_and_reopen(mem: Memory) -> None:
    passport_trip(mem)
    addr = mem.address("maya")
    alert = next(
        a for a in evaluate(mem.store, mem.home, addr, TODAY).new if a.check.startswith("pass")
    )
    assert acknowledge(mem.store, addr, alert.id, TODAY).status == "acknowledged"
    assert evaluate(mem.store, mem.home, addr, TODAY).new == []  # still acknowledged
    assert get_alert(mem.store, addr, alert.id).status == "acknowledged"
    snoozed = snooze(mem.store, addr, alert.id, dt.date(2025, 1, 20), TODAY)
    assert snoozed.snoozed_until == dt.date(2025, 1, 20)
    assert alert.id not in {a.id for a in list_alerts(mem.store, addr, today=TODAY)}
    assert alert.id in {a.id for a in list_alerts(mem.store, addr, today=dt.date(2025, 1, 20))}
    with pytest.raises(InputError, match="must be after today"):
        snooze(mem.store, addr, alert.id, TODAY, TODAY)
    # Renewed passport: the condition is gone, so the alert resolves itself.
    mem.set("maya", "identity.passport.expiry_date", "2035-01-01", now=T + dt.timedelta(days=1))
    mem.compile("maya")
    result = evaluate(mem.store, mem.home, addr, TODAY)
    assert alert.id in {a.id for a in result.resolved}
    assert get_alert(mem.store, addr, alert.id).resolved_on == TODAY
    with pytest.raises(InputError, match="already resolved"):
        acknowledge(mem.store, addr, alert.id, TODAY)
    # The old expiry comes back (a correction): same id, re-opened as new.
    mem.set("maya", "identity.passport.expiry_date", "2025-03-05", now=T + dt.timedelta(days=2))
    mem.compile("maya")
    back = evaluate(mem.store, mem.home, addr, TODAY)
    reopened = next(a for a in back.new if a.id == alert.id)
    assert reopened.status == "open" and reopened.acknowledged_on is None


def test_alerts_are_scoped_by_subject_and_tenant(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:  # evaluated explicitly below
        passport_trip(mem, "maya")
        passport_trip(mem, "sam", expiry="2040-01-01")
        maya, sam = mem.address("maya"), mem.address("sam")
        alert = evaluate(mem.store, mem.home, maya, TODAY).new[0]
        evaluate(mem.store, mem.home, sam, TODAY)
        assert list_alerts(mem.store, sam) == []
        with pytest.raises(NotFound):
            acknowledge(mem.store, sam, alert.id, TODAY)
        with pytest.raises(NotFound):
            snooze(
                mem.store, Address("other", "user", "maya"), alert.id, dt.date(2026, 1, 1), TODAY
            )
        assert {a.address for a in list_alerts(mem.store, "default")} == {maya}
        assert list_alerts(mem.store, "other") == []


# -- sinks ---------------------------------------------------------------------------------


def test_callback_and_jsonl_sinks(mem: Memory, tmp_path: Path) -> None:
    passport_trip(mem)
    got: list[Alert] = []
    out = tmp_path / "alerts.jsonl"
    stream = io.StringIO()
    result = evaluate(
        mem.store,
        mem.home,
        mem.address("maya"),
        TODAY,
        sinks=[CallbackSink(got.extend), JsonLinesSink(out), JsonLinesSink(stream)],
    )
    assert [a.id for a in got] == [a.id for a in result.new]
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == [a.id for a in result.new]
    assert lines[0]["subject"] == "user:maya" and lines[0]["computation"]
    assert stream.getvalue() == out.read_text()
    # Already-open alerts are not delivered again.
    evaluate(mem.store, mem.home, mem.address("maya"), TODAY, sinks=[CallbackSink(got.extend)])
    assert len(got) == len(result.new)


class _Server:
    """A real HTTP server on 127.0.0.1 that fails `fail` times, then answers 204."""

    def __init__(self, fail: int = 0, hang: bool = False, code: int = 503):
        self.calls: list[dict] = []
        self.answered = 0  # hanging requests the server let go of (only at close)
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.calls.append(json.loads(body))
                if hang:  # held until the test closes the server: no wall-clock race
                    outer.release.wait()
                    outer.answered += 1
                    return
                self.send_response(code if len(outer.calls) <= fail else 204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server_factory() -> Iterator:
    made: list[_Server] = []

    def make(**kw: object) -> _Server:
        made.append(_Server(**kw))  # type: ignore[arg-type]
        return made[-1]

    yield make
    for s in made:
        s.close()


def test_webhook_retries_then_succeeds(mem: Memory, server_factory) -> None:
    passport_trip(mem)
    server = server_factory(fail=2)
    sleeps: list[float] = []
    hook = WebhookSink(server.url, timeout=2, retries=3, backoff=0.1, sleep=sleeps.append)
    result = evaluate(mem.store, mem.home, mem.address("maya"), TODAY, sinks=[hook])
    assert result.delivery_errors == {}
    assert hook.attempts == 3 and sleeps == [0.1, 0.2]
    assert [a["id"] for a in server.calls[-1]["alerts"]] == [a.id for a in result.new]
    row = mem.store.con.execute("SELECT count(*) FROM alerts WHERE delivered_at IS NOT NULL")
    assert row.fetchone()[0] == len(result.new)


def test_webhook_that_never_answers_times_out_with_bounded_retries(
    mem: Memory, server_factory
) -> None:
    passport_trip(mem)
    server = server_factory(hang=True)
    hook = WebhookSink(server.url, timeout=0.3, retries=2, backoff=0.01)
    result = evaluate(mem.store, mem.home, mem.address("maya"), TODAY, sinks=[hook])
    # Every attempt was cut by the client's timeout while the server still held the first one
    # (it holds each until the test ends): three 0.3 s attempts, not three of the sink's
    # default 5 s. Nothing is timed: a loaded machine slows evaluate() and its compile alike.
    assert server.answered == 0
    assert hook.attempts == 3 and len(server.calls) == 3
    assert "failed after 3 attempts" in result.delivery_errors["webhook"]
    assert "timed out" in result.delivery_errors["webhook"]
    # Delivery failed but the alerts are stored, with the error recorded.
    stored = mem.store.con.execute("SELECT delivery_error FROM alerts").fetchall()
    assert stored and all("timed out" in r[0] for r in stored)


@NO_LOG
def test_webhook_client_error_is_not_retried(server_factory) -> None:
    server = server_factory(fail=5, code=400)
    hook = WebhookSink(server.url, timeout=2, retries=3, sleep=lambda s: None)
    with pytest.raises(Exception, match="failed after 1 attempts: HTTP 400"):
        hook([])
    assert len(server.calls) == 1


@NO_LOG
def test_webhook_refused_connection_gives_up_after_bounded_retries() -> None:
    hook = WebhookSink("http://127.0.0.1:9/none", timeout=0.5, retries=2, sleep=lambda s: None)
    with pytest.raises(Exception, match="failed after 3 attempts"):
        hook([])
    with pytest.raises(ValueError):
        WebhookSink("file:///etc/passwd")


# -- rules ---------------------------------------------------------------------------------

DINING = {
    "type": "threshold",
    "name": "dining over 500",
    "collection": "transactions",
    "filter": {"category": "dining"},
    "field": "amount",
    "agg": "sum",
    "window": "calendar_month",
    "op": ">",
    "value": "500",
}


@NO_LOG
@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"type": "exec", "code": "x"}, "type"),
        ({**DINING, "collection": "cars"}, "unknown collection 'cars'"),
        ({**DINING, "field": "merchant"}, "field 'merchant' is not numeric"),
        ({**DINING, "filter": {"colour": "red"}}, "has no field 'colour'"),
        ({**DINING, "filter": {"category": "x" * 2_000_000}}, "2,000,000 characters, over 200"),
        ({**DINING, "op": "=~"}, "op"),
        ({**DINING, "value": "lots"}, "value"),
        ({**DINING, "code": "import os"}, "code: Extra inputs are not permitted"),
        ({"type": "reminder", "path": "passport.number", "days_before": 3}, "not a date field"),
        ({"type": "reminder", "path": "passport.expiry_date", "days_before": -1}, "days_before"),
        ({"type": "forbid", "collection": "trips", "field": "planet", "value": "Mars"}, "planet"),
    ],
)
def test_invalid_rules_are_refused_with_a_reason(data: dict, reason: str) -> None:
    with pytest.raises(RuleError, match="invalid rule") as err:
        validate_rule(data)
    assert reason in str(err.value)


def test_threshold_rule_stored_as_fact_fires_and_clears(mem: Memory) -> None:
    addr = mem.address("maya")
    # A rule is an ordinary fact appended with Batch + NewFact (kind "rule", path "rules").
    batch = Batch(addr, T, "test")
    batch.facts.append(rule_fact(validate_rule(DINING), text="dining over 500 GBP a month"))
    [rule_fact_row] = mem.store.append(batch)
    assert (rule_fact_row.kind, rule_fact_row.path) == ("rule", "rules")
    mem.import_records(
        "maya",
        "transactions",
        [
            {"date": "2025-01-03", "amount": "300", "merchant": "Ivy", "category": "dining"},
            {"date": "2025-01-08", "amount": "250", "merchant": "Nobu", "category": "dining"},
            {"date": "2025-01-08", "amount": "900", "merchant": "Rent Co", "category": "rent"},
        ],
        now=T,
    )
    mem.compile("maya")
    [alert] = [
        a for a in evaluate(mem.store, mem.home, addr, TODAY).new if a.check.startswith("rule:")
    ]
    assert "= 550 > 500" in alert.computation and rule_fact_row.id in alert.fact_ids
    # Next month the window moves on and the alert resolves.
    later = evaluate(mem.store, mem.home, addr, dt.date(2025, 2, 2))
    assert alert.id in {a.id for a in later.resolved}
    # The compiler turned the rule into a generated function in constraints.py.
    constraints = mem.checkpoint("maya").package.constraints
    [(name, function)] = constraints.RULES.items()
    assert name == alert.check and function.__name__ == alert.check.removeprefix("rule:")
    source = (mem.checkpoint("maya").directory / "constraints.py").read_text()
    assert f"def {function.__name__}(user: User, today: datetime.date)" in source
    assert "dining over 500" in mem.manifest("maya")  # agents see the user's rules
    # Forgetting the rule removes it: the next checkpoint has no rule and nothing fires.
    evaluate(mem.store, mem.home, addr, TODAY)
    mem.forget("maya", rule_fact_row.id, now=T)
    mem.compile("maya")
    assert mem.checkpoint("maya").package.constraints.RULES == {}
    assert alert.id in {a.id for a in evaluate(mem.store, mem.home, addr, TODAY).resolved}


def test_reminder_and_forbid_rules(mem: Memory) -> None:
    addr = mem.address("maya")
    passport_trip(mem, expiry="2025-01-30")
    add_rule(
        mem.store, addr, {"type": "reminder", "path": "passport.expiry_date", "days_before": 30}, T
    )
    add_rule(
        mem.store,
        addr,
        {"type": "forbid", "collection": "trips", "field": "country", "value": "th"},
        T,
    )
    mem.compile("maya")
    rules = [
        a for a in evaluate(mem.store, mem.home, addr, TODAY).new if a.check.startswith("rule:")
    ]
    assert sorted(a.severity for a in rules) == ["critical", "warning"]
    reminder = next(a for a in rules if "Reminder" in a.message)
    assert "20 days ≤ 30" in reminder.computation
    assert evaluate(mem.store, mem.home, addr, dt.date(2024, 12, 1)).resolved  # too early


HOSTILE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=60)


@settings(
    max_examples=15,
    deadline=None,
    # fresh_log binds a new log per example's home: nothing of it carries between examples
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(name=HOSTILE, value=HOSTILE)
@example(name="0", value="\x00")  # NUL in the value (refused)
@example(name="a\x00b", value="Rome")  # NUL only in the rule's name
def test_rule_text_is_data_never_code(tmp_path_factory, fresh_log, name: str, value: str) -> None:
    # Whatever a user writes as a rule's name or compared value becomes a literal in the
    # generated module: the compile succeeds and the alert quotes the text unchanged.
    home = tmp_path_factory.mktemp("hostile") / "ws"
    # each example its own log (on PostgreSQL a database of its own): an example drawn or
    # replayed twice would otherwise find its alert raised already, by its earlier run
    with fresh_log(home), Memory(new_workspace(home), create=True, react=False) as mem:
        if not value.strip():
            value = "x" + value
        trip = {"country": "TH", "city": value, "depart": "2025-02-20"}
        rule = {"type": "forbid", "collection": "trips", "field": "city", "value": value}
        # uac stores no U+0000 (PostgreSQL text cannot): on every backend a write whose text
        # holds one is refused whole, with the reason, and leaves nothing behind.
        for write in (
            lambda: mem.import_records("maya", "trips", [trip], now=T),
            lambda: mem.add_rule("maya", {**rule, "name": name}, now=T),
        ):
            before = mem.facts("maya")
            try:
                write()
            except InputError as exc:
                assert "\x00" in name + value and "NUL character" in str(exc), exc
                assert mem.facts("maya") == before
                return
        assert "\x00" not in name + value, "a NUL character was stored"
        [res] = mem.compile("maya")
        assert res.status == "published", res.error
        new = evaluate(mem.store, mem.home, mem.address("maya"), TODAY).new
        # No nationality is recorded: visa_for_trip asks for it; the rule's alert is the other.
        [alert] = [a for a in new if a.check.startswith("rule:")]
        assert f"Your rule '{name}' forbids trips with city = {value}, " in alert.message


def test_rule_facts_that_no_longer_fit_are_reported_not_compiled(mem: Memory) -> None:
    addr = mem.address("maya")
    passport_trip(mem)
    # Written around the API (no validation on the way in): the compiler validates again.
    bad = {"type": "forbid", "collection": "trips", "field": "planet", "value": "Mars"}
    hostile = {"type": "exec", "code": "__import__('os').system('true')"}
    batch = Batch(addr, T, "test")
    for value in (bad, hostile):
        batch.facts.append(
            NewFact(op="assert", kind=RULE_KIND, path=RULE_PATH, value=value, record_key="r")
        )
    ids = [f.id for f in mem.store.append(batch)]
    [res] = mem.compile("maya")
    assert res.status == "published"
    checkpoint = mem.checkpoint("maya")
    assert checkpoint.package.constraints.RULES == {}
    found = {
        d["fact"]: d["error"]
        for d in checkpoint.diagnostics["diagnostics"]
        if d["kind"] == "invalid_rule"
    }
    assert set(found) == set(ids) and "planet" in found[ids[0]]
    assert mem.statuses("maya")[ids[0]]["status"] == "observed"


def test_the_same_rule_twice_is_one_function_reinforced(mem: Memory) -> None:
    passport_trip(mem)
    rule = {"type": "forbid", "collection": "trips", "field": "country", "value": "TH"}
    first = mem.add_rule("maya", rule, now=T)
    second = mem.add_rule("maya", rule, now=T)
    mem.compile("maya")
    assert len(mem.checkpoint("maya").package.constraints.RULES) == 1
    statuses = mem.statuses("maya")
    assert (statuses[first]["decision"], statuses[second]["decision"]) == ("add", "reinforce")
    new = evaluate(mem.store, mem.home, mem.address("maya"), TODAY).new
    [alert] = [a for a in new if a.check.startswith("rule:")]
    assert {first, second} <= set(alert.fact_ids)


# -- scheduler -----------------------------------------------------------------------------


def test_run_once_compiles_changed_isolates_failures_and_logs_a_job(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:  # the scheduled run compiles
        passport_trip(mem, "maya")
        mem.import_records("bad", "medications", [{"name": "warfarin"}], now=T)
        rule = {"type": "forbid", "collection": "trips", "field": "country", "value": "TH"}
        add_rule(mem.store, mem.address("maya"), rule, T)
        mem.import_records("bob", "medications", [{"name": "warfarin"}, {"name": "aspirin"}], now=T)

        def compile_fn(addr: Address):
            if addr.subject == "bad":
                raise RuntimeError("boom")
            return mem.compile(str(addr))

        job = run_once(home, "default", TODAY, compile_fn, store=mem.store)
        assert job.compiled == 2  # bob, and maya (her rule is a new fact)
        maya_checks = {a.check for a in list_alerts(mem.store, mem.address("maya"))}
        assert any(c.startswith("rule:") for c in maya_checks)
        assert job.subjects == 3 and job.alerts_new >= 3
        assert "boom" in job.errors["user:bad"]
        again = run_once(home, "default", TODAY, compile_fn, store=mem.store)
        assert again.alerts_new == 0 and again.alerts_open == job.alerts_open
        rows = jobs(mem.store, "default")
        assert [r["id"] for r in rows] == [again.id, job.id]
        assert rows[1]["errors"] == len(job.errors) and rows[1]["duration_ms"] > 0
        assert "boom" in rows[1]["detail"]


def test_a_pass_skips_subjects_whose_evaluation_would_change_nothing(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uac.checks.scheduler as scheduler

    evaluated: list[str] = []
    real = scheduler.evaluate_many

    def counting(store, home, addresses, today, **kwargs):  # the real evaluation, counted
        evaluated.extend(addr.subject for addr in addresses)
        return real(store, home, addresses, today, **kwargs)

    monkeypatch.setattr(scheduler, "evaluate_many", counting)
    with Memory(home, create=True, react=False) as mem:
        passport_trip(mem, "maya")
        passport_trip(mem, "ana", expiry="2031-01-01")

        def compile_fn(addr: Address):
            return mem.compile(str(addr))

        def run(day: dt.date = TODAY):
            evaluated.clear()
            return run_once(home, "default", day, compile_fn, store=mem.store)

        first = run()
        assert sorted(evaluated) == ["ana", "maya"] and first.alerts_new >= 1
        again = run()  # same day, same checkpoints, same alert rows: nothing to do
        assert evaluated == [] and again.alerts_open == first.alerts_open
        assert again.alerts_new == again.alerts_resolved == 0 and not again.errors
        alert = list_alerts(mem.store, mem.address("maya"))[0]
        acknowledge(mem.store, mem.address("maya"), alert.id, TODAY)  # the rows moved
        assert run().alerts_open == first.alerts_open and evaluated == ["maya"]
        assert run() and evaluated == []
        tomorrow = TODAY + dt.timedelta(days=1)
        snooze(mem.store, mem.address("maya"), alert.id, tomorrow, TODAY)
        run()
        assert evaluated == ["maya"] and run() and evaluated == []
        run(tomorrow)  # a new day: everyone again, and the snooze ends
        assert sorted(evaluated) == ["ana", "maya"]
        assert get_alert(mem.store, alert.address, alert.id).status == "open"
        mem.set("ana", "identity.passport.expiry_date", "2025-02-01", now=T)  # a new version
        assert run(tomorrow).compiled == 1 and evaluated == ["ana"]


@NO_LOG
def test_cron_schedule_runs_at_matching_times_in_utc() -> None:
    hourly = parse_cron("0 * * * *")
    at = dt.datetime(2026, 11, 29, 10, 17, 5, tzinfo=dt.UTC)
    assert hourly.next_run(None, at) == dt.datetime(2026, 11, 29, 11, 0, tzinfo=dt.UTC)
    # Missed times are skipped, not caught up: the next run is after now, not after the last.
    late = dt.datetime(2026, 11, 29, 14, 30, tzinfo=dt.UTC)
    assert hourly.next_run(at, late) == dt.datetime(2026, 11, 29, 15, 0, tzinfo=dt.UTC)
    daily = parse_cron("30 6 * * 1")  # Mondays 06:30
    assert daily.next_run(None, at) == dt.datetime(2026, 11, 30, 6, 30, tzinfo=dt.UTC)
    for bad in ("", "61 * * * *", "every hour", "* * *"):
        with pytest.raises(InputError, match="invalid cron expression"):
            parse_cron(bad)


@NO_LOG
def test_serve_on_a_cron_schedule_waits_for_the_match(tmp_path: Path) -> None:
    # Six fields: seconds last; every second. The first pass waits for the next second.
    days: list[dt.date] = []
    started = time.monotonic()
    runs = serve(tmp_path, parse_cron("* * * * * *"), days.append, max_runs=2)
    assert runs == 2 and len(days) == 2 and time.monotonic() - started >= 1.0
    assert not (tmp_path / LOCK_FILE).exists()


@NO_LOG
def test_parse_every() -> None:
    assert parse_every("10m") == 600 and parse_every("45") == 45 and parse_every("2h") == 7200
    for bad in ("*/5 * * * *", "0m", "ten"):
        with pytest.raises(InputError):
            parse_every(bad)


def test_serve_lock_and_stop(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    home.mkdir()
    ticks: list[dt.date] = []
    stop = threading.Event()
    thread = threading.Thread(
        target=serve, args=(home, 0.01, ticks.append), kwargs={"stop": stop}, daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 60  # a bound for a stuck loop, not a timing: 2 ticks of 0.01 s
    while len(ticks) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()
    thread.join(60)  # a bound for a stuck loop; the loop ends at its next 0.01 s tick
    assert len(ticks) >= 2 and not (home / LOCK_FILE).exists()
    # A lock held by another live process refuses; a stale one (dead pid) is taken over.
    (home / LOCK_FILE).write_text("1\n")
    with pytest.raises(SchedulerBusy, match=r"already running .* \(pid 1\)"):
        acquire_lock(home)
    (home / LOCK_FILE).write_text("999999999\n")
    lock = acquire_lock(home)
    assert lock.read_text().strip() == str(os.getpid())
    release_lock(lock)


_SERVE = """
import sys, datetime as dt
from pathlib import Path
from uac.checks.scheduler import SchedulerBusy, serve
try:
    serve(Path(sys.argv[1]), 0.05, lambda today: None, log=lambda m: print(m, flush=True))
except SchedulerBusy as exc:
    print(exc, file=sys.stderr)
    sys.exit(3)
print("stopped cleanly", flush=True)
"""


def test_second_scheduler_exits_and_sigterm_stops_cleanly(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    home.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen(
        [sys.executable, "-c", _SERVE, str(home)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert first.stdout is not None
        assert first.stdout.readline().startswith("scheduler started: every 0.05 s")
        assert first.stdout.readline().startswith("run 1")  # holds the lock now
        second = subprocess.run(
            [sys.executable, "-c", _SERVE, str(home)], capture_output=True, text=True, env=env
        )
        assert second.returncode == 3
        assert f"already running for workspace {home} (pid {first.pid})" in second.stderr
        first.send_signal(signal.SIGTERM)
        out, _ = first.communicate(timeout=120)  # a bound for a stuck process, not a timing
        assert first.returncode == 0 and "stopped cleanly" in out
        assert not (home / LOCK_FILE).exists()
    finally:
        if first.poll() is None:
            first.kill()
