"""Multi-session scenarios: facts arrive over dated sessions, alerts fire and clear.

Each scenario is one subject in a shared workspace. A session appends its facts with that
day's `now`, compiles the subject and evaluates with that day as `today`. The alert must
fire in the session that completes the condition (not before) and clear when a later fact
removes it; near-misses must never alert.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from uac import Memory
from uac.checks import Alert, EvaluationResult, acknowledge, list_alerts

pytestmark = pytest.mark.usefixtures("module_backend")  # runs on DuckDB and PostgreSQL

D = dt.date


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory, module_backend: str) -> Iterator[Memory]:
    """One workspace for the module; every scenario uses its own subject."""
    home: Path = tmp_path_factory.mktemp("scenarios") / "ws"
    with Memory(home, create=True) as mem:
        yield mem


class Story:
    """One subject's sessions: write facts on a day, compile, evaluate as of that day."""

    def __init__(self, mem: Memory, subject: str):
        self.mem = mem
        self.subject = subject
        self.addr = mem.address(subject)
        self.last: EvaluationResult | None = None

    def session(
        self,
        day: dt.date,
        *,
        set: dict[str, Any] | None = None,
        add: dict[str, list[dict[str, Any]]] | None = None,
        forget: tuple[str, ...] = (),
        rules: tuple[dict[str, Any], ...] = (),
    ) -> EvaluationResult:
        """Apply one session's writes through the reacting API, or let a day pass (a check).

        The session's writes react once, at its end (`Memory.deferred`): compile the subject,
        run its checks as of that day, store alerts. A session without writes is the daily
        scheduled check.
        """
        now = dt.datetime.combine(day, dt.time(9))
        with self.mem.deferred() as block:
            for path, value in (set or {}).items():
                self.mem.set(self.subject, path, value, now=now)
            for coll, records in (add or {}).items():
                self.mem.import_records(self.subject, coll, records, now=now)
            for fid in forget:
                self.mem.forget(self.subject, fid, now=now)
            for rule in rules:
                self.mem.add_rule(self.subject, rule, now=now)
        result = block.result(self.addr)
        if not (set or add or forget or rules):
            result = self.mem.check(self.subject, today=day)
        assert result is not None
        assert result.address == self.addr
        self.last = result
        return self.last

    def fact(self, path: str, **match: Any) -> str:
        """Id of the latest asserted fact on path whose value has the given fields."""
        found = [
            f.id
            for f in self.mem.facts(self.subject, path)
            if f.op == "assert"
            and all(str((f.value or {}).get(k)) == str(v) for k, v in match.items())
        ]
        assert found, (path, match)
        return found[-1]

    def open(self, check: str) -> list[Alert]:
        """Currently open or acknowledged alerts of one check."""
        return [a for a in list_alerts(self.mem.store, self.addr) if a.check == check]


def new(result: EvaluationResult, check: str) -> list[Alert]:
    return [a for a in result.new if a.check == check]


def resolved(result: EvaluationResult, check: str) -> list[Alert]:
    return [a for a in result.resolved if a.check == check]


def checks_of(result: EvaluationResult) -> set[str]:
    return {a.check for a in [*result.new, *result.still_open]}


GB_PASSPORT = {
    "identity.passport.issuing_country": "GB",
    "identity.nationality": "GB",
}

# -- travel --------------------------------------------------------------------------------


def test_passport_too_short_for_thailand_then_renewed(ws: Memory) -> None:
    s = Story(ws, "travel1")
    first = s.session(
        D(2025, 1, 5), set={**GB_PASSPORT, "identity.passport.expiry_date": "2025-06-01"}
    )
    assert checks_of(first) == set()  # 147 days away: outside the 90-day expiry window
    trip = {"country": "TH", "city": "Bangkok", "depart": "2025-02-20", "return_date": "2025-03-01"}
    second = s.session(D(2025, 1, 12), add={"trips": [trip]})
    [alert] = new(second, "passport_validity_for_trip")
    assert "2025-06-01 − 2025-02-20 = 101 days < 180" in alert.computation
    third = s.session(D(2025, 1, 20), set={"identity.passport.expiry_date": "2035-01-19"})
    assert [a.id for a in resolved(third, "passport_validity_for_trip")] == [alert.id]
    assert s.open("passport_validity_for_trip") == []


