"""Dates are read and alerts worded in English whatever the process locale says.

`calendar.month_name` and strftime's `%A`/`%B` follow LC_TIME, which a host application may
set; the extractor's month table and the checks' weekday words must not depend on it.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.no_workspace("parsers and source text: no log")
_TABLES = {"month_name", "month_abbr", "day_name", "day_abbr"}
_NAME_CODE = re.compile(r"%[aAbBcx]")  # the codes strftime spells in the locale's words

_GERMAN_TABLES = """
import calendar, datetime as dt, json, types
calendar.month_name = [""] + (
    "Januar Februar März April Mai Juni Juli August September Oktober November Dezember".split()
)
calendar.month_abbr = [""] + [m[:3] for m in calendar.month_name[1:]]
calendar.day_name = "Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag".split()
from uac.fact_log.extraction.timemodel.dates import find_dates
from uac.checks.library.occurrences import rhythm
said = "My passport expires on March 5, 2031."
found = [str(d.date) for d in find_dates(said, dt.date(2026, 1, 2))]
event = types.SimpleNamespace(start=dt.datetime(2026, 3, 12, 19, 0), repeats="weekly")
print(json.dumps({"dates": found, "rhythm": rhythm(event)}))
"""


def test_month_names_and_weekday_words_do_not_follow_the_locale_tables() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _GERMAN_TABLES], capture_output=True, text=True, check=True
    )
    got = json.loads(out.stdout)
    assert got == {"dates": ["2031-03-05"], "rhythm": "every Thursday 19:00"}


def _locale_names_in(path: Path) -> list[str]:
    """Uses of the locale's month/day tables or of strftime's name codes in one module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and node.attr in _TABLES:
            found.append(f"{path.name}:{node.lineno} calendar.{node.attr}")
        formats: list[ast.AST] = []
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            formats.append(node.format_spec)  # f"{day:%A}"
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "strftime":
            formats += node.args  # day.strftime("%A")
        for fmt in formats:
            for part in ast.walk(fmt):
                if isinstance(part, ast.Constant) and _NAME_CODE.search(str(part.value)):
                    found.append(f"{path.name}:{getattr(node, 'lineno', 0)} {part.value!r}")
    return found


def test_no_product_module_words_dates_through_the_locale() -> None:
    modules = [
        p
        for folder in ("fact_log", "compiler", "checks", "runtime")
        for p in (ROOT / folder).rglob("*.py")
        if "sandbox" not in p.parts  # agent code's own f-strings run in the sandbox's C locale
    ]
    assert len(modules) > 100
    assert [hit for p in modules for hit in _locale_names_in(p)] == []
