"""The Reactor: what follows a write — compile the subject, run its checks, store and deliver
the alert changes — and the only owner of reactions' tickets, locks and coalescing.

One Reactor per open workspace, shared by every tenant view of it. Its dependencies are
declared: the store (the log and the reactions queue, fact_log/backends/reactions.py), the catalog,
the workspace directory (checkpoints, per-subject locks) and the sinks alerts go to.

A write's pending reaction is recorded durably in the write's own transaction (the queue's
`wanted` count). The Reactor takes the count as the write's ticket, reacts under the
subject's lock, and records the count it started from as covered: writes that land while a
reaction runs are covered by one more (coalesced), and a write whose ticket a later reaction
already covered reuses that reaction's result. A process killed between a write's commit
and its reaction leaves the row pending; `drain` (run by a writable open, `uac serve` and
`uac worker`) catches it up, as of the day it runs.

Inline (the default, an in-process `Memory`) a write waits for its reaction and returns
what it raised and cleared. With `wait` set (`uac serve`), reactions run on the Reactor's
own threads and a write waits at most `wait` seconds, then answers with its ticket, which
`status` answers later.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import os
import signal
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uac.checks import Alert, EvaluationResult, evaluate
from uac.checks.sinks import Sink
from uac.compiler import inherit, loader
from uac.compiler import shared_checkpoints as shared
from uac.compiler.checkpoint import compile_many
from uac.compiler.inherit import with_members
from uac.compiler.locks import subject_lock
from uac.fact_log.addressing import Address
from uac.fact_log.backends import reactions
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import NotFound, UacError
from uac.fact_log.store import Fact, Store, utc_now

# Fault injection for the crash tests: set, a process dies (SIGKILL) after a write's commit,
# before its reaction runs, as a kill -9 at that point would leave it.
CRASH_BEFORE_REACTION = "UAC_CRASH_BEFORE_REACTION"
RESULTS_KEPT = 10_000  # subjects whose latest reaction result is kept for coalesced writes
THREADS = 4  # reactions running at once on a server (each holds its subject's lock)


@dataclass(frozen=True, slots=True)
class Reaction:
    """What a write's reaction changed, or the ticket to ask about it while it runs.

    `ticket` is the subject's write count the reaction covers
    (fact_log/backends/reactions.py); `done` is False when the caller stopped waiting (a
    server's bounded wait) or the write was made inside `deferred()` (the block reacts when
    it ends). `raised` and `cleared` are None when no reaction is known for the write: still
    running, deferred, or not reacting at all (`react=False`).
    """

    subject: str
    ticket: int
    done: bool = True
    raised: list[Alert] | None = None  # new, or woken from a snooze
    cleared: list[Alert] | None = None

    @classmethod
    def of(cls, subject: str, ticket: int, result: EvaluationResult | None) -> Reaction:
        """The reaction a check result stands for (None: ran, but its result is not kept)."""
        if result is None:
            return cls(subject, ticket)
        return cls(subject, ticket, True, [*result.new, *result.woken], list(result.resolved))

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (alerts as alerts show; unknown ones left out)."""
        return {"subject": self.subject, "done": self.done, **outcome(caused(self))}


@dataclass(slots=True)
class Deferred:
    """A `deferred()` block: the subjects written in it, then the reactions it ran."""

    moments: dict[Address, dt.datetime] = field(default_factory=dict)
    members: set[Address] = field(default_factory=set)  # reached through a group's write
    results: list[EvaluationResult] = field(default_factory=list)

    def result(self, subject: str | Address) -> EvaluationResult | None:
        """The block's reaction result for one subject (None if it reacted to no write of it)."""
        name = str(subject)
        found = [r for r in self.results if str(r.address) in (name, f"user:{name}")]
        return found[-1] if found else None


_FACT_FIELDS = dataclasses.fields(Fact)


