"""The verbs, defined once: one table (`VERBS`) that every surface reads.

Each `Verb` row names the verb (on the wire and in the CLI), the `Memory` methods that are
it, the pydantic model of its arguments (fields named as Memory's parameters, aliases as
the wire's; the server turns it into its OpenAPI document), whether it writes, reacts,
needs a subject (required, optional or none), and, for simple commands, the CLI arguments.
From the table come: the service's routes (runtime/api/routes.py), the `Client`'s methods
and the `Verbs` protocol (generated into verb_methods.py with Memory's signatures by
verb_codegen.py), the CLI's table-defined commands and its local-open rules
(`REACTING_COMMANDS`, `LOCAL_READS`), and the tool verb the agent tools run through.

`run(mem, verb, subject, params)` validates the arguments, calls `Memory` and returns plain
JSON (dates ISO, Decimals as exact text, facts and alerts as dicts). The server answers
with exactly that, and the CLI prints from exactly that whether it runs the verb in process
or forwards it to a server — one code path, so local and remote output cannot drift.

Time-dependent verbs take `today`/`now` as arguments; nothing here reads the clock.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from uac.fact_log.errors import InputError, UacError
from uac.runtime.api.alerts import RuleAdded
from uac.runtime.api.tools import tool_writes
from uac.runtime.api.wire import plain

if TYPE_CHECKING:
    from uac.runtime.api.memory import Memory

MAX_TEXT = 65536


class Args(BaseModel):
    """Arguments of a verb (unknown fields are refused)."""

    # Fields carry Memory's parameter names; an alias is the name on the wire.
    model_config = ConfigDict(
        extra="forbid", defer_build=True, validate_by_name=True, validate_by_alias=True
    )  # built on first use


class NoArgs(Args):
    """No arguments."""


class VerifyArgs(Args):
    """Verify the log, optionally against an anchor exported earlier."""

    anchor: dict[str, Any] | None = None


class AnchorArgs(Args):
    """Export anchors."""

    every: bool = Field(False, alias="all", description="Every anchor, oldest first")


class ShowArgs(Args):
    """Whether to show quarantined text (masked) to an operator auditing it."""

    show: bool = Field(
        False, description="operator audit: show quarantined inputs' text (secrets stay masked)"
    )


class SetArgs(Args):
    """Assert a single-valued attribute."""

    path: str = Field(description="Catalog path, e.g. identity.passport.expiry_date")
    value: Any = Field(description="The value (text is parsed by the path's type)")
    valid_from: dt.datetime | None = None
    valid_to: dt.datetime | None = None
    session_id: str | None = Field(None, alias="session")
    now: dt.datetime | None = Field(None, description="Recording time (default: now)")


def _file_name(value: str) -> str:
    """A file name as sent (a path keeps only its last part): never "..", NUL or a path."""
    name = PurePath(value).name
    if not name or name in (".", "..") or "\x00" in name or len(name.encode()) > 255:
        raise ValueError("must be a file name (not '.' or '..', no NUL, at most 255 bytes)")
    return name


FileName = Annotated[str, AfterValidator(_file_name)]


class ImportArgs(Args):
    """Import a file's records (JSON Lines, JSON array or CSV) into a collection."""

    collection: str = Field(description="Catalog collection or a new name (schema inferred)")
    content: str = Field(description="The file's text")
    name: FileName = Field("records.jsonl", description="File name (its suffix names the format)")
    format: Literal["jsonl", "json", "csv"] | None = None
    session_id: str | None = Field(None, alias="session")
    now: dt.datetime | None = None


class AddArgs(Args):
    """Learn from one message of a conversation."""

    text: str = Field(max_length=MAX_TEXT)
    at: dt.datetime | None = Field(None, description="When the message was said")
    session_id: str | None = Field(None, alias="session")
    role: str = "user"
    now: dt.datetime | None = None


