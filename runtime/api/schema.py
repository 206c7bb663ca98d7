"""The service's tables in the workspace file, migrated by fact_log.schema.

`api_keys` (hashed API keys scoped to a tenant and optionally a subject) and `outbox`
(alerts waiting for delivery to a sink, with attempts and the next try). Registered on
import: the server, the key commands and the outbox import this module before they open
the workspace.
"""

from __future__ import annotations

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
