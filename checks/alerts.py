"""Evaluate a subject's checks against its published checkpoint and keep the alert lifecycle.

Lifecycle in the `alerts` table: a new condition is inserted `open`; it can be
`acknowledged` or snoozed until a date (hidden from listings until then; the first
evaluation on or after that date that still finds the condition opens it again and delivers
it once more); when a later evaluation no longer finds it, it becomes `resolved`. An alert's
id is the fingerprint of check + subject + record keys, so re-evaluating never raises the
same condition twice; a resolved condition that comes back is re-opened (and delivered
again) under the same id.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from uac.checks import schema as _tables  # noqa: F401 (registered wherever alerts are used)
from uac.checks.library import run_checks
from uac.checks.library.common import same_words
from uac.checks.listing import ACTIVE, COLUMNS, from_row, listed
from uac.checks.model import DEFAULT_CONFIG, Alert, AlertDraft, CheckConfig, Kind, fingerprint
from uac.checks.sinks import Recorder, Sink, deliver
from uac.compiler import loader
from uac.compiler.locks import subjects_locked
from uac.fact_log.addressing import Address
from uac.fact_log.backends import write_keys
from uac.fact_log.backends.duckdb import insert_outbox
from uac.fact_log.errors import InputError, NotFound
from uac.fact_log.store import Store, utc_now

_SUBJECT = "tenant = ? AND scope = ? AND subject = ?"


@dataclass(slots=True)
class EvaluationResult:
    """What one evaluation of a subject changed."""

    address: Address
    version: int
    new: list[Alert] = field(default_factory=list)
    still_open: list[Alert] = field(default_factory=list)
    resolved: list[Alert] = field(default_factory=list)
    woken: list[Alert] = field(default_factory=list)  # snooze ended: open and delivered again
    checks: list[str] = field(default_factory=list)
    errors: dict[str, str] = field(default_factory=dict)  # check → error
    delivery_errors: dict[str, str] = field(default_factory=dict)  # sink → error
    preview: bool = False  # True: compared with the stored alerts, nothing stored or delivered


def _values(a: Alert) -> list[Any]:
    # Column order of _COLS.
    return [
        a.id,
        a.address.tenant,
        a.address.scope,
        a.address.subject,
        a.check,
        a.severity,
        a.status,
        a.message,
        a.computation,
        json.dumps(list(a.fact_ids)),
        json.dumps(list(a.record_keys)),
        a.first_seen,
        a.last_seen,
        a.acknowledged_on,
        a.snoozed_until,
        a.resolved_on,
        a.why,
        a.next_step,
    ]


def _with_provenance(drafts: list[AlertDraft], checkpoint: loader.Checkpoint) -> list[AlertDraft]:
    # Attribute groups carry no fact ids of their own; the provenance map has them.
    if not any(d.paths for d in drafts):
        return drafts
    paths = checkpoint.provenance.get("paths", {})
    out = []
    for draft in drafts:
        ids = list(draft.fact_ids)
        for path in draft.paths:
            ids.extend(paths.get(path, ()))
        out.append(replace(draft, fact_ids=tuple(dict.fromkeys(ids))))
    return out


# Conflicts between two records from one message: the events an extractor took twice from
# what the user said once ("In her school play" and "Performance" at 18:00) are one event,
# never a clash: the checks' drafts are dropped here, where the log tells where facts came from.
SELF_CONFLICT_CHECKS = frozenset({"event_overlap", "recurring_event_collision"})
_AUTOMATIC = ("automatic_rule", "automatic_llm")


def _span(fact: Any) -> tuple[int, int] | None:
    ev = fact.evidence if isinstance(fact.evidence, dict) else {}
    if not isinstance(ev.get("offset"), int) or not ev.get("quote"):
        return None
    return ev["offset"], ev["offset"] + len(ev["quote"])


def _said_once(facts: list[Any]) -> bool:
    """Whether two records' facts were all extracted automatically from one message and say
    one event: from one sentence (each evidence quote overlapping the first's: a quote is its
    sentence), or in the same slot (same start and end), or with near-equal titles."""
    if any(f.source not in _AUTOMATIC or not f.input_id for f in facts):
        return False
    if len({f.input_id for f in facts}) != 1 or len({f.record_key for f in facts}) != 2:
        return False
    spans = [_span(f) for f in facts]
    if None in spans:
        return True  # no offsets kept: one input is the finest grain known
    lo, hi = spans[0]  # type: ignore[misc]
    if all(a < hi and lo < b for a, b in spans[1:]):  # type: ignore[misc]
        return True
    values = [f.value for f in facts if isinstance(f.value, dict)]
    slots = {(v.get("start"), v.get("end")) for v in values}
    titles = [v.get("title") for v in values]
    return len(slots) == 1 or all(same_words(titles[0], t) for t in titles[1:])


def without_self_conflicts(
    store: Store, addr: Address, drafts: list[AlertDraft]
) -> list[AlertDraft]:
    """Drafts less the conflicts between two events said once, in one message (_said_once)."""
    suspects = [d for d in drafts if d.check in SELF_CONFLICT_CHECKS]
    if not suspects:
        return drafts
    by_id = {f.id: f for f in store.facts(addr, "schedule.events")}
    dropped = set()
    for d in suspects:
        facts = [by_id[i] for i in d.fact_ids if i in by_id]
        if len(facts) == len(d.fact_ids) and _said_once(facts):
            dropped.add(id(d))
    return [d for d in drafts if id(d) not in dropped]


RULE_WHY = "It breaks a rule you set yourself."
RULE_NEXT = "Look at the records named here, or change the rule if it no longer fits."


def _rule_finding(finding: dict[str, Any]) -> AlertDraft:
    """A compiled user rule's finding as a draft; rules say what, the defaults say why."""
    draft = AlertDraft(**finding)
    return replace(draft, why=draft.why or RULE_WHY, next_step=draft.next_step or RULE_NEXT)


