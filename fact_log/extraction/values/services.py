"""Subscription services by name ("Netflix", "Disney plus"): the names of vocabulary.toml's
`ordered_lists.subscription_services`, tried in the order written."""

from __future__ import annotations

import re

from uac.fact_log.extraction.lazy import lazy
from uac.fact_log.reference import vocabulary

SUBSCRIPTION_SERVICES = "|".join(vocabulary()["ordered_lists"]["subscription_services"])
# "Paramount Plus" is "Paramount+": every "+" of a name may be said as "plus"
SERVICE = lazy(
    r"\b(" + SUBSCRIPTION_SERVICES.replace("\\+", "(?:\\+|\\s+plus\\b)") + r")(?![\w])",
    re.IGNORECASE,
)
