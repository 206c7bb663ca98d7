"""`Memory`: the Python API agents and operators use. Every call names its subject."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import itertools
import json
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uac.checks import (
    Alert,
    EvaluationResult,
    acknowledge,
    add_rule,
    evaluate,
    list_alerts,
    snooze,
)
from uac.checks.scheduler import JobResult, run_once
from uac.checks.sinks import Sink
from uac.compiler import explain, inherit, loader, shared
from uac.compiler.checkpoint import DEFAULT_KEEP, CompileResult, compile_many
from uac.compiler.inherit import with_members
from uac.compiler.locks import subject_lock
from uac.fact_log.addressing import Address, check_name, parse_subject
from uac.fact_log.catalog import WORKSPACE_CATALOG, Catalog
from uac.fact_log.errors import InputError, NotFound, UacError
from uac.fact_log.extraction.llm import LLM, LLMSettings, as_llm
from uac.fact_log.extraction.markdown import note_template
from uac.fact_log.extraction.screen import (
    QUARANTINE_REASONS,
    QUARANTINED,
    excerpt,
    note_text,
    refuse_secrets,
)
from uac.fact_log.importer import Prepared as ImportPrepared
from uac.fact_log.importer import RawRecord, parse_cli_value, read_chunks
from uac.fact_log.pipeline import (
    build_import_batch,
    build_message_batch,
    build_note_batch,
    import_batches,
    session_history,
)
from uac.fact_log.progress import Report, step
from uac.fact_log.scopes import check_policy, set_aside_out_of_scope
from uac.fact_log.store import (
    Batch,
    Fact,
    Input,
    NewFact,
    NewInput,
    Store,
    SubjectInfo,
    VerifyReport,
    default_home,
    utc_naive,
    utc_now,
)
from uac.fact_log.values import canonical_json
from uac.runtime.api import erase as erasing
from uac.runtime.api import gc, journal, sharing
from uac.runtime.api import schema as service_schema  # noqa: F401 (its tables, always)
from uac.runtime.sandbox import Limits, run_query
from uac.runtime.search.context import assemble, check_budget
from uac.runtime.search.embedders import Embedder
from uac.runtime.search.index import SearchHit, SearchIndex, feedback_fact
from uac.runtime.search.soft_preferences import PATH as SOFT_PATH
from uac.runtime.search.soft_preferences import SoftPreference, recall


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a compiled value is what it is."""

    expr: str
    value: Any
    version: int
    facts: list[Fact]
    superseded: list[Fact]
    statuses: dict[str, dict[str, Any]]
    scopes: dict[str, str] = dataclasses.field(default_factory=dict)  # fact id -> its scope


