"""Plain conversation fills every collection the checks read (Memory.add, real DuckDB, rules only).

Each test replays a short dated session through `Memory.add(..., at=, session_id=)`, the path
`uac add --at` takes, and reads back what was appended. Sentences split across messages,
corrections and offsets rely on the session thread, read from the inputs table.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from uac import Memory
from uac.fact_log.extraction.patterns import extract, health
from uac.fact_log.extraction.timemodel import clock, date_notes, duration, find_dates, offset
from uac.fact_log.reference import drug_data

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("extraction of text in memory: no log")

WHO = "dana"


def say(mem: Memory, day: str, *lines: str, session: str = "s1") -> list[list[Any]]:
    """Add each line (a minute apart) and return the facts each one asserted."""
    start = dt.datetime.fromisoformat(day)
    out = []
    for i, line in enumerate(lines):
        at = start + dt.timedelta(minutes=i)
        learned = mem.add(WHO, line, at=at, session_id=session, now=at)
        out.append(
            [(f.path, f.value) for f in learned.facts if f.kind != "note" and f.op == "assert"]
        )
    return out


def refusals(mem: Memory, reason: str) -> list[dict[str, Any]]:
    """Details of the subject's refusals with one reason."""
    rows = mem.store.rejections(mem.address(WHO))
    return [json.loads(r["detail"]) for r in rows if r["reason"] == reason]


def only(facts: list[Any], path: str) -> Any:
    """The one fact of a path in a message's facts."""
    found = [v for p, v in facts if p == path]
    assert len(found) == 1, facts
    return found[0]


def test_passport_expiry_said_after_the_passport(mem: Memory) -> None:
    first, second = say(
        mem,
        "2026-02-03T09:00",
        "My new passport finally arrived.",
        "It's good until 14 May 2036, which is a relief.",
    )
    assert first == []
    assert only(second, "identity.passport.expiry_date") == "2036-05-14"


def test_driver_licence_expiry(mem: Memory) -> None:
    [facts] = say(mem, "2026-10-05T07:00", "My driving licence runs out on 30 November 2026.")
    assert only(facts, "identity.driver_licence.expiry_date") == "2026-11-30"


def test_visa_and_its_validity_in_the_next_message(mem: Memory) -> None:
    got, valid = say(
        mem,
        "2026-06-01T08:30",
        "I got my ESTA approved this morning.",
        "It's valid until June 1, 2028.",
    )
    # an ESTA is valid from its approval: the day said is its first
    assert only(got, "identity.visas") == {
        "country": "US",
        "kind": "ESTA",
        "valid_from": "2026-06-01",
    }
    assert only(valid, "identity.visas")["valid_until"] == "2028-06-01"


def test_visa_country_from_an_earlier_message(mem: Memory) -> None:
    _, got = say(
        mem,
        "2026-09-02T12:00",
        "I need to sort out my visa for India.",
        "Got the e-visa today, it's a tourist one valid until 1 September 2027.",
    )
    visa = only(got, "identity.visas")
    assert visa["country"] == "IN" and visa["valid_until"] == "2027-09-01"


def test_insurance_policy(mem: Memory) -> None:
    [facts] = say(mem, "2026-09-07T08:00", "Home insurance with Aviva expires on November 30.")
    policy = only(facts, "identity.insurance_policies")
    assert policy == {"kind": "home", "provider": "Aviva", "valid_until": "2026-11-30"}


def test_trip_explicit_date_beats_weekday_and_return_follows(mem: Memory) -> None:
    trip, correction, back = say(
        mem,
        "2026-01-12T20:00",
        "Flying to Singapore on Wednesday, February 11.",
        "Sorry, I meant Thursday the 12th.",
        "Back home on the 20th.",
    )
    assert only(trip, "travel.trips")["depart"] == "2026-02-11"
    assert only(correction, "travel.trips")["depart"] == "2026-02-12"
    assert only(back, "travel.trips")["return_date"] == "2026-02-20"
    assert only(back, "travel.trips")["depart"] == "2026-02-12"


def test_a_weekday_that_contradicts_its_date_is_recorded(mem: Memory) -> None:
    say(mem, "2026-01-12T20:00", "Flying to Singapore on Thursday, February 11.")
    clash = refusals(mem, "weekday_conflict")
    assert clash and clash[0]["date"] == "2026-02-11"


