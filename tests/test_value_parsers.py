"""The value parsers the rules and the frames share, by the cause of a wrong value they fix:
currencies written the way their country writes them, numbers grouped by spaces or dots,
a rule's capture that stops inside an amount, clock times written without a colon or said
in words, an evening that belongs to another item of a list, and the two days of a range
(one slashed date makes the writer's day/month order plain for the other), and which of
several dates is a start ("from Friday") and which an end ("until the end of May"); which
of several places a journey goes to, and which name a payment is to.

Sentences are invented for these tests. Unless a test says otherwise, AT is Sunday 1 June
2025 (tests/candidates.py)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from tests.candidates import AT, found, of
from uac.fact_log.extraction.slots import parser
from uac.fact_log.extraction.timemodel import clock, date_notes, find_dates, role
from uac.fact_log.extraction.values.money import amount_at, amounts, find_money, money_in
from uac.fact_log.extraction.values.quantities import grouped_int
from uac.fact_log.extraction.values.roles import place_role, who

# -- money ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("the guesthouse was Rp 350.000 a night", "350000", "IDR"),
        ("my card limit went up to RM 7,500", "7500", "MYR"),
        ("safari deposit R12 300, paid online", "12300", "ZAR"),
        ("the phone plan is NT$ 699 a month", "699", "TWD"),
        ("tuition is LE 42,000 a term", "42000", "EGP"),
        ("school fees 18,000 taka this term", "18000", "BDT"),
        ("UGX 85,000 for the generator repair", "85000", "UGX"),
        ("a haircut is Rs. 450 here", "450", "INR"),
        ("KSh 1,200 for the matatu this week", "1200", "KES"),
        ("rent is 2 million rupiah", "2000000", "IDR"),
        ("paid 60 ringgit for the parcel", "60", "MYR"),
        ("bought a laptop at Alza for 24 990 Kč today", "24990", "CZK"),
        ("Salary credited today, Tk 1,45,000 in my account", "145000", "BDT"),
        ("internet is 189 soles every month", "189", "PEN"),
        ("property tax 1200 lari", "1200", "GEL"),
        # said in words before any currency word of the vocabulary
        ("the company paid my salary, eighty five thousand rupees", "85000", "INR"),
    ],
)
def test_a_currency_is_read_as_its_country_writes_it(text: str, amount: str, currency: str) -> None:
    said = find_money(text)
    assert [(m.amount, m.currency) for m in said] == [(Decimal(amount), currency)]


@pytest.mark.parametrize("text", ["take the R2 to the coast", "room RM is closed", "LE is fine"])
def test_letters_that_are_a_currency_elsewhere_are_no_amount_without_their_number(
    text: str,
) -> None:
    assert find_money(text) == []


def bare(text: str) -> list[str]:
    """The amounts the frames' `amount` slot reads (no currency said)."""
    return [f.value["amount"] for f in parser("amount")(text, AT.date(), "past")]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a currency word several countries use: the amount, its currency not guessed
        ("Swish today: 640 kr to Arash for the tickets", ["640"]),
        ("Paid kr 189.400 for it today.", ["189400"]),
        ("It cost 38.400 kr. for the two of us", ["38400"]),
        ("The rent of the local is 22,000 pesos", ["22000"]),
        # a multiplier said without a currency
        ("chase sapphire limit 15k", ["15000"]),
        ("per transaction it is capped at 1 lakh", ["100000"]),
        ("ran a 10k race on Sunday", []),
        ("did 5k steps today", []),
        # grouped and decimal as Europe writes them
        ("The old rent to the agency (1.150) I must stop", ["1150"]),
        ("bol.com order 89,95 yesterday", ["89.95"]),
        ("38.000 km on it", []),
        # in words, a few words after a payment word
        ("paid the truck loan three thousand four hundred and fifty to Westpac", ["3450"]),
        ("i send twenty thousand every month to my mother", ["20000"]),
        ("spent twenty minutes there", []),
        ("paid two visits to the clinic", []),
    ],
)
def test_an_amount_without_its_currency_is_read_as_it_is_said(text: str, want: list[str]) -> None:
    assert [str(Decimal(a)) for a in bare(text)] == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("sent 125 000 to my brother for the roof", ["125000"]),
        ("the quote came to 2 450 500 in the end", ["2450500"]),
        ("room 12 and 340 chairs", ["12", "340"]),
    ],
)
def test_a_bare_number_grouped_by_spaces_is_one_amount(text: str, want: list[str]) -> None:
    assert [str(a.amount) for a in amounts(text)] == want


