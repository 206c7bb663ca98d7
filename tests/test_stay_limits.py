"""Stay limits as reference data (travel_rules.toml `[[stay_limit]]`), one mechanism over the
trips history and planned trips: per visit (UK, US visa waiver, Canada, Japan, Australia) or
rolling (Schengen, the UK's 6 months in 12), for the nationalities each binds. Each rule has
a gold-facts scenario that alerts and a control that stays quiet."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from tests.test_check_scenarios import D, run, trip, user
from uac import Memory
from uac.fact_log.reference import travel_rules

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("checks over typed state in memory: no log")


@NO_LOG
def test_every_stay_limit_names_its_source_its_checked_day_and_who_it_binds() -> None:
    rules = travel_rules()["stay_limit"]
    names = {r["name"] for r in rules}
    for wanted in ("Schengen", "UK visitor", "US Visa Waiver Program", "Canada visitor"):
        assert wanted in names
    assert {"Japan temporary visitor", "Australia visitor"} <= names
    for rule in rules:
        assert rule["source"] and dt.date.fromisoformat(rule["checked"])
        assert rule["per"] in ("entry", "rolling") and rule["days"] > 0
        assert rule["applies_to"] == "all" or all(len(c) == 2 for c in rule["applies_to"])
        assert rule["countries"] and all(len(c) == 2 for c in rule["exempt"])


@NO_LOG
@pytest.mark.parametrize(
    ("nationality", "country", "depart", "back", "name", "leave_by"),
    [
        ("US", "GB", D(2025, 4, 1), D(2025, 10, 15), "UK visitor", "2025-09-27"),
        ("GB", "US", D(2025, 4, 1), D(2025, 7, 1), "US Visa Waiver Program", "2025-06-30"),
        ("GB", "CA", D(2025, 4, 1), D(2025, 10, 15), "Canada visitor", "2025-09-27"),
        ("GB", "JP", D(2025, 4, 1), D(2025, 7, 1), "Japan temporary visitor", "2025-06-29"),
        ("GB", "AU", D(2025, 4, 1), D(2025, 7, 1), "Australia visitor", "2025-06-29"),
    ],
)
def test_a_visit_longer_than_a_countrys_limit_alerts(
    nationality: str, country: str, depart: dt.date, back: dt.date, name: str, leave_by: str
) -> None:
    [a] = run("stay_limit", user(nationality, trips=[trip(country, depart, back)]))
    assert name in a.message and f"leave by {leave_by}" in a.message
    assert a.severity == "critical" and "checked" in a.computation


@NO_LOG
@pytest.mark.parametrize(
    ("nationality", "country", "depart", "back"),
    [
        ("US", "GB", D(2025, 4, 1), D(2025, 9, 27)),  # day 180: allowed
        ("GB", "US", D(2025, 4, 1), D(2025, 6, 30)),  # admitted until entry + 90 days
        ("GB", "CA", D(2025, 4, 1), D(2025, 9, 27)),
        ("GB", "JP", D(2025, 4, 1), D(2025, 6, 29)),
        ("GB", "AU", D(2025, 4, 1), D(2025, 6, 29)),
        ("GB", "GB", D(2025, 4, 1), D(2025, 12, 1)),  # home
        ("IE", "GB", D(2025, 4, 1), D(2025, 12, 1)),  # Common Travel Area
        ("US", "CA", D(2025, 4, 1), D(2025, 6, 1)),
        ("IN", "US", D(2025, 4, 1), D(2025, 7, 30)),  # not a visa-waiver national (a visa)
        ("NZ", "AU", D(2025, 4, 1), D(2025, 12, 1)),  # Special Category Visa
    ],
)
def test_a_visit_within_the_limit_or_of_someone_it_does_not_bind_stays_quiet(
    nationality: str, country: str, depart: dt.date, back: dt.date
) -> None:
    assert run("stay_limit", user(nationality, trips=[trip(country, depart, back)])) == []


@NO_LOG
def test_the_uk_six_months_in_twelve_counts_the_trips_history() -> None:
    # two visits of 100 days, each within the per-visit limit, 200 days in 12 months
    spring = trip("GB", D(2025, 1, 1), D(2025, 4, 10), city="London")
    autumn = trip("GB", D(2025, 6, 1), D(2025, 9, 8), city="London")
    [a] = run("stay_limit", user("US", trips=[spring, autumn]), D(2025, 5, 1))
    assert "UK visitor, 12 months limit of 180 days in any 365" in a.message
    assert a.severity == "warning" and "London" in a.message
    shorter = trip("GB", D(2025, 6, 1), D(2025, 7, 1), city="London")
    assert run("stay_limit", user("US", trips=[spring, shorter]), D(2025, 5, 1)) == []


@NO_LOG
def test_one_visit_breaking_both_uk_limits_is_said_once() -> None:
    long = trip("GB", D(2025, 4, 1), D(2025, 12, 1), city="London")
    [a] = run("stay_limit", user("US", trips=[long]))
    assert "per visit" in a.message


@NO_LOG
def test_schengen_keeps_its_check_and_its_numbers_on_the_same_mechanism() -> None:
    paris = trip("FR", D(2025, 1, 10), D(2025, 2, 28), city="Paris")
    rome = trip("IT", D(2025, 4, 1), D(2025, 5, 20), city="Rome")
    [a] = run("schengen_stay_limit", user("US", trips=[paris, rome]))
    assert "2025-05-11" in a.message and a.record_keys[0] == "Schengen"
    assert run("stay_limit", user("US", trips=[paris, rome])) == []  # said by its own check
    assert run("schengen_stay_limit", user("DE", trips=[paris, rome])) == []


@NO_LOG
def test_no_nationality_no_stay_limit_alert() -> None:
    t = trip("US", D(2025, 4, 1), D(2025, 7, 30))
    assert run("stay_limit", user(None, trips=[t])) == []  # visa_for_trip asks for it


# -- through a workspace: gold facts imported, compiled and evaluated ---------------------


def _alerts(mem: Memory, nationality: str, trips: list[dict[str, Any]]) -> list[Any]:
    at = dt.datetime(2025, 3, 1, 9)
    mem.set("u", "identity.nationality", nationality, now=at)
    mem.import_records("u", "trips", trips, now=at)
    mem.check("u", today=D(2025, 3, 1))
    return [a for a in mem.alerts("u") if a.check == "stay_limit"]


def test_a_long_us_visit_on_a_visa_waiver_alerts_in_a_workspace(mem: Memory) -> None:
    row = {"country": "US", "city": "Boston", "depart": "2025-04-01", "return_date": "2025-07-15"}
    [a] = _alerts(mem, "GB", [row])
    assert "US Visa Waiver Program" in a.message and "Boston" in a.message


def test_a_us_visit_within_ninety_days_stays_quiet_in_a_workspace(mem: Memory) -> None:
    row = {"country": "US", "city": "Boston", "depart": "2025-04-01", "return_date": "2025-06-20"}
    assert _alerts(mem, "GB", [row]) == []