def compute(
    home: Path, addr: Address, today: dt.date, config: CheckConfig = DEFAULT_CONFIG
) -> tuple[int, list[str], list[AlertDraft], dict[str, str]]:
    """(version, checks run, drafts, errors) for a subject's current checkpoint; stores nothing.

    Runs the built-in checks its `constraints.CHECKS` names and the functions the compiler
    generated from the subject's own rules (`constraints.RULES`).
    """
    checkpoint = loader.load(home, addr)
    return (checkpoint.version, *run_on(checkpoint, today, config))


def run_on(
    checkpoint: Any, today: dt.date, config: CheckConfig = DEFAULT_CONFIG
) -> tuple[list[str], list[AlertDraft], dict[str, str]]:
    """(checks run, drafts, errors) for a loaded checkpoint or an overlay (its `user`,
    `package.constraints` and `provenance`); stores nothing."""
    constraints = checkpoint.package.constraints
    names = list(getattr(constraints, "CHECKS", ()))
    user = checkpoint.user
    drafts, errors = run_checks(names, user, today, config)
    for name, rule in getattr(constraints, "RULES", {}).items():
        names.append(name)
        try:
            drafts.extend(_rule_finding(finding) for finding in rule(user, today))
        except Exception as exc:  # a broken rule must not hide the other alerts
            errors[name] = f"{type(exc).__name__}: {exc}"
    return names, _with_provenance(drafts, checkpoint), errors


def preview_on(
    store: Store, checkpoint: Any, today: dt.date, config: CheckConfig = DEFAULT_CONFIG
) -> EvaluationResult:
    """What evaluating `checkpoint` (an overlay: compiler/overlay.py) as of `today` would
    change in the subject's stored alerts, planned as `evaluate` plans; nothing is written."""
    names, drafts, errors = run_on(checkpoint, today, config)
    result = EvaluationResult(checkpoint.address, checkpoint.version, checks=names, errors=errors)
    result.preview = True
    _preview(store, [(result, drafts)], today)
    return result


def evaluate(
    store: Store,
    home: Path | str,
    addr: Address,
    today: dt.date,
    *,
    config: CheckConfig = DEFAULT_CONFIG,
    sinks: Iterable[Sink] = (),
    now: dt.datetime | None = None,
    preview: bool = False,
) -> EvaluationResult:
    """Run the checks the subject's checkpoint lists, store alert changes, deliver new ones.

    Holds the subject's lock: one evaluation (or compile) of a subject at a time. `preview`:
    say what would change as of `today` against the stored alerts, store and deliver nothing.
    """
    outcome = evaluate_many(
        store, home, [addr], today, config=config, sinks=sinks, now=now, preview=preview
    )
    if isinstance(outcome[addr], Exception):
        raise outcome[addr]
    return outcome[addr]


