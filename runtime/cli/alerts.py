"""Commands of checks and alerts: alerts, ack, snooze, check, rule, run-once, schedule."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from uac.fact_log.errors import InputError
from uac.runtime.cli.common import (
    _call,
    _client,
    _err,
    _fields,
    _machine,
    _memory,
    _out,
    _print_alert,
    _print_alerts,
    _print_json,
    _progress,
    _short,
    _table,
    _watching,
)


def _alert_row(a: dict[str, Any]) -> Sequence[Any]:
    return (
        a["severity"],
        a["status"],
        a["subject"],
        a["id"],
        _short(a["message"], 70),
        _short(a.get("next_step") or "", 50),
    )


def cmd_alerts(args: argparse.Namespace) -> int:
    alerts = _call(args, "alerts", args.subject, include_resolved=args.all)
    if _machine(args, alerts):
        return 0
    if not alerts:
        _out("no open alerts")
    else:
        _table(
            [(*_alert_row(a), a["first_seen"]) for a in alerts],
            ("severity", "status", "subject", "id", "message", "next step", "since"),
        )
    return 0


def cmd_questions(args: argparse.Namespace) -> int:
    questions = _call(args, "questions", args.subject, include_resolved=args.all)
    if _machine(args, questions):
        return 0
    if not questions:
        _out("no open questions")
    else:
        for q in questions:
            _out(f"{q['id']} ({q['check']}, since {q['first_seen']}, {q['status']})")
            _out(f"  ask: {q['message'].removeprefix('To confirm: ')}")
            _out(f"  why: {q['why']}")
    return 0


def cmd_acknowledge(args: argparse.Namespace) -> int:
    alert = _call(args, "acknowledge", args.subject, alert_id=args.alert_id)
    if not _machine(args, alert):
        _out(f"{alert['id']}: {alert['status']}")
    return 0


def cmd_snooze(args: argparse.Namespace) -> int:
    alert = _call(args, "snooze", args.subject, alert_id=args.alert_id, until=args.until)
    if not _machine(args, alert):
        _out(f"{alert['id']}: snoozed until {alert['snoozed_until']}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    result = _call(args, "check", args.subject, **_fields(args))
    if args.json:
        _print_json(result)
        return 0
    _out(
        f"{args.subject}: {len(result['checks'])} checks, {len(result['new'])} new, "
        f"{len(result['still_open'])} still open, {len(result['resolved'])} resolved"
        + (PREVIEW if result.get("preview") else "")
    )
    for alert in result["new"]:
        _print_alert(alert)
    for alert in result["woken"]:
        _out(f"snooze ended: {alert['message']} [{alert['id']}]")
    for alert in result["resolved"]:
        _out(f"resolved: {alert['message']} [{alert['id']}]")
    for name, error in sorted(result["errors"].items()):
        _err(f"check {name} failed: {error}")
    return 0


RULE_EXAMPLE = (
    '{"type": "threshold", "collection": "transactions", "filter": {"category": "dining"},'
    ' "field": "amount", "agg": "sum", "window": "calendar_month", "op": ">", "value": "500"}'
)


def cmd_rule(args: argparse.Namespace) -> int:
    try:
        rule = json.loads(args.rule)
    except ValueError as exc:
        raise InputError(f"a rule is a JSON object, e.g. {RULE_EXAMPLE}: {exc}") from None
    rid = _call(args, "rule", args.subject, rule=rule)
    if _machine(args, rid):
        return 0
    _out(f"rule {rid['rule_id']} stored for {args.subject}")
    _print_alerts(rid)
    return 0


# A server keeps the alerts as of its own date: a day far from it is only looked at.
PREVIEW = " (a preview: that day is far from the server's date, so nothing was stored)"


def _job_summary(job: dict[str, Any]) -> str:
    errors = job.get("errors") or {}
    text = (
        f"pass for {job['today']} (tenant {job['tenant']}): {job['subjects']} subjects, "
        f"{job['compiled']} compiled, {job['alerts_new']} new alerts, {job['alerts_open']} open, "
        f"{job['alerts_resolved']} resolved, {len(errors)} errors, "
        f"{job['duration_ms']:.0f} ms" + (PREVIEW if job.get("preview") else "")
    )
    return text + "".join(f"\n  error: {s}: {e}" for s, e in sorted(errors.items()))


def cmd_run_once(args: argparse.Namespace) -> int:
    client = _client(args)
    if client is not None:
        with _watching(args, client, "run-once", None):
            job = _call(args, "run-once", **_fields(args))
    else:
        from uac.runtime.api.verbs import plain

        with _memory(args) as mem, _progress(args, "scheduled pass") as bar:
            job = plain(mem.run_once(today=args.today, progress=bar.report))
    _out(json.dumps(job, sort_keys=True) if args.json else _job_summary(job))
    return 0


def cmd_schedule(args: argparse.Namespace) -> int:
    from uac.checks.scheduler import Every, SchedulerBusy, parse_cron, parse_every, serve
    from uac.runtime.api.verbs import plain

    if _client(args) is not None:
        raise InputError(
            "a server serves this workspace and runs its own scheduler (uac serve --every/--cron)"
        )

    def tick(today: Any) -> str:
        with _memory(args) as mem, _progress(args, "scheduled pass") as bar:
            job = plain(mem.run_once(today=today, progress=bar.report))
        return json.dumps(job, sort_keys=True) if args.json else _job_summary(job)

    try:
        schedule = parse_cron(args.cron) if args.cron else Every(parse_every(args.every))
        serve(args.home, schedule, tick, log=_err)
    except SchedulerBusy as exc:
        _err(f"uac: error: {exc}")
        return 1
    return 0
