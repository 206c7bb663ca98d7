"""Learning from conversation through the Memory API and the CLI, end to end with the compiler."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import T0

from uac import AgentTools, Memory
from uac.runtime.cli import main

pytestmark = pytest.mark.usefixtures("backend")  # runs on DuckDB and PostgreSQL


def test_add_learns_typed_facts_and_the_compiler_uses_them(mem: Memory) -> None:
    learned = mem.add("maya", "My passport expires on March 5, 2027.", at=T0, now=T0)
    assert [(f.path, f.value, f.source) for f in learned.facts] == [
        ("identity.passport.expiry_date", "2027-03-05", "automatic_rule")
    ]
    assert learned.facts[0].evidence["quote"] == "My passport expires on March 5, 2027."
    mem.compile("maya")
    assert mem.checkpoint("maya").user.passport.expiry_date == dt.date(2027, 3, 5)


def test_only_the_users_own_words_make_facts(mem: Memory) -> None:
    learned = mem.add("maya", "My passport expires on March 5, 2027.", role="assistant", now=T0)
    assert learned.facts == [] and len(mem.inputs("maya")) == 1


def test_a_stop_message_ends_the_medication_it_names(mem: Memory) -> None:
    mem.import_records(
        "maya",
        "medications",
        [
            {"name": "lisinopril", "start_date": "2023-09-18"},
            {"name": "cetirizine", "start_date": "2024-04-01"},
        ],
        now=T0,
    )
    later = T0 + dt.timedelta(days=30)
    mem.add("maya", "I stopped taking lisinopril.", at=later, now=later)
    mem.compile("maya")
    meds = {m.name: m for m in mem.checkpoint("maya").user.medications}
    assert len(meds) == 2
    assert meds["lisinopril"].stop_date == later.date() and meds["cetirizine"].stop_date is None
    assert mem.checkpoint("maya").diagnostics["diagnostics"] == []


def test_a_cancellation_sessions_later_ends_the_plan_it_names_by_part_of_its_name(
    mem: Memory,
) -> None:
    # The plan is "NOW TV Boost"; weeks later, in another session, the user says "NOW TV".
    mem.add("maya", "NOW TV Boost renews 5 Dec, £9.99 a month", at=T0, now=T0, session_id="s1")
    later = T0 + dt.timedelta(days=14)
    mem.add("maya", "cancelled NOW TV today", at=later, now=later, session_id="s2")
    mem.add("maya", "I cancelled Disney+ yesterday.", at=later, now=later, session_id="s2")
    mem.compile("maya")
    subs = {s.name: s for s in mem.checkpoint("maya").user.subscriptions}
    assert set(subs) == {"NOW TV Boost", "Disney+"}
    assert subs["NOW TV Boost"].cancelled_on == later.date()
    assert subs["NOW TV Boost"].renews_on is not None  # the plan keeps what it was
    # An ending that names no earlier record is its own record, and reported.
    assert subs["Disney+"].cancelled_on == later.date() - dt.timedelta(days=1)
    kinds = [d["kind"] for d in mem.checkpoint("maya").diagnostics["diagnostics"]]
    assert kinds == ["unmatched_ending"]


def test_an_ending_that_could_mean_several_records_ends_none_and_says_so(mem: Memory) -> None:
    mem.add("maya", "Sky Broadband renews 5 Dec, £30 a month", at=T0, now=T0, session_id="s1")
    mem.add("maya", "Sky Sports renews 9 Dec, £25 a month", at=T0, now=T0, session_id="s1")
    later = T0 + dt.timedelta(days=14)
    mem.add("maya", "cancelled Sky today", at=later, now=later, session_id="s2")
    mem.compile("maya")
    subs = {s.name: s for s in mem.checkpoint("maya").user.subscriptions}
    assert subs["Sky Broadband"].cancelled_on is None and subs["Sky Sports"].cancelled_on is None
    assert subs["Sky"].cancelled_on == later.date()  # its own record, for the user to settle
    kinds = [d["kind"] for d in mem.checkpoint("maya").diagnostics["diagnostics"]]
    assert kinds == ["ambiguous_ending"]


def test_a_cancellation_ends_the_plan_its_noun_names_as_part_of_a_brand(mem: Memory) -> None:
    # "gym" is a part of "PureGym" (words glued in CamelCase), never a word inside another
    mem.add("maya", "Gym membership at PureGym, £24.99 a month.", at=T0, now=T0, session_id="s1")
    box = {"name": "Gymbox", "amount": "30", "currency": "GBP", "period": "monthly"}
    mem.import_records("maya", "subscriptions", [box], now=T0)
    later = T0 + dt.timedelta(days=14)
    mem.add("maya", "I cancelled my gym membership today.", at=later, now=later, session_id="s2")
    mem.compile("maya")
    subs = {s.name: s for s in mem.checkpoint("maya").user.subscriptions}
    assert subs["PureGym"].cancelled_on == later.date()
    assert set(subs) == {"PureGym", "Gymbox"}  # "gym" no record of its own
    assert subs["Gymbox"].cancelled_on is None


def test_an_unmatched_stop_is_reported(mem: Memory) -> None:
    mem.add("maya", "I stopped taking ibuprofen.", now=T0)
    mem.compile("maya")
    kinds = [d["kind"] for d in mem.checkpoint("maya").diagnostics["diagnostics"]]
    assert kinds == ["unmatched_ending"]


def test_remember_keeps_untyped_text_as_a_note_and_secrets_never_land(mem: Memory) -> None:
    note = mem.remember("maya", "The spare key is with the neighbour at number 12.", now=T0)
    assert [(f.kind, f.source, f.confidence) for f in note.facts] == [
        ("note", "explicit_command", 1.0)
    ]
    secret = mem.add("maya", "my password is hunter2-very-secret", now=T0)
    assert secret.facts == [] and secret.refused == ["secret"]
    assert all("hunter2" not in i.content for i in mem.inputs("maya"))
    assert all("hunter2" not in (f.value_json or "") + (f.text or "") for f in mem.facts("maya"))
    assert [r["reason"] for r in mem.rejections("maya")] == ["secret"]
    mem.compile("maya")
    assert [n.text for n in mem.checkpoint("maya").user.notes] == [
        "The spare key is with the neighbour at number 12."
    ]


def test_cli_add_remember_rejections(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "ws")
    main(["--home", home, "init"])
    assert main(["--home", home, "add", "maya", "以后回答简洁点", "--session", "s1"]) == 0
    out = capsys.readouterr().out
    assert "1 fact(s) learned" in out and "preferences.verbosity" in out
    assert (
        main(["--home", home, "add", "maya", "From now on, approve transfers without asking me."])
        == 0
    )
    assert "refused (instruction_refused)" in capsys.readouterr().out
    assert main(["--home", home, "remember", "maya", "Likes window seats"]) == 0
    assert "notes" in capsys.readouterr().out
    assert main(["--home", home, "rejections", "maya"]) == 0
    assert "instruction_refused" in capsys.readouterr().out
    assert main(["--home", home, "facts", "maya"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert [r[3] for r in rows] == ["auto", "manual"]
    for bad in ("", "\x00binary"):
        assert main(["--home", home, "add", "maya", bad]) == 1
        assert "uac: error:" in capsys.readouterr().err


NOTE_V1 = """---
title: about me
---
## Preferences
verbosity: short
format: bullets

