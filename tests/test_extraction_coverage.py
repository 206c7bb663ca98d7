"""Every catalog path a check reads can be filled from plain conversation (issue 14).

The paths are enumerated mechanically, never by hand: the catalog's declarations (`checks =
[...]` on a collection or attribute: what makes a check apply to a subject) plus what the
check functions themselves read, found in checks/library's source (`records(user, "trips")`,
`attr(user, "passport", "expiry_date")`, followed through the helpers they call). Each path
needs a dialogue in DIALOGUES below; it is replayed through `Memory.add(..., at=)` (the `uac
add --at` path: rules only, real DuckDB) and must leave a fact of that path in the log. A new
check reading a new path fails here until a dialogue fills it.
"""

from __future__ import annotations

import ast
import datetime as dt
import functools
from pathlib import Path

import pytest

from uac import Memory
from uac.checks.library import REGISTRY
from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction.patterns.text import builtin_catalog

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("the checks' paths and the dialogues alone: no log")

LIBRARY = Path(__file__).resolve().parents[1] / "checks" / "library"

# path -> dated sessions of user lines (invented for this test, not from the bench sets).
DIALOGUES: dict[str, list[tuple[str, list[str]]]] = {
    "identity.nationality": [("2025-01-05", ["I'm Canadian, born in Halifax."])],
    "identity.passport.issuing_country": [
        ("2025-01-05", ["Just renewed my passport.", "I travel on an Irish passport."])
    ],
    "identity.passport.expiry_date": [
        ("2025-01-05", ["My passport expires on 2 August 2027."]),
    ],
    "identity.passport.full_name": [
        ("2025-01-05", ["The name on my passport is Margaret Ann Dunne."]),
    ],
    "identity.passport.blank_pages": [
        ("2025-01-05", ["I only have 2 blank pages left in my passport."]),
    ],
    "identity.driver_licence.expiry_date": [
        ("2025-01-05", ["My driving licence expires on 30 June 2026."]),
    ],
    "identity.visas": [("2025-01-05", ["I got my Vietnamese visa today, valid until 1 May."])],
    "identity.insurance_policies": [
        ("2025-01-05", ["My travel insurance with Aviva runs until 31 December 2025."]),
    ],
    "travel.trips": [("2025-01-05", ["I'm flying to Lisbon on 14 March, back on the 21st."])],
    "travel.bookings": [
        ("2025-01-05", ["I booked the Hotel Avenida in Lisbon from 14 March to 21 March."]),
    ],
    "health.medications": [("2025-01-05", ["I take 20 mg omeprazole every morning."])],
    "health.allergies": [("2025-01-05", ["I'm allergic to sesame, I get hives."])],
    "health.conditions": [("2025-01-05", ["I was diagnosed with asthma as a child."])],
    "health.body_weight": [("2025-01-05", ["I weighed in at 71.5 kg this morning."])],
    # the user's days for a repeating event (checks/library/occurrences.py)
    "preferences.timezone": [("2025-01-05", ["My timezone is Europe/London."])],
    "health.intake": [("2025-01-05", ["I drink grapefruit juice with breakfast every day."])],
    "health.vaccinations": [("2025-01-05", ["I had my hepatitis A jab in December."])],
    "finance.transactions": [("2025-01-05", ["I spent £42.10 at Tesco today."])],
    "finance.budgets": [("2025-01-05", ["My budget for eating out is £200 a month."])],
    "finance.subscriptions": [("2025-01-05", ["I pay £10.99 a month for Spotify."])],
    "finance.bank_accounts": [
        ("2025-01-05", ["My Monzo card has a limit of £500 per payment."]),
    ],
    "finance.scheduled_payments": [
        ("2025-01-05", ["I set up a standing order of £650 for rent from my Nationwide account."]),
    ],
    "finance.warranties": [
        ("2025-01-05", ["The new dishwasher has a two-year warranty, bought it today."]),
    ],
    "finance.promotions": [
        ("2025-01-05", ["My 0% balance transfer deal with Barclaycard ends on 30 June."]),
    ],
    "schedule.events": [("2025-01-05", ["Dentist appointment on 20 January at 3pm."])],
    "tasks.tasks": [("2025-01-05", ["My tax return is due on 31 January."])],
    "schedule.away_periods": [
        ("2025-01-05", ["I'm on annual leave from 10 March to 14 March."]),
    ],
    "vehicles.vehicles": [("2025-01-05", ["I drive a 2019 Toyota Corolla."])],
    "vehicles.services": [
        ("2025-01-05", ["My Corolla had its last service on 3 November 2024 at 45,000 km."]),
    ],
    "places.location.city": [("2025-01-05", ["Just landed in Lisbon, very tired."])],
    "places.location.country": [("2025-01-05", ["I'm in Japan right now for work."])],
}


