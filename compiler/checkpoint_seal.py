"""The `checkpoints` table's seal (fact_log/tamper.py `seal`), declared apart from the
compiler's publishing (compiler/checkpoint.py) so that a read verifying the log without it
(runtime/api/lean_reads.py `verify`) checks the table's digests and count too."""

from __future__ import annotations

from uac.fact_log.tamper import seal

CHECKPOINT_COLUMNS = (
    "id", "tenant", "scope", "subject", "version", "status", "watermark", "head_id",
    "as_of", "known_at", "facts", "error", "timings", "started_at", "finished_at",
)  # fmt: skip
seal("checkpoints", CHECKPOINT_COLUMNS, "id", ("id",), identity=("id",))  # counted too
