"""Tenants and subjects never see each other's rows."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from conftest import T0, new_workspace
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from uac import Memory
from uac.fact_log.addressing import Address, parse_subject
from uac.fact_log.errors import InputError, NotFound

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("subject name parsing alone: no log")

ADDRESSES = [
    ("t1", "alice"),
    ("t1", "bob"),
    ("t1", "group:alice"),
    ("t1", "tenant"),
    ("t2", "alice"),
    ("t2", "user:bob"),
    ("t2", "tenant"),
]


@NO_LOG
def test_parse_subject_forms() -> None:
    assert parse_subject("alice") == Address("default", "user", "alice")
    assert parse_subject("user:alice", "acme") == Address("acme", "user", "alice")
    assert parse_subject("group:family", "acme") == Address("acme", "group", "family")
    assert parse_subject("tenant", "acme") == Address("acme", "tenant", "tenant")
    with pytest.raises(InputError, match="invalid tenant name"):
        parse_subject("alice", "bad tenant")


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(st.sampled_from(ADDRESSES), st.text(min_size=1, max_size=12)),
        min_size=1,
        max_size=25,
    )
)
@example([(("t1", "alice"), "a\x00b"), (("t2", "alice"), "Al")])  # a refused write reads as none
def test_reads_return_only_the_named_subjects_rows(tmp_path_factory, fresh_log, writes) -> None:
    home: Path = tmp_path_factory.mktemp("iso") / "ws"
    with fresh_log(home):  # each example its own log (on PostgreSQL a database of its own)
        _reads_only_named(home, writes)


def _reads_only_named(home: Path, writes: list[tuple[tuple[str, str], str]]) -> None:
    expected: dict[tuple[str, str], list[str]] = {a: [] for a in ADDRESSES}
    # Writes interleave tenants as drawn, through one open workspace and a view per tenant
    # (as `uac serve` answers many tenants); reads open the workspace afresh, per tenant.
    with Memory(new_workspace(home), "t1", create=True, react=False) as mem:
        views = {"t1": mem, "t2": mem.for_tenant("t2")}
        for (tenant, subject), name in writes:
            if "\x00" in name:  # uac stores no U+0000: refused whole, nothing to read back
                with pytest.raises(InputError, match="NUL character"):
                    views[tenant].set(subject, "identity.name", name, now=T0)
                continue
            views[tenant].set(subject, "identity.name", name, now=T0)
            expected[(tenant, subject)].append(name)
    for tenant, addresses in itertools.groupby(ADDRESSES, key=lambda a: a[0]):
        with Memory(home, tenant, read_only=True) as mem:
            for _, subject in addresses:
                _reads_of(mem, tenant, subject, expected)


def _reads_of(
    mem: Memory, tenant: str, subject: str, expected: dict[tuple[str, str], list[str]]
) -> None:
    """One subject's reads return exactly its own writes, addressed to it."""
    facts = mem.facts(subject)
    addr = mem.address(subject)
    assert [f.value for f in facts] == expected[(tenant, subject)]
    assert all(
        (f.tenant, f.scope, f.subject) == (addr.tenant, addr.scope, addr.subject) for f in facts
    )
    assert all(
        i.tenant == tenant and i.subject == addr.subject and i.scope == addr.scope
        for i in mem.inputs(subject)
    )
    assert {(s.scope, s.subject) for s in mem.subjects()} == {
        (mem.address(s).scope, mem.address(s).subject)
        for (t, s), names in expected.items()
        if t == tenant and names
    }


def test_facts_of_another_subject_or_tenant_cannot_be_forgotten(home: Path) -> None:
    with Memory(home, "t1", create=True) as mem:
        alice_fact = mem.set("alice", "identity.name", "Alice", now=T0)
        with pytest.raises(NotFound, match="has no fact"):
            mem.forget("bob", alice_fact.id)
        with pytest.raises(NotFound):
            mem.forget("group:alice", alice_fact.id)
    with Memory(home, "t2") as mem:
        with pytest.raises(NotFound):
            mem.forget("alice", alice_fact.id)
        with pytest.raises(InputError, match="belongs to tenant 't1'"):
            mem.facts(Address("t1", "user", "alice"))  # type: ignore[arg-type]
    with Memory(home, "t1") as mem:
        assert [f.op for f in mem.facts("alice")] == ["assert"]


def test_inferred_schemas_are_per_subject(mem: Memory) -> None:
    mem.import_records("alice", "diary", [{"secret_field": "x"}], now=T0)
    assert mem.inferred_schemas("bob") == {}
    assert mem.inferred_schemas("group:alice") == {}
