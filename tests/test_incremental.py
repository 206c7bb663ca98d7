"""Incremental compiles and loads equal cold ones, byte for byte and object for object."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from conftest import T0, new_workspace
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uac import Memory
from uac.compiler import cache, checkpoint, loader, render
from uac.compiler.canonical import to_json
from uac.fact_log.store import Batch, NewFact, NewInput

ATTRS = {
    "identity.nationality": ["GB", "FR", "DE"],
    "preferences.verbosity": ["short", "normal", "detailed"],
}
SOURCES = ["explicit_command", "import", "automatic_rule", "tool_result"]
CITIES = ["Paris", "Lyon", "Nice"]
SUBSTANCES = ["penicillin", "peanuts", "latex"]

# A step: an attribute value, a trip, an allergy (two collections: one changes while the
# other is carried over), or a retract of an earlier step's fact.
STEP = st.one_of(
    st.tuples(st.just("attr"), st.sampled_from(sorted(ATTRS)), st.integers(0, 2)),
    st.tuples(st.just("trip"), st.sampled_from(["k1", "k2", "k3"]), st.integers(0, 2)),
    st.tuples(st.just("allergy"), st.sampled_from(SUBSTANCES), st.integers(0, 2)),
    st.tuples(st.just("retract"), st.integers(0, 40), st.just(0)),
)


def _fact(step: tuple, n: int, stored: list) -> NewFact | None:
    kind, what, i = step
    source = SOURCES[n % len(SOURCES)]
    if kind == "retract":
        asserts = [f for f in stored if f.op == "assert"]
        if not asserts:
            return None
        target = asserts[what % len(asserts)]
        return NewFact(
            "retract",
            target.kind,
            target.path,
            {"target": target.id},
            record_key=target.record_key,
            input_index=0,
        )
    if kind == "attr":
        fkind = "preference" if what.startswith("preferences") else "attribute"
        return NewFact("assert", fkind, what, ATTRS[what][i], source=source, input_index=0)
    if kind == "trip":
        value = {"country": "FR", "depart": f"2025-0{i + 1}-01", "city": CITIES[i]}
        return NewFact(
            "assert", "record", "travel.trips", value, record_key=what, source=source, input_index=0
        )
    value = {"substance": what, "severity": ["mild", "moderate", "severe"][i]}
    return NewFact(
        "assert", "record", "health.allergies", value, record_key=what, source=source, input_index=0
    )


def apply(mem: Memory, steps: list, first: int = 0) -> None:
    """Append steps (numbered from `first`) one batch each, at increasing log times."""
    stored = mem.facts("alice") if first else []
    for n, step in enumerate(steps, first):
        batch = Batch(
            mem.address("alice"),
            T0 + dt.timedelta(hours=n),
            "prop",
            inputs=[NewInput("message", f"step {n}", "test")],
        )
        fact = _fact(step, n, stored)
        if fact is None:
            continue
        batch.facts.append(fact)
        stored.extend(mem.store.append(batch))


def files(directory: Path) -> dict[str, bytes]:
    """Every generated file of a version (the signature is per workspace)."""
    return {p.name: p.read_bytes() for p in directory.iterdir() if p.is_file()} | {"files.sig": b""}


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(STEP, min_size=1, max_size=20), st.lists(st.integers(1, 19), min_size=1, max_size=5)
)
def test_incremental_compiles_equal_a_fresh_full_compile(tmp_path_factory, steps, cuts) -> None:
    base: Path = tmp_path_factory.mktemp("inc")
    with Memory(new_workspace(base / "warm"), create=True) as warm:
        done = 0
        for cut in [*sorted({c for c in cuts if c < len(steps)}), len(steps)]:
            apply(warm, steps[done:cut], done)
            done = cut
            if not warm.facts("alice"):
                continue
            (got,) = warm.compile("alice")
            loaded = to_json(warm.checkpoint("alice").user)  # carries unchanged modules
            with Memory(new_workspace(base / f"cold{cut}"), create=True) as cold:
                apply(cold, steps[:cut])
                cache.clear()  # nothing kept from the warm side: a fresh full compile
                (want,) = cold.compile("alice")
                assert got.status == want.status == "published"
                assert files(got.directory) == files(want.directory)
                assert loaded == to_json(cold.checkpoint("alice").user)


def test_loading_a_new_version_carries_only_unchanged_modules(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True, react=False) as mem:
        mem.import_records("alice", "travel.trips", [{"country": "FR", "depart": "2025-03-01"}])
        mem.import_records("alice", "health.allergies", [{"substance": "penicillin"}])
        mem.set("alice", "preferences.verbosity", "short")
        mem.compile("alice")
        first = mem.checkpoint("alice").package
        mem.set("alice", "preferences.verbosity", "detailed")
        mem.compile("alice")
        second = mem.checkpoint("alice")
        assert second.user.preferences.verbosity == "detailed"
        assert second.package.schema is first.schema
        assert second.package.records_trips is first.records_trips
        assert second.package.state is not first.state
        mem.import_records("alice", "travel.trips", [{"country": "JP", "depart": "2025-05-01"}])
        mem.compile("alice")
        third = mem.checkpoint("alice")
        assert third.package.records_trips is not second.package.records_trips
        assert third.package.records_allergies is second.package.records_allergies
        assert [t.country for t in third.user.trips] == ["FR", "JP"]
        assert [a.substance for a in third.user.allergies] == ["penicillin"]


GOLDEN_COLUMNS = Path(__file__).resolve().parent / "golden/default/user/maya/_columns.py"


def test_every_checkpoint_holds_the_one_decoding_module(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True, react=False) as mem:
        mem.set("alice", "preferences.verbosity", "short")
        (bare,) = mem.compile("alice")  # no records: the module is there all the same
        mem.import_records("alice", "travel.trips", [{"country": "FR", "depart": "2025-03-01"}])
        (fresh,) = mem.compile("alice")
        mem.set("alice", "preferences.verbosity", "detailed")
        (carried,) = mem.compile("alice")
        assert (fresh.reused, carried.reused) == ([], ["trips"])
        for res in (bare, fresh, carried):
            assert (res.directory / "_columns.py").read_bytes() == GOLDEN_COLUMNS.read_bytes()
        assert [t.country for t in mem.checkpoint("alice").user.trips] == ["FR"]


def test_records_modules_of_another_format_are_rendered_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A checkpoint written by another template or decoding module (an older uac) must not
    # lend its records modules to the next version, which holds this version's _columns.py.
    with Memory(tmp_path / "ws", create=True, react=False) as mem:
        mem.import_records("alice", "travel.trips", [{"country": "FR", "depart": "2025-03-01"}])
        monkeypatch.setattr(checkpoint, "records_format", lambda: "an older format")
        mem.compile("alice")
        monkeypatch.undo()
        mem.set("alice", "preferences.verbosity", "short")
        (again,) = mem.compile("alice")
        mem.set("alice", "preferences.verbosity", "detailed")
        (carried,) = mem.compile("alice")
        assert (again.reused, carried.reused) == ([], ["trips"])


def test_the_records_format_follows_the_converter_code(monkeypatch: pytest.MonkeyPatch) -> None:
    # Records modules call converters rendered by Python code, not only by the template: an
    # upgrade that changes how a date or a decimal is converted must not carry old modules.
    before = render.records_format()

    def converter(shape: object, expr: str, depth: int = 0) -> str:
        return f"str({expr})"  # another way of converting a cell

    monkeypatch.setattr(render, "converter", converter)
    render.records_format.cache_clear()
    try:
        assert render.records_format() != before
    finally:
        monkeypatch.undo()
        render.records_format.cache_clear()
    assert render.records_format() == before  # the digest is of source text: stable
    monkeypatch.setattr(render, "CONVERTERS", {**render.CONVERTERS, "date": "parse_day"})
    render.records_format.cache_clear()
    try:
        assert render.records_format() != before  # the conversions the code names count too
    finally:
        monkeypatch.undo()
        render.records_format.cache_clear()


def test_a_loaded_records_module_is_carried_only_with_its_decoding_module(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True, react=False) as mem:
        mem.import_records("alice", "travel.trips", [{"country": "FR", "depart": "2025-03-01"}])
        mem.compile("alice")
        name = mem.checkpoint("alice").package.__name__
        digests = loader._VERIFIED_FILES[name][0]
        assert "records_trips" in loader._carried(name, dict(digests))
        assert loader._carried(name, {**digests, "_columns.py": "0" * 64}) == {}
