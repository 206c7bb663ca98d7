"""What every domain pattern shares: sentence and clause spans, guards, names, the context.

The extractor works sentence by sentence, and inside a sentence clause by clause, so that a
guard word ("maybe", "not", "if") only silences the clause it belongs to: "My passport
expires on 14 August 2027, should I renew it?" still yields the expiry. `Ctx.add` validates
every value against the catalog and drops what does not validate (never coerced).

Every regex is linear: bounded repetitions, no nested unbounded quantifiers.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeGuard

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction.candidate import Candidate, validate, validate_ending
from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.discourse import Thread
from uac.fact_log.extraction.timemodel import DateMatch, Prefer, find_dates
from uac.fact_log.extraction.values.money import Amount, money_in
from uac.fact_log.reference import drug_data, normalise, vocabulary

MAX_SENTENCE = 2000


def word_set(text: str) -> frozenset[str]:
    """A word list written as one string (keeps long lexicons compact)."""
    return frozenset(text.split())


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of the message with its offset."""

    start: int
    text: str

    @property
    def end(self) -> int:
        """Offset just past the span."""
        return self.start + len(self.text)


# -- segmentation --------------------------------------------------------------------------

_ABBREV = lazy(r"\b(?:dr|mr|mrs|ms|st|prof|vs|etc|e\.g|i\.e|approx|a\.m|p\.m|no)$", re.I)
# A run of "!" and "?" ends one sentence ("booked!!", "really?!"), not one each.
_SENT_END = lazy(r"[!?！？]{1,8}|[.。；;\n]")
# "M. Lopes", "J. R. Smith": a capital alone before the full stop is an initial.
_INITIAL = lazy(r"(?:^|[\s(])[A-Z]$")
# (a colon between digits is a clock time, "1:30", not a clause end)
_CLAUSE_SPLIT = lazy(r"[,，：—–]|(?<!\d):(?!\d{2})|\s-\s|\bbut\b|\bthough\b|\bhowever\b|但是|不过")


# Voice dictation says its punctuation ("new paragraph the hotel ... full stop"): the words
# become a sentence end of the same length, so offsets and quotes stay those of the message.
_DICTATION = lazy(r"\b(?:new\s+paragraph|new\s+line|full\s+stop)\b", re.I)


def undictate(text: str) -> str:
    """The text with spoken punctuation commands read as sentence ends (same length)."""
    if "period" in text or "question mark" in text:
        text = _spoken_period(text)
    if "new " not in text.lower() and "full stop" not in text.lower():
        return text  # nearly every message: no scan
    said = _DICTATION.sub(lambda m: "." + " " * (len(m[0]) - 1), text)
    if said == text:
        return text
    # a dictated message ("... comma returning Monday full stop"): its spoken commas too
    return _SPOKEN_COMMA.sub(lambda m: "," + " " * (len(m[0]) - 1), said)


def _read_period(m: re.Match[str]) -> str:
    """One spoken "period"/"question mark" as its mark, unless it is a period of time."""
    if m[1].lower() in _PERIOD_OF_TIME:
        return m[0]
    mark = "?" if m[2].strip().lower().startswith("q") else "."
    return m[1] + mark + " " * (len(m[2]) - 1)


_SPOKEN_COMMA = lazy(r"[ \t]+comma\b", re.I)
# US dictation ("call the bank tomorrow period", "... comma phone 614 ... period"): "period"
# as the last word, or before another word when "comma" or "question mark" is dictated too;
# never a period of time ("trial period", "on my period", "a 3 month period").
# (anchored at a word's start: unanchored, each start of a long word was tried again)
_PERIOD_SAID = lazy(r"(?<!\S)(\S*)([ \t]+(?:period|question[ \t]+mark)\b)", re.I)
_PERIOD_OF_TIME = frozenset(vocabulary()["word_sets"]["text_period_of_time"])
_DICTATED = lazy(r"[ \t](?:period|question[ \t]+mark)[ \t]*$|[ \t]comma[ \t]", re.I)


def _spoken_period(text: str) -> str:
    """US dictation's spoken "period" and "question mark" read as sentence ends (same length)."""
    if _DICTATED.search(text) is None:
        return text
    said = _PERIOD_SAID.sub(_read_period, text)
    return _SPOKEN_COMMA.sub(lambda m: "," + " " * (len(m[0]) - 1), said)


