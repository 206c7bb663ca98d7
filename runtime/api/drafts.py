"""`Drafts`: the batches writes append, built without writing anything.

The write verbs (writes.py `Writer`) append them; `preview` (preview.py `Planner`) lays them
over the subject's log in memory. One builder for both, so a preview reads a proposal
exactly as the write would (same parsing, validation, screening and scope set-aside).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.importer import parse_cli_value
from uac.fact_log.scopes import set_aside_out_of_scope
from uac.fact_log.store import Batch, NewFact, Store, utc_naive, utc_now
from uac.runtime.api.workspace import Caller

if TYPE_CHECKING:  # the extractor loads on a write's first use: reads never pay for it
    from uac.fact_log.extraction.llm import LLM


class Drafts:
    """Builds the batch of a `set`, of a message, and reads an import's earlier schema."""

    def __init__(self, store: Store, catalog: Catalog, caller: Caller):
        self.store = store
        self.catalog = catalog
        self.caller = caller

    def set_batch(
        self,
        subject: str,
        path: str,
        value: Any,
        valid_from: dt.datetime | dt.date | None = None,
        valid_to: dt.datetime | dt.date | None = None,
        session_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Batch:
        """The batch `set` appends (the value parsed, validated and screened); writes nothing."""
        addr = self.caller.address(subject)
        attr = self.catalog.attribute(path)
        if isinstance(value, str):
            value = parse_cli_value(value, attr.spec.type)
        typed = self.catalog.validate_attribute(attr, value)
        # Secrets never; identifiers only in a field declared sensitive in the catalog.
        from uac.fact_log.extraction.screen import refuse_secrets

        refuse_secrets(typed, f"the value for {path}", identifiers=attr.spec.sensitivity == "none")
        # No inputs row: the command (`set <path> <value>`) is the fact row itself (its path,
        # value, session and time), so the write touches one table of the log, not two.
        batch = Batch(addr, now or utc_now(), self.caller.actor)
        batch.facts.append(
            NewFact(
                op="assert",
                kind=attr.kind,
                path=path,
                value=typed,
                source="explicit_command",
                valid_from=_moment(valid_from),
                valid_to=_moment(valid_to),
                session_id=session_id,
            )
        )
        return batch

    def message_batch(
        self,
        subject: str,
        text: str,
        at: dt.datetime | None,
        session_id: str | None,
        role: str,
        recorded: dt.datetime,
        source: str,
        llm: LLM | None,
    ) -> Batch:
        """The batch a message appends (extracted, gated, out-of-scope facts set aside)."""
        from uac.fact_log.pipeline import build_message_batch, session_history

        address = self.caller.address(subject)
        batch = build_message_batch(
            self.catalog,
            address,
            text,
            observed_at=at or recorded,
            recorded_at=recorded,
            role=role,
            session_id=session_id,
            source=source,
            actor=self.caller.actor,
            llm=llm,
            store=self.store,
            # a dated message (a replay) reads what was said before it; a live one, the
            # session as it arrived (a client clock a little behind the server's loses nothing)
            history=session_history(self.store, address, session_id, role, at),
        )
        set_aside_out_of_scope(self.catalog, batch)
        return batch

    def inferred_before(self, addr: Address, collection: str) -> dict[str, Any] | None:
        """The schema earlier imports inferred for a collection not in the catalog, if any."""
        if self.catalog.collection(collection) is not None:
            return None
        found = self.store.inferred_schema(addr, collection)
        return found[1] if found else None


def _moment(value: dt.datetime | dt.date | None) -> dt.datetime | None:
    """A validity time as the log stores it (a date: its midnight, as the store reads it)."""
    if value is None or isinstance(value, dt.datetime):
        return value
    return utc_naive(value)
