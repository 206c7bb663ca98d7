"""The search index's tables in the workspace file, migrated by fact_log.schema.

All `search_*` tables hold derived data (see index.py for what each holds); step 1 uses
IF NOT EXISTS because earlier versions created them on first use. `search_vectors` is not
here: its FLOAT[dim] column follows the embedder, so index.py (re)creates it per embedder.
When the index drops its tables to rebuild, it `forget`s this owner so the steps run again.
The tables are derived: a change of their layout (index.py's LAYOUT) drops and rebuilds
them, so step 1 always holds the current layout rather than a chain of ALTERs.
"""

from __future__ import annotations

from uac.fact_log.schema import Owner, register


def search_ddl() -> tuple[str, ...]:
    """CREATE statements of the search tables (search_vectors excepted: its width varies)."""
    return (
        "CREATE TABLE IF NOT EXISTS search_meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)",
        "CREATE TABLE IF NOT EXISTS search_subjects (sid INTEGER NOT NULL,"
        " tenant VARCHAR NOT NULL, scope VARCHAR NOT NULL, subject VARCHAR NOT NULL)",
        # session: the input's or note's session id, for a hit's neighbouring turns.
        "CREATE TABLE IF NOT EXISTS search_docs (doc BIGINT NOT NULL, sid INTEGER NOT NULL,"
        " item_id VARCHAR NOT NULL, kind VARCHAR NOT NULL, text VARCHAR NOT NULL,"
        " at_ts TIMESTAMP NOT NULL, len DOUBLE NOT NULL, seq BIGINT NOT NULL, session VARCHAR)",
        # tf is weighted (a speaker's name counts SPEAKER_WEIGHT, see analyzer.py); queries
        # score these rows once loaded into arrays (arrays.py), so nothing is copied in.
        "CREATE TABLE IF NOT EXISTS search_postings (sid INTEGER NOT NULL,"
        " term VARCHAR NOT NULL, doc BIGINT NOT NULL, tf DOUBLE NOT NULL)",
        "CREATE TABLE IF NOT EXISTS search_hidden (sid INTEGER NOT NULL, target VARCHAR NOT NULL,"
        " doc BIGINT, by_id VARCHAR NOT NULL, why VARCHAR NOT NULL)",
        # The subject's vocabulary, for spelling correction of query words it does not hold.
        "CREATE TABLE IF NOT EXISTS search_terms (sid INTEGER NOT NULL, term VARCHAR NOT NULL,"
        " df BIGINT NOT NULL, PRIMARY KEY (sid, term))",
        "CREATE TABLE IF NOT EXISTS search_feedback (sid INTEGER NOT NULL, id VARCHAR NOT NULL,"
        " target VARCHAR NOT NULL, doc BIGINT, signal VARCHAR, reason VARCHAR,"
        " seq BIGINT NOT NULL)",
        # A workspace whose log is shared (PostgreSQL) indexes subject by subject: rows
        # copied from other nodes arrive late with low seqs (indexing.index_subjects).
        "CREATE TABLE IF NOT EXISTS search_synced (tenant VARCHAR NOT NULL,"
        " scope VARCHAR NOT NULL, subject VARCHAR NOT NULL, writes BIGINT NOT NULL,"
        " fact_seq BIGINT NOT NULL, input_seq BIGINT NOT NULL,"
        " PRIMARY KEY (tenant, scope, subject))",
    )


SEARCH = register(Owner("search", 3, (search_ddl(),)))
