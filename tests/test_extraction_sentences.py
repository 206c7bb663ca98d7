"""How the rules read text before any fact: dates and times as people write them, sentences and
clauses, dictated punctuation.

Each construct is tested in sentences invented for the test, in other words and registers
(terse, lowercase, non-native, dictated, pasted) than the tuning sets', with negatives
alongside: other people's facts, questions, hypotheticals and plans find nothing of the
path. Unless a test says otherwise, AT is Sunday 1 June 2025 (tests/candidates.py).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from tests.candidates import AT, D, T, found, of
from uac import Memory
from uac.fact_log.extraction.patterns import extract, sentences
from uac.fact_log.extraction.timemodel import clock, find_dates
from uac.fact_log.extraction.values.money import amounts, find_money


def _days(text: str) -> list:
    from uac.fact_log.extraction.timemodel import find_dates

    return [d.date for d in find_dates(text, AT.date(), "future")]


AT_MONDAY = dt.datetime(2025, 3, 10, 9)  # a Monday


# -- dates and times -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "days"),
    [
        # a bare "the 28th" opening a range that ends on a full date is before that date
        ("from the 28th until 3 July", [D(2025, 6, 28), D(2025, 7, 3)]),
        ("the 30th through 4 January", [D(2025, 12, 30), D(2026, 1, 4)]),
        # a weekday with a day number: the day number wins, the weekday picks the month
        ("Saturday 14th", [D(2025, 6, 14)]),
        ("Fri 11th July", [D(2025, 7, 11)]),
        ("on Thurs 19th", [D(2025, 6, 19)]),
        # "tomorrow" as people type it
        ("tmrw", [D(2025, 6, 2)]),
        ("tomorow morning", [D(2025, 6, 2)]),
        ("tommorrow", [D(2025, 6, 2)]),
    ],
)
def test_date_forms(text: str, days: list[dt.date]) -> None:
    assert [d.date for d in find_dates(text, AT.date())] == days


def test_a_weekday_with_a_day_number_takes_the_month_they_agree_in() -> None:
    # 14 June 2025 is a Saturday: "Monday 14th" is 14 July, the next 14th that is a Monday
    [d] = find_dates("Monday 14th", AT.date())
    assert d.date == D(2025, 7, 14)


# -- sentences -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "pieces"),
    [
        ("Holiday booked!! 4 to 9 August", ["Holiday booked!!", "4 to 9 August"]),
        ("Really?! No way", ["Really?!", "No way"]),
        ("My dentist is M. Lopes. She is great.", ["My dentist is M. Lopes.", "She is great."]),
        ("Ask J. R. Smith first", ["Ask J. R. Smith first"]),
    ],
)
def test_sentence_ends(text: str, pieces: list[str]) -> None:
    assert [s.text for s in sentences(text)] == pieces


# -- dates and times -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "day", "flagged"),
    [
        # the day number wins over a weekday that does not fall on it (flagged)
        ("the cleaner is coming friday the 10th", D(2025, 6, 10), True),
        ("Tues 19th", D(2025, 6, 19), True),
        # a weekday that agrees within the next two months picks that month
        ("Fri 13th", D(2025, 6, 13), False),
        ("Sun 8th", D(2025, 6, 8), False),
        ("Weds 4th", D(2025, 6, 4), False),
        ("Monday 14th", D(2025, 7, 14), False),
    ],
)
def test_a_weekday_with_a_day_number(text: str, day: dt.date, flagged: bool) -> None:
    [d] = find_dates(text, AT.date())
    assert d.date == day
    assert (d.conflict is not None) == flagged


def test_clock_face_ranges_are_time_ranges() -> None:
    c = clock("the review slot is 10:15-10:45")
    assert c is not None and (c.start, c.end) == (dt.time(10, 15), dt.time(10, 45))
    assert clock("read chapters 10-12") is None


# -- documents: fragments that complete the one just talked about, issuers, ranges ----------


@pytest.mark.parametrize(
    ("text", "earlier"),
    [
        ("issued by Spain", ()),  # no document talked about
        ("number 40021977", ("my sister lost her purse",)),
        ("the flight home is 2 Aug 2029", ("my passport runs out in 2029 I think",)),
        ("expires 2031-01-01?", ("renewed my passport last week",)),
    ],
)
def test_fragments_without_a_document_or_with_other_words_fill_nothing(
    text: str, earlier: tuple[str, ...]
) -> None:
    cands = found(text, *earlier)
    assert not [p for p, _ in cands if p.startswith("identity.")]


# -- money and payments ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("sixty two pounds fifty", "62.50", "GBP"),
        ("two hundred and forty quid", "240", "GBP"),
        ("a hundred euros", "100", "EUR"),
        ("twelve dollars", "12", "USD"),
    ],
)
def test_money_in_words(text: str, amount: str, currency: str) -> None:
    [m] = find_money(text)
    assert (m.amount, m.currency) == (Decimal(amount), currency)


def test_words_that_are_not_money() -> None:
    assert find_money("one of the pounds was lost, two dogs") == []


# -- dates -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "days"),
    [
        # bare day numbers joined by a range word, the month said before them
        ("in July, 3rd-8th", [D(2025, 7, 3), D(2025, 7, 8)]),
        ("we go in august!! 5th to the 9th", [D(2025, 8, 5), D(2025, 8, 9)]),
        ("Sept. 11th till 14th", [D(2025, 9, 11), D(2025, 9, 14)]),
        # ordinal words
        ("from the first of may till the third of may", [D(2026, 5, 1), D(2026, 5, 3)]),
        ("starting the twenty-second of June", [D(2025, 6, 22)]),
        ("july the fourth", [D(2025, 7, 4)]),
        # counts from today
        ("due 2 weeks from today", [D(2025, 6, 15)]),
        ("ten days from now", [D(2025, 6, 11)]),
        # what holds for a span from a day ends it; a course for a span from a day starts then
        ("the permit is valid for a year from today", [D(2026, 6, 1)]),
        ("cover is good for 90 days from tomorrow", [D(2025, 8, 31)]),
        ("take one a day for 14 days from today", [D(2025, 6, 1)]),
        # a weekday ending a range is the first such day after the range's start
        ("friday the 13th till the monday", [D(2025, 6, 13), D(2025, 6, 16)]),
    ],
)
def test_date_forms_in_words_and_counts(text: str, days: list[dt.date]) -> None:
    assert [d.date for d in find_dates(text, AT.date())] == days


def test_a_bare_day_number_alone_is_still_no_date() -> None:
    assert find_dates("my 18th birthday", AT.date()) == []
    assert find_dates("the 3rd one was better", AT.date())[0].date == D(2025, 6, 3)


# -- tasks: where a thing stands, reminders without a day -------------------------------------


def test_a_year_said_in_words_is_the_dates_year() -> None:
    [d] = find_dates("it runs out 30 June this year", AT.date())
    assert d.date == D(2025, 6, 30) and d.explicit_year
    [d] = find_dates("bought it on 3 March last year", AT.date())
    assert d.date == D(2024, 3, 3)


# -- smaller families: purpose by who booked, hire place, home after a comma, layovers, ----------
# -- activities booked in a place, deadlines that are not departures, regions, owned days -----


@pytest.mark.parametrize(
    ("text", "hour", "minute"),
    [("at ten past nine", 9, 10), ("at twenty to six", 17, 40), ("at five to eight pm", 19, 55)],
)
def test_clock_times_said_as_minutes_past_or_to(text: str, hour: int, minute: int) -> None:
    when = clock(text)
    assert when is not None and when.start == dt.time(hour, minute)


# -- US dictation: "period", "comma", "question mark" said as words --------------------------


def test_dictated_period_and_comma_end_sentences_and_clauses() -> None:
    from uac.fact_log.extraction.patterns.text import undictate

    said = "remind me to call the landlord friday period thanks comma bye period"
    read = undictate(said)
    assert len(read) == len(said)
    assert read.split() == [
        "remind",
        "me",
        "to",
        "call",
        "the",
        "landlord",
        "friday.",
        "thanks,",
        "bye.",
    ]
    assert undictate("is the pharmacy open question mark").rstrip() == "is the pharmacy open?"
    # a period of time stays a word
    for text in ("the free trial period ends 3 May period", "I'm on my period comma ugh period"):
        assert "period ends" in undictate(text) or "my period" in undictate(text)


def test_a_clock_time_colon_does_not_split_a_clause() -> None:
    from uac.fact_log.extraction.patterns.text import clauses, sentences

    sent = next(sentences("bio is weds 14th 2:45, room: B12"))
    assert [c.text for c in clauses(sent)] == ["bio is weds 14th 2:45", "room", "B12"]


# -- dates: dotted day-first dates, a range's bare last day ----------------------------------


def test_dotted_dates_are_day_first() -> None:
    assert _days("Versicherung gilt bis 31.03.2026") == [D(2026, 3, 31)]
    assert _days("we are in Crete 28.12. until 4.1.") == [D(2025, 12, 28), D(2026, 1, 4)]
    assert _days("the check was on 3.02., all fine") == [D(2026, 2, 3)]
    assert _days("from 9. to 14. August at the lake") == [D(2025, 8, 9), D(2025, 8, 14)]
    # a price is no date: no second dot, or no word of a day before it
    assert _days("paid 10.12. for it") == []
    assert _days("it was 20.12 EUR") == []


def test_a_ranges_bare_last_day_takes_the_first_days_month() -> None:
    assert _days("june ninth through the twelfth") == [D(2025, 6, 9), D(2025, 6, 12)]
    assert _days("Aug 3 to 10, driving") == [D(2025, 8, 3), D(2025, 8, 10)]
    assert _days("Aug 3 to 10 people") == [D(2025, 8, 3)]


# -- away periods, asked-for deadlines, a bare ordinal after "is" ----------------------------


def test_a_guessed_range_runs_forward_into_the_evening() -> None:
    from uac.fact_log.extraction.timemodel import clock

    said = clock("from 6 to 7.30")
    assert said is not None and (said.start.hour, said.end.hour) == (18, 19)


# -- offsets from a dated paper, slashed dates, "off until", a passport's name ---------------


def test_a_slashed_date_is_read_only_when_its_order_is_plain() -> None:
    assert _days("the lease ends 7/31") == [D(2025, 7, 31)]
    assert _days("moving on 28/08/2025") == [D(2025, 8, 28)]
    assert _days("closing is 3/4 at noon") == []  # March 4 or 3 April: not guessed
    assert _days("support is 24/7") == []


# -- money: grouping and multipliers of other countries -----------------------------------


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("fees were 3,75,000 INR", "375000", "INR"),  # Indian grouping
        ("the flat costs 12'500 CHF", "12500", "CHF"),  # Swiss apostrophe
        ("paid 2’300 francs", "2300", "CHF"),  # typographic apostrophe
        ("4.5 lakh rupees", "450000", "INR"),
        ("£12k", "12000", "GBP"),
        ("2.099 € total", "2099", "EUR"),
    ],
)
def test_amounts_written_other_ways(text: str, amount: str, currency: str) -> None:
    money = find_money(text)
    assert money and money[0].amount == Decimal(amount) and money[0].currency == currency, money


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("capped at 2 lakh", "200000"),
        ("a loan of 15k", "15000"),
        ("deposit was 3.200, sent it friday", "3200"),  # a comma then a space ends a clause
        ("gym 24.99/month", "24.99"),
        ("max 7'000.", "7000"),
    ],
)
def test_bare_amounts_written_other_ways(text: str, amount: str) -> None:
    said = amounts(text)
    assert said and said[0].amount == Decimal(amount), said


@pytest.mark.parametrize(
    "text", ["serviced on 14.02., cost was fine", "see you 3/4 at noon", "it is 12km away"]
)
def test_no_amount_from_dates_or_units(text: str) -> None:
    assert amounts(text) == []


# -- sentences: a day-first date's dot does not end one ------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "From 1. July the rent is 900 EUR by standing order",
        "serviced on 14.02., cost was 200 EUR",
        "away 6. to 9. August",
    ],
)
def test_a_dotted_date_does_not_end_a_sentence(text: str) -> None:
    from uac.fact_log.extraction.patterns.text import sentences

    assert len(list(sentences(text))) == 1


# -- money in, charges said other ways, pasted alerts -------------------------------------


@pytest.mark.parametrize(
    ("text", "amount", "currency"),
    [
        ("4 299 zł", "4299", "PLN"),
        ("NGN 45,000.00", "45000.00", "NGN"),
        ("EUR 40", "40", "EUR"),
        ("300 dirhams", "300", "AED"),
    ],
)
def test_money_written_the_way_other_countries_write_it(
    text: str, amount: str, currency: str
) -> None:
    from uac.fact_log.extraction.values.money import find_money

    (m,) = find_money(text)
    assert (m.amount, m.currency) == (Decimal(amount), currency)


def test_no_money_from_codes_that_are_not_currencies() -> None:
    from uac.fact_log.extraction.values.money import find_money

    assert find_money("flight BA 123 lands at 9") == []
    assert find_money("I have 2 100 reasons") == []


@pytest.mark.parametrize(
    ("earlier", "text"),
    [
        ("My Netflix is £15.99 a month.", "sorry 2 secs, doorbell"),
        ("My Netflix is £15.99 a month.", "wait 10 min"),
        ("My Netflix is £15.99 a month.", "no 1 priority is the gym"),
        (
            "My rent is £900 a month, paid by standing order on the 1st.",
            "Actually 2 people live here",
        ),
    ],
)
def test_a_number_after_sorry_or_wait_corrects_no_amount(earlier: str, text: str) -> None:
    assert found(text, earlier) == []


@pytest.mark.parametrize(
    ("plan", "cancel", "name"),
    [
        ("My NOW TV Entertainment membership renews on 3 March, £9.99 a month",
         "just cancelled NOW TV", "NOW TV Entertainment"),
        ("Adobe Lightroom renews on 3 March, £9.99 a month", "cancelled Adobe this morning",
         "Adobe Lightroom"),
    ],
)  # fmt: skip
def test_a_cancellation_by_the_services_short_name_ends_the_plan_the_thread_knows(
    plan: str, cancel: str, name: str
) -> None:
    earlier = [(plan, T(2028, 2, 6, 9))]
    ended = [c.value for c in extract(cancel, T(2028, 2, 20, 9), history=earlier) if c.op == "end"]
    assert ended == [{"name": name, "cancelled_on": D(2028, 2, 20)}]


def test_the_amounts_memo_gives_every_thread_the_serial_answers() -> None:
    # money._FOUND is shared by every thread of a Memory and cleared at 512 texts: many threads
    # over more texts than it holds must each get exactly what one thread alone gets
    from concurrent.futures import ThreadPoolExecutor

    from uac.fact_log.extraction.values.money import find_money

    texts = [f"paid £{i}.{i % 100:02d} and €{i * 3} for item {i}" for i in range(1500)]
    serial = [find_money(t) for t in texts]
    with ThreadPoolExecutor(max_workers=8) as pool:
        for _ in range(3):
            assert list(pool.map(find_money, texts)) == serial
    assert all(len(found) == 2 for found in serial)  # the check can fail: two amounts each


# -- a list under a heading that names another person is theirs ----------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Mum's direct debits:\nCouncil tax £150 on the 1st\nWater £40 on the 15th",
        "Mum's direct debits:\n- Council tax £150 on the 1st\n- Water £40 on the 15th",
        "Mum's direct debits: council tax £150 on the 1st, water £40 on the 15th.",
        "My sister's subscriptions:\nNetflix £15 a month\nSpotify £10 a month",
        "Dad's meds:\n- metformin 500mg twice a day\n- ramipril 5mg",
        "my parents' bills:\n- Netflix £15 a month",
        "Tom's standing orders:\n- £200 to the landlord on the 1st",
        "Mum's direct debits (from her Barclays):\n- Council tax £150 on the 1st",
        "My mum's meds:\n- metformin 500mg twice a day",
        "MUM'S DDs are:\n- council tax £150 on the 1st\n- Netflix £15 a month",
    ],
)
def test_a_list_under_another_persons_heading_is_not_the_users(text: str) -> None:
    assert found(text) == []


# -- a question's form asks; a statement's word order with "?" states a surprise ----------


@pytest.mark.parametrize(
    "text",
    [
        "Is my Netflix £15 a month?",
        "Do I pay £15 a month for Netflix?",
        "Is the gym direct debit £32 on the 5th?",
    ],
)
def test_a_question_asserts_nothing(text: str) -> None:
    assert found(text) == []


# -- a bare number correcting the amount just told ------------------------------------------


@pytest.mark.parametrize(
    "fix",
    [
        "sorry 2 secs",
        "wait 5 min",
        "no 3 kids",
        "no, 3",  # not an amount of the size of £900
        "actually 9500",
        "actually 950 but I might move",
        "no 1 priority is the gym",
        "sorry 2 a week",
    ],
)
def test_a_number_with_words_after_it_or_of_another_size_corrects_nothing(fix: str) -> None:
    assert found(fix, "rent is £900 a month by standing order") == []


# -- the passport's country said beside it; "mine" after another's ---------------------------


@pytest.mark.parametrize(
    ("text", "path", "day"),
    [
        ("Ola's passport came back; mine is fine until 2030-02-11.", "passport", D(2030, 2, 11)),
        (
            "His licence runs out soon. Mine expires on 4 March 2031.",
            "driver_licence",
            D(2031, 3, 4),
        ),
        ("My passport is okay until 9 May 2029.", "passport", D(2029, 5, 9)),
    ],
)
def test_mine_after_another_persons_document(text: str, path: str, day: D) -> None:
    assert of(f"identity.{path}.expiry_date", found(text)) == [day]


def test_mine_without_a_document_is_nothing() -> None:
    cands = found("Her bike is fine until May; mine is fine until June.")
    assert [p for p, _ in cands if p.startswith("identity.")] == []


# -- second batch: dotted times after a date, short weekdays due, where a deliverable goes ----


def test_a_dotted_amount_after_a_date_is_no_time() -> None:
    from uac.fact_log.extraction.timemodel import clock

    assert clock("paid on 3 May 14.50 euros") is None


# -- an ending that names its drug's start: the start, not the stop --------------------------


@pytest.mark.parametrize(
    "text",
    [
        "I stopped taking the aspirin I started on 1 March",
        "Came off the aspirin that I began on 1 March.",
    ],
)
def test_a_start_day_in_an_ending_is_the_start(text: str) -> None:
    [med] = [c.value for c in extract(text, AT_MONDAY) if c.op == "end"]
    assert (med["start_date"], med["stop_date"]) == (D(2025, 3, 1), D(2025, 3, 10))


@pytest.mark.usefixtures("backend")  # opens a workspace
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


# -- "took my last X", "X is done": a medication's stop ---------------------------------------


@pytest.mark.parametrize(
    ("text", "name", "day"),
    [
        ("Took my last amoxicillin this morning, course finished", "amoxicillin", D(2025, 3, 10)),
        ("took the last dose of prednisolone on Friday", "prednisolone", D(2025, 3, 7)),
        ("ok, the sertraline is done, last tablet was on 2 March", "sertraline", D(2025, 3, 2)),
    ],
)
def test_a_last_dose_is_the_stop(text: str, name: str, day: dt.date) -> None:
    ends = [c.value for c in extract(text, AT_MONDAY) if c.op == "end"]
    assert ends == [{"name": name, "stop_date": day}]


@pytest.mark.parametrize(
    "text",
    ["My mum took her last aspirin on Friday", "Christmas is over", "is the metformin done?"],
)
def test_no_stop_of_anothers_or_asked(text: str) -> None:
    assert [c for c in extract(text, AT_MONDAY) if c.op == "end"] == []