def test_trip_cancelled_clears_passport_alert(ws: Memory) -> None:
    s = Story(ws, "travel2")
    s.session(D(2025, 1, 5), set={**GB_PASSPORT, "identity.passport.expiry_date": "2025-05-01"})
    trip = {"country": "ID", "city": "Bali", "depart": "2025-03-01"}
    assert new(s.session(D(2025, 1, 6), add={"trips": [trip]}), "passport_validity_for_trip")
    cancel = s.session(D(2025, 1, 8), forget=(s.fact("travel.trips", country="ID"),))
    assert resolved(cancel, "passport_validity_for_trip")
    assert "passport_validity_for_trip" not in checks_of(cancel)


def test_domestic_trip_is_a_near_miss(ws: Memory) -> None:
    s = Story(ws, "travel3")
    s.session(D(2025, 1, 5), set={**GB_PASSPORT, "identity.passport.expiry_date": "2025-05-01"})
    result = s.session(
        D(2025, 1, 6),
        add={"trips": [{"country": "GB", "city": "Edinburgh", "depart": "2025-03-01"}]},
    )
    assert "passport_validity_for_trip" not in checks_of(result)
    assert "visa_for_trip" not in checks_of(result)


def test_passport_valid_long_enough_is_a_near_miss(ws: Memory) -> None:
    s = Story(ws, "travel4")
    s.session(D(2025, 1, 5), set={**GB_PASSPORT, "identity.passport.expiry_date": "2025-08-21"})
    trip = {"country": "SG", "city": "Singapore", "depart": "2025-02-20"}
    result = s.session(D(2025, 1, 6), add={"trips": [trip]})
    assert checks_of(result) == set()  # 182 days ≥ 180


def test_schengen_three_months_after_return(ws: Memory) -> None:
    s = Story(ws, "travel5")
    s.session(D(2025, 1, 5), set={**GB_PASSPORT, "identity.passport.expiry_date": "2025-05-20"})
    trip = {"country": "FR", "city": "Paris", "depart": "2025-03-01", "return_date": "2025-03-10"}
    [alert] = new(s.session(D(2025, 1, 6), add={"trips": [trip]}), "passport_validity_for_trip")
    assert "2025-05-20 − 2025-03-10 = 71 days < 90" in alert.computation
    assert "2016/399" in alert.computation  # the source of the rule


def test_eu_citizen_inside_schengen_is_a_near_miss(ws: Memory) -> None:
    s = Story(ws, "travel6")
    s.session(
        D(2025, 1, 5),
        set={
            "identity.passport.issuing_country": "DE",
            "identity.passport.expiry_date": "2025-04-01",
        },
    )
    trip = {"country": "IT", "city": "Rome", "depart": "2025-03-01", "return_date": "2025-03-10"}
    result = s.session(D(2025, 1, 6), add={"trips": [trip]})
    assert "passport_validity_for_trip" not in checks_of(result)


def test_visa_needed_then_obtained(ws: Memory) -> None:
    s = Story(ws, "travel7")
    s.session(D(2025, 1, 5), set={**GB_PASSPORT, "identity.passport.expiry_date": "2031-01-01"})
    trip = {"country": "IN", "city": "Delhi", "depart": "2025-03-01", "return_date": "2025-03-15"}
    [alert] = new(s.session(D(2025, 1, 6), add={"trips": [trip]}), "visa_for_trip")
    assert alert.severity == "critical"
    visa = {
        "country": "IN",
        "kind": "e-visa",
        "valid_from": "2025-02-01",
        "valid_until": "2026-02-01",
    }
    assert resolved(s.session(D(2025, 1, 20), add={"visas": [visa]}), "visa_for_trip")


def test_esta_for_the_us_is_a_warning_until_recorded(ws: Memory) -> None:
    s = Story(ws, "travel8")
    s.session(D(2025, 1, 5), set={**GB_PASSPORT, "identity.passport.expiry_date": "2031-01-01"})
    trip = {"country": "US", "city": "Boston", "depart": "2025-04-01"}
    [alert] = new(s.session(D(2025, 1, 6), add={"trips": [trip]}), "visa_for_trip")
    assert alert.severity == "warning"
    esta = {
        "country": "US",
        "kind": "ESTA",
        "valid_from": "2025-01-10",
        "valid_until": "2027-01-10",
    }
    assert resolved(s.session(D(2025, 1, 10), add={"visas": [esta]}), "visa_for_trip")