def test_medication_with_dose_schedule_and_course_length(mem: Memory) -> None:
    picked, course = say(
        mem,
        "2026-06-08T12:00",
        "I picked up amoxicillin for the ear infection.",
        "It's 500 mg three times a day for seven days.",
    )
    assert only(picked, "health.medications")["start_date"] == "2026-06-08"
    med = only(course, "health.medications")
    assert med["dose"] == "500 mg three times a day"
    assert med["stop_date"] == "2026-06-14"


@NO_LOG
def test_drug_vocabulary_is_the_reference_data() -> None:
    assert not hasattr(health, "DRUGS")  # one source: fact_log/reference
    others = drug_data().others
    assert "levothyroxine" in others and "cetirizine" in others
    now = dt.datetime(2026, 1, 1, 9)
    [found] = extract("I've been taking levothyroxine 75 mcg each morning.", now)
    assert found.value["name"] == "levothyroxine"
    # Brand aliases from drugs.toml are recognised as well.
    assert extract("I started taking Zoloft 50 mg today.", now)[0].value["name"] == "zoloft"


def test_allergy_and_intolerance(mem: Memory) -> None:
    [facts] = say(mem, "2026-08-03T15:00", "I'm lactose intolerant.")
    assert only(facts, "health.allergies")["substance"] == "lactose"


def test_pregnancy_is_a_condition(mem: Memory) -> None:
    [facts] = say(mem, "2026-03-16T19:30", "I'm pregnant! Due date is October 2.")
    assert only(facts, "health.conditions")["name"] == "pregnancy"


def test_body_weight(mem: Memory) -> None:
    [facts] = say(mem, "2026-04-20T07:00", "I weighed in at 92.5 kg today.")
    assert only(facts, "health.body_weight") == {"date": "2026-04-20", "kg": 92.5}


def test_booking_time_range_and_length(mem: Memory) -> None:
    table, lagoon, show, length = say(
        mem,
        "2026-02-23T12:30",
        "I booked a table at Dishoom for Saturday, March 7 at 7pm for all of us.",
        "I also booked the Blue Lagoon show for March 14 from 10 till noon.",
        "Then the theatre on Sunday the 8th at 2:30pm.",
        "It runs about two and a half hours.",
    )
    booking = only(table, "schedule.events")
    assert booking["title"] == "Table at Dishoom"
    assert booking["start"].startswith("2026-03-07T19:00")
    event = only(lagoon, "schedule.events")
    assert event["start"].startswith("2026-03-14T10:00")
    assert event["end"].startswith("2026-03-14T12:00")
    assert only(show, "schedule.events")["start"].startswith("2026-03-08T14:30")
    assert only(length, "schedule.events")["end"].startswith("2026-03-08T17:00")


def test_event_correction_keeps_the_time(mem: Memory) -> None:
    _, moved = say(
        mem,
        "2026-01-19T08:00",
        "Dentist on Thursday at 3:30pm.",
        "Actually the dentist moved to Friday, same time.",
    )
    event = only(moved, "schedule.events")
    assert event["title"] == "Dentist" and event["start"].startswith("2026-01-23T15:30")
    # Thursday's record is retracted, not left beside Friday's (its key changed).
    thursday, friday, retract = mem.facts(WHO)
    assert thursday.value["start"].startswith("2026-01-22T15:30")
    assert (retract.op, retract.value) == ("retract", {"target": thursday.id})
    assert friday.op == "assert"


def test_correction_with_nothing_to_correct_yields_nothing(mem: Memory) -> None:
    [facts] = say(mem, "2026-01-19T08:00", "Actually, make that the 12th.")
    assert facts == []


def test_a_moved_record_of_its_own_corrects_no_other_kind(mem: Memory) -> None:
    # The sentence states an appointment; the medication said before it is left as it was.
    started, moved = say(
        mem,
        "2027-03-01T10:00",
        "The GP started me on ramipril 5mg this morning.",
        "Physio session moved to Wednesday 2pm.",
    )
    drug = only(started, "health.medications")
    assert only(moved, "schedule.events")["start"].startswith("2027-03-03T14:00")
    assert [p for p, _ in moved] == ["schedule.events"]
    assert [f.op for f in mem.facts(WHO)] == ["assert", "assert"]
    assert mem.facts(WHO)[0].value == drug


