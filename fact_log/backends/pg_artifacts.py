"""Published checkpoints as shared artifacts: content-addressed blobs plus one record each.

A node that publishes a checkpoint uploads its files as blobs named by their SHA-256 and
adds a record (tenant, scope, subject, version, watermark, the digest of its `files.json` —
the manifest listing every file's digest — and the chain key's signature of that manifest).
Any node serving the subject reads the latest record, fetches the blobs it lacks and checks
every digest and the signature before it serves them (compiler/shared_checkpoints.py).

`Artifacts` is the interface; `PgArtifacts` keeps blobs and records in the log's PostgreSQL
database (tables `uac_blobs`, `uac_checkpoints`); `DirArtifacts` keeps them in a directory
every node can read (a shared mount). All SQL for these tables is in this module.
Publishing is idempotent: a record is keyed by (subject, manifest digest), so the same
checkpoint published by two nodes is one record.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import os
import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

from uac.fact_log.addressing import Address
from uac.fact_log.backends import pg_schema
from uac.fact_log.backends.pg_log import PgLog

_DDL = (
    "CREATE TABLE IF NOT EXISTS uac_blobs (digest TEXT PRIMARY KEY, data BYTEA NOT NULL)",
    "CREATE TABLE IF NOT EXISTS uac_checkpoints (tenant TEXT NOT NULL, scope TEXT NOT NULL,"
    " subject TEXT NOT NULL, manifest TEXT NOT NULL, version BIGINT NOT NULL,"
    " watermark BIGINT NOT NULL, head_id TEXT, facts BIGINT NOT NULL, signature TEXT NOT NULL,"
    " published_at TIMESTAMPTZ NOT NULL DEFAULT now(),"
    " PRIMARY KEY (tenant, scope, subject, manifest))",
    "CREATE INDEX IF NOT EXISTS uac_checkpoints_latest"
    " ON uac_checkpoints (tenant, scope, subject, watermark, version)",
)
pg_schema.register("artifacts", (_DDL,))  # created by the log's migration (pg_schema)
_SUBJECT = "tenant = %s AND scope = %s AND subject = %s"
_INTACT = "encode(sha256(data), 'hex') = digest"


def digest(data: bytes) -> str:
    """The content address of a blob (hex SHA-256)."""
    return hashlib.sha256(data).hexdigest()


@dataclasses.dataclass(frozen=True, slots=True)
class Published:
    """One published checkpoint as every node sees it."""

    tenant: str
    scope: str
    subject: str
    version: int  # shared numbering: 1, 2, ... per subject, in publication order
    watermark: int  # the last fact seq the checkpoint folded
    head_id: str | None
    facts: int
    manifest: str  # digest of its files.json (which lists every file's digest)
    signature: str  # the chain key's signature of files.json


class Artifacts(Protocol):
    """Where published checkpoints live for every node."""

    def missing(self, digests: Iterable[str]) -> set[str]:
        """The digests of these blobs the store does not hold."""
        ...

    def put(self, blobs: dict[str, bytes]) -> None:
        """Store blobs by digest (the caller computed it); existing ones are left alone."""
        ...

    def get(self, digests: Iterable[str]) -> dict[str, bytes]:
        """The blobs held of these digests, as stored (the reader checks them)."""
        ...

    def publish(self, addr: Address, record: dict[str, Any]) -> Published:
        """Record a published checkpoint (once per manifest digest); the record as stored."""
        ...

    def latest(self, addr: Address) -> Published | None:
        """The subject's record with the highest watermark (newest on ties), or None."""
        ...

    def forget(self, addr: Address, keep: str | None) -> list[str]:
        """Delete the subject's records but the one of manifest `keep` (a legal erase), and
        every blob they named that no remaining record names; the blobs' digests."""
        ...


