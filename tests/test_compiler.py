"""The checkpoint compiler: fold semantics, generated code, publishing and failures."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from conftest import T0, append_to_state, write

from uac import Memory
from uac.compiler import checkpoint as ckpt_module
from uac.compiler.loader import subject_dir
from uac.fact_log.addressing import parse_subject
from uac.fact_log.errors import InputError, NotFound, WorkspaceError
from uac.fact_log.store import Batch, NewFact, NewInput

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL


def at(days: int) -> dt.datetime:
    return T0 + dt.timedelta(days=days)


def auto(
    mem: Memory,
    subject: str,
    path: str,
    value,
    *,
    confidence: float = 0.9,
    source: str = "automatic_rule",
    day: int = 0,
    kind: str = "attribute",
    key: str | None = None,
):
    """Append an automatic fact the way an extractor would (through the real store)."""
    batch = Batch(
        mem.address(subject), at(day), "test", inputs=[NewInput("message", str(value), source)]
    )
    batch.facts.append(
        NewFact(
            "assert",
            kind,
            path,
            value,
            record_key=key,
            source=source,
            confidence=confidence,
            input_index=0,
        )
    )
    return mem.store.append(batch)[0]


def generated(mem: Memory, subject: str) -> dict[str, bytes]:
    directory = mem.checkpoint(subject).directory
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def test_explicit_beats_automatic_then_recency_then_confidence(mem: Memory) -> None:
    explicit = mem.set("alice", "identity.passport.expiry_date", "2027-01-01", now=at(0))
    newer_auto = auto(mem, "alice", "identity.passport.expiry_date", "2030-01-01", day=5)
    auto(mem, "bob", "preferences.verbosity", "short", day=1, confidence=0.95)
    bob_later = auto(mem, "bob", "preferences.verbosity", "detailed", day=2, confidence=0.7)
    auto(mem, "bob", "preferences.format", "table", day=3, confidence=0.9)
    same_time = auto(mem, "bob", "preferences.format", "bullets", day=3, confidence=0.95)
    mem.compile(all=True)
    alice = mem.checkpoint("alice")
    assert alice.user.passport.expiry_date == dt.date(2027, 1, 1)
    facts = alice.provenance["facts"]
    assert facts[newer_auto.id] == {
        "status": "superseded",
        "decision": "ignored",
        "superseded_by": explicit.id,
        "support": 1,
    }
    assert any(
        d["kind"] == "contradiction" and d["over"] == newer_auto.id
        for d in alice.diagnostics["diagnostics"]
    )
    bob = mem.checkpoint("bob").user
    assert bob.preferences.verbosity == "detailed"  # recency before confidence
    assert bob.preferences.format == "bullets"  # same time: confidence decides
    assert mem.statuses("bob")[bob_later.id]["status"] == "active"
    assert mem.statuses("bob")[same_time.id]["decision"] == "supersede"


def test_two_messages_saying_different_values_show_as_a_contradiction(mem: Memory) -> None:
    # The later statement wins; the diagnostic keeps both, for an agent to confirm which.
    mem.add("alice", "My passport expires on 3 May 2030.", at=at(1))
    mem.add("alice", "My passport expires on 3 May 2030, as I said.", at=at(2))  # the same
    mem.add("alice", "My passport expires on 3 June 2030.", at=at(30))
    mem.set("alice", "preferences.verbosity", "short", now=at(1))
    mem.set("alice", "preferences.verbosity", "detailed", now=at(2))  # a command: an update
    mem.add("alice", "I live in Porto.", at=at(1))
    mem.add("alice", "I live in Lisbon now.", at=at(200))  # says it changed: an update
    mem.compile("alice")
    ck = mem.checkpoint("alice")
    assert ck.user.passport.expiry_date == dt.date(2030, 6, 3)
    assert ck.user.address.city == "Lisbon"
    found = [d for d in ck.diagnostics["diagnostics"] if d["kind"] == "contradiction"]
    said = {f.value: f.id for f in mem.facts("alice", "identity.passport.expiry_date")}
    assert [(d["path"], d["kept"], d["rule"]) for d in found] == [
        ("identity.passport.expiry_date", said["2030-06-03"], "the later statement")
    ] * 2
    assert sorted(d["over"] for d in found) == sorted(
        f.id for f in mem.facts("alice", "identity.passport.expiry_date") if f.value == "2030-05-03"
    )


def test_below_threshold_never_wins_and_reinforce_counts_support(mem: Memory) -> None:
    weak = auto(mem, "alice", "identity.nationality", "FR", confidence=0.3, day=9)
    first = mem.set("alice", "identity.nationality", "GB", now=at(1))
    again = mem.set("alice", "identity.nationality", "GB", now=at(2))
    mem.compile("alice")
    statuses = mem.statuses("alice")
    assert mem.checkpoint("alice").user.identity.nationality == "GB"
    assert statuses[weak.id]["status"] == "observed"
    assert (statuses[first.id]["decision"], statuses[again.id]["decision"]) == ("add", "reinforce")
    assert statuses[again.id]["support"] == 2
    assert mem.why("alice", "identity.nationality").facts == [first, again]


def test_retract_falls_back_and_removes_records(mem: Memory) -> None:
    old = mem.set("alice", "identity.passport.expiry_date", "2027-01-01", now=at(0))
    new = mem.set("alice", "identity.passport.expiry_date", "2031-01-01", now=at(1))
    mem.import_records(
        "alice",
        "trips",
        [{"country": "FR", "depart": "2025-01-01"}, {"country": "IT", "depart": "2025-02-01"}],
        now=at(1),
    )
    rome = mem.facts("alice", "travel.trips")[1]
    mem.forget("alice", new.id, now=at(2))
    mem.forget("alice", rome.id, now=at(2))
    mem.compile("alice")
    user = mem.checkpoint("alice").user
    assert user.passport.expiry_date == dt.date(2027, 1, 1)
    assert [t.country for t in user.trips] == ["FR"]
    statuses = mem.statuses("alice")
    assert statuses[new.id]["status"] == statuses[rome.id]["status"] == "disabled"
    assert statuses[old.id]["status"] == "active"


def test_records_dedupe_by_key_and_merge_updates(mem: Memory) -> None:
    mem.import_records(
        "alice", "trips", [{"city": "Paris", "country": "FR", "depart": "2025-03-05"}], now=at(0)
    )
    mem.import_records(
        "alice",
        "trips",
        [
            {
                "city": "Paris",
                "country": "FR",
                "depart": "2025-03-05",
                "cost": "412.10",
                "currency": "EUR",
            }
        ],
        now=at(1),
    )
    mem.import_records(
        "alice",
        "trips",
        [
            {"id": "T1", "country": "JP", "depart": "2026-01-01"},
            {"id": "T1", "country": "JP", "depart": "2026-01-02"},
        ],
        now=at(2),
    )
    mem.compile("alice")
    trips = mem.checkpoint("alice").user.trips
    assert len(trips) == 2
    paris = trips[0]
    assert (paris.key, paris.cost, paris.currency) == (
        "FR|Paris|2025-03-05",
        Decimal("412.10"),
        "EUR",
    )
    assert isinstance(paris.cost, Decimal) and isinstance(paris.depart, dt.date)
    assert len(paris.fact_ids) == 2
    assert trips[1].depart == dt.date(2026, 1, 2)
    statuses = mem.statuses("alice")
    assert [statuses[f]["decision"] for f in paris.fact_ids] == ["add", "update"]


def test_generated_code_is_typed_and_annotated(mem: Memory, tmp_path: Path) -> None:
    mem.set("alice", "preferences.verbosity", "short", now=T0)
    mem.import_records(
        "alice",
        "trips",
        [
            {
                "city": "Paris",
                "country": "FR",
                "depart": "2025-03-05",
                "cost": "412.10",
                "purpose": "leisure",
            }
        ],
        now=T0,
    )
    csv = write(tmp_path / "c.csv", "Date,Gym Name,class,1st route,key\n2024-01-06,Arch,x,6a,k\n")
    mem.import_file("alice", "climbs", csv, now=T0)
    (result,) = mem.compile("alice")
    files = generated(mem, "alice")
    schema = files["schema.py"].decode()
    assert "@_dataclass\nclass Trip:" in schema  # dataclasses.dataclass's, written out
    assert "depart: datetime.date\n" in schema and "cost: Decimal | None = None" in schema
    assert (
        '    purpose: Literal["leisure", "business", "family", "study", "medical", "other"]'
        " | None\n" in schema
    )
    assert (
        "trips: tuple[Trip, ...]" in schema
        and '"""Destination country, ISO 3166-1 alpha-2."""' in schema
    )
    assert (
        "class Preferences:" in schema
        and 'verbosity: Literal["short", "normal", "detailed"] | None = "normal"' in schema
    )
    user = mem.checkpoint("alice").user
    assert isinstance(user.trips, tuple) and user.trips[0].fact_ids == (
        mem.facts("alice", "travel.trips")[0].id,
    )
    climb = user.climbs[0]
    assert (climb.date, climb.gym_name, climb.class_, climb.f_1st_route, climb.key_) == (
        dt.date(2024, 1, 6),
        "Arch",
        "x",
        "6a",
        "k",
    )
    renamed = mem.checkpoint("alice").diagnostics["renamed"]
    assert ["climbs", "Gym Name", "gym_name"] in renamed and [
        "climbs",
        "class",
        "class_",
    ] in renamed
    assert "preferences.verbosity" not in files["constraints.py"].decode()
    assert "passport_validity_for_trip" in files["constraints.py"].decode()
    manifest = files["manifest.md"].decode()
    assert "user.trips: 1 × Trip" in manifest and "user.climbs: 1 × Climb" in manifest
    assert len(manifest) < 3000
    assert result.status == "published" and result.current


def test_manifest_masks_sensitive_values(mem: Memory) -> None:
    mem.set("alice", "identity.passport.number", "X1234567", now=T0)
    mem.set("alice", "identity.name", "Alice Liddell", now=T0)
    mem.compile("alice")
    manifest = mem.manifest("alice")
    assert (
        "X1234567" not in manifest and "Alice Liddell" not in manifest and "number=•••" in manifest
    )


def test_compiling_twice_gives_identical_bytes(mem: Memory) -> None:
    mem.import_records(
        "alice",
        "trips",
        [{"country": "FR", "depart": f"2025-01-{d:02d}"} for d in range(1, 29)],
        now=T0,
    )
    mem.set("alice", "identity.name", "A", now=T0)
    mem.compile("alice")
    first = generated(mem, "alice")
    mem.compile("alice")
    assert generated(mem, "alice") == first
    assert mem.checkpoint("alice").version == 2


def test_templates_loaded_from_kept_code_render_what_compiled_ones_render(
    mem: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The templates' compiled code is kept (like Python's bytecode) so a process that
    # compiles a subject need not compile them again: loaded, they render the same text.
    import sys

    import jinja2

    from uac.compiler import render

    said: list[tuple[str, tuple, dict, str]] = []
    plain = jinja2.Template.render

    def spied(self: jinja2.Template, *args: object, **kwargs: object) -> str:
        text = plain(self, *args, **kwargs)
        said.append((str(self.name), args, kwargs, text))
        return text

    with monkeypatch.context() as patch:
        patch.setattr(jinja2.Template, "render", spied)
        mem.import_records("alice", "trips", [{"country": "FR", "depart": "2025-01-02"}], now=T0)
        mem.set("alice", "identity.name", "A", now=T0)
        mem.compile("alice")
    names = {name for name, *_ in said}
    assert {"schema.py.j2", "state.py.j2", "records.py.j2"} <= names
    kept = tmp_path / "kept"
    compiled: list[str] = []
    source = jinja2.Environment.compile

    def counted(self: jinja2.Environment, *args: Any, **kwargs: Any) -> Any:
        compiled.append(str(args[1:2] or kwargs.get("name")))
        return source(self, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", counted)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    for loads in (False, True):  # compiled from source and kept; then loaded from the kept
        compiled.clear()
        env = render.environment().overlay(
            bytecode_cache=render._bytecode_cache(kept), cache_size=0
        )
        for name, args, kwargs, text in said:
            assert env.get_template(name).render(*args, **kwargs) == text
        assert (compiled == []) is loads
        assert len(list(kept.iterdir())) == len(names)
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # PYTHONDONTWRITEBYTECODE: none kept
    elsewhere = tmp_path / "none"
    env = render.environment().overlay(
        bytecode_cache=render._bytecode_cache(elsewhere), cache_size=0
    )
    assert env.get_template("schema.py.j2") is not None and not elsewhere.exists()


def test_incremental_compile_reuses_unchanged_collections(mem: Memory) -> None:
    mem.import_records("alice", "trips", [{"country": "FR", "depart": "2025-01-01"}], now=T0)
    mem.import_records("alice", "medications", [{"name": "lisinopril"}], now=T0)
    mem.compile("alice")
    mem.import_records("alice", "trips", [{"country": "IT", "depart": "2025-02-01"}], now=at(1))
    (result,) = mem.compile(changed=True)
    assert result.reused == ["medications"]
    assert [t.country for t in mem.checkpoint("alice").user.trips] == ["FR", "IT"]
    assert mem.compile(changed=True) == []
    old, new, lines = mem.diff("alice")
    assert (old, new) == (1, 2)
    assert len(lines) == 1 and lines[0].startswith('+ user.trips["h:')  # no city: content-hash key


def test_failed_validation_publishes_nothing(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    mem.set("alice", "identity.name", "A", now=T0)
    mem.compile("alice")
    mem.set("alice", "identity.name", "B", now=at(1))
    append_to_state(monkeypatch, "\ndef broken(:\n")
    (result,) = mem.compile("alice")
    assert result.status == "failed" and "ruff format failed" in (result.error or "")
    assert mem.checkpoint("alice").user.identity.name == "A"
    rows = mem.store.checkpoints(mem.address("alice"))
    assert [r["status"] for r in rows] == ["published", "failed"] and rows[1]["error"]
    versions = subject_dir(mem.home, mem.address("alice")) / "versions"
    assert sorted(p.name for p in versions.iterdir()) == ["v000001"]


def test_round_trip_mismatch_is_caught(mem: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    mem.set("alice", "identity.name", "A", now=T0)
    real = ckpt_module.render

    def drifted(*args, **kwargs):
        files = real(*args, **kwargs)
        files["state.py"] = (
            files["state.py"].replace("name='A'", "name='B'").replace('name="A"', 'name="B"')
        )
        return files

    monkeypatch.setattr(ckpt_module, "render", drifted)
    (result,) = mem.compile("alice")
    assert result.status == "failed" and "round trip failed: generated identity differ" in (
        result.error or ""
    )
    with pytest.raises(NotFound, match="has no compiled checkpoint"):
        mem.checkpoint("alice")


def test_interrupted_compile_is_recovered(mem: Memory) -> None:
    mem.set("alice", "identity.name", "A", now=T0)
    versions = subject_dir(mem.home, mem.address("alice")) / "versions"
    leftover = versions / ".tmp-interrupted"
    leftover.mkdir(parents=True)
    (leftover / "state.py").write_text("user = (")  # half-written
    (result,) = mem.compile("alice")
    assert result.status == "published" and not leftover.exists()
    assert mem.checkpoint("alice").user.identity.name == "A"


def test_corrupted_checkpoint_is_detected_and_recompiled(mem: Memory) -> None:
    mem.set("alice", "identity.name", "A", now=T0)
    (result,) = mem.compile("alice")
    (result.directory / "state.py").write_text("user = 'tampered'\n")  # type: ignore[operator]
    with pytest.raises(WorkspaceError, match=r"is corrupted \(state.py does not match\)"):
        Memory.checkpoint(mem, "alice")
    mem.compile("alice")
    assert mem.checkpoint("alice").user.identity.name == "A"
    (subject_dir(mem.home, mem.address("alice")) / "current").write_text("../../../etc\n")
    with pytest.raises(WorkspaceError, match=r"pointer .* is corrupted"):
        mem.checkpoint("alice")


def test_a_file_tampered_after_a_load_is_refused_on_the_next_load(mem: Memory) -> None:
    # Loads of an unchanged checkpoint skip re-hashing its files (loader._stat_stamp); an
    # edit after the first load, even one keeping the size and mtime, must still be caught.
    import os

    mem.set("alice", "identity.name", "Alice", now=T0)
    (result,) = mem.compile("alice")
    first = mem.checkpoint("alice")
    assert mem.checkpoint("alice").package is first.package  # served without re-reading
    state = result.directory / "state.py"  # type: ignore[operator]
    before = state.stat()
    state.write_text(state.read_text().replace("Alice", "Malla"))  # same size
    os.utime(state, ns=(before.st_atime_ns, before.st_mtime_ns))
    with pytest.raises(WorkspaceError, match=r"is corrupted \(state.py does not match\)"):
        Memory.checkpoint(mem, "alice")


def test_a_tampered_file_is_never_carried_into_the_next_version(mem: Memory) -> None:
    # Unchanged parts are linked from the previous version: only if they are still intact.
    mem.set("alice", "identity.name", "A", now=T0)
    mem.import_records("alice", "trips", [{"country": "FR", "depart": "2025-03-05"}], now=T0)
    (first,) = mem.compile("alice")
    good = {n: (first.directory / n).read_text() for n in ("records_trips.json", "schema.py")}  # type: ignore[operator]
    for name in good:
        (first.directory / name).write_text(good[name].replace("FR", "XX") + "\n")  # type: ignore[operator]
    mem.set("alice", "identity.name", "B", now=T0)
    (second,) = mem.compile("alice")
    assert second.status == "published" and "trips" not in second.reused
    for name, text in good.items():
        assert (second.directory / name).read_text() == text  # type: ignore[operator]
    assert mem.checkpoint("alice").user.trips[0].country == "FR"


def test_the_warm_validator_survives_crashes_and_restarts(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from uac.compiler import validator

    mem.set("alice", "identity.name", "A", now=T0)
    with monkeypatch.context() as patch:
        append_to_state(patch, "\n__import__('os')._exit(3)\n")
        (res,) = mem.compile("alice")  # the forked child dies: the compile fails, clearly
    assert res.status == "failed" and "validator child died" in (res.error or "")
    validator._WARM.proc.kill()  # type: ignore[union-attr]  # the warm process itself dies
    (res,) = mem.compile("alice")
    assert res.status == "published", res.error
    assert validator.last_child_maxrss_kib()  # the child's peak RSS was reported


def test_subject_without_facts_and_bad_arguments(mem: Memory) -> None:
    with pytest.raises(NotFound, match=r'nobody has nothing to compile yet.*uac add user:nobody "'):
        mem.compile("nobody")
    with pytest.raises(InputError, match="exactly one"):
        mem.compile("alice", all=True)
    with pytest.raises(NotFound, match="has no compiled checkpoint"):
        mem.why("alice", "user.passport")


def test_coercion_failures_are_diagnostics_not_crashes(mem: Memory) -> None:
    batch = Batch(mem.address("alice"), T0, "test", inputs=[NewInput("import", "x", "import")])
    batch.facts = [
        NewFact("assert", "attribute", "identity.passport.expiry_date", "soon", input_index=0),
        NewFact(
            "assert",
            "record",
            "travel.trips",
            {"country": "FR", "depart": "2025-13-01"},
            record_key="k1",
            input_index=0,
        ),
        NewFact(
            "assert",
            "record",
            "travel.trips",
            {"country": "FR", "depart": "2025-01-01", "cost": "lots"},
            record_key="k2",
            input_index=0,
        ),
        NewFact("assert", "attribute", "identity.unknown", "x", input_index=0),
    ]
    mem.store.append(batch)
    (result,) = mem.compile("alice")
    assert result.status == "published"
    user = mem.checkpoint("alice").user
    assert user.passport.expiry_date is None
    assert [(t.key, t.cost) for t in user.trips] == [("k2", None)]
    kinds = sorted(d["kind"] for d in mem.checkpoint("alice").diagnostics["diagnostics"])
    assert kinds == ["coercion", "coercion", "coercion", "missing_required", "unknown_path"]


def test_time_travel_as_of_and_known_at(mem: Memory) -> None:
    mem.set(
        "alice",
        "identity.passport.expiry_date",
        "2020-01-01",
        now=at(0),
        valid_from=dt.date(2010, 1, 1),
        valid_to=dt.date(2020, 1, 1),
    )
    mem.set(
        "alice",
        "identity.passport.expiry_date",
        "2030-01-01",
        now=at(10),
        valid_from=dt.date(2020, 1, 1),
    )
    (now_result,) = mem.compile("alice")
    (past,) = mem.compile("alice", as_of=dt.date(2015, 6, 1))
    (known,) = mem.compile("alice", known_at=at(5))
    assert not past.current and not known.current
    assert mem.checkpoint("alice").user.passport.expiry_date == dt.date(2030, 1, 1)
    assert mem.checkpoint("alice", past.version).user.passport.expiry_date == dt.date(2020, 1, 1)
    assert mem.checkpoint("alice", known.version).user.passport.expiry_date == dt.date(2020, 1, 1)
    assert now_result.current


def test_why_explains_values_and_superseded_facts(mem: Memory) -> None:
    old = mem.set("alice", "identity.passport.expiry_date", "2027-01-01", now=at(0))
    new = mem.set("alice", "identity.passport.expiry_date", "2032-01-01", now=at(1))
    mem.import_records(
        "alice", "trips", [{"city": "Paris", "country": "FR", "depart": "2025-03-05"}], now=at(1)
    )
    mem.compile("alice")
    exp = mem.why("alice", "user.passport.expiry_date")
    assert (exp.value, [f.id for f in exp.facts], [f.id for f in exp.superseded]) == (
        dt.date(2032, 1, 1),
        [new.id],
        [old.id],
    )
    assert mem.why("alice", "trips[0]").expr == "user.trips['FR|Paris|2025-03-05']"
    assert mem.why("alice", "user.trips['FR|Paris|2025-03-05'].city").value == "Paris"
    for bad, error in (
        ("user.nope", NotFound),
        ("user.trips[5]", NotFound),
        ("user.trips.city", InputError),
        ("user.trips['x']", NotFound),
        ("user..x", InputError),
        ("__import__('os')", InputError),
    ):
        with pytest.raises(error):
            mem.why("alice", bad)


def test_path_traversal_through_names_is_impossible(mem: Memory) -> None:
    from uac.fact_log.addressing import Address

    with pytest.raises(WorkspaceError, match="unsafe path component"):
        subject_dir(mem.home, Address("default", "user", ".."))
    for bad in ("../x", "a/b", "..", "x\x00"):
        with pytest.raises(InputError):
            parse_subject(bad)


def test_compile_cli_progress_and_json_facts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from uac.runtime.cli import main

    home = str(tmp_path / "ws")
    main(["--home", home, "init"])
    for name in ("a", "b", "c"):
        main(["--home", home, "set", name, "identity.name", name.upper()])
    capsys.readouterr()
    assert main(["--home", home, "compile", "--all"]) == 0
    out, err = capsys.readouterr()
    assert "compiled 3 subject(s), 0 failed" in out and "[3/3] user:c: v2" in err  # v1: on write
    assert main(["--home", home, "facts", "a", "--json"]) == 0
    (fact,) = json.loads(capsys.readouterr().out)
    assert fact["derived"] == {"status": "active", "decision": "add", "support": 1}
    assert main(["--home", home, "compile"]) == 1
    assert "name a SUBJECT" in capsys.readouterr().err


def test_one_broken_subject_does_not_stop_a_batch(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a", "b", "c"):
        mem.set(name, "identity.name", name.upper(), now=T0)
    real = ckpt_module.render

    def broken_for_b(result, subject, tenant, **kwargs):
        files = real(result, subject, tenant, **kwargs)
        if subject == "user:b":
            files["state.py"] = files["state.py"].replace("name='B'", "name='X'")
        return files

    monkeypatch.setattr(ckpt_module, "render", broken_for_b)
    results = {str(r.address): r for r in mem.compile(all=True)}
    assert {k: r.status for k, r in results.items()} == {
        "user:a": "published",
        "user:b": "failed",
        "user:c": "published",
    }
    assert "round trip failed" in (results["user:b"].error or "")
    assert mem.checkpoint("c").user.identity.name == "C"


CLIMBS = """
[hobbies]
description = "Pastimes"

