"""Conditions the user has: diagnosed ("I was diagnosed with asthma"), had ("I have also
asthma"), said as what the user is ("I'm borderline diabetic") or named as what a drug is for
("for the BP"), a pregnancy and its due date; the one home of health.conditions. The names
come from this list and the checks' condition families."""

from __future__ import annotations

import datetime as dt
import functools
import re
from typing import Any

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Span,
    complete_earlier,
    in_clause,
    someone_else,
)
from uac.fact_log.extraction.timemodel import count_word
from uac.fact_log.reference import health_rules, vocabulary

# A condition named by its inflammation or disease ending: "mastitis", "tendonitis",
# "diverticulosis" (a word, not a list: new ones need no entry)
_INFLAMMATION = r"[a-z]{3,20}(?:itis|osis|iasis)(?!\s+(?-i:[A-E])\b|\s+(?:jab|vacc|shot|booster))"
CONDITIONS = "|".join(vocabulary()["ordered_lists"]["conditions"])
# named in full only after a clinician or "dx": "it's H. pylori", "the diagnosis is H pylori"
_TOLD_ONLY = r"h\.?\s?pylori|helicobacter(?:\s+pylori)?"


_CONDITION = lazy(
    r"\b(?:i(?:'ve|\s+have)?\s+been\s+diagnosed\s+with|i\s+was\s+diagnosed\s+with|"
    r"diagnosed\s+me\s+with|^(?:(?:i\s+)?(?:got|was|just\s+got)\s+)?diagnosed\s+with|i\s+have|i've\s+got|i(?:'ve|\s+have)\s+had|i\s+suffer\s+from|"
    r"i\s+live\s+with|(?<!'s\s)my|"
    r"(?:gp|doctor|doc|nurse|consultant|specialist)\b[^.!?]{0,30}\babout\s+(?:the|my))\s+"
    # "I have also asthma", "I have often migraine": the adverb before the object
    r"(?:(?:also|still|often|always|now|sometimes|bad|really)\s+)?"
    r"(?:(?:mild|severe|chronic|moderate)\s+)?(" + CONDITIONS + r"|" + _INFLAMMATION + r")\b",
    re.IGNORECASE,
)
# "I'm borderline diabetic", "I am asthmatic": the condition said as what the user is
_I_AM_CONDITION = lazy(
    r"\bi(?:'?m|\s+am)\s+(?:now\s+|also\s+)?(?:an?\s+)?(?P<deg>borderline\s+|pre-?)?"
    r"(?P<adj>diabetic|asthmatic|epileptic|an(?:a)?emic|hypertensive|coeliac|celiac)\b",
    re.I,
)
_ADJECTIVE_CONDITION: dict[str, str] = vocabulary()["condition_adjectives"]


@functools.cache
def _condition_words() -> frozenset[str]:
    """Every name a condition goes by: the list above and the checks' condition families."""
    families = health_rules()["condition_family"]
    named = {w for words in families.values() for w in words if len(w) > 2}
    return frozenset(CONDITIONS.split("|")) | named | set(FOR_MY_NAMES)


def condition_named(what: str) -> str | None:
    """The condition a drug's "for ..." names ("for atrial fibrillation", "for my cholesterol",
    "for the acne"), or None when it names something else ("for my knee", "for a week")."""
    key = re.sub(r"^(?:my|the|his|her)\s+", "", " ".join(what.lower().split()))
    if key in _condition_words() or re.fullmatch(_INFLAMMATION, key):
        return FOR_MY_NAMES.get(key, key)
    return None


# "the doctor says I have gout", "doc reckons ... type 2 diabetes", "Dx is Crohn's", "type 2
# diabetes officially": a diagnosis told (today's when told in the present)
_TOLD = lazy(
    r"\b(?:doctor|doc|dr|gp|consultant|specialist|gastroenterologist|cardiologist|"
    r"dermatologist|rheumatologist|neurologist|gi)\b[^.!?]{0,40}?\b(?P<v>says|said|reckons|"
    r"thinks|confirmed|confirms|told\s+me)\b|"
    r"\b(?:dx|diagnosis)\s*(?:is|was|:|=)|\bofficially\b",
    re.I,
)
_TOLD_CONDITION = lazy(
    r"\b(" + CONDITIONS + r"|" + _TOLD_ONLY + r"|" + _INFLAMMATION + r")\b", re.I
)
# "not diabetes", "might have", "my dad has": a diagnosis not told of the user
_NOT_TOLD = lazy(
    r"\b(?:not|n't|no|isn't|ruled?\s+out|might|may|could|possibly|probably|maybe|perhaps|"
    r"suspects?|test(?:ing)?\s+for|check(?:ing)?\s+for|if|whether|rule\s+out|"
    r"mum|mom|dad|wife|husband|son|daughter|sister|brother|he|she|they|his|her|their)\b",
    re.I,
)
_PRESENT = lazy(r"says|reckons|thinks|confirms|officially", re.I)


