"""The deterministic pattern extractor: one message in, typed fact candidates out.

Each catalog path has one module that holds its regexes, lexicons and `rule_*` functions
(the module's docstring names the paths it owns; the session thread's follow-ups,
followups.py, complete records of many paths across messages). `text` holds what they share
(sentences, clauses, guards, names, the context that validates each value against the
catalog). The value parsers are shared with the frames' slots and live outside this package:
amounts, places and service names in `fact_log/extraction/values/`, dates, times, ranges,
durations and offsets in the one time model, `fact_log/extraction/timemodel/`.

`RULES` is the registry: every rule, in the order rules run in, and it matters: when two
rules find the same (path, value) the first one's quote is kept. Rules are deliberately
conservative (precision over recall): a candidate needs a first-person anchor ("I", "my", an
imperative preference). Sentences longer than MAX_SENTENCE characters are skipped (no one
states a fact in a 2,000-character sentence, and it bounds the work on hostile input).
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections.abc import Sequence
from dataclasses import replace

from uac.fact_log.catalog import Catalog
from uac.fact_log.extraction.candidate import Candidate
from uac.fact_log.extraction.patterns import (
    accounts,
    agenda,
    allergies,
    bodyweight,
    budgets,
    charges,
    conditions,
    contacts,
    documents,
    episodes,
    finance,
    followups,
    headings,
    health,
    identity,
    journeys,
    payments,
    preferences,
    promotions,
    purchases,
    routines,
    schedule,
    travel,
    vaccinations,
    vehicles,
)
from uac.fact_log.extraction.patterns.discourse import (
    MEMO,
    Mention,
    Thread,
    fold,
    freeze,
    remember,
)
from uac.fact_log.extraction.patterns.needles import install, load_table, rule_modules
from uac.fact_log.extraction.patterns.text import (
    MAX_SENTENCE,
    Ctx,
    Rule,
    builtin_catalog,
    clauses,
    forget_guards,
    sentences,
    undictate,
)
from uac.fact_log.extraction.timemodel import forget_dates
from uac.fact_log.extraction.values.money import find_money, forget_money

# The order rules run in, every rule of every module in one place. It matters: when two rules
# find the same (path, value), the first one's quote is kept, and a later rule may skip what
# an earlier one read in the sentence. Each path's rules live in its one module (the catalog
# path in each module's docstring); the order here is independent of where they live.
RULES: tuple[Rule, ...] = (
    identity.rule_identity,
    documents.rule_visas,
    documents.rule_insurance,
    identity.rule_passport_country,
    documents.rule_document_fragments,
    travel.rule_trips,
    travel.rule_location,
    travel.rule_trip_from_thread,
    travel.rule_trip_via,
    travel.rule_home,
    travel.rule_here_since,
    journeys.rule_passport_details,
    journeys.rule_bookings,
    journeys.rule_pasted_stay,
    vaccinations.rule_vaccinations,
    health.rule_medications,
    health.rule_medication_list,  # after rule_medications: the drugs it read are not read twice
    allergies.rule_allergies,
    allergies.rule_allergy_severity,
    conditions.rule_conditions,
    conditions.rule_pregnant,
    allergies.rule_intolerance,
    conditions.rule_for_my,
    conditions.rule_due_date,  # after rule_pregnant: a sentence it read is not read twice
    conditions.rule_birth,
    bodyweight.rule_body_weight,
    vehicles.rule_vehicles,
    vehicles.rule_services,
    vehicles.rule_inspection,
    budgets.rule_budgets,
    budgets.rule_spending_caps,
    finance.rule_subscriptions,
    charges.rule_transactions,
    payments.rule_bills,
    charges.rule_money_in,
    charges.rule_charges,
    payments.rule_standing_orders,
    payments.rule_planned_card_payment,
    accounts.rule_accounts,
    promotions.rule_promotions,
    charges.rule_amount_correction,
    charges.rule_not_the_users_spend,  # last of the money rules: what they read of someone else's
    accounts.rule_cards,
    purchases.rule_warranties,
    agenda.rule_deadlines,
    agenda.rule_task_done,
    schedule.rule_events,
    schedule.rule_away,
    schedule.rule_booked_place,
    schedule.rule_guests,
    schedule.rule_subject_slot,
    agenda.rule_plan,
    agenda.rule_step_done,
    schedule.rule_signed_up,
    agenda.rule_asked_by,
    agenda.rule_status,
    agenda.rule_owned_task,
    agenda.rule_reminder,
    agenda.rule_todo,
    agenda.rule_done_paperwork,
    agenda.rule_done_steps,
    schedule.rule_plans,
    schedule.rule_home_visit,
    agenda.rule_done_it,
    routines.rule_intake,
    health.rule_supply,
    schedule.rule_weekly_note,
    schedule.rule_weekly_slot,
    schedule.rule_weekly_duty,
    schedule.rule_repeats,
    schedule.rule_series_end,
    contacts.rule_contacts,
    contacts.rule_people,
    preferences.rule_preferences,
    preferences.rule_timezone_only,
    episodes.rule_episodes,
    # after every other trip and booking rule: a trip said as a known place and its days, the
    # legs and booking details said of it (they add only what those found none of)
    travel.rule_place_span,
    journeys.rule_legs,
    travel.rule_next_stops,
    journeys.rule_ticket_booked,  # a trip's flight booked: after every trip and flight rule
    journeys.rule_booking_name,
    journeys.rule_pasted_details,
    contacts.rule_people_shapes,  # people in other shapes: lists, cards, known names, birthdays
)
# The rules that read a line of another person's list ("Mum's direct debits:" then its items):
# facts about that person, none of the user's own records (patterns/headings.py)
THEIR_RULES: tuple[Rule, ...] = (
    contacts.rule_contacts,
    contacts.rule_people,
    contacts.rule_people_shapes,
)

# Every rule module's regexes get their literal pre-check (patterns/needles.py): a search
# that cannot match is not run. Same answers, a fraction of the time.
GATED = install(rule_modules(), load_table())

__all__ = [
    "RULES",
    "Candidate",
    "builtin_catalog",
    "clear_caches",
    "extract",
    "find_money",
    "sentences",
]


def clear_caches() -> None:
    """Forget every answer the extractor remembers between messages, as a fresh process has
    it: the read sessions (discourse memo), amounts, dates and guard answers per text.

    Only answers about inputs: compiled patterns, reference data and catalog models stay.
    Benchmarks call it before a cold pass; reading gives the same candidates either way.
    """
    MEMO.clear()
    forget_money()
    forget_dates()
    forget_guards()


def extract(
    text: str,
    observed_at: dt.datetime,
    role: str = "user",
    catalog: Catalog | None = None,
    history: Sequence[tuple[str, dt.datetime]] = (),
) -> list[Candidate]:
    """Typed fact candidates stated by the user in one message (none for other roles).

    `history` is the session's earlier user messages (text, when said) in order: what they
    mentioned lets "It's valid until May" or "make that the 12th" complete a fact.
    """
    if role != "user" or not isinstance(text, str) or not text.strip():
        return []
    catalog = catalog or builtin_catalog()
    thread = fold(history, lambda t, at, th: read(t, at, catalog, th)[1], id(catalog))
    found, after = read(text, observed_at, catalog, thread)
    remember(id(catalog), text, observed_at, thread, after)  # the next message's history
    return found


def read(
    text: str, observed_at: dt.datetime, catalog: Catalog, thread: Thread
) -> tuple[list[Candidate], Thread]:
    """The candidates one message yields given the thread so far, and the thread after it."""
    said, text = text, undictate(text)
    if "İ" in text:  # Turkish dotted capital I ("İzmir", "İstanbul"): read as I, same offsets
        text = text.replace("İ", "I")
    ctx = Ctx(text, observed_at.date(), catalog, [], thread=thread)
    spans = list(sentences(text))
    owned = headings.theirs(text)
    for i, sent in enumerate(spans):
        if len(sent.text) > MAX_SENTENCE:
            continue
        ctx.following = spans[i + 1] if i + 1 < len(spans) else None
        ctx.begin(sent)
        parts = clauses(sent)
        before = len(ctx.out)
        if owned(sent.start):
            for rule in THEIR_RULES:
                rule(ctx, sent, parts)
            ctx.thread = ctx.thread.with_([_mention(c, ctx.today) for c in ctx.out[before:]])
            continue
        for rule in RULES:
            rule(ctx, sent, parts)
        # What the sentence names joins the thread before the follow-ups read it ("The IKEA
        # stuff can be returned within 365 days"), what they add after.
        ctx.thread = ctx.thread.with_(followups.topics(ctx, sent, ctx.out[before:]))
        for rule in followups.RULES:
            rule(ctx, sent, parts)
        ctx.thread = ctx.thread.with_([_mention(c, ctx.today) for c in ctx.out[before:]])
    if said != text:  # dictation or a dotted İ read plainly: quote what was said (same offsets)
        ctx.out = [replace(c, quote=said[c.start : c.start + len(c.quote)]) for c in ctx.out]
    return _subsumed(_dedupe(ctx.out)), ctx.thread


def _mention(cand: Candidate, day: dt.date) -> Mention:
    """What a found candidate adds to the thread."""
    kind = followups.TOPIC_OF.get(cand.path, cand.path)
    value = cand.value if isinstance(cand.value, dict) else {"value": cand.value}
    return Mention(kind, freeze(value), day)


def _dedupe(cands: list[Candidate]) -> list[Candidate]:
    """One candidate per (path, value): a fact repeated in a message is one fact."""
    seen: set[tuple[str, str]] = set()
    out = []
    for c in cands:
        value = c.value
        key = (c.path, repr(sorted(value.items())) if isinstance(value, dict) else repr(value))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


# A record is completed by one said soon after it: this many later records of its path are
# compared (a hostile message of thousands of payments stays linear).
_COMPLETED_WITHIN = 16


def _subsumed(cands: list[Candidate]) -> list[Candidate]:
    """Drop a record a later one of the same path in the message repeats and completes
    ("Flying to Lisbon on 3 July. Back on the 10th." is one trip with its return, not two)."""
    if len(cands) < 2:
        return cands
    later_of: dict[str, list[int]] = {}
    for i, c in enumerate(cands):
        later_of.setdefault(c.path, []).append(i)
    out = []
    for i, c in enumerate(cands):
        value = c.value
        same = later_of[c.path]
        after = same[bisect.bisect_right(same, i) :][:_COMPLETED_WITHIN]
        if isinstance(value, dict) and any(
            (later := cands[j]).op == c.op
            and isinstance(later.value, dict)
            and len(later.value) > len(value)
            and all(later.value.get(k) == v for k, v in value.items())
            for j in after
        ):
            continue
        out.append(c)
    return out
