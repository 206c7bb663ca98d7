"""Contacts read from conversation: the user's people and how to reach them.

Each construct is tested in sentences invented for the test, in other words and registers
(terse, lowercase, non-native, dictated, pasted) than the tuning sets', with negatives
alongside: other people's facts, questions, hypotheticals and plans find nothing of the
path. Unless a test says otherwise, AT is Sunday 1 June 2025 (tests/candidates.py).
"""

from __future__ import annotations

import pytest

from tests.candidates import D, found, of


def _person(text: str, *earlier: str) -> dict:
    [person] = of("contacts.contacts", found(text, *earlier))
    return person


def _people(text: str, *earlier: str) -> list[dict[str, object]]:
    return of("contacts.contacts", found(text, *earlier))


# -- contacts: an appositive name, pronouns and possessives that carry on -----------------


@pytest.mark.parametrize(
    ("text", "name", "rel", "how"),
    [
        ("Had coffee with my new colleague yesterday, Priya Shah", "Priya Shah", "colleague", None),
        (
            "Bumped into an old school friend, Jonas Berg, at the station",
            "Jonas Berg",
            "friend",
            "school",
        ),
        ("Finally met our new neighbours, Ruth and Sam", "Ruth", "neighbour", None),
    ],
)
def test_a_relation_then_its_name(text: str, name: str, rel: str, how: str | None) -> None:
    [person, *_] = of("contacts.contacts", found(text))
    assert (person["name"], person["relationship"]) == (name, rel)
    if how:
        assert how in person["how_met"]


@pytest.mark.parametrize(
    ("earlier", "text", "field", "value"),
    [
        (
            "My cousin Ana is visiting next month",
            "she's an architect in Porto",
            "role",
            "architect",
        ),
        (
            "Met my new neighbour, Omar Haddad",
            "he's a paramedic with the ambulance service",
            "role",
            "paramedic",
        ),
        (
            "Met my new neighbour, Omar Haddad",
            "we swapped numbers, his is 07700 900123",
            "phone",
            "07700 900123",
        ),
        ("my friend Ines is back in town", "hers is +351 912 345 678", "phone", "+351 912 345 678"),
    ],
)
def test_a_pronoun_carries_the_person(earlier: str, text: str, field: str, value: str) -> None:
    people = of("contacts.contacts", found(text, earlier))
    assert any(p.get(field) == value for p in people), people


def test_a_role_named_before_the_name() -> None:
    [person] = of("contacts.contacts", found("the instructor's called Bram, he's patient"))
    assert (person["name"], person["role"]) == ("Bram", "instructor")


def test_a_named_possessive_gives_the_contact() -> None:
    [person] = of("contacts.contacts", found("Femi's email is femi.ade@example.org, I'll add him"))
    assert person == {"name": "Femi", "email": "femi.ade@example.org"}


@pytest.mark.parametrize(
    ("earlier", "text"),
    [
        ("My cousin Ana is visiting next month", "she's a nightmare with directions"),
        ("My cousin Ana is visiting next month", "she's lovely"),
        ("", "my friend's email is x.y@example.org"),
        ("", "The company's email is help@example.org"),
    ],
)
def test_no_contact_field_without_a_person_or_a_job(earlier: str, text: str) -> None:
    people = of("contacts.contacts", found(text, *([earlier] if earlier else [])))
    assert not [p for p in people if set(p) - {"name", "relationship"}]


def test_a_professional_relation_is_also_a_role() -> None:
    [person] = of("contacts.contacts", found("my accountant is Wen Li, wen@ledger.example"))
    assert (person["name"], person["relationship"], person["role"]) == (
        "Wen Li",
        "accountant",
        "accountant",
    )
    [person] = of("contacts.contacts", found("the tutor's called Zoë, she's great"))
    assert person["name"] == "Zoë"


# -- sentences -----------------------------------------------------------------------------


def test_a_name_with_an_initial_stays_whole() -> None:
    [person] = of("contacts.contacts", found("my GP is Dr A. Okafor, very thorough"))
    assert person["name"] == "A. Okafor" or person["name"].endswith("Okafor")


# -- contacts: roles and titles, teams, someone else's relation, the user's side, ages -------