[hobbies.collections.climbs]
description = "Climbing sessions"
key = ["date", "gym"]
fields.date = {{ type = "date", required = true }}
fields.gym = {{ type = "str" }}
fields.grade = {{ {grade} }}
"""


def test_a_changed_catalog_refolds_records_in_the_same_process(home: Path) -> None:
    # The fold memo outlives a Memory in this process; a changed collection definition must
    # not reuse records folded under the old one.
    home.mkdir()
    write(home / "catalog.toml", CLIMBS.format(grade='type = "str"'))
    climb = {"date": "2025-01-04", "gym": "Arch", "grade": "6"}
    with Memory(home, create=True, react=False) as mem:
        mem.import_records("alice", "climbs", [climb], now=T0)
        mem.compile("alice")
        assert mem.checkpoint("alice").user.climbs[0].grade == "6"
    write(home / "catalog.toml", CLIMBS.format(grade='type = "int"'))
    with Memory(home, react=False) as mem:
        (res,) = mem.compile("alice")
        assert res.status == "published", res.error
        assert mem.checkpoint("alice").user.climbs[0].grade == 6


def test_cached_facts_are_dropped_when_the_log_is_not_the_one_read_before(home: Path) -> None:
    # Same path, same sequence numbers, different log (a restore): read it all again.
    import shutil

    for name in ("Ada", "Bea"):
        shutil.rmtree(home, ignore_errors=True)
        with Memory(home, create=True, react=False) as mem:
            mem.set("alice", "identity.name", name, now=T0)
            mem.compile("alice")
            assert mem.checkpoint("alice").user.identity.name == name


def test_only_the_last_loaded_version_of_a_subject_stays_imported(mem: Memory) -> None:
    import sys

    base = str(subject_dir(mem.home, mem.address("alice")).resolve())
    held = []
    for name in ("A", "B", "C"):
        mem.set("alice", "identity.name", name, now=T0)
        mem.compile("alice")
        held.append(mem.checkpoint("alice"))
    packages = [
        m
        for m, mod in list(sys.modules.items())
        if m.startswith("uac_checkpoint_") and "." not in m and base in str(mod.__file__)
    ]
    assert len(packages) == 1  # a long-lived process does not keep every version
    assert [c.user.identity.name for c in held] == ["A", "B", "C"]  # held objects still work


def test_the_compile_cache_is_bounded_by_facts(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from uac.compiler import cache

    cache.clear()
    monkeypatch.setattr(cache, "MAX_FACTS", 3)
    for name in ("a", "b"):
        for n in range(2):
            mem.set(name, "identity.name", f"{name}{n}", now=T0)
        mem.compile(name)
    kept = [addr.subject for _, addr in cache._SUBJECTS]
    assert kept == ["b"]  # 2 + 2 facts > 3: the least recently compiled subject went
    assert mem.checkpoint("a").user.identity.name == "a1"
    mem.compile("a")  # read again from the log, not from a stale cache
    assert mem.checkpoint("a").user.identity.name == "a1"


def test_diff_shows_a_change_of_the_states_maps(mem: Memory) -> None:
    # as_of and stale_after_days are maps by path, not records: diff compares them by path.
    mem.set("alice", "identity.name", "A", now=T0)
    mem.compile("alice")
    mem.set("alice", "places.location.city", "Lisbon", now=at(1))
    mem.compile("alice")
    old, new, lines = mem.diff("alice")
    assert (old, new) == (1, 2)
    assert '~ user.location.city: unset -> "Lisbon"' in lines
    assert any(line.startswith('~ user.as_of["user.location.city"]: unset -> 20') for line in lines)