def test_offset_becomes_a_dated_task(mem: Memory) -> None:
    _, notice = say(
        mem,
        "2026-01-26T10:00",
        "My lease ends on June 30.",
        "I have to give notice a month before the lease ends.",
    )
    task = only(notice, "tasks.tasks")
    assert task["goal"] == "Give notice" and task["due_date"] == "2026-05-30"


def test_transactions_one_per_amount(mem: Memory) -> None:
    [facts] = say(mem, "2026-07-13T17:00", "Spent 38 at the pharmacy and 120 at IKEA today.")
    paid = sorted((v["merchant"], v["amount"]) for p, v in facts if p == "finance.transactions")
    assert paid == [("IKEA", "120"), ("pharmacy", "38")]


def test_budgets_and_a_follow_up_cap(mem: Memory) -> None:
    groceries, eating = say(
        mem,
        "2026-01-05T19:00",
        "I want to keep groceries under €400 a month.",
        "And eating out under 150.",
    )
    assert only(groceries, "finance.budgets")["limit"] == "400"
    cap = only(eating, "finance.budgets")
    assert cap == {"category": "eating out", "limit": "150", "currency": "EUR", "period": "month"}


def test_subscription_and_its_cancellation(mem: Memory) -> None:
    sub, _, cancel = say(
        mem,
        "2026-05-04T12:00",
        "I also have Amazon Prime, £95 a year, renewing on 12 September.",
        "Actually I'm going to cancel Prime.",
        "Done, cancelled it just now.",
    )
    assert only(sub, "finance.subscriptions")["renews_on"] == "2026-09-12"
    ended = only(cancel, "finance.subscriptions")
    assert ended == {"name": "Amazon Prime", "cancelled_on": "2026-05-04"}


def test_account_and_its_limit(mem: Memory) -> None:
    card, limit = say(
        mem, "2026-03-09T09:00", "I got a new credit card from Chase.", "The limit on it is $5,000."
    )
    assert only(card, "finance.bank_accounts") == {"kind": "credit_card", "provider": "Chase"}
    assert only(limit, "finance.bank_accounts")["limit"] == "5000"


def test_warranty_and_return_window(mem: Memory) -> None:
    _, warranty, returns = say(
        mem,
        "2026-03-09T09:00",
        "I paid $1,249 for the new laptop at Best Buy today.",
        "The laptop has a two-year warranty.",
        "Returns are accepted within 14 days.",
    )
    assert only(warranty, "finance.warranties")["ends_on"] == "2028-03-09"
    assert only(returns, "finance.warranties")["return_by"] == "2026-03-23"


def test_away_period(mem: Memory) -> None:
    [facts] = say(mem, "2026-03-30T09:00", "I'm out of office from April 6 to April 10.")
    away = only(facts, "schedule.away_periods")
    assert away["start"] == "2026-04-06" and away["end"] == "2026-04-10"


def test_vehicle_service(mem: Memory) -> None:
    _, service = say(
        mem,
        "2026-05-02T10:00",
        "I drive a 2019 Toyota Corolla.",
        "I had the car serviced today at 45,000 km, next one due in 12 months.",
    )
    record = only(service, "vehicles.services")
    assert record["vehicle"] == "Toyota Corolla" and record["next_due_date"] == "2027-05-02"


def test_same_person_full_name_and_details(mem: Memory) -> None:
    brother, full = say(
        mem,
        "2026-01-08T18:00",
        "My brother Tom is visiting next month.",
        "Tom Becker, if you need his full name for the booking.",
    )
    assert only(brother, "contacts.contacts") == {"name": "Tom", "relationship": "brother"}
    assert only(full, "contacts.contacts") == {"name": "Tom Becker", "relationship": "brother"}


def test_food_drink_and_supplement_intake(mem: Memory) -> None:
    juice, wort = say(
        mem,
        "2026-04-02T08:00",
        "I drink grapefruit juice every morning.",
        "I've been taking St John's wort for my mood.",
    )
    assert only(juice, "health.intake") == {
        "name": "grapefruit juice",
        "kind": "food",
        "frequency": "every morning",
    }
    assert only(wort, "health.intake") == {"name": "st john's wort", "kind": "supplement"}


