"""Documents and identity read from conversation: passports, visas, insurance, nationality, name
and home.

Each construct is tested in sentences invented for the test, in other words and registers
(terse, lowercase, non-native, dictated, pasted) than the tuning sets', with negatives
alongside: other people's facts, questions, hypotheticals and plans find nothing of the
path. Unless a test says otherwise, AT is Sunday 1 June 2025 (tests/candidates.py).
"""

from __future__ import annotations

import pytest

from tests.candidates import D, T, found, of, values
from uac.fact_log.extraction.timemodel import find_dates

# -- identity ------------------------------------------------------------------------------


def test_an_an_nationality() -> None:
    assert of("identity.nationality", found("I'm an Australian citizen btw")) == ["AU"]


@pytest.mark.parametrize(
    ("text", "code"),
    [("My passport's a Canadian one, fyi.", "CA"), ("my passport is German", "DE")],
)
def test_the_passport_named_by_its_country(text: str, code: str) -> None:
    assert of("identity.passport.issuing_country", found(text)) == [code]


@pytest.mark.parametrize(
    ("text", "pages"),
    [
        ("my passport's only got about 3 blank pages left", 3),
        ("My passport is full of stamps, only one empty page left in it.", 1),
    ],
)
def test_blank_pages_said_loosely(text: str, pages: int) -> None:
    assert of("identity.passport.blank_pages", found(text)) == [pages]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("On my passport I'm Katarzyna Nowak, but friends say Kasia.", "Katarzyna Nowak"),
        ("Passport name: Jean-Luc Martin.", "Jean-Luc Martin"),
    ],
)
def test_the_name_in_the_passport(text: str, name: str) -> None:
    assert of("identity.passport.full_name", found(text)) == [name]


def test_the_new_ones_validity_and_the_number_follow_the_passport() -> None:
    text = "Passport renewal sorted!! new one's valid until 3 May 2035"
    assert of("identity.passport.expiry_date", found(text)) == [D(2035, 5, 3)]
    cands = found("the number is 123456789 in case you need it", text)
    assert of("identity.passport.number", cands) == ["123456789"]


def test_someone_elses_passport_gives_nothing() -> None:
    cands = found("my husband's passport is German, he only has 1 blank page left")
    assert not of("identity.passport.issuing_country", cands)
    assert not of("identity.passport.blank_pages", cands)


# -- more trips, insurance, tasks, payments, purchases -------------------------------------


def test_insurance_named_by_insurer_first() -> None:
    [policy] = of(
        "identity.insurance_policies", found("My Aviva travel insurance runs until 30 September.")
    )
    assert (policy["kind"], policy["provider"], policy["valid_until"]) == (
        "travel",
        "Aviva",
        D(2025, 9, 30),
    )


# -- documents: fragments that complete the one just talked about, issuers, ranges ----------


def test_fragments_fill_the_fields_of_the_document_just_named() -> None:
    licence = "got my new driving licence in the post"
    assert of("identity.driver_licence.number", found("number MORGA7012", licence)) == ["MORGA7012"]
    assert of("identity.driver_licence.expiry_date", found("expires 2034-09-30", licence)) == [
        D(2034, 9, 30)
    ]
    passport = "renewed my passport last week"
    assert of("identity.passport.issuing_country", found("issued by Portugal", passport)) == ["PT"]
    assert of("identity.passport.expiry_date", found("valid till 3 May 2030", passport)) == [
        D(2030, 5, 3)
    ]
    # a full date said alone right after the passport came up is its expiry
    unsure = "my passport runs out in 2029 I think"
    assert of("identity.passport.expiry_date", found("ah here it is: 2 Aug 2029", unsure)) == [
        D(2029, 8, 2)
    ]


@pytest.mark.parametrize(
    ("text", "code"),
    [("I'm flying on my Irish passport", "IE"), ("I have a Kenyan passport", "KE")],
)
def test_the_passport_the_user_holds_names_its_issuer(text: str, code: str) -> None:
    assert of("identity.passport.issuing_country", found(text)) == [code]


@pytest.mark.parametrize(
    "text",
    ["would I need a visa with an Indian passport?", "my wife has a Polish passport"],
)
def test_a_passport_asked_about_or_someone_elses_names_no_issuer(text: str) -> None:
    assert of("identity.passport.issuing_country", found(text)) == []


