"""Checkpoints as shared artifacts (compiler/shared_checkpoints.py,
fact_log/backends/pg_artifacts.py).

Two workspaces ("nodes") bound to one real PostgreSQL database: a checkpoint compiled on one
is fetched, verified and served by the other; a stale or corrupted cache is noticed by digest;
a shared copy that does not match its digest or signature is never served.
"""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest
from conftest import T0
from conftest import pg_node as _node

from uac import Memory
from uac.compiler import loader, shared_checkpoints
from uac.fact_log.addressing import parse_subject
from uac.fact_log.backends.pg_artifacts import DirArtifacts, digest

ALICE = parse_subject("alice")
QUERY = "user.identity.name"


@pytest.fixture(autouse=True)
def no_shared_dir(shared_key: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UAC_ARTIFACTS", raising=False)  # the database holds the artifacts


def _fetched(mem: Memory) -> list[str | None]:
    """Per published checkpoint row: the manifest it was fetched as (None: compiled here)."""
    return [
        json.loads(c["timings"]).get("fetched")
        for c in mem.store.checkpoints(ALICE)
        if c["status"] == "published"
    ]


def _files(mem: Memory, manifest: str) -> dict[str, str]:
    path = mem.home / shared_checkpoints.CACHE / manifest[:2] / manifest
    return json.loads(path.read_bytes())["files"]


def _dir_records(root: Path) -> list[tuple[int, int, str]]:
    latest = DirArtifacts(root).latest(ALICE)
    (folder,) = (root / "checkpoints").iterdir()  # one subject: one folder of records
    found = sorted(DirArtifacts._all(folder), key=lambda r: r.version)
    assert latest is not None and latest == found[-1]
    return [(r.version, r.watermark, r.manifest) for r in found]


def _records(url: str) -> list[tuple[int, int, str]]:
    with psycopg.connect(url) as conn:
        return conn.execute(
            "SELECT version, watermark, manifest FROM uac_checkpoints WHERE subject = 'alice'"
            " ORDER BY version"
        ).fetchall()


@pytest.mark.parametrize("where", ["database", "directory"])
def test_a_checkpoint_compiled_on_one_node_is_served_by_another(
    tmp_path: Path, pg_url: str, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if where == "directory":  # UAC_ARTIFACTS: a directory every node mounts
        monkeypatch.setenv("UAC_ARTIFACTS", str(tmp_path / "shared"))
    with _node(tmp_path, "a", pg_url) as a, _node(tmp_path, "b", pg_url) as b:
        a.set("alice", "identity.name", "Alice", now=T0)
        (res,) = a.compile("alice")
        assert res.status == "published"
        (rec,) = _records(pg_url) if where == "database" else _dir_records(tmp_path / "shared")
        manifest = digest((res.directory / loader.FILES).read_bytes())
        assert rec == (1, res.watermark, manifest)
        # B has the log but never compiled: it fetches A's checkpoint instead.
        assert b.query("alice", QUERY)["result"] == "Alice"
        assert _fetched(b) == [manifest]
        served = loader.load(b.home, ALICE)
        assert (served.directory / loader.FILES).read_bytes() == (
            res.directory / loader.FILES
        ).read_bytes()
        # Compiling the same log on B gives the same bytes: publishing it again adds no record.
        (again,) = b.compile("alice")
        assert again.status == "published"
        after = _records(pg_url) if where == "database" else _dir_records(tmp_path / "shared")
        assert after == [rec]


def test_a_stale_node_notices_by_digest_and_refreshes(tmp_path: Path, pg_url: str) -> None:
    with _node(tmp_path, "a", pg_url) as a, _node(tmp_path, "b", pg_url) as b:
        a.set("alice", "identity.name", "Alice", now=T0)
        a.compile("alice")
        assert b.query("alice", QUERY)["result"] == "Alice"
        a.set("alice", "identity.name", "Alicia", now=T0)
        a.compile("alice")
        newest = _records(pg_url)[-1]
        assert b.query("alice", QUERY)["result"] == "Alicia"
        assert _fetched(b)[-1] == newest[2]
        # A cached blob altered on disk is noticed by its digest and fetched again.
        a.set("alice", "identity.name", "Ali", now=T0)
        (res,) = a.compile("alice")
        unchanged = set(_files(b, newest[2]).values()) & set(
            json.loads((res.directory / loader.FILES).read_text())["files"].values()
        )
        assert unchanged  # files the two versions share: B reuses them from its cache
        blob = b.home / shared_checkpoints.CACHE / min(unchanged)[:2] / min(unchanged)
        blob.write_bytes(b"tampered")
        assert b.query("alice", QUERY)["result"] == "Ali"
        assert digest(blob.read_bytes()) == blob.name


def test_a_shared_copy_that_does_not_match_is_never_served(tmp_path: Path, pg_url: str) -> None:
    with _node(tmp_path, "a", pg_url) as a, _node(tmp_path, "b", pg_url) as b:
        a.set("alice", "identity.name", "Alice", now=T0)
        a.compile("alice")
        with psycopg.connect(pg_url) as conn:  # someone with database access edits a file
            conn.execute(
                "UPDATE uac_blobs SET data = convert_to('result = 1', 'UTF8') WHERE digest IN"
                " (SELECT digest FROM uac_blobs ORDER BY digest LIMIT 3)"
            )
        assert b.stale("alice")  # what the service's query does first
        b.compile("alice")
        # B refuses the copy and compiles from the log itself: the right answer, no fetch.
        assert b.query("alice", QUERY)["result"] == "Alice"
        assert _fetched(b) == [None]
        # B's publication of the same checkpoint repaired the damaged blobs.
        with psycopg.connect(pg_url) as conn:
            assert conn.execute(
                "SELECT count(*) FROM uac_blobs WHERE encode(sha256(data), 'hex') <> digest"
            ).fetchone() == (0,)
    with _node(tmp_path, "c", pg_url) as c:
        with psycopg.connect(pg_url) as conn:  # a record whose signature is not the key's
            conn.execute("UPDATE uac_checkpoints SET signature = 'f' || signature")
        assert shared_checkpoints.fetch(c.store, ALICE) is None
        assert loader.current_version(c.home, ALICE) is None
        c.compile("alice")  # C compiles the same checkpoint; its publication repairs the record
    with _node(tmp_path, "d", pg_url) as d:
        assert shared_checkpoints.fetch(d.store, ALICE) is not None
        assert _fetched(d) == [_records(pg_url)[0][2]]


def test_the_same_checkpoint_published_twice_is_one_record(tmp_path: Path) -> None:
    store = DirArtifacts(tmp_path / "shared")
    record = {"manifest": "ab" * 32, "watermark": 7, "head_id": "h", "facts": 3, "signature": "s"}
    first = store.publish(ALICE, record)
    assert store.publish(ALICE, record) == first and first.version == 1
    newer = store.publish(ALICE, {**record, "manifest": "cd" * 32, "watermark": 9})
    assert newer.version == 2 and store.latest(ALICE) == newer
    store.put({digest(b"x"): b"x"})
    assert store.get([digest(b"x"), digest(b"y")]) == {digest(b"x"): b"x"}
    assert store.missing([digest(b"x"), digest(b"y")]) == {digest(b"y")}


@pytest.mark.parametrize("where", ["database", "directory"])
def test_gc_keeps_only_the_newest_shared_checkpoint(
    tmp_path: Path, pg_url: str, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if where == "directory":
        monkeypatch.setenv("UAC_ARTIFACTS", str(tmp_path / "shared"))

    def records() -> list[tuple[int, int, str]]:
        if where == "database":
            return _records(pg_url)
        found = DirArtifacts._all(DirArtifacts(tmp_path / "shared")._records(ALICE))
        return sorted((r.version, r.watermark, r.manifest) for r in found)

    with _node(tmp_path, "a", pg_url) as a, _node(tmp_path, "b", pg_url) as b:
        for name in ("Alice", "Alicia", "Ali"):
            a.set("alice", "identity.name", name, now=T0)
            a.compile("alice")
        a.set("bob", "identity.name", "Bob", now=T0)
        a.compile("bob")
        old = records()
        assert [r[0] for r in old] == [1, 2, 3]
        shared_files = [set(json.loads(_blob(a, r[2]))["files"].values()) for r in old]
        bob = a.store.backend.artifacts.latest(parse_subject("bob"))  # type: ignore[union-attr]
        assert bob is not None
        kept = shared_files[2] | set(json.loads(_blob(a, bob.manifest))["files"].values())
        out = a.gc()
        assert records() == old[-1:]  # only the newest record of alice is left
        # Blobs only the dropped records named are gone; the newest's (and bob's) stay.
        dropped = ({old[0][2], old[1][2]} | shared_files[0] | shared_files[1]) - kept
        assert out["shared_blobs"] == len(dropped) > 0
        artifacts = a.store.backend.artifacts  # type: ignore[union-attr]
        assert artifacts.missing(dropped) == dropped
        assert not artifacts.missing({old[2][2], bob.manifest, *kept})
        # Another node still serves both subjects, fetching what is left.
        assert b.query("alice", QUERY)["result"] == "Ali"
        assert b.query("bob", QUERY)["result"] == "Bob"
        assert a.gc()["shared_blobs"] == 0  # nothing more to drop


def _blob(mem: Memory, key: str) -> bytes:
    data = mem.store.backend.artifacts.get([key])  # type: ignore[union-attr]
    return data[key]


def test_gc_of_a_local_workspace_reports_no_shared_blobs(tmp_path: Path) -> None:
    with Memory(tmp_path / "local", create=True, react=False) as mem:
        mem.set("alice", "identity.name", "Alice", now=T0)
        mem.compile("alice")
        assert "shared_blobs" not in mem.gc()
