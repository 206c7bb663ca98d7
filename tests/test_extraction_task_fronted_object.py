"""A task whose goal the rules read as one verb ("Pay") takes the object its sentence says
before the subject ("the water bill I must pay by Friday" is "Pay the water bill"); a goal
that names its thing already, or a sentence whose words before the subject are the user's,
is left as read."""

from __future__ import annotations

import pytest

from uac.fact_log.extraction.abstain import with_fronted_object
from uac.fact_log.extraction.candidate import Candidate

pytestmark = pytest.mark.no_workspace("extraction of text in memory: no log")


def goal_after(text: str, goal: str) -> object:
    cand = Candidate(
        "record", "tasks.tasks", {"goal": goal, "status": "planned"}, "assert", text, 0, 0.8
    )
    [out] = with_fronted_object(text, [cand])
    return out.value["goal"]


def test_a_fronted_object_completes_a_goal_made_of_its_verb() -> None:
    text = "My sister reminded me that the water bill I must pay by Friday."
    assert goal_after(text, "Pay") == "Pay the water bill"


def test_an_object_before_a_comma_is_taken_whole() -> None:
    text = "The parking permit for the office, we have to renew before 3 May."
    assert goal_after(text, "Renew") == "Renew the parking permit for the office"


def test_a_goal_that_names_its_thing_is_left_as_read() -> None:
    text = "The water bill I must pay by Friday."
    assert goal_after(text, "Pay the water bill") == "Pay the water bill"


def test_a_verb_the_sentence_does_not_oblige_is_left_as_read() -> None:
    text = "Yesterday was busy, I must call the bank before noon."
    assert goal_after(text, "Pay") == "Pay"
