"""Events and away periods read from conversation.

Each construct is tested in sentences invented for the test, in other words and registers
(terse, lowercase, non-native, dictated, pasted) than the tuning sets', with negatives
alongside: other people's facts, questions, hypotheticals and plans find nothing of the
path. Unless a test says otherwise, AT is Sunday 1 June 2025 (tests/candidates.py).
"""

from __future__ import annotations

import datetime as dt

import pytest

from tests.candidates import AT, D, T, found, of, values
from uac.fact_log.extraction.timemodel import clock, date_notes, find_dates


def _tasks(text: str, *earlier: str) -> list[dict]:
    return of("tasks.tasks", found(text, *earlier))


def _events(text: str, *earlier: str) -> list[dict]:
    return of("schedule.events", found(text, *earlier))


def _days(text: str) -> list:

    return [d.date for d in find_dates(text, AT.date(), "future")]


AT_MONDAY = dt.datetime(2025, 3, 10, 9)  # a Monday


# -- a repeating event's series end is not one occurrence's end ----------------------------


@pytest.mark.parametrize(
    ("text", "start", "until"),
    [
        ("Pottery class every Wednesday at 7pm until 25 June.", T(2025, 6, 4, 19), D(2025, 6, 25)),
        (
            "Choir practice on Thursdays at 8pm till the 26th of June.",
            T(2025, 6, 5, 20),
            D(2025, 6, 26),
        ),
    ],
)
def test_a_series_until_a_day_keeps_one_occurrence_short(
    text: str, start: dt.datetime, until: dt.date
) -> None:
    [event] = of("schedule.events", found(text))
    assert event["start"] == start and event["repeats"] == "weekly"
    assert event["repeat_until"] == until
    # the occurrence ends the day it starts; the series end is repeat_until, not `end`
    assert event.get("end") is None or event["end"].date() == start.date()


# -- one thing learned twice should be named alike: no verbs or sentence capitals in names ---


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("I joined choir practice, every Monday at 8pm.", "Choir practice"),
        ("Started a pottery class every Wednesday at 7pm.", "Pottery class"),
    ],
)
def test_an_event_title_leaves_out_the_verb_that_joined_it(text: str, title: str) -> None:
    assert [e["title"] for e in of("schedule.events", found(text))] == [title]


# -- schedule: a booking of a named place, guests staying for days -------------------------


@pytest.mark.parametrize(
    ("text", "title", "start", "end"),
    [
        (
            "I booked the Sky Garden for 3 July from 11 till 1pm.",
            "Sky Garden",
            T(2025, 7, 3, 11),
            T(2025, 7, 3, 13),
        ),
        ("Also booked Kew Gardens for July 9 at 10am.", "Kew Gardens", T(2025, 7, 9, 10), None),
    ],
)
def test_a_named_place_booked_for_a_day_is_an_event(
    text: str, title: str, start: dt.datetime, end: dt.datetime | None
) -> None:
    [ev] = of("schedule.events", found(text))
    assert ev["title"] == title and ev["start"] == start and ev.get("end") == end


@pytest.mark.parametrize(
    "text",
    [
        "I booked Lisbon for 3 July.",  # a city booked is a trip, not an event
        "Should I book the Sky Garden for 3 July?",
        "My friend booked the Sky Garden for 3 July.",
    ],
)
def test_no_event_from_a_city_a_question_or_someone_elses_booking(text: str) -> None:
    assert of("schedule.events", found(text)) == []


@pytest.mark.parametrize(
    ("text", "first", "last"),
    [
        (
            "My in-laws are staying with us from the 4th to the 8th of August.",
            D(2025, 8, 4),
            D(2025, 8, 8),
        ),
        ("Our friends are visiting from 12 to 15 July.", D(2025, 7, 12), D(2025, 7, 15)),
    ],
)
def test_guests_staying_for_days_are_one_event_with_a_start_and_an_end(
    text: str, first: dt.date, last: dt.date
) -> None:
    [ev] = of("schedule.events", found(text))
    assert ev["start"].date() == first and ev["end"].date() == last