class PreviewArgs(Args):
    """A proposed write to check before acting: a message, typed facts, or both."""

    text: str | None = Field(
        None, max_length=MAX_TEXT, description="A message, read as `add` reads it"
    )
    facts: list[dict[str, Any]] = Field(
        default_factory=list,
        max_length=1000,
        description="Typed facts: {path, value} for an attribute (as `set`), {path, record} "
        "for one record of a collection (as an import); valid_from/valid_to optional",
    )
    at: dt.datetime | None = Field(None, description="When the message is said")
    session_id: str | None = Field(None, alias="session")
    role: str = "user"
    today: dt.date | None = Field(None, description="Check as of this day (default: at/now's)")
    now: dt.datetime | None = Field(None, description="Recording time (default: now)")


class RememberArgs(Args):
    """An explicit 'remember this'."""

    text: str = Field(max_length=MAX_TEXT)
    session_id: str | None = Field(None, alias="session")
    now: dt.datetime | None = None


class NoteArgs(Args):
    """Ingest a Markdown note."""

    content: str = Field(max_length=4 * MAX_TEXT)
    note_id: FileName = Field("note.md", description="The note's name: a new version replaces it")
    now: dt.datetime | None = None


class PreferArgs(Args):
    """Store a soft (wording) preference."""

    text: str = Field(
        max_length=MAX_TEXT, description='e.g. "give the root cause first, then the steps"'
    )
    confidence: float = Field(1.0, ge=0.0, le=1.0, description="0-1")
    now: dt.datetime | None = None


class ForgetArgs(Args):
    """Retract one fact (the log keeps it)."""

    fact_id: str = Field(description="id of the fact to retract (see 'uac facts')")
    reason: str | None = Field(None, description="why it is forgotten")
    now: dt.datetime | None = None


class EraseArgs(Args):
    """Legal erase: blank facts' content everywhere (hashes kept) and report it."""

    fact_ids: list[str] = Field(default_factory=list, description="Facts to erase")
    all: bool = Field(False, description="Erase everything of the subject")
    reason: str = Field(min_length=1, max_length=2000, description="Why (kept in the report)")
    now: dt.datetime | None = None


class GcArgs(Args):
    """Compact derived data (never the log)."""

    keep: int = Field(5, ge=1, le=1000, description="Checkpoint versions kept per subject")
    older_than_days: int = Field(30, ge=0, description="Outbox rows and jobs older than this go")
    now: dt.datetime | None = None


class EpisodeArgs(Args):
    """A past problem: what was tried, what fixed it, what did not."""

    problem: str = Field(min_length=1, max_length=2000)
    tried: list[str] = Field(default_factory=list)
    worked: str | None = Field(None, max_length=2000)
    failed: list[str] = Field(default_factory=list)
    date: dt.date | None = None
    now: dt.datetime | None = None


class ConfirmArgs(Args):
    """Confirm an inferred preference."""

    path: str = Field(description="preference path, e.g. preferences.language")
    now: dt.datetime | None = None


class FeedbackArgs(Args):
    """Mark a search result as 'not this'."""

    item_id: str
    reason: str | None = None
    now: dt.datetime | None = None


class FactsArgs(Args):
    """The subject's facts, optionally at one path."""

    path: str | None = Field(None, description="only facts at this path")


class CompileArgs(Args):
    """Compile a subject, every subject (all) or those with new facts (changed); optionally
    as of a time (a checkpoint that is not made current)."""

    all: bool = False
    changed: bool = False
    as_of: dt.datetime | None = None
    known_at: dt.datetime | None = None
    keep: int = Field(5, ge=1, le=1000, description="Checkpoint versions kept per subject")


class QueryArgs(Args):
    """Run a program over the subject's typed state in the sandbox."""

    program: str = Field(max_length=20000)
    today: dt.date | None = None
    explain: bool = False
    version: int | None = Field(None, ge=1)


class SearchArgs(Args):
    """Search the subject's notes and messages."""

    text: str = Field(max_length=MAX_TEXT)
    k: int = Field(10, ge=1, le=200)
    since: dt.datetime | None = None
    kind: Literal["note", "input"] | None = None
    today: dt.date | None = None
    half_life_days: float = Field(180.0, gt=0, le=100_000, description="Recency half-life")
    neighbours: int | None = Field(None, ge=0, le=20)


