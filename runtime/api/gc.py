"""The garbage collector of derived data (`uac gc`): compacts what the log can rebuild.

Never the log: facts, inputs, rejections, anchors and erasure reports are not touched (a
legal erase is the only rewrite of the log, runtime/api/erase.py). For one tenant it drops:

* search rows (docs, postings, vectors) of items a retract hid: a search never returns them,
  so they only cost space and time (SearchIndex.purge); a rebuild would skip them too;
* checkpoint versions beyond the newest `keep` of each subject (default DEFAULT_KEEP, the
  number a compile keeps; the current version is never deleted);
* outbox rows delivered (or given up on, `dead`) more than `older_than_days` ago (on a
  workspace bound to PostgreSQL, the tenant's rows of the shared outbox there too);
* job records (scheduled runs, all finished when recorded) older than `older_than_days`
  (the shared job queue holds one row a subject, its state: nothing to collect);
* on a workspace bound to a shared log (PostgreSQL): every shared checkpoint record of the
  tenant's subjects but the newest, and the blobs only those named (`shared_blobs`). Nodes
  only ever fetch the newest record, and a node that started fetching one just dropped finds a
  blob missing and compiles from the log instead (compiler/shared_checkpoints.py), so this is
  safe while other nodes run; each node's local cache of blobs is its own (dropped with its
  versions).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from uac.compiler import shared_checkpoints
from uac.compiler.checkpoint import DEFAULT_KEEP, prune_versions
from uac.fact_log.addressing import Address
from uac.fact_log.errors import InputError
from uac.fact_log.store import utc_naive, utc_now
from uac.runtime.api import schema as service_schema  # noqa: F401 (the outbox table)

DEFAULT_OLDER_THAN_DAYS = 30  # delivered outbox rows and job records younger than this stay

# `mem` is a runtime.api.memory.Memory (typed Any: memory.py imports this module).
Memory = Any


def collect(
    mem: Memory,
    *,
    keep: int = DEFAULT_KEEP,
    older_than_days: int = DEFAULT_OLDER_THAN_DAYS,
    now: dt.datetime | None = None,
) -> dict[str, int]:
    """One pass over the tenant's derived data; returns how many of each were dropped."""
    if keep < 1:
        raise InputError(f"--keep must be at least 1 (the current checkpoint), got {keep}")
    if older_than_days < 0:
        raise InputError(f"--older-than must be 0 days or more, got {older_than_days}")
    if mem.store.read_only:
        raise InputError(f"workspace {mem.home} was opened read-only; gc writes")
    try:
        cutoff = utc_naive(now or utc_now()) - dt.timedelta(days=older_than_days)  # type: ignore[operator]
    except OverflowError:
        raise InputError(
            f"--older-than {older_than_days} days before {now or 'now'} is before year 1"
        ) from None
    out = {"search_docs": 0, "checkpoint_versions": 0, "outbox": 0, "jobs": 0}
    shared = shared_checkpoints.artifacts(mem.store)
    if shared is not None:
        out["shared_blobs"] = 0
    for info in mem.subjects():
        addr = Address(mem.tenant, info.scope, info.subject)  # type: ignore[arg-type]
        out["search_docs"] += mem._purge_search(addr, None)
        out["checkpoint_versions"] += prune_versions(mem.home, addr, keep)
        if shared is not None and (newest := shared.latest(addr)) is not None:
            out["shared_blobs"] += len(shared.forget(addr, newest.manifest))
    store = mem.store
    with store.write_lock:
        out["outbox"] = store.backend.outbox.collect(mem.tenant, cutoff)
        out["jobs"] = len(
            store.con.execute(
                "DELETE FROM jobs WHERE tenant = ? AND finished_at < ? RETURNING id",
                [mem.tenant, cutoff],
            ).fetchall()
        )
    return out
