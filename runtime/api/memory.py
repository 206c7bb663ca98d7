"""`Memory`: the Python API agents and operators use. Every call names its subject.

This module holds Memory's state (store, catalog, locks, per-thread reaction results), the
reaction that follows every write (compile, then check) and the thin methods that hand a
family of verbs to its own module (sharing.py, journal.py, erase.py, gc.py). The other verbs
are written once in mixins by family: writes.py, reads.py, alerts.py, recall.py, preview.py.
"""

from __future__ import annotations

import copy
import datetime as dt
import shutil
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from uac.checks import EvaluationResult
from uac.checks.sinks import Sink
from uac.compiler.checkpoint import DEFAULT_KEEP
from uac.compiler.inherit import with_members
from uac.compiler.locks import subject_lock
from uac.fact_log.addressing import Address, check_name, parse_subject
from uac.fact_log.catalog import WORKSPACE_CATALOG, Catalog
from uac.fact_log.errors import InputError, UacError
from uac.fact_log.progress_callback import Report
from uac.fact_log.store import Fact, Store, default_home, utc_now
from uac.runtime.api import erase as erasing
from uac.runtime.api import gc, journal, sharing
from uac.runtime.api import schema as service_schema  # noqa: F401 (its tables, always)
from uac.runtime.api.alerts import Alerts
from uac.runtime.api.preview import Previews
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

__all__ = ["REACTION_MEMORY", "Explanation", "ImportResult", "Learned", "Memory"]

REACTION_MEMORY = 10_000  # subjects whose reaction state is kept for coalescing


class Memory(Writes, Reads, Alerts, Recall, Previews):
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
                # Bodies a killed server was importing: nobody reads them any more.
                shutil.rmtree(self.home / STAGING, ignore_errors=True)
                erasing.resume_pending(self)  # an erase a killed process left half done
                # Erasures another node made of a shared log, seen at a sync.
                self.store.backend.on_erased = lambda a, e: erasing.apply_shared(self, a, e)
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

    def forget_reaction(self, addr: Address) -> None:
        """Drop the subject's cached reaction result (it may quote erased values)."""
        with self._tickets_lock:
            self._reactions.pop(f"{self.tenant}/{addr}", None)
        self._local.evaluation = None  # this thread's last result may quote erased values

    # -- compiling -------------------------------------------------------------------------

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
                result = self.check(subject, today=self._reaction_day(now))
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

    # -- queries ---------------------------------------------------------------------------
