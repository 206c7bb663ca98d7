"""The `uac` command line. Every command names its subject; `uac COMMAND --help` explains it."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from uac.checks import Alert, CallbackSink, JsonLinesSink, WebhookSink
from uac.compiler.checkpoint import CompileResult
from uac.fact_log.errors import InputError, NotFound, UacError
from uac.fact_log.shapes import describe
from uac.fact_log.store import Fact, default_home
from uac.fact_log.values import canonical_json
from uac.runtime.api.memory import Learned, Memory

SUBJECT_HELP = "subject: 'alice' (a user), 'user:alice', 'group:NAME' or 'tenant'"


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


def _memory(args: argparse.Namespace, *, create: bool = False, read_only: bool = False) -> Memory:
    # Writes from the command line (and the MCP server's write tools) react: recompile the
    # subject, run its checks, store alerts and show them — on the console except where
    # stdout is a protocol or a report (`uac mcp`, `uac run-once`, `uac schedule`). Those
    # and scheduled passes deliver to --alerts-jsonl and --webhook.
    command = getattr(args, "command", "")
    react = not read_only and command in REACTING
    delivers = not read_only and (react or command in SCHEDULED)
    console = react and command != "mcp"
    sinks: list[Any] = [CallbackSink(_print_alerts, "console")] if console else []
    if delivers and args.alerts_jsonl:
        sinks.append(JsonLinesSink(args.alerts_jsonl))
    if delivers and args.webhook:
        sinks.append(WebhookSink(args.webhook))
    return Memory(
        args.home,
        args.tenant,
        create=create,
        read_only=read_only,
        actor="cli",
        react=react,
        sinks=sinks,
    )


REACTING = {"set", "import", "add", "remember", "note", "forget", "rule", "check", "mcp"}
SCHEDULED = {"run-once", "schedule"}


def _print_alerts(alerts: Sequence[Alert]) -> None:
    for alert in alerts:
        _out(f"ALERT {alert.severity}: {alert.message} [{alert.id}]")
        _out(f"      {alert.computation}")


def _alert_row(alert: Alert) -> Sequence[Any]:
    return (
        alert.severity,
        alert.status,
        str(alert.address),
        alert.id,
        _short(alert.message, 70),
        alert.first_seen.isoformat(),
    )


def cmd_alerts(args: argparse.Namespace) -> int:
    with _memory(args, read_only=True) as mem:
        alerts = mem.alerts(args.subject, include_resolved=args.all)
    if args.json:
        for alert in alerts:
            _out(json.dumps(alert.as_dict(), sort_keys=True, ensure_ascii=False))
    elif not alerts:
        _out("no open alerts")
    else:
        _table(
            [_alert_row(a) for a in alerts],
            ("severity", "status", "subject", "id", "message", "since"),
        )
    return 0


def _alert_subject(mem: Memory, alert_id: str, subject: str | None) -> str:
    if subject is not None:
        return subject
    found = [a for a in mem.alerts(None, include_resolved=True) if a.id == alert_id]
    if not found:
        raise NotFound(f"tenant {mem.tenant!r} has no alert {alert_id!r}")
    return str(found[0].address)


def cmd_ack(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        alert = mem.acknowledge(_alert_subject(mem, args.alert_id, args.subject), args.alert_id)
    _out(f"{alert.id}: {alert.status}")
    return 0


def cmd_snooze(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        subject = _alert_subject(mem, args.alert_id, args.subject)
        alert = mem.snooze(subject, args.alert_id, args.until)
    _out(f"{alert.id}: snoozed until {alert.snoozed_until}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        result = mem.check(args.subject, today=args.today)
    _out(
        f"{args.subject}: {len(result.checks)} checks, {len(result.new)} new, "
        f"{len(result.still_open)} still open, {len(result.resolved)} resolved"
    )
    for alert in result.woken:
        _out(f"snooze ended: {alert.message} [{alert.id}]")
    for alert in result.resolved:
        _out(f"resolved: {alert.message} [{alert.id}]")
    for name, error in sorted(result.errors.items()):
        _err(f"check {name} failed: {error}")
    return 0


def cmd_rule(args: argparse.Namespace) -> int:
    try:
        rule = json.loads(args.rule)
    except ValueError as exc:
        raise InputError(f"a rule is a JSON object, e.g. {RULE_EXAMPLE}: {exc}") from None
    with _memory(args) as mem:
        rid = mem.add_rule(args.subject, rule)
    _out(f"rule {rid} stored for {args.subject}")
    return 0


RULE_EXAMPLE = (
    '{"type": "threshold", "collection": "transactions", "filter": {"category": "dining"},'
    ' "field": "amount", "agg": "sum", "window": "calendar_month", "op": ">", "value": "500"}'
)


def cmd_run_once(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        job = mem.run_once(today=args.today)
    _out(json.dumps(dataclasses.asdict(job), default=str, sort_keys=True))
    return 0


def cmd_schedule(args: argparse.Namespace) -> int:
    from uac.checks.scheduler import Every, SchedulerBusy, parse_cron, parse_every, serve

    def tick(today: Any) -> None:
        with _memory(args) as mem:
            job = mem.run_once(today=today)
        _err(f"run at {time.strftime('%Y-%m-%d %H:%M:%S')}: {job}")

    try:
        schedule = parse_cron(args.cron) if args.cron else Every(parse_every(args.every))
        serve(args.home, schedule, tick, log=_err)
    except SchedulerBusy as exc:
        _err(f"uac: error: {exc}")
        return 1
    return 0


def _json_default(obj: Any) -> Any:
    return json.loads(canonical_json(obj))


def _print_json(obj: Any) -> None:
    _out(json.dumps(obj, default=_json_default, ensure_ascii=False, indent=2, sort_keys=True))


def _short(text: str | None, width: int) -> str:
    text = "" if text is None else text.replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _table(rows: list[Sequence[Any]], header: Sequence[str]) -> None:
    cells = [[str(h) for h in header], *[["" if c is None else str(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for row in cells:
        _out("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


# -- commands ------------------------------------------------------------------------------


def cmd_init(args: argparse.Namespace) -> int:
    with _memory(args, create=True) as mem:
        _out(f"workspace ready at {mem.home} (schema version {mem.store.schema_version})")
    return 0


def cmd_set(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        fact = mem.set(
            args.subject,
            args.path,
            args.value,
            valid_from=args.valid_from,
            valid_to=args.valid_to,
            session_id=args.session,
        )
        _out(f"{fact.id}  {fact.path} = {fact.value_json}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        _err(f"importing {args.file} into {args.subject} {args.collection} ...")
        result = mem.import_file(
            args.subject, args.collection, args.file, format=args.format, session_id=args.session
        )
    what = "catalog collection" if result.known else "new collection (schema inferred)"
    _out(f"imported {result.facts} records into {result.path} ({what}) for {result.subject}")
    if result.schema:
        shown = ", ".join(f"{k}: {describe(v)}" for k, v in result.schema.items())
        _out("inferred schema: " + shown)
    return 0


def _fact_rows(facts: list[Fact], statuses: dict[str, dict[str, Any]]) -> list[Sequence[Any]]:
    return [
        (
            f.seq,
            f.id,
            _status(statuses.get(f.id)),
            "auto" if f.source.startswith("automatic") else "manual",
            f.op,
            f.kind,
            f.path,
            _short(f.record_key, 24),
            _short(f.value_json if f.value_json is not None else f.text, 60),
            f.source,
            f.recorded_at.strftime("%Y-%m-%d %H:%M"),
        )
        for f in facts
    ]


def _status(status: dict[str, Any] | None) -> str:
    # Facts newer than the current checkpoint have no derived status yet.
    if status is None:
        return "pending"
    text = status["status"]
    if status.get("superseded_by"):
        text += f" by {status['superseded_by']}"
    return text


def cmd_facts(args: argparse.Namespace) -> int:
    with _memory(args, read_only=True) as mem:
        facts = mem.facts(args.subject, args.path)
        statuses = mem.statuses(args.subject)
    if args.json:
        _print_json([{**f.as_dict(), "derived": statuses.get(f.id)} for f in facts])
    elif not facts:
        _out(f"no facts for {args.subject}")
    else:
        _table(
            _fact_rows(facts, statuses),
            (
                "seq",
                "id",
                "status",
                "origin",
                "op",
                "kind",
                "path",
                "key",
                "value",
                "source",
                "recorded",
            ),
        )
    return 0


def cmd_inputs(args: argparse.Namespace) -> int:
    with _memory(args, read_only=True) as mem:
        inputs = mem.inputs(args.subject)
    if args.json:
        _print_json([{k: getattr(i, k) for k in i.__slots__} for i in inputs])
    elif not inputs:
        _out(f"no inputs for {args.subject}")
    else:
        _table(
            [
                (
                    i.seq,
                    i.id,
                    i.kind,
                    i.name or "",
                    i.source,
                    _short(i.content, 60),
                    i.observed_at.strftime("%Y-%m-%d %H:%M"),
                )
                for i in inputs
            ],
            ("seq", "id", "kind", "name", "source", "content", "observed"),
        )
    return 0


def cmd_subjects(args: argparse.Namespace) -> int:
    with _memory(args, read_only=True) as mem:
        subjects = mem.subjects()
    if args.json:
        _print_json([{k: getattr(s, k) for k in s.__slots__} for s in subjects])
    elif not subjects:
        _out(f"no subjects in tenant {args.tenant}")
    else:
        _table(
            [
                (
                    s.scope,
                    s.subject,
                    s.facts,
                    s.inputs,
                    s.last_recorded_at.strftime("%Y-%m-%d %H:%M") if s.last_recorded_at else "",
                )
                for s in subjects
            ],
            ("scope", "subject", "facts", "inputs", "last write"),
        )
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        fact = mem.forget(args.subject, args.fact_id, reason=args.reason)
    _out(f"{fact.id}  retracts {args.fact_id} ({fact.path})")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    with _memory(args, read_only=True) as mem:
        report = mem.verify()
    if report.ok:
        _out(f"ok: hash chain verified over {report.checked} facts")
        return 0
    _out(
        f"BROKEN at seq {report.broken_seq} ({report.broken_id}): {report.problem}; "
        f"{report.checked} facts before it verified"
    )
    return 1


def cmd_add(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        if args.command == "remember":
            learned = mem.remember(args.subject, args.text, session_id=args.session)
        else:
            learned = mem.add(
                args.subject, args.text, at=args.at, session_id=args.session, role=args.role
            )
    _print_learned(learned)
    return 0


def _print_learned(learned: Learned) -> None:
    _out(
        f"archived as {learned.input_id}; {len(learned.facts)} fact(s) learned"
        + (
            f", {len(learned.refused)} refused ({', '.join(sorted(set(learned.refused)))})"
            if learned.refused
            else ""
        )
    )
    for fact in learned.facts:
        _out(
            f"  {fact.id}  {fact.kind:<10} {fact.path:<30} "
            f"{_short(fact.value_json if fact.value_json is not None else fact.text, 60)}"
            f"  (confidence {fact.confidence:.2f})"
        )


def cmd_note(args: argparse.Namespace) -> int:
    if (args.file is None) == (not args.template):
        raise InputError("give a FILE.md to ingest, or --template to print a template (not both)")
    if args.template:
        with _memory(args, read_only=True) as mem:
            _out(mem.note_template().rstrip())
        return 0
    with _memory(args) as mem:
        learned = mem.note(args.subject, args.file, note_id=args.id)
    _print_learned(learned)
    return 0


def cmd_prefer(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        fact = mem.prefer(args.subject, args.text, confidence=args.confidence)
    _out(f"{fact.id}  soft preference stored: {fact.text}")
    return 0


def cmd_rejections(args: argparse.Namespace) -> int:
    with _memory(args, read_only=True) as mem:
        rows = mem.rejections(args.subject)
    if args.json:
        _print_json(rows)
    elif not rows:
        _out(f"nothing refused for {args.subject}")
    else:
        _table(
            [
                (
                    r["recorded_at"].strftime("%Y-%m-%d %H:%M"),
                    r["reason"],
                    r["path"] or "",
                    _short(r["detail"], 70),
                    r["input_id"] or "",
                )
                for r in rows
            ],
            ("recorded", "reason", "path", "detail", "input"),
        )
    return 0


def cmd_compile(args: argparse.Namespace) -> int:
    chosen = sum((args.subject is not None, args.all, args.changed))
    if chosen != 1:
        raise InputError("name a SUBJECT, or pass --all or --changed (exactly one)")
    started = time.perf_counter()

    def progress(n: int, total: int, res: CompileResult) -> None:
        if total == 1:
            return
        if total <= 20 or n == total or n % max(1, total // 20) == 0 or res.status == "failed":
            _err(f"[{n}/{total}] {_describe(res)}")

    with _memory(args) as mem:
        results = mem.compile(
            args.subject,
            all=args.all,
            changed=args.changed,
            as_of=args.as_of,
            known_at=args.known_at,
            keep=args.keep,
            progress=progress,
        )
    failed = [r for r in results if r.status == "failed"]
    _out(
        f"compiled {len(results) - len(failed)} subject(s), {len(failed)} failed, "
        f"in {time.perf_counter() - started:.2f} s"
    )
    for res in results if len(results) == 1 else failed:
        _out(_describe(res))
    return 1 if failed else 0


def _describe(res: CompileResult) -> str:
    if res.status == "failed":
        return f"{res.address}: FAILED ({res.error}); the previous checkpoint stays current"
    where = "current" if res.current else "time travel, not made current"
    reused = f", reused {', '.join(res.reused)}" if res.reused else ""
    total = sum(res.timings.values()) * 1000
    return (
        f"{res.address}: v{res.version} ({where}) from {res.facts} facts up to seq {res.watermark}"
        f", {res.diagnostics} diagnostics, {total:.0f} ms{reused} -> {res.directory}"
    )


def cmd_query(args: argparse.Namespace) -> int:
    program = sys.stdin.read() if args.program == "-" else args.program
    with _memory(args, read_only=args.as_of is None) as mem:
        version = None
        if args.as_of is not None:
            (res,) = mem.compile(args.subject, as_of=args.as_of)
            if res.status != "published":
                raise UacError(f"could not compile {args.subject} as of {args.as_of}: {res.error}")
            version = res.version
        elif mem.stale(args.subject):
            _err(f"note: {args.subject} has facts newer than its checkpoint; run 'uac compile'")
        envelope = mem.query(
            args.subject, program, today=args.today, explain=args.explain, version=version
        )
    if args.json:
        _print_json(envelope)
    elif envelope["ok"]:
        result = envelope["result"]
        _out(
            result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, indent=2)
        )
        if args.explain:
            _out(json.dumps(envelope.get("explain"), ensure_ascii=False, indent=2))
    else:
        err = envelope["error"]
        line = f" (line {err['line']})" if err.get("line") else ""
        _err(f"uac: {err['type']}{line}: {err['message']}")
    return 0 if envelope["ok"] else 1


def cmd_search(args: argparse.Namespace) -> int:
    # Searching indexes what is new first, which writes derived tables: open writable.
    with _memory(args) as mem:
        hits = mem.search(
            args.subject, args.text, k=args.k, since=args.since, kind=args.kind, today=args.today
        )
    if args.json:
        _print_json([{k: getattr(h, k) for k in h.__dataclass_fields__} for h in hits])
    elif not hits:
        _out(f"nothing found for {args.text!r}")
    for n, hit in enumerate(hits if not args.json else [], 1):
        flag = "  [not this]" if hit.negative_feedback else ""
        _out(
            f"{n:>2}. {hit.id}  {hit.kind:<5} {hit.date:%Y-%m-%d}  score {hit.score:.4f}"
            f" (bm25 #{hit.bm25_rank or '-'}, vector #{hit.vector_rank or '-'}){flag}"
        )
        _out(f"    {_short(hit.text, 100)}")
    return 0


def cmd_feedback(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        fact = mem.feedback(args.subject, args.item_id, reason=args.reason)
    _out(
        f"{fact.id}  'not this' recorded on {args.item_id}; undo with: uac forget "
        f"{args.subject} {fact.id}"
    )
    return 0


def cmd_context(args: argparse.Namespace) -> int:
    with _memory(args) as mem:
        block = mem.context(args.subject, query=args.query, budget=args.budget, today=args.today)
    _out(block.rstrip())
    return 0


def cmd_manifest(args: argparse.Namespace) -> int:
    with _memory(args, read_only=True) as mem:
        _out(mem.manifest(args.subject).rstrip())
    return 0


def cmd_why(args: argparse.Namespace) -> int:
    with _memory(args, read_only=True) as mem:
        exp = mem.why(args.subject, args.expr)
    _out(f"{exp.expr} = {exp.value!r}   (checkpoint v{exp.version})")
    if not exp.facts:
        _out("  no facts stand behind this value (a catalog default or an empty collection)")
    for title, facts in (("from", exp.facts), ("superseded", exp.superseded)):
        for f in facts:
            status = exp.statuses.get(f.id, {})
            _out(
                f"  {title:<10} {f.id}  seq {f.seq}  {f.source}  {f.recorded_at:%Y-%m-%d %H:%M}  "
                f"[{status.get('status', '?')}/{status.get('decision', '?')}]  "
                f"{_short(f.value_json if f.value_json is not None else f.text, 70)}"
            )
            if f.evidence_json:
                _out(f"             evidence: {_short(f.evidence_json, 90)} (input {f.input_id})")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    with _memory(args, read_only=True) as mem:
        old, new, lines = mem.diff(args.subject, args.v1, args.v2)
    _out(f"{args.subject}: v{old} -> v{new}: {len(lines) or 'no'} change(s)")
    for line in lines:
        _out("  " + line)
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from uac.runtime.api.mcp_server import serve

    with _memory(args) as mem:
        mem.address(args.subject)  # fail before serving if the subject is malformed
        serve(mem, args.subject)
    return 0


def cmd_tools(args: argparse.Namespace) -> int:
    from uac.runtime.api.tools import openai_specs

    _print_json(openai_specs())
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from uac.runtime.examples.demo import run_demo

    return run_demo(args.home if args.home_given else None, fresh=args.fresh, out=_out)


# -- parser --------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for `uac` and all its commands."""
    parser = argparse.ArgumentParser(
        prog="uac",
        description="uac — a typed user-as-code memory for AI agents: an append-only fact log "
        "compiled into typed Python state.",
        epilog=f"The workspace is --home, else $UAC_HOME, else {default_home()}.",
    )
    parser.add_argument(
        "--home",
        type=Path,
        default=None,
        help="workspace directory (default: $UAC_HOME, else ~/.local/share/uac)",
    )
    parser.add_argument("--tenant", default="default", help="tenant name (default: %(default)s)")
    parser.add_argument(
        "--alerts-jsonl",
        help="also append new alerts (from writes and scheduled runs) to this file",
    )
    parser.add_argument(
        "--webhook", help="also POST new alerts (from writes and scheduled runs) to this URL"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def command(
        name: str, func: Callable[[argparse.Namespace], int], help: str
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        p.set_defaults(func=func)
        return p

    command("init", cmd_init, "Create the workspace (or upgrade an older one).")

    p = command(
        "set", cmd_set, "Assert one single-valued attribute, e.g. identity.passport.expiry_date."
    )
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("path", help="catalog attribute path, e.g. identity.passport.expiry_date")
    p.add_argument("value", help="the value (dates as YYYY-MM-DD; lists as JSON)")
    p.add_argument("--valid-from", type=_date_arg, help="when it became true (YYYY-MM-DD[THH:MM])")
    p.add_argument("--valid-to", type=_date_arg, help="when it stops being true")
    p.add_argument("--session", help="conversation/session id to record")

    p = command(
        "import", cmd_import, "Import records (JSON Lines, JSON array or CSV) into a collection."
    )
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("collection", help="catalog collection (travel.trips or trips) or a new name")
    p.add_argument("file", type=Path, help="the file to import")
    p.add_argument(
        "--format",
        choices=("jsonl", "json", "csv"),
        help="file format (default: from the extension)",
    )
    p.add_argument("--session", help="conversation/session id to record")

    p = command("facts", cmd_facts, "List a subject's facts in log order.")
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("--path", help="only facts at this path")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = command("inputs", cmd_inputs, "List a subject's archived raw inputs.")
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("--json", action="store_true", help="print JSON")

    p = command("subjects", cmd_subjects, "List the tenant's subjects with fact and input counts.")
    p.add_argument("--json", action="store_true", help="print JSON")

    p = command(
        "forget",
        cmd_forget,
        "Retract one of a subject's facts (appends a retract; nothing is deleted).",
    )
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("fact_id", help="id of the fact to retract (see 'uac facts')")
    p.add_argument("--reason", help="why it is forgotten")

    p = command(
        "add",
        cmd_add,
        "Learn from one conversation message (only the user's own words make facts).",
    )
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("text", help="the message")
    p.add_argument(
        "--at", type=_date_arg, help="when it was said (default: now); resolves 'tomorrow' etc."
    )
    p.add_argument("--session", help="conversation/session id")
    p.add_argument(
        "--role", choices=("user", "assistant"), default="user", help="who said it (default: user)"
    )

    p = command(
        "remember",
        cmd_add,
        "Remember this, explicitly: high confidence; kept as a note if untyped.",
    )
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("text", help="what to remember")
    p.add_argument("--session", help="conversation/session id")

    p = command("prefer", cmd_prefer, "Store a style wish that fits no preference slot.")
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("text", help='e.g. "give the root cause first, then the steps"')
    p.add_argument("--confidence", type=float, default=1.0, help="0-1 (default: %(default)s)")

    p = command("note", cmd_note, "Ingest a Markdown note (frontmatter, ## Preferences, ## Notes).")
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument(
        "file",
        nargs="?",
        type=Path,
        help="the note (ingesting an edited note replaces the old one)",
    )
    p.add_argument("--id", help="note identity (default: the file name)")
    p.add_argument("--template", action="store_true", help="print a note template from the catalog")

    p = command(
        "rejections", cmd_rejections, "List what the ingestion gate refused for a subject, and why."
    )
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("--json", action="store_true", help="print JSON")

    p = command("alerts", cmd_alerts, "List open alerts of a subject, or of the whole tenant.")
    p.add_argument("subject", nargs="?", help=SUBJECT_HELP + " (default: every subject)")
    p.add_argument("--all", action="store_true", help="include resolved alerts")
    p.add_argument("--json", action="store_true", help="print JSON lines")

    for name, func, text in (
        ("ack", cmd_ack, "Acknowledge an alert."),
        ("snooze", cmd_snooze, "Hide an alert until a date."),
    ):
        p = command(name, func, text)
        p.add_argument("alert_id", help="the alert id (see 'uac alerts')")
        p.add_argument("--subject", help="the alert's subject (default: found in the tenant)")
        if name == "snooze":
            p.add_argument(
                "--until",
                type=lambda s: _date_arg(s).date(),
                required=True,
                help="last day it stays hidden (YYYY-MM-DD)",
            )

    p = command("check", cmd_check, "Compile if needed and run a subject's checks now.")
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("--today", type=lambda s: _date_arg(s).date(), help="the date checks use")

    p = command("rule", cmd_rule, "Store a user rule (threshold, reminder, forbid) as JSON.")
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("rule", help=f"the rule, e.g. {RULE_EXAMPLE}")

    p = command("run-once", cmd_run_once, "One scheduled pass: compile changed, check all, record.")
    p.add_argument("--today", type=lambda s: _date_arg(s).date(), help="the date checks use")

    p = command(
        "schedule", cmd_schedule, "Run scheduled passes on an interval or cron until stopped."
    )
    when = p.add_mutually_exclusive_group(required=True)
    when.add_argument("--every", help="interval, e.g. 10m, 1h, 30s (first pass at once)")
    when.add_argument(
        "--cron",
        help="cron expression in UTC, e.g. '0 * * * *' for hourly (first pass at the next match)",
    )

    p = command("compile", cmd_compile, "Compile the log into typed Python modules (a checkpoint).")
    p.add_argument("subject", nargs="?", help=SUBJECT_HELP)
    p.add_argument("--all", action="store_true", help="compile every subject of the tenant")
    p.add_argument(
        "--changed",
        action="store_true",
        help="compile subjects with facts newer than their checkpoint",
    )
    p.add_argument(
        "--as-of", type=_date_arg, help="fold what was true at this valid time (not made current)"
    )
    p.add_argument(
        "--known-at", type=_date_arg, help="fold only what was recorded by then (not made current)"
    )
    p.add_argument(
        "--keep",
        type=int,
        default=5,
        help="checkpoint versions kept per subject (default: %(default)s)",
    )

    p = command("search", cmd_search, "Search a subject's notes and archived inputs (hybrid).")
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("text", help="what to look for, in any wording")
    p.add_argument("-k", type=int, default=10, help="how many results (default: %(default)s)")
    p.add_argument("--since", type=_date_arg, help="only items from this date on")
    p.add_argument("--kind", choices=("note", "input"), help="only notes or only raw inputs")
    p.add_argument("--today", type=lambda s: _date_arg(s).date(), help="reference date for recency")
    p.add_argument("--json", action="store_true", help="print JSON with the score parts")

    p = command("feedback", cmd_feedback, "Mark a search result 'not this': it ranks lower.")
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("item_id", help="the note or input id from 'uac search'")
    p.add_argument(
        "--not-this", action="store_true", default=True, help="negative feedback (the default)"
    )
    p.add_argument("--reason", help="why it is not relevant")

    p = command("context", cmd_context, "Print the memory block for an agent's system prompt.")
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("--query", help="the current user message: adds the most relevant notes")
    p.add_argument("--budget", type=int, default=800, help="token budget (default: %(default)s)")
    p.add_argument("--today", type=lambda s: _date_arg(s).date(), help="reference date for recency")

    p = command("query", cmd_query, "Answer a question exactly: run Python over the typed state.")
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument(
        "program",
        help="e.g. 'sum(t.cost for t in user.trips if t.depart.year == 2024)'; - reads stdin",
    )
    p.add_argument(
        "--today", type=lambda s: _date_arg(s).date(), help="what 'today' means (default: now, UTC)"
    )
    p.add_argument("--as-of", type=_date_arg, help="query the state as it was at this valid time")
    p.add_argument("--explain", action="store_true", help="also show the records and fact ids read")
    p.add_argument("--json", action="store_true", help="print the whole JSON envelope")

    p = command(
        "manifest", cmd_manifest, "Print the compact manifest of a subject's current checkpoint."
    )
    p.add_argument("subject", help=SUBJECT_HELP)

    p = command(
        "why", cmd_why, "Explain a compiled value: the facts behind it and what they superseded."
    )
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument(
        "expr", help="user.passport.expiry_date, user.trips[0], user.trips['FR|Paris|2025-03-05']"
    )

    p = command("diff", cmd_diff, "Show the typed-state difference between two checkpoints.")
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("v1", nargs="?", type=int, help="older version (default: the one before v2)")
    p.add_argument("v2", nargs="?", type=int, help="newer version (default: current)")

    command("verify", cmd_verify, "Verify the fact log's hash chain; report the first broken link.")

    p = command("mcp", cmd_mcp, "Serve the agent tools for one subject over MCP (stdio).")
    p.add_argument("subject", help=SUBJECT_HELP + "; the only subject the connected agent reaches")

    command("tools", cmd_tools, "Print the OpenAI function-calling schemas of the agent tools.")

    p = command(
        "demo", cmd_demo, "Build a fresh demo workspace for a persona and show what uac holds."
    )
    p.add_argument(
        "--fresh", action="store_true", help="wipe --home first if it already holds a workspace"
    )
    return parser


def _date_arg(text: str) -> Any:
    import datetime as dt

    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date or datetime: {text!r}") from None


def main(argv: Sequence[str] | None = None) -> int:
    """Run `uac` with argv; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.home_given = args.home is not None or bool(os.environ.get("UAC_HOME"))
    if args.home is None:
        args.home = default_home()
    try:
        return args.func(args)
    except UacError as exc:
        _err(f"uac: error: {exc}")
        return 1
    except KeyboardInterrupt:
        _err("uac: interrupted; nothing from the interrupted write was kept")
        return 130


if __name__ == "__main__":
    sys.exit(main())
