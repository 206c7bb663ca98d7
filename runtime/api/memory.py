"""`Memory`: the Python API agents and operators use. Every call names its subject.

This module holds Memory's state (store, catalog, the `Reactor` that compiles and checks
after every write: runtime/api/reactor.py) and the thin methods that hand a
family of verbs to its own module (sharing.py, journal.py, erase.py, gc.py). The other verbs
are written once in mixins by family: writes.py, reads.py, alerts.py, recall.py, preview.py.
"""

from __future__ import annotations

import copy
import datetime as dt
import shutil
import threading
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uac.checks.sinks import Sink
from uac.compiler.checkpoint import DEFAULT_KEEP
from uac.fact_log.addressing import Address, check_name
from uac.fact_log.catalog import WORKSPACE_CATALOG, Catalog
from uac.fact_log.errors import InputError
from uac.fact_log.progress_callback import Report
from uac.fact_log.store import Fact, Store, default_home
from uac.runtime.api import erase as erasing
from uac.runtime.api import gc, journal, sharing
from uac.runtime.api import schema as service_schema  # noqa: F401 (its tables, always)
from uac.runtime.api.alerts import Alerts
from uac.runtime.api.preview import Previews
from uac.runtime.api.reactor import Deferred, Reaction, Reactor, Written
from uac.runtime.api.reads import Explanation, Reads
from uac.runtime.api.recall import Recall
from uac.runtime.api.writes import ImportResult, Learned, Writes
from uac.runtime.search import schema as search_schema  # noqa: F401 (its tables, always)

if TYPE_CHECKING:  # the extractor loads on a write's first use: reads never pay for it
    from uac.fact_log.extraction.llm import LLM, LLMSettings
    from uac.runtime.search.embedders import Embedder
    from uac.runtime.search.index import SearchIndex

# Bodies sent to the service as files wait under <home>/staging/ while they are read
# (runtime/api/verbs.py); a writable open sweeps what a killed process left there.
STAGING = "staging"

__all__ = ["Explanation", "ImportResult", "Learned", "Memory", "Reaction", "Written"]


class Memory(Writes, Reads, Alerts, Recall, Previews):  # each a Workspace (workspace.py)
    """A workspace opened for one tenant. Close it (or use `with`) to release the lock.

    Safe to share between threads: appends from all threads go through the store's single
    writer (group commit), so the hash chain stays linear; reactions (compile, checks) are
    serialised per subject and coalesced — writes that land while a subject's reaction runs
    are covered by one more reaction, not one each; reads run concurrently, each thread on
    its own connection. `deferred()` blocks are per thread. One
    process owns a workspace; other processes reach it through `uac serve` (see `Client`).

    The verbs are written once in services by family (mixins over the declared workspace
    state below); the reaction to writes is one `Reactor` (runtime/api/reactor.py), and a
    write returns the alerts its reaction raised and cleared.
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
        self._search_lock = threading.RLock()  # builds the index once
        # Who hears long work's progress (imports, passes) when a call names no one: the
        # service sets it on the per-request view a long verb runs on.
        self.progress: Report | None = None
        self._owner = True
        self.store = Store.open(self.home, create=create, read_only=read_only, log_db=log_db)
        try:
            self.catalog = Catalog.load(self.home / WORKSPACE_CATALOG)
            # Compiles and checks after writes; owns their tickets, locks and coalescing.
            self._reactor = Reactor(self.store, self.catalog, self.home, sinks=sinks)
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
        view.tenant = check_name("tenant", tenant)
        view._owner = False
        return view

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

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- sharing between scopes (runtime/api/sharing.py, docs/scopes.md) -------------------

    def member_add(
        self,
        group: str,
        user: str,
        *,
        valid_from: dt.datetime | dt.date | None = None,
        valid_to: dt.datetime | dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """Make a user a member of a group (a fact in the group's log, with validity times)."""
        return sharing.member_add(self, group, user, valid_from, valid_to, now)

    def member_remove(
        self,
        group: str,
        user: str,
        *,
        at: dt.datetime | dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """End a user's membership of a group at `at` (default: now)."""
        return sharing.member_remove(self, group, user, at, now)

    def members(self, subject: str, *, at: dt.datetime | None = None) -> list[dict[str, Any]]:
        """A group's members (or a user's groups) at a moment (default: now)."""
        return sharing.members(self, subject, at)

    def promote(
        self, subject: str, fact_id: str, group: str, *, now: dt.datetime | None = None
    ) -> Written:
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
    ) -> Written:
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
    ) -> Written:
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

    def _forget_reaction(self, addr: Address) -> None:
        """Drop the subject's cached reaction result (it may quote erased values)."""
        self._reactor.forget(addr)

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

    # -- queries ---------------------------------------------------------------------------
