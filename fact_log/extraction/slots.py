"""General slot parsers: each finds every value of one type in a text, with its span.

A frame (frames.py) declares its slots by type (frames.toml); the parser of that type returns
candidates `Found(value, start, end)` with offsets into the text it was given, so evidence can
quote them. The parsers are shared by every frame and know nothing of any catalog path:

    date          one time model (explicit, relative, weekday, ranges) (timemodel)
    datetime      a date with the clock time said in the same sentence, when there is one
    money         an amount with its currency -> {"amount", "currency"}
    amount        money, else an amount said as paid without a currency ("paid 899", "15k",
                  "640 kr", "1.150", "paid ... three thousand")
    sum           the number of such an amount alone (a limit, a cost) -> "1500"
    currency      the ISO code of an amount said with its currency
    period        how often a payment recurs -> the catalog's period words
    topic         what the sentence is about: its leading noun phrase ("the client dinner")
    name          a proper name after at/from/with/for ("at Lidl") or a capitalised brand
    person        a person named with their relation ("my sister Emma") or a title ("Dr
                  Okafor") -> name, relationship
    venue         where something takes place: a capitalised name after at/in
    provider      who provides a service: a capitalised name after with/from/by/is or ":"
    repeats       how an event repeats -> the catalog's words (weekly, daily, ...)
    reaction      what happens on exposure ("(hives)", "gives me a rash")
    purpose       why one travels -> the catalog's words (business, family, ...)
    place         cities and countries of the reference place table, in lower case too unless
                  the name is an everyday word ("nice") -> (city, country code)
    country       a country or nationality name -> ISO code
    visa_country  a country, or a travel authorisation that names one (ESTA: US) -> ISO code
    visa_kind     what kind of visa, as written (tourist, business, ESTA, e-visa, ...)
    drug          a drug name of the reference drug table
    substance     a drug or a food allergen of the reference tables
    vaccine       a vaccine or the disease it prevents (reference vaccine words)
    weight_kg     a body weight in kg, lb or stone -> kilograms
    dose          an amount of a drug with its unit (and how often, when said)
    count         a small whole number (digits or words)
    condition     a health condition (the rules' condition names, the checks' condition
                  families, pregnancy words, "diabetic") -> its name ("pregnancy", "hypertension")
    intake        a food, drink or supplement of the interaction table (or "vitamin D")
    intake_kind   the same words -> food | drink | supplement
    term          a length of time ("a two-year warranty", "within 14 days", "for 12 months")
                  -> the message's day plus that length
    day_of_month  the day a monthly payment goes out ("on the 5th", "1st of every month") -> int
    day_period    the same words -> "monthly" (a payment on a day of the month repeats monthly)
    pay_method    standing order, direct debit, card or transfer -> the catalog's words
    account_kind  a kind of account or card (vocabulary account_kinds) -> the catalog's words
    bank          a bank or card issuer: a capitalised name before account/card or after
                  with/at/from ("with Marcus", "the Santander account", "my Amex")
    budget_period week | month | year, as a budget is said per ("a month", "/week", "yearly")
    category      a spending category word of the reference table, else the words after on/for
    booking_kind  flight | train | hotel | car | bus | boat, by the words that book them
    code          an identifier after number/ref/reference/confirmation/reg ("ref HLM-88213")
    email         an email address (the rules' pattern)
    phone         a phone number of seven digits or more (the rules' pattern; declare it
                  beside its word: "phone@number|mobile")
    city          a known city, as a string (a place parser's city)
    full_name     a full name: two to four capitalised (or capital-letter) words
    vehicle_make  a vehicle make, or the make of a model named (vocabulary) -> its make
    vehicle_model a vehicle model of the vocabulary, as written, else the word after a make
    vehicle       the model when named, else the make (which vehicle a service was for)
    model_year    a four-digit year said bare (not inside a date): "a 2017 Fiesta"
    distance_km   an odometer reading: "78,400 km", "412,300 k's", "at 72,000" -> whole km
    rate          a percentage or a price ("29.9%", "0%", "£52")
    item          a thing bought: "The laptop has ...", "bought a dishwasher from ..."
    payee         who a payment instruction pays: "standing order to Mum", "the gym direct
                  debit", "council tax DD", "my phone bill"; else what it pays for ("rent")
    service       a subscription service of the vocabulary, as written ("Spotify"), else a
                  name after at/from/to, else the capitalised name opening the sentence
    enum:a|b|c    one of the words a, b, c
    KIND@w1|w2    the values of KIND said within a few words of one of w1, w2 (either side):
                  "term@warrant|guarantee" is a warranty's length, "country@passport" the
                  country of a passport
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import re
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from dateutil.relativedelta import relativedelta

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.allergies import REACTION_WORDS
from uac.fact_log.extraction.patterns.conditions import CONDITIONS, FOR_MY_NAMES
from uac.fact_log.extraction.patterns.contacts import EMAIL, PHONE
from uac.fact_log.extraction.patterns.schedule import event_place
from uac.fact_log.extraction.patterns.text import NOT_NAMES, drug_vocabulary
from uac.fact_log.extraction.timemodel import Clock, clock, find_dates, find_time, offset
from uac.fact_log.extraction.values.money import (
    MONEY_MULTIPLIER,
    MONEY_NUMBER,
    SPOKEN_AMOUNT,
    find_money,
    multiplier,
    parse_number,
    words_to_number,
)
from uac.fact_log.extraction.values.places import COUNTRIES, NATIONALITIES, lookup_place
from uac.fact_log.extraction.values.quantities import kilograms
from uac.fact_log.extraction.values.services import SERVICE
from uac.fact_log.reference import food_data, health_rules, vaccine_words, vocabulary
from uac.fact_log.reference.spending import _index as _spending_index

Prefer = Literal["future", "past"]


@dataclass(frozen=True, slots=True)
class Found:
    """One value a parser found, with the span of the text that says it."""

    value: Any
    start: int
    end: int


Parser = Callable[[str, dt.date, Prefer], list[Found]]

_NUMBER_WORD_LIST = (
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve"),
)

_WORD = lazy(r"[A-Za-zÀ-ÿ][A-Za-zÀ-ÿ'’.-]*")


# The first and last day the conversation last named with their month (set by the frames
# for the window being filled): a bare "the 19th" is read inside them (timemodel.nth_inside)
_NAMED: ContextVar[tuple[dt.date, dt.date] | None] = ContextVar("named_span", default=None)


@contextlib.contextmanager
def continuing(span: tuple[dt.date, dt.date] | None) -> Iterator[None]:
    """Read bare day numbers inside `span` (the days the conversation last named) while the
    block runs."""
    token = _NAMED.set(span)
    try:
        yield
    finally:
        _NAMED.reset(token)


def dates(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Every real calendar date the text names, resolved against today (a bare "the 19th"
    inside the days the conversation last named, see `continuing`); a stay said as a number
    of nights beside its only date ends that many days later ("6 nights from the 6th", "from
    the 14th, 7 nights"): the end follows the date."""
    out = [
        Found(m.date.isoformat(), m.start, m.end)
        for m in find_dates(text, today, prefer, span=_NAMED.get())
        if m.date is not None and m.conflict is None
    ]
    if len(out) == 1 and "night" in text.lower():
        out += _stay_end(text, out[0])
    return out


_NIGHTS = lazy(rf"\b(?P<n>\d{{1,2}}|{'|'.join(_NUMBER_WORD_LIST[1:])})[ \t]+nights?\b", re.I)
_NIGHTS_JOIN = lazy(r"[ \t]*(?:,|from|starting|checking in|check-?in)?[ \t]*(?:on[ \t]+)?", re.I)


