"""A subject's freshness stamp: "this checkpoint was current with the log, and the log has not
changed since", kept beside the workspace so a one-shot query need not open DuckDB to know it.

Whether a checkpoint may be served is a question to the log (fact_log/duck.py: `is_changed`,
`served_problem`); asking it costs a local `uac query` DuckDB's engine, an open and two
statements (~47 ms, about 2x a bare interpreter). After a reader has asked it and the answer
was "serve", it records the answer in a stamp, `<home>/cache/fresh/<sha256 of the
address>.json`, and the next query of that subject trusts the stamp instead when all of this
holds:

- its MAC verifies under the workspace's chain key (fact_log/chain_keys.py, a file outside
  the database): the MAC covers the tenant, scope and subject, the checkpoint version, the
  SHA-256 of that version's files.json (which names its watermark and head) and the log's
  state below, so a stamp edited, made without the key, or copied from another subject or
  tenant does not verify;
- the subject's `current` pointer names that version and its files.json has that digest
  (a rolled-back pointer, a replaced checkpoint: no match);
- the log's files are as they were just before the reader asked: the DuckDB file and its
  write-ahead log, each by device, inode, size and modification and change times in
  nanoseconds (absent counts as a state). Every commit to the log, by any process, thread,
  verb or out-of-band tool (an append, a published checkpoint row, an erasure, a binding to
  PostgreSQL), writes one of the two files, so any write since the stamp makes it stale;
  nothing in the write paths has to remember to update it, and a writer killed half-way
  leaves the files changed (or nothing committed). An old stamp put back with an old pointer
  fails on the change time, which no one but the clock sets.

The state is taken before the reader opens the file, so a write that lands while it asks is
newer than the stamp. A write in the same tick of the file system's clock as the state
taken could leave the times unchanged; the reader therefore stamps only a log whose files
last changed `QUIET_S` seconds or more before (time stamps of 1 s or finer). The stamp is
written atomically (a temporary file, then `os.replace`): a torn stamp cannot be read, and
a stamp that does not parse is not trusted. Writing it is best effort (a workspace this
process cannot write is queried all the same); any doubt means "ask the log".

Only a workspace whose file is its log is stamped: a file bound to a PostgreSQL log is a
node's copy that other nodes' writes do not touch (the reader checks the file's `meta` for
the binding, as the lean reads do).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from uac.fact_log.addressing import Address
from uac.fact_log.chain_keys import KeyRing

STAMPS = Path("cache") / "fresh"  # under the workspace home
# Statements' rows kept by fact_log/read_cache.py under the same rules (purged with the stamps).
ROWS = Path("cache") / "rows"
DB_FILE = "uac.duckdb"
QUIET_S = 2.0  # a log's files must be this much older than the reader's look to be stamped
BOUND = "log_url"  # meta key of a workspace bound to PostgreSQL (fact_log/backends/postgres.py)

LogState = tuple[tuple[int, ...] | None, tuple[int, ...] | None]


def _file(path: Path) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def log_state(home: Path) -> LogState:
    """The workspace's DuckDB file and write-ahead log as the file system sees them now."""
    db = Path(home) / DB_FILE
    return _file(db), _file(db.with_name(DB_FILE + ".wal"))


def quiet(state: LogState, now_ns: int) -> bool:
    """True when both files (if present) last changed at least QUIET_S before now_ns."""
    limit = now_ns - int(QUIET_S * 1e9)
    return state[0] is not None and all(
        part is None or max(part[3], part[4]) <= limit for part in state
    )


def stamp_path(home: Path, addr: Address) -> Path:
    """Where a subject's stamp lives (its name a digest: the file names no one)."""
    key = f"{addr.tenant}\0{addr.scope}\0{addr.subject}".encode()
    return Path(home) / STAMPS / (hashlib.sha256(key).hexdigest()[:40] + ".json")


def _files_digest(directory: Path) -> str | None:
    try:
        return hashlib.sha256((Path(directory) / "files.json").read_bytes()).hexdigest()
    except OSError:
        return None


def _message(addr: Address, version: int, files: str, state: LogState) -> str:
    body = [addr.tenant, addr.scope, addr.subject, version, files, [list(p or ()) for p in state]]
    return "fresh:" + json.dumps(body, separators=(",", ":"))


def holds(home: Path, addr: Address, version: int, directory: Path, ring: KeyRing | None) -> bool:
    """True when the subject's stamp says its current checkpoint (`version` in `directory`)
    may be served: the MAC verifies, it names this version and files.json, and the log has
    not changed since. False for any doubt (no stamp, no key, a torn or edited file)."""
    if ring is None:
        return False
    try:
        raw = json.loads(stamp_path(home, addr).read_bytes())
        mac = raw["mac"]
        stamped = (raw["version"], raw["files"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    files = _files_digest(directory)
    if files is None or stamped != (version, files) or not isinstance(mac, str):
        return False
    now = log_state(home)
    return ring.check(_message(addr, version, files, now), mac)


def record(
    home: Path,
    addr: Address,
    version: int,
    directory: Path,
    state: LogState,
    ring: KeyRing | None,
    now_ns: int,
) -> bool:
    """Stamp the subject's current checkpoint as current with the log as it was in `state`
    (taken before the log was asked). Only a quiet log is stamped; best effort: True when
    a stamp was written."""
    files = _files_digest(directory)
    if ring is None or files is None or not quiet(state, now_ns):
        return False
    body: dict[str, Any] = {
        "version": version,
        "files": files,
        "mac": ring.sign(_message(addr, version, files, state)),
    }
    path = stamp_path(home, addr)
    tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(body, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        return False
    return True


def drop(home: Path) -> None:
    """Delete every stamp of the workspace and every statement's rows kept beside them
    (fact_log/read_cache.py): an erasure purges them with its caches."""
    for folder in (Path(home) / STAMPS, Path(home) / ROWS):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            (folder / name).unlink(missing_ok=True)
