"""Session 11 (h18a): constructs behind blind6's misses and false facts in travel, documents,
schedule, tasks, contacts and identity, each tested in other words and registers than the
set's: what a trip is for, a dotted capital İ, the user's people said with "our", a nickname
of a friend or a name in brackets, birthdays by relation, by a lower-case name and with the
age said next, calls to make and treatments that are no appointments, the passport's country
said beside it, a day taken back in the same breath, a restated return day, a past deadline
day, "til" ranges, venues, out of office closing a sentence, the airport a flight leaves
from, "mine" after another person's document."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.candidates import D, T, found, of

# -- what a trip is for: the event it is for ------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Heading to Leeds 3 to 5 June for a two-day workshop on pricing.",
        "Off to Frankfurt 14-18 October for the book fair.",
        "Flying to Milan 9 to 12 July for the Salone fair.",
        "Going to Oslo 18 to 22 August for the head office audit.",
        "I travel to Lyon 2 to 4 September for a seminar on food safety.",
        "Chicago 8-11 September, I go to meet new suppliers there.",
    ],
)
def test_the_event_a_trip_is_for_makes_it_business(text: str) -> None:
    [trip] = of("travel.trips", found(text))
    assert trip["purpose"] == "business"


@pytest.mark.parametrize(
    "text",
    [
        "Going to Cork 3 to 6 July for the county fair with the kids",
        "Flying to Madrid 4-9 July, fair enough it is a bit hot then.",
    ],
)
def test_a_fair_day_out_is_no_business(text: str) -> None:
    [trip] = of("travel.trips", found(text))
    assert trip.get("purpose") != "business"


def test_a_relative_getting_married_is_a_family_trip() -> None:
    [trip] = of(
        "travel.trips", found("Flying to Porto 6 to 13 July, my brother is getting married")
    )
    assert trip["purpose"] == "family"


def test_this_is_a_trip_for_completes_the_last_trip() -> None:
    [trip] = of(
        "travel.trips",
        found("That is a work trip, for the client launch.", "I fly to Boston 3 to 7 August."),
    )
    assert (trip["city"], trip["purpose"]) == ("Boston", "business")


# -- a dotted capital İ reads as I ----------------------------------------------------------


def test_a_dotted_capital_i_is_read_as_i() -> None:
    cands = found("Flying to İstanbul 3 to 9 July for my nephew's wedding.")
    [trip] = of("travel.trips", cands)
    assert (trip["country"], trip["depart"], trip["return_date"]) == (
        "TR",
        D(2025, 7, 3),
        D(2025, 7, 9),
    )
    # the quote is what was written
    from uac.fact_log.extraction.patterns import extract

    [cand] = [
        c
        for c in extract("Flying to İstanbul 3 to 9 July.", dt.datetime(2025, 6, 1, 9))
        if c.path == "travel.trips"
    ]
    assert "İstanbul" in cand.quote


# -- the user's people: "our", a friend by nickname, a name in brackets ---------------------


@pytest.mark.parametrize(
    ("text", "name", "rel"),
    [
        ("Our granddaughter Maisie is staying with us this weekend.", "Maisie", "granddaughter"),
        ("our neighbour Ken Adeyemi is feeding the cat.", "Ken Adeyemi", "neighbour"),
        ("my buddy Tariq is lending me his drill", "Tariq", "friend"),
        ("My mate Shane reckons the ute needs tyres.", "Shane", "friend"),
        ("My boss (Karen Holt) wants the slides on Friday.", "Karen Holt", "boss"),
        ("Dad (Henry Osei) is coming for lunch.", "Henry Osei", "father"),
    ],
)
def test_the_users_people_in_other_shapes(text: str, name: str, rel: str) -> None:
    people = of("contacts.contacts", found(text))
    assert {"name": name, "relationship": rel}.items() <= people[0].items()


def test_a_bracketed_name_with_an_age_gives_the_birth_year() -> None:
    [aunt] = of("contacts.contacts", found("Aunt (Ruth Mensah) turns 70 on 4 October!"))
    assert (aunt["name"], aunt["relationship"], aunt["birthday"]) == (
        "Ruth Mensah",
        "aunt",
        D(1955, 10, 4),
    )


def test_our_flatmate_without_a_name_is_no_contact() -> None:
    assert of("contacts.contacts", found("our flatmate is away this week")) == []


# -- birthdays ------------------------------------------------------------------------------


def test_a_birthday_with_the_age_said_next_gives_the_birth_year() -> None:
    [who] = of(
        "contacts.contacts", found("Ines's birthday is 12 November. She'll be 40, party time.")
    )
    assert (who["name"], who["birthday"]) == ("Ines", D(1985, 11, 12))
    [who] = of("contacts.contacts", found("Tom's birthday is 2 August. He will be 9."))
    assert who["birthday"] == D(2016, 8, 2)


def test_a_famous_birthday_stays_none_without_an_age() -> None:
    assert of("contacts.contacts", found("Mozart's birthday is 27 January.")) == []


@pytest.mark.parametrize(
    ("text", "name", "rel", "day"),
    [
        ("cousin maya bday is july 9", "Maya", "cousin", D(2025, 7, 9)),
        ("my nephew leo's birthday is 3 Sept", "Leo", "nephew", D(2025, 9, 3)),
    ],
)
def test_a_lower_case_name_after_the_relation(text: str, name: str, rel: str, day: D) -> None:
    [who] = of("contacts.contacts", found(text))
    assert (who["name"], who["relationship"], who["birthday"]) == (name, rel, day)


def test_a_relation_word_is_no_lower_case_name() -> None:
    assert of("contacts.contacts", found("my cousin next birthday is in May")) == []


def test_a_relations_birthday_lands_on_the_name_the_session_gave() -> None:
    earlier = "My dad Peter is flying in from Accra."
    [dad] = of("contacts.contacts", found("Dad's birthday is 12 March.", earlier))
    assert (dad["name"], dad["birthday"]) == ("Peter", D(2025, 3, 12))
    earlier = "my sister Ana lives in Porto"
    [sis] = of(
        "contacts.contacts", found("my sister's bday is the 4th of July, she'll be 30", earlier)
    )
    assert (sis["name"], sis["birthday"]) == ("Ana", D(1995, 7, 4))


def test_a_relations_birthday_without_a_known_name_is_no_contact() -> None:
    # the catalog's contact needs a name; "Dad" is none
    assert of("contacts.contacts", found("Dad's birthday is 12 March.")) == []
    assert of("contacts.contacts", found("My sister's birthday is on the 4th of July.")) == []


# -- calls to make, events that were, treatments: no appointments ---------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I will call them tomorrow, too tired today",
        "I'll call you back on Monday",
        "the receptionist said to call back on Thursday",
        "gonna call the landlord tomorrow about the boiler",
        "New meds list after the cardiology appointment today:",
        "I'm on the light therapy for 6 weeks from today",
    ],
)
def test_no_appointment_is_made(text: str) -> None:
    assert of("schedule.events", found(text)) == []


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("Sales call Thursday at 10", T(2025, 6, 5, 10, 0)),
        ("I have a call with Priya at 3 tomorrow", T(2025, 6, 2, 15, 0)),
        ("Physio therapy on Friday at 9", T(2025, 6, 6, 9, 0)),
    ],
)
def test_calls_and_therapy_booked_stay_events(text: str, start: T) -> None:
    [ev] = of("schedule.events", found(text))
    assert ev["start"] == start


# -- the passport's country said beside it; "mine" after another's ---------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("My Irish passport number is PA1234567.", "IE"),
        ("my new German passport came today", "DE"),
        ("My passport (Brazil) expires 2031-05-02.", "BR"),
        ("My passport (Canadian) is in the safe.", "CA"),
    ],
)
def test_the_passports_country_said_beside_it(text: str, code: str) -> None:
    assert of("identity.passport.issuing_country", found(text)) == [code]


def test_someone_elses_passport_country_is_not_the_users() -> None:
    assert (
        of("identity.passport.issuing_country", found("My wife's French passport expires soon."))
        == []
    )


@pytest.mark.parametrize(
    ("text", "path", "day"),
    [
        ("Ola's passport came back; mine is fine until 2030-02-11.", "passport", D(2030, 2, 11)),
        (
            "His licence runs out soon. Mine expires on 4 March 2031.",
            "driver_licence",
            D(2031, 3, 4),
        ),
        ("My passport is okay until 9 May 2029.", "passport", D(2029, 5, 9)),
    ],
)
def test_mine_after_another_persons_document(text: str, path: str, day: D) -> None:
    assert of(f"identity.{path}.expiry_date", found(text)) == [day]


def test_mine_without_a_document_is_nothing() -> None:
    cands = found("Her bike is fine until May; mine is fine until June.")
    assert [p for p, _ in cands if p.startswith("identity.")] == []


# -- a day taken back in the same breath -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "path", "key", "day"),
    [
        (
            "Netflix renews on the 5th of December, sorry, the 6th.",
            "finance.subscriptions",
            "renews_on",
            D(2025, 12, 6),
        ),
        (
            "The essay is due 12 March, make that 14 March.",
            "tasks.tasks",
            "due_date",
            D(2026, 3, 14),
        ),
        (
            "Dentist on Tuesday 3pm, I mean Wednesday.",
            "schedule.events",
            "start",
            T(2025, 6, 4, 15, 0),
        ),
    ],
)
def test_a_day_taken_back_is_replaced_by_the_next(text: str, path: str, key: str, day: D) -> None:
    [value] = of(path, found(text))
    assert value[key] == day


def test_two_days_without_a_correction_stay_two() -> None:
    [trip] = of("travel.trips", found("Flying to Rome on 4 July, back on 9 July."))
    assert (trip["depart"], trip["return_date"]) == (D(2025, 7, 4), D(2025, 7, 9))


def test_a_passport_expiry_taken_back() -> None:
    cands = found("My passport expires 3 May 2029, sorry, 3 June 2029.")
    assert of("identity.passport.expiry_date", cands) == [D(2029, 6, 3)]


# -- a restated return day, a past deadline day ---------------------------------------------


def test_a_flight_home_on_the_known_return_day_adds_no_trip() -> None:
    cands = found(
        "Return flight is on 13th at 18:40 from the airport", "I fly to Izmir 6 to 13 July."
    )
    assert of("travel.trips", cands) == []
    [flight] = of("travel.bookings", cands)
    assert flight["start"] == T(2025, 7, 13, 18, 40)


def test_a_new_return_day_still_completes_the_trip() -> None:
    [trip] = of("travel.trips", found("Back home on the 15th.", "I fly to Izmir 6 to 13 July."))
    assert trip["return_date"] == D(2025, 7, 15)


def test_a_deadline_day_continued_into_the_past_rolls_forward() -> None:
    # the session last named today (1 June); "the 20th" nearest it is 20 May, gone by
    cands = found("the tax return must be in by the 20th", "I paid the plumber 80 today")
    [task] = of("tasks.tasks", cands)
    assert task["due_date"] == D(2025, 6, 20)


# -- times, places, away days ----------------------------------------------------------------


def test_a_til_range_of_hours() -> None:
    [ev] = of("schedule.events", found("school open day wed 11th 9.30 til 1"))
    assert (ev["start"], ev["end"]) == (T(2025, 6, 11, 9, 30), T(2025, 6, 11, 13, 0))


def test_a_venue_said_in_lower_case() -> None:
    [ev] = of("schedule.events", found("eye test june 9 10:15 at the harbour road facility"))
    assert ev["location"] == "harbour road facility"


@pytest.mark.parametrize(
    "text",
    [
        "I will be in Vienna from 8 to 12 September for the board retreat, out of office.",
        "I'll be in Leeds 3-5 July (OOO)",
    ],
)
def test_out_of_office_closing_the_sentence_is_an_away_period(text: str) -> None:
    [away] = of("schedule.away_periods", found(text))
    assert away["reason"] == "out of office"


def test_someone_elses_out_of_office_is_not_the_users() -> None:
    text = "My boss will be in Rome 3-5 July, out of office."
    assert of("schedule.away_periods", found(text)) == []


def test_the_airport_a_flight_leaves_from_is_no_destination() -> None:
    text = (
        "taking my wife to Crete for our anniversary. flying out of Bristol on 3 July, "
        "home on the 13th"
    )
    trips = of("travel.trips", found(text))
    assert [t["city"] for t in trips] == ["Crete"] or [t["country"] for t in trips] == ["GR"]


# -- second batch: dotted times after a date, short weekdays due, where a deliverable goes ----


def test_a_dotted_time_after_the_day_and_month() -> None:
    [ev] = of("schedule.events", found("Physio is 12 June 09.45 at the clinic"))
    assert ev["start"] == T(2025, 6, 12, 9, 45)


def test_a_dotted_amount_after_a_date_is_no_time() -> None:
    from uac.fact_log.extraction.patterns.timespan import clock

    assert clock("paid on 3 May 14.50 euros") is None


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("history essay due fri", D(2025, 6, 6)),
        ("chem worksheet due tues", D(2025, 6, 3)),
    ],
)
def test_a_short_weekday_after_due(text: str, day: D) -> None:
    [task] = of("tasks.tasks", found(text))
    assert task["due_date"] == day


@pytest.mark.parametrize(
    ("text", "goal", "day"),
    [
        ("Timesheets need to be on the portal by Friday 6 June", "Timesheets", D(2025, 6, 6)),
        ("the referral for #3 has to be approved by 20 June", "Referral for #3", D(2025, 6, 20)),
    ],
)
def test_a_deliverable_due_somewhere_by_a_day(text: str, goal: str, day: D) -> None:
    [task] = of("tasks.tasks", found(text))
    assert (task["goal"], task["due_date"]) == (goal, day)


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("prom is june 20!!", "Prom"),
        ("the rugby grand final is Saturday 14 June", "grand final"),
        ("health visitor coming Tuesday at 10", "Health visitor"),
    ],
)
def test_school_and_club_days_are_events(text: str, title: str) -> None:
    [ev] = of("schedule.events", found(text))
    assert title in ev["title"]


@pytest.mark.parametrize(
    ("text", "title", "start", "end"),
    [
        (
            "I also coach the juniors on Wednesdays, 17:30-19:00",
            "Coach the juniors",
            T(2025, 6, 4, 17, 30),
            T(2025, 6, 4, 19, 0),
        ),
        (
            "I work at the garden centre on sundays 9-3",
            "Work at the garden centre",
            T(2025, 6, 8, 9, 0),
            T(2025, 6, 8, 15, 0),
        ),
    ],
)
def test_the_users_weekly_duty(text: str, title: str, start: T, end: T) -> None:
    [ev] = of("schedule.events", found(text))
    assert (ev["title"], ev["start"], ev["end"], ev["repeats"]) == (title, start, end, "weekly")


@pytest.mark.parametrize(
    "text",
    [
        "My wife works at the bakery on saturdays 9-3",
        "I worked at the bakery on saturdays 9-3",
        "I work from home on Fridays",
    ],
)
def test_no_weekly_duty_of_the_user(text: str) -> None:
    assert of("schedule.events", found(text)) == []


# -- a flight by number with its route; the known trip's way out ----------------------------


def test_a_flight_numbers_route() -> None:
    [flight] = of("travel.bookings", found("flight LH903 Frankfurt to London 20 Jul 10:35"))
    assert (flight["place"], flight["destination"], flight["start"]) == (
        "Frankfurt",
        "London",
        T(2025, 7, 20, 10, 35),
    )


def test_the_known_trips_flight_out_is_no_new_trip() -> None:
    cands = found("flight LH903 Frankfurt to London 20 Jul 10:35", "Off to London 20 to 25 July!")
    assert of("travel.trips", cands) == []
    assert of("travel.bookings", cands) != []
    # a flight to somewhere else that day is still a trip
    cands = found("flight LH903 Frankfurt to Paris 20 Jul 10:35", "Off to London 20 to 25 July!")
    assert [t["city"] for t in of("travel.trips", cands)] == ["Paris"]


def test_a_place_names_particles_are_kept() -> None:
    [ev] = of("schedule.events", found("Dinner at Huis ter Duin on Friday at 7"))
    assert ev["location"] == "Huis ter Duin"
    [ev] = of("schedule.events", found("Meeting at Acme in London on Friday at 3"))
    assert ev["location"] == "Acme"
