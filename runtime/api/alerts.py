"""`AlertDesk`: Memory's checks and alerts — check, list, acknowledge, snooze, rules, passes.

A service of `Memory` (runtime/api/memory.py); `check` is the `Reactor`'s
(runtime/api/reactor.py), which the reaction to a write runs too.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
from uac.fact_log.catalog import Catalog
from uac.fact_log.progress_callback import Report
from uac.fact_log.store import Store, utc_now
from uac.runtime.api.reactor import Reactor, caused
from uac.runtime.api.reads import Reader
from uac.runtime.api.workspace import Appender, Caller


@dataclass(frozen=True, slots=True)
class RuleAdded:
    """The `rule` verb's result: the stored rule's id, and what the write's reaction did."""

    rule_id: str
    # raised (new or woken) and cleared by the write's reaction; None: no reaction known
    alerts: list[Alert] | None = None
    alerts_resolved: list[Alert] | None = None
    ticket: int | None = None  # the write's number when its reaction had not finished


class AlertDesk:
    """The verbs that run checks and manage the alerts they raise."""

    def __init__(
        self,
        store: Store,
        catalog: Catalog,
        home: Path,
        caller: Caller,
        reactor: Reactor,
        appender: Appender,
        reader: Reader,
    ):
        self.store = store
        self.catalog = catalog  # a rule is validated against it
        self.home = home  # a scheduled pass records its job there
        self.caller = caller
        self.reactor = reactor  # runs the checks (a write's reaction runs the same)
        self.appender = appender  # a rule is a fact: written and reacted to as any write
        self.reader = reader  # a scheduled pass compiles the changed subjects

    def check(
        self, subject: str, *, today: dt.date | None = None, sinks: list[Sink] | None = None
    ) -> EvaluationResult:
        """Compile the subject if needed, run its checks, store and deliver alert changes.

        On a server a `today` far from its clock (`Reactor.hypothetical`) is a preview: the result
        says what would change (`preview` is True), nothing is stored or delivered.
        """
        return self.reactor.check(self.caller.address(subject), today, sinks)

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
        where: Address | str = self.caller.tenant
        if subject is not None:
            where = self.caller.address(subject)
        return list_alerts(self.store, where, statuses=statuses, today=today, kind=kind)

    def acknowledge(self, subject: str, alert_id: str, *, today: dt.date | None = None) -> Alert:
        """Mark one of the subject's alerts as seen."""
        addr = self.caller.address(subject)
        return acknowledge(self.store, addr, alert_id, today or utc_now().date())

    def snooze(
        self, subject: str, alert_id: str, until: dt.date, *, today: dt.date | None = None
    ) -> Alert:
        """Hide one of the subject's alerts until a date."""
        addr = self.caller.address(subject)
        return snooze(self.store, addr, alert_id, until, today or utc_now().date())

    def add_rule(
        self, subject: str, rule: dict[str, Any], *, now: dt.datetime | None = None
    ) -> str:
        """Store a user rule (threshold, reminder, forbid) as a fact; returns its id."""
        return self.rule(subject, rule, now=now).rule_id

    def rule(
        self, subject: str, rule: dict[str, Any], *, now: dt.datetime | None = None
    ) -> RuleAdded:
        """`add_rule`, with what the write's reaction did (the `rule` verb's result)."""
        from uac.fact_log.extraction.screen import refuse_secrets

        refuse_secrets(rule, "the rule")
        addr = self.caller.address(subject)
        rid = add_rule(self.store, addr, rule, now or utc_now(), self.caller.actor, self.catalog)
        return RuleAdded(rid, **caused(self.appender.wrote(subject, now)))

    def run_once(
        self, *, today: dt.date | None = None, progress: Report | None = None
    ) -> JobResult:
        """One scheduled pass: compile changed subjects, evaluate every subject, record a job.

        `progress("compiling", done, total)` is called after each subject the pass compiles
        (default: this Memory's `progress`). On a server a `today` far from its clock is a
        preview, as for `check`: no alert change, delivery or job row is stored.
        """
        report = progress or self.caller.progress
        tenant = self.caller.tenant
        changed = with_members(self.store, tenant, self.store.changed_subjects(tenant))
        total = len(changed) if report else 0
        done = 0
        if report is not None:
            report("compiling", 0, total)

        def compile_one(addr: Address) -> list[CompileResult]:
            nonlocal done
            try:
                return self.reader.compile(str(addr))
            finally:
                done += 1
                if report is not None:
                    report("compiling", done, max(total, done))

        day = today or utc_now().date()
        preview = self.reactor.hypothetical(day)
        queued = [] if preview else self.reactor.uncovered(tenant)
        job = run_once(
            self.home,
            self.caller.tenant,
            day,
            compile_one,
            store=self.store,
            sinks=self.reactor.sinks,
            preview=preview,
        )
        self.reactor.passed(queued, job.errors)  # the reactions the pass caught up: done
        return job
