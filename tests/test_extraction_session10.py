"""Session 10 (h17f): false facts and misreadings a hostile review left open, each with the
reading that must stay: another person's list, a negated reminder, a vehicle parted with, a
statement asked with a question mark, year-first dates, a "since" correction, a famous
person's birthday, a bare amount correcting the one just said."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.candidates import D, T, found, of
from uac.fact_log.extraction.patterns.dates import find_dates

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
        "Mum's direct debits (from her Barclays):\n- Council tax £150 on the 1st",
        "My mum's meds:\n- metformin 500mg twice a day",
        "MUM'S DDs are:\n- council tax £150 on the 1st\n- Netflix £15 a month",
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
        "Don't remind me to call my ex",
        "no need to remind me to call Tom on Friday",
    ],
)
def test_a_reminder_not_to_do_something_is_no_task(text: str) -> None:
    assert of("tasks.tasks", found(text)) == []


def test_a_reminder_to_do_something_is_a_task() -> None:
    assert of("tasks.tasks", found("remind me to call my ex")) == [
        {"goal": "Call my ex", "status": "planned"}
    ]
    [task] = of("tasks.tasks", found("I don't know, remind me to call Dad on Friday"))
    assert task["goal"] == "Call Dad" and task["due_date"] == D(2025, 6, 6)
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


# -- a question's form asks; a statement's word order with "?" states a surprise ----------


@pytest.mark.parametrize(
    "text",
    [
        "Is my Netflix £15 a month?",
        "Do I pay £15 a month for Netflix?",
        "Is the gym direct debit £32 on the 5th?",
    ],
)
def test_a_question_asserts_nothing(text: str) -> None:
    assert found(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I pay £15 a month for Netflix",
        "I pay £15 a month for Netflix? Is that normal?",  # the user does pay it
        "My Netflix is £15 a month, is that normal?",  # the question is the second clause
        "Netflix is £15 a month now?! when did that happen",  # surprise at a fact
    ],
)
def test_a_statement_with_a_question_after_it_or_surprise_still_asserts(text: str) -> None:
    [sub] = of("finance.subscriptions", found(text))
    assert (sub["name"], sub["amount"]) == ("Netflix", Decimal("15"))


def test_a_surprise_reported_with_a_question_mark_is_a_payment() -> None:
    text = "Hmm, my banking app says I paid £89 at Currys again today?"
    [paid] = of("finance.transactions", found(text))
    assert paid["amount"] == Decimal("89")


# -- a year said first with the month named keeps its year ----------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "My passport is valid till 2031 August 30",
        "My passport expires 2031 Aug 30",
        "My passport expires 2031-Aug-30",
        "My passport expires 2031, August 30",
    ],
)
def test_a_year_first_date_with_a_month_name_keeps_its_year(text: str) -> None:
    assert of("identity.passport.expiry_date", found(text)) == [D(2031, 8, 30)]


def test_a_year_first_date_that_does_not_exist_is_no_date() -> None:
    assert of("identity.passport.expiry_date", found("My passport expires 2031 Feb 30")) == []
    # an amount before a month is no year: "£2031 Aug 30" is the next 30 August
    [day] = find_dates("paid £2031 Aug 30", D(2025, 6, 1))
    assert (day.text, day.date) == ("Aug 30", D(2025, 8, 30))
    [day] = find_dates("paid 2031 Aug 30", D(2025, 6, 1))
    assert (day.text, day.date) == ("2031 Aug 30", D(2031, 8, 30))


# -- a "since" correction is of a day gone by, and replaces the trip ------------------------

AT_WED = T(2026, 12, 2, 9)  # a Wednesday


def test_a_since_correction_reads_the_day_gone_by() -> None:
    [trip] = of(
        "travel.trips", found("no, since Monday", "I'm in Lisbon since yesterday.", at=AT_WED)
    )
    assert (trip["city"], trip["depart"]) == ("Lisbon", D(2026, 11, 30))
    # a correction of a trip begun already: its new start is past too
    [trip] = of("travel.trips", found("sorry, Monday", "I'm in Lisbon since yesterday.", at=AT_WED))
    assert trip["depart"] == D(2026, 11, 30)


def test_a_correction_in_the_same_message_replaces_what_it_corrects() -> None:
    [trip] = of(
        "travel.trips", found("I'm in Lisbon since yesterday. No, since Monday.", at=AT_WED)
    )
    assert trip["depart"] == D(2026, 11, 30)
    [trip] = of("travel.trips", found("Flying to Rome on the 3rd. Sorry, the 4th.", at=AT_WED))
    assert trip["depart"] == D(2026, 12, 4)
    [event] = of(
        "schedule.events", found("Dentist on Friday at 3. Actually make that Thursday.", at=AT_WED)
    )
    assert event["start"] == T(2026, 12, 3, 15)


def test_a_correction_of_a_trip_ahead_still_reads_forward() -> None:
    [trip] = of("travel.trips", found("Actually the 10th", "Flying to Rome on the 5th.", at=AT_WED))
    assert trip["depart"] == D(2026, 12, 10)
    [trip] = of(
        "travel.trips", found("sorry, back on Monday", "I'm in Lisbon since yesterday.", at=AT_WED)
    )
    assert (trip["depart"], trip["return_date"]) == (D(2026, 12, 1), D(2026, 12, 7))


# -- a birthday makes a contact only of someone the user knows ------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Shakespeare's birthday is 23 April",
        "Shakespeare's birthday is 23 April, he was born in 1564",
        "Son Heung-min's 30th: 8 July",
        "Anna's birthday is 23 April",  # no one the user is said to know, yet
    ],
)
def test_a_birthday_of_no_one_the_user_knows_is_no_contact(text: str) -> None:
    assert of("contacts.contacts", found(text)) == []


def test_a_birthday_of_someone_the_user_knows_is_a_contact() -> None:
    [anna] = of("contacts.contacts", found("My friend Anna's birthday is 23 April"))
    assert (anna["relationship"], anna["birthday"]) == ("friend", D(2025, 4, 23))
    [lou] = of(
        "contacts.contacts",
        found(
            "Lou's birthday is the 9th of march btw, she was born in 1991",
            "my friend Lou says he's pricey but worth it",
        ),
    )
    assert (lou["name"], lou["birthday"]) == ("Lou", D(1991, 3, 9))
    [ros] = of("contacts.contacts", found("Sister Rosalind's 50th: 17 June"))
    assert (ros["relationship"], ros["birthday"]) == ("sister", D(1975, 6, 17))
    assert of("contacts.contacts", found("Einstein's birthday is 14 March", "my friend Lou")) == []


# -- a bare number correcting the amount just told ------------------------------------------


@pytest.mark.parametrize("fix", ["actually 950", "sorry, 950", "Sorry 950.", "no, 950 a month"])
def test_a_bare_number_alone_corrects_an_amount_of_its_size(fix: str) -> None:
    [dd] = of("finance.scheduled_payments", found(fix, "rent is £900 a month by standing order"))
    assert (dd["payee"], dd["amount"]) == ("rent", Decimal("950"))
    [sub] = of("finance.subscriptions", found("actually 14", "My Netflix is £12.99 a month"))
    assert sub["amount"] == Decimal("14")


@pytest.mark.parametrize(
    "fix",
    [
        "sorry 2 secs",
        "wait 5 min",
        "no 3 kids",
        "no, 3",  # not an amount of the size of £900
        "actually 9500",
        "actually 950 but I might move",
        "no 1 priority is the gym",
        "sorry 2 a week",
    ],
)
def test_a_number_with_words_after_it_or_of_another_size_corrects_nothing(fix: str) -> None:
    assert found(fix, "rent is £900 a month by standing order") == []


@pytest.mark.parametrize(
    "text",
    ["My Netflix is £15 a month. Sorry, £16.", "My Netflix is £15 a month. actually 16"],
)
def test_an_amount_corrected_in_the_same_message_is_one_record(text: str) -> None:
    assert [s["amount"] for s in of("finance.subscriptions", found(text))] == [Decimal("16")]
    text = "Rent is £900 a month by standing order. sorry 950 not 900"
    assert [p["amount"] for p in of("finance.scheduled_payments", found(text))] == [Decimal("950")]
