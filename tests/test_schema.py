"""One schema mechanism: per-owner versioned migrations, in one transaction, upgrading in place.

The legacy workspace is built from the DDL of the format before per-owner versions (schema
version 3, everything in `meta.schema_version`; `llm_usage` created on first LLM use), then
filled with rows a current workspace wrote (facts with their hash chain, inputs,
rejections, inferred schemas, checkpoints, alerts, jobs, token usage).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from uac import Memory
from uac.checks import evaluate
from uac.checks.scheduler import run_once
from uac.fact_log.errors import WorkspaceError
from uac.fact_log.extraction.llm_usage import UsageLedger
from uac.fact_log.schema import META_DDL, Owner, registered
from uac.fact_log.store import FACT_COLUMNS, INPUT_COLUMNS, Store

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("the layers' imports alone: no log")

T = dt.datetime(2025, 1, 10, 9)
TODAY = dt.date(2025, 1, 10)
OWNERS = {"fact_log": 3, "tamper": 2, "llm": 1, "compiler": 2, "checks": 3, "search": 1}
OWNERS["service"] = 1  # API keys and the alert outbox (runtime/api/schema.py)
OWNERS["erase"] = 1  # erasure reports and erased rows (fact_log/erase.py)
OWNERS["idempotency"] = 1  # writes' Idempotency-Keys and answers (runtime/api/schema.py)
OWNERS["reactions"] = 1  # writes awaiting their reaction (fact_log/backends/reactions.py)
OWNERS["write_keys"] = 1  # keyed writes' batches, in their transaction (backends/write_keys.py)
DATA_TABLES = (
    "facts",
    "inputs",
    "rejections",
    "schemas",
    "checkpoints",
    "alerts",
    "jobs",
    "llm_usage",
)


def _cols(columns: Any) -> str:
    return ", ".join(f"{name} {sql}" for name, sql, _ in columns)


# The workspace format before this change, written out by hand (store.py MIGRATIONS 1-3 and
# the table UsageLedger created on first use). Frozen here on purpose: it must not follow
# the code.
LEGACY_V3 = (
    "CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)",
    f"CREATE TABLE facts ({_cols(FACT_COLUMNS[:24])})",  # before the keyed `mac` column
    f"CREATE TABLE inputs ({_cols(INPUT_COLUMNS[:14])})",
    "CREATE TABLE rejections (id VARCHAR NOT NULL, tenant VARCHAR NOT NULL,"
    " scope VARCHAR NOT NULL, subject VARCHAR NOT NULL, input_id VARCHAR,"
    " path VARCHAR, reason VARCHAR NOT NULL, detail VARCHAR, recorded_at TIMESTAMP NOT NULL)",
    "CREATE TABLE schemas (tenant VARCHAR NOT NULL, scope VARCHAR NOT NULL,"
    " subject VARCHAR NOT NULL, path VARCHAR NOT NULL, version INTEGER NOT NULL,"
    " fields VARCHAR NOT NULL, input_id VARCHAR, recorded_at TIMESTAMP NOT NULL)",
    "CREATE TABLE checkpoints (id BIGINT NOT NULL, tenant VARCHAR NOT NULL,"
    " scope VARCHAR NOT NULL, subject VARCHAR NOT NULL, version INTEGER,"
    " status VARCHAR NOT NULL, watermark BIGINT NOT NULL, head_id VARCHAR,"
    " as_of TIMESTAMP, known_at TIMESTAMP, facts INTEGER NOT NULL, error VARCHAR,"
    " timings VARCHAR, started_at TIMESTAMP NOT NULL, finished_at TIMESTAMP NOT NULL)",
    "CREATE TABLE IF NOT EXISTS alerts (id VARCHAR NOT NULL, tenant VARCHAR NOT NULL,"
    " scope VARCHAR NOT NULL, subject VARCHAR NOT NULL, check_name VARCHAR NOT NULL,"
    " severity VARCHAR NOT NULL, status VARCHAR NOT NULL, message VARCHAR NOT NULL,"
    " computation VARCHAR NOT NULL, fact_ids VARCHAR NOT NULL, record_keys VARCHAR NOT NULL,"
    " first_seen DATE NOT NULL, last_seen DATE NOT NULL, acknowledged_on DATE,"
    " snoozed_until DATE, resolved_on DATE, delivered_at TIMESTAMP, delivery_error VARCHAR,"
    " PRIMARY KEY (tenant, scope, subject, id))",
    "CREATE TABLE IF NOT EXISTS jobs (id BIGINT NOT NULL, tenant VARCHAR NOT NULL,"
    " kind VARCHAR NOT NULL, run_for DATE NOT NULL, started_at TIMESTAMP NOT NULL,"
    " finished_at TIMESTAMP NOT NULL,"
    " duration_ms DOUBLE NOT NULL, subjects INTEGER NOT NULL, compiled INTEGER NOT NULL,"
    " alerts_new INTEGER NOT NULL, alerts_open INTEGER NOT NULL,"
    " alerts_resolved INTEGER NOT NULL, errors INTEGER NOT NULL, detail VARCHAR)",
    "CREATE TABLE IF NOT EXISTS llm_usage (tenant VARCHAR NOT NULL, scope VARCHAR NOT NULL,"
    " subject VARCHAR NOT NULL, day DATE NOT NULL, prompt_tokens BIGINT NOT NULL,"
    " completion_tokens BIGINT NOT NULL, calls INTEGER NOT NULL)",
    "INSERT INTO meta VALUES ('schema_version', '3')",
)


def _legacy_columns(con: duckdb.DuckDBPyConnection, table: str) -> str:
    # The columns the legacy format had: later steps only add columns (the keyed `mac`, and
    # an alert's `why` and `next_step`, NULL on rows from before).
    names = [
        r[0]
        for r in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = ?"
            " AND database_name = current_database() ORDER BY column_index",
            [table],
        ).fetchall()
    ]
    return ", ".join(n for n in names if n not in ("mac", "why", "next_step"))


def _rows(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[Any, ...]]:
    cols = _legacy_columns(con, table)
    return sorted(con.execute(f"SELECT {cols} FROM {table}").fetchall(), key=repr)


def _fill(home: Path) -> None:
    """A current workspace with a row in every data table."""
    with Memory(home, create=True, react=False) as mem:
        mem.set("maya", "identity.passport.issuing_country", "GB", now=T)
        mem.set("maya", "identity.passport.expiry_date", "2025-03-05", now=T)
        mem.import_records(
            "maya", "trips", [{"country": "TH", "city": "Bangkok", "depart": "2025-02-20"}], now=T
        )
        mem.import_records("maya", "climbs", [{"route": "Arete", "grade": "5a"}], now=T)
        mem.add("maya", "My password is hunter2. I'm allergic to penicillin.", now=T)
        mem.compile("maya")
        assert evaluate(mem.store, mem.home, mem.address("maya"), TODAY).new
        run_once(home, "default", TODAY, lambda a: mem.compile(str(a)), store=mem.store)
        UsageLedger(mem.store, mem.address("maya")).record(TODAY, 120, 30)


def _legacy_copy(source: Path, home: Path) -> dict[str, list[tuple[Any, ...]]]:
    """A workspace in the pre-change format holding source's rows; returns them per table."""
    home.mkdir()
    con = duckdb.connect(str(home / "uac.duckdb"))
    for ddl in LEGACY_V3:
        con.execute(ddl)
    con.execute(f"ATTACH '{source / 'uac.duckdb'}' AS src (READ_ONLY)")
    for table in DATA_TABLES:
        con.execute(f"INSERT INTO {table} SELECT {_legacy_columns(con, table)} FROM src.{table}")
    con.execute("DETACH src")
    before = {t: _rows(con, t) for t in DATA_TABLES}
    con.close()
    return before


