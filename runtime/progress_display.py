"""Progress of long work: a bar or log lines on stderr (CLI), a job board (service).

`Progress` — on a terminal: one line redrawn in place (at most ten times a second) — a
bar, done/total, rate and time left. Not on a terminal (a log, CI): one plain line every
`interval` seconds and a last one at the end, so logs stay readable. `quiet` prints
nothing. Its `report(stage, done, total)` is the callback every layer reports to
(`uac.fact_log.progress_callback`): an import goes through stages (reading, validating, ...) and
the line names the stage it is in. The clock is a parameter so tests can drive it; the
helper keeps no global state and never touches stdout, where results go.

`JobBoard` — what `uac serve` keeps of its long jobs (imports, passes, whether scheduled or
asked for over HTTP) for `GET /v1/jobs/progress`: the running ones and the last finished
one of each kind per tenant and subject.
"""

from __future__ import annotations

import datetime as dt
import itertools
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

BAR = 24
REDRAW = 0.1  # seconds between redraws of a terminal line


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
        heartbeat: float | None = None,
    ):
        self.label = label
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.interval = interval
        self.clock = clock
        self.done = 0
        self.started = clock()
        self.stage: str | None = None
        self._stage_started = self.started
        self._last_line = self.started
        self._last_draw = -float("inf")
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty and isatty())
        # heartbeat: seconds between redraws while the work reports nothing (a stage with
        # no count, such as compiling), so the time shown keeps moving and a log keeps its
        # periodic lines. A daemon thread, started on the first report.
        self.heartbeat = heartbeat
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None

    def update(self, done: int, total: int | None = None, note: str = "") -> None:
        """Set how much is done (and the total, when it becomes known)."""
        with self._lock:
            self.done = done
            if total is not None:
                self.total = total
            if self.quiet:
                return
            if self.heartbeat and self._beat is None and not self._stop.is_set():
                self._beat = threading.Thread(
                    target=self._beating, name="uac-progress", daemon=True
                )
                self._beat.start()
            self._draw(note)

    def _beating(self) -> None:
        assert self.heartbeat is not None
        while not self._stop.wait(self.heartbeat):
            with self._lock:
                if not self._stop.is_set():
                    self._draw("")

    def _draw(self, note: str) -> None:
        now = self.clock()
        if self.tty:
            if now - self._last_draw < REDRAW and self.done != self.total:
                return
            self._last_draw = now
            self.stream.write("\r" + self.line(now, bar=True) + "\x1b[K")
            self.stream.flush()
        elif now - self._last_line >= self.interval:
            self._last_line = now
            self.stream.write(self.line(now, note=note) + "\n")
            self.stream.flush()

    def report(self, stage: str, done: int, total: int) -> None:
        """The callback long work reports to: a new stage restarts the count and the rate."""
        with self._lock:
            if stage != self.stage:
                self.stage = stage
                self._stage_started = self.clock()
                self._last_draw = -float("inf")  # show the new stage at once
            self.update(done, total)

    def advance(self, n: int = 1, note: str = "") -> None:
        """Count n more done."""
        self.update(self.done + n, note=note)

    def close(self, note: str = "") -> None:
        """Finish: end the terminal line, or print the last log line."""
        if self._end() or self.quiet:
            return
        now = self.clock()
        if self.stage is not None:  # staged work: the last line says it is done, and how fast
            counts = f", {self.stage} {self.done:,}/{self.total:,}" if self.total else ""
            line = f"{self.label} done{counts} in {_duration(now - self.started)}"
            line += f" {note}" if note else ""
        else:
            line = self.line(now, bar=self.tty, note="" if self.tty else note)
        self.stream.write(("\r" + line + "\x1b[K" if self.tty else line) + "\n")
        self.stream.flush()

    def line(self, now: float, *, bar: bool = False, note: str = "") -> str:
        """The progress as one line of text."""
        since = self.started if self.stage is None else self._stage_started
        elapsed = max(now - since, 1e-9)
        rate = self.done / elapsed
        parts = [self.label] if self.stage is None else [f"{self.label}: {self.stage}"]
        if self.stage is not None and not self.total and not self.done:
            # A stage with nothing to count: say it runs, and for how long the work has.
            return f"{parts[0]} … ({_duration(now - self.started)} so far)"
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

    def _end(self) -> bool:
        """Stop the heartbeat; True when the display was already finished."""
        with self._lock:
            ended = self._stop.is_set()
            self._stop.set()
        if self._beat is not None and self._beat is not threading.current_thread():
            self._beat.join(timeout=5)
        return ended

    def abandon(self) -> None:
        """Stop without claiming the work is done (it failed): end a drawn terminal line."""
        if not self._end() and self.tty and not self.quiet and self._last_draw > -1e300:
            self.stream.write("\n")  # the error that follows starts on a line of its own
            self.stream.flush()

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        if kind is None:
            self.close()
        else:
            self.abandon()


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{rest:02d}s"
    return f"{minutes // 60}h{minutes % 60:02d}m"


class JobBoard:
    """The service's long jobs: running ones, and the last finished per kind/tenant/subject."""

    def __init__(self, keep: int = 1000) -> None:
        self._lock = threading.Lock()
        # Least recently started first; past `keep` slots the oldest finished ones go, so
        # imports into many subjects do not grow the board without bound.
        self._jobs: OrderedDict[tuple[str, str, str | None], dict[str, Any]] = OrderedDict()
        self._ids = itertools.count(1)
        self.keep = keep

    @contextmanager
    def track(self, kind: str, tenant: str, subject: str | None = None) -> Iterator[Job]:
        """Record a job while it runs; it stays on the board, finished, until the next one."""
        state: dict[str, Any] = {
            "id": f"job-{next(self._ids)}",
            "kind": kind,
            "tenant": tenant,
            "subject": subject,
            "stage": None,
            "done": 0,
            "total": 0,
            "started_at": _now(),
            "finished_at": None,
            "error": None,
        }
        # One slot per kind, tenant and subject: a new job replaces the last finished one
        # (two at once — two imports into one subject — share it; the later one shows).
        with self._lock:
            self._jobs[(kind, tenant, subject)] = state
            self._jobs.move_to_end((kind, tenant, subject))
            finished = [k for k, j in self._jobs.items() if j["finished_at"] is not None]
            for key in finished[: max(len(self._jobs) - self.keep, 0)]:
                del self._jobs[key]
        job = Job(state, self._lock)
        try:
            yield job
        except BaseException as exc:
            with self._lock:
                state["error"] = str(exc) or type(exc).__name__
            raise
        finally:
            with self._lock:
                state["finished_at"] = _now()

    def visible(self, tenant: str | None, subject: str | None = None) -> list[dict[str, Any]]:
        """Jobs a key may see: its tenant's (None: every tenant), its subject's if bound."""
        with self._lock:
            jobs = [dict(j) for j in self._jobs.values()]
        return sorted(
            (
                j
                for j in jobs
                if (tenant is None or j["tenant"] == tenant)
                and (subject is None or j["subject"] == subject)
            ),
            key=lambda j: j["tenant"],  # stable: within a tenant, in the order they started
        )


class Job:
    """One tracked job: `report` is the progress callback its work reports to."""

    def __init__(self, state: dict[str, Any], lock: threading.Lock):
        self.state = state
        self._lock = lock

    def report(self, stage: str, done: int, total: int) -> None:
        """Record the stage the job is in and how far it got."""
        with self._lock:
            self.state.update(stage=stage, done=done, total=total)


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
