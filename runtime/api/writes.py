"""`Writer`: Memory's write verbs — set, imports, messages, notes, preferences, forget.

A service of `Memory` (runtime/api/memory.py): each verb builds one batch (drafts.py and the
ingestion pipeline in fact_log/pipeline.py do the heavy part) and hands it to the `Appender`
(workspace.py: the scope policy, the append, which queues its reaction in the same
transaction, then the `Reactor` of runtime/api/reactor.py); the result carries the alerts
the reaction raised and cleared.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uac.checks import Alert
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import InputError
from uac.fact_log.importer import Chunk, RawRecord, read_chunks
from uac.fact_log.importer import Prepared as ImportPrepared
from uac.fact_log.progress_callback import Report, step
from uac.fact_log.scopes import check_policy
from uac.fact_log.store import Batch, Fact, NewFact, NewInput, Store, utc_now
from uac.fact_log.values import canonical_json
from uac.runtime.api import journal
from uac.runtime.api.drafts import Drafts
from uac.runtime.api.reactor import Reactor, Written, caused, outcome
from uac.runtime.api.workspace import Appender, Caller

if TYPE_CHECKING:  # the extractor loads on a write's first use: reads never pay for it
    from uac.fact_log.extraction.llm import LLM, LLMSettings


@dataclass(frozen=True, slots=True)
class Learned:
    """What one message taught: the archived input, the facts appended, what was refused,
    and the alerts the write's reaction raised and cleared."""

    input_id: str
    facts: list[Fact]
    refused: list[str]
    # paths the message may state that the extractors could not fill (frames' hints)
    hints: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    # raised (new or woken) and cleared by the write's reaction; None: no reaction known
    # (react=False, inside `deferred()`, or still running: then `ticket` is set)
    alerts: list[Alert] | None = None
    alerts_resolved: list[Alert] | None = None
    # the write's number when its reaction had not finished: ask Memory.reaction(subject, it)
    ticket: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; the reaction's fields only when known."""
        return _with_outcome(self)


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import appended."""

    subject: str
    path: str
    known: bool
    facts: int
    input_id: str
    schema: dict[str, Any] | None  # field -> shape (fact_log/shapes.py)
    alerts: list[Alert] | None = None  # see Learned
    alerts_resolved: list[Alert] | None = None
    ticket: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; the reaction's fields only when known."""
        return _with_outcome(self)


_OUTCOME = ("alerts", "alerts_resolved", "ticket")


def _with_outcome(result: Any) -> dict[str, Any]:
    """A result's fields as they are, its reaction's as `outcome` shows them."""
    out = {
        f.name: getattr(result, f.name)
        for f in dataclasses.fields(result)
        if f.name not in _OUTCOME
    }
    return {**out, **outcome({k: getattr(result, k) for k in _OUTCOME})}


class Extractor:
    """The LLM extractor of a workspace, resolved on a write's first use (explicit, else from
    the UAC_LLM_* variables): a bad setting must not block reads. None: extraction is off."""

    def __init__(self, setting: LLM | LLMSettings | None):
        self.setting = setting
        self._llm: LLM | None = None
        self._resolved = False

    def llm(self) -> LLM | None:
        """The extractor (resolved once), or None when off."""
        if not self._resolved:
            from uac.fact_log.extraction.llm import LLMSettings, as_llm

            setting = self.setting
            self._llm = as_llm(setting if setting is not None else LLMSettings.from_env())
            self._resolved = True
        return self._llm


