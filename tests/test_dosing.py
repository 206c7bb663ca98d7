"""Daily doses as reference data (health_rules.toml `[[dosing]]`, `[[duplicate_class]]`): the
adult and over-the-counter maxima of common analgesics and NSAIDs, the weight-based limit
where a source gives one, two NSAIDs at once; dose texts normalised to mg a day ("800 mg
three times a day", "400mg tds", "3x daily"). Each rule has a gold-facts scenario that alerts
and a control that stays quiet."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from tests.test_check_scenarios import med, run, user
from uac import Memory
from uac.checks.library.health import daily_mg
from uac.fact_log.reference import drug_data, health_rules

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("dosing rules over typed state in memory: no log")


@NO_LOG
def test_every_dosing_rule_is_sourced_dated_and_names_a_known_drug() -> None:
    rules = health_rules()
    drugs = {r["drug"] for r in rules["dosing"]}
    assert {"paracetamol", "ibuprofen", "naproxen", "aspirin", "diclofenac"} <= drugs
    for rule in [*rules["dosing"], *rules["duplicate_class"]]:
        assert rule["source"] and dt.date.fromisoformat(rule["checked"])
    for rule in rules["dosing"]:
        assert rule["drug"] in drug_data().member_class or rule["drug"] == "paracetamol"
        assert rule.get("otc_max_mg_day", 0) <= rule["max_mg_day"]
    assert all(r["drug_class"] in drug_data().classes for r in rules["duplicate_class"])


@NO_LOG
@pytest.mark.parametrize(
    ("dose", "mg"),
    [
        ("800 mg three times a day", 2400),
        ("400mg 3 times daily", 1200),
        ("400 mg 3x a day", 1200),
        ("500mg tds", 1500),
        ("250 mg bd", 500),
        ("200mg twice daily", 400),
        ("75mg daily", 75),
        ("1 g every 6 hours", 4000),
    ],
)
def test_dose_texts_are_normalised_to_mg_a_day(dose: str, mg: int) -> None:
    assert daily_mg(dose) == Decimal(mg)


@NO_LOG
@pytest.mark.parametrize(
    ("name", "dose", "severity", "limit"),
    [
        ("ibuprofen", "800 mg three times a day", "warning", "1200 mg over-the-counter"),
        ("Nurofen", "400mg four times daily", "warning", "1200 mg over-the-counter"),
        ("ibuprofen", "800 mg four times a day", "critical", "2400 mg maximum"),
        ("naproxen", "500 mg twice a day", "warning", "750 mg over-the-counter"),
        ("naproxen", "500 mg three times a day", "critical", "1250 mg maximum"),
        ("Voltarol", "50 mg three times a day", "warning", "75 mg over-the-counter"),
        ("diclofenac", "75 mg three times a day", "critical", "150 mg maximum"),
        ("aspirin", "900 mg every 4 hours", "critical", "4000 mg maximum"),
        ("mefenamic acid", "500 mg four times a day", "critical", "1500 mg maximum"),
    ],
)
def test_a_daily_dose_above_a_maximum_alerts(
    name: str, dose: str, severity: str, limit: str
) -> None:
    [a] = run("dose_vs_weight", user(weight_kg=80.0, medications=[med(name, dose)]))
    assert a.severity == severity and limit in a.message and name in a.message
    assert "BNF" in a.computation


@NO_LOG
@pytest.mark.parametrize(
    ("name", "dose"),
    [
        ("ibuprofen", "400 mg three times a day"),  # 1200: the OTC maximum itself
        ("naproxen", "250 mg three times a day"),
        ("diclofenac", "25 mg three times a day"),
        ("aspirin", "75 mg daily"),  # low-dose aspirin
        ("mefenamic acid", "500 mg three times a day"),
        ("paracetamol", "1 g four times a day"),  # 4 g at 52 kg: within the BNF maximum
        ("ibuprofen", None),  # no dose said: nothing to judge
    ],
)
def test_a_daily_dose_within_every_maximum_stays_quiet(name: str, dose: str | None) -> None:
    assert run("dose_vs_weight", user(weight_kg=52.0, medications=[med(name, dose)])) == []


@NO_LOG
def test_paracetamol_keeps_its_weight_limit_and_its_question() -> None:
    para = med("paracetamol", "1 g four times a day")
    [a] = run("dose_vs_weight", user(weight_kg=45.0, medications=[para]))
    assert a.severity == "critical" and "2700 mg maximum at 45 kg" in a.message
    [q] = run("dose_vs_weight", user(medications=[para]))
    assert q.record_keys == ("to_confirm", "body_weight")
    # an NSAID has no weight-based limit in the data: no weight asked for
    assert run("dose_vs_weight", user(medications=[med("ibuprofen", "400 mg tds")])) == []


@NO_LOG
def test_two_nsaids_at_once_warn_and_one_nsaid_twice_does_not() -> None:
    both = [med("ibuprofen", "400 mg three times a day"), med("Naprosyn", "250 mg twice a day")]
    [a] = run("duplicate_drug_class", user(medications=both))
    assert a.message == "Two NSAIDs at once: ibuprofen (ibuprofen) and Naprosyn (naproxen)."
    assert a.severity == "warning" and "stomach-bleeding" in a.why
    same_drug = [med("ibuprofen", "200 mg"), med("Nurofen", "200 mg")]
    assert run("duplicate_drug_class", user(medications=same_drug)) == []
    with_paracetamol = [med("ibuprofen"), med("paracetamol")]
    assert run("duplicate_drug_class", user(medications=with_paracetamol)) == []
    stopped = [
        med("ibuprofen", stop=dt.date(2025, 2, 1)),
        med("naproxen", start=dt.date(2025, 2, 10)),
    ]
    assert run("duplicate_drug_class", user(medications=stopped)) == []


# -- through a workspace: gold facts imported, compiled and evaluated ---------------------


def _alerts(mem: Memory, medications: list[dict[str, Any]]) -> list[Any]:
    at = dt.datetime(2025, 3, 1, 9)
    mem.import_records("u", "body_weight", [{"date": "2025-02-20", "kg": "70"}], now=at)
    mem.import_records("u", "medications", medications, now=at)
    mem.check("u", today=dt.date(2025, 3, 1))
    return [a for a in mem.alerts("u") if a.check in ("dose_vs_weight", "duplicate_drug_class")]


def test_ibuprofen_800_three_times_a_day_and_a_second_nsaid_alert_in_a_workspace(
    mem: Memory,
) -> None:
    rows = [
        {"name": "ibuprofen", "dose": "800 mg three times a day"},
        {"name": "diclofenac", "dose": "50 mg twice a day"},
    ]
    found = {a.check: a for a in _alerts(mem, rows)}
    assert "2400 mg a day, above the 1200 mg over-the-counter" in found["dose_vs_weight"].message
    assert "Two NSAIDs at once" in found["duplicate_drug_class"].message


def test_an_over_the_counter_dose_of_one_nsaid_stays_quiet_in_a_workspace(mem: Memory) -> None:
    rows = [{"name": "ibuprofen", "dose": "400 mg three times a day"}, {"name": "paracetamol"}]
    assert _alerts(mem, rows) == []
