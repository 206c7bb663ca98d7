"""Session 9 (h16r): reviewers' defects and the constructs behind blind5's misses in travel,
documents, schedule, tasks and contacts, each tested in other words and registers."""

from __future__ import annotations

import datetime as dt

from tests.candidates import AT, D, T, found, of
from uac.fact_log.extraction.patterns.ambiguity import date_notes
from uac.fact_log.extraction.patterns.timespan import clock

# -- reviewers' defects ------------------------------------------------------------------


def test_who_said_a_deadline_is_not_the_task() -> None:
    assert of("tasks.tasks", found("My boss says the deadline is Friday")) == []
    assert of("tasks.tasks", found("manager reckons our deadline is the 20th")) == []
    tasks = of("tasks.tasks", found("my supervisor said the chapter draft is due on 14 June"))
    assert [t["goal"] for t in tasks] == ["Chapter draft"]
    tasks = of(
        "tasks.tasks", found("landlord told me the deposit form has to be returned by the 20th")
    )
    assert [(t["goal"], t["due_date"]) for t in tasks] == [("Deposit form", D(2025, 6, 20))]
    assert of("tasks.tasks", found("Tom says his essay is due Friday")) == []


def test_a_trip_and_its_return_in_the_next_sentence_are_one_trip() -> None:
    trips = of("travel.trips", found("Off to Oslo on 12 August. Back on the 19th."))
    assert trips == [
        {"city": "Oslo", "country": "NO", "depart": D(2025, 8, 12), "return_date": D(2025, 8, 19)}
    ]
    trips = of("travel.trips", found("train to Lyon on 2 July! back home on the 6th"))
    assert [t.get("return_date") for t in trips] == [D(2025, 7, 6)]


def test_a_day_and_months_dot_does_not_end_the_sentence() -> None:
    trips = of("travel.trips", found("Flying to Prague 27.12. and back 3.1."))
    assert [(t["depart"], t.get("return_date")) for t in trips] == [
        (D(2025, 12, 27), D(2026, 1, 3))
    ]
    away = of("schedule.away_periods", found("out of office 22.12 to 5.01, back after"))
    assert [(a["start"], a["end"]) for a in away] == [(D(2025, 12, 22), D(2026, 1, 5))]
    # a price is no date
    assert of("schedule.away_periods", found("paid 19.12 for the taxi")) == []


def test_staying_at_a_named_hotel_is_a_booking() -> None:
    stays = of("travel.bookings", found("Staying at the Marriott Vienna from 9 to 12 September."))
    assert stays == [
        {
            "kind": "hotel",
            "place": "Vienna",
            "start": T(2025, 9, 9, 15),
            "end": T(2025, 9, 12, 11),
        }
    ]
    stays = of(
        "travel.bookings",
        found("we're staying in a small guesthouse in Oban from the 3rd, two nights"),
    )
    assert [(s["place"], s["start"].date(), s["end"].date()) for s in stays] == [
        ("Oban", D(2025, 6, 3), D(2025, 6, 5))
    ]


def test_the_first_destination_is_the_trip_and_the_onward_leg_keeps_the_month() -> None:
    trips = of(
        "travel.trips", found("flying into Lisbon on 2 October, then on to Madrid on the 6th")
    )
    assert [(t["city"], t["depart"]) for t in trips] == [
        ("Lisbon", D(2025, 10, 2)),
        ("Madrid", D(2025, 10, 6)),
    ]
    assert all("return_date" not in t for t in trips)


def test_a_named_relatives_birthday_without_a_year_is_this_years_date() -> None:
    people = of("contacts.contacts", found("My brother Piotr's birthday is on the 3rd of october"))
    assert people == [{"name": "Piotr", "relationship": "brother", "birthday": D(2025, 10, 3)}]
    people = of("contacts.contacts", found("Grace birthday is on Nov 2"))
    assert people == [{"name": "Grace", "birthday": D(2025, 11, 2)}]
    assert of("contacts.contacts", found("Her birthday is 3 May")) == []
    # with the year of birth or an age, the date of birth
    people = of("contacts.contacts", found("Kim's birthday is 4 April, she was born in 1990"))
    assert people == [{"name": "Kim", "birthday": D(1990, 4, 4)}]


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


