"""Agent tools, defined once: OpenAI function-calling specs, a dispatcher, `AgentTools`.

The host binds the subject: a model can only read and write the one user the conversation
is about, never choose another subject or tenant. Arguments are validated with pydantic;
results are JSON-ready dicts; errors come back as {"error": "..."} rather than exceptions.

Tools run in process against a `ToolHost` (the part of `Memory` they use), so this module
never imports `Memory`: the surfaces (MCP, OpenAI tools, CLI) sit above the verbs and the
verbs know nothing of their surfaces. `AgentTools` takes any `Verbs` (a `Memory` or a
service `Client`) and runs each call through the `tool` verb: in process, or on the server.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from uac.compiler.canonical import to_json
from uac.fact_log.errors import InputError, UacError
from uac.runtime.api.verb_methods import Verbs


class ToolHost(Protocol):
    """What the tools call in process: implemented by `Memory`."""

    def address(self, subject: str) -> Any: ...
    def stale(self, subject: str) -> bool: ...
    def compile(self, subject: str) -> Any: ...
    def manifest(self, subject: str) -> str: ...
    def why(self, subject: str, expr: str) -> Any: ...
    def query(self, subject: str, program: str, *, explain: bool = False) -> dict[str, Any]: ...
    def search(
        self, subject: str, text: str, *, k: int = 5, neighbours: int | None = None
    ) -> list[Any]: ...
    def facts(self, subject: str, path: str | None = None) -> list[Any]: ...
    def add(self, subject: str, text: str, *, session_id: str | None = None) -> Any: ...
    def remember(self, subject: str, text: str, *, session_id: str | None = None) -> Any: ...
    def forget(self, subject: str, fact_id: str, *, reason: str | None = None) -> Any: ...
    def questions(self, subject: str) -> list[Any]: ...
    def preview(
        self,
        subject: str,
        text: str | None = None,
        *,
        facts: Sequence[dict[str, Any]] | None = None,
        at: dt.datetime | None = None,
        session_id: str | None = None,
    ) -> Any: ...
    def set(self, subject: str, path: str, value: Any) -> Any: ...
    def import_records(self, subject: str, collection: str, records: list[Any]) -> Any: ...


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)  # built on first use


class NoArgs(_Args):
    """No arguments."""


class WhyArgs(_Args):
    """Arguments of `why`."""

    expr: str = Field(description="A path into the typed state, e.g. user.passport.expiry_date")


class FactsArgs(_Args):
    """Arguments of `facts`."""

    path: str | None = Field(None, description="Only facts at this catalog path")
    limit: int = Field(50, ge=1, le=500, description="At most this many, newest first")


class TextArgs(_Args):
    """Arguments of `add` and `remember`."""

    text: str = Field(description="The user's own words", max_length=65536)
    session: str | None = Field(
        None,
        description="The conversation this message belongs to: messages of one session are "
        "read together ('it', 'the return flight', 'make that the 12th')",
        max_length=200,
    )


class QueryArgs(_Args):
    """Arguments of `query`."""

    program: str = Field(
        description="A Python expression (or a few statements ending in one) over `user`, "
        "e.g. sum(t.cost for t in user.trips if t.depart.year == 2024)",
        max_length=20000,
    )
    explain: bool = Field(False, description="Also return the records and fact ids read")


class SearchArgs(_Args):
    """Arguments of `search`."""

    text: str = Field(description="What to look for in the user's notes and past messages")
    k: int = Field(5, ge=1, le=50, description="How many results")
    neighbours: int | None = Field(
        None,
        ge=0,
        le=5,
        description="Turns either side returned with each hit (default: 1 for messages)",
    )


class ForgetArgs(_Args):
    """Arguments of `forget`."""

    fact_id: str = Field(description="Id of the fact to retract (see facts/why)")
    reason: str | None = Field(None, description="Why it is wrong or obsolete")


class ProposedFact(_Args):
    """One typed fact of a plan: an attribute's value, or one record of a collection."""

    path: str = Field(
        description="Catalog path: an attribute (identity.passport.expiry_date) or a "
        "collection (travel.trips, health.medications, schedule.events)"
    )
    value: Any = Field(None, description="The attribute's value (dates as YYYY-MM-DD)")
    record: dict[str, Any] | None = Field(
        None,
        description='For a collection: the record\'s fields, e.g. {"city": "Tokyo", '
        '"country": "JP", "depart": "2026-05-28", "return_date": "2026-06-12"}',
    )


