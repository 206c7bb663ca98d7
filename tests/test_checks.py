"""The check library: each built-in check as a pure function over typed state and `today`."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest

from uac.checks import library
from uac.checks.library import REGISTRY, run_checks
from uac.checks.model import DEFAULT_CONFIG, CheckConfig
from uac.fact_log.catalog import Catalog
from uac.fact_log.reference import country_name, drug_data, passport_data, places

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("checks over typed state in memory: no log")

D = dt.date
TODAY = D(2025, 1, 10)


def rec(key: str, **fields: Any) -> SimpleNamespace:
    """A record like the generated dataclasses: key, fact_ids and fields."""
    return SimpleNamespace(key=key, fact_ids=(f"f_{key}",), **fields)


def trip(country: str, depart: dt.date, ret: dt.date | None = None, city: str | None = None):
    return rec(f"{country}|{depart}", country=country, city=city, depart=depart, return_date=ret)


def med(name: str, start: dt.date | None = None, stop: dt.date | None = None):
    return rec(f"{name}|{start}", name=name, start_date=start, stop_date=stop)


def allergy(substance: str, severity: str | None = None):
    return rec(substance, substance=substance, reaction=None, severity=severity)


def event(title: str, start: dt.datetime, end: dt.datetime | None = None, location=None):
    return rec(f"{title}|{start}", title=title, start=start, end=end, location=location)


def tx(
    day: dt.date,
    amount: str,
    merchant: str,
    category: str | None = None,
    currency: str = "GBP",
    payee_account: str | None = None,
):
    return rec(
        f"{day}|{merchant}|{amount}",
        date=day,
        amount=Decimal(amount),
        merchant=merchant,
        category=category,
        currency=currency,
        note=None,
        payee_account=payee_account,
    )


def make_user(**kw: Any) -> SimpleNamespace:
    """A typed-state stand-in with every collection empty unless given."""
    base: dict[str, Any] = {
        "identity": SimpleNamespace(nationality=kw.pop("nationality", "GB")),
        "passport": SimpleNamespace(
            issuing_country=kw.pop("issuing_country", "GB"), expiry_date=kw.pop("expiry", None)
        ),
        "driver_licence": SimpleNamespace(expiry_date=kw.pop("licence_expiry", None)),
    }
    for name in [
        "visas",
        "insurance_policies",
        "trips",
        "medications",
        "allergies",
        "transactions",
        "subscriptions",
        "budgets",
        "vehicles",
        "services",
        "events",
        "tasks",
    ]:
        base[name] = tuple(kw.pop(name, ()))
    assert not kw, kw
    return SimpleNamespace(**base)


def run(
    name: str, user: SimpleNamespace, today: dt.date = TODAY, config: CheckConfig = DEFAULT_CONFIG
):
    return REGISTRY[name](user, today, config)


@NO_LOG
def test_registry_covers_every_check_the_catalog_names() -> None:
    catalog = Catalog.load()
    named: set[str] = set()
    for coll in catalog.collections.values():
        named.update(coll.spec.checks)
    for attr in catalog.attributes.values():
        named.update(attr.spec.checks)
    assert named <= set(REGISTRY), named - set(REGISTRY)
    assert named == set(REGISTRY)


@NO_LOG
def test_reference_data_names_a_source_for_every_rule() -> None:
    data = passport_data()
    assert all(rule.source for rule in data.by_country.values())
    drugs = drug_data()
    assert all(spec["source"] for spec in drugs.classes.values())
    assert all(pair["source"] for pair in drugs.pairs)
    known = set(drugs.member_class) | drugs.others  # a brand or combination names known drugs
    assert all(g in known for generics in drugs.aliases.values() for g in generics)


@NO_LOG
def test_every_country_the_extractor_knows_has_a_name_for_alerts() -> None:
    # A trip to Lahore must read "Pakistan" in an alert, not "PK".
    known = {code for table in places().values() for code in table.values()}
    assert sorted(c for c in known if country_name(c) == c) == []


@NO_LOG
def test_passport_six_months_rule_with_exact_computation() -> None:
    user = make_user(expiry=D(2025, 3, 5), trips=[trip("TH", D(2025, 2, 20), D(2025, 3, 1))])
    [alert] = run("passport_validity_for_trip", user)
    assert alert.severity == "critical"
    assert alert.computation.startswith("2025-03-05 − 2025-02-20 = 13 days < 180 required")
    assert alert.fact_ids == ("f_TH|2025-02-20",)
    assert alert.paths == ("user.passport.expiry_date",)


@NO_LOG
def test_passport_schengen_uses_three_months_after_return() -> None:
    ok = make_user(expiry=D(2025, 6, 10), trips=[trip("FR", D(2025, 3, 1), D(2025, 3, 10))])
    assert run("passport_validity_for_trip", ok) == []
    short = make_user(expiry=D(2025, 6, 1), trips=[trip("FR", D(2025, 3, 1), D(2025, 3, 10))])
    [alert] = run("passport_validity_for_trip", short)
    assert "2025-06-01 − 2025-03-10 = 83 days < 90" in alert.computation


@NO_LOG
def test_passport_near_misses() -> None:
    domestic = make_user(expiry=D(2025, 2, 1), trips=[trip("GB", D(2025, 1, 20))])
    assert run("passport_validity_for_trip", domestic) == []
    eu_citizen = make_user(
        issuing_country="DE", expiry=D(2025, 2, 1), trips=[trip("FR", D(2025, 1, 20))]
    )
    assert run("passport_validity_for_trip", eu_citizen) == []
    long_valid = make_user(expiry=D(2030, 1, 1), trips=[trip("TH", D(2025, 2, 20))])
    assert run("passport_validity_for_trip", long_valid) == []
    past_trip = make_user(expiry=D(2025, 3, 5), trips=[trip("TH", D(2024, 2, 20), D(2024, 3, 1))])
    assert run("passport_validity_for_trip", past_trip) == []
    stay_rule = make_user(expiry=D(2025, 3, 2), trips=[trip("US", D(2025, 2, 20), D(2025, 3, 1))])
    assert run("passport_validity_for_trip", stay_rule) == []


@NO_LOG
def test_document_expiry_stages() -> None:
    user = make_user(expiry=D(2025, 3, 1), licence_expiry=D(2025, 1, 1))
    alerts = {a.record_keys: a for a in run("document_expiry", user)}
    assert alerts[("passport", "expiring")].severity == "warning"
    assert alerts[("driver_licence", "expired")].severity == "critical"
    assert run("document_expiry", make_user(expiry=D(2026, 1, 1))) == []
    wide = CheckConfig(document_expiry_days=400)
    assert len(run("document_expiry", make_user(expiry=D(2026, 1, 1)), config=wide)) == 1


def test_document_expiry_counts_only_the_latest_visa_and_policy_of_a_kind() -> None:
    def visa(country: str, until: dt.date):
        return rec(f"{country}|{until}", country=country, kind=None, valid_until=until)

    def policy(kind: str, provider: str | None, until: dt.date):
        return rec(f"{kind}|{provider}|{until}", kind=kind, provider=provider, valid_until=until)

    user = make_user(
        visas=[visa("IN", D(2024, 6, 1)), visa("IN", D(2026, 6, 1)), visa("US", D(2025, 2, 1))],
        insurance_policies=[
            policy("travel", "Allianz", D(2024, 12, 31)),  # renewed below: not an alert
            policy("travel", "allianz ", D(2025, 12, 31)),
            policy("car", "Aviva", D(2025, 1, 5)),  # expired, never renewed
            policy("home", None, D(2025, 3, 1)),
        ],
    )
    found = {a.record_keys[0]: a for a in run("document_expiry", user)}
    assert set(found) == {
        "visa:US|2025-02-01",
        "insurance:car|Aviva|2025-01-05",
        "insurance:home|None|2025-03-01",
    }
    assert found["insurance:car|Aviva|2025-01-05"].severity == "critical"
    assert found["insurance:car|Aviva|2025-01-05"].message == (
        "Your car insurance with Aviva expired on 2025-01-05."
    )
    assert (
        "home insurance expires on 2025-03-01, in 50 days"
        in found["insurance:home|None|2025-03-01"].message
    )


@NO_LOG
def test_payee_account_changed_is_critical_and_masks_accounts() -> None:
    rent = "GB29 NWBK 6016 1331 9268 19"
    txs = [
        tx(D(2024, 11, 1), "1650", "Foxtons", payee_account=rent),  # before the 62-day window
        tx(D(2024, 12, 1), "1650", "Foxtons", payee_account=rent.replace(" ", "")),
        tx(D(2025, 1, 1), "1650", "FOXTONS", payee_account="GB94-BARC-1020-1530-0934-59"),
        tx(D(2025, 1, 2), "1650", "Foxtons", payee_account="GB94BARC10201530093459"),
        tx(D(2025, 1, 3), "99", "Foxtons", payee_account="DE89370400440532013000"),  # other amount
        tx(D(2025, 1, 4), "1650", "Foxtons"),  # no destination account recorded
    ]
    [alert] = run("payee_account_changed", make_user(transactions=txs))
    assert alert.severity == "critical" and alert.record_keys == (txs[1].key, txs[2].key)
    assert "(…3459) than on 2024-12-01 (…6819)" in alert.message
    assert "NWBK" not in alert.message + alert.computation
    # Paid twice within two days, but to different accounts: reported only as an account change.
    twice = [
        tx(D(2025, 1, 8), "42", "Gym", payee_account="GB11AAAA00000000001111"),
        tx(D(2025, 1, 9), "42", "Gym", payee_account="GB22BBBB00000000002222"),
    ]
    assert run("duplicate_payment", make_user(transactions=twice)) == []
    assert len(run("payee_account_changed", make_user(transactions=twice))) == 1
    # Paid twice to the same account: a duplicate, not an account change.
    assert len(run("duplicate_payment", make_user(transactions=txs[2:4]))) == 1
    assert run("payee_account_changed", make_user(transactions=txs[2:4])) == []


@NO_LOG
def test_visa_required_and_satisfied() -> None:
    t = trip("IN", D(2025, 2, 1), D(2025, 2, 14))
    [alert] = run("visa_for_trip", make_user(trips=[t]))
    assert alert.severity == "critical"
    visa = rec(
        "IN|2026", country="IN", kind="e-visa", valid_from=D(2025, 1, 1), valid_until=D(2026, 1, 1)
    )
    assert run("visa_for_trip", make_user(trips=[t], visas=[visa])) == []
    short = rec(
        "IN|x", country="IN", kind=None, valid_from=D(2025, 1, 1), valid_until=D(2025, 2, 5)
    )
    [partial] = run("visa_for_trip", make_user(trips=[t], visas=[short]))
    assert "2025-02-05" in partial.computation
    [eta] = run("visa_for_trip", make_user(trips=[trip("US", D(2025, 2, 1))]))
    assert eta.severity == "warning"
    assert run("visa_for_trip", make_user(trips=[trip("FR", D(2025, 2, 1))])) == []


@NO_LOG
@pytest.mark.parametrize(
    ("drug", "substance", "severity"),
    [
        ("Amoxicillin 500 mg", "penicillin", "critical"),
        ("ampicillin", "Penicillins", "critical"),
        ("Penicillin V", "amoxicillin", "critical"),
        ("Augmentin", "penicillin", "critical"),
        ("cefalexin", "penicillin", "warning"),
        ("Bactrim", "sulfa drugs", "critical"),
        ("Aleve", "NSAIDs", "critical"),
        ("aspirin", "ibuprofen", "critical"),
        ("codeine", "opioids", "critical"),
    ],
)
def test_drug_allergy_matches_classes_and_aliases(drug: str, substance: str, severity: str) -> None:
    user = make_user(medications=[med(drug, D(2025, 1, 1))], allergies=[allergy(substance)])
    [alert] = run("drug_allergy", user)
    assert alert.severity == severity
    assert set(alert.fact_ids) == {f"f_{drug}|2025-01-01", f"f_{substance}"}


@NO_LOG
def test_drug_allergy_cross_reactivity_after_anaphylaxis_is_critical() -> None:
    user = make_user(
        medications=[med("ceftriaxone")], allergies=[allergy("penicillin", "anaphylaxis")]
    )
    assert run("drug_allergy", user)[0].severity == "critical"


@NO_LOG
def test_drug_allergy_near_misses() -> None:
    stopped = make_user(
        medications=[med("amoxicillin", D(2024, 1, 1), D(2024, 1, 8))],
        allergies=[allergy("penicillin")],
    )
    assert run("drug_allergy", stopped) == []
    unrelated = make_user(medications=[med("paracetamol")], allergies=[allergy("penicillin")])
    assert run("drug_allergy", unrelated) == []
    food = make_user(medications=[med("amoxicillin")], allergies=[allergy("peanuts")])
    assert run("drug_allergy", food) == []


@NO_LOG
def test_drug_interactions() -> None:
    user = make_user(medications=[med("warfarin"), med("Nurofen"), med("paracetamol")])
    [alert] = run("drug_interaction", user)
    assert alert.severity == "critical" and "bleeding" in alert.message
    serotonin = make_user(medications=[med("sertraline"), med("tramadol")])
    assert run("drug_interaction", serotonin)[0].severity == "warning"
    maoi = make_user(medications=[med("Prozac"), med("phenelzine")])
    assert run("drug_interaction", maoi)[0].severity == "critical"
    apart = make_user(
        medications=[med("warfarin", D(2024, 1, 1), D(2024, 6, 1)), med("ibuprofen", D(2025, 1, 1))]
    )
    assert run("drug_interaction", apart) == []


@NO_LOG
def test_food_allergy_in_events_and_orders() -> None:
    dinner = event("Seafood dinner", dt.datetime(2025, 1, 12, 19), location="Harbour Grill")
    user = make_user(events=[dinner], allergies=[allergy("shellfish", "anaphylaxis")])
    [alert] = run("food_allergy", user)
    assert alert.severity == "critical" and "'seafood'" in alert.computation
    order = tx(TODAY, "18.50", "Thai Satay House", "dining")
    assert (
        len(run("food_allergy", make_user(transactions=[order], allergies=[allergy("peanut")])))
        == 1
    )
    old = tx(D(2024, 12, 1), "18.50", "Thai Satay House", "dining")
    assert run("food_allergy", make_user(transactions=[old], allergies=[allergy("peanut")])) == []
    assert run("food_allergy", make_user(events=[dinner], allergies=[allergy("peanut")])) == []


@NO_LOG
def test_event_overlap_and_during_trip() -> None:
    a = event("Standup", dt.datetime(2025, 1, 15, 9), dt.datetime(2025, 1, 15, 10))
    b = event("Dentist", dt.datetime(2025, 1, 15, 9, 30), location="London")
    c = event("Lunch", dt.datetime(2025, 1, 15, 12))
    [overlap] = run("event_overlap", make_user(events=[a, b, c]))
    assert "overlap 30 min" in overlap.computation
    away = trip("TH", D(2025, 1, 14), D(2025, 1, 20), city="Bangkok")
    [during] = run("event_during_trip", make_user(events=[b], trips=[away]))
    assert during.record_keys == (b.key, away.key)
    there = event("Temple tour", dt.datetime(2025, 1, 16, 9), location="Bangkok old town")
    assert run("event_during_trip", make_user(events=[there], trips=[away])) == []


@NO_LOG
def test_deadlines() -> None:
    soon = rec("tax", goal="File tax return", status="in_progress", due_date=D(2025, 1, 15))
    late = rec("visa", goal="Apply for visa", status="planned", due_date=D(2025, 1, 5))
    done = rec("done", goal="Done thing", status="done", due_date=D(2025, 1, 12))
    far = rec("far", goal="Far thing", status="planned", due_date=D(2025, 6, 1))
    alerts = {
        a.record_keys: a.severity
        for a in run("deadline_approaching", make_user(tasks=[soon, late, done, far]))
    }
    assert alerts == {("tax", "due_soon"): "warning", ("visa", "overdue"): "critical"}


@NO_LOG
def test_budget_exceeded_by_calendar_month() -> None:
    budget = rec(
        "dining|month", category="dining", limit=Decimal("100"), period="month", currency="GBP"
    )
    txs = [
        tx(D(2025, 1, 2), "60", "Pizza Place", "dining"),
        tx(D(2025, 1, 8), "50.01", "Noodle Bar", "Dining"),
        tx(D(2024, 12, 30), "500", "NYE", "dining"),
        tx(D(2025, 1, 9), "-20", "Refund", "dining"),
    ]
    [alert] = run("budget_exceeded", make_user(budgets=[budget], transactions=txs))
    assert "= 110.01 GBP > 100" in alert.computation
    assert alert.record_keys == ("dining|month", "2025-01")
    assert (
        run("budget_exceeded", make_user(budgets=[budget], transactions=txs), D(2025, 2, 1)) == []
    )


@NO_LOG
def test_a_budget_counts_the_same_spending_in_other_words_and_by_merchant() -> None:
    budget = rec(
        "eo|month", category="eating out", limit=Decimal("100"), period="month", currency="GBP"
    )
    txs = [
        tx(D(2025, 1, 2), "40", "Luigi's", "restaurants"),  # another word for it
        tx(D(2025, 1, 3), "35", "Deliveroo", None),  # no category: a delivery app's merchant
        tx(D(2025, 1, 4), "30", "Dishoom", "Takeaway"),
        tx(D(2025, 1, 5), "200", "Tesco", None),  # groceries, not eating out
        tx(D(2025, 1, 6), "90", "Deliveroo", "groceries"),  # a category said wins over the merchant
    ]
    [alert] = run("budget_exceeded", make_user(budgets=[budget], transactions=txs))
    assert "sum of 3 eating out payments" in alert.computation and "= 105 GBP" in alert.computation
    shop = rec(
        "g|month", category="groceries", limit=Decimal("250"), period="month", currency="GBP"
    )
    [g] = run("budget_exceeded", make_user(budgets=[shop], transactions=txs))
    assert "= 290 GBP" in g.computation  # Tesco by its merchant, Deliveroo by its category
    own = rec("o|month", category="Lego fund", limit=Decimal("10"), period="month", currency="GBP")
    lego = [tx(D(2025, 1, 2), "20", "Hamleys", "lego fund"), tx(D(2025, 1, 2), "20", "Tesco", None)]
    [o] = run("budget_exceeded", make_user(budgets=[own], transactions=lego))
    assert "= 20 GBP" in o.computation  # a word not listed still matches itself, only itself


@NO_LOG
def test_duplicate_payment() -> None:
    txs = [
        tx(D(2025, 1, 8), "42.00", "ACME Gym"),
        tx(D(2025, 1, 9), "42.00", "acme gym"),
        tx(D(2025, 1, 9), "42.00", "Other"),
        tx(D(2025, 1, 2), "10", "Cafe"),
        tx(D(2025, 1, 8), "10", "Cafe"),
    ]
    [alert] = run("duplicate_payment", make_user(transactions=txs))
    assert "1 day ≤ 2" in alert.computation


@NO_LOG
def test_subscription_renewal_and_service_due() -> None:
    sub = rec(
        "Netflix",
        name="Netflix",
        amount=Decimal("10.99"),
        currency="GBP",
        renews_on=D(2025, 1, 14),
        cancelled_on=None,
    )
    gone = rec(
        "Old",
        name="Old",
        amount=None,
        currency=None,
        renews_on=D(2025, 1, 12),
        cancelled_on=D(2025, 1, 1),
    )
    [alert] = run("subscription_renewal", make_user(subscriptions=[sub, gone]))
    assert alert.severity == "info" and "10.99 GBP" in alert.message
    svc = rec(
        "Golf|2024",
        vehicle="VW Golf",
        date=D(2024, 2, 1),
        next_due_date=D(2025, 2, 1),
        next_due_mileage=60000,
    )
    car = rec("VW|Golf|2019", make="VW", model="Golf", mileage=59500)
    kinds = {
        a.record_keys[-1] for a in run("service_due", make_user(services=[svc], vehicles=[car]))
    }
    assert kinds == {"date", "mileage"}


@NO_LOG
def test_run_checks_isolates_failures_and_unknown_names() -> None:
    broken = make_user()
    broken.trips = (object(),)  # type: ignore[attr-defined]  # a record without fields: raises
    drafts, errors = run_checks(
        ["visa_for_trip", "document_expiry", "nope"], broken, TODAY, DEFAULT_CONFIG
    )
    assert set(errors) == {"visa_for_trip", "nope"}
    assert drafts == []


@NO_LOG
def test_checks_are_deterministic() -> None:
    user = make_user(
        expiry=D(2025, 3, 5),
        trips=[trip("TH", D(2025, 2, 20)), trip("IN", D(2025, 2, 1))],
        medications=[med("warfarin"), med("aspirin")],
        allergies=[allergy("aspirin")],
    )
    first = [REGISTRY[n](user, TODAY, DEFAULT_CONFIG) for n in sorted(REGISTRY)]
    assert first == [REGISTRY[n](user, TODAY, DEFAULT_CONFIG) for n in sorted(REGISTRY)]
    assert frozenset(REGISTRY) == library.TIME_BASED
