"""Scopes that share safely: group membership, the scope policy and promote records.

Membership is a fact like any other, appended to the *group's* log (kind `membership`, path
`scopes.members`, record key = the member's user name), so it is bitemporal, hash-chained
and verifiable. Each membership fact is a statement over a valid-time interval
`[valid_from, valid_to)`: `{"user": "alice", "member": true}` (added) or `false` (removed).
Whether alice is a member at a moment T is decided by the latest statement (log order) whose
interval holds T; none means not a member. Adding with `--from/--to` and removing at a time
are both statements, so a time-travel compile sees the membership of its time.

Members are users only: groups of groups are refused (no cycles can exist), and a member
always belongs to the group's tenant (an `Address` of another tenant is refused).

A present-time compile evaluates membership at the log's own clock — the latest
`recorded_at` it reads — never the wall clock, so the same log always compiles to the same
code. A membership whose `--to` passes takes effect at the next write (or with `--as-of`).

The scope policy (catalog `scopes`) says where facts of a path may be written; every write
is checked against it before anything is appended (`check_policy`). A promote copies one of
a user's facts into a group's log with `evidence = {"promoted_from": ...}`: who, what and
when, in the chain like every fact.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import InputError
from uac.fact_log.store import Batch, Fact, NewFact, NewRejection

MEMBERSHIP_KIND = "membership"
MEMBERSHIP_PATH = "scopes.members"
# Kinds a member inherits from its groups and tenant: typed values and notes. Rules,
# soft preferences, feedback and membership stay with the scope that holds them.
INHERITED_KINDS = frozenset({"attribute", "preference", "record", "note"})
SCOPE_RANK = {"user": 2, "group": 1, "tenant": 0}  # user overrides group overrides tenant


@dataclass(frozen=True, slots=True)
class Membership:
    """One user's membership of one group over a valid-time interval."""

    group: str
    user: str
    member: bool
    valid_from: dt.datetime | None
    valid_to: dt.datetime | None
    fact_id: str
    recorded_at: dt.datetime
    actor: str | None

    def holds_at(self, moment: dt.datetime) -> bool:
        """True if this statement's interval contains the moment."""
        return (self.valid_from is None or self.valid_from <= moment) and (
            self.valid_to is None or moment < self.valid_to
        )


def membership_fact(
    user: str,
    member: bool,
    valid_from: dt.datetime | None,
    valid_to: dt.datetime | None,
) -> NewFact:
    """The fact stating that user is (or is no longer) a member over an interval."""
    if valid_from is not None and valid_to is not None and valid_to <= valid_from:
        raise InputError(
            f"membership of {user!r}: --to ({valid_to:%Y-%m-%d}) must be after --from "
            f"({valid_from:%Y-%m-%d})"
        )
    return NewFact(
        op="assert",
        kind=MEMBERSHIP_KIND,
        path=MEMBERSHIP_PATH,
        record_key=user,
        value={"user": user, "member": member},
        text=f"{user} {'joins' if member else 'leaves'}",
        source="explicit_command",
        valid_from=valid_from,
        valid_to=valid_to,
    )


def member_address(group: Address, member: Address) -> Address:
    """Check that member can join group (a user of the same tenant); returns it."""
    if group.scope != "group":
        raise InputError(
            f"{group} is not a group: memberships are of groups, e.g. "
            f"'uac member add group:family {member.subject}'"
        )
    if member.tenant != group.tenant:
        raise InputError(
            f"{member.subject!r} belongs to tenant {member.tenant!r}, not {group.tenant!r}: "
            "a group's members are users of its own tenant"
        )
    if member.scope != "user":
        raise InputError(
            f"{member} cannot be a member of {group}: groups of groups are not supported "
            "(members are users, so membership never has cycles)"
        )
    return member


def statements(facts: Iterable[Fact], known_at: dt.datetime | None = None) -> list[Membership]:
    """Membership statements among a group's facts (recorded by known_at), in log order."""
    retracted = {
        f.value.get("target")
        for f in facts
        if f.op == "retract" and isinstance(f.value, dict) and f.kind == MEMBERSHIP_KIND
    }
    out = []
    for f in facts:
        if f.op != "assert" or f.kind != MEMBERSHIP_KIND or f.id in retracted:
            continue
        if known_at is not None and f.recorded_at > known_at:
            continue
        value = f.value if isinstance(f.value, dict) else {}
        out.append(
            Membership(
                f.subject,
                str(value.get("user", f.record_key)),
                bool(value.get("member", True)),
                f.valid_from,
                f.valid_to,
                f.id,
                f.recorded_at,
                f.actor,
            )
        )
    return out


def current(found: Iterable[Membership], moment: dt.datetime) -> dict[tuple[str, str], Membership]:
    """(group, user) -> the statement deciding membership at moment, for actual members."""
    decided: dict[tuple[str, str], Membership] = {}
    for m in found:  # log order: a later statement covering the moment decides
        if m.holds_at(moment):
            decided[(m.group, m.user)] = m
    return {k: m for k, m in sorted(decided.items()) if m.member}


def check_policy(catalog: Catalog, addr: Address, facts: Iterable[NewFact]) -> None:
    """Refuse a write whose facts may not live at addr's scope (catalog `scopes`)."""
    for fact in facts:
        if fact.op != "assert" or fact.kind == MEMBERSHIP_KIND:
            continue
        allowed = catalog.policy(fact.path).scopes
        if addr.scope not in allowed:
            where = " or ".join(allowed)
            raise InputError(
                f"{fact.path} may not be written to {addr} (a {addr.scope}-scope subject): the "
                f"scope policy allows it only at {where} scope; write it to "
                + ("a user, e.g. 'uac set USER ...'" if "user" in allowed else "another scope")
            )


def set_aside_out_of_scope(catalog: Catalog, batch: Batch) -> None:
    """Turn automatically extracted facts the scope policy refuses into recorded rejections.

    A message said in a group's conversation may mention a passport: what the extractor
    found is refused with its reason (`scope_policy`), the rest of the message is kept.
    Explicit writes are not set aside: `check_policy` refuses them with an error.
    """
    kept = []
    for fact in batch.facts:
        allowed = catalog.policy(fact.path).scopes
        if fact.source.startswith("automatic") and batch.address.scope not in allowed:
            batch.rejections.append(
                NewRejection(
                    "scope_policy",
                    fact.path,
                    {"scope": batch.address.scope, "allowed": list(allowed)},
                    fact.input_index,
                )
            )
        else:
            kept.append(fact)
    batch.facts = kept


def promoted_copy(source: Fact, by: str, actor: str, now: dt.datetime) -> NewFact:
    """A group's copy of a user's fact, recording who promoted what and when."""
    return NewFact(
        op="assert",
        kind=source.kind,
        path=source.path,
        value=source.value,
        record_key=source.record_key,
        text=source.text,
        source=source.source,
        confidence=source.confidence,
        evidence={
            "promoted_from": {"subject": by, "fact": source.id},
            "promoted_by": actor,
            "promoted_at": now.isoformat(),
        },
        valid_from=source.valid_from,
        valid_to=source.valid_to,
    )


def promoted_from(fact: Fact) -> dict[str, Any] | None:
    """The promote record of a group fact (None if it was written to the group directly)."""
    if fact.evidence_json is None or "promoted_from" not in fact.evidence_json:
        return None
    evidence = fact.evidence
    if isinstance(evidence, dict) and isinstance(evidence.get("promoted_from"), dict):
        return evidence["promoted_from"]
    return None