def evaluate_many(
    store: Store,
    home: Path | str,
    addresses: Sequence[Address],
    today: dt.date,
    *,
    config: CheckConfig = DEFAULT_CONFIG,
    sinks: Iterable[Sink] = (),
    now: dt.datetime | None = None,
    preview: bool = False,
) -> dict[Address, EvaluationResult | Exception]:
    """`evaluate` for several subjects: one read of their alerts, one write transaction.

    Holds all their locks meanwhile. Each subject's result, or the exception that stopped
    it (a failed write stops them all: it is one transaction). Recording sinks (the outbox)
    write their rows in that same transaction; the others are called after it commits.
    With `preview` the results are planned against the stored alerts and nothing is written
    or delivered.
    """
    sinks = list(sinks)
    recorders = [s for s in sinks if isinstance(s, Recorder)]
    out: dict[Address, EvaluationResult | Exception] = {}
    with subjects_locked(store.home, addresses):
        computed: list[tuple[EvaluationResult, list[AlertDraft]]] = []
        for addr in addresses:
            try:
                version, names, drafts, errors = compute(Path(home), addr, today, config)
                drafts = without_self_conflicts(store, addr, drafts)
            except Exception as exc:
                out[addr] = exc
                continue
            result = EvaluationResult(addr, version, checks=names, errors=errors)
            result.preview = preview
            computed.append((result, drafts))
            out[addr] = result
        if preview:
            _preview(store, computed, today)
            return out
        try:
            plans = _record(store, computed, today, recorders)
        except Exception as exc:
            return {
                addr: exc if isinstance(got, EvaluationResult) else got for addr, got in out.items()
            }
        for recorder in recorders:
            recorder.recorded()
        for plan in plans:
            _deliver(store, plan.result, sinks, now)
    return out


def _record(
    store: Store,
    computed: list[tuple[EvaluationResult, list[AlertDraft]]],
    today: dt.date,
    recorders: list[Recorder],
) -> list[_Plan]:
    """Plan and store the alert changes and their outbox rows, in one transaction.

    The backend locks the subjects' alerts for it (fact_log/backends/base.py): on a shared
    log two nodes evaluating one subject queue there, and the second finds what the first
    recorded. An insert another evaluation won is not raised again here.
    """
    keys = [_triple(result.address) for result, _ in computed]
    if not keys:
        return []
    with store.backend.alerts.evaluating(keys) as write:
        existing = _grouped(write.rows())
        plans = [_plan(r, drafts, existing.get(r.address, {}), today) for r, drafts in computed]
        occurrence: dict[str, int] = {}
        for plan in plans:
            result = plan.result
            inserted = write.insert([_values(a) for a in plan.inserts])
            result.new = [a for a in result.new if a.id in inserted or a in plan.rewrites]
            raised = {a.id for a in (*result.new, *result.woken)}
            for alert in plan.rewrites:
                occurrence[alert.id] = write.rewrite(_values(alert), alert.id in raised)
            key = _triple(result.address)
            if plan.touched:
                write.update(key, plan.touched, "last_seen = ?", [today])
            if result.resolved:
                ids = [a.id for a in result.resolved]
                write.update(key, ids, "status = 'resolved', resolved_on = ?", [today])
        write.outbox(
            [
                (*_triple(alert.address), alert.id, n, sink, payload)
                for alert, n, sink, payload in _outbox(plans, recorders, occurrence)
            ]
        )
    return plans


def _preview(
    store: Store, computed: list[tuple[EvaluationResult, list[AlertDraft]]], today: dt.date
) -> None:
    """Fill the results with what evaluating as of `today` would change; write nothing."""
    if not computed:
        return
    keys = [_triple(result.address) for result, _ in computed]
    existing = _grouped(store.backend.alerts.rows(keys))  # the stored rows, shared or not
    for result, drafts in computed:
        _plan(result, drafts, existing.get(result.address, {}), today)