class Writer:
    """The verbs that append to a subject's log."""

    def __init__(
        self,
        store: Store,
        catalog: Catalog,
        home: Path,
        caller: Caller,
        reactor: Reactor,
        appender: Appender,
        drafts: Drafts,
        extractor: Extractor,
    ):
        self.store = store
        self.catalog = catalog
        self.home = home  # a message's task progress reads the subject's checkpoint
        self.caller = caller
        self.reactor = reactor  # whether this thread defers reactions (progress reports)
        self.appender = appender
        self.drafts = drafts
        self.extractor = extractor

    def set(
        self,
        subject: str,
        path: str,
        value: Any,
        *,
        valid_from: dt.datetime | dt.date | None = None,
        valid_to: dt.datetime | dt.date | None = None,
        session_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """Assert a single-valued attribute (e.g. identity.passport.expiry_date)."""
        batch = self.drafts.set_batch(subject, path, value, valid_from, valid_to, session_id, now)
        fact = self.appender.append(batch)[0]
        return Written.of(fact, self.appender.wrote(subject, now, batch))

    def import_file(
        self,
        subject: str,
        collection: str,
        file: str | Path,
        *,
        format: str | None = None,
        session_id: str | None = None,
        now: dt.datetime | None = None,
        progress: Report | None = None,
    ) -> ImportResult:
        """Import a JSON Lines, JSON array or CSV file of records into a collection.

        `progress(stage, done, total)` hears each stage (default: this Memory's `progress`).
        """
        path = Path(file)
        report = progress or self.caller.progress
        done = step(report, "reading")
        chunks = read_chunks(path, format)
        head = next(chunks)  # a file that cannot be read fails here, before anything starts
        more = next(chunks, None)
        done()
        if more is None:  # one chunk (most files): one batch through group commit
            return self._import(
                subject, collection, head.records, head.text, path.name, session_id, now, report
            )
        addr = self.caller.address(subject)
        finished: list[ImportPrepared] = []
        from uac.fact_log.pipeline import import_batches

        batches = import_batches(
            self.catalog,
            addr,
            collection,
            _handed_on([head, more], chunks),
            name=path.name,
            previous_schema=self.drafts.inferred_before(addr, collection),
            recorded_at=now or utc_now(),
            session_id=session_id,
            actor=self.caller.actor,
            progress=report,
            done=finished,
        )
        del head, more  # held by the generator only until it is past them
        # Chunk by chunk in one transaction: memory stays bounded whatever the file size,
        # and a bad record in the last chunk still leaves nothing written.
        first: list[Batch] = []
        facts = self.store.append_stream(self._policed(batches, report, first))
        done = step(report if self._reacts_inline else None, "compiling")
        reaction = self.appender.wrote(subject, now)
        done()
        prepared = finished[0]
        return ImportResult(
            str(addr),
            prepared.path,
            prepared.known,
            facts,
            first[0].input_ids[0],
            prepared.schema,
            **caused(reaction),
        )

    @property
    def _reacts_inline(self) -> bool:
        """Whether a write's reaction runs before it returns (its compile is reported)."""
        return self.caller.react and not self.reactor.deferring

    def _policed(
        self, batches: Iterator[Batch], report: Report | None, first: list[Batch]
    ) -> Iterator[Batch]:
        """Each batch checked against the scope policy, its write reported, as it comes.

        The first batch is kept in `first` (the store leaves its input id in it).
        """
        for batch in batches:
            check_policy(self.catalog, batch.address, batch.facts)
            if not first:
                first.append(batch)
            done = step(report, f"writing {len(batch.facts):,} facts")
            yield batch
            done()
            if first[0].input_ids and len(first[0].facts):
                # Stored already (the store sets the ids): keep the ids, not every record.
                first[0] = dataclasses.replace(first[0], facts=[], inputs=[], rejections=[])

    def import_records(
        self,
        subject: str,
        collection: str,
        records: list[dict[str, Any]],
        *,
        session_id: str | None = None,
        now: dt.datetime | None = None,
        progress: Report | None = None,
    ) -> ImportResult:
        """Import records given as dicts (values typed as JSON would give them)."""
        if not records:
            raise InputError("no records to import")
        raw = []
        for i, rec in enumerate(records, 1):
            if not isinstance(rec, dict):
                raise InputError(f"record {i}: expected a dict, got {type(rec).__name__}")
            raw.append(RawRecord(f"record {i}", rec, False))
        text = "\n".join(canonical_json(r) for r in records)
        report = progress or self.caller.progress
        return self._import(subject, collection, raw, text, "<api>", session_id, now, report)

    def _import(
        self,
        subject: str,
        collection: str,
        records: list[RawRecord],
        text: str,
        name: str,
        session_id: str | None,
        now: dt.datetime | None,
        report: Report | None,
    ) -> ImportResult:
        addr = self.caller.address(subject)
        previous = self.drafts.inferred_before(addr, collection)
        from uac.fact_log.pipeline import build_import_batch

        batch, prepared = build_import_batch(
            self.catalog,
            addr,
            collection,
            records,
            text=text,
            name=name,
            previous_schema=previous,
            recorded_at=now or utc_now(),
            session_id=session_id,
            actor=self.caller.actor,
            progress=report,
        )
        # The pipeline builds the batch; appending it and reacting to it are Memory's.
        done = step(report, f"writing {len(batch.facts):,} facts")
        self.appender.append(batch, return_facts=False)
        done()
        done = step(report if self._reacts_inline else None, "compiling")
        reaction = self.appender.wrote(subject, now)
        done()
        return ImportResult(
            str(addr),
            prepared.path,
            prepared.known,
            len(batch.facts),
            batch.input_ids[0],
            prepared.schema,
            **caused(reaction),
        )

    def add(
        self,
        subject: str,
        text: str,
        *,
        at: dt.datetime | None = None,
        session_id: str | None = None,
        role: str = "user",
        now: dt.datetime | None = None,
    ) -> Learned:
        """Learn from one conversation message: archive it, append what the gate accepts."""
        return self._learn(subject, text, at, session_id, role, now, "automatic_rule")

    def remember(
        self,
        subject: str,
        text: str,
        *,
        session_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Learned:
        """An explicit 'remember this': certain, and kept as a note if nothing typed is found."""
        return self._learn(subject, text, None, session_id, "user", now, "explicit_command")

    def _learn(
        self,
        subject: str,
        text: str,
        at: dt.datetime | None,
        session_id: str | None,
        role: str,
        now: dt.datetime | None,
        source: str,
    ) -> Learned:
        recorded = now or utc_now()
        llm = self.extractor.llm()
        draft = self.drafts.message_batch
        batch = draft(subject, text, at, session_id, role, recorded, source, llm)
        facts = self.appender.append(batch)
        if role == "user":  # "done with the visa form, next is ...": the open task moves on
            addr = self.caller.address(subject)
            moved = journal.task_progress(
                self.store, self.catalog, self.home, self.caller.actor, addr, text,
                batch.input_ids[0], recorded,
            )  # fmt: skip
            facts += [moved] if moved is not None else []
        # A dated message (a replayed history) is checked as of when it was said, so an
        # alert fires on the day a careful assistant would have raised it, never later.
        reaction = self.appender.wrote(subject, at or now)
        reasons = [r.reason for r in batch.rejections]
        return Learned(batch.input_ids[0], facts, reasons, batch.hints, **caused(reaction))

    def note(
        self,
        subject: str,
        file: str | Path,
        *,
        note_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Learned:
        """Ingest a Markdown note; a new version of a note replaces what the old one said."""
        path = Path(file)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}: cannot read a UTF-8 Markdown note ({exc})") from None
        from uac.fact_log.pipeline import build_note_batch

        batch = build_note_batch(
            self.catalog,
            self.caller.address(subject),
            text,
            note_id=note_id or path.name,
            recorded_at=now or utc_now(),
            actor=self.caller.actor,
        )
        facts = self.appender.append(batch)
        reaction = self.appender.wrote(subject, now)
        refused = [r.reason for r in batch.rejections]
        return Learned(batch.input_ids[0], facts, refused, **caused(reaction))

    def note_template(self) -> str:
        """A Markdown note template generated from the catalog."""
        from uac.fact_log.extraction.markdown import note_template

        return note_template(self.catalog)

    def prefer(
        self, subject: str, text: str, *, confidence: float = 1.0, now: dt.datetime | None = None
    ) -> Fact:
        """Store an open-ended style wish (a soft preference): recalled by relevance, never
        overriding a hard preference; instruction-like, secret- or identifier-bearing text is
        refused."""
        from uac.fact_log.extraction.safety import scan

        if not isinstance(text, str) or not text.strip():
            raise InputError("a soft preference needs some text")
        if len(text) > 500:
            raise InputError(f"a soft preference is at most 500 characters, got {len(text)}")
        if not 0.0 < confidence <= 1.0:
            raise InputError(f"confidence must be in (0, 1], got {confidence}")
        unsafe = [f for f in scan(text).findings]  # secrets, identifiers and instructions
        if unsafe:
            raise InputError(
                f"refused as a preference: {unsafe[0].category} text ({unsafe[0].kind})"
            )
        addr = self.caller.address(subject)
        batch = Batch(addr, now or utc_now(), self.caller.actor)
        batch.inputs.append(NewInput("command", f"prefer {text.strip()}", "explicit_command"))
        batch.facts.append(
            NewFact(
                op="assert",
                kind="soft_preference",
                path="preferences.soft",
                text=" ".join(text.split()),
                source="explicit_command",
                confidence=confidence,
                input_index=0,
            )
        )
        return self.appender.append(batch)[0]

    def add_note(
        self,
        subject: str,
        text: str,
        *,
        session_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """Store free text the user asked to keep as a note (searchable, not typed)."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("a note needs some text")
        from uac.fact_log.extraction.screen import note_text

        text = note_text(text)  # secrets masked, instructions refused before anything is written
        addr = self.caller.address(subject)
        batch = Batch(addr, now or utc_now(), self.caller.actor)
        batch.inputs.append(NewInput("note", text, "explicit_command", session_id=session_id))
        batch.facts.append(
            NewFact(
                op="assert",
                kind="note",
                path="notes",
                text=text.strip(),
                source="explicit_command",
                input_index=0,
                session_id=session_id,
            )
        )
        fact = self.appender.append(batch)[0]
        return Written.of(fact, self.appender.wrote(subject, now, batch))

    def forget(
        self,
        subject: str,
        fact_id: str,
        *,
        reason: str | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """Append a retract of one of the subject's facts (nothing is deleted)."""
        addr = self.caller.address(subject)
        target = self.store.fact(addr, fact_id)
        if target.op not in ("assert", "feedback"):
            raise InputError(
                f"fact {fact_id} is a {target.op}; only asserts and feedback can be forgotten"
            )
        batch = Batch(addr, now or utc_now(), self.caller.actor)
        batch.inputs.append(
            NewInput(
                "command",
                f"forget {fact_id}" + (f": {reason}" if reason else ""),
                "explicit_command",
            )
        )
        batch.facts.append(
            NewFact(
                op="retract",
                kind=target.kind,
                path=target.path,
                record_key=target.record_key,
                value={"target": fact_id},
                text=reason,
                source="explicit_command",
                input_index=0,
            )
        )
        fact = self.appender.append(batch)[0]
        return Written.of(fact, self.appender.wrote(subject, now, batch))


def _handed_on(first: list[Chunk], rest: Iterator[Chunk]) -> Iterator[Chunk]:
    """The chunks in `first`, then `rest`, each let go of once handed on (memory)."""
    while first:
        yield first.pop(0)
    yield from rest
