"""Scheduled evaluation: compile changed subjects, run every subject's checks, log a job.

`run_once` does one pass for a tenant. `serve` repeats a pass on a schedule — a fixed
interval (`Every`, first pass at once) or a cron expression (`Cron`, parsed by croniter,
evaluated in UTC, first pass at the next matching time) — with one instance per workspace
(a lock file holding the holder's pid), and stops cleanly on SIGTERM or SIGINT. Compiling is
done by a function the caller passes in (`compile_fn(address)`), so this module never
imports the runtime.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from uac.checks.alerts import evaluate_many
from uac.checks.model import DEFAULT_CONFIG, CheckConfig
from uac.checks.sinks import Sink
from uac.compiler import loader
from uac.compiler.inherit import with_members
from uac.fact_log.addressing import Address
from uac.fact_log.errors import InputError, UacError
from uac.fact_log.store import Store, utc_now

LOCK_FILE = "scheduler.lock"
BATCH = 250  # subjects per alert transaction of a pass


class SchedulerBusy(UacError):
    """Another scheduler already serves this workspace."""


@dataclass(slots=True)
class JobResult:
    """What one scheduled pass did."""

    id: int
    tenant: str
    today: dt.date
    duration_ms: float
    subjects: int = 0
    compiled: int = 0
    alerts_new: int = 0
    alerts_open: int = 0
    alerts_resolved: int = 0
    errors: dict[str, str] = field(default_factory=dict)  # subject → error
    preview: bool = False  # True: the alerts were compared as of `today`, nothing recorded


def _failed(result: Any) -> str | None:
    # compile_fn may return CompileResult(s); a failed compile is an error, not an exception.
    items = result if isinstance(result, list | tuple) else [result]
    for item in items:
        if getattr(item, "status", None) == "failed":
            return getattr(item, "error", None) or "compile failed"
    return None


def run_once(
    home: Path | str,
    tenant: str,
    today: dt.date,
    compile_fn: Callable[[Address], Any],
    *,
    store: Store | None = None,
    config: CheckConfig = DEFAULT_CONFIG,
    sinks: Iterable[Sink] = (),
    kind: str = "run_once",
    preview: bool = False,
) -> JobResult:
    """Compile changed subjects, evaluate every compiled subject, record a `jobs` row.

    `preview`: evaluate as of `today` against the stored alerts but store no alert change,
    deliver nothing and record no `jobs` row (its id is 0); compiles are stored as ever
    (a checkpoint depends on the log, not on the day).
    """
    home = Path(home)
    own = store is None
    store = store or Store.open(home)
    started_at, start = utc_now(), time.perf_counter()
    errors: dict[str, str] = {}
    compiled = new = still = resolved = 0
    sinks = list(sinks)
    try:
        # A changed group or tenant changes what its members inherit (compiler/inherit.py).
        for addr in with_members(store, tenant, store.changed_subjects(tenant)):
            try:
                problem = _failed(compile_fn(addr))
            except Exception as exc:  # one subject's failure must not stop the others
                problem = f"{type(exc).__name__}: {exc}"
            if problem:
                errors[str(addr)] = f"compile: {problem}"
            else:
                compiled += 1
        subjects = [Address(tenant, s.scope, s.subject) for s in store.subjects(tenant) if s.facts]
        # A preview neither uses nor updates what real passes settled.
        settled = {} if preview else _settled(home, tenant)
        states = {} if preview else _alert_states(store, tenant)
        evaluated: dict[Address, tuple[Any, ...]] = {}
        due: list[tuple[Address, tuple[Any, ...]]] = []
        for addr in subjects:
            version = loader.current_version(home, addr)
            if version is None:
                errors.setdefault(str(addr), "never compiled")
                continue
            inputs = (version, today, config)
            last = settled.get(addr)
            if last is not None and last[:3] == inputs and last[3] == states.get(addr):
                still += last[4]  # evaluating again would change nothing (see _settled)
                continue
            settled.pop(addr, None)
            due.append((addr, inputs))
        # Subjects are evaluated in batches: one read of their alerts and one write
        # transaction per batch instead of a few statements per subject.
        for at in range(0, len(due), BATCH):
            batch = dict(due[at : at + BATCH])
            outcome = evaluate_many(
                store, home, list(batch), today, config=config, sinks=sinks, preview=preview
            )
            for addr, result in outcome.items():
                if isinstance(result, Exception):
                    errors[str(addr)] = f"evaluate: {type(result).__name__}: {result}"
                    continue
                new += len(result.new)
                still += len(result.still_open)
                resolved += len(result.resolved)
                failures = {**result.errors, **result.delivery_errors}
                for name, err in failures.items():
                    errors[f"{addr}:{name}"] = err
                if not failures and result.version == batch[addr][0]:
                    evaluated[addr] = (*batch[addr], len(result.new) + len(result.still_open))
        if evaluated and not preview:
            after = _alert_states(store, tenant)
            for addr, (*inputs, still_open) in evaluated.items():
                settled[addr] = (*inputs, after.get(addr), still_open)
        duration = (time.perf_counter() - start) * 1000
        job_id = 0
        if not preview:
            job_id = store.con.execute("SELECT coalesce(max(id), 0) + 1 FROM jobs").fetchone()[0]
        job = JobResult(
            job_id,
            tenant,
            today,
            duration,
            len(subjects),
            compiled,
            new,
            new + still,
            resolved,
            errors,
            preview,
        )
        if preview:
            return job
        store.con.execute(
            "INSERT INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                job_id,
                tenant,
                kind,
                today,
                started_at,
                utc_now(),
                duration,
                job.subjects,
                compiled,
                new,
                job.alerts_open,
                resolved,
                len(errors),
                json.dumps(errors, sort_keys=True) if errors else None,
            ],
        )
        return job
    finally:
        if own:
            store.close()


# Per (workspace, tenant): subject -> (checkpoint version, today, config, digest of its
# alert rows, alerts open) after its last evaluation without errors in this process.
_SETTLED: dict[tuple[str, str], dict[Address, tuple[Any, ...]]] = {}
_SETTLED_LOCK = threading.Lock()


def _settled(home: Path, tenant: str) -> dict[Address, tuple[Any, ...]]:
    """What this process's passes settled for the tenant's subjects.

    Evaluating a subject is a function of its checkpoint, `today`, the config and its alert
    rows: with all four as they were after its last evaluation, evaluating it again stores
    nothing, resolves nothing and delivers nothing, so a pass skips it without importing
    its checkpoint. A day later (`today` moved), after a compile (a new version) or after
    an acknowledgement or a snooze (the rows moved), it is evaluated again.
    """
    with _SETTLED_LOCK:
        return _SETTLED.setdefault((str(home.resolve()), tenant), {})


def _alert_states(store: Store, tenant: str) -> dict[Address, str]:
    """A digest of every subject's alert rows (all columns), in one query."""
    rows = store.con.execute(
        "SELECT scope, subject, md5(string_agg(CAST(alerts AS VARCHAR), chr(10) ORDER BY id))"
        " FROM alerts WHERE tenant = ? GROUP BY ALL",
        [tenant],
    ).fetchall()
    return {Address(tenant, scope, subject): digest for scope, subject, digest in rows}


