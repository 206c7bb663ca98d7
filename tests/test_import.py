"""Structured import: formats, catalog validation, schema inference and bad input."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import pytest
from conftest import T0, counts, write

from uac import Memory
from uac.fact_log import importer
from uac.fact_log.errors import InputError, NotFound

TRIPS_JSONL = (
    '{"city": "Paris", "country": "FR", "depart": "2025-03-05", "return_date": "2025-03-09",'
    ' "cost": 412.10, "currency": "EUR", "purpose": "leisure"}\n'
    "\n"
    '{"city": "Kyoto", "country": "JP", "depart": "2025-10-01", "cost": "2380.00",'
    ' "transport": "plane"}\n'
)


@pytest.mark.usefixtures("backend")  # runs on DuckDB and on PostgreSQL
def test_jsonl_trips_are_typed_and_exact(mem: Memory, tmp_path: Path) -> None:
    result = mem.import_file("alice", "trips", write(tmp_path / "t.jsonl", TRIPS_JSONL), now=T0)
    assert (result.path, result.known, result.facts, result.schema) == (
        "travel.trips",
        True,
        2,
        None,
    )
    paris, kyoto = mem.facts("alice")
    assert paris.value["cost"] == "412.10"  # exact: the float text was never rounded through binary
    assert Decimal(paris.value["cost"]) == Decimal("412.10")
    assert paris.record_key == "FR|Paris|2025-03-05"
    assert kyoto.value == {
        "city": "Kyoto",
        "country": "JP",
        "depart": "2025-10-01",
        "cost": "2380.00",
        "transport": "plane",
    }
    assert paris.evidence == {"where": "line 1"} and kyoto.evidence == {"where": "line 3"}
    (archived,) = mem.inputs("alice")
    assert (
        archived.content == TRIPS_JSONL
        and archived.name == "t.jsonl"
        and paris.input_id == archived.id
    )


def test_json_array_and_csv_give_the_same_values(mem: Memory, tmp_path: Path) -> None:
    array = write(
        tmp_path / "m.json", '[{"name": "lisinopril", "dose": "10 mg", "start_date": "2023-09-18"}]'
    )
    csv = write(
        tmp_path / "m.csv", "name,dose,start_date,stop_date\nlisinopril,10 mg,2023-09-18,\n"
    )
    mem.import_file("a", "health.medications", array, now=T0)
    mem.import_file("b", "medications", csv, now=T0)
    assert (
        mem.facts("a")[0].value
        == mem.facts("b")[0].value
        == {"name": "lisinopril", "dose": "10 mg", "start_date": "2023-09-18"}
    )


def test_id_field_is_the_record_key(mem: Memory) -> None:
    mem.import_records(
        "alice", "trips", [{"id": "T-17", "country": "FR", "depart": "2025-01-01"}], now=T0
    )
    mem.import_records("alice", "books", [{"id": 7, "title": "Dune"}], now=T0)
    assert [f.record_key for f in mem.facts("alice")] == ["T-17", "7"]


@pytest.mark.usefixtures("backend")  # runs on DuckDB and on PostgreSQL
def test_unknown_collection_schema_is_inferred_and_recorded(mem: Memory, tmp_path: Path) -> None:
    csv = write(
        tmp_path / "c.csv",
        "date,Gym Name,routes,hours,indoor,class\n2024-01-06,Arch,7,2.5,true,x\n",
    )
    result = mem.import_file("alice", "climbs", csv, now=T0)
    expected = {
        "Gym Name": "str",
        "class": "str",
        "date": "date",
        "hours": "decimal",
        "indoor": "bool",
        "routes": "int",
    }
    assert result.known is False and result.schema == expected
    assert mem.inferred_schemas("alice") == {"climbs": expected}
    assert mem.facts("alice")[0].value == {
        "date": "2024-01-06",
        "Gym Name": "Arch",
        "routes": 7,
        "hours": "2.5",
        "indoor": True,
        "class": "x",
    }
    # JSON values keep their JSON types: a string of digits stays a string.
    mem.import_records("alice", "climbs", [{"routes": 9.5, "gym_code": "007"}], now=T0)
    schema = mem.inferred_schemas("alice")["climbs"]
    assert schema["routes"] == "decimal" and schema["gym_code"] == "str"
    versions = mem.store.con.execute("SELECT version FROM schemas ORDER BY version").fetchall()
    assert versions == [(1,), (2,)]
    assert mem.inferred_schemas("bob") == {}  # recorded per subject, never shared


def test_set_validates_against_the_catalog(mem: Memory) -> None:
    assert mem.set("alice", "preferences.verbosity", "short", now=T0).kind == "preference"
    with pytest.raises(InputError, match=r"identity.passport.expiry_date: .*valid date"):
        mem.set("alice", "identity.passport.expiry_date", "next spring")
    with pytest.raises(
        InputError, match=r"preferences.verbosity: Input should be 'short', 'normal' or 'detailed'"
    ):
        mem.set("alice", "preferences.verbosity", "chatty")
    with pytest.raises(InputError, match="should match pattern"):
        mem.set("alice", "identity.nationality", "Britain")
    with pytest.raises(NotFound, match=r"did you mean identity.passport.expiry_date"):
        mem.set("alice", "identity.passport.expiry", "2027-01-01")
    assert len(mem.facts("alice")) == 1


def _huge_line(tmp_path: Path) -> Path:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as fh:
        fh.write(b'{"country": "FR", "depart": "2025-01-01"}\n{"city": "')
        fh.write(b"x" * (100 << 20))
        fh.write(b'", "country": "FR", "depart": "2025-01-02"}\n')
    return path


BAD_FILES = [
    (
        "malformed.jsonl",
        '{"country": "FR", "depart": "2025-01-01"}\n{"country": "FR", "depart": \n',
        r"malformed.jsonl:2: malformed JSON",
    ),
    (
        "wrongtype.jsonl",
        '{"country": "FR", "depart": "2025-01-01"}\n{"country": "FR", "depart": "soon"}\n',
        r"wrongtype.jsonl: line 2: field 'depart': .*valid date.*'soon'",
    ),
    ("number_date.jsonl", '{"country": "FR", "depart": 20250101}\n', r"line 1: field 'depart'"),
    (
        "enum.jsonl",
        '{"country": "FR", "depart": "2025-01-01", "purpose": "fun"}\n',
        r"field 'purpose'",
    ),
    (
        "extra.jsonl",
        '{"country": "FR", "depart": "2025-01-01", "mood": "ok"}\n',
        r"field 'mood' is not part of this collection",
    ),
    ("missing.jsonl", '{"city": "Paris"}\n', r"required field 'country' is missing"),
    ("empty.jsonl", "", r"empty.jsonl: file is empty"),
    ("blank.csv", "\n\n  \n", r"blank.csv: file is empty"),
    ("header_only.csv", "country,depart\n", r"header_only.csv: contains no records"),
    (
        "ragged.csv",
        "country,depart\nFR,2025-01-01\nFR\n",
        r"ragged.csv:3: has 1 columns, the header has 2",
    ),
    (
        "array.json",
        '[{"country": "FR", "depart": "2025-01-01"}, 3]',
        r"array.json: item 2: expected a JSON object",
    ),
    ("scalar.jsonl", "[1, 2]\n" + '{"a": 1}\n', r"scalar.jsonl:1: expected a JSON object"),
    (
        "latin1.csv",
        "country,depart,city\nFR,2025-01-01,S\xe9te\n".encode("latin-1"),
        r"latin1.csv:2: not valid UTF-8",
    ),
    ("binary.jsonl", b"\x00\x01\x02\x03", r"binary.jsonl:1: contains a NUL byte"),
    ("bad_date.csv", "country,depart\nFR,2025-02-30\n", r"line 2: field 'depart'"),
    (
        "nan.jsonl",
        '{"country": "FR", "depart": "2025-01-01"}\n{"country": "FR", "n": NaN}\n',
        r"nan.jsonl:2: malformed JSON \(NaN is not a number",
    ),
    ("infinity.json", '[{"country": "FR", "n": -Infinity}]', r"infinity.json: malformed JSON"),
    ("deep.json", "[" * 5000 + "]" * 5000, r"deep.json: malformed JSON \(JSON nested too deeply"),
    ("deep.jsonl", '{"a":' * 3000 + "1" + "}" * 3000 + "\n", r"deep.jsonl:1: .*nested too deeply"),
]


@pytest.mark.parametrize(("name", "content", "message"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_files_get_one_clear_error_and_write_nothing(
    mem: Memory, tmp_path: Path, name: str, content: str | bytes, message: str
) -> None:
    mem.import_records("alice", "trips", [{"country": "PT", "depart": "2024-01-01"}], now=T0)
    before = counts(mem)
    with pytest.raises(InputError, match=message):
        mem.import_file("alice", "trips", write(tmp_path / name, content), now=T0)
    assert counts(mem) == before


def test_a_100mb_line_is_refused_and_nothing_is_written(mem: Memory, tmp_path: Path) -> None:
    with pytest.raises(
        InputError,
        match=r"huge.jsonl:2: line is 104,857,6\d\d bytes, over the 1,048,576-byte limit",
    ):
        mem.import_file("alice", "trips", _huge_line(tmp_path), now=T0)
    assert counts(mem) == (0, 0, 0)


def test_missing_file_and_bad_collection_names(mem: Memory, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope\.jsonl: no such file"):
        mem.import_file("alice", "trips", tmp_path / "nope.jsonl")
    rec = write(tmp_path / "r.jsonl", '{"a": 1}\n')
    for bad in ("Books", "../etc", "a b", "x.y.z", ""):
        with pytest.raises(InputError, match="invalid collection name"):
            mem.import_file("alice", bad, rec)
    with pytest.raises(InputError, match="is an attribute path"):
        mem.import_file("alice", "identity.name", rec)
    assert counts(mem) == (0, 0, 0)


def test_unknown_subject_forms_are_refused(mem: Memory) -> None:
    for bad in ("robot:alice", "user:", "../alice", "alice bob", "", "group:", ":x"):
        with pytest.raises(InputError):
            mem.set(bad, "identity.name", "x")
    assert counts(mem) == (0, 0, 0)


@pytest.mark.usefixtures("backend")  # runs on DuckDB and on PostgreSQL
def test_dates_values_round_trip_through_canonical_json(mem: Memory) -> None:
    fact = mem.set("alice", "identity.birth_date", dt.date(1991, 4, 17), now=T0)
    assert fact.value_json == '"1991-04-17"'


LEDGER = "date,merchant,amount,currency,category\n"
COFFEE = "2026-03-02,Pret,3.20,GBP,dining\n"


@pytest.mark.usefixtures("backend")
def test_identical_ledger_rows_are_each_a_payment(
    mem: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two coffees of the same price the same day are two payments: a sum over the ledger
    # must count both, and importing the statement again must not count them twice more.
    ask = "(len(user.transactions), str(sum(t.amount for t in user.transactions)))"
    march = write(tmp_path / "march.csv", LEDGER + COFFEE * 2 + "2026-03-02,Pret,4.10,GBP,dining\n")
    mem.import_file("alice", "transactions", march, now=T0)
    mem.compile("alice")
    assert mem.query("alice", ask)["result"] == [3, "10.50"]
    mem.import_file("alice", "transactions", march, now=T0)  # the same file again
    mem.compile("alice")
    assert mem.query("alice", ask)["result"] == [3, "10.50"]
    # A later statement repeating both coffees and a third, read in chunks of one record.
    monkeypatch.setattr(importer, "CHUNK_RECORDS", 1)
    later = write(tmp_path / "later.csv", LEDGER + COFFEE * 3 + "2026-03-03,Tesco,9.99,GBP,\n")
    mem.import_file("alice", "transactions", later, now=T0)
    mem.compile("alice")
    assert mem.query("alice", ask)["result"] == [5, "23.69"]
    # A row's own id names one record, however often the row is given.
    same_id = [{"id": "tx-1", "date": "2026-03-04", "merchant": "Boots", "amount": "5.00"}] * 2
    mem.import_records("alice", "transactions", same_id, now=T0)
    mem.compile("alice")
    assert mem.query("alice", ask)["result"] == [6, "28.69"]
    # Identical rows of a collection that is no ledger are one record, as before.
    trips = [{"country": "FR", "depart": "2026-05-01"}] * 2
    mem.import_records("alice", "trips", trips, now=T0)
    mem.compile("alice")
    assert mem.query("alice", "len(user.trips)")["result"] == 1