def test_a_capture_that_stops_inside_an_amount_gets_the_whole_amount() -> None:
    text = "lamp from Ikea $89.95 today"
    start = text.index("$")
    assert [a.amount for a in amount_at(text, start, start + 3)] == [Decimal("89.95")]
    assert [a.amount for a in amount_at("about 3 million a year", 6, 7)] == [Decimal(3_000_000)]


def test_a_purchase_keeps_its_cents_when_a_day_follows_the_price() -> None:
    paid = of("finance.transactions", found("desk lamp from Ikea $89.95 today, on my debit card"))
    assert [p["amount"] for p in paid] == [Decimal("89.95")]


def test_an_amount_said_in_words_with_a_dropped_d_is_one_amount() -> None:
    said = find_money("the refund come in, three thousand two hundred an forty pound")
    assert [m.amount for m in said] == [Decimal(3240)]


# -- quantities ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "want"), [("84 500", 84500), ("112.400", 112400), ("9'000", 9000)]
)
def test_a_count_grouped_in_thousands_is_one_number(said: str, want: int) -> None:
    assert grouped_int(said) == want


def test_an_odometer_reading_grouped_by_a_space_is_read_whole() -> None:
    cars = of("vehicles.vehicles", found("My car is a Kia Ceed, on the clock 63 200 km now."))
    assert [c.get("mileage") for c in cars] == [63200]


# -- clock ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("scan booked 6/12 @ 0945 at the clinic", dt.time(9, 45), None),
        ("the ferry docks at 1630, pier 4", dt.time(16, 30), None),
        ("training sat 0800-1600, main hall", dt.time(8, 0), dt.time(16, 0)),
        ("Friday at four in the afternoon the piano tuner comes", dt.time(16, 0), None),
        ("tomorrow at nine comma the notary full stop", dt.time(9, 0), None),
        ("the vet Friday arvo 4.45 in Parramatta", dt.time(16, 45), None),
    ],
)
def test_a_clock_time_is_read_without_a_colon_or_in_words(
    text: str, start: dt.time, end: dt.time | None
) -> None:
    said = clock(text)
    assert said is not None and (said.start, said.end) == (start, end)


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("the physio, Monday half ten", dt.time(10, 30)),  # British "half ten"
        ("quiz night Friday, half eight in the pub", dt.time(20, 30)),
        ("parents' evening the 3rd, six o'clock", dt.time(18, 0)),  # o'clock without "at"
        ("the MOT is at er quarter past two", dt.time(14, 15)),  # a filler after "at"
        # a 24-hour time without its colon right after its day
        ("bloods 3/11 0815, fasting", dt.time(8, 15)),
        ("sync call thu 1630 with the Lisbon team", dt.time(16, 30)),
    ],
)
def test_a_clock_time_is_read_as_it_is_said(text: str, start: dt.time) -> None:
    said = clock(text)
    assert said is not None and said.start == start


@pytest.mark.parametrize(
    "text",
    [
        "I lived there 1998-2012",
        "from 2019-2021 I rowed",
        "the climb is at 1200 m",
        "we walked half a mile",
        "it took half an hour",
        "half 3 kilos of flour",
        "we move in on Friday 2031 or so",  # a year after the day
        "paid 3/11 1450 dollars",  # an amount after the day
    ],
)
def test_years_and_heights_are_no_clock_time(text: str) -> None:
    assert clock(text) is None


def test_an_evening_said_of_another_item_of_a_list_leaves_a_morning_hour_alone() -> None:
    text = (
        "this week: the optician on Monday at half past nine, the bank Thursday at 3, "
        "and band practice every Friday evening at eight in the church hall"
    )
    said = clock(text)
    assert said is not None and said.start == dt.time(9, 30)
    near = clock("band practice every Friday evening at eight in the church hall")
    assert near is not None and near.start == dt.time(20, 0)


# -- dates of a range ----------------------------------------------------------------------

MONDAY_2030 = dt.date(2030, 4, 22)