def jobs(store: Store, tenant: str, limit: int = 20) -> list[dict[str, Any]]:
    """The tenant's most recent job rows, newest first."""
    cur = store.con.execute(
        "SELECT * FROM jobs WHERE tenant = ? ORDER BY id DESC LIMIT ?", [tenant, limit]
    )
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


@dataclass(frozen=True, slots=True)
class Every:
    """Run at once, then every `seconds` after the previous run started."""

    seconds: float

    def next_run(self, last_start: dt.datetime | None, now: dt.datetime) -> dt.datetime:
        """When the next pass is due."""
        return now if last_start is None else last_start + dt.timedelta(seconds=self.seconds)

    def __str__(self) -> str:
        return f"every {self.seconds:g} s"


@dataclass(frozen=True, slots=True)
class Cron:
    """Run at the times a cron expression matches (5 fields, or 6 with seconds), in UTC."""

    expression: str

    def next_run(self, last_start: dt.datetime | None, now: dt.datetime) -> dt.datetime:
        """The first matching time after now (missed times are skipped, not caught up)."""
        from croniter import croniter  # parsed when a cron schedule runs

        return croniter(self.expression, now).get_next(dt.datetime)

    def __str__(self) -> str:
        return f"cron {self.expression!r} (UTC)"


def parse_cron(text: str) -> Cron:
    """A validated cron schedule, e.g. '0 * * * *' (hourly) or '*/10 * * * *'."""
    from croniter import croniter

    if not text or not croniter.is_valid(text):
        raise InputError(
            f"invalid cron expression {text!r}: use five fields 'minute hour day month weekday'"
            " (e.g. '0 * * * *' for hourly), or six with seconds last"
        )
    return Cron(text.strip())