def sentences(text: str) -> Iterator[Span]:
    """Split text into sentences, keeping offsets; "Dr." and "15.49" do not end one."""
    start = 0
    for m in _SENT_END.finditer(text):
        if m[0] == "." and (
            _ABBREV.search(text[max(0, m.start() - 6) : m.start()])
            or _INITIAL.search(text[max(0, m.start() - 2) : m.start()])
            or text[m.end() : m.end() + 1].isdigit()
            or text[m.end() : m.end() + 1].isalpha()
            or _day_dot(text, m.start())
        ):
            continue  # "Dr. Moore", "15.49", "e.g.": not a sentence end
        yield from _trimmed(text, start, m.end())
        start = m.end()
    yield from _trimmed(text, start, len(text))


# Where one clause ends and the next begins inside a sentence (`clause_span`).
_CLAUSE_BREAKS = lazy(r"[,;:–—]|\b(?:and|but|because|since|so|then)\b", re.I)


def clause_span(sentence: str, at: int) -> tuple[int, int]:
    """The span of the clause saying sentence[at] (between two clause breaks)."""
    start, end = 0, len(sentence)
    for m in _CLAUSE_BREAKS.finditer(sentence):
        if m.end() <= at:
            start = m.end()
        elif m.start() >= at:
            end = m.start()
            break
    return start, end


# A clause that says an amount and nothing else, after the clause it completes: "Got paid
# today: 2,340 euros", "Rent goes out on the 28th every month, 1,150."
_AMOUNT_CLAUSE = lazy(
    r"[,;:–—]\s*(?:(?:about|around|roughly|approx\.?|approximately|just|only)\s+)?"
    r"(?P<v>[^,;:–—\s](?:[^,;:–—]|,(?=\d)){0,30}?)\s*(?=[;:–—]|,\s|[.!]*\s*$)",
    re.I,
)


def clause_money(sentence: str, at: int) -> list[Amount]:
    """The amount said as money (`values.money.money_in`) in the clause of sentence[at],
    before or after it; when that clause says none, the amount of the clause right after it
    that says nothing else ("Got paid today: 2,340 euros"). A list of that one amount: empty
    when there is none, or two that differ."""
    start, end = clause_span(sentence, at)
    said = money_in(sentence, start, end)
    if not said and (alone := _AMOUNT_CLAUSE.match(sentence, end)) is not None:
        said = [
            a
            for a in money_in(sentence, alone.start("v"), alone.end("v"))
            if (a.start, a.end) == alone.span("v")
        ]
    return said[:1] if len({a.amount for a in said}) == 1 else []


# "6. to 17. September", "20.12. until 8.1.", "on 14.02., they did": the dot of a day number
# (continental writing) before a comma, a month or "to", not a sentence end
_DAY_DOT_BEFORE = lazy(r"(?:^|[\s(])(?:\d{1,2}\.)?\d{1,2}$")
_DAY_DOT_AFTER = lazy(
    r",|[ \t]{1,3}(?:to|till|until|bis|[-–]|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\b)",
    re.I,
)
# "20.12. and back 8.1.": after a day and month each closed by a dot, a lower-case word
# goes on with the sentence
_DAY_MONTH_DOT = lazy(r"(?:^|[\s(])\d{1,2}\.(?:0?[1-9]|1[0-2])$")
_GOES_ON = lazy(r"[ \t]{1,3}[a-z]")


def _day_dot(text: str, at: int) -> bool:
    """Whether the full stop at `at` closes a day number in a date ("6. to 17. September")."""
    return bool(
        _DAY_DOT_BEFORE.search(text, max(0, at - 6), at) and _DAY_DOT_AFTER.match(text, at + 1)
    ) or bool(_DAY_MONTH_DOT.search(text, max(0, at - 6), at) and _GOES_ON.match(text, at + 1))


def _trimmed(text: str, start: int, end: int) -> Iterator[Span]:
    piece = text[start:end]
    stripped = piece.strip()
    if stripped:
        yield Span(start + piece.index(stripped), stripped)


def clauses(sent: Span) -> list[Span]:
    """Split a sentence at commas, dashes and 'but' so guards stay local to their clause."""
    out = []
    start = 0
    for m in _CLAUSE_SPLIT.finditer(sent.text):
        out.extend(_trimmed_span(sent, start, m.start()))
        start = m.end()
    out.extend(_trimmed_span(sent, start, len(sent.text)))
    return out