@pytest.mark.parametrize(
    ("text", "name", "relationship"),
    [
        ("my cardiologist is Dr Mensah at the Royal", "Mensah", "cardiologist"),
        ("optician's Rhian Pugh, she's lovely", "Rhian Pugh", "optician"),
        ("solicitor is Ms Varga, 0161 496 0000", "Varga", "solicitor"),
        ("Tomasz from payroll signs it off on the 3rd", "Tomasz", "colleague"),
        ("I'm Ellie's godfather", "Ellie", "godchild"),
        ("Nadia handles it while I'm off, she's my deputy", "Nadia", "deputy"),
    ],
)
def test_people_named_by_their_role_team_or_the_users_side(
    text: str, name: str, relationship: str
) -> None:
    person = _person(text)
    assert (person["name"], person["relationship"]) == (name, relationship)


def test_a_phone_said_with_the_role_and_after_a_pronoun() -> None:
    assert _person("the solicitor is Ms Varga, 0161 496 0000")["phone"] == "0161 496 0000"
    earlier = "my new dentist is Rhys Morgan"
    assert _person("his number's 029 2018 0000", earlier)["phone"] == "029 2018 0000"
    assert (
        _person("her clinic is in Leeds, phone 0113 496 0000", "my GP is Dr Helen Shaw")["phone"]
        == "0113 496 0000"
    )


def test_someone_met_with_their_job_in_the_same_line() -> None:
    person = _person("met a woman called Inga at the bouldering gym, she's a pharmacist")
    assert person["name"] == "Inga" and person["role"] == "pharmacist"
    assert "bouldering" in person["how_met"]


def test_someone_elses_relation_named_is_a_contact_of_theirs() -> None:
    person = _person("his wife Carla is a great cook", "my friend Tom Hale is visiting")
    assert person["name"] == "Carla" and person["relationship"] == "Tom Hale's wife"


def test_an_age_reached_on_a_known_birthday_gives_the_date_of_birth() -> None:
    earlier = "my brother Sami's birthday is on 14 August"
    assert _person("he's turning 30", earlier)["birthday"] == D(1995, 8, 14)
    assert of("contacts.contacts", found("he's turning 30")) == []  # no one, no day


# -- home: where the user lives, and visits to it --------------------------------------------


@pytest.mark.parametrize(
    ("lines", "name", "relationship"),
    [
        (("my sister is Ruth, her husband is Omar",), "Omar", "brother-in-law"),
        (("my mum Lina is visiting", "her brother Sami is coming too"), "Sami", "uncle"),
        (("my wife Noor", "her father Karim is ill"), "Karim", "father-in-law"),
    ],
)
def test_a_relation_of_a_relation_is_the_users_kin(
    lines: tuple[str, ...], name: str, relationship: str
) -> None:
    *earlier, last = lines
    people = [p for p in of("contacts.contacts", found(last, *earlier)) if p["name"] == name]
    assert [p["relationship"] for p in people] == [relationship]


# -- contacts: full names said after, people by list, cards, known names in lower case ------


@pytest.mark.parametrize(
    ("text", "earlier", "want"),
    [
        (
            "Nadia Okoro is her full name, she's my neighbour",
            (),
            {"name": "Nadia Okoro", "relationship": "neighbour"},
        ),
        (
            "my sister is Liz btw, Lizzie Carter",
            (),
            {"name": "Lizzie Carter", "relationship": "sister"},
        ),
        (
            "new neighbours moved in next door, Tariq and Sofia",
            (),
            {"name": "Sofia", "relationship": "neighbour"},
        ),
        (
            "tariq's number is 07700 900123",
            ("new neighbours moved in next door, Tariq and Sofia",),
            {"name": "Tariq", "phone": "07700 900123"},
        ),
        (
            "sofia works at the school, she's a teacher",
            ("new neighbours moved in next door, Tariq and Sofia",),
            {"name": "Sofia", "role": "teacher"},
        ),
        (
            "save this: Ines Duarte, ines.duarte@example.org, "
            "she's the new project manager at Arca",
            (),
            {"name": "Ines Duarte", "email": "ines.duarte@example.org", "role": "project manager"},
        ),
        (
            "new contact comma Doctor Karl Lind comma he's my new GP full stop phone 0161 496 0011",
            (),
            {"name": "Karl Lind", "relationship": "gp", "phone": "0161 496 0011"},
        ),
        (
            "found the electrician. Mo Hassan, 07700 900777",
            (),
            {"name": "Mo Hassan", "phone": "07700 900777"},
        ),
        (
            "Bea's birthday is the 2nd of june, she was born in 1988",
            ("my friend Bea is coming",),
            {"name": "Bea", "birthday": D(1988, 6, 2)},
        ),
        ("Dr Osei put me on amlodipine today", (), {"name": "Dr Osei"}),
    ],
)
def test_people_said_in_other_shapes(
    text: str, earlier: tuple[str, ...], want: dict[str, object]
) -> None:
    people = _people(text, *earlier)
    assert any(all(p.get(k) == v for k, v in want.items()) for p in people), people


