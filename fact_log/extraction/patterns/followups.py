"""Facts that need the thread: follow-ups, corrections and offsets (see discourse.py).

Each rule reads one sentence and `ctx.thread` (what the session mentioned before it, the
current message's earlier sentences included) and proposes the record the sentence completes.
`topics` lists what a sentence names without a value, so a later "it" can find it.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from uac.fact_log.extraction.candidate import Candidate
from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns import (
    contacts,
    finance,
    health,
    journeys,
    schedule,
    travel,
)
from uac.fact_log.extraction.patterns.anchors import DATED_PAPER, anchor_day
from uac.fact_log.extraction.patterns.discourse import OTHER, Mention, freeze
from uac.fact_log.extraction.patterns.documents import VISA, visa_country
from uac.fact_log.extraction.patterns.schedule import named_event
from uac.fact_log.extraction.patterns.text import (
    HYPOTHETICAL,
    NEGATION,
    THIRD_PARTY,
    UNCERTAIN,
    Ctx,
    Rule,
    Span,
    dates_in,
    drug_names,
    emit,
    is_question,
    someone_else,
    unsay,
    word_set,
)
from uac.fact_log.extraction.timemodel import (
    clock,
    duration,
    find_dates,
    last_such_day,
    month_end,
    offset,
)
from uac.fact_log.extraction.values.money import amounts

# Which thread topic a found record is about (for "it" and "the policy").
TOPIC_OF = {
    "identity.passport.expiry_date": "passport",
    "identity.driver_licence.expiry_date": "driver_licence",
    "identity.visas": "visa",
    "identity.insurance_policies": "insurance",
    "finance.warranties": "item",
    "finance.subscriptions": "subscription",
    "health.medications": "drug",
    "contacts.contacts": "contact",
}
DOCUMENTS = ("passport", "driver_licence", "visa", "insurance", "item")
DATED = ("travel.trips", "schedule.events", "tasks.tasks", "schedule.away_periods")


def plain(sent: Span) -> bool:
    """A statement by the user: not hypothetical, a question, negated or about someone else."""
    text = sent.text
    return not (
        HYPOTHETICAL.search(text) or asks(text) or NEGATION.search(text) or THIRD_PARTY.search(text)
    )


def asks(text: str) -> bool:
    """A question, however it is built: "the 5th is a Tuesday, right?" asks too."""
    return is_question(text, text) or text.rstrip().endswith(("?", "？"))


def first_date(ctx: Ctx, sent: Span, after: int = 0, prefer: str = "future") -> dt.date | None:
    """The first real date in the sentence after an offset, the thread anchoring "the 20th"."""
    for d in dates_in(sent, prefer, ctx.today, ctx.anchor):  # type: ignore[arg-type]
        if d.start >= sent.start + after:
            return d.date
    return None


# -- topics: things named without a value -----------------------------------------------

_PASSPORT = lazy(r"\bpassport\b", re.I)
_LICENCE = lazy(r"\bdriv(?:ing|er'?s?)\s+licen[cs]e\b", re.I)
_ITEM = lazy(
    r"(?:\b(?i:i|we)\s+(?:just\s+)?|^(?i:just\s+)?)(?i:bought|ordered|purchased|got)\s+"
    r"(?:a|an|the|my|our|some)\s+(?:new\s+)?(?:[A-Z][\w-]{1,20}\s)?(?P<item>[a-z][a-z-]{2,20}(?:\s(?!from\b|at\b|for\b|on\b|today\b)[a-z][a-z-]{2,20})?)"
    r"(?:\s+(?:from|at)\s+(?P<merchant>[A-Z][\w.&'-]+(?:\s[A-Z][\w.&'-]+)?))?"
    r"|\b(?i:the)\s+(?P<item2>[A-Za-z][A-Za-z-]{1,20}(?:\s[a-z][a-z-]{2,20})?)\s+(?i:i|we)\s+"
    r"(?:bought|ordered|got)(?:\s+(?:at|from)\s+(?P<merchant2>[A-Z][\w.&'-]+))?"
    r"|\b(?i:the)\s+(?P<item3>[A-Z][\w.]+\s+(?:stuff|things|order))\b"
    r"|\bpaid\s+[^.]{1,20}?\s+for\s+(?:a|an|the|my|our)\s+(?:new\s+)?(?P<item4>[a-z][a-z-]{2,20})"
    r"(?:\s+(?:at|from)\s+(?P<merchant4>[A-Z][\w.&'-]+(?:\s[A-Z][\w.&'-]+)?))?",
)
_ITEM_STOP = lazy(r"\s+(?:for|from|at|on|today|yesterday|with|and|it|that)$", re.I)
_ANCHOR = lazy(
    r"\b(?:my|our|the)\s+(?P<name>[a-z]+(?:\s[a-z]+)?)\s+(?:ends|expires|is|starts|renews|"
    r"runs\s+out|gets\s+delivered|arrives|is\s+due)\b",
    re.I,
)


def topics(ctx: Ctx, sent: Span, found: list[Candidate]) -> list[Mention]:
    """What the sentence names for later sentences to refer to."""
    day = ctx.today
    out: list[Mention] = []
    paths = {c.path for c in found}
    text = sent.text
    if (
        _PASSPORT.search(text)
        and "identity.passport.expiry_date" not in paths
        and not THIRD_PARTY.search(text)
        and not someone_else(text)  # "My daughter needs a new passport. It expires ..."
    ):
        out.append(Mention("passport", (), day))
    if _LICENCE.search(text) and "identity.driver_licence.expiry_date" not in paths:
        out.append(Mention("driver_licence", (), day))
    if (m := VISA.search(text)) and "identity.visas" not in paths and plain(sent):
        country = visa_country(m)
        if country:  # "I need to sort out my visa for India": no visa yet, but the topic
            out.append(Mention("visa", freeze({"country": country}), day))
    if (m := _ITEM.search(text)) and plain(sent):
        item = _ITEM_STOP.sub("", (m["item"] or m["item2"] or m["item3"] or m["item4"]).strip())
        merchant = m["merchant"] or m["merchant2"] or m["merchant4"]
        # "it gets delivered on April 2" is not when it was bought.
        bought = None if schedule.DELIVERED.search(text) else first_date(ctx, sent, prefer="past")
        bought = bought or day
        fields = {
            "item": item,
            "purchased_on": bought,
            **({"merchant": merchant} if merchant else {}),
        }
        out.append(Mention("item", freeze(fields), day))
    for name in drug_names(text):
        if "health.medications" not in paths:
            owner = health.drug_owner(text, name)  # a dose said next completes only the user's
            out.append(Mention("drug", freeze({"name": name, **owner}), day))
    dates = [d.date for d in ctx.dates(sent) if d.date]
    if dates and plain(sent):  # "her birthday is on June 3": a day to count back from
        out.append(Mention("date", freeze({"date": dates[-1]}), day))
    if "schedule.events" not in paths and plain(sent) and (title := named_event(text)):
        out.append(Mention("event_topic", freeze({"title": title}), day))
    out.extend(travel.destination_topic(ctx, sent, found))
    if (m := _ANCHOR.search(text)) and plain(sent):
        when = first_date(ctx, sent, m.end())
        if when is not None:
            out.append(Mention("anchor", freeze({"name": m["name"].lower(), "date": when}), day))
    return out


# -- follow-ups ---------------------------------------------------------------------------

_IT_VALID = lazy(
    r"^(?:and\s+|so\s+)?(?:it|it's|its|it\s+is|this|that|which|(?:the\s+)?new\s+ones?|"
    r"the\s+(?:new\s+)?(?:one|policy|"
    r"visa|card|cover|insurance|warranty))\b.{0,40}?\b(?:valid|good|expires?|runs?\s+(?:out|until|till)|"
    r"covers?\s+(?:us|me|them)|lasts?)\b",
    re.I,
)


# "ok extended, now it's until 31.07", "renewed it till March": the document's new last day
_EXTENDED = lazy(
    r"^(?:ok(?:ay)?[,\s]+|so\s+|and\s+)?(?:i\s+|i've\s+|we\s+)?(?:just\s+)?"
    r"(?:extended|renewed|prolonged)\b[^.?!]{0,30}?\b(?:until|till|til|to|through)\b",
    re.I,
)


# "the number is 533912870": the number of the document just talked about
_DOC_NUMBER = lazy(
    r"^(?:and\s+|oh\s+|also\s+)?(?:the|its|it's)\s+(?:document\s+)?(?:number|no\.?)\s*"
    r"(?:is|'s|:)\s*([A-Z0-9]{6,12})\b",
    re.I,
)


def rule_document_followup(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "It's good until 14 May 2036.": the expiry of the document last mentioned."""
    doc = ctx.thread.last(*DOCUMENTS)
    num = _DOC_NUMBER.match(sent.text)
    known = doc is not None and doc.kind in ("passport", "driver_licence")
    if num and known and plain(sent) and any(ch.isdigit() for ch in num[1]):
        ctx.add(f"identity.{doc.kind}.number", num[1].upper(), sent, 0.8)  # type: ignore[union-attr]
    m = _IT_VALID.search(sent.text) or _EXTENDED.search(sent.text)
    if m is None or not plain(sent):
        return
    day = first_date(ctx, sent, m.end())
    doc = ctx.thread.last(*DOCUMENTS)
    if day is None or doc is None:
        return
    fields = doc.record()
    if doc.kind in ("passport", "driver_licence"):
        ctx.add(f"identity.{doc.kind}.expiry_date", day, sent, 0.8)
    elif doc.kind == "visa":
        fields.pop("valid_from", None)
        emit(ctx, sent, "identity.visas", {**fields, "valid_until": day})
    elif doc.kind == "insurance":
        emit(ctx, sent, "identity.insurance_policies", {**fields, "valid_until": day})
    elif doc.kind == "item" and re.search(r"\b(?:warranty|guarantee)\b", sent.text, re.I):
        emit(ctx, sent, "finance.warranties", {**fields, "ends_on": day})


