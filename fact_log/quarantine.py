"""What marks an input as quarantined, for the read side (rejections, inputs, search).

An input with one of these rejections is quarantined: kept (masked) for the audit trail,
never indexed, searched, put into context or shown unless an operator asks. The names live
here, not with the secret filter that records them (fact_log/extraction/screen.py), so a
read that only hides quarantined inputs never loads the extractor.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from uac.fact_log.values import canonical_json

QUARANTINE_REASONS = ("secret", "instruction_refused")
QUARANTINED = "[quarantined: refused as a secret or an instruction; see `uac rejections --show`]"


def marked(
    rows: list[dict[str, Any]],
    texts: dict[str, str] | None = None,
    excerpt: Callable[..., str] | None = None,
) -> list[dict[str, Any]]:
    """Rejection rows (fact_log/queries.py REJECTIONS) with the quarantining ones flagged and
    their quotes dropped; an operator's audit passes the inputs' `texts` and the secret
    filter's `excerpt`, which shows their masked excerpts instead."""
    for row in rows:
        if row["reason"] not in QUARANTINE_REASONS:
            continue
        row["quarantined"] = True
        detail = json.loads(row["detail"]) if row["detail"] else None
        if excerpt is not None and texts is not None and row["input_id"] in texts:
            row["excerpt"] = excerpt(texts[row["input_id"]])
        if isinstance(detail, dict) and "quote" in detail:
            if excerpt is not None:
                detail["quote"] = excerpt(str(detail["quote"]), 200)
            else:
                del detail["quote"]
            row["detail"] = canonical_json(detail)
    return rows


def quarantined_ids(rows: list[dict[str, Any]]) -> set[str]:
    """Ids of the inputs the rejection rows quarantine."""
    return {
        r["input_id"]
        for r in rows
        if r["reason"] in QUARANTINE_REASONS and r["input_id"] is not None
    }