class PlanArgs(_Args):
    """Arguments of `check_plan`."""

    text: str | None = Field(
        None,
        description="The plan in the user's words, e.g. 'I'm flying Lisbon to Tokyo on 28 May, "
        "back on 12 June'",
        max_length=65536,
    )
    facts: list[ProposedFact] | None = Field(
        None, description="The plan as typed facts (instead of, or with, text)"
    )
    at: str | None = Field(None, description="When the plan is made (YYYY-MM-DD; default: now)")
    session: str | None = Field(None, description="The conversation the plan belongs to")


@dataclass(frozen=True)
class Tool:
    """One agent tool: name, description, argument model, and what it does."""

    name: str
    description: str
    args: type[_Args]
    run: Callable[[ToolHost, str, Any], Any]
    writes: bool = False  # True: appends to the log (refused to read-only keys)


def fresh_checkpoint(mem: ToolHost, subject: str) -> None:
    """Compile the subject first if it has facts the current checkpoint does not hold."""
    if mem.stale(subject):
        mem.compile(subject)


def _manifest(mem: ToolHost, subject: str, _: NoArgs) -> dict[str, Any]:
    fresh_checkpoint(mem, subject)
    return {"manifest": mem.manifest(subject)}


def _why(mem: ToolHost, subject: str, args: WhyArgs) -> dict[str, Any]:
    fresh_checkpoint(mem, subject)
    exp = mem.why(subject, args.expr)
    return {
        "expr": exp.expr,
        "value": to_json(exp.value),
        "facts": [_fact(f) for f in exp.facts],
        "superseded": [_fact(f) for f in exp.superseded],
    }


def _query(mem: ToolHost, subject: str, args: QueryArgs) -> dict[str, Any]:
    fresh_checkpoint(mem, subject)
    return mem.query(subject, args.program, explain=args.explain)


def _search(mem: ToolHost, subject: str, args: SearchArgs) -> dict[str, Any]:
    hits = mem.search(subject, args.text, k=args.k, neighbours=args.neighbours)
    return {
        "results": [
            {
                "id": h.id,
                "kind": h.kind,
                "text": h.text,
                "date": h.date,
                "score": round(h.score, 6),
                "not_this": h.negative_feedback,
                "neighbours": [
                    {"id": n.id, "text": n.text, "date": n.date, "offset": n.offset}
                    for n in h.neighbours
                ],
            }
            for h in hits
        ]
    }


def _facts(mem: ToolHost, subject: str, args: FactsArgs) -> dict[str, Any]:
    facts = mem.facts(subject, args.path)[-args.limit :][::-1]
    return {"facts": [_fact(f) for f in facts]}


def _questions(mem: ToolHost, subject: str, _: NoArgs) -> dict[str, Any]:
    asked = [q if isinstance(q, dict) else q.as_dict() for q in mem.questions(subject)]
    return {
        "questions": [
            {"ask": q["message"].removeprefix("To confirm: "), "why": q["why"], "id": q["id"]}
            for q in asked
        ]
    }


def _reacting(out: dict[str, Any], result: Any) -> dict[str, Any]:
    """A write tool's answer with the alerts the write's reaction raised or cleared."""
    found = result if isinstance(result, dict) else {}

    def field(name: str) -> Any:
        return found.get(name) if found else getattr(result, name, None)

    for name in ("alerts", "alerts_resolved"):  # None: no reaction known, nothing claimed
        if field(name) is not None:
            out[name] = [a if isinstance(a, dict) else a.as_dict() for a in field(name)]
    if field("ticket") is not None:  # the reaction was still running: ask for it later
        out["ticket"] = field("ticket")
    return out


