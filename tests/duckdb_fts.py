"""DuckDB's full-text-search extension, loaded from its PyPI package (never downloaded): the
reference the tests hold notes search to (`match_bm25`'s scores, `stem()`'s Porter stems)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import duckdb_extension_fts


def load_fts(con: duckdb.DuckDBPyConnection) -> None:
    """Load the extension of this DuckDB's version into `con`."""
    folder = Path(duckdb_extension_fts.__file__).parent / "extensions"
    con.execute(f"LOAD '{folder / f'v{duckdb.__version__}' / 'fts.duckdb_extension'}'")
