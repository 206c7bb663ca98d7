"""Country, city and nationality names mapped to ISO 3166-1 alpha-2 codes.

The names live in the reference data (fact_log/reference/data/places.toml), the one list the
extractor and the checks share; this module only exposes them and looks a name up.
"""

from __future__ import annotations

import unicodedata

from uac.fact_log.reference import places

COUNTRIES: dict[str, str] = places()["countries"]
CITIES: dict[str, str] = places()["cities"]
NATIONALITIES: dict[str, str] = places()["nationalities"]


def lookup_place(name: str) -> tuple[str | None, str] | None:
    """(city or None, country code) for a place name, or None when it is not known."""
    key = " ".join(name.split()).casefold()
    if key in CITIES:
        return name.strip(), CITIES[key]
    if key in COUNTRIES:
        return None, COUNTRIES[key]
    if not key.isascii() and (plain := fold(key)) != key:
        found = lookup_place(plain)  # "Gdańsk", "Kraków", "Malmö" as the table spells them
        return (name.strip(), found[1]) if found is not None and found[0] else found
    return None


_UNDECOMPOSED = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ß": "ss", "ı": "i"})


def fold(text: str) -> str:
    """The name without its accents ("gdańsk" -> "gdansk")."""
    bare = unicodedata.normalize("NFKD", text.translate(_UNDECOMPOSED))
    return "".join(ch for ch in bare if not unicodedata.combining(ch))
