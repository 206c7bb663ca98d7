"""Trips, bookings and stays read from conversation.

Each construct is tested in sentences invented for the test, in other words and registers
(terse, lowercase, non-native, dictated, pasted) than the tuning sets', with negatives
alongside: other people's facts, questions, hypotheticals and plans find nothing of the
path. Unless a test says otherwise, AT is Sunday 1 June 2025 (tests/candidates.py).
"""

from __future__ import annotations

import datetime as dt

import pytest

from tests.candidates import AT, D, T, found, of, values
from uac.fact_log.extraction.patterns import extract
from uac.fact_log.extraction.timemodel import clock

_TRIP = "road trip to Chicago june ninth through the fifteenth"


def _stays(text: str, *earlier: str) -> list[tuple]:
    return [
        (b.get("place"), b["start"], b.get("end"))
        for b in of("travel.bookings", found(text, *earlier))
    ]


def _people(text: str, *earlier: str) -> list[dict]:
    return of("contacts.contacts", found(text, *earlier))


AT_WED = T(2026, 12, 2, 9)  # a Wednesday


# -- a booking under a name -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("The agency booked my flight to Lima on 5 October under Maria Lopes.", "Maria Lopes"),
        ("My flight to Lima on 5 October is in the name of Maria Lopez.", "Maria Lopez"),
        ("My sister put my ticket to Lima on 5 October under Mary Lopes.", "Mary Lopes"),
    ],
)
def test_a_flight_booked_under_a_name(text: str, name: str) -> None:
    [booking] = of("travel.bookings", found(text))
    assert booking["kind"] == "flight" and booking["traveller_name"] == name
    assert booking["destination"] == "Lima" and booking["start"].date() == D(2025, 10, 5)


@pytest.mark.parametrize(
    "text",
    [
        "Is my flight to Lima on 5 October under my married name?",
        "My brother's flight to Lima on 5 October is under Tom Lopes.",
    ],
)
def test_no_booking_name_from_a_question_or_someone_elses_ticket(text: str) -> None:
    assert not [b for b in of("travel.bookings", found(text)) if b.get("traveller_name")]


# -- a hotel given with its check-in and check-out ------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Airbnb in Porto: check-in 12 July, check-out 16 July.",
        "Hotel in Porto, checking in on 12 July and checking out on 16 July.",
        "Our guesthouse in Porto - check in 12 July, check out 16 July.",
    ],
)
def test_a_stay_named_then_its_check_in_and_out(text: str) -> None:
    [stay] = of("travel.bookings", found(text))
    assert stay["kind"] == "hotel" and stay["place"] == "Porto"
    assert stay["start"] == T(2025, 7, 12, 15) and stay["end"] == T(2025, 7, 16, 11)


def test_a_hotel_recommendation_is_not_a_booking() -> None:
    assert of("travel.bookings", found("Hotel in Porto: any tips on where to stay?")) == []


# -- trips ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "city", "depart", "ret"),
    [
        ("Got our flights to Lisbon, 9 July to the 16th", "Lisbon", D(2025, 7, 9), D(2025, 7, 16)),
        ("finally booked it: Rome, 3 to 8 September", "Rome", D(2025, 9, 3), D(2025, 9, 8)),
        ("the trip is back on - Berlin, 2 Oct to 6 Oct", "Berlin", D(2025, 10, 2), D(2025, 10, 6)),
    ],
)
def test_trip_place_then_its_days(text: str, city: str, depart: dt.date, ret: dt.date) -> None:
    [trip] = of("travel.trips", found(text))
    assert (trip["city"], trip["depart"], trip["return_date"]) == (city, depart, ret)


def test_a_place_with_days_but_no_trip_word_is_not_a_trip() -> None:
    assert not of("travel.trips", found("Paris, 3 to 8 September, was the conference I missed"))


# -- corrections ---------------------------------------------------------------------------


def test_it_was_then_now_it_is_corrects_a_trip() -> None:
    earlier = "Flying to Oslo 10-14 July"
    [trip] = of("travel.trips", found("it was 10-14 July, now it's the 17th to the 21st", earlier))
    assert (trip["depart"], trip["return_date"]) == (D(2025, 7, 17), D(2025, 7, 21))


