"""Constructs found by the lead's own probes in session 8 (sentences written for this test)."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.fact_log.extraction.patterns import extract

AT = dt.datetime(2027, 3, 10, 9)


def found(text: str, path: str) -> list[dict]:
    return [c.value for c in extract(text, observed_at=AT) if c.path == path]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("Booked the Hilton in Rome for 3 nights from 5 April.", "Rome"),
        ("ive booked the marriott in Lisbon from 5 to 8 April", "Lisbon"),
        ("We got a Premier Inn in York for 2 nights from the 12th.", "York"),
    ],
)
def test_a_hotel_named_by_its_chain_is_a_hotel_booking(text: str, place: str) -> None:
    [stay] = found(text, "travel.bookings")
    assert stay["kind"] == "hotel" and stay["place"] == place and stay["end"] > stay["start"]


def test_a_chain_in_a_name_is_no_booking() -> None:
    assert found("Paris Hilton was on TV last night.", "travel.bookings") == []


@pytest.mark.parametrize(
    ("text", "merchant", "category"),
    [
        ("Another £150 on groceries at Lidl.", "Lidl", "groceries"),
        ("then €35 on petrol at Shell", "Shell", "petrol"),
    ],
)
def test_an_amount_opening_the_sentence_is_a_payment(
    text: str, merchant: str, category: str
) -> None:
    [paid] = found(text, "finance.transactions")
    assert paid["merchant"] == merchant and paid["category"] == category


def test_an_amount_that_is_only_weighed_is_no_payment() -> None:
    assert found("Another £150 would be too much.", "finance.transactions") == []


@pytest.mark.parametrize(
    "text",
    [
        "and today the banking app shows Octopus took 212.40 again?",
        "The statement shows £40 from Netflix today.",
        "It shows up tomorrow.",
    ],
)
def test_shows_as_a_verb_is_no_event(text: str) -> None:
    assert found(text, "schedule.events") == []


def test_a_show_is_still_an_event() -> None:
    [show] = found("Comedy show tomorrow at 8pm.", "schedule.events")
    assert show["start"] == dt.datetime(2027, 3, 11, 20)


@pytest.mark.parametrize(
    ("text", "item", "bought", "ends"),
    [
        (
            "Bought a Bosch dishwasher on 2 March 2025 with a 2-year warranty.",
            "Bosch dishwasher",
            "2025-03-02",
            "2027-03-02",
        ),
        (
            "I bought a new Dyson vacuum yesterday, 2 year warranty.",
            "Dyson vacuum",
            "2027-03-09",
            "2029-03-09",
        ),
        (
            "Got a new laptop from Currys today, warranty is 3 years.",
            "laptop",
            "2027-03-10",
            "2030-03-10",
        ),
    ],
)
def test_a_warranty_said_with_the_purchase(text: str, item: str, bought: str, ends: str) -> None:
    [w] = found(text, "finance.warranties")
    assert (w["item"], str(w["purchased_on"]), str(w["ends_on"])) == (item, bought, ends)


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
    trips = found(text, "travel.trips")
    assert [(t["country"], str(t["depart"])) for t in trips] == stops


def test_what_follows_then_without_a_place_and_days_is_no_stop() -> None:
    assert len(found("Flying to Rome on 3 May, then we'll see.", "travel.trips")) == 1
    assert len(found("Flying to Paris with my wife and Tom on 3 May.", "travel.trips")) == 1


def test_by_says_how_a_bill_is_paid_not_to_whom() -> None:
    [order] = found(
        "I pay £45 a month to the gym by direct debit from my Monzo account.",
        "finance.scheduled_payments",
    )
    assert order["payee"] == "gym" and order["account"] == "Monzo account"


def test_a_visa_valid_for_a_length_from_a_day_said() -> None:
    [visa] = found(
        "Got my Kenyan e-visa, single entry, valid 90 days from 2 May.", "identity.visas"
    )
    assert (str(visa["valid_from"]), str(visa["valid_until"])) == ("2027-05-02", "2027-07-31")


def test_day_numbers_of_a_date_are_no_hours() -> None:
    # "from 1 June" is the first of June, never 1pm: no event is made of a visa's validity
    said = "My Indian e-visa is valid from 1 June to 30 June."
    assert found(said, "schedule.events") == []
    [visa] = found(said, "identity.visas")
    assert str(visa["valid_until"]) == "2027-06-30"


@pytest.mark.parametrize(
    ("text", "name", "dose"),
    [
        ("took 2 x 500mg paracetamol this morning", "paracetamol", "2 x 500mg"),
        ("Took 1000mg of paracetamol at lunch.", "paracetamol", "1000mg"),
    ],
)
def test_a_dose_taken_is_a_medication_with_what_was_taken(text: str, name: str, dose: str) -> None:
    [med] = found(text, "health.medications")
    assert (med["name"], med["dose"]) == (name, dose)


@pytest.mark.parametrize("text", ["She took 2 paracetamol.", "took 2 buses to get there"])
def test_what_others_took_or_took_as_transport_is_no_medication(text: str) -> None:
    assert found(text, "health.medications") == []


@pytest.mark.parametrize(
    "text",
    [
        "I was SO tired, the rent of 900 euros goes to Frau Albers.",  # "SO" as a word of stress
        "My son goes every month to the dentist, it costs 50 euros.",  # a person, not a payee
        "My pension of 1,200 is paid every month.",  # money coming in
    ],
)
def test_no_payment_instruction_without_one(text: str) -> None:
    assert found(text, "finance.scheduled_payments") == []


def test_dd_and_so_as_payment_words() -> None:
    [dd] = found("I set up a DD for the gym, £30 a month.", "finance.scheduled_payments")
    assert (dd["payee"], dd["method"]) == ("gym", "direct_debit")
    [so] = found("water rates SO goes out on the 12th", "finance.scheduled_payments")
    assert so["method"] == "standing_order" and "SO" not in so["payee"]


@pytest.mark.parametrize("text", ["Firmware 2.14.1 came out.", "Node 18.20.1 is installed."])
def test_a_version_number_is_no_amount(text: str) -> None:
    assert found(text, "finance.transactions") == []


@pytest.mark.parametrize(
    ("text", "substances"),
    [
        (
            "I'm allergic to penicillin, codeine and sulfa drugs.",
            ["penicillin", "codeine", "sulfa drugs"],
        ),
        ("im allergic to peanuts, shellfish and latex", ["peanuts", "shellfish", "latex"]),
        ("I'm allergic to cats, but I love them.", ["cats"]),
        ("I'm allergic to peanuts, my sister to shellfish.", ["peanuts"]),
    ],
)
def test_every_allergen_of_a_list(text: str, substances: list[str]) -> None:
    assert [a["substance"] for a in found(text, "health.allergies")] == substances