def test_guests_who_might_stay_are_not_an_event() -> None:
    text = "My in-laws might stay with us from the 4th to the 8th of August."
    assert of("schedule.events", found(text)) == []


# -- dates and times -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("The workshop on Tuesday is 10 till 1", T(2025, 6, 3, 10), T(2025, 6, 3, 13)),
        ("Electrician coming tmrw between 8 and 10", T(2025, 6, 2, 8), T(2025, 6, 2, 10)),
        ("Quiz night Saturday 14th from 8pm at the Crown", T(2025, 6, 14, 20), None),
        ("hearing test Thursday at 9:45", T(2025, 6, 5, 9, 45), None),
    ],
)
def test_event_times(text: str, start: dt.datetime, end: dt.datetime | None) -> None:
    [event] = of("schedule.events", found(text))
    assert event["start"] == start
    assert event.get("end") == end


def test_a_bare_number_range_with_to_is_not_a_time() -> None:
    # "2 to 3" people, pages, ...: only "till/until" or from/between make bare hours a range
    [event] = of("schedule.events", found("The team lunch on Friday is for 2 to 3 of us"))
    assert event.get("end") is None


# -- away periods --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("We'll be out of the country 12-20 July.", D(2025, 7, 12), D(2025, 7, 20)),
        ("Holiday booked! 4 to 9 August.", D(2025, 8, 4), D(2025, 8, 9)),
        ("Time off approved, 18 to 22 August", D(2025, 8, 18), D(2025, 8, 22)),
        ("I'm off work from the 28th until 3 July", D(2025, 6, 28), D(2025, 7, 3)),
    ],
)
def test_away_periods(text: str, start: dt.date, end: dt.date) -> None:
    [away] = of("schedule.away_periods", found(text))
    assert (away["start"], away["end"]) == (start, end)


def test_someone_elses_leave_is_not_the_users() -> None:
    assert not of("schedule.away_periods", found("My manager's leave got approved, 4 to 9 August."))


# -- corrections ---------------------------------------------------------------------------


def test_a_time_corrected_with_actually_mid_sentence() -> None:
    cands = found(
        "hmm, the hearing test is actually at 9:15, not 9:45", "hearing test Thursday at 9:45"
    )
    [event] = of("schedule.events", cands)
    assert event["start"] == T(2025, 6, 5, 9, 15)


def test_an_event_moved_in_the_present_tense_keeps_its_time() -> None:
    cands = found("I'm going to move the review to Friday, same time", "Team review Tuesday at 3pm")
    [event] = of("schedule.events", cands)
    assert event["start"] == T(2025, 6, 6, 15, 0)


def test_moving_house_is_not_a_correction() -> None:
    assert not of("schedule.events", found("we might move to Leeds", "Team review Tuesday at 3pm"))


def test_an_event_named_with_digits_can_be_moved() -> None:
    cands = found(
        "I'll push the 1:1 to Thursday, same time", "I have a 1:1 with Sam at 2 on Tuesday"
    )
    [event] = of("schedule.events", cands)
    assert event["start"] == T(2025, 6, 5, 14, 0)


# -- more trips, insurance, tasks, payments, purchases -------------------------------------


@pytest.mark.parametrize(
    ("text", "repeats"),
    [
        ("From Tuesday I've got pottery classes every week, 7 to 9pm", "weekly"),
        ("Book club every other week on Thursday at 8pm", "fortnightly"),
    ],
)
def test_a_series_said_by_its_period(text: str, repeats: str) -> None:
    [event] = of("schedule.events", found(text))
    assert event["repeats"] == repeats


def test_a_series_end_said_after_the_series() -> None:
    earlier = "From Tuesday I've got pottery classes every week, 7 to 9pm"
    [event] = of("schedule.events", found("they go on until the end of August", earlier))
    assert "pottery" in event["title"].lower() and event["repeat_until"] == D(2025, 8, 31)