@pytest.mark.parametrize(
    "text",
    [
        "Dr Osei is on holiday so I saw a locum",  # no action on the user: a mention only
        "mo's number was wrong",
    ],
)
def test_no_person_from_these(text: str) -> None:
    people = _people(text)
    assert not [p for p in people if p.get("name") in ("Dr Osei", "Tariq", "Sofia", "Mo")]


# -- smaller families: purpose by who booked, hire place, home after a comma, layovers, ----------
# -- activities booked in a place, deadlines that are not departures, regions, owned days -----


def test_what_a_person_is_corrected() -> None:
    card = "new contact, Dr Lena Brandt, she's my new dentist. phone 0161 496 0000"
    [p] = _people("actually scratch that, she's the hygienist not the dentist", card)
    assert (p["name"], p["relationship"]) == ("Lena Brandt", "hygienist")
    assert _people("she's the hygienist not the dentist") == []


# -- contacts: a person and a way to reach them in one line ---------------------------------


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


def test_a_firms_bank_details_are_no_contact() -> None:
    assert _people("paid the roofer Nowak Ltd 900 today, 40-11-22 12345678") == []


# -- US dictation: "period", "comma", "question mark" said as words --------------------------


def test_a_dictated_contact_line_keeps_its_number() -> None:
    people = _people("my physio is Dr Lamb at Northside comma phone 312-555-0101 period")
    assert [p.get("phone") for p in people] == ["312-555-0101"]


# -- lowercase writers, blank pages in other words, a four-word passport name, -------------


def test_an_account_or_card_number_is_no_phone() -> None:
    said = "I paid £900 to Mr Hughes today, to account GB33 BUKB 2020 1555 5555 55."
    assert of("contacts.contacts", found(said)) == []
    assert of("contacts.contacts", found("Dr Ahmed, card 4929 1234 5678 9012")) == []


def test_a_death_said_of_someone_else_in_another_clause_keeps_the_contact() -> None:
    said = "Our new notary is Mr Paul Weber, telephone 0161 496 0555, handling my late aunt's will."
    assert [p.get("phone") for p in _people(said)] == ["0161 496 0555"]


# -- reviewers' defects ------------------------------------------------------------------


def test_a_named_relatives_birthday_without_a_year_is_this_years_date() -> None:
    people = of("contacts.contacts", found("My brother Piotr's birthday is on the 3rd of october"))
    assert people == [{"name": "Piotr", "relationship": "brother", "birthday": D(2025, 10, 3)}]
    people = of("contacts.contacts", found("Grace birthday is on Nov 2"))
    assert people == [{"name": "Grace", "birthday": D(2025, 11, 2)}]
    assert of("contacts.contacts", found("Her birthday is 3 May")) == []
    # with the year of birth or an age, the date of birth
    people = of("contacts.contacts", found("Kim's birthday is 4 April, she was born in 1990"))
    assert people == [{"name": "Kim", "birthday": D(1990, 4, 4)}]


# -- contacts: in-laws, grandchildren, honorifics, cards with a role, how met, local numbers --


def test_relations_said_in_more_words() -> None:
    assert _people("my father in law Henryk is staying over") == [
        {"name": "Henryk", "relationship": "father-in-law"}
    ]
    assert _people("My granddaughter Maisie's telephone is 555-0177, she's at college") == [
        {"name": "Maisie", "relationship": "granddaughter", "phone": "555-0177"}
    ]


