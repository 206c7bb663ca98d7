"""A `set` appends one fact row and nothing else: its command is the row itself.

The command `set <path> <value>` is fully in its fact (path, value, session, time, actor), so
it is not archived a second time as an inputs row. Logs written when it was (an inputs row
per set, the fact naming it) still read, fold and verify beside the new rows. Both backends.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from uac import Memory
from uac.fact_log.store import Batch, NewFact, NewInput
from uac.fact_log.values import canonical_json

pytestmark = pytest.mark.usefixtures("backend")

NOW = dt.datetime(2026, 1, 10, 9)
EXPIRY = "identity.passport.expiry_date"


def test_a_set_appends_its_fact_and_no_input_row(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        fact = mem.set("maya", EXPIRY, "2031-05-03", now=NOW)
        assert fact.input_id is None and fact.value == "2031-05-03"
        assert fact.path == EXPIRY and fact.source == "explicit_command"
        assert mem.inputs("maya") == []
        count = mem.store.con.execute("SELECT count(*) FROM inputs").fetchone()
        assert count is not None and count[0] == 0
        assert mem.verify().ok
        mem.compile("maya")
        assert mem.checkpoint("maya").user.passport.expiry_date == dt.date(2031, 5, 3)


def _set_with_its_input(mem: Memory, value: str, at: dt.datetime) -> str:
    """A set as it was written before: an inputs row with the command, the fact naming it."""
    batch = Batch(mem.address("maya"), at, "api")
    command = f"set {EXPIRY} {canonical_json(value)}"
    batch.inputs.append(NewInput("command", command, "explicit_command"))
    batch.facts.append(
        NewFact("assert", "attribute", EXPIRY, value, source="explicit_command", input_index=0)
    )
    (fact,) = mem.store.append(batch)
    assert fact.input_id == batch.input_ids[0]
    return command


def test_sets_written_with_their_input_rows_still_read_fold_and_verify(home: Path) -> None:
    with Memory(home, create=True, react=False) as mem:
        command = _set_with_its_input(mem, "2030-01-01", NOW)
        mem.set("maya", EXPIRY, "2031-05-03", now=NOW + dt.timedelta(days=1))
        _set_with_its_input(mem, "2032-02-02", NOW + dt.timedelta(days=2))
        mem.set("maya", EXPIRY, "2033-03-03", now=NOW + dt.timedelta(days=3))
    with Memory(home) as mem:  # reopened: the old rows and the new ones, one log
        report = mem.verify()
        assert report.ok, report
        inputs = mem.inputs("maya")
        assert len(inputs) == 2 and inputs[0].content == command
        facts = mem.facts("maya")
        assert [f.input_id is None for f in facts] == [False, True, False, True]
        assert {f.input_id for f in facts} - {None} == {i.id for i in inputs}
        mem.compile("maya")
        assert mem.checkpoint("maya").user.passport.expiry_date == dt.date(2033, 3, 3)
