"""Operations commands: `uac migrate`, `uac worker`, `uac workers status|retry`.

Kept apart from runtime/cli.py (which only registers them through `add`) so the commands
of distributed operation live in one place.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from uac.fact_log.backends import pg_jobs
from uac.fact_log.errors import InputError, WorkspaceError

Command = Callable[[str, Callable[[argparse.Namespace], int], str], argparse.ArgumentParser]


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _file_state(home: Path) -> tuple[dict[str, int], str | None]:
    """The workspace file's owner versions and the log URL it is bound to (read-only look)."""
    import duckdb

    from uac.fact_log.backends.replica import META_KEY
    from uac.fact_log.schema import registered, versions
    from uac.fact_log.store import DB_FILE

    _register_all()
    db = home / DB_FILE
    if not db.exists():
        raise WorkspaceError(f"no uac workspace at {home}; create one with: uac --home {home} init")
    try:
        con = duckdb.connect(str(db), read_only=True)
    except duckdb.IOException:
        raise WorkspaceError(
            f"workspace {home} is open in another process (uac serve or uac worker); for the "
            "job queue pass --db postgresql://... (or set UAC_DB), or stop that process to migrate"
        ) from None
    try:
        have = versions(con, registered())
        row = None
        if "meta" in {
            r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
        }:
            row = con.execute("SELECT value FROM meta WHERE key = ?", [META_KEY]).fetchone()
    finally:
        con.close()
    return have, (row[0] if row else None)


def _register_all() -> None:
    """Import every layer that registers tables (DuckDB owners, PostgreSQL owners)."""
    from uac.checks import pg_alerts  # noqa: F401
    from uac.runtime.api import memory  # noqa: F401 (the log, compiler, checks, service tables)
    from uac.runtime.search import schema  # noqa: F401


def _shared_state(url: str) -> dict[str, int]:
    from uac.fact_log.backends import pg_schema
    from uac.fact_log.backends.postgres import PgLog

    log = PgLog(url, max_size=1)
    try:
        with log._tx() as cur:
            state = pg_schema.versions(cur)
        state["log"] = log.version()
        return state
    finally:
        log.close()


def cmd_migrate(args: argparse.Namespace) -> int:
    """Apply every layer's pending migrations (workspace file and shared database)."""
    from uac.fact_log.backends.postgres import redact
    from uac.runtime.api.memory import Memory

    home = Path(args.home)
    before, url = _file_state(home)
    url = url or None
    shared_before = _shared_state(url) if url else {}
    Memory(home, create=False, react=False).close()  # opening writable migrates every layer
    after, _ = _file_state(home)
    shared_after = _shared_state(url) if url else {}
    done = [
        f"workspace {name}: version {before.get(name, 0)} -> {n}"
        for name, n in sorted(after.items())
        if n != before.get(name, 0)
    ] + [
        f"{redact(url)} {name}: version {shared_before.get(name, 0)} -> {n}"  # type: ignore[arg-type]
        for name, n in sorted(shared_after.items())
        if n != shared_before.get(name, 0)
    ]
    if args.json:
        _out(
            json.dumps(
                {"applied": done, "workspace": after, "shared": shared_after}, sort_keys=True
            )
        )
        return 0
    for line in done:
        _out(f"migrated {line}")
    where = f" and {redact(url)}" if url else ""
    if not done:
        _out(f"nothing to migrate: every layer of {home}{where} is current")
    return 0


def _shared_log(args: argparse.Namespace) -> Any:
    from uac.fact_log.backends.postgres import PgLog
    from uac.fact_log.backends.replica import ENV

    url = getattr(args, "db", None) or os.environ.get(ENV)
    if not url:
        _, url = _file_state(Path(args.home))
    if not url:
        raise InputError(
            f"workspace {args.home} keeps its log in its DuckDB file: there is no job queue; "
            "create a node bound to PostgreSQL with 'uac --home DIR init --db URL'"
        )
    log = PgLog(url, max_size=2)
    return log


