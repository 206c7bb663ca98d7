"""Legal erase, end to end: the log side (fact_log/erase.py), then everything derived from it.

One erase of a subject runs under that subject's lock (compiler/locks.py), the lock every
compile, check and reaction of the subject holds: a compile that started before the erase
finishes first (and its checkpoint is deleted below); one that starts after reads the
blanked log. In order:

1. the log: facts and inputs blanked, hashes kept (fact_log/erase.py);
2. the compiler's in-process fact cache of the subject (compiler/cache.py `drop`);
3. search rows and vectors of the erased items (SearchIndex.purge);
4. alerts whose facts were erased: message, computation and record keys blanked, resolved;
   their outbox rows (payloads are whole alerts) deleted; the subject's checkpoint rows'
   error text and scheduled jobs' error details blanked (errors can quote values);
5. checkpoints: the subject is compiled again from the blanked log and every other version
   directory is deleted (a failed compile deletes them all: better no state than erased state);
6. the workspace file is rewritten so no overwritten byte survives (fact_log/erase.py
   `compact_file`), and the report is stored and returned.

Step 1 commits with a `pending` report; a process killed after it leaves that record, and the
next writable open of the workspace runs steps 2-6 again (`resume_pending`, each idempotent).

The report names ids, tables, counts and files — never the erased content.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from uac.compiler import cache, loader, shared_checkpoints
from uac.compiler.locks import subject_lock
from uac.fact_log import freshness
from uac.fact_log.addressing import Address
from uac.fact_log.backends import write_keys
from uac.fact_log.backends.pg_artifacts import Artifacts, digest
from uac.fact_log.erase import (
    ERASED_OP,
    LogErasure,
    compact_file,
    erase_log,
    erasure_reports,
    pending_erasures,
    record_report,
)
from uac.fact_log.erase import (
    apply_shared as blank_copy,
)
from uac.fact_log.errors import InputError, NotFound, UacError
from uac.fact_log.progress_callback import Report
from uac.fact_log.scopes import MEMBERSHIP_PATH, promoted_from
from uac.fact_log.store import Store, utc_now
from uac.fact_log.tamper import reseal
from uac.runtime.api import schema as service_schema  # noqa: F401 (the outbox table)
from uac.runtime.api.lean_recall import QUERY_CACHE

# `mem` below is a runtime.api.memory.Memory; typed Any because memory.py imports this
# module (the import-linter contract forbids the cycle a type import would make).
Memory = Any

STEPS = ("log", "search", "alerts", "checkpoints", "file")
ERASED = "(erased)"
_SUBJECT = "tenant = ? AND scope = ? AND subject = ?"


def erase(
    mem: Memory,
    subject: str,
    fact_ids: list[str] | None,
    *,
    reason: str,
    now: dt.datetime | None = None,
    progress: Report | None = None,
) -> dict[str, Any]:
    """Erase the named facts (None: everything of the subject) and all derived data.

    Under an idempotency key (fact_log/backends/write_keys.py) the erasure's id is recorded
    in the transaction that blanks the log: a retry of the key erases nothing again and
    answers with that erasure's report (completed first if a kill left it pending)."""
    if mem.store.read_only:
        raise InputError(f"workspace {mem.home} was opened read-only; an erase writes")
    addr = mem.address(subject)
    now = now or utc_now()

    def step(n: int) -> None:
        if progress is not None:
            progress(STEPS[n - 1] if n <= len(STEPS) else "done", n, len(STEPS))

    slot = write_keys.take()
    earlier = write_keys.answered(slot)
    with subject_lock(mem.home, addr):
        if earlier is not None:
            report, promoted = _erased_before(mem, addr, earlier["erasure"], step)
        else:
            try:
                log = erase_log(
                    mem.store, addr, fact_ids, reason=reason, actor=mem.actor, now=now, slot=slot
                )
            except (InputError, NotFound):
                write_keys.rolled_back(slot)  # refused before anything was written
                raise
            write_keys.settle(slot)
            report, promoted = _purge_derived(mem, log, step), []
    # The user's facts promoted to a group live on as the group's copies: they go too (a
    # retry answers with the erasures its first run made of them, and erases those left).
    erased = {f["id"] for f in report["facts"]}
    promoted += [done["erasure"] for done in write_keys.answered_next()]
    report["promoted_copies"] = promoted + [
        erase(mem, group, copies, reason=f"{reason} (promoted from {addr})", now=now)["id"]
        for group, copies in _promoted_copies(mem, str(addr), erased).items()
    ]
    report["verified"] = mem.verify().ok
    return report


def _erased_before(
    mem: Memory, addr: Address, erasure_id: str, step: Callable[[int], None]
) -> tuple[dict[str, Any], list[str]]:
    """The report of an erasure an earlier run of a keyed request made (its purge finished
    now if a kill left it pending); no promoted copies yet (the caller adds them)."""
    mem.store.backend.sync(addr)  # a shared log: the erasure reaches this node's copy
    for log in pending_erasures(mem.store):
        if log.id == erasure_id:
            return _purge_derived(mem, log, step), []
    for report in erasure_reports(mem.store, addr):
        if report["id"] == erasure_id:
            return report, []
    raise UacError(f"erasure {erasure_id} of {addr} is recorded under the key but not found")


