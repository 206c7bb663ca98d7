"""Memory's checks and alerts: check, list, acknowledge, snooze, rules, scheduled passes.

A mixin of `Memory` (runtime/api/memory.py); `check` is the `Reactor`'s
(runtime/api/reactor.py), which the reaction to a write runs too.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from uac.checks import (
    Alert,
    EvaluationResult,
    acknowledge,
    add_rule,
    list_alerts,
    snooze,
)
from uac.checks.model import Kind
from uac.checks.scheduler import JobResult, run_once
from uac.checks.sinks import Sink
from uac.compiler.checkpoint import CompileResult
from uac.compiler.inherit import with_members
from uac.fact_log.addressing import Address
from uac.fact_log.progress_callback import Report
from uac.fact_log.store import utc_now
from uac.runtime.api.reactor import Reaction
from uac.runtime.api.workspace import Workspace


class Alerts(Workspace):
    """The verbs that run checks and manage the alerts they raise."""

    if TYPE_CHECKING:  # the verbs of other families this one calls (reads.py)

        def compile(self, subject: str | None = None) -> list[CompileResult]: ...

    def check(
        self, subject: str, *, today: dt.date | None = None, sinks: list[Sink] | None = None
    ) -> EvaluationResult:
        """Compile the subject if needed, run its checks, store and deliver alert changes.

        On a server a `today` far from its clock (`Reactor.hypothetical`) is a preview: the result
        says what would change (`preview` is True), nothing is stored or delivered.
        """
        return self._reactor.check(self.address(subject), today, sinks)

    def alerts(
        self,
        subject: str | None = None,
        *,
        include_resolved: bool = False,
        today: dt.date | None = None,
    ) -> list[Alert]:
        """Open (and acknowledged) alerts of one subject, or of every subject of the tenant:
        risks only (what the checks would like to ask is listed by `questions`)."""
        return self._listed("alert", subject, include_resolved, today)

    def questions(
        self,
        subject: str | None = None,
        *,
        include_resolved: bool = False,
        today: dt.date | None = None,
    ) -> list[Alert]:
        """What the checks need to know and why (open questions of one subject, or of every
        subject of the tenant); a question resolves itself when the fact it asks arrives."""
        return self._listed("question", subject, include_resolved, today)

    def _listed(
        self, kind: Kind, subject: str | None, include_resolved: bool, today: dt.date | None
    ) -> list[Alert]:
        statuses = (
            ("open", "acknowledged", "resolved") if include_resolved else ("open", "acknowledged")
        )
        where: Address | str = self.address(subject) if subject is not None else self.tenant
        return list_alerts(self.store, where, statuses=statuses, today=today, kind=kind)

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
        return self._add_rule(subject, rule, now)[0]

    def _add_rule(
        self, subject: str, rule: dict[str, Any], now: dt.datetime | None
    ) -> tuple[str, Reaction]:
        """`add_rule`, with what the write's reaction did (for the `rule` verb's result)."""
        from uac.fact_log.extraction.screen import refuse_secrets

        refuse_secrets(rule, "the rule")
        rid = add_rule(
            self.store, self.address(subject), rule, now or utc_now(), self.actor, self.catalog
        )
        return rid, self._wrote(subject, now)

    def run_once(
        self, *, today: dt.date | None = None, progress: Report | None = None
    ) -> JobResult:
        """One scheduled pass: compile changed subjects, evaluate every subject, record a job.

        `progress("compiling", done, total)` is called after each subject the pass compiles
        (default: this Memory's `progress`). On a server a `today` far from its clock is a
        preview, as for `check`: no alert change, delivery or job row is stored.
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

        day = today or utc_now().date()
        preview = self._reactor.hypothetical(day)
        queued = [] if preview else self._reactor.uncovered(self.tenant)
        job = run_once(
            self.home,
            self.tenant,
            day,
            compile_one,
            store=self.store,
            sinks=self._reactor.sinks,
            preview=preview,
        )
        self._reactor.passed(queued, job.errors)  # the reactions the pass caught up: done
        return job
