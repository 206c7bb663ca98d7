"""Checks: weekday series, vehicle inspections, condition families, visa names,
accounts known by a shorter name."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.test_check_scenarios import D, T, account, event, med, pay, rec, run, user

pytestmark = [
    pytest.mark.usefixtures("backend"),
    pytest.mark.no_workspace("checks over typed state in memory: no log"),
]


def test_a_weekdays_series_meets_weekday_events_and_never_a_weekend_one() -> None:
    standup = event("School run", T(2025, 3, 3, 8), repeats="weekdays")  # a Monday
    saturday = event("Parkrun", T(2025, 3, 8, 8, 15))
    assert run("recurring_event_collision", user(events=[standup, saturday]), D(2025, 3, 1)) == []
    daily = event("School run", T(2025, 3, 3, 8), repeats="daily")  # daily does meet it
    [d] = run("recurring_event_collision", user(events=[daily, saturday]), D(2025, 3, 1))
    assert "2025-03-08" in d.message
    wednesday = event("Dentist", T(2025, 3, 5, 8, 15))
    [w] = run("recurring_event_collision", user(events=[standup, wednesday]), D(2025, 3, 1))
    assert "2025-03-05" in w.message and "Monday to Friday at 08:00" in w.message


def test_a_weekdays_series_ends_on_its_last_day() -> None:
    series = event("Site visit", T(2025, 3, 3, 9), repeats="weekdays", repeat_until=D(2025, 3, 7))
    later = event("Client call", T(2025, 3, 10, 9))  # the Monday after the series ended
    assert run("recurring_event_collision", user(events=[series, later]), D(2025, 3, 1)) == []


def test_a_vehicle_inspection_due_soon_or_overdue_alerts_and_a_distant_one_does_not() -> None:
    soon = rec("VW|Golf|2019", make="VW", model="Golf", inspection_due=D(2025, 3, 20))
    [a] = run("service_due", user(vehicles=[soon]), D(2025, 3, 1))
    assert a.message == "The VW Golf inspection is due on 2025-03-20."
    assert a.record_keys == ("VW|Golf|2019", "inspection_due") and "testing station" in a.next_step
    late = rec("Ford|Fiesta|2015", make="Ford", model="Fiesta", inspection_due=D(2025, 2, 1))
    [b] = run("service_due", user(vehicles=[late]), D(2025, 3, 1))
    assert "overdue since 2025-02-01" in b.message
    far = rec("VW|Golf|2019", make="VW", model="Golf", inspection_due=D(2025, 9, 1))
    assert run("service_due", user(vehicles=[far]), D(2025, 3, 1)) == []


@pytest.mark.parametrize(
    ("condition", "alerts"),
    [
        ("Atrial fibrillation", True),  # a heart condition that never says "heart"
        ("AF", True),
        ("emphysema", True),  # a COPD
        ("heart murmur", True),  # the family's own word, as before
        ("hay fever", False),
        ("Afghan hound allergy", False),  # "af" is a whole word only
    ],
)
def test_a_condition_is_known_by_the_names_of_its_family(condition: str, alerts: bool) -> None:
    trek = rec(
        "k", title="Kilimanjaro trek", start=T(2025, 7, 12, 9), end=None, location="Tanzania"
    )
    found = run(
        "activity_vs_condition",
        user(events=[trek], conditions=[rec("c", name=condition, status="active")]),
    )
    assert bool(found) is alerts
    assert all(condition in a.message for a in found)


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("H-1B", "H-1B visa for the United States"),
        ("tourist", "tourist visa for the United States"),
        ("Work visa", "Work visa for the United States"),
        ("ESTA", "ESTA for the United States"),
        (None, "visa for the United States"),
    ],
)
def test_an_expiring_visa_is_called_a_visa_whatever_its_kind(kind: str | None, said: str) -> None:
    visa = rec("US", country="US", kind=kind, valid_until=D(2025, 3, 20))
    [a] = run("document_expiry", user(visas=[visa]), D(2025, 3, 1))
    assert said in a.message


@pytest.mark.parametrize(
    ("paid_from", "alerts"),
    [
        ("Nationwide account", True),  # a shorter name of the closing account
        ("my Nationwide", True),
        ("Nationwide current account", True),
        ("Nationwide savings account", False),  # another account of the same bank
        ("Halifax account", False),
    ],
)
def test_an_account_is_known_by_a_shorter_name(paid_from: str, alerts: bool) -> None:
    closing = account("Nationwide current account", closing_on=D(2025, 3, 20))
    gym = pay("gym", paid_from, "45", method="direct_debit", day_of_month=1)
    found = run(
        "autopay_from_closing_account", user(bank_accounts=[closing], scheduled_payments=[gym])
    )
    assert bool(found) is alerts
    card = account("Amex card", per_transaction_limit=Decimal(1000))
    deposit = pay("car dealer", "Amex", "1450", next_date=D(2025, 3, 11))
    assert len(run("card_limit", user(bank_accounts=[card], scheduled_payments=[deposit]))) == 1


def test_a_pregnancy_is_current_until_two_weeks_past_its_due_date() -> None:
    state = rec("p", name="pregnancy", status="active", expected_end=D(2025, 7, 27))
    u = user(medications=[med("ibuprofen")], conditions=[state])
    assert len(run("pregnancy_contraindication", u, D(2025, 8, 10))) == 1  # two weeks over
    assert run("pregnancy_contraindication", u, D(2025, 8, 11)) == []  # born by now
    dive = rec("d", title="Scuba diving course", start=T(2025, 9, 1, 9), end=None, location="Dahab")
    assert (
        run("activity_vs_condition", user(events=[dive], conditions=[state]), D(2025, 8, 20)) == []
    )


@pytest.mark.parametrize("period", ["fortnightly", "every_two_months", "weekly"])
def test_a_payment_every_fortnight_or_two_months_is_recurring(period: str) -> None:
    # paid by card (neither a standing order nor a direct debit): only its period says it recurs
    closing = account("Nationwide current account", closing_on=D(2025, 3, 20))
    water = pay("water", "Nationwide", "60", method="card", period=period, next_date=D(2025, 4, 2))
    found = run(
        "autopay_from_closing_account", user(bank_accounts=[closing], scheduled_payments=[water])
    )
    assert len(found) == 1 and "water" in found[0].message
    once = pay("water", "Nationwide", "60", method="card", period="once", next_date=D(2025, 4, 2))
    assert not run(
        "autopay_from_closing_account", user(bank_accounts=[closing], scheduled_payments=[once])
    )