@pytest.mark.parametrize(
    ("earlier", "text", "city", "depart", "ret"),
    [
        # the place names the trip ("<Place> trip"), the days follow
        (
            (),
            "Madrid trip is on: 4 July to 11 July, for a friend's birthday",
            "Madrid",
            D(2025, 7, 4),
            D(2025, 7, 11),
        ),
        # a place then "from <day>", the way home after it
        (
            (),
            "Holiday sorted! Valencia from July 3rd, flying home on the 12th",
            "Valencia",
            D(2025, 7, 3),
            D(2025, 7, 12),
        ),
        # a place then "from <day> to <day>" after a colon
        (
            (),
            "Plans are set: Krakow from August 2nd to August 9th",
            "Krakow",
            D(2025, 8, 2),
            D(2025, 8, 9),
        ),
        (
            (),
            "Croatia is happening: Zagreb, August 1 through August 8.",
            "Zagreb",
            D(2025, 8, 1),
            D(2025, 8, 8),
        ),
        # the place in one sentence, the days in the next
        (
            (),
            "My boss is sending me to Munich. I fly out 7 July and get back the 10th",
            "Munich",
            D(2025, 7, 7),
            D(2025, 7, 10),
        ),
        (
            (),
            "The cheapest fare to Denver changes planes in Dallas. Leaving 2 July, back 9 July.",
            "Denver",
            D(2025, 7, 2),
            D(2025, 7, 9),
        ),
    ],
)
def test_trip_forms(
    earlier: tuple[str, ...], text: str, city: str, depart: dt.date, ret: dt.date
) -> None:
    [trip] = of("travel.trips", found(text, *earlier))
    assert (trip["city"], trip["depart"], trip["return_date"]) == (city, depart, ret)


def test_a_change_of_planes_is_the_via() -> None:
    text = "The cheapest fare to Denver changes planes in Dallas. Leaving 2 July, back 9 July."
    [trip] = of("travel.trips", found(text))
    assert trip.get("via") == ["Dallas"]


@pytest.mark.parametrize(
    "text",
    [
        "Madrid was lovely: 4 July to 11 July last year",
        "My sister's Madrid trip is 4 July to 11 July",
        "Madrid from 4 July would be nice",
    ],
)
def test_no_trip_from_the_past_others_or_wishes(text: str) -> None:
    assert not of("travel.trips", found(text))


# -- more trips, insurance, tasks, payments, purchases -------------------------------------


@pytest.mark.parametrize(
    ("text", "city", "depart", "ret"),
    [
        ("Porto with my sisters from 3 to 7 September!", "Porto", D(2025, 9, 3), D(2025, 9, 7)),
        (
            "Seville booked for half term, 27 to 31 October.",
            "Seville",
            D(2025, 10, 27),
            D(2025, 10, 31),
        ),
        (
            "The client wants me in Leeds, 14 to 16 July. Fine.",
            "Leeds",
            D(2025, 7, 14),
            D(2025, 7, 16),
        ),
    ],
)
def test_more_place_then_days(text: str, city: str, depart: dt.date, ret: dt.date) -> None:
    [trip] = of("travel.trips", found(text))
    assert (trip["city"], trip["depart"], trip["return_date"]) == (city, depart, ret)


@pytest.mark.parametrize(
    ("text", "dest", "name"),
    [
        (
            "My assistant booked the Lisbon flight for 3 July in the name Jo Silva.",
            "Lisbon",
            "Jo Silva",
        ),
        ("The Rome train on 9 July is booked as Kate Moss, no middle name.", "Rome", "Kate Moss"),
    ],
)
def test_a_booking_under_a_name_place_first(text: str, dest: str, name: str) -> None:
    [b] = of("travel.bookings", found(text))
    assert (b["destination"], b["traveller_name"]) == (dest, name)


# -- travel: a destination named before its days, what a trip is for, stays, hire cars -------


def test_a_destination_named_without_days_takes_the_days_said_next() -> None:
    earlier = "my company is sending me to Nairobi sometime in June"
    [trip] = of("travel.trips", found("flights booked: out 10 June, back 17 June", earlier))
    assert (trip["country"], trip["city"]) == ("KE", "Nairobi")
    assert (trip["depart"], trip["return_date"]) == (D(2025, 6, 10), D(2025, 6, 17))
    assert trip["purpose"] == "business"


