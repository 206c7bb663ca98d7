"""Schedule patterns, the one home of schedule.events and schedule.away_periods: events and
appointments said with an event word ("dentist on Thursday at 3:30"), a booked place, guests;
events read from a sentence's plans (starting a job or an activity on a day, a visit to the
home, signing up, a thing named with its day and time: "orgo final is tues may 9 at 8am");
events that repeat (a weekly note, a slot, a duty, a series and its end); deliveries (run with
the session thread's follow-ups); time away."""

from __future__ import annotations

import calendar
import dataclasses
import datetime as dt
import re
from typing import Any

from uac.fact_log.extraction.candidate import validate
from uac.fact_log.extraction.lazy import lazy
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
    stop_ok,
    word_set,
)
from uac.fact_log.extraction.patterns.travel import LODGING
from uac.fact_log.extraction.timemodel import (
    MONTHS,
    WEEKDAY_ABBR,
    WEEKDAYS,
    Clock,
    DateMatch,
    clock,
    count_word,
    duration,
    first_start,
    next_week_day,
    next_weekday,
    nth_weekday,
)
from uac.fact_log.extraction.values.money import find_money
from uac.fact_log.extraction.values.places import lookup_place
from uac.fact_log.reference import vocabulary

EVENT = lazy(
    r"\b("
    + "|".join(vocabulary()["ordered_lists"]["event_words"])
    + r")(?:e?s)?\b|(预约|会议|面试|聚会|婚礼|看牙|体检)",
    re.IGNORECASE,
)
# a fixture: "Leeds v Sunderland", "Arsenal vs Spurs" (searched only when " v" is said)
_FIXTURE_EVENT = lazy(
    r"\b[A-Z][\w'’.]+(?:\s[A-Z][\w'’.]+)?\s+(?:v|vs\.?|versus)\s+[A-Z][\w'’.]+(?:\s[A-Z][\w'’.]+)?"
)


def find_event(text: str) -> re.Match[str] | None:
    """The first event a text names: a fixture, else an event word."""
    if " v" in text and (fixture := _FIXTURE_EVENT.search(text)) is not None:
        return fixture
    return EVENT.search(text)