def test_could_only_fit_me_in_is_a_booking() -> None:
    [event] = of("schedule.events", found("The dentist could only fit me in on 12 June at 10am"))
    assert event["start"] == T(2025, 6, 12, 10, 0)
    assert not of("schedule.events", found("The dentist could fit me in on 12 June at 10am maybe"))


# -- events: their day in the line before, fixtures, places after a comma, series ------------


def test_an_event_after_another_takes_its_day_and_a_trailing_place() -> None:
    first = "the christening is Saturday 7th at 11am"
    [ev] = of("schedule.events", found("the reception after is at the Crown, 1 till 4", first))
    assert (ev["start"], ev["end"]) == (T(2025, 6, 7, 13), T(2025, 6, 7, 16))
    assert ev["location"] == "Crown"
    [ev] = of("schedule.events", found("then Leo's graduation at 10am, Usher Hall", first))
    assert ev["start"] == T(2025, 6, 7, 10) and ev["location"] == "Usher Hall"
    assert "graduation" in ev["title"]


def test_a_fixture_is_an_event_titled_by_its_sides() -> None:
    [ev] = of("schedule.events", found("Celtic v Rangers, Sunday 15th, 12pm kick off at Hampden"))
    assert ev["title"] == "Celtic v Rangers"
    assert ev["start"] == T(2025, 6, 15, 12) and ev["location"] == "Hampden"


@pytest.mark.parametrize(
    ("text", "start", "repeats", "until"),
    [
        (
            "I've got swimming lessons every Wednesday at 5pm for four weeks",
            T(2025, 6, 4, 17),
            "weekly",
            D(2025, 6, 25),
        ),
        (
            "counselling every other Monday at 10am, six sessions",
            T(2025, 6, 2, 10),
            "fortnightly",
            D(2025, 8, 11),
        ),
        (
            "the team call moves to 8:45-9:00 from Tuesday, every working day",
            T(2025, 6, 3, 8, 45),
            "weekdays",
            None,
        ),
        (
            "physio exercises at 7am every weekday for two weeks from Monday",
            T(2025, 6, 2, 7),
            "weekdays",
            D(2025, 6, 13),
        ),
    ],
)
def test_a_series_said_by_its_length_or_every_weekday(
    text: str, start: dt.datetime, repeats: str, until: dt.date | None
) -> None:
    [ev] = of("schedule.events", found(text))
    assert (ev["start"], ev["repeats"], ev.get("repeat_until")) == (start, repeats, until)


# -- away periods and plans ----------------------------------------------------------------


def test_away_with_a_place_is_also_a_trip_and_a_leave_said_after_and() -> None:
    cands = found("I'm out of office 9-13 June, offsite in Madrid")
    [trip] = of("travel.trips", cands)
    assert (trip["city"], trip["depart"], trip["return_date"]) == (
        "Madrid",
        D(2025, 6, 9),
        D(2025, 6, 13),
    )
    assert [(a["start"], a["end"]) for a in of("schedule.away_periods", cands)] == [
        (D(2025, 6, 9), D(2025, 6, 13))
    ]
    assert of("schedule.events", cands) == []  # the days are the trip's, not an event's
    [away] = of("schedule.away_periods", found("and on annual leave from July 7th to the 11th"))
    assert (away["start"], away["end"]) == (D(2025, 7, 7), D(2025, 7, 11))
    assert of("travel.trips", found("and on leave from July 7th to the 11th, no plans")) == []


def test_a_beginning_or_an_activity_with_day_and_time_is_an_event() -> None:
    [ev] = of("schedule.events", found("I start the new placement on July 7th"))
    assert ev == {"title": "Start new placement", "start": T(2025, 7, 7)}
    [ev] = of("schedule.events", found("we're kayaking on Saturday 14 June at 10am"))
    assert ev == {"title": "Kayaking", "start": T(2025, 6, 14, 10)}


@pytest.mark.parametrize(
    "text",
    [
        "we're thinking of kayaking on Saturday 14 June at 10am",  # not yet a plan
        "we're kayaking on Saturday 14 June",  # no time said
        "my son starts the new school on 3 September",  # someone else's
        "I started the new job on 2 May",  # the past
    ],
)
def test_no_event_for_moods_others_or_the_past(text: str) -> None:
    assert of("schedule.events", found(text)) == []


