"""Soft preferences: open-ended style wishes that fit no catalog slot.

"Give the root cause first, then the steps" cannot be typed into `preferences.*`, so it is
stored as a `soft_preference` fact (path `preferences.soft`) and recalled by relevance to the
current request. Each distinct wish (case- and space-insensitive) is weighted by
relevance x confidence x support x recency; one whose confidence, halved every half-life
since it was last said, is below `DECAY_FLOOR` is dropped. A wish about an aspect the user
has set a hard preference for (verbosity, answer order, format, language, time zone) never
overrides it: it is left out. Recalled wishes are labelled as affecting wording only.

The functions take the facts and the embedder they need, never a `Memory`: the API layer
gathers them (`Memory.soft_preferences`), so this module depends on nothing above it.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from uac.runtime.search.fusion import recency_factor

if TYPE_CHECKING:  # a context without a query embeds nothing: no embedder module loaded
    from uac.runtime.search.embedders import Embedder

PATH = "preferences.soft"
# A wish whose confidence x recency has decayed below this is dropped, whatever the request
# (about 2 years without repetition at the default half-life for a certain wish).
DECAY_FLOOR = 0.05
# Words that say which hard preference slot a wish is about.
ASPECTS: dict[str, tuple[str, ...]] = {
    "verbosity": ("short", "brief", "concise", "terse", "detailed", "long", "verbose", "length"),
    "answer_order": ("conclusion first", "answer first", "context first", "bottom line"),
    "format": ("bullet", "table", "prose", "markdown", "numbered list"),
    "language": ("english", "chinese", "french", "spanish", "german", "language", "中文", "英文"),
    "timezone": ("time zone", "timezone", "utc"),
}
_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class SoftPreference:
    """One distinct wish with the evidence for it."""

    text: str
    fact_ids: tuple[str, ...]
    support: int
    confidence: float
    last_seen: dt.datetime
    weight: float = 0.0


def aspects(text: str) -> set[str]:
    """The hard preference slots a wish talks about."""
    lowered = text.casefold()
    return {slot for slot, words in ASPECTS.items() if any(w in lowered for w in words)}


def _key(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


def collect(facts: list[Any]) -> list[SoftPreference]:
    """Live soft preferences from the facts at `PATH`, merged by wording (retracts dropped)."""
    retracted = {
        f.value.get("target") for f in facts if f.op == "retract" and isinstance(f.value, dict)
    }
    groups: dict[str, list[Any]] = {}
    for fact in facts:
        if fact.op == "assert" and fact.id not in retracted and fact.text:
            groups.setdefault(_key(fact.text), []).append(fact)
    return [
        SoftPreference(
            text=group[-1].text,
            fact_ids=tuple(f.id for f in group),
            support=len(group),
            confidence=max(f.confidence for f in group),
            last_seen=max(f.recorded_at for f in group),
        )
        for group in groups.values()
    ]


def recall(
    facts: list[Any],
    hard: set[str],
    embedder: Embedder | None,
    query: str | None,
    *,
    today: dt.date,
    k: int = 3,
    half_life_days: float = 180.0,
) -> list[SoftPreference]:
    """The k wishes that matter most for this request, none about a slot in `hard`.

    `facts` are the subject's facts at `PATH`; `hard` the preference slots the user has set.
    Without a query every wish is equally relevant: nothing is embedded (`embedder` may be
    None then).
    """
    prefs = [p for p in collect(facts) if not aspects(p.text) & hard]
    if not prefs:
        return []
    if query and embedder is not None:
        vectors = embedder.embed([query, *(p.text for p in prefs)])
    else:
        vectors = [[]] * (len(prefs) + 1)
    now = dt.datetime(today.year, today.month, today.day)
    ranked = []
    for pref, vec in zip(prefs, vectors[1:], strict=True):
        relevance = _cosine(vectors[0], vec) if query else 1.0
        age = max(0.0, (now - pref.last_seen).total_seconds() / 86400)
        if pref.confidence * math.pow(0.5, age / half_life_days) < DECAY_FLOOR:
            continue  # faded: not repeated for years (ranking below keeps a gentler floor)
        weight = (
            max(relevance, 0.0)
            * pref.confidence
            * (1 + math.log(pref.support))
            * recency_factor(age, half_life_days)
        )
        ranked.append((weight, pref.last_seen, pref.text, pref))
    ranked.sort(key=lambda r: (-r[0], -r[1].timestamp(), r[2]))
    return [
        SoftPreference(p.text, p.fact_ids, p.support, p.confidence, p.last_seen, round(w, 6))
        for w, _, _, p in ranked[:k]
        if w > 0
    ]


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
