"""`preview`: check a plan before acting — what a write would raise and clear, writing nothing.

`Planner` is the service of `Memory` (runtime/api/memory.py) behind it. A proposal takes
any form a write takes: a message (the same extraction pipeline as `add`, rules and
frames), typed facts (`path` and `value` as `set` takes them, or `path` and `record` as an
import of one record), or several of these at once (a batch: applied in order, checked
once at the end).

The verb only orchestrates: each form builds the batch its write would build (drafts.py),
the scope policy refuses what the write would refuse, the compiler folds the subject's log
plus the batches in memory (compiler/overlay.py) and the checks plan the alert changes
against the stored alerts exactly as the write's reaction does (checks/alerts.py
`preview_on`). Nothing is appended, archived, indexed, compiled to disk or delivered.

Two things a write does are left out, both side writes: an LLM extractor is not called (its
token ledger is a table; a preview reads the message with the rules and frames), and a
message's "done with X, next is Y" does not move the open task on.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from uac.checks import Alert
from uac.checks.alerts import preview_on
from uac.compiler.canonical import to_json
from uac.compiler.explain import resolve
from uac.compiler.overlay import PROPOSED, Overlay, build_overlay
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import InputError
from uac.fact_log.importer import RawRecord
from uac.fact_log.scopes import check_policy
from uac.fact_log.store import Batch, Store, utc_now
from uac.fact_log.values import canonical_json
from uac.runtime.api.drafts import Drafts
from uac.runtime.api.reactor import Reactor
from uac.runtime.api.workspace import Caller

if TYPE_CHECKING:
    from uac.compiler.verified import Checkpoint

MAX_PROPOSED = 1000  # facts in one proposal: a plan, not an import


@dataclass(frozen=True, slots=True)
class Preview:
    """What a proposed write would change; `written` is always False."""

    subject: str
    today: dt.date
    version: int  # the published checkpoint the proposal was laid over (0: none yet)
    raised: list[Alert]  # new, reopened or woken from a snooze: the write would deliver them
    cleared: list[Alert]  # open now, resolved by the write
    still_open: list[Alert]  # open now and after
    checks: list[str]
    errors: dict[str, str]  # check -> error
    facts: list[dict[str, Any]]  # the facts the write would append, with their derived status
    state: list[dict[str, Any]]  # typed values and records the proposal creates or changes
    refused: list[str] = field(default_factory=list)  # what the gate would refuse, and why
    written: bool = False

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (alerts as alerts show; same proposal, same bytes)."""
        return {
            "subject": self.subject,
            "today": self.today.isoformat(),
            "version": self.version,
            "raised": [a.as_dict() for a in self.raised],
            "cleared": [a.as_dict() for a in self.cleared],
            "still_open": [a.as_dict() for a in self.still_open],
            "checks": list(self.checks),
            "errors": dict(sorted(self.errors.items())),
            "facts": self.facts,
            "state": self.state,
            "refused": list(self.refused),
            "written": self.written,
        }