@pytest.fixture
def legacy(tmp_path: Path) -> tuple[Path, dict[str, list[tuple[Any, ...]]]]:
    source = tmp_path / "source"
    _fill(source)
    home = tmp_path / "legacy"
    before = _legacy_copy(source, home)
    assert all(before[t] for t in DATA_TABLES), "every data table must hold a row"
    return home, before


@pytest.mark.duckdb_only("migrates an old-format DuckDB workspace file")
def test_an_old_format_workspace_upgrades_in_place_with_its_data(
    legacy: tuple[Path, dict[str, list[tuple[Any, ...]]]],
) -> None:
    home, before = legacy
    with Memory(home, react=False) as mem:
        assert mem.store.schema_version == 3
        assert mem.store.schema_versions() == OWNERS
        con = mem.store.con
        assert {t: _rows(con, t) for t in DATA_TABLES} == before
        keys = dict(con.execute("SELECT key, value FROM meta").fetchall())
        record = json.loads(keys.pop("tamper"))["record"]
        # the keying record binds the key (its fingerprint) and the log's genesis (the head
        # hash before the first keyed fact): a deleted record is broken, never a new log
        assert record.pop("key").startswith("k1:")
        assert len(record.pop("genesis")) == 64
        assert record == {
            # Keying starts after the old facts; the old rows of other tables were sealed.
            "facts_from": len(before["facts"]) + 1,
            "tables": [
                "alerts@2",  # seal version 2: why and next_step are covered
                "anchors@2",  # seal version 2: each anchor's tally of the counted tables
                "checkpoints",
                "erased_rows",
                "erasures",
                "inputs",
                "rejections",
                "schemas",
            ],
        }
        assert keys == {
            "schema_version": "3",
            "schema_version.tamper": "2",
            "schema_version.llm": "1",
            "schema_version.compiler": "2",
            "schema_version.checks": "3",
            "schema_version.search": "1",
            "schema_version.service": "1",
            "schema_version.erase": "1",
            "schema_version.idempotency": "1",
            "schema_version.reactions": "1",
            "schema_version.write_keys": "1",
        }
        # The old facts keep verifying with their plain links; the key file was made.
        assert con.execute("SELECT count(*) FROM facts WHERE mac IS NOT NULL").fetchone()[0] == 0
        assert (home / "keys" / "chain.key").stat().st_mode & 0o777 == 0o600
        report = mem.verify()
        assert report.ok, report
        assert report.keyed_from == len(before["facts"]) + 1
        assert mem.alerts("maya")  # the stored alerts are read back
        assert UsageLedger(mem.store, mem.address("maya")).used(TODAY) == 150
        # The tables old code created on first use exist now; the workspace keeps working.
        mem.add("maya", "I'm flying to Lisbon on 3 March 2025.", now=T)
        assert [h.text for h in mem.search("maya", "Lisbon", today=TODAY)]
        (res,) = mem.compile("maya")
        assert res.status == "published"
        # New facts carry keyed links; the whole log (old and new) verifies.
        assert con.execute("SELECT count(*) FROM facts WHERE mac IS NULL").fetchone()[0] == len(
            before["facts"]
        )
        assert mem.verify().ok


