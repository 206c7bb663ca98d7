"""The shared reference vocabularies (fact_log/reference/data/*.toml): brand names and
combination products resolve to their ingredients for the health checks and the extractor,
without turning ordinary words into drugs, places or foods."""

from __future__ import annotations

import datetime as dt
from types import SimpleNamespace
from typing import Any

from uac.checks.library import REGISTRY
from uac.checks.model import DEFAULT_CONFIG
from uac.fact_log.extraction.patterns import extract
from uac.fact_log.extraction.values.places import lookup_place
from uac.fact_log.reference import (
    country_name,
    drug_data,
    food_data,
    health_rules,
    places,
    vocabulary,
)

TODAY = dt.date(2025, 3, 1)
NOW = dt.datetime(2025, 3, 1, 10, 0)


def rec(key: str, **fields: Any) -> SimpleNamespace:
    return SimpleNamespace(key=key, fact_ids=(f"f_{key}",), **fields)


def med(name: str, dose: str | None = None) -> SimpleNamespace:
    return rec(name, name=name, dose=dose, start_date=None, stop_date=None, supply_until=None)


def user(**kw: Any) -> SimpleNamespace:
    return SimpleNamespace(**{k: tuple(v) for k, v in kw.items()})


def run(check: str, u: SimpleNamespace) -> list[Any]:
    return REGISTRY[check](u, TODAY, DEFAULT_CONFIG)


# -- drugs ---------------------------------------------------------------------------------


def test_every_alias_names_drugs_the_reference_data_knows() -> None:
    data = drug_data()
    known = set(data.member_class) | data.others
    unknown = sorted((a, g) for a, gs in data.aliases.items() for g in gs if g not in known)
    assert unknown == []
    # a brand is an alias, not also a bare "other" name, so it always resolves to its generic
    assert sorted(set(data.aliases) & data.others) == []


def test_combination_products_resolve_to_every_ingredient() -> None:
    data = drug_data()
    assert [g for g, _ in data.components("Co-codamol 30/500")] == ["paracetamol", "codeine"]
    assert [g for g, _ in data.components("Malarone")] == ["atovaquone", "proguanil"]
    assert [g for g, _ in data.components("Tylenol with codeine")] == ["paracetamol", "codeine"]
    # the old single-string form still reads as one generic with its class
    assert data.components("Augmentin 625mg") == [("co-amoxiclav", frozenset({"penicillins"}))]
    assert data.identify("Nurofen Plus") == ("ibuprofen", frozenset({"nsaids"}))


def test_co_codamol_and_paracetamol_on_the_same_day_exceed_the_daily_dose() -> None:
    both = [
        med("co-codamol", "30/500 mg four times a day"),
        med("paracetamol", "1 g four times a day"),
    ]
    weight = [rec("w", date=dt.date(2025, 1, 1), kg=70.0)]
    [alert] = run("dose_vs_weight", user(medications=both, body_weight=weight))
    assert alert.severity == "critical"
    assert "together are 6000 mg of paracetamol a day" in alert.message
    assert set(alert.fact_ids) == {"f_co-codamol", "f_paracetamol", "f_w"}
    # each alone stays within the 4 g adult maximum
    for one in both:
        assert run("dose_vs_weight", user(medications=[one], body_weight=weight)) == []


def test_a_combination_products_dose_is_its_paracetamol_with_the_tablets_taken() -> None:
    weight = [rec("w", date=dt.date(2025, 1, 1), kg=70.0)]
    # two 30/500 tablets four times a day is 4,000 mg; with 2 g of paracetamol, 6,000 mg
    both = [
        med("co-codamol", "30/500mg, two tablets four times a day"),
        med("paracetamol", "500 mg four times a day"),
    ]
    [alert] = run("dose_vs_weight", user(medications=both, body_weight=weight))
    assert "together are 6000 mg of paracetamol a day" in alert.message
    # "Tylenol with codeine 300mg/30mg": the larger of the pair is the paracetamol
    us = [med("Tylenol with codeine", "300mg/30mg, 2 tablets four times a day")]
    [b] = run("dose_vs_weight", user(medications=[*us, both[1]], body_weight=weight))
    assert "together are 4400 mg of paracetamol a day" in b.message