class Planner:
    """The verb that checks a plan before acting."""

    def __init__(
        self, store: Store, catalog: Catalog, caller: Caller, reactor: Reactor, drafts: Drafts
    ):
        self.store = store
        self.catalog = catalog
        self.caller = caller
        self.reactor = reactor  # the day a write's reaction would check as of
        self.drafts = drafts  # the batches the proposal's writes would append

    def preview(
        self,
        subject: str,
        text: str | None = None,
        *,
        facts: Sequence[dict[str, Any]] | None = None,
        at: dt.datetime | None = None,
        session_id: str | None = None,
        role: str = "user",
        today: dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Preview:
        """The alerts a write would raise and clear, and the typed state it would create.

        `text`: a message, read as `add` reads it (`at`: when it is said). `facts`: typed
        facts, each {"path", "value"} (an attribute, as `set`) or {"path", "record"} (one
        record of a collection, as an import); with `valid_from`/`valid_to` for attributes.
        Both may be given: the message first, then the facts. Checked as of `today`
        (default: the day the write's reaction would use: `at`'s, else `now`'s). Nothing is
        written.
        """
        addr = self.caller.address(subject)
        recorded = now or utc_now()
        batches = self._proposal(str(addr), text, facts or (), at, session_id, role, recorded)
        for batch in batches:
            check_policy(self.catalog, addr, batch.facts)
        overlay = build_overlay(self.store, self.catalog, addr, batches)
        # The day the write's reaction would check as of (a server clamps a far one).
        day = today or self.reactor.day_for(at or recorded)
        result = preview_on(self.store, overlay, day)
        return Preview(
            str(addr),
            day,
            overlay.version,
            [*result.new, *result.woken],
            result.resolved,
            [a for a in result.still_open if a not in result.woken],
            result.checks,
            result.errors,
            _proposed(overlay),
            _state(overlay),
            [r.reason for b in batches for r in b.rejections],
        )

    def _proposal(
        self,
        subject: str,
        text: str | None,
        facts: Sequence[dict[str, Any]],
        at: dt.datetime | None,
        session_id: str | None,
        role: str,
        recorded: dt.datetime,
    ) -> list[Batch]:
        """The batches the proposal's writes would append, in order (validated as they are)."""
        if text is None and not facts:
            raise InputError("nothing to preview: give a message, or facts (path and value)")
        if len(facts) > MAX_PROPOSED:
            raise InputError(f"a preview takes at most {MAX_PROPOSED} facts, got {len(facts)}")
        batches = []
        if text is not None:
            if not text.strip():
                raise InputError("the message to preview is empty")
            # No LLM: its token ledger is written on every call (see the module docstring).
            batches.append(
                self.drafts.message_batch(
                    subject, text, at, session_id, role, recorded, "automatic_rule", None
                )
            )
        for n, item in enumerate(facts, 1):
            batches.append(self._typed_batch(subject, n, item, session_id, recorded))
        return batches

    def _typed_batch(
        self,
        subject: str,
        n: int,
        item: dict[str, Any],
        session_id: str | None,
        recorded: dt.datetime,
    ) -> Batch:
        """One proposed typed fact as the batch of its write (`set`, or a one-record import)."""
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            raise InputError(f"proposed fact {n}: expected {{'path': ..., 'value': ...}}")
        unknown = sorted(set(item) - {"path", "value", "record", "valid_from", "valid_to"})
        if unknown:
            raise InputError(f"proposed fact {n}: unknown field {unknown[0]!r}")
        path = item["path"]
        if "record" in item:
            record = item["record"]
            if not isinstance(record, dict) or "value" in item:
                raise InputError(
                    f"proposed fact {n}: a record is a dict of fields, given as 'record' alone"
                )
            addr = self.caller.address(subject)
            from uac.fact_log.pipeline import build_import_batch  # writes' code: lazily

            batch, _ = build_import_batch(
                self.catalog,
                addr,
                path,
                [RawRecord(f"proposed fact {n}", record, False)],
                text=canonical_json(record),
                name="<preview>",
                previous_schema=self.drafts.inferred_before(addr, path),
                recorded_at=recorded,
                session_id=session_id,
                actor=self.caller.actor,
            )
            return batch
        if "value" not in item:
            raise InputError(f"proposed fact {n}: give the value for {path} (or a record)")
        return self.drafts.set_batch(
            subject,
            path,
            item["value"],
            _moment(item.get("valid_from"), n),
            _moment(item.get("valid_to"), n),
            session_id,
            recorded,
        )


def _moment(value: Any, n: int) -> dt.datetime | None:
    if value is None or isinstance(value, dt.datetime):
        return value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    try:
        return dt.datetime.fromisoformat(str(value))
    except ValueError:
        raise InputError(f"proposed fact {n}: not a date or datetime: {value!r}") from None


def _proposed(overlay: Overlay) -> list[dict[str, Any]]:
    """The proposal's facts as rows would show them, with what the fold made of each."""
    out = []
    for fact in overlay.proposed:
        status = overlay.folded.statuses.get(fact.id)
        out.append(
            {
                "id": fact.id,
                "op": fact.op,
                "kind": fact.kind,
                "path": fact.path,
                "key": fact.record_key,
                "value": to_json(fact.value),
                "text": fact.text,
                "source": fact.source,
                "confidence": fact.confidence,
                "status": status.status if status else None,
                "decision": status.decision if status else None,
            }
        )
    return out


def _state(overlay: Overlay) -> list[dict[str, Any]]:
    """Each typed value or record a proposed fact lands in (object path order)."""
    out = []
    for expr, ids in sorted(overlay.provenance.get("paths", {}).items()):
        if any(str(i).startswith(PROPOSED) for i in ids):
            # An Overlay has what `resolve` reads of a checkpoint (user, provenance).
            found = resolve(cast("Checkpoint", overlay), expr)
            out.append({"expr": found.expr, "value": to_json(found.value), "fact_ids": ids})
    return out
