"""Where the fact log lives besides the embedded DuckDB file (store.py holds the DuckDB SQL).

`postgres.PgLog` keeps the log (inputs, facts, rejections, inferred schemas, anchors) in a
PostgreSQL database shared by many nodes; `Store` writes through it and keeps a local DuckDB
copy per workspace as a read cache (see store.py and docs/scale.md).
"""