class ContextArgs(Args):
    """The memory block for an agent's system prompt."""

    query: str | None = Field(
        None,
        max_length=MAX_TEXT,
        description="the current user message: adds the most relevant notes",
    )
    budget: int = Field(800, ge=20, le=100_000, description="token budget")
    today: dt.date | None = Field(None, description="reference date for recency and alerts")
    notes: int = Field(5, ge=0, le=100, description="Most relevant notes quoted, at most")


class WhyArgs(Args):
    """Explain one value of the typed state."""

    expr: str = Field(
        max_length=500,
        description="user.passport.expiry_date, user.trips[0], user.trips['FR|Paris|2025-03-05']",
    )


class DiffArgs(Args):
    """The typed-state change between two checkpoint versions."""

    old: int | None = Field(
        None, ge=1, alias="v1", description="older version (default: the one before v2)"
    )
    new: int | None = Field(None, ge=1, alias="v2", description="newer version (default: current)")


class AlertsArgs(Args):
    """Alerts (open and acknowledged; all with include_resolved)."""

    include_resolved: bool = False
    today: dt.date | None = None


class AlertArgs(Args):
    """One alert by id."""

    alert_id: str
    today: dt.date | None = None


class SnoozeArgs(AlertArgs):
    """Hide an alert until a date."""

    until: dt.date


class RuleArgs(Args):
    """Store a user rule (threshold, reminder, forbid)."""

    rule: dict[str, Any]
    now: dt.datetime | None = None


class CheckArgs(Args):
    """Run the subject's checks as of a day."""

    today: dt.date | None = Field(None, description="the date checks use")


class ToolArgs(Args):
    """One agent tool call (see `uac tools`), run for the subject."""

    name: str
    arguments: dict[str, Any] | str | None = None


class RunOnceArgs(Args):
    """One scheduled pass over the tenant."""

    today: dt.date | None = Field(None, description="the date checks use")


class MemberArgs(Args):
    """Add a user to the group (validity times: when the membership holds)."""

    user: str = Field(description="The member: 'alice' or 'user:alice' (users only)")
    valid_from: dt.datetime | None = None
    valid_to: dt.datetime | None = None
    now: dt.datetime | None = None


class MemberRemoveArgs(Args):
    """End a user's membership of the group."""

    user: str
    at: dt.datetime | None = Field(None, description="When it ends (default: now)")
    now: dt.datetime | None = None


class MembersArgs(Args):
    """A group's members, or a user's groups, at a moment."""

    at: dt.datetime | None = Field(None, description="The moment (default: now)")


class PromoteArgs(Args):
    """Share one of the user's facts with a group the user belongs to."""

    fact_id: str
    group: str = Field(description="The group, e.g. group:family")
    now: dt.datetime | None = None


class DemoteArgs(PromoteArgs):
    """Withdraw what the user promoted (by the original's or the copy's id)."""

    reason: str | None = None


Subject = Literal["required", "optional", "none"]


@dataclasses.dataclass(frozen=True)
class Result:
    """A verb's result model: what its call returns and how the wire shows it.

    `model`: the type the call returns, already an object on the wire (None: the return type
    of Memory's method, as it is). `fields`: the wire object's fields the `Client`'s method
    returns (one: that field's value; several: a tuple of them); with no `model`, the call's
    bare value (or tuple) is wrapped in an object under those names.
    """

    model: type | None = None
    fields: tuple[str, ...] = ()

    @property
    def key(self) -> str | tuple[str, ...] | None:
        """What the `Client` returns of the wire's object (None: all of it)."""
        if not self.fields:
            return None
        return self.fields[0] if len(self.fields) == 1 else self.fields

    def wire(self, value: Any) -> Any:
        """The call's value as the wire shows it (plain JSON)."""
        if self.model is not None:
            if not isinstance(value, self.model):
                raise TypeError(f"expected a {self.model.__name__}, got {type(value).__name__}")
        elif len(self.fields) == 1:
            value = {self.fields[0]: value}
        elif self.fields:
            value = dict(zip(self.fields, value, strict=True))
        return plain(value)


AS_IS = Result()  # Memory's method's own result type, as its JSON shows it


