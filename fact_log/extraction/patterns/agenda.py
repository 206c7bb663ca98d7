"""Agenda patterns, the one home of tasks.tasks: deadlines ("the report is due Friday"), what
the user asks to be reminded of, to-dos and plans of steps, paperwork and steps said finished,
what someone asked of the user; a task said done."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from typing import Any

from uac.fact_log.extraction.candidate import validate
from uac.fact_log.extraction.lazy import compile_kept, lazy
from uac.fact_log.extraction.patterns.schedule import CLAIMED, DEADLINE
from uac.fact_log.extraction.patterns.text import (
    THIRD_PARTY,
    Ctx,
    Span,
    clause_of,
    clause_ok,
    dates_in,
    guarded,
    in_clause,
    word_set,
)
from uac.fact_log.extraction.patterns.travel import claimed
from uac.fact_log.extraction.timemodel import (
    add_months,
    count_word,
)
from uac.fact_log.reference import vocabulary

# "can you remind me on the 8th to send the meter reading", "remind me to renew the permit by
# 1 June": what to do is the task, the day said is when it is due.
_REMIND = lazy(
    r"\bremind\s+me\s+(?:on\s+|by\s+)?(?P<pre>[^.?!]{0,30}?)\s*\bto\s+"
    r"(?P<goal>[a-z][\w'’ -]{2,60}?)\s*(?:\b(?:on|by|before)\s+(?P<post>[^.?!]{1,30}))?[.?!]*$",
    re.IGNORECASE,
)

_NOT_TO = lazy(r"\b(?:not|never)\b", re.I)
_NO_ASK = lazy(r"\b(?:don['’]?t|do\s+not|no\s+need\s+to|never)\s+(?:\w+\s+){0,2}$", re.I)


# "call AEP tomorrow", "pay the nursery by friday", "pls renew the parking permit on the 3rd":
# a line that opens with a verb of errands and holds a day is a task due that day
_TODO = lazy(
    r"^(?:(?:pls|please|and|also|so|then|oh|ok)\s+)?(?:(?:need|have|got)\s+to\s+|must\s+)?"
    r"(?P<verb>call|ring|phone|e-?mail|text|pay|book|order|renew|send|submit|file|cancel|buy|"
    r"collect|return|post|chase|tell|ask|email|register|apply)\s+"
    r"(?!(?:me|you|us|it|is|was|are|will|on|date|day|flight|trip|journey)\b)",
    re.IGNORECASE,
)


def rule_todo(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """An errand said as an order to oneself, with its day: a task due then."""
    m = _TODO.match(sent.text)
    if m is None or "?" in sent.text or not in_clause(m, parts, sent, "verb"):
        return
    if any(c.path in CLAIMED and c.start >= sent.start for c in ctx.out):
        return  # another rule read the sentence
    days = [d for d in ctx.dates(sent) if d.valid and d.date]
    if not days or days[0].date < ctx.today:  # type: ignore[operator]
        return
    goal = sent.text[m.start("verb") : days[0].start - sent.start]
    goal = re.sub(r"[\s,]+(?:on|by|before|for|this|next|the)?\s*$", "", goal, flags=re.I)
    if len(goal.split()) < 2:
        return
    value = {"goal": goal[:1].upper() + goal[1:], "status": "planned", "due_date": days[0].date}
    ctx.add("tasks.tasks", value, sent, 0.7)


def rule_reminder(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A reminder the user asks for: a task due on the day said."""
    m = _REMIND.search(sent.text)
    if m is None or THIRD_PARTY.search(sent.text[: m.start()]):
        return
    if (
        _NOT_TO.search(m["pre"])
        or _NOT_TO.match(m["goal"])
        or _NO_ASK.search(sent.text[: m.start()])
    ):
        return  # "remind me not to call my ex", "don't remind me to ...": nothing to do
    if any(c.path == "tasks.tasks" and c.start >= sent.start for c in ctx.out):
        return  # the deadline rules read it already
    # the next 8th, from now; a day said in another clause before the ask is another thing's
    # ("my sister turns 30 on the 17th, remind me to buy something")
    own = clause_of(parts, sent.start + m.start())
    days = [
        d
        for d in dates_in(sent, "future", ctx.today)
        if d.valid and (d.start >= sent.start + m.start() or (own and d.start >= own.start))
    ]
    if days and days[0].date < ctx.today:  # type: ignore[operator]
        return
    if not days and "?" in sent.text:
        return  # "could you remind me to water the plants?": asked, with no day to hold it
    goal = " ".join(m["goal"].split())
    goal = re.sub(r"\s+(?:on|by|before)\s+(?:the\s+)?\S+$", "", goal)
    value: dict[str, Any] = {"goal": goal[:1].upper() + goal[1:], "status": "planned"}
    if days:
        value["due_date"] = days[0].date  # "remind me to buy her flowers": a task, no day
    ctx.add("tasks.tasks", value, sent, 0.75)