def test_medication_supply_until(mem: Memory) -> None:
    runs_out, left = say(
        mem,
        "2026-04-02T08:00",
        "My lisinopril prescription runs out on 20 April.",
        "I have 10 days of metformin left.",
    )
    assert only(runs_out, "health.medications") == {
        "name": "lisinopril",
        "supply_until": "2026-04-20",
    }
    assert only(left, "health.medications") == {"name": "metformin", "supply_until": "2026-04-12"}


def test_standing_order_and_direct_debit(mem: Memory) -> None:
    order, debit = say(
        mem,
        "2026-01-10T09:00",
        "I set up a standing order of £300 to Oak Lane School on the 3rd of every month.",
        "The gym membership goes out by direct debit from my Nationwide account every month.",
    )
    assert only(order, "finance.scheduled_payments") == {
        "payee": "Oak Lane School",
        "amount": "300",
        "currency": "GBP",
        "method": "standing_order",
        "period": "monthly",
        "day_of_month": 3,
        "next_date": "2026-02-03",  # the first 3rd after the message's day
    }
    debit_value = only(debit, "finance.scheduled_payments")
    assert debit_value["method"] == "direct_debit"
    assert debit_value["account"] == "Nationwide account"


def test_planned_card_payment_and_card_limit(mem: Memory) -> None:
    limit, plan = say(
        mem,
        "2026-06-01T09:00",
        "My Revolut card has a €500 limit per transaction.",
        "I'm going to pay the €800 invoice for the kitchen with my Revolut card on 9 June.",
    )
    card = only(limit, "finance.bank_accounts")
    assert card["per_transaction_limit"] == "500" and card["name"] == "Revolut card"
    payment = only(plan, "finance.scheduled_payments")
    assert payment["payee"] == "kitchen invoice" and payment["next_date"] == "2026-06-09"
    assert payment["method"] == "card" and payment["period"] == "once"


def test_a_cards_daily_limit_and_two_payments_of_one_day(mem: Memory) -> None:
    limit, first, second = say(
        mem,
        "2026-06-01T09:00",
        "My Revolut card has a daily limit of €1,000.",
        "I'm going to pay the €700 deposit for the sofa with my Revolut card on 9 June.",
        "I'm going to pay the €450 invoice for the tiler with my Revolut card on 9 June.",
    )
    assert only(limit, "finance.bank_accounts")["daily_limit"] == "1000"
    assert only(first, "finance.scheduled_payments")["next_date"] == "2026-06-09"
    assert only(second, "finance.scheduled_payments")["next_date"] == "2026-06-09"
    result = mem.check(WHO, today=dt.date(2026, 6, 1))
    found = [a for a in result.new if a.check == "card_limit"]
    assert len(found) == 1 and "over its 1000 EUR daily limit" in found[0].message
    # a cash machine's limit is no spending limit
    [cash] = say(
        mem, "2026-06-01T09:05", "The cash withdrawal limit on my Monzo card is £300 a day."
    )
    assert all("daily_limit" not in v for p, v in cash if p == "finance.bank_accounts")


def test_account_closing_and_promotion_end(mem: Memory) -> None:
    closing, promo = say(
        mem,
        "2026-02-01T09:00",
        "I'm closing my Santander account on 28 February.",
        "My 0% balance transfer offer on the Halifax card ends on 30 April.",
    )
    assert only(closing, "finance.bank_accounts")["closing_on"] == "2026-02-28"
    offer = only(promo, "finance.promotions")
    assert offer["ends_on"] == "2026-04-30" and offer["name"].startswith("0%")


def test_recurring_event_with_a_start(mem: Memory) -> None:
    [facts] = say(
        mem, "2026-03-01T09:00", "Tennis lessons every Wednesday at 7pm starting 11 March."
    )
    event = only(facts, "schedule.events")
    assert event["repeats"] == "weekly" and event["start"] == "2026-03-11T19:00:00"


def test_trip_via_a_layover_and_a_booked_place(mem: Memory) -> None:
    [facts] = say(
        mem,
        "2026-03-01T09:00",
        "Booked Lima! Flying out 2 May with a layover in Atlanta, back 16 May.",
    )
    trip = only(facts, "travel.trips")
    assert trip["city"] == "Lima" and trip["via"] == ["Atlanta"]


