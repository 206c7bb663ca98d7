"""The fact log's sealed tables (fact_log/tamper.py `seal`), declared apart from the store.

The store and the erase layer own these tables; their seals live here so that a read that
verifies the log without the store (runtime/api/lean_reads.py `verify`) knows every one of
them: a seal that is not declared is a table whose edits nobody checks.
"""

from __future__ import annotations

from uac.fact_log.chain_rows import INPUT_V1, REJECTION_COLUMNS, SCHEMA_COLUMNS
from uac.fact_log.tamper import ERASED_ROW_COLUMNS, seal

seal("inputs", [name for name, _, _ in INPUT_V1], "seq", ("seq", "id"))
# Rejections and inferred schemas are counted too: every anchor records how many rows each
# holds, so a deleted row shows (fact_log/tamper.py). A rejection's id is not unique on its
# own (two inputs with no fact in between share a run id): all its columns name it.
seal("rejections", REJECTION_COLUMNS, "recorded_at, id", ("id",), identity=REJECTION_COLUMNS)
_SCHEMA_KEY = ("tenant", "scope", "subject", "path", "version")
seal("schemas", SCHEMA_COLUMNS, ", ".join(_SCHEMA_KEY), ("path", "version"), identity=_SCHEMA_KEY)

# fact_log/erase.py: a legal erase's report and the rows it blanked.
ERASURE_COLUMNS = (
    "id", "tenant", "scope", "subject", "scope_of_erase", "reason", "actor", "erased_at",
    "report",
)  # fmt: skip
seal("erasures", ERASURE_COLUMNS, "erased_at, id", ("id",))
seal("erased_rows", ERASED_ROW_COLUMNS, "erasure, tbl, seq", ("tbl", "seq"))
