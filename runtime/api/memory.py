"""`Memory`: the Python API agents and operators use. Every call names its subject.

A thin facade over services that each declare, in their constructor, what they use: the
store, the catalog, the tenant view (`Caller`), the `Reactor` that compiles and checks after
every write (runtime/api/reactor.py), and the other services they call. Its public methods
are the verbs, each written once in its service and exposed by `ServiceVerbs`
(memory_verbs.py, generated from the verb table: `workspace.via`, same signature, same
docstring):

    Writer (writes.py)      set, imports, add, remember, note, prefer, add_note, forget
    Planner (preview.py)    preview: what a write would raise and clear, writing nothing
    Reader (reads.py)       facts, inputs, compile, checkpoint, query, why, diff, verify ...
    AlertDesk (alerts.py)   check, alerts, questions, acknowledge, snooze, rules, run_once
    Recall (recall.py)      search, feedback, soft preferences, context
    Sharing (sharing.py)    memberships, promote, demote
    Journal (journal.py)    episodes, confirming an inferred preference

Erase and gc (erase.py, gc.py) work on the whole open workspace and take the facade itself.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import shutil
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uac.checks.sinks import Sink
from uac.compiler.checkpoint import DEFAULT_KEEP
from uac.fact_log.addressing import Address, check_name
from uac.fact_log.catalog import WORKSPACE_CATALOG, Catalog
from uac.fact_log.errors import InputError
from uac.fact_log.progress_callback import Report
from uac.fact_log.store import Store, default_home
from uac.runtime.api import erase as erasing
from uac.runtime.api import gc
from uac.runtime.api import schema as service_schema  # noqa: F401 (its tables, always)
from uac.runtime.api.alerts import AlertDesk
from uac.runtime.api.drafts import Drafts
from uac.runtime.api.journal import Journal
from uac.runtime.api.memory_verbs import ServiceVerbs
from uac.runtime.api.preview import Planner
from uac.runtime.api.reactor import Deferred, Reaction, Reactor, Written
from uac.runtime.api.reads import Explanation, Reader
from uac.runtime.api.recall import Recall, SharedIndex
from uac.runtime.api.sharing import Sharing
from uac.runtime.api.workspace import Appender, Caller, via
from uac.runtime.api.writes import Extractor, ImportResult, Learned, Writer
from uac.runtime.search import schema as search_schema  # noqa: F401 (its tables, always)

if TYPE_CHECKING:  # the extractor loads on a write's first use: reads never pay for it
    from uac.fact_log.extraction.llm import LLM, LLMSettings
    from uac.runtime.search.embedders import Embedder
    from uac.runtime.search.index import SearchIndex

# Bodies sent to the service as files wait under <home>/staging/ while they are read
# (runtime/api/verbs.py); a writable open sweeps what a killed process left there.
STAGING = "staging"

__all__ = ["Explanation", "ImportResult", "Learned", "Memory", "Reaction", "Written"]


class Memory(ServiceVerbs):
    """A workspace opened for one tenant. Close it (or use `with`) to release the lock.

    Safe to share between threads: appends from all threads go through the store's single
    writer (group commit), so the hash chain stays linear; reactions (compile, checks) are
    serialised per subject and coalesced — writes that land while a subject's reaction runs
    are covered by one more reaction, not one each; reads run concurrently, each thread on
    its own connection. `deferred()` blocks are per thread. One
    process owns a workspace; other processes reach it through `uac serve` (see `Client`).

    The verbs are written once in services (the module docstring lists them); the reaction
    to writes is one `Reactor`, and a write returns the alerts its reaction raised and
    cleared.
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
        reaction_wait: float | None = None,
    ):
        self.home = Path(home).expanduser() if home is not None else default_home()
        # react: every write recompiles the subject, runs its checks, stores and delivers new
        # alerts (to `sinks`). Bulk loads wrap their writes in `deferred()` to react once per
        # subject; react=False is for back-fills of history that must raise no alerts.
        self._caller = Caller(check_name("tenant", tenant), actor, react)
        # The LLM is resolved on a write's first use: a bad UAC_LLM_* must not block reads.
        self._extractor = Extractor(llm)
        self._owner = True
        self.store = Store.open(self.home, create=create, read_only=read_only, log_db=log_db)
        try:
            self.catalog = Catalog.load(self.home / WORKSPACE_CATALOG)
            # Compiles and checks after writes; owns their tickets, locks and coalescing.
            self._reactor = Reactor(self.store, self.catalog, self.home, sinks=sinks)
            # One index per open workspace, shared by every `for_tenant` view.
            self._index = SharedIndex(self.store, embedder)
            self._compose()
            if not read_only:
                # Bodies a killed server was importing: nobody reads them any more.
                shutil.rmtree(self.home / STAGING, ignore_errors=True)
                erasing.resume_pending(self)  # an erase a killed process left half done
                # Erasures another node made of a shared log, seen at a sync.
                self.store.backend.on_erased = lambda a, e: erasing.apply_shared(self, a, e)
                if react:  # the reactions a killed process left queued run now
                    self._reactor.drain()
            if reaction_wait is not None:  # a server: a write waits this long, then a ticket
                self._reactor.start(reaction_wait)
        except BaseException:
            self.store.close()
            raise

    def _compose(self) -> None:
        """Build this view's services over the open workspace (each names what it uses)."""
        store, catalog, home, caller, reactor = (
            self.store, self.catalog, self.home, self._caller, self._reactor
        )  # fmt: skip
        self._appender = Appender(store, catalog, reactor, caller)
        drafts = Drafts(store, catalog, caller)
        self._reader = Reader(store, catalog, home, caller, reactor)
        self._writer = Writer(
            store, catalog, home, caller, reactor, self._appender, drafts, self._extractor
        )
        self._planner = Planner(store, catalog, caller, reactor, drafts)
        self._alerts = AlertDesk(
            store, catalog, home, caller, reactor, self._appender, self._reader
        )
        self._sharing = Sharing(store, caller, self._appender)
        self._journal = Journal(catalog, caller, self._appender, self._reader, self._writer)
        self._recall = Recall(
            store, catalog, caller, self._appender, self._index, self._reader, self._alerts,
            self._sharing,
        )  # fmt: skip

    def close(self) -> None:
        """Release the workspace (a `for_tenant` view leaves it to the Memory it came from)."""
        if self._owner:
            self._reactor.stop()
            self.store.close()

    def for_tenant(self, tenant: str) -> Memory:
        """A view of the same open workspace for another tenant (shares store, locks, caches).

        A server owns one workspace and answers for many tenants; each request works on the
        view of its key's tenant. Closing a view does not close the workspace.
        """
        view = copy.copy(self)
        view._caller = dataclasses.replace(self._caller, tenant=check_name("tenant", tenant))
        view._owner = False
        view._compose()
        return view

    # -- the view: tenant, actor, reacting, progress ----------------------------------------

    @property
    def tenant(self) -> str:
        """The tenant this view answers for."""
        return self._caller.tenant

    @tenant.setter
    def tenant(self, value: str) -> None:
        self._caller.tenant = check_name("tenant", value)

    @property
    def actor(self) -> str:
        """Who this view's writes are recorded as made by."""
        return self._caller.actor

    @actor.setter
    def actor(self, value: str) -> None:
        self._caller.actor = value

    @property
    def react(self) -> bool:
        """Whether a write recompiles its subject and runs its checks (False: back-fills)."""
        return self._caller.react

    @react.setter
    def react(self, value: bool) -> None:
        self._caller.react = value

    @property
    def progress(self) -> Report | None:
        """Who hears long work's progress (imports, passes) when a call names no one: the
        service sets it on the per-request view a long verb runs on."""
        return self._caller.progress

    @progress.setter
    def progress(self, value: Report | None) -> None:
        self._caller.progress = value

    def address(self, subject: str | Address) -> Address:
        """Resolve 'alice' / 'user:alice' / 'group:x' / 'tenant' within this tenant."""
        return self._caller.address(subject)

    @property
    def sinks(self) -> list[Sink]:
        """Where the alerts of reactions and checks go (shared by every tenant view)."""
        return self._reactor.sinks

    @sinks.setter
    def sinks(self, value: list[Sink]) -> None:
        self._reactor.sinks = value

    @property
    def clock_days(self) -> int | None:
        """Set by `uac serve`: a check further than this many days from its date is a preview."""
        return self._reactor.clock_days

    @clock_days.setter
    def clock_days(self, value: int | None) -> None:
        self._reactor.clock_days = value

    @property
    def search_index(self) -> SearchIndex:
        """The workspace's incremental hybrid index (built on first use)."""
        return self._index.index

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- more of the services' methods (the verbs are in ServiceVerbs) ---------------------

    add_note = via("_writer", Writer.add_note)
    note_template = via("_writer", Writer.note_template)
    quarantined = via("_reader", Reader.quarantined)
    inferred_schemas = via("_reader", Reader.inferred_schemas)
    checkpoint = via("_reader", Reader.checkpoint)
    statuses = via("_reader", Reader.statuses)
    stale = via("_reader", Reader.stale)
    soft_preferences = via("_recall", Recall.soft_preferences)

    # -- the verbs over the whole open workspace (erase.py, gc.py, tools.py) ----------------

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

    def gc(
        self,
        *,
        keep: int = DEFAULT_KEEP,
        older_than_days: int = gc.DEFAULT_OLDER_THAN_DAYS,
        now: dt.datetime | None = None,
    ) -> dict[str, int]:
        """Compact the tenant's derived data (never the log); returns what was dropped."""
        return gc.collect(self, keep=keep, older_than_days=older_than_days, now=now)

    def tool(
        self, subject: str, name: str, arguments: str | dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Run one agent tool call for the subject (errors come back as {"error": ...})."""
        from uac.runtime.api.tools import dispatch

        return dispatch(self, subject, name, arguments)

    # -- reacting to writes (runtime/api/reactor.py) ---------------------------------------

    def deferred(self) -> AbstractContextManager[Deferred]:
        """Writes inside the block react once per subject when it ends (for bulk loads).

        Each subject is checked as of its latest write's day. The reaction also runs when the
        block raises, for the writes that were saved before the error. The block (`as`)
        holds the reactions' results once it has ended (`Deferred.result(subject)`).
        """
        return self._reactor.deferred()

    def reaction(self, subject: str, ticket: int) -> Reaction:
        """Whether the reaction to a subject's write `ticket` ran, and the alerts it changed.

        A write answers with its ticket when it did not wait for its reaction to finish
        (a server's bounded wait): ask here until `done`.
        """
        return self._reactor.status(self.address(subject), ticket)

    # -- for erase.py, gc.py and the verb table (not verbs) ----------------------------------

    _append = via("_appender", Appender.append)  # a write's batch, under the scope policy
    _rule = via("_alerts", AlertDesk.rule)  # `add_rule` with its reaction: the `rule` verb's

    def _purge_search(self, addr: Address, items: list[str] | None) -> int:
        """Drop indexed rows of items (None: retracted ones) under the search lock."""
        return self._index.purge(addr, items)

    def _forget_reaction(self, addr: Address) -> None:
        """Drop the subject's cached reaction result (it may quote erased values)."""
        self._reactor.forget(addr)
