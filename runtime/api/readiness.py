"""Liveness and readiness of one `uac serve` node (`/healthz`, `/readyz`).

Liveness says only that the process answers. Readiness says the node can serve requests
now: its workspace is open, and — when the log is on PostgreSQL and shared by several nodes —
the database answers a trivial query and is migrated. A load balancer takes a node out of
rotation while `/readyz` answers 503 (the database restarting or behind on migrations, the
workspace still opening) and back in when it answers 200 again; the body says which part is
not ready.

A storage fault a request met (a full disk: runtime/api/routes.py) keeps the node not ready
until a write succeeds again — a request's, or the probe `/readyz` itself writes and syncs
in the workspace directory (`storage_probe`) — so a node whose disk is full leaves rotation
instead of failing every write, and comes back once space is freed.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

import uac

PROBE = ".uac-ready-probe"
PROBE_BYTES = 1 << 20  # room for a write's log pages, roughly: less would pass a full disk


def liveness() -> dict[str, Any]:
    """The process answers."""
    return {"status": "ok", "version": uac.__version__}


def storage_probe(home: Path) -> str | None:
    """Write and sync a small file in the workspace directory: None when the disk takes it,
    else why not (one line)."""
    path = home / PROBE
    try:
        with open(path, "wb") as fh:
            fh.write(b"\0" * PROBE_BYTES)
            fh.flush()
            os.fsync(fh.fileno())
        return None
    except OSError as exc:
        return f"{exc.strerror or exc} ({path})"
    finally:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


def readiness(
    mem: Any, deliverer: Any = None, fault: str | None = None
) -> tuple[bool, dict[str, Any]]:
    """(ready, body) for a node serving the workspace `mem` (None while it opens); `fault`:
    the storage fault a write met that no write has got past since."""
    body: dict[str, Any] = {"ready": False, "version": uac.__version__}
    if mem is None:
        body["workspace"] = "opening"
        return False, body
    body["workspace"] = "open"
    if fault is not None:
        body["storage"] = fault
        return False, body
    # A shared log: this node is useless while the database is down.
    found = mem.store.backend.readiness()
    body.update(found)
    if found.get("database", "ok") != "ok":
        return False, body
    if deliverer is not None:
        body["outbox_pending"] = deliverer.pending()
    body["ready"] = True
    return True, body
