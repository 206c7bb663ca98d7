"""A write sent again with its Idempotency-Key is done once, even across a server kill.

A real `uac serve` (tests/test_serve.py `serving`) is killed with SIGKILL after it committed
a write and stored its answer but before it answered (the fault point
runtime/api/idempotency.py `KILL_BEFORE_ANSWER`); the client saw only a broken connection.
Retried with the same key on the restarted server, the write is not stored again and the
first answer comes back. Killed earlier — after the commit, before the write's reaction and
before any answer was stored (runtime/api/reactor.py `CRASH_BEFORE_REACTION`) — the key was
recorded in the write's own transaction, so the retry answers from the committed write.
Killed before the commit (`KILL_AFTER_CLAIM`), nothing was written: the retry writes once
where the server is the log's only writer (DuckDB); on a shared log another node might still
be running it, so the retry is refused with 409 rather than risk a second write. A streamed
import (a file too big to hold) is marked before it starts, and its repeat refused.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
from test_serve import _admin, _key, serving

from uac import Memory
from uac.fact_log import importer
from uac.fact_log.backends import write_keys
from uac.fact_log.errors import InputError
from uac.fact_log.store import utc_now
from uac.runtime.api import idempotency
from uac.runtime.api.client import Client, ServiceError
from uac.runtime.api.idempotency import KILL_AFTER_CLAIM, KILL_BEFORE_ANSWER
from uac.runtime.api.reactor import CRASH_BEFORE_REACTION

pytestmark = pytest.mark.usefixtures("backend")  # the key table on DuckDB and PostgreSQL

PATH = "identity.passport.expiry_date"


def test_a_write_retried_after_a_kill_between_commit_and_answer_is_stored_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "ws"
    with serving(home) as info:
        key = _key(_admin(info), "default")
        client = Client(info["url"], key)
        client.set("bob", PATH, "2031-01-01")  # the workspace and the key exist before
    monkeypatch.setenv(KILL_BEFORE_ANSWER, "1")
    with serving(home, stop=False) as info:
        client = Client(info["url"], key)
        with pytest.raises(ServiceError):  # the connection broke: outcome unknown to it
            client.call("set", "alice", idempotency_key="trip-1", path=PATH, value="2030-05-01")
        assert info["proc"].wait(timeout=60) == -signal.SIGKILL
    monkeypatch.delenv(KILL_BEFORE_ANSWER)
    with Memory(home, read_only=True) as mem:  # the write was committed before the kill
        (committed,) = mem.facts("alice")
    with serving(home) as info:
        client = Client(info["url"], key)
        first = client.call("set", "alice", idempotency_key="trip-1", path=PATH, value="2030-05-01")
        again = client.call("set", "alice", idempotency_key="trip-1", path=PATH, value="2030-05-01")
        assert first == again and first["id"] == committed.id  # the first answer, replayed
        assert [f.id for f in client.facts("alice")] == [first["id"]]  # stored once
        # one key stands for one request: another body under it is refused, nothing written
        with pytest.raises(InputError, match="another request"):
            client.call("set", "alice", idempotency_key="trip-1", path=PATH, value="2032-01-01")
        # without the same key a write is a new write; a refused write's answer is kept too
        client.set("alice", PATH, "2032-01-01")
        assert len(client.facts("alice")) == 2
        for _ in range(2):
            with pytest.raises(InputError, match="bad-date"):
                client.call("set", "alice", idempotency_key="typo", path=PATH, value="bad-date")
        assert len(client.facts("alice")) == 2


def test_a_write_retried_after_a_kill_between_commit_and_storing_its_answer_is_stored_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "ws"
    with serving(home) as info:
        key = _key(_admin(info), "default")
    monkeypatch.setenv(CRASH_BEFORE_REACTION, "1")  # dies after each write's commit
    calls = {
        "set-1": ("set", {"path": PATH, "value": "2030-05-01"}),
        "msg-1": ("add", {"text": "I booked a trip to Lisbon from 2030-06-01 to 2030-06-09."}),
    }
    for idem, (verb, fields) in calls.items():
        with serving(home, stop=False) as info:
            with pytest.raises(ServiceError):  # the connection broke: outcome unknown to it
                Client(info["url"], key).call(verb, "alice", idempotency_key=idem, **fields)
            assert info["proc"].wait(timeout=60) == -signal.SIGKILL
    monkeypatch.delenv(CRASH_BEFORE_REACTION)
    with Memory(home, read_only=True) as mem:  # both writes were committed before the kills
        committed = [f.id for f in mem.facts("alice")]
    assert len(committed) >= 2
    with serving(home) as info:
        client = Client(info["url"], key)
        verb, fields = calls["set-1"]
        first = client.call(verb, "alice", idempotency_key="set-1", **fields)
        assert first["id"] == committed[0]  # the committed write's answer, not a second write
        verb, fields = calls["msg-1"]
        learned = client.call(verb, "alice", idempotency_key="msg-1", **fields)
        assert [f["id"] for f in learned["facts"]] == committed[1:]
        again = client.call(verb, "alice", idempotency_key="msg-1", **fields)
        assert again == learned  # stored now: the same answer again
        assert [f.id for f in client.facts("alice")] == committed  # each stored once


def test_a_write_retried_after_a_kill_before_its_commit_is_written_once_or_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    home = tmp_path / "ws"
    with serving(home) as info:
        key = _key(_admin(info), "default")
    monkeypatch.setenv(KILL_AFTER_CLAIM, "1")
    with serving(home, stop=False) as info:
        with pytest.raises(ServiceError):
            Client(info["url"], key).call(
                "set", "alice", idempotency_key="early", path=PATH, value="2030-05-01"
            )
        assert info["proc"].wait(timeout=60) == -signal.SIGKILL
    monkeypatch.delenv(KILL_AFTER_CLAIM)
    with serving(home) as info:
        client = Client(info["url"], key)
        assert client.facts("alice") == []  # killed before its commit: nothing was written
        send = {"idempotency_key": "early", "path": PATH, "value": "2030-05-01"}
        if backend == "postgres":  # a shared log: the first run may be alive on another node
            with pytest.raises(InputError, match="no answer yet"):
                client.call("set", "alice", **send)
            assert client.facts("alice") == []
            return
        first = client.call("set", "alice", **send)
        assert client.call("set", "alice", **send) == first  # answered, not written again
        assert [f.id for f in client.facts("alice")] == [first["id"]]


def test_a_streamed_import_under_a_key_is_marked_and_its_repeat_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importer, "CHUNK_RECORDS", 2)  # 5 records: a streamed import
    file = tmp_path / "allergies.jsonl"
    file.write_text("".join(f'{{"substance": "s{n}"}}\n' for n in range(5)))
    held = idempotency.Claim("default", "k1", "imp-1", "digest")
    with Memory(tmp_path / "ws", create=True) as mem:
        assert idempotency.claim(mem.store, held, utc_now()) is None  # a new key
        with write_keys.writing(write_keys.WriteMark("default", "k1", "imp-1")):
            done = mem.import_file("maya", "allergies", file)
        assert done.facts == 5
        marks = write_keys.committed(mem.store, "default", "k1", "imp-1")
        assert [m.streamed for m in marks] == [True]
        idempotency.let_go(held)  # as a server killed before storing the answer leaves it
        with pytest.raises(idempotency.Unknown, match="streamed import"):
            idempotency.claim(mem.store, held, utc_now())
        assert len(mem.facts("maya")) == 5  # never written twice