def _trimmed_span(sent: Span, start: int, end: int) -> list[Span]:
    return [Span(sent.start + s.start, s.text) for s in _trimmed(sent.text, start, end)]


# -- guards --------------------------------------------------------------------------------


_UNKNOWN = object()  # no answer remembered yet (None is an answer: no match)
_GUARDS: list[Guard] = []  # every guard made, so a cold read forgets them all


def forget_guards() -> None:
    """Drop every guard's remembered answers (a cold read)."""
    for guard in _GUARDS:
        guard._answers.clear()


class Guard:
    """A pattern whose `search` remembers its latest answers, text by text.

    Many rules ask the same sentence the same question ("is it hypothetical?", "negated?"),
    about fifteen times a sentence; the answer for a text never changes, so it is found once.
    """

    __slots__ = ("_answers", "pattern")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self._answers: dict[str, re.Match[str] | None] = {}
        _GUARDS.append(self)

    def search(self, text: str) -> re.Match[str] | None:
        """`pattern.search(text)`, remembered for the last few hundred texts.

        Threads share a guard: one `get` reads the answer (another thread may clear the map
        at any time), and a lost answer is only found again.
        """
        answers = self._answers
        found = answers.get(text, _UNKNOWN)
        if found is not _UNKNOWN:
            return found  # type: ignore[return-value]
        if len(answers) >= 512:  # a message's sentences and clauses fit many times over
            answers.clear()
        found = answers[text] = self.pattern.search(text)
        return found

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """`pattern.finditer(text)` (not remembered: callers walk it)."""
        return self.pattern.finditer(text)


HYPOTHETICAL = Guard(
    lazy(
        r"^\s*(?:and\s+|so\s+)?(?:if|suppose|supposing|imagine|what if|hypothetically|in case|"
        r"let's say|say)\b|\b(?:if i|if we|were i|i wish|what if|would i|would we)\b|"
        r"如果|假如|要是|假设",
        re.IGNORECASE,
    )
)
UNCERTAIN = Guard(
    lazy(
        r"\b(?:maybe|might|perhaps|possibly|probably|not sure|unsure|i think|i guess|i suppose|"
        r"i believe|considering|thinking about|thinking of|could(?!\s+only\b)|would like to|"
        r"i'd like to|hoping to|hope to|want to|wanna|plan to maybe|"
        # "I should add that ...", "I should mention": a framing of what is said, not a doubt
        r"should(?!\s+(?:add|mention|say|note|point\s+out|clarify|explain|tell\s+you)\b)|"
        r"dreaming of|"
        r"someday|one day|or so|not certain|undecided|tentative(?:ly)?)\b|\b(?:i|we)\s+may\b|"
        r"也许|可能|大概|或许",
        re.IGNORECASE,
    )
)
NEGATION = Guard(
    lazy(
        r"\b(?:not|never|no|none|neither|nor|don't|doesn't|didn't|isn't|aren't|wasn't|weren't|"
        r"won't|haven't|hasn't|can't|cannot|dont|nobody)\b|n't\b|没有|不是|并不|从不|从没",
        re.IGNORECASE,
    )
)
_WH_QUESTION = lazy(r"^\s*(?:what|when|where|which|who|why|how)\b", re.IGNORECASE)
# An auxiliary first is a question only with a question mark: "Have a meeting at 10." is not.
_AUX_QUESTION = lazy(
    r"^\s*(?:can|could|would|should|do|does|did|is|are|will|shall|am|have|has)\b", re.I
)


# "When I was 9 I had ...": a time clause, not a question
_WHEN_I_WAS = lazy(r"^\s*when\s+(?:i|we)\s+(?:was|were)\b", re.IGNORECASE)


# Asked without a question mark (typed fast, lower case): "is it ok to drink on sertraline",
# "can i take ibuprofen with it", "should I take it with food"
_ASKED_UNMARKED = lazy(
    r"^\s*(?:(?:is|are)\s+(?:it|this|that|they)\s+(?:ok|okay|safe|fine|alright|bad|normal|"
    r"allowed|true)|(?:can|could|should|may|must)\s+i|do\s+i\s+(?:need|have)\s+to)\b",
    re.IGNORECASE,
)