@pytest.mark.parametrize(
    "earlier",
    [
        "we might go to Rome if it's cheap",  # a wish names no destination
        "my sister is going to Rome",  # someone else's
        "we went to Rome last year",  # the past
    ],
)
def test_no_destination_no_trip_from_later_days(earlier: str) -> None:
    assert of("travel.trips", found("the flight is on 10 June, back 17 June", earlier)) == []


def test_a_later_line_adds_where_the_journey_changes() -> None:
    earlier = ("flying to Tokyo on 3 July", "back on the 17th")
    [trip] = of("travel.trips", found("we'll go via Helsinki", *earlier))
    assert trip["via"] == ["Helsinki"] and trip["depart"] == D(2025, 7, 3)


def test_a_correction_naming_the_old_day_corrects_that_field() -> None:
    earlier = ("flying to Oslo on 10 July", "back on the 14th")
    [trip] = of("travel.trips", found("sorry, it's the 15th, not the 14th", *earlier))
    assert (trip["depart"], trip["return_date"]) == (D(2025, 7, 10), D(2025, 7, 15))


def test_what_a_trip_is_for() -> None:
    [trip] = of("travel.trips", found("flying to Berlin on 12 June for a trade fair"))
    assert trip["purpose"] == "business"


@pytest.mark.parametrize(
    ("text", "earlier", "place", "start", "end"),
    [
        ("the cottage is in Keswick, 4-11 July", (), "Keswick", D(2025, 7, 4), D(2025, 7, 11)),
        (
            "we've also got a hotel in Porto, check in on the 5th, out on the 9th",
            (),
            "Porto",
            D(2025, 6, 5),
            D(2025, 6, 9),
        ),
        (
            "the apartment is near the river, three nights",
            ("flying to Rome on 20 June",),
            "Rome",
            D(2025, 6, 20),
            D(2025, 6, 23),
        ),
    ],
)
def test_a_stay_named_as_the_subject_with_its_days_or_nights(
    text: str, earlier: tuple[str, ...], place: str, start: dt.date, end: dt.date
) -> None:
    [stay] = of("travel.bookings", found(text, *earlier))
    assert (stay["kind"], stay["place"]) == ("hotel", place)
    assert (stay["start"].date(), stay["end"].date()) == (start, end)


def test_a_stay_keeps_its_booking_reference() -> None:
    text = "Hotel Artemide, check-in 2 July, check-out 6 July, booking ref ART-55120"
    [stay] = of("travel.bookings", found(text))
    assert stay["reference"] == "ART-55120" and stay["start"].date() == D(2025, 7, 2)


def test_a_hire_car_with_pick_up_and_drop_off() -> None:
    text = "hire car booked - pick up at Malaga airport 14 July 09:30, drop off 21 July"
    [car] = of("travel.bookings", found(text))
    assert (car["kind"], car["place"]) == ("car", "Malaga")
    assert car["start"] == T(2025, 7, 14, 9, 30) and car["end"].date() == D(2025, 7, 21)
    assert of("travel.trips", found(text)) == []


def test_a_flight_by_its_number_is_on_the_trips_day() -> None:
    [flight] = of(
        "travel.bookings", found("TP1351 departs at 07:05", "flying to Lisbon on 20 June")
    )
    assert (flight["kind"], flight["start"]) == ("flight", T(2025, 6, 20, 7, 5))


def test_a_table_booked_in_a_city_is_a_meal_not_a_trip() -> None:
    cands = found("booked a table at Ramiro in Lisbon for the 21st, 9pm")
    assert of("travel.trips", cands) == []
    [ev] = of("schedule.events", cands)
    assert ev["start"] == T(2025, 6, 21, 21)


# -- trips said loosely: lower case, a place alone, its days next, a route -------------------