def parse_every(text: str) -> float:
    """Seconds in an interval such as '90', '30s', '10m', '2h' or '1d'."""
    match = re.fullmatch(r"\s*(\d+)\s*([smhd]?)\s*", text or "")
    if not match or int(match.group(1)) == 0:
        raise InputError(
            f"invalid interval {text!r}: use a positive number with s, m, h or d (e.g. 10m),"
            " or --cron for a cron expression"
        )
    return int(match.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[match.group(2)]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def acquire_lock(home: Path | str) -> Path:
    """Take the workspace's scheduler lock (pid file); SchedulerBusy if a live holder has it."""
    lock = Path(home) / LOCK_FILE
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                pid = int(lock.read_text().strip() or 0)
            except (OSError, ValueError):
                pid = 0
            if pid and pid != os.getpid() and _alive(pid):
                raise SchedulerBusy(
                    f"a scheduler is already running for workspace {home} (pid {pid}); "
                    f"stop it first (kill {pid}) or remove {lock} if that process is not uac"
                ) from None
            lock.unlink(missing_ok=True)  # stale: its holder died without cleaning up
            continue
        with os.fdopen(fd, "w") as fh:
            fh.write(f"{os.getpid()}\n")
        return lock
    raise SchedulerBusy(f"could not take the scheduler lock {lock}")


def release_lock(lock: Path) -> None:
    """Remove the lock file if this process holds it."""
    try:
        if int(lock.read_text().strip() or 0) == os.getpid():
            lock.unlink()
    except (OSError, ValueError):
        pass


def serve(
    home: Path | str,
    schedule: Every | Cron | float,
    tick: Callable[[dt.date], Any],
    *,
    clock: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC),
    max_runs: int | None = None,
    stop: threading.Event | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> int:
    """Call tick(today) on the schedule until SIGTERM/SIGINT (or max_runs); returns runs done.

    A number is an interval in seconds. `tick` usually opens the workspace, calls `run_once`
    and closes it again, so the DuckDB lock is held only while a pass runs and other writers
    can use the workspace in between. `clock` gives the current UTC time (and `today`).
    """
    if not isinstance(schedule, Every | Cron):
        schedule = Every(float(schedule))
    if isinstance(schedule, Every) and schedule.seconds <= 0:
        raise InputError("the interval must be positive")
    lock = acquire_lock(home)
    stop = stop or threading.Event()
    previous: dict[int, Any] = {}

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log(f"received signal {signum}; stopping after the current run")
        stop.set()

    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, on_signal)
    runs = 0
    last: dt.datetime | None = None
    log(f"scheduler started: {schedule}")
    try:
        while not stop.is_set():
            due = schedule.next_run(last, clock())
            wait = (due - clock()).total_seconds()
            if wait >= 1:
                log(f"next run at {due:%Y-%m-%d %H:%M:%S} UTC")
            if stop.wait(max(0.0, wait)):
                break
            last = clock()
            try:
                outcome = tick(last.date())
                log(f"run {runs + 1}: {outcome}")
            except Exception as exc:  # keep serving: the next run may succeed
                log(f"run {runs + 1} failed: {type(exc).__name__}: {exc}")
            runs += 1
            if max_runs is not None and runs >= max_runs:
                break
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        release_lock(lock)
    return runs