def test_an_honorific_is_no_part_of_the_name() -> None:
    assert _people("My employer is Sir Rahul, his number +971 50 555 0188") == [
        {"name": "Rahul", "relationship": "employer", "phone": "+971 50 555 0188"}
    ]


def test_a_card_labelled_by_a_role_with_a_name_in_any_latin_letters() -> None:
    assert _people("new accountant: Tomasz Król, tomek.krol@biuro.pl, 601 234 567") == [
        {
            "name": "Tomasz Król",
            "role": "accountant",
            "email": "tomek.krol@biuro.pl",
            "phone": "601 234 567",
        }
    ]
    # an amount in groups of three is no phone
    assert _people("paid 512 345 678 zł for the flat") == []


def test_how_the_user_met_someone_said_after_the_name() -> None:
    people = _people("My friend Zoë from the running club, her number is 07700 900123")
    assert [p.get("how_met") for p in people] == ["from running club"]
    people = _people("My best friend here is Grace, she is also from Cebu, we met in church")
    assert people == [{"name": "Grace", "relationship": "best friend", "how_met": "in church"}]
    assert [p.get("how_met") for p in _people("my friend Tom from Leeds is visiting")] == [None]


# -- routes with arrows; corrections that add a stop or change nothing; whose extension -----


def test_a_round_birthday_and_a_note_opening_with_the_relation() -> None:
    assert _people("Brother Tomás's 40th: 2 July.") == [
        {"name": "Tomás", "relationship": "brother", "birthday": D(1985, 7, 2)}
    ]
    assert _people("my dad Jim's 70th is on the 15th") == [
        {"name": "Jim", "relationship": "father", "birthday": D(1955, 6, 15)}
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Sister Act 2 is on TV tonight",
        "Uncle Sam takes half my salary",
        "Mum Jeans are back in fashion",
        "Dad Jokes Volume 2 comes out 3 May",
        "The Queen's birthday is 21 April",
        "King's birthday is a bank holiday on 2 June",
    ],
)
def test_a_title_is_no_relative(text: str) -> None:
    assert of("contacts.contacts", found(text)) == []


def test_a_relatives_note_is_still_a_contact() -> None:
    [bro] = of("contacts.contacts", found("Brother Tom: 07700 900123"))
    assert (bro["name"], bro["relationship"]) == ("Tom", "brother")


# -- a birthday makes a contact only of someone the user knows ------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Shakespeare's birthday is 23 April",
        "Shakespeare's birthday is 23 April, he was born in 1564",
        "Son Heung-min's 30th: 8 July",
        "Anna's birthday is 23 April",  # no one the user is said to know, yet
    ],
)
def test_a_birthday_of_no_one_the_user_knows_is_no_contact(text: str) -> None:
    assert of("contacts.contacts", found(text)) == []


def test_a_birthday_of_someone_the_user_knows_is_a_contact() -> None:
    [anna] = of("contacts.contacts", found("My friend Anna's birthday is 23 April"))
    assert (anna["relationship"], anna["birthday"]) == ("friend", D(2025, 4, 23))
    [lou] = of(
        "contacts.contacts",
        found(
            "Lou's birthday is the 9th of march btw, she was born in 1991",
            "my friend Lou says he's pricey but worth it",
        ),
    )
    assert (lou["name"], lou["birthday"]) == ("Lou", D(1991, 3, 9))
    [ros] = of("contacts.contacts", found("Sister Rosalind's 50th: 17 June"))
    assert (ros["relationship"], ros["birthday"]) == ("sister", D(1975, 6, 17))
    assert of("contacts.contacts", found("Einstein's birthday is 14 March", "my friend Lou")) == []


# -- the user's people: "our", a friend by nickname, a name in brackets ---------------------


@pytest.mark.parametrize(
    ("text", "name", "rel"),
    [
        ("Our granddaughter Maisie is staying with us this weekend.", "Maisie", "granddaughter"),
        ("our neighbour Ken Adeyemi is feeding the cat.", "Ken Adeyemi", "neighbour"),
        ("my buddy Tariq is lending me his drill", "Tariq", "friend"),
        ("My mate Shane reckons the ute needs tyres.", "Shane", "friend"),
        ("My boss (Karen Holt) wants the slides on Friday.", "Karen Holt", "boss"),
        ("Dad (Henry Osei) is coming for lunch.", "Henry Osei", "father"),
    ],
)
def test_the_users_people_in_other_shapes(text: str, name: str, rel: str) -> None:
    people = of("contacts.contacts", found(text))
    assert {"name": name, "relationship": rel}.items() <= people[0].items()


