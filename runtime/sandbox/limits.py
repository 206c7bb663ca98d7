"""`Limits`: the caps of one query. Its own module: the host (a one-shot `uac query`)
names them without importing the engine, which only the zygote runs."""

from __future__ import annotations

import dataclasses

# However long a query waits for a CPU, it is stopped after this many times the larger of
# its wall and CPU limits in wall-clock time (`Limits.backstop_s`).
BACKSTOP = 20


@dataclasses.dataclass(frozen=True, slots=True)
class Limits:
    """Caps for one query; the defaults suit interactive agent queries.

    `cpu_s` bounds the CPU the query uses. `timeout_s` bounds its wall-clock time from the
    hand-over of the request to its worker until the answer starts to come back, not
    counting the time the worker was ready to run but waiting for a CPU (a busy machine's
    run queue, read from /proc/PID/schedstat): it stops a query that runs or is blocked
    too long, and load does not stretch it. Where the kernel does not report that wait,
    it is plain wall-clock time. `backstop_s` bounds the wall-clock time whatever the load.
    """

    timeout_s: float = 2.0
    cpu_s: int = 2
    memory_mb: int = 256
    max_source: int = 10_000
    max_nodes: int = 2_000
    max_depth: int = 60
    max_literal: int = 10_000
    max_seq: int = 1_000_000
    max_str: int = 1_000_000
    max_int_bits: int = 4_096
    max_format_width: int = 100
    max_result_bytes: int = 4_000_000
    max_result_depth: int = 40

    @property
    def backstop_s(self) -> float:
        """Wall-clock seconds after which the query is stopped, waits for a CPU included."""
        return backstop_s(self.timeout_s, self.cpu_s)


def backstop_s(timeout_s: float, cpu_s: float) -> float:
    """`Limits.backstop_s` of these wall and CPU limits."""
    return BACKSTOP * max(float(timeout_s), float(cpu_s))