@pytest.mark.parametrize(
    ("lines", "city", "depart", "ret"),
    [
        # lower case, and the journey word in the message's sentence before
        (
            ("tickets booked!! gatwick to lisbon on the 9th of july, back the 16th",),
            "Lisbon",
            D(2025, 7, 9),
            D(2025, 7, 16),
        ),
        # a place alone, its days in the next sentence
        (("Osaka!!! 3rd to 19th of August, can't wait",), "Osaka", D(2025, 8, 3), D(2025, 8, 19)),
        # the place booked in one message, the days in the next
        (
            ("MADRID IS BOOKED. so happy", "fly out 4 sept, flight back lands 11 september"),
            "Madrid",
            D(2025, 9, 4),
            D(2025, 9, 11),
        ),
        # the place, then "landing", then "staying till"
        (
            ("second leg: Athens, landing Jul 2, staying till July 20",),
            "Athens",
            D(2025, 7, 2),
            D(2025, 7, 20),
        ),
        # the place, what for, then its days
        (
            ("Dublin for a wedding, 5th to 8th of July, all sorted",),
            "Dublin",
            D(2025, 7, 5),
            D(2025, 7, 8),
        ),
        (("yes Oslo is locked in. July 1 to July 9",), "Oslo", D(2025, 7, 1), D(2025, 7, 9)),
    ],
)
def test_trips_said_loosely(
    lines: tuple[str, ...], city: str, depart: dt.date, ret: dt.date
) -> None:
    *earlier, last = lines
    [trip] = of("travel.trips", found(last, *earlier))
    assert (trip["city"], trip["depart"], trip["return_date"]) == (city, depart, ret)


@pytest.mark.parametrize(
    "text",
    [
        "nice to be home on the 9th of july",  # "nice" is a word before it is a city
        "Osaka!!! so jealous of my sister",  # no days
        "we might do Rome, landing Jul 2",  # a wish
    ],
)
def test_no_trip_from_a_word_a_place_without_days_or_a_wish(text: str) -> None:
    assert of("travel.trips", found(text)) == []


def test_a_flight_by_its_route_with_day_and_time() -> None:
    [flight] = of(
        "travel.bookings", found("outbound flight: Bristol to Faro, Friday 13 June, 06:50")
    )
    assert (flight["place"], flight["destination"]) == ("Bristol", "Faro")
    assert flight["start"] == T(2025, 6, 13, 6, 50)


def test_a_ticket_someone_booked_for_the_user_is_the_users() -> None:
    text = "my dad booked me the train to York for 2 July, under Sam Hill"
    [booking] = of("travel.bookings", found(text))
    assert booking["traveller_name"] == "Sam Hill"
    assert (
        of("travel.bookings", found("my dad booked the train to York for 2 July, under Sam Hill"))
        == []
    )


def test_back_in_a_place_is_a_journey_there() -> None:
    [trip] = of(
        "travel.trips", found("they want me back in Kenya in July, Nairobi offsite, 7-11 July")
    )
    assert (trip["country"], trip["depart"], trip["return_date"]) == (
        "KE",
        D(2025, 7, 7),
        D(2025, 7, 11),
    )


# -- voice dictation and clock times said in words ------------------------------------------


def test_dictated_punctuation_and_spoken_times() -> None:
    earlier = (
        "okay so the ferry to Santander is booked from Portsmouth on the 2nd of July at "
        "seven oh five in the morning"
    )
    [ticket] = of("travel.bookings", found(earlier))
    assert (ticket["kind"], ticket["destination"]) == ("boat", "Santander")
    assert ticket["start"] == T(2025, 7, 2, 7, 5)
    [back] = of("travel.bookings", found("coming back on the 9th at twenty-one fifteen", earlier))
    assert (back["place"], back["start"]) == ("Santander", T(2025, 7, 9, 21, 15))
    [stay] = of(
        "travel.bookings", found("new paragraph the cottage is in Keswick, 4-11 July full stop")
    )
    assert stay["start"].date() == D(2025, 7, 4)
    said = clock("dinner at half past seven")
    assert said is not None and said.start == dt.time(19, 30)
    assert clock("we booked at two nights") is None


# -- home: where the user lives, and visits to it --------------------------------------------


def test_a_connection_said_after_the_trip() -> None:
    [trip] = of(
        "travel.trips", found("we're connecting in Doha both ways", "flying to Bali on 3 July")
    )
    assert trip["via"] == ["Doha"]


# -- trips: a known place and the days it spans ------------------------------------------------


