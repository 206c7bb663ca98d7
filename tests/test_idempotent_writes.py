"""A write sent again with its Idempotency-Key is done once, even across a server kill.

A real `uac serve` (tests/test_serve.py `serving`) is killed with SIGKILL after it committed
a write and stored its answer but before it answered (the fault point
runtime/api/idempotency.py `KILL_BEFORE_ANSWER`); the client saw only a broken connection.
Retried with the same key on the restarted server, the write is not stored again and the
first answer comes back. Killed earlier — after the commit, before the write's reaction and
before any answer was stored (runtime/api/reactor.py `CRASH_BEFORE_REACTION`) — the key was
recorded in the write's own transaction, so the retry answers from the committed write.
Killed before the commit (`KILL_AFTER_CLAIM`), nothing was written: the claim's hold died
with its process, so the retry writes once, on either backend; while the claimant lives (a
node of a shared log killed later, between its claim and its commit), a retry on another
node is refused with 409, never run twice. A streamed import (a file too big to hold) is
marked before it starts, and its repeat refused. An acknowledgement, a snooze and an erase
killed after their work, before their answer was stored (`KILL_BEFORE_STORING`), answer the
retry as their first run did and do their work once.
"""

from __future__ import annotations

import datetime as dt
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_serve import ROOT, child_env, serving

from uac import Memory
from uac.checks.alerts import get_alert
from uac.fact_log import importer
from uac.fact_log.backends import write_keys
from uac.fact_log.errors import InputError
from uac.fact_log.store import utc_now
from uac.runtime.api import api_keys, idempotency
from uac.runtime.api.client import Client, ServiceError
from uac.runtime.api.idempotency import KILL_AFTER_CLAIM, KILL_BEFORE_ANSWER, KILL_BEFORE_STORING
from uac.runtime.api.reactor import CRASH_BEFORE_REACTION

pytestmark = pytest.mark.usefixtures("backend")  # the key table on DuckDB and PostgreSQL

PATH = "identity.passport.expiry_date"


@contextmanager
def made(home: Path) -> Iterator[tuple[Memory, str]]:
    """The workspace (on this run's backend) and a tenant write key for it, made in process
    before the first server starts, with what the test writes first: the state a first
    `uac serve` run was started for before (a server start and stop only to make it cost
    ~1 s of CPU)."""
    with Memory(home, create=True) as mem:
        yield mem, api_keys.create(mem.store, "default")[1]


def test_a_write_retried_after_a_kill_between_commit_and_answer_is_stored_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "ws"
    with made(home) as (mem, key):
        mem.set("bob", PATH, "2031-01-01")  # the workspace and the key exist before
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
    with made(home) as (_, key):
        pass
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


def test_a_write_retried_after_a_kill_before_its_commit_is_written_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "ws"
    with made(home) as (_, key):
        pass
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
        first = client.call("set", "alice", **send)  # its claimant died: it runs, once
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


_CLAIMANT = """
import sys
from uac import Memory
from uac.fact_log.rows import utc_now
from uac.runtime.api import idempotency
with Memory(sys.argv[1], create=True, react=False, log_db=sys.argv[2]) as mem:
    held = idempotency.Claim("default", "k1", "held-1", "digest")
    assert idempotency.claim(mem.store, held, utc_now()) is None
    print("claimed", flush=True)
    sys.stdin.read()  # runs its write until killed, before any commit
"""


def test_a_claim_on_a_shared_log_is_refused_while_its_node_lives_and_taken_over_once_it_dies(
    tmp_path: Path, backend: str, pg_url: str
) -> None:
    if backend != "postgres":
        pytest.skip("nodes of one shared log: the log is on PostgreSQL")
    node_a = subprocess.Popen(
        [sys.executable, "-c", _CLAIMANT, str(tmp_path / "a"), pg_url],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
        cwd=ROOT,
    )
    try:
        assert node_a.stdout is not None and node_a.stdout.readline().strip() == "claimed"
        held = idempotency.Claim("default", "k1", "held-1", "digest")
        with Memory(tmp_path / "b", create=True, react=False, log_db=pg_url) as mem:
            with pytest.raises(idempotency.Unknown, match="still running"):
                idempotency.claim(mem.store, held, utc_now())  # node a lives: never run twice
            node_a.send_signal(signal.SIGKILL)  # killed between its claim and its commit
            assert node_a.wait(timeout=60) == -signal.SIGKILL
            taken: object = "refused every time"
            for _ in range(100):  # the database drops a dead session's locks once it notices
                try:
                    taken = idempotency.claim(mem.store, held, utc_now())
                    break
                except idempotency.Unknown:
                    time.sleep(0.1)
            assert taken is None  # abandoned, nothing committed: the retry runs it
            mark = write_keys.WriteMark("default", "k1", "held-1")
            with write_keys.writing(mark):
                written = mem.set("alice", PATH, "2030-05-01")
            idempotency.finish(mem.store, held, 200, {"id": written.id})
            again = idempotency.claim(mem.store, held, utc_now())
            assert isinstance(again, idempotency.Stored) and again.body == {"id": written.id}
            assert [f.id for f in mem.facts("alice")] == [written.id]  # exactly one fact
    finally:
        if node_a.poll() is None:
            node_a.kill()