def test_dotted_day_and_month_without_a_closing_dot_after_a_days_word() -> None:
    stays = of("travel.bookings", found("Hotel Astoria in Riga, check-in 4.03, check-out 8.03."))
    assert [(s["start"].date(), s["end"].date()) for s in stays] == [(D(2026, 3, 4), D(2026, 3, 8))]


# -- "last" as an adjective is no past; a journey is not a calendar event -----------------


def test_a_last_minute_or_last_trip_is_still_to_come() -> None:
    trips = of("travel.trips", found("flying last minute to Dubrovnik, 14 to 21 september"))
    assert [t["depart"] for t in trips] == [D(2025, 9, 14)]
    trips = of("travel.trips", found("one last getaway before the baby: Edinburgh, 6 to 8 July"))
    assert [t["depart"] for t in trips] == [D(2025, 7, 6)]
    trips = of("travel.trips", found("drove to Leeds last weekend, 24 to 26 May"))
    assert [t["depart"] for t in trips] == [D(2025, 5, 24)]


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


# -- documents: insurance by "is", an extension, a passport named as the topic --------------


def test_an_insurer_said_with_is_and_its_days() -> None:
    pols = of(
        "identity.insurance_policies", found("my travel insurance is Allianz, only till 20 July!!")
    )
    assert pols == [{"kind": "travel", "provider": "Allianz", "valid_until": D(2025, 7, 20)}]
    pols = of(
        "identity.insurance_policies", found("Travel insurance is Aviva Plus, 10 Aug to 10 Sep")
    )
    assert [(p["provider"], p["valid_from"], p["valid_until"]) for p in pols] == [
        ("Aviva Plus", D(2025, 8, 10), D(2025, 9, 10))
    ]
    assert of("identity.insurance_policies", found("my travel insurance is Expensive")) == []


def test_a_policy_extended_in_the_next_line_takes_the_new_last_day() -> None:
    pols = of(
        "identity.insurance_policies",
        found("ok renewed, now it's until 31.08", "my travel insurance is Allianz, till 20 July."),
    )
    assert [p["valid_until"] for p in pols] == [D(2025, 8, 31)]


def test_a_passport_named_as_the_lines_topic_is_the_users() -> None:
    assert of("identity.passport.issuing_country", found("Kenyan passport, expires 2030")) == ["KE"]
    assert of("identity.passport.issuing_country", found("irish passport too btw")) == ["IE"]
    assert of("identity.passport.issuing_country", found("US passport holders need an ESTA")) == []
    assert of("identity.passport.issuing_country", found("British passport office is slow")) == []


# -- tasks: the goal by its relation to "due", the day by its relation to the ask -----------


def test_the_goal_is_the_thing_due_not_whom_it_is_for() -> None:
    tasks = of("tasks.tasks", found("Reminder: VAT return for the business due 7 August"))
    assert [(t["goal"], t["due_date"]) for t in tasks] == [("VAT return", D(2025, 8, 7))]
    tasks = of("tasks.tasks", found("Also: gas safety certificate, deadline 31/10."))
    assert [(t["goal"], t["due_date"]) for t in tasks] == [
        ("Gas safety certificate", D(2025, 10, 31))
    ]
    tasks = of("tasks.tasks", found("the visa paperwork has to be in with the embassy by 30 april"))
    assert [t["due_date"] for t in tasks] == [D(2026, 4, 30)]


def test_a_reminders_day_is_not_taken_from_another_clause() -> None:
    cands = found("my nephew Sam turns 18 on the 9th of next month, remind me to get him a card")
    assert [t.get("due_date") for t in of("tasks.tasks", cands)] == [None]
    assert [p["birthday"] for p in of("contacts.contacts", cands)] == [D(2007, 7, 9)]
    tasks = of("tasks.tasks", found("remind me on the 8th to send the meter reading"))
    assert [t["due_date"] for t in tasks] == [D(2025, 6, 8)]


# -- contacts: in-laws, grandchildren, honorifics, cards with a role, how met, local numbers --


def _people(text: str, *earlier: str) -> list[dict]:
    return of("contacts.contacts", found(text, *earlier))


