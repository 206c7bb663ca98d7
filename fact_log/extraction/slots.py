"""General slot parsers: each finds every value of one type in a text, with its span.

A frame (frames.py) declares its slots by type (frames.toml); the parser of that type returns
candidates `Found(value, start, end)` with offsets into the text it was given, so evidence can
quote them. The parsers are shared by every frame and know nothing of any catalog path:

    date          one time model (explicit, relative, weekday, ranges) (timemodel)
    datetime      a date with the clock time said in the same sentence, when there is one
    money         an amount with its currency -> {"amount", "currency"}
    amount        money, else an amount said as paid without a currency ("paid 899")
    period        how often a payment recurs -> the catalog's period words
    topic         what the sentence is about: its leading noun phrase ("the client dinner")
    name          a proper name after at/from/with/for ("at Lidl") or a capitalised brand
    person        a person named with their relation ("my sister Emma") -> name, relationship
    venue         where something takes place: a capitalised name after at/in
    provider      who provides a service: a capitalised name after with/from/by/is or ":"
    repeats       how an event repeats -> the catalog's words (weekly, daily, ...)
    reaction      what happens on exposure ("(hives)", "gives me a rash")
    purpose       why one travels -> the catalog's words (business, family, ...)
    place         cities and countries of the reference place table -> (city, country code)
    country       a country or nationality name -> ISO code
    visa_country  a country, or a travel authorisation that names one (ESTA: US) -> ISO code
    visa_kind     what kind of visa, as written (tourist, business, ESTA, e-visa, ...)
    drug          a drug name of the reference drug table
    substance     a drug or a food allergen of the reference tables
    vaccine       a vaccine or the disease it prevents (reference vaccine words)
    weight_kg     a body weight in kg, lb or stone -> kilograms
    dose          an amount of a drug with its unit (and how often, when said)
    count         a small whole number (digits or words)
    enum:a|b|c    one of the words a, b, c
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from uac.fact_log.extraction.patterns.text import NOT_NAMES, drug_vocabulary
from uac.fact_log.extraction.timemodel import find_dates, find_time
from uac.fact_log.extraction.values.money import find_money
from uac.fact_log.extraction.values.places import COUNTRIES, NATIONALITIES, lookup_place
from uac.fact_log.extraction.values.quantities import kilograms
from uac.fact_log.reference import food_data, vaccine_words

Prefer = Literal["future", "past"]


@dataclass(frozen=True, slots=True)
class Found:
    """One value a parser found, with the span of the text that says it."""

    value: Any
    start: int
    end: int


Parser = Callable[[str, dt.date, Prefer], list[Found]]

_WORD = re.compile(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’.-]*")


def dates(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Every real calendar date the text names, resolved against today."""
    return [
        Found(m.date.isoformat(), m.start, m.end)
        for m in find_dates(text, today, prefer)
        if m.date is not None and m.conflict is None
    ]