def test_a_visa_by_its_issuing_office_and_its_range_of_validity() -> None:
    [visa] = of(
        "identity.visas", found("the Indian embassy gave me a visa, valid from 2 July to 30 July")
    )
    assert visa["country"] == "IN"
    assert (visa["valid_from"], visa["valid_until"]) == (D(2025, 7, 2), D(2025, 7, 30))
    # the details in the fragment after an exclamation
    [visa] = of("identity.visas", found("Kenya e-visa granted! multiple entry, 5 Aug to 4 Nov"))
    assert (visa["country"], visa["entries"]) == ("KE", "multiple")
    assert (visa["valid_from"], visa["valid_until"]) == (D(2025, 8, 5), D(2025, 11, 4))
    assert of("identity.visas", found("I need to apply for a visa for Brazil, from 1 July")) == []


def test_insurance_with_its_insurer_said_apart_and_its_policy_number() -> None:
    [ins] = of(
        "identity.insurance_policies",
        found("home insurance renewed, it's Aviva, policy number HM-77231"),
    )
    assert ins == {"kind": "home", "provider": "Aviva", "policy_number": "HM-77231"}
    [ins] = of(
        "identity.insurance_policies", found("the health insurance – Bupa – costs £80 a month")
    )
    assert (ins["kind"], ins["provider"]) == ("health", "Bupa")
    [ins] = of(
        "identity.insurance_policies", found("travel insurance comes through my Nationwide card")
    )
    assert ins["provider"] == "Nationwide"


# -- trips said loosely: lower case, a place alone, its days next, a route -------------------


def test_a_visa_named_by_a_lowercase_nationality() -> None:
    [visa] = of(
        "identity.visas", found("embassy came through: kenyan tourist visa, good through 30 Sept")
    )
    assert (visa["country"], visa["kind"], visa["valid_until"]) == ("KE", "tourist", D(2025, 9, 30))


# -- home: where the user lives, and visits to it --------------------------------------------


@pytest.mark.parametrize(
    ("text", "city"),
    [
        ("hi! I'm Dara, 41, living in Leeds", "Leeds"),
        ("we moved to Porto last year", "Porto"),
        ("I live in Oslo with my partner", "Oslo"),
    ],
)
def test_the_city_the_user_lives_in(text: str, city: str) -> None:
    assert of("places.address.city", found(text)) == [city]


@pytest.mark.parametrize(
    "text",
    [
        "my sister lives in Leeds",
        "I used to live in Paris",
        "I lived in Rome for two years",
        "we are moving to Lisbon in May",
    ],
)
def test_no_home_for_others_the_past_or_a_move_to_come(text: str) -> None:
    assert of("places.address.city", found(text)) == []


# -- identity ----------------------------------------------------------------------------


def test_a_passport_the_user_has_gives_its_country() -> None:
    got = found("I have Brazilian passport, so I need to check the visa rules")
    assert of("identity.passport.issuing_country", got) == ["BR"]
    # a passport is not a nationality (the evaluation sets agree)
    assert of("identity.nationality", got) == []


def test_a_spouses_passport_gives_no_country_and_no_nationality() -> None:
    got = found("my wife has a Brazilian passport")
    assert of("identity.passport.issuing_country", got) == [] == of("identity.nationality", got)


@pytest.mark.parametrize(
    ("text", "name", "city"),
    [
        ("hi, I'm Tomasz Nowak, 41, living in Leeds", "Tomasz Nowak", "Leeds"),
        ("My name's Sara Kim and I'm based in Manchester", "Sara Kim", "Manchester"),
        ("I live in Lisbon now, moved last year", None, "Lisbon"),
        ("this is Aoife Byrne btw", "Aoife Byrne", None),
    ],
)
def test_name_and_home_city(text: str, name: str | None, city: str | None) -> None:
    got = found(text)
    assert of("identity.name", got) == ([name] if name else [])
    assert of("places.address.city", got) == ([city] if city else [])


@pytest.mark.parametrize(
    "text",
    [
        "my sister lives in Leeds",
        "I'm British, living abroad",
        "I'm Going Home tomorrow",
        "should I live in Lisbon?",
        "I'd love living in Lisbon",
    ],
)
def test_no_name_or_city_from_others_or_wishes(text: str) -> None:
    got = found(text)
    assert of("identity.name", got) == [] == of("places.address.city", got)


# -- documents: the country named before the visa, passport fields said loosely, insurance ---


