"""Compile-and-check jobs in PostgreSQL: one row per subject, claimed with leases by workers.

A write to a subject enqueues its job in the write's own transaction (`enqueue`, called by
PgLog.append), so no acknowledged write is without a job. Jobs are coalesced per subject:
the row counts the writes it was asked to cover (`wanted`); writes that land while a job is
queued only bump the count, and writes that land while it runs send it back to the queue
when it finishes (`claimed` < `wanted`), so one more run covers them all.

Workers claim due rows with `FOR UPDATE SKIP LOCKED` (two workers never take the same row
and never wait for each other) and hold a lease on each (`lease_owner`, `lease_until`),
renewed while they work. One subject therefore runs in one place at a time; a row whose
lease expired (its worker died) is due again and claimed by any worker. Every claim counts
an attempt; a failure sends the row back with exponential backoff (`base_delay * 2 **
(attempts - 1)`, at most `max_delay`); after `max_attempts` attempts without a success (a
failure or an expired lease each count) the row is `dead`: the dead letter, kept with its
last error until a new write to the subject or `uac workers retry` queues it again.
A finish or failure only counts when the worker still holds the lease (fencing): a worker
that lost its lease cannot mark the job of the worker that took over.

All SQL of the jobs table is in this module.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from uac.fact_log.addressing import Address
from uac.fact_log.backends import pg_schema
from uac.fact_log.backends.pg_schema import PgLog

if TYPE_CHECKING:
    import psycopg

MAX_ATTEMPTS = 5  # attempts without a success before a job is dead-lettered
BASE_DELAY = 2.0  # seconds before the first retry; doubles with each failed attempt
MAX_DELAY = 300.0  # the longest wait between retries
LEASE = 30.0  # seconds a claim holds its job unless renewed (workers renew every third)
STATES = ("queued", "running", "done", "dead")

pg_schema.register(
    "jobs",
    (
        (
            "CREATE TABLE uac_jobs (tenant TEXT NOT NULL, scope TEXT NOT NULL,"
            " subject TEXT NOT NULL, state TEXT NOT NULL, wanted BIGINT NOT NULL,"
            " claimed BIGINT NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,"
            " runs BIGINT NOT NULL DEFAULT 0, failures BIGINT NOT NULL DEFAULT 0,"
            " enqueued_at TIMESTAMPTZ NOT NULL, run_after TIMESTAMPTZ NOT NULL,"
            " lease_owner TEXT, lease_until TIMESTAMPTZ, last_error TEXT,"
            " updated_at TIMESTAMPTZ NOT NULL, PRIMARY KEY (tenant, scope, subject))",
            "CREATE INDEX uac_jobs_due ON uac_jobs (run_after)"
            " WHERE state IN ('queued', 'running')",
        ),
    ),
)

_KEY = "tenant = %s AND scope = %s AND subject = %s"
_REQUEUE = "uac_jobs.state IN ('done', 'dead')"


@dataclass(frozen=True, slots=True, order=True)
class Job:
    """One claimed job: the subject to compile and check, and which attempt this is."""

    tenant: str
    scope: str
    subject: str
    attempt: int

    @property
    def key(self) -> tuple[str, str, str]:
        """(tenant, scope, subject)."""
        return (self.tenant, self.scope, self.subject)


def enqueue(cur: psycopg.Cursor[Any], keys: Sequence[tuple[str, str, str]]) -> None:
    """Ask for one more run of each subject's job (in the caller's transaction)."""
    if not keys:
        return
    cur.execute(
        "INSERT INTO uac_jobs (tenant, scope, subject, state, wanted, enqueued_at, run_after,"
        " updated_at) SELECT t, s, u, 'queued', 1, now(), now(), now()"
        " FROM unnest(%s::text[], %s::text[], %s::text[]) AS k(t, s, u)"
        " ON CONFLICT (tenant, scope, subject) DO UPDATE SET wanted = uac_jobs.wanted + 1,"
        f" state = CASE WHEN {_REQUEUE} THEN 'queued' ELSE uac_jobs.state END,"
        f" attempts = CASE WHEN {_REQUEUE} THEN 0 ELSE uac_jobs.attempts END,"
        f" enqueued_at = CASE WHEN {_REQUEUE} THEN now() ELSE uac_jobs.enqueued_at END,"
        f" run_after = CASE WHEN {_REQUEUE} THEN now() ELSE uac_jobs.run_after END,"
        " updated_at = now()",
        [[k[0] for k in keys], [k[1] for k in keys], [k[2] for k in keys]],
    )


def claim(
    log: PgLog, owner: str, limit: int, *, lease: float = LEASE, max_attempts: int = MAX_ATTEMPTS
) -> list[Job]:
    """Take up to `limit` due jobs (queued and due, or running with an expired lease)."""
    with pg_schema.transaction(log) as cur:
        # A job whose workers keep dying (its lease expired max_attempts times) is dead.
        # SKIP LOCKED here too: a claim never waits for (or deadlocks with) a write's enqueue.
        cur.execute(
            "WITH stuck AS (SELECT tenant, scope, subject FROM uac_jobs WHERE state = 'running'"
            " AND lease_until < now() AND attempts >= %s FOR UPDATE SKIP LOCKED)"
            " UPDATE uac_jobs AS j SET state = 'dead', lease_owner = NULL, lease_until = NULL,"
            " last_error = coalesce(j.last_error || '; ', '') || 'its worker stopped (lease"
            " expired) on the last attempt', failures = j.failures + 1, updated_at = now()"
            " FROM stuck WHERE j.tenant = stuck.tenant AND j.scope = stuck.scope"
            " AND j.subject = stuck.subject",
            [max_attempts],
        )
        cur.execute(
            "WITH due AS (SELECT tenant, scope, subject FROM uac_jobs"
            " WHERE (state = 'queued' AND run_after <= now())"
            " OR (state = 'running' AND lease_until < now())"
            " ORDER BY run_after LIMIT %s FOR UPDATE SKIP LOCKED)"
            " UPDATE uac_jobs AS j SET state = 'running', lease_owner = %s,"
            " lease_until = now() + make_interval(secs => %s), attempts = j.attempts + 1,"
            " claimed = j.wanted, updated_at = now() FROM due WHERE j.tenant = due.tenant"
            " AND j.scope = due.scope AND j.subject = due.subject"
            " RETURNING j.tenant, j.scope, j.subject, j.attempts",
            [limit, owner, lease],
        )
        return sorted(Job(*row) for row in cur.fetchall())


def renew(log: PgLog, owner: str, jobs: Sequence[Job], lease: float = LEASE) -> int:
    """Extend the leases this owner still holds; how many it still holds."""
    held = 0
    with pg_schema.transaction(log) as cur:
        for job in sorted(jobs):  # the order writes lock rows in: no deadlock with them
            cur.execute(
                "UPDATE uac_jobs SET lease_until = now() + make_interval(secs => %s)"
                f" WHERE {_KEY} AND lease_owner = %s AND state = 'running'",
                [lease, *job.key, owner],
            )
            held += cur.rowcount
    return held


def finish(log: PgLog, owner: str, job: Job) -> bool:
    """Mark a job done (or queued again if writes landed meanwhile); False if the lease was lost."""
    with pg_schema.transaction(log) as cur:
        cur.execute(
            "UPDATE uac_jobs SET state = CASE WHEN wanted > claimed THEN 'queued' ELSE 'done' END,"
            " enqueued_at = CASE WHEN wanted > claimed THEN now() ELSE enqueued_at END,"
            " attempts = 0, runs = runs + 1, lease_owner = NULL, lease_until = NULL,"
            " run_after = now(), last_error = NULL, updated_at = now()"
            f" WHERE {_KEY} AND lease_owner = %s AND state = 'running'",
            [*job.key, owner],
        )
        return cur.rowcount == 1


def fail(
    log: PgLog,
    owner: str,
    job: Job,
    error: str,
    *,
    max_attempts: int = MAX_ATTEMPTS,
    base_delay: float = BASE_DELAY,
    max_delay: float = MAX_DELAY,
) -> str | None:
    """Record a failed attempt: back to the queue after a backoff, or dead; the new state."""
    with pg_schema.transaction(log) as cur:
        cur.execute(
            "UPDATE uac_jobs SET state = CASE WHEN attempts >= %s THEN 'dead' ELSE 'queued' END,"
            " run_after = now() + make_interval(secs => least(%s, %s * power(2, attempts - 1))),"
            " lease_owner = NULL, lease_until = NULL, last_error = %s, failures = failures + 1,"
            f" updated_at = now() WHERE {_KEY} AND lease_owner = %s AND state = 'running'"
            " RETURNING state",
            [max_attempts, max_delay, base_delay, error[:1000], *job.key, owner],
        )
        row = cur.fetchone()
        return row[0] if row else None


def retry_dead(log: PgLog, tenant: str | None = None) -> int:
    """Queue dead-lettered jobs again (all, or one tenant's); how many."""
    with pg_schema.transaction(log) as cur:
        cur.execute(
            "UPDATE uac_jobs SET state = 'queued', attempts = 0, run_after = now(),"
            " enqueued_at = now(), updated_at = now()"
            " WHERE state = 'dead' AND (%s::text IS NULL OR tenant = %s)",
            [tenant, tenant],
        )
        return cur.rowcount


@dataclass(slots=True)
class QueueStatus:
    """The queue at one moment: jobs per state, lag, failures, the oldest jobs waiting."""

    at: dt.datetime
    states: dict[str, int]
    oldest_lag_s: float  # age of the oldest write not yet covered by a finished job
    failing: int  # queued or running after at least one failure
    failures: int  # failed attempts ever recorded
    runs: int  # successful runs ever
    waiting: list[dict[str, Any]]  # the oldest not-done jobs, oldest first

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "at": self.at.isoformat(),
            "states": self.states,
            "queue_depth": self.states["queued"] + self.states["running"],
            "oldest_lag_s": round(self.oldest_lag_s, 3),
            "failing": self.failing,
            "failures": self.failures,
            "runs": self.runs,
            "dead": self.states["dead"],
            "waiting": self.waiting,
        }


