"""A store's Arrow inserts do not make DuckDB import pyarrow.dataset (memory), and change nothing.

Run in a fresh interpreter: whether the module is imported is process state.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import sys
    import datetime as dt
    from uac.fact_log.addressing import Address
    from uac.fact_log.store import Batch, NewFact, NewInput, Store

    store = Store.open(sys.argv[1], create=True)
    batch = Batch(Address("t", "user", "alice"), dt.datetime(2026, 1, 1), "test")
    batch.inputs.append(NewInput("import", "x", "import"))
    batch.facts = [
        NewFact("assert", "record", "trips", {"n": i}, record_key=str(i), input_index=0)
        for i in range(100)  # over _SMALL_BATCH: the Arrow path
    ]
    store.append(batch)
    print("dataset imported by the insert:", "pyarrow.dataset" in sys.modules)
    import duckdb, pyarrow as pa
    import pyarrow.dataset  # still importable afterwards

    con = duckdb.connect()
    table = pa.table({"a": list(range(1000)), "s": [str(i) for i in range(1000)]})
    con.register("x", table)
    print("scan:", con.execute("SELECT sum(a), count(*) FROM x WHERE a % 7 = 3").fetchone())
    print("stored:", len(store.facts(batch.address)), store.verify().ok)
    """
)


def test_an_arrow_insert_leaves_pyarrow_dataset_unimported(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "ws")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "dataset imported by the insert: False" in out
    assert "scan: (71500, 143)" in out
    assert "stored: 100 True" in out
