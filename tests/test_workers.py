"""Compile-and-check jobs in PostgreSQL and `uac worker`: leases, retries, dead letters, faults.

Nodes are workspaces bound to one database of the session's real PostgreSQL cluster
(tests/pg_cluster.py); workers are real `uac worker` processes, each on its own node.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psycopg
import pytest
from conftest import pg_node as _node

from uac.compiler import loader
from uac.fact_log.addressing import parse_subject
from uac.fact_log.backends import pg_jobs

DAY = dt.datetime(2025, 1, 10, 9)


pytestmark = pytest.mark.usefixtures("shared_key")  # one chain key for all nodes (conftest)


def _jobs(url: str) -> dict[str, tuple]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT subject, state, wanted, claimed, attempts, runs, failures FROM uac_jobs"
        ).fetchall()
    return {row[0]: row[1:] for row in rows}


def _wait(predicate, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_a_write_enqueues_one_coalesced_job_per_subject(tmp_path: Path, pg_url: str) -> None:
    with _node(tmp_path, "a", pg_url) as a:
        for n in range(3):
            a.set("maya", "identity.name", f"Maya {n}", now=DAY)
        a.set("bob", "identity.name", "Bob", now=DAY)
        jobs = _jobs(pg_url)
        assert jobs["maya"][:5] == ("queued", 3, 0, 0, 0) and jobs["bob"][:2] == ("queued", 1)
        log = a.store.backend.log  # type: ignore[union-attr]
        first = pg_jobs.claim(log, "w1", 10)
        assert sorted(j.subject for j in first) == ["bob", "maya"]
        assert pg_jobs.claim(log, "w2", 10) == []  # leased: nobody else takes them
        # A write while maya runs: her job goes back to the queue when this run finishes.
        a.set("maya", "identity.name", "Maya 3", now=DAY)
        maya = next(j for j in first if j.subject == "maya")
        bob = next(j for j in first if j.subject == "bob")
        assert not pg_jobs.finish(log, "w2", maya)  # not w2's lease: fenced off
        assert pg_jobs.finish(log, "w1", maya) and pg_jobs.finish(log, "w1", bob)
        jobs = _jobs(pg_url)
        assert jobs["maya"][:2] == ("queued", 4) and jobs["bob"][0] == "done"
        (again,) = pg_jobs.claim(log, "w2", 10)
        assert again.subject == "maya" and pg_jobs.finish(log, "w2", again)
        assert _jobs(pg_url)["maya"][0] == "done" and _jobs(pg_url)["maya"][4] == 2


def test_failures_back_off_then_dead_letter_and_an_expired_lease_is_reclaimed(
    tmp_path: Path, pg_url: str
) -> None:
    with _node(tmp_path, "a", pg_url) as a:
        a.set("maya", "identity.name", "Maya", now=DAY)
        log = a.store.backend.log  # type: ignore[union-attr]
        (job,) = pg_jobs.claim(log, "w1", 1)
        assert pg_jobs.fail(log, "w1", job, "boom", max_attempts=3, base_delay=3600) == "queued"
        assert pg_jobs.claim(log, "w1", 1) == []  # backing off for an hour
        status = pg_jobs.status(log)
        assert status.failing == 1 and status.waiting[0]["last_error"] == "boom"
        with psycopg.connect(pg_url) as conn:  # the hour has passed
            conn.execute("UPDATE uac_jobs SET run_after = now() - interval '1 second'")
        (job,) = pg_jobs.claim(log, "w1", 1, lease=0.2)
        time.sleep(0.4)  # w1 died holding it: the lease expires and w2 takes the job
        (taken,) = pg_jobs.claim(log, "w2", 1)
        assert taken.attempt == 3
        assert pg_jobs.fail(log, "w1", job, "late") is None  # w1 lost the lease
        assert pg_jobs.fail(log, "w2", taken, "boom again", max_attempts=3) == "dead"
        status = pg_jobs.status(log)
        assert status.states["dead"] == 1 and status.failures == 2
        assert pg_jobs.claim(log, "w3", 1) == []
        assert pg_jobs.retry_dead(log) == 1
        assert [j.subject for j in pg_jobs.claim(log, "w3", 1, lease=0.2)] == ["maya"]
        time.sleep(0.4)  # w3 died too, on the last attempt allowed: a dead letter, not a retry
        assert pg_jobs.claim(log, "w4", 1, max_attempts=1) == []
        (dead,) = pg_jobs.status(log).waiting
        assert dead["state"] == "dead" and "lease expired" in dead["last_error"]


def _worker(home: Path, *extra: str, wrapper: str | None = None) -> subprocess.Popen:
    args = ["-m", "uac.runtime.cli"] if wrapper is None else ["-c", wrapper]
    return subprocess.Popen(
        [sys.executable, *args, "--home", str(home), "--json", "--quiet", "worker", *extra],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )


def test_two_workers_do_every_job_of_many_subjects_once(tmp_path: Path, pg_url: str) -> None:
    subjects = [f"user{n:02d}" for n in range(30)]
    with _node(tmp_path, "a", pg_url) as a:
        for subject in subjects:
            a.set(subject, "identity.passport.expiry_date", "2025-02-01", now=DAY)
    for name in ("w1", "w2"):
        _node(tmp_path, name, pg_url).close()
    procs = [
        _worker(tmp_path / name, "--until-idle", "--poll", "0.2", "--batch", "2")
        for name in ("w1", "w2")
    ]
    outs = [json.loads(p.communicate(timeout=600)[0]) for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert sum(o["done"] for o in outs) == 30 and sum(o["failed"] + o["lost"] for o in outs) == 0
    jobs = _jobs(pg_url)
    assert {s: j[0] for s, j in jobs.items()} == dict.fromkeys(subjects, "done")  # none lost
    assert all(j[4] == 1 for j in jobs.values())  # each done exactly once
    for subject in subjects:  # compiled in one place: one node holds its checkpoint
        homes = [
            n for n in ("w1", "w2") if loader.current_version(tmp_path / n, parse_subject(subject))
        ]
        assert len(homes) == 1, subject
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM uac_alerts").fetchone()[0] == 30


STALLED = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import uac.compiler.checkpoint as ckpt
    real = ckpt.render
    def render(*args, **kwargs):
        Path(sys.argv[-1]).write_text("compiling")  # mid-compile: tell the test, then hang
        time.sleep(3600)
        return real(*args, **kwargs)
    ckpt.render = render
    from uac.runtime.cli import main
    sys.exit(main(sys.argv[1:-1]))
    """
)