def is_question(clause: str, sentence: str) -> bool:
    """Whether a clause asks rather than states."""
    return bool(
        _ASKED_UNMARKED.match(sentence)
        # A statement's word order with a question mark states what surprised the user ("my
        # banking app says I paid £89 at Currys again today?", "I pay £15 a month for
        # Netflix? Is that normal?"): only a question's form asks.
        or (_WH_QUESTION.search(clause) and not _WHEN_I_WAS.search(clause))
        or (
            ("?" in sentence or "？" in sentence)
            and (_AUX_QUESTION.search(clause) or _AUX_QUESTION.search(sentence))
        )
    )


THIRD_PARTY = Guard(
    lazy(
        r"\b(?:my|his|her|their|our)\s+(?:friend|mum|mom|dad|father|mother|brother|sister|son|"
        r"daughter|wife|husband|partner|colleague|boss|kid|child|children|kids|parents|family|"
        r"friends|neighbour|neighbor)(?:\s+(?:is|are|has|have|was|were|will|takes|took|went|goes|"
        r"says|said|thinks|flies|fly|drives|drive|'s|'re|booked|bought|got)\b"
        # "my boss is sending me to Munich": what they do to the user is the user's
        # ... and "my brother booked me the flight" is the user's flight
        r"(?!\s+(?:(?:sending|taking|driving|flying|sent|took)\s+)?(?:me|us)\b)|(?:'s|’s|'|’)(?!\w))|"
        r"\b(?:he|she|they)\s+"
        r"(?:is|has|was|takes|took|went|goes|flies|drives|'s|are)\b",
        re.IGNORECASE,
    )
)


# Someone other than the user named as the subject before a value: "she's on", "my wife
# takes", "a friend swears by" (THIRD_PARTY needs a verb after the relation; this does not).
_SOMEONE_ELSE = lazy(
    r"\b(?:he|she|they|his|her|their|him|them)\b|\b(?:my|a|our|his|her)\s+(?:friend|mum|mom|dad|"
    r"father|mother|brother|sister|son|daughter|wife|husband|partner|colleague|boss|kid|child|"
    r"baby|boyfriend|girlfriend|flatmate|roommate|neighbour|neighbor|grandma|grandad|grandpa|"
    r"aunt|uncle|cousin|niece|nephew|mate)\b|\b(?:pharmacist|doctor|gp|nurse|midwife)\s+"
    r"(?:said|says|thinks|told)\b",
    re.IGNORECASE,
)


# "sorted for my son", "PTO for my husband": done or held for another person
FOR_SOMEONE = (
    r"\bfor\s+(?:my|our)\s+(?:son|daughter|wife|husband|partner|mum|mom|mother|dad|father|"
    r"brother|sister|kids?|child(?:ren)?|friend|colleague|boss|parents|grand\w+|niece|nephew|"
    r"aunt|uncle|cousin)\b"
)


# "Tom is flying to Rome on 3 July", "Anna flies out Friday": a sentence whose subject is a
# named person (not with the user: "Tom and I", "with me", "we") tells that person's doings
_NAMED_SUBJECT = lazy(
    r"^(?:(?:and|so|also|btw|oh)[\s,]+)?(?P<name>(?-i:[A-Z][a-z]{1,15}))(?:\s+(?-i:[A-Z][a-z]+))?"
    r"\s+(?:is|was|will|has|had|'s|’s|flies|flew|goes|went|drives|drove|takes|took|leaves|left|"
    r"arrives|lands|gets|got|needs|starts|moves|moved|travels|travelled|traveled|heads)\b",
    re.IGNORECASE,
)
_WITH_USER = lazy(r"\b(?:I|me|we|us|our)\b", re.I)


def named_subject(text: str) -> str | None:
    """The name of the sentence's subject when it may be a person other than the user (the
    caller rules out places: "Vietnam is happening")."""
    m = _NAMED_SUBJECT.match(text)
    if (
        m is None
        or m["name"] in NOT_NAMES
        or m["name"] in _NOT_PERSON_SUBJECTS
        or _WITH_USER.search(text)
    ):
        return None
    return m["name"]


# Capitalised words that open a sentence as a subject but are no person
_NOT_PERSON_SUBJECTS = frozenset(vocabulary()["word_sets"]["text_not_person_subjects"])


def someone_else(head: str) -> bool:
    """Whether the text before a value names another person as its subject."""
    return bool(_SOMEONE_ELSE.search(head))


