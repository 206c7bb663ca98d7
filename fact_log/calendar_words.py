"""English month and weekday names, fixed: never the process locale's.

`calendar.month_name` and `strftime("%A")` follow LC_TIME, so a host application that calls
`locale.setlocale(locale.LC_ALL, "")` would change which dates the extractor reads and the
words of alert messages. Extraction reads English, and the same log yields the same text on
every machine, so both come from these tuples.
"""

from __future__ import annotations

MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def weekday_name(day: object) -> str:
    """'Thursday' for a date or datetime (its `weekday()`), whatever the locale."""
    return WEEKDAY_NAMES[day.weekday()]  # type: ignore[attr-defined]
