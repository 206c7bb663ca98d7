"""The blind held-out bench sets (fresh, blind2 to blind20) stay well-formed: catalog paths,
fields, enums, gold for every dialogue and checks that exist; every active-checks corpus has
sessions of a date and whole lines."""

from __future__ import annotations

import datetime as dt
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from uac.checks.library import REGISTRY

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT / "fact_log" / "catalog.toml"
EXTRACTION = ROOT / "bench" / "extraction_data"
ACTIVE = ROOT / "bench" / "active_data"
# Per set: least messages, sessions and share of silent lines; least alerting dialogues, controls.
SETS = {
    "fresh": (160, 25, 0.2, 30, 5),
    "blind2": (200, 35, 0.35, 30, 6),
    "blind3": (220, 40, 0.35, 32, 8),
    "blind4": (220, 40, 0.35, 32, 8),
    "blind5": (220, 40, 0.35, 32, 8),
    "blind6": (220, 40, 0.35, 32, 8),
    "blind7": (260, 48, 0.33, 42, 13),
    "blind8": (332, 61, 0.31, 81, 15),
    "blind9": (345, 61, 0.29, 89, 23),
    "blind10": (368, 79, 0.31, 91, 19),
    "blind11": (408, 84, 0.34, 91, 37),
    "blind12": (385, 74, 0.30, 79, 39),
    "blind13": (393, 65, 0.32, 82, 39),
    "blind14": (398, 80, 0.40, 83, 39),
    "blind15": (367, 75, 0.34, 85, 40),
    "blind16": (380, 76, 0.32, 88, 40),
    "blind17": (370, 74, 0.31, 87, 45),
    "blind18": (375, 75, 0.33, 84, 42),
    "blind19": (345, 69, 0.31, 81, 39),
    "blind20": (320, 64, 0.32, 79, 39),
}
# Every dialogue corpus of bench/active_data (each has an oracle file beside it).
CORPORA = sorted(p.stem for p in ACTIVE.glob("*.toml") if not p.stem.endswith("oracle"))
ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _fields() -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """Fields by full path (attributes and group fields as 'value') and by collection name."""
    with CATALOG.open("rb") as fh:
        catalog = tomllib.load(fh)
    by_path: dict[str, dict[str, Any]] = {}
    by_collection: dict[str, dict[str, Any]] = {}
    for domain, spec in catalog.items():
        for name, attr in spec.get("attributes", {}).items():
            by_path[f"{domain}.{name}"] = {"value": attr}
        for group, gspec in spec.get("groups", {}).items():
            for name, fld in gspec["fields"].items():
                by_path[f"{domain}.{group}.{name}"] = {"value": fld}
        for coll, cspec in spec.get("collections", {}).items():
            by_path[f"{domain}.{coll}"] = by_collection[coll] = cspec["fields"]
    return by_path, by_collection


def _bad(fields: dict[str, Any], values: dict[str, Any]) -> list[str]:
    """Field names unknown to the catalog or enum values it does not allow."""
    out = []
    for key, value in values.items():
        spec = fields.get(key)
        if spec is None:
            out.append(f"unknown field {key}")
        elif spec.get("type") == "enum" and value not in spec["values"]:
            out.append(f"{key}={value!r} not in {spec['values']}")
    return out


@pytest.mark.parametrize("name", sorted(SETS))
def test_extraction_set_uses_catalog_paths_and_has_silent_lines(name: str) -> None:
    by_path, _ = _fields()
    least, sessions, silent, _, _ = SETS[name]
    text = (EXTRACTION / f"{name}.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    assert len(rows) >= least and len({r["session"] for r in rows}) >= sessions
    assert len({r["id"] for r in rows}) == len(rows)
    assert sum(1 for r in rows if not r["expected"]) >= silent * len(rows)
    problems = [
        f"{r['id']}: {p}"
        for r in rows
        for e in r["expected"]
        for p in (
            _bad(by_path[e["path"]], e["values"]) if e["path"] in by_path else ["no such path"]
        )
    ]
    assert problems == []


@pytest.mark.parametrize("name", sorted(SETS))
def test_dialogues_have_gold_for_every_dialogue_and_catalog_fields(name: str) -> None:
    by_path, by_collection = _fields()
    *_, alerting, controls = SETS[name]
    with (ACTIVE / f"{name}.toml").open("rb") as fh:
        dialogues = tomllib.load(fh)["d"]
    with (ACTIVE / f"{name}_oracle.toml").open("rb") as fh:
        gold = tomllib.load(fh)["oracle"]
    ids = [d["id"] for d in dialogues]
    assert len(ids) == len(set(ids)) and set(ids) == set(gold)
    assert sum(1 for d in dialogues if d["session"] == 0) >= controls
    assert sum(1 for d in dialogues if d["session"] > 0) >= alerting
    problems = [
        f"{d['id']}: no check {c}" for d in dialogues for c in d["checks"] if c not in REGISTRY
    ]
    for d in dialogues:  # needs: `path`, `path[field]` or `path#n` (README.md of active_data)
        for need in d["needs"]:
            path, _, fld = need.partition("#")[0].rstrip("]").partition("[")
            if path not in by_path or (fld and fld not in by_path[path]):
                problems.append(f"{d['id']}: need {need} names no catalog path or field")
    for did, sessions in gold.items():
        for entries in sessions.values():
            for e in entries:
                if "c" in e:
                    problems += [f"{did}: {p}" for p in _bad(by_collection[e["c"]], e["r"])]
                elif e["p"] not in by_path:
                    problems.append(f"{did}: no such path {e['p']}")
    assert problems == []


def _is_date(text: str) -> bool:
    try:
        dt.date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _session_problems(dialogues: list[dict[str, Any]]) -> list[str]:
    """Sessions that are not `[ISO day, line, line, ...]` with whole, non-blank lines."""
    problems = []
    for d in dialogues:
        for n, session in enumerate(d["s"], 1):
            where = f"{d['id']} session {n}"
            if not isinstance(session, list) or len(session) < 2:
                problems.append(f"{where}: not a list of a day and at least one line")
                continue
            day, *lines = session
            if not (isinstance(day, str) and ISO_DAY.fullmatch(day) and _is_date(day)):
                problems.append(f"{where}: first item is not an ISO date")
            problems += [
                f"{where}: line {i} is not a whole line"
                for i, line in enumerate(lines, 1)
                if not isinstance(line, str) or len(line.strip()) <= 1
            ]
    return problems


def test_every_active_corpus_is_checked() -> None:
    assert {"dialogues", "checks3", *SETS} <= set(CORPORA)


@pytest.mark.parametrize("name", CORPORA)
def test_active_corpus_sessions_are_a_day_and_whole_lines(name: str) -> None:
    with (ACTIVE / f"{name}.toml").open("rb") as fh:
        dialogues = tomllib.load(fh)["d"]
    assert dialogues and all(d["s"] for d in dialogues)
    assert _session_problems(dialogues) == []


def test_session_check_rejects_lines_split_into_characters() -> None:
    split = [{"id": "x", "s": [["2035-02-01", *"I moved."]]}]
    whole = [{"id": "x", "s": [["2035-02-01", "I moved.", "New flat."]]}]
    undated = [{"id": "x", "s": [["1 Feb", "I moved."], ["2035-02-30", "I moved."]]}]
    assert len(_session_problems(split)) == len("I moved.")
    assert _session_problems(whole) == []
    assert _session_problems(undated) == [
        f"x session {n}: first item is not an ISO date" for n in (1, 2)
    ]
