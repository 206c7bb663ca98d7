"""Scripted attacks by someone who can write the workspace (database and generated files)
but does not hold the chain key (kept outside the database, UAC_CHAIN_KEY_FILE on postgres).

Each case plays the attack, then checks that `verify`, an open, the compiler or the loader
refuses the forged state and that nothing forged is ever served. On postgres the log lives
in the shared database: the attacker edits it there.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import duckdb
import pytest

from uac import Memory
from uac.compiler import cache, loader
from uac.fact_log.errors import WorkspaceError
from uac.fact_log.store import CONTENT_COLUMNS, GENESIS, content_hash, fact_id, link_hash

pytestmark = pytest.mark.usefixtures("backend")

T = dt.datetime(2025, 1, 10, 9)
TODAY = dt.date(2025, 1, 10)
EXPIRY = "user.passport.expiry_date"


def _postgres() -> bool:
    return bool(os.environ.get("UAC_DB"))


def _sql(home: Path, *statements: str) -> None:
    """Run statements against the log as the attacker: the DuckDB file, or the shared log."""
    if _postgres():
        import psycopg

        with psycopg.connect(os.environ["UAC_DB"]) as conn:
            for statement in statements:
                conn.execute(statement)  # type: ignore[arg-type]
        return
    _local_sql(home, *statements)


def _rows(home: Path, query: str) -> list[tuple[Any, ...]]:
    if _postgres():
        import psycopg

        with psycopg.connect(os.environ["UAC_DB"]) as conn:
            return conn.execute(query).fetchall()  # type: ignore[arg-type]
    con = duckdb.connect(str(home / "uac.duckdb"), read_only=True)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def _forge(home: Path, seq: int, value: str) -> None:
    """Rewrite fact `seq`'s value and recompute every plain hash, link and id of its chain.

    DuckDB chains every fact after the previous one; PostgreSQL chains each subject's facts
    (the chain head row is moved along too). Keyed digests cannot be recomputed.
    """
    cols = ", ".join(CONTENT_COLUMNS)
    rows = _rows(home, f"SELECT seq, tenant, scope, subject, {cols} FROM facts ORDER BY seq")
    target = next(r for r in rows if r[0] == seq)
    if _postgres():  # only the subject's chain
        rows = [r for r in rows if r[1:4] == target[1:4]]
    prev, statements = GENESIS, []
    hashes = dict(_rows(home, "SELECT seq, hash FROM facts"))
    for row in rows:
        n, content = row[0], list(row[4:])
        if n == seq:
            content[CONTENT_COLUMNS.index("value")] = value
        if n >= seq:
            chash = content_hash(content)
            link = link_hash(n, prev, chash)
            new_value = content[CONTENT_COLUMNS.index("value")]
            quoted = "NULL" if new_value is None else "'" + new_value.replace("'", "''") + "'"
            statements.append(
                f"UPDATE facts SET value = {quoted}, content_hash = '{chash}',"
                f" prev_hash = '{prev}', hash = '{link}', id = '{fact_id(link)}' WHERE seq = {n}"
            )
            prev = link
        else:
            prev = hashes[n]
    if _postgres():
        tenant, scope, subject = target[1:4]
        statements.append(
            f"UPDATE chain_heads SET hash = '{prev}' WHERE tenant = '{tenant}'"
            f" AND scope = '{scope}' AND subject = '{subject}'"
        )
    _sql(home, *statements)


def _fill(home: Path) -> int:
    """maya's passport (compiled as v1); returns the expiry fact's seq."""
    with Memory(home, create=True, react=False) as mem:
        mem.set("maya", "identity.passport.issuing_country", "GB", now=T)
        mem.set("maya", "identity.passport.expiry_date", "2025-03-05", now=T)
        mem.set("maya", "identity.name", "Maya", now=T)
        (res,) = mem.compile("maya")
        assert res.status == "published" and res.version == 1
        assert mem.verify().ok
        return next(f.seq for f in mem.facts("maya") if f.path.endswith("expiry_date"))


def _served(mem: Memory, subject: str, program: str) -> str:
    out = mem.query(subject, program, today=TODAY)
    assert out["ok"], out
    return json.dumps(out["result"], default=str)


# -- 1. keying that cannot be reset from inside the database -------------------------------


def test_a_forged_log_with_its_keying_erased_is_refused_by_verify_and_open(home: Path) -> None:
    seq = _fill(home)
    _forge(home, seq, '"2099-12-31"')
    if _postgres():
        _sql(
            home,
            "UPDATE facts SET mac = NULL",
            "UPDATE chain_heads SET mac = NULL",
            "DELETE FROM uac_meta WHERE key = 'key_check'",
            "DELETE FROM anchors",
        )
    else:
        _sql(
            home,
            "UPDATE facts SET mac = NULL",
            "DELETE FROM meta WHERE key = 'tamper'",
            "DELETE FROM anchors",
        )
    cache.clear()
    with Memory(home, read_only=True) as mem:
        report = mem.verify()
    assert not report.ok, report
    if not _postgres():  # the DuckDB log says why; on postgres every row's digest fails
        assert any("keying record" in p for p in report.problems), report.problems
        with pytest.raises(WorkspaceError, match="no keying record"):
            Memory(home, react=False)
        # ...and nothing re-keys the forged log behind verify's back.
        with Memory(home, read_only=True) as mem:
            assert not mem.verify().ok
    else:
        with Memory(home, react=False) as mem:
            mem.set("maya", "identity.name", "Maya M", now=T)  # the next write
            assert not mem.verify().ok


# -- 2. the compiler folds only what verifies ----------------------------------------------


def test_a_forged_middle_fact_is_never_compiled_or_served(home: Path) -> None:
    seq = _fill(home)
    _forge(home, seq, '"2099-12-31"')
    cache.clear()  # a new process (the CLI) reads the log afresh
    with Memory(home, react=False) as mem:
        if _postgres():  # another node reads the forged rows from the shared log
            mem.close()
            mem = Memory(home.parent / "node-b", create=True, react=False)
        (res,) = mem.compile("maya")
        assert res.status == "failed", res
        assert "integrity" in (res.error or ""), res.error
        if not _postgres():  # the last good checkpoint keeps serving
            assert "2025-03-05" in _served(mem, "maya", EXPIRY)
        assert not any(
            c["status"] == "published" and c["version"] and c["version"] > 1
            for c in mem.store.checkpoints(mem.address("maya"))
        )
        mem.close()


@pytest.mark.duckdb_only("the truncated tail of the one DuckDB chain and its anchors")
@pytest.mark.parametrize("with_anchors", [False, True])
def test_a_truncated_tail_is_never_compiled_or_served(home: Path, with_anchors: bool) -> None:
    _fill(home)
    with Memory(home, react=False) as mem:
        mem.set("maya", "identity.passport.expiry_date", "2026-01-01", now=T)
        (res,) = mem.compile("maya")
        assert res.version == 2
        top = max(f.seq for f in mem.facts("maya"))
    statements = [f"DELETE FROM facts WHERE seq >= {top}"]
    if with_anchors:
        statements.append(f"DELETE FROM anchors WHERE seq >= {top}")
    _sql(home, *statements)
    cache.clear()
    with Memory(home, react=False) as mem:
        (res,) = mem.compile("maya")
        assert res.status == "failed", res
        assert "integrity" in (res.error or ""), res.error
        assert "2026-01-01" in _served(mem, "maya", EXPIRY)


# -- 3. checkpoints bound to their subject, version and log head ---------------------------


def _two_subjects(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        mem.set("alice", "identity.name", "Alice", now=T)
        mem.set("bob", "identity.name", "Bob", now=T)
        mem.compile("alice")
        mem.compile("bob")


def test_a_checkpoint_copied_from_another_subject_is_refused(home: Path) -> None:
    _two_subjects(home)
    with Memory(home, react=False) as mem:
        _, alice = loader.version_dir(home, mem.address("alice"))
        _, bob = loader.version_dir(home, mem.address("bob"))
        shutil.rmtree(alice)
        shutil.copytree(bob, alice)  # bob's signed checkpoint as alice's current one
        with pytest.raises(WorkspaceError, match="bob"):
            mem.query("alice", "user.name", today=TODAY)
        with pytest.raises(WorkspaceError, match="bob"):
            mem.checkpoint("alice")


def test_a_checkpoint_renamed_to_another_version_is_refused(home: Path) -> None:
    _fill(home)
    with Memory(home, react=False) as mem:
        base = loader.subject_dir(home, mem.address("maya"))
        shutil.copytree(base / "versions" / "v000001", base / "versions" / "v000007")
        (base / "current").write_text("v000007\n")
        with pytest.raises(WorkspaceError, match="version"):
            mem.query("maya", EXPIRY, today=TODAY)


def test_the_current_pointer_cannot_roll_back(home: Path) -> None:
    _fill(home)
    with Memory(home, react=False) as mem:
        mem.set("maya", "identity.passport.expiry_date", "2026-01-01", now=T)
        (res,) = mem.compile("maya")
        assert res.version == 2
        base = loader.subject_dir(home, mem.address("maya"))
        (base / "current").write_text("v000001\n")  # the older, genuinely signed version
        with pytest.raises(WorkspaceError, match="rolled back"):
            mem.query("maya", EXPIRY, today=TODAY)
        with pytest.raises(WorkspaceError, match="rolled back"):
            mem.checkpoint("maya")
        # The next compile puts the newest state back.
        mem.set("maya", "identity.name", "Maya R", now=T)
        (res,) = mem.compile("maya")
        assert res.status == "published"
        assert "2026-01-01" in _served(mem, "maya", EXPIRY)


def _plant_bytecode(directory: Path, old: str, new: str) -> None:
    """Compile an edited state.py of the same size and time into the version's __pycache__
    (what the standard import system would run instead of the source)."""
    import py_compile

    source = directory / "state.py"
    text = source.read_text()
    assert old in text and len(new) == len(old)
    forged = directory.parent / "forged" / "state.py"
    forged.parent.mkdir()
    forged.write_text(text.replace(old, new))
    stat = source.stat()
    os.utime(forged, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    pyc = directory / "__pycache__" / f"state.{sys.implementation.cache_tag}.pyc"
    pyc.parent.mkdir(exist_ok=True)
    py_compile.compile(str(forged), cfile=str(pyc), doraise=True)
    shutil.rmtree(forged.parent)


def test_bytecode_planted_beside_a_checkpoint_is_never_run(home: Path) -> None:
    _fill(home)
    with Memory(home, react=False) as mem:
        _, directory = loader.version_dir(home, mem.address("maya"))
        text = (directory / "state.py").read_text()
        old = "2025, 3, 5" if "2025, 3, 5" in text else "2025-3-5"
        _plant_bytecode(directory, old, old.replace("2025", "2099"))
    # Neither the sandbox's zygote (a new process: query) nor the host (why) runs it.
    with Memory(home, react=False) as mem:
        assert "2025-03-05" in _served(mem, "maya", EXPIRY)
        assert "2025-03-05" in json.dumps(mem.why("maya", EXPIRY).value, default=str)


@pytest.mark.duckdb_only("two embedded workspaces keyed by one key file")
def test_a_checkpoint_from_another_log_signed_with_the_same_key_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UAC_CHAIN_KEY_FILE", str(tmp_path / "one.key"))
    for name, expiry in (("w1", "2031-01-01"), ("w2", "2025-03-05")):
        with Memory(tmp_path / name, create=True, react=False) as mem:
            mem.set("maya", "identity.passport.expiry_date", expiry, now=T)
            mem.compile("maya")
    with Memory(tmp_path / "w2", react=False) as mem:
        _, mine = loader.version_dir(mem.home, mem.address("maya"))
        _, theirs = loader.version_dir(tmp_path / "w1", mem.address("maya"))
        shutil.rmtree(mine)
        shutil.copytree(theirs, mine)  # same key, subject and version: only the head differs
        with pytest.raises(WorkspaceError, match="compiled from another log"):
            mem.query("maya", EXPIRY, today=TODAY)


# -- 4. deletions from the other tables ----------------------------------------------------


@pytest.mark.duckdb_only("the DuckDB log's inputs and checkpoints (on postgres: chain_heads)")
@pytest.mark.parametrize(
    ("sql", "finding"),
    [
        ("DELETE FROM checkpoints WHERE id = 1", "checkpoints: 1 of the rows"),
        ("DELETE FROM inputs WHERE seq = 1", "inputs: 1 of the rows"),
    ],
)
def test_a_deleted_middle_row_of_inputs_or_checkpoints_fails_verify(
    home: Path, sql: str, finding: str
) -> None:
    _fill(home)
    with Memory(home, react=False) as mem:
        mem.add("maya", "I moved to Lisbon.", now=T)  # inputs 1 and 2: seq 1 is a middle row
        mem.add("maya", "I like green tea.", now=T)
        mem.compile("maya")
    _sql(home, sql)
    with Memory(home, read_only=True) as mem:
        report = mem.verify()
    assert not report.ok and any(finding in p for p in report.problems), report.problems


def test_the_inputs_tail_cut_with_its_anchors_fails_verify_against_an_export(home: Path) -> None:
    _fill(home)
    with Memory(home, react=False) as mem:
        mem.add("maya", "Just saying hello.", now=T)  # an input with no fact
        exported = mem.anchors()[-1]
        top = max(i.seq for i in mem.inputs("maya"))
    # On postgres the anchor counts the subject's inputs; on DuckDB it names the top input.
    counted = "writes = (SELECT max(writes) FROM anchors)" if _postgres() else f"inputs >= {top}"
    _sql(home, f"DELETE FROM inputs WHERE seq = {top}", f"DELETE FROM anchors WHERE {counted}")
    with Memory(home, read_only=True) as mem:
        report = mem.verify(exported)
    assert not report.ok
    found = ("inputs rows of default/user:maya but the log holds only", "inputs deleted from the")
    assert any(f in p for p in report.problems for f in found), report.problems


def _every_table(home: Path) -> None:
    """maya with rows in every counted table: an alert, a rejection, an inferred schema and
    compile attempts (each write compiles: reactions on); verify passes."""
    with Memory(home, create=True, react=True) as mem:
        mem.set("maya", "identity.passport.issuing_country", "GB", now=T)
        mem.set("maya", "identity.passport.expiry_date", "2025-06-01", now=T)
        trip = {"city": "Bangkok", "country": "TH", "depart": "2025-03-01"}
        mem.import_records("maya", "trips", [trip], now=T)
        mem.import_records("maya", "climbs", [{"route": "Arete", "grade": "5a"}], now=T)
        mem.add("maya", "my password is Gr33nTea!Mug", now=T)  # refused: a rejection row
        mem.compile("maya")
        mem.set("maya", "identity.name", "Maya", now=T)
        mem.compile("maya")
        assert mem.alerts("maya") and mem.rejections("maya", show=True)
        assert len(mem.store.checkpoints(mem.address("maya"))) >= 2
        assert mem.verify().ok


def _local_sql(home: Path, *statements: str) -> None:
    """Run statements against the workspace's own DuckDB file (on postgres: this node's)."""
    con = duckdb.connect(str(home / "uac.duckdb"))
    try:
        for statement in statements:
            con.execute(statement)
    finally:
        con.close()


def _refused(home: Path, finding: str, anchor: dict[str, Any] | None = None) -> None:
    with Memory(home, read_only=True) as mem:
        report = mem.verify(anchor)
    assert not report.ok and any(finding in p for p in report.problems), report.problems


@pytest.mark.parametrize(
    ("sql", "finding"),
    [
        ("DELETE FROM alerts", "alerts: an anchor counts"),
        ("DELETE FROM checkpoints WHERE id = (SELECT max(id) FROM checkpoints)", "checkpoints:"),
        (  # one row deleted, another copied in its place: same count, no gap
            "DELETE FROM checkpoints WHERE id = 1;"
            " INSERT INTO checkpoints SELECT * FROM checkpoints WHERE id = 2",
            "checkpoints: 1 rows repeat",
        ),
    ],
    ids=["alerts", "checkpoints-tail", "checkpoints-swapped"],
)
def test_deleted_rows_of_alerts_or_checkpoints_fail_verify(
    home: Path, sql: str, finding: str
) -> None:
    """Alerts and compile attempts live in the workspace's own file on both backends."""
    _every_table(home)
    _local_sql(home, *sql.split(";"))
    _refused(home, finding)