def test_an_ack_and_a_snooze_retried_after_a_kill_before_their_answer_are_done_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "ws"
    today = dt.datetime.now(dt.UTC).date()
    with made(home) as (mem, key):
        mem.set("alice", PATH, str(today + dt.timedelta(days=20)))  # an expiry alert
        (alert,) = [a for a in mem.alerts("alice") if a.check == "document_expiry"]
    until = str(today + dt.timedelta(days=5))
    calls = {
        "ack-1": ("acknowledge", {"alert_id": alert.id}),
        "snooze-1": ("snooze", {"alert_id": alert.id, "until": until}),
    }
    monkeypatch.setenv(KILL_BEFORE_STORING, "1")  # dies after the change, before its answer
    for idem, (verb, fields) in calls.items():
        with serving(home, stop=False) as info:
            with pytest.raises(ServiceError):  # the connection broke: outcome unknown to it
                Client(info["url"], key).call(verb, "alice", idempotency_key=idem, **fields)
            assert info["proc"].wait(timeout=60) == -signal.SIGKILL
    monkeypatch.delenv(KILL_BEFORE_STORING)
    with Memory(home, read_only=True) as mem:  # both changes were committed before the kills
        changed = get_alert(mem.store, mem.address("alice"), alert.id)
        assert changed.status == "acknowledged" and str(changed.snoozed_until) == until
    with serving(home) as info:
        client = Client(info["url"], key)
        client.set("alice", PATH, str(today + dt.timedelta(days=3000)))  # the alert resolves
        (now,) = [a for a in client.alerts("alice", include_resolved=True) if a.id == alert.id]
        assert now.status == "resolved"  # run again, an ack or a snooze would be refused now
        answers = {}
        for idem, (verb, fields) in calls.items():
            answers[idem] = client.call(verb, "alice", idempotency_key=idem, **fields)
            assert client.call(verb, "alice", idempotency_key=idem, **fields) == answers[idem]
        # each answers as its first run left the alert, and did its change once
        assert answers["ack-1"]["status"] == "acknowledged"
        assert answers["ack-1"]["snoozed_until"] is None  # before the snooze: its own answer
        assert answers["snooze-1"]["snoozed_until"] == until
        (after,) = [a for a in client.alerts("alice", include_resolved=True) if a.id == alert.id]
        assert after.status == "resolved"


def test_an_erase_retried_after_a_kill_before_its_answer_erases_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "ws"
    with made(home) as (mem, key):
        mem.set("alice", PATH, "2030-05-01")
        mem.set("alice", "identity.name", "Alice")
        target = mem.facts("alice", PATH)[0].id
    send = {"idempotency_key": "erase-1", "fact_ids": [target], "reason": "asked to"}
    monkeypatch.setenv(KILL_BEFORE_STORING, "1")  # dies after the erase, before its answer
    with serving(home, stop=False) as info:
        with pytest.raises(ServiceError):  # the connection broke: outcome unknown to it
            Client(info["url"], key).call("erase", "alice", **send)
        assert info["proc"].wait(timeout=60) == -signal.SIGKILL
    monkeypatch.delenv(KILL_BEFORE_STORING)
    with serving(home) as info:
        client = Client(info["url"], key)
        (first,) = client.call("erasures", "alice")  # the erase committed before the kill
        answer = client.call("erase", "alice", **send)
        assert client.call("erase", "alice", **send) == answer
        assert answer["id"] == first["id"]  # that erasure's report, not a second erase
        assert [f["id"] for f in answer["facts"]] == [target] and answer["verified"]
        assert [r["id"] for r in client.call("erasures", "alice")] == [first["id"]]  # once
        assert [f.value for f in client.facts("alice", "identity.name")] == ["Alice"]