def _outbox(
    plans: list[_Plan], recorders: list[Recorder], occurrence: dict[str, int]
) -> list[tuple[Alert, int, str, str]]:
    """(alert, occurrence, sink, payload) for each raised alert and each recording sink."""
    out = []
    for plan in plans:
        for alert in (*plan.result.new, *plan.result.woken):
            payload = json.dumps(alert.as_dict(), sort_keys=True, ensure_ascii=False)
            for recorder in recorders:
                for sink in recorder.sinks:
                    out.append((alert, occurrence.get(alert.id, 1), sink, payload))
    return out


def record_outbox(store: Store, entries: Sequence[tuple[Alert, int, str, str]]) -> None:
    """Insert outbox rows (alert, occurrence, sink, payload) into the workspace file, in the
    caller's transaction if any."""
    insert_outbox(
        store, [(a.id, a.address.tenant, sink, payload) for a, _, sink, payload in entries]
    )


def _triple(addr: Address) -> tuple[str, str, str]:
    return (addr.tenant, addr.scope, addr.subject)


def _grouped(rows: Iterable[Sequence[Any]]) -> dict[Address, dict[str, Alert]]:
    out: dict[Address, dict[str, Alert]] = {}
    for row in rows:
        alert = from_row(row)
        out.setdefault(alert.address, {})[alert.id] = alert
    return out


@dataclass(slots=True)
class _Plan:
    """The alert rows one evaluation of a subject inserts and updates."""

    result: EvaluationResult
    inserts: list[Alert] = field(default_factory=list)
    rewrites: list[Alert] = field(default_factory=list)  # content changed or re-opened
    touched: list[str] = field(default_factory=list)  # unchanged and open: last_seen moves


def _plan(
    result: EvaluationResult, drafts: list[AlertDraft], existing: dict[str, Alert], today: dt.date
) -> _Plan:
    """Compare the drafts with the subject's rows: what is new, kept, touched, resolved."""
    addr = result.address
    plan = _Plan(result)
    found: dict[str, AlertDraft] = {}
    for draft in drafts:
        found.setdefault(fingerprint(draft.check, addr, draft.record_keys), draft)
    for aid, draft in sorted(found.items()):
        old = existing.get(aid)
        fresh = Alert(
            aid,
            addr,
            draft.check,
            draft.severity,
            "open",
            draft.message,
            draft.computation,
            draft.fact_ids,
            draft.record_keys,
            today,
            today,
            why=draft.why,
            next_step=draft.next_step,
        )
        if old is None:
            plan.inserts.append(fresh)
            result.new.append(fresh)
        elif old.status == "resolved":
            # A resolved condition that comes back is a new occurrence: open it again.
            plan.rewrites.append(fresh)
            result.new.append(fresh)
        else:
            kept = replace(
                old,
                severity=draft.severity,
                message=draft.message,
                computation=draft.computation,
                fact_ids=draft.fact_ids,
                record_keys=draft.record_keys,
                why=draft.why,
                next_step=draft.next_step,
                last_seen=max(today, old.last_seen),
            )
            if old.snoozed_until is not None and old.snoozed_until <= today:
                # The snooze is over and the condition still holds: remind the user again.
                kept = replace(kept, status="open", snoozed_until=None)
                result.woken.append(kept)
            if kept != replace(old, last_seen=kept.last_seen):
                plan.rewrites.append(kept)
            elif old.last_seen != kept.last_seen:
                plan.touched.append(aid)
            result.still_open.append(kept)
    failed = set(result.errors)
    result.resolved = [
        replace(a, status="resolved", resolved_on=today)
        for aid, a in sorted(existing.items())
        if aid not in found
        and a.status in ACTIVE
        # A check that failed this time proves nothing: keep its alerts as they are.
        and a.check not in failed
    ]
    return plan


def _deliver(
    store: Store, result: EvaluationResult, sinks: list[Sink], now: dt.datetime | None
) -> None:
    """Deliver a subject's new and woken alerts, and record the delivery on their rows."""
    due = result.new + result.woken
    if due:
        result.delivery_errors = deliver(due, [s for s in sinks if not isinstance(s, Recorder)])
        if sinks:
            addr = result.address
            _update(
                store,
                [addr.tenant, addr.scope, addr.subject],
                [a.id for a in due],
                "delivered_at = ?, delivery_error = ?",
                [
                    now or utc_now(),
                    "; ".join(f"{k}: {v}" for k, v in result.delivery_errors.items()) or None,
                ],
            )


