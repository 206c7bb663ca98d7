"""The write path: the append-only fact log in DuckDB, the catalog and structured ingestion."""
