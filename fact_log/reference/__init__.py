"""Versioned reference data (data/*.toml): drugs, foods, travel rules, loaded once and indexed.

One source for both sides: the checks judge with it and the extractor recognises drug and food
names with it, so the two can never disagree about what a word means.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from uac.fact_log.parsed_data import load_toml

DATA = Path(__file__).with_name("data")


def _read(name: str) -> dict[str, Any]:
    return load_toml(DATA / name)


def normalise(text: str) -> str:
    """Lower-case text with runs of non-alphanumerics (but '-') collapsed to one space."""
    return " " + re.sub(r"[^a-z0-9-]+", " ", text.lower()).strip() + " "


def mentions(text: str, word: str) -> bool:
    """Whether normalised text contains word (or phrase) as whole words."""
    return normalise(word) in text


@dataclass(frozen=True, slots=True)
class PassportRule:
    """How long a passport must be valid for one destination."""

    rule: str  # six_months_after_arrival | three_months_after_departure | stay
    days: int
    source: str


@dataclass(frozen=True, slots=True)
class PassportData:
    """Passport validity rules by destination."""

    version: str
    by_country: dict[str, PassportRule]
    default: PassportRule
    free_movement: frozenset[str]
    free_movement_source: str


@functools.cache
def passport_data() -> PassportData:
    """Passport validity rules (data/passport_validity.toml)."""
    raw = _read("passport_validity.toml")
    by_country: dict[str, PassportRule] = {}
    for name, spec in raw["rules"].items():
        for country in spec["countries"]:
            by_country[country] = PassportRule(name, int(spec["days"]), spec["source"])
    default_name = raw["default_rule"]
    default_spec = raw["rules"][default_name]
    return PassportData(
        raw["version"],
        by_country,
        PassportRule(default_name, int(default_spec["days"]), default_spec["source"]),
        frozenset(raw["free_movement"]["countries"]),
        raw["free_movement"]["source"],
    )


@functools.cache
def visa_data() -> tuple[str, dict[tuple[str, str], tuple[str, str]]]:
    """(version, {(passport country, destination): (need, source)}) from data/visas.toml."""
    raw = _read("visas.toml")
    table: dict[tuple[str, str], tuple[str, str]] = {}
    for entry in raw["entry"]:
        for dest, need in entry["need"].items():
            table[(entry["passport"], dest)] = (need, entry["source"])
    return raw["version"], table


@dataclass(frozen=True, slots=True)
class DrugData:
    """Drug classes, aliases, cross-reactivity and interaction pairs."""

    version: str
    classes: dict[str, dict[str, Any]]
    member_class: dict[str, str]  # generic name → class
    class_names: dict[str, str]  # a word naming a class (penicillin, sulfa) → class
    aliases: dict[str, tuple[str, ...]]  # brand or combination product → its generic(s)
    cross: list[dict[str, Any]]
    pairs: list[dict[str, Any]]
    others: frozenset[str] = frozenset()  # drug names without class data (recognition only)
    # {normalised name: ((rank, -length), what it names)}: built by drug_data()
    index: dict[str, tuple[tuple[int, int], list[tuple[str, frozenset[str]]]]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def _classes_of(self, generic: str) -> frozenset[str]:
        return (
            frozenset({self.member_class[generic]}) if generic in self.member_class else frozenset()
        )

    def components(self, text: str) -> list[tuple[str, frozenset[str]]]:
        """Every (generic drug or class word, classes) a medication/allergy text names: one for
        a single drug, each ingredient of a combination product ("co-codamol"), [] if none.

        An alias wins over a class member, a member over a class word, a class word over an
        other name; within one kind the longest name ("tylenol with codeine" over "tylenol",
        "penicillin v" over "penicillin")."""
        index = self.index
        words = normalise(text).split()
        best: tuple[tuple[int, int], list[tuple[str, frozenset[str]]]] | None = None
        for n in range(1, _LONGEST_NAME + 1):  # every run of up to the longest name's words
            for at in range(len(words) - n + 1):
                hit = index.get(" ".join(words[at : at + n]))
                if hit is not None and (best is None or hit[0] < best[0]):
                    best = hit
        return list(best[1]) if best else []

    def identify(self, text: str) -> tuple[str, frozenset[str]] | None:
        """(generic drug or class word, classes) a medication/allergy text names first, or None."""
        found = self.components(text)
        return found[0] if found else None


_LONGEST_NAME = 6  # words in the longest drug name or alias ("advil cold and sinus")


def _name_index(
    data: DrugData,
) -> dict[str, tuple[tuple[int, int], list[tuple[str, frozenset[str]]]]]:
    """Every name DrugData knows, normalised, with its rank (alias, member, class word, other)
    and what it names."""
    kinds = (
        ((a, [(g, data._classes_of(g)) for g in gs]) for a, gs in data.aliases.items()),
        ((m, [(m, data._classes_of(m))]) for m in data.member_class),
        ((w, [(w, frozenset({c}))]) for w, c in data.class_names.items()),
        ((o, [(o, frozenset())]) for o in sorted(data.others)),
    )
    index = {}
    for rank, names in enumerate(kinds):
        for name, what in names:
            key = normalise(name).strip()
            if len(key.split()) > _LONGEST_NAME:
                raise ValueError(f"drug name {name!r} is longer than {_LONGEST_NAME} words")
            index.setdefault(key, ((rank, -len(name)), what))
    return index


@functools.cache
def drug_data() -> DrugData:
    """Drug reference data (data/drugs.toml and data/interactions.toml)."""
    raw = _read("drugs.toml")
    inter = _read("interactions.toml")
    member_class: dict[str, str] = {}
    class_names: dict[str, str] = {}
    for cls, spec in raw["classes"].items():
        for member in spec["members"]:
            member_class[member] = cls
        for word in spec["names"]:
            class_names[word] = cls
    data = DrugData(
        raw["version"],
        raw["classes"],
        member_class,
        class_names,
        {
            name: (generic,) if isinstance(generic, str) else tuple(generic)
            for name, generic in raw["aliases"].items()
        },
        raw.get("cross_reactivity", []),
        inter["pair"],
        frozenset(raw.get("vocabulary", {}).get("others", [])),
    )
    # built before the data is handed out: no reader (of any thread) ever fills it
    data.index.update(_name_index(data))
    return data


@functools.cache
def food_data() -> tuple[str, str, dict[str, dict[str, list[str]]]]:
    """(version, source, allergens) from data/foods.toml."""
    raw = _read("foods.toml")
    return raw["version"], raw["source"], raw["allergens"]


@functools.cache
def _country_names() -> dict[str, str]:
    return dict(_read("countries.toml")["names"])


def country_name(code: str | None) -> str:
    """A country's English name for an ISO 3166-1 alpha-2 code (the code if unknown)."""
    if not code:
        return "an unknown country"
    return _country_names().get(code, code)


@functools.cache
def travel_rules() -> dict[str, Any]:
    """Stay limits, transit, blank pages and health certificates (data/travel_rules.toml)."""
    return _read("travel_rules.toml")


@functools.cache
def health_rules() -> dict[str, Any]:
    """Food/supplement interactions, pregnancy, activities, dosing (data/health_rules.toml)."""
    return _read("health_rules.toml")


@functools.cache
def vaccine_words() -> dict[str, tuple[str, ...]]:
    """{vaccine name: the words that name it} from health_rules.toml's [[vaccine]] table."""
    return {v["name"]: (v["name"], *v["words"]) for v in health_rules()["vaccine"]}


@functools.cache
def places() -> dict[str, dict[str, str]]:
    """{"countries" | "cities" | "nationalities": {lower-case name: ISO code}} (places.toml)."""
    raw = _read("places.toml")
    return {k: dict(raw[k]) for k in ("countries", "cities", "nationalities")}


@functools.cache
def vocabulary() -> dict[str, Any]:
    """The word lists the rule extractor reads values with (data/vocabulary.toml), by table:
    what people say -> the value recorded, in the order written."""
    return _read("vocabulary.toml")