def _update(
    store: Store,
    key: list[str],
    ids: list[str],
    sets: str,
    values: list[Any],
    slot: write_keys.Slot | None = None,
) -> None:
    """One lifecycle update of some alerts and their new digests, in one transaction (with
    a keyed request's step, `slot`, and its answer)."""
    store.backend.alerts.update((key[0], key[1], key[2]), ids, sets, values, slot)


def _fetch(store: Store, addr: Address, ids: list[str]) -> dict[str, Alert]:
    if not ids:
        return {}
    store.backend.alerts.pull(addr)
    rows = store.con.execute(
        f"SELECT {COLUMNS} FROM alerts WHERE {_SUBJECT} AND id IN (SELECT unnest(?::VARCHAR[]))",
        [addr.tenant, addr.scope, addr.subject, ids],
    ).fetchall()
    return {row[0]: from_row(row) for row in rows}


def list_alerts(
    store: Store,
    where: Address | str,
    *,
    statuses: Iterable[str] = ACTIVE,
    today: dt.date | None = None,
    kind: Kind | None = None,
) -> list[Alert]:
    """Alerts of one subject (an Address) or every subject of a tenant (its name).

    With `today`, alerts snoozed until a later day are left out; with `kind`, only the
    risks ("alert") or only what the checks ask the user ("question").
    """
    store.backend.alerts.pull(where)
    return listed(store.con, where, statuses=statuses, today=today, kind=kind)


def get_alert(store: Store, addr: Address, alert_id: str) -> Alert:
    """One alert of a subject; NotFound if that subject has no alert with this id."""
    found = _fetch(store, addr, [alert_id])
    if alert_id not in found:
        raise NotFound(f"subject {addr} has no alert {alert_id!r}")
    return found[alert_id]


def acknowledge(store: Store, addr: Address, alert_id: str, today: dt.date) -> Alert:
    """Mark an open alert of the subject as acknowledged.

    Under an idempotency key (write_keys.py) the change and its answer commit together: a
    retry of the key answers the alert as the first run left it, and changes nothing."""
    return _lifecycle(
        store, addr, alert_id, "status = 'acknowledged', acknowledged_on = ?", [today]
    )


def snooze(store: Store, addr: Address, alert_id: str, until: dt.date, today: dt.date) -> Alert:
    """Hide an alert of the subject from listings until the given day (exclusive of today).

    Idempotent under a key, as `acknowledge`."""
    early = f"snooze date {until} must be after today ({today})" if until <= today else None
    return _lifecycle(store, addr, alert_id, "snoozed_until = ?", [until], early)


def _lifecycle(
    store: Store,
    addr: Address,
    alert_id: str,
    sets: str,
    values: list[Any],
    refused: str | None = None,
) -> Alert:
    """Change one open alert's lifecycle (ack, snooze): the alert as changed; under a key
    whose earlier run did it, the alert as that run answered, nothing changed again.
    `refused`: why the arguments are refused (said once the alert is known to exist)."""
    slot = write_keys.take()
    earlier = write_keys.answered(slot)
    if earlier is not None:
        return _replayed(earlier)
    try:
        alert = get_alert(store, addr, alert_id)
        if refused is not None:
            raise InputError(refused)
        if alert.status == "resolved":
            raise InputError(f"alert {alert_id} is already resolved")
    except BaseException:
        write_keys.rolled_back(slot)  # refused before anything was written
        raise
    key = [addr.tenant, addr.scope, addr.subject]
    _update(store, key, [alert_id], sets, values, slot)
    write_keys.settle(slot)
    return get_alert(store, addr, alert_id)


def _replayed(answer: list[list[Any]]) -> Alert:
    """The alert an earlier run's step answered (its row, dates as ISO text)."""
    row = list(answer[0])
    for i in range(11, 16):  # first_seen .. resolved_on
        row[i] = None if row[i] is None else dt.date.fromisoformat(row[i])
    return from_row(row)
