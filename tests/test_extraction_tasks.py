"""Tasks and deadlines read from conversation.

Each construct is tested in sentences invented for the test, in other words and registers
(terse, lowercase, non-native, dictated, pasted) than the tuning sets', with negatives
alongside: other people's facts, questions, hypotheticals and plans find nothing of the
path. Unless a test says otherwise, AT is Sunday 1 June 2025 (tests/candidates.py).
"""

from __future__ import annotations

import datetime as dt

import pytest

from tests.candidates import AT, D, T, found, of


def _task(text: str, *earlier: str) -> dict:
    [task] = of("tasks.tasks", found(text, *earlier))
    return task


def _tasks(text: str, *earlier: str) -> list[dict]:
    return of("tasks.tasks", found(text, *earlier))


# -- precision: dates relative to the conversation, courses, prices, ambiguous corrections ---


def test_a_deadline_correction_between_two_deadlines_is_refused_not_guessed() -> None:
    earlier = (
        "The thesis has to be submitted by Friday, June 13.",
        "The abstract is due two days before that.",
    )
    moved = [
        t
        for t in of("tasks.tasks", found("Actually the deadline moved to the 20th.", *earlier))
        if t.get("due_date") == D(2025, 6, 20)
    ]
    assert moved == []
    # with one deadline in the conversation, the correction is clear
    [one] = of("tasks.tasks", found("Actually the deadline moved to the 20th.", earlier[0]))
    assert one["due_date"] == D(2025, 6, 20) and "thesis" in one["goal"].lower()


# -- more trips, insurance, tasks, payments, purchases -------------------------------------


def test_an_application_that_closes_is_a_deadline() -> None:
    [task] = of("tasks.tasks", found("The bursary application closes on 12 June."))
    assert task["due_date"] == D(2025, 6, 12) and "application" in task["goal"].lower()


def test_a_task_sent_off_is_done() -> None:
    earlier = "I need to send the parking permit renewal by 20 June."
    [task] = of(
        "tasks.tasks", found("Posted the permit renewal off this morning, so that's done.", earlier)
    )
    assert task["status"] == "done" and "permit" in task["goal"].lower()


def test_done_needs_a_task_it_names() -> None:
    earlier = "I need to send the parking permit renewal by 20 June."
    assert not of("tasks.tasks", found("The washing is done, finally.", earlier))


@pytest.mark.parametrize(
    "text",
    [
        "The permit renewal has to be filed by Friday though",
        "I still haven't sent the permit renewal",
        "Has the permit renewal been sent?",
        "My brother sent his permit renewal",
    ],
)
def test_not_done_yet(text: str) -> None:
    earlier = "I need to send the parking permit renewal by 20 June."
    assert not [t for t in of("tasks.tasks", found(text, earlier)) if t.get("status") == "done"]


@pytest.mark.parametrize(
    ("text", "word", "due"),
    [
        ("essay draft due to my tutor on 12 June", "essay", D(2025, 6, 12)),
        ("the tax forms need posting by 20 June", "tax forms", D(2025, 6, 20)),
        ("I owe my landlord the signed lease by the 15th", "lease", D(2025, 6, 15)),
    ],
)
def test_deadline_forms(text: str, word: str, due: dt.date) -> None:
    [task] = of("tasks.tasks", found(text))
    assert word in task["goal"].lower() and task["due_date"] == due


def test_due_to_a_cause_is_no_deadline() -> None:
    assert not of("tasks.tasks", found("the delay was due to the rain on Friday"))


# -- tasks and deadlines: reminders, offsets from a date, notice, paperwork done, steps ------


def test_a_reminder_asked_for_is_a_task_due_that_day() -> None:
    task = _task("please remind me on the 20th to book the boiler service")
    assert task["due_date"] == D(2025, 6, 20) and "boiler service" in task["goal"]
    assert _task("remind me to renew the TV licence by 30 June")["due_date"] == D(2025, 6, 30)
    assert of("tasks.tasks", found("she reminded me to call the bank on the 20th")) == []
    assert of("tasks.tasks", found("can you remind me what I said about the 20th?")) == []


def test_deadlines_counted_back_from_a_date_or_an_end() -> None:
    task = _task("the grant report has to go in three days before the 30th of June")
    assert task["due_date"] == D(2025, 6, 27) and "grant report" in task["goal"].lower()
    task = _task("my contract ends 31 August and I have to give one month's notice")
    assert task["due_date"] == D(2025, 7, 31) and "notice" in task["goal"]


def test_deadline_forms_without_due() -> None:
    assert _task("I need to submit the insurance claim until 20 June")["due_date"] == D(2025, 6, 20)
    task = _task("chapter two to my tutor by Thursday")
    assert task["due_date"] == D(2025, 6, 5) and task["goal"].lower().startswith("chapter two")


