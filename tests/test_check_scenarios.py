"""Checks, one scenario per check over typed state and `today`, each alert
actionable (plain words, the objects, why, a next step), and "to confirm" questions."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest

from uac.checks.library import REGISTRY
from uac.checks.library.health import daily_mg
from uac.checks.model import DEFAULT_CONFIG
from uac.fact_log.reference import health_rules, travel_rules

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("checks over typed state in memory: no log")

D = dt.date
T = dt.datetime
TODAY = D(2025, 3, 1)


def rec(key: str, **fields: Any) -> SimpleNamespace:
    return SimpleNamespace(key=key, fact_ids=(f"f_{key}",), **fields)


def trip(country: str, depart: dt.date, ret: dt.date | None = None, city=None, via=()):
    return rec(
        f"{country}|{depart}", country=country, city=city, depart=depart, return_date=ret, via=via
    )


def med(name: str, dose=None, start=None, stop=None, supply_until=None):
    return rec(
        f"{name}|{start}",
        name=name,
        dose=dose,
        start_date=start,
        stop_date=stop,
        supply_until=supply_until,
    )


def user(nationality: str | None = "GB", **kw: Any) -> SimpleNamespace:
    groups = {
        "identity": SimpleNamespace(nationality=nationality),
        "passport": SimpleNamespace(
            issuing_country=kw.pop("issuing_country", None),
            expiry_date=kw.pop("expiry", None),
            full_name=kw.pop("full_name", None),
            blank_pages=kw.pop("blank_pages", None),
        ),
    }
    if (kg := kw.pop("weight_kg", None)) is not None:
        kw["body_weight"] = [rec("w", date=dt.date(2025, 1, 1), kg=kg)]
    return SimpleNamespace(**groups, **{k: tuple(v) for k, v in kw.items()})


def run(name: str, u: SimpleNamespace, today: dt.date = TODAY) -> list[Any]:
    alerts = REGISTRY[name](u, today, DEFAULT_CONFIG)
    for a in alerts:  # every alert is actionable
        assert a.message and a.why and a.next_step and a.computation, a
    return alerts


def text(alert: Any) -> str:
    return f"{alert.message} {alert.why} {alert.next_step}"


# -- travel --------------------------------------------------------------------------------


@NO_LOG
def test_visa_window_names_the_country_and_the_day_it_ends() -> None:
    visa = rec("IN|v", country="IN", kind=None, valid_from=None, valid_until=D(2025, 4, 10))
    t = trip("IN", D(2025, 4, 1), D(2025, 4, 20), city="Mumbai")
    [a] = run("visa_for_trip", user("US", trips=[t], visas=[visa]))
    assert "India" in a.message and "2025-04-10, before you return" in a.message
    assert a.severity == "critical" and "Apply for a visa" in a.next_step


@NO_LOG
def test_missing_nationality_asks_once_then_resolves() -> None:
    trips = [trip("IN", D(2025, 4, 20), city="Delhi"), trip("KE", D(2025, 6, 2))]
    [q] = run("visa_for_trip", user(None, trips=trips))
    assert q.severity == "info" and q.record_keys == ("to_confirm", "nationality")
    assert q.message.startswith("To confirm:") and "Delhi, India" in q.message
    assert run("visa_for_trip", user("IN", trips=trips)) == []  # answered: nothing to ask


@NO_LOG
def test_single_entry_visa_used_by_an_earlier_trip() -> None:
    visa = rec(
        "CN|v", country="CN", kind=None, valid_from=D(2025, 3, 1), valid_until=D(2025, 9, 30)
    )
    visa.entries = "single"
    first = trip("CN", D(2025, 4, 10), D(2025, 4, 18), city="Shanghai")
    second = trip("CN", D(2025, 6, 15), D(2025, 6, 22), city="Beijing")
    [a] = run("visa_single_entry", user("US", visas=[visa], trips=[first, second]))
    assert "single-entry" in a.message and "Shanghai" in a.message and "Beijing" in a.message
    visa.entries = "multiple"
    assert run("visa_single_entry", user("US", visas=[visa], trips=[first, second])) == []


@NO_LOG
def test_transit_through_a_country_without_airside_transit() -> None:
    t = trip("MX", D(2025, 6, 3), D(2025, 6, 17), city="Mexico City", via=("Dallas",))
    [a] = run("transit_visa", user("GB", trips=[t]))
    assert "transit" in a.message and "Dallas (the United States)" in a.message
    assert a.severity == "warning"  # an ESTA, not a visa
    indian = run("transit_visa", user("IN", trips=[trip("MX", D(2025, 7, 10), via=("CA",))]))
    assert indian[0].severity == "critical" and "Canada" in indian[0].message
    assert run("transit_visa", user("US", trips=[t])) == []  # own country: no transit rule


@NO_LOG
def test_schengen_90_in_180_counts_every_stay() -> None:
    paris = trip("FR", D(2025, 1, 10), D(2025, 2, 28), city="Paris")
    rome = trip("IT", D(2025, 4, 1), D(2025, 5, 20), city="Rome")
    [a] = run("schengen_stay_limit", user("US", trips=[paris, rome]))
    assert "Schengen limit of 90 days in any 180" in a.message and "Rome, Italy" in a.message
    assert "2025-05-11" in a.message  # day 91: 50 (Paris) + 41 (Rome)
    assert run("schengen_stay_limit", user("DE", trips=[paris, rome])) == []  # EU citizen
    short = trip("IT", D(2025, 4, 1), D(2025, 4, 20))
    assert run("schengen_stay_limit", user("US", trips=[paris, short])) == []


@NO_LOG
def test_blank_pages_and_health_certificate() -> None:
    t = trip("ZA", D(2025, 8, 14), D(2025, 8, 28), city="Johannesburg")
    [a] = run("passport_blank_pages", user("GB", blank_pages=1, trips=[t]))
    assert "1 blank page left" in a.message and "South Africa needs 2 blank pages" in a.message
    assert run("passport_blank_pages", user("GB", blank_pages=4, trips=[t])) == []
    assert run("passport_blank_pages", user("GB", trips=[t])) == []  # unknown: silent
    ghana = trip("GH", D(2025, 10, 10), D(2025, 10, 24), city="Accra")
    # No vaccination on record at all: a question, once (two trips), not a warning.
    togo = trip("TG", D(2025, 11, 1), D(2025, 11, 9), city="Lome")
    [q] = run("health_certificate", user("GB", trips=[ghana, togo]))
    assert q.severity == "info" and q.message.startswith("To confirm:")
    assert "yellow fever" in q.message and "Accra, Ghana" in q.message
    assert "certificate" in q.message
    jab = rec("yf", name="Yellow fever", date=D(2019, 5, 1), valid_until=None)
    assert run("health_certificate", user("GB", trips=[ghana], vaccinations=[jab])) == []
    # Other vaccinations on record but not this one: the certificate is missing.
    typhoid = rec("ty", name="typhoid", date=D(2024, 5, 1), valid_until=None)
    [c] = run("health_certificate", user("GB", trips=[ghana], vaccinations=[typhoid]))
    assert c.severity == "critical" and "none is recorded" in c.message
    assert "Accra, Ghana" in c.message
    stamaril = rec("st", name="Stamaril", date=None, valid_until=None)  # the brand name
    assert run("health_certificate", user("GB", trips=[ghana], vaccinations=[stamaril])) == []


@NO_LOG
@pytest.mark.parametrize(
    ("ticket", "passport"),
    [
        ("Mr John Smith", "John Smith"),
        ("SMITH/JOHN MR", "John Smith"),  # airline order and title
        ("John Smith", "Dr John Smith"),
        ("SINEAD KELLY", "Sinéad Kelly"),  # tickets carry no accents
        ("Jose\u0301 Garci\u0301a", "José García"),  # decomposed against composed
        ("EMRE YILDIZ", "Emre Can Yıldız"),  # a dotless i is an I on the ticket
        ("SOREN OESTERGAARD", "Søren Østergaard"),  # ICAO spells ø out as OE ...
        ("Soren Ostergaard", "Søren Østergaard"),  # ... or prints the plain letter
        ("MUELLER/JUERGEN", "Jürgen Müller"),
        ("Jurgen Muller", "Jürgen Müller"),
        ("GROSS/ANNA MS", "Anna Groß"),
        ("LUKASZ WOJCIK", "Łukasz Wójcik"),
        ("Thora Einarsdottir", "Þóra Einarsdóttir"),
        ("WANG WEI", "王伟"),  # not in Latin letters: spelled by other rules, not compared
        ("DMITRII IVANOV", "Дмитрий Иванов"),
    ],
)
def test_the_same_name_as_tickets_write_it_is_no_mismatch(ticket: str, passport: str) -> None:
    flight = rec(
        "f", kind="flight", place="Nice", start=T(2025, 5, 3, 7), end=None, traveller_name=ticket
    )
    assert run("booking_name_mismatch", user("GB", full_name=passport, bookings=[flight])) == []
    flight.traveller_name = "Jane Smith"  # and a different first name still alerts
    assert run("booking_name_mismatch", user("GB", full_name="John Smith", bookings=[flight]))


@NO_LOG
@pytest.mark.parametrize(
    ("ticket", "passport"),
    [
        ("Emre Yilmaz", "Emre Yıldız"),
        ("Juergen Mayer", "Jürgen Müller"),
        ("Anna Gras", "Anna Groß"),
    ],
)
def test_a_different_surname_in_another_script_still_alerts(ticket: str, passport: str) -> None:
    flight = rec(
        "f", kind="flight", place="Nice", start=T(2025, 5, 3, 7), end=None, traveller_name=ticket
    )
    assert run("booking_name_mismatch", user("DE", full_name=passport, bookings=[flight]))


@NO_LOG
def test_a_hostile_name_of_many_spelled_out_words_costs_no_more_than_its_length() -> None:
    # each word with an umlaut has two forms: 2**400 spellings if all were tried
    flight = rec("f", kind="flight", place="Nice", start=T(2025, 5, 3, 7), end=None,
                 traveller_name=" ".join(["Müller"] * 400) + " Jürgen")  # fmt: skip
    u = user("DE", full_name=" ".join(["Jürgen"] + ["Müller"] * 400), bookings=[flight])
    assert run("booking_name_mismatch", u)  # first names differ


@NO_LOG
def test_insurance_gaps_past_and_after_the_trip() -> None:
    t = trip("JP", D(2025, 6, 20), D(2025, 7, 5), city="Tokyo")
    after = rec("p", kind="travel", provider="Axa", valid_from=D(2025, 9, 1), valid_until=None)
    [a] = run("insurance_for_trip", user("GB", insurance_policies=[after], trips=[t]))
    assert (
        a.message.startswith("No travel insurance covers") and "starts on 2025-09-01" in a.message
    )
    # a trip under way: the days already past are not counted, only what can still be covered
    away = trip("JP", D(2025, 2, 20), D(2025, 3, 10), city="Tokyo")
    late = rec("q", kind="travel", provider="Axa", valid_from=D(2025, 3, 5), valid_until=None)
    [b] = run(
        "insurance_for_trip", user("GB", insurance_policies=[late], trips=[away]), D(2025, 3, 1)
    )
    assert "4 days without cover" in b.message
    # a hostile far-off return costs a sweep, not a walk over every day
    far = trip("JP", D(2025, 6, 20), D(9999, 12, 30), city="Tokyo")
    many = [
        rec(
            f"p{i}",
            kind="travel",
            provider="Axa",
            valid_from=D(2025 + i, 1, 1),
            valid_until=D(2025 + i, 6, 30),
        )
        for i in range(20)
    ]
    [c] = run("insurance_for_trip", user("GB", insurance_policies=many, trips=[far]))
    assert "without cover" in c.message


@NO_LOG
def test_booking_name_against_the_passport() -> None:
    flight = rec(
        "f", kind="flight", place="Lisbon", start=T(2025, 5, 3, 7), end=None,
        traveller_name="Kate Moore",
    )  # fmt: skip
    u = user("GB", full_name="Katherine Elizabeth Moore", bookings=[flight])
    [a] = run("booking_name_mismatch", u)
    assert a.message.startswith("Conflict:") and "'Kate Moore'" in a.message
    flight.traveller_name = "Katherine Moore"  # a middle name left out is accepted
    assert run("booking_name_mismatch", u) == []


@NO_LOG
@pytest.mark.parametrize(
    ("ticket", "alerts"),
    [
        ("Henrietta Blake", True),  # half of a double-barrelled surname is another surname
        ("Henrietta Ashworth", True),
        ("Henrietta Ashworth-Blake", False),
        ("HENRIETTA ASHWORTHBLAKE", False),  # tickets drop the hyphen
        ("Henrietta Ashworth Blake", False),
        ("Henrietta Clare Ashworth-Blake", False),
        ("Henry Ashworth-Blake", True),
    ],
)
def test_a_double_barrelled_surname_is_one_surname(ticket: str, alerts: bool) -> None:
    flight = rec(
        "f", kind="flight", place="Nice", start=T(2025, 5, 3, 7), end=None, traveller_name=ticket
    )
    u = user("GB", full_name="Henrietta Clare Ashworth-Blake", bookings=[flight])
    assert bool(run("booking_name_mismatch", u)) is alerts
    # a first name in two words on the ticket is still the passport's one first name
    flight.traveller_name = "Jean Luc Picard"
    assert (
        run("booking_name_mismatch", user("FR", full_name="Jean-Luc Picard", bookings=[flight]))
        == []
    )


@NO_LOG
def test_insurance_ending_while_away() -> None:
    policy = rec("p", kind="travel", provider="Aviva", valid_from=None, valid_until=D(2025, 6, 30))
    t = trip("JP", D(2025, 6, 20), D(2025, 7, 5), city="Tokyo")
    [a] = run("insurance_for_trip", user("GB", insurance_policies=[policy], trips=[t]))
    assert "while you are away" in a.message and "5 days without cover" in a.message
    assert run("insurance_for_trip", user("GB", trips=[t])) == []  # no policy known: silent


@NO_LOG
def test_insurance_cover_is_the_union_of_back_to_back_policies() -> None:
    t = trip("JP", D(2025, 6, 20), D(2025, 7, 5), city="Tokyo")
    old = rec("p1", kind="travel", provider="Aviva", valid_from=None, valid_until=D(2025, 6, 30))
    renewal = rec("p2", kind="travel", provider="Aviva", valid_from=D(2025, 7, 1), valid_until=None)
    assert run("insurance_for_trip", user("GB", insurance_policies=[old, renewal], trips=[t])) == []
    # a renewal that starts two days late leaves exactly those two days open
    renewal.valid_from = D(2025, 7, 3)
    [a] = run("insurance_for_trip", user("GB", insurance_policies=[old, renewal], trips=[t]))
    assert "ends on 2025-06-30" in a.message and "2 days without cover" in a.message
    # nothing in force on departure day: the policy that starts during the trip is named
    [b] = run("insurance_for_trip", user("GB", insurance_policies=[renewal], trips=[t]))
    assert "starts on 2025-07-03" in b.message and "13 days without cover" in b.message


@NO_LOG
@pytest.mark.parametrize(("flight_day", "words"), [(11, "2 nights with no booking"), (8, "before")])
def test_checkout_against_the_flight_home(flight_day: int, words: str) -> None:
    hotel = rec("h", kind="hotel", place="Lisbon", start=T(2025, 5, 4), end=T(2025, 5, 9, 11))
    flight = rec("f", kind="flight", place="Lisbon", start=T(2025, 5, flight_day, 7), end=None)
    [a] = run("checkout_vs_flight", user(bookings=[hotel, flight]))
    assert "check-out" in a.message and words in a.message
    flight.start = T(2025, 5, 9, 18)
    assert run("checkout_vs_flight", user(bookings=[hotel, flight])) == []


# -- health --------------------------------------------------------------------------------


@NO_LOG
def test_food_and_supplement_interactions() -> None:
    juice = rec("gj", name="grapefruit juice", kind="drink", start_date=None, stop_date=None)
    [a] = run("food_drug_interaction", user(medications=[med("simvastatin")], intake=[juice]))
    assert "grapefruit (grapefruit juice) with simvastatin" in a.message
    wort = rec("sjw", name="St John's wort", kind="supplement", start_date=None, stop_date=None)
    [b] = run("supplement_drug_interaction", user(medications=[med("sertraline")], intake=[wort]))
    assert b.severity == "critical" and "serotonin" in b.why
    stopped = rec("x", name="St John's wort", start_date=None, stop_date=D(2025, 1, 1))
    u = user(medications=[med("sertraline")], intake=[stopped])
    assert run("supplement_drug_interaction", u) == []


@NO_LOG
def test_pregnancy_and_activity_against_conditions() -> None:
    pregnant = rec("p", name="pregnancy", status="active")
    [a] = run(
        "pregnancy_contraindication", user(medications=[med("ibuprofen")], conditions=[pregnant])
    )
    assert a.severity == "warning" and "20 weeks" in a.why
    over = rec("p", name="pregnancy", status="resolved")
    u = user(medications=[med("ibuprofen")], conditions=[over])
    assert run("pregnancy_contraindication", u) == []
    dive = rec(
        "d", title="Scuba diving course", start=T(2025, 7, 12, 9), end=None, location="Dahab"
    )
    epilepsy = rec("e", name="epilepsy", status="managed")
    [b] = run("activity_vs_condition", user(events=[dive], conditions=[epilepsy]))
    assert "Scuba diving" in b.message and "epilepsy" in b.message


@NO_LOG
def test_dose_against_body_weight_and_the_question_without_one() -> None:
    assert daily_mg("1 g four times a day") == Decimal(4000)
    assert daily_mg("500 mg every 6 hours") == Decimal(2000)
    assert daily_mg("20 mg") is None
    # how many are taken at once, before or after the amount
    assert daily_mg("2 x 500mg four times a day") == Decimal(4000)
    assert daily_mg("two 500mg tablets four times a day") == Decimal(4000)
    assert daily_mg("30/500mg, two tablets four times a day") == Decimal(4000)
    assert daily_mg("500mg four times a day") == Decimal(2000)  # no "5" counted out of 500
    para = med("paracetamol", dose="1 g four times a day")
    [a] = run("dose_vs_weight", user(weight_kg=45.0, medications=[para]))
    assert "4000 mg a day, above the 2700 mg maximum at 45 kg" in a.message
    assert run("dose_vs_weight", user(weight_kg=82.0, medications=[para])) == []
    [q] = run("dose_vs_weight", user(medications=[para]))
    assert q.severity == "info" and q.record_keys == ("to_confirm", "body_weight")


@NO_LOG
def test_medication_running_out_before_or_during_a_trip() -> None:
    t = trip("JP", D(2025, 6, 5), D(2025, 6, 20), city="Tokyo")
    metformin = med("metformin", supply_until=D(2025, 6, 10))
    [a] = run("medication_runs_out", user(medications=[metformin], trips=[t]))
    assert "while you are away" in a.message and a.severity == "critical"
    early = med("insulin", supply_until=D(2025, 6, 1))
    [b] = run("medication_runs_out", user(medications=[early], trips=[t]))
    assert "before your trip to Tokyo, Japan" in b.message
    soon = med("sertraline", supply_until=D(2025, 3, 5))
    [c] = run("medication_runs_out", user(medications=[soon]))
    assert "in 4 days" in c.message
    assert run("medication_runs_out", user(medications=[soon]), D(2025, 2, 1)) == []


# -- finance -------------------------------------------------------------------------------


def tx(day: dt.date, amount: str, merchant: str) -> SimpleNamespace:
    return rec(
        f"{day}|{merchant}",
        date=day,
        amount=Decimal(amount),
        currency="GBP",
        merchant=merchant,
        category=None,
        note=None,
        payee_account=None,
    )


@NO_LOG
def test_charge_after_cancellation() -> None:
    sub = rec("n", name="Netflix", cancelled_on=D(2025, 2, 3), renews_on=None, amount=None)
    [a] = run(
        "charge_after_cancellation",
        user(subscriptions=[sub], transactions=[tx(D(2025, 2, 27), "10.99", "Netflix")]),
    )
    assert "cancelled Netflix on 2025-02-03" in a.message and "10.99 GBP" in a.message
    before = tx(D(2025, 2, 1), "10.99", "Netflix")
    assert run("charge_after_cancellation", user(subscriptions=[sub], transactions=[before])) == []


def pay(payee: str, account: str, amount: str, **kw: Any) -> SimpleNamespace:
    fields = {"method": None, "period": None, "day_of_month": None, "next_date": None}
    fields.update(ends_on=None, currency="GBP", **kw)
    return rec(f"{payee}|{account}", payee=payee, account=account, amount=Decimal(amount), **fields)


def account(name: str, **kw: Any) -> SimpleNamespace:
    fields = {"per_transaction_limit": None, "closing_on": None, "currency": "GBP", **kw}
    return rec(name, name=name, **fields)


@NO_LOG
def test_card_limit_and_autopay_from_a_closing_account() -> None:
    card = account("Monzo card", per_transaction_limit=Decimal(1000))
    deposit = pay("car dealer", "Monzo card", "1450", next_date=D(2025, 3, 11))
    [a] = run("card_limit", user(bank_accounts=[card], scheduled_payments=[deposit]))
    assert "1450 GBP" in a.message and "1000 GBP per-transaction limit" in a.message
    bank = account("Barclays account", closing_on=D(2025, 3, 20))
    rent = pay("rent", "Barclays account", "1200", method="standing_order", day_of_month=1)
    [b] = run("autopay_from_closing_account", user(bank_accounts=[bank], scheduled_payments=[rent]))
    assert "closing on 2025-03-20; the next one on 2025-04-01 would fail" in b.message
    rent.ends_on = D(2025, 3, 1)
    u = user(bank_accounts=[bank], scheduled_payments=[rent])
    assert run("autopay_from_closing_account", u) == []


@NO_LOG
def test_payments_of_one_day_against_a_daily_limit() -> None:
    card = account("Monzo card", daily_limit=Decimal(1000))
    deposit = pay("car dealer", "Monzo card", "700", next_date=D(2025, 3, 11))
    hotel = pay("Hotel Lux", "Monzo", "450", next_date=D(2025, 3, 11))
    later = pay("garage", "Monzo card", "600", next_date=D(2025, 3, 12))
    u = user(bank_accounts=[card], scheduled_payments=[deposit, hotel, later])
    [a] = run("card_limit", u)  # 700 + 450 on the 11th; the 12th's 600 alone is under
    assert "2025-03-11" in a.message and "1150 GBP, over its 1000 GBP daily limit" in a.message
    assert set(a.fact_ids) == {"f_Monzo card", "f_car dealer|Monzo card", "f_Hotel Lux|Monzo"}
    hotel.next_date = D(2025, 3, 12)  # 700 and 1050 on two days: the 12th is over
    [b] = run("card_limit", user(bank_accounts=[card], scheduled_payments=[deposit, hotel, later]))
    assert "2025-03-12" in b.message and "1050 GBP" in b.message
    hotel.currency = "EUR"  # another currency is not added up
    assert (
        run("card_limit", user(bank_accounts=[card], scheduled_payments=[deposit, hotel, later]))
        == []
    )


@NO_LOG
def test_a_daily_limit_adds_one_currency_and_leaves_a_lone_big_payment_to_its_own_alert() -> None:
    card = account("Wise card", daily_limit=Decimal(1000), currency=None)
    usd = pay("hotel", "Wise card", "700", next_date=D(2025, 3, 11))
    eur = pay("rail", "Wise card", "450", next_date=D(2025, 3, 11))
    usd.currency, eur.currency = "USD", "EUR"
    assert run("card_limit", user(bank_accounts=[card], scheduled_payments=[usd, eur])) == []
    capped = account("Monzo card", daily_limit=Decimal(1000), per_transaction_limit=Decimal(800))
    big = pay("dealer", "Monzo card", "1500", next_date=D(2025, 3, 11))
    [a] = run("card_limit", user(bank_accounts=[capped], scheduled_payments=[big]))
    assert "per-transaction limit" in a.message  # one alert for one payment, not two


@NO_LOG
def test_two_instructions_for_one_payee() -> None:
    a = pay("Little Acorns nursery", "joint", "650", method="standing_order")
    b = pay("Little Acorns nursery", "Revolut", "650", method="direct_debit")
    [c] = run("conflicting_payment_instructions", user(scheduled_payments=[a, b]))
    assert c.message.startswith("Conflict: two payment instructions for Little Acorns")


@NO_LOG
def test_warranty_and_promotional_rate_expiries() -> None:
    w = rec("w", item="Bosch washing machine", provider=None, ends_on=D(2025, 3, 20))
    [a] = run("warranty_expiry", user(warranties=[w]))
    assert "Bosch washing machine" in a.message and "in 19 days" in a.message
    assert run("warranty_expiry", user(warranties=[w]), D(2025, 1, 1)) == []  # too early
    p = rec("p", name="broadband deal", provider="BT", then="£45 a month", ends_on=D(2025, 3, 15))
    [b] = run("promo_rate_expiry", user(promotions=[p]))
    assert "then £45 a month" in b.message


# -- schedule ------------------------------------------------------------------------------


def event(title: str, start: dt.datetime, **kw: Any) -> SimpleNamespace:
    fields = {"end": None, "location": None, "repeats": None, "repeat_until": None, **kw}
    return rec(f"{title}|{start}", title=title, start=start, **fields)


@NO_LOG
def test_recurring_events_collide_and_stop_colliding_after_they_end() -> None:
    yoga = event("Yoga class", T(2025, 2, 25, 18), repeats="weekly")
    call = event("Team call", T(2025, 3, 4, 18), repeats="weekly")
    [a] = run("recurring_event_collision", user(events=[yoga, call]))
    assert "Conflict" in a.message and "every Tuesday 18:00" in a.message
    assert "2025-03-04" in a.message
    yoga.repeat_until = D(2025, 2, 25)
    assert run("recurring_event_collision", user(events=[yoga, call])) == []
    piano = event("Piano lesson", T(2025, 3, 6, 17), repeats="weekly")
    parents = event("Parents evening", T(2025, 3, 13, 17))
    [b] = run("recurring_event_collision", user(events=[piano, parents]))
    assert "'Parents evening'" in b.message
    assert run("event_overlap", user(events=[piano, parents])) == []  # reported once, above


@NO_LOG
def test_deadline_while_away_is_a_compound_of_tasks_and_trips() -> None:
    task = rec("g", goal="Grant application", status="planned", due_date=D(2025, 3, 14))
    t = trip("PT", D(2025, 3, 10), D(2025, 3, 17), city="Lisbon")
    [a] = run("deadline_while_away", user(tasks=[task], trips=[t]))
    assert "while you are away on your trip to Lisbon, Portugal" in a.message
    assert "by 2025-03-09" in a.next_step
    task.status = "done"
    assert run("deadline_while_away", user(tasks=[task], trips=[t])) == []


@NO_LOG
def test_round_two_reference_data_names_sources_and_versions() -> None:
    for data in (travel_rules(), health_rules()):
        assert data["version"]
    rules = travel_rules()
    assert all(
        r["source"] for r in [*rules["stay_limit"], *rules["transit"], *rules["certificate"]]
    )
    health = health_rules()
    assert all(r["source"] for r in [*health["intake"], *health["activity"], *health["dosing"]])
    assert health["pregnancy"]["source"]


def test_every_new_collection_compiles_and_feeds_its_check(tmp_path: Any) -> None:
    # End to end through the catalog: records of each new collection and field, imported,
    # compiled into typed state, and evaluated as of a day: each check fires on real state.
    from uac import Memory

    at = T(2025, 3, 1, 9)
    with Memory(tmp_path / "ws", create=True, react=False) as mem:
        mem.set("u", "identity.nationality", "IN", now=at)  # transit via Canada: a visa
        mem.set("u", "identity.passport.full_name", "Katherine Elizabeth Moore", now=at)
        mem.set("u", "identity.passport.blank_pages", "1", now=at)
        imports: dict[str, list[dict[str, Any]]] = {
            "visas": [{"country": "CN", "entries": "single", "valid_until": "2025-09-30"}],
            "trips": [
                {"country": "CN", "city": "Shanghai", "depart": "2025-04-10",
                 "return_date": "2025-04-18"},
                {"country": "CN", "city": "Beijing", "depart": "2025-06-15",
                 "return_date": "2025-06-22", "via": ["Toronto"]},
                {"country": "ZA", "city": "Johannesburg", "depart": "2025-08-14",
                 "return_date": "2025-08-28"},
            ],
            "bookings": [
                {"kind": "flight", "place": "Lisbon", "start": "2025-05-11T07:00",
                 "traveller_name": "Kate Moore"},
                {"kind": "hotel", "place": "Lisbon", "start": "2025-05-04T15:00",
                 "end": "2025-05-09T11:00"},
            ],
            "medications": [
                {"name": "paracetamol", "dose": "1 g four times a day",
                 "supply_until": "2025-06-18"},
                {"name": "sertraline", "start_date": "2025-01-01"},
            ],
            "intake": [{"name": "St John's wort", "kind": "supplement"}],
            "body_weight": [{"date": "2025-02-20", "kg": "45"}],
            "conditions": [{"name": "pregnancy", "status": "active"}],
            "bank_accounts": [{"name": "Monzo card", "per_transaction_limit": "1000",
                          "currency": "GBP", "closing_on": "2025-03-20"}],
            "scheduled_payments": [
                {"payee": "car dealer", "amount": "1450", "currency": "GBP",
                 "account": "Monzo card", "method": "card", "period": "once",
                 "next_date": "2025-03-11"},
                {"payee": "rent", "amount": "1200", "currency": "GBP",
                 "account": "Monzo card", "method": "standing_order", "period": "monthly",
                 "day_of_month": 1},
                {"payee": "rent", "amount": "1200", "currency": "GBP",
                 "account": "joint account", "method": "direct_debit", "period": "monthly"},
            ],
            "warranties": [{"item": "Bosch washing machine", "ends_on": "2025-03-20"}],
            "promotions": [{"name": "0% intro rate", "provider": "Barclaycard",
                            "ends_on": "2025-03-25", "then": "24.9% APR"}],
            "events": [
                {"title": "Yoga class", "start": "2025-03-04T18:00", "repeats": "weekly"},
                {"title": "Team call", "start": "2025-03-11T18:00", "repeats": "weekly"},
                {"title": "Scuba diving course", "start": "2025-07-12T09:00"},
            ],
            "tasks": [{"goal": "Grant application", "status": "planned",
                       "due_date": "2025-06-18"}],
        }  # fmt: skip
        for collection, items in imports.items():
            mem.import_records("u", collection, items, now=at)
        result = mem.check("u", today=at.date())
    assert not result.errors, result.errors
    fired = {a.check for a in result.new}
    assert {
        "visa_single_entry", "transit_visa", "passport_blank_pages", "booking_name_mismatch",
        "checkout_vs_flight", "dose_vs_weight", "medication_runs_out",
        "supplement_drug_interaction", "card_limit", "autopay_from_closing_account",
        "conflicting_payment_instructions", "warranty_expiry", "promo_rate_expiry",
        "recurring_event_collision", "deadline_while_away", "activity_vs_condition",
    } <= fired, fired  # fmt: skip
    assert all(a.why and a.next_step for a in result.new)


@NO_LOG
def test_a_deadline_in_a_time_away_that_is_not_a_trip() -> None:
    task = rec("t", goal="Quarterly report", status="planned", due_date=D(2025, 3, 12))
    leave = rec("a", start=D(2025, 3, 10), end=D(2025, 3, 14), reason="out of office")
    [a] = run("deadline_while_away", user(tasks=[task], away_periods=[leave]))
    assert "while you are away (out of office, 2025-03-10 to 2025-03-14)" in a.message
    assert "by 2025-03-09" in a.next_step
    later = rec("b", start=D(2025, 3, 20), end=D(2025, 3, 24), reason=None)
    assert run("deadline_while_away", user(tasks=[task], away_periods=[later])) == []
    # A trip over the same days already says it: one alert, not two.
    trip_ = trip("FR", D(2025, 3, 10), D(2025, 3, 14), city="Paris")
    [b] = run("deadline_while_away", user(tasks=[task], away_periods=[leave], trips=[trip_]))
    assert "Paris" in b.message
