"""The frames engine: thresholds measured per frame and stored as data, windows that say no
cue, several frames on one window, one encoding per message, one answer where rules and
frames read the same sentence, and the guards of clauses that state no fact."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction import encoder, frames
from uac.fact_log.extraction.candidate import Candidate

AT = dt.datetime(2026, 12, 6, 10, 0)
TODAY = AT.date()
needs_encoder = pytest.mark.skipif(not encoder.available(), reason="encoder not installed")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load()


def frame(name: str) -> frames.Frame:
    return next(f for f in frames.load_frames() if f.name == name)


def vote(f: frames.Frame, score: float, *, cued: bool = True, against: float = 0.2) -> frames.Vote:
    return frames.Vote(f, score, against, cued, True, score, against)


def test_the_calibration_names_only_frames_and_known_keys() -> None:
    table = frames.load_calibration(frames.CALIBRATION_FILE)
    names = {f.name for f in frames.load_frames()}
    assert table and set(table) <= names
    for spec in table.values():
        assert set(spec) <= {"threshold", "uncued", "margin", "emit"}
        assert spec["emit"] is False or 0.0 < spec["threshold"] < 1.0


def test_a_calibrated_frame_takes_the_measured_values_and_others_keep_their_own() -> None:
    base = dataclasses.replace(frame("passport_expiry"), threshold=0.45, uncued=0.6, emit=False)
    got = frames.calibrated(base, {"passport_expiry": {"threshold": 0.7, "emit": True}})
    assert (got.threshold, got.uncued, got.emit) == (0.7, None, True)  # no uncued: never
    assert frames.calibrated(base, {"visa": {"threshold": 0.9}}) is base


def test_an_evaluation_calibration_applies_inside_its_block_only() -> None:
    shipped = {f.name: f.threshold for f in frames.active_frames()}
    with frames.using_calibration({"visa": {"threshold": 0.99, "emit": False}}):
        visa = next(f for f in frames.active_frames() if f.name == "visa")
        assert (visa.threshold, visa.emit) == (0.99, False)
    assert {f.name: f.threshold for f in frames.active_frames()} == shipped


def test_a_window_without_a_cue_needs_the_higher_uncued_threshold() -> None:
    f = dataclasses.replace(frame("trip"), threshold=0.5, uncued=None, margin=0.0)
    assert vote(f, 0.6).chosen
    assert not vote(f, 0.9, cued=False).chosen  # uncued: never, when no threshold is measured
    open_ = dataclasses.replace(f, uncued=0.7)
    assert not vote(open_, 0.6, cued=False).chosen
    assert vote(open_, 0.75, cued=False).chosen


def test_a_frame_must_beat_none_and_other_by_its_margin() -> None:
    f = dataclasses.replace(frame("allergy"), threshold=0.5, margin=0.08)
    assert vote(f, 0.7, against=0.6).chosen
    assert not vote(f, 0.66, against=0.6).chosen


@needs_encoder
def test_frames_scoring_close_on_one_sentence_both_emit(catalog: Catalog) -> None:
    text = "My passport expires on 5 May 2030 and I'm allergic to penicillin."
    [win] = frames.windows(text)
    passport = dataclasses.replace(frame("passport_expiry"), emit=True)
    allergy = dataclasses.replace(frame("allergy"), emit=True)
    close = [vote(passport, 0.70), vote(allergy, 0.68)]
    got = frames._filled(close, win, text, TODAY, catalog, set(), set())
    assert [c.path for c in got] == ["identity.passport.expiry_date", "health.allergies"]
    far = [vote(passport, 0.70), vote(allergy, 0.50)]
    got = frames._filled(far, win, text, TODAY, catalog, set(), set())
    assert [c.path for c in got] == ["identity.passport.expiry_date"]


@needs_encoder
def test_a_message_is_encoded_once_however_many_frames_and_views_it_needs(
    catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []
    real = encoder.encode_each  # the frames encode each window on its own

    def counting(texts: list[str]):
        calls.append(list(texts))
        return real(texts)

    monkeypatch.setattr(encoder, "encode_each", counting)
    history = [("I got my ESTA approved this morning.", AT)]
    found = frames.extract("It's valid until June 1, 2028.", AT, catalog, history)
    assert [c.path for c in found] == ["identity.visas"]
    # the context view, then the sentence alone (a frame is chosen on the context): each once
    assert len(calls) == 2
    every = [t for batch in calls for t in batch]
    assert len(every) == len(set(every)) == 2


def _candidate(path: str, start: int, value: object) -> Candidate:
    kind = "attribute" if "." in path and path.count(".") == 2 else "record"
    return Candidate(kind, path, value, "assert", "x", start, 0.8)


def test_a_rule_and_a_frame_on_the_same_sentence_give_one_answer(catalog: Catalog) -> None:
    text = "We fly to Rome on 3 March. Then Lisbon on 9 March."
    spans = frames.windows(text)
    second = spans[1].start
    rule = _candidate("travel.trips", 0, {"city": "Rome"})
    same = _candidate("travel.trips", 3, {"city": "Rome", "depart": "2027-03-03"})
    other = _candidate("travel.trips", second, {"city": "Lisbon"})
    assert frames.merge([rule], [same, other], spans, catalog) == [other]
    assert frames.merge([], [same, other], spans, catalog) == [same, other]


def test_a_single_valued_path_the_rules_filled_keeps_the_rules_value(catalog: Catalog) -> None:
    text = "My passport expires on 3 May 2031. The new one is valid until 2036."
    spans = frames.windows(text)
    rule = _candidate("identity.passport.expiry_date", 0, "2031-05-03")
    frame_says = _candidate("identity.passport.expiry_date", spans[1].start, "2036-01-01")
    assert frames.merge([rule], [frame_says], spans, catalog) == []


@pytest.mark.parametrize(
    ("text", "corrects"),
    [
        ("Actually, make that the 19th.", True),
        ("The physio moved to Friday at 3.", True),
        ("wait, started yesterday actually", True),
        ("it was the 12th, now it's the 14th", True),
        ("I started sertraline yesterday.", False),
        ("The physio is on Friday at 3.", False),
    ],
)
def test_a_correction_is_told_from_a_new_statement(text: str, corrects: bool) -> None:
    assert frames.corrects(text) is corrects


@pytest.mark.parametrize(
    ("text", "states"),
    [
        ("and what about the tetanus jab, is that needed there", False),
        ("so when does the licence run out", False),
        ("is it safe to fly with this cast", False),
        ("also need the tetanus jab?", False),
        ("my passport expires in May??", False),
        ("And I had the tetanus jab in March.", True),
    ],
)
def test_a_question_after_a_conjunction_states_nothing(text: str, states: bool) -> None:
    assert frames.stated_not(text) is not states


@needs_encoder
@pytest.mark.parametrize(
    "text",
    [
        "I'll ask the pharmacist about naproxen tomorrow.",
        "We're going to start him on cetirizine.",
        "Wait, I started the naproxen on Monday actually.",
        "and what about the rabies jab, is that needed there",
    ],
)
def test_the_future_a_question_or_a_correction_is_no_frame_fact(
    catalog: Catalog, text: str
) -> None:
    assert frames.extract(text, AT, catalog) == []


@needs_encoder
def test_a_sentence_cued_only_by_the_one_before_must_be_about_the_frame_itself(
    catalog: Catalog,
) -> None:
    history = [("My driving licence is in the car.", AT)]
    said = "We land in Reykjavik on the 12th of December."
    paths = [c.path for c in frames.extract(said, AT, catalog, history)]
    assert "identity.driver_licence.expiry_date" not in paths  # a trip, maybe; no expiry
    alone = [
        c.path for c in frames.extract("My licence runs out on the 12th of December.", AT, catalog)
    ]
    assert alone == ["identity.driver_licence.expiry_date"]  # the test can fail


@needs_encoder
def test_a_jab_had_is_a_vaccination_and_one_to_come_is_not(catalog: Catalog) -> None:
    had = frames.extract("Had my hepatitis A vaccine at the clinic on 2 December.", AT, catalog)
    assert [(c.path, c.value.get("date")) for c in had] == [("health.vaccinations", "2026-12-02")]
    for text in (
        "My second hepatitis A vaccine is in two weeks.",
        "The second hepatitis A vaccine at the clinic is on 20 December 2026.",
    ):
        assert frames.extract(text, AT, catalog) == []


def test_each_tuning_set_has_thresholds_measured_without_it_and_no_blind_set_is_read() -> None:
    import json
    import runpy
    from pathlib import Path

    bench = Path(__file__).resolve().parents[1] / "bench"
    folds = json.loads((bench / "frame_folds.json").read_text())
    tuning = set(runpy.run_path(str(bench / "tuning_sets.py"))["TUNING_SETS"])
    assert tuning == {"dev", "heldout", "fresh"} | {
        f"blind{n}" for n in (2, 3, 4, 5, 6, 9, 10, 11, 12, 16, 17)
    }
    assert set(folds) == tuning
    sources = {src for _, _, src in frames._sourced_examples()}
    assert sources == tuning | {"frames"}  # the examples come from the tuning sets only
    shipped = set(frames.load_calibration(frames.CALIBRATION_FILE))
    assert all(set(fold) == shipped for fold in folds.values())