def test_relations_said_in_more_words() -> None:
    assert _people("my father in law Henryk is staying over") == [
        {"name": "Henryk", "relationship": "father-in-law"}
    ]
    assert _people("My granddaughter Maisie's telephone is 555-0177, she's at college") == [
        {"name": "Maisie", "relationship": "granddaughter", "phone": "555-0177"}
    ]


def test_an_honorific_is_no_part_of_the_name() -> None:
    assert _people("My employer is Sir Rahul, his number +971 50 555 0188") == [
        {"name": "Rahul", "relationship": "employer", "phone": "+971 50 555 0188"}
    ]


def test_a_card_labelled_by_a_role_with_a_name_in_any_latin_letters() -> None:
    assert _people("new accountant: Tomasz Król, tomek.krol@biuro.pl, 601 234 567") == [
        {
            "name": "Tomasz Król",
            "role": "accountant",
            "email": "tomek.krol@biuro.pl",
            "phone": "601 234 567",
        }
    ]
    # an amount in groups of three is no phone
    assert _people("paid 512 345 678 zł for the flat") == []


def test_how_the_user_met_someone_said_after_the_name() -> None:
    people = _people("My friend Zoë from the running club, her number is 07700 900123")
    assert [p.get("how_met") for p in people] == ["from running club"]
    people = _people("My best friend here is Grace, she is also from Cebu, we met in church")
    assert people == [{"name": "Grace", "relationship": "best friend", "how_met": "in church"}]
    assert [p.get("how_met") for p in _people("my friend Tom from Leeds is visiting")] == [None]


# -- places written with their own letters; several places of one trip ----------------------


def test_a_place_written_with_accents_is_the_place() -> None:
    trips = of(
        "travel.trips",
        found("Going home to Poland for Easter, 10 to 20 April, to my dad in Gdańsk"),
    )
    assert [(t.get("city"), t["country"]) for t in trips] == [("Gdańsk", "PL")]


def test_places_listed_with_one_span_of_days_are_one_trip() -> None:
    trips = of("travel.trips", found("shooting in Tanzania, Arusha and Zanzibar, 3 to 17 March"))
    assert len(trips) == 1 and trips[0]["country"] == "TZ"


# -- flights said with the verb; hours with their part of the day; weekly series ------------


def test_a_flight_said_with_fly_and_its_time_is_a_booking() -> None:
    legs = of(
        "travel.bookings",
        found(
            "I fly with Ryanair from Kraków 3.03 at 6:15 in morning.",
            "Next job is in Iceland, Reykjavik, from 3 to 9 March.",
        ),
    )
    assert [(b["place"], b["start"]) for b in legs] == [("Kraków", T(2026, 3, 3, 6, 15))]
    assert clock("at 7 in the evening").start == dt.time(19)  # type: ignore[union-attr]


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


# -- documents: electronic travel authorisations; an insurer "in" a company -----------------


def test_electronic_travel_authorisations_are_visas() -> None:
    visas = of("identity.visas", found("I have the eTA for Canada since 2024, all good"))
    assert visas == [{"country": "CA", "kind": "eTA"}]
    assert of("identity.visas", found("got my NZeTA approved today")) == [
        {"country": "NZ", "kind": "NZeTA"}
    ]


def test_an_insurer_said_with_in_and_never_a_place() -> None:
    pols = of(
        "identity.insurance_policies",
        found("I bought travel insurance in Allianz, 1 August to 20 September"),
    )
    assert [(p["provider"], p["valid_until"]) for p in pols] == [("Allianz", D(2025, 9, 20))]
    assert (
        of(
            "identity.insurance_policies",
            found("I got travel insurance in Spain, 1 May to 20 July"),
        )
        == []
    )


# -- trips: a stay extended; a change of planes in lower case -------------------------------


def test_a_stay_extended_moves_the_return() -> None:
    trips = of(
        "travel.trips",
        found(
            "extended the flat, staying till 20 dec now",
            "heading to porto sept 5, staying till end of october",
        ),
    )
    assert [t["return_date"] for t in trips] == [D(2025, 12, 20)]