def _inheritors(mem: Memory, addr: Address) -> list[Address]:
    """The users whose compiled state may hold a group's (members, ever) or the tenant's
    (every user) values: their checkpoints are republished when those are erased."""
    if addr.scope == "group":
        users = {f.record_key for f in mem.facts(str(addr)) if f.path == MEMBERSHIP_PATH}
    elif addr.scope == "tenant":
        users = {i.subject for i in mem.subjects() if i.scope == "user"}
    else:
        return []
    return [Address(addr.tenant, "user", u) for u in sorted(u for u in users if u)]


def _promoted_copies(mem: Memory, user: str, erased: set[str]) -> dict[str, list[str]]:
    """The groups' copies of erased facts the user promoted: group subject -> fact ids."""
    if not erased or mem.address(user).scope != "user":
        return {}
    found: dict[str, list[str]] = {}
    for info in mem.subjects():
        if info.scope != "group":
            continue
        group = f"group:{info.subject}"
        for fact in mem.facts(group):
            if fact.op == ERASED_OP:  # erased already (by an earlier run of a keyed retry)
                continue
            origin = promoted_from(fact) or {}
            if origin.get("subject") == user and origin.get("fact") in erased:
                found.setdefault(group, []).append(fact.id)
    return found


def resume_pending(mem: Memory) -> list[dict[str, Any]]:
    """Finish erases a killed process left after blanking the log (at a writable open).

    The log side commits with a `pending` report; search rows, alerts, outbox, checkpoints
    and the file's free blocks may still hold the content. Every purge step is idempotent,
    so running them again completes the erase and its report with no hand work. On a
    shared log, erasures other nodes made of subjects this file holds are applied first.
    """
    # Erasures other nodes made while this one was down, of subjects its file holds.
    for addr, listing in mem.store.backend.missed_erasures():
        blank_copy(mem.store, addr, listing)
    done = []
    for log in pending_erasures(mem.store):
        view = mem.for_tenant(log.address.tenant)
        with subject_lock(mem.home, log.address):
            done.append(_purge_derived(view, log, lambda n: None))
    return done


def apply_shared(mem: Memory, addr: Address, shared: list[dict[str, Any]]) -> None:
    """Apply to this node's copy the erasures another node made of a subject, then purge."""
    if blank_copy(mem.store, addr, shared):
        resume_pending(mem)


def _purge_derived(mem: Memory, log: LogErasure, step: Callable[[int], None]) -> dict[str, Any]:
    """Purge what was derived from the blanked rows, then complete the report (steps 1-5)."""
    addr = log.address
    cache.drop(mem.store, addr)
    step(1)
    items = [f["id"] for f in log.facts] + log.inputs
    purged = mem._purge_search(addr, items)
    # The lean search's query cache keeps past query words in plain text and is not keyed
    # by subject: an erasure drops all of it (it is rebuilt by the next searches).
    shutil.rmtree(mem.home / QUERY_CACHE, ignore_errors=True)
    # The query's freshness stamps: the erasure's writes already made them stale (they are
    # bound to the log's files); dropped all the same, with the other caches.
    freshness.drop(mem.home)
    step(2)
    erased = {f["id"] for f in log.facts}
    alert_ids = _blank_alerts(mem.store, addr, erased, log.what == "all")
    outbox = _drop_outbox(mem.store, addr.tenant, alert_ids)
    # The shared alerts and outbox, if the log is shared (idempotent: any node may run it).
    key = (addr.tenant, addr.scope, addr.subject)
    shared, dropped = mem.store.backend.alerts.erase(
        key, erased, log.what == "all", ERASED, utc_now().date()
    )
    alert_ids, outbox = sorted(set(alert_ids) | set(shared)), outbox + dropped
    step(3)
    artifacts = shared_checkpoints.artifacts(mem.store)
    republished, removed = _republish(mem, addr)
    blobs = _forget_shared(artifacts, mem, addr, republished)
    # Users who inherit from a group or the tenant hold its values in their own versions.
    for heir in _inheritors(mem, addr):
        with subject_lock(mem.home, heir):  # as a reaction compiling the heir would hold it
            version, gone = _republish(mem, heir)
        removed += gone
        blobs += _forget_shared(artifacts, mem, heir, version)
    step(4)
    mem._forget_reaction(addr)
    where = {
        "facts": len(log.facts),
        "inputs": len(log.inputs),
        "rejections": log.rejections,
        "search_docs": purged,
        "alerts": len(alert_ids),
        "outbox": outbox,
        "checkpoint_versions_removed": removed,
    }
    if artifacts is not None:
        where["shared_blobs_removed"] = len(blobs)
    report = {
        "id": log.id,
        "tenant": addr.tenant,
        "subject": str(addr),
        "what": log.what,
        "reason": log.reason,
        "by": log.actor,
        "at": log.erased_at.isoformat(),
        "facts": log.facts,
        "inputs": log.inputs,
        "alerts": alert_ids,
        "where": where,
        "checkpoint": republished,
    }
    record_report(mem.store, log, report)
    # The first node to complete the shared report vacuums the shared tables once.
    vacuumed = mem.store.backend.erasure_done(log.id, report)
    if vacuumed is not None:
        where["shared_tables_vacuumed"] = vacuumed
    where["file_bytes"] = compact_file(mem.store)
    step(5)
    return report


