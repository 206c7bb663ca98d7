"""Names that become paths, SQL values and module names: a trailing newline is refused.

`re.match` with `$` also matches before a final newline, so "alice\\n" used to pass as a
subject name; every validator now matches the whole string.
"""

from __future__ import annotations

import pytest

from uac import Memory
from uac.compiler.loader import _component
from uac.fact_log.addressing import check_name, parse_subject
from uac.fact_log.catalog import _check_ident
from uac.fact_log.errors import InputError, WorkspaceError
from uac.fact_log.importer import check_collection_name

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("name validation alone: no log")

ENDINGS = ["\n", "\r\n", " ", "\t", "\x00", "/x", "\n/../x"]


@NO_LOG
@pytest.mark.parametrize("ending", ENDINGS)
def test_subject_and_tenant_names_refuse_trailing_junk(ending: str) -> None:
    assert check_name("subject", "alice") == "alice"
    with pytest.raises(InputError, match="invalid subject name"):
        check_name("subject", "alice" + ending)
    with pytest.raises(InputError, match="invalid tenant name"):
        parse_subject("alice", tenant="acme" + ending)
    with pytest.raises(InputError):
        parse_subject("user:alice" + ending)
    with pytest.raises(InputError):
        parse_subject("alice" + ending)


@NO_LOG
@pytest.mark.parametrize("ending", ["\n", "\r\n"])
def test_other_validators_refuse_a_trailing_newline(ending: str) -> None:
    assert check_collection_name("finance.transactions") == "finance.transactions"
    with pytest.raises(InputError):
        check_collection_name("trips" + ending)
    _check_ident("field", "cost")
    with pytest.raises(InputError):
        _check_ident("field", "cost" + ending)
    assert _component("v000001") == "v000001"
    with pytest.raises(WorkspaceError):
        _component("alice" + ending)


def test_memory_refuses_a_subject_with_a_newline(mem: Memory) -> None:
    with pytest.raises(InputError, match="invalid subject name"):
        mem.set("alice\n", "identity.name", "Alice")
    mem.set("alice", "identity.name", "Alice")  # the clean name still works
