"""Session 8 (h14r): constructs behind blind4's misses, tested in other words and registers."""

from __future__ import annotations

from tests.candidates import AT, D, T, found, of

# -- contacts: a person and a way to reach them in one line ---------------------------------


def _people(text: str, *earlier: str) -> list[dict]:
    return of("contacts.contacts", found(text, *earlier))


def test_a_relation_then_a_number_in_the_same_line_is_one_contact() -> None:
    people = _people("Sanjay Mehta is my accountant, mob 07911 123456")
    assert people == [
        {
            "name": "Sanjay Mehta",
            "relationship": "accountant",
            "role": "accountant",
            "phone": "07911 123456",
        }
    ]


def test_a_titled_name_with_a_number_is_a_contact() -> None:
    people = _people("the physio is Mrs Okonkwo at Parkside, tel 0161 555 0192")
    assert [p.get("phone") for p in people] == ["0161 555 0192"]
    assert "Okonkwo" in people[0]["name"]
    assert "0207 946 0033" in str(_people("Dr Hassan at the clinic: 0207 946 0033"))


def test_a_full_name_with_an_email_is_a_contact() -> None:
    people = _people("our new tax adviser is Lena Vogt, lena.vogt@steuer-vogt.de")
    assert people == [{"name": "Lena Vogt", "email": "lena.vogt@steuer-vogt.de"}]


def test_a_named_persons_number_is_a_contact() -> None:
    assert _people("Ravi's number is +44 7700 900123, pls save") == [
        {"name": "Ravi", "phone": "+44 7700 900123"}
    ]


def test_the_relation_and_the_email_said_in_two_clauses_are_one_contact() -> None:
    people = _people("My niece Orla is sorting the flat; her email is orla.b@gmail.com.")
    assert people == [{"name": "Orla", "relationship": "niece", "email": "orla.b@gmail.com"}]


def test_a_date_or_an_amount_is_not_a_phone_number() -> None:
    people = _people("my dentist is Dr Shah, appointment 2025-06-12, paid 120.50")
    assert people and all("phone" not in p for p in people)


def test_someone_who_died_is_no_contact() -> None:
    assert _people("my uncle Brendan passed away in January") == []
    assert _people("My sister Agnes died last year, it was sudden.") == []


def test_someone_elses_number_is_not_attached_to_the_users_contact() -> None:
    # two people in the line: no guessing whose number it is
    people = _people("my brother Tim and my sister Kate, 07700 900555")
    assert all("phone" not in p for p in people)


def test_a_firms_bank_details_are_no_contact() -> None:
    assert _people("paid the roofer Nowak Ltd 900 today, 40-11-22 12345678") == []


# -- US dictation: "period", "comma", "question mark" said as words --------------------------


def test_dictated_period_and_comma_end_sentences_and_clauses() -> None:
    from uac.fact_log.extraction.patterns.text import undictate

    said = "remind me to call the landlord friday period thanks comma bye period"
    read = undictate(said)
    assert len(read) == len(said)
    assert read.split() == [
        "remind",
        "me",
        "to",
        "call",
        "the",
        "landlord",
        "friday.",
        "thanks,",
        "bye.",
    ]
    assert undictate("is the pharmacy open question mark").rstrip() == "is the pharmacy open?"
    # a period of time stays a word
    for text in ("the free trial period ends 3 May period", "I'm on my period comma ugh period"):
        assert "period ends" in undictate(text) or "my period" in undictate(text)


def test_a_dictated_contact_line_keeps_its_number() -> None:
    people = _people("my physio is Dr Lamb at Northside comma phone 312-555-0101 period")
    assert [p.get("phone") for p in people] == ["312-555-0101"]


def test_a_clock_time_colon_does_not_split_a_clause() -> None:
    from uac.fact_log.extraction.patterns.text import clauses, sentences

    sent = next(sentences("bio is weds 14th 2:45, room: B12"))
    assert [c.text for c in clauses(sent)] == ["bio is weds 14th 2:45", "room", "B12"]


# -- tasks: an obligation or an errand with its day ------------------------------------------