def _stay_end(text: str, day: Found) -> list[Found]:
    """The last day of a stay said as nights right before or after its first day."""
    for m in _NIGHTS.finditer(text):
        between = text[m.end() : day.start] if m.end() <= day.start else text[day.end : m.start()]
        if not _NIGHTS_JOIN.fullmatch(re.sub(r"\bthe\b", "", between)):
            continue
        n = int(m["n"]) if m["n"].isdigit() else _NUMBER_WORD_LIST.index(m["n"].lower())
        end = dt.date.fromisoformat(day.value) + dt.timedelta(days=n)
        return [Found(end.isoformat(), m.start(), m.end())] if n else []
    return []


# Place names that are also everyday words or first names ("nice", "turkey", "jordan"), and
# "us"/"uk": written in lower case they are not the place (the rules' list, travel.py)
_WORDS_TOO = frozenset(vocabulary()["word_sets"]["travel_words_too"]) | {"us", "uk", "usa", "uae"}


def _place_said(name: str) -> tuple[str | None, str] | None:
    """A known place as written, or in lower case unless the name is also a common word ("osaka
    25 may", not "nice weather"); a city written in lower case is given its capitals."""
    if not name[:1].isupper() and (not name[:1].isalpha() or name.casefold() in _WORDS_TOO):
        return None
    hit = lookup_place(name)
    if hit is None or hit[0] is None or name[:1].isupper():
        return hit
    return hit[0].title(), hit[1]


