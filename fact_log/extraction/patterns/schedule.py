"""Schedule patterns: deadlines and tasks ("the report is due Friday"), events and appointments."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from uac.fact_log.extraction.patterns.dates import find_time
from uac.fact_log.extraction.patterns.text import (
    NAME,
    NOT_NAMES,
    Ctx,
    Rule,
    Span,
    clause_ok,
    dates_in,
    word_set,
)

_EVENT = re.compile(
    r"\b(appointment|appt|meeting|call|interview|dinner|lunch|breakfast|brunch|party|wedding|"
    r"check-?up|consultation|session|class|conference|concert|game|match|haircut|viewing|exam|"
    r"surgery|operation|reservation|ceremony|funeral|recital|presentation|webinar|scan|"
    r"1:1|one-on-one|catch-up|date\s+night|playdate|gig|show|rehearsal|review|training|"
    r"workshop|visit|offsite|off-site|retreat|away\s+day|kick-?off)s?\b|(预约|会议|面试|聚会|婚礼|看牙|体检)",
    re.IGNORECASE,
)
_EVENT_LEAD = re.compile(
    r"(?:([A-Za-z][\w'’-]{1,20})\s+)?(?:([A-Za-z][\w'’-]{1,20})\s+)?$",
)
_WITH = re.compile(
    r"\bwith\s+(?:my\s+\w+\s+)?(" + NAME + r"(?:\s*(?:,|and|&)\s*" + NAME + r"){0,3})"
)
_LOCATION = re.compile(r"\b(?:at|in)\s+(?:the\s+)?(" + NAME + r")")
_TITLE_DROP = word_set(
    "a an the my our i i've i'm have has got had there's is with on at for this next big "
    "important quick so ok okay well and then also just"
)
_DEADLINE = re.compile(
    r"(?:^|\b(?:the|my|our)\s+)(?P<goal>[A-Za-z][\w'’ -]{2,60}?)\s+(?:is|are)\s+due\b|"
    r"\bdeadline\s+(?:for|to)\s+(?:the\s+|my\s+)?(?P<goal2>[\w'’ -]{3,60}?)\s+is\b|"
    r"(?:^|\b(?:the|my|our)\s+)(?P<goal3>[A-Za-z][\w'’ -]{2,60}?)\s+deadline\s+is\b|"
    r"\bi\s+(?:must|(?:need|have|must|got|'ve\s+got|'ll\s+need)\s+to)\s+"
    r"(?P<goal4>[\w'’ -]{3,60}?)\s+(?:by|before)\b",
    re.IGNORECASE,
)


def rule_deadlines(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Deadlines become tasks with a due date."""
    m = _DEADLINE.search(sent.text)
    if m is None or not clause_ok(parts, sent, sent.start + m.start()):
        return
    goal = next(g for g in (m["goal"], m["goal2"], m["goal3"], m["goal4"]) if g)
    goal = " ".join(goal.split())
    if goal.lower() in ("it", "this", "that") and not m["goal4"]:
        return
    dates = [d for d in dates_in(sent, "future", ctx.today) if d.start >= sent.start + m.start()]
    if not dates or not dates[0].valid:
        return
    value = {"goal": goal[:1].upper() + goal[1:], "status": "planned", "due_date": dates[0].date}
    ctx.add("tasks.tasks", value, sent, 0.8)


# A sentence about a journey is a trip, not an event ("my flight on 5 May").
_TRAVEL_ONLY = re.compile(r"\b(?:fly(?:ing)?|flight|train\s+to|trip\s+to)\b", re.IGNORECASE)


def rule_events(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Appointments and events with a date (and a time when given)."""
    if _DEADLINE.search(sent.text) or _TRAVEL_ONLY.search(sent.text):
        return
    ev = _EVENT.search(sent.text)
    if ev is None or not clause_ok(parts, sent, sent.start + ev.start()):
        return
    if any(c.path == "travel.trips" and c.start == sent.start for c in ctx.out):
        return  # the date belongs to the journey ("heading to Barcelona for a wedding on ...")
    dates = dates_in(sent, "future", ctx.today)
    if not dates or not dates[0].valid:
        return
    day = dates[0].date
    assert day is not None
    if day < ctx.today:
        return  # a calendar is for what is coming; past meetings are conversation, not plans
    clock = find_time(sent.text)
    start = dt.datetime.combine(day, clock[0] if clock else dt.time(0, 0))
    lead = _EVENT_LEAD.search(sent.text[max(0, ev.start() - 44) : ev.start()])
    words = [w for w in (lead[1], lead[2]) if w] if lead else []
    while words and words[0].lower() in _TITLE_DROP:
        words.pop(0)
    words = [w for w in words if w.lower() not in _TITLE_DROP]
    title = " ".join([*words, ev[0]])
    value: dict[str, Any] = {"title": title[:1].upper() + title[1:], "start": start}
    if (with_ := _WITH.search(sent.text)) is not None:
        people = [p.strip() for p in re.split(r"\s*(?:,|\band\b|&)\s*", with_[1]) if p.strip()]
        people = [p for p in people if p.split()[0] not in NOT_NAMES]
        if people:
            value["with_whom"] = people
            if title.lower() in ("meeting", "call", "lunch", "dinner", "coffee", "catch-up"):
                value["title"] = f"{value['title']} with {people[0]}"
    if (loc := _LOCATION.search(sent.text)) is not None and loc[1].split()[0] not in NOT_NAMES:
        value["location"] = loc[1]
    ctx.add("schedule.events", value, sent, 0.8 if clock else 0.7)


RULES: tuple[Rule, ...] = (rule_deadlines, rule_events)
