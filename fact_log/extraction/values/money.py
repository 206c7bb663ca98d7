"""Amounts with a currency in free text ("£300", "12,50 €", "179 pounds"), parsed exactly."""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.reference import vocabulary

CURRENCY_CODES = frozenset(vocabulary()["word_sets"]["money_currency_codes"])
_SYMBOLS: dict[str, str] = vocabulary()["currency_symbols"]
_WORDS: dict[str, str] = vocabulary()["currency_words"]
# Grouped thousands: Indian ("2,50,000"), Swiss ("8'000"), then "1,200" / "1.200" / "1 200".
_NUM = (
    r"\d{1,2}(?:,\d{2}){1,3},\d{3}(?:\.\d{1,2})?|\d{1,3}(?:['\u2019]\d{3}){1,3}(?:[.,]\d{1,2})?|"
    r"\d{1,3}(?:[,.\u202f]\d{3}){1,3}(?:[.,]\d{1,2})?|\d{1,9}(?:[.,]\d{1,2})?"
)
# "10k", "2.5 lakh", "1 crore": the multiplier a number is said with (Indian English too).
_MULT = r"k\b|\s?(?:lakhs?|lacs?|crores?|million|mln|mn|billion|bn)\b"
_TIMES = {"k": 1000, "l": 100_000, "c": 10_000_000, "m": 1_000_000, "b": 1_000_000_000}


def multiplier(mult: str | None) -> int:
    """What a multiplier suffix multiplies by ("k": 1000, "lakh": 100000, "million"; 1
    without one)."""
    return _TIMES[mult.strip()[0].lower()] if mult else 1


MONEY_NUMBER = _NUM  # a number as amounts are written (slots.py reads amounts without currency)
MONEY_MULTIPLIER = _MULT


def _symbol(key: str) -> str:
    """One currency symbol as a regex: letters are read as written ("RM", "Rp", "R") and only
    where no letter comes before them; a symbol of letters alone only right before a number."""
    if not key[:1].isalpha():
        return re.escape(key)
    said = "(?<![A-Za-z])(?-i:" + re.escape(key) + ")"
    if len(key) == 1:  # "R24 800", "R500", never "the R2"
        return said + r"(?=\d{1,3}[ ,.]\d{3}|\d{3,})"
    return said + (r"(?=\s?\d)" if key.replace(".", "").isalpha() else "")


def _unit(key: str) -> str:
    """One currency word or symbol said after the number, as a regex."""
    return re.escape(key) + (r"(?!\w)" if key[-1:].isascii() and key[-1:].isalnum() else "")


