"""Big subjects: records stored as columns (compiler/render.py, records.py.j2), the zygote's
fast paths (runtime/sandbox/zygote.py) and one-shot zygotes that load only what a query names."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import types
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import T0

from uac import Memory
from uac.runtime.sandbox import zygote
from uac.runtime.sandbox.engine import Limits, Policy

TRIPS = [
    {
        "country": ["FR", "JP"][i % 2],  # few distinct values: codes
        "city": f"City {i}",  # distinct text: one newline-joined string
        "depart": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}",
        # Equal Decimals written apart ("12.5" and "12.50") must stay apart.
        **({"cost": ["12.5", "12.50", "7"][i % 3]} if i % 5 else {}),
    }
    for i in range(40)
]
LOG = [
    {
        "title": f"entry {i}",
        "body": "line one\nline two" if i % 3 == 0 else f"text {i}",  # a newline: a list
        "score": [1, 2][i % 2],
        "tags": ["x", "y"][: i % 3],
        "place": {"city": "Paris", "floor": i % 4},
    }
    for i in range(30)
]

pytestmark = [
    pytest.mark.usefixtures("module_backend"),
    pytest.mark.one_backend("a checkpoint's files and their zygote: nothing of it reads the log"),
]
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("generated record classes in memory: no log")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory, module_backend: str):
    home = tmp_path_factory.mktemp("columns") / "ws"
    with Memory(home, create=True, react=False) as mem:
        mem.set("alice", "identity.name", "Alice", now=T0)
        mem.set("alice", "identity.passport.expiry_date", "2031-05-01", now=T0)
        mem.import_records("alice", "trips", TRIPS, now=T0)
        mem.import_records("alice", "logbook", LOG, now=T0)
        (res,) = mem.compile("alice")
        assert res.status == "published", res.error  # the validator's round trip passed
        yield mem.checkpoint("alice")


def test_every_column_encoding_is_used_and_read_back_exactly(checkpoint) -> None:
    trips = json.loads((checkpoint.directory / "records_trips.json").read_text())
    kinds = {type(c).__name__ for c in trips}
    assert kinds >= {"str", "dict"}, kinds
    log = json.loads((checkpoint.directory / "records_logbook.json").read_text())
    assert {type(c).__name__ for c in log} >= {"str", "dict", "list"}
    user = checkpoint.user
    by_city = {t.city: t for t in user.trips}
    for i, raw in enumerate(TRIPS):
        trip = by_city[f"City {i}"]
        assert trip.country == raw["country"]
        assert trip.depart == dt.date.fromisoformat(raw["depart"])
        if "cost" in raw:
            assert type(trip.cost) is Decimal and str(trip.cost) == raw["cost"]
        else:
            assert trip.cost is None
        assert type(trip.fact_ids) is tuple and trip.fact_ids
    bodies = sorted(r.body for r in user.logbook)
    assert bodies.count("line one\nline two") == 10
    assert {r.score for r in user.logbook} == {1, 2}
    assert sorted(len(r.tags) for r in user.logbook) == sorted(len(r["tags"]) for r in LOG)
    assert {r.place.floor for r in user.logbook} == {0, 1, 2, 3}


def test_records_built_a_column_at_a_time_equal_the_constructor(checkpoint) -> None:
    for record in (*checkpoint.user.trips, *checkpoint.user.logbook):
        cls = type(record)
        again = cls(**{f.name: getattr(record, f.name) for f in dataclasses.fields(cls)})
        assert again == record and hash(again) == hash(record) and repr(again) == repr(record)
        with pytest.raises(dataclasses.FrozenInstanceError):
            record.key = "changed"  # type: ignore[misc]


def test_the_zygote_reads_only_group_paths_of_provenance_and_all_of_them(checkpoint) -> None:
    directory: Path = checkpoint.directory
    full = json.loads((directory / "provenance.json").read_text())["paths"]
    groups = {
        f.name
        for f in dataclasses.fields(checkpoint.user)
        if dataclasses.is_dataclass(getattr(checkpoint.user, f.name))
    }
    wanted = {k: v for k, v in full.items() if k.split(".")[1] in groups and "[" not in k}
    assert wanted  # identity.name and the passport
    assert zygote._group_paths(directory, checkpoint.user) == wanted


# -- deeply_immutable's per-column path ----------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class Row:
    key: str
    fact_ids: tuple
    value: object = None


@dataclasses.dataclass(frozen=True, slots=True)
class Root:
    rows: tuple


def _policy(user: Root) -> Policy:
    schema = types.ModuleType("schema")
    schema.Row, schema.Root = Row, Root  # type: ignore[attr-defined]
    return Policy(schema, user, Limits())


def _rows(last: object, n: int = 2000) -> Root:
    rows = [Row(f"k{i}", (f"f{i}", f"g{i}"), Decimal(i)) for i in range(n - 1)]
    return Root((*rows, Row("last", ("f",), last)))


@NO_LOG
@pytest.mark.parametrize(
    "last",
    [["x"], {"a": 1}, (1, (2, (3, (4, {5})))), (("a",), bytearray(b"x"))],
    ids=["list", "dict", "set-deep-in-tuples", "bytearray-in-tuple"],
)
def test_one_mutable_value_in_a_big_collection_is_found(last: object) -> None:
    assert not zygote.deeply_immutable(_policy(_rows(last)))


@NO_LOG
def test_a_big_collection_of_scalars_and_tuples_is_immutable() -> None:
    assert zygote.deeply_immutable(_policy(_rows((1, ("a", (2, (dt.date(2024, 1, 1),)))))))


# -- a one-shot query's zygote loads only the collections the program names -----------------


@NO_LOG
@pytest.mark.parametrize(
    ("program", "expected"),
    [
        ("sum(t.cost for t in user.trips if t.cost)", {"trips"}),
        ("len(user.trips) + len(user.logbook)", {"trips", "logbook"}),
        ("user.identity.name", {"identity"}),
        ("(lambda user: user.trips)(1)", {"trips"}),  # a parameter: not the state
        ("1 + 1", set()),
        ("user", None),
        ("u = user\nlen(u.logbook)", None),
        ("count_by(user.trips, 'country') if user else 0", None),
        ("[user for user in range(3)]", None),
        ("user = 1\nuser.trips", None),
        ("(", None),
    ],
)
def test_reads_only_names_every_collection_a_program_can_reach(program, expected) -> None:
    from uac.runtime.sandbox import reads_only

    found = reads_only(program)
    assert (None if found is None else set(found)) == expected


def test_a_partial_zygote_loads_only_its_collections_and_serves_only_its_program(
    checkpoint,
) -> None:
    from uac.runtime.sandbox import Sandbox, reads_only, run_query

    directory, today = checkpoint.directory, dt.date(2026, 12, 1)
    box = Sandbox(directory, reuse=False, only=frozenset({"trips"}))
    try:
        both = "(len(user.trips), len(user.logbook))"
        assert box.run(both, today=today)["result"] == [40, 0]  # logbook was never loaded
    finally:
        box.close()
    only = reads_only("len(user.trips)")
    assert run_query(directory, "len(user.trips)", today=today, only=only)["result"] == 40
    # A program the partial state was not made for gets a zygote holding everything.
    assert run_query(directory, both, today=today, only=only)["result"] == [40, 30]
