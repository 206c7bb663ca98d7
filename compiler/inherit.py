"""What a user's compile reads besides its own log: its groups' and its tenant's facts.

A user's typed state includes the values its groups and its tenant hold (docs/scopes.md):
the fold gets them alongside the user's own facts and ranks scope first — user over group
over tenant; between two groups the usual order decides (explicit sources over automatic
ones, then the more recent assertion, then confidence, then log position), so the result is
deterministic. Only typed values and notes are inherited (`INHERITED_KINDS`), never a path
the catalog marks `inherit = false`; a group's facts reach a user only while the user is a
member at the compile's moment (fact_log/scopes.py).

The checkpoint's watermark covers everything read here, so a write to a group (or a
membership change) makes its members' checkpoints stale (`changed`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from uac.compiler.fold import select_facts
from uac.fact_log.addressing import TENANT_SUBJECT, Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.scopes import (
    INHERITED_KINDS,
    MEMBERSHIP_KIND,
    Membership,
    current,
    promoted_from,
    statements,
)
from uac.fact_log.store import Fact, Store


@dataclass(slots=True)
class Inherited:
    """The facts a user inherits, the scope each came from, and the log position read."""

    facts: list[Fact] = field(default_factory=list)
    scopes: dict[str, str] = field(default_factory=dict)  # fact id -> 'group:x' | 'tenant'
    groups: list[str] = field(default_factory=list)  # groups the user is a member of
    ever_member: bool = False  # a membership statement names the user (left groups too)
    mark: int = 0  # highest seq of everything read (memberships, groups, tenant)
    mark_id: str | None = None


def memberships(
    store: Store, tenant: str, user: str, known_at: dt.datetime | None = None
) -> list[Membership]:
    """Every membership statement about a user, across the tenant's groups, in log order."""
    return _statements(store.facts_of_kind(tenant, MEMBERSHIP_KIND, user), known_at)


def _statements(found: list[Fact], known_at: dt.datetime | None) -> list[Membership]:
    return statements([f for f in found if f.scope == "group"], known_at)


def _sources(
    store: Store, addr: Address, known_at: dt.datetime | None
) -> tuple[list[Membership], dict[Address, list[Fact]], list[Fact]]:
    """Statements about the user, and the logs of the tenant and of every group they name."""
    # Read straight from the store, not through the compile cache: shared logs are small,
    # and the cache's room is for the subjects being compiled.
    about = store.facts_of_kind(addr.tenant, MEMBERSHIP_KIND, addr.subject)
    said = _statements(about, known_at)
    logs: dict[Address, list[Fact]] = {}
    for group in sorted({m.group for m in said}):
        logs[Address(addr.tenant, "group", group)] = store.facts(
            Address(addr.tenant, "group", group)
        )
    tenant = Address(addr.tenant, "tenant", TENANT_SUBJECT)
    logs[tenant] = store.facts(tenant)
    read = [f for facts in logs.values() for f in facts]
    read += about
    return said, logs, read


def inherited(
    store: Store,
    catalog: Catalog,
    addr: Address,
    own: list[Fact],
    as_of: dt.datetime | None = None,
    known_at: dt.datetime | None = None,
) -> Inherited:
    """The facts a user's fold reads from its groups and tenant (nothing for other scopes)."""
    out = Inherited()
    if addr.scope != "user":
        return out
    said, logs, read = _sources(store, addr, known_at)
    out.ever_member = bool(said)
    if known_at is not None:
        read = [f for f in read if f.recorded_at <= known_at]
    if read:
        top = max(read, key=lambda f: f.seq)
        out.mark, out.mark_id = top.seq, top.id
    # The log's own clock, never the wall clock: the same log compiles to the same code.
    moment = as_of or known_at or max((f.recorded_at for f in [*own, *read]), default=None)
    members = current(said, moment) if moment is not None else {}
    out.groups = sorted(group for group, _ in members)
    wanted = [Address(addr.tenant, "group", g) for g in out.groups]
    wanted.append(Address(addr.tenant, "tenant", TENANT_SUBJECT))
    mine: set[str] | None = None  # built on first need: most shared logs promote nothing
    for scope in wanted:
        label = str(scope)
        for fact in select_facts(logs[scope], as_of, known_at):
            origin = promoted_from(fact)
            if origin is not None:
                if mine is None:
                    mine = _own_asserts(own)
                if origin.get("fact") in mine:
                    continue
            if fact.kind in INHERITED_KINDS and catalog.policy(fact.path).inherit:
                out.facts.append(fact)
                out.scopes[fact.id] = label
    return out


def _own_asserts(own: list[Fact]) -> set[str]:
    # What the user promoted comes back to them as their own fact, not a second time.
    forgotten = {(f.value or {}).get("target") for f in own if f.op == "retract"}
    return {f.id for f in own if f.op == "assert"} - forgotten


def changed(store: Store, addr: Address, watermark: int) -> bool:
    """True if a group or tenant fact (or a membership) is newer than a user's checkpoint."""
    if addr.scope != "user":
        return False
    _, _, read = _sources(store, addr, None)
    return any(f.seq > watermark for f in read)


def members(store: Store, group: Address, moment: dt.datetime) -> list[str]:
    """The users who are members of a group at a moment."""
    said = statements(store.facts(group))
    return sorted(user for _, user in current(said, moment))


def with_members(store: Store, tenant: str, addresses: list[Address]) -> list[Address]:
    """Subjects to recompile: the given ones plus every user in a changed group or tenant.

    A tenant-scope change reaches every user of the tenant; a group change, every user with
    a membership statement in that group (a removed member must lose the values too).
    """
    out = set(addresses)
    shared = [a for a in addresses if a.scope in ("group", "tenant")]
    if not shared:
        return sorted(out)
    for addr in shared:
        if addr.scope == "tenant":
            out.update(
                Address(tenant, "user", s.subject)
                for s in store.subjects(tenant)
                if s.scope == "user"
            )
            said = statements(store.facts_of_kind(tenant, MEMBERSHIP_KIND))
        else:
            said = statements(store.facts(addr))
        out.update(Address(tenant, "user", m.user) for m in said)
    return sorted(out)