def test_visa_entries_from_a_nationality_adjective(mem: Memory) -> None:
    [facts] = say(
        mem,
        "2026-03-01T09:00",
        "I got my Indian visa today, multiple entry, valid until 1 March 2027.",
    )
    visa = only(facts, "identity.visas")
    assert visa["country"] == "IN" and visa["entries"] == "multiple"


def test_passport_name_and_blank_pages(mem: Memory) -> None:
    name, pages = say(
        mem,
        "2026-03-01T09:00",
        "My passport says Robert James Hill.",
        "My passport only has two blank pages left.",
    )
    assert only(name, "identity.passport.full_name") == "Robert James Hill"
    assert only(pages, "identity.passport.blank_pages") == 2


def test_charge_warranty_from_the_object_and_a_subjectless_medication(mem: Memory) -> None:
    charge, warranty, med = say(
        mem,
        "2026-05-10T09:00",
        "I was charged $15.49 by Spotify on 8 May.",
        "Bought a Dyson vacuum, the warranty runs until 10 May 2028.",
        "Taking ibuprofen 400 mg three times a day for my knee.",
    )
    assert only(charge, "finance.transactions") == {
        "date": "2026-05-08",
        "amount": "15.49",
        "currency": "USD",
        "merchant": "Spotify",
    }
    cover = only(warranty, "finance.warranties")
    assert cover["item"] == "Dyson vacuum" and cover["ends_on"] == "2028-05-10"
    assert only(med, "health.medications")["name"] == "ibuprofen"


def test_hotel_and_flight_bookings(mem: Memory) -> None:
    hotel, flight = say(
        mem,
        "2026-03-01T09:00",
        "Hotel in Vienna booked, check-in 12 June and check-out 15 June.",
        "My flight home from Vienna is on 16 June at 9am.",
    )
    stay = only(hotel, "travel.bookings")
    assert stay["kind"] == "hotel" and stay["end"] == "2026-06-15T11:00:00"
    assert only(flight, "travel.bookings")["start"] == "2026-06-16T09:00:00"


@pytest.mark.parametrize(
    "line",
    [
        "My wife's passport expires next year, so she has to renew hers.",
        "If the client cancels I might stay an extra day.",
        "My friend's visa took three months.",
        "Hypothetically, if my licence expired before then, could I still drive?",
        "My son is allergic to peanuts.",
        "My wife drinks grapefruit juice every morning.",
        "Should I take St John's wort?",
        "My friend is closing her Barclays account on 20 March.",
        "My sister booked flights to Rome from 1 April to 20 May.",
        "Was I charged twice by Netflix?",
        "I used to drink grapefruit juice but stopped when I started the statin.",
        "I cancelled the standing order to the nursery and set up a direct debit instead.",
        "If I set up a standing order to my landlord, will it go out on the 1st?",
    ],
)
def test_hypotheticals_and_other_peoples_facts_yield_nothing(mem: Memory, line: str) -> None:
    say(mem, "2026-02-03T09:00", "My new passport finally arrived.")
    [facts] = say(mem, "2026-02-03T09:05", line)
    assert facts == []


def test_ambiguous_numeric_date_is_refused_with_its_readings(mem: Memory) -> None:
    [facts] = say(mem, "2026-11-02T14:00", "The parent evening is on 03/12 at 6pm.")
    assert all(p != "schedule.events" or "2026-12-03" not in v["start"] for p, v in facts)
    notes = refusals(mem, "ambiguous_date")
    assert notes and notes[0]["readings"] == ["2026-12-03", "2026-03-12"]


def test_the_thread_is_per_session(mem: Memory) -> None:
    say(mem, "2026-02-03T09:00", "My new passport finally arrived.", session="a")
    [other] = say(mem, "2026-02-03T09:05", "It's good until 14 May 2036.", session="b")
    [same] = say(mem, "2026-02-03T09:06", "It's good until 14 May 2036.", session="a")
    assert other == [] and only(same, "identity.passport.expiry_date") == "2036-05-14"


