"""The log's rows as read back: facts, archived inputs, subjects (fact_log/store.py)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from uac.fact_log.chain import FACT_COLUMNS, utc_naive
from uac.fact_log.values import loads


def utc_now() -> dt.datetime:
    """The current time as naive UTC; only API entry points call this."""
    return utc_naive(dt.datetime.now(dt.UTC))  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class Fact:
    """One row of the fact log as stored."""

    seq: int
    id: str
    tenant: str
    scope: str
    subject: str
    op: str
    kind: str
    path: str
    record_key: str | None
    value_json: str | None
    text: str | None
    source: str
    confidence: float
    evidence_json: str | None
    valid_from: dt.datetime | None
    valid_to: dt.datetime | None
    recorded_at: dt.datetime
    input_id: str | None
    session_id: str | None
    run_id: str | None
    actor: str | None
    content_hash: str
    prev_hash: str
    hash: str
    mac: str | None = None

    @property
    def value(self) -> Any:
        """The fact's value, JSON-decoded (decimals exact)."""
        return None if self.value_json is None else loads(self.value_json)

    @property
    def evidence(self) -> Any:
        """The fact's evidence, JSON-decoded."""
        return None if self.evidence_json is None else loads(self.evidence_json)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of the row (value and evidence decoded)."""
        out = {
            name: getattr(self, name)
            for name, _, _ in FACT_COLUMNS
            if name not in ("value", "evidence")
        }
        out["value"] = self.value
        out["evidence"] = self.evidence
        return out


@dataclass(frozen=True, slots=True)
class Input:
    """One archived raw input."""

    seq: int
    id: str
    tenant: str
    scope: str
    subject: str
    kind: str
    name: str | None
    role: str | None
    content: str
    content_hash: str
    source: str
    session_id: str | None
    observed_at: dt.datetime
    recorded_at: dt.datetime
    mac: str | None = None


@dataclass(frozen=True, slots=True)
class SubjectInfo:
    """A subject with how much the log holds for it."""

    tenant: str
    scope: str
    subject: str
    facts: int
    inputs: int
    last_recorded_at: dt.datetime | None