def guarded(clause: str, before: int | None = None, sentence: str | None = None) -> bool:
    """True when a clause is hypothetical, uncertain, a question, or negated before `before`."""
    if (
        HYPOTHETICAL.search(clause)
        or UNCERTAIN.search(clause)
        or is_question(clause, sentence if sentence is not None else clause)
    ):
        return True
    head = clause if before is None else clause[:before]
    return bool(NEGATION.search(head))


def clause_of(clauses_: list[Span], offset: int) -> Span | None:
    """The clause holding an absolute offset (None past the last one)."""
    for c in clauses_:
        if c.start <= offset < c.end:
            return c
    return None


# -- names ---------------------------------------------------------------------------------

# "Jean-Luc", "Al-Rashid", "McKenzie": a capital may follow a hyphen or a prefix.
# (Latin Extended-A too: "Wiśniewska", "Łukasz", "Gökçe")
_NAME_WORD = r"[A-ZĄĆČĎĘĚŁŃŇŘŚŠŤŹŻŽ][a-zà-ÿā-ž'’-]{1,20}(?:[A-Z][a-zà-ÿā-ž'’]{1,20})?"
NAME = _NAME_WORD + r"(?:[ \t]{1,2}" + _NAME_WORD + r"){0,2}"
NOT_NAMES = frozenset(vocabulary()["word_sets"]["text_not_names"])


# -- the context and clause checks ------------------------------------------------------


Rule = Callable[["Ctx", Span, list[Span]], None]  # one domain pattern, run per sentence


@dataclass(slots=True)
class Ctx:
    """One message being read: its text, the day it was said, and the candidates found."""

    text: str
    today: dt.date
    catalog: Catalog
    out: list[Candidate]
    following: Span | None = None  # the next sentence, for details that spill over
    thread: Thread = field(default_factory=Thread)  # what the session mentioned before
    # Where the sentence being read starts, and whether every candidate of the earlier
    # sentences quotes text before it (`here` relies on it); the furthest quote yet.
    sentence_start: int = 0
    ordered: bool = True
    furthest: int = -1
    memo: dict[str, Any] = field(default_factory=dict)  # a rule's state across sentences
    paths: set[str] = field(default_factory=set)  # every path a candidate was added under

    def begin(self, sent: Span) -> None:
        """Start reading a sentence (the driver calls it before the rules)."""
        self.sentence_start = sent.start
        if self.furthest >= sent.start:  # an earlier sentence quoted this one: scan it all
            self.ordered = False

    def of_path(self, path: str) -> list[Candidate]:
        """The candidates of a path found so far (none to look for when no rule added one:
        a long list of payments is not scanned for contacts sentence after sentence)."""
        return [c for c in self.out if c.path == path] if path in self.paths else []

    def here(self) -> int:
        """The index in `out` from which the candidates the current sentence yielded start:
        every candidate before it quotes an earlier sentence, so a rule asking what this
        sentence gave reads a few candidates, not all of a long message's (0 when the
        quotes are out of order: then all are read, as before)."""
        out, i = self.out, len(self.out)
        if not self.ordered:
            return 0
        while i and out[i - 1].start >= self.sentence_start:
            i -= 1
        return i

    @property
    def anchor(self) -> dt.date | None:
        """The day the conversation was last about ("back on the 20th" continues from it)."""
        return self.thread.last_date()

    def dates(self, sent: Span, prefer: Prefer = "future", after: int = 0) -> list[DateMatch]:
        """The dates of a sentence (`dates_in` against this message's day and the one the
        conversation was about) that start `after` characters into it or later."""
        at = sent.start + after
        return [d for d in dates_in(sent, prefer, self.today, self.anchor) if d.start >= at]

    def add(
        self,
        path: str,
        value: Any,
        quote: Span,
        confidence: float,
        op: str = "assert",
        replaces: Any = None,
    ) -> None:
        """Validate value against the catalog and keep the candidate only if it passes."""
        typed = (validate_ending if op == "end" else validate)(self.catalog, path, value)
        if typed is None:
            return
        attr = self.catalog.attributes.get(path)
        kind = attr.kind if attr is not None else "record"
        self.out.append(
            Candidate(kind, path, typed, op, quote.text, quote.start, confidence, replaces)
        )
        self.furthest = max(self.furthest, quote.start)
        self.paths.add(path)
        if quote.start < self.sentence_start:  # a quote of an earlier sentence: out of order
            self.ordered = False


