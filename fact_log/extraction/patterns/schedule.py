"""Schedule patterns: deadlines and tasks ("the report is due Friday"), events and appointments."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from uac.fact_log.extraction.patterns.text import (
    FOR_SOMEONE,
    NAME,
    NOT_NAMES,
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
from uac.fact_log.extraction.timemodel import WEEKDAYS, Clock, DateMatch, clock, duration
from uac.fact_log.extraction.values.places import lookup_place
from uac.fact_log.reference import vocabulary

EVENT = re.compile(
    r"\b(appointment|appt|meeting|call|interview|dinner|lunch|breakfast|brunch|party|wedding|"
    r"check-?up|consultation|session|class|conference|concert|game|match|haircut|viewing|exam|"
    r"surgery|operation|reservation|ceremony|funeral|recital|presentation|webinar|scan|"
    # "the app shows AEP took", "it shows that": the verb, not a show
    r"1:1|one-on-one|catch-up|date\s+night|playdate|gig|"
    r"show(?!s?\s+(?:(?:that|the|a|an|me|my|us|you|him|her|them|up|it)\b|(?-i:[A-Z0-9£$€])))|"
    r"rehearsal|review|training|"
    r"workshop|visit|offsite|off-site|retreat|away\s+day|dentist|doctor|gp|mri|"
    r"x-?ray|blood\s+test|vaccination|root\s+canal|lesson|theatre|theater|book\s+club|plumber|"
    # a test said with what it tests ("herd TB test", "covid test"); hearings of the law
    r"(?-i:[A-Z]{2,5})\s+test|mediation|court\s+hearing|tribunal|deposition|"
    r"optician|optometrist|orthodontist|hygienist|podiatrist|dermatologist|"
    r"electrician|midwife\s+appointment|biometrics\s+appointment|table|tasting|"
    r"parents'?\s+evening|open\s+day|sports\s+day|school\s+play|(?<!\bof\s)course|"
    r"(?:yoga|pilates|choir|swimming|tutoring)(?:\s+(?:class|lesson|practice|session)s?)?|"
    r"stand-?up|practice|therapy|quiz(?:\s+night)?|(?:eye|hearing|driving|smear|sight)\s+test|"
    r"mot|screening|fitting|christening|baptism|graduation|reception|housewarming|barbecue|bbq|"
    r"anniversary|physio(?:therapy)?|counselling|osteo(?:path)?|chiropractor|vet|"
    r"kick[- ]?off|"
    # a school's and a sports club's days ("homecoming is oct 14", "the grand final")
    r"homecoming|prom|grand\s+final|(?:school|class|field)\s+trip|health\s+visitor)(?:e?s)?\b|"
    r"(预约|会议|面试|聚会|婚礼|看牙|体检)",
    re.IGNORECASE,
)
# a fixture: "Leeds v Sunderland", "Arsenal vs Spurs" (searched only when " v" is said)
_FIXTURE_EVENT = re.compile(
    r"\b[A-Z][\w'’.]+(?:\s[A-Z][\w'’.]+)?\s+(?:v|vs\.?|versus)\s+[A-Z][\w'’.]+(?:\s[A-Z][\w'’.]+)?"
)


def find_event(text: str) -> re.Match[str] | None:
    """The first event a text names: a fixture, else an event word."""
    if " v" in text and (fixture := _FIXTURE_EVENT.search(text)) is not None:
        return fixture
    return EVENT.search(text)


_EVENT_LEAD = re.compile(
    r"(?:([A-Za-z][\w'’-]{1,20})\s+)?(?:([A-Za-z][\w'’-]{1,20})\s+)?$",
)
_WITH = re.compile(
    r"\bwith\s+(?:my\s+\w+\s+)?(" + NAME + r"(?:\s*(?:,|and|&)\s*" + NAME + r"){0,3})"
)
# (a name's particles kept: "at Tandartspraktijk Hof van Delft", "at Huis ter Duin")
_LOCATION = re.compile(
    r"\b(?:at|in)\s+(?:the\s+)?("
    + NAME
    + r"(?:\s(?-i:van|von|de|der|den|ter|ten|da|di|del|du|la|le)"
    r"(?:\s(?-i:der|den|de|la))?\s(?-i:[A-Z][\w'’-]+))?)"
)
_TITLE_DROP = frozenset(vocabulary()["word_sets"]["schedule_title_drop"])
_DEADLINE = re.compile(
    r"(?:^|(?<=:\s)|\b(?:the|my|our)\s+)(?P<goal>[A-Za-z][\w'’ -]{2,60}?)\s+(?:(?:is|are)\s+)?due"
    # "thesis draft due to my supervisor on 1 June" (but not "due to the rain")
    r"(?:\s+(?:to|with)\s+(?:my|our)\s+[a-z]{3,15}(?=\s+(?:on|by|before|in)\b))?\b"
    r"(?!\s+to\b)|"
    r"\bdeadline\s+(?:for|to)\s+(?:the\s+|my\s+)?(?P<goal2>[\w'’ -]{3,60}?)\s+is\b|"
    r"(?:^|\b(?:the|my|our)\s+)(?P<goal3>[A-Za-z][\w'’ -]{2,60}?)\s+deadline\s+is\b|"
    # (the "I" may go unsaid: "Need to order the cake by Wednesday", "..., must tell Karen by")
    r"(?:\bi\s+|^(?:so\s+|and\s+|also\s+|still\s+)?|(?:(?<=[,;] )|(?<=[,;]))(?:and\s+|so\s+)?)"
    r"(?:(?:also\s+)?owe\s+(?:my|the|our)\s+[a-z]{3,15}|must|(?:need|have|must|got|"
    r"'ve\s+got|'ll\s+need)\s+to)\s+"
    # "I must send the documents until 15 August": "until" as "by", after an obligation
    r"(?P<goal4>[\w'’ -]{3,60}?)\s+(?:by|before|until|till)\b|"
    # "dissertation draft to my supervisor by Friday": a deliverable, who gets it, and when
    r"^(?:and\s+|also\s+)?(?:the\s+|my\s+|our\s+)?(?P<goal7>[A-Za-z][\w'’ -]{2,40}?)\s+"
    r"(?:to|for)\s+(?:my|the|our)\s+[a-z]{3,15}\s+by\b|"
    r"(?:^|\b(?:the|my|our)\s+)(?P<goal5>[A-Za-z][\w'’ #-]{2,60}?)\s+(?:has|have|needs?|must)\s+"
    # "reports need to be on the system by Friday": where it must be, then the day
    r"(?:to\s+)?(?:be\s+)?(?:(?:on|into|in|uploaded\s+to)\s+(?:the|my|our)\s+[\w-]{2,15}(?=\s+by\b)|submitted|filed|sent|handed\s+in|paid|returned|signed|done|"
    r"finished|renewed|in|sending|posting|submitting|filing|doing|paying|signing|returning|"
    # any participle: "needs ordering by the 1st", "must be finalised by 30 September"
    r"renewing|[a-z]{3,15}(?:ed|ing|en))"
    # "has to be in with the NMC by 30 april": who receives it, then the day
    r"(?:\s+(?:with|to)\s+(?:the|my|our)\s+[\w-]{2,15})?\s+(?:by|before)\b|"
    # "Also: practising certificate renewal, deadline 31/10": a thing, then its deadline
    r"(?:^|(?<=:\s))(?:also\s+)?(?P<goal8>[A-Za-z][\w'’ -]{2,60}?)\s*[,–-]\s*deadline\b|"
    # "The grant application closes on 20 March": a call that closes is a deadline
    r"(?:^|\b(?:the|my|our)\s+)(?P<goal6>[A-Za-z][\w'’ -]{0,40}?(?:application|submission|"
    r"registration|entries|nominations|enrol?ment|consultation|applications|bids?))\s+"
    r"(?:closes|is\s+closing|shuts)\b",
    re.IGNORECASE,
)


def rule_deadlines(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Deadlines become tasks with a due date."""
    if _it_due(ctx, sent, parts):
        return
    m = _DEADLINE.search(sent.text)
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
    dates = [
        d
        for d in dates_in(sent, "future", ctx.today, ctx.anchor)
        if d.start >= sent.start + m.start()
    ]
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
_IT_DUE = re.compile(
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
    days = [d for d in dates_in(sent, "future", ctx.today, ctx.anchor) if d.valid]
    if not days:
        return False
    value = {"goal": task.get("goal"), "status": "planned", "due_date": days[0].date}
    ctx.add("tasks.tasks", value, sent, 0.75)
    return True


# a term counted from another day ("28 days from service", "two weeks after delivery")
_COUNTED = re.compile(
    r"\b(?:\d{1,3}|a|one|two|three|four|six|ten|fourteen|thirty)\s+(?:working\s+|business\s+)?"
    r"(?:days?|weeks?|months?)\s+(?:from|after|of)\b",
    re.I,
)
# "... but my wife is doing it", "Tom will handle that": the task is someone else's
_DONE_BY_OTHER = re.compile(
    r"\b(?:(?:my|our)\s+[a-z]+|(?-i:[A-Z][a-z]+)|she|he|they)\s+(?:is|are|will\s+be|will|'s|'ll)\s+"
    r"(?:doing|handling|sorting|taking\s+care\s+of|do|handle|sort|take\s+care\s+of)\s+"
    r"(?:it|that|this|them)\b",
    re.I,
)
# "my boss says (that) the ...", "Tom reckons our ...": who said it is not what is due
_REPORTED = re.compile(
    r"^(?:[\w'’]+\s+){0,3}?(?:says?|said|tells?\s+(?:me|us)|told\s+(?:me|us)|thinks?|reckons?|"
    r"mentioned|confirmed|reminded\s+(?:me|us)|wrote|emailed)(?:\s+that)?(?:\s+(?:the|my|our)\b)?"
    r"\s*",
    re.I,
)
_NOT_A_GOAL = re.compile(
    r"^(?:(?:my\s+|our\s+|the\s+)?(?:\w+(?:'s|’s)\s+)?(?:baby|babies|twins)(?:'s|’s)?|"
    r"(?:the\s+)?next(?:\s+one)?|one|it|this|that)$",
    re.I,
)


# "Sent the exemption form off yesterday, so that one's done": a task the thread holds, done.
_DONE = re.compile(
    r"\b(?:sent|posted|submitted|filed|handed\s+in|paid|returned|finished|completed|renewed|"
    r"done|sorted|dealt\s+with)\b",
    re.I,
)
_GOAL_NOISE = frozenset(vocabulary()["word_sets"]["schedule_goal_noise"])


NOT_YET = re.compile(
    r"\b(?:need|needs|have\s+to|has\s+to|must|due|deadline|should|will|going\s+to|to\s+be|"
    r"by|before|until|yet|still)\b|'ll\b",
    re.I,
)


_SOMEONE = re.compile(r"\b(?:his|her|their|he|she)\b|^(?:my|our)\s+(?!\w+\s+(?:is|was)\b)", re.I)


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


_NO_MORE = re.compile(r"\b(?:used\s+to|no\s+longer|any\s*more)\b", re.I)
_BOOKED = re.compile(r"\b(?:booked|signed\s+up|enrolled|registered)\b", re.I)
# A sentence about a journey is a trip, not an event ("my flight on 5 May").
_TRAVEL_ONLY = re.compile(r"\b(?:fly(?:ing)?|flight|train\s+to|trip\s+to)\b", re.IGNORECASE)


_FIXTURE = re.compile(r"\s(?:v|vs\.?|versus)\s")
# "call AEP tomorrow", "pls ring the vet monday": a line that opens with what to do
_IMPERATIVE = re.compile(
    r"^(?:(?:pls|please|and|also|so)\s+)?(?=(?:call|ring|phone)\s+(?!with\b))", re.I
)
_CONTACTED = re.compile(
    r"\b(?:ring|call|phone|email|e-mail|text|contact)\s+(?:the|my|our)\s+$", re.I
)


# "I will call them tomorrow", "said to call back monday", "I'll call you": calling as a thing
# to do (no call booked); "a call with Dana at 3", "the sales call" stay events
_CALL_VERB_BEFORE = re.compile(
    r"\b(?:will|['’]ll|to|gonna|must|should|can|could|shall|might|may|would|pls|please)\s+$", re.I
)
_CALL_VERB_AFTER = re.compile(r"\s+(?:them|him|her|me|you|us|it|back|round)\b", re.I)
# "Updated med list after GI appt today", "after my physio this morning": an event that was
_AFTER_IT = re.compile(
    r"\bafter\s+(?:my\s+|the\s+|a\s+|his\s+|her\s+|our\s+)?(?:[\w-]+\s+){0,2}$", re.I
)
_PAST_TODAY = re.compile(r"^\W*(?:[\w-]+\s+){0,2}(?:today|this\s+morning|earlier)\b", re.I)
# "I am on the triple therapy for 14 days": a treatment the user is on, no appointment
_ON_TREATMENT = re.compile(r"\bon\s+(?:the\s+|a\s+|an\s+|my\s+)?(?:[\w-]+\s+){0,2}$", re.I)


def _not_an_event(text: str, ev: re.Match[str]) -> bool:
    """Whether the event word is said as something else than an event: a call to make, an
    event that already was today, a treatment the user is on."""
    word = ev[0].lower()
    before = text[max(0, ev.start() - 40) : ev.start()]
    if word == "call" and (
        _CALL_VERB_BEFORE.search(before) or _CALL_VERB_AFTER.match(text, ev.end())
    ):
        return True
    if _AFTER_IT.search(before) and _PAST_TODAY.match(text[ev.end() :]):
        return True
    return word == "therapy" and _ON_TREATMENT.search(before) is not None


_REMIND_TO = re.compile(r"\bremind\s+me\s+(?:on\s+\S+\s+|tomorrow\s+)?to\s+(?:\w+\s+){0,2}$", re.I)


def event_title(text: str, ev: re.Match[str]) -> str:
    """The event word with up to two words said before it ("scuba diving course")."""
    if _FIXTURE.search(ev[0]):
        return ev[0]  # "Leeds v Sunderland" is the whole title
    lead = _EVENT_LEAD.search(text[max(0, ev.start() - 44) : ev.start()])
    words = [w for w in (lead[1], lead[2]) if w] if lead else []
    while words and words[0].lower() in _TITLE_DROP:
        words.pop(0)
    words = [w for w in words if w.lower() not in _TITLE_DROP]
    # "anniversary dinner", "wedding reception": an event word naming the next one's kind
    nxt = EVENT.match(text, ev.end() + 1) if text[ev.end() : ev.end() + 1] == " " else None
    return " ".join([*words, ev[0], *([nxt[0]] if nxt is not None else [])])


def named_event(text: str) -> str | None:
    """The title of an event a sentence names, capitalised, or None."""
    ev = find_event(text)
    if ev is None:
        return None
    title = event_title(text, ev)
    return title[:1].upper() + title[1:]


_JOURNEY_WORDS = word_set("holiday holidays vacation trip week weekend getaway break")


def a_journey(title: str) -> bool:
    """Whether an event's title names a journey ("proper holiday", "last minute week"): the
    trip rules read those, a calendar event of whole days would double them."""
    words = title.lower().split()
    return bool(words) and words[-1] in _JOURNEY_WORDS


def _dated_event(ctx: Ctx, sent: Span, parts: list[Span]) -> re.Match[str] | None:
    """Of several event words, the first in a clause that holds a day ("vet rang, herd TB test
    is on the 23rd at 10": the test, not the vet); None for one or none."""
    found = list(EVENT.finditer(sent.text))
    dated = [clause_of(parts, d.start) for d in dates_in(sent, "future", ctx.today, ctx.anchor)]
    days = {(c.start, c.end) for c in dated if c is not None}
    for ev in found:
        own = clause_of(parts, sent.start + ev.start())
        if own is not None and (own.start, own.end) in days:
            # "Physio rang, next appointment is the 12th": a bare appointment is the one the
            # first word named
            return None if _GENERIC_EVENT.fullmatch(ev[0]) else ev
    return None


_GENERIC_EVENT = re.compile(r"(?:next\s+)?(?:appointment|appt|session|visit|consultation)", re.I)


def rule_events(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Appointments and events with a date (and a time when given)."""
    if _DEADLINE.search(sent.text) or _TRAVEL_ONLY.search(sent.text):
        return
    ev = find_event(sent.text)
    if ev is not None and EVENT.search(sent.text, ev.end()) is not None:
        ev = _dated_event(ctx, sent, parts) or ev  # of several, the one said with its day
    if not in_clause(ev, parts, sent):
        return
    if (imp := _IMPERATIVE.match(sent.text)) is not None and ev.start() == imp.end():
        return  # "call AEP tomorrow": something to do (agenda.rule_todo), not a call booked
    if _REMIND_TO.search(sent.text, 0, ev.start()):
        return  # "remind me to call mum on Sunday": a task (agenda.rule_reminder)
    if _CONTACTED.search(sent.text, 0, ev.start()):
        return  # "need to ring the surgery": the place to call, not an appointment
    if _NO_MORE.search(sent.text):
        return  # "I used to have yoga every Tuesday": a past habit, not a plan
    if _not_an_event(sent.text, ev):
        return
    if _details_follow(ctx, sent):
        # "I joined a choir! Wednesdays 7 to 9pm, starting tomorrow": the details follow
        sent = Span(sent.start, ctx.text[sent.start : ctx.following.end])  # type: ignore[union-attr]
    when = clock(sent.text)
    if ev[0].lower() in _PEOPLE and when is None:
        return  # "the doctor put me on ...": a person, not an appointment, without a time
    here = ctx.out[ctx.here() :]
    if any(c.path == "travel.bookings" and c.start == sent.start for c in here):
        return  # "Booked Emirates BLR-DXB-CDG for 2nd October": the journey, not an event
    trip = next((c for c in here if c.path == "travel.trips" and c.start == sent.start), None)
    city = trip.value.get("city") if trip is not None else None
    booked = _BOOKED.search(sent.text, 0, ev.start())
    if trip is not None and (not city or not booked or ev.start() > sent.text.find(city)):
        # The date belongs to the journey ("heading to Barcelona for a wedding on ..."); an
        # event booked before its place is named is both ("Booked a diving course on 12 July
        # in Dahab").
        return
    dates = [d for d in dates_in(sent, "future", ctx.today, ctx.anchor) if d.start >= sent.start]
    day = dates[0].date if dates else _same_day(ctx, sent, when) or _next_weekly(ctx, sent, when)
    if day is None or (dates and not dates[0].valid):
        return
    if day < ctx.today:
        return  # a calendar is for what is coming; past meetings are conversation, not plans
    start = dt.datetime.combine(day, when.start if when else dt.time(0, 0))
    end = _end(ctx, sent, dates, start, when)
    title = event_title(sent.text, ev)
    if a_journey(title):
        return  # "booked a proper holiday", "a last minute week in Porto": a trip, not an event
    if ev[0].lower() == "table" and (loc := _LOCATION.search(sent.text, ev.end())):
        title = f"Table at {loc[1]}"  # "booked a table at Dishoom"
    value: dict[str, Any] = {"title": title[:1].upper() + title[1:], "start": start}
    if end is not None and end > start:
        value["end"] = end
    if (with_ := _WITH.search(sent.text)) is not None:
        people = [p.strip() for p in re.split(r"\s*(?:,|\band\b|&)\s*", with_[1]) if p.strip()]
        people = [p for p in people if p.split()[0] not in NOT_NAMES]
        if people:
            value["with_whom"] = people
            if title.lower() in ("meeting", "call", "lunch", "dinner", "coffee", "catch-up"):
                value["title"] = f"{value['title']} with {people[0]}"
    if (where := event_place(sent.text, ev.end())) is not None:
        value["location"] = where
    ctx.add("schedule.events", value, sent, 0.8 if when else 0.7)


def event_place(text: str, after: int = 0) -> str | None:
    """Where an event takes place: a street, a numbered or named place, a kind of venue, or a
    name standing alone as the last clause after the event word at `after`."""
    loc = (
        _STREET.search(text)
        or _NUMBERED_PLACE.search(text)
        or _LOCATION.search(text)
        or _VENUE.search(text)
        or _TRAILING_PLACE.search(text, after)
    )
    if loc is None or loc[1].split()[0] in NOT_NAMES:
        return None
    return " ".join(loc[1].split())


# "on Mill Rd", "(Harley St)": a street said with its name
_STREET = re.compile(
    r"(?:\b(?:on|at|in|off)\s+|\()((?-i:[A-Z][\w'’]+(?:\s[A-Z][\w'’]+)?)\s(?i:rd|road|st|street|"
    r"ave|avenue|lane|ln|way|drive|square|sq|place|pl|terrace|crescent|close)\b\.?)"
)
# "in the church hall", "at the university arena", "in Pier 7": where, said by its kind of
# place in lower case, or a name with its number
_VENUE = re.compile(
    r"\b(?:at|in)\s+(?:the\s+)?((?:[a-z][\w'’-]+\s){0,2}(?:hall|arena|centre|center|clinic|"
    r"hospital|church|chapel|school|library|gym|surgery|studio|pool|club|pub|restaurant|cafe|"
    r"café|hotel|theatre|theater|stadium|office|practice|community\s+centre|facility|depot|"
    r"pharmacy|garage)\b)",
    re.I,
)
_NUMBERED_PLACE = re.compile(r"\b(?:at|in)\s+(?:the\s+)?((?-i:[A-Z][\w'’]+)\s\d{1,4})\b(?![:.]\d)")
# "christening at 2pm, St Mary's": a capitalised name standing alone as the last clause
_TRAILING_PLACE = re.compile(
    r",\s*(?:the\s+)?((?-i:(?:St\.?\s+)?[A-Z][\w'’]+(?:\s+[A-Z][\w'’]+){0,3}))\s*[.!]*$"
)


def _details_follow(ctx: Ctx, sent: Span) -> bool:
    """Whether an event named without day or time has them in the fragment that follows."""
    nxt = ctx.following
    if nxt is None or not _DETAILS.match(nxt.text) or clock(sent.text) is not None:
        return False
    if dates_in(sent, "future", ctx.today):
        return False
    if clock(nxt.text) is not None or _WEEKLY_DAY.search(nxt.text) is not None:
        return True
    # "PADI open water course in Dahab!! 12th to 15th September": the days alone follow
    days = dates_in(nxt, "future", ctx.today, ctx.anchor)
    return len(days) == 2 and days[0].start - nxt.start < 6


_DETAILS = re.compile(r"^(?!(?:i|we|my|our|he|she|they|it|you|his|her|their)\b)[^?]*$", re.I)
_PEOPLE = word_set("dentist doctor gp plumber electrician physio osteo vet chiropractor")
_THEN = re.compile(
    r"^(?:and\s+)?(?:then|after\s+that|afterwards|later)\b|"
    # "Same day 11:45 dentist", "that day at 3 the vet too": the day just talked about
    r"^(?:and\s+|also\s+)?(?:the\s+)?(?:same|that)\s+day\b|"
    r"\bafter(?:wards)?\s+(?:is|are|will\s+be|at)\b",  # "the reception after is at the Swan"
    re.I,
)
_UNTIL = re.compile(r"(?:\b(?:to|till|until|through|thru)|[-–])\s*(?:the\s+)?$", re.I)


_WEEKLY_DAY = re.compile(
    r"\b(?:on\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s\b", re.I
)


def _next_weekly(ctx: Ctx, sent: Span, when: Clock | None) -> dt.date | None:
    """ "Choir practice on Mondays at 7": the next such day (rule_repeats makes it weekly)."""
    m = _WEEKLY_DAY.search(sent.text)
    if m is None or when is None:
        return None
    target = WEEKDAYS[m[1].lower()]
    return ctx.today + dt.timedelta(days=(target - ctx.today.weekday()) % 7 or 7)


def _same_day(ctx: Ctx, sent: Span, when: Clock | None) -> dt.date | None:
    """ "Then I have a call with the bank at 9": the day of the event just talked about."""
    if when is None or not _THEN.search(sent.text):
        return None
    last = ctx.thread.last("schedule.events")
    start = last.get("start") if last is not None else None
    return start.date() if isinstance(start, dt.datetime) else None


def _end(
    ctx: Ctx, sent: Span, dates: list[DateMatch], start: dt.datetime, when: Clock | None
) -> dt.datetime | None:
    """The end: a time range, a stated length, or a last day ("September 14-17")."""
    if when is not None and when.end is not None:
        return dt.datetime.combine(start.date(), when.end)
    if len(dates) > 1 and dates[1].date is not None:
        lead = ctx.text[max(sent.start, dates[1].start - 12) : dates[1].start]
        if _UNTIL.search(lead) or dates[1].text.isdigit():
            return dt.datetime.combine(dates[1].date, dt.time(23, 59))
    span = duration(sent.text)
    if span is not None and when is not None:
        return start + span[0]
    return None


_AWAY = re.compile(
    r"\b(?:i(?:'m|\s+am|'ll\s+be|\s+will\s+be)|we(?:'re|\s+are|'ll\s+be|\s+will\s+be))\s+"
    r"(?:(?:going\s+to\s+be|also)\s+)?(?P<what>out\s+of\s+(?:the\s+)?office|away|off|abroad|"
    # "I am in holidays": the non-native preposition too
    r"out\s+of\s+(?:the\s+country|town)|(?:on|in)\s+"
    r"(?:holidays?|vacations?|leave|annual\s+leave|parental\s+leave)|ooo)\b",
    re.I,
)


# A note to self at the start of a message: "Out of office 10 to 14 March"; the user's own
# leave granted or booked ("Annual leave approved! 4 to 9 August", "Holiday booked, ...").
_AWAY_NOTE = re.compile(
    r"(?:(?:and|also|so|plus)\s+)?(?:"  # "and on leave from May 3rd to the 7th"
    r"(?P<what>out\s+of\s+(?:the\s+)?office|ooo|(?:on|in)\s+(?:holidays?|vacations?|leave|"
    r"annual\s+leave))\b"
    r"|(?:(?:my|our)\s+)?(?P<leave>(?:annual\s+|parental\s+)?leave|holiday|vacation|time\s+off|pto)"
    r"\s+(?:(?:is|has\s+been|got|was)\s+)?(?:finally\s+)?(?:approved|booked|confirmed|signed\s+off|"
    r"granted)\b"
    # "booked annual leave: out of office 9 to 24 August"
    r"|(?:booked|got|took|taking)\s+(?:my\s+|some\s+)?(?P<leave2>annual\s+leave|leave|holiday|time\s+off|pto)\b"
    # "annual leave 22-26 July", "PTO: 3 to 7 March": the leave and its days, a note
    r"|(?:my\s+)?(?P<leave3>annual\s+leave|time\s+off|pto)\s*[:,–-]?\s*(?=(?:from\s+)?(?:the\s+)?\d))",
    re.I,
)


# "annual leave 22-26 July got rejected", "time off 3 to 7 March would be nice", "PTO for my
# husband", "leave 22-26 July?": no days the user is away
_LEAVE_NOT = re.compile(
    r"\?|\b(?:rejected|denied|declined|refused|not\s+(?:approved|granted|sure)|cancell?ed|"
    r"would\s+be\s+nice|hop(?:e|ing)|wish|maybe|might)\b|" + FOR_SOMEONE,
    re.I,
)
_TILL_ONLY = re.compile(r"\s*(?:work\s+|school\s+)?(?:until|till|til|through)\s+(?:the\s+)?$", re.I)


# "I will be in Tokyo from 18 to 22 December for the audit, out of office.": the user's days
# away said first, "out of office" closing the sentence
_AWAY_TAIL = re.compile(
    r"^(?:[^.?!]*?\b)?(?:i(?:['’]m|\s+am|['’]ll\s+be|\s+will\s+be)|we(?:['’]re|\s+are|['’]ll\s+be|"
    r"\s+will\s+be))\s[^?]*?[,;(–-]\s*(?:so\s+|and\s+)?(?P<what>out\s+of\s+(?:the\s+)?office|ooo)"
    r"\s*\)?[.!]*$",
    re.I,
)


def rule_away(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Days the user is away: "I'm out of office from April 6 to April 10"."""
    m = _AWAY.search(sent.text) or _AWAY_NOTE.match(sent.text)
    if m is None and ("office" in sent.text or "OOO" in sent.text):
        m = _AWAY_TAIL.match(sent.text)
        if m is not None and not clause_ok(parts, sent, sent.start):
            return
    if not in_clause(m, parts, sent):
        return
    dates = [
        d
        for d in dates_in(sent, "future", ctx.today, ctx.anchor)
        if d.start > sent.start + m.start()
    ]
    said = m.groupdict()
    leave = said.get("leave") or said.get("leave2") or said.get("leave3")
    if not dates and leave and ctx.following is not None:
        # "Annual leave approved!! 17 to 28 August": the days are the next sentence
        sent = Span(sent.start, ctx.text[sent.start : ctx.following.end])
        dates = dates_in(sent, "future", ctx.today, ctx.anchor)
    if len(dates) == 1 and _TILL_ONLY.match(ctx.text, sent.start + m.end(), dates[0].start):
        # "I've told work I'm off until Friday": away from today
        dates = [DateMatch(dates[0].start, dates[0].start, "", ctx.today), dates[0]]
    if len(dates) < 2:
        # "From 1 to 21 of August I am in holidays": the days before the cue
        dates = dates_in(sent, "future", ctx.today, ctx.anchor)[:2]
    if len(dates) < 2 or dates[0].date is None or dates[1].date is None:
        return
    if leave and _LEAVE_NOT.search(sent.text):
        return
    lead = ctx.text[max(sent.start, dates[1].start - 12) : dates[1].start]
    if not _UNTIL.search(lead) or dates[1].date < dates[0].date:
        return
    what = " ".join((m["what"] or "").lower().split())
    value: dict[str, Any] = {"start": dates[0].date, "end": dates[1].date}
    if leave:
        value["reason"] = " ".join(leave.lower().split())
    elif what.startswith(("on ", "in ")):
        value["reason"] = re.sub(r"(?<=holiday|acation)s$", "", what[3:])  # "in holidays"
    elif what.startswith("out") or what == "ooo":
        value["reason"] = "out of office"
    ctx.add("schedule.away_periods", value, sent, 0.8)


# "I booked the Sky Garden for 3 July", "Also booked Kew Gardens for July 9 at 10am": a named
# place booked for a day is an outing on that day (a city booked is a trip: travel.py's).
_BOOKED_PLACE = re.compile(
    r"(?:\bi(?:'ve|\s+have)?\s+|^)(?:also\s+|just\s+|finally\s+)?booked\s+(?:the\s+)?"
    r"(?P<what>(?-i:[A-Z][\w'&-]+(?:\s+[A-Z][\w'&-]+){0,3}))\s+for\s+",
    re.IGNORECASE,
)


def rule_booked_place(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A named place the user booked for a day (and a time): an event there."""
    m = _BOOKED_PLACE.search(sent.text)
    claimed = ("schedule.events", "travel.bookings")  # a journey booked is no outing
    if m is None or any(c.path in claimed for c in ctx.out if c.start >= sent.start):
        return
    what = m["what"]
    if what.split()[0] in NOT_NAMES or lookup_place(what) is not None:
        return
    if not in_clause(m, parts, sent):
        return
    dates = [
        d
        for d in dates_in(sent, "future", ctx.today, ctx.anchor)
        if d.start >= sent.start + m.end()
    ]
    if not dates or not dates[0].valid or dates[0].start - sent.start > m.end() + 2:
        return  # the day follows "for" ("for 3 nights" is no day)
    when = clock(sent.text[m.end() :])
    value: dict[str, Any] = {
        "title": what,
        "start": dt.datetime.combine(dates[0].date, when.start if when else dt.time()),
    }
    if when is not None and when.end is not None:
        value["end"] = dt.datetime.combine(dates[0].date, when.end)
    ctx.add("schedule.events", value, sent, 0.75)


# "My in-laws are staying with us from the 4th to the 8th", "Our friends are visiting from 12
# to 15 July": guests for days, an event of the user's from the first day to the last.
_GUESTS = re.compile(
    r"^(?:my|our)\s+(?P<who>parents|in-laws|mum|mom|dad|mother|father|sister|brother|friends?|"
    r"family|cousins?|grandparents|aunt|uncle|son|daughter|kids)\s+(?:are|is|'re|'s|will\s+be)\s+"
    r"(?:staying\s+with\s+(?:us|me)|visiting(?:\s+(?:us|me))?|coming\s+to\s+stay)\b",
    re.IGNORECASE,
)


def rule_guests(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Guests staying for days: one event with its first and last day."""
    m = _GUESTS.search(sent.text)
    if m is None or guarded(sent.text, None, sent.text):
        return
    dates = [
        d
        for d in dates_in(sent, "future", ctx.today, ctx.anchor)
        if d.start >= sent.start + m.end()
    ]
    if len(dates) < 2 or not (dates[0].valid and dates[1].valid) or dates[1].date < dates[0].date:
        return
    who = m["who"].lower()
    value = {
        "title": f"{who[:1].upper()}{who[1:]} staying",
        "start": dt.datetime.combine(dates[0].date, dt.time()),
        "end": dt.datetime.combine(dates[1].date, dt.time(23, 59)),
    }
    ctx.add("schedule.events", value, sent, 0.75)
