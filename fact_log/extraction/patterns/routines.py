"""Routine patterns: what the user regularly eats, drinks or takes (health.intake) and events
that repeat (a weekly note, a slot, a duty, a series and its end). How long a medication supply
lasts is health.py's (`rule_supply`, listed here for its place in the order).

Food, drink and supplement words come from the reference data the health checks use
(`health_rules.toml`, `[[intake]]`), drug names from `drugs.toml`: one source, never two lists.
"""

from __future__ import annotations

import calendar
import dataclasses
import datetime as dt
import functools
import re
from typing import Any

from uac.fact_log.extraction.candidate import validate
from uac.fact_log.extraction.patterns.schedule import event_place
from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Span,
    clause_of,
    clause_ok,
    dates_in,
    in_clause,
    stop_ok,
    word_set,
)
from uac.fact_log.extraction.timemodel import (
    MONTHS,
    WEEKDAY_ABBR,
    WEEKDAYS,
    clock,
    count_word,
    next_weekday,
    nth_weekday,
)
from uac.fact_log.reference import health_rules


@functools.cache
def _intake_words() -> tuple[re.Pattern[str], dict[str, tuple[str, str]]]:
    """A regex over every intake word (longest first) and word -> (canonical name, kind)."""
    table: dict[str, tuple[str, str]] = {}
    for rule in health_rules()["intake"]:
        for word in rule["words"]:
            kind = "supplement" if rule["kind"] == "supplement" else "food"
            table.setdefault(word.lower(), (word.lower(), kind))
    alternation = "|".join(re.escape(w) for w in sorted(table, key=len, reverse=True))
    return re.compile(r"\b(?:" + alternation + r")\b", re.IGNORECASE), table


_CONSUME = re.compile(
    r"\bi(?:'ve|\s+have)?\s+(?:always\s+|usually\s+|also\s+|now\s+|just\s+|recently\s+)?"
    r"(?:eat|eats|drink|have|take|started(?:\s+(?:taking|drinking|eating|on))?|"
    r"began(?:\s+taking)?|been\s+(?:taking|drinking|eating|having))\b|"
    r"\bi(?:'m|\s+am)\s+(?:now\s+|also\s+)?(?:taking|drinking|eating|having|on)\b",
    re.IGNORECASE,
)
_STARTED = re.compile(r"\b(?:started|began|today)\b", re.IGNORECASE)
_INTAKE_FREQ = re.compile(
    r"\b(?:every\s+(?:morning|evening|night|day|weekend)|daily|each\s+(?:morning|day)|"
    r"(?:once|twice|three\s+times)\s+a\s+(?:day|week)|with\s+(?:breakfast|lunch|dinner))\b",
    re.IGNORECASE,
)


# Said without "I": "Started taking ginkgo", "Began on St John's wort this week".
_CONSUME_ELLIPTIC = re.compile(
    r"^(?:just\s+|recently\s+|finally\s+|also\s+|so\s+)?(?:started|began)"
    r"(?:\s+(?:taking|drinking|eating|having|on))?\b",
    re.IGNORECASE,
)
# A habit said without a verb ("New routine: a glass of wine with dinner") is the user's own
# only when nobody else is its subject.
_OTHER_SUBJECT = re.compile(
    r"\b(?:he|she|they|you|his|her|their|has|does|drinks|eats|takes|friend|husband|wife|"
    r"partner|son|daughter|mum|mom|dad|brother|sister|kids?|children)\b",
    re.IGNORECASE,
)


