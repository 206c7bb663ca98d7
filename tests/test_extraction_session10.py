"""Session 10 (h17f): false facts and misreadings a hostile review left open, each with the
reading that must stay: another person's list, a negated reminder, a vehicle parted with, a
statement asked with a question mark, year-first dates, a "since" correction, a famous
person's birthday, a bare amount correcting the one just said."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.candidates import D, found, of

# -- a list under a heading that names another person is theirs ----------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Mum's direct debits:\nCouncil tax £150 on the 1st\nWater £40 on the 15th",
        "Mum's direct debits:\n- Council tax £150 on the 1st\n- Water £40 on the 15th",
        "Mum's direct debits: council tax £150 on the 1st, water £40 on the 15th.",
        "My sister's subscriptions:\nNetflix £15 a month\nSpotify £10 a month",
        "Dad's meds:\n- metformin 500mg twice a day\n- ramipril 5mg",
        "my parents' bills:\n- Netflix £15 a month",
        "Tom's standing orders:\n- £200 to the landlord on the 1st",
    ],
)
def test_a_list_under_another_persons_heading_is_not_the_users(text: str) -> None:
    assert found(text) == []


def test_the_users_own_list_after_anothers_is_still_read() -> None:
    text = "Dad's meds:\n- metformin 500mg twice a day\nMy meds:\n- aspirin 75mg daily"
    assert [m["name"] for m in of("health.medications", found(text))] == ["aspirin"]
    text = "Mum's direct debits:\n- Council tax £150 on the 1st\n\nMy Netflix is £15 a month"
    [sub] = of("finance.subscriptions", found(text))
    assert (sub["name"], sub["amount"]) == ("Netflix", Decimal("15"))
    assert of("health.medications", found("My meds:\n- metformin 500mg twice a day")) != []
    # an occasion of theirs is no list of theirs: what the user does for it is the user's
    assert of("schedule.events", found("Mum's birthday:\n- book dinner for Friday")) != []


def test_a_heading_is_no_payee() -> None:
    text = "My direct debits:\nCouncil tax £150 on the 1st"
    assert [v["payee"] for v in of("finance.scheduled_payments", found(text))] == []
    [dd] = of("finance.scheduled_payments", found("the gym direct debit is £32 on the 5th"))
    assert dd["payee"] == "gym"


# -- a negated reminder is no task ----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "remind me not to call my ex",
        "Remind me not to book anything on the 5th",
        "remind me never to fly Ryanair again",
        "remind me to not call my ex",
        "Remind me tomorrow not to eat cake",
    ],
)
def test_a_reminder_not_to_do_something_is_no_task(text: str) -> None:
    assert of("tasks.tasks", found(text)) == []


def test_a_reminder_to_do_something_is_a_task() -> None:
    assert of("tasks.tasks", found("remind me to call my ex")) == [
        {"goal": "Call my ex", "status": "planned"}
    ]
    [task] = of("tasks.tasks", found("Remind me to call Dad on Friday, not Saturday"))
    assert task["goal"] == "Call Dad" and task["due_date"] == D(2025, 6, 6)


# -- a vehicle sold, given away or scrapped is no vehicle the user owns ----------------------


@pytest.mark.parametrize(
    "text",
    [
        "I sold my Golf for £8,000",
        "I sold my VW Golf last week",
        "I gave away my Corolla to my nephew",
        "I gave my Corolla to my nephew",
        "My old Fiesta got scrapped",
        "my VW Golf was written off in the crash",
        "Traded in my 2015 Ford Focus for a Kia Niro",
        "My VW Golf was sold yesterday",
        "I got rid of the Corolla",
    ],
)
def test_a_vehicle_parted_with_is_not_owned(text: str) -> None:
    assert of("vehicles.vehicles", found(text)) == []


def test_a_vehicle_kept_or_bought_beside_one_sold_is_owned() -> None:
    [niro] = of("vehicles.vehicles", found("Sold my Golf, now I drive a 2022 Kia Niro"))
    assert (niro["model"], niro["year"]) == ("Niro", 2022)
    [golf] = of("vehicles.vehicles", found("My Golf is on 84,000 km"))
    assert golf["mileage"] == 84000
    assert of("vehicles.vehicles", found("my Corolla is for sale")) != []


# -- a statement asked with a question mark asserts nothing ---------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I pay £15 a month for Netflix? Is that normal?",
        "Is my Netflix £15 a month?",
        "Netflix £15 a month?",
        "the gym direct debit is £32 on the 5th?",
        "My dentist appointment is on Friday at 3?",
    ],
)
def test_a_statement_asked_with_a_question_mark_asserts_nothing(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I pay £15 a month for Netflix",
        "My Netflix is £15 a month, is that normal?",  # the question is the second clause
        "Netflix is £15 a month now?! when did that happen",  # surprise at a fact
    ],
)
def test_a_statement_with_a_question_after_it_or_surprise_still_asserts(text: str) -> None:
    [sub] = of("finance.subscriptions", found(text))
    assert (sub["name"], sub["amount"]) == ("Netflix", Decimal("15"))