def _tasks(text: str, *earlier: str) -> list[dict]:
    return of("tasks.tasks", found(text, *earlier))


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


def test_an_obligation_without_its_subject_is_the_users_task() -> None:
    tasks = _tasks("Need to send the signed lease back by Thursday")
    assert [(t["goal"], t["due_date"]) for t in tasks] == [
        ("Send the signed lease back", D(2025, 6, 5))
    ]
    assert [t["due_date"] for t in _tasks("so busy, must renew the permit before the 20th")] == [
        D(2025, 6, 20)
    ]


def test_a_thing_that_needs_any_participle_by_a_day_is_a_task() -> None:
    assert [t["due_date"] for t in _tasks("The deposit form must be countersigned by 9 July")] == [
        D(2025, 7, 9)
    ]
    assert [
        t["due_date"] for t in _tasks("my repeat prescription needs collecting by the 4th")
    ] == [D(2025, 6, 4)]
    assert _tasks("return is the 22nd") == []  # the trip's way back, not an errand


# -- events: "<thing> is <day> <time>", one a clause, any thing ------------------------------


def _events(text: str, *earlier: str) -> list[dict]:
    return of("schedule.events", found(text, *earlier))


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


# -- dates: dotted day-first dates, a range's bare last day ----------------------------------


def _days(text: str) -> list:
    from uac.fact_log.extraction.patterns.dates import find_dates

    return [d.date for d in find_dates(text, AT.date(), "future")]


def test_dotted_dates_are_day_first() -> None:
    assert _days("Versicherung gilt bis 31.03.2026") == [D(2026, 3, 31)]
    assert _days("we are in Crete 28.12. until 4.1.") == [D(2025, 12, 28), D(2026, 1, 4)]
    assert _days("the check was on 3.02., all fine") == [D(2026, 2, 3)]
    assert _days("from 9. to 14. August at the lake") == [D(2025, 8, 9), D(2025, 8, 14)]
    # a price is no date: no second dot, or no word of a day before it
    assert _days("paid 10.12. for it") == []
    assert _days("it was 20.12 EUR") == []


def test_a_ranges_bare_last_day_takes_the_first_days_month() -> None:
    assert _days("june ninth through the twelfth") == [D(2025, 6, 9), D(2025, 6, 12)]
    assert _days("Aug 3 to 10, driving") == [D(2025, 8, 3), D(2025, 8, 10)]
    assert _days("Aug 3 to 10 people") == [D(2025, 8, 3)]


def test_a_trip_said_with_dotted_or_word_dates_has_both_ends() -> None:
    trips = of("travel.trips", found("we fly to Portugal 28.12. until 4.1."))
    assert [(t["depart"], t.get("return_date")) for t in trips] == [
        (D(2025, 12, 28), D(2026, 1, 4))
    ]
    trips = of("travel.trips", found("driving to Denver june ninth through the twelfth"))
    assert [(t["depart"], t.get("return_date")) for t in trips] == [(D(2025, 6, 9), D(2025, 6, 12))]


# -- documents: a list of fields, a validity said as a length --------------------------------


def test_a_list_of_passport_fields_after_the_passport_came_up() -> None:
    cands = found(
        "Collected the new passport today. Details: no. 700112233, expires 2 March 2035, "
        "issued in Ireland."
    )
    assert ("identity.passport.number", "700112233") in cands
    assert ("identity.passport.expiry_date", D(2035, 3, 2)) in cands
    assert ("identity.passport.issuing_country", "IE") in cands


def test_a_visa_granted_with_a_length_is_valid_from_today() -> None:
    visas = of("identity.visas", found("e-visa for India granted, valid for 90 days"))
    assert visas == [
        {
            "country": "IN",
            "kind": "e-visa",
            "valid_from": D(2025, 6, 1),
            "valid_until": D(2025, 8, 30),
        }
    ]
    # a length said of a visa held since some day unsaid gives no first day
    assert of("identity.visas", found("my Kenya visa is valid 3 months")) == [{"country": "KE"}]


# -- stays: nights from a day said as a word, bare check-in days, a corrected stay -----------

