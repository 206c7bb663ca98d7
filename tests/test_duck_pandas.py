"""DuckDB's per-parameter `import pandas` attempts fail at once when pandas is absent."""

from __future__ import annotations

import importlib.machinery
import sys

import duckdb
import pyarrow as pa
import pytest

from uac.fact_log import duck  # noqa: F401 (installs the finder)


@pytest.fixture
def no_pandas() -> None:
    if "pandas" in sys.modules or importlib.machinery.PathFinder.find_spec("pandas") is not None:
        pytest.skip("pandas is installed here: nothing is short-circuited")


@pytest.mark.usefixtures("no_pandas")
def test_bound_parameters_never_walk_sys_path_for_pandas(monkeypatch: pytest.MonkeyPatch) -> None:
    walks: list[str] = []
    original = importlib.machinery.PathFinder.find_spec

    def counting(name: str, path: object = None, target: object = None) -> object:
        walks.append(name)
        return original(name, path, target)

    monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec", counting)
    con = duckdb.connect()
    con.execute("CREATE TABLE t (a VARCHAR, b DOUBLE)")
    for i in range(5):
        con.execute("INSERT INTO t VALUES (?, ?)", [f"x{i}", float(i)])
    assert con.execute("SELECT count(*) FROM t").fetchone() == (5,)
    assert "pandas" not in walks
    with pytest.raises(ModuleNotFoundError, match="pandas"):
        import pandas  # noqa: F401
    assert "pandas" not in sys.modules  # pyarrow reads a key there as "pandas is imported"
    assert pa.table({"a": [1]}).num_rows == 1
