"""What every `uac` command shares: where a verb runs (forwarded to a server, or on the
workspace in this process) and the plain-text printing of its JSON result.

Only the standard library is imported here: a forwarded call never loads DuckDB, the
compiler or the sandbox.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

SUBJECT_HELP = "subject: 'alice' (a user), 'user:alice', 'group:NAME' or 'tenant'"


# Which commands react and which verbs a read-only open serves: attributes of the verb
# table's rows (runtime/api/verbs.py `REACTING_COMMANDS`, `LOCAL_READS`), read on the local
# path only (a forwarded call never loads the table).
SCHEDULED = {"run-once", "schedule"}


# Commands that list rows: --jsonl streams them one JSON object per line (keys and member:
# their list action).
LISTING = {"facts", "inputs", "subjects", "rejections", "alerts", "search", "erasures", "keys"}
LISTING |= {"member", "questions"}


@contextlib.contextmanager
def blas_on_one_thread() -> Iterator[None]:
    """NumPy's OpenBLAS on one thread if this command's process loads it inside the block.

    At import OpenBLAS starts a worker per core, which spin after each product: ~0.02-0.03 s
    of CPU for a command that runs a few small products, and the encoder's run on one
    thread anyway (extraction/encoder.py `one_blas_thread`). The variable is read when the
    library loads, so it is set only while numpy is not imported yet, and removed after
    (the process's children do not inherit it); an OPENBLAS_NUM_THREADS the caller set is
    kept."""
    blas = "numpy" not in sys.modules and "OPENBLAS_NUM_THREADS" not in os.environ
    if blas:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        yield
    finally:
        if blas:
            os.environ.pop("OPENBLAS_NUM_THREADS", None)


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


# -- where a verb runs -------------------------------------------------------------------


def _client(args: argparse.Namespace) -> Any:
    """The server to forward to, or None to work on the workspace in this process."""
    if getattr(args, "_client", False) is not False:
        return args._client
    from uac.runtime.api.discovery import forwarded

    if not forwarded(args.home, remote=not args.home_flag):
        args._client = None  # the usual local call: the Client is never imported
        return None
    from uac.runtime.api.client import Client

    args._client = Client.discover(args.home, args.tenant, remote=not args.home_flag)
    if args._client is not None and (args.alerts_jsonl or args.webhook):
        _err("note: a server serves this workspace; alert sinks are the server's (uac serve)")
    return args._client


def _memory(args: argparse.Namespace, *, create: bool = False, read_only: bool = False) -> Any:
    from uac.checks import JsonLinesSink, WebhookSink
    from uac.runtime.api.memory import Memory

    # A write's result names the alerts it raised (printed by the command); the sinks given
    # on the command line receive them too, and the scheduled passes' alerts.
    from uac.runtime.api.verbs import REACTING_COMMANDS

    command = getattr(args, "command", "")
    react = not read_only and command in REACTING_COMMANDS
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
    given = {k: v for k, v in params.items() if v is not None}
    from uac.runtime.api import lean_reads  # a few statements, without opening `Memory`

    # A command `main` ends at once keeps the look an answer came from open (`answer`).
    held: list[Any] | None = getattr(args, "_held", None)
    answer = lean_reads.answer(args.home, args.tenant, verb, subject, given, held)
    if answer is not None:
        args._lean = True  # nothing left to finish: the command may end at once (`main`)
        return answer
    while held:  # an earlier answer's look, closed before the workspace is opened
        held.pop().close()
    from uac.runtime.api import verbs

    with _memory(args, read_only=verbs.verb(verb).name in verbs.LOCAL_READS) as mem:
        result = verbs.run(mem, verb, subject, given)
    # The workspace is closed: its writes committed, the file checkpointed and released.
    # Nothing is left to finish but printing, so the command may end at once (`main`).
    args._lean = True
    return result


def _fields(args: argparse.Namespace) -> dict[str, Any]:
    """The verb fields of a command the verb table defines, as given on the command line."""
    from uac.runtime.api.verb_methods import COMMANDS

    spec = COMMANDS[args.command]
    names = [f[0] if not f[0].startswith("-") else s["dest"] for f, s in spec["arguments"]]
    return {name: getattr(args, name) for name in names}


def cmd_verb(args: argparse.Namespace) -> int:
    """Run the verb a table-defined command names and print its JSON answer."""
    from uac.runtime.api.verb_methods import COMMANDS

    spec = COMMANDS[args.command]
    subject = getattr(args, "subject", None) if spec["subject"] != "none" else None
    _print_json(_call(args, spec["verb"], subject, **_fields(args)))
    return 0


# Seconds a command waits for a starting `uac serve` to announce itself (UAC_SERVER_START_WAIT
# overrides: a slow or loaded host can need longer).
SERVER_START_WAIT = 15.0


def _await_server(args: argparse.Namespace, holder: str) -> bool:
    """Whether a `uac serve` holding the workspace announced itself within SERVER_START_WAIT.

    A starting server opens the workspace before it writes `<home>/server.json`; a command
    run in that window would otherwise fail although it works a moment later.
    """
    if args._client is not None or " serve" not in f" {holder}":
        return False  # not a forwardable command, or the holder is not a server
    from uac.runtime.api.client import Client

    wait = float(os.environ.get("UAC_SERVER_START_WAIT") or SERVER_START_WAIT)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        args._client = Client.discover(args.home, args.tenant, remote=not args.home_flag)
        if args._client is not None:
            return True
        time.sleep(0.2)
    return False


def _progress(args: argparse.Namespace, label: str, *, quiet: bool = False) -> Any:
    """A progress display on stderr for long work (silenced by --quiet)."""
    from uac.runtime.progress_display import Progress

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


def _machine(args: argparse.Namespace, result: Any) -> bool:
    """Print `result` for machines if --json (one document) or --jsonl (a listing's rows, one
    compact object a line) was given; False if the command prints text instead."""
    if getattr(args, "jsonl", False):
        for item in result:
            _out(json.dumps(item, ensure_ascii=False, sort_keys=True, default=str))
        return True
    if args.json:
        _print_json(result)
        return True
    return False


def _short(text: Any, width: int) -> str:
    text = "" if text is None else str(text).replace("\n", " ")
    return text if len(text) <= width else text[: width - 1] + "…"


def _when(iso: str | None) -> str:
    return "" if not iso else iso[:16].replace("T", " ")


def _listing(
    args: argparse.Namespace,
    items: list[dict[str, Any]],
    empty: str,
    header: Sequence[str],
    row: Callable[[dict[str, Any]], Sequence[Any]],
) -> bool:
    """Print a command's rows: JSON with --json (one array) or --jsonl (one object a line),
    `empty` when none, else a table; True if a table was printed (the command may add lines
    under it)."""
    if _machine(args, items):
        return False
    if not items:
        _out(empty)
        return False
    _table([row(item) for item in items], header)
    return True


def _table(rows: list[Sequence[Any]], header: Sequence[str]) -> None:
    cells = [[str(h) for h in header], *[["" if c is None else str(c) for c in r] for r in rows]]
    # A column at a time, and the table written at once: a listing has thousands of rows.
    widths = [max(map(len, column)) for column in zip(*cells, strict=True)]
    lines = ["  ".join(map(str.ljust, row, widths)).rstrip() for row in cells]
    _out("\n".join(lines))


# A fact's value as one compact line (json.dumps with options builds an encoder per call).
_VALUE = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _value(fact: dict[str, Any]) -> str:
    value = fact.get("value")
    if value is None:
        return fact.get("text") or ""
    return _VALUE.encode(value)


def _status(status: dict[str, Any] | None) -> str:
    # Facts newer than the current checkpoint have no derived status yet.
    if status is None:
        return "pending"
    text = status["status"]
    if status.get("superseded_by"):
        text += f" by {status['superseded_by']}"
    return text