@dataclass(frozen=True, slots=True)
class Learned:
    """What one message taught: the archived input, the facts appended, what was refused."""

    input_id: str
    facts: list[Fact]
    refused: list[str]


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import appended."""

    subject: str
    path: str
    known: bool
    facts: int
    input_id: str
    schema: dict[str, Any] | None  # field -> shape (fact_log/shapes.py)


REACTION_MEMORY = 10_000  # subjects whose reaction state is kept for coalescing


class Memory:
    """A workspace opened for one tenant. Close it (or use `with`) to release the lock.

    Safe to share between threads: appends from all threads go through the store's single
    writer (group commit), so the hash chain stays linear; reactions (compile, checks) are
    serialised per subject and coalesced — writes that land while a subject's reaction runs
    are covered by one more reaction, not one each; reads run concurrently, each thread on
    its own connection. `deferred()` blocks and `last_evaluation` are per thread. One
    process owns a workspace; other processes reach it through `uac serve` (see `Client`).
    """

    def __init__(
        self,
        home: str | Path | None = None,
        tenant: str = "default",
        *,
        create: bool = False,
        read_only: bool = False,
        actor: str = "api",
        llm: LLM | LLMSettings | None = None,
        embedder: Embedder | None = None,
        react: bool = True,
        sinks: list[Sink] | None = None,
        log_db: str | None = None,
    ):
        self.home = Path(home).expanduser() if home is not None else default_home()
        self.tenant = check_name("tenant", tenant)
        self.actor = actor
        self._llm_setting = llm  # resolved on first use: bad UAC_LLM_* must not block reads
        self._llm: LLM | bool | None = False
        self._embedder = embedder  # None: the built-in hashing embedder
        # One index per open workspace, shared by every `for_tenant` view (the list is copied
        # by reference): two indexes would sync the same rows concurrently.
        self._search: list[SearchIndex] = []
        # react: every write recompiles the subject, runs its checks, stores and delivers new
        # alerts (to `sinks`). Bulk loads wrap their writes in `deferred()` to react once per
        # subject; react=False is for back-fills of history that must raise no alerts.
        self.react = react
        self._local = threading.local()  # this thread's deferred block and last evaluation
        # Per subject: [writes saved so far, writes the last reaction covered, its result].
        # Bounded (least recently written evicted): a subject without an entry simply
        # reacts again, so eviction costs work, never correctness.
        self._reactions: OrderedDict[str, list[Any]] = OrderedDict()
        self._tickets_lock = threading.Lock()
        self._search_lock = threading.RLock()  # builds the index once
        self.sinks: list[Sink] = list(sinks or [])
        # Who hears long work's progress (imports, passes) when a call names no one: the
        # service sets it on the per-request view a long verb runs on.
        self.progress: Report | None = None
        self._owner = True
        self.store = Store.open(self.home, create=create, read_only=read_only, log_db=log_db)
        try:
            self.catalog = Catalog.load(self.home / WORKSPACE_CATALOG)
            if not read_only:
                erasing.resume_pending(self)  # an erase a killed process left half done
                if self.store.replica is not None:  # one another node made, seen at a sync
                    self.store.replica.on_erased = lambda a, e: erasing.apply_shared(self, a, e)
        except BaseException:
            self.store.close()
            raise

    def close(self) -> None:
        """Release the workspace (a `for_tenant` view leaves it to the Memory it came from)."""
        if self._owner:
            self.store.close()

    def for_tenant(self, tenant: str) -> Memory:
        """A view of the same open workspace for another tenant (shares store, locks, caches).

        A server owns one workspace and answers for many tenants; each request works on the
        view of its key's tenant. Closing a view does not close the workspace.
        """
        view = copy.copy(self)
        view.tenant = check_name("tenant", tenant)
        view._owner = False
        return view

    @property
    def last_evaluation(self) -> EvaluationResult | None:
        """The checks' result of this thread's latest reaction or `check` (None before one)."""
        return getattr(self._local, "evaluation", None)

    @property
    def _deferred(self) -> dict[str, dt.datetime] | None:
        return getattr(self._local, "deferred", None)

    @_deferred.setter
    def _deferred(self, value: dict[str, dt.datetime] | None) -> None:
        self._local.deferred = value

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def address(self, subject: str | Address) -> Address:
        """Resolve 'alice' / 'user:alice' / 'group:x' / 'tenant' within this tenant."""
        if isinstance(subject, Address):
            if subject.tenant != self.tenant:
                raise InputError(
                    f"subject {subject} belongs to tenant {subject.tenant!r}, not {self.tenant!r}"
                )
            return subject
        return parse_subject(subject, self.tenant)

    # -- writes ----------------------------------------------------------------------------

    def append(self, batch: Batch, *, return_facts: bool = True) -> list[Fact]:
        """Append one write's batch if the scope policy allows every fact in it (else nothing)."""
        check_policy(self.catalog, batch.address, batch.facts)
        return self.store.append(batch, return_facts=return_facts)

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
    ) -> Fact:
        """Assert a single-valued attribute (e.g. identity.passport.expiry_date)."""
        addr = self.address(subject)
        attr = self.catalog.attribute(path)
        if isinstance(value, str):
            value = parse_cli_value(value, attr.spec.type)
        typed = self.catalog.validate_attribute(attr, value)
        # Secrets never; identifiers only in a field declared sensitive in the catalog.
        refuse_secrets(typed, f"the value for {path}", identifiers=attr.spec.sensitivity == "none")
        batch = Batch(addr, now or utc_now(), self.actor)
        batch.inputs.append(
            NewInput(
                "command",
                f"set {path} {canonical_json(typed)}",
                "explicit_command",
                session_id=session_id,
            )
        )
        batch.facts.append(
            NewFact(
                op="assert",
                kind=attr.kind,
                path=path,
                value=typed,
                source="explicit_command",
                valid_from=valid_from,
                valid_to=valid_to,
                input_index=0,
                session_id=session_id,
            )
        )
        fact = self.append(batch)[0]
        self._after_write(subject, now)
        return fact

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
        report = progress or self.progress
        done = step(report, "reading")
        chunks = read_chunks(path, format)
        head = next(chunks)  # a file that cannot be read fails here, before anything starts
        more = next(chunks, None)
        done()
        if more is None:  # one chunk (most files): one batch through group commit
            return self._import(
                subject, collection, head.records, head.text, path.name, session_id, now, report
            )
        addr = self.address(subject)
        finished: list[ImportPrepared] = []
        batches = import_batches(
            self.catalog,
            addr,
            collection,
            itertools.chain([head, more], chunks),
            name=path.name,
            previous_schema=self._inferred_before(addr, collection),
            recorded_at=now or utc_now(),
            session_id=session_id,
            actor=self.actor,
            progress=report,
            done=finished,
        )
        # Chunk by chunk in one transaction: memory stays bounded whatever the file size,
        # and a bad record in the last chunk still leaves nothing written.
        first: list[Batch] = []
        facts = self.store.append_stream(self._policed(batches, report, first))
        done = step(report if self.react and self._deferred is None else None, "compiling")
        self._after_write(subject, now)
        done()
        prepared = finished[0]
        return ImportResult(
            str(addr), prepared.path, prepared.known, facts, first[0].input_ids[0], prepared.schema
        )

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

    def _inferred_before(self, addr: Address, collection: str) -> dict[str, Any] | None:
        """The schema earlier imports inferred for a collection not in the catalog, if any."""
        if self.catalog.collection(collection) is not None:
            return None
        found = self.store.inferred_schema(addr, collection)
        return found[1] if found else None

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
        report = progress or self.progress
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
        addr = self.address(subject)
        previous = self._inferred_before(addr, collection)
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
            actor=self.actor,
            progress=report,
        )
        # The pipeline builds the batch; appending it and reacting to it are Memory's.
        done = step(report, f"writing {len(batch.facts):,} facts")
        self.append(batch, return_facts=False)
        done()
        done = step(report if self.react and self._deferred is None else None, "compiling")
        self._after_write(subject, now)
        done()
        return ImportResult(
            str(addr),
            prepared.path,
            prepared.known,
            len(batch.facts),
            batch.input_ids[0],
            prepared.schema,
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
        address = self.address(subject)
        batch = build_message_batch(
            self.catalog,
            address,
            text,
            observed_at=at or recorded,
            recorded_at=recorded,
            role=role,
            session_id=session_id,
            source=source,
            actor=self.actor,
            llm=self.llm,
            store=self.store,
            history=session_history(self.store, address, session_id, role),
        )
        set_aside_out_of_scope(self.catalog, batch)
        facts = self.append(batch)
        if role == "user":  # "done with the visa form, next is ...": the open task moves on
            moved = journal.task_progress(
                self, self.address(subject), text, batch.input_ids[0], recorded
            )
            facts += [moved] if moved is not None else []
        # A dated message (a replayed history) is checked as of when it was said, so an
        # alert fires on the day a careful assistant would have raised it, never later.
        self._after_write(subject, at or now)
        reasons = [r.reason for r in batch.rejections]
        return Learned(batch.input_ids[0], facts, reasons)

    @property
    def llm(self) -> LLM | None:
        """The LLM extractor (explicit, else from UAC_LLM_* variables), or None when off."""
        if self._llm is False:
            setting = self._llm_setting
            self._llm = as_llm(setting if setting is not None else LLMSettings.from_env())
        return self._llm  # type: ignore[return-value]

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
        batch = build_note_batch(
            self.catalog,
            self.address(subject),
            text,
            note_id=note_id or path.name,
            recorded_at=now or utc_now(),
            actor=self.actor,
        )
        facts = self.append(batch)
        self._after_write(subject, now)
        return Learned(batch.input_ids[0], facts, [r.reason for r in batch.rejections])

    def note_template(self) -> str:
        """A Markdown note template generated from the catalog."""
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
        addr = self.address(subject)
        batch = Batch(addr, now or utc_now(), self.actor)
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
        return self.append(batch)[0]

    def rejections(self, subject: str, *, show: bool = False) -> list[dict[str, Any]]:
        """What the ingestion gate refused for the subject, with reasons.

        A refused secret or instruction quarantines its input: by default its text is not
        shown (quotes dropped from the detail); `show=True` is for an operator auditing it and
        adds the input's masked excerpt (secrets stay masked either way).
        """
        addr = self.address(subject)
        rows = self.store.rejections(addr)
        texts = {i.id: i.content for i in self.store.inputs(addr)} if show else {}
        for row in rows:
            if row["reason"] not in QUARANTINE_REASONS:
                continue
            row["quarantined"] = True
            detail = json.loads(row["detail"]) if row["detail"] else None
            if show and row["input_id"] in texts:
                row["excerpt"] = excerpt(texts[row["input_id"]])
            if isinstance(detail, dict) and "quote" in detail:
                if show:
                    detail["quote"] = excerpt(str(detail["quote"]), 200)
                else:
                    del detail["quote"]
                row["detail"] = canonical_json(detail)
        return rows

    def quarantined(self, subject: str) -> set[str]:
        """Ids of the subject's quarantined inputs (a secret or an instruction was refused)."""
        return {
            r["input_id"]
            for r in self.store.rejections(self.address(subject))
            if r["reason"] in QUARANTINE_REASONS and r["input_id"] is not None
        }

    def add_note(
        self,
        subject: str,
        text: str,
        *,
        session_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Fact:
        """Store free text the user asked to keep as a note (searchable, not typed)."""
        if not isinstance(text, str) or not text.strip():
            raise InputError("a note needs some text")
        text = note_text(text)  # secrets masked, instructions refused before anything is written
        addr = self.address(subject)
        batch = Batch(addr, now or utc_now(), self.actor)
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
        fact = self.append(batch)[0]
        self._after_write(subject, now)
        return fact

    def forget(
        self,
        subject: str,
        fact_id: str,
        *,
        reason: str | None = None,
        now: dt.datetime | None = None,
    ) -> Fact:
        """Append a retract of one of the subject's facts (nothing is deleted)."""
        addr = self.address(subject)
        target = self.store.fact(addr, fact_id)
        if target.op not in ("assert", "feedback"):
            raise InputError(
                f"fact {fact_id} is a {target.op}; only asserts and feedback can be forgotten"
            )
        batch = Batch(addr, now or utc_now(), self.actor)
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
        fact = self.append(batch)[0]
        self._after_write(subject, now)
        return fact

    # -- sharing between scopes (runtime/api/sharing.py, docs/scopes.md) -------------------

    def member_add(
        self,
        group: str,
        user: str,
        *,
        valid_from: dt.datetime | dt.date | None = None,
        valid_to: dt.datetime | dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Fact:
        """Make a user a member of a group (a fact in the group's log, with validity times)."""
        return sharing.member_add(self, group, user, valid_from, valid_to, now)

    def member_remove(
        self,
        group: str,
        user: str,
        *,
        at: dt.datetime | dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Fact:
        """End a user's membership of a group at `at` (default: now)."""
        return sharing.member_remove(self, group, user, at, now)

    def members(self, subject: str, *, at: dt.datetime | None = None) -> list[dict[str, Any]]:
        """A group's members (or a user's groups) at a moment (default: now)."""
        return sharing.members(self, subject, at)

    def promote(
        self, subject: str, fact_id: str, group: str, *, now: dt.datetime | None = None
    ) -> Fact:
        """Share one of a user's facts with a group it belongs to (recorded: who, what, when)."""
        return sharing.promote(self, subject, fact_id, group, now)

    def demote(
        self,
        subject: str,
        fact_id: str,
        group: str,
        *,
        reason: str | None = None,
        now: dt.datetime | None = None,
    ) -> Fact:
        """Withdraw what the user promoted to a group (the copy is retracted there)."""
        return sharing.demote(self, subject, fact_id, group, reason, now)

    def add_episode(
        self,
        subject: str,
        problem: str,
        *,
        tried: list[str] | None = None,
        worked: str | None = None,
        failed: list[str] | None = None,
        date: dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Fact:
        """Record a past problem: what was tried, what fixed it, what did not (searchable)."""
        return journal.add_episode(
            self, subject, problem, tried=tried, worked=worked, failed=failed, date=date, now=now
        )

    def confirm(self, subject: str, path: str, *, now: dt.datetime | None = None) -> Fact:
        """Confirm an inferred (tentative) preference: it becomes a rule in context."""
        return journal.confirm(self, subject, path, now)

    def erase(
        self,
        subject: str,
        fact_ids: list[str] | None = None,
        *,
        all: bool = False,
        reason: str,
        now: dt.datetime | None = None,
        progress: Report | None = None,
    ) -> dict[str, Any]:
        """Legal erase: blank facts (or all the subject's) everywhere; returns the report."""
        if all == bool(fact_ids):
            raise InputError("name the facts to erase (--fact ID, repeatable) or --all, not both")
        return erasing.erase(
            self, subject, None if all else list(fact_ids or ()), reason=reason, now=now,
            progress=progress,
        )  # fmt: skip

    def erasures(self, subject: str | None = None) -> list[dict[str, Any]]:
        """Erasure reports of one subject (or of the tenant), oldest first."""
        return erasing.reports(self, subject)

    def purge_search(self, addr: Address, items: list[str] | None) -> int:
        """Drop indexed rows of items (None: retracted ones) under the search lock."""
        with self._search_lock:
            self.search_index.sync()  # what a retract hides must be indexed to be found
            return self.search_index.purge(addr, items)

    def gc(
        self,
        *,
        keep: int = DEFAULT_KEEP,
        older_than_days: int = gc.DEFAULT_OLDER_THAN_DAYS,
        now: dt.datetime | None = None,
    ) -> dict[str, int]:
        """Compact the tenant's derived data (never the log); returns what was dropped."""
        return gc.collect(self, keep=keep, older_than_days=older_than_days, now=now)

    def forget_reaction(self, addr: Address) -> None:
        """Drop the subject's cached reaction result (it may quote erased values)."""
        with self._tickets_lock:
            self._reactions.pop(f"{self.tenant}/{addr}", None)
        self._local.evaluation = None  # this thread's last result may quote erased values

    # -- reads -----------------------------------------------------------------------------

    def facts(self, subject: str, path: str | None = None) -> list[Fact]:
        """The subject's facts in log order."""
        return self.store.facts(self.address(subject), path)

    def inputs(self, subject: str, *, show: bool = False) -> list[Input]:
        """The subject's archived raw inputs (masked); a quarantined one's text only if show."""
        inputs = self.store.inputs(self.address(subject))
        if show:
            return inputs
        hidden = self.quarantined(subject)
        return [
            dataclasses.replace(i, content=QUARANTINED) if i.id in hidden else i for i in inputs
        ]

    def subjects(self) -> list[SubjectInfo]:
        """Subjects of this tenant."""
        return self.store.subjects(self.tenant)

    def inferred_schemas(self, subject: str) -> dict[str, dict[str, Any]]:
        """Schemas inferred for the subject's imported collections the catalog lacks."""
        return self.store.inferred_schemas(self.address(subject))

    def verify(self, anchor: dict[str, Any] | None = None) -> VerifyReport:
        """Check the hash chain, keyed digests and anchors (and an exported anchor, if given)."""
        return self.store.verify(anchor=anchor)

    def anchors(self, every: bool = False) -> list[dict[str, Any]]:
        """The newest anchor of the log (or all of them) for an external witness."""
        return self.store.anchors(every)

    # -- compiling -------------------------------------------------------------------------

    def compile(
        self,
        subject: str | None = None,
        *,
        all: bool = False,
        changed: bool = False,
        as_of: dt.datetime | dt.date | None = None,
        known_at: dt.datetime | None = None,
        keep: int = DEFAULT_KEEP,
        progress: Any = None,
    ) -> list[CompileResult]:
        """Compile one subject, every subject (all) or those with new facts (changed)."""
        if sum((subject is not None, all, changed)) != 1:
            raise InputError("name exactly one of: a subject, all=True or changed=True")
        if subject is not None:
            addresses = [self.address(subject)]
        elif changed:
            changed_ = self.store.changed_subjects(self.tenant)
            addresses = inherit.with_members(self.store, self.tenant, changed_)
        else:
            addresses = [
                Address(self.tenant, s.scope, s.subject)  # type: ignore[arg-type]
                for s in self.subjects()
                if s.facts or s.inputs  # inputs alone compile to the empty typed state
            ]
        if isinstance(as_of, dt.date) and not isinstance(as_of, dt.datetime):
            as_of = dt.datetime(as_of.year, as_of.month, as_of.day, 23, 59, 59)
        return compile_many(
            self.store,
            self.catalog,
            addresses,
            progress=progress,
            as_of=as_of,
            known_at=utc_naive(known_at),
            keep=keep,
        )

    def checkpoint(self, subject: str, version: int | None = None) -> loader.Checkpoint:
        """The subject's published checkpoint (or a given version), imported and verified."""
        return loader.load(self.home, self.address(subject), version)

    def manifest(self, subject: str) -> str:
        """The compact manifest of the subject's current checkpoint, for agent context."""
        return self.checkpoint(subject).manifest

    def why(self, subject: str, expr: str) -> Explanation:
        """The value at expr (e.g. user.passport.expiry_date) and the facts behind it."""
        addr = self.address(subject)
        ckpt = self.checkpoint(subject)
        resolved = explain.resolve(ckpt, expr)
        statuses = ckpt.provenance["facts"]
        # An inherited value's facts live in its group's or the tenant's log (provenance
        # says which); only the scopes this checkpoint read are looked in.
        scopes = ckpt.provenance.get("scopes", {})

        def fact(fid: str) -> Fact:
            return self.store.fact(self.address(scopes[fid]) if fid in scopes else addr, fid)

        facts = [fact(fid) for fid in resolved.fact_ids]
        older = [fact(fid) for fid in explain.superseded_by(ckpt, resolved.fact_ids)]
        wanted = {f.id for f in facts + older}
        return Explanation(
            resolved.expr,
            resolved.value,
            ckpt.version,
            facts,
            older,
            {k: v for k, v in statuses.items() if k in wanted},
            {f.id: str(Address(f.tenant, f.scope, f.subject)) for f in facts + older},  # type: ignore[arg-type]
        )

    def diff(
        self, subject: str, old: int | None = None, new: int | None = None
    ) -> tuple[int, int, list[str]]:
        """Typed-state changes between two checkpoint versions (default: previous → current)."""
        addr = self.address(subject)
        published = [
            c["version"] for c in self.store.checkpoints(addr) if c["status"] == "published"
        ]
        if new is None:
            new = loader.current_version(self.home, addr)
            if new is None:
                raise NotFound(f"{addr} has no compiled checkpoint; run 'uac compile {addr}'")
        if old is None:
            earlier = [v for v in published if v < new]
            if not earlier:
                raise NotFound(
                    f"{addr} has no checkpoint before version {new} to compare with; "
                    f"a diff needs two: write to it, then run 'uac compile {addr}'"
                )
            old = earlier[-1]
        return old, new, explain.diff(self.checkpoint(subject, old), self.checkpoint(subject, new))

    def statuses(self, subject: str) -> dict[str, dict[str, Any]]:
        """Derived status of each fact in the current checkpoint ({} if never compiled)."""
        try:
            return self.checkpoint(subject).provenance["facts"]
        except NotFound:
            return {}

    # -- checks and alerts ------------------------------------------------------------------

    def check(
        self, subject: str, *, today: dt.date | None = None, sinks: list[Sink] | None = None
    ) -> EvaluationResult:
        """Compile the subject if needed, run its checks, store and deliver alert changes."""
        if self.stale(subject):
            try:
                (res,) = self.compile(subject)
            except NotFound:  # no facts at all (e.g. an empty note): nothing to check
                self._local.evaluation = EvaluationResult(self.address(subject), 0)
                return self._local.evaluation
            if res.status != "published":
                raise UacError(
                    f"cannot check {subject}: its compile failed ({res.error}); "
                    f"see its diagnostics with: uac compile {subject}"
                )
        day = today or utc_now().date()
        result = evaluate(
            self.store,
            self.home,
            self.address(subject),
            day,
            sinks=self.sinks if sinks is None else sinks,
        )
        self._local.evaluation = result
        return result

    def alerts(
        self,
        subject: str | None = None,
        *,
        include_resolved: bool = False,
        today: dt.date | None = None,
    ) -> list[Alert]:
        """Open (and acknowledged) alerts of one subject, or of every subject of the tenant."""
        statuses = (
            ("open", "acknowledged", "resolved") if include_resolved else ("open", "acknowledged")
        )
        where: Address | str = self.address(subject) if subject is not None else self.tenant
        return list_alerts(self.store, where, statuses=statuses, today=today)

    def acknowledge(self, subject: str, alert_id: str, *, today: dt.date | None = None) -> Alert:
        """Mark one of the subject's alerts as seen."""
        return acknowledge(self.store, self.address(subject), alert_id, today or utc_now().date())

    def snooze(
        self, subject: str, alert_id: str, until: dt.date, *, today: dt.date | None = None
    ) -> Alert:
        """Hide one of the subject's alerts until a date."""
        return snooze(self.store, self.address(subject), alert_id, until, today or utc_now().date())

    def add_rule(
        self, subject: str, rule: dict[str, Any], *, now: dt.datetime | None = None
    ) -> str:
        """Store a user rule (threshold, reminder, forbid) as a fact; returns its id."""
        refuse_secrets(rule, "the rule")
        rid = add_rule(
            self.store, self.address(subject), rule, now or utc_now(), self.actor, self.catalog
        )
        self._after_write(subject, now)
        return rid

    def run_once(
        self, *, today: dt.date | None = None, progress: Report | None = None
    ) -> JobResult:
        """One scheduled pass: compile changed subjects, evaluate every subject, record a job.

        `progress("compiling", done, total)` is called after each subject the pass compiles
        (default: this Memory's `progress`).
        """
        report = progress or self.progress
        changed = with_members(self.store, self.tenant, self.store.changed_subjects(self.tenant))
        total = len(changed) if report else 0
        done = 0
        if report is not None:
            report("compiling", 0, total)

        def compile_one(addr: Address) -> list[CompileResult]:
            nonlocal done
            try:
                return self.compile(str(addr))
            finally:
                done += 1
                if report is not None:
                    report("compiling", done, max(total, done))

        return run_once(
            self.home,
            self.tenant,
            today or utc_now().date(),
            compile_one,
            store=self.store,
            sinks=self.sinks,
        )

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """Writes inside the block react once per subject when it ends (for bulk loads).

        Each subject is checked as of its latest write's day. The reaction also runs when the
        block raises, for the writes that were saved before the error.
        """
        if self._deferred is not None:  # nested: the outermost block reacts
            yield
            return
        self._deferred = {}
        try:
            yield
        finally:
            pending, self._deferred = self._deferred, None
            for subject, now in pending.items():
                self._react(subject, now)

    def _react(self, subject: str, now: dt.datetime) -> None:
        """Compile and check the subject, unless a reaction since this write covered it."""
        key = f"{self.tenant}/{self.address(subject)}"
        with self._tickets_lock:
            ticket = self._reactions.get(key, [0, -1, None])[0]
        try:
            with subject_lock(self.home, self.address(subject)):
                with self._tickets_lock:
                    entry = self._reactions.get(key)
                    if entry is not None and entry[1] >= ticket and entry[2] is not None:
                        self._local.evaluation = entry[2]  # coalesced into a later reaction
                        return
                    start = entry[0] if entry is not None else 0  # saved writes: all covered
                result = self.check(subject, today=now.date())
                with self._tickets_lock:
                    # Only the entry this reaction started from: if it was evicted meanwhile,
                    # a new entry counts other writes, which `start` says nothing about.
                    if entry is not None and self._reactions.get(key) is entry:
                        entry[1], entry[2] = max(entry[1], start), result
        except UacError as exc:
            # Say plainly that the data is safe: a caller must not retry the write.
            raise UacError(
                f"the write to {subject} was saved, but reacting to it failed: {exc}"
            ) from exc

    def react_to(self, subject: str, now: dt.datetime | None) -> None:
        """React to a write made outside these methods (compile and check, unless deferred)."""
        self._after_write(subject, now)

    def _after_write(self, subject: str, now: dt.datetime | None) -> None:
        if not self.react:
            return
        addr = self.address(subject)
        # A group's or the tenant's write changes what its members inherit: they react too.
        affected = [addr]
        if addr.scope != "user":
            affected += [a for a in with_members(self.store, self.tenant, [addr]) if a != addr]
        now = now or utc_now()
        for target in affected:
            key = f"{self.tenant}/{target}"
            with self._tickets_lock:
                entry = self._reactions.setdefault(key, [0, -1, None])
                entry[0] += 1
                self._reactions.move_to_end(key)
                while len(self._reactions) > REACTION_MEMORY:
                    self._reactions.popitem(last=False)
            if self._deferred is not None:
                self._deferred[str(target)] = max(now, self._deferred.get(str(target), now))
        if self._deferred is not None:
            return
        self._react(subject, now)
        own = self._local.evaluation  # the write's result names its own subject's alerts
        for target in affected[1:]:
            self._react(str(target), now)
        self._local.evaluation = own

    # -- search ----------------------------------------------------------------------------

    @property
    def search_index(self) -> SearchIndex:
        """The workspace's incremental hybrid index (built on first use)."""
        with self._search_lock:
            if not self._search:
                self._search.append(SearchIndex(self.store, self._embedder))
            return self._search[0]

    def search(
        self,
        subject: str,
        text: str,
        *,
        k: int = 10,
        since: dt.date | dt.datetime | None = None,
        kind: str | None = None,
        today: dt.date | None = None,
        half_life_days: float = 180.0,
    ) -> list[SearchHit]:
        """The subject's best-matching notes and archived inputs (BM25 + vectors, fused)."""
        # No lock held here: the index serialises its own syncs, and searches read
        # immutable per-subject snapshots, so concurrent searches run side by side.
        return self.search_index.search(
            self.address(subject),
            text,
            k=k,
            since=since,
            kind=kind,  # type: ignore[arg-type]
            half_life_days=half_life_days,
            today=today or utc_now().date(),
        )

    def feedback(
        self,
        subject: str,
        item_id: str,
        *,
        reason: str | None = None,
        now: dt.datetime | None = None,
    ) -> Fact:
        """Record "not this" on a note or input: it ranks lower until the feedback is forgotten."""
        addr = self.address(subject)
        known = {i.id for i in self.store.inputs(addr)}
        if item_id not in known:
            self.store.fact(addr, item_id)  # NotFound unless it is one of the subject's facts
        batch = Batch(addr, now or utc_now(), self.actor)
        batch.inputs.append(NewInput("command", f"feedback {item_id} not_this", "explicit_command"))
        fact = feedback_fact(item_id, reason)
        fact.input_index = 0
        batch.facts.append(fact)
        return self.append(batch)[0]

    def soft_preferences(
        self, subject: str, query: str | None = None, *, today: dt.date | None = None, k: int = 3
    ) -> list[SoftPreference]:
        """The subject's soft preferences that matter most for a request (wording only)."""
        hard = {
            a.name
            for a in self.catalog.attributes.values()
            if a.domain == "preferences"
            and any(f.op == "assert" for f in self.facts(subject, a.path))
        }
        return recall(
            self.facts(subject, SOFT_PATH),
            hard,
            self.search_index.embedder,
            query,
            today=today or utc_now().date(),
            k=k,
        )

    def context(
        self,
        subject: str,
        *,
        query: str | None = None,
        budget: int = 800,
        today: dt.date | None = None,
        notes: int = 5,
    ) -> str:
        """A bounded memory block for an agent's system prompt (see uac.runtime.search.context).

        Holds the user's presentation preferences, open alerts, soft preferences and the
        notes most relevant to `query`, then the manifest, cut to `budget` tokens.
        """
        check_budget(budget)
        day = today or utc_now().date()
        try:
            checkpoint = self.checkpoint(subject)
        except NotFound:
            checkpoint = None
        hits = self._shared_notes(subject, query, notes, day) if query else []
        wishes = self.soft_preferences(subject, query, today=day)
        extra = journal.gather(self, subject, checkpoint, query, wishes, day)
        return assemble(
            str(self.address(subject)),
            checkpoint,
            alerts=[
                f"[{a.severity}] {a.message}" + (f" Next: {a.next_step}" if a.next_step else "")
                for a in self.alerts(subject, today=day)
            ],
            wishes=wishes,
            notes=hits,
            budget=budget,
            today=day,
            **extra,
        )

    def _shared_notes(self, subject: str, query: str, k: int, day: dt.date) -> list[SearchHit]:
        """The notes most relevant to query among the user's, its groups' and its tenant's."""
        addr = self.address(subject)
        where = [str(addr)]
        if addr.scope == "user":  # what the user inherits on that day (docs/scopes.md)
            end = dt.datetime(day.year, day.month, day.day, 23, 59, 59)
            where += [m["group"] for m in self.members(subject, at=end)] + ["tenant"]
        hits = [h for w in where for h in self.search(w, query, k=k, kind="note", today=day)]
        seen: set[str] = set()  # a promoted note is in the user's log and the group's
        unique = [
            h
            for h in sorted(hits, key=lambda h: (-h.score, h.id))
            if not (h.text in seen or seen.add(h.text))  # type: ignore[func-returns-value]
        ]
        return unique[:k]

    # -- queries ---------------------------------------------------------------------------

    def query(
        self,
        subject: str,
        program: str,
        *,
        today: dt.date | None = None,
        explain: bool = False,
        limits: Limits | None = None,
        version: int | None = None,
    ) -> dict[str, Any]:
        """Run an agent's program against the subject's typed state in the sandbox.

        Returns the JSON envelope (`ok`, `result` or `error`, `checkpoint`, `elapsed_ms`, and
        with explain the records and fact ids read). `today` defaults to the current UTC
        date; pass it for reproducible answers.
        """
        addr = self.address(subject)
        if version is None:  # the newest checkpoint any node of a shared log published
            shared.fetch(self.store, addr)
        _, directory = loader.version_dir(self.home, addr, version)
        day = today or utc_now().date()
        return run_query(directory, program, today=day, limits=limits, explain=explain)

    def stale(self, subject: str) -> bool:
        """True when the subject has facts its current checkpoint does not include."""
        addr = self.address(subject)
        # On a shared log another node may have published a newer checkpoint: take it.
        shared.fetch(self.store, addr)
        if loader.current_version(self.home, addr) is None or self.store.is_changed(addr):
            return True
        marks = [
            c["watermark"]
            for c in self.store.checkpoints(addr)
            if c["status"] == "published" and c["as_of"] is None and c["known_at"] is None
        ]
        return inherit.changed(self.store, addr, max(marks, default=0))
