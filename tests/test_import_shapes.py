"""Typed imports keep their shape: lists, nested objects, ids and the order of records.

Every check reads the data back twice: from the compiled checkpoint's typed objects
(`mem.checkpoint(subject).user`) and through the query sandbox (`mem.query`), which must
allow the nested fields and encode nested dataclasses and tuples in its results.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from conftest import T0, new_workspace, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uac import Memory
from uac.compiler.canonical import to_json
from uac.compiler.model import identifier
from uac.fact_log.catalog import FieldSpec
from uac.fact_log.errors import InputError
from uac.fact_log.shapes import describe, widen_shape
from uac.fact_log.values import canonical_json


def compiled(mem: Memory, subject: str = "alice") -> Any:
    """Compile a subject and return its typed root object."""
    (result,) = mem.compile(subject)
    assert result.status == "published", result.error
    return mem.checkpoint(subject).user


def query(mem: Memory, code: str, subject: str = "alice") -> Any:
    """Run a query in the sandbox and return its result (failing the test on an error)."""
    answer = mem.query(subject, code)
    assert answer["ok"], answer
    return answer["result"]


PATIENTS = [
    {"id": 368, "name": "Ana", "medications": [], "conditions": []},
    {"id": 42, "name": "Ben", "medications": [{"name": "ibuprofen", "dose_mg": 400}]},
    {"id": 9, "name": "Cy", "conditions": ["asthma"], "address": {"city": "Oslo", "zip": 150}},
    {"id": 1000, "name": "Di", "medications": [{"name": "statin", "dose_mg": 20.5}]},
]


def test_an_empty_list_is_an_empty_tuple(mem: Memory) -> None:
    mem.import_records("alice", "patients", PATIENTS, now=T0)
    ana = next(p for p in compiled(mem).patients if p.name == "Ana")
    assert ana.medications == () and len(ana.medications) == 0 and not ana.conditions
    shown = "[(p.id, len(p.medications), not p.conditions, p.conditions) for p in user.patients"
    assert query(mem, shown + " if p.id == 368]") == [[368, 0, True, []]]
    assert query(mem, "[p.id for p in user.patients if p.medications == ()]") == [368]


def test_id_is_a_typed_field_and_the_key(mem: Memory) -> None:
    mem.import_records("alice", "patients", PATIENTS, now=T0)
    mem.import_records("alice", "books", [{"id": "B-7", "title": "Dune"}], now=T0)
    user = compiled(mem)
    assert [(p.id, p.key) for p in user.patients] == [
        (9, "9"),
        (42, "42"),
        (368, "368"),
        (1000, "1000"),
    ]
    assert all(type(p.id) is int for p in user.patients)
    assert (user.books[0].id, user.books[0].key) == ("B-7", "B-7")
    assert query(mem, "[p.id for p in user.patients]") == [9, 42, 368, 1000]
    assert query(mem, "user.books[0].id") == "B-7"


def test_records_are_ordered_by_typed_id_not_text(mem: Memory) -> None:
    ids = [368, 42, 9, 1000, 5, 77]
    mem.import_records("alice", "items", [{"id": i, "n": str(i)} for i in ids], now=T0)
    assert [r.id for r in compiled(mem).items] == sorted(ids)
    assert query(mem, "[r.id for r in user.items]") == sorted(ids)
    # Dates as dates and decimals as numbers, through the key fields of a catalog collection.
    mem.import_records(
        "alice",
        "transactions",
        [
            {"date": "2025-01-02", "merchant": "Shop", "amount": "10.00"},
            {"date": "2025-01-02", "merchant": "Shop", "amount": "9.50"},
            {"date": "2025-01-02", "merchant": "Shop", "amount": "100"},
        ],
        now=T0,
    )
    amounts = [t.amount for t in compiled(mem).transactions]
    assert amounts == [Decimal("9.50"), Decimal("10.00"), Decimal("100")]


def test_objects_become_nested_frozen_dataclasses(mem: Memory) -> None:
    mem.import_records("alice", "patients", PATIENTS, now=T0)
    user = compiled(mem)
    ben = next(p for p in user.patients if p.name == "Ben")
    cy = next(p for p in user.patients if p.name == "Cy")
    (med,) = ben.medications
    assert type(med).__name__ == "PatientMedication"
    assert dataclasses.is_dataclass(med) and type(med).__dataclass_params__.frozen
    assert not hasattr(med, "__dict__")  # slotted
    # int and decimal in one field widen to Decimal, exactly.
    assert med.dose_mg == Decimal(400) and type(med.dose_mg) is Decimal
    assert (cy.address.city, cy.address.zip) == ("Oslo", 150)
    schema = (mem.checkpoint("alice").directory / "schema.py").read_text()
    assert "class PatientMedication:" in schema and "class PatientAddress:" in schema
    assert "medications: tuple[PatientMedication, ...] | None = None" in schema
    assert '    dose_mg: Decimal | None\n    """dose_mg (decimal)"""' in schema
    assert "        dose_mg: Decimal | None = None,\n" in schema  # its __init__'s default
    # The sandbox allows the nested fields and encodes nested objects as plain data.
    assert query(mem, "[m.dose_mg for p in user.patients for m in (p.medications or ())]") == [
        "400",
        "20.5",
    ]
    assert query(mem, "[p.address.city for p in user.patients if p.address]") == ["Oslo"]
    ben_meds = "[p.medications for p in user.patients if p.name == 'Ben'][0]"
    assert query(mem, ben_meds) == [{"dose_mg": "400", "name": "ibuprofen"}]
    denied = mem.query("alice", "user.patients[1].medications[0].__class__")
    assert not denied["ok"] and denied["error"]["type"] == "not_allowed"
    denied = mem.query("alice", "user.patients[1].medications[0].nope")
    assert not denied["ok"] and denied["error"]["type"] == "not_allowed"


def test_a_jsonl_file_keeps_its_shape(mem: Memory, tmp_path: Path) -> None:
    lines = [json.dumps(p) for p in PATIENTS]
    mem.import_file("alice", "patients", write(tmp_path / "p.jsonl", "\n".join(lines)), now=T0)
    user = compiled(mem)
    assert [p.id for p in user.patients] == [9, 42, 368, 1000]
    assert user.patients[3].medications[0].dose_mg == Decimal("20.5")  # exact, not binary


def test_why_reaches_into_nested_values(mem: Memory) -> None:
    mem.import_records("alice", "patients", PATIENTS, now=T0)
    compiled(mem)
    exp = mem.why("alice", "user.patients[1].medications[0].dose_mg")
    assert exp.value == Decimal(400) and exp.expr == "user.patients['42'].medications[0].dose_mg"
    assert [f.value["name"] for f in exp.facts] == ["Ben"]


def test_documented_coercions(mem: Memory) -> None:
    mem.import_records(
        "alice",
        "shapes",
        [
            {
                "id": 1,
                "nums": [1, 2.5],  # int + decimal -> Decimal
                "mixed": [1, "x", True, {"a": 1}],  # disagreeing -> str (JSON text)
                "holes": [1, None, 3],  # nulls stay, the item type admits None
                "empty": [],  # no evidence -> tuple[str, ...]
                "days": ["2025-03-05", "2025-03-06"],  # ISO dates -> datetime.date
                "grid": [[1, 2], [3]],  # lists of lists
                "flag": 5,
            },
            {"id": 2, "flag": "x", "nums": [3]},  # flag: int + str -> str, 5 reads "5"
        ],
        now=T0,
    )
    first, second = compiled(mem).shapes
    assert first.nums == (Decimal(1), Decimal("2.5")) and second.nums == (Decimal(3),)
    assert first.mixed == ("1", "x", "true", '{"a":1}')
    assert first.holes == (1, None, 3)
    assert first.empty == ()
    assert first.days == (dt.date(2025, 3, 5), dt.date(2025, 3, 6))
    assert first.grid == ((1, 2), (3,))
    assert (first.flag, second.flag) == ("5", "x")
    schema = (mem.checkpoint("alice").directory / "schema.py").read_text()
    for line in [
        "nums: tuple[Decimal, ...] | None = None",
        "mixed: tuple[str, ...] | None = None",
        "holes: tuple[int | None, ...] | None = None",
        "empty: tuple[str, ...] | None = None",
        "days: tuple[datetime.date, ...] | None = None",
        "grid: tuple[tuple[int, ...], ...] | None = None",
        "flag: str | None = None",
    ]:
        assert line in schema
    assert query(mem, "[s.holes for s in user.shapes]") == [[1, None, 3], None]


def test_the_schema_widens_across_imports(mem: Memory) -> None:
    mem.import_records("alice", "logs", [{"id": 1, "tags": []}], now=T0)
    assert mem.inferred_schemas("alice")["logs"] == {"id": "int", "tags": {"list": "none"}}
    assert compiled(mem).logs[0].tags == ()
    mem.import_records("alice", "logs", [{"id": 2, "tags": [{"k": 1}], "at": {"x": 1}}], now=T0)
    mem.import_records("alice", "logs", [{"id": 3, "tags": [{"v": "b"}, None]}], now=T0)
    schema = mem.inferred_schemas("alice")["logs"]
    assert schema["tags"] == {
        "list": {"object": {"k": "int", "v": "str"}},
        "nulls": True,
    }
    assert describe(schema["tags"]) == "list[{k int, v str} | None]"
    one, two, three = compiled(mem).logs
    assert one.tags == () and two.tags[0].k == 1 and two.tags[0].v is None
    assert three.tags[0].v == "b" and three.tags[1] is None and two.at.x == 1


def test_widening_rules() -> None:
    assert widen_shape("int", "decimal") == "decimal"
    assert widen_shape("date", "datetime") == "datetime"
    assert widen_shape({"list": "int"}, "int") == "str"
    assert widen_shape({"list": "int"}, {"object": {}}) == "str"
    assert widen_shape({"list": "none"}, {"list": "date"}) == {"list": "date"}
    assert widen_shape({"object": {"a": "int"}}, {"object": {"b": "str"}}) == {
        "object": {"a": "int", "b": "str"}
    }
    # A schema inferred before shapes (`list` / `json` meant JSON text) takes the new shape.
    assert widen_shape("list", {"list": "int"}) == {"list": "int"}
    assert widen_shape("json", {"object": {"a": "int"}}) == {"object": {"a": "int"}}
    assert widen_shape("json", "int") == "str"


def test_a_schema_from_before_shapes_still_compiles_as_json_text(mem: Memory) -> None:
    mem.import_records("alice", "olds", [{"id": 1, "tags": ["a"], "meta": {"x": 1}}], now=T0)
    # Make the recorded schema look like one inferred by an older uac.
    legacy = {"id": "int", "meta": "json", "tags": "list"}
    mem.store.con.execute("UPDATE schemas SET fields = ?", [canonical_json(legacy)])
    old = compiled(mem).olds[0]
    assert (old.tags, old.meta) == ('["a"]', '{"x":1}')
    mem.import_records("alice", "olds", [{"id": 2, "tags": ["b"], "meta": {"x": 2}}], now=T0)
    first, second = compiled(mem).olds
    assert first.tags == ("a",) and second.meta.x == 2


def test_renamed_nested_keys_are_reported(mem: Memory) -> None:
    mem.import_records("alice", "visits", [{"id": 1, "vitals": {"Heart Rate": 60}}], now=T0)
    visit = compiled(mem).visits[0]
    assert visit.vitals.heart_rate == 60
    renamed = mem.checkpoint("alice").diagnostics["renamed"]
    assert ["visits.VisitVitals", "Heart Rate", "heart_rate"] in renamed
    assert query(mem, "user.visits[0].vitals.heart_rate") == 60


def test_too_deep_or_non_text_keys_are_refused_whole(mem: Memory) -> None:
    deep: Any = 1
    for _ in range(40):
        deep = [deep]
    with pytest.raises(InputError, match=r"record 2: field 'x' nests lists or objects deeper"):
        mem.import_records("alice", "deep", [{"id": 1}, {"id": 2, "x": deep}], now=T0)
    with pytest.raises(InputError, match=r"record 1: field 'x' has an object whose keys"):
        mem.import_records("alice", "deep", [{"id": 1, "x": {1: "a"}}], now=T0)
    assert mem.facts("alice") == [] and mem.inferred_schemas("alice") == {}


def test_names_ruff_refuses_are_renamed(mem: Memory) -> None:
    # `l` (E741) once failed the compile; the hypothesis round trip below found it.
    mem.import_records("alice", "odd", [{"id": 1, "l": 2, "o": {"l": [3]}}], now=T0)
    odd = compiled(mem).odd[0]
    assert (odd.l_, odd.o.l_) == (2, (3,))


def test_catalog_list_fields_are_typed_tuples(home: Path) -> None:
    home.mkdir()
    write(
        home / "catalog.toml",
        """
