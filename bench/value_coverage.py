"""Which expected field values of the tuning sets the general value parsers can produce at all.

For each expected fact of the tuning sets and each of its fields, every general parser of
`fact_log/extraction/slots.py` (`PARSERS`: the time model's dates, datetimes and terms;
money, amounts and sums; weights, doses, counts, distances and rates; the reference
vocabularies of places, countries, drugs, allergens, vaccines, conditions, intakes, services
and vehicles; names, people and their relations, payees, codes, ...) and the field's own enum
words (`enum:a|b`) is run on the message, read on the day it was said (a bare "the 19th"
inside the days the session last named, as the frames read it), both ways round for a date
said without a year (`prefer` future and past). A field is covered in the message when one of
those values equals the gold value by the extraction bench's own comparison
(bench/extraction.py `same`: dates by prefix, numbers by value, strings case-insensitively,
"~text" contained), and covered in the session when an earlier message of the session (read
on its own day) gives it, or a day it said moved by the offset and set at the time of day this
message says ("the lease ends 30 June" then "notice a month before", "dinner at 8": the
frames' `offset_from` and `timed`). A dict or tuple value (money, a place, a person) offers
each of its parts; the message's own day is offered too (a frame's `default = "today"` slot),
and a negative amount (money received) is covered by its magnitude: the sign is the direction
of the payment, which the rules read, not a value parser. What is measured is the parsers'
reach, not the extractor's choice: a field no parser produces cannot be filled by a frame,
whatever frame wins its window.

Tuning sets only (bench/tuning_sets.py); a blind set is refused by name. Run from the
repository root:

    python bench/value_coverage.py                   # every tuning set
    python bench/value_coverage.py blind9 blind10    # some of them
    python bench/value_coverage.py --list date       # the dates no parser produces
    python bench/value_coverage.py --list travel.trips.depart
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import benchpath  # noqa: F401  (takes bench/ off sys.path)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from extraction import load, same, sessions  # noqa: E402
from tuning_sets import TUNING_SETS  # noqa: E402

from uac.fact_log.catalog import Catalog, FieldSpec  # noqa: E402
from uac.fact_log.extraction.slots import (  # noqa: E402
    PARSERS,
    Parser,
    Prefer,
    continuing,
    offset_from,
    parser,
    timed,
)
from uac.fact_log.extraction.timemodel import named_span  # noqa: E402

PREFERS: tuple[Prefer, ...] = ("future", "past")


def leaves(value: Any) -> Iterator[Any]:
    """The values one parser's value offers: itself, or each part of a dict, tuple or list."""
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, tuple | list):
        for v in value:
            yield from leaves(v)
    elif value is not None:
        yield value


def produced(text: str, today: dt.date, named: tuple[dt.date, dt.date] | None) -> set[str]:
    """Every value any general parser reads in the text (as text, with its parser's name),
    and the message's day (a slot's default)."""
    out = {f"default\t{today.isoformat()}"}
    with continuing(named):
        for name, parse in PARSERS.items():
            for prefer in PREFERS:
                for found in parse(text, today, prefer):
                    out.update(f"{name}\t{_text(v)}" for v in leaves(found.value))
    return out


def carried(days: set[str], text: str) -> set[str]:
    """The days said before, moved by the offset the text says and at its time of day."""
    return {f"carried\t{timed(offset_from(day, text), text)}" for day in days}


def _text(value: Any) -> str:
    return value.isoformat() if isinstance(value, dt.date | dt.datetime) else str(value)


@functools.cache
def _enum(values: tuple[str, ...]) -> Parser:
    return parser("enum:" + "|".join(values))


def spec_of(catalog: Catalog, path: str, key: str) -> FieldSpec | None:
    """The catalog's spec of one expected field (an attribute's "value", a record's field)."""
    if path in catalog.attributes:
        return catalog.attributes[path].spec if key == "value" else None
    coll = catalog.collection(path)
    return coll.spec.fields.get(key) if coll is not None else None