def test_a_visa_takes_the_country_named_before_it() -> None:
    cands = found("news on Kenya: evisa granted!! single entry, valid 3 March to 2 April")
    [visa] = of("identity.visas", cands)
    assert visa["country"] == "KE" and visa["entries"] == "single"
    assert (visa["valid_from"], visa["valid_until"]) == (D(2026, 3, 3), D(2026, 4, 2))
    assert of("travel.trips", cands) == []


@pytest.mark.parametrize(
    ("text", "earlier", "path", "value"),
    [
        ("(im on a Canadian passport by the way)", (), "identity.passport.issuing_country", "CA"),
        (
            "Number is XK1234567, it is Polish passport.",
            ("my passport came back",),
            "identity.passport.number",
            "XK1234567",
        ),
        (
            "Number is XK1234567, it is Polish passport.",
            ("my passport came back",),
            "identity.passport.issuing_country",
            "PL",
        ),
        (
            "The validity is ten years, it says until 4 May 2035.",
            ("I renewed my passport",),
            "identity.passport.expiry_date",
            D(2035, 5, 4),
        ),
        (
            "my passport name is Maria Luisa Gomez but people call me Lu",
            (),
            "identity.passport.full_name",
            "Maria Luisa Gomez",
        ),
        (
            "full name in my passport: Aoife Mary Byrne",
            (),
            "identity.passport.full_name",
            "Aoife Mary Byrne",
        ),
        (
            "name on the ticket is Sam Reid, same as in my passport",
            (),
            "identity.passport.full_name",
            "Sam Reid",
        ),
    ],
)
def test_passport_fields_said_loosely(
    text: str, earlier: tuple[str, ...], path: str, value: object
) -> None:
    assert value in of(path, found(text, *earlier))


def test_no_passport_country_for_someone_else() -> None:
    assert of("identity.passport.issuing_country", found("she is on a Canadian passport")) == []


def test_insurance_with_its_span_policy_and_insurer_after_a_dash() -> None:
    cands = found(
        "renewed our annual travel cover with Aviva, runs 1 Aug 2025 to 31 July 2026, "
        "policy AV-55120-9"
    )
    [pol] = of("identity.insurance_policies", cands)
    assert (pol["valid_from"], pol["valid_until"]) == (D(2025, 8, 1), D(2026, 7, 31))
    assert pol["policy_number"] == "AV-55120-9" and pol["provider"] == "Aviva"
    [pol] = of(
        "identity.insurance_policies",
        found("and the home insurance is up for renewal — LV, ends 2 Sept"),
    )
    assert pol["provider"] == "LV" and pol["valid_until"] == D(2025, 9, 2)
    cands = found("the car insurance renewal arrived, £540 for the year with Churchill from 3 Oct")
    [pol] = of("identity.insurance_policies", cands)
    assert pol["provider"] == "Churchill" and pol["valid_from"] == D(2025, 10, 3)


# -- tasks: where a thing stands, reminders without a day -------------------------------------


def test_the_passport_said_in_the_answer_to_the_users_own_question() -> None:
    cands = found("when does my passport expire? hang on, checking... 14 May next year")
    assert of("identity.passport.expiry_date", cands) == [D(2026, 5, 14)]


def test_a_passport_holder_and_a_hotel_named_by_its_city() -> None:
    assert of("identity.passport.issuing_country", found("irish passport holder here")) == ["IE"]
    assert of("identity.passport.issuing_country", found("my wife is a US passport holder")) == []
    [stay] = of(
        "travel.bookings", found("Lyon hotel booked: Le Royal, check in 2 May, check out 5 May")
    )
    assert stay["place"] == "Lyon" and stay["end"] == T(2026, 5, 5, 11)


# -- smaller families: purpose by who booked, hire place, home after a comma, layovers, ----------
# -- activities booked in a place, deadlines that are not departures, regions, owned days -----


def test_home_city_after_a_comma() -> None:
    assert of("places.address.city", found("Irish btw, live in Cork now")) == ["Cork"]


# -- nationality: a demonym said of the user, not a passport -----------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Dutch here, moving to Spain next year", "NL"),
        ("we're Irish btw", "IE"),
        ("We are Polish so EU rules should apply to us", "PL"),
        ("Im Canadian, does that matter for the visa", "CA"),
    ],
)
def test_a_nationality_said_as_a_demonym(text: str, code: str) -> None:
    assert of("identity.nationality", found(text)) == [code]


