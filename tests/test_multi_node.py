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
from uac.runtime.api import keys


@pytest.fixture(autouse=True)
def shared_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UAC_CHAIN_KEY_FILE", str(tmp_path / "chain.key"))


def _node(tmp_path: Path, name: str, url: str) -> Memory:
    return Memory(tmp_path / name, create=True, react=False, log_db=url)


def test_a_key_made_on_one_node_works_on_another_until_revoked(tmp_path: Path, pg_url: str) -> None:
    with _node(tmp_path, "a", pg_url) as a, _node(tmp_path, "b", pg_url) as b:
        key_id, token = keys.create(a.store, "acme", "alice", label="agent")
        who = keys.resolve(b.store, token)
        assert who is not None and (who.key_id, who.tenant, who.subject) == (
            key_id,
            "acme",
            "user:alice",
        )
        assert [k["id"] for k in keys.listing(b.store, "acme")] == [key_id]
        keys.revoke(b.store, key_id)
        assert keys.resolve(b.store, token) is None  # at once on the node that revoked it
        # On A within the lookup cache's lifetime (bounded wait, not a timing assertion).
        deadline = time.monotonic() + 10 * keys._CACHE_SECONDS
        while keys.resolve(a.store, token) is not None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert keys.resolve(a.store, token) is None
        assert keys.listing(a.store)[0]["revoked_at"] is not None
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