@pytest.mark.duckdb_only("migrates an old-format DuckDB workspace file")
def test_reopening_an_upgraded_workspace_changes_nothing(
    legacy: tuple[Path, dict[str, list[tuple[Any, ...]]]],
) -> None:
    home, before = legacy
    Memory(home, react=False).close()
    with Memory(home, react=False) as mem:
        assert mem.store.schema_versions() == OWNERS
        assert {t: _rows(mem.store.con, t) for t in DATA_TABLES} == before


@pytest.mark.duckdb_only("migrates an old-format DuckDB workspace file")
def test_a_read_only_open_of_an_old_format_workspace_writes_nothing(
    legacy: tuple[Path, dict[str, list[tuple[Any, ...]]]],
) -> None:
    home, _rows_before = legacy
    with Memory(home, read_only=True) as mem:
        assert [f.path for f in mem.facts("maya")][:1] == ["identity.passport.issuing_country"]
    con = duckdb.connect(str(home / "uac.duckdb"), read_only=True)
    assert con.execute("SELECT key FROM meta").fetchall() == [("schema_version",)]
    assert not con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'search_%'"
    ).fetchall()
    con.close()


def test_a_failed_step_leaves_every_owner_as_it_was(home: Path) -> None:
    with Memory(home, create=True) as mem:
        mem.set("alice", "identity.name", "Alice", now=T)
    con = duckdb.connect(str(home / "uac.duckdb"))  # a schema-1 workspace, as in test_workspace
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    con.execute("DROP TABLE checkpoints")
    con.close()
    bad = Owner(
        "broken", 3, (("CREATE TABLE broken_ok (x INT)", "CREATE TABLE broken_no (x NOTATYPE)"),)
    )
    with pytest.raises(
        WorkspaceError, match=r"migrating the broken tables to version 1 failed, so nothing"
    ):
        Store.open(home, owners=[bad])
    con = duckdb.connect(str(home / "uac.duckdb"), read_only=True)
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert "broken_ok" not in tables and "checkpoints" not in tables
    meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
    assert meta["schema_version"] == "1" and "schema_version.broken" not in meta
    con.close()
    with Memory(home) as mem:  # without the broken owner it upgrades
        assert mem.store.schema_versions()["compiler"] == 2
        assert mem.store.checkpoints(mem.address("alice")) == []


