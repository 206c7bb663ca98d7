"""The stored alerts as a listing shows them: the one SELECT behind `list_alerts` (and a
local read's alerts, runtime/api/lean_reads.py), over any DB-API connection.

Imports only the alert model: a read that lists alerts never loads the checks library,
the scheduler, the sinks or the storage backends.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Sequence
from typing import Any

from uac.checks.model import Alert, Kind
from uac.fact_log.addressing import Address

# The columns `from_row` reads, in its order (fact_log/backends/base.py ALERT_COLUMNS).
COLUMNS = (
    "id, tenant, scope, subject, check_name, severity, status, message, computation, fact_ids,"
    " record_keys, first_seen, last_seen, acknowledged_on, snoozed_until, resolved_on,"
    " why, next_step"
)
ACTIVE = ("open", "acknowledged")
_SUBJECT = "tenant = ? AND scope = ? AND subject = ?"


def from_row(row: Sequence[Any]) -> Alert:
    """An alert from a row of COLUMNS."""
    return Alert(
        id=row[0],
        address=Address(row[1], row[2], row[3]),
        check=row[4],
        severity=row[5],
        status=row[6],
        message=row[7],
        computation=row[8],
        fact_ids=tuple(json.loads(row[9])),
        record_keys=tuple(json.loads(row[10])),
        first_seen=row[11],
        last_seen=row[12],
        acknowledged_on=row[13],
        snoozed_until=row[14],
        resolved_on=row[15],
        why=row[16] or "",
        next_step=row[17] or "",
    )


def listed(
    con: Any,
    where: Address | str,
    *,
    statuses: Iterable[str] = ACTIVE,
    today: dt.date | None = None,
    kind: Kind | None = None,
) -> list[Alert]:
    """Alerts of one subject (an Address) or every subject of a tenant (its name), most
    severe first per subject; with `today`, those snoozed past it are left out; with
    `kind`, only the risks ("alert") or only the questions."""
    params: list[Any]
    if isinstance(where, Address):
        sql, params = _SUBJECT, [where.tenant, where.scope, where.subject]
    else:
        sql, params = "tenant = ?", [where]
    sql += " AND status IN (SELECT unnest(?::VARCHAR[]))"
    params.append(list(statuses))
    if today is not None:
        sql += " AND (snoozed_until IS NULL OR snoozed_until <= ?)"
        params.append(today)
    rows = con.execute(
        f"SELECT {COLUMNS} FROM alerts WHERE {sql} ORDER BY scope, subject,"
        " CASE severity WHEN 'critical' THEN 0 WHEN 'warning' THEN 1 ELSE 2 END, first_seen, id",
        params,
    ).fetchall()
    found = [from_row(r) for r in rows]
    return found if kind is None else [a for a in found if a.kind == kind]
