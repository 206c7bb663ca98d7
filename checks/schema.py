"""The checks' tables in the workspace file: `alerts` and `jobs`, migrated by fact_log.schema.

Alerts raised by checks (lifecycle open -> acknowledged -> resolved, with snoozing) and one
row per scheduled or manual run of the checks. Registered on import, so opening a workspace
from any code that uses the checks creates or upgrades them.
"""

from __future__ import annotations

from uac.fact_log.schema import Owner, register
from uac.fact_log.tamper import seal

CHECKS = register(
    Owner(
        "checks",
        2,
        (
            # IF NOT EXISTS: a workspace from before per-owner versions may already hold them.
            (
                "CREATE TABLE IF NOT EXISTS alerts (id VARCHAR NOT NULL, tenant VARCHAR NOT NULL,"
                " scope VARCHAR NOT NULL, subject VARCHAR NOT NULL,"
                " check_name VARCHAR NOT NULL, severity VARCHAR NOT NULL,"
                " status VARCHAR NOT NULL, message VARCHAR NOT NULL,"
                " computation VARCHAR NOT NULL, fact_ids VARCHAR NOT NULL,"
                " record_keys VARCHAR NOT NULL, first_seen DATE NOT NULL,"
                " last_seen DATE NOT NULL, acknowledged_on DATE, snoozed_until DATE,"
                " resolved_on DATE, delivered_at TIMESTAMP, delivery_error VARCHAR,"
                " PRIMARY KEY (tenant, scope, subject, id))",
                "CREATE TABLE IF NOT EXISTS jobs (id BIGINT NOT NULL, tenant VARCHAR NOT NULL,"
                " kind VARCHAR NOT NULL, run_for DATE NOT NULL, started_at TIMESTAMP NOT NULL,"
                " finished_at TIMESTAMP NOT NULL, duration_ms DOUBLE NOT NULL,"
                " subjects INTEGER NOT NULL, compiled INTEGER NOT NULL,"
                " alerts_new INTEGER NOT NULL, alerts_open INTEGER NOT NULL,"
                " alerts_resolved INTEGER NOT NULL, errors INTEGER NOT NULL, detail VARCHAR)",
            ),
            # Tamper evidence: each alert row's keyed digest, rewritten on every update.
            ("ALTER TABLE alerts ADD COLUMN IF NOT EXISTS mac VARCHAR",),
            # Actionable alerts: why it matters and the suggested next step (issue 15).
            (
                "ALTER TABLE alerts ADD COLUMN IF NOT EXISTS why VARCHAR",
                "ALTER TABLE alerts ADD COLUMN IF NOT EXISTS next_step VARCHAR",
            ),
        ),
    )
)
ALERT_COLUMNS = (
    "id", "tenant", "scope", "subject", "check_name", "severity", "status", "message",
    "computation", "fact_ids", "record_keys", "first_seen", "last_seen", "acknowledged_on",
    "snoozed_until", "resolved_on", "delivered_at", "delivery_error",
)  # fmt: skip
# Seal version 2 covers what an agent acts on (why it matters, the next step) too; rows of a
# workspace sealed under version 1 are re-signed on its next writable open if they verify.
seal(
    "alerts",
    (*ALERT_COLUMNS, "why", "next_step"),
    "tenant, scope, subject, id",
    ("subject", "id"),
    earlier=(ALERT_COLUMNS,),
    identity=("tenant", "scope", "subject", "id"),  # counted: a deleted alert shows
)
