"""Liveness and readiness of one `uac serve` node (`/healthz`, `/readyz`).

Liveness says only that the process answers. Readiness says the node can serve requests
now: its workspace is open, and — when the log is on PostgreSQL and shared by several nodes —
the database answers a trivial query and is migrated. A load balancer takes a node out of
rotation while `/readyz` answers 503 (the database restarting or behind on migrations, the
workspace still opening) and back in when it answers 200 again; the body says which part is
not ready.
"""

from __future__ import annotations

from typing import Any

import uac


def liveness() -> dict[str, Any]:
    """The process answers."""
    return {"status": "ok", "version": uac.__version__}


def readiness(mem: Any, deliverer: Any = None) -> tuple[bool, dict[str, Any]]:
    """(ready, body) for a node serving the workspace `mem` (None while it opens)."""
    body: dict[str, Any] = {"ready": False, "version": uac.__version__}
    if mem is None:
        body["workspace"] = "opening"
        return False, body
    body["workspace"] = "open"
    # A shared log: this node is useless while the database is down.
    found = mem.store.backend.readiness()
    body.update(found)
    if found.get("database", "ok") != "ok":
        return False, body
    if deliverer is not None:
        body["outbox_pending"] = deliverer.pending()
    body["ready"] = True
    return True, body