# -- trips said loosely: lower case, a place alone, its days next, a route -------------------


def test_leave_booked_then_its_days() -> None:
    [away] = of("schedule.away_periods", found("booked annual leave: out of office 4 to 15 August"))
    assert (away["start"], away["end"]) == (D(2025, 8, 4), D(2025, 8, 15))


def test_an_event_named_alone_takes_the_details_that_follow() -> None:
    text = (
        "I signed up for a pottery class! Thursdays 6 to 8pm, starting this week, until end of July"
    )
    [ev] = of("schedule.events", found(text))
    assert (ev["start"], ev["end"]) == (T(2025, 6, 5, 18), T(2025, 6, 5, 20))
    assert (ev["repeats"], ev["repeat_until"]) == ("weekly", D(2025, 7, 31))
    # a sentence about someone else after it lends no details
    assert of("schedule.events", found("I joined a choir! she sings on Thursdays at 7pm")) == []


# -- home: where the user lives, and visits to it --------------------------------------------


def test_a_delivery_or_collection_at_home_is_an_event() -> None:
    [ev] = of(
        "schedule.events", found("the new fridge is getting delivered on Friday 6th, 8 till 12")
    )
    assert ev["title"] == "Fridge delivered"
    assert (ev["start"], ev["end"]) == (T(2025, 6, 6, 8), T(2025, 6, 6, 12))
    assert of("schedule.events", found("my sister's sofa is being delivered on Friday 6th")) == []


# -- events: a thing as the subject, then its day and time of day ------------------------------


@pytest.mark.parametrize(
    ("text", "title", "start", "end"),
    [
        (
            "the gas safety check is friday between 9 and 11",
            "Gas safety check",
            T(2025, 6, 6, 9),
            T(2025, 6, 6, 11),
        ),
        ("ECG is on thursday the 12th at 8:15", "ECG", T(2025, 6, 12, 8, 15), None),
        (
            "window cleaner booked for monday afternoon 2-4",
            "Window cleaner",
            T(2025, 6, 2, 14),
            T(2025, 6, 2, 16),
        ),
    ],
)
def test_a_thing_with_its_day_and_time_is_an_event(
    text: str, title: str, start: dt.datetime, end: dt.datetime | None
) -> None:
    [ev] = of("schedule.events", found(text))
    assert (ev["title"], ev["start"], ev.get("end")) == (title, start, end)


@pytest.mark.parametrize(
    "text",
    [
        "it's on tuesday at 3pm",
        "my dad's scan is on friday at 2pm",
        "is the boiler service wednesday at 8?",
        "the score was 8-1 on saturday",
        "the gas check was friday at 9",
    ],
)
def test_no_event_from_these_slots(text: str) -> None:
    assert of("schedule.events", found(text)) == []


# -- tasks: where a thing stands, reminders without a day -------------------------------------


def test_ringing_a_place_is_no_appointment() -> None:
    assert of("schedule.events", found("need to ring the surgery on monday")) == []


# -- tasks asked of the user, time left, things signed up for --------------------------------


def test_what_the_user_signed_up_for_is_an_event() -> None:
    [ev] = of("schedule.events", found("just registered for a sprint triathlon!! 12 to 13 July"))
    assert ev["title"] == "Sprint triathlon" and ev["start"] == T(2025, 7, 12)
    [ev] = of(
        "schedule.events",
        found("signed up for life drawing, Tuesdays 7-9pm, starting 3 June for 6 weeks"),
    )
    assert (ev["start"], ev["end"], ev["repeats"]) == (
        T(2025, 6, 3, 19),
        T(2025, 6, 3, 21),
        "weekly",
    )
    assert ev["repeat_until"] == D(2025, 7, 8)


def test_signing_up_to_a_service_is_no_event() -> None:
    assert of("schedule.events", found("signed up for Headspace today, £9.99 a month")) == []