@pytest.mark.parametrize(
    ("text", "earlier", "city", "country", "depart", "back"),
    [
        (
            "valencia for the fallas!! out 14 march, home 20 march",
            (),
            "Valencia",
            "ES",
            D(2026, 3, 14),
            D(2026, 3, 20),
        ),
        ("next up: Porto in July, 3rd-8th", (), "Porto", "PT", D(2025, 7, 3), D(2025, 7, 8)),
        ("Nairobi 4-18 Nov, a work thing", (), "Nairobi", "KE", D(2025, 11, 4), D(2025, 11, 18)),
        ("ICELAND!!! 2 to 9 Feb", (), None, "IS", D(2026, 2, 2), D(2026, 2, 9)),
        (
            "Athens in September. 10th till the 17th.",
            (),
            "Athens",
            "GR",
            D(2025, 9, 10),
            D(2025, 9, 17),
        ),
        (
            "me and the kids in Madrid from the first of august until the tenth of august",
            (),
            "Madrid",
            "ES",
            D(2025, 8, 1),
            D(2025, 8, 10),
        ),
        (
            "oh no, I am in Oslo that week, 16th to the 20th",
            ("dinner at Sam's on the 18th",),
            "Oslo",
            "NO",
            D(2025, 6, 16),
            D(2025, 6, 20),
        ),
        # the place in an earlier line, said as confirmed; the days now
        (
            "it runs 6 October to 12 December",
            ("my exchange semester in Bologna is confirmed",),
            "Bologna",
            "IT",
            D(2025, 10, 6),
            D(2025, 12, 12),
        ),
    ],
)
def test_a_place_with_its_span_of_days_is_a_trip(
    text: str,
    earlier: tuple[str, ...],
    city: str | None,
    country: str,
    depart: dt.date,
    back: dt.date,
) -> None:
    trips = of("travel.trips", found(text, *earlier))
    assert trips, text
    trip = trips[-1]
    assert (trip.get("city"), trip["country"]) == (city, country)
    assert (trip["depart"], trip["return_date"]) == (depart, back)


def test_the_purpose_is_read_from_the_span_sentence() -> None:
    [trip] = of("travel.trips", found("Nairobi 4-18 Nov, a work thing"))
    assert trip["purpose"] == "business"


@pytest.mark.parametrize(
    ("text", "earlier"),
    [
        ("my brother is in Porto 3-8 July", ()),
        ("she's in Porto from the 3rd to the 9th", ()),
        ("Porto 3-8 July?", ()),
        ("we might do Porto 3-8 July", ()),
        ("flying from Porto, 3-8 July, to a wedding", ()),
        ("I live in Porto, 3-8 July is the festival", ()),
        # a weekend inside a trip the session already has is a stay there
        (
            "a guesthouse in Porto, 6 to 9 Oct",
            ("Lisbon for two months from 1 September to 31 October",),
        ),
    ],
)
def test_no_trip_from_a_place_and_days_that_are_not_the_users_plan(
    text: str, earlier: tuple[str, ...]
) -> None:
    assert [t for t in of("travel.trips", found(text, *earlier)) if t.get("city") == "Porto"] == []


# -- bookings: a particular service (time, carrier or name on it), stays with their days ------


def test_the_legs_of_a_journey_with_their_times_are_bookings() -> None:
    cands = found(
        "trains kings cross to edinburgh on the 9th at 08:30 and back on the 12th at 17:05"
    )
    out, back = of("travel.bookings", cands)
    assert (out["kind"], out["destination"], out["start"]) == (
        "train",
        "Edinburgh",
        T(2025, 6, 9, 8, 30),
    )
    assert (back["place"], back["start"]) == ("Edinburgh", T(2025, 6, 12, 17, 5))


def test_a_flight_by_its_carrier_or_the_name_on_it() -> None:
    [leg] = of("travel.bookings", found("the office booked me on the KLM flight to Oslo on 3 july"))
    assert leg["destination"] == "Oslo" and leg["start"] == T(2025, 7, 3)
    cands = found("dad got us flights to Nice for 2 August, he put me down as Tom Hale")
    [leg] = of("travel.bookings", cands)
    assert leg["traveller_name"] == "Tom Hale"
    cands = found("flights are with Iberia, 14:20 on the 3rd", "Madrid 3 to 10 june")
    [leg] = of("travel.bookings", cands)
    assert leg["destination"] == "Madrid" and leg["start"] == T(2025, 6, 3, 14, 20)


