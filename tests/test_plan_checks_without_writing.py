"""`preview`: a proposed write's alerts and typed state, with nothing written (both backends).

The proofs: the log head, a digest of every table's rows (the workspace file and, on
PostgreSQL, the shared log) and the workspace's file list are the same after many previews
of every form; the same proposal gives the same bytes; a preview before a write names the
alerts the write then raises; group facts count for a member and for no one else.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from uac import Memory
from uac.compiler import cache
from uac.fact_log.errors import InputError
from uac.runtime.api import verbs
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL

NOW = dt.datetime(2026, 5, 1, 9, 0)
TRIP = {
    "city": "Tokyo",
    "country": "JP",
    "depart": "2026-05-28",
    "return_date": "2026-06-12",
    "transport": "plane",
}
FLIGHT = "I'm flying from Lisbon to Tokyo on 28 May, back on 12 June."


def _digest(rows: list[tuple[Any, ...]]) -> str:
    return hashlib.sha256("\n".join(sorted(map(repr, rows))).encode()).hexdigest()


def _snapshot(mem: Memory, backend: str) -> dict[str, Any]:
    """Log head, every table's row digest (file and shared log), the workspace's files."""
    con = mem.store.con
    tables = [
        r[0]
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()"
            " ORDER BY table_name"
        ).fetchall()
    ]
    out: dict[str, Any] = {
        "head": con.execute("SELECT seq, hash FROM facts ORDER BY seq DESC LIMIT 1").fetchone(),
        "tables": {t: _digest(con.execute(f'SELECT * FROM "{t}"').fetchall()) for t in tables},
        "files": sorted(
            (str(p.relative_to(mem.home)), p.stat().st_size)
            for p in mem.home.rglob("*")
            if p.is_file()
        ),
    }
    if backend == "postgres":
        import psycopg

        with psycopg.connect(os.environ["UAC_DB"]) as conn:
            names = [
                r[0]
                for r in conn.execute(
                    "SELECT table_name FROM information_schema.tables"
                    " WHERE table_schema = current_schema() ORDER BY table_name"
                ).fetchall()
            ]
            out["shared"] = {
                t: _digest(conn.execute(f'SELECT * FROM "{t}"').fetchall())  # type: ignore[arg-type]
                for t in names
            }
            out["shared_head"] = conn.execute(
                "SELECT seq, hash FROM facts ORDER BY seq DESC LIMIT 1"
            ).fetchone()
    assert out["tables"]["facts"] and out["head"] is not None
    return out


def _setup(mem: Memory) -> None:
    """Alice: a passport expiring soon, a penicillin allergy, a trip, open alerts."""
    mem.set("alice", "identity.passport.expiry_date", "2026-06-01", now=NOW)
    mem.import_records("alice", "health.allergies", [{"substance": "penicillin"}], now=NOW)
    mem.import_records(
        "alice", "travel.trips", [{**TRIP, "city": "Paris", "country": "FR"}], now=NOW
    )
    mem.add("alice", "I'm meeting Dana for lunch next Friday.", now=NOW)
    assert mem.alerts("alice")  # the passport is already flagged


def _previews(mem: Memory) -> list[dict[str, Any]]:
    """Many previews of every form: typed, record, message, batch, other days and subjects."""
    out = [
        mem.preview("alice", facts=[{"path": "travel.trips", "record": TRIP}], now=NOW),
        mem.preview("alice", FLIGHT, now=NOW, session_id="s1"),
        mem.preview("alice", "I started taking amoxicillin.", now=NOW),
        # A refusal the write would record (and the message it would archive masked).
        mem.preview("alice", "My bank password is Tr0ub4dor&3xyz, and I moved to Porto.", now=NOW),
        mem.preview(
            "alice",
            FLIGHT,
            facts=[
                {"path": "identity.passport.expiry_date", "value": "2036-01-01"},
                {"path": "identity.nationality", "value": "PT"},
                {"path": "health.medications", "record": {"name": "amoxicillin"}},
            ],
            now=NOW,
        ),
        mem.preview("alice", facts=[{"path": "identity.nationality", "value": "PT"}], at=NOW),
        mem.preview("alice", FLIGHT, today=dt.date(2027, 1, 1), now=NOW),
        mem.preview("bob", FLIGHT, now=NOW),  # never written: nothing to read, nothing made
        mem.preview("alice", facts=[{"path": "gadgets", "record": {"name": "kettle"}}], now=NOW),
    ]
    out.append(verbs.run(mem, "preview", "alice", {"text": FLIGHT, "now": NOW.isoformat()}))
    return [p if isinstance(p, dict) else p.as_dict() for p in out]


def test_previews_write_nothing(tmp_path: Path, backend: str) -> None:
    home = tmp_path / "ws"
    with Memory(home, create=True) as mem:
        _setup(mem)
        # (Listing alerts on PostgreSQL refreshes this node's copy of them: done before.)
        alerts = [a.as_dict() for a in mem.alerts("alice", include_resolved=True)]
        before = _snapshot(mem, backend)
        results = _previews(mem)
        assert _snapshot(mem, backend) == before
        assert [a.as_dict() for a in mem.alerts("alice", include_resolved=True)] == alerts
        assert mem.facts("bob") == [] and not mem.stale("alice")
        # Each preview found something to say (so the test could have caught a write).
        first = results[0]
        assert "passport_validity_for_trip" in [a["check"] for a in first["raised"]]
        assert all(not r["written"] for r in results)
        assert [f["path"] for f in results[4]["facts"]][-3:] == [
            "identity.passport.expiry_date",
            "identity.nationality",
            "health.medications",
        ]
        assert any(s["expr"].startswith("user.gadgets[") for s in results[-2]["state"])
        assert results[3]["refused"] == ["secret"]
        # And the write itself still does what the preview said.
        imported = mem.import_records("alice", "travel.trips", [TRIP], now=NOW)
        raised = [a.check for a in imported.alerts]
        assert sorted(raised) == sorted(a["check"] for a in first["raised"])


def test_a_read_only_open_previews(tmp_path: Path, backend: str, capsys) -> None:
    home = tmp_path / "ws"
    with Memory(home, create=True) as mem:
        _setup(mem)
    with Memory(home) as mem:  # closed once: the file's write-ahead log is checkpointed
        before = _snapshot(mem, backend)
    code = main(["--home", str(home), "preview", "alice", FLIGHT, "--at", "2026-05-01", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["written"] is False
    assert "passport_validity_for_trip" in [a["check"] for a in out["raised"]]
    code = main(
        [
            "--home",
            str(home),
            "preview",
            "alice",
            "--set",
            "identity.nationality",
            "PT",
            "--record",
            "travel.trips",
            json.dumps(TRIP),
            "--today",
            "2026-05-01",
        ]
    )
    text = capsys.readouterr().out
    assert code == 0 and "nothing was written" in text and "would record: user.trips[" in text
    with Memory(home, read_only=True) as reader:
        assert reader.preview("alice", FLIGHT, now=NOW).raised
    with Memory(home) as mem:
        assert _snapshot(mem, backend) == before


def test_the_same_proposal_gives_the_same_bytes(tmp_path: Path) -> None:
    home = tmp_path / "ws"

    def dumped(mem: Memory) -> list[str]:
        return [json.dumps(p, sort_keys=True, ensure_ascii=False) for p in _previews(mem)]

    with Memory(home, create=True) as mem:
        _setup(mem)
        first = dumped(mem)
        assert dumped(mem) == first
        cache.clear()  # nothing carried from the previews before: every module built again
        assert dumped(mem) == first
    with Memory(home) as mem:  # a new open
        assert dumped(mem) == first
        at = NOW.isoformat()
        here = verbs.run(mem, "preview", "alice", {"text": FLIGHT, "at": at})
    # A process that never compiled nor imported alice's checkpoint builds every module.
    cli = [sys.executable, "-m", "uac.runtime.cli", "--home", str(home), "--json"]
    done = subprocess.run(
        [*cli, "preview", "alice", FLIGHT, "--at", at],
        capture_output=True,
        text=True,
        timeout=240,
        env={k: v for k, v in os.environ.items() if k not in ("UAC_URL", "UAC_API_KEY")},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == json.dumps(here, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def _raised(written: Any) -> list[str]:
    """The alerts a write's result says its reaction raised (new or woken)."""
    return sorted(a.id for a in written.alerts)