# -- smaller families: purpose by who booked, hire place, home after a comma, layovers, ----------
# -- activities booked in a place, deadlines that are not departures, regions, owned days -----


def test_a_booked_stay_is_no_event() -> None:
    assert of("schedule.events", found("booked a cottage in Keswick for 4 to 8 July")) == []


def test_a_terse_weekly_habit_is_one_series_per_weekday() -> None:
    evs = of("schedule.events", found("swim mon & wed 6:30am"))
    assert [(e["title"], e["start"], e["repeats"]) for e in evs] == [
        ("Swim", T(2025, 6, 2, 6, 30), "weekly"),
        ("Swim", T(2025, 6, 4, 6, 30), "weekly"),
    ]


@pytest.mark.parametrize("text", ["the meeting was tues 3pm", "what about fri 6pm"])
def test_no_habit_from_these(text: str) -> None:
    assert [e for e in of("schedule.events", found(text)) if e.get("repeats")] == []


# -- tasks: an obligation or an errand with its day ------------------------------------------


def test_an_errand_said_as_an_order_with_a_day_is_a_task() -> None:
    # AT is Sunday 1 June 2025
    assert _tasks("ring the council tomorrow") == [
        {"goal": "Ring the council", "status": "planned", "due_date": D(2025, 6, 2)}
    ]
    assert [t["due_date"] for t in _tasks("pls pay the nursery invoice by friday")] == [
        D(2025, 6, 6)
    ]
    assert of("schedule.events", found("call the garage tomorrow")) == []
    assert _tasks("call me tomorrow") == []
    assert _tasks("book the vet?") == []


# -- events: "<thing> is <day> <time>", one a clause, any thing ------------------------------


def test_every_clause_that_says_a_thing_its_day_and_time_is_an_event() -> None:
    events = _events("stats midterm is weds 4th june at 9am in Hall B, lab is fri 6th 2:15")
    assert [(e["title"], e["start"]) for e in events] == [
        ("Stats midterm", T(2025, 6, 4, 9, 0)),
        ("Lab", T(2025, 6, 6, 14, 15)),
    ]


def test_a_long_title_or_a_dash_joins_the_thing_to_its_slot() -> None:
    events = _events("parents meet and greet for year 3 is thurs 12th june 1.30pm")
    assert [(e["title"], e["start"]) for e in events] == [
        ("Parents meet and greet for year 3", T(2025, 6, 12, 13, 30))
    ]
    events = _events("car boot sale pitch - Sun 15th June, 7am till 1pm at Heaton Park")
    assert events == [
        {
            "title": "Car boot sale pitch",
            "start": T(2025, 6, 15, 7, 0),
            "end": T(2025, 6, 15, 13, 0),
            "location": "Heaton Park",
        }
    ]


def test_same_day_is_the_day_just_talked_about() -> None:
    events = _events("my haircut is 5pm same day", "the school play is fri 13th june 6pm")
    assert [e["start"] for e in events] == [T(2025, 6, 13, 17, 0)]
    assert _events("my haircut is 5pm same day") == []  # no day said before


def test_a_journey_said_as_a_slot_is_no_event() -> None:
    assert _events("ah the train back is 6pm on the 9th, fine") == []
    assert _events("so our return flight from Faro is 7am on the 12th") == []


# -- away periods, asked-for deadlines, a bare ordinal after "is" ----------------------------


def test_days_before_the_away_cue_and_a_non_native_preposition() -> None:
    away = of("schedule.away_periods", found("From 4 to 18 of July we are in vacations in Galicia"))
    assert away == [{"start": D(2025, 7, 4), "end": D(2025, 7, 18), "reason": "vacation"}]


def test_a_bare_ordinal_after_is_is_a_day() -> None:
    assert [e["start"] for e in _events("physio rang, session is 12th at 4pm")] == [
        T(2025, 6, 12, 16, 0)
    ]
    assert _days("my 30th birthday party was great") == []