def status(log: PgLog, limit: int = 20, tenant: str | None = None) -> QueueStatus:
    """Queue depth per state, lag, failures and the `limit` oldest unfinished jobs."""
    where = "(%s::text IS NULL OR tenant = %s)"
    with pg_schema.transaction(log) as cur:
        cur.execute(
            "SELECT state, count(*), coalesce(sum(runs), 0), coalesce(sum(failures), 0),"
            " count(*) FILTER (WHERE attempts > 0 AND last_error IS NOT NULL),"
            " extract(epoch FROM now() - min(enqueued_at)) FROM uac_jobs"
            f" WHERE {where} GROUP BY state",
            [tenant, tenant],
        )
        states = dict.fromkeys(STATES, 0)
        runs = failures = failing = 0
        lag = 0.0
        for state, n, state_runs, state_failures, state_failing, age in cur.fetchall():
            states[state] = n
            runs += int(state_runs)
            failures += int(state_failures)
            if state in ("queued", "running"):
                failing += state_failing
                lag = max(lag, float(age or 0))
        cur.execute(
            "SELECT tenant, scope, subject, state, attempts, lease_owner,"
            " extract(epoch FROM now() - enqueued_at), last_error, now() FROM uac_jobs"
            f" WHERE state <> 'done' AND {where} ORDER BY enqueued_at LIMIT %s",
            [tenant, tenant, limit],
        )
        rows = cur.fetchall()
        cur.execute("SELECT now()")
        at = cur.fetchone()[0]  # type: ignore[index]
    waiting = [
        {
            "tenant": t,
            "subject": str(Address(t, s, u)),  # type: ignore[arg-type]
            "state": state,
            "attempts": attempts,
            "worker": owner,
            "lag_s": round(float(age), 3),
            "last_error": error,
        }
        for t, s, u, state, attempts, owner, age, error, _ in rows
    ]
    return QueueStatus(at, states, lag, failing, failures, runs, waiting)
