"""Long hostile messages are read in time linear in their length (hreview9's cases), with
the same candidates as the per-sentence rescans they replace."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import reads_linearly
from hypothesis import example, given, settings
from hypothesis import strategies as st

from uac.fact_log.extraction import patterns
from uac.fact_log.extraction.patterns import extract, sentences, travel
from uac.fact_log.extraction.patterns.text import Ctx, Span

DATA = Path(__file__).resolve().parents[1] / "bench" / "extraction_data"
NOW = dt.datetime(2027, 3, 10, 9)


# -- the booked place before a sentence ---------------------------------------------------

_PIECES = [
    "booked ",
    "Booking ",
    "BOOKED\t",
    "Rome",
    "Mexico City",
    "New York",
    "Paris",
    "nothing",
    " ",
    ". ",
    ".",
    "\n",
    "x" * 19,
    "yet",
    "!",
]


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(_PIECES), max_size=60),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12),
)
@example(pieces=["booked ", "Mexico City"], cuts=[13, 14, 18]).via("a cut inside the name")
@example(pieces=["booked ", "New York", "x" * 19] * 8, cuts=[97, 230, 400]).via("far cuts")
def test_the_booked_place_before_a_cut_is_the_cut_texts(pieces: list[str], cuts: list[int]) -> None:
    text = "".join(pieces)
    scan = travel._BookedScan(text)
    for end in sorted(min(c, len(text)) for c in cuts):
        assert scan.before(end) == travel._booked_place(text[:end], 0), (text, end)
    if cuts:  # an earlier cut again (never asked by the rules): still the cut text's
        assert scan.before(0) == travel._booked_place("", 0)


# -- the candidates of the sentence being read --------------------------------------------


def _messages() -> list[str]:
    out = []
    for name in ("dev", "heldout", "fresh"):
        for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["text"])
    return out


def test_every_candidate_before_here_quotes_an_earlier_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked = 0

    def check(ctx: Ctx, sent: Span, parts: list[Span]) -> None:
        nonlocal checked
        assert ctx.sentence_start == sent.start
        assert all(c.start < sent.start for c in ctx.out[: ctx.here()])
        checked += 1

    # after every rule, as each may add or drop candidates
    monkeypatch.setattr(patterns, "RULES", tuple(x for r in patterns.RULES for x in (r, check)))
    hostile = ["Booked Rome! Flying out 3 June.\n" * 40, "£5 to Tom\n" * 60]
    for text in [*_messages(), *hostile]:
        extract(text, NOW)
    assert checked > 40_000


class _Counting(list):  # type: ignore[type-arg]
    """A candidate list that counts the candidates rules walk through or copy."""

    walked = 0

    def __iter__(self) -> Any:
        _Counting.walked += len(self)
        return super().__iter__()

    def __getitem__(self, at: Any) -> Any:
        got = super().__getitem__(at)
        if isinstance(at, slice):
            _Counting.walked += len(got)
        return got


@pytest.mark.parametrize(
    "unit",
    [
        "Paid £12 to Tesco on 3 May.\n",
        "paid Anna £20 for dinner\n",
        "£5 to Tom\n",
        "paid £5 at Tesco\n",
        "Booked Rome! Flying out 3 June.\n",
    ],
)
def test_a_long_list_is_not_walked_once_a_sentence(
    unit: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rules once read every candidate found so far for each sentence ("did this sentence
    # give a payment?"): 2,900 payments made 2,900 x 2,900 x several steps. Counted, not
    # timed: a count cannot flake on a busy machine.
    made = patterns.Ctx

    def counting(text: str, today: dt.date, catalog: Any, out: list[Any], **kw: Any) -> Ctx:
        return made(text, today, catalog, _Counting(out), **kw)

    monkeypatch.setattr(patterns, "Ctx", counting)
    text = (unit * 9000)[:65536]
    _Counting.walked = 0
    found = extract(text, NOW)
    said = len(list(sentences(text)))
    assert found  # each line a candidate while read (one after the repeats fold)
    assert _Counting.walked < 20 * said, _Counting.walked  # (215 million for 6,554 before)


def test_hostile_booked_shapes_stay_linear() -> None:
    # These took 18.6 s and 10.6 s of CPU (2026-12, under load), ~2.6 s and ~1.6 s since:
    # the guard catches a return to reading the message's prefix once a sentence.
    for unit in ("booked a b c. flying 3 june.\n", "Booked nothing yet. Flying out 3 June.\n"):
        reads_linearly(lambda part: extract(part, NOW), (unit * 3000)[:65536])