def test_a_weekly_range_of_hours_said_in_words() -> None:
    events = _events("swimming lessons every Thursday five to six thirty starting tomorrow")
    assert [(e["start"], e.get("end"), e.get("repeats")) for e in events] == [
        (T(2025, 6, 5, 17, 0), T(2025, 6, 5, 18, 30), "weekly")  # the first Thursday on
    ]


def test_a_weekly_series_starts_on_its_weekday_on_or_after_the_day_said() -> None:
    events = _events("choir on wednesdays at 7pm starting tomorrow")
    assert [e["start"] for e in events] == [T(2025, 6, 4, 19, 0)]


# -- offsets from a dated paper, slashed dates, "off until", a passport's name ---------------


def test_off_until_a_day_is_away_from_today() -> None:
    away = of("schedule.away_periods", found("told my boss I'm off until Wednesday"))
    assert away == [{"start": D(2025, 6, 1), "end": D(2025, 6, 4)}]
    assert of("schedule.away_periods", found("the boiler is off until Wednesday")) == []


# -- lowercase writers, blank pages in other words, a four-word passport name, -------------


def test_an_events_days_said_alone_in_the_next_sentence() -> None:
    events = _events("signed up for a sailing course in Poole!! 7th to 9th August")
    assert [(e["start"], e.get("end")) for e in events] == [
        (T(2025, 8, 7, 0, 0), T(2025, 8, 9, 23, 59))
    ]


def test_a_weekly_slot_said_after_its_subject() -> None:
    wed = AT.replace(day=4)  # Wednesday 4 June 2025: next week's Thursday is the 12th
    said = "new book club: me, Priya and Sam, thursdays 7-9pm at the pub starting next week"
    events = of("schedule.events", found(said, at=wed))
    assert [(e["start"], e.get("end"), e["repeats"]) for e in events] == [
        (T(2025, 6, 12, 19, 0), T(2025, 6, 12, 21, 0), "weekly")
    ]
    assert "book club" in events[0]["title"].lower()
    said = "new running crew: wednesdays 6-7pm from the park, starting next week"
    events = of("schedule.events", found(said, at=wed))
    assert [(e["title"], e["start"]) for e in events] == [("Running crew", T(2025, 6, 11, 18, 0))]
    events = _events("shifts are saturdays 9am to 5pm, starting next sat")
    assert [(e["start"], e["repeats"]) for e in events] == [(T(2025, 6, 7, 9, 0), "weekly")]


@pytest.mark.parametrize(
    "text",
    [
        "and today the banking app shows Octopus took 212.40 again?",
        "The statement shows £40 from Netflix today.",
        "It shows up tomorrow.",
    ],
)
def test_shows_as_a_verb_is_no_event(text: str) -> None:
    assert values(text, "schedule.events") == []


def test_a_show_is_still_an_event() -> None:
    [show] = values("Comedy show tomorrow at 8pm.", "schedule.events")
    assert show["start"] == dt.datetime(2027, 3, 11, 20)


def test_day_numbers_of_a_date_are_no_hours() -> None:
    # "from 1 June" is the first of June, never 1pm: no event is made of a visa's validity
    said = "My Indian e-visa is valid from 1 June to 30 June."
    assert values(said, "schedule.events") == []
    [visa] = values(said, "identity.visas")
    assert str(visa["valid_until"]) == "2027-06-30"


# -- reviewers' defects ------------------------------------------------------------------


def test_a_day_and_months_dot_does_not_end_the_sentence() -> None:
    trips = of("travel.trips", found("Flying to Prague 27.12. and back 3.1."))
    assert [(t["depart"], t.get("return_date")) for t in trips] == [
        (D(2025, 12, 27), D(2026, 1, 3))
    ]
    away = of("schedule.away_periods", found("out of office 22.12 to 5.01, back after"))
    assert [(a["start"], a["end"]) for a in away] == [(D(2025, 12, 22), D(2026, 1, 5))]
    # a price is no date
    assert of("schedule.away_periods", found("paid 19.12 for the taxi")) == []


