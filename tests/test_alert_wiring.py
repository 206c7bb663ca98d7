"""Alerts wired into Memory writes and the CLI (the checks themselves: test_checks*.py)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import T0, append_to_state

from uac import Memory
from uac.checks import CallbackSink
from uac.fact_log.errors import NotFound, UacError
from uac.runtime.api import verbs
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

TRIP = {"city": "Bangkok", "country": "TH", "depart": "2025-03-01", "return_date": "2025-03-10"}


def test_writes_react_and_deliver_to_sinks(home: Path) -> None:
    delivered: list[str] = []
    sink = CallbackSink(lambda alerts: delivered.extend(a.check for a in alerts))
    with Memory(home, create=True, react=True, sinks=[sink]) as mem:
        day = dt.datetime(2025, 1, 10, 9)
        mem.set("maya", "identity.passport.issuing_country", "GB", now=day)
        mem.set("maya", "identity.passport.expiry_date", "2025-06-01", now=day)
        assert delivered == []  # 142 days of validity left: outside the 90-day window
        mem.import_records("maya", "trips", [TRIP], now=day)
        assert "passport_validity_for_trip" in delivered  # fired on the write that completed it
        (alert,) = [a for a in mem.alerts("maya") if a.check == "passport_validity_for_trip"]
        assert mem.alerts("bob") == [] and alert in mem.alerts()
        mem.acknowledge("maya", alert.id, today=day.date())
        assert mem.alerts("maya")[0].status == "acknowledged"
        with pytest.raises(NotFound):
            mem.acknowledge("bob", alert.id)
        mem.set("maya", "identity.passport.expiry_date", "2035-06-01", now=day)
        assert [a.status for a in mem.alerts("maya", include_resolved=True)] == ["resolved"]
        assert delivered.count("passport_validity_for_trip") == 1  # never twice


def test_every_api_write_reacts_by_default(home: Path) -> None:
    # No react= argument: the default Memory reacts to set, import, add, forget and rules.
    delivered: list[str] = []
    sink = CallbackSink(lambda alerts: delivered.extend(a.check for a in alerts))
    with Memory(home, create=True, sinks=[sink]) as mem:
        day = dt.datetime(2025, 1, 10, 9)
        written = mem.set("maya", "identity.passport.expiry_date", "2025-02-01", now=day)
        assert delivered == ["document_expiry"]
        assert [a.check for a in written.alerts] == ["document_expiry"]  # the write says so
        mem.import_records("maya", "allergies", [{"substance": "penicillin"}], now=day)
        learned = mem.add("maya", "I started taking amoxicillin.", at=day, now=day)
        assert learned.facts and delivered[-1] == "drug_allergy"
        assert [a.check for a in learned.alerts] == ["drug_allergy"]
        forgotten = mem.forget("maya", learned.facts[0].id, now=day)
        assert [a.check for a in forgotten.alerts_resolved] == ["drug_allergy"]
        rule = {"type": "reminder", "path": "passport.expiry_date", "days_before": 30}
        mem.add_rule("maya", rule, now=day)
        assert delivered[-1].startswith("rule:")


def test_deferred_writes_react_once_per_subject(home: Path) -> None:
    batches: list[list[str]] = []
    sink = CallbackSink(lambda alerts: batches.append(sorted(a.check for a in alerts)))
    with Memory(home, create=True, sinks=[sink]) as mem:
        day = dt.datetime(2025, 1, 10, 9)
        with mem.deferred():
            mem.set("maya", "identity.passport.expiry_date", "2025-02-01", now=day)
            mem.import_records("maya", "allergies", [{"substance": "penicillin"}], now=day)
            mem.import_records("maya", "medications", [{"name": "amoxicillin"}], now=day)
            mem.set("bob", "identity.passport.expiry_date", "2025-01-20", now=day)
            with mem.deferred():  # nested blocks react with the outermost one
                mem.set("bob", "identity.name", "Bob", now=day)
            assert batches == [] and mem.alerts() == []  # nothing yet: still inside
        # One compile + check per subject: one delivery each, with every alert in it.
        assert batches == [["document_expiry", "drug_allergy"], ["document_expiry"]]
        assert [r["status"] for r in mem.store.checkpoints(mem.address("maya"))] == ["published"]


def test_a_failed_reaction_says_the_write_was_saved(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    append_to_state(monkeypatch, "\nraise RuntimeError('broken generated code')\n")
    with Memory(home, create=True) as mem:
        with pytest.raises(UacError, match="write to maya was saved, but reacting to it failed"):
            mem.set("maya", "identity.name", "Maya", now=T0)
        assert [f.value for f in mem.facts("maya")] == ["Maya"]  # kept: no retry needed


def test_react_false_writes_raise_no_alerts(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        written = mem.set("maya", "identity.passport.expiry_date", "2020-01-01", now=T0)
        assert mem.alerts("maya") == [] and written.alerts is None  # no reaction known
        result = mem.check("maya", today=dt.date(2025, 1, 1))
        assert [a.check for a in result.new] == ["document_expiry"]


def test_alert_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "ws")
    main(["--home", home, "init"])
    jsonl = tmp_path / "alerts.jsonl"
    assert (
        main(
            [
                "--home",
                home,
                "--alerts-jsonl",
                str(jsonl),
                "set",
                "maya",
                "identity.passport.expiry_date",
                "2020-01-01",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "ALERT critical: Your passport expired on 2020-01-01." in out
    (line,) = jsonl.read_text().splitlines()
    alert_id = json.loads(line)["id"]
    assert main(["--home", home, "alerts", "--jsonl"]) == 0  # one object a line
    assert json.loads(capsys.readouterr().out)["id"] == alert_id
    assert main(["--home", home, "alerts", "--json"]) == 0  # one document: the list
    assert [a["id"] for a in json.loads(capsys.readouterr().out)] == [alert_id]
    assert main(["--home", home, "ack", alert_id]) == 0
    assert f"{alert_id}: acknowledged" in capsys.readouterr().out
    assert main(["--home", home, "snooze", alert_id, "--until", "2999-01-01"]) == 0
    assert "snoozed until 2999-01-01" in capsys.readouterr().out
    assert main(["--home", home, "snooze", "a_nope", "--until", "2999-01-01"]) == 1
    assert "has no alert 'a_nope'" in capsys.readouterr().err
    assert main(["--home", home, "check", "maya", "--today", "2019-06-01"]) == 0
    assert "1 resolved" in capsys.readouterr().out  # before it expired: no longer triggered
    rule = '{"type": "reminder", "path": "passport.expiry_date", "days_before": 30}'
    assert main(["--home", home, "rule", "maya", rule]) == 0
    assert "rule" in capsys.readouterr().out
    assert main(["--home", home, "rule", "maya", '{"type": "exec", "code": "rm -rf /"}']) == 1
    assert "uac: error:" in capsys.readouterr().err
    # Resolved as of 2019 again, then the scheduled pass on 2026-11-29 finds the expired
    # passport once more and delivers it to the configured sinks too.
    assert main(["--home", home, "check", "maya", "--today", "2019-06-01"]) == 0
    assert "1 resolved" in capsys.readouterr().out
    run_once = ["--home", home, "--alerts-jsonl", str(jsonl), "run-once", "--today", "2026-11-29"]
    assert main(run_once) == 0
    summary = capsys.readouterr().out  # a readable summary by default ...
    assert summary.startswith("pass for 2026-11-29 (tenant default): 1 subjects")
    assert ", 0 errors," in summary and ", 0 new alerts," not in summary
    delivered = [json.loads(line)["id"] for line in jsonl.read_text().splitlines()]
    assert delivered.count(alert_id) == 2
    assert main([*run_once, "--json"]) == 0
    job = json.loads(capsys.readouterr().out)  # ... and one JSON report with --json
    assert job["subjects"] == 1 and job["errors"] == {} and job["alerts_new"] == 0
    assert job["alerts_open"] >= 1  # still open, so not delivered a third time
    delivered = [json.loads(line)["id"] for line in jsonl.read_text().splitlines()]
    assert delivered.count(alert_id) == 2


def test_a_replayed_history_is_checked_as_of_each_message(home: Path) -> None:
    # Each dated message reacts as of when it was said: nothing fires "already expired"
    # on the first message, and the warning appears on the day it became due.
    with Memory(home, create=True) as mem:
        mem.add("alice", "My passport expires on 2020-03-01", at=dt.datetime(2019, 1, 1, 9))
        assert mem.alerts("alice") == []
        mem.add("alice", "I renewed my gym membership", at=dt.datetime(2020, 2, 1, 9))
        (alert,) = mem.alerts("alice")
        assert alert.first_seen == dt.date(2020, 2, 1)
        assert "in 29 days" in alert.message


def test_a_replayed_question_resolves_when_answered_and_alerts_are_actionable(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A trip with no nationality asks for it once (low severity); the answer resolves the
    # question on the day it is given and raises the visa alert, with why and a next step,
    # shown by the CLI and kept in the stored alert.
    assert main(["--home", str(home), "init"]) == 0
    args = ["--home", str(home), "add", "alice"]
    trip = "Booked flights to Delhi, leaving 20 April, back 2 May."
    assert main([*args, trip, "--at", "2025-03-01"]) == 0
    out = capsys.readouterr().out
    assert "ALERT info: To confirm: which passport will you travel on to Delhi, India?" in out
    assert "      next: Ask the user and record their nationality." in out
    assert main([*args, "Nothing new today.", "--at", "2025-03-02"]) == 0
    assert "ALERT" not in capsys.readouterr().out  # asked once, not on every message
    assert main([*args, "I'm British.", "--at", "2025-03-05"]) == 0
    out = capsys.readouterr().out
    assert "ALERT critical: Your trip to Delhi, India (2025-04-20 to 2025-05-02) needs a" in out
    assert "      next: Apply for a visa for India covering 2025-04-20 to 2025-05-02" in out
    assert "resolved: To confirm: which passport" in out
    with Memory(home) as mem:
        (alert,) = mem.alerts("alice")
        assert alert.first_seen == dt.date(2025, 3, 5)
        assert alert.as_dict()["next_step"].startswith("Apply for a visa for India")
        assert "refused" in alert.why


def test_a_replayed_alert_resolves_on_the_day_time_makes_it_moot(home: Path) -> None:
    # As of each message: the deadline alert opens within its window, and a later message
    # dated after the trip resolves the trip's alert on that day (the trip is over).
    with Memory(home, create=True) as mem:
        mem.add("bob", "I'm British.", at=dt.datetime(2025, 1, 5, 9))
        mem.add("bob", "My tax return is due on 31 January.", at=dt.datetime(2025, 1, 6, 9))
        mem.add("bob", "Booked flights to Delhi, leaving 12 March, back 26 March.",
                at=dt.datetime(2025, 1, 7, 9))  # fmt: skip
        assert [a.check for a in mem.alerts("bob")] == ["visa_for_trip"]  # not the deadline yet
        mem.add("bob", "Busy week.", at=dt.datetime(2025, 1, 26, 9))
        assert sorted(a.check for a in mem.alerts("bob")) == [
            "deadline_approaching",
            "visa_for_trip",
        ]
        mem.add("bob", "Back home and tired.", at=dt.datetime(2025, 3, 28, 9))
        resolved = {a.check: a.resolved_on for a in mem.alerts("bob", include_resolved=True)
                    if a.status == "resolved"}  # fmt: skip
        assert resolved["visa_for_trip"] == dt.date(2025, 3, 28)


def test_the_rule_verb_answers_with_the_rule_id_and_what_its_reaction_raised(
    tmp_path: Path,
) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        day = dt.datetime(2025, 1, 10, 9)
        mem.set("maya", "identity.passport.expiry_date", "2025-02-01", now=day)
        rule = {"type": "reminder", "path": "passport.expiry_date", "days_before": 30}
        out = verbs.run(mem, "rule", "maya", {"rule": rule, "now": day.isoformat()})
        (stored,) = [f for f in mem.facts("maya") if f.kind == "rule"]
        assert list(out) == ["rule_id", "alerts", "alerts_resolved", "ticket"]
        assert out["rule_id"] == stored.id and out["ticket"] is None
        assert [a["check"].split(":")[0] for a in out["alerts"]] == ["rule"]
        assert stored.id in out["alerts"][0]["fact_ids"]
