"""Allergy patterns: "I'm allergic to penicillin", "peanuts give me hives", an allergy list
under a heading, a reaction or another allergen said after one, and the severity; the
substances a rule may take without "allergic" come from the reference data the checks use
(drug names, food allergens); intolerances ("I'm lactose-intolerant"). The one home of
health.allergies."""

from __future__ import annotations

import re
from typing import Any

from uac.fact_log.extraction.lazy import compile_kept, lazy
from uac.fact_log.extraction.patterns.text import (
    Ctx,
    Span,
    clause_ok,
    drug_vocabulary,
    in_clause,
    someone_else,
    word_set,
)
from uac.fact_log.reference import food_data, vocabulary

_ALLERGIC = compile_kept(
    # "I am, as you know, allergic to codeine": an aside between the subject and the word
    r"(?:\b(?:i(?:'?m|\s+am)(?:,\s+[a-z][a-z ]{1,25},)?|i(?:'ve|\s+have)\s+(?:always\s+)?been|"
    r"i\s+was\s+(?:found|diagnosed|told)"
    r"(?:\s+to\s+be|\s+as)?|turns\s+out\s+i(?:'m|\s+am))\s+|"
    # "allergic to latex - found out at the dentist": a note about the user, no subject said
    r"^(?:(?:and|also|plus|oh|btw|fyi),?\s+)?)"
    r"(?:(?P<sev>very|severely|mildly|seriously|extremely|deathly|highly|slightly|quite)\s+)?"
    r"allergic\s+to\s+(?P<subst>[A-Za-z][A-Za-z-]{1,25}(?:[ \t]{1,2}[A-Za-z][A-Za-z-]{1,25}){0,5})",
    re.IGNORECASE,
)
_ALLERGY_NOUN = lazy(
    r"\b(?:i\s+have|i've\s+got|i\s+have\s+got|my)\s+(?:an?\s+)?"
    r"(?:(?P<sev>severe|mild|moderate|serious|bad|life-threatening|strong)\s+)?"
    r"(?P<subst>[a-z][a-z-]{2,20}(?:\s+[a-z][a-z-]{2,20})?)\s+(?:allergy|intolerance)\b",
    re.IGNORECASE,
)
_ALLERGY_BACKREF = lazy(
    r"^(?P<subst>[A-Za-z][\w-]{2,20}(?:\s[a-z][\w-]{2,20})?)\s+(?:makes?|gives?|causes?)\s+me\b"
    r"[^.!?]{0,80}\bi(?:'m|\s+am)\s+(?:(?P<sev>very|severely|mildly)\s+)?allergic\b(?!\s+to)",
    re.IGNORECASE,
)
# "I'm sulfa allergic", "my allergy is codeine": the allergen said before "allergic" or after
# "my allergy is" (a substance the reference data knows)
_ALLERGIC_AFTER = lazy(
    r"\bi(?:'m|\s+am)\s+(?:(?P<sev>very|severely|mildly|seriously|highly)\s+)?"
    r"(?P<subst>[a-z][a-z-]{2,20})\s+allergic\b(?!\s+to\b)|"
    r"\bmy\s+(?:only\s+)?allergy\s+is\s+(?:to\s+)?(?P<subst2>[a-z][a-z-]{2,20})\b",
    re.I,
)
# What an allergy does, one closed list for every rule that reads a reaction.
_REACTION_WORDS = "|".join(vocabulary()["ordered_lists"]["reaction_words"])
REACTION_WORDS = _REACTION_WORDS  # the frames' reaction slot reads the same list
# "shellfish makes my throat swell", "peanuts give me hives", "but prawns make my lips swell
# up": a substance the reference data knows, then what it does to the user.
_REACTS = compile_kept(
    r"(?:^|\bbut\s+|,\s*|\band\s+)(?P<subst>[A-Za-z][\w-]{2,20}(?:\s[a-z][\w-]{2,20})?)\s+"
    r"(?:always\s+|really\s+)?(?:gives?|makes?|brings?|sets?\s+off)\s+(?:me|my\s+[a-z]{3,10})\s+"
    r"(?:come\s+out\s+in\s+|break\s+out\s+in\s+|out\s+in\s+)?(?:an?\s+)?(?P<r>"
    + _REACTION_WORDS
    + r")\b",
    re.IGNORECASE,
)
# "had anaphylaxis after amoxicillin", "came out in hives from penicillin": a reaction, then
# the substance that caused it (one the reference data knows)
_REACTION_AFTER = lazy(
    r"\b(?:had|got|get|went\s+into|came\s+out\s+in|broke\s+out\s+in)\s+(?:an?\s+)?"
    r"(?P<r>anaphylactic\s+shock|" + _REACTION_WORDS + r")"
    r"(?:\s+as\s+an?\s+(?:kid|child|baby|teenager|teen)|\s+once|\s+years\s+ago)?"
    r"\s+(?:after|from|with)\s+"
    r"(?:taking\s+|eating\s+|having\s+|some\s+)?(?P<subst>[A-Za-z][\w-]{2,20})\b",
    re.IGNORECASE,
)
# "also latex, just a rash", after an allergy: another one, said with its reaction only
_ALSO_ALLERGY = lazy(
    r"^(?:also|and|plus)\s+(?P<subst>[a-z][a-z-]{2,20}(?:\s[a-z][a-z-]{2,20})?)\s*,\s*"
    r"(?:(?P<sev>just|only|mild|bad|severe|really\s+bad)\s+)?(?:an?\s+)?(?P<r>"
    + _REACTION_WORDS
    + r")\b",
    re.IGNORECASE,
)
# "I react badly to sulfa drugs", "I had a bad reaction to amoxicillin", "Severe peanut
# allergy here": said without "allergic"; the substance must be a drug or food allergen the
# reference data knows (a reaction to the news is not an allergy).
_REACTS_TO = lazy(
    r"\bi\s+(?:react|reacted)\s+(?:really\s+|very\s+)?(?:badly\s+|severely\s+)?to\s+|"
    r"\bi(?:'ve|\s+have)?\s+(?:had|have|get)\s+(?:a|an)\s+(?:really\s+)?(?P<sev>bad|severe|serious|"
    r"allergic|nasty|mild|life-threatening)\s+reaction\s+to\s+",
    re.I,
)
_ALLERGY_HERE = lazy(
    r"^(?:also\s+|and\s+)?(?:(?P<sev>severe|mild|bad|serious|life-threatening)\s+)?"
    r"(?P<subst>[a-z][a-z-]{2,20})\s+allergy\b(?!\s+(?:is|was)\s+(?:common|rare))",
    re.I,
)
_ALLERGY_CJK = compile_kept(r"我对(?P<subst>[\u4e00-\u9fff]{1,8})过敏")
_REACTION = lazy(
    r"\b(?:i\s+get|i\s+got|i\s+break\s+out\s+in|gives?\s+me|causes?|makes?\s+me(?:\s+get|\s+break\s+out"
    r"\s+in|\s+come\s+out\s+in)?|i\s+go\s+into|react(?:ion)?\s+(?:is|was|with)|i\s+had|"
    r"i\s+come\s+out\s+in|(?:came|come|broke)\s+(?:up|out)\s+in|my\s+\w+\s+swells?\s+up|"
    # "my lips are swelling", "my eyes go puffy": the body part said, then what it does
    r"my\s+\w+\s+(?:are|is|get|gets|go|goes|went|got)(?=\s+(?:swell|swollen|itch|puff|red\b|blotch))|"
    r"i\s+swell\s+up)\s+(?:an?\s+|in\s+)?"
    r"(?P<r>[a-z][a-z -]{1,40}?)(?=[,.;!?)]|$|\s+(?:and\s+i|but|so|if|when)\b)",
    re.IGNORECASE,
)
# "allergic to shrimp and crab (my lips swell)", "sulfa allergic (hives)": a reaction in
# brackets after the allergens
_BRACKET_REACTION = lazy(
    r"\((?:[^()]{0,24}?\b)?(?P<r>" + _REACTION_WORDS + r")\b[^()]{0,24}\)", re.I
)
# "I react to sulfa drugs. I got a rash all over": the next sentence says what it does
_REACTION_NEXT = lazy(
    r"^(?:and\s+|but\s+|oh\s+)?(?:i\s+(?:got|get|had|came\s+out\s+in|come\s+out\s+in|"
    r"broke\s+out\s+in|break\s+out\s+in)|(?:it|they)\s+(?:gives?|gave|makes?|made)\s+me"
    r"(?:\s+come\s+out\s+in|\s+break\s+out\s+in)?)\s+(?:an?\s+|really\s+|bad\s+|awful\s+)?"
    r"(?P<r>" + _REACTION_WORDS + r")\b",
    re.I,
)
# "allergic to penicillin, hives as a kid": the reaction named alone right after
_BARE_REACTION = lazy(
    r"\s*[,:;-]\s*(?:just\s+|only\s+|an?\s+|bad\s+|mild\s+|severe\s+)?(?P<r>"
    + _REACTION_WORDS
    + r")\b",
    re.I,
)
_SUBST_STOP = lazy(
    r"\b(?:and\s+i|but|so|since|because|which|that|it|when|if|as|too|also|i|they|from|"
    r"ever|though|all(?!\s+(?-i:[a-z]))|since|in|after|for|with|a|like|at|"
    # a remark after the allergen: "penicillin by the way", "amoxicillin btw", "shrimp po"
    r"by\s+the\s+way|btw|fyi|po|lol|haha|tho|anyway|anyways|ma'am|sir)\b.*$",
    re.IGNORECASE,
)