@pytest.mark.parametrize(
    "text",
    [
        "flights to Crete are booked for the 4th",  # the trip: no one service said
        "I'm taking the train to Leeds on July 2",
        "my boss has a flight at 9am on the 3rd",
        "what time is the train to York on the 9th?",
    ],
)
def test_no_booking_without_a_particular_service(text: str) -> None:
    assert of("travel.bookings", found(text)) == []


@pytest.mark.parametrize(
    ("text", "earlier", "start", "end"),
    [
        (
            "cottage near Keswick from the 20th, 4 nights",
            (),
            T(2025, 6, 20, 15),
            T(2025, 6, 24, 11),
        ),
        (
            "Hotel - the Grand on the seafront, 3 nights from the 8th",
            ("Brighton in June, 8th-12th",),
            T(2025, 6, 8, 15),
            T(2025, 6, 11, 11),
        ),
        (
            "hostel sorted as well, same dates",
            ("Krakow 10 to 14 july",),
            T(2025, 7, 10, 15),
            T(2025, 7, 14, 11),
        ),
        ("we booked a little b&b in Whitby, 5 to 7 Sept", (), T(2025, 9, 5, 15), T(2025, 9, 7, 11)),
    ],
)
def test_stays_with_their_days(
    text: str, earlier: tuple[str, ...], start: dt.datetime, end: dt.datetime
) -> None:
    stays = [b for b in of("travel.bookings", found(text, *earlier)) if b["kind"] == "hotel"]
    assert [(b["start"], b["end"]) for b in stays] == [(start, end)]


def test_no_stay_remembered_as_a_booking() -> None:
    assert of("travel.bookings", found("the hotel was awful on the 3rd")) == []


# -- smaller families: purpose by who booked, hire place, home after a comma, layovers, ----------
# -- activities booked in a place, deadlines that are not departures, regions, owned days -----


def test_a_trip_work_booked_is_for_business() -> None:
    [trip] = of("travel.trips", found("the office booked me on a flight to Oslo on 3 july"))
    assert trip["purpose"] == "business"


def test_a_hire_car_takes_the_place_it_is_hired_in() -> None:
    [car] = of("travel.bookings", found("hire car in Porto, pick up 3 july 9am, drop off the 9th"))
    assert car["place"] == "Porto" and car["start"] == T(2025, 7, 3, 9)


def test_a_layover_said_with_connects() -> None:
    [trip] = of(
        "travel.trips", found("it connects via Doha both ways", "flying to Perth 3 to 20 July")
    )
    assert trip["via"] == ["Doha"]


def test_an_activity_booked_in_a_place_is_an_event_not_a_trip() -> None:
    cands = found("booked a cooking class in Bologna for 14 September")
    assert of("travel.trips", cands) == []
    [ev] = of("schedule.events", cands)
    assert ev["title"] == "Cooking class" and ev["start"] == T(2025, 9, 14)


def test_a_day_something_is_needed_by_is_no_departure() -> None:
    cands = found("need the van back by the 20th for the drive to Wales")
    assert of("travel.trips", cands) == []


def test_a_region_of_a_country_is_the_trips_country() -> None:
    cands = found(
        "leaving on 2 August, home the 16th", "we're driving to the north of Spain this summer"
    )
    [trip] = of("travel.trips", cands)
    assert (trip["country"], trip["depart"], trip["return_date"]) == (
        "ES",
        D(2025, 8, 2),
        D(2025, 8, 16),
    )
    assert trip["transport"] == "car"


def test_a_place_and_its_days_keep_the_stop_said_with_via() -> None:
    [trip] = of(
        "travel.trips",
        found("I will fly Vancouver → Lisbon via Toronto on 2025.07.03, back 2025.07.10"),
    )
    assert (trip["city"], trip["via"], trip["return_date"]) == (
        "Lisbon",
        ["Toronto"],
        D(2025, 7, 10),
    )


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("we go down to Lecce from 8 to 22 of August, by car because I do not fly", "car"),
        ("Flying to Rome on 3 July, back on the 10th", "plane"),
        ("I never fly, so it's the train to Vienna on 3 July, back on the 10th", "train"),
    ],
)
def test_a_trips_mode_is_the_one_said_outright_and_not_denied(text: str, mode: str) -> None:
    [trip] = of("travel.trips", found(text))
    assert trip["transport"] == mode


