"""Vehicles read from conversation: the user's vehicles, readings and services.

Each construct is tested in sentences invented for the test, in other words and registers
(terse, lowercase, non-native, dictated, pasted) than the tuning sets', with negatives
alongside: other people's facts, questions, hypotheticals and plans find nothing of the
path. Unless a test says otherwise, AT is Sunday 1 June 2025 (tests/candidates.py).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from tests.candidates import AT, D, found, of

CARS = {("Ford", "Fiesta", None), ("Skoda", "Octavia", 2017), ("Volkswagen", "Golf", None)}

VEHICLES = "vehicles.vehicles"

SERVICES = "vehicles.services"

AT_MONDAY = dt.datetime(2025, 3, 10, 9)  # a Monday


# -- vehicles: a service told in steps, the car named by its model -------------------------


def test_a_service_told_over_several_lines() -> None:
    lines = [
        "dropped the Golf in for its service this morning, 91,200 km on the clock",
        "£340 for brakes and a new battery",
        "next one due in 12 months or 20,000 km, whichever is first",
        "it's a 2016 Volkswagen, still runs fine",
    ]
    first = of("vehicles.services", found(lines[0]))
    assert [(s["vehicle"], s["date"], s["mileage"]) for s in first] == [
        ("Volkswagen Golf", AT.date(), 91200)
    ]
    cost = of("vehicles.services", found(lines[1], *lines[:1]))
    assert [(s["vehicle"], s["date"], s["cost"]) for s in cost] == [
        ("Volkswagen Golf", AT.date(), Decimal("340"))
    ]
    due = of("vehicles.services", found(lines[2], *lines[:2]))
    assert [(s["next_due_date"], s["next_due_mileage"]) for s in due] == [(D(2026, 6, 1), 111200)]
    car = of("vehicles.vehicles", found(lines[3], *lines[:3]))
    assert [(c["make"], c["model"], c["year"]) for c in car] == [("Volkswagen", "Golf", 2016)]


@pytest.mark.parametrize(
    "text",
    [
        "my brother took his Golf in for a service today",
        "should I take the Golf in for a service?",
        "is that a good price for a 2016 Volkswagen?",
    ],
)
def test_no_vehicle_facts_of_others_or_asked(text: str) -> None:
    got = found(text, "I drive a Volkswagen Golf.")
    assert of("vehicles.services", got) == [] and of("vehicles.vehicles", got) == []


def test_a_cost_line_needs_a_service_before_it() -> None:
    assert of("vehicles.services", found("£340 for brakes and a new battery")) == []


# -- more constructs: readings with a wish after them, a doctor's instruction the user took,


def test_a_service_of_a_named_model_with_its_next_due_day() -> None:
    got = of(
        "vehicles.services",
        found("the Corolla had its service on 3 March, the next one is due 3 March 2026"),
    )
    assert [(s["vehicle"], s["date"], s.get("next_due_date")) for s in got] == [
        ("Toyota Corolla", D(2025, 3, 3), D(2026, 3, 3))
    ]


# -- vehicles: the roadworthiness inspection (MOT, TÜV) due -----------------------------


@pytest.mark.parametrize(
    ("text", "earlier", "due"),
    [
        ("the MOT on the Fiesta is due 14 March", (), D(2026, 3, 14)),
        ("its TÜV expires end of May", ("We drive a 2017 Skoda Octavia.",), D(2026, 5, 31)),
        ("car inspection needs doing by the 30th", ("I drive a Volkswagen Golf.",), D(2025, 6, 30)),
    ],
)
def test_an_inspection_due_day_is_the_vehicles(text: str, earlier: tuple, due: Any) -> None:
    [car] = of("vehicles.vehicles", found(text, *earlier))
    assert car["inspection_due"] == due
    assert (car["make"], car["model"], car.get("year")) in CARS  # the record talked about


@pytest.mark.parametrize(
    ("text", "earlier"),
    [
        ("my sister's MOT is due 14 March", ("I drive a Volkswagen Golf.",)),
        ("when is the MOT due?", ("I drive a Volkswagen Golf.",)),
        ("the MOT is due 14 March", ()),  # which vehicle? none talked about
    ],
)
def test_no_inspection_of_others_asked_or_of_no_vehicle(text: str, earlier: tuple) -> None:
    got = [v for v in of("vehicles.vehicles", found(text, *earlier)) if "inspection_due" in v]
    assert got == []


# -- vehicles: a service said without "I had", its limits after "or", a reading of "the X" -----


def test_a_service_said_tersely_with_both_limits() -> None:
    got = of(
        "vehicles.services",
        found(
            "Ford Focus serviced yesterday at 48,000 km, next one due at 63,000 km or in 12 months"
        ),
    )
    assert any(
        s.get("mileage") == 48000
        and s.get("next_due_mileage") == 63000
        and s.get("next_due_date") == D(2026, 5, 31)
        for s in got
    ), got


def test_a_service_follow_up_without_a_unit_or_for() -> None:
    earlier = ("the Fiesta went in for its MOT today",)
    got = of("vehicles.services", found("next one at 90,000 or in a year", *earlier))
    assert any(s.get("next_due_mileage") == 90000 for s in got), got
    got = of("vehicles.services", found("£120 with the new wipers", *earlier))
    assert any(str(s.get("cost")) == "120" for s in got), got


def test_a_reading_of_the_vehicle_talked_about() -> None:
    earlier = ("Ford Focus serviced yesterday at 48,000 km",)
    got = of("vehicles.vehicles", found("the Focus is on 55,000 km now", *earlier))
    assert [v.get("mileage") for v in got] == [55000]
    # in a later session: "the Focus" opening the line is a car the user has
    assert [
        v.get("mileage") for v in of("vehicles.vehicles", found("the Focus is on 55,000 km"))
    ] == [55000]
    for text in ("my brother's Focus is on 55,000 km", "the Focus I test drove was on 20,000 km"):
        assert of("vehicles.vehicles", found(text)) == [], text


def test_the_reading_said_after_the_service_completes_it() -> None:
    got = of(
        "vehicles.services",
        found("the Octavia went in for its service today. 2017 Skoda Octavia, 120,500 km"),
    )
    assert [s.get("mileage") for s in got] == [120500], got


# -- vehicles: readings grouped the writer's way, the year after the model, dotted dates, ---
# -- a model named in passing, the registration, the last service --------------------------


def test_a_reading_grouped_with_dots_and_the_year_after_the_model() -> None:
    cars = of("vehicles.vehicles", found("Mein Auto: my car is a VW Golf from 2017, 98.300 km"))
    assert any(c.get("year") == 2017 and c.get("mileage") == 98300 for c in cars), cars


def test_an_inspection_with_a_dotted_date() -> None:
    cars = of(
        "vehicles.vehicles",
        found("The TÜV has to be done by 15.09.2025.", "I drive a Skoda Octavia from 2018"),
    )
    assert any(c.get("inspection_due") == D(2025, 9, 15) for c in cars), cars


def test_the_last_service_with_a_dotted_day_and_its_cost() -> None:
    services = of(
        "vehicles.services",
        found(
            "Last service was at the garage in March, on 12.03., new pads, cost 310 EUR",
            "I drive a Skoda Octavia from 2018",
        ),
    )
    assert any(s["date"] == D(2025, 3, 12) and s.get("cost") == Decimal("310") for s in services), (
        services
    )


def test_a_model_in_passing_then_its_registration_and_mot_in_one_record() -> None:
    earlier = ("insurance renewal for the astra is £540, ouch",)
    cars = of("vehicles.vehicles", found("MOT due end of july too. reg is AB12 CDE", *earlier))
    assert any(
        c.get("plate") == "AB12 CDE" and c.get("inspection_due") == D(2025, 7, 31) for c in cars
    ), cars


@pytest.mark.parametrize(
    "text",
    ["my brother's astra failed its MOT", "is the corsa a good first car?"],
)
def test_no_vehicle_of_others_or_asked(text: str) -> None:
    assert of("vehicles.vehicles", found(text)) == []


# -- vehicles: the make after "my", "last service <date>", a reading the car shows ---------


def test_the_make_after_my_and_the_service_with_its_next_reading() -> None:
    cands = found(
        "My Skoda Octavia from 2016 has now 143.900 km. "
        "Last service 03.03.2025, next one at 160.000 km"
    )
    cars = of("vehicles.vehicles", cands)
    assert any(c.get("year") == 2016 and c.get("mileage") == 143900 for c in cars), cars
    services = of("vehicles.services", cands)
    assert any(
        s["date"] == D(2025, 3, 3) and s.get("next_due_mileage") == 160000 and "mileage" not in s
        for s in services
    ), services


def test_a_reading_the_car_shows() -> None:
    cars = of("vehicles.vehicles", found("after the trip to Scotland the Octavia shows 151.200 km"))
    assert [c.get("mileage") for c in cars] == [151200], cars


# -- an odometer reading is not the service target ----------------------------------------


@pytest.mark.parametrize(
    ("text", "km"),
    [
        ("My Golf needs a service at 60,000 miles, it's on 58,200 now", 93664),
        ("my VW Golf is due a service at 60,000 miles and has 58,200 miles on it", 93664),
        ("My Yaris is due its next service at 100,000 km", None),
        ("my corsa does a service every 10,000 km, currently 43,500 km", 43500),
    ],
)
def test_odometer_reading_not_the_target(text: str, km: int | None) -> None:
    (car,) = of("vehicles.vehicles", found(text))
    assert car.get("mileage") == km


# -- vehicles: named by their kind, farm vehicles, services said tersely -------------------


def test_a_vehicle_said_as_what_its_kind_is() -> None:
    (car,) = of(VEHICLES, found("the pickup is a 2018 hilux, 140,000 km on it"))
    assert car == {
        "make": "Toyota",
        "model": "Hilux",
        "year": 2018,
        "mileage": 140000,
        "mileage_on": AT.date(),
    }
    assert of(VEHICLES, found("my neighbour's van is a 2018 hilux")) == []


def test_an_inspection_by_its_countrys_name() -> None:
    said = of(VEHICLES, found("the NCT is due the 30th of june", "my car is a 2012 corolla"))
    assert said and said[0]["inspection_due"] == D(2025, 6, 30)


def test_a_service_named_by_make_and_model_with_its_one_amount() -> None:
    cands = found("tractor went in for the service friday, massey ferguson 5713, €520 all in")
    assert of(VEHICLES, cands) == [{"make": "Massey Ferguson", "model": "5713"}]
    (svc,) = of(SERVICES, cands)
    assert svc["vehicle"] == "Massey Ferguson 5713" and svc["cost"] == Decimal("520")


def test_a_terse_service_with_its_next_reading_and_a_year() -> None:
    (svc,) = of(
        SERVICES,
        found("corolla service done, 98,400 km on the clock, €310, next at 113,400 or a year"),
    )
    assert svc["mileage"] == 98400 and svc["next_due_mileage"] == 113400
    assert svc["next_due_date"] == D(2026, 6, 1) and svc["cost"] == Decimal("310")


# -- a vehicle sold, given away or scrapped is no vehicle the user owns ----------------------


@pytest.mark.parametrize(
    "text",
    [
        "I sold my Golf for £8,000",
        "I sold my VW Golf last week",
        "I gave away my Corolla to my nephew",
        "I gave my Corolla to my nephew",
        "My old Fiesta got scrapped",
        "my VW Golf was written off in the crash",
        "Traded in my 2015 Ford Focus for a Kia Niro",
        "My VW Golf was sold yesterday",
        "I got rid of the Corolla",
    ],
)
def test_a_vehicle_parted_with_is_not_owned(text: str) -> None:
    assert of("vehicles.vehicles", found(text)) == []


def test_a_vehicle_kept_or_bought_beside_one_sold_is_owned() -> None:
    [niro] = of("vehicles.vehicles", found("Sold my Golf, now I drive a 2022 Kia Niro"))
    assert (niro["model"], niro["year"]) == ("Niro", 2022)
    [golf] = of("vehicles.vehicles", found("My Golf is on 84,000 km"))
    assert golf["mileage"] == 84000
    assert of("vehicles.vehicles", found("my Corolla is for sale")) != []


# -- a make and model code read with a reading: the user's vehicle, k's as kilometres --------


@pytest.mark.parametrize(
    ("text", "make", "model", "year", "km"),
    [
        (
            "quick one, the Scania R450 2019 model rolled over 612,000 k's today",
            "Scania",
            "R450",
            2019,
            612000,
        ),
        ("the FH16 Volvo's on 300,100 ks now", "Volvo", "FH16", None, 300100),
        ("brand new 2024 Isuzu D-Max, 1,200 km on her", "Isuzu", "D-Max", 2024, 1200),
        ("Washed the Mazda CX-5 and it shows 64,020 km.", "Mazda", "CX-5", None, 64020),
    ],
)
def test_a_make_and_model_read_with_a_reading(
    text: str, make: str, model: str, year: int | None, km: int
) -> None:
    [car] = of("vehicles.vehicles", found(text, at=AT_MONDAY))
    assert (car["make"], car["model"], car.get("year"), car["mileage"]) == (make, model, year, km)


@pytest.mark.parametrize(
    "text",
    [
        "My brother's Toyota Hilux has 300,000 km on it",
        "The Volvo XC60 we hired had 20,000 km on it",
        "Scania R500 for sale, 600,000 ks",
        "Mazda CX-5 with 80,000 km, is that a good buy?",
        "the Kenworth depot is 40 ks away",
    ],
)
def test_no_vehicle_of_anothers_hired_or_asked_about(text: str) -> None:
    assert of("vehicles.vehicles", found(text, at=AT_MONDAY)) == []


# -- "took my last X", "X is done": a medication's stop ---------------------------------------


def test_a_service_said_only_by_its_month_gone_by_is_no_service_of_today() -> None:
    earlier = "my Toyota Corolla is on 80,000 km"
    assert (
        of(
            "vehicles.services",
            found("had the service at 78,000 back in August", earlier, at=AT_MONDAY),
        )
        == []
    )
    [svc] = of(
        "vehicles.services", found("the Corolla had its service on 3 March", earlier, at=AT_MONDAY)
    )
    assert svc["date"] == D(2025, 3, 3)
