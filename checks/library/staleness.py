"""The staleness check: a value that goes stale (catalog `stale_after_days`) asks to be confirmed.

The compiled state records when each such value was last asserted (`user.as_of`) and after
how many days it counts as stale (`user.stale_after_days`); whether it is stale depends on
`today`, so it is decided here, at check time, never baked into generated code. Confirming
(asserting the same value again) moves `as_of` and resolves the alert.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from uac.checks.library.common import draft
from uac.checks.model import AlertDraft, CheckConfig
from uac.checks.stale import stale_paths


def stale_value(user: Any, today: dt.date, config: CheckConfig) -> list[AlertDraft]:
    """Ask the user to confirm each value older than its staleness limit (low severity)."""
    del config  # the limits are the catalog's, per path
    return [
        draft(
            "stale_value",
            "info",
            f"Is {path} still right? It was last confirmed on {day} ({age} days ago; it goes "
            f"stale after {limit}). Please confirm or update it.",
            why="A value this old may no longer be true, and answers built on it would be wrong.",
            next_step=f"Ask the user whether {path} is still right; record the answer (the same "
            "value again confirms it).",
            computation=f"{today} − {day} = {age} days > {limit} days (stale_after_days)",
            keys=(path,),
            paths=(path,),
        )
        for path, day, limit, age in stale_paths(user, today)
    ]