def test_a_dictated_message_is_quoted_as_said() -> None:
    text = (
        "train to York booked for the 9th comma leaving at twenty past eight comma "
        "back the 12th full stop"
    )
    cands = extract(text, AT)
    trips = [c for c in cands if c.path == "travel.trips"]
    assert trips and all(text[c.start : c.start + len(c.quote)] == c.quote for c in cands)
    assert trips[0].value["return_date"] == D(2025, 6, 12)
    [leg] = [c.value for c in cands if c.path == "travel.bookings"]
    assert leg["start"] == T(2025, 6, 9, 8, 20)


@pytest.mark.parametrize(
    ("text", "purpose"),
    [("it's for dad's 60th, the whole family's going", "family"), ("its a work trip", "business")],
)
def test_what_the_last_trip_is_for(text: str, purpose: str) -> None:
    [trip] = of("travel.trips", found(text, "flying to Nice 3 to 9 July"))
    assert trip["purpose"] == purpose and trip["city"] == "Nice"


def test_the_name_on_the_last_ticket() -> None:
    earlier = "flights are with Iberia, 14:20 on the 3rd"
    cands = found(
        "name on the booking is Ana Ruiz Vega, same as my passport", "Madrid 3 to 10 june", earlier
    )
    [leg] = of("travel.bookings", cands)
    assert leg["traveller_name"] == "Ana Ruiz Vega" and leg["start"] == T(2025, 6, 3, 14, 20)


# -- dates: dotted day-first dates, a range's bare last day ----------------------------------


def test_a_trip_said_with_dotted_or_word_dates_has_both_ends() -> None:
    trips = of("travel.trips", found("we fly to Portugal 28.12. until 4.1."))
    assert [(t["depart"], t.get("return_date")) for t in trips] == [
        (D(2025, 12, 28), D(2026, 1, 4))
    ]
    trips = of("travel.trips", found("driving to Denver june ninth through the twelfth"))
    assert [(t["depart"], t.get("return_date")) for t in trips] == [(D(2025, 6, 9), D(2025, 6, 12))]


# -- stays: nights from a day said as a word, bare check-in days, a corrected stay -----------


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


# -- offsets from a dated paper, slashed dates, "off until", a passport's name ---------------


def test_a_route_of_airport_codes_with_its_day_and_time_is_a_flight() -> None:
    cands = found("Booked Qatar LHR-DOH-SYD for 14th July, dep 20:45 from London")
    assert of("travel.bookings", cands) == [
        {"kind": "flight", "place": "London", "destination": "SYD", "start": T(2025, 7, 14, 20, 45)}
    ]
    assert of("schedule.events", cands) == []


# -- lowercase writers, blank pages in other words, a four-word passport name, -------------


def test_a_past_verb_in_a_later_clause_does_not_make_the_trip_past() -> None:
    trips = of(
        "travel.trips", found("booked with Ryanair to Porto, 20 of July, the seat was extra")
    )
    assert [t["depart"] for t in trips] == [D(2025, 7, 20)]
    trips = of("travel.trips", found("we went to Rome on 3 March, it was lovely"))
    assert [t["depart"] for t in trips] == [D(2025, 3, 3)]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Booked the Hilton in Rome for 3 nights from 5 April.", "Rome"),
        ("ive booked the marriott in Lisbon from 5 to 8 April", "Lisbon"),
        ("We got a Premier Inn in York for 2 nights from the 12th.", "York"),
    ],
)
def test_a_hotel_named_by_its_chain_is_a_hotel_booking(text: str, place: str) -> None:
    [stay] = values(text, "travel.bookings")
    assert stay["kind"] == "hotel" and stay["place"] == place and stay["end"] > stay["start"]


def test_a_chain_in_a_name_is_no_booking() -> None:
    assert values("Paris Hilton was on TV last night.", "travel.bookings") == []


@pytest.mark.parametrize(
    ("text", "stops"),
    [
        (
            "Touring Norway 1-9 June, then Sweden from 9 to 14 June.",
            [("NO", "2027-06-01"), ("SE", "2027-06-09")],
        ),
        (
            "flying to Athens on the 2nd of May, then on to Cairo on 8 May, home on 15 May",
            [("GR", "2027-05-02"), ("EG", "2027-05-08")],
        ),
        ("Vienna 4-8 Oct and Prague 8-11 Oct", [("AT", "2027-10-04"), ("CZ", "2027-10-08")]),
    ],
)
def test_every_stop_of_a_journey_is_a_trip(text: str, stops: list[tuple[str, str]]) -> None:
    trips = values(text, "travel.trips")
    assert [(t["country"], str(t["depart"])) for t in trips] == stops