def test_a_change_of_planes_in_lower_case() -> None:
    trips = of("travel.trips", found("flying to rome on 3 july via munich, back 20 july"))
    assert [t.get("via") for t in trips] == [["Munich"]]


# -- where the user is since a recent day; a correction keeps the year; "same day" ----------


def test_here_since_a_recent_day_is_a_trip_and_the_current_place() -> None:
    cands = found("so I'm in porto since may 20, staying a while")
    assert of("places.location.city", cands) == ["Porto"]
    assert [t["depart"] for t in of("travel.trips", cands)] == [D(2025, 5, 20)]
    assert of("travel.trips", found("I'm in Berlin since 2019")) == []


def test_a_corrected_day_keeps_the_year_of_the_day_it_corrects() -> None:
    trips = of(
        "travel.trips",
        found(
            "no wait, may 22 not 20, always mix it up",
            "so I'm in porto since may 20, staying a while",
        ),
    )
    assert [t["depart"] for t in trips] == [D(2025, 5, 22)]


def test_same_day_is_the_day_just_talked_about() -> None:
    events = of(
        "schedule.events",
        found("Same day 15:15 optician (Baker St).", "Diary: 9 June 14:00–15:30 mediation."),
    )
    assert [(e["start"], e.get("location")) for e in events] == [
        (T(2025, 6, 9, 15, 15), "Baker St")
    ]


# -- pasted confirmations and printed names ---------------------------------------------------


def test_a_pasted_confirmation_gives_the_passenger_and_the_reference() -> None:
    legs = of(
        "travel.bookings",
        found(
            "fwd: 'Dear ADAEZE NWOSU, your reservation RT5K9P is confirmed. ABV-DXB EK786 dep "
            "02:40 on 3 Mar 2026. DXB-ABV EK785 dep 19:05 on 17 Mar 2026.'"
        ),
    )
    assert [(b["start"], b.get("traveller_name"), b.get("reference")) for b in legs] == [
        (T(2026, 3, 3, 2, 40), "ADAEZE NWOSU", "RT5K9P"),
        (T(2026, 3, 17, 19, 5), "ADAEZE NWOSU", "RT5K9P"),
    ]


def test_a_passport_name_printed_in_capitals() -> None:
    assert of("identity.passport.full_name", found("my passport name is ADAEZE NGOZI NWOSU")) == [
        "ADAEZE NGOZI NWOSU"
    ]


# -- routes with arrows; corrections that add a stop or change nothing; whose extension -----


def test_a_route_with_arrows_goes_to_its_last_place_via_the_middle_ones() -> None:
    trips = of("travel.trips", found("sorted. tokyo 3-17 may, flying london -> doha -> tokyo"))
    assert [(t["city"], t.get("via")) for t in trips] == [("Tokyo", ["Doha"])]


def test_a_correction_adds_the_stop_it_names() -> None:
    trips = of(
        "travel.trips",
        found("Correction, I fly already on the 2nd, via Vienna", "Shoot in Sofia, 3-8 August"),
    )
    assert [(t["depart"], t.get("via")) for t in trips] == [(D(2025, 8, 2), ["Vienna"])]


def test_a_correction_that_names_the_day_already_held_changes_nothing() -> None:
    trips = of(
        "travel.trips",
        found(
            "wait, the hotel check-out is the 6th but the flight back is the 7th",
            "We go to Seville from 1st to 7 July",
        ),
    )
    assert trips == []


def test_an_insurance_extended_is_not_a_stay_extended() -> None:
    cands = found(
        "ok extended, now it's until 31.08",
        "Shoot in Sofia, 3-8 August",
        "my travel insurance is Allianz, only till 6 August",
    )
    assert of("travel.trips", cands) == []
    assert [p["valid_until"] for p in of("identity.insurance_policies", cands)] == [D(2025, 8, 31)]


def test_a_round_birthday_and_a_note_opening_with_the_relation() -> None:
    assert _people("Brother Tomás's 40th: 2 July.") == [
        {"name": "Tomás", "relationship": "brother", "birthday": D(1985, 7, 2)}
    ]
    assert _people("my dad Jim's 70th is on the 15th") == [
        {"name": "Jim", "relationship": "father", "birthday": D(1955, 6, 15)}
    ]


