"""Checks on travel documents: expiry, passport validity, visas (window, single entry,
transit), blank pages, and the name on a booking against the passport.

Reference data: fact_log/reference/data/{passport_validity,visas,travel_rules}.toml.
"""

from __future__ import annotations

import datetime as dt
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from anyascii import anyascii

from uac.checks.library.common import (
    attr,
    cap,
    days,
    draft,
    home_country,
    records,
    to_confirm,
    trip_end,
    trip_label,
    upcoming_trips,
    where,
)
from uac.checks.model import AlertDraft, CheckConfig
from uac.fact_log.reference import (
    country_name,
    normalise,
    passport_data,
    travel_rules,
    visa_data,
)


def _latest(recs: Iterable[Any], kind: Callable[[Any], str]) -> list[Any]:
    """Records with an end date that no later record of the same kind replaces (a renewal)."""
    last: dict[str, Any] = {}
    for rec in recs:
        if rec.valid_until is not None:
            k = kind(rec)
            if k not in last or (rec.valid_until, rec.key) > (last[k].valid_until, last[k].key):
                last[k] = rec
    return [last[k] for k in sorted(last)]


_AUTHORISATIONS = (
    "visa",
    "evisa",
    "esta",
    "eta",
    "etias",
    "authorisation",
    "authorization",
    "permit",
)


def _visa_kind(kind: str | None) -> str:
    """What to call a visa record: its kind, said as a visa when the kind alone does not say
    what it is ("tourist", "H-1B" -> "tourist visa", "H-1B visa"; "ESTA" stays)."""
    if not kind:
        return "visa"
    words = normalise(kind).split()
    return kind if any(w in _AUTHORISATIONS for w in words) else f"{kind} visa"


