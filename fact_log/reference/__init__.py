"""Versioned reference data (data/*.toml): drugs, foods, travel rules, loaded once and indexed.

One source for both sides: the checks judge with it and the extractor recognises drug and food
names with it, so the two can never disagree about what a word means.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("data")


def _read(name: str) -> dict[str, Any]:
    with (DATA / name).open("rb") as fh:
        return tomllib.load(fh)


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

    def _classes_of(self, generic: str) -> frozenset[str]:
        return (
            frozenset({self.member_class[generic]}) if generic in self.member_class else frozenset()
        )

    def components(self, text: str) -> list[tuple[str, frozenset[str]]]:
        """Every (generic drug or class word, classes) a medication/allergy text names: one for
        a single drug, each ingredient of a combination product ("co-codamol"), [] if none."""
        norm = normalise(text)
        # Longest first so "tylenol with codeine" wins over "tylenol".
        for alias in sorted(self.aliases, key=len, reverse=True):
            if mentions(norm, alias):
                return [(g, self._classes_of(g)) for g in self.aliases[alias]]
        # Longest first so "penicillin v" wins over "penicillin".
        for member in sorted(self.member_class, key=len, reverse=True):
            if mentions(norm, member):
                return [(member, self._classes_of(member))]
        for word in sorted(self.class_names, key=len, reverse=True):
            if mentions(norm, word):
                return [(word, frozenset({self.class_names[word]}))]
        for other in sorted(self.others, key=len, reverse=True):
            if mentions(norm, other):
                return [(other, frozenset())]
        return []

    def identify(self, text: str) -> tuple[str, frozenset[str]] | None:
        """(generic drug or class word, classes) a medication/allergy text names first, or None."""
        found = self.components(text)
        return found[0] if found else None


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
    return DrugData(
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
