"""Membership, promote and demote: the verbs that let scopes share (docs/scopes.md).

`Sharing` is the service behind `Memory`'s `member_add`, `member_remove`, `members`,
`promote` and `demote`. Every write is a fact in the group's log (membership statements,
promoted copies, withdrawals), appended through the same `Appender` as any other write and
reacted to like one: the group's members recompile.
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
from uac.fact_log.store import Batch, Fact, NewFact, NewInput, Store, utc_naive, utc_now
from uac.runtime.api.reactor import Written
from uac.runtime.api.workspace import Appender, Caller


class Sharing:
    """The verbs of memberships and of facts shared with a group."""

    def __init__(self, store: Store, caller: Caller, appender: Appender):
        self.store = store
        self.caller = caller
        self.appender = appender

    def member_add(
        self,
        group: str,
        user: str,
        *,
        valid_from: dt.datetime | dt.date | None = None,
        valid_to: dt.datetime | dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """Make a user a member of a group (a fact in the group's log, with validity times)."""
        gaddr, uaddr = self._group_and_user(group, user)
        now = now or utc_now()
        fact = membership_fact(uaddr.subject, True, utc_naive(valid_from), utc_naive(valid_to))
        saved = self._write(gaddr, f"member add {gaddr} {uaddr.subject}", fact, now)
        return Written.of(saved, self.appender.wrote(gaddr, now))

    def member_remove(
        self,
        group: str,
        user: str,
        *,
        at: dt.datetime | dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """End a user's membership of a group at `at` (default: now)."""
        gaddr, uaddr = self._group_and_user(group, user)
        now = now or utc_now()
        moment = utc_naive(at) or now
        if uaddr.subject not in members_at(self.store, gaddr, moment):
            raise InputError(
                f"{uaddr.subject!r} is not a member of {gaddr} at {moment:%Y-%m-%d %H:%M}; "
                f"see 'uac member list {gaddr}'"
            )
        fact = membership_fact(uaddr.subject, False, moment, None)
        saved = self._write(gaddr, f"member remove {gaddr} {uaddr.subject}", fact, now)
        return Written.of(saved, self.appender.wrote(gaddr, now))

    def members(self, subject: str, *, at: dt.datetime | None = None) -> list[dict[str, Any]]:
        """A group's members (or a user's groups) at a moment (default: now)."""
        return _members(self.store, self.caller.address(subject), at)

    def promote(
        self, subject: str, fact_id: str, group: str, *, now: dt.datetime | None = None
    ) -> Written:
        """Share one of a user's facts with a group it belongs to (recorded: who, what, when)."""
        uaddr, gaddr = self.caller.address(subject), self.caller.address(group)
        member_address(gaddr, uaddr)
        if uaddr.scope != "user":
            raise InputError(f"promote shares a user's own fact: name the user, not {uaddr}")
        source = _promotable(self.store, uaddr, fact_id)
        now = now or utc_now()
        if uaddr.subject not in members_at(self.store, gaddr, now):
            raise InputError(
                f"{uaddr.subject!r} is not a member of {gaddr}: add them first with "
                f"'uac member add {gaddr} {uaddr.subject}'"
            )
        active = _promoted(self.store, gaddr, uaddr, fact_id)
        if active:
            raise InputError(f"fact {fact_id} is already promoted to {gaddr} as {active[0].id}")
        copy = promoted_copy(source, str(uaddr), self.caller.actor, now)
        saved = self._write(gaddr, f"promote {fact_id} from {uaddr}", copy, now)
        return Written.of(saved, self.appender.wrote(gaddr, now))

    def demote(
        self,
        subject: str,
        fact_id: str,
        group: str,
        *,
        reason: str | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """Withdraw what the user promoted to a group (the copy is retracted there)."""
        uaddr, gaddr = self.caller.address(subject), self.caller.address(group)
        member_address(gaddr, uaddr)
        active = _promoted(self.store, gaddr, uaddr, fact_id)
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
            evidence={"demoted_by": str(uaddr), "actor": self.caller.actor},
        )
        now = now or utc_now()
        saved = self._write(gaddr, f"demote {target.id} by {uaddr}", withdraw, now)
        return Written.of(saved, self.appender.wrote(gaddr, now))

    def _group_and_user(self, group: str, user: str) -> tuple[Address, Address]:
        gaddr = self.caller.address(group)
        return gaddr, member_address(gaddr, self.caller.address(user))

    def _write(self, addr: Address, command: str, fact: NewFact, now: dt.datetime) -> Fact:
        batch = Batch(addr, now, self.caller.actor)
        batch.inputs.append(NewInput("command", command, "explicit_command"))
        fact.input_index = 0
        batch.facts.append(fact)
        return self.appender.append(batch)[0]


def _members(store: Store, addr: Address, at: dt.datetime | None) -> list[dict[str, Any]]:
    """A group's members at a moment, or the groups a user belongs to then."""
    moment = utc_naive(at) or utc_now()
    if addr.scope == "group":
        said = statements(store.facts(addr))
    elif addr.scope == "user":
        said = memberships(store, addr.tenant, addr.subject)
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


def _promotable(store: Store, user: Address, fact_id: str) -> Fact:
    """The user's own fact to promote: a live typed value or note (else a clear error)."""
    try:
        source = store.fact(user, fact_id)
    except NotFound:
        raise NotFound(
            f"{user} has no fact {fact_id!r}: only the user's own facts can be promoted "
            f"(see 'uac facts {user.subject}')"
        ) from None
    if source.op != "assert" or source.kind not in INHERITED_KINDS:
        raise InputError(
            f"fact {fact_id} is a {source.kind} {source.op}: only typed values and notes can "
            "be promoted"
        )
    mine = store.facts(user, source.path)
    if any(f.op == "retract" and (f.value or {}).get("target") == fact_id for f in mine):
        raise InputError(f"fact {fact_id} was forgotten; it cannot be promoted")
    return source


def _promoted(store: Store, group: Address, user: Address, fact_id: str) -> list[Fact]:
    """The user's live promoted copies in the group matching an original's or a copy's id."""
    facts = store.facts(group)
    retracted = {(f.value or {}).get("target") for f in facts if f.op == "retract"}
    found = []
    for f in facts:
        origin = promoted_from(f) if f.op == "assert" else None
        if origin is None or f.id in retracted or origin.get("subject") != str(user):
            continue
        if fact_id in (f.id, origin.get("fact")):
            found.append(f)
    return found