# "christmas cards: done", "presents: half done", "self assessment's done and filed!!": a
# thing and where it stands (vocabulary.toml: the catalog's status values said as people do).
_STATUS_WORDS: dict[str, str] = vocabulary()["task_status_words"]
_STATUS_OF = lazy(
    r"^(?:(?:and|also|so|ok)\s+)?(?:(?:the|my|our)\s+)?(?P<goal>[a-z][\w'’ -]{1,40}?)"
    r"(?:\s*[:–—]\s*|\s*['’]s\s+|\s+(?:is|are)\s+(?:now\s+|finally\s+)?)"
    r"(?P<status>" + "|".join(f"(?P<{k}>{v})" for k, v in _STATUS_WORDS.items()) + r")\b"
    r"[^.!?]{0,30}[.!]*$",
    re.I,
)
_NOT_GOAL = word_set("it that this he she they everything nothing all which what who i we you")


# "finished the tax rebate claim!!", "submitted my visa application": paperwork done, said
# without a task the session set (rule_task_done ends those).
_DONE_PAPER = lazy(
    r"^(?:(?:i|we)(?:'ve|\s+have)?\s+)?(?:just\s+|finally\s+|also\s+)?(?:finished|submitted|"
    r"completed|filed|sent\s+off|posted\s+off|handed\s+in)\s+(?:the\s+|my\s+|our\s+)"
    r"(?P<goal>[a-z][\w'’ -]{0,40}?\b(?:claim|form|application|return|report|essay|draft|"
    r"dissertation|thesis|renewal|registration|submission|paperwork|assignment|proposal|appeal))\b",
    re.IGNORECASE,
)


