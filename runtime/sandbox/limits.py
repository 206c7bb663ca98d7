"""`Limits`: the caps of one query. Its own module: the host (a one-shot `uac query`)
names them without importing the engine, which only the zygote runs."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True, slots=True)
class Limits:
    """Caps for one query; the defaults suit interactive agent queries."""

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
