"""The catalog: built-in paths, workspace extensions and record validation."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import T0, write

from uac import Memory
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import InputError

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("the built-in catalog alone: no log")

REQUIRED_ATTRIBUTES = [
    "identity.name",
    "identity.birth_date",
    "identity.nationality",
    "identity.passport.number",
    "identity.passport.issuing_country",
    "identity.passport.expiry_date",
    "identity.driver_licence.expiry_date",
    "preferences.verbosity",
    "preferences.answer_order",
    "preferences.format",
    "preferences.language",
    "preferences.timezone",
    "preferences.signature",
]
REQUIRED_COLLECTIONS = {
    "identity.visas": {"country", "valid_until"},
    "identity.insurance_policies": {"kind", "provider", "policy_number", "valid_until"},
    "travel.trips": {"city", "country", "depart", "return_date", "purpose", "cost", "transport"},
    "health.medications": {"name", "start_date", "stop_date", "dose"},
    "health.allergies": {"substance", "reaction", "severity"},
    "health.conditions": {"name"},
    "finance.transactions": {"date", "amount", "merchant", "category", "payee_account"},
    "finance.subscriptions": {"name", "amount", "period", "renews_on"},
    "finance.budgets": {"category", "limit", "period"},
    "vehicles.vehicles": {"make", "model", "year", "mileage"},
    "vehicles.services": {"date", "mileage", "work"},
    "contacts.contacts": {"name", "relationship", "role", "how_met"},
    "schedule.events": {"start", "end", "location"},
    "tasks.tasks": {"goal", "status", "steps", "resume_point", "due_date"},
}


@NO_LOG
def test_builtin_catalog_has_the_documented_paths() -> None:
    cat = Catalog.load()
    for path in REQUIRED_ATTRIBUTES:
        assert cat.attribute(path).spec.type
    for path, fields in REQUIRED_COLLECTIONS.items():
        coll = cat.collection(path)
        assert coll is not None and fields <= set(coll.spec.fields), path
        assert coll.cardinality == "many" and coll.spec.merge in ("update", "replace")
        assert all(k in coll.spec.fields for k in coll.spec.key)
    assert cat.attribute("preferences.verbosity").spec.values == ("short", "normal", "detailed")
    assert cat.attribute("identity.passport.number").spec.sensitivity == "identifier"
    assert cat.collection("trips") is cat.collection("travel.trips")


def test_workspace_catalog_extends_the_builtin_one(home: Path) -> None:
    home.mkdir()
    write(
        home / "catalog.toml",
        """
[hobbies]
description = "Pastimes"
[hobbies.collections.climbs]
key = ["date"]
fields.date = { type = "date", required = true }
fields.grade = { type = "enum", values = ["6a", "6b"] }
[travel.collections.loyalty]
key = ["program"]
fields.program = { type = "str", required = true }
""",
    )
    with Memory(home, create=True) as mem:
        assert mem.catalog.collection("climbs").path == "hobbies.climbs"  # type: ignore[union-attr]
        mem.import_records("alice", "climbs", [{"date": "2025-01-01", "grade": "6a"}], now=T0)
        with pytest.raises(InputError, match="field 'grade'"):
            mem.import_records("alice", "climbs", [{"date": "2025-01-01", "grade": "9z"}], now=T0)
        assert mem.catalog.collection("travel.loyalty") is not None
        assert mem.catalog.collection("travel.trips") is not None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[travel.collections.trips]\nfields.x = { type = 'str' }\n",
            "already defined by the built-in",
        ),
        (
            "[x]\n[x.collections.c]\nkey = ['nope']\nfields.a = { type = 'str' }\n",
            "key field 'nope'",
        ),
        (
            "[x]\n[x.collections.c]\nfields.a = { type = 'colour' }\n",
            r"x.collections.c.fields.a.type",
        ),
        (
            "[x]\n[x.collections.trips]\nfields.a = { type = 'str' }\n",
            "short name 'trips' is used by",
        ),
        ("[x\n", "cannot read catalog"),
        ("[x]\n[x.collections.c]\nfields.class = { type = 'str' }\n", "field name 'class'"),
    ],
)
def test_bad_workspace_catalog_is_a_clear_error(home: Path, text: str, message: str) -> None:
    home.mkdir()
    write(home / "catalog.toml", text)
    with pytest.raises(InputError, match=message):
        Memory(home, create=True)