def test_visa_that_ends_mid_trip_still_alerts(ws: Memory) -> None:
    s = Story(ws, "travel9")
    s.session(D(2025, 1, 5), set={**GB_PASSPORT, "identity.passport.expiry_date": "2031-01-01"})
    visa = {
        "country": "IN",
        "kind": "e-visa",
        "valid_from": "2025-01-01",
        "valid_until": "2025-03-05",
    }
    # The visa itself expires within 90 days: that alone is a document_expiry warning.
    assert checks_of(s.session(D(2025, 1, 6), add={"visas": [visa]})) == {"document_expiry"}
    trip = {"country": "IN", "depart": "2025-03-01", "return_date": "2025-03-15"}
    [alert] = new(s.session(D(2025, 1, 7), add={"trips": [trip]}), "visa_for_trip")
    assert "2025-03-05" in alert.computation and "2025-03-15" in alert.computation


def test_passport_expiry_escalates_as_days_pass(ws: Memory) -> None:
    s = Story(ws, "travel10")
    assert (
        checks_of(s.session(D(2025, 1, 5), set={"identity.passport.expiry_date": "2025-06-30"}))
        == set()
    )
    april = s.session(D(2025, 4, 15))  # a scheduled run: only the date changed
    [expiring] = new(april, "document_expiry")
    assert expiring.severity == "warning" and "76 days ≤ 90" in expiring.computation
    assert s.session(D(2025, 5, 1)).new == []  # no second alert for the same condition
    july = s.session(D(2025, 7, 1))
    [expired] = new(july, "document_expiry")
    assert expired.severity == "critical"
    assert [a.id for a in resolved(july, "document_expiry")] == [expiring.id]


def test_event_at_home_during_a_trip(ws: Memory) -> None:
    s = Story(ws, "travel11")
    trip = {"country": "JP", "city": "Tokyo", "depart": "2025-04-01", "return_date": "2025-04-12"}
    s.session(D(2025, 1, 5), add={"trips": [trip]})
    dentist = {"title": "Dentist", "start": "2025-04-03T10:00:00", "location": "London"}
    [alert] = new(s.session(D(2025, 1, 6), add={"events": [dentist]}), "event_during_trip")
    assert "2025-04-01 ≤ 2025-04-03 ≤ 2025-04-12" in alert.computation
    sushi = {"title": "Sushi class", "start": "2025-04-05T10:00:00", "location": "Tokyo"}
    assert new(s.session(D(2025, 1, 7), add={"events": [sushi]}), "event_during_trip") == []
    gone = s.session(D(2025, 1, 8), forget=(s.fact("schedule.events", title="Dentist"),))
    assert resolved(gone, "event_during_trip")


# -- health --------------------------------------------------------------------------------


def test_penicillin_allergy_then_amoxicillin_then_stopped(ws: Memory) -> None:
    s = Story(ws, "health1")
    allergy = {"substance": "penicillin", "reaction": "hives", "severity": "severe"}
    assert checks_of(s.session(D(2025, 1, 5), add={"allergies": [allergy]})) == set()
    para = {"name": "paracetamol", "start_date": "2025-01-06"}
    assert checks_of(s.session(D(2025, 1, 6), add={"medications": [para]})) == set()
    amox = {"name": "Amoxicillin 500 mg", "start_date": "2025-01-08", "dose": "3x daily"}
    [alert] = new(s.session(D(2025, 1, 8), add={"medications": [amox]}), "drug_allergy")
    assert alert.severity == "critical" and "(hives)" in alert.message
    assert s.fact("health.allergies", substance="penicillin") in alert.fact_ids
    stopped = {**amox, "stop_date": "2025-01-09"}
    assert resolved(s.session(D(2025, 1, 10), add={"medications": [stopped]}), "drug_allergy")


