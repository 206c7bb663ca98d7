"""Where a CLI call runs: is a `uac serve` serving this workspace (its `server.json`), or are
UAC_URL and UAC_API_KEY set? Standard library only, and not the `Client`: a local call
asks this and never imports the client, its verb methods or its wire decoding."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

SERVER_FILE = "server.json"
DB_FILE = "uac.duckdb"  # the workspace file a live server holds locked (fact_log/store.py)
# `uac serve`'s MCP limits (runtime/api/server.py), here so the CLI's parser, which loads
# only the standard library, shows the same defaults. The SDK caps sessions globally
# (10,000): one key holder could take them all, so each key gets its own cap, and a session
# unused for MCP_IDLE_SECONDS ends (the SDK's default is 30 minutes).
MCP_SESSIONS_PER_KEY = 100
MCP_IDLE_SECONDS = 600.0


def live_server(home: Path | str) -> dict[str, Any] | None:
    """The workspace's `server.json` when its server is alive, else None (no file, or stale).

    Alive means its process exists AND the workspace file is locked: after a crash the pid
    may belong to another process by now (containers reuse them), but the lock went with the
    server. Call it only from a process that does not hold the workspace open itself (closing
    the probe's descriptor would drop that process's own lock).
    """
    import fcntl

    home = Path(home).expanduser()
    try:
        info = json.loads((home / SERVER_FILE).read_text())
        pid = int(info["pid"])
        os.kill(pid, 0)
    except PermissionError:
        pass  # alive, another user's
    except (OSError, ValueError, KeyError, TypeError):
        return None  # no server file, unreadable, or its process is gone
    if pid == os.getpid():
        return info
    try:
        fd = os.open(home / DB_FILE, os.O_RDONLY)
    except OSError:
        return None  # no workspace file: nothing can be serving it
    try:
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return info  # held: the server has it open
    finally:
        os.close(fd)
    return None


def forwarded(home: Path | str | None, *, remote: bool = True) -> bool:
    """Whether `Client.discover` would find a server for this call (the remote one named by
    UAC_URL + UAC_API_KEY unless `remote` is False, else the workspace's live server)."""
    if remote and os.environ.get("UAC_URL") and os.environ.get("UAC_API_KEY"):
        return True
    return home is not None and live_server(home) is not None
