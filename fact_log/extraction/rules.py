"""A deterministic, catalog-driven rule extractor: one message in, typed fact candidates out.

The extractor works sentence by sentence, and inside a sentence clause by clause, so that a
guard word ("maybe", "not", "if") only silences the clause it belongs to: "My passport
expires on 14 August 2027, should I renew it?" still yields the expiry. Rules are
deliberately conservative (precision over recall): a candidate needs a first-person anchor
("I", "my", an imperative preference) and every value is validated against the catalog;
anything that does not validate is dropped, never coerced.

Every regex is linear: bounded repetitions, no nested unbounded quantifiers. Sentences longer
than MAX_SENTENCE characters are skipped (no one states a fact in a 2,000-character
sentence, and it bounds the work on hostile input).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from pydantic import ValidationError

from uac.fact_log.catalog import Catalog
from uac.fact_log.errors import InputError
from uac.fact_log.extraction.dates import DateMatch, Prefer, find_dates, find_time
from uac.fact_log.extraction.places import CITIES, COUNTRIES, NATIONALITIES, lookup_place

MAX_SENTENCE = 2000


def _words(text: str) -> frozenset[str]:
    """A word list written as one string (keeps long lexicons compact)."""
    return frozenset(text.split())


@dataclass(frozen=True, slots=True)
class Candidate:
    """A proposed fact with the exact quote of the message that supports it."""

    kind: str  # "attribute" | "record" | "preference" | "note"
    path: str
    value: Any
    op: str  # "assert", or "end" for a record that stopped (medication, subscription)
    quote: str
    start: int
    confidence: float

    @property
    def end(self) -> int:
        """Offset just past the quote."""
        return self.start + len(self.quote)


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of the message with its offset."""

    start: int
    text: str

    @property
    def end(self) -> int:
        """Offset just past the span."""
        return self.start + len(self.text)


@lru_cache(maxsize=1)
def builtin_catalog() -> Catalog:
    """The built-in catalog, loaded once."""
    return Catalog.load()


# -- segmentation --------------------------------------------------------------------------

_ABBREV = re.compile(r"\b(?:dr|mr|mrs|ms|st|prof|vs|etc|e\.g|i\.e|approx|a\.m|p\.m|no)$", re.I)
_SENT_END = re.compile(r"[.!?。！？；;\n]")
_CLAUSE_SPLIT = re.compile(r"[,，:：—–]|\s-\s|\bbut\b|\bthough\b|\bhowever\b|但是|不过")


def sentences(text: str) -> Iterator[Span]:
    """Split text into sentences, keeping offsets; "Dr." and "15.49" do not end one."""
    start = 0
    for m in _SENT_END.finditer(text):
        if m[0] == "." and (
            _ABBREV.search(text[max(0, m.start() - 6) : m.start()])
            or text[m.end() : m.end() + 1].isdigit()
            or text[m.end() : m.end() + 1].isalpha()
        ):
            continue  # "Dr. Moore", "15.49", "e.g.": not a sentence end
        yield from _trimmed(text, start, m.end())
        start = m.end()
    yield from _trimmed(text, start, len(text))


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

_HYPOTHETICAL = re.compile(
    r"^\s*(?:and\s+|so\s+)?(?:if|suppose|supposing|imagine|what if|hypothetically|in case|"
    r"let's say|say)\b|\b(?:if i|if we|were i|i wish|what if|would i|would we)\b|"
    r"如果|假如|要是|假设",
    re.IGNORECASE,
)
_UNCERTAIN = re.compile(
    r"\b(?:maybe|might|perhaps|possibly|probably|not sure|unsure|i think|i guess|i suppose|"
    r"i believe|considering|thinking about|thinking of|could|would like to|i'd like to|"
    r"hoping to|hope to|want to|wanna|should|plan to maybe|dreaming of|someday|one day|"
    r"or so|not certain|undecided|tentative(?:ly)?)\b|\b(?:i|we)\s+may\b|也许|可能|大概|或许",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"\b(?:not|never|no|none|neither|nor|don't|doesn't|didn't|isn't|aren't|wasn't|weren't|"
    r"won't|haven't|hasn't|can't|cannot|dont|nobody)\b|n't\b|没有|不是|并不|从不|从没",
    re.IGNORECASE,
)
_WH_QUESTION = re.compile(r"^\s*(?:what|when|where|which|who|why|how)\b", re.IGNORECASE)
# An auxiliary first is a question only with a question mark: "Have a meeting at 10." is not.
_AUX_QUESTION = re.compile(
    r"^\s*(?:can|could|would|should|do|does|did|is|are|will|shall|am|have|has)\b", re.I
)


def is_question(clause: str, sentence: str) -> bool:
    """Whether a clause asks rather than states."""
    return bool(
        _WH_QUESTION.search(clause)
        or (
            ("?" in sentence or "？" in sentence)
            and (_AUX_QUESTION.search(clause) or _AUX_QUESTION.search(sentence))
        )
    )


_THIRD_PARTY = re.compile(
    r"\b(?:my|his|her|their|our)\s+(?:friend|mum|mom|dad|father|mother|brother|sister|son|"
    r"daughter|wife|husband|partner|colleague|boss|kid|child|children|kids|parents|family|"
    r"friends|neighbour|neighbor)\s+(?:is|are|has|have|was|were|will|takes|took|went|goes|"
    r"says|said|thinks|flies|fly|drives|drive|'s|'re)\b|\b(?:he|she|they)\s+"
    r"(?:is|has|was|takes|took|went|goes|flies|drives|'s|are)\b",
    re.IGNORECASE,
)


def guarded(clause: str, before: int | None = None, sentence: str | None = None) -> bool:
    """True when a clause is hypothetical, uncertain, a question, or negated before `before`."""
    if (
        _HYPOTHETICAL.search(clause)
        or _UNCERTAIN.search(clause)
        or is_question(clause, sentence if sentence is not None else clause)
    ):
        return True
    head = clause if before is None else clause[:before]
    return bool(_NEGATION.search(head))


def _clause_of(clauses_: list[Span], offset: int) -> Span | None:
    for c in clauses_:
        if c.start <= offset < c.end:
            return c
    return None


# -- money ---------------------------------------------------------------------------------

