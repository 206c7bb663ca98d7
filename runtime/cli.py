"""The `uac` command line: thin commands over the verbs. `uac COMMAND --help` explains each.

Every command that reads or writes a subject runs one verb (`runtime/api/verbs.py`) and
prints its plain-JSON result. Where a server serves the workspace (`uac serve` wrote
`<home>/server.json`, or UAC_URL + UAC_API_KEY are set) the verb is forwarded to it over
HTTP, so commands work while agents are connected; otherwise the CLI opens the workspace
itself. Either way the same printing code reads the same JSON.

Only the standard library is imported at start-up; a forwarded call never loads DuckDB,
the compiler or the sandbox. Global options (--home, --tenant, --json, ...) are accepted
before or after the command.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import uac
from uac.fact_log.addressing import default_home
from uac.fact_log.errors import InputError, UacError, WorkspaceInUse
from uac.runtime import cli_ops

SUBJECT_HELP = "subject: 'alice' (a user), 'user:alice', 'group:NAME' or 'tenant'"
# Verbs a local call can serve from a read-only open (several readers may run together).
READ_ONLY = {"facts", "inputs", "subjects", "verify", "manifest", "why", "diff", "rejections"}
READ_ONLY |= {"alerts", "tenant-alerts", "anchor", "members", "erasures"}
# Writes from the command line react: recompile the subject, run its checks, show alerts.
REACTING = {"set", "import", "add", "remember", "note", "forget", "rule", "check", "mcp"}
REACTING |= {"prefer", "feedback", "member", "promote", "demote", "episode", "confirm"}
SCHEDULED = {"run-once", "schedule"}


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


# -- where a verb runs -------------------------------------------------------------------


def _client(args: argparse.Namespace) -> Any:
    """The server to forward to, or None to work on the workspace in this process."""
    if getattr(args, "_client", False) is not False:
        return args._client
    from uac.runtime.api.client import Client

    args._client = Client.discover(args.home, args.tenant)
    if args._client is not None and (args.alerts_jsonl or args.webhook):
        _err("note: a server serves this workspace; alert sinks are the server's (uac serve)")
    return args._client


def _memory(args: argparse.Namespace, *, create: bool = False, read_only: bool = False) -> Any:
    from uac.checks import JsonLinesSink, WebhookSink
    from uac.runtime.api.memory import Memory

    # A write's result names the alerts it raised (printed by the command); the sinks given
    # on the command line receive them too, and the scheduled passes' alerts.
    command = getattr(args, "command", "")
    react = not read_only and command in REACTING
    delivers = not read_only and (react or command in SCHEDULED)
    sinks: list[Any] = []
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
        log_db=getattr(args, "db", None),
    )


def _call(args: argparse.Namespace, verb: str, subject: str | None = None, **params: Any) -> Any:
    """Run a verb on the server if one serves the workspace, else in this process."""
    client = _client(args)
    if client is not None:
        return client.call(verb, subject, **params)
    from uac.runtime.api import verbs

    with _memory(args, read_only=verb in READ_ONLY) as mem:
        return verbs.run(mem, verb, subject, {k: v for k, v in params.items() if v is not None})


SERVER_START_WAIT = 15.0  # seconds a command waits for a starting `uac serve` to announce itself


def _await_server(args: argparse.Namespace, holder: str) -> bool:
    """Whether a `uac serve` holding the workspace announced itself within SERVER_START_WAIT.

    A starting server opens the workspace before it writes `<home>/server.json`; a command
    run in that window would otherwise fail although it works a moment later.
    """
    if args._client is not None or " serve" not in f" {holder}":
        return False  # not a forwardable command, or the holder is not a server
    from uac.runtime.api.client import Client

    deadline = time.monotonic() + SERVER_START_WAIT
    while time.monotonic() < deadline:
        args._client = Client.discover(args.home, args.tenant)
        if args._client is not None:
            return True
        time.sleep(0.2)
    return False


def _progress(args: argparse.Namespace, label: str, *, quiet: bool = False) -> Any:
    """A progress display on stderr for long work (silenced by --quiet)."""
    from uac.runtime.progress import Progress

    return Progress(label, quiet=quiet or args.quiet, heartbeat=1.0)


@contextlib.contextmanager
def _watching(args: argparse.Namespace, client: Any, kind: str, subject: str | None) -> Any:
    """While a long verb runs on the server, show its progress from /v1/jobs/progress."""
    bar = _progress(args, "importing" if kind == "import" else "scheduled pass")
    if bar.quiet:
        yield
        return
    from uac.fact_log.addressing import parse_subject

    name = str(parse_subject(subject)) if subject else None
    stop = threading.Event()

    def poll() -> None:
        while not stop.wait(0.5):
            try:
                jobs = client.request("GET", "/v1/jobs/progress")
            except Exception:  # progress is a courtesy: the request itself reports errors
                return
            for job in jobs:
                ours = job["kind"] == kind and job["subject"] == name
                ours = ours and client.tenant in (None, job["tenant"])  # the admin sees all
                if ours and job["finished_at"] is None and job["stage"]:
                    bar.report(job["stage"], job["done"], job["total"])

    watcher = threading.Thread(target=poll, name="uac-progress", daemon=True)
    watcher.start()
    finished = False
    try:
        yield
        finished = True
    finally:
        stop.set()
        watcher.join(timeout=5)
        if finished and bar.stage is not None:
            bar.close()
        else:
            bar.abandon()  # failed, or too quick for a first poll: nothing to finish


def _print_alerts(result: Any) -> None:
    """Print the alerts a write raised and cleared (from its result)."""
    if not isinstance(result, dict):
        return
    for alert in result.get("alerts") or []:
        _print_alert(alert)
        _out(f"      {alert['computation']}")
    for alert in result.get("alerts_resolved") or []:
        _out(f"resolved: {alert['message']} [{alert['id']}]")


def _print_alert(alert: dict[str, Any]) -> None:
    """An alert as an agent acts on it: what, why it matters, the suggested next step."""
    _out(f"ALERT {alert['severity']}: {alert['message']} [{alert['id']}]")
    if alert.get("why"):
        _out(f"      why: {alert['why']}")
    if alert.get("next_step"):
        _out(f"      next: {alert['next_step']}")


# -- printing --------------------------------------------------------------------------------


def _print_json(obj: Any) -> None:
    _out(json.dumps(obj, ensure_ascii=False, indent=2, sort_keys=True, default=str))


def _short(text: Any, width: int) -> str:
    text = "" if text is None else str(text).replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _when(iso: str | None) -> str:
    return "" if not iso else iso[:16].replace("T", " ")


def _table(rows: list[Sequence[Any]], header: Sequence[str]) -> None:
    cells = [[str(h) for h in header], *[["" if c is None else str(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    for row in cells:
        _out("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def _value(fact: dict[str, Any]) -> str:
    value = fact.get("value")
    if value is None:
        return fact.get("text") or ""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _status(status: dict[str, Any] | None) -> str:
    # Facts newer than the current checkpoint have no derived status yet.
    if status is None:
        return "pending"
    text = status["status"]
    if status.get("superseded_by"):
        text += f" by {status['superseded_by']}"
    return text


def _print_learned(learned: dict[str, Any]) -> None:
    refused = learned.get("refused") or []
    _out(
        f"archived as {learned['input_id']}; {len(learned['facts'])} fact(s) learned"
        + (f", {len(refused)} refused ({', '.join(sorted(set(refused)))})" if refused else "")
    )
    for fact in learned["facts"]:
        _out(
            f"  {fact['id']}  {fact['kind']:<10} {fact['path']:<30} {_short(_value(fact), 60)}"
            f"  (confidence {fact['confidence']:.2f})"
        )
    _print_alerts(learned)


def _describe(res: dict[str, Any]) -> str:
    if res["status"] == "failed":
        return f"{res['address']}: FAILED ({res['error']}); the previous checkpoint stays current"
    where = "current" if res["current"] else "time travel, not made current"
    reused = f", reused {', '.join(res['reused'])}" if res.get("reused") else ""
    total = sum(res.get("timings", {}).values()) * 1000
    return (
        f"{res['address']}: v{res['version']} ({where}) from {res['facts']} facts up to seq "
        f"{res['watermark']}, {res['diagnostics']} diagnostics, {total:.0f} ms{reused}"
        f" -> {res['directory']}"
    )


def _read_text(args: argparse.Namespace) -> str:
    """The message: the TEXT argument, `-` for stdin, or --file."""
    if args.file is not None:
        if args.text is not None:
            raise InputError("give the message as TEXT or with --file, not both")
        try:
            return Path(args.file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{args.file}: cannot read the message ({exc})") from None
    if args.text is None:
        raise InputError("give the message as TEXT, '-' to read stdin, or --file FILE")
    return sys.stdin.read() if args.text == "-" else args.text


# -- commands --------------------------------------------------------------------------------


def cmd_init(args: argparse.Namespace) -> int:
    if _client(args) is not None:
        _out(f"workspace {args.home} is served by {_client(args).url}; nothing to do")
        return 0
    with _memory(args, create=True) as mem:
        _out(f"workspace ready at {mem.home} (schema version {mem.store.schema_version})")
        if mem.store.replica is not None:
            _out(f"its fact log is the PostgreSQL database {mem.store.replica.log.where}")
    return 0


def cmd_set(args: argparse.Namespace) -> int:
    fact = _call(
        args,
        "set",
        args.subject,
        path=args.path,
        value=args.value,
        valid_from=args.valid_from,
        valid_to=args.valid_to,
        session=args.session,
    )
    if args.json:
        _print_json(fact)
    else:
        _out(f"{fact['id']}  {fact['path']} = {_value(fact)}")
        _print_alerts(fact)
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    _err(f"importing {args.file} into {args.subject} {args.collection} ...")
    client = _client(args)
    if client is not None:
        with _watching(args, client, "import", args.subject):
            result = client.import_file(
                args.subject, args.collection, args.file, format=args.format, session=args.session
            )
    else:
        from uac.runtime.api.verbs import plain, with_alerts

        with _memory(args) as mem, _progress(args, "importing") as bar:
            before = mem.last_evaluation
            result = plain(
                mem.import_file(
                    args.subject,
                    args.collection,
                    args.file,
                    format=args.format,
                    session_id=args.session,
                    progress=bar.report,
                )
            )
            result = with_alerts(mem, before, result)
    if args.json:
        _print_json(result)
        return 0
    what = "catalog collection" if result["known"] else "new collection (schema inferred)"
    _out(
        f"imported {result['facts']} records into {result['path']} ({what}) for {result['subject']}"
    )
    if result.get("schema"):
        from uac.fact_log.shapes import describe

        shown = ", ".join(f"{k}: {describe(v)}" for k, v in result["schema"].items())
        _out("inferred schema: " + shown)
    _print_alerts(result)
    return 0


def cmd_facts(args: argparse.Namespace) -> int:
    facts = _call(args, "facts", args.subject, path=args.path)
    if args.json:
        _print_json(facts)
    elif not facts:
        _out(f"no facts for {args.subject}; add some with: uac add {args.subject} TEXT")
    else:
        _table(
            [
                (
                    f["seq"],
                    f["id"],
                    _status(f.get("derived")),
                    "auto" if f["source"].startswith("automatic") else "manual",
                    f["op"],
                    f["kind"],
                    f["path"],
                    _short(f["record_key"], 24),
                    _short(_value(f), 60),
                    f["source"],
                    _when(f["recorded_at"]),
                )
                for f in facts
            ],
            ("seq", "id", "status", "origin", "op", "kind", "path", "key", "value", "source", "at"),
        )
    return 0


def cmd_inputs(args: argparse.Namespace) -> int:
    inputs = _call(args, "inputs", args.subject, show=args.show or None)
    if args.json:
        _print_json(inputs)
    elif not inputs:
        _out(f"no inputs for {args.subject}")
    else:
        _table(
            [
                (
                    i["seq"],
                    i["id"],
                    i["kind"],
                    i["name"] or "",
                    i["source"],
                    _short(i["content"], 60),
                    _when(i["observed_at"]),
                )
                for i in inputs
            ],
            ("seq", "id", "kind", "name", "source", "content", "observed"),
        )
    return 0


def cmd_subjects(args: argparse.Namespace) -> int:
    subjects = _call(args, "subjects")
    if args.json:
        _print_json(subjects)
    elif not subjects:
        _out(f"no subjects in tenant {args.tenant}; start with: uac add alice 'some text'")
    else:
        _table(
            [
                (s["scope"], s["subject"], s["facts"], s["inputs"], _when(s["last_recorded_at"]))
                for s in subjects
            ],
            ("scope", "subject", "facts", "inputs", "last write"),
        )
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    fact = _call(args, "forget", args.subject, fact_id=args.fact_id, reason=args.reason)
    _out(f"{fact['id']}  retracts {args.fact_id} ({fact['path']})")
    _print_alerts(fact)
    return 0


def cmd_member(args: argparse.Namespace) -> int:
    if args.action == "list":
        rows = _call(args, "members", args.subject, at=args.at)
        if args.json:
            _print_json(rows)
            return 0
        _table(
            [
                (r["group"], r["user"], _when(r["valid_from"]), _when(r["valid_to"]), r["fact_id"])
                for r in rows
            ],
            ("group", "user", "from", "to", "fact"),
        )
        return 0
    if args.user is None:
        raise InputError(f"name the user: uac member {args.action} {args.subject} alice")
    if args.action == "add":
        fact = _call(
            args,
            "member-add",
            args.subject,
            user=args.user,
            valid_from=args.from_,
            valid_to=args.to,
        )
    else:
        fact = _call(args, "member-remove", args.subject, user=args.user, at=args.at)
    verb = "joins" if args.action == "add" else "leaves"
    _out(f"{fact['id']}  {args.user} {verb} {args.subject}")
    _print_alerts(fact)
    return 0


def cmd_erase(args: argparse.Namespace) -> int:
    params = {"fact_ids": args.fact or None, "all": args.all or None, "reason": args.reason}
    client = _client(args)
    if client is not None:
        report = client.call("erase", args.subject, **params)
    else:
        from uac.runtime.api.memory import Memory

        bar = _progress(args, "erasing", quiet=args.json)
        with Memory(args.home, args.tenant, actor="cli", react=False) as mem:
            report = mem.erase(
                args.subject,
                args.fact,
                all=args.all,
                reason=args.reason,
                progress=bar.report,
            )
        bar.close()  # only after a finished erase: a refused one printed no progress
    if args.json:
        _print_json(report)
        return 0
    where = report["where"]
    _out(f"erased {report['subject']} ({report['what']}): report {report['id']}")
    _out(f"  by {report['by']} at {_when(report['at'])}; reason: {report['reason']}")
    _out("  " + ", ".join(f"{k} {v}" for k, v in where.items()))
    version = report.get("checkpoint")
    _out(f"  checkpoint: {'v' + str(version) if version else 'none'} (older versions deleted)")
    _out(f"  verify: {'ok' if report.get('verified') else 'FAILED (run uac verify)'}")
    return 0


def cmd_erasures(args: argparse.Namespace) -> int:
    reports = _call(args, "erasures", args.subject)
    if args.json:
        _print_json(reports)
        return 0
    rows = [
        (r["id"], _when(r["at"]), r["by"], r["what"], r["where"]["facts"], _short(r["reason"], 40))
        for r in reports
    ]
    _table(rows, ("report", "at", "by", "what", "facts", "reason"))
    return 0


def cmd_gc(args: argparse.Namespace) -> int:
    out = _call(args, "gc", keep=args.keep, older_than_days=args.older_than)
    if args.json:
        _print_json(out)
    else:
        _out("gc: dropped " + ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in out.items()))
    return 0


def cmd_episode(args: argparse.Namespace) -> int:
    fact = _call(
        args,
        "episode",
        args.subject,
        problem=args.problem,
        tried=args.tried or None,
        worked=args.worked,
        failed=args.failed or None,
        date=args.date,
    )
    _out(f"{fact['id']}  episode: {fact['value']['problem']}")
    _print_alerts(fact)
    return 0


def cmd_promote(args: argparse.Namespace) -> int:
    params: dict[str, Any] = {"fact_id": args.fact_id, "group": args.group}
    if args.command == "demote":
        params["reason"] = args.reason
    fact = _call(args, args.command, args.subject, **params)
    done = "promoted to" if args.command == "promote" else "withdrawn from"
    _out(f"{fact['id']}  {args.fact_id} {done} {args.group} by {args.subject}")
    _print_alerts(fact)
    return 0


def cmd_confirm(args: argparse.Namespace) -> int:
    fact = _call(args, "confirm", args.subject, path=args.path)
    _out(f"{fact['id']}  confirmed {fact['path']} = {json.dumps(fact['value'])}")
    _print_alerts(fact)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    anchor = None
    if args.anchor is not None:
        try:
            anchor = json.loads(Path(args.anchor).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"cannot read the anchor file {args.anchor}: {exc}") from None
        if isinstance(anchor, list):  # `uac anchor export --all`: check the newest
            anchor = anchor[-1] if anchor else None
        if not isinstance(anchor, dict | None):
            raise InputError(f"the anchor file {args.anchor} does not hold an exported anchor")
    report = _call(args, "verify", anchor=anchor)
    if args.json:
        _print_json(report)
        return 0 if report["ok"] else 1
    if report["ok"]:
        _out(
            f"ok: hash chain verified over {report['checked']} facts; "
            "keyed digests and anchors verified"
        )
        return 0
    if report["problem"] is not None:
        _out(
            f"BROKEN at seq {report['broken_seq']} ({report['broken_id']}): {report['problem']}; "
            f"{report['checked']} facts before it verified"
        )
    else:
        _out(f"chain: hash chain verified over {report['checked']} facts")
    for problem in report.get("problems") or []:
        _out(f"BROKEN: {problem}")
    return 1


def cmd_anchor(args: argparse.Namespace) -> int:
    anchors = _call(args, "anchor", all=args.all or None)
    _print_json(anchors if args.all else (anchors[0] if anchors else None))
    return 0


def cmd_rotate_chain_key(args: argparse.Namespace) -> int:
    from uac.fact_log.keys import KeyRing, key_path

    ring = KeyRing.load(Path(args.home))
    if ring is None:
        raise InputError(f"no chain key file at {key_path(Path(args.home))}; run 'uac init' first")
    ring = ring.rotated()
    _out(f"chain key rotated: new rows are signed with {ring.current} ({ring.path});")
    _out("older keys stay in the file to verify older rows; a running uac serve picks it up")
    _out("when restarted")
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    text = _read_text(args)
    if args.command == "remember":
        learned = _call(args, "remember", args.subject, text=text, session=args.session)
    else:
        learned = _call(
            args, "add", args.subject, text=text, at=args.at, session=args.session, role=args.role
        )
    if args.json:
        _print_json(learned)
    else:
        _print_learned(learned)
    return 0


def cmd_note(args: argparse.Namespace) -> int:
    if (args.file is None) == (not args.template):
        raise InputError("give a FILE.md to ingest, or --template to print a template (not both)")
    if args.template:
        from uac.fact_log.catalog import WORKSPACE_CATALOG, Catalog
        from uac.fact_log.extraction.markdown import note_template

        _out(note_template(Catalog.load(args.home / WORKSPACE_CATALOG)).rstrip())
        return 0
    try:
        content = Path(args.file).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{args.file}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{args.file}: cannot read a UTF-8 Markdown note ({exc})") from None
    learned = _call(
        args, "note", args.subject, content=content, note_id=args.id or Path(args.file).name
    )
    _print_learned(learned)
    return 0


def cmd_prefer(args: argparse.Namespace) -> int:
    fact = _call(args, "prefer", args.subject, text=args.text, confidence=args.confidence)
    _out(f"{fact['id']}  soft preference stored: {fact['text']}")
    return 0


def cmd_rejections(args: argparse.Namespace) -> int:
    rows = _call(args, "rejections", args.subject, show=args.show or None)
    if args.json:
        _print_json(rows)
    elif not rows:
        _out(f"nothing refused for {args.subject}")
    else:
        _table(
            [
                (
                    _when(r["recorded_at"]),
                    r["reason"],
                    r["path"] or "",
                    _short(r["detail"], 70),
                    r["input_id"] or "",
                )
                for r in rows
            ],
            ("recorded", "reason", "path", "detail", "input"),
        )
        if args.show:
            # The operator's view of quarantined inputs: masked text, one line each.
            seen: set[str] = set()
            for r in rows:
                if r.get("excerpt") and r["input_id"] not in seen:
                    seen.add(r["input_id"])
                    _out(f"quarantined {r['input_id']}: {r['excerpt']}")
    return 0


def cmd_compile(args: argparse.Namespace) -> int:
    chosen = sum((args.subject is not None, args.all, args.changed))
    if chosen != 1:
        raise InputError("name a SUBJECT, or pass --all or --changed (exactly one)")
    started = time.perf_counter()
    client = _client(args)
    if args.subject is not None and client is not None:
        results = client.compile(args.subject, as_of=args.as_of, known_at=args.known_at)
    elif client is not None:
        raise InputError(
            "compile --all/--changed runs in the server's scheduler while a server serves this "
            "workspace; stop the server to compile everything from here"
        )
    else:
        from uac.runtime.api.verbs import plain

        bar = _progress(args, "compiling", quiet=args.subject is not None)

        def progress(n: int, total: int, res: Any) -> None:
            # In a log: a line per subject, at most ~20 (and every failure); on a terminal: the bar.
            if (
                not bar.quiet
                and total > 1
                and (
                    res.status == "failed"
                    or (not bar.tty and (total <= 20 or n == total or n % max(1, total // 20) == 0))
                )
            ):
                _err(("\n" if bar.tty else "") + f"[{n}/{total}] {_describe(plain(res))}")
            bar.update(n, total)

        with _memory(args) as mem, bar:
            results = plain(
                mem.compile(
                    args.subject,
                    all=args.all,
                    changed=args.changed,
                    as_of=args.as_of,
                    known_at=args.known_at,
                    keep=args.keep,
                    progress=progress,
                )
            )
    failed = [r for r in results if r["status"] == "failed"]
    if args.json:
        _print_json(results)
        return 1 if failed else 0
    _out(
        f"compiled {len(results) - len(failed)} subject(s), {len(failed)} failed, "
        f"in {time.perf_counter() - started:.2f} s"
    )
    for res in results if len(results) == 1 else failed:
        _out(_describe(res))
    return 1 if failed else 0


def _query_here(args: argparse.Namespace, program: str) -> dict[str, Any] | None:
    """A query on a compiled, up-to-date subject in this process, without loading `Memory`.

    The one-shot path of `uac query` needs only the checkpoint on disk, a read-only look at
    the log through DuckDB alone (is the subject compiled up to its last fact?) and the
    sandbox, and starts the zygote before that look so the two overlap. None means "take
    the full verb" (a server serves the workspace, the subject needs compiling, anything
    unusual): that path then compiles, or reports the error the user should see.
    """
    if _client(args) is not None or len(program) > 20_000:
        return None
    import duckdb

    from uac.compiler import loader
    from uac.fact_log import duck
    from uac.fact_log.addressing import default_home, parse_subject
    from uac.runtime import sandbox

    try:
        home = Path(args.home).expanduser() if args.home is not None else default_home()
        addr = parse_subject(args.subject, args.tenant)
        _, directory = loader.version_dir(home, addr)
        sandbox.prestart(directory, reuse=False)  # one query: no worker to keep
        con = duck.connect(home / "uac.duckdb", read_only=True)
        try:
            if duck.is_changed(con, addr.tenant, addr.scope, addr.subject):
                return None
        finally:
            con.close()
    except (UacError, duckdb.Error):
        return None
    today = args.today or dt.datetime.now(dt.UTC).date()
    return sandbox.run_query(directory, program, today=today, explain=args.explain)


def cmd_query(args: argparse.Namespace) -> int:
    program = sys.stdin.read() if args.program == "-" else args.program
    version = None
    if args.as_of is not None:
        (res,) = _call(args, "compile", args.subject, as_of=args.as_of)
        if res["status"] != "published":
            raise UacError(f"could not compile {args.subject} as of {args.as_of}: {res['error']}")
        version = res["version"]
    envelope = None if version is not None else _query_here(args, program)
    if envelope is None:
        envelope = _call(
            args,
            "query",
            args.subject,
            program=program,
            today=args.today,
            explain=args.explain,
            version=version,
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
    hits = _call(
        args,
        "search",
        args.subject,
        text=args.text,
        k=args.k,
        since=args.since,
        kind=args.kind,
        today=args.today,
    )
    if args.json:
        _print_json(hits)
        return 0
    if not hits:
        _out(f"nothing found for {args.text!r}")
    for n, hit in enumerate(hits, 1):
        flag = "  [not this]" if hit.get("negative_feedback") else ""
        _out(
            f"{n:>2}. {hit['id']}  {hit['kind']:<5} {hit['date'][:10]}  score {hit['score']:.4f}"
            f" (bm25 #{hit.get('bm25_rank') or '-'}, vector #{hit.get('vector_rank') or '-'})"
            f"{flag}"
        )
        _out(f"    {_short(hit['text'], 100)}")
    return 0


def cmd_feedback(args: argparse.Namespace) -> int:
    fact = _call(args, "feedback", args.subject, item_id=args.item_id, reason=args.reason)
    _out(
        f"{fact['id']}  'not this' recorded on {args.item_id}; undo with: uac forget "
        f"{args.subject} {fact['id']}"
    )
    return 0


def cmd_context(args: argparse.Namespace) -> int:
    block = _call(
        args, "context", args.subject, query=args.query, budget=args.budget, today=args.today
    )
    _out(block["context"].rstrip())
    return 0


def cmd_manifest(args: argparse.Namespace) -> int:
    _out(_call(args, "manifest", args.subject)["manifest"].rstrip())
    return 0


def cmd_why(args: argparse.Namespace) -> int:
    exp = _call(args, "why", args.subject, expr=args.expr)
    if args.json:
        _print_json(exp)
        return 0
    _out(f"{exp['expr']} = {exp['value']!r}   (checkpoint v{exp['version']})")
    if not exp["facts"]:
        _out("  no facts stand behind this value (a catalog default or an empty collection)")
    for title in ("facts", "superseded"):
        for f in exp[title]:
            status = exp["statuses"].get(f["id"], {})
            scope = exp.get("scopes", {}).get(f["id"], "")
            if scope and not scope.startswith("user:"):
                _out(f"  inherited from {scope}:")
            _out(
                f"  {'from' if title == 'facts' else title:<10} {f['id']}  seq {f['seq']}  "
                f"{f['source']}  {_when(f['recorded_at'])}  "
                f"[{status.get('status', '?')}/{status.get('decision', '?')}]  "
                f"{_short(_value(f), 70)}"
            )
            if f.get("evidence"):
                evidence = json.dumps(f["evidence"], ensure_ascii=False, sort_keys=True)
                _out(f"             evidence: {_short(evidence, 90)} (input {f['input_id']})")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    out = _call(args, "diff", args.subject, v1=args.v1, v2=args.v2)
    lines = out["changes"]
    _out(f"{args.subject}: v{out['old']} -> v{out['new']}: {len(lines) or 'no'} change(s)")
    for line in lines:
        _out("  " + line)
    return 0


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
    verb = "alerts" if args.subject else "tenant-alerts"
    alerts = _call(args, verb, args.subject, include_resolved=args.all)
    if args.json:
        for alert in alerts:
            _out(json.dumps(alert, sort_keys=True, ensure_ascii=False))
    elif not alerts:
        _out("no open alerts")
    else:
        _table(
            [(*_alert_row(a), a["first_seen"]) for a in alerts],
            ("severity", "status", "subject", "id", "message", "next step", "since"),
        )
    return 0


def cmd_ack(args: argparse.Namespace) -> int:
    verb = "ack" if args.subject else "tenant-ack"
    alert = _call(args, verb, args.subject, alert_id=args.alert_id)
    _out(f"{alert['id']}: {alert['status']}")
    return 0


def cmd_snooze(args: argparse.Namespace) -> int:
    verb = "snooze" if args.subject else "tenant-snooze"
    alert = _call(args, verb, args.subject, alert_id=args.alert_id, until=args.until)
    _out(f"{alert['id']}: snoozed until {alert['snoozed_until']}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    result = _call(args, "check", args.subject, today=args.today)
    if args.json:
        _print_json(result)
        return 0
    _out(
        f"{args.subject}: {len(result['checks'])} checks, {len(result['new'])} new, "
        f"{len(result['still_open'])} still open, {len(result['resolved'])} resolved"
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
    _out(f"rule {rid['rule_id']} stored for {args.subject}")
    _print_alerts(rid)
    return 0


def _job_summary(job: dict[str, Any]) -> str:
    errors = job.get("errors") or {}
    text = (
        f"pass for {job['today']} (tenant {job['tenant']}): {job['subjects']} subjects, "
        f"{job['compiled']} compiled, {job['alerts_new']} new alerts, {job['alerts_open']} open, "
        f"{job['alerts_resolved']} resolved, {len(errors)} errors, "
        f"{job['duration_ms']:.0f} ms"
    )
    return text + "".join(f"\n  error: {s}: {e}" for s, e in sorted(errors.items()))


def cmd_run_once(args: argparse.Namespace) -> int:
    client = _client(args)
    if client is not None:
        with _watching(args, client, "run-once", None):
            job = _call(args, "run-once", today=args.today)
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


def cmd_mcp(args: argparse.Namespace) -> int:
    client = _client(args)
    if client is not None:
        from uac.runtime.api.mcp_server import serve_tools

        def run_tool(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            return client.call("tool", args.subject, name=name, arguments=arguments)

        serve_tools(run_tool, args.subject)
        return 0
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


def cmd_serve(args: argparse.Namespace) -> int:
    from uac.checks.scheduler import Every, parse_cron, parse_every
    from uac.runtime.api.server import ServeOptions, run

    schedule = None
    if args.cron:
        schedule = parse_cron(args.cron)
    elif args.every:
        schedule = Every(parse_every(args.every))
    if args.host not in ("127.0.0.1", "localhost", "::1") and not args.public:
        raise InputError(
            f"refusing to listen on {args.host}: uac serve binds to 127.0.0.1 unless you pass "
            "--public (and put TLS in front of it)"
        )
    options = ServeOptions(
        webhooks=[args.webhook] if args.webhook else [],
        alerts_jsonl=args.alerts_jsonl,
        schedule=schedule,
    )
    _err(f"uac serve: workspace {args.home}, http://{args.host}:{args.port} (Ctrl-C to stop)")
    return run(args.home, host=args.host, port=args.port, options=options)


def cmd_keys(args: argparse.Namespace) -> int:
    if args.action == "rotate-chain":
        return cmd_rotate_chain_key(args)
    client = _client(args)
    if args.action == "create":
        if not args.tenant_given:
            raise InputError("name the key's tenant: uac keys create --tenant T [--subject S]")
        body = {
            "tenant": args.tenant,
            "subject": args.subject,
            "read_only": args.read_only,
            "label": args.label,
        }
        if client is not None:
            made = client.request("POST", "/v1/admin/keys", body)
        else:
            from uac.runtime.api import keys

            with _memory(args) as mem:
                key_id, token = keys.create(
                    mem.store,
                    args.tenant,
                    args.subject,
                    read_only=args.read_only,
                    label=args.label,
                )
            made = {"id": key_id, "token": token}
        scope = f"tenant {args.tenant}" + (f", subject {args.subject}" if args.subject else "")
        _err(f"key {made['id']} for {scope}{' (read-only)' if args.read_only else ''}:")
        _out(made["token"])
        _err("store it now: it is not kept and cannot be shown again")
        return 0
    if args.action == "revoke":
        if not args.key_id:
            raise InputError("name the key to revoke: uac keys revoke KEY_ID")
        if client is not None:
            client.request("POST", f"/v1/admin/keys/{args.key_id}/revoke", {})
        else:
            from uac.runtime.api import keys

            with _memory(args) as mem:
                keys.revoke(mem.store, args.key_id)
        _out(f"key {args.key_id} revoked")
        return 0
    if client is not None:
        rows = client.request("POST", "/v1/admin/keys/list", {})
    else:
        from uac.runtime.api import keys
        from uac.runtime.api.verbs import plain

        with _memory(args) as mem:
            rows = plain(keys.listing(mem.store))
    if args.json:
        _print_json(rows)
    elif not rows:
        _out("no API keys; create one with: uac keys create --tenant T")
    else:
        _table(
            [
                (
                    r["id"],
                    r["tenant"],
                    r["subject"] or "*",
                    "read-only" if r["read_only"] else "read-write",
                    _when(r["created_at"]),
                    "revoked " + _when(r["revoked_at"]) if r["revoked_at"] else "active",
                    r["label"] or "",
                )
                for r in rows
            ],
            ("id", "tenant", "subject", "access", "created", "state", "label"),
        )
    return 0


# -- parser --------------------------------------------------------------------------------


def _date_arg(text: str) -> dt.datetime:
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date or datetime: {text!r}") from None


def _day_arg(text: str) -> dt.date:
    return _date_arg(text).date()


def _global_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    # On subcommands the defaults are SUPPRESS so a value given before the command survives.
    def default(value: Any) -> Any:
        return value if top else argparse.SUPPRESS

    parser.add_argument(
        "--home",
        type=Path,
        default=default(None),
        help="workspace directory (default: $UAC_HOME, else ~/.local/share/uac)",
    )
    parser.add_argument("--tenant", default=default(None), help="tenant name (default: default)")
    parser.add_argument(
        "--alerts-jsonl",
        default=default(None),
        help="also append new alerts (from writes and scheduled runs) to this file",
    )
    parser.add_argument(
        "--webhook",
        default=default(None),
        help="also POST new alerts (from writes and scheduled runs) to this URL",
    )
    parser.add_argument(
        "--json", action="store_true", default=default(False), help="print JSON (machines)"
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        default=default(False),
        help="no progress on stderr (long work: import, compile --all, run-once, schedule)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for `uac` and all its commands."""
    parser = argparse.ArgumentParser(
        prog="uac",
        description="uac — a typed user-as-code memory for AI agents: an append-only fact log "
        "compiled into typed Python state.",
        epilog="The workspace is --home, else $UAC_HOME, else ~/.local/share/uac. When "
        "`uac serve` serves it (or UAC_URL and UAC_API_KEY are set), commands are forwarded "
        "to the server.",
    )
    parser.add_argument("--version", action="version", version=f"uac {uac.__version__}")
    _global_options(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def command(
        name: str, func: Callable[[argparse.Namespace], int], help: str
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        _global_options(p, top=False)
        p.set_defaults(func=func)
        return p

    def subject(p: argparse.ArgumentParser, extra: str = "") -> None:
        p.add_argument("subject", help=SUBJECT_HELP + extra)

    p = command("init", cmd_init, "Create the workspace (or upgrade an older one).")
    p.add_argument(
        "--db",
        metavar="URL",
        help="keep the fact log in PostgreSQL (postgresql://USER@HOST:PORT/DB; or UAC_DB); "
        "the workspace keeps keys and a local copy",
    )

    p = command(
        "set", cmd_set, "Assert one single-valued attribute, e.g. identity.passport.expiry_date."
    )
    subject(p)
    p.add_argument("path", help="catalog attribute path, e.g. identity.passport.expiry_date")
    p.add_argument("value", help="the value (dates as YYYY-MM-DD; lists as JSON)")
    p.add_argument("--valid-from", type=_date_arg, help="when it became true (YYYY-MM-DD[THH:MM])")
    p.add_argument("--valid-to", type=_date_arg, help="when it stops being true")
    p.add_argument("--session", help="conversation/session id to record")

    p = command(
        "import", cmd_import, "Import records (JSON Lines, JSON array or CSV) into a collection."
    )
    subject(p)
    p.add_argument("collection", help="catalog collection (travel.trips or trips) or a new name")
    p.add_argument("file", type=Path, help="the file to import")
    p.add_argument(
        "--format",
        choices=("jsonl", "json", "csv"),
        help="file format (default: from the extension)",
    )
    p.add_argument("--session", help="conversation/session id to record")

    p = command("facts", cmd_facts, "List a subject's facts in log order.")
    subject(p)
    p.add_argument("--path", help="only facts at this path")

    p = command("inputs", cmd_inputs, "List a subject's archived raw inputs.")
    subject(p)
    p.add_argument("--show", action="store_true", help="show quarantined inputs' (masked) text too")

    command("subjects", cmd_subjects, "List the tenant's subjects with fact and input counts.")

    p = command(
        "forget",
        cmd_forget,
        "Retract one of a subject's facts (appends a retract; nothing is deleted).",
    )
    subject(p)
    p.add_argument("fact_id", help="id of the fact to retract (see 'uac facts')")
    p.add_argument("--reason", help="why it is forgotten")

    p = command(
        "member", cmd_member, "Add a user to a group, remove them, or list members (or groups)."
    )
    p.add_argument("action", choices=("add", "remove", "list"), help="what to do")
    p.add_argument("subject", help="the group (group:NAME); for list, a group or a user")
    p.add_argument("user", nargs="?", help="the member to add or remove (a user)")
    p.add_argument("--from", dest="from_", type=_date_arg, help="membership starts (valid time)")
    p.add_argument("--to", type=_date_arg, help="membership ends (valid time)")
    p.add_argument("--at", type=_date_arg, help="remove: when it ends; list: the moment")

    for name, text in (
        ("promote", "Share one of a user's facts with a group it belongs to (recorded)."),
        ("demote", "Withdraw a fact the user promoted to a group."),
    ):
        p = command(name, cmd_promote, text)
        subject(p)
        p.add_argument("fact_id", help="the user's fact (or, for demote, the group's copy)")
        p.add_argument("group", help="the group, e.g. group:family")
        if name == "demote":
            p.add_argument("--reason", help="why it is withdrawn")

    p = command(
        "erase",
        cmd_erase,
        "Legal erase: blank facts' content everywhere (hashes kept, chain still verifies) "
        "and write an erasure report.",
    )
    subject(p)
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument("--fact", action="append", metavar="ID", help="a fact to erase (repeat)")
    which.add_argument("--all", action="store_true", help="erase everything of the subject")
    p.add_argument("--reason", required=True, help="why (kept in the report)")

    p = command("episode", cmd_episode, "Record episodes: past problems and what fixed them.")
    ep = p.add_subparsers(dest="episode_command", metavar="ACTION")
    ep.required = True
    p = ep.add_parser("add", help="record one past problem", description="Record one episode.")
    _global_options(p, top=False)
    subject(p)
    p.add_argument("--problem", required=True, help="what went wrong (the symptoms)")
    p.add_argument("--tried", action="append", help="something tried (repeat, in order)")
    p.add_argument("--worked", help="what fixed it")
    p.add_argument("--failed", action="append", help="something that did not help (repeat)")
    p.add_argument("--date", type=_day_arg, help="when it happened (YYYY-MM-DD; default today)")

    p = command(
        "confirm",
        cmd_confirm,
        "Confirm a preference inferred from conversation (context shows it as a question "
        "until then).",
    )
    subject(p)
    p.add_argument("path", help="preference path, e.g. preferences.language")

    p = command("erasures", cmd_erasures, "List a subject's erasure reports (no erased content).")
    subject(p)

    p = command(
        "gc",
        cmd_gc,
        "Compact derived data (never the log): search rows of retracted items, checkpoint "
        "versions beyond --keep, delivered outbox rows and job records older than --older-than.",
    )
    p.add_argument("--keep", type=int, default=5, help="checkpoint versions kept (default 5)")
    p.add_argument(
        "--older-than", type=int, default=30, metavar="DAYS", help="age in days (default 30)"
    )

    for name, help_text, what in (
        ("add", "Learn from one conversation message (only the user's words make facts).", ""),
        ("remember", "Remember this, explicitly: high confidence; kept as a note if untyped.", ""),
    ):
        p = command(name, cmd_add, help_text)
        subject(p)
        p.add_argument("text", nargs="?", help="the message; - reads it from stdin" + what)
        p.add_argument("--file", type=Path, help="read the message from this file")
        p.add_argument("--session", help="conversation/session id")
        if name == "add":
            p.add_argument(
                "--at", type=_date_arg, help="when it was said (default: now); resolves 'tomorrow'"
            )
            p.add_argument(
                "--role",
                choices=("user", "assistant"),
                default="user",
                help="who said it (default: user)",
            )

    p = command("prefer", cmd_prefer, "Store a style wish that fits no preference slot.")
    subject(p)
    p.add_argument("text", help='e.g. "give the root cause first, then the steps"')
    p.add_argument("--confidence", type=float, default=1.0, help="0-1 (default: %(default)s)")

    p = command("note", cmd_note, "Ingest a Markdown note (frontmatter, ## Preferences, ## Notes).")
    subject(p)
    p.add_argument(
        "file", nargs="?", type=Path, help="the note (ingesting an edited note replaces the old)"
    )
    p.add_argument("--id", help="note identity (default: the file name)")
    p.add_argument("--template", action="store_true", help="print a note template from the catalog")

    p = command(
        "rejections", cmd_rejections, "List what the ingestion gate refused for a subject, and why."
    )
    subject(p)
    p.add_argument(
        "--show",
        action="store_true",
        help="operator audit: show quarantined inputs' text (secrets stay masked)",
    )

    p = command("alerts", cmd_alerts, "List open alerts of a subject, or of the whole tenant.")
    p.add_argument("subject", nargs="?", help=SUBJECT_HELP + " (default: every subject)")
    p.add_argument("--all", action="store_true", help="include resolved alerts")

    for name, func, text in (
        ("ack", cmd_ack, "Acknowledge an alert."),
        ("snooze", cmd_snooze, "Hide an alert until a date."),
    ):
        p = command(name, func, text)
        p.add_argument("alert_id", help="the alert id (see 'uac alerts')")
        p.add_argument("--subject", help="the alert's subject (default: found in the tenant)")
        if name == "snooze":
            p.add_argument("--until", type=_day_arg, required=True, help="last day it stays hidden")

    p = command("check", cmd_check, "Compile if needed and run a subject's checks now.")
    subject(p)
    p.add_argument("--today", type=_day_arg, help="the date checks use")

    p = command("rule", cmd_rule, "Store a user rule (threshold, reminder, forbid) as JSON.")
    subject(p)
    p.add_argument("rule", help=f"the rule, e.g. {RULE_EXAMPLE}")

    p = command("run-once", cmd_run_once, "One scheduled pass: compile changed, check all, record.")
    p.add_argument("--today", type=_day_arg, help="the date checks use")

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
        "--changed", action="store_true", help="compile subjects with facts newer than their state"
    )
    p.add_argument(
        "--as-of", type=_date_arg, help="fold what was true at this valid time (not made current)"
    )
    p.add_argument(
        "--known-at", type=_date_arg, help="fold only what was recorded by then (not made current)"
    )
    p.add_argument(
        "--keep", type=int, default=5, help="versions kept per subject (default: %(default)s)"
    )

    p = command("search", cmd_search, "Search a subject's notes and archived inputs (hybrid).")
    subject(p)
    p.add_argument("text", help="what to look for, in any wording")
    p.add_argument("-k", type=int, default=10, help="how many results (default: %(default)s)")
    p.add_argument("--since", type=_date_arg, help="only items from this date on")
    p.add_argument("--kind", choices=("note", "input"), help="only notes or only raw inputs")
    p.add_argument("--today", type=_day_arg, help="reference date for recency")

    p = command("feedback", cmd_feedback, "Mark a search result 'not this': it ranks lower.")
    subject(p)
    p.add_argument("item_id", help="the note or input id from 'uac search'")
    p.add_argument(
        "--not-this", action="store_true", default=True, help="negative feedback (the default)"
    )
    p.add_argument("--reason", help="why it is not relevant")

    p = command("context", cmd_context, "Print the memory block for an agent's system prompt.")
    subject(p)
    p.add_argument("--query", help="the current user message: adds the most relevant notes")
    p.add_argument("--budget", type=int, default=800, help="token budget (default: %(default)s)")
    p.add_argument("--today", type=_day_arg, help="reference date for recency and alerts")

    p = command("query", cmd_query, "Answer a question exactly: run Python over the typed state.")
    subject(p)
    p.add_argument(
        "program",
        help="e.g. 'sum(t.cost for t in user.trips if t.depart.year == 2024)'; - reads stdin",
    )
    p.add_argument("--today", type=_day_arg, help="what 'today' means (default: now, UTC)")
    p.add_argument("--as-of", type=_date_arg, help="query the state as it was at this valid time")
    p.add_argument("--explain", action="store_true", help="also show the records and fact ids read")

    p = command(
        "manifest", cmd_manifest, "Print the compact manifest of a subject's current checkpoint."
    )
    subject(p)

    p = command(
        "why", cmd_why, "Explain a compiled value: the facts behind it and what they superseded."
    )
    subject(p)
    p.add_argument(
        "expr", help="user.passport.expiry_date, user.trips[0], user.trips['FR|Paris|2025-03-05']"
    )

    p = command("diff", cmd_diff, "Show the typed-state difference between two checkpoints.")
    subject(p)
    p.add_argument("v1", nargs="?", type=int, help="older version (default: the one before v2)")
    p.add_argument("v2", nargs="?", type=int, help="newer version (default: current)")

    p = command(
        "verify",
        cmd_verify,
        "Verify the fact log's hash chain, keyed digests and anchors; report what is broken.",
    )
    p.add_argument(
        "--anchor", type=Path, help="also check against an anchor saved by 'uac anchor export'"
    )

    p = command(
        "anchor", cmd_anchor, "Print the log's newest anchor as JSON, for an outside witness."
    )
    p.add_argument("action", choices=("export",), help="what to do")
    p.add_argument("--all", action="store_true", help="every anchor, oldest first")

    p = command("mcp", cmd_mcp, "Serve the agent tools for one subject over MCP (stdio).")
    subject(p, "; the only subject the connected agent reaches")

    command("tools", cmd_tools, "Print the OpenAI function-calling schemas of the agent tools.")

    cli_ops.add(command)  # migrate, worker, workers (runtime/cli_ops.py)

    p = command(
        "serve", cmd_serve, "Serve the workspace over HTTP (API, MCP at /mcp, scheduler, outbox)."
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    p.add_argument("--port", type=int, default=8765, help="port (default: %(default)s; 0: any)")
    p.add_argument("--public", action="store_true", help="allow binding a non-loopback address")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--every", help="run scheduled passes at this interval, e.g. 10m")
    when.add_argument("--cron", help="run scheduled passes on this cron expression (UTC)")

    p = command(
        "keys",
        cmd_keys,
        "Create, list or revoke API keys for uac serve; rotate-chain: new chain signing key.",
    )
    p.add_argument(
        "action", choices=("create", "list", "revoke", "rotate-chain"), help="what to do"
    )
    p.add_argument("key_id", nargs="?", help="the key to revoke")
    p.add_argument("--subject", help="bind the key to one subject (default: the whole tenant)")
    p.add_argument("--read-only", action="store_true", help="the key may only read")
    p.add_argument("--label", help="a note on what the key is for")

    p = command(
        "demo", cmd_demo, "Build a fresh demo workspace for a persona and show what uac holds."
    )
    p.add_argument(
        "--fresh", action="store_true", help="wipe --home first if it already holds a workspace"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run `uac` with argv; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    args.home_given = args.home is not None or bool(os.environ.get("UAC_HOME"))
    if args.home is None:
        args.home = default_home()
    args.tenant_given = args.tenant is not None
    args.tenant = args.tenant or "default"
    args._client = False
    try:
        try:
            return args.func(args)
        except WorkspaceInUse as exc:
            if not _await_server(args, exc.holder):
                raise
            return args.func(args)  # the open failed, so nothing was written: run it forwarded
    except UacError as exc:
        _err(f"uac: error: {exc}")
        return 1
    except KeyboardInterrupt:
        _err("uac: interrupted; nothing from the interrupted write was kept")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