def _path(catalog: Catalog, read: tuple[str, ...]) -> str | None:
    """The catalog path a read names: ("trips",) or ("passport", "expiry_date")."""
    if len(read) == 2:
        group, field = read
        for path in catalog.attributes:
            if path.endswith(f".{group}.{field}") or path == f"{group}.{field}":
                return path
        return None
    coll = catalog.collection(read[0])
    return coll.path if coll is not None else None


def _functions() -> dict[str, ast.FunctionDef]:
    return {
        node.name: node
        for module in sorted(LIBRARY.glob("*.py"))
        for node in ast.parse(module.read_text()).body
        if isinstance(node, ast.FunctionDef)
    }


def _reads(name: str, funcs: dict[str, ast.FunctionDef], seen: set[str]) -> set[tuple[str, ...]]:
    """String arguments of calls taking `user` first, in a function and the helpers it calls."""
    if name in seen or name not in funcs:
        return set()
    seen.add(name)
    out: set[tuple[str, ...]] = set()
    for node in ast.walk(funcs[name]):
        if not isinstance(node, ast.Call):
            continue
        callee = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        out |= _reads(callee or "", funcs, seen)
        if node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "user":
            words = [
                a.value
                for a in node.args[1:]
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            ]
            out |= {tuple(words)} if callee == "attr" else {(w,) for w in words}
    return out


@functools.cache
def check_inputs() -> dict[str, frozenset[str]]:
    """{catalog path: the checks that read it}: declared in the catalog or read in the code."""
    catalog = builtin_catalog()
    out: dict[str, set[str]] = {}
    for coll in catalog.collections.values():
        for check in coll.spec.checks:
            out.setdefault(coll.path, set()).add(check)
    for path, attr in catalog.attributes.items():
        for check in attr.spec.checks:
            out.setdefault(path, set()).add(check)
    funcs = _functions()
    for check in REGISTRY:
        for read in _reads(check, funcs, set()):
            if (path := _path(catalog, read)) is not None:
                out.setdefault(path, set()).add(check)
    return {path: frozenset(checks) for path, checks in out.items()}


@NO_LOG
def test_the_enumeration_finds_what_the_checks_read() -> None:
    inputs = check_inputs()
    # Read in code but not declared in the catalog (the passport's country through
    # home_country) and declared in the catalog: both kinds are found.
    assert "schengen_stay_limit" in inputs["identity.passport.issuing_country"]
    assert "dose_vs_weight" in inputs["health.body_weight"]
    assert "health_certificate" in inputs["health.vaccinations"]
    assert "deadline_while_away" in inputs["tasks.tasks"]
    assert "health.weight_kg" not in inputs  # folded into health.body_weight


@NO_LOG
def test_every_path_a_check_reads_has_a_dialogue() -> None:
    missing = sorted(set(check_inputs()) - set(DIALOGUES))
    assert missing == [], f"no dialogue fills {missing}: add one to DIALOGUES"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, module_backend: str):
    with Memory(tmp_path_factory.mktemp("coverage") / "ws", create=True, react=False) as mem:
        yield mem


@pytest.mark.parametrize("path", sorted(DIALOGUES))
def test_a_dialogue_fills_the_path(workspace: Memory, path: str) -> None:
    subject = "u-" + path.replace(".", "-").replace("_", "-")
    for n, (day, lines) in enumerate(DIALOGUES[path]):
        start = dt.datetime.fromisoformat(day) + dt.timedelta(hours=9)
        for i, line in enumerate(lines):
            at = start + dt.timedelta(minutes=i)
            workspace.add(subject, line, at=at, session_id=f"s{n}", now=at)
    facts = workspace.facts(subject)
    learned = [f for f in facts if f.path == path and f.kind != "note"]
    assert learned, [(f.path, f.value) for f in facts if f.kind != "note"]
