"""Membership, promote and demote: the verbs that let scopes share (docs/scopes.md).

`Memory` exposes them as `member_add`, `member_remove`, `members`, `promote` and `demote`;
they live here to keep `memory.py` about the basic verbs. Every write is a fact in the
group's log (membership statements, promoted copies, withdrawals), appended through the
same writer as any other write and reacted to like one: the group's members recompile.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from uac.compiler.inherit import members as members_at
from uac.compiler.inherit import memberships
from uac.fact_log.addressing import Address
from uac.fact_log.errors import InputError, NotFound
from uac.fact_log.scopes import (
    INHERITED_KINDS,
    current,
    member_address,
    membership_fact,
    promoted_copy,
    promoted_from,
    statements,
)
from uac.fact_log.store import Batch, Fact, NewFact, NewInput, utc_naive, utc_now
from uac.runtime.api.reactor import Written

# `mem` is the calling `Memory` (typed loosely: this module sits below memory.py).
Memory = Any


def _group_and_user(
    mem: Memory, group: str | Address, user: str | Address
) -> tuple[Address, Address]:
    gaddr = mem.address(group)
    return gaddr, member_address(gaddr, mem.address(user))


def _write(mem: Memory, addr: Address, command: str, fact: NewFact, now: dt.datetime) -> Fact:
    batch = Batch(addr, now, mem.actor)
    batch.inputs.append(NewInput("command", command, "explicit_command"))
    fact.input_index = 0
    batch.facts.append(fact)
    return mem._append(batch)[0]


def member_add(
    mem: Memory,
    group: str | Address,
    user: str | Address,
    valid_from: dt.datetime | dt.date | None,
    valid_to: dt.datetime | dt.date | None,
    now: dt.datetime | None,
) -> Written:
    """Record that user is a member of group (from/to: valid time, default open)."""
    gaddr, uaddr = _group_and_user(mem, group, user)
    now = now or utc_now()
    fact = membership_fact(uaddr.subject, True, utc_naive(valid_from), utc_naive(valid_to))
    command = f"member add {gaddr} {uaddr.subject}"
    saved = _write(mem, gaddr, command, fact, now)
    return Written.of(saved, mem._wrote(gaddr, now))


def member_remove(
    mem: Memory,
    group: str | Address,
    user: str | Address,
    at: dt.datetime | dt.date | None,
    now: dt.datetime | None,
) -> Written:
    """Record that user stops being a member of group at `at` (default: now)."""
    gaddr, uaddr = _group_and_user(mem, group, user)
    now = now or utc_now()
    moment = utc_naive(at) or now
    if uaddr.subject not in members_at(mem.store, gaddr, moment):
        raise InputError(
            f"{uaddr.subject!r} is not a member of {gaddr} at {moment:%Y-%m-%d %H:%M}; "
            f"see 'uac member list {gaddr}'"
        )
    fact = membership_fact(uaddr.subject, False, moment, None)
    saved = _write(mem, gaddr, f"member remove {gaddr} {uaddr.subject}", fact, now)
    return Written.of(saved, mem._wrote(gaddr, now))


def members(mem: Memory, subject: str | Address, at: dt.datetime | None) -> list[dict[str, Any]]:
    """A group's members at a moment, or the groups a user belongs to then."""
    addr = mem.address(subject)
    moment = utc_naive(at) or utc_now()
    if addr.scope == "group":
        said = statements(mem.store.facts(addr))
    elif addr.scope == "user":
        said = memberships(mem.store, addr.tenant, addr.subject)
    else:
        raise InputError("the tenant has no memberships: list a group's or a user's")
    return [
        {
            "group": f"group:{m.group}",
            "user": m.user,
            "valid_from": m.valid_from,
            "valid_to": m.valid_to,
            "fact_id": m.fact_id,
            "recorded_at": m.recorded_at,
            "by": m.actor,
        }
        for m in current(said, moment).values()
    ]


def promote(
    mem: Memory, subject: str, fact_id: str, group: str, now: dt.datetime | None
) -> Written:
    """Copy one of a user's facts into a group it belongs to, recording who, what and when."""
    uaddr = mem.address(subject)
    gaddr = mem.address(group)
    member_address(gaddr, uaddr)
    if uaddr.scope != "user":
        raise InputError(f"promote shares a user's own fact: name the user, not {uaddr}")
    try:
        source = mem.store.fact(uaddr, fact_id)
    except NotFound:
        raise NotFound(
            f"{uaddr} has no fact {fact_id!r}: only the user's own facts can be promoted "
            f"(see 'uac facts {uaddr.subject}')"
        ) from None
    if source.op != "assert" or source.kind not in INHERITED_KINDS:
        raise InputError(
            f"fact {fact_id} is a {source.kind} {source.op}: only typed values and notes can "
            "be promoted"
        )
    mine = mem.store.facts(uaddr, source.path)
    if any(f.op == "retract" and (f.value or {}).get("target") == fact_id for f in mine):
        raise InputError(f"fact {fact_id} was forgotten; it cannot be promoted")
    now = now or utc_now()
    if uaddr.subject not in members_at(mem.store, gaddr, now):
        raise InputError(
            f"{uaddr.subject!r} is not a member of {gaddr}: add them first with "
            f"'uac member add {gaddr} {uaddr.subject}'"
        )
    active = _promoted(mem, gaddr, uaddr, fact_id)
    if active:
        raise InputError(f"fact {fact_id} is already promoted to {gaddr} as {active[0].id}")
    copy = promoted_copy(source, str(uaddr), mem.actor, now)
    saved = _write(mem, gaddr, f"promote {fact_id} from {uaddr}", copy, now)
    return Written.of(saved, mem._wrote(gaddr, now))


def demote(
    mem: Memory,
    subject: str,
    fact_id: str,
    group: str,
    reason: str | None,
    now: dt.datetime | None,
) -> Written:
    """Withdraw what a user promoted to a group (by the copy's or the original's id)."""
    uaddr = mem.address(subject)
    gaddr = mem.address(group)
    member_address(gaddr, uaddr)
    active = _promoted(mem, gaddr, uaddr, fact_id)
    if not active:
        raise NotFound(
            f"{uaddr} has no promoted fact {fact_id!r} in {gaddr}; see 'uac facts {gaddr}'"
        )
    target = active[0]
    withdraw = NewFact(
        op="retract",
        kind=target.kind,
        path=target.path,
        record_key=target.record_key,
        value={"target": target.id},
        text=reason,
        source="explicit_command",
        evidence={"demoted_by": str(uaddr), "actor": mem.actor},
    )
    now = now or utc_now()
    saved = _write(mem, gaddr, f"demote {target.id} by {uaddr}", withdraw, now)
    return Written.of(saved, mem._wrote(gaddr, now))


def _promoted(mem: Memory, group: Address, user: Address, fact_id: str) -> list[Fact]:
    """The user's live promoted copies in the group matching an original's or a copy's id."""
    facts = mem.store.facts(group)
    retracted = {(f.value or {}).get("target") for f in facts if f.op == "retract"}
    found = []
    for f in facts:
        origin = promoted_from(f) if f.op == "assert" else None
        if origin is None or f.id in retracted or origin.get("subject") != str(user):
            continue
        if fact_id in (f.id, origin.get("fact")):
            found.append(f)
    return found