_EVENT_LEAD = lazy(
    r"(?:([A-Za-z][\w'’-]{1,20})\s+)?(?:([A-Za-z][\w'’-]{1,20})\s+)?$",
)
_WITH = lazy(r"\bwith\s+(?:my\s+\w+\s+)?(" + NAME + r"(?:\s*(?:,|and|&)\s*" + NAME + r"){0,3})")
# (a name's particles kept: "at Tandartspraktijk Hof van Delft", "at Huis ter Duin")
_LOCATION = lazy(
    r"\b(?:at|in)\s+(?:the\s+)?("
    + NAME
    + r"(?:\s(?-i:van|von|de|der|den|ter|ten|da|di|del|du|la|le)"
    r"(?:\s(?-i:der|den|de|la))?\s(?-i:[A-Z][\w'’-]+))?)"
)
_TITLE_DROP = frozenset(vocabulary()["word_sets"]["schedule_title_drop"])
DEADLINE = lazy(
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


_NO_MORE = lazy(r"\b(?:used\s+to|no\s+longer|any\s*more)\b", re.I)
_BOOKED = lazy(r"\b(?:booked|signed\s+up|enrolled|registered)\b", re.I)
# A sentence about a journey is a trip, not an event ("my flight on 5 May").
_TRAVEL_ONLY = lazy(r"\b(?:fly(?:ing)?|flight|train\s+to|trip\s+to)\b", re.IGNORECASE)


_FIXTURE = lazy(r"\s(?:v|vs\.?|versus)\s")
# "call AEP tomorrow", "pls ring the vet monday": a line that opens with what to do
_IMPERATIVE = lazy(r"^(?:(?:pls|please|and|also|so)\s+)?(?=(?:call|ring|phone)\s+(?!with\b))", re.I)
_CONTACTED = lazy(r"\b(?:ring|call|phone|email|e-mail|text|contact)\s+(?:the|my|our)\s+$", re.I)


# "I will call them tomorrow", "said to call back monday", "I'll call you": calling as a thing
# to do (no call booked); "a call with Dana at 3", "the sales call" stay events
_CALL_VERB_BEFORE = lazy(
    r"\b(?:will|['’]ll|to|gonna|must|should|can|could|shall|might|may|would|pls|please)\s+$", re.I
)
_CALL_VERB_AFTER = lazy(r"\s+(?:them|him|her|me|you|us|it|back|round)\b", re.I)
# "Updated med list after GI appt today", "after my physio this morning": an event that was
_AFTER_IT = lazy(r"\bafter\s+(?:my\s+|the\s+|a\s+|his\s+|her\s+|our\s+)?(?:[\w-]+\s+){0,2}$", re.I)
_PAST_TODAY = lazy(r"^\W*(?:[\w-]+\s+){0,2}(?:today|this\s+morning|earlier)\b", re.I)
# "I am on the triple therapy for 14 days": a treatment the user is on, no appointment
_ON_TREATMENT = lazy(r"\bon\s+(?:the\s+|a\s+|an\s+|my\s+)?(?:[\w-]+\s+){0,2}$", re.I)


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


_REMIND_TO = lazy(r"\bremind\s+me\s+(?:on\s+\S+\s+|tomorrow\s+)?to\s+(?:\w+\s+){0,2}$", re.I)


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
    dated = [clause_of(parts, d.start) for d in ctx.dates(sent)]
    days = {(c.start, c.end) for c in dated if c is not None}
    for ev in found:
        own = clause_of(parts, sent.start + ev.start())
        if own is not None and (own.start, own.end) in days:
            # "Physio rang, next appointment is the 12th": a bare appointment is the one the
            # first word named
            return None if _GENERIC_EVENT.fullmatch(ev[0]) else ev
    return None


_GENERIC_EVENT = lazy(r"(?:next\s+)?(?:appointment|appt|session|visit|consultation)", re.I)


def rule_events(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Appointments and events with a date (and a time when given)."""
    if DEADLINE.search(sent.text) or _TRAVEL_ONLY.search(sent.text):
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
    dates = [d for d in ctx.dates(sent) if d.start >= sent.start]
    # "from 13/05 for six weeks": the day said as the start; "til end of July" is no start
    begins = first_start(ctx.text, dates)
    day = begins.date if begins else _same_day(ctx, sent, when) or _next_weekly(ctx, sent, when)
    if day is None and dates:
        day = dates[0].date
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
_STREET = lazy(
    r"(?:\b(?:on|at|in|off)\s+|\()((?-i:[A-Z][\w'’]+(?:\s[A-Z][\w'’]+)?)\s(?i:rd|road|st|street|"
    r"ave|avenue|lane|ln|way|drive|square|sq|place|pl|terrace|crescent|close)\b\.?)"
)
# "in the church hall", "at the university arena", "in Pier 7": where, said by its kind of
# place in lower case, or a name with its number
_VENUE = lazy(
    r"\b(?:at|in)\s+(?:the\s+)?((?:[a-z][\w'’-]+\s){0,2}(?:hall|arena|centre|center|clinic|"
    r"hospital|church|chapel|school|library|gym|surgery|studio|pool|club|pub|restaurant|cafe|"
    r"café|hotel|theatre|theater|stadium|office|practice|community\s+centre|facility|depot|"
    r"pharmacy|garage|museum|gallery|clubhouse|marina|market|(?:pier|gate|room|hangar)\s\d{1,4})\b)",
    re.I,
)
_NUMBERED_PLACE = lazy(r"\b(?:at|in)\s+(?:the\s+)?((?-i:[A-Z][\w'’]+)\s\d{1,4})\b(?![:.]\d)")
# "christening at 2pm, St Mary's": a capitalised name standing alone as the last clause
_TRAILING_PLACE = lazy(
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
    days = ctx.dates(nxt)
    return len(days) == 2 and days[0].start - nxt.start < 6


_DETAILS = lazy(r"^(?!(?:i|we|my|our|he|she|they|it|you|his|her|their)\b)[^?]*$", re.I)
_PEOPLE = word_set("dentist doctor gp plumber electrician physio osteo vet chiropractor")
_THEN = lazy(
    r"^(?:and\s+)?(?:then|after\s+that|afterwards|later)\b|"
    # "Same day 11:45 dentist", "that day at 3 the vet too": the day just talked about
    r"^(?:and\s+|also\s+)?(?:the\s+)?(?:same|that)\s+day\b|"
    r"\bafter(?:wards)?\s+(?:is|are|will\s+be|at)\b",  # "the reception after is at the Swan"
    re.I,
)
_UNTIL = lazy(r"(?:\b(?:to|till|until|through|thru)|[-–])\s*(?:the\s+)?$", re.I)


_WEEKLY_DAY = lazy(
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


_AWAY = lazy(
    r"\b(?:i(?:'m|\s+am|'ll\s+be|\s+will\s+be)|we(?:'re|\s+are|'ll\s+be|\s+will\s+be))\s+"
    r"(?:(?:going\s+to\s+be|also)\s+)?(?P<what>out\s+of\s+(?:the\s+)?office|away|off|abroad|"
    # "I am in holidays": the non-native preposition too
    r"out\s+of\s+(?:the\s+country|town)|(?:on|in)\s+"
    r"(?:holidays?|vacations?|leave|annual\s+leave|parental\s+leave)|ooo)\b",
    re.I,
)


# A note to self at the start of a message: "Out of office 10 to 14 March"; the user's own
# leave granted or booked ("Annual leave approved! 4 to 9 August", "Holiday booked, ...").
_AWAY_NOTE = lazy(
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
_LEAVE_NOT = lazy(
    r"\?|\b(?:rejected|denied|declined|refused|not\s+(?:approved|granted|sure)|cancell?ed|"
    r"would\s+be\s+nice|hop(?:e|ing)|wish|maybe|might)\b|" + FOR_SOMEONE,
    re.I,
)
_TILL_ONLY = lazy(r"\s*(?:work\s+|school\s+)?(?:until|till|til|through)\s+(?:the\s+)?$", re.I)


# "I will be in Tokyo from 18 to 22 December for the audit, out of office.": the user's days
# away said first, "out of office" closing the sentence
_AWAY_TAIL = lazy(
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
    dates = ctx.dates(sent, after=m.start() + 1)
    said = m.groupdict()
    leave = said.get("leave") or said.get("leave2") or said.get("leave3")
    if not dates and leave and ctx.following is not None:
        # "Annual leave approved!! 17 to 28 August": the days are the next sentence
        sent = Span(sent.start, ctx.text[sent.start : ctx.following.end])
        dates = ctx.dates(sent)
    if len(dates) == 1 and _TILL_ONLY.match(ctx.text, sent.start + m.end(), dates[0].start):
        # "I've told work I'm off until Friday": away from today
        dates = [DateMatch(dates[0].start, dates[0].start, "", ctx.today), dates[0]]
    if len(dates) < 2:
        # "From 1 to 21 of August I am in holidays": the days before the cue
        dates = ctx.dates(sent)[:2]
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
_BOOKED_PLACE = lazy(
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
    dates = ctx.dates(sent, after=m.end())
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
_GUESTS = lazy(
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
    dates = ctx.dates(sent, after=m.end())
    if len(dates) < 2 or not (dates[0].valid and dates[1].valid) or dates[1].date < dates[0].date:
        return
    who = m["who"].lower()
    value = {
        "title": f"{who[:1].upper()}{who[1:]} staying",
        "start": dt.datetime.combine(dates[0].date, dt.time()),
        "end": dt.datetime.combine(dates[1].date, dt.time(23, 59)),
    }
    ctx.add("schedule.events", value, sent, 0.75)


# "I start the new job on March 1st", "we're climbing again on Thursday 1 July at 7pm": a
# beginning, or an activity said with its day and its time, is a plan in the calendar.
_STARTS = lazy(
    r"\b(?:i|we)\s+(?:start|begin)\s+(?:my\s+|the\s+|a\s+|our\s+)?(?P<what>(?:new\s+)?(?:job|role|"
    r"position|course|degree|school|uni|university|placement|internship|apprenticeship|contract))\b",
    re.I,
)

_DOING = lazy(
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
    days = ctx.dates(sent, after=m.start() + 1)
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
_HOME_VISIT = lazy(
    r"\b(?:the|my|our)\s+(?P<what>[\w'’ -]{2,30}?)\s+(?:is|are|'s)\s+(?:getting|being)\s+"
    r"(?P<verb>collected|delivered|picked\s+up|installed|fitted|repaired|serviced|fixed|replaced)\b",
    re.I,
)


def rule_home_visit(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Something collected, delivered or fitted at home on a day: an event on that day."""
    m = _HOME_VISIT.search(sent.text)
    if not in_clause(m, parts, sent, "verb"):
        return  # guards read up to the verb: "my sister's sofa is being delivered" is hers
    days = ctx.dates(sent, after=m.start() + 1)
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


# "the boiler service is wednesday between 8 and 12", "spirometry is on tuesday the 19th at
# 9:40", "engineer booked for thursday morning 8-1": a thing as the sentence's subject, then
# its day and its time. Both a day and a clock time must be said: that is what makes it a slot
# in the calendar whatever the thing is called (no list of event words).
_SUBJECT_SLOT = lazy(
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

CLAIMED = ("schedule.events", "tasks.tasks", "travel.trips", "travel.bookings")

# "my dentist is 6pm same day": the day the conversation was just about
_SAME_DAY = lazy(r"\b(?:the\s+)?same\s+day\b", re.I)

_AT_PLACE = lazy(r"\b(?:at|in)\s+(?:the\s+)?((?-i:[A-Z][\w'’]+(?:\s+[A-Za-z][\w'’]+){0,2}))")

_TIME_HINT = lazy(r"\d|noon|midday|midnight|o'clock|\bat\s+[a-z]", re.I)


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
    if any(c.path in CLAIMED and clause.start <= c.start < end for c in ctx.out) or any(
        c.path in CLAIMED and c.start == sent.start and clause.start == sent.start for c in ctx.out
    ):
        return  # another rule read the clause
    rest = Span(clause.start + m.end(), ctx.text[clause.start + m.end() : end])
    when = clock(rest.text)
    days = [d for d in ctx.dates(rest) if d.valid and d.date]
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


# "signed up for a charity Kilimanjaro trek!! 10 to 17 January", "I've signed up for pottery,
# Wednesdays 6-8pm, starting 1 March for 10 weeks": what the user enrolled in, and its days
_SIGNED_UP = lazy(
    r"\b(?:(?:signed\s+(?:myself\s+|us\s+)?up|registered|enrolled|entered)\s+(?:for|in|on|onto)\s+"
    r"(?:a\s+|an\s+|the\s+)?|booked\s+(?:me\s+|us\s+)?(?:a|an)\s+(?!(?:trip|holiday|flight|train|ticket|"
    r"cruise|table|car|taxi|cab|"
    + LODGING
    + r")s?\b))(?P<title>[A-Za-z][\w'’-]*(?:\s[A-Za-z][\w'’-]*){0,3}?)"
    r"(?=\s*(?:[,!.;:(]|$)|\s+(?:on|from|starting|in|at|this|next|every)\b)",
    re.I,
)

_SIGNUP_DAY = lazy(r"\b(?:today|yesterday|this\s+morning|last\s+night)\b", re.I)


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
    days = [d for d in ctx.dates(sent) if d.valid and d.date]
    if not days and ctx.following is not None:
        window = Span(sent.start, ctx.text[sent.start : ctx.following.end])
        days = [d for d in ctx.dates(window) if d.valid and d.date]
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


_EVERY_WEEKDAY = lazy(
    r"\b(?:every|each|on\s+the)\s+(?:(?P<other>other|alternate)\s+|(?P<nth>first|second|third|"
    r"fourth|last)\s+)?(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|"
    r"\b(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b",
    re.IGNORECASE,
)

_NTH = {"first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1}

# "Spanish lessons every week", "every other week", "fortnightly": the period said, not the day
_EVERY_PERIOD = lazy(
    r"\b(?:every|each)\s+(?:(?P<other>other|second|two|2)\s+)?(?P<unit>week|fortnight|month|"
    r"day|weekday|working\s+day)s?\b|"
    r"\b(?P<adv>weekly|fortnightly|monthly|daily)\b",
    re.IGNORECASE,
)

_PERIOD_REPEATS = {"week": "weekly", "fortnight": "fortnightly", "month": "monthly"}

# every weekday (working day) is Monday to Friday: "weekdays", never a weekend day
_PERIOD_REPEATS |= {"day": "daily", "weekday": "weekdays", "working day": "weekdays"}

_PERIOD_DAYS = {"weekly": 7, "fortnightly": 14, "daily": 1, "weekdays": 1}

# "every Tuesday for six weeks", "..., 8 weeks", "ten sessions": a series said by its length
_SERIES_LENGTH = lazy(
    r"\b(?:for\s+)?(?:the\s+next\s+)?(?P<n>\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve)\s+(?P<unit>weeks|sessions|classes|lessons|times|appointments)\b",
    re.IGNORECASE,
)

# "they run until the end of July": the end of the series just talked about
_SERIES_UNTIL = lazy(
    r"^(?:and\s+)?(?:they|it|the\s+(?:classes|lessons|sessions|course|series))\s+"
    r"(?:run|runs|go\s+on|goes\s+on|continue|continues|last|lasts|finish|finishes|end|ends)\s+"
    r"(?:until|till|to|through|on|at)\b",
    re.IGNORECASE,
)

_STARTING = lazy(r"\b(?:starting|from|beginning)\s+(?:on\s+)?", re.IGNORECASE)

# ("weekly, to end July": "to" before a month's end is "until")
_UNTIL_END = lazy(r"\b(?:until|till|til|thru|through|to(?=\s+(?:the\s+)?end\b))\b", re.IGNORECASE)

# "gym tues thurs 7am", "swim mon & wed 6:30am": a terse note of a weekly habit, one series
# for each weekday named
_DAY_WORD = r"(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday)?s?"


def _weekday(word: str) -> int | None:
    """The weekday (0 is Monday) a day word names, plural or short ("Tuesdays", "thurs")."""
    key = word.lower().rstrip("s")
    return WEEKDAYS.get(key, WEEKDAY_ABBR.get(key[:4], WEEKDAY_ABBR.get(key[:3])))


_WEEKLY_NOTE = lazy(
    r"^(?:(?:and|also|plus|oh)\s+)?(?:(?:my|our|the|new)\s+)?"
    r"(?P<title>[a-z][a-z-]{1,20}(?:\s(?!" + _DAY_WORD + r"\b)[a-z][a-z-]{1,20}){0,2})\s+"
    r"(?:on\s+|every\s+)?(?P<days>"
    + _DAY_WORD
    + r"(?:\s*(?:,|&|\+|and|\s)\s*"
    + _DAY_WORD
    + r"){0,4})\s+(?:at\s+|@\s*)?(?P<time>\d[^.!?]{0,12})[.!]*$",
    re.I,
)

_NOT_HABIT = word_set("the a an my our was is were it i we he she they had has on what about how")


def rule_weekly_note(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A habit noted with its weekdays and its time: a weekly event from the next such day."""
    m = _WEEKLY_NOTE.match(sent.text)
    if m is None:
        return
    several = len(re.findall(_DAY_WORD, m["days"], re.I)) > 1  # the event rules read one day
    if not several and any(c.path == "schedule.events" and c.start >= sent.start for c in ctx.out):
        return
    if set(m["title"].lower().split()) & _NOT_HABIT:
        return  # "the meeting was tues 3pm": a sentence, not a note of a habit
    when = clock(m["time"])
    if when is None or not clause_ok(parts, sent, sent.start):
        return
    title = m["title"][:1].upper() + m["title"][1:]
    if several:  # one series a weekday, in place of the event the event rules read for one
        ctx.out = [c for c in ctx.out if c.path != "schedule.events" or c.start < sent.start]
    for word in re.findall(_DAY_WORD, m["days"], re.I):
        day = _weekday(word)
        if day is None:
            continue
        ahead = (day - ctx.today.weekday()) % 7 or 7
        start = dt.datetime.combine(ctx.today + dt.timedelta(days=ahead), when.start)
        value: dict[str, Any] = {"title": title, "start": start, "repeats": "weekly"}
        if when.end is not None and when.end > when.start:
            value["end"] = dt.datetime.combine(start.date(), when.end)
        ctx.add("schedule.events", value, sent, 0.7)


# "new study group: me, Kenji and Ollie, wednesdays 7-9pm at the library starting next week",
# "shifts are wednesdays 6 to 10pm, starting next wed": a weekly slot said after its subject
_WEEKLY_SLOT = lazy(
    r"^(?:(?:and|also|so|oh|ok)\s+)?(?:(?:the|my|our|new)\s+)*"
    r"(?P<title>[a-z][\w'’-]{2,20}(?:\s[\w'’-]{2,20}){0,3}?)\s*(?::|\s(?:are|is)\s)\s*"
    r"(?:[^.!?:]{0,50}?,\s*)?(?:on\s+|every\s+)?(?P<day>" + _DAY_WORD + r")\b",
    re.I,
)

_NEXT_WEEK = lazy(r"\b(?:starting|from)\s+next\s+week\b", re.I)


def rule_weekly_slot(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A thing, then its weekday and hours: a weekly event from the first such day."""
    if not any(ch.isdigit() for ch in sent.text):
        return  # hours are said in digits here ("wednesdays 7-9pm")
    m = _WEEKLY_SLOT.match(sent.text)
    if m is None or any(c.path == "schedule.events" and c.start >= sent.start for c in ctx.out):
        return
    if not (m["day"].lower().endswith("s") or "every" in m[0].lower()):
        return  # "the scan is on friday at 2pm": one day, not a weekly slot
    if re.search(r"['’]s\b", m[0]):
        return  # "my dad's scan": someone else's
    day = _weekday(m["day"])
    when = clock(sent.text[m.end() :])
    if set(m["title"].lower().split()) & _NOT_HABIT or when is None or day is None:
        return
    if not clause_ok(parts, sent, sent.start):
        return
    first = ctx.today + dt.timedelta(days=(day - ctx.today.weekday()) % 7 or 7)
    start = _STARTING.search(sent.text, m.end())
    later = [d for d in dates_in(sent, "future", ctx.today) if d.valid and d.date]
    if _NEXT_WEEK.search(sent.text):
        first = next_week_day(ctx.today, day)
    elif start is not None and (after := [d for d in later if d.start >= sent.start + start.end()]):
        begins = after[0].date
        first = begins + dt.timedelta(days=(day - begins.weekday()) % 7)  # type: ignore[operator]
    title = m["title"][:1].upper() + m["title"][1:]
    value: dict[str, Any] = {
        "title": title,
        "start": dt.datetime.combine(first, when.start),
        "repeats": "weekly",
    }
    if when.end is not None and when.end > when.start:
        value["end"] = dt.datetime.combine(first, when.end)
    if (where := event_place(sent.text[m.end() :])) is not None:
        value["location"] = where  # "every Tuesday at 1 pm in the church hall"
    ctx.add("schedule.events", value, sent, 0.7)


# "I also teach the lab on Thursdays, 13:45-17:30", "I work at the bakery on saturdays 9-3",
# "I volunteer at the food bank every Tuesday 10-2": the user's weekly duty and its hours
_WEEKLY_DUTY = lazy(
    r"^(?:(?:and|also|so|oh|plus)\s+)?i\s+(?:also\s+|now\s+|still\s+)?"
    r"(?P<verb>teach|coach|tutor|run|lead|work|volunteer|referee|help\s+out)\s+"
    r"(?P<what>(?:at\s+|in\s+|on\s+)?(?:the\s+|a\s+|an\s+|my\s+|our\s+)?[\w'’ -]{2,30}?)[,\s]+"
    r"(?:on\s+|every\s+)(?P<day>" + _DAY_WORD + r")\b",
    re.I,
)

_BARE_HOURS = lazy(r"\s*,?\s*(\d{1,2}(?::\d\d)?)\s*[-–]\s*(\d{1,2}(?::\d\d)?)\b(?![-/.\d])")


def rule_weekly_duty(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """What the user teaches, runs or works at on a weekday, with its hours: a weekly event."""
    m = _WEEKLY_DUTY.match(sent.text) if any(ch.isdigit() for ch in sent.text) else None
    if m is None or any(c.path == "schedule.events" and c.start >= sent.start for c in ctx.out):
        return
    if not (m["day"].lower().endswith("s") or "every" in m[0].lower()):
        return  # "I work at the shop on Friday": one day, not a weekly duty
    day = _weekday(m["day"])
    rest = sent.text[m.end() :]
    when = clock(rest)
    if when is None and (hours := _BARE_HOURS.match(rest)) is not None:
        when = clock(f"from {hours[1]} to {hours[2]}")  # "saturdays 9-3": hours after the day
    if day is None or when is None or not clause_ok(parts, sent, sent.start):
        return
    first = ctx.today + dt.timedelta(days=(day - ctx.today.weekday()) % 7 or 7)
    title = f"{m['verb'].lower()} {' '.join(m['what'].split())}"  # "Teach the lab"
    value: dict[str, Any] = {
        "title": title[:1].upper() + title[1:],
        "start": dt.datetime.combine(first, when.start),
        "repeats": "weekly",
    }
    if when.end is not None and when.end > when.start:
        value["end"] = dt.datetime.combine(first, when.end)
    ctx.add("schedule.events", value, sent, 0.7)


def rule_repeats(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Mark the sentence's event as weekly when it happens "every Tuesday"."""
    m = _EVERY_WEEKDAY.search(sent.text)
    said = _EVERY_PERIOD.search(sent.text) if m is None else None
    if said is not None:
        m = said
        unit = said["unit"] or said["adv"].lower().removesuffix("ly").replace("dai", "day")
        repeats = _PERIOD_REPEATS[" ".join(unit.lower().split())]
        if said["other"] and unit == "week":
            repeats = "fortnightly"
    elif m is None:
        _series_until(ctx, sent, parts)
        return
    else:
        repeats = "fortnightly" if m["other"] else ("monthly" if m["nth"] else "weekly")
    for i, cand in enumerate(ctx.out):
        # the event's quote may run into this sentence ("I joined a choir! Wednesdays 7 to 9pm")
        if cand.path != "schedule.events" or not cand.start < sent.end or cand.end < sent.start:
            continue
        value = {k: v for k, v in cand.value.items() if v is not None}
        value["repeats"] = repeats
        if said is None and m["nth"] and isinstance(value.get("start"), dt.datetime):
            day = nth_weekday(ctx.today, _NTH[m["nth"].lower()], WEEKDAYS[m["day"].lower()])
            value["start"] = dt.datetime.combine(day, value["start"].time())
        start = _STARTING.search(sent.text)
        first = [d for d in dates_in(sent, "future", ctx.today) if d.valid]
        if start is not None and isinstance(value.get("start"), dt.datetime):
            # "every Tuesday at 6pm starting 4 March": the series begins then (a day said as
            # its end, "starting lessons, thursdays til end of July", is none)
            after = first_start(ctx.text, [d for d in first if d.start >= sent.start + start.end()])
            if after:
                begins = after.date
                named = (m["day"] or m[0].rstrip("sS")) if said is None and not m["nth"] else ""
                if (wd := WEEKDAYS.get(named.lower())) is not None:
                    # "every Thursday ... starting tomorrow" (a Monday): the first Thursday on
                    begins += dt.timedelta(days=(wd - begins.weekday()) % 7)
                value["start"] = dt.datetime.combine(begins, value["start"].time())
        named = (m["day"] or m[0].rstrip("sS")) if said is None and not m["nth"] else ""
        begin = value.get("start")
        wd = WEEKDAYS.get(named.lower())
        if wd is not None and isinstance(begin, dt.datetime) and _NEXT_WEEK.search(sent.text):
            # "wednesdays 7-9pm starting next week": that weekday of the coming Monday's week
            day = next_week_day(ctx.today, wd)
            value["start"] = dt.datetime.combine(day, begin.time())
        until = _UNTIL_END.search(sent.text, m.end())
        if until is not None:
            later = [
                d
                for d in dates_in(sent, "future", ctx.today)
                if d.valid and d.start > sent.start + until.start()
            ]
            if later:
                value["repeat_until"] = later[0].date
                begin = value.get("start")
                if isinstance(begin, dt.datetime) and begin.date() >= later[0].date:
                    # "on Thursdays at 8pm till the 26th": the day said is the last, the series
                    # starts on the next such weekday; "on the 20th, weekly until the 10th"
                    # names none to start from, and an end before its start is no end
                    day = next_weekday(ctx.today, m[0])
                    if day is None:
                        del value["repeat_until"]
                    else:
                        value["start"] = dt.datetime.combine(day, begin.time())
        if "repeat_until" not in value and (last := _series_last(sent, value, repeats)):
            value["repeat_until"] = last
        said_start, said_end, first = (
            cand.value.get("start"),
            cand.value.get("end"),
            value.get("start"),
        )
        if (
            isinstance(said_end, dt.datetime)
            and isinstance(said_start, dt.datetime)
            and isinstance(first, dt.datetime)
            and said_end.date() == said_start.date()
        ):
            # the series moved the first day ("starting this week"): its hours move with it
            value["end"] = dt.datetime.combine(first.date(), said_end.time())
        end, begin = value.get("end"), value.get("start")
        # "6pm until 25 February": the series ends then, not one occurrence (which would
        # then span weeks and collide with everything between)
        if (
            isinstance(end, dt.datetime)
            and isinstance(begin, dt.datetime)
            and (end.date() != begin.date())
        ):
            del value["end"]
        typed = validate(ctx.catalog, "schedule.events", value)
        if typed is not None:
            ctx.out[i] = dataclasses.replace(cand, value=typed)


def _series_last(sent: Span, value: dict[str, Any], repeats: str) -> dt.date | None:
    """The last day of a series said by its length ("for six weeks", "ten sessions")."""
    m = _SERIES_LENGTH.search(sent.text)
    begin, step = value.get("start"), _PERIOD_DAYS.get(repeats)
    if m is None or not isinstance(begin, dt.datetime) or step is None:
        return None
    n = count_word(m["n"])
    if not n:
        return None
    # n weeks hold the occurrences that start within them; n sessions are n occurrences
    weeks = m["unit"].lower() == "weeks"
    if repeats == "weekdays":  # Monday to Friday: the weekend days are no occurrences
        days = (begin.date() + dt.timedelta(days=i) for i in range(n * 7 if weeks else n * 2 + 7))
        held = [d for d in days if d.weekday() < 5]
        return held[-1] if weeks else held[n - 1]
    times = (n * 7 - 1) // step + 1 if weeks else n
    return begin.date() + dt.timedelta(days=step * (times - 1))


_WEEKDAY_WORDS = (
    r"(?:(?:every\s+|on\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?|"
    r"weekly|fortnightly|monthly|daily|regular|usual)"
)

_WHAT = r"[A-Za-z][\w' -]{1,40}?"

_SERIES_END = lazy(
    # "We stopped the Tuesday yoga", "I dropped out of choir", "I'm not doing yoga anymore"
    r"\b(?:i|we)(?:'ve|\s+have|'m|\s+am|'re|\s+are)?\s+(?:just\s+|finally\s+|now\s+)?(?:stopped|quit|"
    r"dropped(?:\s+out\s+of)?|gave\s+up|given\s+up|cancell?ed|ended|finished|no\s+longer\s+(?:go\s+to|do)|"
    r"not\s+doing(?=.*\bany\s*more\b))\s+(?:going\s+to\s+|doing\s+|attending\s+)?"
    r"(?:(?:the|my|our)\s+)?(?P<what>" + _WHAT + r")"
    r"(?=\s+(?:in|on|at|from|since|after|as\s+of|last|this|for\s+good|altogether|any\s*more)\b"
    r"|[,.;!?]|$)|"
    # "The book club ended in May", "Yoga finished last week", "Tuesday yoga is cancelled"
    r"(?:^|\b(?:the|my|our)\s+)(?P<what2>" + _WHAT + r")\s+(?:has\s+|have\s+)?(?:ended|"
    r"finished|stopped(?:\s+running)?|wrapped\s+up|(?:is|are|'s)\s+(?:over|finished|cancell?ed)|"
    r"(?:was|were|got|has\s+been|have\s+been)\s+(?:cancell?ed|discontinued|stopped))\b|"
    # present tense with a day: "The Tuesday yoga class ends on 25 February"
    r"(?:^|\b(?:the|my|our)\s+)(?P<what3>"
    + _WHAT
    + r")\s+(?:ends|finishes|stops)\s+(?:on|after)\b|"
    # "No more yoga on Tuesdays", "My last yoga class was on 25 February"
    r"^no\s+more\s+(?P<what4>" + _WHAT + r")(?=\s+(?:on|for|from)\b|[,.;!?]|$)|"
    r"\b(?:my|our|the)\s+last\s+(?P<what5>" + _WHAT + r")\s+(?:was|is|will\s+be)\s+on\b",
    re.IGNORECASE,
)

_FUTURE_END = ("what3", "what5")

# What a series is: an event word of the schedule rules or a regular activity.
_SERIES_WORD = lazy(
    r"\b(?:class|classes|lessons?|club|practice|training|rehearsals?|yoga|pilates|choir|"
    r"therapy|tutoring|swimming|football|tennis|stand-?up|course)\b",
    re.IGNORECASE,
)

# Words for one-off events too ("the meeting finished early"): a series only with a rhythm.
_MAYBE_SERIES = lazy(
    r"\b(?:meetings?|calls?|sessions?|group|1:1|one-on-one|catch-?up)\b", re.IGNORECASE
)

_SERIES_DROP = lazy(r"\b" + _WEEKDAY_WORDS + r"\b\s*", re.IGNORECASE)


def _series_until(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "They run until the end of July": the last repeating event's last day."""
    m = _SERIES_UNTIL.search(sent.text)
    last = ctx.thread.last("schedule.events")
    if (
        m is None
        or last is None
        or not last.get("repeats")
        or not clause_ok(parts, sent, sent.start)
    ):
        return
    later = [d for d in ctx.dates(sent) if d.valid]
    if later and (start := last.get("start")) is not None and later[0].date >= start.date():
        value = {**last.record(), "repeat_until": later[0].date}
        ctx.add("schedule.events", value, sent, 0.75)


def rule_series_end(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A repeating event that ended ("we stopped the Tuesday yoga", "the book club ended in
    May"): ends the recorded series by its title, the weekday left out of the match."""
    m = _SERIES_END.search(sent.text)
    if m is None or not stop_ok(parts, sent, sent.start + m.start()):
        return
    group = next(g for g in ("what", "what2", "what3", "what4", "what5") if m[g])
    what = m[group]
    rhythm = re.search(_WEEKDAY_WORDS, what, re.IGNORECASE)
    if not _SERIES_WORD.search(what) and not (rhythm and _MAYBE_SERIES.search(what)):
        return  # "I cancelled my Netflix", "the meeting finished early": not a series
    title = " ".join(_SERIES_DROP.sub("", what).split())
    title = re.sub(r"^(?:the|my|our)\s+", "", title, flags=re.IGNORECASE)
    if not title:
        return
    span = m.span(group)
    # "ends on 25 February" / "my last class is on ...": the day said (which may be ahead);
    # "ended", "stopped": on or before today.
    prefer = "future" if group in _FUTURE_END and "was" not in m[0].lower() else "past"
    dates = [
        d
        for d in dates_in(sent, prefer, ctx.today, ctx.anchor)  # type: ignore[arg-type]
        if d.valid and not sent.start + span[0] <= d.start < sent.start + span[1]
    ]
    if prefer == "future" and dates:
        until = dates[0].date
    elif prefer == "future":
        return  # "ends on" without a day says nothing yet
    else:
        recent = dates and dates[0].date <= ctx.today
        until = dates[0].date if recent else _month_end(sent, ctx.today)

    # The sentence names the series, it does not plan one ("I quit my Thursday piano lessons").
    ctx.out[:] = [
        c
        for c in ctx.out
        if not (
            c.path == "schedule.events" and c.op == "assert" and sent.start <= c.start < sent.end
        )
    ]
    value = {"title": title[:1].upper() + title[1:], "repeat_until": until}
    ctx.add("schedule.events", value, sent, 0.75, op="end")


_IN_MONTH = lazy(r"\b(?:in|at\s+the\s+end\s+of|end\s+of)\s+(?P<month>[A-Za-z]{3,9})\b", re.I)


def _month_end(sent: Span, today: dt.date) -> dt.date:
    """The last day of a past month named alone ("ended in May"), else yesterday: it has
    stopped, so nothing of it takes place from the day it is said."""
    yesterday = today - dt.timedelta(days=1)
    m = _IN_MONTH.search(sent.text)
    month = MONTHS.get(m["month"].lower()) if m else None
    if month is None:
        return yesterday
    year = today.year if month <= today.month else today.year - 1
    last = dt.date(year, month, calendar.monthrange(year, month)[1])
    return min(last, yesterday)


DELIVERED = lazy(
    r"\b(?:gets?|will\s+be|is\s+being|should\s+be|being)\s+delivered\b|\bdelivery\s+is\b|"
    r"\barrives\b",
    re.I,
)


def rule_deliveries(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "it gets delivered on April 2": the delivery of the item last bought, as an event."""
    m = DELIVERED.search(sent.text)
    item = ctx.thread.last("item")
    if item is None or not in_clause(m, parts, sent):
        return
    dates = ctx.dates(sent, after=m.start() + 1)
    if not dates or dates[0].date is None:
        return
    title = f"{str(item.get('item')).capitalize()} delivery"
    start = dt.datetime.combine(dates[0].date, dt.time())
    ctx.add("schedule.events", {"title": title, "start": start}, sent, 0.75)