def dates(text: str) -> list[str]:
    return [str(d.date) for d in find_dates(text, MONDAY_2030, "future")]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # one slashed date makes the writer's order plain for the other
        ("guesthouse in Split 3/9 - 17/9, ref Q12", ["2030-09-03", "2030-09-17"]),
        ("hotel near the Duomo 9/2-9/14", ["2030-09-02", "2030-09-14"]),
        # a dotted range with no spaces, over the new year
        ("cabin in Tatras 27.12–3.01.", ["2030-12-27", "2031-01-03"]),
        # two days of one month, the month said once
        ("the fair is 11 and 12 June", ["2030-06-11", "2030-06-12"]),
    ],
)
def test_both_days_of_a_range_are_read_in_order(text: str, want: list[str]) -> None:
    assert dates(text) == want


def test_a_slashed_date_alone_stays_unread_and_noted() -> None:
    assert dates("the party is on 03/04") == []
    notes = date_notes("the party is on 03/04", MONDAY_2030)
    assert [n["kind"] for n in notes] == ["ambiguous_date"]
    assert date_notes("the flat is ours from 3/9 to 17/9", MONDAY_2030) == []


@pytest.mark.parametrize(
    ("text", "want", "said"),
    [
        # a dashed day-month-year date is read as the slashed one: here the day is plain
        ("the lease runs out 30-11-2031", ["2031-11-30"], ["30-11-2031"]),
        # year first, slashed or dotted: year, month, day
        ("ID card valid till 2033/7/9", ["2033-07-09"], ["2033/7/9"]),
        ("the MRI is 2030.08.19 at the Charité", ["2030-08-19"], ["2030.08.19"]),
        ("firmware 2024.3.1 installed", [], []),  # a version, not a day
        ("call 0161-12-2030 for the office", [], []),  # a phone number
    ],
)
def test_a_numeric_date_is_read_whatever_its_separators(
    text: str, want: list[str], said: list[str]
) -> None:
    found = find_dates(text, MONDAY_2030, "future")
    assert [str(d.date) for d in found] == want
    assert [d.text for d in found] == said  # the words as written


def test_a_dashed_date_that_reads_both_ways_is_noted_not_guessed() -> None:
    assert dates("the visa ends 04-09-2031") == []
    notes = date_notes("the visa ends 04-09-2031", MONDAY_2030)
    assert [(n["kind"], n["text"]) for n in notes] == [("ambiguous_date", "04-09-2031")]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # an ordinal day word before its month, without "of"
        ("my flight is on fifteenth march from kathmandu", ["2031-03-15"]),
        ("the trek runs from second august to eleventh august", ["2030-08-02", "2030-08-11"]),
        ("she starts the course twenty-eighth june", ["2030-06-28"]),
        # "may" after an ordinal word without "of" is the verb
        ("the second may be late", []),
        # a day and a month's three letters as one word, as tickets and bank alerts write them
        ("PEN-HKG AK1820 14MAR31 0715. HKG-PEN AK1821 19MAR31 1840", ["2031-03-14", "2031-03-19"]),
        ("POS/WEB DSTV 12-JUN-30 Bal: NGN 312,440.10", ["2030-06-12"]),
        ("KIX - LAX  10MAY 17:25", ["2030-05-10"]),
        ("ref AK1820X and 12JUNE", []),  # part of a code, a month not abbreviated
    ],
)
def test_a_date_written_with_words_or_as_one_word_is_read(text: str, want: list[str]) -> None:
    assert dates(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a day and month each closed by its dot, right after a word
        ("Tax return due 31.10. Must do it before.", ["2030-10-31"]),
        ("- Netflix: cancelled 27.11.\n- Strava: renews 03.12.", ["2030-11-27", "2030-12-03"]),
        ("Nordea account closing 30.9. Moving to OP.", ["2030-09-30"]),
        ("Skoðun due 1.08.", ["2030-08-01"]),
        ("Blood test: cholesterol 6.9. Doctor says statin", []),  # a reading, not 6 September
        # ... unless its clause says an amount or a measure
        ("I paid 10.12.", []),
        ("it cost me 10.12. Then we left", []),
        ("rated it 4.5.", []),
        ("Lunch was 12.10.", []),
        ("€ 5, renews 03.12.", ["2030-12-03"]),  # the amount is another clause's
        # the first day of a range said with its dot alone, the month once at the end
        ("Trip: Tromsø 20.–27.6. Car.", ["2030-06-20", "2030-06-27"]),
        ("Leave 1.-5.12.", ["2030-12-01", "2030-12-05"]),
    ],
)
def test_a_dotted_day_and_month_closed_by_dots_is_a_date_unless_an_amount(
    text: str, want: list[str]
) -> None:
    assert dates(text) == want


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I started it last night", ["2030-04-21"]),
        ("took one last  night", ["2030-04-21"]),  # however many spaces
        ("the last night we sleep at my aunt's", []),  # a stay's final night
        ("so the hotel is 17 to 21 May, for the last night a friend", ["2030-05-17", "2030-05-21"]),
        ("bought it two days back", ["2030-04-20"]),
        ("3 weeks back", ["2030-04-01"]),
    ],
)
def test_a_day_said_back_from_today_is_read(text: str, want: list[str]) -> None:
    assert dates(text) == want