[hobbies.collections.races]
key = ["name"]
fields.name = { type = "str", required = true }
fields.days = { type = "list", item = "date" }
fields.splits = { type = "list", item = "decimal" }
""",
    )
    with Memory(home, create=True, react=False) as mem:
        race = {"name": "Oslo", "days": ["2025-05-01", "2025-05-02"], "splits": [61.5, 60]}
        mem.import_records("alice", "races", [race, {"name": "Bergen", "days": []}], now=T0)
        bergen, oslo = compiled(mem).races
        assert oslo.days == (dt.date(2025, 5, 1), dt.date(2025, 5, 2))
        assert oslo.splits == (Decimal("61.5"), Decimal(60)) and bergen.days == ()
        assert query(mem, "[len(r.days) for r in user.races]") == [0, 2]
    mem2 = Memory(home, react=False)
    mem2.import_records("alice", "tasks", [{"goal": "run", "steps": []}], now=T0)
    assert compiled(mem2).tasks[0].steps == ()
    mem2.close()


def test_same_log_gives_byte_identical_nested_output(tmp_path: Path) -> None:
    outputs = []
    for n in range(2):
        with Memory(tmp_path / f"ws{n}", create=True, react=False) as mem:
            mem.import_records("alice", "patients", PATIENTS, now=T0)
            compiled(mem)
            directory = mem.checkpoint("alice").directory
            outputs.append(
                {
                    p.name: p.read_bytes()
                    for p in sorted(directory.iterdir())
                    if p.is_file() and p.name != "files.sig"  # keyed per workspace
                }
            )
    assert outputs[0] == outputs[1]


def test_query_results_equal_the_checkpoint_objects(mem: Memory) -> None:
    mem.import_records("alice", "patients", PATIENTS, now=T0)
    user = compiled(mem)
    assert query(mem, "user.patients") == json.loads(json.dumps(to_json(user.patients)))


# -- property: any JSON record set reads back equal, modulo the documented coercions --------

KEYS = st.from_regex(r"[a-z][a-z0-9]{0,5}", fullmatch=True).filter(
    lambda k: k != "id" and identifier(k, set()) == k
)
SCALARS = (
    st.integers(-(10**12), 10**12)
    | st.decimals(-(10**6), 10**6, allow_nan=False, allow_infinity=False, places=2)
    | st.text(alphabet="ab xz-", max_size=5)
    | st.booleans()
    | st.dates(dt.date(1900, 1, 1), dt.date(2100, 12, 31)).map(dt.date.isoformat)
)


def nested(inner: Any) -> Any:
    """Lists and objects of `inner` values."""
    return st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3)


VALUES = st.recursive(SCALARS | st.none(), nested, max_leaves=10)


@st.composite
def record_sets(draw: Any) -> list[dict[str, Any]]:
    """1-5 records with unique ids: all numeric, all text, or both (the field is then text)."""
    n = draw(st.integers(1, 5))
    numbers = st.integers(-(10**6), 10**6)
    texts = st.text(alphabet="aB0-_ ", min_size=1, max_size=4)
    kind = draw(st.sampled_from([numbers, texts, numbers | texts]))
    ids = draw(st.lists(kind, min_size=n, max_size=n, unique_by=str))
    return [{**draw(st.dictionaries(KEYS, VALUES, max_size=4)), "id": i} for i in ids]


def read_back_matches(original: Any, back: Any) -> bool:
    """Whether a typed value is the imported one, modulo the coercions docs/catalog.md lists."""
    if original is None:
        return back is None
    if type(back) is str and type(original) is not str:
        # A field (or item) that widened to str keeps a non-text value as its JSON text;
        # a decimal as its exact text.
        text = str(original) if isinstance(original, Decimal) else canonical_json(original)
        return back == text
    if isinstance(original, list):
        return (
            type(back) is tuple
            and len(back) == len(original)
            and all(map(read_back_matches, original, back))
        )
    if isinstance(original, dict):
        if not dataclasses.is_dataclass(back):
            return False
        fields = {f.name: getattr(back, f.name) for f in dataclasses.fields(back)}
        present = {k: v for k, v in original.items() if v is not None}
        return set(present) <= set(fields) and all(
            read_back_matches(present.get(name), value) for name, value in fields.items()
        )
    if isinstance(original, bool):
        return back is original
    if isinstance(original, int | Decimal):  # int + decimal widen to Decimal, exactly
        return type(back) in (int, Decimal) and back == original
    if isinstance(back, dt.date):  # an ISO date text in a date field
        return back.isoformat() == original
    return back == original


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(record_sets())
def test_any_json_record_set_round_trips(tmp_path: Path, records: list[dict[str, Any]]) -> None:
    with (
        tempfile.TemporaryDirectory(dir=tmp_path) as home,
        Memory(new_workspace(Path(home) / "ws"), create=True, react=False) as mem,
    ):
        mem.import_records("alice", "things", records, now=T0)
        things = compiled(mem).things
        assert len(things) == len(records)
        by_key = {t.key: t for t in things}
        for record in records:
            thing = by_key[str(record["id"])]
            names = {f.name for f in dataclasses.fields(thing)} - {"key", "fact_ids"}
            for name in names:
                assert read_back_matches(record.get(name), getattr(thing, name)), (name, record)
        # Ordered by the typed id: numbers as numbers (or all as text when ids are mixed).
        ids = [t.id for t in things]
        assert len({type(i) for i in ids}) == 1 and ids == sorted(ids)
        # The sandbox encodes the same nested data as the typed objects hold.
        assert query(mem, "user.things") == json.loads(json.dumps(to_json(things)))


VISITS_CATALOG = """
[clinic]
description = "Clinic visits"

