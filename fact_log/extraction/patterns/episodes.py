"""Episode patterns: a problem the user had and what fixed it ("my VPN failed ... X fixed it").

Conservative like every rule here: an episode needs both a first-person problem ("my VPN
failed", "our printer stopped working") and a fix stated as done ("re-installing the
profile fixed it", "I fixed it by ..."), in the same message. What was tried and what did
not help are added when stated ("I tried restarting the router", "rebooting didn't help").
The whole message is the evidence: the parts often sit in different sentences.

`progress` is not a rule: "done with the visa form, next is the bank letter" names no goal,
so it needs the subject's open tasks, which only the runtime has (runtime/api/journal.py).
"""

from __future__ import annotations

import re

from uac.fact_log.extraction.lazy import compile_kept, lazy
from uac.fact_log.extraction.patterns.text import Ctx, Span
from uac.fact_log.reference import vocabulary

_THING = r"[A-Za-z][\w'’ -]{1,40}?"
_BROKE = "(?:" + "|".join(vocabulary()["ordered_lists"]["broke_down"]) + ")"
_PROBLEM = lazy(rf"\b(?:my|our)\s+(?P<thing>{_THING})\s+(?:\w+\s+)?{_BROKE}", re.IGNORECASE)
_FIXED_BY = lazy(r"\b(?:i|we)\s+fixed\s+it\s+by\s+(?P<fix>[\w'’ /-]{3,60})", re.IGNORECASE)
_FIX_DID = lazy(
    r"(?:^|[,;.:]\s*|\band\s+|\bthen\s+|\bfinally\s+|\bbut\s+)(?P<fix>[A-Za-z][\w'’ /-]{2,60}?)"
    r"\s+(?:fixed\s+it|solved\s+it|did\s+the\s+trick|sorted\s+it(?:\s+out)?|got\s+it\s+working)",
    re.IGNORECASE,
)
_TRIED = compile_kept(
    r"\b(?:i|we)\s+(?:first\s+)?tried\s+(?P<what>[\w'’ ,/-]{3,80}?)"
    r"(?=\s+(?:but|and\s+it|which|then)\b|[.;:!?]|,\s*(?:but|then)\b|$)",
    re.IGNORECASE,
)
_NO_HELP = lazy(
    r"(?:^|[,;.:]\s*|\band\s+|\bbut\s+)(?P<what>[A-Za-z][\w'’ /-]{2,60}?)\s+"
    r"(?:did\s*n[o']?t|didn't|did\s+not)\s+(?:help|work|fix\s+it|do\s+anything)",
    re.IGNORECASE,
)
_OTHERS = lazy(r"['’]s\b|\b(?:friend|sister|brother|mum|mom|dad|wife|husband|partner)\b", re.I)
_PRONOUNS = {"that", "it", "this", "which", "none of that", "nothing"}
_LEAD = lazy(r"^(?:i\s+|we\s+|then\s+|finally\s+|and\s+|but\s+|last\s+time\s+)+", re.I)
_SPLIT = lazy(r"\s*(?:,|\band\s+then\b|\band\b|\bthen\b)\s*", re.IGNORECASE)


def _clean(text: str) -> str:
    text = _LEAD.sub("", " ".join(text.split())).strip(" ,.;:")
    first = text.split()[0] if text.split() else ""
    return text if len(first) > 1 and first.isupper() else text[:1].lower() + text[1:]


def rule_episodes(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A problem with its fix (and what was tried) becomes a support episode."""
    if sent.start != 0:
        return  # the rule reads the whole message once, at its first sentence
    text = ctx.text
    problem = _PROBLEM.search(text)
    if problem is None or _OTHERS.search(problem["thing"]):
        return  # "my sister's car broke down": someone else's problem
    rest = text[problem.end() :]  # the fix comes after the problem, never inside it
    fix = _FIXED_BY.search(rest) or _FIX_DID.search(rest)
    if fix is None:
        return
    tried: list[str] = []
    failed: list[str] = []
    for m in sorted([*_TRIED.finditer(rest), *_NO_HELP.finditer(rest)], key=lambda m: m.start()):
        if m.re is _TRIED:
            tried += [_clean(p) for p in _SPLIT.split(m["what"]) if p.strip()]
        elif _clean(m["what"]).lower() not in _PRONOUNS:
            failed.append(_clean(m["what"]))
        elif tried:  # "I tried X, but that didn't help": the last thing tried
            failed.append(tried[-1])
    worked = _clean(fix["fix"])
    for item in [*failed, worked]:
        if item and item not in tried:
            tried.append(item)
    value = {
        "problem": _clean(problem[0][problem.start("thing") - problem.start() :]),
        "date": ctx.today,
        "tried": [t for t in tried if t],
        "worked": worked,
        "failed": [f for f in failed if f],
    }
    ctx.add("support.episodes", value, Span(0, text), 0.8)