@pytest.mark.parametrize("text", ["the baby's due in August", "the next one is due in six months"])
def test_what_is_due_but_no_task(text: str) -> None:
    assert of("tasks.tasks", found(text)) == []


def test_paperwork_said_finished_is_a_task_done() -> None:
    task = _task("finally submitted my council tax appeal!")
    assert task == {"goal": "Council tax appeal", "status": "done"}
    assert of("tasks.tasks", found("I still need to submit the council tax appeal")) == []


def test_steps_of_the_open_task_said_finished() -> None:
    earlier = "grant proposal due on 20 June"
    task = _task("I've done the budget and the timeline, the narrative is still a mess", earlier)
    assert task["done_steps"] == ["budget", "timeline"] and "proposal" in task["goal"]
    task = _task("ok I send already the cover letter today, references remain", earlier)
    assert task["done_steps"] == ["cover letter"]
    # no open task: nothing to attach the steps to
    assert of("tasks.tasks", found("I've done the budget and the timeline")) == []


# -- home: where the user lives, and visits to it --------------------------------------------


def test_working_days_counted_from_a_months_end() -> None:
    task = _task("the timesheet has to be in within 5 working days of month end")
    assert task["due_date"] == D(2025, 7, 7)  # 30 June is a Monday
    task = _task("also May invoices have to be in within 3 working days of month end")
    assert task["due_date"] == D(2025, 6, 4) and task["goal"] == "May invoices"


def test_a_task_taken_on_then_its_due_date_by_pronoun() -> None:
    assert _task("the Q3 forecast - I own it now") == {"goal": "Q3 forecast", "status": "planned"}
    task = _task("it's due to the board on the 20th", "the Q3 forecast - I own it now")
    assert (task["goal"], task["due_date"]) == ("Q3 forecast", D(2025, 6, 20))
    assert _task("I'm in charge of the office move this year")["goal"] == "Office move"
    assert of("tasks.tasks", found("she's in charge of the office move this year")) == []
    assert _task("the rota - that's on me")["goal"] == "Rota"
    assert of("tasks.tasks", found("right, that's me done for today")) == []  # an idiom
    assert of("tasks.tasks", found("it's due to the board on the 20th")) == []  # no task named


# -- tasks: where a thing stands, reminders without a day -------------------------------------


def test_a_status_list_gives_each_thing_its_status() -> None:
    tasks = of("tasks.tasks", found("thank you notes: done. photo album: halfway. party: scrapped"))
    assert [(t["goal"], t["status"]) for t in tasks] == [
        ("Thank you notes", "done"),
        ("Photo album", "in_progress"),
        ("Party", "dropped"),
    ]


@pytest.mark.parametrize(
    ("text", "goal", "status"),
    [
        ("tax return's filed!!", "Tax return", "done"),
        ("the grant report is finally submitted", "Grant report", "done"),
        ("kitchen quote: on hold", "Kitchen quote", "blocked"),
    ],
)
def test_a_thing_said_done(text: str, goal: str, status: str) -> None:
    [task] = of("tasks.tasks", found(text))
    assert (task["goal"], task["status"]) == (goal, status)


def test_a_status_keeps_the_sessions_task() -> None:
    [task] = of("tasks.tasks", found("visa form: done", "I need to send the visa form by friday"))
    assert task["status"] == "done" and task["due_date"] == D(2025, 6, 6)


@pytest.mark.parametrize(
    "text",
    [
        "it's done",
        "is the report done?",
        "my sister's thesis is submitted",
        "all done",
        "the ironing is done, finally",
        "the Monday stand-up is cancelled",
    ],
)
def test_no_status_from_these(text: str) -> None:
    assert of("tasks.tasks", found(text)) == []


def test_a_reminder_without_a_day_is_a_task() -> None:
    [task] = of("tasks.tasks", found("remind me to pick up the dry cleaning"))
    assert task["goal"] == "Pick up the dry cleaning" and "due_date" not in task


def test_a_reminder_asked_as_a_question_without_a_day_is_nothing() -> None:
    assert of("tasks.tasks", found("could you remind me to defrost the freezer?")) == []


# -- tasks asked of the user, time left, things signed up for --------------------------------


@pytest.mark.parametrize(
    ("text", "earlier", "goal", "due"),
    [
        (
            "my manager wants the budget plan in by the 20th of June",
            (),
            "Budget plan",
            D(2025, 6, 20),
        ),
        ("got a fine in the post. we have 28 days from today to pay", (), "Pay", D(2025, 6, 29)),
        ("i have two weeks to send the form back", (), "Send the form back", D(2025, 6, 15)),
        (
            "the editor needs a first draft 5 days before that",
            ("article due on 30 June",),
            "First draft",
            D(2025, 6, 25),
        ),
        (
            "my supervisor wants the chapter 3 draft two weeks before the review, which is 8 July",
            (),
            "Chapter 3 draft",
            D(2025, 6, 24),
        ),
    ],
)
def test_deadlines_set_by_someone_or_by_time_left(
    text: str, earlier: tuple[str, ...], goal: str, due: dt.date
) -> None:
    tasks = of("tasks.tasks", found(text, *earlier))
    assert any(t["goal"] == goal and t["due_date"] == due for t in tasks), tasks


