"""A birthday said with the age the person reaches gives the year they were born, whatever
form of the verb says it ("turns", the bare "turn" of a second language, "become(s)"); a
number after "turn" that is no age ("turn 5 pages") gives no birthday."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.fact_log.extraction.patterns import extract

pytestmark = pytest.mark.no_workspace("extraction of text in memory: no log")
AT = dt.datetime(2027, 3, 1, 10, 0)


def birthdays(text: str) -> list[object]:
    return [
        c.value.get("birthday")
        for c in extract(text, AT)
        if c.path == "contacts.contacts" and isinstance(c.value, dict)
    ]


@pytest.mark.parametrize(
    ("text", "born"),
    [
        ("My friend Dana's birthday is 16 May, she become 28", dt.date(1999, 5, 16)),
        ("My nephew Tomas birthday 4 June, he turn 12.", dt.date(2015, 6, 4)),
        ("My uncle Piotr's birthday is 2 July, he becomes 61 this year", dt.date(1966, 7, 2)),
        ("My sister Ola turns 40 on 9 April.", dt.date(1987, 4, 9)),
    ],
)
def test_the_age_reached_gives_the_year_of_birth(text: str, born: dt.date) -> None:
    assert birthdays(text) == [born]


def test_a_number_after_turn_that_is_no_age_gives_no_birthday() -> None:
    assert birthdays("Please turn 5 pages for my brother Sam on 9 April.") == [None]
