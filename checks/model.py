"""The alert model shared by checks, the alert store and delivery sinks."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from uac.fact_log.addressing import Address

Severity = Literal["critical", "warning", "info"]
Status = Literal["open", "acknowledged", "resolved"]
Kind = Literal["alert", "question"]
SEVERITIES: tuple[str, ...] = ("critical", "warning", "info")
# A check that lacks a fact asks for it (common.to_confirm): a question, keyed
# ("to_confirm", fact), kept in the alerts table for its lifecycle (asked once, resolved the
# day the fact arrives) but listed apart from the alerts, which are risks only.
QUESTION_KEY = "to_confirm"


def kind_of(record_keys: tuple[str, ...]) -> Kind:
    """'question' for what a check asks the user, 'alert' for a risk it found."""
    return "question" if record_keys[:1] == (QUESTION_KEY,) else "alert"


@dataclass(frozen=True, slots=True)
class CheckConfig:
    """Windows and thresholds of the built-in checks; every default is documented here."""

    document_expiry_days: int = 90  # warn when a passport, licence or visa expires this soon
    deadline_days: int = 7  # warn when an open task is due within this many days
    budget_warn_fraction: float = 1.0  # alert when spend exceeds limit × this fraction
    duplicate_days: int = 2  # same merchant+amount+currency within this many days
    duplicate_lookback_days: int = 30  # only recent duplicates are worth an alert
    account_change_days: int = 62  # same payee and amount sent to a new account this recently
    subscription_days: int = 7  # remind this many days before a renewal
    service_days: int = 30  # warn when a vehicle service is due within this many days
    # a condition stays current this long past its expected end (a pregnancy can run two
    # weeks past its due date)
    condition_end_grace_days: int = 14
    service_km: int = 1000  # ... or within this many km of its due mileage
    event_default_minutes: int = 60  # duration assumed for an event without an end
    food_lookback_days: int = 1  # transactions this recent count as current meal orders
    supply_days: int = 7  # warn when a medication supply runs out this soon
    expiry_notice_days: int = 30  # warn this long before a warranty or promotional rate ends
    charge_lookback_days: int = 62  # charges after a cancellation this recent are reported
    collision_weeks: int = 12  # how far ahead recurring events are compared
    checkout_gap_days: int = 3  # a flight this many days around a check-out is the way home


DEFAULT_CONFIG = CheckConfig()


@dataclass(frozen=True, slots=True)
class AlertDraft:
    """What a check found: the condition, in words and numbers, and the records involved."""

    check: str
    severity: Severity
    message: str
    computation: str
    record_keys: tuple[str, ...]
    fact_ids: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()  # object paths (user.passport.expiry_date) for provenance
    why: str = ""  # why it matters to the user, in one sentence
    next_step: str = ""  # what to do about it, in one sentence an agent can act on

    @property
    def kind(self) -> Kind:
        """'question' (a fact the check needs) or 'alert' (a risk)."""
        return kind_of(self.record_keys)


Check = Callable[[Any, dt.date, CheckConfig], list[AlertDraft]]


def fingerprint(check: str, addr: Address, record_keys: tuple[str, ...]) -> str:
    """Alert id: SHA-256 of check + subject + record keys, so a condition alerts once."""
    text = "\x1f".join([check, addr.tenant, addr.scope, addr.subject, *sorted(record_keys)])
    return "a_" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True, slots=True)
class Alert:
    """A stored alert with its lifecycle."""

    id: str
    address: Address
    check: str
    severity: Severity
    status: Status
    message: str
    computation: str
    fact_ids: tuple[str, ...]
    record_keys: tuple[str, ...]
    first_seen: dt.date
    last_seen: dt.date
    acknowledged_on: dt.date | None = None
    snoozed_until: dt.date | None = None
    resolved_on: dt.date | None = None
    why: str = ""
    next_step: str = ""

    @property
    def kind(self) -> Kind:
        """'question' (a fact a check needs, asked once) or 'alert' (a risk)."""
        return kind_of(self.record_keys)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (dates ISO)."""

        def iso(d: dt.date | None) -> str | None:
            return None if d is None else d.isoformat()

        return {
            "id": self.id,
            "tenant": self.address.tenant,
            "subject": str(self.address),
            "check": self.check,
            "kind": self.kind,
            "severity": self.severity,
            "status": self.status,
            "message": self.message,
            "why": self.why,
            "next_step": self.next_step,
            "computation": self.computation,
            "fact_ids": list(self.fact_ids),
            "record_keys": list(self.record_keys),
            "first_seen": iso(self.first_seen),
            "last_seen": iso(self.last_seen),
            "acknowledged_on": iso(self.acknowledged_on),
            "snoozed_until": iso(self.snoozed_until),
            "resolved_on": iso(self.resolved_on),
        }
