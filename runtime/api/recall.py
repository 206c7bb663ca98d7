"""`Recall`: Memory's recall verbs — hybrid search, feedback, soft preferences, context.

A service of `Memory` (runtime/api/memory.py) over the workspace's one search index
(`SharedIndex`, runtime/search/).
"""

from __future__ import annotations

import datetime as dt
import threading
from typing import TYPE_CHECKING

from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import NotFound
from uac.fact_log.store import Batch, Fact, NewInput, Store, utc_now
from uac.runtime.api.alerts import AlertDesk
from uac.runtime.api.reads import Reader
from uac.runtime.api.sharing import Sharing
from uac.runtime.api.workspace import Appender, Caller
from uac.runtime.search.context import assemble, check_budget
from uac.runtime.search.journal import gather
from uac.runtime.search.soft_preferences import PATH as SOFT_PATH
from uac.runtime.search.soft_preferences import SoftPreference, recall

if TYPE_CHECKING:  # the index (numpy, pyarrow) loads when a search first needs it
    from uac.runtime.search.embedders import Embedder
    from uac.runtime.search.index import SearchHit, SearchIndex


class SharedIndex:
    """The open workspace's one search index, built on first use and shared by every tenant
    view (two indexes would sync the same rows concurrently)."""

    def __init__(self, store: Store, embedder: Embedder | None):
        self.store = store
        self.embedder = embedder  # None: the built-in hashing embedder
        self._index: SearchIndex | None = None
        self._lock = threading.RLock()  # builds the index once; purges one at a time

    @property
    def index(self) -> SearchIndex:
        """The workspace's incremental hybrid index (built on first use)."""
        with self._lock:
            if self._index is None:
                from uac.runtime.search.index import SearchIndex  # numpy: searches only

                self._index = SearchIndex(self.store, self.embedder)
            return self._index

    def purge(self, addr: Address, items: list[str] | None) -> int:
        """Drop indexed rows of items (None: retracted ones) under the search lock."""
        with self._lock:
            self.index.sync()  # what a retract hides must be indexed to be found
            return self.index.purge(addr, items)


class Recall:
    """The verbs that find notes and assemble an agent's memory block."""

    def __init__(
        self,
        store: Store,
        catalog: Catalog,
        caller: Caller,
        appender: Appender,
        shared: SharedIndex,
        reader: Reader,
        alerts: AlertDesk,
        sharing: Sharing,
    ):
        self.store = store
        self.catalog = catalog
        self.caller = caller
        self.appender = appender  # feedback is a fact
        self.shared = shared
        self.reader = reader  # facts and the checkpoint the context block quotes
        self.alerts = alerts  # its open alerts and questions
        self.sharing = sharing  # the groups whose notes a user inherits

    @property
    def search_index(self) -> SearchIndex:
        """The workspace's incremental hybrid index (built on first use)."""
        return self.shared.index

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
        neighbours: int | None = None,
    ) -> list[SearchHit]:
        """The subject's best-matching notes and archived inputs (BM25 + vectors, fused).

        `neighbours`: turns either side that come with each hit (None: 1 for a message,
        0 for a note; see SearchIndex.search).
        """
        # No lock held here: the index serialises its own syncs, and searches read
        # immutable per-subject snapshots, so concurrent searches run side by side.
        return self.search_index.search(
            self.caller.address(subject),
            text,
            k=k,
            since=since,
            kind=kind,  # type: ignore[arg-type]
            half_life_days=half_life_days,
            today=today or utc_now().date(),
            neighbours=neighbours,
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
        addr = self.caller.address(subject)
        known = {i.id for i in self.store.inputs(addr)}
        if item_id not in known:
            try:
                self.store.fact(addr, item_id)  # a note is one of the subject's facts
            except NotFound:
                raise NotFound(
                    f"{addr} has no note or input with id {item_id!r}; feedback takes an id "
                    f"that 'uac search {addr} QUERY' shows"
                ) from None
        batch = Batch(addr, now or utc_now(), self.caller.actor)
        batch.inputs.append(NewInput("command", f"feedback {item_id} not_this", "explicit_command"))
        from uac.runtime.search.index import feedback_fact

        fact = feedback_fact(item_id, reason)
        fact.input_index = 0
        batch.facts.append(fact)
        return self.appender.append(batch)[0]

    def soft_preferences(
        self, subject: str, query: str | None = None, *, today: dt.date | None = None, k: int = 3
    ) -> list[SoftPreference]:
        """The subject's soft preferences that matter most for a request (wording only)."""
        hard = {
            a.name
            for a in self.catalog.attributes.values()
            if a.domain == "preferences"
            and any(f.op == "assert" for f in self.reader.facts(subject, a.path))
        }
        return recall(
            self.reader.facts(subject, SOFT_PATH),
            hard,
            self.search_index.embedder if query else None,  # no query: nothing to embed
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
            checkpoint = self.reader.checkpoint(subject)
        except NotFound:
            checkpoint = None
        hits = self._shared_notes(subject, query, notes, day) if query else []
        wishes = self.soft_preferences(subject, query, today=day)
        extra = gather(
            self.catalog, self.reader.facts, self._query_terms, subject, checkpoint, query,
            wishes, day,
        )  # fmt: skip
        extra["questions"] = [  # what the checks need to know, beside the tentative wishes
            *extra["questions"],
            *(
                f"- {q.message.removeprefix('To confirm: ')} ({q.why})"
                for q in self.alerts.questions(subject, today=day)
            ),
        ]
        return assemble(
            str(self.caller.address(subject)),
            checkpoint,
            alerts=[
                f"[{a.severity}] {a.message}" + (f" Next: {a.next_step}" if a.next_step else "")
                for a in self.alerts.alerts(subject, today=day)
            ],
            wishes=wishes,
            notes=hits,
            budget=budget,
            today=day,
            **extra,
        )

    def _query_terms(self, text: str) -> list[str]:
        """A query's terms as the index analyses them (the index loads only if asked)."""
        return self.search_index.analyzer.query_terms(text)

    def _shared_notes(self, subject: str, query: str, k: int, day: dt.date) -> list[SearchHit]:
        """The notes most relevant to query among the user's, its groups' and its tenant's."""
        addr = self.caller.address(subject)
        where = [str(addr)]
        if addr.scope == "user":  # what the user inherits on that day (docs/scopes.md)
            end = dt.datetime(day.year, day.month, day.day, 23, 59, 59)
            where += [m["group"] for m in self.sharing.members(subject, at=end)] + ["tenant"]
        hits = [h for w in where for h in self.search(w, query, k=k, kind="note", today=day)]
        seen: set[str] = set()  # a promoted note is in the user's log and the group's
        unique = [
            h
            for h in sorted(hits, key=lambda h: (-h.score, h.id))
            if not (h.text in seen or seen.add(h.text))  # type: ignore[func-returns-value]
        ]
        return unique[:k]