@pytest.mark.parametrize(
    "text",
    [
        "Canadian friend of mine is visiting",
        "she's Dutch",
        "we are Polish-speaking at home",
    ],
)
def test_no_nationality_of_others(text: str) -> None:
    assert of("identity.nationality", found(text)) == []


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("I have an Irish passport, if that helps", "IE"),
        ("i travel on a german passport", "DE"),
        ("I'm on a Brazilian passport btw", "BR"),
    ],
)
def test_a_passport_gives_its_country_not_a_nationality(text: str, code: str) -> None:
    cands = found(text)
    assert of("identity.passport.issuing_country", cands) == [code]
    assert of("identity.nationality", cands) == []


def test_a_home_city_after_a_comma() -> None:
    assert of("places.address.city", found("I'm Welsh by the way, live in Cardiff")) == ["Cardiff"]


# -- more health and identity forms: "we're pregnant", "enough until", an allergy list, ----------
# -- "got <drug>", "<demonym> citizen here", "I'm <adjective>, <weight>" -------------------------


def test_a_citizen_here() -> None:
    assert of("identity.nationality", found("US citizen here, first trip to Japan")) == ["US"]


# -- documents: a list of fields, a validity said as a length --------------------------------


def test_a_list_of_passport_fields_after_the_passport_came_up() -> None:
    cands = found(
        "Collected the new passport today. Details: no. 700112233, expires 2 March 2035, "
        "issued in Ireland."
    )
    assert ("identity.passport.number", "700112233") in cands
    assert ("identity.passport.expiry_date", D(2035, 3, 2)) in cands
    assert ("identity.passport.issuing_country", "IE") in cands


def test_a_visa_granted_with_a_length_is_valid_from_today() -> None:
    visas = of("identity.visas", found("e-visa for India granted, valid for 90 days"))
    assert visas == [
        {
            "country": "IN",
            "kind": "e-visa",
            "valid_from": D(2025, 6, 1),
            "valid_until": D(2025, 8, 30),
        }
    ]
    # a length said of a visa held since some day unsaid gives no first day
    assert of("identity.visas", found("my Kenya visa is valid 3 months")) == [{"country": "KE"}]


# -- insurance: a policy, a length of cover, a German compound -------------------------------


def test_a_policy_with_its_insurer_and_a_length_of_cover() -> None:
    policies = of(
        "identity.insurance_policies",
        found("renewed the home policy with Aviva from 12 July, for another 12 months"),
    )
    assert policies == [
        {
            "kind": "home",
            "provider": "Aviva",
            "valid_from": D(2025, 7, 12),
            "valid_until": D(2026, 7, 11),
        }
    ]


def test_a_german_insurance_word_names_a_policy() -> None:
    policies = of(
        "identity.insurance_policies",
        found("Ich habe Reiseversicherung from HanseMerkur until 30.09.2025"),
    )
    assert policies == [
        {"kind": "travel", "provider": "HanseMerkur", "valid_until": D(2025, 9, 30)}
    ]


# -- offsets from a dated paper, slashed dates, "off until", a passport's name ---------------


def test_the_passport_has_a_name_without_my() -> None:
    cands = found("booking says ANA M SOUSA, but passport has Ana Maria Sousa.")
    assert ("identity.passport.full_name", "Ana Maria Sousa") in cands


# -- lowercase writers, blank pages in other words, a four-word passport name, -------------


def test_a_lowercase_writer_names_the_insurer_in_lowercase() -> None:
    assert of(
        "identity.insurance_policies", found("home insurance is with aviva, runs out 3rd oct")
    ) == [{"kind": "home", "provider": "Aviva", "valid_until": D(2025, 10, 3)}]
    # a determiner after "through" is no insurer
    assert of("identity.insurance_policies", found("travel insurance through the bank")) == []


def test_blank_pages_said_in_other_words() -> None:
    assert ("identity.passport.blank_pages", 2) in found(
        "checked and there are just two empty pages left in my passport"
    )
    assert ("identity.passport.blank_pages", 24) in found(
        "24 pages in it, all blank", "the new passport arrived today"
    )
    assert of("identity.passport.blank_pages", found("the notebook has 80 pages, all blank")) == []


def test_a_passport_name_of_four_words() -> None:
    cands = found("In my passport the name is Juan Carlos Pérez Ortega, two surnames")
    assert ("identity.passport.full_name", "Juan Carlos Pérez Ortega") in cands


