"""Date resolution relative to the message time: formats, year inference, no coercion."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.fact_log.extraction.timemodel import find_dates, find_time, infer_year

TODAY = dt.date(2025, 3, 1)  # a Saturday


def one(text: str, today: dt.date = TODAY, prefer: str = "future") -> dt.date | None:
    found = find_dates(text, today, prefer)  # type: ignore[arg-type]
    assert len(found) == 1, found
    return found[0].date


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("March 5, 2025", dt.date(2025, 3, 5)),
        ("5 March 2025", dt.date(2025, 3, 5)),
        ("5th of March 2025", dt.date(2025, 3, 5)),
        ("2025-03-05", dt.date(2025, 3, 5)),
        ("tomorrow", dt.date(2025, 3, 2)),
        ("the day after tomorrow", dt.date(2025, 3, 3)),
        ("in two weeks", dt.date(2025, 3, 15)),
        ("in 3 days", dt.date(2025, 3, 4)),
        ("3 days ago", dt.date(2025, 2, 26)),
        ("next Friday", dt.date(2025, 3, 7)),
        ("this Saturday", dt.date(2025, 3, 1)),
        ("last Friday", dt.date(2025, 2, 28)),
        ("2025年3月5日", dt.date(2025, 3, 5)),
        ("明天", dt.date(2025, 3, 2)),
        # an amount after the day is no year
        ("until 15 of December, 1200 lari", dt.date(2025, 12, 15)),
        ("March 5, 1500 pesos", dt.date(2025, 3, 5)),
    ],
)
def test_formats(text: str, expected: dt.date) -> None:
    assert one(text) == expected


def test_year_inference_future_and_past() -> None:
    # Feb 20 has passed on March 1: a booking means next year, a past event this year.
    assert one("Feb 20th", prefer="future") == dt.date(2026, 2, 20)
    assert one("Feb 20th", prefer="past") == dt.date(2025, 2, 20)
    assert one("March 1") == dt.date(2025, 3, 1)  # today counts as on-or-after
    assert infer_year(2, 29, TODAY, "future") == dt.date(2028, 2, 29)
    assert infer_year(2, 29, TODAY, "past") == dt.date(2024, 2, 29)


def test_next_weekday_is_next_calendar_week() -> None:
    monday = dt.date(2025, 4, 7)
    assert one("next Tuesday", monday) == dt.date(2025, 4, 15)
    assert one("Tuesday", monday) == dt.date(2025, 4, 8)
    assert one("on Monday", monday, "past") == dt.date(2025, 3, 31)


@pytest.mark.parametrize("text", ["February 30", "30 February 2025", "2025-02-29", "April 31st"])
def test_nonexistent_dates_are_not_coerced(text: str) -> None:
    found = find_dates(text, TODAY)
    assert len(found) == 1 and found[0].date is None and not found[0].valid


def test_relative_day_of_month_follows_anchor() -> None:
    found = find_dates("on March 5, 2025, back on the 19th", TODAY)
    assert [d.date for d in found] == [dt.date(2025, 3, 5), dt.date(2025, 3, 19)]
    found = find_dates("leaving March 28, home on the 2nd", TODAY)
    assert found[-1].date == dt.date(2025, 4, 2)


def test_ambiguous_numeric_dates_are_ignored() -> None:
    assert find_dates("05/03/2025", TODAY) == []


def test_times() -> None:
    assert find_time("at 3pm")[0] == dt.time(15, 0)  # type: ignore[index]
    assert find_time("at 14:30")[0] == dt.time(14, 30)  # type: ignore[index]
    assert find_time("12am")[0] == dt.time(0, 0)  # type: ignore[index]
    assert find_time("下午3点半")[0] == dt.time(15, 30)  # type: ignore[index]
    assert find_time("no time here") is None


@pytest.mark.no_workspace("reads dates from text")
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # TODAY is 1 March 2025: a month said after "since" is its first day, the latest one
        # begun by today ("last" one begun before this month)
        ("on it since October", dt.date(2024, 10, 1)),
        ("walking to work since February.", dt.date(2025, 2, 1)),
        ("vegan ever since last July", dt.date(2024, 7, 1)),
        ("since March", dt.date(2025, 3, 1)),
        ("since last March", dt.date(2024, 3, 1)),
        ("member since Sept 2019", dt.date(2019, 9, 1)),
        # a day said with it is that day
        ("since 14 February", dt.date(2025, 2, 14)),
    ],
)
def test_since_a_month_is_its_first_day(text: str, expected: dt.date) -> None:
    assert one(text, prefer="past") == expected


@pytest.mark.no_workspace("reads dates from text")
@pytest.mark.parametrize("text", ["in October", "October was busy", "moving in May"])
def test_a_month_alone_without_since_is_no_day(text: str) -> None:
    assert find_dates(text, TODAY, "past") == []
