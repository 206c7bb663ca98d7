"""Agenda patterns: what the user asks to be reminded of, paperwork and steps said finished,
starting a job or an activity on a day, and visits to the home (a collection, a delivery).

Rules that read a sentence's plans rather than name an event word (schedule.py's); they run
after schedule.py's, so a sentence that already yielded an event or a task is left alone.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from typing import Any

from uac.fact_log.extraction.candidate import validate
from uac.fact_log.extraction.patterns.schedule import NOT_YET, a_journey, goal_words
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
from uac.fact_log.extraction.patterns.travel import LODGING
from uac.fact_log.extraction.timemodel import add_months, clock, count_word
from uac.fact_log.extraction.values.money import find_money
from uac.fact_log.reference import vocabulary

# "can you remind me on the 8th to send the meter reading", "remind me to renew the permit by
# 1 June": what to do is the task, the day said is when it is due.
_REMIND = re.compile(
    r"\bremind\s+me\s+(?:on\s+|by\s+)?(?P<pre>[^.?!]{0,30}?)\s*\bto\s+"
    r"(?P<goal>[a-z][\w'’ -]{2,60}?)\s*(?:\b(?:on|by|before)\s+(?P<post>[^.?!]{1,30}))?[.?!]*$",
    re.IGNORECASE,
)

_NOT_TO = re.compile(r"\b(?:not|never)\b", re.I)
_NO_ASK = re.compile(r"\b(?:don['’]?t|do\s+not|no\s+need\s+to|never)\s+(?:\w+\s+){0,2}$", re.I)


# "call AEP tomorrow", "pay the nursery by friday", "pls renew the parking permit on the 3rd":
# a line that opens with a verb of errands and holds a day is a task due that day
_TODO = re.compile(
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
    if any(c.path in _CLAIMED and c.start >= sent.start for c in ctx.out):
        return  # another rule read the sentence
    days = [d for d in dates_in(sent, "future", ctx.today, ctx.anchor) if d.valid and d.date]
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
# thing and where it stands. The words are the catalog's status values said as people do.
_STATUS_WORDS = {
    "done": r"done|all\s+done|finished|completed?|filed|submitted|sent\s+off|ticked\s+off",
    "in_progress": r"half\s+done|halfway|in\s+progress|started|underway|ongoing|getting\s+there",
    "dropped": r"not\s+happening|dropped|scrapped|skipped|not\s+doing\s+it|abandoned",
    "blocked": r"blocked|stuck|on\s+hold",
}
_STATUS_OF = re.compile(
    r"^(?:(?:and|also|so|ok)\s+)?(?:(?:the|my|our)\s+)?(?P<goal>[a-z][\w'’ -]{1,40}?)"
    r"(?:\s*[:–—]\s*|\s*['’]s\s+|\s+(?:is|are)\s+(?:now\s+|finally\s+)?)"
    r"(?P<status>" + "|".join(f"(?P<{k}>{v})" for k, v in _STATUS_WORDS.items()) + r")\b"
    r"[^.!?]{0,30}[.!]*$",
    re.I,
)
_NOT_GOAL = word_set("it that this he she they everything nothing all which what who i we you")


# "finished the tax rebate claim!!", "submitted my visa application": paperwork done, said
# without a task the session set (rule_task_done ends those).
_DONE_PAPER = re.compile(
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
_STEPS_DONE = re.compile(
    r"^(?:ok(?:ay)?\s+|so\s+|and\s+)?(?:i|we)(?:'ve|\s+have)?\s+(?:already\s+|just\s+|now\s+)?"
    r"(?:done|finished|completed|sent|send|submitted|written|wrote)\s+(?:already\s+)?"
    r"(?:the\s+|my\s+)?(?P<steps>[a-z][\w'’ -]{1,60}?)\s*(?=[,.;!]|$|\bbut\b)",
    re.IGNORECASE,
)
_WHEN_WORDS = re.compile(r"\s+(?:today|yesterday|already|now|at\s+last|finally)$", re.I)


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


# "I start the new job on March 1st", "we're climbing again on Thursday 1 July at 7pm": a
# beginning, or an activity said with its day and its time, is a plan in the calendar.
_STARTS = re.compile(
    r"\b(?:i|we)\s+(?:start|begin)\s+(?:my\s+|the\s+|a\s+|our\s+)?(?P<what>(?:new\s+)?(?:job|role|"
    r"position|course|degree|school|uni|university|placement|internship|apprenticeship|contract))\b",
    re.I,
)
_DOING = re.compile(
    r"^(?:and\s+|so\s+|also\s+|then\s+)?(?:i['’]m|i\s+am|we['’]re|we\s+are)\s+(?:also\s+|both\s+)?"
    r"(?P<verb>[a-z]{3,}ing)\b",
    re.I,
)
_NOT_ACTIVITY = frozenset(vocabulary()["word_sets"]["agenda_not_activity"])


def rule_plans(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Starting a job or course on a day; an activity with its day and time."""
    start = _STARTS.search(sent.text)
    doing = None if start else _DOING.search(sent.text)
    if (start is None and doing is None) or (ctx.out and ctx.out[-1].start >= sent.start):
        return  # nothing planned, or the sentence already said what it is
    if doing is not None and doing["verb"].lower() in _NOT_ACTIVITY:
        return
    m = start or doing
    if not in_clause(m, parts, sent):
        return
    days = [
        d
        for d in dates_in(sent, "future", ctx.today, ctx.anchor)
        if d.start > sent.start + m.start()
    ]
    when = clock(sent.text)
    if not days or not days[0].valid or days[0].date < ctx.today:  # type: ignore[operator]
        return
    if doing is not None and (when is None or when.assumed):
        return  # "we're meeting up on the 5th": a time said makes it a plan, not a mood
    if start is not None:
        title = "Start " + " ".join(start["what"].lower().split())
    else:
        title = doing["verb"][:1].upper() + doing["verb"][1:].lower()  # type: ignore[index]
    begin = dt.datetime.combine(days[0].date, when.start if when else dt.time())  # type: ignore[arg-type]
    ctx.add("schedule.events", {"title": title, "start": begin}, sent, 0.7)