_TRIP = "road trip to Chicago june ninth through the fifteenth"


def _stays(text: str, *earlier: str) -> list[tuple]:
    return [
        (b.get("place"), b["start"], b.get("end"))
        for b in of("travel.bookings", found(text, *earlier))
    ]


def test_nights_from_a_day_said_as_a_word() -> None:
    assert _stays("motel is the Lakeview Inn 3 nights from the tenth", _TRIP) == [
        ("Chicago", T(2025, 6, 10, 15, 0), T(2025, 6, 13, 11, 0))
    ]


def test_bare_check_in_and_out_days_are_the_trips() -> None:
    trip = "we're in Lisbon 28 june to 3 july"
    assert _stays("hotel is the Memmo in Rossio Square, check in 28, check out 3", trip) == [
        ("Lisbon", T(2025, 6, 28, 15, 0), T(2025, 7, 3, 11, 0))
    ]


def test_a_corrected_number_of_nights_is_the_stay_again() -> None:
    stay = "hotel is the Lakeview Inn 2 nights from the eleventh"
    assert _stays("oops no, four nights from the ninth", _TRIP, stay) == [
        ("Chicago", T(2025, 6, 9, 15, 0), T(2025, 6, 13, 11, 0))
    ]


# -- insurance: a policy, a length of cover, a German compound -------------------------------


def test_a_policy_with_its_insurer_and_a_length_of_cover() -> None:
    policies = of(
        "identity.insurance_policies",
        found("renewed the home policy with Aviva from 12 July, for another 12 months"),
    )
    assert policies == [
        {
            "kind": "home",
            "provider": "Aviva",
            "valid_from": D(2025, 7, 12),
            "valid_until": D(2026, 7, 11),
        }
    ]


def test_a_german_insurance_word_names_a_policy() -> None:
    policies = of(
        "identity.insurance_policies",
        found("Ich habe Reiseversicherung from HanseMerkur until 30.09.2025"),
    )
    assert policies == [
        {"kind": "travel", "provider": "HanseMerkur", "valid_until": D(2025, 9, 30)}
    ]


# -- trips: a day number's dot, a city said on its own -------------------------------------


def test_a_day_numbers_dot_does_not_end_the_sentence() -> None:
    trips = of("travel.trips", found("I make business trip to Japan, Osaka, 3. to 9. October."))
    assert trips == [
        {
            "country": "JP",
            "city": "Osaka",
            "depart": D(2025, 10, 3),
            "return_date": D(2025, 10, 9),
            "purpose": "business",
        }
    ]


def test_a_flight_leg_keeps_the_city_it_leaves_from() -> None:
    legs = of(
        "travel.bookings",
        found(
            "Flight is with KLM from Amsterdam at 10:15 on the 4th.", "trip to Japan 4 to 12 July"
        ),
    )
    assert [(b.get("place"), b["start"]) for b in legs] == [("Amsterdam", T(2025, 7, 4, 10, 15))]


# -- away periods, asked-for deadlines, a bare ordinal after "is" ----------------------------


def test_days_before_the_away_cue_and_a_non_native_preposition() -> None:
    away = of("schedule.away_periods", found("From 4 to 18 of July we are in vacations in Galicia"))
    assert away == [{"start": D(2025, 7, 4), "end": D(2025, 7, 18), "reason": "vacation"}]


def test_someone_wants_a_deliverable_until_a_day() -> None:
    tasks = _tasks("the landlord wants the signed inventory until 20 of June")
    assert [(t["goal"], t["due_date"]) for t in tasks] == [("Signed inventory", D(2025, 6, 20))]


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


def test_a_guessed_range_runs_forward_into_the_evening() -> None:
    from uac.fact_log.extraction.patterns.timespan import clock

    said = clock("from 6 to 7.30")
    assert said is not None and (said.start.hour, said.end.hour) == (18, 19)


def test_a_weekly_series_starts_on_its_weekday_on_or_after_the_day_said() -> None:
    events = _events("choir on wednesdays at 7pm starting tomorrow")
    assert [e["start"] for e in events] == [T(2025, 6, 4, 19, 0)]


