"""Preference patterns: durable answer style (verbosity, format, tone), language, time zone,
signature; a preference needs a durability marker ("from now on", "always").
"""

from __future__ import annotations

import re

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.extraction.patterns.text import (
    HYPOTHETICAL,
    Ctx,
    Span,
    clause_ok,
    is_question,
)
from uac.fact_log.reference import vocabulary

LANGUAGES: dict[str, str] = vocabulary()["languages"]


_DURABLE = lazy(
    r"\b(?:"
    + "|".join(vocabulary()["ordered_lists"]["durable_words"])
    + r")\b|以后|今后|从现在开始|从今以后|往后|一直|总是|每次|默认|"
    r"请记住|我喜欢|我希望|我更喜欢|我习惯",
    re.IGNORECASE,
)
_ONE_OFF = lazy(
    r"\b(?:this\s+time|for\s+this\s+(?:one|answer|question|reply|response|task|email|message)|"
    r"just\s+(?:now|for\s+now|this\s+once)|right\s+now|for\s+now|this\s+once|just\s+this|"
    r"for\s+the\s+next\s+\w+|today)\b|这次|这一次|本次|这个问题|暂时|先这样|这回",
    re.IGNORECASE,
)
# (path, value, what says it), from vocabulary.toml's [[preference_phrases]]
_PREF_RULES: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    (row["path"], row["value"], lazy("".join(row["regex"]), re.I))
    for row in vocabulary()["preference_phrases"]
)
_LANGUAGE = lazy(
    r"\b(?:answer|reply|respond|write|talk|speak|communicate|responses?|answers?|replies)"
    r"(?:\s+to\s+me)?\s+(?:in|using)\s+(?P<en>"
    + "|".join(k for k in LANGUAGES if k.isascii())
    + r")\b|(?:用|说|讲)(?P<zh>中文|汉语|普通话|英文|英语|日语|日文|法语|德语|西班牙语|韩语)",
    re.IGNORECASE,
)
_TIMEZONE = lazy(
    r"\b(?:my\s+)?time\s?zone\s+is\s+(?:now\s+)?([A-Za-z_]{2,20}/[A-Za-z0-9_+-]{2,30}(?:/[A-Za-z_]{2,20})?)"
    r"|我的时区是\s?([A-Za-z_]{2,20}/[A-Za-z0-9_+-]{2,30})",
    re.IGNORECASE,
)
_SIGNATURE = lazy(
    r"\bsign\s+(?:off\s+)?(?:my\s+|the\s+|all\s+)?(?:emails|messages|drafts|letters)?\s*"
    r"(?:off\s+)?(?:with|as)\s+[\"“'‘]([^\"”'’\n]{1,40})[\"”'’]",
    re.IGNORECASE,
)
_PREF_NOT = lazy(
    r"\b(?:don't|do\s+not|never|no|no\s+more|stop\s+using|stop\s+with|without|avoid|less)\s+"
    r"(?:\w+\s+){0,2}$|不要|别|不用",
    re.IGNORECASE,
)
_CJK_CHAR = lazy(r"[\u4e00-\u9fff]")


def rule_preferences(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Durable answer-style preferences in English and Chinese; one-off requests are skipped."""
    text = sent.text
    durable = _DURABLE.search(text)
    if HYPOTHETICAL.search(text) or (is_question(text, text) and not durable):
        return
    if _ONE_OFF.search(text) and not durable:
        return
    chinese = bool(_CJK_CHAR.search(text))
    # English needs a durability marker; a bare Chinese imperative ("先说结论") is a standing
    # instruction in practice, so it passes at a lower confidence.
    if durable is None and not chinese:
        return
    confidence = 0.9 if durable else 0.75
    seen: set[str] = set()
    for path, value, pattern in _PREF_RULES:
        if path in seen:
            continue
        for m in pattern.finditer(text):
            lead = text[max(0, m.start() - 30) : m.start()]
            negated = bool(_PREF_NOT.search(lead))
            if path == "preferences.format" and value != "prose" and negated:
                continue
            if path == "preferences.verbosity" and negated:
                continue
            if re.search(r"\b(?:not|n't|never)\b", lead, re.I) and path != "preferences.format":
                continue
            ctx.add(path, value, sent, confidence)
            seen.add(path)
            break
    if (lang := _LANGUAGE.search(text)) is not None:
        word = (lang["en"] or lang["zh"]).lower()
        ctx.add("preferences.language", LANGUAGES[word], sent, confidence)
    if (tz := _TIMEZONE.search(text)) is not None:
        ctx.add("preferences.timezone", tz[1] or tz[2], sent, 0.85)
    if (sig := _SIGNATURE.search(text)) is not None:
        ctx.add("preferences.signature", sig[1].strip(), sent, 0.8)


def rule_timezone_only(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A time zone statement needs no durability marker ("my timezone is Europe/Paris")."""
    if _DURABLE.search(sent.text) or not clause_ok(parts, sent, sent.start):
        return
    if (tz := _TIMEZONE.search(sent.text)) is not None:
        ctx.add("preferences.timezone", tz[1] or tz[2], sent, 0.85)