def document_expiry(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Passport, driving licence, visas and insurance that expired or expire within the window.

    A visa or policy renewed by a later one of the same kind (visa: country; policy: kind and
    insurer) no longer counts.
    """
    docs: list[tuple[str, str, dt.date, tuple[str, ...], tuple[str, ...]]] = []
    for name, label in (("passport", "passport"), ("driver_licence", "driving licence")):
        expiry = attr(user, name, "expiry_date")
        if expiry is not None:
            docs.append((name, label, expiry, (), (f"user.{name}.expiry_date",)))
    for visa in _latest(records(user, "visas"), lambda v: v.country):
        label = f"{_visa_kind(visa.kind)} for {country_name(visa.country)}"
        docs.append((f"visa:{visa.key}", label, visa.valid_until, visa.fact_ids, ()))
    policies = records(user, "insurance_policies")
    for policy in _latest(policies, lambda p: f"{p.kind}|{normalise(p.provider or '')}"):
        label = f"{policy.kind} insurance" + (f" with {policy.provider}" if policy.provider else "")
        docs.append((f"insurance:{policy.key}", label, policy.valid_until, policy.fact_ids, ()))
    out = []
    for key, label, expiry, fact_ids, paths in docs:
        left = (expiry - today).days
        if left < 0:
            stage, severity = "expired", "critical"
            message = f"Your {label} expired on {expiry.isoformat()}."
            comp = f"{expiry} − {today} = {days(left)} (< 0: expired)"
        elif left <= config.document_expiry_days:
            stage, severity = "expiring", "warning"
            message = f"Your {label} expires on {expiry.isoformat()}, in {days(left)}."
            comp = f"{expiry} − {today} = {days(left)} ≤ {config.document_expiry_days}-day window"
        else:
            continue
        out.append(
            draft(
                "document_expiry",
                severity,
                message,
                why=f"An expired {label} cannot be used: travel, driving or a claim may be "
                "refused.",
                next_step=f"Renew the {label} now; renewals can take weeks.",
                computation=comp,
                keys=(key, stage),
                fact_ids=fact_ids,
                paths=paths,
            )
        )
    return out


def _abroad(user: Any, trip: Any, home: str | None) -> bool:
    """Whether a trip crosses a border that checks passports."""
    data = passport_data()
    if trip.country == home:
        return False  # domestic: no passport needed
    return not (home in data.free_movement and trip.country in data.free_movement)


def passport_validity_for_trip(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming trips for which the passport will not be valid long enough on entry."""
    data = passport_data()
    expiry = attr(user, "passport", "expiry_date")
    home = home_country(user)
    if expiry is None:
        return []  # nothing to compare; document_expiry and the manifest show the gap
    out = []
    for trip in upcoming_trips(user, today):
        if not _abroad(user, trip, home):
            continue
        rule = data.by_country.get(trip.country, data.default)
        if rule.rule == "three_months_after_departure":
            anchor, anchor_name = trip_end(trip), "departure from the area"
        elif rule.rule == "six_months_after_arrival":
            anchor, anchor_name = trip.depart, "arrival"
        else:
            anchor, anchor_name = trip_end(trip), "end of stay"
        margin = (expiry - anchor).days
        if margin >= rule.days:
            continue
        if rule.days:
            need = f"{rule.days} required after {anchor_name} ({rule.rule}; {rule.source})"
            rule_words = f"{country_name(trip.country)} requires {days(rule.days)} of validity"
        else:
            need = f"valid until {anchor_name} required ({rule.source})"
            rule_words = f"{country_name(trip.country)} requires it valid for the whole stay"
        out.append(
            draft(
                "passport_validity_for_trip",
                "critical",
                f"Your passport (expires {expiry}) is not valid long enough for "
                f"{trip_label(trip)}.",
                why=f"{rule_words} after {anchor_name}; the airline or border may refuse you.",
                next_step="Renew the passport before the trip (check the fast-track service).",
                computation=f"{expiry} − {anchor} = {days(margin)} < {need}",
                keys=("passport", trip.key),
                fact_ids=trip.fact_ids,
                paths=("user.passport.expiry_date",),
            )
        )
    return out


def _covering(user: Any, country: str, start: dt.date, end: dt.date) -> list[Any]:
    return [
        v
        for v in records(user, "visas")
        if v.country == country
        and (v.valid_from is None or v.valid_from <= start)
        and (v.valid_until is None or v.valid_until >= end)
    ]


_NEED_WORDS = {"visa": "a visa", "eta": "an electronic travel authorisation (ETA, e.g. ESTA)"}


def visa_for_trip(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming trips to countries that need a visa or ETA the user does not hold.

    Without a nationality (or passport country) no rule can apply: the check asks for it once.
    """
    _, table = visa_data()
    home = home_country(user)
    trips = upcoming_trips(user, today)
    if home is None:
        if not trips:
            return []
        first = min(trips, key=lambda t: t.depart)
        return [
            to_confirm(
                "visa_for_trip",
                "nationality",
                f"which passport will you travel on to {where(first)}? Your nationality is not "
                "recorded, so visa and entry rules cannot be checked.",
                f"Visa, ETA and transit rules for {trip_label(first)} depend on the passport.",
                first.fact_ids,
            )
        ]
    out = []
    for trip in trips:
        need, source = table.get((home, trip.country), ("none", ""))
        if need not in ("visa", "eta"):
            continue
        end = trip_end(trip)
        if _covering(user, trip.country, trip.depart, end):
            continue
        partial = [v for v in records(user, "visas") if v.country == trip.country]
        label = _NEED_WORDS[need]
        country = country_name(trip.country)
        if partial:
            held = "; ".join(f"{v.valid_from or '…'} to {v.valid_until or '…'}" for v in partial)
            comp = f"held for {trip.country}: {held}; trip needs {trip.depart} to {end}"
            last = max((v.valid_until for v in partial if v.valid_until), default=None)
            message = (
                f"Your visa for {country} ends on {last}, before you return from {where(trip)} "
                f"on {end}: it does not cover the whole trip."
                if last is not None and last < end
                else f"Your visa for {country} does not cover {trip_label(trip)}."
            )
        else:
            comp = f"{home} passport → {trip.country} needs {need} ({source}); none recorded"
            message = f"{cap(trip_label(trip))} needs {label}, and none is recorded."
        out.append(
            draft(
                "visa_for_trip",
                "critical" if need == "visa" else "warning",
                message,
                why=f"With a passport from {country_name(home)} you need {label} to enter "
                f"{country}; without it boarding is refused.",
                next_step=f"Apply for {label} for {country} covering {trip.depart} to {end} "
                "(official government site only), then record it.",
                computation=comp,
                keys=(trip.key, need),
                fact_ids=trip.fact_ids + tuple(f for v in partial for f in v.fact_ids),
                paths=("user.passport.issuing_country",),
            )
        )
    return out


def visa_single_entry(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """A single-entry visa that an earlier trip uses up, while a later trip counts on it."""
    trips = sorted(records(user, "trips"), key=lambda t: (t.depart, t.key))
    out = []
    for visa in records(user, "visas"):
        if (getattr(visa, "entries", None) or "") != "single":
            continue
        inside = [t for t in trips if t.country == visa.country and _within(visa, t)]
        for first, later in itertools.pairwise(inside):
            if trip_end(later) < today:
                continue
            others = [
                v
                for v in _covering(user, later.country, later.depart, trip_end(later))
                if v.key != visa.key and getattr(v, "entries", None) != "single"
            ]
            if others:
                continue
            country = country_name(visa.country)
            out.append(
                draft(
                    "visa_single_entry",
                    "critical",
                    f"Your single-entry visa for {country} (valid until {visa.valid_until}) is "
                    f"used by {trip_label(first)}, so it cannot cover {trip_label(later)}.",
                    why="A single-entry visa ends when you leave the country the first time; "
                    "re-entry on it is refused.",
                    next_step=f"Apply for a new (or multiple-entry) visa for {country} before "
                    f"{later.depart}, or change one of the trips.",
                    computation=f"entries = single; {first.depart} (first entry) < "
                    f"{later.depart} (second entry) ≤ {visa.valid_until}",
                    keys=(visa.key, later.key),
                    fact_ids=visa.fact_ids + first.fact_ids + later.fact_ids,
                )
            )
    return out


def _within(visa: Any, trip: Any) -> bool:
    return (visa.valid_from is None or visa.valid_from <= trip.depart) and (
        visa.valid_until is None or trip.depart <= visa.valid_until
    )


_CODE = re.compile(r"^[A-Z]{2}$")


def _via(trip: Any) -> list[tuple[str, str]]:
    """(country code, place as written) for each stop a trip changes planes or trains at."""
    out = []
    for stop in getattr(trip, "via", None) or ():
        if _CODE.match(stop):
            out.append((stop, country_name(stop)))
        elif (found := _lookup_place(stop)) is not None:
            out.append((found[1], stop))
    return out


def _lookup_place(text: str) -> Any:
    # The place gazetteer sits with the extractor's value parsers: loaded only when a trip
    # names a stop by place, so reads that import the check library never load the extractor.
    from uac.fact_log.extraction.values.places import lookup_place

    return lookup_place(text)


def transit_visa(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Connections through a country without airside transit that needs a visa or ETA."""
    rules = {r["country"]: r for r in travel_rules()["transit"]}
    _, table = visa_data()
    home = home_country(user)
    if home is None:
        return []  # visa_for_trip asks for the nationality once
    out = []
    for trip in upcoming_trips(user, today):
        for code, place in _via(trip):
            rule = rules.get(code)
            if rule is None or code == home:
                continue
            allowed = rule.get("nationalities") or []
            if allowed and home not in allowed:
                continue
            need, source = table.get((home, code), ("none", ""))
            if need not in ("visa", "eta") or _covering(user, code, trip.depart, trip_end(trip)):
                continue
            country = country_name(code)
            label = _NEED_WORDS[need]
            out.append(
                draft(
                    "transit_visa",
                    "critical" if need == "visa" else "warning",
                    f"{cap(trip_label(trip))} changes planes in {place} ({country}): "
                    f"transit there needs {label}, and none is recorded.",
                    why=f"{country} has no airside transit: every connecting passenger enters "
                    "the country and needs what entry needs.",
                    next_step=f"Get {label} for {country} before {trip.depart}, or rebook with "
                    "a connection elsewhere.",
                    computation=f"via {code}: {rule['source']}; {home} passport → {code} needs "
                    f"{need} ({source}); none recorded",
                    keys=(trip.key, code),
                    fact_ids=trip.fact_ids,
                    paths=("user.passport.issuing_country",),
                )
            )
    return out


def passport_blank_pages(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming trips to countries that need more blank passport pages than are left."""
    pages = attr(user, "passport", "blank_pages")
    if pages is None:
        return []
    rules = travel_rules()["blank_pages"]
    home = home_country(user)
    out = []
    for trip in upcoming_trips(user, today):
        if not _abroad(user, trip, home):
            continue
        spec = rules["countries"].get(trip.country)
        need = spec["pages"] if spec else rules["default"]
        if pages >= need:
            continue
        source = spec["source"] if spec else rules["source_default"]
        out.append(
            draft(
                "passport_blank_pages",
                "critical" if spec else "warning",
                f"Your passport has {pages} blank page{'s' if pages != 1 else ''} left; "
                f"{country_name(trip.country)} needs {need} blank page{'s' if need != 1 else ''} "
                f"for {trip_label(trip)}.",
                why="Without enough blank pages the airline or the border can refuse entry.",
                next_step=f"Renew the passport (or get one with more pages) before {trip.depart}.",
                computation=f"{pages} blank < {need} required ({source})",
                keys=("blank_pages", trip.key),
                fact_ids=trip.fact_ids,
                paths=("user.passport.blank_pages",),
            )
        )
    return out


_NAME_WORDS = re.compile(r"[\s,]+")
_NAME_MARKS = re.compile(r"[^\w]+")
_TITLES = frozenset(["mr", "mrs", "ms", "miss", "mx", "dr", "prof", "sir", "mstr", "master"])


# ICAO 9303 (machine-readable passports) may spell these letters out: Müller is MUELLER or
# MULLER on a ticket, Øster OESTER or OSTER; anyascii gives the other, plain form.
_ICAO_SPELLED = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "å": "aa", "ø": "oe"})


def _name_words(name: str) -> list[tuple[str, ...]]:
    """The words of a name as tickets write them, each in its plain and spelled-out Latin
    forms: accents dropped ('Sinéad' is 'sinead', 'Yıldız' 'yildiz', 'Straße' 'strasse'),
    hyphens and apostrophes too ('Ashworth-Blake' is one word, 'ashworthblake'), titles left
    out, and airline order ('SMITH/JOHN MR') put back to first name first."""
    composed = unicodedata.normalize("NFC", name).casefold()
    if composed.count("/") == 1:
        surname, given = composed.split("/")
        composed = f"{given} {surname}"
    words = []
    for word in _NAME_WORDS.split(composed)[:_MOST_WORDS]:
        # lower case after anyascii too: it capitalises syllables it spells out ("WangWei")
        spelled = (anyascii(w).casefold() for w in (word, word.translate(_ICAO_SPELLED)))
        forms = (_NAME_MARKS.sub("", w) for w in spelled)
        unique = tuple(dict.fromkeys(f for f in forms if f))
        if unique and unique[0] not in _TITLES:
            words.append(unique)
    return words


# No name has more words than this (a hostile one of thousands costs their square).
_MOST_WORDS = 12


def _latin(name: str) -> bool:
    """Whether every letter of a name is a Latin one (a ticket's is; a passport's may not be)."""
    return all(
        not ch.isalpha() or "LATIN" in unicodedata.name(ch, "")
        for ch in unicodedata.normalize("NFC", name)
    )


def _spellings(words: list[tuple[str, ...]]) -> set[str]:
    """Every way the words run together can be written, a form of each word at a time (the
    plain forms alone for a name of many spelled-out words: their number doubles with each)."""
    if len(words) > 8:
        words = [w[:1] for w in words]
    return {"".join(forms) for forms in itertools.product(*words)}


def _same_first_and_last(given: list[tuple[str, ...]], passport: list[tuple[str, ...]]) -> bool:
    """The ticket's name starts with the passport's first name and ends with its surname,
    middle names left out or not; a first name or surname split in two ('Jean Luc',
    'Ashworth Blake') still counts as itself; any word in either of its Latin forms."""
    if not passport or _spellings(given) & _spellings(passport):
        return True  # nothing on the passport to compare with, or the same name
    firsts = set().union(*(_spellings(given[:j]) for j in range(1, len(given))))
    lasts = set().union(*(_spellings(given[k:]) for k in range(1, len(given))))
    return bool(firsts.intersection(passport[0])) and bool(lasts.intersection(passport[-1]))


def booking_name_mismatch(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Travel bookings whose passenger name differs from the passport's (first or last name)."""
    full = attr(user, "passport", "full_name")
    if not full or not _latin(full):
        # "Дмитрий", "王伟": tickets spell such names by rules of each country (ICAO, pinyin,
        # ...); no one spelling to compare with, and a false "refused at boarding" costs more
        return []
    passport = _name_words(full)
    out = []
    for booking in records(user, "bookings"):
        name = getattr(booking, "traveller_name", None)
        start = getattr(booking, "start", None)
        if not name or getattr(booking, "kind", None) == "hotel":
            continue  # hotels check the card holder, not the passport
        if start is not None and start.date() < today:
            continue
        given = _name_words(name)
        if _same_first_and_last(given, passport):
            continue  # middle names may be left out
        what = f"{booking.kind or 'travel'} booking"
        if where := getattr(booking, "place", None) or getattr(booking, "destination", None):
            what += f" for {where}"
        if start is not None:
            what += f" on {start.date()}"
        out.append(
            draft(
                "booking_name_mismatch",
                "critical",
                f"Conflict: the {what} is under '{name}', but your passport says '{full}'.",
                why="Airlines and borders compare the ticket with the passport; a different "
                "first or last name can mean being refused at boarding.",
                next_step=f"Ask the airline or agent to correct the name to '{full}' "
                "(name corrections are often free if asked early).",
                computation=f"booking {[w[0] for w in given]} vs passport "
                f"{[w[0] for w in passport]}: first/last name differ",
                keys=(booking.key,),
                fact_ids=booking.fact_ids,
                paths=("user.passport.full_name",),
            )
        )
    return out