def places(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Known cities and countries (in lower case too, see `_place_said`), longest name first
    at each position: (city, country)."""
    out: list[Found] = []
    words = list(_WORD.finditer(text))
    i = 0
    while i < len(words):
        for size in (3, 2, 1):
            if i + size > len(words):
                continue
            start, end = words[i].start(), words[i + size - 1].end()
            name = text[start:end].rstrip(".'’")
            hit = _place_said(name)
            if hit is not None:
                out.append(Found({"city": hit[0], "country": hit[1]}, start, start + len(name)))
                i += size
                break
        else:
            i += 1
    return out


def countries(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Country and nationality names: the ISO code (a country's name in lower case too, unless
    it is also a common word: "turkey"; a nationality only capitalised: "french fries")."""
    out = []
    for m in _WORD.finditer(text):
        key = m[0].rstrip(".'’").casefold()
        said = m[0][:1].isupper()
        code = COUNTRIES.get(key) if said or key not in _WORDS_TOO else None
        code = code or (NATIONALITIES.get(key) if said else None)
        if code:
            out.append(Found(code, m.start(), m.start() + len(m[0].rstrip(".'’"))))
    return out


# Travel authorisations named by their scheme, not their country ("my ESTA came through")
_AUTHORISATION_COUNTRY = {"esta": "US", "nzeta": "NZ", "k-eta": "KR", "keta": "KR"}
_AUTHORISATION = lazy(r"\b(?:esta|nzeta|k-?eta)\b", re.I)


def visa_countries(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """The country a visa is for: a country name, or a scheme that names one (ESTA: US)."""
    out = countries(text, today, prefer)
    for m in _AUTHORISATION.finditer(text):
        if not any(f.start <= m.start() < f.end for f in out):
            out.append(Found(_AUTHORISATION_COUNTRY[m[0].lower()], m.start(), m.end()))
    return sorted(out, key=lambda f: f.start)


_VISA_KIND = lazy(
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
    return lazy(rf"\b(?:{words})\b", re.I)


def substances(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """What one can be allergic to: a food allergen as named (several words when it has
    them: "tree nuts") or a drug of the reference tables."""
    out = [Found(m[0], m.start(), m.end()) for m in _allergen_names().finditer(text)]
    for hit in drugs(text, today, prefer):
        if not any(f.start <= hit.start < f.end for f in out):
            out.append(hit)
    return sorted(out, key=lambda f: f.start)


_KG = lazy(
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


_DOSE = lazy(
    r"\b\d+(?:[.,]\d+)?\s?(?:mg|mcg|µg|g|ml|iu|units?)\b"
    r"(?:\s(?:once|twice|three times|four times|\d\s?x|every \w+)(?:\s(?:a|per)\s(?:day|week))?"
    r"|\s(?:daily|a day|at night|in the morning))?",
    re.I,
)


# A bare strength said right after a drug's name ("ibuprofen 400", "sertraline 100."): the
# number alone, not a count, a duration, a year or a part of something else.
_BARE_STRENGTH = lazy(
    r"\s+(?P<n>\d{1,4}(?:[.,]\d{1,2})?)(?![\d.,]?\d|\s?(?:%|x\b|[-/:])"
    r"|\s(?:times?|tablets?|tabs?|pills?|caps(?:ules)?|drops?|puffs?|days?|weeks?|months?|years?"
    r"|hours?|hrs?|left|boxes?|packs?|more|of)\b)",
    re.I,
)


def doses(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """An amount of a drug with its unit, and how often when said next to it; or, where no
    unit is said, the bare strength written right after the drug's name ("ibuprofen 400")."""
    out = [Found(m[0], m.start(), m.end()) for m in _DOSE.finditer(text)]
    for drug in drugs(text, today, prefer):
        m = _BARE_STRENGTH.match(text, drug.end)
        if m is None or 1900 <= float(m["n"].replace(",", ".")) <= 2100:
            continue
        if not any(f.start <= m.start("n") < f.end for f in out):
            out.append(Found(m["n"], m.start("n"), m.end("n")))
    return sorted(out, key=lambda f: f.start)


_NUMBER_WORDS = {w: i for i, w in enumerate(_NUMBER_WORD_LIST)}
_COUNT = lazy(r"\b(?:\d{1,2}|" + "|".join(_NUMBER_WORDS) + r")\b", re.I)


def counts(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Small whole numbers, in digits or words."""
    out = []
    for m in _COUNT.finditer(text):
        word = m[0].lower()
        out.append(Found(int(word) if word.isdigit() else _NUMBER_WORDS[word], m.start(), m.end()))
    return out


# Where one clause of a sentence ends: a comma, semicolon, dash or sentence stop followed by
# a space, or a line break ("10.15" and "4.15" are times, not stops)
_CLAUSE_END = lazy(r"[,;!?]\s|\.\s|\n|\s[-–—]\s")


def _clause(text: str, start: int, end: int) -> str:
    """The clause of text around [start, end): from the clause break before it to the one
    after it."""
    before = [m.end() for m in _CLAUSE_END.finditer(text, 0, start)]
    after = _CLAUSE_END.search(text, max(start, end - 1))  # a date may end in its stop
    return text[before[-1] if before else 0 : after.start() if after else len(text)]


def _time_of(text: str, start: int, end: int) -> Clock | None:
    """The time of day said for the date at [start, end) of text: the one said in the date's
    own clause, else the first one said in text (the caller's stretch around the date)."""
    return clock(_clause(text, start, end)) or clock(text)


def datetimes(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Dates, each with the time of day said for it ("Tuesday at 7pm"; the rules' clock:
    "2 till 5", "6 to 7pm", "14.15", "7h40", a bare "at 6").

    Each date takes the time said in its own clause, else the first time said between the
    date before it and the date after it ("dep 23:15 on 14 Aug. Return 10:35 on 30 Aug": one
    time each). A time range said for the only date gives a second value, its end ("the
    meeting on Thursday is 2 till 5": 14:00, then 17:00)."""
    days = dates(text, today, prefer)
    if not days:
        return days
    out = []
    for i, d in enumerate(days):
        lo = days[i - 1].end if i else 0
        hi = days[i + 1].start if i + 1 < len(days) else len(text)
        said = _time_of(text[lo:hi], d.start - lo, d.end - lo)
        if said is None:
            said = _chinese_time(text) if len(days) == 1 else None
        if said is None:
            out.append(d)
            continue
        out.append(Found(f"{d.value}T{said.start:%H:%M}", d.start, d.end))
        if said.end is not None and len(days) == 1:
            out.append(Found(f"{d.value}T{said.end:%H:%M}", d.start, d.end))
    return out


def offset_from(value: str, text: str) -> str:
    """A date or date-time value moved by the offset `text` says from it ("a month before",
    "three weeks before it renews", "the day after"), or unchanged when it says none."""
    said = offset(text)
    if said is None:
        return value
    day = said.apply(dt.date.fromisoformat(value[:10]))
    return value if day is None else day.isoformat() + value[10:]


def timed(value: str, text: str) -> str:
    """A date or date-time value at the time of day `text` says, when it says one ("the
    flight is on 3 June" then "it leaves 07:10": the day before, the time now)."""
    said = clock(text) or _chinese_time(text)
    return value if said is None else f"{value[:10]}T{said.start:%H:%M}"


def _chinese_time(text: str) -> Clock | None:
    """A clock time the rules' clock does not read ("下午3点"), from find_time."""
    found = find_time(text)
    return Clock(found[0], None, False) if found is not None else None


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
_PAID = lazy(
    r"(?:\b(?:paid|pay|pays|paying|spent|spend|spending|cost|costs|costing|charged|for"
    r"|and|back)\s+(?:about\s+|around\s+|roughly\s+|only\s+|just\s+|another\s+)?"
    r"(?P<n>\d{1,3}(?:,\d{3})+|\d{1,6})(?:\.(?P<c>\d{2}))?"
    # written as money is: "1,450", "17.99", and as Europe writes it, "1.150", "2.480,36", "5,99"
    r"|(?<![\w.,:/-])(?P<m>\d{1,3}(?:,\d{3})+(?:\.\d{2})?|\d{1,3}(?:\.\d{3})+(?:,\d{2})?"
    r"|\d{1,6}[.,]\d{2}))"
    r"(?!\d|[.,:/]\d)(?!\s*(?:%|am\b|pm\b|a\.m|p\.m|o'clock|mg\b|mcg\b|ml\b|kg\b|g\b"
    r"|lbs?\b|km\b|mi\b|miles?\b|min(?:ute)?s?\b|hours?\b|hrs?\b|days?\b|weeks?\b"
    r"|months?\b|years?\b|nights?\b|times?\b|people\b|persons?\b|th\b|st\b|nd\b|rd\b"
    r"|x\b|tablets?\b|pills?\b|doses?\b|steps?\b|percent\b|-))",
    re.I,
)
_YEAR = lazy(r"(?:19|20)\d\d")
# An amount said with a multiplier and no currency: "limit 15k", "SIP of 10k", "capped at 1
# lakh", "2 million" (never "a 10k run", "5k steps")
_MULTIPLIED = lazy(
    r"(?<![\w.,:/'’@-])(?P<n>\d{1,3}(?:[.,]\d{1,2})?)(?P<k>" + MONEY_MULTIPLIER + r")"
    r"(?![\w.,:/'’]\d|\s*(?:steps?|runs?|races?|km|kms|miles?|metres?|meters?|followers?|views?"
    r"|subscribers?|users?|people|words?|likes?|fans?|miles|rpm|mah|mb|gb|tb|lines?)\b)",
    re.I,
)
# An amount said with a currency word several countries use ("640 kr", "kr 189.400", "22,000
# pesos"): the amount without a currency
_UNNAMED_WORDS = "|".join(vocabulary()["word_sets"]["money_unnamed_currency_words"])
_UNNAMED = lazy(
    rf"(?<![\w.,:/'’@-])(?:(?:{_UNNAMED_WORDS})\.?[ \t]?(?P<a>" + MONEY_NUMBER + r")(?![\d.,]?\d)"
    r"|(?P<b>" + MONEY_NUMBER + rf")[ \t]?(?:{_UNNAMED_WORDS})\b)",
    re.I,
)
# An amount said in words up to three words after a payment word: "paid the truck loan three
# thousand four hundred and fifty", "i send twenty thousand every month"
_SPOKEN = lazy(
    r"(?<![\w-])(?P<n>" + SPOKEN_AMOUNT + r")\b(?![ \t]+(?:min(?:ute)?s?|hours?|hrs?|days?|nights?"
    r"|weeks?|months?|years?|times?|people|persons?|kg|km|miles?|percent)\b)",
    re.I,
)
_PAY_BEFORE = lazy(
    r"\b(?:paid|pay|pays|paying|spent|spend|cost|costs|send|sends|sent|transferred|transfer)"
    r"(?:[ \t]+[\w'’]+){0,3}[ \t]+$",
    re.I,
)
_PAY_STEMS = ("paid", "pay", "spen", "cost", "sen", "transf")


# An amount said without its currency as a rate per period: "182 a month", "29/month",
# "612,50 per month", "10k every month", "1 lakh a year" (the number parsed as money is:
# grouped thousands, a decimal comma, a multiplier)
_PER_PERIOD = lazy(
    r"(?<![\w.,:/'’@-])(?<!\bat\s)(?P<n>" + MONEY_NUMBER + r")(?P<k>" + MONEY_MULTIPLIER + r")?"
    r"(?![\w.,:/'’]\d)(?=[ \t]{0,2}(?:/[ \t]?(?:week|wk|month|mo|year|yr)\b"
    r"|(?:a|per|each|every)[ \t]+(?:week|month|quarter|year)\b"
    r"|(?:weekly|monthly|yearly|annually)\b))",
    re.I,
)


def _per_period(text: str) -> list[Found]:
    out = []
    for m in _PER_PERIOD.finditer(text):
        number = parse_number(m["n"])
        if number is None or number <= 0 or (not m["k"] and _YEAR.fullmatch(m["n"])):
            continue
        number *= multiplier(m["k"])
        out.append(Found({"amount": str(number)}, m.start(), m.end()))
    return out


def amounts(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Amounts with a currency, else amounts said as paid or per period without one (see
    _PAID and _PER_PERIOD), with a multiplier (_MULTIPLIED), with a currency word several
    countries use (_UNNAMED) or in words after a payment word (_SPOKEN)."""
    found = money(text, today, prefer)
    if found:
        return found
    out = _per_period(text)
    out += [f for f in _unnamed(text) if not any(o.start <= f.start < o.end for o in out)]
    for m in _PAID.finditer(text):
        group = "n" if m["n"] else "m"
        number = m[group].replace(",", "") if group == "n" else str(parse_number(m[group]))
        if group == "n" and m["c"]:
            number += "." + m["c"]
        start = m.start(group)
        end = m.end() if group == "n" else m.end(group)
        if any(f.start <= start < f.end for f in out):
            continue  # read as a rate per period already
        if Decimal(number) > 0 and not (group == "n" and not m["c"] and _YEAR.fullmatch(number)):
            out.append(Found({"amount": str(Decimal(number))}, start, end))
    return sorted(out, key=lambda f: f.start)


def _unnamed(text: str) -> list[Found]:
    """Amounts with a multiplier, with a currency word of several countries, or in words after
    a payment word: the amount alone."""
    out = []
    for m in _MULTIPLIED.finditer(text):
        number = parse_number(m["n"])
        if number is not None and number > 0:
            out.append(Found({"amount": str(number * multiplier(m["k"]))}, m.start(), m.end()))
    for m in _UNNAMED.finditer(text):
        number = parse_number(m["a"] or m["b"])
        if number is not None and number > 0:
            out.append(Found({"amount": str(number)}, m.start(), m.end()))
    low = text.lower()
    for m in _SPOKEN.finditer(text) if any(w in low for w in _PAY_STEMS) else ():
        said = words_to_number(m["n"])
        before = text[max(0, m.start() - 40) : m.start()]
        if said is not None and said >= 10 and _PAY_BEFORE.search(before):
            out.append(Found({"amount": str(said)}, m.start("n"), m.end("n")))
    return out


# A bare number said as a limit or a rate per period: "under 150", "no more than 300",
# "limit is 1.500", "400/month", "250 a month" (never a clock time, a year or a unit)
_LIMIT = lazy(
    r"\b(?:under|below|than|max(?:imum)?|at\s+most|up\s+to|limit\s+(?:is|of)|is|at)\s+"
    r"(?P<a>\d{1,3}(?:[,.'’]\d{3})+|\d{2,7})(?![\d:.,]\d|\s*(?:%|am|pm|km|kg|mg|h\b|hours?|days?"
    r"|weeks?|months?|years?|times?|people|nights?))"
    r"|(?<![\w.,:/-])(?P<b>\d{1,3}(?:[,.'’]\d{3})+|\d{2,7})\s*(?=(?:/|a\s+|per\s+|each\s+)"
    r"(?:week|month|year)\b)",
    re.I,
)


def sums(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """The number of each amount (see `amounts`), for a money field other than "amount" (a
    card's limit, a budget's, a service's cost); else a bare number said as a limit ("under
    150", "400/month")."""
    found = [Found(f.value["amount"], f.start, f.end) for f in amounts(text, today, prefer)]
    if found:
        return found
    out = []
    for m in _LIMIT.finditer(text):
        group = "a" if m["a"] else "b"
        number = parse_number(re.sub(r"[,.'’](?=\d{3}\b)", "", m[group]))
        if number is not None and number > 0 and not _YEAR.fullmatch(m[group]):
            out.append(Found(str(number), m.start(group), m.end(group)))
    return out


def currencies(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """The ISO currency of each amount said with one."""
    return [Found(f.value["currency"], f.start, f.end) for f in money(text, today, prefer)]


def labelled(table: list[tuple[str, str]], *, word_end: bool = False) -> Parser:
    """A parser of words that name one of a catalog enum's values: `table` pairs each value
    with the pattern of its words, tried in order; the value is returned, the words are the
    span."""
    end = r"\b" if word_end else ""
    # a word starts at a word boundary; "/month" may follow a symbol ("600 €/month")
    start = r"(?:\b|(?=/))"
    pattern = lazy("|".join(f"(?P<{k}>{start}(?:{v}){end})" for k, v in table), re.I)

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
_LEAD = lazy(
    r"^(?:(?:so|and|also|oh|ok|okay|well|um+|uh+|btw|just|reminder|note|fyi|plus|then|"
    r"i|we|i've|we've|i'm|we're|there's|there|is|are|have|has|got|gotta|need|to|will|"
    r"i'll|we'll|must|should|booked|scheduled|set|up|my|our|the|a|an|its|it's|that|this)"
    r"[\s,:;-]+)+",
    re.I,
)
# Where the topic phrase stops: a verb of being, a preposition of time or place, punctuation
_TOPIC_END = lazy(
    r"\s(?:is|are|was|were|will|on|at|in|from|for|this|next|tomorrow|today|tonight|by|"
    r"due|starts?|begins?|until|till|before|after|every|each|with|which|that|has|have|"
    r"\d)\b|[,.;:!?()–—]",
    re.I,
)


# What one books rather than what it is for: the title of such a booking is its venue
_BOOKED_THING = frozenset({"table", "reservation", "booking", "spot", "slot"})


def topics(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """The sentence's leading noun phrase: what it is about ("the client dinner")."""
    lead = _LEAD.match(text)
    start = lead.end() if lead else 0
    rest = text[start:]
    stop = _TOPIC_END.search(rest)
    phrase = rest[: stop.start() if stop else len(rest)].strip(" '\"-")
    if phrase.lower() in _BOOKED_THING and (venue := venues(text, today, prefer)):
        return venue[:1]  # "booked a table at Wagamama": what is booked is where
    words = phrase.split()
    if not 1 <= len(words) <= 6 or not any(ch.isalpha() for ch in phrase):
        return []
    at = text.find(phrase, start)
    return [Found(phrase, at, at + len(phrase))]


_NAME = lazy(
    r"\b(?:at|from|to|with|for|on|via)\s+(?P<n>(?:[A-Z][\w&'’.-]*|[A-Z]{2,})(?:\s+[A-Z][\w&'’.-]*){0,3})"
)


def names(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Proper names after at/from/to/with/for ("at Lidl", "from Best Buy")."""
    return _proper_names(_NAME, text, places=False)


_OPENING_NAME = lazy(r"^[\W\d_]*(?P<n>[A-Z][\w+&'’-]*(?:\s+[A-Z][\w+&'’-]*){0,2})")


def services(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A subscription service: one the vocabulary names, as written ("Spotify family"), else
    a proper name after at/from/to ("to Babbel"), else the capitalised name the sentence
    opens with ("Deutschlandticket 58 € monthly")."""
    said = [Found(m[0], m.start(), m.end()) for m in SERVICE.finditer(text)]
    return said or names(text, today, prefer) or _proper_names(_OPENING_NAME, text, places=False)


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


# The relations a person is introduced by: the vocabulary's one list (the rules read it too),
# a regex fragment each, longest first so "grandson" is not read as "grand"
_RELATIONS = "|".join(
    sorted(vocabulary()["ordered_lists"]["relation_words"], key=len, reverse=True)
)
_NAME_WORD = r"[A-Z][a-zà-ÿ'’-]+(?:[A-Z][a-zà-ÿ'’-]+)?"  # "Ann", "McAllister"
_PERSON = lazy(
    # "my", and as it is said in dialect ("mi sister Marcia", "me brother", "mih niece"); a
    # relation opening a clause or after "with" needs none ("Daughter Sigrún", "with bestie Dinda")
    r"(?:\b(?i:my|our|mi|me|mih)\s+|(?:^|(?<=[.!?:;,(\n])|\b(?i:with))[ \t]*)"
    r"(?i:(?:best|old|new|little|big|older|younger|eldest|youngest)\s+)?"
    rf"(?P<r>(?i:{_RELATIONS}))(?:\s*,?\s+|(?:\s+(?i:is|was)|'s|’s)\s+(?i:called\s+)?)"
    rf"(?P<n>{_NAME_WORD}(?:\s+{_NAME_WORD})?)"
    rf"|(?P<n2>{_NAME_WORD}(?:\s+{_NAME_WORD})?)\s*,\s*(?i:my|our)\s+"
    rf"(?P<r2>(?i:{_RELATIONS}))\b"
)
_IS_RELATION = lazy(rf"(?i:{_RELATIONS})")


# A title before a name: the name without it ("Dr. Alvarez", "Mrs Fiona McAllister"), and the
# relation said right before, when one is ("landlord Mr Adeyemi", "my dentist is Dr Okafor")
_TITLED = lazy(
    rf"(?:\b(?P<r>(?i:{_RELATIONS}))(?:\s+(?i:is|=|:))?\s+)?"
    r"\b(?:Dr|Mr|Mrs|Ms|Miss|Prof|Capt|Sgt|Rev|Fr)\.?\s+"
    rf"(?P<n>{_NAME_WORD}(?:\s+{_NAME_WORD})?)"
)


def people(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A person with their relation to the user: {"name", "relationship"} ("my grandson
    Luka", "my mum is Ann Lee", "Priya, my colleague"); the relation as the vocabulary
    records it ("mum": mother); a titled name ("Dr Okafor") with its relation when said."""
    out, titled = _titled(text)
    said_as: dict[str, str] = vocabulary()["relations"]
    for m in _PERSON.finditer(text):
        name = (m["n"] or m["n2"]).strip()
        rel = (m["r"] or m["r2"]).lower()
        first = name.split()[0]
        if first in NOT_NAMES or not first[:1].isupper() or _IS_RELATION.fullmatch(first):
            continue
        if name.endswith(("'s", "’s")):
            name = name[:-2]
        rel = said_as.get(rel, rel)
        if m.start("n" if m["n"] else "n2") in titled:
            continue  # titled: read already
        out.append(Found({"name": name, "relationship": rel}, m.start(), m.end()))
    return sorted(out, key=lambda f: f.start)


def _titled(text: str) -> tuple[list[Found], set[int]]:
    """The titled names (`_TITLED`) and where each name starts."""
    said_as: dict[str, str] = vocabulary()["relations"]
    out, starts = [], set()
    for m in _TITLED.finditer(text):
        value = {"name": m["n"].rstrip(".'’")}
        if m["r"]:
            value["relationship"] = said_as.get(m["r"].lower(), m["r"].lower())
        out.append(Found(value, m.start(), m.end()))
        starts.add(m.start("n"))
    return out, starts


_VENUE = lazy(
    r"\b(?:at|in)\s+(?:the\s+)?(?P<n>[A-Z][\w&'’.-]*(?:\s+(?:[A-Z][\w&'’.-]*|de|da|do|la|le|"
    r"of|on|clinic|hospital|centre|center|hall|school|church|office|surgery|workshop|garage|"
    r"restaurant|cafe|café|hotel|stadium|park|gym|library)){0,4})"
)


def venues(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Where something takes place: a capitalised name after at/in ("at the Wythenshawe
    clinic"); else what the rules read as an event's place (one reader: a street, a kind of
    place in lower case, "at the design museum", a name with its number, a name standing
    alone as the last clause)."""
    said = _proper_names(_VENUE, text, places=True)
    if said:
        return said
    where = event_place(text)
    at = text.find(where) if where else -1
    return [Found(where, at, at + len(where))] if where and at >= 0 else []


_PROVIDER = lazy(
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
    (
        "weekly",
        r"weekly|every week|(?:every|each) "
        + _WEEKDAY
        + "|on "
        + _DAY
        + r"days\b"
        # a weekday said in the plural ("pottery, Wednesdays 6-8pm"), or two weekdays joined
        # as one ("tue + thu 19:00", "Mon/Wed", "tues thurs 7am", "MWF 0600")
        + r"|(?:mon|tues|wednes|thurs|fri|satur|sun)days\b"
        + rf"|{_DAY}(?:day)?\.?[ \t]?[+/&][ \t]?{_DAY}(?:day)?\b|{_DAY}[ \t]+{_DAY}\b"
        + r"|(?-i:MWF|MW|TTh)\b",
    ),
]
# how an event repeats, in the catalog's words (weekly, fortnightly, daily, ...)
repeats = labelled(_REPEATS)


_REACTION = lazy(
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
    # else a reaction word the rules know, wherever it is said ("came up in hives all over",
    # "just a rash"); never the vague ones ("a reaction", "sick")
    for m in _REACTION_WORD.finditer(text):
        if m[0].lower() not in ("sick", "a reaction") and not any(
            f.start <= m.start() < f.end for f in out
        ):
            out.append(Found(m[0], m.start(), m.end()))
    return sorted(out, key=lambda f: f.start)


_REACTION_WORD = lazy(rf"\b(?:{REACTION_WORDS})\b", re.I)


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


def _phrase_pattern(words: Iterable[str], extra: str = "") -> re.Pattern[str]:
    """One pattern of whole-word phrases, longest first ("type 2 diabetes" before
    "diabetes"), and the pattern `extra` as one more alternative."""
    alts = [
        r"\s+".join(re.escape(part) for part in w.split())
        for w in sorted({w.lower() for w in words if len(w) > 2}, key=len, reverse=True)
    ]
    return lazy(r"(?<![\w-])(?:" + "|".join(alts + [extra] * bool(extra)) + r")(?![\w-])", re.I)


def _phrases(pattern: re.Pattern[str], text: str) -> list[Found]:
    return [Found(" ".join(m[0].split()), m.start(), m.end()) for m in pattern.finditer(text)]


@functools.cache
def _condition_table() -> tuple[re.Pattern[str], dict[str, str]]:
    """Every name a condition goes by (the rules' list, the checks' condition families,
    pregnancy words, "diabetic"), and the name each is recorded as when it differs."""
    rules = health_rules()
    pregnancy = rules["pregnancy"]["condition_words"]
    adjectives: dict[str, str] = vocabulary()["condition_adjectives"]
    names = {
        *CONDITIONS.split("|"),
        *(w for words in rules["condition_family"].values() for w in words),
        *FOR_MY_NAMES,
        *pregnancy,
        *adjectives,
    }
    canonical = {w: "pregnancy" for w in pregnancy} | dict(FOR_MY_NAMES) | adjectives
    return _phrase_pattern(names), canonical


def conditions(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Health conditions as named ("type 2 diabetes", "hay fever"), recorded by the name the
    checks read ("pregnant" -> pregnancy, "blood pressure" -> hypertension)."""
    pattern, canonical = _condition_table()
    out = []
    for f in _phrases(pattern, text):
        key = f.value.lower()
        out.append(Found(canonical.get(key, key), f.start, f.end))
    return out


_VITAMIN = r"vitamins?\s+(?:[a-e]|k)\d{0,2}(?![\w-])|multivitamins?|fish\s+oil|cod\s+liver\s+oil"


@functools.cache
def _intake_table() -> tuple[re.Pattern[str], dict[str, str]]:
    """What one eats, drinks or takes as the interaction table names it, and its kind: a
    supplement as the table says, a drink when it is alcohol or a juice, else food."""
    kinds: dict[str, str] = {}
    for entry in health_rules()["intake"]:
        for word in entry["words"]:
            kind = entry["kind"]
            if kind == "food" and (entry["name"] == "alcohol" or word.endswith("juice")):
                kind = "drink"
            kinds.setdefault(word.lower(), kind)
    return _phrase_pattern(kinds, _VITAMIN), kinds


def intakes(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Foods, drinks and supplements the interaction checks know ("grapefruit juice", "St
    John's wort", "red wine"), and vitamins, as written."""
    return _phrases(_intake_table()[0], text)


def intake_kinds(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """The kind of each intake found: food, drink or supplement."""
    kinds = _intake_table()[1]
    return [
        Found(kinds.get(f.value.lower(), "supplement"), f.start, f.end)
        for f in intakes(text, today, prefer)
    ]


_UNIT = {"day": "days", "week": "weeks", "fortnight": "weeks", "month": "months", "year": "years"}
_TERM = lazy(
    r"\b(?P<n>\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
    r"|fourteen|twenty|thirty|sixty|ninety)[\s-](?P<u>days?|weeks?|fortnights?|months?|years?|yrs?)"
    r"\b",
    re.I,
)
_TERM_WORDS = {"a": 1, "an": 1, "fourteen": 14, "twenty": 20, "thirty": 30, "sixty": 60}


def terms(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A length of time said ("two-year", "14 days", "12 months"), as the day it ends counted
    from the message's day (a warranty bought today, a return window, an intro offer)."""
    out = []
    for m in _TERM.finditer(text):
        word = m["n"].lower()
        n = int(word) if word.isdigit() else _TERM_WORDS.get(word, _NUMBER_WORDS.get(word, 0))
        if word == "ninety":
            n = 90
        unit = _UNIT[m["u"].lower().rstrip("s").replace("yr", "year")]
        if m["u"].lower().startswith("fortnight"):
            n *= 2
        if n <= 0:
            continue
        out.append(Found((today + relativedelta(**{unit: n})).isoformat(), m.start(), m.end()))
    return out


_ORDINAL_WORDS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "fifteenth": 15,
    "twentieth": 20,
    "last": 31,
}
_DAY_OF_MONTH = lazy(
    r"\b(?:on|by|every|each)\s+(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)?\b(?!\s*(?:[-–/.:]\d"
    r"|%|am|pm|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)))"
    r"|\b(?:on\s+)?the\s+(?P<w>" + "|".join(_ORDINAL_WORDS) + r"|\d{1,2}(?:st|nd|rd|th))\s+"
    r"(?:day\s+)?of\s+(?:each|every|the)\s+month\b",
    re.I,
)


def days_of_month(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """The day of the month a repeating payment goes out: "on the 5th", "the 1st of each
    month", "the first of every month" (never a day with its month: "on 5 May")."""
    out = []
    for m in _DAY_OF_MONTH.finditer(text):
        raw = (m["d"] or m["w"]).lower()
        digits = re.match(r"\d+", raw)
        day = int(digits[0]) if digits else _ORDINAL_WORDS[raw]
        if 1 <= day <= 31:
            out.append(Found(day, m.start(), m.end()))
    return out


def day_periods(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A payment said to go out on a day of the month ("on the 1st") repeats monthly."""
    return [Found("monthly", f.start, f.end) for f in days_of_month(text, today, prefer)]


# how a payment is made, in the catalog's words
pay_methods = labelled(
    [
        ("standing_order", r"standing\s+orders?|dauerauftrag|(?-i:SO)"),
        # and as banks of other countries name it ("debit order", "prélèvement", "giro")
        (
            "direct_debit",
            r"direct\s+debits?|(?-i:DDs?)|auto-?pay|autopay|auto[\s-]?debit|automatic\s+debit"
            r"|pre-?authori[sz]ed\s+debit|debit\s+order|d[eé]bit[o]?\s+autom[aá]tico"
            r"|pr[eé]l[eè]vement|domiciliation|betalingsservice|lastschrift|giro",
        ),
        ("transfer", r"bank\s+transfer|transfers?|wire"),
        ("card", r"by\s+card|on\s+(?:my|the)\s+card"),
    ],
    word_end=True,
)


@functools.cache
def _account_kinds() -> Parser:
    table: dict[str, str] = vocabulary()["account_kinds"]
    by_kind: dict[str, list[str]] = {}
    for words, kind in table.items():
        by_kind.setdefault(kind, []).append(r"\s+".join(map(re.escape, words.split())))
    return labelled([(k, "|".join(v)) for k, v in by_kind.items()], word_end=True)


# A card with a credit limit, or one of the card brands that are credit cards, is a credit
# card ("my Amex has a £7,500 limit", "My Rakuten card limit is 500,000 yen")
_CREDIT_CARD = lazy(r"\b(?:amex|american express|barclaycard|card)\b", re.I)
_DEBIT = lazy(r"\bdebit\b", re.I)


def account_kinds(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A kind of account or card ("credit card", "savings account"): the catalog's word; a
    card said with a limit (never a debit card) or a credit-card brand is a credit card."""
    found = _account_kinds()(text, today, prefer)
    if found or _DEBIT.search(text):
        return found
    card = _CREDIT_CARD.search(text)
    brand = card is not None and card[0].lower() != "card"
    if card is not None and (brand or re.search(r"\blimit\b", text, re.I)):
        return [Found("credit_card", card.start(), card.end())]
    return []


_BANK = lazy(
    r"(?P<n>(?-i:[A-Z][\w&'’.-]*|[A-Z]{2,}))(?=\s+(?:current\s+|savings\s+|joint\s+|credit\s+"
    r"|debit\s+|business\s+)?(?:account|acct|card|overdraft|debit\s+card|credit\s+card)\b)"
    r"|\b(?i:with|at|from|on|of|my|the|is)\s+(?P<m>(?-i:[A-Z][\w&'’.-]*|[A-Z]{2,}))"
    # "Nubank gave me 0% ...", "Revolut send me message": a company opening what it did
    r"|(?:^|[.!?:]\s+)(?P<k>(?-i:[A-Z][\w&'’.-]+))\s+(?=(?i:gave|gives?|sent|sends?|offer\w*"
    r"|charg\w*|wants?|says?|said|told|emailed|texted|wrote)\b)"
)


def banks(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A bank or card issuer: a capitalised name before account/card ("the Santander
    account") or after with/at/from/on/my ("with Marcus", "my Amex")."""
    out = []
    for m in _BANK.finditer(text):
        group = next(g for g in ("n", "m", "k") if m[g])
        name = m[group].rstrip(".'’")
        if name in NOT_NAMES or name.lower() in {"visa", "mastercard", "i"} or lookup_place(name):
            continue
        if m.start(group) == 0 and group == "n" and name.lower() in {"my", "the", "new", "old"}:
            continue
        out.append(Found(name, m.start(group), m.start(group) + len(name)))
    return out


# the period a budget is set per, in the catalog's words (week, month, year)
budget_periods = labelled(
    [
        ("week", r"(?:a|per|each|every|/|the)\s?week|weekly|/wk|this\s+week"),
        ("month", r"(?:a|per|each|every|/|the)\s?month|monthly|/mo|pcm|this\s+month"),
        ("year", r"(?:a|per|each|every|/|the)\s?year|yearly|annual(?:ly)?|/yr|this\s+year"),
    ],
    word_end=True,
)


@functools.cache
def _category_words() -> re.Pattern[str]:
    return _phrase_pattern(w.strip() for w in _spending_index()[0])


_CATEGORY_BEFORE = lazy(r"(?P<c>\b[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*)?)\s+(?i:budget)\b")


@functools.cache
def _category_junk() -> frozenset[str]:
    return frozenset(vocabulary()["word_sets"]["budgets_category_junk"])


_CATEGORY_AFTER = lazy(r"\b(?:on|for)\s+(?:the\s+)?(?P<c>[a-z][a-z-]+(?:\s+[a-z][a-z-]+)?)")


def categories(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A spending category: a word of the reference table ("groceries", "eating out"), else
    the words after on/for ("on clothes")."""
    found = _phrases(_category_words(), text)
    if found:
        return found
    out = []
    junk = _category_junk()
    for m in _CATEGORY_BEFORE.finditer(text):  # "shopping budget", "Uber Eats budget"
        words = m["c"].split()
        while words and words[0].lower() in junk:
            words = words[1:]
        if words and words[-1].lower() not in junk:
            phrase = " ".join(words)
            at = text.find(phrase, m.start("c"))
            out.append(Found(phrase, at, at + len(phrase)))
    if out:
        return out
    for m in _CATEGORY_AFTER.finditer(text):
        words = m["c"].split()
        if words[0] in NOT_NAMES or words[0] in {"a", "an", "it", "that", "this", "me", "now"}:
            continue
        out.append(Found(m["c"], m.start("c"), m.end("c")))
    return out


# what a booking is for, in the catalog's words
booking_kinds = labelled(
    [
        ("car", r"car\s+hire|hire\s+car|rental\s+car|car\s+rental|rent(?:ed|ing)?\s+a\s+car"),
        # an airline, a flight number ("KQ 762", "EK30") or a route of airport codes ("BOS-FCO")
        (
            "flight",
            r"flights?|flying|fly|plane|airlines?|airways|(?-i:(?!AM|PM)[A-Z][A-Z\d])"
            r"(?:\d{2,4}|\s(?!(?:19|20)\d\d\b)\d{2,4})\b"
            r"|(?-i:[A-Z]{3})[ \t]?(?:[-–→>]|->)[ \t]?(?-i:[A-Z]{3})\b",
        ),
        ("train", r"trains?|eurostar|rail"),
        ("bus", r"coach|bus"),
        ("boat", r"ferry|ferries|boat|cruise"),
        (
            "hotel",
            r"hotels?|airbnb|villa|hostel|b&b|guesthouse|guest\s+house|apartment|check(?:ing)?[\s-]?in"
            r"|check[\s-]?out|riad|masseria|homestay|cabin|lodge|resort|chalet|motel|ryokan|inn\b",
        ),
    ],
    word_end=True,
)


_CODE = lazy(
    r"\b(?:number|no\.?|nr\.?|ref(?:erence)?|confirmation|conf|code|booking|reg(?:istration)?"
    r"|plate|pnr)\b(?:\s+(?:is|was|number|no\.?|code))?\s*[:#]?\s*"
    r"(?P<c>(?-i:[A-Z0-9]{2,4}\s[A-Z0-9]{3}(?![\w-])|[A-Z0-9][A-Z0-9-]{4,13}(?<!-)))",
    re.I,
)


def codes(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """An identifier said after number/ref/reference/confirmation/reg: letters and digits
    ("HLM-88213", "FT4471902", "LV19 KDT"), never a plain word or a short number."""
    out = []
    for m in _CODE.finditer(text):
        code = m["c"]
        if not re.search(r"\d", code) or (code.isdigit() and len(code) < 6):
            continue
        out.append(Found(code, m.start("c"), m.end("c")))
    return out


def cities(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Known cities, as a string."""
    return [
        Found(f.value["city"], f.start, f.end)
        for f in places(text, today, prefer)
        if f.value.get("city")
    ]


_FULL_NAME = lazy(
    r"(?<![\w-])(?P<n>(?:[A-Z][a-zà-ÿıİğşç'’-]+|[A-Z][A-Z'’-]+)(?:\s+(?:[A-Z][a-zà-ÿıİğşç'’-]+"
    r"|[A-Z][A-Z'’-]+|[A-Z]\.?)){1,3})(?![\w-])"
)


def full_names(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A full name: two to four capitalised or capital-letter words ("Rohan Krishnan Iyer",
    "HENRIETTA CLARE ASHWORTH-BLAKE"), never a sentence's opening word or a place."""
    out = []
    for m in _FULL_NAME.finditer(text):
        words = m["n"].split()
        while words and (words[0] in NOT_NAMES or words[0].lower() in _NAME_STOP):
            words = words[1:]
        if (
            len(words) < 2
            or lookup_place(" ".join(words))
            or any(w.lower() in _NAME_STOP for w in words)
        ):
            continue
        name = " ".join(words).rstrip("'’")  # "under 'Henrietta Blake'": the name, unquoted
        at = text.find(name, m.start())
        out.append(Found(name, at, at + len(name)))
    return out


_NAME_STOP = frozenset(
    {"i", "my", "the", "passport", "name", "ok", "okay", "hi", "hello", "also", "and", "but"}
)


@functools.cache
def _vehicle_words() -> tuple[re.Pattern[str], re.Pattern[str], dict[str, str], dict[str, str]]:
    words = vocabulary()
    makes: dict[str, str] = words["vehicle_makes"]
    models: dict[str, str] = words["vehicle_models"]
    return _phrase_pattern(makes), _phrase_pattern(models), makes, models


def vehicle_makes(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A vehicle's make: the make of a model named ("a Golf" -> Volkswagen), else a make
    said ("my Skoda")."""
    make_re, model_re, makes, models = _vehicle_words()
    named = [Found(models[f.value.lower()], f.start, f.end) for f in _phrases(model_re, text)]
    return named or [Found(makes[f.value.lower()], f.start, f.end) for f in _phrases(make_re, text)]


# The word after a make that names its model: a capitalised word or a code ("Kenworth T610",
# "Nissan NP300", "Peterbilt 579", "BMW 320d"), in lower case after a make written so ("mazda
# demio"); never a year, a count or an everyday word ("my Honda is", "Toyota from 2014")
_MODEL_AFTER = lazy(r"[ \t]+(?P<m>[A-Za-z][\w-]{1,15}|\d{2,4}[a-zA-Z]{0,2})\b(?![.,]\d)")
_NOT_MODELS = frozenset(
    (
        "car",
        "cars",
        "truck",
        "van",
        "bike",
        "motorbike",
        "model",
        "dealer",
        "dealership",
        "service",
        "garage",
        "insurance",
        "finance",
        "account",
        "card",
        "app",
        "hybrid",
        "diesel",
        "petrol",
        "electric",
        "automatic",
        "manual",
    )
)


def _after_make(text: str) -> list[Found]:
    out = []
    for make in _phrases(_vehicle_words()[0], text):
        m = _MODEL_AFTER.match(text, make.end)
        if m is None:
            continue
        said = m["m"]
        lower = said[0].islower() and not make.value.islower()
        if said.isdigit() and (len(said) < 3 or _MODEL_YEAR.fullmatch(said)):
            continue  # a count or a year, not a model ("Toyota 2016")
        if lower or said.lower() in _NOT_MODELS or said in NOT_NAMES or _STOP.fullmatch(said):
            continue
        out.append(Found(said, m.start("m"), m.end("m")))
    return out


_STOP = lazy(
    r"(?i:is|was|has|had|in|on|at|from|for|of|and|or|with|to|the|a|an|my|our|its|it|that|this|"
    r"which|who|now|but|so|next|last|new|old|got|gets|needs?|went|goes|just|also|again|too)"
)


def vehicle_models(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A vehicle model the vocabulary knows, as written ("Fiesta", "land cruiser"), else the
    word after a make that names its model (`_MODEL_AFTER`)."""
    return _phrases(_vehicle_words()[1], text) or _after_make(text)


def vehicles(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Which vehicle: its model when named, else its make."""
    return vehicle_models(text, today, prefer) or _phrases(_vehicle_words()[0], text)


_MODEL_YEAR = lazy(r"(?<![\w/.,:-])(?:19[6-9]\d|20[0-4]\d)(?![\w/:-]|[.,]\d|\s*[-–]\s*\d)")


def model_years(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A four-digit year said bare, not as part of a date ("a 2017 Fiesta", "from 2019")."""
    taken = [(d.start, d.end) for d in find_dates(text, today, prefer)]
    return [
        Found(int(m[0]), m.start(), m.end())
        for m in _MODEL_YEAR.finditer(text)
        if not any(a <= m.start() < b and b - a > 4 for a, b in taken)
    ]


_DISTANCE = lazy(
    r"(?P<n>\d{1,3}(?:[,.\s]\d{3})+|\d{4,7})(?P<k>k)?\s*(?P<u>km\b|kms\b|k's|ks\b|kilomet\w*"
    r"|miles?\b|mi\b|on\s+the\s+clock|hours\b)?",
    re.I,
)


def distances(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """An odometer reading in whole km: "78,400 km", "412,300 k's", "112.400 km", "at
    72,000" (grouped thousands after at); miles are converted, engine hours are not km."""
    out = []
    for m in _DISTANCE.finditer(text):
        unit = (m["u"] or "").lower()
        grouped = not m["n"].isdigit()
        before = text[max(0, m.start() - 4) : m.start()].lower()
        if unit.startswith("hour") or not (unit or (grouped and before.endswith("at "))):
            continue
        if any(ch in m["n"] for ch in "£$€"):
            continue
        number = parse_number(re.sub(r"[,.\s]", "", m["n"]))
        if number is None:
            continue
        km = int(number) * (1000 if m["k"] and not grouped else 1)
        if unit.startswith("mi"):
            km = round(km * 1.609344)
        if 100 <= km <= 3_000_000:
            out.append(Found(km, m.start(), m.end()))
    return out


_RATE = lazy(r"(?<![\w.])\d{1,2}(?:[.,]\d{1,2})?\s?%")


def rates(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A percentage ("0%", "29.9%") or a price ("£52", "59.90"), as written."""
    out = [Found(m[0], m.start(), m.end()) for m in _RATE.finditer(text)]
    for f in amounts(text, today, prefer):
        if not any(o.start <= f.start < o.end for o in out):
            out.append(Found(text[f.start : f.end], f.start, f.end))
    return sorted(out, key=lambda f: f.start)


_ITEM_WORD = r"[A-Za-z][\w'&.-]*"
_ITEM_STOP = frozenset(
    {"it", "this", "that", "they", "them", "one", "stuff", "thing", "things", "something"}
)
_ITEM = lazy(
    # "The laptop has a two-year warranty", "The Uniqlo jacket can be returned"
    r"(?:^|[,;:]\s*|\band\s+)(?i:the|my|our|this|that)\s+(?P<s>(?:"
    + _ITEM_WORD
    + r"\s+){0,2}?"
    + _ITEM_WORD
    + r")\s+(?i:i\s+(?:bought|got|ordered)|has|have|comes?|came|can|could|is\s+under|'s\s+got"
    r"|is\s+covered|is\s+guaranteed)\b"
    # "bought a dishwasher from Currys", "ordered a sofa from Made.com"
    r"|\b(?i:bought|ordered|purchased|picked\s+up)\s+(?:(?i:a|an|the|my|our|some|new|me)\s+)*"
    r"(?P<b>" + _ITEM_WORD + r"(?:\s+(?!(?i:from|at|for|in|on|online|today|yesterday|last|this"
    r"|with|and|off)\b)" + _ITEM_WORD + r"){0,2})"
)


def items(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """A thing bought: the subject of what it has or can do ("The laptop has ...", "The air
    fryer can go back ...") or what was bought ("bought a dishwasher from ..."); never a
    pronoun ("It comes with ..." names no item: the one before it does)."""
    out = []
    for m in _ITEM.finditer(text):
        group = "s" if m["s"] else "b"
        phrase = m[group].rstrip(".,'’")
        if phrase.split()[0].lower() in _ITEM_STOP or phrase.lower() in _ITEM_STOP:
            continue
        out.append(Found(phrase, m.start(group), m.start(group) + len(phrase)))
    return out


_PAYEE_TO = lazy(
    # "a standing order to Mum", "rent to DUWO is 612,50 per month"
    r"\b(?i:standing\s+order|payment|transfer|rent|money)\s+(?:of\s+\S+\s+)?(?i:to)\s+"
    r"(?:(?i:my|our|the)\s+)?(?P<n>[A-Za-z][\w'&-]*(?:\s+[A-Z][\w'&-]*)?)"
)
_PAYEE_BEFORE = lazy(
    # "the gym direct debit", "council tax DD", "rent standing order", "my phone bill is"
    r"(?P<n>(?:[A-Za-z][\w'&-]*\s+)?[A-Za-z][\w'&-]*)\s+(?=(?i:direct\s+debit|(?-i:DD)"
    r"|standing\s+order|bill|subscription|instal?ments?)\b)"
)
_PAYEE_STOP = frozenset(
    {
        "a",
        "an",
        "the",
        "my",
        "our",
        "up",
        "set",
        "is",
        "its",
        "it's",
        "this",
        "that",
        "and",
        "also",
        "by",
        "on",
        "of",
        "as",
        "new",
        "monthly",
        "pay",
        "paid",
        "from",
        "via",
        "per",
    }
)


@functools.cache
def _bill_payees() -> re.Pattern[str]:
    return _phrase_pattern(vocabulary()["word_sets"]["bill_payees"])


def payees(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Who or what a payment instruction pays: "to Mum" after a standing order or payment,
    else the words before "direct debit", "standing order", "DD" or "bill" ("the gym direct
    debit", "council tax DD", "my phone bill"), else what the payment is for when it names
    no payee ("rent 890 € goes every month": vocabulary bill_payees)."""
    out = []
    for m in [*_PAYEE_TO.finditer(text), *_PAYEE_BEFORE.finditer(text)]:
        group = "n"
        words = m[group].split()
        while words and words[0].lower() in _PAYEE_STOP:
            words = words[1:]
        if not words or words[-1].lower() in _PAYEE_STOP:
            continue
        phrase = " ".join(words)
        at = text.find(phrase, m.start(group))
        out.append(Found(phrase, at, at + len(phrase)))
    if not out:
        for bill in _phrases(_bill_payees(), text):
            # the company a bill is paid to, said before it ("USAA car insurance")
            named = _NAMED_BEFORE.search(text, 0, bill.start)
            if named and named["n"] not in NOT_NAMES and named["n"].lower() not in _PAYEE_STOP:
                bill = Found(f"{named['n']} {bill.value}", named.start("n"), bill.end)
            out.append(bill)
    return sorted(out, key=lambda f: f.start)


_NAMED_BEFORE = lazy(r"(?P<n>[A-Z][\w&'-]*)\s+$")


_BESIDE = 25  # characters between a value and the word it must be said beside


def emails(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Email addresses, as written (the rules' pattern)."""
    return [
        Found(m[0].rstrip("."), m.start(), m.start() + len(m[0].rstrip(".")))
        for m in EMAIL.finditer(text)
    ]


def phones(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
    """Phone numbers, as written (the rules' pattern): seven digits or more, never a date
    ("2031-03-10") nor an amount. Declare them beside their word ("phone@number|mobile")."""
    out = []
    for m in PHONE.finditer(text):
        digits = sum(ch.isdigit() for ch in m[0])
        if digits >= 7 and not _ISO_DAY.fullmatch(m[0].strip()):
            out.append(Found(m[0].strip(), m.start(), m.start() + len(m[0].strip())))
    return out


_ISO_DAY = lazy(r"\d{4}-\d{1,2}-\d{1,2}")


def beside(kind: Parser, words: tuple[str, ...]) -> Parser:
    """The values of a parser said within a few words of one of `words` (either side), the
    nearest first ("2 year guarantee and 35 days to return": the guarantee's is 2 years)."""
    pattern = lazy("|".join(re.escape(w) for w in words), re.I)

    def parse(text: str, today: dt.date, prefer: Prefer) -> list[Found]:
        marks = [(m.start(), m.end()) for m in pattern.finditer(text)]
        near = []
        for f in kind(text, today, prefer):
            gaps = [max(s - f.end, f.start - e, 0) for s, e in marks]
            if gaps and min(gaps) <= _BESIDE:
                near.append((min(gaps), f.start, f))
        return [f for _, _, f in sorted(near, key=lambda g: g[:2])]  # the nearest first

    return parse


PARSERS: dict[str, Parser] = {
    "date": dates,
    "venue": venues,
    "provider": providers,
    "repeats": repeats,
    "reaction": reactions,
    "email": emails,
    "phone": phones,
    "purpose": purposes,
    "datetime": datetimes,
    "money": money,
    "amount": amounts,
    "sum": sums,
    "currency": currencies,
    "period": periods,
    "topic": topics,
    "name": names,
    "service": services,
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
    "condition": conditions,
    "intake": intakes,
    "intake_kind": intake_kinds,
    "term": terms,
    "day_of_month": days_of_month,
    "day_period": day_periods,
    "pay_method": pay_methods,
    "account_kind": account_kinds,
    "bank": banks,
    "budget_period": budget_periods,
    "category": categories,
    "booking_kind": booking_kinds,
    "code": codes,
    "city": cities,
    "full_name": full_names,
    "vehicle_make": vehicle_makes,
    "vehicle_model": vehicle_models,
    "vehicle": vehicles,
    "model_year": model_years,
    "distance_km": distances,
    "rate": rates,
    "item": items,
    "payee": payees,
}


@functools.cache  # an enum's pattern is compiled once, not on every sentence
def parser(kind: str) -> Parser:
    """The parser of a slot type (`enum:a|b` builds one, `KIND@w1|w2` keeps the values of
    KIND said beside one of the words); KeyError names an unknown type."""
    if "@" in kind and not kind.startswith("enum:"):
        base, words = kind.split("@", 1)
        return beside(parser(base), tuple(w.lower() for w in words.split("|")))
    if kind.startswith("enum:"):  # the catalog enum's own spelling
        return labelled(
            [(v, re.escape(v)) for v in kind.removeprefix("enum:").split("|")], word_end=True
        )
    return PARSERS[kind]


def as_decimal(value: Any) -> Decimal:
    """A parsed number as an exact Decimal (money and quantities)."""
    return Decimal(str(value))