def cmd_worker(args: argparse.Namespace) -> int:
    """Run a worker until SIGTERM/SIGINT (or until the queue is idle, with --until-idle)."""
    from uac.runtime.api.worker import Worker, WorkerOptions

    options = WorkerOptions(
        batch=args.batch,
        lease=args.lease,
        max_attempts=args.max_attempts,
        base_delay=args.retry_delay,
        poll=args.poll,
        until_idle=args.until_idle,
        sinks=tuple(args.sink or ()),
    )
    if options.lease <= 0 or options.batch < 1 or options.max_attempts < 1:
        raise InputError("--lease must be > 0, --batch and --max-attempts at least 1")

    def log(event: dict[str, Any]) -> None:
        if not args.quiet:
            sys.stderr.write(json.dumps(event, sort_keys=True) + "\n")

    worker = Worker(args.home, options, log=log)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())  # finish the job in hand, then stop
    sys.stderr.write(f"uac worker {worker.name}: workspace {args.home}, {worker.shared.where}\n")
    try:
        stats = worker.run(stop)
    finally:
        worker.close()
    summary = {
        "worker": stats.name,
        "done": stats.done,
        "failed": stats.failed,
        "lost": stats.lost,
        "seconds": round(stats.seconds, 3),
    }
    _out(
        json.dumps(summary, sort_keys=True)
        if args.json
        else " ".join(f"{k}={v}" for k, v in summary.items())
    )
    return 0


def cmd_workers(args: argparse.Namespace) -> int:
    """Show the job queue (status) or queue dead-lettered jobs again (retry)."""
    log = _shared_log(args)
    try:
        tenant = args.tenant if args.tenant_given else None
        if args.action == "retry":
            n = pg_jobs.retry_dead(log, tenant)
            _out(
                json.dumps({"requeued": n}) if args.json else f"queued {n} dead-lettered jobs again"
            )
            return 0
        status = pg_jobs.status(log, limit=args.limit, tenant=tenant)
    finally:
        log.close()
    data = status.as_dict()
    if args.json:
        _out(json.dumps(data, sort_keys=True))
        return 0
    states = data["states"]
    _out(
        f"queue depth {data['queue_depth']} (queued {states['queued']}, running "
        f"{states['running']}), done {states['done']}, dead letters {states['dead']}"
    )
    _out(
        f"oldest job waiting {data['oldest_lag_s']:.1f} s; {data['failing']} retrying after a "
        f"failure; {data['failures']} failed attempts, {data['runs']} successful runs in all"
    )
    for job in data["waiting"]:
        error = f"  last error: {job['last_error']}" if job["last_error"] else ""
        worker = f" on {job['worker']}" if job["worker"] else ""
        _out(
            f"  {job['tenant']}/{job['subject']}: {job['state']}{worker}, lag {job['lag_s']:.1f} s,"
            f" attempts {job['attempts']}{error}"
        )
    if states["dead"]:
        _out("queue the dead letters again with: uac workers retry")
    return 0


def add(command: Command) -> None:
    """Register the operations commands on the `uac` parser (runtime/cli.py)."""
    command(
        "migrate",
        cmd_migrate,
        "Apply pending schema migrations of every layer (workspace file and shared PostgreSQL"
        " database); idempotent, prints what it did.",
    )
    p = command(
        "worker",
        cmd_worker,
        "Run a compile-and-check worker for a node bound to PostgreSQL: claims jobs with "
        "per-subject leases until SIGTERM.",
    )
    p.add_argument("--batch", type=int, default=4, help="jobs claimed at once (default: 4)")
    p.add_argument(
        "--lease", type=float, default=pg_jobs.LEASE,
        help="seconds a claim holds a job unless renewed (default: %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--max-attempts", type=int, default=pg_jobs.MAX_ATTEMPTS,
        help="attempts before a job is dead-lettered (default: %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--retry-delay", type=float, default=pg_jobs.BASE_DELAY,
        help="seconds before the first retry; doubles each time (default: %(default)s)",
    )  # fmt: skip
    p.add_argument("--poll", type=float, default=1.0, help="seconds between claims when idle")
    p.add_argument(
        "--until-idle", action="store_true", help="stop once no job is queued or running"
    )
    p.add_argument(
        "--sink", action="append", metavar="NAME",
        help="queue raised alerts for this `uac serve` sink (webhook, jsonl); repeatable",
    )  # fmt: skip
    p = command(
        "workers",
        cmd_workers,
        "The job queue of the shared database: status (depth, lag per subject, failures, dead"
        " letters) or retry (queue dead letters again).",
    )
    p.add_argument("action", choices=("status", "retry"), help="status or retry")
    p.add_argument("--db", metavar="URL", help="the PostgreSQL database (default: the node's)")
    p.add_argument("--limit", type=int, default=20, help="oldest waiting jobs to list")