def _told(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A diagnosis told by a clinician (or "officially", "Dx is"), when the rules below did
    not read one in the sentence."""
    cue = _TOLD.search(sent.text)
    if cue is None or "?" in sent.text:
        return
    here = ctx.out[ctx.here() :]  # this sentence's candidates: never the whole message's
    if any(c.path == "health.conditions" and c.start == sent.start for c in here):
        return
    if cue[0].lower() == "officially":  # "type 2 diabetes officially": the name is next to it
        near = sent.text[max(0, cue.start() - 40) : cue.end() + 40]
        m = _TOLD_CONDITION.search(near)
        head = near[: m.start()] if m else ""
    else:
        m = _TOLD_CONDITION.search(sent.text, cue.end())
        head = sent.text[cue.end() : m.start()] if m else ""
    if m is None or _NOT_TOLD.search(head) or _NOT_TOLD.search(sent.text[: cue.start()]):
        return
    name = " ".join(m[1].lower().split())
    name = "h. pylori" if "pylori" in name or name.startswith("helicobacter") else name
    name = "crohn's disease" if name.startswith("crohn") else name
    value: dict[str, Any] = {"name": name}
    dates = [d for d in ctx.dates(sent, "past") if d.valid]
    if dates:
        value["diagnosed_on"] = dates[0].date
    elif _PRESENT.search(cue.group("v") or cue[0]):
        value["diagnosed_on"] = ctx.today  # "the doctor says I have gout": told today
    ctx.add("health.conditions", value, sent, 0.75)


_SEASON = lazy(
    r"^(?:(?:ugh|oh|argh|and)[,!\s]+)?(?:the\s+)?(?:my\s+)?hay\s*fever\s+(?:season\s+)?(?:is\s+)?"
    r"(?:back|again|here|has\s+(?:started|begun|arrived|kicked\s+in)|started|kicked\s+in)\b|"
    r"^(?:(?:ugh|oh|argh|and)[,!\s]+)?hay\s*fever\s+season\b",
    re.I,
)


def rule_conditions(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Diagnosed conditions."""
    if _SEASON.search(sent.text) and "?" not in sent.text:
        ctx.add("health.conditions", {"name": "hay fever"}, sent, 0.7)  # "hay fever season again"
        return
    if (m := _I_AM_CONDITION.search(sent.text)) and in_clause(m, parts, sent):
        name = _ADJECTIVE_CONDITION[m["adj"].lower()]
        deg = "borderline " if m["deg"] and m["deg"].strip().lower() == "borderline" else ""
        deg = "pre" if m["deg"] and m["deg"].lower().startswith("pre") else deg
        ctx.add("health.conditions", {"name": f"{deg}{name}"}, sent, 0.8)
    for m in _CONDITION.finditer(sent.text):
        if not in_clause(m, parts, sent):
            continue
        value: dict[str, Any] = {"name": m[1].lower()}
        if "diagnos" in m[0].lower():
            dates = [d for d in ctx.dates(sent, "past") if d.valid]
            if dates:
                value["diagnosed_on"] = dates[0].date
        if re.search(r"\b(?:under control|well controlled|managed|manage it)\b", sent.text, re.I):
            value["status"] = "managed"
        told = _TOLD.search(sent.text[: m.start()])
        if "diagnosed_on" not in value and told and _PRESENT.search(told.group("v") or ""):
            value["diagnosed_on"] = ctx.today  # "the doctor says I have gout": told today
        ctx.add("health.conditions", value, sent, 0.8)
    _told(ctx, sent, parts)


FOR_MY_NAMES: dict[str, str] = vocabulary()["condition_short_names"]  # "for the BP"


# -- a pregnancy and its due date ---------------------------------------------------------------
# A pregnancy's due date (health.conditions.expected_end): "I'm 12 weeks pregnant" (due 28
# weeks after the message), "the baby's due 27 July", "my due date is 14 February" once a
# pregnancy was said; after the due date (and a grace) the checks stop taking it as current.

TERM_WEEKS = 40  # a pregnancy's length from the first day of the last period
_WEEKS = lazy(
    r"\b(?P<n>\d{1,2}|[a-z]+(?:[- ][a-z]+)?)\s+weeks?\s+(?:pregnant|along)\b|"
    # "I am pregnant (11 weeks, ...)", "pregnant, 20 weeks": the weeks said after
    r"\bpregnant\s*[(,:-]\s*(?P<n2>\d{1,2})\s*(?:weeks?|wks?)\b",
    re.I,
)
_DUE = lazy(
    r"\b(?:(?:the\s+|our\s+)?baby(?:'s|\s+is|\s+was)?\s+(?:now\s+)?due|(?:my|our|the)\s+due\s+"
    r"date(?:'s|\s+is|\s+was)?(?:\s+now)?|i(?:'m|\s+am)\s+due|we(?:'re|\s+are)\s+due|"
    # after a pregnancy: "due 27 August", "the midwife says the date is for 27 of August"
    # (a bare "due date is 22 April" stays unread: the fresh and blind3 writers record nothing
    # for it, the blind4 writer the due date; bench/extraction_data/README.md, session 8)
    r"^(?:and\s+|so\s+)?due(?=\s+(?:on\s+|in\s+|for\s+)?(?:the\s+)?\d)|"
    r"\bthe\s+date\s+(?:is|will\s+be)(?:\s+for)?|"
    # "the term is foreseen for the 29/08" (the French "le terme"), "term is 3 June"
    r"\b(?:the\s+)?term\s+(?:is\s+|was\s+)?(?:foreseen|expected|planned|predicted|set|due|now)?"
    r"(?:\s+(?:for|on))?(?=\s+(?:the\s+)?\d))\b",
    re.I,
)

_BARE_DUE = lazy(r"\bdue\b", re.I)


def pregnancy(ctx: Ctx, sent: Span, pregnant_at: int | None) -> dict[str, Any] | None:
    """The pregnancy record a sentence gives: said pregnant (at that offset), or a due date
    after a pregnancy was said; None when it gives none."""
    due = _DUE.search(sent.text)
    if pregnant_at is None and (due is None or not _pregnancy_known(ctx, sent, due)):
        return None
    if due is None and pregnant_at is not None:  # "I'm pregnant, due on 9 January"
        due = _BARE_DUE.search(sent.text, pregnant_at)
    value: dict[str, Any] = {"name": "pregnancy", "status": "active"}
    weeks = _WEEKS.search(sent.text)
    said_n = weeks and (weeks["n"] or weeks["n2"])
    n = count_word(said_n.replace("-", " ")) if said_n else None
    if n is not None and 4 <= n <= 42:
        value["expected_end"] = ctx.today + dt.timedelta(weeks=TERM_WEEKS - n)
    if due is not None:
        after = sent.start + due.end()
        said = [d for d in ctx.dates(sent) if d.valid]
        if later := [d for d in said if d.start >= after]:
            value["expected_end"] = later[0].date
    return value


_CLINICIAN_SAYS = lazy(
    r"\b(?:the\s+|my\s+)?(?:midwife|doctor|gp|nurse|consultant|obstetrician|sonographer)\s+"
    r"(?:said|says|say|told\s+me|thinks)\b",
    re.I,
)


def _pregnancy_known(ctx: Ctx, sent: Span, due: re.Match[str]) -> bool:
    """A due date is the user's pregnancy's: said of the baby, or after a pregnancy was said."""
    # "the midwife says the date is ...": a clinician telling the user's own due date
    head = _CLINICIAN_SAYS.sub("", sent.text[: due.start()])
    if someone_else(head):
        return False
    said = ctx.thread.last("health.conditions")
    baby = "baby" in due[0].lower()
    return baby or (said is not None and said.get("name") == "pregnancy")


def rule_due_date(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A due date said on its own ("the baby's due 27 July"), after or with the pregnancy."""
    due = _DUE.search(sent.text)
    if not in_clause(due, parts, sent):
        return
    if any(c.path == "health.conditions" and c.start == sent.start for c in ctx.out):
        return  # rule_pregnant has read this sentence's pregnancy, due date included
    value = pregnancy(ctx, sent, None)
    if value is not None and "expected_end" in value:
        end = {"expected_end": value["expected_end"]}  # "I am pregnant!! due 27 August"
        # a day said beats one counted from the weeks ("pregnant (11 weeks), the term is
        # foreseen for the 29/08"): the earlier sentence's record loses its counted day
        for c in ctx.out:
            if c.path == "health.conditions" and c.start < sent.start and _is_pregnancy(c.value):
                c.value.pop("expected_end", None)
        if not complete_earlier(ctx, "health.conditions", _is_pregnancy, end, sent):
            ctx.add("health.conditions", value, sent, 0.8)


def _is_pregnancy(value: dict[str, Any]) -> bool:
    return value.get("name") == "pregnancy"


# A birth ends the pregnancy: "I gave birth on Tuesday", "our daughter was born on the 2nd",
# "baby girl, born on the 2nd of June", "had the baby!!"
_BORN = lazy(
    r"\bi\s+(?:gave\s+birth|had\s+(?:the|our|a|my)\s+(?:baby|little\s+one))\b|"
    r"\b(?:our|my)\s+(?:baby|son|daughter|little\s+one|boy|girl)\s+(?:was\s+born|arrived|is\s+here)\b|"
    r"^(?:our\s+|my\s+)?baby\s+(?:girl|boy)\b[^.!?]{0,20}\b(?:born|arrived)\b",
    re.I,
)


def rule_birth(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """The user's baby born: the pregnancy is over (no longer current for the checks)."""
    m = _BORN.search(sent.text)
    if m is None or someone_else(sent.text[: m.start()]):
        return
    if not in_clause(m, parts, sent):
        return
    ctx.add("health.conditions", {"name": "pregnancy", "status": "resolved"}, sent, 0.75)


# -- a pregnancy, and a condition said as what a drug is for ------------------------------------
_PREGNANT = lazy(
    r"\bi(?:'m|\s+am)\s+(?:now\s+)?(?:(?:\d{1,2}|\w+)\s+(?:weeks?|months?)\s+)?pregnant\b|"
    r"^(?:now\s+|already\s+)?(?:\d{1,2}|\w+)\s+(?:weeks?|months?)\s+pregnant\b|"
    r"\bwe(?:'re|’re|\s+are)\s+(?:now\s+|finally\s+|officially\s+)?pregnant\b|"
    r"\b(?:i(?:'m|\s+am)|we(?:'re|\s+are))\s+(?:now\s+|finally\s+)?expecting(?:\s+(?:a\s+baby|our\s+"
    r"(?:first|second|third)(?:\s+(?:baby|child))?|twins))?\b(?!\s+(?:a|an|the|some|my|to)\b)",
    re.I,
)


def rule_pregnant(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A pregnancy said ("I'm 12 weeks pregnant", "we're expecting"), with its due date."""
    if (m := _PREGNANT.search(sent.text)) and in_clause(m, parts, sent):
        ctx.add("health.conditions", pregnancy(ctx, sent, m.start()), sent, 0.85)


# "It's for my blood pressure", "that's mostly for the anxiety": what the drug just named
# treats; any condition of the list.
_FOR_MY = lazy(
    r"^(?:it's|it\s+is|that's|that\s+is|this\s+is|they're|they\s+are)\s+(?:mainly\s+|mostly\s+|"
    r"really\s+|just\s+|only\s+)?for\s+(?:my|the)\s+(?P<what>blood\s+pressure|bp|cholesterol|"
    + CONDITIONS
    + r")\b(?!\s+(?:clinic|appointment|check|review|nurse|team))",
    re.I,
)


def rule_for_my(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A condition named as what the drug just said is for ("It's for my blood pressure")."""
    if (m := _FOR_MY.search(sent.text)) and ctx.thread.last_own("drug", "health.medications"):
        what = " ".join(m["what"].lower().split())
        ctx.add("health.conditions", {"name": FOR_MY_NAMES.get(what, what)}, sent, 0.75)


def condition_for_drug(ctx: Ctx, sent: Span, reason: str) -> None:
    """The condition a drug was started for ("started on warfarin for atrial fibrillation"):
    the user has it (health.rule_medications reads the reason)."""
    if named := condition_named(reason):
        ctx.add("health.conditions", {"name": named}, sent, 0.75)
