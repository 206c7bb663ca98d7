"""Routine patterns, the one home of health.intake: what the user regularly eats, drinks or
takes. Food, drink and supplement words come from the reference data the health checks use
(`health_rules.toml`, `[[intake]]`), drug names from `drugs.toml`: one source, never two lists.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Span,
    clause_of,
    in_clause,
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
    return lazy(r"\b(?:" + alternation + r")\b", re.IGNORECASE), table


_CONSUME = lazy(
    r"\bi(?:'ve|\s+have)?\s+(?:always\s+|usually\s+|also\s+|now\s+|just\s+|recently\s+)?"
    r"(?:eat|eats|drink|have|take|started(?:\s+(?:taking|drinking|eating|on))?|"
    r"began(?:\s+taking)?|been\s+(?:taking|drinking|eating|having))\b|"
    r"\bi(?:'m|\s+am)\s+(?:now\s+|also\s+)?(?:taking|drinking|eating|having|on)\b",
    re.IGNORECASE,
)
_STARTED = lazy(r"\b(?:started|began|today)\b", re.IGNORECASE)
_INTAKE_FREQ = lazy(
    r"\b(?:every\s+(?:morning|evening|night|day|weekend)|daily|each\s+(?:morning|day)|"
    r"(?:once|twice|three\s+times)\s+a\s+(?:day|week)|with\s+(?:breakfast|lunch|dinner))\b",
    re.IGNORECASE,
)


# Said without "I": "Started taking ginkgo", "Began on St John's wort this week".
_CONSUME_ELLIPTIC = lazy(
    r"^(?:just\s+|recently\s+|finally\s+|also\s+|so\s+)?(?:started|began)"
    r"(?:\s+(?:taking|drinking|eating|having|on))?\b",
    re.IGNORECASE,
)
# A habit said without a verb ("New routine: a glass of wine with dinner") is the user's own
# only when nobody else is its subject.
_OTHER_SUBJECT = lazy(
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


_NOT_NOW = lazy(
    r"\b(?:used\s+to|stopped|quit|gave\s+up|no\s+longer|avoid|cut\s+out|any\s+more|anymore)\b",
    re.IGNORECASE,
)
_IT = lazy(r"\s+(?:it|them)\b", re.IGNORECASE)
