"""The learned judge of the automatic extractors' candidates (fact_log/extraction/judge.py).

Real parts: the shipped encoder and frames, the real pipeline, weights files written to a
temp dir and named by UAC_JUDGE_WEIGHTS (the judge is opt-in: UAC_JUDGE=1).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import numpy as np
import pytest

from uac.fact_log.addressing import Address
from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction import encoder, judge
from uac.fact_log.extraction.candidate import Candidate
from uac.fact_log.extraction.patterns import extract
from uac.fact_log.pipeline import build_message_batch

pytestmark = pytest.mark.skipif(not encoder.available(), reason="the encoder is not installed")

AT = dt.datetime(2026, 3, 1, 9, 0)
ADDRESS = Address("default", "user", "judge")
PASSPORT = "My passport expires on March 5, 2031."
MESSAGES = (
    PASSPORT,
    "I'm allergic to penicillin, I get hives.",
    "Started metformin 500 mg twice daily last Monday.",
    "Dentist on Thursday 12 March at 3pm.",
    "I fly to Lisbon on 20 April and come back on 27 April.",
    "Paid £42.50 at Tesco today.",
    "My sister's passport expires on 1 June 2030.",
    "Netflix is £10.99 a month.",
)


def _paths(catalog: Catalog) -> tuple[str, ...]:
    return tuple(sorted([*catalog.attributes, *catalog.collections]))


def _rows(catalog: Catalog) -> tuple[np.ndarray, np.ndarray]:
    """Feature rows of the rules' real candidates of MESSAGES, labelled in turn."""
    xs = []
    for text in MESSAGES:
        found = extract(text, AT, "user", catalog, [])
        if found:
            x, _ = judge.features(catalog, text, found, [], AT, _paths(catalog))
            xs.append(x)
    x = np.vstack(xs)
    return x, np.arange(len(x)) % 2


def _weights_file(tmp_path: Path, threshold: float) -> Path:
    """The shipped weights with another threshold, written to a temp file."""
    shipped = judge.load()
    assert shipped is not None
    out = tmp_path / f"judge-{threshold}.npz"
    dataclasses.replace(shipped, threshold=threshold).save(out)
    return out


def _learned(text: str, source: str = "automatic_rule"):
    batch = build_message_batch(
        Catalog.load(), ADDRESS, text, observed_at=AT, recorded_at=AT, source=source
    )
    return [f.path for f in batch.facts if f.kind != "note"], batch.hints


def test_training_twice_gives_the_same_weights_and_predictions(tmp_path: Path) -> None:
    catalog = Catalog.load()
    x, y = _rows(catalog)
    assert len(x) >= 6 and {0, 1} <= set(y.tolist())
    first = judge.train(x, y, _paths(catalog), 0.5, 3.0)
    second = judge.train(x.copy(), y.copy(), _paths(catalog), 0.5, 3.0)
    first.save(tmp_path / "a.npz")
    second.save(tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()
    again = judge.load(tmp_path / "a.npz")
    assert again is not None
    assert np.array_equal(first.probability(x), again.probability(x))
    # the features of the same message are the same row each time
    x2, _ = _rows(catalog)
    assert np.array_equal(x, x2)
    # and the fit learned something: the labels it was given are closer than a coin
    p = first.probability(x)
    assert p[y == 1].mean() > p[y == 0].mean()


def test_the_shipped_weights_read_the_current_features() -> None:
    shipped = judge.load()
    assert shipped is not None, "fact_log/judge_weights.npz: run python bench/judge_train.py"
    assert shipped.paths == _paths(Catalog.load())
    assert len(shipped.coef) == len(shipped.paths) + len(judge.SCALARS)
    assert 0.0 <= shipped.threshold < 1.0


def test_a_doubted_candidate_is_a_hint_not_a_fact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UAC_JUDGE", "1")
    monkeypatch.setenv("UAC_JUDGE_WEIGHTS", str(_weights_file(tmp_path, 1.01)))  # doubts all
    facts, hints = _learned(PASSPORT)
    assert "identity.passport.expiry_date" not in facts
    hint = next(h for h in hints if h["path"] == "identity.passport.expiry_date")
    assert hint["read"] == {"value": "2031-03-05"}
    assert 0.0 <= hint["probability"] <= 1.0 and hint["quote"] == PASSPORT
    assert "record tool" in hint["hint"]
    # the same weights letting everything through learn it; switched off, too
    monkeypatch.setenv("UAC_JUDGE_WEIGHTS", str(_weights_file(tmp_path, 0.0)))
    assert "identity.passport.expiry_date" in _learned(PASSPORT)[0]
    monkeypatch.setenv("UAC_JUDGE_WEIGHTS", str(_weights_file(tmp_path, 1.01)))
    monkeypatch.setenv("UAC_JUDGE", "0")
    assert "identity.passport.expiry_date" in _learned(PASSPORT)[0]


def test_an_explicit_command_is_never_judged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UAC_JUDGE", "1")
    monkeypatch.setenv("UAC_JUDGE_WEIGHTS", str(_weights_file(tmp_path, 1.01)))
    assert "identity.passport.expiry_date" not in _learned(PASSPORT)[0]
    facts, hints = _learned(PASSPORT, source="explicit_command")
    assert "identity.passport.expiry_date" in facts
    assert not any("probability" in h for h in hints)


def test_a_hostile_message_is_judged_in_bounded_work(tmp_path: Path) -> None:
    weights = judge.load(_weights_file(tmp_path, 1.01))
    catalog = Catalog.load()
    text = ("my passport expires 5 March 2031 " * 3000)[:100_000] + "\x00\ufffd" * 10
    many = [
        Candidate(
            "attribute",
            "identity.passport.expiry_date",
            "2031-03-05",
            "assert",
            text[i * 33 : i * 33 + 32],
            i * 33,
            0.8,
        )
        for i in range(500)
    ]
    kept, doubted = judge.judge(catalog, text, many, [], AT, weights=weights)
    assert len(doubted) == judge._MAX_JUDGED  # judged: the first ones only
    assert len(kept) == len(many) - judge._MAX_JUDGED  # the rest pass unjudged
    assert all(isinstance(d.hint()["probability"], float) for d in doubted)