def places(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Known cities and countries, longest name first at each position: (city, country)."""
    out: list[Found] = []
    words = list(_WORD.finditer(text))
    i = 0
    while i < len(words):
        for size in (3, 2, 1):
            if i + size > len(words):
                continue
            start, end = words[i].start(), words[i + size - 1].end()
            name = text[start:end].rstrip(".'’")
            if not name[:1].isupper():
                continue
            hit = lookup_place(name)
            if hit is not None:
                out.append(Found({"city": hit[0], "country": hit[1]}, start, start + len(name)))
                i += size
                break
        else:
            i += 1
    return out


def countries(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Country and nationality names: the ISO code."""
    out = []
    for m in _WORD.finditer(text):
        key = m[0].rstrip(".'’").casefold()
        code = COUNTRIES.get(key) or NATIONALITIES.get(key)
        if code and m[0][:1].isupper():
            out.append(Found(code, m.start(), m.start() + len(m[0].rstrip(".'’"))))
    return out


# Travel authorisations named by their scheme, not their country ("my ESTA came through")
_AUTHORISATION_COUNTRY = {"esta": "US", "nzeta": "NZ", "k-eta": "KR", "keta": "KR"}
_AUTHORISATION = re.compile(r"\b(?:esta|nzeta|k-?eta)\b", re.I)


def visa_countries(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """The country a visa is for: a country name, or a scheme that names one (ESTA: US)."""
    out = countries(text, today, prefer)
    for m in _AUTHORISATION.finditer(text):
        if not any(f.start <= m.start() < f.end for f in out):
            out.append(Found(_AUTHORISATION_COUNTRY[m[0].lower()], m.start(), m.end()))
    return sorted(out, key=lambda f: f.start)


_VISA_KIND = re.compile(
    r"\b(?:esta|nzeta|k-?eta|eta|e-?visa|evisa|schengen|working holiday|tourist|business|work"
    r"|student|transit|visitor|residence|b1/b2|b-?1|b-?2|h-?1b|f-?1|j-?1)\b",
    re.I,
)


def visa_kinds(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """What kind of visa, as written (tourist, business, ESTA, e-visa, ...): only where the
    sentence speaks of a visa, a permit or a travel authorisation."""
    if not re.search(r"visa|permit|esta|eta\b|authori[sz]ation", text, re.I):
        return []
    return [Found(m[0], m.start(), m.end()) for m in _VISA_KIND.finditer(text)]


def _vocab_hits(text: str, vocab: frozenset[str]) -> list[Found]:
    out = []
    low = text.lower()
    for m in _WORD.finditer(low):
        word = m[0].rstrip(".'’-")
        if word in vocab:
            out.append(
                Found(text[m.start() : m.start() + len(word)], m.start(), m.start() + len(word))
            )
    return out


def drugs(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Drug names the reference table knows, as written."""
    return _vocab_hits(text, drug_vocabulary())


@functools.cache
def _allergen_names() -> re.Pattern[str]:
    """Every food allergen name of the reference table, longest first ("tree nuts" before
    "nuts"), as one pattern."""
    names = {
        name.lower()
        for allergen in food_data()[2].values()
        for name in allergen.get("names", [])
        if len(name) > 2
    }
    words = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"\b(?:{words})\b", re.I)


def substances(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """What one can be allergic to: a food allergen as named (several words when it has
    them: "tree nuts") or a drug of the reference tables."""
    out = [Found(m[0], m.start(), m.end()) for m in _allergen_names().finditer(text)]
    for hit in drugs(text, today, prefer):
        if not any(f.start <= hit.start < f.end for f in out):
            out.append(hit)
    return sorted(out, key=lambda f: f.start)


_KG = re.compile(
    r"(?P<n>\d{2,3}(?:[.,]\d{1,2})?)\s?(?P<u>kg|kgs|kilos?|kilograms?|lbs?|pounds|st|stone)\b"
    r"(?:\s?(?P<lb>\d{1,2})\s?(?:lbs?|pounds))?",
    re.I,
)


@functools.cache
def _vaccines() -> frozenset[str]:
    return frozenset(w.lower() for words in vaccine_words().values() for w in words for w in [w])


def vaccines(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Vaccines and the diseases they are named after, as the reference data spells them."""
    low = text.lower()
    out = []
    for word in sorted(_vaccines(), key=len, reverse=True):
        for m in re.finditer(r"\b" + re.escape(word) + r"\b", low):
            if not any(f.start <= m.start() < f.end for f in out):
                out.append(Found(text[m.start() : m.end()], m.start(), m.end()))
    return sorted(out, key=lambda f: f.start)


def weights(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A body weight, converted to kilograms (one decimal)."""
    out = []
    for m in _KG.finditer(text):
        n = float(m["n"].replace(",", "."))
        kg = kilograms(n, m["u"], float(m["lb"]) if m["lb"] else 0.0)
        if 25 <= kg <= 350:
            out.append(Found(round(kg, 1), m.start(), m.end()))
    return out


_DOSE = re.compile(
    r"\b\d+(?:[.,]\d+)?\s?(?:mg|mcg|µg|g|ml|iu|units?)\b"
    r"(?:\s(?:once|twice|three times|four times|\d\s?x|every \w+)(?:\s(?:a|per)\s(?:day|week))?"
    r"|\s(?:daily|a day|at night|in the morning))?",
    re.I,
)


def doses(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """An amount of a drug with its unit, and how often when said next to it."""
    return [Found(m[0], m.start(), m.end()) for m in _DOSE.finditer(text)]


_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
        ]
    )
}
_COUNT = re.compile(r"\b(?:\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")\b", re.I)


def counts(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Small whole numbers, in digits or words."""
    out = []
    for m in _COUNT.finditer(text):
        word = m[0].lower()
        out.append(Found(int(word) if word.isdigit() else _NUMBER_WORDS[word], m.start(), m.end()))
    return out


def datetimes(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Dates, each with the sentence's clock time when it says one ("Tuesday at 7pm")."""
    days = dates(text, today, prefer)
    clock = find_time(text)
    if clock is None:
        return days
    time, start, end = clock
    out = []
    for d in days:
        value = f"{d.value}T{time.hour:02d}:{time.minute:02d}"
        out.append(Found(value, min(d.start, start), max(d.end, end)))
    return out


def money(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Amounts with their currency (when the text names one)."""
    out = []
    for m in find_money(text):
        value: dict[str, Any] = {"amount": str(m.amount)}
        if m.currency:
            value["currency"] = m.currency
        out.append(Found(value, m.start, m.end))
    return out


# An amount said without its currency, where the words around it say it is paid: after a
# payment word ("paid 899", "spent 38 ... and 120"), or written as money is ("17.99",
# "1,450"); never a number with a unit or a clock time after it.
_PAID = re.compile(
    r"(?:\b(?:paid|pay|pays|paying|spent|spend|spending|cost|costs|costing|charged|for"
    r"|and|back)\s+(?:about\s+|around\s+|roughly\s+|only\s+|just\s+|another\s+)?"
    r"(?P<n>\d{1,3}(?:,\d{3})+|\d{1,6})(?:\.(?P<c>\d{2}))?"
    r"|(?<![\w.,:/-])(?P<m>\d{1,3}(?:,\d{3})+(?:\.\d{2})?|\d{1,6}\.\d{2}))"
    r"(?!\d|[.,:/]\d)(?!\s*(?:%|am\b|pm\b|a\.m|p\.m|o'clock|mg\b|mcg\b|ml\b|kg\b|g\b"
    r"|lbs?\b|km\b|mi\b|miles?\b|min(?:ute)?s?\b|hours?\b|hrs?\b|days?\b|weeks?\b"
    r"|months?\b|years?\b|nights?\b|times?\b|people\b|persons?\b|th\b|st\b|nd\b|rd\b"
    r"|x\b|tablets?\b|pills?\b|doses?\b|steps?\b|percent\b|-))",
    re.I,
)
_YEAR = re.compile(r"(?:19|20)\d\d")


def amounts(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Amounts with a currency, else amounts said as paid without one (see _PAID)."""
    found = money(text, today, prefer)
    if found:
        return found
    out = []
    for m in _PAID.finditer(text):
        group = "n" if m["n"] else "m"
        number = m[group].replace(",", "")
        if group == "n" and m["c"]:
            number += "." + m["c"]
        start = m.start(group)
        end = m.end() if group == "n" else m.end(group)
        if Decimal(number) > 0 and not (group == "n" and not m["c"] and _YEAR.fullmatch(number)):
            out.append(Found({"amount": str(Decimal(number))}, start, end))
    return out


def labelled(table: list[tuple[str, str]], *, word_end: bool = False) -> Parser:
    """A parser of words that name one of a catalog enum's values: `table` pairs each value
    with the pattern of its words, tried in order; the value is returned, the words are the
    span."""
    end = r"\b" if word_end else ""
    pattern = re.compile("|".join(f"(?P<{k}>\\b(?:{v}){end})" for k, v in table), re.I)

    def parse(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
        return [
            Found(m.lastgroup, m.start(), m.end()) for m in pattern.finditer(text) if m.lastgroup
        ]

    return parse


_PERIODS = [
    ("fortnightly", r"fortnight(?:ly)?|every (?:two|2|other) weeks?|bi-?weekly"),
    ("weekly", r"weekly|(?:a|per|each|every|/) ?week|/wk"),
    ("quarterly", r"quarterly|(?:a|per|each|every) quarter|every (?:three|3) months"),
    ("every_two_months", r"every (?:two|2|other) months|bi-?monthly"),
    ("monthly", r"monthly|(?:a|per|each|every|/) ?month|/mo|pcm|p/m"),
    ("yearly", r"yearly|annual(?:ly)?|(?:a|per|each|every|/) ?year|/yr|p/a|per annum"),
]
# how often a payment recurs, in the catalog's words (monthly, yearly, ...)
periods = labelled(_PERIODS)


# Words that open a sentence without saying what it is about ("so I have a ...")
_LEAD = re.compile(
    r"^(?:(?:so|and|also|oh|ok|okay|well|um+|uh+|btw|just|reminder|note|fyi|plus|then|"
    r"i|we|i've|we've|i'm|we're|there's|there|is|are|have|has|got|gotta|need|to|will|"
    r"i'll|we'll|must|should|booked|scheduled|set|up|my|our|the|a|an|its|it's|that|this)"
    r"[\s,:;-]+)+",
    re.I,
)
# Where the topic phrase stops: a verb of being, a preposition of time or place, punctuation
_TOPIC_END = re.compile(
    r"\s(?:is|are|was|were|will|on|at|in|from|for|this|next|tomorrow|today|tonight|by|"
    r"due|starts?|begins?|until|till|before|after|every|each|with|which|that|has|have|"
    r"\d)\b|[,.;:!?()–—]",
    re.I,
)


def topics(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """The sentence's leading noun phrase: what it is about ("the client dinner")."""
    lead = _LEAD.match(text)
    start = lead.end() if lead else 0
    rest = text[start:]
    stop = _TOPIC_END.search(rest)
    phrase = rest[: stop.start() if stop else len(rest)].strip(" '\"-")
    words = phrase.split()
    if not 1 <= len(words) <= 6 or not any(ch.isalpha() for ch in phrase):
        return []
    at = text.find(phrase, start)
    return [Found(phrase, at, at + len(phrase))]


_NAME = re.compile(
    r"\b(?:at|from|to|with|for|on|via)\s+(?P<n>(?:[A-Z][\w&'’.-]*|[A-Z]{2,})(?:\s+[A-Z][\w&'’.-]*){0,3})"
)


def names(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Proper names after at/from/to/with/for ("at Lidl", "from Best Buy")."""
    return _proper_names(_NAME, text, places=False)


def _proper_names(pattern: re.Pattern[str], text: str, *, places: bool) -> list[Found]:
    """The capitalised names `pattern` captures as group "n" (no sentence-opening word, and
    no known place unless `places`)."""
    out = []
    for m in pattern.finditer(text):
        name = m["n"].rstrip(".'’")
        if name.split()[0] in NOT_NAMES or (not places and lookup_place(name) is not None):
            continue
        out.append(Found(name, m.start("n"), m.start("n") + len(name)))
    return out


_RELATIONS = [
    "mum",
    "mom",
    "mother",
    "dad",
    "father",
    "brother",
    "sister",
    "wife",
    "husband",
    "partner",
    "son",
    "daughter",
    "friend",
    "colleague",
    "boss",
    "manager",
    "neighbour",
    "neighbor",
    "aunt",
    "uncle",
    "cousin",
    "grandma",
    "grandmother",
    "grandpa",
    "grandfather",
    "niece",
    "nephew",
    "fiancé",
    "fiancée",
    "fiance",
    "fiancee",
    "girlfriend",
    "boyfriend",
    "stepmother",
    "stepfather",
    "stepson",
    "stepdaughter",
    "sister-in-law",
    "brother-in-law",
    "mother-in-law",
    "father-in-law",
    "flatmate",
    "roommate",
    "housemate",
    "dentist",
    "doctor",
    "gp",
    "accountant",
    "lawyer",
    "landlord",
    "landlady",
    "therapist",
    "vet",
    "plumber",
    "babysitter",
    "nanny",
]
_PERSON = re.compile(
    r"\b(?i:my|our)\s+(?i:(?:best|old|new|little|big|older|younger|eldest|youngest)\s+)?"
    r"(?P<r>(?i:" + "|".join(map(re.escape, _RELATIONS)) + r"))\s*,?\s+"
    r"(?P<n>[A-Z][a-zà-ÿ'’-]+(?:\s+[A-Z][a-zà-ÿ'’-]+)?)"
    r"|(?P<n2>[A-Z][a-zà-ÿ'’-]+(?:\s+[A-Z][a-zà-ÿ'’-]+)?)\s*,\s*(?i:my|our)\s+"
    r"(?P<r2>(?i:" + "|".join(map(re.escape, _RELATIONS)) + r"))\b"
)


def people(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A person with their relation to the user: {"name", "relationship"}."""
    out = []
    for m in _PERSON.finditer(text):
        name = (m["n"] or m["n2"]).strip()
        rel = (m["r"] or m["r2"]).lower()
        first = name.split()[0]
        if first in NOT_NAMES or not first[:1].isupper() or first.lower() in _RELATIONS:
            continue
        if name.endswith(("'s", "’s")):
            name = name[:-2]
        out.append(Found({"name": name, "relationship": rel}, m.start(), m.end()))
    return out


_VENUE = re.compile(
    r"\b(?:at|in)\s+(?:the\s+)?(?P<n>[A-Z][\w&'’.-]*(?:\s+(?:[A-Z][\w&'’.-]*|de|da|do|la|le|"
    r"of|on|clinic|hospital|centre|center|hall|school|church|office|surgery|workshop|garage|"
    r"restaurant|cafe|café|hotel|stadium|park|gym|library)){0,4})"
)


def venues(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Where something takes place: a capitalised name after at/in ("at the Wythenshawe
    clinic")."""
    return _proper_names(_VENUE, text, places=True)


_PROVIDER = re.compile(
    r"(?:\b(?:with|from|by|through|via|is|are|:)\s+|:\s*)"
    r"(?P<n>[A-Z][\w&'’.-]*(?:\s+[A-Z][\w&'’.-]*){0,3})"
)


def providers(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Who provides a service: a capitalised name after with/from/by/is or a colon (never a
    code with digits: "The policy number is HX-4471-22")."""
    return [
        f for f in _proper_names(_PROVIDER, text, places=False) if not re.search(r"\d", f.value)
    ]


_DAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)"
_WEEKDAY = _DAY + r"(?:day)?s?"
_REPEATS = [
    ("fortnightly", r"fortnightly|every (?:other|second|two|2) (?:weeks?|" + _WEEKDAY + ")"),
    ("weekdays", r"(?:every|each) weekday|weekdays|monday to friday|mon-fri"),
    ("daily", r"daily|every (?:day|morning|evening|night)"),
    ("monthly", r"monthly|every month|(?:first|last|second|third) \w+ of (?:each|every) month"),
    ("weekly", r"weekly|every week|(?:every|each) " + _WEEKDAY + "|on " + _DAY + r"days\b"),
]
# how an event repeats, in the catalog's words (weekly, fortnightly, daily, ...)
repeats = labelled(_REPEATS)


_REACTION = re.compile(
    r"\((?P<p>[^()]{3,40})\)|\b(?:gives?|gave|makes?|made|brings?|brought|causes?|caused|"
    r"breaks?|broke|puts?|put)\s+me\s+(?:out\s+in\s+|into\s+)?(?P<g>[^,.;!?]{3,40})"
    r"|\b(?:I|i)\s+(?:get|got|come out in|came out in|break out in|broke out in)\s+"
    r"(?P<i>[^,.;!?]{3,40})",
)


def reactions(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """What happens on exposure: "(hives)", "gives me a rash", "I get swollen lips"."""
    out = []
    for m in _REACTION.finditer(text):
        group = next(g for g in ("p", "g", "i") if m[g])
        phrase = m[group].strip()
        out.append(Found(phrase, m.start(group), m.start(group) + len(phrase)))
    return out


_PURPOSES = [
    (
        "business",
        r"work|business|conference|client|meeting|workshop|training|summit|"
        r"expo|trade fair|office|colleagues?",
    ),
    (
        "family",
        r"family|wedding|funeral|mum|mom|dad|parents|grand\w+|sister|brother|"
        r"cousin|aunt|uncle|in-laws",
    ),
    ("study", r"study|studies|course|semester|exchange|university|exam"),
    ("medical", r"treatment|surgery|operation|clinic|hospital"),
    ("leisure", r"holiday|holidays|vacation|honeymoon|getaway|hiking|beach|sightseeing"),
]
# why the user travels, in the catalog's words (business, family, leisure, ...)
purposes = labelled(_PURPOSES, word_end=True)


PARSERS: dict[str, Parser] = {
    "date": dates,
    "venue": venues,
    "provider": providers,
    "repeats": repeats,
    "reaction": reactions,
    "purpose": purposes,
    "datetime": datetimes,
    "money": money,
    "amount": amounts,
    "period": periods,
    "topic": topics,
    "name": names,
    "person": people,
    "place": places,
    "country": countries,
    "visa_country": visa_countries,
    "visa_kind": visa_kinds,
    "drug": drugs,
    "substance": substances,
    "vaccine": vaccines,
    "weight_kg": weights,
    "dose": doses,
    "count": counts,
}


@functools.cache  # an enum's pattern is compiled once, not on every sentence
def parser(kind: str) -> Parser:
    """The parser of a slot type (`enum:a|b` builds one); KeyError names an unknown type."""
    if kind.startswith("enum:"):  # the catalog enum's own spelling
        return labelled(
            [(v, re.escape(v)) for v in kind.removeprefix("enum:").split("|")], word_end=True
        )
    return PARSERS[kind]


def as_decimal(value: Any) -> Decimal:
    """A parsed number as an exact Decimal (money and quantities)."""
    return Decimal(str(value))