def _ids(preview: Any) -> list[str]:
    return sorted(a.id for a in preview.raised)


@pytest.mark.parametrize("form", ["record", "message"])
def test_a_preview_names_the_alerts_the_write_then_raises(tmp_path: Path, form: str) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        mem.set("alice", "identity.passport.expiry_date", "2026-06-01", now=NOW)
        mem.import_records("alice", "health.allergies", [{"substance": "penicillin"}], now=NOW)
        later = NOW + dt.timedelta(hours=1)
        # A passport expiring before the trip's return.
        if form == "record":
            seen = mem.preview("alice", facts=[{"path": "travel.trips", "record": TRIP}], now=later)
            written: Any = mem.import_records("alice", "travel.trips", [TRIP], now=later)
        else:
            seen = mem.preview("alice", FLIGHT, now=later)
            written = mem.add("alice", FLIGHT, now=later)
        assert "passport_validity_for_trip" in [a.check for a in seen.raised]
        assert _ids(seen) == _raised(written)
        # A new drug against a recorded allergy.
        later += dt.timedelta(hours=1)
        drug = "I started taking amoxicillin."
        seen = mem.preview("alice", drug, now=later)
        assert [a.check for a in seen.raised] == ["drug_allergy"]
        assert _ids(seen) == _raised(mem.add("alice", drug, now=later))
        # A renewed passport clears what the trip raised: the preview says which.
        later += dt.timedelta(hours=1)
        renew = [{"path": "identity.passport.expiry_date", "value": "2036-01-01"}]
        seen = mem.preview("alice", facts=renew, now=later)
        cleared = sorted(a.id for a in seen.cleared)
        assert "passport_validity_for_trip" in [a.check for a in seen.cleared]
        written = mem.set("alice", "identity.passport.expiry_date", "2036-01-01", now=later)
        assert cleared == sorted(a.id for a in written.alerts_resolved)


