"""Workspaces: creation, schema versions, locking and unusable homes."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from conftest import T0

from uac import Memory
from uac.fact_log.errors import WorkspaceError
from uac.fact_log.store import SCHEMA_VERSION

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL


def test_init_creates_a_versioned_workspace_and_reopens(home: Path) -> None:
    with Memory(home, create=True) as mem:
        assert mem.store.schema_version == SCHEMA_VERSION
        mem.set("alice", "identity.name", "Alice", now=T0)
    with Memory(home, create=True) as mem:  # init again is harmless
        assert len(mem.facts("alice")) == 1
    # A workspace it creates is its owner's only: other local users cannot enter it.
    assert home.stat().st_mode & 0o777 == 0o700


def test_a_writable_open_sweeps_bodies_a_killed_server_left_staged(home: Path) -> None:
    with Memory(home, create=True):
        pass
    left = home / "staging" / "uac-abc" / "big.jsonl"  # as a kill -9 mid-import leaves it
    left.parent.mkdir(parents=True)
    left.write_text('{"name": "Zebraplum"}\n')
    with Memory(home, read_only=True):
        assert left.exists()  # a reader leaves it: the writer may still be reading it
    with Memory(home):
        assert not (home / "staging").exists()


def test_missing_workspace_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(
        WorkspaceError, match=r"no uac workspace at .*missing; create one with: uac --home .* init"
    ):
        Memory(tmp_path / "missing")
    assert not (tmp_path / "missing").exists()


@pytest.mark.duckdb_only("the embedded file's own schema version and format")
def test_newer_schema_version_is_refused(home: Path) -> None:
    Memory(home, create=True).close()
    con = duckdb.connect(str(home / "uac.duckdb"))
    con.execute("UPDATE meta SET value = '999' WHERE key = 'schema_version'")
    con.close()
    for read_only in (False, True):
        with pytest.raises(
            WorkspaceError, match=r"schema version 999, newer than this uac supports"
        ):
            Memory(home, read_only=read_only)


@pytest.mark.duckdb_only("the embedded file's own schema version and format")
def test_older_schema_is_migrated_forward_by_init(home: Path) -> None:
    # A schema-1 workspace had no checkpoints table, so it never held a checkpoint row: write
    # without reacting (no compile), else dropping the table deletes rows the anchors count.
    with Memory(home, create=True, react=False) as mem:
        mem.set("alice", "identity.name", "Alice", now=T0)
    con = duckdb.connect(str(home / "uac.duckdb"))  # make it look like a schema-1 workspace
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    con.execute("DROP TABLE checkpoints")
    con.close()
    with pytest.raises(
        WorkspaceError, match=r"schema version 1; run 'uac --home .* init' to upgrade"
    ):
        Memory(home, read_only=True)
    with Memory(home, create=True, react=False) as mem:
        assert mem.store.schema_version == SCHEMA_VERSION == 3
        assert mem.store.checkpoints(mem.address("alice")) == []
        assert [f.value for f in mem.facts("alice")] == ["Alice"]
        assert mem.verify().ok


@pytest.mark.duckdb_only("the embedded file's own schema version and format")
def test_a_foreign_duckdb_file_is_not_a_workspace(home: Path) -> None:
    home.mkdir()
    con = duckdb.connect(str(home / "uac.duckdb"))
    con.execute("CREATE TABLE other (x INT)")
    con.close()
    with pytest.raises(WorkspaceError, match="not a uac workspace"):
        Memory(home)


def test_home_that_is_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(WorkspaceError, match="cannot create workspace"):
        Memory(tmp_path / "file", create=True)


def _immutable(path: Path, on: bool) -> bool:
    if shutil.which("chattr") is None:
        return False
    done = subprocess.run(["chattr", "+i" if on else "-i", str(path)], capture_output=True)
    return done.returncode == 0


def test_read_only_home_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    # chmod does not stop root, so make the directory immutable where the platform allows.
    immutable = _immutable(ro, True)
    if not immutable and __import__("os").geteuid() == 0:
        pytest.skip("running as root without chattr: cannot make a read-only directory")
    try:
        with pytest.raises(WorkspaceError, match=r"cannot create workspace at .*ro"):
            Memory(ro, create=True)
        with pytest.raises(WorkspaceError, match=r"cannot create workspace at .*ro/sub"):
            Memory(ro / "sub", create=True)
        assert list(ro.iterdir()) == []
    finally:
        if immutable:
            _immutable(ro, False)
        ro.chmod(0o755)


HOLDER = """
import sys, time
from uac import Memory
mem = Memory(sys.argv[1])
print("ready", flush=True)
time.sleep(30)
"""


def test_second_process_gets_a_clear_lock_error_naming_the_holder(home: Path) -> None:
    Memory(home, create=True).close()
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(home)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        for read_only in (False, True):
            with pytest.raises(
                WorkspaceError, match=rf"is in use by process {proc.pid} \(.*python"
            ):
                Memory(home, read_only=read_only)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 60  # a bound for a lock never released, not a timing
    while True:  # the lock is released when the holder dies
        try:
            Memory(home).close()
            break
        except WorkspaceError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