# -- identity: "<demonym> passport holder" is the passport's country ------------------------


def test_a_passport_holder_names_the_passport_country() -> None:
    cands = found("Brazilian passport holder here, do I need a visa for Japan?")
    assert of("identity.passport.issuing_country", cands) == ["BR"]
    assert of("identity.nationality", cands) == []


def test_a_visa_valid_for_a_length_from_a_day_said() -> None:
    [visa] = values(
        "Got my Kenyan e-visa, single entry, valid 90 days from 2 May.", "identity.visas"
    )
    assert (str(visa["valid_from"]), str(visa["valid_until"])) == ("2027-05-02", "2027-07-31")


# -- documents: insurance by "is", an extension, a passport named as the topic --------------


def test_an_insurer_said_with_is_and_its_days() -> None:
    pols = of(
        "identity.insurance_policies", found("my travel insurance is Allianz, only till 20 July!!")
    )
    assert pols == [{"kind": "travel", "provider": "Allianz", "valid_until": D(2025, 7, 20)}]
    pols = of(
        "identity.insurance_policies", found("Travel insurance is Aviva Plus, 10 Aug to 10 Sep")
    )
    assert [(p["provider"], p["valid_from"], p["valid_until"]) for p in pols] == [
        ("Aviva Plus", D(2025, 8, 10), D(2025, 9, 10))
    ]
    assert of("identity.insurance_policies", found("my travel insurance is Expensive")) == []


def test_a_policy_extended_in_the_next_line_takes_the_new_last_day() -> None:
    pols = of(
        "identity.insurance_policies",
        found("ok renewed, now it's until 31.08", "my travel insurance is Allianz, till 20 July."),
    )
    assert [p["valid_until"] for p in pols] == [D(2025, 8, 31)]


def test_a_passport_named_as_the_lines_topic_is_the_users() -> None:
    assert of("identity.passport.issuing_country", found("Kenyan passport, expires 2030")) == ["KE"]
    assert of("identity.passport.issuing_country", found("irish passport too btw")) == ["IE"]
    assert of("identity.passport.issuing_country", found("US passport holders need an ESTA")) == []
    assert of("identity.passport.issuing_country", found("British passport office is slow")) == []


# -- documents: electronic travel authorisations; an insurer "in" a company -----------------


def test_electronic_travel_authorisations_are_visas() -> None:
    visas = of("identity.visas", found("I have the eTA for Canada since 2024, all good"))
    assert visas == [{"country": "CA", "kind": "eTA"}]
    assert of("identity.visas", found("got my NZeTA approved today")) == [
        {"country": "NZ", "kind": "NZeTA"}
    ]


def test_an_insurer_said_with_in_and_never_a_place() -> None:
    pols = of(
        "identity.insurance_policies",
        found("I bought travel insurance in Allianz, 1 August to 20 September"),
    )
    assert [(p["provider"], p["valid_until"]) for p in pols] == [("Allianz", D(2025, 9, 20))]
    assert (
        of(
            "identity.insurance_policies",
            found("I got travel insurance in Spain, 1 May to 20 July"),
        )
        == []
    )


# -- pasted confirmations and printed names ---------------------------------------------------


def test_a_passport_name_printed_in_capitals() -> None:
    assert of("identity.passport.full_name", found("my passport name is ADAEZE NGOZI NWOSU")) == [
        "ADAEZE NGOZI NWOSU"
    ]


# -- routes with arrows; corrections that add a stop or change nothing; whose extension -----


def test_a_range_that_holds_today_is_this_years() -> None:
    at = T(2025, 5, 10, 9)
    pols = of(
        "identity.insurance_policies",
        found(
            "I bought travel insurance with Allianz for the summer, from 1 May to 20 July", at=at
        ),
    )
    assert [(p["valid_from"], p["valid_until"]) for p in pols] == [(D(2025, 5, 1), D(2025, 7, 20))]
    trips = of("travel.trips", found("flying to Oslo 3 to 9 May", at=at))
    assert [t["depart"] for t in trips] == [D(2026, 5, 3)]


# -- a term counted from an event the message dates by its verb -------------------------------


