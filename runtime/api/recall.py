"""Memory's recall verbs: hybrid search, feedback, soft preferences, the context block.

A mixin of `Memory` (runtime/api/memory.py) over the workspace's search index
(runtime/search/).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from uac.fact_log.addressing import Address
from uac.fact_log.errors import NotFound
from uac.fact_log.store import (
    Batch,
    Fact,
    NewInput,
    utc_now,
)
from uac.runtime.api import journal
from uac.runtime.api.workspace import Workspace
from uac.runtime.search.context import assemble, check_budget
from uac.runtime.search.soft_preferences import PATH as SOFT_PATH
from uac.runtime.search.soft_preferences import SoftPreference, recall

if TYPE_CHECKING:  # the index (numpy, pyarrow) loads when a search first needs it
    from uac.checks import Alert
    from uac.compiler.loader import Checkpoint
    from uac.runtime.search.index import SearchHit, SearchIndex


class Recall(Workspace):
    """The verbs that find notes and assemble an agent's memory block."""

    if TYPE_CHECKING:  # the verbs of other families this one calls (reads, alerts, Memory)

        def facts(self, subject: str, path: str | None = None) -> list[Fact]: ...
        def checkpoint(self, subject: str, version: int | None = None) -> Checkpoint: ...
        def alerts(
            self, subject: str | None = None, *, today: dt.date | None = None
        ) -> list[Alert]: ...
        def questions(
            self, subject: str | None = None, *, today: dt.date | None = None
        ) -> list[Alert]: ...
        def members(
            self, subject: str, *, at: dt.datetime | None = None
        ) -> list[dict[str, Any]]: ...

    def _purge_search(self, addr: Address, items: list[str] | None) -> int:
        """Drop indexed rows of items (None: retracted ones) under the search lock."""
        with self._search_lock:
            self.search_index.sync()  # what a retract hides must be indexed to be found
            return self.search_index.purge(addr, items)

    @property
    def search_index(self) -> SearchIndex:
        """The workspace's incremental hybrid index (built on first use)."""
        with self._search_lock:
            if not self._search:
                from uac.runtime.search.index import SearchIndex  # numpy: searches only

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
        neighbours: int | None = None,
    ) -> list[SearchHit]:
        """The subject's best-matching notes and archived inputs (BM25 + vectors, fused).

        `neighbours`: turns either side that come with each hit (None: 1 for a message,
        0 for a note; see SearchIndex.search).
        """
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
        addr = self.address(subject)
        known = {i.id for i in self.store.inputs(addr)}
        if item_id not in known:
            try:
                self.store.fact(addr, item_id)  # a note is one of the subject's facts
            except NotFound:
                raise NotFound(
                    f"{addr} has no note or input with id {item_id!r}; feedback takes an id "
                    f"that 'uac search {addr} QUERY' shows"
                ) from None
        batch = Batch(addr, now or utc_now(), self.actor)
        batch.inputs.append(NewInput("command", f"feedback {item_id} not_this", "explicit_command"))
        from uac.runtime.search.index import feedback_fact

        fact = feedback_fact(item_id, reason)
        fact.input_index = 0
        batch.facts.append(fact)
        return self._append(batch)[0]

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
            checkpoint = self.checkpoint(subject)
        except NotFound:
            checkpoint = None
        hits = self._shared_notes(subject, query, notes, day) if query else []
        wishes = self.soft_preferences(subject, query, today=day)
        extra = journal.gather(self, subject, checkpoint, query, wishes, day)
        extra["questions"] = [  # what the checks need to know, beside the tentative wishes
            *extra["questions"],
            *(
                f"- {q.message.removeprefix('To confirm: ')} ({q.why})"
                for q in self.questions(subject, today=day)
            ),
        ]
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