def reports(mem: Memory, subject: str | None) -> list[dict[str, Any]]:
    """Stored erasure reports of one subject (or of the tenant), oldest first."""
    if subject is not None:
        return erasure_reports(mem.store, mem.address(subject))
    return [r for r in erasure_reports(mem.store) if r.get("tenant") == mem.tenant]


def _blank_alerts(store: Store, addr: Address, facts: set[str], every: bool) -> list[str]:
    """Blank (and resolve) the subject's alerts built on erased facts; returns their ids."""
    key = [addr.tenant, addr.scope, addr.subject]
    con = store.con
    rows = con.execute(f"SELECT id, fact_ids FROM alerts WHERE {_SUBJECT}", key).fetchall()
    ids = sorted(aid for aid, used in rows if every or facts & set(json.loads(used or "[]")))
    with store.write_lock:
        con.execute("BEGIN")
        try:
            pick = f"{_SUBJECT} AND id IN (SELECT unnest(?::VARCHAR[]))"
            con.execute(
                "UPDATE alerts SET message = ?, computation = ?, record_keys = '[]',"
                " delivery_error = NULL, status = 'resolved',"
                f" resolved_on = coalesce(resolved_on, ?) WHERE {pick}",
                [ERASED, ERASED, utc_now().date(), *key, ids],
            )
            reseal(con, store.signer(), "alerts", pick, [*key, ids])
            # A failed compile's error can quote a value: the subject's rows lose it.
            where = f"{_SUBJECT} AND error IS NOT NULL"
            con.execute(f"UPDATE checkpoints SET error = '{ERASED}' WHERE {where}", key)
            reseal(con, store.signer(), "checkpoints", _SUBJECT, key)
            # A scheduled run's detail maps subjects to their errors (same reason).
            con.execute(
                "UPDATE jobs SET detail = NULL WHERE tenant = ? AND contains(detail, ?)",
                [addr.tenant, json.dumps(str(addr))],
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return ids


def _drop_outbox(store: Store, tenant: str, alert_ids: list[str]) -> int:
    """Delete outbox rows of blanked alerts (their payload is the whole alert)."""
    if not alert_ids:
        return 0
    with store.write_lock:
        row = store.con.execute(
            "DELETE FROM outbox WHERE tenant = ? AND alert_id IN (SELECT unnest(?::VARCHAR[]))"
            " RETURNING id",
            [tenant, alert_ids],
        ).fetchall()
    return len(row)


def _forget_shared(
    artifacts: Artifacts | None, mem: Memory, addr: Address, version: int | None
) -> list[str]:
    """Delete the subject's shared checkpoint records but the republished one, and the
    blobs only they named; the digests removed (also from this node's blob cache)."""
    if artifacts is None:  # checkpoints are not shared
        return []
    keep = None
    if version is not None:
        folder = loader.subject_dir(mem.home, addr) / "versions" / loader.version_name(version)
        keep = digest((folder / loader.FILES).read_bytes())
    gone = artifacts.forget(addr, keep)
    _drop_cached(mem.home, gone)
    return gone


def _republish(mem: Memory, addr: Address) -> tuple[int | None, int]:
    """Compile the subject from the blanked log; delete every other checkpoint version."""
    base = loader.subject_dir(mem.home, addr)
    if not base.exists():
        return None, 0
    versions = base / "versions"
    before = {p.name for p in versions.glob("v*")} if versions.exists() else set()
    version: int | None = None
    try:
        (result,) = mem.compile(str(addr), keep=len(before) + 1)  # pruning is done below
        if result.status == "published":
            version = result.version
            loader.load(mem.home, addr)  # the old version's modules leave sys.modules
    except UacError:
        version = None
    keep = loader.version_name(version) if version is not None else None
    for path in sorted(versions.iterdir()) if versions.exists() else []:
        if path.name != keep:
            _uncache(mem.home, path)
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
    for sig in sorted((base / loader.PLACED).glob("*.sig")):  # the removed versions' seals
        if keep is None or sig.name != f"{keep}.sig":
            sig.unlink(missing_ok=True)
    if version is None:
        (base / "current").unlink(missing_ok=True)
    return version, len(before - {keep})


def _uncache(home: Path, version: Path) -> None:
    """Delete a version's files from this node's shared-blob cache
    (compiler/shared_checkpoints.py)."""
    try:
        stamp = (version / loader.FILES).read_bytes()
        files = json.loads(stamp).get("files", {})
    except (OSError, ValueError):
        return
    _drop_cached(home, [digest(stamp), *files.values()])


def _drop_cached(home: Path, keys: list[str]) -> None:
    for key in keys:
        (home / shared_checkpoints.CACHE / key[:2] / key).unlink(missing_ok=True)
