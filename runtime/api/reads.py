"""`Reader`: Memory's read verbs — the log, compiling, checkpoints, explanations, queries.

A service of `Memory` (runtime/api/memory.py): nothing here appends to the log (compiling
writes derived checkpoints only).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from uac.compiler import explain, inherit, loader
from uac.compiler.checkpoint import DEFAULT_KEEP, CompileResult, compile_many
from uac.compiler.locks import subject_lock
from uac.fact_log import duck
from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import InputError, NotFound, WorkspaceError
from uac.fact_log.quarantine import QUARANTINED, marked, quarantined_ids
from uac.fact_log.store import (
    Fact,
    Input,
    Store,
    SubjectInfo,
    VerifyReport,
    utc_naive,
    utc_now,
)
from uac.runtime.api.reactor import Reactor
from uac.runtime.api.workspace import Caller
from uac.runtime.sandbox import Limits, run_query


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


class Reader:
    """The verbs that read a subject's log, compile it and query its typed state."""

    def __init__(
        self, store: Store, catalog: Catalog, home: Path, caller: Caller, reactor: Reactor
    ):
        self.store = store
        self.catalog = catalog
        self.home = home  # the compiled checkpoints
        self.caller = caller
        self.reactor = reactor  # knows whether a subject's checkpoint lags its log

    def rejections(self, subject: str, *, show: bool = False) -> list[dict[str, Any]]:
        """What the ingestion gate refused for the subject, with reasons.

        A refused secret or instruction quarantines its input: by default its text is not
        shown (quotes dropped from the detail); `show=True` is for an operator auditing it and
        adds the input's masked excerpt (secrets stay masked either way).
        """
        addr = self.caller.address(subject)
        rows = self.store.rejections(addr)
        if not show:
            return marked(rows)
        # The operator's audit: excerpts masked again by the secret filter.
        from uac.fact_log.extraction.screen import excerpt

        return marked(rows, {i.id: i.content for i in self.store.inputs(addr)}, excerpt)

    def quarantined(self, subject: str) -> set[str]:
        """Ids of the subject's quarantined inputs (a secret or an instruction was refused)."""
        return quarantined_ids(self.store.rejections(self.caller.address(subject)))

    def facts(self, subject: str, path: str | None = None) -> list[Fact]:
        """The subject's facts in log order."""
        return self.store.facts(self.caller.address(subject), path)

    def inputs(self, subject: str, *, show: bool = False) -> list[Input]:
        """The subject's archived raw inputs (masked); a quarantined one's text only if show."""
        inputs = self.store.inputs(self.caller.address(subject))
        if show:
            return inputs
        hidden = self.quarantined(subject)
        return [
            dataclasses.replace(i, content=QUARANTINED) if i.id in hidden else i for i in inputs
        ]

    def subjects(self) -> list[SubjectInfo]:
        """Subjects of this tenant."""
        return self.store.subjects(self.caller.tenant)

    def inferred_schemas(self, subject: str) -> dict[str, dict[str, Any]]:
        """Schemas inferred for the subject's imported collections the catalog lacks."""
        return self.store.inferred_schemas(self.caller.address(subject))

    def verify(self, anchor: dict[str, Any] | None = None) -> VerifyReport:
        """Check the hash chain, keyed digests and anchors (and an exported anchor, if given)."""
        return self.store.verify(anchor=anchor)

    def anchors(self, every: bool = False) -> list[dict[str, Any]]:
        """The newest anchor of the log (or all of them) for an external witness."""
        return self.store.anchors(every)

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
            addresses = [self.caller.address(subject)]
        elif changed:
            changed_ = self.store.changed_subjects(self.caller.tenant)
            addresses = inherit.with_members(self.store, self.caller.tenant, changed_)
        else:
            addresses = [
                Address(self.caller.tenant, s.scope, s.subject)  # type: ignore[arg-type]
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
        addr = self.caller.address(subject)
        if version is None:
            self._current_dir(addr)
        return loader.load(self.home, addr, version)

    def _checked(self, subject: str) -> loader.Checked:
        """The subject's current checkpoint, verified as `checkpoint` verifies it but not
        imported: what reads of its data files (manifest, statuses) need."""
        addr = self.caller.address(subject)
        self._current_dir(addr)
        return loader.verified_files(self.home, addr)

    def _current_dir(self, addr: Address) -> Path:
        """The subject's current version directory, refused if it must not be served: a
        pointer rolled back below the newest published version, or a log head this log
        does not hold (the checkpoint's own signature binds subject and version)."""
        version, directory = loader.version_dir(self.home, addr)
        head = loader.folded_head(directory) if self.store.backend.one_chain else None
        problem = duck.served_problem(
            self.store.con, addr.tenant, addr.scope, addr.subject, version, head, self.store.ring
        )
        if problem is not None:
            raise WorkspaceError(problem)
        return directory

    def manifest(self, subject: str) -> str:
        """The compact manifest of the subject's current checkpoint, for agent context."""
        return self._checked(subject).manifest

    def why(self, subject: str, expr: str) -> Explanation:
        """The value at expr (e.g. user.passport.expiry_date) and the facts behind it."""
        addr = self.caller.address(subject)
        ckpt = self.checkpoint(subject)
        resolved = explain.resolve(ckpt, expr)
        statuses = ckpt.provenance["facts"]
        # An inherited value's facts live in its group's or the tenant's log (provenance
        # says which); only the scopes this checkpoint read are looked in.
        scopes = ckpt.provenance.get("scopes", {})

        def fact(fid: str) -> Fact:
            return self.store.fact(self.caller.address(scopes[fid]) if fid in scopes else addr, fid)

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
        addr = self.caller.address(subject)
        published = [
            c["version"] for c in self.store.checkpoints(addr) if c["status"] == "published"
        ]
        old, new = loader.diff_versions(self.home, addr, published, old, new)
        return old, new, explain.diff(self.checkpoint(subject, old), self.checkpoint(subject, new))

    def statuses(self, subject: str) -> dict[str, dict[str, Any]]:
        """Derived status of each fact in the current checkpoint ({} if never compiled)."""
        try:
            return self._checked(subject).provenance["facts"]
        except NotFound:
            return {}

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
        date; pass it for reproducible answers. Without `version` it answers from every
        saved write: a subject not compiled yet, or with facts its checkpoint lacks, is
        compiled first (waiting for a reaction in progress, which holds the subject's lock).

        `limits` (default `Limits()`): 2 s of CPU, 256 MB, and a 2 s wall limit counted
        from the hand-over to a sandbox worker (not the wait for a free one) that leaves
        out time the worker spent waiting for a CPU, so a busy machine does not fail a
        query while a blocked one is still stopped; whatever the load, a query is stopped
        after `limits.backstop_s` (40 s) of wall-clock time. Over a limit the envelope's
        error is `limit_exceeded`.
        """
        addr = self.caller.address(subject)
        if version is None:
            self._catch_up(subject)  # takes the newest checkpoint any node published, too
            directory = self._current_dir(addr)
        else:
            _, directory = loader.version_dir(self.home, addr, version)
        day = today or utc_now().date()
        return run_query(directory, program, today=day, limits=limits, explain=explain)

    def _catch_up(self, subject: str) -> None:
        """Compile the subject if its current checkpoint lacks saved facts (or is missing).

        A reaction in progress holds the subject's lock: this waits for it, looks again and
        usually finds nothing left to do. A read-only workspace queries what was published.
        """
        if not self.stale(subject) or self.store.read_only:
            return
        with subject_lock(self.home, self.caller.address(subject)):
            if self.stale(subject):
                self.compile(subject)

    def stale(self, subject: str) -> bool:
        """True when the subject has facts its current checkpoint does not include."""
        return self.reactor.stale(self.caller.address(subject))