@dataclass(frozen=True, slots=True, eq=False)
class Written(Fact):
    """The fact one write appended, and the alerts its reaction raised and cleared."""

    # raised (new or woken) and cleared by the write's reaction; None: no reaction known
    # (react=False, inside `deferred()`, or still running: then `ticket` is set)
    alerts: list[Alert] | None = None
    alerts_resolved: list[Alert] | None = None
    # the write's number when its reaction had not finished: ask Memory.reaction(subject, it)
    ticket: int | None = None

    @classmethod
    def of(cls, fact: Fact, reaction: Reaction) -> Written:
        """The fact with what its write's reaction did."""
        row = [getattr(fact, f.name) for f in dataclasses.fields(Fact)]
        return cls(*row, **caused(reaction))

    def __eq__(self, other: object) -> bool:
        # A write's result is the fact it appended: equal to that fact as any read returns it
        # (what its reaction did is not part of the fact; two results compare it too).
        if not isinstance(other, Fact):
            return NotImplemented
        same = all(getattr(self, f.name) == getattr(other, f.name) for f in _FACT_FIELDS)
        if isinstance(other, Written):
            mine = (self.alerts, self.alerts_resolved, self.ticket)
            return same and mine == (other.alerts, other.alerts_resolved, other.ticket)
        return same

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, f.name) for f in _FACT_FIELDS))

    def as_dict(self) -> dict[str, Any]:
        """The fact's row as `Fact.as_dict` gives it, with what the reaction did (if known)."""
        mine = {"alerts": self.alerts, "alerts_resolved": self.alerts_resolved}
        return {**Fact.as_dict(self), **outcome({**mine, "ticket": self.ticket})}


def caused(reaction: Reaction) -> dict[str, Any]:
    """A result's fields for what a write's reaction did (or its ticket, still running)."""
    return {
        "alerts": reaction.raised,
        "alerts_resolved": reaction.cleared,
        "ticket": None if reaction.done else reaction.ticket,
    }


def outcome(fields: dict[str, Any]) -> dict[str, Any]:
    """The reaction fields of a result as its JSON shows them: unknown (None) ones left out."""
    return {
        k: [a.as_dict() for a in v] if k != "ticket" else v
        for k, v in fields.items()
        if v is not None
    }


