"""`uac worker`: compile and check subjects whose jobs wait in PostgreSQL, on any host.

A worker is a node: a workspace bound to the shared log (`uac init --db URL`, its own
DuckDB copy and checkpoints), and a loop that claims due jobs (fact_log/backends/pg_jobs.py:
`FOR UPDATE SKIP LOCKED`, a lease per subject), compiles each subject if its checkpoint is
stale and runs its checks (alerts and their outbox rows are recorded once, in PostgreSQL:
fact_log/backends/pg_alerts.py), then marks the job done. A heartbeat thread renews the leases of
the jobs it holds every third of the lease; a worker that dies stops renewing, and any other
worker claims the job once the lease has expired. A failed job is retried with backoff and
dead-lettered after `max_attempts` (pg_jobs.py). Any number of workers, on any hosts, can
share one database.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uac.checks.sinks import Sink
from uac.compiler.inherit import with_members
from uac.fact_log.addressing import Address
from uac.fact_log.backends import pg_jobs
from uac.fact_log.errors import WorkspaceError
from uac.runtime.api.memory import Memory
from uac.runtime.api.outbox import OutboxSink
from uac.runtime.api.reactor import Reactor


@dataclass(slots=True)
class WorkerStats:
    """What one worker did until it stopped."""

    name: str
    done: int = 0
    failed: int = 0
    lost: int = 0  # jobs whose lease another worker took before this one finished
    seconds: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)  # subject -> last error


@dataclass(frozen=True, slots=True)
class WorkerOptions:
    """How a worker claims and retries (defaults: pg_jobs.py)."""

    batch: int = 4  # jobs claimed at once (fewer round trips; all leased meanwhile)
    lease: float = pg_jobs.LEASE
    max_attempts: int = pg_jobs.MAX_ATTEMPTS
    base_delay: float = pg_jobs.BASE_DELAY
    max_delay: float = pg_jobs.MAX_DELAY
    poll: float = 1.0  # seconds between claims while the queue is empty
    until_idle: bool = False  # stop once no job is queued or running anywhere
    sinks: tuple[str, ...] = ()  # sink names whose outbox rows raised alerts get


def worker_name() -> str:
    """A name unique to this process: host, pid and a random tag."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class Worker:
    """Claims and runs jobs for one workspace (a node bound to a PostgreSQL log)."""

    def __init__(
        self,
        home: Path | str,
        options: WorkerOptions = WorkerOptions(),
        *,
        name: str | None = None,
        log: Callable[[dict[str, Any]], None] = lambda event: None,
    ):
        self.options = options
        self.name = name or worker_name()
        self.log = log
        self.mem = Memory(home, create=False, react=False, actor="worker")
        try:
            self.shared = self.mem.store.backend.job_log()
        except WorkspaceError:
            self.mem.close()
            raise
        sinks: list[Sink] = [OutboxSink(self.mem.store, list(options.sinks))]
        self.reactor = Reactor(self.mem.store, self.mem.catalog, self.mem.home, sinks=sinks)
        self._held: set[pg_jobs.Job] = set()
        self._held_lock = threading.Lock()

    def close(self) -> None:
        """Close the workspace."""
        self.mem.close()

    def run(self, stop: threading.Event | None = None) -> WorkerStats:
        """Claim and run jobs until `stop` is set (or the queue is idle, with until_idle)."""
        stop = stop or threading.Event()
        stats = WorkerStats(self.name)
        start = time.perf_counter()
        # Reactions a killed process left queued (the reactions queue, in the shared log).
        self.reactor.drain(log=lambda line: self.log({"event": "drain", "message": line}))
        beat = threading.Thread(target=self._heartbeat, args=(stop,), daemon=True)
        beat.start()
        try:
            while not stop.is_set():
                jobs = pg_jobs.claim(
                    self.shared,
                    self.name,
                    self.options.batch,
                    lease=self.options.lease,
                    max_attempts=self.options.max_attempts,
                )
                if not jobs:
                    if self.options.until_idle and self._idle():
                        break
                    stop.wait(self.options.poll)
                    continue
                with self._held_lock:
                    self._held.update(jobs)
                for job in jobs:
                    self._one(job, stats)
        finally:
            stop.set()
            beat.join()
            stats.seconds = time.perf_counter() - start
        return stats

    def _idle(self) -> bool:
        states = pg_jobs.status(self.shared, limit=0).states
        return states["queued"] == 0 and states["running"] == 0

    def _one(self, job: pg_jobs.Job, stats: WorkerStats) -> None:
        label = f"{job.tenant}/{Address(*job.key)}"  # type: ignore[arg-type]
        try:
            self.run_job(job)
        except Exception as exc:  # the job fails, the worker goes on
            error = f"{type(exc).__name__}: {exc}"
            state = pg_jobs.fail(
                self.shared,
                self.name,
                job,
                error,
                max_attempts=self.options.max_attempts,
                base_delay=self.options.base_delay,
                max_delay=self.options.max_delay,
            )
            stats.failed += 1
            stats.errors[label] = error
            self.log({"event": "job_failed", "subject": label, "state": state, "error": error})
        else:
            if pg_jobs.finish(self.shared, self.name, job):
                stats.done += 1
                self.log({"event": "job_done", "subject": label, "attempt": job.attempt})
            else:
                stats.lost += 1
                self.log({"event": "job_lease_lost", "subject": label})
        finally:
            with self._held_lock:
                self._held.discard(job)

    def run_job(self, job: pg_jobs.Job) -> None:
        """Compile the subject if stale and run its checks (and its group's members')."""
        addr = Address(*job.key)  # type: ignore[arg-type]
        targets = [addr]
        if addr.scope != "user":  # a group's or the tenant's write changes what members inherit
            targets += [a for a in with_members(self.mem.store, job.tenant, [addr]) if a != addr]
        for target in targets:
            self.reactor.react(target)  # as of today; covers the reactions queue's row too

    def _heartbeat(self, stop: threading.Event) -> None:
        """Renew the leases of held jobs every third of the lease, until stopped."""
        while not stop.wait(self.options.lease / 3):
            with self._held_lock:
                held = list(self._held)
            if held:
                try:
                    pg_jobs.renew(self.shared, self.name, held, self.options.lease)
                except Exception as exc:  # the database is away: try again next beat
                    self.log({"event": "lease_renewal_failed", "error": str(exc)[:200]})