def test_allergy_recorded_after_the_drug(ws: Memory) -> None:
    s = Story(ws, "health2")
    s.session(D(2025, 1, 5), add={"medications": [{"name": "Bactrim", "start_date": "2025-01-05"}]})
    [alert] = new(
        s.session(D(2025, 1, 6), add={"allergies": [{"substance": "sulfa drugs"}]}), "drug_allergy"
    )
    assert "sulfonamides" in alert.computation


def test_cephalosporin_cross_reactivity_is_a_warning(ws: Memory) -> None:
    s = Story(ws, "health3")
    s.session(
        D(2025, 1, 5), add={"allergies": [{"substance": "amoxicillin", "severity": "moderate"}]}
    )
    [alert] = new(
        s.session(D(2025, 1, 6), add={"medications": [{"name": "cefalexin"}]}), "drug_allergy"
    )
    assert alert.severity == "warning" and "cross-react" in alert.message


def test_brand_name_matches_its_class(ws: Memory) -> None:
    s = Story(ws, "health4")
    s.session(D(2025, 1, 5), add={"allergies": [{"substance": "Penicillin"}]})
    [alert] = new(
        s.session(D(2025, 1, 6), add={"medications": [{"name": "Augmentin"}]}), "drug_allergy"
    )
    assert "co-amoxiclav ∈ penicillins" in alert.computation


def test_warfarin_and_ibuprofen_interaction_until_stopped(ws: Memory) -> None:
    s = Story(ws, "health5")
    s.session(
        D(2025, 1, 5), add={"medications": [{"name": "warfarin", "start_date": "2024-06-01"}]}
    )
    ibu = {"name": "ibuprofen", "start_date": "2025-01-07"}
    [alert] = new(s.session(D(2025, 1, 7), add={"medications": [ibu]}), "drug_interaction")
    assert alert.severity == "critical" and "bleeding" in alert.message
    stop = s.session(D(2025, 1, 12), add={"medications": [{**ibu, "stop_date": "2025-01-11"}]})
    assert resolved(stop, "drug_interaction")


def test_ssri_with_tramadol_warns(ws: Memory) -> None:
    s = Story(ws, "health6")
    s.session(D(2025, 1, 5), add={"medications": [{"name": "sertraline 50mg"}]})
    [alert] = new(
        s.session(D(2025, 1, 6), add={"medications": [{"name": "Tramadol"}]}), "drug_interaction"
    )
    assert alert.severity == "warning" and "serotonin" in alert.message


def test_drugs_taken_at_different_times_are_a_near_miss(ws: Memory) -> None:
    s = Story(ws, "health7")
    old = {"name": "warfarin", "start_date": "2024-01-01", "stop_date": "2024-06-01"}
    s.session(D(2025, 1, 5), add={"medications": [old]})
    naproxen = {"name": "naproxen", "start_date": "2025-01-06"}
    assert checks_of(s.session(D(2025, 1, 6), add={"medications": [naproxen]})) == set()


def test_unrelated_drug_with_allergy_is_a_near_miss(ws: Memory) -> None:
    s = Story(ws, "health8")
    s.session(D(2025, 1, 5), add={"allergies": [{"substance": "penicillin"}]})
    result = s.session(D(2025, 1, 6), add={"medications": [{"name": "lisinopril 10mg"}]})
    assert checks_of(result) == set()


def test_seafood_dinner_with_shellfish_anaphylaxis(ws: Memory) -> None:
    s = Story(ws, "health9")
    s.session(
        D(2025, 1, 5), add={"allergies": [{"substance": "shellfish", "severity": "anaphylaxis"}]}
    )
    dinner = {
        "title": "Seafood tasting menu",
        "start": "2025-01-18T19:30:00",
        "location": "Rockpool",
    }
    [alert] = new(s.session(D(2025, 1, 6), add={"events": [dinner]}), "food_allergy")
    assert alert.severity == "critical"
    cancel = s.session(D(2025, 1, 7), forget=(s.fact("schedule.events", title=dinner["title"]),))
    assert resolved(cancel, "food_allergy")