def complete_earlier(
    ctx: Ctx, path: str, same: Callable[[dict[str, Any]], bool], extra: dict[str, Any], sent: Span
) -> bool:
    """Add `extra` to the record an earlier sentence of this message found (`same` picks it,
    and it lacks those fields), quoted from this sentence: "started on warfarin. The dose is
    3 mg" is one record, not two. False when there is none to complete."""
    for i, c in enumerate(ctx.out):
        if c.path != path or c.op != "assert" or c.start >= sent.start or not same(c.value):
            continue
        if any(k in c.value for k in extra):
            return False
        del ctx.out[i]
        ctx.add(path, {**c.value, **extra}, sent, c.confidence)
        return True
    return False


def clause_ok(parts: list[Span], sent: Span, offset: int) -> bool:
    """The clause holding absolute offset is free of guards before the offset."""
    clause = clause_of(parts, offset)
    if clause is None:
        return False
    if HYPOTHETICAL.search(sent.text[:20]) and not sent.text[:20].lower().startswith("as if"):
        return False
    # "my parents are flying to Toronto": a fact about someone else, not the user.
    if guarded(clause.text, offset - clause.start, sent.text):
        return False
    # searched in the whole clause (its lookahead sees "is sending me"), counted before offset
    at = offset - clause.start
    return not any(m.start() < at for m in THIRD_PARTY.finditer(clause.text))


def in_clause(
    m: re.Match[str] | None, parts: list[Span], sent: Span, group: int | str = 0
) -> TypeGuard[re.Match[str]]:
    """The pattern matched the sentence, in a clause free of guards before its (group's) start."""
    return m is not None and clause_ok(parts, sent, sent.start + m.start(group))


def dates_in(
    sent: Span, prefer: Prefer, today: dt.date, anchor: dt.date | None = None
) -> list[DateMatch]:
    """Dates in a sentence (absolute offsets), skipping corrected ones ("not March 5")."""
    out = []
    for d in find_dates(sent.text, today, prefer, anchor):
        before = sent.text[max(0, d.start - 12) : d.start].lower()
        if re.search(r"\b(?:not|instead of|rather than|no longer)\s+(?:on\s+)?$", before):
            continue
        out.append(
            DateMatch(
                sent.start + d.start,
                sent.start + d.end,
                d.text,
                d.date,
                d.explicit_year,
                d.conflict,
            )
        )
    return out


def stop_ok(parts: list[Span], sent: Span, at: int) -> bool:
    """Like clause_ok for a stop trigger ("no longer take"): its own negation is allowed."""
    # "no longer" / "don't take" are the trigger itself, so only the text before it counts.
    clause = clause_of(parts, at)
    if clause is None:
        return False
    head = clause.text[: at - clause.start]
    return not (
        HYPOTHETICAL.search(clause.text)
        or UNCERTAIN.search(clause.text)
        or is_question(clause.text, sent.text)
        or NEGATION.search(head)
    )


@lru_cache(maxsize=1)
def drug_vocabulary() -> frozenset[str]:
    """Every drug name the reference data knows (generics, brands, class words, others)."""
    data = drug_data()
    return frozenset(
        w.lower() for w in (*data.member_class, *data.aliases, *data.class_names, *data.others)
    )


def drug_names(text: str) -> list[str]:
    """The known drug names a text mentions, in order (one word each, as written)."""
    vocab = drug_vocabulary()
    return [w for w in normalise(text).split() if w in vocab]


@lru_cache(maxsize=1)
def builtin_catalog() -> Catalog:
    """The built-in catalog, loaded once."""
    return Catalog.load()


def emit(
    ctx: Ctx, sent: Span, path: str, value: Any, confidence: float = 0.8, replaces: Any = None
) -> None:
    """Propose a record, replacing what the domain rules found for the same path here."""
    ctx.out[:] = [c for c in ctx.out if not (c.path == path and c.start == sent.start)]
    ctx.add(path, value, sent, confidence, replaces=replaces)


def unsay(ctx: Ctx, path: str, value: Any) -> None:
    """Drop a record found earlier in this message that a correction replaces ("Netflix is
    £15 a month. Sorry, £16." is one subscription, at £16)."""
    ctx.out[:] = [c for c in ctx.out if not (c.path == path and c.value == value)]