class PgArtifacts:
    """Blobs and checkpoint records in the PostgreSQL database of the log."""

    def __init__(self, log: PgLog):
        self.log = log

    def ensure(self) -> None:
        """Create the tables if they are missing (under the log's migration lock)."""
        with self.log._tx() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(hashtext('uac_migrate'))")
            for statement in _DDL:
                cur.execute(statement)  # type: ignore[arg-type]

    def missing(self, digests: Iterable[str]) -> set[str]:
        """The digests of these blobs the database does not hold intact."""
        wanted = sorted(set(digests))
        with self.log._tx() as cur:
            # Hashed in the database: a damaged blob counts as missing, so the next publisher
            # of that file repairs it.
            cur.execute(
                f"SELECT digest FROM uac_blobs WHERE digest = ANY(%s) AND {_INTACT}", [wanted]
            )
            return set(wanted) - {row[0] for row in cur.fetchall()}

    def put(self, blobs: dict[str, bytes]) -> None:
        """Insert blobs; one already there is replaced only if its bytes no longer match."""
        if not blobs:
            return
        with self.log._tx() as cur:
            cur.executemany(
                "INSERT INTO uac_blobs AS b VALUES (%s, %s) ON CONFLICT (digest)"
                " DO UPDATE SET data = excluded.data"
                " WHERE encode(sha256(b.data), 'hex') <> b.digest",
                sorted(blobs.items()),
            )

    def get(self, digests: Iterable[str]) -> dict[str, bytes]:
        """The stored blobs of these digests."""
        with self.log._tx() as cur:
            cur.execute(
                "SELECT digest, data FROM uac_blobs WHERE digest = ANY(%s)", [sorted(set(digests))]
            )
            return {row[0]: bytes(row[1]) for row in cur.fetchall()}

    def publish(self, addr: Address, record: dict[str, Any]) -> Published:
        """Insert the record unless this manifest is recorded already; number it per subject."""
        key = [addr.tenant, addr.scope, addr.subject]
        with self.log._tx() as cur:
            # One publisher per subject at a time: version numbers stay 1, 2, ... without gaps.
            cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"uac_checkpoints:{addr}"])
            cur.execute(
                f"SELECT {_COLUMNS} FROM uac_checkpoints WHERE {_SUBJECT} AND manifest = %s",
                [*key, record["manifest"]],
            )
            row = cur.fetchone()
            if row is None:
                cur.execute(
                    f"SELECT coalesce(max(version), 0) + 1 FROM uac_checkpoints WHERE {_SUBJECT}",
                    key,
                )
                version = cur.fetchone()[0]  # type: ignore[index]
                row = (*key, version, *(record[c] for c in _FIELDS[4:]))
                cur.execute(
                    f"INSERT INTO uac_checkpoints ({_COLUMNS}) VALUES"
                    f" ({', '.join(['%s'] * len(_FIELDS))})",
                    list(row),
                )
            elif row[-1] != record["signature"]:
                # Every node signs with the same key, so a valid signature is the same bytes:
                # a record whose signature was damaged is repaired by the next publisher.
                cur.execute(
                    f"UPDATE uac_checkpoints SET signature = %s WHERE {_SUBJECT} AND manifest = %s",
                    [record["signature"], *key, record["manifest"]],
                )
                row = (*row[:-1], record["signature"])
            return Published(*row)

    def latest(self, addr: Address) -> Published | None:
        """The subject's newest record (one indexed lookup)."""
        with self.log._tx() as cur:
            cur.execute(
                f"SELECT {_COLUMNS} FROM uac_checkpoints WHERE {_SUBJECT}"
                " ORDER BY watermark DESC, version DESC LIMIT 1",
                [addr.tenant, addr.scope, addr.subject],
            )
            row = cur.fetchone()
        return Published(*row) if row else None

    def forget(self, addr: Address, keep: str | None) -> list[str]:
        """Delete the subject's other records, then the blobs only they named."""
        key = [addr.tenant, addr.scope, addr.subject]
        with self.log._tx() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"uac_checkpoints:{addr}"])
            cur.execute(
                f"DELETE FROM uac_checkpoints WHERE {_SUBJECT} AND manifest IS DISTINCT FROM %s"
                " RETURNING manifest",
                [*key, keep],
            )
            manifests = [row[0] for row in cur.fetchall()]
            cur.execute("SELECT data FROM uac_blobs WHERE digest = ANY(%s)", [manifests])
            named = set(manifests)
            for (data,) in cur.fetchall():
                named.update(json.loads(bytes(data)).get("files", {}).values())
            # A blob another record's manifest names stays (identical files of two subjects).
            cur.execute(
                "SELECT c FROM unnest(%s::text[]) c WHERE c IN (SELECT manifest FROM"
                " uac_checkpoints) OR EXISTS (SELECT 1 FROM uac_checkpoints k JOIN uac_blobs b"
                " ON b.digest = k.manifest WHERE position(convert_to(c, 'UTF8') IN b.data) > 0)",
                [sorted(named)],
            )
            gone = sorted(named - {row[0] for row in cur.fetchall()})
            cur.execute("DELETE FROM uac_blobs WHERE digest = ANY(%s)", [gone])
        return gone


