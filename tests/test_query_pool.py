"""The query pool under contention: every answer is its own subject's, nothing leaks or hangs.

More subjects than pools kept warm, 64 threads through one shared `Memory` (and through a
real `uac serve` on 127.0.0.1 with the `Client`): every answer is checked against the
subject's own values (0 wrong answers, 0 errors), no zygote outlives the pool it belongs
to, and `uac serve` under that load exits after SIGTERM with its zygotes gone. A reply the
host did not ask for (another request's id, another subject's checkpoint) is an error,
never an answer. Bounded: a fixed number of queries per thread, loopback only.
"""

from __future__ import annotations

import collections
import datetime as dt
import json
import os
import random
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_serve import _admin, serving

import uac.runtime.sandbox as sandbox
from uac import Memory

pytestmark = pytest.mark.usefixtures("module_backend")  # runs on DuckDB and PostgreSQL

TODAY = dt.date(2026, 11, 29)
SUBJECTS = 12
THREADS = 64
# Queries per thread: 64 threads at once, over 12 subjects and 3 warm pools, evict pools
# under one another's queries from the first round on. Three rounds (192 queries, half the
# zygote starts of the six before, most of this module's CPU) still fail at once when a pool
# is evicted under its query (about 90 of the 192 answers a `sandbox_error`, leases not
# counted or evicted regardless, both tests, 2026-12-08) or a closed pool leaves a zygote.
PER_THREAD = 3
PROGRAM = "[user.identity.name, len(user.trips)]"


def expected(i: int) -> list[Any]:
    """Subject i's own answer to PROGRAM: a name and a number of trips no neighbour shares."""
    return [f"Person {i} of the pool", i % 5 + 1]


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, module_backend: str) -> Path:
    """A workspace of SUBJECTS compiled subjects with distinct values."""
    home = tmp_path_factory.mktemp("pool") / "ws"
    # No reactions: each write would recompile its subject; one compile of all of them (one
    # validator run) makes the same checkpoints.
    with Memory(home, create=True, react=False) as mem:
        for i in range(SUBJECTS):
            mem.set(f"s{i}", "identity.name", expected(i)[0])
            trips = [
                {"country": "JP", "city": f"City {i}-{k}", "depart": f"2024-0{k + 1}-01"}
                for k in range(expected(i)[1])
            ]
            mem.import_records(f"s{i}", "trips", trips)
        assert {r.status for r in mem.compile(all=True)} == {"published"}
    return home


def hammer(ask: Callable[[str], dict[str, Any]], seed: int) -> collections.Counter[str]:
    """THREADS threads ask PER_THREAD random subjects each; tallies right/wrong/each error."""
    tally: collections.Counter[str] = collections.Counter()
    lock = threading.Lock()

    def work(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        for _ in range(PER_THREAD):
            i = rng.randrange(SUBJECTS)
            try:
                envelope = ask(f"s{i}")
            except Exception as exc:  # every exception is a failure of the test
                outcome = f"raised {type(exc).__name__}: {exc}"
            else:
                if not envelope.get("ok"):
                    outcome = f"error {envelope.get('error')}"
                elif envelope["result"] == expected(i):
                    outcome = "right"
                else:
                    outcome = f"wrong: s{i} got {envelope['result']}"
            with lock:
                tally[outcome] += 1

    threads = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return tally


def sandbox_processes(under: Path) -> dict[int, int]:
    """Live zygotes and their workers serving a checkpoint under `under`: pid -> parent pid."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z":
            continue  # exited, not yet reaped by its parent
        if any(a.endswith(b"boot.py") for a in argv) and any(
            a.startswith(os.fsencode(under)) for a in argv
        ):
            found[int(entry.name)] = int(fields[1])
    return found


def zygotes(under: Path) -> set[int]:
    """Pids of live zygotes under `under` (a worker is forked from one and shares its argv)."""
    found = sandbox_processes(under)
    return {pid for pid, parent in found.items() if parent not in found}


def wait_until(condition: Callable[[], bool], bound: float = 60.0) -> bool:
    """Poll `condition` until it holds or `bound` seconds pass (the bound is a failure only)."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def test_sixty_four_threads_over_more_subjects_than_pools_get_only_their_own_answers(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fewer warm pools than subjects, so pools are evicted while other threads query them.
    monkeypatch.setattr(sandbox, "_MAX_POOLS", 3)
    sandbox.shutdown()
    with Memory(home) as mem:
        tally = hammer(lambda s: mem.query(s, PROGRAM, today=TODAY), seed=1)
        assert tally == {"right": THREADS * PER_THREAD}, tally
        # Every live zygote belongs to a pool still kept: none outlives an evicted pool.
        kept = [box for pool in sandbox._POOLS.values() for box in pool._all]
        assert len(sandbox._POOLS) <= 3
        live = {box._proc.pid for box in kept if box._proc is not None}
        assert wait_until(lambda: zygotes(home) <= live), (zygotes(home), live)
    sandbox.shutdown()
    assert wait_until(lambda: not sandbox_processes(home)), sandbox_processes(home)


def test_a_reply_to_another_request_or_subject_is_an_error_never_an_answer(home: Path) -> None:
    with Memory(home) as mem:
        dirs = [mem.checkpoint(f"s{i}").directory for i in (0, 1)]
    first, second = (sandbox.Sandbox(d) for d in dirs)
    try:
        # The real zygote of s1 answers a request; that line handed to s0's host side.
        request = first.request(PROGRAM, today=TODAY)
        line = second.exchange(second.request(PROGRAM, today=TODAY))
        envelope = first.accept(line, request)
        assert envelope["ok"] is False, envelope
        assert envelope["error"]["type"] == "sandbox_error"
        assert str(expected(1)[0]) not in json.dumps(envelope)
        # s0's own zygote, answering an earlier request of s0: the id does not match.
        earlier = first.request(PROGRAM, today=TODAY)
        stale = first.exchange(earlier)
        later = first.request(PROGRAM, today=TODAY)
        assert first.accept(stale, later)["ok"] is False
        # The matching reply is the answer.
        assert first.accept(stale, earlier) == {"ok": True, "result": expected(0)}
        # The public path restarts a zygote that answered out of turn and goes on serving.
        assert first.run(PROGRAM, today=TODAY)["result"] == expected(0)
    finally:
        first.close()
        second.close()


def test_served_queries_under_load_are_right_and_sigterm_stops_the_server(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UAC_SANDBOX_POOLS", "3")  # read by the server at start
    with serving(home, stop=False) as info:
        client = _admin(info)
        client.timeout = 120

        def ask(subject: str) -> dict[str, Any]:
            return client.query(subject, PROGRAM, today=TODAY.isoformat())

        tally = hammer(ask, seed=2)
        assert tally == {"right": THREADS * PER_THREAD}, tally
        # SIGTERM while a second wave is in flight: the server exits, its zygotes with it.
        proc: subprocess.Popen = info["proc"]
        wave = threading.Thread(target=hammer, args=(ask, 3), daemon=True)
        wave.start()
        assert wait_until(lambda: len(zygotes(home)) > 0)
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=120)  # a generous bound: failing it is the failure
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            pytest.fail("uac serve under query load did not exit within 120 s of SIGTERM")
        assert code == 0
        assert wait_until(lambda: not sandbox_processes(home)), sandbox_processes(home)
        wave.join(timeout=150)
        assert not wave.is_alive()  # every client call returned (an answer or an error)