# "so they didn't give me that": what follows "give me" is no reaction when it is a pronoun
_NO_REACTION = word_set("that it this them those one some any a the another")
_NOT_SUBSTANCE = lazy(
    r"\b(?:me|my|us|him|her|gave|got|told|said|made|put|prescribed|sent|wrote|has|had|was)\b", re.I
)
# "Severe reaction, she called it": how bad the allergy just named is.
_SEVERITY_AFTER = lazy(
    r"^(?:a\s+|it\s+was\s+an?\s+|it's\s+an?\s+)?(?P<sev>severe|mild|moderate|serious|"
    r"life-threatening|anaphylactic)\s+(?:reaction|allergy)\b",
    re.I,
)


def rule_allergy_severity(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """A severity said right after the allergy it belongs to."""
    m = _SEVERITY_AFTER.match(sent.text)
    last = ctx.thread.last("health.allergies")
    if m is None or last is None or not last.get("substance") or ctx.out:
        return
    sev = _severity(m["sev"], m["sev"]) or m["sev"].lower()
    ctx.add("health.allergies", {"substance": last.get("substance"), "severity": sev}, sent, 0.75)


def _reacts_to(ctx: Ctx, sent: Span, parts: list[Span], m: re.Match[str]) -> None:
    """ "I react badly to sulfa drugs": an allergy to a known drug or food."""
    words = re.findall(r"[A-Za-z][A-Za-z-]{1,25}", sent.text[m.end() : m.end() + 40])
    if not words or not _allergen(words[0]) or not in_clause(m, parts, sent):
        return
    for n in (2, 1):  # "sulfa drugs", "amoxicillin"
        subst = " ".join(words[:n]).lower()
        if all(_allergen(w) or w in ("drugs", "antibiotics") for w in subst.split()):
            value: dict[str, Any] = {"substance": subst}
            if sev := _severity(m.groupdict().get("sev"), sent.text):
                value["severity"] = sev
            ctx.add("health.allergies", value, sent, 0.8)
            return


def _severity(text: str | None, sentence: str) -> str | None:
    lowered = f"{text or ''} {sentence}".lower()
    if re.search(r"\b(?:nothing|not(?:\s+that)?|never)\s+(?:serious|severe|bad)\b", lowered):
        return "mild"  # "rash, nothing serious"
    if "anaphyla" in lowered or "epipen" in lowered:
        return "anaphylaxis"
    for word, level in (
        ("severe", "severe"),
        ("serious", "severe"),
        ("life-threatening", "severe"),
        ("deathly", "severe"),
        ("extremely", "severe"),
        ("moderate", "moderate"),
        ("mild", "mild"),
        ("slightly", "mild"),
    ):
        if word in lowered:
            return level
    return None


# After an allergy: "and cashews, that one's serious" (another allergen, nothing else said),
# "rash, nothing serious" (what the one just named does)
_AND_ALLERGEN = lazy(
    r"^(?:and|also|plus)\s+(?P<subst>[a-z][a-z-]{2,20}(?:\s[a-z][a-z-]{2,20})?)\s*"
    r"(?:,\s*(?:that|this|the)\s+one|\s+too\b|[.!]*$)",
    re.I,
)
_ONLY_REACTION = lazy(
    r"^(?:just\s+|only\s+|a\s+|an\s+)?(?P<r>" + _REACTION_WORDS + r")\b[^.!?]{0,30}$", re.I
)


def _allergy_follow_up(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """Another allergen or the last one's reaction, said elliptically; True when one was."""
    last = ctx.thread.last("health.allergies")
    if last is None or not clause_ok(parts, sent, sent.start):
        return False
    if (m := _AND_ALLERGEN.match(sent.text)) and _allergen(m["subst"]):
        value = {"substance": m["subst"].lower()}
        if sev := _severity(None, sent.text):
            value["severity"] = sev
        ctx.add("health.allergies", value, sent, 0.75)
        return True
    m = _ONLY_REACTION.match(sent.text) or _REACTION_NEXT.match(sent.text)
    if m and last.get("substance"):
        value = {"substance": last.get("substance"), "reaction": " ".join(m["r"].split())}
        if sev := _severity(None, sent.text):
            value["severity"] = sev
        ctx.add("health.allergies", value, sent, 0.75)
        return True
    return False


# "allergic to peanuts, shellfish and latex": the list goes on past the first comma
_MORE_ITEMS = lazy(
    r"\s*,\s*(?:and\s+|or\s+)?([A-Za-z][A-Za-z-]{1,25}(?:[ \t][A-Za-z][A-Za-z-]{1,25}){0,3})"
)
_NARROWING = word_set("especially particularly mainly mostly even including like such except")
# What one is allergic to besides the drugs and the EU food allergens of the reference data:
# the environment, animals, materials, and foods outside the fourteen (singular or plural).
_OTHER_ALLERGENS = frozenset(vocabulary()["word_sets"]["other_allergens"])
DRUG_SUFFIX = lazy(
    r"(?:pril|olol|sartan|statin|mab|cillin|mycin|azole|pine|oxetine|aline|pam|lam|tide|"
    r"gliptin|flozin|profen|formin|prazole|tidine|dronate|asone|olone|vir|zine|pride|cycline|"
    r"floxacin|caine)$",
    re.IGNORECASE,
)


def plausible_allergen(subst: str) -> bool:
    """Whether a substance said after "allergic to" names something one can be allergic to:
    a word the reference data knows (drug, food allergen), an allergen of the environment, or
    a drug by its name's ending ("allergic to Mondays" names none)."""
    words = re.findall(r"[a-z]+", subst.lower())
    return any(_allergen(w) or w in _OTHER_ALLERGENS or DRUG_SUFFIX.search(w) for w in words)


def _listed_after(text: str, at: int) -> str:
    """The rest of a list of allergens after the first one (", shellfish and latex"), as long
    as each item names something one can be allergic to."""
    out = ""
    while (more := _MORE_ITEMS.match(text, at)) is not None:
        words = re.split(r"\s+(?:and|or)\s+|\s+", more[1].lower())
        if words[0] in _NARROWING or not any(_allergen(w) or w in _OTHER_ALLERGENS for w in words):
            break  # "tree nuts, especially walnuts": the same allergy, said more closely
        out, at = out + ", " + more[1], more.end()
    return out


def _group_of(subst: str) -> str | None:
    """The reference data's allergen group a substance names ("shrimp" -> shellfish)."""
    key = re.sub(r"^all\s+", "", subst.strip().lower())
    for group, entry in food_data()[2].items():
        if key in entry["names"] or key.rstrip("s") in entry["names"]:
            return group
    return None


def _broadest(items: list[str]) -> list[str]:
    """A list of allergens without the members of a group also named whole: "shrimp and all
    shellfish" is the shellfish allergy (as "tree nuts, especially walnuts" is tree nuts)."""
    heads = {g for i in items if (g := _group_of(i)) and _is_head(i, g)}
    return [i for i in items if not ((g := _group_of(i)) in heads and not _is_head(i, g))]


def _is_head(item: str, group: str) -> bool:
    """Whether an item names its group as a whole ("all shellfish", "tree nuts", "dairy")."""
    names = food_data()[2][group]["names"]
    key = re.sub(r"^all\s+", "", item.strip().lower())
    return key in names[:3] or key.replace(" ", "_") == group or key == group


def _allergen(word: str) -> bool:
    """A drug name or a food allergen of the reference data (what an allergy can be to)."""
    key = word.lower()
    keys = (key, key.removesuffix("s"), key.removesuffix("es"))  # "cashews", "peaches"
    foods = food_data()[2].values()
    return key in drug_vocabulary() or any(k in entry["names"] for k in keys for entry in foods)


# "allergy list for the new GP: penicillin (rash)", "Allergies: ibuprofen (swelling) and
# peanuts": the user's allergies under a heading that names them, a reaction in brackets
_ALLERGY_LIST = lazy(
    r"^(?P<head>(?:my\s+)?(?:allerg(?:y|ies)|allergic\s+to)(?:\s+list)?(?:\s+(?:for|at)\s+[^:]{1,40})?)"
    r"\s*[:–—]\s*(?P<list>.+?)[.!\s]*$",
    re.I,
)
_LISTED = lazy(
    r"(?P<s>[A-Za-z][A-Za-z -]{1,30}?)\s*(?:\((?P<r>[^)]{1,30})\))?\s*(?:,|;|/|\band\b|$)"
)


def _allergy_list(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """Allergies listed under a heading; True when the sentence is such a list."""
    m = _ALLERGY_LIST.match(sent.text)
    if m is None or someone_else(m["head"]) or not clause_ok(parts, sent, sent.start):
        return False
    for item in _LISTED.finditer(m["list"]):
        subst = item["s"].strip().lower()
        if not subst or len(subst.split()) > 3:
            continue
        value = {"substance": subst} | ({"reaction": item["r"].strip()} if item["r"] else {})
        ctx.add("health.allergies", value, sent, 0.8)
    return True


# "I am not allergic to nothing, only to the cat", "no allergies except penicillin": the one
# allergy said as the exception to none (the negation is the point, so no negation guard)
_ONLY_ALLERGY = lazy(
    r"\b(?:not\s+allergic\s+to\s+(?:anything|nothing)|allergic\s+to\s+nothing|no\s+(?:other\s+)?"
    r"allergies)\b[^.!?]{0,20}?\b(?:only|except|apart\s+from|other\s+than|but)\s+(?:to\s+)?"
    r"(?:the\s+|my\s+)?(?P<subst>[a-z][a-z-]{2,20})\b",
    re.I,
)
# "not fish please, I am allergic": "allergic" with no object is allergic to what was named
_ALLERGIC_BARE = lazy(
    r"\bi(?:'?m|\s+am)\s+(?:very\s+|severely\s+|really\s+)?allergic\b(?!\s+to\b)", re.I
)
_ANIMALS = frozenset({"cat", "cats", "dog", "dogs", "horse", "horses", "rabbit", "rabbits"})


def _allergy_said_otherwise(ctx: Ctx, sent: Span, parts: list[Span]) -> bool:
    """The exception to "no allergies", or "I'm allergic" after the allergen; True if read."""
    if (m := _ONLY_ALLERGY.search(sent.text)) is not None:
        subst = m["subst"].lower()
        if someone_else(sent.text[: m.start()]) or "?" in sent.text:
            return False
        if _allergen(subst) or subst in _ANIMALS or subst == "latex":
            ctx.add("health.allergies", {"substance": subst}, sent, 0.8)
            return True
        return False
    m = _ALLERGIC_BARE.search(sent.text)
    if m is None or not clause_ok(parts, sent, sent.start + m.start()):
        return False
    named = [
        w for w in re.findall(r"[A-Za-z][A-Za-z-]{2,25}", sent.text[: m.start()]) if _allergen(w)
    ]
    if not named:
        return False
    ctx.add("health.allergies", {"substance": named[-1].lower()}, sent, 0.75)
    return True


def rule_allergies(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """Allergies stated in the first person, with reaction and severity when given."""
    if _allergy_list(ctx, sent, parts) or _allergy_said_otherwise(ctx, sent, parts):
        return
    hits = [*_ALLERGIC.finditer(sent.text), *_ALLERGY_NOUN.finditer(sent.text)]
    hits += list(_ALLERGY_CJK.finditer(sent.text))
    hits += list(_ALLERGY_BACKREF.finditer(sent.text))
    if not hits and (m := _REACTS.search(sent.text)) and _allergen(m["subst"].split()[-1]):
        hits.append(m)
    if not hits and (m := _ALSO_ALLERGY.match(sent.text)) and ctx.thread.last("health.allergies"):
        hits.append(m)
    if not hits and _allergy_follow_up(ctx, sent, parts):
        return
    if not hits and (m := _REACTION_AFTER.search(sent.text)) and _allergen(m["subst"]):
        hits.append(m)
    if not hits and (m := _ALLERGY_HERE.search(sent.text)) and _allergen(m["subst"]):
        hits.append(m)
    after = None if hits else _ALLERGIC_AFTER.search(sent.text)
    if after is not None and _allergen(after["subst"] or after["subst2"]):
        hits.append(after)
    before = len(ctx.out)
    for m in hits:
        at = m.start("subst") if m.re is _REACTS else m.start()  # after a "but" that splits
        if not clause_ok(parts, sent, sent.start + at):
            continue
        if m.re is _ALLERGIC and "?" in sent.text and not re.match(r"i\b|i'|turns", m[0], re.I):
            continue  # "allergic to cats?": asked, not said (no subject to tell it by)
        raw = _SUBST_STOP.sub("", m["subst"] or m.groupdict().get("subst2") or "").strip()
        if m.re is _ALLERGIC and not _SUBST_STOP.search(m["subst"]):
            raw += _listed_after(sent.text, m.end())
        said = m.groupdict().get("r")  # "Penicillin gives me a rash": the reaction is matched
        reaction = (
            {"r": said}
            if said
            else _REACTION.search(sent.text, m.end())
            or _BARE_REACTION.match(sent.text, m.end())
            or _BRACKET_REACTION.search(sent.text, m.end())
        )
        sev = _severity(m.groupdict().get("sev"), sent.text)
        for subst in _broadest(re.split(r"\s*(?:,|\band\b|\bor\b|\bplus\b)\s*", raw)):
            subst = re.sub(r"^all\s+", "", subst.strip().lower())  # "and all shellfish"
            if not subst or subst in ("it", "that", "them", "something", "anything", "stuff"):
                continue
            if _NOT_SUBSTANCE.search(subst):
                break  # "... and gave me an EpiPen": the list of substances has ended
            if m.re is not _ALLERGY_CJK and not plausible_allergen(subst):
                continue  # "allergic to Mondays haha", "allergic to my job": no allergen
            value: dict[str, Any] = {"substance": subst}
            if reaction and reaction["r"].split()[0].lower() not in _NO_REACTION:
                value["reaction"] = " ".join(reaction["r"].split())
            if sev:
                value["severity"] = sev
            ctx.add("health.allergies", value, sent, 0.9)
    # "I had a bad reaction to amoxicillin, so I'm allergic to it": nothing named after "to"
    if len(ctx.out) == before and (m := _REACTS_TO.search(sent.text)):
        _reacts_to(ctx, sent, parts, m)


_INTOLERANT = lazy(r"\bi(?:'m|\s+am)\s+(?P<subst>[a-z]{3,15})[- ]intolerant\b", re.I)


def rule_intolerance(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
    """An intolerance said of oneself ("I'm lactose-intolerant"): a mild allergy record."""
    if (m := _INTOLERANT.search(sent.text)) and in_clause(m, parts, sent):
        value = {"substance": m["subst"].lower(), "reaction": "intolerance", "severity": "mild"}
        ctx.add("health.allergies", value, sent, 0.8)
