"""The values the frames' slot parsers read, in their own terms: a date takes the time of day
said for it (the one clock of the time model), a stay said in nights ends that many days
later, an amount is said per period without its currency, what starts is still to come, and
a reaction is read by the rules' own words."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.fact_log.extraction.slots import continuing, parser
from uac.fact_log.extraction.timemodel import find_dates, named_span, nth_inside

MONDAY = dt.date(2031, 3, 10)  # a Monday


def values(kind: str, text: str, prefer: str = "future") -> list[object]:
    found = parser(kind)(text, MONDAY, prefer)  # type: ignore[arg-type]
    assert all(0 <= f.start < f.end <= len(text) for f in found)
    return [f.value for f in found]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a bare hour is read the way people say it: the afternoon, the evening for a dinner
        ("the school concert is on the 14th at 6", ["2031-03-14T18:00"]),
        ("we're having supper on Friday at 8", ["2031-03-14T20:00"]),
        ("haircut on the 20th at 10", ["2031-03-20T10:00"]),
        # clock faces the sentence writes its own way
        ("eye test Thursday 13 March 9.45", ["2031-03-13T09:45"]),
        ("train leaves 7h15 on 2 April", ["2031-04-02T07:15"]),
        ("the vet is Wednesday at 3:40", ["2031-03-12T15:40"]),
    ],
)
def test_a_date_takes_the_time_of_day_said_for_it(text: str, want: list[str]) -> None:
    assert values("datetime", text) == want


def test_a_time_range_said_for_one_date_gives_its_start_then_its_end() -> None:
    assert values("datetime", "the workshop on Thursday runs 1 till 4") == [
        "2031-03-13T13:00",
        "2031-03-13T16:00",
    ]
    assert values("datetime", "yoga on Tuesday, 6 to 7.30pm") == [
        "2031-03-11T18:00",
        "2031-03-11T19:30",
    ]


def test_each_of_several_dates_takes_the_time_said_beside_it() -> None:
    text = "Out on the 4 May at 06:40, back on the 9 May at 21:05."
    assert values("datetime", text) == ["2031-05-04T06:40", "2031-05-09T21:05"]
    text = "ferry 11:30 to Bilbao, 5 June. Return sails 17:45 on 12 June."
    assert values("datetime", text) == ["2031-06-05T11:30", "2031-06-12T17:45"]


def test_a_date_without_a_time_stays_a_date() -> None:
    assert values("datetime", "the plumber comes on Friday") == ["2031-03-14"]
    assert values("datetime", "we paid 30 for 2 tickets on 1 April") == ["2031-04-01"]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("guesthouse in Galway, 5 nights from the 18th", ["2031-03-18", "2031-03-23"]),
        ("cabin from 2 April, three nights", ["2031-04-02", "2031-04-05"]),
        # two dates say the stay already: the nights add nothing
        ("hotel 2 to 6 April, 4 nights", ["2031-04-02", "2031-04-06"]),
        # nights said far from the date are no stay of it
        ("I slept badly two nights running and the dentist is on 2 April", ["2031-04-02"]),
    ],
)
def test_a_stay_said_in_nights_ends_that_many_days_after_its_date(
    text: str, want: list[str]
) -> None:
    assert values("date", text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("the water bill is 48 a month", ["48"]),
        ("phone contract 22.50/month", ["22.50"]),
        ("rent comes to 745,50 per month", ["745.50"]),
        ("the savings plan takes 3k every month", ["3000"]),
        ("the allotment is 60 a year", ["60"]),
        # counts and times said per period are no money
        ("I swim 3 times a week", []),
        ("we meet at 7 every week", []),
    ],
)
def test_an_amount_said_per_period_without_its_currency(text: str, want: list[str]) -> None:
    assert [v["amount"] for v in values("amount", text)] == want  # type: ignore[index]


def test_an_amount_with_its_currency_still_wins() -> None:
    assert values("amount", "£12 a month, was 10 a month") == [{"amount": "12", "currency": "GBP"}]


def test_what_starts_is_still_to_come_in_a_sentence_of_the_past() -> None:
    # a past-preferring slot (a medication's start) reads "starting Thursday" onward
    assert values("date", "the GP put me on it, starting Thursday", "past") == ["2031-03-13"]
    assert values("date", "she prescribed it beginning on 2 April", "past") == ["2031-04-02"]
    # ... and a day said without "starting" stays in the past
    assert values("date", "the GP put me on it on Thursday", "past") == ["2031-03-06"]
    assert values("date", "she prescribed it on 2 April", "past") == ["2030-04-02"]


def test_a_course_for_some_days_from_today_starts_today() -> None:
    said = find_dates("antibiotics for 10 days from today", MONDAY, "past")
    assert [d.date for d in said] == [MONDAY]
    # "10 days from today" alone is the day ten days on
    said = find_dates("the results come 10 days from today", MONDAY)
    assert [d.date for d in said] == [MONDAY + dt.timedelta(days=10)]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("allergic to ibuprofen, came up in hives all over last time", ["hives"]),
        ("also wasps, nothing bad, just a rash", ["rash"]),
        ("prawns give me swollen lips", ["swollen lips"]),
        # the vague words say no reaction
        ("I was sick all week, allergic to cats though", []),
    ],
)
def test_a_reaction_is_read_by_the_words_the_rules_read(text: str, want: list[str]) -> None:
    assert values("reaction", text) == want


def test_a_weekday_that_contradicts_its_date_stays_flagged_not_timed() -> None:
    # explicit dates beat weekdays: the disagreement is flagged and the slot stays empty
    said = find_dates("Tuesday 14 March at 10", MONDAY)
    assert said[0].conflict is not None
    assert values("datetime", "Tuesday 14 March at 10") == []


def test_a_bare_day_number_is_read_inside_the_days_the_conversation_last_named() -> None:
    earlier = named_span("we fly out 27 December and come home 4 January", MONDAY)
    assert earlier == (dt.date(2031, 12, 27), dt.date(2032, 1, 4))
    with continuing(earlier):
        # the 2nd inside the trip, not the next 2nd after the message's day
        assert values("datetime", "the ferry back is on the 2nd at 09:10") == ["2032-01-02T09:10"]
        # a day number that falls outside those days is the next such day, as without them
        assert values("date", "and the boiler service is on the 15th") == ["2031-03-15"]
    assert values("date", "the ferry back is on the 2nd") == ["2031-04-02"]


def test_the_days_named_count_a_range_said_with_one_month() -> None:
    assert named_span("off work 9 to 20 June", MONDAY) == (
        dt.date(2031, 6, 9),
        dt.date(2031, 6, 20),
    )
    # relative days and weekdays name no month of their own
    assert named_span("see you tomorrow, or on Friday the 14th", MONDAY) is None
    assert nth_inside((dt.date(2031, 6, 9), dt.date(2031, 6, 20)), 21) is None


def test_a_second_bare_day_number_continues_from_the_first() -> None:
    assert values("date", "the cottage: in on the 28th, out on the 3rd") == [
        "2031-03-28",
        "2031-04-03",
    ]


def test_the_frames_windows_carry_the_days_the_session_named_before() -> None:
    from uac.fact_log.extraction import frames

    at = dt.datetime(2031, 3, 10, 9, 0)
    history = [("Flying to Oslo on 3 May, back 9 May.", at), ("lovely weather today", at)]
    wins = frames.windows("The hotel is booked. Check-in is the 4th.", history, MONDAY)
    assert [w.named for w in wins] == [(dt.date(2031, 5, 3), dt.date(2031, 5, 9))] * 2
    wins = frames.windows("Off 1 to 5 June. Then the 2nd is a dentist.", (), MONDAY)
    assert wins[0].named is None
    assert wins[1].named == (dt.date(2031, 6, 1), dt.date(2031, 6, 5))


def test_an_email_and_a_phone_number_are_read_as_written() -> None:
    text = "my aunt Rosa, her mobile is +44 7700 900123 and email rosa.m@example.org."
    assert values("email", text) == ["rosa.m@example.org"]
    assert values("phone@number|mobile|phone", text) == ["+44 7700 900123"]
    # a date or a short number beside the word is no phone number
    assert values("phone@number|mobile|phone", "my number changed on 2031-03-04") == []
    assert values("phone@number|mobile|phone", "room number 412") == []


def test_a_contact_frame_takes_the_phone_said_with_the_person() -> None:
    from uac.fact_log.extraction import frames

    contact = next(f for f in frames.load_frames() if f.path == "contacts.contacts")
    filled = frames.fill(contact, "My cousin Dario, his number is 0161 496 0000", MONDAY)
    assert filled is not None
    assert filled[0] == {"name": "Dario", "relationship": "cousin", "phone": "0161 496 0000"}


def test_a_subscription_frame_takes_its_start_and_renewal_days() -> None:
    from uac.fact_log.extraction import frames

    sub = next(f for f in frames.load_frames() if f.path == "finance.subscriptions")
    filled = frames.fill(
        sub, "Signed up for Audible today, £7.99 a month, renews on the 12th", MONDAY
    )
    assert filled is not None
    value = filled[0]
    assert (value["started_on"], value["renews_on"]) == ("2031-03-10", "2031-03-12")
    # without a word of joining, no start day is guessed
    filled = frames.fill(sub, "I pay 4.99 a month for Audible since the 2nd", MONDAY)
    assert filled is not None and "started_on" not in filled[0]


def test_a_day_taken_from_the_sentence_before_keeps_the_time_said_now() -> None:
    from uac.fact_log.extraction import frames

    booking = next(f for f in frames.load_frames() if f.path == "travel.bookings")
    before = "Flights to Porto are booked for 4 June."
    filled = frames.fill(booking, "The flight leaves Gatwick 06:50.", MONDAY, before)
    assert filled is not None and filled[0]["start"] == "2031-06-04T06:50"
    # no time said now: the day (and time) said before
    filled = frames.fill(booking, "The flight leaves Gatwick.", MONDAY, before)
    assert filled is not None and filled[0]["start"] == "2031-06-04"


def test_a_booked_table_is_titled_by_where_it_is() -> None:
    assert values("topic", "booked a table at Osteria Lucca for Saturday 8pm") == ["Osteria Lucca"]
    assert values("topic", "the quiz night is on Thursday at the Crown") == ["quiz night"]


def test_the_name_a_booking_is_under() -> None:
    kind = "full_name@under|name on|name is|guest|passenger|dear"
    assert values(kind, "ferry booked under 'Maren Holt' for 2 May") == ["Maren Holt"]
    assert values(kind, "guest: TOMAS NOVAK, 2 nights") == ["TOMAS NOVAK"]
    assert values(kind, "Flight to New York on Friday") == []


def test_a_day_taken_from_the_sentence_before_moves_by_the_offset_said_now() -> None:
    from uac.fact_log.extraction import frames

    task = next(f for f in frames.load_frames() if f.path == "tasks.tasks")
    before = "The allotment lease runs out on 30 September."
    said = "I have to hand back the keys two weeks before it runs out."
    filled = frames.fill(task, said, MONDAY, before)
    assert filled is not None and filled[0]["due_date"] == "2031-09-16"
    # no offset said: the day said before
    filled = frames.fill(task, "I have to hand back the keys.", MONDAY, before)
    assert filled is not None and filled[0]["due_date"] == "2031-09-30"


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I also have ibuprofen 400 in the bag", ["400"]),
        ("Also on sertraline 100. Two years.", ["100"]),
        ("Amoxicillin 500 three times a day", ["500"]),
        ("sertraline 50 mg at night", ["50 mg at night"]),
        ("took ibuprofen 3 times yesterday", []),
        ("paracetamol 2 tablets", []),
        ("on metformin 2019 onwards", []),
        ("ibuprofen 400-600 as needed", []),
        ("I have 400 photos", []),
    ],
)
def test_a_bare_strength_after_a_drug_name_is_its_dose(text: str, want: list[str]) -> None:
    found = parser("dose")(text, dt.date(2027, 1, 1), "future")
    assert [f.value for f in found] == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a weekday said in the plural, or two weekdays joined as one, repeats every week
        ("pottery, Wednesdays 6-8pm", ["weekly"]),
        ("climbing tue + thu 19:00 at the wall", ["weekly"]),
        ("long days Mon/Tue 07:30-20:00", ["weekly"]),
        ("gym tues thurs 7am", ["weekly"]),
        ("PT at the base gym MWF 0600", ["weekly"]),
        ("I'm free on Monday", []),
    ],
)
def test_an_event_said_on_weekdays_in_the_plural_or_joined_repeats_weekly(
    text: str, want: list[str]
) -> None:
    assert values("repeats", text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # an airline, a flight number written with a space, a route of airport codes
        ("Turkish Airlines, back on the 2nd", ["flight"]),
        ("KQ 762 on the 4th at 10.25am", ["flight"]),
        ("GOT–IST–IKA on 2031-03-18", ["flight"]),
        ("the UK 2030 plan", []),  # a country and a year, no flight number
        # where one sleeps, by the kinds of lodging
        ("the riad check-out is the 7th", ["hotel", "hotel"]),
        ("Homestay booked 3 nights", ["hotel"]),
    ],
)
def test_a_booking_is_a_flight_or_a_stay_by_the_words_that_book_it(
    text: str, want: list[str]
) -> None:
    assert values("booking_kind", text) == want


@pytest.mark.parametrize(
    "text",
    [
        "DDs on NatWest: council tax £186/month",
        "car insurance R2 450, debit order goes off on the 3rd",
        "the crèche by prélèvement from the joint account",
        "the car loan goes by débito automático the 5 of every month",
        "rent auto-debit from BCA every 5th",
        "rent goes out by pre-authorized debit on the first",
    ],
)
def test_a_direct_debit_is_read_as_the_banks_of_its_country_name_it(text: str) -> None:
    assert values("pay_method", text) == ["direct_debit"]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a titled name is the name without its title, with the relation said right before
        ("My dentist is Dr. Alvarez.", [{"name": "Alvarez", "relationship": "dentist"}]),
        ("landlord is Mr Adeyemi, 07700 900431", [{"name": "Adeyemi", "relationship": "landlord"}]),
        ("our new solicitor, Mrs Fiona McAllister of Brodies", [{"name": "Fiona McAllister"}]),
        # a relation opening a clause or after "with" needs no "my"; "my" as dialects say it
        ("Sister Rosalind's 50th: 17 June.", [{"name": "Rosalind", "relationship": "sister"}]),
        ("Seoul with bestie Dinda 14-20 aug", [{"name": "Dinda", "relationship": "friend"}]),
        ("mi sister Marcia say hello", [{"name": "Marcia", "relationship": "sister"}]),
        ("hubby Marcus also going", [{"name": "Marcus", "relationship": "husband"}]),
        # no relation, no title: nobody
        ("I met with Sarah tomorrow", []),
    ],
)
def test_a_person_is_read_by_a_title_or_a_relation_said_before_the_name(
    text: str, want: list[dict[str, str]]
) -> None:
    assert values("person", text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # the word after a make names its model: a capitalised word or a code
        ("the Kenworth T610 2021 model just ticked over", ["T610"]),
        ("My car is Hyundai Elantra 2016, now 187,000 km.", ["Elantra"]),
        ("my BMW 320d (2019) went in for the big service", ["320d"]),
        ("a 2022 Peterbilt 579 period", ["579"]),
        ("bought a 2012 mazda demio off trade me", ["demio"]),  # a make written in lower case
        # never a year, an everyday word, or a lower-case word after a capitalised make
        ("Toyota from 2014, runs fine", []),
        ("my Honda is in the garage", []),
        ("the Toyota dealer said so", []),
        ("my Toyota went to the garage", []),
    ],
)
def test_a_model_is_the_word_after_its_make(text: str, want: list[str]) -> None:
    assert values("vehicle_model", text) == want
