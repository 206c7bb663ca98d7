"""The service's tables in the workspace file, migrated by fact_log.schema.

`api_keys` (hashed API keys scoped to a tenant and optionally a subject) and `outbox`
(alerts waiting for delivery to a sink, with attempts and the next try), `idempotency`
(the first answer of each write's Idempotency-Key). Registered on
import: the server, the key commands and the outbox import this module before they open
the workspace.
"""

from __future__ import annotations

from uac.fact_log.backends import pg_schema
from uac.fact_log.schema import Owner, register

SERVICE = register(
    Owner(
        "service",
        3,
        (
            (
                "CREATE TABLE IF NOT EXISTS api_keys ("
                " id VARCHAR PRIMARY KEY, tenant VARCHAR NOT NULL, subject VARCHAR,"
                " read_only BOOLEAN NOT NULL, token_hash VARCHAR NOT NULL, label VARCHAR,"
                " created_at TIMESTAMP NOT NULL, revoked_at TIMESTAMP)",
                "CREATE TABLE IF NOT EXISTS outbox ("
                " id BIGINT PRIMARY KEY, alert_id VARCHAR NOT NULL, tenant VARCHAR NOT NULL,"
                " sink VARCHAR NOT NULL, payload VARCHAR NOT NULL, status VARCHAR NOT NULL,"
                " attempts INTEGER NOT NULL, next_at TIMESTAMP NOT NULL, last_error VARCHAR,"
                " created_at TIMESTAMP NOT NULL, delivered_at TIMESTAMP)",
            ),
        ),
    )
)

# Idempotency keys of writes (runtime/api/idempotency.py): the first answer of each key,
# per tenant and API key, kept for a bounded time. The same table on PostgreSQL, so every
# node of a shared log answers a retry that lands on another node.
_IDEMPOTENCY = (
    "CREATE TABLE IF NOT EXISTS idempotency ("
    " tenant VARCHAR NOT NULL, key_id VARCHAR NOT NULL, idem_key VARCHAR NOT NULL,"
    " request_hash VARCHAR NOT NULL, status INTEGER, answer VARCHAR,"
    " created_at TIMESTAMP NOT NULL, PRIMARY KEY (tenant, key_id, idem_key))",
)
IDEMPOTENCY = register(Owner("idempotency", 3, (_IDEMPOTENCY,)))
pg_schema.register("idempotency", (tuple(s.replace("VARCHAR", "TEXT") for s in _IDEMPOTENCY),))