def test_next_week_said_on_a_sunday_is_flagged() -> None:
    sunday, monday = dt.date(2025, 6, 1), dt.date(2025, 6, 2)
    notes = date_notes("the course starts next week", sunday)
    assert notes == [
        {
            "kind": "ambiguous_date",
            "text": "next week",
            "readings": ["2025-06-02", "2025-06-09"],
            "stored": "2025-06-02",
        }
    ]
    assert date_notes("the course starts next week", monday) == []
    events = of("schedule.events", found("choir on thursdays 7pm, starting next week", at=AT))
    assert [e["start"] for e in events] == [T(2025, 6, 5, 19)]


# -- dates and times as continental and clipped writers write them -------------------------


def test_continental_hours_and_dotted_times_after_a_day() -> None:
    assert clock("rdv at 18h").start == dt.time(18)  # type: ignore[union-attr]
    assert clock("le cours à 9h30 puis").start == dt.time(9, 30)  # type: ignore[union-attr]
    assert clock("a 2h drive") is None and clock("48h later") is None
    events = of("schedule.events", found("osteo next thurs 2.40 for my back"))
    assert [e["start"] for e in events] == [T(2025, 6, 5, 14, 40)]


# -- "last" as an adjective is no past; a journey is not a calendar event -----------------


def test_a_booked_holiday_or_week_is_a_trip_not_an_event() -> None:
    cands = found("booked a last minute long weekend in Bruges, 12 to 15 march")
    assert of("schedule.events", cands) == []
    assert [t["city"] for t in of("travel.trips", cands)] == ["Bruges"]
    cands = found("Finally booked a proper holiday. crete 14-24 june")
    assert of("schedule.events", cands) == []
    assert of("schedule.events", found("booked a pottery course, starts 3 July 6pm")) != []


# -- where an event takes place ------------------------------------------------------------


def test_an_events_place_said_by_kind_street_or_number() -> None:
    def where(text: str) -> list[str | None]:
        return [e.get("location") for e in of("schedule.events", found(text))]

    assert where("book club is every Thursday at 7 pm in the library, never changes") == ["library"]
    assert where("Our team lunch is on 4 June at 1pm in Dock 9, Canary Wharf") == ["Dock 9"]
    assert where("dentist moved to fri 6th june 9am, Dr Patel on Station Rd") == ["Station Rd"]
    assert where("hairdresser on friday at 10 in the morning") == [None]


def test_an_events_place_said_by_more_kinds_of_place_in_lower_case() -> None:
    def where(text: str) -> list[str | None]:
        return [e.get("location") for e in of("schedule.events", found(text))]

    assert where("sketching class on 12 June at 2pm at the maritime museum") == ["maritime museum"]
    assert where("quiz night friday 13 june 8pm in the cricket clubhouse") == ["cricket clubhouse"]
    assert where("ferry party on 20 June at 6pm, we meet at pier 7") == ["pier 7"]
    # a kind of place said without its number is no place of its own
    assert where("interview on 10 June at 11am, meet me at the gate") == [None]


def test_a_series_said_til_a_day_ends_then() -> None:
    [event] = of("schedule.events", found("swim lessons every Monday at 5pm til 30 June"))
    assert event["repeats"] == "weekly" and event["repeat_until"] == D(2025, 6, 30)


# -- flights said with the verb; hours with their part of the day; weekly series ------------


def test_a_class_on_two_weekdays_is_two_weekly_series() -> None:
    events = of("schedule.events", found("plus french lessons mondays and wednesdays 10:30-12"))
    assert [(e["start"], e["end"], e["repeats"]) for e in events] == [
        (T(2025, 6, 2, 10, 30), T(2025, 6, 2, 12), "weekly"),
        (T(2025, 6, 4, 10, 30), T(2025, 6, 4, 12), "weekly"),
    ]
    assert clock("3 to 4 people") is None


def test_a_series_until_a_months_end() -> None:
    events = of("schedule.events", found("Swimming Fridays 6pm, weekly, to end August."))
    assert [(e["repeats"], e.get("repeat_until")) for e in events] == [("weekly", D(2025, 8, 31))]