def test_a_backfilled_message_reads_what_was_said_before_it(mem: Memory) -> None:
    # History follows when messages were said, not when they arrived: a replayed
    # conversation that arrives out of order still reads its own thread.
    say(mem, "2026-02-03T09:00", "My new passport finally arrived.")
    say(mem, "2026-02-05T10:00", "We're thinking about a new car.")
    [facts] = say(mem, "2026-02-03T09:05", "It's good until 14 May 2036.")
    assert only(facts, "identity.passport.expiry_date") == "2036-05-14"
    # a message said before everything else has no history, whatever arrived first
    [early] = say(mem, "2026-02-01T08:00", "It's good until 1 June 2031.")
    assert early == []


def test_a_live_message_reads_its_session_whatever_the_clocks_say(mem: Memory) -> None:
    # A message given no time is read after everything the session holds, even when an
    # earlier one was stamped by a client clock ahead of the server's.
    ahead = dt.datetime.now(dt.UTC) + dt.timedelta(minutes=5)
    mem.add(WHO, "My new passport finally arrived.", at=ahead, session_id="s1")
    learned = mem.add(WHO, "It's good until 14 May 2036.", session_id="s1")
    assert (
        only([(f.path, f.value) for f in learned.facts], "identity.passport.expiry_date")
        == "2036-05-14"
    )


def test_thread_is_read_from_the_store_by_a_new_process(home: Any) -> None:
    with Memory(home, create=True, react=False) as first:
        say(first, "2026-02-03T09:00", "My new passport finally arrived.")
    with Memory(home, react=False) as second:  # a different Memory: nothing cached to lean on
        [facts] = say(second, "2026-02-03T09:05", "It's good until 14 May 2036.")
    assert only(facts, "identity.passport.expiry_date") == "2036-05-14"


@NO_LOG
def test_time_model_parsers() -> None:
    today = dt.date(2026, 2, 3)
    [d, nth] = find_dates("We fly on Thursday, March 19 and come back on the 29th.", today)
    assert (d.date, d.conflict, nth.date) == (dt.date(2026, 3, 19), None, dt.date(2026, 3, 29))
    span = clock("The plumber comes between 8 and 10am.")
    assert span is not None and (span.start, span.end) == (dt.time(8), dt.time(10))
    evening = clock("dinner with Marco at 8")
    assert evening is not None and evening.start == dt.time(20) and evening.assumed
    length = duration("It takes an hour and a half.")
    assert length is not None and length[0] == dt.timedelta(minutes=90)
    before = offset("Invitations need to go out six weeks before.")
    assert before is not None and before.apply(dt.date(2026, 10, 17)) == dt.date(2026, 9, 5)
    notes = date_notes("Meet me next Friday", dt.date(2026, 5, 18))  # said on a Monday
    assert notes[0]["readings"] == ["2026-05-22", "2026-05-29"]


@NO_LOG
def test_a_message_is_read_once_not_again_as_the_next_ones_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each message of a session is history for the next: what reading it did to the thread
    # is kept, so a stream of messages costs one reading each, not two.
    import uac.fact_log.extraction.patterns as patterns

    reads: list[str] = []
    real = patterns.read

    def counted(text: str, *args: Any) -> Any:
        reads.append(text)
        return real(text, *args)

    monkeypatch.setattr(patterns, "read", counted)
    said = dt.datetime(2026, 2, 3, 9, 0)
    first = "My new passport finally arrived (read-once test)."  # text no other test reads
    assert extract(first, said) == []
    found = extract("It's good until 14 May 2036.", said, history=[(first, said)])
    assert [(c.path, str(c.value)) for c in found] == [
        ("identity.passport.expiry_date", "2036-05-14")
    ]
    assert reads == [first, "It's good until 14 May 2036."]


@NO_LOG
def test_a_guard_shared_by_threads_answers_each_text_right() -> None:
    # Threads sharing a Memory share the remembered guard answers, which are cleared as
    # they fill: every answer must still be the pattern's own, and no thread may fail.
    import random
    import threading

    from uac.fact_log.extraction.patterns.text import NEGATION

    texts = [f"I do not like {i}" if i % 2 else f"I like {i}" for i in range(2000)]
    errors: list[str] = []

    def ask() -> None:
        try:
            for n in range(4000):
                text = texts[(n * 7919 + random.randrange(2000)) % 2000]
                assert (NEGATION.search(text) is not None) == ("not" in text), text
        except Exception as exc:  # collected: an assertion in a thread would be lost
            errors.append(repr(exc))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == [] and not any(t.is_alive() for t in threads)
