"""Checks: cases a check once missed (the same thing learned twice, edges of each rule),
each a scenario over typed state."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.test_check_scenarios import D, T, event, rec, run, user

pytestmark = [
    pytest.mark.usefixtures("backend"),
    pytest.mark.no_workspace("checks over typed state in memory: no log"),
]


def test_a_series_stored_with_its_last_day_as_end_does_not_span_the_weeks_between() -> None:
    # A repeating event recorded with `end` on the series' last day (older extractions did
    # this) lasts one occurrence each week, not from its first day to its last.
    pottery = event(
        "Pottery",
        T(2025, 3, 5, 19),
        end=T(2025, 3, 26, 23, 59),
        repeats="weekly",
        repeat_until=D(2025, 3, 26),
    )
    later = event("Team sync", T(2025, 4, 2, 19), repeats="weekly")
    assert run("recurring_event_collision", user(events=[pottery, later]), D(2025, 3, 1)) == []
    dinner = event("Dinner with Ana", T(2025, 3, 13, 19))  # a Thursday: no pottery that day
    assert run("recurring_event_collision", user(events=[pottery, dinner]), D(2025, 3, 1)) == []
    clash = event("Team sync", T(2025, 3, 12, 19), repeats="weekly")
    [a] = run("recurring_event_collision", user(events=[pottery, clash]), D(2025, 3, 1))
    assert "2025-03-12" in a.message and "Conflict" in a.message


def test_a_one_off_event_with_a_multi_day_end_is_still_one_block() -> None:
    # a one-off event keeps its stated end (a weekend retreat), only a series is capped
    retreat = event("Retreat", T(2025, 3, 7, 18), end=T(2025, 3, 9, 16))
    class_ = event("Spin class", T(2025, 3, 8, 10), repeats="weekly")
    [a] = run("recurring_event_collision", user(events=[retreat, class_]), dt.date(2025, 3, 1))
    assert "'Retreat'" in a.message


# -- the same thing learned twice is one thing, not a conflict -------------------------------


def test_one_series_learned_twice_under_two_titles_does_not_collide_with_itself() -> None:
    a = event("Team call", T(2025, 3, 4, 18), repeats="weekly")
    b = event("Weekly team call", T(2025, 3, 4, 18), repeats="weekly")
    assert run("recurring_event_collision", user(events=[a, b])) == []
    kid = event("Mia ballet class", T(2025, 3, 8, 10), repeats="weekly")
    same = event("Ballet class", T(2025, 3, 8, 10), repeats="weekly")
    other = event("Chess club", T(2025, 3, 8, 10, 30), repeats="weekly")
    [c] = run("recurring_event_collision", user(events=[kid, same, other]))
    assert "'Chess club'" in c.message  # one alert for the real clash, not three


def test_one_appointment_learned_twice_does_not_overlap_itself() -> None:
    a = event("Dentist", T(2025, 3, 10, 9, 30))
    b = event("Dentist appointment", T(2025, 3, 10, 9, 30), end=T(2025, 3, 10, 10, 15))
    assert run("event_overlap", user(events=[a, b])) == []
    c = event("Dentist appointment", T(2025, 3, 10, 10))  # another time: a real overlap
    [alert] = run("event_overlap", user(events=[a, c]))
    assert "Conflict" in alert.message


def pay(payee: str, account: str, method: str = "direct_debit", amount: str = "120"):
    from decimal import Decimal

    return rec(
        f"{payee}|{method}|{account}",
        payee=payee,
        account=account,
        method=method,
        amount=Decimal(amount),
        currency="GBP",
        period="monthly",
        next_date=None,
        ends_on=None,
    )


def test_one_payment_instruction_said_twice_is_not_two() -> None:
    a = pay("Water bill", "Halifax account")
    b = pay("water bill", "Halifax")  # the same direct debit, named a little differently
    assert run("conflicting_payment_instructions", user(scheduled_payments=[a, b])) == []
    c = pay("water bill", "Monzo account", method="standing_order")
    [alert] = run("conflicting_payment_instructions", user(scheduled_payments=[a, b, c]))
    assert "Conflict" in alert.message and "Monzo" in alert.message
