"""Several nodes on one PostgreSQL database: keys, search and two real `uac serve` processes.

Nodes are workspaces with their own homes bound to one database (a real throwaway
PostgreSQL cluster, tests/pg_cluster.py); the service test runs two `uac serve` processes
on 127.0.0.1, one per home, and drives them with the stdlib Client.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import T0

from uac import Memory
from uac.runtime.api import api_keys


@pytest.fixture(autouse=True)
def shared_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UAC_CHAIN_KEY_FILE", str(tmp_path / "chain.key"))


def _node(tmp_path: Path, name: str, url: str) -> Memory:
    return Memory(tmp_path / name, create=True, react=False, log_db=url)


def test_a_key_made_on_one_node_works_on_another_until_revoked(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A one-second lookup cache (five in production): the wait below is for its expiry.
    monkeypatch.setattr(api_keys, "_CACHE_SECONDS", 1.0)
    with _node(tmp_path, "a", pg_url) as a, _node(tmp_path, "b", pg_url) as b:
        key_id, token = api_keys.create(a.store, "acme", "alice", label="agent")
        who = api_keys.resolve(b.store, token)
        assert who is not None and (who.key_id, who.tenant, who.subject) == (
            key_id,
            "acme",
            "user:alice",
        )
        assert [k["id"] for k in api_keys.listing(b.store, "acme")] == [key_id]
        api_keys.revoke(b.store, key_id)
        assert api_keys.resolve(b.store, token) is None  # at once on the node that revoked it
        # On A within the lookup cache's lifetime (bounded wait, not a timing assertion).
        deadline = time.monotonic() + 10 * api_keys._CACHE_SECONDS
        while api_keys.resolve(a.store, token) is not None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert api_keys.resolve(a.store, token) is None
        assert api_keys.listing(a.store)[0]["revoked_at"] is not None
        # The workspace files hold no key: they live in the shared database only.
        assert a.store.con.execute("SELECT count(*) FROM api_keys").fetchone() == (0,)


def test_search_finds_another_nodes_older_rows_copied_late(tmp_path: Path, pg_url: str) -> None:
    with _node(tmp_path, "a", pg_url) as a, _node(tmp_path, "b", pg_url) as b:
        a.add_note("alice", "the cabin key is under the blue flowerpot", now=T0)
        b.add_note("bob", "bob parks on level three", now=T0)
        # B indexes past alice's seq (bob's note is newer) before it ever copied alice's rows.
        assert [h.text for h in b.search("bob", "parks")] == ["bob parks on level three"]
        hits = b.search("alice", "flowerpot")
        assert [h.text for h in hits] == ["the cabin key is under the blue flowerpot"]
        a.add_note("alice", "the spare flowerpot key moved to the shed", now=T0)
        assert len(b.search("alice", "flowerpot")) == 2


def _ready(url: str) -> tuple[int, dict]:
    import json
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url + "/readyz", timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_two_serve_nodes_on_one_database_serve_each_others_writes(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg
    from test_serve import _admin, _cli, _key, serving

    from uac import Client
    from uac.runtime.api.client import AccessDenied

    a_home, b_home = tmp_path / "node-a", tmp_path / "node-b"
    for home in (a_home, b_home):
        done = _cli(home, "init", "--db", pg_url)
        assert done.returncode == 0, done.stderr
    with serving(a_home) as a_info, serving(b_home) as b_info:
        for info in (a_info, b_info):
            status, body = _ready(info["url"])
            assert status == 200 and body["database"] == "ok", body
        admin_a = _admin(a_info)
        key = _key(admin_a, "default")  # made through node A ...
        a, b = Client(a_info["url"], key), Client(b_info["url"], key)  # ... used on both
        a.import_records("alice", "allergies", [{"substance": "penicillin"}])
        out = a.call("add", "alice", text="I started taking amoxicillin.")
        assert [x["check"] for x in out["alerts"]] == ["drug_allergy"]
        # Node B: query, checks and search over what node A took.
        assert b.query("alice", "len(user.medications)")["result"] == 1
        assert b.query("alice", "user.allergies[0].substance")["result"] == "penicillin"
        # A's reaction recorded the alert in the shared database:
        checked = b.call("check", "alice")
        assert checked["new"] == [], checked  # B finds it open, never a second one
        assert [x["check"] for x in checked["still_open"]] == ["drug_allergy"], checked
        assert [x.check for x in b.alerts("alice")] == ["drug_allergy"]
        hits = b.search("alice", "amoxicillin")
        assert any("amoxicillin" in h.text for h in hits)
        # A write through B is read through A at once (each read catches up per subject).
        b.set("alice", "identity.name", "Alice")
        assert a.query("alice", "user.identity.name")["result"] == "Alice"
        # A node published checkpoints for the other to fetch, once per distinct checkpoint.
        with psycopg.connect(pg_url) as conn:
            records = conn.execute(
                "SELECT count(*), count(DISTINCT manifest) FROM uac_checkpoints"
            ).fetchone()
        assert records is not None and records[0] >= 2 and records[0] == records[1]
        # Revoked through node A: refused by node B too (within its lookup cache's life).
        key_id = admin_a.request("POST", "/v1/admin/keys/list")[0]["id"]
        admin_a.request("POST", f"/v1/admin/keys/{key_id}/revoke")
        deadline = time.monotonic() + 60
        refused = False
        while not refused and time.monotonic() < deadline:
            try:
                b.subjects()
                time.sleep(0.5)
            except AccessDenied:
                refused = True
        assert refused


def test_readiness_follows_the_shared_database(tmp_path: Path) -> None:
    from pg_cluster import Cluster, find_bin

    from uac.runtime.api import readiness

    assert readiness.readiness(None)[0] is False  # the workspace is still opening
    bindir = find_bin()
    if bindir is None:
        pytest.skip("needs a PostgreSQL 16+ binary")
    cluster = Cluster.start(bindir, durable=True)
    try:
        with _node(tmp_path, "a", cluster.url) as mem:
            ready, body = readiness.readiness(mem)
            assert ready and body["database"] == "ok", body
            cluster._run("pg_ctl", "-D", str(cluster.data), "-w", "-m", "fast", "stop")
            ready, body = readiness.readiness(mem)
            assert not ready and "unavailable" in body["database"], body
            cluster._start(durable=True)
            assert readiness.readiness(mem)[0]
    finally:
        cluster.stop()