# -- offsets from a dated paper, slashed dates, "off until", a passport's name ---------------


def test_a_term_counted_from_a_dated_letter_is_a_task() -> None:
    at = AT.replace(day=9)  # Monday 9 June 2025
    cands = found("the council tax appeal form, 21 days from the letter dated the 2nd", at=at)
    assert [(t["due_date"]) for t in of("tasks.tasks", cands)] == [D(2025, 6, 23)]
    assert of("schedule.events", cands) == []


def test_a_slashed_date_is_read_only_when_its_order_is_plain() -> None:
    assert _days("the lease ends 7/31") == [D(2025, 7, 31)]
    assert _days("moving on 28/08/2025") == [D(2025, 8, 28)]
    assert _days("closing is 3/4 at noon") == []  # March 4 or 3 April: not guessed
    assert _days("support is 24/7") == []


def test_off_until_a_day_is_away_from_today() -> None:
    away = of("schedule.away_periods", found("told my boss I'm off until Wednesday"))
    assert away == [{"start": D(2025, 6, 1), "end": D(2025, 6, 4)}]
    assert of("schedule.away_periods", found("the boiler is off until Wednesday")) == []


def test_the_passport_has_a_name_without_my() -> None:
    cands = found("booking says ANA M SOUSA, but passport has Ana Maria Sousa.")
    assert ("identity.passport.full_name", "Ana Maria Sousa") in cands


def test_a_route_of_airport_codes_with_its_day_and_time_is_a_flight() -> None:
    cands = found("Booked Qatar LHR-DOH-SYD for 14th July, dep 20:45 from London")
    assert of("travel.bookings", cands) == [
        {"kind": "flight", "place": "London", "destination": "SYD", "start": T(2025, 7, 14, 20, 45)}
    ]
    assert of("schedule.events", cands) == []


# -- lowercase writers, blank pages in other words, a four-word passport name, -------------


def test_a_lowercase_writer_names_the_insurer_in_lowercase() -> None:
    assert of(
        "identity.insurance_policies", found("home insurance is with aviva, runs out 3rd oct")
    ) == [{"kind": "home", "provider": "Aviva", "valid_until": D(2025, 10, 3)}]
    # a determiner after "through" is no insurer
    assert of("identity.insurance_policies", found("travel insurance through the bank")) == []


def test_blank_pages_said_in_other_words() -> None:
    assert ("identity.passport.blank_pages", 2) in found(
        "checked and there are just two empty pages left in my passport"
    )
    assert ("identity.passport.blank_pages", 24) in found(
        "24 pages in it, all blank", "the new passport arrived today"
    )
    assert of("identity.passport.blank_pages", found("the notebook has 80 pages, all blank")) == []


def test_a_passport_name_of_four_words() -> None:
    cands = found("In my passport the name is Juan Carlos Pérez Ortega, two surnames")
    assert ("identity.passport.full_name", "Juan Carlos Pérez Ortega") in cands


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


def test_an_account_or_card_number_is_no_phone() -> None:
    said = "I paid £900 to Mr Hughes today, to account GB33 BUKB 2020 1555 5555 55."
    assert of("contacts.contacts", found(said)) == []
    assert of("contacts.contacts", found("Dr Ahmed, card 4929 1234 5678 9012")) == []


def test_a_past_verb_in_a_later_clause_does_not_make_the_trip_past() -> None:
    trips = of(
        "travel.trips", found("booked with Ryanair to Porto, 20 of July, the seat was extra")
    )
    assert [t["depart"] for t in trips] == [D(2025, 7, 20)]
    trips = of("travel.trips", found("we went to Rome on 3 March, it was lovely"))
    assert [t["depart"] for t in trips] == [D(2025, 3, 3)]


def test_a_death_said_of_someone_else_in_another_clause_keeps_the_contact() -> None:
    said = "Our new notary is Mr Paul Weber, telephone 0161 496 0555, handling my late aunt's will."
    assert [p.get("phone") for p in _people(said)] == ["0161 496 0555"]
