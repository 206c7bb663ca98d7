"""Memory's checks and alerts: check, list, acknowledge, snooze, rules, scheduled passes.

A mixin of `Memory` (runtime/api/memory.py); the reaction to a write (memory.py) runs
`check` here.
"""

from __future__ import annotations

import datetime as dt
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
from uac.checks.model import Kind
from uac.checks.scheduler import JobResult, run_once
from uac.checks.sinks import Sink
from uac.compiler.checkpoint import CompileResult
from uac.compiler.inherit import with_members
from uac.fact_log.addressing import Address
from uac.fact_log.errors import NotFound, UacError
from uac.fact_log.progress_callback import Report
from uac.fact_log.store import utc_now


class Alerts:
    """The verbs that run checks and manage the alerts they raise."""

    # Set by `uac serve` (None embedded, where `today` is a parameter like any other): the
    # stored alerts are the state as of the server's date, so a check as of a day further
    # than this many days from it (a client's time zone is at most a day off) is a preview.
    clock_days: int | None = None

    def _hypothetical(self, day: dt.date) -> bool:
        """Whether checking as of `day` must store nothing (a server's day far from its clock)."""
        if self.clock_days is None:
            return False
        return abs((day - utc_now().date()).days) > self.clock_days

    def _reaction_day(self, now: dt.datetime) -> dt.date:
        """The day a write's reaction checks as of: the write's, unless that is hypothetical."""
        day = now.date()
        return utc_now().date() if self._hypothetical(day) else day

    def check(
        self, subject: str, *, today: dt.date | None = None, sinks: list[Sink] | None = None
    ) -> EvaluationResult:
        """Compile the subject if needed, run its checks, store and deliver alert changes.

        On a server a `today` far from its clock (`_hypothetical`) is a preview: the result
        says what would change (`preview` is True), nothing is stored or delivered.
        """
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
            preview=self._hypothetical(day),
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
        from uac.fact_log.extraction.screen import refuse_secrets

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
        return run_once(
            self.home,
            self.tenant,
            day,
            compile_one,
            store=self.store,
            sinks=self.sinks,
            preview=self._hypothetical(day),
        )
