"""Placing a version directory, and sharing checkpoints between nodes.

`place` renames a complete, signed version directory into the subject's `versions/` (the
compiler's publish and a fetch both end with it).

When the workspace's log is on PostgreSQL (fact_log/backends/postgres.py), a node that
publishes a present-time checkpoint uploads its files as content-addressed blobs and records
it (fact_log/backends/pg_artifacts.py). A node about to serve a subject asks for the latest
record first: if it folded more of the log than the node's own current checkpoint, the node
fetches it instead of compiling.

Fetched blobs go to this node's read cache, `<home>/blobs/<aa>/<digest>`, keyed by digest.
Every blob is hashed when it is read (from the cache or the store) and a blob whose bytes do
not match its name is thrown away and fetched again; a checkpoint whose manifest
(`files.json`) does not carry the chain key's signature, or names another subject, or lists
a file whose bytes do not match, is never installed: the node compiles from the log instead.
An installed checkpoint is an ordinary signed version directory, so the loader verifies it
again on import like any other.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

from uac.compiler.loader import (
    FILES,
    SIGNATURE,
    bind,
    content_signature,
    current_version,
    subject_dir,
    version_name,
)
from uac.compiler.locks import subjects_locked
from uac.fact_log.addressing import Address
from uac.fact_log.backends.pg_artifacts import Artifacts, Published, digest
from uac.fact_log.errors import WorkspaceError
from uac.fact_log.store import Store, utc_now

CACHE = "blobs"


def place(store: Store, addr: Address, tmp: Path, current: bool) -> tuple[int, Path]:
    """Rename a complete, signed version directory into place (and make it current)."""
    base = subject_dir(store.home, addr)
    # A crash between the rename below and the database row leaves a version
    # directory with no row: number past it, so the subject never wedges.
    version = max(store.next_version(addr), last_on_disk(base) + 1)
    final = base / "versions" / version_name(version)
    bind(tmp, store.signer(), addr, version, base)  # a signature pins subject and version
    os.replace(tmp, final)
    if current:
        pointer = base / f".current-{uuid.uuid4().hex}"
        pointer.write_text(version_name(version) + "\n")
        os.replace(pointer, base / "current")
    return version, final


def last_on_disk(base: Path) -> int:
    """The highest version number with a directory (published or orphaned by a crash)."""
    numbers = [
        int(p.name[1:])
        for p in (base / "versions").glob("v*")
        if p.name[1:].isdigit() and p.is_dir()
    ]
    return max(numbers, default=0)


def artifacts(store: Store) -> Artifacts | None:
    """Where this workspace's published checkpoints are shared, or None (a local workspace)."""
    return store.backend.artifacts


def upload(store: Store, addr: Address, directory: Path, row: dict[str, Any]) -> Published | None:
    """Upload a just-published checkpoint's blobs, then its record (idempotent)."""
    shared = artifacts(store)
    if shared is None:
        return None
    stamp = (directory / FILES).read_bytes()
    manifest = digest(stamp)
    files: dict[str, str] = json.loads(stamp)["files"]
    try:
        need = shared.missing([manifest, *files.values()])
        blobs = {manifest: stamp} if manifest in need else {}
        for name, key in files.items():
            if key in need:
                blobs[key] = (directory / name).read_bytes()
        shared.put(blobs)  # blobs first: a record never names a blob that is not there
        return shared.publish(
            addr,
            {
                "manifest": manifest,
                "watermark": row["watermark"],
                "head_id": row["head_id"],
                "facts": row["facts"],
                "signature": content_signature(directory),
            },
        )
    except (WorkspaceError, OSError):
        # The checkpoint is published here; other nodes compile it themselves meanwhile.
        return None


def local_mark(store: Store, addr: Address) -> int | None:
    """The watermark of the subject's newest present-time published checkpoint here."""
    if current_version(store.home, addr) is None:
        return None
    marks = [
        c["watermark"]
        for c in store.checkpoints(addr)
        if c["status"] == "published" and c["as_of"] is None and c["known_at"] is None
    ]
    return max(marks, default=None)


def fetch(store: Store, addr: Address) -> Published | None:
    """Install the latest shared checkpoint if it is newer than this node's; the one installed."""
    shared = artifacts(store)
    if shared is None or store.read_only:
        return None
    record = shared.latest(addr)
    if record is None or _covered(store, addr, record):
        return None
    with subjects_locked(store.home, [addr]):
        if _covered(store, addr, record):  # another thread installed it meanwhile
            return None
        stamp = _blobs(store.home, shared, [record.manifest]).get(record.manifest)
        if stamp is None or not store.signer().check(b"checkpoint:" + stamp, record.signature):
            return None  # missing or not signed by the chain key: compile from the log
        meta = json.loads(stamp)
        files: dict[str, str] = meta.get("files", {})
        if meta.get("subject") != str(addr) or meta.get("watermark") != record.watermark:
            return None
        blobs = _blobs(store.home, shared, files.values())
        if set(files.values()) - set(blobs):
            return None
        _install(store, addr, record, stamp, {name: blobs[key] for name, key in files.items()})
    return record


def _covered(store: Store, addr: Address, record: Published) -> bool:
    mark = local_mark(store, addr)
    return mark is not None and mark >= record.watermark


def _blobs(home: Path, shared: Artifacts, keys: Any) -> dict[str, bytes]:
    """Blobs by digest from the local cache, else from the shared store; all verified."""
    cache = home / CACHE
    found: dict[str, bytes] = {}
    for key in set(keys):
        path = cache / key[:2] / key
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if digest(data) == key:
            found[key] = data
        else:  # a cached blob changed on disk: drop it and fetch it again
            path.unlink(missing_ok=True)
    wanted = set(keys) - set(found)
    for key, data in (shared.get(wanted) if wanted else {}).items():
        if digest(data) != key:
            continue  # the shared copy does not match its name: never served
        path = cache / key[:2] / key
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{key}.{uuid.uuid4().hex}")
        tmp.write_bytes(data)
        os.replace(tmp, path)
        found[key] = data
    return found


def _install(
    store: Store, addr: Address, record: Published, stamp: bytes, files: dict[str, bytes]
) -> None:
    """Write a fetched checkpoint as a new local version, make it current, record it."""
    started = utc_now()
    versions = subject_dir(store.home, addr) / "versions"
    versions.mkdir(parents=True, exist_ok=True)
    tmp = versions / f".tmp-{uuid.uuid4().hex}"
    tmp.mkdir()
    try:
        for name, data in files.items():
            if "/" in name or name.startswith("."):
                raise WorkspaceError(f"shared checkpoint of {addr} names an unsafe file {name!r}")
            (tmp / name).write_bytes(data)
        (tmp / FILES).write_bytes(stamp)
        (tmp / SIGNATURE).write_text(record.signature + "\n")
        version, _ = place(store, addr, tmp, current=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    store.record_checkpoint(
        addr,
        {
            "version": version,
            "status": "published",
            "watermark": record.watermark,
            "head_id": record.head_id,
            "as_of": None,
            "known_at": None,
            "facts": record.facts,
            "error": None,
            "timings": json.dumps({"fetched": record.manifest, "shared_version": record.version}),
            "started_at": started,
            "finished_at": utc_now(),
        },
    )
