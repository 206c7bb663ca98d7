"""Health checks: drugs against allergies, drugs, foods, supplements, pregnancy, activities,
body weight, and a supply that runs out (before or during a trip).

Reference data: fact_log/reference/data/{drugs,interactions,foods,health_rules}.toml. They
prompt a question to a pharmacist or doctor; none of them is medical advice.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

from uac.checks.library.common import (
    cap,
    days,
    draft,
    records,
    to_confirm,
    trip_end,
    trip_label,
    upcoming_trips,
)
from uac.checks.library.occurrences import first_between, repeats, user_zone
from uac.checks.model import AlertDraft, CheckConfig
from uac.fact_log.reference import drug_data, food_data, health_rules, mentions, normalise

ASK = "Ask a pharmacist or the prescriber before the next dose; do not stop a prescribed drug "
ASK += "without advice."


def current_meds(user: Any, today: dt.date) -> list[Any]:
    """Medications not stopped before today (planned ones, with a future start, count)."""
    return [m for m in records(user, "medications") if m.stop_date is None or m.stop_date >= today]


def _current(recs: Any, today: dt.date) -> list[Any]:
    return [r for r in recs if (getattr(r, "stop_date", None) or dt.date.max) >= today]


def _active_conditions(user: Any, today: dt.date, config: CheckConfig) -> list[Any]:
    """Conditions not resolved and not past their expected end (a pregnancy's due date)
    by more than the grace the config allows."""
    grace = dt.timedelta(days=config.condition_end_grace_days)
    return [
        c
        for c in records(user, "conditions")
        if getattr(c, "status", None) != "resolved"
        and ((end := getattr(c, "expected_end", None)) is None or end + grace >= today)
    ]


def _names_drug(med: Any, drugs: list[str], classes: list[str]) -> str | None:
    """The drug (or class) of a rule a medication is, or None."""
    norm = normalise(med.name)
    found = drug_data().components(med.name)  # each ingredient of a combination product
    for d in drugs:
        if mentions(norm, d) or any(generic == d for generic, _ in found):
            return d
    for _, found_classes in found:
        if set(classes) & found_classes:
            return next(iter(set(classes) & found_classes)).replace("_", " ")
    return None


def _ingredients(meds: list[Any]) -> list[tuple[Any, str, frozenset[str], str]]:
    """(medication, generic, classes, how to say it) for each ingredient of each medication:
    a combination product ("co-codamol") gives one row per drug it contains."""
    out = []
    for med in meds:
        found = drug_data().components(med.name)
        for drug, classes in found:
            what = med.name if len(found) == 1 else f"{med.name} contains {drug}, which"
            out.append((med, drug, classes, what))
    return out


def drug_allergy(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Current medications that are, or cross-react with, something the user is allergic to."""
    data = drug_data()
    allergies = []
    for allergy in records(user, "allergies"):
        found = data.identify(allergy.substance)
        if found is not None:
            allergies.append((allergy, found[0], found[1]))
    out: list[AlertDraft] = []
    if not allergies:
        return out
    seen: set[tuple[str, str]] = set()  # one alert per medication and allergy
    for med, drug, classes, what in _ingredients(current_meds(user, today)):
        for allergy, named, allergy_classes in allergies:
            ids = med.fact_ids + allergy.fact_ids
            keys = (med.key, allergy.key)
            reaction = f" ({allergy.reaction})" if allergy.reaction else ""
            if keys in seen:
                continue
            if drug == named and not classes:  # a drug of no known class, named in both
                seen.add(keys)
                out.append(
                    draft(
                        "drug_allergy",
                        "critical",
                        f"{med.name} contains {drug} and you are allergic to "
                        f"{allergy.substance}{reaction}.",
                        why="Taking a drug you are allergic to can cause the same reaction again.",
                        next_step=f"Do not take {med.name}; tell the prescriber about the "
                        f"{allergy.substance} allergy and ask for an alternative.",
                        computation=f"'{med.name}' → {drug}; allergy '{allergy.substance}' → "
                        f"{named} ({data.version})",
                        keys=keys,
                        fact_ids=ids,
                    )
                )
                continue
            if classes & allergy_classes:
                seen.add(keys)
                cls = next(iter(classes & allergy_classes))
                out.append(
                    draft(
                        "drug_allergy",
                        "critical",
                        f"{what} belongs to the {cls} class and you are allergic to "
                        f"{allergy.substance}{reaction}.",
                        why="An allergy to one drug of a class usually means the whole class.",
                        next_step=f"Do not take {med.name}; tell the prescriber about the "
                        f"{allergy.substance} allergy and ask for an alternative.",
                        computation=f"{drug} ∈ {cls}; allergy '{allergy.substance}' → {named} ∈ "
                        f"{cls} ({data.classes[cls]['source']})",
                        keys=keys,
                        fact_ids=ids,
                    )
                )
                continue
            for rule in data.cross:
                if rule["drug_class"] in classes and rule["allergy_class"] in allergy_classes:
                    seen.add(keys)
                    severity = rule["severity"]
                    if allergy.severity == "anaphylaxis":
                        severity = "critical"  # the source advises avoiding it entirely
                    out.append(
                        draft(
                            "drug_allergy",
                            severity,
                            f"{med.name} ({rule['drug_class']}) may cross-react with your "
                            f"{allergy.substance} allergy.",
                            why=f"{rule['note']}.",
                            next_step=f"Check with the prescriber that {med.name} is safe given "
                            f"the {allergy.substance} allergy{reaction}.",
                            computation=f"{drug} ∈ {rule['drug_class']}; allergy → "
                            f"{rule['allergy_class']}; {rule['note']} ({rule['source']})",
                            keys=keys,
                            fact_ids=ids,
                        )
                    )
    return out


def _span(med: Any) -> tuple[dt.date, dt.date]:
    return (med.start_date or dt.date.min, med.stop_date or dt.date.max)


def _matches(term: str, drug: str, classes: frozenset[str]) -> bool:
    return term == drug or term in classes


def drug_interaction(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Pairs of medications taken at the same time that interact dangerously."""
    data = drug_data()
    meds = [
        (med, drug, classes) for med, drug, classes, _ in _ingredients(current_meds(user, today))
    ]
    out: list[AlertDraft] = []
    done: set[tuple[str, ...]] = set()  # one alert per pair of medications
    for i, (a, drug_a, cls_a) in enumerate(meds):
        for b, drug_b, cls_b in meds[i + 1 :]:
            if a is b:
                continue  # the ingredients of one combination product
            start = max(_span(a)[0], _span(b)[0])
            end = min(_span(a)[1], _span(b)[1])
            if start > end or end < today or tuple(sorted((a.key, b.key))) in done:
                continue  # never taken together from today on, or already alerted
            for pair in data.pairs:
                hit = (
                    _matches(pair["a"], drug_a, cls_a) and _matches(pair["b"], drug_b, cls_b)
                ) or (_matches(pair["a"], drug_b, cls_b) and _matches(pair["b"], drug_a, cls_a))
                if not hit:
                    continue
                overlap = f"{'…' if start == dt.date.min else start} to " + (
                    "ongoing" if end == dt.date.max else str(end)
                )
                out.append(
                    draft(
                        "drug_interaction",
                        pair["severity"],
                        f"Interaction: {a.name} and {b.name} taken together: {pair['effect']}.",
                        why=f"Together they carry a {pair['effect']}; the effect is serious.",
                        next_step=ASK,
                        computation=f"{drug_a} + {drug_b} ({pair['a']} × {pair['b']}) overlap "
                        f"{overlap} ({pair['source']})",
                        keys=tuple(sorted((a.key, b.key))),
                        fact_ids=a.fact_ids + b.fact_ids,
                    )
                )
                done.add(tuple(sorted((a.key, b.key))))
                break
    return out


def _upcoming_events(user: Any, today: dt.date, config: CheckConfig) -> list[tuple[Any, dt.date]]:
    """(event, the day of its next occurrence from today) of each event still to come: a
    series that started long ago is upcoming on its next day (checks/library/occurrences.py)."""
    zone, horizon = user_zone(user), today + dt.timedelta(days=366)
    out = []
    for event in records(user, "events"):
        hit = first_between(event, today, horizon if repeats(event) else dt.date.max, config, zone)
        if hit is not None:
            out.append((event, hit.day))
    return out


def _allergens(user: Any) -> list[tuple[Any, str, list[str]]]:
    _, _, allergens = food_data()
    out = []
    for allergy in records(user, "allergies"):
        norm = normalise(allergy.substance)
        for name, spec in allergens.items():
            if any(mentions(norm, word) for word in spec["names"]):
                out.append((allergy, name, spec["signals"]))
    return out


def food_allergy(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming meal events or recent orders whose words reveal a food the user is allergic to."""
    found = _allergens(user)
    if not found:
        return []
    items: list[tuple[Any, str, str]] = []
    for event, day in _upcoming_events(user, today, config):
        text = " ".join(filter(None, (event.title, event.location)))
        where = f" at {event.location}" if event.location else ""
        items.append((event, text, f"event '{event.title}'{where} on {day}"))
    since = today - dt.timedelta(days=config.food_lookback_days)
    for tx in records(user, "transactions"):
        if tx.date >= since:
            text = " ".join(filter(None, (tx.merchant, tx.note)))
            items.append((tx, text, f"order at {tx.merchant} on {tx.date}"))
    out = []
    for record, text, label in items:
        norm = normalise(text)
        for allergy, allergen, signals in found:
            words = [w for w in signals if mentions(norm, w)]
            if not words:
                continue
            severe = allergy.severity in ("severe", "anaphylaxis")
            food = allergen.replace("_", " ")
            out.append(
                draft(
                    "food_allergy",
                    "critical" if severe else "warning",
                    f"The {label} may involve {food}, and you are allergic to {allergy.substance}.",
                    why=f"'{text}' suggests {food} on the menu; the reaction is "
                    f"{allergy.severity or 'of unknown severity'}.",
                    next_step="Tell the venue about the allergy beforehand and ask what is safe"
                    + ("; carry the adrenaline pen." if severe else "."),
                    computation=f"'{text}' mentions {', '.join(repr(w) for w in words)} → "
                    f"{allergen}; allergy '{allergy.substance}' (severity "
                    f"{allergy.severity or 'unknown'})",
                    keys=(record.key, allergy.key),
                    fact_ids=record.fact_ids + allergy.fact_ids,
                )
            )
    return out


def _intake_interactions(user: Any, today: dt.date, kind: str, check: str) -> list[AlertDraft]:
    """What the user eats, drinks or takes (health.intake) against their current medications."""
    intake = _current(records(user, "intake"), today)
    meds = current_meds(user, today)
    out = []
    for rule in health_rules()["intake"]:
        if rule["kind"] != kind:
            continue
        items = [i for i in intake if any(mentions(normalise(i.name), w) for w in rule["words"])]
        for item in items:
            for med in meds:
                drug = _names_drug(med, rule["drugs"], rule["classes"])
                if drug is None:
                    continue
                said = "" if normalise(item.name) == normalise(rule["name"]) else f" ({item.name})"
                out.append(
                    draft(
                        check,
                        rule["severity"],
                        f"Interaction: {rule['name']}{said} with {med.name}: it "
                        f"{rule['effect'].split(' (')[0]}.",
                        why=f"{cap(rule['name'])} with {drug} {rule['effect']}.",
                        next_step=f"Avoid {rule['name']} while taking {med.name}, or ask a "
                        "pharmacist whether it is safe in the amount you have.",
                        computation=f"'{item.name}' → {rule['name']}; '{med.name}' → {drug} "
                        f"({rule['source']})",
                        keys=(item.key, med.key),
                        fact_ids=item.fact_ids + med.fact_ids,
                    )
                )
    return out


def food_drug_interaction(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Food and drink the user regularly has (grapefruit, alcohol, ...) that a drug forbids."""
    return _intake_interactions(user, today, "food", "food_drug_interaction")


def supplement_drug_interaction(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Supplements (St John's wort, ginkgo, ...) that interact with a current medication."""
    return _intake_interactions(user, today, "supplement", "supplement_drug_interaction")


def pregnancy_contraindication(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Current medications to avoid in pregnancy, for a user who is pregnant."""
    spec = health_rules()["pregnancy"]
    pregnant = [
        c
        for c in _active_conditions(user, today, config)
        if any(mentions(normalise(c.name), w) for w in spec["condition_words"])
    ]
    if not pregnant:
        return []
    out = []
    for med in current_meds(user, today):
        for rule in spec["drug"]:
            drug = _names_drug(med, rule["drugs"], [])
            if drug is None:
                continue
            out.append(
                draft(
                    "pregnancy_contraindication",
                    rule["severity"],
                    f"{med.name} is not recommended in pregnancy, and you are pregnant.",
                    why=f"{cap(drug)}: {rule['why']}.",
                    next_step=f"Contact the prescriber or midwife about {med.name} today; ask "
                    "before stopping it.",
                    computation=f"condition '{pregnant[0].name}'; '{med.name}' → {drug} "
                    f"({spec['source']})",
                    keys=(med.key, pregnant[0].key),
                    fact_ids=med.fact_ids + pregnant[0].fact_ids,
                )
            )
            break
    return out


def _condition_of(name: str, words: list[str]) -> bool:
    """Whether a condition's name holds one of a rule's words, or a name of its family."""
    if any(w in name.lower() for w in words):
        return True
    text, families = normalise(name), health_rules()["condition_family"]
    return any(mentions(text, alias) for w in words for alias in families.get(w, ()))


def activity_vs_condition(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Upcoming activities (scuba, altitude, ...) that a recorded condition makes risky."""
    conditions = _active_conditions(user, today, config)
    if not conditions:
        return []
    out = []
    for event, day in _upcoming_events(user, today, config):
        text = normalise(" ".join(filter(None, (event.title, event.location))))
        for rule in health_rules()["activity"]:
            if not any(mentions(text, w) for w in rule["words"]):
                continue
            for cond in conditions:
                if not _condition_of(cond.name, rule["conditions"]):
                    continue
                out.append(
                    draft(
                        "activity_vs_condition",
                        rule["severity"],
                        f"{cap(rule['name'])} ('{event.title}' on {day}) "
                        f"with {cond.name}: a medical clearance is advised.",
                        why=f"{cap(rule['name'])} can be dangerous with {cond.name}.",
                        next_step=f"Ask a doctor (for diving: a diving medical referee) whether "
                        f"{rule['name']} is safe before {day}.",
                        computation=f"'{event.title}' → {rule['name']}; condition "
                        f"'{cond.name}' ({rule['source']})",
                        keys=(event.key, cond.key),
                        fact_ids=event.fact_ids + cond.fact_ids,
                    )
                )
    return out


_AMOUNT = re.compile(r"(\d+(?:\.\d+)?)\s*(mg|g|mcg|µg)\b", re.IGNORECASE)
# "2 x 500mg", "two 500mg tablets": how many of the amount are taken at once
_COUNT = re.compile(
    r"\b(\d|one|two|three|four)(?:\s*[x×]\s*|\s+)(?=\d+(?:\.\d+)?\s*(?:mg|g|mcg|µg)\b)", re.I
)
_COUNTS = {"one": 1, "two": 2, "three": 3, "four": 4}
# "30/500mg, two tablets four times a day": the count said after the amount
_COUNT_AFTER = re.compile(
    r"\s*,?\s*(\d|one|two|three|four)\s+(?:tablets?|capsules?|caps|pills)\b", re.I
)
_TIMES = {"once": 1, "twice": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# prescription shorthand: od (once), bd/bid (twice), tds/tid (three), qds/qid (four times) a day
_SHORT = {"od": 1, "bd": 2, "bid": 2, "tds": 3, "tid": 3, "qds": 4, "qid": 4}
_FREQ = re.compile(
    r"\b(once|twice|three|four|five|six|\d)(?:\s*(?:times|x|×))?\s+(?:(?:a|per)\s+day|daily)\b|"
    r"\bevery\s+(\d{1,2})\s+hours?\b|\b(daily|at night|at bedtime|in the morning)\b|"
    r"\b(od|bd|bid|tds|tid|qds|qid)\b",
    re.IGNORECASE,
)


def daily_mg(dose: str | None) -> Decimal | None:
    """Milligrams a day from a dose text ('1 g four times a day' → 4000), or None."""
    if not dose:
        return None
    amount, freq = _AMOUNT.search(dose), _FREQ.search(dose)
    if amount is None or freq is None:
        return None
    unit = amount[2].lower()
    mg = Decimal(amount[1]) * {"g": 1000, "mg": 1}.get(unit, Decimal("0.001"))
    count = _COUNT.search(dose)
    if count is None or count.end() != amount.start():
        count = _COUNT_AFTER.match(dose, amount.end())
    if count is not None:
        mg *= _COUNTS.get(count[1].lower()) or int(count[1])
    if freq[1]:
        word = freq[1].lower()
        per_day = Decimal(_TIMES.get(word) or int(word))
    elif freq[2]:
        per_day = Decimal(24) / Decimal(freq[2])
    elif freq[4]:
        per_day = Decimal(_SHORT[freq[4].lower()])
    else:
        per_day = Decimal(1)
    return (mg * per_day).quantize(Decimal(1))


_STRENGTHS = re.compile(r"(\d+(?:\.\d+)?)\s*(?:mg)?\s*/\s*(\d+(?:\.\d+)?)\s*mg\b", re.I)


def _single_strength(med: Any) -> str | None:
    """A medication's dose text as the dose of its main drug: a combination product's
    strength is read from its "30/500" pair (the larger is the paracetamol; the codeine or
    the like is tens of mg). A lone number ("co-codamol 30mg") is kept as said: it can only
    understate the paracetamol, never raise an alert that is not due."""
    dose = getattr(med, "dose", None)
    if not dose or len(drug_data().components(med.name)) < 2:
        return dose
    pair = _STRENGTHS.search(dose)
    if pair is None:
        return dose
    larger = max(Decimal(pair[1]), Decimal(pair[2]))
    return dose[: pair.start()] + f"{larger}mg" + dose[pair.end() :]


def _limit(
    rule: dict[str, Any], mg: Decimal, weight: float | None
) -> tuple[str, Decimal, str] | None:
    """(severity, limit, how it is computed) of the first limit of a dosing rule a daily dose
    is above, ("info", ...) when only the unknown body weight could tell, or None."""
    if mg > rule["max_mg_day"]:
        return "critical", Decimal(rule["max_mg_day"]), f"{rule['max_mg_day']} mg a day"
    below = rule.get("below_kg")
    if below is not None:
        per_kg = rule["max_mg_per_kg_day"]
        if weight is None and mg > below * per_kg:
            return "info", Decimal(below * per_kg), f"{per_kg} mg/kg under {below} kg"
        if weight is not None and weight < below:
            limit = (Decimal(str(weight)) * per_kg).quantize(Decimal(1))
            if mg > limit:
                return "critical", limit, f"{per_kg} mg/kg × {weight:g} kg = {limit} mg a day"
    otc = rule.get("otc_max_mg_day")
    if otc is not None and mg > otc:
        return "warning", Decimal(otc), f"{otc} mg a day over the counter"
    return None


def dose_vs_weight(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Daily doses above a drug's maximum (health_rules.toml `[[dosing]]`): the adult
    maximum, the maximum for the user's body weight (paracetamol under 50 kg), or the
    over-the-counter maximum; summed over every medication that contains the drug
    (co-codamol and paracetamol).

    Without a recorded weight it asks for it once, when the dose is too high for some weights.
    """
    weighed = sorted(records(user, "body_weight"), key=lambda w: w.date)
    weight = weighed[-1].kg if weighed else None  # the latest measurement
    out = []
    meds = current_meds(user, today)
    for rule in health_rules()["dosing"]:
        taken = [
            (med, mg)
            for med in meds
            if _names_drug(med, rule["aliases"], []) is not None
            and (mg := daily_mg(_single_strength(med))) is not None
        ]
        if not taken:
            continue
        mg = sum((m for _, m in taken), Decimal(0))
        found = _limit(rule, mg, weight)
        if found is None:
            continue
        severity, limit, basis = found
        if severity == "info":
            out.append(
                to_confirm(
                    "dose_vs_weight",
                    "body_weight",
                    f"how much do you weigh? {mg} mg of {rule['drug']} a day is too "
                    f"much for someone under {rule['below_kg']} kg.",
                    f"The safe daily maximum of {rule['drug']} depends on body weight.",
                    tuple(i for med, _ in taken for i in med.fact_ids),
                )
            )
            continue
        weighs = weight is not None and "mg/kg" in basis
        # a critical dose names the weight it was judged at (as it always did), an OTC one not
        at = f" at {weight:g} kg" if weight is not None and severity == "critical" else ""
        kind = " over-the-counter" if severity == "warning" else ""
        said = " + ".join(f"{med.name} {med.dose}" for med, _ in taken)
        if len(taken) == 1:
            message = f"{said} is {mg} mg a day, above the {limit} mg{kind} maximum{at}."
        else:  # "co-codamol ... + paracetamol ...": one drug from several products
            message = f"{said} together are {mg} mg of {rule['drug']} a day, above the {limit} "
            message += f"mg{kind} maximum{at}."
        if severity == "warning":
            why = (
                f"More than {limit} mg of {rule['drug']} a day is only safe when a prescriber "
                "chose the dose and watches for side effects."
            )
            step = (
                f"Check the dose with the prescriber or a pharmacist; without a prescription "
                f"keep to {limit} mg a day."
            )
        else:
            harm = "damage the liver" if rule["drug"] == "paracetamol" else "cause serious harm"
            why = f"Too much {rule['drug']}{' for your body weight' if weighs else ''} can {harm}."
            step = f"Lower the dose to at most {limit} mg a day and check it with a pharmacist."
        out.append(
            draft(
                "dose_vs_weight",
                severity,
                message,
                why=why,
                next_step=step,
                computation=" + ".join(f"{med.dose} → {m}" for med, m in taken)
                + ("" if len(taken) == 1 else f" = {mg}")
                + f" mg/day > {basis} ({rule['source']})",
                keys=tuple(med.key for med, _ in taken),
                fact_ids=tuple(i for med, _ in taken for i in med.fact_ids)
                + (weighed[-1].fact_ids if weighed else ()),
            )
        )
    return out


def duplicate_drug_class(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Two different drugs of one class (two NSAIDs) taken at the same time
    (health_rules.toml `[[duplicate_class]]`); the same drug in two products is a dose,
    summed by dose_vs_weight."""
    rows = _ingredients(current_meds(user, today))
    out = []
    for rule in health_rules()["duplicate_class"]:
        cls = rule["drug_class"]
        members = [(med, drug) for med, drug, classes, _ in rows if cls in classes]
        done: set[tuple[str, str]] = set()
        for i, (a, drug_a) in enumerate(members):
            for b, drug_b in members[i + 1 :]:
                keys = tuple(sorted((a.key, b.key)))
                if a is b or drug_a == drug_b or keys in done:
                    continue
                start = max(_span(a)[0], _span(b)[0], today)
                if start > min(_span(a)[1], _span(b)[1]):
                    continue  # never taken together from today on
                done.add(keys)
                out.append(
                    draft(
                        "duplicate_drug_class",
                        rule["severity"],
                        f"Two {rule['label']} at once: {a.name} ({drug_a}) and {b.name} "
                        f"({drug_b}).",
                        why=f"Taken together, {rule['effect']}.",
                        next_step=f"Take only one of {a.name} and {b.name}, or ask a pharmacist "
                        "or the prescriber whether both are meant.",
                        computation=f"{drug_a} ∈ {cls}, {drug_b} ∈ {cls}, both current from "
                        f"{start} ({rule['source']})",
                        keys=keys,
                        fact_ids=a.fact_ids + b.fact_ids,
                    )
                )
    return out


def medication_runs_out(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """A medication supply that ends soon, or before or during an upcoming trip (compound)."""
    out = []
    trips = upcoming_trips(user, today)
    for med in current_meds(user, today):
        until = getattr(med, "supply_until", None)
        if until is None or (med.stop_date is not None and med.stop_date <= until):
            continue
        clash = [t for t in trips if until < trip_end(t)]
        for trip in clash:
            if until < trip.depart:
                when = f"before {trip_label(trip)}"
            else:
                when = f"while you are away on {trip_label(trip)}"
            out.append(
                draft(
                    "medication_runs_out",
                    "critical" if until >= trip.depart else "warning",
                    f"Your {med.name} runs out on {until}, {when}.",
                    why="Abroad a refill may need a local prescription, or not be possible.",
                    next_step=f"Order a repeat prescription of {med.name} now, enough to last "
                    f"until {trip_end(trip)} plus a few spare days.",
                    computation=f"supply until {until} < trip end {trip_end(trip)} "
                    f"(depart {trip.depart})",
                    keys=(med.key, trip.key),
                    fact_ids=med.fact_ids + trip.fact_ids,
                )
            )
        left = (until - today).days
        if clash or left > config.supply_days:
            continue
        out.append(
            draft(
                "medication_runs_out",
                "warning",
                f"Your {med.name} runs out on {until}"
                + (f", in {days(left)}." if left >= 0 else ": the supply has run out."),
                why="Missing doses can make the condition it treats come back.",
                next_step=f"Order a repeat prescription of {med.name} today.",
                computation=f"{until} − {today} = {days(left)} ≤ {config.supply_days}-day window",
                keys=(med.key, "supply"),
                fact_ids=med.fact_ids,
            )
        )
    return out
