"""How the alert outbox delivers (runtime/api/outbox.py): workers, a per-sink bound, backoff
with jitter and the horizon before a delivery is given up on. Apart from the outbox so the CLI
parser can show the defaults without loading the storage layer."""

from __future__ import annotations

import dataclasses

from uac.fact_log.errors import InputError


@dataclasses.dataclass(frozen=True)
class OutboxSettings:
    """How the outbox delivers: workers, per-sink bound, backoff, the give-up horizon."""

    workers: int = 4  # delivery threads
    per_sink: int = 2  # sends to one sink at once
    base_delay: float = 1.0  # seconds before the first retry; doubles per failed attempt
    max_delay: float = 600.0  # the longest wait between two attempts
    horizon: float = 48 * 3600.0  # give up once the attempts' waits span this long
    jitter: float = 0.25  # each wait is lengthened by up to this fraction, at random
    timeout: float = 5.0  # seconds a webhook may take to answer one delivery

    def __post_init__(self) -> None:
        for name in ("workers", "per_sink"):
            if getattr(self, name) < 1:
                raise InputError(f"outbox {name} must be at least 1, got {getattr(self, name)}")
        for name in ("base_delay", "max_delay", "horizon", "timeout"):
            if not getattr(self, name) > 0:
                raise InputError(f"outbox {name} must be positive, got {getattr(self, name)}")
        if not 0 <= self.jitter <= 1:
            raise InputError(f"outbox jitter must be between 0 and 1, got {self.jitter}")

    def delay(self, attempts: int) -> float:
        """Seconds to wait after the `attempts`-th failed attempt, before jitter."""
        return min(self.max_delay, self.base_delay * 2 ** min(attempts - 1, 60))

    def max_attempts(self) -> int:
        """Attempts whose waits (before jitter) first reach the horizon: then a row is dead."""
        waited, attempts = 0.0, 0
        while waited < self.horizon:
            attempts += 1
            waited += self.delay(attempts)
        return attempts + 1
