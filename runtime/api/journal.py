"""Episodes and tasks written by commands and by conversation, and what context shows of them.

* `add_episode`: `uac episode add` — a typed record of `support.episodes` (explicit source)
  plus its text archived as an input of kind `episode`, so search finds it by symptoms.
* `task_progress`: a message like "done with the visa form, next is the bank letter"
  (fact_log/extraction/patterns/progress.py) updates the one open task that has such a step:
  the step joins `done_steps`, the next one becomes the `resume_point`, the status
  `in_progress` (or `done` when no step is left). The update is a record fact with the
  message as its input (source automatic_rule), merged into the task by its key (the goal)
  — so, by the fold's source precedence, it fills and moves what conversation set but never
  overrides a field an explicit source wrote (a task imported with a status keeps it).
  Nothing happens when no open task, or more than one, has a matching step.
(What context shows of them, `gather`, is in uac.runtime.search.journal.)
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from uac.compiler import loader
from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import InputError, NotFound
from uac.fact_log.importer import record_key
from uac.fact_log.store import Batch, Fact, NewFact, NewInput, Store, utc_now
from uac.runtime.api.reactor import Written
from uac.runtime.api.workspace import Appender, Caller
from uac.runtime.search import journal

if TYPE_CHECKING:
    from uac.runtime.api.reads import Reader

EPISODES = "support.episodes"
TASKS = "tasks.tasks"


class Sets(Protocol):
    """The write `confirm` makes (writes.py `Writer`, which imports this module for tasks)."""

    def set(self, subject: str, path: str, value: Any, *, now: dt.datetime | None = None) -> Fact:
        """Assert a single-valued attribute."""
        ...


class Journal:
    """The verbs that record episodes and confirm inferred preferences."""

    def __init__(
        self, catalog: Catalog, caller: Caller, appender: Appender, reader: Reader, writer: Sets
    ):
        self.catalog = catalog
        self.caller = caller
        self.appender = appender
        self.reader = reader  # confirm reads the compiled preference
        self.writer = writer  # and sets it explicitly

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
        if not isinstance(problem, str) or not problem.strip():
            raise InputError("an episode needs --problem (what went wrong)")
        recorded = now or utc_now()
        raw = {
            "problem": problem.strip(),
            "date": (date or recorded.date()).isoformat(),
            "tried": [t.strip() for t in tried or [] if t.strip()],
            "worked": worked.strip() if worked and worked.strip() else None,
            "failed": [f.strip() for f in failed or [] if f.strip()],
        }
        coll = self.catalog.collection(EPISODES)
        assert coll is not None, EPISODES  # the built-in catalog declares it
        try:
            model = self.catalog.model_for(coll).model_validate(raw)
            value = model.model_dump(mode="json", exclude_none=True)
        except ValueError as exc:
            raise InputError(f"bad episode: {exc}") from None
        from uac.fact_log.extraction.screen import refuse_secrets

        refuse_secrets(value, "the episode")
        text = f"Problem: {value['problem']}."
        for label, key in (("Tried", "tried"), ("Did not help", "failed")):
            if value.get(key):
                text += f" {label}: {'; '.join(value[key])}."
        if value.get("worked"):
            text += f" Fixed by: {value['worked']}."
        batch = Batch(self.caller.address(subject), recorded, self.caller.actor)
        batch.inputs.append(NewInput("episode", text, "explicit_command"))
        episode = _record(self.catalog, EPISODES, value, source="explicit_command", input_index=0)
        batch.facts.append(episode)
        fact = self.appender.append(batch)[0]
        return Written.of(fact, self.appender.wrote(subject, now))

    def confirm(self, subject: str, path: str, *, now: dt.datetime | None = None) -> Fact:
        """Confirm an inferred (tentative) preference: it becomes a rule in context."""
        return _confirm(self.catalog, self.reader, self.writer, subject, path, now)


def _confirm(
    catalog: Catalog,
    reader: Reader,
    writer: Sets,
    subject: str,
    path: str,
    now: dt.datetime | None = None,
) -> Fact:
    """The user confirms an inferred preference: its current value is asserted explicitly."""
    attr = catalog.attributes.get(path)
    if attr is None or attr.domain != "preferences":
        raise InputError(
            f"{path!r} is not a preference path; confirm one of: "
            + ", ".join(sorted(a.path for a in catalog.attributes.values()
                               if a.domain == "preferences"))
        )  # fmt: skip
    if reader.stale(subject):
        reader.compile(subject)
    value = getattr(reader.checkpoint(subject).user.preferences, attr.name, None)
    if not journal.tentative(reader.facts(subject, path), value):
        raise InputError(
            f"{path} of {subject} is not an inferred preference waiting for confirmation; "
            f"to change it run: uac set {subject} {path} VALUE"
        )
    return writer.set(subject, path, value, now=now)


def task_progress(
    store: Store,
    catalog: Catalog,
    home: Path,
    actor: str,
    addr: Address,
    text: str,
    input_id: str,
    now: dt.datetime,
) -> Fact | None:
    """Update the open task a message reports progress on (see the module docstring)."""
    from uac.fact_log.extraction.patterns.progress import parse_progress, same_step

    said = parse_progress(text)
    if said is None:
        return None
    try:
        tasks = loader.load(home, addr).user.tasks
    except (NotFound, AttributeError):
        return None
    steps = [s for s in (said.done, said.next) if s]
    hits = [
        t
        for t in tasks
        if (t.status or "planned") not in journal.CLOSED
        and any(same_step(s, step) for s in steps for step in (t.steps or ()))
    ]
    if len(hits) != 1:
        return None  # no task, or ambiguous: never guess which goal a step belongs to
    task = hits[0]
    done = list(task.done_steps or ())
    if said.done:
        step = next((s for s in task.steps or () if same_step(said.done, s)), said.done)
        done += [step] if step not in done else []
    resume = said.next and next((s for s in task.steps if same_step(said.next, s)), said.next)
    resume = resume or next((s for s in task.steps or () if s not in done), None)
    value: dict[str, Any] = {
        "goal": task.goal,
        "status": "in_progress" if resume else "done",
        "done_steps": done,
    }
    if resume:
        value["resume_point"] = resume
    batch = Batch(addr, now, actor)
    evidence = {"quote": text, "start": 0, "rule": "task_progress"}
    batch.facts.append(
        _record(
            catalog,
            TASKS,
            value,
            source="automatic_rule",
            confidence=0.8,
            evidence=evidence,
            input_id=input_id,
        )
    )
    return store.append(batch)[0]


def _record(catalog: Catalog, path: str, value: dict[str, Any], **fact: Any) -> NewFact:
    """An assert of one record of a catalog collection, keyed by the collection's key."""
    collection = catalog.collection(path)
    assert collection is not None, path  # the built-in catalog declares both collections
    key = record_key(value, collection.spec.key)
    return NewFact(op="assert", kind="record", path=path, value=value, record_key=key, **fact)
