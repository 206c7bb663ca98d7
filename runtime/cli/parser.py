"""The `uac` argument parser: global options (accepted before or after the command) and
every command's arguments, in the order `uac --help` lists them. The commands themselves
live in modules by family (writes, reads, alerts, recall, sharing, admin, ops)."""

from __future__ import annotations

import argparse
import datetime as dt
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

import uac
from uac.runtime.api.discovery import MCP_IDLE_SECONDS, MCP_SESSIONS_PER_KEY
from uac.runtime.api.verb_methods import COMMANDS
from uac.runtime.cli.common import LISTING, SUBJECT_HELP, cmd_verb


def _command(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """The command function `name` of this package's `module`, imported when it runs: the
    parser names every command, a call runs one, so a family's module (and what it
    imports) loads only when one of its commands runs."""

    def run(args: argparse.Namespace) -> int:
        from importlib import import_module

        func: Callable[[argparse.Namespace], int]
        func = getattr(import_module(f"uac.runtime.cli.{module}"), name)
        return func(args)

    run.__name__ = run.__qualname__ = name
    return run


cmd_erase = _command("admin", "cmd_erase")
cmd_erasures = _command("admin", "cmd_erasures")
cmd_gc = _command("admin", "cmd_gc")
cmd_keys = _command("admin", "cmd_keys")
cmd_acknowledge = _command("alerts", "cmd_acknowledge")
cmd_alerts = _command("alerts", "cmd_alerts")
cmd_check = _command("alerts", "cmd_check")
cmd_questions = _command("alerts", "cmd_questions")
cmd_rule = _command("alerts", "cmd_rule")
cmd_run_once = _command("alerts", "cmd_run_once")
cmd_schedule = _command("alerts", "cmd_schedule")
cmd_snooze = _command("alerts", "cmd_snooze")
cmd_demo = _command("ops", "cmd_demo")
cmd_mcp = _command("ops", "cmd_mcp")
cmd_migrate = _command("ops", "cmd_migrate")
cmd_outbox = _command("ops", "cmd_outbox")
cmd_serve = _command("ops", "cmd_serve")
cmd_tools = _command("ops", "cmd_tools")
cmd_worker = _command("ops", "cmd_worker")
cmd_workers = _command("ops", "cmd_workers")
cmd_preview = _command("preview", "cmd_preview")
cmd_anchor = _command("reads", "cmd_anchor")
cmd_compile = _command("reads", "cmd_compile")
cmd_diff = _command("reads", "cmd_diff")
cmd_facts = _command("reads", "cmd_facts")
cmd_inputs = _command("reads", "cmd_inputs")
cmd_manifest = _command("reads", "cmd_manifest")
cmd_query = _command("reads", "cmd_query")
cmd_rejections = _command("reads", "cmd_rejections")
cmd_subjects = _command("reads", "cmd_subjects")
cmd_verify = _command("reads", "cmd_verify")
cmd_why = _command("reads", "cmd_why")
cmd_context = _command("recall", "cmd_context")
cmd_feedback = _command("recall", "cmd_feedback")
cmd_search = _command("recall", "cmd_search")
cmd_member = _command("sharing", "cmd_member")
cmd_promote = _command("sharing", "cmd_promote")
cmd_add = _command("writes", "cmd_add")
cmd_confirm = _command("writes", "cmd_confirm")
cmd_episode = _command("writes", "cmd_episode")
cmd_forget = _command("writes", "cmd_forget")
cmd_import = _command("writes", "cmd_import")
cmd_init = _command("writes", "cmd_init")
cmd_note = _command("writes", "cmd_note")
cmd_prefer = _command("writes", "cmd_prefer")
cmd_set = _command("writes", "cmd_set")


def _date_arg(text: str) -> dt.datetime:
    try:
        return dt.datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a date or datetime: {text!r}") from None


def _day_arg(text: str) -> dt.date:
    return _date_arg(text).date()


def _positive_int(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a whole number of at least 1: {text!r}")
    return int(text)


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 10**9:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"not a number of seconds above 0: {text!r}")
    return value


# How a verb field's kind (runtime/api/verb_methods.py COMMANDS) is read from the line.
KINDS: dict[str, Callable[[str], Any]] = {
    "int": int,
    "float": float,
    "day": _day_arg,
    "moment": _date_arg,
}
# The function that runs and prints a command the verb table defines (default: cmd_verb,
# which prints the verb's JSON answer).
VERB_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "prefer": cmd_prefer,
    "forget": cmd_forget,
    "confirm": cmd_confirm,
    "erasures": cmd_erasures,
    "facts": cmd_facts,
    "inputs": cmd_inputs,
    "rejections": cmd_rejections,
    "context": cmd_context,
    "manifest": cmd_manifest,
    "why": cmd_why,
    "diff": cmd_diff,
    "check": cmd_check,
    "subjects": cmd_subjects,
    "run-once": cmd_run_once,
}


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
        "--json",
        action="store_true",
        default=default(False),
        help="print exactly one JSON document on stdout (machines)",
    )
    parser.add_argument(
        "--jsonl",
        action="store_true",
        default=default(False),
        help="listing commands: stream one JSON object per line instead",
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        default=default(False),
        help="no progress on stderr (long work: import, compile --all, run-once, schedule)",
    )


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, reading the terminal's width only when it formats text.

    argparse makes a formatter for every argument it adds (to check the argument's
    metavar), and the stock one reads the width at once by importing `shutil`, which
    imports bz2, lzma and fnmatch: ~2 ms of every command, for a width nothing then reads.
    Help, usage and --version print the same text as with the stock formatter."""

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, width=0)
        self._help_at, self._columns = max_help_position, width

    @property  # type: ignore[override]
    def _width(self) -> int:
        if self._columns is None:
            import shutil  # what the stock formatter does, first thing

            self._columns = shutil.get_terminal_size().columns - 2
        return self._columns

    @_width.setter
    def _width(self, value: int) -> None:
        self._columns = value

    @property  # type: ignore[override]
    def _max_help_position(self) -> int:
        return min(self._help_at, max(self._width - 20, self._indent_increment * 2))

    @_max_help_position.setter
    def _max_help_position(self, value: int) -> None:
        pass  # derived from the width when read, as the stock formatter derives it


class _Parser(argparse.ArgumentParser):
    """A parser whose usage errors take the shape of every other error: one line, exit 1.
    Its help is formatted by `_Formatter` (so is every command's: they are `_Parser`s)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(1, f"uac: error: {message} (see: {self.prog} --help)\n")


def query_limits(limits: Any) -> str:
    """What stops a query, for `uac query --help`."""
    return (
        f"Each query may use {limits.cpu_s} s of CPU, {limits.memory_mb} MB of memory, and "
        f"{limits.timeout_s:g} s of wall-clock time from its hand-over to a worker, not "
        "counting time spent waiting for a CPU on a busy machine (a blocked query is "
        f"stopped by it); whatever the load, it is stopped after {limits.backstop_s:g} s. "
        "Over a limit it answers limit_exceeded."
    )


class _Unbuilt:
    """The parser of a command this call did not name: every call on it does nothing.

    A call names one command; building the ~50 others' parsers would cost it more than its
    own work (a local read: as much as its query). `uac --help` and a name that is no
    command get every parser."""

    def __getattr__(self, name: str) -> Any:
        return self._nothing

    def _nothing(self, *args: Any, **kwargs: Any) -> _Unbuilt:
        return self


UNBUILT: Any = _Unbuilt()
# Global options that take a value (the command is the first word that is not one of them).
_VALUED = {"--home", "--tenant", "--alerts-jsonl", "--webhook"}


def named_command(argv: Sequence[str]) -> str | None:
    """The command word of a command line (None: none, or a help or version request)."""
    words = iter(argv)
    for word in words:
        # argparse also takes an unambiguous prefix (--ten NAME) for an option
        if len(word) > 2 and any(v.startswith(word) for v in _VALUED):
            next(words, None)
        elif word in ("-h", "--help", "--version"):
            return None
        elif not word.startswith("-"):
            return word
    return None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser for `uac` and all its commands (or only the command `only`, when
    it is one: what a call that names it needs)."""
    built: list[str] = []
    parser = _Parser(
        prog="uac",
        description="uac — a typed user-as-code memory for AI agents: an append-only fact log "
        "compiled into typed Python state.",
        epilog="The workspace is --home, else $UAC_HOME, else ~/.local/share/uac. When "
        "`uac serve` serves it (or UAC_URL and UAC_API_KEY are set), commands are forwarded "
        "to the server. Machine output: --json prints exactly one JSON document for every "
        "command; --jsonl streams one JSON object per line for the listing commands ("
        + ", ".join(sorted(LISTING))
        + "). Errors are one line on stderr, 'uac: error: ...', with exit status 1.",
    )
    parser.add_argument("--version", action="version", version=f"uac {uac.__version__}")
    _global_options(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def command(
        name: str,
        func: Callable[[argparse.Namespace], int],
        help: str,
        aliases: tuple[str, ...] = (),
    ) -> Any:
        if only is not None and only != name and only not in aliases:
            return UNBUILT
        built.append(name)
        p = sub.add_parser(name, help=help, description=help, aliases=list(aliases))
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

    p = command("note", cmd_note, "Ingest a Markdown note (frontmatter, ## Preferences, ## Notes).")
    subject(p)
    p.add_argument(
        "file", nargs="?", type=Path, help="the note (ingesting an edited note replaces the old)"
    )
    p.add_argument("--id", help="note identity (default: the file name)")
    p.add_argument("--template", action="store_true", help="print a note template from the catalog")

    p = command("alerts", cmd_alerts, "List open alerts of a subject, or of the whole tenant.")
    p.add_argument("subject", nargs="?", help=SUBJECT_HELP + " (default: every subject)")
    p.add_argument("--all", action="store_true", help="include resolved alerts")

    p = command("questions", cmd_questions, "List what a subject's checks need to know, and why.")
    p.add_argument("subject", help=SUBJECT_HELP)
    p.add_argument("--all", action="store_true", help="include answered (resolved) questions")

    for name, func, text in (
        ("acknowledge", cmd_acknowledge, "Acknowledge an alert (also: uac ack)."),
        ("snooze", cmd_snooze, "Hide an alert until a date."),
    ):
        p = command(name, func, text, ("ack",) if name == "acknowledge" else ())
        p.add_argument("alert_id", help="the alert id (see 'uac alerts')")
        p.add_argument("--subject", help="the alert's subject (default: found in the tenant)")
        if name == "snooze":
            p.add_argument("--until", type=_day_arg, required=True, help="last day it stays hidden")

    p = command(
        "preview",
        cmd_preview,
        "Check a plan before acting: the alerts a write would raise and clear (writes nothing).",
    )
    subject(p)
    p.add_argument("message", nargs="?", help="the plan in words, read as 'uac add' reads it")
    p.add_argument("--at", type=_date_arg, help="when the message is said (default: now)")
    p.add_argument(
        "--set",
        nargs=2,
        action="append",
        metavar=("PATH", "VALUE"),
        help="a proposed attribute value, as 'uac set' takes it (repeatable)",
    )
    p.add_argument(
        "--record",
        nargs=2,
        action="append",
        metavar=("COLLECTION", "JSON"),
        help='a proposed record, e.g. travel.trips \'{"city": "Tokyo", "country": "JP", '
        '"depart": "2026-05-28"}\' (repeatable)',
    )
    p.add_argument("--today", type=_day_arg, help="the date checks use (default: --at's, or now)")
    p.add_argument("--session", help="conversation/session id the message belongs to")

    p = command("rule", cmd_rule, "Store a user rule (threshold, reminder, forbid) as JSON.")
    subject(p)
    if p is not UNBUILT:
        from uac.runtime.cli.alerts import RULE_EXAMPLE

        p.add_argument("rule", help=f"the rule, e.g. {RULE_EXAMPLE}")

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
    p.add_argument(
        "--neighbours",
        type=int,
        help="turns either side shown with each hit (default: 1 for messages, 0 for notes)",
    )

    p = command("feedback", cmd_feedback, "Mark a search result 'not this': it ranks lower.")
    subject(p)
    p.add_argument("item_id", help="the note or input id from 'uac search'")
    p.add_argument(
        "--not-this", action="store_true", default=True, help="negative feedback (the default)"
    )
    p.add_argument("--reason", help="why it is not relevant")

    p = command("query", cmd_query, "Answer a question exactly: run Python over the typed state.")
    subject(p)
    p.add_argument(
        "program",
        help="e.g. 'sum(t.cost for t in user.trips if t.depart.year == 2024)'; - reads stdin",
    )
    p.add_argument("--today", type=_day_arg, help="what 'today' means (default: now, UTC)")
    p.add_argument("--as-of", type=_date_arg, help="query the state as it was at this valid time")
    p.add_argument("--explain", action="store_true", help="also show the records and fact ids read")
    if p is not UNBUILT:
        from uac.runtime.sandbox.limits import Limits

        p.epilog = query_limits(Limits())

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

    # Commands whose arguments the verb table defines (runtime/api/verbs.py, `cli`).
    for name, spec in COMMANDS.items():
        p = command(name, VERB_COMMANDS.get(name, cmd_verb), spec["help"])
        if spec["subject"] != "none":
            optional = spec["subject"] == "optional"
            p.add_argument("subject", nargs="?" if optional else None, help=SUBJECT_HELP)
        for flags, settings in spec["arguments"]:
            settings = dict(settings)
            kind = settings.pop("kind")
            if kind == "flag":
                settings["action"] = "store_true"
            elif kind != "str":
                settings["type"] = KINDS[kind]
            p.add_argument(*flags, **settings)

    p = command("mcp", cmd_mcp, "Serve the agent tools for one subject over MCP (stdio).")
    subject(p, "; the only subject the connected agent reaches")

    command("tools", cmd_tools, "Print the OpenAI function-calling schemas of the agent tools.")

    # Operating nodes (runtime/cli/ops.py).
    command(
        "migrate",
        cmd_migrate,
        "Apply pending schema migrations of every layer (workspace file and shared PostgreSQL"
        " database); idempotent, prints what it did.",
    )
    p = command(
        "worker",
        cmd_worker,
        "Run a compile-and-check worker for a node bound to PostgreSQL: claims jobs with "
        "per-subject leases until SIGTERM.",
    )
    if p is not UNBUILT:
        _worker_options(p)
    p = command(
        "workers",
        cmd_workers,
        "The job queue of the shared database: status (depth, lag per subject, failures, dead"
        " letters) or retry (queue dead letters again).",
    )
    p.add_argument("action", choices=("status", "retry"), help="status or retry")
    p.add_argument("--db", metavar="URL", help="the PostgreSQL database (default: the node's)")
    p.add_argument("--limit", type=int, default=20, help="oldest waiting jobs to list")

    p = command(
        "serve", cmd_serve, "Serve the workspace over HTTP (API, MCP at /mcp, scheduler, outbox)."
    )
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default: %(default)s)")
    p.add_argument("--port", type=int, default=8765, help="port (default: %(default)s; 0: any)")
    p.add_argument("--public", action="store_true", help="allow binding a non-loopback address")
    p.add_argument(
        "--mcp-sessions-per-key", type=_positive_int, default=MCP_SESSIONS_PER_KEY, metavar="N",
        help="MCP sessions one API key may hold open at once (default: %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--mcp-idle-timeout", type=_positive_seconds, default=MCP_IDLE_SECONDS, metavar="SECONDS",
        help="end an MCP session unused for this long (default: %(default)g)",
    )  # fmt: skip
    if p is not UNBUILT:
        _outbox_options(p)
    p.add_argument(
        "--reaction-wait", type=_positive_seconds, default=None, metavar="SECONDS",
        help="how long a write waits for its reaction (compile, checks) before answering with a "
        "ticket to poll (default: 10)",
    )  # fmt: skip
    when = p.add_mutually_exclusive_group()
    when.add_argument("--every", help="run scheduled passes at this interval, e.g. 10m")
    when.add_argument("--cron", help="run scheduled passes on this cron expression (UTC)")

    p = command(
        "outbox",
        cmd_outbox,
        "The tenant's alerts waiting for a sink: list rows, retry (queue again; without ids,"
        " every dead row) or drop them.",
    )
    p.add_argument("action", choices=("list", "retry", "drop"), help="list, retry or drop")
    p.add_argument("ids", nargs="*", type=int, metavar="ID", help="outbox row ids (retry, drop)")
    p.add_argument("--status", choices=("pending", "delivered", "dead"), help="list only these")
    p.add_argument(
        "--limit", type=_positive_int, default=50, help="rows to list (default: %(default)s)"
    )

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
        "--fresh",
        action="store_true",
        help="replace the workspace at --home (kept until the demo is built)",
    )
    if only is not None and not built:
        return build_parser()  # not a command: the full parser names the commands
    return parser


def _worker_options(p: argparse.ArgumentParser) -> None:
    """`uac worker`'s options (defaults: the job queue's, fact_log/backends/pg_jobs.py)."""
    from uac.fact_log.backends import pg_jobs

    p.add_argument("--batch", type=int, default=4, help="jobs claimed at once (default: 4)")
    p.add_argument(
        "--lease", type=float, default=pg_jobs.LEASE,
        help="seconds a claim holds a job unless renewed (default: %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--max-attempts", type=int, default=pg_jobs.MAX_ATTEMPTS,
        help="attempts before a job is dead-lettered (default: %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--retry-delay", type=float, default=pg_jobs.BASE_DELAY,
        help="seconds before the first retry; doubles each time (default: %(default)s)",
    )  # fmt: skip
    p.add_argument("--poll", type=float, default=1.0, help="seconds between claims when idle")
    p.add_argument(
        "--until-idle", action="store_true", help="stop once no job is queued or running"
    )
    p.add_argument(
        "--sink", action="append", metavar="NAME",
        help="queue raised alerts for this `uac serve` sink (webhook, jsonl); repeatable",
    )  # fmt: skip


def _outbox_options(p: argparse.ArgumentParser) -> None:
    """`uac serve`'s alert delivery settings (runtime/api/outbox.py OutboxSettings)."""
    from uac.runtime.api.outbox_settings import OutboxSettings

    d = OutboxSettings()
    p.add_argument(
        "--outbox-workers", type=_positive_int, default=d.workers, metavar="N",
        help="threads delivering alerts to sinks (default: %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--outbox-per-sink", type=_positive_int, default=d.per_sink, metavar="N",
        help="deliveries to one sink at once (default: %(default)s)",
    )  # fmt: skip
    p.add_argument(
        "--outbox-max-delay", type=_positive_seconds, default=d.max_delay, metavar="SECONDS",
        help="longest wait between two attempts of one delivery (default: %(default)g)",
    )  # fmt: skip
    p.add_argument(
        "--outbox-horizon", type=_positive_seconds, default=d.horizon / 3600, metavar="HOURS",
        help="keep retrying a failing delivery this long before giving up (default: %(default)g)",
    )  # fmt: skip
    p.add_argument(
        "--webhook-timeout", type=_positive_seconds, default=d.timeout, metavar="SECONDS",
        help="seconds a webhook may take to answer one delivery (default: %(default)g)",
    )  # fmt: skip