def test_a_penicillin_allergy_sees_a_brand_of_amoxicillin() -> None:
    allergy = rec("a", substance="penicillin", reaction="hives", severity=None)
    for brand in ("Amoxil 500mg", "Clamoxyl", "Augmentin"):
        [alert] = run("drug_allergy", user(allergies=[allergy], medications=[med(brand)]))
        assert alert.severity == "critical" and "penicillins" in alert.message


def test_an_allergy_to_one_ingredient_sees_the_combination() -> None:
    codeine = rec("a", substance="codeine", reaction=None, severity=None)
    [alert] = run("drug_allergy", user(allergies=[codeine], medications=[med("Solpadeine")]))
    assert "Solpadeine contains codeine" in alert.message
    para = rec("p", substance="paracetamol", reaction="rash", severity=None)
    [alert] = run("drug_allergy", user(allergies=[para], medications=[med("Lemsip Max")]))
    assert "Lemsip Max contains paracetamol" in alert.message


def test_an_isotretinoin_brand_in_pregnancy_alerts() -> None:
    pregnant = rec("p", name="pregnancy", status=None, expected_end=None)
    for brand in ("Roaccutane 20mg", "Accutane", "Epilim"):
        [alert] = run(
            "pregnancy_contraindication", user(conditions=[pregnant], medications=[med(brand)])
        )
        assert alert.severity == "critical"
    assert (
        run("pregnancy_contraindication", user(conditions=[], medications=[med("Accutane")])) == []
    )


def test_a_combination_interacts_through_its_ingredient() -> None:
    # codeine (an opioid) in co-codamol with an MAOI; the two ingredients never pair up
    both = [med("co-codamol"), med("phenelzine")]
    [alert] = run("drug_interaction", user(medications=both))
    assert "co-codamol" in alert.message and alert.severity == "critical"
    assert run("drug_interaction", user(medications=[med("Nurofen Plus")])) == []


def test_alcohol_by_name_with_metronidazole() -> None:
    intake = rec("i", name="a glass of prosecco", start_date=None, stop_date=None)
    [alert] = run("food_drug_interaction", user(intake=[intake], medications=[med("Flagyl")]))
    assert alert.severity == "critical"


def test_ordinary_chat_yields_no_medication() -> None:
    chat = (
        "Had a lovely weekend. We went to the market, bought bread, cheese and some iron-on "
        "patches for the kids' jeans. Ella and Yasmin came round for tea, then we watched the "
        "Concert for Peace on TV. I'm on the train now and running on coffee, honestly. My "
        "plan B is to work from the library on Monday. The cat is on a diet, and I'm on the "
        "fence about the new phone. Dad says Alli from next door is moving to Bristol."
    )
    meds = [c for c in extract(chat, NOW, "user") if c.path == "health.medications"]
    assert meds == []


def test_a_brand_said_in_conversation_is_learned() -> None:
    for text, name in (
        ("I just started co-codamol 30/500mg for my back.", "co-codamol"),
        ("The GP put me on Lyrica 75mg twice a day.", "lyrica"),
        ("I take Eltroxin 100mcg every morning.", "eltroxin"),
        ("I'm on Malarone for the trip.", "malarone"),
    ):
        found = extract(text, NOW, "user")
        meds = [c.value["name"] for c in found if c.path == "health.medications"]
        assert meds == [name], (text, meds)


# -- health rules: alcohol, condition families, pregnancy ------------------------------------


def test_spirits_and_wines_by_name_are_alcohol() -> None:
    words = {w for r in health_rules()["intake"] if r["name"] == "alcohol" for w in r["words"]}
    assert {"soju", "mezcal", "tequila", "lager", "merlot", "sangria"} <= words
    # a word that is mostly something else is not alcohol ("for goodness' sake", "port")
    assert not {"sake", "port", "bitter", "shots", "scotch"} & words
    for drink in ("soju most nights", "a couple of lagers", "mezcal"):
        intake = rec("i", name=drink, start_date=None, stop_date=None)
        [alert] = run("food_drug_interaction", user(intake=[intake], medications=[med("Flagyl")]))
        assert alert.severity == "critical"


def test_conditions_in_lay_words_meet_their_activity_rules() -> None:
    dive = rec("d", title="Scuba diving in Dahab", start=NOW, end=None, location=None)
    for condition in ("irregular heartbeat", "wheezy chest", "seizures", "blood sugar problems"):
        cond = rec("c", name=condition, status=None, expected_end=None)
        [alert] = run("activity_vs_condition", user(events=[dive], conditions=[cond]))
        assert condition in alert.message
    eczema = rec("c", name="eczema", status=None, expected_end=None)
    assert run("activity_vs_condition", user(events=[dive], conditions=[eczema])) == []