def test_a_visa_held_by_the_days_the_next_fragment_gives() -> None:
    visas = of(
        "identity.visas", found("India visa don land! Multiple entry, valid 1 July to 30 December")
    )
    assert [(v["country"], v["valid_from"], v["entries"]) for v in visas] == [
        ("IN", D(2025, 7, 1), "multiple")
    ]
    assert (
        of("identity.visas", found("I need a China visa. Valid passport required, they said."))
        == []
    )
    assert of("identity.passport.issuing_country", found("Irish passport guy here, quick one")) == [
        "IE"
    ]


@pytest.mark.parametrize(
    "text",
    [
        "ETA for Rome is 6pm, I got delayed at the gate",
        "my eta for lisbon: 18:40, got the last train",
        "Canada ETA 7pm, I have the keys",
        "Tom's China visa landed! Single entry, valid 1 April to 30 April",
        "China visa sorted for my son! Single entry, valid 1 April to 30 April",
        "China visa came in. Tom's, not mine.",
    ],
)
def test_an_arrival_time_or_someone_elses_visa_is_no_visa(text: str) -> None:
    assert of("identity.visas", found(text)) == []


def test_a_travel_authorisation_is_still_a_visa() -> None:
    [uk] = of("identity.visas", found("Got my UK ETA approved, valid until 3 May 2028"))
    assert (uk["country"], uk["valid_until"]) == ("GB", D(2028, 5, 3))
    [cn] = of("identity.visas", found("China visa landed! Single entry, valid 1 April to 30 April"))
    assert cn["country"] == "CN" and cn["entries"] == "single"


@pytest.mark.parametrize(
    "text", ["US passport only? asking for my friend", "UK passport too, says my husband"]
)
def test_a_passport_asked_about_or_someone_elses_is_not_the_users(text: str) -> None:
    assert of("identity.passport.issuing_country", found(text)) == []
    assert of("identity.passport.issuing_country", found("UK passport here")) == ["GB"]


def test_a_visa_of_the_users_said_beside_a_relatives_event_is_still_the_users() -> None:
    text = (
        "I have a Canadian visitor visa also, multiple entry, valid till 30 August 2031, from "
        "my cousin's wedding in Brampton"
    )
    [visa] = of("identity.visas", found(text))
    assert (visa["country"], visa["entries"]) == ("CA", "multiple")


def test_a_relatives_passport_is_not_the_one_a_later_it_expires_completes() -> None:
    later = "It expires on 3 May 2027."
    assert (
        of("identity.passport.expiry_date", found(later, "My daughter needs a new passport.")) == []
    )
    mine = of("identity.passport.expiry_date", found(later, "My new passport finally arrived."))
    assert mine == [D(2027, 5, 3)]


# -- a year said first with the month named keeps its year ----------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "My passport is valid till 2031 August 30",
        "My passport expires 2031 Aug 30",
        "My passport expires 2031-Aug-30",
        "My passport expires 2031, August 30",
    ],
)
def test_a_year_first_date_with_a_month_name_keeps_its_year(text: str) -> None:
    assert of("identity.passport.expiry_date", found(text)) == [D(2031, 8, 30)]


def test_a_year_first_date_that_does_not_exist_is_no_date() -> None:
    assert of("identity.passport.expiry_date", found("My passport expires 2031 Feb 30")) == []
    # an amount before a month is no year: "£2031 Aug 30" is the next 30 August
    [day] = find_dates("paid £2031 Aug 30", D(2025, 6, 1))
    assert (day.text, day.date) == ("Aug 30", D(2025, 8, 30))
    [day] = find_dates("paid 2031 Aug 30", D(2025, 6, 1))
    assert (day.text, day.date) == ("2031 Aug 30", D(2031, 8, 30))


# -- the passport's country said beside it; "mine" after another's ---------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("My Irish passport number is PA1234567.", "IE"),
        ("my new German passport came today", "DE"),
        ("My passport (Brazil) expires 2031-05-02.", "BR"),
        ("My passport (Canadian) is in the safe.", "CA"),
    ],
)
def test_the_passports_country_said_beside_it(text: str, code: str) -> None:
    assert of("identity.passport.issuing_country", found(text)) == [code]


def test_someone_elses_passport_country_is_not_the_users() -> None:
    assert (
        of("identity.passport.issuing_country", found("My wife's French passport expires soon."))
        == []
    )


# -- a day taken back in the same breath -----------------------------------------------------


def test_a_passport_expiry_taken_back() -> None:
    cands = found("My passport expires 3 May 2029, sorry, 3 June 2029.")
    assert of("identity.passport.expiry_date", cands) == [D(2029, 6, 3)]