[clinic.collections.visits]
key = ["date"]
fields.date = { type = "date", required = true }

[clinic.collections.visits.fields.vitals]
type = "object"
description = "Vitals measured at the visit."
fields.pulse = { type = "int", description = "Beats per minute." }
fields.taken = { type = "datetime" }

[clinic.collections.visits.fields.prescriptions]
type = "list"
item = "object"
description = "What was prescribed."
fields.drug = { type = "str", required = true }
fields.dose_mg = { type = "decimal" }
fields.route = { type = "enum", values = ["oral", "iv"] }
fields.days = { type = "list", item = "date" }
"""


def test_catalog_object_fields_are_declared_and_typed(home: Path) -> None:
    home.mkdir()
    write(home / "catalog.toml", VISITS_CATALOG)
    with Memory(home, create=True, react=False) as mem:
        visit = {
            "date": "2025-02-01",
            "vitals": {"pulse": "61", "taken": "2025-02-01T09:30:00"},
            "prescriptions": [
                {"drug": "amoxicillin", "dose_mg": 500, "route": "oral", "days": ["2025-02-01"]},
                {"drug": "saline"},
            ],
        }
        mem.import_records("alice", "visits", [visit, {"date": "2025-01-01"}], now=T0)
        for bad, message in [
            ({"vitals": {"pulse": "fast"}}, r"field 'vitals.pulse'"),
            ({"vitals": {"spo2": 98}}, r"field 'vitals.spo2' is not part of this collection"),
            ({"prescriptions": [{"route": "oral"}]}, r"required field 'prescriptions.0.drug'"),
            ({"prescriptions": [{"drug": "x", "route": "rectal"}]}, r"prescriptions.0.route"),
        ]:
            with pytest.raises(InputError, match=message):
                mem.import_records("alice", "visits", [{"date": "2025-03-01", **bad}], now=T0)
        empty, full = compiled(mem).visits
        assert empty.prescriptions is None and empty.vitals is None
        assert full.vitals.pulse == 61 and full.vitals.taken == dt.datetime(2025, 2, 1, 9, 30)
        first, second = full.prescriptions
        assert (first.drug, first.dose_mg, first.route) == ("amoxicillin", Decimal(500), "oral")
        assert first.days == (dt.date(2025, 2, 1),) and second.dose_mg is None
        schema = (mem.checkpoint("alice").directory / "schema.py").read_text()
        assert 'class VisitVitals:\n    """Vitals measured at the visit."""' in schema
        assert "prescriptions: tuple[VisitPrescription, ...] | None = None" in schema
        assert '    pulse: int | None\n    """Beats per minute."""' in schema
        assert "        pulse: int | None = None,\n" in schema
        code = "[p.drug for v in user.visits for p in (v.prescriptions or ())]"
        assert query(mem, code) == ["amoxicillin", "saline"]


def test_catalog_objects_are_refused_where_they_cannot_be_typed(home: Path) -> None:
    home.mkdir()
    cases = [
        ("[x.collections.c]\nfields.o = { type = 'object' }\n", r"needs 'fields'"),
        (
            "[x.collections.c]\nfields.o = { type = 'str', fields.a = { type = 'int' } }\n",
            r"only an object",
        ),
        (
            "[x.attributes.o]\ntype = 'object'\nfields.a = { type = 'int' }\n",
            r"attribute x.o is an object",
        ),
    ]
    for text, message in cases:
        write(home / "catalog.toml", text)
        with pytest.raises(InputError, match=message):
            Memory(home, create=True, react=False).close()


def test_an_object_field_spec_stays_hashable() -> None:
    spec = FieldSpec(type="object", fields={"a": FieldSpec(type="int")})
    assert hash(spec) == hash(FieldSpec(type="object", fields={"a": {"type": "int"}}))
    assert spec in {spec}