def test_pizza_night_with_peanut_allergy_is_a_near_miss(ws: Memory) -> None:
    s = Story(ws, "health10")
    s.session(D(2025, 1, 5), add={"allergies": [{"substance": "peanuts"}]})
    pizza = {"title": "Pizza night", "start": "2025-01-18T19:30:00"}
    assert "food_allergy" not in checks_of(s.session(D(2025, 1, 6), add={"events": [pizza]}))
    satay = {
        "date": "2025-01-07",
        "amount": "23.40",
        "merchant": "Satay Street",
        "category": "dining",
    }
    assert new(s.session(D(2025, 1, 7), add={"transactions": [satay]}), "food_allergy")


# -- finance -------------------------------------------------------------------------------


def test_dining_budget_exceeded_then_new_month(ws: Memory) -> None:
    s = Story(ws, "money1")
    budget = {"category": "dining", "limit": "200", "period": "month", "currency": "GBP"}
    s.session(D(2025, 1, 2), add={"budgets": [budget]})
    t1 = {
        "date": "2025-01-03",
        "amount": "150",
        "merchant": "Ivy",
        "category": "dining",
        "currency": "GBP",
    }
    assert checks_of(s.session(D(2025, 1, 3), add={"transactions": [t1]})) == set()
    t2 = {**t1, "date": "2025-01-09", "amount": "80", "merchant": "Dishoom"}
    [alert] = new(s.session(D(2025, 1, 9), add={"transactions": [t2]}), "budget_exceeded")
    assert "= 230 GBP > 200" in alert.computation
    assert resolved(s.session(D(2025, 2, 1)), "budget_exceeded")


def test_duplicate_payment_next_day(ws: Memory) -> None:
    s = Story(ws, "money2")
    pay = {"date": "2025-01-08", "amount": "49.99", "merchant": "PureGym", "currency": "GBP"}
    assert checks_of(s.session(D(2025, 1, 8), add={"transactions": [pay]})) == set()
    again = {**pay, "date": "2025-01-09"}
    [alert] = new(s.session(D(2025, 1, 9), add={"transactions": [again]}), "duplicate_payment")
    assert "1 day ≤ 2" in alert.computation


def test_same_merchant_different_amount_is_a_near_miss(ws: Memory) -> None:
    s = Story(ws, "money3")
    a = {"date": "2025-01-08", "amount": "12.50", "merchant": "Tesco", "currency": "GBP"}
    b = {**a, "date": "2025-01-09", "amount": "31.20"}
    assert checks_of(s.session(D(2025, 1, 9), add={"transactions": [a, b]})) == set()


def test_rent_sent_to_new_bank_details_then_reversed(ws: Memory) -> None:
    s = Story(ws, "money7")
    rent = {
        "date": "2025-01-01",
        "amount": "1650.00",
        "currency": "GBP",
        "merchant": "Foxtons Lettings",
        "payee_account": "GB29 NWBK 6016 1331 9268 19",
    }
    assert checks_of(s.session(D(2025, 1, 1), add={"transactions": [rent]})) == set()
    # Same payee and amount, written without spaces: the same account, no alert.
    same = {**rent, "date": "2025-02-01", "payee_account": "gb29nwbk60161331926819"}
    assert checks_of(s.session(D(2025, 2, 1), add={"transactions": [same]})) == set()
    moved = {**rent, "date": "2025-03-01", "payee_account": "GB94BARC10201530093459"}
    [alert] = new(s.session(D(2025, 3, 1), add={"transactions": [moved]}), "payee_account_changed")
    assert alert.severity == "critical" and "…3459" in alert.message and "…6819" in alert.message
    assert "GB94BARC" not in alert.message + alert.computation  # identifiers stay masked
    assert "28 days, within the last 62 days" in alert.computation
    # The bank reverses the transfer and the user forgets it: the alert clears.
    cleared = s.session(D(2025, 3, 3), forget=(s.fact("finance.transactions", date="2025-03-01"),))
    assert [a.id for a in resolved(cleared, "payee_account_changed")] == [alert.id]


