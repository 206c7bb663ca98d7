"""Spending categories (data/spending.toml): the words for one kind of spending, and merchants.

`category_of("restaurants")` and `category_of("dining")` are both "eating_out", and
`merchant_category("Tesco")` is "groceries", so a budget and a payment that name one kind of
spending in different words still meet (checks/library/finance.py `budget_exceeded`).
"""

from __future__ import annotations

import functools

from uac.fact_log.reference import _read, normalise


@functools.cache
def _index() -> tuple[dict[str, str], dict[str, str]]:
    """(normalised category word -> category, normalised merchant name -> category)."""
    words: dict[str, str] = {}
    merchants: dict[str, str] = {}
    for key, spec in _read("spending.toml")["categories"].items():
        for name in spec.get("names", []):
            words.setdefault(normalise(name), key)
        for name in spec.get("merchants", []):
            merchants.setdefault(normalise(name), key)
    return words, merchants


def category_of(text: str | None) -> str | None:
    """The category a spending word names ("Restaurants" -> "eating_out"), or None."""
    if not text:
        return None
    return _index()[0].get(normalise(text))


def merchant_category(merchant: str | None) -> str | None:
    """The category of a known merchant, by its name or a name it starts with ("Tesco
    Express" -> "groceries", "Uber Eats" -> "eating_out" before "Uber"), or None."""
    if not merchant:
        return None
    said = normalise(merchant)
    _, merchants = _index()
    if said in merchants:
        return merchants[said]
    # the longest listed name that opens the merchant's name ("Tesco Express Camden")
    words = said.split()
    for n in range(len(words) - 1, 0, -1):
        hit = merchants.get(" " + " ".join(words[:n]) + " ")
        if hit is not None:
            return hit
    return None


def same_spending(budget_category: str, category: str | None, merchant: str | None) -> bool:
    """Whether a payment (its category, else its merchant) is spending of a budget's category."""
    want = budget_category.strip().lower()
    if category and category.strip().lower() == want:
        return True  # the same word, listed or not
    kind = category_of(budget_category)
    if kind is None:
        return False
    if category:
        return category_of(category) == kind
    return merchant_category(merchant) == kind


__all__ = ["category_of", "merchant_category", "same_spending"]
