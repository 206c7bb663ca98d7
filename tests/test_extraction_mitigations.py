"""Facts that make an alert moot, learned from plain conversation (issue 14/15, session 3).

A false alarm is worse than a miss: a vaccination the user mentions must silence the health
certificate check, and a repeating event the user says has ended must stop colliding. Each
test replays dated lines through `Memory.add(..., at=)` (the `uac add --at` path, rules only)
on a real DuckDB workspace and runs the checks as of the last line's day.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from uac import Memory
from uac.fact_log.extraction.patterns import extract

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("extraction of text in memory: no log")

WHO = "lee"


def tell(mem: Memory, *sessions: tuple[str, list[str]]) -> dt.date:
    """Add each dated session's lines (a minute apart); returns the last session's day."""
    day = dt.date.today()
    for n, (when, lines) in enumerate(sessions):
        start = dt.datetime.fromisoformat(when)
        day = start.date()
        for i, line in enumerate(lines):
            at = start + dt.timedelta(minutes=i)
            mem.add(WHO, line, at=at, session_id=f"s{n}", now=at)
    return day


def checks_fired(mem: Memory, day: dt.date) -> dict[str, list[Any]]:
    """{check: its alerts and questions} after running the subject's checks as of day."""
    mem.check(WHO, today=day)
    out: dict[str, list[Any]] = {}
    for alert in [*mem.alerts(WHO), *mem.questions(WHO)]:
        out.setdefault(alert.check, []).append(alert)
    return out


def found(text: str, at: str) -> list[tuple[str, Any, str]]:
    """(path, value, op) of every candidate the rules find in one message."""
    when = dt.datetime.fromisoformat(at)
    return [(c.path, c.value, c.op) for c in extract(text, when)]


# -- vaccinations -------------------------------------------------------------------------


@NO_LOG
@pytest.mark.parametrize(
    ("text", "names", "day"),
    [
        ("I had my yellow fever jab in 2019, the certificate is here.", ["yellow fever"], None),
        ("Got my hep A and typhoid shots today.", ["hepatitis a", "typhoid"], dt.date(2025, 3, 10)),
        ("I'm vaccinated against yellow fever already.", ["yellow fever"], None),
        ("I've had the flu jab and the covid booster.", ["influenza", "covid-19"], None),
        ("My yellow fever certificate is from 2018.", ["yellow fever"], None),
        ("I had my Stamaril shot on Monday.", ["yellow fever"], dt.date(2025, 3, 3)),
    ],
)  # fmt: skip
def test_vaccinations_received(text: str, names: list[str], day: dt.date | None) -> None:
    got = [(p, v) for p, v, _ in found(text, "2025-03-10T09:00")]
    want = [("health.vaccinations", {"name": n, **({"date": day} if day else {})}) for n in names]
    assert got == want


@NO_LOG
@pytest.mark.parametrize(
    "text",
    [
        "I need to get a yellow fever jab before Ghana.",
        "I haven't had the yellow fever vaccine.",
        "Have I had the typhoid shot?",
        "My wife had her yellow fever jab last week.",
        "If I had the yellow fever jab I could go.",
        "I had typhoid as a kid.",  # the disease, not a vaccine
        "I'm getting the yellow fever jab next week.",
        "I got the yellow fever shot booked for 3 April.",
    ],
)
def test_no_vaccination_from_plans_questions_others_or_illness(text: str) -> None:
    assert [p for p, _, _ in found(text, "2025-03-10T09:00") if p == "health.vaccinations"] == []


def test_a_mentioned_vaccination_silences_the_certificate_alert(mem: Memory) -> None:
    day = tell(
        mem,
        ("2025-07-01T09:00", ["I'm British."]),
        ("2025-08-01T09:00", ["Flying to Accra on 10 October for a wedding, back 24 October."]),
    )
    [question] = checks_fired(mem, day)["health_certificate"]
    # Nothing said about vaccinations at all: a question, not a warning.
    assert question.severity == "info" and question.message.startswith("To confirm:")
    assert "yellow fever" in question.message and "Ghana" in question.message
    day = tell(mem, ("2025-08-05T09:00", ["Luckily I had my yellow fever jab years ago."]))
    assert "health_certificate" not in checks_fired(mem, day)


