"""Session 11 (h18b): health, finance, purchases and vehicles read the way new writers say
them, each construct tested in words other than the tuning set's."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.candidates import D, found, of
from uac import Memory
from uac.fact_log.extraction.patterns import extract

pytestmark = pytest.mark.usefixtures("backend")  # the fold test opens a workspace

AT = dt.datetime(2025, 3, 10, 9)  # a Monday


# -- "no, since 3 March": a medication's start, corrected ------------------------------------


@pytest.mark.parametrize(
    ("earlier", "text", "start"),
    [
        ("I have been taking sertraline 50mg since 1 March.", "No, since 3 March.", D(2025, 3, 3)),
        ("I started metformin 500mg on 1 March.", "sorry, since the 4th", D(2025, 3, 4)),
        ("I'm on lansoprazole 30mg since 1 March.", "no, since Wednesday", D(2025, 3, 5)),
        ("Started ramipril 5mg on the 2nd.", "actually it was the 6th", D(2025, 3, 6)),
    ],
)
def test_a_correction_after_a_medication_moves_its_start(
    earlier: str, text: str, start: dt.date
) -> None:
    [med] = of("health.medications", found(text, earlier, at=AT))
    assert med["start_date"] == start
    # said in one message, the corrected start replaces the first
    [med] = of("health.medications", found(f"{earlier} {text}", at=AT))
    assert med["start_date"] == start


def test_a_correction_after_someone_elses_drug_corrects_nothing() -> None:
    assert found("No, since 3 March.", "My mum started warfarin 3mg on 1 March.", at=AT) == []
    assert found("My dad began taking metformin 500mg today.", at=AT) == []
    # a prescriber as the subject is still the user's start
    [med] = of("health.medications", found("My GP started me on metformin 500mg today.", at=AT))
    assert med["start_date"] == D(2025, 3, 10)


def test_a_correction_after_an_appointment_still_moves_the_appointment() -> None:
    earlier = ("I started sertraline 50mg on 1 March.", "Dentist on 20 March at 10am.")
    assert [p for p, _ in found("sorry, the 21st", *earlier, at=AT)] == ["schedule.events"]


# -- an ending that names its drug's start: the start, not the stop --------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I stopped taking the aspirin I started on 1 March",
        "Came off the aspirin that I began on 1 March.",
    ],
)
def test_a_start_day_in_an_ending_is_the_start(text: str) -> None:
    [med] = [c.value for c in extract(text, AT) if c.op == "end"]
    assert (med["start_date"], med["stop_date"]) == (D(2025, 3, 1), D(2025, 3, 10))


def test_an_ending_cannot_end_a_record_begun_after_it(mem: Memory) -> None:
    # Two aspirin records; the stop names the earlier one by its start day: the later
    # record (begun after that day) keeps running.
    day = dt.datetime(2025, 3, 1, 9)
    mem.add("maya", "I started aspirin 75mg on 1 March.", at=day, now=day, session_id="s1")
    later = dt.datetime(2025, 3, 3, 9)
    mem.add("maya", "I started aspirin 300mg today.", at=later, now=later, session_id="s2")
    end = dt.datetime(2025, 3, 10, 9)
    mem.add("maya", "I stopped the aspirin I started on 1 March.", at=end, now=end, session_id="s3")
    mem.compile("maya")
    meds = {m.dose: m for m in mem.checkpoint("maya").user.medications}
    assert meds["300mg"].stop_date is None
    assert meds["75mg"].stop_date == dt.date(2025, 3, 10)
    # a stop dated before a record began leaves that record running too
    mem.add("maya", "I stopped taking aspirin on 2 March.", at=end, now=end, session_id="s4")
    mem.compile("maya")
    meds = {m.dose: m for m in mem.checkpoint("maya").user.medications}
    assert meds["300mg"].stop_date is None