@dataclasses.dataclass(frozen=True)
class Verb:
    """One verb: its name, arguments, what it does, and how it may be called.

    The row is the only place a verb is named: the service's routes and OpenAPI, the
    `Client`'s methods (generated into verb_methods.py from this row and `Memory`'s
    signatures), the `Verbs` protocol, the CLI's local-open rules and the agent tools'
    dispatch all read it.
    """

    name: str  # on the wire (/v1/subjects/{subject}/NAME) and in the CLI
    summary: str
    args: type[Args]  # fields: Memory's parameter names (aliases: the wire's)
    call: Callable[[Memory, str | None, Any], Any]
    # Memory's methods (and so the Client's) that are this verb (default: the name).
    methods: tuple[str, ...] = ()
    # "required": /v1/subjects/{subject}/NAME; "none": /v1/NAME (tenant-wide);
    # "optional": both (no subject: every subject of the tenant).
    subject: Subject = "required"
    writes: bool = False
    reacts: bool | None = None  # a local write compiles and checks the subject (default: writes)
    local_read: bool = False  # a local call may run it on a read-only open of the workspace
    command: str | None = None  # the CLI command that runs it (default: the name)
    # The result's model: the call's value as the wire shows it (default: as it is).
    result: Result = AS_IS
    # Client parameters sent as other fields: Memory's parameter -> the Client's helper.
    sent_as: tuple[tuple[str, str], ...] = ()
    aliases: tuple[str, ...] = ()  # earlier wire names, still answered (deprecated)
    # The CLI command's arguments come from this row: the fields given as positionals (the
    # others, but `now`, are options), with `cli_help` as its help. None: parser.py has it.
    cli: tuple[str, ...] | None = None
    cli_help: str | None = None
    long: bool = False  # long work: the service shows its progress at /v1/jobs/progress
    admin: bool = False  # True: refused to keys bound to one subject
    operator: bool = False  # True: the service's admin token only (every tenant's metadata)
    # For a verb that writes or not by its arguments (a tool call): whether these write.
    writes_when: Callable[[Any], bool] | None = None
    # For a verb that needs a tenant key by its arguments (quarantined text shown).
    admin_when: Callable[[Any], bool] | None = None

    @property
    def method_names(self) -> tuple[str, ...]:
        """Memory's (and the Client's) methods that are this verb."""
        return self.methods or (self.name.replace("-", "_"),)

    @property
    def reacting(self) -> bool:
        """Whether a local write of this verb compiles and checks the subject it wrote."""
        return self.writes if self.reacts is None else self.reacts

    def writes_with(self, args: Any) -> bool:
        """Whether a call with these arguments writes (refused to read-only keys)."""
        return self.writes or (self.writes_when is not None and self.writes_when(args))

    def admin_with(self, args: Any) -> bool:
        """Whether a call with these arguments is refused to keys bound to one subject."""
        return self.admin or (self.admin_when is not None and self.admin_when(args))


@contextlib.contextmanager
def _staged(mem: Memory, name: str, content: str) -> Iterator[Path]:
    """The sent content as a file named as sent, inside the workspace (mode 0700 there), so
    a crash leaves it where the next writable open sweeps it (Memory), never in /tmp."""
    from uac.runtime.api.memory import STAGING

    where = mem.home / STAGING
    where.mkdir(mode=0o700, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="uac-", dir=where) as tmp:
        path = Path(tmp) / name
        path.write_text(content, encoding="utf-8")
        try:
            yield path
        except UacError as exc:  # errors name the file as sent, never the server's staging
            exc.args = tuple(str(a).replace(str(path), name) for a in exc.args)
            raise


def _named(subject: str | None) -> str:
    """The subject of a verb that needs one (`run` refused a call without it)."""
    if subject is None:
        raise InputError("this verb needs a subject")
    return subject


def _import(mem: Memory, subject: str | None, a: ImportArgs) -> Any:
    # The importer detects formats from file names: give it the file as sent.
    with _staged(mem, a.name, a.content) as path:
        return mem.import_file(
            _named(subject), a.collection, path, format=a.format, session_id=a.session_id, now=a.now
        )


def _note(mem: Memory, subject: str | None, a: NoteArgs) -> Any:
    with _staged(mem, a.note_id, a.content) as path:
        return mem.note(_named(subject), path, note_id=a.note_id, now=a.now)