def rule_done_paperwork(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A piece of paperwork the user says they finished: a task, done."""
    m = _DONE_PAPER.search(sent.text)
    if m is None or guarded(sent.text, None, sent.text) or NOT_YET.search(sent.text):
        return
    if any(c.path == "tasks.tasks" and c.start >= sent.start for c in ctx.out):
        return
    said = goal_words(m["goal"])
    tasks = [t for t in ctx.thread.mentions if t.kind == "tasks.tasks" and t.get("goal")]
    if any(said & goal_words(str(t.get("goal"))) for t in tasks):
        return  # the thread's own task: rule_task_done ends it
    goal = " ".join(m["goal"].split())
    ctx.add("tasks.tasks", {"goal": goal[:1].upper() + goal[1:], "status": "done"}, sent, 0.7)


# "I've done the lit review and methods, results are a mess", "I send already the form A
# today, form B remain": steps of the task the session set, finished.
_STEPS_DONE = lazy(
    r"^(?:ok(?:ay)?\s+|so\s+|and\s+)?(?:i|we)(?:'ve|\s+have)?\s+(?:already\s+|just\s+|now\s+)?"
    r"(?:done|finished|completed|sent|send|submitted|written|wrote)\s+(?:already\s+)?"
    r"(?:the\s+|my\s+)?(?P<steps>[a-z][\w'’ -]{1,60}?)\s*(?=[,.;!]|$|\bbut\b)",
    re.IGNORECASE,
)
_WHEN_WORDS = lazy(r"\s+(?:today|yesterday|already|now|at\s+last|finally)$", re.I)


def rule_done_steps(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Steps of the session's open task said to be finished: its done_steps."""
    m = _STEPS_DONE.search(sent.text)
    if m is None or guarded(sent.text, None, sent.text) or NOT_YET.search(m[0]):
        return
    task = ctx.thread.last("tasks.tasks")
    if task is None or task.get("status") == "done" or not task.get("goal"):
        return
    raw = _WHEN_WORDS.sub("", m["steps"]).strip()
    steps = [
        re.sub(r"^(?:the|my|our)\s+", "", " ".join(x.split()), flags=re.I)
        for x in re.split(r"\s+and\s+|\s*&\s*", raw)
        if x.strip()
    ]
    if not steps or goal_words(raw) & goal_words(str(task.get("goal"))):
        return  # "I've sent the form off" for the form task: the task is done, not a step
    fields = task.record()
    fields["done_steps"] = list(dict.fromkeys([*fields.get("done_steps", ()), *steps]))
    ctx.add("tasks.tasks", fields, sent, 0.7)


# "Q1 board pack - I own it this time", "I'm in charge of the office move": a task the user
# takes on, named before its due date
_OWNS = lazy(
    r"^(?:the\s+|our\s+)?(?P<goal>[A-Za-z0-9][\w'’ -]{2,40}?)\s*[-–:,]\s*"
    r"(?:i\s+own\s+it|it's\s+mine|that's\s+(?:on\s+)?me\b(?!\s+[a-z]))\b|"  # not "that's me sorted"
    r"\bi(?:'m|\s+am)\s+(?:now\s+)?(?:responsible\s+for|in\s+charge\s+of|owning)\s+"
    r"(?:the\s+|our\s+)?(?P<goal2>[a-z0-9][\w'’ -]{2,40}?)"
    r"(?=\s*[,.;!]|\s*$|\s+(?:this|now|again|from|until)\b)",
    re.IGNORECASE,
)


def rule_owned_task(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A piece of work the user says is theirs: a planned task (its due date may follow)."""
    m = _OWNS.search(sent.text)
    if m is None or guarded(sent.text, None, sent.text):
        return
    if not clause_ok(parts, sent, sent.start + m.end() - 1):  # "- I own it": guards up to it
        return
    if any(c.path == "tasks.tasks" and c.start >= sent.start for c in ctx.out):
        return
    goal = " ".join((m["goal"] or m["goal2"]).split())
    ctx.add("tasks.tasks", {"goal": goal[:1].upper() + goal[1:], "status": "planned"}, sent, 0.7)


def rule_status(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A thing the user does and where it stands ("presents: half done"): a task's status."""
    m = _STATUS_OF.match(sent.text)
    if m is None or m["goal"].split()[0].lower() in _NOT_GOAL or "?" in sent.text:
        return
    if any(c.path == "tasks.tasks" and c.start >= sent.start for c in ctx.out):
        return
    if THIRD_PARTY.search(sent.text) or not in_clause(m, parts, sent, "status"):
        return
    status = next(k for k in _STATUS_WORDS if m[k])
    goal = " ".join(m["goal"].split())
    listed = ":" in sent.text[m.end("goal") : m.start("status")]
    earlier = [t for t in ctx.thread.mentions if t.kind == "tasks.tasks" and t.get("goal")]
    for task in reversed(earlier):  # the session's own task keeps its fields
        if goal_words(goal) & goal_words(str(task.get("goal"))):
            fields = task.record()
            ctx.add("tasks.tasks", {**fields, "status": status}, sent, 0.7, replaces=fields)
            return
    if not listed and not _FILED.search(sent.text, m.start("status")):
        return  # "the washing is done": a chore said, not a task; "tax return's filed" is one
    ctx.add("tasks.tasks", {"goal": goal[:1].upper() + goal[1:], "status": status}, sent, 0.7)


_FILED = lazy(r"\b(?:filed|submitted|sent\s+off)\b", re.I)


# "I've got 30 days from today to reply", "we have two weeks to send it back": a deadline
_TIME_TO = compile_kept(
    r"\b(?:i|we)(?:\s+have|'ve\s+got|\s+got|\s+have\s+got)\s+(?P<n>\d{1,3}|[a-z]+)\s+"
    r"(?P<unit>day|week|month)s?(?:\s+(?:from\s+(?:today|now)|left))?\s+to\s+"
    r"(?P<goal>[a-z][\w'’ -]{1,40}?)\s*(?:[.,;!]|$)",
    re.I,
)
# "HR wants my self-appraisal in by the 9th of August", "supervisor wants a full draft 10 days
# before that": something asked of the user by a day (or by an offset from the last one said)
_WANTS = lazy(
    r"\b(?:wants|needs|expects|asked\s+for|has\s+asked\s+for)\s+(?:my|a|an|the|our)\s+"
    r"(?P<goal>[a-z][\w'’ -]{1,40}?)\s+(?:(?:in|back|done|submitted|sent|ready|finished)\s+)?"
    # ("wants the final report until 10 of August": "until" as "by", as non-native writers say)
    # "2 weeks before the committee meeting, which is 8 March": counted back from that day
    r"(?:(?P<by>by|before|no\s+later\s+than|until|till)\s|(?P<n>\d{1,3}|[a-z]+)\s+(?P<unit>day|week)s?\s+"
    r"before\b(?P<then>\s+(?:that|then|it|the\s+deadline)\b)?)",
    re.I,
)


def rule_asked_by(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A deadline set by time left ("30 days from today to reply") or by someone's ask."""
    here = ctx.out[ctx.here() :]
    if any(c.path == "tasks.tasks" and c.start >= sent.start for c in here) or "?" in sent.text:
        return
    m = _TIME_TO.search(sent.text) or _WANTS.search(sent.text)
    if not in_clause(m, parts, sent):
        return
    due: dt.date | None = None
    if m.re is _TIME_TO or m["n"]:
        n = count_word(m["n"])
        said = [] if m.re is _TIME_TO else ctx.dates(sent, after=m.end())
        later = said[0].date if said else None  # "..., which is 8 March"
        base = ctx.today if m.re is _TIME_TO else ctx.anchor if m["then"] else later
        if n is None or base is None:
            return
        step = dt.timedelta(days=n * (7 if m["unit"].lower() == "week" else 1))
        if m["unit"].lower() == "month":
            step = add_months(base, n) - base
        due = base + step if m.re is _TIME_TO else base - step
    else:
        after = ctx.dates(sent, after=m.start("by") + 1)
        due = after[0].date if after and after[0].valid else None
    if due is None or due < ctx.today:
        return
    goal = " ".join(m["goal"].split())
    value = {"goal": goal[:1].upper() + goal[1:], "status": "planned", "due_date": due}
    ctx.add("tasks.tasks", value, sent, 0.7)


# "quarterly VAT return due 20 March - filed it this morning": the task said, then done
_DONE_IT = lazy(
    r"(?:^|[-–—,;]\s*|\band\s+|\bbut\s+)(?:i(?:'ve|\s+have)?\s+|we(?:'ve|\s+have)?\s+)?(?:already\s+|just\s+)?"
    r"(?:filed|submitted|sent|done|finished|paid|posted|handed)\s+(?:it|that|them)\b",
    re.I,
)


def rule_done_it(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A task found in the sentence that the sentence also says is done: its status done."""
    m = _DONE_IT.search(sent.text)
    if m is None or guarded(sent.text[m.start() :], None, sent.text) or "?" in sent.text:
        return
    for i, cand in enumerate(ctx.out):
        if (
            cand.path == "tasks.tasks"
            and cand.start >= sent.start
            and cand.value.get("status") != "done"
        ):
            value = {**cand.value, "status": "done"}
            typed = validate(ctx.catalog, "tasks.tasks", value)
            if typed is not None:
                ctx.out[i] = dataclasses.replace(cand, value=typed)


# "plan for the garden: 1) clear the beds 2) order soil 3) plant everything by mid-may": a
# task and its steps in order
_PLAN = lazy(
    r"^(?:(?:my|the|a|our)\s+)?(?:plan|to-?do(?:\s+list)?|steps|checklist)\s+(?:for|to)\s+"
    r"(?:the\s+|my\s+|our\s+)?(?P<goal>[a-z][\w'’ -]{1,40}?)\s*:\s*(?P<steps>.+)$",
    re.I | re.S,
)
_STEP_SPLIT = lazy(r"\s*(?:\(?\d{1,2}[).]\s|;|,\s*(?:then\s+)?|\n\s*[-*•]?\s*|\bthen\b)\s*", re.I)
# "beds are cleared!", "the soil's been ordered": a step of the session's task, done
_STEP_DONE = lazy(
    r"^(?:(?:and|ok|so)\s+)?(?:the\s+|my\s+)?(?P<what>[a-z][\w -]{1,40}?)"
    r"(?:\s+(?:is|are|have\s+been|has\s+been|got)|['’]s)\s+(?:all\s+|now\s+|finally\s+)?(?P<verb>[a-z]{3,}ed|done|bought|sent|paid)\b",
    re.I,
)


def rule_plan(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A plan with its steps: a task with the steps in order (and its day, when one is said)."""
    m = _PLAN.match(sent.text)
    if m is None or "?" in sent.text or not clause_ok(parts, sent, sent.start):
        return
    steps = [x.strip(" .!") for x in _STEP_SPLIT.split(m["steps"]) if x and x.strip(" .!")]
    if len(steps) < 2:
        return
    goal = " ".join(m["goal"].split())
    value: dict[str, Any] = {
        "goal": goal[:1].upper() + goal[1:],
        "status": "planned",
        "steps": steps,
    }
    by = re.search(r"\bby\s", m["steps"], re.I)
    days = [d for d in ctx.dates(sent) if d.valid and d.date]
    if by is not None and days and days[-1].start > sent.start + m.start("steps") + by.start():
        value["due_date"] = days[-1].date
    ctx.add("tasks.tasks", value, sent, 0.7)


def _nouns(text: str) -> set[str]:
    """The words of three letters or more that name what a step is about ("van", "beds")."""
    return {w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in _TITLE_FILLER}


_TITLE_FILLER = word_set("the and for all are has have been got now our you your its")


def rule_step_done(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A step of the session's open task said done: the task's done_steps."""
    m = _STEP_DONE.match(sent.text)
    task = ctx.thread.last("tasks.tasks") if m is not None else None
    if m is None or task is None or not task.get("steps") or "?" in sent.text:
        return
    if any(c.path == "tasks.tasks" and c.start >= sent.start for c in ctx.out):
        return
    said = _nouns(m["what"])
    step = next((st for st in task.get("steps") if said & _nouns(str(st))), None)
    if step is None or guarded(sent.text, None, sent.text):
        return
    fields = task.record()
    fields["done_steps"] = list(dict.fromkeys([*fields.get("done_steps", ()), step]))
    ctx.add("tasks.tasks", fields, sent, 0.7)


def rule_deadlines(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Deadlines become tasks with a due date."""
    if _it_due(ctx, sent, parts):
        return
    m = DEADLINE.search(sent.text)
    if not in_clause(m, parts, sent):
        return
    goals = (m["goal"], m["goal2"], m["goal3"], m["goal4"], m["goal5"], m["goal6"], m["goal7"])
    goal = next((g for g in goals if g), None) or m["goal8"]
    if _DONE_BY_OTHER.search(sent.text, m.end()):
        return  # "school registration, deadline is 1 August but my wife is doing it"
    # "annual returns for my company due 30 Nov": whom it is for is no part of the goal
    goal = re.sub(r"\s+for\s+(?:my|our|the)\s+[\w'’-]+$", "", goal, flags=re.I)
    goal = re.sub(r"['’]s$", "", " ".join(goal.split()))  # "mot's due": "MOT is due"
    goal = _REPORTED.sub("", goal)  # "my boss says the report is due": the report
    if not goal or re.match(r"(?:his|her|their)\b", goal, re.I):
        return  # "my boss says the deadline is Friday": whose deadline for what is unsaid
    if _NOT_A_GOAL.match(goal):
        return  # "the baby's due in July", "next one due in 12 months": no task of the user's
    if m["goal5"]:  # "The report has to be submitted by Friday"
        if re.match(r"(?:his|her|their|its)\b", goal, re.I):
            return  # someone else's deadline
        goal = re.sub(r"^(?:the|my|our)\s+", "", goal, flags=re.I)
    if goal.lower() in ("it", "this", "that") and not m["goal4"]:
        return
    dates = ctx.dates(sent, after=m.start())
    if dates and dates[0].valid and dates[0].date < ctx.today:  # type: ignore[operator]
        # "I must pay the DAS until the 20th" said on 3 March: a bare day continued from an
        # earlier one fell before today; a deadline still to meet is the next such day
        fresh = [d for d in dates_in(sent, "future", ctx.today) if d.start == dates[0].start]
        if fresh and fresh[0].valid and fresh[0].date >= ctx.today:  # type: ignore[operator]
            dates[0] = fresh[0]
    if not dates or not dates[0].valid:
        return
    if _COUNTED.search(ctx.text, sent.start + m.start(), dates[0].start):
        return  # "due 28 days from service, served on 3 June": the day counted from, not due
    if claimed(ctx, sent, (dates[0].date,), "identity."):  # type: ignore[arg-type]
        return  # "the car insurance is due - Admiral, ends 19 July": the policy's end
    value = {"goal": goal[:1].upper() + goal[1:], "status": "planned", "due_date": dates[0].date}
    ctx.add("tasks.tasks", value, sent, 0.8)


# "it's due to the chair on the 24th": the due date of the task the session named last
_IT_DUE = lazy(
    r"^(?:and\s+|so\s+)?(?:it's|it\s+is|it’s|that's|that\s+is)\s+due\b"
    r"(?:\s+(?:to|with)\s+(?:my|our|the)\s+[a-z]{3,15})?(?=\s+(?:on|by|before|in|this|next)\b)",
    re.IGNORECASE,
)


def _it_due(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """The due date of the thread's open task said by pronoun; True when added."""
    m = _IT_DUE.match(sent.text)
    task = ctx.thread.last("tasks.tasks") if m is not None else None
    if task is None or task.get("status") == "done" or not clause_ok(parts, sent, sent.start):
        return False
    days = [d for d in ctx.dates(sent) if d.valid]
    if not days:
        return False
    value = {"goal": task.get("goal"), "status": "planned", "due_date": days[0].date}
    ctx.add("tasks.tasks", value, sent, 0.75)
    return True


# a term counted from another day ("28 days from service", "two weeks after delivery")
_COUNTED = lazy(
    r"\b(?:\d{1,3}|a|one|two|three|four|six|ten|fourteen|thirty)\s+(?:working\s+|business\s+)?"
    r"(?:days?|weeks?|months?)\s+(?:from|after|of)\b",
    re.I,
)

# "... but my wife is doing it", "Tom will handle that": the task is someone else's
_DONE_BY_OTHER = lazy(
    r"\b(?:(?:my|our)\s+[a-z]+|(?-i:[A-Z][a-z]+)|she|he|they)\s+(?:is|are|will\s+be|will|'s|'ll)\s+"
    r"(?:doing|handling|sorting|taking\s+care\s+of|do|handle|sort|take\s+care\s+of)\s+"
    r"(?:it|that|this|them)\b",
    re.I,
)

# "my boss says (that) the ...", "Tom reckons our ...": who said it is not what is due
_REPORTED = lazy(
    r"^(?:[\w'’]+\s+){0,3}?(?:says?|said|tells?\s+(?:me|us)|told\s+(?:me|us)|thinks?|reckons?|"
    r"mentioned|confirmed|reminded\s+(?:me|us)|wrote|emailed)(?:\s+that)?(?:\s+(?:the|my|our)\b)?"
    r"\s*",
    re.I,
)

_NOT_A_GOAL = lazy(
    r"^(?:(?:my\s+|our\s+|the\s+)?(?:\w+(?:'s|’s)\s+)?(?:baby|babies|twins)(?:'s|’s)?|"
    r"(?:the\s+)?next(?:\s+one)?|one|it|this|that)$",
    re.I,
)

# "Sent the exemption form off yesterday, so that one's done": a task the thread holds, done.
_DONE = lazy(
    r"\b(?:sent|posted|submitted|filed|handed\s+in|paid|returned|finished|completed|renewed|"
    r"done|sorted|dealt\s+with)\b",
    re.I,
)

_GOAL_NOISE = frozenset(vocabulary()["word_sets"]["schedule_goal_noise"])

NOT_YET = lazy(
    r"\b(?:need|needs|have\s+to|has\s+to|must|due|deadline|should|will|going\s+to|to\s+be|"
    r"by|before|until|yet|still)\b|'ll\b",
    re.I,
)

_SOMEONE = lazy(r"\b(?:his|her|their|he|she)\b|^(?:my|our)\s+(?!\w+\s+(?:is|was)\b)", re.I)


def goal_words(text: str) -> set[str]:
    """The words of a task's goal that name it (four letters or more, no filler)."""
    return {w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in _GOAL_NOISE}


def rule_task_done(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A task the conversation set, said to be done: the same goal, status done."""
    m = _DONE.search(sent.text)
    if m is None or guarded(sent.text, None, sent.text) or THIRD_PARTY.search(sent.text):
        return
    if "?" in sent.text or re.search(
        r"\b(?:can|could|may|should)\s+(?:\w+\s+)?be\b", sent.text, re.I
    ):
        return  # "can a defence be filed on a Saturday?": asked, not done
    if NOT_YET.search(sent.text) or _SOMEONE.search(sent.text):
        return  # "it has to be filed by 7 October" is the deadline, not its end
    said = goal_words(sent.text)
    tasks = [t for t in ctx.thread.mentions if t.kind == "tasks.tasks" and t.get("goal")]
    for task in reversed(tasks):
        if task.get("status") != "done" and said & goal_words(str(task.get("goal"))):
            fields = task.record()
            ctx.add("tasks.tasks", {**fields, "status": "done"}, sent, 0.75, replaces=fields)
            return
