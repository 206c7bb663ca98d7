"""Tamper evidence: keyed chain digests, sealed tables, anchors, signed checkpoints, rotation.

Every test tampers with a real workspace file the way an attacker with write access to the
DuckDB file (but not the key file) would, then checks that `verify` or the loader says so.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import pytest

from uac import Memory
from uac.checks import evaluate
from uac.compiler import loader
from uac.fact_log import tamper
from uac.fact_log.chain_keys import KeyRing, row_message
from uac.fact_log.errors import WorkspaceError
from uac.fact_log.store import CONTENT_COLUMNS, GENESIS, content_hash, fact_id, link_hash
from uac.runtime.cli import main

pytestmark = [
    pytest.mark.usefixtures("backend"),
    pytest.mark.duckdb_only(
        "tampers with the embedded DuckDB file; a log in PostgreSQL is tampered with in"
        " test_log_backends.py"
    ),
]
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("key files alone: no log")

T = dt.datetime(2025, 1, 10, 9)
TODAY = dt.date(2025, 1, 10)


def _fill(home: Path) -> None:
    """A workspace with rows in every sealed table (facts, inputs, rejections, schemas,
    checkpoints, alerts, anchors)."""
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
        assert mem.verify().ok


@pytest.fixture
def filled(home: Path) -> Path:
    _fill(home)
    return home


def _sql(home: Path, *statements: str) -> None:
    con = duckdb.connect(str(home / "uac.duckdb"))
    for statement in statements:
        con.execute(statement)
    con.close()


def _verify(home: Path, anchor: dict | None = None):
    with Memory(home, read_only=True) as mem:
        return mem.verify(anchor)


def test_a_fresh_workspace_seals_every_row_with_a_key_kept_outside_the_database(
    filled: Path,
) -> None:
    key = filled / "keys" / "chain.key"
    assert key.stat().st_mode & 0o777 == 0o600
    assert (filled / "keys").stat().st_mode & 0o777 == 0o700
    secret = json.loads(key.read_text())["keys"]["k1"]
    assert secret not in (filled / "uac.duckdb").read_bytes().hex()
    con = duckdb.connect(str(filled / "uac.duckdb"), read_only=True)
    for table in ("facts", "inputs", "rejections", "schemas", "checkpoints", "alerts", "anchors"):
        total, unsigned = con.execute(
            f"SELECT count(*), count(*) FILTER (WHERE mac IS NULL) FROM {table}"
        ).fetchone()
        assert total > 0 and unsigned == 0, table
    # One anchor per commit, naming the head the commit left.
    anchors = con.execute("SELECT seq, head FROM anchors ORDER BY seq").fetchall()
    heads = dict(con.execute("SELECT seq, hash FROM facts").fetchall())
    assert all(heads[seq] == head for seq, head in anchors if seq)
    con.close()
    report = _verify(filled)
    assert report.ok and report.problems == () and report.keyed_from == 1


@pytest.mark.parametrize(
    ("table", "sql"),
    [
        ("inputs", "UPDATE inputs SET content = 'I am not allergic to anything.' WHERE seq = 1"),
        ("rejections", "UPDATE rejections SET reason = 'nothing to see'"),
        ("schemas", 'UPDATE schemas SET fields = \'{"grade":"int","route":"str"}\''),
        ("checkpoints", "UPDATE checkpoints SET watermark = 999999"),
        ("alerts", "UPDATE alerts SET status = 'resolved', resolved_on = DATE '2025-01-10'"),
        ("alerts", "UPDATE alerts SET why = 'nothing to worry about'"),
        ("alerts", "UPDATE alerts SET next_step = 'ignore this alert'"),
        ("anchors", "UPDATE anchors SET recorded_at = TIMESTAMP '2030-01-01'"),
        ("inputs", "UPDATE inputs SET mac = NULL WHERE seq = 1"),  # "it predates keying"
    ],
)
def test_an_edit_to_any_sealed_table_is_reported_per_table(
    filled: Path, table: str, sql: str
) -> None:
    _sql(filled, sql)
    report = _verify(filled)
    assert not report.ok
    assert report.problem is None  # the fact chain itself is intact
    assert [p.split(":")[0] for p in report.problems] == [table]
    assert "does not match its keyed digest" in report.problems[0]


def _seal_alerts_as_version_1(home: Path, edit: str | None = None) -> None:
    """Put a workspace back where alert rows were signed without why/next_step (seal v1)."""
    from uac.fact_log.chain_keys import row_message
    from uac.fact_log.tamper import META_KEY, SEALED, read_record

    ring = KeyRing.load(home)
    spec = SEALED["alerts"]
    con = duckdb.connect(str(home / "uac.duckdb"))
    cols = ", ".join(spec.columns_of(1))
    for rowid, *values in con.execute(f"SELECT rowid, {cols} FROM alerts").fetchall():
        mac = ring.sign(row_message("alerts", values))
        con.execute("UPDATE alerts SET mac = ? WHERE rowid = ?", [mac, rowid])
    record, problem = read_record(con, ring)
    assert problem is None and "alerts@2" in record["tables"]
    record["tables"] = ["alerts" if t == "alerts@2" else t for t in record["tables"]]
    message = "meta:" + json.dumps(record, sort_keys=True, separators=(",", ":"))
    value = json.dumps({"record": record, "mac": ring.sign(message)})
    con.execute("UPDATE meta SET value = ? WHERE key = ?", [value, META_KEY])
    if edit:
        con.execute(edit)
    con.close()


def _reverse(table: str) -> list[str]:
    """Statements storing a table's rows in the reverse of their order (same rows, same
    digests): a walk that reads them as stored meets them out of order."""
    return [
        f"CREATE TABLE _reversed AS SELECT * FROM {table} ORDER BY rowid DESC",
        f"DELETE FROM {table}",
        f"INSERT INTO {table} SELECT * FROM _reversed",
        "DROP TABLE _reversed",
    ]


def test_rows_stored_out_of_order_verify_and_the_oldest_bad_row_is_named(filled: Path) -> None:
    # verify reads the log and each sealed table as stored and sorts only one with a problem:
    # the same answers as a walk in order, whatever order the file holds the rows in.
    _sql(filled, *_reverse("facts"), *_reverse("inputs"))
    con = duckdb.connect(str(filled / "uac.duckdb"), read_only=True)
    stored = [r[0] for r in con.execute("SELECT seq FROM inputs").fetchall()]
    facts = [r[0] for r in con.execute("SELECT seq FROM facts").fetchall()]
    con.close()
    assert stored == sorted(stored, reverse=True) and len(stored) > 2
    assert facts == sorted(facts, reverse=True) and len(facts) > 2
    report = _verify(filled)
    assert report.ok and report.checked == len(facts), report
    first, last = min(stored), max(stored)
    _sql(filled, f"UPDATE inputs SET content = 'edited' WHERE seq IN ({first}, {last})")
    report = _verify(filled)
    assert [p for p in report.problems if p.startswith("inputs:")] == [
        f"inputs: row seq={first}, id={_input_id(filled, first)} does not match its keyed digest"
        " (edited)"
    ]
    _sql(filled, f"UPDATE facts SET text = 'edited' WHERE seq IN (2, {len(facts)})")
    report = _verify(filled)
    assert (report.ok, report.broken_seq, report.checked) == (False, 2, 1)


def _input_id(home: Path, seq: int) -> str:
    con = duckdb.connect(str(home / "uac.duckdb"), read_only=True)
    found = con.execute("SELECT id FROM inputs WHERE seq = ?", [seq]).fetchone()
    con.close()
    assert found is not None
    return str(found[0])


def test_alerts_signed_before_why_was_sealed_are_resigned_once_if_untouched(
    filled: Path,
) -> None:
    _seal_alerts_as_version_1(filled)
    assert _verify(filled).ok  # a read-only open checks them under the version they carry
    with Memory(filled) as mem:  # the first writable open re-signs them under version 2
        assert mem.verify().ok
    _sql(filled, "UPDATE alerts SET why = 'nothing to worry about'")
    assert [p.split(":")[0] for p in _verify(filled).problems] == ["alerts"]


def test_an_alert_edited_before_the_seal_upgrade_is_not_blessed_by_it(filled: Path) -> None:
    _seal_alerts_as_version_1(filled, "UPDATE alerts SET status = 'resolved'")
    with Memory(filled) as mem:
        report = mem.verify()
    assert [p.split(":")[0] for p in report.problems] == ["alerts"]


def test_deleting_the_last_facts_is_caught_by_the_anchors(filled: Path) -> None:
    _sql(filled, "DELETE FROM facts WHERE seq = (SELECT max(seq) FROM facts)")
    report = _verify(filled)
    assert not report.ok and report.problem is None
    assert any("no longer holds" in p for p in report.problems), report.problems


def test_deleting_facts_and_anchors_together_is_caught_by_the_rows_they_counted(
    filled: Path,
) -> None:
    top = _verify(filled).checked
    _sql(
        filled,
        f"DELETE FROM facts WHERE seq >= {top - 1}",
        f"DELETE FROM anchors WHERE seq >= {top - 1}",
    )
    report = _verify(filled)  # the checkpoint and alerts written later are counted by no anchor
    assert not report.ok
    assert any("rows that no anchor counts" in p for p in report.problems), report.problems


def test_an_older_copy_of_the_whole_file_is_caught_by_an_exported_anchor(
    filled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, backup = filled / "uac.duckdb", filled.parent / "backup.duckdb"
    assert not db.with_name("uac.duckdb.wal").exists()  # closed: the file is whole
    shutil.copyfile(db, backup)  # a backup taken now...
    with Memory(filled, react=False) as mem:
        mem.set("maya", "identity.name", "Maya", now=T)
    assert main(["--home", str(filled), "anchor", "export"]) == 0
    exported = json.loads(capsys.readouterr().out)
    saved = filled.parent / "anchor.json"
    saved.write_text(json.dumps(exported))
    assert main(["--home", str(filled), "verify", "--anchor", str(saved)]) == 0
    capsys.readouterr()
    db.with_name("uac.duckdb.wal").unlink(missing_ok=True)
    backup.replace(db)  # ...put back later
    assert _verify(filled).ok  # nothing inside the file contradicts the older, whole file...
    assert main(["--home", str(filled), "verify", "--anchor", str(saved)]) == 1
    out = capsys.readouterr().out
    assert f"the exported anchor's seq {exported['seq']} is gone" in out  # ...but the witness does


def _plain_rewrite(home: Path, seq: int, value: str) -> None:
    """Forge fact `seq` and recompute every plain content hash, link and id after it."""
    con = duckdb.connect(str(home / "uac.duckdb"))
    cols = ", ".join(CONTENT_COLUMNS)
    rows = con.execute(f"SELECT seq, prev_hash, {cols} FROM facts ORDER BY seq").fetchall()
    prev = GENESIS
    for row in rows:
        n, content = row[0], list(row[2:])
        if n == seq:
            content[CONTENT_COLUMNS.index("value")] = value
        if n >= seq:
            chash = content_hash(content)
            link = link_hash(n, prev, chash)
            con.execute(
                "UPDATE facts SET value = ?, content_hash = ?, prev_hash = ?, hash = ?, id = ?"
                " WHERE seq = ?",
                [content[CONTENT_COLUMNS.index("value")], chash, prev, link, fact_id(link), n],
            )
            prev = link
        else:
            prev = con.execute("SELECT hash FROM facts WHERE seq = ?", [n]).fetchone()[0]
    con.execute(  # the anchors too, so nothing unkeyed contradicts the forgery
        "UPDATE anchors SET head = (SELECT hash FROM facts WHERE facts.seq = anchors.seq)"
        " WHERE seq > 0"
    )
    con.close()


def test_a_chain_rewritten_with_recomputed_plain_hashes_fails_the_keyed_digest(
    filled: Path,
) -> None:
    with Memory(filled, react=False) as mem:
        expiry = next(f for f in mem.facts("maya") if f.path.endswith("expiry_date"))
    _plain_rewrite(filled, expiry.seq, '"2099-12-31"')
    report = _verify(filled)
    assert not report.ok
    assert report.broken_seq == expiry.seq
    assert "keyed digest does not match" in (report.problem or "")


def _edit_checkpoint(home: Path) -> Path:
    """Change a value in the current generated state.py and make files.json match again."""
    with Memory(home, react=False) as mem:
        _, directory = loader.version_dir(home, mem.address("maya"))
    state = directory / "state.py"
    text = state.read_text()
    assert "2025-3-5" in text or "2025, 3, 5" in text
    state.write_text(text.replace("2025, 3, 5", "2099, 3, 5").replace("2025-3-5", "2099-3-5"))
    meta = json.loads((directory / loader.FILES).read_text())
    meta["files"]["state.py"] = hashlib.sha256(state.read_bytes()).hexdigest()
    (directory / loader.FILES).write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    return directory


def test_an_edited_checkpoint_with_a_matching_files_json_is_refused(filled: Path) -> None:
    directory = _edit_checkpoint(filled)
    assert (
        loader.file_digests(directory)
        == json.loads((directory / loader.FILES).read_text())["files"]
    )  # the plain digests agree: only the signature stands between the edit and a query
    with Memory(filled, react=False) as mem:
        with pytest.raises(WorkspaceError, match=r"signature that does not match its files\.json"):
            loader.load(filled, mem.address("maya"))
        with pytest.raises(WorkspaceError, match="signature that does not match"):
            mem.query("maya", "user.passport.expiry_date", today=TODAY)
        # A recompile does not reuse the edited files: it publishes a clean version.
        (res,) = mem.compile("maya")
        assert res.status == "published"
        out = mem.query("maya", "user.passport.expiry_date", today=TODAY)
        assert "2025-03-05" in json.dumps(out, default=str)


def test_an_unsigned_checkpoint_is_refused(filled: Path) -> None:
    with Memory(filled, react=False) as mem:
        _, directory = loader.version_dir(filled, mem.address("maya"))
        (directory / loader.SIGNATURE).unlink()
        with pytest.raises(WorkspaceError, match="is not signed; recompile it"):
            loader.load(filled, mem.address("maya"))


def test_alert_lifecycle_updates_keep_their_digests_current(filled: Path) -> None:
    with Memory(filled, react=False) as mem:
        (alert,) = [a for a in mem.alerts("maya") if a.status == "open"][:1]
        mem.acknowledge("maya", alert.id, today=TODAY)
        mem.snooze("maya", alert.id, TODAY + dt.timedelta(days=3), today=TODAY)
        evaluate(mem.store, mem.home, mem.address("maya"), TODAY + dt.timedelta(days=5))
        assert mem.verify().ok
    _sql(filled, f"UPDATE alerts SET snoozed_until = DATE '2099-01-01' WHERE id = '{alert.id}'")
    assert [p.split(":")[0] for p in _verify(filled).problems] == ["alerts"]


def test_key_rotation_keeps_old_rows_verifying_and_signs_new_ones_with_the_new_key(
    filled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--home", str(filled), "keys", "rotate-chain"]) == 0
    assert "signed with k2" in capsys.readouterr().out
    with Memory(filled, react=False) as mem:
        mem.set("maya", "identity.name", "Maya", now=T)
        mem.compile("maya")
        loader.load(filled, mem.address("maya"))
        macs = [f.mac for f in mem.facts("maya")]
        assert macs[0].startswith("k1:") and macs[-1].startswith("k2:")
        assert mem.verify().ok
    ring = json.loads((filled / "keys" / "chain.key").read_text())
    assert ring["current"] == "k2" and sorted(ring["keys"]) == ["k1", "k2"]
    # Without the old key the old rows no longer verify: rotation must keep it.
    del ring["keys"]["k1"]
    (filled / "keys" / "chain.key").write_text(json.dumps(ring))
    report = _verify(filled)
    assert not report.ok and report.broken_seq == 1


def test_a_keyed_workspace_never_gets_a_new_key_silently(filled: Path) -> None:
    (filled / "keys" / "chain.key").rename(filled / "chain.key.bak")
    with pytest.raises(WorkspaceError, match=r"chain key file .* is missing; restore it"):
        Memory(filled)
    report = _verify(filled)  # a read-only open still reads, and says why it cannot check
    assert not report.ok and any("is missing" in p for p in report.problems)
    (filled / "chain.key.bak").rename(filled / "keys" / "chain.key")
    assert _verify(filled).ok


def test_the_key_file_can_live_outside_the_workspace(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "secrets" / "uac-chain.key"
    monkeypatch.setenv("UAC_CHAIN_KEY_FILE", str(elsewhere))
    with Memory(home, create=True, react=False) as mem:
        mem.set("alice", "identity.name", "Alice", now=T)
        assert mem.verify().ok
    assert elsewhere.exists() and not (home / "keys").exists()
    # A second workspace given the same, already existing key file starts keying with it.
    with Memory(tmp_path / "other", create=True, react=False) as mem:
        mem.set("bob", "identity.name", "Bob", now=T)
        report = mem.verify()
        assert report.ok and report.keyed_from == 1, report


@NO_LOG
def test_nodes_making_a_shared_key_file_at_once_agree_on_one_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Nodes of one log share UAC_CHAIN_KEY_FILE; two binding at the same instant both find no
    # file. Each must end with the one ring on disk, never an "already exists" failure.
    shared = tmp_path / "shared" / "chain.key"
    monkeypatch.setenv("UAC_CHAIN_KEY_FILE", str(shared))
    start = threading.Barrier(8)

    def make(i: int) -> KeyRing:
        start.wait()
        return KeyRing.create(tmp_path / f"node{i}")

    with ThreadPoolExecutor(8) as pool:
        rings = list(pool.map(make, range(8)))
    on_disk = KeyRing.load(tmp_path / "node0")
    assert on_disk is not None and {r.keys["k1"] for r in rings} == {on_disk.keys["k1"]}
    assert sorted(p.name for p in shared.parent.iterdir()) == ["chain.key"]  # no temp left
    assert shared.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM meta WHERE key = 'tamper'",
        # Claim keying started later, so the keyed rows would pass as plain ones.
        "UPDATE meta SET value = replace(value, '\"facts_from\": 1', '\"facts_from\": 999')"
        " WHERE key = 'tamper'",
    ],
)
def test_the_keying_record_cannot_be_removed_or_moved(filled: Path, sql: str) -> None:
    _sql(filled, sql)
    report = _verify(filled)
    assert not report.ok
    assert any("keying record" in p for p in report.problems), report.problems


def test_a_workspace_keyed_before_anchors_counted_rows_upgrades_and_then_counts_them(
    filled: Path,
) -> None:
    """Put the file back as the previous version wrote it (anchors without a tally, sealed
    under their first column list, keying record naming `anchors`): the next writable open
    re-signs the anchors, anchors the tally, and a deleted alert shows from then on."""
    ring = KeyRing.load(filled)
    assert ring is not None
    con = duckdb.connect(str(filled / "uac.duckdb"))
    con.execute("ALTER TABLE anchors DROP COLUMN tally")
    rows = con.execute("SELECT rowid, seq, head, facts, inputs, recorded_at FROM anchors")
    for rowid, *values in rows.fetchall():
        mac = ring.sign(row_message("anchors", values))
        con.execute("UPDATE anchors SET mac = ? WHERE rowid = ?", [mac, rowid])
    stored = json.loads(con.execute("SELECT value FROM meta WHERE key = 'tamper'").fetchone()[0])
    record = stored["record"]
    record["tables"] = ["anchors" if t == "anchors@2" else t for t in record["tables"]]
    value = json.dumps({"record": record, "mac": ring.sign(tamper._meta_message(record))})
    con.execute("UPDATE meta SET value = ? WHERE key = 'tamper'", [value])
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version.tamper'")
    con.close()
    assert _verify(filled).ok  # the previous format, read as it is
    Memory(filled, react=False).close()  # the upgrade
    assert _verify(filled).ok
    _sql(filled, "DELETE FROM alerts")
    report = _verify(filled)
    assert any("alerts: an anchor counts" in p for p in report.problems), report.problems