def _learned(learned: Any) -> dict[str, Any]:
    return {
        "input_id": learned.input_id,
        "facts": [_fact(f) for f in learned.facts],
        "refused": learned.refused,
        # paths the message may state that uac could not fill: the agent may call `record`
        "hints": getattr(learned, "hints", []),
    }


def _add(mem: ToolHost, subject: str, args: TextArgs) -> dict[str, Any]:
    learned = mem.add(subject, args.text, session_id=args.session)
    return _reacting(_learned(learned), learned)


def _remember(mem: ToolHost, subject: str, args: TextArgs) -> dict[str, Any]:
    learned = mem.remember(subject, args.text, session_id=args.session)
    return _reacting(_learned(learned), learned)


def _check_plan(mem: ToolHost, subject: str, args: PlanArgs) -> dict[str, Any]:
    facts = [f.model_dump(exclude_unset=True) for f in args.facts or ()]
    at = None
    if args.at is not None:
        try:
            at = dt.datetime.fromisoformat(args.at)
        except ValueError:
            raise InputError(f"at: not a date or datetime: {args.at!r}") from None
    out = mem.preview(subject, args.text, facts=facts, at=at, session_id=args.session)
    return out.as_dict() if hasattr(out, "as_dict") else out


def _record(mem: ToolHost, subject: str, args: ProposedFact) -> dict[str, Any]:
    if (args.record is None) == ("value" not in args.model_fields_set):
        raise InputError("record: give either 'value' (an attribute) or 'record' (a collection)")

    if args.record is not None:
        done = mem.import_records(subject, args.path, [args.record])
        imported = done if isinstance(done, dict) else dataclasses.asdict(done)
        return _reacting({"path": imported["path"], "facts": imported["facts"]}, done)
    written = mem.set(subject, args.path, args.value)
    return _reacting({"fact": _fact(written)}, written)


def _forget(mem: ToolHost, subject: str, args: ForgetArgs) -> dict[str, Any]:
    retract = mem.forget(subject, args.fact_id, reason=args.reason)
    return _reacting({"retract": _fact(retract)}, retract)


TOOLS: dict[str, Tool] = {
    t.name: t
    for t in (
        Tool(
            "manifest",
            "The compact manifest of what uac knows about the user: typed "
            "collections, counts, date ranges, field names and types.",
            NoArgs,
            _manifest,
        ),
        Tool(
            "query",
            "Answer a question about the user exactly by running a small Python "
            "program over the typed state (counts, sums, top-k, date windows). Helpers: "
            "group_by, count_by, sum_by, top_k, window, by_month, by_year; Counter, date, "
            "timedelta, Decimal, math, statistics; `today` is given.",
            QueryArgs,
            _query,
        ),
        Tool(
            "why",
            "Explain a value of the user's typed state: the facts behind it, their "
            "evidence, and what they superseded.",
            WhyArgs,
            _why,
        ),
        Tool(
            "search",
            "Find the user's free-text notes and past messages by meaning "
            "(for what is not in the typed state).",
            SearchArgs,
            _search,
        ),
        Tool("facts", "The user's most recent facts from the append-only log.", FactsArgs, _facts),
        Tool(
            "questions",
            "What uac would like to ask the user (a fact a check needs, and why); ask when it "
            "fits the conversation. An answer given to `add` closes the question.",
            NoArgs,
            _questions,
        ),
        Tool(
            "add",
            "Give uac one message the user wrote; it keeps what it can verify as facts. The "
            "result lists any alert the new facts raised (tell the user about it), and "
            "`hints`: paths the message may state that uac could not fill — if the message "
            "does state them, call `record` with the typed value.",
            TextArgs,
            _add,
            writes=True,
        ),
        Tool(
            "record",
            "Record one typed fact the user stated, when `add` could not (its `hints` say "
            "which): an attribute with `value` (identity.passport.expiry_date = 2035-03-05) "
            "or one record of a collection with `record` (travel.trips, health.allergies, "
            "schedule.events, ...). Only what the user said; the catalog validates it.",
            ProposedFact,
            _record,
            writes=True,
        ),
        Tool(
            "check_plan",
            "Call this BEFORE acting for the user — booking a trip or a flight, scheduling a "
            "call or an appointment, suggesting or prescribing a medicine, committing to a "
            "deadline — with the plan (in words or as typed facts). It checks the plan "
            "against everything known about the user (passport validity, visas, allergies "
            "and drug interactions, calendar clashes, the user's own rules) and returns the "
            "alerts it would raise and clear, with why and the next step. Nothing is saved: "
            "if an alert is raised, tell the user before you act; once the user confirms, "
            "record the plan with `add`.",
            PlanArgs,
            _check_plan,
        ),
        Tool(
            "remember",
            "The user explicitly asked to remember this.",
            TextArgs,
            _remember,
            writes=True,
        ),
        Tool(
            "forget",
            "Retract one of the user's facts (the log keeps a record).",
            ForgetArgs,
            _forget,
            writes=True,
        ),
    )
}