@pytest.mark.parametrize(
    "text",
    ["my sister wants her car back by friday", "does HR want the form in by the 9th?"],
)
def test_no_deadline_from_someone_elses_want(text: str) -> None:
    assert of("tasks.tasks", found(text)) == []


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("council tax form due 30 June - sent it off this morning", "done"),
        ("insurance claim due 30 June, need to send it", "planned"),
        ("insurance claim due 30 June, haven't sent it", "planned"),
    ],
)
def test_a_deadline_said_done_in_the_same_breath(text: str, status: str) -> None:
    [task] = of("tasks.tasks", found(text))
    assert task["status"] == status and task["due_date"] == D(2025, 6, 30)


# -- smaller families: purpose by who booked, hire place, home after a comma, layovers, ----------
# -- activities booked in a place, deadlines that are not departures, regions, owned days -----


def test_a_day_another_record_owns_is_no_deadline() -> None:
    cands = found("and the home insurance is due - Aviva, ends 4 Aug")
    assert of("tasks.tasks", cands) == []
    assert of("identity.insurance_policies", cands)[0]["valid_until"] == D(2025, 8, 4)


def test_a_vehicles_due_date_still_makes_the_task() -> None:
    assert of("tasks.tasks", found("the Corsa's MOT is due by 30 June"))[0]["due_date"] == D(
        2025, 6, 30
    )


def test_a_plan_with_steps_and_a_step_said_done() -> None:
    plan = "to-do for the move: 1) book the van 2) pack the kitchen 3) clean the flat by 15 July"
    [task] = of("tasks.tasks", found(plan))
    assert task["goal"] == "Move" and task["steps"][:2] == ["book the van", "pack the kitchen"]
    assert task["due_date"] == D(2025, 7, 15)
    [task] = of("tasks.tasks", found("van's booked!", plan))
    assert task["done_steps"] == ["book the van"]
    assert of("tasks.tasks", found("is the van booked?", plan)) == []


# -- tasks: an obligation or an errand with its day ------------------------------------------


def test_an_obligation_without_its_subject_is_the_users_task() -> None:
    tasks = _tasks("Need to send the signed lease back by Thursday")
    assert [(t["goal"], t["due_date"]) for t in tasks] == [
        ("Send the signed lease back", D(2025, 6, 5))
    ]
    assert [t["due_date"] for t in _tasks("so busy, must renew the permit before the 20th")] == [
        D(2025, 6, 20)
    ]


def test_a_thing_that_needs_any_participle_by_a_day_is_a_task() -> None:
    assert [t["due_date"] for t in _tasks("The deposit form must be countersigned by 9 July")] == [
        D(2025, 7, 9)
    ]
    assert [
        t["due_date"] for t in _tasks("my repeat prescription needs collecting by the 4th")
    ] == [D(2025, 6, 4)]
    assert _tasks("return is the 22nd") == []  # the trip's way back, not an errand


# -- away periods, asked-for deadlines, a bare ordinal after "is" ----------------------------


def test_someone_wants_a_deliverable_until_a_day() -> None:
    tasks = _tasks("the landlord wants the signed inventory until 20 of June")
    assert [(t["goal"], t["due_date"]) for t in tasks] == [("Signed inventory", D(2025, 6, 20))]


# -- offsets from a dated paper, slashed dates, "off until", a passport's name ---------------


def test_a_term_counted_from_a_dated_letter_is_a_task() -> None:
    at = AT.replace(day=9)  # Monday 9 June 2025
    cands = found("the council tax appeal form, 21 days from the letter dated the 2nd", at=at)
    assert [(t["due_date"]) for t in of("tasks.tasks", cands)] == [D(2025, 6, 23)]
    assert of("schedule.events", cands) == []


# -- reviewers' defects ------------------------------------------------------------------


def test_who_said_a_deadline_is_not_the_task() -> None:
    assert of("tasks.tasks", found("My boss says the deadline is Friday")) == []
    assert of("tasks.tasks", found("manager reckons our deadline is the 20th")) == []
    tasks = of("tasks.tasks", found("my supervisor said the chapter draft is due on 14 June"))
    assert [t["goal"] for t in tasks] == ["Chapter draft"]
    tasks = of(
        "tasks.tasks", found("landlord told me the deposit form has to be returned by the 20th")
    )
    assert [(t["goal"], t["due_date"]) for t in tasks] == [("Deposit form", D(2025, 6, 20))]
    assert of("tasks.tasks", found("Tom says his essay is due Friday")) == []


