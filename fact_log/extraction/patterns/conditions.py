"""Conditions the user has: diagnosed ("I was diagnosed with asthma"), had ("I have also
asthma"), said as what the user is ("I'm borderline diabetic") or named as what a drug is for
("for the BP"); the names come from this list and the checks' condition families. Listed in
health.RULES."""

from __future__ import annotations

import functools
import re
from typing import Any

from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Span,
    dates_in,
    in_clause,
)
from uac.fact_log.reference import health_rules, vocabulary

# A condition named by its inflammation or disease ending: "mastitis", "tendonitis",
# "diverticulosis" (a word, not a list: new ones need no entry)
_INFLAMMATION = r"[a-z]{3,20}(?:itis|osis|iasis)(?!\s+(?-i:[A-E])\b|\s+(?:jab|vacc|shot|booster))"
CONDITIONS = (
    "type 1 diabetes|type 2 diabetes|diabetes|asthma|hypertension|high blood pressure|"
    "high cholesterol|migraines|migraine|eczema|epilepsy|arthritis|rheumatoid arthritis|"
    "osteoarthritis|depression|anxiety|adhd|coeliac disease|celiac disease|ibs|crohn's disease|"
    "gout|sleep apnea|sleep apnoea|hypothyroidism|hyperthyroidism|psoriasis|copd|glaucoma|"
    "long covid|endometriosis|pcos|fibromyalgia|atrial fibrillation|lupus|multiple sclerosis|"
    "hay fever|allergic rhinitis|acid reflux|sciatica|tinnitus|insomnia|rosacea|anaemia|anemia|"
    "acne|shingles|strep throat|heart failure|angina|kidney stones|high blood pressure|"
    "crohn's|crohns|ulcerative colitis"
)
# named in full only after a clinician or "dx": "it's H. pylori", "the diagnosis is H pylori"
_TOLD_ONLY = r"h\.?\s?pylori|helicobacter(?:\s+pylori)?"


_CONDITION = re.compile(
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
_I_AM_CONDITION = re.compile(
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
_TOLD = re.compile(
    r"\b(?:doctor|doc|dr|gp|consultant|specialist|gastroenterologist|cardiologist|"
    r"dermatologist|rheumatologist|neurologist|gi)\b[^.!?]{0,40}?\b(?P<v>says|said|reckons|"
    r"thinks|confirmed|confirms|told\s+me)\b|"
    r"\b(?:dx|diagnosis)\s*(?:is|was|:|=)|\bofficially\b",
    re.I,
)
_TOLD_CONDITION = re.compile(
    r"\b(" + CONDITIONS + r"|" + _TOLD_ONLY + r"|" + _INFLAMMATION + r")\b", re.I
)
# "not diabetes", "might have", "my dad has": a diagnosis not told of the user
_NOT_TOLD = re.compile(
    r"\b(?:not|n't|no|isn't|ruled?\s+out|might|may|could|possibly|probably|maybe|perhaps|"
    r"suspects?|test(?:ing)?\s+for|check(?:ing)?\s+for|if|whether|rule\s+out|"
    r"mum|mom|dad|wife|husband|son|daughter|sister|brother|he|she|they|his|her|their)\b",
    re.I,
)
_PRESENT = re.compile(r"says|reckons|thinks|confirms|officially", re.I)


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
    dates = [d for d in dates_in(sent, "past", ctx.today, ctx.anchor) if d.valid]
    if dates:
        value["diagnosed_on"] = dates[0].date
    elif _PRESENT.search(cue.group("v") or cue[0]):
        value["diagnosed_on"] = ctx.today  # "the doctor says I have gout": told today
    ctx.add("health.conditions", value, sent, 0.75)


_SEASON = re.compile(
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
            dates = [d for d in dates_in(sent, "past", ctx.today, ctx.anchor) if d.valid]
            if dates:
                value["diagnosed_on"] = dates[0].date
        if re.search(r"\b(?:under control|well controlled|managed|manage it)\b", sent.text, re.I):
            value["status"] = "managed"
        told = _TOLD.search(sent.text[: m.start()])
        if "diagnosed_on" not in value and told and _PRESENT.search(told.group("v") or ""):
            value["diagnosed_on"] = ctx.today  # "the doctor says I have gout": told today
        ctx.add("health.conditions", value, sent, 0.8)
    _told(ctx, sent, parts)


FOR_MY_NAMES = {
    "bp": "hypertension",  # "for the BP"
    "blood pressure": "hypertension",
    "high blood pressure": "hypertension",
    "cholesterol": "high cholesterol",
}