def test_a_booking_said_as_a_range_keeps_its_first_day_as_the_start() -> None:
    stays = of(
        "travel.bookings",
        found("hotel Alfama 7/5 - 14/5, ref LX2291", at=dt.datetime(2030, 4, 22, 9)),
    )
    assert [(s["start"].date(), s["end"].date()) for s in stays] == [
        (dt.date(2030, 5, 7), dt.date(2030, 5, 14))
    ]


# -- doses ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "strength"),
    [
        ("I take gliclazide 80 two times in the day", "80"),
        ("on allopurinol 300 every morning now", "300"),
        ("started escitalopram 10 qd yesterday", "10"),
        ("bisoprolol 2,5 mg in the morning, since Monday", "2.5 mg"),
    ],
)
def test_a_strength_is_read_bare_before_how_often_or_with_a_decimal_comma(
    text: str, strength: str
) -> None:
    meds = of("health.medications", found(text))
    assert len(meds) == 1 and meds[0]["dose"].startswith(strength)


# -- which date is the start ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "said", "want"),
    [
        ("the ferry pass is valid from Friday", "Friday", "start"),
        ("starting tomorrow I walk to work", "tomorrow", "start"),
        ("the offer runs until the end of May", "the end", "end"),
        ("library books due by Thursday", "Thursday", "end"),
        ("flat in Gdansk 3/9 - 17/9", "17/9", "end"),
        ("lunch with Ola on Monday", "Monday", None),
    ],
)
def test_a_date_is_a_start_or_an_end_by_the_words_before_it(
    text: str, said: str, want: str | None
) -> None:
    assert role(text, text.index(said)) == want


def test_a_medication_starts_on_the_day_said_as_its_start_not_the_first_day_said() -> None:
    text = (
        "I hurt my back on Thursday, the GP gave me diclofenac 50 mg three times a day "
        "for five days, starting yesterday."
    )
    meds = of("health.medications", found(text, at=dt.datetime(2030, 4, 22, 9)))
    assert [(m["start_date"], m["stop_date"]) for m in meds] == [
        (dt.date(2030, 4, 21), dt.date(2030, 4, 25))
    ]


@pytest.mark.parametrize(
    ("text", "start"),
    [
        (
            "and the first aid course on tuesday evening at 18:30, from 14/05 for four weeks",
            "2030-05-14T18:30",
        ),
        ("starting pottery classes, fridays 5-7pm til end of july", "2030-04-26T17:00"),
    ],
)
def test_an_event_starts_on_its_start_day_never_on_its_last(text: str, start: str) -> None:
    events = of("schedule.events", found(text, at=dt.datetime(2030, 4, 22, 9)))
    assert [e["start"].isoformat(timespec="minutes") for e in events] == [start]


@pytest.mark.parametrize(
    ("text", "model", "year"),
    [
        ("My car is Kia Rio 2016, 120,000 km now.", "Rio", 2016),
        ("I have today taken my Volvo V60 (2020) in for its service.", "V60", 2020),
    ],
)
def test_a_year_said_after_the_model_is_its_year_not_part_of_its_name(
    text: str, model: str, year: int
) -> None:
    cars = of("vehicles.vehicles", found(text))
    assert [(c["model"], c.get("year")) for c in cars][-1:] == [(model, year)]


# -- which place, which name ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # a place written in lower case is the place, a city with its capitals
        ("booked osaka 25 may to 1 jun, 2 pax", [("Osaka", "JP")]),
        ("then mexico city jan 5 to march 1", [("Mexico City", "MX")]),
        ("we r going to tonga for christmas", [(None, "TO")]),
        # ... unless the name is also an everyday word or a first name
        ("nice weather for a family reunion in turkey", []),
        ("tell us about the forms", []),
        ("back in the uk on monday", [(None, "GB")]),
        # capitalised, the same names are places
        ("Flights to Nice and then Turkey", [("Nice", "FR"), (None, "TR")]),
    ],
)
def test_a_place_is_read_in_lower_case_unless_it_is_also_a_word(
    text: str, want: list[tuple[str | None, str]]
) -> None:
    said = parser("place")(text, AT.date(), "future")
    assert [(f.value["city"], f.value["country"]) for f in said] == want