# -- tasks: the goal by its relation to "due", the day by its relation to the ask -----------


def test_the_goal_is_the_thing_due_not_whom_it_is_for() -> None:
    tasks = of("tasks.tasks", found("Reminder: VAT return for the business due 7 August"))
    assert [(t["goal"], t["due_date"]) for t in tasks] == [("VAT return", D(2025, 8, 7))]
    tasks = of("tasks.tasks", found("Also: gas safety certificate, deadline 31/10."))
    assert [(t["goal"], t["due_date"]) for t in tasks] == [
        ("Gas safety certificate", D(2025, 10, 31))
    ]
    tasks = of("tasks.tasks", found("the visa paperwork has to be in with the embassy by 30 april"))
    assert [t["due_date"] for t in tasks] == [D(2026, 4, 30)]


def test_a_reminders_day_is_not_taken_from_another_clause() -> None:
    cands = found("my nephew Sam turns 18 on the 9th of next month, remind me to get him a card")
    assert [t.get("due_date") for t in of("tasks.tasks", cands)] == [None]
    assert [p["birthday"] for p in of("contacts.contacts", cands)] == [D(2007, 7, 9)]
    tasks = of("tasks.tasks", found("remind me on the 8th to send the meter reading"))
    assert [t["due_date"] for t in tasks] == [D(2025, 6, 8)]


# -- a term counted from an event the message dates by its verb -------------------------------


def test_a_term_counted_from_an_event_dated_by_its_verb() -> None:
    at = T(2028, 1, 10, 8)
    tasks = of(
        "tasks.tasks", found("Smith v Jones: reply due 14 days from service; served 7 Jan.", at=at)
    )
    assert [t["due_date"] for t in tasks] == [D(2028, 1, 21)]
    tasks = of(
        "tasks.tasks", found("the form is due 21 days after receipt, received on the 5th", at=at)
    )
    assert [t["due_date"] for t in tasks] == [D(2028, 1, 26)]
    # the day counted from is never the due date
    tasks = of("tasks.tasks", found("the claim form is due 28 days from service, served on 3 June"))
    assert all(t.get("due_date") != D(2025, 6, 3) for t in tasks)


# -- a negated reminder is no task ----------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "remind me not to call my ex",
        "Remind me not to book anything on the 5th",
        "remind me never to fly Ryanair again",
        "remind me to not call my ex",
        "Remind me tomorrow not to eat cake",
        "Don't remind me to call my ex",
        "no need to remind me to call Tom on Friday",
    ],
)
def test_a_reminder_not_to_do_something_is_no_task(text: str) -> None:
    assert of("tasks.tasks", found(text)) == []


def test_a_reminder_to_do_something_is_a_task() -> None:
    assert of("tasks.tasks", found("remind me to call my ex")) == [
        {"goal": "Call my ex", "status": "planned"}
    ]
    [task] = of("tasks.tasks", found("I don't know, remind me to call Dad on Friday"))
    assert task["goal"] == "Call Dad" and task["due_date"] == D(2025, 6, 6)
    [task] = of("tasks.tasks", found("Remind me to call Dad on Friday, not Saturday"))
    assert task["goal"] == "Call Dad" and task["due_date"] == D(2025, 6, 6)


# -- a restated return day, a past deadline day ---------------------------------------------


def test_a_deadline_day_continued_into_the_past_rolls_forward() -> None:
    # the session last named today (1 June); "the 20th" nearest it is 20 May, gone by
    cands = found("the tax return must be in by the 20th", "I paid the plumber 80 today")
    [task] = of("tasks.tasks", cands)
    assert task["due_date"] == D(2025, 6, 20)


# -- second batch: dotted times after a date, short weekdays due, where a deliverable goes ----


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("history essay due fri", D(2025, 6, 6)),
        ("chem worksheet due tues", D(2025, 6, 3)),
    ],
)
def test_a_short_weekday_after_due(text: str, day: D) -> None:
    [task] = of("tasks.tasks", found(text))
    assert task["due_date"] == day


@pytest.mark.parametrize(
    ("text", "goal", "day"),
    [
        ("Timesheets need to be on the portal by Friday 6 June", "Timesheets", D(2025, 6, 6)),
        ("the referral for #3 has to be approved by 20 June", "Referral for #3", D(2025, 6, 20)),
    ],
)
def test_a_deliverable_due_somewhere_by_a_day(text: str, goal: str, day: D) -> None:
    [task] = of("tasks.tasks", found(text))
    assert (task["goal"], task["due_date"]) == (goal, day)