def test_an_owner_newer_than_this_code_is_refused(home: Path) -> None:
    Memory(home, create=True).close()
    con = duckdb.connect(str(home / "uac.duckdb"))
    con.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version.compiler'")
    con.close()
    with pytest.raises(
        WorkspaceError, match=r"compiler schema version 9, newer than this uac supports \(2\)"
    ):
        Memory(home)


def test_an_owner_with_new_steps_is_migrated_once(home: Path) -> None:
    Memory(home, create=True).close()
    v1 = Owner("extra", 3, (("CREATE TABLE extra_a (x INT)",),))
    v2 = Owner("extra", 3, (*v1.steps, ("ALTER TABLE extra_a ADD COLUMN y INT",)))
    Store.open(home, owners=[v1]).close()
    with Store.open(home, owners=[v2]) as store:
        cols = [r[0] for r in store.con.execute("DESCRIBE extra_a").fetchall()]
        assert cols == ["x", "y"]
    with Store.open(home, owners=[v2]) as store:  # already there: the ALTER does not run again
        row = store.con.execute("SELECT value FROM meta WHERE key = 'schema_version.extra'")
        assert row.fetchone() == ("2",)


def test_a_search_rebuild_runs_the_search_steps_again(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        mem.add_note("alice", "The gym is on Kastanienallee.", now=T)
        mem.search_index.rebuild()
        assert mem.store.schema_versions()["search"] == 1
        assert [h.text for h in mem.search("alice", "gym", today=TODAY)] == [
            "The gym is on Kastanienallee."
        ]


@NO_LOG
def test_dependencies_point_one_way() -> None:
    """fact_log <- compiler <- checks <- runtime: each owner's tables live in its own layer."""
    import ast

    import uac

    root = Path(uac.__file__).parent
    higher = {
        "fact_log": ("uac.compiler", "uac.checks", "uac.runtime"),
        "compiler": ("uac.checks", "uac.runtime"),
        "checks": ("uac.runtime",),
    }
    for layer, banned in higher.items():
        for path in (root / layer).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = []
                if isinstance(node, ast.ImportFrom) and node.module:
                    names = [node.module]
                elif isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                bad = [n for n in names if n.startswith(banned)]
                assert not bad, f"{path.relative_to(root)} imports {bad}"


_CATALOG = {
    "tables": "SELECT table_name, sql FROM duckdb_tables()",
    "columns": "SELECT table_name, column_index, column_name, data_type, column_default,"
    " is_nullable FROM duckdb_columns()",
    "indexes": "SELECT table_name, index_name, is_unique, is_primary, expressions, sql"
    " FROM duckdb_indexes()",
    "constraints": "SELECT table_name, constraint_index, constraint_type, constraint_text,"
    " constraint_column_names FROM duckdb_constraints()",
    "sequences": "SELECT sequence_name, start_value, increment_by FROM duckdb_sequences()",
    "views": "SELECT view_name, sql FROM duckdb_views() WHERE NOT internal",
}


def _catalog(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        where = " WHERE database_name = current_database()"
        out = {}
        for name, query in _CATALOG.items():
            sql = query + (" AND" + where[6:] if " WHERE " in query else where)
            out[name] = sorted(con.execute(sql).fetchall(), key=repr)
        versions = "SELECT key, value FROM meta WHERE starts_with(key, 'schema_version')"
        out["versions"] = sorted(con.execute(versions).fetchall())
        return out
    finally:
        con.close()


@pytest.mark.duckdb_only("compares the catalog of the DuckDB workspace file")
def test_a_new_workspace_has_the_schema_of_every_step_run_statement_by_statement(
    tmp_path: Path,
) -> None:
    """Creating runs each step as one execute and writes the versions in one statement: the
    file must hold exactly what running every statement alone (the old way) made."""
    Memory(tmp_path / "new", create=True, react=False).close()
    owners = registered()
    assert {o.name for o in owners} >= set(OWNERS), "every owner is imported by now"
    (tmp_path / "old").mkdir()
    con = duckdb.connect(str(tmp_path / "old" / "uac.duckdb"))
    con.execute("BEGIN")
    con.execute(META_DDL)
    for owner in owners:
        for step in owner.steps:
            for statement in step:
                con.execute(statement)
    for owner in owners:
        con.execute(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)", [owner.meta_key, str(owner.version)]
        )
    con.execute("COMMIT")
    con.close()
    new, old = _catalog(tmp_path / "new" / "uac.duckdb"), _catalog(tmp_path / "old" / "uac.duckdb")
    assert all(new[part] for part in ("tables", "columns", "constraints", "versions"))
    assert new == old
