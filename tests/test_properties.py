"""Property tests: canonical values round-trip, and any single tampered row is found."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from conftest import T0, new_workspace
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uac import Memory
from uac.fact_log.values import canonical_json, infer_scalar, loads

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("canonical JSON and value inference alone: no log")

SCALARS = st.one_of(
    st.integers(-(10**15), 10**15),
    st.decimals(
        allow_nan=False, allow_infinity=False, places=2, min_value=-(10**9), max_value=10**9
    ),
    st.dates(),
    st.text(max_size=20),
    st.booleans(),
)


@NO_LOG
@given(st.dictionaries(st.text(min_size=1, max_size=8), SCALARS, max_size=6))
def test_canonical_json_is_stable_and_exact(record: dict) -> None:
    text = canonical_json(record)
    assert canonical_json(dict(reversed(list(record.items())))) == text
    back = loads(text)
    for key, value in record.items():
        if isinstance(value, Decimal):
            assert Decimal(back[key]) == value
        elif isinstance(value, dt.date):
            assert back[key] == value.isoformat()
        else:
            assert back[key] == value


@NO_LOG
@given(SCALARS)
def test_inference_from_text_recovers_the_value(value: object) -> None:
    text = (
        value.isoformat()
        if isinstance(value, dt.date)
        else str(value).lower()
        if isinstance(value, bool)
        else str(value)
    )
    kind, parsed = infer_scalar(text, from_text=True)
    if isinstance(value, bool):
        assert (kind, parsed) == ("bool", value)
    elif isinstance(value, int):
        assert (kind, parsed) == ("int", value)
    elif isinstance(value, Decimal):
        assert kind in ("decimal", "int") and Decimal(parsed) == value
    elif isinstance(value, dt.date):
        assert (kind, parsed) == ("date", value)


COLUMNS = [
    "value",
    "text",
    "path",
    "subject",
    "tenant",
    "source",
    "confidence",
    "recorded_at",
    "record_key",
]


@pytest.mark.duckdb_only(
    "edits rows of the embedded file; PostgreSQL tampering: test_log_backends.py"
)
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(n=st.integers(2, 40), target=st.data(), column=st.sampled_from(COLUMNS))
def test_any_single_tampered_row_is_the_first_broken_link(
    tmp_path_factory, n: int, target, column: str
) -> None:
    home: Path = tmp_path_factory.mktemp("chain") / "ws"
    with Memory(new_workspace(home), create=True, react=False) as mem:  # the chain, not a compile
        mem.import_records(
            "alice",
            "trips",
            [
                {
                    "country": "FR",
                    "depart": (dt.date(2020, 1, 1) + dt.timedelta(days=i)).isoformat(),
                    "city": f"c{i}",
                }
                for i in range(n)
            ],
            now=T0,
        )
    seq = target.draw(st.integers(1, n))
    new = {"confidence": "0.5", "recorded_at": "TIMESTAMP '2001-01-01'"}.get(column, "'tampered'")
    con = duckdb.connect(str(home / "uac.duckdb"))
    con.execute(f"UPDATE facts SET {column} = {new} WHERE seq = {seq}")
    con.close()
    with Memory(home, read_only=True) as mem:
        report = mem.verify()
    assert (report.ok, report.broken_seq, report.checked) == (False, seq, seq - 1)