_FIELDS = tuple(f.name for f in dataclasses.fields(Published))
_COLUMNS = ", ".join(_FIELDS)


@contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """An exclusive advisory lock on a file (across processes and hosts sharing the mount)."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class DirArtifacts:
    """Blobs and records as files under one directory every node mounts (no database)."""

    def __init__(self, root: Path | str):
        self.root = Path(root)

    def _blob(self, key: str) -> Path:
        if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
            raise ValueError(f"not a blob digest: {key!r}")
        return self.root / "blobs" / key[:2] / key

    def _records(self, addr: Address) -> Path:
        # Address parts are validated names (no separators); hashed anyway for safety.
        return self.root / "checkpoints" / digest(str(addr).encode())

    def missing(self, digests: Iterable[str]) -> set[str]:
        """The digests with no blob file."""
        return {d for d in set(digests) if not self._blob(d).exists()}

    def put(self, blobs: dict[str, bytes]) -> None:
        """Write each blob atomically (write a temporary file, then rename)."""
        for key, data in sorted(blobs.items()):
            path = self._blob(key)
            if path.exists():
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{key}.{uuid.uuid4().hex}")
            tmp.write_bytes(data)
            os.replace(tmp, path)

    def get(self, digests: Iterable[str]) -> dict[str, bytes]:
        """The blob files' bytes that exist."""
        out = {}
        for key in set(digests):
            try:
                out[key] = self._blob(key).read_bytes()
            except FileNotFoundError:
                continue
        return out

    def publish(self, addr: Address, record: dict[str, Any]) -> Published:
        """One JSON file per manifest; numbered under a lock file of the subject."""
        folder = self._records(addr)
        folder.mkdir(parents=True, exist_ok=True)
        with _file_lock(folder / ".lock"):
            path = folder / f"{record['manifest']}.json"
            if path.exists():
                return Published(**json.loads(path.read_text()))
            version = 1 + max((r.version for r in self._all(folder)), default=0)
            fields = {k: record[k] for k in _FIELDS[4:]}
            published = Published(addr.tenant, addr.scope, addr.subject, version, **fields)
            tmp = folder / f".{uuid.uuid4().hex}.json"
            tmp.write_text(json.dumps(dataclasses.asdict(published), sort_keys=True))
            os.replace(tmp, path)
            return published

    def latest(self, addr: Address) -> Published | None:
        """The record with the highest (watermark, version)."""
        return max(
            self._all(self._records(addr)), key=lambda r: (r.watermark, r.version), default=None
        )

    def forget(self, addr: Address, keep: str | None) -> list[str]:
        """Delete the subject's other record files, then the blob files only they named."""
        folder = self._records(addr)
        if not folder.is_dir():
            return []
        with _file_lock(folder / ".lock"):
            gone = [r for r in self._all(folder) if r.manifest != keep]
            for record in gone:
                (folder / f"{record.manifest}.json").unlink(missing_ok=True)
        named = {r.manifest for r in gone}
        named.update(*(self._files(r.manifest) for r in gone))
        kept: set[str] = set()
        for other in (self.root / "checkpoints").glob("*"):
            for record in self._all(other):
                kept.add(record.manifest)
                kept.update(self._files(record.manifest))
        for key in sorted(named - kept):
            self._blob(key).unlink(missing_ok=True)
        return sorted(named - kept)

    def _files(self, manifest: str) -> set[str]:
        data = self.get([manifest]).get(manifest)
        return set(json.loads(data).get("files", {}).values()) if data else set()

    @staticmethod
    def _all(folder: Path) -> list[Published]:
        if not folder.is_dir():
            return []
        return [Published(**json.loads(p.read_text())) for p in folder.glob("[0-9a-f]*.json")]