_BEFORE = "|".join(_symbol(k) for k in sorted(_SYMBOLS, key=len, reverse=True))
_AFTER = "|".join(
    _unit(k)
    for k in sorted({*_WORDS, *(k for k in _SYMBOLS if not k[:1].isalpha())}, key=len, reverse=True)
)
# A number grouped by spaces ("84 500", "R24 800"): the number a currency names, never two
_SPACED = r"\d{1,3}(?:[ \u00a0]\d{3}){1,2}(?:[.,]\d{1,2})?(?!\d|[.,]\d)"
_MONEY = lazy(
    # "NGN 45,000.00", "EUR 40": a code before the number, as bank alerts write it
    r"(?P<sym>" + _BEFORE + r"|\b(?-i:[A-Z]{3})(?=\s?\d))\s?(?P<n1>" + _SPACED + "|" + _NUM + r")"
    r"(?P<k1>" + _MULT + r")?"
    # "4 299 zł", "1 019 €": thousands grouped by a space, before the currency only
    r"|(?<![\w.,])(?P<n2>\d{1,3}(?:[ \u00a0]\d{3}){1,2}(?:[.,]\d{1,2})?(?=\s?(?:[A-Z]{3}\b|"
    + _AFTER
    + r"))|"
    + _NUM
    + r")(?P<k2>"
    + _MULT
    + r")?"
    r"\s?(?P<unit>[A-Z]{3}\b|" + _AFTER + ")",
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
    raw = raw.replace("\u202f", ",").replace("'", "").replace("\u2019", "")
    raw = raw.replace(" ", "").replace("\u00a0", "")  # "4 299": grouped by spaces
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


_FOUND: dict[str, tuple[Money, ...]] = {}  # the last few hundred texts' answers


def find_money(text: str) -> list[Money]:
    """Amounts with a currency: "£300", "300 GBP", "$12.99", "12,50 €", "179 pounds".

    Many rules ask the same sentence; the answer for a text never changes, so it is found
    once (a fresh list each time: callers may filter it)."""
    found = _FOUND.get(text)
    if found is None:
        if len(_FOUND) >= 512:
            _FOUND.clear()
        found = _FOUND[text] = tuple(_find_money(text))
    return list(found)


def forget_money() -> None:
    """Drop the remembered answers of find_money (a cold read)."""
    _FOUND.clear()


def _find_money(text: str) -> list[Money]:
    """find_money, computed."""
    out = []
    for m in _MONEY.finditer(text):
        sym = m["sym"]
        if sym and (sym in _SYMBOLS or sym.upper() in _SYMBOLS):
            currency = _SYMBOLS.get(sym) or _SYMBOLS[sym.upper()]
            number, k = m["n1"], m["k1"]
        elif sym:
            if sym not in CURRENCY_CODES:
                continue  # "ABC 300": not an ISO code, so not an amount
            currency, number, k = sym, m["n1"], m["k1"]
        else:
            unit = m["unit"]
            # "yen", "rmb": a currency word of three letters is no ISO code to check
            if len(unit) == 3 and unit.isalpha() and unit.isascii() and unit.lower() not in _WORDS:
                if unit != unit.upper() or unit not in CURRENCY_CODES:
                    continue  # "300 abc": not an ISO code, so not an amount
                currency = unit
            else:
                currency = _SYMBOLS.get(unit) or _WORDS[unit.lower()]
            number, k = m["n2"], m["k2"]
        amount = parse_number(number)
        if amount is None:
            continue
        amount *= multiplier(k)
        out.append(Money(m.start(), m.end(), amount, currency))
    return out or _money_in_words(text)


_UNITS = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"),
    *("eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen"),
    *("eighteen", "nineteen"),
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_NUMBER_WORD = {w: i for i, w in enumerate(_UNITS)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
_W = r"(?:" + "|".join(sorted(_NUMBER_WORD, key=len, reverse=True)) + r"|hundred|thousand)"
# A number said in words ("fifty", "one hundred", "two hundred and fifty"), for other parsers.
NUMBER_WORDS = r"(?:a\s+(?=hundred))?" + _W + r"(?:(?:\s+and)?[\s-]+" + _W + r"){0,3}\b"
# the currency words of letters ("pounds", "rupees", "lari"), longest first
_WORD_UNITS = "|".join(
    re.escape(k) for k in sorted(_WORDS, key=len, reverse=True) if k.isascii() and k.isalpha()
)
# "eighty four pounds twenty", "two hundred and forty quid", "a hundred euros", "eighty five
# thousand rupees": said, not typed
# an amount said in words, up to seven words ("three thousand four hundred and fifty")
SPOKEN_AMOUNT = (
    r"(?:a\s+(?=hundred|thousand))?" + _W + r"(?:(?:\s+an\b|\s+and)?[\s-]+" + _W + r"){0,6}"
)
_MONEY_WORDS = lazy(
    r"(?<![\w-])(?P<n>" + SPOKEN_AMOUNT + ")"
    r"\s+(?P<unit>" + _WORD_UNITS + r")\b"
    r"(?:\s+(?:and\s+)?(?P<p>(?:"
    + "|".join(_TENS)
    + r")(?:[\s-]+(?:"
    + "|".join(_UNITS[1:10])
    + r"))?|"
    + "|".join(_UNITS[1:])
    + r")\b(?!\s+(?:pence\s+)?(?:"
    + _W
    + r")))?",
    re.IGNORECASE,
)


def words_to_number(text: str) -> int | None:
    """ "two hundred and forty" as 240; None when the words do not make one number."""
    total = current = 0
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in ("and", "an", "a"):
            continue
        if word == "hundred":
            current = (current or 1) * 100
        elif word == "thousand":
            total, current = total + (current or 1) * 1000, 0
        elif word in _NUMBER_WORD:
            current += _NUMBER_WORD[word]
        else:
            return None
    return total + current


_CURRENCY_WORD = lazy(r"\b(?:" + _WORD_UNITS + r")\b", re.I)


def _money_in_words(text: str) -> list[Money]:
    if not _CURRENCY_WORD.search(text):
        return []  # most text names no currency in words: skip the long alternation
    out = []
    for m in _MONEY_WORDS.finditer(text):
        number = words_to_number(m["n"])
        if not number:
            continue
        pence = words_to_number(m["p"]) if m["p"] else 0
        amount = Decimal(number) + (Decimal(pence or 0) / 100 if pence and pence < 100 else 0)
        out.append(Money(m.start(), m.end(), amount, _WORDS[m["unit"].lower()]))
    return out


@dataclass(frozen=True, slots=True)
class Amount:
    """An amount with its currency when one is written ("899" has none)."""

    start: int
    end: int
    amount: Decimal
    currency: str | None


_BARE = lazy(
    # "68 500 dram", "paid him 8 500 000": a number grouped by spaces is one number
    r"(?<![\w.,:/+-])(" + _SPACED + "|" + _NUM + r")(" + _MULT + r")?"
    # not a time, a date ("14.02.," "3/4"), a unit, a part of a longer number ("1,2,3");
    # a comma before a space ends a clause, and "29/month" is a price a month
    r"(?![\w:%-]|,\S|\.\d|\.,|/(?!mo|month|yr|year|wk|week)|"
    r"\s?(?:am|pm|st|nd|rd|th|kg|mg|km|miles?)\b)"
)


def amounts(text: str) -> list[Amount]:
    """Amounts in text: with a currency when written, else bare numbers ("I paid 1,199")."""
    found = [Amount(m.start, m.end, m.amount, m.currency) for m in find_money(text)]
    return found or _bare(text)


def _bare(text: str) -> list[Amount]:
    """Numbers said without a currency, as amounts."""
    out = []
    for m in _BARE.finditer(text):
        amount = parse_number(m[1])
        if amount is not None:
            out.append(Amount(m.start(), m.end(), amount * multiplier(m[2]), None))
    return out


# A number said without a currency but written as money is: grouped in thousands ("1,150",
# "2.480,36") or with pence ("15.49", "5,99"). Never a clock time ("at 15.49"), part of a
# phone number, a date or a longer number, and only with no word after it or one that can
# follow an amount ("15.49 yesterday", "1,150 a month"): "15.49 km" and "1,200 steps" are no
# money.
_AS_MONEY = lazy(
    r"(?<![\w.,:/+#(-])(?<!\bat\s)(?<!\bat\s\s)"
    r"(\d{1,3}(?:,\d{3})+(?:\.\d{2})?|\d{1,3}(?:\.\d{3})+(?:,\d{2})?|\d{1,6}[.,]\d{2})"
    r"(?![\w%'’/-]|[.,:]\d|\s?\d)(?:\s+(?P<word>[A-Za-z]+))?",
    re.I,
)
_AFTER_MONEY = frozenset(vocabulary()["word_sets"]["money_after_bare_amount"])


def money_in(text: str, start: int = 0, end: int | None = None) -> list[Amount]:
    """The amounts text[start:end] says as money: with a currency where one is written, else
    bare numbers written as money is (`_AS_MONEY`); positions are the text's."""
    end = len(text) if end is None else end
    said = [Amount(m.start, m.end, m.amount, m.currency) for m in find_money(text)]
    said = [a for a in said if start <= a.start and a.end <= end]
    if said:
        return said
    out = []
    for m in _AS_MONEY.finditer(text, start, end):
        word = m["word"]
        if word and word.lower() not in _AFTER_MONEY:
            continue
        amount = parse_number(m[1])
        if amount is not None and amount > 0:
            out.append(Amount(m.start(1), m.end(1), amount, None))
    return out


def amount_at(text: str, start: int, end: int, *, currency: bool = False) -> list[Amount]:
    """The amount that text[start:end] (a rule's capture) is part of, read whole in its
    sentence: a capture that stops early ("$349" of "$349.99 today", "2" of "2 million")
    still gets the amount said. The capture read alone when no amount of the text overlaps
    it; with `currency`, amounts with a currency only. Positions are the text's."""
    said = [Amount(m.start, m.end, m.amount, m.currency) for m in find_money(text)]
    hit = [a for a in said if a.start < end and start < a.end]
    if not hit and not currency:
        hit = [a for a in _bare(text) if a.start < end and start < a.end]
    if hit:
        return hit
    alone = amounts(text[start:end])
    return [
        Amount(a.start + start, a.end + start, a.amount, a.currency)
        for a in alone
        if a.currency or not currency
    ]


def put_amount(value: dict[str, Any], said: Amount | Money, key: str = "amount") -> dict[str, Any]:
    """Set an amount in a record, with its currency when one was written; the record."""
    value[key] = said.amount
    if said.currency:
        value.setdefault("currency", said.currency)
    return value
