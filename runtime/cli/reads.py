"""Commands that read: facts, inputs, subjects, rejections, compile, query (with its
one-shot path `_query_here`), manifest, why, diff, verify, anchor."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from pathlib import Path
from typing import Any

from uac.fact_log.addressing import default_home
from uac.fact_log.errors import InputError, UacError
from uac.runtime.cli.common import (
    _call,
    _client,
    _err,
    _fields,
    _listing,
    _machine,
    _memory,
    _out,
    _print_json,
    _progress,
    _short,
    _status,
    _value,
    _when,
)


def cmd_facts(args: argparse.Namespace) -> int:
    _listing(
        args,
        _call(args, "facts", args.subject, **_fields(args)),
        f"no facts for {args.subject}; add some with: uac add {args.subject} TEXT",
        ("seq", "id", "status", "origin", "op", "kind", "path", "key", "value", "source", "at"),
        lambda f: (
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
        ),
    )
    return 0


def cmd_inputs(args: argparse.Namespace) -> int:
    _listing(
        args,
        _call(args, "inputs", args.subject, **_fields(args)),
        f"no inputs for {args.subject}",
        ("seq", "id", "kind", "name", "source", "content", "observed"),
        lambda i: (
            i["seq"],
            i["id"],
            i["kind"],
            i["name"] or "",
            i["source"],
            _short(i["content"], 60),
            _when(i["observed_at"]),
        ),
    )
    return 0


def cmd_subjects(args: argparse.Namespace) -> int:
    _listing(
        args,
        _call(args, "subjects", **_fields(args)),
        f"no subjects in tenant {args.tenant}; start with: uac add alice 'some text'",
        ("scope", "subject", "facts", "inputs", "last write"),
        lambda s: (s["scope"], s["subject"], s["facts"], s["inputs"], _when(s["last_recorded_at"])),
    )
    return 0


def cmd_rejections(args: argparse.Namespace) -> int:
    rows = _call(args, "rejections", args.subject, **_fields(args))
    table = _listing(
        args,
        rows,
        f"nothing refused for {args.subject}",
        ("recorded", "reason", "path", "detail", "input"),
        lambda r: (
            _when(r["recorded_at"]),
            r["reason"],
            r["path"] or "",
            _short(r["detail"], 70),
            r["input_id"] or "",
        ),
    )
    if table and args.show:
        # The operator's view of quarantined inputs: masked text, one line each.
        seen: set[str] = set()
        for r in rows:
            if r.get("excerpt") and r["input_id"] not in seen:
                seen.add(r["input_id"])
                _out(f"quarantined {r['input_id']}: {r['excerpt']}")
    return 0


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

    The one-shot path of `uac query` needs only the checkpoint on disk, the answer to "is
    the subject compiled up to its last fact?" and the sandbox, and starts the zygote before
    asking so the two overlap. The subject's freshness stamp answers without DuckDB while
    the log's files are as a reader last found them current (fact_log/freshness.py); else a
    read-only look at the log through DuckDB alone answers, and stamps. None means "take
    the full verb" (a server serves the workspace, the subject needs compiling, anything
    unusual): that path then compiles, or reports the error the user should see.
    """
    if _client(args) is not None or len(program) > 20_000:
        return None
    from uac.compiler import loader
    from uac.fact_log import freshness
    from uac.fact_log.addressing import parse_subject
    from uac.fact_log.chain_keys import KeyRing
    from uac.runtime import sandbox

    try:
        home = Path(args.home).expanduser() if args.home is not None else default_home()
        addr = parse_subject(args.subject, args.tenant)
        version, directory = loader.version_dir(home, addr)
        # One query: no worker to keep (the zygote answers it and ends), and only the
        # collections it names are loaded, the `statistics` module only if it names it.
        only = sandbox.reads_only(program)
        uses = sandbox.names_statistics(program)
        sandbox.prestart(directory, reuse=False, only=only, once=True, statistics=uses)
        ring = KeyRing.load(home)
        # The subject's stamp answers "current with the log?" without DuckDB while the log's
        # files are unchanged since a reader asked the log (fact_log/freshness.py).
        if not freshness.holds(home, addr, version, directory, ring):
            state = freshness.log_state(home)  # before the look: a write during it is newer
            is_log = _current_in_log(home, addr, version, directory, ring)
            if is_log is None:
                return None
            if is_log:
                freshness.record(home, addr, version, directory, state, ring, time.time_ns())
    except UacError:
        return None
    today = args.today or dt.datetime.now(dt.UTC).date()
    return sandbox.run_query(
        directory, program, today=today, explain=args.explain, only=only, once=True
    )


def _current_in_log(home: Path, addr: Any, version: int, directory: Path, ring: Any) -> bool | None:
    """Whether the log says the subject's current checkpoint may be served: None when not (a
    fact newer than it, a later version published, its head not this log's, anything DuckDB
    refuses: the full verb then answers or says why), else whether the file is the log
    itself (False: a node's copy of a PostgreSQL log, which other nodes' writes do not
    touch, so its answer is never stamped)."""
    from uac.compiler import loader
    from uac.fact_log import duck, freshness

    try:
        con = duck.connect(home / freshness.DB_FILE, read_only=True, threads=1)
    except UacError:
        return None
    try:
        if duck.is_changed(con, addr.tenant, addr.scope, addr.subject):
            return None
        head = loader.folded_head(directory)
        if duck.served_problem(con, addr.tenant, addr.scope, addr.subject, version, head, ring):
            return None  # the full verb reports why it must not be served
        meta = con.execute("SELECT count(*) FROM meta WHERE key = ?", [freshness.BOUND])
        (bound,) = meta.fetchone() or (0,)  # a count: always one row
        return not bound
    except duck.duckdb.Error:
        return None
    finally:
        con.close()


def cmd_query(args: argparse.Namespace) -> int:
    program = sys.stdin.read() if args.program == "-" else args.program
    version = None
    if args.as_of is not None:
        (res,) = _call(args, "compile", args.subject, as_of=args.as_of)
        if res["status"] != "published":
            raise UacError(f"could not compile {args.subject} as of {args.as_of}: {res['error']}")
        version = res["version"]
    envelope = None if version is not None else _query_here(args, program)
    args._lean = envelope is not None  # answered here: the command may end at once (`main`)
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
        _err(f"uac: error: {err['type']}{line}: {err['message']}")
    return 0 if envelope["ok"] else 1


def cmd_manifest(args: argparse.Namespace) -> int:
    out = _call(args, "manifest", args.subject, **_fields(args))
    if not _machine(args, out):
        _out(out["manifest"].rstrip())
    return 0


def cmd_why(args: argparse.Namespace) -> int:
    exp = _call(args, "why", args.subject, **_fields(args))
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
    out = _call(args, "diff", args.subject, **_fields(args))
    if _machine(args, out):
        return 0
    lines = out["changes"]
    _out(f"{args.subject}: v{out['old']} -> v{out['new']}: {len(lines) or 'no'} change(s)")
    for line in lines:
        _out("  " + line)
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
