"""A loaded `uac serve` killed with SIGKILL loses no reaction: the restart catches up.

Threads write passport dates to many subjects through a real server on 127.0.0.1 (each
subject written by one thread, each write a later date); once enough writes are answered
the server is killed with SIGKILL while writes and reactions are under way. The log then
holds writes whose reactions never ran (the test goes on until a kill leaves some). The
restarted server drains them at start-up — no `run-once`, no further write — so every
subject's open expiry alert names its newest date and no other. Every write the server
acknowledged is in the log after each kill, the writes in flight are whole or absent (at
most one per thread besides), and `uac verify` passes (the CLI's `main`, in the test's
process). Bounded: at most `ROUNDS` kills, `MAX_WRITES` writes per thread.
"""

from __future__ import annotations

import datetime as dt
import signal
import threading
import time
from pathlib import Path

import pytest
from test_serve import serving

from uac import Memory
from uac.fact_log.backends import reactions
from uac.runtime.api import api_keys
from uac.runtime.api.client import Client, ServiceError
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")

PATH = "identity.passport.expiry_date"
SUBJECTS = [f"u{n}" for n in range(8)]
THREADS = 4
KILL_AFTER = 16  # answered writes before the kill
MAX_WRITES = 40  # per thread
ROUNDS = 3  # kills at most, until one leaves reactions pending


def _load_then_kill(info: dict, key: str, first_day: int, acknowledged: list[str]) -> int:
    """Write from THREADS threads, SIGKILL the server once KILL_AFTER writes are answered;
    returns how many were answered (their fact ids added to `acknowledged`)."""
    today = dt.datetime.now(dt.UTC).date()
    answered = 0
    lock = threading.Lock()
    stop = threading.Event()

    def writer(n: int) -> None:
        nonlocal answered
        client = Client(info["url"], key)
        mine = SUBJECTS[n::THREADS]
        for k in range(MAX_WRITES // len(mine)):
            for subject in mine:
                if stop.is_set():
                    return
                day = today + dt.timedelta(days=first_day + k)
                try:
                    written = client.set(subject, PATH, day.isoformat())
                except ServiceError:  # the server is gone
                    return
                with lock:
                    answered += 1
                    acknowledged.append(written.id)

    threads = [threading.Thread(target=writer, args=(n,), daemon=True) for n in range(THREADS)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 300
    while answered < KILL_AFTER and time.monotonic() < deadline:
        time.sleep(0.05)
    info["proc"].send_signal(signal.SIGKILL)
    stop.set()
    assert info["proc"].wait(timeout=60) == -signal.SIGKILL
    for t in threads:
        t.join(timeout=60)
    return answered


def test_a_server_killed_under_write_load_catches_up_every_reaction_at_start(
    tmp_path: Path,
) -> None:
    home = tmp_path / "ws"
    # The workspace and a tenant key, made in process (a server started and stopped only to
    # make them cost ~1 s of CPU).
    with Memory(home, create=True) as mem:
        key = api_keys.create(mem.store, "default")[1]
    left_pending = []
    acknowledged: list[str] = []
    for round_ in range(ROUNDS):
        with serving(home, stop=False) as info:
            answered = _load_then_kill(info, key, 10 + round_ * MAX_WRITES, acknowledged)
        assert answered >= KILL_AFTER
        with Memory(home, read_only=True) as mem:
            left_pending = reactions.pending(mem.store)
            stored = [f.id for s in SUBJECTS for f in mem.facts(s, PATH)]
            counted = sum(reactions.wanted(mem.store, mem.address(s))[0] for s in SUBJECTS)
        assert set(acknowledged) <= set(stored)  # no acknowledged write lost to the kill
        assert len(stored) - len(acknowledged) <= THREADS * (round_ + 1)  # in flight, whole
        assert counted == len(stored)  # each stored write counted once by its reaction row
        assert main(["--home", str(home), "verify"]) == 0  # the killed server was waited for
        if left_pending:
            break
    assert left_pending, f"no kill in {ROUNDS} left a reaction pending: nothing was tested"
    with serving(home) as info:  # start-up drains the queue: nothing else runs the reactions
        client = Client(info["url"], key)
        for subject in SUBJECTS:
            newest = str(client.facts(subject, PATH)[-1].value)
            named = [a.message for a in client.alerts(subject) if a.check == "document_expiry"]
            assert len(named) == 1 and newest in named[0], (subject, newest, named)
    with Memory(home, read_only=True) as mem:
        assert reactions.pending(mem.store) == []