def _facts(mem: Memory, subject: str | None, a: FactsArgs) -> Any:
    facts = mem.facts(_named(subject), a.path)
    statuses = mem.statuses(_named(subject))
    return [{**plain(f), "derived": statuses.get(f.id)} for f in facts]


def _subject_of_alert(mem: Memory, subject: str | None, alert_id: str) -> str:
    if subject is not None:
        return subject
    from uac.fact_log.errors import NotFound

    found = [a for a in mem.alerts(None, include_resolved=True) if a.id == alert_id]
    if not found:
        raise NotFound(
            f"tenant {mem.tenant!r} has no alert {alert_id!r}; list them with: uac alerts --all"
        )
    return str(found[0].address)


def _acknowledge(mem: Memory, subject: str | None, a: AlertArgs) -> Any:
    return mem.acknowledge(_subject_of_alert(mem, subject, a.alert_id), a.alert_id, today=a.today)


def _rule(mem: Memory, subject: str | None, a: RuleArgs) -> RuleAdded:
    return mem._rule(_named(subject), a.rule, now=a.now)


def _snooze(mem: Memory, subject: str | None, a: SnoozeArgs) -> Any:
    where = _subject_of_alert(mem, subject, a.alert_id)
    return mem.snooze(where, a.alert_id, a.until, today=a.today)


def _check(mem: Memory, subject: str | None, a: CheckArgs) -> Any:
    res = mem.check(_named(subject), today=a.today)
    return {**plain(res), "subject": str(res.address)}


def _method(verb: Verb) -> Callable[[Memory, str | None, Any], Any]:
    """The call of a verb whose argument fields are its Memory method's keywords."""
    name = verb.method_names[0]

    def call(mem: Memory, subject: str | None, args: Args) -> Any:
        fields = {f: getattr(args, f) for f in type(args).model_fields}
        method = getattr(mem, name)
        return method(**fields) if verb.subject == "none" else method(subject, **fields)

    return call


def _verb(name: str, summary: str, args: type[Args], **kw: Any) -> Verb:
    verb = Verb(name, summary, args, kw.pop("call", None), **kw)  # type: ignore[arg-type]
    return verb if verb.call is not None else dataclasses.replace(verb, call=_method(verb))