def test_a_bracketed_name_with_an_age_gives_the_birth_year() -> None:
    [aunt] = of("contacts.contacts", found("Aunt (Ruth Mensah) turns 70 on 4 October!"))
    assert (aunt["name"], aunt["relationship"], aunt["birthday"]) == (
        "Ruth Mensah",
        "aunt",
        D(1955, 10, 4),
    )


def test_our_flatmate_without_a_name_is_no_contact() -> None:
    assert of("contacts.contacts", found("our flatmate is away this week")) == []


# -- birthdays ------------------------------------------------------------------------------


def test_a_birthday_with_the_age_said_next_gives_the_birth_year() -> None:
    [who] = of(
        "contacts.contacts", found("Ines's birthday is 12 November. She'll be 40, party time.")
    )
    assert (who["name"], who["birthday"]) == ("Ines", D(1985, 11, 12))
    [who] = of("contacts.contacts", found("Tom's birthday is 2 August. He will be 9."))
    assert who["birthday"] == D(2016, 8, 2)


def test_a_famous_birthday_stays_none_without_an_age() -> None:
    assert of("contacts.contacts", found("Mozart's birthday is 27 January.")) == []


@pytest.mark.parametrize(
    ("text", "name", "rel", "day"),
    [
        ("cousin maya bday is july 9", "Maya", "cousin", D(2025, 7, 9)),
        ("my nephew leo's birthday is 3 Sept", "Leo", "nephew", D(2025, 9, 3)),
    ],
)
def test_a_lower_case_name_after_the_relation(text: str, name: str, rel: str, day: D) -> None:
    [who] = of("contacts.contacts", found(text))
    assert (who["name"], who["relationship"], who["birthday"]) == (name, rel, day)


def test_a_relation_word_is_no_lower_case_name() -> None:
    assert of("contacts.contacts", found("my cousin next birthday is in May")) == []


def test_a_relations_birthday_lands_on_the_name_the_session_gave() -> None:
    earlier = "My dad Peter is flying in from Accra."
    [dad] = of("contacts.contacts", found("Dad's birthday is 12 March.", earlier))
    assert (dad["name"], dad["birthday"]) == ("Peter", D(2025, 3, 12))
    earlier = "my sister Ana lives in Porto"
    [sis] = of(
        "contacts.contacts", found("my sister's bday is the 4th of July, she'll be 30", earlier)
    )
    assert (sis["name"], sis["birthday"]) == ("Ana", D(1995, 7, 4))


def test_a_relations_birthday_without_a_known_name_is_no_contact() -> None:
    # the catalog's contact needs a name; "Dad" is none
    assert of("contacts.contacts", found("Dad's birthday is 12 March.")) == []
    assert of("contacts.contacts", found("My sister's birthday is on the 4th of July.")) == []


@pytest.mark.parametrize(
    ("text", "name", "relationship"),
    [
        ("My wife Dorota says I should drink more water.", "Dorota", "wife"),
        ("My neighbour Ferris thinks the storm might hit tonight.", "Ferris", "neighbour"),
        ("My brother Lukas asked if I could lend him the van.", "Lukas", "brother"),
    ],
)
def test_a_person_introduced_by_relation_whatever_the_clause_advises_or_asks(
    text: str, name: str, relationship: str
) -> None:
    people = of("contacts.contacts", found(text))
    assert [(p["name"], p["relationship"]) for p in people] == [(name, relationship)]


@pytest.mark.parametrize(
    "text", ["It was not my cousin Ana who rang.", "My boss said his sister Vera might visit."]
)
def test_no_relation_after_a_negation_or_another_persons_relative(text: str) -> None:
    assert of("contacts.contacts", found(text)) == []


def test_a_relation_said_with_my_as_the_writer_spells_it() -> None:
    people = of("contacts.contacts", found("Mi daughter Claudette come fi visit next week."))
    assert [(p["name"], p["relationship"]) for p in people] == [("Claudette", "daughter")]
