"""Progress of long CLI work (compile --all, imports, scheduled passes) on stderr.

On a terminal: one line redrawn in place — a bar, done/total, rate and time left. Not on a
terminal (a log, CI): one plain line every `interval` seconds and a last one at the end, so
logs stay readable. `quiet` prints nothing. The clock is a parameter so tests can drive it;
the helper keeps no global state and never touches stdout, where results go.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

BAR = 24


class Progress:
    """Counts done out of total and shows it as a bar (terminal) or periodic lines (log)."""

    def __init__(
        self,
        label: str,
        total: int | None = None,
        *,
        stream: TextIO | None = None,
        quiet: bool = False,
        interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.label = label
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.interval = interval
        self.clock = clock
        self.done = 0
        self.started = clock()
        self._last_line = self.started
        self._drawn = False
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty and isatty())

    def update(self, done: int, total: int | None = None, note: str = "") -> None:
        """Set how much is done (and the total, when it becomes known)."""
        self.done = done
        if total is not None:
            self.total = total
        if self.quiet:
            return
        now = self.clock()
        if self.tty:
            self.stream.write("\r" + self.line(now, bar=True) + "\x1b[K")
            self._drawn = True
            self.stream.flush()
        elif now - self._last_line >= self.interval:
            self._last_line = now
            self.stream.write(self.line(now, note=note) + "\n")
            self.stream.flush()

    def advance(self, n: int = 1, note: str = "") -> None:
        """Count n more done."""
        self.update(self.done + n, note=note)

    def close(self, note: str = "") -> None:
        """Finish: end the terminal line, or print the last log line."""
        if self.quiet:
            return
        now = self.clock()
        if self.tty:
            self.stream.write("\r" + self.line(now, bar=True) + "\x1b[K\n")
        else:
            self.stream.write(self.line(now, note=note) + "\n")
        self.stream.flush()

    def line(self, now: float, *, bar: bool = False, note: str = "") -> str:
        """The progress as one line of text."""
        elapsed = max(now - self.started, 1e-9)
        rate = self.done / elapsed
        parts = [self.label]
        if self.total:
            share = min(self.done / self.total, 1.0)
            if bar:
                filled = round(share * BAR)
                parts.append("[" + "#" * filled + "." * (BAR - filled) + "]")
            parts.append(f"{self.done:,}/{self.total:,} ({share:.0%})")
        else:
            parts.append(f"{self.done:,}")
        parts.append(f"{rate:,.1f}/s")
        if self.total and rate > 0 and self.done < self.total:
            parts.append(f"~{_duration((self.total - self.done) / rate)} left")
        else:
            parts.append(f"in {_duration(elapsed)}")
        if note:
            parts.append(note)
        return " ".join(parts)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{rest:02d}s"
    return f"{minutes // 60}h{minutes % 60:02d}m"
