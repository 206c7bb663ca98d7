"""The search index's tables in the workspace file, migrated by fact_log.schema.

All `search_*` tables hold derived data (see index.py for what each holds); step 1 uses
IF NOT EXISTS because earlier versions created them on first use. `search_vectors` is not
here: its FLOAT[dim] column follows the embedder, so index.py (re)creates it per embedder.
When the index drops its tables to rebuild, it `forget`s this owner so the steps run again.
"""

from __future__ import annotations

from uac.fact_log.schema import Owner, register

SEARCH = register(
    Owner(
        "search",
        3,
        (
            (
                "CREATE TABLE IF NOT EXISTS search_meta (key VARCHAR PRIMARY KEY,"
                " value VARCHAR NOT NULL)",
                "CREATE TABLE IF NOT EXISTS search_subjects (sid INTEGER NOT NULL,"
                " tenant VARCHAR NOT NULL, scope VARCHAR NOT NULL, subject VARCHAR NOT NULL)",
                "CREATE TABLE IF NOT EXISTS search_docs (doc BIGINT NOT NULL, sid INTEGER NOT NULL,"
                " item_id VARCHAR NOT NULL, kind VARCHAR NOT NULL, text VARCHAR NOT NULL,"
                " at_ts TIMESTAMP NOT NULL, len INTEGER NOT NULL, seq BIGINT NOT NULL)",
                # len, kind and date are copied from search_docs so BM25 needs no join.
                "CREATE TABLE IF NOT EXISTS search_postings (sid INTEGER NOT NULL,"
                " term VARCHAR NOT NULL, doc BIGINT NOT NULL, tf INTEGER NOT NULL,"
                " len INTEGER NOT NULL, kind VARCHAR NOT NULL, at_ts TIMESTAMP NOT NULL)",
                "CREATE TABLE IF NOT EXISTS search_hidden (sid INTEGER NOT NULL,"
                " target VARCHAR NOT NULL, doc BIGINT, by_id VARCHAR NOT NULL,"
                " why VARCHAR NOT NULL)",
                "CREATE TABLE IF NOT EXISTS search_feedback (sid INTEGER NOT NULL,"
                " id VARCHAR NOT NULL, target VARCHAR NOT NULL, doc BIGINT, signal VARCHAR,"
                " reason VARCHAR, seq BIGINT NOT NULL)",
            ),
        ),
    )
)