def test_what_follows_then_without_a_place_and_days_is_no_stop() -> None:
    assert len(values("Flying to Rome on 3 May, then we'll see.", "travel.trips")) == 1
    assert len(values("Flying to Paris with my wife and Tom on 3 May.", "travel.trips")) == 1


# -- reviewers' defects ------------------------------------------------------------------


def test_a_trip_and_its_return_in_the_next_sentence_are_one_trip() -> None:
    trips = of("travel.trips", found("Off to Oslo on 12 August. Back on the 19th."))
    assert trips == [
        {"city": "Oslo", "country": "NO", "depart": D(2025, 8, 12), "return_date": D(2025, 8, 19)}
    ]
    trips = of("travel.trips", found("train to Lyon on 2 July! back home on the 6th"))
    assert [t.get("return_date") for t in trips] == [D(2025, 7, 6)]


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


# -- dates and times as continental and clipped writers write them -------------------------


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


# -- a term counted from an event the message dates by its verb -------------------------------


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


# -- a "since" correction is of a day gone by, and replaces the trip ------------------------


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


@pytest.mark.parametrize(
    "text",
    [
        "Flying to Leeds to my mum 12 to 19 July, she is on her own now",
        "Off to Vienna 3-8 July for my son's graduation",
        "Train to Lyon 20 to 24 July, visiting my grandparents",
    ],
)
def test_a_trip_to_a_relative_or_their_day_is_a_family_trip(text: str) -> None:
    [trip] = of("travel.trips", found(text))
    assert trip["purpose"] == "family"


def test_a_work_word_wins_over_a_relative_the_trip_names() -> None:
    [trip] = of("travel.trips", found("Flying to Rome 4 to 9 July for work, sent cash to my son"))
    assert trip["purpose"] == "business"


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


# -- a day taken back in the same breath -----------------------------------------------------


def test_two_days_without_a_correction_stay_two() -> None:
    [trip] = of("travel.trips", found("Flying to Rome on 4 July, back on 9 July."))
    assert (trip["depart"], trip["return_date"]) == (D(2025, 7, 4), D(2025, 7, 9))


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


# -- times, places, away days ----------------------------------------------------------------


def test_the_airport_a_flight_leaves_from_is_no_destination() -> None:
    text = (
        "taking my wife to Crete for our anniversary. flying out of Bristol on 3 July, "
        "home on the 13th"
    )
    trips = of("travel.trips", found(text))
    assert [t["city"] for t in trips] == ["Crete"] or [t["country"] for t in trips] == ["GR"]


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


@pytest.mark.parametrize(
    "text",
    [
        "Tickets bought on Aer Lingus from Dublin to Krakow, 14 to 20 August.",
        "Krakow 14 to 20 August, I bought the tickets this morning with LOT.",
    ],
)
def test_a_trip_with_its_flight_booked_is_a_flight_booking_on_its_first_day(text: str) -> None:
    cands = found(text)
    [trip] = of("travel.trips", cands)
    [flight] = of("travel.bookings", cands)
    assert trip["depart"] == dt.date(2025, 8, 14)
    assert (flight["kind"], flight["start"].date(), flight["destination"]) == (
        "flight",
        dt.date(2025, 8, 14),
        "Krakow",
    )
    assert flight.get("place") == ("Dublin" if "Dublin" in text else None)


@pytest.mark.parametrize(
    "text",
    [
        "Krakow 14 to 20 August with LOT, tickets not bought yet.",
        "Krakow 14 to 20 August, tickets booked.",  # no one service said: the trip
        "Off to Krakow 14 to 20 August, I still have to book the flights.",
    ],
)
def test_no_flight_booking_for_a_trip_whose_flight_is_not_booked(text: str) -> None:
    assert of("travel.bookings", found(text)) == []


@pytest.mark.parametrize(
    "text",
    ["Back in Glasgow since October, the rain is a relief.", "back home in Lyon since the 2nd"],
)
def test_a_day_said_after_since_is_no_journeys_day(text: str) -> None:
    assert of("travel.trips", found(text)) == []