VERBS: dict[str, Verb] = {
    v.name: v
    for v in (
        _verb("set", "Assert a single-valued attribute.", SetArgs, writes=True),
        _verb(
            "import",
            "Import records into a collection.",
            ImportArgs,
            call=_import,
            methods=("import_file", "import_records"),
            sent_as=(("file", "_file_fields"), ("records", "_records_fields")),
            writes=True,
            long=True,
        ),
        _verb("add", "Learn from one conversation message.", AddArgs, writes=True),
        _verb(
            "preview",
            "What a write would raise and clear, and the typed state it would create; writes "
            "nothing.",
            PreviewArgs,
            local_read=True,
        ),
        _verb(
            "remember",
            "An explicit 'remember this' (kept as a note if nothing typed is found).",
            RememberArgs,
            writes=True,
        ),
        _verb(
            "note",
            "Ingest a Markdown note.",
            NoteArgs,
            call=_note,
            sent_as=(("file", "_note_fields"),),
            writes=True,
        ),
        _verb(
            "prefer",
            "Store a soft (wording) preference.",
            PreferArgs,
            writes=True,
            cli=("text",),
            cli_help="Store a style wish that fits no preference slot.",
        ),
        _verb(
            "forget",
            "Retract one fact (appends a retract; nothing is deleted).",
            ForgetArgs,
            writes=True,
            cli=("fact_id",),
            cli_help="Retract one of a subject's facts (appends a retract; nothing is deleted).",
        ),
        _verb(
            "erase",
            "Legal erase: blank facts' content and everything derived; returns the report.",
            EraseArgs,
            writes=True,
            reacts=False,
            admin=True,
        ),
        _verb(
            "episode",
            "Record a past problem: what was tried, what worked, what did not.",
            EpisodeArgs,
            methods=("add_episode",),
            writes=True,
        ),
        _verb(
            "confirm",
            "Confirm an inferred preference (context then applies it as a rule).",
            ConfirmArgs,
            writes=True,
            cli=("path",),
            cli_help="Confirm a preference inferred from conversation (context shows it as a "
            "question until then).",
        ),
        _verb(
            "erasures",
            "Erasure reports of the subject (or of every subject of the tenant).",
            NoArgs,
            subject="optional",
            local_read=True,
            cli=(),
            cli_help="List erasure reports (no erased content) of a subject, or of the tenant.",
        ),
        _verb("feedback", "Mark a search result as 'not this'.", FeedbackArgs, writes=True),
        _verb(
            "rule",
            "Store a user rule.",
            RuleArgs,
            call=_rule,
            methods=("add_rule",),
            result=Result(RuleAdded, ("rule_id",)),
            writes=True,
        ),
        _verb(
            "member-add",
            "Make a user a member of the group (a fact in the group's log).",
            MemberArgs,
            command="member",
            writes=True,
            # A membership decides what another subject (the user) inherits: a key bound to
            # the group must not enrol any user of the tenant, so it takes a tenant key.
            admin=True,
        ),
        _verb(
            "member-remove",
            "End a user's membership of the group.",
            MemberRemoveArgs,
            command="member",
            writes=True,
            admin=True,  # as member-add: it changes what the user inherits
        ),
        _verb(
            "members",
            "A group's members, or the groups a user belongs to.",
            MembersArgs,
            command="member",
            local_read=True,
        ),
        _verb(
            "promote",
            "Share one of the user's facts with a group it belongs to (recorded).",
            PromoteArgs,
            writes=True,
        ),
        _verb(
            "demote",
            "Withdraw a fact the user promoted to a group.",
            DemoteArgs,
            writes=True,
        ),
        _verb(
            "facts",
            "The subject's facts with their derived status.",
            FactsArgs,
            call=_facts,
            local_read=True,
            cli=(),
            cli_help="List a subject's facts in log order.",
        ),
        _verb(
            "inputs",
            "Everything archived for the subject.",
            ShowArgs,
            local_read=True,
            admin_when=lambda a: a.show,  # quarantined text is for an operator's audit
            cli=(),
            cli_help="List a subject's archived raw inputs.",
        ),
        _verb(
            "rejections",
            "What the gate refused, and why.",
            ShowArgs,
            local_read=True,
            admin_when=lambda a: a.show,  # quarantined text is for an operator's audit
            cli=(),
            cli_help="List what the ingestion gate refused for a subject, and why.",
        ),
        _verb(
            "compile",
            "Compile the subject's typed state (no subject: all=true or changed=true).",
            CompileArgs,
            subject="optional",
            writes=True,
            reacts=False,
        ),
        _verb("query", "Run a program over the typed state (sandboxed).", QueryArgs),
        _verb("search", "Search notes and messages.", SearchArgs),
        _verb(
            "context",
            "The memory block for a system prompt.",
            ContextArgs,
            result=Result(fields=("context",)),
            cli=(),
            cli_help="Print the memory block for an agent's system prompt.",
        ),
        _verb(
            "manifest",
            "The compact manifest of the typed state.",
            NoArgs,
            result=Result(fields=("manifest",)),
            local_read=True,
            cli=(),
            cli_help="Print the compact manifest of a subject's current checkpoint.",
        ),
        _verb(
            "why",
            "Explain one value and the facts behind it.",
            WhyArgs,
            local_read=True,
            cli=("expr",),
            cli_help="Explain a compiled value: the facts behind it and what they superseded.",
        ),
        _verb(
            "diff",
            "Typed-state change between two checkpoints.",
            DiffArgs,
            result=Result(fields=("old", "new", "changes")),
            local_read=True,
            cli=("old", "new"),
            cli_help="Show the typed-state difference between two checkpoints.",
        ),
        _verb(
            "alerts",
            "Alerts of the subject (or of every subject of the tenant).",
            AlertsArgs,
            subject="optional",
            local_read=True,
            aliases=("tenant-alerts",),
        ),
        _verb(
            "questions",
            "What the checks need to know, and why (apart from the alerts).",
            AlertsArgs,
            subject="optional",
            local_read=True,
        ),
        _verb(
            "acknowledge",
            "Acknowledge an alert (without a subject: found by id in the tenant).",
            AlertArgs,
            call=_acknowledge,
            subject="optional",
            writes=True,
            reacts=False,
            aliases=("ack", "tenant-ack"),
        ),
        _verb(
            "snooze",
            "Hide an alert until a date (without a subject: found by id in the tenant).",
            SnoozeArgs,
            call=_snooze,
            subject="optional",
            writes=True,
            reacts=False,
            aliases=("tenant-snooze",),
        ),
        _verb(
            "check",
            "Run the subject's checks as of a day.",
            CheckArgs,
            call=_check,
            writes=True,
            cli=(),
            cli_help="Compile if needed and run a subject's checks now.",
        ),
        _verb(
            "tool",
            "Run one agent tool call for the subject (errors come back as {'error': ...}).",
            ToolArgs,
            writes_when=lambda a: tool_writes(a.name),
        ),
        _verb(
            "subjects",
            "Subjects of the tenant.",
            NoArgs,
            subject="none",
            local_read=True,
            cli=(),
            cli_help="List the tenant's subjects with fact and input counts.",
        ),
        _verb(
            "verify",
            "Walk the hash chain, keyed digests and anchors (optionally against an exported one).",
            VerifyArgs,
            subject="none",
            local_read=True,
            operator=True,
        ),
        _verb(
            "anchor",
            "The log's newest anchor (or all) for an external witness.",
            AnchorArgs,
            methods=("anchors",),
            subject="none",
            local_read=True,
            operator=True,
        ),
        _verb(
            "gc",
            "Compact derived data: retracted search rows, old checkpoints, outbox, jobs.",
            GcArgs,
            subject="none",
            writes=True,
            reacts=False,
        ),
        _verb(
            "run-once",
            "One scheduled pass over the tenant.",
            RunOnceArgs,
            subject="none",
            writes=True,
            reacts=False,
            long=True,
            cli=(),
            cli_help="One scheduled pass: compile changed, check all, record.",
        ),
    )
}
# Earlier wire names of a verb, still answered.
ALIASES: dict[str, str] = {alias: v.name for v in VERBS.values() for alias in v.aliases}
# Memory's methods that are verbs (the Client has each, with the same signature).
BY_METHOD: dict[str, Verb] = {m: v for v in VERBS.values() for m in v.method_names}
# CLI commands whose local writes react (compile, check, show alerts); `mcp` serves tools.
REACTING_COMMANDS = frozenset({v.command or v.name for v in VERBS.values() if v.reacting} | {"mcp"})
# Verbs a local call can serve from a read-only open (several readers may run together).
LOCAL_READS = frozenset(v.name for v in VERBS.values() if v.local_read)


