"""The verbs, defined once: what the HTTP service, the `Client` and the CLI all call.

Each `Verb` names a `Memory` method, the pydantic model of its arguments (which the server
also turns into its OpenAPI document), whether it writes, and whether it needs a subject.
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
from decimal import Decimal
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from uac.fact_log.addressing import Address
from uac.fact_log.errors import InputError, UacError
from uac.runtime.api.tools import dispatch, tool_writes

if TYPE_CHECKING:
    from uac.runtime.api.memory import Memory

MAX_TEXT = 65536


class Args(BaseModel):
    """Arguments of a verb (unknown fields are refused)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)  # built on first use


class NoArgs(Args):
    """No arguments."""


class VerifyArgs(Args):
    """Verify the log, optionally against an anchor exported earlier."""

    anchor: dict[str, Any] | None = None


class AnchorArgs(Args):
    """Export anchors."""

    all: bool = False


class ShowArgs(Args):
    """Whether to show quarantined text (masked) to an operator auditing it."""

    show: bool = Field(False, description="Include quarantined inputs' masked text")


class SetArgs(Args):
    """Assert a single-valued attribute."""

    path: str = Field(description="Catalog path, e.g. identity.passport.expiry_date")
    value: Any = Field(description="The value (text is parsed by the path's type)")
    valid_from: dt.datetime | None = None
    valid_to: dt.datetime | None = None
    session: str | None = None
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
    session: str | None = None
    now: dt.datetime | None = None


class AddArgs(Args):
    """Learn from one message of a conversation."""

    text: str = Field(max_length=MAX_TEXT)
    at: dt.datetime | None = Field(None, description="When the message was said")
    session: str | None = None
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
    session: str | None = None
    role: str = "user"
    today: dt.date | None = Field(None, description="Check as of this day (default: at/now's)")
    now: dt.datetime | None = Field(None, description="Recording time (default: now)")


class RememberArgs(Args):
    """An explicit 'remember this'."""

    text: str = Field(max_length=MAX_TEXT)
    session: str | None = None
    now: dt.datetime | None = None


class NoteArgs(Args):
    """Ingest a Markdown note."""

    content: str = Field(max_length=4 * MAX_TEXT)
    note_id: FileName = Field("note.md", description="The note's name: a new version replaces it")
    now: dt.datetime | None = None


class PreferArgs(Args):
    """Store a soft (wording) preference."""

    text: str = Field(max_length=MAX_TEXT)
    confidence: float = Field(1.0, ge=0.0, le=1.0)


class ForgetArgs(Args):
    """Retract one fact (the log keeps it)."""

    fact_id: str
    reason: str | None = None
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

    path: str = Field(description="A preference path, e.g. preferences.language")
    now: dt.datetime | None = None


class FeedbackArgs(Args):
    """Mark a search result as 'not this'."""

    item_id: str
    reason: str | None = None


class FactsArgs(Args):
    """The subject's facts, optionally at one path."""

    path: str | None = None


class CompileArgs(Args):
    """Compile the subject (optionally as of a time: a checkpoint that is not made current)."""

    as_of: dt.datetime | None = None
    known_at: dt.datetime | None = None


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


class ContextArgs(Args):
    """The memory block for an agent's system prompt."""

    query: str | None = Field(None, max_length=MAX_TEXT)
    budget: int = Field(800, ge=20, le=100_000)
    today: dt.date | None = None


class WhyArgs(Args):
    """Explain one value of the typed state."""

    expr: str = Field(max_length=500)


class DiffArgs(Args):
    """The typed-state change between two checkpoint versions."""

    v1: int | None = Field(None, ge=1)
    v2: int | None = Field(None, ge=1)


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

    today: dt.date | None = None


class ToolArgs(Args):
    """One agent tool call (see `uac tools`), run for the subject."""

    name: str
    arguments: dict[str, Any] | str | None = None


class RunOnceArgs(Args):
    """One scheduled pass over the tenant."""

    today: dt.date | None = None


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


@dataclasses.dataclass(frozen=True)
class Verb:
    """One verb: its name, arguments, what it does, and how it may be called."""

    name: str
    summary: str
    args: type[Args]
    call: Callable[[Memory, str | None, Any], Any]
    writes: bool = False
    subject: bool = True  # False: a tenant-wide verb
    long: bool = False  # long work: the service shows its progress at /v1/jobs/progress
    admin: bool = False  # True: refused to keys bound to one subject
    operator: bool = False  # True: the service's admin token only (every tenant's metadata)
    # For a verb that writes or not by its arguments (a tool call): whether these write.
    writes_when: Callable[[Any], bool] | None = None
    # For a verb that needs a tenant key by its arguments (quarantined text shown).
    admin_when: Callable[[Any], bool] | None = None

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