def test_a_worker_killed_mid_compile_is_finished_by_another_once(
    tmp_path: Path, pg_url: str
) -> None:
    maya = parse_subject("maya")
    with _node(tmp_path, "a", pg_url) as a:
        a.set("maya", "identity.passport.expiry_date", "2025-02-01", now=DAY)
    for name in ("w1", "w2"):
        _node(tmp_path, name, pg_url).close()
    flag = tmp_path / "w1-compiling"
    stalled = subprocess.Popen(
        [sys.executable, "-c", STALLED, "--home", str(tmp_path / "w1"), "--quiet", "worker",
         "--lease", "2", "--poll", "0.2", str(flag)],
    )  # fmt: skip
    try:
        _wait(flag.exists, "worker 1 to start compiling")
        assert _jobs(pg_url)["maya"][0] == "running"
        stalled.send_signal(signal.SIGKILL)
        stalled.wait(timeout=30)
    finally:
        if stalled.poll() is None:
            stalled.kill()
    # The rescuer's own lease is long: its heartbeat (every lease/3) may run late on a loaded
    # machine, and a lease lost mid-compile would run the job twice. Only w1's 2 s lease,
    # which the rescuer waits out, is short.
    rescuer = _worker(tmp_path / "w2", "--until-idle", "--poll", "0.2", "--lease", "60")
    out = json.loads(rescuer.communicate(timeout=300)[0])
    assert out["done"] == 1 and rescuer.returncode == 0
    state, wanted, claimed, attempts, runs, _ = _jobs(pg_url)["maya"]
    assert (state, wanted, claimed, attempts, runs) == ("done", 1, 1, 0, 1)
    assert loader.current_version(tmp_path / "w1", maya) is None  # never published there
    assert loader.current_version(tmp_path / "w2", maya) == 1  # published once, by w2
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM uac_alerts").fetchone()[0] == 1


def test_uac_migrate_and_workers_status(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from uac.runtime.cli import main

    plain = tmp_path / "plain"
    assert main(["--home", str(plain), "init"]) == 0
    capsys.readouterr()
    assert main(["--home", str(plain), "migrate"]) == 0
    assert capsys.readouterr().out.startswith("nothing to migrate")
    assert main(["--home", str(plain), "workers", "status"]) == 1
    assert "there is no job queue" in capsys.readouterr().err
    with _node(tmp_path, "a", pg_url) as a:
        a.set("maya", "identity.name", "Maya", now=DAY)
    with psycopg.connect(pg_url) as conn:  # a database from before the jobs table
        conn.execute("DROP TABLE uac_jobs")
        conn.execute("DELETE FROM uac_meta WHERE key = 'schema_version:jobs'")
    home = str(tmp_path / "a")
    assert main(["--home", home, "migrate"]) == 0
    assert "jobs: version 0 -> 1" in capsys.readouterr().out
    assert main(["--home", home, "migrate"]) == 0  # idempotent
    assert capsys.readouterr().out.startswith("nothing to migrate")
    with _node(tmp_path, "a", pg_url) as a:
        a.set("maya", "identity.name", "Maya", now=DAY)
        a.set("bob", "identity.name", "Bob", now=DAY)
        log = a.store.backend.log  # type: ignore[union-attr]
        (job, *_) = pg_jobs.claim(log, "w1", 1)
        pg_jobs.fail(log, "w1", job, "boom", max_attempts=1)
    assert main(["--home", home, "--json", "workers", "status"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["queue_depth"] == 1 and data["dead"] == 1 and data["failures"] == 1
    assert sorted(w["state"] for w in data["waiting"]) == ["dead", "queued"]
    assert {w["subject"] for w in data["waiting"]} == {"user:bob", "user:maya"}
    assert main(["--home", home, "workers", "status"]) == 0
    text = capsys.readouterr().out
    assert "queue depth 1" in text and "dead letters 1" in text and "uac workers retry" in text
    assert main(["--home", home, "workers", "retry"]) == 0
    assert "queued 1 dead-lettered jobs again" in capsys.readouterr().out
