"""How long work reports progress: one callback, `report(stage, done, total)`.

Any layer may report (the importer, an erase, a scheduled pass) without knowing who
listens; the runtime decides how to show it (`runtime/progress_display.py` draws a bar on a
terminal, prints lines in a log, or keeps it for the service's `/v1/jobs/progress`).
A stage is a short verb phrase ("validating", "writing"); `done` counts up to `total`
within it, and a new stage starts its count again; a total of 0 means the stage has no
count to show (only how long it has been running).

    for row in counted(rows, "erasing", report):
        ...
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import TypeVar

Report = Callable[[str, int, int], None]
T = TypeVar("T")

EVERY = 1000  # report after this many items (and at the end): a call per item costs too much


def counted(
    items: Collection[T], stage: str, report: Report | None, every: int = EVERY
) -> Iterator[T]:
    """Yield items, reporting `stage` progress before the first, every `every`, and at the end."""
    if report is None:
        yield from items
        return
    total = len(items)
    report(stage, 0, total)
    done = 0
    for item in items:
        yield item
        done += 1
        if done % every == 0 and done < total:
            report(stage, done, total)
    report(stage, done, total)


def step(report: Report | None, stage: str) -> Callable[[], None]:
    """Report a stage with no inner counts (total 0); call what it returns when it ends."""
    if report is None:
        return lambda: None
    report(stage, 0, 0)
    return lambda: report(stage, 0, 0)
