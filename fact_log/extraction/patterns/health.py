"""Health patterns: medications started and stopped, with dose, schedule and supply, whose
they are (a drug said of someone else or asked about is no record a later dose completes):
the one home of health.medications. Allergies and intolerances live in allergies.py,
conditions (a pregnancy and its due date too) in conditions.py, body weight in
bodyweight.py, vaccinations in vaccinations.py."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from uac.fact_log.extraction.lazy import compile_kept, lazy
from uac.fact_log.extraction.patterns.allergies import (
    DRUG_SUFFIX,
)
from uac.fact_log.extraction.patterns.conditions import (
    condition_for_drug,
)
from uac.fact_log.extraction.patterns.discourse import OTHER
from uac.fact_log.extraction.patterns.text import (
    HYPOTHETICAL,
    THIRD_PARTY,
    Ctx,
    Span,
    clause_ok,
    complete_earlier,
    dates_in,
    drug_names,
    drug_vocabulary,
    in_clause,
    is_question,
    someone_else,
    stop_ok,
)
from uac.fact_log.extraction.timemodel import (
    Prefer,
    count_word,
    duration,
    first_start,
    last_such_day,
    offset,
)
from uac.fact_log.extraction.values.money import NUMBER_WORDS, words_to_number
from uac.fact_log.extraction.values.quantities import DOSE_FREQUENCY, STRENGTH

_MASS_WORDS = r"milligrams?|micrograms?|grams?|millilit(?:re|er)s?"
_MASS_ABBREV = {
    "milligram": "mg",
    "microgram": "mcg",
    "gram": "g",
    "millilitre": "ml",
    "milliliter": "ml",
}


# A dose as typed ("50mg", "1g") or said ("fifty milligrams", "two puffs", "2 tablets").
# Frequencies as prescriptions abbreviate them ("500 bd", "50mg od", "2 puffs prn")
_FREQ_ABBREV = r"(?-i:od|OD|bd|BD|bid|BID|tds|TDS|tid|TID|qds|QDS|qid|QID|prn|PRN|nocte|mane)"
_DOSE = (
    # a combination's strength ("co-codamol 30/500"); a bare number before an abbreviated
    # frequency ("naproxen 500 bd")
    r"(?:\d{1,3}/\d{3}\b(?!/)(?:\s?mg\b)?|\d{1,4}(?:\.\d{1,3})?(?=\s" + _FREQ_ABBREV + r"\b)|"
    # "augmentin 875, twice a day": a strength said bare before how often
    r"\d{2,4}(?=,?\s(?:"
    + DOSE_FREQUENCY
    + r"))|"
    + STRENGTH
    + r"|\d{1,4}(?:[.,]\d{1,3})?\s?(?:"
    + _MASS_WORDS
    + r")\b|(?:\d{1,2}|\b(?=[aefhnostz])"  # a cheap first-letter test before the words
    + NUMBER_WORDS
    + r")\s+(?:"
    + _MASS_WORDS
    + r"|puffs?|tablets?|pills?|capsules?|drops?|sprays?)\b)"
)
# whoever gave or wrote the user a drug, in the tense and spelling the writer uses ("she give
# me", "he write me"): one list for every rule that reads it
_GIVE = r"(?:gave|give|gives|wrote|write|writes)"

_MED_START = compile_kept(
    r"\b(?:started(?:\s+me\s+on|\s+taking)?|starting|began(?:\s+taking)?|"
    r"(?:put|placed|has|have)\s+me\s+(?:back\s+)?on|"
    r"p(?:re|er)scribed?(?:\s+me)?|(?:^|i'?ve\s+|i\s+have\s+)been\s+(?:taking|on)|^(?:now\s+|still\s+)?taking|"
    r"i(?:'?m|\s+am)(?:\s+now|\s+still)?\s+(?:taking|on)|i\s+(?:now\s+|also\s+|still\s+)?take(?:\s+still|\s+also)?|"
    r"^(?:also|still)\s+take|"  # a note: "also take a low-dose aspirin"
    r"i(?:'?ve|\s+have)\s+been\s+(?:taking|on)|i(?:'?m|\s+am)\s+back\s+on|"
    r"i(?:'?ve|\s+have)\s+(?:always\s+|long\s+|regularly\s+)?taken|"
    # "I took two Nurofen": a dose taken, said with its count ("took some melatonin" is not)
    r"(?:^|i\s+)(?:just\s+|also\s+|then\s+)?took(?=\s+(?:a\s+couple\s+of|one|two|three|four|\d))|"
    r"switch(?:ed|ing)?\s+(?:me\s+)?(?:over\s+)?to|"
    # "the clinic has changed my warfarin to 4 mg": a new dose of the user's drug
    r"(?:changed|increased|reduced|lowered|raised|upped|adjusted)(?=\s+my\s)|"
    r"i\s+use|i\s+need\s+to\s+take|(?:i\s+)?picked\s+up|"
    # whoever gave it ("the pharmacia gave me", "A&E gave me"): the user is the one who takes it
    # (in the tense and spelling the writer uses: "she give me", "he write me", "doc wen give me")
    r"\b(?!(?:and|but|then|so|also|who|which|to|not|can|could|would|will|please|pls)\b)[\w&]{2,20}\s+"
    r"(?:also\s+|just\s+)?" + _GIVE + r"\s+me|"
    r"i\s+was\s+given|wants\s+me\s+(?:to\s+take|taking|to\s+start|on)|"
    # "got naproxen from the pharmacy", "I bought some aleve at boots"
    r"^(?:just\s+|finally\s+|so\s+)?got|i\s+(?:just\s+|finally\s+)?(?:bought|got))\s+"
    r"(?:(?:some|a\s+course\s+of|a\s+low\s+dose\s+of|the|my|daily|an?|a\s+couple\s+of|"
    r"one|two|three|four|[1-4])\s+|(?P<times>[1-4])\s*[x×]\s*)?"  # "took 2 x 500mg paracetamol"
    # "one baby aspirin", "a low-dose aspirin": the kind of tablet before the drug
    r"(?:(?:baby|low[-\s]dose|junior|mini|extra[-\s]strength|slow[-\s]release|generic)\s+)?"
    r"(?P<dose1>" + _DOSE + r")?(?:\s*(?:of\s+))?\s*(?P<name>[A-Za-z][A-Za-z-]{2,30})"
    r"(?:,?\s+(?:to\s+)?(?P<dose2>" + _DOSE + r"))?",
    re.IGNORECASE,
)
_MED_STOP = lazy(
    r"\b(?:stopped(?:\s+taking)?|quit(?:\s+taking)?|came\s+off|come\s+off|discontinued|"
    r"(?:finished|completed|done\s+with)(?:\s+(?:my|the)\s+(?:course|pack|packet|box|"
    r"prescription|supply)\s+of)?|no\s+longer\s+(?:take|taking|on)|"
    r"(?:don't|do\s+not)\s+take|"
    # "took my last ibuprofen on Saturday": the last one taken is the stop
    r"took\s+(?:my|the)\s+(?:very\s+)?last(?:\s+(?:dose|tablet|pill|shot)\s+of)?)\s+"
    r"(?:my\s+|the\s+)?(?P<name>[A-Za-z][A-Za-z-]{2,30})|"
    # "so Humira is done, last shot was May 28": a drug said to be over
    r"(?:^|\b(?:so|and|ok|okay|well)[,\s]+)(?:the\s+|my\s+)?(?P<name2>[A-Za-z][A-Za-z-]{2,30})\s+is\s+"
    r"(?:done|finished|over)\b(?=[^.!?]{0,6}\blast\b|\s*[.!]|$)",
    re.IGNORECASE,
)
_BEGAN = lazy(
    r"\b(?:started|began|begun|been\s+on\s+(?:it|them))(?:\s+(?:it|them))?(?:\s+(?:on|in))?\s+$",
    re.I,
)
_FREQ = lazy(
    r"\b(?:once|twice|three\s+times|four\s+times|\d\s+times)\s+(?:a|per)\s+(?:day|week)|"
    r"\b(?:once|twice)\s+(?:daily|weekly)\b|"
    r"\bdaily\b|\bweekly\b|\bevery\s+(?:morning|evening|night|day|other\s+day|\d{1,2}\s+hours)|"
    r"\b" + _FREQ_ABBREV + r"\b|"
    r"\bat\s+(?:night|bedtime)\b|\bin\s+the\s+(?:morning|evening)\b|\bas\s+needed\b",
    re.IGNORECASE,
)
_REASON = lazy(
    r"\bfor\s+(?:my\s+)?([a-z][a-z' ]{2,30}?)(?=[,.;!?]|$|\s+(?:and|but|since|because)\b)", re.I
)


_DECIMAL_COMMA = lazy(r"(?<=\d),(?=\d)")
_SAID_MASS = lazy(r"^(?P<n>.+?)\s+(?P<u>" + _MASS_WORDS + r")$", re.I)


def _dose_text(dose: str) -> str:
    """A dose as the checks read it: "fifty milligrams" is "50 mg" (a count such as "two
    puffs" stays as said: there is no amount to compare)."""
    dose = _DECIMAL_COMMA.sub(".", " ".join(dose.split()))  # "2,5 mg" is 2.5 mg
    m = _SAID_MASS.match(dose)
    if m is None:
        return dose
    n = m["n"] if m["n"].replace(".", "").isdigit() else words_to_number(m["n"])
    unit = _MASS_ABBREV.get(m["u"].lower().rstrip("s"), m["u"])
    return f"{n} {unit}" if n is not None else dose


def _is_drug(name: str, dose: bool) -> bool:
    key = name.lower()
    return key in drug_vocabulary() or (dose and bool(DRUG_SUFFIX.search(key)))


# "new medication list for me: metoprolol ..., atorvastatin forty at night, and aspirin":
# every drug of a list the user heads as theirs
_MED_LIST = lazy(
    r"\b(?:medication|meds|medicines?|drugs?|prescriptions?|tablets?)\s+list\b|"
    r"\bmy\s+(?:current\s+|new\s+|daily\s+)?(?:meds|medications|medicines|tablets)\s*(?:are|now|:)",
    re.I,
)
_NOT_TAKEN = lazy(r"\b(?:no|not|no\s+more|stop(?:ped)?|off|instead\s+of|except|without)\s+$", re.I)


def rule_medication_list(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Each drug of a list headed as the user's (the rules before read the first)."""
    head = _MED_LIST.search(sent.text)
    if head is None or not clause_ok(parts, sent, sent.start + head.start()):
        return
    if someone_else(sent.text[: head.end()]) or _FOR_SOMEONE.search(sent.text):
        return
    said = {c.value.get("name") for c in ctx.out if c.path == "health.medications"}
    for m in re.finditer(r"[A-Za-z][A-Za-z-]{2,30}", sent.text[head.end() :]):
        name = m[0].lower()
        at = head.end() + m.start()
        if name in said or not _is_drug(name, False) or _NOT_TAKEN.search(sent.text[:at]):
            continue
        said.add(name)
        ctx.add("health.medications", {"name": name}, sent, 0.75)


def rule_medications(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Medications started (with dose) or stopped."""
    if _drug_runs_out(ctx, sent, parts):
        return
    for m in _MED_STOP.finditer(sent.text):
        at = sent.start + m.start()
        drug = m["name"] or m["name2"]
        if not _is_drug(drug, False) or not stop_ok(parts, sent, at):
            continue
        dates = [d for d in ctx.dates(sent, "past") if d.valid]
        # "the aspirin I started on 1 March": a day the drug began is its start, no stop
        began = [d for d in dates if _BEGAN.search(ctx.text[max(0, d.start - 24) : d.start])]
        dates = [d for d in dates if d not in began]
        # No stated day: the message date is the latest it can have stopped ("on or before").
        stop = dates[0].date if dates else ctx.today
        value = {"name": drug.lower(), "stop_date": stop}
        if began and began[0].date <= stop:
            value["start_date"] = began[0].date
        ctx.add("health.medications", value, sent, 0.85 if dates else 0.7, op="end")
        return
    for m in _med_matches(sent.text):
        at = sent.start + m.start()
        dose = m["dose1"] or m["dose2"]
        if dose and (times := m.groupdict().get("times")):  # "2 x 500mg": all that was taken
            dose = f"{times} x {dose}"
        if not _is_drug(m["name"], bool(dose)) or not clause_ok(parts, sent, at):
            continue
        if _other_taker(sent.text, m):
            continue  # "she's on warfarin 3mg": a drug named without the user as taker
        value: dict[str, Any] = {"name": m["name"].lower()}
        freq = _FREQ.search(sent.text, m.end())
        if not dose and (later := _later_dose(sent.text, m.end())):
            dose = later  # "on warfarin since the valve op, 3mg most days"
        if dose:
            dose_text = _dose_text(dose)
            value["dose"] = f"{dose_text} {' '.join(freq[0].split())}" if freq else dose_text
        elif freq:
            value["dose"] = " ".join(freq[0].split())
        # "starting on the 1st", "start from Monday": a start still to come
        prefer = "future" if _STARTS_LATER.search(sent.text) else "past"
        dates = [
            d
            for d in dates_in(sent, prefer, ctx.today, ctx.anchor)
            if d.valid and not _UNTIL_DAY.search(ctx.text[max(0, d.start - 14) : d.start])
        ]  # "my pack lasts until 10 July" is the supply's end (routines.py), not the start
        if prefer == "past":
            dates = [last_such_day(d, ctx.today) for d in dates]
        if any(not d.valid for d in dates_in(sent, prefer, ctx.today, ctx.anchor)):
            return  # a nonexistent start day: drop rather than guess
        rel = offset(sent.text[m.end() :])
        base = rel and [d for d in dates if d.start >= sent.start + m.end() + rel.end]
        if rel is not None and base and (day := rel.apply(base[0].date)):
            value["start_date"] = day  # "two days before I fly on the 1st of July"
        elif dates:
            # "on Saturday ..., starting yesterday": the day said as its start, not the first
            value["start_date"] = (first_start(ctx.text, dates) or dates[0]).date
        elif (
            rel is not None
            and (leaving := _next_departure(ctx, sent))
            and (day := rel.apply(leaving))
        ):
            value["start_date"] = day  # "to start 2 days before I fly": the next trip's leaving
        elif rel is not None and ctx.anchor is not None and (day := rel.apply(ctx.anchor)):
            value["start_date"] = day  # "starting the day before" the procedure just named
        elif _STARTS_NOW.search(m[0]):
            value["start_date"] = ctx.today  # "the doctor put me on ...": it starts now
        course = _COURSE.search(sent.text, m.end())
        if course is not None and "start_date" in value and (span := duration(course[0])):
            # "for a week" from the first day: the last day is the length minus one day
            value["stop_date"] = value["start_date"] + span[0] - dt.timedelta(days=1)
        sup = _SUPPLY_LASTS.search(sent.text, m.end())  # "a new box today, it lasts me until"
        if sup and (day := _day_after(ctx, sent, sup.end(), "future")) is not None:
            value["supply_until"] = day
        reason = _REASON.search(sent.text, m.end())
        if reason and not _DATE_WORD.search(reason[1]):
            value["reason"] = reason[1].strip()
        ctx.add("health.medications", value, sent, 0.85)
        if reason:  # "started on warfarin for atrial fibrillation": the user has the condition
            condition_for_drug(ctx, sent, reason[1])
        pos = m.end() if not m["dose2"] else m.end("dose2")
        while (more := _AND_DRUG.match(sent.text, pos)) and _is_drug(more["name"], False):
            extra = {k: v for k, v in value.items() if k == "start_date"}  # "metformin and ..."
            ctx.add("health.medications", {"name": more["name"].lower(), **extra}, sent, 0.8)
            pos = more.end()
        return
    m = _MED_WORKS.search(sent.text)
    if m and _is_drug(m["name"], False) and in_clause(m, parts, sent):
        value = {"name": m["name"].lower()}
        if dose := _HAS_DOSE.search(sent.text, m.end()):  # "..., 0.5mg once a week"
            freq = _FREQ.search(sent.text, dose.end())
            value["dose"] = " ".join(f"{dose[0]} {freq[0] if freq else ''}".split())
        ctx.add("health.medications", value, sent, 0.75)
    if not drug_names(sent.text) or not any(c.start >= sent.start for c in ctx.out):
        _drug_follow_up(ctx, sent, parts)
    last = ctx.thread.last_own("drug")
    m = _DOSE_ONLY.search(sent.text)
    if m and last and last.get("name") and in_clause(m, parts, sent):
        # "I take 500 mg with breakfast": the dose of the drug just talked about
        freq = _FREQ.search(sent.text, m.end())
        dose = " ".join(m["dose"].split()) + (f" {' '.join(freq[0].split())}" if freq else "")
        if not _complete_dose(ctx, sent, last.get("name"), dose):
            ctx.add("health.medications", {"name": last.get("name"), "dose": dose}, sent, 0.75)


def _complete_dose(ctx: Ctx, sent: Span, name: str, dose: str) -> bool:
    """Give the dose to the medication an earlier sentence of this message named without one."""
    return complete_earlier(
        ctx, "health.medications", lambda v: v.get("name") == name, {"dose": dose}, sent
    )


# A known drug with its dose beside it is a medication whatever the verb ("the consultant
# put sertraline 50mg on my chart", "omeprazole 20mg every morning"), and so is "on <drug>"
# after any predicate ("kept in check on salbutamol"); the drug must be in the reference data.
_MED_DOSED = lazy(
    r"(?P<dose1>(?!))?\b(?P<name>[A-Za-z][A-Za-z-]{2,30}),?\s?(?P<dose2>" + _DOSE + r")", re.I
)
_HAS_DOSE = lazy(_DOSE, re.I)
_DOSE_CUE = lazy(r"\d|milligram|microgram|gram|millilit|puff|tablet|pill|capsule|drop|spray", re.I)
# "GP says naproxen 250mg, started it this afternoon": the user took what was said
_I_TOOK_IT = lazy(
    r"\b(?:(?:i\s+)?(?:started|began)\s+(?:it|them|taking\s+(?:it|them))|i(?:'m|\s+am)\s+(?:now\s+)?"
    r"(?:taking|on)\s+(?:it|them))\b",
    re.I,
)
_MED_ON = lazy(
    r"(?P<dose1>(?!))?\bon\s+(?:the\s+|my\s+)?(?P<name>[A-Za-z][A-Za-z-]{2,30})"
    r"(?:,?\s+(?P<dose2>" + _DOSE + r"))?",
    re.I,
)


# "mum's been put on", "Dad has been prescribed", "grandad's on": a relative named without
# "my" as the subject; "they gave me", "she put me on": the user is the one who takes it.
_RELATIVE_SUBJECT = lazy(
    r"\b(?:mum|mom|mam|mummy|dad|daddy|mother|father|grandma|grandad|grandpa|granny|gran|nan|"
    r"nana|nanna|hubby|wifey)(?:'s|’s|\s+(?:is|has|was|had|takes|got|now))\b",
    re.I,
)
# "my mum started warfarin": the relative is the start verb's subject
_RELATIVE_BEFORE = lazy(
    r"\b(?:my|our)\s+(?:mum|mom|mam|dad|mother|father|grandma|grandad|grandpa|granny|gran|nan|"
    r"nana|husband|wife|hubby|son|daughter|brother|sister|partner)\s+(?:has\s+|just\s+)?$",
    re.I,
)
_TO_ME = lazy(
    r"\b(?:" + _GIVE + r"|given|put|started|p(?:re|er)scribed?|switched|got|has|have)\s+me\b",
    re.I,
)


_FOR_SOMEONE = lazy(
    r"[^.;!?]{0,30}?\bfor\s+(?:my|our|his|her|their|the)\s+(?:little\s+)?(?:mum|mom|dad|wife|"
    r"husband|partner|son|daughter|kids?|children|baby|boy|girl|brother|sister|friend|"
    r"grandma|grandad|nan|gran|flatmate)\b",
    re.I,
)


def drug_owner(text: str, name: str) -> dict[str, str]:
    """The `owner` of a drug named in a sentence where no rule found it the user's: someone
    else's ("My mum takes warfarin", "ibuprofen for my son") or asked about ("Is ibuprofen
    okay?", "what if I took ...") is not a record a later dose may complete."""
    at = re.search(rf"\b{re.escape(name)}\b", text, re.I)
    head = text[: at.start()] if at else text
    if (
        is_question(text, text)
        or text.rstrip().endswith(("?", "？"))
        or HYPOTHETICAL.search(text)
        or THIRD_PARTY.search(text)
        or someone_else(head)
        or _RELATIVE_SUBJECT.search(head)
        or _FOR_SOMEONE.search(text)
    ):
        return {"owner": OTHER}
    return {}


def _other_taker(text: str, m: re.Match[str]) -> bool:
    """Whether someone other than the user is said to take the drug matched."""
    head = text[: m.start()]
    if _FOR_SOMEONE.match(text, m.end()):
        return True  # "I bought some calpol for my daughter": hers
    if m.re is _MED_START:
        # a start verb's subject is most often the prescriber ("they prescribed", "she's
        # prescribed me"): only a relative named as the subject makes it someone else's
        return bool(
            (_RELATIVE_SUBJECT.search(head) or _RELATIVE_BEFORE.search(head))
            and not re.match(r"i\b|i'|i’", m[0], re.I)
            and not _TO_ME.search(m[0])
        )
    if not (someone_else(head) or _RELATIVE_SUBJECT.search(head)):
        return False
    return not (_TO_ME.search(head) or _I_TOOK_IT.search(text, m.end()))


_BEFORE_I_GO = lazy(
    r"\b(?:before|after)\s+(?:i|we)\s+(?:fly|leave|travel|go|depart|set\s+off)\b", re.I
)


def _next_departure(ctx: Ctx, sent: Span) -> dt.date | None:
    """The first day the user leaves on a trip the thread knows, when the sentence counts
    from leaving ("before I fly"); None otherwise."""
    if not _BEFORE_I_GO.search(sent.text):
        return None
    days = [
        d
        for m in ctx.thread.mentions
        if m.kind == "travel.trips" and isinstance(d := m.get("depart"), dt.date) and d >= ctx.today
    ]
    return min(days) if days else None


def _later_dose(text: str, end: int) -> str | None:
    """A dose said later in the sentence of the drug ending at `end`, before any other drug."""
    m = _HAS_DOSE.search(text, end)
    if m is None or drug_names(text[end : m.start()]):
        return None
    return m[0]


def _med_matches(text: str) -> list[re.Match[str]]:
    """Medication mentions, the explicit start verbs first, then drug-with-dose, "on <drug>"."""
    found = list(_MED_START.finditer(text))
    # most sentences name no dose: skip the word-by-word scan (a digit or a unit word first)
    if _DOSE_CUE.search(text) and _HAS_DOSE.search(text):
        found += [m for m in _MED_DOSED.finditer(text) if m["name"].lower() in drug_vocabulary()]
    if " on " not in f" {text.lower()}":  # "on warfarin since ..." opens a sentence too
        return found
    found += [
        m
        for m in _MED_ON.finditer(text)
        if m["name"].lower() in drug_vocabulary() and not _ON_NOT_TAKING.search(text[: m.start()])
    ]
    return found


# "running low on", "read up on", "advice on": "on <drug>" that is not taking it
_ON_NOT_TAKING = lazy(
    r"\b(?:low|short|out|read|reading|up|article|info|information|advice|questions?|research|"
    r"leaflet|label|study|studies|opinion|views?|thoughts|tips|guidance|spent|saved|paid)\s*$",
    re.I,
)


# Said after the drug, without naming it: "actually no, started wednesday" (its first day);
# "the pen I have now lasts till the 20th" (the end of the supply at hand).
_STARTED_ON = lazy(
    r"\b(?:i\s+)?(?:started|began)\s+(?:it\s+|them\s+|taking\s+(?:it|them)\s+)?(?:on\s+)?"
    r"(?=(?:mon|tue|tues|wed|wednes|thu|thur|thurs|fri|sat|satur|sun)(?:day)?\b|the\s+\d|\d|"
    r"yesterday|last\b)",
    re.I,
)
_SUPPLY_LASTS = lazy(
    # "got enough tablets until 10 May", "I've enough to last me till the 15th"
    r"\benough\s+(?:(?:tablets|pills|capsules|doses|meds|medication|supply)\s+)?(?:to\s+last\s+"
    r"(?:me\s+)?)?(?:till|until|til|to|through)\b|"
    # "got pills until the 5th of december", "I have tablets till the 20th"
    r"\b(?:got|have|i've\s+got|there\s+are)\s+(?:(?:enough|some)\s+)?(?:tablets|pills|capsules|"
    r"doses|meds|medication|supply|patches)\s+(?:left\s+)?(?:till|until|til|to\s+last\s+until)\b|"
    # "28 days of sertraline so that takes me to the 28th"
    r"(?:\b(?:that|this|it|which)\s+|(?<=,\s))(?:takes|gets|lasts)\s+me\s+(?:to|till|until|through)\b|"
    r"\b(?:the|my|this|these|a|a\s+new)\s+(?:pen|pens|pack|packet|box|inhaler|prescription|supply|"
    r"pills|tablets|injections?|bottle|repeat|script|refill)\b[^.!?]{0,30}?\b(?:lasts?|will\s+last|"
    r"should\s+last|runs?\s+out|is\s+good)\s+(?:me\s+)?(?:till|until|til|to|through|on|by)\b",
    re.I,
)


# "warfarin tablets run out on the 12th", "my salbutamol inhaler runs out by Friday": the
# end of the supply of a drug named with its form.
_DRUG_RUNS_OUT = lazy(
    r"\b(?P<name>[A-Za-z][A-Za-z-]{2,30})\s+(?:tablets|pills|capsules|inhalers?|pens?|patches|"
    r"prescription|supply|box|pack|packet)\s+(?:will\s+|should\s+|is\s+going\s+to\s+)?"
    r"(?:runs?|running)\s+out\b",
    re.I,
)


def _drug_runs_out(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """The day a named drug's supply runs out; True when one was found."""
    m = _DRUG_RUNS_OUT.search(sent.text)
    if m is None or not _is_drug(m["name"], False) or _other_taker(sent.text, m):
        return False
    day = _day_after(ctx, sent, m.end(), "future")
    if day is None or not in_clause(m, parts, sent):
        return False
    ctx.add("health.medications", {"name": m["name"].lower(), "supply_until": day}, sent, 0.8)
    return True


def _day_after(ctx: Ctx, sent: Span, end: int, prefer: Prefer) -> dt.date | None:
    """The first valid day said after sentence offset `end`, counted from today (not from a
    day said before: "the 20th" is the next or the last one)."""
    days = [d for d in dates_in(sent, prefer, ctx.today) if d.start >= sent.start + end]
    return days[0].date if days and days[0].valid else None


def _drug_follow_up(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A start day or a supply's end said after the drug it belongs to."""
    named = drug_names(sent.text)  # "28 days of sertraline, that takes me to the 28th"
    if len(set(named)) == 1 and not drug_owner(sent.text, named[0]):
        name = named[0]
    elif named or (last := ctx.thread.last_own("drug", "health.medications")) is None:
        return
    else:
        name = last.get("name")
    if not name:
        return
    for rx, prefer, field in (
        (_STARTED_ON, "past", "start_date"),
        (_SUPPLY_LASTS, "future", "supply_until"),
    ):
        m = rx.search(sent.text)
        day = _day_after(ctx, sent, m.end(), prefer) if m else None
        if m and day is not None and in_clause(m, parts, sent):
            if field == "start_date" and _restart_earlier(ctx, sent, name, day):
                continue
            ctx.add("health.medications", {"name": name, field: day}, sent, 0.75)


def _restart_earlier(ctx: Ctx, sent: Span, name: str, day: dt.date) -> bool:
    """The start a later sentence says ("... gave me amoxicillin for 7 days. I started it last
    night") is the start of the record this message already has for the drug: one record, its
    course moved with it. False when the message has none."""
    for i, c in enumerate(ctx.out):
        if c.path != "health.medications" or c.op != "assert" or c.start >= sent.start:
            continue
        start = c.value.get("start_date")
        if c.value.get("name") != name or not isinstance(start, dt.date):
            continue
        value = {**c.value, "start_date": day}
        if isinstance(stop := c.value.get("stop_date"), dt.date):
            value["stop_date"] = stop + (day - start)
        del ctx.out[i]
        ctx.add("health.medications", value, sent, c.confidence)
        return True
    return complete_earlier(
        ctx, "health.medications", lambda v: v.get("name") == name, {"start_date": day}, sent
    )


# "... for a week", "for 5 days", "3x day, 5 days": how long a course of a medication lasts
# (a length said as a list item too; "5 days ago" or "10 days from today" is a day, no length)
_COURSE = lazy(
    r"\bfor\s+(?:a|one|two|three|four|five|six|seven|ten|fourteen|\d{1,2})\s+(?:days?|weeks?)\b|"
    r",\s+(?:a|one|two|three|four|five|six|seven|ten|fourteen|\d{1,2})\s+(?:days?|weeks?)\b"
    r"(?!\s+(?:ago|before|after|later|earlier|from|since|back)\b)",
    re.IGNORECASE,
)
_AND_DRUG = lazy(r"\s*(?:,\s*(?:and\s+)?|\s+and\s+|\s*&\s*)(?P<name>[A-Za-z][A-Za-z-]{2,30})")
_STARTS_NOW = lazy(
    r"\b(?:started|(?:put|placed)\s+me\s+on|p(?:re|er)scribed?|picked\s+up|" + _GIVE + r"\s+me|"
    r"was\s+given|switched|"
    r"changed|increased|reduced|lowered|raised|upped|adjusted)\b",
    re.I,
)
_STARTS_LATER = lazy(r"\bstart(?:ing|s)?\b(?!\s+(?:it\s+)?(?:yesterday|last))", re.I)
_UNTIL_DAY = lazy(r"\b(?:until|till|til|by|out\s+on|lasts?)\s+(?:the\s+)?$", re.I)
_DOSE_ONLY = lazy(
    r"(?:\bi\s+(?:now\s+|also\s+|still\s+|only\s+)?take\s+(?:it\s+)?|"
    # "The dose for now is 3 mg once daily", "dose is 20mg"
    r"^(?:the\s+|my\s+)?(?:starting\s+|new\s+)?dose\s+(?:for\s+now\s+|now\s+)?(?:is|will\s+be)\s+|"
    # "the dose went up to 100mg", "they upped my dose to 150mg": the new dose of the drug
    r"^(?:(?:oh\s+)?and\s+|also\s+|so\s+)?(?:(?:the|my)\s+dose\s+(?:has\s+|was\s+)?(?:went|gone|"
    r"increased|decreased|reduced|raised|lowered|upped|changed|doubled|halved)(?:\s+(?:up|down))?|"
    r"(?:they|she|he|gp|doctor|doc|i)\s+(?:have\s+|has\s+)?(?:increased|reduced|raised|lowered|upped|"
    r"changed)\s+(?:my|the)\s+dose)\s+to\s+)"
    r"(?P<dose>" + _DOSE + r")"
    # what follows says when, not what: "500 mg with breakfast", "100 mg at night"
    r"(?=\s*(?:$|[,.;!]|(?:with|at|in|every|each|twice|once|daily|before|after|per|a\s+day|"
    r"last|yesterday|today|from|since|now)\b))",
    re.I,
)
# "the metformin seems to be helping", "my inhaler is working": a drug the user is on, named
# by what it does for them.
_MED_WORKS = lazy(
    r"\b(?:my|the)\s+(?P<name>[A-Za-z][A-Za-z-]{2,30})\s+(?:(?:seems?|appears?)\s+to\s+be|is|"
    r"['’]s|has\s+been)\s+(?:really\s+|definitely\s+|finally\s+)?(?:helping|working|"
    r"kicking\s+in|doing\s+(?:its|the)\s+(?:job|trick))\b",
    re.I,
)
_DATE_WORD = lazy(
    r"\b(?:day|days|week|weeks|month|months|year|years|morning|evening|night|now|while)\b", re.I
)


_DEVICES = frozenset({"inhaler", "pills", "tablets", "prescription", "meds", "medication"})
_SUPPLY_END = lazy(
    r"\bmy\s+(?:(?P<name>[A-Za-z][A-Za-z-]{2,30})\s+)?(?:prescription|supply|pills|tablets|inhaler|"
    r"medication|meds)(?:\s+(?:for|of)\s+(?P<name2>[A-Za-z][A-Za-z-]{2,30}))?\s+(?:runs?\s+out|"
    r"will\s+run\s+out|lasts?|will\s+last|ends?|is\s+good)\b",
    re.IGNORECASE,
)
_DAYS_LEFT = lazy(
    r"(?:\bi(?:'ve|\s+have)?\s+(?:only\s+|just\s+)?(?:got\s+|have\s+)?|\bmaybe\s+|\bonly\s+)"
    r"(?:about\s+|around\s+|roughly\s+)?(?P<n>\d{1,3}|a|one|two|three|four|five|six|seven|ten)\s+"
    r"(?P<unit>days?|weeks?|fortnight)(?:'s?|\s+worth)?\s+(?:of\s+)?(?:my\s+)?"
    r"(?P<what>[A-Za-z][A-Za-z-]{2,30})?(?:\s+(?:pills|tablets))?\s+left\b|"
    r"\bmy\s+(?P<what2>[A-Za-z][A-Za-z-]{2,30})\s+(?:will\s+run|runs|is\s+going\s+to\s+run)\s+out\s+"
    r"in\s+(?:about\s+)?(?P<n2>\d{1,3}|a|one|two|three|four|five|six|seven|ten)\s+"
    r"(?P<unit2>days?|weeks?)\b",
    re.IGNORECASE,
)
# "My levothyroxine runs out on 3 July", "it runs out on 9 August" (the drug named before)
_SUPPLY_RUNS_OUT = lazy(
    r"\b(?:my\s+(?P<name>[A-Za-z][A-Za-z-]{2,30})|(?P<it>it|they|(?:my|the)\s+(?:current\s+|last\s+|"
    r"new\s+)?(?:pack|box|supply|prescription|bottle|packet|stock|repeat)))\s+(?:runs?\s+out|"
    r"will\s+run\s+out|(?:is|are)\s+(?:going\s+to\s+)?run(?:ning)?\s+out|lasts?|will\s+last)\s+"
    r"(?:on|by|until|till)\b",
    re.IGNORECASE,
)


def rule_supply(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """How long a medication supply lasts ("my metformin prescription runs out on 10 June")."""
    m = _SUPPLY_END.search(sent.text)
    if in_clause(m, parts, sent):
        name = drug_names(m["name"] or m["name2"] or "")
        dates = [d for d in ctx.dates(sent) if d.valid]
        if name and dates and dates[0].start >= sent.start + m.end():
            ctx.add(
                "health.medications",
                {"name": name[0].lower(), "supply_until": dates[0].date},
                sent,
                0.8,
            )
            return
    if _supply_runs_out(ctx, sent, parts):
        return
    m = _DAYS_LEFT.search(sent.text)
    if not in_clause(m, parts, sent):
        return
    names = drug_names(sent.text) or drug_names(m["what2"] or "")
    if not names and m["what2"] and m["what2"].lower() not in _DEVICES:
        return  # "my car will run out in ...": not a medication
    if not names:
        mention = ctx.thread.last_own("drug", "health.medications")
        names = [mention.get("name")] if mention is not None and mention.get("name") else []
    if not names:
        return
    raw, unit = (m["n"] or m["n2"]).lower(), (m["unit"] or m["unit2"]).lower()
    count = count_word(raw) or 0  # (the regex said a digit or a word count_word reads)
    days = count * (14 if unit == "fortnight" else 7 if unit.startswith("week") else 1)
    until = ctx.today + dt.timedelta(days=days)
    ctx.add("health.medications", {"name": names[0].lower(), "supply_until": until}, sent, 0.75)


def _supply_runs_out(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """A drug (or "it", one named before) that runs out on a day; True when one was added."""
    m = _SUPPLY_RUNS_OUT.search(sent.text)
    if not in_clause(m, parts, sent):
        return False
    names = drug_names(m["name"] or "") or (drug_names(sent.text[: m.start()]) if m["it"] else [])
    if not names and m["it"]:
        mention = ctx.thread.last_own("drug", "health.medications")
        names = [mention.get("name")] if mention is not None and mention.get("name") else []
    dates = [d for d in ctx.dates(sent) if d.valid]
    later = [d for d in dates if d.start >= sent.start + m.end()]
    if not names or not later:
        return False
    value = {"name": names[0].lower(), "supply_until": later[0].date}
    ctx.add("health.medications", value, sent, 0.8)
    return True
