"""The built-in checks: pure functions `(user, today, config) -> list[AlertDraft]`.

One module per domain (documents and trips, health, finance, schedule); `common` holds what
they share. Each check reads only the typed state it is given and `today`; the same state and
day always give the same drafts. `REGISTRY` binds the names the catalog uses (`checks =
[...]`) to them. How checks read across collections (compound risks): checks/README.md.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from uac.checks.library.documents import (
    booking_name_mismatch,
    document_expiry,
    passport_blank_pages,
    passport_validity_for_trip,
    transit_visa,
    visa_for_trip,
    visa_single_entry,
)
from uac.checks.library.finance import (
    autopay_from_closing_account,
    budget_exceeded,
    card_limit,
    charge_after_cancellation,
    conflicting_payment_instructions,
    duplicate_payment,
    payee_account_changed,
    period_bounds,
    promo_rate_expiry,
    subscription_renewal,
    warranty_expiry,
)
from uac.checks.library.health import (
    activity_vs_condition,
    dose_vs_weight,
    drug_allergy,
    drug_interaction,
    duplicate_drug_class,
    food_allergy,
    food_drug_interaction,
    medication_runs_out,
    pregnancy_contraindication,
    supplement_drug_interaction,
)
from uac.checks.library.schedule import (
    deadline_approaching,
    deadline_while_away,
    event_during_trip,
    event_overlap,
    recurring_event_collision,
    service_due,
)
from uac.checks.library.staleness import stale_value
from uac.checks.library.travel import (
    checkout_vs_flight,
    health_certificate,
    insurance_for_trip,
    schengen_stay_limit,
    stay_limit,
)
from uac.checks.model import AlertDraft, Check, CheckConfig

REGISTRY: dict[str, Check] = {
    check.__name__: check
    for check in (
        # travel documents and trips
        document_expiry,
        passport_validity_for_trip,
        visa_for_trip,
        visa_single_entry,
        transit_visa,
        passport_blank_pages,
        booking_name_mismatch,
        schengen_stay_limit,
        stay_limit,
        health_certificate,
        insurance_for_trip,
        checkout_vs_flight,
        # health
        drug_allergy,
        drug_interaction,
        food_allergy,
        food_drug_interaction,
        supplement_drug_interaction,
        pregnancy_contraindication,
        activity_vs_condition,
        dose_vs_weight,
        duplicate_drug_class,
        medication_runs_out,
        # schedule and deadlines
        event_overlap,
        recurring_event_collision,
        event_during_trip,
        deadline_approaching,
        deadline_while_away,
        service_due,
        # finance
        budget_exceeded,
        duplicate_payment,
        payee_account_changed,
        subscription_renewal,
        charge_after_cancellation,
        card_limit,
        autopay_from_closing_account,
        conflicting_payment_instructions,
        warranty_expiry,
        promo_rate_expiry,
        # aging (checks/library/staleness.py)
        stale_value,
    )
}

# Checks whose result can change with nothing but the date (the scheduler re-runs these).
TIME_BASED: frozenset[str] = frozenset(REGISTRY)

__all__ = ["REGISTRY", "TIME_BASED", "period_bounds", "run_checks"]


def run_checks(
    names: Iterable[str], user: Any, today: dt.date, config: CheckConfig
) -> tuple[list[AlertDraft], dict[str, str]]:
    """Run the named checks; returns drafts and {check: error} for those that failed."""
    drafts: list[AlertDraft] = []
    errors: dict[str, str] = {}
    for name in names:
        check = REGISTRY.get(name)
        if check is None:
            errors[name] = f"unknown check {name!r}"
            continue
        try:
            found = check(user, today, config)
        except Exception as exc:  # one broken check must not hide the others' alerts
            errors[name] = f"{type(exc).__name__}: {exc}"
            continue
        drafts.extend(found)  # an unexplained alert is still raised, and reported as a defect
        if any(not (d.why and d.next_step) for d in found):
            errors[name] = "raised an alert without a why or a next step (use common.draft)"
    return drafts, errors
