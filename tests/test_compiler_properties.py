"""Property tests: the fold equals a simple reference fold; prefixes and repeats are exact."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import T0, new_workspace
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uac import Memory
from uac.compiler.fold import CONFIDENCE_THRESHOLDS, SOURCE_RANK, fold, select_facts
from uac.compiler.model import build_model
from uac.fact_log.store import Batch, NewFact, NewInput

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL
# Tests that open no workspace run once, not per backend (tests/conftest.py).
NO_LOG = pytest.mark.no_workspace("JSON rendering alone: no log")

ATTRS = {
    "identity.nationality": ["GB", "FR", "DE"],
    "preferences.verbosity": ["short", "normal", "detailed"],
}
SOURCES = ["explicit_command", "import", "automatic_rule", "automatic_llm", "tool_result"]

# One step: (kind, path or key, value, source, confidence, day) or a retract of an earlier step.
ASSERT_ATTR = st.tuples(
    st.just("attr"),
    st.sampled_from(sorted(ATTRS)),
    st.integers(0, 2),
    st.sampled_from(SOURCES),
    st.sampled_from([0.3, 0.65, 0.8, 1.0]),
    st.integers(0, 5),
)
ASSERT_TRIP = st.tuples(
    st.just("trip"),
    st.sampled_from(["k1", "k2"]),
    st.integers(0, 2),
    st.sampled_from(SOURCES),
    st.sampled_from([0.3, 0.65, 0.8, 1.0]),
    st.integers(0, 5),
)
RETRACT = st.tuples(st.just("retract"), st.integers(0, 30))
STEPS = st.lists(st.one_of(ASSERT_ATTR, ASSERT_TRIP, RETRACT), min_size=1, max_size=25)
CITIES = ["Paris", "Lyon", "Nice"]
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def apply(mem: Memory, steps: list, only_until: int | None = None) -> list:
    """Append the steps as facts, one batch per step; returns the stored facts."""
    stored = []
    # A log's recording times grow with its sequence: sort the drawn days into log order.
    days = sorted(step[5] if step[0] != "retract" else 5 for step in steps)
    for n, step in enumerate(steps):
        day = days[n]
        now = T0 + dt.timedelta(days=day, seconds=n)
        if only_until is not None and day > only_until:
            continue
        batch = Batch(
            mem.address("alice"), now, "prop", inputs=[NewInput("message", f"step {n}", "test")]
        )
        if step[0] == "retract":
            asserts = [f for f in stored if f.op == "assert"]
            if not asserts:
                continue
            target = asserts[step[1] % len(asserts)]
            batch.facts.append(
                NewFact(
                    "retract",
                    target.kind,
                    target.path,
                    {"target": target.id},
                    record_key=target.record_key,
                    input_index=0,
                )
            )
        elif step[0] == "attr":
            value = ATTRS[step[1]][step[2]]
            kind = "preference" if step[1].startswith("preferences") else "attribute"
            batch.facts.append(
                NewFact(
                    "assert",
                    kind,
                    step[1],
                    value,
                    source=step[3],
                    confidence=step[4],
                    input_index=0,
                )
            )
        else:
            value = {"country": "FR", "depart": "2025-01-01", "city": CITIES[step[2]]}
            if step[2] == 2:
                value["cost"] = "10.50"
            batch.facts.append(
                NewFact(
                    "assert",
                    "record",
                    "travel.trips",
                    value,
                    record_key=step[1],
                    source=step[3],
                    confidence=step[4],
                    input_index=0,
                )
            )
        stored.extend(mem.store.append(batch))
    return stored


def reference(facts: list) -> tuple[dict, dict]:
    """The obvious fold, written independently of compiler.fold."""
    retracted = {f.value["target"] for f in facts if f.op == "retract"}
    live = [
        f
        for f in facts
        if f.op == "assert"
        and f.id not in retracted
        and f.confidence >= CONFIDENCE_THRESHOLDS.get(f.source, 0)
    ]
    rank = lambda f: (SOURCE_RANK[f.source], f.recorded_at, f.confidence, f.seq)  # noqa: E731
    attrs = {}
    for path in ATTRS:
        candidates = [f for f in live if f.path == path]
        if candidates:
            attrs[path] = max(candidates, key=rank).value
    trips = {}
    for f in sorted((f for f in live if f.path == "travel.trips"), key=rank):
        trips.setdefault(f.record_key, {}).update(f.value)
    return attrs, trips


@SETTINGS
@given(STEPS)
def test_fold_equals_reference_fold(tmp_path_factory, fresh_log, steps) -> None:
    home = tmp_path_factory.mktemp("p") / "ws"
    with fresh_log(home), Memory(new_workspace(home), create=True) as mem:  # a log per example
        facts = apply(mem, steps)
        model = build_model(mem.catalog, {})
        fold(mem.catalog, model, select_facts(facts))
        attrs, trips = reference(facts)
        groups = {g.attr: g for g in model.groups}
        got_attrs = {
            p: groups[p.split(".")[0]].values[p.split(".")[1]]
            for p in ATTRS
            if p.split(".")[1] in groups[p.split(".")[0]].values
        }
        assert got_attrs == attrs
        coll = model.collection("travel.trips")
        got = {
            r.key: {k: (str(v) if k != "depart" else v.isoformat()) for k, v in r.values.items()}
            for r in coll.records
        }
        assert got == trips


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(STEPS, st.integers(0, 5))
def test_known_at_prefix_equals_a_log_with_only_that_prefix(
    tmp_path_factory, fresh_log, steps, cut
) -> None:
    base: Path = tmp_path_factory.mktemp("k")
    with fresh_log(base / "full"):  # two independent logs, new for each example
        full = Memory(new_workspace(base / "full"), create=True)
    with fresh_log(base / "prefix"):
        prefix = Memory(new_workspace(base / "prefix"), create=True)
    with full, prefix:
        apply(full, steps)
        kept = apply(prefix, steps, only_until=cut)
        if not kept:
            return
        known_at = T0 + dt.timedelta(days=cut, seconds=len(steps))
        (a,) = full.compile("alice", known_at=known_at)
        (b,) = prefix.compile("alice")
        files_a = {
            p.name: p.read_bytes()
            for p in a.directory.iterdir()
            if p.is_file() and p.name not in ("files.json", "files.sig")  # per workspace
        }
        files_b = {
            p.name: p.read_bytes()
            for p in b.directory.iterdir()
            if p.is_file() and p.name not in ("files.json", "files.sig")
        }
        assert files_a == files_b
        (again,) = prefix.compile("alice")
        assert {p.name: p.read_bytes() for p in again.directory.iterdir() if p.is_file()} == {
            p.name: p.read_bytes() for p in b.directory.iterdir() if p.is_file()
        }


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(STEPS, st.lists(st.integers(1, 25), min_size=1, max_size=6))
def test_warm_incremental_compiles_equal_a_cold_compile(
    tmp_path_factory, fresh_log, steps, cuts
) -> None:
    # Compiling after every few steps reuses the cached facts and the fold memo of the
    # previous compile; each result must be byte-identical to a compile that starts cold.
    from uac.compiler import cache

    def files(directory: Path) -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in directory.iterdir() if p.is_file()}

    home = tmp_path_factory.mktemp("w") / "ws"
    with fresh_log(home), Memory(new_workspace(home), create=True) as mem:  # a log per example
        done = 0
        for cut in [*sorted(set(cuts)), len(steps)]:
            if cut <= done or cut > len(steps):
                continue
            apply(mem, steps[done:cut])
            done = cut
            if not mem.facts("alice"):
                continue
            (warm,) = mem.compile("alice")
            memo = cache.fold_memo(mem.store, mem.address("alice"))
            cache.clear()
            (cold,) = mem.compile("alice")
            assert warm.status == cold.status == "published"
            assert files(warm.directory) == files(cold.directory)
            cache.keep_fold_memo(mem.store, mem.address("alice"), memo)  # stay warm


def test_a_record_whose_facts_changed_is_folded_again(mem: Memory) -> None:
    # Same record key, same number of facts, different facts: never the memo's old answer.
    trip = {"country": "FR", "depart": "2025-01-01", "city": "Paris"}
    [first] = mem.store.append(_one(mem, NewFact("assert", "record", "travel.trips", trip, "k1")))
    assert mem.compile("alice")[0].status == "published"
    batch = _one(mem, NewFact("retract", "record", "travel.trips", {"target": first.id}, "k1"))
    batch.facts.append(NewFact("assert", "record", "travel.trips", {**trip, "city": "Lyon"}, "k1"))
    mem.store.append(batch)
    mem.compile("alice")
    assert [t.city for t in mem.checkpoint("alice").user.trips] == ["Lyon"]


def _one(mem: Memory, fact: NewFact) -> Batch:
    batch = Batch(mem.address("alice"), T0, "prop")
    batch.facts.append(fact)
    return batch


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@NO_LOG
@settings(max_examples=300, deadline=None)
@given(JSONISH | st.lists(st.text()) | st.dictionaries(st.text(), st.text() | st.integers()))
def test_compact_json_is_canonical_json(value) -> None:
    from uac.compiler.render import compact_json
    from uac.fact_log.values import canonical_json

    assert compact_json(value) == canonical_json(value)
