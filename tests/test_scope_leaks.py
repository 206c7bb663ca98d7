"""The leak suite: random memberships, writes, promotes and reads across two tenants.

After every sequence, each user's compiled state (its notes: the user's own, its current
groups', its tenant's) must be exactly what a plain model of the rules says — so no read by
a member ever returns another member's user-scope data unless that member promoted it to a
group the reader is in now, a removed member loses a group's values from the next
checkpoint on, and the two tenants never mix. Every note carries a unique marker; the
checks compare marker sets, so any leak is a visible extra marker.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from conftest import T0, new_workspace
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from uac import Memory
from uac.compiler.checkpoint import compile_many
from uac.fact_log.errors import InputError, NotFound

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

TENANTS = ("t1", "t2")
USERS = ("u0", "u1", "u2")
FEW = ("u0", "u1")  # most operations name two users, so memberships overlap often
GROUPS = ("g0", "g1")
EXAMPLES = 25

T, U, G = st.sampled_from(TENANTS), st.sampled_from(USERS), st.sampled_from(GROUPS)
F = st.sampled_from(FEW)
op = st.one_of(
    st.tuples(st.just("write"), T, U),
    st.tuples(st.just("join"), T, G, F),
    st.tuples(st.just("join"), T, G, F),
    st.tuples(st.just("leave"), T, G, F),
    st.tuples(st.just("leave"), T, G, F),
    st.tuples(st.just("group"), T, G),
    st.tuples(st.just("group"), T, G),
    st.tuples(st.just("tenant"), T),
    st.tuples(st.just("promote"), T, F, G),
    st.tuples(st.just("read")),
)


class Model:
    """What each user should see: the rules of docs/scopes.md, written plainly."""

    def __init__(self) -> None:
        self.own: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)  # (id, text)
        self.group: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.tenant: dict[str, set[str]] = defaultdict(set)
        self.members: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.promoted: set[tuple[str, str, str]] = set()  # (tenant, group, fact id)

    def visible(self, tenant: str, user: str) -> set[str]:
        """The note texts a user's compiled state must hold, exactly."""
        seen = {text for _, text in self.own[(tenant, user)]} | self.tenant[tenant]
        for g in GROUPS:
            if user in self.members[(tenant, g)]:
                seen |= self.group[(tenant, g)]
        return seen


def _read_all(mem: Memory, model: Model, users_with_state: set[tuple[str, str]]) -> None:
    # Every user with something to see, in both tenants, compiled in one call (one formatter
    # and one validator run for all of them, as `uac compile --all` does), then each checked.
    due = [
        (tenant, user)
        for tenant in TENANTS
        for user in USERS
        if model.visible(tenant, user) or (tenant, user) in users_with_state
    ]
    if not due:
        return  # nothing to compile yet
    addresses = [mem.for_tenant(tenant).address(user) for tenant, user in due]
    results = compile_many(mem.store, mem.catalog, addresses)
    for (tenant, user), address, result in zip(due, addresses, results, strict=True):
        assert result.address == address
        assert result.status == "published", (tenant, user, result.error)
        users_with_state.add((tenant, user))
        expected = model.visible(tenant, user)
        got = {n.text for n in mem.for_tenant(tenant).checkpoint(user).user.notes}
        assert got == expected, (tenant, user)
        other = {text for t in TENANTS if t != tenant for text in model.visible(t, user)}
        assert not got & other - expected  # nothing of the other tenant, ever


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(op, min_size=3, max_size=20))
# The sequences the rules are about, always tried besides the random ones: a removed member
# loses the group's notes; a promoted note reaches the other member, not another tenant.
@example(
    [
        ("join", "t1", "g0", "u0"),
        ("join", "t1", "g0", "u1"),
        ("write", "t1", "u0"),
        ("write", "t2", "u1"),
        ("group", "t1", "g0"),
        ("promote", "t1", "u0", "g0"),
        ("read",),
        ("leave", "t1", "g0", "u1"),
        ("tenant", "t2"),
    ]
)
def test_no_read_returns_what_the_rules_do_not_share(tmp_path_factory, fresh_log, ops) -> None:
    home = tmp_path_factory.mktemp("leaks") / "ws"
    with fresh_log(home):  # each example its own log (on PostgreSQL a database of its own)
        _no_leaks(home, ops)


def _no_leaks(home: Path, ops: list[tuple[Any, ...]]) -> None:
    model = Model()
    compiled: set[tuple[str, str]] = set()
    with Memory(new_workspace(home), "t1", create=True, react=False) as mem:
        for n, step in enumerate(ops):
            now = T0 + dt.timedelta(minutes=n)
            kind = step[0]
            if kind == "read":
                _read_all(mem, model, compiled)
                continue
            view = mem.for_tenant(step[1])
            marker = f"{step[1]}-{kind}-{n}"
            if kind == "write":
                fact = view.add_note(step[2], marker, now=now)
                model.own[(step[1], step[2])].append((fact.id, marker))
            elif kind == "join":
                view.member_add(f"group:{step[2]}", step[3], now=now)
                model.members[(step[1], step[2])].add(step[3])
            elif kind == "leave":
                if step[3] in model.members[(step[1], step[2])]:
                    view.member_remove(f"group:{step[2]}", step[3], now=now)
                    model.members[(step[1], step[2])].discard(step[3])
                else:
                    with pytest.raises(InputError, match="is not a member"):
                        view.member_remove(f"group:{step[2]}", step[3], now=now)
            elif kind == "group":
                view.add_note(f"group:{step[2]}", marker, now=now)
                model.group[(step[1], step[2])].add(marker)
            elif kind == "tenant":
                view.add_note("tenant", marker, now=now)
                model.tenant[step[1]].add(marker)
            else:  # promote the user's latest note to a group
                tenant, user, group = step[1], step[2], step[3]
                mine = model.own[(tenant, user)]
                if not mine:
                    continue
                fid, text = mine[-1]
                member = user in model.members[(tenant, group)]
                if not member or (tenant, group, fid) in model.promoted:
                    with pytest.raises(InputError):
                        view.promote(user, fid, f"group:{group}", now=now)
                    continue
                view.promote(user, fid, f"group:{group}", now=now)
                model.group[(tenant, group)].add(text)
                model.promoted.add((tenant, group, fid))
        _read_all(mem, model, compiled)


def test_another_members_fact_cannot_be_promoted_by_someone_else(tmp_path) -> None:
    with Memory(tmp_path / "ws", "t1", create=True, react=False) as mem:
        mem.member_add("group:g", "u0", now=T0)
        mem.member_add("group:g", "u1", now=T0)
        mem.add_note("u0", "u0's note", now=T0)
        secret = mem.add_note("u1", "u1's private note", now=T0)
        with pytest.raises(NotFound, match="only the user's own facts can be promoted"):
            mem.promote("u0", secret.id, "group:g", now=T0)
        mem.compile("u0")
        assert {n.text for n in mem.checkpoint("u0").user.notes} == {"u0's note"}