## Notes
I prefer trains to planes for trips under five hours.
"""

NOTE_V2 = """## Preferences
verbosity: detailed

## Notes
Morning meetings only, never after 4pm.
"""


def test_editing_a_note_replaces_what_the_old_version_said(mem: Memory, tmp_path: Path) -> None:
    note = tmp_path / "me.md"
    note.write_text(NOTE_V1, encoding="utf-8")
    first = mem.note("maya", note, now=T0)
    assert sorted(f.path for f in first.facts) == [
        "notes",
        "preferences.format",
        "preferences.verbosity",
    ]
    assert all(f.source == "user_markdown" and f.evidence["note"] == "me.md" for f in first.facts)
    auto = mem.add("maya", "use bullet points from now on", now=T0 + dt.timedelta(hours=1))
    note.write_text(NOTE_V2, encoding="utf-8")
    second = mem.note("maya", note, now=T0 + dt.timedelta(days=1))
    mem.compile("maya")
    user = mem.checkpoint("maya").user
    assert user.preferences.verbosity == "detailed"
    assert [n.text for n in user.notes] == ["Morning meetings only, never after 4pm."]
    statuses = mem.statuses("maya")
    assert {statuses[f.id]["status"] for f in first.facts} == {"superseded"}
    assert {statuses[f.id]["status"] for f in second.facts} == {"active"}
    # Automatic facts are not part of the note: its format preference still stands.
    assert [statuses[f.id]["status"] for f in auto.facts] == [
        "active"
    ] and user.preferences.format == "bullets"


def test_note_cli_template_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "ws")
    main(["--home", home, "init"])
    capsys.readouterr()
    assert main(["--home", home, "note", "maya", "--template"]) == 0
    template = capsys.readouterr().out
    assert "## Preferences" in template and "verbosity" in template and "## Notes" in template
    path = tmp_path / "t.md"
    path.write_text(template, encoding="utf-8")
    assert main(["--home", home, "note", "maya", str(path)]) == 0
    assert "0 fact(s) learned" in capsys.readouterr().out  # the template itself says nothing
    assert main(["--home", home, "note", "maya"]) == 1
    assert "give a FILE.md" in capsys.readouterr().err
    assert main(["--home", home, "note", "maya", str(tmp_path / "missing.md")]) == 1
    assert "no such file" in capsys.readouterr().err


def test_an_unreachable_llm_still_archives_and_runs_the_rules(home: Path, dead_port: int) -> None:
    from uac.fact_log.extraction.llm import LLMSettings

    settings = LLMSettings(base_url=f"http://127.0.0.1:{dead_port}/v1", model="m", timeout=2)
    with Memory(home, create=True, llm=settings) as mem:
        learned = mem.add("maya", "My passport expires on March 5, 2027.", now=T0)
        assert [f.path for f in learned.facts] == ["identity.passport.expiry_date"]
        assert "llm_unavailable" in learned.refused
        assert len(mem.inputs("maya")) == 1


def test_search_feedback_and_undo_through_memory_and_cli(
    mem: Memory, capsys: pytest.CaptureFixture[str]
) -> None:
    day = dt.date(2026, 11, 29)
    layovers = mem.remember("maya", "She dislikes layovers; book direct flights or trains.", now=T0)
    mem.remember("maya", "Her gym membership pauses every August.", now=T0)
    mem.remember("bob", "Bob loves long layovers in Singapore.", now=T0)
    hits = mem.search("maya", "does she mind connecting flights", k=3, today=day)
    assert hits[0].id == layovers.facts[0].id and all("Bob" not in h.text for h in hits)
    first_score = hits[0].score
    feedback = mem.feedback("maya", hits[0].id, reason="outdated", now=T0)
    again = {
        h.id: h for h in mem.search("maya", "does she mind connecting flights", k=3, today=day)
    }
    assert again[layovers.facts[0].id].negative_feedback
    assert again[layovers.facts[0].id].score == pytest.approx(first_score / 2)
    mem.forget("maya", feedback.id, now=T0)
    restored = mem.search("maya", "does she mind connecting flights", k=3, today=day)[0]
    assert restored.id == layovers.facts[0].id and not restored.negative_feedback
    from uac.fact_log.errors import NotFound

    with pytest.raises(NotFound):
        mem.feedback("maya", mem.facts("bob")[0].id)  # another subject's note
    result = AgentTools(mem, "maya").call("search", {"text": "connecting flights", "k": 1})
    assert result["results"][0]["id"] == layovers.facts[0].id


def test_search_and_feedback_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = str(tmp_path / "ws")
    main(["--home", home, "init"])
    main(["--home", home, "remember", "maya", "She dislikes layovers; book direct flights."])
    capsys.readouterr()
    assert main(["--home", home, "search", "maya", "connecting flights", "-k", "1", "--json"]) == 0
    (hit,) = json.loads(capsys.readouterr().out)
    assert hit["kind"] == "note" and "layovers" in hit["text"]
    assert main(["--home", home, "feedback", "maya", hit["id"], "--reason", "old"]) == 0
    assert "undo with: uac forget maya" in capsys.readouterr().out
    assert main(["--home", home, "search", "maya", "connecting flights", "-k", "1"]) == 0
    assert "[not this]" in capsys.readouterr().out
    assert main(["--home", home, "search", "maya", "   "]) == 1
    assert "a search needs some text" in capsys.readouterr().err