def test_a_nationality_in_lower_case_is_no_country() -> None:
    said = parser("country")("french fries in japan", AT.date(), "future")
    assert [f.value for f in said] == ["JP"]


@pytest.mark.parametrize(
    ("text", "said", "want"),
    [
        ("We fly from Oslo to Rome and then on to Naples.", "Oslo", "origin"),
        ("We fly from Oslo to Rome and then on to Naples.", "Rome", "destination"),
        ("We fly from Oslo to Rome and then on to Naples.", "Naples", "onward"),
        ("we drive down to Andalusia, to Seville, next week", "Seville", "within"),
        ("the cheap one goes via Dubai", "Dubai", "via"),
        ("a two-hour layover in Madrid", "Madrid", "via"),
        ("Madrid was lovely", "Madrid", None),
    ],
)
def test_a_place_is_an_origin_a_stop_or_a_destination_by_the_words_before_it(
    text: str, said: str, want: str | None
) -> None:
    assert place_role(text, text.index(said)) == want


@pytest.mark.parametrize(
    ("text", "city"),
    [
        ("We fly on 3 May from Oslo to Rome and then on to Naples, back on 12 May.", "Naples"),
        ("We are driving to Andalusia, to Seville, from 3 to 9 May.", "Seville"),
        ("We fly to Rome on 3 May, back on 12 May.", "Rome"),
    ],
)
def test_a_trip_goes_to_the_place_it_goes_on_to_not_the_first_stop(text: str, city: str) -> None:
    trips = of("travel.trips", found(text))
    assert [t.get("city") for t in trips] == [city]


def test_the_place_a_journey_goes_on_from_is_a_stop_on_the_way() -> None:
    text = "We fly on 3 May from Oslo to Rome and then on to Naples, back on 12 May."
    trips = of("travel.trips", found(text))
    assert [(t["city"], t.get("via")) for t in trips] == [("Naples", ["Rome"])]


@pytest.mark.parametrize(
    ("text", "merchant"),
    [
        ("Paid the deposit 900 EUR to landlord Mrs. Okafor yesterday.", "Mrs. Okafor"),
        ("I paid 5,000 euros to the dealer Garvey Motors yesterday.", "Garvey Motors"),
        ("I paid 60 euros to Garvey Motors yesterday.", "Garvey Motors"),
    ],
)
def test_a_payment_to_a_role_word_and_a_name_is_a_payment_to_the_name(
    text: str, merchant: str
) -> None:
    paid = of("finance.transactions", found(text))
    assert [p.get("merchant") for p in paid] == [merchant]


def test_a_possessive_is_no_payee() -> None:
    assert who("to their account", 3, 8) == ""
    paid = of("finance.transactions", found("I paid Acme 1,350 EUR to their account today."))
    assert [p.get("merchant") for p in paid if p.get("merchant")] != ["their"]


def test_the_currency_before_an_amount_is_no_payee() -> None:
    text = 'Shopee: "Order #SP1234 confirmed, RM 899.00, Philips kettle"'
    assert who(text, text.index("RM"), text.index("RM") + 2) == ""
    paid = of("finance.transactions", found(text))
    assert "RM" not in [p.get("merchant") for p in paid]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("the plumber came to 212.40 in the end", ["212.40"]),
        ("tickets were 1,380 altogether", ["1380"]),
        ("it's 3.499,90 for the sofa", ["3499.90"]),
        ("came to £18.20 today", ["18.20"]),
        # a number that is no money
        ("she is 34 and he is 36", []),
        ("cycled 21.50 km before work", []),
        ("12,000 steps yesterday", []),
        ("the bus is at 18.40", []),
        ("ring 0113 496 0321 after six", []),
        ("booked for 14.03.2026", []),
        ("version 2.10 is out", []),
    ],
)
def test_a_number_without_currency_is_money_only_when_written_as_money(
    text: str, want: list[str]
) -> None:
    assert [str(a.amount) for a in money_in(text)] == want
