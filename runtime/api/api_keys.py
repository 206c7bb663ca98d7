"""API keys for `uac serve`: scoped to a tenant (and optionally a subject), stored hashed.

A key is shown once, when it is created: `uac_<id>_<secret>`. The database keeps only the
SHA-256 of the whole token (a 192-bit random secret needs no slow hash), the tenant, the
optional subject, whether it is read-only, and when it was revoked. Every request resolves
its key to a `Principal`; the tenant of a request is always the key's, never a parameter,
so a key of tenant A cannot even name tenant B's subjects.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import hmac
import secrets
import threading
import time
from typing import Any

from uac.fact_log.addressing import check_name, parse_subject
from uac.fact_log.errors import InputError, NotFound
from uac.fact_log.store import Store, utc_now
from uac.runtime.api import schema  # noqa: F401 (registers the api_keys table)

PREFIX = "uac_"
_CACHE_SECONDS = 5.0  # a revoked key stops working within this time on every node


@dataclasses.dataclass(frozen=True, slots=True)
class Principal:
    """Who a request acts as: a tenant, maybe one subject, maybe read-only; or the admin."""

    key_id: str
    tenant: str | None  # None: the local admin (any tenant, named per request)
    subject: str | None = None
    read_only: bool = False

    @property
    def admin(self) -> bool:
        """True for the server's local admin token (written to the workspace for the CLI)."""
        return self.tenant is None


def _rows(store: Store, sql: str, params: list[Any]) -> list[tuple[Any, ...]]:
    """Run one statement on the keys table: the shared database's, else the workspace's."""
    return store.backend.service_rows(sql, params)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create(
    store: Store,
    tenant: str,
    subject: str | None = None,
    *,
    read_only: bool = False,
    label: str | None = None,
    now: dt.datetime | None = None,
) -> tuple[str, str]:
    """Create a key; returns (key id, token). The token is not stored and cannot be shown again."""
    tenant = check_name("tenant", tenant)
    if subject is not None:
        subject = str(parse_subject(subject, tenant))
    if label is not None and len(label) > 200:
        raise InputError("a key label is at most 200 characters")
    key_id = secrets.token_hex(6)
    token = f"{PREFIX}{key_id}_{secrets.token_urlsafe(24)}"
    _rows(
        store,
        "INSERT INTO api_keys VALUES (?, ?, ?, ?, ?, ?, ?, NULL)",
        [key_id, tenant, subject, read_only, _hash(token), label, now or utc_now()],
    )
    _CACHE.clear()
    return key_id, token


def revoke(store: Store, key_id: str, *, now: dt.datetime | None = None) -> None:
    """Revoke a key (at once on this node; within _CACHE_SECONDS on the others)."""
    found = _rows(store, "SELECT revoked_at FROM api_keys WHERE id = ?", [key_id])
    row = found[0] if found else None
    if row is None:
        raise NotFound(f"no API key {key_id!r}; list them with: uac keys list")
    if row[0] is None:
        _rows(store, "UPDATE api_keys SET revoked_at = ? WHERE id = ?", [now or utc_now(), key_id])
    _CACHE.clear()


def listing(store: Store, tenant: str | None = None) -> list[dict[str, Any]]:
    """Keys (never their tokens), newest first; one tenant's or all."""
    sql = "SELECT id, tenant, subject, read_only, label, created_at, revoked_at FROM api_keys"
    params: list[Any] = []
    if tenant is not None:
        sql += " WHERE tenant = ?"
        params.append(tenant)
    rows = _rows(store, sql + " ORDER BY created_at DESC, id", params)
    names = ("id", "tenant", "subject", "read_only", "label", "created_at", "revoked_at")
    return [dict(zip(names, row, strict=True)) for row in rows]


# (workspace, token digest) -> (when looked up, principal): a token of one workspace never
# resolves in another served by the same process.
_CACHE: dict[tuple[str, str], tuple[float, Principal | None]] = {}
_CACHE_LOCK = threading.Lock()


def by_id(store: Store, key_id: str) -> Principal | None:
    """The principal of a key that is not revoked, by its id (a console session names it)."""
    rows = _rows(
        store,
        "SELECT id, tenant, subject, read_only FROM api_keys WHERE id = ? AND revoked_at IS NULL",
        [key_id],
    )
    return Principal(rows[0][0], rows[0][1], rows[0][2], bool(rows[0][3])) if rows else None


def resolve(store: Store, token: str | None, admin_token: str | None = None) -> Principal | None:
    """The principal a bearer token stands for, or None (unknown, malformed or revoked)."""
    if not token or len(token) > 200:
        return None
    if admin_token is not None and hmac.compare_digest(token, admin_token):
        return Principal("admin", None)
    if not token.startswith(PREFIX):
        return None
    digest = _hash(token)
    slot = (str(store.home), digest)
    now = time.monotonic()
    with _CACHE_LOCK:
        hit = _CACHE.get(slot)
        if hit is not None and now - hit[0] < _CACHE_SECONDS:
            return hit[1]
    rows = _rows(
        store,
        "SELECT id, tenant, subject, read_only, token_hash FROM api_keys"
        " WHERE token_hash = ? AND revoked_at IS NULL",
        [digest],
    )
    row = rows[0] if rows else None
    found = None
    if row is not None and hmac.compare_digest(row[4], digest):
        found = Principal(row[0], row[1], row[2], bool(row[3]))
    with _CACHE_LOCK:
        if len(_CACHE) > 10_000:
            _CACHE.clear()
        _CACHE[slot] = (now, found)
    return found