def _import(mem: Memory, subject: str | None, a: ImportArgs) -> Any:
    # The importer detects formats from file names: give it the file as sent.
    with _staged(mem, a.name, a.content) as path:
        return mem.import_file(
            subject, a.collection, path, format=a.format, session_id=a.session, now=a.now
        )


def _note(mem: Memory, subject: str | None, a: NoteArgs) -> Any:
    with _staged(mem, a.note_id, a.content) as path:
        return mem.note(subject, path, note_id=a.note_id, now=a.now)


def _facts(mem: Memory, subject: str | None, a: FactsArgs) -> Any:
    facts = mem.facts(subject, a.path)
    statuses = mem.statuses(subject)
    return [{**plain(f), "derived": statuses.get(f.id)} for f in facts]


def _query(mem: Memory, subject: str | None, a: QueryArgs) -> Any:
    # Memory.query compiles first when saved writes are missing from the checkpoint.
    return mem.query(subject, a.program, today=a.today, explain=a.explain, version=a.version)


def _diff(mem: Memory, subject: str | None, a: DiffArgs) -> Any:
    old, new, lines = mem.diff(subject, a.v1, a.v2)
    return {"old": old, "new": new, "changes": lines}


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


# The tenant-wide alert verbs are called with subject None: the same functions serve both.
def _alerts(mem: Memory, subject: str | None, a: AlertsArgs) -> Any:
    return mem.alerts(subject, include_resolved=a.include_resolved, today=a.today)


def _questions(mem: Memory, subject: str | None, a: AlertsArgs) -> Any:
    return mem.questions(subject, include_resolved=a.include_resolved, today=a.today)


def _ack(mem: Memory, subject: str | None, a: AlertArgs) -> Any:
    return mem.acknowledge(_subject_of_alert(mem, subject, a.alert_id), a.alert_id, today=a.today)


def _rule(mem: Memory, subject: str, args: Any) -> dict[str, Any]:
    from uac.runtime.api.reactor import caused

    rid, reaction = mem._add_rule(subject, args.rule, args.now)
    return {"rule_id": rid, **caused(reaction)}


def _snooze(mem: Memory, subject: str | None, a: SnoozeArgs) -> Any:
    where = _subject_of_alert(mem, subject, a.alert_id)
    return mem.snooze(where, a.alert_id, a.until, today=a.today)


def _check(mem: Memory, subject: str | None, a: CheckArgs) -> Any:
    res = mem.check(subject, today=a.today)
    return {
        "subject": str(res.address),
        "version": res.version,
        "checks": res.checks,
        "new": res.new,
        "still_open": res.still_open,
        "resolved": res.resolved,
        "woken": res.woken,
        "errors": res.errors,
        "delivery_errors": res.delivery_errors,
        "preview": res.preview,
    }


