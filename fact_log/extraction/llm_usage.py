"""The LLM extractor's token ledger: the `llm_usage` table and the budget reads and writes.

Declared here, next to the extractor that spends tokens, and migrated with every other
owner's tables when a workspace opens (fact_log/schema.py). Step 1 uses IF NOT EXISTS
because earlier versions created the table on first use.
"""

from __future__ import annotations

import datetime as dt

from uac.fact_log.addressing import Address
from uac.fact_log.schema import Owner, register
from uac.fact_log.store import Store

LLM_USAGE = register(
    Owner(
        "llm",
        0,
        (
            (
                "CREATE TABLE IF NOT EXISTS llm_usage (tenant VARCHAR NOT NULL,"
                " scope VARCHAR NOT NULL, subject VARCHAR NOT NULL, day DATE NOT NULL,"
                " prompt_tokens BIGINT NOT NULL, completion_tokens BIGINT NOT NULL,"
                " calls INTEGER NOT NULL)",
            ),
        ),
    )
)


class UsageLedger:
    """Per-subject, per-day token usage in the workspace table `llm_usage` (append-only)."""

    def __init__(self, store: Store, address: Address):
        self.con = store.con
        self.address = address

    def used(self, day: dt.date) -> int:
        """Tokens (prompt + completion) the subject used on a UTC day."""
        a = self.address
        row = self.con.execute(
            "SELECT coalesce(sum(prompt_tokens + completion_tokens), 0) FROM llm_usage"
            " WHERE tenant = ? AND scope = ? AND subject = ? AND day = ?",
            [a.tenant, a.scope, a.subject, day],
        ).fetchone()
        return int(row[0]) if row else 0

    def record(self, day: dt.date, prompt_tokens: int, completion_tokens: int) -> None:
        """Append one call's usage (one row per call keeps the table append-only)."""
        a = self.address
        self.con.execute(
            "INSERT INTO llm_usage VALUES (?, ?, ?, ?, ?, ?, 1)",
            [a.tenant, a.scope, a.subject, day, max(0, prompt_tokens), max(0, completion_tokens)],
        )
