# ruff: noqa: E501
"""The verbs as methods, generated from the verb table and `Memory`'s signatures.

Do not edit: run `python -m uac.runtime.api.verb_codegen` (runtime/api/verb_codegen.py);
tests/test_verb_table.py fails when this file is stale.

`Verbs` is the protocol `Memory` (in process) and `Client` (over HTTP) both satisfy;
`RemoteVerbs` is the `Client`'s half: each method sends its wire fields and decodes the
answer into `Memory`'s result type. Parameters a server cannot take (a progress callback,
sandbox limits, sinks) are refused by `_local_only` when given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Sequence
    from pathlib import Path

    from uac.checks.alerts import EvaluationResult
    from uac.checks.model import Alert
    from uac.checks.scheduler import JobResult
    from uac.checks.sinks import Sink
    from uac.compiler.checkpoint import CompileResult
    from uac.fact_log.chain_rows import VerifyReport
    from uac.fact_log.progress_callback import Report
    from uac.fact_log.rows import Fact, Input, SubjectInfo
    from uac.runtime.api.preview import Preview
    from uac.runtime.api.reactor import Written
    from uac.runtime.api.reads import Explanation
    from uac.runtime.api.writes import ImportResult, Learned
    from uac.runtime.sandbox.limits import Limits
    from uac.runtime.search.index import SearchHit

# Where each result type lives: an answer is decoded into it (imported on first use).
RESULT_TYPES = {
    "Alert": "uac.checks.model",
    "CompileResult": "uac.compiler.checkpoint",
    "EvaluationResult": "uac.checks.alerts",
    "Explanation": "uac.runtime.api.reads",
    "Fact": "uac.fact_log.rows",
    "ImportResult": "uac.runtime.api.writes",
    "Input": "uac.fact_log.rows",
    "JobResult": "uac.checks.scheduler",
    "Learned": "uac.runtime.api.writes",
    "Preview": "uac.runtime.api.preview",
    "SearchHit": "uac.runtime.search.index",
    "SubjectInfo": "uac.fact_log.rows",
    "VerifyReport": "uac.fact_log.chain_rows",
    "Written": "uac.runtime.api.reactor",
}


# The CLI sub-commands the verb table defines (runtime/cli/parser.py adds them).
COMMANDS = {
    "prefer": {
        "verb": "prefer",
        "help": "Store a style wish that fits no preference slot.",
        "subject": "required",
        "arguments": [
            [["text"], {"help": 'e.g. "give the root cause first, then the steps"', "kind": "str"}],
            [
                ["--confidence"],
                {
                    "help": "0-1 (default: %(default)s)",
                    "dest": "confidence",
                    "default": 1.0,
                    "kind": "float",
                },
            ],
        ],
    },
    "forget": {
        "verb": "forget",
        "help": "Retract one of a subject's facts (appends a retract; nothing is deleted).",
        "subject": "required",
        "arguments": [
            [["fact_id"], {"help": "id of the fact to retract (see 'uac facts')", "kind": "str"}],
            [["--reason"], {"help": "why it is forgotten", "dest": "reason", "kind": "str"}],
        ],
    },
    "confirm": {
        "verb": "confirm",
        "help": "Confirm a preference inferred from conversation (context shows it as a question until then).",
        "subject": "required",
        "arguments": [
            [["path"], {"help": "preference path, e.g. preferences.language", "kind": "str"}]
        ],
    },
    "erasures": {
        "verb": "erasures",
        "help": "List erasure reports (no erased content) of a subject, or of the tenant.",
        "subject": "optional",
        "arguments": [],
    },
    "facts": {
        "verb": "facts",
        "help": "List a subject's facts in log order.",
        "subject": "required",
        "arguments": [
            [["--path"], {"help": "only facts at this path", "dest": "path", "kind": "str"}]
        ],
    },
    "inputs": {
        "verb": "inputs",
        "help": "List a subject's archived raw inputs.",
        "subject": "required",
        "arguments": [
            [
                ["--show"],
                {
                    "help": "operator audit: show quarantined inputs' text (secrets stay masked)",
                    "dest": "show",
                    "kind": "flag",
                },
            ]
        ],
    },
    "rejections": {
        "verb": "rejections",
        "help": "List what the ingestion gate refused for a subject, and why.",
        "subject": "required",
        "arguments": [
            [
                ["--show"],
                {
                    "help": "operator audit: show quarantined inputs' text (secrets stay masked)",
                    "dest": "show",
                    "kind": "flag",
                },
            ]
        ],
    },
    "context": {
        "verb": "context",
        "help": "Print the memory block for an agent's system prompt.",
        "subject": "required",
        "arguments": [
            [
                ["--query"],
                {
                    "help": "the current user message: adds the most relevant notes",
                    "dest": "query",
                    "kind": "str",
                },
            ],
            [
                ["--budget"],
                {
                    "help": "token budget (default: %(default)s)",
                    "dest": "budget",
                    "default": 800,
                    "kind": "int",
                },
            ],
            [
                ["--today"],
                {"help": "reference date for recency and alerts", "dest": "today", "kind": "day"},
            ],
            [
                ["--notes"],
                {
                    "help": "Most relevant notes quoted, at most (default: %(default)s)",
                    "dest": "notes",
                    "default": 5,
                    "kind": "int",
                },
            ],
        ],
    },
    "manifest": {
        "verb": "manifest",
        "help": "Print the compact manifest of a subject's current checkpoint.",
        "subject": "required",
        "arguments": [],
    },
    "why": {
        "verb": "why",
        "help": "Explain a compiled value: the facts behind it and what they superseded.",
        "subject": "required",
        "arguments": [
            [
                ["expr"],
                {
                    "help": "user.passport.expiry_date, user.trips[0], user.trips['FR|Paris|2025-03-05']",
                    "kind": "str",
                },
            ]
        ],
    },
    "diff": {
        "verb": "diff",
        "help": "Show the typed-state difference between two checkpoints.",
        "subject": "required",
        "arguments": [
            [
                ["v1"],
                {"help": "older version (default: the one before v2)", "nargs": "?", "kind": "int"},
            ],
            [["v2"], {"help": "newer version (default: current)", "nargs": "?", "kind": "int"}],
        ],
    },
    "check": {
        "verb": "check",
        "help": "Compile if needed and run a subject's checks now.",
        "subject": "required",
        "arguments": [
            [["--today"], {"help": "the date checks use", "dest": "today", "kind": "day"}]
        ],
    },
    "subjects": {
        "verb": "subjects",
        "help": "List the tenant's subjects with fact and input counts.",
        "subject": "none",
        "arguments": [],
    },
    "run-once": {
        "verb": "run-once",
        "help": "One scheduled pass: compile changed, check all, record.",
        "subject": "none",
        "arguments": [
            [["--today"], {"help": "the date checks use", "dest": "today", "kind": "day"}]
        ],
    },
}


class Verbs(Protocol):
    """The verbs of `Memory` and of `Client`, one signature each."""

    def set(
        self,
        subject: str,
        path: str,
        value: Any,
        *,
        valid_from: dt.datetime | dt.date | None = None,
        valid_to: dt.datetime | dt.date | None = None,
        session_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Written: ...
    def import_file(
        self,
        subject: str,
        collection: str,
        file: str | Path,
        *,
        format: str | None = None,
        session_id: str | None = None,
        now: dt.datetime | None = None,
        progress: Report | None = None,
    ) -> ImportResult: ...
    def import_records(
        self,
        subject: str,
        collection: str,
        records: list[dict[str, Any]],
        *,
        session_id: str | None = None,
        now: dt.datetime | None = None,
        progress: Report | None = None,
    ) -> ImportResult: ...
    def add(
        self,
        subject: str,
        text: str,
        *,
        at: dt.datetime | None = None,
        session_id: str | None = None,
        role: str = "user",
        now: dt.datetime | None = None,
    ) -> Learned: ...
    def preview(
        self,
        subject: str,
        text: str | None = None,
        *,
        facts: Sequence[dict[str, Any]] | None = None,
        at: dt.datetime | None = None,
        session_id: str | None = None,
        role: str = "user",
        today: dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Preview: ...
    def remember(
        self,
        subject: str,
        text: str,
        *,
        session_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Learned: ...
    def note(
        self,
        subject: str,
        file: str | Path,
        *,
        note_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Learned: ...
    def prefer(
        self, subject: str, text: str, *, confidence: float = 1.0, now: dt.datetime | None = None
    ) -> Fact: ...
    def forget(
        self,
        subject: str,
        fact_id: str,
        *,
        reason: str | None = None,
        now: dt.datetime | None = None,
    ) -> Written: ...
    def erase(
        self,
        subject: str,
        fact_ids: list[str] | None = None,
        *,
        all: bool = False,
        reason: str,
        now: dt.datetime | None = None,
        progress: Report | None = None,
    ) -> dict[str, Any]: ...
    def add_episode(
        self,
        subject: str,
        problem: str,
        *,
        tried: list[str] | None = None,
        worked: str | None = None,
        failed: list[str] | None = None,
        date: dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Written: ...
    def confirm(self, subject: str, path: str, *, now: dt.datetime | None = None) -> Fact: ...
    def erasures(self, subject: str | None = None) -> list[dict[str, Any]]: ...
    def feedback(
        self,
        subject: str,
        item_id: str,
        *,
        reason: str | None = None,
        now: dt.datetime | None = None,
    ) -> Fact: ...
    def add_rule(
        self, subject: str, rule: dict[str, Any], *, now: dt.datetime | None = None
    ) -> str: ...
    def member_add(
        self,
        group: str,
        user: str,
        *,
        valid_from: dt.datetime | dt.date | None = None,
        valid_to: dt.datetime | dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Written: ...
    def member_remove(
        self,
        group: str,
        user: str,
        *,
        at: dt.datetime | dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Written: ...
    def members(self, subject: str, *, at: dt.datetime | None = None) -> list[dict[str, Any]]: ...
    def promote(
        self, subject: str, fact_id: str, group: str, *, now: dt.datetime | None = None
    ) -> Written: ...
    def demote(
        self,
        subject: str,
        fact_id: str,
        group: str,
        *,
        reason: str | None = None,
        now: dt.datetime | None = None,
    ) -> Written: ...
    def facts(self, subject: str, path: str | None = None) -> list[Fact]: ...
    def inputs(self, subject: str, *, show: bool = False) -> list[Input]: ...
    def rejections(self, subject: str, *, show: bool = False) -> list[dict[str, Any]]: ...
    def compile(
        self,
        subject: str | None = None,
        *,
        all: bool = False,
        changed: bool = False,
        as_of: dt.datetime | dt.date | None = None,
        known_at: dt.datetime | None = None,
        keep: int = 5,
        progress: Any = None,
    ) -> list[CompileResult]: ...
    def query(
        self,
        subject: str,
        program: str,
        *,
        today: dt.date | None = None,
        explain: bool = False,
        limits: Limits | None = None,
        version: int | None = None,
    ) -> dict[str, Any]: ...
    def search(
        self,
        subject: str,
        text: str,
        *,
        k: int = 10,
        since: dt.date | dt.datetime | None = None,
        kind: str | None = None,
        today: dt.date | None = None,
        half_life_days: float = 180.0,
        neighbours: int | None = None,
    ) -> list[SearchHit]: ...
    def context(
        self,
        subject: str,
        *,
        query: str | None = None,
        budget: int = 800,
        today: dt.date | None = None,
        notes: int = 5,
    ) -> str: ...
    def manifest(self, subject: str) -> str: ...
    def why(self, subject: str, expr: str) -> Explanation: ...
    def diff(
        self, subject: str, old: int | None = None, new: int | None = None
    ) -> tuple[int, int, list[str]]: ...
    def alerts(
        self,
        subject: str | None = None,
        *,
        include_resolved: bool = False,
        today: dt.date | None = None,
    ) -> list[Alert]: ...
    def questions(
        self,
        subject: str | None = None,
        *,
        include_resolved: bool = False,
        today: dt.date | None = None,
    ) -> list[Alert]: ...
    def acknowledge(
        self, subject: str, alert_id: str, *, today: dt.date | None = None
    ) -> Alert: ...
    def snooze(
        self, subject: str, alert_id: str, until: dt.date, *, today: dt.date | None = None
    ) -> Alert: ...
    def check(
        self, subject: str, *, today: dt.date | None = None, sinks: list[Sink] | None = None
    ) -> EvaluationResult: ...
    def tool(
        self, subject: str, name: str, arguments: str | dict[str, Any] | None = None
    ) -> dict[str, Any]: ...
    def subjects(self) -> list[SubjectInfo]: ...
    def verify(self, anchor: dict[str, Any] | None = None) -> VerifyReport: ...
    def anchors(self, every: bool = False) -> list[dict[str, Any]]: ...
    def gc(
        self, *, keep: int = 5, older_than_days: int = 30, now: dt.datetime | None = None
    ) -> dict[str, int]: ...
    def run_once(
        self, *, today: dt.date | None = None, progress: Report | None = None
    ) -> JobResult: ...


class RemoteVerbs:
    """The verbs over HTTP (the `Client`'s): wire fields out, Memory's types back."""

    def _verb(
        self,
        name: str,
        subject: str | None,
        fields: dict[str, Any],
        returns: str,
        *,
        key: str | tuple[str, ...] | None = None,
        sent: tuple[str, Any] | None = None,
    ) -> Any:
        raise NotImplementedError

    def _local_only(self, method: str, **given: Any) -> None:
        raise NotImplementedError

    def set(
        self,
        subject: str,
        path: str,
        value: Any,
        *,
        valid_from: dt.datetime | dt.date | None = None,
        valid_to: dt.datetime | dt.date | None = None,
        session_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """Assert a single-valued attribute (e.g. identity.passport.expiry_date)."""
        return self._verb(
            "set",
            subject,
            {
                "path": path,
                "value": value,
                "valid_from": valid_from,
                "valid_to": valid_to,
                "session": session_id,
                "now": now,
            },
            "Written",
        )

    def import_file(
        self,
        subject: str,
        collection: str,
        file: str | Path,
        *,
        format: str | None = None,
        session_id: str | None = None,
        now: dt.datetime | None = None,
        progress: Report | None = None,
    ) -> ImportResult:
        """Import a JSON Lines, JSON array or CSV file of records into a collection."""
        self._local_only("import_file", progress=progress)
        return self._verb(
            "import",
            subject,
            {"collection": collection, "format": format, "session": session_id, "now": now},
            "ImportResult",
            sent=("_file_fields", file),
        )

    def import_records(
        self,
        subject: str,
        collection: str,
        records: list[dict[str, Any]],
        *,
        session_id: str | None = None,
        now: dt.datetime | None = None,
        progress: Report | None = None,
    ) -> ImportResult:
        """Import records given as dicts (values typed as JSON would give them)."""
        self._local_only("import_records", progress=progress)
        return self._verb(
            "import",
            subject,
            {"collection": collection, "session": session_id, "now": now},
            "ImportResult",
            sent=("_records_fields", records),
        )

    def add(
        self,
        subject: str,
        text: str,
        *,
        at: dt.datetime | None = None,
        session_id: str | None = None,
        role: str = "user",
        now: dt.datetime | None = None,
    ) -> Learned:
        """Learn from one conversation message: archive it, append what the gate accepts."""
        return self._verb(
            "add",
            subject,
            {"text": text, "at": at, "session": session_id, "role": role, "now": now},
            "Learned",
        )

    def preview(
        self,
        subject: str,
        text: str | None = None,
        *,
        facts: Sequence[dict[str, Any]] | None = None,
        at: dt.datetime | None = None,
        session_id: str | None = None,
        role: str = "user",
        today: dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Preview:
        """The alerts a write would raise and clear, and the typed state it would create."""
        return self._verb(
            "preview",
            subject,
            {
                "text": text,
                "facts": facts,
                "at": at,
                "session": session_id,
                "role": role,
                "today": today,
                "now": now,
            },
            "Preview",
        )

    def remember(
        self,
        subject: str,
        text: str,
        *,
        session_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Learned:
        """An explicit 'remember this': certain, and kept as a note if nothing typed is found."""
        return self._verb(
            "remember", subject, {"text": text, "session": session_id, "now": now}, "Learned"
        )

    def note(
        self,
        subject: str,
        file: str | Path,
        *,
        note_id: str | None = None,
        now: dt.datetime | None = None,
    ) -> Learned:
        """Ingest a Markdown note; a new version of a note replaces what the old one said."""
        return self._verb(
            "note",
            subject,
            {"note_id": note_id, "now": now},
            "Learned",
            sent=("_note_fields", file),
        )

    def prefer(
        self, subject: str, text: str, *, confidence: float = 1.0, now: dt.datetime | None = None
    ) -> Fact:
        """Store an open-ended style wish (a soft preference): recalled by relevance, never"""
        return self._verb(
            "prefer", subject, {"text": text, "confidence": confidence, "now": now}, "Fact"
        )

    def forget(
        self,
        subject: str,
        fact_id: str,
        *,
        reason: str | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """Append a retract of one of the subject's facts (nothing is deleted)."""
        return self._verb(
            "forget", subject, {"fact_id": fact_id, "reason": reason, "now": now}, "Written"
        )

    def erase(
        self,
        subject: str,
        fact_ids: list[str] | None = None,
        *,
        all: bool = False,
        reason: str,
        now: dt.datetime | None = None,
        progress: Report | None = None,
    ) -> dict[str, Any]:
        """Legal erase: blank facts (or all the subject's) everywhere; returns the report."""
        self._local_only("erase", progress=progress)
        return self._verb(
            "erase",
            subject,
            {"fact_ids": fact_ids, "all": all, "reason": reason, "now": now},
            "dict[str, Any]",
        )

    def add_episode(
        self,
        subject: str,
        problem: str,
        *,
        tried: list[str] | None = None,
        worked: str | None = None,
        failed: list[str] | None = None,
        date: dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """Record a past problem: what was tried, what fixed it, what did not (searchable)."""
        return self._verb(
            "episode",
            subject,
            {
                "problem": problem,
                "tried": tried,
                "worked": worked,
                "failed": failed,
                "date": date,
                "now": now,
            },
            "Written",
        )

    def confirm(self, subject: str, path: str, *, now: dt.datetime | None = None) -> Fact:
        """Confirm an inferred (tentative) preference: it becomes a rule in context."""
        return self._verb("confirm", subject, {"path": path, "now": now}, "Fact")

    def erasures(self, subject: str | None = None) -> list[dict[str, Any]]:
        """Erasure reports of one subject (or of the tenant), oldest first."""
        return self._verb("erasures", subject, {}, "list[dict[str, Any]]")

    def feedback(
        self,
        subject: str,
        item_id: str,
        *,
        reason: str | None = None,
        now: dt.datetime | None = None,
    ) -> Fact:
        """Record "not this" on a note or input: it ranks lower until the feedback is forgotten."""
        return self._verb(
            "feedback", subject, {"item_id": item_id, "reason": reason, "now": now}, "Fact"
        )

    def add_rule(
        self, subject: str, rule: dict[str, Any], *, now: dt.datetime | None = None
    ) -> str:
        """Store a user rule (threshold, reminder, forbid) as a fact; returns its id."""
        return self._verb("rule", subject, {"rule": rule, "now": now}, "str", key="rule_id")

    def member_add(
        self,
        group: str,
        user: str,
        *,
        valid_from: dt.datetime | dt.date | None = None,
        valid_to: dt.datetime | dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """Make a user a member of a group (a fact in the group's log, with validity times)."""
        return self._verb(
            "member-add",
            group,
            {"user": user, "valid_from": valid_from, "valid_to": valid_to, "now": now},
            "Written",
        )

    def member_remove(
        self,
        group: str,
        user: str,
        *,
        at: dt.datetime | dt.date | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """End a user's membership of a group at `at` (default: now)."""
        return self._verb("member-remove", group, {"user": user, "at": at, "now": now}, "Written")

    def members(self, subject: str, *, at: dt.datetime | None = None) -> list[dict[str, Any]]:
        """A group's members (or a user's groups) at a moment (default: now)."""
        return self._verb("members", subject, {"at": at}, "list[dict[str, Any]]")

    def promote(
        self, subject: str, fact_id: str, group: str, *, now: dt.datetime | None = None
    ) -> Written:
        """Share one of a user's facts with a group it belongs to (recorded: who, what, when)."""
        return self._verb(
            "promote", subject, {"fact_id": fact_id, "group": group, "now": now}, "Written"
        )

    def demote(
        self,
        subject: str,
        fact_id: str,
        group: str,
        *,
        reason: str | None = None,
        now: dt.datetime | None = None,
    ) -> Written:
        """Withdraw what the user promoted to a group (the copy is retracted there)."""
        return self._verb(
            "demote",
            subject,
            {"fact_id": fact_id, "group": group, "reason": reason, "now": now},
            "Written",
        )

    def facts(self, subject: str, path: str | None = None) -> list[Fact]:
        """The subject's facts in log order."""
        return self._verb("facts", subject, {"path": path}, "list[Fact]")

    def inputs(self, subject: str, *, show: bool = False) -> list[Input]:
        """The subject's archived raw inputs (masked); a quarantined one's text only if show."""
        return self._verb("inputs", subject, {"show": show}, "list[Input]")

    def rejections(self, subject: str, *, show: bool = False) -> list[dict[str, Any]]:
        """What the ingestion gate refused for the subject, with reasons."""
        return self._verb("rejections", subject, {"show": show}, "list[dict[str, Any]]")

    def compile(
        self,
        subject: str | None = None,
        *,
        all: bool = False,
        changed: bool = False,
        as_of: dt.datetime | dt.date | None = None,
        known_at: dt.datetime | None = None,
        keep: int = 5,
        progress: Any = None,
    ) -> list[CompileResult]:
        """Compile one subject, every subject (all) or those with new facts (changed)."""
        self._local_only("compile", progress=progress)
        return self._verb(
            "compile",
            subject,
            {"all": all, "changed": changed, "as_of": as_of, "known_at": known_at, "keep": keep},
            "list[CompileResult]",
        )

    def query(
        self,
        subject: str,
        program: str,
        *,
        today: dt.date | None = None,
        explain: bool = False,
        limits: Limits | None = None,
        version: int | None = None,
    ) -> dict[str, Any]:
        """Run an agent's program against the subject's typed state in the sandbox."""
        self._local_only("query", limits=limits)
        return self._verb(
            "query",
            subject,
            {"program": program, "today": today, "explain": explain, "version": version},
            "dict[str, Any]",
        )

    def search(
        self,
        subject: str,
        text: str,
        *,
        k: int = 10,
        since: dt.date | dt.datetime | None = None,
        kind: str | None = None,
        today: dt.date | None = None,
        half_life_days: float = 180.0,
        neighbours: int | None = None,
    ) -> list[SearchHit]:
        """The subject's best-matching notes and archived inputs (BM25 + vectors, fused)."""
        return self._verb(
            "search",
            subject,
            {
                "text": text,
                "k": k,
                "since": since,
                "kind": kind,
                "today": today,
                "half_life_days": half_life_days,
                "neighbours": neighbours,
            },
            "list[SearchHit]",
        )

    def context(
        self,
        subject: str,
        *,
        query: str | None = None,
        budget: int = 800,
        today: dt.date | None = None,
        notes: int = 5,
    ) -> str:
        """A bounded memory block for an agent's system prompt (see uac.runtime.search.context)."""
        return self._verb(
            "context",
            subject,
            {"query": query, "budget": budget, "today": today, "notes": notes},
            "str",
            key="context",
        )

    def manifest(self, subject: str) -> str:
        """The compact manifest of the subject's current checkpoint, for agent context."""
        return self._verb("manifest", subject, {}, "str", key="manifest")

    def why(self, subject: str, expr: str) -> Explanation:
        """The value at expr (e.g. user.passport.expiry_date) and the facts behind it."""
        return self._verb("why", subject, {"expr": expr}, "Explanation")

    def diff(
        self, subject: str, old: int | None = None, new: int | None = None
    ) -> tuple[int, int, list[str]]:
        """Typed-state changes between two checkpoint versions (default: previous → current)."""
        return self._verb(
            "diff",
            subject,
            {"v1": old, "v2": new},
            "tuple[int, int, list[str]]",
            key=("old", "new", "changes"),
        )

    def alerts(
        self,
        subject: str | None = None,
        *,
        include_resolved: bool = False,
        today: dt.date | None = None,
    ) -> list[Alert]:
        """Open (and acknowledged) alerts of one subject, or of every subject of the tenant:"""
        return self._verb(
            "alerts", subject, {"include_resolved": include_resolved, "today": today}, "list[Alert]"
        )

    def questions(
        self,
        subject: str | None = None,
        *,
        include_resolved: bool = False,
        today: dt.date | None = None,
    ) -> list[Alert]:
        """What the checks need to know and why (open questions of one subject, or of every"""
        return self._verb(
            "questions",
            subject,
            {"include_resolved": include_resolved, "today": today},
            "list[Alert]",
        )

    def acknowledge(self, subject: str, alert_id: str, *, today: dt.date | None = None) -> Alert:
        """Mark one of the subject's alerts as seen."""
        return self._verb("acknowledge", subject, {"alert_id": alert_id, "today": today}, "Alert")

    def snooze(
        self, subject: str, alert_id: str, until: dt.date, *, today: dt.date | None = None
    ) -> Alert:
        """Hide one of the subject's alerts until a date."""
        return self._verb(
            "snooze", subject, {"alert_id": alert_id, "until": until, "today": today}, "Alert"
        )

    def check(
        self, subject: str, *, today: dt.date | None = None, sinks: list[Sink] | None = None
    ) -> EvaluationResult:
        """Compile the subject if needed, run its checks, store and deliver alert changes."""
        self._local_only("check", sinks=sinks)
        return self._verb("check", subject, {"today": today}, "EvaluationResult")

    def tool(
        self, subject: str, name: str, arguments: str | dict[str, Any] | None = None
    ) -> dict[str, Any]:
        """Run one agent tool call for the subject (errors come back as {"error": ...})."""
        return self._verb("tool", subject, {"name": name, "arguments": arguments}, "dict[str, Any]")

    def subjects(self) -> list[SubjectInfo]:
        """Subjects of this tenant."""
        return self._verb("subjects", None, {}, "list[SubjectInfo]")

    def verify(self, anchor: dict[str, Any] | None = None) -> VerifyReport:
        """Check the hash chain, keyed digests and anchors (and an exported anchor, if given)."""
        return self._verb("verify", None, {"anchor": anchor}, "VerifyReport")

    def anchors(self, every: bool = False) -> list[dict[str, Any]]:
        """The newest anchor of the log (or all of them) for an external witness."""
        return self._verb("anchor", None, {"all": every}, "list[dict[str, Any]]")

    def gc(
        self, *, keep: int = 5, older_than_days: int = 30, now: dt.datetime | None = None
    ) -> dict[str, int]:
        """Compact the tenant's derived data (never the log); returns what was dropped."""
        return self._verb(
            "gc",
            None,
            {"keep": keep, "older_than_days": older_than_days, "now": now},
            "dict[str, int]",
        )

    def run_once(
        self, *, today: dt.date | None = None, progress: Report | None = None
    ) -> JobResult:
        """One scheduled pass: compile changed subjects, evaluate every subject, record a job."""
        self._local_only("run_once", progress=progress)
        return self._verb("run-once", None, {"today": today}, "JobResult")