def test_a_pregnancy_said_by_its_trimester_sees_the_drug() -> None:
    cond = rec("p", name="second trimester", status=None, expected_end=None)
    [alert] = run(
        "pregnancy_contraindication", user(conditions=[cond], medications=[med("Topamax")])
    )
    assert alert.severity == "critical"


# -- places ---------------------------------------------------------------------------------


def test_capitals_resorts_regions_and_states_name_their_country() -> None:
    for name, code in (
        ("Tegucigalpa", "HN"),
        ("Zermatt", "CH"),
        ("Tuscany", "IT"),
        ("Kerala", "IN"),
        ("Koh Tao", "TH"),
        ("Queenstown", "NZ"),
        ("Texas", "US"),
        ("Playa del Carmen", "MX"),
        ("Cabo Verde", "CV"),
    ):
        found = lookup_place(name)
        assert found is not None and found[1] == code, (name, found)
    # every country a place names reads as a name in an alert
    assert country_name("HN") == "Honduras" and country_name("CV") == "Cabo Verde"


def test_words_and_first_names_are_not_places_or_peoples() -> None:
    nationalities = places()["nationalities"]
    for word in (
        "bath", "reading", "split", "mobile", "bled", "madras", "sucre", "savannah",
        "brooklyn", "virginia", "georgia", "chad", "charlotte", "kingston", "darwin",
        "chester", "lincoln", "medina", "kobe", "raleigh", "napier", "patagonia",
        "heathrow", "gatwick", "schiphol",
    ):  # fmt: skip
        assert lookup_place(word) is None, word
    for word in ("yank", "pom", "dane", "pole", "finn", "swede"):
        assert word not in nationalities, word


def test_informal_demonyms_and_a_new_destination_are_learned() -> None:
    for text, code in (("I'm a Kiwi, by the way.", "NZ"), ("We're Aussies, so all good.", "AU")):
        [c] = [c for c in extract(text, NOW, "user") if c.path == "identity.nationality"]
        assert c.value == code
    text = "I'm flying to Zermatt on 12 January 2026, back on the 19th."
    [trip] = [c for c in extract(text, NOW, "user") if c.path == "travel.trips"]
    assert trip.value["city"] == "Zermatt" and trip.value["country"] == "CH"


# -- foods ----------------------------------------------------------------------------------


def test_signal_dishes_reveal_their_allergen() -> None:
    for substance, title in (
        ("sesame", "Halva and baklava tasting"),
        ("fish", "Ceviche night"),
        ("gluten", "Seitan cooking class"),
        ("eggs", "Meringue workshop"),
        ("dairy", "Paneer masterclass"),
        ("salmon", "Sushi with Ana"),
        ("mustard", "Mustard tasting in Dijon"),
    ):
        allergy = rec("a", substance=substance, reaction=None, severity="severe")
        event = rec("e", title=title, location=None, start=NOW, end=None)
        [alert] = run("food_allergy", user(allergies=[allergy], events=[event], transactions=[]))
        assert alert.severity == "critical", (substance, title)
    names = {n for spec in food_data()[2].values() for n in spec["names"]}
    assert {"celery", "lupin", "sulphites", "macadamia", "salmon"} <= names


# -- the extractor's word lists ---------------------------------------------------------------


def test_word_lists_looked_up_by_lower_case_words_are_written_in_lower_case() -> None:
    # the rules look these up with the word said, lower-cased ("my Civic" -> "civic"): a key
    # written with a capital would never be found
    words = vocabulary()
    for table in ("vehicle_makes", "vehicle_models", "relation_inverses", "currency_words"):
        assert words[table], table
        assert [k for k in words[table] if k != k.lower()] == [], table
    assert [k for k in words["condition_adjectives"] if k != k.lower()] == []


def test_a_model_said_is_recorded_with_the_make_the_vocabulary_gives() -> None:
    assert vocabulary()["vehicle_models"]["civic"] == "Honda"
    found = extract("I drive a Honda Civic.", NOW)
    assert [(c.path, c.value) for c in found] == [
        ("vehicles.vehicles", {"make": "Honda", "model": "Civic"})
    ]