def register(tool: Tool) -> None:
    """Add a tool (used by capabilities that live in other modules, e.g. query and search)."""
    TOOLS[tool.name] = tool


def openai_specs() -> list[dict[str, Any]]:
    """OpenAI function-calling tool schemas for every tool."""
    specs = []
    for tool in TOOLS.values():
        schema = tool.args.model_json_schema()
        schema.pop("title", None)
        schema.pop("description", None)
        specs.append(
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": schema,
                },
            }
        )
    return specs


def tool_writes(name: str) -> bool:
    """Whether the named tool appends to the log (an unknown name writes nothing)."""
    tool = TOOLS.get(name)
    return tool is not None and tool.writes


def dispatch(
    mem: ToolHost,
    subject: str,
    name: str,
    arguments: str | dict[str, Any] | None,
    *,
    read_only: bool = False,
) -> dict[str, Any]:
    """Run one tool call for the bound subject; errors are returned, not raised.

    `read_only` (a read-only key's call) refuses the tools that write.
    """
    tool = TOOLS.get(name)
    if tool is None:
        return {"error": f"unknown tool {name!r}; tools: {', '.join(sorted(TOOLS))}"}
    if read_only and tool.writes:
        return {"error": f"this key is read-only and {name} writes; use a key that may write"}
    try:
        raw = json.loads(arguments) if isinstance(arguments, str) else (arguments or {})
        args = tool.args.model_validate(raw)
    except (ValueError, ValidationError) as exc:
        return {"error": f"bad arguments for {name}: {_first_error(exc)}"}
    try:
        return to_json(tool.run(mem, subject, args))
    except UacError as exc:
        return {"error": str(exc)}


class AgentTools:
    """The agent tools bound to one subject: `specs()` for the model, `call()` for its calls.

    `AgentTools(mem, "alice")` works over a `Memory` or a service `Client` alike; the
    subject is the host's choice, never an argument the model can set.
    """

    def __init__(self, verbs: Verbs, subject: str):
        self.verbs = verbs
        self.subject = subject

    def specs(self) -> list[dict[str, Any]]:
        """OpenAI function-calling schemas of the tools."""
        return openai_specs()

    def call(self, name: str, arguments: str | dict[str, Any] | None) -> dict[str, Any]:
        """Execute one tool call from the model; errors come back as {"error": ...}."""
        return self.verbs.tool(self.subject, name, arguments)


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors(include_url=False)[0]
        return f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
    return str(exc)


def _fact(fact: Any) -> dict[str, Any]:
    return {
        "id": fact.id,
        "seq": fact.seq,
        "op": fact.op,
        "kind": fact.kind,
        "path": fact.path,
        "key": fact.record_key,
        "value": fact.value,
        "text": fact.text,
        "source": fact.source,
        "confidence": fact.confidence,
        "recorded_at": fact.recorded_at.isoformat(),
        "evidence": fact.evidence,
    }