CURRENCY_CODES = _words(
    "GBP USD EUR JPY CNY INR CHF CAD AUD NZD SGD HKD SEK NOK DKK PLN CZK HUF MXN BRL ZAR "
    "KRW TRY AED THB"
)
_SYMBOLS = {
    "US$": "USD",
    "A$": "AUD",
    "AU$": "AUD",
    "C$": "CAD",
    "CA$": "CAD",
    "HK$": "HKD",
    "S$": "SGD",
    "NZ$": "NZD",
    "£": "GBP",
    "$": "USD",
    "€": "EUR",
    "¥": "JPY",
    "￥": "CNY",
    "₹": "INR",
}
_WORDS = {
    "pound": "GBP",
    "pounds": "GBP",
    "quid": "GBP",
    "dollar": "USD",
    "dollars": "USD",
    "bucks": "USD",
    "euro": "EUR",
    "euros": "EUR",
    "yen": "JPY",
    "yuan": "CNY",
    "rmb": "CNY",
    "元": "CNY",
    "块": "CNY",
    "rupee": "INR",
    "rupees": "INR",
    "franc": "CHF",
    "francs": "CHF",
}
_NUM = r"\d{1,3}(?:[,.\u202f]\d{3}){1,3}(?:[.,]\d{1,2})?|\d{1,9}(?:[.,]\d{1,2})?"
_MONEY = re.compile(
    r"(?P<sym>US\$|AU\$|A\$|CA\$|C\$|HK\$|S\$|NZ\$|[£$€¥￥₹])\s?(?P<n1>" + _NUM + r")(?P<k1>k\b)?"
    r"|(?<![\w.,])(?P<n2>" + _NUM + r")(?P<k2>k\b)?\s?(?P<unit>[A-Z]{3}\b|[£€$¥]|pounds?\b|"
    r"quid\b|dollars?\b|bucks\b|euros?\b|yen\b|yuan\b|rmb\b|RMB\b|元|块|rupees?\b|francs?\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Money:
    """An amount found in text."""

    start: int
    end: int
    amount: Decimal
    currency: str


def parse_number(raw: str) -> Decimal | None:
    """'1,200.50' / '1.200,50' / '12,50' / '12.99' as an exact Decimal."""
    raw = raw.replace("\u202f", ",")
    if "," in raw and "." in raw:
        dec = "." if raw.rfind(".") > raw.rfind(",") else ","
        thousands = "," if dec == "." else "."
        raw = raw.replace(thousands, "").replace(dec, ".")
    elif "," in raw:
        head, _, tail = raw.rpartition(",")
        # One comma followed by one or two digits is a decimal comma ("12,50 €").
        raw = f"{head.replace(',', '')}.{tail}" if len(tail) <= 2 else raw.replace(",", "")
    elif raw.count(".") > 1 or (raw.count(".") == 1 and len(raw.rpartition(".")[2]) == 3):
        raw = raw.replace(".", "")  # "1.500" is fifteen hundred: money has 2 decimals
    try:
        return Decimal(raw)
    except InvalidOperation:
        return None


def find_money(text: str) -> list[Money]:
    """Amounts with a currency: "£300", "300 GBP", "$12.99", "12,50 €", "179 pounds"."""
    out = []
    for m in _MONEY.finditer(text):
        if m["sym"]:
            currency = _SYMBOLS[m["sym"].upper()]
            number, k = m["n1"], m["k1"]
        else:
            unit = m["unit"]
            if len(unit) == 3 and unit.isalpha() and unit.isascii():
                if unit != unit.upper() or unit not in CURRENCY_CODES:
                    continue  # "300 abc": not an ISO code, so not an amount
                currency = unit
            else:
                currency = _SYMBOLS.get(unit) or _WORDS[unit.lower()]
            number, k = m["n2"], m["k2"]
        amount = parse_number(number)
        if amount is None:
            continue
        if k:
            amount *= 1000
        out.append(Money(m.start(), m.end(), amount, currency))
    return out


# -- lexicons ------------------------------------------------------------------------------

DRUGS = _words(
    "acetaminophen paracetamol ibuprofen naproxen aspirin codeine tramadol morphine "
    "oxycodone amoxicillin penicillin azithromycin doxycycline ciprofloxacin "
    "clarithromycin cephalexin metronidazole nitrofurantoin trimethoprim sertraline "
    "fluoxetine citalopram escitalopram paroxetine venlafaxine duloxetine bupropion "
    "mirtazapine amitriptyline trazodone lithium quetiapine olanzapine aripiprazole "
    "risperidone lamotrigine levetiracetam valproate gabapentin pregabalin topiramate "
    "sumatriptan propranolol metoprolol atenolol bisoprolol carvedilol lisinopril "
    "ramipril enalapril perindopril losartan valsartan candesartan amlodipine nifedipine "
    "diltiazem verapamil hydrochlorothiazide furosemide spironolactone atorvastatin "
    "simvastatin rosuvastatin pravastatin ezetimibe warfarin apixaban rivaroxaban "
    "clopidogrel metformin insulin sitagliptin empagliflozin dapagliflozin semaglutide "
    "ozempic wegovy liraglutide gliclazide levothyroxine thyroxine prednisone "
    "prednisolone hydrocortisone dexamethasone omeprazole esomeprazole lansoprazole "
    "pantoprazole ranitidine famotidine loratadine cetirizine fexofenadine "
    "diphenhydramine montelukast salbutamol albuterol ventolin budesonide fluticasone "
    "tiotropium methotrexate adalimumab allopurinol colchicine finasteride tamsulosin "
    "sildenafil tadalafil melatonin zolpidem diazepam lorazepam alprazolam clonazepam "
    "methylphenidate ritalin adderall lisdexamfetamine atomoxetine isotretinoin "
    "doxylamine estradiol progesterone norethisterone levonorgestrel tylenol advil motrin "
    "nurofen lipitor zoloft prozac lexapro xanax valium synthroid glucophage eliquis "
    "xarelto nexium prilosec zyrtec claritin allegra benadryl singulair humira sulfa "
    "sulfonamides cephalosporins codeine naltrexone buprenorphine hydroxychloroquine "
    "folic iron"
)
CONDITIONS = (
    "type 1 diabetes|type 2 diabetes|diabetes|asthma|hypertension|high blood pressure|"
    "high cholesterol|migraines|migraine|eczema|epilepsy|arthritis|rheumatoid arthritis|"
    "osteoarthritis|depression|anxiety|adhd|coeliac disease|celiac disease|ibs|crohn's disease|"
    "gout|sleep apnea|sleep apnoea|hypothyroidism|hyperthyroidism|psoriasis|copd|glaucoma|"
    "long covid|endometriosis|pcos|fibromyalgia|atrial fibrillation|lupus|multiple sclerosis"
)
MAKES = {
    "toyota": "Toyota",
    "honda": "Honda",
    "ford": "Ford",
    "volkswagen": "Volkswagen",
    "vw": "Volkswagen",
    "bmw": "BMW",
    "audi": "Audi",
    "mercedes": "Mercedes-Benz",
    "mercedes-benz": "Mercedes-Benz",
    "tesla": "Tesla",
    "nissan": "Nissan",
    "hyundai": "Hyundai",
    "kia": "Kia",
    "mazda": "Mazda",
    "subaru": "Subaru",
    "volvo": "Volvo",
    "skoda": "Skoda",
    "škoda": "Skoda",
    "renault": "Renault",
    "peugeot": "Peugeot",
    "citroen": "Citroen",
    "citroën": "Citroen",
    "fiat": "Fiat",
    "chevrolet": "Chevrolet",
    "chevy": "Chevrolet",
    "jeep": "Jeep",
    "lexus": "Lexus",
    "mini": "Mini",
    "porsche": "Porsche",
    "seat": "SEAT",
    "opel": "Opel",
    "vauxhall": "Vauxhall",
    "suzuki": "Suzuki",
    "mitsubishi": "Mitsubishi",
    "dacia": "Dacia",
    "polestar": "Polestar",
    "byd": "BYD",
    "yamaha": "Yamaha",
    "ducati": "Ducati",
    "harley-davidson": "Harley-Davidson",
    "triumph": "Triumph",
    "land rover": "Land Rover",
    "range rover": "Land Rover",
    "jaguar": "Jaguar",
    "rivian": "Rivian",
}
MODEL_MAKES = {
    "civic": "Honda",
    "accord": "Honda",
    "cr-v": "Honda",
    "jazz": "Honda",
    "corolla": "Toyota",
    "camry": "Toyota",
    "prius": "Toyota",
    "rav4": "Toyota",
    "yaris": "Toyota",
    "golf": "Volkswagen",
    "polo": "Volkswagen",
    "passat": "Volkswagen",
    "tiguan": "Volkswagen",
    "fiesta": "Ford",
    "focus": "Ford",
    "mustang": "Ford",
    "f-150": "Ford",
    "octavia": "Skoda",
    "qashqai": "Nissan",
    "leaf": "Nissan",
    "outback": "Subaru",
    "forester": "Subaru",
    "clio": "Renault",
}
SUBSCRIPTION_SERVICES = (
    "netflix|spotify|disney\\+|disney plus|amazon prime|prime video|apple music|apple tv\\+|"
    "apple one|icloud\\+?|youtube premium|youtube music|hbo max|max|hulu|audible|dropbox|"
    "adobe creative cloud|adobe|microsoft 365|office 365|chatgpt plus|claude pro|duolingo|"
    "xbox game pass|game pass|playstation plus|ps plus|peloton|headspace|calm|strava|patreon|"
    "substack|the economist|economist|the new york times|new york times|nyt|financial times|"
    "the guardian|guardian|washington post|notion|slack|github copilot|canva|"
    "nintendo switch online|crunchyroll|paramount\\+|deezer|tidal|kindle unlimited|uber one|"
    "deliveroo plus|now tv|britbox|dazn|sky|masterclass|linkedin premium|grammarly|1password|"
    "nordvpn|expressvpn|google one|evernote|todoist|medium|the athletic|skillshare|coursera plus"
)
RELATIONS = (
    "sister|brother|mother|mom|mum|father|dad|wife|husband|partner|son|daughter|friend|"
    "best friend|colleague|coworker|co-worker|boss|manager|dentist|doctor|gp|physio|"
    "physiotherapist|therapist|cousin|aunt|uncle|niece|nephew|grandmother|grandma|granny|"
    "grandfather|grandpa|neighbour|neighbor|flatmate|roommate|housemate|accountant|lawyer|"
    "solicitor|landlord|landlady|fiancé|fiancée|fiance|fiancee|girlfriend|boyfriend|"
    "stepmother|stepfather|stepson|stepdaughter|mother-in-law|father-in-law|sister-in-law|"
    "brother-in-law|mentor|tutor|teacher|coach|vet|hairdresser|barber|trainer|assistant|"
    "cleaner|babysitter|nanny|godmother|godfather|twin|ex"
)
_NAME = r"[A-Z][a-zà-ÿ'’-]{1,20}(?:[ \t]{1,2}[A-Z][a-zà-ÿ'’-]{1,20}){0,2}"
_NOT_NAMES = _words(
    "I I'm I've I'll I'd The A An This That It He She They We You My Our Monday Tuesday "
    "Wednesday Thursday Friday Saturday Sunday January February March April May June July "
    "August September October November December Today Tomorrow Yesterday Also And But So "
    "Just Actually Please Thanks Hi Hello Dr Mr Mrs Ms Prof"
)
LANGUAGES = {
    "english": "en",
    "chinese": "zh",
    "mandarin": "zh",
    "cantonese": "yue",
    "french": "fr",
    "german": "de",
    "spanish": "es",
    "japanese": "ja",
    "italian": "it",
    "portuguese": "pt",
    "korean": "ko",
    "dutch": "nl",
    "russian": "ru",
    "arabic": "ar",
    "hindi": "hi",
    "中文": "zh",
    "汉语": "zh",
    "普通话": "zh",
    "英文": "en",
    "英语": "en",
    "日语": "ja",
    "日文": "ja",
    "法语": "fr",
    "德语": "de",
    "西班牙语": "es",
    "韩语": "ko",
}


# -- the extractor ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Ctx:
    text: str
    today: dt.date
    catalog: Catalog
    out: list[Candidate]
    following: Span | None = None  # the next sentence, for details that spill over

    def add(
        self, path: str, value: Any, quote: Span, confidence: float, op: str = "assert"
    ) -> None:
        """Validate value against the catalog and keep the candidate only if it passes."""
        typed = validate(self.catalog, path, value)
        if typed is None:
            return
        attr = self.catalog.attributes.get(path)
        kind = attr.kind if attr is not None else "record"
        self.out.append(Candidate(kind, path, typed, op, quote.text, quote.start, confidence))


def validate(catalog: Catalog, path: str, value: Any) -> Any | None:
    """The value typed by the catalog, or None when it does not validate (or path unknown)."""
    attr = catalog.attributes.get(path)
    if attr is not None:
        try:
            return catalog.validate_attribute(attr, value)
        except InputError:
            return None
    coll = catalog.collection(path)
    if coll is None or not isinstance(value, dict):
        return None
    try:
        record = catalog.model_for(coll)(**value)
    except (ValidationError, TypeError):
        return None
    return {k: v for k, v in record.model_dump().items() if v is not None and k != "id"}


def extract(
    text: str, observed_at: dt.datetime, role: str = "user", catalog: Catalog | None = None
) -> list[Candidate]:
    """Typed fact candidates stated by the user in one message (none for other roles)."""
    if role != "user" or not isinstance(text, str) or not text.strip():
        return []
    ctx = _Ctx(text, observed_at.date(), catalog or builtin_catalog(), [])
    spans = list(sentences(text))
    for i, sent in enumerate(spans):
        if len(sent.text) > MAX_SENTENCE:
            continue
        ctx.following = spans[i + 1] if i + 1 < len(spans) else None
        parts = clauses(sent)
        for rule in _RULES:
            rule(ctx, sent, parts)
    return _dedupe(ctx.out)


def _dedupe(cands: list[Candidate]) -> list[Candidate]:
    """One candidate per (path, value): a fact repeated in a message is one fact."""
    seen: set[tuple[str, str]] = set()
    out = []
    for c in cands:
        value = c.value
        key = (c.path, repr(sorted(value.items())) if isinstance(value, dict) else repr(value))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def _ok(parts: list[Span], sent: Span, offset: int) -> bool:
    """The clause holding absolute offset is free of guards before the offset."""
    clause = _clause_of(parts, offset)
    if clause is None:
        return False
    if _HYPOTHETICAL.search(sent.text[:20]) and not sent.text[:20].lower().startswith("as if"):
        return False
    head = clause.text[: offset - clause.start]
    # "my parents are flying to Toronto": a fact about someone else, not the user.
    if guarded(clause.text, offset - clause.start, sent.text):
        return False
    return not _THIRD_PARTY.search(head)


def _dates(sent: Span, prefer: Prefer, today: dt.date) -> list[DateMatch]:
    """Dates in a sentence (absolute offsets), skipping corrected ones ("not March 5")."""
    out = []
    for d in find_dates(sent.text, today, prefer):
        before = sent.text[max(0, d.start - 12) : d.start].lower()
        if re.search(r"\b(?:not|instead of|rather than|no longer)\s+(?:on\s+)?$", before):
            continue
        out.append(
            DateMatch(sent.start + d.start, sent.start + d.end, d.text, d.date, d.explicit_year)
        )
    return out


# -- identity ------------------------------------------------------------------------------

_EXPIRY = re.compile(
    r"\b(?:expir\w{0,6}|valid\s+(?:until|till|til|to|through|thru)|runs?\s+out|"
    r"good\s+(?:until|till|through)|(?:is\s+)?due\s+to\s+expire|ends?)\b|到期|过期",
    re.IGNORECASE,
)
_DOC = re.compile(
    r"\b(?P<passport>passport)\b|\b(?P<licence>driv(?:ing|er'?s?)\s+licen[cs]e|licen[cs]e)\b|"
    r"(?P<cpassport>护照)|(?P<clicence>驾照|驾驶证)",
    re.IGNORECASE,
)
_DOC_NUMBER = re.compile(
    r"\b(passport|driv(?:ing|er'?s?)\s+licen[cs]e|licen[cs]e)\s+(?:number|no\.?|#)\s*"
    r"(?:is\s+|:\s*)?([A-Z0-9]{5,12})\b",
    re.IGNORECASE,
)
_MY_NAME = re.compile(r"\b(?i:my\s+(?:full\s+)?name\s+is)\s+(" + _NAME + r")")
_BORN = re.compile(
    r"\b(?:i\s+was\s+born\s+on|my\s+(?:birthday|date\s+of\s+birth|dob|birth\s+date)\s+is(?:\s+on)?)\b",
    re.IGNORECASE,
)
_NATIONALITY = re.compile(
    r"\b(?:i(?:'m|\s+am)\s+(?:a\s+)?|my\s+nationality\s+is\s+|i\s+hold\s+(?:a\s+|an\s+)?|"
    r"i\s+have\s+(?:a\s+|an\s+)?)(" + "|".join(NATIONALITIES) + r")"
    r"(?:\s+(citizen|national|citizenship|passport))?\b",
    re.IGNORECASE,
)


def rule_identity(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """Passport / licence expiry and numbers, name, birth date, nationality."""
    docs = list(_DOC.finditer(sent.text))
    if docs and (exp := _EXPIRY.search(sent.text)):
        abs_exp = sent.start + exp.start()
        if _ok(parts, sent, abs_exp):
            dates = [
                d
                for d in _dates(sent, "future", ctx.today)
                if d.start > sent.start + docs[0].start()
            ]
            if dates and dates[0].valid:
                # The document named closest before the date is the one that expires.
                doc = [m for m in docs if sent.start + m.start() < dates[0].start][-1]
                which = "passport" if doc["passport"] or doc["cpassport"] else "driver_licence"
                conf = 0.9 if dates[0].explicit_year else 0.7
                ctx.add(f"identity.{which}.expiry_date", dates[0].date, sent, conf)
    for m in _DOC_NUMBER.finditer(sent.text):
        if not _ok(parts, sent, sent.start + m.start()):
            continue
        which = "passport" if m[1].lower() == "passport" else "driver_licence"
        if any(ch.isdigit() for ch in m[2]):
            ctx.add(f"identity.{which}.number", m[2].upper(), sent, 0.85)
    m = _MY_NAME.search(sent.text)
    if m and _ok(parts, sent, sent.start + m.start()) and m[1].split()[0] not in _NOT_NAMES:
        ctx.add("identity.name", m[1], sent, 0.85)
    if (m := _BORN.search(sent.text)) and _ok(parts, sent, sent.start + m.start()):
        dates = [d for d in _dates(sent, "past", ctx.today) if d.start >= sent.start + m.end()]
        if dates and dates[0].valid and dates[0].explicit_year:
            ctx.add("identity.birth_date", dates[0].date, sent, 0.9)
    m = _NATIONALITY.search(sent.text)
    # "I'm British" names a nationality; "I have a British passport" only with the noun.
    if (
        m
        and _ok(parts, sent, sent.start + m.start())
        and (m[0].lower().startswith(("i'm", "i am", "my nationality")) or m[2])
    ):
        ctx.add("identity.nationality", NATIONALITIES[m[1].lower()], sent, 0.8)


# -- travel --------------------------------------------------------------------------------

_TRAVEL = re.compile(
    r"\b(?P<plane>fly(?:ing)?|flew|flight|plane)\b|\b(?P<train>train|eurostar|rail)\b|"
    r"\b(?P<car>drive|driving|drove|road\s+trip)\b|\b(?P<bus>bus|coach)\b|"
    r"\b(?P<boat>ferry|cruise|boat|sail(?:ing)?)\b|"
    r"\b(?P<other>travel(?:l?ing)?|travell?ed|going|go|heading|head|off|trip|visit(?:ing)?|"
    r"visited|holiday|vacation|booked|leaving|leave|went|was|were|be|back|returning|getaway)\b|"
    r"(?P<cjk>出差|旅行|旅游|飞往|前往|去)",
    re.IGNORECASE,
)
_PLACE_INTRO = re.compile(
    r"\b(?:to|in|visit(?:ing)?|visited|for|from)[ \t]{1,3}((?:[A-Z][\w'’.-]{0,20}|[a-z]{2,3}\b)"
    r"(?:[ \t]{1,2}[A-Z][\w'’.-]{0,20}){0,2})"
    r"|(?:去|到|飞往|飞|前往)([\u4e00-\u9fff]{2,5})"
)
_RETURN = re.compile(
    r"\b(?:back|return(?:ing)?|home|until|till|til|through|thru|to|and)\s+(?:on\s+)?$|[-–]\s*$",
    re.IGNORECASE,
)
_PURPOSE = (
    (
        re.compile(r"\b(?:for\s+work|business|conference|client|meeting|work\s+trip)\b|出差", re.I),
        "business",
    ),
    (
        re.compile(
            r"\b(?:holiday|vacation|honeymoon|getaway|sightseeing|leisure|ski(?:ing)?)\b", re.I
        ),
        "leisure",
    ),
    (
        re.compile(
            r"\b(?:see|visit|visiting)\s+(?:my\s+)?(?:family|parents|mum|mom|dad|grand\w+|relatives|sister|brother)\b|\bwedding\b",
            re.I,
        ),
        "family",
    ),
    (re.compile(r"\b(?:study|studying|semester|course|exchange)\b", re.I), "study"),
)
_PAST = re.compile(
    r"\b(?:went|was|were|visited|flew|drove|came\s+back|got\s+back|returned|had\s+been|last)\b",
    re.IGNORECASE,
)
_CONTINUES = re.compile(
    r"(?:leaving|departing|departure|out|flying\s+out|we\s+leave|i\s+leave|going)\b", re.I
)
_NOT_TRAVEL = re.compile(r"\b(?:moving|move|moved|live|lives|living|born|weather)\b", re.I)


def _place(sent: Span) -> tuple[str | None, str, int] | None:
    """The first known destination after 'to/in/visit' with its absolute offset."""
    for m in _PLACE_INTRO.finditer(sent.text):
        if m[0].lower().startswith("from"):
            continue
        if m[2]:  # Chinese: no spaces, so try the longest known prefix of the characters
            for n in range(len(m[2]), 1, -1):
                found = lookup_place(m[2][:n])
                if found is not None:
                    return found[0], found[1], sent.start + m.start(2)
            continue
        words = m[1].split()
        for n in range(len(words), 0, -1):
            name = " ".join(words[:n]).rstrip(".,'’")
            key = name.casefold()
            if not name[:1].isupper() and key not in ("uk", "us", "usa", "uae"):
                continue
            found = lookup_place(name)
            if found is not None:
                return found[0], found[1], sent.start + m.start(1)
    return None


def rule_trips(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """Booked or past trips with a destination and a departure date."""
    travel = _TRAVEL.search(sent.text)
    if travel is None or _NOT_TRAVEL.search(sent.text):
        return
    place = _place(sent)
    if place is None:
        return
    city, country, at = place
    if not _ok(parts, sent, at) or not _ok(parts, sent, sent.start + travel.start()):
        return
    prefer: Prefer = "past" if _PAST.search(sent.text) else "future"
    dates = _dates(sent, prefer, ctx.today)
    nxt = ctx.following
    if not dates and nxt is not None and _CONTINUES.match(nxt.text):
        # "Booked flights to Bangkok! Leaving 14 February, coming home 2 March."
        sent = Span(sent.start, ctx.text[sent.start : nxt.end])
        parts = clauses(sent)
        dates = _dates(sent, prefer, ctx.today)
    # The departure is the first date in the clause that names the journey ("the conference
    # is 22-24 September, I'm taking the train there on the 21st"), else the first date.
    verbs = [sent.start + m.start() for m in _TRAVEL.finditer(sent.text) if not m["other"]]
    verbs = verbs or [sent.start + travel.start()]
    home = {id(_clause_of(parts, v)) for v in verbs}
    dates.sort(key=lambda d: (id(_clause_of(parts, d.start)) not in home, d.start))
    depart = ret = None
    for d in dates:
        lead = ctx.text[max(sent.start, d.start - 25) : d.start]
        if depart is not None and d.start > depart.start and _RETURN.search(lead):
            ret = d
            break
        if depart is None:
            depart = d
    if depart is None or not depart.valid or (ret is not None and not ret.valid):
        return  # no departure day, or a day that does not exist: nothing to record
    value: dict[str, Any] = {"country": country, "depart": depart.date}
    if city:
        value["city"] = city
    if ret is not None and ret.date is not None and ret.date >= depart.date:  # type: ignore[operator]
        value["return_date"] = ret.date
    for purpose_re, purpose in _PURPOSE:
        if purpose_re.search(sent.text):
            value["purpose"] = purpose
            break
    for mode in ("plane", "train", "car", "bus", "boat"):
        if any(m[mode] for m in _TRAVEL.finditer(sent.text)):
            value["transport"] = mode
            break
    ctx.add("travel.trips", value, sent, 0.85 if depart.explicit_year else 0.8)


# -- health --------------------------------------------------------------------------------

_DOSE = r"\d{1,4}(?:\.\d{1,3})?\s?(?:mg|mcg|µg|ug|g|ml|iu|units?)\b"
_MED_START = re.compile(
    r"\b(?:started(?:\s+me\s+on|\s+taking)?|starting|began(?:\s+taking)?|(?:put|has|have)\s+me\s+on|"
    r"prescribed(?:\s+me)?|(?:^|i've\s+|i\s+have\s+)been\s+(?:taking|on)|"
    r"i(?:'m|\s+am)(?:\s+now|\s+still)?\s+(?:taking|on)|i\s+(?:now\s+|also\s+)?take|"
    r"i(?:'ve|\s+have)\s+been\s+(?:taking|on)|i(?:'m|\s+am)\s+back\s+on|switched\s+(?:me\s+)?to|"
    r"i\s+use|i\s+need\s+to\s+take)\s+"
    r"(?:(?:some|a\s+course\s+of|a\s+low\s+dose\s+of|the|my|daily)\s+)?"
    r"(?P<dose1>" + _DOSE + r")?(?:\s*(?:of\s+))?\s*(?P<name>[A-Za-z][A-Za-z-]{2,30})"
    r"(?:\s+(?P<dose2>" + _DOSE + r"))?",
    re.IGNORECASE,
)
_MED_STOP = re.compile(
    r"\b(?:stopped(?:\s+taking)?|quit(?:\s+taking)?|came\s+off|come\s+off|discontinued|"
    r"finished(?:\s+my\s+course\s+of)?|no\s+longer\s+(?:take|taking|on)|"
    r"(?:don't|do\s+not)\s+take)\s+(?:my\s+|the\s+)?(?P<name>[A-Za-z][A-Za-z-]{2,30})",
    re.IGNORECASE,
)
_FREQ = re.compile(
    r"\b(?:once|twice|three\s+times|four\s+times|\d\s+times)\s+(?:a|per)\s+(?:day|week)|"
    r"\bdaily\b|\bweekly\b|\bevery\s+(?:morning|evening|night|day|other\s+day|\d{1,2}\s+hours)|"
    r"\bat\s+(?:night|bedtime)\b|\bin\s+the\s+(?:morning|evening)\b|\bas\s+needed\b",
    re.IGNORECASE,
)
_REASON = re.compile(
    r"\bfor\s+(?:my\s+)?([a-z][a-z' ]{2,30}?)(?=[,.;!?]|$|\s+(?:and|but|since|because)\b)", re.I
)
_DRUG_SUFFIX = re.compile(
    r"(?:pril|olol|sartan|statin|mab|cillin|mycin|azole|pine|oxetine|aline|pam|lam|tide|"
    r"gliptin|flozin|profen|formin|prazole|tidine|dronate|asone|olone|vir|zine|pride)$",
    re.IGNORECASE,
)


def _is_drug(name: str, dose: bool) -> bool:
    key = name.lower()
    return key in DRUGS or (dose and bool(_DRUG_SUFFIX.search(key)))


def rule_medications(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """Medications started (with dose) or stopped."""
    for m in _MED_STOP.finditer(sent.text):
        at = sent.start + m.start()
        if not _is_drug(m["name"], False) or not _ok_stop(parts, sent, at):
            continue
        dates = [d for d in _dates(sent, "past", ctx.today) if d.valid]
        # No stated day: the message date is the latest it can have stopped ("on or before").
        stop = dates[0].date if dates else ctx.today
        value = {"name": m["name"].lower(), "stop_date": stop}
        ctx.add("health.medications", value, sent, 0.85 if dates else 0.7, op="end")
        return
    for m in _MED_START.finditer(sent.text):
        at = sent.start + m.start()
        dose = m["dose1"] or m["dose2"]
        if not _is_drug(m["name"], bool(dose)) or not _ok(parts, sent, at):
            continue
        value: dict[str, Any] = {"name": m["name"].lower()}
        freq = _FREQ.search(sent.text, m.end())
        if dose:
            dose_text = " ".join(dose.split())
            value["dose"] = f"{dose_text} {' '.join(freq[0].split())}" if freq else dose_text
        elif freq:
            value["dose"] = " ".join(freq[0].split())
        dates = [d for d in _dates(sent, "past", ctx.today) if d.valid]
        if any(not d.valid for d in _dates(sent, "past", ctx.today)):
            return  # a nonexistent start day: drop rather than guess
        if dates:
            value["start_date"] = dates[0].date
        reason = _REASON.search(sent.text, m.end())
        if reason and not _DATE_WORD.search(reason[1]):
            value["reason"] = reason[1].strip()
        ctx.add("health.medications", value, sent, 0.85)
        return


_DATE_WORD = re.compile(
    r"\b(?:day|days|week|weeks|month|months|year|years|morning|evening|night|now|while)\b", re.I
)


def _ok_stop(parts: list[Span], sent: Span, at: int) -> bool:
    # "no longer" / "don't take" are the trigger itself, so only the text before it counts.
    clause = _clause_of(parts, at)
    if clause is None:
        return False
    head = clause.text[: at - clause.start]
    return not (
        _HYPOTHETICAL.search(clause.text)
        or _UNCERTAIN.search(clause.text)
        or is_question(clause.text, sent.text)
        or _NEGATION.search(head)
    )


_ALLERGIC = re.compile(
    r"\b(?:i(?:'m|\s+am)|i(?:'ve|\s+have)\s+(?:always\s+)?been|i\s+was\s+(?:found|diagnosed|told)"
    r"(?:\s+to\s+be|\s+as)?|turns\s+out\s+i(?:'m|\s+am))\s+"
    r"(?:(?P<sev>very|severely|mildly|seriously|extremely|deathly|highly|slightly|quite)\s+)?"
    r"allergic\s+to\s+(?P<subst>[A-Za-z][A-Za-z-]{1,25}(?:[ \t]{1,2}[A-Za-z][A-Za-z-]{1,25}){0,5})",
    re.IGNORECASE,
)
_ALLERGY_NOUN = re.compile(
    r"\b(?:i\s+have|i've\s+got|i\s+have\s+got|my)\s+(?:an?\s+)?"
    r"(?:(?P<sev>severe|mild|moderate|serious|bad|life-threatening|strong)\s+)?"
    r"(?P<subst>[a-z][a-z-]{2,20}(?:\s+[a-z][a-z-]{2,20})?)\s+(?:allergy|intolerance)\b",
    re.IGNORECASE,
)
_ALLERGY_BACKREF = re.compile(
    r"^(?P<subst>[A-Za-z][\w-]{2,20}(?:\s[a-z][\w-]{2,20})?)\s+(?:makes?|gives?|causes?)\s+me\b"
    r"[^.!?]{0,80}\bi(?:'m|\s+am)\s+(?:(?P<sev>very|severely|mildly)\s+)?allergic\b(?!\s+to)",
    re.IGNORECASE,
)
_ALLERGY_CJK = re.compile(r"我对(?P<subst>[\u4e00-\u9fff]{1,8})过敏")
_REACTION = re.compile(
    r"\b(?:i\s+get|i\s+break\s+out\s+in|gives?\s+me|causes?|makes?\s+me\s+(?:get\s+|break\s+out"
    r"\s+in\s+|come\s+out\s+in\s+)?|i\s+go\s+into|react(?:ion)?\s+(?:is|was|with)|i\s+had|"
    r"i\s+come\s+out\s+in|my\s+\w+\s+swells?\s+up|i\s+swell\s+up)\s+(?:an?\s+|in\s+)?"
    r"(?P<r>[a-z][a-z -]{1,40}?)(?=[,.;!?)]|$|\s+(?:and\s+i|but|so|if|when)\b)",
    re.IGNORECASE,
)
_SUBST_STOP = re.compile(
    r"\b(?:and\s+i|but|so|since|because|which|that|it|when|if|as|too|also|i|they|from|"
    r"ever|though|all|since|in|after|for|with|a|like|at)\b.*$",
    re.IGNORECASE,
)


def _severity(text: str | None, sentence: str) -> str | None:
    lowered = f"{text or ''} {sentence}".lower()
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


def rule_allergies(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """Allergies stated in the first person, with reaction and severity when given."""
    hits = [*_ALLERGIC.finditer(sent.text), *_ALLERGY_NOUN.finditer(sent.text)]
    hits += list(_ALLERGY_CJK.finditer(sent.text))
    hits += list(_ALLERGY_BACKREF.finditer(sent.text))
    for m in hits:
        if not _ok(parts, sent, sent.start + m.start()):
            continue
        raw = _SUBST_STOP.sub("", m["subst"]).strip()
        reaction = _REACTION.search(sent.text, m.end())
        sev = _severity(m.groupdict().get("sev"), sent.text)
        for subst in re.split(r"\s*(?:,|\band\b|\bor\b|\bplus\b)\s*", raw):
            subst = subst.strip().lower()
            if not subst or subst in ("it", "that", "them", "something", "anything", "stuff"):
                continue
            value: dict[str, Any] = {"substance": subst}
            if reaction:
                value["reaction"] = " ".join(reaction["r"].split())
            if sev:
                value["severity"] = sev
            ctx.add("health.allergies", value, sent, 0.9)


_CONDITION = re.compile(
    r"\b(?:i(?:'ve|\s+have)?\s+been\s+diagnosed\s+with|i\s+was\s+diagnosed\s+with|"
    r"diagnosed\s+me\s+with|i\s+have|i've\s+got|i\s+suffer\s+from|i\s+live\s+with)\s+"
    r"(?:(?:mild|severe|chronic|moderate)\s+)?(" + CONDITIONS + r")\b",
    re.IGNORECASE,
)


def rule_conditions(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """Diagnosed conditions."""
    for m in _CONDITION.finditer(sent.text):
        if not _ok(parts, sent, sent.start + m.start()):
            continue
        value: dict[str, Any] = {"name": m[1].lower()}
        if "diagnos" in m[0].lower():
            dates = [d for d in _dates(sent, "past", ctx.today) if d.valid]
            if dates:
                value["diagnosed_on"] = dates[0].date
        if re.search(r"\b(?:under control|well controlled|managed|manage it)\b", sent.text, re.I):
            value["status"] = "managed"
        ctx.add("health.conditions", value, sent, 0.8)


# -- vehicles ------------------------------------------------------------------------------

_MAKE_RE = "|".join(sorted((re.escape(k) for k in MAKES), key=len, reverse=True))
_VEHICLE = re.compile(
    r"\b(?:i(?:\s+just)?\s+(?:drive|own|have|bought|got|lease|leased|picked\s+up|ride)|"
    r"^(?:just\s+)?(?:bought|picked\s+up|leased)|"
    r"i've\s+(?:just\s+)?(?:got|bought)|we\s+(?:drive|own|have|bought|got)|"
    r"my\s+(?:car|van|truck|motorbike|motorcycle|bike|ride|vehicle)\s+is|"
    r"my\s+(?:new\s+|old\s+)?(?:car|van)\s*,?)\s+"
    r"(?:an?\s+|the\s+|my\s+|our\s+)?(?:new\s+|used\s+|old\s+|second-hand\s+)?"
    r"(?:(?P<year>(?:19|20)\d\d)\s+)?(?P<make>" + _MAKE_RE + r")\s+"
    r"(?P<model>[A-Za-z0-9][\w-]{0,20}(?:\s+(?:\d[\w-]{0,6}|Series|Class|Hybrid|Estate|"
    r"Touring|Sport|Plus|EV))?)",
    re.IGNORECASE,
)
_MY_MODEL = re.compile(
    r"\b(?:my|our)\s+(?P<model>" + "|".join(re.escape(k) for k in MODEL_MAKES) + r")\b",
    re.IGNORECASE,
)
_MILEAGE = re.compile(
    r"(?<![\d.,])(\d{1,3}(?:,\d{3}){1,2}|\d{1,7})\s?(k)?\s?(km|kms|kilometers|kilometres|"
    r"miles|mi)\b",
    re.IGNORECASE,
)


def rule_vehicles(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """Vehicles owned (make, model, year) and their odometer reading."""
    m = _VEHICLE.search(sent.text)
    make = model = None
    year = None
    if m:
        if not _ok(parts, sent, sent.start + m.start()):
            return
        make, model = MAKES[m["make"].lower()], m["model"]
        year = int(m["year"]) if m["year"] else None
        if model.lower() in ("is", "and", "with", "that", "which", "car"):
            return
    else:
        mm = _MY_MODEL.search(sent.text)
        mileage_here = _MILEAGE.search(sent.text)
        if not mm or not mileage_here or not _ok(parts, sent, sent.start + mm.start()):
            return
        make, model = MODEL_MAKES[mm["model"].lower()], mm["model"]
    model = model[0].upper() + model[1:] if model.islower() else model
    value: dict[str, Any] = {"make": make, "model": model}
    if year:
        value["year"] = year
    if (km := _MILEAGE.search(sent.text)) and not re.match(
        r"\s*(?:away|from|to)\b", sent.text[km.end() :]
    ):
        number = int(km[1].replace(",", "")) * (1000 if km[2] else 1)
        if km[3].lower().startswith("mi"):
            number = round(number * 1.609344)  # the catalog stores kilometres
        value["mileage"] = number
        value["mileage_on"] = ctx.today
    ctx.add("vehicles.vehicles", value, sent, 0.85 if m else 0.7)


# -- finance -------------------------------------------------------------------------------

_PERIOD = re.compile(
    r"(?:\b(?:a|per|each|every)\s+|/\s?)(week|wk|month|mo|quarter|year|yr|annum)\b|"
    r"\b(weekly|monthly|quarterly|yearly|annually|annual)\b|每(周|月|年)",
    re.IGNORECASE,
)
_BUDGET = re.compile(
    r"\bbudget\b|预算",
    re.IGNORECASE,
)
_BUDGET_CAT_BEFORE = re.compile(
    r"(?:\bmy|\bour|\bthe|\ba|\bset\s+(?:a|my|the))?\s*(?:(?:new|monthly|weekly|yearly|annual|"
    r"total)\s+)?([a-z][a-z&-]{2,20}(?:\s+[a-z][a-z&-]{2,20})?)\s+budget\b",
    re.IGNORECASE,
)
_BUDGET_CAT_AFTER = re.compile(
    r"\b(?:for|on)\s+(?:the\s+|my\s+)?([a-z][a-z&-]{2,20}(?:\s+(?:and\s+)?[a-z][a-z&-]{2,20})?)",
    re.IGNORECASE,
)
_SPEND_LIMIT = re.compile(
    r"\b(?:spend|spending)\s+(?:no\s+more\s+than|at\s+most|up\s+to|less\s+than|under|below|"
    r"max(?:imum)?(?:\s+of)?)\b",
    re.IGNORECASE,
)
_WANT = re.compile(
    r"\b(?:i\s+)?(?:want|need|would\s+like|'d\s+like)\s+to\b|\bno(?:t)?\s+more\s+than\b",
    re.IGNORECASE,
)
_CATEGORY_JUNK = _words(
    "my our the a an set new total monthly weekly yearly annual budget is this that"
)


def _period(text: str, kind: str) -> str | None:
    m = _PERIOD.search(text)
    if m is None:
        return None
    word = (m[1] or m[2] or m[3] or "").lower()
    norm = {
        "week": "week",
        "wk": "week",
        "weekly": "week",
        "周": "week",
        "month": "month",
        "mo": "month",
        "monthly": "month",
        "月": "month",
        "quarter": "quarter",
        "quarterly": "quarter",
        "year": "year",
        "yr": "year",
        "annum": "year",
        "yearly": "year",
        "annually": "year",
        "annual": "year",
        "年": "year",
    }[word]
    if kind == "subscription":
        return {"week": "weekly", "month": "monthly", "quarter": "quarterly", "year": "yearly"}[
            norm
        ]
    return None if norm == "quarter" else norm


def rule_budgets(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """Spending limits per category and period."""
    kw = _BUDGET.search(sent.text) or _SPEND_LIMIT.search(sent.text)
    if kw is None:
        return
    # "I want to spend no more than $80 a week" states a limit, not a wish or a negation:
    # only here do "want to" and "no more than" not silence a clause.
    clause = _clause_of(parts, sent.start + kw.start())
    if clause is None or guarded(_WANT.sub("", clause.text), sentence=sent.text):
        return
    money = find_money(sent.text)
    period = _period(sent.text, "budget")
    if not money or period is None:
        return
    category = None
    if (before := _BUDGET_CAT_BEFORE.search(sent.text)) is not None:
        words = [w for w in before[1].lower().split() if w not in _CATEGORY_JUNK]
        category = " ".join(words) or None
    if category is None:
        after = _BUDGET_CAT_AFTER.search(sent.text, kw.end())
        if after is not None:
            words = [w for w in after[1].lower().split() if w not in _CATEGORY_JUNK]
            category = " ".join(words) or None
    if category is None or category in ("week", "month", "year"):
        return
    value = {
        "category": category,
        "limit": money[0].amount,
        "currency": money[0].currency,
        "period": period,
    }
    ctx.add("finance.budgets", value, sent, 0.85)


_SERVICE = re.compile(r"\b(" + SUBSCRIPTION_SERVICES + r")(?![\w])", re.IGNORECASE)
_SUB_VERB = re.compile(
    r"\b(?:i\s+(?:pay|'m\s+paying|am\s+paying|spend)|i\s+(?:just\s+)?(?:subscribed|signed\s+up)|"
    r"i(?:'m|\s+am)\s+subscribed|i\s+subscribe|my\s+\S+(?:\s+\S+)?\s+(?:subscription|membership|"
    r"plan)|subscription|membership|costs?\s+me|charges?\s+me|renews?)\b",
    re.IGNORECASE,
)
_SUB_CANCEL = re.compile(
    r"\b(?:cancel(?:l)?ed|unsubscribed\s+from|stopped\s+paying\s+for|got\s+rid\s+of|ended)\s+"
    r"(?:my\s+|the\s+|our\s+)?",
    re.IGNORECASE,
)
_RENEWS = re.compile(r"\brenews?\b|\brenewal\b|\bnext\s+(?:payment|bill|charge)\b", re.I)
_SERVICE_NAMES = {
    "disney plus": "Disney+",
    "economist": "The Economist",
    "new york times": "The New York Times",
    "nyt": "The New York Times",
    "guardian": "The Guardian",
    "game pass": "Xbox Game Pass",
    "ps plus": "PlayStation Plus",
    "icloud+": "iCloud+",
    "icloud": "iCloud+",
}


_COMMON_WORD_SERVICES = _words("max sky calm medium slack notion tidal guardian")


def _service_name(raw: str) -> str:
    key = raw.lower()
    if key in _SERVICE_NAMES:
        return _SERVICE_NAMES[key]
    canonical = {
        "youtube premium": "YouTube Premium",
        "hbo max": "HBO Max",
        "chatgpt plus": "ChatGPT Plus",
        "github copilot": "GitHub Copilot",
        "linkedin premium": "LinkedIn Premium",
        "nordvpn": "NordVPN",
        "expressvpn": "ExpressVPN",
        "now tv": "NOW TV",
        "dazn": "DAZN",
        "1password": "1Password",
        "ps plus": "PlayStation Plus",
    }
    if key in canonical:
        return canonical[key]
    return " ".join(w if w[:1].isupper() else w[:1].upper() + w[1:] for w in raw.split())


def rule_subscriptions(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """Recurring payments: price and period, renewal day, cancellation."""
    service = _SERVICE.search(sent.text)
    if service is None:
        return
    if service[1].lower() in _COMMON_WORD_SERVICES and not service[1][:1].isupper():
        return  # "max", "calm", "sky" in lowercase are words, not services
    name = _service_name(service[1])
    cancel = _SUB_CANCEL.search(sent.text)
    if (
        cancel
        and cancel.end() <= service.start() + 2
        and _ok_stop(parts, sent, sent.start + cancel.start())
    ):
        dates = [d for d in _dates(sent, "past", ctx.today) if d.valid]
        value = {"name": name, "cancelled_on": dates[0].date if dates else ctx.today}
        ctx.add("finance.subscriptions", value, sent, 0.85 if dates else 0.75, op="end")
        return
    verb = _SUB_VERB.search(sent.text)
    if verb is None and find_money(sent.text) and _period(sent.text, "subscription"):
        verb = service  # "Netflix went up to £12.99/month": price and period say enough
    if verb is None or not _ok(parts, sent, sent.start + verb.start()):
        return
    if not _ok(parts, sent, sent.start + service.start()):
        return
    value: dict[str, Any] = {"name": name}
    money = find_money(sent.text)
    if money:
        value["amount"] = money[0].amount
        value["currency"] = money[0].currency
    if (period := _period(sent.text, "subscription")) is not None:
        value["period"] = period
    if (renew := _RENEWS.search(sent.text)) is not None:
        dates = [
            d for d in _dates(sent, "future", ctx.today) if d.start > sent.start + renew.start()
        ]
        if dates and dates[0].valid:
            value["renews_on"] = dates[0].date
    if len(value) == 1:
        return  # "I subscribe to Netflix" alone says too little to be worth a record
    ctx.add("finance.subscriptions", value, sent, 0.85)


_SPENT = re.compile(
    r"\bi\s+(?:just\s+)?(?:spent|paid)\b|\bi\s+bought\b|\bcost\s+me\b",
    re.IGNORECASE,
)
_MERCHANT = re.compile(r"\b(?:at|to|from)\s+(" + _NAME + r")")
_SPEND_CATEGORY = re.compile(r"\bon\s+(?:some\s+|my\s+)?([a-z]{3,20})\b")


def rule_transactions(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """One-off payments the user reports ("I spent £45 at Nando's yesterday")."""
    m = _SPENT.search(sent.text)
    if m is None or _BUDGET.search(sent.text) or _SERVICE.search(sent.text):
        return
    if not _ok(parts, sent, sent.start + m.start()) or _PERIOD.search(sent.text):
        return
    money = find_money(sent.text)
    if not money:
        return
    dates = _dates(sent, "past", ctx.today)
    if any(not d.valid for d in dates):
        return
    value: dict[str, Any] = {
        "amount": money[0].amount,
        "currency": money[0].currency,
        "date": dates[0].date if dates else ctx.today,
    }
    merchant = _MERCHANT.search(sent.text, m.end())
    if merchant and merchant[1].split()[0] not in _NOT_NAMES:
        value["merchant"] = merchant[1].rstrip("'’s")
    category = _SPEND_CATEGORY.search(sent.text, m.end())
    if category:
        value["category"] = category[1].lower()
    if "merchant" not in value and "category" not in value:
        return
    ctx.add("finance.transactions", value, sent, 0.75 if dates else 0.65)


# -- schedule and tasks ----------------------------------------------------------------------

_EVENT = re.compile(
    r"\b(appointment|appt|meeting|call|interview|dinner|lunch|breakfast|brunch|party|wedding|"
    r"check-?up|consultation|session|class|conference|concert|game|match|haircut|viewing|exam|"
    r"surgery|operation|reservation|ceremony|funeral|recital|presentation|webinar|scan|"
    r"1:1|one-on-one|catch-up|date\s+night|playdate|gig|show|rehearsal|review|training|"
    r"workshop|visit|offsite|off-site|retreat|away\s+day|kick-?off)s?\b|(预约|会议|面试|聚会|婚礼|看牙|体检)",
    re.IGNORECASE,
)
_EVENT_LEAD = re.compile(
    r"(?:([A-Za-z][\w'’-]{1,20})\s+)?(?:([A-Za-z][\w'’-]{1,20})\s+)?$",
)
_WITH = re.compile(
    r"\bwith\s+(?:my\s+\w+\s+)?(" + _NAME + r"(?:\s*(?:,|and|&)\s*" + _NAME + r"){0,3})"
)
_LOCATION = re.compile(r"\b(?:at|in)\s+(?:the\s+)?(" + _NAME + r")")
_TITLE_DROP = _words(
    "a an the my our i i've i'm have has got had there's is with on at for this next big "
    "important quick so ok okay well and then also just"
)
_DEADLINE = re.compile(
    r"(?:^|\b(?:the|my|our)\s+)(?P<goal>[A-Za-z][\w'’ -]{2,60}?)\s+(?:is|are)\s+due\b|"
    r"\bdeadline\s+(?:for|to)\s+(?:the\s+|my\s+)?(?P<goal2>[\w'’ -]{3,60}?)\s+is\b|"
    r"(?:^|\b(?:the|my|our)\s+)(?P<goal3>[A-Za-z][\w'’ -]{2,60}?)\s+deadline\s+is\b|"
    r"\bi\s+(?:must|(?:need|have|must|got|'ve\s+got|'ll\s+need)\s+to)\s+"
    r"(?P<goal4>[\w'’ -]{3,60}?)\s+(?:by|before)\b",
    re.IGNORECASE,
)


def rule_deadlines(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """Deadlines become tasks with a due date."""
    m = _DEADLINE.search(sent.text)
    if m is None or not _ok(parts, sent, sent.start + m.start()):
        return
    goal = next(g for g in (m["goal"], m["goal2"], m["goal3"], m["goal4"]) if g)
    goal = " ".join(goal.split())
    if goal.lower() in ("it", "this", "that") and not m["goal4"]:
        return
    dates = [d for d in _dates(sent, "future", ctx.today) if d.start >= sent.start + m.start()]
    if not dates or not dates[0].valid:
        return
    value = {"goal": goal[:1].upper() + goal[1:], "status": "planned", "due_date": dates[0].date}
    ctx.add("tasks.tasks", value, sent, 0.8)


# A sentence about a journey is a trip, not an event ("my flight on 5 May").
_TRAVEL_ONLY = re.compile(r"\b(?:fly(?:ing)?|flight|train\s+to|trip\s+to)\b", re.IGNORECASE)


def rule_events(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """Appointments and events with a date (and a time when given)."""
    if _DEADLINE.search(sent.text) or _TRAVEL_ONLY.search(sent.text):
        return
    ev = _EVENT.search(sent.text)
    if ev is None or not _ok(parts, sent, sent.start + ev.start()):
        return
    if any(c.path == "travel.trips" and c.start == sent.start for c in ctx.out):
        return  # the date belongs to the journey ("heading to Barcelona for a wedding on ...")
    dates = _dates(sent, "future", ctx.today)
    if not dates or not dates[0].valid:
        return
    day = dates[0].date
    assert day is not None
    if day < ctx.today:
        return  # a calendar is for what is coming; past meetings are conversation, not plans
    clock = find_time(sent.text)
    start = dt.datetime.combine(day, clock[0] if clock else dt.time(0, 0))
    lead = _EVENT_LEAD.search(sent.text[max(0, ev.start() - 44) : ev.start()])
    words = [w for w in (lead[1], lead[2]) if w] if lead else []
    while words and words[0].lower() in _TITLE_DROP:
        words.pop(0)
    words = [w for w in words if w.lower() not in _TITLE_DROP]
    title = " ".join([*words, ev[0]])
    value: dict[str, Any] = {"title": title[:1].upper() + title[1:], "start": start}
    if (with_ := _WITH.search(sent.text)) is not None:
        people = [p.strip() for p in re.split(r"\s*(?:,|\band\b|&)\s*", with_[1]) if p.strip()]
        people = [p for p in people if p.split()[0] not in _NOT_NAMES]
        if people:
            value["with_whom"] = people
            if title.lower() in ("meeting", "call", "lunch", "dinner", "coffee", "catch-up"):
                value["title"] = f"{value['title']} with {people[0]}"
    if (loc := _LOCATION.search(sent.text)) is not None and loc[1].split()[0] not in _NOT_NAMES:
        value["location"] = loc[1]
    ctx.add("schedule.events", value, sent, 0.8 if clock else 0.7)


# -- contacts ------------------------------------------------------------------------------

_REL_FIRST = re.compile(
    r"\bmy\s+(?:(?:older|younger|big|little|oldest|youngest|eldest|twin|new|ex-?)\s+)?"
    r"(?P<rel>" + RELATIONS + r")(?:'s)?\s*,?\s+(?:is\s+(?:called\s+|named\s+)?|called\s+|"
    r"named\s+)?(?:(?:dr|mr|mrs|ms|prof)\.?\s+)?(?P<name>" + _NAME + r")",
    re.IGNORECASE,
)
_NAME_FIRST = re.compile(
    r"(?:^|[\s,;(])(?P<name>" + _NAME + r")\s+is\s+(?i:my)\s+(?:(?i:older|younger|big|little|"
    r"new|old)\s+)?(?P<rel>(?i:" + RELATIONS + r"))\b",
)
_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,4}")


def rule_contacts(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """People and their relationship to the user ("my sister Priya")."""
    for m in [*_REL_FIRST.finditer(sent.text), *_NAME_FIRST.finditer(sent.text)]:
        # re.I lets the name pattern match lowercase words too: keep leading capitalised
        # words only, and stop at a possessive ("Leo's birthday").
        parts_ = []
        for word in m["name"].split():
            if not word[:1].isupper() or word in _NOT_NAMES:
                break
            if word.endswith(("'s", "’s")):
                parts_.append(word[:-2])
                break
            parts_.append(word)
        if not parts_ or any(p.lower() in CITIES or p.lower() in COUNTRIES for p in parts_):
            continue
        name = " ".join(parts_)
        if not _ok(parts, sent, sent.start + m.start()):
            continue
        value: dict[str, Any] = {"name": name, "relationship": m["rel"].lower()}
        email = _EMAIL.search(sent.text)
        if email is not None:
            value["email"] = email[0]
        bday = re.search(r"\bbirthday\b", sent.text, re.I)
        if bday:
            dates = [
                d for d in _dates(sent, "past", ctx.today) if d.start > sent.start + bday.start()
            ]
            if dates and dates[0].valid and dates[0].explicit_year:
                value["birthday"] = dates[0].date  # a birthday without a year is not a date
        ctx.add("contacts.contacts", value, sent, 0.8)


# -- preferences -----------------------------------------------------------------------------

_DURABLE = re.compile(
    r"\b(?:from\s+now\s+on|going\s+forward|in\s+(?:the\s+)?future|from\s+here\s+on(?:\s+out)?|"
    r"by\s+default|always|every\s+time|each\s+time|for\s+all\s+(?:future\s+)?(?:answers|replies|"
    r"responses)|in\s+general|generally|please\s+remember|remember\s+that|i\s+prefer|"
    r"i'd\s+prefer|i\s+would\s+prefer|i\s+(?:really\s+)?like|i\s+(?:want|need)\s+(?:my\s+|your\s+)?"
    r"(?:answers|replies|responses)|stop\s+(?:writing|giving|sending)|no\s+more|"
    r"from\s+today|all\s+the\s+time|as\s+a\s+rule|habitually|whenever\s+you\s+(?:answer|reply)|"
    r"(?:my\s+)?preference\s+is|i'm\s+(?:a|an)\s+\w+\s+person)\b|"
    r"以后|今后|从现在开始|从今以后|往后|一直|总是|每次|默认|请记住|我喜欢|我希望|我更喜欢|我习惯",
    re.IGNORECASE,
)
_ONE_OFF = re.compile(
    r"\b(?:this\s+time|for\s+this\s+(?:one|answer|question|reply|response|task|email|message)|"
    r"just\s+(?:now|for\s+now|this\s+once)|right\s+now|for\s+now|this\s+once|just\s+this|"
    r"for\s+the\s+next\s+\w+|today)\b|这次|这一次|本次|这个问题|暂时|先这样|这回",
    re.IGNORECASE,
)
_PREF_RULES: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "preferences.answer_order",
        "conclusion_first",
        re.compile(
            r"\b(?:conclusion|bottom\s+line|answer|summary|tl;?dr|recommendation|verdict)s?\s+"
            r"(?:first|up\s+front|upfront|at\s+the\s+top)|\b(?:lead|start|begin|open)\s+with\s+"
            r"(?:the\s+|a\s+)?(?:conclusion|answer|bottom\s+line|recommendation|summary|tl;?dr)|"
            r"先说结论|结论先行|先给结论|直接说结论|先讲结论|先说答案|先给答案|结论放前面",
            re.IGNORECASE,
        ),
    ),
    (
        "preferences.answer_order",
        "context_first",
        re.compile(
            r"\b(?:context|reasoning|background|explanation)\s+first|\b(?:start|begin|lead)\s+"
            r"with\s+(?:the\s+)?(?:context|reasoning|background)|\bexplain\s+(?:your|the)\s+"
            r"reasoning\s+(?:first|before)|先说原因|先讲背景|先解释|先讲原因",
            re.IGNORECASE,
        ),
    ),
    (
        "preferences.verbosity",
        "short",
        re.compile(
            r"\b(?:short(?:er)?|brief(?:er)?|concise|succinct|terse|to\s+the\s+point|less\s+verbose|"
            r"tl;?dr|no\s+(?:long|lengthy)\s+(?:answers|replies|explanations)|keep\s+it\s+tight|"
            r"fewer\s+words|cut\s+the\s+fluff)\b|简洁|简短|简单点|简单一点|短一点|短点|精简|别太长|"
            r"不要太长|少说废话|言简意赅|简明",
            re.IGNORECASE,
        ),
    ),
    (
        "preferences.verbosity",
        "detailed",
        re.compile(
            r"\b(?:detailed|more\s+detail|in\s+(?:more\s+|full\s+|great\s+)?detail|thorough|"
            r"longer|in[\s-]depth|comprehensive|elaborate|step[\s-]by[\s-]step\s+explanations)\b|"
            r"详细|具体一点|详尽|展开说|多说一点",
            re.IGNORECASE,
        ),
    ),
    (
        "preferences.format",
        "bullets",
        re.compile(
            r"\b(?:bullet(?:ed)?(?:\s+points?|\s+lists?)?|bullets|bulleted|point\s+form|"
            r"numbered\s+lists?)\b|列表|分点|要点形式|条目|分条",
            re.IGNORECASE,
        ),
    ),
    (
        "preferences.format",
        "table",
        re.compile(r"\b(?:tables?|tabular|in\s+a\s+grid)\b|表格", re.IGNORECASE),
    ),
    (
        "preferences.format",
        "prose",
        re.compile(
            r"\b(?:prose|paragraphs|full\s+sentences|no\s+bullet(?:\s+point)?s?|plain\s+text|"
            r"without\s+bullet(?:\s+point)?s?)\b|段落|成段",
            re.IGNORECASE,
        ),
    ),
)
_LANGUAGE = re.compile(
    r"\b(?:answer|reply|respond|write|talk|speak|communicate|responses?|answers?|replies)"
    r"(?:\s+to\s+me)?\s+(?:in|using)\s+(?P<en>"
    + "|".join(k for k in LANGUAGES if k.isascii())
    + r")\b|(?:用|说|讲)(?P<zh>中文|汉语|普通话|英文|英语|日语|日文|法语|德语|西班牙语|韩语)",
    re.IGNORECASE,
)
_TIMEZONE = re.compile(
    r"\b(?:my\s+)?time\s?zone\s+is\s+(?:now\s+)?([A-Za-z_]{2,20}/[A-Za-z0-9_+-]{2,30}(?:/[A-Za-z_]{2,20})?)"
    r"|我的时区是\s?([A-Za-z_]{2,20}/[A-Za-z0-9_+-]{2,30})",
    re.IGNORECASE,
)
_SIGNATURE = re.compile(
    r"\bsign\s+(?:off\s+)?(?:my\s+|the\s+|all\s+)?(?:emails|messages|drafts|letters)?\s*"
    r"(?:off\s+)?(?:with|as)\s+[\"“'‘]([^\"”'’\n]{1,40})[\"”'’]",
    re.IGNORECASE,
)
_PREF_NOT = re.compile(
    r"\b(?:don't|do\s+not|never|no|no\s+more|stop\s+using|stop\s+with|without|avoid|less)\s+"
    r"(?:\w+\s+){0,2}$|不要|别|不用",
    re.IGNORECASE,
)
_CJK_CHAR = re.compile(r"[\u4e00-\u9fff]")


def rule_preferences(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """Durable answer-style preferences in English and Chinese; one-off requests are skipped."""
    text = sent.text
    durable = _DURABLE.search(text)
    if _HYPOTHETICAL.search(text) or (is_question(text, text) and not durable):
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


def rule_timezone_only(ctx: _Ctx, sent: Span, parts: list[Span]) -> None:
    """A time zone statement needs no durability marker ("my timezone is Europe/Paris")."""
    if _DURABLE.search(sent.text) or not _ok(parts, sent, sent.start):
        return
    if (tz := _TIMEZONE.search(sent.text)) is not None:
        ctx.add("preferences.timezone", tz[1] or tz[2], sent, 0.85)


_RULES: tuple[Callable[[_Ctx, Span, list[Span]], None], ...] = (
    rule_identity,
    rule_trips,
    rule_medications,
    rule_allergies,
    rule_conditions,
    rule_vehicles,
    rule_budgets,
    rule_subscriptions,
    rule_transactions,
    rule_deadlines,
    rule_events,
    rule_contacts,
    rule_preferences,
    rule_timezone_only,
)