class Reactor:
    """Compiles and checks subjects after writes; owns the queue, tickets and coalescing."""

    def __init__(
        self,
        store: Store,
        catalog: Catalog,
        home: Path,
        *,
        sinks: list[Sink] | None = None,
        clock_days: int | None = None,
    ):
        self.store = store
        self.catalog = catalog
        self.home = home
        self.sinks: list[Sink] = list(sinks or [])
        # Set by `uac serve`: a check as of a day further than this from the server's date
        # is a preview (the stored alerts are the state as of the server's date).
        self.clock_days = clock_days
        self.wait: float | None = None  # None: a write waits for its reaction (inline)
        self._results: OrderedDict[Address, tuple[int, EvaluationResult]] = OrderedDict()
        self._lock = threading.Lock()
        self._local = threading.local()  # this thread's deferred() block
        self._pool: ThreadPoolExecutor | None = None

    # -- days ------------------------------------------------------------------------------

    @property
    def deferring(self) -> bool:
        """Whether this thread is inside a `deferred()` block (its writes react at its end)."""
        return getattr(self._local, "deferred", None) is not None

    def hypothetical(self, day: dt.date) -> bool:
        """Whether checking as of `day` must store nothing (a server's day far from its clock)."""
        if self.clock_days is None:
            return False
        return abs((day - utc_now().date()).days) > self.clock_days

    def day_for(self, now: dt.datetime) -> dt.date:
        """The day a write's reaction checks as of: the write's, unless that is hypothetical."""
        day = now.date()
        return utc_now().date() if self.hypothetical(day) else day

    # -- compile and check -----------------------------------------------------------------

    def stale(self, addr: Address) -> bool:
        """True when the subject has facts its current checkpoint does not include."""
        shared.fetch(self.store, addr)  # another node may have published a newer one: take it
        if loader.current_version(self.home, addr) is None or self.store.is_changed(addr):
            return True
        marks = [
            c["watermark"]
            for c in self.store.checkpoints(addr)
            if c["status"] == "published" and c["as_of"] is None and c["known_at"] is None
        ]
        return inherit.changed(self.store, addr, max(marks, default=0))

    def check(
        self, addr: Address, today: dt.date | None = None, sinks: list[Sink] | None = None
    ) -> EvaluationResult:
        """Compile the subject if needed, run its checks, store and deliver alert changes."""
        if self.stale(addr):
            try:
                (res,) = compile_many(self.store, self.catalog, [addr])
            except NotFound:  # no facts at all (e.g. an empty note): nothing to check
                return EvaluationResult(addr, 0)
            if res.status != "published":
                raise UacError(
                    f"cannot check {addr}: its compile failed ({res.error}); "
                    f"see its diagnostics with: uac compile {addr}"
                )
        day = today or utc_now().date()
        return evaluate(
            self.store,
            self.home,
            addr,
            day,
            sinks=self.sinks if sinks is None else sinks,
            preview=self.hypothetical(day),
        )

    # -- reacting to writes ----------------------------------------------------------------

    def wrote(
        self, addr: Address, now: dt.datetime | None, *, react: bool = True, settled: bool = False
    ) -> Reaction:
        """React to a committed write of `addr` (and of its members, for a group or tenant).

        `react=False` (a back-fill that must raise nothing) marks the write covered instead;
        `settled`: its own commit did (`Batch.settled`), so `addr` needs nothing more.
        """
        affected = [addr]
        if addr.scope != "user":  # a group's or the tenant's write changes what members inherit
            affected += [a for a in with_members(self.store, addr.tenant, [addr]) if a != addr]
        moment = now or utc_now()
        if not react:
            for target in affected[1:] if settled else affected:
                self._skip(target)
            return Reaction(str(addr), 0)  # done, nothing known: no reaction ran
        block: Deferred | None = getattr(self._local, "deferred", None)
        if block is not None:
            for target in affected:
                block.moments[target] = max(moment, block.moments.get(target, moment))
            block.members.update(affected[1:])
            return Reaction(str(addr), reactions.wanted(self.store, addr)[0], done=False)
        # Members first, the written subject last: a crash in between leaves the write queued,
        # so the catch-up reacts to the members again (their own counts did not move).
        for target in affected[1:]:
            self._await(target, moment, force=True)
        return self._await(addr, moment)

    def _await(self, addr: Address, moment: dt.datetime, force: bool = False) -> Reaction:
        ticket = reactions.wanted(self.store, addr)[0]
        if os.environ.get(CRASH_BEFORE_REACTION):  # fault injection: die as kill -9 would
            os.kill(os.getpid(), signal.SIGKILL)
        if self.wait is None or self._pool is None:
            return Reaction.of(str(addr), ticket, self.react(addr, moment, ticket, force))
        future: Future[EvaluationResult | None] = self._pool.submit(
            self.react, addr, moment, ticket, force
        )
        try:
            return Reaction.of(str(addr), ticket, future.result(timeout=self.wait))
        except FutureTimeout:
            return Reaction(str(addr), ticket, done=False)

    def react(
        self,
        addr: Address,
        moment: dt.datetime | None = None,
        ticket: int | None = None,
        force: bool = False,
    ) -> EvaluationResult | None:
        """Compile and check the subject, unless a reaction since `ticket` covered it.

        Returns the check's result (a covering reaction's, when coalesced). `force`: react
        whatever the subject's own count says (a member, after its group's write).
        """
        if ticket is None:
            ticket = reactions.wanted(self.store, addr)[0]
        try:
            with subject_lock(self.home, addr):
                with self._lock:
                    cached = self._results.get(addr)
                if not force and cached is not None and cached[0] >= ticket:
                    return cached[1]  # coalesced into a reaction that started after the write
                upto = reactions.wanted(self.store, addr)[0]  # every write saved so far
                result = self.check(addr, self.day_for(moment or utc_now()))
                reactions.covered(self.store, addr, upto)
                with self._lock:
                    self._results[addr] = (upto, result)
                    self._results.move_to_end(addr)
                    while len(self._results) > RESULTS_KEPT:
                        self._results.popitem(last=False)
                return result
        except UacError as exc:
            # Say plainly that the data is safe: a caller must not retry the write.
            name = addr.subject if addr.scope == "user" else str(addr)
            raise UacError(
                f"the write to {name} was saved, but reacting to it failed: {exc}"
            ) from exc

    def _skip(self, addr: Address) -> None:
        with subject_lock(self.home, addr):
            wanted, done = reactions.wanted(self.store, addr)
            if done < wanted:  # a write the log's own commit did not cover (Batch.covered)
                reactions.covered(self.store, addr, wanted)

    def status(self, addr: Address, ticket: int) -> Reaction:
        """Whether the reaction covering write `ticket` of the subject ran, and what it did."""
        wanted, done = reactions.wanted(self.store, addr)
        if ticket > wanted:
            raise NotFound(f"{addr} has no write numbered {ticket} (its writes: {wanted})")
        if done < ticket:
            return Reaction(str(addr), ticket, done=False)
        with self._lock:
            cached = self._results.get(addr)
        return Reaction.of(str(addr), ticket, cached[1] if cached else None)

    def forget(self, addr: Address) -> None:
        """Drop the subject's cached reaction result (it may quote erased values)."""
        with self._lock:
            self._results.pop(addr, None)

    # -- deferred blocks, draining, background threads -------------------------------------

    @contextmanager
    def deferred(self) -> Iterator[Deferred]:
        """Writes inside the block react once per subject when it ends (see Memory.deferred)."""
        outer: Deferred | None = getattr(self._local, "deferred", None)
        if outer is not None:  # nested: the outermost block reacts
            yield outer
            return
        block = Deferred()
        self._local.deferred = block
        try:
            yield block
        finally:
            self._local.deferred = None
            # Members first (forced: their own counts did not move), written subjects last.
            order = sorted(block.moments, key=lambda a: a not in block.members)
            for target in order:
                result = self.react(target, block.moments[target], force=target in block.members)
                if result is not None:
                    block.results.append(result)

    def drain(self, tenant: str | None = None, *, log: Callable[[str], None] | None = None) -> int:
        """React to every subject whose writes no reaction covered (a crash's leftovers).

        Each reacts as of today. A subject whose reaction fails stays queued (said to
        `log`) and the others go on. Returns how many subjects reacted.
        """
        done = 0
        for addr in reactions.pending(self.store, tenant):
            members = []
            if addr.scope != "user":
                members = [a for a in with_members(self.store, addr.tenant, [addr]) if a != addr]
            try:
                for member in members:
                    self.react(member, force=True)
                self.react(addr)
                done += 1
            except UacError as exc:
                if log is not None:
                    log(f"reaction to {addr} failed, left queued: {exc}")
        return done

    def uncovered(self, tenant: str) -> list[tuple[Address, int]]:
        """A tenant's subjects with writes no reaction covered, and their write counts (what
        a scheduled pass about to start will cover: `passed`)."""
        return reactions.pending_counts(self.store, tenant)

    def passed(self, counts: list[tuple[Address, int]], errors: Iterable[str]) -> None:
        """A scheduled pass compiled and checked the tenant: the writes counted before it
        started are covered, but for subjects it failed on (`errors`' keys name them)."""
        failed = list(errors)
        for addr, upto in counts:
            name = str(addr)
            if any(key == name or key.startswith(name + ":") for key in failed):
                continue
            reactions.covered(self.store, addr, upto)

    def start(self, wait: float) -> None:
        """Run reactions on the Reactor's threads; a write waits at most `wait` seconds."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(THREADS, thread_name_prefix="uac-reactor")
        self.wait = wait

    def stop(self) -> None:
        """Finish the reactions under way and stop the threads (writes react inline again)."""
        pool, self._pool, self.wait = self._pool, None, None
        if pool is not None:
            pool.shutdown(wait=True)