# -- events: the one whose clause holds the day; diary notes; stays of other kinds ----------


def test_the_event_is_the_one_said_with_its_day() -> None:
    events = of(
        "schedule.events", found("dentist rang, the CT scan is on the 23rd at 10, cannot move")
    )
    assert [e["title"] for e in events] == ["CT scan"]
    events = of("schedule.events", found("Calendar: 9 June 14:00–15:30 mediation, Lincoln's Inn."))
    assert [(e["title"], e["start"], e["end"]) for e in events] == [
        ("Mediation", T(2025, 6, 9, 14), T(2025, 6, 9, 15, 30))
    ]


def test_a_riad_or_a_gite_booked_is_a_stay_not_an_event() -> None:
    cands = found("we booked a gite in the hills of Provence, from 2nd August, check-out the 9th")
    assert of("schedule.events", cands) == []
    stays = of("travel.bookings", cands)
    assert [(s["start"].date(), s["end"].date()) for s in stays] == [(D(2025, 8, 2), D(2025, 8, 9))]


# -- where the user is since a recent day; a correction keeps the year; "same day" ----------


def test_same_day_after_a_diary_line_is_its_day() -> None:
    events = of(
        "schedule.events",
        found("Same day 15:15 optician (Baker St).", "Diary: 9 June 14:00–15:30 mediation."),
    )
    assert [(e["start"], e.get("location")) for e in events] == [
        (T(2025, 6, 9, 15, 15), "Baker St")
    ]


# -- a term counted from an event the message dates by its verb -------------------------------


def test_a_weekly_slot_keeps_its_place_and_a_question_completes_no_task() -> None:
    events = of(
        "schedule.events", found("Choir is every Thursday at 7 pm in the village hall, always.")
    )
    assert [e.get("location") for e in events] == ["village hall"]
    tasks = of(
        "tasks.tasks",
        found("Q: can the return be filed online on a Sunday?", "tax return due 31 January"),
    )
    assert tasks == []


def test_a_reminder_to_call_is_no_call_and_two_event_words_make_one_title() -> None:
    cands = found("Remind me to ring the vet on Friday")
    assert of("schedule.events", cands) == []
    assert [t["due_date"] for t in of("tasks.tasks", cands)] == [D(2025, 6, 6)]
    events = of("schedule.events", found("our anniversary dinner at Nobu on Saturday 8pm"))
    assert [e["title"] for e in events] == ["Anniversary dinner"]


def test_leave_noted_with_its_days_is_an_away_period() -> None:
    away = of("schedule.away_periods", found("annual leave 11-15 August"))
    assert [(a["start"], a["end"]) for a in away] == [(D(2025, 8, 11), D(2025, 8, 15))]
    assert of("schedule.away_periods", found("my annual leave is 25 days a year")) == []


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


def test_a_bare_appointment_is_the_one_the_caller_named() -> None:
    events = of("schedule.events", found("Physio rang, next appointment is the 12th at 6pm."))
    assert events and events[0]["title"] == "Physio"


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


# -- second batch: dotted times after a date, short weekdays due, where a deliverable goes ----


def test_a_dotted_time_after_the_day_and_month() -> None:
    [ev] = of("schedule.events", found("Physio is 12 June 09.45 at the clinic"))
    assert ev["start"] == T(2025, 6, 12, 9, 45)


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


def test_a_place_names_particles_are_kept() -> None:
    [ev] = of("schedule.events", found("Dinner at Huis ter Duin on Friday at 7"))
    assert ev["location"] == "Huis ter Duin"
    [ev] = of("schedule.events", found("Meeting at Acme in London on Friday at 3"))
    assert ev["location"] == "Acme"


# -- "no, since 3 March": a medication's start, corrected ------------------------------------


def test_a_correction_after_an_appointment_still_moves_the_appointment() -> None:
    earlier = ("I started sertraline 50mg on 1 March.", "Dentist on 20 March at 10am.")
    assert [p for p, _ in found("sorry, the 21st", *earlier, at=AT_MONDAY)] == ["schedule.events"]