# "the old Hotpoint is getting collected on Friday 21st", "the sofa is being delivered
# tomorrow": a visit to the user's home on a day, an event
_HOME_VISIT = re.compile(
    r"\b(?:the|my|our)\s+(?P<what>[\w'’ -]{2,30}?)\s+(?:is|are|'s)\s+(?:getting|being)\s+"
    r"(?P<verb>collected|delivered|picked\s+up|installed|fitted|repaired|serviced|fixed|replaced)\b",
    re.I,
)


def rule_home_visit(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Something collected, delivered or fitted at home on a day: an event on that day."""
    m = _HOME_VISIT.search(sent.text)
    if not in_clause(m, parts, sent, "verb"):
        return  # guards read up to the verb: "my sister's sofa is being delivered" is hers
    days = [
        d
        for d in dates_in(sent, "future", ctx.today, ctx.anchor)
        if d.start > sent.start + m.start()
    ]
    if not days or not days[0].valid or days[0].date < ctx.today:  # type: ignore[operator]
        return
    when = clock(sent.text)
    what = re.sub(r"^(?:old|new)\s+", "", " ".join(m["what"].split()), flags=re.I)
    title = f"{what[:1].upper()}{what[1:]} {' '.join(m['verb'].lower().split())}"
    start = dt.datetime.combine(days[0].date, when.start if when else dt.time())  # type: ignore[arg-type]
    value: dict[str, Any] = {"title": title, "start": start}
    if when is not None and when.end is not None:
        value["end"] = dt.datetime.combine(days[0].date, when.end)  # type: ignore[arg-type]
    ctx.add("schedule.events", value, sent, 0.7)


# "Q1 board pack - I own it this time", "I'm in charge of the office move": a task the user
# takes on, named before its due date
_OWNS = re.compile(
    r"^(?:the\s+|our\s+)?(?P<goal>[A-Za-z0-9][\w'’ -]{2,40}?)\s*[-–:,]\s*"
    r"(?:i\s+own\s+it|it's\s+mine|that's\s+(?:on\s+)?me)\b|"
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


# "the boiler service is wednesday between 8 and 12", "spirometry is on tuesday the 19th at
# 9:40", "engineer booked for thursday morning 8-1": a thing as the sentence's subject, then
# its day and its time. Both a day and a clock time must be said: that is what makes it a slot
# in the calendar whatever the thing is called (no list of event words).
_SUBJECT_SLOT = re.compile(
    r"^(?:(?:and|also|so|oh|ok|okay|right|hmm+|um+|well|ah)\s+)?(?:(?:the|my|our)\s+)?"
    r"(?P<title>[A-Za-z][\w'’-]{2,20}(?:\s[\w'’-]{1,20}){0,6}?)"
    # "parents eve for josh is tues 23rd", "Eid market stall - Sat 16th Oct, 8am till 4pm"
    r"(?:\s+(?:is|'s|’s|are|is\s+booked\s+for|booked\s+for|booked\s+in\s+for|is\s+on|on)\s+"
    r"|[ \t]+[-–][ \t]+)"
    r"(?:(?:on|for|this|next)\s+)?",
    re.I,
)
_NOT_A_TITLE = frozenset(vocabulary()["word_sets"]["agenda_not_a_title"])
# a journey or a payment is no calendar event, wherever its word stands in the title
_NOT_AN_EVENT = frozenset(vocabulary()["word_sets"]["agenda_not_an_event"])
_CLAIMED = ("schedule.events", "tasks.tasks", "travel.trips", "travel.bookings")
# "my dentist is 6pm same day": the day the conversation was just about
_SAME_DAY = re.compile(r"\b(?:the\s+)?same\s+day\b", re.I)
_AT_PLACE = re.compile(r"\b(?:at|in)\s+(?:the\s+)?((?-i:[A-Z][\w'’]+(?:\s+[A-Za-z][\w'’]+){0,2}))")


_TIME_HINT = re.compile(r"\d|noon|midday|midnight|o'clock|\bat\s+[a-z]", re.I)


def rule_subject_slot(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Events named by the thing they are, each said with its day and its time of day."""
    if "?" in sent.text or _TIME_HINT.search(sent.text) is None:
        return  # no clock time can be said without a digit or one of these words
    # "orgo final is tues may 9 at 8am, chem is thurs 11th 1:30": one slot a clause
    # (matched from the clause on: " - " and ":" end a clause and join a thing to its day)
    slots = [(c, m) for c in parts if (m := _SUBJECT_SLOT.match(sent.text[c.start - sent.start :]))]
    if not slots or guarded(sent.text, None, sent.text) or THIRD_PARTY.search(sent.text):
        return
    for n, (clause, m) in enumerate(slots):
        end = slots[n + 1][0].start if n + 1 < len(slots) else sent.start + len(sent.text)
        _slot(ctx, sent, parts, clause, m, end)


def _slot(
    ctx: Ctx, sent: Span, parts: list[Span], clause: Span, m: re.Match[str], end: int
) -> None:
    """One event from a clause "<thing> is <day> <time>" (the rest runs to `end`)."""
    words = m["title"].lower().split()
    if words[0] in _NOT_A_TITLE or _NOT_AN_EVENT & set(words):
        return
    if re.search(r"['’]s?\b", m["title"]):
        return  # "it's on tuesday", "my mum's operation is ...": not the user's thing named
    if any(c.path in _CLAIMED and clause.start <= c.start < end for c in ctx.out) or any(
        c.path in _CLAIMED and c.start == sent.start and clause.start == sent.start for c in ctx.out
    ):
        return  # another rule read the clause
    rest = Span(clause.start + m.end(), ctx.text[clause.start + m.end() : end])
    when = clock(rest.text)
    days = [d for d in dates_in(rest, "future", ctx.today, ctx.anchor) if d.valid and d.date]
    day: dt.date | None = None
    if days and days[0].start - rest.start <= 12:
        day = days[0].date  # the day must follow the verb ("is on tuesday the 19th")
    elif not days and _SAME_DAY.search(rest.text):
        day = ctx.anchor
    if when is None or day is None:
        return
    if day < ctx.today or not clause_ok(parts, sent, clause.start):
        return
    start = dt.datetime.combine(day, when.start)
    title = m["title"][:1].upper() + m["title"][1:]
    value: dict[str, Any] = {"title": title, "start": start}
    if when.end is not None and when.end > when.start:
        value["end"] = dt.datetime.combine(day, when.end)
    if (place := _AT_PLACE.search(rest.text)) is not None:
        value["location"] = place[1]
    ctx.add("schedule.events", value, sent, 0.7)


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


_FILED = re.compile(r"\b(?:filed|submitted|sent\s+off)\b", re.I)


# "signed up for a charity Kilimanjaro trek!! 10 to 17 January", "I've signed up for pottery,
# Wednesdays 6-8pm, starting 1 March for 10 weeks": what the user enrolled in, and its days
_SIGNED_UP = re.compile(
    r"\b(?:(?:signed\s+(?:myself\s+|us\s+)?up|registered|enrolled|entered)\s+(?:for|in|on|onto)\s+"
    r"(?:a\s+|an\s+|the\s+)?|booked\s+(?:me\s+|us\s+)?(?:a|an)\s+(?!(?:trip|holiday|flight|train|ticket|"
    r"cruise|table|car|taxi|cab|"
    + LODGING
    + r")s?\b))(?P<title>[A-Za-z][\w'’-]*(?:\s[A-Za-z][\w'’-]*){0,3}?)"
    r"(?=\s*(?:[,!.;:(]|$)|\s+(?:on|from|starting|in|at|this|next|every)\b)",
    re.I,
)
# "I've got 30 days from today to reply", "we have two weeks to send it back": a deadline
_TIME_TO = re.compile(
    r"\b(?:i|we)(?:\s+have|'ve\s+got|\s+got|\s+have\s+got)\s+(?P<n>\d{1,3}|[a-z]+)\s+"
    r"(?P<unit>day|week|month)s?(?:\s+(?:from\s+(?:today|now)|left))?\s+to\s+"
    r"(?P<goal>[a-z][\w'’ -]{1,40}?)\s*(?:[.,;!]|$)",
    re.I,
)
# "HR wants my self-appraisal in by the 9th of August", "supervisor wants a full draft 10 days
# before that": something asked of the user by a day (or by an offset from the last one said)
_WANTS = re.compile(
    r"\b(?:wants|needs|expects|asked\s+for|has\s+asked\s+for)\s+(?:my|a|an|the|our)\s+"
    r"(?P<goal>[a-z][\w'’ -]{1,40}?)\s+(?:(?:in|back|done|submitted|sent|ready|finished)\s+)?"
    # ("wants the final report until 10 of August": "until" as "by", as non-native writers say)
    r"(?:(?P<by>by|before|no\s+later\s+than|until|till)\s|(?P<n>\d{1,3}|[a-z]+)\s+(?P<unit>day|week)s?\s+"
    r"before\s+(?:that|then|it|the\s+deadline)\b)",
    re.I,
)


_SIGNUP_DAY = re.compile(r"\b(?:today|yesterday|this\s+morning|last\s+night)\b", re.I)


def rule_signed_up(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """What the user signed up for, on the day said (its hours, its last day)."""
    m = _SIGNED_UP.search(sent.text)
    if m is None or "?" in sent.text or m["title"].split()[0].lower() in _NOT_A_TITLE:
        return
    if a_journey(m["title"]) or re.fullmatch(LODGING, m["title"].split()[-1], re.I):
        return  # "booked a last minute week in Porto": a trip; "booked a riad": a stay
    if any(c.path == "schedule.events" and c.start >= sent.start for c in ctx.out):
        return
    if not in_clause(m, parts, sent) or THIRD_PARTY.search(sent.text):
        return
    if find_money(sent.text) or _SIGNUP_DAY.search(sent.text):
        return  # "signed up for Duolingo Super today, €12.99/month": a subscription taken out
    window = sent
    days = [d for d in dates_in(sent, "future", ctx.today, ctx.anchor) if d.valid and d.date]
    if not days and ctx.following is not None:
        window = Span(sent.start, ctx.text[sent.start : ctx.following.end])
        days = [d for d in dates_in(window, "future", ctx.today, ctx.anchor) if d.valid and d.date]
    if not days or days[0].date < ctx.today:  # type: ignore[operator]
        return
    when = clock(window.text)
    day = days[0].date
    value: dict[str, Any] = {
        "title": m["title"][:1].upper() + m["title"][1:],
        "start": dt.datetime.combine(day, when.start if when else dt.time()),  # type: ignore[arg-type]
    }
    if when is not None and when.end is not None and when.end > when.start:
        value["end"] = dt.datetime.combine(day, when.end)  # type: ignore[arg-type]
    elif len(days) > 1 and days[1].date > day:  # type: ignore[operator]
        value["end"] = dt.datetime.combine(days[1].date, dt.time(23, 59))  # type: ignore[arg-type]
    ctx.add("schedule.events", value, sent, 0.7)


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
        base = ctx.today if m.re is _TIME_TO else ctx.anchor
        if n is None or base is None:
            return
        step = dt.timedelta(days=n * (7 if m["unit"].lower() == "week" else 1))
        if m["unit"].lower() == "month":
            step = add_months(base, n) - base
        due = base + step if m.re is _TIME_TO else base - step
    else:
        after = [
            d
            for d in dates_in(sent, "future", ctx.today, ctx.anchor)
            if d.start > sent.start + m.start("by")
        ]
        due = after[0].date if after and after[0].valid else None
    if due is None or due < ctx.today:
        return
    goal = " ".join(m["goal"].split())
    value = {"goal": goal[:1].upper() + goal[1:], "status": "planned", "due_date": due}
    ctx.add("tasks.tasks", value, sent, 0.7)


# "quarterly VAT return due 20 March - filed it this morning": the task said, then done
_DONE_IT = re.compile(
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
_PLAN = re.compile(
    r"^(?:(?:my|the|a|our)\s+)?(?:plan|to-?do(?:\s+list)?|steps|checklist)\s+(?:for|to)\s+"
    r"(?:the\s+|my\s+|our\s+)?(?P<goal>[a-z][\w'’ -]{1,40}?)\s*:\s*(?P<steps>.+)$",
    re.I | re.S,
)
_STEP_SPLIT = re.compile(
    r"\s*(?:\(?\d{1,2}[).]\s|;|,\s*(?:then\s+)?|\n\s*[-*•]?\s*|\bthen\b)\s*", re.I
)
# "beds are cleared!", "the soil's been ordered": a step of the session's task, done
_STEP_DONE = re.compile(
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
    days = [d for d in dates_in(sent, "future", ctx.today, ctx.anchor) if d.valid and d.date]
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
