"""Session 9 review (hreview9): other people's documents, greetings, arrival times, titles and
corrections that are no facts of the user's; each with the reading that must stay."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.candidates import D, T, found, of
from uac.fact_log.extraction.patterns import extract


@pytest.mark.parametrize(
    "text",
    [
        "ETA for Rome is 6pm, I got delayed at the gate",
        "my eta for lisbon: 18:40, got the last train",
        "Canada ETA 7pm, I have the keys",
        "Tom's China visa landed! Single entry, valid 1 April to 30 April",
        "China visa sorted for my son! Single entry, valid 1 April to 30 April",
        "China visa came in. Tom's, not mine.",
    ],
)
def test_an_arrival_time_or_someone_elses_visa_is_no_visa(text: str) -> None:
    assert of("identity.visas", found(text)) == []


def test_a_travel_authorisation_is_still_a_visa() -> None:
    [uk] = of("identity.visas", found("Got my UK ETA approved, valid until 3 May 2028"))
    assert (uk["country"], uk["valid_until"]) == ("GB", D(2028, 5, 3))
    [cn] = of("identity.visas", found("China visa landed! Single entry, valid 1 April to 30 April"))
    assert cn["country"] == "CN" and cn["entries"] == "single"


@pytest.mark.parametrize(
    "text", ["US passport only? asking for my friend", "UK passport too, says my husband"]
)
def test_a_passport_asked_about_or_someone_elses_is_not_the_users(text: str) -> None:
    assert of("identity.passport.issuing_country", found(text)) == []
    assert of("identity.passport.issuing_country", found("UK passport here")) == ["GB"]


@pytest.mark.parametrize(
    ("text", "traveller"),
    [
        ("Dear Tom Baker,\nmy flight BA123 to Rome departs 3 July at 07:15, see you there!", None),
        ("Dear Valued Customer,\nYour flight BA123 to Rome departs 3 July at 07:15.", None),
        (
            "Dear CHIDIEBERE OKONKWO, your booking QX7M2L is confirmed. Flight BA123 to Rome "
            "departs 3 July at 07:15.",
            "CHIDIEBERE OKONKWO",
        ),
        ("Passenger: Anna Lopes\nFlight TP1234 Lisbon to Paris on 3 July at 07:15", "Anna Lopes"),
    ],
)
def test_a_greeting_names_the_passenger_only_as_a_confirmation_does(
    text: str, traveller: str | None
) -> None:
    legs = of("travel.bookings", found(text))
    assert legs and all(leg.get("traveller_name") == traveller for leg in legs)


def test_a_forwarded_stay_of_someone_else_is_not_the_users() -> None:
    paste = "Hotel Riu Plaza, Madrid\nCheck-in: 14 Oct 2026\nCheck-out: 17 Oct 2026"
    [stay] = of("travel.bookings", found(paste))
    assert stay["place"] == "Madrid" and stay["kind"] == "hotel"
    assert of("travel.bookings", found("Forwarding my colleague's booking:\n" + paste)) == []


@pytest.mark.parametrize(
    "text",
    [
        "Sister Act 2 is on TV tonight",
        "Uncle Sam takes half my salary",
        "Mum Jeans are back in fashion",
        "Dad Jokes Volume 2 comes out 3 May",
        "The Queen's birthday is 21 April",
        "King's birthday is a bank holiday on 2 June",
    ],
)
def test_a_title_is_no_relative(text: str) -> None:
    assert of("contacts.contacts", found(text)) == []


def test_a_relatives_note_is_still_a_contact() -> None:
    [bro] = of("contacts.contacts", found("Brother Tom: 07700 900123"))
    assert (bro["name"], bro["relationship"]) == ("Tom", "brother")


@pytest.mark.parametrize(
    "text",
    [
        "annual leave 22-26 July got rejected",
        "annual leave 22-26 July - not approved",
        "my annual leave 3 to 7 March was cancelled",
        "annual leave 22-26 July?",
        "time off 3 to 7 March would be nice",
        "PTO: 3 to 7 March for my husband",
    ],
)
def test_leave_refused_wished_or_someone_elses_is_no_away_period(text: str) -> None:
    assert of("schedule.away_periods", found(text)) == []
    [away] = of("schedule.away_periods", found("annual leave 22-26 July"))
    assert (away["start"], away["end"]) == (D(2025, 7, 22), D(2025, 7, 26))


@pytest.mark.parametrize(
    ("earlier", "text"),
    [
        ("My Netflix is £15.99 a month.", "sorry 2 secs, doorbell"),
        ("My Netflix is £15.99 a month.", "wait 10 min"),
        ("My Netflix is £15.99 a month.", "no 1 priority is the gym"),
        (
            "My rent is £900 a month, paid by standing order on the 1st.",
            "Actually 2 people live here",
        ),
    ],
)
def test_a_number_after_sorry_or_wait_corrects_no_amount(earlier: str, text: str) -> None:
    assert found(text, earlier) == []


def test_a_corrected_amount_still_replaces_the_old_one() -> None:
    [sub] = of("finance.subscriptions", found("sorry, 17.99", "My Netflix is £15.99 a month."))
    assert sub["amount"] == Decimal("17.99")
    rent = "My rent is £900 a month, paid by standing order on the 1st."
    [order] = of("finance.scheduled_payments", found("actually 950 not 900", rent))
    assert order["amount"] == Decimal("950")


@pytest.mark.parametrize(
    ("earlier", "text"),
    [
        ("Tom is flying to Rome on 3 July.", "Back on the 10th."),
        ("", "Anna flies to Paris on 3 July"),
        ("", "so Priya is going to Goa on the 12th"),
    ],
)
def test_a_named_persons_trip_is_not_the_users(earlier: str, text: str) -> None:
    assert of("travel.trips", found(text, *filter(None, [earlier]))) == []


def test_the_user_travelling_with_someone_or_a_place_as_subject_is_a_trip() -> None:
    [with_tom] = of("travel.trips", found("Tom and I are flying to Rome on 3 July."))
    assert with_tom["city"] == "Rome"
    [hanoi] = of("travel.trips", found("Vietnam is happening: Hanoi, August 1 through August 25"))
    assert (hanoi["depart"], hanoi["return_date"]) == (D(2025, 8, 1), D(2025, 8, 25))


def test_a_visa_of_the_users_said_beside_a_relatives_event_is_still_the_users() -> None:
    text = (
        "I have a Canadian visitor visa also, multiple entry, valid till 30 August 2031, from "
        "my cousin's wedding in Brampton"
    )
    [visa] = of("identity.visas", found(text))
    assert (visa["country"], visa["entries"]) == ("CA", "multiple")


def test_a_bare_appointment_is_the_one_the_caller_named() -> None:
    events = of("schedule.events", found("Physio rang, next appointment is the 12th at 6pm."))
    assert events and events[0]["title"] == "Physio"


@pytest.mark.parametrize(
    ("plan", "cancel", "name"),
    [
        ("My NOW TV Entertainment membership renews on 3 March, £9.99 a month",
         "just cancelled NOW TV", "NOW TV Entertainment"),
        ("Adobe Lightroom renews on 3 March, £9.99 a month", "cancelled Adobe this morning",
         "Adobe Lightroom"),
    ],
)  # fmt: skip
def test_a_cancellation_by_the_services_short_name_ends_the_plan_the_thread_knows(
    plan: str, cancel: str, name: str
) -> None:
    earlier = [(plan, T(2028, 2, 6, 9))]
    ended = [c.value for c in extract(cancel, T(2028, 2, 20, 9), history=earlier) if c.op == "end"]
    assert ended == [{"name": name, "cancelled_on": D(2028, 2, 20)}]


def test_a_relatives_passport_is_not_the_one_a_later_it_expires_completes() -> None:
    later = "It expires on 3 May 2027."
    assert (
        of("identity.passport.expiry_date", found(later, "My daughter needs a new passport.")) == []
    )
    mine = of("identity.passport.expiry_date", found(later, "My new passport finally arrived."))
    assert mine == [D(2027, 5, 3)]


@pytest.mark.parametrize(
    ("text", "period"),
    [
        ("The water bill is £60 every two months by direct debit from my Barclays account",
         "every_two_months"),
        ("Council tax is £95 fortnightly by direct debit from my Monzo account", "fortnightly"),
        ("The electricity bill is £90 a month by direct debit", "monthly"),
    ],
)  # fmt: skip
def test_a_bill_every_fortnight_or_two_months_keeps_its_period(text: str, period: str) -> None:
    assert [p.get("period") for p in of("finance.scheduled_payments", found(text))] == [period]


def test_the_amounts_memo_gives_every_thread_the_serial_answers() -> None:
    # money._FOUND is shared by every thread of a Memory and cleared at 512 texts: many threads
    # over more texts than it holds must each get exactly what one thread alone gets
    from concurrent.futures import ThreadPoolExecutor

    from uac.fact_log.extraction.patterns.money import find_money

    texts = [f"paid £{i}.{i % 100:02d} and €{i * 3} for item {i}" for i in range(1500)]
    serial = [find_money(t) for t in texts]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            assert list(pool.map(find_money, texts)) == serial
    assert all(len(found) == 2 for found in serial)  # the check can fail: two amounts each