def test_another_vaccination_does_not_stand_for_the_certificate(mem: Memory) -> None:
    day = tell(
        mem,
        ("2025-07-01T09:00", ["I'm British.", "I got my typhoid shot last month."]),
        ("2025-08-01T09:00", ["Flying to Accra on 10 October for a wedding, back 24 October."]),
    )
    [alert] = checks_fired(mem, day)["health_certificate"]
    assert alert.severity == "critical" and "yellow fever" in alert.message


# -- a repeating event that ended -------------------------------------------------------


@NO_LOG
@pytest.mark.parametrize(
    ("text", "title", "until"),
    [
        ("We stopped the Tuesday yoga.", "Yoga", dt.date(2025, 6, 19)),
        ("The book club ended in May.", "Book club", dt.date(2025, 5, 31)),
        ("I quit my Thursday piano lessons.", "Piano lessons", dt.date(2025, 6, 19)),
        ("Our weekly team call has been cancelled.", "Team call", dt.date(2025, 6, 19)),
        ("We stopped the choir on 3 June.", "Choir", dt.date(2025, 6, 3)),
        ("I dropped out of the Tuesday yoga.", "Yoga", dt.date(2025, 6, 19)),
        ("I'm not doing the Tuesday yoga anymore.", "Yoga", dt.date(2025, 6, 19)),
        ("No more yoga on Tuesdays.", "Yoga", dt.date(2025, 6, 19)),
        ("I stopped going to choir.", "Choir", dt.date(2025, 6, 19)),
        ("My last yoga class was on 10 June.", "Yoga class", dt.date(2025, 6, 10)),
        ("The last book club is on 3 July.", "Book club", dt.date(2025, 7, 3)),
        ("The Tuesday yoga class ends on 1 July.", "Yoga class", dt.date(2025, 7, 1)),
        ("The Monday stand-up is cancelled.", "Stand-up", dt.date(2025, 6, 19)),
    ],
)
def test_a_series_that_ended(text: str, title: str, until: dt.date) -> None:
    assert found(text, "2025-06-20T09:00") == [
        ("schedule.events", {"title": title, "repeat_until": until}, "end")
    ]


@NO_LOG
@pytest.mark.parametrize(
    "text",
    [
        "Did the book club end?",
        "My sister stopped her yoga class.",
        "If we stopped the yoga class I'd have Tuesdays free.",
        "I cancelled my Netflix.",  # a subscription, not a series of events
        "We never stopped the Tuesday yoga.",
        "The meeting finished early.",  # a one-off event, not a series
        "I'm not going to the meeting on Friday.",
        "I'm not doing yoga on Friday.",  # one session skipped
        "The conference ends on 5 July.",
    ],
)
def test_no_series_end_from_questions_others_hypotheticals(text: str) -> None:
    got = found(text, "2025-06-20T09:00")
    assert [v for p, v, op in got if p == "schedule.events" and op == "end"] == []


def test_an_ended_series_no_longer_collides(mem: Memory) -> None:
    day = tell(
        mem,
        ("2025-02-20T09:00", ["I have yoga class every Tuesday at 6pm."]),
        ("2025-02-25T09:00", ["New weekly team call every Tuesday at 6pm starting 4 March."]),
    )
    [clash] = checks_fired(mem, day)["recurring_event_collision"]
    assert "Yoga class" in clash.message and "conflict" in clash.message.lower()
    day = tell(mem, ("2025-02-27T09:00", ["We stopped the Tuesday yoga, the teacher moved away."]))
    assert "recurring_event_collision" not in checks_fired(mem, day)
    (yoga,) = [e for e in mem.checkpoint(WHO).user.events if e.title == "Yoga class"]
    assert yoga.repeats == "weekly" and yoga.repeat_until == dt.date(2025, 2, 26)