def type_name(spec: FieldSpec | None) -> str:
    """The field type as the tables print it ("list[str]" for a list)."""
    if spec is None:
        return "unknown"
    return f"list[{spec.item}]" if spec.type == "list" else spec.type


def covers(want: Any, values: set[str]) -> bool:
    """Whether one of the produced values equals the gold one (a negative amount by its
    magnitude)."""
    wants = [want]
    if str(want).startswith("-") and str(want)[1:2].isdigit():
        wants.append(str(want)[1:])
    return any(same(w, v.split("\t", 1)[1]) for w in wants for v in values)


def enum_values(spec: FieldSpec | None, text: str, today: dt.date) -> set[str]:
    """The field's own enum words said in the text."""
    if spec is None or spec.type != "enum":
        return set()
    return {f"enum\t{f.value}" for f in _enum(spec.values)(text, today, "future")}


def table(title: str, rows: dict[str, Counter], total: str = "**all**") -> list[str]:
    """A Markdown table: covered in the message, in the session, of the total."""
    lines = [
        f"| {title} | expected | in message | ratio | in session | ratio |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    ordered = sorted(rows.items(), key=lambda kv: (-kv[1]["total"], kv[0]))
    summed: Counter = Counter()
    for name, c in ordered:
        summed.update(c)
        lines.append(_row(name, c))
    lines.append(_row(total, summed))
    return lines


def _row(name: str, c: Counter) -> str:
    n = c["total"]
    return (
        f"| {name} | {n} | {c['message']} | {c['message'] / max(n, 1):.3f} | "
        f"{c['session']} | {c['session'] / max(n, 1):.3f} |"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", default=list(TUNING_SETS), help="tuning sets to read")
    ap.add_argument(
        "--list",
        metavar="WHAT",
        help="print the fields no parser produces: a field type (date, money, ...) or a "
        "catalog field (travel.trips.depart)",
    )
    ap.add_argument("--fields", type=int, default=40, help="catalog fields shown (most first)")
    args = ap.parse_args()
    for name in args.sets:
        if name not in TUNING_SETS:
            ap.error(f"{name} is not a tuning set (bench/tuning_sets.py); blind sets stay blind")
    catalog = Catalog.load()
    per_type: dict[str, Counter] = {}
    per_field: dict[str, Counter] = {}
    facts: Counter = Counter()  # facts with every field covered
    for name in args.sets:
        rows = load(ROOT / "bench" / "extraction_data" / f"{name}.jsonl")
        for part in sessions(rows).values():
            earlier: set[str] = set()
            days: set[str] = set()  # the days the earlier messages said
            named = None
            for row in part:
                today = dt.datetime.fromisoformat(row["observed_at"]).date()
                mine = produced(row["text"], today, named)
                before = earlier | carried(days, row["text"])
                for exp in row["expected"]:
                    every = Counter(total=1, message=1, session=1)
                    for key, want in exp["values"].items():
                        spec = spec_of(catalog, exp["path"], key)
                        said = mine | enum_values(spec, row["text"], today)
                        field, kind = f"{exp['path']}.{key}", type_name(spec)
                        here = covers(want, said)
                        there = here or covers(want, before)
                        got = Counter(total=1, message=here, session=there)
                        per_type.setdefault(kind, Counter()).update(got)
                        per_field.setdefault(field, Counter()).update(got)
                        every &= got  # a fact is covered when each of its fields is
                        if not there and args.list in (kind, field):
                            print(f"  {row['id']} {field} = {want!r} <- {row['text']!r}")
                    facts.update(every)
                earlier |= mine
                days |= {v.split("\t", 1)[1] for v in mine if v.startswith("date\t")}
                named = named_span(row["text"], today) or named
    print(f"sets: {' '.join(args.sets)}\n")
    print("\n".join(table("field type", per_type)))
    print(_row("facts, every field", facts))
    print()
    top = dict(sorted(per_field.items(), key=lambda kv: -kv[1]["total"])[: args.fields])
    print("\n".join(table("catalog field", top, "**shown**")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
