"""Abstention: a candidate whose sentence says more than it holds becomes a hint, not a fact.

A stage of the write pipeline after every extractor (rules and frames alike) and before the
gate. New writers defeat the extractors most often not by a fact invented from nothing but by
a stated fact read half or with a value in the wrong role: "Chinese visa collected, valid
till 25-05-2027" read as a visa with no end date, "I fly to Madrid the 3 of March ... the
return is the 2 of April" read as a trip with no return. A half-read record is worse than
none for a memory that fires alerts (a visa with no end never warns; a trip with no return
blocks the wrong days), and a calling agent can record it whole when told what was seen.

The test is the frame's own slot filler (extraction/frames.py, data in fact_log/frames.toml)
run over the candidate's sentence: when it reads a typed value (a date, an amount, a dose, a
reaction, a phone number, ...) for a field the candidate leaves empty, and no candidate of
the message carries that value, the
roles of the sentence's values are undecided: the candidate is withheld and returned as a
hint naming the path, what was read and the competing values. Corrections, endings and
paths no frame declares pass unchanged.

A field the record fills is tested too (`_contested`): a sentence that says several days or
amounts leaves an extractor free to put the wrong one in a field ("the summit runs 14 to 17
June, I fly out on the 13th" read as a trip leaving on the 14th), a false fact that looks
whole. A value of the field's type that no candidate of the message carries competes when it
is said in the clause of one of the record's own values or in a clause that says what the
record is about (its frame's cues); a day the record computes from one said ("four weeks
before 30 June") accounts for that one. A competitor left over makes the record a hint with
every value, and so does a destination said only as where one leaves ("Birmingham to
Kingston" read as a trip to Birmingham).

A value said as alternatives ("on the 14th or 15th", "March 5 or March 15", "£40, maybe
£45", "2 or 3 tablets") is no value at all: whichever one an extractor picked, it guessed.
Any candidate (a record or a single attribute) whose quote takes in such a pair and holds a
number or a date is withheld the same way, its hint quoting the alternatives, so the user
can be asked instead of a day being made up.

An amount said without its currency takes the one currency its writer named, in the message
or the session's latest earlier message that names one (`with_currency`): people say their
currency once, and a payment with no currency is half a record.

A record kept whole is completed, never withheld, with a value said once beside it
(`_said_beside`): a typed value of its sentence when the frame could not read the sentence
whole (the rules read the key), the place an event happens, and a typed value of the sentence
right after it when that sentence is no record of its own ("Allergy: ragweed. Wheezing.").
A drug the user takes beside one named condition records that condition
(`with_treated_condition`), and a task goal read as one verb takes the object said before
the subject (`with_fronted_object`: "the tourist tax I must pay").
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction import assign
from uac.fact_log.extraction.candidate import Candidate
from uac.fact_log.extraction.lazy import compile_kept, lazy
from uac.fact_log.extraction.patterns.text import clause_span, sentences, someone_else
from uac.fact_log.extraction.slots import parser
from uac.fact_log.extraction.timemodel import MONTHS
from uac.fact_log.extraction.timemodel.roles import role
from uac.fact_log.extraction.values.money import find_money
from uac.fact_log.extraction.values.roles import place_role
from uac.fact_log.reference import vocabulary

# Slot types whose values have one role each in a record: a left-over one means a role
# undecided. Free-text types (names, places, titles) are not compared: they overlap.
TYPED = frozenset(
    {
        "date",
        "datetime",
        "amount",
        "sum",
        "weight_kg",
        "dose",
        "reaction",
        "phone",
        "email",
        "distance_km",
        "rate",
        "day_of_month",
    }
)
_ISO = compile_kept(r"^\d{4}-\d{2}-\d{2}")
_NUMERIC = compile_kept(r"[\d.:T-]+")
_DAY_MONTH = compile_kept(r"(?:0?[1-9]|[12]\d|3[01])[./](?:0?[1-9]|1[0-2])")
# "my wife and I fly", "in July I go with my wife", "she put me on", "my sister booked us
# both": the user is a subject or the one the fact is done to
_USER_TOO = compile_kept(r"\b(?:I|we|me|us|myself)\b", re.I)
# a month's name or its short form, as the time model reads them ("sept" too)
_MONTH = "(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"
# Two values offered as alternatives: a number, an ordinal day or a month name, then "or"
# (or a hedge: "maybe", "perhaps", "possibly"), then another number, amount or month-and-day.
_ALTERNATIVES = lazy(
    rf"(?:\d(?:st|nd|rd|th)?|\b{_MONTH})\.?(?:\s*,)?\s+"
    r"(?:or(?:\s+(?:maybe|perhaps|possibly|even))?|maybe|perhaps|possibly)\s+"
    rf"(?:on\s+)?(?:the\s+)?(?:[£$€¥]\s?\d|\d|{_MONTH}\s+\d)",
    re.I,
)
_NAMED = lazy(rf"{_MONTH}|\d{{4}}", re.I)  # a month or a year beside alternatives
_DAY_ONLY = compile_kept(r"\d{4}-\d{2}-\d{2}(?:T00:00(?::00)?)?")
_VALUE_LEAF = compile_kept(r"^[\d.-]+$|^\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True, slots=True)
class Undecided:
    """A withheld candidate and the values its sentence holds beside it."""

    candidate: Candidate
    sentence: str
    left: dict[str, Any]  # field -> the value the frame's filler read for it
    alternatives: str = ""  # the words offering two values ("14th or 15th"), if that is why

    def hint(self) -> dict[str, Any]:
        """What a calling agent may record with the typed tool, and why it was not."""
        path = self.candidate.path
        value = self.candidate.value
        read = value if isinstance(value, dict) else {}
        if self.alternatives:
            return {
                "path": path,
                "fields": sorted(read),
                "quote": self.sentence,
                "read": _shown(value),
                "alternatives": self.alternatives,
                "hint": f"this message may state {path} but offers alternatives "
                f"({self.alternatives!r}); ask which one holds, then call the record tool "
                f"with path {path!r} and the value the user confirms",
            }
        fields = ", ".join(f"{k}={_shown(v)}" for k, v in sorted(self.left.items()))
        return {
            "path": path,
            "fields": sorted({*read, *self.left}),
            "quote": self.sentence,
            "read": {k: _shown(v) for k, v in sorted(read.items())},
            "candidates": {k: _shown(v) for k, v in sorted(self.left.items())},
            "hint": f"this message may state {path} but which value goes where is unclear "
            f"(read {_shown(read)}; also said: {fields}); if it does, call the record tool "
            f"with path {path!r} and the whole record",
        }


def abstain(
    catalog: Catalog, text: str, candidates: Sequence[Candidate], today: dt.date
) -> tuple[list[Candidate], list[Undecided]]:
    """The candidates kept, and those withheld because their sentence leaves a role
    undecided (`Undecided`, each with its hint)."""
    from uac.fact_log.extraction import frames  # its module loads only when a message is read

    by_path: dict[str, list[Any]] = {}
    for frame in frames.active_frames():
        by_path.setdefault(frame.path, []).append(frame)
    carried = {leaf for c in candidates for leaf in _leaves(c.value)}
    spans = list(sentences(text))
    kept: list[Candidate] = []
    withheld: list[Undecided] = []
    for cand in candidates:
        sentence = next((s for s in spans if s.start <= cand.start < s.end), None)
        offered = _offered(cand, sentence.start, sentence.text) if sentence else ""
        if offered and sentence is not None:
            withheld.append(Undecided(cand, sentence.text, {}, offered))
            continue
        twice = _one_day_twice(cand.value, sentence.text, today) if sentence else {}
        if twice and sentence is not None:
            withheld.append(Undecided(cand, sentence.text, twice))
            continue
        if _half_stay(cand) and sentence is not None:
            withheld.append(Undecided(cand, sentence.text, {"end": [], "place": []}))
            continue
        if (
            sentence is None
            or cand.op != "assert"
            or cand.replaces is not None
            or catalog.collection(cand.path) is None
            or not isinstance(cand.value, dict)
        ):
            kept.append(cand)
            continue
        frames_of = by_path.get(cand.path, ())
        changes: dict[str, Any] = {}
        window = sentence.text
        if assign.available():  # which said value fills which field, learned
            at = spans.index(sentence)
            window = text[
                sentence.start : spans[at + 1].end if at + 1 < len(spans) else sentence.end
            ]
            own = (0, len(sentence.text))
            changes = assign.assigned(
                catalog,
                cand.path,
                cand.value,
                window,
                today,
                frames_of,
                frozenset(carried),
                own=own,
            )
            if changes:
                cand = _completed(cand, text, sentence.start, changes)
        left = _left_over(frames_of, cand.value, sentence.text, today, carried)
        if not left or all(span is not None for _value, span in left.values()):
            if left:
                cand = _completed(cand, text, sentence.start, left)
            held = carried | set(_leaves(cand.value))
            contested = _contested(frames_of, cand.value, sentence.text, today, held)
            if not contested and changes and not _all_said_with_a_role(changes, window):
                # a value the assignment placed settles a contest only when its words say
                # its role ("until 30 June"); "after the jab on Thursday" says none
                read = {k: v for k, v in cand.value.items() if k not in changes}
                held = carried | set(_leaves(read))
                contested = _contested(frames_of, read, sentence.text, today, held)
            if contested:
                withheld.append(Undecided(cand, sentence.text, contested))
                continue
            more = _said_beside(frames_of, cand, spans, candidates, today, carried)
            kept.append(_completed(cand, text, 0, more) if more else cand)
        else:
            shown = {field: value for field, (value, _span) in left.items()}
            withheld.append(Undecided(cand, sentence.text, shown))
    return kept, withheld


def _all_said_with_a_role(changes: dict[str, Any], window: str) -> bool:
    """Whether every value the assignment placed was said with words that give its role
    (a start or an end: "from", "until", "expires"; timemodel/roles.py)."""
    return all(role(window, found.start) is not None for _value, found in changes.values())


def with_currency(
    catalog: Catalog,
    text: str,
    candidates: Sequence[Candidate],
    history: Sequence[tuple[str, Any]] = (),
) -> list[Candidate]:
    """The candidates, a record's amount said without a currency given the one currency its
    writer names: in the same message, else in the session's latest earlier message that
    names any ("Salary came, KES 148,500. Paid the rent 45,000"; "my salary came in,
    €2.770" then "rent is 612,50 per month"). People say their currency once; a record of a
    path with a currency field that holds an amount and no currency is otherwise a half
    record. Two currencies named in the nearest message that names one decide nothing, and
    an amount said with a currency word several countries use ("kr", "pesos") is left as
    said."""
    if not any(_needs_currency(catalog, c) for c in candidates):
        return list(candidates)
    named = _named_currency(text, history)
    if named is None:
        return list(candidates)
    out = []
    for cand in candidates:
        if _needs_currency(catalog, cand) and not _UNNAMED_CURRENCY.search(cand.quote):
            cand = replace(cand, value={**cand.value, "currency": named})
        out.append(cand)
    return out


def with_treated_condition(text: str, candidates: Sequence[Candidate]) -> list[Candidate]:
    """The candidates, and for a medication the user takes whose sentence names one condition
    (the reference tables' names: "ramipril ..., doctor says blood pressure is high", "statin
    ... because cholesterol is 7.1"), that condition as the user's, unless a candidate of the
    message records it already: a drug taken for a condition says the user has it, as
    "started on warfarin for atrial fibrillation" does. A sentence naming two conditions
    decides nothing."""
    had = {
        str(c.value.get("name", "")).casefold()
        for c in candidates
        if c.path == "health.conditions" and isinstance(c.value, dict)
    }
    out = list(candidates)
    spans = list(sentences(text))
    for cand in candidates:
        if (
            cand.path != "health.medications"
            or cand.op != "assert"
            or cand.replaces is not None
            or not isinstance(cand.value, dict)
        ):
            continue
        sentence = next((s for s in spans if s.start <= cand.start < s.end), None)
        if sentence is None:
            continue
        named = parser("condition")(sentence.text, dt.date(2000, 1, 1), "past")
        if len({str(f.value).casefold() for f in named}) != 1:
            continue
        found = named[0]
        name = str(found.value)
        if name.casefold() in had or any(
            name.casefold() in h or h in name.casefold() for h in had if h
        ):
            continue
        had.add(name.casefold())
        start = sentence.start + found.start
        out.append(
            Candidate(
                cand.kind,
                "health.conditions",
                {"name": name},
                "assert",
                text[start : sentence.start + found.end],
                start,
                min(cand.confidence, 0.75),
            )
        )
    return out


# "the tourist tax I must pay", "The licence for the hostel, I must renew": the object said
# before the subject and the verb of obligation
_FRONTED = lazy(
    r"(?P<head>.+?)[,;]?\s+(?:i|we)\s+(?:must|have\s+to|need\s+to|should|got\s+to)\s+"
    r"(?P<verb>[a-z]+)\b",
    re.I,
)
_HEAD_BREAK = lazy(r"[,;:]|\bthat\b", re.I)


def with_fronted_object(text: str, candidates: Sequence[Candidate]) -> list[Candidate]:
    """The candidates, a task whose goal is one verb ("Pay", "Renew") given the object its
    sentence says before the subject ("the tourist tax I must pay until 31.1." is "Pay the
    tourist tax"): a goal that names no thing is half a goal, and the thing is fronted."""
    spans = list(sentences(text))
    out = []
    for cand in candidates:
        goal = cand.value.get("goal") if isinstance(cand.value, dict) else None
        sentence = next((s for s in spans if s.start <= cand.start < s.end), None)
        if (
            cand.path == "tasks.tasks"
            and isinstance(goal, str)
            and re.fullmatch(r"[^\W\d_]+", goal)
            and sentence is not None
            and (m := _FRONTED.search(sentence.text)) is not None
            and m["verb"].casefold() == goal.casefold()
        ):
            obj = _HEAD_BREAK.split(m["head"])[-1].strip()
            if re.search(r"[^\W\d_]{3}", obj) and not _USER_TOO.search(obj):
                obj = re.sub(r"^(?:The|A|An)\b", lambda a: a[0].lower(), obj)
                cand = replace(cand, value={**cand.value, "goal": f"{goal} {obj}"})
        out.append(cand)
    return out


def without_subsumed(catalog: Catalog, candidates: Sequence[Candidate]) -> list[Candidate]:
    """The candidates less each record another record of the message says whole and more
    (a visa read once as {"country": "CN"} and once with its entries and end; a trip read by
    the rules with its purpose and by the frames without): a record that adds nothing to one
    beside it is the same statement read twice. Records equal in every field are kept (two
    identical charges are two facts)."""
    records = [
        c
        for c in candidates
        if c.op == "assert"
        and c.replaces is None
        and isinstance(c.value, dict)
        and catalog.collection(c.path) is not None
    ]

    def within(small: Candidate, big: Candidate) -> bool:
        a, b = small.value, big.value
        return (
            small.path == big.path
            and len(a) < len(b)
            and all(k in b and _same_value(a[k], b[k]) for k in a)
        )

    dropped = {id(c) for c in records if any(within(c, o) for o in records if o is not c)}
    return [c for c in candidates if id(c) not in dropped]


def _same_value(a: Any, b: Any) -> bool:
    return set(_leaves(a)) == set(_leaves(b))


# The words for a currency several countries use ("kr", "pesos": vocabulary.toml)
_UNNAMED_CURRENCY = lazy(
    r"\b(?:" + "|".join(vocabulary()["word_sets"]["money_unnamed_currency_words"]) + r")\b",
    re.I,
)
_MONEY_FIELDS = ("amount", "cost", "limit", "per_transaction_limit", "daily_limit")


def _needs_currency(catalog: Catalog, cand: Candidate) -> bool:
    """Whether a record holds an amount, no currency, and its path has a currency field."""
    if cand.op != "assert" or not isinstance(cand.value, dict) or cand.value.get("currency"):
        return False
    coll = catalog.collection(cand.path)
    if coll is None or "currency" not in coll.spec.fields:
        return False
    return any(cand.value.get(f) is not None for f in _MONEY_FIELDS)


def _named_currency(text: str, history: Sequence[tuple[str, Any]]) -> str | None:
    """The one currency the message names, else the one named by the session's latest
    earlier message that names any; None when there is none or that message names two."""
    for said in (text, *(t for t, _at in reversed(history))):
        named = {m.currency for m in find_money(said) if m.currency}
        if named:
            return named.pop() if len(named) == 1 else None
    return None


def _half_stay(cand: Candidate) -> bool:
    """Whether a hotel booking holds its first night and neither its last nor where: a stay is
    its nights and its place ("Homestay booked 3 nights", "pension goes in on the 28th" read
    as a hotel), and one with neither covers no night a check can read."""
    value = cand.value
    return (
        cand.path == "travel.bookings"
        and cand.op == "assert"
        and cand.replaces is None
        and isinstance(value, dict)
        and value.get("kind") == "hotel"
        and not value.get("end")
        and not value.get("place")
    )


def _one_day_twice(value: Any, sentence: str, today: dt.date) -> dict[str, Any]:
    """The date fields of a record that hold one day its sentence says once ("checkout is 1
    jun" read as a trip leaving and coming back on 1 June): a day said once has one role,
    so which field it fills is undecided. {} when the fields' days differ or are said as
    often as they are held."""
    if not isinstance(value, dict):
        return {}
    days: dict[str, list[str]] = {}
    for field, v in value.items():
        shown = v.isoformat() if isinstance(v, dt.date) else str(v)
        if isinstance(v, dt.date | str) and _DAY_ONLY.fullmatch(shown):  # times are told apart
            days.setdefault(shown[:10], []).append(field)
    twice = {day: fields for day, fields in days.items() if len(fields) > 1}
    if not twice:
        return {}
    said: dict[str, set[tuple[int, int]]] = {}  # a day -> where the sentence says it
    for prefer in ("past", "future"):
        for f in parser("date")(sentence, today, prefer):
            said.setdefault(str(f.value)[:10], set()).add((f.start, f.end))
    return {
        field: day
        for day, fields in twice.items()
        if len(said.get(day, ())) < len(fields)
        for field in fields
    }


def _offered(cand: Candidate, offset: int, sentence: str) -> str:
    """The alternatives ("14th or 15th") inside the candidate's quote when it holds a number
    or a date they could have given; "" when there are none (a correction is its own
    answer and passes)."""
    if cand.op != "assert" or cand.replaces is not None:
        return ""
    if not any(_VALUE_LEAF.match(leaf) for leaf in _leaves(cand.value)):
        return ""
    for m in _ALTERNATIVES.finditer(sentence):
        if offset + m.start() < cand.end and cand.start < offset + m.end():
            return _whole_words(sentence, m.start(), m.end())
    return ""


def _whole_words(sentence: str, start: int, end: int) -> str:
    """The words the span cuts into, whole, with a month or a year named just before or
    after them ("March 5 or March 15 2031", "19 or 20 April"), without closing punctuation."""
    words = list(re.finditer(r"[^\s,;:!?]+?(?=[.]?(?:[\s,;:!?]|$))", sentence))
    first = next(i for i, w in enumerate(words) if w.end() > start)
    last = max(i for i, w in enumerate(words) if w.start() < end)
    if first > 0 and _NAMED.fullmatch(words[first - 1][0]):
        first -= 1
    while last + 1 < len(words) and _NAMED.fullmatch(words[last + 1][0]):
        last += 1
    return sentence[words[first].start() : words[last].end()]


def _completed(
    cand: Candidate, text: str, offset: int, left: dict[str, tuple[Any, Any]]
) -> Candidate:
    """The candidate with the values only one reading of its sentence gives, its quote
    widened to cover them (the evidence stage verifies it like any other)."""
    start = min([cand.start, *(offset + span.start for _v, span in left.values())])
    end = max([cand.end, *(offset + span.end for _v, span in left.values())])
    value = {**cand.value, **{field: v for field, (v, _span) in left.items()}}
    return replace(cand, value=value, quote=text[start:end], start=start)


def refuse(
    text: str, candidates: Sequence[Candidate], today: dt.date | None = None
) -> list[tuple[str, Candidate]]:
    """The candidates no extractor may turn into the user's fact, each with its reason, applied
    the same way to every extractor's candidates (the rules guard pattern by pattern, the
    frames window by window; this is the one check after both):

    someone_else   the words before the value name another person as the subject, and the
                   user is neither a subject nor the object ("my nephew goes back to Arequipa
                   on the 1st"; not "my wife and I fly", "she put me on"); a contact is about
                   another person by definition and is never refused for it
    value_is_date  a number the record holds is said only as a day ("Netflix: cancelled
                   27.11."): an amount of 27.11 read from a date
    empty_value    a title, goal, place, merchant or payee made only of words that name
                   nothing ("it", "Before", "again", "Friday": vocabulary.toml
                   `empty_values`) and numbers ("Every Wednesday", "ends 30 nov"): the slot
                   was filled with the wrong words
    other_item     a medication, intake or allergy naming an item the message does not
                   say (borrowed from an earlier message) while the message names another
                   drug, allergen or supplement: the message is about that one
    reported_day   an event on the message's own day (`today`) with no time of day: the
                   day being told about ("the MRI was done today", "I brought the car to
                   the workshop today"), not an appointment to keep
    question       the clause that says the record's value is the question closing its
                   sentence, asked by its form ("Also started melatonin?", "is it ok to
                   drink my wine with this?"): asked, not stated ("..., valid until May, is
                   that enough?" states the day in a clause of its own, and "Spotify is
                   19.99 now??" is surprise in a statement's order: both kept)
    """
    spans = list(sentences(text))
    out: list[tuple[str, Candidate]] = []
    for cand in candidates:
        sentence = next((s for s in spans if s.start <= cand.start < s.end), None)
        if sentence is None:
            continue
        head = sentence.text[: _first_value(cand, sentence.text, cand.start - sentence.start)]
        if (
            not cand.path.startswith("contacts.")
            and not _USER_TOO.search(head)
            and someone_else(head)
        ):
            out.append(("someone_else", cand))
        elif _number_from_date(cand.value, sentence.text):
            out.append(("value_is_date", cand))
        elif _names_nothing(cand):
            out.append(("empty_value", cand))
        elif today is not None and _untimed_today(cand, today):
            out.append(("reported_day", cand))
        elif _borrowed_beside_another(cand, text):
            out.append(("other_item", cand))
        elif _asked(cand, sentence.text, cand.start - sentence.start):
            out.append(("question", cand))
    return out


_CLAUSE_END = compile_kept(r"[,;:–—(]|\bbut\b|\n", re.I)
# A clause asked by its form: a question word or an auxiliary first ("is it ok to ...", "do I
# need ..."), or a verb with no subject ("also started melatonin?"); one in a statement's
# order ("spotify is 19.99 now??") is surprise and is kept
_ASKED_FORM = compile_kept(
    r"^\W*(?:(?:also|and|so|oh|ok|okay|but|then|wait|hmm+|um+)\W+)*"
    r"(?:(?:what|when|where|which|who|whom|whose|why|how|is|are|am|was|were|do|does|did|"
    r"can|could|should|shall|would|may|might|have|has|had|isn't|aren't|don't|doesn't|"
    r"didn't|won't|can't)\b|[^\W\d_]+ed\b)",
    re.I,
)


def _asked(cand: Candidate, sentence: str, start: int) -> bool:
    """Whether the clause saying the candidate's first value is a question by its form that
    closes its sentence (no clause break between that value and the sentence's end)."""
    if cand.op != "assert" or cand.replaces is not None:
        return False
    said = sentence.rstrip()
    if not said.endswith(("?", "？")):
        return False
    at = max(0, min(_first_value(cand, sentence, start), len(said)))
    if _CLAUSE_END.search(said, at) is not None:
        return False
    opens = [m.end() for m in _CLAUSE_END.finditer(said, 0, at)]
    return _ASKED_FORM.match(said, opens[-1] if opens else 0) is not None


# A health record's item and the parsers that read such items (drugs, allergens, supplements)
_ITEM_FIELD = {
    "health.medications": "name",
    "health.intake": "name",
    "health.allergies": "substance",
}
_ITEM_KINDS = ("drug", "substance", "intake")


def _borrowed_beside_another(cand: Candidate, text: str) -> bool:
    """Whether a health record names an item the message does not say (taken from an earlier
    message) while the message names another one: "no more losartan, last one yesterday"
    after a message about lisinopril is about losartan, not a lisinopril start."""
    field = _ITEM_FIELD.get(cand.path)
    if field is None or not isinstance(cand.value, dict):
        return False
    item = str(cand.value.get(field) or "").casefold()
    if not item or item in text.casefold():
        return False
    today = dt.date(2000, 1, 1)  # items carry no date: any day reads them
    said = {
        str(f.value).casefold()
        for kind in _ITEM_KINDS
        for f in parser(kind)(text, today, "past")
        if isinstance(f.value, str)
    }
    return any(other and other not in item and item not in other for other in said)


def _untimed_today(cand: Candidate, today: dt.date) -> bool:
    """Whether an event starts on the message's own day with no time of day said."""
    if cand.path != "schedule.events" or not isinstance(cand.value, dict):
        return False
    start = cand.value.get("start")
    if isinstance(start, dt.datetime):
        return start.date() == today and start.time() == dt.time()
    if isinstance(start, dt.date):
        return start == today
    said = str(start or "")
    return said[:10] == today.isoformat() and said[10:].strip("T0:") == ""


# The free-text fields that must name something; a contact's name is not judged (May, June).
_NAMING_FIELDS = frozenset(
    {"title", "goal", "place", "merchant", "payee", "item", "provider", "location", "city"}
)


def _names_nothing(cand: Candidate) -> bool:
    """Whether a naming field of the record holds only words that name nothing."""
    if not isinstance(cand.value, dict) or cand.path.startswith("contacts."):
        return False
    empty = _empty_words()
    for field in _NAMING_FIELDS & cand.value.keys():
        words = re.findall(r"[^\W\d_]+|\d+", str(cand.value[field]).casefold())
        # numbers beside words that name nothing are a time or a day ("every tuesday 10am
        # there", "ends 30 nov"); a name made only of digits ("3", "1&1") is a name
        if any(not w.isdigit() for w in words) and all(w in empty or w.isdigit() for w in words):
            return True
    return False


@functools.cache
def _empty_words() -> frozenset[str]:
    return frozenset(vocabulary()["word_sets"]["empty_values"])


def _first_value(cand: Candidate, sentence: str, default: int) -> int:
    """Where the sentence first says one of the candidate's text values (a quote may start at
    the sentence's start, before the subject it is about); `default` when none is said."""
    low = sentence.casefold()
    said = [
        low.find(leaf)
        for leaf in _leaves(cand.value)
        if len(leaf) >= 3 and not _ISO.match(leaf) and leaf in low
    ]
    return min(said) if said else default


def _number_from_date(value: Any, sentence: str) -> bool:
    """Whether a record with no currency holds a number said as a day and month ("27.11.",
    or inside a date the date parser reads) and nowhere else in the sentence."""
    if not isinstance(value, dict) or value.get("currency"):
        return False
    numbers = [
        str(v)
        for v in value.values()
        if isinstance(v, str | Decimal | float) and _DAY_MONTH.fullmatch(str(v))
    ]
    if not numbers:
        return False
    days = [(f.start, f.end) for f in parser("date")(sentence, dt.date(2000, 1, 1), "future")]
    for number in numbers:
        said = list(re.finditer(rf"(?<![\d.,]){re.escape(number)}(?!\d)", sentence))
        if said and all(
            sentence[m.end() : m.end() + 1] == "." or any(a <= m.start() < b for a, b in days)
            for m in said
        ):
            return True
    return False


def _left_over(
    frames: Sequence[Any],
    value: dict[str, Any],
    sentence: str,
    today: dt.date,
    carried: set[str],
) -> dict[str, tuple[Any, Any]]:
    """Per field, a typed value the frame's filler reads in the sentence that the candidate
    does not hold and no candidate of the message carries, with its span when it is the
    only such value of its type in the sentence (None: several compete for the role)."""

    for frame in frames:
        filled = _fill(frame, sentence, today)
        if filled is None:
            continue
        read, spans = filled
        out: dict[str, tuple[Any, Any]] = {}
        for slot in frame.slots:
            got = read.get(slot.field)
            kind = slot.type.split("@")[0]
            if got is None or kind not in TYPED or value.get(slot.field) is not None:
                continue  # a field the candidate fills is its extractor's reading
            if (
                slot.default == "today"
                and got == today.isoformat()
                and not any(set(_leaves(f.value)) == {got} for f in spans)
            ):
                continue  # the frame's default, not a value the sentence says
            leaves = set(_leaves(got))
            if not leaves or all(_carried(leaf, carried) for leaf in leaves):
                continue  # said by a fact of the message ("0%" of "0% balance transfer")
            # the same words read another way ("20 April" as past or as coming) are no
            # other value: a span some candidate carries under either reading is taken
            said = [f for f in spans if set(_leaves(f.value)) == leaves]
            if said and any(_taken(kind, sentence, today, f, carried) for f in said):
                continue
            prefer: Literal["future", "past"] = "past" if slot.prefer == "past" else "future"
            free = {
                (h.start, h.end): h.value
                for h in parser(kind)(sentence, today, prefer)
                if not all(_carried(leaf, carried) for leaf in _leaves(h.value))
            }
            if said and len(free) <= 1:
                out[slot.field] = (got, said[0])
            else:  # every value that competes for the role, in the order said
                out[slot.field] = ([_shown(v) for _span, v in sorted(free.items())] or got, None)
        return out
    return {}


# Value types a record's fields take by role (which day is the return, which amount the
# cost), in the groups whose values compete: a day with or without its time, an amount
_ROLES = {"date": "day", "datetime": "day", "amount": "money", "sum": "money"}


def _contested(
    frames: Sequence[Any],
    value: dict[str, Any],
    sentence: str,
    today: dt.date,
    carried: set[str],
) -> dict[str, Any]:
    """Per role field the record fills (`_ROLES`), the values competing for it when its
    sentence says more values of the field's type than the message's facts can account
    for: the record's own and every other one no candidate of the message carries
    ("the conference is 20 to 23 October, I fly the 19th and back the 24th": which days are
    the trip's?). A day the record computes from a day said ("two weeks before the 15th",
    "for a week from today") accounts for the one it counts from. {} when nothing competes."""
    from uac.fact_log.extraction import frames as framing

    known = {c for leaf in carried for c in _compared(leaf)}
    for frame in frames:
        fields: dict[str, list[str]] = {}  # group -> the record's fields of it
        hits: dict[str, list[Any]] = {}  # group -> every value read, either way
        for slot in frame.slots:
            group = _ROLES.get(slot.type.split("@")[0])
            if group is None or value.get(slot.field) is None:
                continue
            if not framing.reads(slot, sentence):
                continue
            if slot.field not in fields.setdefault(group, []):
                fields[group].append(slot.field)
            for prefer in (slot.prefer, "future" if slot.prefer == "past" else "past"):
                hits.setdefault(group, []).extend(
                    framing.slot_values(replace(slot, prefer=prefer), sentence, today)
                )
        out: dict[str, Any] = _left_behind(frame, value, sentence, today)
        for group, names in fields.items():
            read = sorted(hits.get(group, []), key=lambda h: (h.start, h.end))
            if group == "money":  # a number inside a day ("renews 13.12.") is no amount
                days = parser("date")(sentence, today, "future")
                read = [h for h in read if not any(d.start <= h.start < d.end for d in days)]
            said = {c for h in read for c in _compared(h.value)}
            taken = [h for h in read if _compared(h.value) & known]
            own = [h for h in taken if _compared(h.value) & _compared(value)]
            free: list[Any] = []
            for h in read:
                if not any(h.start < t.end and t.start < h.end for t in [*taken, *free]):
                    free.append(h)
            weekdays = {_weekday(value[f]) for f in names} - {None}
            competing = [
                h
                for h in free
                if not (
                    _weekday(h.value) in weekdays and not _DIGIT.search(sentence, h.start, h.end)
                )
                and _competes(frame, sentence, today, h, own, taken)
            ]
            # a day computed from a day said counts from one of the free ones
            derived = sum(not _compared(value[f]) & said for f in names)
            if len(competing) > derived:
                others = [_shown(h.value) for h in free]
                out.update({f: [_shown(value[f]), *others] for f in names})
        if fields or out:
            return out
    return {}


# A place at the left end of a route ("Birmingham to Kingston", "Vilnius - Dublin"): the
# connective and the capitalised name of where the route goes
_ROUTE = lazy(r"[ \t]*(?:-|–|—|→|->|to)[ \t]*(?P<to>[A-Z][\w'’-]+)")


def _left_behind(frame: Any, value: dict[str, Any], sentence: str, today: dt.date) -> dict:
    """The record's place when the frame's slot reads it by role words (pick "near": where
    one goes) and the sentence says it only as where one leaves ("from Entebbe", the left
    end of "Birmingham to Kingston") while it names another place as where one goes: a
    place said as an origin is no destination. {} otherwise."""
    for slot in frame.slots:
        if slot.type.split("@")[0] not in ("place", "city") or slot.pick != "near":
            continue
        held = value.get("city") or value.get(slot.field)
        if not isinstance(held, str):
            continue
        hits = parser(slot.type)(sentence, today, "future")
        own = [h for h in hits if _place_name(h).casefold() == held.casefold()]
        if not own or not all(_leaves_from(sentence, h) for h in own):
            continue
        goes = [m["to"] for h in own if (m := _ROUTE.match(sentence, h.end)) is not None] + [
            _place_name(h)
            for h in hits
            if _place_name(h).casefold() != held.casefold() and not _leaves_from(sentence, h)
        ]
        if goes:
            return {"city": [held, *dict.fromkeys(goes)]}
    return {}


def _place_name(hit: Any) -> str:
    return str((hit.value.get("city") if isinstance(hit.value, dict) else hit.value) or "")


def _leaves_from(sentence: str, hit: Any) -> bool:
    """Whether a place is said as where one leaves: "from X", "leaving X", "X to Y"."""
    return (
        place_role(sentence, hit.start) == "origin" or _ROUTE.match(sentence, hit.end) is not None
    )


# What joins a value to one a fact holds in a list or beside it ("Tuesday and Thursday",
# "10/21 Saturday"); a value said as not being the one is `assign.NEGATED`
_COORDINATED = lazy(r"\s*(?:(?:,|and|&|or|/|\+)\s*)?(?:(?:on|the)\s+)*", re.I)


def _competes(
    frame: Any, sentence: str, today: dt.date, hit: Any, own: list[Any], taken: list[Any]
) -> bool:
    """Whether a value no fact holds competes for the record's role: said in the clause of
    one of the record's own values ("bit me yesterday ... got the jab today"), or in a
    clause that says what the record is about (one of its frame's cues: "the conference is
    9 to 13 May, I travel on the 8th" leaves the conference's days alone). A value listed
    with one a fact holds ("Monday and Wednesday") is that list's, not a competitor."""
    if assign.NEGATED.search(sentence, 0, hit.start):
        return False
    for t in taken:
        gap = sentence[t.end : hit.start] if t.end <= hit.start else sentence[hit.end : t.start]
        if _COORDINATED.fullmatch(gap):
            return False
    clause = clause_span(sentence, hit.start)
    if any(clause_span(sentence, h.start) == clause for h in own):
        return True
    from uac.fact_log.extraction import frames as framing

    return framing.cued(frame, sentence[clause[0] : clause[1]], today)


_DIGIT = compile_kept(r"\d")


def _weekday(value: Any) -> int | None:
    """The day of the week of a day or a time ("2026-03-11T19:00" is a Wednesday): a weekday
    said without a day number ("every Wednesday ... starting 11 March") names the held day's
    weekday, not another day."""
    leaf = next(iter(_leaves(value)), "")
    return dt.date.fromisoformat(leaf).weekday() if _ISO.match(leaf) else None


def _compared(value: Any) -> set[str]:
    """How a role value is compared with another reading of the same words: a day by its
    day of the month (a bare "the 13th" is read in another month without the conversation's
    months), a number without its sign (money paid in or out)."""
    out = set()
    for leaf in _leaves(value):
        if _ISO.match(leaf):
            out.add("day " + leaf[8:10])
        else:
            with contextlib.suppress(InvalidOperation):
                out.add(format(abs(Decimal(leaf)), "f"))
    return out


# Free-text slot types a record is completed with when its sentence says one value of them
# (never withheld for them: names and places overlap, so a second one decides nothing)
_COMPLETES = frozenset({"venue"})


def _said_beside(
    frames: Sequence[Any],
    cand: Candidate,
    spans: Sequence[Any],
    candidates: Sequence[Candidate],
    today: dt.date,
    carried: set[str],
) -> dict[str, tuple[Any, Any]]:
    """Values that complete a record kept whole, each with its span in the message: a field
    the record leaves empty that its frame's slot reads once, and only once, (1) in the
    record's own sentence when the frame could not read the sentence whole (the rules read
    an allergy to "cats", which no allergen table names: "only cats make me sneeze" still
    says the reaction), or a place where it happens ("at the community centre"); (2) in the
    sentence right after it when that sentence is no record of its own and names no other
    key ("Allergy: birch pollen. Sneezing."; "I'm pregnant!! Due date is 2 December"). Only
    completes, never withholds: a value read twice or already carried is left alone."""
    from uac.fact_log.extraction import frames as framing

    value = cand.value
    at = next((i for i, s in enumerate(spans) if s.start <= cand.start < s.end), None)
    if at is None or not isinstance(value, dict):
        return {}
    out: dict[str, tuple[Any, Any]] = {}
    for frame in frames:
        empty = {s.type.split("@")[0] for s in frame.slots if value.get(s.field) is None}
        if not empty & (TYPED | _COMPLETES):
            continue  # nothing this frame reads could complete the record
        own = spans[at]
        typed = bool(empty & TYPED)
        whole = not typed or _fill(frame, own.text, today) is not None
        kinds = _COMPLETES if whole else TYPED | _COMPLETES
        _read_once(framing, frame, own, kinds, value, today, carried, out)
        after = spans[at + 1] if typed and at + 1 < len(spans) else None
        if after is not None and not any(after.start <= c.start < after.end for c in candidates):
            _read_once(framing, frame, after, TYPED, value, today, carried, out, next_to=True)
        if out:
            break
    return out


@functools.lru_cache(maxsize=64)
def _fill(frame: Any, sentence: str, today: dt.date) -> tuple[dict[str, Any], list[Any]] | None:
    """The frame's filler over one sentence (read by `_left_over` and `_said_beside` alike;
    the callers do not change what it returns)."""
    from uac.fact_log.extraction import frames as framing

    return framing.fill(frame, sentence, today)


def _read_once(
    framing: Any,
    frame: Any,
    sentence: Any,
    kinds: frozenset[str],
    value: dict[str, Any],
    today: dt.date,
    carried: set[str],
    out: dict[str, tuple[Any, Any]],
    *,
    next_to: bool = False,
) -> None:
    """Into `out`, per empty field of `kinds` the frame's slot reads once in `sentence`,
    its value and its span in the message (`sentence` a span of the message's text)."""
    # only the slots that can complete the record, the ends of a range (which `fill` orders)
    # and, after the record's sentence, the keys (which say whether it is another record)
    slots = tuple(
        replace(s, required=False)
        for s in frame.slots
        if s.order
        or (next_to and s.required)
        or (s.type.split("@")[0] in kinds and value.get(s.field) is None)
    )
    filled = framing.fill_slots(replace(frame, slots=slots), sentence.text, today)
    if filled is None:
        return
    read, used = filled
    if next_to and any(
        s.required and s.field in used and set(_leaves(read.get(s.field))) - set(_leaves(value))
        for s in frame.slots
    ):
        return  # the sentence after names a key of its own ("also peanuts"): another record
    for slot in frame.slots:
        kind = slot.type.split("@")[0]
        field = slot.field
        hit = used.get(field)
        if kind not in kinds or hit is None or value.get(field) is not None or field in out:
            continue
        leaves = set(_leaves(read.get(field)))
        if not leaves or any(_carried(leaf, carried) for leaf in leaves):
            continue
        prefer: Literal["future", "past"] = "past" if slot.prefer == "past" else "future"
        others = [
            h
            for h in parser(kind)(sentence.text, today, prefer)
            if not all(_carried(leaf, carried) for leaf in _leaves(h.value))
        ]
        if len(others) != 1:
            continue  # said twice: which one is undecided
        start = sentence.start + hit.start
        out[field] = (read[field], _Span(start, start + (hit.end - hit.start)))


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int


def _carried(leaf: str, carried: set[str]) -> bool:
    """Whether a fact of the message holds the atom (a text one inside a longer text)."""
    if leaf in carried:
        return True
    return not _NUMERIC.fullmatch(leaf) and any(leaf in c for c in carried)


def _taken(kind: str, sentence: str, today: dt.date, found: Any, carried: set[str]) -> bool:
    """Whether a candidate carries the value of the span `found`, read either way."""
    for prefer in ("past", "future"):
        for hit in parser(kind)(sentence, today, prefer):
            if (
                hit.start < found.end
                and found.start < hit.end
                and set(_leaves(hit.value)) & carried
            ):
                return True
    return False


def _leaves(value: Any) -> Iterator[str]:
    """The comparable atoms of a value: a date's day, a number's value, a casefolded text."""
    if value is None:
        return
    if isinstance(value, dict):
        for v in value.values():
            yield from _leaves(v)
        return
    if isinstance(value, list | tuple | set):
        for v in value:
            yield from _leaves(v)
        return
    if isinstance(value, dt.date):  # a datetime too: the day is what a role decides
        yield value.isoformat()[:10]
        return
    text = str(value).strip()
    if _ISO.match(text):
        yield text[:10]
        return
    if not isinstance(value, bool):
        try:
            yield str(Decimal(text).normalize())
            return
        except InvalidOperation:
            pass
    yield text.casefold()


def _shown(value: Any) -> Any:
    """A value as a hint shows it (JSON-friendly)."""
    if isinstance(value, dict):
        return {k: _shown(v) for k, v in sorted(value.items())}
    if isinstance(value, list | tuple):
        return [_shown(v) for v in value]
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value