VERBS: dict[str, Verb] = {
    v.name: v
    for v in (
        Verb(
            "set",
            "Assert a single-valued attribute.",
            SetArgs,
            lambda m, s, a: m.set(
                s,
                a.path,
                a.value,
                valid_from=a.valid_from,
                valid_to=a.valid_to,
                session_id=a.session,
                now=a.now,
            ),
            writes=True,
        ),
        Verb(
            "import",
            "Import records into a collection.",
            ImportArgs,
            _import,
            writes=True,
            long=True,
        ),
        Verb(
            "add",
            "Learn from one conversation message.",
            AddArgs,
            lambda m, s, a: m.add(s, a.text, at=a.at, session_id=a.session, role=a.role, now=a.now),
            writes=True,
        ),
        Verb(
            "preview",
            "What a write would raise and clear, and the typed state it would create; writes "
            "nothing.",
            PreviewArgs,
            lambda m, s, a: m.preview(
                s,
                a.text,
                facts=a.facts,
                at=a.at,
                session_id=a.session,
                role=a.role,
                today=a.today,
                now=a.now,
            ),
        ),
        Verb(
            "remember",
            "An explicit 'remember this' (kept as a note if nothing typed is found).",
            RememberArgs,
            lambda m, s, a: m.remember(s, a.text, session_id=a.session, now=a.now),
            writes=True,
        ),
        Verb("note", "Ingest a Markdown note.", NoteArgs, _note, writes=True),
        Verb(
            "prefer",
            "Store a soft (wording) preference.",
            PreferArgs,
            lambda m, s, a: m.prefer(s, a.text, confidence=a.confidence),
            writes=True,
        ),
        Verb(
            "forget",
            "Retract one fact (appends a retract; nothing is deleted).",
            ForgetArgs,
            lambda m, s, a: m.forget(s, a.fact_id, reason=a.reason, now=a.now),
            writes=True,
        ),
        Verb(
            "erase",
            "Legal erase: blank facts' content and everything derived; returns the report.",
            EraseArgs,
            lambda m, s, a: m.erase(s, a.fact_ids, all=a.all, reason=a.reason, now=a.now),
            writes=True,
            admin=True,
        ),
        Verb(
            "episode",
            "Record a past problem: what was tried, what worked, what did not.",
            EpisodeArgs,
            lambda m, s, a: m.add_episode(
                s,
                a.problem,
                tried=a.tried,
                worked=a.worked,
                failed=a.failed,
                date=a.date,
                now=a.now,
            ),
            writes=True,
        ),
        Verb(
            "confirm",
            "Confirm an inferred preference (context then applies it as a rule).",
            ConfirmArgs,
            lambda m, s, a: m.confirm(s, a.path, now=a.now),
            writes=True,
        ),
        Verb(
            "erasures",
            "The subject's erasure reports.",
            NoArgs,
            lambda m, s, a: m.erasures(s),
        ),
        Verb(
            "feedback",
            "Mark a search result as 'not this'.",
            FeedbackArgs,
            lambda m, s, a: m.feedback(s, a.item_id, reason=a.reason),
            writes=True,
        ),
        Verb(
            "rule",
            "Store a user rule.",
            RuleArgs,
            _rule,
            writes=True,
        ),
        Verb(
            "member-add",
            "Make a user a member of the group (a fact in the group's log).",
            MemberArgs,
            lambda m, s, a: m.member_add(
                s, a.user, valid_from=a.valid_from, valid_to=a.valid_to, now=a.now
            ),
            writes=True,
            # A membership decides what another subject (the user) inherits: a key bound to
            # the group must not enrol any user of the tenant, so it takes a tenant key.
            admin=True,
        ),
        Verb(
            "member-remove",
            "End a user's membership of the group.",
            MemberRemoveArgs,
            lambda m, s, a: m.member_remove(s, a.user, at=a.at, now=a.now),
            writes=True,
            admin=True,  # as member-add: it changes what the user inherits
        ),
        Verb(
            "members",
            "A group's members, or the groups a user belongs to.",
            MembersArgs,
            lambda m, s, a: m.members(s, at=a.at),
        ),
        Verb(
            "promote",
            "Share one of the user's facts with a group it belongs to (recorded).",
            PromoteArgs,
            lambda m, s, a: m.promote(s, a.fact_id, a.group, now=a.now),
            writes=True,
        ),
        Verb(
            "demote",
            "Withdraw a fact the user promoted to a group.",
            DemoteArgs,
            lambda m, s, a: m.demote(s, a.fact_id, a.group, reason=a.reason, now=a.now),
            writes=True,
        ),
        Verb("facts", "The subject's facts with their derived status.", FactsArgs, _facts),
        Verb(
            "inputs",
            "Everything archived for the subject.",
            ShowArgs,
            lambda m, s, a: m.inputs(s, show=a.show),
            admin_when=lambda a: a.show,  # quarantined text is for an operator's audit
        ),
        Verb(
            "rejections",
            "What the gate refused, and why.",
            ShowArgs,
            lambda m, s, a: m.rejections(s, show=a.show),
            admin_when=lambda a: a.show,  # quarantined text is for an operator's audit
        ),
        Verb(
            "compile",
            "Compile the subject's typed state.",
            CompileArgs,
            lambda m, s, a: m.compile(s, as_of=a.as_of, known_at=a.known_at),
            writes=True,
        ),
        Verb("query", "Run a program over the typed state (sandboxed).", QueryArgs, _query),
        Verb(
            "search",
            "Search notes and messages.",
            SearchArgs,
            lambda m, s, a: m.search(s, a.text, k=a.k, since=a.since, kind=a.kind, today=a.today),
        ),
        Verb(
            "context",
            "The memory block for a system prompt.",
            ContextArgs,
            lambda m, s, a: {
                "context": m.context(s, query=a.query, budget=a.budget, today=a.today)
            },
        ),
        Verb(
            "manifest",
            "The compact manifest of the typed state.",
            NoArgs,
            lambda m, s, a: {"manifest": m.manifest(s)},
        ),
        Verb(
            "why",
            "Explain one value and the facts behind it.",
            WhyArgs,
            lambda m, s, a: m.why(s, a.expr),
        ),
        Verb("diff", "Typed-state change between two checkpoints.", DiffArgs, _diff),
        Verb(
            "alerts",
            "The subject's alerts.",
            AlertsArgs,
            _alerts,
        ),
        Verb(
            "questions",
            "What the subject's checks need to know, and why (apart from the alerts).",
            AlertsArgs,
            _questions,
        ),
        Verb(
            "ack",
            "Acknowledge an alert.",
            AlertArgs,
            _ack,
            writes=True,
        ),
        Verb(
            "snooze",
            "Hide an alert until a date.",
            SnoozeArgs,
            _snooze,
            writes=True,
        ),
        Verb("check", "Run the subject's checks as of a day.", CheckArgs, _check, writes=True),
        Verb(
            "tool",
            "Run one agent tool call for the subject (errors come back as {'error': ...}).",
            ToolArgs,
            lambda m, s, a: dispatch(m, s, a.name, a.arguments),
            writes_when=lambda a: tool_writes(a.name),
        ),
        Verb(
            "subjects",
            "Subjects of the tenant.",
            NoArgs,
            lambda m, s, a: m.subjects(),
            subject=False,
        ),
        Verb(
            "verify",
            "Walk the hash chain, keyed digests and anchors (optionally against an exported one).",
            VerifyArgs,
            lambda m, s, a: m.verify(a.anchor),
            subject=False,
            operator=True,
        ),
        Verb(
            "anchor",
            "The log's newest anchor (or all) for an external witness.",
            AnchorArgs,
            lambda m, s, a: m.anchors(a.all),
            subject=False,
            operator=True,
        ),
        Verb(
            "tenant-alerts",
            "Alerts of every subject of the tenant.",
            AlertsArgs,
            _alerts,
            subject=False,
        ),
        Verb(
            "tenant-ack",
            "Acknowledge an alert by id.",
            AlertArgs,
            _ack,
            writes=True,
            subject=False,
        ),
        Verb(
            "tenant-snooze",
            "Snooze an alert by id.",
            SnoozeArgs,
            _snooze,
            writes=True,
            subject=False,
        ),
        Verb(
            "gc",
            "Compact derived data: retracted search rows, old checkpoints, outbox, jobs.",
            GcArgs,
            lambda m, s, a: m.gc(keep=a.keep, older_than_days=a.older_than_days, now=a.now),
            writes=True,
            subject=False,
        ),
        Verb(
            "run-once",
            "One scheduled pass over the tenant.",
            RunOnceArgs,
            lambda m, s, a: m.run_once(today=a.today),
            writes=True,
            subject=False,
            long=True,
        ),
    )
}


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
    verb = VERBS.get(name)
    if verb is None:
        raise InputError(f"unknown verb {name!r}; verbs: {', '.join(sorted(VERBS))}")
    if verb.subject and subject is None:
        raise InputError(f"{name} needs a subject")
    return execute(mem, verb, subject if verb.subject else None, parse_args(verb, params))


def execute(mem: Memory, verb: Verb, subject: str | None, args: Args) -> Any:
    """Call a verb with validated arguments and return its plain-JSON result.

    A write's result carries what its reaction did: the alerts it raised (or woke from a
    snooze) under `alerts`, those it cleared under `alerts_resolved`, and a `ticket` to
    ask about the reaction when the write did not wait for it to finish.
    """
    return plain(verb.call(mem, subject, args))


_AS_IS = frozenset({str, int, bool, type(None)})


def plain(value: Any) -> Any:
    """A JSON-ready view of a verb's result (facts and alerts as dicts, dates ISO)."""
    if type(value) in _AS_IS:  # most values of a long listing: answered first
        return value
    if isinstance(value, Address | PurePath):
        return str(value)
    if hasattr(value, "as_dict") and callable(value.as_dict):
        return plain(value.as_dict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, float) and value != value:  # NaN is not JSON
        return None
    return value