@pytest.mark.parametrize("table", ["rejections", "schemas"])
def test_deleted_rows_of_rejections_or_schemas_fail_verify(home: Path, table: str) -> None:
    """In the log itself: the DuckDB file, or the shared PostgreSQL log."""
    _every_table(home)
    _sql(home, f"DELETE FROM {table}")
    _refused(home, f"{table} of default/user:maya" if _postgres() else f"{table}: an anchor")


@pytest.mark.parametrize("table", ["rejections", "schemas"])
def test_rows_deleted_with_every_anchor_fail_verify_against_an_export(
    home: Path, table: str
) -> None:
    """Every anchor counting the rows deleted with them: the export still counts them."""
    _every_table(home)
    with Memory(home, read_only=True) as mem:
        exported = mem.anchors()[-1]
    _sql(home, f"DELETE FROM {table}", "DELETE FROM anchors")
    _refused(home, f"{table} rows", exported)


def test_the_anchors_tail_deleted_alone_fails_verify(home: Path) -> None:
    _every_table(home)
    if _postgres():  # each subject's anchors, numbered by its writes
        _sql(home, "DELETE FROM anchors WHERE writes = (SELECT max(writes) FROM anchors)")
        _refused(home, "anchors deleted")
    else:
        _sql(home, "DELETE FROM anchors WHERE seq = (SELECT max(seq) FROM anchors)")
        _refused(home, "named by no anchor")


