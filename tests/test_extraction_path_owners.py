"""The rule extractor's shape: each catalog path is written by one module of patterns/, and
the value parsers it shares with the frames (dates and times, money, places) live outside it.

Read from the source (no message is extracted): a path written in two modules is a path two
owners tune apart, and a date parser in a domain module is a second time model.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import uac
from uac.fact_log.extraction import patterns, slots, timemodel, values
from uac.fact_log.extraction.patterns import followups

PATTERNS = Path(uac.__file__).parent / "fact_log" / "extraction" / "patterns"
# The session thread's follow-ups complete records of many paths across messages (a return
# date said in the next message): they write into every owner's paths by design.
THREAD = {"followups.py"}
WRITERS = {"add": 0, "emit": 2}  # ctx.add(path, ...), emit(ctx, sent, path, ...)


def _writes() -> dict[str, set[str]]:
    """Every catalog path written with a literal path, by the modules that write it."""
    out: dict[str, set[str]] = defaultdict(set)
    for path in sorted(PATTERNS.glob("*.py")):
        if path.name in THREAD:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            at = WRITERS.get(name or "")
            if at is None or len(node.args) <= at:
                continue
            arg = node.args[at]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                out[arg.value].add(path.name)
    return out


def test_each_catalog_path_has_one_owner_module() -> None:
    writes = _writes()
    assert len(writes) >= 30  # the scan sees the rules (a broken scan would pass vacuously)
    shared = {path: sorted(mods) for path, mods in writes.items() if len(mods) > 1}
    assert shared == {}, f"paths written by more than one module: {shared}"


def test_every_rule_runs_from_the_one_registry() -> None:
    """A rule (`rule_*(ctx, sent, parts)`) of any module runs from RULES (or the thread's)."""
    listed = {(r.__module__, r.__name__) for r in (*patterns.RULES, *followups.RULES)}
    assert len(listed) == len(patterns.RULES) + len(followups.RULES)  # no rule runs twice
    for path in sorted(PATTERNS.glob("*.py")):
        if path.name in THREAD:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = f"{patterns.__name__}.{path.stem}" if path.stem != "__init__" else None
        for node in tree.body:
            if (
                isinstance(node, ast.FunctionDef)
                and node.name.startswith("rule_")
                and [a.arg for a in node.args.args] == ["ctx", "sent", "parts"]
                and module
            ):
                assert (module, node.name) in listed, f"{path.name}: {node.name} never runs"


def test_the_frames_and_the_rules_read_time_through_one_model() -> None:
    # slots.py's date and datetime parsers are the time model's own readers
    assert slots.find_dates is timemodel.find_dates
    assert slots.find_time is timemodel.find_time
    # no rule module holds a date reader of its own: the time model's modules are not here
    for name in ("dates", "daterange", "calendar_days", "timespan", "ambiguity", "money"):
        assert not (PATTERNS / f"{name}.py").exists(), name
    assert Path(values.__file__).parent.name == "values"