def _habit_without_verb(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """An intake word with how often, and no verb or other subject: the user's habit."""
    freq = _INTAKE_FREQ.search(sent.text)  # the cheap test first: most sentences say no rhythm
    if freq is None or _OTHER_SUBJECT.search(sent.text):
        return
    pattern, table = _intake_words()
    m = pattern.search(sent.text)
    if m is None:
        return
    if _NOT_NOW.search(sent.text) or not in_clause(m, parts, sent):
        return
    name, kind = table[m[0].lower()]
    frequency = " ".join(freq[0].lower().split())
    ctx.add("health.intake", {"name": name, "kind": kind, "frequency": frequency}, sent, 0.75)


def rule_intake(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Food, drink and supplements the user has ("I drink grapefruit juice every morning")."""
    pattern, table = _intake_words()
    verb = _CONSUME.search(sent.text) or _CONSUME_ELLIPTIC.search(sent.text)
    if verb is None:
        _habit_without_verb(ctx, sent, parts)
        return
    if not in_clause(verb, parts, sent):
        return
    clause = clause_of(parts, sent.start + verb.start())
    if clause is None or _NOT_NOW.search(clause.text):
        return  # "I used to drink ... but stopped": not a current habit
    tail = sent.text[verb.end() : clause.end - sent.start]
    # The thing taken follows the verb in its clause, or is "it" for one named just before
    # ("My friend recommended ginkgo biloba, I started taking it today").
    m = pattern.search(tail)
    if m is None and _IT.match(tail):
        m = pattern.search(sent.text[: verb.start()])
    if m is None:
        return
    name, kind = table[m[0].lower()]
    value: dict[str, Any] = {"name": name, "kind": kind}
    freq = _INTAKE_FREQ.search(sent.text)
    if freq:
        value["frequency"] = " ".join(freq[0].lower().split())
    if _STARTED.search(sent.text):
        value["start_date"] = ctx.today
    ctx.add("health.intake", value, sent, 0.8)


_NOT_NOW = re.compile(
    r"\b(?:used\s+to|stopped|quit|gave\s+up|no\s+longer|avoid|cut\s+out|any\s+more|anymore)\b",
    re.IGNORECASE,
)
_IT = re.compile(r"\s+(?:it|them)\b", re.IGNORECASE)


_EVERY_WEEKDAY = re.compile(
    r"\b(?:every|each|on\s+the)\s+(?:(?P<other>other|alternate)\s+|(?P<nth>first|second|third|"
    r"fourth|last)\s+)?(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b|"
    r"\b(?:mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)\b",
    re.IGNORECASE,
)
_NTH = {"first": 1, "second": 2, "third": 3, "fourth": 4, "last": -1}
# "Spanish lessons every week", "every other week", "fortnightly": the period said, not the day
_EVERY_PERIOD = re.compile(
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
_SERIES_LENGTH = re.compile(
    r"\b(?:for\s+)?(?:the\s+next\s+)?(?P<n>\d{1,2}|two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve)\s+(?P<unit>weeks|sessions|classes|lessons|times|appointments)\b",
    re.IGNORECASE,
)
# "they run until the end of July": the end of the series just talked about
_SERIES_UNTIL = re.compile(
    r"^(?:and\s+)?(?:they|it|the\s+(?:classes|lessons|sessions|course|series))\s+"
    r"(?:run|runs|go\s+on|goes\s+on|continue|continues|last|lasts|finish|finishes|end|ends)\s+"
    r"(?:until|till|to|through|on|at)\b",
    re.IGNORECASE,
)


_STARTING = re.compile(r"\b(?:starting|from|beginning)\s+(?:on\s+)?", re.IGNORECASE)
# ("weekly, to end July": "to" before a month's end is "until")
_UNTIL = re.compile(r"\b(?:until|till|through|to(?=\s+(?:the\s+)?end\b))\b", re.IGNORECASE)


# "gym tues thurs 7am", "swim mon & wed 6:30am": a terse note of a weekly habit, one series
# for each weekday named
_DAY_WORD = r"(?:mon|tue|tues|wed|weds|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday)?s?"
_WEEKLY_NOTE = re.compile(
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
        key = word.lower().rstrip("s")
        day = (
            WEEKDAYS.get(key)
            if key in WEEKDAYS
            else WEEKDAY_ABBR.get(key[:4], WEEKDAY_ABBR.get(key[:3]))
        )
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
_WEEKLY_SLOT = re.compile(
    r"^(?:(?:and|also|so|oh|ok)\s+)?(?:(?:the|my|our|new)\s+)*"
    r"(?P<title>[a-z][\w'’-]{2,20}(?:\s[\w'’-]{2,20}){0,3}?)\s*(?::|\s(?:are|is)\s)\s*"
    r"(?:[^.!?:]{0,50}?,\s*)?(?:on\s+|every\s+)?(?P<day>" + _DAY_WORD + r")\b",
    re.I,
)
_NEXT_WEEK = re.compile(r"\b(?:starting|from)\s+next\s+week\b", re.I)


def next_week_day(today: dt.date, weekday: int) -> dt.date:
    """That weekday of next week, the week from the coming Monday (said on a Sunday, the
    week from tomorrow: ambiguity.date_notes flags the other reading)."""
    return today + dt.timedelta(days=7 - today.weekday() + weekday)


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
    key = m["day"].lower().rstrip("s")
    day = (
        WEEKDAYS.get(key)
        if key in WEEKDAYS
        else WEEKDAY_ABBR.get(key[:4], WEEKDAY_ABBR.get(key[:3]))
    )
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
_WEEKLY_DUTY = re.compile(
    r"^(?:(?:and|also|so|oh|plus)\s+)?i\s+(?:also\s+|now\s+|still\s+)?"
    r"(?P<verb>teach|coach|tutor|run|lead|work|volunteer|referee|help\s+out)\s+"
    r"(?P<what>(?:at\s+|in\s+|on\s+)?(?:the\s+|a\s+|an\s+|my\s+|our\s+)?[\w'’ -]{2,30}?)[,\s]+"
    r"(?:on\s+|every\s+)(?P<day>" + _DAY_WORD + r")\b",
    re.I,
)


_BARE_HOURS = re.compile(r"\s*,?\s*(\d{1,2}(?::\d\d)?)\s*[-–]\s*(\d{1,2}(?::\d\d)?)\b(?![-/.\d])")


def rule_weekly_duty(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """What the user teaches, runs or works at on a weekday, with its hours: a weekly event."""
    m = _WEEKLY_DUTY.match(sent.text) if any(ch.isdigit() for ch in sent.text) else None
    if m is None or any(c.path == "schedule.events" and c.start >= sent.start for c in ctx.out):
        return
    if not (m["day"].lower().endswith("s") or "every" in m[0].lower()):
        return  # "I work at the shop on Friday": one day, not a weekly duty
    key = m["day"].lower().rstrip("s")
    day = (
        WEEKDAYS.get(key)
        if key in WEEKDAYS
        else WEEKDAY_ABBR.get(key[:4], WEEKDAY_ABBR.get(key[:3]))
    )
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
            after = [d for d in first if d.start >= sent.start + start.end()]
            if after:  # "every Tuesday at 6pm starting 4 March": the series begins then
                begins = after[0].date
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
        until = _UNTIL.search(sent.text, m.end())
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
                    # starts on the next such weekday
                    day = next_weekday(ctx.today, m[0])
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
_SERIES_END = re.compile(
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
_SERIES_WORD = re.compile(
    r"\b(?:class|classes|lessons?|club|practice|training|rehearsals?|yoga|pilates|choir|"
    r"therapy|tutoring|swimming|football|tennis|stand-?up|course)\b",
    re.IGNORECASE,
)
# Words for one-off events too ("the meeting finished early"): a series only with a rhythm.
_MAYBE_SERIES = re.compile(
    r"\b(?:meetings?|calls?|sessions?|group|1:1|one-on-one|catch-?up)\b", re.IGNORECASE
)
_SERIES_DROP = re.compile(r"\b" + _WEEKDAY_WORDS + r"\b\s*", re.IGNORECASE)


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
    later = [d for d in dates_in(sent, "future", ctx.today, ctx.anchor) if d.valid]
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


_IN_MONTH = re.compile(r"\b(?:in|at\s+the\s+end\s+of|end\s+of)\s+(?P<month>[A-Za-z]{3,9})\b", re.I)


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