@pytest.mark.duckdb_only("the inputs and anchors of the one DuckDB log")
def test_the_inputs_tail_cut_with_its_anchors_fails_verify(home: Path) -> None:
    _every_table(home)
    with Memory(home, react=False) as mem:
        mem.add("maya", "Just saying hello.", now=T)  # an input with no fact
        mem.compile("maya")  # a compile attempt anchored after it
        top = max(i.seq for i in mem.inputs("maya"))
    _sql(
        home, f"DELETE FROM inputs WHERE seq = {top}", f"DELETE FROM anchors WHERE inputs >= {top}"
    )
    _refused(home, "rows that no anchor counts")


@pytest.mark.duckdb_only("an anchor exported from the embedded log")
def test_every_table_cut_back_with_its_anchors_fails_verify_against_an_export(
    home: Path,
) -> None:
    """Cutting all of it back to an earlier anchor leaves a consistent file: the witness."""
    _every_table(home)
    with Memory(home, read_only=True) as mem:
        first = next(a for a in mem.anchors(every=True) if a["tally"])
        exported = mem.anchors()[-1]
    counted = json.loads(first["tally"])
    _sql(
        home,
        f"DELETE FROM checkpoints WHERE id > {counted['checkpoints']}",
        "DELETE FROM alerts",
        f"DELETE FROM anchors WHERE tally IS DISTINCT FROM '{first['tally']}'",
    )
    _refused(home, "checkpoints rows but the log holds only", exported)