def verb(name: str) -> Verb:
    """The verb of a name (or of an earlier name of it); InputError names the verbs."""
    found = VERBS.get(ALIASES.get(name, name))
    if found is None:
        raise InputError(f"unknown verb {name!r}; verbs: {', '.join(sorted(VERBS))}")
    return found


def parse_args(verb: Verb, params: dict[str, Any] | None) -> Args:
    """Validate a verb's arguments; InputError names the first bad field."""
    try:
        return verb.args.model_validate(params or {})
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        raise InputError(f"bad arguments for {verb.name}: {where}: {err['msg']}") from None


def run(mem: Memory, name: str, subject: str | None, params: dict[str, Any] | None) -> Any:
    """Run one verb on a Memory and return its plain-JSON result."""
    found = verb(name)
    if found.subject == "required" and subject is None:
        raise InputError(f"{found.name} needs a subject")
    if found.subject == "none":
        subject = None
    return execute(mem, found, subject, parse_args(found, params))


def execute(mem: Memory, verb: Verb, subject: str | None, args: Args) -> Any:
    """Call a verb with validated arguments and return its plain-JSON result.

    A write's result carries what its reaction did: the alerts it raised (or woke from a
    snooze) under `alerts`, those it cleared under `alerts_resolved`, and a `ticket` to
    ask about the reaction when the write did not wait for it to finish.
    """
    return verb.result.wire(verb.call(mem, subject, args))