_RETURN_CUE = lazy(
    r"^(?:and\s+)?(?:(?:we're|i'm|we\s+are|i\s+am|we'll\s+be|i'll\s+be)\s+)?(?:coming\s+back|"
    r"back(?:\s+home)?|home|flying\s+back|returning|(?:the\s+)?return(?:\s+flight)?(?:\s+is)?)\b",
    re.I,
)
_STAY = lazy(r"\b(?:there|stay(?:ing)?|away)\b[^.]{0,30}?\bfor\b|\bstaying\b", re.I)


def rule_trip_followup(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "Back home on the 20th." / "We'll be there for a week.": the last trip's return."""
    here = [c for c in ctx.out[ctx.here() :] if c.path == "travel.trips" and c.start == sent.start]
    trip = ctx.thread.last("travel.trips")
    if not plain(sent):
        return
    if here and "return_date" not in here[0].value and _STAY.search(sent.text):
        _stay(ctx, sent, dict(here[0].value))  # "... on September 21 and staying four nights"
        return
    if trip is None or here:
        return
    if _RETURN_CUE.search(sent.text):
        day = first_date(ctx, sent)
        # (the return day already held, said again with a flight's time, teaches nothing)
        if day is not None and day >= trip.get("depart") and day != trip.get("return_date"):
            emit(ctx, sent, "travel.trips", {**trip.record(), "return_date": day})
    elif _STAY.search(sent.text) and trip.get("return_date") is None:
        _stay(ctx, sent, trip.record())
    elif _STAY_ON.search(sent.text) and (day := first_date(ctx, sent)) is not None:
        if day > trip.get("depart") and day != trip.get("return_date"):
            # "extended the lease, staying till dec 20 now": the stay's new last day
            emit(ctx, sent, "travel.trips", {**trip.record(), "return_date": day})
    elif (
        _ITS_FOR.match(sent.text)
        and trip.get("purpose") is None
        and (why := travel.purpose(sent.text)) is not None
    ):
        # "it's for mum's 70th, the whole family's coming", "it's a work trip": what it is for
        emit(ctx, sent, "travel.trips", {**trip.record(), "purpose": why})


_STAY_ON = lazy(
    r"\bstay(?:ing)?\s+(?:on\s+)?(?:till|until|til|to)\b[^.?!]*\b(?:now|instead)\b|"
    # (what is extended is the stay: "extended the lease", not the insurance)
    r"\b(?:extended|extending|prolonged)\s+(?:the\s+|my\s+|our\s+)?(?:stay|trip|lease|holiday|"
    r"visit|booking|rental)\b[^.?!]{0,40}?\b(?:till|until|til|to)\b",
    re.I,
)
_ITS_FOR = lazy(
    r"^(?:and\s+|oh\s+)?(?:it['’]?s|it\s+is|that['’]s|th(?:is|at)\s+is|the\s+trip\s+is)\s+"
    r"(?:for|a|an)\b",
    re.I,
)


def _stay(ctx: Ctx, sent: Span, trip: dict[str, Any]) -> None:
    span = duration(sent.text)
    if span is None or span[0] < dt.timedelta(days=1):
        return
    emit(ctx, sent, "travel.trips", {**trip, "return_date": trip["depart"] + span[0]})


_TAKES = lazy(
    r"^(?:and\s+)?(?:(?:it|that(?:\s+one)?|this|the\s+\w+)\s+(?:should\s+|will\s+|usually\s+|"
    r"normally\s+|probably\s+)?|(?:should|will|usually|normally|probably)\s+)"
    r"(?:take|takes|last|lasts|runs?|is)\b(?!\s+over)",
    re.I,
)


def rule_duration_followup(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "It takes 45 minutes.": the end of the last event."""
    m = _TAKES.search(sent.text)
    span = duration(sent.text)
    event = ctx.thread.last("schedule.events")
    if m is None or span is None or event is None or HYPOTHETICAL.search(sent.text):
        return
    start = event.get("start")
    if not isinstance(start, dt.datetime) or event.get("end") is not None:
        return
    if start.time() == dt.time(0, 0) and span[0] < dt.timedelta(days=1):
        return  # no start time: an end would be a guess
    fields = event.record()
    fields.pop("end_assumed", None)
    emit(ctx, sent, "schedule.events", {**fields, "end": start + span[0]})


_CORRECTION = lazy(
    r"^(?:(?:oh|ah|hmm+|um+|ok|okay)\s*,?\s+)?(?:actually|sorry|oops|correction|wait|(?<!oh\s)no|"
    r"scratch\s+that)\b|\b(?:make\s+(?:that|it)|i\s+meant|is\s+actually|(?:got\s+)?"
    r"(?:moved|pushed(?:\s+back)?|changed|rescheduled|postponed|(?:move|moving|push|pushing|"
    r"reschedule|rescheduling|postpone|postponing)\s+(?:the|my|our|it|that))\s+"
    r"(?:\S+\s+){0,3}?to)\b|"
    r"\b(?P<was>was|were)\b[^.!?]{1,40}?\bnow\s+(?:it's|it\s+is|they're|they\s+are|it\s+'s)\b",
    re.I,
)


def rule_correction(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "Actually, make that the 19th": the corrected record, proposed again."""
    cue = _CORRECTION.search(sent.text)
    if cue is None or HYPOTHETICAL.search(sent.text):
        return
    if asks(sent.text) or UNCERTAIN.search(sent.text):
        return  # "Wait, is it the 5th?", "maybe the 6th": nothing is corrected yet
    # "it was 12-16 October, now it's the 19th to the 23rd": the value after "now" is new
    after = cue.end() if cue["was"] else 0
    old_day, day = _new_and_old(ctx, sent, after)
    when = clock(sent.text)
    if journeys.stay_corrected(ctx, sent, day):
        return  # "so three nights from the eighth": the stay's nights, not the trip's days
    target = _target(ctx, sent)
    via = travel.via_of(sent)
    if target is not None and target.kind == "travel.trips" and day is None and via:
        # "wait it's only via london, the toronto leg got cancelled": the stops, corrected
        emit(
            ctx, sent, target.kind, {**target.record(), "via": via}, 0.75, replaces=target.record()
        )
        return
    if target is None or (day is None and when is None):
        return  # nothing earlier to correct, or no new value: refused by saying nothing
    fields = target.record()
    if target.kind == "travel.trips" and day is not None:
        homeward = re.search(r"\breturn|\b(?:back|home)\b", sent.text, re.I)
        key = "return_date" if homeward else "depart"
        if homeward is not None and (later := first_date(ctx, sent, homeward.end())):
            day = later  # "the check-out is the 7th, but the flight back is the 8th": the 8th
        # "it's the 17th, not the 16th": the field that held the old day is the one corrected
        key = next(
            (k for k in ("return_date", "depart") if old_day and fields.get(k) == old_day), key
        )
        if key == "depart" and _begun(ctx, sent, fields):
            day = first_date(ctx, sent, after, "past") or day  # "no, since Monday": gone by
        day = _nearest(day, fields.get(key))
        fields[key] = day
        if key == "depart" and fields.get("return_date") and fields["return_date"] < day:
            fields.pop("return_date")
        if via:  # "I fly already on the 16th, via Warsaw"
            fields["via"] = via
        days = ctx.dates(sent)
        days = [d for d in days if d.start >= sent.start + after]
        if key == "depart" and len(days) > 1 and days[1].date and days[1].date >= day:
            fields["return_date"] = days[1].date  # "now it's the 19th to the 23rd"
    elif target.kind == "schedule.events":
        old = fields["start"]
        new_day = day or old.date()
        new_time = when.start if when is not None else old.time()
        fields["start"] = dt.datetime.combine(new_day, new_time)
        if fields.get("end"):
            fields["end"] = fields["start"] + (fields["end"] - old)
    elif target.kind == "tasks.tasks" and day is not None:
        fields["due_date"] = day
    elif target.kind == "drug" and day is not None:
        # a drug's days are gone by ("no, since 3 March"); the field that held the rejected
        # day is the one corrected, else the start
        gone = [
            last_such_day(d, ctx.today)
            for d in ctx.dates(sent, "past")
            if d.start >= sent.start + after and d.date
        ]
        day = gone[0].date if gone and gone[0].date else day
        key = "stop_date" if old_day and fields.get("stop_date") == old_day else "start_date"
        fields[key] = day
        if (
            fields.get("stop_date")
            and fields.get("start_date")
            and fields["stop_date"] < fields["start_date"]
        ):
            return  # a stop before the start: no reading to trust
    else:
        return
    if fields == target.record():
        return  # the day said is the one already held: nothing is corrected
    path = _path_of(target.kind)
    unsay(ctx, path, target.record())  # when said earlier in this message
    emit(ctx, sent, path, fields, 0.8, replaces=target.record())


def _path_of(kind: str) -> str:
    """The catalog path of a mention's kind (a drug mention is a medication record)."""
    return "health.medications" if kind == "drug" else kind


_SINCE = lazy(r"\bsince\b", re.I)


def _begun(ctx: Ctx, sent: Span, trip: dict[str, Any]) -> bool:
    """Whether a corrected departure is of a trip already begun: said "since", or its day
    held is past ("I'm in Lisbon since yesterday." "no, Monday": the Monday gone by)."""
    held = trip.get("depart")
    return bool(_SINCE.search(sent.text)) or (isinstance(held, dt.date) and held < ctx.today)


def _nearest(day: dt.date, old: Any) -> dt.date:
    """The corrected day in the year nearest the day it corrects ("sept 5 not 3" of a trip
    begun in September is this September's 5th, not next year's)."""
    if not isinstance(old, dt.date) or abs((day - old).days) < 183:
        return day
    years = (
        day.replace(year=old.year + k) for k in (-1, 0, 1) if not (day.month == 2 and day.day == 29)
    )
    return min(years, key=lambda d: abs((d - old).days), default=day)


_NOT_BEFORE = lazy(r"\bnot\s+(?:on\s+)?$", re.I)


def _new_and_old(ctx: Ctx, sent: Span, after: int) -> tuple[dt.date | None, dt.date | None]:
    """The day a correction rejects ("not the 16th"; dates_in skips it) and the new day."""
    said = find_dates(sent.text, ctx.today, "future", ctx.anchor)
    old = [d.date for d in said if d.start >= after and _NOT_BEFORE.search(sent.text[: d.start])]
    return (old[0] if old else None), first_date(ctx, sent, after)


_STOPWORDS = word_set("the a an my our to it that this same time actually sorry moved")


def _target(ctx: Ctx, sent: Span) -> Mention | None:
    """The dated record a correction is about: one it names, else the latest. A sentence
    that states a record of its own ("Dentist appointment moved to Thursday 10am") corrects
    only a record of that kind: never the medication or trip said last."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", sent.text)} - _STOPWORDS
    own = {c.path for c in ctx.out if c.start == sent.start}
    # a medication with its start day is dated too ("on sertraline since 1 March" "no, since
    # the 3rd"); one without a day has nothing a day could correct
    dated = [
        m
        for m in ctx.thread.mentions
        if m.kind in DATED or (m.kind == "drug" and m.get("start_date") and m.get("owner") != OTHER)
    ]
    if own:
        dated = [m for m in dated if _path_of(m.kind) in own]
    for m in reversed(dated):
        label = " ".join(str(m.get(k) or "") for k in ("title", "goal", "city", "name")).lower()
        if words & set(re.findall(r"[a-z]{3,}", label)):
            return m
    if re.search(r"\bdeadline\b", sent.text, re.I):
        # "the deadline" with two deadlines in the conversation names neither: refused
        goals = {str(m.get("goal")).lower() for m in ctx.thread.mentions if m.kind == "tasks.tasks"}
        return ctx.thread.last("tasks.tasks") if len(goals) == 1 else None
    return dated[-1] if dated else None


_RETURNS = lazy(
    r"\breturn(?:s|ed)?\b|\b(?:send|take|bring)\s+(?:it|them)\s+back\b|\b(?:can|could)\s+go\s+back\b",
    re.I,
)
_OBLIGATION = lazy(
    r"\b(?:need|needs|have|has|got)\s+to\b|\bmust\b|\bdue\b|\bdeadline\b|\bgo\s+out\b|"
    r"\bi\s+want\s+to\b",
    re.I,
)
_GOAL_LEAD = lazy(
    r"^(?:and\s+)?(?:i|we)\s+(?:also\s+)?(?:need|have|want|must|got|'ve\s+got)\s*(?:to\s+)?|"
    r"^(?:(?:also|and|plus)\s+)?(?:the\s+|my\s+|our\s+)?",
    re.I,
)
_GOAL_TAIL = lazy(
    r"\s+(?:is|are|has|have|needs?)?\s*(?:due|to\s+be|to)?\s*(?:at\s+least|about)?\s*$", re.I
)
_EVENT_WORD = lazy(
    r"\b(?:tasting|party|hen|stag|shower|rehearsal|dinner|lunch|meeting|appointment|"
    r"ceremony|fitting)\b",
    re.I,
)


def rule_offset(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "Give notice a month before the lease ends": a dated task, event or return window."""
    off = offset(sent.text)
    if off is None or not plain(sent) or _ASK.search(sent.text):
        return
    rest = sent.text[off.end :]
    base = month_end(rest, sent.text[: off.start], ctx.today) or anchor_day(ctx, rest)
    if base is None:
        return
    day = off.apply(base)
    if day is None:
        return
    head = sent.text[: off.start].strip(" ,")
    if _RETURNS.search(sent.text):
        item = ctx.thread.last("item")
        if item is None:
            return
        fields = item.record()
        emit(ctx, sent, "finance.warranties", {**fields, "return_by": day})
        return
    ev = _EVENT_WORD.search(head)
    if ev is not None and not _OBLIGATION.search(head):
        title = _GOAL_LEAD.sub("", head)
        title = re.sub(r"\s+(?:is|are|will\s+be)\s*$", "", title).strip()
        if title:
            emit(
                ctx,
                sent,
                "schedule.events",
                {
                    "title": title[:1].upper() + title[1:],
                    "start": dt.datetime.combine(day, dt.time()),
                },
            )
        return
    if not (_OBLIGATION.search(sent.text) or DATED_PAPER.match(rest)) or ctx.today > day:
        return  # (a term counted from a letter is an obligation: "14 days from the letter")
    goal = _GOAL_TAIL.sub("", _GOAL_LEAD.sub("", head)).strip()
    goal = _GOAL_VERB.sub("", goal)  # "passport renewal form needs to go off" -> the form
    if sent.text[off.start : off.end].lower().startswith("give"):
        ends = _ENDS.search(head)  # "the tenancy ends 30 November and we have to give ..."
        goal = f"give notice on the {ends[1].lower()}" if ends else "give notice"
    if len(goal) < 3:
        return
    goal = goal[:1].upper() + goal[1:]
    emit(ctx, sent, "tasks.tasks", {"goal": goal, "status": "planned", "due_date": day})
    # a term to meet is no calendar event ("the allowance review form, 14 days from ...")
    ctx.out[:] = [c for c in ctx.out if not (c.path == "schedule.events" and c.start == sent.start)]


_GOAL_VERB = lazy(r"\s+(?:needs?|has|have|must)\s+(?:to\s+)?(?:go|be|get)\b.*$", re.I)
_ENDS = lazy(r"\b([a-z]{4,20})\s+(?:ends|expires|finishes|runs\s+out|is\s+up)\b", re.I)
_ASK = lazy(r"^(?:please\s+|can\s+you\s+|could\s+you\s+)?remind\s+me\b", re.I)


# -- contacts, payments, cancellations, medications -------------------------------------
_COMING = lazy(r"^(?:he|she)(?:'s|\s+is|\s+will\s+be)\s+(?:coming|coming\s+round|visiting)\b", re.I)


_BOOKED_FOR = lazy(
    r"^(?:ok(?:ay)?\s+|so\s+|and\s+)?(?:it's|it\s+is|it|that's|that\s+is|we're|we\s+are|i'm|i\s+am)\s+"
    r"(?:all\s+|now\s+|finally\s+)?(?:booked|scheduled|set|confirmed|arranged|fixed|"
    r"booked\s+in)\s+(?:for|on)\b",
    re.I,
)


def rule_booked_for(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "It's booked for Thursday at 9": the appointment named just before, on that day."""
    m = _BOOKED_FOR.search(sent.text)
    topic = ctx.thread.last("event_topic")
    if m is None or topic is None or not plain(sent):
        return
    day = first_date(ctx, sent, m.end())
    if day is None or day < ctx.today:
        return
    when = clock(sent.text)
    value: dict[str, Any] = {
        "title": topic.get("title"),
        "start": dt.datetime.combine(day, when.start if when else dt.time()),
    }
    if when is not None and when.end is not None:
        value["end"] = dt.datetime.combine(day, when.end)
    emit(ctx, sent, "schedule.events", value, 0.75)


def rule_visit(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "He's coming on Wednesday from 1 to 3pm": a visit by the person last talked about."""
    person = ctx.thread.last("contact")
    m = _COMING.search(sent.text)
    if m is None or person is None or HYPOTHETICAL.search(sent.text) or NEGATION.search(sent.text):
        return
    day = first_date(ctx, sent)
    if day is None or day < ctx.today:
        return
    when = clock(sent.text)
    start = dt.datetime.combine(day, when.start if when else dt.time())
    value: dict[str, Any] = {
        "title": f"{person.get('role') or 'Visit'}: {person.get('name')}",
        "start": start,
        "with_whom": [person.get("name")],
    }
    if when is not None and when.end is not None:
        value["end"] = dt.datetime.combine(day, when.end)
    ctx.add("schedule.events", value, sent, 0.75)


_PAID_FOR_IT = lazy(r"\bi\s+paid\s+(.{1,20}?)\s+for\s+(?:it|them|that)\b", re.I)
_CANCELLED_IT = lazy(r"\bcancel(?:l)?ed\s+(?:it|that|them)\b", re.I)


def rule_purchase_followup(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "I paid 899 for it." / "cancelled it just now": the last item or subscription."""
    if not plain(sent):
        return
    if (m := _PAID_FOR_IT.search(sent.text)) and (item := ctx.thread.last("item")):
        found = amounts(m[1])
        merchant = item.get("merchant")
        if found and merchant:
            value: dict[str, Any] = {
                "amount": found[0].amount,
                "merchant": merchant,
                "date": item.get("purchased_on") or ctx.today,
            }
            if found[0].currency:
                value["currency"] = found[0].currency
            emit(ctx, sent, "finance.transactions", value, 0.75)
    sub = _CANCELLED_IT.search(sent.text) and ctx.thread.last("subscription")
    if sub and (day := finance.cancel_day(ctx, sent)) is not None:  # a done one, a past day
        emit(ctx, sent, "finance.subscriptions", {"name": sub.get("name"), "cancelled_on": day})


_DOSE_START = lazy(
    r"^(?:it's|it\s+is|that's|take\s+it|the\s+dose\s+is)?\s*(\d{1,4}(?:\.\d{1,3})?\s?(?:mg|mcg|µg|g|ml)\b)"
    r"(?P<rest>.{0,60})",
    re.I,
)
_START_IT = lazy(r"\bi\s+(?:start|begin)\s+(?:it|them|taking\s+(?:it|them))\b", re.I)
_FOR_DAYS = lazy(r"\bfor\s+(?:a\s+|the\s+next\s+)?(\w+)\s+(day|week)s?\b", re.I)
_FREQ = lazy(
    r"\b(?:once|twice|three\s+times|four\s+times)\s+a\s+day|\bdaily\b|\bat\s+night\b|"
    r"\bevery\s+(?:morning|evening|night)\b|\bin\s+the\s+(?:morning|evening)\b",
    re.I,
)


def rule_medication_followup(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """ "It's 500 mg three times a day for seven days.", "I start it on Monday."."""
    drug = ctx.thread.last_own("drug")
    if (
        drug is None
        or not plain(sent)
        or any(c.path == "health.medications" and c.start == sent.start for c in ctx.out)
    ):
        return
    fields = {"name": drug.get("name")}
    if drug.get("start_date"):
        fields["start_date"] = drug.get("start_date")
    if m := _DOSE_START.match(sent.text):
        freq = _FREQ.search(m["rest"])
        fields["dose"] = " ".join(f"{m[1]} {freq[0] if freq else ''}".split())
        if (days := _FOR_DAYS.search(m["rest"])) and fields.get("start_date"):
            span = duration(days[0])
            if span is not None:
                fields["stop_date"] = fields["start_date"] + span[0] - dt.timedelta(days=1)
        emit(ctx, sent, "health.medications", fields, 0.75)
    elif _START_IT.search(sent.text) and (day := first_date(ctx, sent)) is not None:
        emit(ctx, sent, "health.medications", {**fields, "start_date": day}, 0.75)


RULES: tuple[Rule, ...] = (
    schedule.rule_deliveries,  # read the item named in the same sentence
    rule_document_followup,
    rule_trip_followup,
    rule_duration_followup,
    rule_correction,
    rule_offset,
    contacts.rule_contact_reach,
    contacts.rule_contact_followup,
    rule_visit,
    rule_booked_for,
    rule_purchase_followup,
    rule_medication_followup,
)