def test_travel_insurance_expiring_then_renewed(ws: Memory) -> None:
    s = Story(ws, "docs1")
    home_cover = {"kind": "home", "provider": "Aviva", "valid_until": "2026-06-30"}
    assert checks_of(s.session(D(2025, 1, 5), add={"insurance_policies": [home_cover]})) == set()
    travel = {"kind": "travel", "provider": "Allianz", "valid_until": "2025-03-01"}
    [alert] = new(s.session(D(2025, 1, 5), add={"insurance_policies": [travel]}), "document_expiry")
    assert "travel insurance with Allianz expires on 2025-03-01, in 55 days" in alert.message
    renewed = {**travel, "valid_from": "2025-03-02", "valid_until": "2026-03-01"}
    later = s.session(D(2025, 1, 20), add={"insurance_policies": [renewed]})
    assert [a.id for a in resolved(later, "document_expiry")] == [alert.id]
    assert checks_of(later) == set()  # the old policy, replaced, no longer counts


def test_subscription_renewal_reminder_then_cancelled(ws: Memory) -> None:
    s = Story(ws, "money4")
    sub = {
        "name": "Netflix",
        "amount": "10.99",
        "currency": "GBP",
        "period": "monthly",
        "renews_on": "2025-02-01",
    }
    assert checks_of(s.session(D(2025, 1, 10), add={"subscriptions": [sub]})) == set()
    [alert] = new(s.session(D(2025, 1, 27)), "subscription_renewal")
    assert alert.severity == "info"
    cancel = s.session(
        D(2025, 1, 28), add={"subscriptions": [{**sub, "cancelled_on": "2025-01-28"}]}
    )
    assert resolved(cancel, "subscription_renewal")


def test_user_threshold_rule_on_dining(ws: Memory) -> None:
    s = Story(ws, "money5")
    rule = {
        "type": "threshold",
        "collection": "transactions",
        "filter": {"category": "dining"},
        "field": "amount",
        "agg": "sum",
        "window": "calendar_month",
        "op": ">",
        "value": "500",
    }
    t1 = {"date": "2025-03-02", "amount": "480", "merchant": "Ivy", "category": "dining"}
    assert s.session(D(2025, 3, 2), add={"transactions": [t1]}, rules=(rule,)).new == []
    t2 = {**t1, "date": "2025-03-05", "amount": "40", "merchant": "Pret"}
    [alert] = s.session(D(2025, 3, 5), add={"transactions": [t2]}).new
    assert alert.check.startswith("rule:") and "= 520 > 500" in alert.computation


def test_user_forbid_rule_on_trips(ws: Memory) -> None:
    s = Story(ws, "money6")
    rule = {
        "type": "forbid",
        "collection": "trips",
        "field": "country",
        "value": "RU",
        "name": "no Russia",
    }
    assert s.session(D(2025, 1, 5), rules=(rule,)).new == []
    new = s.session(D(2025, 1, 6), add={"trips": [{"country": "RU", "depart": "2025-05-01"}]}).new
    [alert] = [a for a in new if a.check.startswith("rule:")]
    assert "no Russia" in alert.message and alert.severity == "critical"
    # No nationality is recorded: the visa check asks for it once, at low severity.
    [question] = [a for a in new if a.check == "visa_for_trip"]
    assert question.severity == "info" and "nationality" in question.message


# -- schedule and deadlines ----------------------------------------------------------------


def test_overlapping_events_then_rescheduled(ws: Memory) -> None:
    s = Story(ws, "sched1")
    review = {
        "title": "Design review",
        "start": "2025-01-15T14:00:00",
        "end": "2025-01-15T15:00:00",
    }
    s.session(D(2025, 1, 10), add={"events": [review]})
    gp = {"title": "GP appointment", "start": "2025-01-15T14:30:00", "end": "2025-01-15T14:50:00"}
    [alert] = new(s.session(D(2025, 1, 11), add={"events": [gp]}), "event_overlap")
    assert "overlap 20 min" in alert.computation
    moved = {**gp, "start": "2025-01-16T09:00:00", "end": "2025-01-16T09:20:00"}
    again = s.session(
        D(2025, 1, 12),
        forget=(s.fact("schedule.events", title="GP appointment"),),
        add={"events": [moved]},
    )
    assert resolved(again, "event_overlap") and s.open("event_overlap") == []


