"""Session 8 (h14r): constructs behind blind4's misses, tested in other words and registers."""

from __future__ import annotations

from tests.candidates import AT, D, found, of

# -- contacts: a person and a way to reach them in one line ---------------------------------


def _people(text: str, *earlier: str) -> list[dict]:
    return of("contacts.contacts", found(text, *earlier))


def test_a_relation_then_a_number_in_the_same_line_is_one_contact() -> None:
    people = _people("Sanjay Mehta is my accountant, mob 07911 123456")
    assert people == [
        {
            "name": "Sanjay Mehta",
            "relationship": "accountant",
            "role": "accountant",
            "phone": "07911 123456",
        }
    ]


def test_a_titled_name_with_a_number_is_a_contact() -> None:
    people = _people("the physio is Mrs Okonkwo at Parkside, tel 0161 555 0192")
    assert [p.get("phone") for p in people] == ["0161 555 0192"]
    assert "Okonkwo" in people[0]["name"]
    assert "0207 946 0033" in str(_people("Dr Hassan at the clinic: 0207 946 0033"))


def test_a_full_name_with_an_email_is_a_contact() -> None:
    people = _people("our new tax adviser is Lena Vogt, lena.vogt@steuer-vogt.de")
    assert people == [{"name": "Lena Vogt", "email": "lena.vogt@steuer-vogt.de"}]


def test_a_named_persons_number_is_a_contact() -> None:
    assert _people("Ravi's number is +44 7700 900123, pls save") == [
        {"name": "Ravi", "phone": "+44 7700 900123"}
    ]


def test_the_relation_and_the_email_said_in_two_clauses_are_one_contact() -> None:
    people = _people("My niece Orla is sorting the flat; her email is orla.b@gmail.com.")
    assert people == [{"name": "Orla", "relationship": "niece", "email": "orla.b@gmail.com"}]


def test_a_date_or_an_amount_is_not_a_phone_number() -> None:
    people = _people("my dentist is Dr Shah, appointment 2025-06-12, paid 120.50")
    assert people and all("phone" not in p for p in people)


def test_someone_who_died_is_no_contact() -> None:
    assert _people("my uncle Brendan passed away in January") == []
    assert _people("My sister Agnes died last year, it was sudden.") == []


def test_someone_elses_number_is_not_attached_to_the_users_contact() -> None:
    # two people in the line: no guessing whose number it is
    people = _people("my brother Tim and my sister Kate, 07700 900555")
    assert all("phone" not in p for p in people)