def test_a_control_stays_quiet_before_and_after(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        mem.set("alice", "identity.passport.expiry_date", "2036-01-01", now=NOW)
        mem.set("alice", "identity.nationality", "PT", now=NOW)
        mem.import_records("alice", "health.allergies", [{"substance": "penicillin"}], now=NOW)
        later = NOW + dt.timedelta(hours=1)
        for text in (FLIGHT, "I started taking ibuprofen.", "I like green tea."):
            seen = mem.preview("alice", text, now=later)
            assert seen.raised == [] and seen.cleared == [], text
            assert _raised(mem.add("alice", text, now=later)) == [], text
            later += dt.timedelta(hours=1)


def test_group_facts_count_for_members_only(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        for user in ("alice", "bob"):
            mem.set(user, "identity.passport.expiry_date", "2026-06-01", now=NOW)
        mem.member_add("group:family", "alice", valid_from=NOW - dt.timedelta(days=1), now=NOW)
        mem.import_records("group:family", "travel.trips", [TRIP], now=NOW)
        later = NOW + dt.timedelta(hours=1)
        proposal = [{"path": "identity.passport.expiry_date", "value": "2026-06-05"}]
        member = mem.preview("alice", facts=proposal, now=later)
        outsider = mem.preview("bob", facts=proposal, now=later)
        # The family trip is alice's too (inherited), never bob's.
        trip = [a for a in member.still_open + member.raised if a.check.startswith("passport_val")]
        assert trip and "JP|Tokyo|2026-05-28" in trip[0].record_keys
        assert not any("Tokyo" in json.dumps(p.as_dict()) for p in [outsider])
        assert all(a.address.subject == "alice" for a in member.raised + member.still_open)
        written = mem.set("alice", "identity.passport.expiry_date", "2026-06-05", now=later)
        assert _ids(member) == _raised(written)


def test_a_preview_refuses_what_the_write_refuses(tmp_path: Path) -> None:
    with Memory(tmp_path / "ws", create=True) as mem:
        mem.set("alice", "identity.nationality", "PT", now=NOW)
        with pytest.raises(InputError, match="nothing to preview"):
            mem.preview("alice", now=NOW)
        with pytest.raises(InputError, match="nationality"):
            mem.preview("alice", facts=[{"path": "identity.nationality", "value": "x"}], now=NOW)
        with pytest.raises(InputError, match="may not be written to group:family"):
            mem.preview(
                "group:family",
                facts=[{"path": "identity.passport.expiry_date", "value": "2030-01-01"}],
                now=NOW,
            )
        with pytest.raises(InputError, match="country"):
            mem.preview("alice", facts=[{"path": "travel.trips", "record": {"city": "X"}}])
        with pytest.raises(InputError, match="unknown field 'colour'"):
            mem.preview("alice", facts=[{"path": "identity.nationality", "colour": 1}])
