"""Commands that run uac as a service and operate its nodes: serve, mcp, tools, demo,
migrate, worker, workers (status and retry of the shared job queue), outbox (alerts waiting
for a sink: list, retry, drop)."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import threading
from pathlib import Path
from typing import Any

from uac.fact_log.errors import InputError, WorkspaceError
from uac.runtime.cli.common import (
    _client,
    _err,
    _memory,
    _out,
    _print_json,
)


def _file_state(home: Path) -> tuple[dict[str, int], str | None]:
    """The workspace file's owner versions and the log URL it is bound to (read-only look)."""
    import duckdb

    from uac.fact_log.backends.postgres import META_KEY
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
    from uac.fact_log.backends import pg_alerts  # noqa: F401
    from uac.runtime.api import memory  # noqa: F401 (the log, compiler, checks, service tables)
    from uac.runtime.search import schema  # noqa: F401


def _shared_state(url: str) -> dict[str, int]:
    from uac.fact_log.backends import pg_schema
    from uac.fact_log.backends.pg_log import PgLog

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
    from uac.fact_log.backends.pg_log import redact
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
    from uac.fact_log.backends.pg_log import PgLog
    from uac.fact_log.backends.postgres import ENV

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
    import signal

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
    from uac.fact_log.backends import pg_jobs

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


def cmd_outbox(args: argparse.Namespace) -> int:
    """List the tenant's outbox rows, queue rows again (retry) or delete them (drop)."""
    from uac.runtime.api import outbox

    client = _client(args)
    if client is not None:  # the server holds the workspace: it runs the command
        return _outbox_forwarded(client, args)
    with _memory(args) as mem:
        if args.action == "list":
            found = outbox.rows(mem.store, mem.tenant, args.status, args.limit)
            counts = outbox.counts(mem.store, mem.tenant)
        elif args.action == "retry":
            n = outbox.retry(mem.store, mem.tenant, args.ids)
            _out(json.dumps({"requeued": n}) if args.json else f"queued {n} outbox rows again")
            return 0
        else:
            n = outbox.drop(mem.store, mem.tenant, args.ids)
            _out(json.dumps({"dropped": n}) if args.json else f"dropped {n} outbox rows")
            return 0
    return _outbox_listed(args, counts, found)


def _outbox_forwarded(client: Any, args: argparse.Namespace) -> int:
    """`uac outbox` through the server that holds the workspace (its admin routes)."""
    if args.action == "list":
        body = {"status": args.status, "limit": args.limit}
        got = client.request("POST", "/v1/admin/outbox/list", body)
        for row in got["rows"]:
            for name in ("next_at", "created_at", "delivered_at"):
                if isinstance(row.get(name), str):
                    row[name] = dt.datetime.fromisoformat(row[name])
        return _outbox_listed(args, got["counts"], got["rows"])
    got = client.request("POST", f"/v1/admin/outbox/{args.action}", {"ids": list(args.ids)})
    if args.json:
        _out(json.dumps(got))
    elif args.action == "retry":
        _out(f"queued {got['requeued']} outbox rows again")
    else:
        _out(f"dropped {got['dropped']} outbox rows")
    return 0


def _outbox_listed(
    args: argparse.Namespace, counts: dict[str, int], found: list[dict[str, Any]]
) -> int:
    """Print outbox rows and counts as `uac outbox list` shows them."""
    if getattr(args, "jsonl", False):  # the rows, one compact object a line
        for row in found:
            _out(json.dumps(row, ensure_ascii=False, sort_keys=True, default=str))
        return 0
    if args.json:
        _print_json({"counts": counts, "rows": found})
        return 0
    _out(", ".join(f"{n} {status}" for status, n in counts.items()))
    for row in found:
        error = f"  last error: {row['last_error']}" if row["last_error"] else ""
        _out(
            f"  #{row['id']} {row['status']} to {row['sink']}: alert {row['alert_id']},"
            f" {row['attempts']} attempts, next {row['next_at']:%Y-%m-%d %H:%M:%S}{error}"
        )
    if counts["dead"]:
        _out("queue the dead rows again with: uac outbox retry")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from uac.checks.scheduler import Every, parse_cron, parse_every
    from uac.runtime.api.server import REACTION_WAIT, ServeOptions, run

    schedule = None
    if args.cron:
        schedule = parse_cron(args.cron)
    elif args.every:
        schedule = Every(parse_every(args.every))
    if args.host not in ("127.0.0.1", "localhost", "::1") and not args.public:
        raise InputError(
            f"refusing to listen on {args.host}: uac serve binds to 127.0.0.1 unless you pass "
            "--public (and put TLS in front of it)"
        )
    from uac.runtime.api.outbox_settings import OutboxSettings

    delivery = OutboxSettings(
        workers=args.outbox_workers,
        per_sink=args.outbox_per_sink,
        max_delay=args.outbox_max_delay,
        horizon=args.outbox_horizon * 3600,
        timeout=args.webhook_timeout,
    )
    options = ServeOptions(
        delivery=delivery,
        webhooks=[args.webhook] if args.webhook else [],
        alerts_jsonl=args.alerts_jsonl,
        schedule=schedule,
        mcp_sessions_per_key=args.mcp_sessions_per_key,
        mcp_idle_seconds=args.mcp_idle_timeout,
        reaction_wait=REACTION_WAIT if args.reaction_wait is None else args.reaction_wait,
    )

    def announce(url: str) -> None:  # once the port is bound and the workspace opened
        _err(f"uac serve: workspace {args.home}, {url} (Ctrl-C to stop)")

    status = run(args.home, host=args.host, port=args.port, options=options, announce=announce)
    # Stopped: the workspace closed and the server file released; nothing is left to finish
    # but the functions registered to run at exit (the sandbox's shutdown): the command may
    # end at once (`main`), without the interpreter's teardown (~0.2 s CPU, ~1 s at load).
    args._lean = True
    return status


def cmd_mcp(args: argparse.Namespace) -> int:
    client = _client(args)
    if client is not None:
        from uac.runtime.api.mcp_server import serve_tools

        def run_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            return client.call("tool", args.subject, name=name, arguments=arguments)

        serve_tools(run_tool, args.subject)
        return 0
    from uac.runtime.api.mcp_server import serve

    with _memory(args) as mem:
        mem.address(args.subject)  # fail before serving if the subject is malformed
        serve(mem, args.subject)
    return 0


def cmd_tools(args: argparse.Namespace) -> int:
    from uac.runtime.api.tools import openai_specs

    _print_json(openai_specs())
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from uac.runtime.examples.demo import run_demo

    if not args.json:
        return run_demo(args.home if args.home_given else None, fresh=args.fresh, out=_out)
    tour: list[str] = []  # --json: the tour as one document
    code = run_demo(args.home if args.home_given else None, fresh=args.fresh, out=tour.append)
    _print_json({"tour": tour})
    return code
