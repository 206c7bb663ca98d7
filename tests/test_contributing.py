"""The recipes of docs/contributing.md stay true: its example frame loads and fits the
catalog, its example catalog path is written and compiled, every registered check has its
row in checks/README.md, every file the page names exists, and bench/RESULTS.md has a place
for every benchmark in bench/."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import tomllib
from pathlib import Path

import pytest

from uac import Memory
from uac.checks.library import REGISTRY
from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction import frames
from uac.fact_log.extraction.slots import parser

pytestmark = pytest.mark.usefixtures("backend")  # the catalog recipe opens a workspace
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("the docs and shipped data files alone: no log")

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "contributing.md"


def section(title: str) -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def toml_example(title: str) -> str:
    """The one fenced TOML block of a recipe, its indentation (inside a list item) removed."""
    blocks = re.findall(r"^( *)```toml\n(.*?)^\1```", section(title), re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, title
    indent, body = blocks[0]
    return "\n".join(line.removeprefix(indent) for line in body.splitlines()) + "\n"


@NO_LOG
def test_the_example_frame_loads_and_fits_the_catalog(tmp_path: Path) -> None:
    text = toml_example("Add an extraction frame")
    spec = tomllib.loads(text)["frames"]
    path = tmp_path / "frames.toml"
    path.write_text(text, encoding="utf-8")
    (frame,) = frames.load_frames(path)  # unknown slot keys raise here
    known = {f.name for f in dataclasses.fields(frames.Frame)} - {"name"}
    assert set(spec[frame.name]) <= known, set(spec[frame.name]) - known  # no ignored key
    assert frame.name not in {f.name for f in frames.load_frames()}
    catalog = Catalog.load()
    coll = catalog.collection(frame.path)
    assert coll is not None or frame.path in catalog.attributes
    fields = catalog.model_for(coll).model_fields if coll is not None else {"value"}
    for slot in frame.slots:
        parser(slot.type)  # KeyError for an unknown parser type
        assert slot.field in fields, slot.field
    assert any(s.required for s in frame.slots) and frame.examples and frame.cues
    assert frame.emit is False  # the recipe: a new frame writes nothing until measured


def test_the_example_catalog_path_is_written_and_compiled(tmp_path: Path) -> None:
    home = tmp_path / "ws"
    home.mkdir()
    (home / "catalog.toml").write_text(toml_example("Add a catalog path"), encoding="utf-8")
    (domain,) = tomllib.loads(toml_example("Add a catalog path"))
    (name,) = tomllib.loads(toml_example("Add a catalog path"))[domain]["collections"]
    path = f"{domain}.{name}"
    assert Catalog.load().collection(path) is None  # new: a workspace may not redefine
    now = dt.datetime(2026, 12, 6, 9, 0)
    with Memory(home, create=True) as mem:
        assert mem.catalog.collection(path) is not None
        row = {"date": "2026-12-01", "systolic": 128, "diastolic": 82}
        mem.import_records("alice", path, [row], now=now)
        mem.compile("alice")
        (reading,) = getattr(mem.checkpoint("alice").user, name)
        assert (reading.date, reading.systolic) == (dt.date(2026, 12, 1), 128)
        with pytest.raises(Exception, match="systolic"):
            mem.import_records("alice", path, [{"date": "2026-12-02"}], now=now)


@NO_LOG
def test_every_registered_check_has_its_row_in_the_checks_readme() -> None:
    table = (ROOT / "checks" / "README.md").read_text(encoding="utf-8")
    rows = "\n".join(line for line in table.splitlines() if line.startswith("| "))
    named = set(re.findall(r"[a-z_]+", rows))
    assert set(REGISTRY) <= named, sorted(set(REGISTRY) - named)


@NO_LOG
def test_every_file_the_page_names_exists() -> None:
    named = set(re.findall(r"`([\w./*-]+/[\w.*-]+\.(?:py|toml|md|jsonl))`", PAGE.read_text()))
    assert len(named) > 10
    missing = [n for n in sorted(named) if not list(ROOT.glob(n))]
    assert not missing, missing


@NO_LOG
def test_results_has_a_place_for_every_benchmark() -> None:
    results = (ROOT / "bench" / "RESULTS.md").read_text(encoding="utf-8")
    start = results.index("\n## ")
    index, sections = results[:start], results[start:]
    helpers = index[index.index("Not benchmarks:") :]
    scripts = sorted(p.name for p in (ROOT / "bench").glob("*.py"))
    assert len(scripts) > 20
    for script in scripts:  # listed; a benchmark (not a helper) has its section
        assert script in index, script
        assert script in helpers or f"bench/{script}" in sections, script