def test_deadline_approaches_then_done(ws: Memory) -> None:
    s = Story(ws, "sched2")
    task = {"goal": "File tax return", "status": "in_progress", "due_date": "2025-01-31"}
    assert checks_of(s.session(D(2025, 1, 5), add={"tasks": [task]})) == set()
    progress = {**task, "resume_point": "gather P60"}
    [alert] = new(s.session(D(2025, 1, 25), add={"tasks": [progress]}), "deadline_approaching")
    assert "6 days ≤ 7" in alert.computation
    done = s.session(D(2025, 1, 28), add={"tasks": [{**task, "status": "done"}]})
    assert resolved(done, "deadline_approaching")


def test_missed_deadline_becomes_overdue(ws: Memory) -> None:
    s = Story(ws, "sched3")
    task = {"goal": "Renew car insurance", "status": "planned", "due_date": "2025-02-01"}
    [soon] = new(s.session(D(2025, 1, 28), add={"tasks": [task]}), "deadline_approaching")
    late = s.session(D(2025, 2, 3))
    [overdue] = new(late, "deadline_approaching")
    assert overdue.severity == "critical" and [a.id for a in late.resolved] == [soon.id]


def test_service_due_by_mileage(ws: Memory) -> None:
    s = Story(ws, "sched4")
    svc = {"vehicle": "VW Golf", "date": "2024-06-01", "mileage": 45000, "next_due_mileage": 60000}
    car = {"make": "VW", "model": "Golf", "year": 2019, "mileage": 50000}
    assert checks_of(s.session(D(2025, 1, 5), add={"services": [svc], "vehicles": [car]})) == set()
    [alert] = new(
        s.session(D(2025, 1, 6), add={"vehicles": [{**car, "mileage": 59200}]}), "service_due"
    )
    assert "60000 − 59200 = 800 km ≤ 1000" in alert.computation


def test_service_due_by_date_cleared_by_new_service(ws: Memory) -> None:
    s = Story(ws, "sched5")
    svc = {"vehicle": "Toyota Yaris", "date": "2024-02-01", "next_due_date": "2025-02-01"}
    [alert] = new(s.session(D(2025, 1, 10), add={"services": [svc]}), "service_due")
    fresh = {"vehicle": "Toyota Yaris", "date": "2025-01-20", "next_due_date": "2026-01-20"}
    assert [
        a.id for a in resolved(s.session(D(2025, 1, 20), add={"services": [fresh]}), "service_due")
    ] == [alert.id]


def test_reminder_rule_on_visa_validity(ws: Memory) -> None:
    s = Story(ws, "sched6")
    visa = {"country": "US", "kind": "ESTA", "valid_until": "2025-03-01"}
    rule = {"type": "reminder", "path": "visas.valid_until", "days_before": 120}
    first = s.session(D(2025, 1, 5), add={"visas": [visa]}, rules=(rule,))
    [alert] = [a for a in first.new if a.check.startswith("rule:")]
    assert "55 days ≤ 120" in alert.computation


def test_acknowledged_alert_never_fires_twice(ws: Memory) -> None:
    s = Story(ws, "sched7")
    s.session(D(2025, 1, 5), add={"allergies": [{"substance": "aspirin"}]})
    [alert] = new(
        s.session(D(2025, 1, 6), add={"medications": [{"name": "Aspirin 75mg"}]}), "drug_allergy"
    )
    acknowledge(ws.store, s.addr, alert.id, D(2025, 1, 6))
    for day in (7, 8, 9):
        result = s.session(D(2025, 1, day), add={"medications": [{"name": "lisinopril"}]})
        assert result.new == [] and alert.id in {a.id for a in result.still_open}
    assert s.open("drug_allergy")[0].status == "acknowledged"


def test_alerts_do_not_leak_between_subjects(ws: Memory) -> None:
    a, b = Story(ws, "iso1"), Story(ws, "iso2")
    a.session(D(2025, 1, 5), add={"allergies": [{"substance": "penicillin"}]})
    b.session(D(2025, 1, 5), add={"medications": [{"name": "amoxicillin"}]})
    assert checks_of(a.last) == set() and checks_of(b.last) == set()  # type: ignore[arg-type]
    [alert] = new(
        a.session(D(2025, 1, 6), add={"medications": [{"name": "amoxicillin"}]}), "drug_allergy"
    )
    assert list_alerts(ws.store, b.addr) == []
    assert alert.address == a.addr