def test_a_range_that_holds_today_is_this_years() -> None:
    at = T(2025, 5, 10, 9)
    pols = of(
        "identity.insurance_policies",
        found(
            "I bought travel insurance with Allianz for the summer, from 1 May to 20 July", at=at
        ),
    )
    assert [(p["valid_from"], p["valid_until"]) for p in pols] == [(D(2025, 5, 1), D(2025, 7, 20))]
    trips = of("travel.trips", found("flying to Oslo 3 to 9 May", at=at))
    assert [t["depart"] for t in trips] == [D(2026, 5, 3)]


# -- a term counted from an event the message dates by its verb -------------------------------


def test_a_term_counted_from_an_event_dated_by_its_verb() -> None:
    at = T(2028, 1, 10, 8)
    tasks = of(
        "tasks.tasks", found("Smith v Jones: reply due 14 days from service; served 7 Jan.", at=at)
    )
    assert [t["due_date"] for t in tasks] == [D(2028, 1, 21)]
    tasks = of(
        "tasks.tasks", found("the form is due 21 days after receipt, received on the 5th", at=at)
    )
    assert [t["due_date"] for t in tasks] == [D(2028, 1, 26)]
    # the day counted from is never the due date
    tasks = of("tasks.tasks", found("the claim form is due 28 days from service, served on 3 June"))
    assert all(t.get("due_date") != D(2025, 6, 3) for t in tasks)


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


def test_a_pasted_hotel_confirmation_with_a_field_a_line() -> None:
    stays = of(
        "travel.bookings",
        found(
            "Reservation: Hotel Adlon, Berlin. Check-in: 6 Nov 2025. "
            "Check-out: 9 Nov 2025. Ref: KT9921"
        ),
    )
    assert stays == [
        {
            "kind": "hotel",
            "place": "Berlin",
            "start": T(2025, 11, 6, 15),
            "end": T(2025, 11, 9, 11),
            "reference": "KT9921",
        }
    ]
    # a hotel's name that holds a city's names no place
    stays = of(
        "travel.bookings", found("hotel is the Fairmont Royal York, two nights from the ninth")
    )
    assert all("place" not in s for s in stays)


def test_someone_elses_flight_is_no_booking() -> None:
    assert of("travel.bookings", found("Tom's flight lands at 6pm on Friday")) == []
    assert of("schedule.events", found("we have parents evening next thursday 5:30")) == [
        {"title": "Parents evening", "start": T(2025, 6, 5, 17, 30)}
    ]


def test_leave_noted_with_its_days_is_an_away_period() -> None:
    away = of("schedule.away_periods", found("annual leave 11-15 August"))
    assert [(a["start"], a["end"]) for a in away] == [(D(2025, 8, 11), D(2025, 8, 15))]
    assert of("schedule.away_periods", found("my annual leave is 25 days a year")) == []


def test_a_visa_held_by_the_days_the_next_fragment_gives() -> None:
    visas = of(
        "identity.visas", found("India visa don land! Multiple entry, valid 1 July to 30 December")
    )
    assert [(v["country"], v["valid_from"], v["entries"]) for v in visas] == [
        ("IN", D(2025, 7, 1), "multiple")
    ]
    assert (
        of("identity.visas", found("I need a China visa. Valid passport required, they said."))
        == []
    )
    assert of("identity.passport.issuing_country", found("Irish passport guy here, quick one")) == [
        "IE"
    ]


def test_how_met_by_pronoun_a_via_corrected_alone_and_a_pages_field() -> None:
    people = _people("we met him at uni", "my friend Tom is great")
    assert people == [{"name": "Tom", "how_met": "at uni"}]
    trips = of(
        "travel.trips",
        found(
            "wait it's only via frankfurt, the doha leg got cancelled",
            "sorted. tokyo 3-17 may, flying london -> doha -> tokyo",
        ),
    )
    assert [t.get("via") for t in trips] == [["Frankfurt"]]
    pages = of(
        "identity.passport.blank_pages", found("Blank pages: 3.", "Passport renewed in May.")
    )
    assert pages == [3]
