"""The guard after every extractor: someone else's fact and a day read as an amount are
refused, and a record whose sentence leaves a value's role undecided becomes a hint (the
path, what was read, the competing values) that a calling agent can record whole."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from uac import Memory
from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction.abstain import abstain, refuse, with_currency, without_subsumed
from uac.fact_log.extraction.candidate import Candidate
from uac.fact_log.extraction.patterns import extract
from uac.fact_log.pipeline import build_message_batch
from uac.runtime.api.tools import AgentTools

pytestmark = pytest.mark.usefixtures("backend")
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("extraction of text in memory: no log")
AT = dt.datetime(2027, 3, 1, 10, 0)
TRIP = "I take the ferry to Bergen on 4 April and the way home is on 19 April."
CONTESTED = (
    "I take the ferry to Bergen on 4 April, the festival opens on 9 April and the way home "
    "is on 19 April."
)


def record(path: str, value: dict[str, object], text: str) -> Candidate:
    return Candidate("record", path, value, "assert", text, 0, 0.8)


@NO_LOG
def test_the_one_value_a_record_misses_completes_it_with_its_span() -> None:
    half = record("travel.trips", {"city": "Bergen", "country": "NO", "depart": "2027-04-04"}, TRIP)
    [whole], withheld = abstain(Catalog.load(), TRIP, [half], AT.date())
    assert withheld == []
    assert str(whole.value["return_date"]) == "2027-04-19" and whole.value["city"] == "Bergen"
    assert TRIP[whole.start : whole.end] == whole.quote and "19 April" in whole.quote


@NO_LOG
def test_values_competing_for_a_role_make_the_record_a_hint_not_a_fact() -> None:
    half = record(
        "travel.trips", {"city": "Bergen", "country": "NO", "depart": "2027-04-04"}, CONTESTED
    )
    kept, withheld = abstain(Catalog.load(), CONTESTED, [half], AT.date())
    assert kept == []
    [undecided] = withheld
    hint = undecided.hint()
    assert hint["path"] == "travel.trips" and hint["quote"] == CONTESTED
    assert hint["candidates"] == {"return_date": ["2027-04-09", "2027-04-19"]}
    assert hint["read"]["depart"] == "2027-04-04" and "return_date" in hint["fields"]
    assert "record tool" in hint["hint"] and "'travel.trips'" in hint["hint"]


@NO_LOG
def test_a_whole_record_and_a_value_another_fact_holds_are_kept() -> None:
    catalog = Catalog.load()
    whole = record(
        "travel.trips",
        {"city": "Bergen", "country": "NO", "depart": "2027-04-04", "return_date": "2027-04-19"},
        TRIP,
    )
    assert abstain(catalog, TRIP, [whole], AT.date()) == ([whole], [])
    # the left-over day is another fact's (a booking of the same sentence): no role is open
    half = record("travel.trips", {"city": "Bergen", "country": "NO", "depart": "2027-04-04"}, TRIP)
    other = record("travel.bookings", {"kind": "ferry", "start": "2027-04-19"}, TRIP)
    kept, withheld = abstain(catalog, TRIP, [half, other], AT.date())
    assert kept == [half, other] and withheld == []


@NO_LOG
def test_corrections_endings_and_attributes_pass_unchanged() -> None:
    catalog = Catalog.load()
    text = "Scratch that, the ferry to Bergen leaves on 5 April and returns 19 April."
    fixed = Candidate(
        "record",
        "travel.trips",
        {"city": "Bergen", "country": "NO", "depart": "2027-04-05"},
        "assert",
        text,
        0,
        0.8,
        replaces={"city": "Bergen", "country": "NO", "depart": "2027-04-04"},
    )
    expiry = Candidate(
        "attribute", "identity.passport.expiry_date", "2031-05-02", "assert", text, 0, 0.8
    )
    assert abstain(catalog, text, [fixed, expiry], AT.date()) == ([fixed, expiry], [])


@NO_LOG
@pytest.mark.parametrize(
    "text",
    [
        "Our neighbour Farid drives to Porto on 9 June.",
        "My uncle Tariq is flying to Porto on 9 June.",
    ],
)
def test_someone_elses_record_is_refused_but_their_contact_is_kept(text: str) -> None:
    trip = record("travel.trips", {"city": "Porto", "country": "PT", "depart": "2027-06-09"}, text)
    contact = record("contacts.contacts", {"name": "Farid", "relationship": "neighbour"}, text)
    assert refuse(text, [trip, contact]) == [("someone_else", trip)]


@NO_LOG
def test_the_users_own_and_shared_records_are_not_refused() -> None:
    for text in ("I drive to Porto on 9 June.", "My sister and I drive to Porto on 9 June."):
        trip = record("travel.trips", {"city": "Porto", "country": "PT"}, text)
        assert refuse(text, [trip]) == []


@NO_LOG
def test_a_day_and_month_is_no_amount() -> None:
    text = "Spotify: paused 18.04."
    misread = record("finance.transactions", {"amount": "18.04", "merchant": "paused"}, text)
    assert refuse(text, [misread]) == [("value_is_date", misread)]
    priced = "Spotify went up to 11.99 a month."
    amount = record("finance.subscriptions", {"name": "Spotify", "amount": "11.99"}, priced)
    paid = "Paid 18.04 EUR at the pharmacy."
    charged = record("finance.transactions", {"amount": "18.04", "currency": "EUR"}, paid)
    assert refuse(priced, [amount]) == [] and refuse(paid, [charged]) == []


def test_a_refused_candidate_is_recorded_with_its_reason(mem: Memory) -> None:
    text = "Spotify: paused 18.04."
    read = extract(text, AT, "user", mem.catalog, [])
    misread = [c for c in read if c.path == "finance.transactions"]
    batch = build_message_batch(
        mem.catalog, mem.address("alice"), text, observed_at=AT, recorded_at=AT
    )
    assert not [f for f in batch.facts if f.path == "finance.transactions"]
    refused = [r for r in batch.rejections if r.reason == "value_is_date"]
    assert [r.path for r in refused] == [c.path for c in misread]


def test_add_returns_an_undecided_record_as_a_hint_the_agent_can_record(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        tools = AgentTools(mem, "alice")
        learned = mem.add("alice", CONTESTED, at=AT)
        trips = [f for f in mem.facts("alice") if f.path == "travel.trips"]
        # never a trip with a return picked among competing days, nor one without it
        assert trips == [], trips
        [hint] = [h for h in learned.hints if h["path"] == "travel.trips"]
        assert hint["candidates"] == {"return_date": ["2027-04-09", "2027-04-19"]}
        whole = {**hint["read"], "return_date": hint["candidates"]["return_date"][-1]}
        assert tools.call("record", {"path": "travel.trips", "record": whole})["facts"] == 1
        [fact] = [f for f in mem.facts("alice") if f.path == "travel.trips"]
        assert str(fact.value["return_date"]) == "2027-04-19"


@NO_LOG
@pytest.mark.parametrize(
    ("text", "offered"),
    [
        ("My passport expires on either March 5 or March 15 2031.", "March 5 or March 15 2031"),
        ("The dentist moved me to the 14th or 15th.", "14th or 15th"),
        ("Back from Bergen on 19 or 20 April.", "19 or 20 April"),
        ("The plumber charged £40, maybe £45.", "£40, maybe £45"),
    ],
)
def test_a_value_said_as_alternatives_is_a_hint_never_a_guess(text: str, offered: str) -> None:
    catalog = Catalog.load()
    guess = Candidate(
        "attribute", "identity.passport.expiry_date", "2031-03-05", "assert", text, 0, 0.8
    )
    picked = record("travel.trips", {"city": "Bergen", "return_date": "2027-04-19"}, text)
    kept, withheld = abstain(catalog, text, [guess, picked], AT.date())
    assert kept == [] and [u.candidate for u in withheld] == [guess, picked]
    hint = withheld[0].hint()
    assert hint["alternatives"] == offered and hint["quote"] == text
    assert hint["read"] == "2031-03-05" and "ask which one holds" in hint["hint"]


@NO_LOG
def test_one_value_with_or_nearby_and_a_correction_are_kept() -> None:
    catalog = Catalog.load()
    text = "I fly to Bergen on 19 April or so, and take 2 or 3 books."
    trip = Candidate(
        "record",
        "travel.trips",
        {"city": "Bergen", "depart": "2027-04-19"},
        "assert",
        text[:31],
        0,
        0.8,
    )
    fixed = Candidate(
        "record",
        "travel.trips",
        {"city": "Bergen", "depart": "2027-04-20"},
        "assert",
        text,
        0,
        0.8,
        replaces={"city": "Bergen", "depart": "2027-04-19"},
    )
    named = Candidate("attribute", "identity.home_city", "Bergen", "assert", text, 0, 0.8)
    assert abstain(catalog, text, [trip, fixed, named], AT.date()) == ([trip, fixed, named], [])


def test_add_asks_instead_of_picking_one_of_two_days(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        learned = mem.add("alice", "My passport expires on March 5 or March 15 2031.", at=AT)
        assert [f for f in mem.facts("alice") if f.path.startswith("identity.passport")] == []
        [hint] = [h for h in learned.hints if h["path"] == "identity.passport.expiry_date"]
        assert hint["alternatives"] == "March 5 or March 15 2031"


@NO_LOG
@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("schedule.events", {"title": "Thursday", "start": "2028-03-09T09:00"}),
        ("schedule.events", {"title": "it", "start": "2028-09-30T08:00"}),
        ("tasks.tasks", {"goal": "Before", "due_date": "2027-09-14"}),
        ("finance.transactions", {"merchant": "again", "amount": "418.60"}),
        ("travel.bookings", {"kind": "hotel", "place": "Friday"}),
        ("schedule.events", {"title": "Every Monday evening", "start": "2028-03-13T18:00"}),
        ("schedule.events", {"title": "on sat 9am at", "start": "2028-03-11T09:00"}),
        ("schedule.events", {"title": "ends 14 oct", "start": "2028-10-14"}),
    ],
)
def test_a_name_made_of_words_that_name_nothing_is_refused(
    path: str, value: dict[str, object]
) -> None:
    text = "Pension come in Friday, and again it was before the Thursday class."
    empty = record(path, value, text)
    assert refuse(text, [empty]) == [("empty_value", empty)]


@NO_LOG
def test_names_with_such_words_inside_and_a_contacts_name_are_kept() -> None:
    text = "Friday prayers with May, then the Sunday market."
    kept = [
        record("schedule.events", {"title": "Friday prayers", "start": "2028-03-10"}, text),
        record("schedule.events", {"title": "Sunday market", "start": "2028-03-12"}, text),
        record("contacts.contacts", {"name": "May", "relationship": "friend"}, text),
        # a number beside a name, or a name made only of digits, names something
        record("schedule.events", {"title": "Room 4 on Friday", "start": "2028-03-10"}, text),
        record("finance.transactions", {"merchant": "3", "amount": "20"}, text),
    ]
    assert refuse(text, kept) == []


@NO_LOG
def test_an_amount_without_currency_takes_the_one_its_writer_named() -> None:
    catalog = Catalog.load()
    text = "Got my wages, NOK 31,200. Then the landlord got 9,800 of it."
    rent = record("finance.transactions", {"amount": "9800", "merchant": "landlord"}, text)
    [whole] = with_currency(catalog, text, [rent], [])
    assert whole.value == {"amount": "9800", "merchant": "landlord", "currency": "NOK"}
    # said in an earlier message of the session: the latest one that names a currency
    earlier = [("Gym was 40 CHF.", AT), ("Lunch with Aiko, ¥1,800.", AT), ("ok thanks", AT)]
    plan = record("finance.budgets", {"category": "books", "limit": "6000"}, "Books: 6000/month")
    [budget] = with_currency(catalog, "Books: 6000/month", [plan], earlier)
    assert budget.value["currency"] == "JPY"


@NO_LOG
def test_two_currencies_a_shared_currency_word_or_a_named_one_decide_nothing() -> None:
    catalog = Catalog.load()
    two = "Swapped £200 into €230. Spent 45 at the market."
    spent = record("finance.transactions", {"amount": "45", "merchant": "market"}, two)
    assert with_currency(catalog, two, [spent], []) == [spent]
    kr = "Paid 640 kr for the tickets."
    tickets = record("finance.transactions", {"amount": "640"}, kr)
    assert with_currency(catalog, kr, [tickets], [("Rent is 900 EUR", AT)]) == [tickets]
    own = record("finance.transactions", {"amount": "45", "currency": "GBP"}, two)
    trip = record("travel.trips", {"city": "Oslo", "depart": "2028-05-02"}, two)
    assert with_currency(catalog, two, [own, trip], [("Lunch was 12 EUR", AT)]) == [own, trip]


@NO_LOG
def test_a_subscription_cancelled_today_says_its_day() -> None:
    text = "Cancelled Crunchyroll today, 9.99 a month was too much."
    read: dict[str, object] = {"name": "Crunchyroll", "amount": "9.99", "period": "monthly"}
    half = record("finance.subscriptions", read, text)
    [whole], withheld = abstain(Catalog.load(), text, [half], AT.date())
    assert withheld == [] and whole.value["cancelled_on"] == AT.date().isoformat()
    plan = "I want to cancel Crunchyroll today, 9.99 a month is too much."
    wish = record("finance.subscriptions", read, plan)
    [kept], _ = abstain(Catalog.load(), plan, [wish], AT.date())
    assert "cancelled_on" not in kept.value


@NO_LOG
def test_an_untimed_event_on_the_messages_own_day_is_a_report_not_an_appointment() -> None:
    text = "Took the bike in for its repair today, and the scan was done this morning."
    told = record("schedule.events", {"title": "Repair", "start": "2027-03-01T00:00:00"}, text)
    scan = record("schedule.events", {"title": "Scan", "start": "2027-03-01"}, text)
    assert refuse(text, [told, scan], AT.date()) == [("reported_day", told), ("reported_day", scan)]
    later = "Physio today at 16:15 and the school play on 4 March."
    kept = [
        record("schedule.events", {"title": "Physio", "start": "2027-03-01T16:15:00"}, later),
        record("schedule.events", {"title": "School play", "start": "2027-03-04"}, later),
    ]
    assert refuse(later, kept, AT.date()) == []
    assert refuse(text, [told]) == []  # no day given: nothing to compare


@NO_LOG
def test_one_day_said_once_fills_one_role_not_two() -> None:
    text = "Oh wait, the ferry home from Bergen is on 19 April."
    both = record(
        "travel.trips",
        {"city": "Bergen", "country": "NO", "depart": "2027-04-19", "return_date": "2027-04-19"},
        text,
    )
    kept, [undecided] = abstain(Catalog.load(), text, [both], AT.date())
    assert kept == []
    assert undecided.hint()["candidates"] == {"depart": "2027-04-19", "return_date": "2027-04-19"}
    twice = "Day trip to Bergen: out on 19 April, home again on 19 April."
    day = record("travel.trips", {**both.value, "city": "Bergen"}, twice)
    timed = "Exam on 19 April from 09:00 to 12:00."
    exam = record(
        "schedule.events",
        {"title": "Exam", "start": "2027-04-19T09:00:00", "end": "2027-04-19T12:00:00"},
        timed,
    )
    assert abstain(Catalog.load(), twice, [day], AT.date()) == ([day], [])
    assert abstain(Catalog.load(), timed, [exam], AT.date()) == ([exam], [])


@NO_LOG
def test_a_record_another_record_of_the_message_says_whole_is_dropped() -> None:
    text = "Got the Indian visa back today: double entry, valid until 2 June 2029."
    visa: dict[str, object] = {"country": "IN", "entries": "double", "valid_until": "2029-06-02"}
    whole = record("identity.visas", visa, text)
    bare = record("identity.visas", {"country": "IN"}, text)
    assert without_subsumed(Catalog.load(), [bare, whole]) == [whole]
    # two equal charges are two facts; records that differ, or another path, stay
    twice = "The gym took 35.00 twice this morning."
    charge = {"amount": "35.00", "date": "2027-03-01"}
    one, two = (record("finance.transactions", dict(charge), twice) for _ in range(2))
    other = record("identity.visas", {"country": "IN", "entries": "single"}, text)
    trip = record("travel.trips", {"country": "IN"}, text)
    kept = [one, two, other, trip]
    assert without_subsumed(Catalog.load(), kept) == kept


@NO_LOG
def test_a_health_record_borrowed_beside_another_named_item_is_refused() -> None:
    text = "Dropped the ramipril, took my last one on Sunday."
    borrowed = record("health.medications", {"name": "metformin", "start_date": "2027-02-28"}, text)
    assert refuse(text, [borrowed]) == [("other_item", borrowed)]
    # the item said, or borrowed where the message names no other, is kept
    named = record("health.medications", {"name": "ramipril", "stop_date": "2027-02-28"}, text)
    dose = "Now it is 20 mg every night."
    same_drug = record("health.medications", {"name": "metformin", "dose": "20 mg"}, dose)
    assert refuse(text, [named]) == [] and refuse(dose, [same_drug]) == []


@NO_LOG
def test_a_hotel_stay_with_neither_its_last_night_nor_its_place_is_a_hint() -> None:
    text = "The guesthouse is booked from the 12th."
    half = record("travel.bookings", {"kind": "hotel", "start": "2027-03-12"}, text)
    kept, [undecided] = abstain(Catalog.load(), text, [half], AT.date())
    assert kept == [] and set(undecided.hint()["fields"]) >= {"end", "place", "start"}
    # a stay with its place or its last night, and a flight with its departure, are kept
    placed = record("travel.bookings", {**half.value, "place": "Bled"}, text)
    ended = record("travel.bookings", {**half.value, "end": "2027-03-15"}, text)
    flight = record("travel.bookings", {"kind": "flight", "start": "2027-03-12T07:05"}, text)
    assert abstain(Catalog.load(), text, [placed], AT.date())[1] == []
    assert abstain(Catalog.load(), text, [ended], AT.date())[1] == []
    assert abstain(Catalog.load(), text, [flight], AT.date())[1] == []
